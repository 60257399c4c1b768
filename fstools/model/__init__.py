"""Layer 4, the front end's model of the data: formula parsing, the column <-> term map, validation of
frames and arguments.  pandas and patsy live here and in the layers above, never below.
"""

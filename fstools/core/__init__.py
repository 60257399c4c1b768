"""Layer 2, NumPy utilities shared by the methods and everything above them (no pandas): threads
(``n_jobs``), discretisation, the ranking rule, array helpers and the standardiser, sparse statistics,
parameter constraints.
"""

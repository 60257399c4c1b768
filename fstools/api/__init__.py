"""Layer 6, what a user calls: :func:`select`, the scikit-learn transformer, the streaming selector,
the Dask / out-of-core path and the method table.
"""

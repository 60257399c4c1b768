"""Metrics: classification on imbalanced streams, redundancy of a feature subset.

Functions take NumPy arrays (or array-likes) and return numbers; they know
nothing of formulas.  Several issues add to this module: add functions, keep
one concern per function, and list them in ``__all__``.
"""

__all__ = []

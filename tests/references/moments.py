"""Per-class column moments (counts, means, sums of squared deviations), exactly.

The statistics of the per-class moments kernel from their textbook definitions (the class mean
and the sum of squared deviations about it; the within- and between-class terms of the Fisher
score of Duda, Hart & Stork 2001, "Pattern Classification", section 3.8.2, are built from them),
one feature and one class at a time, in exact rational arithmetic (:class:`fractions.Fraction`
holds every float exactly), rounded to float64 once at the end: an exact result that overflows
is inf and one that underflows is 0.  Conventions of fstools: an empty class has mean NaN, sum of
squares 0 and counts as constant; without samples the column mean is NaN and the column
constant.  Nothing here imports fstools.
"""
import math
from fractions import Fraction

import numpy as np

from references._common import _all_equal


def _rounded(value):
    """A Fraction rounded to float64; inf / -inf when beyond the largest double."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def class_moments_ref(X, y, n_classes):
    """(counts, mean, ss, constant, column_mean, column_constant) of ``X`` by class ``y``.

    ``mean[f, c]``: exact mean of class c in feature f; ``ss[f, c]``: exact sum of squared
    deviations about the exact mean; ``constant[f, c]``: min == max; ``column_mean[f]``:
    exact mean of the feature; ``column_constant[f]``: every value of the feature equal.
    """
    X = np.asarray(X, dtype=float)
    y = [int(v) for v in y]
    n, p = X.shape
    counts = np.array([sum(1 for v in y if v == c) for c in range(n_classes)], dtype=np.int64)
    mean = np.full((p, n_classes), np.nan)
    ss = np.zeros((p, n_classes))
    constant = np.ones((p, n_classes), dtype=np.uint8)
    column_mean = np.full(p, np.nan)
    column_constant = np.ones(p, dtype=np.uint8)
    for f in range(p):
        column = [float(X[i, f]) for i in range(n)]
        if n:
            column_mean[f] = _rounded(sum(Fraction(v) for v in column) / n)
            column_constant[f] = int(_all_equal(column))
        for c in range(n_classes):
            members = [column[i] for i in range(n) if y[i] == c]
            if not members:
                continue
            exact_mean = sum(Fraction(v) for v in members) / len(members)
            mean[f, c] = _rounded(exact_mean)
            ss[f, c] = _rounded(sum((Fraction(v) - exact_mean) ** 2 for v in members))
            constant[f, c] = int(_all_equal(members))
    return counts, mean, ss, constant, column_mean, column_constant

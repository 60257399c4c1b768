"""Helpers shared by several reference modules (no fstools code)."""
import math

import numpy as np


def _all_equal(values):
    return all(v == values[0] for v in values)


def standardize_ref(X, ddof=0):
    """Each column minus its mean, divided by its standard deviation (ddof); constant columns 0."""
    X = np.asarray(X, dtype=float)
    Z = np.zeros_like(X)
    n = X.shape[0]
    for j in range(X.shape[1]):
        column = [float(v) for v in X[:, j]]
        mean = sum(column) / n
        sd = math.sqrt(sum((v - mean) ** 2 for v in column) / (n - ddof))
        if not _all_equal(column):
            Z[:, j] = [(v - mean) / sd for v in column]
    return Z

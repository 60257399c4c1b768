"""Per-class column statistics of a sparse matrix, without densifying it.

The filters that make sense on sparse data (Fisher score, chi-square, mutual
information of binary/count features) need only per-class summaries of each
column.  This module computes them from the stored entries of a CSC matrix
with NumPy (``np.bincount`` / ``ufunc.at`` over ``data`` with its row and
column indices); every zero that is not stored is *implied*: a class with
``n_c`` rows and ``s`` stored nonzero entries in a column has ``n_c - s``
zeros there.  Memory is O(nnz + n_classes x n_features); nothing of size
n_samples x n_features is ever built.

* :func:`as_canonical_csc` -- CSC, float64, sorted indices, no duplicates,
  finite values (copies only when the input is not so already; the input is
  never modified).
* :func:`class_column_sums`, :func:`class_column_statistics` -- per class
  and column: row counts, nonzero counts, sums, sums of squares, minimum and
  maximum (zeros implied), and :func:`centred_sums_of_squares` (sum of
  squared deviations from given per-class centres, two-pass accurate).
* :func:`column_ranges` -- per column minimum and maximum (zeros implied;
  scikit-learn's ``min_max_axis``).
* :func:`column_levels`, :func:`level_class_counts`,
  :func:`column_value_counts` -- the distinct values of each column (the
  zero included where it occurs) and their counts per class, for binary /
  count columns with few distinct values.
* :func:`sparse_mutual_information_relevance` -- I(X_j; C) in nats of every
  discrete column, equal to the dense path of ``mim`` (the same plug-in
  estimate, summed in the same order as the kernel
  :func:`fstools._ext._entropy.feature_class_information`).
"""
import math
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from fstools.core.discretize import MAX_LEVELS_AS_IS
from fstools.core.messages import ColumnError, preview

__all__ = ["as_canonical_csc", "ClassColumnStatistics", "class_column_sums", "class_column_statistics",
           "centred_sums_of_squares", "column_ranges", "ColumnLevels", "column_levels",
           "level_class_counts", "column_value_counts", "sparse_mutual_information_relevance",
           "discrete_column_mask", "ROUNDING_TOLERANCE"]

#: Tiny negative mutual information from rounding is returned as 0 (as the entropy kernel does).
ROUNDING_TOLERANCE = 1e-12


# --------------------------------------------------------------------------
# Input
# --------------------------------------------------------------------------

def as_canonical_csc(X, name="X"):
    """``X`` as a CSC matrix of float64 in canonical format (sorted indices, no duplicates).

    The input is never modified and never densified: it is returned as it is when
    it is already so, otherwise converted (O(nnz) copy).

    Parameters
    ----------
    X : scipy sparse matrix or array, shape (n_samples, n_features)
    name : str
        The argument's name in error messages.

    Returns
    -------
    scipy.sparse.csc_matrix or csc_array

    Raises
    ------
    TypeError
        If ``X`` is not a scipy sparse matrix, or not numeric.
    ValueError
        If ``X`` is not 2-D or has NaN or infinite stored values.
    """
    if not sparse.issparse(X):
        raise TypeError(f"{name}: must be a scipy sparse matrix; got {type(X).__name__}")
    if X.ndim != 2:
        raise ValueError(f"{name}: must be 2-D (samples x features); got {X.ndim}-D")
    if not (np.issubdtype(X.dtype, np.number) or X.dtype == bool) or np.issubdtype(X.dtype, np.complexfloating):
        raise TypeError(f"{name}: must be numeric; got dtype {X.dtype}")
    matrix = X if X.format == "csc" else X.tocsc()
    if matrix.dtype != np.float64:
        matrix = matrix.astype(np.float64)
    if not matrix.has_canonical_format:
        if matrix is X:
            matrix = matrix.copy()
        matrix.sum_duplicates()  # also sorts the indices
    if not np.isfinite(matrix.data).all():
        raise ValueError(f"{name}: non-finite values (NaN or inf); allowed: finite numbers")
    return matrix


def _check_classes(y, n_samples, n_classes):
    y = np.ascontiguousarray(y)
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise ValueError(f"y: must be 1-D with one class code per sample ({n_samples}); got shape {y.shape}")
    if not np.issubdtype(y.dtype, np.integer):
        raise TypeError(f"y: class codes must be integers 0..n_classes-1; got dtype {y.dtype}")
    if n_samples and (y.min() < 0 or y.max() >= n_classes):
        raise ValueError(f"y: class codes must be in 0..{n_classes - 1} (n_classes = {n_classes})")
    return y.astype(np.intp, copy=False)


def _entries(X):
    """(rows, columns, values) of the stored nonzero entries of canonical CSC ``X``."""
    columns = np.repeat(np.arange(X.shape[1], dtype=np.intp), np.diff(X.indptr))
    rows = X.indices.astype(np.intp, copy=False)
    values = X.data
    stored_zero = values == 0.0
    if stored_zero.any():  # explicit zeros are zeros like the implied ones
        keep = ~stored_zero
        rows, columns, values = rows[keep], columns[keep], values[keep]
    return rows, columns, values


# --------------------------------------------------------------------------
# Per-class moments
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class ClassColumnStatistics:
    """Per-class column statistics of a sparse matrix (zeros implied).

    Attributes
    ----------
    class_counts : ndarray of int64, shape (n_classes,)
        Rows of each class.
    nonzero_counts : ndarray of int64, shape (n_classes, n_features)
        Nonzero values of each column within each class (the rest are zeros).
    sums : ndarray of float64, shape (n_classes, n_features)
    sums_of_squares : ndarray of float64, shape (n_classes, n_features)
        Sums of squared values (about 0; see :func:`centred_sums_of_squares`
        for sums of squared deviations without cancellation).
    minimum, maximum : ndarray of float64, shape (n_classes, n_features)
        Over all rows of the class, the implied zeros included; NaN for a class without rows.
    """

    class_counts: np.ndarray
    nonzero_counts: np.ndarray
    sums: np.ndarray
    sums_of_squares: np.ndarray
    minimum: np.ndarray
    maximum: np.ndarray

    def means(self):
        """Per-class column means, shape (n_classes, n_features); NaN for a class without rows."""
        counts = self.class_counts.astype(np.float64)[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(counts > 0, self.sums / np.where(counts > 0, counts, 1.0), np.nan)


def class_column_sums(X, y, n_classes):
    """Per-class column sums and nonzero counts of a sparse matrix.

    Parameters
    ----------
    X : scipy sparse matrix, shape (n_samples, n_features)
        Any sparse format (converted to canonical CSC, see :func:`as_canonical_csc`).
    y : ndarray of int, shape (n_samples,)
        Class codes 0..n_classes-1.
    n_classes : int

    Returns
    -------
    class_counts : ndarray of int64, shape (n_classes,)
    nonzero_counts : ndarray of int64, shape (n_classes, n_features)
    sums : ndarray of float64, shape (n_classes, n_features)
        Each sum adds the column's values of the class in increasing row order.
    """
    X = as_canonical_csc(X)
    n_samples, n_features = X.shape
    y = _check_classes(y, n_samples, n_classes)
    rows, columns, values = _entries(X)
    cells = n_classes * n_features
    key = y[rows] * n_features + columns
    class_counts = np.bincount(y, minlength=n_classes).astype(np.int64)
    nonzero_counts = np.bincount(key, minlength=cells).astype(np.int64).reshape(n_classes, n_features)
    sums = np.bincount(key, weights=values, minlength=cells).reshape(n_classes, n_features)
    return class_counts, nonzero_counts, sums


def class_column_statistics(X, y, n_classes):
    """Counts, sums, sums of squares, minimum and maximum of every column within every class.

    Parameters
    ----------
    X : scipy sparse matrix, shape (n_samples, n_features)
        Any sparse format (used as canonical CSC); never densified.
    y : ndarray of int, shape (n_samples,)
        Class codes 0..n_classes-1.
    n_classes : int

    Returns
    -------
    ClassColumnStatistics
    """
    X = as_canonical_csc(X)
    n_samples, n_features = X.shape
    y = _check_classes(y, n_samples, n_classes)
    class_counts, nonzero_counts, sums = class_column_sums(X, y, n_classes)
    rows, columns, values = _entries(X)
    cells = n_classes * n_features
    key = y[rows] * n_features + columns
    sums_of_squares = np.bincount(key, weights=values * values, minlength=cells).reshape(n_classes, n_features)
    minimum = np.full(cells, np.inf)
    maximum = np.full(cells, -np.inf)
    np.minimum.at(minimum, key, values)
    np.maximum.at(maximum, key, values)
    minimum = minimum.reshape(n_classes, n_features)
    maximum = maximum.reshape(n_classes, n_features)
    has_zero = nonzero_counts < class_counts[:, None]
    minimum = np.where(has_zero, np.minimum(minimum, 0.0), minimum)
    maximum = np.where(has_zero, np.maximum(maximum, 0.0), maximum)
    empty = class_counts == 0
    minimum[empty] = np.nan
    maximum[empty] = np.nan
    return ClassColumnStatistics(class_counts=class_counts, nonzero_counts=nonzero_counts, sums=sums,
                                 sums_of_squares=sums_of_squares, minimum=minimum, maximum=maximum)


def centred_sums_of_squares(X, y, centres):
    """Per class and column, the sum of squared deviations from a given centre (zeros implied).

    ``sum over the rows i of class c of (X_ij - centres[c, j])^2``, computed in
    two passes (the deviations of the stored values, plus ``(n_c - nnz_cj)
    centres[c, j]^2`` for the implied zeros), so there is no cancellation as in
    ``sum x^2 - n mean^2``.

    Parameters
    ----------
    X : scipy sparse matrix, shape (n_samples, n_features)
    y : ndarray of int, shape (n_samples,)
        Class codes 0..n_classes-1 with ``n_classes = centres.shape[0]``.
    centres : ndarray of float64, shape (n_classes, n_features)
        Typically the class means; rows of classes without samples are ignored.

    Returns
    -------
    ndarray of float64, shape (n_classes, n_features)
    """
    X = as_canonical_csc(X)
    n_samples, n_features = X.shape
    centres = np.asarray(centres, dtype=np.float64)
    n_classes = centres.shape[0]
    if centres.shape != (n_classes, n_features):
        raise ValueError(f"centres: must have shape (n_classes, {n_features}); got {centres.shape}")
    y = _check_classes(y, n_samples, n_classes)
    rows, columns, values = _entries(X)
    classes = y[rows]
    deviation = values - centres[classes, columns]
    key = classes * n_features + columns
    stored = np.bincount(key, weights=deviation * deviation,
                         minlength=n_classes * n_features).reshape(n_classes, n_features)
    nonzero_counts = np.bincount(key, minlength=n_classes * n_features).reshape(n_classes, n_features)
    class_counts = np.bincount(y, minlength=n_classes)
    implied_zeros = class_counts[:, None] - nonzero_counts
    safe_centres = np.where(class_counts[:, None] > 0, centres, 0.0)
    return stored + implied_zeros * safe_centres * safe_centres


def column_ranges(X):
    """Minimum and maximum of every column of a sparse matrix, the implied zeros included.

    scikit-learn's :func:`sklearn.utils.sparsefuncs.min_max_axis` on the canonical CSC
    matrix (explicit zeros count as the zeros they are).

    Returns
    -------
    minimum, maximum : ndarray of float64, shape (n_features,)
        NaN when the matrix has no rows.
    """
    from sklearn.utils.sparsefuncs import min_max_axis

    X = as_canonical_csc(X)
    n_samples, n_features = X.shape
    if n_samples == 0:
        return np.full(n_features, np.nan), np.full(n_features, np.nan)
    if n_features == 0:
        return np.zeros(0), np.zeros(0)
    minimum, maximum = min_max_axis(X, axis=0)
    return np.asarray(minimum, dtype=np.float64), np.asarray(maximum, dtype=np.float64)


# --------------------------------------------------------------------------
# Distinct values and their counts per class
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class ColumnLevels:
    """The distinct values of every column of a sparse matrix (the zero included where it occurs).

    Attributes
    ----------
    values : ndarray of float64, shape (n_levels,)
        The distinct values, column after column, increasing within a column.
    column_starts : ndarray of intp, shape (n_features + 1,)
        Column ``j``'s levels are ``values[column_starts[j]:column_starts[j + 1]]``.
    entry_levels : ndarray of intp, shape (n_nonzero,)
        The level of each stored nonzero entry (in CSC order, explicit zeros left out).
    zero_levels : ndarray of intp, shape (n_features,)
        The level of the value 0 in each column, -1 where no row is 0.
    """

    values: np.ndarray
    column_starts: np.ndarray
    entry_levels: np.ndarray
    zero_levels: np.ndarray

    def counts(self):
        """Number of distinct values of every column."""
        return np.diff(self.column_starts)


def column_levels(X):
    """The distinct values of every column, without densifying (see :class:`ColumnLevels`).

    Parameters
    ----------
    X : scipy sparse matrix, shape (n_samples, n_features)

    Returns
    -------
    ColumnLevels
    """
    X = as_canonical_csc(X)
    n_samples, n_features = X.shape
    _, columns, values = _entries(X)
    order = np.lexsort((values, columns))  # by column, then value
    sorted_columns = columns[order]
    sorted_values = values[order]
    starts_level = np.ones(sorted_values.shape[0], dtype=bool)
    starts_level[1:] = (sorted_columns[1:] != sorted_columns[:-1]) | (sorted_values[1:] != sorted_values[:-1])
    nonzero_level_columns = sorted_columns[starts_level]
    nonzero_level_values = sorted_values[starts_level]
    sorted_entry_levels = np.cumsum(starts_level) - 1   # into the nonzero levels
    # The zero level of each column that has a zero (an implied one: fewer nonzeros than rows).
    zero_columns = np.flatnonzero(np.bincount(columns, minlength=n_features) < n_samples)
    level_columns = np.concatenate([nonzero_level_columns, zero_columns])
    level_values = np.concatenate([nonzero_level_values, np.zeros(zero_columns.shape[0])])
    level_order = np.lexsort((level_values, level_columns))
    position = np.empty(level_order.shape[0], dtype=np.intp)
    position[level_order] = np.arange(level_order.shape[0])
    entry_levels = np.empty(values.shape[0], dtype=np.intp)
    entry_levels[order] = position[sorted_entry_levels]
    zero_levels = np.full(n_features, -1, dtype=np.intp)
    zero_levels[zero_columns] = position[nonzero_level_columns.shape[0]:]
    column_starts = np.zeros(n_features + 1, dtype=np.intp)
    np.cumsum(np.bincount(level_columns, minlength=n_features), out=column_starts[1:])
    return ColumnLevels(values=level_values[level_order], column_starts=column_starts,
                        entry_levels=entry_levels, zero_levels=zero_levels)


def level_class_counts(X, y, n_classes, levels=None):
    """How many rows of each class hold each distinct value of each column (zeros implied).

    Parameters
    ----------
    X : scipy sparse matrix, shape (n_samples, n_features)
    y : ndarray of int, shape (n_samples,)
        Class codes 0..n_classes-1.
    n_classes : int
    levels : ColumnLevels, optional
        :func:`column_levels` of ``X`` (computed when not given).

    Returns
    -------
    counts : ndarray of int64, shape (n_levels, n_classes)
        Row ``l`` belongs to ``levels.values[l]``; the rows of a column sum to the class counts.
    levels : ColumnLevels
    """
    X = as_canonical_csc(X)
    n_samples, n_features = X.shape
    y = _check_classes(y, n_samples, n_classes)
    if levels is None:
        levels = column_levels(X)
    rows, columns, _ = _entries(X)
    n_levels = levels.values.shape[0]
    classes = y[rows]
    counts = np.bincount(levels.entry_levels * n_classes + classes,
                         minlength=n_levels * n_classes).astype(np.int64).reshape(n_levels, n_classes)
    class_counts = np.bincount(y, minlength=n_classes).astype(np.int64)
    nonzero_counts = np.bincount(columns * n_classes + classes,
                                 minlength=n_features * n_classes).reshape(n_features, n_classes)
    has_zero = levels.zero_levels >= 0
    counts[levels.zero_levels[has_zero]] = class_counts[None, :] - nonzero_counts[has_zero]
    return counts, levels


def column_value_counts(X, y, n_classes, max_levels=MAX_LEVELS_AS_IS):
    """Per column, its distinct values and their counts per class, for columns with few values.

    Parameters
    ----------
    X : scipy sparse matrix, shape (n_samples, n_features)
        Binary or count columns (any values, at most ``max_levels`` distinct per column).
    y : ndarray of int, shape (n_samples,)
        Class codes 0..n_classes-1.
    n_classes : int
    max_levels : int
        Most distinct values (the zero included) a column may have.

    Returns
    -------
    counts : ndarray of int64, shape (n_levels, n_classes)
    levels : ColumnLevels

    Raises
    ------
    ValueError
        Naming the columns with more than ``max_levels`` distinct values.
    """
    levels = column_levels(X)
    too_many = np.flatnonzero(levels.counts() > max_levels)
    if too_many.size:
        raise ValueError(f"X: column(s) {preview(too_many)} have more than {max_levels} distinct "
                         f"values; per-class value counts are for binary/count columns with few values")
    return level_class_counts(X, y, n_classes, levels)


# --------------------------------------------------------------------------
# Mutual information of discrete columns with the class
# --------------------------------------------------------------------------

def _n_log_n(counts):
    """``n * log(n)`` of integer counts (0 for n <= 1), with the C library's ``log``
    (Python's :func:`math.log`), as the entropy kernel computes it."""
    counts = np.asarray(counts, dtype=np.int64)
    distinct, inverse = np.unique(counts, return_inverse=True)
    table = np.array([float(n) * math.log(float(n)) if n > 1 else 0.0 for n in distinct.tolist()],
                     dtype=np.float64)
    return table[inverse].reshape(counts.shape)


def _entropy_from_sum(sum_n_log_n, m):
    """``H = (m log m - sum n log n) / m``, the kernel's formula."""
    return (float(m) * math.log(float(m)) - sum_n_log_n) / float(m)


def discrete_column_mask(X, max_levels=MAX_LEVELS_AS_IS):
    """Which columns of a sparse matrix are discrete: integer values only and at most ``max_levels``
    distinct values, the zero included (the columns :func:`sparse_mutual_information_relevance`
    counts as they are; the rule of :func:`fstools.core.discretize.discrete_columns`).

    Parameters
    ----------
    X : scipy sparse matrix, shape (n_samples, n_features)
    max_levels : int

    Returns
    -------
    ndarray of bool, shape (n_features,)
    """
    X = as_canonical_csc(X)
    _, columns, values = _entries(X)
    discrete = column_levels(X).counts() <= max_levels
    discrete[np.unique(columns[values != np.round(values)])] = False
    return discrete


def sparse_mutual_information_relevance(X, y, n_classes, max_levels=MAX_LEVELS_AS_IS, method="mim"):
    """I(X_j; C) in nats of every discrete column of a sparse matrix, the zeros implied.

    The plug-in estimate ``H(X_j) + H(C) - H(X_j, C)`` on the column's distinct
    values (binary or count features: integer values, at most ``max_levels``
    distinct, the zero included), equal -- to the last bit -- to what the dense
    path of :func:`fstools.methods.information.mim` returns on the same data
    (which uses such columns as they are): each entropy is
    ``(m log m - sum n log n) / m`` with the sum taken over the cells in the
    kernel's order (levels by increasing value; (level, class) row-major) and a
    tiny negative result from rounding (> -1e-12) returned as 0.

    Parameters
    ----------
    X : scipy sparse matrix, shape (n_samples, n_features)
        Integer-valued columns with at most ``max_levels`` distinct values; never densified.
    y : ndarray of int, shape (n_samples,)
        Class codes 0..n_classes-1.
    n_classes : int
    max_levels : int, default :data:`fstools.core.discretize.MAX_LEVELS_AS_IS` (32)
        The rule of :func:`fstools.core.discretize.discrete_columns`.
    method : str
        The method named in error messages.

    Returns
    -------
    ndarray of float64, shape (n_features,)

    Raises
    ------
    ValueError
        Naming the columns with non-integer values or more than ``max_levels``
        distinct values: dense input is discretised instead, sparse input is not.
    """
    X = as_canonical_csc(X)
    n_samples, n_features = X.shape
    y = _check_classes(y, n_samples, n_classes)
    if n_samples == 0:
        raise ValueError("X: has no rows; mutual information needs at least one sample")
    _, columns, values = _entries(X)
    non_integer = np.unique(columns[values != np.round(values)])
    levels = column_levels(X)
    too_many = np.setdiff1d(np.flatnonzero(levels.counts() > max_levels), non_integer)
    if non_integer.size or too_many.size:
        # a ColumnError: the layers that know the columns' names restate it with them
        if non_integer.size and too_many.size:
            problem, columns = (f"have non-integer values or more than {max_levels} distinct values",
                                np.union1d(non_integer, too_many))
        elif non_integer.size:
            problem, columns = "have non-integer values", non_integer
        else:
            problem, columns = f"have more than {max_levels} distinct values", too_many
        raise ColumnError(f"X: method {method!r} on sparse input needs binary/count features (integer values, "
                          f"at most {max_levels} distinct per column); column(s) {{columns}} {problem}. Convert "
                          f"with X.toarray() if it fits in memory (dense input is discretised instead)",
                          columns.tolist())
    counts, levels = level_class_counts(X, y, n_classes, levels)
    starts = levels.column_starts
    n_levels = np.diff(starts)
    level_rank = np.arange(levels.values.shape[0]) - np.repeat(starts[:-1], n_levels)
    level_column = np.repeat(np.arange(n_features), n_levels)

    joint_terms = _n_log_n(counts)                      # (n_levels, n_classes)
    marginal_terms = _n_log_n(counts.sum(axis=1))       # (n_levels,)
    class_terms = _n_log_n(np.bincount(y, minlength=n_classes))
    class_sum = 0.0
    for term in class_terms.tolist():                   # in class order, as the kernel
        class_sum += term
    class_entropy = _entropy_from_sum(class_sum, n_samples)

    # Sequential sums per column in the kernel's cell order: level by level
    # (increasing value), and within a level class by class.
    marginal_sum = np.zeros(n_features)
    joint_sum = np.zeros(n_features)
    max_rank = int(n_levels.max()) if n_features else 0
    for rank in range(max_rank):
        at_rank = np.flatnonzero(level_rank == rank)
        owners = level_column[at_rank]
        marginal_sum[owners] += marginal_terms[at_rank]
        for c in range(n_classes):
            joint_sum[owners] += joint_terms[at_rank, c]

    m = float(n_samples)
    m_log_m = m * math.log(m)
    feature_entropy = (m_log_m - marginal_sum) / m
    joint_entropy = (m_log_m - joint_sum) / m
    information = feature_entropy + class_entropy - joint_entropy
    rounding = (information < 0.0) & (information > -ROUNDING_TOLERANCE)
    information[rounding] = 0.0
    return information

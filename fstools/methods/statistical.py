"""Statistical filters on non-negative (count/binary) features: the chi-square statistic.

* :func:`chi2` -- the chi-square statistic of each feature against the class,
  as scikit-learn's :func:`sklearn.feature_selection.chi2` computes it (the
  usual filter for term counts / bag-of-words data; Yang and Pedersen 1997,
  Liu and Setiono 1995).  The feature's values are treated as counts (or
  frequencies) spread over the classes: with ``O_kj`` the sum of feature j over
  the rows of class k, ``T_j = sum_k O_kj`` and ``n_k / n`` the share of class
  k, the expected sum is ``E_kj = (n_k / n) T_j`` and::

      chi2_j = sum_k (O_kj - E_kj)^2 / E_kj

  with the p-value of a chi-square law on (number of classes - 1) degrees of
  freedom.  For a 0/1 feature this is the Pearson statistic of the "feature
  present" row of the feature x class table (the "absent" row is left out, as
  in scikit-learn).  Higher is better.

The statistic and p-value are scikit-learn's (:func:`sklearn.feature_selection.chi2`,
on the non-constant columns); fstools adds the checks and conventions below.  Dense input
is used as it is; sparse input (any scipy format) is never densified (scikit-learn takes
the per-class sums as a product with the stored values).

Conventions (shared with the other filters of fstools): negative values are
refused (the statistic is for counts); a constant column carries no
information, scores 0 (p-value 1) and is ranked after every non-constant
column -- in particular an all-zero column, for which scikit-learn returns NaN
(0 / 0).  Ties go to the lower column index; the ranking holds every column.
"""
import numpy as np
from scipy import sparse

from fstools.core.messages import ColumnError
from fstools.core.arrays import scaled_to_unit
from fstools.core.ranking import TIE_TOLERANCE, rank_features
from fstools.methods.registry import MethodOutput, MethodSpec, register
from fstools.core.sparse import as_canonical_csc, column_ranges

__all__ = ["chi2_scores", "chi2"]


def _classes(y, n_samples):
    y = np.ascontiguousarray(y)
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise ValueError(f"y: must be 1-D with one class code per sample ({n_samples}); got shape {y.shape}")
    if not np.issubdtype(y.dtype, np.integer) or (n_samples and y.min() < 0):
        raise ValueError("y: class codes must be integers 0..n_classes-1")
    y = y.astype(np.intp, copy=False)
    n_classes = int(y.max()) + 1 if n_samples else 0
    counts = np.bincount(y, minlength=n_classes)
    if np.count_nonzero(counts) < 2:
        raise ValueError("y: chi2 needs at least two classes")
    return y, n_classes, counts


def _negative_columns_error(columns):
    return ColumnError("X: method 'chi2' needs non-negative values (counts, frequencies or 0/1 features); "
                       "column(s) {columns} have negative values", columns)


def _constant_columns(X):
    """The constant-column mask, after refusing negative (naming the columns) or non-finite values."""
    if sparse.issparse(X):
        X = as_canonical_csc(X)
        negative = np.unique(np.repeat(np.arange(X.shape[1]), np.diff(X.indptr))[X.data < 0])
        if negative.size:
            raise _negative_columns_error(negative)
        minimum, maximum = column_ranges(X)
        return minimum == maximum
    if X.ndim != 2:
        raise ValueError(f"X: must be 2-D (samples x features); got {X.ndim}-D")
    if not np.isfinite(X).all():
        raise ValueError("X: non-finite values (NaN or inf); allowed: finite numbers")
    negative = np.flatnonzero((X < 0).any(axis=0))
    if negative.size:
        raise _negative_columns_error(negative)
    return np.ptp(X, axis=0) == 0 if X.shape[0] else np.ones(X.shape[1], dtype=bool)


def chi2_scores(X, y):
    """Chi-square statistic and p-value of every column against the class.

    scikit-learn's :func:`sklearn.feature_selection.chi2` on the non-constant columns; the
    constant ones score 0 with p-value 1 (scikit-learn gives NaN on an all-zero column and a
    rounding residue on a constant nonzero one).

    Parameters
    ----------
    X : ndarray or scipy sparse matrix, shape (n_samples, n_features)
        Non-negative finite values (counts, frequencies, 0/1); sparse input is never densified.
    y : ndarray of int, shape (n_samples,)
        Class codes 0..n_classes-1, at least two classes present.

    Returns
    -------
    scores : ndarray of float64, shape (n_features,)
        ``sum_k (O_kj - E_kj)^2 / E_kj`` over the classes present (see the module
        docstring); 0 for a constant column.
    p_values : ndarray of float64, shape (n_features,)
        Upper tail of the chi-square law with (classes present - 1) degrees of freedom; 1 for
        a constant column.
    constant : ndarray of bool, shape (n_features,)

    Raises
    ------
    ValueError
        For negative values (naming the columns), non-finite values, fewer than two classes,
        or a statistic outside the float64 range (naming the columns; it is proportional to
        the column's scale, so this takes values near 1e300 or below about 1e-300).

    Notes
    -----
    The statistic is computed on each column multiplied by the power of two that brings
    its largest value into [0.5, 1) (:func:`fstools.core.arrays.scaled_to_unit`) and scaled
    back: exact, so bitwise scikit-learn's value on ordinary data, with no overflow of
    ``(O - E)^2`` for columns near 1e160 whose statistic is representable.
    """
    # imported here: scikit-learn and scipy.special take longer to import than fstools
    from scipy import special
    from sklearn.feature_selection import chi2 as sklearn_chi2

    X = as_canonical_csc(X) if sparse.issparse(X) else np.asarray(X, dtype=np.float64)
    y, _, _ = _classes(y, X.shape[0])
    constant = _constant_columns(X)
    scores = np.zeros(X.shape[1])
    p_values = np.ones(X.shape[1])
    scored = np.flatnonzero(~constant)
    if scored.size:
        # The statistic is proportional to the column's scale: computed on the columns scaled by powers
        # of two (exact) and scaled back, so that (O - E)^2 cannot overflow where the statistic does not.
        scaled, exponent = _scaled_columns(X[:, scored])
        statistic, _ = sklearn_chi2(scaled, y)
        with np.errstate(over="ignore", under="ignore"):
            unscaled = np.ldexp(statistic, exponent)
        outside = np.isinf(unscaled) | ((unscaled == 0) & (statistic != 0))
        if outside.any():
            raise ColumnError("X: column(s) {columns}: the chi-square statistic, which grows with the "
                              "column's scale, is outside the float64 range; rescale the column(s) (e.g. to "
                              "counts or frequencies)", scored[outside])
        scores[scored] = unscaled
        # scikit-learn's p-value (the upper tail on classes present - 1 degrees of freedom), of the
        # unscaled statistic.
        p_values[scored] = special.chdtrc(np.unique(y).size - 1, unscaled)
    return scores, p_values, constant


def _scaled_columns(X):
    """:func:`fstools.core.arrays.scaled_to_unit` of a dense array or of the stored values of a CSC matrix."""
    if not sparse.issparse(X):
        return scaled_to_unit(X)
    X = X.tocsc()
    magnitude = np.zeros(X.shape[1])
    nonempty = np.flatnonzero(np.diff(X.indptr))
    if nonempty.size:
        magnitude[nonempty] = np.maximum.reduceat(np.abs(X.data), X.indptr[nonempty])
    exponent = np.frexp(magnitude)[1]
    data = np.ldexp(X.data, -np.repeat(exponent, np.diff(X.indptr)))
    return sparse.csc_matrix((data, X.indices.copy(), X.indptr.copy()), shape=X.shape), exponent


def chi2(X, y, k=None, n_threads=1):
    """Chi-square filter: rank by the chi-square statistic of each feature against the class.

    Parameters
    ----------
    X : ndarray of float64 or scipy sparse matrix, shape (n_samples, n_features)
        Non-negative (counts, frequencies, 0/1); sparse input (used as CSC) is never densified.
    y : ndarray of int32, shape (n_samples,)
        Class codes 0..n_classes-1, at least two classes present.
    k : int or None
        Unused (every column is scored and ranked); accepted for the registry.
    n_threads : int
        Unused (O(n p) NumPy, O(nnz + n_classes p) on sparse input).

    Returns
    -------
    MethodOutput
        ``scores`` = chi-square statistic (higher is better; equal to
        :func:`sklearn.feature_selection.chi2` except 0 instead of NaN on an all-zero
        column); columns ``chi2`` and ``p_value``; ``ranking`` = every column by
        decreasing score, ties to the lower index, constant columns last.
    """
    if sparse.issparse(X):
        X = as_canonical_csc(X)
    scores, p_values, constant = chi2_scores(X, y)
    notes = []
    if constant.any():
        notes.append(f"{int(constant.sum())} constant column(s): chi-square 0 (p-value 1), ranked last")
    # scikit-learn's chi2 sums through BLAS: equal columns can differ in the last bits, so ties are
    # taken within the greedy methods' tolerance (the lower column index first).
    order = rank_features(scores, last=constant, tolerance=TIE_TOLERANCE)
    return MethodOutput(ranking=order, scores=scores, columns={"chi2": scores, "p_value": p_values}, notes=notes)


register(MethodSpec(
    name="chi2",
    description="Chi-square statistic of non-negative (count/binary) features against the class",
    function=chi2,
    parameters=(),
    capabilities=frozenset({"supervised", "multiclass", "sparse"}),
    score_name="chi2",
    higher_is_better=True,
    reference="Pearson (1900); Yang & Pedersen (1997) ICML; scikit-learn sklearn.feature_selection.chi2",
    criterion="chi2_j = sum_k (O_kj - E_kj)^2 / E_kj,  O_kj = sum of X_j over class k,  "
              "E_kj = (n_k / n) sum_i X_ij  (constant column: 0)",
))

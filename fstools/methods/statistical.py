"""Statistical filters: the chi-square statistic, the F-test and Pearson's correlation.

* :func:`f_test` -- the F statistic of each feature against the response, with its
  p-value.  For classes the one-way ANOVA F (Fisher 1925; between-class over
  within-class mean square, on (classes - 1, n - classes) degrees of freedom), as
  :func:`sklearn.feature_selection.f_classif`; for a continuous response the F of the
  simple linear regression of the response on the feature,
  ``F = r^2 / (1 - r^2) (n - 2)`` on (1, n - 2) degrees of freedom, as
  :func:`sklearn.feature_selection.f_regression`.  Higher is better.
* :func:`pearson` -- Pearson's correlation r of each feature with a continuous
  response (:func:`sklearn.feature_selection.r_regression`), ranked by ``|r|``, with the
  two-sided p-value of the t test of r = 0 (``t = r sqrt((n - 2) / (1 - r^2))`` on
  n - 2 degrees of freedom, as :func:`scipy.stats.pearsonr`; it is the p-value of the
  F-test, ``F = t^2``).
* Factors (a categorical variable given as one column of level codes, flagged by the
  ``nominal`` mask of :func:`f_test` / :func:`pearson`, and of ``fisher``): scored as a whole
  by :func:`factor_anova` (the one-way ANOVA F of a continuous response on the levels, and the
  correlation ratio eta), :func:`factor_chi_square` (Pearson's chi-square test of independence
  of factor and class) and :func:`factor_fisher_scores` (the Fisher score of the block of level
  indicators); a design with factors is ranked by p-value, since the statistics then have
  different degrees of freedom.
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
import warnings

import numpy as np
from scipy import sparse

from fstools.core.messages import ColumnError, format_count
from fstools.core.arrays import as_class_codes, column_moments, scaled_to_unit
from fstools.core.parallel import threads_for_work
from fstools.core.ranking import TIE_TOLERANCE, rank_features
from fstools.methods.registry import MethodOutput, MethodSpec, register
from fstools.core.sparse import as_canonical_csc, column_ranges
from fstools.core.lazy import LazyModule
from fstools.methods.responses import as_continuous_response, check_response_type

special = LazyModule("scipy.special")  # imported at its first use: it takes longer to import than fstools

__all__ = ["chi2_scores", "chi2", "f_test_scores", "f_test", "pearson_scores", "pearson", "check_nominal",
           "factor_anova", "factor_chi_square", "factor_fisher_scores"]


def _classes(y, n_samples):
    """``(codes, n_classes, counts)`` of :func:`fstools.core.arrays.as_class_codes`, for a ``y``
    of an integer dtype only (a float label is not read as a code)."""
    y = np.asarray(y)
    if not np.issubdtype(y.dtype, np.integer):
        raise ValueError(f"y: class codes must be integers 0..n_classes-1; got dtype {y.dtype}")
    return as_class_codes(y, n_samples)


def _negative_columns_error(columns):
    return ColumnError("X: Negative values in data: method 'chi2' needs non-negative values (counts, frequencies "
                       "or 0/1 features); column(s) {columns} have negative values", columns)


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


def chi2_scores(X, y, n_threads=1):
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
    n_threads : int, default 1
        Threads of the read of a dense ``X`` (:func:`fstools.core.arrays.column_moments`); the
        result does not depend on it.

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
    back: exact, so scikit-learn's value on ordinary data up to rounding, with no overflow of
    ``(O - E)^2`` for columns near 1e160 whose statistic is representable.  A dense ``X`` (any
    layout) is read once (:func:`fstools.core.arrays.column_moments`): the class sums ``O_kj`` of
    the scaled columns, their extremes (negative and constant columns) and the test for
    non-finite values come from that read, and the statistic is scikit-learn's formula on them.
    """
    # imported here: scikit-learn takes longer to import than fstools
    from sklearn.feature_selection import chi2 as sklearn_chi2

    if not sparse.issparse(X):
        return _dense_chi2_scores(X, y, n_threads)
    X = as_canonical_csc(X)
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
        unscaled = _unscaled_chi2(statistic, exponent, scored)
        scores[scored] = unscaled
        # scikit-learn's p-value (the upper tail on classes present - 1 degrees of freedom), of the
        # unscaled statistic.
        p_values[scored] = special.chdtrc(np.unique(y).size - 1, unscaled)
    return scores, p_values, constant


def _unscaled_chi2(statistic, exponent, scored):
    """The chi-square statistics of the columns ``scored`` computed on them multiplied by
    ``2^-exponent``, scaled back (the statistic is proportional to the column's scale); a
    ColumnError naming the columns where it leaves the float64 range."""
    with np.errstate(over="ignore", under="ignore"):
        unscaled = np.ldexp(statistic, exponent)
    outside = np.isinf(unscaled) | ((unscaled == 0) & (statistic != 0))
    if outside.any():
        raise ColumnError("X: column(s) {columns}: the chi-square statistic, which grows with the "
                          "column's scale, is outside the float64 range; rescale the column(s) (e.g. to "
                          "counts or frequencies)", scored[outside])
    return unscaled


def _dense_chi2_scores(X, y, n_threads=1):
    """:func:`chi2_scores` of a dense ``X``, in one read of it."""
    X = _dense_matrix(X)
    y, n_classes, counts = _classes(y, X.shape[0])
    moments = column_moments(X, y, n_classes, n_threads=n_threads)
    present = np.flatnonzero(counts)
    negative = np.flatnonzero(moments.minimum < 0) if X.shape[0] else np.zeros(0, dtype=np.intp)
    if negative.size:
        raise _negative_columns_error(negative)
    constant = moments.constant
    scores = np.zeros(X.shape[1])
    p_values = np.ones(X.shape[1])
    scored = np.flatnonzero(~constant)
    if scored.size:
        # scikit-learn's chi2 on the scaled columns: O_kj the class sums, E_kj = (n_k / n) T_j.
        observed = moments.sums[scored][:, present]
        class_share = counts[present] / X.shape[0]
        expected = observed.sum(axis=1)[:, None] * class_share
        statistic = ((observed - expected) ** 2 / expected).sum(axis=1)
        unscaled = _unscaled_chi2(statistic, moments.exponent[scored], scored)
        scores[scored] = unscaled
        p_values[scored] = special.chdtrc(present.size - 1, unscaled)
    return scores, p_values, constant


def _dense_matrix(X):
    """A dense ``X`` as a 2-D float64 array (no copy of a float64 one, any layout); its values are
    checked by the read of :func:`fstools.core.arrays.column_moments`."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X: must be 2-D (samples x features); got {X.ndim}-D")
    return X


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
        Threads of the one read of a dense ``X`` (the result does not depend on it); unused on
        sparse input (O(nnz + n_classes p) NumPy).

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
    scores, p_values, constant = chi2_scores(X, y, threads_for_work(np.prod(np.shape(X)), n_threads))
    notes = []
    if constant.any():
        notes.append(f"{format_count(int(constant.sum()), 'constant column')}: chi-square 0 (p-value 1), ranked last")
    # scikit-learn's chi2 sums through BLAS: equal columns can differ in the last bits, so ties are
    # taken within the greedy methods' tolerance (the lower column index first).
    order = rank_features(scores, last=constant, tolerance=TIE_TOLERANCE)
    return MethodOutput(ranking=order, scores=scores, columns={"chi2": scores, "p_value": p_values}, notes=notes,
                        constant_columns=None if sparse.issparse(X) else constant)


register(MethodSpec(
    name="chi2",
    description="Chi-square statistic of non-negative (count/binary) features against the class",
    function=chi2,
    parameters=(),
    capabilities=frozenset({"supervised", "multiclass", "sparse", "non_negative"}),
    score_name="chi2",
    higher_is_better=True,
    reference="Pearson (1900); Yang & Pedersen (1997) ICML; scikit-learn sklearn.feature_selection.chi2",
    criterion="chi2_j = sum_k (O_kj - E_kj)^2 / E_kj,  O_kj = sum of X_j over class k,  "
              "E_kj = (n_k / n) sum_i X_ij  (constant column: 0)",
    checks_design=True,
))


# ---------------------------------------------------------------------------
# Factors: a categorical variable scored by its levels
# ---------------------------------------------------------------------------

def check_nominal(nominal, n_features):
    """The ``nominal`` mask of a method call as a boolean array (all False for None).

    ``nominal[j]`` says that column ``j`` of ``X`` holds the level codes of a factor (a
    categorical variable: the codes name the levels, their order and distances mean nothing),
    as the model layer passes them to the methods registered with ``factors="nominal"``.
    """
    if nominal is None:
        return np.zeros(n_features, dtype=bool)
    mask = np.asarray(nominal)
    if mask.dtype != np.bool_ or mask.shape != (n_features,):
        raise ValueError(f"nominal: must be a boolean array with one entry per column of X ({n_features}); "
                         f"got dtype {mask.dtype}, shape {mask.shape}")
    return mask


def _factor_levels(column):
    """Level indices 0..L-1 of a column of factor codes, and L."""
    _, inverse = np.unique(column, return_inverse=True)
    inverse = inverse.ravel()
    return inverse, int(inverse.max()) + 1 if inverse.size else 0


def _factor_class_table(column, y):
    """The level x class contingency table of a factor column against class codes (classes present)."""
    levels, n_levels = _factor_levels(column)
    table = np.zeros((n_levels, int(y.max()) + 1))
    np.add.at(table, (levels, y), 1.0)
    return table[:, table.sum(axis=0) > 0]


def factor_anova(codes, y):
    """One-way analysis of variance of a continuous response on each factor (Fisher 1925).

    For a factor with ``L`` levels (groups of ``n_l`` rows with response mean ``m_l``;
    ``m`` the overall mean), ``SSB = sum_l n_l (m_l - m)^2``, ``SSW = sum_i (y_i - m_{l(i)})^2``
    and ``F = [SSB / (L - 1)] / [SSW / (n - L)]`` on (L - 1, n - L) degrees of freedom: the F
    of ``anova(lm(y ~ factor))`` in R, :func:`scipy.stats.f_oneway` on the groups.

    Parameters
    ----------
    codes : ndarray of float64, shape (n_samples, n_factors)
        Level codes (any distinct numbers), one column per factor.
    y : ndarray of float64, shape (n_samples,)
        Finite continuous response.

    Returns
    -------
    F, p_values, eta : ndarray of float64, shape (n_factors,)
        F (``inf`` when every group is constant but the groups differ), its upper-tail
        p-value, and the correlation ratio ``eta = sqrt(SSB / (SSB + SSW))`` (Pearson 1905,
        "On the general theory of skew correlation and non-linear regression"), the
        multiple correlation of the response with the factor's dummy columns: the
        factor's counterpart of ``|r|``.  A factor with one level: F 0, p-value 1, eta 0.
    df1, df2 : ndarray of int, shape (n_factors,)
    """
    codes = np.asarray(codes, dtype=np.float64).reshape(len(y), -1)
    y = np.asarray(y, dtype=np.float64)
    y = y - y.mean()
    n_samples, n_factors = codes.shape
    F, p_values, eta = np.zeros(n_factors), np.ones(n_factors), np.zeros(n_factors)
    df1, df2 = np.zeros(n_factors, dtype=np.intp), np.zeros(n_factors, dtype=np.intp)
    for j in range(n_factors):
        levels, n_levels = _factor_levels(codes[:, j])
        df1[j], df2[j] = n_levels - 1, n_samples - n_levels
        if n_levels < 2 or df2[j] < 1:
            continue
        counts = np.bincount(levels, minlength=n_levels)
        means = np.bincount(levels, weights=y, minlength=n_levels) / counts
        between = float(counts @ (means * means))
        within = float(np.sum((y - means[levels]) ** 2))
        with np.errstate(divide="ignore", invalid="ignore"):
            F[j] = (between / df1[j]) / (within / df2[j]) if within > 0 else (np.inf if between > 0 else 0.0)
        p_values[j] = special.fdtrc(df1[j], df2[j], F[j])
        total = between + within
        eta[j] = np.sqrt(between / total) if total > 0 else 0.0
    return F, p_values, eta, df1, df2


def factor_chi_square(codes, y):
    """Pearson's chi-square test of independence of each factor and the class (Pearson 1900).

    For the L x K table of counts ``O_lk`` (levels present x classes present) with expected
    counts ``E_lk = O_l. O_.k / n``: ``chi2 = sum (O_lk - E_lk)^2 / E_lk`` on (L - 1)(K - 1)
    degrees of freedom, :func:`scipy.stats.chi2_contingency` with ``correction=False``.

    Parameters
    ----------
    codes : ndarray of float64, shape (n_samples, n_factors)
        Level codes, one column per factor.
    y : ndarray of int, shape (n_samples,)
        Class codes 0..n_classes-1.

    Returns
    -------
    chi2, p_values : ndarray of float64, shape (n_factors,)
        A factor with one level: 0 and 1.
    df : ndarray of int, shape (n_factors,)
    """
    codes = np.asarray(codes, dtype=np.float64).reshape(len(y), -1)
    y = np.asarray(y, dtype=np.intp)
    n_factors = codes.shape[1]
    statistic, p_values = np.zeros(n_factors), np.ones(n_factors)
    df = np.zeros(n_factors, dtype=np.intp)
    for j in range(n_factors):
        table = _factor_class_table(codes[:, j], y)
        df[j] = (table.shape[0] - 1) * (table.shape[1] - 1)
        if df[j] == 0:
            continue
        expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
        statistic[j] = float(np.sum((table - expected) ** 2 / expected))
        p_values[j] = special.chdtrc(df[j], statistic[j])
    return statistic, p_values, df


def factor_fisher_scores(codes, y):
    """The Fisher score of each factor's block of level indicators: between- over within-class variation.

    The Fisher score of one column is its between-class variance over its within-class
    variance (``fisher``).  A factor with L levels is the block of its L 0/1 level
    indicators; summed over the block (the traces of the between- and within-class
    covariance matrices, which do not depend on the order or the coding of the levels),
    with ``p_kl`` the share of level l in class k, ``p_l`` its share overall and ``n_k``
    the class sizes::

        between = sum_k (n_k / n) sum_l (p_kl - p_l)^2
        within  = sum_k (n_k / n) sum_l p_kl (1 - p_kl)
        score   = between / within

    ``between + within = 1 - sum_l p_l^2`` is the Gini variation of the factor: this is
    the ratio of the between- to the within-class sum of squares of the analysis of
    variance for categorical data of Light and Margolin (1971, "An analysis of variance for
    categorical data", JASA 66(335), 534-544, section 2), and for a two-level factor it is
    the Fisher score of its one dummy column.

    Parameters
    ----------
    codes : ndarray of float64, shape (n_samples, n_factors)
    y : ndarray of int, shape (n_samples,)
        Class codes 0..n_classes-1.

    Returns
    -------
    scores, between, within : ndarray of float64, shape (n_factors,)
        A factor with one level scores 0 (0 / 0, as a constant column); ``inf`` when every
        class holds a single level but the classes differ.
    """
    codes = np.asarray(codes, dtype=np.float64).reshape(len(y), -1)
    y = np.asarray(y, dtype=np.intp)
    n_factors = codes.shape[1]
    scores, between, within = np.zeros(n_factors), np.zeros(n_factors), np.zeros(n_factors)
    for j in range(n_factors):
        table = _factor_class_table(codes[:, j], y)
        class_sizes = table.sum(axis=0)
        weights = class_sizes / class_sizes.sum()
        shares = table / class_sizes                        # p_kl: level l in class k (one column per class)
        overall = table.sum(axis=1) / class_sizes.sum()     # p_l
        between[j] = float(weights @ np.sum((shares - overall[:, None]) ** 2, axis=0))
        within[j] = float(weights @ np.sum(shares * (1.0 - shares), axis=0))
        if within[j] > 0:
            scores[j] = between[j] / within[j]
        elif between[j] > 0:
            scores[j] = np.inf
    return scores, between, within


def _rank_by_p_value(p_values, scores, constant):
    """Increasing p-values (each row's own test), exact ties by decreasing score, then by index; constant
    columns last: the ranking of rows whose statistics have different degrees of freedom."""
    return rank_features(p_values, higher_is_better=False, last=constant, tiebreak=-np.asarray(scores))


def _factor_note(nominal, test):
    """The note of a filter that scored some columns as factors."""
    return (f"{format_count(int(nominal.sum()), 'factor')} scored by {test} (column scored_by); the rows are ranked by "
            f"p-value, since their statistics have different degrees of freedom (exact ties by the score)")


# ---------------------------------------------------------------------------
# F-test and Pearson correlation
# ---------------------------------------------------------------------------

def _finite_or_sparse(X):
    """``X`` as CSC (sparse) or a 2-D float64 array of finite values, with its constant-column mask and
    whether the columns must be scaled to avoid overflow or underflow (see :func:`_scaled_statistics_input`)."""
    if sparse.issparse(X):
        X = as_canonical_csc(X)
        if not np.isfinite(X.data).all():
            raise ValueError("X: non-finite values (NaN or inf); allowed: finite numbers")
        minimum, maximum = column_ranges(X)
    else:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"X: must be 2-D (samples x features); got {X.ndim}-D")
        if not np.isfinite(X).all():
            raise ValueError("X: non-finite values (NaN or inf); allowed: finite numbers")
        if X.shape[0] == 0:
            return X, np.ones(X.shape[1], dtype=bool), False
        minimum, maximum = X.min(axis=0), X.max(axis=0)
    constant = minimum == maximum
    magnitude = np.maximum(np.abs(minimum), np.abs(maximum))[~constant]
    # Sums of squares of columns within [2^-300, 2^300] cannot overflow or underflow (n < 2^100).
    needs_scaling = bool(magnitude.size) and (magnitude.min() < 2.0 ** -300 or magnitude.max() > 2.0 ** 300)
    return X, constant, needs_scaling


def _scored_columns(X, constant, needs_scaling):
    """The non-constant columns, each multiplied by the power of two that brings its largest |value| into
    [0.5, 1) when some column is near the float64 limits (exact: the statistics here, ratios of sums of
    products, are bitwise those of the unscaled columns wherever these do not overflow)."""
    scored = np.flatnonzero(~constant)
    columns = X if scored.size == X.shape[1] else X[:, scored]
    if needs_scaling:
        columns, _ = _scaled_columns(columns)
    return scored, columns


def _scaled_response(y):
    """A continuous response multiplied by the power of two that brings its largest |value| into
    [0.5, 1): exact, and every statistic here is invariant to it."""
    if y.ndim == 1 and y.shape[0] and y.dtype == np.float64:
        magnitude = max(abs(float(y.min())), abs(float(y.max())))
        factor = np.ldexp(1.0, -int(np.frexp(magnitude)[1]))
        if np.isfinite(factor):   # (else a response of subnormal magnitude: scaled_to_unit's ldexp)
            return y * factor
    scaled, _ = scaled_to_unit(y[:, None])
    return np.ascontiguousarray(scaled[:, 0])


def _rank_statistic(scores, constant):
    """Decreasing scores, ties within :data:`fstools.core.ranking.TIE_TOLERANCE` to the lower index
    (scikit-learn's sums can differ in the last bits between equal columns), constant columns last;
    the infinite ones (exact separation) first, by index."""
    infinite = np.isposinf(scores) & ~constant
    rest = np.flatnonzero(~infinite)
    order = rank_features(scores[rest], last=constant[rest], tolerance=TIE_TOLERANCE)
    return np.concatenate([np.flatnonzero(infinite), rest[order]]).astype(np.intp)


def f_test_scores(X, y, response_type="class", n_threads=1):
    """F statistic and p-value of every column against the response.

    Parameters
    ----------
    X : ndarray or scipy sparse matrix, shape (n_samples, n_features)
        Finite values; sparse input is never densified.
    y : ndarray, shape (n_samples,)
        Class codes 0..n_classes-1 (at least two classes present, and more samples than
        classes), or a continuous response (finite, not constant, at least 3 samples).
    response_type : {'class', 'continuous'}
    n_threads : int, default 1
        Threads of the read of a dense ``X`` (:func:`fstools.core.arrays.column_moments`); the
        result does not depend on it.

    Returns
    -------
    F : ndarray of float64, shape (n_features,)
        Classes: :func:`sklearn.feature_selection.f_classif`; continuous:
        :func:`sklearn.feature_selection.f_regression` (``force_finite=True``; computed from
        ``r_regression`` by its formula), on the non-constant columns.  0 for a constant column; ``inf`` for a column that
        separates the classes exactly (no within-class variance) or lies exactly on a line
        with the response.
    p_values : ndarray of float64, shape (n_features,)
        The upper tail of the F law on (classes - 1, n - classes), or (1, n - 2), degrees
        of freedom; 1 for a constant column.
    constant : ndarray of bool, shape (n_features,)
    degrees_of_freedom : tuple of int

    Notes
    -----
    F does not change when a column is multiplied by a number: the columns are multiplied by
    the power of two that brings their largest absolute value into [0.5, 1)
    (:func:`fstools.core.arrays.scaled_to_unit`, exact; sparse input: when some column is near
    the float64 limits, beyond 2^300 or below 2^-300), so that columns near 1e200 or 1e-200
    give the F of ordinary ones instead of overflowing.

    A dense ``X`` (any layout) is read once (:func:`fstools.core.arrays.column_moments`):
    classes, the between- and within-class sums of squares of the Fisher score
    (``F = [B / (K - 1)] / [W / (n - K)]``, Fisher 1925; equal to scikit-learn's ``f_classif``
    up to rounding, whose ``sum x^2 - (sum x)^2 / n`` loses digits on columns with a large
    mean); continuous, Pearson's r from the co-moments with the response
    (:func:`pearson_scores`), then ``F = r^2 / (1 - r^2) (n - 2)``.
    """
    from sklearn.feature_selection import f_classif

    check_response_type(response_type)
    if not sparse.issparse(X):
        return _dense_f_test_scores(X, y, response_type, n_threads)
    X, constant, needs_scaling = _finite_or_sparse(X)
    n_samples = X.shape[0]
    if response_type == "class":
        y, _, _ = _classes(y, n_samples)
        n_classes = np.unique(y).size
        if n_samples <= n_classes:
            raise ValueError(f"y: the ANOVA F needs more samples ({n_samples}) than classes ({n_classes})")
        degrees = (n_classes - 1, n_samples - n_classes)
    else:
        y = _scaled_response(as_continuous_response(y, n_samples, min_samples=3))
        degrees = (1, n_samples - 2)
    F = np.zeros(X.shape[1])
    p_values = np.ones(X.shape[1])
    scored, scaled = _scored_columns(X, constant, needs_scaling)
    if scored.size:
        with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
            # f_classif warns (and divides by zero) for a column without within-class variance: F = inf.
            warnings.simplefilter("ignore", RuntimeWarning)
            if response_type == "class":
                F[scored], p_values[scored] = f_classif(scaled, y)
            else:
                F[scored], p_values[scored] = _regression_f(_correlations(scaled, y), n_samples)
    return F, p_values, constant, degrees


#: Cells of the block of centred rows :func:`_correlations` holds at a time (about 1 MB).
_CENTRED_BLOCK_CELLS = 1 << 17


def _correlations(X, y):
    """Pearson's r of non-constant columns with ``y``, within [-1, 1].

    Sparse ``X``: :func:`sklearn.feature_selection.r_regression` (never densified).  Dense ``X``:
    the same statistic by its definition, ``sum (x - mean x)(y - mean y) / sqrt(sum (x - mean x)^2
    sum (y - mean y)^2)``, the sums of squares of the centred columns taken a block of rows at a time
    (scikit-learn's generic ``tensordot`` path is some 40 times slower on 2,000 x 500, and its
    ``sum x^2 - n mean^2`` loses digits on columns with a large mean); equal to ``r_regression`` up
    to rounding (tested).
    """
    if sparse.issparse(X):
        from sklearn.feature_selection import r_regression

        return np.clip(r_regression(X, y, center=True, force_finite=True), -1.0, 1.0)
    mean = X.mean(axis=0)
    squares = np.zeros(X.shape[1])
    rows = max(1, _CENTRED_BLOCK_CELLS // max(X.shape[1], 1))
    for start in range(0, X.shape[0], rows):      # centred a block of rows at a time: no copy of X
        block = X[start:start + rows] - mean
        squares += np.einsum("ij,ij->j", block, block)
    y = y - y.mean()
    # sum (x - mean x)(y - mean y) = sum x (y - mean y)
    return np.clip((y @ X) / (np.sqrt(squares) * np.linalg.norm(y)), -1.0, 1.0)


def _dense_f_test_scores(X, y, response_type, n_threads=1):
    """:func:`f_test_scores` of a dense ``X``, in one read of it."""
    X = _dense_matrix(X)
    n_samples = X.shape[0]
    if response_type != "class":
        r, _, constant = _dense_correlations(X, y, n_threads)
        F, p_values = _regression_f(r, n_samples)
        F[constant], p_values[constant] = 0.0, 1.0
        return F, p_values, constant, (1, n_samples - 2)
    y, n_classes, counts = _classes(y, n_samples)
    present = np.flatnonzero(counts)
    K = present.size
    if n_samples <= K:
        raise ValueError(f"y: the ANOVA F needs more samples ({n_samples}) than classes ({K})")
    moments = column_moments(X, y, n_classes, n_threads=n_threads)
    constant = moments.constant
    between, within = moments.scatter()
    F = np.zeros(X.shape[1])
    p_values = np.ones(X.shape[1])
    scored = np.flatnonzero(~constant)
    if scored.size:
        with np.errstate(divide="ignore", invalid="ignore"):
            # no within-class variance: the column separates the classes, F = inf
            F[scored] = (between[scored] / (K - 1)) / (within[scored] / (n_samples - K))
        p_values[scored] = special.fdtrc(K - 1, n_samples - K, F[scored])
    return F, p_values, constant, (K - 1, n_samples - K)


def _dense_correlations(X, y, n_threads=1):
    """``(r, scaled response, constant)``: Pearson's r of every column of a dense ``X`` with a
    continuous response, in one read of ``X``.

    ``r = C / sqrt(S_x S_y)`` (Pearson 1896), ``C`` the co-moment and ``S_x`` the sum of squared
    deviations of the column multiplied by its power of two
    (:func:`fstools.core.arrays.column_moments`: two-pass within blocks of rows, merged by the
    update of Chan, Golub and LeVeque 1979), ``S_y`` of the response scaled by a power of two and
    centred (two-pass); within [-1, 1], 0 for a constant column.
    """
    y = _scaled_response(as_continuous_response(y, X.shape[0], min_samples=3))
    centred = y - y.mean()
    moments = column_moments(X, np.zeros(X.shape[0], dtype=np.int32), 1, response=centred, n_threads=n_threads)
    constant = moments.constant
    # sum (y - mean y)^2 about the exact mean of the centred values (whose own mean is a rounding
    # residue, so that the shifted formula loses nothing): no third pass, no temporary
    residue = float(centred.sum())
    response_squares = float(centred @ centred) - residue * residue / centred.shape[0]
    r = np.zeros(X.shape[1])
    scored = ~constant
    r[scored] = np.clip(moments.cross[scored, 0] / np.sqrt(moments.squares[scored, 0] * response_squares),
                        -1.0, 1.0)
    return r, y, constant


def _regression_f(r, n_samples):
    """F and p-value of the simple regression from Pearson's r, as
    :func:`sklearn.feature_selection.f_regression` (``F = r^2 / (1 - r^2) (n - 2)`` on (1, n - 2)
    degrees of freedom; ``force_finite``: r = +-1 gives F = inf, p-value 0)."""
    degrees = n_samples - 2
    squared = r * r
    with np.errstate(divide="ignore", invalid="ignore"):
        F = squared / (1.0 - squared) * degrees
    return F, special.fdtrc(1, degrees, F)


def f_test(X, y, k=None, n_threads=1, response_type="class", nominal=None):
    """F-test filter: rank by the F statistic of each feature against the response.

    For classes the one-way ANOVA F (:func:`sklearn.feature_selection.f_classif`; it is
    the Fisher score times (n - classes) / (classes - 1)); for a continuous response the F
    of the simple linear regression on the feature
    (:func:`sklearn.feature_selection.f_regression`), a monotone function of ``|r|``.

    Parameters
    ----------
    X : ndarray of float64 or scipy sparse matrix, shape (n_samples, n_features)
        Finite values; sparse input (used as CSC) is never densified.
    y : ndarray, shape (n_samples,)
        Class codes 0..n_classes-1 (int32), or a continuous response (float64).
    k : int or None
        Unused (every column is scored and ranked); accepted for the registry.
    n_threads : int
        Threads of the one read of a dense ``X`` (the result does not depend on it); unused on
        sparse input.
    response_type : {'class', 'continuous'}, default 'class'
    nominal : ndarray of bool, shape (n_features,), optional
        The columns that hold a factor's level codes (dense ``X`` only; see
        :func:`check_nominal`).  Such a column is scored as one categorical variable: with a
        continuous response by the one-way ANOVA F of the response on its levels
        (:func:`factor_anova`), with classes by Pearson's chi-square test of independence of
        factor and class (:func:`factor_chi_square`).

    Returns
    -------
    MethodOutput
        ``scores`` = F (higher is better); columns ``F`` and ``p_value``; ``ranking`` =
        every column by decreasing F, ties to the lower index, constant columns (F = 0,
        p-value 1) last.  With factors, ``scores`` is each row's statistic (the chi-square of a
        factor against classes, also in the column ``chi2``, where ``F`` is NaN), the column
        ``scored_by`` names the test and its degrees of freedom, and the rows are ranked by
        p-value (exact ties by the statistic), since statistics on different degrees of
        freedom are not comparable by size.
    """
    if sparse.issparse(X):
        X = as_canonical_csc(X)
    nominal = check_nominal(nominal, X.shape[1])
    if nominal.any() and sparse.issparse(X):
        raise ValueError("nominal: factor columns (level codes) need a dense X")
    F, p_values, constant, (df1, df2) = f_test_scores(X, y, response_type,
                                                      threads_for_work(np.prod(np.shape(X)), n_threads))
    read_constant = None if sparse.issparse(X) else constant  # the columns of X with a single value
    test = "one-way ANOVA F" if response_type == "class" else "F of the simple linear regression"
    notes = [f"{test} on ({df1}, {df2}) degrees of freedom"]
    if constant.any():
        notes.append(f"{format_count(int(constant.sum()), 'constant column')}: F 0 (p-value 1), ranked last")
    if not nominal.any():
        return MethodOutput(ranking=_rank_statistic(F, constant), scores=F, columns={"F": F, "p_value": p_values},
                            notes=notes, constant_columns=read_constant)
    scored_by = np.array([f"{'ANOVA F' if response_type == 'class' else 'F'} ({df1}, {df2})"] * X.shape[1],
                         dtype=object)
    codes = X[:, nominal]
    columns = {"F": F.copy()}
    if response_type == "class":
        statistic, p_factor, df = factor_chi_square(codes, np.asarray(y, dtype=np.intp))
        single_level = df == 0
        columns["F"][nominal] = np.nan
        columns["chi2"] = np.where(nominal, 0.0, np.nan)
        columns["chi2"][nominal] = statistic
        scored_by[nominal] = [f"chi-square ({d})" for d in df]
        notes.append(_factor_note(nominal, "Pearson's chi-square test of independence of factor and class "
                                           "(no continuity correction)"))
    else:
        statistic, p_factor, _, df_between, df_within = factor_anova(codes, np.asarray(y, dtype=np.float64))
        single_level = df_between == 0
        columns["F"][nominal] = statistic
        scored_by[nominal] = [f"ANOVA F ({a}, {b})" for a, b in zip(df_between, df_within)]
        notes.append(_factor_note(nominal, "the one-way ANOVA F of the response on the factor's levels"))
    scores, p_values = F.copy(), p_values.copy()
    scores[nominal], p_values[nominal] = statistic, p_factor
    constant = constant.copy()
    constant[nominal] = single_level      # one level: nothing to compare
    columns["p_value"] = p_values
    columns["scored_by"] = scored_by
    return MethodOutput(ranking=_rank_by_p_value(p_values, scores, constant), scores=scores, columns=columns,
                        notes=notes, constant_columns=read_constant)


def pearson_scores(X, y, n_threads=1):
    """Pearson's r of every column with a continuous response, and the p-value of r = 0.

    Parameters
    ----------
    X : ndarray or scipy sparse matrix, shape (n_samples, n_features)
    y : ndarray of float64, shape (n_samples,)
        Finite, not constant, at least 3 samples.
    n_threads : int, default 1
        Threads of the read of a dense ``X`` (:func:`fstools.core.arrays.column_moments`); the
        result does not depend on it.

    Returns
    -------
    r : ndarray of float64, shape (n_features,)
        :func:`sklearn.feature_selection.r_regression` on the non-constant columns; 0 for a
        constant column.
    p_values : ndarray of float64, shape (n_features,)
        Two-sided p-value of the t test of r = 0 on n - 2 degrees of freedom (as
        :func:`scipy.stats.pearsonr`): the p-value of :func:`f_test_scores`, since
        ``F = t^2``; 1 for a constant column.
    constant : ndarray of bool, shape (n_features,)

    Notes
    -----
    A dense ``X`` (any layout) is read once: the co-moments with the centred response and the
    sums of squared deviations of the columns, each multiplied by the power of two that brings
    its largest absolute value into [0.5, 1) (exact; see :func:`_dense_correlations`), so that a
    column near 1e-300 or 1e300 gets the r of an ordinary one.
    """
    if not sparse.issparse(X):
        X = _dense_matrix(X)
        r, _, constant = _dense_correlations(X, y, n_threads)
        _, p_values = _regression_f(r, X.shape[0])
        p_values[constant] = 1.0
        return r, p_values, constant
    X, constant, needs_scaling = _finite_or_sparse(X)
    y = _scaled_response(as_continuous_response(y, X.shape[0], min_samples=3))
    r = np.zeros(X.shape[1])
    p_values = np.ones(X.shape[1])
    scored, scaled = _scored_columns(X, constant, needs_scaling)
    if scored.size:
        r[scored] = _correlations(scaled, y)
        _, p_values[scored] = _regression_f(r[scored], X.shape[0])
    return r, p_values, constant


def pearson(X, y, k=None, n_threads=1, response_type="continuous", nominal=None):
    """Pearson correlation filter for a continuous response: rank by ``|r|``.

    The ranking is by the absolute correlation: a feature that falls as the response
    rises (r near -1) is as strongly associated with it as one that rises with it, so
    ranking by the signed r (as :func:`sklearn.feature_selection.r_regression` would with
    ``SelectKBest``) would put the strongest negative associations last.  The signed r is
    shown in the column ``r``.  The same ranking as :func:`f_test` on a continuous
    response (F is increasing in ``|r|``).

    Parameters
    ----------
    X : ndarray of float64 or scipy sparse matrix, shape (n_samples, n_features)
        Finite values; sparse input (used as CSC) is never densified.
    y : ndarray of float64, shape (n_samples,)
        A continuous response (finite, not constant, at least 3 samples).
    k : int or None
        Unused (every column is scored and ranked); accepted for the registry.
    n_threads : int
        Threads of the one read of a dense ``X`` (the result does not depend on it); unused on
        sparse input.
    response_type : {'continuous'}
        Pearson's r is defined for a continuous response only (for classes use
        ``f_test``).
    nominal : ndarray of bool, shape (n_features,), optional
        The columns that hold a factor's level codes (dense ``X`` only; see
        :func:`check_nominal`): scored by the correlation ratio eta of the response on the
        factor (:func:`factor_anova`; the multiple correlation with its dummy columns, the
        factor's counterpart of ``|r|``), with the p-value of the one-way ANOVA F.

    Returns
    -------
    MethodOutput
        ``scores`` = ``|r|`` (higher is better); columns ``r`` (signed, as
        ``r_regression``) and ``p_value`` (as :func:`scipy.stats.pearsonr`); ``ranking``
        = every column by decreasing ``|r|``, ties to the lower index, constant columns
        (r = 0, p-value 1) last.  With factors, a factor's score is eta (``r`` is NaN: it
        has no sign), the column ``scored_by`` names the statistic, and the rows are ranked
        by p-value (exact ties by the score): eta on L - 1 degrees of freedom is not
        comparable with ``|r|`` by size.
    """
    check_response_type(response_type, allowed=("continuous",))
    if sparse.issparse(X):
        X = as_canonical_csc(X)
    nominal = check_nominal(nominal, X.shape[1])
    if nominal.any() and sparse.issparse(X):
        raise ValueError("nominal: factor columns (level codes) need a dense X")
    r, p_values, constant = pearson_scores(X, y, threads_for_work(np.prod(np.shape(X)), n_threads))
    read_constant = None if sparse.issparse(X) else constant  # the columns of X with a single value
    strength = np.abs(r)
    notes = [f"ranked by |r|; p-value: t test of r = 0 on {X.shape[0] - 2} degrees of freedom"]
    if constant.any():
        notes.append(f"{format_count(int(constant.sum()), 'constant column')}: r 0 (p-value 1), ranked last")
    if not nominal.any():
        return MethodOutput(ranking=_rank_statistic(strength, constant), scores=strength,
                            columns={"r": r, "p_value": p_values}, notes=notes, constant_columns=read_constant)
    F, p_factor, eta, df_between, df_within = factor_anova(X[:, nominal], np.asarray(y, dtype=np.float64))
    r, strength, p_values, constant = r.copy(), strength.copy(), p_values.copy(), constant.copy()
    r[nominal], strength[nominal], p_values[nominal] = np.nan, eta, p_factor
    constant[nominal] = df_between == 0
    scored_by = np.array(["|r|"] * X.shape[1], dtype=object)
    scored_by[nominal] = [f"eta, ANOVA F ({a}, {b})" for a, b in zip(df_between, df_within)]
    notes[0] = notes[0].replace("ranked by |r|; ", "")
    notes.append(_factor_note(nominal, "the correlation ratio eta of the response on the factor's levels "
                                       "(p-value: the one-way ANOVA F)"))
    return MethodOutput(ranking=_rank_by_p_value(p_values, strength, constant), scores=strength,
                        columns={"r": r, "p_value": p_values, "scored_by": scored_by}, notes=notes,
                        constant_columns=read_constant)


register(MethodSpec(
    name="f_test",
    description="F-test: one-way ANOVA F for classes, simple-regression F for a continuous response",
    function=f_test,
    parameters=(),
    capabilities=frozenset({"supervised", "multiclass", "sparse"}),
    responses=frozenset({"class", "continuous"}),
    factors="nominal",
    score_name="F",
    higher_is_better=True,
    reference="Fisher (1925) Statistical Methods for Research Workers; scikit-learn "
              "sklearn.feature_selection.f_classif / f_regression",
    criterion="classes: F_j = [sum_k n_k (mu_kj - mu_j)^2 / (K - 1)] / [sum_k sum_{i in k} (x_ij - mu_kj)^2 / "
              "(n - K)];  continuous: F_j = r_j^2 / (1 - r_j^2) (n - 2)",
    any_layout=True,
    checks_design=True,
))

register(MethodSpec(
    name="pearson",
    description="Pearson correlation with a continuous response, ranked by |r|",
    function=pearson,
    parameters=(),
    capabilities=frozenset({"supervised", "sparse"}),
    responses=frozenset({"continuous"}),
    factors="nominal",
    score_name="|r|",
    higher_is_better=True,
    reference="Pearson (1896) Phil. Trans. R. Soc. A 187:253-318; scikit-learn sklearn.feature_selection.r_regression",
    criterion="|r_j|,  r_j = sum_i (x_ij - mean x_j)(y_i - mean y) / sqrt(sum_i (x_ij - mean x_j)^2 "
              "sum_i (y_i - mean y)^2)",
    any_layout=True,
    checks_design=True,
))

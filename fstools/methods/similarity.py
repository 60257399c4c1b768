"""Similarity-based filters: Fisher score, Laplacian score, ReliefF and RReliefF.

Three per-feature scores that the CMQFS, DFS and ELC papers use as baselines.  Each is a filter: one score per feature,
the ranking is by score, nothing greedy.

* :func:`fisher` -- Fisher score (Duda, Hart and Stork 2001, section 3.8.2;
  Gu, Li and Han 2011, Eq. 1): between-class over within-class scatter of one
  feature, with population (divide by n) variances.  Higher is better.
* :func:`laplacian` -- Laplacian score (He, Cai and Niyogi 2005, section 2,
  steps 1-4) on a k-nearest-neighbour heat-kernel graph of the samples, with
  the CMQFS paper's setting k = 5, t = 1.0 (Zhao et al. 2015, section 5).
  Unsupervised, LOWER is better.
* :func:`relieff` -- ReliefF (Kononenko 1994; Robnik-Sikonja and Kononenko
  2003, the ReliefF pseudo code of section 2) with k = 10 nearest hits and
  misses of every other class and every instance used once (m = n).  Higher
  is better.
* :func:`rrelieff` -- RReliefF (Robnik-Sikonja and Kononenko 1997, 2003,
  section 2.3 and Fig. 4), ReliefF for a continuous response: the probability
  that the response differs between near instances is estimated alongside the
  probability that the feature does.  Higher is better.  Registered as its own
  method (``rrelieff``, continuous responses only; ``relieff`` takes classes).

Conventions shared by the three (the rules of fstools): a constant column
carries no information and is ranked after every non-constant column.  Its
score: Fisher 0 (0 / 0 defined as no separation), ReliefF 0 (every diff is
0), Laplacian NaN (0 / 0 left undefined, the registry's convention: a finite
value would rank it among real scores in [0, 2], and +inf would be
indistinguishable from an infinite score in sorts and break bar charts).
Ties in a score go to the lower column index.  The ``ranking`` returned
holds every column, best first.

Neighbour searches (Laplacian, ReliefF) are exact brute force in the kernel
:mod:`fstools._ext._neighbours` (O(m n p), no m x n matrix held; each
distance computed once when every sample is a query); among samples at equal
distance the lower sample index is the nearer one.

Deliberate differences from scikit-feature (``skfeature.function.similarity_based``):

* ``lap_score``: the heat kernel there is ``exp(-d^2 / (2 t^2))`` on k + 1
  neighbours including the sample itself, and the graph ``W`` must be passed
  in; here it is He et al.'s ``exp(-d^2 / t)`` on k other samples, built
  inside.  (Deng Cai's MATLAB ``constructW``, whose option names the CMQFS
  paper's setting "NeighborMode = 'KNN', WeightMode = 'HeatKernel', t = 1.0"
  uses, also divides by ``2 t^2``: its ``t = 1`` corresponds to ``t = 2`` here.)
* ``reliefF``: k = 5 there, Manhattan distance and differences on the raw
  features, and the miss term divided (not multiplied) by
  ``P(C) / (1 - P(class))``; here k = 10 and features scaled to [0, 1] by
  their range, as in Robnik-Sikonja and Kononenko (2003).
* ``fisher_score``: computed there through an n x n graph with a 1e-12
  guard; here in O(n p) directly from the class means and variances.
"""

from typing import NamedTuple

import numpy as np
from scipy import sparse

from fstools._ext import _neighbours
from fstools.core.parallel import score_features, threads_for_work
from fstools.core.constraints import (is_none_or, is_positive_integer, is_positive_number, is_seed,
                                    none_or_float, none_or_int)
from fstools.core.arrays import as_class_codes, as_float_matrix, column_moments, constant_columns, scaled_to_unit
from fstools.core.ranking import rank_features
from fstools.core.constraints import Constraint
from fstools.methods.registry import MethodOutput, MethodSpec, Parameter, register
from fstools.methods.responses import as_continuous_response, check_response_type
from fstools.methods.statistical import check_nominal, factor_fisher_scores
from fstools.core.sparse import (as_canonical_csc, centred_sums_of_squares,
                                                class_column_statistics)
from fstools.core.messages import format_count

__all__ = ["fisher_scores", "fisher", "knn_graph_arcs", "heat_kernel_graph", "laplacian_scores",
           "laplacian", "relieff_weights", "relieff", "rrelieff_weights", "rrelieff", "SMALL_PROBLEM_WORK"]

#: Below this many distance terms (queries x samples x features) the
#: neighbour kernel runs on one thread: starting threads costs more than the work.
SMALL_PROBLEM_WORK = 2_000_000

#: Bytes the all-pairs neighbour search may use for its per-thread neighbour lists
#: (n_threads x n_samples x n_classes x k entries of 16 bytes); above it the
#: search computes each distance twice instead, with the same result.
ALL_PAIRS_MEMORY = 1 << 28

#: Bytes ReliefF's neighbour lists (instances x classes x k, 16 bytes an entry) may
#: take at a time: above it the instances are processed in chunks, with the same result.
RELIEFF_NEIGHBOUR_MEMORY = 1 << 26

#: Bytes of ReliefF's table of miss weights (classes x classes, 8 bytes an entry);
#: more classes present than fit (8,192) are refused with a ValueError naming y.
RELIEFF_MISS_WEIGHT_MEMORY = 1 << 29

#: Cells (features x classes present) of the per-class moments the dense Fisher score holds at a
#: time (40 bytes a cell, about 40 MB): more columns are processed in blocks, with the same result.
FISHER_MOMENT_CELLS = 1 << 20

#: Cells of the temporary arrays built per block in NumPy (the Laplacian score's
#: edge differences and centred values): bounds their memory at about 16 MB.
_BLOCK_CELLS = 1 << 21



class FisherParts(NamedTuple):
    """Per-column Fisher scores with their between- and within-class sums of squares."""

    scores: np.ndarray
    between: np.ndarray
    within: np.ndarray
    constant: np.ndarray


class LaplacianScores(NamedTuple):
    """Laplacian scores (He et al. 2005, Eq. 9) with the numerator and denominator per column, and
    the number of zero-weight graph edges."""

    scores: np.ndarray
    variation: np.ndarray
    variance: np.ndarray
    n_zero: int


class ReliefFWeights(NamedTuple):
    """ReliefF weights (near-miss minus near-hit differences), the two averages and the instances used."""

    weights: np.ndarray
    near_hit: np.ndarray
    near_miss: np.ndarray
    instances: np.ndarray

# --------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------

def _threads(n_queries, n_samples, n_features, n_threads):
    if n_queries * n_samples * max(n_features, 1) < SMALL_PROBLEM_WORK:
        return 1  # the result does not depend on it
    return max(1, int(n_threads))


def class_neighbours(features, labels, n_classes, rows, k, metric, n_threads, diffs=None):
    """Kernel call: (index, distance, count) of the k nearest per class for each query row.

    When every sample is a query, the kernel's all-pairs search computes each
    distance once (half the work) unless its per-thread lists would exceed
    :data:`ALL_PAIRS_MEMORY`; both searches give identical results.  ``diffs``: the
    kernel's per-feature diff arguments (``nominal``, ``missing_slot``, ``known_diff``,
    ``both_diff``; see :func:`fstools._ext._neighbours.class_neighbours`), or None.
    """
    diffs = {} if diffs is None else diffs
    kernel = _neighbours
    n_queries = rows.shape[0]
    n_samples = features.shape[1]
    index = np.zeros((n_queries, n_classes, k), dtype=np.intp)
    distance = np.zeros((n_queries, n_classes, k), dtype=np.float64)
    count = np.zeros((n_queries, n_classes), dtype=np.intp)
    code = kernel.METRIC_SQEUCLIDEAN if metric == "sqeuclidean" else kernel.METRIC_MANHATTAN
    threads = _threads(n_queries, n_samples, features.shape[0], n_threads)
    all_samples = n_queries == n_samples and np.array_equal(rows, np.arange(n_samples))
    if all_samples and threads * n_samples * n_classes * k * 16 <= ALL_PAIRS_MEMORY:
        kernel.all_class_neighbours(features, labels, int(n_classes), int(k), code, index, distance, count,
                                    threads, **diffs)
    else:
        kernel.class_neighbours(features, labels, int(n_classes), rows, int(k), code, index, distance, count,
                                threads, **diffs)
    return index, distance, count


def nominal_mask(nominal, X):
    """The checked nominal flags of the columns of ``X`` (None: none is nominal).

    A nominal column holds level codes: integer values (NaN for a missing value where the
    method takes missing values).  ValueError naming ``nominal`` for a wrong length, or
    the columns whose values are not integers.
    """
    n_features = X.shape[1]
    if nominal is None:
        return np.zeros(n_features, dtype=bool)
    nominal = np.asarray(nominal)
    if nominal.shape != (n_features,) or nominal.dtype.kind not in "biu":
        raise ValueError(f"nominal: must be a boolean array with one flag per column ({n_features}); got "
                         f"{nominal.dtype} of shape {nominal.shape}")
    nominal = nominal.astype(bool)
    codes = X[:, nominal]
    with np.errstate(invalid="ignore"):
        bad = np.flatnonzero(np.any(~np.isnan(codes) & (codes != np.round(codes)), axis=0))
    if bad.size:
        columns = np.flatnonzero(nominal)[bad]
        raise ValueError(f"nominal: column(s) {', '.join(map(str, columns[:5]))} are flagged nominal but hold "
                         f"values that are not integer level codes")
    return nominal


def _with_missing(X):
    """``(X, missing)``: ``X`` float64 with NaN allowed as a missing value (other values as
    :func:`fstools.core.arrays.as_float_matrix` requires), and the mask of the NaN entries."""
    X = np.asarray(X, dtype=np.float64) if np.asarray(X).dtype.kind == "f" else np.asarray(X)
    missing = np.isnan(X) if X.dtype.kind == "f" else np.zeros(X.shape, dtype=bool)
    if missing.any():
        as_float_matrix(np.where(missing, 0.0, X))       # the other checks (2-D, finite)
        empty = np.flatnonzero(missing.all(axis=0))
        if empty.size:
            raise ValueError(f"X: column(s) {', '.join(map(str, empty[:5]))} have no known value (all "
                             f"missing); drop them")
        return np.asarray(X, dtype=np.float64), missing
    return as_float_matrix(X), missing


def _constant_known(X):
    """Columns whose known (non-NaN) values are all equal."""
    if X.shape[0] == 0:
        return np.ones(X.shape[1], dtype=bool)
    return np.nanmax(X, axis=0) == np.nanmin(X, axis=0)


# --------------------------------------------------------------------------
# Fisher score
# --------------------------------------------------------------------------

def fisher_scores(X, y, n_threads=1):
    """Fisher score of every column, with its between- and within-class variances.

    ``F_r = sum_k n_k (mu_kr - mu_r)^2 / sum_k n_k sigma_kr^2`` (Gu, Li and Han
    2011, Eq. 1; Duda, Hart and Stork 2001, section 3.8.2), where ``n_k`` is the
    size of class k, ``mu_kr`` and ``sigma_kr^2`` the mean and the population
    variance (divide by ``n_k``) of feature r in class k, ``mu_r`` its overall mean.

    Parameters
    ----------
    X : ndarray of float64 or scipy sparse matrix, shape (n_samples, n_features)
        A sparse matrix is used as CSC and never densified: the class means and
        sums of squared deviations come from its stored values, the other zeros
        implied (:mod:`fstools.core.sparse`); the scores equal the
        dense ones up to rounding.
    y : ndarray of int, shape (n_samples,)
        Class codes 0..n_classes-1, at least two classes present.
    n_threads : int
        Threads of the dense kernel (:func:`fstools._ext._one_pass.column_moments`,
        parallel over blocks of rows and columns); the result does not depend on it.
        Unused on sparse input.

    Returns
    -------
    scores : ndarray of float64, shape (n_features,)
    between : ndarray of float64
        Between-class variance ``sum_k (n_k / n) (mu_kr - mu_r)^2``.
    within : ndarray of float64
        Within-class variance ``sum_k (n_k / n) sigma_kr^2``; ``scores = between / within``
        and ``between + within`` is the population variance of the column.

    Notes
    -----
    * Constant column: 0 / 0; its score is defined as 0 (no separation; the
      lowest possible score).
    * Zero within-class variance but different class means: the score is
      ``+inf`` -- the feature separates the classes perfectly.  Whether a class
      is constant is decided exactly (``min == max``), so rounding in the mean
      of equal values cannot turn such a column into a large finite score.
    * ANOVA relation: the one-way F statistic is ``F_r (n - K) / (K - 1)``
      (K non-empty classes), e.g. :func:`sklearn.feature_selection.f_classif`.
    * Dense input: one read of ``X`` in any layout
      (:func:`fstools.core.arrays.column_moments`, threaded over blocks of
      rows and columns, the same bits for any ``n_threads`` and either
      order) gives the class sizes, sums, exact extremes and sums of squared
      deviations: a two-pass sum of squares within each block of 256 rows
      (in the cache), the blocks merged by the update of Chan, Golub and
      LeVeque (1979); the sums over classes are NumPy's.
    * Scale: the score does not change when a column is multiplied by a
      number.  The sums of squares are computed on each column multiplied by
      the power of two that brings its largest absolute value into [0.5, 1)
      (the one of :func:`fstools.core.arrays.scaled_to_unit`, found in the
      same read; sparse input: its stored values), which is exact: the scores
      are those of the unscaled arithmetic on ordinary data up to rounding,
      and a column multiplied by any number from
      1e-300 to 1e300 gets the same score up to rounding (the unscaled sums
      would overflow beyond about 1e154 and underflow below about 1e-154).
      ``between`` and ``within`` are scaled back, so they are ``inf`` (or 0)
      where the variance itself leaves the float64 range.
    """
    if sparse.issparse(X):
        scores, between, within, _ = _sparse_fisher_scores(X, y)
    else:
        scores, between, within, _ = _dense_fisher_scores(X, y, n_threads)
    return scores, between, within


def _dense_fisher_scores(X, y, n_threads=1):
    """:func:`fisher_scores` of a dense matrix; also returns the constant-column mask (from the kernel).

    One read of ``X`` in any layout (:func:`fstools.core.arrays.column_moments`) gives the class
    sizes, the class sums and sums of squared deviations of the columns scaled by powers of two,
    the exact class extremes and the test for non-finite values.
    """
    X = as_float_matrix(X, check_finite=False)   # (NaN and infinities: flagged by the kernel's read)
    y, n_classes, counts = as_class_codes(y, X.shape[0])
    n_samples, n_features = X.shape
    # Only the classes present take part, renumbered in increasing order (the same sums); the
    # moments are computed for blocks of columns of at most FISHER_MOMENT_CELLS cells (every
    # column's arithmetic is its own: the same bits whatever the blocks).
    present = np.flatnonzero(counts)
    n_present = present.shape[0]
    if n_present < n_classes:
        code = np.zeros(n_classes, dtype=np.int32)
        code[present] = np.arange(n_present, dtype=np.int32)
        y = np.ascontiguousarray(code[y])
    between_ss = np.zeros(n_features)
    within_ss = np.zeros(n_features)
    constant = np.zeros(n_features, dtype=bool)
    exponent = np.zeros(n_features, dtype=np.int32)
    block = max(1, FISHER_MOMENT_CELLS // n_present)
    for start in range(0, n_features, block):
        stop = min(start + block, n_features)
        # Each column scaled by the power of two that brings its largest |x| into [0.5, 1): exact, so
        # the scores are those of the unscaled sums, which would overflow (or underflow) for columns
        # near 1e155 (1e-155) and beyond.
        moments = column_moments(X[:, start:stop], y, n_present, n_threads=int(n_threads))
        between_ss[start:stop], within_ss[start:stop] = moments.scatter()
        constant[start:stop] = moments.constant
        exponent[start:stop] = moments.exponent
    return (*_fisher_ratio(between_ss, within_ss, constant, n_samples, exponent), constant)


def _fisher_ratio(between_ss, within_ss, constant, n_samples, exponent):
    """Scores and variances from the between- and within-class sums of squares of the columns
    scaled by ``2^-exponent``: the scores are ratios (the scaling cancels exactly), the variances
    are scaled back (``inf`` or 0 where they leave the float64 range)."""
    between_ss[constant] = 0.0
    within_ss[constant] = 0.0
    scores = np.zeros(between_ss.shape[0])
    positive = within_ss > 0
    scores[positive] = between_ss[positive] / within_ss[positive]
    separating = ~positive & (between_ss > 0)
    scores[separating] = np.inf
    with np.errstate(over="ignore", under="ignore"):
        between = np.ldexp(between_ss / n_samples, 2 * exponent)
        within = np.ldexp(within_ss / n_samples, 2 * exponent)
    return scores, between, within


def _sparse_fisher_scores(X, y):
    """:func:`fisher_scores` of a sparse matrix (zeros implied); also returns the constant-column mask."""
    X = as_canonical_csc(X)
    y, n_classes, counts = as_class_codes(y, X.shape[0])
    n_samples, n_features = X.shape
    X, exponent = _sparse_scaled_to_unit(X)
    statistics = class_column_statistics(X, y, n_classes)
    class_means = statistics.means()
    mean = statistics.sums.sum(axis=0) / n_samples
    centred = centred_sums_of_squares(X, y, np.nan_to_num(class_means))
    between_ss = np.zeros(n_features)
    within_ss = np.zeros(n_features)
    for c in np.flatnonzero(counts):
        class_ss = centred[c].copy()
        class_ss[statistics.minimum[c] == statistics.maximum[c]] = 0.0   # exactly constant within the class
        within_ss += class_ss
        between_ss += counts[c] * (class_means[c] - mean) ** 2
    present = counts > 0
    constant = (statistics.minimum[present].min(axis=0) == statistics.maximum[present].max(axis=0))
    scores, between, within = _fisher_ratio(between_ss, within_ss, constant, n_samples, exponent)
    return FisherParts(scores, between, within, constant)


def _sparse_scaled_to_unit(X):
    """A canonical CSC matrix with each column scaled as :func:`fstools.core.arrays.scaled_to_unit`
    does (a new matrix; the implied zeros stay zeros), and the exponents."""
    stored = np.abs(X.data)
    magnitude = np.zeros(X.shape[1])
    nonempty = np.flatnonzero(np.diff(X.indptr))
    if nonempty.size:
        magnitude[nonempty] = np.maximum.reduceat(stored, X.indptr[nonempty])
    exponent = np.frexp(magnitude)[1]
    data = np.ldexp(X.data, -np.repeat(exponent, np.diff(X.indptr)))
    return sparse.csc_matrix((data, X.indices, X.indptr), shape=X.shape), exponent


def fisher(X, y, k=None, n_threads=1, nominal=None):
    """Fisher score filter (Duda, Hart and Stork 2001; Gu, Li and Han 2011, Eq. 1).

    Parameters
    ----------
    X : ndarray of float64 or scipy sparse matrix, shape (n_samples, n_features)
        Sparse input (any format, used as CSC) is never densified.
    y : ndarray of int32, shape (n_samples,)
        Class codes 0..n_classes-1, at least two classes present.
    k : int or None
        Unused (every column is scored and ranked); accepted for the registry.
    n_threads : int
        Threads of the dense kernel (parallel over features; one thread below
        :data:`fstools.core.parallel.MIN_PARALLEL_WORK` values); unused on sparse input
        (O(nnz + n_classes p) NumPy).  The result does not depend on it.
    nominal : ndarray of bool, shape (n_features,), optional
        The columns that hold a factor's level codes (dense ``X`` only): scored by the Fisher
        score of the factor's block of level indicators
        (:func:`fstools.methods.statistical.factor_fisher_scores`, the between- over
        within-class sum of squares of Light and Margolin's 1971 analysis of variance for
        categorical data).

    Returns
    -------
    MethodOutput
        ``scores`` = Fisher score (higher is better; see :func:`fisher_scores` for
        0 / 0 = 0 on constant columns and ``+inf`` on perfectly separating ones);
        columns ``fisher``, ``between_variance``, ``within_variance``;
        ``ranking`` = every column by decreasing score, ties to the lower index,
        constant columns last.  With factors also ``scored_by``.
    """
    # Per column block under a joblib backend (fstools.core.parallel.score_features).
    if sparse.issparse(X):
        scores, between, within, constant = score_features(_sparse_fisher_scores, X, None, y)
    else:
        X = as_float_matrix(X, check_finite=False)   # (checked in the kernel's read of X)
        scores, between, within, constant = score_features(_dense_fisher_scores, X,
                                                           threads_for_work(X.size, n_threads), y)
    read_constant = None if sparse.issparse(X) else constant
    nominal = check_nominal(nominal, X.shape[1])
    columns = {}
    if nominal.any():
        # A factor: the Fisher score of its block of level indicators, not of its codes as numbers.
        if sparse.issparse(X):
            raise ValueError("nominal: factor columns (level codes) need a dense X")
        scores, between, within = scores.copy(), between.copy(), within.copy()
        scores[nominal], between[nominal], within[nominal] = factor_fisher_scores(X[:, nominal], y)
        with np.errstate(over="ignore"):
            constant = constant & ~nominal | (nominal & (between + within == 0))
        columns["scored_by"] = np.where(nominal, "Fisher score of the level indicators", "Fisher score")
    notes = []
    if constant.any():
        notes.append(f"{format_count(int(constant.sum()), 'constant column')}: Fisher score 0/0 defined as 0, ranked last")
    if nominal.any():
        notes.append(f"{format_count(int(nominal.sum()), 'factor')} scored by the Fisher score of the block of level "
                     f"indicators (between- over within-class variation, Light and Margolin 1971)")
    separating = np.isinf(scores)
    if separating.any():
        notes.append(f"{format_count(int(separating.sum()), 'column')} with zero within-class variance, separating "
                     f"the classes perfectly: Fisher score inf")
    with np.errstate(over="ignore"):  # a variance beyond the float64 range is inf here, and said below
        variance = between + within
    outside = ~constant & (np.isinf(variance) | (variance == 0))
    if outside.any():
        notes.append(f"{format_count(int(outside.sum()), 'column')} with a variance outside the float64 range (shown "
                     f"as inf or 0 in between_variance / within_variance): Fisher scores computed on the "
                     f"columns rescaled by powers of two, exactly")
    return MethodOutput(
        ranking=rank_features(scores, higher_is_better=True, last=constant),
        scores=scores,
        columns={"fisher": scores, "between_variance": between, "within_variance": within, **columns},
        notes=notes,
        constant_columns=read_constant,
    )


# --------------------------------------------------------------------------
# Laplacian score
# --------------------------------------------------------------------------

def knn_graph_arcs(X, n_neighbors=5, n_threads=1, nominal=None):
    """The arcs i -> j of the k-nearest-neighbour graph of the rows of ``X`` (Euclidean).

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
    n_neighbors : int >= 1
        k; at most ``n_samples - 1`` are used (every other sample).
    n_threads : int
        Threads of the search; the result does not depend on it.
    nominal : ndarray of bool, shape (n_features,), optional
        Columns of level codes (factors): they add 0 to the squared distance for equal
        levels and 1 otherwise (as the 0/1 dummy of a two-level factor does).

    Returns
    -------
    source, target : ndarray of intp, shape (n_samples * k,)
        Row i's k nearest other rows, nearest first, ties to the lower row index.
    squared_distance : ndarray of float64
        ``||x_i - x_j||^2`` summed over the features in order (so
        ``d(i, j) == d(j, i)`` exactly).

    Raises
    ------
    ValueError
        Naming the columns whose range makes the squared distances overflow float64
        (beyond about 1e154).
    """
    X = as_float_matrix(X)
    n_samples = X.shape[0]
    k = min(int(n_neighbors), n_samples - 1)
    if k < 1:
        raise ValueError(f"X: a k-nearest-neighbour graph needs at least 2 samples; got {n_samples}")
    squared_ranges = _squared_ranges(X)
    if np.isinf(squared_ranges).any():
        raise _distance_overflow_error(X, squared_ranges)
    features = np.ascontiguousarray(X.T)
    rows = np.arange(n_samples, dtype=np.intp)
    diffs = None if nominal is None else {"nominal": np.ascontiguousarray(nominal, dtype=np.uint8)}
    index, distance, _ = class_neighbours(features, np.zeros(n_samples, dtype=np.int32), 1, rows, k,
                                           "sqeuclidean", n_threads, diffs)
    if not np.isfinite(distance).all():
        raise _distance_overflow_error(X, squared_ranges)
    return np.repeat(rows, k), index.reshape(-1), distance.reshape(-1)


def _squared_ranges(X):
    """``(max - min)^2`` of every column, ``inf`` where it exceeds the float64 range (no warning)."""
    scaled, exponent = scaled_to_unit(X)
    span = scaled.max(axis=0) - scaled.min(axis=0)
    with np.errstate(over="ignore", under="ignore"):
        return np.ldexp(span * span, 2 * exponent)


def _distance_overflow_error(X, squared_ranges):
    """ValueError naming the columns whose range makes squared distances overflow float64."""
    limit = np.finfo(np.float64).max / max(X.shape[1], 1)
    columns = np.flatnonzero(squared_ranges > limit)
    if columns.size == 0:   # (cannot happen: a sum of d terms overflows only if one exceeds max / d)
        columns = np.argsort(-squared_ranges, kind="stable")[:1]
    shown = ", ".join(str(int(j)) for j in columns[:5]) + (f", ... ({columns.size} in all)" if columns.size > 5 else "")
    largest = float(np.abs(X[:, columns[0]]).max())
    return ValueError(f"X: column(s) {shown} (values up to {largest:.3g} in magnitude): the squared "
                      f"Euclidean distances between samples overflow float64, so the nearest-neighbour "
                      f"graph (and the heat kernel exp(-||x_i - x_j||^2 / t)) is undefined; the graph "
                      f"depends on the scale of the features: standardise the columns first (as the "
                      f"CMQFS paper does) or rescale them")


def _symmetric_graph(source, target, weight, n_samples):
    """S with S_ij = w_ij when i -> j or j -> i is an arc (the union; w is symmetric)."""
    arcs = sparse.csr_matrix((weight, (source, target)), shape=(n_samples, n_samples))
    return arcs.maximum(arcs.T).tocsr()


def heat_kernel_graph(X, n_neighbors=5, t=1.0, n_threads=1, nominal=None):
    """The weight matrix S of the Laplacian score (He, Cai and Niyogi 2005, section 2, steps 1-2).

    An edge joins i and j when i is among the k nearest neighbours of j or j
    among those of i (the union), with weight ``exp(-||x_i - x_j||^2 / t)``.

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        The features as given (the CMQFS paper standardised them first, section 5.1).
    n_neighbors : int >= 1
        k = 5 in the CMQFS paper (section 5); capped at n_samples - 1.
    t : float > 0
        Heat-kernel width, 1.0 in the CMQFS paper (section 5).
    n_threads : int
    nominal : ndarray of bool, shape (n_features,), optional
        Columns of level codes (see :func:`knn_graph_arcs`).

    Returns
    -------
    scipy.sparse.csr_matrix, shape (n_samples, n_samples)
        Symmetric, zero diagonal.  An edge whose weight underflows to 0 is absent
        (:func:`laplacian_scores` rescales the weights to keep them).
    """
    source, target, squared = knn_graph_arcs(X, n_neighbors, n_threads, nominal)
    return _symmetric_graph(source, target, np.exp(-squared / float(t)), np.asarray(X).shape[0])


def laplacian_scores(X, n_neighbors=5, t=1.0, n_threads=1, nominal=None):
    """Laplacian score of every column (He, Cai and Niyogi 2005, section 2, step 4).

    ``L_r = f~^T L f~ / f~^T D f~`` with ``f~ = f - (f^T D 1 / 1^T D 1) 1``,
    ``D = diag(S 1)``, ``L = D - S`` and S from :func:`heat_kernel_graph`.

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
    n_neighbors : int >= 1
        k of the neighbour graph (5, CMQFS paper section 5).
    t : float > 0
        Heat-kernel width (1.0, CMQFS paper section 5).
    n_threads : int
    nominal : ndarray of bool, shape (n_features,), optional
        Columns of level codes of factors, each scored as one variable (see Notes).

    Returns
    -------
    scores : ndarray of float64, shape (n_features,)
        Lower is better.  NaN where ``f~^T D f~ = 0`` (then ``f~^T L f~ = 0`` too,
        0 / 0): a constant column, or one that varies only on samples whose edges
        all have weight 0.
    variation : ndarray of float64
        ``f~^T L f~ / 1^T D 1 = sum_{i<j} S_ij (f_i - f_j)^2 / 1^T D 1``.
    variance : ndarray of float64
        ``f~^T D f~ / 1^T D 1``, the degree-weighted variance; ``scores = variation / variance``.
    n_zero_weights : int
        Neighbour arcs (i -> j) whose rescaled weight underflowed to 0 (see Notes).

    Raises
    ------
    ValueError
        Naming the columns whose range is so large (beyond about 1e154) that the squared
        distances between samples overflow float64: the heat kernel is then undefined.

    Notes
    -----
    ``L_r`` does not change when S is multiplied by a constant, so the weights are
    computed as ``exp(-(d_ij^2 - d_min^2) / t)`` with ``d_min^2`` the smallest
    neighbour distance: the same scores, but on high-dimensional data (where
    ``exp(-d^2 / t)`` would underflow to 0 for every edge and leave 0 / 0) the
    graph keeps its nearest edge at weight 1.  The numerator is summed edge by edge,
    ``sum_{i<j} S_ij (f_i - f_j)^2``, which equals ``f~^T L f~`` without its cancellation.

    Scale: for a given graph ``L_r`` does not change when column r is multiplied by a
    number, and both sums are computed on each column multiplied by the power of two that
    brings its largest absolute value into [0.5, 1) (exact, no overflow or underflow;
    ``variation`` and ``variance`` are scaled back, ``inf`` or 0 outside the float64
    range).  The graph, however, depends on the scale of every column through the
    distances, so the scores are scale-invariant only for standardised data
    (:func:`fstools.core.arrays.standardize_columns`, as the CMQFS paper does): then a
    column multiplied by any number from 1e-300 to 1e300 gets the same scores up to rounding.

    A factor (a ``nominal`` column of level codes) is scored as one variable: its score is
    the Laplacian score of the block of all its level indicators (the reference level
    included) as one vector-valued feature, ``tr(F~^T L F~) / tr(F~^T D F~)`` (the
    criterion of He et al. with ``||f_i - f_j||^2`` for ``(f_i - f_j)^2``).  With
    ``||e_a - e_b||^2 = 2 [a != b]`` this is::

        L = sum_{i<j} S_ij [a_i != a_j]  /  ((1^T D 1) (1 - sum_l p_l^2) / 2)

    with ``p_l`` the degree-weighted share of level l: the squared difference replaced by
    the nominal diff and the variance ``1/2 E (f - f')^2`` by half the degree-weighted
    Gini-Simpson index.  It does not depend on the coding of the levels, and for a factor
    of two levels it equals the Laplacian score of its 0/1 dummy column.  In the graph a
    factor adds its diff ``[a_i != a_j]`` to the squared distance (as that dummy column does).
    """
    X = as_float_matrix(X)
    nominal = nominal_mask(nominal, X)
    n_samples, n_features = X.shape
    source, target, squared = knn_graph_arcs(X, n_neighbors, n_threads, nominal if nominal.any() else None)
    weight = np.exp(-(squared - squared.min()) / float(t))
    n_zero = int(np.count_nonzero(weight == 0.0))
    graph = _symmetric_graph(source, target, weight, n_samples)
    upper = sparse.triu(graph, k=1).tocoo()
    degree = np.asarray(graph.sum(axis=1)).ravel()
    total = degree.sum()

    unscaled = X
    X, exponent = scaled_to_unit(X)   # exact; the score is a ratio of sums of squares of one column
    variation = np.zeros(n_features)
    step = max(1, _BLOCK_CELLS // max(n_features, 1))
    for start in range(0, upper.nnz, step):
        stop = min(start + step, upper.nnz)
        difference = X[upper.row[start:stop]] - X[upper.col[start:stop]]
        variation += upper.data[start:stop] @ (difference * difference)
    variance = np.zeros(n_features)
    centre = (degree @ X) / total
    step = max(1, _BLOCK_CELLS // max(n_features, 1))
    for start in range(0, n_samples, step):
        stop = min(start + step, n_samples)
        deviation = X[start:stop] - centre
        variance += degree[start:stop] @ (deviation * deviation)

    if nominal.any():
        variation[nominal], variance[nominal] = _nominal_laplacian_sums(unscaled[:, nominal], upper, degree)
        exponent[nominal] = 0
    constant = constant_columns(unscaled)
    variance[constant] = 0.0
    variation[constant] = 0.0
    scores = np.full(n_features, np.nan)
    defined = variance > 0
    scores[defined] = variation[defined] / variance[defined]
    with np.errstate(over="ignore", under="ignore"):
        variation = np.ldexp(variation / total, 2 * exponent)
        variance = np.ldexp(variance / total, 2 * exponent)
    return LaplacianScores(scores, variation, variance, n_zero)


def _nominal_laplacian_sums(codes, upper, degree):
    """The Laplacian score's two sums for columns of level codes (see :func:`laplacian_scores`):
    ``sum_{i<j} S_ij [a_i != a_j]`` over the graph's edges, and ``(1^T D 1)(1 - sum_l p_l^2) / 2``."""
    total = degree.sum()
    variation = np.zeros(codes.shape[1])
    step = max(1, _BLOCK_CELLS // max(codes.shape[1], 1))
    for start in range(0, upper.nnz, step):
        stop = min(start + step, upper.nnz)
        variation += upper.data[start:stop] @ (codes[upper.row[start:stop]] != codes[upper.col[start:stop]])
    variance = np.zeros(codes.shape[1])
    for j in range(codes.shape[1]):
        _, level = np.unique(codes[:, j], return_inverse=True)
        share = np.bincount(level.ravel(), weights=degree) / total
        variance[j] = total * (1.0 - share @ share) / 2.0
    return variation, variance


def laplacian(X, y=None, k=None, n_threads=1, n_neighbors=5, t=1.0, nominal=None):
    """Laplacian score filter (He, Cai and Niyogi 2005), unsupervised; lower is better.

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
    y : ignored
        The score does not use the response.
    k : int or None
        Unused (every column is scored and ranked); accepted for the registry.
    n_threads : int
        Threads of the neighbour search; the result does not depend on it.
    n_neighbors : int >= 1
        k of the k-nearest-neighbour graph: 5 as in the CMQFS paper (section 5,
        "NeighborMode = 'KNN', k = 5").  Capped at n_samples - 1 (with a note).
    t : float > 0
        Heat-kernel width in ``exp(-||x_i - x_j||^2 / t)`` (He et al. 2005, section 2,
        step 2): 1.0 as in the CMQFS paper (section 5).
    nominal : ndarray of bool, shape (n_features,), optional
        The columns of level codes of factors: each is scored as one variable, by the
        Laplacian score of the block of its level indicators (see :func:`laplacian_scores`).

    Returns
    -------
    MethodOutput
        ``scores`` = Laplacian score; columns ``laplacian``, ``variation``
        (``f~^T L f~ / 1^T D 1``) and ``variance`` (``f~^T D f~ / 1^T D 1``);
        ``ranking`` = every column by increasing score, ties to the lower index,
        constant columns (score NaN: 0 / 0 is undefined) last.

    Notes
    -----
    Graph: Euclidean distance on the features as given (the CMQFS paper
    standardised them, section 5.1), each sample's k nearest other samples with
    ties to the lower sample index, symmetrised by union.  See the module
    docstring for the differences from scikit-feature's ``lap_score``.
    """
    X = as_float_matrix(X)
    n_samples = X.shape[0]
    notes = []
    if n_neighbors > n_samples - 1:
        notes.append(f"n_neighbors = {n_neighbors} exceeds n_samples - 1 = {n_samples - 1}: every other "
                     f"sample is a neighbour")
    nominal = nominal_mask(nominal, X)
    scores, variation, variance, n_zero = laplacian_scores(X, n_neighbors, t, n_threads, nominal)
    constant = constant_columns(X)
    if nominal.any():
        notes.append(f"{format_count(int(nominal.sum()), 'factor')} scored as one variable each: the Laplacian score of the "
                     f"block of its level indicators (squared difference [a != b], Gini-Simpson variance)")
    if constant.any():
        notes.append(f"{format_count(int(constant.sum()), 'constant column')}: Laplacian score 0/0 undefined (NA), "
                     f"ranked last")
    undefined = np.isnan(scores) & ~constant
    if undefined.any():
        notes.append(f"{format_count(int(undefined.sum()), 'column')} varying only on samples without graph weight: "
                     f"Laplacian score 0/0 undefined (NA), ranked after the defined scores")
    if n_zero:
        notes.append(f"{format_count(int(n_zero), 'neighbour arc')} with heat-kernel weight 0 (exp underflow: "
                     f"||x_i - x_j||^2 exceeds the smallest by more than ~745 t); a larger t keeps them")
    return MethodOutput(
        ranking=rank_features(scores, higher_is_better=False, last=constant),
        scores=scores,
        columns={"laplacian": scores, "variation": variation, "variance": variance},
        notes=notes,
    )


# --------------------------------------------------------------------------
# ReliefF
# --------------------------------------------------------------------------

def relieff_weights(X, y, n_neighbors=10, n_iterations=None, random_state=0, n_threads=1, nominal=None):
    """ReliefF weights (Kononenko 1994; Robnik-Sikonja and Kononenko 2003, section 2).

    For each of m instances R_i: its k nearest hits H_j (same class) and its k
    nearest misses M_j(C) of every other class C; then, for every feature A::

        W[A] -= sum_j diff(A, R_i, H_j) / (m k)
        W[A] += sum_{C != class(R_i)} [P(C) / (1 - P(class(R_i)))] sum_j diff(A, R_i, M_j(C)) / (m k)

    with ``diff(A, I1, I2) = |I1[A] - I2[A]| / (max(A) - min(A))`` for a numeric
    attribute, ``diff(A, I1, I2) = 0 if I1[A] == I2[A] else 1`` for a nominal one
    (Kononenko 1994, "Estimating attributes: analysis and extensions of RELIEF", ECML),
    and the distance between instances the sum of ``diff`` over the features (Manhattan
    on numeric features scaled to [0, 1] by their range, plus the nominal diffs).

    Missing values (NaN) take the probability-based diff of Kononenko (1994) as stated by
    Robnik-Sikonja and Kononenko (2003, section 2.1)::

        diff(A, I1, I2) = 1 - P(value(A, I2) | class(I1))                   (I1[A] missing)
        diff(A, I1, I2) = 1 - sum_V P(V | class(I1)) P(V | class(I2))      (both missing)

    with the probabilities the relative frequencies among the known values of A.  For a
    numeric attribute fstools uses the same definition in its general form, the expected
    diff under the class-conditional distribution of the known values: ``E|I2[A] - V| /
    range`` with V drawn from the known values of A in class(I1) (both missing: V and V'
    drawn independently from class(I1) and class(I2)); for a nominal attribute the
    expectation is exactly the formula above.  A class with no known value of A uses all
    known values of A.  The same diffs enter the distance of the neighbour search.

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        Finite values, or NaN for a missing value (a column with no known value is refused).
    y : ndarray of int, shape (n_samples,)
        Class codes 0..n_classes-1, at least two classes present.
    n_neighbors : int >= 1
        k, hits and misses per class: 10, the value Robnik-Sikonja and Kononenko
        (2003) recommend and use for ReliefF, after Kononenko (1994); scikit-feature
        uses 5.
    n_iterations : int in 1..n_samples, or None
        m, the number of instances.  None (default): every instance once, which is
        deterministic.  Otherwise m distinct instances drawn at random (without
        replacement) with ``random_state``.
    random_state : int, numpy Generator or None
        Seed of that draw (unused when ``n_iterations`` is None).
    n_threads : int
        Threads of the neighbour search; the result does not depend on it.
    nominal : ndarray of bool, shape (n_features,), optional
        True for the columns of level codes of a nominal attribute (a factor), which take
        the nominal diff; None: every column is numeric.

    Returns
    -------
    weights : ndarray of float64, shape (n_features,)
        ``W = near_miss - near_hit``; higher is better; 0 on constant columns.
    near_hit : ndarray of float64
        Mean ``diff`` to the nearest hits (averaged over instances).
    near_miss : ndarray of float64
        Prior-weighted mean ``diff`` to the nearest misses.
    instances : ndarray of intp
        The instances used, sorted.

    Notes
    -----
    * A class with fewer than k + 1 members: as many neighbours as exist are
      used and the average is over them (``sum_j diff / k_C`` with ``k_C`` the
      number found, as Weka's ReliefFAttributeEval does); with every class
      larger than k this is the formula above.  An instance alone in its class
      has no hits and contributes no hit term.
    * Ties in distance: the lower sample index is the nearer neighbour.
    * A constant feature has ``diff = 0`` everywhere (range 0 defines diff = 0).
    """
    X, missing = _with_missing(X)
    nominal = nominal_mask(nominal, X)
    y, n_classes, counts = as_class_codes(y, X.shape[0])
    n_samples, n_features = X.shape
    k = int(n_neighbors)
    if k < 1:
        raise ValueError(f"n_neighbors: must be an integer >= 1; got {n_neighbors!r}")
    if n_iterations is None:
        instances = np.arange(n_samples, dtype=np.intp)
    else:
        m = int(n_iterations)
        if not 1 <= m <= n_samples:
            raise ValueError(f"n_iterations: must be None or an integer in 1..{n_samples} (the number of "
                             f"samples); got {n_iterations!r}")
        rng = np.random.default_rng(random_state)
        instances = np.sort(rng.choice(n_samples, size=m, replace=False)).astype(np.intp)
    m = instances.shape[0]

    scaled = _range_scaled(X, nominal)

    # Only the classes present take part (empty codes have no neighbours and no prior); renumbering
    # them in increasing order keeps every sum in the same order, so the weights do not change.
    present = np.flatnonzero(counts)
    n_present = present.shape[0]
    if n_present * n_present * 8 > RELIEFF_MISS_WEIGHT_MEMORY:
        raise ValueError(f"y: {n_present} classes are present; ReliefF's prior weights of the misses "
                         f"(a {n_present} x {n_present} table) would need "
                         f"{n_present * n_present * 8 / 2 ** 30:.1f} GB (the limit is "
                         f"{RELIEFF_MISS_WEIGHT_MEMORY / 2 ** 30:.1f} GB); merge rare classes first")
    code = np.zeros(n_classes, dtype=np.int32)
    code[present] = np.arange(n_present, dtype=np.int32)
    labels = np.ascontiguousarray(code[y])
    prior = counts[present] / n_samples
    # miss_weight[a, c] = P(c) / (1 - P(a)); P(a) < 1 as two classes are present; the diagonal
    # (hits) is not used.
    miss_weight = np.ascontiguousarray(prior[None, :] / (1.0 - prior[:, None]))
    np.fill_diagonal(miss_weight, 0.0)
    # A list never holds more neighbours than the largest class has members: the same lists.
    k = min(k, int(counts.max()))
    diffs = relieff_diffs(scaled, nominal, missing, labels, n_present)

    features = np.ascontiguousarray(scaled.T)
    kernel = _neighbours
    block = kernel.block_size()
    n_blocks = -(-m // block)
    hit_blocks = np.zeros((n_blocks, n_features))
    miss_blocks = np.zeros((n_blocks, n_features))
    threads = _threads(m, n_samples, n_features, n_threads)
    # Neighbour lists of shape (queries, classes, k): the instances go through in chunks of whole
    # kernel blocks, so that the lists stay within RELIEFF_NEIGHBOUR_MEMORY and every block sum is the
    # one of a single pass.
    bytes_per_query = n_present * (k * 16 + 8)
    if m * bytes_per_query <= RELIEFF_NEIGHBOUR_MEMORY:
        chunk = m
    else:
        chunk = max(1, RELIEFF_NEIGHBOUR_MEMORY // (bytes_per_query * block)) * block
    for first in range(0, m, chunk):
        rows = instances[first:first + chunk]
        index, _, count = class_neighbours(features, labels, n_present, rows, k, "manhattan", n_threads, diffs)
        first_block = first // block
        stop_block = first_block + (-(-rows.shape[0] // block))
        kernel.relieff_terms(scaled, labels, int(n_present), rows, index, count, miss_weight,
                             hit_blocks[first_block:stop_block], miss_blocks[first_block:stop_block], threads,
                             **diffs)
        del index, count
    # Block sums added in block order: the same result for any number of threads or chunks.
    near_hit = hit_blocks.sum(axis=0) / m
    near_miss = miss_blocks.sum(axis=0) / m
    return ReliefFWeights(near_miss - near_hit, near_hit, near_miss, instances)


def _range_scaled(X, nominal=None):
    """``(X - min) / (max - min)`` per column (C order), 0 on constant columns, without overflow.

    A column whose range ``max - min`` overflows (say -1.3e308..1.3e308) is scaled as
    ``(x/2 - min/2) / (max/2 - min/2)``: halving is exact for such magnitudes, so the
    result is the one of the column divided by any power of two.  NaN (a missing value)
    stays NaN, the range being that of the known values; ``nominal`` columns (level codes)
    are copied as they are.
    """
    if np.isnan(X).any():
        low = np.nanmin(X, axis=0)
        high = np.nanmax(X, axis=0)
    else:
        low = X.min(axis=0)
        high = X.max(axis=0)
    with np.errstate(over="ignore"):
        span = high - low
    scaled = np.zeros(X.shape, dtype=np.float64)   # C order (the kernel reads rows)
    finite = np.isfinite(span)
    varying = finite & (span > 0)
    scaled[:, varying] = (X[:, varying] - low[varying]) / span[varying]
    huge = ~finite
    if huge.any():
        half_low = low[huge] / 2
        scaled[:, huge] = (X[:, huge] / 2 - half_low) / (high[huge] / 2 - half_low)
    if nominal is not None and nominal.any():
        scaled[:, nominal] = X[:, nominal]
    return scaled


def relieff_diffs(scaled, nominal, missing, labels, n_classes):
    """The neighbour kernel's diff arguments for ReliefF: nominal flags and missing-value tables.

    For every column f with a missing value (table s) and class c,
    ``known_diff[s, c, j]`` is the expected diff between sample j's known value and a value
    drawn from the known values of f in class c (all known values when class c has none):
    ``1 - P(x_jf | c)`` for a nominal column, ``mean |x_jf - v|`` over those values v of the
    range-scaled column otherwise; ``both_diff[s, a, c]`` is the mean of ``known_diff[s, c, l]``
    over the known values l of class a (``1 - sum_V P(V | a) P(V | c)`` for a nominal column),
    made exactly symmetric.  See :func:`relieff_weights`.

    Parameters
    ----------
    scaled : ndarray of float64, shape (n_samples, n_features)
        Range-scaled numeric columns and nominal codes, NaN where missing.
    nominal, missing : ndarray of bool
        The nominal columns (n_features,) and the missing entries (n_samples, n_features).
    labels : ndarray of int32, shape (n_samples,)
        Class codes 0..n_classes-1.
    n_classes : int

    Returns
    -------
    dict
        Keyword arguments ``nominal`` (and, with missing values, ``missing_slot``,
        ``known_diff``, ``both_diff``) of :func:`fstools._ext._neighbours.class_neighbours`
        and :func:`fstools._ext._neighbours.relieff_terms`.
    """
    diffs = {"nominal": np.ascontiguousarray(nominal, dtype=np.uint8)}
    with_missing = np.flatnonzero(missing.any(axis=0))
    if with_missing.size == 0:
        return diffs
    n_samples, n_features = scaled.shape
    slot = np.full(n_features, -1, dtype=np.intp)
    slot[with_missing] = np.arange(with_missing.size)
    known_diff = np.zeros((with_missing.size, n_classes, n_samples))
    both_diff = np.zeros((with_missing.size, n_classes, n_classes))
    for s, f in enumerate(with_missing):
        column = scaled[:, f]
        known = ~missing[:, f]
        members = [known & (labels == c) for c in range(n_classes)]
        members = [member if member.any() else known for member in members]
        for c in range(n_classes):
            known_diff[s, c] = _expected_diff(column, column[members[c]], bool(nominal[f]))
        for a in range(n_classes):
            both_diff[s, a] = known_diff[s][:, members[a]].mean(axis=1)
        both_diff[s] = (both_diff[s] + both_diff[s].T) / 2
    diffs.update(missing_slot=slot, known_diff=known_diff, both_diff=both_diff)
    return diffs


def _expected_diff(values, sample, nominal):
    """For every value v (0 where v is NaN): the mean diff between v and the values of ``sample``.

    Nominal: ``1 - (share of sample equal to v)``; numeric: ``mean |v - sample|``, from the
    sorted sample and its prefix sums (O((n + m) log m)).
    """
    known = ~np.isnan(values)
    v = np.where(known, values, 0.0)
    m = sample.shape[0]
    if nominal:
        levels, counts = np.unique(sample, return_counts=True)
        position = np.minimum(np.searchsorted(levels, v), levels.shape[0] - 1)
        share = np.where(levels[position] == v, counts[position] / m, 0.0)
        expected = 1.0 - share
    else:
        ordered = np.sort(sample)
        prefix = np.concatenate(([0.0], np.cumsum(ordered)))
        below = np.searchsorted(ordered, v, side="left")
        sum_below = prefix[below]
        expected = (v * below - sum_below + (prefix[-1] - sum_below) - v * (m - below)) / m
        expected = np.maximum(expected, 0.0)     # rounding
    return np.where(known, expected, 0.0)


def relieff(X, y, k=None, n_threads=1, n_neighbors=10, n_iterations=None, random_state=0, nominal=None):
    """ReliefF filter (Kononenko 1994; Robnik-Sikonja and Kononenko 2003); higher is better.

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
    y : ndarray of int32, shape (n_samples,)
        Class codes 0..n_classes-1, at least two classes present.
    k : int or None
        Unused (every column is scored and ranked); accepted for the registry.
    n_threads : int
        Threads of the neighbour search; the result does not depend on it.
    n_neighbors : int >= 1
        Nearest hits and misses per class: 10 (the usual ReliefF value, Robnik-Sikonja
        and Kononenko 2003; scikit-feature: 5).
    n_iterations : int or None
        Instances used: None = all (m = n, deterministic), else a random sample.
    random_state : int or None
        Seed of the sample when ``n_iterations`` is given (default 0: same inputs,
        same outputs).
    nominal : ndarray of bool, shape (n_features,), optional
        The columns of level codes of nominal attributes (factors): diff 0 for equal
        levels, 1 otherwise.  ``X`` may hold NaN (missing values, with ReliefF's
        missing-value diff; see :func:`relieff_weights`).

    Returns
    -------
    MethodOutput
        ``scores`` = ReliefF weight W; columns ``relieff``, ``near_hit`` and
        ``near_miss`` (W = near_miss - near_hit); ``ranking`` = every column by
        decreasing W, ties to the lower index, constant columns (W = 0) last.
        See :func:`relieff_weights` for the rules.
    """
    X, missing = _with_missing(X)
    nominal = nominal_mask(nominal, X)
    y_codes, n_classes, counts = as_class_codes(y, X.shape[0])
    weights, near_hit, near_miss, instances = relieff_weights(X, y_codes, n_neighbors, n_iterations,
                                                              random_state, n_threads, nominal)
    constant = _constant_known(X)
    notes = []
    if nominal.any():
        notes.append(f"{format_count(int(nominal.sum()), 'nominal column')} (factors, by their level codes): ReliefF diff 0 "
                     f"for equal levels, 1 otherwise (Kononenko 1994)")
    if missing.any():
        notes.append(f"{format_count(int(missing.sum()), 'missing value')} in "
                     f"{format_count(int(missing.any(axis=0).sum()), 'column')}: "
                     f"ReliefF's missing-value diff 1 - P(value | class) (Kononenko 1994; the expected diff "
                     f"for a numeric column)")
    small = [c for c in np.flatnonzero(counts) if counts[c] <= n_neighbors]
    if small:
        notes.append(f"{format_count(len(small), 'class')} with at most n_neighbors = {n_neighbors} members: "
                     f"the neighbours are all the members there are")
    if constant.any():
        notes.append(f"{format_count(int(constant.sum()), 'constant column')}: ReliefF weight 0, ranked last")
    if instances.shape[0] < X.shape[0]:
        notes.append(f"ReliefF weights from {instances.shape[0]} of {X.shape[0]} instances "
                     f"(random_state = {random_state!r})")
    return MethodOutput(
        ranking=rank_features(weights, higher_is_better=True, last=constant),
        scores=weights,
        columns={"relieff": weights, "near_hit": near_hit, "near_miss": near_miss},
        notes=notes,
    )


# --------------------------------------------------------------------------
# RReliefF
# --------------------------------------------------------------------------

class RReliefFWeights(NamedTuple):
    """RReliefF weights with the paper's three estimates (Robnik-Sikonja and Kononenko 2003, Fig. 4)."""

    weights: np.ndarray
    n_dc: float
    n_da: np.ndarray
    n_dc_da: np.ndarray
    instances: np.ndarray


def _instances(n_samples, n_iterations, random_state):
    """The instances used: all (None), or ``n_iterations`` distinct ones drawn with ``random_state``."""
    if n_iterations is None:
        return np.arange(n_samples, dtype=np.intp)
    m = int(n_iterations)
    if not 1 <= m <= n_samples:
        raise ValueError(f"n_iterations: must be None or an integer in 1..{n_samples} (the number of "
                         f"samples); got {n_iterations!r}")
    rng = np.random.default_rng(random_state)
    return np.sort(rng.choice(n_samples, size=m, replace=False)).astype(np.intp)


def rrelieff_weights(X, y, n_neighbors=10, sigma=None, n_iterations=None, random_state=0, n_threads=1,
                     nominal=None):
    """RReliefF weights (Robnik-Sikonja and Kononenko 2003, "Theoretical and empirical analysis of
    ReliefF and RReliefF", Machine Learning 53, section 2.3, Fig. 4).

    For each of m instances R_i and each of its k nearest instances I_j (any response), with
    weight ``d(i, j)``::

        N_dC      += diff(y, R_i, I_j) d(i, j)
        N_dA[A]   += diff(A, R_i, I_j) d(i, j)
        N_dCdA[A] += diff(y, R_i, I_j) diff(A, R_i, I_j) d(i, j)

    and ``W[A] = N_dCdA[A] / N_dC - (N_dA[A] - N_dCdA[A]) / (m - N_dC)`` (Eq. 12 estimated:
    the probability of a different response given a different value of A, Bayes-inverted).
    ``diff`` is the absolute difference scaled by the range (of the feature, of the response),
    0 for equal and 1 for different levels of a nominal feature, and the distance between
    instances the sum of ``diff`` over the features, as in :func:`relieff_weights` (Manhattan
    on range-scaled features).

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
    y : ndarray of float64, shape (n_samples,)
        A continuous response (finite, not constant).
    n_neighbors : int >= 1
        k, 10 as for ReliefF (Robnik-Sikonja and Kononenko 2003); capped at n_samples - 1.
    sigma : float > 0 or None
        None (default): equal weights ``d(i, j) = 1 / k``, as Weka's RReliefF by default.
        A number: the paper's exponential rank weighting (Eq. 14-15),
        ``d1(i, j) = exp(-(rank(R_i, I_j) / sigma)^2)`` normalised to sum 1 over the k
        neighbours (rank 1 = nearest).
    n_iterations : int in 1..n_samples, or None
        m: None, every instance once (deterministic); else m distinct instances drawn with
        ``random_state``.
    random_state : int, numpy Generator or None
    n_threads : int
        Threads of the neighbour search; the result does not depend on it.
    nominal : ndarray of bool, shape (n_features,), optional
        The columns of level codes of nominal features (factors); None: none.

    Returns
    -------
    RReliefFWeights
        ``weights`` (higher is better; 0 on constant columns), ``n_dc``, ``n_da``,
        ``n_dc_da`` and the ``instances`` used.

    Notes
    -----
    When ``N_dC`` is 0 (every neighbour of every instance has the instance's response) or m
    (every one differs by the response's whole range), Eq. 12 is 0 / 0 in one of its terms; the
    weights are then those of the authors' implementation (R's CORElearn), the term's limit
    (:func:`_rrelieff_weight`), and :func:`rrelieff` says so in its notes.
    """
    X = as_float_matrix(X)
    nominal = nominal_mask(nominal, X)
    n_samples, n_features = X.shape
    y = as_continuous_response(y, n_samples)
    k = int(n_neighbors)
    if k < 1:
        raise ValueError(f"n_neighbors: must be an integer >= 1; got {n_neighbors!r}")
    if sigma is not None and not is_positive_number(sigma):
        raise ValueError(f"sigma: must be None or a finite number > 0; got {sigma!r}")
    instances = _instances(n_samples, n_iterations, random_state)
    m = instances.shape[0]
    k = min(k, n_samples - 1)
    scaled = _range_scaled(X, nominal)
    response = _range_scaled(y[:, None])[:, 0]
    features = np.ascontiguousarray(scaled.T)
    labels = np.zeros(n_samples, dtype=np.int32)
    index = class_neighbours(features, labels, 1, instances, k, "manhattan", n_threads,
                             {"nominal": nominal.astype(np.uint8)})[0][:, 0, :]
    # One class of n_samples >= k + 1 members: every instance has its k neighbours, of ranks 1..k.
    rank_weight = np.full(k, 1.0 / k) if sigma is None else np.exp(-(np.arange(1, k + 1) / float(sigma)) ** 2)
    rank_weight = rank_weight / rank_weight.sum()
    response_diff = np.abs(response[instances][:, None] - response[index])        # (m, k)
    n_dc = float(np.sum(response_diff * rank_weight))
    n_da = np.zeros(n_features)
    n_dc_da = np.zeros(n_features)
    rows_per_block = max(1, _BLOCK_CELLS // max(n_features, 1))
    for first in range(0, m, rows_per_block):
        rows = instances[first:first + rows_per_block]
        block_index = index[first:first + rows_per_block]
        for j in range(k):
            diff = np.abs(scaled[rows] - scaled[block_index[:, j]])                 # (rows, features)
            diff[:, nominal] = diff[:, nominal] != 0                                 # levels: 0 or 1
            n_da += rank_weight[j] * diff.sum(axis=0)
            n_dc_da += diff.T @ (rank_weight[j] * response_diff[first:first + rows_per_block, j])
    weights = _rrelieff_weight(n_dc, n_da, n_dc_da, m)
    return RReliefFWeights(weights, n_dc, n_da, n_dc_da, instances)


def _rrelieff_weight(n_dc, n_da, n_dc_da, m):
    """``W = N_dCdA / N_dC - (N_dA - N_dCdA) / (m - N_dC)``, with N_dC kept inside (0, m) as the
    authors' own implementation keeps it (R's CORElearn, ``estimationReg::CReliefDensity``: N_dC
    clamped to [epsilon, m - epsilon]).  At N_dC = 0 (no near instance has another response) the
    co-counts N_dCdA are 0 too and W is the limit ``-N_dA / m``: the probability of a different
    value of A where the response is the same, with a minus sign; at N_dC = m, ``N_dCdA / m``."""
    if n_dc <= 0.0:
        return -n_da / m
    if n_dc >= m:
        return n_dc_da / m
    return n_dc_da / n_dc - (n_da - n_dc_da) / (m - n_dc)


def rrelieff(X, y, k=None, n_threads=1, n_neighbors=10, sigma=None, n_iterations=None, random_state=0,
             response_type="continuous", nominal=None):
    """RReliefF filter for a continuous response (Robnik-Sikonja and Kononenko 2003); higher is better.

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
    y : ndarray of float64, shape (n_samples,)
        A continuous response (finite, not constant).
    k : int or None
        Unused (every column is scored and ranked); accepted for the registry.
    n_threads : int
        Threads of the neighbour search; the result does not depend on it.
    n_neighbors : int >= 1
        Nearest instances per instance: 10, as for ReliefF.
    sigma : float > 0 or None
        None: equal weights over the neighbours (default); a number: the paper's
        exponential rank weighting ``exp(-(rank / sigma)^2)``.
    n_iterations : int or None
        Instances used: None = all (deterministic), else a random sample.
    random_state : int or None
        Seed of the sample when ``n_iterations`` is given.
    response_type : {'continuous'}
        RReliefF is for a continuous response; for classes use ``relieff``.
    nominal : ndarray of bool, shape (n_features,), optional
        The columns of level codes of nominal features (factors): diff 0 for equal levels,
        1 otherwise.

    Returns
    -------
    MethodOutput
        ``scores`` = RReliefF weight W; columns ``rrelieff``, ``N_dA`` and ``N_dCdA``
        (the paper's estimates, with ``N_dC`` in the notes); ``ranking`` = every column
        by decreasing W, ties to the lower index, constant columns (W = 0) last.
        See :func:`rrelieff_weights` for the rules.
    """
    check_response_type(response_type, allowed=("continuous",))
    X = as_float_matrix(X)
    weights, n_dc, n_da, n_dc_da, instances = rrelieff_weights(X, y, n_neighbors, sigma, n_iterations,
                                                               random_state, n_threads, nominal)
    constant = constant_columns(X)
    weighting = "equal weights 1/k" if sigma is None else f"weights exp(-(rank / {sigma!r})^2), normalised"
    notes = [f"RReliefF with k = {min(int(n_neighbors), X.shape[0] - 1)} nearest instances, {weighting}; "
             f"N_dC = {n_dc:.6g} over m = {instances.shape[0]} instances"]
    if not 0.0 < n_dc < instances.shape[0]:
        notes.append("N_dC = " + ("0: no near instance has another response; W = -N_dA / m (R's CORElearn)"
                                  if n_dc <= 0.0 else "m: every near instance differs by the whole range; "
                                  "W = N_dCdA / m (R's CORElearn)"))
    if constant.any():
        notes.append(f"{format_count(int(constant.sum()), 'constant column')}: RReliefF weight 0, ranked last")
    if instances.shape[0] < X.shape[0]:
        notes.append(f"RReliefF weights from {instances.shape[0]} of {X.shape[0]} instances "
                     f"(random_state = {random_state!r})")
    return MethodOutput(
        ranking=rank_features(weights, higher_is_better=True, last=constant),
        scores=weights,
        columns={"rrelieff": weights, "N_dA": n_da, "N_dCdA": n_dc_da},
        notes=notes,
    )


# --------------------------------------------------------------------------
# Registration
# --------------------------------------------------------------------------

register(MethodSpec(
    name="fisher",
    description="Fisher score: between-class over within-class variance of each feature",
    function=fisher,
    parameters=(),
    capabilities=frozenset({"supervised", "multiclass", "sparse"}),
    score_name="fisher",
    higher_is_better=True,
    reference="Duda, Hart & Stork (2001) Pattern Classification, 3.8.2; Gu, Li & Han (2011) UAI, Eq. 1",
    criterion="F_r = sum_k n_k (mu_kr - mu_r)^2 / sum_k n_k sigma_kr^2  (population variances; "
              "0/0 := 0, x/0 := inf)",
    any_layout=True,
    factors="nominal",
    checks_design=True,
))

register(MethodSpec(
    name="laplacian",
    description="Laplacian score: locality preservation on a k-NN heat-kernel graph (unsupervised)",
    function=laplacian,
    parameters=(
        Parameter("n_neighbors", 5, "k of the k-nearest-neighbour graph (CMQFS paper, section 5: k = 5)",
                  Constraint("an integer >= 1", is_positive_integer, int)),
        Parameter("t", 1.0, "heat-kernel width in exp(-||x_i - x_j||^2 / t) (He et al. 2005, section 2; "
                  "t = 1.0 as stated in the CMQFS paper, section 5; its MATLAB code's exp(-d^2 / 2t^2) with t = 1 "
                  "is t = 2 here)", Constraint("a finite number > 0", is_positive_number, float)),
    ),
    capabilities=frozenset({"multiclass"}),
    responses=frozenset({"class", "continuous"}),  # unsupervised: any response, or none
    score_name="laplacian",
    higher_is_better=False,
    reference="He, Cai & Niyogi (2005) NIPS 18:507-514",
    criterion="L_r = f~^T L f~ / f~^T D f~,  f~ = f - (f^T D 1 / 1^T D 1) 1,  L = D - S,  "
              "S_ij = exp(-||x_i - x_j||^2 / t) on the k-NN graph (union); a factor: the same of the block of "
              "its level indicators, tr(F~^T L F~) / tr(F~^T D F~)",
    factors="nominal",
))

register(MethodSpec(
    name="relieff",
    description="ReliefF: nearest-miss minus nearest-hit differences, prior-weighted over classes",
    function=relieff,
    parameters=(
        Parameter("n_neighbors", 10, "k nearest hits and misses per class (k = 10, the usual ReliefF "
                  "value: Robnik-Sikonja & Kononenko 2003)", Constraint("an integer >= 1", is_positive_integer, int)),
        Parameter("n_iterations", None, "instances m: None = all (deterministic), else a random sample "
                  "(m in Robnik-Sikonja & Kononenko 2003)", Constraint("None or an integer >= 1",
                  is_none_or(is_positive_integer), none_or_int)),
        Parameter("random_state", 0, "seed of the instance sample when n_iterations is set",
                  Constraint("None or an integer >= 0", is_seed, none_or_int)),
    ),
    capabilities=frozenset({"supervised", "multiclass"}),
    score_name="relieff",
    higher_is_better=True,
    reference="Kononenko (1994) ECML; Robnik-Sikonja & Kononenko (2003) Mach. Learn. 53:23-69",
    criterion="W_A = sum_i [ -sum_hits diff(A) + sum_{C != class_i} P(C)/(1 - P(class_i)) "
              "sum_misses(C) diff(A) ] / (m k),  diff = |a1 - a2| / (max - min), a factor: [a1 != a2], "
              "a missing value: 1 - P(a2 | class_1)",
    factors="nominal",
    missing=frozenset({"pass"}),
))

register(MethodSpec(
    name="rrelieff",
    description="RReliefF: ReliefF for a continuous response (probability of a different response "
                "given a different feature value among near instances)",
    function=rrelieff,
    parameters=(
        Parameter("n_neighbors", 10, "k nearest instances (k = 10 as for ReliefF: Robnik-Sikonja & "
                  "Kononenko 2003)", Constraint("an integer >= 1", is_positive_integer, int)),
        Parameter("sigma", None, "None: equal neighbour weights (Weka's default); a number: the paper's "
                  "exponential rank weighting exp(-(rank/sigma)^2) (Robnik-Sikonja & Kononenko 2003, Eq. 14)",
                  Constraint("None or a finite number > 0", is_none_or(is_positive_number), none_or_float)),
        Parameter("n_iterations", None, "instances m: None = all (deterministic), else a random sample",
                  Constraint("None or an integer >= 1", is_none_or(is_positive_integer), none_or_int)),
        Parameter("random_state", 0, "seed of the instance sample when n_iterations is set",
                  Constraint("None or an integer >= 0", is_seed, none_or_int)),
    ),
    capabilities=frozenset({"supervised"}),
    responses=frozenset({"continuous"}),
    score_name="rrelieff",
    higher_is_better=True,
    reference="Robnik-Sikonja & Kononenko (1997) ICML; Robnik-Sikonja & Kononenko (2003) Mach. Learn. 53:23-69",
    criterion="W_A = N_dCdA / N_dC - (N_dA - N_dCdA) / (m - N_dC),  N_dC = sum_i sum_j diff(y) d_ij,  "
              "N_dA = sum diff(A) d_ij,  N_dCdA = sum diff(y) diff(A) d_ij over the k nearest I_j of each R_i",
    factors="nominal",
))

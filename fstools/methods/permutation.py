"""Permutation tests of a method's own per-feature score: arrays in, null distributions out.

Under the null hypothesis that a feature and the response are independent, every
permutation of the response is as likely as the observed one.  For ``B`` random
permutations the method's score of every feature is recomputed on the permuted response
(the null distribution, a ``B x n_features`` matrix) and the p-value is

    p = (1 + #{b : null_b >= observed}) / (1 + B)

(``<=`` for a score where lower is better): the permutation p-value that counts the
observed arrangement among the permutations, so that it is never 0 and is valid at every
level (Phipson and Smyth 2010, "Permutation p-values should never be zero", Statistical
Applications in Genetics and Molecular Biology 9(1), Eq. 2; Davison and Hinkley 1997,
Bootstrap Methods and their Application, section 4.3).  Scores within the ranking rule's
tolerance (:data:`fstools.core.ranking.TIE_TOLERANCE`, relative) of the observed one count
as ties, so that rounding of the same value computed twice cannot decide a count.

For a greedy method the per-feature test is of the method's relevance -- the score of its
first step -- and not of the greedy selection: I(X;C) for ``mrmr``, ``jmi``, ``cmim``,
``mifs`` and ``mifs_u``, the modularity Q for ``cmqfs``.

How the null is computed (a permutation of the response only regroups the rows, so what
does not depend on the response is computed once):

* ``fisher`` and ``f_test`` with classes: the class sums of the centred columns for every
  permutation by one matrix product per block of permutations; the between-class sum of
  squares gives the Fisher score (and F, its multiple by (n - K) / (K - 1)).
* ``f_test`` and ``pearson`` with a continuous response: Pearson's r of the centred, scaled
  columns with every permuted response by one matrix product per block.
* the information methods with the plug-in estimate: the codes of the columns and of the
  response are computed once, and the kernel
  :func:`fstools._ext._permutation.permuted_class_information` counts every permutation
  (threads over the permutations, no Python per permutation).
* ``cmqfs``: each column sorted and its neighbour runs found once (a permutation keeps the
  class sizes, on which alone the graph's neighbour sets depend), then one linear pass of
  prefix counts per permutation, in the kernel
  (:func:`fstools.methods.cmqfs.permuted_modularity_scores`; threads over the features).
* any other supervised single-response method (``relieff``, ``rrelieff``, ``chi2``,
  ``bahsic``, ``dfs``, ``trace_ratio``, ``mim`` with ``estimator='knn'`` or a sparse ``X``):
  the method itself on each permuted response, with the ``k`` of the run.

The permutations come from ``numpy.random.default_rng(random_state)``, one
``rng.permutation(n_samples)`` per row of :func:`permutation_indices`, so a seed gives the
same permutations (and p-values) whatever the number of threads or the method.
"""
import numpy as np
from scipy import sparse
from threadpoolctl import threadpool_limits

from fstools._ext import _permutation
from fstools.core.constraints import SEED, integer_at_least, one_of, validate
from fstools.core.discretize import information_codes
from fstools.core.parallel import threads_for_work
from fstools.core.ranking import TIE_TOLERANCE
from fstools.methods.cmqfs import permuted_modularity_scores
from fstools.methods.registry import registered_methods
from fstools.methods.responses import as_continuous_response, discretised_response

__all__ = ["TESTS", "check_permutation_arguments", "check_permutation_method", "permutation_methods",
           "permutation_indices", "permutation_null", "permutation_p_values", "permutation_blocks", "best_by_group",
           "PermutationNull"]

#: The tests of the selection a result can carry (``test=``): ``'step'`` is in
#: :mod:`fstools.methods.step_tests`.
TESTS = ("permutation", "step")

#: The information methods whose relevance is the plug-in I(X;C) of the discretised columns.
INFORMATION_METHODS = ("mim", "mrmr", "jmi", "cmim", "mifs", "mifs_u")

#: Permutations per block of the matrix-product paths (bounds the memory of a block).
_BLOCK_CELLS = 1 << 22


def permutation_methods():
    """Names of the methods that take ``test='permutation'``: the supervised single-response
    methods (neither streaming nor multi-label), sorted."""
    return [spec.name for spec in registered_methods()
            if spec.supervised and not {"streaming", "multilabel"} & set(spec.capabilities)]


def check_permutation_method(spec):
    """Refuse a method without a permutation test, naming the methods that have one."""
    if spec.name in permutation_methods():
        return
    if not spec.supervised:
        why = "is unsupervised (its score does not use the response, so permuting it changes nothing)"
    elif "streaming" in spec.capabilities:
        why = "is a streaming method (its score depends on the order of the rows, not only on the response)"
    else:
        why = "is a multi-label method"
    raise ValueError(f"test: method {spec.name!r} {why}; test='permutation' is available for "
                     f"{', '.join(permutation_methods())}")


def check_permutation_arguments(test, n_permutations, random_state, seed_name="random_state"):
    """``(test, n_permutations, random_state)`` checked: ``test`` one of :data:`TESTS` or None,
    ``n_permutations`` an integer >= 1, ``random_state`` None or an integer >= 0 (``seed_name``:
    its name in the messages)."""
    if test is not None:
        test = validate(one_of(TESTS), test, "test")
    n_permutations = validate(integer_at_least(1, "permutations"), n_permutations, "n_permutations")
    random_state = validate(SEED, random_state, seed_name)
    return test, n_permutations, random_state


def permutation_indices(n_samples, n_permutations, random_state=None):
    """The permutations of a test: row ``b`` is ``default_rng(random_state)``'s ``b``-th
    ``permutation(n_samples)``.

    Returns
    -------
    ndarray of int32, shape (n_permutations, n_samples)
        The permuted response of row ``b`` is ``y[indices[b]]``.
    """
    rng = np.random.default_rng(random_state)
    indices = np.empty((n_permutations, n_samples), dtype=np.int32)
    for b in range(n_permutations):
        indices[b] = rng.permutation(n_samples)
    return indices


def permutation_p_values(observed, null, higher_is_better=True):
    """``(1 + #{null >= observed}) / (1 + B)`` per column (``<=`` when lower is better).

    Parameters
    ----------
    observed : ndarray of float, shape (n,)
    null : ndarray of float, shape (B, n)
    higher_is_better : bool

    Returns
    -------
    ndarray of float64, shape (n,)
        NaN where ``observed`` is NaN.  Null values within ``TIE_TOLERANCE * max(1, |observed|)``
        of the observed value count as ties (as extreme); NaN null values never count.
    """
    observed = np.asarray(observed, dtype=np.float64)
    null = np.asarray(null, dtype=np.float64).reshape(-1, observed.shape[0])
    with np.errstate(invalid="ignore"):
        window = np.where(np.isfinite(observed), TIE_TOLERANCE * np.maximum(1.0, np.abs(observed)), 0.0)
        if higher_is_better:
            extreme = null >= (observed - window)
        else:
            extreme = null <= (observed + window)
    p_values = (1.0 + extreme.sum(axis=0)) / (1.0 + null.shape[0])
    p_values[np.isnan(observed)] = np.nan
    return p_values


def best_by_group(values, groups, n_groups, higher_is_better=True):
    """The best value (largest, or smallest when lower is better) of each group of columns.

    ``values`` has shape (..., n_columns); ``groups[j]`` is the group (0..n_groups-1) of column
    j.  A term of a formula with several design columns is tested by its best column: its
    null distribution is that of the best column under each permutation.  NaN columns are
    skipped (NaN when every column of a group is).
    """
    values = np.asarray(values, dtype=np.float64)
    groups = np.asarray(groups, dtype=np.intp)
    out = np.full(values.shape[:-1] + (n_groups,), np.nan)
    pick = np.fmax if higher_is_better else np.fmin
    for g in range(n_groups):
        columns = np.flatnonzero(groups == g)
        if columns.size:
            out[..., g] = pick.reduce(values[..., columns], axis=-1)
    return out


class PermutationNull:
    """The observed scores and their permutation null of one method on one data set.

    Attributes
    ----------
    observed : ndarray of float64, shape (n_features,)
        The statistic on the data, computed as the null (equal to the method's score up to
        rounding).
    null : ndarray of float64, shape (n_permutations, n_features)
    statistic : str
        What was permuted and recomputed, in words.
    """

    def __init__(self, observed, null, statistic):
        self.observed = observed
        self.null = null
        self.statistic = statistic


def permutation_null(spec, X, y, params, n_permutations=999, random_state=None, n_threads=1,
                     response_type="class", indices=None, k=None):
    """The permutation null of method ``spec``'s per-feature score.

    Parameters
    ----------
    spec : fstools.methods.registry.MethodSpec
        A method of :func:`permutation_methods`.
    X : ndarray of float64 or scipy sparse matrix, shape (n_samples, n_features)
        Finite values (checked by the caller, as for the method).
    y : ndarray, shape (n_samples,)
        Class codes (int) or a continuous response (float), as the method takes it.
    params : dict
        The method's parameters, complete (:func:`fstools.model.validation.check_method_params`).
    n_permutations : int
    random_state : None or int
        Seed of :func:`permutation_indices` (ignored when ``indices`` is given).
    n_threads : int
        Threads of the kernels (and of the BLAS of the matrix products); the result does not
        depend on it beyond rounding (a count is decided by a tolerance, see
        :func:`permutation_p_values`).
    response_type : {'class', 'continuous'}
    indices : ndarray of int, shape (n_permutations, n_samples), optional
        The permutations to use instead of drawing them.
    k : int or None
        The ``k`` of the method's run (columns requested): the methods rerun under the
        permutations are called with it, since some scores depend on it (e.g. the trace
        ratio's lambda*).

    Returns
    -------
    PermutationNull
    """
    check_permutation_method(spec)
    n_samples = X.shape[0]
    if indices is None:
        indices = permutation_indices(n_samples, n_permutations, random_state)
    indices = np.ascontiguousarray(indices, dtype=np.int32)
    name = spec.name
    plugin = name in INFORMATION_METHODS and params.get("estimator", "plugin") == "plugin"
    # Factor columns (level codes, nominal=) have their own statistics: the method rerun (below).
    factors = params.get("nominal") is not None and bool(np.any(params["nominal"]))
    if name in ("fisher", "f_test") and response_type == "class" and not factors:
        with threadpool_limits(limits=int(n_threads), user_api="blas"):  # the matrix products: n_threads
            ratio, n_classes = _class_ratio_null(X, np.asarray(y, dtype=np.int64), indices)
        if name == "fisher":
            return PermutationNull(ratio[0], ratio[1:], "Fisher score (between / within-class variance)")
        factor = (n_samples - n_classes) / (n_classes - 1)
        with np.errstate(invalid="ignore"):
            F = ratio * factor
        return PermutationNull(F[0], F[1:], "ANOVA F")
    if name in ("f_test", "pearson") and response_type == "continuous" and not factors:
        with threadpool_limits(limits=int(n_threads), user_api="blas"):
            r = _correlation_null(X, as_continuous_response(y, n_samples), indices)
        if name == "pearson":
            return PermutationNull(r[0], r[1:], "|Pearson r|")
        with np.errstate(divide="ignore", invalid="ignore"):
            F = np.where(r >= 1.0, np.inf, r * r / (1.0 - r * r) * (n_samples - 2))
        return PermutationNull(F[0], F[1:], "regression F")
    if plugin and not sparse.issparse(X):
        mi = _information_null(X, y, indices, params, n_threads, response_type)
        return PermutationNull(mi[0], mi[1:], "I(X;C), plug-in, on the discretised columns")
    if name == "cmqfs":
        q = _modularity_null(X, np.ascontiguousarray(y, dtype=np.int32), indices, n_threads)
        return PermutationNull(q[0], q[1:], "modularity Q of the feature's graph")
    scores = _method_null(spec, X, y, indices, params, n_threads, response_type, k)
    return PermutationNull(scores[0], scores[1:], f"{spec.score_name} (the method rerun)")


def _with_identity(indices):
    """The permutations with the identity first (row 0 gives the observed statistic by the same
    arithmetic as the null)."""
    identity = np.arange(indices.shape[1], dtype=np.int32)[None, :]
    return np.concatenate([identity, indices], axis=0)


def permutation_blocks(n_rows, cells_per_row):
    """Slices of at most ``_BLOCK_CELLS / cells_per_row`` rows (at least one) covering ``n_rows``:
    the blocks of permutations scored at once (bounded memory)."""
    size = max(1, _BLOCK_CELLS // max(1, cells_per_row))
    return [slice(start, min(start + size, n_rows)) for start in range(0, n_rows, size)]


def _centred_columns(X):
    """``X`` centred and each column divided by its largest absolute centred value (dense), and
    the mask of the constant columns; a sparse ``X`` stays sparse (its means returned apart)."""
    if sparse.issparse(X):
        X = sparse.csc_matrix(X, dtype=np.float64)
        mean = np.asarray(X.mean(axis=0)).ravel()
        maximum = X.max(axis=0).toarray().ravel()
        minimum = X.min(axis=0).toarray().ravel()
        return X, mean, maximum == minimum
    X = np.asarray(X, dtype=np.float64)
    centred = X - X.mean(axis=0)
    scale = np.abs(centred).max(axis=0) if X.shape[0] else np.zeros(X.shape[1])
    constant = np.ptp(X, axis=0) == 0 if X.shape[0] else np.ones(X.shape[1], dtype=bool)
    scale[constant] = 1.0
    return centred / scale, None, constant


def _group_sums(X, mean, labels, n_groups):
    """Sums of the centred columns over the rows of each group, for every row of ``labels``
    (shape (b, n)): shape (b, n_groups, n_features)."""
    b, n = labels.shape
    indicator = np.zeros((b * n_groups, n))
    rows = (np.arange(b)[:, None] * n_groups + labels).ravel()
    indicator[rows, np.tile(np.arange(n), b)] = 1.0
    if mean is None:
        sums = indicator @ X
    else:  # sparse: sum of the raw values minus the group size times the mean
        sums = np.asarray((X.T @ indicator.T).T) - indicator.sum(axis=1)[:, None] * mean[None, :]
    return sums.reshape(b, n_groups, -1)


def _class_ratio_null(X, y, indices):
    """Between / within-class sum of squares of every column for the identity (row 0) and every
    permutation; 0 for a constant column, inf for no within-class variance.  Also the number of
    classes present."""
    X, mean, constant = _centred_columns(X)
    classes, y = np.unique(y, return_inverse=True)
    n_classes = classes.shape[0]
    counts = np.bincount(y, minlength=n_classes).astype(np.float64)
    if mean is None:
        total = np.einsum("ij,ij->j", X, X)
    else:
        total = np.asarray(X.multiply(X).sum(axis=0)).ravel() - X.shape[0] * mean ** 2
    permutations = _with_identity(indices)
    ratio = np.empty((permutations.shape[0], X.shape[1]))
    for rows in permutation_blocks(permutations.shape[0], n_classes * (X.shape[0] + X.shape[1])):
        sums = _group_sums(X, mean, y[permutations[rows]], n_classes)
        between = np.einsum("bkj,k->bj", sums * sums, 1.0 / counts)
        within = np.maximum(total - between, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            block = between / within
        block[within <= 1e-12 * total] = np.inf
        ratio[rows] = block
    ratio[:, constant] = 0.0
    return ratio, n_classes


def _correlation_null(X, y, indices):
    """|Pearson r| of every column with the response for the identity (row 0) and every permutation;
    0 for a constant column."""
    X, mean, constant = _centred_columns(X)
    y = y - y.mean()
    y = y / np.linalg.norm(y)
    if mean is None:
        norms = np.sqrt(np.einsum("ij,ij->j", X, X))
    else:
        norms = np.sqrt(np.maximum(np.asarray(X.multiply(X).sum(axis=0)).ravel() - X.shape[0] * mean ** 2, 0.0))
    norms[constant] = 1.0
    permutations = _with_identity(indices)
    r = np.empty((permutations.shape[0], X.shape[1]))
    for rows in permutation_blocks(permutations.shape[0], X.shape[0] + X.shape[1]):
        permuted = y[permutations[rows]]
        # For sparse X the centred column is x - mean; sum(y_c) = 0 makes the mean term vanish.
        products = permuted @ X if mean is None else np.asarray((X.T @ permuted.T).T)
        r[rows] = np.minimum(np.abs(products) / norms, 1.0)
    r[:, constant] = 0.0
    return r


def _information_null(X, y, indices, params, n_threads, response_type):
    """Plug-in I(X_j;C) for the identity (row 0) and every permutation, by the kernel."""
    discretization, n_bins = params.get("discretization", "mu_sigma"), params.get("n_bins")
    codes, levels, _ = information_codes(X, discretization=discretization, n_bins=n_bins,
                                         n_threads=threads_for_work(np.size(X), int(n_threads)))
    if response_type == "continuous":
        y, n_classes, _ = discretised_response(as_continuous_response(y, X.shape[0]), discretization, n_bins)
    else:
        y = np.ascontiguousarray(y, dtype=np.int32)
        n_classes = int(y.max()) + 1
    return _permutation.permuted_class_information(np.ascontiguousarray(codes), np.ascontiguousarray(levels),
                                                   y, n_classes, _with_identity(indices), int(n_threads))


def _modularity_null(X, y, indices, n_threads):
    """CMQFS's Q of every column for the identity (row 0) and every permutation."""
    return permuted_modularity_scores(X, y, int(y.max()) + 1, _with_identity(indices), n_threads)


def _method_null(spec, X, y, indices, params, n_threads, response_type, k):
    """The method's scores for the identity (row 0) and every permutation, the method rerun."""
    keywords = dict(params)
    if "continuous" in spec.responses:
        keywords["response_type"] = response_type
    y = np.asarray(y)
    if not sparse.issparse(X) and not spec.any_layout:
        X = np.ascontiguousarray(X, dtype=np.float64)
    return np.stack([np.asarray(spec.function(X, np.ascontiguousarray(y[permutation]), k, n_threads,
                                              **keywords).scores, dtype=np.float64)
                     for permutation in _with_identity(indices)])

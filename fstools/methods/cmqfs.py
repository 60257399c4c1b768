"""Graph-based methods: CMQFS (community modularity Q-value feature selection).

Zhao, Wu, Chen, Zhang and Bai (2015), "A feature selection method via
community modularity" (CMQFS), Neurocomputing 151, 376-389.  What is computed:

* relevance ``Q_r``: Newman-Girvan modularity of the class partition of the
  feature vector graph of feature ``r`` (section 4, Eq. 1-2), computed by the
  kernel :mod:`fstools._ext._fvg` in O(m log m) per feature (and, for a
  permutation test, O(m n_classes) per further permutation of the classes);
* ``NQ_r``: min-max normalised ``Q_r`` (Eq. 11);
* relevant independency ``RI(X_i, X_j) = [I(X_i;C|X_j) + I(X_j;C|X_i)] / (2 H(C))``
  (Eq. 9) on the nine-level discretisation of section 5.2, summed over the
  selected features (Eq. 10), min-max normalised over the candidates (Eq. 12);
* greedy selection by ``w_r = beta NQ_r + (1 - beta) NRI_r`` (Eq. 13, Table 2).
"""
import numpy as np

from fstools._ext import _bitcount, _entropy, _fvg
from fstools.core.parallel import score_features, threads_for_work
from fstools.core.discretize import mu_sigma_planes
from fstools.core.ranking import first_maximum
from fstools.core.constraints import is_unit_interval
from fstools.core.constraints import Constraint
from fstools.core.messages import format_count
from fstools.methods.registry import MethodOutput, MethodSpec, Parameter, register

__all__ = ["modularity_scores", "permuted_modularity_scores", "feature_vector_graph_edges",
           "finite_range", "min_max_normalise", "cmqfs"]


def modularity_scores(X, y, n_classes, n_threads=1):
    """Relevance ``Q_r`` of every column of ``X`` (Zhao et al. 2015, Eq. 1-2).

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        Finite values; any memory layout (C, Fortran or a strided view), read
        in place.  At most 2**31 - 1 samples.
    y : ndarray of int32, shape (n_samples,)
        Class codes 0..n_classes-1.
    n_classes : int
    n_threads : int
        Threads over features; the result does not depend on it.  Each thread
        holds at most about 84 bytes per sample of work buffers for two classes
        (plus 4 bytes per sample per further class for the class prefix counts,
        and 20 per further distinct class size).

    Returns
    -------
    ndarray of float64, shape (n_features,)
        Modularity of each feature's graph; NaN for a constant column (its graph
        is decided by row order alone, so it carries no information) and when the
        graph has no edge (every class has one sample).

    Notes
    -----
    Tie rule: among other samples at equal distance, the lower row index is the
    nearer neighbour (with the iris rows z-scored with n - 1, the rule reproduces the four
    values of the paper's Table 1).
    """
    fvg = _fvg
    X = np.asarray(X, dtype=np.float64)
    if not X.flags.aligned:   # e.g. a field of a packed record array: strides not in whole doubles
        X = np.ascontiguousarray(X)
    n_threads = threads_for_work(X.size, n_threads)
    q = np.empty(X.shape[1], dtype=np.float64)
    # The kernel reads the columns of X in place, whatever its layout (no transposed copy).
    fvg.modularity_scores(X, np.ascontiguousarray(y, dtype=np.int32), int(n_classes), q,
                          int(n_threads))
    q[_constant_columns(X)] = np.nan
    return q


def _constant_columns(X):
    """Mask of the columns whose graph is decided by row order alone (Q reported as NaN)."""
    return np.ptp(X, axis=0) == 0 if X.shape[0] else np.ones(X.shape[1], dtype=bool)


def permuted_modularity_scores(X, y, n_classes, permutations, n_threads=1):
    """``Q_r`` of every column of ``X`` for every permutation of the classes.

    Row ``b`` of the result equals ``modularity_scores(X, y[permutations[b]], n_classes)``
    bit for bit.  A permutation of the classes keeps the class sizes, and the graph
    depends on the labels only through them and the partition: each column is
    sorted and its neighbour runs for every class size are found once, then each
    permutation costs a linear pass over the sorted positions (prefix counts of the
    classes), in the kernel :func:`fstools._ext._fvg.permuted_modularity`.

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        As for :func:`modularity_scores`.
    y : ndarray of int32, shape (n_samples,)
        Class codes 0..n_classes-1.
    n_classes : int
    permutations : ndarray of int, shape (n_permutations, n_samples)
        Each row a permutation of ``0..n_samples-1``.
    n_threads : int
        Threads over features; the result does not depend on it.

    Returns
    -------
    ndarray of float64, shape (n_permutations, n_features)
        NaN for a constant column and where the graph has no edge, as :func:`modularity_scores`.
    """
    X = np.asarray(X, dtype=np.float64)
    if not X.flags.aligned:   # as in modularity_scores
        X = np.ascontiguousarray(X)
    permutations = np.ascontiguousarray(permutations, dtype=np.int32)
    n_threads = threads_for_work(X.size * max(1, permutations.shape[0]), n_threads)
    q = _fvg.permuted_modularity(X, np.ascontiguousarray(y, dtype=np.int32), int(n_classes),
                                 permutations, int(n_threads))
    q[:, _constant_columns(X)] = np.nan
    return q


def feature_vector_graph_edges(x, y):
    """The undirected edges of the feature vector graph of one feature, as (i, j) pairs, i < j.

    For drawing and checking small graphs (the number of edges grows like
    m^2 / n_classes); the scores never build it.

    Parameters
    ----------
    x : ndarray of float64, shape (m,)
    y : ndarray of int, shape (m,)
        Class codes 0..n_classes-1.

    Returns
    -------
    ndarray of intp, shape (n_edges, 2), sorted.
    """
    fvg = _fvg
    x = np.ascontiguousarray(x, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.int32)
    order, runs = fvg.neighbour_runs(x, y, int(y.max()) + 1 if len(y) else 1)
    pairs = set()
    for position in range(len(x)):
        i = int(order[position])
        for start, end in runs[position]:
            for j in order[start:end]:
                pairs.add((min(i, int(j)), max(i, int(j))))
    return np.asarray(sorted(pairs), dtype=np.intp).reshape(-1, 2)


def finite_range(values):
    """``(min, max)`` of the finite entries of ``values``; ``(0.0, 0.0)`` when there are none."""
    values = np.asarray(values, dtype=np.float64)
    finite = values[np.isfinite(values)]
    return (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)


def min_max_normalise(values, bounds=None):
    """``(v - min) / (max - min)`` over the finite values (Eq. 11-12).

    When every finite value is equal (max == min) the normalised values are all
    0, so the term does not favour any feature.  NaN entries become 0 (lowest).
    ``bounds``: a fixed ``(min, max)`` instead of the values' own (the step tests keep the
    scaling of the data under permutations); values outside it fall outside [0, 1].
    """
    values = np.asarray(values, dtype=np.float64)
    out = np.zeros_like(values)
    finite = np.isfinite(values)
    low, high = finite_range(values) if bounds is None else bounds
    if high > low:
        out[finite] = (values[finite] - low) / (high - low)
    return out


def _class_entropy(y, n_classes):
    counts = np.bincount(y, minlength=n_classes).astype(np.float64)
    share = counts[counts > 0] / counts.sum()
    return float(-(share * np.log(share)).sum())


def cmqfs(X, y, k=None, n_threads=1, beta=0.3):
    """CMQFS selection (Zhao et al. 2015, Table 2).

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
    y : ndarray of int32, shape (n_samples,)
        Class codes 0..n_classes-1, at least two classes present.
    k : int or None
        Number of features to select (lambda in the paper); None ranks all.
    n_threads : int
    beta : float in [0, 1]
        Weight of relevance against relevant independency in Eq. 13; 0.3 is the
        paper's setting (section 5.2).

    Returns
    -------
    MethodOutput
        ``scores`` = Q; columns ``Q``, ``NQ``, and for the selected features
        ``step`` (1-based), ``w`` and ``NRI`` at that step (NaN at step 1, which
        takes the largest NQ alone).  Ties in NQ or w go to the lowest column index.
        Constant columns (Q = NaN, NQ = 0) are chosen only after every
        non-constant column.
    """
    entropy_kernel = _entropy
    X = np.asarray(X, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.int32)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"X: has no samples (shape {X.shape}); CMQFS needs a 2-D array with at "
                         "least one sample (row)")
    n_features = X.shape[1]
    n_threads = threads_for_work(X.size, n_threads)
    n_classes = int(y.max()) + 1
    if np.count_nonzero(np.bincount(y, minlength=n_classes)) < 2:
        raise ValueError("y: CMQFS needs at least two classes (the modularity of a single "
                         "community is undefined)")
    k = n_features if k is None else int(k)
    if n_features == 0:
        # No column: an empty ranking (as mim gives), not an error.
        empty = np.empty(0, dtype=np.float64)
        ranking = np.empty(0, dtype=np.intp)
        return MethodOutput(
            ranking=ranking,
            scores=empty,
            columns={"Q": empty, "NQ": empty, "step": empty, "w": empty, "NRI": empty},
            steps={"feature": ranking, "w": empty, "NQ": empty, "NRI": empty, "RI": empty},
            notes=["X has no columns: nothing to rank"],
        )

    q = score_features(modularity_scores, X, n_threads, y, n_classes)  # per column block under joblib
    nq = min_max_normalise(q)
    notes = []
    constant = np.isnan(q)
    if constant.any():
        notes.append(f"{format_count(int(constant.sum()), 'constant column')}: no modularity (Q = NaN), NQ = 0")

    # the codes as bit-planes where the pairs are counted on them (two classes), never both in memory
    codes, levels, planes, prepared = mu_sigma_planes(X, n_classes, n_threads)
    entropy_kernel = _bitcount.counting_kernel(codes, levels, y, n_classes, n_threads, planes, prepared)
    class_entropy = _class_entropy(y, n_classes)

    ranking = [first_maximum(nq)]
    step_w = [np.nan]
    step_nri = [np.nan]
    step_ri = [np.nan]
    remaining = np.ones(n_features, dtype=bool)
    remaining[ranking[0]] = False
    relevant_independency = np.zeros(n_features, dtype=np.float64)
    while len(ranking) < k:
        # Constant columns carry no information: they are candidates only once
        # every informative column has been taken.
        informative = remaining & ~constant
        candidates = np.flatnonzero(informative if informative.any() else remaining).astype(np.intp)
        terms = np.empty(candidates.shape[0], dtype=np.float64)
        entropy_kernel.relevant_independency_terms(codes, levels, y, n_classes, ranking[-1],
                                                   candidates, terms,
                                                   threads_for_work(candidates.shape[0] * X.shape[0],
                                                                    n_threads, greedy_step=True))
        relevant_independency[candidates] += terms / (2.0 * class_entropy)
        nri = min_max_normalise(relevant_independency[candidates])
        w = beta * nq[candidates] + (1.0 - beta) * nri
        best = first_maximum(w)  # lowest column index wins ties
        chosen = int(candidates[best])
        ranking.append(chosen)
        step_w.append(float(w[best]))
        step_nri.append(float(nri[best]))
        step_ri.append(float(relevant_independency[chosen]))
        remaining[chosen] = False

    ranking = np.asarray(ranking, dtype=np.intp)
    step = np.full(n_features, np.nan)
    w_column = np.full(n_features, np.nan)
    nri_column = np.full(n_features, np.nan)
    step[ranking] = np.arange(1, len(ranking) + 1)
    w_column[ranking] = step_w
    nri_column[ranking] = step_nri
    return MethodOutput(
        ranking=ranking,
        scores=q,
        columns={"Q": q, "NQ": nq, "step": step, "w": w_column, "NRI": nri_column},
        steps={"feature": ranking, "w": np.asarray(step_w), "NQ": nq[ranking],
               "NRI": np.asarray(step_nri), "RI": np.asarray(step_ri)},
        notes=notes,
    )


register(MethodSpec(
    name="cmqfs",
    description="Community modularity of the feature vector graph + conditional-MI redundancy",
    function=cmqfs,
    parameters=(
        Parameter("beta", 0.3, "weight of relevance NQ against relevant independency NRI (Eq. 13; "
                  "0.3 in section 5.2)", Constraint("a number in [0, 1]", is_unit_interval, float)),
    ),
    capabilities=frozenset({"supervised", "multiclass", "greedy"}),
    score_name="Q",
    higher_is_better=True,
    reference="Zhao et al. (2015) Neurocomputing 151:376-389",
    criterion="w_r = beta NQ_r + (1 - beta) NRI_r;  NQ = minmax(Q_r),  "
              "NRI = minmax(sum_{s in S} [I(X_r;C|X_s) + I(X_s;C|X_r)] / 2H(C))",
    path_column="w",
    any_layout=True,
))

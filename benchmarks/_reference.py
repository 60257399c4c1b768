"""Brute-force NumPy CMQFS, written from the paper's definitions alone.

Zhao, Wu, Chen, Zhang and Bai (2015), Neurocomputing 151, 376-389.  This module
is the baseline of ``benchmarks/bench_cmqfs.py``: it is deliberately the
obvious O(m^2)-per-feature algorithm and imports nothing from ``fstools``, so
that agreement with :func:`fstools.methods.cmqfs.cmqfs` is an independent check
and the timing ratio compares two different implementations.

* :func:`fvg_modularity` -- the feature vector graph of one feature from the
  full m x m matrix of |x_i - x_j|; row i keeps its p_i - 1 nearest others
  ordered by (distance, row index); the adjacency is symmetrised by union; the
  Newman-Girvan modularity of the class partition is summed from the adjacency.
* :func:`mu_sigma_codes` -- the nine-level mu/sigma discretisation (sigma with
  ddof=1): [mu - sigma/2, mu + sigma/2] -> 0, intervals of width sigma outward
  -> +-1..+-4, truncated at +-4; a constant column is all 0.
* :func:`entropy` / :func:`conditional_mutual_information` -- plug-in estimates
  by counting joint configurations (natural log; the base cancels in RI).
* :func:`relevant_independency` -- RI(X_i, X_j) = [I(X_i;C|X_j) + I(X_j;C|X_i)] / (2 H(C)).
* :func:`cmqfs_reference` -- the greedy loop of the paper's Table 2.

Conventions shared with the method note / library docs (not in the paper):
Q is NaN for a constant column or a graph without edges and such a column gets
NQ = 0; a min-max normalisation whose values are all equal gives all 0; ties
in NQ or w go to the lowest column index.
"""
import numpy as np

__all__ = [
    "fvg_adjacency",
    "fvg_modularity",
    "modularity_scores_reference",
    "mu_sigma_codes",
    "entropy",
    "conditional_mutual_information",
    "relevant_independency",
    "min_max",
    "cmqfs_reference",
]


# --------------------------------------------------------------------------- relevance

def fvg_adjacency(x, y):
    """Boolean m x m adjacency of the feature vector graph of one feature ``x``."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y)
    m = x.shape[0]
    class_size = np.bincount(y)
    distance = np.abs(x[:, None] - x[None, :])
    np.fill_diagonal(distance, np.inf)  # a sample is never its own neighbour
    # Columns are already in index order, so a stable sort on distance orders each
    # row by (distance, index): the lower row index is the nearer one on ties.
    order = np.argsort(distance, axis=1, kind="stable")
    adjacency = np.zeros((m, m), dtype=bool)
    for i in range(m):
        n_neighbours = class_size[y[i]] - 1
        adjacency[i, order[i, :n_neighbours]] = True
    return adjacency | adjacency.T  # edge {i, j} if j in N(i) or i in N(j)


def fvg_modularity(x, y):
    """Newman-Girvan modularity Q of the class partition of the FVG of ``x``.

    Q = sum_c [ l_c / M - (d_c / (2M))^2 ];  NaN for a constant ``x`` or an empty graph.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0 or x.min() == x.max():
        return np.nan
    adjacency = fvg_adjacency(x, y)
    degree = adjacency.sum(axis=1).astype(np.float64)
    n_edges = degree.sum() / 2.0
    if n_edges == 0:
        return np.nan
    q = 0.0
    for c in np.unique(y):
        members = y == c
        within = adjacency[np.ix_(members, members)].sum() / 2.0
        q += within / n_edges - (degree[members].sum() / (2.0 * n_edges)) ** 2
    return q


def modularity_scores_reference(X, y, columns=None):
    """Q of the given columns of ``X`` (all columns by default), one FVG at a time."""
    X = np.asarray(X, dtype=np.float64)
    columns = range(X.shape[1]) if columns is None else columns
    return np.array([fvg_modularity(X[:, r], y) for r in columns], dtype=np.float64)


# --------------------------------------------------------------------------- redundancy

def mu_sigma_codes(x):
    """Nine-level mu/sigma levels -4..4 of one column (sigma with ddof=1)."""
    x = np.asarray(x, dtype=np.float64)
    if x.size < 2 or x.min() == x.max():
        return np.zeros(x.shape, dtype=np.int64)
    mu = x.mean()
    sigma = x.std(ddof=1)
    level = np.zeros(x.shape, dtype=np.int64)
    # Value v is at level +t (t = 1..4) once it is beyond mu + (t - 1/2) sigma, and
    # at level -t once it is below mu - (t - 1/2) sigma; boundaries go to the inner level.
    for t in (0.5, 1.5, 2.5, 3.5):
        level += x > mu + t * sigma
        level -= x < mu - t * sigma
    return level


def _joint_key(*columns):
    """One integer per sample identifying its joint configuration of the given discrete columns."""
    key = np.zeros(columns[0].shape, dtype=np.int64)
    for column in columns:
        _, codes = np.unique(column, return_inverse=True)
        key = key * (codes.max() + 1) + codes
    return key


def entropy(*columns):
    """Plug-in joint entropy H(columns...) in nats, by counting configurations."""
    _, counts = np.unique(_joint_key(*columns), return_counts=True)
    p = counts / counts.sum()
    return float(-(p * np.log(p)).sum())


def conditional_mutual_information(x, c, z):
    """I(X; C | Z) = H(X, Z) + H(C, Z) - H(X, C, Z) - H(Z)."""
    return entropy(x, z) + entropy(c, z) - entropy(x, c, z) - entropy(z)


def relevant_independency(xi, xj, c, class_entropy=None):
    """RI(X_i, X_j) = [I(X_i;C|X_j) + I(X_j;C|X_i)] / (2 H(C))  (Eq. 9)."""
    if class_entropy is None:
        class_entropy = entropy(c)
    return (conditional_mutual_information(xi, c, xj)
            + conditional_mutual_information(xj, c, xi)) / (2.0 * class_entropy)


# --------------------------------------------------------------------------- selection

def min_max(values):
    """(v - min) / (max - min); all 0 when every value is equal; NaN -> 0."""
    values = np.asarray(values, dtype=np.float64)
    out = np.zeros(values.shape)
    finite = np.isfinite(values)
    if finite.any():
        low, high = values[finite].min(), values[finite].max()
        if high > low:
            out[finite] = (values[finite] - low) / (high - low)
    return out


def cmqfs_reference(X, y, k, beta=0.3, q=None, max_steps=None):
    """Greedy CMQFS (paper Table 2) with the brute-force pieces above.

    Parameters
    ----------
    X : array (m, n) of float
    y : array (m,) of int class codes
    k : int, number of features to select
    beta : float, weight of NQ against NRI (Eq. 13)
    q : optional precomputed Q (for timing the greedy loop alone)
    max_steps : optional, stop after this many greedy (RI) steps (for timing)

    Returns
    -------
    dict with ``ranking`` (list of column indices in order of selection), ``Q``,
    ``NQ`` and ``pair_terms`` (the number of RI(X_r, X_s) evaluations made).
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    n = X.shape[1]
    if q is None:
        q = modularity_scores_reference(X, y)
    nq = min_max(q)
    codes = [mu_sigma_codes(X[:, r]) for r in range(n)]
    class_entropy = entropy(y)

    ranking = [int(np.argmax(nq))]  # np.argmax returns the first (lowest) index on ties
    ri_sum = np.zeros(n)
    pair_terms = 0
    steps = 0
    while len(ranking) < k and (max_steps is None or steps < max_steps):
        newest = ranking[-1]
        candidates = [r for r in range(n) if r not in ranking]
        for r in candidates:  # RI_r = sum over s in S of RI(f_r, f_s), one new term per step
            ri_sum[r] += relevant_independency(codes[r], codes[newest], y, class_entropy)
            pair_terms += 1
        nri = min_max(ri_sum[candidates])
        w = beta * nq[candidates] + (1.0 - beta) * nri
        ranking.append(candidates[int(np.argmax(w))])
        steps += 1
    return {"ranking": ranking, "Q": q, "NQ": nq, "pair_terms": pair_terms}

"""The feature vector graph and CMQFS, edge by edge from the definitions.

Zhao, Wu, Chen, Zhang & Bai (2015), "Effective feature selection using feature vector graph for
classification", Neurocomputing 151:

* the feature vector graph (section 4): every sample i sorts all other samples by
  (|x_i - x_j|, j) and links to the first p_i - 1 of them, p_i the size of its class; the
  arcs are symmetrised by union (O(m^2 log m));
* its Newman-Girvan modularity for the class partition, ``Q = sum_c [l_c / M - (d_c / 2M)^2]``
  (Eq. 1-2; Newman & Girvan 2004, "Finding and evaluating community structure in networks",
  Phys. Rev. E 69, Eq. 7);
* CMQFS (Table 2): ``w_r = beta NQ_r + (1 - beta) NRI_r`` with min-max normalised Q (Eq. 11)
  and relevant independency ``[I(X_r;C|X_s) + I(X_s;C|X_r)] / (2 H(C))`` (Eq. 9-10, 12) on the
  nine levels of section 5.2, from the brute-force entropies of :mod:`references.information`.

Conventions of fstools the paper leaves open: constant columns get NQ = 0 and are candidates
only after every other column; min-max normalisation of all-equal values gives 0; ties go to
the lowest column index.  Nothing here imports fstools.
"""
import math
from collections import Counter

import numpy as np

from references.information import conditional_mutual_information_ref, entropy_ref, mu_sigma_levels_ref


def fvg_adjacency_ref(x, y):
    """Boolean adjacency matrix of the feature vector graph of one feature."""
    x = [float(v) for v in x]
    y = list(y)
    m = len(x)
    class_size = Counter(y)
    adjacency = np.zeros((m, m), dtype=bool)
    for i in range(m):
        n_neighbours = class_size[y[i]] - 1
        others = sorted((abs(x[i] - x[j]), j) for j in range(m) if j != i)
        for _, j in others[:n_neighbours]:
            adjacency[i, j] = True
            adjacency[j, i] = True
    return adjacency


def modularity_parts_ref(adjacency, y):
    """(M, l_c, d_c) of an adjacency matrix for the partition given by class codes y (0..C-1)."""
    y = np.asarray(y)
    n_classes = int(y.max()) + 1
    n_edges = int(adjacency.sum()) // 2
    within = np.array([int(adjacency[np.ix_(y == c, y == c)].sum()) // 2 for c in range(n_classes)])
    degree = np.array([int(adjacency[y == c].sum()) for c in range(n_classes)])
    return n_edges, within, degree


def modularity_ref(x, y):
    """Q = sum_c [l_c / M - (d_c / 2M)^2] of the FVG; NaN without edges."""
    n_edges, within, degree = modularity_parts_ref(fvg_adjacency_ref(x, y), y)
    if n_edges == 0:
        return float("nan")
    return float(sum(within[c] / n_edges - (degree[c] / (2 * n_edges)) ** 2 for c in range(len(within))))


def cmqfs_ref(X, y, k, beta=0.3):
    """CMQFS (Table 2 of the paper) from the reference pieces; returns the ranking (column indices).

    Constant columns get NQ = 0 and are candidates only after every other column;
    min-max normalisation of all-equal values gives 0; ties go to the lowest column
    index (the documented rules of fstools).
    """
    X = np.asarray(X, dtype=float)
    y = [int(v) for v in y]
    n_features = X.shape[1]
    q = []
    for j in range(n_features):
        column = X[:, j]
        q.append(float("nan") if len(set(column.tolist())) == 1 else modularity_ref(column, y))

    def normalise(values):
        finite = [v for v in values if not math.isnan(v)]
        low, high = min(finite, default=0.0), max(finite, default=0.0)
        return [0.0 if math.isnan(v) or high == low else (v - low) / (high - low) for v in values]

    def first_of_the_best(values, indices):
        # Lowest index among the values equal to the maximum up to rounding.
        best = max(values)
        return min(i for v, i in zip(values, indices) if v >= best - 1e-12 * max(1.0, abs(best)))

    nq = normalise(q)
    codes = mu_sigma_levels_ref(X)
    class_entropy = entropy_ref(y)
    selected = [first_of_the_best(nq, range(n_features))]
    while len(selected) < k:
        candidates = [j for j in range(n_features) if j not in selected and not math.isnan(q[j])]
        if not candidates:
            candidates = [j for j in range(n_features) if j not in selected]
        ri = []
        for r in candidates:
            total = 0.0
            for s in selected:
                total += (conditional_mutual_information_ref(codes[r], y, codes[s])
                          + conditional_mutual_information_ref(codes[s], y, codes[r])) / (2 * class_entropy)
            ri.append(total)
        nri = normalise(ri)
        w = [beta * nq[r] + (1 - beta) * nri[i] for i, r in enumerate(candidates)]
        selected.append(first_of_the_best(w, candidates))
    return selected

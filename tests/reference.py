"""Slow, obviously-correct reference implementations used by the tests."""


# ---- entropies (reference) ----
# Brute force from the definitions, sharing no code with fstools: counts of
# tuples with collections.Counter, probabilities p = n / m, H = -sum p log p
# (natural log), MI and CMI as sums and differences of those entropies.

import math
from collections import Counter

import numpy as np


def entropy_ref(*variables):
    """Plug-in joint entropy (nats) of one or more equally long code sequences."""
    rows = list(zip(*variables))
    m = len(rows)
    return -sum((n / m) * math.log(n / m) for n in Counter(rows).values())


def mutual_information_ref(x, y):
    """I(X;Y) = H(X) + H(Y) - H(X,Y)."""
    return entropy_ref(x) + entropy_ref(y) - entropy_ref(x, y)


def conditional_mutual_information_ref(x, y, z):
    """I(X;Y|Z) = H(X,Z) + H(Y,Z) - H(X,Y,Z) - H(Z)."""
    return entropy_ref(x, z) + entropy_ref(y, z) - entropy_ref(x, y, z) - entropy_ref(z)


def mu_sigma_level_ref(value, mu, sigma):
    """Level -4..4 of one value, straight from the interval definition (CMQFS section 5.2)."""
    if sigma == 0:
        return 0
    if mu - 0.5 * sigma <= value <= mu + 0.5 * sigma:
        return 0
    elif mu + 0.5 * sigma < value <= mu + 1.5 * sigma:
        return 1
    elif mu + 1.5 * sigma < value <= mu + 2.5 * sigma:
        return 2
    elif mu + 2.5 * sigma < value <= mu + 3.5 * sigma:
        return 3
    elif value > mu + 3.5 * sigma:
        return 4
    elif mu - 1.5 * sigma <= value < mu - 0.5 * sigma:
        return -1
    elif mu - 2.5 * sigma <= value < mu - 1.5 * sigma:
        return -2
    elif mu - 3.5 * sigma <= value < mu - 2.5 * sigma:
        return -3
    elif value < mu - 3.5 * sigma:
        return -4
    raise AssertionError(f"value {value} fell through every interval (mu={mu}, sigma={sigma})")


def mu_sigma_levels_ref(X):
    """Nine-level codes (level + 4) of every column of X, shape (n_features, n_samples).

    mu and sigma are the column's sample mean and standard deviation with
    ddof=1, computed with numpy on the column (the estimators are part of the
    definition; what is brute-forced here is the interval assignment).  A
    column whose values are all equal is level 0.
    """
    X = np.asarray(X, dtype=float)
    codes = []
    for j in range(X.shape[1]):
        column = np.ascontiguousarray(X[:, j])
        if all(v == column[0] for v in column):
            mu, sigma = float(column[0]), 0.0
        else:
            mu, sigma = float(column.mean()), float(column.std(ddof=1))
        codes.append([mu_sigma_level_ref(float(v), mu, sigma) + 4 for v in column])
    return np.array(codes, dtype=np.int32).reshape(X.shape[1], X.shape[0])


# ---- feature vector graph and CMQFS (reference) ----
# The FVG built edge by edge from its definition (Zhao et al. 2015, section 4):
# every sample i sorts all other samples by (|x_i - x_j|, j) and links to the
# first p_i - 1 of them; the arcs are symmetrised by union.  O(m^2 log m).


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

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


# ---- information-theoretic selection (reference) ----
# Greedy forward selection written from the definitions of the criteria
# (MIM, MIFS, MIFS-U, mRMR, JMI, CMIM; see shared/methods/baselines.md) with
# the Counter-based entropies above: at every step J is recomputed for every
# candidate over the whole selected set S (no running sums).  The first pick
# is argmax I(X;C); ties go to the lowest column index among the values within
# 1e-12 (relative, at least absolute 1e-12) of the maximum -- the documented
# rule of fstools.


def information_codes_ref(X, max_levels=32):
    """Codes of every column (list of lists, feature-major) for the mu/sigma scheme.

    A column whose values are all integers, with at most ``max_levels``
    distinct values, keeps its values (the sorted distinct values become
    0..L-1); every other column gets its nine-level code (level + 4).
    """
    X = np.asarray(X, dtype=float)
    nine = mu_sigma_levels_ref(X)
    codes = []
    for j in range(X.shape[1]):
        column = [float(v) for v in X[:, j]]
        distinct = sorted(set(column))
        if all(v == math.floor(v) for v in column) and len(distinct) <= max_levels:
            position = {v: i for i, v in enumerate(distinct)}
            codes.append([position[v] for v in column])
        else:
            codes.append([int(v) for v in nine[j]])
    return codes


def information_criterion_ref(method, candidate, selected, y, beta=1.0):
    """J of one candidate code vector given the code vectors of the selected features.

    With S empty every criterion is I(X_k;C) (the first pick of FEAST; for JMI
    the value fstools reports at step 1).
    """
    relevance = mutual_information_ref(candidate, y)
    if not selected or method == "mim":
        return relevance
    if method == "mifs":
        return relevance - beta * sum(mutual_information_ref(candidate, s) for s in selected)
    if method == "mifs_u":
        total = 0.0
        for s in selected:
            h = entropy_ref(s)
            if h > 0:  # a constant selected feature has I(X_k;X_s) = 0: no term
                total += mutual_information_ref(s, y) / h * mutual_information_ref(candidate, s)
        return relevance - beta * total
    if method == "mrmr":
        return relevance - sum(mutual_information_ref(candidate, s) for s in selected) / len(selected)
    if method == "jmi":
        # the pair (X_k, X_s) as one variable whose values are tuples
        return sum(mutual_information_ref(list(zip(candidate, s)), y) for s in selected)
    if method == "cmim":
        return min([relevance] + [conditional_mutual_information_ref(candidate, y, s) for s in selected])
    raise ValueError(method)


def information_selection_ref(codes, y, k, method, beta=1.0):
    """(ranking, J of the chosen feature at each step) of greedy forward selection."""
    codes = [list(map(int, c)) for c in codes]
    y = [int(v) for v in y]
    n_features = len(codes)
    k = n_features if k is None else k
    selected, values = [], []
    while len(selected) < k:
        candidates = [j for j in range(n_features) if j not in selected]
        scores = [information_criterion_ref(method, codes[j], [codes[s] for s in selected], y, beta)
                  for j in candidates]
        best = max(scores)
        tolerance = 1e-12 * max(1.0, abs(best))
        position = min(i for i, v in enumerate(scores) if v >= best - tolerance)
        selected.append(candidates[position])
        values.append(scores[position])
    return selected, values


# ---- similarity filters (reference) ----
# Fisher score, Laplacian score and ReliefF written from their definitions with
# explicit loops over samples, classes and neighbours (dense matrices where the
# definition uses them), sharing no code with fstools.  Conventions of fstools
# that the definitions leave open: Fisher 0/0 = 0 and x/0 = inf; Laplacian
# 0/0 = NaN; neighbours at equal distance go to the lower sample index;
# ReliefF averages over the neighbours that exist when a class is small.


def _all_equal(values):
    return all(v == values[0] for v in values)


def fisher_score_ref(X, y):
    """F_r = sum_k n_k (mu_kr - mu_r)^2 / sum_k n_k sigma_kr^2 (population variances)."""
    X = np.asarray(X, dtype=float)
    y = [int(v) for v in y]
    n = len(y)
    classes = sorted(set(y))
    scores = []
    for r in range(X.shape[1]):
        column = [float(v) for v in X[:, r]]
        if _all_equal(column):
            scores.append(0.0)
            continue
        mu = sum(column) / n
        between = 0.0
        within = 0.0
        for c in classes:
            members = [column[i] for i in range(n) if y[i] == c]
            n_c = len(members)
            mu_c = sum(members) / n_c
            variance_c = 0.0 if _all_equal(members) else sum((v - mu_c) ** 2 for v in members) / n_c
            between += n_c * (mu_c - mu) ** 2
            within += n_c * variance_c
        scores.append(between / within if within > 0 else (math.inf if between > 0 else 0.0))
    return np.array(scores)


def squared_distance_ref(a, b):
    """||a - b||^2 summed feature by feature."""
    total = 0.0
    for u, v in zip(a, b):
        total += (float(u) - float(v)) ** 2
    return total


def heat_kernel_graph_ref(X, n_neighbors, t):
    """Dense S: i ~ j when i in kNN(j) or j in kNN(i) (ties to the lower index), S_ij = exp(-d^2 / t)."""
    X = np.asarray(X, dtype=float)
    m = X.shape[0]
    distance = [[squared_distance_ref(X[i], X[j]) for j in range(m)] for i in range(m)]
    S = np.zeros((m, m))
    for i in range(m):
        nearest = sorted((distance[i][j], j) for j in range(m) if j != i)[:n_neighbors]
        for d, j in nearest:
            S[i, j] = S[j, i] = math.exp(-d / t)
    return S


def laplacian_score_ref(X, n_neighbors=5, t=1.0):
    """L_r = f~^T L f~ / f~^T D f~, f~ = f - (f^T D 1 / 1^T D 1) 1 (He, Cai, Niyogi 2005); 0/0 = NaN."""
    X = np.asarray(X, dtype=float)
    S = heat_kernel_graph_ref(X, n_neighbors, t)
    ones = np.ones(X.shape[0])
    D = np.diag(S @ ones)
    L = D - S
    scores = []
    for r in range(X.shape[1]):
        f = X[:, r]
        if _all_equal(list(f)):
            scores.append(math.nan)
            continue
        f_tilde = f - (f @ D @ ones) / (ones @ D @ ones) * ones
        scores.append(float(f_tilde @ L @ f_tilde) / float(f_tilde @ D @ f_tilde))
    return np.array(scores)


def relieff_ref(X, y, n_neighbors=10, instances=None):
    """ReliefF weights (Robnik-Sikonja & Kononenko 2003, Fig. 3); returns (W, near_hit, near_miss).

    diff(A, I1, I2) = |I1[A] - I2[A]| / (max A - min A) (0 for a constant A), distance = sum of
    diffs; k nearest hits and k nearest misses per other class, ties to the lower index, averaged
    over the neighbours found; misses weighted by P(C) / (1 - P(class)).
    """
    X = np.asarray(X, dtype=float)
    y = [int(v) for v in y]
    m_all, n_features = X.shape
    span = [float(X[:, a].max() - X[:, a].min()) for a in range(n_features)]

    def diff(a, i, j):
        return 0.0 if span[a] == 0 else abs(float(X[i, a]) - float(X[j, a])) / span[a]

    def distance(i, j):
        return sum(diff(a, i, j) for a in range(n_features))

    prior = {c: y.count(c) / m_all for c in set(y)}
    instances = list(range(m_all)) if instances is None else [int(i) for i in instances]
    near_hit = [0.0] * n_features
    near_miss = [0.0] * n_features
    for i in instances:
        for c in sorted(prior):
            nearest = sorted((distance(i, j), j) for j in range(m_all) if j != i and y[j] == c)[:n_neighbors]
            if not nearest:
                continue
            for a in range(n_features):
                mean_diff = sum(diff(a, i, j) for _, j in nearest) / len(nearest)
                if c == y[i]:
                    near_hit[a] += mean_diff
                else:
                    near_miss[a] += prior[c] / (1 - prior[y[i]]) * mean_diff
    m = len(instances)
    near_hit = np.array(near_hit) / m
    near_miss = np.array(near_miss) / m
    return near_miss - near_hit, near_hit, near_miss

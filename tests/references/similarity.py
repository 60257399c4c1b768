"""Fisher score, Laplacian score, ReliefF and RReliefF with explicit loops over samples, classes and neighbours.

* Fisher score ``F_r = sum_k n_k (mu_kr - mu_r)^2 / sum_k n_k sigma_kr^2`` with population
  variances (Duda, Hart & Stork 2001, "Pattern Classification", 2nd ed., section 3.8.2; Gu, Li
  & Han 2011, "Generalized Fisher score for feature selection", UAI, Eq. 1).
* Laplacian score ``L_r = f~^T L f~ / f~^T D f~`` on the heat-kernel kNN graph (He, Cai &
  Niyogi 2005, "Laplacian score for feature selection", NIPS 18, section 3, steps 1-4), dense
  n x n matrices.
* ReliefF (Robnik-Sikonja & Kononenko 2003, "Theoretical and empirical analysis of ReliefF and
  RReliefF", Machine Learning 53, Fig. 3; Kononenko 1994, "Estimating attributes: analysis and
  extensions of RELIEF", ECML): k nearest hits and misses per class, misses weighted by
  P(C) / (1 - P(class)), diff scaled by the attribute's range.
* RReliefF (Robnik-Sikonja & Kononenko 2003, section 2.3, Fig. 4): the estimates N_dC, N_dA,
  N_dC&dA over the k nearest instances, W = N_dC&dA / N_dC - (N_dA - N_dC&dA) / (m - N_dC),
  with equal or exponentially rank-decaying neighbour weights (Eq. 14-15).

Conventions of fstools that the definitions leave open: Fisher 0/0 = 0 and x/0 = inf;
Laplacian 0/0 = NaN; neighbours at equal distance go to the lower sample index; ReliefF
averages over the neighbours that exist when a class is small.  Nothing here imports fstools.
"""
import math

import numpy as np

from references._common import _all_equal


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


#: The clamp of N_dC in R's CORElearn (a tiny epsilon: the weights are its limit within ~1e-7).
RRELIEFF_EPSILON = 1e-7


def rrelieff_ref(X, y, n_neighbors=10, sigma=None, instances=None, nominal=None):
    """RReliefF weights by the pseudo code of Fig. 4; returns (W, N_dC, N_dA, N_dCdA).

    diff of an attribute or of the response: |a1 - a2| / (max - min) (0 for a constant one);
    distance = sum of the attributes' diffs; the k nearest other instances, ties to the lower
    index; d(i, j) = d1(i, j) / sum_l d1(i, l) with d1 = 1 (equal weights) or
    exp(-(rank / sigma)^2).  A ``nominal`` attribute (level codes): diff 0 if equal, else 1.
    """
    X = np.asarray(X, dtype=float)
    y = [float(v) for v in y]
    n, n_features = X.shape
    span = [float(X[:, a].max() - X[:, a].min()) for a in range(n_features)]
    y_span = max(y) - min(y)
    nominal = [False] * n_features if nominal is None else list(nominal)

    def diff(a, i, j):
        if nominal[a]:
            return 0.0 if X[i, a] == X[j, a] else 1.0
        return 0.0 if span[a] == 0 else abs(float(X[i, a]) - float(X[j, a])) / span[a]

    def distance(i, j):
        return sum(diff(a, i, j) for a in range(n_features))

    instances = list(range(n)) if instances is None else [int(i) for i in instances]
    k = min(n_neighbors, n - 1)
    d1 = [1.0 if sigma is None else math.exp(-((rank + 1) / sigma) ** 2) for rank in range(k)]
    d = [value / sum(d1) for value in d1]
    n_dc = 0.0
    n_da = [0.0] * n_features
    n_dc_da = [0.0] * n_features
    for i in instances:
        nearest = sorted((distance(i, j), j) for j in range(n) if j != i)[:k]
        for rank, (_, j) in enumerate(nearest):
            diff_c = abs(y[i] - y[j]) / y_span
            n_dc += diff_c * d[rank]
            for a in range(n_features):
                n_da[a] += diff(a, i, j) * d[rank]
                n_dc_da[a] += diff_c * diff(a, i, j) * d[rank]
    m = len(instances)
    # N_dC clamped into [epsilon, m - epsilon], as the authors' implementation does (R's CORElearn,
    # estimationReg::CReliefDensity), so that N_dC = 0 or m gives a weight instead of 0 / 0
    clamped = min(max(n_dc, RRELIEFF_EPSILON), m - RRELIEFF_EPSILON)
    weights = [n_dc_da[a] / clamped - (n_da[a] - n_dc_da[a]) / (m - clamped) for a in range(n_features)]
    return np.array(weights), n_dc, np.array(n_da), np.array(n_dc_da)


# ---------------------------------------------------------------------------------------------
# Factors (nominal attributes) and missing values
# ---------------------------------------------------------------------------------------------

def relieff_mixed_ref(X, y, nominal, n_neighbors=10):
    """ReliefF with nominal attributes and missing values (NaN), by the definitions; returns W.

    Nominal attribute: diff = 0 if the values are equal, else 1 (Kononenko 1994, "Estimating
    attributes: analysis and extensions of RELIEF", ECML).  Missing values (Robnik-Sikonja &
    Kononenko 2003, section 2.1): diff = 1 - P(value(I2) | class(I1)) when I1's value is
    missing, 1 - sum_V P(V | class(I1)) P(V | class(I2)) when both are; P from the relative
    frequencies of the known values (all known values for a class with none).  A numeric
    attribute takes the expected range-scaled |difference| to the known values of the class
    (both missing: over all pairs of known values of the two classes), the same expectation
    that gives those formulas for a nominal one.  Distance = sum of diffs; every instance used.
    """
    X = np.asarray(X, dtype=float)
    y = [int(v) for v in y]
    n, n_features = X.shape
    known = [[i for i in range(n) if not math.isnan(X[i, a])] for a in range(n_features)]
    span = [max(X[i, a] for i in known[a]) - min(X[i, a] for i in known[a]) for a in range(n_features)]

    def value_diff(a, u, v):
        if nominal[a]:
            return 0.0 if u == v else 1.0
        return 0.0 if span[a] == 0 else abs(u - v) / span[a]

    def class_values(a, c):
        values = [X[i, a] for i in known[a] if y[i] == c]
        return values or [X[i, a] for i in known[a]]

    def probability(a, value, c):
        values = class_values(a, c)
        return sum(1 for v in values if v == value) / len(values)

    def diff(a, i, j):
        u, v = X[i, a], X[j, a]
        if not math.isnan(u) and not math.isnan(v):
            return value_diff(a, u, v)
        if math.isnan(u) and math.isnan(v):
            if nominal[a]:
                levels = set(class_values(a, y[i])) | set(class_values(a, y[j]))
                return 1.0 - sum(probability(a, level, y[i]) * probability(a, level, y[j]) for level in levels)
            first, second = class_values(a, y[i]), class_values(a, y[j])
            return sum(value_diff(a, p, q) for p in first for q in second) / (len(first) * len(second))
        missing_one, other_value = (i, v) if math.isnan(u) else (j, u)
        if nominal[a]:
            return 1.0 - probability(a, other_value, y[missing_one])
        values = class_values(a, y[missing_one])
        return sum(value_diff(a, other_value, w) for w in values) / len(values)

    def distance(i, j):
        return sum(diff(a, i, j) for a in range(n_features))

    prior = {c: y.count(c) / n for c in set(y)}
    weights = [0.0] * n_features
    for i in range(n):
        for c in sorted(prior):
            nearest = sorted((distance(i, j), j) for j in range(n) if j != i and y[j] == c)[:n_neighbors]
            if not nearest:
                continue
            for a in range(n_features):
                mean_diff = sum(diff(a, i, j) for _, j in nearest) / len(nearest)
                if c == y[i]:
                    weights[a] -= mean_diff
                else:
                    weights[a] += prior[c] / (1 - prior[y[i]]) * mean_diff
    return np.array(weights) / n


def laplacian_block_score_ref(numeric, blocks, n_neighbors=5, t=1.0):
    """Laplacian scores of numeric columns and of factors given as full indicator blocks.

    The graph: squared distance = sum of squared numeric differences + 1 for every factor whose
    levels differ; kNN union, S_ij = exp(-d / t).  A block F (n x levels, all levels) scores
    tr(F~^T L F~) / tr(F~^T D F~) with F~ = F - 1 (1^T D F) / (1^T D 1) (He, Cai & Niyogi 2005,
    with ||f_i - f_j||^2 for (f_i - f_j)^2).  Returns (numeric scores, block scores).
    """
    numeric = np.asarray(numeric, dtype=float)
    m = numeric.shape[0]

    def squared(i, j):
        total = squared_distance_ref(numeric[i], numeric[j])
        for F in blocks:
            total += 0.0 if np.array_equal(F[i], F[j]) else 1.0
        return total

    S = np.zeros((m, m))
    for i in range(m):
        nearest = sorted((squared(i, j), j) for j in range(m) if j != i)[:n_neighbors]
        for d, j in nearest:
            S[i, j] = S[j, i] = math.exp(-d / t)
    ones = np.ones(m)
    D = np.diag(S @ ones)
    L = D - S

    def score(F):
        F_tilde = F - np.outer(ones, (ones @ D @ F) / (ones @ D @ ones))
        return float(np.trace(F_tilde.T @ L @ F_tilde)) / float(np.trace(F_tilde.T @ D @ F_tilde))

    return (np.array([score(numeric[:, [r]]) for r in range(numeric.shape[1])]),
            np.array([score(np.asarray(F, dtype=float)) for F in blocks]))

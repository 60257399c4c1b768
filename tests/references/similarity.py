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


def rrelieff_ref(X, y, n_neighbors=10, sigma=None, instances=None):
    """RReliefF weights by the pseudo code of Fig. 4; returns (W, N_dC, N_dA, N_dCdA).

    diff of an attribute or of the response: |a1 - a2| / (max - min) (0 for a constant one);
    distance = sum of the attributes' diffs; the k nearest other instances, ties to the lower
    index; d(i, j) = d1(i, j) / sum_l d1(i, l) with d1 = 1 (equal weights) or
    exp(-(rank / sigma)^2).
    """
    X = np.asarray(X, dtype=float)
    y = [float(v) for v in y]
    n, n_features = X.shape
    span = [float(X[:, a].max() - X[:, a].min()) for a in range(n_features)]
    y_span = max(y) - min(y)

    def diff(a, i, j):
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
    weights = [n_dc_da[a] / n_dc - (n_da[a] - n_dc_da[a]) / (m - n_dc) for a in range(n_features)]
    return np.array(weights), n_dc, np.array(n_da), np.array(n_dc_da)

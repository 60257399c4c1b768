"""DFS, trace ratio, BAHSIC and the redundancy rate, with dense matrices and explicit loops.

* DFS: Tao, Hou, Nie, Jiao & Yi (2016), "Effective discriminative feature selection with
  nontrivial solution", IEEE TNNLS 27(4), Algorithm 1 with Remarks 1-2: the scatter matrices
  summed sample by sample (Eq. 6-7), the literal generalised eigenproblem
  (gamma D - S_b) a = lambda (S_t + alpha I) a solved in full by scipy.linalg.eigh, the l
  smallest kept, D re-weighted from the row norms; the redundancy rate RED of the same paper
  (Eq. 34) from Pearson's r written with sums.
* Trace ratio: Nie, Xiang, Jia, Zhang & Yan (2008), "Trace ratio criterion for feature
  selection", AAAI: the Fisher-type graph Laplacians L_w = I - W, L_b = W - 11^T / n as n x n
  matrices (section 2) and every k-subset tried.
* BAHSIC: Song, Smola, Gretton, Borgwardt & Bedo (2007), "Supervised feature selection via
  dependence estimation", ICML (Algorithm 1, backward elimination, 10% per step, then one at a
  time) with linear kernels and the unbiased HSIC of the full m x m kernel matrices (Song,
  Smola, Gretton, Bedo & Borgwardt 2012, "Feature selection via dependence maximization", JMLR
  13, the unbiased estimator HSIC_1); the biased tr(KHLH) / (m - 1)^2 of Gretton, Bousquet,
  Smola & Schoelkopf (2005), "Measuring statistical dependence with Hilbert-Schmidt norms", ALT.

Conventions of fstools that the papers leave open: standardisation with ddof = 1, constant
columns left out of DFS (row norm 0).  Nothing here imports fstools.
"""
import itertools
import math

import numpy as np
import scipy.linalg

from references._common import _all_equal, standardize_ref


def standardise_ref(X):
    """Columns minus their mean, divided by their sample sd (ddof = 1); constant columns left at 0."""
    return standardize_ref(X, ddof=1)


def scatter_matrices_ref(Z, y):
    """S_t = sum_i (x_i - mu)(x_i - mu)^T and S_b = sum_k n_k (mu_k - mu)(mu_k - mu)^T (Eq. 6, S_t in III)."""
    Z = np.asarray(Z, dtype=float)
    n, d = Z.shape
    mu = Z.mean(axis=0)
    S_t = np.zeros((d, d))
    for i in range(n):
        S_t += np.outer(Z[i] - mu, Z[i] - mu)
    S_b = np.zeros((d, d))
    for c in sorted(set(int(v) for v in y)):
        members = Z[np.asarray(y) == c]
        S_b += members.shape[0] * np.outer(members.mean(axis=0) - mu, members.mean(axis=0) - mu)
    return S_t, S_b


def dfs_ref(X, y, gamma=1.0, p=1.0, n_components=None, alpha=1.0, zeta=1e-12, n_iterations=5,
            standardize=True):
    """Algorithm 1 with Remarks 1-2, ``n_iterations`` times; returns a dict of per-iteration lists.

    ``row_norms`` (full length, 0 for constant columns), ``objective``, ``divergence``
    (Eq. 33 between consecutive A; NaN first), ``eigenvalues`` (the l smallest), ``A``.
    """
    X = np.asarray(X, dtype=float)
    varying = [j for j in range(X.shape[1]) if not _all_equal(list(X[:, j]))]
    Z = standardise_ref(X)[:, varying] if standardize else (X - X.mean(axis=0))[:, varying]
    S_t, S_b = scatter_matrices_ref(Z, y)
    d = Z.shape[1]
    l = len(set(int(v) for v in y)) - 1 if n_components is None else n_components
    M = S_t + alpha * np.eye(d)
    D = np.eye(d)
    out = {"row_norms": [], "objective": [], "divergence": [], "eigenvalues": [], "A": []}
    previous = None
    for _ in range(n_iterations):
        values, vectors = scipy.linalg.eigh(gamma * D - S_b, M)        # ascending, V^T M V = I
        A = vectors[:, :l]
        norms = [math.sqrt(sum(A[i, j] ** 2 for j in range(l))) for i in range(d)]
        objective = -np.trace(A.T @ S_b @ A) + gamma * sum((r * r + zeta) ** (p / 2) for r in norms)
        full = np.zeros(X.shape[1])
        full[varying] = norms
        out["row_norms"].append(full)
        out["objective"].append(float(objective))
        out["divergence"].append(math.nan if previous is None else sum(abs(a - b) for a, b in zip(norms, previous)))
        out["eigenvalues"].append(values[:l])
        out["A"].append(A)
        D = np.diag([(p / 2) * (r * r + zeta) ** (p / 2 - 1) for r in norms])
        previous = norms
    return out


def trace_ratio_weights_ref(X, y):
    """diag(X^T L_b X), diag(X^T L_w X) with W_ij = 1/n_c (same class c), L_w = I - W, L_b = W - 11^T/n."""
    X = np.asarray(X, dtype=float)
    y = [int(v) for v in y]
    n = len(y)
    W = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if y[i] == y[j]:
                W[i, j] = 1.0 / y.count(y[i])
    L_w = np.eye(n) - W
    L_b = W - np.ones((n, n)) / n
    between = np.array([X[:, r] @ L_b @ X[:, r] for r in range(X.shape[1])])
    within = np.array([X[:, r] @ L_w @ X[:, r] for r in range(X.shape[1])])
    return between, within


def trace_ratio_ref(X, y, k):
    """The k-subset with the largest sum(between) / sum(within), by trying every subset.

    Returns (sorted subset, ratio).  Ties: the lexicographically first subset.
    """
    between, within = trace_ratio_weights_ref(X, y)
    best, best_ratio = None, -math.inf
    for subset in itertools.combinations(range(len(between)), k):
        w = sum(within[j] for j in subset)
        b = sum(between[j] for j in subset)
        ratio = math.inf if w == 0 and b > 0 else (b / w if w > 0 else 0.0)
        if ratio > best_ratio:
            best, best_ratio = subset, ratio
    return list(best), best_ratio


def unbiased_hsic_ref(K, L):
    """The unbiased HSIC_1 of Song et al. (2007) from full kernel matrices (diagonals set to 0 here)."""
    K = np.array(K, dtype=float)
    L = np.array(L, dtype=float)
    m = K.shape[0]
    np.fill_diagonal(K, 0.0)
    np.fill_diagonal(L, 0.0)
    one = np.ones(m)
    return (np.trace(K @ L) + (one @ K @ one) * (one @ L @ one) / ((m - 1) * (m - 2))
            - 2.0 / (m - 2) * (one @ K @ L @ one)) / (m * (m - 3))


def biased_hsic_ref(K, L):
    """tr(K H L H) / (m - 1)^2 (Gretton et al. 2005)."""
    m = K.shape[0]
    H = np.eye(m) - np.ones((m, m)) / m
    return float(np.trace(K @ H @ L @ H)) / (m - 1) ** 2


def label_kernel_ref(y):
    """Two classes: the authors' y_i = 1/m_+ or -1/m_- (class 1 positive), L = y y^T.
    More classes: L = Y Y^T with Y_ic = 1/n_c."""
    y = [int(v) for v in y]
    classes = sorted(set(y))
    if len(classes) == 2:
        positive = y.count(classes[1])
        negative = y.count(classes[0])
        v = np.array([1.0 / positive if c == classes[1] else -1.0 / negative for c in y])
        return np.outer(v, v)
    Y = np.array([[1.0 / y.count(c) if label == c else 0.0 for c in classes] for label in y])
    return Y @ Y.T


def squared_distances_ref(Z):
    """||z_i - z_l||^2 for every pair, by explicit loops."""
    Z = np.asarray(Z, dtype=float).reshape(len(Z), -1)
    m = Z.shape[0]
    return np.array([[float(sum((Z[i, a] - Z[l, a]) ** 2 for a in range(Z.shape[1]))) for l in range(m)]
                     for i in range(m)])


def rbf_width_ref(D):
    """2 sigma^2 by the median heuristic: twice the median squared distance over the pairs i < l (the
    mean of the positive ones if that median is 0)."""
    m = D.shape[0]
    pairs = sorted(D[i, l] for i in range(m) for l in range(i + 1, m))
    middle = (pairs[(len(pairs) - 1) // 2] + pairs[len(pairs) // 2]) / 2
    if middle <= 0:
        positive = [v for v in pairs if v > 0]
        middle = sum(positive) / len(positive) if positive else 0.5
    return 2 * middle


def rbf_kernel_ref(Z):
    """exp(-||z_i - z_l||^2 / (2 sigma^2)), sigma by the median heuristic (:func:`rbf_width_ref`)."""
    D = squared_distances_ref(Z)
    return np.exp(-D / rbf_width_ref(D))


def bahsic_ref(X, y, n_keep=1, fraction=0.1, estimator="unbiased", L=None, kernel="linear"):
    """The authors' BAHSICRaw with linear kernels: returns the ranking (best first).

    While more than ``n_keep`` features remain, remove int(fraction m) + 1 of them (never going
    below n_keep), those whose removal leaves the largest HSIC; then one at a time.  The
    ranking is the elimination order reversed.  ``kernel="rbf"``: :func:`rbf_kernel_ref` of the
    remaining features, its width from the features remaining at the start of the step.
    """
    X = np.asarray(X, dtype=float)
    L = label_kernel_ref(y) if L is None else L
    hsic = unbiased_hsic_ref if estimator == "unbiased" else biased_hsic_ref
    remaining = list(range(X.shape[1]))
    eliminated = []
    while remaining:
        m = len(remaining)
        if m == 1:
            eliminated.append(remaining.pop())
            break
        left = []
        if kernel == "rbf":
            two_sigma2 = rbf_width_ref(squared_distances_ref(X[:, remaining]))
        for j in remaining:
            rest = [i for i in remaining if i != j]
            if kernel == "rbf":
                left.append(hsic(np.exp(-squared_distances_ref(X[:, rest]) / two_sigma2), L))
            else:
                left.append(hsic(X[:, rest] @ X[:, rest].T, L))
        order = sorted(range(m), key=lambda i: -left[i])      # largest remaining HSIC first
        if m > n_keep:
            count = int(fraction * m) + 1
            if m - count <= n_keep:
                count = m - n_keep
        else:
            count = 1
        batch = [remaining[i] for i in order[:count]]
        eliminated.extend(batch)
        remaining = [j for j in remaining if j not in batch]
    return eliminated[::-1]


def redundancy_rate_ref(X, columns, absolute=True):
    """Eq. 34: 1 / (|F| (|F| - 1)) sum_{i > j} corr(f_i, f_j), Pearson's r from sums."""
    X = np.asarray(X, dtype=float)
    m = len(columns)
    n = X.shape[0]
    total = 0.0
    for a in range(m):
        for b in range(a):
            u = [float(v) for v in X[:, columns[a]]]
            v = [float(w) for w in X[:, columns[b]]]
            mu_u, mu_v = sum(u) / n, sum(v) / n
            cov = sum((p - mu_u) * (q - mu_v) for p, q in zip(u, v))
            r = cov / math.sqrt(sum((p - mu_u) ** 2 for p in u) * sum((q - mu_v) ** 2 for q in v))
            total += abs(r) if absolute else r
    return total / (m * (m - 1))

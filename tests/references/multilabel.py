"""Multi-label selection and evaluation: literal transcriptions with loops and full matrices.

* ELC: Wang, Xu, Wei, Zhang & Ma (2020), "An effective multi-label feature selection model
  towards eliminating noisy features", Applied Sciences 10(22), 8093: the label RBF of
  Appendix B, Gamma* = n Phi Sigma^(1/2) (section 4), Algorithm 1 (Eq. 7-15) with diag(p) as a
  d x d matrix and one l x l matrix per feature in Eq. 14, the residual redundancy and residual
  label correlation of Eq. 16-17; and the authors' published code statement by statement.
* LLSF: Huang, Li, Huang & Wu (2016), "Learning label-specific features and class-dependent
  labels for multi-label classification", IEEE TKDE 28(12): the objective of Eq. 4 with
  R = 1 - cosine similarity of the label columns, solved by the accelerated proximal gradient
  of Algorithm 1 (ridge start, Lipschitz constant sqrt(2 (||X^T X||^2 + ||alpha R||^2)),
  soft thresholding at beta / L).
* The per-label baselines: the two-class Fisher score (Gu, Li & Han 2011, "Generalized Fisher
  score for feature selection", UAI, Eq. 1) and the plug-in mutual information of every feature
  with every label, averaged over the labels (from :mod:`references.similarity` and
  :mod:`references.information`).
* ML-MIFS: Jian, Li, Shu & Liu (2016), "Multi-label informed feature selection", IJCAI, the
  objective of section 3 minimised block by block (W by reweighting, V by its Kronecker-form
  linear system, B by the normal equations), graph of the ELC paper's Appendix B.
* CMFS: Braytee, Liu, Catchpoole & Kennedy (2017), "Multi-label feature selection using correlation
  information", CIKM: the non-negative factorisation by multiplicative updates, entry by entry.
* Multi-label metrics: Zhang & Zhou (2014), "A review on multi-label learning algorithms", IEEE
  TKDE 26(8), section 2.2 (hamming loss, one-error, ranking loss, average precision, macro AUC).
* ML-kNN: Zhang & Zhou (2007), "ML-KNN: a lazy learning approach to multi-label learning",
  Pattern Recognition 40(7), Fig. 1.

Nothing here imports fstools.
"""
import math

import numpy as np

from references._common import standardize_ref
import scipy.linalg
from sklearn.cluster import KMeans

from references.information import information_codes_ref, mutual_information_ref
from references.similarity import fisher_score_ref


def pearson_ref(u, v):
    """Pearson's r from sums; 0 when either vector is constant."""
    u = [float(a) for a in u]
    v = [float(b) for b in v]
    n = len(u)
    mu_u, mu_v = sum(u) / n, sum(v) / n
    su = sum((a - mu_u) ** 2 for a in u)
    sv = sum((b - mu_v) ** 2 for b in v)
    if su == 0 or sv == 0:
        return 0.0
    return sum((a - mu_u) * (b - mu_v) for a, b in zip(u, v)) / math.sqrt(su * sv)


def label_rbf_ref(Y):
    """Appendix B: S_ij = exp(-||y_i - y_j||^2 / (2 delta'^2)) if <y_i, y_j> != 0 else 0, label columns y_i,
    delta'^2 = mean(||y_i - y_j||^2) over i, j = 1..l."""
    Y = np.asarray(Y, dtype=float)
    l = Y.shape[1]
    squared = [[float(np.sum((Y[:, i] - Y[:, j]) ** 2)) for j in range(l)] for i in range(l)]
    delta2 = sum(sum(row) for row in squared) / (l * l)
    S = np.zeros((l, l))
    for i in range(l):
        for j in range(l):
            if float(Y[:, i] @ Y[:, j]) != 0:
                S[i, j] = math.exp(-squared[i][j] / (2 * delta2))
    return S


def label_code_ref(Y):
    """The authors' code: exp(-D) / (2 dbar), D plain Euclidean distances of the label columns, no mask."""
    Y = np.asarray(Y, dtype=float)
    l = Y.shape[1]
    D = np.array([[math.sqrt(float(np.sum((Y[:, i] - Y[:, j]) ** 2))) for j in range(l)] for i in range(l)])
    return np.exp(-D) / (2 * D.mean())


def gamma_star_ref(S, n):
    """Gamma* = n Phi Sigma^(1/2), eigenvalues decreasing, negative ones 0, each eigenvector signed so that
    its largest-|.| entry is positive."""
    values, vectors = np.linalg.eigh(S)
    order = sorted(range(len(values)), key=lambda i: -values[i])
    gamma = np.zeros_like(S)
    for column, i in enumerate(order):
        vector = vectors[:, i].copy()
        biggest = max(range(len(vector)), key=lambda r: (abs(vector[r]), -r))
        if vector[biggest] < 0:
            vector = -vector
        gamma[:, column] = n * vector * math.sqrt(max(values[i], 0.0))
    return gamma


def _k_smallest_ref(values, k):
    return sorted(sorted(range(len(values)), key=lambda i: (values[i], i))[:k])


def elc_ref(X, Y, k, lam=1e-3, beta=1e8, tau="paper", max_iter=1000, tol=1e-4, sign=-1.0, gradient="selected"):
    """Algorithm 1 of the ELC paper, literally (data without constant columns).

    sign = -1: u_i = shrink(w_i - v_i / beta) (from Eq. 5-6); +1: as Eq. 7-9 print it.
    tau: 'paper' (spectral radius of A^T A, then 1 / max_i ||psi_i||), 'lipschitz' (1 / rho) or a number.
    gradient: 'selected' (Omega = P A^T (A P W - G), as printed) or 'all' (Omega = A^T (A P W - G)).
    """
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    n, d = X.shape
    Z = standardize_ref(X)
    S = label_rbf_ref(Y)
    G = gamma_star_ref(S, n)
    A = Y.T @ Z
    alone = [float(np.sum((np.outer(A[:, i], A[:, i]) / n ** 2 - S) ** 2)) for i in range(d)]
    p = _k_smallest_ref(alone, k)
    W = np.zeros((d, Y.shape[1]))
    V = np.ones((d, Y.shape[1])) / d
    rho = max(np.linalg.eigvalsh(A.T @ A))
    t_value = rho if tau == "paper" else (1 / rho if tau == "lipschitz" else float(tau))
    records = {"objective": [], "relaxed_objective": [], "w_change": [], "tau": [], "p": [list(p)]}
    for _ in range(max_iter):
        U = np.zeros_like(W)
        for i in range(d):
            z = W[i] + sign * V[i] / beta
            norm = math.sqrt(float(z @ z))
            if norm > 0:
                U[i] = max(norm - lam / beta, 0.0) * z / norm
        P = np.diag([1.0 if i in p else 0.0 for i in range(d)])
        Omega = (P if gradient == "selected" else np.eye(d)) @ A.T @ (A @ P @ W - G)
        W_new = t_value / (beta * t_value + 1) * (beta * U + V + (W - t_value * Omega) / t_value)
        residual = [float(np.sum((np.outer(Y.T @ Z[:, i], W_new[i]) - G) ** 2)) for i in range(d)]
        p = _k_smallest_ref(residual, k)
        V = V - beta * (W_new - U)
        change = math.sqrt(float(np.sum((W_new - W) ** 2)))
        Z_F = Z[:, p]
        records["objective"].append(0.5 * float(np.sum((Y.T @ Z_F @ Z_F.T @ Y / n ** 2 - S) ** 2)))
        P = np.diag([1.0 if i in p else 0.0 for i in range(d)])
        records["relaxed_objective"].append(0.5 * float(np.sum((A @ P @ W_new - G) ** 2))
                                            + lam * sum(math.sqrt(float(w @ w)) for w in W_new))
        records["w_change"].append(change)
        records["tau"].append(t_value)
        records["p"].append(list(p))
        W = W_new
        if tau == "paper":
            Psi = A.T @ A @ V
            t_value = 1.0 / max(math.sqrt(float(row @ row)) for row in Psi)
        if change <= tol:
            break
    return {"selected": p, "W": W, "residual": residual, "alone": alone, "S": S, "gamma": G, **records}


def hamming_loss_ref(Y, P):
    """1/n sum_i |h(x_i) symmetric-difference Y_i| / l."""
    n, l = len(Y), len(Y[0])
    return sum(sum(1 for j in range(l) if Y[i][j] != P[i][j]) / l for i in range(n)) / n


def _degenerate_ref(row):
    return sum(row) == 0 or sum(row) == len(row)


def one_error_ref(Y, F, skip_degenerate=True):
    """1/n sum_i [argmax_y f(x_i, y) not in Y_i]; the first maximum wins ties."""
    errors = []
    for row, scores in zip(Y, F):
        if skip_degenerate and _degenerate_ref(row):
            continue
        top = 0
        for j in range(len(scores)):
            if scores[j] > scores[top]:
                top = j
        errors.append(0.0 if row[top] == 1 else 1.0)
    return sum(errors) / len(errors) if errors else float("nan")


def ranking_loss_ref(Y, F, skip_degenerate=True):
    """1/n sum_i |{(y', y'') in Y_i x Ybar_i : f(y') <= f(y'')}| / (|Y_i| |Ybar_i|); degenerate rows 0 or skipped."""
    losses = []
    for row, scores in zip(Y, F):
        if _degenerate_ref(row):
            if not skip_degenerate:
                losses.append(0.0)
            continue
        relevant = [j for j in range(len(row)) if row[j] == 1]
        irrelevant = [j for j in range(len(row)) if row[j] == 0]
        wrong = sum(1 for a in relevant for b in irrelevant if scores[a] <= scores[b])
        losses.append(wrong / (len(relevant) * len(irrelevant)))
    return sum(losses) / len(losses) if losses else float("nan")


def average_precision_ref(Y, F, skip_degenerate=True):
    """1/n sum_i 1/|Y_i| sum_{y in Y_i} |{y' in Y_i: rank(y') <= rank(y)}| / rank(y),
    rank(y) = |{y'': f(y'') >= f(y)}|; degenerate rows 1 or skipped."""
    values = []
    for row, scores in zip(Y, F):
        if _degenerate_ref(row):
            if not skip_degenerate:
                values.append(1.0)
            continue
        l = len(row)
        rank = [sum(1 for m in range(l) if scores[m] >= scores[j]) for j in range(l)]
        relevant = [j for j in range(l) if row[j] == 1]
        values.append(sum(sum(1 for a in relevant if rank[a] <= rank[j]) / rank[j] for j in relevant)
                      / len(relevant))
    return sum(values) / len(values) if values else float("nan")


def macro_auc_ref(Y, F):
    """Mean over labels with both values of |{(x+, x-): f(x+) > f(x-)}| (+ 1/2 per tie) / (|P| |N|)."""
    n, l = len(Y), len(Y[0])
    aucs = []
    for j in range(l):
        positive = [F[i][j] for i in range(n) if Y[i][j] == 1]
        negative = [F[i][j] for i in range(n) if Y[i][j] == 0]
        if not positive or not negative:
            continue
        wins = sum(1.0 if a > b else (0.5 if a == b else 0.0) for a in positive for b in negative)
        aucs.append(wins / (len(positive) * len(negative)))
    return sum(aucs) / len(aucs) if aucs else float("nan")


def residual_redundancy_ref(X, Y, columns):
    """Eq. 16: 1 / (k'(k'-1) l) sum_{i != j in F} sum_c rho(f_i, y_c)^2 rho(f_j, y_c)^2."""
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    k, l = len(columns), Y.shape[1]
    total = 0.0
    for a in columns:
        for b in columns:
            if a == b:
                continue
            for c in range(l):
                total += pearson_ref(X[:, a], Y[:, c]) ** 2 * pearson_ref(X[:, b], Y[:, c]) ** 2
    return total / (k * (k - 1) * l)


def residual_label_correlation_ref(X, Y, columns, S=None):
    """Eq. 17: 1 / (k'(k'-1)) ||(1/n^2) Y^T X_F X_F^T Y - S||_F with unit-variance features."""
    Z = standardize_ref(np.asarray(X, dtype=float)[:, columns])
    Y = np.asarray(Y, dtype=float)
    n, k = Z.shape
    if S is None:
        S = label_rbf_ref(Y)
    M = Y.T @ Z @ Z.T @ Y / n ** 2 - S
    return math.sqrt(float(np.sum(M * M))) / (k * (k - 1))


def mlknn_ref(X_train, Y_train, X_test, k=10, s=1.0):
    """ML-kNN (Zhang & Zhou 2007, Fig. 1) with loops: (posteriors, predictions) for X_test.

    Neighbours by squared Euclidean distance, ties to the lower training index; a training instance
    is not its own neighbour; prediction 1 when P(H1) P(E|H1) >= P(H0) P(E|H0)."""
    X_train = np.asarray(X_train, dtype=float)
    Y_train = np.asarray(Y_train, dtype=int)
    m, q = Y_train.shape

    def neighbours(x, exclude=None):
        distances = [(float(np.sum((x - X_train[i]) ** 2)), i) for i in range(m) if i != exclude]
        return [i for _, i in sorted(distances)[:k]]

    prior = [(s + sum(Y_train[i][j] for i in range(m))) / (s * 2 + m) for j in range(q)]
    c_true = [[0] * (k + 1) for _ in range(q)]
    c_false = [[0] * (k + 1) for _ in range(q)]
    for i in range(m):
        near = neighbours(X_train[i], exclude=i)
        for j in range(q):
            delta = sum(Y_train[a][j] for a in near)
            if Y_train[i][j] == 1:
                c_true[j][delta] += 1
            else:
                c_false[j][delta] += 1
    like_true = [[(s + c_true[j][c]) / (s * (k + 1) + sum(c_true[j])) for c in range(k + 1)] for j in range(q)]
    like_false = [[(s + c_false[j][c]) / (s * (k + 1) + sum(c_false[j])) for c in range(k + 1)] for j in range(q)]
    posteriors, predictions = [], []
    for x in np.asarray(X_test, dtype=float):
        near = neighbours(x)
        row_p, row_y = [], []
        for j in range(q):
            c = sum(Y_train[a][j] for a in near)
            yes = prior[j] * like_true[j][c]
            no = (1 - prior[j]) * like_false[j][c]
            row_p.append(yes / (yes + no))
            row_y.append(1 if yes >= no else 0)
        posteriors.append(row_p)
        predictions.append(row_y)
    return np.array(posteriors), np.array(predictions)


def elc_code_ref(X, Y, k, lam=1e-3, beta=1e8, tmax=1000, ed=1e-4):
    """The authors' published ELC.m, statement by statement (0-based indices; Gamma*'s eigenvector
    signs by gamma_star_ref's rule).  Returns (selected indices ascending, loop count t, final W)."""
    Y = np.asarray(Y, dtype=float)
    data = standardize_ref(X, ddof=1)
    n, m = data.shape
    SC = label_code_ref(Y)
    T = gamma_star_ref(SC, n)
    r = []
    for i in range(m):
        CC = (data[:, i] @ Y / n)[None, :]
        D = CC.T @ CC - SC
        r.append(float(np.trace(D @ D.T)))
    INX = sorted(range(m), key=lambda i: (r[i], i))
    A = Y.T @ data
    Wt1 = np.zeros((m, Y.shape[1]))
    Wt = np.zeros((m, Y.shape[1]))
    Vt = np.ones((m, Y.shape[1])) / m
    pt = np.zeros(m)
    pt[INX[:k]] = 1
    tao = 1 / max(abs(np.linalg.eigvals(A.T @ A)))
    t = 0
    while t <= tmax:
        if np.linalg.norm(Wt1 - Wt, 2) <= ed and t > 1:
            break
        Wt = Wt1
        Zt = Wt + Vt / beta
        theta = np.linalg.norm(Zt, 2) - lam / beta
        Ut1 = max(theta, 0) * Zt / np.linalg.norm(Zt, 2)
        Omega = np.diag(pt) @ A.T @ (A @ np.diag(pt) @ Wt - T)
        Wt1 = (tao / (beta * tao + 1)) * (beta * Ut1 + Vt + (Wt - tao * Omega) / tao)
        rt = []
        for jj in range(m):
            x = np.outer(Y.T @ data[:, jj], Wt1[jj, :]) - T
            rt.append(float(np.trace(x @ x.T)))
        order = sorted(range(m), key=lambda i: (rt[i], i))
        pt = np.zeros(m)
        pt[order[:k]] = 1
        Vt = Vt - beta * (Wt1 - Ut1)
        t = t + 1
        tao = 1 / np.linalg.norm((A.T @ A @ Vt).max(axis=0), 2)
    return sorted(int(i) for i in np.flatnonzero(pt)), t, Wt1


def ml_fisher_ref(X, Y):
    """The two-class Fisher score of every feature with every label, averaged over the labels."""
    Y = np.asarray(Y)
    return np.mean([fisher_score_ref(X, Y[:, c]) for c in range(Y.shape[1])], axis=0)


def ml_mi_ref(X, Y):
    """I(X_i; y_c) in nats of every feature code vector (``information_codes_ref``) with every label, averaged."""
    Y = np.asarray(Y)
    codes = information_codes_ref(X)
    return np.array([sum(mutual_information_ref(code, [int(v) for v in Y[:, c]]) for c in range(Y.shape[1]))
                     / Y.shape[1] for code in codes])


def llsf_ref(X, Y, alpha=2.0 ** -5, beta=2.0 ** -3, gamma=0.1, n_iterations=100, standardize=True):
    """LLSF (Huang, Li, Huang & Wu 2016): Algorithm 1, ``n_iterations`` times; returns (W, objectives).

    min_W 1/2 ||X W - Y||_F^2 + alpha/2 tr(R W^T W) + beta ||W||_1 (Eq. 4), R_ij = 1 - cos(y_i, y_j)
    of the label columns (0 on the diagonal).  W_0 = W_1 = (X^T X + gamma I)^-1 X^T Y; every step
    extrapolates W_t + (b_{t-1} - 1) / b_t (W_t - W_{t-1}), takes a gradient step 1 / L_f with
    L_f = sqrt(2 (||X^T X||_2^2 + ||alpha R||_2^2)) and soft-thresholds each entry at beta / L_f;
    b_{t+1} = (1 + sqrt(1 + 4 b_t^2)) / 2.  Columns standardised first (population sd, constant 0).
    """
    X = standardize_ref(X) if standardize else np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    d, l = X.shape[1], Y.shape[1]
    R = np.zeros((l, l))
    for i in range(l):
        for j in range(l):
            if i != j:
                cosine = float(Y[:, i] @ Y[:, j]) / math.sqrt(float(Y[:, i] @ Y[:, i]) * float(Y[:, j] @ Y[:, j]))
                R[i, j] = 1.0 - cosine
    XtX = X.T @ X
    XtY = X.T @ Y
    W = scipy.linalg.solve(XtX + gamma * np.eye(d), XtY)
    W_previous = W.copy()
    lipschitz = math.sqrt(2.0 * (np.linalg.norm(XtX, 2) ** 2 + np.linalg.norm(alpha * R, 2) ** 2))
    b, b_previous = 1.0, 1.0

    def objective(M):
        return (0.5 * float(np.sum((X @ M - Y) ** 2)) + 0.5 * alpha * float(np.trace(R @ M.T @ M))
                + beta * float(np.sum(np.abs(M))))

    objectives = []
    for _ in range(n_iterations):
        V = W + (b_previous - 1.0) / b * (W - W_previous)
        G = V - (XtX @ V - XtY + alpha * V @ R) / lipschitz
        W_next = np.zeros_like(G)
        for i in range(d):
            for j in range(l):
                W_next[i, j] = math.copysign(max(abs(G[i, j]) - beta / lipschitz, 0.0), G[i, j])
        b_previous, b = b, (1.0 + math.sqrt(1.0 + 4.0 * b * b)) / 2.0
        W_previous, W = W, W_next
        objectives.append(objective(W))
    return W, objectives


# --------------------------------------------------------------------------
# ML-MIFS (Jian, Li, Shu & Liu 2016) and CMFS (Braytee, Liu, Catchpoole & Kennedy 2017)
# --------------------------------------------------------------------------

LATENT_EPS = 1e-12


def _pairwise_squared_ref(Z):
    n = Z.shape[0]
    return [[sum((float(Z[i, f]) - float(Z[j, f])) ** 2 for f in range(Z.shape[1])) for j in range(n)]
            for i in range(n)]


def _mean_ref(squared):
    n = len(squared)
    return sum(sum(row) for row in squared) / (n * n)


def knn_heat_graph_ref(Z, p=5):
    """K_ij = exp(-||z_i - z_j||^2 / (2 delta^2)) if z_i is among the p nearest other samples of z_j or z_j
    among those of z_i (ties to the lower index), delta^2 = mean ||z_i - z_j||^2 over all i, j (ELC paper,
    Appendix B, "the affinity graph in MIFS")."""
    squared = _pairwise_squared_ref(Z)
    n = len(squared)
    delta2 = _mean_ref(squared)
    width = 2 * delta2 if delta2 > 0 else 1.0
    near = [sorted((j for j in range(n) if j != i), key=lambda j: (squared[i][j], j))[:min(p, n - 1)]
            for i in range(n)]
    K = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j and (j in near[i] or i in near[j]):
                K[i, j] = math.exp(-squared[i][j] / width)
    return K


def same_labels_graph_ref(Z, Y):
    """K_ij = exp(-||z_i - z_j||^2 / (2 delta^2)) if i != j and y_i = y_j (the whole label vector), else 0
    (ELC paper, Appendix B, "the instance similarity matrix in SPFS and CMFS")."""
    squared = _pairwise_squared_ref(Z)
    n = len(squared)
    delta2 = _mean_ref(squared)
    width = 2 * delta2 if delta2 > 0 else 1.0
    K = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j and all(int(a) == int(b) for a, b in zip(Y[i], Y[j])):
                K[i, j] = math.exp(-squared[i][j] / width)
    return K


def latent_objective_ref(Z, W, V, B, Y, L, alpha, beta, gamma):
    """||Z W - V||_F^2 + alpha ||Y - V B||_F^2 + beta tr(V^T L V) + gamma sum_i sqrt(||w_i||^2 + eps)."""
    penalty = sum(math.sqrt(sum(float(w) ** 2 for w in row) + LATENT_EPS) for row in W)
    return (float(np.trace((Z @ W - V).T @ (Z @ W - V))) + alpha * float(np.trace((Y - V @ B).T @ (Y - V @ B)))
            + beta * float(np.trace(V.T @ L @ V)) + gamma * penalty)


def _reweighting_ref(W):
    """D_ii = 1 / (2 sqrt(||w_i||^2 + eps)) (Nie, Huang, Cai & Ding 2010)."""
    return np.diag([1.0 / (2.0 * math.sqrt(sum(float(w) ** 2 for w in row) + LATENT_EPS)) for row in W])


def ml_mifs_ref(X, Y, alpha=1.0, beta=1.0, gamma=1.0, latent_dim=None, p=5, n_iterations=100, random_state=0):
    """ML-MIFS: min ||X W - V||^2 + alpha ||Y - V B||^2 + beta tr(V^T L V) + gamma ||W||_{2,1}, block by block;
    returns (W, objectives).

    Columns z-scored (population sd, constants 0); L = diag(K 1) - K with K of knn_heat_graph_ref.  Start: k-means
    of the label vectors (scikit-learn, c clusters, n_init = 10, random_state) gives V (0/1 indicators) and B (the
    centroids); W_0 = (Z^T Z + gamma I)^-1 Z^T V.  Each iteration, with the others fixed:
    W = (Z^T Z + gamma D)^-1 Z^T V, D from the previous W (dense inverse);
    V: the stationarity condition (I + beta L) V + alpha V B B^T = Z W + alpha Y B^T, written as one
    (n c) x (n c) linear system on vec(V) with Kronecker products;
    B = (V^T V)^-1 V^T Y (normal equations).
    """
    Z = standardize_ref(X)
    Y = np.asarray(Y, dtype=float)
    n, d = Z.shape
    l = Y.shape[1]
    c = math.ceil(l / 2) if latent_dim is None else int(latent_dim)
    K = knn_heat_graph_ref(Z, p)
    L = np.diag(K.sum(axis=1)) - K
    clustering = KMeans(n_clusters=c, n_init=10, random_state=random_state).fit(Y)
    V = np.zeros((n, c))
    for i, g in enumerate(clustering.labels_):
        V[i, g] = 1.0
    B = np.array(clustering.cluster_centers_, dtype=float)
    W = np.linalg.inv(Z.T @ Z + gamma * np.eye(d)) @ Z.T @ V
    system = np.kron(np.eye(c), np.eye(n) + beta * L)
    objectives = []
    for _ in range(n_iterations):
        W = np.linalg.inv(Z.T @ Z + gamma * _reweighting_ref(W)) @ Z.T @ V
        right = Z @ W + alpha * Y @ B.T
        vec = np.linalg.solve(system + alpha * np.kron((B @ B.T).T, np.eye(n)), right.flatten(order="F"))
        V = vec.reshape((n, c), order="F")
        B = np.linalg.inv(V.T @ V) @ V.T @ Y
        objectives.append(latent_objective_ref(Z, W, V, B, Y, L, alpha, beta, gamma))
    return W, objectives


def cmfs_ref(X, Y, alpha=1.0, beta=1.0, gamma=1.0, latent_dim=None, n_iterations=100, random_state=0):
    """CMFS: min_{W, V, B >= 0} ||X W - V||^2 + alpha ||Y - V B||^2 + beta tr(V^T L V) + gamma ||W||_{2,1} by
    multiplicative updates, entry by entry; returns (W, objectives).

    Columns min-max scaled to [0, 1] (constants 0); K of same_labels_graph_ref, Delta = diag(K 1), L = Delta - K.
    Start: numpy.random.default_rng(random_state).random for W (d x c), V (n x c), B (c x l), in that order.
    Each iteration (D from the current W):
    W_ic <- W_ic [Z^T V]_ic / [Z^T Z W + gamma D W]_ic;
    V_ic <- V_ic [Z W + alpha Y B^T + beta K V]_ic / [V + alpha V B B^T + beta Delta V]_ic;
    B_cj <- B_cj [V^T Y]_cj / [V^T V B]_cj;
    an entry whose denominator is 0 becomes 0.
    """
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    n, d = X.shape
    l = Y.shape[1]
    c = math.ceil(l / 2) if latent_dim is None else int(latent_dim)
    Z = np.zeros((n, d))
    for f in range(d):
        low, high = min(X[:, f]), max(X[:, f])
        if high > low:
            Z[:, f] = [(v - low) / (high - low) for v in X[:, f]]
    K = same_labels_graph_ref(Z, Y)
    Delta = np.diag(K.sum(axis=1))
    L = Delta - K
    rng = np.random.default_rng(random_state)
    W = rng.random((d, c))
    V = rng.random((n, c))
    B = rng.random((c, l))

    def update(M, top, bottom):
        out = np.zeros_like(M)
        for i in range(M.shape[0]):
            for j in range(M.shape[1]):
                if bottom[i, j] > 0:
                    out[i, j] = M[i, j] * top[i, j] / bottom[i, j]
        return out

    objectives = []
    for _ in range(n_iterations):
        D = _reweighting_ref(W)
        W = update(W, Z.T @ V, Z.T @ Z @ W + gamma * D @ W)
        V = update(V, Z @ W + alpha * Y @ B.T + beta * K @ V, V + alpha * V @ B @ B.T + beta * Delta @ V)
        B = update(B, V.T @ Y, V.T @ V @ B)
        objectives.append(latent_objective_ref(Z, W, V, B, Y, L, alpha, beta, gamma))
    return W, objectives

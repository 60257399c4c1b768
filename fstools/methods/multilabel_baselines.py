"""ML-MIFS and CMFS: two latent-label-space baselines of the ELC paper.

``X`` is an ``(n, d)`` float matrix, ``Y`` an ``(n, l)`` 0/1 label matrix.  Both methods
decompose the labels into a low-dimensional latent space, ``Y ~ V B`` with ``V`` of shape
``(n, c)`` and ``B`` of shape ``(c, l)``, regress ``V`` on the features through ``W``
(``d x c``) with an l2,1 penalty, and rank the features by the row norms ``||w_i||_2``.
Wang, Xu, Wei, Zhang and Ma (2020), "An effective multi-label feature selection model towards
eliminating noisy features", *Applied Sciences* 10(22), 8093, compare ELC with both (section 5,
Table 2; the graphs of Appendix B).

* :func:`ml_mifs` -- MIFS, "Multi-label informed feature selection" (Jian, Li, Shu and Liu,
  IJCAI 2016, section 3)::

      min_{W, V, B}  ||X W - V||_F^2 + alpha ||Y - V B||_F^2 + beta tr(V^T L V) + gamma ||W||_{2,1}

  ``L = Delta - K`` the Laplacian of the p-nearest-neighbour heat-kernel graph of the samples,
  ``K_ij = exp(-||x_i - x_j||^2 / (2 delta^2))`` when i is among the p nearest neighbours of j
  or j among those of i, ``delta^2`` the mean of ``||x_i - x_j||^2`` (ELC paper, Appendix B).
  It is registered as ``ml_mifs`` (``mifs`` is Battiti's mutual-information criterion).  The
  objective is the one of the paper's section 3 and of the public MATLAB implementation in the
  MLC toolbox (Kimura et al., repository KKimura360/MLC_toolbox), which also ranks by the row
  norms of W; the optimiser differs (see "ML-MIFS against the MATLAB implementation" below).
* :func:`cmfs` -- CMFS, correlated and multi-label feature selection (Braytee, Liu,
  Catchpoole and Kennedy, "Multi-label feature selection using correlation information", CIKM
  2017): the same decomposition as a non-negative matrix factorisation, ``W, V, B >= 0``, with
  the instance graph of the ELC paper's Appendix B,
  ``K_ij = exp(-||x_i - x_j||^2 / (2 delta^2))`` when ``y_i = y_j`` (the same label set) and 0
  otherwise, solved by multiplicative updates.  This follows the paper's abstract (an NMF that
  decomposes the label matrix into a low-dimensional space, correlation information of
  instances, an l2,1 norm on the rows of the feature matrix, an iterative algorithm with
  guaranteed convergence) and the ELC paper's description of it; the CIKM paper's own equations
  were not available to check it term by term (its feature- and label-correlation terms, if any
  beyond ``Y ~ V B``, are not modelled), so read results as "an NMF baseline of this form".

The optimisation
----------------
Both alternate over W, V and B; every step does not increase the objective, so the recorded
objective is non-increasing (the tests check it; not so for ML-MIFS's ``solver='gradient'``, the
MATLAB implementation's fixed-step gradient steps, below):

* **W** (both).  The l2,1 norm is handled by iterative reweighting (Nie, Huang, Cai and Ding,
  "Efficient and robust feature selection via joint l2,1-norms minimization", NIPS 2010,
  Lemma 1): with ``D = diag(1 / (2 sqrt(||w_i||^2 + eps)))`` from the current W,
  ``gamma tr(W^T D W)`` majorises the penalty ``gamma sum_i sqrt(||w_i||^2 + eps)`` up to a
  constant.  ML-MIFS then takes the minimiser ``W = (X^T X + gamma D)^-1 X^T V`` (through
  ``D^-1 X^T (X D^-1 X^T + gamma I)^-1 V`` when d > n); CMFS the multiplicative step
  ``W <- W * (X^T V) / (X^T X W + gamma D W)``.
* **V, B** (ML-MIFS).  The objective is a convex quadratic in V (in B) with the rest fixed;
  the published implementation takes one gradient step on each of V, B and W per iteration.  Here
  each is minimised exactly -- the point those gradient steps converge to: V from the Sylvester equation
  ``(I + beta L) V + alpha V B B^T = X W + alpha Y B^T`` (through the eigenvectors of
  ``B B^T`` and of L), B from least squares ``min ||Y - V B||``.
* **V, B** (CMFS).  The multiplicative updates of non-negative matrix factorisation (Lee and
  Seung, "Algorithms for non-negative matrix factorization", NIPS 2001) with the graph term
  split as in graph-regularised NMF (Cai, He, Han and Huang, "Graph regularized nonnegative
  matrix factorization for data representation", IEEE TPAMI 33(8), 2011, Eq. 14):
  ``V <- V * (X W + alpha Y B^T + beta K V) / (V + alpha V B B^T + beta Delta V)`` and
  ``B <- B * (V^T Y) / (V^T V B)``.  A 0/0 entry (a constant column's row of W) stays 0.

Choices made here (each a parameter or a documented rule)
---------------------------------------------------------
* **Scaling.**  ML-MIFS z-scores the columns (population sd; the ELC paper normalises every
  feature to zero mean and unit variance, Appendix B).  CMFS is a non-negative factorisation,
  so its columns are scaled to [0, 1] (min-max).  A constant column becomes 0: its row of W is
  0, its score 0, and it ranks last.
* **Initialisation.**  ML-MIFS starts from a clustering of the label vectors (the ELC paper
  attributes MIFS's cost to "its involved label clustering process", section 5.3):
  ``KMeans(c, n_init=10, random_state)`` on the rows of Y gives ``V`` (the 0/1 cluster
  indicators) and ``B`` (the centroids), and the first W is the ridge solution
  ``(X^T X + gamma I)^-1 X^T V``.  CMFS starts from ``numpy.random.default_rng(random_state)``
  uniform draws on [0, 1), in the order W, V, B.
* **The latent dimension** c (``latent_dim``) defaults to ``ceil(l / 2)``; ML-MIFS needs at
  least c distinct label vectors (one per cluster).
* **eps** = 1e-12 smooths the row norms in the penalty (and in D); the recorded objective
  uses the smoothed penalty, the one the updates decrease.
* **Stopping.**  After ``max_iter`` iterations or when the objective changes by at most
  ``tol`` relative to its previous value.  Reaching ``max_iter`` raises no warning: the
  iterations are recorded (``MethodOutput.iterations``, objective per iteration).
* **Defaults** ``alpha = beta = gamma = 1``: the ELC paper tunes every baseline's parameters
  over the grid {1e-3, 1e-2, 1e-1, 1, 10} (Appendix B); 1 is the middle of that grid.  The
  graph's p = 5 neighbours.

ML-MIFS against the MATLAB implementation
-----------------------------------------
Checked under GNU Octave 7.3 against ``MIFS_train`` of the MLC toolbox (KKimura360/MLC_toolbox,
commit e798779, its newest), run unchanged on three small cases with fstools' start handed to its
``rand()``; the outputs are kept with the tests, which need no Octave.

* **The same.**  The objective (the toolbox's recorded value, to 1e-9 relative; fstools smooths the
  row norms by 1e-12); the graph: the toolbox's ``constructW`` (k nearest neighbours, self
  excluded, the union of the neighbourhoods, ``exp(-||x_i - x_j||^2 / (2 t^2))``) equals
  :func:`mifs_graph` to 1e-16 when ``t^2 = delta^2``; the ranking, by ``sum(W.^2, 2)`` descending,
  ties to the lower index.
* **Settings that differ** (all parameters here): the toolbox scales nothing itself (callers pass
  X), and defaults to ``t = 1``, ``c = round(0.3 l)``, ``beta = 0.1``, ``alpha = gamma = 1``,
  p = 5; it starts from uniform random W, V, B (``rand``), fstools from the k-means start above.
* **The optimiser.**  The toolbox takes per iteration one fixed-step gradient step on V, then B,
  then W: ``V <- V - lambda ((V - X W) + alpha (V B - Y) B^T + beta L V)``,
  ``B <- B - lambda V^T (V B - Y)`` (the gradient's factor alpha left out: B's step length alone
  differs), ``W <- W - lambda (X^T (X W - V) + gamma D W)`` with D from the previous W
  (``1 / (2 sqrt(||w_i||^2 + eps))``, MATLAB's eps) and D = I on the first pass; ``lambda = 1e-5``;
  it stops when the objective changes by less than 1e-3 (absolute or relative), after at most 499
  iterations.  With these defaults the rule stops it after 2 iterations, W 0.07% away from its
  random start: its ranking is that of the random start (first case of the test data).
  ``solver='gradient'`` takes these steps (fixed ``step``, from fstools' start; stopping by ``tol``
  as for ``'block'``): W, V and B agree with ``MIFS_train`` to 4e-16 of their largest entry, the
  objective to 9e-10, the ranking exactly, after 200 to 400 steps of 2e-4 to 2e-3.
* **The objective has no minimiser.**  ``(s W, s V, B / s)`` with ``0 < s < 1`` leaves
  ``||Y - V B||`` unchanged and scales the other three terms by ``s^2``, ``s^2`` and ``s``, so every
  descent heads towards ``W, V -> 0``, ``B -> infinity`` and the infimum ``alpha * sum_{j > c}
  sigma_j(Y)^2`` (the best rank-c approximation error of Y), reached by no W.  A run's ranking is
  the order in which the rows of W are shrinking where it stops, and depends on the optimiser and
  on ``max_iter``.  In the three cases, 100 block iterations end 1-5% above the infimum, the
  toolbox's 200-400 gradient steps 94-390% above; the two rankings agree on 2 of the top 3 features,
  with Spearman correlations of the row norms 0.55-0.88.  ``'block'`` stays the default: it
  decreases the paper's objective monotonically and furthest; ``'gradient'`` reproduces the
  toolbox.

Scale: ML-MIFS forms the sparse n x n graph; up to ``DENSE_GRAPH_LIMIT`` samples it diagonalises
its Laplacian once (O(n^3), then O(n^2 c) per iteration), above it solves c sparse systems per
iteration;
CMFS's instance graph joins only samples with the same label set (stored sparse).  No d x d
matrix is formed when d > n.
"""
import math

import numpy as np
from scipy import sparse

from fstools.core.arrays import as_float_matrix, constant_columns
from fstools.core.constraints import (NONNEGATIVE_NUMBER, POSITIVE_INTEGER, POSITIVE_NUMBER, SEED, Constraint,
                                      is_integer_at_least, is_nonnegative_number, is_positive_number, is_seed,
                                      none_or_int, one_of)
from fstools.core.lazy import LazyModule
from fstools.core.ranking import rank_features
from fstools.core.messages import format_count
from fstools.methods.multilabel import check_label_matrix, standardize_features
from fstools.methods.registry import MethodOutput, MethodSpec, Parameter, register
from fstools.methods.similarity import heat_kernel_graph

# imported at their first use: they take longer to import than fstools
sparse_linalg = LazyModule("scipy.sparse.linalg")
cluster = LazyModule("sklearn.cluster")

__all__ = ["DENSE_GRAPH_LIMIT", "ROW_NORM_EPS", "MIFS_SOLVERS", "latent_dimension", "mean_squared_distance",
           "mifs_graph", "cmfs_graph", "minmax_columns", "ml_mifs_fit", "ml_mifs", "cmfs_fit", "cmfs"]

#: Up to this many samples ML-MIFS diagonalises its graph Laplacian once (dense); above it, sparse solves.
DENSE_GRAPH_LIMIT = 2000

#: Smoothing of the row norms in the l2,1 penalty and in the reweighting matrix D.
ROW_NORM_EPS = 1e-12

#: The toolbox's smoothing of the row norms in D (MATLAB's ``eps``), used by ``solver='gradient'``.
_MACHINE_EPS = float(np.finfo(np.float64).eps)

#: The optimisers of ML-MIFS (``solver``): exact block minimisation, or the MLC toolbox's gradient steps.
MIFS_SOLVERS = ("block", "gradient")


# --------------------------------------------------------------------------
# Shared pieces
# --------------------------------------------------------------------------

def latent_dimension(latent_dim, n_labels):
    """c: ``latent_dim``, or ``ceil(l / 2)`` when None; an integer in 1..l."""
    if latent_dim is None:
        return max(1, math.ceil(n_labels / 2))
    c = int(latent_dim)
    if not 1 <= c <= n_labels:
        raise ValueError(f"latent_dim: must be None or an integer from 1 to the number of labels ({n_labels}); "
                         f"got {latent_dim!r}")
    return c


def mean_squared_distance(Z):
    """``delta^2 = (1/n^2) sum_{i,j} ||z_i - z_j||^2`` (pairs i = j included) = 2 * the sum of the
    column variances (population), computed in O(n d)."""
    return 2.0 * float(np.sum(np.var(Z, axis=0)))


def _kernel_width(Z):
    """``2 delta^2`` of the heat kernel (1 when every column is constant)."""
    delta2 = mean_squared_distance(Z)
    return 2.0 * delta2 if delta2 > 0 else 1.0


def mifs_graph(Z, n_neighbors=5, n_threads=1):
    """ML-MIFS's affinity K and Laplacian L = Delta - K (sparse, n x n).

    ``K_ij = exp(-||z_i - z_j||^2 / (2 delta^2))`` when i is among the p nearest neighbours of j
    or j among those of i (ties to the lower row index), 0 otherwise (ELC paper, Appendix B).
    """
    K = heat_kernel_graph(Z, n_neighbors=n_neighbors, t=_kernel_width(Z), n_threads=n_threads)
    degree = np.asarray(K.sum(axis=1)).ravel()
    return K, (sparse.diags(degree) - K).tocsc()


def cmfs_graph(Z, Y):
    """CMFS's instance similarity K (sparse, zero diagonal) and its degrees.

    ``K_ij = exp(-||z_i - z_j||^2 / (2 delta^2))`` for ``i != j`` with the same label vector
    ``y_i = y_j``, 0 otherwise (ELC paper, Appendix B).  Built group by group: only samples
    with the same label set are compared.
    """
    n = Z.shape[0]
    width = _kernel_width(Z)
    _, group = np.unique(Y, axis=0, return_inverse=True)
    group = np.asarray(group).ravel()
    rows, cols, values = [], [], []
    for g in np.unique(group):
        members = np.flatnonzero(group == g)
        if members.size < 2:
            continue
        block = Z[members]
        norms = np.einsum("ij,ij->i", block, block)
        squared = np.maximum(norms[:, None] + norms[None, :] - 2.0 * block @ block.T, 0.0)
        weight = np.exp(-squared / width)
        np.fill_diagonal(weight, 0.0)
        r, c = np.nonzero(weight)
        rows.append(members[r])
        cols.append(members[c])
        values.append(weight[r, c])
    if rows:
        K = sparse.csr_matrix((np.concatenate(values), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))
    else:
        K = sparse.csr_matrix((n, n))
    K = ((K + K.T) * 0.5).tocsr()     # exactly symmetric
    return K, np.asarray(K.sum(axis=1)).ravel()


def minmax_columns(X):
    """Columns scaled to [0, 1]: ``(x - min) / (max - min)``; constant columns 0."""
    X = as_float_matrix(X)
    low = X.min(axis=0) if X.shape[0] else np.zeros(X.shape[1])
    span = X.max(axis=0) - low if X.shape[0] else np.zeros(X.shape[1])
    constant = span == 0
    Z = np.zeros_like(X)
    Z[:, ~constant] = (X[:, ~constant] - low[~constant]) / span[~constant]
    return Z


def _smoothed_row_norms(W):
    return np.sqrt(np.einsum("ij,ij->i", W, W) + ROW_NORM_EPS)


def _objective(Z, W, V, B, Y, Lv, alpha, beta, gamma):
    """``||Z W - V||^2 + alpha ||Y - V B||^2 + beta tr(V^T L V) + gamma sum_i sqrt(||w_i||^2 + eps)``;
    ``Lv`` = L V."""
    fit = Z @ W - V
    labels = Y - V @ B
    return (float(np.sum(fit * fit)) + alpha * float(np.sum(labels * labels)) + beta * float(np.sum(V * Lv))
            + gamma * float(np.sum(_smoothed_row_norms(W))))


def _output(name, W, constant, history, converged, parameters, notes=()):
    row_norm = np.sqrt(np.einsum("ij,ij->i", W, W))
    row_norm[constant] = 0.0
    shown = ", ".join(f"{key} = {value:g}" if isinstance(value, float) else f"{key} = {value}"
                      for key, value in parameters.items())
    notes = [f"{name}: {shown}; {'converged' if converged else 'stopped at max_iter'} after "
             f"{format_count(len(history['iteration']), 'iteration')}", *notes]
    if constant.any():
        notes.append(f"{format_count(int(constant.sum()), 'constant column')}: row norm 0, ranked last")
    return MethodOutput(ranking=rank_features(row_norm, last=constant), scores=row_norm,
                        columns={"row_norm": row_norm}, notes=notes, iterations=history)


def _history(values):
    return {"iteration": np.arange(1, len(values) + 1, dtype=np.int64),
            "objective": np.asarray(values, dtype=np.float64)}


def _check_common(alpha, beta, gamma, max_iter, tol, random_state):
    NONNEGATIVE_NUMBER.validate(alpha, "alpha")
    NONNEGATIVE_NUMBER.validate(beta, "beta")
    POSITIVE_NUMBER.validate(gamma, "gamma")
    POSITIVE_INTEGER.validate(max_iter, "max_iter")
    NONNEGATIVE_NUMBER.validate(tol, "tol")
    SEED.validate(random_state, "random_state")


def _converged(old, new, tol):
    return abs(old - new) <= tol * max(abs(old), 1e-300)


# --------------------------------------------------------------------------
# ML-MIFS (Jian, Li, Shu and Liu 2016)
# --------------------------------------------------------------------------

def _mifs_w_step(Z, V, W, gamma):
    """``argmin_W ||Z W - V||^2 + gamma tr(W^T D W)``, D from the current W (W None: D = I)."""
    n, d = Z.shape
    inverse_d = np.ones(d) if W is None else 2.0 * _smoothed_row_norms(W)      # D^-1
    if d <= n:
        system = Z.T @ Z
        system[np.diag_indices(d)] += gamma / inverse_d
        return np.linalg.solve(system, Z.T @ V)
    scaled = Z * inverse_d                                                     # Z D^-1
    system = scaled @ Z.T
    system[np.diag_indices(n)] += gamma
    return inverse_d[:, None] * (Z.T @ np.linalg.solve(system, V))


class _SylvesterSolver:
    """Solves ``(I + beta L) V + alpha V (B B^T) = R`` for V, B changing between calls.

    With ``B B^T = Q diag(lam) Q^T`` the equation separates into c systems
    ``(I + beta L + alpha lam_j I) v_j = r_j`` in the rotated columns ``V Q``, ``R Q``.  Up to
    :data:`DENSE_GRAPH_LIMIT` samples, ``L = U diag(mu) U^T`` is diagonalised once and each
    system is a division by ``1 + beta mu_i + alpha lam_j``; above it, each system is a sparse LU
    solve.
    """

    def __init__(self, L, alpha, beta):
        self.n = L.shape[0]
        self.alpha = alpha
        self.beta = beta
        self.L = L
        self.dense = self.n <= DENSE_GRAPH_LIMIT
        if self.dense:
            mu, self.U = np.linalg.eigh(L.toarray())
            self.mu = np.maximum(mu, 0.0)          # L is positive semi-definite; clip rounding

    def solve(self, B, R):
        lam, Q = np.linalg.eigh(B @ B.T)
        lam = np.maximum(lam, 0.0)
        rotated = R @ Q
        if self.dense:
            inner = (self.U.T @ rotated) / (1.0 + self.beta * self.mu[:, None] + self.alpha * lam[None, :])
            return (self.U @ inner) @ Q.T
        identity = sparse.identity(self.n, format="csc")
        base = (identity + self.beta * self.L).tocsc()
        solved = np.empty_like(rotated)
        for j in range(rotated.shape[1]):
            system = (base + self.alpha * float(lam[j]) * identity).tocsc()
            solved[:, j] = sparse_linalg.splu(system).solve(rotated[:, j])
        return solved @ Q.T


def _mifs_gradient_step(Z, Y, L, W, V, B, inverse_d, alpha, beta, gamma, step):
    """One pass of the fixed-step gradient steps of the MLC toolbox (V, then B, then W); ``inverse_d``
    = D^-1 from the previous W, None on the first pass (D = I).  Returns ``(W, V, B)``."""
    fit = Z @ W
    V = V - step * ((V - fit) + alpha * ((V @ B - Y) @ B.T) + beta * (L @ V))
    B = B - step * (V.T @ (V @ B - Y))                  # as the toolbox: no factor alpha
    shrink = gamma * W if inverse_d is None else (gamma / inverse_d)[:, None] * W
    W = W - step * (Z.T @ (fit - V) + shrink)
    return W, V, B


def ml_mifs_fit(X, Y, alpha=1.0, beta=1.0, gamma=1.0, latent_dim=None, n_neighbors=5, max_iter=100, tol=1e-5,
                random_state=0, n_threads=1, solver="block", step=1e-5):
    """Run ML-MIFS; returns ``(W, V, B, history, converged)`` on the z-scored columns of X.

    ``solver``: ``"block"`` (each of W, V, B minimised in turn) or ``"gradient"`` (the fixed-step
    gradient steps of the MLC toolbox, step length ``step``).  See the module docstring for the
    objective and the steps.
    """
    if solver not in MIFS_SOLVERS:
        raise ValueError(f"solver: must be one of {', '.join(map(repr, MIFS_SOLVERS))}; got {solver!r}")
    POSITIVE_NUMBER.validate(step, "step")
    X = as_float_matrix(X)
    Y = check_label_matrix(Y, X.shape[0])
    n, l = Y.shape
    c = latent_dimension(latent_dim, l)
    distinct = np.unique(Y, axis=0).shape[0]
    if c > distinct:
        raise ValueError(f"latent_dim: ML-MIFS clusters the label vectors into c = {c} groups, but Y has only "
                         f"{distinct} distinct label vector(s); choose latent_dim <= {distinct}")
    Z, _ = standardize_features(X, "variance")
    _, L = mifs_graph(Z, n_neighbors=n_neighbors, n_threads=n_threads)
    sylvester = _SylvesterSolver(L, alpha, beta) if solver == "block" else None
    clustering = cluster.KMeans(n_clusters=c, n_init=10, random_state=random_state).fit(Y)
    V = np.zeros((n, c))
    V[np.arange(n), clustering.labels_] = 1.0
    B = np.array(clustering.cluster_centers_, dtype=np.float64)
    W = _mifs_w_step(Z, V, None, gamma)
    values = []
    converged = False
    old = _objective(Z, W, V, B, Y, L @ V, alpha, beta, gamma)
    inverse_d = None
    for _ in range(int(max_iter)):
        if solver == "block":
            W = _mifs_w_step(Z, V, W, gamma)
            V = sylvester.solve(B, Z @ W + alpha * (Y @ B.T))    # argmin over V, the rest fixed
            B = np.linalg.lstsq(V, Y, rcond=None)[0]
        else:
            W, V, B = _mifs_gradient_step(Z, Y, L, W, V, B, inverse_d, alpha, beta, gamma, float(step))
            inverse_d = 2.0 * np.sqrt(np.einsum("ij,ij->i", W, W) + _MACHINE_EPS)      # as the toolbox
        value = _objective(Z, W, V, B, Y, L @ V, alpha, beta, gamma)
        values.append(value)
        if _converged(old, value, tol):
            converged = True
            break
        old = value
    return W, V, B, _history(values), converged


def ml_mifs(X, Y, k=None, n_threads=1, alpha=1.0, beta=1.0, gamma=1.0, latent_dim=None, n_neighbors=5,
            max_iter=100, tol=1e-5, random_state=0, solver="block", step=1e-5):
    """ML-MIFS feature ranking (Jian, Li, Shu and Liu 2016): row norms of W.

    Parameters
    ----------
    X : ndarray, shape (n_samples, n_features)
    Y : ndarray, shape (n_samples, n_labels), 0/1
    k : int or None
        Unused (every feature is ranked).
    n_threads : int
        Threads of the nearest-neighbour search (the result does not depend on it).
    alpha : float >= 0, default 1
        Weight of the label decomposition ``||Y - V B||_F^2``.
    beta : float >= 0, default 1
        Weight of the manifold term ``tr(V^T L V)``.
    gamma : float > 0, default 1
        Weight of ``||W||_{2,1}``.
    latent_dim : int or None, default None
        c, the dimension of the latent label space; None: ``ceil(l / 2)``.
    n_neighbors : int >= 1, default 5
        p of the p-nearest-neighbour graph.
    max_iter : int, default 100
    tol : float >= 0, default 1e-5
        Stop when the objective changes by at most ``tol`` relative.
    random_state : None or int >= 0, default 0
        Seed of the k-means clustering of the label vectors (the start of V and B).
    solver : {'block', 'gradient'}, default 'block'
        ``'block'``: W, V and B each minimised exactly in turn.  ``'gradient'``: the fixed-step
        gradient steps of the public MATLAB implementation (MLC toolbox), for reproducing it; see
        the module docstring ("ML-MIFS against the MATLAB implementation").
    step : float > 0, default 1e-5
        Step length of ``solver='gradient'`` (the toolbox's ``lambda``, default 1e-5); unused by
        ``'block'``.

    Returns
    -------
    MethodOutput
        ``scores`` = ``||w_i||_2`` (higher is better; column ``row_norm``); ``ranking`` by
        decreasing row norm, ties to the lower index, constant columns last; ``iterations`` =
        the objective after each iteration (non-increasing with ``'block'``; with
        ``'gradient'`` only for a small enough ``step``).
    """
    _check_common(alpha, beta, gamma, max_iter, tol, random_state)
    POSITIVE_INTEGER.validate(n_neighbors, "n_neighbors")
    _SOLVER.validate(solver)
    POSITIVE_NUMBER.validate(step, "step")
    X = as_float_matrix(X)
    W, _, _, history, converged = ml_mifs_fit(X, Y, float(alpha), float(beta), float(gamma), latent_dim,
                                              int(n_neighbors), int(max_iter), float(tol), random_state, n_threads,
                                              solver, float(step))
    shown = {"alpha": float(alpha), "beta": float(beta), "gamma": float(gamma), "c": W.shape[1]}
    if solver == "gradient":
        shown.update(solver=solver, step=float(step))
    return _output("ML-MIFS", W, constant_columns(X), history, converged, shown)


# --------------------------------------------------------------------------
# CMFS (Braytee, Liu, Catchpoole and Kennedy 2017)
# --------------------------------------------------------------------------

def _multiplicative(current, numerator, denominator):
    """``current * numerator / denominator``, 0 where the denominator is 0 (then the numerator is 0 too)."""
    out = np.zeros_like(current)
    np.divide(current * numerator, denominator, out=out, where=denominator > 0)
    return out


def cmfs_fit(X, Y, alpha=1.0, beta=1.0, gamma=1.0, latent_dim=None, max_iter=100, tol=1e-5, random_state=0):
    """Run CMFS; returns ``(W, V, B, history, converged)`` on the [0, 1]-scaled columns of X.

    See the module docstring for the objective and the multiplicative updates.
    """
    X = as_float_matrix(X)
    Y = check_label_matrix(Y, X.shape[0])
    n, l = Y.shape
    d = X.shape[1]
    c = latent_dimension(latent_dim, l)
    Z = minmax_columns(X)
    K, degree = cmfs_graph(Z, Y)
    rng = np.random.default_rng(random_state)
    W = rng.random((d, c))
    V = rng.random((n, c))
    B = rng.random((c, l))

    def laplacian_times(M):
        return degree[:, None] * M - K @ M

    values = []
    converged = False
    old = _objective(Z, W, V, B, Y, laplacian_times(V), alpha, beta, gamma)
    for _ in range(int(max_iter)):
        weight = 1.0 / (2.0 * _smoothed_row_norms(W))                          # diag(D)
        W = _multiplicative(W, Z.T @ V, Z.T @ (Z @ W) + gamma * weight[:, None] * W)
        V = _multiplicative(V, Z @ W + alpha * (Y @ B.T) + beta * (K @ V),
                            V + alpha * (V @ (B @ B.T)) + beta * degree[:, None] * V)
        B = _multiplicative(B, V.T @ Y, (V.T @ V) @ B)
        value = _objective(Z, W, V, B, Y, laplacian_times(V), alpha, beta, gamma)
        values.append(value)
        if _converged(old, value, tol):
            converged = True
            break
        old = value
    return W, V, B, _history(values), converged


def cmfs(X, Y, k=None, n_threads=1, alpha=1.0, beta=1.0, gamma=1.0, latent_dim=None, max_iter=100, tol=1e-5,
         random_state=0):
    """CMFS feature ranking (Braytee, Liu, Catchpoole and Kennedy 2017): row norms of the non-negative W.

    Parameters
    ----------
    X : ndarray, shape (n_samples, n_features)
    Y : ndarray, shape (n_samples, n_labels), 0/1
    k : int or None
        Unused (every feature is ranked).
    n_threads : int
        Unused.
    alpha : float >= 0, default 1
        Weight of the label factorisation ``||Y - V B||_F^2``.
    beta : float >= 0, default 1
        Weight of the instance-correlation term ``tr(V^T L V)``.
    gamma : float > 0, default 1
        Weight of ``||W||_{2,1}``.
    latent_dim : int or None, default None
        c; None: ``ceil(l / 2)``.
    max_iter : int, default 100
    tol : float >= 0, default 1e-5
        Stop when the objective changes by at most ``tol`` relative.
    random_state : None or int >= 0, default 0
        Seed of the uniform start of W, V and B (drawn in that order).

    Returns
    -------
    MethodOutput
        ``scores`` = ``||w_i||_2`` (column ``row_norm``), ``ranking`` by decreasing row norm,
        ties to the lower index, constant columns last; ``iterations`` = objective per iteration
        (non-increasing).
    """
    _check_common(alpha, beta, gamma, max_iter, tol, random_state)
    X = as_float_matrix(X)
    W, _, _, history, converged = cmfs_fit(X, Y, float(alpha), float(beta), float(gamma), latent_dim,
                                           int(max_iter), float(tol), random_state)
    return _output("CMFS", W, constant_columns(X), history, converged,
                   {"alpha": float(alpha), "beta": float(beta), "gamma": float(gamma), "c": W.shape[1]},
                   notes=["columns scaled to [0, 1] for the non-negative factorisation"])


# --------------------------------------------------------------------------
# Registration
# --------------------------------------------------------------------------

_GRID = "the ELC paper tunes it over {1e-3, 1e-2, 1e-1, 1, 10} (Appendix B); 1 = the grid's middle"
_LATENT = Parameter("latent_dim", None, "c, the dimension of the latent label space (None: ceil(l/2))",
                    Constraint("None or an integer >= 1", lambda v: v is None or is_integer_at_least(1)(v),
                               none_or_int))
_MAX_ITER = Parameter("max_iter", 100, "iterations of the alternating updates",
                      Constraint("an integer >= 1", is_integer_at_least(1), int))
_TOL = Parameter("tol", 1e-5, "stop when the objective changes by at most tol relative",
                 Constraint("a finite number >= 0", is_nonnegative_number, float))
_SEED = Parameter("random_state", 0, "seed of the initialisation", Constraint("None or an integer >= 0", is_seed,
                                                                               none_or_int))
_SOLVER = Parameter("solver", "block", "'block': W, V, B each minimised exactly; 'gradient': the fixed-step "
                    "gradient steps of the public MATLAB implementation (MLC toolbox)", one_of(MIFS_SOLVERS))


def _weight(name, what):
    return Parameter(name, 1.0, f"{what}; {_GRID}", Constraint("a finite number >= 0", is_nonnegative_number, float))


register(MethodSpec(
    name="ml_mifs",
    description="ML-MIFS: latent label space + sample manifold + l2,1-sparse regression; row norms of W",
    function=ml_mifs,
    parameters=(
        _weight("alpha", "weight of the label decomposition ||Y - VB||^2"),
        _weight("beta", "weight of the manifold term tr(V^T L V)"),
        Parameter("gamma", 1.0, f"weight of ||W||_(2,1); {_GRID}",
                  Constraint("a finite number > 0", is_positive_number, float)),
        _LATENT,
        Parameter("n_neighbors", 5, "p of the p-nearest-neighbour heat-kernel graph (ELC paper, Appendix B)",
                  Constraint("an integer >= 1", is_integer_at_least(1), int)),
        _MAX_ITER, _TOL, _SEED, _SOLVER,
        Parameter("step", 1e-5, "step length of solver='gradient' (the MLC toolbox's lambda)",
                  Constraint("a finite number > 0", is_positive_number, float)),
    ),
    capabilities=frozenset({"supervised", "multilabel"}),
    score_name="||w_i||_2",
    higher_is_better=True,
    reference="Jian, Li, Shu & Liu (2016) Multi-label informed feature selection, IJCAI, 1627-1633",
    criterion="min ||XW - V||^2 + alpha ||Y - VB||^2 + beta tr(V^T L V) + gamma ||W||_(2,1); rank by ||w_i||_2",
))

register(MethodSpec(
    name="cmfs",
    description="CMFS as reconstructed from its abstract (the paper's equations unchecked): non-negative "
                "factorisation of the labels + instance correlation + l2,1; row norms of W",
    function=cmfs,
    parameters=(
        _weight("alpha", "weight of the label factorisation ||Y - VB||^2"),
        _weight("beta", "weight of the instance-correlation term tr(V^T L V)"),
        Parameter("gamma", 1.0, f"weight of ||W||_(2,1); {_GRID}",
                  Constraint("a finite number > 0", is_positive_number, float)),
        _LATENT, _MAX_ITER, _TOL, _SEED,
    ),
    capabilities=frozenset({"supervised", "multilabel"}),
    score_name="||w_i||_2",
    higher_is_better=True,
    reference="Braytee, Liu, Catchpoole & Kennedy (2017) Multi-label feature selection using correlation "
              "information, CIKM, 1649-1656",
    criterion="min_{W,V,B >= 0} ||XW - V||^2 + alpha ||Y - VB||^2 + beta tr(V^T L V) + gamma ||W||_(2,1); "
              "rank by ||w_i||_2",
))

"""Discriminant-analysis methods: DFS (l2,p-regularised discriminative feature selection) and trace ratio.

* :func:`dfs` -- Tao, Hou, Nie, Jiao and Yi (2016), "Effective discriminative
  feature selection with nontrivial solution", IEEE TNNLS 27(4), 796-808
  Uncorrelated LDA with a row-sparsity penalty (Eq. 17)::

      min_A  -tr(A^T S_b A) + gamma ||A||_{2,p}^p   subject to  A^T S_t A = I,   0 < p <= 2,

  solved by Algorithm 1: with ``D = I`` at the start, repeatedly take ``A`` =
  the eigenvectors of the ``l`` smallest eigenvalues of the generalised
  symmetric eigenproblem ``(gamma D - S_b) a = lambda S_t a`` (Eq. 23) and set
  ``D_ii = (p/2) (a^i . a^i + zeta)^(p/2 - 1)`` (Eq. 19 with Remark 2's zeta);
  ``S_t`` is regularised to ``S_t + alpha I`` (Remark 1).  Features are ranked
  by the row norms ``||a^i||_2`` of the final ``A``, descending (section IV-A).
* :func:`trace_ratio` -- Nie, Xiang, Jia, Zhang and Yan (2008), "Trace ratio
  criterion for feature selection", AAAI, 671-676, with Fisher-type weights
  (the DFS paper's baseline, section VI-C): the subset ``S`` of ``k`` features
  maximising ``sum_{i in S} b_i / sum_{i in S} w_i`` (between- over
  within-class scatter), found by Dinkelbach's iteration.

How the DFS eigenproblem is solved (the paper leaves it open; section V-B only
notes that a dense solve costs O(d^3) per iteration)
-------------------------------------------------------------------------------
Write ``M = S_t + alpha I`` and ``B = gamma D - S_b``.  Because ``S_b <= S_t``
(``S_t = S_b + S_w``), every eigenvalue of ``B a = lambda M a`` exceeds -1,
and ``B + M = gamma D + alpha I + S_w`` is positive definite.  Both solvers
therefore work with the equivalent pencil ``M a = theta (B + M) a``,
``theta = 1 / (1 + lambda)``: the ``l`` smallest ``lambda`` are the ``l``
largest ``theta``, and the eigenvectors are the same.  This form stays
accurate when ``gamma D`` is huge on rows that have shrunk to ~0 (where the
literal ``gamma D - S_b`` loses the small eigenvalues to round-off).

* ``solver='dense'``: :func:`scipy.linalg.eigh` on the d x d pencil, O(d^3)
  per iteration.
* ``solver='lanczos'``: ARPACK's Lanczos iteration for the ``l`` largest
  eigenvalues ``theta`` of the symmetric operator ``R^{-1} M R^{-T}`` with
  ``R R^T = B + M = gamma D + alpha I + S_w`` -- the pencil shifted and
  inverted at the exact lower bound ``sigma = -1`` -- for the ``l`` wanted
  eigenpairs only, warm-started from the previous ``A``; followed by a
  Rayleigh-Ritz step in their span (so ``A^T M A = I`` to round-off).  When
  ``n >= d``, ``R`` is the Cholesky factor of the d x d matrix (``S_t`` is then
  d x d anyway).  When ``n < d``, ``R = L^{1/2} G`` with the diagonal
  ``L = gamma D + alpha I``, ``Y = X_w L^{-1/2}`` (n x d, ``X_w`` the
  within-class centred data) and ``G = (I + Y^T Y)^{1/2}``, applied (and
  inverted, a Woodbury-type identity) through the eigendecomposition of the
  n x n matrix ``Y Y^T``: nothing d x d is ever formed or factored; one
  iteration costs O(n^2 d) plus O(n d) per Lanczos step.  Products with
  ``M`` and ``B`` use the factors ``X_c`` (n x d) and ``H`` (c x d,
  ``S_b = H^T H``).
* ``solver='auto'`` (default): ``'dense'`` when the problem is small
  (at most :data:`DENSE_MAX_FEATURES` non-constant features, or ``l`` more
  than a quarter of them), ``'lanczos'`` otherwise.

Both give the same ``A`` up to an orthogonal rotation of its columns (which
leaves the row norms, hence the ranking, unchanged) when the ``l``-th and
``(l+1)``-th eigenvalues differ.

Choices the paper leaves open (documented with their parameters)
-----------------------------------------------------------------
* ``alpha`` (Remark 1 requires only ``alpha > 0``): default 1.0, applied
  literally as ``S_t + alpha I``; the data are standardised by default, so
  every diagonal entry of ``S_t`` is ``n - 1`` and ``alpha = 1`` is a ridge of
  ``1 / (n - 1)`` of a feature's scatter.
* ``zeta`` (Remark 2: "small"): default 1e-12, absolute, in the units of
  ``a^i . a^i``; it only matters for rows whose squared norm is below ~1e-10.
* Stopping: the paper iterates "until converges" and reports convergence
  within 20 iterations (section VI-F, Fig. 6): ``max_iter = 20``; the loop
  stops earlier when the objective changes by at most ``tol = 1e-6``
  relative to its previous value (``tol = 0``: always ``max_iter``).
* Standardisation: the paper standardises every data set to zero mean and
  unit standard deviation before selection (section VI-A): ``standardize =
  True``, with the sample standard deviation (ddof = 1, as MATLAB's
  ``zscore``).  Without it the ranking depends on the units of the features
  (a row of ``A`` scales like 1 / the feature's scale).
* Constant columns carry no information; they are left out of the
  eigenproblem (their rows and columns of ``S_t`` and ``S_b`` are zero, so they
  decouple), get row norm 0 and are ranked after every other column.
* Ties in the row norms go to the lower column index.
* ``gamma = 'cv'`` (section V-C: grid search on cross-validated accuracy; the
  grid of section VI-E): see :func:`dfs`.

Deliberate differences from scikit-feature's ``trace_ratio``
-------------------------------------------------------------
scikit-feature computes the start value of the iteration from the *first k
features in column order*, and then iterates only within the k features with
the best individual ratio ``b_i / w_i``, so it never leaves that set (and
stops at a change below 1e-3).  Here the start value is the trace ratio of the
k features with the best individual ratio, and the iteration runs over every
feature until the ratio no longer increases: Dinkelbach's iteration then
reaches the globally optimal subset (Nie et al. 2008, section 3), whatever
the start value.
"""
import warnings
from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import threadpool_limits

from fstools.core.constraints import (is_bool, is_integer_at_least, is_none_or, is_nonnegative_number, is_number,
                                    is_one_of, is_positive_integer, is_positive_number, is_seed, none_or_int)
from fstools.core.constraints import (BOOLEAN, NONNEGATIVE_NUMBER, POSITIVE_INTEGER, POSITIVE_NUMBER, SEED, Constraint,
                                       integer_at_least, one_of)
from fstools.methods.registry import MethodOutput, MethodSpec, Parameter, register
from fstools.core.arrays import (as_class_codes, as_float_matrix, constant_columns, scaled_to_unit,
                                 standardize_columns)
from fstools.core.lazy import LazyModule
from fstools.core.messages import ColumnError, format_count
from fstools.core.ranking import rank_features
from fstools.methods.similarity import fisher_scores

# imported at their first use: they take longer to import than fstools
linalg = LazyModule("scipy.linalg")
sparse_linalg = LazyModule("scipy.sparse.linalg")

__all__ = ["GAMMA_GRID", "DENSE_MAX_FEATURES", "SOLVERS", "DFSFit", "scatter_factors", "dfs_fit",
           "dfs_objective", "dfs", "gamma_cv", "trace_ratio_weights", "trace_ratio_subset", "trace_ratio"]

#: The regularisation parameters of the paper's grid search (section VI-E, Fig. 5).
GAMMA_GRID = (1e-6, 1e-4, 0.01, 0.1, 1.0, 10.0, 100.0, 1e4, 1e6)

#: Numbers of selected features of the paper's evaluation (section VI-C: 10 to 100 in steps of 5).
PAPER_FEATURE_COUNTS = tuple(range(10, 101, 5))

#: ``solver='auto'`` uses the dense solver up to this many non-constant features.
DENSE_MAX_FEATURES = 200

#: If the Lanczos solver fails (ARPACK does not converge, a factorisation breaks down), the dense
#: solver takes over up to this many non-constant features; beyond, a RuntimeError says what to do.
DENSE_FALLBACK_MAX_FEATURES = 3000

#: Below this many flops per iteration (``d^3``) the dense solver runs on one BLAS thread: for
#: small factorisations starting threads costs more than it saves (and on a loaded machine
#: waiting threads slow them down many times).  The Lanczos solver always runs on one thread:
#: its steps are matrix-vector products, and its one factorisation per iteration is a small part
#: of its time (measured: a 1,024 x 1,024 Cholesky factor took 0.02 s on one thread and 0.4 s on
#: two when the other core was busy).
MIN_PARALLEL_FLOPS = 1e9

SOLVERS = ("auto", "dense", "lanczos")


# --------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------

#: Rows of ``Z`` centred at a time by :func:`scatter_factors`.
SCATTER_BLOCK_ROWS = 1 << 15


def scatter_factors(Z, y, n_classes):
    """Factors of the scatter matrices of Eq. 6-7 for centred data ``Z`` (n x d).

    Returns
    -------
    H : ndarray, shape (c, d)
        Rows ``sqrt(n_k) (mu_k - mu)`` over the classes present: ``S_b = H^T H``.
    Xw : ndarray, shape (n, d)
        ``x_i - mu_{y_i}``: ``S_w = Xw^T Xw``; and ``S_t = Z^T Z = S_b + S_w``.
    """
    counts = np.bincount(y, minlength=n_classes)
    present = np.flatnonzero(counts)
    means = np.zeros((n_classes, Z.shape[1]))
    np.add.at(means, y, Z)
    means[present] /= counts[present, None]
    H = np.sqrt(counts[present])[:, None] * means[present]   # Z is centred: mu = 0
    # Z - means[y], a block of rows at a time (no n x d array of the class means)
    Xw = np.empty_like(Z)
    for start in range(0, Z.shape[0], SCATTER_BLOCK_ROWS):
        rows = slice(start, start + SCATTER_BLOCK_ROWS)
        np.subtract(Z[rows], means[y[rows]], out=Xw[rows])
    return H, Xw


def _is_exponent(value):
    return is_number(value) and 0.0 < float(value) <= 2.0


def _is_gamma(value):
    return (isinstance(value, str) and value == "cv") or is_positive_number(value)


def _grid_values(value):
    """The numbers of a gamma grid: a sequence, or a comma-separated string (the command line)."""
    if isinstance(value, str):
        try:
            return tuple(float(part) for part in value.split(","))
        except ValueError:
            return None
    if isinstance(value, bytes) or not hasattr(value, "__len__"):
        return None
    return tuple(value)


_GRID_ALLOWED = "a non-empty sequence of finite numbers > 0 (or a comma-separated string of them)"


def _is_gamma_grid(value):
    values = _grid_values(value)
    return bool(values) and all(is_positive_number(v) for v in values)


def _check_dfs_parameters(gamma, p, n_components, alpha, zeta, max_iter, tol, standardize, solver):
    Constraint("a finite number > 0 or 'cv'", _is_gamma).validate(gamma, "gamma")
    Constraint("a number in (0, 2]", _is_exponent).validate(p, "p")
    Constraint("None (c - 1) or an integer >= 1", is_none_or(is_positive_integer)).validate(n_components, "n_components")
    POSITIVE_NUMBER.validate(alpha, "alpha")
    POSITIVE_NUMBER.validate(zeta, "zeta")
    POSITIVE_INTEGER.validate(max_iter, "max_iter")
    NONNEGATIVE_NUMBER.validate(tol, "tol")
    BOOLEAN.validate(standardize, "standardize")
    one_of(SOLVERS).validate(solver, "solver")


# --------------------------------------------------------------------------
# DFS: the solvers of one iteration
# --------------------------------------------------------------------------

class _DenseSolver:
    """``eigh`` of the d x d pencil ``M a = theta (gamma D + alpha I + S_w) a``: O(d^3) per call."""

    name = "dense"

    def __init__(self, Z, H, Xw, alpha, n_components):
        d = Z.shape[1]
        self.M = Z.T @ Z
        self.M[np.diag_indices(d)] += alpha
        self.Sw = Xw.T @ Xw
        self.alpha = alpha
        self.l = n_components

    def solve(self, weights, previous):
        """Eigenvalues lambda (ascending) and A (d x l, A^T M A = I) for ``B = diag(weights) - S_b``."""
        d = self.M.shape[0]
        P = self.Sw.copy()
        P[np.diag_indices(d)] += weights + self.alpha
        theta, V = linalg.eigh(self.M, P, subset_by_index=[d - self.l, d - 1])
        theta = theta[::-1]
        V = V[:, ::-1]
        # V^T P V = I and M V = P V diag(theta): V^T M V = diag(theta).
        return 1.0 / theta - 1.0, V / np.sqrt(theta)


class _LanczosSolver:
    """Lanczos (ARPACK) on ``R^{-1} M R^{-T}`` with ``R R^T = gamma D + alpha I + S_w``, for the l largest theta.

    ``n >= d``: ``R`` is the Cholesky factor of the d x d matrix.  ``n < d``: with the
    diagonal ``L = gamma D + alpha I`` and ``Y = X_w L^{-1/2}`` (n x d),
    ``gamma D + alpha I + S_w = L^{1/2} (I + Y^T Y) L^{1/2}``; ``R = L^{1/2} G`` with the
    symmetric ``G = (I + Y^T Y)^{1/2}``, whose inverse is
    ``I - Y^T U diag(f(s)) U^T Y`` from the eigendecomposition ``Y Y^T = U diag(s) U^T``
    (n x n) and ``f(s) = 1 / (sqrt(1 + s) (1 + sqrt(1 + s)))`` -- nothing d x d.
    """

    name = "lanczos"

    def __init__(self, Z, H, Xw, alpha, n_components):
        self.Z = Z
        self.H = H
        self.Xw = Xw
        self.alpha = alpha
        self.l = n_components
        n, d = Z.shape
        self.low_rank = n < d
        if not self.low_rank:
            self.M = Z.T @ Z
            self.M[np.diag_indices(d)] += alpha
            self.Sw = Xw.T @ Xw
        # A fixed, generic start vector: ARPACK's own random start would make results vary.
        self.start = np.random.default_rng(20160401).standard_normal(d)

    def _times_M(self, v):
        if self.low_rank:
            return self.alpha * v + self.Z.T @ (self.Z @ v)
        return self.M @ v

    def _operator(self, shift):
        """(C v, R^{-T} v, R^T v) as functions, for the current diagonal ``shift = gamma D + alpha``."""
        if not self.low_rank:
            P = self.Sw.copy()
            P[np.diag_indices_from(P)] += shift
            factor = linalg.cholesky(P, lower=True, check_finite=False)

            def inverse_transpose(v):            # R^{-T} v
                return linalg.solve_triangular(factor, v, lower=True, trans="T", check_finite=False)

            def apply(v):                          # R^{-1} M R^{-T} v
                return linalg.solve_triangular(factor, self.M @ inverse_transpose(v), lower=True,
                                               check_finite=False)
            return apply, inverse_transpose, lambda v: factor.T @ v
        root = np.sqrt(shift)
        Y = self.Xw / root
        s, U = linalg.eigh(Y @ Y.T, check_finite=False)
        s = np.maximum(s, 0.0)
        Q = U.T @ Y                                # n x d
        f = 1.0 / (np.sqrt(1.0 + s) * (1.0 + np.sqrt(1.0 + s)))
        Zs = self.Z / root                         # Z L^{-1/2}
        alpha_over_shift = self.alpha / shift

        def g_inverse(v):                          # G^{-1} v
            return v - Q.T @ ((Q @ v) * (f if v.ndim == 1 else f[:, None]))

        def apply(v):                              # G^{-1} L^{-1/2} M L^{-1/2} G^{-1} v
            u = g_inverse(v)
            scaled = alpha_over_shift * u if u.ndim == 1 else alpha_over_shift[:, None] * u
            return g_inverse(scaled + Zs.T @ (Zs @ u))

        def inverse_transpose(v):                  # R^{-T} v = L^{-1/2} G^{-1} v
            u = g_inverse(v)
            return u / root if u.ndim == 1 else u / root[:, None]

        def transpose(v):                          # R^T v = G L^{1/2} v
            u = root * v
            return u + Q.T @ ((np.sqrt(1.0 + s) - 1.0) * (Q @ u))
        return apply, inverse_transpose, transpose

    def solve(self, weights, previous):
        from scipy.sparse.linalg import LinearOperator, eigsh

        d = self.Z.shape[1]
        apply, inverse_transpose, transpose = self._operator(weights + self.alpha)
        if previous is None:
            v0 = self.start
        else:
            # R^T times the previous eigenvectors (with distinct weights): near the wanted
            # eigenspace of C when A changes little; a little of the generic vector keeps the
            # Krylov space from being confined to an invariant subspace.
            v0 = transpose(previous @ np.arange(1.0, previous.shape[1] + 1.0))
            v0 = v0 / np.linalg.norm(v0) + 1e-3 * self.start / np.linalg.norm(self.start)
        ncv = min(d, max(2 * self.l + 1, self.l + 20))
        _, V = eigsh(LinearOperator((d, d), matvec=apply, matmat=apply, dtype=np.float64), k=self.l,
                     which="LA", v0=v0, ncv=ncv, tol=0.0, maxiter=max(1000, 10 * d))
        Q = inverse_transpose(V)
        # Rayleigh-Ritz in the span of the Ritz vectors: exact eigenpairs of the projected pencil.
        BQ = weights[:, None] * Q - self.H.T @ (self.H @ Q)
        MQ = self._times_M(Q)
        projected_B = Q.T @ BQ
        projected_M = Q.T @ MQ
        values, W = linalg.eigh((projected_B + projected_B.T) / 2, (projected_M + projected_M.T) / 2)
        return values, Q @ W


def dfs_objective(A, H, gamma, p, zeta):
    """The objective of Remark 2: ``-tr(A^T S_b A) + gamma sum_i (a^i . a^i + zeta)^(p/2)``.

    Returns (objective, tr(A^T S_b A), sum_i (a^i . a^i + zeta)^(p/2)).
    """
    trace = float(np.sum((H @ A) ** 2))
    penalty = float(np.sum((np.einsum("ij,ij->i", A, A) + zeta) ** (p / 2.0)))
    return -trace + gamma * penalty, trace, penalty


@dataclass
class DFSFit:
    """The solution of Algorithm 1 (see :func:`dfs_fit`)."""

    #: Transformation matrix, shape (n_features, l); zero rows for constant columns.
    A: np.ndarray
    #: ``||a^i||_2`` of every column (0 for constant columns).
    row_norms: np.ndarray
    #: The ``l`` smallest eigenvalues of Eq. 23 at the last iteration (ascending).
    eigenvalues: np.ndarray
    #: Per iteration: ``iteration``, ``objective``, ``trace_sb``, ``penalty``, ``divergence``.
    iterations: dict
    converged: bool
    solver: str
    n_components: int
    constant: np.ndarray
    notes: list = field(default_factory=list)


def _centred(X, constant):
    """The non-constant columns of ``X`` centred (``standardize=False``), or a ValueError naming the
    columns whose sum of squares leaves the float64 range (the scatter matrices would hold inf or
    lose the column to underflow)."""
    varying = np.flatnonzero(~constant)
    scaled, exponent = scaled_to_unit(X[:, varying])
    centred = scaled - scaled.mean(axis=0)
    with np.errstate(over="ignore", under="ignore"):
        squares = np.ldexp(np.einsum("ij,ij->j", centred, centred), 2 * exponent)
    # Sums over the features and the solvers' norms stay finite below this bound.
    limit = np.finfo(np.float64).max / (16.0 * X.shape[0] * max(varying.size, 1))
    outside = np.flatnonzero(~(squares <= limit) | (squares < np.finfo(np.float64).tiny))
    if outside.size:
        columns = varying[outside]
        raise ColumnError(f"X: column(s) {{columns}}: with standardize=False the scatter matrices hold the columns' "
                          f"sums of squares, and at this scale (largest |x| near 2^{int(exponent[outside[0]])}) they"
                          " are outside the float64 range; use standardize=True (the default, scale-invariant) or "
                          "rescale the columns", columns)
    return np.ldexp(centred, exponent)


def _choose_solver(solver, n_varying, n_components):
    if solver != "auto":
        return solver
    if n_varying <= DENSE_MAX_FEATURES or 4 * n_components > n_varying:
        return "dense"
    return "lanczos"


def dfs_fit(X, y, gamma=1.0, p=1.0, n_components=None, alpha=1.0, zeta=1e-12, max_iter=20, tol=1e-6,
            standardize=True, solver="auto", n_threads=1):
    """Algorithm 1 of Tao et al. (2016) for one value of gamma.

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
    y : ndarray of int, shape (n_samples,)
        Class codes 0..n_classes-1, at least two classes present.
    gamma : float > 0
        Regularisation parameter of Eq. 17.
    p : float in (0, 2]
        Exponent of the l2,p penalty (Eq. 17; convergence proved for 0 < p <= 2, Theorem 1).
    n_components : int or None
        l, the number of columns of A; None: c - 1 (section V-C, as in LDA).
    alpha : float > 0
        Ridge of ``S_t + alpha I`` (Remark 1).
    zeta : float > 0
        Smoothing of ``D_ii = (p/2) (a^i . a^i + zeta)^(p/2 - 1)`` (Remark 2).
    max_iter : int >= 1
        At most this many iterations (eigenproblems).
    tol : float >= 0
        Stop when ``|obj_{t-1} - obj_t| <= tol |obj_{t-1}|``; 0 disables the early stop (exactly
        ``max_iter`` iterations).
    standardize : bool
        Centre and scale every column to unit sample standard deviation first (section VI-A):
        the ranking is then invariant to the scale of each column (multiplied by any number
        from 1e-300 to 1e300: the same ranking up to rounding; the standardisation is
        computed on the columns scaled by powers of two, :func:`fstools.core.arrays.standardize_columns`).
        False: centred only; a column whose sum of squares leaves the float64 range
        (scale beyond about 1e150 or below about 1e-150) is refused with a ValueError naming it.
    solver : {'auto', 'dense', 'lanczos'}
        See the module docstring.
    n_threads : int
        BLAS threads of the dense solver, used when an iteration costs at least
        :data:`MIN_PARALLEL_FLOPS`; the Lanczos solver runs on one.  The result does not
        depend on it beyond round-off.

    Returns
    -------
    DFSFit
    """
    _check_dfs_parameters(gamma, p, n_components, alpha, zeta, max_iter, tol, standardize, solver)
    X = as_float_matrix(X)
    y, n_classes, counts = as_class_codes(y, X.shape[0])
    n_samples, n_features = X.shape
    if n_samples < 3:
        raise ValueError(f"X: DFS needs at least 3 samples; got {n_samples}")
    constant = constant_columns(X)
    n_varying = int(np.count_nonzero(~constant))
    c = int(np.count_nonzero(counts))
    l = c - 1 if n_components is None else int(n_components)
    if n_varying < 1:
        raise ValueError("X: every column is constant; DFS needs at least one varying column")
    if l > n_varying:
        raise ValueError(f"n_components: must be at most the number of non-constant columns ({n_varying}); "
                         f"got {l}")
    gamma, p, alpha, zeta = float(gamma), float(p), float(alpha), float(zeta)
    chosen = _choose_solver(solver, n_varying, l)
    if chosen == "lanczos" and l >= n_varying - 1:
        chosen = "dense"   # ARPACK needs l < (number of columns) - 1
    notes = []

    threads = max(1, int(n_threads)) if chosen == "dense" and float(n_varying) ** 3 >= MIN_PARALLEL_FLOPS else 1
    with threadpool_limits(limits=threads, user_api="blas"):
        varying = X if not constant.any() else X[:, ~constant]  # (no copy when every column varies)
        Z = standardize_columns(varying, ddof=1) if standardize else _centred(X, constant)
        H, Xw = scatter_factors(Z, y, n_classes)
        engine = (_DenseSolver if chosen == "dense" else _LanczosSolver)(Z, H, Xw, alpha, l)
        weights = np.full(n_varying, gamma)            # gamma D with D = I (Algorithm 1, step 2)
        records = {"iteration": [], "objective": [], "trace_sb": [], "penalty": [], "divergence": []}
        A = None
        previous_norms = None
        converged = False
        for iteration in range(1, int(max_iter) + 1):
            try:
                eigenvalues, A = engine.solve(weights, A)
            except (sparse_linalg.ArpackError, linalg.LinAlgError) as error:   # ArpackNoConvergence is an ArpackError
                if engine.name == "dense":
                    raise
                if n_varying > DENSE_FALLBACK_MAX_FEATURES:
                    raise RuntimeError(f"DFS: the Lanczos eigensolver failed at iteration {iteration} "
                                       f"({type(error).__name__}: {error}); with {n_varying} features the "
                                       "dense solver is not tried automatically: pass solver='dense' "
                                       "(O(d^3) per iteration) or a larger alpha") from error
                notes.append(f"the Lanczos solver failed at iteration {iteration} ({type(error).__name__}); "
                             "the dense solver took over")
                engine = _DenseSolver(Z, H, Xw, alpha, l)
                eigenvalues, A = engine.solve(weights, A)
            squared = np.einsum("ij,ij->i", A, A)
            norms = np.sqrt(squared)
            objective, trace, penalty = dfs_objective(A, H, gamma, p, zeta)
            records["iteration"].append(iteration)
            records["objective"].append(objective)
            records["trace_sb"].append(trace)
            records["penalty"].append(penalty)
            records["divergence"].append(np.nan if previous_norms is None
                                         else float(np.sum(np.abs(norms - previous_norms))))
            if tol > 0 and iteration > 1:
                last = records["objective"][-2]
                if abs(last - objective) <= tol * abs(last):
                    converged = True
            previous_norms = norms
            weights = gamma * (p / 2.0) * (squared + zeta) ** (p / 2.0 - 1.0)   # gamma D (Remark 2)
            if converged:
                break

    full_A = np.zeros((n_features, l))
    full_A[~constant] = A
    row_norms = np.zeros(n_features)
    row_norms[~constant] = np.sqrt(np.einsum("ij,ij->i", A, A))
    iterations = {name: np.asarray(values, dtype=np.int64 if name == "iteration" else np.float64)
                  for name, values in records.items()}
    return DFSFit(A=full_A, row_norms=row_norms, eigenvalues=np.asarray(eigenvalues), iterations=iterations,
                  converged=converged, solver=engine.name, n_components=l, constant=constant, notes=notes)


# --------------------------------------------------------------------------
# DFS: gamma by cross-validation
# --------------------------------------------------------------------------

def _linear_svm():
    from sklearn.svm import SVC

    # LIBSVM with a linear kernel and C = 1, one-against-one for several classes (section VI-A).
    return SVC(kernel="linear", C=1.0)


def _fold_accuracy(Z_train, y_train, Z_test, y_test):
    model = _linear_svm().fit(Z_train, y_train)
    return float(np.mean(model.predict(Z_test) == y_test))


def gamma_cv(X, y, k=None, grid=GAMMA_GRID, folds=5, within_folds=False, random_state=0, n_threads=1,
             **dfs_params):
    """Choose gamma by the cross-validated accuracy of a linear SVM on the top-k DFS features.

    The paper chooses gamma by grid search on cross-validated accuracy (section V-C) over
    ``GAMMA_GRID`` (section VI-E), with a linear SVM (LIBSVM, C = 1) and 5-fold
    cross-validation (section VI-A).  For each gamma:

    * ``within_folds=False`` (the paper's protocol, section VI-C): DFS ranks the features
      once on all the data; the SVM is cross-validated on the top-k columns.  The held-out
      folds were seen by the selection, so the accuracies are optimistic.
    * ``within_folds=True``: DFS is re-run on each training fold (no selection bias).

    The SVM sees the columns as DFS does: standardised (on all the data in the paper's
    protocol, on the training fold within folds) when ``standardize`` is True.

    Parameters
    ----------
    X, y : arrays
    k : int or None
        Number of top features given to the SVM.  None: the mean accuracy over the paper's
        numbers of features 10, 15, ..., 100 (section VI-C; those <= the number of
        non-constant columns, or all of them if there are fewer than 10).
    grid : sequence of float > 0
    folds : int >= 2
        ``StratifiedKFold(folds, shuffle=True, random_state=random_state)``.
    within_folds : bool
    random_state : int or None
    n_threads : int
    **dfs_params
        The other parameters of :func:`dfs_fit` (p, n_components, alpha, ...).

    Returns
    -------
    best : float
        The gamma with the highest mean accuracy; ties go to the first in ``grid`` order.
    table : dict of str -> ndarray
        ``gamma``, ``accuracy`` (mean over folds and numbers of features), ``sd`` (standard
        deviation over the folds of the per-fold accuracy), ``iterations`` and ``converged``
        (of the all-data fit; within folds: the largest count and whether every fit
        converged), ``chosen``.
    notes : list of str
    """
    from sklearn.model_selection import StratifiedKFold

    X = as_float_matrix(X)
    y, _, counts = as_class_codes(y, X.shape[0])
    standardize = dfs_params.get("standardize", True)
    constant = constant_columns(X)
    n_varying = int(np.count_nonzero(~constant))
    if k is None:
        numbers_of_features = [m for m in PAPER_FEATURE_COUNTS if m <= n_varying] or [n_varying]
    else:
        numbers_of_features = [min(int(k), X.shape[1])]
    smallest = int(counts[counts > 0].min())
    notes = []
    if smallest < folds:
        notes.append(f"gamma CV: the smallest class has {format_count(int(smallest), 'member')}, fewer than cv_folds = {folds}: "
                     "some folds miss it")
    splitter = StratifiedKFold(n_splits=int(folds), shuffle=True, random_state=random_state)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The least populated class", category=UserWarning)
        splits = list(splitter.split(X, y))

    def scaled(train_rows, test_rows):
        if not standardize:
            return X[train_rows], X[test_rows]
        mean = X[train_rows].mean(axis=0)
        sd = X[train_rows].std(axis=0, ddof=1)
        sd[sd == 0] = 1.0
        return (X[train_rows] - mean) / sd, (X[test_rows] - mean) / sd

    rows = {"gamma": [], "accuracy": [], "sd": [], "iterations": [], "converged": []}
    everything = np.arange(X.shape[0])
    Z_all, _ = scaled(everything, everything[:0])
    for gamma in grid:
        fold_accuracy = []
        if not within_folds:
            fit = dfs_fit(X, y, gamma=gamma, n_threads=n_threads, **dfs_params)
            order = rank_features(fit.row_norms, higher_is_better=True, last=fit.constant)
            n_iterations, converged = len(fit.iterations["iteration"]), fit.converged
            for train, test in splits:
                fold_accuracy.append(np.mean([_fold_accuracy(Z_all[np.ix_(train, order[:m])], y[train],
                                                             Z_all[np.ix_(test, order[:m])], y[test])
                                              for m in numbers_of_features]))
        else:
            n_iterations, converged = 0, True
            for train, test in splits:
                fit = dfs_fit(X[train], y[train], gamma=gamma, n_threads=n_threads, **dfs_params)
                order = rank_features(fit.row_norms, higher_is_better=True, last=fit.constant)
                n_iterations = max(n_iterations, len(fit.iterations["iteration"]))
                converged = converged and fit.converged
                Z_train, Z_test = scaled(train, test)
                fold_accuracy.append(np.mean([_fold_accuracy(Z_train[:, order[:m]], y[train],
                                                             Z_test[:, order[:m]], y[test])
                                              for m in numbers_of_features]))
        rows["gamma"].append(float(gamma))
        rows["accuracy"].append(float(np.mean(fold_accuracy)))
        rows["sd"].append(float(np.std(fold_accuracy, ddof=1)) if len(fold_accuracy) > 1 else np.nan)
        rows["iterations"].append(n_iterations)
        rows["converged"].append(bool(converged))
    accuracy = np.asarray(rows["accuracy"])
    best_index = int(np.flatnonzero(accuracy == accuracy.max())[0])   # ties: first in grid order
    table = {name: np.asarray(values) for name, values in rows.items()}
    table["chosen"] = np.arange(len(grid)) == best_index
    features_text = (f"the top {numbers_of_features[0]} features" if k is not None else
                     f"the top m features averaged over m = {', '.join(map(str, numbers_of_features))}")
    protocol = "DFS re-run on each training fold" if within_folds else \
        "DFS on all data, then CV of the classifier (the paper's protocol; optimistic)"
    notes.append(f"gamma = {grid[best_index]:g} chosen by {folds}-fold CV accuracy of a linear SVM (C = 1) on "
                 f"{features_text}; {protocol}; random_state = {random_state!r}")
    return float(grid[best_index]), table, notes


# --------------------------------------------------------------------------
# DFS: the registered method
# --------------------------------------------------------------------------

def dfs(X, y, k=None, n_threads=1, gamma=1.0, p=1.0, n_components=None, alpha=1.0, zeta=1e-12, max_iter=20,
        tol=1e-6, standardize=True, solver="auto", gamma_grid=GAMMA_GRID, cv_folds=5, cv_within_folds=False,
        random_state=0):
    """DFS: discriminative feature selection with l2,p-norm regularisation (Tao et al. 2016).

    Minimises ``-tr(A^T S_b A) + gamma sum_i (a^i . a^i + zeta)^(p/2)`` subject to
    ``A^T (S_t + alpha I) A = I`` (Eq. 17 with Remarks 1-2) by Algorithm 1 and ranks the
    features by ``||a^i||_2``.  See the module docstring for the solvers and the choices
    the paper leaves open.

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
    y : ndarray of int32, shape (n_samples,)
        Class codes 0..n_classes-1, at least two classes present.
    k : int or None
        Used only by ``gamma='cv'`` (the SVM sees the top k features); every column is ranked.
    n_threads : int
        Threads of the linear algebra.
    gamma : float > 0 or 'cv', default 1.0
        Regularisation parameter (Eq. 17).  The paper tunes it by grid search on
        cross-validated accuracy (section V-C); 1.0 is the middle of its grid (section VI-E),
        and on the paper's real data it is the grid's best value on three of four sets (see
        ``gamma_grid``).  ``'cv'``: choose it from ``gamma_grid`` with :func:`gamma_cv`, on
        the top ``k`` features (ties go to the first value in grid order, the smallest).  With
        few rows the accuracy on the top k can saturate: on COLON (62 rows) gamma 1e-6, 0.01
        and 0.1 all reach 100 % on the top 80, the tie goes to 1e-6, and its top 20 features
        reach 83.6 % where gamma = 1 reaches 96.8 %; ``k=None`` (the mean over 10, 15, ..., 100
        features) chooses 0.1 there.
    p : float in (0, 2], default 1.0
        The l2,p exponent; 1 is the convex l2,1 case the paper uses to compare with other
        methods (section VI-C); Theorem 1 proves convergence for 0 < p <= 2.
    n_components : int or None, default None
        l, the reduced dimensionality; None is c - 1, as in LDA (section V-C).
    alpha : float > 0, default 1.0
        ``S_t + alpha I`` (Remark 1 gives no value; see the module docstring).
    zeta : float > 0, default 1e-12
        Remark 2's smoothing ("small"; no value given).
    max_iter : int, default 20
        The paper's runs converge within 20 iterations (section VI-F, Fig. 6).
    tol : float >= 0, default 1e-6
        Relative change of the objective at which to stop early.
    standardize : bool, default True
        Zero mean, unit sample sd per column first (section VI-A).
    solver : {'auto', 'dense', 'lanczos'}, default 'auto'
        ``'lanczos'`` never forms a d x d matrix when n < d (module docstring).
    gamma_grid : sequence of float > 0, default (1e-6, 1e-4, 0.01, 0.1, 1, 10, 100, 1e4, 1e6)
        The grid of section VI-E, used when ``gamma='cv'``; also accepted as a comma-separated
        string (``"0.01,1,100"``, as the command line passes it).  On scikit-feature's COIL20,
        ORL, COLON and ISOLET files (``vignettes/reproduce_dfs_paper.py``: linear SVM, 5-fold
        CV, the top 20, 40, 60 and 80 features of a ranking on all rows) the best mean accuracy
        was at gamma = 1 on COIL20 (98.8 %), ORL (93.9 %) and ISOLET (89.8 %) and at 0.1 on
        COLON (98.0 %; 96.5 % at 1); 1e-6 and 1e-4 gave the same accuracies on COIL20, ORL
        and ISOLET and the same mean on COLON (the penalty is then negligible), and the mean
        accuracy at 100, 1e4 and 1e6 was 5 to 33 points below the best.  The informative part
        of the grid is 0.01 to 10.
    cv_folds : int >= 2, default 5
        Folds of the cross-validation (section VI-A: 5-fold).
    cv_within_folds : bool, default False
        False: the paper's protocol (select on all data, cross-validate the SVM);
        True: re-run DFS on each training fold.
    random_state : int or None, default 0
        Seed of the stratified folds.

    Returns
    -------
    MethodOutput
        ``scores`` = ``||a^i||_2`` (0 for constant columns); columns ``row_norm``;
        ``ranking`` = every column by decreasing row norm, ties to the lower index,
        constant columns last; ``iterations`` = per iteration ``objective`` (Remark 2's
        objective of ``A_t``), ``trace_sb`` (``tr(A_t^T S_b A_t)``), ``penalty``
        (``sum_i (a^i . a^i + zeta)^(p/2)``) and ``divergence`` (Eq. 33 between ``A_t`` and
        ``A_{t-1}``; NaN at t = 1); with ``gamma='cv'`` also ``tables['gamma_cv']``.
    """
    _check_dfs_parameters(gamma, p, n_components, alpha, zeta, max_iter, tol, standardize, solver)
    Constraint(_GRID_ALLOWED, _is_gamma_grid).validate(gamma_grid, "gamma_grid")
    integer_at_least(2).validate(cv_folds, "cv_folds")
    BOOLEAN.validate(cv_within_folds, "cv_within_folds")
    SEED.validate(random_state, "random_state")
    X = as_float_matrix(X)
    y, n_classes, counts = as_class_codes(y, X.shape[0])
    params = dict(p=p, n_components=n_components, alpha=alpha, zeta=zeta, max_iter=max_iter, tol=tol,
                  standardize=standardize, solver=solver)
    notes = []
    tables = {}
    if isinstance(gamma, str):
        gamma, table, cv_notes = gamma_cv(X, y, k=k, grid=tuple(float(v) for v in _grid_values(gamma_grid)),
                                          folds=int(cv_folds),
                                          within_folds=bool(cv_within_folds), random_state=random_state,
                                          n_threads=n_threads, **params)
        tables["gamma_cv"] = table
        notes += cv_notes
    fit = dfs_fit(X, y, gamma=gamma, n_threads=n_threads, **params)
    n_iterations = len(fit.iterations["iteration"])
    objective = fit.iterations["objective"]
    c = int(np.count_nonzero(counts))
    notes.append(f"DFS: gamma = {gamma:g}, p = {float(p):g}, l = {fit.n_components}"
                 f"{' (c - 1)' if n_components is None else ''}, alpha = {float(alpha):g}, "
                 f"zeta = {float(zeta):g}; data {'standardised (ddof = 1)' if standardize else 'centred only'}; "
                 f"solver: {fit.solver}")
    if fit.converged:
        notes.append(f"converged after {format_count(n_iterations, 'iteration')}: relative change of the objective "
                     f"{abs(objective[-2] - objective[-1]) / abs(objective[-2]):.1e} <= tol = {float(tol):g}; "
                     "per-iteration records in res.iterations, plot(kind='convergence')")
    else:
        change = (f"; last relative change of the objective "
                  f"{abs(objective[-2] - objective[-1]) / abs(objective[-2]):.1e}" if n_iterations > 1 else "")
        notes.append(f"stopped at max_iter = {n_iterations} without meeting tol = {float(tol):g}{change}; "
                     "per-iteration records in res.iterations, plot(kind='convergence')")
    if n_components is not None and fit.n_components > c - 1:
        notes.append(f"n_components = {fit.n_components} exceeds c - 1 = {c - 1}, the rank of S_b: the extra "
                     "directions are fixed by the penalty and S_t alone")
    if fit.constant.any():
        notes.append(f"{format_count(int(fit.constant.sum()), 'constant column')} left out of the eigenproblem: row norm 0, "
                     "ranked last")
    notes += fit.notes
    output = MethodOutput(
        ranking=rank_features(fit.row_norms, higher_is_better=True, last=fit.constant),
        scores=fit.row_norms,
        columns={"row_norm": fit.row_norms},
        notes=notes,
        iterations=fit.iterations,
        tables=tables,
    )
    return output


# --------------------------------------------------------------------------
# Trace ratio
# --------------------------------------------------------------------------

def trace_ratio_weights(X, y):
    """Per-feature between- and within-class scatter: the Fisher-type weights of Nie et al. (2008).

    With the within-class graph ``W_ij = 1/n_c`` for i, j in class c (0 otherwise),
    ``L_w = I - W`` and ``L_b = W - 11^T/n``, the diagonal entries of ``X^T L_b X`` and
    ``X^T L_w X`` are ``b_r = sum_c n_c (mu_cr - mu_r)^2`` and
    ``w_r = sum_c sum_{i in c} (x_ir - mu_cr)^2`` (O(n d), no n x n graph).

    Returns
    -------
    between, within : ndarray of float64, shape (n_features,)
    """
    X = as_float_matrix(X)
    # fisher_scores gives them divided by n, with constant columns and classes decided exactly.
    _, between, within = fisher_scores(X, y)
    return between * X.shape[0], within * X.shape[0]


def _check_scatter_range(between, within, constant):
    """ValueError naming the non-constant columns whose scatter is outside the float64 range
    (only possible without standardisation: the scatter grows with the square of the scale)."""
    limit = np.finfo(np.float64).max / (4.0 * max(between.shape[0], 1))
    total = between + within
    outside = np.flatnonzero(~constant & (~(total <= limit) | (total == 0)))
    if outside.size:
        raise ColumnError("X: column(s) {columns}: the between- and within-class scatter, which grows with the "
                          "square of the column's scale, is outside the float64 range; use standardize=True (the "
                          "default, scale-invariant) or rescale the columns", outside)


def trace_ratio_subset(between, within, k, constant=None, max_iter=100):
    """The k-subset maximising ``sum_S between / sum_S within`` (Nie et al. 2008), by Dinkelbach's iteration.

    Start: ``lambda_0`` = the ratio of the k features with the largest individual ratio
    ``between_i / within_i``.  Step: take the k largest ``between_i - lambda_t within_i``
    (ties to the lower index) and set ``lambda_{t+1}`` to their ratio; stop when the
    ratio no longer increases (the subset then repeats).  ``lambda_t`` never decreases,
    and the fixed point is the global optimum (Nie et al. 2008, section 3).

    Returns
    -------
    subset : ndarray of intp, shape (k,)
    ratio : float
        ``inf`` when k features have zero within-class and positive between-class scatter.
    history : list of float
        ``lambda_t`` per iteration (``lambda_0`` first).
    """
    between = np.asarray(between, dtype=np.float64)
    within = np.asarray(within, dtype=np.float64)
    n = between.shape[0]
    constant = np.zeros(n, dtype=bool) if constant is None else np.asarray(constant, dtype=bool)
    k = int(k)
    separating = ~constant & (within == 0) & (between > 0)
    if np.count_nonzero(separating) >= k:
        subset = rank_features(np.where(separating, between, -np.inf), last=~separating, k=k)
        return subset, np.inf, [np.inf]
    with np.errstate(divide="ignore", invalid="ignore"):
        individual = np.where(within > 0, between / within, np.where(between > 0, np.inf, 0.0))
    subset = rank_features(individual, last=constant, k=k)
    ratio = float(between[subset].sum() / within[subset].sum())
    history = [ratio]
    for _ in range(int(max_iter)):
        candidate = rank_features(between - ratio * within, last=constant, k=k)
        new_ratio = float(between[candidate].sum() / within[candidate].sum())
        if new_ratio <= ratio:       # no improvement: the current subset is optimal
            break
        subset, ratio = candidate, new_ratio
        history.append(ratio)
    return subset, ratio, history


def trace_ratio(X, y, k=None, n_threads=1, standardize=True):
    """Trace ratio criterion with Fisher-type weights (Nie, Xiang, Jia, Zhang and Yan 2008).

    Selects the ``k`` features maximising ``tr(W^T S_b W) / tr(W^T S_w W)`` over selection
    matrices W, i.e. ``sum_{i in S} b_i / sum_{i in S} w_i`` (between- over within-class
    scatter, :func:`trace_ratio_weights`), by :func:`trace_ratio_subset`.

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
    y : ndarray of int32, shape (n_samples,)
        Class codes 0..n_classes-1, at least two classes present.
    k : int or None
        Subset size; None: every column (the ratio is then that of all columns).
    n_threads : int
        Unused (O(n d) NumPy).
    standardize : bool, default True
        Standardise every column first, as the DFS paper does for every method it compares
        (section VI-A).  On standardised columns ``b_i + w_i = n - 1`` for all i, so the
        optimal subset is the k largest Fisher scores, and the ranking is invariant to the
        scale of each column (multiplied by any number from 1e-300 to 1e300: the same
        ranking up to rounding; the standardisation is computed on the columns scaled by
        powers of two).  On raw columns the subset-level ratio mixes the features' units,
        and a column whose scatter leaves the float64 range (scale beyond about 1e150 or
        below about 1e-160) is refused with a ValueError naming it.

    Returns
    -------
    MethodOutput
        ``scores`` = ``b_i - lambda* w_i`` at the final ratio ``lambda*`` (the feature-level
        score; the k selected are exactly the k largest); columns ``between``, ``within``;
        ``ranking`` = every column by decreasing score, ties to the lower index, constant
        columns last; ``iterations`` = ``trace_ratio`` (``lambda_t``) per iteration.
    """
    BOOLEAN.validate(standardize, "standardize")
    X = as_float_matrix(X)
    constant = constant_columns(X)
    if standardize and X.shape[0] > 1:
        # On the columns scaled by powers of two (exact): the same values, no overflow near 1e154.
        Z, _ = scaled_to_unit(X)
        Z = Z - Z.mean(axis=0)
        sd = Z.std(axis=0, ddof=1)
        Z[:, ~constant] /= sd[~constant]
        X = Z
    between, within = trace_ratio_weights(X, y)
    _check_scatter_range(between, within, constant)
    n_features = X.shape[1]
    size = n_features if k is None else min(int(k), n_features)
    subset, ratio, history = trace_ratio_subset(between, within, size, constant)
    if np.isinf(ratio):
        scores = np.where(~constant & (within == 0) & (between > 0), between, -np.inf)
        scores[constant] = 0.0
    else:
        scores = between - ratio * within
    ranking = rank_features(scores, higher_is_better=True, last=constant)
    # The subset is the k best scores (ties resolved alike), so the ranking starts with it.
    notes = [f"trace ratio lambda* of the {size} selected: {ratio:.6g}; start lambda_0 = {history[0]:.6g} "
             f"(the {size} best individual ratios b_i / w_i), {len(history) - 1} update(s)"]
    if standardize:
        notes.append("columns standardised (ddof = 1) first (DFS paper, section VI-A)")
    if constant.any():
        notes.append(f"{format_count(int(constant.sum()), 'constant column')}: b = w = 0, ranked last")
    return MethodOutput(
        ranking=ranking,
        scores=scores,
        columns={"between": between, "within": within},
        notes=notes,
        iterations={"iteration": np.arange(len(history), dtype=np.int64),
                    "trace_ratio": np.asarray(history, dtype=np.float64)},
    )


# --------------------------------------------------------------------------
# Registration
# --------------------------------------------------------------------------

def _gamma_value(value):
    return value if isinstance(value, str) else float(value)


register(MethodSpec(
    name="dfs",
    description="DFS: uncorrelated LDA with an l2,p row-sparsity penalty; rank by row norms of A",
    function=dfs,
    parameters=(
        Parameter("gamma", 1.0, "regularisation parameter of Eq. 17; 'cv' = grid search on CV accuracy "
                  "(section V-C) over gamma_grid; 1.0 is the middle of the paper's grid (section VI-E)",
                  Constraint("a finite number > 0 or 'cv'", _is_gamma, _gamma_value)),
        Parameter("p", 1.0, "exponent of ||A||_{2,p}^p (Eq. 17); p = 1 in the paper's comparisons "
                  "(section VI-C); convergence proved for 0 < p <= 2 (Theorem 1)",
                  Constraint("a number in (0, 2]", _is_exponent, float)),
        Parameter("n_components", None, "l, columns of A: None = c - 1 as in LDA (section V-C)",
                  Constraint("None or an integer >= 1", is_none_or(is_positive_integer), none_or_int)),
        Parameter("alpha", 1.0, "ridge of S_t + alpha I (Remark 1; no value in the paper)",
                  Constraint("a finite number > 0", is_positive_number, float)),
        Parameter("zeta", 1e-12, "smoothing in D_ii = (p/2)(a^i.a^i + zeta)^(p/2-1) (Remark 2; 'small')",
                  Constraint("a finite number > 0", is_positive_number, float)),
        Parameter("max_iter", 20, "iteration limit (the paper converges within 20 iterations, section VI-F)",
                  Constraint("an integer >= 1", is_positive_integer, int)),
        Parameter("tol", 1e-6, "stop when the objective changes by at most tol relative (Algorithm 1 iterates "
                  "'until converges'; the objective is non-increasing, Theorem 1)",
                  Constraint("a finite number >= 0", is_nonnegative_number, float)),
        Parameter("standardize", True, "zero mean, unit sample sd per column first (section VI-A)",
                  Constraint("True or False", is_bool, bool)),
        Parameter("solver", "auto", "eigensolver of Eq. 23: 'dense' (O(d^3), section V-B), 'lanczos' (the l "
                  "wanted eigenpairs only; no d x d matrix when n < d), 'auto'", Constraint("one of 'auto', 'dense', 'lanczos'",
                  is_one_of(SOLVERS))),
        Parameter("gamma_grid", GAMMA_GRID, "grid of gamma='cv' (section VI-E)", Constraint(_GRID_ALLOWED, _is_gamma_grid,
                  lambda v: tuple(float(x) for x in _grid_values(v)))),
        Parameter("cv_folds", 5, "folds of gamma='cv' (5-fold, section VI-A)", Constraint("an integer >= 2", is_integer_at_least(2), int)),
        Parameter("cv_within_folds", False, "gamma='cv': re-run DFS in each training fold (True) or select on "
                  "all data as the paper does (False, section VI-C)", Constraint("True or False", is_bool, bool)),
        Parameter("random_state", 0, "seed of the stratified folds of gamma='cv' (5-fold CV, section VI-A)",
                  Constraint("None or an integer >= 0", is_seed,
                  none_or_int)),
    ),
    capabilities=frozenset({"supervised", "multiclass"}),
    score_name="||a^i||",
    higher_is_better=True,
    reference="Tao, Hou, Nie, Jiao & Yi (2016) IEEE TNNLS 27(4):796-808",
    criterion="min_A -tr(A^T S_b A) + gamma sum_i (a^i.a^i + zeta)^(p/2)  s.t.  A^T (S_t + alpha I) A = I;  "
              "rank by ||a^i||_2",
))

register(MethodSpec(
    name="trace_ratio",
    description="Trace ratio: the k-subset maximising between- over within-class scatter (Fisher weights)",
    function=trace_ratio,
    parameters=(
        Parameter("standardize", True, "standardise the columns first, as the DFS paper does for every "
                  "method (section VI-A)", Constraint("True or False", is_bool, bool)),
    ),
    capabilities=frozenset({"supervised", "multiclass"}),
    score_name="b_i - lambda* w_i",
    higher_is_better=True,
    reference="Nie, Xiang, Jia, Zhang & Yan (2008) AAAI 671-676",
    criterion="max_{|S| = k} sum_S b_i / sum_S w_i  (b: between-, w: within-class scatter); "
              "score b_i - lambda* w_i",
))

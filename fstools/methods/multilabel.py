"""Multi-label feature selection: ELC, LLSF and per-label Fisher / mutual information.

``X`` is an ``(n, d)`` float matrix, ``Y`` an ``(n, l)`` 0/1 label matrix (one
column per label, each with both values).  Every method scores and ranks all
``d`` features.

* :func:`elc` -- ELC, multi-label feature selection by embedding label
  correlations (Wang, Xu, Wei, Zhang and Ma 2020, *Applied Sciences* 10(22),
  8093), solved by the PADM of its Algorithm 1.
* :func:`llsf` -- LLSF, learning label-specific features (Huang, Li, Huang and
  Wu, IEEE TKDE 28(12), 2016), one of the ELC paper's baselines: an l1-sparse
  linear regression of ``Y`` on ``X`` with a label-correlation penalty, solved by
  accelerated proximal gradient; features ranked by the row norms of ``W``.
* :func:`ml_fisher` and :func:`ml_mi` -- the simple per-label
  baselines of multi-label feature selection: the Fisher score (resp. the mutual
  information) of each feature with each label as a two-class problem,
  averaged over the labels.

ELC in brief (section 3, Eq. 1)
-------------------------------
``min_W 1/2 || Yhat^T Yhat - S ||_F^2`` with ``Yhat = (1/n) (X W)^T Y``,
``W in {0, 1}^(d x l)`` and ``||W||_{2,0} = k``: choose the k features whose
label correlations ``Yhat^T Yhat`` best reproduce the correlations ``S`` of the
labels themselves.  Section 4 relaxes it (Eq. 2-3) to::

    min_{W, p}  1/2 || A diag(p) W - Gamma* ||_F^2 + lambda ||W||_{2,1},
    A = Y^T X (l x d),  Gamma* = n Phi Sigma^(1/2)  (S = Phi Sigma Phi^T),
    p in {0, 1}^d,  sum(p) = k,

and solves it by PADM (Algorithm 1): U by row-wise group shrinkage (Eq. 9), W
by a linearised step with ``tau`` (Eq. 12-13), p as the k features with the
smallest ``|| Y^T f_i w_i - Gamma* ||_F^2`` (Eq. 14), then the multiplier V
(Eq. 15); stop at ``t_max = 1000`` or when ``||W_{t+1} - W_t||_F <= 1e-4``
(Appendix B).

Choices the paper leaves open, made here (each a parameter or documented rule)
-----------------------------------------------------------------------------
* **Feature scaling** (``standardize``).  Section 3.2 supposes features with
  "mean zero and unit length", but the identity of Property 2
  (``<f_i, y_c> <f_j, y_c> = n^2 sigma_c^2 rho_i rho_j``) and the scale of Eq. (1)
  (``Yhat = (1/n) (XW)^T Y`` against ``S`` with unit diagonal, ``Gamma* = n Phi
  Sigma^(1/2)``) hold for zero mean and unit *variance* (``||f|| = sqrt(n)``), and
  Appendix B normalises every feature "to zero mean and unit variance".  The
  default is therefore ``'variance'`` (population sd, ``||f||^2 = n``); ``'length'``
  is the literal section 3.2 reading.  The two differ by the factor sqrt(n) in
  ``A``, which with the fixed ``beta = 1e8`` changes the effective step.
* **delta'^2 of the label RBF** is the mean of ``||y_i - y_j||^2`` over all
  ``i, j = 1..l``, the zero diagonal included (Appendix B's formula; the authors'
  code also averages over the full matrix).
* **Eq. (1) "for the current p"** (recorded per iteration) is
  ``1/2 || (1/n^2) Y^T X_F X_F^T Y - S ||_F^2`` with ``F = {i : p_i = 1}``: the
  binary ``W`` enters Eq. (1) through ``(XW)(XW)^T``, which the proof of
  Property 1 writes as ``sum_{i in F} f_i f_i^T``.  Algorithm 1, line 3 (the
  initial p) ranks the features by this objective with each feature alone.
* **Sign of the multiplier in the U step** (``u_step``).  The Lagrangian Eq. (5)
  has ``- tr(V^T (W - U))``; minimising Eq. (6) over ``u_i`` gives
  ``u_i = shrink(w_i - v_i / beta)``.  Eq. (7)-(9) print ``w_i + v_i / beta`` (so
  does the authors' code).  With the printed sign the iteration *climbs* the
  Eq. (3) objective whenever the step lets W move (``V_{t+1}`` tracks the
  gradient Omega, and the U step then adds it to W); see the tests.  Default:
  ``'derived'`` (``w - v/beta``); ``'printed'`` reproduces Eq. (9) as printed.
* **tau** (``tau``).  Appendix B: tau "is set to the spectral radius of
  ``A^T A`` in the initial state and updated as ``tau_t = 1 / max_i ||psi_i||``"
  with ``Psi = A^T A V_t``.  Default ``'paper'`` does exactly that (the spectral
  radius from the l x l matrix ``A A^T``).  As the method page notes, Eq. (12)-(13)
  use tau as a step size (the linearisation majorises the loss only for
  ``tau <= 1/rho``); the effective step of Eq. (13) is ``1 / (beta + 1/tau)``, so
  with ``beta = 1e8`` the start value hardly matters, while the update
  ``1 / max ||psi_i||`` is usually far smaller than ``1/rho`` once V has grown, and
  the iteration then moves little.  ``'lipschitz'`` keeps ``tau = 1/rho(A^T A)``
  throughout (a majorising step for every p); a number fixes tau.
* **The ranking of every feature.**  The final p (the k selected) is ordered by
  the Eq. (14) residual of the final W, the other ``d - k`` features by the Eq. (1)
  objective of the feature alone (the criterion of Algorithm 1, line 3), because
  rows of W outside p receive no gradient (Omega has ``diag(p)`` on the left) and
  stay near 0, so their residuals carry no information.  The reported score is
  the Eq. (14) *gain* ``||Gamma*||_F^2 - ||Y^T f_i w_i - Gamma*||_F^2`` (higher is
  better; the residuals themselves differ from ``||Gamma*||^2`` only in the last
  digits).
* **Ties and constant features.**  Ties go to the lower column index; a constant
  column (no information; standardised to 0) is ordered after every other
  column in the initial p, in every p step and in the ranking.
* **Signs of the eigenvectors of S** (free in ``S = Phi Sigma Phi^T``) are fixed so that
  the largest-magnitude entry of each is positive (:func:`gamma_star`).
* **Negative eigenvalues of S.**  The masked RBF matrix need not be positive
  semi-definite; negative eigenvalues are set to 0 before ``Sigma^(1/2)`` (so
  ``Gamma* Gamma*^T / n^2`` is the nearest PSD matrix to S), and a note reports
  their size.

What to expect (observed on the tests' and the vignette's synthetic data and on enron-sized
data): with the paper's defaults the PADM loop keeps the initial p -- the rows of W outside p get
no gradient, the selected rows' residuals only decrease, so no feature enters p -- and the
selection is Algorithm 1's line 3, the k features whose label correlations best reproduce S on
their own.  With ``tau='paper'`` the loop often meets the stopping rule within a few iterations;
with ``tau='lipschitz'`` the Eq. (3) objective decreases in every iteration (monotone in every run
recorded) but the 1e-4 rule is usually not met within t_max = 1000.  Redundant copies of an
informative feature are selected together: line 3 and the p step (Eq. 14) score each feature on
its own, so the pairwise redundancy term of Eq. (1) (Property 2) never enters the choice of p.  Because the RBF S is non-negative, a feature whose correlations
with two co-occurring labels have opposite signs gains little under Eq. (1) and can rank below
noise.

The iteration records, per iteration t (``MethodOutput.iterations``):
``objective`` (Eq. 1 for ``p_{t+1}``), ``relaxed_objective`` (Eq. 3 at
``(W_{t+1}, p_{t+1})``), ``w_change`` (``||W_{t+1} - W_t||_F``), ``tau`` (used in
that step) and ``p_changes`` (features that entered p).  Reaching ``max_iter``
without meeting ``tol`` raises a :class:`~sklearn.exceptions.ConvergenceWarning`.

``variant='reference-code'`` reproduces the authors' published MATLAB code
(github.com/wangjuncs/ELC, ``ELC.m``), which differs from the paper: z-scores
with the n - 1 standard deviation; ``S = exp(-D) / (2 dbar)`` with *plain*
Euclidean distances D between label columns, ``dbar`` their mean including the
zero diagonal, and no mask; the U step shrinks the whole matrix by its spectral
norm, ``U = max(||Z||_2 - lambda/beta, 0) Z / ||Z||_2`` with ``Z = W + V/beta``;
``tau_0 = 1 / rho(A^T A)`` and ``tau_t = 1 / ||colmax(A^T A V_t)||_2`` (the
column-wise maxima); it stops when the spectral norm of ``W_{t+1} - W_t`` is at
most tol after at least two iterations, or after ``t_max + 1`` iterations; it
returns the k indices only (here they are ranked as above).

Scale: every product is of size ``d x l`` or ``l x l`` (``A`` once, O(n d l));
no ``d x d`` or ``n x n`` matrix is formed.  One iteration costs O(d l^2).
"""
import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import threadpool_limits

from fstools._ext import _entropy
from fstools.core.discretize import information_codes
from fstools.core.constraints import (is_bool, is_integer_at_least, is_nonnegative_number, is_one_of,
                                    is_positive_number)
from fstools.core.arrays import as_float_matrix, constant_columns, standardize_columns
from fstools.core.ranking import rank_features, top_mask
from fstools.core.constraints import BOOLEAN, NONNEGATIVE_NUMBER, POSITIVE_INTEGER, POSITIVE_NUMBER, Constraint, one_of
from fstools.core.messages import format_count
from fstools.methods.registry import MethodOutput, MethodSpec, Parameter, Preset, register
from fstools.methods.similarity import fisher_scores

__all__ = ["check_label_matrix", "label_correlation", "gamma_star", "standardize_features",
           "single_feature_objectives", "selection_objective", "ELCFit", "elc_fit", "elc",
           "llsf_fit", "llsf", "per_label_fisher", "ml_fisher", "per_label_information", "ml_mi",
           "ELC_DEFAULTS"]

#: The defaults of ELC and where they come from (Appendix B unless noted).
ELC_DEFAULTS = {
    "lam": 1e-3,            # lambda: smallest value of the paper's grid {1e-3, ..., 10}; the code's default
    "beta": 1e8,            # "the parameter beta is fixed to beta = 10^8"
    "tau": "paper",         # spectral radius of A^T A at start, then 1 / max_i ||psi_i||
    "max_iter": 1000,       # t_max = 10^3
    "tol": 1e-4,            # ||W_{t+1} - W_t|| <= 10^-4
    "correlation": "rbf",   # masked RBF of Appendix B
    "standardize": "variance",
    "u_step": "derived",
    "variant": "paper",
}

CORRELATIONS = ("rbf", "pearson")
SCALINGS = ("variance", "length")
U_STEPS = ("derived", "printed")
VARIANTS = ("paper", "reference-code")


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------

def check_label_matrix(Y, n_samples=None, names=None):
    """A validated 0/1 label matrix as float64, shape (n, l).

    Each label column holds two values: 0 and 1, False and True, or any two numbers, of which
    the larger means that the label is present (as scikit-learn's ``LabelBinarizer`` reads two
    classes, and R the second level of a two-level factor): ``{1, 2}`` and ``{-1, 1}`` are read
    as ``{0, 1}``.

    Parameters
    ----------
    Y : array-like, shape (n,) or (n, l)
        Numbers or booleans (an object array of them too); a 1-D vector is one label.
    n_samples : int, optional
        The number of rows ``Y`` must have.
    names : sequence of str, optional
        Label names for the messages (default ``'label j'``).

    Raises
    ------
    ValueError
        Naming the label column: other than two values, a missing value, a constant column
        (one class only: no correlation with anything is defined), a wrong shape; "Unknown
        label type" for entries that are not numbers.
    """
    Y = np.asarray(Y)
    if Y.ndim == 1:
        Y = Y[:, None]
    if Y.ndim != 2:
        raise ValueError(f"Y: must be a 0/1 label matrix (samples x labels); got {Y.ndim}-D")
    if n_samples is not None and Y.shape[0] != n_samples:
        raise ValueError(f"Y: has {Y.shape[0]} rows but X has {n_samples} samples")
    if Y.shape[1] == 0:
        raise ValueError("Y: has no label column")
    names = [f"label {j}" for j in range(Y.shape[1])] if names is None else [str(v) for v in names]
    values = _label_values(Y)
    for j in range(values.shape[1]):
        column = values[:, j]
        if np.isnan(column).any():
            raise ValueError(f"{names[j]}: has {int(np.isnan(column).sum())} missing value(s); a label column "
                             f"must hold 0 and 1 (or two other values) in every row")
        found = np.unique(column)
        if found.size == 0:  # no rows: nothing to read
            continue
        if found.size > 2:
            shown = ", ".join(f"{v:g}" for v in found[:6]) + (", ..." if found.size > 6 else "")
            raise ValueError(f"{names[j]}: a label column must hold two values (0 and 1, False and True, or two "
                             f"numbers: the larger means present); got the values {shown}")
        if found.size == 1:
            raise ValueError(f"{names[j]}: is constant (all {found[0]:g}), one class only in the {column.size} rows "
                             f"used; a label needs both values, present and absent (remove it)")
        if found[0] != 0 or found[1] != 1:
            values[:, j] = column == found[1]
    return np.ascontiguousarray(values)


def _label_values(Y):
    """``Y`` (2-D) as float64: numbers and booleans, or an object array of them; ValueError with
    scikit-learn's words ("Unknown label type") for anything else."""
    if Y.dtype == bool or np.issubdtype(Y.dtype, np.number):
        return Y.astype(np.float64)
    if Y.dtype == object:
        try:
            return Y.astype(np.float64)
        except (TypeError, ValueError):
            pass
    raise ValueError(f"Y: Unknown label type: label columns must hold numbers or booleans (0 and 1); got "
                     f"dtype {Y.dtype}")


def standardize_features(X, scaling="variance"):
    """Centred columns scaled to unit variance or unit length; constant columns set to 0.

    Parameters
    ----------
    X : ndarray, shape (n, d)
    scaling : {'variance', 'length', 'zscore'}
        ``'variance'``: population sd 1 (``||f||^2 = n``; ELC's default, see the
        module docstring); ``'length'``: ``||f|| = 1`` (section 3.2 as printed);
        ``'zscore'``: sample sd 1 (n - 1; MATLAB's ``zscore``, the authors' code).

    Returns
    -------
    Z : ndarray, shape (n, d)
    constant : ndarray of bool, shape (d,)
    """
    X = as_float_matrix(X)
    if scaling not in ("variance", "length", "zscore"):
        raise ValueError(f"scaling: must be one of 'variance', 'length', 'zscore'; got {scaling!r}")
    if scaling == "length":
        Z = standardize_columns(X, scaling="length")
    else:
        Z = standardize_columns(X, ddof=1 if scaling == "zscore" else 0)
    constant = constant_columns(X)
    return Z, constant


def label_correlation(Y, kind="rbf"):
    """The label correlation matrix S (l x l) of a 0/1 label matrix.

    Parameters
    ----------
    Y : array-like, shape (n, l)
        0/1 labels, no constant column.
    kind : {'rbf', 'pearson', 'reference-code'}
        ``'rbf'`` (ELC's default, Appendix B): ``S_ij = exp(-||y_i - y_j||^2 /
        (2 delta'^2))`` when ``<y_i, y_j> != 0`` and 0 otherwise, ``y_i`` the i-th
        label *column* and ``delta'^2`` the mean of ``||y_i - y_j||^2`` over all
        ``i, j = 1..l`` (diagonal included).  ``'pearson'``: Pearson correlation of
        the label columns (the paper names it as the alternative, section 3.1).
        ``'reference-code'``: ``exp(-D) / (2 dbar)`` with plain Euclidean distances
        D and their mean ``dbar`` (diagonal included), no mask (the authors' code).

    Returns
    -------
    ndarray of float64, shape (l, l), symmetric

    Notes
    -----
    Computed from ``C = Y^T Y`` (O(n l^2)): ``||y_i - y_j||^2 = C_ii + C_jj - 2 C_ij``.
    When all label columns are equal (``delta'^2 = 0``) the RBF is taken as 1.
    """
    Y = check_label_matrix(Y)
    if kind == "pearson":
        S = np.corrcoef(Y, rowvar=False)
        return np.atleast_2d(S)
    if kind not in ("rbf", "reference-code"):
        raise ValueError(f"kind: must be one of 'rbf', 'pearson', 'reference-code'; got {kind!r}")
    C = Y.T @ Y
    c = np.diag(C)
    squared = np.maximum(c[:, None] + c[None, :] - 2.0 * C, 0.0)
    if kind == "rbf":
        delta2 = squared.mean()
        S = np.exp(-squared / (2.0 * delta2)) if delta2 > 0 else np.ones_like(squared)
        S[C == 0] = 0.0
        return S
    distance = np.sqrt(squared)
    mean_distance = distance.mean()
    return np.exp(-distance) / (2.0 * mean_distance) if mean_distance > 0 else np.exp(-distance)


def gamma_star(S, n_samples):
    """``Gamma* = n Phi Sigma^(1/2)`` from ``S = Phi Sigma Phi^T`` (section 4, Eq. 2).

    Eigenvalues in decreasing order; negative ones set to 0.  The sign of each eigenvector
    (free in the decomposition) is fixed so that its entry of largest magnitude is
    positive (the first such entry on ties), so that Gamma* -- and with it the PADM
    iterates, whose start ``V = 1/d`` is not sign-symmetric -- do not depend on the
    LAPACK build.

    Returns
    -------
    gamma : ndarray, shape (l, l)
    eigenvalues : ndarray, shape (l,)
        As computed (before clipping), decreasing.
    """
    S = np.asarray(S, dtype=np.float64)
    eigenvalues, vectors = np.linalg.eigh((S + S.T) / 2.0)
    eigenvalues, vectors = eigenvalues[::-1], vectors[:, ::-1]
    if vectors.size:
        largest = np.argmax(np.abs(vectors), axis=0)
        vectors = vectors * np.where(vectors[largest, np.arange(vectors.shape[1])] < 0, -1.0, 1.0)[None, :]
    gamma = float(n_samples) * vectors * np.sqrt(np.clip(eigenvalues, 0.0, None))[None, :]
    return gamma, eigenvalues


def single_feature_objectives(A, S, n_samples):
    """Eq. (1) with each feature alone: ``||a_i a_i^T / n^2 - S||_F^2`` for every column ``a_i`` of A.

    (Algorithm 1, line 3; the factor 1/2 of Eq. 1 left out, as it does not change
    the order.)  Computed as ``||a||^4/n^4 - 2 a^T S a / n^2 + ||S||^2`` in O(d l^2).
    """
    n2 = float(n_samples) ** 2
    squared_norms = np.einsum("ij,ij->j", A, A)
    quadratic = np.einsum("ij,ij->j", A, S @ A)
    return squared_norms ** 2 / n2 ** 2 - 2.0 * quadratic / n2 + float(np.sum(S * S))


def selection_objective(A, selected, S, n_samples):
    """Eq. (1) for a selected set F: ``1/2 || (1/n^2) Y^T X_F X_F^T Y - S ||_F^2`` (``A = Y^T X``)."""
    A_F = A[:, np.asarray(selected)]
    M = (A_F @ A_F.T) / float(n_samples) ** 2 - S
    return 0.5 * float(np.sum(M * M))


def _spectral_norm(M):
    """Largest singular value of a d x l matrix from its l x l Gram matrix."""
    gram = M.T @ M
    return float(np.sqrt(max(np.linalg.eigvalsh(gram)[-1], 0.0))) if gram.size else 0.0


# --------------------------------------------------------------------------
# ELC
# --------------------------------------------------------------------------

@dataclass
class ELCFit:
    """What :func:`elc_fit` returns.

    Attributes
    ----------
    selected : ndarray of bool, shape (d,)
        The final indicator p.
    W : ndarray, shape (d, l)
    residual : ndarray, shape (d,)
        ``||Y^T f_i w_i - Gamma*||_F^2`` at the final W (Eq. 14).
    gain : ndarray, shape (d,)
        ``||Gamma*||_F^2 - residual`` (higher is better).
    alone : ndarray, shape (d,)
        Eq. (1) with the feature alone (Algorithm 1, line 3).
    ranking : ndarray of intp, shape (d,)
    initial : ndarray of bool, shape (d,)
        The initial p (line 3).
    S, gamma, eigenvalues : ndarrays
    iterations : dict of str -> ndarray
    converged : bool
    constant : ndarray of bool
    notes : list of str
    """

    selected: np.ndarray
    W: np.ndarray
    residual: np.ndarray
    gain: np.ndarray
    alone: np.ndarray
    ranking: np.ndarray
    initial: np.ndarray
    S: np.ndarray
    gamma: np.ndarray
    eigenvalues: np.ndarray
    iterations: dict
    converged: bool
    constant: np.ndarray
    notes: list = field(default_factory=list)


def _is_tau(value):
    return (isinstance(value, str) and value in ("paper", "lipschitz")) or is_positive_number(value)


def _check_elc_parameters(lam, beta, tau, max_iter, tol, correlation, standardize, u_step, variant):
    POSITIVE_NUMBER.validate(lam, "lam")
    POSITIVE_NUMBER.validate(beta, "beta")
    Constraint("'paper', 'lipschitz' or a finite number > 0", _is_tau).validate(tau, "tau")
    POSITIVE_INTEGER.validate(max_iter, "max_iter")
    NONNEGATIVE_NUMBER.validate(tol, "tol")
    one_of(CORRELATIONS).validate(correlation, "correlation")
    one_of(SCALINGS).validate(standardize, "standardize")
    one_of(U_STEPS).validate(u_step, "u_step")
    one_of(VARIANTS).validate(variant, "variant")
    if variant == "reference-code":
        fixed = {"correlation": correlation, "standardize": standardize, "u_step": u_step, "tau": tau}
        changed = [name for name, value in fixed.items() if value != ELC_DEFAULTS[name]]
        if changed:
            raise ValueError(f"{', '.join(changed)}: variant='reference-code' uses the published code's own "
                             f"choices (z-scores, exp(-D)/(2 dbar), the + sign, tau = 1/rho); leave "
                             f"{', '.join(changed)} at the default(s) or use variant='paper'")


def elc_fit(X, Y, k, lam=1e-3, beta=1e8, tau="paper", max_iter=1000, tol=1e-4, correlation="rbf",
            standardize="variance", u_step="derived", variant="paper", gradient="selected"):
    """Run ELC's PADM (Algorithm 1) and return the full state; see :func:`elc` for the parameters.

    One more parameter, for studies of the iteration (not a parameter of the registered method):
    ``gradient='selected'`` (default) is Eq. (12) as printed, ``Omega = diag(p) A^T (A diag(p) W -
    Gamma*)``, so rows of W outside p receive no gradient; ``gradient='all'`` drops the left
    ``diag(p)``, so every row moves toward the current residual and the p step (Eq. 14) can
    exchange features.  The defaults study in the multilabel vignette compares both (see
    the Notes of :func:`elc`).

    BLAS runs on one thread here: every product is O(d l^2) with an l x l or d x l result, too
    small for threads to pay (multi-threaded OpenBLAS took 100-600x longer for the l x d by d x l
    product with d = 50,000 on a loaded 2-core machine).
    """
    _check_elc_parameters(lam, beta, tau, max_iter, tol, correlation, standardize, u_step, variant)
    with threadpool_limits(limits=1, user_api="blas"):
        return _elc_fit(X, Y, k, lam, beta, tau, max_iter, tol, correlation, standardize, u_step, variant, gradient)


def _elc_fit(X, Y, k, lam, beta, tau, max_iter, tol, correlation, standardize, u_step, variant, gradient="selected"):
    X = as_float_matrix(X)
    n, d = X.shape
    Y = check_label_matrix(Y, n)
    l = Y.shape[1]
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 1 <= int(k) <= d:
        raise ValueError(f"k: ELC selects a fixed number of features (||W||_(2,0) = k, Eq. 1); must be an "
                         f"integer in 1..{d} (the number of features); got {k!r}")
    k = int(k)
    reference = variant == "reference-code"
    lam, beta, tol = float(lam), float(beta), float(tol)

    Z, constant = standardize_features(X, "zscore" if reference else standardize)
    S = label_correlation(Y, "reference-code" if reference else correlation)
    gamma, eigenvalues = gamma_star(S, n)
    A = Y.T @ Z                                   # A_hat = Y^T X, l x d
    AtG = A.T @ gamma                             # d x l: the cross term of Eq. (14)
    a_squared = np.einsum("ij,ij->j", A, A)       # ||Y^T f_i||^2
    gamma_squared = float(np.sum(gamma * gamma))
    alone = single_feature_objectives(A, S, n)
    rho = float(np.linalg.eigvalsh(A @ A.T)[-1]) if l else 0.0     # spectral radius of A^T A

    def residuals(W):
        return a_squared * np.einsum("ij,ij->i", W, W) - 2.0 * np.einsum("ij,ij->i", AtG, W) + gamma_squared

    p = top_mask(np.where(constant, np.inf, alone), k, higher_is_better=False)
    initial = p.copy()
    W = np.zeros((d, l))
    V = np.full((d, l), 1.0 / d)
    if rho <= 0.0:
        step_tau = 1.0
    elif reference or tau == "lipschitz":
        step_tau = 1.0 / rho
    elif tau == "paper":
        step_tau = rho
    else:
        step_tau = float(tau)
    sign = 1.0 if (reference or u_step == "printed") else -1.0
    threshold = lam / beta

    records = {name: [] for name in ("objective", "relaxed_objective", "w_change", "tau", "p_changes")}
    converged = False
    # The published code loops "while t <= tmax": at most t_max + 1 iterations.
    limit = max_iter + 1 if reference else max_iter
    # Work arrays reused by every iteration (W and W_new swap roles).
    Zu, U, W_new, work = (np.empty((d, l)) for _ in range(4))
    for t in range(limit):
        # U step (Eq. 9): shrink z = w + sign v / beta by lambda / beta.
        np.multiply(V, sign / beta, out=Zu)
        Zu += W
        if reference:
            norm = _spectral_norm(Zu)
            np.multiply(Zu, max(norm - threshold, 0.0) / norm if norm > 0 else 0.0, out=U)
        else:
            row_norms = np.sqrt(np.einsum("ij,ij->i", Zu, Zu))
            factor = np.zeros(d)
            positive = row_norms > 0
            factor[positive] = np.maximum(row_norms[positive] - threshold, 0.0) / row_norms[positive]
            np.multiply(Zu, factor[:, None], out=U)
        # W step (Eq. 12-13): Omega = diag(p) A^T (A diag(p) W - Gamma*), zero outside p
        # (gradient='selected'); gradient='all' drops the diag(p) on the left.
        A_p = A[:, p]
        fit_gap = A_p @ W[p] - gamma
        np.multiply(U, beta, out=W_new)
        W_new += V
        np.divide(W, step_tau, out=work)
        W_new += work
        if gradient == "all":
            W_new -= A.T @ fit_gap
        else:
            W_new[p] -= A_p.T @ fit_gap
        W_new *= step_tau / (beta * step_tau + 1.0)
        # p step (Eq. 14): the k smallest ||Y^T f_i w_i - Gamma*||_F^2.
        w_squared = np.einsum("ij,ij->i", W_new, W_new)
        residual = a_squared * w_squared - 2.0 * np.einsum("ij,ij->i", AtG, W_new) + gamma_squared
        p_new = top_mask(np.where(constant, np.inf, residual), k, higher_is_better=False)
        # V step (Eq. 15).
        np.subtract(W_new, U, out=work)
        work *= beta
        V -= work
        np.subtract(W_new, W, out=work)
        change = _spectral_norm(work) if reference else float(np.sqrt(np.einsum("ij,ij->", work, work)))
        A_p = A[:, p_new]
        fit_residual = A_p @ W_new[p_new] - gamma
        records["objective"].append(selection_objective(A, p_new, S, n))
        records["relaxed_objective"].append(0.5 * float(np.sum(fit_residual * fit_residual))
                                            + lam * float(np.sum(np.sqrt(w_squared))))
        records["w_change"].append(change)
        records["tau"].append(step_tau)
        records["p_changes"].append(int(np.count_nonzero(p_new & ~p)))
        W, W_new = W_new, W
        p = p_new
        # tau update (Appendix B): 1 / max_i ||psi_i||, Psi = A^T A V.
        if reference or tau == "paper":
            Psi = A.T @ (A @ V)
            if reference:
                size = float(np.linalg.norm(Psi.max(axis=0))) if d else 0.0
            else:
                size = float(np.sqrt(np.einsum("ij,ij->i", Psi, Psi)).max()) if d else 0.0
            if size > 0 and np.isfinite(size):
                step_tau = 1.0 / size
        # Stop rule: ||W_{t+1} - W_t|| <= tol (the code: after at least two iterations).
        if change <= tol and (not reference or t >= 1):
            converged = True
            break

    residual = residuals(W)
    gain = gamma_squared - residual
    chosen = np.flatnonzero(p)
    chosen = chosen[rank_features(residual[chosen], higher_is_better=False, last=constant[chosen], tiebreak=alone[chosen])]
    others = np.flatnonzero(~p)
    others = others[rank_features(alone[others], higher_is_better=False, last=constant[others])]
    ranking = np.concatenate([chosen, others]).astype(np.intp)

    notes = []
    negative = eigenvalues[eigenvalues < 0]
    if negative.size and negative.min() < -1e-10 * max(1.0, abs(eigenvalues[0])):
        notes.append(f"S has {format_count(int(negative.size), 'negative eigenvalue')} (smallest {negative.min():.3g}; "
                     f"largest {eigenvalues[0]:.3g}): set to 0 in Gamma* = n Phi Sigma^(1/2)")
    iterations = {"iteration": np.arange(1, len(records["objective"]) + 1, dtype=np.int64)}
    for name, values in records.items():
        iterations[name] = np.asarray(values, dtype=np.int64 if name == "p_changes" else np.float64)
    return ELCFit(selected=p, W=W, residual=residual, gain=gain, alone=alone, ranking=ranking,
                  initial=initial, S=S, gamma=gamma, eigenvalues=eigenvalues, iterations=iterations,
                  converged=converged, constant=constant, notes=notes)


def elc(X, Y, k=None, n_threads=1, lam=1e-3, beta=1e8, tau="paper", max_iter=1000, tol=1e-4,
        correlation="rbf", standardize="variance", u_step="derived", variant="paper"):
    """ELC: multi-label feature selection by embedding label correlations (Wang et al. 2020).

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
    Y : ndarray, shape (n_samples, n_labels)
        0/1 label matrix, every column with both values.
    k : int
        Number of features to select (``||W||_{2,0} = k``, Eq. 1); required, 1..d.
    n_threads : int
        Unused (BLAS products); accepted for the registry.
    lam : float > 0, default 1e-3
        lambda of the l2,1 penalty (Eq. 3).  The paper tunes it over
        {1e-3, 1e-2, 1e-1, 1, 10} (Appendix B); 1e-3 is the grid's first value
        and the authors' code default.
    beta : float > 0, default 1e8
        Penalty parameter of the augmented Lagrangian (Eq. 5), fixed to 1e8 in
        Appendix B.  The effective step of Eq. (13) is ``1 / (beta + 1/tau)``.
    tau : 'paper', 'lipschitz' or float > 0, default 'paper'
        Step parameter of Eq. (12)-(13).  ``'paper'`` (Appendix B): the spectral
        radius of ``A^T A`` at start, then ``1 / max_i ||psi_i||`` with
        ``Psi = A^T A V_t``.  ``'lipschitz'``: ``1 / rho(A^T A)`` throughout.
        A number: that value throughout.
    max_iter : int >= 1, default 1000
        t_max = 10^3 (Appendix B).
    tol : float >= 0, default 1e-4
        Stop when ``||W_{t+1} - W_t||_F <= tol`` (Appendix B).
    correlation : {'rbf', 'pearson'}, default 'rbf'
        Label correlation S: the masked RBF of Appendix B, or Pearson's (section 3.1).
    standardize : {'variance', 'length'}, default 'variance'
        Feature scaling after centring (module docstring: the scale under which
        Eq. 1, Gamma* and Property 2 are consistent; 'length' is section 3.2 as printed).
    u_step : {'derived', 'printed'}, default 'derived'
        Sign of the multiplier in the U step: ``w - v/beta`` from Eq. (5)-(6), or
        ``w + v/beta`` as Eq. (7)-(9) print it (module docstring).
    variant : {'paper', 'reference-code'}, default 'paper'
        ``'reference-code'`` reproduces the authors' MATLAB code (module docstring);
        then ``correlation``, ``standardize``, ``u_step`` and ``tau`` must stay at
        their defaults.

    Returns
    -------
    MethodOutput
        ``ranking``: every feature -- the k selected (final p) by their Eq. (14)
        residual, then the others by the Eq. (1) objective of the feature alone;
        ``scores``: the Eq. (14) gain ``||Gamma*||^2 - ||Y^T f_i w_i - Gamma*||^2``
        at the final W (higher is better); columns ``gain``, ``alone`` (Eq. 1 of
        the feature alone, lower is better), ``row_norm`` (``||w_i||_2``) and
        ``selected`` (1 for p_i = 1); ``iterations`` per iteration (module docstring);
        ``tables['label_correlation']`` (S).

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` iterations end without ``||W_{t+1} - W_t|| <= tol``.

    Notes
    -----
    **Defaults.** The defaults are the paper's (Appendix B), and are kept because a study found no setting
    at which the PADM iteration improves on its starting point.  On the multilabel vignette's
    data (bag-of-words labels with redundant copies and noise; 3 seeds x 5 folds, k = 8,
    ML-kNN average precision on the held-out fold), with ``beta = 1e8`` the W step is about
    ``1/beta`` and p stays at Algorithm 1, line 3 (average precision 0.841); every setting that
    lets p move -- ``beta`` from 1e4 down to 1e-2 with either tau rule, with or without the
    gradient on the rows outside p (:func:`elc_fit`, ``gradient``) -- exchanges 5-8 of the 8
    features and makes both Eq. (1) (by 0.5-3 %) and the average precision (0.65-0.81) worse,
    because the p step (Eq. 14) scores each feature alone against Gamma*.  A direct swap search on
    Eq. (1) from line 3 lowers it slightly (average precision 0.846): the relaxation, not the
    objective, is what does not move.  So a user gets the paper's selection by default; ``tau``
    and ``beta`` remain for studies of the iteration.

    The real data agree.  On Mulan's emotions, yeast, genbase and scene files
    (``vignettes/reproduce_elc_paper.py``: 5 folds x the nine k' = d/10, ..., 9d/10, 45 runs per
    set and setting, ML-kNN average precision), with the defaults every run met the 1e-4 rule
    after 2 iterations and kept the starting p; ``lam`` over the paper's grid {1e-3, ..., 10}
    changed nothing (the shrinkage threshold ``lam / beta`` is at most 1e-7); ``tau='lipschitz'``
    ran every run to ``max_iter = 1000`` without meeting ``tol``, moved p in 39 of 45 scene and 22
    of 45 yeast runs (none on emotions and genbase) and changed the average precision by at most
    0.004 (scene 0.8131 -> 0.8168, yeast 0.7563 -> 0.7559); ``beta = 1e4`` and ``beta = 1`` each moved
    p in 179 of the 180 runs and lowered the average precision on every set (emotions 0.796 ->
    0.750 and 0.744, yeast 0.756 -> 0.737 and 0.739, scene 0.813 -> 0.754 and 0.760, genbase 0.940
    -> 0.739 and 0.635).

    The one default that is not the paper's is ``u_step='derived'`` (the sign Eq. 5-6 give;
    module docstring); ``preset='paper'`` (through :func:`fstools.select`) runs every setting as
    printed, Eq. (9)'s sign included.
    """
    if k is None:
        raise ValueError("k: ELC selects a fixed number of features (||W||_(2,0) = k, Eq. 1); give k, an "
                         "integer in 1..n_features (k=None, rank-only, is not defined for ELC)")
    fit = elc_fit(X, Y, k, lam=lam, beta=beta, tau=tau, max_iter=max_iter, tol=tol, correlation=correlation,
                  standardize=standardize, u_step=u_step, variant=variant)
    n_iterations = len(fit.iterations["iteration"])
    change = fit.iterations["w_change"][-1]
    norm_name = "spectral norm" if variant == "reference-code" else "||.||_F"
    notes = []
    if variant == "reference-code":
        notes.append("variant 'reference-code': the authors' MATLAB code (z-scores with n - 1, "
                     "S = exp(-D)/(2 dbar) without mask, whole-matrix spectral shrinkage in the U step, "
                     "tau = 1/rho then 1/||colmax(A^T A V)||, spectral-norm stop after >= 2 iterations)")
    else:
        notes.append(f"ELC: lambda = {float(lam):g}, beta = {float(beta):g}, tau = {tau!r}, S = "
                     f"{'masked RBF (Appendix B)' if correlation == 'rbf' else 'Pearson correlation'}, features "
                     f"standardised to unit {standardize}, U step {u_step} "
                     f"({'w - v/beta' if u_step == 'derived' else 'w + v/beta'})")
    if fit.converged:
        notes.append(f"converged after {format_count(n_iterations, 'iteration')}: {norm_name} of W_(t+1) - W_t = {change:.2e} "
                     f"<= tol = {float(tol):g}; per-iteration records in res.iterations, plot(kind='convergence')")
    else:
        message = (f"ELC stopped at the iteration limit max_iter = {max_iter} without meeting the stopping rule "
                   f"({norm_name} of W_(t+1) - W_t = {change:.2e} > tol = {float(tol):g})")
        notes.append(message + "; per-iteration records in res.iterations")
        # imported here, where it is raised: scikit-learn takes longer to import than fstools
        from sklearn.exceptions import ConvergenceWarning

        warnings.warn(message + "; the selection is the p of the last iteration", ConvergenceWarning, stacklevel=3)
    changed = int(np.count_nonzero(fit.selected & ~fit.initial))
    notes.append(f"{changed} of the k = {int(np.count_nonzero(fit.selected))} selected features differ from the "
                 f"initial p (Algorithm 1, line 3: Eq. 1 with each feature alone)")
    if fit.constant.any():
        notes.append(f"{format_count(int(fit.constant.sum()), 'constant column')}: standardised to 0, ranked last")
    notes += fit.notes
    labels = np.arange(fit.S.shape[0])
    return MethodOutput(
        ranking=fit.ranking,
        scores=fit.gain,
        columns={"gain": fit.gain, "alone": fit.alone,
                 "row_norm": np.sqrt(np.einsum("ij,ij->i", fit.W, fit.W)),
                 "selected": fit.selected.astype(np.float64)},
        notes=notes,
        iterations=fit.iterations,
        tables={"label_correlation": {"label": labels, **{str(j): fit.S[:, j] for j in labels}}},
    )


# --------------------------------------------------------------------------
# LLSF
# --------------------------------------------------------------------------

def llsf_fit(X, Y, alpha=2.0 ** -5, beta=2.0 ** -3, gamma=0.1, max_iter=100, tol=1e-4, standardize=True):
    """LLSF by accelerated proximal gradient (Huang et al. 2016, section 3).

    ``min_W 1/2 ||X W - Y||_F^2 + alpha/2 tr(R W^T W) + beta ||W||_1`` with
    ``R_ij = 1 - cos(y_i, y_j)`` (cosine distance of the label columns).

    Returns
    -------
    W : ndarray, shape (d, l)
    history : dict with ``iteration`` and ``objective`` per iteration
    converged : bool
    """
    X = as_float_matrix(X)
    n, d = X.shape
    Y = check_label_matrix(Y, n)
    if standardize:
        X, _ = standardize_features(X, "variance")
    norms = np.sqrt(np.einsum("ij,ij->j", Y, Y))
    R = 1.0 - (Y.T @ Y) / np.outer(norms, norms)
    np.fill_diagonal(R, 0.0)
    XtY = X.T @ Y
    # The ridge start (X^T X + gamma I)^-1 X^T Y through the smaller Gram matrix.
    if n >= d:
        gram = X.T @ X
        W = np.linalg.solve(gram + gamma * np.eye(d), XtY)
        gram_norm = float(np.linalg.eigvalsh(gram)[-1]) if d else 0.0

        def gradient_loss(M):
            return gram @ M - XtY
    else:
        outer = X @ X.T
        W = X.T @ np.linalg.solve(outer + gamma * np.eye(n), Y)
        gram_norm = float(np.linalg.eigvalsh(outer)[-1]) if n else 0.0

        def gradient_loss(M):
            return X.T @ (X @ M) - XtY
    r_norm = float(np.abs(np.linalg.eigvalsh(R)).max()) if R.size else 0.0
    lipschitz = np.sqrt(2.0 * (gram_norm ** 2 + (alpha * r_norm) ** 2))

    def objective(M):
        fit = X @ M - Y
        return (0.5 * float(np.sum(fit * fit)) + 0.5 * alpha * float(np.sum((M @ R) * M))
                + beta * float(np.abs(M).sum()))

    previous_W = W.copy()
    b, b_previous = 1.0, 1.0
    values = []
    converged = False
    old = objective(W)
    for _ in range(int(max_iter)):
        extrapolated = W + ((b_previous - 1.0) / b) * (W - previous_W)
        step = extrapolated - (gradient_loss(extrapolated) + alpha * extrapolated @ R) / lipschitz
        b_previous, b = b, (1.0 + np.sqrt(4.0 * b * b + 1.0)) / 2.0
        previous_W = W
        W = np.sign(step) * np.maximum(np.abs(step) - beta / lipschitz, 0.0)
        value = objective(W)
        values.append(value)
        if abs(old - value) <= tol * max(abs(old), 1e-300):
            converged = True
            break
        old = value
    history = {"iteration": np.arange(1, len(values) + 1, dtype=np.int64),
               "objective": np.asarray(values, dtype=np.float64)}
    return W, history, converged


def llsf(X, Y, k=None, n_threads=1, alpha=2.0 ** -5, beta=2.0 ** -3, gamma=0.1, max_iter=100, tol=1e-4,
         standardize=True):
    """LLSF feature ranking (Huang, Li, Huang and Wu 2016): row norms of the label-specific weights.

    Parameters
    ----------
    X : ndarray, shape (n_samples, n_features)
    Y : ndarray, shape (n_samples, n_labels), 0/1
    k : int or None
        Unused (every feature is ranked).
    n_threads : int
        Unused.
    alpha : float >= 0, default 2^-5
        Weight of the label-correlation term ``alpha/2 tr(R W^T W)``.
    beta : float >= 0, default 2^-3
        Weight of the l1 penalty ``beta ||W||_1``.
    gamma : float > 0, default 0.1
        Ridge of the start value ``(X^T X + gamma I)^-1 X^T Y``.
        (alpha, beta, gamma) = (2^-5, 2^-3, 0.1) is the setting the authors' LLSF code
        suggests for genbase (the ELC paper tunes each baseline's parameter over
        {1e-3, ..., 10}, Appendix B).
    max_iter : int, default 100
        Iterations of the accelerated proximal gradient (the authors' code: 100).
    tol : float >= 0, default 1e-4
        Stop when the objective changes by at most ``tol`` relative (the code's margin is
        absolute; a relative one does not depend on the scale of the data).
    standardize : bool, default True
        Zero mean, unit variance columns first (the ELC paper normalises all features,
        Appendix B).

    Returns
    -------
    MethodOutput
        ``scores`` = ``||w_i||_2`` (higher is better), columns ``row_norm`` and
        ``nonzero`` (labels with ``w_ij != 0``); ``ranking`` by decreasing row norm,
        ties to the lower index, constant columns last; ``iterations`` = objective.
    """
    NONNEGATIVE_NUMBER.validate(alpha, "alpha")
    NONNEGATIVE_NUMBER.validate(beta, "beta")
    POSITIVE_NUMBER.validate(gamma, "gamma")
    POSITIVE_INTEGER.validate(max_iter, "max_iter")
    NONNEGATIVE_NUMBER.validate(tol, "tol")
    BOOLEAN.validate(standardize, "standardize")
    X = as_float_matrix(X)
    W, history, converged = llsf_fit(X, Y, alpha=float(alpha), beta=float(beta), gamma=float(gamma),
                                     max_iter=int(max_iter), tol=float(tol), standardize=bool(standardize))
    constant = np.ptp(X, axis=0) == 0
    row_norm = np.sqrt(np.einsum("ij,ij->i", W, W))
    row_norm[constant] = 0.0
    notes = [f"LLSF: alpha = {float(alpha):g}, beta = {float(beta):g}, gamma = {float(gamma):g}; "
             f"{'converged' if converged else 'stopped at max_iter'} after {len(history['iteration'])} "
             f"iteration(s)"]
    if constant.any():
        notes.append(f"{format_count(int(constant.sum()), 'constant column')}: row norm 0, ranked last")
    return MethodOutput(
        ranking=rank_features(row_norm, last=constant),
        scores=row_norm,
        columns={"row_norm": row_norm, "nonzero": np.count_nonzero(W, axis=1).astype(np.float64)},
        notes=notes,
        iterations=history,
    )


# --------------------------------------------------------------------------
# Per-label Fisher score and mutual information, averaged over the labels
# --------------------------------------------------------------------------

def per_label_fisher(X, Y):
    """Fisher score of every feature with every label (two classes: label 0 / label 1), shape (d, l).

    ``F = sum_c n_c (mu_c - mu)^2 / sum_c n_c sigma_c^2`` (population variances), as
    :func:`fstools.methods.similarity.fisher_scores`: 0/0 := 0 (constant column),
    x/0 := inf (zero within-class variance, different means).
    """

    X = as_float_matrix(X)
    Y = check_label_matrix(Y, X.shape[0])
    return np.column_stack([fisher_scores(X, Y[:, j].astype(np.int32))[0] for j in range(Y.shape[1])])


def ml_fisher(X, Y, k=None, n_threads=1):
    """Per-label Fisher score averaged over the labels (Gu, Li and Han 2011, Eq. 1, per label).

    ``score_i = (1/l) sum_c F(f_i; y_c)``, F the two-class Fisher score of
    :func:`per_label_fisher`.  Higher is better.

    Returns
    -------
    MethodOutput
        ``scores`` = the mean; columns ``mean_fisher`` and ``max_fisher``; ``ranking``
        by decreasing mean, ties to the lower index, constant columns (score 0) last.
    """
    X = as_float_matrix(X)
    F = per_label_fisher(X, Y)
    constant = np.ptp(X, axis=0) == 0
    with np.errstate(invalid="ignore"):
        mean = F.mean(axis=1)
    notes = [f"Fisher score of each feature with each of the {F.shape[1]} labels (two classes), averaged"]
    if np.isinf(mean).any():
        notes.append(f"{format_count(int(np.isinf(mean).sum()), 'feature')} separating some label perfectly (zero "
                     f"within-class variance): mean score inf")
    if constant.any():
        notes.append(f"{format_count(int(constant.sum()), 'constant column')}: score 0, ranked last")
    return MethodOutput(ranking=rank_features(mean, last=constant), scores=mean,
                        columns={"mean_fisher": mean, "max_fisher": F.max(axis=1)}, notes=notes)


def per_label_information(X, Y, discretization="mu_sigma", n_bins=None, n_threads=1):
    """I(X_i; Y_c) in nats of every (discretised) feature with every label, shape (d, l).

    Continuous columns are discretised as by the information-theoretic methods
    (:func:`fstools.core.discretize.information_codes`: the CMQFS paper's nine mu/sigma levels
    by default); plug-in estimates.
    """
    X = as_float_matrix(X)
    Y = check_label_matrix(Y, X.shape[0])
    codes, levels, _ = information_codes(X, discretization=discretization, n_bins=n_bins)
    kernel = _entropy
    out = np.zeros((X.shape[1], Y.shape[1]))
    column = np.zeros(X.shape[1])
    for j in range(Y.shape[1]):
        kernel.feature_class_information(codes, levels, np.ascontiguousarray(Y[:, j], dtype=np.int32), 2,
                                         column, int(n_threads))
        out[:, j] = column
    return out


def ml_mi(X, Y, k=None, n_threads=1, discretization="mu_sigma", n_bins=None):
    """Per-label mutual information averaged over the labels (Gu, Li and Han 2011, Eq. 1, per label).

    ``score_i = (1/l) sum_c I(X_i; Y_c)`` (nats, plug-in, after discretisation).
    Higher is better.

    Returns
    -------
    MethodOutput
        ``scores`` = the mean; columns ``mean_MI`` and ``max_MI``; ``ranking`` by decreasing
        mean, ties to the lower index, constant columns last.
    """
    X = as_float_matrix(X)
    if discretization not in ("mu_sigma", "equal_width", "equal_frequency"):
        raise ValueError(f"discretization: must be one of 'mu_sigma', 'equal_width', 'equal_frequency'; "
                         f"got {discretization!r}")
    if (discretization == "mu_sigma") != (n_bins is None):
        raise ValueError(f"n_bins: must be None with 'mu_sigma' and an integer >= 2 with "
                         f"{discretization!r}; got {n_bins!r}")
    information = per_label_information(X, Y, discretization, n_bins, n_threads)
    constant = np.ptp(X, axis=0) == 0
    mean = information.mean(axis=1)
    notes = [f"mutual information (nats) of each feature with each of the {information.shape[1]} labels, "
             f"averaged; discretisation {discretization!r}"]
    if constant.any():
        notes.append(f"{format_count(int(constant.sum()), 'constant column')}: I = 0, ranked last")
    return MethodOutput(ranking=rank_features(mean, last=constant), scores=mean,
                        columns={"mean_MI": mean, "max_MI": information.max(axis=1)}, notes=notes)


# --------------------------------------------------------------------------
# Registration
# --------------------------------------------------------------------------

register(MethodSpec(
    name="elc",
    description="ELC: multi-label selection by embedding label correlations (PADM, Algorithm 1)",
    function=elc,
    parameters=(
        Parameter("lam", 1e-3, "lambda of the l2,1 penalty (Eq. 3); the paper tunes it over {1e-3, ..., 10} "
                  "(Appendix B); 1e-3 = the grid's first value and the authors' code default",
                  Constraint("a finite number > 0", is_positive_number, float)),
        Parameter("beta", 1e8, "penalty parameter of the augmented Lagrangian (Eq. 5); beta = 10^8 (Appendix B)",
                  Constraint("a finite number > 0", is_positive_number, float)),
        Parameter("tau", "paper", "step of Eq. 12-13: 'paper' = spectral radius of A^T A at start, then "
                  "1/max_i ||psi_i||, Psi = A^T A V (Appendix B); 'lipschitz' = 1/rho(A^T A) throughout",
                  Constraint("'paper', 'lipschitz' or a finite number > 0", _is_tau,
                  lambda value: value if isinstance(value, str) else float(value))),
        Parameter("max_iter", 1000, "t_max = 10^3 (Appendix B)", Constraint("an integer >= 1", is_integer_at_least(1), int)),
        Parameter("tol", 1e-4, "stop when ||W_(t+1) - W_t||_F <= tol = 10^-4 (Appendix B)",
                  Constraint("a finite number >= 0", is_nonnegative_number, float)),
        Parameter("correlation", "rbf", "label correlation S: masked RBF (Appendix B) or Pearson (section 3.1)",
                  one_of(CORRELATIONS)),
        Parameter("standardize", "variance", "feature scaling: unit variance (Appendix B; the scale of Eq. 1 "
                  "and Property 2) or unit length (section 3.2 as printed)", Constraint("one of 'variance', 'length'",
                  is_one_of(SCALINGS))),
        Parameter("u_step", "derived", "multiplier sign in the U step: w - v/beta from Eq. 5-6 ('derived') or "
                  "w + v/beta as Eq. 7-9 print it ('printed')", one_of(U_STEPS)),
        Parameter("variant", "paper", "'paper' or 'reference-code' (the authors' published MATLAB code)",
                  one_of(VARIANTS)),
    ),
    capabilities=frozenset({"supervised", "multilabel"}),
    presets=(Preset("paper", "the paper's literal settings: Appendix B (lambda = 1e-3, beta = 1e8, tau rule, "
                    "t_max = 1000, tol = 1e-4, masked RBF S, unit variance) and the U step as Eq. (9) prints it "
                    "(w + v/beta)",
                    (("lam", 1e-3), ("beta", 1e8), ("tau", "paper"), ("max_iter", 1000), ("tol", 1e-4),
                     ("correlation", "rbf"), ("standardize", "variance"), ("u_step", "printed"),
                     ("variant", "paper"))),),
    score_name="Eq. 14 gain",
    higher_is_better=True,
    reference="Wang, Xu, Wei, Zhang & Ma (2020) Applied Sciences 10(22):8093",
    criterion="min_W 1/2 ||Yhat^T Yhat - S||_F^2, Yhat = (1/n)(XW)^T Y, ||W||_(2,0) = k  (Eq. 1); "
              "PADM on 1/2||A diag(p) W - Gamma*||^2 + lambda ||W||_(2,1)  (Eq. 3)",
))

register(MethodSpec(
    name="llsf",
    description="LLSF: l1-sparse label-specific linear weights with a label-correlation penalty; row norms",
    function=llsf,
    parameters=(
        Parameter("alpha", 2.0 ** -5, "weight of the label-correlation term alpha/2 tr(R W^T W) (Huang et al. "
                  "2016; the authors' code's genbase setting)", Constraint("a finite number >= 0", is_nonnegative_number,
                  float)),
        Parameter("beta", 2.0 ** -3, "weight of the l1 penalty beta ||W||_1 (the authors' code's genbase setting)",
                  Constraint("a finite number >= 0", is_nonnegative_number, float)),
        Parameter("gamma", 0.1, "ridge of the start value (X^T X + gamma I)^-1 X^T Y (the authors' code)",
                  Constraint("a finite number > 0", is_positive_number, float)),
        Parameter("max_iter", 100, "iterations of the accelerated proximal gradient (the authors' code: 100)",
                  Constraint("an integer >= 1", is_integer_at_least(1), int)),
        Parameter("tol", 1e-4, "stop when the objective changes by at most tol relative",
                  Constraint("a finite number >= 0", is_nonnegative_number, float)),
        Parameter("standardize", True, "zero mean, unit variance columns first (ELC paper, Appendix B)",
                  Constraint("True or False", is_bool, bool)),
    ),
    capabilities=frozenset({"supervised", "multilabel"}),
    score_name="||w_i||_2",
    higher_is_better=True,
    reference="Huang, Li, Huang & Wu (2016) IEEE TKDE 28(12):3309-3323",
    criterion="min_W 1/2 ||XW - Y||_F^2 + alpha/2 tr(R W^T W) + beta ||W||_1,  R = 1 - cos(y_i, y_j); "
              "rank by ||w_i||_2",
))

register(MethodSpec(
    name="ml_fisher",
    description="Per-label Fisher score (label 0 vs 1) averaged over the labels",
    function=ml_fisher,
    parameters=(),
    capabilities=frozenset({"supervised", "multilabel"}),
    score_name="mean Fisher",
    higher_is_better=True,
    reference="Per-label Fisher score averaged over the labels (a simple baseline); Gu, Li & Han (2011) UAI, Eq. 1",
    criterion="(1/l) sum_c F(f_i; y_c),  F = sum_b n_b (mu_b - mu)^2 / sum_b n_b sigma_b^2",
))

register(MethodSpec(
    name="ml_mi",
    description="Per-label mutual information averaged over the labels (discretised features)",
    function=ml_mi,
    parameters=(
        Parameter("discretization", "mu_sigma", "scheme for continuous columns: the CMQFS paper's nine "
                  "mu/sigma levels (section 5.2) or n_bins equal-width / equal-frequency bins",
                  Constraint("one of 'mu_sigma', 'equal_width', 'equal_frequency'",
                  is_one_of(("mu_sigma", "equal_width", "equal_frequency")))),
        Parameter("n_bins", None, "bins of 'equal_width' / 'equal_frequency' (None with 'mu_sigma')",
                  Constraint("None or an integer >= 2", lambda v: v is None or is_integer_at_least(2)(v),
                  lambda v: None if v is None else int(v))),
    ),
    capabilities=frozenset({"supervised", "multilabel"}),
    score_name="mean MI (nats)",
    higher_is_better=True,
    reference="Per-label mutual information averaged over the labels (a simple baseline); Lewis (1992)",
    criterion="(1/l) sum_c I(X_i; Y_c)  (plug-in, nats)",
))

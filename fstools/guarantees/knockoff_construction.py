"""Knockoff constructions on arrays: the s vector, fixed-X and Gaussian model-X knockoffs, e-values.

Everything here takes and returns NumPy arrays (no data frames, no formulas); the knockoff
filter of :mod:`fstools.guarantees` builds on it.

Knockoffs (Barber and Candes 2015; Candes, Fan, Janson and Lv 2018) are p synthetic columns
``X_tilde`` whose joint second moments with the original columns ``X`` are

    G = [[Sigma,            Sigma - diag(s)],
         [Sigma - diag(s),  Sigma          ]],

so that swapping any original column with its knockoff leaves ``G`` unchanged.  The vector
``s >= 0`` must keep ``G`` positive semidefinite, which holds exactly when
``2 Sigma - diag(s)`` is positive semidefinite.  A larger ``s`` makes a knockoff less alike its
original (their correlation is ``1 - s_j`` on the correlation scale), hence more power.  Three
choices of ``s`` are implemented, all computed on the correlation scale and scaled back by
``diag(Sigma)`` (as R's ``knockoff`` package and Python's ``knockpy`` do):

* :func:`equicorrelated_s` -- ``s_j = min(1, 2 lambda_min)`` for every ``j``, closed form;
* :func:`sdp_s` -- the semidefinite program maximising ``sum(s)`` (a log-barrier interior-point
  method with Newton steps, written here: no external SDP solver);
* :func:`mvr_s` -- the minimum variance-based reconstructability ``s`` of Spector and Janson
  (2022), by their coordinate descent with rank-one (Sherman-Morrison) updates;

and :func:`s_matrix` dispatches on a method's name and checks the result.

The knockoffs themselves:

* :func:`fixed_x_knockoffs` -- Barber and Candes's fixed-X construction (needs ``n >= 2p``);
* :func:`gaussian_knockoffs` -- model-X second-order Gaussian knockoffs, sampled from the
  conditional Gaussian law given ``X`` with ``mu`` and ``Sigma`` given or estimated
  (:func:`estimate_covariance`, Ledoit-Wolf shrinkage of the correlations when ``p`` is close to
  ``n`` or above it).

Derandomised knockoffs (Ren and Barber 2024) replace one random knockoff draw by M of them and
combine them through e-values:

1. for ``m = 1, ..., M``: draw knockoffs, compute the statistics ``W^(m)`` and the knockoff+
   threshold ``T^(m)`` at level ``alpha_kn``;
2. ``e^(m) = knockoff_evalues(W^(m), T^(m))`` (:func:`knockoff_evalues`);
3. average: ``e = mean over m of e^(m)``;
4. select ``ebh(e, fdr)`` (:func:`ebh`), the e-BH procedure at the target level ``fdr``.

The false discovery rate is at most ``fdr`` for every ``M`` and every ``alpha_kn``; Ren and Barber
recommend ``alpha_kn = fdr / 2``.  With ``M = 1`` and ``alpha_kn = fdr`` the procedure selects
exactly what the knockoff+ filter selects.  Draw the knockoffs with ``s`` and (for model-X)
``Sigma`` computed once and passed as arrays, so that the M draws differ only in their
randomness::

    Sigma = estimate_covariance(X)
    s = s_matrix(Sigma, "mvr")
    for m in range(M):
        X_tilde = gaussian_knockoffs(X, s=s, mu=X.mean(axis=0), Sigma=Sigma, random_state=m)

Random choices take ``random_state`` and go through ``numpy.random.default_rng(random_state)``
(``None``, an integer, a ``SeedSequence`` or a ``Generator``, which is then used and advanced), as
elsewhere in fstools.

References
----------
Barber, R. F. and Candes, E. J. (2015). Controlling the false discovery rate via knockoffs.
*The Annals of Statistics* 43(5), 2055-2085.

Candes, E., Fan, Y., Janson, L. and Lv, J. (2018). Panning for gold: 'model-X' knockoffs for
high dimensional controlled variable selection. *Journal of the Royal Statistical Society,
Series B* 80(3), 551-577.

Spector, A. and Janson, L. (2022). Powerful knockoffs via minimizing reconstructability.
*The Annals of Statistics* 50(1), 252-276.

Askari, A., Rebjock, Q., d'Aspremont, A. and El Ghaoui, L. (2021). FANOK: knockoffs in linear
time. *SIAM Journal on Mathematics of Data Science* 3(3), 833-853.

Boyd, S. and Vandenberghe, L. (2004). *Convex Optimization*. Cambridge University Press,
chapter 11 (the barrier method, Algorithm 11.1).

Ledoit, O. and Wolf, M. (2004). A well-conditioned estimator for large-dimensional covariance
matrices. *Journal of Multivariate Analysis* 88(2), 365-411.

Ren, Z. and Barber, R. F. (2024). Derandomised knockoffs: leveraging e-values for false
discovery rate control. *Journal of the Royal Statistical Society, Series B* 86(1), 122-154.

Wang, R. and Ramdas, A. (2022). False discovery rate control with e-values. *Journal of the
Royal Statistical Society, Series B* 84(3), 822-852.
"""
import warnings

import numpy as np
from scipy import linalg
from scipy.linalg import blas, lapack

__all__ = ["S_METHODS", "equicorrelated_s", "sdp_s", "mvr_s", "mvr_loss", "s_matrix", "estimate_covariance",
           "fixed_x_knockoffs", "gaussian_knockoffs", "knockoff_evalues", "ebh"]

#: The names :func:`s_matrix` accepts.
S_METHODS = ("equicorrelated", "sdp", "mvr")

# A correlation matrix whose smallest eigenvalue is at most this is refused as singular.
_PD_TOL = 1e-10

# Every s is shrunk (multiplied by 1 - eps) until 2 G - diag(s) has its smallest eigenvalue
# above this margin, G the correlation matrix (see _shrink_to_feasible).
_FEASIBILITY_MARGIN = 1e-10

# The final check of s_matrix and of a user's s: 2 G - diag(s) may have eigenvalues down to
# -_PSD_CHECK_TOL (rounding) and still count as positive semidefinite.
_PSD_CHECK_TOL = 1e-9

# The SDP barrier method: the weight's growth per centring, and the Newton decrement (halved,
# squared, relative to the barrier objective, whose rounding it would otherwise chase) under
# which a centring stops.
_BARRIER_GROWTH = 10.0
_NEWTON_RTOL = 1e-12

# Relative asymmetry tolerated in a covariance matrix.
_SYMMETRY_RTOL = 1e-8

# e-BH: an e-value within this relative distance below its cut p / (fdr k) still reaches it.
_EBH_RTOL = 1e-12


# ---------------------------------------------------------------------------------------------
# Input checks
# ---------------------------------------------------------------------------------------------

def _check_covariance(Sigma, name="Sigma"):
    """The covariance matrix as floats, its correlation matrix and its diagonal.

    Raises ValueError unless ``Sigma`` is a finite, square, symmetric matrix with a positive
    diagonal whose correlation matrix is positive definite.
    """
    try:
        Sigma = np.array(Sigma, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be a square numeric matrix: {error}") from None
    if Sigma.ndim != 2 or Sigma.shape[0] != Sigma.shape[1] or Sigma.shape[0] == 0:
        raise ValueError(f"{name} must be a square p x p matrix with p >= 1; got shape {Sigma.shape}")
    if not np.all(np.isfinite(Sigma)):
        raise ValueError(f"{name} must be finite; it has NaN or infinite entries")
    largest = np.max(np.abs(Sigma))
    asymmetry = np.max(np.abs(Sigma - Sigma.T))
    if asymmetry > _SYMMETRY_RTOL * largest:
        raise ValueError(f"{name} must be symmetric; the largest |{name} - {name}.T| is {asymmetry:.3g}")
    Sigma = (Sigma + Sigma.T) / 2
    variances = np.diag(Sigma).copy()
    if np.any(variances <= 0):
        bad = np.flatnonzero(variances <= 0)
        raise ValueError(f"{name} must have a positive diagonal (variances); entries {bad.tolist()} are <= 0")
    correlation = _correlation(Sigma, variances)
    smallest = _smallest_eigenvalue(correlation)
    if smallest <= _PD_TOL:
        raise ValueError(
            f"{name} must be positive definite (a singular or indefinite covariance admits no useful "
            f"knockoffs); the smallest eigenvalue of its correlation matrix is {smallest:.3g}. "
            "Shrink the estimate (e.g. estimate_covariance(X, shrink=True)) or drop collinear columns")
    return Sigma, correlation, variances


def _correlation(Sigma, variances):
    """The correlation matrix of a covariance matrix, exactly symmetric with a unit diagonal."""
    scale = np.sqrt(variances)
    correlation = Sigma / np.outer(scale, scale)
    correlation = (correlation + correlation.T) / 2
    np.fill_diagonal(correlation, 1.0)
    return correlation


def _smallest_eigenvalue(matrix):
    return linalg.eigvalsh(matrix, subset_by_index=[0, 0])[0]


def _spd_inverse(matrix):
    """The inverse of a symmetric positive definite matrix by its Cholesky factor (LAPACK potri).

    Raises ``numpy.linalg.LinAlgError`` if the matrix is not (numerically) positive definite.
    """
    factor, info = lapack.dpotrf(matrix, lower=False, clean=True)
    if info != 0:
        raise np.linalg.LinAlgError("matrix is not positive definite")
    upper, info = lapack.dpotri(factor, lower=False)
    if info != 0:
        raise np.linalg.LinAlgError("matrix is singular")
    upper = np.triu(upper)
    return upper + np.triu(upper, 1).T


def _check_data(X, name="X"):
    """X as a 2-D float array with finite entries."""
    try:
        X = np.array(X, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be a numeric n x p matrix: {error}") from None
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} must be a 2-D n x p matrix with n, p >= 1; got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} must be finite; it has NaN or infinite entries (impute or drop them first)")
    return X


def _check_method(method):
    if not isinstance(method, str) or method not in S_METHODS:
        allowed = ", ".join(repr(name) for name in S_METHODS)
        raise ValueError(f"s method must be one of {allowed}; got {method!r}")
    return method


def _check_positive_number(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a positive number; got {value!r}")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number; got {value!r}")
    return float(value)


def _check_max_iter(value, name="max_iter"):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1; got {value!r}")
    return int(value)


def _check_s_vector(s, correlation, variances, name="s"):
    """A user's s (covariance scale) as floats, checked: length p, >= 0, 2 Sigma - diag(s) PSD."""
    p = correlation.shape[0]
    try:
        s = np.array(s, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be one of {S_METHODS} or a vector of length {p}: {error}") from None
    if s.shape != (p,):
        raise ValueError(f"{name} must be one of {S_METHODS} or a vector of length p = {p}; got shape {s.shape}")
    if not np.all(np.isfinite(s)) or np.any(s < 0):
        raise ValueError(f"{name} must be finite and non-negative")
    s_correlation = s / variances
    smallest = _smallest_eigenvalue(2 * correlation - np.diag(s_correlation))
    if smallest < -_PSD_CHECK_TOL:
        raise ValueError(f"{name} is too large: 2 Sigma - diag({name}) must be positive semidefinite, and the "
                         f"smallest eigenvalue of its correlation-scale form is {smallest:.3g}")
    return s


# ---------------------------------------------------------------------------------------------
# The s vector
# ---------------------------------------------------------------------------------------------

def _shrink_to_feasible(correlation, s):
    """``s * (1 - eps)`` for the smallest eps in 1e-8, 1e-7, ..., 1 keeping 2 G - diag(s) PD.

    As R's ``create.solve_equi`` and ``create.solve_sdp``: a solution on the boundary of the
    feasible set (the equicorrelated one always is when 2 lambda_min < 1) is pulled inside by a
    relative 1e-8, or by more when rounding needs it, so that the smallest eigenvalue of
    ``2 G - diag(s)`` exceeds :data:`_FEASIBILITY_MARGIN`.  eps = 1 (s = 0) always qualifies
    because G is positive definite (checked on input).
    """
    eps = 1e-8
    while eps < 1:
        candidate = s * (1 - eps)
        if _smallest_eigenvalue(2 * correlation - np.diag(candidate)) > _FEASIBILITY_MARGIN:
            return candidate
        eps = eps * 10
    warnings.warn("no positive s keeps 2 Sigma - diag(s) positive definite; the knockoffs will equal "
                  "the original columns and have no power", RuntimeWarning, stacklevel=3)
    return np.zeros_like(s)


def equicorrelated_s(Sigma):
    """The equicorrelated knockoff vector ``s``: the same value for every feature.

    On the correlation scale ``G = D^-1/2 Sigma D^-1/2`` (``D = diag(Sigma)``), the largest common
    ``s`` with ``0 <= s <= 1`` and ``2 G - s I`` positive semidefinite is
    ``s = min(1, 2 lambda_min(G))`` (Barber and Candes 2015, Section 2.1, the equi-correlated
    knockoffs).  The value is multiplied by ``1 - eps``, eps = 1e-8 (or the smallest power of ten
    above it that is enough), so that ``2 G - diag(s)`` is strictly positive definite despite
    rounding -- R's ``create.solve_equi`` does the same -- and scaled back: ``s_j * Sigma_jj``.

    Parameters
    ----------
    Sigma : array_like, shape (p, p)
        A covariance or correlation matrix: symmetric, positive definite.

    Returns
    -------
    s : ndarray, shape (p,)
        On the scale of ``Sigma``: ``2 Sigma - diag(s)`` is positive definite.

    Raises
    ------
    ValueError
        If ``Sigma`` is not a finite, square, symmetric, positive definite matrix.

    References
    ----------
    Barber, R. F. and Candes, E. J. (2015). Controlling the false discovery rate via knockoffs.
    *The Annals of Statistics* 43(5), 2055-2085, Section 2.1.
    """
    Sigma, correlation, variances = _check_covariance(Sigma)
    s_common = min(1.0, 2 * _smallest_eigenvalue(correlation))
    s = np.full(correlation.shape[0], s_common)
    return _shrink_to_feasible(correlation, s) * variances


def sdp_s(Sigma, tol=1e-7, max_iter=500):
    """The SDP knockoff vector ``s``: the largest ``sum(s)`` keeping the knockoffs valid.

    Solves, on the correlation scale ``G`` of ``Sigma``, the semidefinite program of Barber and
    Candes (2015, Section 2.1, SDP knockoffs)

        maximise sum_j s_j   subject to   0 <= s_j <= 1,   2 G - diag(s) positive semidefinite,

    equivalently minimise ``sum_j |1 - s_j|``, the mean absolute correlation between each feature
    and its knockoff.  The solution is multiplied by ``1 - eps`` as in :func:`equicorrelated_s`
    and scaled back by ``diag(Sigma)``.

    The solver is the barrier method (Boyd and Vandenberghe 2004, Algorithm 11.1): for an
    increasing weight ``t`` it minimises

        -t sum(s) - log det(2 G - diag(s)) - sum log(s_j) - sum log(1 - s_j)

    by Newton's method with a backtracking line search that keeps every iterate strictly
    feasible, until half the squared Newton decrement is below 1e-12 times the objective.  The
    gradient is ``-t + diag(A^-1) - 1/s + 1/(1 - s)`` and the Hessian
    ``A^-1 * A^-1 + diag(1/s^2 + 1/(1 - s)^2)`` (elementwise square), ``A = 2 G - diag(s)``;
    each step costs O(p^3).  The exact minimiser for weight ``t`` is within ``3p / t`` of the
    optimal ``sum(s)`` (the barrier's duality gap), so the weight grows tenfold until
    ``3p / t <= tol * p``: the returned ``sum(s)`` on the correlation scale is within about
    ``tol * p`` of the optimum.  (FANOK, Askari et al. 2021, solves the same barrier problem by
    coordinate ascent instead of Newton steps, cheaper per step; here some sixty Newton steps
    suffice for the problems of the tests.)

    Parameters
    ----------
    Sigma : array_like, shape (p, p)
        A covariance or correlation matrix: symmetric, positive definite.
    tol : float, default 1e-7
        Optimality tolerance per feature (see above).
    max_iter : int, default 500
        The most Newton steps in all; a RuntimeWarning says when they ran out.

    Returns
    -------
    s : ndarray, shape (p,)
        On the scale of ``Sigma``.

    Raises
    ------
    ValueError
        If ``Sigma`` is not a finite, square, symmetric, positive definite matrix, or ``tol`` or
        ``max_iter`` is not positive.

    References
    ----------
    Barber, R. F. and Candes, E. J. (2015). Controlling the false discovery rate via knockoffs.
    *The Annals of Statistics* 43(5), 2055-2085.

    Boyd, S. and Vandenberghe, L. (2004). *Convex Optimization*. Cambridge University Press,
    Section 11.3.

    Askari, A., Rebjock, Q., d'Aspremont, A. and El Ghaoui, L. (2021). FANOK: knockoffs in
    linear time. *SIAM Journal on Mathematics of Data Science* 3(3), 833-853.
    """
    Sigma, correlation, variances = _check_covariance(Sigma)
    tol = _check_positive_number(tol, "tol")
    max_iter = _check_max_iter(max_iter)
    s = _sdp_barrier(correlation, tol, max_iter)
    return _shrink_to_feasible(correlation, s) * variances


def _sdp_barrier_value(correlation, s, weight):
    """The barrier objective at s, or inf outside the open feasible set."""
    if np.any(s <= 0) or np.any(s >= 1):
        return np.inf
    try:
        factor = linalg.cholesky(2 * correlation - np.diag(s), lower=True)
    except linalg.LinAlgError:
        return np.inf
    log_det = 2 * np.sum(np.log(np.diag(factor)))
    return -weight * np.sum(s) - log_det - np.sum(np.log(s)) - np.sum(np.log1p(-s))


def _sdp_barrier(correlation, tol, max_iter):
    """The barrier method for the SDP on a correlation matrix (see :func:`sdp_s`)."""
    p = correlation.shape[0]
    # Strictly feasible start: 2 G - diag(s) has smallest eigenvalue 1.5 lambda_min > 0.
    s = np.full(p, 0.5 * min(1.0, _smallest_eigenvalue(correlation)))
    weight = 1.0
    steps = 0
    while steps < max_iter:
        s, used = _sdp_centre(correlation, s, weight, max_iter - steps)
        steps += used
        if 3 / weight <= tol:
            return s
        weight = weight * _BARRIER_GROWTH
    warnings.warn(f"sdp_s: the barrier method stopped after max_iter={max_iter} Newton steps before "
                  f"reaching tol={tol:g}; s is feasible but may be suboptimal", RuntimeWarning, stacklevel=3)
    return s


def _sdp_centre(correlation, s, weight, max_steps):
    """Newton's method on the barrier objective for one weight: (s, Newton steps used)."""
    for step_number in range(1, max_steps + 1):
        inverse = _spd_inverse(2 * correlation - np.diag(s))
        gradient = -weight + np.diag(inverse) - 1 / s + 1 / (1 - s)
        hessian = inverse * inverse + np.diag(1 / s ** 2 + 1 / (1 - s) ** 2)
        step = -linalg.solve(hessian, gradient, assume_a="pos")
        decrement = -gradient @ step  # the squared Newton decrement
        current = _sdp_barrier_value(correlation, s, weight)
        if decrement / 2 <= _NEWTON_RTOL * max(1.0, abs(current)):
            return s, step_number
        length = _sdp_line_search(correlation, s, weight, step, decrement, current)
        if length == 0:
            return s, step_number  # no progress possible at this precision: centred as well as can be
        s = s + length * step
    return s, max_steps


def _sdp_line_search(correlation, s, weight, step, decrement, current):
    """Backtracking (Armijo, slope 1/4, halving) that keeps s strictly feasible; 0 if it fails."""
    length = 1.0
    while length > 1e-14:
        trial = _sdp_barrier_value(correlation, s + length * step, weight)
        if trial < current and trial <= current - 0.25 * length * decrement:
            return length
        length = length / 2
    return 0.0


def mvr_loss(Sigma, s):
    """The MVR objective ``trace(G_s^-1)`` on the correlation scale.

    ``G_s = [[G, G - diag(s)], [G - diag(s), G]]`` has the eigenvalues of ``diag(s)`` and of
    ``2 G - diag(s)``, so ``trace(G_s^-1) = sum_j 1 / s_j + trace((2 G - diag(s))^-1)``
    (Spector and Janson 2022).  ``s`` is on the scale of ``Sigma``.

    Parameters
    ----------
    Sigma : array_like, shape (p, p)
        Covariance or correlation matrix.
    s : array_like, shape (p,)
        Positive, on the scale of ``Sigma``.

    Returns
    -------
    float
        The loss; ``inf`` when ``s`` is not strictly feasible.
    """
    Sigma, correlation, variances = _check_covariance(Sigma)
    s_correlation = np.asarray(s, dtype=float) / variances
    return _mvr_objective(correlation, s_correlation)


def _mvr_objective(correlation, s):
    if np.any(s <= 0):
        return np.inf
    eigenvalues = linalg.eigvalsh(2 * correlation - np.diag(s))
    if eigenvalues[0] <= 0:
        return np.inf
    return float(np.sum(1 / s) + np.sum(1 / eigenvalues))


def mvr_s(Sigma, tol=1e-7, max_iter=500):
    """The minimum variance-based reconstructability (MVR) knockoff vector ``s``.

    Spector and Janson (2022) choose ``s`` to make each feature hard to reconstruct from the
    other features and all knockoffs: on the correlation scale ``G`` of ``Sigma`` they minimise

        trace(G_s^-1) = sum_j 1 / s_j + trace((2 G - diag(s))^-1)

    over ``s`` with ``diag(s)`` and ``2 G - diag(s)`` positive definite (their MVR criterion:
    ``G_s`` is the joint feature-knockoff correlation matrix, whose eigenvalues are the ``s_j`` and
    those of ``2 G - diag(s)``).  The objective is strictly convex and grows without bound at the
    boundary of the feasible set, so its minimiser is the unique point where every partial
    derivative ``-1/s_j^2 + (A^-2)_jj`` vanishes, ``A = 2 G - diag(s)``.

    The solver is their coordinate descent: with ``a = A^-1 e_j``, ``c_d = a_j`` and
    ``c_n = |a|^2``, changing ``s_j`` by ``delta`` changes the objective by
    ``1/(s_j + delta) - 1/s_j + delta c_n / (1 - delta c_d)`` (Sherman-Morrison), which is convex
    in ``delta`` on the feasible interval ``(-s_j, 1/c_d)`` and minimal at

        delta = (1 - sqrt(c_n) s_j) / (sqrt(c_n) + c_d),

    always strictly inside it.  ``A^-1`` is kept up to date by the same rank-one formula
    (O(p^2) per coordinate, in place) and recomputed from its Cholesky factor after every sweep
    over the features.  The sweeps run in feature order from ``s_j = lambda_min(G)`` until every
    coordinate is optimal to a relative ``tol``: ``max_j |s_j^2 (A^-2)_jj - 1| <= tol``.  The
    result is multiplied by ``1 - eps`` as in :func:`equicorrelated_s` (eps = 1e-8 in practice:
    the MVR solution is well inside the feasible set) and scaled back by ``diag(Sigma)``.

    Parameters
    ----------
    Sigma : array_like, shape (p, p)
        A covariance or correlation matrix: symmetric, positive definite.
    tol : float, default 1e-7
        The stationarity tolerance above.
    max_iter : int, default 500
        The most sweeps; a RuntimeWarning says when they ran out.

    Returns
    -------
    s : ndarray, shape (p,)
        On the scale of ``Sigma``.  On the correlation scale ``s_j`` may exceed 1 (a negative
        feature-knockoff correlation) but is below 2.

    Raises
    ------
    ValueError
        If ``Sigma`` is not a finite, square, symmetric, positive definite matrix, or ``tol`` or
        ``max_iter`` is not positive.

    References
    ----------
    Spector, A. and Janson, L. (2022). Powerful knockoffs via minimizing reconstructability.
    *The Annals of Statistics* 50(1), 252-276.
    """
    Sigma, correlation, variances = _check_covariance(Sigma)
    tol = _check_positive_number(tol, "tol")
    max_iter = _check_max_iter(max_iter)
    s = _mvr_coordinate_descent(correlation, tol, max_iter)
    return _shrink_to_feasible(correlation, s) * variances


def _mvr_stationarity(correlation, s):
    """max_j |s_j^2 (A^-2)_jj - 1|, A = 2 G - diag(s): 0 exactly at the MVR solution."""
    inverse = _spd_inverse(2 * correlation - np.diag(s))
    column_norms_squared = np.sum(inverse ** 2, axis=0)  # (A^-2)_jj
    return np.max(np.abs(s ** 2 * column_norms_squared - 1))


def _mvr_coordinate_descent(correlation, tol, max_iter):
    """Coordinate descent for MVR on a correlation matrix (see :func:`mvr_s`)."""
    p = correlation.shape[0]
    s = np.full(p, _smallest_eigenvalue(correlation))
    column = np.empty(p)
    for _sweep in range(max_iter):
        # A^-1, of which only the upper triangle is read and updated (BLAS syr) below.
        inverse = np.asfortranarray(_spd_inverse(2 * correlation - np.diag(s)))
        for j in range(p):
            # Column j of the symmetric A^-1 from its upper triangle.
            column[:j + 1] = inverse[:j + 1, j]
            column[j + 1:] = inverse[j, j + 1:]
            c_d = column[j]
            root_c_n = np.sqrt(column @ column)
            delta = (1 - root_c_n * s[j]) / (root_c_n + c_d)
            s[j] = s[j] + delta
            # Sherman-Morrison: (A - delta e_j e_j')^-1 = A^-1 + delta a a' / (1 - delta a_j).
            blas.dsyr(delta / (1 - delta * c_d), column, a=inverse, lower=0, overwrite_a=True)
        if _mvr_stationarity(correlation, s) <= tol:
            return s
    warnings.warn(f"mvr_s: coordinate descent stopped after max_iter={max_iter} sweeps before reaching "
                  f"tol={tol:g}; s is feasible but may be suboptimal", RuntimeWarning, stacklevel=3)
    return s


def s_matrix(Sigma, method="mvr"):
    """The knockoff vector ``s`` of a named method, checked for validity.

    Parameters
    ----------
    Sigma : array_like, shape (p, p)
        A covariance or correlation matrix: symmetric, positive definite.
    method : {"mvr", "sdp", "equicorrelated"}, default "mvr"
        :func:`mvr_s`, :func:`sdp_s` or :func:`equicorrelated_s` (with their default settings).

    Returns
    -------
    s : ndarray, shape (p,)
        The diagonal of ``diag(s)`` (not the matrix), on the scale of ``Sigma``, with
        ``2 Sigma - diag(s)`` positive semidefinite: checked on the correlation scale, where its
        smallest eigenvalue must be at least ``-1e-9``.

    Raises
    ------
    ValueError
        If ``method`` is not one of :data:`S_METHODS`, or ``Sigma`` is not a finite, square,
        symmetric, positive definite matrix.
    RuntimeError
        If a solver's result fails the check (a bug, not a property of the input).
    """
    method = _check_method(method)
    solvers = {"equicorrelated": equicorrelated_s, "sdp": sdp_s, "mvr": mvr_s}
    s = solvers[method](Sigma)
    _, correlation, variances = _check_covariance(Sigma)
    s_correlation = s / variances
    smallest = _smallest_eigenvalue(2 * correlation - np.diag(s_correlation))
    if np.any(s < 0) or smallest < -_PSD_CHECK_TOL:
        raise RuntimeError(f"s method {method!r} returned an invalid s: the smallest eigenvalue of "
                           f"2 G - diag(s) is {smallest:.3g} and the smallest s_j {np.min(s):.3g}")
    return s


def _resolve_s(s, Sigma, correlation, variances):
    """s as a vector on Sigma's scale: computed by name, or a user's vector checked."""
    if isinstance(s, str):
        return s_matrix(Sigma, s)
    return _check_s_vector(s, correlation, variances)


# ---------------------------------------------------------------------------------------------
# Covariance estimate
# ---------------------------------------------------------------------------------------------

def _check_shrink(shrink):
    if isinstance(shrink, str) and shrink == "auto":
        return shrink
    if isinstance(shrink, (bool, np.bool_)):
        return bool(shrink)
    raise ValueError(f"shrink must be True, False or 'auto'; got {shrink!r}")


def estimate_covariance(X, shrink="auto", return_shrunk=False):
    """The covariance estimate that :func:`gaussian_knockoffs` uses when no ``Sigma`` is given.

    The sample covariance (divisor ``n - 1``, as R's ``cov``), or, with shrinkage, the sample
    variances combined with Ledoit-Wolf shrunk correlations:
    ``Sigma = D^1/2 ((1 - delta) R + delta I) D^1/2``, with ``R`` the sample correlation matrix,
    ``D`` the sample variances and ``delta`` the Ledoit-Wolf (2004) intensity estimated on the
    standardised columns (``sklearn.covariance.ledoit_wolf``).  Shrinking the correlations rather
    than the covariance towards a multiple of the identity keeps the estimate equivariant to the
    units of the columns.  R's ``create.second_order`` shrinks likewise (with the Schafer-Strimmer
    estimator of ``corpcor::cov.shrink``), on request or when the sample covariance is not
    positive definite.

    Parameters
    ----------
    X : array_like, shape (n, p)
        The data, finite, with ``n >= 2`` and no constant column.
    shrink : {"auto", True, False}, default "auto"
        ``True``: always shrink.  ``False``: never; a ValueError if the sample covariance is
        singular.  ``"auto"``: shrink when ``n < 2p`` (the sample covariance is then poorly
        conditioned or singular and its knockoffs nearly powerless) or when the sample
        correlation matrix is not positive definite (smallest eigenvalue <= 1e-10).

    return_shrunk : bool, default False
        Also return whether the estimate was shrunk.

    Returns
    -------
    Sigma : ndarray, shape (p, p)
    shrunk : bool
        Only with ``return_shrunk``.

    Raises
    ------
    ValueError
        If ``X`` is not a finite 2-D array with ``n >= 2`` rows and no constant column, if
        ``shrink`` is not one of the allowed values, or if ``shrink=False`` and the sample
        covariance is singular.

    References
    ----------
    Ledoit, O. and Wolf, M. (2004). A well-conditioned estimator for large-dimensional
    covariance matrices. *Journal of Multivariate Analysis* 88(2), 365-411.
    """
    X = _check_data(X)
    shrink = _check_shrink(shrink)
    n, p = X.shape
    if n < 2:
        raise ValueError(f"X needs n >= 2 rows to estimate a covariance; got n = {n} (or pass Sigma)")
    sample = np.cov(X, rowvar=False, ddof=1).reshape(p, p)
    variances = np.diag(sample).copy()
    if np.any(variances <= 0):
        constant = np.flatnonzero(variances <= 0)
        raise ValueError(f"X has constant columns {constant.tolist()}: they have no knockoffs; drop them first")
    correlation = _correlation(sample, variances)
    singular = _smallest_eigenvalue(correlation) <= _PD_TOL
    if shrink == "auto":
        shrink = bool(n < 2 * p or singular)
    if not shrink:
        if singular:
            raise ValueError(f"the sample covariance of X is singular (n = {n}, p = {p}); use shrink=True or "
                             "shrink='auto', or pass Sigma")
        Sigma = (sample + sample.T) / 2
    else:
        Sigma = _ledoit_wolf_covariance(X, variances)
    return (Sigma, bool(shrink)) if return_shrunk else Sigma


def _ledoit_wolf_covariance(X, variances):
    # Imported here: scikit-learn is slow to import and only this estimate needs it.
    from sklearn.covariance import ledoit_wolf

    standardised = (X - X.mean(axis=0)) / np.sqrt(variances)
    shrunk, _intensity = ledoit_wolf(standardised, assume_centered=True)
    # The target and the empirical matrix share the diagonal (n - 1) / n: rescale to a unit one.
    shrunk_correlation = _correlation(shrunk, np.diag(shrunk).copy())
    scale = np.sqrt(variances)
    return shrunk_correlation * np.outer(scale, scale)


# ---------------------------------------------------------------------------------------------
# Knockoffs
# ---------------------------------------------------------------------------------------------

def fixed_x_knockoffs(X, s="equicorrelated", random_state=None):
    """Fixed-X knockoffs of Barber and Candes (2015), for ``n >= 2p``.

    The columns of ``X`` are first scaled to unit Euclidean norm, without centring (as R's
    ``create.fixed``: centre ``X`` and the response yourself when the model has an intercept).
    With ``Sigma = X'X`` on that scale and ``S = diag(s)``, the knockoffs are (their Eq. 1.4)

        X_tilde = X (I - Sigma^-1 S) + U_tilde C,

    ``U_tilde`` an ``n x p`` matrix with orthonormal columns orthogonal to the columns of ``X``
    and ``C'C = 2 S - S Sigma^-1 S`` (``C`` the symmetric square root of the right-hand side).
    Then ``X_tilde'X_tilde = Sigma`` and ``X'X_tilde = Sigma - S`` (their Eq. 1.3).  The knockoffs
    are returned in the units of the input: column ``j`` multiplied back by the norm of ``X[:, j]``,
    so that with ``X`` as given

        X_tilde'X_tilde = X'X   and   X'X_tilde = X'X - diag(s_input),

    ``s_input = s * (column norms)^2``.

    Parameters
    ----------
    X : array_like, shape (n, p)
        The design, finite, of full column rank, with ``n >= 2p``.
    s : {"equicorrelated", "sdp", "mvr"} or array_like of shape (p,), default "equicorrelated"
        A method of :func:`s_matrix`, computed on ``X'X``; or the vector itself, in the units
        of ``X'X`` (as ``s_matrix(X.T @ X, method)`` returns it).
    random_state : None, int, SeedSequence or Generator, default None
        ``None``: ``U_tilde`` is a fixed basis (the trailing columns of the complete QR
        decomposition of ``X``), so the knockoffs are a deterministic function of ``X``, as R's
        default ``randomize = FALSE``.  Otherwise ``U_tilde`` is a uniformly random orthonormal
        p-frame of the orthogonal complement of ``X``'s columns, drawn from
        ``numpy.random.default_rng(random_state)``.

    Returns
    -------
    X_tilde : ndarray, shape (n, p)

    Raises
    ------
    ValueError
        If ``X`` has NaN or infinite entries, fewer than ``2p`` rows (fixed-X knockoffs need
        ``n >= 2p``; model-X :func:`gaussian_knockoffs` works for any ``n``), a zero column, or is
        rank deficient; if ``s`` is an unknown method or an invalid vector.

    References
    ----------
    Barber, R. F. and Candes, E. J. (2015). Controlling the false discovery rate via knockoffs.
    *The Annals of Statistics* 43(5), 2055-2085, Eqs. (1.3) and (1.4).
    """
    X = _check_data(X)
    n, p = X.shape
    if n < 2 * p:
        raise ValueError(f"fixed_x_knockoffs needs X with n >= 2p rows; X has n = {n} and p = {p}. "
                         "Use model-X knockoffs (gaussian_knockoffs), which work for any n, or add rows")
    norms = np.sqrt(np.sum(X ** 2, axis=0))
    if np.any(norms == 0):
        raise ValueError(f"X has all-zero columns {np.flatnonzero(norms == 0).tolist()}: drop them first")
    normalised = X / norms
    singular_values = linalg.svdvals(normalised)
    if singular_values[-1] <= 1e-7 * singular_values[0]:
        raise ValueError("X is rank deficient (collinear columns): fixed-X knockoffs need full column rank")
    gram = normalised.T @ normalised
    gram = (gram + gram.T) / 2
    np.fill_diagonal(gram, 1.0)
    if isinstance(s, str):
        s_normalised = s_matrix(gram, s)
    else:
        s_input = _check_s_vector(s, gram, norms ** 2)
        s_normalised = s_input / norms ** 2

    gram_factor = linalg.cho_factor(gram)
    gram_inverse_s = linalg.cho_solve(gram_factor, np.diag(s_normalised))  # Sigma^-1 S
    residual_gram = 2 * np.diag(s_normalised) - s_normalised[:, None] * gram_inverse_s  # 2S - S Sigma^-1 S
    C = _symmetric_root(residual_gram)

    U_tilde = _orthogonal_complement_frame(normalised, random_state)
    knockoffs = normalised - normalised @ gram_inverse_s + U_tilde @ C
    return knockoffs * norms


def _orthogonal_complement_frame(X, random_state):
    """n x p orthonormal columns orthogonal to the columns of X (n >= 2p, X of full rank)."""
    n, p = X.shape
    Q, _ = linalg.qr(X, mode="full")
    complement = Q[:, p:]  # n x (n - p), orthonormal, orthogonal to span(X)
    if random_state is None:
        return complement[:, :p]
    rng = np.random.default_rng(random_state)
    rotation, upper = linalg.qr(rng.standard_normal((n - p, p)), mode="economic")
    # Signs fixed by R's diagonal so that the frame is uniformly (Haar) distributed.
    rotation = rotation * np.sign(np.diag(upper))
    return complement @ rotation


def gaussian_knockoffs(X, s="mvr", mu=None, Sigma=None, shrink="auto", random_state=None):
    """Model-X second-order Gaussian knockoffs (Candes, Fan, Janson and Lv 2018).

    If the rows of ``X`` are ``N(mu, Sigma)``, knockoffs drawn row by row from

        X_tilde | X ~ N(X - (X - mu) Sigma^-1 D,  2 D - D Sigma^-1 D),   D = diag(s),

    make ``[X, X_tilde]`` Gaussian with covariance ``[[Sigma, Sigma - D], [Sigma - D, Sigma]]``
    (their Section 3.1: the conditional law of the joint Gaussian).  When ``mu`` or ``Sigma`` is
    not given it is estimated from ``X`` -- second-order knockoffs, R's ``create.second_order``:
    ``mu`` the column means, ``Sigma`` by :func:`estimate_covariance` with ``shrink``.

    Parameters
    ----------
    X : array_like, shape (n, p)
        The data, finite.
    s : {"mvr", "sdp", "equicorrelated"} or array_like of shape (p,), default "mvr"
        A method of :func:`s_matrix`, computed on ``Sigma``; or the vector itself, on the scale of
        ``Sigma`` (compute it once to draw many knockoffs, e.g. for derandomised knockoffs).
    mu : array_like of shape (p,), optional
        The mean; default the column means of ``X``.
    Sigma : array_like of shape (p, p), optional
        The covariance, symmetric positive definite; default :func:`estimate_covariance`.
    shrink : {"auto", True, False}, default "auto"
        How ``Sigma`` is estimated (see :func:`estimate_covariance`); only with ``Sigma=None``.
    random_state : None, int, SeedSequence or Generator, default None
        The Gaussian draws come from ``numpy.random.default_rng(random_state)``: one
        ``standard_normal((n, p))``.

    Returns
    -------
    X_tilde : ndarray, shape (n, p)
        In the units of ``X``.

    Raises
    ------
    ValueError
        If ``X`` has NaN or infinite entries; ``mu`` or ``Sigma`` has the wrong shape or is
        invalid (``Sigma`` not symmetric positive definite); ``shrink`` is not True, False or
        "auto", or is True together with a given ``Sigma``; ``s`` is an unknown method or an
        invalid vector.

    References
    ----------
    Candes, E., Fan, Y., Janson, L. and Lv, J. (2018). Panning for gold: 'model-X' knockoffs for
    high dimensional controlled variable selection. *Journal of the Royal Statistical Society,
    Series B* 80(3), 551-577, Section 3.1.
    """
    X = _check_data(X)
    n, p = X.shape
    shrink = _check_shrink(shrink)
    if mu is None:
        mu = X.mean(axis=0)
    else:
        mu = np.array(mu, dtype=float)
        if mu.shape != (p,) or not np.all(np.isfinite(mu)):
            raise ValueError(f"mu must be a finite vector of length p = {p}; got shape {mu.shape}")
    if Sigma is None:
        Sigma = estimate_covariance(X, shrink=shrink)
    else:
        if shrink is True:
            raise ValueError("shrink=True applies to the estimated covariance; with Sigma given use "
                             "shrink='auto' or False (Sigma is used as given)")
    Sigma, correlation, variances = _check_covariance(Sigma)
    if Sigma.shape != (p, p):
        raise ValueError(f"Sigma must be p x p with p = {p} (the columns of X); got shape {Sigma.shape}")
    s = _resolve_s(s, Sigma, correlation, variances)

    sigma_factor = linalg.cho_factor(Sigma)
    sigma_inverse_d = linalg.cho_solve(sigma_factor, np.diag(s))  # Sigma^-1 D
    conditional_mean = X - (X - mu) @ sigma_inverse_d
    conditional_covariance = 2 * np.diag(s) - s[:, None] * sigma_inverse_d  # 2D - D Sigma^-1 D
    root = _covariance_root(conditional_covariance, np.sqrt(variances))

    rng = np.random.default_rng(random_state)
    noise = rng.standard_normal((n, p))
    return conditional_mean + noise @ root


def _covariance_root(covariance, scale):
    """A matrix R with R'R = covariance, equivariant to the units of the columns.

    The symmetric square root (:func:`_symmetric_root`) of ``covariance / outer(scale, scale)``
    with its columns multiplied back by ``scale``.  The symmetric root is unique (no sign or basis
    choice of an eigendecomposition leaks into it), so rescaling the columns of X rescales the
    columns of the knockoffs drawn from the same random numbers, as it should.
    """
    root = _symmetric_root(covariance / np.outer(scale, scale))
    return root * scale


def _symmetric_root(matrix):
    """The symmetric positive semidefinite square root Q diag(sqrt(lambda)) Q' of a symmetric matrix.

    Eigenvalues below 0 (rounding: the matrix may be singular, e.g. when some s_j is 0) are set
    to 0.
    """
    matrix = (matrix + matrix.T) / 2
    eigenvalues, eigenvectors = linalg.eigh(matrix)
    roots = np.sqrt(np.clip(eigenvalues, 0, None))
    return (eigenvectors * roots) @ eigenvectors.T


# ---------------------------------------------------------------------------------------------
# Derandomised knockoffs: e-values and e-BH
# ---------------------------------------------------------------------------------------------

def knockoff_evalues(W, threshold, offset=1):
    """The knockoff e-values of one knockoff draw (Ren and Barber 2024).

    For knockoff statistics ``W`` and a threshold ``T > 0``,

        e_j = p * 1{W_j >= T} / (offset + #{k : W_k <= -T}).

    With ``offset = 1`` and ``T`` the knockoff+ threshold at level ``alpha_kn``, these are
    e-values (the nulls' sum has expectation at most ``p``), and :func:`ebh` at level ``alpha_kn``
    on them selects exactly the knockoff+ selection ``{j : W_j >= T}``; averaged over M draws
    they give derandomised knockoffs (see the module's description).  ``T = inf`` (no threshold
    attained) gives all zeros.

    Parameters
    ----------
    W : array_like, shape (p,)
        Finite knockoff statistics.
    threshold : float
        ``T > 0``, possibly ``inf``.
    offset : {1, 0}, default 1
        1 for knockoff+ (the e-value guarantee holds only for 1); 0 for the plain knockoff
        filter's count, where an empty count gives a denominator of 1.

    Returns
    -------
    e : ndarray, shape (p,)
        Non-negative; zero where ``W_j < T``.

    Raises
    ------
    ValueError
        If ``W`` is not a finite 1-D array, ``threshold`` is not positive, or ``offset`` is not
        0 or 1.

    References
    ----------
    Ren, Z. and Barber, R. F. (2024). Derandomised knockoffs: leveraging e-values for false
    discovery rate control. *Journal of the Royal Statistical Society, Series B* 86(1),
    122-154.
    """
    try:
        W = np.array(W, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"W must be a numeric vector of knockoff statistics: {error}") from None
    if W.ndim != 1 or W.size == 0:
        raise ValueError(f"W must be a non-empty 1-D vector; got shape {W.shape}")
    if not np.all(np.isfinite(W)):
        raise ValueError("W must be finite; it has NaN or infinite entries")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.integer, np.floating)) \
            or np.isnan(threshold) or threshold <= 0:
        raise ValueError(f"threshold must be a number > 0 (inf allowed); got {threshold!r}")
    if isinstance(offset, bool) or offset not in (0, 1):
        raise ValueError(f"offset must be 1 (knockoff+) or 0 (knockoff); got {offset!r}")
    p = W.size
    if np.isinf(threshold):
        return np.zeros(p)
    negatives = np.count_nonzero(W <= -threshold)
    denominator = max(offset + negatives, 1)
    return p * (W >= threshold).astype(float) / denominator


def ebh(e, fdr):
    """The e-BH procedure of Wang and Ramdas (2022): the hypotheses it rejects.

    With the e-values sorted decreasingly, ``e_(1) >= ... >= e_(p)``, e-BH rejects the ``k_hat``
    hypotheses with the largest e-values,

        k_hat = max{k : e_(k) >= p / (fdr * k)}    (0 if there is none);

    equivalently every ``j`` with ``e_j >= p / (fdr * k_hat)``.  An e-value short of its cut by
    a relative 1e-12 or less (rounding) counts as reaching it.  It controls the false discovery
    rate at ``fdr`` under any dependence between the e-values.  Applied to e-values averaged over
    M knockoff draws (:func:`knockoff_evalues`) it is the derandomised knockoff filter of Ren and
    Barber (2024).

    Parameters
    ----------
    e : array_like, shape (p,)
        Finite, non-negative e-values.
    fdr : float
        The level, ``0 < fdr <= 1``.

    Returns
    -------
    rejected : ndarray of int
        The indices of the rejected hypotheses, increasing; empty when none.

    Raises
    ------
    ValueError
        If ``e`` is not a finite, non-negative 1-D array or ``fdr`` is not in (0, 1].

    References
    ----------
    Wang, R. and Ramdas, A. (2022). False discovery rate control with e-values. *Journal of the
    Royal Statistical Society, Series B* 84(3), 822-852.

    Ren, Z. and Barber, R. F. (2024). Derandomised knockoffs: leveraging e-values for false
    discovery rate control. *Journal of the Royal Statistical Society, Series B* 86(1), 122-154.
    """
    try:
        e = np.array(e, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"e must be a numeric vector of e-values: {error}") from None
    if e.ndim != 1:
        raise ValueError(f"e must be a 1-D vector; got shape {e.shape}")
    if not np.all(np.isfinite(e)) or np.any(e < 0):
        raise ValueError("e must be finite and non-negative (e-values)")
    if isinstance(fdr, bool) or not isinstance(fdr, (int, float, np.integer, np.floating)) \
            or not 0 < fdr <= 1:
        raise ValueError(f"fdr must be a number in (0, 1]; got {fdr!r}")
    p = e.size
    if p == 0:
        return np.array([], dtype=int)
    descending = np.sort(e)[::-1]
    ranks = np.arange(1, p + 1)
    # e_(k) >= p / (fdr k)  <=>  fdr k e_(k) >= p, with ties up to rounding (relative
    # _EBH_RTOL) counting as reaching the cut: knockoff e-values p / (1 + N) at the knockoff+
    # boundary (1 + N) / R = fdr must be rejected whatever the rounding of p / (1 + N).
    passing = np.flatnonzero(fdr * ranks * descending >= p * (1 - _EBH_RTOL))
    if passing.size == 0:
        return np.array([], dtype=int)
    k_hat = passing[-1] + 1
    cutoff = descending[k_hat - 1]
    return np.flatnonzero(e >= cutoff)

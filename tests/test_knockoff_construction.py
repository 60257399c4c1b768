"""Knockoff constructions on arrays (fstools.guarantees.knockoff_construction).

Reference values (tests/references/guarantees, see knockoff_construction_README.md there):
knockpy's and cvxpy's s vectors, and R knockoff's fixed-X equicorrelated knockoffs.
"""
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import linalg, optimize

from fstools.guarantees.knockoff_construction import (
    S_METHODS, ebh, equicorrelated_s, estimate_covariance, fixed_x_knockoffs, gaussian_knockoffs,
    knockoff_evalues, mvr_loss, mvr_s, s_matrix, sdp_s)

REFERENCES = Path(__file__).parent / "references" / "guarantees"


def ar1(p, rho):
    index = np.arange(p)
    return rho ** np.abs(index[:, None] - index[None, :])


def exchangeable(p, rho):
    return rho * np.ones((p, p)) + (1 - rho) * np.eye(p)


def random_correlation(p, seed, n=None):
    rng = np.random.default_rng(seed)
    n = 3 * p if n is None else n
    mixing = np.eye(p) + 0.5 * rng.standard_normal((p, p))
    return np.corrcoef(rng.standard_normal((n, p)) @ mixing, rowvar=False).reshape(p, p)


def correlation_of(Sigma):
    scale = np.sqrt(np.diag(Sigma))
    return Sigma / np.outer(scale, scale)


def smallest_eigenvalue(matrix):
    return np.linalg.eigvalsh(matrix)[0]


def gap_matrix(Sigma, s):
    """2 G - diag(s) on the correlation scale."""
    return 2 * correlation_of(Sigma) - np.diag(s / np.diag(Sigma))


@pytest.fixture(scope="module")
def references():
    return json.loads((REFERENCES / "knockoff_construction_smatrices.json").read_text())["cases"]


# ---------------------------------------------------------------------------------------------
# equicorrelated
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("Sigma", [ar1(10, 0.6), ar1(30, 0.9), random_correlation(8, 1), exchangeable(5, 0.1)])
def test_equicorrelated_is_min_of_one_and_twice_smallest_eigenvalue(Sigma):
    s = equicorrelated_s(Sigma)
    expected = min(1.0, 2 * smallest_eigenvalue(Sigma))
    np.testing.assert_allclose(s, expected, rtol=1e-6)
    assert np.all(s <= expected)  # shrunk inside, never outside
    assert smallest_eigenvalue(gap_matrix(Sigma, s)) > 0


def test_equicorrelated_of_identity_is_one():
    np.testing.assert_allclose(equicorrelated_s(np.eye(4)), 1.0, rtol=1e-7)


def test_equicorrelated_covariance_scale():
    variances = np.array([1.0, 4.0, 0.25, 9.0, 2.0])
    Sigma = ar1(5, 0.7) * np.sqrt(np.outer(variances, variances))
    np.testing.assert_allclose(equicorrelated_s(Sigma), equicorrelated_s(ar1(5, 0.7)) * variances, rtol=1e-12)


def test_equicorrelated_matches_knockpy(references):
    for name, case in references.items():
        Sigma = np.array(case["Sigma"])
        ours = equicorrelated_s(Sigma)
        theirs = np.array(case["equicorrelated_knockpy"])
        # knockpy pulls the solution inside by a larger safety margin (up to ~1e-3 relative).
        np.testing.assert_allclose(ours, theirs, rtol=2e-3, err_msg=name)
        assert np.all(ours >= theirs * (1 - 1e-9)), name


# ---------------------------------------------------------------------------------------------
# SDP
# ---------------------------------------------------------------------------------------------

def test_sdp_matches_cvxpy(references):
    for name, case in references.items():
        Sigma = np.array(case["Sigma"])
        variances = np.diag(Sigma)
        p = len(variances)
        ours = sdp_s(Sigma)
        optimum = case["sdp_cvxpy_objective_correlation_scale"]
        assert np.sum(ours / variances) == pytest.approx(optimum, abs=1e-6 * p), name
        np.testing.assert_allclose(ours / variances, np.array(case["sdp_cvxpy"]) / variances, atol=1e-4, err_msg=name)
        # knockpy keeps a safety margin: its sum is never above ours.
        assert np.sum(ours / variances) >= np.sum(np.array(case["sdp_knockpy"]) / variances) - 1e-9, name


@pytest.mark.parametrize("rho, expected", [(0.9, 0.2), (0.3, 1.0), (0.6, 0.8)])
def test_sdp_of_exchangeable_is_equicorrelated(rho, expected):
    # For an exchangeable correlation the SDP solution is the equicorrelated one, min(1, 2(1 - rho)).
    s = sdp_s(exchangeable(6, rho))
    np.testing.assert_allclose(s, expected, atol=1e-6)


def test_sdp_solution_is_feasible_and_beats_equicorrelated():
    for seed in range(4):
        Sigma = random_correlation(10, seed)
        s = sdp_s(Sigma)
        assert np.all(s >= 0) and np.all(s <= 1)
        assert smallest_eigenvalue(gap_matrix(Sigma, s)) > 0
        assert np.sum(s) >= np.sum(equicorrelated_s(Sigma)) - 1e-9


def _brute_sdp(G):
    """max sum(s) with SLSQP, the PSD constraint through the smallest eigenvalue (small p only)."""
    p = G.shape[0]
    constraint = {"type": "ineq", "fun": lambda s: np.linalg.eigvalsh(2 * G - np.diag(s))[0]}
    start = np.full(p, 0.5 * min(1.0, smallest_eigenvalue(G)))
    best = None
    for scale in (1.0, 1.5, 1.9):  # a few starts: the eigenvalue constraint is not smooth
        result = optimize.minimize(lambda s: -np.sum(s), np.clip(start * scale, 0, 1), method="SLSQP",
                                   bounds=[(0, 1)] * p, constraints=[constraint],
                                   options={"ftol": 1e-12, "maxiter": 500})
        feasible = np.linalg.eigvalsh(2 * G - np.diag(result.x))[0] >= -1e-8
        if feasible and (best is None or -result.fun > best):
            best = -result.fun
    return best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sdp_at_least_as_good_as_a_generic_solver(seed):
    G = random_correlation(4, seed + 10, n=8)
    ours = np.sum(sdp_s(G))
    assert ours >= _brute_sdp(G) - 1e-6


# ---------------------------------------------------------------------------------------------
# MVR
# ---------------------------------------------------------------------------------------------

def _stationarity(Sigma, s):
    """max_j |s_j^2 (A^-2)_jj - 1| on the correlation scale: 0 at the MVR optimum."""
    s_correlation = s / np.diag(Sigma)
    inverse = np.linalg.inv(gap_matrix(Sigma, s))
    return np.max(np.abs(s_correlation ** 2 * np.sum(inverse ** 2, axis=0) - 1))


@pytest.mark.parametrize("Sigma", [ar1(10, 0.6), ar1(40, 0.95), random_correlation(15, 3), exchangeable(7, 0.8),
                                   ar1(6, 0.8) * np.outer([1, 2, 0.5, 3, 1, 0.1], [1, 2, 0.5, 3, 1, 0.1])])
def test_mvr_is_a_stationary_point(Sigma):
    # The MVR objective is strictly convex and the optimum interior: a zero gradient proves it.
    s = mvr_s(Sigma)
    assert _stationarity(Sigma, s) < 1e-6
    assert smallest_eigenvalue(gap_matrix(Sigma, s)) > 0


def test_mvr_of_identity_is_one():
    np.testing.assert_allclose(mvr_s(np.eye(5)), 1.0, rtol=1e-7)


@pytest.mark.parametrize("p, rho", [(6, 0.5), (8, 0.9), (5, 0.2)])
def test_mvr_of_exchangeable_matches_one_dimensional_minimisation(p, rho):
    # By symmetry s_j = s, and 2G - sI has eigenvalues 2(1 - rho) - s (p - 1 times) and
    # 2(1 - rho + p rho) - s: the loss is a function of s alone.
    def loss(s):
        return p / s + (p - 1) / (2 * (1 - rho) - s) + 1 / (2 * (1 - rho + p * rho) - s)

    best = optimize.minimize_scalar(loss, bounds=(1e-9, 2 * (1 - rho) - 1e-9), method="bounded",
                                    options={"xatol": 1e-12})
    np.testing.assert_allclose(mvr_s(exchangeable(p, rho)), best.x, rtol=1e-6)


def test_mvr_matches_knockpy(references):
    for name, case in references.items():
        Sigma = np.array(case["Sigma"])
        ours = mvr_s(Sigma)
        theirs = np.array(case["mvr_knockpy"])
        # knockpy stops earlier and keeps a safety margin: close, and our loss is no larger.
        np.testing.assert_allclose(ours, theirs, rtol=3e-3, err_msg=name)
        assert mvr_loss(Sigma, ours) <= mvr_loss(Sigma, theirs) * (1 + 1e-12), name


@pytest.mark.parametrize("seed", [0, 1])
def test_mvr_at_least_as_good_as_a_generic_solver(seed):
    G = random_correlation(4, seed + 20, n=10)
    start = np.full(4, smallest_eigenvalue(G))
    result = optimize.minimize(lambda s: mvr_loss(G, s) if np.all(s > 0) else np.inf, start,
                               method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000})
    assert mvr_loss(G, mvr_s(G)) <= result.fun * (1 + 1e-9)


def test_mvr_loss_is_infinite_outside_the_feasible_set():
    assert mvr_loss(np.eye(3), np.array([1.0, 2.5, 1.0])) == np.inf
    assert mvr_loss(np.eye(3), np.array([1.0, 0.0, 1.0])) == np.inf
    assert mvr_loss(np.eye(3), np.ones(3)) == pytest.approx(6.0)


# ---------------------------------------------------------------------------------------------
# s_matrix
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("method, function", [("equicorrelated", equicorrelated_s), ("sdp", sdp_s), ("mvr", mvr_s)])
def test_s_matrix_dispatches(method, function):
    Sigma = ar1(8, 0.7) * 3.0
    np.testing.assert_array_equal(s_matrix(Sigma, method), function(Sigma))


def test_s_matrix_unknown_method_lists_the_allowed_ones():
    with pytest.raises(ValueError, match="'equicorrelated', 'sdp', 'mvr'.*'asdp'"):
        s_matrix(np.eye(3), "asdp")
    with pytest.raises(ValueError, match="s method"):
        s_matrix(np.eye(3), None)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), p=st.integers(1, 7), method=st.sampled_from(S_METHODS))
def test_every_s_keeps_the_knockoff_covariance_psd(seed, p, method):
    rng = np.random.default_rng(seed)
    variances = rng.uniform(0.1, 10, size=p)
    correlation = random_correlation(p, seed, n=p + 2)
    if smallest_eigenvalue(correlation) <= 1e-8:
        return
    Sigma = correlation * np.sqrt(np.outer(variances, variances))
    s = s_matrix(Sigma, method)
    assert s.shape == (p,) and np.all(s >= 0)
    joint = np.block([[Sigma, Sigma - np.diag(s)], [Sigma - np.diag(s), Sigma]])
    assert smallest_eigenvalue(joint / np.sqrt(np.outer(np.diag(joint), np.diag(joint)))) >= -1e-9


# ---------------------------------------------------------------------------------------------
# Bad Sigma
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("function", [equicorrelated_s, sdp_s, mvr_s, lambda Sigma: s_matrix(Sigma, "mvr")])
@pytest.mark.parametrize("Sigma, message", [
    (np.ones((2, 3)), "square"),
    (np.array([[1.0, 0.5], [0.2, 1.0]]), "symmetric"),
    (np.array([[1.0, np.nan], [np.nan, 1.0]]), "finite"),
    (np.array([[1.0, 2.0], [2.0, 1.0]]), "positive definite"),
    (np.ones((3, 3)), "positive definite"),
    (np.array([[0.0, 0.0], [0.0, 1.0]]), "positive diagonal"),
    (np.zeros((0, 0)), "square"),
])
def test_bad_sigma(function, Sigma, message):
    with pytest.raises(ValueError, match=f"Sigma.*{message}|{message}.*Sigma"):
        function(Sigma)


@pytest.mark.parametrize("function", [sdp_s, mvr_s])
def test_bad_solver_settings(function):
    with pytest.raises(ValueError, match="tol"):
        function(np.eye(3), tol=0)
    with pytest.raises(ValueError, match="max_iter"):
        function(np.eye(3), max_iter=0)


def test_solvers_warn_when_out_of_iterations():
    with pytest.warns(RuntimeWarning, match="max_iter"):
        s = mvr_s(ar1(20, 0.9), max_iter=1)
    assert smallest_eigenvalue(gap_matrix(ar1(20, 0.9), s)) > 0
    with pytest.warns(RuntimeWarning, match="max_iter"):
        s = sdp_s(ar1(20, 0.9), max_iter=3)
    assert smallest_eigenvalue(gap_matrix(ar1(20, 0.9), s)) > 0


# ---------------------------------------------------------------------------------------------
# Fixed-X knockoffs
# ---------------------------------------------------------------------------------------------

def _design(n, p, seed, shift=1.0):
    rng = np.random.default_rng(seed)
    scales = rng.uniform(0.5, 20, size=p)
    return (rng.standard_normal((n, p)) @ linalg.cholesky(ar1(p, 0.5)) + shift) * scales


@pytest.mark.parametrize("method", S_METHODS)
@pytest.mark.parametrize("random_state", [None, 7])
def test_fixed_x_identities(method, random_state):
    X = _design(40, 8, seed=1)
    X_tilde = fixed_x_knockoffs(X, s=method, random_state=random_state)
    gram = X.T @ X
    s = s_matrix(gram, method)
    scale = np.sqrt(np.outer(np.diag(gram), np.diag(gram)))  # compare on the correlation scale
    np.testing.assert_allclose((X_tilde.T @ X_tilde) / scale, gram / scale, atol=1e-8)
    np.testing.assert_allclose((X.T @ X_tilde) / scale, (gram - np.diag(s)) / scale, atol=1e-8)


def test_fixed_x_matches_r_knockoff():
    # R's create.fixed(X, method = "equi") on the same X, on R's scale (unit-norm columns).  The
    # orthogonal part U_tilde C is not unique, but the projection on X's columns and both Gram
    # matrices are (R's s is not shrunk by 1e-8: agreement to about 1e-8).
    X = np.loadtxt(REFERENCES / "knockoff_construction_fixed_X.csv", delimiter=",", skiprows=1)
    theirs = np.loadtxt(REFERENCES / "knockoff_construction_fixed_Xk.csv", delimiter=",", skiprows=1)
    norms = np.linalg.norm(X, axis=0)
    ours = fixed_x_knockoffs(X, s="equicorrelated") / norms
    normalised = X / norms
    projection = normalised @ np.linalg.solve(normalised.T @ normalised, normalised.T)
    np.testing.assert_allclose(projection @ ours, projection @ theirs, atol=1e-7)
    np.testing.assert_allclose(ours.T @ ours, theirs.T @ theirs, atol=1e-7)
    np.testing.assert_allclose(normalised.T @ ours, normalised.T @ theirs, atol=1e-7)


def test_fixed_x_random_state():
    X = _design(30, 5, seed=2)
    np.testing.assert_array_equal(fixed_x_knockoffs(X), fixed_x_knockoffs(X))
    np.testing.assert_array_equal(fixed_x_knockoffs(X, random_state=3), fixed_x_knockoffs(X, random_state=3))
    assert not np.allclose(fixed_x_knockoffs(X, random_state=3), fixed_x_knockoffs(X, random_state=4))
    generator = np.random.default_rng(3)
    np.testing.assert_array_equal(fixed_x_knockoffs(X, random_state=generator),
                                  fixed_x_knockoffs(X, random_state=3))


def test_fixed_x_is_equivariant_to_column_units():
    X = _design(30, 5, seed=3)
    units = np.array([1e3, 1.0, 1e-3, 7.0, 0.5])
    np.testing.assert_allclose(fixed_x_knockoffs(X * units, random_state=1) / units,
                               fixed_x_knockoffs(X, random_state=1), rtol=1e-7, atol=1e-9)


def test_fixed_x_takes_an_s_vector():
    X = _design(30, 5, seed=4)
    s = s_matrix(X.T @ X, "sdp")
    np.testing.assert_allclose(fixed_x_knockoffs(X, s=s), fixed_x_knockoffs(X, s="sdp"), atol=1e-10)
    with pytest.raises(ValueError, match="s is too large"):
        fixed_x_knockoffs(X, s=4 * s + 1)
    with pytest.raises(ValueError, match="length p = 5"):
        fixed_x_knockoffs(X, s=s[:4])


def test_fixed_x_refuses_n_below_2p():
    X = _design(15, 8, seed=5)
    with pytest.raises(ValueError, match=r"fixed_x_knockoffs needs X with n >= 2p.*n = 15.*p = 8.*model-X"):
        fixed_x_knockoffs(X)


def test_fixed_x_bad_input():
    X = _design(30, 5, seed=6)
    X_nan = X.copy()
    X_nan[3, 2] = np.nan
    with pytest.raises(ValueError, match="X must be finite"):
        fixed_x_knockoffs(X_nan)
    collinear = X.copy()
    collinear[:, 4] = collinear[:, 0] * 2
    with pytest.raises(ValueError, match="X is rank deficient"):
        fixed_x_knockoffs(collinear)
    with pytest.raises(ValueError, match="'equicorrelated', 'sdp', 'mvr'"):
        fixed_x_knockoffs(X, s="equi")
    with pytest.raises(ValueError, match="X must be a 2-D"):
        fixed_x_knockoffs(X[:, 0])


# ---------------------------------------------------------------------------------------------
# Gaussian model-X knockoffs
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("method", S_METHODS)
def test_gaussian_joint_covariance(method):
    # [X, X_tilde] is N(., G), G = [[Sigma, Sigma - D], [Sigma - D, Sigma]]: check the sample
    # correlations against G's to 6 Monte Carlo standard errors (sd of a correlation <= 1/sqrt(n)).
    n = 100_000
    variances = np.array([1.0, 4.0, 0.25, 9.0])
    Sigma = ar1(4, 0.6) * np.sqrt(np.outer(variances, variances))
    mu = np.array([1.0, -2.0, 0.0, 5.0])
    rng = np.random.default_rng(11)
    X = rng.multivariate_normal(mu, Sigma, size=n)
    X_tilde = gaussian_knockoffs(X, s=method, mu=mu, Sigma=Sigma, random_state=12)
    s = s_matrix(Sigma, method)
    G = np.block([[Sigma, Sigma - np.diag(s)], [Sigma - np.diag(s), Sigma]])
    sample = np.cov(np.hstack([X, X_tilde]), rowvar=False)
    scale = np.sqrt(np.outer(np.diag(G), np.diag(G)))
    np.testing.assert_allclose(sample / scale, G / scale, atol=6 / np.sqrt(n))
    assert np.all(np.abs(X_tilde.mean(axis=0) - mu) <= 6 * np.sqrt(variances / n))


def test_gaussian_random_state():
    X = _design(50, 6, seed=7)
    first = gaussian_knockoffs(X, random_state=5)
    np.testing.assert_array_equal(first, gaussian_knockoffs(X, random_state=5))
    assert not np.allclose(first, gaussian_knockoffs(X, random_state=6))
    np.testing.assert_array_equal(first, gaussian_knockoffs(X, random_state=np.random.default_rng(5)))


def test_gaussian_takes_an_s_vector_and_is_equivariant_to_units():
    X = _design(60, 5, seed=8)
    Sigma = estimate_covariance(X)
    s = s_matrix(Sigma, "mvr")
    np.testing.assert_allclose(gaussian_knockoffs(X, s=s, Sigma=Sigma, random_state=1),
                               gaussian_knockoffs(X, s="mvr", random_state=1), rtol=1e-10, atol=1e-10)
    units = np.array([1e3, 1.0, 1e-3, 7.0, 0.5])
    for method in S_METHODS:
        np.testing.assert_allclose(gaussian_knockoffs(X * units, s=method, random_state=2) / units,
                                   gaussian_knockoffs(X, s=method, random_state=2), rtol=1e-6, atol=1e-8)


def test_gaussian_works_with_more_features_than_rows():
    X = _design(20, 30, seed=9)
    X_tilde = gaussian_knockoffs(X, s="equicorrelated", random_state=0)
    assert X_tilde.shape == X.shape and np.all(np.isfinite(X_tilde))
    with pytest.raises(ValueError, match="sample covariance of X is singular.*shrink"):
        gaussian_knockoffs(X, shrink=False)


def test_gaussian_bad_input():
    X = _design(40, 4, seed=10)
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="X must be finite"):
        gaussian_knockoffs(X_nan)
    with pytest.raises(ValueError, match="mu must be a finite vector of length p = 4"):
        gaussian_knockoffs(X, mu=np.zeros(3))
    with pytest.raises(ValueError, match="Sigma must be p x p with p = 4"):
        gaussian_knockoffs(X, Sigma=np.eye(3))
    with pytest.raises(ValueError, match="Sigma must be positive definite"):
        gaussian_knockoffs(X, Sigma=np.ones((4, 4)))
    with pytest.raises(ValueError, match="shrink must be True, False or 'auto'"):
        gaussian_knockoffs(X, shrink="yes")
    with pytest.raises(ValueError, match="shrink=True applies to the estimated covariance"):
        gaussian_knockoffs(X, Sigma=np.eye(4), shrink=True)
    with pytest.raises(ValueError, match="s method must be one of 'equicorrelated', 'sdp', 'mvr'"):
        gaussian_knockoffs(X, s="knockoff")
    with pytest.raises(ValueError, match="s is too large"):
        gaussian_knockoffs(X, s=np.full(4, 100.0))


# ---------------------------------------------------------------------------------------------
# Covariance estimate
# ---------------------------------------------------------------------------------------------

def test_estimate_covariance_is_the_sample_covariance_when_n_is_large():
    X = _design(100, 5, seed=11)
    np.testing.assert_allclose(estimate_covariance(X), np.cov(X, rowvar=False), rtol=1e-12)
    np.testing.assert_allclose(estimate_covariance(X, shrink=False), np.cov(X, rowvar=False), rtol=1e-12)


@pytest.mark.parametrize("n, p, shrink", [(15, 10, "auto"), (8, 20, "auto"), (100, 5, True)])
def test_estimate_covariance_shrinks_correlations_towards_identity(n, p, shrink):
    X = _design(n, p, seed=12)
    Sigma = estimate_covariance(X, shrink=shrink)
    sample = np.cov(X, rowvar=False)
    np.testing.assert_allclose(np.diag(Sigma), np.diag(sample), rtol=1e-12)  # variances kept
    off = ~np.eye(p, dtype=bool)
    ratio = correlation_of(Sigma)[off] / correlation_of(sample)[off]
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-9)  # one common factor 1 - delta
    assert 0 <= ratio[0] < 1
    assert smallest_eigenvalue(correlation_of(Sigma)) > 0


def test_estimate_covariance_bad_input():
    with pytest.raises(ValueError, match="X has constant columns \\[1\\]"):
        estimate_covariance(np.column_stack([np.arange(5.0), np.ones(5)]))
    with pytest.raises(ValueError, match="n >= 2"):
        estimate_covariance(np.ones((1, 3)))
    with pytest.raises(ValueError, match="shrink must be"):
        estimate_covariance(np.eye(3), shrink=None)


# ---------------------------------------------------------------------------------------------
# e-values and e-BH
# ---------------------------------------------------------------------------------------------

def test_knockoff_evalues_by_hand():
    W = np.array([3.0, -2.0, 1.5, 0.0, -0.5, 2.0])
    # T = 1.5: W >= T at 0, 2, 5; one W <= -T (the -2).
    np.testing.assert_allclose(knockoff_evalues(W, 1.5), [3.0, 0, 3.0, 0, 0, 3.0])
    np.testing.assert_allclose(knockoff_evalues(W, 1.5, offset=0), [6.0, 0, 6.0, 0, 0, 6.0])
    np.testing.assert_allclose(knockoff_evalues(W, 2.5, offset=0), [6.0, 0, 0, 0, 0, 0])  # empty count -> 1
    np.testing.assert_array_equal(knockoff_evalues(W, np.inf), np.zeros(6))


def test_knockoff_evalues_bad_input():
    with pytest.raises(ValueError, match="W must be finite"):
        knockoff_evalues([1.0, np.nan], 1.0)
    with pytest.raises(ValueError, match="threshold must be a number > 0"):
        knockoff_evalues([1.0, 2.0], 0.0)
    with pytest.raises(ValueError, match="offset must be 1"):
        knockoff_evalues([1.0, 2.0], 1.0, offset=2)
    with pytest.raises(ValueError, match="W must be a non-empty 1-D"):
        knockoff_evalues(np.ones((2, 2)), 1.0)


def _brute_ebh(e, fdr):
    """Largest k with at least k e-values >= p / (fdr k) (exact rationals, the cut lowered by the
    relative 1e-12 that ebh documents as rounding); those e-values."""
    p = len(e)
    for k in range(p, 0, -1):
        cut = Fraction(p) / (Fraction(fdr) * k) * (1 - Fraction(1, 10**12))
        chosen = [j for j in range(p) if Fraction(e[j]) >= cut]
        if len(chosen) >= k:
            return chosen
    return []


e_values = st.lists(st.one_of(st.just(0.0), st.floats(0, 100, allow_nan=False, allow_infinity=False),
                              st.sampled_from([1.0, 2.0, 5.0, 10.0, 20.0])), min_size=0, max_size=30)


@settings(max_examples=200, deadline=None)
@given(e=e_values, fdr=st.sampled_from([0.05, 0.1, 0.2, 0.25, 0.5, 1.0]))
def test_ebh_matches_brute_force(e, fdr):
    assert ebh(e, fdr).tolist() == _brute_ebh(e, fdr)


@settings(max_examples=100, deadline=None)
@given(e=e_values, fdr=st.floats(0.01, 0.5))
def test_ebh_is_monotone_in_the_level(e, fdr):
    assert set(ebh(e, fdr).tolist()) <= set(ebh(e, 2 * fdr).tolist())


def _knockoff_plus_threshold(W, fdr):
    """Brute force: the smallest t in {|W_j| > 0} with (1 + #{W <= -t}) / max(1, #{W >= t}) <= fdr."""
    for t in sorted({abs(w) for w in W if w != 0}):
        ratio = Fraction(1 + sum(w <= -t for w in W), max(1, sum(w >= t for w in W)))
        if ratio <= Fraction(fdr):
            return t
    return np.inf


@settings(max_examples=200, deadline=None)
@given(W=st.lists(st.integers(-20, 20).map(float), min_size=1, max_size=40),
       fdr=st.sampled_from([0.1, 0.2, 0.25, 0.3, 0.5]))
def test_ebh_on_knockoff_evalues_is_the_knockoff_plus_selection(W, fdr):
    # Ren and Barber (2024): with T the knockoff+ threshold at level fdr, e-BH at fdr on the
    # knockoff e-values selects exactly {j : W_j >= T}.
    W = np.array(W)
    T = _knockoff_plus_threshold(W, fdr)
    expected = np.flatnonzero(W >= T).tolist()
    assert ebh(knockoff_evalues(W, T), fdr).tolist() == expected


def test_derandomised_average_of_identical_draws_is_one_draw():
    W = np.array([5.0, 4.0, -1.0, 3.0, 2.5, 2.0, -0.5, 1.0, 6.0, 7.0])
    T = _knockoff_plus_threshold(W, 0.2)
    single = knockoff_evalues(W, T)
    average = np.mean([knockoff_evalues(W, T) for _ in range(5)], axis=0)
    np.testing.assert_array_equal(ebh(average, 0.2), ebh(single, 0.2))


def test_ebh_edge_cases_and_bad_input():
    assert ebh([], 0.1).tolist() == []
    assert ebh([0.0, 0.0], 0.1).tolist() == []
    assert ebh([20.0, 0.0], 0.1).tolist() == [0]  # 20 >= 2 / 0.1
    assert ebh([19.9, 0.0], 0.1).tolist() == []
    with pytest.raises(ValueError, match="e must be finite and non-negative"):
        ebh([1.0, -1.0], 0.1)
    with pytest.raises(ValueError, match="fdr must be a number in \\(0, 1\\]"):
        ebh([1.0], 0.0)
    with pytest.raises(ValueError, match="fdr must be a number in \\(0, 1\\]"):
        ebh([1.0], 1.5)
    with pytest.raises(ValueError, match="e must be a 1-D"):
        ebh(np.ones((2, 2)), 0.1)

"""Reference s vectors for tests/test_knockoff_construction.py (run by hand, not by the tests).

Run with a throwaway environment holding knockpy and cvxpy (neither is a dependency of fstools):

    python -m venv /tmp/kpenv && /tmp/kpenv/bin/pip install knockpy cvxpy
    /tmp/kpenv/bin/python tests/references/guarantees/make_knockoff_construction.py

It writes knockoff_construction_smatrices.json beside itself: for each covariance matrix, the
equicorrelated, SDP and MVR s of knockpy (knockpy.smatrix.compute_smatrix) and the SDP solved
directly with cvxpy (Clarabel, tolerances 1e-8; its status is recorded: for the exchangeable
rho = 0.9 case it is "optimal_inaccurate", and the optimum there is known in closed form,
s_j = 2 lambda_min = 0.2).
"""
import json
from pathlib import Path

import cvxpy as cp
import knockpy
import numpy as np
from knockpy.smatrix import compute_smatrix


def ar1(p, rho):
    index = np.arange(p)
    return rho ** np.abs(index[:, None] - index[None, :])


def exchangeable(p, rho):
    return rho * np.ones((p, p)) + (1 - rho) * np.eye(p)


def random_correlation(p, n, seed):
    rng = np.random.default_rng(seed)
    mixing = np.eye(p) + 0.4 * rng.standard_normal((p, p))
    return np.corrcoef(rng.standard_normal((n, p)) @ mixing, rowvar=False)


def scaled(correlation, variances):
    scale = np.sqrt(np.asarray(variances, dtype=float))
    return correlation * np.outer(scale, scale)


def cvxpy_sdp(Sigma):
    """max sum(s) s.t. 0 <= s <= 1, 2 G - diag(s) PSD on the correlation scale; scaled back."""
    variances = np.diag(Sigma)
    scale = np.sqrt(variances)
    G = Sigma / np.outer(scale, scale)
    p = G.shape[0]
    s = cp.Variable(p)
    problem = cp.Problem(cp.Maximize(cp.sum(s)), [s >= 0, s <= 1, 2 * G - cp.diag(s) >> 0])
    problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-8, tol_gap_rel=1e-8, tol_feas=1e-8)
    return np.asarray(s.value) * variances, problem.value, problem.status


CASES = {
    "ar1_p10_rho0.6": ar1(10, 0.6),
    "exchangeable_p8_rho0.5": exchangeable(8, 0.5),
    "exchangeable_p6_rho0.9": exchangeable(6, 0.9),
    "random_p12": random_correlation(12, 40, seed=20240601),
    "scaled_ar1_p6_rho0.8": scaled(ar1(6, 0.8), [1.0, 4.0, 0.25, 9.0, 2.0, 0.5]),
}


def main():
    np.random.seed(0)  # knockpy's coordinate descent shuffles with the global generator
    out = {"knockpy_version": knockpy.__version__, "cvxpy_version": cp.__version__, "cases": {}}
    for name, Sigma in CASES.items():
        sdp_cvxpy, objective, status = cvxpy_sdp(Sigma)
        out["cases"][name] = {
            "Sigma": Sigma.tolist(),
            "equicorrelated_knockpy": np.diag(compute_smatrix(Sigma, method="equicorrelated")).tolist(),
            "sdp_knockpy": np.diag(compute_smatrix(Sigma, method="sdp")).tolist(),
            "mvr_knockpy": np.diag(compute_smatrix(Sigma, method="mvr")).tolist(),
            "sdp_cvxpy": sdp_cvxpy.tolist(),
            "sdp_cvxpy_objective_correlation_scale": objective,
            "sdp_cvxpy_status": status,
        }
    path = Path(__file__).with_name("knockoff_construction_smatrices.json")
    path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()

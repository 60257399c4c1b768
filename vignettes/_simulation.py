"""The simulated data of the guarantees vignette, shared with ``benchmarks/bench_guarantees.py``,
and the knockpy call both make on it.

Rows are Gaussian with an AR(1) correlation, corr(x_j, x_k) = rho^|j - k|, unit variances;
``n_signals`` of the p features, at random positions, carry coefficients +-amplitude (random
signs). The response is linear, y = X beta + N(0, 1), or logistic, two classes "a" / "b" with
P(y = "b") = 1 / (1 + exp(-X beta)).
"""
import math
import warnings

import numpy as np
import pandas as pd

__all__ = ["simulate", "knockpy_selection"]


def simulate(n, p, rho, response, amplitude, seed, n_signals=12):
    """One data set: a DataFrame (x1..xp and y) and the set of the names of the relevant features."""
    rng = np.random.default_rng(seed)
    X = np.empty((n, p))
    X[:, 0] = rng.standard_normal(n)
    for j in range(1, p):  # AR(1): corr(x_j, x_k) = rho^|j - k|, unit variances
        X[:, j] = rho * X[:, j - 1] + math.sqrt(1 - rho ** 2) * rng.standard_normal(n)
    signals = np.sort(rng.choice(p, n_signals, replace=False))
    beta = np.zeros(p)
    beta[signals] = amplitude * rng.choice([-1.0, 1.0], n_signals)
    names = [f"x{j + 1}" for j in range(p)]
    frame = pd.DataFrame(X, columns=names)
    if response == "linear":
        frame["y"] = X @ beta + rng.standard_normal(n)
    else:
        frame["y"] = np.where(rng.random(n) < 1 / (1 + np.exp(-(X @ beta))), "b", "a")
    return frame, {names[j] for j in signals}


def knockpy_selection(frame, seed, fdr):
    """The features knockpy's ``KnockoffFilter`` selects at ``fdr``: Gaussian knockoffs with the MVR
    s and the lasso statistic (knockpy must be importable; fstools does not depend on it)."""
    from knockpy import KnockoffFilter

    X = frame.drop(columns="y").to_numpy()
    y = frame["y"].to_numpy()
    if y.dtype == object:  # the logistic response's classes "a" / "b" as 0 / 1
        y = (y == "b").astype(float)
    np.random.seed(seed)  # knockpy draws from NumPy's global generator
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kfilter = KnockoffFilter(ksampler="gaussian", fstat="lasso", knockoff_kwargs={"method": "mvr"})
        rejected = kfilter.forward(X=X, y=y, fdr=fdr)
    return [name for name, flag in zip(frame.columns[:-1], rejected) if flag]

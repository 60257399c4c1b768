"""Derandomised knockoffs with PFER control (Ren, Wei & Candes 2023): the Janson & Su base
procedure, the bound's ratio, and ``fs.knockoff_filter(derandomize='frequency')``.

References: the base procedure against a walk down the sorted statistics and against a Monte
Carlo of null signs; the ratio against the linear program of Ren, Wei & Candes solved by SciPy's
``linprog``; the filter's selection recomputed from its own draws; its PFER on simulations.
"""
import math
import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import fstools as fs
from fstools.guarantees.knockoff_threshold import (frequency_count, pfer_frequency_ratio,
                                                    pfer_knockoff_threshold)


def _walk(W, v):
    """Janson & Su by hand: go down by decreasing |W| (the negatives of a tied size first, the
    conservative order) and keep the positives met before the v-th negative."""
    order = sorted(range(len(W)), key=lambda j: (-abs(W[j]), W[j] >= 0))
    kept, negatives = set(), 0
    for j in order:
        if W[j] < 0:
            negatives += 1
            if negatives == v:
                break
        elif W[j] > 0:
            kept.add(j)
    return kept


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-6, 6), min_size=1, max_size=25), st.integers(1, 5))
def test_base_procedure_equals_the_walk(values, v):
    W = np.asarray(values, dtype=float)
    threshold = pfer_knockoff_threshold(W, v)
    assert set(np.flatnonzero(W > threshold)) == _walk(list(W), v)


def test_base_procedure_bounds_the_expected_false_selections():
    """Null statistics with fair random signs, independent of |W|: the mean number of nulls
    selected is at most v (a negative binomial mean) and not far below it."""
    rng = np.random.default_rng(0)
    for v in (1, 3):
        false = []
        for _ in range(4000):
            nulls = np.abs(rng.standard_normal(60)) * rng.choice([-1.0, 1.0], 60)
            W = np.concatenate([nulls, rng.uniform(2, 4, 8)])  # 8 signals, mostly above the nulls
            false.append(int(np.sum(nulls > pfer_knockoff_threshold(W, v))))
        false = np.asarray(false)
        se = false.std(ddof=1) / np.sqrt(len(false))
        assert false.mean() <= v + 3 * se
        assert false.mean() >= 0.7 * v


def _lp_ratio(M, eta, nonincreasing):
    """max sum_{k >= eta M} y_k s.t. y >= 0, sum_k (k / M) y_k = 1 (and y_{k+1} <= y_k): the linear
    program of Ren, Wei & Candes (their R package's get_lp_bnd with beta = 1), by HiGHS."""
    support = np.arange(M + 1) / M
    objective = -(support >= eta - 1e-12).astype(float)
    A_ub = b_ub = None
    if nonincreasing:
        A_ub = np.zeros((M, M + 1))
        A_ub[np.arange(M), np.arange(1, M + 1)] = 1.0
        A_ub[np.arange(M), np.arange(M)] = -1.0
        b_ub = np.zeros(M)
    solution = linprog(objective, A_ub=A_ub, b_ub=b_ub, A_eq=support[None, :], b_eq=[1.0],
                       bounds=[(0, None)] * (M + 1), method="highs")
    assert solution.status == 0
    return -solution.fun


@pytest.mark.parametrize("M", [1, 2, 5, 10, 30, 31, 50, 77])
@pytest.mark.parametrize("eta", [0.1, 0.3, 0.5, 0.62, 0.9, 1.0])
def test_ratio_is_the_linear_program(M, eta):
    for assumption, nonincreasing in (("nonincreasing", True), ("none", False)):
        np.testing.assert_allclose(pfer_frequency_ratio(M, eta, assumption), _lp_ratio(M, eta, nonincreasing),
                                   rtol=1e-7)
    assert pfer_frequency_ratio(M, eta, "none") <= 1 / eta + 1e-12
    assert frequency_count(M, eta) == math.ceil(round(eta * M, 9))


@pytest.mark.parametrize("arguments, match", [
    (dict(n_draws=0, eta=0.5), "n_draws"), (dict(n_draws=5, eta=0.0), "eta"), (dict(n_draws=5, eta=1.5), "eta"),
    (dict(n_draws=5, eta=0.5, assumption="unimodal"), "assumption"),
])
def test_ratio_bad_input(arguments, match):
    with pytest.raises(ValueError, match=match):
        pfer_frequency_ratio(**arguments)


def _frame(n=250, p=20, signals=4, amplitude=0.35, seed=0):
    """Independent Gaussian features (every feature outside the signals is null, also marginally)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    beta = np.zeros(p)
    beta[:signals] = amplitude
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(p)])
    frame["y"] = X @ beta + rng.standard_normal(n)
    return frame, {f"x{j}" for j in range(signals)}


def test_filter_selection_is_the_frequency_of_the_base_selections():
    frame, truth = _frame(amplitude=0.5)
    result = fs.knockoff_filter("y ~ .", frame, "f_test", n_draws=12, derandomize="frequency", pfer=1.5,
                                eta=0.4, random_state=3)
    ratio = pfer_frequency_ratio(12, 0.4)
    assert result.base_pfer == pytest.approx(1.5 / ratio)
    assert set(result.draw_v) <= {math.floor(result.base_pfer), math.ceil(result.base_pfer)}
    counts = np.zeros(20)
    for W, v, threshold in zip(result.W_draws.to_numpy(), result.draw_v, result.thresholds):
        assert threshold == pfer_knockoff_threshold(W, v)
        counts += [j in _walk(list(W), v) for j in range(20)]
    np.testing.assert_allclose(result.statistics["frequency"].to_numpy(), counts / 12)
    assert set(result.selected) == {f"x{j}" for j in np.flatnonzero(counts >= 0.4 * 12 - 1e-9)}
    assert truth <= set(result.selected)
    frequencies = result.statistics.loc[result.selected, "frequency"].to_numpy()
    assert np.all(np.diff(frequencies) <= 0)  # the most frequent first
    again = fs.knockoff_filter("y ~ .", frame, "f_test", n_draws=12, derandomize="frequency", pfer=1.5,
                               eta=0.4, random_state=3)
    assert again.selected == result.selected and again.draw_v == result.draw_v
    text = str(result.summary())
    assert "per-family error rate" in text and "Ren, Wei & Candes" in text and "at least 5 of 12 draws" in text
    assert "PFER 1.5" in repr(result) and "derandomize='frequency'" in result.call
    loaded = pickle.loads(pickle.dumps(result))
    assert str(loaded.summary()) == text
    assert result.as_dict()["draw_v"] == result.draw_v


def test_random_rounding_of_v0_has_mean_v0():
    frame, _ = _frame(seed=4)
    result = fs.knockoff_filter("y ~ .", frame, "f_test", n_draws=400, derandomize="frequency", pfer=0.7,
                                eta=0.5, pfer_assumption="none", random_state=0)
    assert result.base_pfer == pytest.approx(0.35)
    v = np.asarray(result.draw_v)
    assert set(v) == {0, 1}
    assert abs(v.mean() - 0.35) < 3 * np.sqrt(0.35 * 0.65 / 400)
    # a draw with v = 0 selects nothing
    assert all(np.isinf(t) for t, k in zip(result.thresholds, v) if k == 0)


def test_pfer_is_controlled_on_simulations():
    """The mean number of null features selected over 30 data sets is at most pfer + 2.5 SE."""
    false, found = [], []
    for seed in range(30):
        frame, truth = _frame(seed=100 + seed)
        result = fs.knockoff_filter("y ~ .", frame, "f_test", n_draws=5, derandomize="frequency", pfer=1,
                                    random_state=seed)
        chosen = set(result.selected)
        false.append(len(chosen - truth))
        found.append(len(chosen & truth) / len(truth))
    false = np.asarray(false)
    assert false.mean() <= 1 + 2.5 * false.std(ddof=1) / np.sqrt(len(false))
    assert np.mean(found) > 0.5


@pytest.mark.parametrize("arguments, match", [
    (dict(pfer=1), "pfer: .*derandomize='frequency'"),
    (dict(derandomize="frequency", pfer=0), "pfer"),
    (dict(derandomize="frequency", eta=0), "eta"),
    (dict(derandomize="frequency", pfer_assumption="r-concave"), "assumption"),
    (dict(derandomize="votes"), "derandomize"),
])
def test_bad_input_names_the_argument(arguments, match):
    frame, _ = _frame(n=40, p=5)
    with pytest.raises(ValueError, match=match):
        fs.knockoff_filter("y ~ .", frame, "f_test", **arguments)

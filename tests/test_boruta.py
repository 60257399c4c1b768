"""fstools.guarantees.boruta: R's Boruta decisions, importance sources, results.

The decision logic is checked against R's Boruta 8.0.0 run with a deterministic importance
source (tests/references/guarantees/make_boruta.R writes the reference CSVs), and the binomial
tests against a brute-force count; the importance sources on simulated data with known relevant
features.
"""
import math
import pickle
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fstools.guarantees.boruta import (BorutaResult, _ShadowDesign, boruta, boruta_decisions, boruta_loop,
                                       shadow_sources)

REFERENCES = Path(__file__).parent / "references" / "guarantees"
SCENARIOS = pd.read_csv(REFERENCES / "boruta_scenarios.csv")


# ------------------------------------------------------------------ helpers

def _table_source(attributes, shadows):
    """R reference's importance source: row ``run`` of the attribute and shadow tables."""
    def get_importance(run, active, sources):
        return attributes[run - 1, active], shadows[run - 1, :len(sources)]
    return get_importance


def _result_of(run, names, max_runs, p_value, mc_adjust):
    return BorutaResult(call="test", importance="table", importance_source="fixed table", params={}, terms=names,
                        response_name="y", run=run, max_runs=max_runs, p_value=p_value, mc_adjust=mc_adjust,
                        time_taken=0.5, n=4, response_type="class", response_reason=None, classes=["1", "2"],
                        random_state=None)


def _scenario(name):
    row = SCENARIOS.set_index("scenario").loc[name]
    attributes = pd.read_csv(REFERENCES / f"boruta_{name}_attributes.csv")
    shadows = pd.read_csv(REFERENCES / f"boruta_{name}_shadows.csv").to_numpy()
    settings = dict(max_runs=int(row["maxRuns"]), p_value=float(row["pValue"]), mc_adjust=bool(row["mcAdj"]))
    run = boruta_loop(_table_source(attributes.to_numpy(), shadows), attributes.shape[1], **settings)
    return row, list(attributes.columns), run, _result_of(run, list(attributes.columns), **settings)


def _simulated(n=300, seed=0, n_informative=5, n_noise=15):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_informative + n_noise))
    names = [f"x{i}" for i in range(1, n_informative + 1)] + [f"noise{i}" for i in range(1, n_noise + 1)]
    df = pd.DataFrame(X, columns=names)
    signal = X[:, :n_informative] @ np.ones(n_informative) + 0.5 * rng.normal(size=n)
    df["y"] = np.where(signal > 0, "a", "b")
    return df, names[:n_informative], names[n_informative:]


# ------------------------------------------------------------------ (a) against R

@pytest.mark.parametrize("name", list(SCENARIOS["scenario"]))
def test_loop_matches_r(name):
    row, names, run, result = _scenario(name)
    expected = pd.read_csv(REFERENCES / f"boruta_{name}_result.csv")
    history = pd.read_csv(REFERENCES / f"boruta_{name}_history.csv")
    assert run.runs == row["runs"] == len(history)
    assert list(result.decision) == list(expected["decision"])
    assert list(result.decision.index) == names
    # R's ImpHistory: -Inf where the attribute had been rejected; ours NaN.
    ours = result.importance_history
    assert list(ours.columns) == list(history.columns)
    np.testing.assert_array_equal(np.isnan(ours.to_numpy()), np.isneginf(history.to_numpy()))
    np.testing.assert_allclose(ours.to_numpy()[np.isfinite(ours.to_numpy())],
                               history.to_numpy()[np.isfinite(history.to_numpy())], rtol=1e-12)
    # attStats
    stats_ = result.att_stats()
    for column in ("meanImp", "medianImp", "minImp", "maxImp", "normHits"):
        np.testing.assert_allclose(stats_[column].to_numpy(), expected[column].to_numpy(), rtol=1e-10,
                                   err_msg=column)
    assert list(stats_["decision"].astype(str)) == list(expected["decision"])
    # A rejected attribute is left out of the later runs: its last scored run is the run it was rejected at.
    for term in result.rejected:
        assert ours[term].last_valid_index() == result.decided_at[term]


@pytest.mark.parametrize("name", list(SCENARIOS["scenario"]))
def test_rough_fix_matches_r(name):
    _, _, _, result = _scenario(name)
    expected = pd.read_csv(REFERENCES / f"boruta_{name}_result.csv")
    fixed = result.rough_fix()
    assert list(fixed.decision) == list(expected["roughfix_all"])
    assert list(result.decision) == list(expected["decision"])  # unchanged
    assert fixed.roughfixed and fixed.average_over == result.runs
    assert list(fixed.original_decision) == list(expected["decision"])
    assert list(result.rough_fix(average_over=5).decision) == list(expected["roughfix_last5"])
    assert "Tentative" not in list(fixed.decision)


@pytest.mark.parametrize("name", list(SCENARIOS["scenario"]))
def test_print_matches_r(name):
    _, _, _, result = _scenario(name)
    lines = (REFERENCES / f"boruta_{name}_print.txt").read_text().splitlines()
    ours = (repr(result) + "\n" + repr(result.rough_fix())).splitlines()
    times = re.compile(r" in [0-9.]+ secs\.")
    assert [times.sub("", line) for line in ours] == [times.sub("", line) for line in lines]


def test_shadow_sources_as_r():
    # R: while(ncol(xSha) < 5) xSha <- cbind(xSha, xSha)
    assert list(shadow_sources([4])) == [4] * 8
    assert list(shadow_sources([1, 3])) == [1, 3] * 4
    assert list(shadow_sources([0, 1, 2])) == [0, 1, 2] * 2
    assert list(shadow_sources([0, 1, 2, 5])) == [0, 1, 2, 5] * 2
    assert list(shadow_sources(range(5))) == list(range(5))
    assert list(shadow_sources(range(7))) == list(range(7))


def test_max_runs_counting():
    # R: while(any(Tentative) && (runs <- runs + 1) < maxRuns): maxRuns - 1 runs at most.
    calls = []

    def undecided(run, active, sources):
        calls.append(run)
        return np.where(np.arange(active.size) % 2 == run % 2, 1.0, -1.0), np.zeros(len(sources))

    run = boruta_loop(undecided, 3, max_runs=11)
    assert run.runs == 10 and calls == list(range(1, 11))
    assert list(run.decision) == ["Tentative"] * 3
    assert run.history.shape == (10, 6)


# ------------------------------------------------------------------ (b) the binomial tests, brute force

def _tail_probabilities(hits, runs):
    """P(X >= hits) and P(X <= hits) for X ~ Binomial(runs, 1/2), counted exactly."""
    total = 2 ** runs
    upper = Fraction(sum(math.comb(runs, k) for k in range(hits, runs + 1)), total)
    lower = Fraction(sum(math.comb(runs, k) for k in range(0, hits + 1)), total)
    return upper, lower


@pytest.mark.parametrize("p_value", [0.01, 0.05, 0.003])
@pytest.mark.parametrize("mc_adjust", [True, False])
def test_binomial_tests_brute_force(p_value, mc_adjust):
    level = Fraction(p_value)
    for runs in range(1, 31):
        hits = np.arange(runs + 1)
        n = hits.size
        got = boruta_decisions(hits, runs, ["Tentative"] * n, p_value, mc_adjust)
        for h, decision in zip(hits, got):
            upper, lower = _tail_probabilities(int(h), runs)
            # scipy's pmf sums agree with the count
            assert float(upper) == pytest.approx(stats.binom.pmf(np.arange(h, runs + 1), runs, 0.5).sum(), rel=1e-12)
            factor = n if mc_adjust else 1
            expected = ("Confirmed" if min(1, upper * factor) < level else
                        "Rejected" if min(1, lower * factor) < level else "Tentative")
            assert decision == expected, (runs, h)


def test_only_tentative_attributes_change():
    hits = np.array([0, 20, 0, 20, 10])
    decision = ["Confirmed", "Rejected", "Tentative", "Tentative", "Tentative"]
    got = boruta_decisions(hits, 20, decision, 0.01, True)
    assert list(got) == ["Confirmed", "Rejected", "Rejected", "Confirmed", "Tentative"]
    # the adjustment is over all the attributes, decided ones included (R's p.adjust of the hit register):
    # P(X >= 9 | 9) = 1/512 < 0.01 alone, but 5/512 < 0.01 and 6/512 > 0.01
    assert list(boruta_decisions([9] * 5, 9, ["Tentative"] * 5, 0.01, True)) == ["Confirmed"] * 5
    assert list(boruta_decisions([9] * 6, 9, ["Tentative"] * 6, 0.01, True)) == ["Tentative"] * 6


# ------------------------------------------------------------------ (c) simulated data

def test_mim_confirms_informative_rejects_noise():
    df, informative, noise = _simulated()
    result = boruta("y ~ .", df, "mim", random_state=0)
    assert set(informative) <= set(result.selected)
    assert len(result.rejected) >= 12
    assert result.selected == [t for t in result.decision.index if result.decision[t] == "Confirmed"]
    assert result.formula.startswith("y ~ x1 + x2")


def test_random_forest_confirms_informative_rejects_noise():
    df, informative, noise = _simulated()
    result = boruta("y ~ .", df, random_state=0, n_estimators=50, max_runs=30)
    assert result.selected == informative
    assert len(result.rejected) >= 12
    assert "Z score" in result.importance_source and "50 trees" in result.importance_source
    history = result.importance_history
    assert (history[informative].median() > history["shadowMax"].median()).all()


def test_greedy_method_and_continuous_response():
    rng = np.random.default_rng(3)
    n = 200
    df = pd.DataFrame(rng.normal(size=(n, 8)), columns=[f"v{i}" for i in range(8)])
    df["y"] = 2 * df["v0"] - 1.5 * df["v1"] + 0.5 * rng.normal(size=n)
    result = boruta("y ~ .", df, "mrmr", random_state=1, max_runs=40)
    assert result.response_type == "continuous" and result.classes is None
    assert {"v0", "v1"} <= set(result.selected)
    assert "order of entry" in result.importance_source
    forest = boruta("y ~ .", df, random_state=1, n_estimators=30, max_runs=15, importance_type="impurity")
    assert {"v0", "v1"} <= set(forest.get_selected(with_tentative=True))
    assert "variance" in forest.importance_source


def test_importance_as_a_pair_and_nan_as_r():
    df = _factor_data(n=120)
    pair = boruta("y ~ .", df, ("mim", {"discretization": "equal_width", "n_bins": 4}), random_state=0, max_runs=12)
    keywords = boruta("y ~ .", df, "mim", discretization="equal_width", n_bins=4, random_state=0, max_runs=12)
    pd.testing.assert_frame_equal(pair.importance_history, keywords.importance_history)
    assert pair.params["n_bins"] == 4
    forest = boruta("y ~ .", df, ("random_forest", {"n_estimators": 10}), random_state=0, max_runs=11)
    assert forest.params["n_estimators"] == 10 and "10 trees" in forest.importance_source
    with pytest.raises(TypeError, match="given twice"):
        boruta("y ~ .", df, ("mim", {"n_bins": 4}), n_bins=5)

    # R: NA importances are taken as 0, with a warning
    def with_nan(run, active, sources):
        values = np.ones(active.size)
        values[0] = np.nan
        return values, np.full(len(sources), 0.5)

    with pytest.warns(RuntimeWarning, match="taken as 0"):
        run = boruta_loop(with_nan, 3, max_runs=11)
    assert list(run.decision) == ["Rejected", "Confirmed", "Confirmed"]


def test_interrupt_is_not_swallowed():
    def interrupted(run, active, sources):
        if run == 3:
            raise KeyboardInterrupt
        return np.zeros(active.size), np.zeros(len(sources))

    with pytest.raises(KeyboardInterrupt):
        boruta_loop(interrupted, 4)


# ------------------------------------------------------------------ (d) factors

def _factor_data(n=240, seed=5):
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue"], size=n)
    df = pd.DataFrame({"colour": colour, "z1": rng.normal(size=n), "z2": rng.normal(size=n),
                       "z3": rng.normal(size=n), "w": rng.normal(size=n)})
    signal = np.where(colour == "red", 1.5, np.where(colour == "green", -1.5, 0.0)) + df["w"] + 0.3 * rng.normal(size=n)
    df["y"] = np.where(signal > 0, "p", "q")
    return df


@pytest.mark.parametrize("importance, extra", [("mim", {}), ("fisher", {}), ("relieff", {}),
                                               ("trace_ratio", {}),
                                               ("random_forest", {"n_estimators": 30})])
def test_factor_is_one_attribute(importance, extra):
    df = _factor_data()
    result = boruta("y ~ .", df, importance, random_state=2, max_runs=25, **extra)
    assert list(result.decision.index) == ["colour", "z1", "z2", "z3", "w"]
    assert "colour" in result.get_selected(with_tentative=True)
    assert list(result.importance_history.columns[:5]) == ["colour", "z1", "z2", "z3", "w"]


def test_shadow_moves_a_block_as_a_whole():
    rng = np.random.default_rng(0)
    X = np.column_stack([np.arange(10.0), 100 + np.arange(10.0), 200 + np.arange(10.0), rng.normal(size=10)])
    design = _ShadowDesign(X, [0, 0, 0, 1], 2)
    extended, index, taken = design.extend(np.array([0, 1]), shadow_sources([0, 1]), np.random.default_rng(1))
    assert extended.shape == (10, 4 + 4 * 3 + 4 * 1)
    assert list(index[:4]) == [0, 0, 0, 1]
    np.testing.assert_array_equal(extended[:, :4], X)
    position = 4
    for s, source in enumerate(shadow_sources([0, 1])):
        width = 3 if source == 0 else 1
        block = extended[:, position:position + width]
        assert (index[position:position + width] == 2 + s).all()
        if source == 0:  # the three columns moved by one permutation: rows stay rows
            np.testing.assert_array_equal(block[:, 1] - block[:, 0], 100)
            np.testing.assert_array_equal(block[:, 2] - block[:, 0], 100 * 2)
            assert sorted(block[:, 0]) == list(range(10))
        position += width
    assert list(taken) == [0, 1, 2, 3] + [0, 1, 2, 3] * 4


# ------------------------------------------------------------------ (e) reproducibility

@pytest.mark.parametrize("importance, extra", [("mim", {}), ("random_forest", {"n_estimators": 20})])
def test_reproducible_for_any_n_jobs(importance, extra):
    df = _factor_data(n=150)
    first = boruta("y ~ .", df, importance, random_state=11, max_runs=12, n_jobs=1, **extra)
    second = boruta("y ~ .", df, importance, random_state=11, max_runs=12, n_jobs=2, **extra)
    pd.testing.assert_frame_equal(first.importance_history, second.importance_history)
    pd.testing.assert_series_equal(first.decision, second.decision)
    other = boruta("y ~ .", df, importance, random_state=12, max_runs=12, n_jobs=1, **extra)
    assert not other.importance_history["shadowMax"].equals(first.importance_history["shadowMax"])


# ------------------------------------------------------------------ (f) bad input

@pytest.mark.parametrize("kwargs, error, match", [
    ({"max_runs": 10}, ValueError, r"max_runs: must be an integer >= 11"),
    ({"max_runs": 20.0}, TypeError, r"max_runs"),
    ({"p_value": 0.0}, ValueError, r"p_value: must be in \(0, 1\)"),
    ({"p_value": 1.5}, ValueError, r"p_value"),
    ({"mc_adjust": "yes"}, ValueError, r"mc_adjust: must be True or False"),
    ({"random_state": -1}, ValueError, r"random_state"),
    ({"importance": "nope"}, ValueError, r"importance: must be 'random_forest' or a registered supervised method"),
    ({"importance": "laplacian"}, ValueError, r"importance: .*got 'laplacian'"),
    ({"importance": "ml_mi"}, ValueError, r"importance: .*got 'ml_mi'"),
    ({"importance_type": "gain"}, ValueError, r"importance_type: must be one of 'permutation'"),
    ({"random_state_forest": 1}, TypeError, r"params: random_state_forest: not argument"),
    ({"n_jobs": 1, "oob_score": True}, ValueError, r"params: oob_score: set by boruta"),
    ({"na_action": "level"}, ValueError, r"na_action: importance='random_forest' takes 'drop' or 'raise'"),
    ({"bootstrap": False}, ValueError, r"bootstrap: .*out-of-bag"),
    ({"importance": "mim", "bins": 3}, TypeError, r"method .mim.: unknown parameter\(s\) bins"),
])
def test_bad_input(kwargs, error, match):
    df = _factor_data(n=40)
    with pytest.raises(error, match=match):
        boruta("y ~ .", df, **kwargs)


def test_bad_input_of_the_result():
    df = _factor_data(n=80)
    with pytest.raises(ValueError, match="shadowMax"):
        boruta("y ~ .", df.rename(columns={"w": "shadowMax"}), "mim", max_runs=11)
    light = boruta("y ~ .", df, "mim", max_runs=11, hold_history=False, random_state=0)
    assert light.importance_history is None and light.runs == 10
    for call in (light.att_stats, light.rough_fix, light.plot):
        with pytest.raises(ValueError, match="hold_history=False"):
            call()
    assert "hits" in str(light.summary())
    result = boruta("y ~ .", df, "mim", max_runs=11, random_state=0)
    pd.testing.assert_series_equal(light.decision, result.decision)
    with pytest.raises(ValueError, match="average_over"):
        result.rough_fix(average_over=0)
    with pytest.raises(ValueError, match="kind: must be 'boxplot' or 'history'"):
        result.plot(kind="bars")


# ------------------------------------------------------------------ (g) pickling, printing

def test_pickle_and_print():
    _, _, _, result = _scenario("a")
    for item in (result, result.rough_fix()):
        again = pickle.loads(pickle.dumps(item))
        assert repr(again) == repr(item)
        pd.testing.assert_frame_equal(again.att_stats(), item.att_stats())
    df = _factor_data(n=120)
    real = boruta("y ~ .", df, "fisher", random_state=4, max_runs=15)
    again = pickle.loads(pickle.dumps(real))
    assert str(again.summary()) == str(real.summary())
    text = str(real.summary())
    for words in ("Boruta feature selection", "Call:", "boruta('y ~ .', data, importance='fisher'",
                  "Bonferroni-adjusted over the 5 attributes", "medianImp", "normHits", "confirmed important"):
        assert words in text
    assert "<table" in real.summary()._repr_html_() and "<table" not in real._repr_html_()
    # 5 attributes, Bonferroni: all decided at run 9 (5 / 2^9 < 0.01 < 5 / 2^8)
    assert real.runs == 9 and not real.tentative
    assert repr(real).startswith("Boruta performed 9 iterations in ")


# ------------------------------------------------------------------ (h) plots

def test_plots_render(tmp_path):
    import matplotlib.pyplot as plt

    _, _, _, result = _scenario("a")
    ax = result.plot()
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[-1] == "a1" and set(labels) == set(result.terms) | {"shadowMax", "shadowMean", "shadowMin"}
    ax.figure.savefig(tmp_path / "boxplot.png", dpi=80)
    plt.close(ax.figure)
    ax = result.plot(kind="history", shadows=("shadowMax",))
    assert len(ax.get_lines()) == len(result.terms) + 1
    ax.figure.savefig(tmp_path / "history.png", dpi=80)
    plt.close(ax.figure)
    assert (tmp_path / "boxplot.png").stat().st_size > 5000
    assert (tmp_path / "history.png").stat().st_size > 5000


def test_a_constant_importance_is_drawn_as_a_marker_in_its_decision_colour():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fstools import datasets

    wine = datasets.load("wine")
    result = boruta("class ~ .", wine, "f_test", random_state=0)
    ax = result.plot()
    markers = [line for line in ax.lines if line.get_marker() == "D"]
    # f_test scores the unchanged real columns the same in every run: one marker per attribute
    assert len(markers) == len(result.terms)
    plt.close("all")

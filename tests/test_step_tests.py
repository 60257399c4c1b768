"""Step tests of the greedy paths (fstools.methods.step_tests, SelectionResult.test('step'), cut, k='auto').

References: the step p-values are checked against a slow, obviously correct loop -- the strata
built from tuples, the response permuted within them by the same permutations, every remaining
candidate's criterion recomputed from the brute-force entropies of ``references.information`` (and
the edge-by-edge modularity of ``references.cmqfs`` for CMQFS), the counts by hand; calibration by
a Kolmogorov-Smirnov test of uniformity (scipy.stats.kstest) on data where the response is
independent of the features, and a binomial bound on the rejection rate of the later steps; power
on planted data.
"""
import math
import pickle

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import fstools as fs
from fstools.methods.registry import get_method
from fstools.methods.step_tests import (STEP_METHODS, step_seeds, step_tests, stratified_permutations,
                                        stratum_occupancy)
from references.cmqfs import modularity_ref
from references.information import (conditional_mutual_information_ref, entropy_ref, information_criterion_ref,
                                    information_selection_ref, mu_sigma_levels_ref)

INFORMATION = ("mifs", "mifs_u", "mrmr", "jmi", "cmim")


def _discrete(n, p, levels=3, seed=0):
    return np.random.default_rng(seed).integers(0, levels, size=(n, p)).astype(float)


def _planted(n=1000, p=20, seed=0):
    """x0, x1, x2 informative (three levels each), x3 a noisy copy of x0 (C independent of x3 given
    x0), 16 noise features; the class from x0 + x1 + x2 with 10% of the labels flipped."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, p)).astype(float)
    X[:, 3] = np.where(rng.random(n) < 0.1, rng.integers(0, 3, n), X[:, 0])
    y = (X[:, 0] + X[:, 1] + X[:, 2] >= 3).astype(int)
    y = np.where(rng.random(n) < 0.1, 1 - y, y)
    data = pd.DataFrame(X, columns=[f"x{j}" for j in range(p)])
    data["y"] = np.where(y == 1, "yes", "no")
    return data


def _reference_strata(selected_codes, m):
    """Stratum ids of the joint values, numbered in the sorted order of the value tuples."""
    keys = [tuple(int(codes[i]) for codes in selected_codes) for i in range(m)]
    numbering = {key: position for position, key in enumerate(sorted(set(keys)))}
    return np.array([numbering[key] for key in keys])


def _count_p(observed, null):
    tolerance = 1e-12 * max(1.0, abs(observed))
    return (1 + sum(1 for v in null if v >= observed - tolerance)) / (1 + len(null))


def _reference_step_p_values(criterion_of, candidates_of, codes, y, ranking, n_permutations, seed):
    """The slow loop: per step, the strata, the permuted responses, the criterion of every candidate."""
    m = len(y)
    seeds = step_seeds(seed, len(ranking))
    p_step, p_candidate = [], []
    for t, chosen in enumerate(ranking):
        selected = list(ranking[:t])
        strata = _reference_strata([codes[s] for s in selected], m)
        permutations = stratified_permutations(strata, n_permutations, np.random.default_rng(seeds[t]))
        candidates = candidates_of(selected)
        observed = criterion_of(chosen, selected, y, candidates)
        best, own = [], []
        for permutation in permutations:
            permuted = [int(y[i]) for i in permutation]
            values = [criterion_of(k, selected, permuted, candidates) for k in candidates]
            best.append(max(v for v in values if not math.isnan(v)))
            own.append(values[candidates.index(chosen)])
        p_step.append(_count_p(observed, best))
        p_candidate.append(_count_p(observed, own))
    return np.array(p_step), np.array(p_candidate)


@pytest.mark.parametrize("method", INFORMATION)
def test_information_step_p_values_equal_the_slow_loop(method):
    X = _discrete(60, 5, seed=1)
    y = (X[:, 0] + X[:, 1] + np.random.default_rng(2).integers(0, 2, 60) >= 3).astype(np.int32)
    codes = [list(map(int, column)) for column in X.T]
    ranking, _ = information_selection_ref(codes, y, 4, method)
    spec = get_method(method)
    tests = step_tests(spec, X, y, spec.defaults(), 4, n_permutations=39, random_state=7)
    assert list(tests.ranking) == ranking

    def criterion_of(k, selected, response, candidates):
        return information_criterion_ref(method, codes[k], [codes[s] for s in selected], list(response))

    def candidates_of(selected):
        return [j for j in range(X.shape[1]) if j not in selected]

    p_step, p_candidate = _reference_step_p_values(criterion_of, candidates_of, codes, y, ranking, 39, 7)
    np.testing.assert_allclose(tests.p_step, p_step)
    np.testing.assert_allclose(tests.p_candidate, p_candidate)
    assert np.all(tests.p_step >= tests.p_candidate)


def test_cmqfs_step_p_values_equal_the_slow_loop():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(36, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.5 * rng.normal(size=36) > 0).astype(np.int32)
    X[:, 0] += 0.3 * y
    beta = 0.3
    nine = mu_sigma_levels_ref(X)
    spec = get_method("cmqfs")
    tests = step_tests(spec, X, y, {"beta": beta}, 3, n_permutations=19, random_state=11)
    ranking = list(tests.ranking)

    def normalise(value, data_values):
        # min-max with the range of the data at the step (Eq. 11-12), held fixed under the permutations
        finite = [v for v in data_values if not math.isnan(v)]
        low, high = min(finite, default=0.0), max(finite, default=0.0)
        return 0.0 if math.isnan(value) or high == low else (value - low) / (high - low)

    def raw(selected, response, candidates):
        q = [modularity_ref(X[:, j], response) for j in range(X.shape[1])]
        h = entropy_ref(list(response))
        ri = [sum((conditional_mutual_information_ref(nine[r], list(response), nine[s])
                   + conditional_mutual_information_ref(nine[s], list(response), nine[r])) / (2 * h)
                  for s in selected) for r in candidates]
        return q, ri

    def criterion_of(k, selected, response, candidates):
        q, ri = raw(selected, response, candidates)
        if not selected:
            return q[k]
        q_data, ri_data = raw(selected, y, candidates)
        return beta * normalise(q[k], q_data) + (1 - beta) * normalise(ri[candidates.index(k)], ri_data)

    def candidates_of(selected):
        return [j for j in range(X.shape[1]) if j not in selected]

    p_step, p_candidate = _reference_step_p_values(criterion_of, candidates_of, nine, y, ranking, 19, 11)
    np.testing.assert_allclose(tests.p_step, p_step)
    np.testing.assert_allclose(tests.p_candidate, p_candidate)


@pytest.mark.parametrize("method", STEP_METHODS)
def test_the_observed_statistic_is_the_methods_criterion(method):
    data = fs.datasets.load("wine")
    res = fs.select("class ~ .", data, method=method, k=3, test="step", n_permutations=19, permutation_seed=0)
    spec = get_method(method)
    tests = step_tests(spec, res._frame.X, res._y, {n: v for n, v in res.params.items() if n != "k"}, 3,
                       n_permutations=19, random_state=0)
    path = res.steps[spec.path_column].to_numpy()
    if method == "cmqfs":   # step 1 takes the largest Q (w is NA there)
        path = np.r_[res.scores.loc[res.steps["feature"].iloc[0], "Q"], path[1:]]
    tested = ~np.isnan(tests.observed)
    np.testing.assert_allclose(tests.observed[tested], path[tested], rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(res.steps["p_step"].to_numpy(), tests.p_step)


def test_stratified_permutations_stay_within_strata_and_are_uniform():
    strata = np.array([1, 0, 1, 0, 0, 2])
    permutations = stratified_permutations(strata, 12000, np.random.default_rng(0))
    assert permutations.dtype == np.int32
    assert np.all(np.sort(permutations, axis=1) == np.arange(6))
    assert np.all(strata[permutations] == strata[None, :])
    # 3! arrangements of stratum 0 times 2! of stratum 1: each should appear equally often.
    _, counts = np.unique(permutations, axis=0, return_counts=True)
    assert counts.shape[0] == 12
    assert stats.chisquare(counts).pvalue > 1e-4


def test_stratum_occupancy_by_hand():
    strata = np.array([0, 0, 0, 1, 1, 2, 3])
    y = np.array([0, 1, 0, 1, 1, 0, 1])
    shared, movable = stratum_occupancy(strata, y)
    assert shared == pytest.approx(5 / 7)       # strata 2 and 3 hold one row each
    assert movable == 3                          # only stratum 0 holds two classes


def test_step_one_p_values_are_uniform_on_null_data_and_later_steps_not_anticonservative():
    spec = get_method("mrmr")
    first, later = [], []
    for seed in range(150):
        rng = np.random.default_rng(1000 + seed)
        X = rng.integers(0, 3, size=(150, 8)).astype(float)
        y = rng.integers(0, 2, 150).astype(np.int32)
        tests = step_tests(spec, X, y, spec.defaults(), 3, n_permutations=99, random_state=seed)
        first.append(tests.p_step[0])
        later.extend(tests.p_step[1:])
    assert stats.kstest(first, "uniform").pvalue > 0.001
    later = np.asarray(later)
    assert not np.isnan(later).any()
    # Not anti-conservative: the rejection rate at 0.1 is within a binomial bound of 0.1.
    bound = 0.1 + 3 * math.sqrt(0.1 * 0.9 / later.size)
    assert np.mean(later <= 0.1) <= bound


def test_cmqfs_step_one_p_values_are_uniform_on_null_data():
    spec = get_method("cmqfs")
    first, later = [], []
    for seed in range(80):
        rng = np.random.default_rng(2000 + seed)
        X = rng.normal(size=(80, 5))
        y = rng.integers(0, 2, 80).astype(np.int32)
        tests = step_tests(spec, X, y, {"beta": 0.3}, 2, n_permutations=49, random_state=seed)
        first.append(tests.p_step[0])
        later.extend(tests.p_step[1:][~np.isnan(tests.p_step[1:])])
    assert stats.kstest(first, "uniform").pvalue > 0.001
    assert np.mean(np.asarray(later) <= 0.1) <= 0.1 + 3 * math.sqrt(0.09 / len(later))


@pytest.mark.parametrize("method", ["mrmr", "jmi", "cmim", "mifs_u", "cmqfs"])
def test_k_auto_stops_near_the_planted_features(method):
    # CMQFS recomputes the modularity of every feature under each permutation: a smaller run
    n, B = (800, 99) if method == "cmqfs" else (1000, 199)
    res = fs.select("y ~ .", _planted(n=n), method=method, k="auto", n_permutations=B, permutation_seed=0)
    assert set(res.selected[:3]) == {"x0", "x1", "x2"}
    assert len(res.selected) <= 4
    assert res.cut_at["n_kept"] == len(res.selected)
    assert res.params["k"] == len(res.selected)
    assert res.formula.startswith("y ~ ")
    summary = str(res.summary())
    assert "Path cut:" in summary and "p.step" in summary


def test_the_redundant_copy_gets_a_large_step_p_value():
    res = fs.select("y ~ .", _planted(), method="jmi", k=6, test="step", n_permutations=199, permutation_seed=0)
    steps = res.steps.set_index("feature")
    assert list(res.steps["feature"][:3].sort_values()) == ["x0", "x1", "x2"]
    assert (steps.loc[["x0", "x1", "x2"], "p_step"] <= 0.01).all()
    assert "x3" in steps.index      # JMI picks the copy next: its sum over S is large
    # C is independent of the copy given x0 (its step's null holds): not significant, and the path
    # cut at 0.05 ends before it
    assert steps.loc["x3", "p_step"] > 0.05 and steps.loc["x3", "p_candidate"] > 0.05
    assert res.cut(0.05).selected == list(res.steps["feature"][:3])


def test_fine_strata_give_na_with_a_note_and_end_the_path():
    rng = np.random.default_rng(0)
    n = 34   # a: 30 levels, so that 26 of the 34 rows are alone in their stratum after step 1
    data = pd.DataFrame({"a": rng.permutation(n).astype(float) % 30, "b": rng.normal(size=n),
                         "c": rng.normal(size=n)})
    data["y"] = np.where((data["a"] % 2 == 0) ^ (np.arange(n) < 3), "even", "odd")   # 3 labels flipped
    res = fs.select("y ~ .", data, method="mrmr", k=3, test="step", n_permutations=19, permutation_seed=0)
    assert res.steps["feature"].iloc[0] == "a"
    assert np.isnan(res.steps["p_step"].iloc[1]) and np.isnan(res.steps["p_candidate"].iloc[1])
    assert any(note.startswith("step 2: NA") and "too fine" in note for note in res.step_test["notes"])
    # (a's 30 levels on 34 rows: its plug-in I(a;y) is large under every permutation too, p = 0.4)
    cut = res.cut(0.5)
    assert cut.selected == ["a"] and "NA" in cut.cut_at["reason"]
    assert "too fine" in str(res.summary())


def test_a_step_whose_strata_determine_the_class_is_na():
    rng = np.random.default_rng(0)
    data = pd.DataFrame({"a": rng.integers(0, 4, 200).astype(float), "b": rng.normal(size=200)})
    data["y"] = np.where(data["a"] % 2 == 0, "even", "odd")
    res = fs.select("y ~ .", data, method="jmi", k=2, test="step", n_permutations=19, permutation_seed=0)
    assert np.isnan(res.steps["p_step"].iloc[1])
    assert any("determine the class" in note for note in res.step_test["notes"])


def test_reproducible_with_random_state_and_independent_of_threads():
    data = fs.datasets.load("wine")
    one = fs.select("class ~ .", data, method="cmim", k=3, test="step", n_permutations=49, permutation_seed=5,
                    n_jobs=1)
    two = fs.select("class ~ .", data, method="cmim", k=3, test="step", n_permutations=49, permutation_seed=5,
                    n_jobs=2)
    pd.testing.assert_frame_equal(one.steps, two.steps)
    other = fs.select("class ~ .", data, method="cmim", k=3, test="step", n_permutations=49, permutation_seed=6)
    assert not np.array_equal(one.step_test["null"].to_numpy(), other.step_test["null"].to_numpy())


def test_k_auto_p_values_are_those_of_the_full_step_test():
    data = _planted(n=600)
    auto = fs.select("y ~ .", data, method="mrmr", k="auto", n_permutations=99, permutation_seed=3)
    full = fs.select("y ~ .", data, method="mrmr", k=6, test="step", n_permutations=99, permutation_seed=3)
    tested = auto.steps["strata"].notna().to_numpy()
    np.testing.assert_array_equal(auto.steps["p_step"].to_numpy()[tested][:6], full.steps["p_step"].to_numpy()[:6][
        tested[:6]])
    # cut of the full test at the same level: the same selection
    assert full.cut(0.05).selected == auto.selected


def test_the_result_is_not_modified_and_pickles():
    data = fs.datasets.load("wine")
    res = fs.select("class ~ .", data, method="mrmr", k=4)
    tested = res.test("step", n_permutations=19, random_state=0)
    assert "p_step" not in res.steps.columns and res.step_test is None
    cut = tested.cut(0.05)
    assert tested.cut_at is None and len(tested.selected) == 4
    for result in (tested, cut):
        again = pickle.loads(pickle.dumps(result))
        pd.testing.assert_frame_equal(again.steps, result.steps)
        assert again.selected == result.selected and again.cut_at == result.cut_at
        assert str(again.summary()) == str(result.summary())


def test_cut_without_a_step_test_runs_it():
    data = _planted(n=600)
    res = fs.select("y ~ .", data, method="jmi", k=6)
    cut = res.cut(0.05, n_permutations=99, random_state=0)
    assert set(cut.selected) == {"x0", "x1", "x2"}
    assert cut.steps["kept"].tolist() == [True, True, True] + [False] * (len(cut.steps) - 3)
    # the selection's statistics are those of the kept features (not cached from the uncut result)
    alone = fs.select("y ~ x0 + x1 + x2", data, method="jmi", k=3)
    assert cut.redundancy == pytest.approx(alone.redundancy)
    assert res.redundancy != pytest.approx(cut.redundancy)


@pytest.mark.parametrize("alpha", [0, 1, -0.1, 1.5, "0.05", None])
def test_alpha_outside_the_unit_interval_is_refused(alpha):
    res = fs.select("class ~ .", fs.datasets.load("wine"), method="mrmr", k=3)
    with pytest.raises((ValueError, TypeError), match="alpha"):
        res.cut(alpha)
    with pytest.raises((ValueError, TypeError), match="step_alpha"):
        fs.select("class ~ .", fs.datasets.load("wine"), method="mrmr", k="auto", step_alpha=alpha if alpha is not None
                  else 2.0)


def test_bad_arguments_name_the_argument_and_the_allowed_values():
    data = fs.datasets.load("wine")
    with pytest.raises(ValueError, match=r"k: k='auto' needs a greedy method.*cmim, cmqfs, jmi, mifs, mifs_u, mrmr"):
        fs.select("class ~ .", data, method="fisher", k="auto")
    with pytest.raises(ValueError, match=r"test: test='step' needs a greedy method"):
        fs.select("class ~ .", data, method="mim", k=3, test="step")
    with pytest.raises(ValueError, match="step_alpha: .*only used with k='auto'"):
        fs.select("class ~ .", data, method="mrmr", k=3, step_alpha=0.1)
    with pytest.raises(ValueError, match="n_permutations"):
        fs.select("class ~ .", data, method="mrmr", k="auto", n_permutations=0)
    with pytest.raises(ValueError, match="test: must be one of 'permutation', 'step'"):
        fs.select("class ~ .", data, method="mrmr", k=3).test("steps")
    with pytest.raises(ValueError, match="cut"):
        fs.select("class ~ .", data, method="fisher", k=3).cut(0.05)

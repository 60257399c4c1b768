"""Permutation tests of each method's own score (fstools.methods.permutation, SelectionResult.test).

References: the p-values are checked against a slow, obviously correct loop (permute the response
with the same permutations, call the method through the registry, count); the adjusted values
against statsmodels' multipletests; calibration by a Kolmogorov-Smirnov test of uniformity on data
where the response is independent of the features (scipy.stats.kstest); the kernel against the
existing one-permutation kernel.
"""
import pickle

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

import fstools as fs
from fstools._ext import _entropy, _permutation
from fstools.methods.permutation import (best_by_group, permutation_indices, permutation_methods,
                                         permutation_p_values)
from fstools.methods.registry import get_method
from references.statistical import block_fisher_ref

B = 99


def _frame(n=40, p=5, seed=0, continuous=False, informative=(0,)):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    if continuous:
        y = 0.5 * rng.normal(size=n)
        for j in informative:
            y = y + X[:, j]
    else:
        y = np.arange(n) % 2
        for j in informative:
            X[:, j] += 1.5 * y
    data = pd.DataFrame(X, columns=[f"x{j}" for j in range(p)])
    data["y"] = y.astype(float) if continuous else np.where(y == 1, "b", "a")
    return data


def _slow_p_values(method, data, n_permutations, seed, response_type, **params):
    """The obviously correct loop: the method on each permuted response, the count by hand."""
    spec = get_method(method)
    X = data.drop(columns="y").to_numpy(dtype=float)
    if response_type == "class":
        y = pd.factorize(data["y"], sort=True)[0].astype(np.int32)
    else:
        y = data["y"].to_numpy(dtype=float)
    keywords = {**spec.defaults(), **params}
    if "continuous" in spec.responses:
        keywords["response_type"] = response_type
    observed = spec.function(X, y, None, 1, **keywords).scores
    indices = permutation_indices(len(y), n_permutations, seed)
    counts = np.zeros(X.shape[1])
    for permutation in indices:
        null = spec.function(X, np.ascontiguousarray(y[permutation]), None, 1, **keywords).scores
        for j in range(X.shape[1]):
            if null[j] >= observed[j] or np.isclose(null[j], observed[j], rtol=1e-9, atol=1e-12):
                counts[j] += 1
    p_values = (1 + counts) / (1 + n_permutations)
    p_values[np.isnan(observed)] = np.nan
    return pd.Series(p_values, index=data.columns[:-1])


CASES = [("fisher", "class", {}), ("f_test", "class", {}), ("f_test", "continuous", {}),
         ("pearson", "continuous", {}), ("mim", "class", {}), ("mim", "continuous", {}),
         ("mim", "class", {"discretization": "equal_width", "n_bins": 4}),
         ("relieff", "class", {}), ("cmqfs", "class", {}), ("mrmr", "class", {}), ("chi2", "class", {})]


@pytest.mark.parametrize("method, response_type, params", CASES)
def test_p_values_equal_the_slow_loop(method, response_type, params):
    data = _frame(continuous=response_type == "continuous")
    if method == "chi2":
        data[data.columns[:-1]] = data[data.columns[:-1]].abs()
    res = fs.select("y ~ .", data, method=method, response_type=response_type, test="permutation",
                    n_permutations=B, permutation_seed=3, **params)
    expected = _slow_p_values(method, data, B, 3, response_type, **params)
    pd.testing.assert_series_equal(res.scores["p_perm"].loc[expected.index], expected, check_names=False)


def test_the_informative_feature_is_found_and_p_values_live_on_the_grid():
    res = fs.select("y ~ .", _frame(n=60), method="fisher", test="permutation", n_permutations=B,
                    permutation_seed=0)
    assert res.scores.loc["x0", "p_perm"] == pytest.approx(1 / (1 + B))
    grid = res.scores["p_perm"] * (1 + B)
    assert np.allclose(grid, np.round(grid))


def test_a_factor_is_tested_by_the_fisher_score_of_its_level_indicators():
    data = _frame(n=45, p=2)
    data["g"] = np.array(["u", "v", "w"])[np.arange(45) % 3]
    res = fs.select("y ~ .", data, method="fisher", test="permutation", n_permutations=B, permutation_seed=1)
    levels = data["g"].tolist()
    y = (data["y"] == "b").to_numpy().astype(np.int32)
    observed = block_fisher_ref(levels, y)
    null = np.array([block_fisher_ref(levels, y[p]) for p in permutation_indices(45, B, 1)])
    expected = (1 + np.sum(null >= observed * (1 - 1e-9))) / (1 + B)
    assert res.scores.loc["g", "p_perm"] == pytest.approx(expected)


def test_p_value_formula_and_the_direction_of_lower_is_better():
    observed = np.array([1.0, 5.0, np.nan])
    null = np.array([[0.5, 6.0, 1.0], [1.0, 4.0, 1.0], [2.0, 5.0, 1.0]])
    # higher is better: null >= observed, ties included
    np.testing.assert_allclose(permutation_p_values(observed, null, True), [(1 + 2) / 4, (1 + 2) / 4, np.nan])
    # lower is better: null <= observed
    np.testing.assert_allclose(permutation_p_values(observed, null, False), [(1 + 2) / 4, (1 + 2) / 4, np.nan])
    null = np.array([[0.5, 6.0, 1.0], [0.7, 7.0, 1.0], [2.0, 8.0, 1.0]])
    np.testing.assert_allclose(permutation_p_values(observed, null, True)[:2], [2 / 4, 4 / 4])
    np.testing.assert_allclose(permutation_p_values(observed, null, False)[:2], [3 / 4, 1 / 4])


def test_groups_take_the_best_column_by_the_direction():
    values = np.array([[1.0, 3.0, np.nan, 2.0]])
    np.testing.assert_array_equal(best_by_group(values, [0, 0, 1, 1], 2, True), [[3.0, 2.0]])
    np.testing.assert_array_equal(best_by_group(values, [0, 0, 1, 1], 2, False), [[1.0, 2.0]])


def test_adjusted_p_values_are_statsmodels_multipletests():
    res = fs.select("y ~ .", _frame(p=8, informative=(0, 1)), method="mim", test="permutation",
                    n_permutations=B, permutation_seed=0)
    p = res.scores["p_perm"].to_numpy()
    np.testing.assert_allclose(res.scores["p_perm_bh"], multipletests(p, method="fdr_bh")[1])
    np.testing.assert_allclose(res.scores["p_perm_holm"], multipletests(p, method="holm")[1])


CALIBRATED = [("fisher", "class"), ("f_test", "continuous"), ("mim", "class"), ("mim", "continuous"),
              ("cmqfs", "class"), ("pearson", "continuous")]


@pytest.mark.parametrize("method, response_type", CALIBRATED)
def test_p_values_are_uniform_under_independence(method, response_type):
    p_values = []
    for seed in range(3):
        data = _frame(n=50, p=30, seed=100 + seed, continuous=response_type == "continuous", informative=())
        res = fs.select("y ~ .", data, method=method, response_type=response_type, test="permutation",
                        n_permutations=199, permutation_seed=seed)
        p_values.append(res.scores["p_perm"].to_numpy())
    p_values = np.concatenate(p_values)
    assert np.isfinite(p_values).all()
    assert stats.kstest(p_values, "uniform").pvalue > 0.001


def test_relieff_p_values_are_uniform_under_independence():
    p_values = np.concatenate([
        fs.select("y ~ .", _frame(n=30, p=15, seed=200 + seed, informative=()), method="relieff",
                  test="permutation", n_permutations=99, permutation_seed=seed).scores["p_perm"].to_numpy()
        for seed in range(3)])
    assert stats.kstest(p_values, "uniform").pvalue > 0.001


@pytest.mark.parametrize("method, response_type", CALIBRATED)
def test_power_on_planted_data(method, response_type):
    data = _frame(n=150, p=10, seed=7, continuous=response_type == "continuous", informative=(0, 1, 2))
    res = fs.select("y ~ .", data, method=method, response_type=response_type, test="permutation",
                    n_permutations=199, permutation_seed=0)
    p = res.scores["p_perm"]
    assert (p[["x0", "x1", "x2"]] <= 0.01).all()
    assert (res.scores["p_perm_bh"].drop(["x0", "x1", "x2"]) > 0.05).sum() >= 5


@pytest.mark.parametrize("method", ["fisher", "mim", "cmqfs", "relieff"])
def test_p_values_do_not_depend_on_threads(method, parallel_everywhere):
    data = _frame(n=60, p=6)
    one, two = (fs.select("y ~ .", data, method=method, n_jobs=n_jobs, test="permutation", n_permutations=49,
                          permutation_seed=5) for n_jobs in (1, 2))
    pd.testing.assert_frame_equal(one.scores, two.scores)
    pd.testing.assert_frame_equal(one.permutation["null"], two.permutation["null"])


def test_the_seed_reproduces_and_test_on_a_result_equals_select():
    data = _frame()
    res = fs.select("y ~ .", data, method="mim", k=2)
    first = res.test("permutation", n_permutations=B, random_state=11)
    again = res.test(n_permutations=B, random_state=11)
    other = res.test(n_permutations=B, random_state=12)
    direct = fs.select("y ~ .", data, method="mim", k=2, test="permutation", n_permutations=B, permutation_seed=11)
    pd.testing.assert_series_equal(first.scores["p_perm"], again.scores["p_perm"])
    pd.testing.assert_series_equal(first.scores["p_perm"], direct.scores["p_perm"])
    assert not first.permutation["null"].equals(other.permutation["null"])
    assert "p_perm" not in res.scores and res.permutation is None  # the result tested is not modified


def test_the_data_frame_is_not_modified():
    data = _frame()
    before = data.copy()
    fs.select("y ~ .", data, method="fisher", test="permutation", n_permutations=19)
    pd.testing.assert_frame_equal(data, before)


def test_the_result_with_p_values_pickles():
    res = fs.select("y ~ .", _frame(), method="cmqfs", k=2, test="permutation", n_permutations=19,
                    permutation_seed=0)
    loaded = pickle.loads(pickle.dumps(res))
    pd.testing.assert_frame_equal(loaded.scores, res.scores)
    pd.testing.assert_frame_equal(loaded.permutation["null"], res.permutation["null"])
    assert str(loaded.summary()) == str(res.summary())


def test_summary_shows_the_permutation_test_and_keeps_the_marginal_tests():
    res = fs.select("y ~ .", _frame(), method="mrmr", k=2, test="permutation", n_permutations=B,
                    permutation_seed=0)
    text = str(res.summary())
    for word in ("p.perm", "p.BH", "p.Holm", f"B = {B}", "relevance", "summary(tests='marginal')"):
        assert word in text
    assert "p.adj" not in text
    marginal = str(res.summary(tests="marginal"))
    assert "Welch t" in marginal and "p.adj" in marginal and "p.perm" not in marginal
    plain = fs.select("y ~ .", _frame(), method="fisher", k=2)
    assert "Welch t" in str(plain.summary())
    with pytest.raises(ValueError, match="tests: 'permutation' needs a permutation test"):
        plain.summary(tests="permutation")
    with pytest.raises(ValueError, match="tests: must be one of"):
        plain.summary(tests="both")


def test_null_plot_returns_axes(tmp_path):
    import matplotlib.pyplot as plt

    res = fs.select("y ~ .", _frame(), method="fisher", k=2, test="permutation", n_permutations=B,
                    permutation_seed=0)
    ax = res.plot(kind="null", feature="x1")
    assert ax.get_xlabel().startswith("Fisher") or "higher is better" in ax.get_xlabel()
    assert len(ax.patches) > 0 and len(ax.lines) == 1
    assert ax.lines[0].get_xdata()[0] == pytest.approx(res.permutation["observed"]["x1"])
    ax.figure.savefig(tmp_path / "null.png")
    plt.close("all")
    with pytest.raises(ValueError, match="feature: .*[Dd]id you mean 'x1'"):
        res.plot(kind="null", feature="x11")
    with pytest.raises(ValueError, match="kind: 'null' needs a permutation test"):
        fs.select("y ~ .", _frame(), method="fisher").plot(kind="null")


@pytest.mark.parametrize("method, words", [("laplacian", "unsupervised"), ("pa", "streaming")])
def test_methods_without_a_test_are_refused_naming_those_with_one(method, words):
    with pytest.raises(ValueError, match=f"test: method '{method}' .*{words}.*available for .*fisher"):
        fs.select("y ~ .", _frame(), method=method, test="permutation")


def test_multilabel_methods_are_refused():
    data = _frame()
    data["z"] = (data["x1"] > 0).astype(int)
    data["y"] = (data["y"] == "b").astype(int)
    with pytest.raises(ValueError, match="test: method 'elc' is a multi-label method"):
        fs.select("y + z ~ .", data, method="elc", test="permutation")
    assert "elc" not in permutation_methods() and "laplacian" not in permutation_methods()


@pytest.mark.parametrize("keywords, message", [
    ({"test": "perm"}, "test: must be one of 'permutation'"),
    ({"test": "permutation", "n_permutations": 0}, "n_permutations: must be an integer >= 1"),
    ({"test": "permutation", "n_permutations": 9.5}, "n_permutations: must be an integer >= 1"),
    ({"test": "permutation", "permutation_seed": "a"}, "permutation_seed: must be None or an integer >= 0"),
])
def test_bad_arguments_name_the_argument(keywords, message):
    with pytest.raises(ValueError, match=message):
        fs.select("y ~ .", _frame(), method="fisher", **keywords)


def test_a_method_random_state_and_the_permutation_seed_do_not_clash():
    res = fs.select("y ~ .", _frame(), method="mim", estimator="knn", random_state=4, test="permutation",
                    n_permutations=19, permutation_seed=0)
    assert res.params["random_state"] == 4 and res.permutation["random_state"] == 0


def test_kernel_equals_the_one_permutation_kernel():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 5, (7, 100)).astype(np.int16)
    levels = np.full(7, 5, dtype=np.int32)
    y = rng.integers(0, 3, 100).astype(np.int32)
    indices = permutation_indices(100, 6, 0)
    null = _permutation.permuted_class_information(codes, levels, y, 3, indices, 2)
    for b, permutation in enumerate(indices):
        expected = np.empty(7)
        _entropy.feature_class_information(codes, levels, np.ascontiguousarray(y[permutation]), 3, expected, 1)
        np.testing.assert_array_equal(null[b], expected)


def test_kernel_refuses_bad_input():
    codes = np.zeros((2, 4), dtype=np.int8)
    levels = np.ones(2, dtype=np.int32)
    y = np.zeros(4, dtype=np.int32)
    with pytest.raises(ValueError, match="permutations: entry 4"):
        _permutation.permuted_class_information(codes, levels, y, 1, np.full((1, 4), 4, np.int32))
    with pytest.raises(ValueError, match="codes: code 1"):
        _permutation.permuted_class_information(codes + 1, levels, y, 1, np.zeros((1, 4), np.int32))
    with pytest.raises(TypeError, match="codes: must be int8"):
        _permutation.permuted_class_information(codes.astype(float), levels, y, 1, np.zeros((1, 4), np.int32))


@pytest.mark.parametrize("method, response_type", [("fisher", "class"), ("f_test", "class"), ("mim", "class"),
                                                   ("pearson", "continuous"), ("f_test", "continuous")])
def test_sparse_predictors_give_the_dense_p_values(method, response_type):
    data = _frame(n=40, p=4, continuous=response_type == "continuous")
    X = data.drop(columns="y")
    X = X.where(X.abs() > 0.7, 0.0).round(0)  # mostly zeros
    dense = X.assign(y=data["y"])
    stored = X.astype(pd.SparseDtype(float, 0.0)).assign(y=data["y"])
    p_values = [fs.select("y ~ .", frame, method=method, response_type=response_type, test="permutation",
                          n_permutations=49, permutation_seed=0).scores["p_perm"] for frame in (dense, stored)]
    pd.testing.assert_series_equal(*p_values)


@pytest.mark.parametrize("method", permutation_methods())
def test_the_statistic_is_the_method_own_score(method):
    """For every method with a test, the permuted statistic on the data is the score of the result
    (for the greedy methods the relevance), with the k of the run."""
    spec = get_method(method)
    continuous = "class" not in spec.responses
    data = _frame(n=30, p=3, continuous=continuous)
    if method == "chi2":
        data[data.columns[:-1]] = data[data.columns[:-1]].abs()
    res = fs.select("y ~ .", data, method=method, k=2, test="permutation", n_permutations=3, permutation_seed=0)
    np.testing.assert_allclose(res.permutation["observed"].to_numpy(), res.scores["score"].to_numpy(dtype=float),
                               rtol=1e-9, atol=1e-12)
    assert res.permutation["null"].shape == (3, 3)


def test_a_factor_scored_by_its_level_codes_is_tested_on_them():
    """The information methods score a factor by its level codes (I(g; y)): the test permutes that."""
    data = _frame(n=45, p=2)
    data["g"] = np.array(["u", "v", "w"])[np.arange(45) % 3]
    res = fs.select("y ~ .", data, method="mim", test="permutation", n_permutations=B, permutation_seed=2)
    np.testing.assert_allclose(res.permutation["observed"].to_numpy(), res.scores["score"].to_numpy(), rtol=1e-12)
    codes = pd.factorize(data["g"], sort=True)[0]
    y = (data["y"] == "b").to_numpy().astype(int)
    from sklearn.metrics import mutual_info_score
    observed = mutual_info_score(codes, y)
    null = np.array([mutual_info_score(codes, y[p]) for p in permutation_indices(45, B, 2)])
    expected = (1 + np.sum(null >= observed - 1e-12)) / (1 + B)
    assert res.scores.loc["g", "p_perm"] == pytest.approx(expected)

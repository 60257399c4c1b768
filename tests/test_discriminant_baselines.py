"""The DFS paper's baselines the project adds: trace ratio (Nie et al. 2008) and BAHSIC (Song et al.
2007), against slow references (brute force over subsets; the authors' backward elimination)."""
import itertools

import numpy as np
import pandas as pd
import pytest
from references.discriminant import (bahsic_ref, biased_hsic_ref, label_kernel_ref, standardise_ref,
                                     trace_ratio_ref, trace_ratio_weights_ref, unbiased_hsic_ref)
from references.similarity import fisher_score_ref

import fstools as fs
from fstools.methods.discriminant import trace_ratio, trace_ratio_subset, trace_ratio_weights
from fstools.methods.hsic import bahsic, hsic_contributions
from fstools.methods.registry import get_method


def _data(seed, m=36, n=8, n_classes=3, scales=True):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, m).astype(np.int32)
    y[:n_classes] = np.arange(n_classes)
    X = rng.normal(size=(m, n)) + 0.7 * y[:, None] * (rng.random(n) < 0.5)
    if scales:
        X *= rng.uniform(0.2, 5.0, size=n)          # columns in different units
    return X, y


@pytest.fixture(scope="module")
def wine():
    return fs.datasets.load("wine")


# ---------------------------------------------------------------- trace ratio

@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("n_classes", [2, 3])
def test_trace_ratio_weights_equal_the_graph_definition(seed, n_classes):
    X, y = _data(seed, n_classes=n_classes)
    X[:, 2] = 1.5
    between, within = trace_ratio_weights(X, y)
    expected_between, expected_within = trace_ratio_weights_ref(X, y)
    np.testing.assert_allclose(between, expected_between, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(within, expected_within, rtol=1e-10, atol=1e-12)
    assert between[2] == within[2] == 0.0


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 2, 3, 5])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_trace_ratio_finds_the_best_subset(seed, k, n_classes):
    X, y = _data(seed, n_classes=n_classes)
    subset, ratio = trace_ratio_ref(X, y, k)
    out = trace_ratio(X, y, k, standardize=False)
    assert sorted(out.ranking[:k]) == subset
    between, within = trace_ratio_weights_ref(X, y)
    # the scores are b_i - lambda* w_i at the optimal ratio: the subset is exactly the k best scores
    np.testing.assert_allclose(out.scores, between - ratio * within, rtol=1e-9, atol=1e-9)
    assert out.iterations["trace_ratio"][-1] == pytest.approx(ratio, rel=1e-12)
    assert np.all(np.diff(out.iterations["trace_ratio"]) > 0)            # Dinkelbach: increasing
    # on standardised columns the same search is the brute force on standardised data
    Z = standardise_ref(X)
    assert sorted(trace_ratio(X, y, k).ranking[:k]) == trace_ratio_ref(Z, y, k)[0]


def test_trace_ratio_leaves_the_best_individual_ratios():
    # b = (10, 100, 1), w = (1, 20, 0.5): the best individual ratios are features 0 (10) and 1 (5),
    # with trace ratio 110 / 21 = 5.24; the optimum is {0, 2}: 11 / 1.5 = 7.33.  An iteration that
    # stays inside the k best individual ratios (scikit-feature) cannot find it.
    between = np.array([10.0, 100.0, 1.0])
    within = np.array([1.0, 20.0, 0.5])
    subset, ratio, history = trace_ratio_subset(between, within, 2)
    assert sorted(subset.tolist()) == [0, 2]
    assert ratio == pytest.approx(11 / 1.5)
    assert history[0] == pytest.approx(110 / 21)                         # the start value
    best = max(itertools.combinations(range(3), 2), key=lambda s: between[list(s)].sum() / within[list(s)].sum())
    assert sorted(best) == [0, 2]


def test_trace_ratio_start_value_is_not_taken_from_the_first_columns():
    # The first k columns have the worst ratios; the start value must be the ratio of the k best
    # individual ratios (scikit-feature takes the first k columns in their original order).
    between = np.array([1.0, 1.0, 9.0, 8.0, 3.0])
    within = np.array([9.0, 8.0, 1.0, 1.0, 3.0])
    _, ratio, history = trace_ratio_subset(between, within, 2)
    assert history[0] == pytest.approx(17 / 2)
    assert history[0] != pytest.approx(2 / 17)
    assert ratio == pytest.approx(17 / 2)


def test_trace_ratio_does_not_depend_on_the_column_order():
    X, y = _data(7, n=10)
    order = np.random.default_rng(0).permutation(10)
    chosen = set(trace_ratio(X, y, 4, standardize=False).ranking[:4].tolist())
    permuted = set(order[trace_ratio(X[:, order], y, 4, standardize=False).ranking[:4]].tolist())
    assert chosen == permuted


def test_trace_ratio_on_standardised_columns_is_the_fisher_ranking():
    # b_i + w_i = n - 1 for every standardised column, so sum b / sum w grows with sum b.
    X, y = _data(3, n=10)
    fisher = fisher_score_ref(X, y)
    for k in (2, 4, 7):
        assert set(trace_ratio(X, y, k).ranking[:k].tolist()) == set(np.argsort(-fisher)[:k].tolist())


def test_trace_ratio_perfect_separators_and_constants():
    y = np.array([0, 0, 0, 1, 1, 1], dtype=np.int32)
    X = np.array([[0.0, 5, 1.0, 0.1],
                  [0.0, 5, 2.0, 0.2],
                  [0.0, 5, 0.5, 0.3],
                  [1.0, 5, 1.5, 0.4],
                  [1.0, 5, 0.2, 0.5],
                  [1.0, 5, 2.5, 0.6]])
    out = trace_ratio(X, y, 1, standardize=False)
    assert out.ranking[0] == 0 and np.isinf(out.iterations["trace_ratio"][-1])   # zero within-class scatter
    out = trace_ratio(X, y, 3, standardize=False)
    assert out.ranking[-1] == 1 and any("constant" in note for note in out.notes)
    assert sorted(out.ranking[:3].tolist()) == [0, 2, 3]       # the constant column is not a candidate
    varying = [0, 2, 3]
    subset, _ = trace_ratio_ref(X[:, varying], y, 2)
    assert sorted(trace_ratio(X, y, 2, standardize=False).ranking[:2].tolist()) == [varying[j] for j in subset]


# ---------------------------------------------------------------- BAHSIC

@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_classes", [2, 3, 4])
@pytest.mark.parametrize("estimator", ["unbiased", "biased"])
def test_bahsic_equals_the_backward_elimination(seed, n_classes, estimator):
    X, y = _data(seed, m=30, n=12, n_classes=n_classes)
    expected = bahsic_ref(standardise_ref(X), y, n_keep=3, fraction=0.1, estimator=estimator)
    out = bahsic(X, y, estimator=estimator)
    assert list(out.ranking) == expected
    expected_raw = bahsic_ref(X, y, n_keep=1, fraction=0.25, estimator=estimator)
    assert list(bahsic(X, y, estimator=estimator, standardize=False).ranking) == expected_raw


@pytest.mark.parametrize("estimator", ["unbiased", "biased"])
def test_hsic_is_the_sum_of_the_contributions(estimator):
    X, y = _data(5, m=25, n=9, n_classes=3)
    h = hsic_contributions(X, y, estimator)
    L = label_kernel_ref(y)
    hsic = unbiased_hsic_ref if estimator == "unbiased" else biased_hsic_ref
    for subset in ([0], [1, 4], [0, 2, 3, 8], list(range(9))):
        K = X[:, subset] @ X[:, subset].T
        assert hsic(K, L) == pytest.approx(h[subset].sum(), rel=1e-9, abs=1e-15)


def test_bahsic_binary_labels_match_the_authors_encoding():
    # Two classes: y_i = 1/m_+ or -1/m_- (the authors' code) and Y_ic = 1/n_c (here) give
    # proportional contributions.
    X, y = _data(6, m=28, n=10, n_classes=2)
    authors = label_kernel_ref(y)
    Y = np.zeros((28, 2))
    Y[np.arange(28), y] = 1.0 / np.bincount(y)[y]
    here = Y @ Y.T
    a = [unbiased_hsic_ref(np.outer(X[:, j], X[:, j]), authors) for j in range(10)]
    b = [unbiased_hsic_ref(np.outer(X[:, j], X[:, j]), here) for j in range(10)]
    np.testing.assert_allclose(np.array(a) / np.array(b), a[0] / b[0], rtol=1e-9)
    assert a[0] / b[0] > 0
    np.testing.assert_allclose(hsic_contributions(X, y), b, rtol=1e-9, atol=1e-15)


def test_bahsic_constant_column_last_and_small_samples():
    X, y = _data(8, m=20, n=6, n_classes=2)
    X[:, 1] = 4.0
    out = bahsic(X, y)
    assert out.ranking[-1] == 1 and out.scores[1] == 0.0
    with pytest.raises(ValueError, match="at least 4 samples"):
        hsic_contributions(X[:3], np.array([0, 1, 0], dtype=np.int32))


# ---------------------------------------------------------------- through the API

@pytest.mark.parametrize("method, column", [("trace_ratio", "between"), ("bahsic", "hsic")])
def test_select_on_wine(wine, method, column):
    res = fs.select("class ~ .", wine, method=method, k=5)
    X = wine.drop(columns="class").to_numpy(dtype=float)
    y = wine["class"].cat.codes.to_numpy().astype(np.int32)
    out = get_method(method).function(X, y, 5, 1, **get_method(method).defaults())
    names = list(wine.columns[:-1])
    assert res.selected == [names[j] for j in out.ranking[:5]]
    assert column in res.scores.columns
    assert list(res.scores["score"]) == sorted(res.scores["score"], reverse=True)
    assert get_method(method).reference.split()[0] in str(res.summary())


def test_trace_ratio_convergence_records(wine):
    res = fs.select("class ~ .", wine.assign(proline=wine["proline"] / 1000), method="trace_ratio", k=4,
                    standardize=False)
    assert list(res.iterations.columns) == ["iteration", "trace_ratio"]
    axes = res.plot(kind="convergence").axes
    np.testing.assert_allclose(axes[0].get_lines()[0].get_ydata(), res.iterations["trace_ratio"])


@pytest.mark.parametrize("method, params, name", [
    ("trace_ratio", {"standardize": "no"}, "standardize"),
    ("bahsic", {"estimator": "fast"}, "estimator"),
    ("bahsic", {"standardize": 1}, "standardize"),
])
def test_parameter_errors_name_the_parameter(wine, method, params, name):
    with pytest.raises(ValueError, match=rf"^{name}: must be .*for method '{method}'; got"):
        fs.select("class ~ .", wine, method=method, k=3, **params)


def test_registry_entries():
    table = fs.list_methods().set_index("name")
    for name in ("trace_ratio", "bahsic"):
        assert "supervised" in table.loc[name, "capabilities"]
        spec = get_method(name)
        assert spec.criterion and spec.reference and spec.higher_is_better
    assert get_method("bahsic").defaults() == {"estimator": "unbiased", "standardize": True, "kernel": "linear"}
    assert get_method("trace_ratio").defaults() == {"standardize": True}


def test_user_data_not_modified(wine):
    before = wine.copy(deep=True)
    for method in ("trace_ratio", "bahsic", "dfs"):
        fs.select("class ~ .", wine, method=method, k=2)
    pd.testing.assert_frame_equal(wine, before)

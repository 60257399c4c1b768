"""Methods with a continuous response, at the methods layer (arrays in), each against an
independent reference: scikit-learn, scipy, or a brute-force reference in ``tests/references``."""
import pickle

import numpy as np
import pytest
from scipy import sparse, stats
from sklearn.feature_selection import (f_classif, f_regression, mutual_info_classif, mutual_info_regression,
                                       r_regression)

import fstools as fs
from fstools.api.selection import run_method
from fstools.methods.registry import RESPONSE_TYPES, check_response, get_method, methods_for_response
from references.discriminant import (bahsic_ref, biased_hsic_ref, rbf_kernel_ref, standardise_ref,
                                     unbiased_hsic_ref)
from references.information import information_codes_ref, information_selection_ref
from references.similarity import rrelieff_ref

CLASS_ONLY = ["cmqfs", "fisher", "chi2", "dfs", "trace_ratio", "relieff", "pa", "mbpa", "elc"]


def _data(seed=0, n=120, p=7):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    X[:, 3] = 2.5                                              # constant
    y = 2 * X[:, 0] - X[:, 1] + 0.5 * X[:, 2] ** 2 + 0.3 * rng.normal(size=n)
    return X, y


def _run(name, X, y, response_type="continuous", **params):
    spec = get_method(name)
    return run_method(spec, X, y, None, {**spec.defaults(), **params}, 1, response_type=response_type)


# ------------------------------------------------------------------ the registry contract
def test_response_types_are_declared_and_listed():
    assert RESPONSE_TYPES == ("class", "continuous")
    continuous = methods_for_response("continuous")
    for name in ["f_test", "pearson", "mim", "mifs", "mifs_u", "mrmr", "jmi", "cmim", "rrelieff", "bahsic",
                 "laplacian"]:
        assert name in continuous
    for name in CLASS_ONLY:
        assert name not in continuous
        assert get_method(name).responses == frozenset({"class"})
    assert methods_for_response(None) == ["laplacian"]
    assert "pearson" not in methods_for_response("class")
    table = fs.list_methods().set_index("name")
    assert table.loc["fisher", "responses"] == "class"
    assert table.loc["mrmr", "responses"] == "class, continuous"
    assert table.loc["pearson", "responses"] == "continuous"
    assert table.loc["laplacian", "responses"] == "any (or none)"


def test_a_class_only_method_is_refused_with_the_alternatives():
    X, y = _data()
    with pytest.raises(ValueError, match=r"method 'fisher' takes class responses only; methods that take a "
                                         r"continuous response: .*f_test.*pearson.*pd.cut / pd.qcut"):
        _run("fisher", X, y)
    with pytest.raises(ValueError, match="method 'pearson' takes continuous responses only"):
        check_response(get_method("pearson"), "class")
    with pytest.raises(ValueError, match="response_type: must be one of 'class', 'continuous'"):
        check_response(get_method("mim"), "ordinal")
    with pytest.raises(ValueError, match="method 'mim' needs a response"):
        _run("mim", X, None, response_type=None)


def test_run_method_refuses_a_non_finite_continuous_response():
    X, y = _data()
    y[4] = np.nan
    with pytest.raises(ValueError, match="y: a continuous response must be 1-D with finite values"):
        _run("f_test", X, y)


def test_laplacian_needs_no_response():
    X, _ = _data()
    X = np.ascontiguousarray(X[:, [0, 1, 2, 4]])
    without = _run("laplacian", X, None, response_type=None)
    np.testing.assert_array_equal(without.scores, _run("laplacian", X, np.arange(120.0)).scores)
    np.testing.assert_array_equal(without.scores, get_method("laplacian").function(X, None).scores)


# ------------------------------------------------------------------ F-test and Pearson
def test_f_test_equals_scikit_learn_for_both_response_types():
    X, y = _data()
    out = _run("f_test", X, y)
    F, p = f_regression(X[:, [0, 1, 2, 4, 5, 6]], y)
    varying = [0, 1, 2, 4, 5, 6]
    np.testing.assert_allclose(out.columns["F"][varying], F, rtol=1e-10)
    np.testing.assert_allclose(out.columns["p_value"][varying], p, rtol=1e-8)
    assert out.scores[3] == 0 and out.columns["p_value"][3] == 1 and out.ranking[-1] == 3
    classes = np.digitize(y, np.quantile(y, [0.33, 0.66])).astype(np.int32)
    out = _run("f_test", X, classes, response_type="class")
    F, p = f_classif(X[:, varying], classes)
    np.testing.assert_allclose(out.columns["F"][varying], F, rtol=1e-10)
    np.testing.assert_allclose(out.columns["p_value"][varying], p, rtol=1e-8)
    sparse_out = _run("f_test", sparse.csr_matrix(X), classes, response_type="class")
    np.testing.assert_allclose(sparse_out.scores, out.scores, rtol=1e-9)


def test_pearson_equals_r_regression_and_pearsonr_and_ranks_by_absolute_r():
    X, y = _data()
    out = _run("pearson", X, y)
    varying = [0, 1, 2, 4, 5, 6]
    np.testing.assert_allclose(out.columns["r"][varying], r_regression(X[:, varying], y), rtol=1e-10)
    expected_p = [stats.pearsonr(X[:, j], y).pvalue for j in varying]
    np.testing.assert_allclose(out.columns["p_value"][varying], expected_p, rtol=1e-8)
    assert out.columns["r"][1] < 0
    strength = np.abs(r_regression(X[:, varying], y))
    np.testing.assert_array_equal(out.ranking[:6], np.array(varying)[np.argsort(-strength, kind="stable")])
    assert out.ranking[-1] == 3


def test_f_test_and_pearson_are_scale_invariant_where_scikit_learn_overflows():
    X, y = _data()
    big = X.copy()
    big[:, 0] *= 1e200
    np.testing.assert_allclose(_run("f_test", big, y).scores, _run("f_test", X, y).scores, rtol=1e-9)
    np.testing.assert_allclose(_run("pearson", big, y * 1e-200).scores, _run("pearson", X, y).scores, rtol=1e-9)


# ------------------------------------------------------------------ the information methods
@pytest.mark.parametrize("method", ["mim", "mifs", "mifs_u", "mrmr", "jmi", "cmim"])
def test_information_methods_discretise_a_continuous_response_as_the_predictors(method):
    X, y = _data(p=6)
    out = run_method(get_method(method), X, y, 4, get_method(method).defaults(), 1, response_type="continuous")
    codes = information_codes_ref(np.column_stack([X, y]))
    expected = information_selection_ref(np.array(codes[:-1]), np.array(codes[-1]), 4, method)
    assert list(out.ranking) == list(expected[0] if isinstance(expected, tuple) else expected)
    assert any("continuous response discretised by 'mu_sigma'" in note for note in out.notes)


def test_a_continuous_response_with_few_integer_values_is_used_as_it_is():
    X, _ = _data()
    y = np.random.default_rng(3).integers(0, 4, size=120).astype(float)
    as_continuous = _run("mrmr", X, y)
    as_classes = _run("mrmr", X, y.astype(np.int32), response_type="class")
    np.testing.assert_array_equal(as_continuous.ranking, as_classes.ranking)
    np.testing.assert_array_equal(as_continuous.scores, as_classes.scores)


def test_equal_width_discretisation_of_the_response():
    X, y = _data()
    out = _run("mim", X, y, discretization="equal_width", n_bins=5)
    assert any("'equal_width' with n_bins = 5" in note for note in out.notes)


# ------------------------------------------------------------------ the Kraskov estimator
@pytest.mark.parametrize("seed", [0, 1])
def test_knn_mim_equals_mutual_info_regression(seed):
    X, y = _data(seed, n=400)
    X[:, 5] = np.round(X[:, 5])                                 # ties, broken by the noise
    out = _run("mim", X, y, estimator="knn", random_state=seed)
    np.testing.assert_allclose(out.scores, mutual_info_regression(X, y, n_neighbors=3, random_state=seed),
                               rtol=1e-10, atol=1e-13)
    out = _run("mim", X, y, estimator="knn", n_neighbors=5, random_state=seed)
    np.testing.assert_allclose(out.scores, mutual_info_regression(X, y, n_neighbors=5, random_state=seed),
                               rtol=1e-10, atol=1e-13)


def test_knn_mim_with_classes_equals_mutual_info_classif():
    X, y = _data(2, n=300)
    classes = np.digitize(y, np.quantile(y, [0.2, 0.7])).astype(np.int32)
    classes[7] = 3                                             # a class of one sample is left out
    out = _run("mim", X, classes, response_type="class", estimator="knn")
    np.testing.assert_allclose(out.scores, mutual_info_classif(X, classes, n_neighbors=3, random_state=0),
                               rtol=1e-10, atol=1e-13)
    assert out.ranking[-1] == 3


def test_knn_mim_refuses_sparse_input_and_too_many_neighbours():
    X, y = _data()
    with pytest.raises(TypeError, match="estimator='knn' needs a dense X"):
        _run("mim", sparse.csc_matrix(X), y, estimator="knn")
    with pytest.raises(ValueError, match=r"n_neighbors: must be an integer in 1..119"):
        _run("mim", X, y, estimator="knn", n_neighbors=120)


# ------------------------------------------------------------------ RReliefF
@pytest.mark.parametrize("sigma", [None, 4.0])
def test_rrelieff_equals_the_brute_force_reference(sigma):
    X, y = _data(n=50, p=5)
    out = _run("rrelieff", X, y, n_neighbors=6, sigma=sigma)
    weights, n_dc, n_da, n_dc_da = rrelieff_ref(X, y, 6, sigma)
    np.testing.assert_allclose(out.scores, weights, rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(out.columns["N_dA"], n_da, rtol=1e-9)
    np.testing.assert_allclose(out.columns["N_dCdA"], n_dc_da, rtol=1e-9, atol=1e-14)
    assert out.ranking[-1] == 3 and out.ranking[0] == 0


def test_rrelieff_when_no_near_instance_has_another_response():
    """N_dC = 0 (two far clusters, the response constant in each, k within a cluster): Eq. 12 is
    0 / 0; the weights are those of R's CORElearn, which clamps N_dC to a tiny epsilon: -N_dA / m."""
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(0.0, 0.05, size=(20, 3)), rng.normal(10.0, 0.05, size=(20, 3))])
    y = np.repeat([1.0, 2.0], 20)
    out = _run("rrelieff", X, y, n_neighbors=5)
    weights, n_dc, n_da, _ = rrelieff_ref(X, y, 5)
    assert n_dc == 0.0
    np.testing.assert_allclose(out.scores, weights, rtol=1e-6)
    np.testing.assert_allclose(out.scores, -n_da / 40, rtol=1e-12)
    assert any("N_dC = 0" in note for note in out.notes)


def test_rrelieff_on_a_sample_of_instances():
    X, y = _data(n=40, p=5)
    out = get_method("rrelieff").function(X, y, n_neighbors=5, n_iterations=15, random_state=2)
    from fstools.methods.similarity import rrelieff_weights  # the instances drawn, for the reference
    instances = rrelieff_weights(X, y, 5, None, 15, 2).instances
    np.testing.assert_allclose(out.scores, rrelieff_ref(X, y, 5, None, instances)[0], rtol=1e-9, atol=1e-14)


# ------------------------------------------------------------------ HSIC
@pytest.mark.parametrize("estimator", ["unbiased", "biased"])
def test_linear_hsic_of_a_continuous_response_is_the_sum_of_the_contributions(estimator):
    X, y = _data(n=40, p=5)
    out = _run("bahsic", X, y, estimator=estimator)
    Z = standardise_ref(X)
    g = (y - y.mean()) / y.std(ddof=1)
    hsic = unbiased_hsic_ref if estimator == "unbiased" else biased_hsic_ref
    expected = [hsic(np.outer(Z[:, j], Z[:, j]), np.outer(g, g)) for j in range(5)]
    np.testing.assert_allclose(out.scores, expected, rtol=1e-9, atol=1e-14)


@pytest.mark.parametrize("estimator", ["unbiased", "biased"])
@pytest.mark.parametrize("response_type", ["class", "continuous"])
def test_rbf_bahsic_equals_the_literal_elimination(estimator, response_type):
    X, y = _data(n=30, p=7)
    X = X[:, [0, 1, 2, 4, 5, 6]]
    Z = standardise_ref(X)
    if response_type == "class":
        y = np.digitize(y, np.quantile(y, [0.33, 0.66])).astype(np.int32)
        expected = bahsic_ref(Z, y, estimator=estimator, kernel="rbf")
    else:
        expected = bahsic_ref(Z, None, estimator=estimator, kernel="rbf",
                              L=rbf_kernel_ref((y - y.mean()) / y.std(ddof=1)))
    out = _run("bahsic", X, y, response_type=response_type, estimator=estimator, kernel="rbf")
    assert list(out.ranking) == expected


# ------------------------------------------------------------------ every continuous method
@pytest.mark.parametrize("method", [name for name in methods_for_response("continuous")])
def test_continuous_outputs_pickle_and_leave_the_input_unchanged(method):
    X, y = _data(n=60, p=5)
    X_before, y_before = X.copy(), y.copy()
    out = _run(method, X, y)
    assert sorted(out.ranking) == list(range(5))
    assert pickle.loads(pickle.dumps(out)).ranking.tolist() == out.ranking.tolist()
    np.testing.assert_array_equal(X, X_before)
    np.testing.assert_array_equal(y, y_before)


@pytest.mark.parametrize("method", ["f_test", "pearson", "mrmr", "rrelieff", "bahsic"])
def test_a_constant_continuous_response_is_refused(method):
    X, _ = _data()
    with pytest.raises(ValueError, match="y: the continuous response is constant"):
        _run(method, X, np.full(120, 3.0))


def test_sparse_input_gives_the_dense_scores_for_a_continuous_response():
    X, y = _data()
    X[X < 0.3] = 0.0
    for method in ["f_test", "pearson"]:
        np.testing.assert_allclose(_run(method, sparse.csr_matrix(X), y).scores, _run(method, X, y).scores,
                                   rtol=1e-9)


def test_f_test_ranks_an_exact_separation_first():
    X, y = _data()
    classes = (y > np.median(y)).astype(np.int32)
    X[:, 5] = classes * 2.0 - 1.0                               # no within-class variance: F = inf
    out = _run("f_test", X, classes, response_type="class")
    assert np.isinf(out.scores[5]) and out.columns["p_value"][5] == 0
    assert out.ranking[0] == 5 and out.ranking[-1] == 3
    X[:, 6] = 3 * y - 1                                         # on a line with the response
    out = _run("pearson", X, y)
    assert out.columns["r"][6] == pytest.approx(1.0) and out.columns["p_value"][6] == 0
    assert out.ranking[0] == 6


# ------------------------------------------------------------------ the 1-D neighbour kernels
def test_kth_chebyshev_distances_and_counts_equal_brute_force():
    from fstools._ext import _neighbours

    rng = np.random.default_rng(5)
    x = np.sort(np.round(rng.normal(size=200), 1))              # many ties
    y = np.round(rng.normal(size=200), 1)
    distances = np.maximum(np.abs(x[:, None] - x[None, :]), np.abs(y[:, None] - y[None, :]))
    np.fill_diagonal(distances, np.inf)
    for k in (1, 3, 7):
        out = np.empty(200)
        _neighbours.kth_chebyshev_distances(x, y, k, out, 2)
        np.testing.assert_array_equal(out, np.sort(distances, axis=1)[:, k - 1])
    radius = rng.uniform(0, 0.5, size=200)
    values = np.round(rng.normal(size=200), 1)
    counts = np.empty(200, dtype=np.intp)
    _neighbours.count_within(x, values, radius, counts)
    np.testing.assert_array_equal(counts, (np.abs(x[None, :] - values[:, None]) <= radius[:, None]).sum(axis=1))
    with pytest.raises(ValueError, match="x: must be sorted increasingly"):
        _neighbours.kth_chebyshev_distances(x[::-1].copy(), y, 3, out)
    with pytest.raises(ValueError, match=r"k: must lie in 1..199"):
        _neighbours.kth_chebyshev_distances(x, y, 200, out)


def test_knn_estimate_does_not_depend_on_the_threads():
    X, y = _data(n=300)
    one = _run("mim", X, y, estimator="knn").scores
    spec = get_method("mim")
    two = run_method(spec, X, y, None, {**spec.defaults(), "estimator": "knn"}, 2, response_type="continuous").scores
    np.testing.assert_array_equal(one, two)

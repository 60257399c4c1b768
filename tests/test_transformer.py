"""FeatureSelector: the scikit-learn transformer."""
import warnings
from unittest import SkipTest

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import check_estimator

import fstools as fs
from fstools.methods.cmqfs import cmqfs


@pytest.fixture(scope="module")
def wine():
    return fs.datasets.load("wine")


def test_fit_transform_on_dataframe(wine):
    X, y = wine.drop(columns="class"), wine["class"]
    selector = fs.FeatureSelector(method="cmqfs", k=4).fit(X, y)
    expected = cmqfs(X.to_numpy(), y.cat.codes.to_numpy().astype(np.int32), k=4).ranking
    np.testing.assert_array_equal(selector.ranking_, expected)
    mask = np.zeros(X.shape[1], dtype=bool)
    mask[expected] = True
    np.testing.assert_array_equal(selector.get_support(), mask)
    assert list(selector.get_feature_names_out()) == list(X.columns[mask])
    np.testing.assert_array_equal(selector.transform(X), X.to_numpy()[:, mask])


def test_fit_on_numpy_with_string_labels(wine):
    X = wine.drop(columns="class").to_numpy()
    y = wine["class"].astype(str).to_numpy()
    selector = fs.FeatureSelector(k=3).fit(X, y)
    assert selector.transform(X).shape == (178, 3)
    assert list(selector.get_feature_names_out()) == [f"x{j}" for j in np.flatnonzero(selector.get_support())]


def test_same_as_select(wine):
    res = fs.select("class ~ .", wine, method="cmqfs", k=5, beta=0.5)
    selector = fs.FeatureSelector(method="cmqfs", k=5, params={"beta": 0.5}).fit(wine.drop(columns="class"), wine["class"])
    assert list(wine.columns[selector.ranking_]) == res.selected


def test_pipeline_and_grid_search(wine):
    X, y = wine.drop(columns="class"), wine["class"]
    model = make_pipeline(fs.FeatureSelector(method="cmqfs", k=5), KNeighborsClassifier(n_neighbors=1))
    scores = cross_val_score(model, X, y, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.5)
    search = GridSearchCV(model, {"featureselector__params": [{"beta": 0.0}, {"beta": 1.0}],
                                  "featureselector__k": [2, 4]}, cv=3)
    search.fit(X, y)
    assert search.best_params_["featureselector__k"] in (2, 4)


def test_method_params_survive_clone():
    selector = fs.FeatureSelector(method="cmqfs", k=2, params={"beta": 0.7})
    assert selector.get_params()["params"] == {"beta": 0.7}
    copy = clone(selector)
    assert copy.get_params() == selector.get_params()
    copy.set_params(params={"beta": 0.1})
    assert copy.params == {"beta": 0.1} and selector.params == {"beta": 0.7}


def test_constructor_parameters_follow_scikit_learn_rules():
    """Explicit parameters, stored as given: get_params lists exactly them, no method-parameter names."""
    params = {"beta": 0.5}
    selector = fs.FeatureSelector(method="mrmr", k=3, n_jobs=1, params=params)
    step_defaults = {"na_action": "raise", "step_alpha": 0.05, "n_permutations": 999, "random_state": None}
    assert selector.get_params() == {"method": "mrmr", "k": 3, "n_jobs": 1, "params": {"beta": 0.5},
                                     "response_type": None, **step_defaults}
    assert selector.params is params                       # not copied, not validated at construction
    assert fs.FeatureSelector().get_params() == {"method": "cmqfs", "k": 5, "n_jobs": None, "params": None,
                                                 "response_type": None, **step_defaults}
    with pytest.raises(TypeError):
        fs.FeatureSelector(method="mrmr", k=3, beta=0.5)   # method parameters go in params
    with pytest.raises(ValueError, match="Invalid parameter 'beta'"):
        selector.set_params(beta=0.3)


def test_set_params_and_clone_with_params(wine):
    X, y = wine.drop(columns="class"), wine["class"]
    selector = fs.FeatureSelector(method="cmqfs", k=4)
    assert selector.set_params(params={"beta": 0.5}, k=5) is selector
    fitted = selector.fit(X, y)
    expected = fs.select("class ~ .", wine, method="cmqfs", k=5, beta=0.5).selected
    assert list(X.columns[fitted.ranking_]) == expected
    copy = clone(fitted)
    assert copy.get_params() == fitted.get_params() and not hasattr(copy, "ranking_")
    assert copy.params is not fitted.params                # clone copies the dict
    copy.params["beta"] = 0.1
    assert fitted.params == {"beta": 0.5}
    np.testing.assert_array_equal(clone(fitted).fit(X, y).ranking_, fitted.ranking_)


def test_fit_does_not_modify_params(wine):
    params = {"beta": 0.5}
    fs.FeatureSelector(method="cmqfs", k=2, params=params).fit(wine.drop(columns="class"), wine["class"])
    assert params == {"beta": 0.5}                        # defaults of the other parameters not added


def test_grid_search_over_method_parameters(wine):
    X, y = wine.drop(columns="class"), wine["class"]
    model = make_pipeline(fs.FeatureSelector(method="mrmr", k=2), KNeighborsClassifier(n_neighbors=1))
    grid = {"featureselector__params": [{"discretization": "equal_width", "n_bins": 4},
                                        {"discretization": "equal_frequency", "n_bins": 5}, None]}
    search = GridSearchCV(model, grid, cv=3).fit(X, y)
    assert [p["featureselector__params"] for p in search.cv_results_["params"]] == grid["featureselector__params"]
    assert search.best_params_["featureselector__params"] in grid["featureselector__params"]
    best = search.best_estimator_[0]
    expected = fs.FeatureSelector(method="mrmr", k=2, params=search.best_params_["featureselector__params"])
    np.testing.assert_array_equal(best.ranking_, expected.fit(X, y).ranking_)
    search = GridSearchCV(fs.FeatureSelector(method="cmqfs", k=3), {"params": [{"beta": 0.3}, {"beta": 0.5}]},
                          cv=3, scoring=lambda estimator, X, y: -estimator.scores_[estimator.ranking_[-1]])
    assert search.fit(X, y).best_params_["params"] in ({"beta": 0.3}, {"beta": 0.5})


@pytest.mark.parametrize("params, error, pattern", [
    ({"params": {"beta": 1.5}}, ValueError, r"beta: must be a number in \[0, 1\]"),
    ({"params": {"gamma": 2}}, TypeError, "unknown parameter.*gamma.*its parameters are: beta"),
    ({"params": [("beta", 0.5)]}, TypeError, "params: must be a dict"),
    ({"method": "nope"}, ValueError, "method.*allowed values"),
    ({"k": 20}, ValueError, "k: must be in 1..13"),
])
def test_bad_parameters_raise_at_fit(wine, params, error, pattern):
    selector = fs.FeatureSelector(**{"k": 2, **params})   # constructing never raises
    with pytest.raises(error, match=pattern):
        selector.fit(wine.drop(columns="class"), wine["class"])


def test_bad_data_raise_clear_errors():
    X = np.array([[1.0, 2.0], [np.nan, 1.0], [3.0, 0.0], [2.0, 2.0]])
    with pytest.raises(ValueError, match="non-finite.*x0"):
        fs.FeatureSelector(k=1).fit(X, [0, 1, 0, 1])
    with pytest.raises(ValueError, match="only one class"):
        fs.FeatureSelector(k=1).fit(np.ones((4, 2)) * [[1], [2], [3], [4]], [1, 1, 1, 1])
    with pytest.raises(TypeError, match="must be numeric"):
        fs.FeatureSelector(k=1).fit(pd.DataFrame({"a": ["u", "v", "u", "v"]}), [0, 1, 0, 1])


@pytest.mark.parametrize("method", ["cmqfs", "mrmr", "fisher", "relieff"])
def test_scikit_learn_estimator_checks(method):
    """Every applicable check of scikit-learn's estimator suite passes (one method per family)."""
    failures = []
    for estimator, check in check_estimator(fs.FeatureSelector(method=method, k=1), generate_only=True) \
            if _generate_only_supported() else _checks(method):
        try:
            check(estimator)
        except SkipTest:
            continue
        except Exception as error:  # collect every failure for a readable report
            failures.append(f"{getattr(check, 'func', check).__name__}: {error}")
    assert not failures, "\n".join(failures)


def _generate_only_supported():
    import inspect

    return "generate_only" in inspect.signature(check_estimator).parameters


def _checks(method):
    from sklearn.utils.estimator_checks import estimator_checks_generator

    return estimator_checks_generator(fs.FeatureSelector(method=method, k=1), mark="skip")


_MULTICLASS = fs.list_methods().loc[lambda t: t["capabilities"].str.contains("multiclass"), "name"].tolist()


@pytest.mark.parametrize("method", _MULTICLASS)
def test_every_multiclass_method_works_in_a_pipeline(wine, method):
    X, y = wine.drop(columns="class"), wine["class"]
    model = make_pipeline(fs.FeatureSelector(method=method, k=3), KNeighborsClassifier(n_neighbors=1))
    model.fit(X, y)
    selector = model[0]
    res = fs.select("class ~ .", wine, method=method, k=3)
    assert list(selector.get_feature_names_out()) == sorted(res.selected, key=list(X.columns).index)
    assert model.predict(X).shape == (178,)


# ------------------------------------------------------------------ result_
# The reference for result_ is fs.select on the same data: the path every other entry point is
# checked against (the methods against their references, the tables against scipy).
def _same_result(result, expected):
    assert type(result) is type(expected)
    assert result.call == expected.call and result.selected == expected.selected
    pd.testing.assert_frame_equal(result.scores, expected.scores)
    assert str(result.summary()) == str(expected.summary())
    if hasattr(expected, "summary_frame"):
        pd.testing.assert_frame_equal(result.summary_frame(all_features=True),
                                      expected.summary_frame(all_features=True))


def test_result_is_the_result_of_select_on_a_dataframe(wine):
    X, y = wine.drop(columns="class"), wine["class"]
    before = X.copy()
    params = {"discretization": "equal_width", "n_bins": 4}
    selector = fs.FeatureSelector(method="mrmr", k=4, params=params).fit(X, y)
    _same_result(selector.result_, fs.select("class ~ .", wine, method="mrmr", k=4, na_action="raise", **params))
    assert list(X.columns[selector.ranking_]) == selector.result_.selected
    np.testing.assert_array_equal(selector.scores_, selector.result_.scores["score"].loc[list(X.columns)])
    pd.testing.assert_frame_equal(X, before)                   # the user's data are not modified
    assert "class" not in X.columns


def test_result_names_the_columns_of_an_array_x0_x1(wine):
    X = wine.drop(columns="class").to_numpy()
    y = wine["class"].astype(str).to_numpy()
    selector = fs.FeatureSelector(method="cmqfs", k=3).fit(X, y)
    # The Response line states the classes as the user gave them (strings), as select does.
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])]).assign(y=y)
    _same_result(selector.result_, fs.select("y ~ .", frame, method="cmqfs", k=3, na_action="raise"))
    assert selector.result_.selected == [f"x{j}" for j in selector.ranking_]
    assert selector.result_.classes == sorted(set(y))


def test_result_response_name_does_not_clash_with_a_feature(wine):
    X = wine.drop(columns="class").rename(columns={"alcohol": "y"})
    selector = fs.FeatureSelector(method="fisher", k=2).fit(X, wine["class"].to_numpy())
    assert selector.result_.response == "y_" and "y" in selector.result_.scores.index
    named = fs.FeatureSelector(method="fisher", k=2).fit(X, wine["class"].rename("y"))
    assert named.result_.response == "y_"
    assert list(named.result_.scores.index) == list(selector.result_.scores.index)


def test_result_plot_and_pickle(wine):
    import pickle

    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    X, y = wine.drop(columns="class"), wine["class"]
    selector = fs.FeatureSelector(method="cmqfs", k=5).fit(X, y)
    ax = selector.result_.plot(value="relevance")
    assert isinstance(ax, Axes) and len(ax.patches) == X.shape[1]   # one bar per feature (its Q)
    plt.close(ax.figure)
    loaded = pickle.loads(pickle.dumps(selector))
    _same_result(loaded.result_, selector.result_)
    np.testing.assert_array_equal(loaded.transform(X), selector.transform(X))


def test_result_inside_a_pipeline_and_after_grid_search_refit(wine):
    X, y = wine.drop(columns="class"), wine["class"]
    model = make_pipeline(fs.FeatureSelector(method="cmqfs", k=3), KNeighborsClassifier(n_neighbors=1)).fit(X, y)
    _same_result(model.named_steps["featureselector"].result_,
                 fs.select("class ~ .", wine, method="cmqfs", k=3, na_action="raise"))
    search = GridSearchCV(model, {"featureselector__k": [2, 4], "featureselector__params": [{"beta": 0.2}, None]},
                          cv=3).fit(X, y)
    best = search.best_params_
    expected = fs.select("class ~ .", wine, method="cmqfs", k=best["featureselector__k"], na_action="raise",
                         **(best["featureselector__params"] or {}))
    _same_result(search.best_estimator_.named_steps["featureselector"].result_, expected)


def test_clone_drops_the_result(wine):
    selector = fs.FeatureSelector(k=2).fit(wine.drop(columns="class"), wine["class"])
    assert not hasattr(clone(selector), "result_")


def test_result_of_a_sparse_fit_equals_the_dense_one(wine):
    from scipy import sparse

    X, y = wine.drop(columns="class"), wine["class"]
    dense = fs.FeatureSelector(method="chi2", k=4).fit(X.to_numpy(), y)
    on_sparse = fs.FeatureSelector(method="chi2", k=4).fit(sparse.csr_matrix(X.to_numpy()), y)
    assert on_sparse.result_.selected == dense.result_.selected
    pd.testing.assert_frame_equal(on_sparse.result_.scores, dense.result_.scores)
    pd.testing.assert_frame_equal(on_sparse.result_.univariate_tests(), dense.result_.univariate_tests())


def test_result_of_a_multilabel_method():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(80, 6))
    Y = np.column_stack([X[:, 0] + 0.3 * rng.normal(size=80) > 0, X[:, 1] > 0.2]).astype(int)
    selector = fs.FeatureSelector(method="llsf", k=3).fit(X, Y)
    features = pd.DataFrame(X, columns=[f"x{j}" for j in range(6)])
    expected = fs.select("~ .", features, method="llsf", k=3, response=pd.DataFrame(Y, columns=["y0", "y1"]))
    _same_result(selector.result_, expected)
    assert list(selector.classes_) == [0, 1] and selector.result_.labels == ["y0", "y1"]


# ------------------------------------------------------------------ k='auto'
def _three_informative(seed=0, n=300, d=12):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (n, d)).astype(float)
    y = ((X[:, 0] + X[:, 1] + X[:, 2] + rng.integers(0, 2, n)) > 3).astype(int)
    return X, y


@pytest.mark.parametrize("method", ["jmi", "mrmr"])
def test_k_auto_is_select_k_auto_on_the_same_data(method):
    """k='auto' cuts the greedy path by its step tests exactly as fs.select(k='auto') does."""
    X, y = _three_informative()
    selector = fs.FeatureSelector(method=method, k="auto", n_permutations=99, random_state=3).fit(X, y)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])]).assign(y=y)
    expected = fs.select("y ~ .", frame, method=method, k="auto", n_permutations=99, permutation_seed=3,
                         na_action="raise")
    _same_result(selector.result_, expected)
    assert list(selector.ranking_) == [int(name[1:]) for name in expected.selected]
    assert selector.get_support().sum() == len(expected.selected) == selector.transform(X).shape[1]
    # the cut of the planted data keeps the three informative columns
    assert sorted(selector.ranking_) == [0, 1, 2]


def test_k_auto_refused_where_there_is_no_path_and_bad_step_arguments():
    X, y = _three_informative()
    with pytest.raises(ValueError, match=r"^k: k='auto' needs a greedy method.*'fisher'"):
        fs.FeatureSelector(method="fisher", k="auto").fit(X, y)
    with pytest.raises(ValueError, match="step_alpha"):
        fs.FeatureSelector(method="jmi", k="auto", step_alpha=1.5).fit(X, y)
    with pytest.raises((TypeError, ValueError), match="n_permutations"):
        fs.FeatureSelector(method="jmi", k="auto", n_permutations=0).fit(X, y)
    with pytest.raises((TypeError, ValueError), match="random_state"):
        fs.FeatureSelector(method="jmi", k="auto", random_state="seed").fit(X, y)
    with pytest.raises(ValueError, match="'auto'"):
        fs.FeatureSelector(method="jmi", k=None).fit(X, y)


# ------------------------------------------------------------------ na_action
def _with_missing(wine, seed=4):
    rng = np.random.default_rng(seed)
    X = wine.drop(columns="class").to_numpy().copy()
    X[rng.integers(0, len(X), 15), rng.integers(0, X.shape[1], 15)] = np.nan
    y = wine["class"].to_numpy()
    return X, y


@pytest.mark.parametrize("method, na_action", [("mrmr", "drop"), ("mim", "level"), ("jmi", "level"),
                                               ("relieff", "pass"), ("fisher", "drop")])
def test_na_action_is_select_na_action_on_the_same_data(wine, method, na_action):
    X, y = _with_missing(wine)
    selector = fs.FeatureSelector(method=method, k=4, na_action=na_action).fit(X, y)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])]).assign(y=y)
    expected = fs.select("y ~ .", frame, method=method, k=4, na_action=na_action)
    assert selector.result_.call == expected.call and selector.result_.selected == expected.selected
    pd.testing.assert_frame_equal(selector.result_.scores, expected.scores)
    assert selector.result_.n_dropped == expected.n_dropped
    assert selector.result_.notes == expected.notes          # (under 'level': the columns with missing values named)
    assert selector.transform(X).shape == (len(X), 4)        # every row transformed, missing or not


def test_na_action_drop_drops_rows_with_a_missing_label_too(wine):
    X = wine.drop(columns="class").to_numpy()
    y = pd.factorize(wine["class"])[0].astype(float)
    y[[3, 50]] = np.nan
    selector = fs.FeatureSelector(method="fisher", k=3, na_action="drop", response_type="class").fit(X, y)
    complete = fs.FeatureSelector(method="fisher", k=3, response_type="class").fit(np.delete(X, [3, 50], 0),
                                                                                   np.delete(y, [3, 50]))
    np.testing.assert_array_equal(selector.ranking_, complete.ranking_)
    assert selector.result_.n_dropped == 2


def test_na_action_raise_is_the_default_and_bad_values_are_refused(wine):
    X, y = _with_missing(wine)
    with pytest.raises(ValueError, match=r"^X: non-finite values"):
        fs.FeatureSelector(method="fisher", k=3).fit(X, y)
    with pytest.raises(ValueError, match=r"na_action: .*'level'"):
        fs.FeatureSelector(method="fisher", k=3, na_action="level").fit(X, y)   # fisher takes no 'level'
    with pytest.raises(ValueError, match=r"na_action: must be one of"):
        fs.FeatureSelector(method="fisher", k=3, na_action="omit").fit(X, y)
    with pytest.raises(ValueError, match=r"every row has a missing value"):
        fs.FeatureSelector(method="fisher", k=3, na_action="drop").fit(np.full((5, 3), np.nan), [0, 1, 0, 1, 0])


def test_refit_with_a_continuous_response_has_no_classes_and_repeated_names_are_refused(wine):
    X, y = wine.drop(columns="class"), wine["class"]
    selector = fs.FeatureSelector(method="mrmr", k=3).fit(X, y)
    assert hasattr(selector, "classes_")
    selector.set_params(response_type="continuous").fit(X, X["alcohol"].to_numpy() * 1.5)
    assert not hasattr(selector, "classes_")
    repeated = X.set_axis(["a", "a", *X.columns[2:]], axis=1)
    with pytest.raises(ValueError, match=r"^X: column names must be unique .*'a'"):
        fs.FeatureSelector(method="mrmr", k=3).fit(repeated, y)


@pytest.mark.parametrize("method", ["mim", "jmi", "cmqfs", "fisher"])
def test_result_built_when_read_equals_the_eager_one(method):
    """A fit sets ranking_ and scores_ from the method; result_ (its tables) is built when first
    read, also after a pickle round trip, and equals fs.select's on the same data."""
    import pickle

    from sklearn.datasets import load_wine
    X, y = load_wine(return_X_y=True)
    selector = fs.FeatureSelector(method=method, k=4).fit(X, y)
    scores_before = selector.scores_
    copy = pickle.loads(pickle.dumps(selector))
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    frame["y"] = y
    expected = fs.select("y ~ .", frame, method=method, k=4)
    for fitted in (selector, copy):
        assert fitted.result_.selected == expected.selected
        pd.testing.assert_frame_equal(fitted.result_.scores, expected.scores)
        assert list(fitted.ranking_) == [int(name[1:]) for name in expected.selected]
        assert fitted.scores_.tobytes() == scores_before.tobytes()
    assert pickle.loads(pickle.dumps(selector)).result_.selected == expected.selected  # after it was built


@pytest.mark.parametrize("preferred", ["y", "x0", "x4", "x5", "x01", "x-1", "x4_", "X1", "x 1", "x٣", "x1e1"])
def test_response_name_beside_default_column_names(preferred):
    """The response's name among an array's default names x0 .. x4 is found by their form; the
    same name as a search of the list of names gives."""
    from fstools.api.transformer import _free_name
    from fstools.core.arrays import default_column_names

    names = list(default_column_names(5))
    assert _free_name(preferred, names, default_width=5) == _free_name(preferred, names)


# A bool or integer X goes as it is to the methods that read it so (MethodSpec.integer_designs):
# the same fit, result and tests as on the float64 copy of X, and no float64 copy of the design.
INTEGER_DTYPES = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64]


def _binary_and_levels(seed=0, n=240):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = rng.integers(0, 2, (n, 70))
    X[:, :4] = (rng.random((n, 4)) < 0.3) ^ (y[:, None] == 1)   # columns that carry the class
    X[:, 60:] = rng.integers(0, 5, (n, 10)) * (1 + (np.arange(10) % 2))   # few levels, gaps
    X[:, 69] = 1   # constant
    return X, y


@pytest.mark.parametrize("method", ["mim", "mrmr", "jmi", "cmim"])
@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
def test_an_integer_x_is_read_as_it_is_with_the_float_results(method, dtype):
    X, y = _binary_and_levels()
    if dtype is np.bool_:
        X = X[:, :60] != 0   # (bool: the 0/1 columns, the constant one among them)
        X[:, 59] = True
    else:
        X = X.astype(dtype)
    before = X.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the constant column
        fitted = fs.FeatureSelector(method=method, k=6, n_jobs=2).fit(X, y)
        reference = fs.FeatureSelector(method=method, k=6, n_jobs=2).fit(X.astype(np.float64), y)
    np.testing.assert_array_equal(X, before)
    assert fitted.result_._frame.X.dtype == X.dtype   # read as it is, no float64 copy
    np.testing.assert_array_equal(fitted.ranking_, reference.ranking_)
    np.testing.assert_array_equal(fitted.scores_, reference.scores_)
    pd.testing.assert_frame_equal(fitted.result_.scores, reference.result_.scores)
    assert fitted.result_.notes == reference.result_.notes
    assert str(fitted.result_.summary()) == str(reference.result_.summary())   # (the marginal tests too)
    np.testing.assert_array_equal(fitted.transform(X), X[:, np.sort(fitted.ranking_)])  # (column order)


def test_a_dataframe_of_one_integer_dtype_is_read_as_it_is_too():
    X, y = _binary_and_levels(2)
    frame = pd.DataFrame(X[:, :69], columns=[f"c{j}" for j in range(69)])   # int64, as read from a CSV
    fitted = fs.FeatureSelector(method="jmi", k=5).fit(frame, y)
    reference = fs.FeatureSelector(method="jmi", k=5).fit(frame.astype(np.float64), y)
    assert fitted.result_._frame.X.dtype == np.int64
    assert str(fitted.result_.summary()) == str(reference.result_.summary())
    mixed = frame.assign(flag=frame["c0"] > 0)   # bool and int64 columns: read as float64
    assert fs.FeatureSelector(method="jmi", k=5).fit(mixed, y).result_._frame.X.dtype == np.float64


def test_an_integer_x_goes_as_float64_to_the_other_methods_and_to_the_tests():
    X, y = _binary_and_levels(1)
    X = X[:, :69].astype(np.int16)
    fitted = fs.FeatureSelector(method="fisher", k=4).fit(X, y)
    reference = fs.FeatureSelector(method="fisher", k=4).fit(X.astype(np.float64), y)
    assert fitted.result_._frame.X.dtype == np.float64
    np.testing.assert_array_equal(fitted.ranking_, reference.ranking_)
    # a permutation test of an information method on the integer design: the float design's
    mim = fs.FeatureSelector(method="mim", k=4, n_permutations=19, random_state=3).fit(X, y)
    tested = mim.result_.test("permutation", n_permutations=19, random_state=3)
    expected = fs.FeatureSelector(method="mim", k=4).fit(X.astype(np.float64), y).result_.test(
        "permutation", n_permutations=19, random_state=3)
    pd.testing.assert_frame_equal(tested.scores, expected.scores)

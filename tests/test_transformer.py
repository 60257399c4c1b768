"""FeatureSelector: the scikit-learn transformer."""
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
    assert selector.get_params() == {"method": "mrmr", "k": 3, "n_jobs": 1, "params": {"beta": 0.5}}
    assert selector.params is params                       # not copied, not validated at construction
    assert fs.FeatureSelector().get_params() == {"method": "cmqfs", "k": 5, "n_jobs": None, "params": None}
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

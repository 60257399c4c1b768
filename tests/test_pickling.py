"""Whatever a user holds pickles, deep-copies and joblib-dumps, and works after loading."""
import copy
import pickle

import joblib
import matplotlib
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification

import fstools as fs

matplotlib.use("Agg")


def _round_trips(obj, tmp_path):
    """The object after pickle, deepcopy and joblib dump / load."""
    path = tmp_path / "object.joblib"
    joblib.dump(obj, path)
    return {"pickle": pickle.loads(pickle.dumps(obj)), "deepcopy": copy.deepcopy(obj), "joblib": joblib.load(path)}


@pytest.fixture(scope="module")
def wine():
    return fs.datasets.load("wine")


@pytest.fixture(scope="module")
def stream():
    return make_classification(n_samples=600, n_features=12, n_informative=4, weights=[0.85], random_state=3)


def test_selection_result(wine, tmp_path):
    # computed terms with fitted transforms (center) need patsy's objects again after loading
    res = fs.select("class ~ np.log(alcohol) + center(hue) + magnesium + flavanoids + color_intensity", wine,
                    method="mrmr", k=3)
    new = wine.sample(20, random_state=1)
    for how, loaded in _round_trips(res, tmp_path).items():
        assert loaded.selected == res.selected, how
        pd.testing.assert_frame_equal(loaded.scores, res.scores)
        assert str(loaded.summary()) == str(res.summary()), how
        pd.testing.assert_frame_equal(loaded.transform(new), res.transform(new))
        assert loaded.formula == res.formula
        assert loaded.plot() is not None


def test_selection_result_of_a_stream_method(wine, tmp_path):
    data = wine[wine["class"] != "class_2"]
    res = fs.select("class ~ .", data, method="mbpa", k=4)
    for how, loaded in _round_trips(res, tmp_path).items():
        assert loaded.class_mapping == res.class_mapping, how
        pd.testing.assert_frame_equal(loaded.stream_metrics, res.stream_metrics)


def test_multilabel_result(tmp_path):
    X, y = make_classification(n_samples=150, n_features=8, random_state=0)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(8)]).assign(a=y, b=(X[:, 0] > 0).astype(int))
    res = fs.select("a + b ~ .", frame, method="ml_fisher", k=3)
    for how, loaded in _round_trips(res, tmp_path).items():
        assert loaded.selected == res.selected, how
        assert str(loaded.summary()) == str(res.summary()), how
        pd.testing.assert_frame_equal(loaded.transform(frame), res.transform(frame))


def test_comparison_result(wine, tmp_path):
    cmp = fs.compare("class ~ .", wine, methods=["fisher", "mim"], k=[2, 3], cv=2, repeats=1, random_state=0,
                     progress=False)
    for how, loaded in _round_trips(cmp, tmp_path).items():
        pd.testing.assert_frame_equal(loaded.summary_frame(), cmp.summary_frame())
        assert loaded.plot() is not None


def test_stability_result(wine, tmp_path):
    st = fs.stability("class ~ .", wine, method="fisher", k=3, n_bootstrap=4, random_state=0, progress=False)
    for how, loaded in _round_trips(st, tmp_path).items():
        assert str(loaded.summary()) == str(st.summary()), how


def test_feature_selector(stream, tmp_path):
    X, y = stream
    selector = fs.FeatureSelector(method="mrmr", k=3).fit(X, y)
    for how, loaded in _round_trips(selector, tmp_path).items():
        np.testing.assert_array_equal(loaded.transform(X), selector.transform(X))


@pytest.mark.parametrize("method", ["pa", "mbpa", "onpa", "cs"])
def test_online_selector_mid_stream_gives_bitwise_the_same_weights(stream, method, tmp_path):
    X, y = stream
    reference = fs.OnlineSelector(method=method, n_features=4, random_state=0).partial_fit(X[:200], y[:200])
    loaded = _round_trips(reference, tmp_path)
    reference.partial_fit(X[200:], y[200:])
    for how, selector in loaded.items():
        selector.partial_fit(X[200:], y[200:])
        np.testing.assert_array_equal(selector.coef_, reference.coef_, err_msg=how)
        np.testing.assert_array_equal(selector.get_support(), reference.get_support())


def test_mlknn(tmp_path):
    X, y = make_classification(n_samples=120, n_features=6, random_state=0)
    Y = np.c_[y, (X[:, 0] > 0).astype(int)]
    model = fs.MLkNN().fit(X, Y)
    for how, loaded in _round_trips(model, tmp_path).items():
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X), err_msg=how)


def test_select_runs_in_joblib_worker_processes(wine):
    methods = ["fisher", "mim", "cmqfs"]
    results = joblib.Parallel(n_jobs=2, backend="loky")(
        joblib.delayed(fs.select)("class ~ .", wine, method=method, k=3) for method in methods)
    assert [r.selected for r in results] == [fs.select("class ~ .", wine, method=m, k=3).selected for m in methods]

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


@pytest.mark.parametrize("make", [
    lambda data: fs.stability_selection("class ~ .", data, "fisher", q=3, cutoff=0.8, B=3, random_state=0),
    lambda data: fs.knockoff_filter("class ~ .", data, "f_test", fdr=0.3, random_state=0),
    lambda data: fs.boruta("class ~ .", data, "mim", random_state=0),
    lambda data: fs.boruta("class ~ .", data, "mim", random_state=0).rough_fix(),
], ids=["stability_selection", "knockoff_filter", "boruta", "boruta_rough_fix"])
def test_guarantee_results(wine, tmp_path, make):
    result = make(wine)
    for how, loaded in _round_trips(result, tmp_path).items():
        assert str(loaded.summary()) == str(result.summary()), how
        assert loaded.selected == result.selected, how
        assert loaded.plot() is not None


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


# ---------------------------------------------------------------------------
# The scores and steps tables of a result are built when first read
# ---------------------------------------------------------------------------

def _eager_tables(res):
    """The tables as select built them before they were built when read: term_scores and
    steps_table on the method's output, straight from the method layer."""
    from fstools.methods.registry import get_method
    from fstools.model.terms import steps_table, term_scores

    frame = res._frame
    spec = get_method(res.method)
    output = spec.function(np.ascontiguousarray(frame.X), np.asarray(res._y, dtype=np.int32), res.params["k"], 1)
    scores, selected = term_scores(output, spec, frame.column_names, frame.column_terms, res.params["k"])
    return scores, steps_table(output, frame.column_terms, selected), selected


@pytest.mark.parametrize("method", ["mrmr", "mim", "relieff"])
def test_tables_built_when_read(wine, method):
    res = fs.select("class ~ .", wine, method=method, k=4)
    assert "_pending_tables" in res.__dict__  # nothing built yet
    scores, steps, selected = _eager_tables(res)
    assert res.selected == selected
    pd.testing.assert_frame_equal(res.scores, scores)
    assert "_pending_tables" not in res.__dict__
    if steps is None:
        assert res.steps is None
    else:
        pd.testing.assert_frame_equal(res.steps, steps)


@pytest.mark.parametrize("how", ["pickle", "copy", "deepcopy", "setter"])
def test_tables_pending_survive_copies(wine, how, tmp_path):
    res = fs.select("class ~ .", wine, method="jmi", k=3)
    reference = fs.select("class ~ .", wine, method="jmi", k=3)
    expected_scores, expected_steps = reference.scores.copy(), reference.steps.copy()
    if how == "pickle":
        other = pickle.loads(pickle.dumps(res))
    elif how == "copy":
        other = copy.copy(res)
    elif how == "deepcopy":
        other = copy.deepcopy(res)
    else:  # setting a table first builds the other one
        res.scores = expected_scores.iloc[:2]
        pd.testing.assert_frame_equal(res.scores, expected_scores.iloc[:2])
        pd.testing.assert_frame_equal(res.steps, expected_steps)
        return
    pd.testing.assert_frame_equal(other.scores, expected_scores)
    pd.testing.assert_frame_equal(other.steps, expected_steps)
    assert "Selected (3)" in repr(other) and other.summary() is not None


def test_results_pickled_with_plain_tables_still_load(wine):
    # results pickled before the tables were built when read held them as plain attributes
    res = fs.select("class ~ .", wine, method="mrmr", k=3)
    state = res.__getstate__()
    state["scores"], state["steps"] = state.pop("_scores"), state.pop("_steps")
    old = fs.SelectionResult.__new__(fs.SelectionResult)
    old.__setstate__(state)
    pd.testing.assert_frame_equal(old.scores, res.scores)
    pd.testing.assert_frame_equal(old.steps, res.steps)
    assert old.summary() is not None


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "joblib"])
def test_class_counts_built_when_read_survive_copies(wine, how, tmp_path):
    # class_counts is built when first read: before and after a copy, the rows of each class
    res = fs.select("class ~ .", wine, method="mim", k=3)
    assert "class_counts" not in res.__dict__
    expected = wine["class"].value_counts().reindex(res.classes)
    other = _round_trips(res, tmp_path)[how]
    assert other.class_counts.index.tolist() == [str(c) for c in res.classes] == res.classes
    np.testing.assert_array_equal(other.class_counts.to_numpy(), expected.to_numpy())
    assert other.class_counts.name == "n" and other.class_counts.sum() == len(wine)
    # a result pickled when class_counts was a plain attribute keeps its own
    state = res.__getstate__()
    state["class_counts"] = pd.Series([1, 2, 3], index=res.classes, name="n")
    old = fs.SelectionResult.__new__(fs.SelectionResult)
    old.__setstate__(state)
    assert old.class_counts.tolist() == [1, 2, 3]

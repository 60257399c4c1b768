"""fstools.guarantees.forest grows scikit-learn's random forest tree by tree: the same trees, in-bag
rows and impurity importances as ``RandomForest*(random_state=seed).fit(X, y)``, bit for bit, and
fs.boruta gives the same result through it as through scikit-learn's forest."""
import importlib

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

import fstools as fs
from fstools.guarantees.forest import can_fit, fit_forest


def _data(classification, n=120, d=9, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)).astype(np.float32)
    X[:, 3] = np.round(X[:, 3])  # ties
    signal = X[:, 0] - 0.8 * X[:, 1] + 0.3 * rng.standard_normal(n)
    if classification:
        y = np.where(signal > 0.4, "high", np.where(signal < -0.4, "low", "mid")).astype(object)
    else:
        y = signal
    return np.ascontiguousarray(X), y


SETTINGS = [dict(n_estimators=15), dict(n_estimators=12, max_depth=3, max_features="sqrt"),
            dict(n_estimators=10, min_samples_leaf=4, max_features=0.5), dict(n_estimators=8, max_leaf_nodes=6)]


@pytest.mark.parametrize("classification", [True, False])
@pytest.mark.parametrize("settings", SETTINGS)
@pytest.mark.parametrize("seed", [0, 12345])
def test_the_same_forest_as_scikit_learn(classification, settings, seed):
    X, y = _data(classification, seed=seed)
    kind = RandomForestClassifier if classification else RandomForestRegressor
    reference = kind(**settings, random_state=seed, n_jobs=1).fit(X, y)
    params = reference.get_params()
    assert can_fit(params, 1)
    grown = fit_forest(X, y, classification, params, seed)
    assert len(grown.estimators_) == len(reference.estimators_)
    for ours, theirs, in_bag, their_in_bag in zip(grown.estimators_, reference.estimators_,
                                                  grown.estimators_samples_, reference.estimators_samples_):
        assert ours.random_state == theirs.random_state
        np.testing.assert_array_equal(np.sort(in_bag), np.sort(their_in_bag))
        np.testing.assert_array_equal(ours.tree_.feature, theirs.tree_.feature)
        np.testing.assert_array_equal(ours.tree_.threshold, theirs.tree_.threshold)
        np.testing.assert_array_equal(ours.tree_.value, theirs.tree_.value)
        np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    np.testing.assert_array_equal(grown.feature_importances_, reference.feature_importances_)
    if classification:
        np.testing.assert_array_equal(grown.classes_, reference.classes_)


@pytest.mark.parametrize("params, threads, expected", [
    (dict(n_estimators=10), 1, True),
    (dict(n_estimators=10, class_weight="balanced", kind="classifier"), 1, False),
    (dict(n_estimators=10, kind="classifier"), 1, True),
    (dict(n_estimators=10), 2, False),
    (dict(n_estimators=10, max_samples=0.5), 1, False),
    (dict(n_estimators=10, bootstrap=False), 1, False),
    (dict(n_estimators=10, oob_score=True), 1, False),
    (dict(n_estimators=10, warm_start=True), 1, False),
])
def test_grown_only_where_it_is_the_same_forest(params, threads, expected):
    params = dict(params)
    kind = RandomForestClassifier if params.pop("kind", None) == "classifier" else RandomForestRegressor
    assert can_fit(kind(**params).get_params(), threads) is expected


@pytest.mark.parametrize("importance_type", ["impurity", "permutation"])
@pytest.mark.parametrize("response", ["classes", "continuous"])
def test_boruta_equals_the_scikit_learn_forest_run(monkeypatch, importance_type, response):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.standard_normal((150, 8)), columns=[f"x{j}" for j in range(8)])
    signal = frame["x0"] + frame["x1"] + 0.5 * rng.standard_normal(150)
    frame["y"] = np.where(signal > 0, "yes", "no") if response == "classes" else signal
    arguments = dict(importance="random_forest", importance_type=importance_type, n_estimators=30, max_runs=12,
                     random_state=4, n_jobs=1)
    grown = fs.boruta("y ~ .", frame, **arguments)
    monkeypatch.setattr(importlib.import_module("fstools.guarantees.boruta"), "can_fit", lambda params, n_threads: False)
    reference = fs.boruta("y ~ .", frame, **arguments)
    pd.testing.assert_frame_equal(grown.importance_history, reference.importance_history)
    assert grown.decision.equals(reference.decision)

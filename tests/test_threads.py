"""Results do not depend on the number of threads.

For every registered method, ``fs.select(..., n_jobs=1)`` and ``fs.select(..., n_jobs=2)``
give the same selected list and bitwise-identical score columns, and so does
``fs.FeatureSelector(n_jobs=...)``.  The ``parallel_everywhere`` fixture (tests/conftest.py)
lowers the work thresholds of :func:`fstools.core.parallel.threads_for_work` to 0, so the
threaded kernel paths really run on these small data sets.

Data: single-label multiclass methods on wine (178 x 13, 3 classes), streaming methods on a
binary stream, multi-label methods on a 0/1 label matrix.
"""
import numpy as np
import pandas as pd
import pytest

import fstools as fs

K = 4


def _methods():
    table = fs.list_methods()
    # Methods for a continuous response only (pearson, rrelieff) are left out: the data here have classes.
    return [(str(name), str(caps)) for name, caps, responses in zip(table["name"], table["capabilities"],
                                                                    table["responses"]) if responses != "continuous"]


METHODS = _methods()


def _kind(capabilities):
    if "multilabel" in capabilities:
        return "multilabel"
    if "streaming" in capabilities:
        return "streaming"
    return "multiclass"


@pytest.fixture(scope="module")
def wine():
    return fs.datasets.load("wine")


@pytest.fixture(scope="module")
def stream():
    """Binary stream, 300 x 12, imbalanced (about 1 positive in 4), 3 informative columns."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((300, 12))
    signal = X[:, 0] + 0.8 * X[:, 1] - 0.6 * X[:, 2] + 0.3 * rng.standard_normal(300)
    y = np.where(signal > np.quantile(signal, 0.75), "pos", "neg")
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(12)])
    frame["y"] = y
    return frame


@pytest.fixture(scope="module")
def multilabel():
    """120 x 10 features and a 120 x 3 label matrix driven by the first columns."""
    rng = np.random.default_rng(2)
    X = rng.standard_normal((120, 10))
    noise = 0.5 * rng.standard_normal((120, 3))
    labels = (np.column_stack([X[:, 0] + X[:, 1], X[:, 2] - X[:, 0], X[:, 3]]) + noise > 0).astype(int)
    features = pd.DataFrame(X, columns=[f"x{j}" for j in range(10)])
    response = pd.DataFrame(labels, columns=["y1", "y2", "y3"])
    return features, response


def _select(method, kind, n_jobs, wine, stream, multilabel):
    if kind == "multilabel":
        features, response = multilabel
        return fs.select("~ .", features, method=method, k=K, response=response, n_jobs=n_jobs)
    if kind == "streaming":
        return fs.select("y ~ .", stream, method=method, k=K, n_jobs=n_jobs)
    return fs.select("class ~ .", wine, method=method, k=K, n_jobs=n_jobs)


def _assert_frames_bitwise_equal(a, b):
    assert list(a.index) == list(b.index)
    assert list(a.columns) == list(b.columns)
    for column in a.columns:
        left, right = a[column].to_numpy(), b[column].to_numpy()
        if left.dtype.kind == "f" or right.dtype.kind == "f":
            # Bitwise: same bytes, NaN where NaN (no tolerance).
            left = np.ascontiguousarray(left, dtype=np.float64)
            right = np.ascontiguousarray(right, dtype=np.float64)
            assert left.tobytes() == right.tobytes(), f"column {column!r} differs between 1 and 2 threads"
        else:
            assert list(left) == list(right), f"column {column!r} differs between 1 and 2 threads"


@pytest.mark.parametrize("method, capabilities", METHODS, ids=[name for name, _ in METHODS])
def test_select_same_for_one_and_two_threads(method, capabilities, wine, stream, multilabel,
                                             parallel_everywhere):
    kind = _kind(capabilities)
    one = _select(method, kind, 1, wine, stream, multilabel)
    two = _select(method, kind, 2, wine, stream, multilabel)
    assert list(one.selected) == list(two.selected)
    assert len(one.selected) == K
    _assert_frames_bitwise_equal(one.scores, two.scores)
    if getattr(one, "steps", None) is not None:
        _assert_frames_bitwise_equal(one.steps, two.steps)


@pytest.mark.parametrize("method, capabilities", METHODS, ids=[name for name, _ in METHODS])
def test_transformer_same_for_one_and_two_threads(method, capabilities, wine, stream, multilabel,
                                                  parallel_everywhere):
    kind = _kind(capabilities)
    if kind == "multilabel":
        features, response = multilabel
        X, y = features.to_numpy(), response.to_numpy()
    elif kind == "streaming":
        X, y = stream.drop(columns="y").to_numpy(), stream["y"].to_numpy()
    else:
        X, y = wine.drop(columns="class").to_numpy(), wine["class"].to_numpy()
    one = fs.FeatureSelector(method=method, k=K, n_jobs=1).fit(X, y)
    two = fs.FeatureSelector(method=method, k=K, n_jobs=2).fit(X, y)
    assert one.ranking_.tolist() == two.ranking_.tolist()
    assert one.scores_.tobytes() == two.scores_.tobytes()
    assert np.array_equal(one.transform(X), two.transform(X))


def test_every_registered_method_is_covered():
    """A method added to the registry is picked up here automatically (no hand-kept list)."""
    names = [name for name, _ in METHODS]
    assert len(names) == len(set(names)) and len(names) >= 20
    assert {"cmqfs", "mrmr", "fisher", "laplacian", "mim", "elc", "mbpa"} <= set(names)


def test_fixture_really_lowers_the_thresholds(parallel_everywhere):
    from fstools.core import parallel as _parallel

    assert _parallel.threads_for_work(1, 2) == 2
    assert _parallel.threads_for_work(1, 2, greedy_step=True) == 2

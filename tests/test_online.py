"""OnlineSelector, the batch entry fs.select(method='mbpa', ...), fs.evaluate_online and fs.metrics."""
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import sparse
from sklearn.metrics import confusion_matrix, recall_score

import fstools as fs
from fstools.methods.passive_aggressive import OnlineLearner, confusion_counts, counts_metrics
from fstools.methods.registry import get_method

ONLINE = ("mbpa", "onpa", "pa", "pa1", "pa2", "cs")


def _imbalanced(seed=0, n=600, d=12, minority=0.1, informative=(0, 3)):
    """Dense nonnegative rows (as the paper's pixels and word counts: the classifier has no intercept);
    the minority class (-1 in the paper) is larger on the informative columns."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < minority, "rare", "common")
    X = rng.random((n, d))
    for j in informative:
        X[y == "rare", j] += 1.5
    return X, y


def _sparse_stream(n, d, density, minority, seed=0, informative=20):
    """A w8a-like binary CSR stream: per-feature rates, the minority class raises a few of them."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < minority, -1, 1)
    rates = np.clip(rng.gamma(0.5, 1.0, d) / 0.5 * density, 1e-4, 0.5)
    boosted = rng.choice(d, min(informative, d), replace=False)
    nnz_per_row = rng.binomial(d, density, size=n)
    rows, cols = [], []
    weights = rates / rates.sum()
    minority_weights = weights.copy()
    minority_weights[boosted] *= 6.0
    minority_weights /= minority_weights.sum()
    for i in range(n):
        p = minority_weights if y[i] == -1 else weights
        chosen = rng.choice(d, size=max(1, nnz_per_row[i]), replace=False, p=p)
        rows.append(np.full(chosen.shape[0], i))
        cols.append(chosen)
    rows = np.concatenate(rows)
    cols = np.concatenate(cols)
    X = sparse.csr_matrix((np.ones(rows.shape[0]), (rows, cols)), shape=(n, d))
    return X, y, boosted


# ------------------------------------------------------------------ OnlineSelector: basics

def test_partial_fit_returns_self_and_publishes_the_selection():
    X, y = _imbalanced()
    sel = fs.OnlineSelector(method="mbpa", n_features=3)
    assert sel.partial_fit(X, y) is sel
    top = np.lexsort((np.arange(X.shape[1]), -np.abs(sel.weights_)))[:3]
    assert list(sel.selected_features_) == list(top)
    assert sel.coef_.shape == (1, X.shape[1])
    np.testing.assert_array_equal(sel.coef_[0, top], sel.weights_[top])
    assert np.all(np.delete(sel.coef_[0], top) == 0.0)
    assert list(np.flatnonzero(sel.get_support())) == sorted(top)
    np.testing.assert_array_equal(sel.transform(X), X[:, sorted(top)])
    # the informative columns are found
    assert set(sel.selected_features_[:2]) == {0, 3}


def test_decision_function_and_predict_use_the_m_feature_classifier():
    X, y = _imbalanced(1)
    sel = fs.OnlineSelector(method="mbpa", n_features=2).partial_fit(X, y)
    scores = sel.decision_function(X)
    np.testing.assert_allclose(scores, X @ sel.coef_[0])
    expected = np.where(scores >= 0, "common", "rare")
    np.testing.assert_array_equal(sel.predict(X), expected)
    np.testing.assert_array_equal(sel.classes_, ["rare", "common"])    # [label of -1, label of +1]
    assert sel.score(X, y) == np.mean(expected == y)


@pytest.mark.parametrize("method", ONLINE)
def test_chunked_partial_fit_equals_one_call(method):
    # the state carries over: weights, rounds (t % K), class counters, ONPA's memory and random draws
    X, y = _imbalanced(2, n=500, minority=0.3)
    one = fs.OnlineSelector(method=method, n_features=4, K=7, memory=5, random_state=3).partial_fit(X, y)
    chunked = fs.OnlineSelector(method=method, n_features=4, K=7, memory=5, random_state=3)
    for start in range(0, 500, 60):
        chunked.partial_fit(X[start:start + 60], y[start:start + 60])
    np.testing.assert_array_equal(chunked.weights_, one.weights_)
    assert chunked.n_seen_ == one.n_seen_ == 500
    assert chunked.class_counts_ == one.class_counts_ == {"common": int(np.sum(y == "common")),
                                                          "rare": int(np.sum(y == "rare"))}
    assert chunked.memory_size_ == one.memory_size_
    pd.testing.assert_frame_equal(chunked.stream_metrics(), one.stream_metrics())
    np.testing.assert_array_equal(chunked._learner.counters, one._learner.counters)


def test_onpa_memory_is_bounded_and_unbounded_on_request():
    X, y = _imbalanced(3, n=800, minority=0.3)
    n_rare = int(np.sum(y == "rare"))
    bounded = fs.OnlineSelector(method="onpa", n_features=3, memory=10, random_state=0).partial_fit(X, y)
    assert bounded.memory_size_ == 10 < n_rare
    assert bounded._learner.memory_indices.shape[0] == 10
    everything = fs.OnlineSelector(method="onpa", n_features=3, memory=None, random_state=0).partial_fit(X, y)
    assert everything.memory_size_ == n_rare
    # memory=None keeps every negative, in order (nonzero entries of the rows)
    np.testing.assert_array_equal(everything._learner.remembered().toarray(), X[y == "rare"])


def test_random_state_makes_onpa_reproducible():
    X, y = _imbalanced(4, minority=0.3)
    a = fs.OnlineSelector(method="onpa", n_features=3, random_state=7).partial_fit(X, y)
    b = fs.OnlineSelector(method="onpa", n_features=3, random_state=7).partial_fit(X, y)
    c = fs.OnlineSelector(method="onpa", n_features=3, random_state=8).partial_fit(X, y)
    np.testing.assert_array_equal(a.weights_, b.weights_)
    assert not np.array_equal(a.weights_, c.weights_)
    # the methods without random draws ignore it
    d = fs.OnlineSelector(method="mbpa", n_features=3, random_state=1).partial_fit(X, y)
    e = fs.OnlineSelector(method="mbpa", n_features=3, random_state=2).partial_fit(X, y)
    np.testing.assert_array_equal(d.weights_, e.weights_)


def test_fit_starts_afresh():
    X, y = _imbalanced(5)
    sel = fs.OnlineSelector(method="pa1", n_features=3).partial_fit(X, y).partial_fit(X, y)
    assert sel.n_seen_ == 2 * len(y)
    refit = sel.fit(X, y)
    assert refit.n_seen_ == len(y)
    np.testing.assert_array_equal(refit.weights_, fs.OnlineSelector(method="pa1", n_features=3).fit(X, y).weights_)


def test_sklearn_clone_and_params():
    from sklearn.base import clone

    sel = fs.OnlineSelector(method="onpa", n_features=4, beta=2.0, memory=None)
    copy = clone(sel)
    assert copy.get_params() == sel.get_params()
    assert copy.get_params()["beta"] == 2.0 and copy.get_params()["memory"] is None


def test_dataframe_input_keeps_feature_names():
    X, y = _imbalanced(6)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    sel = fs.OnlineSelector(method="mbpa", n_features=2).partial_fit(frame, pd.Series(y))
    assert set(sel.get_feature_names_out()) == {"f0", "f3"}


# ------------------------------------------------------------------ labels

def test_labels_plus_minus_one_majority_is_plus_one():
    X, y = _imbalanced(7)
    codes = np.where(y == "rare", -1, 1)
    sel = fs.OnlineSelector(method="mbpa", n_features=2).partial_fit(X, codes)
    assert sel.class_mapping_ == {1: 1, -1: -1}
    # -1 as the majority: it becomes +1, and the mapping says so
    flipped = fs.OnlineSelector(method="mbpa", n_features=2).partial_fit(X, -codes)
    assert flipped.class_mapping_ == {-1: 1, 1: -1}
    np.testing.assert_array_equal(flipped.weights_, sel.weights_)


def test_labels_zero_one_and_strings():
    X, y = _imbalanced(8)
    zero_one = np.where(y == "rare", 1, 0)          # 1 is the minority here
    sel = fs.OnlineSelector(method="mbpa", n_features=2).partial_fit(X, zero_one)
    assert sel.class_mapping_ == {0: 1, 1: -1}
    strings = fs.OnlineSelector(method="mbpa", n_features=2).partial_fit(X, y)
    assert strings.class_mapping_ == {"common": 1, "rare": -1}
    np.testing.assert_array_equal(sel.weights_, strings.weights_)
    assert set(sel.predict(X)) <= {0, 1}


def test_positive_names_the_plus_one_class():
    X, y = _imbalanced(9)
    sel = fs.OnlineSelector(method="mbpa", n_features=2, positive="rare").partial_fit(X, y)
    assert sel.class_mapping_ == {"rare": 1, "common": -1}
    np.testing.assert_array_equal(sel.classes_, ["common", "rare"])
    with pytest.raises(ValueError, match=r"positive: must be one of the class labels 'common', 'rare'"):
        fs.OnlineSelector(method="mbpa", n_features=2, positive="other").partial_fit(X, y)


def test_tie_in_the_first_batch_gives_plus_one_to_the_label_sorting_last():
    X = np.eye(4)
    sel = fs.OnlineSelector(method="pa", n_features=2).partial_fit(X, [0, 1, 0, 1])
    assert sel.class_mapping_ == {1: 1, 0: -1}
    sel = fs.OnlineSelector(method="pa", n_features=2).partial_fit(X, ["b", "a", "a", "b"])
    assert sel.class_mapping_ == {"b": 1, "a": -1}


def test_first_batch_with_one_class():
    X, y = _imbalanced(10)
    common = y == "common"
    sel = fs.OnlineSelector(method="mbpa", n_features=2).partial_fit(X[common][:50], y[common][:50])
    # the only class of the first batch is its majority: +1; the -1 label is not known yet
    assert sel.class_mapping_ == {"common": 1}
    np.testing.assert_array_equal(sel.classes_, ["common"])
    with pytest.raises(ValueError, match="the label of the -1 class is unknown"):
        sel.predict(X[:3])
    sel.partial_fit(X, y)
    assert sel.class_mapping_ == {"common": 1, "rare": -1}
    assert set(sel.predict(X)) <= {"common", "rare"}
    # classes= names the other label from the start
    named = fs.OnlineSelector(method="mbpa", n_features=2).partial_fit(X[common][:50], y[common][:50],
                                                                        classes=["common", "rare"])
    assert named.class_mapping_ == {"common": 1, "rare": -1}
    # positive= naming the absent label makes the seen one -1
    other = fs.OnlineSelector(method="mbpa", n_features=2, positive="rare").partial_fit(X[common][:50],
                                                                                     y[common][:50])
    assert other.class_mapping_ == {"rare": 1, "common": -1}


def test_more_than_two_classes_is_an_error():
    X = np.random.default_rng(0).normal(size=(30, 3))
    y = np.repeat(["a", "b", "c"], 10)
    with pytest.raises(ValueError, match="OnlineSelector is binary"):
        fs.OnlineSelector(method="mbpa", n_features=2).partial_fit(X, y)
    sel = fs.OnlineSelector(method="mbpa", n_features=2).partial_fit(X[:20], y[:20])
    with pytest.raises(ValueError, match="binary"):
        sel.partial_fit(X[20:], y[20:])
    single = fs.OnlineSelector(method="mbpa", n_features=2).partial_fit(X[:10], y[:10])
    with pytest.raises(ValueError, match="binary"):
        single.partial_fit(X[10:], y[10:])


# ------------------------------------------------------------------ parameters

@pytest.mark.parametrize("params, message", [
    ({"method": "pa3"}, "method: must be one of 'pa', 'pa1', 'pa2', 'mbpa', 'onpa', 'cs'; got 'pa3'"),
    ({"C": -1.0}, "C: must be a finite number > 0"),
    ({"eta": 0}, "eta: must be a finite number > 0"),
    ({"g": -0.1}, "g: must be a finite number >= 0"),
    ({"theta": float("nan")}, r"theta: must be a number > 0 \(inf allowed\)"),
    ({"K": 0}, "K: must be an integer >= 1"),
    ({"K": 2.5}, "K: must be an integer >= 1"),
    ({"truncate": "l1"}, "truncate: must be one of 'gradient', 'topk', 'none'"),
    ({"update": "pa3"}, "update: must be None or one of 'pa', 'pa1', 'pa2'"),
    ({"beta": 0.0}, "beta: must be a finite number > 0"),
    ({"synthesis": "middle"}, "synthesis: must be one of 'extrapolate', 'interpolate'"),
    ({"memory": 0}, "memory: must be None or an integer >= 1"),
    ({"cost_ratio": -2}, "cost_ratio: must be None or a finite number > 0"),
    ({"n_features": 0}, r"n_features: must be an integer in 1..12 \(the number of features of X\)"),
    ({"n_features": 13}, r"n_features: must be an integer in 1..12"),
    ({"prequential": "yes"}, "prequential: must be True or False"),
    ({"random_state": "seed"}, "random_state: must be None, an integer >= 0"),
])
def test_parameter_errors_name_the_parameter_and_the_allowed_values(params, message):
    X, y = _imbalanced(11)
    settings = {"method": "onpa", "n_features": 3, **params}
    with pytest.raises(ValueError, match=message):
        fs.OnlineSelector(**settings).partial_fit(X, y)


def test_input_errors():
    X, y = _imbalanced(12)
    sel = fs.OnlineSelector(method="mbpa", n_features=3)
    with pytest.raises(ValueError, match="y: must be 1-D with one label per row of X"):
        sel.partial_fit(X, y[:-1])
    with pytest.raises(ValueError, match="non-finite"):
        bad = X.copy()
        bad[0, 0] = np.nan
        sel.partial_fit(bad, y)
    sel.partial_fit(X, y)
    with pytest.raises(ValueError, match="X: has 11 features"):
        sel.partial_fit(X[:, :11], y)
    with pytest.raises(Exception, match="not fitted"):
        fs.OnlineSelector(method="mbpa", n_features=3).predict(X)


# ------------------------------------------------------------------ stream (prequential) metrics

def test_stream_metrics_are_test_then_train():
    # the first row is predicted by w = 0: margin 0 -> +1 (the majority).  A -1 first row is a mistake.
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    sel = fs.OnlineSelector(method="pa", n_features=2, g=0.0).partial_fit(X, ["b", "a", "a"])
    # mapping: 'a' (2 rows) -> +1.  Row 1 ('b' = -1): margin 0 -> predicted +1: c = 1.  Row 1's PA step:
    # w = -(1, 0).  Row 2 ('a', x = (0, 1)): margin 0 -> +1, correct (a = 1); w = (-1, 1).  Row 3 ('a',
    # x = (1, 1)): margin 0 -> +1, correct (a = 2).  a, b, c, d = 2, 0, 1, 0.
    metrics = sel.stream_metrics()
    assert metrics.loc["learner", "mistakes"] == 1
    assert metrics.loc["learner", "sensitivity"] == 1.0
    assert metrics.loc["learner", "specificity"] == 0.0
    assert metrics.loc["learner", "g_mean"] == 0.0


def test_stream_metrics_equal_fs_metrics_on_the_recorded_predictions():
    X, y = _imbalanced(13, n=700)
    codes = np.where(y == "rare", -1, 1).astype(np.int32)
    learner = OnlineLearner("mbpa", X.shape[1], 3)
    trace = learner.learn(X, codes, budgets=[3])
    predicted = np.where(trace["budget_margins"][:, 0] >= 0, 1, -1)
    sel = fs.OnlineSelector(method="mbpa", n_features=3).partial_fit(X, y)
    row = sel.stream_metrics().loc["selected"]
    assert row["specificity"] == pytest.approx(fs.metrics.specificity(codes, predicted, pos_label=1))
    assert row["sensitivity"] == pytest.approx(fs.metrics.sensitivity(codes, predicted, pos_label=1))
    assert row["g_mean"] == pytest.approx(fs.metrics.g_mean(codes, predicted))
    assert row["mistake_rate"] == pytest.approx(np.mean(predicted != codes))
    no_tracking = fs.OnlineSelector(method="mbpa", n_features=3, prequential=False).partial_fit(X, y)
    assert list(no_tracking.stream_metrics().index) == ["learner"]
    np.testing.assert_array_equal(no_tracking.weights_, sel.weights_)


def test_m_feature_prediction_equals_restricting_w_to_its_top_m():
    # recompute every prequential prediction from the weights before the row, with numpy
    X, y = _imbalanced(14, n=200, d=8)
    codes = np.where(y == "rare", -1, 1).astype(np.int32)
    learner = OnlineLearner("mbpa", 8, 3, g=0.05, K=3)
    expected = []
    for i in range(len(codes)):
        w = learner.weights.copy()
        if np.count_nonzero(w) > 3:
            keep = np.lexsort((np.arange(8), -np.abs(w)))[:3]
            mask = np.zeros(8, dtype=bool)
            mask[keep] = True
            w = np.where(mask, w, 0.0)
        expected.append(X[i] @ w)
        learner.learn(X, codes, order=[i])
    replay = OnlineLearner("mbpa", 8, 3, g=0.05, K=3).learn(X, codes, budgets=[3])
    np.testing.assert_allclose(replay["budget_margins"][:, 0], expected, rtol=1e-12, atol=1e-15)


def test_mbpa_beats_pa_on_the_minority_class():
    # the paper's claim (section 4.2): the margin-based loss recognises more minority examples
    X, y = _imbalanced(15, n=3000, d=20, minority=0.05, informative=(0, 1, 2))
    for seed in range(3):
        order = np.random.default_rng(seed).permutation(len(y))
        spec = {}
        for method in ("pa", "mbpa"):
            sel = fs.OnlineSelector(method=method, n_features=5).partial_fit(X[order], y[order])
            spec[method] = sel.stream_metrics().loc["selected", "specificity"]
        assert spec["mbpa"] > spec["pa"]


# ------------------------------------------------------------------ sparse input

def test_csr_end_to_end_without_densifying(monkeypatch):
    X, y, _ = _sparse_stream(3000, 400, 0.04, 0.05, seed=1)
    dense_result = fs.OnlineSelector(method="onpa", n_features=20, random_state=0).partial_fit(X.toarray(), y)

    def refuse(*args, **kwargs):
        raise AssertionError("a sparse matrix was densified")

    for cls in (sparse.csr_matrix, sparse.csc_matrix, sparse.coo_matrix):
        monkeypatch.setattr(cls, "toarray", refuse)
        monkeypatch.setattr(cls, "todense", refuse)
    sel = fs.OnlineSelector(method="onpa", n_features=20, random_state=0)
    for start in range(0, 3000, 1000):
        sel.partial_fit(X[start:start + 1000], y[start:start + 1000])
    np.testing.assert_array_equal(sel.weights_, dense_result.weights_)
    scores = sel.decision_function(X)
    np.testing.assert_allclose(scores, X @ sel.coef_[0])
    assert sparse.issparse(sel.transform(X)) and sel.transform(X).shape == (3000, 20)
    # other sparse formats are used as CSR
    csc = fs.OnlineSelector(method="onpa", n_features=20, random_state=0).partial_fit(X.tocsc(), y)
    np.testing.assert_array_equal(csc.weights_, dense_result.weights_)


def test_non_canonical_csr_is_accepted():
    X, y, _ = _sparse_stream(300, 50, 0.1, 0.2, seed=2)
    canonical = fs.OnlineSelector(method="mbpa", n_features=5).partial_fit(X, y)
    messy = X.copy()
    # reverse the indices within each row (unsorted) and split one entry into two duplicates
    for i in range(messy.shape[0]):
        a, b = messy.indptr[i], messy.indptr[i + 1]
        messy.indices[a:b] = messy.indices[a:b][::-1].copy()
        messy.data[a:b] = messy.data[a:b][::-1].copy()
    messy.has_sorted_indices = False
    result = fs.OnlineSelector(method="mbpa", n_features=5).partial_fit(messy, y)
    np.testing.assert_array_equal(result.weights_, canonical.weights_)


@pytest.mark.parametrize("shape, density", [((50_000, 300), 0.04), ((2_000, 20_000), 0.04)])
def test_large_sparse_streams_run(shape, density):
    # the sizes of the issue: a w8a-like 50,000 x 300 stream and a farm-like 2,000 x 20,000 one
    rng = np.random.default_rng(0)
    X = sparse.random(*shape, density=density, format="csr", random_state=rng, data_rvs=lambda k: np.ones(k))
    informative = rng.choice(shape[1], 10, replace=False)
    score = np.asarray(X[:, informative].sum(axis=1)).ravel()
    y = np.where(score >= np.quantile(score, 0.97), -1, 1)
    sel = fs.OnlineSelector(method="mbpa", n_features=30).partial_fit(X, y)
    assert sel.n_seen_ == shape[0]
    assert len(sel.selected_features_) == 30 and np.isfinite(sel.weights_).all()
    metrics = sel.stream_metrics()
    assert metrics.loc["selected", "n"] == shape[0]
    if shape[0] > shape[1]:
        # enough rows to find the columns that make the minority class (the wide stream has 60 minority
        # rows for 20,000 columns: there the point is that it runs)
        assert len(set(sel.selected_features_[:10]) & set(informative)) >= 5


# ------------------------------------------------------------------ batch entry: fs.select

def _frame(seed=16, n=800):
    X, y = _imbalanced(seed, n=n, d=8)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(8)])
    frame["y"] = y
    return frame, X, y


def test_select_streams_the_rows_and_matches_online_selector():
    frame, X, y = _frame()
    res = fs.select("y ~ .", frame, method="mbpa", k=3)
    sel = fs.OnlineSelector(method="mbpa", n_features=3).partial_fit(X, y)
    assert res.selected == [f"x{j}" for j in sel.selected_features_]
    np.testing.assert_allclose(res.scores.loc[res.selected, "weight"], sel.weights_[sel.selected_features_])
    assert res.class_mapping == {"common": 1, "rare": -1}
    pd.testing.assert_frame_equal(res.stream_metrics, sel.stream_metrics())


def test_select_summary_shows_weights_mapping_and_stream_metrics():
    frame, _, _ = _frame()
    res = fs.select("y ~ .", frame, method="mbpa", k=3)
    text = res.summary().as_text()
    assert "weight" in text
    assert "'common' -> +1" in text and "'rare' -> -1" in text
    for word in ("mistake rate", "g-mean", "specificity", "prequential"):
        assert word in text
    shown = res.summary().to_frame()
    assert list(shown["feature"]) == res.selected


def test_select_shuffle_passes_and_positive():
    frame, X, y = _frame(17)
    a = fs.select("y ~ .", frame, method="onpa", k=3, shuffle=True, random_state=5)
    b = fs.select("y ~ .", frame, method="onpa", k=3, shuffle=True, random_state=5)
    assert a.selected == b.selected
    pd.testing.assert_frame_equal(a.scores, b.scores)
    # shuffling = streaming the rows in rng's permutation; ONPA's seed comes from the same generator
    rng = np.random.default_rng(5)
    from fstools.methods.passive_aggressive import seed_from
    learner = OnlineLearner("onpa", 8, 3, seed=seed_from(rng))
    order = rng.permutation(len(y))
    learner.learn(X[order], np.where(y[order] == "common", 1, -1))
    np.testing.assert_array_equal(a.scores.loc[[f"x{j}" for j in range(8)], "weight"], learner.weights)
    # two passes: the second continues the first; the stream metrics are those of the first pass
    two = fs.select("y ~ .", frame, method="mbpa", k=3, passes=2)
    twice = fs.OnlineSelector(method="mbpa", n_features=3).partial_fit(X, y)
    first = twice.stream_metrics()
    twice.partial_fit(X, y)
    np.testing.assert_allclose(two.scores.loc[[f"x{j}" for j in range(8)], "weight"], twice.weights_)
    pd.testing.assert_frame_equal(two.stream_metrics, first)
    flipped = fs.select("y ~ .", frame, method="mbpa", k=3, positive="rare")
    assert flipped.class_mapping == {"rare": 1, "common": -1}


def test_select_errors():
    frame, _, _ = _frame()
    with pytest.raises(ValueError, match="C: must be a finite number > 0 for method 'mbpa'"):
        fs.select("y ~ .", frame, method="mbpa", k=3, C=0)
    with pytest.raises(TypeError, match="unknown parameter"):
        fs.select("y ~ .", frame, method="pa", k=3, beta=2.0)           # beta is ONPA's
    with pytest.raises(ValueError, match="positive: must be one of the class labels"):
        fs.select("y ~ .", frame, method="mbpa", k=3, positive="nope")
    wine = fs.datasets.load("wine")
    with pytest.raises(ValueError, match="online methods are binary"):
        fs.select("class ~ .", wine, method="mbpa", k=3)


def test_registry_entries():
    for name in ONLINE:
        spec = get_method(name)
        assert {"streaming", "sparse", "supervised"} <= set(spec.capabilities)
        assert spec.criterion and spec.reference
        for parameter in spec.parameters:
            assert parameter.description and parameter.allowed
    listing = fs.list_methods().set_index("name")
    assert "streaming" in listing.loc["mbpa", "capabilities"]


def test_method_functions_accept_csr():
    X, y, _ = _sparse_stream(500, 60, 0.1, 0.1, seed=3)
    codes = (y == 1).astype(np.int32)
    out = get_method("mbpa").function(X, codes, 5, 1)
    dense = get_method("mbpa").function(X.toarray(), codes, 5, 1)
    np.testing.assert_array_equal(out.ranking, dense.ranking)
    assert out.class_mapping == {"1": 1, "0": -1}


# ------------------------------------------------------------------ fs.metrics

def test_metrics_by_hand():
    # a = 3 (+1 -> +1), b = 1 (+1 -> -1), c = 1 (-1 -> +1), d = 2 (-1 -> -1)
    y_true = [1, 1, 1, 1, -1, -1, -1]
    y_pred = [1, 1, 1, -1, 1, -1, -1]
    assert fs.metrics.sensitivity(y_true, y_pred) == 3 / 4
    assert fs.metrics.specificity(y_true, y_pred) == 2 / 3
    assert fs.metrics.g_mean(y_true, y_pred) == pytest.approx(np.sqrt(3 / 4 * 2 / 3))
    # strings, pos_label naming the paper's positive (majority)
    t = ["maj", "maj", "min", "min"]
    p = ["maj", "min", "min", "min"]
    assert fs.metrics.specificity(t, p, pos_label="maj") == 1.0
    assert fs.metrics.sensitivity(t, p, pos_label="maj") == 0.5
    assert fs.metrics.g_mean(t, p) == pytest.approx(np.sqrt(0.5))


@pytest.mark.parametrize("seed", range(4))
def test_metrics_against_sklearn(seed):
    rng = np.random.default_rng(seed)
    y_true = rng.choice([-1, 1], size=200, p=[0.2, 0.8])
    y_pred = np.where(rng.random(200) < 0.8, y_true, -y_true)
    tn, fp, fn, tp = confusion_matrix(y_true, y_pred, labels=[-1, 1]).ravel()
    assert fs.metrics.specificity(y_true, y_pred, pos_label=1) == pytest.approx(tn / (tn + fp))
    assert fs.metrics.sensitivity(y_true, y_pred, pos_label=1) == pytest.approx(recall_score(y_true, y_pred))
    recalls = recall_score(y_true, y_pred, average=None, labels=[-1, 1])
    assert fs.metrics.g_mean(y_true, y_pred) == pytest.approx(np.sqrt(recalls.prod()))
    three = rng.choice([0, 1, 2], size=200)
    guess = np.where(rng.random(200) < 0.7, three, rng.choice([0, 1, 2], size=200))
    recalls = recall_score(three, guess, average=None)
    assert fs.metrics.g_mean(three, guess) == pytest.approx(recalls.prod() ** (1 / 3))


def test_metrics_undefined_and_errors():
    assert np.isnan(fs.metrics.specificity([1, 1], [1, -1]))                 # no negatives: 0 / 0
    assert fs.metrics.specificity([1, 1], [1, -1], zero_division=0.0) == 0.0
    assert np.isnan(fs.metrics.g_mean([1, 1], [1, -1]))                      # class -1 never true
    with pytest.raises(ValueError, match="pos_label: 'x' is not a label of y_true or y_pred"):
        fs.metrics.specificity([1, -1], [1, -1], pos_label="x")
    with pytest.raises(ValueError, match="y_pred: has 1 labels but y_true has 2"):
        fs.metrics.g_mean([1, -1], [1])


def test_counts_metrics_match_fs_metrics():
    y_pm = np.array([1, 1, 1, -1, -1, 1, -1])
    margins = np.array([0.5, -1.0, 0.0, -0.2, 0.1, 2.0, -3.0])
    metrics = counts_metrics(confusion_counts(y_pm, margins))
    predicted = np.where(margins >= 0, 1, -1)
    assert metrics["g_mean"] == pytest.approx(fs.metrics.g_mean(y_pm, predicted))
    assert metrics["specificity"] == fs.metrics.specificity(y_pm, predicted)
    assert metrics["mistakes"] == 2


# ------------------------------------------------------------------ fs.evaluate_online

def test_evaluate_online_table_and_runs():
    X, y = _imbalanced(18, n=400, d=10)
    ev = fs.evaluate_online(X, y, budgets=[1, 0.5, 10], n_orders=4, random_state=0)
    assert ev.budgets == [1, 5, 10]
    assert ev.methods == ["pa", "cs", "mbpa", "onpa"]
    assert len(ev.runs) == 4 * 3 * 4
    for (method, budget), part in ev.runs.groupby(["method", "budget"]):
        row = ev.table[(ev.table["method"] == method) & (ev.table["budget"] == budget)].iloc[0]
        assert row["g_mean_mean"] == pytest.approx(part["g_mean"].mean())
        assert row["specificity_sd"] == pytest.approx(np.std(part["specificity"], ddof=1))
        assert row["percent"] == pytest.approx(100 * budget / 10)
    assert ev.class_mapping == {"common": 1, "rare": -1}


def test_evaluate_online_uses_the_same_orders_for_every_method():
    X, y = _imbalanced(19, n=300, d=6)
    ev = fs.evaluate_online(X, y, methods=["mbpa", "pa"], budgets=[3], n_orders=3, random_state=4)
    rng = np.random.default_rng(4)
    from fstools.methods.passive_aggressive import seed_from
    for r in range(3):
        order = rng.permutation(len(y))
        seed_from(rng)
        for method in ("mbpa", "pa"):
            sel = fs.OnlineSelector(method=method, n_features=3).partial_fit(X[order], y[order])
            expected = sel.stream_metrics().loc["selected", "g_mean"]
            got = ev.runs[(ev.runs["method"] == method) & (ev.runs["order"] == r)]["g_mean"].item()
            assert got == pytest.approx(expected)


def test_evaluate_online_threads_holdout_and_topk():
    X, y = _imbalanced(20, n=300, d=8)
    one = fs.evaluate_online(X, y, budgets=[2, 4], n_orders=3, n_jobs=1)
    two = fs.evaluate_online(X, y, budgets=[2, 4], n_orders=3, n_jobs=2)
    pd.testing.assert_frame_equal(one.table, two.table)
    assert set(one.runs["n"]) == {300}                       # prequential: every row scored once
    holdout = fs.evaluate_online(X, y, budgets=[2, 4], n_orders=3, protocol="holdout", test_size=0.25)
    assert holdout.protocol == "holdout"
    n_test = int(round(0.25 * np.sum(y == "rare"))) + int(round(0.25 * np.sum(y == "common")))
    assert set(holdout.runs["n"]) == {n_test}                # a stratified quarter of each class
    assert holdout.runs["sensitivity"].notna().all() and holdout.runs["specificity"].notna().all()
    assert holdout.runs.shape[0] == 4 * 2 * 3
    # truncate='topk' makes the learning depend on the budget: one learner per budget
    topk = fs.evaluate_online(X, y, methods=["pa"], budgets=[2, 4], n_orders=1, truncate="topk",
                              random_state=1)
    order = np.random.default_rng(1).permutation(len(y))
    for M in (2, 4):
        sel = fs.OnlineSelector(method="pa", n_features=M, truncate="topk").partial_fit(X[order], y[order])
        got = topk.runs[topk.runs["budget"] == M]["g_mean"].item()
        assert got == pytest.approx(sel.stream_metrics().loc["selected", "g_mean"])


def test_evaluate_online_default_orders_and_errors():
    import inspect

    assert inspect.signature(fs.evaluate_online).parameters["n_orders"].default == 20
    X, y = _imbalanced(21, n=100, d=5)
    with pytest.raises(ValueError, match="methods: each must be one of"):
        fs.evaluate_online(X, y, methods=["svm"])
    with pytest.raises(ValueError, match=r"budgets: integer budgets must lie in 1..5"):
        fs.evaluate_online(X, y, budgets=[6])
    with pytest.raises(ValueError, match="budgets: must be integers in 1..5 or fractions in"):
        fs.evaluate_online(X, y, budgets=[1.5])
    with pytest.raises(ValueError, match="protocol: must be one of 'prequential', 'holdout'"):
        fs.evaluate_online(X, y, protocol="cv")
    with pytest.raises(TypeError, match="unknown parameter"):
        fs.evaluate_online(X, y, gamma=1.0)
    with pytest.raises(ValueError, match="g: must be a finite number >= 0"):
        fs.evaluate_online(X, y, g=-1.0)


def test_evaluate_online_plot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y = _imbalanced(22, n=200, d=6)
    ev = fs.evaluate_online(X, y, budgets=[1, 3, 6], n_orders=2)
    axes = ev.plot().axes
    assert len(axes) == 2
    assert [ax.get_ylabel() for ax in axes] == ["G-mean (higher is better)", "Specificity (higher is better)"]
    lines = axes[0].get_lines()
    assert [line.get_label() for line in lines] == ["PA", "CS", "MBPA", "ONPA"]
    np.testing.assert_allclose(lines[0].get_xdata(), [100 / 6, 50, 100])
    plt.close("all")
    assert "MBPA" in repr(ev)
    best = ev.best("g_mean")
    assert list(best["budget"]) == [1, 3, 6]


def test_no_warnings_on_a_normal_run():
    X, y = _imbalanced(23)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fs.OnlineSelector(method="onpa", n_features=3, random_state=0).partial_fit(X, y).predict(X)


# ------------------------------------------------------------------ bad batches name what is wrong

def _stream_batches():
    rng = np.random.default_rng(21)
    X = rng.normal(size=(40, 5))
    y = np.where(np.arange(40) % 4 == 0, "minor", "major")
    return X, y


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("form", ["array", "frame", "csr", "csc", "float32"])
@pytest.mark.parametrize("batch", ["first", "later"])
def test_partial_fit_names_the_non_finite_columns(value, form, batch):
    """Like fs.select: the error names the columns (DataFrame names, otherwise column indices)."""
    X, y = _stream_batches()
    bad = X.copy()
    bad[7, 3] = value
    bad[2, 1] = value
    data = {"array": bad, "frame": pd.DataFrame(bad, columns=list("abcde")), "csr": sparse.csr_matrix(bad),
            "csc": sparse.csc_matrix(bad), "float32": bad.astype(np.float32)}[form]
    selector = fs.OnlineSelector("mbpa", n_features=2)
    if batch == "later":
        start = pd.DataFrame(X, columns=list("abcde")) if form == "frame" else X
        selector.partial_fit(start, y)
    before = getattr(selector, "coef_", None)
    before = None if before is None else before.copy()
    shown = r"column\(s\) 'b', 'd'" if form == "frame" else r"the column\(s\) with index 1, 3"
    with pytest.raises(ValueError, match=rf"X: non-finite values \(NaN or inf\) in {shown}; allowed"):
        selector.partial_fit(data, y)
    if before is not None:
        np.testing.assert_array_equal(selector.coef_, before)  # the refused batch left no trace


def test_partial_fit_float32_non_contiguous_and_csr_batches_equal_float64():
    X, y = _stream_batches()

    def two_batches(first, second):
        selector = fs.OnlineSelector("onpa", n_features=2, random_state=0)
        return selector.partial_fit(first, y[:20]).partial_fit(second, y[20:])

    reference = two_batches(X[:20], X[20:])
    wide = np.repeat(X, 2, axis=1)[:, ::2]  # a strided view
    assert not wide.flags.c_contiguous
    for first, second in [(wide[:20], wide[20:]), (np.asfortranarray(X[:20]), sparse.csr_matrix(X[20:])),
                          (sparse.csr_matrix(X[:20]), X[20:])]:
        np.testing.assert_array_equal(two_batches(first, second).coef_, reference.coef_)
    X32 = X.astype(np.float32)
    np.testing.assert_array_equal(two_batches(X32[:20], X32[20:]).coef_,
                                  two_batches(X32[:20].astype(np.float64), X32[20:].astype(np.float64)).coef_)


@pytest.mark.parametrize("form", ["array", "csr", "frame"])
def test_partial_fit_later_batch_with_another_number_of_features(form):
    X, y = _stream_batches()
    selector = fs.OnlineSelector("pa", n_features=2).partial_fit(X[:20], y[:20])
    for width in (4, 6):
        later = np.hstack([X[20:], X[20:, :1]]) if width == 6 else X[20:, :4]
        data = {"array": later, "csr": sparse.csr_matrix(later),
                "frame": pd.DataFrame(later, columns=[f"v{j}" for j in range(width)])}[form]
        with pytest.raises(ValueError, match=rf"X: has {width} features, but OnlineSelector is expecting 5"):
            selector.partial_fit(data, y[20:])
    with pytest.raises(ValueError, match=r"y: must be 1-D with one label per row of X \(20\)"):
        selector.partial_fit(X[20:], y)


@pytest.mark.parametrize("method", ["pa", "onpa", "mbpa"])
def test_overflowing_rows_are_refused_and_partial_fit_keeps_its_state(method):
    """Rows whose ||x||^2 overflows float64: fs.select and partial_fit raise a ValueError naming X, the row and
    'rescale X'; the selector keeps what it learned before that call."""
    X, y = _imbalanced(n=80, d=6)
    huge = np.hstack([X, np.zeros((80, 2))])
    huge[50] = [0.0] * 6 + [1e200, -1e200]           # only columns with weight 0: margin 0, a loss > 0
    values, counts = np.unique(y, return_counts=True)
    y = y.copy()
    y[50] = values[np.argmin(counts)]                # a minority row: MBPA's loss rho - 0 > 0 too
    frame = pd.DataFrame(huge, columns=[f"x{j}" for j in range(8)]).assign(y=y)
    with np.errstate(all="ignore"), pytest.raises(ValueError, match=r"X: row 50 overflows.*rescale X"):
        fs.select("y ~ .", frame, method=method)
    sel = fs.OnlineSelector(method=method, n_features=2).partial_fit(huge[:40], y[:40])
    weights, seen = sel.weights_.copy(), sel.n_seen_
    with np.errstate(all="ignore"), pytest.raises(ValueError, match=r"X: row 10 overflows.*rescale X"):
        sel.partial_fit(huge[40:], y[40:])
    np.testing.assert_array_equal(sel.weights_, weights)
    assert sel.n_seen_ == seen == sel._learner.rounds
    np.testing.assert_array_equal(sel._learner.weights, weights)


# ---------------------------------------------------------------- defaults and the paper preset

def _w8a_like(n_rows, n_features=300, density=0.04, minority=0.03, seed=0):
    """Binary sparse rows with skewed feature rates; the minority (-1) raises 20 of them fourfold."""
    generator = np.random.default_rng(seed)
    labels = np.where(generator.random(n_rows) < minority, -1, 1)
    rates = generator.gamma(0.5, 1.0, n_features)
    rates = np.clip(rates / rates.mean() * density, 5e-4, 0.5)
    chance = np.broadcast_to(rates, (n_rows, n_features)).copy()
    boosted = generator.choice(n_features, 20, replace=False)
    rare = labels == -1
    chance[np.ix_(rare, boosted)] = np.minimum(4.0 * chance[np.ix_(rare, boosted)], 0.9)
    return sparse.csr_matrix((generator.random((n_rows, n_features)) < chance).astype(np.float64)), labels


def _stream_g_mean(method, X, y, **params):
    metrics = fs.evaluate_online(X, y, methods=[method], budgets=[30], n_orders=2, random_state=0, **params)
    row = metrics.table.iloc[0]
    return row["g_mean_mean"], row["specificity_mean"]


def test_defaults_keep_the_minority_and_rank_the_methods_as_the_paper_claims():
    # The defaults study (DEFAULT_GRAVITY, DEFAULT_SYNTHESIS): on a sparse binary stream with 3 %
    # minority the paper's two methods beat both baselines at the defaults, and the earlier
    # gravity 0.01 erases the minority weights of PA (specificity near 0).
    X, y = _w8a_like(5000)
    scores = {method: _stream_g_mean(method, X, y) for method in ("pa", "cs", "mbpa", "onpa")}
    assert min(scores["mbpa"][0], scores["onpa"][0]) > max(scores["pa"][0], scores["cs"][0])
    assert all(specificity > 0.05 for _, specificity in scores.values())
    assert _stream_g_mean("pa", X, y, g=0.01)[1] < 0.1


@pytest.mark.filterwarnings("ignore:data.*constant column:UserWarning")
def test_onpa_paper_preset_is_the_printed_algorithm():
    X, y = _w8a_like(1500, seed=1)
    frame = pd.DataFrame(X.toarray(), columns=[f"x{j}" for j in range(X.shape[1])]).assign(y=y)
    preset = fs.select("y ~ .", frame, method="onpa", k=10, preset="paper")
    literal = fs.select("y ~ .", frame, method="onpa", k=10, synthesis="extrapolate", memory=None)
    default = fs.select("y ~ .", frame, method="onpa", k=10)
    assert preset.params["synthesis"] == "extrapolate" and preset.params["memory"] is None
    pd.testing.assert_frame_equal(preset.scores, literal.scores)
    assert default.params["synthesis"] == "interpolate"
    with pytest.raises(ValueError, match="preset: method 'mbpa' has no presets"):
        fs.select("y ~ .", frame, method="mbpa", k=10, preset="paper")


def test_negative_row_widths_are_the_nonzero_counts_of_the_streamed_negatives(monkeypatch):
    from fstools.methods import passive_aggressive
    monkeypatch.setattr(passive_aggressive, "WIDTH_BLOCK_ROWS", 7)  # several blocks, a partial last one
    rng = np.random.default_rng(3)
    X = rng.standard_normal((40, 9)) * (rng.random((40, 9)) < 0.5)
    y_pm = np.where(rng.random(40) < 0.4, -1, 1).astype(np.int32)
    order = rng.permutation(40)[:25]  # the rows streamed (a part of them)
    widths = passive_aggressive._negative_row_widths(X, y_pm, order)
    negatives = order[y_pm[order] == -1]
    assert widths.max() == np.count_nonzero(X[negatives], axis=1).max()
    assert sorted(widths[1:].tolist()) == sorted(np.count_nonzero(X[negatives], axis=1).tolist())

"""Fisher score, Laplacian score and ReliefF against slow references and hand-computed answers."""
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from references.similarity import fisher_score_ref, heat_kernel_graph_ref, laplacian_score_ref, relieff_ref

import fstools as fs
from fstools.methods.registry import get_method
from fstools.methods.similarity import (fisher, fisher_scores, heat_kernel_graph, knn_graph_arcs, laplacian,
                                        laplacian_scores, relieff, relieff_weights)


def _data(seed, m=40, n=7, n_classes=2, integer=False):
    """Random data with a class signal, a duplicated column, a constant column, and ties."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, m).astype(np.int32)
    y[:n_classes] = np.arange(n_classes)
    if integer:
        # values 0..4 with both ends present: ranges are 4, so ReliefF's scaling is exact and
        # distances tie exactly
        X = rng.integers(0, 5, size=(m, n)).astype(float)
        X[0], X[1] = 0.0, 4.0
        X[:, 0] = np.clip(X[:, 0] + y, 0, 4)
    else:
        X = 0.4 * rng.normal(size=(m, n)) + 0.5 * y[:, None] * (rng.random(n) < 0.5)
        X[:, 0] = np.round(X[:, 0], 1)          # ties within a column
    X[:, 2] = X[:, 1]                            # duplicated column
    X[:, 4] = 3.0                                # constant column
    return X, y


@pytest.fixture(scope="module")
def wine():
    return fs.datasets.load("wine")


# ---------------------------------------------------------------- Fisher

@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("integer", [False, True])
def test_fisher_equals_reference(seed, n_classes, integer):
    X, y = _data(seed, n_classes=n_classes, integer=integer)
    expected = fisher_score_ref(X, y)
    out = fisher(X, y)
    np.testing.assert_allclose(out.scores, expected, rtol=1e-10, atol=1e-14)
    assert out.scores[4] == 0.0                               # constant: 0/0 := 0
    within = out.columns["within_variance"]
    np.testing.assert_allclose(out.columns["between_variance"][within > 0] / within[within > 0],
                               out.scores[within > 0], rtol=1e-12)
    # ranking: by decreasing score, ties to the lower index, the constant column last
    order = sorted(range(X.shape[1]), key=lambda j: (j == 4, -expected[j], j))
    assert list(out.ranking) == order


def test_fisher_between_plus_within_is_the_population_variance():
    X, y = _data(3, n_classes=3)
    _, between, within = fisher_scores(X, y)
    np.testing.assert_allclose(between + within, X.var(axis=0), atol=1e-12)


@pytest.mark.parametrize("n_classes", [2, 3, 4])
def test_fisher_and_anova_f(n_classes):
    # One-way ANOVA: F = [SSB / (K - 1)] / [SSW / (n - K)], and SSB / SSW is the Fisher score with
    # population variances (n_k sigma_k^2 = within-class sum of squares), so F = F_r (n - K) / (K - 1).
    from sklearn.feature_selection import f_classif

    X, y = _data(7, m=60, n_classes=n_classes)
    keep = [j for j in range(X.shape[1]) if j != 4]              # f_classif gives NaN on constants
    f_statistic, _ = f_classif(X[:, keep], y)
    n = X.shape[0]
    np.testing.assert_allclose(fisher(X, y).scores[keep] * (n - n_classes) / (n_classes - 1), f_statistic,
                               rtol=1e-10)


def test_fisher_constant_and_perfectly_separating_columns():
    y = np.array([0, 0, 0, 1, 1], dtype=np.int32)
    X = np.array([[5.0, 0.1, 1.0],
                  [5.0, 0.1, 2.0],
                  [5.0, 0.1, 3.0],
                  [5.0, 0.7, 2.0],
                  [5.0, 0.7, 5.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")                           # no RuntimeWarning from 0/0
        out = fisher(X, y)
    assert out.scores[0] == 0.0
    assert out.scores[1] == math.inf                             # zero within-class variance
    # column 2: class means 2 and 3.5, mean 2.6; between = 3 (0.6)^2 + 2 (0.9)^2 = 2.7;
    # within = 3 (2/3) + 2 (2.25) = 6.5
    assert out.scores[2] == pytest.approx(2.7 / 6.5)
    assert list(out.ranking) == [1, 2, 0]
    assert any("constant" in note for note in out.notes)
    assert any("separating the classes perfectly" in note for note in out.notes)


def test_fisher_needs_two_classes():
    with pytest.raises(ValueError, match="two classes"):
        fisher(np.ones((4, 2)), np.zeros(4, dtype=np.int32))


# ---------------------------------------------------------------- Laplacian

def test_knn_arcs_tie_to_the_lower_index():
    # sample 0 at 0 has samples 1 (at -1) and 2 (at +1) at the same distance: 1 wins
    X = np.array([[0.0], [-1.0], [1.0], [5.0]])
    source, target, squared = knn_graph_arcs(X, n_neighbors=1)
    assert list(source) == [0, 1, 2, 3]
    assert list(target) == [1, 0, 0, 2]
    assert list(squared) == [1.0, 1.0, 1.0, 16.0]
    source, target, _ = knn_graph_arcs(X, n_neighbors=2)
    assert list(target.reshape(4, 2)[0]) == [1, 2]
    assert list(target.reshape(4, 2)[3]) == [2, 0]               # 5-1 = 4 < 5-(-1) = 6


def test_heat_kernel_graph_by_hand():
    # points 0, 1, 3, 7 on a line, k = 1: arcs 0->1, 1->0, 2->1, 3->2; union: edges 0-1, 1-2, 2-3
    X = np.array([[0.0], [1.0], [3.0], [7.0]])
    S = heat_kernel_graph(X, n_neighbors=1, t=2.0).toarray()
    a, b, c = math.exp(-1 / 2), math.exp(-4 / 2), math.exp(-16 / 2)
    expected = np.array([[0, a, 0, 0],
                         [a, 0, b, 0],
                         [0, b, 0, c],
                         [0, 0, c, 0]])
    np.testing.assert_allclose(S, expected, rtol=1e-15)
    np.testing.assert_allclose(S, heat_kernel_graph_ref(X, 1, 2.0), rtol=1e-15)


def test_laplacian_score_by_hand():
    # x = 0, 1, 3 with k = 1, t = 1: edges 0-1 (w a = e^-1) and 1-2 (w b = e^-4).
    # f^T L f = a (0-1)^2 + b (1-3)^2 = a + 4b; 1^T D 1 = 2a + 2b; f^T D 1 = (a + b) + 3b;
    # f~^T D f~ = f^T D f - (f^T D 1)^2 / 1^T D 1 = (a + b) + 9b - (a + 4b)^2 / (2a + 2b).
    X = np.array([[0.0, 2.0], [1.0, 2.0], [3.0, 2.0]])
    a, b = math.exp(-1.0), math.exp(-4.0)
    expected = (a + 4 * b) / ((a + 10 * b) - (a + 4 * b) ** 2 / (2 * a + 2 * b))
    # the graph is built on both columns, but the constant one adds nothing to the distances
    scores, _, _, _ = laplacian_scores(X, n_neighbors=1, t=1.0)
    assert scores[0] == pytest.approx(expected, rel=1e-12)
    assert math.isnan(scores[1])                                 # constant: 0/0 undefined


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("integer", [False, True])
@pytest.mark.parametrize("n_neighbors, t", [(5, 1.0), (3, 0.5), (8, 4.0)])
def test_laplacian_equals_reference(seed, integer, n_neighbors, t):
    X, y = _data(seed, m=35, integer=integer)
    if integer:
        X = X / 2.0                                              # keep exp(-d^2 / t) well above 0
    expected = laplacian_score_ref(X, n_neighbors, t)
    out = laplacian(X, y, n_neighbors=n_neighbors, t=t)
    finite = np.isfinite(expected)
    assert list(finite) == list(np.isfinite(out.scores))
    np.testing.assert_allclose(out.scores[finite], expected[finite], rtol=1e-9)
    np.testing.assert_allclose(out.columns["variation"][finite] / out.columns["variance"][finite],
                               out.scores[finite], rtol=1e-12)
    assert out.columns["variation"][4] == out.columns["variance"][4] == 0.0
    assert np.isnan(out.scores[4])                              # constant: 0/0 undefined
    order = sorted(range(X.shape[1]), key=lambda j: (j == 4, expected[j], j))
    assert list(out.ranking) == order                          # ascending, constant last


def test_laplacian_graph_equals_reference():
    X, _ = _data(2, m=30, integer=True)
    np.testing.assert_allclose(heat_kernel_graph(X, 4, 3.0).toarray(), heat_kernel_graph_ref(X, 4, 3.0),
                               rtol=1e-15)


def test_laplacian_survives_underflow_of_the_heat_kernel():
    # Scaling x by c and t by c^2 leaves every weight, hence every score, unchanged; with
    # c = 100 exp(-d^2 / t) alone would underflow to 0 on every edge (0/0 everywhere).
    X, _ = _data(5, m=40)
    scores, _, _, _ = laplacian_scores(X, 5, 1.0)
    scaled, _, _, _ = laplacian_scores(100.0 * X, 5, 1.0 * 100.0 ** 2)
    np.testing.assert_allclose(scaled, scores, rtol=1e-9)
    big, _, _, n_zero = laplacian_scores(100.0 * X, 5, 1.0)
    assert np.isfinite(big[[0, 1, 2, 3, 5, 6]]).all()
    assert n_zero > 0


def test_laplacian_caps_the_neighbours_at_the_other_samples():
    X, y = _data(1, m=6)
    out = laplacian(X, y, n_neighbors=10, t=1.0)
    np.testing.assert_allclose(out.scores[np.isfinite(out.scores)],
                               laplacian_score_ref(X, 5, 1.0)[np.isfinite(out.scores)], rtol=1e-9)
    assert any("n_neighbors" in note for note in out.notes)


# ---------------------------------------------------------------- ReliefF

def test_relieff_by_hand_two_classes():
    # scaled feature 1: 0, .25, .75, 1; feature 2 (range 1): 0, 1, 0, 1.  Distances:
    # d01 = 1.25, d02 = .75, d03 = 2, d12 = 1.5, d13 = .75, d23 = 1.25.  With k = 1 every
    # instance's hit differs by (.25, 1) and its miss by (.75, 0): W = (.5, -1).
    X = np.array([[0.0, 0.0], [1.0, 1.0], [3.0, 0.0], [4.0, 1.0]])
    y = np.array([0, 0, 1, 1], dtype=np.int32)
    weights, near_hit, near_miss, instances = relieff_weights(X, y, n_neighbors=1)
    np.testing.assert_allclose(weights, [0.5, -1.0])
    np.testing.assert_allclose(near_hit, [0.25, 1.0])
    np.testing.assert_allclose(near_miss, [0.75, 0.0])
    assert list(instances) == [0, 1, 2, 3]


def test_relieff_by_hand_priors_and_a_singleton_class():
    # x = 0, 1, 2, 4 (scaled 0, .25, .5, 1), classes 0, 0, 1, 2; priors .5, .25, .25; k = 1.
    # instance 0: -.25 + (.25/.5) .5 + (.25/.5) 1 = .5;  instance 1: -.25 + .5 .25 + .5 .75 = .25;
    # instance 2 (alone in its class: no hit): (.5/.75) .25 + (.25/.75) .5 = 1/3;
    # instance 3 (alone): (.5/.75) .75 + (.25/.75) .5 = 2/3.  W = 1.75 / 4.
    X = np.array([[0.0], [1.0], [2.0], [4.0]])
    y = np.array([0, 0, 1, 2], dtype=np.int32)
    weights, near_hit, near_miss, _ = relieff_weights(X, y, n_neighbors=1)
    assert weights[0] == pytest.approx(1.75 / 4)
    assert near_hit[0] == pytest.approx(0.5 / 4)
    assert near_miss[0] == pytest.approx(2.25 / 4)


def test_relieff_ties_go_to_the_lower_index():
    # scaled points 0:(0,0) 1:(.5,0) 2:(0,.5) class 0 and 3:(1,1) class 1, k = 1.  Instance 0 has
    # hits 1 and 2 at distance .5, instance 3 misses 1 and 2 at 1.5: the lower index (1) wins,
    # giving W = (2, 3) / 4; the higher index would give (3, 2) / 4.
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    y = np.array([0, 0, 0, 1], dtype=np.int32)
    weights, _, _, _ = relieff_weights(X, y, n_neighbors=1)
    np.testing.assert_allclose(weights, [0.5, 0.75])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("integer", [False, True])
def test_relieff_equals_reference(seed, n_classes, integer):
    X, y = _data(seed, m=45, n_classes=n_classes, integer=integer)
    y[-3:] = n_classes                                           # a class of 3 < k + 1 members
    for n_neighbors in (1, 4, 10):
        expected, hit, miss = relieff_ref(X, y, n_neighbors)
        out = relieff(X, y, n_neighbors=n_neighbors)
        np.testing.assert_allclose(out.scores, expected, rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(out.columns["near_hit"], hit, rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(out.columns["near_miss"], miss, rtol=1e-10, atol=1e-13)
        assert out.scores[4] == 0.0
        assert out.ranking[-1] == 4                              # constant column last
    assert any("at most n_neighbors" in note for note in out.notes)


@pytest.mark.parametrize("n_iterations", [None, 70])
def test_relieff_in_chunks_equals_one_pass_and_the_reference(monkeypatch, n_iterations):
    """Neighbour lists over a memory budget: instances in chunks of whole kernel blocks, same weights bit
    for bit; empty class codes (gaps in y) do not change anything either."""
    from fstools.methods import similarity
    X, y = _data(5, m=90, n_classes=4)
    y = np.where(y == 3, 9, y).astype(np.int32)                  # codes 3..8 are empty
    one_pass = relieff_weights(X, y, 4, n_iterations=n_iterations)
    monkeypatch.setattr(similarity, "RELIEFF_NEIGHBOUR_MEMORY", 1)  # one kernel block at a time
    chunked = relieff_weights(X, y, 4, n_iterations=n_iterations)
    for a, b in zip(one_pass, chunked):
        np.testing.assert_array_equal(a, b)
    expected = relieff_ref(X, y, 4, one_pass[3])
    for a, b in zip(chunked[:3], expected):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-13)


def test_relieff_many_singleton_classes_in_bounded_memory():
    """One class per sample: no hits, every other sample a miss; lists chunked within the budget."""
    X = np.random.default_rng(2).normal(size=(60, 3))
    y = np.arange(60, dtype=np.int32)
    expected = relieff_ref(X, y, 10)
    out = relieff(X, y)
    np.testing.assert_allclose(out.scores, expected[0], rtol=1e-10, atol=1e-13)
    assert not out.columns["near_hit"].any()


def test_relieff_too_many_classes_is_refused(monkeypatch):
    from fstools.methods import similarity
    X = np.random.default_rng(2).normal(size=(60, 3))
    monkeypatch.setattr(similarity, "RELIEFF_MISS_WEIGHT_MEMORY", 8 * 59 * 59)
    relieff(X, np.arange(60) % 59)                               # 59 classes fit
    with pytest.raises(ValueError, match=r"y: 60 classes.*GB"):
        relieff(X, np.arange(60))


@pytest.mark.parametrize("factor", [2.0 ** 1020, 2.0 ** -1040])
def test_relieff_range_does_not_overflow(factor):
    """Integers -9..9 times 2**1020 span about -1.6e308..1.6e308 (max - min overflows): the weights are those
    of the unscaled data (scaling by a power of two is exact), which are the reference's; subnormals too."""
    X, y = _data(6, m=40, n_classes=3)
    X[:, 0] = np.clip(np.arange(40) % 19 - 9.0 + y, -9, 9)     # -9..9, both ends present
    scaled = X.copy()
    scaled[:, 0] *= factor
    with np.errstate(over="ignore"):
        assert factor < 1 or not np.isfinite(scaled[:, 0].max() - scaled[:, 0].min())
    out = relieff(scaled, y, n_neighbors=5)
    np.testing.assert_array_equal(out.scores, relieff(X, y, n_neighbors=5).scores)
    np.testing.assert_allclose(out.scores, relieff_ref(X, y, 5)[0], rtol=1e-10, atol=1e-13)


def test_relieff_sampled_instances():
    X, y = _data(3, m=50, n_classes=3)
    out = relieff_weights(X, y, 5, n_iterations=20, random_state=7)
    again = relieff_weights(X, y, 5, n_iterations=20, random_state=7)
    other = relieff_weights(X, y, 5, n_iterations=20, random_state=8)
    instances = out[3]
    assert len(instances) == 20 == len(set(instances.tolist()))
    np.testing.assert_array_equal(out[0], again[0])
    assert not np.array_equal(instances, other[3])
    np.testing.assert_allclose(out[0], relieff_ref(X, y, 5, instances)[0], rtol=1e-10, atol=1e-13)
    # all instances drawn = the deterministic default
    np.testing.assert_allclose(relieff_weights(X, y, 5, n_iterations=50)[0], relieff_weights(X, y, 5)[0],
                               rtol=1e-12)
    with pytest.raises(ValueError, match="n_iterations"):
        relieff_weights(X, y, 5, n_iterations=51)


def test_relieff_ranks_informative_features_first():
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=300, n_features=20, n_informative=4, n_redundant=0,
                               n_repeated=0, shuffle=False, class_sep=1.5, random_state=0)
    out = relieff(X, y.astype(np.int32))
    assert set(out.ranking[:4]) == {0, 1, 2, 3}
    X3, y3 = make_classification(n_samples=300, n_features=20, n_informative=4, n_redundant=0,
                                 n_repeated=0, n_classes=3, shuffle=False, class_sep=1.5, random_state=1)
    assert set(relieff(X3, y3.astype(np.int32)).ranking[:4]) == {0, 1, 2, 3}


# ---------------------------------------------------------------- kernel

@pytest.mark.parametrize("seed", range(6))
def test_all_pairs_search_equals_the_per_query_search(seed):
    # The symmetric all-pairs search (each distance once, per-thread lists merged) must give
    # the per-query search's neighbours exactly, ties included, for any thread count.
    from fstools._ext import _neighbours as kernel

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    n_classes = int(rng.integers(1, 4))
    k = int(rng.integers(1, 12))
    X = rng.integers(0, 3, size=(n, 3)).astype(float) if seed % 2 else rng.normal(size=(n, 5))
    labels = rng.integers(0, n_classes, n).astype(np.int32)
    features = np.ascontiguousarray(X.T)
    for metric in (kernel.METRIC_SQEUCLIDEAN, kernel.METRIC_MANHATTAN):
        expected = [np.zeros((n, n_classes, k), np.intp), np.zeros((n, n_classes, k)),
                    np.zeros((n, n_classes), np.intp)]
        kernel.class_neighbours(features, labels, n_classes, np.arange(n, dtype=np.intp), k, metric,
                                *expected, 1)
        # brute force for the counts and a spot check of the tie rule
        for i in range(min(n, 5)):
            for c in range(n_classes):
                d = [(np.sum((X[i] - X[j]) ** 2) if metric == kernel.METRIC_SQEUCLIDEAN
                      else np.sum(np.abs(X[i] - X[j])), j) for j in range(n) if j != i and labels[j] == c]
                assert [j for _, j in sorted(d)[:k]] == list(expected[0][i, c, :expected[2][i, c]])
        valid = np.arange(k)[None, None, :] < expected[2][:, :, None]
        for n_threads in (1, 2, 3):
            got = [np.zeros((n, n_classes, k), np.intp), np.zeros((n, n_classes, k)),
                   np.zeros((n, n_classes), np.intp)]
            kernel.all_class_neighbours(features, labels, n_classes, k, metric, *got, n_threads)
            np.testing.assert_array_equal(got[2], expected[2])
            np.testing.assert_array_equal(got[0][valid], expected[0][valid])
            np.testing.assert_array_equal(got[1][valid], expected[1][valid])


def test_methods_give_the_same_result_without_the_all_pairs_search(monkeypatch):
    from fstools.methods import similarity

    X, y = _data(6, m=150, n=12, n_classes=3, integer=True)
    before = (laplacian(X, y).scores, relieff(X, y).scores)
    monkeypatch.setattr(similarity, "ALL_PAIRS_MEMORY", 0)
    np.testing.assert_array_equal(laplacian(X, y).scores, before[0])
    np.testing.assert_array_equal(relieff(X, y).scores, before[1])


# ---------------------------------------------------------------- threads

def test_threads_do_not_change_the_results():
    X, y = _data(4, m=400, n=30, n_classes=3)                 # above the one-thread threshold
    for method, params in ((laplacian, {}), (relieff, {"n_neighbors": 7})):
        one = method(X, y, n_threads=1, **params)
        two = method(X, y, n_threads=2, **params)
        three = method(X, y, n_threads=3, **params)
        np.testing.assert_array_equal(one.scores, two.scores)
        np.testing.assert_array_equal(one.scores, three.scores)
        np.testing.assert_array_equal(one.ranking, two.ranking)


# ---------------------------------------------------------------- through the API

@pytest.mark.parametrize("method, extra", [("fisher", ["fisher", "between_variance", "within_variance"]),
                                           ("laplacian", ["laplacian", "variation", "variance"]),
                                           ("relieff", ["relieff", "near_hit", "near_miss"])])
def test_select_on_wine(wine, method, extra):
    res = fs.select("class ~ .", wine, method=method, k=5)
    X = wine.drop(columns="class").to_numpy(dtype=float)
    y = wine["class"].cat.codes.to_numpy().astype(np.int32)
    names = list(wine.columns[:-1])
    out = get_method(method).function(X, y, 5, 1, **get_method(method).defaults())
    assert res.selected == [names[j] for j in out.ranking[:5]]
    scores = res.scores
    assert list(scores.index[:5]) == res.selected
    assert list(scores["rank"]) == list(range(1, 14))
    for column in ["score"] + extra:
        assert column in scores.columns
    values = scores["score"].to_numpy()
    if method == "laplacian":
        assert np.all(np.diff(values) >= 0)                     # lower is better: ascending
    else:
        assert np.all(np.diff(values) <= 0)
    text = str(res.summary(details=True))
    assert get_method(method).criterion.split()[0] in text
    assert ("lower is better" in text) == (method == "laplacian")
    assert res.formula == "class ~ " + " + ".join(res.selected)


def test_select_fisher_matches_the_reference_on_wine(wine):
    res = fs.select("class ~ .", wine, method="fisher", k=3)
    X = wine.drop(columns="class").to_numpy(dtype=float)
    expected = fisher_score_ref(X, wine["class"].cat.codes.to_numpy())
    np.testing.assert_allclose(res.scores.loc[list(wine.columns[:-1]), "score"], expected, rtol=1e-10)
    # the classic wine ranking by ANOVA F: flavanoids, proline, od280/od315
    assert res.selected == ["flavanoids", "proline", "od280_od315_of_diluted_wines"]


def test_select_ranks_a_constant_column_last(wine):
    data = wine.copy()
    data.insert(0, "aaa_constant", 1.0)
    for method in ("fisher", "laplacian", "relieff"):
        with pytest.warns(UserWarning, match="constant"):
            res = fs.select("class ~ .", data, method=method)
        assert res.selected[-1] == "aaa_constant"


def test_plot_with_a_constant_column(wine):
    data = wine.copy()
    data["constant"] = 2.0
    with pytest.warns(UserWarning, match="constant"):
        res = fs.select("class ~ .", data, method="laplacian", k=3)
    assert np.isnan(res.scores.loc["constant", "score"])
    assert "NA" in str(res.summary(all_features=True))
    low, high = res.plot().get_ylim()
    assert 0 < high < 10                                         # the undefined score does not blow the axis


def test_feature_selector(wine):
    X = wine.drop(columns="class")
    y = wine["class"]
    selector = fs.FeatureSelector(method="relieff", k=5, params={"n_neighbors": 10}).fit(X, y)
    res = fs.select("class ~ .", wine, method="relieff", k=5)
    assert list(selector.get_feature_names_out()) == sorted(res.selected, key=list(X.columns).index)
    assert fs.FeatureSelector(method="laplacian", k=3).fit_transform(X, y).shape == (178, 3)


def test_registry_entries():
    table = fs.list_methods().set_index("name")
    assert "supervised" not in table.loc["laplacian", "capabilities"]
    assert "supervised" in table.loc["relieff", "capabilities"]
    assert get_method("laplacian").higher_is_better is False
    assert get_method("laplacian").defaults() == {"n_neighbors": 5, "t": 1.0}
    assert get_method("relieff").defaults() == {"n_neighbors": 10, "n_iterations": None, "random_state": 0}
    for name in ("fisher", "laplacian", "relieff"):
        spec = get_method(name)
        assert spec.criterion and spec.reference and "greedy" not in spec.capabilities


@pytest.mark.parametrize("method, params, name", [
    ("laplacian", {"n_neighbors": 0}, "n_neighbors"),
    ("laplacian", {"n_neighbors": 2.5}, "n_neighbors"),
    ("laplacian", {"n_neighbors": True}, "n_neighbors"),
    ("laplacian", {"t": 0}, "t"),
    ("laplacian", {"t": -1.0}, "t"),
    ("laplacian", {"t": float("inf")}, "t"),
    ("laplacian", {"t": "1"}, "t"),
    ("relieff", {"n_neighbors": 0}, "n_neighbors"),
    ("relieff", {"n_iterations": 0}, "n_iterations"),
    ("relieff", {"n_iterations": 1000}, "n_iterations"),
    ("relieff", {"random_state": -1}, "random_state"),
])
def test_parameter_errors_name_the_parameter(wine, method, params, name):
    with pytest.raises(ValueError, match=rf"^{name}: .*(allowed|must be)"):
        fs.select("class ~ .", wine, method=method, k=3, **params)


def test_fisher_has_no_parameters(wine):
    with pytest.raises(TypeError, match="unknown parameter"):
        fs.select("class ~ .", wine, method="fisher", k=3, n_neighbors=5)


def test_user_data_not_modified(wine):
    before = wine.copy(deep=True)
    for method in ("fisher", "laplacian", "relieff"):
        fs.select("class ~ .", wine, method=method, k=2)
    pd.testing.assert_frame_equal(wine, before)

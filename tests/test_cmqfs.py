"""CMQFS end to end (method layer) against the slow reference of Table 2."""
import numpy as np
import pytest
from references.cmqfs import cmqfs_ref, modularity_ref

from fstools.methods.cmqfs import cmqfs, min_max_normalise


def _data(seed, m=40, n=8, n_classes=2, decimals=1):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, m).astype(np.int32)
    y[:n_classes] = np.arange(n_classes)  # every class present
    X = rng.normal(size=(m, n)) + 0.8 * y[:, None] * (rng.random(n) < 0.5)
    return np.round(X, decimals), y


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n_classes", [2, 3])
def test_ranking_equals_reference(seed, n_classes):
    X, y = _data(seed, n_classes=n_classes)
    X[:, 3] = X[:, 1]          # a duplicated column
    X[:, 5] = 2.0              # a constant column
    expected = cmqfs_ref(X, y, k=6)
    out = cmqfs(X, y, k=6)
    assert list(out.ranking) == expected


def test_scores_columns_and_steps():
    X, y = _data(1, m=30, n=5)
    out = cmqfs(X, y, k=3, beta=0.3)
    q_expected = np.array([modularity_ref(X[:, j], y) for j in range(5)])
    np.testing.assert_allclose(out.columns["Q"], q_expected, atol=1e-12)
    np.testing.assert_allclose(out.columns["NQ"], (q_expected - q_expected.min()) / np.ptp(q_expected))
    assert np.isnan(out.columns["w"][out.ranking[0]])            # step 1 takes max NQ alone
    assert out.columns["NQ"][out.ranking[0]] == 1.0
    for step, j in enumerate(out.ranking, start=1):
        assert out.columns["step"][j] == step
    # w = beta NQ + (1 - beta) NRI at every later step (Eq. 13)
    for j in out.ranking[1:]:
        assert out.columns["w"][j] == pytest.approx(0.3 * out.columns["NQ"][j] + 0.7 * out.columns["NRI"][j])
    unselected = np.setdiff1d(np.arange(5), out.ranking)
    assert np.all(np.isnan(out.columns["step"][unselected]))


def test_beta_one_is_relevance_ranking():
    X, y = _data(2, m=50, n=7)
    out = cmqfs(X, y, k=7, beta=1.0)
    q = out.columns["Q"]
    assert list(out.ranking) == list(np.argsort(-q, kind="stable"))


def test_threads_do_not_change_the_result(parallel_everywhere):
    X, y = _data(3, m=200, n=30, n_classes=3)
    one = cmqfs(X, y, k=10, n_threads=1)
    two = cmqfs(X, y, k=10, n_threads=2)
    np.testing.assert_array_equal(one.ranking, two.ranking)
    np.testing.assert_array_equal(one.columns["w"], two.columns["w"])


def test_min_max_normalise_rules():
    np.testing.assert_array_equal(min_max_normalise([2.0, 4.0, 3.0]), [0.0, 1.0, 0.5])
    np.testing.assert_array_equal(min_max_normalise([3.0, 3.0]), [0.0, 0.0])     # max == min
    np.testing.assert_array_equal(min_max_normalise([np.nan, 1.0, 2.0]), [0.0, 0.0, 1.0])


def test_finds_informative_features_of_madelon_style_data():
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=600, n_features=40, n_informative=5, n_redundant=0,
                               shuffle=False, random_state=0, class_sep=1.5)
    out = cmqfs(X, y.astype(np.int32), k=5)
    assert len(set(out.ranking) & set(range(5))) >= 4


def test_one_class_is_an_error():
    X, _ = _data(0)
    with pytest.raises(ValueError, match="at least two classes"):
        cmqfs(X, np.zeros(X.shape[0], dtype=np.int32), k=2)

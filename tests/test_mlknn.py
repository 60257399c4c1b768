"""ML-kNN (Zhang & Zhou 2007): a hand-computed example, the loop reference, scikit-learn conventions."""
import numpy as np
import pytest
from references.multilabel import mlknn_ref
from sklearn.base import clone

from fstools.evaluation.metrics import ranking_loss
from fstools.evaluation.mlknn import MLkNN


def test_hand_computed_example():
    # 1-D training set 0, 1, 10, 11 with labels 1, 1, 0, 0; k = 1, s = 1.
    # Leave-one-out neighbours 0<->1, 10<->11: counts C = 1, 1, 0, 0.
    # P(H1) = (1 + 2) / (2 + 4) = 1/2; kappa_true = [0, 2], kappa_false = [2, 0];
    # P(E_c | H1) = (1 + kappa_true[c]) / (1 * 2 + 2) = [1/4, 3/4]; P(E_c | H0) = [3/4, 1/4].
    X = np.array([[0.0], [1.0], [10.0], [11.0]])
    Y = np.array([[1], [1], [0], [0]])
    model = MLkNN(n_neighbors=1).fit(X, Y)
    np.testing.assert_allclose(model.prior_, [0.5])
    np.testing.assert_allclose(model.cond_true_, [[0.25, 0.75]])
    np.testing.assert_allclose(model.cond_false_, [[0.75, 0.25]])
    # 0.4: nearest 0 (label 1) -> c = 1 -> posterior 3/4; 10.6: nearest 11 -> c = 0 -> 1/4;
    # 5.5: training 1 and 10 both at 4.5 -> the lower index (1, label 1) -> 3/4
    test = np.array([[0.4], [10.6], [5.5]])
    np.testing.assert_allclose(model.predict_proba(test), [[0.75], [0.25], [0.75]])
    np.testing.assert_array_equal(model.predict(test), [[1], [0], [1]])
    np.testing.assert_array_equal(model.kneighbors(test), [[0], [3], [1]])


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("integer", [False, True])
def test_equals_loop_reference(seed, integer):
    rng = np.random.default_rng(seed)
    if integer:           # many exact distance ties
        X = rng.integers(0, 3, size=(60, 3)).astype(float)
    else:
        X = rng.normal(size=(60, 4))
    Y = np.column_stack([X[:, 0] > X[:, 0].mean(), X[:, 1] + rng.normal(size=60) > 0,
                         rng.random(60) < 0.2]).astype(int)
    train, test = slice(0, 45), slice(45, 60)
    for k in (1, 5, 10):
        posteriors, predictions = mlknn_ref(X[train], Y[train], X[test], k=k, s=1.0)
        model = MLkNN(n_neighbors=k).fit(X[train], Y[train])
        np.testing.assert_allclose(model.predict_proba(X[test]), posteriors, rtol=1e-12)
        np.testing.assert_array_equal(model.predict(X[test]), predictions)


def test_smoothing_and_predict_threshold():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(50, 3))
    Y = (rng.random((50, 2)) < 0.5).astype(int)
    model = MLkNN(n_neighbors=4, smoothing=0.5).fit(X[:40], Y[:40])
    posteriors, predictions = mlknn_ref(X[:40], Y[:40], X[40:], k=4, s=0.5)
    np.testing.assert_allclose(model.predict_proba(X[40:]), posteriors, rtol=1e-12)
    np.testing.assert_array_equal(model.predict(X[40:]), (posteriors >= 0.5).astype(int))


def test_informative_features_rank_labels_better_than_noise():
    rng = np.random.default_rng(0)
    informative = rng.normal(size=(300, 3))
    Y = (informative + 0.3 * rng.normal(size=(300, 3)) > 0).astype(int)
    noise = rng.normal(size=(300, 3))
    good = MLkNN().fit(informative[:200], Y[:200]).predict_proba(informative[200:])
    bad = MLkNN().fit(noise[:200], Y[:200]).predict_proba(noise[200:])
    assert ranking_loss(Y[200:], good) < 0.5 * ranking_loss(Y[200:], bad)


def test_scikit_learn_conventions_and_errors():
    model = MLkNN(n_neighbors=3, smoothing=2.0)
    assert clone(model).get_params() == {"n_neighbors": 3, "smoothing": 2.0, "n_jobs": None}
    X = np.arange(20.0).reshape(10, 2)
    Y = np.tile([[0, 1], [1, 0]], (5, 1))
    with pytest.raises(ValueError, match="n_neighbors: must be an integer >= 1"):
        MLkNN(n_neighbors=0).fit(X, Y)
    with pytest.raises(ValueError, match="smoothing: must be a finite number > 0"):
        MLkNN(smoothing=0).fit(X, Y)
    with pytest.raises(ValueError, match="Y: must hold only 0 and 1"):
        MLkNN().fit(X, Y * 2)
    with pytest.raises(ValueError, match="Y: must be a 0/1 label matrix with one row per sample"):
        MLkNN().fit(X, Y[:5])
    fitted = MLkNN(n_neighbors=20).fit(X, Y)           # k capped at n - 1
    assert fitted.n_neighbors_ == 9
    with pytest.raises(ValueError, match="X: has 3 features but the model was fitted with 2"):
        fitted.predict(np.ones((2, 3)))
    assert fitted.predict(X).shape == (10, 2)

"""ML-MIFS (Jian, Li, Shu & Liu 2016) and CMFS (Braytee, Liu, Catchpoole & Kennedy 2017).

Each is checked against a literal NumPy transcription of its updates (tests/references/multilabel.py:
dense inverses, the V step of ML-MIFS as one Kronecker-form linear system, the multiplicative updates
of CMFS entry by entry), their graphs against loops over all pairs, the objective for monotone
decrease, and the ranking on planted multi-label data.
"""
import pickle

import numpy as np
import pandas as pd
import pytest
from references.multilabel import cmfs_ref, knn_heat_graph_ref, ml_mifs_ref, same_labels_graph_ref

import fstools as fs
import fstools.methods.multilabel_baselines as baselines
from fstools.methods.multilabel_baselines import (cmfs, cmfs_fit, cmfs_graph, minmax_columns, mifs_graph, ml_mifs,
                                                  ml_mifs_fit)
from fstools.methods.multilabel import standardize_features
from fstools.methods.registry import get_method


def planted(seed=0, n=150, d=14, informative=(0, 1, 2, 3)):
    """Four labels; feature j of ``informative`` shifted by 1.5 where label j is on; the rest noise."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, 4)) < 0.4).astype(np.int64)
    Y[0], Y[1] = 1, 0
    X = rng.normal(size=(n, d))
    for label, column in enumerate(informative):
        X[:, column] += 1.5 * Y[:, label]
    return X, Y


def small(seed=0, n=40, d=7):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, 3)) < 0.5).astype(np.int64)
    Y[0], Y[1] = 1, 0
    X = np.round(rng.normal(size=(n, d)) + 0.8 * Y[:, [0]], 1)
    X[:, 2] = X[:, 1]                   # a duplicate
    X[:, 5] = 3.0                       # a constant
    return X, Y


def row_norms(W, X):
    norms = np.sqrt(np.sum(W * W, axis=1))
    norms[np.ptp(X, axis=0) == 0] = 0.0
    return norms


# ------------------------------------------------------------------ independent references


@pytest.mark.parametrize("seed", range(3))
def test_ml_mifs_equals_the_literal_block_updates(seed):
    X, Y = small(seed)
    W, objectives = ml_mifs_ref(X, Y, alpha=0.5, beta=2.0, gamma=0.3, n_iterations=20)
    out = ml_mifs(X, Y, alpha=0.5, beta=2.0, gamma=0.3, max_iter=20, tol=0.0)
    np.testing.assert_allclose(out.scores, row_norms(W, X), rtol=1e-9, atol=1e-12 * row_norms(W, X).max())
    np.testing.assert_allclose(out.iterations["objective"], objectives, rtol=1e-10)


def test_ml_mifs_sparse_and_wide_paths_equal_the_reference(monkeypatch):
    """The sparse-LU V step (many samples) and the d > n form of the W step give the same W."""
    X, Y = small(1, n=30, d=45)
    W, objectives = ml_mifs_ref(X, Y, n_iterations=10)
    monkeypatch.setattr(baselines, "DENSE_GRAPH_LIMIT", 0)
    fitted, _, _, history, _ = ml_mifs_fit(X, Y, max_iter=10, tol=0.0)
    np.testing.assert_allclose(row_norms(fitted, X), row_norms(W, X), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(history["objective"], objectives, rtol=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_cmfs_equals_the_literal_multiplicative_updates(seed):
    X, Y = small(seed)
    W, objectives = cmfs_ref(X, Y, alpha=2.0, beta=0.5, gamma=0.1, latent_dim=3, n_iterations=25, random_state=seed)
    out = cmfs(X, Y, alpha=2.0, beta=0.5, gamma=0.1, latent_dim=3, max_iter=25, tol=0.0, random_state=seed)
    np.testing.assert_allclose(out.scores, row_norms(W, X), rtol=1e-9, atol=1e-12 * row_norms(W, X).max())
    np.testing.assert_allclose(out.iterations["objective"], objectives, rtol=1e-10)


def test_graphs_equal_the_pairwise_loops():
    X, Y = small(2, n=25)
    Z, _ = standardize_features(X)
    K, L = mifs_graph(Z, n_neighbors=4)
    np.testing.assert_allclose(K.toarray(), knn_heat_graph_ref(Z, 4), rtol=1e-12, atol=0)
    np.testing.assert_allclose(L.toarray(), np.diag(K.toarray().sum(axis=1)) - K.toarray(), atol=1e-15)
    Z = minmax_columns(X)
    K, degree = cmfs_graph(Z, Y)
    reference = same_labels_graph_ref(Z, Y)
    np.testing.assert_allclose(K.toarray(), reference, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(degree, reference.sum(axis=1), rtol=1e-12)


# ------------------------------------------------------------------ monotone decrease, planted data


@pytest.mark.parametrize("method", ["ml_mifs", "cmfs"])
@pytest.mark.parametrize("seed", range(3))
def test_objective_never_increases(method, seed):
    X, Y = planted(seed)
    spec = get_method(method)
    for params in ({}, {"alpha": 10.0, "beta": 0.01, "gamma": 0.1}, {"alpha": 0.01, "beta": 10.0, "gamma": 10.0}):
        out = spec.function(X, Y, None, 1, **{**spec.defaults(), **params, "max_iter": 60, "tol": 0.0})
        objective = out.iterations["objective"]
        assert objective.size == 60
        steps = np.diff(objective)
        assert np.all(steps <= 1e-10 * np.abs(objective[:-1])), (method, params, steps.max())


@pytest.mark.parametrize("method", ["ml_mifs", "cmfs"])
@pytest.mark.parametrize("seed", range(3))
def test_planted_features_rank_first(method, seed):
    X, Y = planted(seed, informative=(3, 7, 8, 12))
    spec = get_method(method)
    out = spec.function(X, Y, None, 1, **spec.defaults())
    assert set(int(j) for j in out.ranking[:4]) == {3, 7, 8, 12}, out.ranking


def test_stopping_rule_and_iterations_recorded():
    X, Y = planted(0)
    out = ml_mifs(X, Y, tol=1e-3)
    objective = out.iterations["objective"]
    assert 1 <= objective.size < 100
    assert abs(objective[-1] - objective[-2]) <= 1e-3 * abs(objective[-2])
    assert np.array_equal(out.iterations["iteration"], np.arange(1, objective.size + 1))
    assert "converged" in out.notes[0]


# ------------------------------------------------------------------ determinism, constants, errors


@pytest.mark.parametrize("function", [ml_mifs, cmfs])
def test_deterministic_for_a_seed(function):
    X, Y = planted(1)
    first, second = function(X, Y, max_iter=20), function(X, Y, max_iter=20)
    np.testing.assert_array_equal(first.scores, second.scores)
    np.testing.assert_array_equal(first.ranking, second.ranking)


def test_cmfs_seed_is_the_uniform_start():
    X, Y = small(0)
    W, _, _, _, _ = cmfs_fit(X, Y, max_iter=1, tol=0.0, random_state=7)
    W_ref, _ = cmfs_ref(X, Y, n_iterations=1, random_state=7)
    np.testing.assert_allclose(W, W_ref, rtol=1e-12)
    other, _, _, _, _ = cmfs_fit(X, Y, max_iter=1, tol=0.0, random_state=8)
    assert not np.allclose(W, other)


@pytest.mark.parametrize("function", [ml_mifs, cmfs])
def test_constant_column_scores_zero_and_ranks_last(function):
    X, Y = small(0)
    out = function(X, Y, max_iter=10)
    assert out.scores[5] == 0.0
    assert int(out.ranking[-1]) == 5
    assert any("constant" in note for note in out.notes)


def test_bad_arguments_are_named():
    X, Y = small(0)
    with pytest.raises(ValueError, match="latent_dim: must be None or an integer from 1 to the number of labels"):
        ml_mifs(X, Y, latent_dim=4)
    with pytest.raises(ValueError, match="latent_dim: ML-MIFS clusters the label vectors into c = 3 groups"):
        ml_mifs(X, np.tile([[1, 0, 1], [0, 1, 0]], (20, 1)), latent_dim=3)
    with pytest.raises(ValueError, match="gamma"):
        cmfs(X, Y, gamma=0)
    with pytest.raises(ValueError, match="random_state"):
        cmfs(X, Y, random_state=-1)
    with pytest.raises(ValueError, match="label 1: a label column must hold two values"):
        cmfs(X, np.column_stack([Y[:, 0], np.arange(len(Y)) % 3]))


def test_select_leaves_the_frame_alone_and_pickles():
    X, Y = planted(2, n=80, d=6)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    for j in range(Y.shape[1]):
        frame[f"y{j + 1}"] = Y[:, j]
    before = frame.copy()
    for method in ("ml_mifs", "cmfs"):
        result = fs.select("y1 + y2 + y3 + y4 ~ .", frame, method=method, k=3, max_iter=30)
        pd.testing.assert_frame_equal(frame, before)
        again = pickle.loads(pickle.dumps(result))
        assert list(again.selected) == list(result.selected)
        assert len(result.iterations["objective"]) == 30

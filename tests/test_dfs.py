"""DFS (Tao et al. 2016): Algorithm 1 against a slow reference, Theorem 1, the d >> n solver,
gamma by cross-validation, the convergence records and plot, parameters; RED (Eq. 34)."""
import math
import tracemalloc

import matplotlib
import numpy as np
import pandas as pd
import pytest
from references.discriminant import dfs_ref, redundancy_rate_ref, scatter_matrices_ref, standardise_ref

import fstools as fs
from fstools.methods import discriminant
from fstools.methods.discriminant import GAMMA_GRID, dfs, dfs_fit, gamma_cv
from fstools.methods.registry import get_method

matplotlib.use("Agg")


def _data(seed, n=40, d=12, n_classes=3, signal=0.8):
    """Random data with a class signal on about 40% of the columns."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n).astype(np.int32)
    y[:n_classes] = np.arange(n_classes)
    X = rng.normal(size=(n, d)) + signal * y[:, None] * (rng.random(d) < 0.4)
    return X, y


def _wide(seed, n=30, d=400, n_classes=3):
    """d >> n: a few informative columns among many noise columns."""
    rng = np.random.default_rng(seed)
    y = (np.arange(n) % n_classes).astype(np.int32)
    X = rng.normal(size=(n, d))
    X[:, :6] += 1.5 * rng.normal(size=(n_classes, 6))[y]
    return X, y


@pytest.fixture(scope="module")
def wine():
    return fs.datasets.load("wine")


# ---------------------------------------------------------------- Algorithm 1 against the reference

@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("p", [0.5, 1.0, 1.5])
@pytest.mark.parametrize("solver", ["dense", "lanczos"])
def test_dfs_equals_reference(seed, p, solver):
    X, y = _data(seed, n_classes=2 + seed % 2)
    X[:, 3] = 7.0                                               # a constant column
    expected = dfs_ref(X, y, gamma=0.5, p=p, alpha=0.3, zeta=1e-10, n_iterations=6)
    fit = dfs_fit(X, y, gamma=0.5, p=p, alpha=0.3, zeta=1e-10, max_iter=6, tol=0.0, solver=solver)
    assert fit.solver == solver
    np.testing.assert_allclose(fit.iterations["objective"], expected["objective"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(fit.iterations["divergence"][1:], expected["divergence"][1:], rtol=1e-6, atol=1e-10)
    assert math.isnan(fit.iterations["divergence"][0])
    scale = np.max(expected["row_norms"][-1])
    np.testing.assert_allclose(fit.row_norms, expected["row_norms"][-1], rtol=0, atol=1e-8 * scale)
    np.testing.assert_allclose(fit.eigenvalues, expected["eigenvalues"][-1], rtol=1e-8, atol=1e-10)
    assert fit.row_norms[3] == 0.0 and fit.constant[3]
    assert fit.n_components == len(set(y.tolist())) - 1          # l = c - 1


def test_lanczos_on_a_wide_problem_equals_reference():
    X, y = _wide(1, n=24, d=90)
    expected = dfs_ref(X, y, gamma=1.0, p=1.0, alpha=1.0, zeta=1e-12, n_iterations=5)
    fit = dfs_fit(X, y, gamma=1.0, p=1.0, max_iter=5, tol=0.0, solver="lanczos")
    np.testing.assert_allclose(fit.iterations["objective"], expected["objective"], rtol=1e-9)
    scale = np.max(expected["row_norms"][-1])
    np.testing.assert_allclose(fit.row_norms, expected["row_norms"][-1], rtol=0, atol=1e-8 * scale)


def test_solution_satisfies_the_constraint_and_is_the_smallest_eigenspace():
    X, y = _data(5, n=50, d=10)
    fit = dfs_fit(X, y, gamma=2.0, p=1.0, alpha=0.5, max_iter=4, tol=0.0, solver="dense")
    Z = standardise_ref(X)
    S_t, S_b = scatter_matrices_ref(Z, y)
    M = S_t + 0.5 * np.eye(10)
    np.testing.assert_allclose(fit.A.T @ M @ fit.A, np.eye(2), atol=1e-10)   # A^T (S_t + alpha I) A = I
    # the last eigenproblem used D from the previous iterate: its l smallest eigenvalues, in full
    previous = dfs_fit(X, y, gamma=2.0, p=1.0, alpha=0.5, max_iter=3, tol=0.0, solver="dense")
    D = np.diag(0.5 * (previous.row_norms ** 2 + 1e-12) ** -0.5)
    import scipy.linalg

    full = scipy.linalg.eigvalsh(2.0 * D - S_b, M)
    np.testing.assert_allclose(fit.eigenvalues, full[:2], rtol=1e-9)
    assert np.all(full > -1.0)                                   # the bound both solvers rely on


# ---------------------------------------------------------------- Theorem 1

@pytest.mark.parametrize("p", [0.1, 0.5, 1.0, 1.5])
@pytest.mark.parametrize("shape", ["tall", "wide"])
def test_objective_is_non_increasing(p, shape):
    X, y = _data(11, n=80, d=15) if shape == "tall" else _wide(2, n=30, d=300)
    for gamma in (0.01, 1.0, 100.0):
        fit = dfs_fit(X, y, gamma=gamma, p=p, max_iter=25, tol=0.0)
        objective = fit.iterations["objective"]
        assert len(objective) == 25
        increase = np.diff(objective)
        assert np.all(increase <= 1e-9 * np.abs(objective[:-1])), (gamma, increase.max())


def test_divergence_is_the_change_of_the_row_norms():
    X, y = _wide(3, n=30, d=200)
    norms = [dfs_fit(X, y, max_iter=t, tol=0.0, solver="lanczos").row_norms for t in (1, 2, 3)]
    fit = dfs_fit(X, y, max_iter=3, tol=0.0, solver="lanczos")
    expected = [np.sum(np.abs(norms[1] - norms[0])), np.sum(np.abs(norms[2] - norms[1]))]
    np.testing.assert_allclose(fit.iterations["divergence"][1:], expected, rtol=1e-7)


# ---------------------------------------------------------------- d >> n

@pytest.mark.parametrize("seed", range(3))
def test_low_rank_solver_ranks_like_the_dense_solver(seed):
    X, y = _wide(seed, n=30, d=400, n_classes=2 + seed)
    dense = dfs_fit(X, y, gamma=1.0, p=1.0, max_iter=20, tol=0.0, solver="dense")
    lanczos = dfs_fit(X, y, gamma=1.0, p=1.0, max_iter=20, tol=0.0, solver="lanczos")
    assert dense.solver == "dense" and lanczos.solver == "lanczos"
    scale = dense.row_norms.max()
    np.testing.assert_allclose(lanczos.row_norms, dense.row_norms, rtol=0, atol=1e-8 * scale)
    order = np.argsort(-dense.row_norms, kind="stable")
    # the full ranking, wherever consecutive norms differ by more than round-off (p = 1 drives most
    # rows towards 0, but their norms still differ, down to ~1e-8 of the largest)
    gaps = -np.diff(dense.row_norms[order])
    clear = np.flatnonzero(gaps > 1e-10 * scale)
    other = np.argsort(-lanczos.row_norms, kind="stable")
    for position in clear:
        assert set(order[:position + 1]) == set(other[:position + 1])
    assert len(clear) >= 390
    assert list(order[:100]) == list(other[:100])
    np.testing.assert_allclose(lanczos.iterations["objective"], dense.iterations["objective"], rtol=1e-10)


def test_low_rank_solver_never_builds_a_d_by_d_matrix():
    rng = np.random.default_rng(0)
    n, d = 40, 6000
    y = np.repeat(np.arange(4), 10).astype(np.int32)
    X = rng.normal(size=(n, d))
    X[:, :10] += rng.normal(size=(4, 10))[y]
    assert discriminant._choose_solver("auto", d, 3) == "lanczos"
    tracemalloc.start()
    try:
        fit = dfs_fit(X, y, max_iter=3, tol=0.0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert fit.solver == "lanczos"
    dense_bytes = 8 * d * d                                       # one d x d float64 matrix: 288 MB
    assert peak < dense_bytes / 10, f"peak {peak / 1e6:.1f} MB"
    assert peak < 60 * X.nbytes                                    # a few n x d arrays at most


def test_auto_solver_choice():
    assert discriminant._choose_solver("auto", discriminant.DENSE_MAX_FEATURES, 1) == "dense"
    assert discriminant._choose_solver("auto", discriminant.DENSE_MAX_FEATURES + 1, 1) == "lanczos"
    assert discriminant._choose_solver("auto", 1000, 300) == "dense"       # l > d / 4
    assert discriminant._choose_solver("dense", 10_000, 1) == "dense"
    X, y = _data(0, n=30, d=6)
    assert dfs_fit(X, y, n_components=5, solver="lanczos").solver == "dense"   # ARPACK needs l < d - 1


def test_lanczos_failure_falls_back_or_says_what_to_do(monkeypatch):
    from scipy.sparse.linalg import ArpackNoConvergence

    def fail(self, weights, previous):
        raise ArpackNoConvergence("no convergence", np.zeros(0), np.zeros((0, 0)))

    X, y = _wide(7, n=24, d=250)
    expected = dfs_fit(X, y, max_iter=4, tol=0.0, solver="dense")
    monkeypatch.setattr(discriminant._LanczosSolver, "solve", fail)
    fit = dfs_fit(X, y, max_iter=4, tol=0.0, solver="lanczos")
    assert fit.solver == "dense" and any("dense solver took over" in note for note in fit.notes)
    np.testing.assert_allclose(fit.row_norms, expected.row_norms, rtol=1e-10, atol=1e-14)
    monkeypatch.setattr(discriminant, "DENSE_FALLBACK_MAX_FEATURES", 100)
    with pytest.raises(RuntimeError, match="Lanczos eigensolver failed at iteration 1.*solver='dense'"):
        dfs_fit(X, y, max_iter=4, solver="lanczos")


# ---------------------------------------------------------------- choices the paper leaves open

def test_standardisation_makes_the_ranking_unit_free():
    X, y = _data(4, n=60, d=10)
    scaled = X * np.array([1000.0, 1, 1, 0.001, 1, 1, 1, 1, 1, 1])
    assert list(dfs(X, y).ranking) == list(dfs(scaled, y).ranking)
    np.testing.assert_allclose(dfs(X, y).scores, dfs(scaled, y).scores, rtol=1e-8)
    # without it the units of the columns change the ranking
    assert list(dfs(scaled, y, standardize=False).ranking) != list(dfs(X, y, standardize=False).ranking)


def test_alpha_is_the_ridge_of_S_t():
    X, y = _wide(4, n=24, d=60)
    for alpha in (0.01, 10.0):
        expected = dfs_ref(X, y, alpha=alpha, n_iterations=3)
        fit = dfs_fit(X, y, alpha=alpha, max_iter=3, tol=0.0, solver="lanczos")
        np.testing.assert_allclose(fit.iterations["objective"], expected["objective"], rtol=1e-9)
    low = dfs_fit(X, y, alpha=0.01, max_iter=3, tol=0.0).row_norms
    high = dfs_fit(X, y, alpha=10.0, max_iter=3, tol=0.0).row_norms
    assert not np.allclose(low, high)                               # d > n: alpha matters


def test_zeta_enters_D_and_the_objective():
    X, y = _data(6)
    for zeta in (1e-12, 0.1):
        expected = dfs_ref(X, y, p=0.5, zeta=zeta, n_iterations=4)
        fit = dfs_fit(X, y, p=0.5, zeta=zeta, max_iter=4, tol=0.0)
        np.testing.assert_allclose(fit.iterations["objective"], expected["objective"], rtol=1e-8)


def test_stopping_rule():
    X, y = _data(7, n=60)
    every = dfs_fit(X, y, max_iter=7, tol=0.0)
    assert len(every.iterations["iteration"]) == 7 and not every.converged
    assert list(every.iterations["iteration"]) == list(range(1, 8))
    loose = dfs_fit(X, y, max_iter=50, tol=1e-2)
    objective = loose.iterations["objective"]
    assert loose.converged
    assert abs(objective[-2] - objective[-1]) <= 1e-2 * abs(objective[-2])
    assert all(abs(a - b) > 1e-2 * abs(a) for a, b in zip(objective[:-2], objective[1:-1]))
    assert dfs_fit(X, y, max_iter=1).iterations["objective"].shape == (1,)


def test_defaults_follow_the_paper():
    spec = get_method("dfs")
    defaults = spec.defaults()
    assert defaults["p"] == 1.0                      # section VI-C
    assert defaults["n_components"] is None          # c - 1, section V-C
    assert defaults["max_iter"] == 20                # section VI-F
    assert defaults["gamma_grid"] == (1e-6, 1e-4, 0.01, 0.1, 1.0, 10.0, 100.0, 1e4, 1e6)   # section VI-E
    assert defaults["cv_folds"] == 5 and defaults["standardize"] is True                 # section VI-A
    for parameter in spec.parameters:
        assert any(word in parameter.description for word in ("Eq.", "section", "Remark", "Theorem",
                                                             "Algorithm")), parameter.name


def test_constant_columns_are_left_out_and_ranked_last():
    X, y = _data(8)
    with_constant = np.column_stack([np.full(X.shape[0], 3.0), X])
    out = dfs(with_constant, y)
    assert out.scores[0] == 0.0 and out.ranking[-1] == 0
    np.testing.assert_allclose(out.scores[1:], dfs(X, y).scores, rtol=1e-10)
    assert any("constant" in note for note in out.notes)


@pytest.mark.parametrize("seed", range(4))
def test_planted_features_come_first_when_d_exceeds_n(seed):
    rng = np.random.default_rng(seed)
    y = (np.arange(30) % 3).astype(np.int32)
    X = rng.normal(size=(30, 500))
    X[:, :6] += 2.0 * np.array([[1, -1, 0, 1, -1, 0], [0, 1, -1, 0, 1, -1], [-1, 0, 1, -1, 0, 1]])[y]
    out = dfs(X, y)
    assert set(out.ranking[:6]) == set(range(6))


def test_more_components_than_c_minus_1():
    X, y = _data(9, n=50, d=10, n_classes=3)
    out = dfs(X, y, n_components=4)
    assert any("exceeds c - 1" in note for note in out.notes)
    with pytest.raises(ValueError, match="^n_components: must be at most"):
        dfs_fit(X, y, n_components=11)


@pytest.mark.parametrize("solver", ["dense", "lanczos"])
def test_same_inputs_same_outputs_and_threads(monkeypatch, solver):
    X, y = _wide(6, n=30, d=400)
    one = dfs(X, y, n_threads=1, solver=solver)
    again = dfs(X, y, n_threads=1, solver=solver)
    monkeypatch.setattr(discriminant, "MIN_PARALLEL_FLOPS", 0.0)      # use the threads on this small case
    two = dfs(X, y, n_threads=2, solver=solver)
    np.testing.assert_array_equal(one.scores, again.scores)
    np.testing.assert_allclose(two.scores, one.scores, rtol=1e-9, atol=1e-12 * one.scores.max())


# ---------------------------------------------------------------- gamma by cross-validation

def _cv_accuracy_by_hand(X, y, gamma, k, seed, folds=5):
    from sklearn.model_selection import StratifiedKFold
    from sklearn.svm import SVC

    norms = dfs_ref(X, y, gamma=gamma, n_iterations=20)["row_norms"]
    fit = dfs_fit(X, y, gamma=gamma)
    norms = norms[len(fit.iterations["iteration"]) - 1]          # the iterate the method stopped at
    top = np.argsort(-norms, kind="stable")[:k]
    Z = standardise_ref(X)
    accuracy = []
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=seed).split(Z, y):
        model = SVC(kernel="linear", C=1.0).fit(Z[np.ix_(train, top)], y[train])
        accuracy.append(np.mean(model.predict(Z[np.ix_(test, top)]) == y[test]))
    return np.mean(accuracy), np.std(accuracy, ddof=1)


def test_gamma_cv_reports_the_grid_and_picks_the_best():
    X, y = _data(12, n=60, d=12, signal=0.5)
    grid = (1e-4, 1.0, 1e4)
    best, table, notes = gamma_cv(X, y, k=3, grid=grid, folds=5, random_state=3)
    assert list(table["gamma"]) == list(grid)
    for gamma, accuracy, sd in zip(grid, table["accuracy"], table["sd"]):
        expected, expected_sd = _cv_accuracy_by_hand(X, y, gamma, 3, 3)
        assert accuracy == pytest.approx(expected, abs=1e-12)
        assert sd == pytest.approx(expected_sd, abs=1e-12)
    first_best = int(np.flatnonzero(table["accuracy"] == table["accuracy"].max())[0])
    assert best == grid[first_best] and table["chosen"][first_best] and table["chosen"].sum() == 1
    assert any("chosen by 5-fold CV" in note for note in notes)


def test_gamma_cv_ties_go_to_the_first_gamma_of_the_grid():
    X, y = _data(13, n=50, d=6)
    # k = every column: each gamma gives the SVM the same columns, hence the same accuracy
    best, table, _ = gamma_cv(X, y, k=6, grid=(10.0, 0.1, 1.0))
    assert len(set(table["accuracy"].tolist())) == 1
    assert best == 10.0 and list(table["chosen"]) == [True, False, False]


def test_gamma_cv_default_numbers_of_features():
    X, y = _data(14, n=50, d=30)
    _, table, notes = gamma_cv(X, y, k=None, grid=(1.0,))
    assert any("m = 10, 15, 20, 25, 30" in note for note in notes)         # the paper's 10..100 step 5
    assert 0.0 <= table["accuracy"][0] <= 1.0


def test_gamma_cv_within_folds():
    from sklearn.model_selection import StratifiedKFold
    from sklearn.svm import SVC

    X, y = _data(15, n=60, d=10)
    _, table, notes = gamma_cv(X, y, k=4, grid=(0.5,), within_folds=True, random_state=1)
    accuracy = []
    for train, test in StratifiedKFold(5, shuffle=True, random_state=1).split(X, y):
        top = np.argsort(-dfs_fit(X[train], y[train], gamma=0.5).row_norms, kind="stable")[:4]
        mean, sd = X[train].mean(axis=0), X[train].std(axis=0, ddof=1)
        Z_train, Z_test = (X[train] - mean) / sd, (X[test] - mean) / sd
        model = SVC(kernel="linear", C=1.0).fit(Z_train[:, top], y[train])
        accuracy.append(np.mean(model.predict(Z_test[:, top]) == y[test]))
    assert table["accuracy"][0] == pytest.approx(np.mean(accuracy), abs=1e-12)
    assert any("re-run on each training fold" in note for note in notes)


def test_select_with_gamma_cv(wine):
    res = fs.select("class ~ .", wine, method="dfs", k=4, gamma="cv", gamma_grid=(0.01, 1.0, 1e4))
    table = res.tables["gamma_cv"]
    assert list(table["gamma"]) == [0.01, 1.0, 1e4]
    chosen = float(table.loc[table["chosen"], "gamma"].iloc[0])
    assert chosen == table["gamma"][int(np.argmax(table["accuracy"].to_numpy()))]
    X = wine.drop(columns="class").to_numpy(dtype=float)
    y = wine["class"].cat.codes.to_numpy().astype(np.int32)
    direct = dfs(X, y, gamma=chosen)
    names = list(wine.columns[:-1])
    assert res.selected == [names[j] for j in direct.ranking[:4]]
    text = str(res.summary())
    assert "gamma_cv:" in text and "chosen" in text and f"gamma = {chosen:g} chosen by 5-fold CV" in text
    assert res.params["gamma"] == "cv"
    # the command line passes the grid as text
    again = fs.select("class ~ .", wine, method="dfs", k=4, gamma="cv", gamma_grid="0.01, 1, 1e4")
    assert again.params["gamma_grid"] == (0.01, 1.0, 1e4)
    pd.testing.assert_frame_equal(again.tables["gamma_cv"], table)


# ---------------------------------------------------------------- through the API, records and plot

def test_select_dfs_on_wine(wine):
    res = fs.select("class ~ .", wine, method="dfs", k=5)
    X = wine.drop(columns="class").to_numpy(dtype=float)
    y = wine["class"].cat.codes.to_numpy().astype(np.int32)
    direct = dfs(X, y)
    names = list(wine.columns[:-1])
    assert res.selected == [names[j] for j in direct.ranking[:5]]
    assert list(res.scores["score"]) == sorted(res.scores["score"], reverse=True)
    assert "row_norm" in res.scores.columns
    iterations = res.iterations
    assert list(iterations.columns) == ["iteration", "objective", "trace_sb", "penalty", "divergence"]
    np.testing.assert_allclose(iterations["objective"], -iterations["trace_sb"] + 1.0 * iterations["penalty"])
    text = str(res.summary())
    assert "Tao, Hou, Nie" in text and "converged after" in text and "solver: dense" in text
    selector = fs.FeatureSelector(method="dfs", k=5).fit(wine.drop(columns="class"), wine["class"])
    assert list(selector.ranking_) == list(direct.ranking[:5])


def test_convergence_plot_draws_the_objective_and_the_divergence(wine):
    res = fs.select("class ~ .", wine, method="dfs", k=5, p=0.5)
    axes = res.plot(kind="convergence").axes
    assert len(axes) == 2
    objective_line = axes[0].get_lines()[0]
    np.testing.assert_allclose(objective_line.get_ydata(), res.iterations["objective"])
    divergence_line = axes[1].get_lines()[0]
    np.testing.assert_allclose(divergence_line.get_ydata(), res.iterations["divergence"].iloc[1:])
    np.testing.assert_array_equal(divergence_line.get_xdata(), res.iterations["iteration"].iloc[1:])
    assert "Div" in axes[1].get_ylabel()
    import matplotlib.pyplot as plt

    fig, given = plt.subplots(1, 2)
    assert res.plot(kind="convergence", ax=given) is fig
    with pytest.raises(ValueError, match="^ax: needs 2 Axes"):
        res.plot(kind="convergence", ax=given[0])
    plt.close("all")


def test_convergence_plot_needs_an_iterative_method(wine):
    res = fs.select("class ~ .", wine, method="fisher", k=3)
    assert res.iterations is None and res.tables == {}
    with pytest.raises(ValueError, match="^kind: 'convergence' needs an iterative method.*'scores'"):
        res.plot(kind="convergence")
    with pytest.raises(ValueError, match=r"^kind: must be 'scores' or 'path' \(greedy methods\) or "
                                         r"'convergence' \(iterative methods\) or 'null' \(after a "
                                         r"permutation test\); got 'nothing'"):
        res.plot(kind="nothing")


@pytest.mark.parametrize("params, name", [
    ({"p": 0}, "p"), ({"p": 3}, "p"), ({"p": -0.5}, "p"), ({"p": 2.0000001}, "p"), ({"p": "1"}, "p"),
    ({"alpha": 0}, "alpha"), ({"alpha": -1.0}, "alpha"), ({"alpha": float("inf")}, "alpha"),
    ({"gamma": "foo"}, "gamma"), ({"gamma": 0}, "gamma"), ({"gamma": -1}, "gamma"), ({"gamma": None}, "gamma"),
    ({"zeta": 0}, "zeta"), ({"max_iter": 0}, "max_iter"), ({"max_iter": 2.5}, "max_iter"),
    ({"tol": -1e-3}, "tol"), ({"solver": "qr"}, "solver"), ({"n_components": 0}, "n_components"),
    ({"standardize": "yes"}, "standardize"), ({"gamma_grid": ()}, "gamma_grid"),
    ({"gamma_grid": (1.0, -1.0)}, "gamma_grid"), ({"gamma_grid": "1,x"}, "gamma_grid"),
    ({"gamma_grid": "1,-2"}, "gamma_grid"), ({"gamma_grid": ""}, "gamma_grid"), ({"gamma_grid": 1.0}, "gamma_grid"),
    ({"cv_folds": 1}, "cv_folds"), ({"cv_within_folds": 1}, "cv_within_folds"),
    ({"random_state": -1}, "random_state"),
])
def test_parameter_errors_name_the_parameter(wine, params, name):
    with pytest.raises(ValueError, match=rf"^{name}: must be .*for method 'dfs'; got"):
        fs.select("class ~ .", wine, method="dfs", k=3, **params)


@pytest.mark.parametrize("params, message", [
    ({"p": 0}, r"^p: must be a number in \(0, 2\]; got 0"),
    ({"p": 3}, r"^p: must be a number in \(0, 2\]; got 3"),
    ({"alpha": -1}, r"^alpha: must be a finite number > 0; got -1"),
    ({"gamma": "foo"}, r"^gamma: must be a finite number > 0 or 'cv'; got 'foo'"),
    ({"solver": "qr"}, r"^solver: must be one of 'auto', 'dense', 'lanczos'; got 'qr'"),
])
def test_method_layer_errors(params, message):
    X, y = _data(0)
    with pytest.raises(ValueError, match=message):
        dfs(X, y, **params)


def test_registry_entries():
    spec = get_method("dfs")
    assert spec.higher_is_better and "supervised" in spec.capabilities
    assert spec.criterion and spec.reference
    assert "dfs" in fs.list_methods()["name"].tolist()
    assert GAMMA_GRID == spec.defaults()["gamma_grid"]


# ---------------------------------------------------------------- redundancy rate (Eq. 34)

def test_redundancy_rate_by_hand():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    z = np.array([1.0, -1.0, -1.0, 1.0])                       # uncorrelated with x
    X = np.column_stack([x, 3 * x + 1, -x, z])
    # pairs (i > j): |r| = 1, 1, 1 among the first three, 0 with z: sum 3, divided by 4 * 3
    assert fs.metrics.redundancy_rate(X) == pytest.approx(3 / 12)
    # signed: r(3x+1, x) = 1, r(-x, x) = -1, r(-x, 3x+1) = -1: sum -1
    assert fs.metrics.redundancy_rate(X, absolute=False) == pytest.approx(-1 / 12)
    assert fs.metrics.redundancy_rate(X, [0, 1]) == pytest.approx(1 / 2)    # at most 1/2
    assert fs.metrics.redundancy_rate(X, [0, 3]) == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize("seed", range(3))
def test_redundancy_rate_equals_reference(seed, monkeypatch):
    from fstools.results import diagnostics as metrics

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 12))
    X[:, 5] = X[:, 2] + 0.3 * rng.normal(size=30)
    columns = [0, 2, 5, 7, 11]
    assert metrics.redundancy_rate(X, columns) == pytest.approx(redundancy_rate_ref(X, columns), rel=1e-12)
    assert metrics.redundancy_rate(X, columns, absolute=False) == pytest.approx(
        redundancy_rate_ref(X, columns, absolute=False), rel=1e-12)
    monkeypatch.setattr(metrics, "_REDUNDANCY_BLOCK_CELLS", 40)       # several blocks, same sum
    assert metrics.redundancy_rate(X) == pytest.approx(redundancy_rate_ref(X, list(range(12))), rel=1e-12)


def test_redundancy_rate_undefined_cases_and_inputs():
    X = np.random.default_rng(1).normal(size=(20, 4))
    assert math.isnan(fs.metrics.redundancy_rate(X, [2]))
    X[:, 1] = 5.0
    assert math.isnan(fs.metrics.redundancy_rate(X, [0, 1, 2]))
    assert not math.isnan(fs.metrics.redundancy_rate(X, [0, 2, 3]))
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    assert fs.metrics.redundancy_rate(frame, ["a", "c", "d"]) == fs.metrics.redundancy_rate(X, [0, 2, 3])
    assert fs.metrics.redundancy_rate(X, np.array([True, False, True, True])) == \
        fs.metrics.redundancy_rate(X, [0, 2, 3])
    with pytest.raises(ValueError, match="^selected: column"):
        fs.metrics.redundancy_rate(frame, ["a", "zz"])
    with pytest.raises(ValueError, match="^selected: column indices"):
        fs.metrics.redundancy_rate(X, [0, 9])
    with pytest.raises(TypeError, match="^absolute"):
        fs.metrics.redundancy_rate(X, absolute="yes")


@pytest.mark.parametrize("method", ["fisher", "mrmr", "cmqfs", "dfs", "trace_ratio", "bahsic", "laplacian"])
def test_every_summary_shows_the_redundancy_of_the_selected_design_columns(method):
    rng = np.random.default_rng(2)
    data = fs.datasets.load("iris")
    data["colour"] = pd.Categorical(rng.choice(["red", "green", "blue"], len(data)))
    res = fs.select("class ~ .", data, method=method, k=4)
    columns = [j for j, term in enumerate(res._frame.column_terms) if term in res.selected]
    expected = redundancy_rate_ref(res._frame.X, columns)
    assert res.redundancy == pytest.approx(expected, rel=1e-10)
    line = dict(res.summary().header)["Redundancy"]
    assert line.startswith(f"RED = {expected:.4g} on the {len(columns)} design columns")


def test_summary_redundancy_not_available(wine):
    res = fs.select("class ~ .", wine, method="fisher", k=1)
    assert math.isnan(res.redundancy)
    assert dict(res.summary().header)["Redundancy"] == "RED = NA (fewer than 2 selected design columns)"
    data = wine.copy()
    data["flat"] = 1.0
    with pytest.warns(UserWarning, match="constant"):
        res = fs.select("class ~ flavanoids + flat", data, method="fisher")
    assert "RED = NA (constant selected column flat" in str(res.summary())

"""ML-MIFS against the public MATLAB implementation of MIFS (MLC toolbox, ``MIFS_train``) run under GNU Octave.

The data in tests/data/ml_mifs_octave were written by its ``make.sh`` (see its README.md): three small
cases (X, Y, the parameters), fstools' start (V and B from the k-means of the label vectors, W the
ridge solution), and what the toolbox computes from them under Octave: its graph (``constructW``), W
after ``n_iter`` of ``MIFS_train``'s fixed-step gradient steps (run unchanged, its ``rand()`` handing
out fstools' start), V, B and the objective per iteration, and its ranking.  No Octave is needed here.

* ``solver='gradient'`` takes the toolbox's steps: W, V, B, the objective and the ranking agree to
  rounding.
* The default ``solver='block'`` shares the graph, the objective and the start with the toolbox, and
  goes further down the same objective in the same number of iterations.  That objective has no
  minimiser (``(s W, s V, B / s)`` lowers it for every s < 1), so the two solvers' W differ: see the
  module docstring of fstools.methods.multilabel_baselines.
"""
import functools
import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.cluster import KMeans

from fstools.methods.multilabel import standardize_features
from fstools.methods.multilabel_baselines import (_mifs_w_step, _objective, mean_squared_distance, mifs_graph,
                                                  ml_mifs, ml_mifs_fit)

DATA = Path(__file__).parent / "data" / "ml_mifs_octave"
CASES = ("case1", "case2", "case3")


def _csv(folder, name):
    return np.loadtxt(folder / f"{name}.csv", delimiter=",", ndmin=2)


@functools.lru_cache(maxsize=None)
def load(case):
    folder = DATA / case
    data = {"P": json.loads((folder / "params.json").read_text()),
            "octave": json.loads((folder / "octave_scalars.json").read_text())}
    for name in ("X", "Y", "V0", "B0", "W0", "octave_W", "octave_V", "octave_B", "octave_graph"):
        data[name] = _csv(folder, name)
    data["octave_objective"] = _csv(folder, "octave_objective").ravel()
    data["octave_ranking"] = _csv(folder, "octave_ranking").ravel().astype(np.int64) - 1     # 1-based there
    data["Z"] = standardize_features(data["X"], "variance")[0]
    return data


def close(actual, expected, rtol):
    """Entries equal to ``rtol`` relative to the largest entry of ``expected``."""
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * np.abs(expected).max())


@pytest.mark.parametrize("case", CASES)
def test_the_start_given_to_octave_is_fstools_start(case):
    data = load(case)
    P = data["P"]
    clustering = KMeans(n_clusters=P["c"], n_init=10, random_state=0).fit(data["Y"])
    V0 = np.zeros((P["n"], P["c"]))
    V0[np.arange(P["n"]), clustering.labels_] = 1.0
    np.testing.assert_array_equal(data["V0"], V0)
    np.testing.assert_allclose(data["B0"], clustering.cluster_centers_, rtol=1e-15, atol=1e-15)
    close(data["W0"], _mifs_w_step(data["Z"], V0, None, P["gamma"]), 1e-13)


@pytest.mark.parametrize("case", CASES)
def test_graph_equals_constructW(case):
    """p-nearest-neighbour heat-kernel graph: fstools' K = the toolbox's constructW (k = p, t^2 = delta^2)."""
    data = load(case)
    K, _ = mifs_graph(data["Z"], n_neighbors=data["P"]["p"])
    rows, cols, weights = data["octave_graph"].T
    expected = np.zeros((data["P"]["n"],) * 2)
    expected[rows.astype(int) - 1, cols.astype(int) - 1] = weights
    np.testing.assert_array_equal(K.toarray() != 0, expected != 0)
    np.testing.assert_allclose(K.toarray(), expected, rtol=1e-13, atol=1e-15)
    assert mean_squared_distance(data["Z"]) == pytest.approx(data["octave"]["delta2"], rel=1e-13)


@pytest.mark.parametrize("case", CASES)
def test_gradient_solver_equals_mifs_train(case):
    """W, V, B after n_iter steps, the objective per iteration and the ranking: those of MIFS_train."""
    data = load(case)
    P = data["P"]
    W, V, B, history, converged = ml_mifs_fit(data["X"], data["Y"], P["alpha"], P["beta"], P["gamma"], P["c"],
                                              P["p"], P["n_iter"], 0.0, solver="gradient", step=P["step"])
    assert not converged and len(history["objective"]) == P["n_iter"]
    close(W, data["octave_W"], 1e-10)
    close(V, data["octave_V"], 1e-10)
    close(B, data["octave_B"], 1e-10)
    # fstools records the penalty as sum_i sqrt(||w_i||^2 + 1e-12), the toolbox sum_i ||w_i||: up to
    # gamma * d * 1e-6 apart when a row passes near 0 (case 2 at its 81st iteration: 9e-10 relative)
    np.testing.assert_allclose(history["objective"], data["octave_objective"], rtol=2e-9)


@pytest.mark.parametrize("case", CASES)
def test_registered_method_ranks_as_mifs_train(case):
    """``ml_mifs(..., solver='gradient')``: the toolbox's ranking (sort of sum(W.^2, 2), descending)."""
    data = load(case)
    P = data["P"]
    out = ml_mifs(data["X"], data["Y"], alpha=P["alpha"], beta=P["beta"], gamma=P["gamma"], latent_dim=P["c"],
                  n_neighbors=P["p"], max_iter=P["n_iter"], tol=0.0, solver="gradient", step=P["step"])
    np.testing.assert_array_equal(out.ranking, data["octave_ranking"])
    close(out.scores, np.linalg.norm(data["octave_W"], axis=1), 1e-10)
    np.testing.assert_allclose(out.iterations["objective"], data["octave_objective"], rtol=2e-9)
    assert "solver = gradient" in out.notes[0]


@pytest.mark.parametrize("case", CASES)
def test_objective_equals_the_toolbox_objective(case):
    """fstools' objective (both solvers) at the toolbox's last W, V, B = the toolbox's last Qval."""
    data = load(case)
    P = data["P"]
    _, L = mifs_graph(data["Z"], n_neighbors=P["p"])
    V = data["octave_V"]
    value = _objective(data["Z"], data["octave_W"], V, data["octave_B"], data["Y"], L @ V, P["alpha"], P["beta"],
                       P["gamma"])
    assert value == pytest.approx(data["octave_objective"][-1], rel=1e-9)


@pytest.mark.parametrize("case", CASES)
def test_block_solver_goes_further_down_the_same_objective(case):
    """100 exact block steps (the default max_iter) end lower than the toolbox's 200 to 400 gradient
    steps, above the infimum alpha * (the best rank-c approximation error of Y), which no finite W
    reaches."""
    data = load(case)
    P = data["P"]
    W, V, B, history, _ = ml_mifs_fit(data["X"], data["Y"], P["alpha"], P["beta"], P["gamma"], P["c"], P["p"],
                                      100, 0.0)
    singular = np.linalg.svd(data["Y"], compute_uv=False)
    infimum = P["alpha"] * np.sum(singular[P["c"]:] ** 2)
    assert infimum < history["objective"][-1] < 1.05 * infimum < data["octave_objective"][-1]
    # the objective has no minimiser: shrinking W and V and growing B lowers it further
    _, L = mifs_graph(data["Z"], n_neighbors=P["p"])
    values = [_objective(data["Z"], s * W, s * V, B / s, data["Y"], L @ (s * V), P["alpha"], P["beta"], P["gamma"])
              for s in (1.0, 0.5, 0.25)]
    assert values[0] > values[1] > values[2] > infimum

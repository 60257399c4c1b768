"""The fast path of the online PA kernel gives the same bits as the plain-Python reference.

The kernel keeps every budget's top-M set lazily (bounds of the sizes in the set and outside it, per
block of indices; the set is looked at only when the bounds meet), sums the budget margin with the
learner's margin in one loop, masks (rather than skips) the weights outside the top set, and checks
CSR rows with flat loops.  None of this may change a
result: on larger random streams than ``test_online_kernel.py`` uses -- skewed sparse rows like
LIBSVM's w8a, duplicated columns whose weights stay exactly equal (ties straddling the boundary of
the top set), every budget from 1 to d -- the weights, the margins (learner and budgets), the losses
and steps of a whole pass equal ``references.passive_aggressive.online_pa_ref`` (sums in increasing
feature index, top sets by sorting) exactly, with no tolerance, as do the confusion counts and the
selector's stream metrics.  (Only the sign of a zero may differ: the kernel's branch-free truncation
leaves -0.0 where a negative weight shrinks to zero, the reference 0.0; they compare equal.)  The CSR
check names the same row as a row-by-row NumPy reference.
"""
import numpy as np
import pytest
from references.passive_aggressive import ONLINE_VARIANTS, online_pa_ref
from scipy import sparse

import fstools as fs
from fstools._ext import _online as kernel
from fstools.methods.passive_aggressive import ONLINE_PARAMETERS, OnlineLearner, confusion_counts


def _w8a_like(seed, n, d, density=0.08, minority=0.1, duplicated=0, real=False):
    """Sparse rows with skewed per-feature rates; the minority (-1) raises the rates of a few features.

    ``duplicated`` columns copy earlier ones, so their weights stay equal (exact ties); ``real`` draws
    the nonzero values from U(0.5, 1.5) instead of 1.
    """
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < minority, -1, 1).astype(np.int32)
    y[:2] = [1, -1]
    rates = rng.gamma(0.5, 1.0, d - duplicated)
    rates = np.clip(rates / rates.mean() * density, 0.002, 0.6)
    p = np.broadcast_to(rates, (n, d - duplicated)).copy()
    boosted = rng.choice(d - duplicated, 4, replace=False)
    p[np.ix_(y == -1, boosted)] = np.minimum(4.0 * p[np.ix_(y == -1, boosted)], 0.9)
    X = (rng.random(p.shape) < p).astype(np.float64)
    if real:
        X *= rng.uniform(0.5, 1.5, X.shape)
    if duplicated:
        X = np.hstack([X, X[:, rng.choice(d - duplicated, duplicated, replace=False)]])
    return X, y


def _reference(method, X, y, M, budgets, seed=0, **settings):
    loss, step, synthesis = ONLINE_VARIANTS[method]
    if synthesis is not None:  # ONPA: the learner's synthesis, given or its default
        synthesis = settings.get("synthesis", ONLINE_PARAMETERS["synthesis"].default)
    return online_pa_ref(X, y, loss=loss, step=step, C=settings.get("C", 1.0),
                         gravity=settings.get("eta", 0.1) * settings.get("K", 10) * settings.get("g", ONLINE_PARAMETERS["g"].default),
                         theta=settings.get("theta", float("inf")), K=settings.get("K", 10),
                         truncate=settings.get("truncate", "gradient"), topk=M, synthesis=synthesis,
                         capacity=settings.get("memory", 1000), budgets=budgets, seed=seed)


def _assert_pass_equals_reference(method, X, y, M, budgets, chunks=(), **settings):
    """One learner fed the CSR rows in the given chunks (each a call: the top sets are built anew)."""
    _, trace = _reference(method, X, y, M, budgets, **settings)
    learner = OnlineLearner(method, X.shape[1], M, seed=0, **settings)
    data = sparse.csr_matrix(X)
    bounds = [0, *chunks, X.shape[0]]
    outs = [learner.learn(data[start:stop], y[start:stop], budgets=budgets)
            for start, stop in zip(bounds[:-1], bounds[1:])]
    margins = np.concatenate([out["margins"] for out in outs])
    budget_margins = np.vstack([out["budget_margins"] for out in outs])
    expected_budgets = np.array(trace["budget_margins"]).reshape(len(y), len(budgets))
    # exactly equal (assert_array_equal: no tolerance; +0.0 == -0.0, see the module docstring)
    np.testing.assert_array_equal(learner.weights, trace["w"][-1])
    np.testing.assert_array_equal(margins, trace["margins"])
    np.testing.assert_array_equal(budget_margins, expected_budgets)
    np.testing.assert_array_equal(np.concatenate([out["losses"] for out in outs]), trace["losses"])
    np.testing.assert_array_equal(np.concatenate([out["taus"] for out in outs]), trace["taus"])
    # the confusion counts the kernel keeps itself, for the same stream
    counter = OnlineLearner(method, X.shape[1], M, seed=0, **settings)
    counts = counter.learn(data, y, budgets=budgets, record="counts")["counts"]
    assert counter.weights.tobytes() == learner.weights.tobytes()  # the same code: the same bits
    expected = [confusion_counts(y, margins)] + [confusion_counts(y, expected_budgets[:, b])
                                                 for b in range(len(budgets))]
    np.testing.assert_array_equal(counts, np.array(expected))
    return expected_budgets


@pytest.mark.parametrize("seed", range(3))
def test_default_mbpa_on_a_skewed_sparse_stream_equals_the_reference(seed):
    X, y = _w8a_like(seed, n=900, d=80, real=seed == 2)
    budgets = [1, 5, 20, 40, 79, 80]
    _assert_pass_equals_reference("mbpa", X, y, 20, budgets)


@pytest.mark.parametrize("method", ["pa", "pa1", "cs", "onpa"])
def test_other_methods_with_a_finite_theta_equal_the_reference(method):
    X, y = _w8a_like(10, n=600, d=60, density=0.1, minority=0.2, real=True)
    _assert_pass_equals_reference(method, X, y, 8, [3, 8, 30], theta=0.3, g=0.05, K=3, memory=20)


@pytest.mark.parametrize("truncate", ["topk", "none"])
def test_topk_and_no_truncation_equal_the_reference(truncate):
    X, y = _w8a_like(20, n=600, d=50, density=0.15)
    _assert_pass_equals_reference("mbpa", X, y, 7, [4, 7, 12], truncate=truncate, K=4)


@pytest.mark.parametrize("seed", range(3))
def test_ties_straddling_the_boundary_of_the_top_set(seed):
    # binary rows and 25 duplicated columns: groups of exactly equal weights, cut by every budget
    X, y = _w8a_like(30 + seed, n=700, d=70, density=0.12, duplicated=25)
    budget_margins = _assert_pass_equals_reference("mbpa", X, y, 10, list(range(1, 70, 3)), g=0.02 * seed)
    assert np.unique(budget_margins).size > 50  # the budgets did differ from each other


def test_chunks_rebuild_the_top_sets_to_the_same_bits():
    X, y = _w8a_like(40, n=800, d=60, duplicated=10)
    _assert_pass_equals_reference("mbpa", X, y, 12, [1, 12, 33], chunks=(1, 2, 50, 51, 400))


def test_dense_rows_equal_the_csr_rows():
    X, y = _w8a_like(50, n=500, d=40, duplicated=8)
    budgets = [2, 10, 39]
    dense, csr = (OnlineLearner("mbpa", 40, 10) for _ in range(2))
    out_dense = dense.learn(X, y, budgets=budgets)
    out_csr = csr.learn(sparse.csr_matrix(X), y, budgets=budgets)
    np.testing.assert_array_equal(dense.weights, csr.weights)
    np.testing.assert_array_equal(out_dense["budget_margins"], out_csr["budget_margins"])


def test_selector_stream_metrics_equal_the_reference_counts():
    X, y = _w8a_like(60, n=1200, d=90, density=0.05, minority=0.05)
    M = 15
    _, trace = _reference("mbpa", X, y, M, [M])
    selector = fs.OnlineSelector(method="mbpa", n_features=M).partial_fit(sparse.csr_matrix(X[:700]), y[:700])
    selector.partial_fit(sparse.csr_matrix(X[700:]), y[700:])
    metrics = selector.stream_metrics()
    selected = confusion_counts(y, np.array(trace["budget_margins"])[:, 0])
    learner = confusion_counts(y, np.array(trace["margins"]))
    for row, counts in (("selected", selected), ("learner", learner)):
        a, b, c, d = counts
        assert metrics.loc[row, "mistakes"] == b + c
        assert metrics.loc[row, "sensitivity"] == a / (a + b)
        assert metrics.loc[row, "specificity"] == d / (c + d)
    np.testing.assert_array_equal(selector.weights_, trace["w"][-1])


# ------------------------------------------------------------------ the CSR check

def _first_bad_row_reference(indices, indptr, n_features):
    """The first row whose indptr decreases or whose indices are not strictly increasing in range."""
    for row in range(len(indptr) - 1):
        if indptr[row + 1] < indptr[row]:
            return row
        cols = np.asarray(indices[indptr[row]:indptr[row + 1]], dtype=np.int64)
        if cols.size and (cols.min() < 0 or cols.max() >= n_features or np.any(np.diff(cols) <= 0)):
            return row
    return None


def _csr_call(data, indices, indptr, n_features, n_rows):
    y = np.ones(n_rows, dtype=np.int32)
    order = np.arange(n_rows, dtype=np.intp)
    kernel.online_pass_csr(
        data, indices, indptr, n_features, y, order, np.zeros(n_features), np.array([0, 1, 1, 0, 0], dtype=np.int64),
        np.zeros(1, dtype=np.uint64), np.zeros((0, 0), dtype=np.int32), np.zeros((0, 0)), np.zeros(0, dtype=np.int32),
        np.zeros(0, dtype=np.intp), np.zeros(0), np.zeros((0, 0)), np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int32),
        loss=kernel.LOSS_HINGE, step=kernel.STEPS["pa"], truncate=kernel.TRUNCATIONS["none"],
        synthesis=kernel.SYNTHESES["none"], C=1.0, gravity=0.0, theta=1.0, period=1)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("seed", range(6))
def test_csr_check_names_the_same_row_as_a_row_by_row_reference(index_dtype, seed):
    rng = np.random.default_rng(seed)
    n_rows, n_features = 40, 12
    matrix = sparse.random(n_rows, n_features, density=0.3, format="csr", random_state=rng)
    keep = np.ones(n_rows)
    keep[rng.choice(n_rows, 5, replace=False)] = 0.0
    matrix = sparse.csr_matrix(sparse.diags(keep) @ matrix)  # with empty rows
    matrix.eliminate_zeros()
    matrix.sort_indices()
    offset = 3                                              # indptr[0] > 0: the rows start later
    indices = np.concatenate([[7, 7, 7], matrix.indices]).astype(index_dtype)
    data = np.concatenate([[1.0, 1.0, 1.0], matrix.data])
    indptr = (matrix.indptr + offset).astype(index_dtype)
    _csr_call(data, indices, indptr, n_features, n_rows)   # canonical: accepted
    defects = ["too large", "negative", "swap", "duplicate", "indptr", "first of a row"]
    for defect in defects[seed:] + defects[:seed]:
        bad_indices, bad_indptr = indices.copy(), indptr.copy()
        nonempty = np.flatnonzero(np.diff(indptr) >= 2)
        row = int(rng.choice(nonempty))
        start = int(indptr[row])
        if defect == "too large":
            bad_indices[start + 1] = n_features
        elif defect == "negative":
            bad_indices[start] = -1
        elif defect == "swap":
            bad_indices[start], bad_indices[start + 1] = bad_indices[start + 1], bad_indices[start]
        elif defect == "duplicate":
            bad_indices[start + 1] = bad_indices[start]
        elif defect == "indptr":
            bad_indptr[row + 1] = bad_indptr[row] - 1
        else:  # a row's first index may be below the previous row's last: allowed
            bad_indices[start] = 0 if bad_indices[start + 1] > 0 else bad_indices[start]
        expected = _first_bad_row_reference(bad_indices, bad_indptr, n_features)
        if expected is None:
            _csr_call(data, bad_indices, bad_indptr, n_features, n_rows)
            continue
        with pytest.raises(ValueError, match=rf"row {expected} is not canonical CSR"):
            _csr_call(data, bad_indices, bad_indptr, n_features, n_rows)

"""The online PA kernel (fstools._ext._online) against the plain-Python reference, update by update.

Every variant (PA, PA-I, PA-II, MBPA, ONPA with both syntheses, CS; truncation by gradient, top-k or
none), dense rows and CSR rows (int32 and int64 indices), is run through the kernel one row per call and
compared with ``references.passive_aggressive.online_pa_ref`` after every row: the weights, the margins
before the update (the learner's and each budget's M-feature classifier), the loss, the step and the
synthetic updates.
Hand-computed single updates pin the formulas themselves.
"""
import math
import re

import numpy as np
import pytest
from references.passive_aggressive import ONLINE_VARIANTS as VARIANTS, SplitMix64Ref, online_pa_ref, top_set_ref, truncate_ref
from scipy import sparse

from fstools._ext import _online as kernel
from fstools.methods.passive_aggressive import ONLINE_PARAMETERS, OnlineLearner




def _stream(seed, n=90, d=9, kind="normal", minority=0.25):
    """Rows with zeros (some all-zero), labels with a minority of -1, and a few exact ties."""
    rng = np.random.default_rng(seed)
    if kind == "binary":
        X = (rng.random((n, d)) < 0.35).astype(float)
    elif kind == "integer":
        X = rng.integers(-2, 3, size=(n, d)).astype(float) * (rng.random((n, d)) < 0.6)
    else:
        X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.6)
    X[5] = 0.0                                   # an all-zero row: no update, no division by zero
    y = np.where(rng.random(n) < minority, -1, 1).astype(np.int32)
    y[:2] = [1, -1]
    return X, y


def _as_input(X, form):
    if form == "dense":
        return X
    matrix = sparse.csr_matrix(X)
    if form == "csr64":
        matrix.indices = matrix.indices.astype(np.int64)
        matrix.indptr = matrix.indptr.astype(np.int64)
    return matrix


def _reference_settings(method, settings, M):
    loss, step, synthesis = VARIANTS[method]
    if method in ("mbpa", "onpa") and settings.get("update"):
        step = settings["update"]
    if synthesis is not None:  # ONPA: the learner's synthesis, given or its default
        synthesis = settings.get("synthesis", ONLINE_PARAMETERS["synthesis"].default)
    return dict(loss=loss, step=step, C=settings.get("C", 1.0),
                gravity=settings.get("eta", 0.1) * settings.get("K", 10) * settings.get("g", ONLINE_PARAMETERS["g"].default),
                theta=settings.get("theta", float("inf")), K=settings.get("K", 10),
                truncate=settings.get("truncate", "gradient"), topk=M, synthesis=synthesis,
                beta=settings.get("beta", 1.0), capacity=settings.get("memory", 1000),
                cost_ratio=settings.get("cost_ratio"))


def _check_row_by_row(method, X, y, form, M, budgets, seed=3, **settings):
    """Kernel one row per call vs the reference, after every row; then a whole pass in one call."""
    reference_settings = _reference_settings(method, settings, M)
    state, trace = online_pa_ref(X, y, budgets=budgets, seed=seed, **reference_settings)
    learner = OnlineLearner(method, X.shape[1], M, seed=seed, **settings)
    data = _as_input(X, form)
    for i in range(X.shape[0]):
        step = learner.learn(data, y, order=[i], budgets=budgets)
        np.testing.assert_array_equal(learner.weights, trace["w"][i], err_msg=f"w after row {i}")
        assert step["margins"][0] == trace["margins"][i], f"margin at row {i}"
        np.testing.assert_array_equal(step["budget_margins"][0], trace["budget_margins"][i],
                                      err_msg=f"budget margins at row {i}")
        assert step["losses"][0] == trace["losses"][i], f"loss at row {i}"
        assert step["taus"][0] == trace["taus"][i], f"tau at row {i}"
        assert step["synthetic"][0] == trace["synthetic"][i], f"synthetic updates at row {i}"
    assert learner.rounds == state["t"]
    assert learner.class_counters == (state["p"], state["n"])
    # the same stream in one call gives the same state and trace
    whole = OnlineLearner(method, X.shape[1], M, seed=seed, **settings)
    out = whole.learn(data, y, budgets=budgets)
    np.testing.assert_array_equal(whole.weights, learner.weights)
    np.testing.assert_array_equal(out["margins"], trace["margins"])
    np.testing.assert_array_equal(out["budget_margins"], np.array(trace["budget_margins"]).reshape(len(y), -1))
    np.testing.assert_array_equal(out["taus"], trace["taus"])
    return learner, state, trace


# ------------------------------------------------------------------ equality with the reference

@pytest.mark.parametrize("form", ["dense", "csr", "csr64"])
@pytest.mark.parametrize("method", list(VARIANTS))
def test_every_variant_equals_reference_row_by_row(method, form):
    X, y = _stream(11)
    _check_row_by_row(method, X, y, form, M=4, budgets=[1, 4, 9], C=0.7, eta=0.5, g=0.2, K=3, memory=6,
                      beta=1.5)


@pytest.mark.parametrize("form", ["dense", "csr"])
@pytest.mark.parametrize("truncate", ["gradient", "topk", "none"])
@pytest.mark.parametrize("method", ["pa1", "mbpa", "onpa", "cs"])
def test_truncations_equal_reference(method, truncate, form):
    X, y = _stream(12, kind="integer")
    _check_row_by_row(method, X, y, form, M=3, budgets=[2, 3], truncate=truncate, eta=0.5, g=0.3, K=2,
                      theta=1.5, memory=4)


@pytest.mark.parametrize("kind", ["binary", "integer", "normal"])
@pytest.mark.parametrize("seed", range(4))
def test_ties_and_many_budgets_equal_reference(kind, seed):
    # binary and integer rows give exactly equal weights: the M-feature classifier's ties go to the
    # lower index, and the top sets must follow every update and truncation
    X, y = _stream(100 + seed, n=160, d=12, kind=kind)
    method = ["mbpa", "pa", "cs", "onpa"][seed]
    _check_row_by_row(method, X, y, "csr" if seed % 2 else "dense", M=5, budgets=[1, 2, 5, 7, 11, 12],
                      eta=1.0, g=[0.0, 0.05, 0.2, 0.5][seed], K=1 + seed, memory=3)


@pytest.mark.parametrize("synthesis", ["extrapolate", "interpolate"])
@pytest.mark.parametrize("memory", [1, 3, None])
@pytest.mark.parametrize("form", ["dense", "csr"])
def test_onpa_synthesis_and_memory_equal_reference(synthesis, memory, form):
    X, y = _stream(13, n=120, minority=0.4)
    learner, state, _ = _check_row_by_row("onpa", X, y, form, M=4, budgets=[4], synthesis=synthesis,
                                          memory=memory, beta=2.0, g=0.0)
    # the memory holds what the reference remembered (the reservoir's choices included)
    np.testing.assert_array_equal(learner.remembered().toarray(), np.array(state["memory"]))
    n_negative = int(np.sum(y == -1))
    assert learner.memory_size == (n_negative if memory is None else min(memory, n_negative))


@pytest.mark.parametrize("update", ["pa", "pa1", "pa2"])
@pytest.mark.parametrize("method", ["mbpa", "onpa"])
def test_update_rule_option_equals_reference(method, update):
    X, y = _stream(14)
    _check_row_by_row(method, X, y, "csr", M=3, budgets=[3], update=update, C=0.3)


def test_cost_ratio_equals_reference():
    X, y = _stream(15)
    _check_row_by_row("cs", X, y, "dense", M=3, budgets=[3], cost_ratio=4.0, C=0.5)


def test_chunks_carry_the_state_over():
    # counters, rounds (t % K), the random generator and the memory carry over between calls
    X, y = _stream(16, n=150, minority=0.4)
    whole = OnlineLearner("onpa", X.shape[1], 3, seed=5, K=4, g=0.1, memory=4, beta=2.0)
    whole.learn(X, y)
    chunked = OnlineLearner("onpa", X.shape[1], 3, seed=5, K=4, g=0.1, memory=4, beta=2.0)
    for start in range(0, 150, 37):
        chunked.learn(sparse.csr_matrix(X[start:start + 37]), y[start:start + 37])
    np.testing.assert_array_equal(chunked.weights, whole.weights)
    np.testing.assert_array_equal(chunked.counters, whole.counters)
    np.testing.assert_array_equal(chunked.random_state, whole.random_state)
    np.testing.assert_array_equal(chunked.remembered().toarray(), whole.remembered().toarray())


def test_order_argument_streams_rows_in_that_order():
    X, y = _stream(17)
    order = np.random.default_rng(0).permutation(len(y))
    direct = OnlineLearner("mbpa", X.shape[1], 3)
    direct.learn(X[order], y[order])
    indirect = OnlineLearner("mbpa", X.shape[1], 3)
    indirect.learn(sparse.csr_matrix(X), y, order=order)
    np.testing.assert_array_equal(direct.weights, indirect.weights)


def test_dense_and_csr_give_identical_results():
    X, y = _stream(18, n=200, d=15)
    dense = OnlineLearner("onpa", 15, 5, seed=1, g=0.05)
    out_dense = dense.learn(X, y, budgets=[5])
    csr = OnlineLearner("onpa", 15, 5, seed=1, g=0.05)
    out_csr = csr.learn(sparse.csr_matrix(X), y, budgets=[5])
    np.testing.assert_array_equal(dense.weights, csr.weights)
    np.testing.assert_array_equal(out_dense["budget_margins"], out_csr["budget_margins"])



@pytest.mark.parametrize("method", ["mbpa", "onpa", "pa", "cs"])
@pytest.mark.parametrize("form", ["dense", "csr"])
def test_confusion_counts_of_the_kernel_match_the_per_row_margins(method, form):
    from fstools.methods.passive_aggressive import confusion_counts
    X, y = _stream(23, n=300, d=12)
    data = X if form == "dense" else sparse.csr_matrix(X)
    budgets = [1, 4, 12]
    rows = OnlineLearner(method, 12, 4, seed=3, g=0.05, K=3)
    trace = rows.learn(data, y, budgets=budgets)
    counted = OnlineLearner(method, 12, 4, seed=3, g=0.05, K=3)
    counts = counted.learn(data, y, budgets=budgets, record="counts")["counts"]
    np.testing.assert_array_equal(rows.weights, counted.weights)
    np.testing.assert_array_equal(rows.counters, counted.counters)
    expected = [confusion_counts(y, trace["margins"])]
    expected += [confusion_counts(y, trace["budget_margins"][:, b]) for b in range(len(budgets))]
    np.testing.assert_array_equal(counts, np.array(expected))
    with pytest.raises(ValueError, match="record"):
        counted.learn(data, y, record="everything")


# ------------------------------------------------------------------ hand-computed updates

def _one_pass(method, rows, labels, M=None, **settings):
    X = np.array(rows, dtype=float)
    learner = OnlineLearner(method, X.shape[1], M or X.shape[1], seed=0, **settings)
    out = learner.learn(X, np.array(labels, dtype=np.int32))
    return learner, out


def test_pa_pa1_pa2_first_step_by_hand():
    # w = 0, x = (1, 2), y = +1: hinge loss 1, ||x||^2 = 5
    pa, _ = _one_pass("pa", [[1, 2]], [1], g=0.0)
    np.testing.assert_allclose(pa.weights, [0.2, 0.4], rtol=1e-15)            # tau = 1/5 (Eq. 3)
    pa1, _ = _one_pass("pa1", [[1, 2]], [1], C=0.1, g=0.0)
    np.testing.assert_allclose(pa1.weights, [0.1, 0.2], rtol=1e-15)           # tau = min(C, 1/5) (Eq. 6)
    pa2, _ = _one_pass("pa2", [[1, 2]], [1], C=1.0, g=0.0)
    np.testing.assert_allclose(pa2.weights, [2 / 11, 4 / 11], rtol=1e-15)     # tau = 1 / (5 + 1/2)


def test_mbpa_counters_start_at_one_and_rho_is_p_over_n():
    # row 1: y = -1, x = (1, 0): p = 1, n = 2, rho = 1/2; margin 0 <= 1: loss 1/2, tau = min(1, 1/2)
    # row 2: y = +1, x = (0, 1): margin 0 -> loss -0 = 0 (Eq. 7): no update
    # row 3: y = +1, x = (1, 0): w.x = -1/2, margin -1/2 <= 0: loss 1/2, tau = 1/2 -> w = (0, 0)
    learner, out = _one_pass("mbpa", [[1, 0], [0, 1], [1, 0]], [-1, 1, 1], g=0.0)
    np.testing.assert_allclose(out["losses"], [0.5, 0.0, 0.5], rtol=1e-15)
    np.testing.assert_allclose(learner.weights, [0.0, 0.0], atol=1e-15)
    assert learner.class_counters == (3, 2)


def test_mbpa_negative_loss_is_clamped_at_zero():
    # row 1: y = -1, x = 1: rho = 1/2, loss 1/2, w = -1/2.  row 2: y = -1, x = 1: rho = 1/3, margin 1/2
    # <= 1 but rho - margin = -1/6 < 0: no step (the paper's formula would step away from the label,
    # to w = -1/3)
    learner, out = _one_pass("mbpa", [[1.0], [1.0]], [-1, -1], g=0.0)
    assert out["losses"][1] == 0.0 and out["taus"][1] == 0.0
    assert learner.weights[0] == -0.5


def test_cost_sensitive_step_by_hand():
    # row 1: y = -1, x = 2: rho = p/n = 1/2, loss = 1/2 - 0, tau = C / sqrt(1) -> w = -2
    # row 2: y = +1, x = 1: margin -2, loss = 1 + 2 = 3, tau = 1 / sqrt(2) -> w = -2 + 1/sqrt(2)
    learner, out = _one_pass("cs", [[2.0], [1.0]], [-1, 1], g=0.0)
    np.testing.assert_allclose(out["losses"], [0.5, 3.0], rtol=1e-15)
    np.testing.assert_allclose(learner.weights, [-2 + 1 / math.sqrt(2)], rtol=1e-15)
    fixed, out = _one_pass("cs", [[2.0]], [-1], g=0.0, cost_ratio=4.0)
    assert out["losses"][0] == 4.0 and fixed.weights[0] == -2.0


def test_truncated_gradient_every_k_rounds_with_gravity_eta_k_g():
    # PA: row 1 x = (1, 0) -> w = (1, 0); row 2 x = (0, 1), margin 0 -> w = (1, 1); t = 2 = K: truncation
    # with a = eta K g = 0.5 * 2 * 0.25 = 0.25 -> (0.75, 0.75).  Row 3 (t = 3) is not truncated.
    learner, _ = _one_pass("pa", [[1, 0], [0, 1]], [1, 1], eta=0.5, K=2, g=0.25)
    assert learner.gravity == 0.25
    np.testing.assert_array_equal(learner.weights, [0.75, 0.75])
    learner, _ = _one_pass("pa", [[1, 0], [0, 1], [0, 0]], [1, 1, 1], eta=0.5, K=2, g=0.25)
    np.testing.assert_array_equal(learner.weights, [0.75, 0.75])


def test_truncation_operator_by_hand_closed_at_theta():
    # T(v, a, theta): shrink by a towards 0 (not past it) when 0 < |v| <= theta; dyadic numbers, exact
    w = np.array([0.75, -0.75, 0.125, -0.125, 2.0, 0.0, 0.5, -0.5])
    kernel.truncate_weights(w, 0.25, 0.75)
    np.testing.assert_array_equal(w, [0.5, -0.5, 0.0, 0.0, 2.0, 0.0, 0.25, -0.25])
    # |v| = theta is truncated (Langford et al.'s closed interval); just above it is not
    w = np.array([1.0, np.nextafter(1.0, 2.0)])
    kernel.truncate_weights(w, 0.5, 1.0)
    assert w[0] == 0.5 and w[1] == np.nextafter(1.0, 2.0)


def test_onpa_number_of_synthetic_negatives_is_floor_beta_p_over_n():
    # three positives (p = 4), then negatives: n = 2: N = floor(4/2) = 2 but nothing is remembered yet;
    # n = 3: N = floor(4/3) = 1; with beta = 2: floor(8/2) = 4 (none remembered), floor(8/3) = 2
    rows = [[1, 0], [0, 1], [1, 1], [-1, 0], [0, -1]]
    labels = [1, 1, 1, -1, -1]
    _, out = _one_pass("onpa", rows, labels, g=0.0)
    np.testing.assert_array_equal(out["synthetic"], [0, 0, 0, 0, 1])
    _, out = _one_pass("onpa", rows, labels, g=0.0, beta=2.0)
    np.testing.assert_array_equal(out["synthetic"], [0, 0, 0, 0, 2])


def test_all_zero_rows_are_skipped():
    learner, out = _one_pass("pa", [[0, 0], [0, 0]], [1, -1], g=0.0)
    assert np.all(learner.weights == 0.0) and np.all(out["taus"] == 0.0)
    assert np.all(np.isfinite(out["losses"]))


def test_fresh_learner_predicts_the_majority_class():
    # margin 0 counts as +1 (LIBOL's rule; sign(0) is undefined in the paper)
    _, out = _one_pass("mbpa", [[1, 2]], [-1])
    assert out["margins"][0] == 0.0


# ------------------------------------------------------------------ helpers

def test_splitmix64_matches_its_published_first_outputs_and_the_reference():
    # SplitMix64 from state 0: 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f
    state = np.array([0], dtype=np.uint64)
    words = kernel.random_words(state, 3)
    assert [int(v) for v in words] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    reference = SplitMix64Ref(12345)
    state = np.array([12345], dtype=np.uint64)
    assert [int(v) for v in kernel.random_words(state, 50)] == [reference.next() for _ in range(50)]
    assert int(state[0]) == reference.state


def test_random_integers_and_units():
    reference = SplitMix64Ref(7)
    state = np.array([7], dtype=np.uint64)
    drawn = kernel.random_integers(state, 5, 2000)
    assert [int(v) for v in drawn] == [reference.below(5) for _ in range(2000)]
    counts = np.bincount(drawn.astype(np.int64), minlength=5)
    assert counts.min() > 330 and counts.max() < 470               # 400 expected in each
    units = kernel.random_units(state, 5000)
    assert units.min() > 0.0 and units.max() < 1.0
    assert list(units[:20]) == [reference.unit() for _ in range(20)]
    assert abs(units.mean() - 0.5) < 0.02


@pytest.mark.parametrize("seed", range(6))
def test_kth_largest_and_top_mask_with_ties(seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(-3, 4, size=25).astype(float)
    for k in (1, 5, 13, 25):
        assert kernel.kth_largest(values, k) == np.sort(values)[::-1][k - 1]
        mask = kernel.top_weight_mask(values, k)
        assert set(np.flatnonzero(mask)) == top_set_ref(list(values), k)


def test_top_mask_ties_go_to_the_lower_index():
    assert list(np.flatnonzero(kernel.top_weight_mask(np.array([0.5, -0.5, 0.2, 0.5]), 2))) == [0, 1]
    w = np.array([0.5, -0.5, 0.2, 0.5])
    kernel.keep_top_weights(w, 2)
    np.testing.assert_array_equal(w, [0.5, -0.5, 0.0, 0.0])


@pytest.mark.parametrize("seed", range(3))
def test_truncate_weights_equals_reference(seed):
    rng = np.random.default_rng(seed)
    w = rng.normal(size=40)
    expected = [truncate_ref(v, 0.3, 1.1) for v in w]
    kernel.truncate_weights(w, 0.3, 1.1)
    np.testing.assert_array_equal(w, expected)


# ------------------------------------------------------------------ argument checks

def _raw_arguments(n=4, d=3, budgets=(), capacity=0, width=0):
    return dict(
        weights=np.zeros(d), counters=np.array([0, 1, 1, 0, 0], dtype=np.int64),
        random_state=np.zeros(1, dtype=np.uint64), memory_indices=np.zeros((capacity, width), dtype=np.int32),
        memory_values=np.zeros((capacity, width)), memory_nnz=np.zeros(capacity, dtype=np.int32),
        budgets=np.array(budgets, dtype=np.intp), margins=np.zeros(n), budget_margins=np.zeros((n, len(budgets))),
        losses=np.zeros(n), taus=np.zeros(n), synthetic=np.zeros(n, dtype=np.int32))


def _call(X, y, settings=None, **overrides):
    arguments = _raw_arguments(X.shape[0], X.shape[1])
    arguments.update(overrides)
    options = dict(loss=kernel.LOSS_HINGE, step=kernel.STEPS["pa"], truncate=kernel.TRUNCATIONS["none"],
                   synthesis=kernel.SYNTHESES["none"], C=1.0, gravity=0.0, theta=np.inf, period=1)
    options.update(settings or {})
    order = np.arange(X.shape[0], dtype=np.intp)
    a = arguments
    kernel.online_pass_dense(X, y, order, a["weights"], a["counters"], a["random_state"], a["memory_indices"],
                             a["memory_values"], a["memory_nnz"], a["budgets"], a["margins"], a["budget_margins"],
                             a["losses"], a["taus"], a["synthetic"], **options)
    return a


def test_kernel_refuses_bad_labels_and_arguments():
    X = np.ones((4, 3))
    with pytest.raises(ValueError, match="y: labels must be"):
        _call(X, np.array([1, 0, 1, -1], dtype=np.int32))
    y = np.array([1, -1, 1, -1], dtype=np.int32)
    with pytest.raises(ValueError, match="budgets"):
        _call(X, y, budgets=np.array([4], dtype=np.intp), budget_margins=np.zeros((4, 1)))
    with pytest.raises(ValueError, match="C: must be > 0"):
        _call(X, y, settings={"C": 0.0})
    with pytest.raises(ValueError, match="period"):
        _call(X, y, settings={"period": 0})
    with pytest.raises(ValueError, match="weights"):
        _call(X, y, weights=np.zeros(2))


def test_kernel_refuses_a_memory_too_narrow_for_a_negative():
    X = np.ones((4, 3))
    y = np.array([1, -1, 1, -1], dtype=np.int32)
    with pytest.raises(ValueError, match="memory"):
        _call(X, y, settings={"synthesis": kernel.SYNTHESES["extrapolate"]},
              memory_indices=np.zeros((2, 1), dtype=np.int32), memory_values=np.zeros((2, 1)),
              memory_nnz=np.zeros(2, dtype=np.int32))


# ------------------------------------------------------------------ overflow is refused

def _overflowing_stream(huge_row, value=1e200, d=5):
    """A normal stream with one row whose squared norm (value^2) overflows float64.

    Its entries are in two columns that are zero elsewhere (their weights are 0), so that its margin is 0
    and every variant has a loss > 0 and needs ||x||^2."""
    X, y = _stream(21, n=30, d=d)
    X = np.hstack([X, np.zeros((X.shape[0], 2))])
    X[huge_row] = 0.0
    X[huge_row, [d, d + 1]] = [value, -value]
    return X, y


@pytest.mark.parametrize("form", ["dense", "csr", "csr64"])
@pytest.mark.parametrize("method", list(VARIANTS))
def test_overflowing_row_is_refused_naming_it_and_the_pass_is_undone(method, form):
    """||x||^2 = inf at row 17: every variant refuses with a ValueError naming X, the row and 'rescale';
    the learner keeps its state from before the pass; the rows before it equal the reference."""
    X, y = _overflowing_stream(17)
    y[17] = -1                                       # a negative: ONPA synthesises from it too
    settings = dict(C=0.7, eta=0.5, g=0.2, K=3, memory=6, beta=1.5)
    learner = OnlineLearner(method, X.shape[1], 2, seed=3, **settings)
    learner.learn(_as_input(X[:5], form), y[:5])
    before = (learner.weights.copy(), learner.counters.copy(), learner.random_state.copy(),
              learner.remembered().toarray())
    with np.errstate(all="ignore"), pytest.raises(ValueError, match=r"X: row 12 overflows.*rescale X"):
        learner.learn(_as_input(X[5:], form), y[5:])
    np.testing.assert_array_equal(learner.weights, before[0])
    np.testing.assert_array_equal(learner.counters, before[1])
    np.testing.assert_array_equal(learner.random_state, before[2])
    np.testing.assert_array_equal(learner.remembered().toarray(), before[3])
    assert np.all(np.isfinite(learner.weights))
    # the 17 rows before the refused one are learned as the reference learns them
    _check_row_by_row(method, X[:17], y[:17], form, M=2, budgets=[1], **settings)


@pytest.mark.parametrize("form", ["dense", "csr"])
@pytest.mark.parametrize("method", list(VARIANTS))
def test_overflowing_margin_is_refused(method, form):
    """Tiny rows e_j 8e-155 give weights ~1e154 (PA's step 1 / ||x||^2 ~ 1.6e308); then a row of 30 values 1e153
    has ||x||^2 = 3e307 (finite) but w . x ~ 3.7e308 = inf: refused at that row, never NaN weights."""
    d = 30
    X = np.vstack([np.eye(d) * 8e-155, np.full((1, d), 1e153)])
    y = np.ones(d + 1, dtype=np.int32)
    y[::7] = -1
    learner = OnlineLearner(method, d, 1, seed=3, truncate="none", C=1e308)
    with np.errstate(all="ignore"):
        try:
            learner.learn(_as_input(X, form), y)
        except ValueError as error:
            assert re.search(r"X: row 30 overflows.*rescale X", str(error)), str(error)
        else:
            assert method not in ("pa", "pa2", "onpa"), "w . x overflows for the PA step: must be refused"
            assert math.isfinite(sum(float(w) * 1e153 for w in learner.weights))
    assert np.all(np.isfinite(learner.weights))


@pytest.mark.parametrize("method", ["pa", "onpa"])
def test_step_overflow_of_a_tiny_row_is_refused(method):
    """||x||^2 ~ 1e-320 (subnormal) makes PA's step l / ||x||^2 overflow: refused, not an inf weight."""
    X = np.array([[1.0, 0.0], [1e-160, 1e-160]])
    y = np.array([1, -1], dtype=np.int32)
    with np.errstate(all="ignore"):
        state, trace = online_pa_ref(X, y, **_reference_settings(method, {}, 1))
    assert not np.all(np.isfinite(trace["w"][1]))   # what unchecked arithmetic gives
    learner = OnlineLearner(method, 2, 1)
    with pytest.raises(ValueError, match=r"X: row 1 overflows.*rescale X"):
        learner.learn(X, y)

"""The kernel's lazy tracking of the top-M sets gives the bits of the plain tracking rule.

The online kernel keeps, for every feature budget M, the set S of the M largest |w_j| (ties to the
lower index) only lazily: bounds of the sizes in S and outside it, per block of indices, and a look
at S only when the bounds meet.  Whatever it does, the M-feature classifier's prediction before each
row must be exactly that of the rule, written out here with NumPy (an argsort of (-|w_j|, j) on the
weights before every row; the learner's margin when at most M weights are nonzero; else the sum of
w_j x_j over j in S in increasing j), on weights learnt by ``references.passive_aggressive
.online_pa_ref`` (plain Python, one example at a time).  Random streams from hypothesis: dense and
CSR rows, binary, integer and real values, duplicated columns (exact ties straddling the boundary of
S), every method, truncation rule and period, several budgets from 1 to d, and the stream cut into
several calls (each call starts the tracking anew).  Compared with no tolerance: the weights, the
learner's and every budget's margins, the confusion counts the kernel keeps, and through
``OnlineSelector`` the stream metrics and the selected set.  (Only the sign of a zero may differ:
the kernel's truncation leaves -0.0 where a negative weight shrinks to zero; -0.0 == 0.0.)
"""
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from references.passive_aggressive import ONLINE_VARIANTS, online_pa_ref
from scipy import sparse

import fstools as fs
from fstools.api.streaming import _labels_and_counts
from fstools.methods.passive_aggressive import OnlineLearner, confusion_counts, seed_from

METHODS = sorted(ONLINE_VARIANTS)


def top_set_numpy(w, M):
    """Indices of the M largest |w_j|, ties to the lower index (a sort of the keys (-|w_j|, j))."""
    order = np.lexsort((np.arange(w.shape[0]), -np.abs(w)))
    return order[:M]


def budget_margins_numpy(weights_before, X, full_margins, budgets):
    """The M-feature classifier's margin before each row, for each budget M: the plain rule."""
    out = np.empty((X.shape[0], len(budgets)))
    for i in range(X.shape[0]):
        w = weights_before[i]
        for b, M in enumerate(budgets):
            if np.count_nonzero(w) <= M:
                out[i, b] = full_margins[i]
                continue
            keep = np.zeros(w.shape[0], dtype=bool)
            keep[top_set_numpy(w, M)] = True
            total = 0.0
            for j in range(w.shape[0]):  # in increasing j, one float at a time, as the kernel adds
                if keep[j]:
                    total += float(w[j]) * float(X[i, j])
            out[i, b] = total
    return out


@st.composite
def streams(draw):
    n = draw(st.integers(2, 90))
    d = draw(st.integers(2, 24))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    kind = draw(st.sampled_from(["binary", "integer", "real"]))
    duplicated = draw(st.integers(0, d // 2))
    density = draw(st.sampled_from([0.1, 0.3, 0.7]))
    base = d - duplicated
    X = (rng.random((n, base)) < density).astype(np.float64)
    if kind == "integer":
        X *= rng.integers(1, 4, X.shape)
    elif kind == "real":
        X *= rng.uniform(0.5, 1.5, X.shape)
    if duplicated:  # copies of earlier columns: their weights stay exactly equal
        X = np.hstack([X, X[:, rng.choice(base, duplicated)]])
    y = np.where(rng.random(n) < draw(st.sampled_from([0.1, 0.3, 0.5])), -1, 1).astype(np.int32)
    method = draw(st.sampled_from(METHODS))
    M = draw(st.integers(1, d))
    budgets = sorted(set(draw(st.lists(st.integers(1, d), min_size=1, max_size=4))) | {M})
    options = {"truncate": draw(st.sampled_from(["gradient", "topk", "none"])), "K": draw(st.integers(1, 5)),
               "g": draw(st.sampled_from([0.0, 0.01, 0.05, 0.3])),
               "theta": draw(st.sampled_from([float("inf"), 0.5])), "memory": 8}
    if method == "onpa":
        options["synthesis"] = draw(st.sampled_from(["interpolate", "extrapolate"]))
    cuts = sorted(set(draw(st.lists(st.integers(1, n - 1), max_size=3))))
    dense = draw(st.booleans())
    return X, y, method, M, budgets, options, cuts, dense


def _reference(method, X, y, M, budgets, options, seed=0):
    loss, step, synthesis = ONLINE_VARIANTS[method]
    if synthesis is not None:
        synthesis = options["synthesis"]
    _, trace = online_pa_ref(X, y, loss=loss, step=step, C=1.0, gravity=0.1 * options["K"] * options["g"],
                             theta=options["theta"], K=options["K"], truncate=options["truncate"], topk=M,
                             synthesis=synthesis, capacity=options["memory"], budgets=budgets, seed=seed)
    return trace


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams())
def test_tracked_pass_equals_the_plain_tracking_rule(stream):
    X, y, method, M, budgets, options, cuts, dense = stream
    trace = _reference(method, X, y, M, budgets, options)
    weights_after = np.array(trace["w"])
    weights_before = np.vstack([np.zeros((1, X.shape[1])), weights_after[:-1]])
    expected = budget_margins_numpy(weights_before, X, np.array(trace["margins"]), budgets)

    learner = OnlineLearner(method, X.shape[1], M, seed=0, **options)
    data = X if dense else sparse.csr_matrix(X)
    bounds = [0, *cuts, X.shape[0]]
    outs = [learner.learn(data[start:stop], y[start:stop], budgets=budgets)
            for start, stop in zip(bounds[:-1], bounds[1:])]
    np.testing.assert_array_equal(learner.weights, weights_after[-1])
    np.testing.assert_array_equal(np.concatenate([out["margins"] for out in outs]), trace["margins"])
    np.testing.assert_array_equal(np.vstack([out["budget_margins"] for out in outs]), expected)

    # the confusion counts the kernel keeps itself (no per-row outputs), in one call
    counter = OnlineLearner(method, X.shape[1], M, seed=0, **options)
    counts = counter.learn(data, y, budgets=budgets, record="counts")["counts"]
    assert counter.weights.tobytes() == learner.weights.tobytes()
    wanted = [confusion_counts(y, np.array(trace["margins"]))]
    wanted += [confusion_counts(y, expected[:, b]) for b in range(len(budgets))]
    np.testing.assert_array_equal(counts, np.array(wanted))

    # tracking does not touch the learning: the same bits without any budget
    untracked = OnlineLearner(method, X.shape[1], M, seed=0, **options)
    untracked.learn(data, y, budgets=(), record="counts")
    assert untracked.weights.tobytes() == learner.weights.tobytes()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams())
def test_selector_stream_metrics_and_selection_follow_the_plain_rule(stream):
    X, y, method, M, _, options, cuts, dense = stream
    # the selector codes the majority of its first batch +1 (a tie: the label that sorts last, 1);
    # ONPA's generator is seeded from random_state
    first = y[:cuts[0] if cuts else len(y)]
    positive = 1 if np.count_nonzero(first == 1) >= np.count_nonzero(first == -1) else -1
    y_pm = np.where(y == positive, 1, -1).astype(np.int32)
    trace = _reference(method, X, y_pm, M, [M], options, seed=seed_from(0) if method == "onpa" else 0)
    weights_after = np.array(trace["w"])
    weights_before = np.vstack([np.zeros((1, X.shape[1])), weights_after[:-1]])
    margins = np.array(trace["margins"])
    selected_margins = budget_margins_numpy(weights_before, X, margins, [M])[:, 0]

    selector = fs.OnlineSelector(method=method, n_features=M, C=1.0, eta=0.1, random_state=0,
                                 **{k: v for k, v in options.items() if k != "synthesis"},
                                 **({"synthesis": options["synthesis"]} if method == "onpa" else {}))
    data = X if dense else sparse.csr_matrix(X)
    bounds = [0, *cuts, X.shape[0]]
    for start, stop in zip(bounds[:-1], bounds[1:]):
        selector.partial_fit(data[start:stop], y[start:stop], classes=[-1, 1])
    metrics = selector.stream_metrics()
    for row, row_margins in (("selected", selected_margins), ("learner", margins)):
        a, b, c, d = confusion_counts(y_pm, row_margins)
        assert metrics.loc[row, "mistakes"] == b + c
        if a + b:
            assert metrics.loc[row, "sensitivity"] == a / (a + b)
        if c + d:
            assert metrics.loc[row, "specificity"] == d / (c + d)
    np.testing.assert_array_equal(selector.weights_, weights_after[-1])
    expected_support = np.zeros(X.shape[1], dtype=bool)
    expected_support[top_set_numpy(weights_after[-1], M)] = True
    if np.count_nonzero(weights_after[-1]) >= M:  # (fewer nonzero: zero weights fill the budget)
        np.testing.assert_array_equal(selector.get_support(), expected_support)


# ------------------------------------------------------------------ the labels of a first batch

@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["int8", "int32", "int64", "uint8", "uint64", "bool", "U3", "S2", "float64", "object"]),
       st.lists(st.integers(0, 3), min_size=1, max_size=40))
def test_labels_and_counts_equal_numpy_unique(dtype, codes):
    # the selector's classes of a first batch: what np.unique(y, return_counts=True) gives, for
    # one, two or more labels (the case of two is counted without a sort)
    pool = {"bool": [True, False, True, False], "U3": ["b", "a", "ccc", ""], "S2": [b"x", b"", b"yz", b"a"],
            "uint64": [2 ** 64 - 1, 0, 7, 2 ** 63], "uint8": [255, 0, 1, 7],
            "object": ["b", "a", "c", "d"]}.get(dtype, [1, -1, 0, 5])
    y = np.array([pool[c] for c in codes], dtype=dtype)
    labels, counts = _labels_and_counts(y)
    expected_labels, expected_counts = np.unique(y, return_counts=True)
    assert labels.dtype == expected_labels.dtype and counts.dtype == expected_counts.dtype
    np.testing.assert_array_equal(labels, expected_labels)
    np.testing.assert_array_equal(counts, expected_counts)

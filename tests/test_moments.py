"""The per-class column moments kernel (fstools._ext._moments) and the dense Fisher score on it.

Per-feature scoring runs over features in parallel without the GIL and gives
bitwise-identical results for 1 and 2 threads.  The kernel is checked against
``references.moments.class_moments_ref`` (exact rational arithmetic, one feature and class at a
time) on random shapes and class layouts (classes of one sample, codes no sample uses, ties,
constant columns, magnitudes from 1e-300 to the largest doubles) in C, Fortran and strided
layouts; the layouts, the thread counts and column-by-column calls give the same bits.
"""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from references.moments import class_moments_ref
from references.similarity import fisher_score_ref

from fstools._ext import _moments as moments
from fstools.methods.similarity import fisher, fisher_scores


EPS = np.finfo(float).eps
OUTPUT_NAMES = ("counts", "mean", "ss", "constant", "column_mean", "column_constant")


def new_outputs(n_features, n_classes):
    return (np.zeros(n_classes, dtype=np.int64), np.zeros((n_features, n_classes)),
            np.zeros((n_features, n_classes)), np.zeros((n_features, n_classes), dtype=np.uint8),
            np.zeros(n_features), np.zeros(n_features, dtype=np.uint8))


def run_kernel(X, y, n_classes, n_threads=1):
    outputs = new_outputs(X.shape[1], n_classes)
    moments.class_moments(X, np.ascontiguousarray(y, dtype=np.int32), n_classes, *outputs, n_threads=n_threads)
    return outputs


def assert_bitwise_equal(a, b):
    for name, left, right in zip(OUTPUT_NAMES, a, b):
        assert left.dtype == right.dtype and left.shape == right.shape, name
        assert left.tobytes() == right.tobytes(), f"{name} differs"


def _close(value, expected, tolerance):
    if math.isnan(expected):
        return math.isnan(value)
    if math.isinf(expected):
        return value == expected
    return abs(value - expected) <= tolerance


def assert_matches_reference(X, y, n_classes, outputs):
    """Exact counts and constancy; means and sums of squares within their rounding bounds."""
    counts, mean, ss, constant, column_mean, column_constant = outputs
    ref_counts, ref_mean, ref_ss, ref_constant, ref_column_mean, ref_column_constant = \
        class_moments_ref(X, y, n_classes)
    np.testing.assert_array_equal(counts, ref_counts)
    np.testing.assert_array_equal(constant, ref_constant)
    np.testing.assert_array_equal(column_constant, ref_column_constant)
    n, p = X.shape
    y = np.asarray(y)
    for f in range(p):
        if n:
            largest = float(np.max(np.abs(X[:, f])))
            bound = 4 * n * EPS * largest
            assert _close(column_mean[f], ref_column_mean[f], bound), (f, column_mean[f], ref_column_mean[f])
            assert X[:, f].min() <= column_mean[f] <= X[:, f].max()
        else:
            assert math.isnan(column_mean[f])
        for c in range(n_classes):
            members = X[y == c, f]
            if members.size == 0:
                assert math.isnan(mean[f, c]) and ss[f, c] == 0.0 and constant[f, c] == 1
                continue
            largest = float(np.max(np.abs(members)))
            size = members.size
            mean_error = 4 * size * EPS * largest
            assert _close(mean[f, c], ref_mean[f, c], mean_error), (f, c, mean[f, c], ref_mean[f, c])
            assert members.min() <= mean[f, c] <= members.max()
            if constant[f, c]:
                assert mean[f, c] == members[0] and ss[f, c] == 0.0   # exact for a constant class
                continue
            # rounding of the deviations, of the sum, the error of the mean, subnormal squares
            with np.errstate(over="ignore"):
                ss_error = 8 * size * EPS * ref_ss[f, c] + size * mean_error ** 2 * 4 + size * 1e-320
            if math.isinf(ref_ss[f, c]) or ref_ss[f, c] > 1e300:
                assert ss[f, c] > 1e300 or math.isinf(ss[f, c]), (f, c, ss[f, c], ref_ss[f, c])
            else:
                assert _close(ss[f, c], ref_ss[f, c], ss_error), (f, c, ss[f, c], ref_ss[f, c])


# ---------------------------------------------------------------------------- random data

SCALES = [1.0, 1e-300, 1e300, 1e150, 1e-150, 1.7976931348623157e308, 2.0 ** -1060]


@st.composite
def moment_problems(draw):
    """(X, y, n_classes): shapes 0..25 x 0..12, 1..6 class codes (some unused), ties and constant
    columns, one magnitude per column, in a C, Fortran or strided layout."""
    n = draw(st.integers(0, 25))
    p = draw(st.integers(0, 12))
    n_classes = draw(st.integers(1, 6))
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)), dtype=np.int32)
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    kind = draw(st.sampled_from(["continuous", "ties", "two_values"]))
    if kind == "continuous":
        X = rng.uniform(-1.0, 1.0, size=(n, p))
    elif kind == "ties":
        X = rng.integers(-3, 4, size=(n, p)) / 4.0
    else:
        X = rng.choice([0.5, -0.75], size=(n, p))
    for f in range(p):
        if rng.random() < 0.15:
            X[:, f] = 0.625           # a constant column
        X[:, f] *= SCALES[rng.integers(len(SCALES))]
    layout = draw(st.sampled_from(["C", "F", "strided", "reversed"]))
    if layout == "F":
        X = np.asfortranarray(X)
    elif layout == "strided":
        big = np.zeros((2 * n + 1, 3 * p + 2))
        big[1::2, 2::3] = X
        X = big[1::2, 2::3]
    elif layout == "reversed":
        X = np.ascontiguousarray(X[::-1, ::-1])[::-1, ::-1]
    return X, y, n_classes


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(moment_problems())
def test_class_moments_equal_exact_reference(problem):
    X, y, n_classes = problem
    outputs = run_kernel(X, y, n_classes)
    assert_matches_reference(X, y, n_classes, outputs)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(moment_problems())
def test_class_moments_do_not_depend_on_threads_layout_or_blocks(problem):
    """1 and 2 threads, C order and the given layout, and one column at a time: the same bits."""
    X, y, n_classes = problem
    one = run_kernel(X, y, n_classes, n_threads=1)
    assert_bitwise_equal(one, run_kernel(X, y, n_classes, n_threads=2))
    assert_bitwise_equal(one, run_kernel(np.ascontiguousarray(X), y, n_classes, n_threads=2))
    for f in range(X.shape[1]):
        single = run_kernel(X[:, f:f + 1], y, n_classes)
        for name, whole, part in zip(OUTPUT_NAMES, one, single):
            expected = whole if name == "counts" else whole[f:f + 1]
            assert expected.tobytes() == part.tobytes(), (name, f)


def test_class_moments_threads_on_many_features_bitwise_identical():
    """Enough features for both threads to take blocks (and a partial last block)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 203)) * rng.choice([1.0, 1e300, 1e-300], size=203)
    X[:, ::7] = np.round(X[:, ::7], 1)
    y = rng.integers(0, 5, size=3000).astype(np.int32)
    one = run_kernel(X, y, 6, 1)
    for threads in (2, 3):
        assert_bitwise_equal(one, run_kernel(X, y, 6, threads))
        assert_bitwise_equal(one, run_kernel(np.asfortranarray(X), y, 6, threads))


def test_class_moments_means_near_the_largest_doubles_stay_finite():
    """Class sums that overflow float64 (a plain one-pass mean would be inf) give the exact means."""
    top = np.finfo(float).max
    column = np.array([top, top, -top, top, 0.5 * top, top, top])
    X = np.column_stack([column, -column, column[::-1], np.full(7, top)])
    y = np.array([0, 0, 0, 1, 1, 1, 1], dtype=np.int32)
    outputs = run_kernel(X, y, 2)
    assert np.all(np.isfinite(outputs[1])) and np.all(np.isfinite(outputs[4]))
    assert_matches_reference(X, y, 2, outputs)
    assert outputs[1][3].tolist() == [top, top] and outputs[4][3] == top and outputs[5][3] == 1


def test_class_moments_tiny_values_keep_their_precision():
    """Subnormal and 1e-300 data: the means are exact to rounding, the squares underflow as in float64."""
    X = np.array([[1e-300, 5e-324], [3e-300, 1e-323], [2e-300, 5e-324], [4e-300, 1.5e-323]])
    y = np.array([0, 0, 1, 1], dtype=np.int32)
    outputs = run_kernel(X, y, 2)
    assert_matches_reference(X, y, 2, outputs)
    assert outputs[1][0].tolist() == [2e-300, 3e-300]
    assert np.all(outputs[2] == 0.0)            # (1e-300)^2 underflows, as the exact value rounds to 0


def test_class_moments_sizes_one_and_unused_codes():
    X = np.array([[1.0, 2.0], [3.0, 2.0], [5.0, 7.0]])
    y = np.array([0, 2, 2], dtype=np.int32)
    counts, mean, ss, constant, column_mean, column_constant = run_kernel(X, y, 4)
    assert counts.tolist() == [1, 0, 2, 0]
    assert mean[0, 0] == 1.0 and ss[0, 0] == 0.0 and constant[0, 0] == 1        # one sample: constant
    assert np.isnan(mean[:, [1, 3]]).all() and (ss[:, [1, 3]] == 0).all() and (constant[:, [1, 3]] == 1).all()
    assert mean[0, 2] == 4.0 and ss[0, 2] == 2.0 and constant[0, 2] == 0
    assert column_mean.tolist() == [3.0, 11.0 / 3.0] and column_constant.tolist() == [0, 0]


def test_class_moments_no_samples_and_no_features():
    counts, mean, ss, constant, column_mean, column_constant = run_kernel(np.zeros((0, 3)), np.zeros(0), 2)
    assert counts.tolist() == [0, 0] and np.isnan(mean).all() and (ss == 0).all() and (constant == 1).all()
    assert np.isnan(column_mean).all() and (column_constant == 1).all()
    outputs = run_kernel(np.zeros((4, 0)), np.array([0, 1, 1, 0]), 2)
    assert outputs[0].tolist() == [2, 2] and outputs[1].shape == (0, 2)


def test_class_moments_leave_the_input_unchanged():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(50, 9))
    y = rng.integers(0, 3, size=50).astype(np.int32)
    X_copy, y_copy = X.copy(), y.copy()
    X.flags.writeable = False
    run_kernel(X, y, 3, 2)
    assert np.array_equal(X, X_copy) and np.array_equal(y, y_copy)


# ---------------------------------------------------------------------------- bad input

def _arguments(**changes):
    X = np.arange(12.0).reshape(4, 3)
    y = np.array([0, 1, 1, 0], dtype=np.int32)
    values = dict(X=X, y=y, n_classes=2)
    values.update(zip(OUTPUT_NAMES, new_outputs(3, 2)))
    values.update(changes)
    return values


def _call(values, n_threads=1):
    return moments.class_moments(values["X"], values["y"], values["n_classes"],
                                 *(values[name] for name in OUTPUT_NAMES), n_threads=n_threads)


@pytest.mark.parametrize("changes, name", [
    (dict(X=np.arange(12, dtype=np.float32).reshape(4, 3)), "X"),
    (dict(X=np.arange(4.0)), "X"),
    (dict(X=[[1.0, 2.0, 3.0]] * 4), "X"),
    (dict(X=np.array([[1.0, np.nan, 0.0]] * 4)), "X"),
    (dict(X=np.array([[1.0, 0.0, -np.inf]] * 4)), "X"),
    (dict(X=np.array([[np.inf, 0.0, 1.0], [-np.inf, 0.0, 1.0]] * 2)), "X"),
    (dict(y=np.array([0, 1, 1, 0], dtype=np.int64)), "y"),
    (dict(y=np.array([0, 1, 1], dtype=np.int32)), "y"),
    (dict(y=np.array([0, 0, 1, 1, 0, 0, 1, 1], dtype=np.int32)[::2]), "y"),
    (dict(y=np.array([0, 2, 1, 0], dtype=np.int32)), "y"),
    (dict(y=np.array([0, -1, 1, 0], dtype=np.int32)), "y"),
    (dict(y=np.array([0, 2 ** 31 - 1, 1, 0], dtype=np.int32)), "y"),
    (dict(n_classes=0), "n_classes"),
    (dict(counts=np.zeros(3, dtype=np.int64)), "counts"),
    (dict(mean=np.zeros((2, 3))), "mean"),
    (dict(ss=np.zeros((3, 2), dtype=np.float32)), "ss"),
    (dict(constant=np.zeros((3, 2), dtype=bool)), "constant"),
    (dict(column_mean=np.zeros((6,))[::2]), "column_mean"),
    (dict(column_constant=np.zeros(3, dtype=np.int8)), "column_constant"),
    (dict(mean=None), "mean"),
])
def test_class_moments_bad_arguments_name_the_argument(changes, name):
    with pytest.raises(ValueError, match=name):
        _call(_arguments(**changes))


def test_class_moments_read_only_output_and_bad_threads_refused():
    values = _arguments()
    values["ss"].flags.writeable = False
    with pytest.raises(ValueError, match="ss.*read-only"):
        _call(values)
    with pytest.raises(ValueError, match="n_threads"):
        _call(_arguments(), n_threads=0)


def test_class_moments_strides_not_multiple_of_eight_refused():
    buffer = np.zeros(128, dtype=np.uint8)
    X = np.ndarray((4, 3), dtype=np.float64, buffer=buffer, offset=0, strides=(28, 8))
    with pytest.raises(ValueError, match="X: strides"):
        _call(_arguments(X=X))


# ---------------------------------------------------------------------------- Fisher on the kernel

def test_fisher_scores_dense_equal_reference_and_thread_invariant():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 37))
    y = rng.integers(0, 4, size=400)
    X[:, 3] += 2 * y                       # informative
    X[:, 5] = 1.5                          # constant: 0
    X[:, 6] = np.where(y == 1, 0.1, 0.3)   # constant within every class, different means: inf
    one = fisher_scores(X, y, n_threads=1)
    two = fisher_scores(X, y, n_threads=2)
    for a, b in zip(one, two):
        assert a.tobytes() == b.tobytes()
    np.testing.assert_allclose(one[0], fisher_score_ref(X, y), rtol=1e-10)
    assert one[0][5] == 0.0 and one[0][6] == math.inf


def test_fisher_method_threads_bitwise_identical(parallel_everywhere):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(300, 25))
    y = rng.integers(0, 3, size=300).astype(np.int32)
    one = fisher(X, y, None, 1)
    two = fisher(X, y, None, 2)
    assert np.array_equal(one.ranking, two.ranking)
    for name in one.columns:
        assert np.asarray(one.columns[name]).tobytes() == np.asarray(two.columns[name]).tobytes()


def test_fisher_scores_column_blocks_and_unused_codes_give_the_same_bits(monkeypatch):
    """Blocks of columns (a small FISHER_MOMENT_CELLS) and codes no sample uses change nothing."""
    from fstools.methods import similarity

    rng = np.random.default_rng(7)
    X = rng.normal(size=(200, 23))
    y = rng.integers(0, 3, size=200)
    whole = fisher_scores(X, y)
    monkeypatch.setattr(similarity, "FISHER_MOMENT_CELLS", 7)
    blocked = fisher_scores(X, y, n_threads=2)
    gapped = fisher_scores(X, 2 * y, n_threads=2)          # codes 1 and 3 unused
    for a, b, c in zip(whole, blocked, gapped):
        assert a.tobytes() == b.tobytes() == c.tobytes()

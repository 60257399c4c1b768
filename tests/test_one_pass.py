"""The one-read kernel :func:`fstools._ext._one_pass.column_moments` (and its wrapper
:func:`fstools.core.arrays.column_moments`), and the filters computed from it.

Checked against a slow, obviously correct NumPy version (the columns scaled by the same power of
two, exact; class sums and two-pass sums of squares with ``math.fsum``) on random shapes, layouts,
class counts and magnitudes (hypothesis); bitwise invariance to the thread count, the layout
(C, Fortran, strided views) and the blocks of columns; exactness (constant classes, extremes,
powers of two); flags and refusals.
"""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fstools._ext import _one_pass
from fstools.core.arrays import column_moments
from fstools.methods.similarity import fisher_scores
from fstools.methods.statistical import chi2_scores, f_test_scores, pearson_scores


# ------------------------------------------------------------------------------ the reference

def reference(X, y, n_classes, response=None):
    """Counts, scaled class sums, two-pass sums of squares, extremes, co-moments and exponents,
    the slow obvious way (float64 two-pass with math.fsum on the scaled values)."""
    m, n = X.shape
    magnitude = np.abs(X).max(axis=0) if m else np.zeros(n)
    # the exponent of frexp of the largest |x|, at least EXPONENT_FLOOR (also for an all-zero column)
    exponent = np.where(magnitude > 0, np.maximum(np.frexp(magnitude)[1], _one_pass.EXPONENT_FLOOR),
                        _one_pass.EXPONENT_FLOOR).astype(np.int32)
    scaled = np.ldexp(X, -exponent)
    counts = np.bincount(y, minlength=n_classes)
    sums = np.zeros((n, n_classes))
    squares = np.zeros((n, n_classes))
    cross = np.zeros((n, n_classes))
    low = np.full((n, n_classes), np.inf)
    high = np.full((n, n_classes), -np.inf)
    for c in range(n_classes):
        rows = scaled[y == c]
        if rows.shape[0] == 0:
            continue
        low[:, c] = X[y == c].min(axis=0)
        high[:, c] = X[y == c].max(axis=0)
        for j in range(n):
            sums[j, c] = math.fsum(rows[:, j])
            mean = sums[j, c] / rows.shape[0]
            squares[j, c] = math.fsum((rows[:, j] - mean) ** 2)
            if response is not None:
                r = response[y == c]
                cross[j, c] = math.fsum((rows[:, j] - mean) * (r - math.fsum(r) / r.shape[0]))
    return counts, sums, squares, low, high, cross, exponent


def kernel(X, y, n_classes, response=None, n_threads=1):
    return _one_pass.column_moments(X, np.ascontiguousarray(y, dtype=np.int32), n_classes, response, n_threads)


def assert_same_bits(a, b):
    for left, right in zip(a, b):
        if left is None or right is None:
            assert left is None and right is None
        else:
            assert np.asarray(left).tobytes() == np.asarray(right).tobytes()


def layouts(X):
    """The same values in C order, Fortran order and as three strided views (one of them rows
    in reverse order, read in place)."""
    padded = np.zeros((2 * X.shape[0], 2 * X.shape[1]))
    padded[::2, ::2] = X
    reversed_ = np.ascontiguousarray(X[::-1, ::-1])[::-1, ::-1]
    upside_down = np.ascontiguousarray(X[::-1])[::-1]
    return [np.ascontiguousarray(X), np.asfortranarray(X), padded[::2, ::2], reversed_, upside_down]


@st.composite
def problems(draw):
    m = draw(st.integers(0, 700))
    n = draw(st.integers(0, 11))
    n_classes = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n)) + draw(st.floats(-5.0, 5.0)) * rng.integers(0, 2, size=n)
    kinds = draw(st.lists(st.sampled_from(["normal", "rounded", "constant", "class_constant", "integer",
                                           "zero"]), min_size=n, max_size=n))
    y = rng.integers(0, n_classes, size=m).astype(np.int32)
    for j, kind in enumerate(kinds):
        if kind == "rounded":
            X[:, j] = np.round(X[:, j], 1)
        elif kind == "constant":
            X[:, j] = rng.normal()
        elif kind == "class_constant":
            X[:, j] = rng.normal(size=n_classes)[y]
        elif kind == "integer":
            X[:, j] = rng.integers(-3, 4, size=m)
        elif kind == "zero":
            X[:, j] = 0.0
    powers = draw(st.lists(st.integers(-300, 300), min_size=n, max_size=n))
    X = X * np.array([10.0 ** p for p in powers])
    response = rng.normal(size=m) if draw(st.booleans()) else None
    layout = draw(st.integers(0, 4))
    return layouts(X)[layout], y, n_classes, response


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_column_moments_equal_the_slow_reference(problem):
    X, y, n_classes, response = problem
    counts, sums, squares, low, high, cross, exponent, nonfinite = kernel(X, y, n_classes, response)
    r_counts, r_sums, r_squares, r_low, r_high, r_cross, r_exponent = reference(np.asarray(X), y, n_classes,
                                                                                response)
    m = X.shape[0]
    np.testing.assert_array_equal(counts, r_counts)
    np.testing.assert_array_equal(exponent, r_exponent)
    np.testing.assert_array_equal(low, r_low)       # exact
    np.testing.assert_array_equal(high, r_high)
    assert not nonfinite.any()
    # scaled values are at most 1 in magnitude: absolute errors of order m * eps
    np.testing.assert_allclose(sums, r_sums, rtol=1e-12, atol=4e-16 * max(m, 1))
    np.testing.assert_allclose(squares, r_squares, rtol=1e-9, atol=1e-15 * max(m, 1))
    assert (squares[low == high] == 0.0).all()     # a class of one value: exactly no spread
    if response is None:
        assert cross is None
    else:
        scale = np.sqrt(r_squares * max(m, 1)) + 1e-300
        assert (np.abs(cross - r_cross) <= 1e-9 * scale + 1e-15 * max(m, 1)).all()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.integers(2, 3))
def test_column_moments_bitwise_the_same_for_threads_and_layouts(problem, n_threads):
    X, y, n_classes, response = problem
    one = kernel(X, y, n_classes, response, 1)
    for values in layouts(np.asarray(X)):
        assert_same_bits(one, kernel(values, y, n_classes, response, n_threads))


@pytest.fixture
def sweeps_setting():
    """The tests switch the sweeps by class off and on; the setting is put back after them.
    Without them (no AVX2, or not GCC on x86-64 Linux) there is nothing to compare."""
    if not _one_pass._sweeps_by_class_available():
        pytest.skip("this build or CPU has no sweeps by class")
    previous = _one_pass._set_sweeps_by_class(True)
    yield
    _one_pass._set_sweeps_by_class(previous)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(problems(), st.booleans())
def test_sweeps_by_class_and_by_row_give_the_same_bits(sweeps_setting, problem, nonfinite):
    """The sweeps by class (AVX2: the rows of a class, a chunk of columns held in registers) take
    the same operations in the same order as the sweeps a row at a time: the same bits (NaN and
    infinities flag the same columns, with the same extremes and the same NaN sums)."""
    X, y, n_classes, response = problem
    values = np.array(X)
    if nonfinite and values.size:   # NaN last in a block too: a swapped min or max keeps it only there
        rng = np.random.default_rng(values.shape[0])
        m, n = values.shape
        rows = [m - 1, min(m, _one_pass.BLOCK_ROWS) - 1, rng.integers(m), rng.integers(m)]
        values[rows, rng.integers(0, n, size=4)] = [np.nan, np.nan, np.inf, -np.inf]
    _one_pass._set_sweeps_by_class(False)
    by_row = [kernel(layout, y, n_classes, response) for layout in layouts(values)]
    _one_pass._set_sweeps_by_class(True)
    for layout, expected in zip(layouts(values), by_row):
        got = kernel(layout, y, n_classes, response)
        flagged = expected[7]
        np.testing.assert_array_equal(got[7], flagged)
        # a column holding NaN or an infinity has NaN sums whose sign and payload the compiler
        # leaves open (it may swap the operands of an addition); its values are not used
        clean = tuple(a if a is None or a.ndim < 2 else a[~flagged] for a in expected)
        assert_same_bits(clean, tuple(a if a is None or a.ndim < 2 else a[~flagged] for a in got))
        for a, b in zip(expected[1:6], got[1:6]):
            if a is not None:
                np.testing.assert_array_equal(a[flagged], b[flagged])


def test_sweeps_by_class_cover_every_chunk_of_columns(sweeps_setting):
    """Widths of 1 to 45 columns (every last chunk of 1-20 columns, masked or not) and of several
    panels, two and five classes, with and without a response, several blocks, both layouts,
    and (last, three threads on one chunk of rows) work items of one panel."""
    rng = np.random.default_rng(21)
    widths = list(range(1, 46)) + [56, 57, 113, 130]
    for width in widths:
        n_threads = 3 if width == widths[-1] else 1
        X = rng.normal(size=(700, width)) * 3.0 ** rng.integers(-5, 5, size=width)
        for n_classes in (2, 5):
            y = rng.integers(0, n_classes, size=700).astype(np.int32)
            response = rng.normal(size=700) if width % 2 else None
            _one_pass._set_sweeps_by_class(False)
            expected = kernel(X, y, n_classes, response)
            _one_pass._set_sweeps_by_class(True)
            for values in (X, np.asfortranarray(X)):
                assert_same_bits(expected, kernel(values, y, n_classes, response, n_threads))


# --------------------------------------------------------------- several chunks, panels, groups

@pytest.fixture(scope="module")
def tall():
    """Three chunks of rows (CHUNK_ROWS is 32,768), the last one partial; columns of every kind
    and magnitude; 3 classes, one of them small."""
    rng = np.random.default_rng(11)
    m = 2 * _one_pass.CHUNK_ROWS + 4321
    X = rng.normal(size=(m, 9)) + 3.0
    y = rng.choice(3, size=m, p=[0.6, 0.39, 0.01]).astype(np.int32)
    X[:, 1] = 2.5                                           # constant
    X[:, 2] = np.array([1.0, -2.0, 0.5])[y]                 # constant in every class
    X[:, 3] *= 1e300                                        # near the largest doubles
    X[:, 4] *= 1e-300                                       # near the smallest normal ones
    X[:, 5] = np.round(X[:, 5])
    X[m // 2, 6] = 1e6                                      # the scale grows inside a chunk
    X[:, 7] = rng.integers(0, 2, size=m)
    X[:, 8] *= 2.0 ** -1070                                 # subnormal values
    return X, y


def test_tall_matrix_equals_the_reference_and_is_thread_invariant(tall):
    X, y = tall
    response = np.sin(np.arange(X.shape[0]) / 7.0)
    one = kernel(X, y, 3, response, 1)
    counts, sums, squares, low, high, cross, exponent, nonfinite = one
    r_counts, r_sums, r_squares, r_low, r_high, r_cross, r_exponent = reference(X, y, 3, response)
    np.testing.assert_array_equal(counts, r_counts)
    np.testing.assert_array_equal(exponent, r_exponent)
    np.testing.assert_array_equal(low, r_low)
    np.testing.assert_array_equal(high, r_high)
    np.testing.assert_allclose(sums, r_sums, rtol=1e-12, atol=1e-16 * X.shape[0])
    np.testing.assert_allclose(squares, r_squares, rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(cross, r_cross, rtol=1e-8, atol=1e-12 * np.sqrt(r_squares.max() * X.shape[0]))
    assert (squares[1] == 0).all() and (squares[2] == 0).all()   # constant, constant in every class
    for n_threads in (2, 3):
        assert_same_bits(one, kernel(X, y, 3, response, n_threads))
    assert_same_bits(one, kernel(np.asfortranarray(X), y, 3, response, 2))


def test_panels_and_groups_of_columns_change_no_bit(monkeypatch):
    """More columns than a panel (PANEL_WIDTH: three of 50 here), work items of whole rows, of
    two panels and of one (two chunks of rows for one, two and three threads), column groups
    (a small STATE_BYTES) and blocks of columns passed on their own: every column's arithmetic
    is its own."""
    rng = np.random.default_rng(12)
    X = rng.normal(size=(40_000, 150)) * np.logspace(-200, 200, 150)
    y = rng.integers(0, 4, size=40_000).astype(np.int32)
    whole = kernel(X, y, 4, None, 1)
    assert_same_bits(whole, kernel(X, y, 4, None, 2))
    assert_same_bits(whole, kernel(X, y, 4, None, 3))
    monkeypatch.setattr(_one_pass, "STATE_BYTES", 1)   # groups of one panel
    assert_same_bits(whole, kernel(X, y, 4, None, 3))
    assert_same_bits(whole, kernel(np.asfortranarray(X), y, 4, None, 1))
    part = kernel(X[:, 37:101], y, 4, None, 2)
    for full, piece in zip(whole[1:], part[1:]):
        if full is not None:
            assert full[37:101].tobytes() == piece.tobytes()


def test_many_classes_use_narrow_panels_with_the_same_bits():
    rng = np.random.default_rng(13)
    X = rng.normal(size=(3000, 20))
    y = rng.integers(0, 2000, size=3000).astype(np.int32)
    one = kernel(X, y, 2000, None, 1)
    assert_same_bits(one, kernel(np.asfortranarray(X), y, 2000, None, 2))
    counts, sums, squares, low, high, *_ = one
    np.testing.assert_array_equal(counts, np.bincount(y, minlength=2000))
    np.testing.assert_array_equal(low[:, counts == 0], np.inf)
    assert (squares[:, counts <= 1] == 0).all()


@pytest.fixture
def audited_read_ahead():
    """column_moments raises where a read-ahead asked for other than each of its lines once."""
    previous = _one_pass._set_read_ahead_audit(True)
    yield
    _one_pass._set_read_ahead_audit(previous)


@pytest.mark.parametrize("ahead_bytes", [0, None, 1 << 60], ids=["next panel", "default", "next block"])
@pytest.mark.parametrize("by_class", [True, False], ids=["by class", "by row"])
def test_read_ahead_asks_for_every_line_once(audited_read_ahead, monkeypatch, ahead_bytes, by_class):
    """The read-ahead spreads the lines of the next block, or of the next panel of rows read in
    place, over the calls of the sweeps: its span must be their number, for every layout, width
    (one panel, several, a last narrower one), number of classes (narrow panels), response,
    block of rows (a last short one) and number of threads (stripes of panels).  A wrong span
    (asking too few lines, or lines past the next panel) raises under the audit."""
    if by_class and not _one_pass._sweeps_by_class_available():
        pytest.skip("this build or CPU has no sweeps by class")
    if ahead_bytes is not None:
        monkeypatch.setattr(_one_pass, "AHEAD_BLOCK_BYTES", ahead_bytes)
    previous = _one_pass._set_sweeps_by_class(by_class)
    try:
        rng = np.random.default_rng(31)
        for m, n, n_classes in [(1, 1, 1), (700, 3, 2), (1000, 57, 2), (1300, 130, 5), (600, 700, 2),
                                (2000, 41, 400), (300, 2300, 3)]:
            X = rng.normal(size=(m, n))
            y = rng.integers(0, n_classes, size=m).astype(np.int32)
            response = rng.normal(size=m) if n % 2 else None
            for values in (X, np.asfortranarray(X), X[::-1]):
                for n_threads in (1, 3):
                    kernel(values, y, n_classes, response, n_threads)
    finally:
        _one_pass._set_sweeps_by_class(previous)


# ------------------------------------------------------------------------------ exactness

@pytest.mark.parametrize("power", [-1060, -900, -300, -1, 0, 1, 300, 900, 1000])
def test_powers_of_two_change_only_the_exponent(power):
    """Multiplying a column by 2^p scales its values exactly: the same scaled sums and squares,
    the exponent moved by p (the values stay normal, or subnormal with their bits, here)."""
    rng = np.random.default_rng(14)
    X = rng.normal(size=(5000, 3)) * np.array([1.0, 4.0, 0.25])
    y = rng.integers(0, 2, size=5000)
    base = kernel(X, y, 2)
    moved = kernel(np.ldexp(X, power), y, 2)
    floor = _one_pass.EXPONENT_FLOOR
    if (base[6] + power >= floor).all():
        np.testing.assert_array_equal(moved[6], base[6] + power)
        for a, b in zip(base[1:3], moved[1:3]):
            assert a.tobytes() == b.tobytes()
    else:   # below the floor the values (subnormal: fewer bits) are multiplied by 2^1000 only
        np.testing.assert_array_equal(moved[6], floor)
        shift = power - floor + base[6]        # moved scaled values = base scaled values * 2^shift
        np.testing.assert_allclose(np.ldexp(moved[2], -2 * shift[:, None]), base[2], rtol=1e-3)


#: Extreme magnitudes: the largest doubles, subnormals (the smallest is 5e-324) and zero, mixed.
EXTREME_VALUES = np.array([1e308, -1e308, 1.7976931348623157e308, -1.7976931348623157e308, 1e-308, -1e-308,
                           5e-324, -5e-324, 2.2250738585072014e-308, 0.0, 1.0, -1.0])


def _near_the_largest_doubles(case):
    """(X, y, n_classes): class sums that overflow float64 unscaled (``case`` "largest"), or the
    largest doubles mixed with subnormals and zeros ("mixed0" .. "mixed3")."""
    if case == "largest":
        top = np.finfo(float).max
        column = np.array([top, top, -top, top, 0.5 * top, top, top])
        X = np.column_stack([column, -column, column[::-1], np.full(7, top), np.full(7, -top)])
        return X, np.array([0, 0, 0, 1, 1, 1, 1], dtype=np.int32), 2
    rng = np.random.default_rng(int(case[-1]))
    return rng.choice(EXTREME_VALUES, size=(30, 5)), rng.integers(0, 3, size=30).astype(np.int32), 3


@pytest.mark.parametrize("case", ["largest", "mixed0", "mixed1", "mixed2", "mixed3"])
def test_values_near_the_largest_doubles_equal_the_reference(case):
    """Values up to the largest double: finite scaled sums and squares equal to the reference, exact
    extremes, class means (unscaled) finite and inside their class's range -- exactly the value for
    a class of equal values -- and the same bits for any thread count and layout."""
    X, y, n_classes = _near_the_largest_doubles(case)
    one = kernel(X, y, n_classes)
    counts, sums, squares, low, high, cross, exponent, nonfinite = one
    r_counts, r_sums, r_squares, r_low, r_high, _, r_exponent = reference(X, y, n_classes)
    m = X.shape[0]
    np.testing.assert_array_equal(counts, r_counts)
    np.testing.assert_array_equal(exponent, r_exponent)
    np.testing.assert_array_equal(low, r_low)
    np.testing.assert_array_equal(high, r_high)
    assert not nonfinite.any() and np.isfinite(sums).all() and np.isfinite(squares).all()
    np.testing.assert_allclose(sums, r_sums, rtol=1e-12, atol=4e-16 * m)
    np.testing.assert_allclose(squares, r_squares, rtol=1e-9, atol=1e-15 * m)
    assert (squares[low == high] == 0.0).all()
    moments = column_moments(X, y, n_classes)
    means = np.ldexp(moments.class_means(), exponent[:, None])
    present = counts > 0
    assert np.isfinite(means[:, present]).all() and np.isnan(means[:, ~present]).all()
    assert (low[:, present] <= means[:, present]).all() and (means[:, present] <= high[:, present]).all()
    single = (low == high) & present
    np.testing.assert_array_equal(means[single], low[single])
    if case == "largest":
        assert (exponent == 1024).all()
        assert means[3].tolist() == [X[0, 3]] * 2 and means[4].tolist() == [X[0, 4]] * 2
    for n_threads in (1, 2):
        for values in layouts(X):
            assert_same_bits(one, kernel(values, y, n_classes, None, n_threads))


def test_the_inputs_are_left_unchanged():
    """Read-only X (in every layout), codes and response are accepted and left as they were."""
    rng = np.random.default_rng(19)
    X = rng.normal(size=(700, 9)) * np.logspace(-100, 100, 9)
    y = rng.integers(0, 3, size=700).astype(np.int32)
    response = rng.normal(size=700)
    y_copy, response_copy = y.copy(), response.copy()
    y.flags.writeable = False
    response.flags.writeable = False
    for values in layouts(X):
        before = values.copy()
        values.flags.writeable = False
        kernel(values, y, 3, response, 2)
        column_moments(values, y, 3, response, n_threads=2)
        assert values.tobytes() == before.tobytes()
    assert y.tobytes() == y_copy.tobytes() and response.tobytes() == response_copy.tobytes()


def test_nonfinite_values_are_flagged_per_column_without_touching_the_others():
    rng = np.random.default_rng(15)
    X = rng.normal(size=(1000, 5))
    y = rng.integers(0, 2, size=1000)
    clean = kernel(X, y, 2)
    X[17, 1] = np.nan
    X[500, 2] = np.inf
    X[999, 3] = -np.inf
    flagged = kernel(X, y, 2)
    np.testing.assert_array_equal(flagged[7], [False, True, True, True, False])
    for a, b in zip(clean[1:6], flagged[1:6]):
        if a is not None:
            assert a[[0, 4]].tobytes() == b[[0, 4]].tobytes()
    X[:, 4] = np.nan                       # a column of NaN only
    assert kernel(X, y, 2)[7][4]
    with pytest.raises(ValueError, match="X: non-finite values"):
        column_moments(X, y, 2)


def test_empty_inputs():
    counts, sums, squares, low, high, cross, exponent, nonfinite = kernel(np.zeros((0, 3)), np.zeros(0), 2)
    np.testing.assert_array_equal(counts, [0, 0])
    assert sums.shape == (3, 2) and (low == np.inf).all() and not nonfinite.any()
    out = kernel(np.zeros((5, 0)), np.zeros(5), 2)
    np.testing.assert_array_equal(out[0], [5, 0])
    assert out[1].shape == (0, 2)


@pytest.mark.parametrize("change, name", [
    (dict(X=np.zeros((4, 3), dtype=np.float32)), "X"),
    (dict(X=np.zeros(4)), "X"),
    (dict(X=[[1.0, 2.0]] * 4), "X"),
    (dict(y=np.zeros(4, dtype=np.int64)), "y"),
    (dict(y=np.zeros(5, dtype=np.int32)), "y"),
    (dict(y=np.array([0, 1, 2, 0], dtype=np.int32)), "y"),
    (dict(y=np.array([0, -1, 1, 0], dtype=np.int32)), "y"),
    (dict(n_classes=0), "n_classes"),
    (dict(response=np.zeros(3)), "response"),
    (dict(response=np.zeros(4, dtype=np.float32)), "response"),
    (dict(n_threads=0), "n_threads"),
])
def test_bad_arguments_name_the_argument(change, name):
    arguments = dict(X=np.zeros((4, 3)), y=np.array([0, 1, 1, 0], dtype=np.int32), n_classes=2, response=None,
                     n_threads=1)
    arguments.update(change)
    with pytest.raises(ValueError, match=name):
        _one_pass.column_moments(arguments["X"], arguments["y"], arguments["n_classes"], arguments["response"],
                                 arguments["n_threads"])


def test_strides_not_whole_doubles_are_copied_by_the_wrapper_and_refused_by_the_kernel():
    buffer = np.zeros(200, dtype=np.uint8)
    X = np.ndarray((4, 3), dtype=np.float64, buffer=buffer, offset=0, strides=(28, 8))
    y = np.array([0, 1, 1, 0], dtype=np.int32)
    with pytest.raises(ValueError, match="X: strides"):
        _one_pass.column_moments(X, y, 2, None, 1)
    assert column_moments(X, y, 2).counts.tolist() == [2, 2]


# ------------------------------------------------------------------------------ the filters

def test_fisher_scores_keep_their_guarantees():
    rng = np.random.default_rng(16)
    y = rng.integers(0, 3, size=3000)
    X = rng.normal(size=(3000, 6))
    X[:, 1] = 7.0                                   # constant: 0
    X[:, 2] = np.array([0.1, 0.3, 0.7])[y]          # constant in every class: inf
    X[:, 3] = X[:, 0] * 1e300                       # the score of column 0 at any scale
    X[:, 4] = X[:, 0] * 1e-300
    X[:, 5] = X[:, 0] * 2.0 ** 40                   # exactly column 0's (a power of two)
    scores, between, within = fisher_scores(X, y)
    assert scores[1] == 0.0 and scores[2] == math.inf
    assert within[2] == 0.0
    np.testing.assert_allclose(scores[[3, 4]], scores[0], rtol=1e-12)
    assert scores[5] == scores[0]
    assert np.isinf(between[3]) and within[4] == 0.0   # the variances themselves leave the range
    for n_threads in (2, 3):
        for a, b in zip((scores, between, within), fisher_scores(np.asfortranarray(X), y, n_threads)):
            assert a.tobytes() == b.tobytes()


def test_statistical_filters_are_thread_and_layout_invariant():
    rng = np.random.default_rng(17)
    m = 40_000
    X = rng.normal(size=(m, 7))
    y = rng.integers(0, 3, size=m)
    response = X[:, 0] + rng.normal(size=m)
    counts = np.abs(X)
    for function, data, target in ((lambda A, t, k: f_test_scores(A, t, "class", k), X, y),
                                   (lambda A, t, k: f_test_scores(A, t, "continuous", k), X, response),
                                   (lambda A, t, k: pearson_scores(A, t, k), X, response),
                                   (lambda A, t, k: chi2_scores(A, t, k), counts, y)):
        one = function(data, target, 1)
        for n_threads in (2, 3):
            for values in (data, np.asfortranarray(data)):
                other = function(values, target, n_threads)
                for a, b in zip(one, other):
                    assert np.asarray(a).tobytes() == np.asarray(b).tobytes()


def test_pearson_and_f_test_near_the_float64_limits():
    rng = np.random.default_rng(18)
    x = rng.normal(size=500)
    response = x + rng.normal(size=500)
    X = np.column_stack([x, x * 1e300, x * 1e-300, x * 1e-310])
    r, _, _ = pearson_scores(X, response)
    np.testing.assert_allclose(r, r[0], rtol=1e-9)
    F, _, _, _ = f_test_scores(X, (response > 0).astype(int))
    np.testing.assert_allclose(F, F[0], rtol=1e-9)

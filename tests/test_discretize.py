"""Tests of fstools.core.discretize."""
import tracemalloc
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fstools.core.discretize as discretize_module
from fstools.core.discretize import (
    code_dtype,
    discrete_columns,
    discretize,
    equal_frequency_levels,
    equal_width_levels,
    factorize_columns,
    information_codes,
    mu_sigma_levels,
)
from fstools.methods import information
from references.information import information_codes_ref, mu_sigma_levels_ref


def check_convention(codes, levels, n_samples, n_features, dtype=np.int8):
    assert codes.dtype == dtype and levels.dtype == np.int32
    assert codes.shape == (n_features, n_samples)
    assert codes.flags.c_contiguous
    assert levels.shape == (n_features,)
    assert np.all(codes >= 0) and np.all(codes < levels[:, None])


# ---------------------------------------------------------------------------
# mu / sigma nine-level scheme
# ---------------------------------------------------------------------------

value = st.one_of(
    st.sampled_from([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 7.0]),  # many ties
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
)


@st.composite
def matrices(draw, elements=value, max_rows=30, max_cols=4):
    n_rows = draw(st.integers(1, max_rows))
    n_cols = draw(st.integers(1, max_cols))
    rows = draw(st.lists(st.lists(elements, min_size=n_cols, max_size=n_cols),
                         min_size=n_rows, max_size=n_rows))
    return np.array(rows, dtype=float)


@given(matrices())
@settings(max_examples=300, deadline=None)
def test_mu_sigma_matches_brute_force(X):
    codes, levels = mu_sigma_levels(X)
    check_convention(codes, levels, *X.shape)
    assert np.all(levels == 9)
    np.testing.assert_array_equal(codes, mu_sigma_levels_ref(X))


# Columns built so that the mean and the sd (ddof=1) are exact: offsets d (integers, in
# "units" of ``scale``) come in pairs +-a, so sum d = 0, and zeros are added until
# sum d^2 = 4 (n - 1), so sd = 2 units.  The interval boundaries mu +- (0.5, 1.5, 2.5, 3.5) sd
# are then mu +- (1, 3, 5, 7) units: every odd offset up to 7 sits exactly on a boundary.
# Level of an offset of |d| units, read off the interval table by hand:
#   |d| <= 1 -> 0, 1 < |d| <= 3 -> 1, 3 < |d| <= 5 -> 2, 5 < |d| <= 7 -> 3, |d| > 7 -> 4 (truncated)
LEVEL_OF_OFFSET = {0: 0, 1: 0, 2: 1, 3: 1, 4: 2, 5: 2, 6: 3, 7: 3, 8: 4, 9: 4, 11: 4, 13: 4}
ODD = [1, 3, 5, 7, 9, 11, 13]


@st.composite
def boundary_columns(draw):
    """(column, mu, sd, expected codes) for a column whose mean and sd are exact."""
    odd = draw(st.lists(st.sampled_from(ODD), min_size=1, max_size=6))
    if len(odd) % 2:  # an even number of odd pairs keeps sum d^2 divisible by 4
        odd.append(draw(st.sampled_from(ODD)))
    even = draw(st.lists(st.sampled_from([2, 4, 6, 8]), max_size=4))
    offsets = [d for a in odd + even for d in (a, -a)]
    while sum(d * d for d in offsets) // 4 - len(offsets) + 1 < 0:  # too few large offsets
        offsets += [13, -13, 13, -13]
    offsets += [0] * (sum(d * d for d in offsets) // 4 - len(offsets) + 1)
    assert sum(offsets) == 0 and sum(d * d for d in offsets) == 4 * (len(offsets) - 1)
    offsets = draw(st.permutations(offsets))
    scale = draw(st.sampled_from([0.25, 0.5, 1.0, 4.0]))  # powers of two keep everything exact
    mu = draw(st.sampled_from([0.0, 10.0, -3.5, 1024.0]))
    column = np.array([mu + d * scale for d in offsets])
    expected = np.array([np.sign(d) * LEVEL_OF_OFFSET[abs(d)] for d in offsets], dtype=np.int32) + 4
    return column, mu, 2 * scale, expected


@given(boundary_columns())
@settings(max_examples=300, deadline=None)
def test_mu_sigma_values_exactly_on_boundaries(case):
    column, mu, sd, expected = case
    assert column.mean() == mu and column.std(ddof=1) == sd  # the construction is exact
    X = column[:, None]
    codes, _ = mu_sigma_levels(X)
    np.testing.assert_array_equal(codes[0], expected)
    np.testing.assert_array_equal(codes, mu_sigma_levels_ref(X))
    # the same columns side by side in one matrix (with an unrelated column in between)
    X2 = np.column_stack([column, np.arange(column.size) ** 2, column[::-1]])
    codes2, _ = mu_sigma_levels(X2)
    np.testing.assert_array_equal(codes2[0], expected)
    np.testing.assert_array_equal(codes2[2], expected[::-1])
    np.testing.assert_array_equal(codes2, mu_sigma_levels_ref(X2))


def test_mu_sigma_matches_brute_force_on_larger_data():
    rng = np.random.default_rng(7)
    X = np.round(rng.standard_t(3, size=(3000, 6)) * [1, 10, 0.1, 1, 5, 100], 1)  # heavy tails, ties
    X[:, 3] = np.round(X[:, 3])
    np.testing.assert_array_equal(mu_sigma_levels(X)[0], mu_sigma_levels_ref(X))


# ---------------------------------------------------------------------------
# extreme magnitudes: the codes are those of the column rescaled
# ---------------------------------------------------------------------------

DBL_MAX = np.finfo(np.float64).max
HUGE = np.array([1e308, -1e308, 5e307, -3e307, 1e307, 0.0, 2e306, -DBL_MAX, DBL_MAX, 8e307])
TINY = np.array([1e-308, 2e-308, -1e-308, 5e-324, 0.0, 3e-310, -4e-309, 2.5e-308, 1.5e-308])  # subnormals
MIXED = np.array([1e308, -1e308, 1e-308, -3e307, 7e306, 1.0, 5e-324, 4e305, -2.5, 6e307])


def _dense_ranks(column):
    """0..L-1 in the order of the distinct values: a strictly increasing map of the column."""
    return np.unique(column, return_inverse=True)[1].astype(float)


@pytest.mark.parametrize("column, rescaled", [
    (HUGE, HUGE / 1e300),     # mean and variance of the column itself overflow
    (MIXED, MIXED / 1e300),   # (the tiny values underflow to 0 after the division, negligibly)
    (TINY, TINY * 1e300),     # the variance underflows to 0
], ids=["huge", "mixed", "tiny"])
def test_extreme_magnitudes_code_like_the_rescaled_column(column, rescaled):
    X = np.column_stack([column, rescaled, -column, np.arange(column.size, dtype=float)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning (overflow, invalid value)
        codes, _ = mu_sigma_levels(X)
        width, _ = equal_width_levels(X, 4)
        frequency, _ = equal_frequency_levels(X, 3)
        frequency_of_ranks, _ = equal_frequency_levels(_dense_ranks(column)[:, None], 3)
    np.testing.assert_array_equal(codes[0], codes[1])
    np.testing.assert_array_equal(codes[2], 8 - codes[0])  # levels are odd in the values
    assert np.unique(codes[0]).size > 1  # not mistaken for a constant column
    np.testing.assert_array_equal(codes, mu_sigma_levels_ref(X))
    np.testing.assert_array_equal(width[0], width[1])
    assert width[0].min() == 0 and width[0].max() == 3
    # equal-frequency codes depend on the order of the values only
    np.testing.assert_array_equal(frequency[0], frequency_of_ranks[0])


def test_extreme_magnitudes_hand_values():
    # 1e308 * (1, 1, 1, -1, -1, -1, 0, 0): mu = 0, sd = 1e308 * sqrt(6/7) = 0.926e308;
    # +-1e308 is 1.08 sd from mu -> levels +-1 (codes 5, 3), 0 -> level 0 (code 4).
    # Computed directly, the sum of squares (6e616) overflows.
    column = 1e308 * np.array([1.0, 1, 1, -1, -1, -1, 0, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(mu_sigma_levels(column[:, None])[0], [[5, 5, 5, 3, 3, 3, 4, 4]])
        # the same with subnormal numbers, whose squares underflow to 0
        np.testing.assert_array_equal(mu_sigma_levels(column[:, None] * 1e-323 / 1e308)[0],
                                      [[5, 5, 5, 3, 3, 3, 4, 4]])
        # two values, 0 and the smallest normal number: like 0 and 1 (codes 3, 5)
        np.testing.assert_array_equal(mu_sigma_levels(np.array([[0.0], [2.2250738585072014e-308]]))[0],
                                      [[3, 5]])
        # equal width over [-1e308, 1e308], 4 bins: cuts -5e307, 0, 5e307 (up to rounding)
        X = np.array([[-1e308], [-6e307], [-4e307], [-1e306], [1e306], [4e307], [6e307], [1e308]])
        np.testing.assert_array_equal(equal_width_levels(X, 4)[0], [[0, 0, 1, 1, 2, 2, 3, 3]])


@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False).filter(lambda v: v == 0 or abs(v) > 1e-3),
                min_size=2, max_size=30),
       st.integers(-1010, 1010), st.integers(2, 6))
@settings(max_examples=200, deadline=None)
def test_codes_do_not_change_under_power_of_two_scaling(values, exponent, n_bins):
    # multiplying by 2**exponent is exact here (every value stays a normal number), so the
    # codes must be exactly those of the unscaled column, whatever the magnitude
    column = np.array(values)
    scaled = np.ldexp(column, exponent)
    assert np.array_equal(np.ldexp(scaled, -exponent), column)
    X = np.column_stack([column, scaled])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for function, args in ((mu_sigma_levels, ()), (equal_width_levels, (n_bins,)),
                               (equal_frequency_levels, (n_bins,))):
            codes, _ = function(X, *args)
            np.testing.assert_array_equal(codes[1], codes[0])


def test_mu_sigma_hand_example_uses_ddof_1():
    # column 7, 9, 10, 10, 11, 13: mu = 10, offsets -3, -1, 0, 0, 1, 3,
    # sum of squares 20, sd with ddof=1 = sqrt(20 / 5) = 2, so the level-0 interval is [9, 11]
    # (9 and 11 are on its closed ends) and 7, 13 are on the outer ends of levels -1, 1:
    # levels -1, 0, 0, 0, 0, 1 -> codes 3, 4, 4, 4, 4, 5.
    # (With ddof=0, sd = sqrt(20/6) = 1.826 and the levels would be -2, -1, 0, 0, 1, 2.)
    X = np.array([[7.0], [9.0], [10.0], [10.0], [11.0], [13.0]])
    codes, levels = mu_sigma_levels(X)
    np.testing.assert_array_equal(codes, [[3, 4, 4, 4, 4, 5]])
    np.testing.assert_array_equal(levels, [9])


def test_mu_sigma_truncation():
    # 99 zeros and one 100: mu = 1, sd = sqrt((99 * 1 + 99^2) / 99) = sqrt(100) = 10.
    # zeros: offset -1 = -0.1 sd -> level 0; 100: offset 99 = 9.9 sd -> level 4 (truncated).
    column = np.zeros(100)
    column[-1] = 100.0
    X = np.column_stack([column, -column])
    codes, _ = mu_sigma_levels(X)
    np.testing.assert_array_equal(codes[0], [4] * 99 + [8])
    np.testing.assert_array_equal(codes[1], [4] * 99 + [0])


def test_mu_sigma_constant_columns_and_single_row():
    X = np.array([[0.1, 5.0, 1.0], [0.1, 5.0, 2.0], [0.1, 5.0, 3.0]] * 7)
    codes, levels = mu_sigma_levels(X)
    assert np.all(codes[0] == 4) and np.all(codes[1] == 4)
    assert len(np.unique(codes[2])) > 1
    np.testing.assert_array_equal(levels, [9, 9, 9])
    codes, levels = mu_sigma_levels(np.array([[3.0, -1.0]]))
    np.testing.assert_array_equal(codes, [[4], [4]])


def test_mu_sigma_is_per_column_and_does_not_modify_X():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3)) * [1.0, 100.0, 1e-3] + [0.0, 5.0, -2.0]
    X_before = X.copy()
    codes, _ = mu_sigma_levels(X)
    np.testing.assert_array_equal(X, X_before)
    for j in range(3):
        single, _ = mu_sigma_levels(X[:, [j]])
        np.testing.assert_array_equal(codes[j], single[0])
    # Fortran-ordered input gives the same codes
    np.testing.assert_array_equal(mu_sigma_levels(np.asfortranarray(X))[0], codes)


# ---------------------------------------------------------------------------
# equal width / equal frequency / factorize
# ---------------------------------------------------------------------------

def test_equal_width_hand_values():
    # range [0, 10], 5 bins: cuts 2, 4, 6, 8; bins right-closed, minimum in the first bin
    X = np.array([[0.0], [2.0], [2.5], [4.0], [7.9], [8.0], [8.1], [10.0]])
    codes, levels = equal_width_levels(X, 5)
    np.testing.assert_array_equal(codes, [[0, 0, 1, 1, 3, 3, 4, 4]])
    np.testing.assert_array_equal(levels, [5])


def test_equal_frequency_hand_values():
    # 1..12 in 4 bins: cut k is the smallest value with at least 3k values <= it: 3, 6, 9;
    # right-closed bins (.., 3], (3, 6], (6, 9], (9, ..) -> three values per bin
    X = np.arange(1.0, 13.0)[:, None]
    codes, levels = equal_frequency_levels(X, 4)
    np.testing.assert_array_equal(codes, [[0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]])
    np.testing.assert_array_equal(levels, [4])
    # ties stay together: the cut is 0 (6 of 8 values <= 0), all zeros go to the first bin
    X = np.array([[0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [1.0], [2.0]])
    codes, _ = equal_frequency_levels(X, 2)
    np.testing.assert_array_equal(codes, [[0, 0, 0, 0, 0, 0, 1, 1]])


@given(matrices(), st.integers(2, 6))
@settings(max_examples=200, deadline=None)
def test_binning_properties(X, n_bins):
    for function in (equal_width_levels, equal_frequency_levels):
        codes, levels = function(X, n_bins)
        check_convention(codes, levels, *X.shape, np.int8)
        assert np.all(levels == n_bins)
        for j in range(X.shape[1]):
            column, code = X[:, j], codes[j]
            order = np.argsort(column, kind="stable")
            assert np.all(np.diff(code[order]) >= 0)  # order-preserving; equal values share a code
            if column.min() == column.max():
                assert np.all(code == 0)
            else:
                assert code[np.argmin(column)] == 0
                low, high = column.min(), column.max()
                if function is equal_width_levels and high - low > 1e-9 * max(abs(low), abs(high)):
                    # (for a spread of a few ulps, a rounded cut point may equal the maximum)
                    assert code[np.argmax(column)] == n_bins - 1


@given(st.integers(2, 6), st.integers(1, 6), st.data())
@settings(max_examples=100, deadline=None)
def test_equal_frequency_distinct_values_fill_bins_equally(n_bins, per_bin, data):
    values = data.draw(st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=n_bins * per_bin,
                                max_size=n_bins * per_bin, unique=True))
    codes, _ = equal_frequency_levels(np.array(values)[:, None], n_bins)
    np.testing.assert_array_equal(np.bincount(codes[0], minlength=n_bins), [per_bin] * n_bins)


def test_equal_width_and_frequency_more_hand_values():
    # unsorted column with ties, 3 bins.  Equal width: range [0, 9], cuts 3, 6.
    # Equal frequency: 9 values, cut 1 = smallest v with >= 3 values <= v = 1,
    # cut 2 = smallest v with >= 6 values <= v = 5.
    column = np.array([9.0, 1.0, 5.0, 0.0, 3.0, 1.0, 6.0, 5.0, 8.0])
    X = column[:, None]
    np.testing.assert_array_equal(equal_width_levels(X, 3)[0], [[2, 0, 1, 0, 0, 0, 1, 1, 2]])
    np.testing.assert_array_equal(equal_frequency_levels(X, 3)[0], [[2, 0, 1, 0, 1, 0, 2, 1, 2]])
    # 16 distinct values, two of them (0 and the smallest subnormal) adjacent floats:
    # interpolated quantiles would put the cut on 5e-324; the empirical ones give 4 per bin
    X = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 0.5, 0.25, 0.125, 5e-324, -1, -2, -3])[:, None]
    np.testing.assert_array_equal(np.bincount(equal_frequency_levels(X, 4)[0][0]), [4, 4, 4, 4])
    # a range that overflows when computed as max - min
    X = np.array([[-1e308], [-1.0], [1.0], [1e308]])
    np.testing.assert_array_equal(equal_width_levels(X, 2)[0], [[0, 0, 1, 1]])


def test_factorize_columns():
    X = np.array([[3.0, 1.0, -2.5], [1.0, 1.0, 0.0], [3.0, 1.0, -2.5], [2.0, 1.0, 7.0]])
    codes, levels = factorize_columns(X)
    check_convention(codes, levels, 4, 3, np.int8)
    np.testing.assert_array_equal(codes, [[2, 0, 2, 1], [0, 0, 0, 0], [0, 1, 0, 2]])
    np.testing.assert_array_equal(levels, [3, 1, 3])
    # integer input is used as it is
    codes_int, _ = factorize_columns(X.astype(np.int64))
    np.testing.assert_array_equal(codes_int[0], [2, 0, 2, 1])


def test_discretize_dispatch():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    for got, want in [
        (discretize(X), mu_sigma_levels(X)),
        (discretize(X, "mu_sigma"), mu_sigma_levels(X)),
        (discretize(X, "equal_width", n_bins=4), equal_width_levels(X, 4)),
        (discretize(X, "equal_frequency", n_bins=3), equal_frequency_levels(X, 3)),
        (discretize(np.round(X), "none"), factorize_columns(np.round(X))),
    ]:
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("n_bins", [1, 0, -3, 2.5, "3", True, None])
def test_bad_n_bins(n_bins):
    X = np.arange(6.0).reshape(3, 2)
    for function in (equal_width_levels, equal_frequency_levels):
        with pytest.raises(ValueError, match=r"^n_bins: must be an integer >= 2 and <= 32767; got"):
            function(X, n_bins)


def test_discretize_errors():
    X = np.arange(6.0).reshape(3, 2)
    with pytest.raises(ValueError, match=r"^method: must be one of 'mu_sigma', 'equal_width', "
                                         r"'equal_frequency', 'none'; got 'kmeans'"):
        discretize(X, "kmeans")
    with pytest.raises(ValueError, match="^n_bins: required by method='equal_width'"):
        discretize(X, "equal_width")
    with pytest.raises(ValueError, match="^n_bins: only used with"):
        discretize(X, "mu_sigma", n_bins=3)
    with pytest.raises(ValueError, match="^n_bins: must be an integer >= 2"):
        discretize(X, "equal_frequency", n_bins=1)


@pytest.mark.parametrize("function", [mu_sigma_levels, factorize_columns,
                                      lambda X: equal_width_levels(X, 3),
                                      lambda X: equal_frequency_levels(X, 3), discretize])
def test_bad_X(function):
    with pytest.raises(ValueError, match=r"^X: must contain only finite values; got nan at row 1, column 0"):
        function(np.array([[0.0, 1.0], [np.nan, 2.0]]))
    with pytest.raises(ValueError, match=r"^X: must contain only finite values; got inf"):
        function(np.array([[0.0, np.inf], [1.0, 2.0]]))
    with pytest.raises(ValueError, match=r"^X: must be a 2-D array"):
        function(np.arange(3.0))
    with pytest.raises(ValueError, match=r"^X: must have at least one row"):
        function(np.empty((0, 2)))
    with pytest.raises(ValueError, match=r"^X: cannot be converted to float"):
        function(np.array([["a", "b"]]))


# ---------------------------------------------------------------------------
# code dtypes: the smallest type that holds the levels
# ---------------------------------------------------------------------------

def test_code_dtype():
    assert code_dtype(1) == np.int8 and code_dtype(9) == np.int8 and code_dtype(127) == np.int8
    assert code_dtype(128) == np.int16 and code_dtype(32767) == np.int16
    assert code_dtype(32768) == np.int32


def test_mu_sigma_codes_are_int8():
    X = np.random.default_rng(3).normal(size=(500, 4))
    codes, levels = mu_sigma_levels(X)
    check_convention(codes, levels, 500, 4, np.int8)
    assert codes.nbytes == X.size  # one byte per value
    codes, levels, _ = information_codes(X)
    check_convention(codes, levels, 500, 4, np.int8)


@pytest.mark.parametrize("n_bins, dtype", [(2, np.int8), (127, np.int8), (128, np.int16),
                                           (200, np.int16), (32767, np.int16)])
def test_binned_codes_dtype(n_bins, dtype):
    rng = np.random.default_rng(n_bins)
    X = rng.normal(size=(1000, 3))
    X[:, 2] = rng.integers(0, 5, 1000)  # a discrete column: used as it is by information_codes
    for function in (equal_width_levels, equal_frequency_levels):
        codes, levels = function(X, n_bins)
        check_convention(codes, levels, 1000, 3, dtype)
    for discretization in ("equal_width", "equal_frequency"):
        codes, levels, as_is = information_codes(X, discretization, n_bins)
        check_convention(codes, levels, 1000, 3, dtype)
        np.testing.assert_array_equal(as_is, [False, False, True])
        np.testing.assert_array_equal(codes[2], X[:, 2])
        assert levels[2] == 5


def test_equal_width_200_bins_matches_the_definition():
    # int16 codes: the bin of v is the number of cut points min + k (max - min) / 200 below v
    rng = np.random.default_rng(5)
    X = rng.uniform(-3.0, 5.0, size=(3000, 1))
    codes, _ = equal_width_levels(X, 200)
    assert codes.dtype == np.int16 and codes.max() == 199 and codes.min() == 0
    low, high = X.min(), X.max()
    cuts = low + np.arange(1, 200) * ((high - low) / 200)
    expected = np.array([sum(c < v for c in cuts) for v in X[:, 0]])
    near_a_cut = np.min(np.abs(X[:, 0, None] - cuts[None, :]), axis=1) < 1e-12
    np.testing.assert_array_equal(codes[0][~near_a_cut], expected[~near_a_cut])


@pytest.mark.parametrize("n_bins", [32768, 40000, 10 ** 9])
def test_too_many_bins_is_a_clear_error(n_bins):
    X = np.arange(12.0).reshape(6, 2)
    message = rf"^n_bins: must be an integer >= 2 and <= 32767 \(the codes are stored as int16 at most\); got {n_bins}"
    for call in (lambda: equal_width_levels(X, n_bins), lambda: equal_frequency_levels(X, n_bins),
                 lambda: discretize(X, "equal_width", n_bins=n_bins),
                 lambda: information_codes(X, "equal_frequency", n_bins)):
        with pytest.raises(ValueError, match=message):
            call()
    y = np.array([0, 1, 0, 1, 0, 1])
    with pytest.raises(ValueError, match="^n_bins: must be an integer >= 2 and <= 32767"):
        information.mrmr(X, y, discretization="equal_width", n_bins=n_bins)


def test_factorize_columns_widens_the_code_type_as_needed():
    rng = np.random.default_rng(2)
    for n_distinct, dtype in ((127, np.int8), (128, np.int16), (32767, np.int16), (32768, np.int32)):
        column = rng.permutation(np.repeat(np.arange(n_distinct) * 0.5, 2))
        X = np.column_stack([np.zeros(column.size), column, np.ones(column.size)])
        codes, levels = factorize_columns(X)
        check_convention(codes, levels, column.size, 3, dtype)
        np.testing.assert_array_equal(levels, [1, n_distinct, 1])
        np.testing.assert_array_equal(codes[1], (column * 2).astype(np.int64))  # sorted order
        assert np.all(codes[0] == 0) and np.all(codes[2] == 0)


# ---------------------------------------------------------------------------
# block-wise processing: no float64 copy of the whole of X
# ---------------------------------------------------------------------------

def _all_codes(X):
    return [mu_sigma_levels(X), equal_width_levels(X, 5), equal_frequency_levels(X, 4),
            factorize_columns(np.round(X)), (discrete_columns(X),),
            information_codes(X), information_codes(X, "equal_width", 150)]


@pytest.mark.parametrize("block_values", [1, 50, 333])
def test_blocks_give_the_same_codes(monkeypatch, block_values):
    rng = np.random.default_rng(9)
    X = rng.normal(size=(60, 17)) * rng.choice([1e-200, 1.0, 1e200], 17)
    X[:, 3] = rng.integers(0, 4, 60)   # discrete
    X[:, 5] = 2.5                      # constant
    X[:, 8] = np.round(X[:, 8])
    whole = _all_codes(X)
    monkeypatch.setattr(discretize_module, "BLOCK_VALUES", block_values)
    for X_variant in (X, np.asfortranarray(X)):
        for got, want in zip(_all_codes(X_variant), whole):
            for a, b in zip(got, want):
                np.testing.assert_array_equal(a, b)
                assert a.dtype == b.dtype
    # the reference of information_codes, and integer and float32 input without conversion first
    np.testing.assert_array_equal(information_codes(X)[0], information_codes_ref(X))
    Xi = rng.integers(-5, 50, size=(40, 6))
    np.testing.assert_array_equal(mu_sigma_levels(Xi)[0], mu_sigma_levels(Xi.astype(float))[0])
    X32 = rng.normal(size=(40, 6)).astype(np.float32)
    np.testing.assert_array_equal(equal_width_levels(X32, 7)[0], equal_width_levels(X32.astype(float), 7)[0])


def test_bad_X_non_finite_found_in_a_later_block(monkeypatch):
    monkeypatch.setattr(discretize_module, "BLOCK_VALUES", 4)
    X = np.zeros((10, 3))
    X[7, 2] = -np.inf
    X[9, 0] = np.nan
    with pytest.raises(ValueError, match=r"^X: must contain only finite values; got -inf at row 7, column 2 "
                                         r"\(2 non-finite value"):
        mu_sigma_levels(X)


@pytest.mark.parametrize("function", [mu_sigma_levels, lambda X: equal_width_levels(X, 200),
                                      lambda X: information_codes(X)[0]],
                         ids=["mu_sigma", "equal_width_200", "information_codes"])
def test_no_float64_copy_of_the_whole_data(monkeypatch, function):
    # peak NumPy allocations (tracemalloc) while discretising a 4 MB X: the codes (1 or 2
    # bytes per value) plus a few blocks, far below one float64 copy of X (the old
    # implementation made two: the transposed X and its varying rows)
    monkeypatch.setattr(discretize_module, "BLOCK_VALUES", 2 ** 13)
    X = np.random.default_rng(1).normal(size=(5000, 100))
    function(X[:50])  # warm-up (imports, caches)
    tracemalloc.start()
    try:
        function(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 0.4 * X.nbytes, f"peak {peak} bytes for an X of {X.nbytes} bytes"

"""Tests of fstools.discretize."""
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fstools.discretize import (
    discretize,
    equal_frequency_levels,
    equal_width_levels,
    factorize_columns,
    mu_sigma_levels,
)
from reference import mu_sigma_levels_ref


def check_convention(codes, levels, n_samples, n_features):
    assert codes.dtype == np.int32 and levels.dtype == np.int32
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
@example(np.array([[0.0], [2.2250738585072014e-308]]))  # sd underflows to 0: treated as constant
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


def test_mu_sigma_overflow_is_a_clear_error():
    with pytest.raises(ValueError, match="^X: .*overflows; rescale X"):
        mu_sigma_levels(np.array([[1e308], [-1e308], [0.0]]))


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
        check_convention(codes, levels, *X.shape)
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
    check_convention(codes, levels, 4, 3)
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
        with pytest.raises(ValueError, match=r"^n_bins: must be an integer >= 2; got"):
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

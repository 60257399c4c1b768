"""The radix sort of the kernels (fstools._ext._sorting.sort_by_value): the order of the values
and then of the indices, as NumPy's lexsort and the merge sort it replaced give it."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fstools._ext import _sorting

# Finite and infinite doubles, both zeros, subnormals, and few distinct values (ties).
VALUES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=True, allow_subnormal=True, width=64),
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324, 2.0 ** -1022, np.inf, -np.inf, 1.7976931348623157e308]),
)


def _reference(x):
    """Indices by (value, index): NumPy's lexsort (the last key first)."""
    return np.lexsort((np.arange(len(x)), x))


@settings(max_examples=300, deadline=None)
@given(hnp.arrays(np.float64, st.integers(0, 300), elements=VALUES))
def test_order_and_values_equal_lexsort(x):
    order, values = _sorting.argsort_by_value(x)
    expected = _reference(x)
    np.testing.assert_array_equal(order, expected)
    np.testing.assert_array_equal(values, x[expected])             # -0.0 == 0.0 here
    np.testing.assert_array_equal(order, _sorting.argsort_stable(np.ascontiguousarray(x)))
    assert not np.signbit(values[values == 0]).any()                # zeros come back as +0.0


@settings(max_examples=100, deadline=None)
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 60), st.integers(1, 5)), elements=VALUES),
       st.integers(0, 4))
def test_a_strided_column_is_read_in_place(X, column):
    column = column % X.shape[1]
    for layout in (np.ascontiguousarray(X), np.asfortranarray(X)):
        order, values = _sorting.argsort_by_value(layout[:, column])
        np.testing.assert_array_equal(order, _reference(X[:, column]))


@pytest.mark.parametrize("n", [1, 2047, 2048, 2049, 100_000])
def test_large_and_boundary_sizes(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n)
    x[rng.integers(0, n, n // 3)] = x[0]   # many ties with one value
    order, values = _sorting.argsort_by_value(x)
    np.testing.assert_array_equal(order, _reference(x))
    assert np.all(np.diff(values) >= 0)

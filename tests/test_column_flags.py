"""The one-pass checks of a design: non-finite and constant columns.

:func:`fstools.core.arrays.nonfinite_and_constant_columns` (the kernel
:func:`fstools._ext._moments.column_flags`) against the obvious NumPy,
``~np.isfinite(X).all(axis=0)`` and ``(X == X[0]).all(axis=0)``, for random matrices with ties,
constant columns, NaN, infinities, extreme and subnormal values, in C and Fortran order and
as strided views, across the kernel's block of 256 columns, for 1 and 2 threads; and the
messages of :func:`fstools.model.validation.checked_constant_columns`, which select uses.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fstools.core.arrays import nonfinite_and_constant_columns
from fstools.model.validation import checked_constant_columns

SPECIAL = [0.0, -0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 1e308, -1e308, 5e-324, 2.0 ** 52, 0.5]


def _reference(X):
    nonfinite = ~np.isfinite(X).all(axis=0)
    constant = (X == X[0]).all(axis=0) & ~nonfinite if X.shape[0] else np.ones(X.shape[1], dtype=bool)
    return nonfinite, constant


@st.composite
def matrices(draw):
    m = draw(st.integers(1, 40))
    n = draw(st.integers(1, 600))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    X = rng.integers(0, draw(st.integers(1, 4)), (m, n)).astype(np.float64)  # ties and constants
    n_special = draw(st.integers(0, 20))
    rows, columns = rng.integers(0, m, n_special), rng.integers(0, n, n_special)
    X[rows, columns] = rng.choice(SPECIAL, n_special)
    return X


@settings(max_examples=60, deadline=None)
@given(matrices(), st.sampled_from(["C", "F", "strided"]), st.sampled_from([1, 2]))
def test_equal_to_numpy(X, layout, n_threads):
    if layout == "F":
        X = np.asfortranarray(X)
    elif layout == "strided":
        X = np.repeat(X, 2, axis=1)[:, ::2]
    nonfinite, constant = nonfinite_and_constant_columns(X, n_threads)
    expected_nonfinite, expected_constant = _reference(X)
    np.testing.assert_array_equal(nonfinite, expected_nonfinite)
    np.testing.assert_array_equal(constant, expected_constant)


def test_edges():
    nonfinite, constant = nonfinite_and_constant_columns(np.zeros((0, 3)))
    assert not nonfinite.any() and constant.all()
    nonfinite, constant = nonfinite_and_constant_columns(np.zeros((4, 0)))
    assert nonfinite.shape == constant.shape == (0,)
    # one row: every finite column is constant
    nonfinite, constant = nonfinite_and_constant_columns(np.array([[1.0, np.nan, -np.inf]]))
    np.testing.assert_array_equal(nonfinite, [False, True, True])
    np.testing.assert_array_equal(constant, [True, False, False])
    # -0.0 equals 0.0; a difference that is a subnormal is a difference
    X = np.array([[0.0, 0.0], [-0.0, 5e-324]])
    np.testing.assert_array_equal(nonfinite_and_constant_columns(X)[1], [True, False])


def test_wide_matrix_across_blocks_and_threads():
    rng = np.random.default_rng(3)
    X = (rng.random((30, 2000)) < 0.05).astype(np.float64)
    X[:, 1023] = 7.0
    X[5, 1800] = np.inf
    X[:, 255:257] = -2.0
    expected = _reference(X)
    for n_threads in (1, 2, 3):
        result = nonfinite_and_constant_columns(X, n_threads)
        np.testing.assert_array_equal(result[0], expected[0])
        np.testing.assert_array_equal(result[1], expected[1])


def test_checked_constant_columns_names_them():
    X = np.array([[1.0, 2.0, 3.0], [1.0, 5.0, 3.0]])
    assert checked_constant_columns(X, ["a", "b", "c"]) == ["a", "c"]
    X[1, 1] = np.nan
    with pytest.raises(ValueError, match=r"^data: non-finite values \(NaN or inf\) in column\(s\) 'b'"):
        checked_constant_columns(X, ["a", "b", "c"])
    with pytest.raises(ValueError, match=r"^X: non-finite"):
        checked_constant_columns(X, ["a", "b", "c"], name="X")

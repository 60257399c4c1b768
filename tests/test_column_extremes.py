"""The one-pass smallest and largest value of every column of an integer matrix.

:func:`fstools._ext._moments.column_extremes` against NumPy's ``X.min(axis=0)`` and
``X.max(axis=0)`` for random matrices of every type it reads (bool, int8, uint8, int16, int32,
int64) holding the types' extreme values, in C and Fortran order, as strided views and at an
offset, across the kernel's block of 256 columns and its four-row step, for 1 to 3 threads; the
checks built on it (:func:`fstools.core.arrays.inexact_integer_columns`,
:func:`fstools.core.arrays.constant_columns`, :func:`fstools.model.validation.check_integer_columns`
on a DataFrame) against per-column references in Python integers.
"""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fstools._ext._moments import CHECK_BLOCK_COLUMNS, column_extremes
from fstools.core.arrays import EXACT_INTEGER_LIMIT, constant_columns, inexact_integer_columns
from fstools.model.validation import check_integer_columns

DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64"]


@st.composite
def integer_matrices(draw):
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    m = draw(st.integers(1, 23))  # below, at and beyond the four-row step
    n = draw(st.sampled_from([1, 3, CHECK_BLOCK_COLUMNS - 1, CHECK_BLOCK_COLUMNS, CHECK_BLOCK_COLUMNS + 5, 600]))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    if dtype == np.bool_:
        X = rng.integers(0, 2, (m, n)).astype(bool)
    else:
        info = np.iinfo(dtype)
        X = rng.integers(-3, 4, (m, n)).clip(info.min, info.max).astype(dtype)  # ties and constant columns
        count = draw(st.integers(0, 40))
        rows, columns = rng.integers(0, m, count), rng.integers(0, n, count)
        X[rows, columns] = rng.choice(np.array([info.min, info.max, info.min + 1, info.max - 1], dtype=dtype), count)
    return X


def _layout(X, layout):
    if layout == "F":
        return np.asfortranarray(X)
    if layout == "strided":
        return np.repeat(X, 2, axis=1)[:, ::2]
    if layout == "offset":  # a view that starts one element into a larger array
        wider = np.zeros((X.shape[0], X.shape[1] + 1), dtype=X.dtype)
        wider[:, 1:] = X
        return wider[:, 1:]
    return X


@settings(max_examples=80, deadline=None)
@given(integer_matrices(), st.sampled_from(["C", "F", "strided", "offset"]), st.sampled_from([1, 2, 3]))
def test_equal_to_numpy(X, layout, n_threads):
    A = _layout(X, layout)
    low, high = column_extremes(A, n_threads)
    assert low.dtype == high.dtype == np.int64
    np.testing.assert_array_equal(low, X.min(axis=0).astype(np.int64))
    np.testing.assert_array_equal(high, X.max(axis=0).astype(np.int64))
    np.testing.assert_array_equal(constant_columns(A, n_threads), X.min(axis=0) == X.max(axis=0))


def test_refuses_what_it_does_not_read():
    with pytest.raises(TypeError, match="X: must be a 2-D NumPy array of one of bool, int8"):
        column_extremes(np.zeros((3, 2)))
    with pytest.raises(TypeError, match="X: must be a 2-D"):
        column_extremes(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="X: has no rows"):
        column_extremes(np.zeros((0, 2), dtype=np.int64))
    low, high = column_extremes(np.zeros((2, 0), dtype=np.int64))
    assert low.shape == high.shape == (0,)


@pytest.mark.parametrize("offset", [-2, -1, 0, 1, 2])
def test_inexact_integer_columns_at_both_ends_of_2_53(offset):
    X = np.zeros((9, 4), dtype=np.int64)
    X[3, 1] = EXACT_INTEGER_LIMIT + offset
    X[7, 3] = -EXACT_INTEGER_LIMIT - offset
    expected = [False, abs(EXACT_INTEGER_LIMIT + offset) > EXACT_INTEGER_LIMIT, False,
                abs(-EXACT_INTEGER_LIMIT - offset) > EXACT_INTEGER_LIMIT]
    np.testing.assert_array_equal(inexact_integer_columns(X), expected)
    np.testing.assert_array_equal(inexact_integer_columns(np.asfortranarray(X), 2), expected)
    unsigned = np.abs(X).astype(np.uint64)
    np.testing.assert_array_equal(inexact_integer_columns(unsigned), [False, expected[1], False, expected[3]])


def test_check_integer_columns_of_a_wide_frame_names_the_columns_a_loop_names():
    # int64, int32, nullable Int64, uint64 and float columns interleaved; the columns beyond 2^53
    # and the example are those a column-by-column look in Python integers finds
    rng = np.random.default_rng(11)
    columns = {}
    for j in range(300):
        kind = j % 5
        if kind == 0:
            values = rng.integers(-5, 5, 12)
            if j % 7 == 0:
                values[j % 12] = (EXACT_INTEGER_LIMIT + 1 + j) * (-1) ** j
            columns[f"c{j}"] = values.astype(np.int64)
        elif kind == 1:
            columns[f"c{j}"] = rng.integers(-2 ** 31, 2 ** 31 - 1, 12).astype(np.int32)
        elif kind == 2:
            values = pd.array(rng.integers(0, 9, 12), dtype="Int64")
            values[0] = pd.NA
            if j % 11 == 2:
                values[3] = -2 ** 60
            columns[f"c{j}"] = values
        elif kind == 3:
            values = rng.integers(0, 9, 12).astype(np.uint64)
            if j % 13 == 3:
                values[5] = 2 ** 63
            columns[f"c{j}"] = values
        else:
            columns[f"c{j}"] = rng.normal(size=12) * 1e300
    frame = pd.DataFrame(columns)
    bad = [name for name, series in frame.items()
           if pd.api.types.is_integer_dtype(series.dtype)
           and any(abs(int(v)) > EXACT_INTEGER_LIMIT for v in series.dropna().tolist())]
    assert len(bad) > 5
    first = frame[bad[0]].dropna().tolist()
    example = max(first) if max(first) > EXACT_INTEGER_LIMIT else min(first)
    with pytest.raises(ValueError) as caught:
        check_integer_columns(frame, name="data", n_threads=2)
    message = str(caught.value)
    assert message.startswith(f"data: integers beyond 2^53 in column(s) '{bad[0]}', '{bad[1]}'")
    assert f"(e.g. {example})" in message
    check_integer_columns(frame.drop(columns=bad), name="data")


def test_int64_of_the_other_byte_order_is_checked_at_both_ends():
    X = np.zeros((40, 3), dtype=">i8")
    X[:, 0] = np.arange(40) % 2
    X[:, 1] = -2 ** 60 + np.arange(40) % 2
    X[:, 2] = np.arange(40) % 3
    np.testing.assert_array_equal(inexact_integer_columns(X), [False, True, False])
    np.testing.assert_array_equal(inexact_integer_columns(X.astype("<i8")), [False, True, False])
    frame = pd.DataFrame(X, columns=list("abc"))
    with pytest.raises(ValueError, match=r"data: integers beyond 2\^53 in column\(s\) 'b' \(e.g. -1152921504606846976\)"):
        check_integer_columns(frame, name="data")
    frame["y"] = np.arange(40) % 2
    import fstools as fs
    with pytest.raises(ValueError, match=r"integers beyond 2\^53 in column\(s\) 'b'"):
        fs.select("y ~ .", frame, method="mim", k=2)


def test_a_multiindex_column_is_named_as_its_label_prints():
    X = np.random.default_rng(0).integers(0, 3, (40, 4))
    X[3, 1] = 2 ** 53 + 1
    frame = pd.DataFrame(X, columns=pd.MultiIndex.from_tuples([("g", 1), ("g", 2), ("h", 1), ("h", 2)]))
    with pytest.raises(ValueError, match=r"in column\(s\) \"\('g', 2\)\" \(e.g. 9007199254740993\)"):
        check_integer_columns(frame, name="X")

"""I(X_j;C) counted straight from the values (the MIM path without codes).

:func:`fstools._ext._class_tables.discrete_class_information` against two references:

* the obvious NumPy: ``np.unique`` of each column, the (value, class) table by
  ``np.add.at``, I = H(X) + H(C) - H(X,C) from the counts (close, not bitwise: another
  summation), and which columns a discrete column of 0..63 with at most 32 values is;
* the code path it replaces (``information_codes`` then ``feature_class_information``):
  bitwise, since MIM's results must not change.

Random matrices with ties, constant and duplicated columns, values outside 0..63,
non-integers, NaN and infinities, every accepted dtype, C and Fortran order, strided views,
one row, wide blocks, and 1 / 2 / 3 threads; and ``fs.select`` / the transformer with
method 'mim' on such data against the same selection from the code path.
"""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fstools as fs
from fstools._ext import _class_tables, _entropy
from fstools.core.discretize import MAX_LEVELS_AS_IS, information_codes

SPECIAL = [np.nan, np.inf, -np.inf, 0.5, -1.0, 64.0, 63.0, 1e300, -0.0, 2.0 ** 53]


def _numpy_information(column, y, n_classes):
    """I(X;C) in nats from np.unique counts (independent of the kernels)."""
    m = column.shape[0]
    _, x = np.unique(column, return_inverse=True)
    table = np.zeros((x.max() + 1, n_classes))
    np.add.at(table, (x, y), 1)

    def entropy(counts):
        counts = counts[counts > 0]
        return -(counts / m * np.log(counts / m)).sum()
    return entropy(table.sum(axis=1)) + entropy(table.sum(axis=0)) - entropy(table.ravel())


def _counted_by_rule(column):
    """The columns the kernel must count: integers in 0..63, at most MAX_LEVELS_AS_IS values."""
    with np.errstate(invalid="ignore"):
        integers = np.isfinite(column).all() and np.all(column == np.round(column))
    return bool(integers and column.min() >= 0 and column.max() <= 63
                and np.unique(column).size <= MAX_LEVELS_AS_IS)


def _code_path(X, y, n_classes):
    codes, levels, as_is = information_codes(X)
    out = np.empty(X.shape[1])
    _entropy.feature_class_information(codes, levels, y, n_classes, out)
    return out, levels, as_is


def _run(X, y, n_classes, n_threads=1):
    n = X.shape[1]
    out = np.full(n, -7.0)
    levels = np.full(n, -3, dtype=np.int32)
    status = np.full(n, 9, dtype=np.int8)
    _class_tables.discrete_class_information(X, y, n_classes, MAX_LEVELS_AS_IS, out, levels, status, n_threads)
    return out, levels, status


@st.composite
def problems(draw):
    m = draw(st.integers(1, 300))
    n = draw(st.integers(1, 120))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    top = draw(st.sampled_from([1, 2, 3, 10, 33, 40, 64, 70]))
    X = rng.integers(0, top, (m, n)).astype(np.float64)
    X[:, rng.random(n) < 0.15] = X[:, :1]  # duplicated columns
    X[:, rng.random(n) < 0.1] = 5.0  # constant columns
    n_special = draw(st.integers(0, 8))
    if n_special:
        X[rng.integers(0, m, n_special), rng.integers(0, n, n_special)] = rng.choice(SPECIAL, n_special)
    n_classes = draw(st.integers(1, 5))
    y = rng.integers(0, n_classes, m).astype(np.int32)
    return X, y, n_classes


@settings(max_examples=120, deadline=None)
@given(problems(), st.sampled_from(["C", "F", "strided", "float32", "int64", "uint8", "uint8 F", "bool F"]),
       st.sampled_from([1, 2, 3]))
def test_equal_to_numpy_and_to_the_code_path(problem, layout, n_threads):
    X, y, n_classes = problem
    if layout == "F":
        X = np.asfortranarray(X)
    elif layout == "strided":
        X = np.repeat(X, 2, axis=1)[:, ::2]
    elif layout == "float32":
        X = np.where(np.abs(X) > 1e30, np.inf, X).astype(np.float32)
    elif layout in ("int64", "uint8", "uint8 F"):
        if not np.isfinite(X).all() or X.min() < 0 or X.max() > 255:
            X = np.where(np.isfinite(X), np.clip(np.round(X), 0, 255), 0.0)
        X = X.astype(layout.split()[0], order="F" if layout.endswith("F") else "K")
    elif layout == "bool F":
        X = np.asfortranarray(np.where(np.isfinite(X), X, 0.0) % 2 == 1)
    out, levels, status = _run(X, y, n_classes, n_threads)
    counted = status == _class_tables.COLUMN_COUNTED
    assert np.isin(status, [_class_tables.COLUMN_COUNTED, _class_tables.COLUMN_LEFT]).all()
    expected = np.array([_counted_by_rule(X[:, j].astype(np.float64)) for j in range(X.shape[1])], dtype=bool)
    if X.flags.c_contiguous and X.shape[0] >= 64:
        # row-major: a block whose columns all look binary in the first 64 rows is left to the
        # bit-plane path (test_binary_blocks_are_left); a column is counted only by the rule
        assert not (counted & ~expected).any()
    else:
        assert np.array_equal(counted, expected)
    assert (out[~counted] == -7.0).all() and (levels[~counted] == -3).all()  # left as they were
    for j in np.flatnonzero(counted):
        column = X[:, j].astype(np.float64)
        assert levels[j] == np.unique(column).size
        assert out[j] == pytest.approx(_numpy_information(column, y, n_classes), abs=1e-12)
    if counted.any():
        reference, ref_levels, as_is = _code_path(np.ascontiguousarray(X[:, counted]), y, n_classes)
        assert out[counted].tobytes() == reference.tobytes()  # bit for bit the code path's
        assert np.array_equal(levels[counted], ref_levels) and as_is.all()


def test_binary_blocks_are_left():
    """Row-major X: a block of columns that all hold at most two values (0 .. 63) in the first 64
    rows is left to the general path, which counts 0/1 columns on bit-planes; a block with one
    column of more values is counted to the end, binary columns included."""
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 200).astype(np.int32)
    binary = rng.integers(0, 2, (200, 40)).astype(np.float64)
    binary[:, 3] = 1.0                                  # constant: one value
    binary[100:, 7] = 2.0                               # a third value after the first 64 rows
    _, _, status = _run(binary, y, 2)
    assert (status == _class_tables.COLUMN_LEFT).all()
    mixed = binary.copy()
    mixed[:, 20] = rng.integers(0, 5, 200)              # five values early on
    out, levels, status = _run(mixed, y, 2)
    assert (status == _class_tables.COLUMN_COUNTED).all()
    for j in (0, 3, 7, 20):
        assert out[j] == pytest.approx(_numpy_information(mixed[:, j], y, 2), abs=1e-12)
    short = binary[:63]                                 # fewer than 64 rows: every column counted
    _, _, status = _run(short, y[:63], 2)
    assert (status == _class_tables.COLUMN_COUNTED).all()


def test_wide_blocks_and_threads_agree():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, (150, 2600)).astype(np.float64)
    X[:, 1000] = 0.25  # one continuous column inside a block
    y = rng.integers(0, 3, 150).astype(np.int32)
    runs = [_run(X, y, 3, t) for t in (1, 2, 3)]
    for out, levels, status in runs[1:]:
        assert out.tobytes() == runs[0][0].tobytes()
        assert np.array_equal(levels, runs[0][1]) and np.array_equal(status, runs[0][2])
    assert runs[0][2][1000] == _class_tables.COLUMN_LEFT
    assert (np.delete(runs[0][2], 1000) == _class_tables.COLUMN_COUNTED).all()


def test_one_row_and_bool():
    y = np.zeros(1, dtype=np.int32)
    out, levels, status = _run(np.array([[0.0, 3.0, 0.5]]), y, 1)
    assert list(status) == [1, 1, 0] and list(levels[:2]) == [1, 1] and list(out[:2]) == [0.0, 0.0]
    X = np.array([[True, False], [False, False], [True, True]])
    out, levels, status = _run(X, np.array([0, 1, 0], dtype=np.int32), 2)
    assert (status == 1).all()
    assert out[0] == pytest.approx(_numpy_information(X[:, 0].astype(float), np.array([0, 1, 0]), 2))


@pytest.mark.parametrize("bad, match", [
    (dict(y=np.zeros(4, dtype=np.int64)), "y: must be"),
    (dict(y=np.full(5, 2, dtype=np.int32)), "y: class codes"),
    (dict(n_classes=0), "n_classes"),
    (dict(max_levels=65), "max_levels"),
    (dict(X=np.zeros(5)), "X: must be a 2-D"),
    (dict(X=np.zeros((0, 3))), "X: has no rows"),
    (dict(X=np.zeros((5, 3), dtype=np.complex128)), "unsupported dtype"),
])
def test_bad_arguments_are_named(bad, match):
    arguments = dict(X=np.zeros((5, 3)), y=np.zeros(5, dtype=np.int32), n_classes=2, max_levels=32,
                     out=np.empty(3), levels=np.empty(3, dtype=np.int32), status=np.empty(3, dtype=np.int8))
    arguments.update(bad)
    with pytest.raises((ValueError, TypeError), match=match):
        _class_tables.discrete_class_information(**arguments)


def test_mim_selects_as_the_code_path_with_mixed_columns():
    """mim on a frame of counted, negative, wide-range and continuous columns: every score is the
    code path's (bitwise), the notes count the columns used as they are, constants are warned."""
    rng = np.random.default_rng(5)
    m = 400
    y = rng.integers(0, 3, m)
    X = np.column_stack([rng.integers(0, 4, m), y + rng.integers(0, 2, m), rng.integers(-3, 3, m),
                         rng.integers(0, 2, m) * 1000, rng.normal(size=m) + y, np.full(m, 2.0),
                         rng.integers(0, 50, m)]).astype(np.float64)
    codes, levels, as_is = information_codes(X)
    reference = np.empty(X.shape[1])
    _entropy.feature_class_information(codes, levels, np.unique(y, return_inverse=True)[1].astype(np.int32), 3,
                                       reference)
    with pytest.warns(UserWarning, match="constant"):
        selector = fs.FeatureSelector(method="mim", k=3).fit(X, y)
    assert selector.scores_.tobytes() == reference.tobytes()
    assert list(selector.ranking_) == list(np.lexsort((np.arange(7), -reference)))[:3]
    summary = str(selector.result_.summary())
    assert "for 2 continuous columns; 5 discrete columns" in summary, summary


def test_mim_nonfinite_error_names_the_column():
    X = np.zeros((20, 4))
    X[:, 1] = np.arange(20) % 2
    X[7, 2] = np.nan
    with pytest.raises(ValueError, match="x2"):
        fs.FeatureSelector(method="mim", k=2).fit(X, np.arange(20) % 2)


@pytest.mark.parametrize("method", ["mim", "mifs", "jmi", "cmim"])
def test_design_checks_taken_from_the_method_equal_the_design_read(method):
    """The information methods check the design on their own read of X (one read, not two): the
    warnings and the refusals are those of the design's own checks (fs.select on a frame with
    na_action='raise' reads the values itself; the transformer defers them to the method)."""
    rng = np.random.default_rng(11)
    X = rng.integers(0, 3, (60, 6)).astype(np.float64)
    X[:, 2] = 1.5  # constant, discretised
    X[:, 4] = 0.0  # constant, used as it is
    X[:, 5] = np.r_[np.zeros(57), 1.0, 2.0, 3.0] + 0.25  # one bin of equal_frequency, not constant
    y = rng.integers(0, 2, 60)
    for params in ({}, {"discretization": "equal_frequency", "n_bins": 2}):
        with pytest.warns(UserWarning, match=r"X: 2 constant columns \(x2, x4\)"):
            fs.FeatureSelector(method=method, k=2, params=params).fit(X, y)
    X[3, 1] = np.inf
    with pytest.raises(ValueError, match=r"X: .*x1"):
        fs.FeatureSelector(method=method, k=2).fit(X, y)


def test_design_checks_with_a_factor_fall_back_to_the_design_read():
    """With a factor the method reads other columns (its level codes): the constant columns are
    then found on the design, as before."""
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"a": rng.normal(size=50), "b": np.ones(50), "g": rng.choice(["u", "v"], 50),
                          "y": rng.integers(0, 2, 50)})
    with pytest.warns(UserWarning, match=r"1 constant column \(b\)"):
        fs.select("y ~ .", frame, method="mim", k=2, na_action="raise")


@pytest.mark.parametrize("method", ["mim", "cmim"])
def test_select_drop_without_reading_first_equals_the_complete_rows(method):
    """select with na_action='drop' leaves the rows with a missing value to the method's own read:
    on complete data it does not read the design first; with a missing value it starts again with
    the values read (the rows dropped and counted), and the result is the one on the complete rows;
    a warning of the design is given once, pointing at the caller."""
    import warnings
    rng = np.random.default_rng(8)
    frame = pd.DataFrame(rng.integers(0, 3, (80, 6)).astype(float), columns=list("abcdef"))
    frame["f"] = 1.0  # constant
    frame["y"] = rng.integers(0, 2, 80)
    holey = frame.copy()
    holey.loc[[3, 17], "b"] = np.nan
    for data, complete in ((frame, frame), (holey, holey.dropna())):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = fs.select("y ~ .", data, method=method, k=3)
        constant = [w for w in caught if "constant column" in str(w.message)]
        assert len(constant) == 1 and constant[0].filename == __file__
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = fs.select("y ~ .", complete.reset_index(drop=True), method=method, k=3)
        assert result.selected == expected.selected
        assert result.scores["score"].tolist() == expected.scores["score"].tolist()
        assert result.n_dropped == len(data) - len(complete)


@pytest.mark.parametrize("order", ["F", "C"])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_two_classes_long_columns(order, n_threads):
    # Two classes and float64 take the byte-compare counting: column-major, 32 rows a compare in
    # byte lanes added to the totals every 255 compares; row-major, after the first 64 rows, a
    # lane per column, class and value added to the tables every 255 rows.  Long columns cross
    # those flushes several times and end with a partial group; levels in groups of four (1, 2,
    # 10, 32 values), a value first seen after the first rows (column 9), columns left for 33
    # values, for a value outside 0..63 or a NaN after the first rows, and -0.0 counted as 0.
    rng = np.random.default_rng(21)
    m = 20_001
    y = (rng.random(m) < 0.3).astype(np.int32)
    columns = [np.zeros(m), rng.integers(0, 2, m), rng.integers(0, 10, m), rng.integers(0, 32, m),
               rng.integers(0, 33, m), rng.integers(0, 10, m), rng.integers(0, 10, m),
               np.where(rng.random(m) < 0.5, -0.0, 3.0), rng.integers(31, 64, m)]
    late = rng.integers(0, 3, m).astype(np.float64)
    late[10_000:10_003] = 40.0  # a larger value first seen late
    columns.append(late)
    X = np.column_stack(columns).astype(np.float64)
    X[15_000, 5] = 64.0   # outside 0..63 after the first rows
    X[9_000, 6] = np.nan
    X = np.asfortranarray(X) if order == "F" else np.ascontiguousarray(X)
    out, levels, status = _run(X, y, 2, n_threads)
    counted = status == _class_tables.COLUMN_COUNTED
    expected = np.array([_counted_by_rule(X[:, j]) for j in range(X.shape[1])])
    np.testing.assert_array_equal(counted, expected)
    assert counted.tolist() == [True, True, True, True, False, False, False, True, False, True]
    reference, ref_levels, _ = _code_path(np.ascontiguousarray(X[:, counted]), y, 2)
    assert out[counted].tobytes() == reference.tobytes()
    np.testing.assert_array_equal(levels[counted], ref_levels)
    for j in np.flatnonzero(counted):
        assert out[j] == pytest.approx(_numpy_information(X[:, j], y, 2), abs=1e-12)


def test_row_major_two_classes_value_first_seen_late():
    # Row-major, two classes: the byte lanes count the values up to the largest seen so far in
    # the block; a larger value first seen after the first rows (and after a flush) must be
    # counted from its row on.
    rng = np.random.default_rng(22)
    m = 6_000
    X = rng.integers(0, 3, (m, 4)).astype(np.float64)
    X[5_000:5_007, 2] = 40.0
    X[300, 3] = 9.0
    y = (rng.random(m) < 0.4).astype(np.int32)
    out, levels, status = _run(np.ascontiguousarray(X), y, 2)
    assert (status == _class_tables.COLUMN_COUNTED).all()
    reference, ref_levels, _ = _code_path(X, y, 2)
    assert out.tobytes() == reference.tobytes()
    np.testing.assert_array_equal(levels, [3, 3, 4, 4])


def test_column_major_two_classes_in_chunks():
    # Column-major, two classes: a column is coded and counted BYTE_CHUNK (65,280) rows at a time;
    # 140,001 rows cross two chunk ends.  A value first seen in the third chunk, and a value not
    # counted there (the column is left).
    rng = np.random.default_rng(23)
    m = 140_001
    X = np.asfortranarray(rng.integers(0, 4, (m, 3)).astype(np.float64))
    X[139_000, 1] = 17.0
    X[139_500, 2] = 2.5
    y = (rng.random(m) < 0.5).astype(np.int32)
    out, levels, status = _run(X, y, 2, 2)
    assert status.tolist() == [_class_tables.COLUMN_COUNTED, _class_tables.COLUMN_COUNTED,
                               _class_tables.COLUMN_LEFT]
    reference, ref_levels, _ = _code_path(np.ascontiguousarray(X[:, :2]), y, 2)
    assert out[:2].tobytes() == reference.tobytes()
    np.testing.assert_array_equal(levels[:2], [4, 5])


@pytest.mark.parametrize("dtype", [np.uint8, np.bool_])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_column_major_bytes_two_classes_in_chunks(dtype, n_threads):
    # Column-major uint8 (and bool) with two classes: a column is its own codes, counted by byte
    # compares BYTE_CHUNK rows at a time when its largest value is below 64; 140,001 rows cross two
    # chunk ends.  A value first seen in the third chunk, a value of 64 there (the column is left),
    # a value above 63 in the first rows (left at once), 255, and columns of one value.
    rng = np.random.default_rng(24)
    m = 140_001
    if dtype is np.bool_:
        X = np.asfortranarray(rng.random((m, 3)) < np.array([0.5, 0.01, 0.0]))
        counted = [True, True, True]
    else:
        X = np.asfortranarray(rng.integers(0, 4, (m, 6)).astype(np.uint8))
        X[139_000, 1] = 17
        X[139_500, 2] = 64
        X[10, 3] = 200
        X[:, 4] = 63
        X[77_777, 5] = 255
        counted = [True, True, False, False, True, False]
    y = (rng.random(m) < 0.3).astype(np.int32)
    out, levels, status = _run(X, y, 2, n_threads)
    assert (status == _class_tables.COLUMN_COUNTED).tolist() == counted
    kept = np.flatnonzero(counted)
    reference, ref_levels, _ = _code_path(np.ascontiguousarray(X[:, kept]).astype(np.float64), y, 2)
    assert out[kept].tobytes() == reference.tobytes()  # bit for bit the code path's
    np.testing.assert_array_equal(levels[kept], ref_levels)
    for j in kept:
        assert out[j] == pytest.approx(_numpy_information(X[:, j].astype(np.float64), y, 2), abs=1e-12)

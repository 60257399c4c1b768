"""The codes step of the information methods is one vectorised pass and changes nothing.

:func:`fstools.core.discretize.information_codes` codes the discrete columns of a
matrix in one kernel pass (:func:`fstools._ext._entropy.discrete_column_codes`; a
row-major matrix is read a block of whole rows at a time).  Every test compares it
with the obviously correct former path, ``numpy.unique`` column by column on float64
(codes = ranks of the sorted distinct values), for every layout, element type and
number of threads, across the kernel's block (64 columns) and tile (64 rows)
boundaries, and at the edges of the integrality test (values near 2^52 and 2^53,
non-integers, NaN and infinities).  Sparse 0/1 input goes through
:func:`fstools.core.sparse.sparse_mutual_information_relevance` (NumPy over all the
stored entries at once) and gives the dense scores.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from fstools._ext import _entropy as ent
from fstools.core.discretize import MAX_LEVELS_AS_IS, information_codes
from fstools.methods import information

TWO_TO_52 = 2.0 ** 52


def _numpy_unique_codes(X, max_levels=MAX_LEVELS_AS_IS):
    """(status, codes, levels) column by column with ``numpy.unique`` on float64 (the reference)."""
    X = np.asarray(X, dtype=np.float64)
    status = np.full(X.shape[1], ent.COLUMN_CONTINUOUS, dtype=np.int8)
    codes = np.zeros((X.shape[1], X.shape[0]), dtype=np.int8)
    levels = np.zeros(X.shape[1], dtype=np.int32)
    for j in range(X.shape[1]):
        column = X[:, j]
        if not np.isfinite(column).all():
            status[j] = ent.COLUMN_NON_FINITE
            continue
        values, inverse = np.unique(column, return_inverse=True)
        if np.all(column == np.floor(column)) and values.size <= max_levels:
            status[j], codes[j], levels[j] = ent.COLUMN_DISCRETE, inverse.ravel(), values.size
    return status, codes, levels


def _kernel_codes(X, n_threads=1, max_levels=MAX_LEVELS_AS_IS):
    n = X.shape[1]
    status = np.zeros(n, dtype=np.int8)
    codes = np.zeros((n, X.shape[0]), dtype=np.int8)
    levels = np.zeros(n, dtype=np.int32)
    ent.discrete_column_codes(X, max_levels, codes, levels, status, n_threads)
    return status, codes, levels


def _assert_same(result, reference):
    status, codes, levels = result
    ref_status, ref_codes, ref_levels = reference
    np.testing.assert_array_equal(status, ref_status)
    discrete = status == ent.COLUMN_DISCRETE
    np.testing.assert_array_equal(codes[discrete], ref_codes[discrete])
    np.testing.assert_array_equal(levels[discrete], ref_levels[discrete])


def _edge_columns(rng, m):
    """Columns at the edges of the tests: binary, few levels, wide integers, huge and non-integer values."""
    half = rng.random(m) < 0.5
    return [
        half.astype(float),                                      # 0/1
        np.where(half, -1.0, 0.0),                               # -1/0 (codes x - min)
        np.where(half, TWO_TO_52 + 1, TWO_TO_52 + 2),            # two adjacent integers beyond 2^52
        np.where(half, 2.0 ** 53, 2.0 ** 53 + 2),                # 2^53 and the next double
        np.where(half, 2.0 ** 51 + 0.5, 2.0 ** 51),              # a fraction just below 2^52
        np.where(half, -(2.0 ** 51) - 0.5, 0.0),                 # a negative one
        np.where(half, 1e-300, 0.0),                             # a tiny fraction
        np.where(half, 1e300, -1e300),                           # two huge integers
        rng.integers(0, 10, m).astype(float),                    # ten levels (presence table)
        rng.integers(0, 200, m).astype(float) * 3,               # a wide table range, many levels
        rng.integers(-5, 5, m).astype(float) * 1000,             # integers wider than the table
        np.zeros(m), np.full(m, -0.0), np.full(m, 7.0),          # constants
        rng.normal(size=m),                                      # continuous
    ]


@pytest.mark.parametrize("n_threads", [1, 2])
def test_wide_row_major_matrix_crosses_blocks_and_tiles(n_threads):
    # 2,100 columns (33 blocks of the row-major path, the last partial), 150 rows (three 64-row tiles).
    rng = np.random.default_rng(3)
    m = 150
    edges = _edge_columns(rng, m)
    X = np.column_stack([edges[j % len(edges)] for j in range(2100)])
    X[:, 1500:1600] = rng.integers(0, 2, (m, 100))
    X[17, 2099] = np.nan
    X[80, 1030] = np.inf
    X[3, 1031] = -np.inf
    reference = _numpy_unique_codes(X)
    _assert_same(_kernel_codes(X, n_threads), reference)
    _assert_same(_kernel_codes(np.asfortranarray(X), n_threads), reference)


@pytest.mark.parametrize("n_threads", [1, 2])
def test_fractions_that_cancel_are_not_integers(n_threads):
    # k + 0.25 and k + 0.75 are 0.25 below and above the nearest integer: a sum of the signed
    # distances would cancel to 0 and read the column as integers; the kernel sums |distance|.
    # Columns across the vector strips of 8 and the row loop's rest, rows across 64-row tiles.
    rng = np.random.default_rng(11)
    m, n = 150, 77
    X = rng.integers(0, 4, (m, n)).astype(np.float64)
    cancelling = rng.random(n) < 0.5
    quarters = np.where(np.arange(m) % 2 == 0, 0.25, 0.75)
    X[:, cancelling] += quarters[:, None]
    for layout in (np.ascontiguousarray(X), np.asfortranarray(X)):
        status, _, _ = _kernel_codes(layout, n_threads)
        np.testing.assert_array_equal(status == ent.COLUMN_CONTINUOUS, cancelling)
        _assert_same((status, *_kernel_codes(layout, n_threads)[1:]), _numpy_unique_codes(X))

@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int32, np.int16, np.int8, np.uint8, bool])
def test_row_major_every_element_type(dtype):
    rng = np.random.default_rng(5)
    high = 2 if dtype is bool else 100
    X = rng.integers(0, high, (130, 1100))
    X[:, ::3] = rng.integers(0, 2, (130, 367))
    X[:, 5] = 1
    if dtype is not bool and np.dtype(dtype).kind == "i":
        X[:, 7] = -X[:, 7]
    X = X.astype(dtype)
    if dtype is np.float32:
        X[:, 9] += np.float32(0.5)
        X[4, 11] = np.nan
    _assert_same(_kernel_codes(X), _numpy_unique_codes(X))
    _assert_same(_kernel_codes(X, n_threads=2), _kernel_codes(X))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), m=st.integers(1, 140), n=st.integers(1, 40),
       layout=st.sampled_from(["C", "F", "strided"]))
def test_kernel_equals_numpy_unique_property(seed, m, n, layout):
    rng = np.random.default_rng(seed)
    edges = _edge_columns(rng, m)
    pick = rng.integers(0, len(edges), n)
    X = np.column_stack([edges[p] for p in pick])
    if m > 1 and rng.random() < 0.3:
        X[rng.integers(0, m), rng.integers(0, n)] = rng.choice([np.nan, np.inf, -np.inf, 0.25])
    X = {"C": np.ascontiguousarray(X), "F": np.asfortranarray(X), "strided": np.repeat(X, 2, axis=1)[:, ::2]}[layout]
    _assert_same(_kernel_codes(X), _numpy_unique_codes(X))


@pytest.mark.parametrize("order", ["C", "F"])
def test_information_codes_of_binary_and_ten_level_data_equal_numpy_unique(order):
    rng = np.random.default_rng(11)
    binary = (rng.random((300, 1500)) < 0.02).astype(np.float64)
    ten = rng.integers(0, 10, (300, 200)).astype(np.float64)
    for X in (binary, ten):
        X = np.asarray(X, order=order)
        codes, levels, as_is = information_codes(X)
        status, ref_codes, ref_levels = _numpy_unique_codes(X)
        assert as_is.all() and (status == ent.COLUMN_DISCRETE).all()
        np.testing.assert_array_equal(codes, ref_codes)
        np.testing.assert_array_equal(levels, ref_levels)


def test_the_users_array_is_not_modified():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, (100, 1200)).astype(np.float64)
    before = X.copy()
    information_codes(X)
    np.testing.assert_array_equal(X, before)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_binary_mim_equals_dense(fmt):
    rng = np.random.default_rng(4)
    X = (rng.random((200, 3000)) < 0.02).astype(np.float64)
    y = rng.integers(0, 2, 200).astype(np.int32)
    X[:, :20] = np.maximum(X[:, :20], y[:, None] * (rng.random((200, 20)) < 0.5))
    dense = information.mim(X, y, k=30)
    sparse_output = information.mim(sparse.csr_matrix(X).asformat(fmt), y, k=30)
    np.testing.assert_array_equal(sparse_output.ranking, dense.ranking)
    np.testing.assert_allclose(sparse_output.scores, dense.scores, rtol=1e-12, atol=1e-15)


# ---------------------------------------------------------------------------
# whole_columns=False: a continuous column is not read past its first run of 64 values with a
# non-integer (information_codes' discretiser reads it, and refuses a non-finite value of it)
# ---------------------------------------------------------------------------

def _kernel_codes_early(X, n_threads=1):
    n = X.shape[1]
    status = np.zeros(n, dtype=np.int8)
    codes = np.zeros((n, X.shape[0]), dtype=np.int8)
    levels = np.zeros(n, dtype=np.int32)
    ent.discrete_column_codes(X, MAX_LEVELS_AS_IS, codes, levels, status, n_threads, whole_columns=False)
    return status, codes, levels


def _assert_early_agrees(X, n_threads):
    """The discrete columns exactly as the whole read (and numpy.unique) gives them; a continuous
    column continuous; a non-finite one non-finite, or continuous when its non-finite value came
    after a non-integer and was not read."""
    ref_status, ref_codes, ref_levels = _numpy_unique_codes(X)
    status, codes, levels = _kernel_codes_early(X, n_threads)
    discrete = ref_status == ent.COLUMN_DISCRETE
    np.testing.assert_array_equal(status[discrete], ref_status[discrete])
    np.testing.assert_array_equal(codes[discrete], ref_codes[discrete])
    np.testing.assert_array_equal(levels[discrete], ref_levels[discrete])
    assert np.all(status[ref_status == ent.COLUMN_CONTINUOUS] == ent.COLUMN_CONTINUOUS)
    assert np.all(np.isin(status[ref_status == ent.COLUMN_NON_FINITE],
                          [ent.COLUMN_NON_FINITE, ent.COLUMN_CONTINUOUS]))
    return status


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), m=st.integers(1, 300), n=st.integers(1, 150),
       layout=st.sampled_from(["C", "F", "strided"]), dtype=st.sampled_from([np.float64, np.float32]),
       continuous_share=st.sampled_from([0.0, 0.5, 0.95, 1.0]), threads=st.integers(1, 3))
def test_early_decision_keeps_every_discrete_column_property(seed, m, n, layout, dtype, continuous_share, threads):
    rng = np.random.default_rng(seed)
    edges = _edge_columns(rng, m)
    X = np.column_stack([edges[p] for p in rng.integers(0, len(edges), n)])
    continuous = rng.random(n) < continuous_share
    X[:, continuous] = rng.normal(size=(m, int(continuous.sum())))
    if m > 1 and rng.random() < 0.5:  # non-finite values anywhere
        for _ in range(3):
            X[rng.integers(0, m), rng.integers(0, n)] = rng.choice([np.nan, np.inf, -np.inf])
    with np.errstate(over="ignore"):  # (1e300 is infinite in float32: a non-finite column)
        X = X.astype(dtype)
    X = {"C": np.ascontiguousarray(X), "F": np.asfortranarray(X), "strided": np.repeat(X, 2, axis=1)[:, ::2]}[layout]
    _assert_early_agrees(X, threads)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_early_decision_stops_reading_and_keeps_huge_integers(order, dtype):
    # 200 rows, 130 columns (row-major: blocks of 64, 64 and 2 columns).  Every column is
    # continuous in its first rows but column 3, which must stay discrete: float64 odd integers
    # above 2^52, whose terms |((a + 2^52) - 2^52) - a| are not 0 (decided by _all_integers,
    # never by the early test); float32 ten levels.  A NaN at row 150 of continuous column 70
    # (a block of continuous columns only) is not read without whole_columns, and read with.
    rng = np.random.default_rng(8)
    X = rng.normal(size=(200, 130))
    if dtype is np.float64:
        X[:, 3] = np.where(rng.random(200) < 0.5, TWO_TO_52 + 1, TWO_TO_52 + 3)
    else:
        X[:, 3] = rng.integers(0, 10, 200)
    X[150, 70] = np.nan
    X = np.asarray(X, dtype=dtype, order=order)
    status = _assert_early_agrees(X, 2)
    assert status[3] == ent.COLUMN_DISCRETE
    assert status[70] == ent.COLUMN_CONTINUOUS  # the NaN at row 150 was not read
    assert _kernel_codes(X)[0][70] == ent.COLUMN_NON_FINITE


@pytest.mark.parametrize("order", ["C", "F"])
def test_information_codes_refuses_a_late_non_finite_value_of_a_continuous_column(order):
    # the stats pass stops at the first tile; the discretiser finds the value and the message
    # is the one of a whole read (first non-finite value, row first)
    rng = np.random.default_rng(9)
    X = np.asarray(rng.normal(size=(300, 70)), order=order)
    X[250, 40] = np.inf
    X[280, 5] = np.nan
    with pytest.raises(ValueError, match=r"^X: must contain only finite values; got inf at row 250, column 40"):
        information_codes(X)

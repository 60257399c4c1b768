"""Binary columns as bit-planes straight from the data: nothing changes but speed.

:func:`fstools._ext._entropy.discrete_column_codes` with ``planes`` writes the bit-plane
of code 1 of every discrete column of at most two levels instead of its int8 codes,
:func:`fstools.core.discretize.information_codes_with_planes` returns them, and
:func:`fstools._ext._bitcount.counting_kernel` with ``binary_planes`` counts on them
as they are, writing the missing codes rows only when something reads the codes.

References, independent of the kernels: the codes of ``numpy.unique`` column by column
(ranks of the sorted distinct values), the plane of such codes packed with
``numpy.packbits`` (bit ``i % 64`` of word ``i // 64``, little-endian bit order), and
every selection compared with the one made on the complete codes of
:func:`fstools.core.discretize.information_codes` (itself tested against the brute-force
references in ``tests/test_references.py``): rankings, step values and relevance bitwise
equal, for 1, 2 and 3 threads.
"""
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fstools as fs
from fstools._ext import _bitcount
from fstools._ext import _entropy as ent
from fstools.core.discretize import MAX_LEVELS_AS_IS, information_codes, information_codes_with_planes
from fstools.methods.information import greedy_information_selection

CRITERIA = ("mim", "mifs", "mifs_u", "mrmr", "jmi", "cmim")


def _unique_codes(X):
    """(discrete, codes, levels) column by column with ``numpy.unique`` on float64."""
    X = np.asarray(X, dtype=np.float64)
    discrete = np.zeros(X.shape[1], dtype=bool)
    codes = np.zeros((X.shape[1], X.shape[0]), dtype=np.int8)
    levels = np.zeros(X.shape[1], dtype=np.int32)
    for j in range(X.shape[1]):
        column = X[:, j]
        if not np.isfinite(column).all():
            continue
        values, inverse = np.unique(column, return_inverse=True)
        if np.all(column == np.floor(column)) and values.size <= MAX_LEVELS_AS_IS:
            discrete[j], codes[j], levels[j] = True, inverse.ravel(), values.size
    return discrete, codes, levels


def _packed_plane(codes_row, level=1):
    """The plane of code ``level`` of one row of codes, as uint64 words (bits past m zero)."""
    m = codes_row.shape[0]
    bits = np.zeros(((m + 63) // 64) * 64, dtype=np.uint8)
    bits[:m] = codes_row == level
    return np.packbits(bits, bitorder="little").view("<u8").astype(np.uint64)


def _assert_planes_of(planes, first_plane, j, codes_row, n_levels):
    """Feature j's planes (rows first_plane[j] ..) are those of levels 1 .. n_levels-1 of its codes."""
    for level in range(1, n_levels):
        np.testing.assert_array_equal(planes[first_plane[j] + level - 1], _packed_plane(codes_row, level))


def _mixed_matrix(rng, m, n, dtype=np.float64):
    """Columns of every kind: 0/1, shifted and negative pairs, the larger value first,
    constant, two values far apart (table and wide), few levels, continuous."""
    X = rng.integers(0, 2, (m, n)).astype(np.float64)
    kinds = rng.integers(0, 9, n)
    for j in range(n):
        u = rng.integers(0, 2, m)
        if kinds[j] == 1:
            X[:, j] = u - 7.0  # -7 / -6
        elif kinds[j] == 2:
            X[:, j] = 1.0 - u
            X[0, j] = 1.0  # the larger value first
        elif kinds[j] == 3:
            X[:, j] = 4.0  # constant
        elif kinds[j] == 4:
            X[:, j] = 5.0 * u  # 0 / 5: two values through the presence table
        elif kinds[j] == 5:
            X[:, j] = 3.0 + 1000.0 * u  # 3 / 1003: two values wider than the table
        elif kinds[j] == 6:
            X[:, j] = rng.integers(0, 5, m)
        elif kinds[j] == 7 and np.issubdtype(dtype, np.floating):
            X[:, j] = rng.standard_normal(m)
    return X.astype(dtype)


def _kernel(X, n_threads=1):
    n, m = X.shape[1], X.shape[0]
    codes = np.full((n, m), -1, dtype=np.int8)
    levels = np.zeros(n, dtype=np.int32)
    status = np.zeros(n, dtype=np.int8)
    planes = np.zeros((n, (m + 63) // 64), dtype=np.uint64)
    ent.discrete_column_codes(X, MAX_LEVELS_AS_IS, codes, levels, status, n_threads, planes)
    return codes, levels, status, planes


def _assert_discrete_columns_match(X, codes, levels, status, planes):
    """The discrete columns of the kernel's output are the references' (levels; planes of the binary
    ones, codes of the others); returns the references' mask of discrete columns."""
    discrete, ref_codes, ref_levels = _unique_codes(X)
    np.testing.assert_array_equal(status == ent.COLUMN_DISCRETE, discrete)
    np.testing.assert_array_equal(levels[discrete], ref_levels[discrete])
    prepared = discrete & (levels <= 2)
    for j in np.flatnonzero(prepared):
        np.testing.assert_array_equal(planes[j], _packed_plane(ref_codes[j]), err_msg=f"column {j}")
    rest = discrete & ~prepared
    np.testing.assert_array_equal(codes[rest], ref_codes[rest])
    return discrete


def _assert_planes_match(X, n_threads):
    _assert_discrete_columns_match(X, *_kernel(X, n_threads))


@pytest.mark.parametrize("m", [1, 2, 63, 64, 65, 130, 800])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32, np.int16, np.int8, np.uint8])
def test_kernel_planes_are_the_packed_codes(m, layout, dtype):
    rng = np.random.default_rng(m)
    X = _mixed_matrix(rng, m, 150, dtype)  # more than two blocks of 64 columns
    if layout == "F":
        X = np.asfortranarray(X)
    elif layout == "strided":
        X = np.ascontiguousarray(np.repeat(X, 2, axis=1))[:, ::2]
    for n_threads in (1, 2, 3):
        _assert_planes_match(X, n_threads)


def test_kernel_planes_of_bool_and_signed_zero():
    rng = np.random.default_rng(5)
    B = rng.integers(0, 2, (100, 70)).astype(bool)
    _assert_planes_match(B, 2)
    Z = np.where(rng.integers(0, 2, (100, 70)) == 1, 0.0, -0.0)  # one value: code 0 everywhere
    codes, levels, status, planes = _kernel(Z)
    assert np.all(levels == 1) and np.all(planes == 0)


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), m=st.integers(1, 200), n=st.integers(1, 80),
       magnitude=st.sampled_from([1.0, 2.0 ** 40, 2.0 ** 52 - 4, 2.0 ** 52, 2.0 ** 53, 1e300]),
       duplicate=st.booleans(), threads=st.integers(1, 3))
def test_kernel_planes_property(seed, m, n, magnitude, duplicate, threads):
    """Random sizes, ties, constant and duplicated columns, values at extreme magnitudes."""
    rng = np.random.default_rng(seed)
    X = _mixed_matrix(rng, m, n)
    shifted = rng.random(n) < 0.3
    X[:, shifted] += magnitude if magnitude < 2.0 ** 53 else 0.0
    X[:, rng.random(n) < 0.1] *= magnitude  # two values far apart (or continuous) at that magnitude
    if duplicate and n > 1:
        X[:, n // 2:] = X[:, :n - n // 2]
    _assert_planes_match(X, threads)



@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), m=st.integers(1, 200), n=st.integers(1, 150),
       offset=st.integers(0, 7), spare=st.integers(0, 9), bad=st.sampled_from([None, np.nan, np.inf, -np.inf]),
       threads=st.integers(1, 3))
def test_kernel_planes_property_row_major_views(seed, m, n, offset, spare, bad, threads):
    """Row-major float64 views that start anywhere in a row (any alignment) and have a row
    stride longer than the row, with -0.0, and a non-finite value in some columns: the
    statistics in strips of 8 columns and the row loop for the rest give the status, levels
    and planes of the references column by column."""
    rng = np.random.default_rng(seed)
    base = _mixed_matrix(rng, m, n + offset + spare)
    base[base == 0.0] *= np.where(rng.random(np.count_nonzero(base == 0.0)) < 0.5, -1.0, 1.0)  # -0.0 too
    X = base[:, offset:offset + n]
    assert X.strides == (8 * (n + offset + spare), 8)
    broken = np.zeros(n, dtype=bool)
    if bad is not None:
        broken = rng.random(n) < 0.2
        rows = rng.integers(0, m, n)
        X[rows[broken], np.flatnonzero(broken)] = bad
    codes, levels, status, planes = _kernel(X, threads)
    np.testing.assert_array_equal(status == ent.COLUMN_NON_FINITE, broken)
    finite = ~broken
    discrete, ref_codes, ref_levels = _unique_codes(X)
    np.testing.assert_array_equal((status == ent.COLUMN_DISCRETE)[finite], discrete[finite])
    np.testing.assert_array_equal(levels[discrete], ref_levels[discrete])
    for j in np.flatnonzero(discrete & (levels <= 2)):
        np.testing.assert_array_equal(planes[j], _packed_plane(ref_codes[j]), err_msg=f"column {j}")

@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), m=st.integers(1, 200), n=st.integers(1, 150),
       dtype=st.sampled_from([np.int64, np.int32, np.int16, np.int8, np.uint8, np.bool_]),
       offset=st.integers(0, 40), spare=st.integers(0, 9), extreme=st.booleans(), threads=st.integers(1, 3))
def test_kernel_planes_property_integer_rows(seed, m, n, dtype, offset, spare, extreme, threads):
    """Row-major integer (and bool) views that start anywhere in a row and have a row stride
    longer than the row: the strips of 32 bytes (one lane per column, a lane's bits gathered
    over its rows) and the row loop for the rest give the status, levels and planes of the
    references column by column, with the type's extreme values (int64 up to 2^53)."""
    rng = np.random.default_rng(seed)
    base = _mixed_matrix(rng, m, n + offset + spare, np.float64)
    if dtype is np.bool_:
        base = base != 0.0
    else:
        info = np.iinfo(dtype)
        top, bottom = min(info.max, 2 ** 53), max(info.min, -2 ** 53)
        base = np.clip(base, bottom, top)
        if extreme:  # pairs and triples at both ends of the type
            for j in np.flatnonzero(rng.random(base.shape[1]) < 0.3):
                end = rng.choice([top - 2, bottom])
                base[:, j] = end + rng.integers(0, 2 + (rng.random() < 0.3), m)  # at most top
        base = base.astype(dtype)
    X = base[:, offset:offset + n]
    _assert_planes_match(X, threads)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), m=st.integers(1, 200), n=st.integers(1, 150),
       dtype=st.sampled_from([np.float64, np.float32, np.int64, np.int32, np.int16, np.int8, np.uint8, np.bool_]),
       offset=st.integers(0, 9), spare=st.integers(0, 9), bad=st.sampled_from([None, np.nan, np.inf]),
       continuous=st.sampled_from([0.0, 0.3, 0.9, 1.0]), whole_columns=st.booleans(), threads=st.integers(1, 3))
def test_kernel_planes_property_column_major_views(seed, m, n, dtype, offset, spare, bad, continuous,
                                                   whole_columns, threads):
    """Column-major views (a DataFrame's values; columns that start anywhere in a longer column
    of a Fortran-ordered array), coded through a transposed copy of a block of columns by the
    row-major pass, or column by column where a block's every column leaves at its first run:
    the status, levels, codes and planes of the references column by column, with or without
    the whole columns read, with continuous and non-finite columns, and int64 values up to the
    ends of its exact range."""
    rng = np.random.default_rng(seed)
    base = _mixed_matrix(rng, m + offset + spare, n, np.float64)
    floating = np.issubdtype(dtype, np.floating)
    if floating:
        share = rng.random(n) < continuous  # some blocks all continuous: coded a column at a time
        base[:, share] = rng.standard_normal((base.shape[0], int(share.sum())))
    if dtype is np.bool_:
        base = base != 0.0
    elif dtype is np.int64:
        for j in np.flatnonzero(rng.random(n) < 0.2):
            base[:, j] = rng.choice([2 ** 53 - 2, -2 ** 53]) + (base[:, j] != 0)
        base = base.astype(np.int64)
    else:
        base = base.astype(dtype)
    X = np.asfortranarray(base)[offset:offset + m]
    assert X.shape == (m, n) and (m == 1 or X.strides[0] == X.itemsize)
    broken = np.zeros(n, dtype=bool)
    early = np.zeros(n, dtype=bool)  # the non-finite value in the column's first run of 64
    if bad is not None and floating:
        broken = rng.random(n) < 0.2
        early = broken & (rng.random(n) < 0.5)
        rows = np.where(early, rng.integers(0, min(m, 64), n), rng.integers(0, m, n))
        X[rows[broken], np.flatnonzero(broken)] = bad
    codes = np.full((n, m), -1, dtype=np.int8)
    levels = np.zeros(n, dtype=np.int32)
    status = np.full(n, 99, dtype=np.int8)  # (no status value: every column must get one)
    planes = np.zeros((n, (m + 63) // 64), dtype=np.uint64)
    ent.discrete_column_codes(X, MAX_LEVELS_AS_IS, codes, levels, status, threads, planes,
                              whole_columns=whole_columns)
    discrete = _assert_discrete_columns_match(X, codes, levels, status, planes)
    assert np.all(np.isin(status[~discrete], [ent.COLUMN_CONTINUOUS, ent.COLUMN_NON_FINITE]))
    np.testing.assert_array_equal(status[early], ent.COLUMN_NON_FINITE)  # read in any case
    if whole_columns:  # every value read: a column with a non-finite value is found
        np.testing.assert_array_equal(status == ent.COLUMN_NON_FINITE, broken)
    else:  # a column may be left at a first run with a non-integer before its non-finite value
        assert not np.any((status == ent.COLUMN_NON_FINITE) & ~broken)


@pytest.mark.parametrize("whole_columns", [False, True])
def test_kernel_column_major_continuous_blocks(whole_columns):
    # Blocks whose every column is continuous (read column by column, their first run only, when
    # the whole columns are not asked for), a NaN in the first run of some: every column gets its
    # status, NaN found where it was read.
    rng = np.random.default_rng(3)
    X = np.asfortranarray(rng.standard_normal((300, 150)))
    X[5, 7] = np.nan
    X[250, 9] = np.inf  # past the first run
    codes = np.full((150, 300), -1, dtype=np.int8)
    levels = np.zeros(150, dtype=np.int32)
    status = np.full(150, 99, dtype=np.int8)
    ent.discrete_column_codes(X, MAX_LEVELS_AS_IS, codes, levels, status, 2, None, whole_columns=whole_columns)
    expected = np.full(150, ent.COLUMN_CONTINUOUS, dtype=np.int8)
    expected[7] = ent.COLUMN_NON_FINITE
    if whole_columns:
        expected[9] = ent.COLUMN_NON_FINITE
    np.testing.assert_array_equal(status, expected)


@pytest.mark.parametrize("m", [2 ** 11, 2 ** 11 + 1, 2 ** 13, 2 ** 13 + 1])
def test_kernel_long_column_major_columns(m):
    # At these lengths a transposed block narrows (64 -> 16 columns) and then no longer fits: the
    # columns are coded one at a time; the same codes and planes either way.
    rng = np.random.default_rng(m)
    X = np.asfortranarray(_mixed_matrix(rng, m, 40))
    _assert_planes_match(X, 2)
    _assert_planes_match(np.asfortranarray(X.astype(np.int32)), 1)


@pytest.mark.parametrize("offset", [2 ** 60, -2 ** 62, 2 ** 53, -2 ** 53 - 1])
def test_kernel_int64_beyond_two_to_53_is_left_undecided(offset):
    # (2^53 + 1 and -2^53 - 1 round to +-2^53 as doubles: the test is on the integers)
    rng = np.random.default_rng(12)
    X = rng.integers(0, 2, (150, 70)).astype(np.int64)
    X[:, 5] += offset  # two adjacent integers float64 cannot tell apart (or only just)
    X[0, 5] = offset + 1  # the larger first
    X[:, 40] += offset
    codes, levels, status, planes = _kernel(X, 2)
    assert status[5] == status[40] == ent.COLUMN_UNDECIDED
    others = np.setdiff1d(np.arange(70), [5, 40])
    assert np.all(status[others] == ent.COLUMN_DISCRETE)
    for j in others[:10]:
        np.testing.assert_array_equal(planes[j], _packed_plane(X[:, j]))


def test_codes_of_int64_just_beyond_two_to_53_are_below_their_levels():
    # 2^53 + 1 and 2^53 - 1: the integer test leaves the column to the float64 path, whose codes
    # are ranks of the values it sees (float64 cannot hold 2^53 + 1; it becomes 2^53)
    big = 2 ** 53
    X = np.array([[big + 1, 1], [big - 1, 0], [big + 1, 1], [big - 1, 0]], dtype=np.int64)
    for codes, levels in (information_codes(X)[:2], information_codes_with_planes(X)[:2]):
        assert levels.tolist() == [2, 2]
        assert codes[0].tolist() == [1, 0, 1, 0]


def test_information_codes_with_planes_matches_information_codes():
    rng = np.random.default_rng(11)
    X = _mixed_matrix(rng, 300, 200)
    codes, levels, as_is = information_codes(X)
    p_codes, p_levels, p_as_is, planes, prepared = information_codes_with_planes(X, n_threads=2)
    np.testing.assert_array_equal(p_levels, levels)
    np.testing.assert_array_equal(p_as_is, as_is)
    # the binary columns used as they are, and the discretised ones (nine levels), come as planes
    np.testing.assert_array_equal(prepared, (as_is & (levels <= 2)) | ~as_is)
    assert (~as_is).any() and (as_is & (levels <= 2)).any()
    np.testing.assert_array_equal(p_codes[~prepared], codes[~prepared])
    first_plane, n_rows = _bitcount.plane_rows(levels)
    assert planes.shape == (n_rows, (X.shape[0] + 63) // 64)
    for j in np.flatnonzero(prepared):
        _assert_planes_of(planes, first_plane, j, codes[j], levels[j])
    # the counter writes the codes rows from the planes when something reads them
    kernel = _bitcount.counting_kernel(p_codes, p_levels, np.zeros(X.shape[0], dtype=np.int32) + (
        np.arange(X.shape[0]) % 2).astype(np.int32), 2, 1, planes, prepared)
    kernel.write_codes()
    np.testing.assert_array_equal(p_codes, codes)
    # more than 127 bins: int16 codes, every row written, no planes
    p_codes, _, _, planes, prepared = information_codes_with_planes(X, "equal_width", 200)
    assert planes is None and not prepared.any()
    np.testing.assert_array_equal(p_codes, information_codes(X, "equal_width", 200)[0])
    # no binary column: no planes, every codes row written
    X3 = rng.integers(0, 3, (70, 20)).astype(np.float64)
    X3[:3] = np.array([0.0, 1.0, 2.0])[:, None]
    p_codes, _, _, planes, prepared = information_codes_with_planes(X3)
    assert planes is None and not prepared.any()
    np.testing.assert_array_equal(p_codes, information_codes(X3)[0])


def _assert_same_selection(X, y, criterion, n_threads, k=12, lazy=True, **options):
    codes, levels, _ = information_codes(X, **options)
    expected = greedy_information_selection(codes, levels, y, criterion, k=k, n_threads=n_threads, lazy=lazy)
    p_codes, p_levels, _, planes, prepared = information_codes_with_planes(X, n_threads=n_threads, **options)
    got = greedy_information_selection(p_codes, p_levels, y, criterion, k=k, n_threads=n_threads, lazy=lazy,
                                       binary_planes=planes, prepared=prepared)
    np.testing.assert_array_equal(got[0], expected[0])
    assert got[1].keys() == expected[1].keys()
    for name in expected[1]:
        np.testing.assert_array_equal(got[1][name], expected[1][name])
    np.testing.assert_array_equal(got[2], expected[2])
    return p_codes, codes, prepared


@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_selection_on_planes_is_bitwise_the_codes_selection(criterion, n_threads):
    rng = np.random.default_rng(3)
    X = _mixed_matrix(rng, 257, 120)
    y = rng.integers(0, 3, 257).astype(np.int32)
    X[:, :6] = np.where(rng.random((257, 6)) < 0.4, y[:, None] % 2, X[:, :6])  # informative 0/1 columns
    _assert_same_selection(X, y, criterion, n_threads)
    if criterion == "cmim":
        _assert_same_selection(X, y, criterion, n_threads, lazy=False)


@pytest.mark.parametrize("n_threads", [1, 2])
def test_byte_code_fallbacks_write_the_codes_first(n_threads):
    """Pairs the planes do not take read the codes: of features with more levels than
    planes hold (here 20) next to binary ones, and of a class of 200 levels (no planes
    at all: counting_kernel returns the byte-code module)."""
    rng = np.random.default_rng(8)
    m = 300
    X = rng.integers(0, 2, (m, 60)).astype(np.float64)
    X[:, 50:] = rng.integers(0, 20, (m, 10))
    y = rng.integers(0, 2, m).astype(np.int32)
    X[:, 51] = np.where(rng.random(m) < 0.5, 19 * y, X[:, 51])  # picked early: its pairs go to byte codes
    for criterion in ("mrmr", "jmi", "cmim", "mifs_u"):
        p_codes, codes, prepared = _assert_same_selection(X, y, criterion, n_threads, k=8)
        np.testing.assert_array_equal(p_codes, codes)  # written by the fallback
    y200 = rng.integers(0, 200, m).astype(np.int32)
    p_codes, codes, _ = _assert_same_selection(X[:, :50], y200, "jmi", n_threads, k=5)
    np.testing.assert_array_equal(p_codes, codes)


def test_write_codes_fills_the_prepared_rows():
    rng = np.random.default_rng(4)
    X = _mixed_matrix(rng, 129, 90)
    y = rng.integers(0, 2, 129).astype(np.int32)
    codes, levels, _ = information_codes(X)
    p_codes, p_levels, _, planes, prepared = information_codes_with_planes(X)
    assert prepared.any()
    kernel = _bitcount.counting_kernel(p_codes, p_levels, y, 2, 1, planes, prepared)
    assert isinstance(kernel, _bitcount.PlaneCounter)
    relevance = np.empty(90)
    kernel.feature_class_information(p_codes, p_levels, y, 2, relevance)  # on the planes: no codes needed
    kernel.write_codes()
    np.testing.assert_array_equal(p_codes, codes)
    expected = np.empty(90)
    ent.feature_class_information(codes, levels, y, 2, expected)
    np.testing.assert_array_equal(relevance, expected)


@pytest.mark.parametrize("method", ["jmi", "mrmr", "cmim"])
def test_fit_on_binary_data_unchanged(method):
    """The methods take the planes path; their result is the selection on the full codes."""
    rng = np.random.default_rng(6)
    X = (rng.random((400, 300)) < 0.05).astype(np.float64)
    y = rng.integers(0, 2, 400)
    X[:, :10] = np.where(rng.random((400, 10)) < 0.3, y[:, None], X[:, :10])
    codes, levels, _ = information_codes(X)
    expected = greedy_information_selection(codes, levels, y.astype(np.int32), method, k=20)[0]
    for n_jobs in (1, 2):
        np.testing.assert_array_equal(fs.FeatureSelector(method=method, k=20, n_jobs=n_jobs).fit(X, y).ranking_,
                                      expected)


def test_joblib_backend_gets_complete_codes():
    """Under a joblib backend the relevance is scored on blocks of the codes: they are written first."""
    joblib = pytest.importorskip("joblib")
    rng = np.random.default_rng(9)
    X = _mixed_matrix(rng, 200, 80)
    y = rng.integers(0, 2, 200).astype(np.int32)
    codes, levels, _ = information_codes(X)
    expected = greedy_information_selection(codes, levels, y, "jmi", k=10)
    p_codes, p_levels, _, planes, prepared = information_codes_with_planes(X)
    with joblib.parallel_backend("threading", n_jobs=2):
        got = greedy_information_selection(p_codes, p_levels, y, "jmi", k=10, binary_planes=planes,
                                           prepared=prepared)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[2], expected[2])
    np.testing.assert_array_equal(p_codes, codes)


def test_bad_planes_arguments_are_named():
    X = np.zeros((70, 5))
    codes = np.zeros((5, 70), dtype=np.int8)
    levels = np.zeros(5, dtype=np.int32)
    status = np.zeros(5, dtype=np.int8)
    with pytest.raises(TypeError, match="planes"):
        ent.discrete_column_codes(X, 32, codes, levels, status, 1, np.zeros((5, 2), dtype=np.int64))
    with pytest.raises(ValueError, match="planes"):
        ent.discrete_column_codes(X, 32, codes, levels, status, 1, np.zeros((5, 1), dtype=np.uint64))
    y = np.zeros(70, dtype=np.int32)
    y[::2] = 1
    levels[:] = 1
    planes = np.zeros((5, 2), dtype=np.uint64)
    with pytest.raises(ValueError, match="binary_planes"):
        _bitcount.counting_kernel(codes, levels, y, 2, 1, planes[:, :1].copy(), np.ones(5, dtype=bool))
    with pytest.raises(ValueError, match="prepared"):
        _bitcount.counting_kernel(codes, levels, y, 2, 1, planes, np.ones(4, dtype=bool))
    levels[0] = 3
    with pytest.raises(ValueError, match="prepared"):
        _bitcount.counting_kernel(codes, levels, y, 2, 1, planes, np.ones(5, dtype=bool))
    with pytest.raises(TypeError, match="codes"):
        _bitcount.counting_kernel(codes.astype(np.int16), levels, y, 2, 1, planes, np.zeros(5, dtype=bool))
    with pytest.raises(ValueError, match="codes"):
        greedy_information_selection(codes.astype(np.int16), levels, y, "jmi", 2, binary_planes=planes,
                                     prepared=np.zeros(5, dtype=bool))


# ---------------------------------------------------------------------------
# planes of features of more levels: plane_rows, pack_planes, the unpacking, constancy
# ---------------------------------------------------------------------------

def test_plane_rows_lays_out_binary_slots_then_wider_features_in_order():
    levels = np.array([2, 9, 1, 17, 3, 16, 40], dtype=np.int32)
    first_plane, n_rows = _bitcount.plane_rows(levels)
    # rows 0..6 are the slots of the one- and two-level features; 8, 2 and 15 planes follow
    assert first_plane.tolist() == [0, 7, 2, -1, 15, 17, -1]
    assert n_rows == 7 + 8 + 2 + 15


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.lists(st.integers(1, 16), min_size=1, max_size=6), st.integers(0, 2 ** 32 - 1))
def test_pack_planes_are_the_planes_of_each_level_and_unpack_back(m, level_list, seed):
    rng = np.random.default_rng(seed)
    levels = np.array(level_list, dtype=np.int32)
    codes = np.stack([rng.integers(0, levels[j], m) for j in range(levels.size)]).astype(np.int8)
    first_plane, n_rows = _bitcount.plane_rows(levels)
    planes = np.zeros((n_rows, (m + 63) // 64), dtype=np.uint64)
    features = np.arange(levels.size, dtype=np.intp)
    _bitcount.pack_planes(codes, features, levels, first_plane, planes, 2)
    for j in range(levels.size):
        _assert_planes_of(planes, first_plane, j, codes[j], levels[j])
    unpacked = np.full_like(codes, -1)
    _bitcount._unpack_planes(planes, first_plane, levels, features, unpacked, 2)
    np.testing.assert_array_equal(unpacked, codes)
    single = _bitcount.single_level_features(planes, first_plane, levels, m, features)
    np.testing.assert_array_equal(single, [np.unique(codes[j]).size == 1 for j in range(levels.size)])


def test_pack_planes_refuses_codes_out_of_range_and_features_without_room():
    levels = np.array([3, 40], dtype=np.int32)
    first_plane, n_rows = _bitcount.plane_rows(levels)
    planes = np.zeros((n_rows, 1), dtype=np.uint64)
    with pytest.raises(ValueError, match="row 0 holds a code outside 0 .. 2"):
        _bitcount.pack_planes(np.array([[0, 3, 1]], dtype=np.int8), np.array([0], dtype=np.intp), levels,
                              first_plane, planes)
    with pytest.raises(ValueError, match="feature 1 has no room for planes"):
        _bitcount.pack_planes(np.zeros((1, 3), dtype=np.int8), np.array([1], dtype=np.intp), levels,
                              first_plane, planes)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("criterion", ["mim", "mifs", "mrmr", "jmi", "cmim"])
def test_selection_on_prepared_planes_equals_the_codes_path(order, criterion, monkeypatch):
    # buffers of a few columns: several blocks, one of them mixed (discrete columns in it)
    from fstools.core import discretize
    monkeypatch.setattr(discretize, "PLANE_BUFFER_BYTES", 3 * 700)
    rng = np.random.default_rng(5)
    X = _mixed_matrix(rng, 700, 23)
    X[:, 4] = 2.5  # a constant continuous column
    X = np.asarray(X, order=order)
    y = rng.integers(0, 2, 700).astype(np.int32)
    codes, levels, as_is = information_codes(X)
    p_codes, p_levels, p_as_is, planes, prepared = information_codes_with_planes(X)
    assert prepared[~as_is].all() and planes.shape[0] > X.shape[1]
    expected = greedy_information_selection(codes, levels, y, criterion, k=8)
    got = greedy_information_selection(p_codes, p_levels, y, criterion, k=8, binary_planes=planes,
                                       prepared=prepared)
    np.testing.assert_array_equal(got[0], expected[0])
    for key in expected[1]:
        np.testing.assert_array_equal(got[1][key], expected[1][key])
    np.testing.assert_array_equal(got[2], expected[2])
    from fstools.methods.information import _constant_codes
    np.testing.assert_array_equal(_constant_codes(p_codes, p_levels, p_as_is, planes, prepared),
                                  _constant_codes(codes, levels, as_is))
    assert _constant_codes(codes, levels, as_is)[4]


@pytest.mark.parametrize("criterion", ["mrmr", "cmim"])
def test_row_tile_path_packs_the_written_codes_and_gives_their_pages_back(criterion, monkeypatch):
    # The codes of an X coded by row tiles are written whole, then packed into planes a few rows at
    # a time, each row's pages given back (a private anonymous map): forced here on a small X.
    from fstools.core import discretize
    monkeypatch.setattr(discretize, "_by_row_tiles", lambda array, columns, method: True)
    monkeypatch.setattr(discretize, "PLANE_BUFFER_BYTES", 3 * 9000)
    rng = np.random.default_rng(8)
    X = _mixed_matrix(rng, 9000, 17)
    y = rng.integers(0, 2, 9000).astype(np.int32)
    codes, levels, as_is = information_codes(X)
    p_codes, p_levels, p_as_is, planes, prepared = information_codes_with_planes(X)
    assert prepared[~as_is].all()
    first_plane, _ = _bitcount.plane_rows(levels)
    for j in np.flatnonzero(~as_is):
        _assert_planes_of(planes, first_plane, j, codes[j], levels[j])
    if sys.platform.startswith("linux"):  # the first whole page inside a packed row reads as zeros
        j = int(np.flatnonzero(~as_is)[0])
        first = -(-j * 9000 // discretize.mmap.PAGESIZE) * discretize.mmap.PAGESIZE - j * 9000
        assert not p_codes[j, first:first + 100].any() and codes[j, first:first + 100].any()
    expected = greedy_information_selection(codes, levels, y, criterion, k=6)
    got = greedy_information_selection(p_codes, p_levels, y, criterion, k=6, binary_planes=planes, prepared=prepared)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[2], expected[2])
    # a byte-code kernel that reads the codes gets them written again from the planes
    kernel = _bitcount.counting_kernel(p_codes, p_levels, y, 2, 1, planes, prepared)
    kernel.write_codes()
    np.testing.assert_array_equal(p_codes, codes)


@pytest.mark.parametrize("row_tiles", [False, True])
def test_mu_sigma_planes_are_the_planes_of_mu_sigma_levels(row_tiles, monkeypatch):
    from fstools.core import discretize
    monkeypatch.setattr(discretize, "_by_row_tiles", lambda array, columns, method: row_tiles)
    monkeypatch.setattr(discretize, "PLANE_BUFFER_BYTES", 4 * 5000)
    rng = np.random.default_rng(9)
    X = rng.standard_normal((5000, 11))
    X[:, 3] = 7.0  # constant: code 4 everywhere
    codes, levels = discretize.mu_sigma_levels(X)
    p_codes, p_levels, planes, prepared = discretize.mu_sigma_planes(X, 2)
    np.testing.assert_array_equal(p_levels, levels)
    assert prepared.all()
    first_plane, _ = _bitcount.plane_rows(levels)
    for j in range(X.shape[1]):
        _assert_planes_of(planes, first_plane, j, codes[j], levels[j])
    # three classes: 8 x 8 x 3 streams a pair, counted on byte codes: every codes row written
    p_codes, p_levels, planes, prepared = discretize.mu_sigma_planes(X, 3)
    assert planes is None and not prepared.any()
    np.testing.assert_array_equal(p_codes, codes)


@pytest.mark.parametrize("criterion, n_classes, expected", [("jmi", 2, True), ("jmi", 3, False), ("cmim", 3, False),
                                                           ("mrmr", 3, True), ("mifs", 5, True)])
def test_greedy_filters_ask_for_planes_only_where_pairs_are_counted_on_them(criterion, n_classes, expected,
                                                                             monkeypatch):
    # nine levels: 8 x 8 x K streams a pair, at most MAX_STREAMS (128) on planes: two classes only, but
    # for the criteria whose pairs need no class (I(X_k;X_j)): 8 x 8 whatever the classes
    from fstools.methods import information
    asked = []
    real = information.information_codes_with_planes

    def spy(*args, **kwargs):
        asked.append(kwargs.get("discretised_planes", True))
        return real(*args, **kwargs)

    monkeypatch.setattr(information, "information_codes_with_planes", spy)
    rng = np.random.default_rng(2)
    X = rng.standard_normal((300, 6))
    y = rng.integers(0, n_classes, 300).astype(np.int32)
    getattr(information, criterion)(X, y, k=3)
    assert asked == [expected]
    assert _bitcount.pairs_on_planes(9, n_classes, criterion in ("mrmr", "mifs")) == expected


@pytest.mark.parametrize("criterion", ["mifs", "mifs_u", "mrmr"])
@pytest.mark.parametrize("n_classes", [3, 6])
def test_class_free_pairs_on_planes_with_many_classes_equal_the_byte_codes(criterion, n_classes, monkeypatch):
    rng = np.random.default_rng(n_classes)
    X = _mixed_matrix(rng, 1500, 14)
    y = rng.integers(0, n_classes, 1500).astype(np.int32)
    p_codes, p_levels, p_as_is, planes, prepared = information_codes_with_planes(X)
    assert (prepared & ~p_as_is).any()  # the discretised columns came as planes
    kernel = _bitcount.counting_kernel(p_codes, p_levels, y, n_classes, 1, planes, prepared, pairs_without_class=True)
    assert isinstance(kernel, _bitcount.PlaneCounter)
    got = greedy_information_selection(p_codes, p_levels, y, criterion, k=7, binary_planes=planes, prepared=prepared)
    codes, levels, _ = information_codes(X)
    monkeypatch.setattr(_bitcount, "counting_kernel", lambda *args, **kwargs: ent)
    want = greedy_information_selection(codes, levels, y, criterion, k=7)
    np.testing.assert_array_equal(got[0], want[0])
    for key in want[1]:
        np.testing.assert_array_equal(got[1][key], want[1][key])
    np.testing.assert_array_equal(got[2], want[2])

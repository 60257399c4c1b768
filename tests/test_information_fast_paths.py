"""The fast paths of the information methods equal their references bit for bit.

* lazy CMIM (Fleuret's evaluation, :func:`fstools._ext._entropy.lazy_cmim`) against
  the eager update of every candidate at every step (``lazy=False``), ties included;
* the discrete-columns kernel of :func:`fstools.core.discretize.information_codes`
  against ``numpy.unique`` column by column, for every input dtype and layout;
* the vectorised equal-width / equal-frequency blocks against ``searchsorted`` per column;
* the top-k ranking of MIM against the full ranking.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from fstools._ext import _entropy as ent
from fstools.core import discretize
from fstools.core.discretize import MAX_LEVELS_AS_IS, information_codes
from fstools.core.ranking import TIE_TOLERANCE, rank_features
from fstools.methods import information
from fstools.methods.information import greedy_information_selection


def _tied_codes(rng, m, n, max_levels=4):
    """Codes with duplicated columns, constant columns and columns equal up to relabelling (exact ties)."""
    levels = rng.integers(1, max_levels + 1, n).astype(np.int32)
    codes = (rng.random((n, m)) * levels[:, None]).astype(np.int8)
    for j in range(0, n, 5):                       # exact duplicates of an earlier or later column
        source = rng.integers(0, n)
        codes[j], levels[j] = codes[source], levels[source]
    codes[1::7] = 0                                 # constant columns
    swap = np.arange(2, n, 9)                       # relabelled copies: the same information, other codes
    codes[swap] = (levels[swap - 1, None] - 1 - codes[swap - 1]).astype(np.int8)
    levels[swap] = levels[swap - 1]
    return np.ascontiguousarray(codes), levels


def _eager_and_lazy(codes, levels, y, k):
    eager = greedy_information_selection(codes, levels, y, "cmim", k=k, lazy=False)
    lazy = greedy_information_selection(codes, levels, y, "cmim", k=k, lazy=True)
    return eager, lazy


@pytest.mark.parametrize("seed", range(12))
def test_lazy_cmim_equals_eager_with_ties(seed):
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(5, 60)), int(rng.integers(2, 40))
    codes, levels = _tied_codes(rng, m, n)
    n_classes = int(rng.integers(2, 4))
    y = rng.integers(0, n_classes, m).astype(np.int32)
    y[:n_classes] = np.arange(n_classes)
    for k in (1, 2, n // 2 + 1, n):
        (r_eager, s_eager, rel_eager), (r_lazy, s_lazy, rel_lazy) = _eager_and_lazy(codes, levels, y, k)
        np.testing.assert_array_equal(r_lazy, r_eager)
        assert s_lazy["J"].tobytes() == s_eager["J"].tobytes()   # bitwise
        assert rel_lazy.tobytes() == rel_eager.tobytes()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(4, 30), st.integers(2, 25))
def test_lazy_cmim_equals_eager_property(seed, m, n):
    rng = np.random.default_rng(seed)
    codes, levels = _tied_codes(rng, m, n, max_levels=3)
    y = (rng.random(m) < 0.5).astype(np.int32)
    y[:2] = (0, 1)
    (r_eager, s_eager, _), (r_lazy, s_lazy, _) = _eager_and_lazy(codes, levels, y, n)
    np.testing.assert_array_equal(r_lazy, r_eager)
    assert s_lazy["J"].tobytes() == s_eager["J"].tobytes()


def test_lazy_cmim_tie_rule_lowest_index_within_tolerance():
    # columns 3 and 1 are copies of 0 (exact ties at every step after 0 is chosen): the lowest index wins
    rng = np.random.default_rng(5)
    m = 40
    y = rng.integers(0, 2, m).astype(np.int32)
    base = ((y + (rng.random(m) < 0.2)) % 2).astype(np.int8)
    other = rng.integers(0, 3, m).astype(np.int8)
    codes = np.ascontiguousarray(np.stack([base, other, other.copy(), base.copy(), other.copy()]))
    levels = np.array([2, 3, 3, 2, 3], dtype=np.int32)
    (r_eager, s_eager, _), (r_lazy, s_lazy, _) = _eager_and_lazy(codes, levels, y, 5)
    np.testing.assert_array_equal(r_lazy, r_eager)
    assert r_lazy[0] == 0 and list(r_lazy[1:3]) == [1, 2]


def test_lazy_cmim_scores_within_tolerance_are_tied():
    # relevance values 1 ulp apart count as tied: the lower column index wins, as first_maximum
    codes = np.zeros((3, 4), dtype=np.int8)
    levels = np.ones(3, dtype=np.int32)
    y = np.array([0, 1, 0, 1], dtype=np.int32)
    relevance = np.array([0.5, np.nextafter(0.5, 1.0), 0.5 - 2e-12])
    ranking = np.empty(1, dtype=np.intp)
    scores = np.empty(1)
    ent.lazy_cmim(codes, levels, y, 2, relevance, 1, ranking, scores, TIE_TOLERANCE)
    assert ranking[0] == 0
    ent.lazy_cmim(codes, levels, y, 2, relevance, 1, ranking, scores, 0.0)
    assert ranking[0] == 1


def test_lazy_cmim_names_a_bad_code():
    codes = np.array([[0, 1, 0, 1], [0, 5, 0, 1]], dtype=np.int8)
    levels = np.array([2, 2], dtype=np.int32)
    y = np.array([0, 1, 0, 1], dtype=np.int32)
    with pytest.raises(ValueError, match=r"codes\[1\]"):
        ent.lazy_cmim(codes, levels, y, 2, np.array([1.0, 0.5]), 2, np.empty(2, dtype=np.intp),
                      np.empty(2), TIE_TOLERANCE)


def test_cmim_method_uses_the_lazy_kernel_and_equals_eager(monkeypatch):
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, (300, 60)).astype(float)
    y = ((X[:, 0] + X[:, 1] + rng.integers(0, 3, 300)) > 4).astype(np.int32)
    lazy = information.cmim(X, y, k=20)
    original = information.greedy_information_selection
    monkeypatch.setattr(information, "greedy_information_selection",
                        lambda *args, **kwargs: original(*args, **{**kwargs, "lazy": False}))
    eager = information.cmim(X, y, k=20)
    np.testing.assert_array_equal(lazy.ranking, eager.ranking)
    assert lazy.steps["J"].tobytes() == eager.steps["J"].tobytes()


# ---------------------------------------------------------------------------
# the discrete-columns kernel
# ---------------------------------------------------------------------------

def _unique_reference(X, max_levels=MAX_LEVELS_AS_IS):
    """(status, codes, levels) column by column with numpy.unique on float64 (the former path)."""
    X = np.asarray(X, dtype=np.float64)
    status = np.zeros(X.shape[1], dtype=np.int8)
    codes = np.zeros((X.shape[1], X.shape[0]), dtype=np.int8)
    levels = np.zeros(X.shape[1], dtype=np.int32)
    for j, column in enumerate(X.T):
        if not np.isfinite(column).all():
            status[j] = ent.COLUMN_NON_FINITE
            continue
        values, inverse = np.unique(column, return_inverse=True)
        if np.all(column == np.round(column)) and values.size <= max_levels:
            status[j], codes[j], levels[j] = ent.COLUMN_DISCRETE, inverse, values.size
    return status, codes, levels


def _mixed_matrix(rng, m):
    columns = [rng.integers(0, 10, m), rng.integers(-3, 3, m) * 1000, rng.integers(0, 40, m),
               rng.integers(0, 2, m), np.zeros(m), np.full(m, -0.0), rng.normal(size=m),
               np.round(rng.normal(size=m), 1), rng.integers(-2 ** 40, 2 ** 40, m) * (rng.random(m) < 0.3),
               np.where(rng.random(m) < 0.5, 0.5, 1.5), rng.integers(0, 32, m), rng.integers(0, 33, m) * 7]
    return np.column_stack(columns).astype(np.float64)


@pytest.mark.parametrize("layout", ["C", "F", "strided", "one_row"])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_discrete_column_kernel_equals_numpy_unique(layout, n_threads):
    rng = np.random.default_rng(7)
    X = _mixed_matrix(rng, 301)
    X[::3, 0] = -0.0
    X = {"C": X, "F": np.asfortranarray(X), "strided": np.vstack([X, X])[::2, :], "one_row": X[:1]}[layout]
    n = X.shape[1]
    status = np.zeros(n, dtype=np.int8)
    codes = np.zeros((n, X.shape[0]), dtype=np.int8)
    levels = np.zeros(n, dtype=np.int32)
    ent.discrete_column_codes(X, MAX_LEVELS_AS_IS, codes, levels, status, n_threads)
    ref_status, ref_codes, ref_levels = _unique_reference(X)
    np.testing.assert_array_equal(status, ref_status)
    discrete = status == ent.COLUMN_DISCRETE
    np.testing.assert_array_equal(codes[discrete], ref_codes[discrete])
    np.testing.assert_array_equal(levels[discrete], ref_levels[discrete])


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.int32, np.int16, np.int8, np.uint8,
                                   np.uint16, np.uint32, np.uint64, bool])
def test_information_codes_every_dtype_equals_float64(dtype):
    rng = np.random.default_rng(2)
    X = rng.integers(0, 3 if dtype is bool else 60, (200, 9))
    X[:, 3] = rng.integers(0, 2, 200)
    X[:, 4] = 1
    X = X.astype(dtype)
    codes, levels, as_is = information_codes(X)
    ref = information_codes(X.astype(np.float64))
    np.testing.assert_array_equal(codes, ref[0])
    np.testing.assert_array_equal(levels, ref[1])
    np.testing.assert_array_equal(as_is, ref[2])


def test_information_codes_int64_beyond_two_to_53_as_before():
    X = np.zeros((50, 2), dtype=np.int64)
    X[:, 0] = 2 ** 60 + np.arange(50) % 3
    X[:, 1] = np.arange(50) % 4
    codes, levels, as_is = information_codes(X)
    ref_status, ref_codes, ref_levels = _unique_reference(X)
    np.testing.assert_array_equal(as_is, ref_status == ent.COLUMN_DISCRETE)
    np.testing.assert_array_equal(codes[as_is], ref_codes[as_is])


def test_information_codes_non_finite_message_unchanged():
    X = np.zeros((5, 3))
    X[2, 1] = np.inf
    X[4, 0] = np.nan
    with pytest.raises(ValueError, match=r"got nan at row 4, column 0|got inf at row 2, column 1"):
        information_codes(X)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 80), st.sampled_from([2, 3, 10, 40, 200]))
def test_vectorised_bins_equal_searchsorted_per_column(seed, m, n_bins):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=m), np.round(rng.normal(size=m), 1), np.full(m, 2.5),
                         rng.normal(size=m) * 1e300, rng.normal(size=m) * 1e-310])
    for block_function, column_function in (
            (discretize._equal_width_block, _equal_width_column),
            (discretize._equal_frequency_block, _equal_frequency_column)):
        block = np.ascontiguousarray(X.T)
        expected = np.stack([column_function(column, n_bins) for column in block])
        np.testing.assert_array_equal(block_function(block, n_bins), expected)


def _equal_width_column(column, n_bins):
    codes = np.zeros(column.shape, dtype=np.int64)
    low, high = column.min(), column.max()
    if low < high:
        exponent = np.frexp(max(abs(low), abs(high)))[1]
        low, high = np.ldexp(low, -exponent), np.ldexp(high, -exponent)
        width = high / n_bins - low / n_bins
        codes = np.searchsorted(low + np.arange(1, n_bins) * width, np.ldexp(column, -exponent), side="left")
    return codes


def _equal_frequency_column(column, n_bins):
    if column.min() < column.max():
        cuts = np.quantile(column, np.arange(1, n_bins) / n_bins, method="inverted_cdf")
        return np.searchsorted(cuts, column, side="left")
    return np.zeros(column.shape, dtype=np.int64)


# ---------------------------------------------------------------------------
# MIM's top-k ranking
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(5))
def test_top_ranking_equals_full_ranking(seed):
    rng = np.random.default_rng(seed)
    scores = np.round(rng.random(5000), 3)          # many exact ties
    scores[::17] += 1e-13                            # ties within the tolerance
    for k in (1, 7, 50, 1000, 5000):
        np.testing.assert_array_equal(information._top_ranking(scores, k),
                                      rank_features(scores, k=k, tolerance=TIE_TOLERANCE))


def test_sparse_and_dense_mim_agree_on_wide_binary_data():
    rng = np.random.default_rng(4)
    X = (rng.random((120, 3000)) < 0.05).astype(np.float64)
    y = rng.integers(0, 2, 120).astype(np.int32)
    dense = information.mim(X, y, k=40)
    for matrix in (sparse.csr_matrix(X), sparse.csc_matrix(X)):
        np.testing.assert_array_equal(information.mim(matrix, y, k=40).ranking, dense.ranking)

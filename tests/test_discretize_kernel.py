"""The discretisation kernel (fstools._ext._discretize) against the NumPy code it replaced.

The reference is the NumPy block code that discretised continuous columns before the kernel
(copied here unchanged: ``_mu_sigma_block``, ``_equal_width_block``, ``_equal_frequency_block``
and their helpers), applied to the columns as contiguous float64 rows.  The kernel must give
bitwise the same codes for every input: random sizes (around the pairwise-summation block
sizes 8, 16, 128, 256), ties, constant and duplicated columns, values exactly on the mu/sigma
thresholds, huge, tiny and subnormal magnitudes, float32 and integer input, C and F order,
1, 2 and 3 threads.  The pairwise sum itself is checked against a plain-Python transcription
of NumPy's ``pairwise_sum`` (numpy/_core/src/umath/loops_utils.h.src).
"""
import signal
import subprocess
import sys
import textwrap
import time
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from isolated import subprocess_options

from fstools._ext import _discretize
from fstools.core.arrays import scaled_to_unit
from fstools.core.discretize import (MU_SIGMA_EDGES, discretize, equal_frequency_levels, equal_width_levels,
                                     information_codes, mu_sigma_levels)

MU_SIGMA_LEVELS = 9
#: NumPy 2.3 and later sum a contiguous row pairwise as a whole; earlier versions sum the chunks
#: of their 8192-value ufunc buffer one after another (checked with 1.25.2, 2.0.2, 2.2.6, 2.3.5, 2.4.6).
WHOLE_ROW_PAIRWISE = tuple(int(part) for part in np.__version__.split(".")[:2]) >= (2, 3)


# ---------------------------------------------------------------------------
# The reference: the NumPy block code the kernel replaced (fstools 0.x, core/discretize.py)
# ---------------------------------------------------------------------------

def _code_dtype(n_levels):
    return np.dtype(np.int8) if n_levels <= 127 else np.dtype(np.int16)


def _mu_sigma_block(block):
    """Nine-level codes (int8) of the rows of ``block`` (columns of X, float64)."""
    codes = np.full(block.shape, MU_SIGMA_LEVELS // 2, dtype=_code_dtype(MU_SIGMA_LEVELS))
    low, high = block.min(axis=1), block.max(axis=1)
    varying = low < high  # constant columns stay at level 0
    if not np.any(varying):
        return codes
    rows = block if varying.all() else block[varying]  # (no copy when every column varies)
    G, _ = scaled_to_unit(rows, np.maximum(np.abs(low[varying]), np.abs(high[varying])), axis=1)
    mu = G.mean(axis=1, keepdims=True)
    sigma = G.std(axis=1, ddof=1, keepdims=True)
    level = np.zeros(G.shape, dtype=codes.dtype)
    for t in MU_SIGMA_EDGES:
        level += G > mu + t * sigma
        level -= G < mu - t * sigma
    level[sigma[:, 0] == 0] = 0
    codes[varying] = level + MU_SIGMA_LEVELS // 2
    return codes


def _codes_from_cuts(values, cuts):
    return np.searchsorted(cuts, values, side="left")


_COMPARED_CUTS = 32


def _codes_below_cuts(G, cuts, dtype):
    if cuts.shape[1] <= _COMPARED_CUTS:
        codes = np.zeros(G.shape, dtype=dtype)
        for k in range(cuts.shape[1]):
            codes += G > cuts[:, k:k + 1]
        return codes
    return np.stack([_codes_from_cuts(row, row_cuts) for row, row_cuts in zip(G, cuts)]).astype(dtype)


def _equal_width_block(block, n_bins):
    """Equal-width codes of the rows of ``block`` (columns of X, float64)."""
    dtype = _code_dtype(n_bins)
    codes = np.zeros(block.shape, dtype=dtype)
    low, high = block.min(axis=1), block.max(axis=1)
    varying = low < high  # constant columns stay at code 0
    if not np.any(varying):
        return codes
    rows, low, high = block[varying], low[varying], high[varying]
    exponent = np.frexp(np.maximum(np.abs(low), np.abs(high)))[1][:, None]
    low, high = np.ldexp(low[:, None], -exponent), np.ldexp(high[:, None], -exponent)
    width = high / n_bins - low / n_bins  # (high - low) / n_bins without overflow
    cuts = low + np.arange(1, n_bins)[None, :] * width
    codes[varying] = _codes_below_cuts(np.ldexp(rows, -exponent), cuts, dtype)
    return codes


def _equal_frequency_block(block, n_bins):
    """Equal-frequency codes of the rows of ``block`` (columns of X, float64)."""
    dtype = _code_dtype(n_bins)
    codes = np.zeros(block.shape, dtype=dtype)
    varying = block.min(axis=1) < block.max(axis=1)  # constant columns stay at code 0
    if not np.any(varying):
        return codes
    rows = block[varying]
    cuts = np.quantile(rows, np.arange(1, n_bins) / n_bins, axis=1, method="inverted_cdf").T
    codes[varying] = _codes_below_cuts(rows, np.ascontiguousarray(cuts), dtype)
    return codes


def reference_codes(X, method, n_bins=None):
    """Codes of every column of ``X`` by the NumPy reference (columns as contiguous float64 rows)."""
    block = np.ascontiguousarray(np.asarray(X).T, dtype=np.float64)
    if method == "mu_sigma":
        return _mu_sigma_block(block)
    if method == "equal_width":
        return _equal_width_block(block, n_bins)
    return _equal_frequency_block(block, n_bins)


def python_pairwise_sum(values):
    """NumPy's ``pairwise_sum`` (loops_utils.h.src) transcribed to plain Python floats."""
    n = len(values)
    if n < 8:
        total = -0.0
        for value in values:
            total += value
        return total
    if n <= 128:
        r = list(values[:8])
        i = 8
        while i < n - n % 8:
            for k in range(8):
                r[k] += values[i + k]
            i += 8
        total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for value in values[i:]:
            total += value
        return total
    half = n // 2
    half -= half % 8
    return python_pairwise_sum(values[:half]) + python_pairwise_sum(values[half:])


# ---------------------------------------------------------------------------
# Columns that stress the arithmetic
# ---------------------------------------------------------------------------

#: Sizes where NumPy's pairwise sum changes shape (plain loop below 8, eight accumulators up
#: to 128, a split above) and their neighbours.
SIZES = [1, 2, 3, 7, 8, 9, 15, 16, 17, 127, 128, 129, 130, 255, 256, 257, 263, 1000, 1031, 2999, 3000]

KINDS = ("normal", "ties", "constant", "duplicate", "on_thresholds", "two_values", "huge", "tiny",
         "subnormal", "scaling_rounds", "integers", "near_overflow")


def on_threshold_column(rng, n):
    """A column of ``n`` values whose mean and standard deviation are exact and whose values
    other than the mean sit exactly on mu +- t sigma (t = 0.5, 1.5, 2.5, 3.5).

    Integers ``c + s v`` with ``v`` in {0, +-1, +-3, +-5, +-7}: k pairs +-1, m pairs +-3, p pairs
    +-5, q pairs +-7 and z zeros (n = 2(k + m + p + q) + z) have mean c and sample variance
    4 s^2, so sigma = 2 s, when 3k + 2z = 5m + 21p + 45q + 2, that is k = 2n - 9m - 25p - 49q - 2
    and z = 16m + 48p + 96q + 4 - 3n, both >= 0.  Such designs exist for n >= 16 (and a few
    smaller n); for other n the values are a design cut or repeated to n values (not exact).
    The column is multiplied by a power of two (exact)."""
    design = None
    for _ in range(200):
        q = int(rng.integers(0, (2 * n) // 49 + 1))
        p = int(rng.integers(0, max(0, 2 * n - 49 * q) // 25 + 1))
        low = max(0, -(-(3 * n - 4 - 48 * p - 96 * q) // 16))
        high = (2 * n - 2 - 25 * p - 49 * q) // 9
        if low <= high:
            m = int(rng.integers(low, high + 1))
            design = (2 * n - 9 * m - 25 * p - 49 * q - 2, m, p, q, 16 * m + 48 * p + 96 * q + 4 - 3 * n)
            break
    if design is None:
        design = (1, 8, 0, 0, 0) if n < 43 else (1, 1, 1, 1, 35)  # (k, m, p, q, z) of 17 and 43 values
    k, m, p, q, z = design
    values = np.concatenate([np.repeat([1.0, -1.0], k), np.repeat([3.0, -3.0], m), np.repeat([5.0, -5.0], p),
                             np.repeat([7.0, -7.0], q), np.zeros(z)])
    values = float(rng.integers(-1000, 1000)) + float(rng.integers(1, 50)) * values
    values = rng.permutation(values * 2.0 ** float(rng.integers(-60, 60)))
    return values if values.size == n else np.resize(values, n)


def make_column(rng, kind, n, previous):
    if kind == "normal":
        return rng.normal(size=n) * 10.0 ** rng.uniform(-5, 5)
    if kind == "ties":
        return np.round(rng.normal(size=n), int(rng.integers(0, 2)))
    if kind == "constant":
        return np.full(n, rng.choice([0.0, -0.0, 2.5, -1e300, 5e-324]))
    if kind == "duplicate" and previous:
        return previous[int(rng.integers(len(previous)))].copy()
    if kind == "on_thresholds":
        column = on_threshold_column(rng, n)
        return column
    if kind == "two_values":
        return rng.choice(rng.normal(size=2), size=n)
    if kind == "huge":
        return rng.normal(size=n) * 1e300
    if kind == "tiny":
        return rng.normal(size=n) * 1e-300
    if kind == "subnormal":
        return rng.integers(-9, 10, n) * 5e-324
    if kind == "scaling_rounds":  # subnormal values next to 1: the scaling by 2^-1 rounds them
        return np.where(rng.random(n) < 0.3, rng.choice([1.0, -1.5]), rng.integers(-99, 100, n) * 5e-324)
    if kind == "integers":
        return rng.integers(-40, 200, n).astype(np.float64)
    if kind == "near_overflow":  # max - min overflows
        return rng.choice([-1.7e308, 1.7e308, 0.0, 1e307], size=n)
    return rng.normal(size=n)


@st.composite
def matrices(draw, max_columns=6):
    """(X float64 of shape (n, p), seed): columns of the KINDS, n around the pairwise block sizes."""
    n = draw(st.one_of(st.sampled_from(SIZES), st.integers(1, 3000)))
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=max_columns))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    columns = []
    for kind in kinds:
        columns.append(make_column(rng, kind, n, columns))
    return np.column_stack(columns)


def as_float32(X):
    """``X`` as float32, the values beyond float32's range (which become inf) replaced by 1."""
    with np.errstate(over="ignore"):
        X = X.astype(np.float32)
    X[~np.isfinite(X)] = 1.0
    return X


def kernel_codes(X, method, n_bins=None, n_threads=1, columns=None):
    """Codes by the kernel called directly (every column, or the chosen ones)."""
    n, p = X.shape
    n_levels = MU_SIGMA_LEVELS if method == "mu_sigma" else n_bins
    codes = np.full((p, n), -1, dtype=_code_dtype(n_levels))
    columns = np.arange(p, dtype=np.intp) if columns is None else np.asarray(columns, dtype=np.intp)
    arguments = {"n_threads": n_threads}
    if method == "mu_sigma":
        arguments["edges"] = np.array(MU_SIGMA_EDGES)
        scheme = _discretize.MU_SIGMA
    else:
        arguments["n_bins"] = n_bins
        scheme = _discretize.EQUAL_WIDTH if method == "equal_width" else _discretize.EQUAL_FREQUENCY
    if method == "equal_frequency":
        arguments["ranks"] = np.quantile(np.arange(n, dtype=np.float64), np.arange(1, n_bins) / n_bins,
                                         method="inverted_cdf").astype(np.intp)
    _discretize.discretize_columns(X, columns, codes, scheme, **arguments)
    return codes


METHODS = [("mu_sigma", None), ("equal_width", 2), ("equal_width", 9), ("equal_width", 40),
           ("equal_width", 300), ("equal_frequency", 2), ("equal_frequency", 10), ("equal_frequency", 33),
           ("equal_frequency", 300)]


# ---------------------------------------------------------------------------
# Kernel == reference
# ---------------------------------------------------------------------------

@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matrices(), st.sampled_from(METHODS), st.sampled_from("CF"), st.sampled_from([1, 2, 3]))
def test_kernel_equals_numpy_reference(X, method_bins, order, n_threads):
    method, n_bins = method_bins
    expected = reference_codes(X, method, n_bins)
    got = kernel_codes(np.asarray(X, order=order), method, n_bins, n_threads)
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == expected.dtype


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matrices(), st.sampled_from(METHODS), st.sampled_from(["float64", "float32", "int64", "int16", "bool"]),
       st.sampled_from("CF"))
def test_public_functions_equal_numpy_reference(X, method_bins, dtype, order):
    """discretize / mu_sigma_levels / equal_width_levels / equal_frequency_levels on every dtype
    and order: the reference of the same values converted to float64."""
    method, n_bins = method_bins
    if dtype == "float32":
        X = as_float32(X)
    elif dtype != "float64":
        X = np.clip(np.nan_to_num(X), -1e4, 1e4).astype(dtype)
    X = np.asarray(X, order=order)
    expected = reference_codes(X, method, n_bins)
    codes, levels = discretize(X, method, n_bins)
    np.testing.assert_array_equal(codes, expected)
    assert codes.dtype == expected.dtype and codes.flags.c_contiguous
    np.testing.assert_array_equal(levels, np.full(X.shape[1], n_bins or MU_SIGMA_LEVELS))
    single = {"mu_sigma": lambda: mu_sigma_levels(X), "equal_width": lambda: equal_width_levels(X, n_bins),
              "equal_frequency": lambda: equal_frequency_levels(X, n_bins)}[method]()
    np.testing.assert_array_equal(single[0], expected)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matrices(max_columns=8), st.sampled_from(METHODS), st.sampled_from([1, 2, 3]),
       st.sampled_from(["float64", "float32", "int32"]), st.sampled_from("CF"))
def test_information_codes_continuous_columns_equal_reference(X, method_bins, n_threads, dtype, order):
    """information_codes codes its continuous columns as the reference, whatever the threads."""
    method, n_bins = method_bins
    if dtype == "float32":
        X = as_float32(X)
    elif dtype == "int32":
        X = np.clip(X, -1e6, 1e6).astype(np.int32)
    X = np.asarray(X, order=order)
    codes, levels, as_is = information_codes(X, discretization=method, n_bins=n_bins, n_threads=n_threads)
    expected = reference_codes(X, method, n_bins)
    np.testing.assert_array_equal(codes[~as_is], expected[~as_is].astype(codes.dtype))
    np.testing.assert_array_equal(levels[~as_is], n_bins or MU_SIGMA_LEVELS)
    one_thread = information_codes(X, discretization=method, n_bins=n_bins, n_threads=1)
    np.testing.assert_array_equal(codes, one_thread[0])


@pytest.mark.parametrize("n", SIZES)
def test_on_threshold_columns_are_coded_as_the_reference(n):
    """Values exactly on mu +- t sigma belong to the interval nearer to mu, as in the reference;
    the columns really have values on the thresholds (else the test could not fail)."""
    rng = np.random.default_rng(n)
    X = np.column_stack([on_threshold_column(rng, max(n, 2)) for _ in range(8)])
    if n == 1:
        X = X[:1]
    expected = reference_codes(X, "mu_sigma")
    for n_threads in (1, 2, 3):
        np.testing.assert_array_equal(kernel_codes(X, "mu_sigma", n_threads=n_threads), expected)
    if n >= 16:  # exact designs: every value off the mean is on a threshold
        G, _ = scaled_to_unit(np.ascontiguousarray(X.T), axis=1)
        mu, sigma = G.mean(axis=1, keepdims=True), G.std(axis=1, ddof=1, keepdims=True)
        on = np.zeros(G.shape, dtype=bool)
        for t in MU_SIGMA_EDGES:
            on |= (G == mu + t * sigma) | (G == mu - t * sigma)
        assert on.any()


def _fused_threshold(mu, t, sigma):
    """mu + t * sigma rounded once (what a fused multiply-add gives)."""
    return float(Fraction(mu) + Fraction(t) * Fraction(sigma))


def fma_sensitive_columns(count=12, n=40, seed=0):
    """Columns in [0.5, 1) (so the scaling is 1) with one value exactly on mu + t sigma computed
    with two roundings, where one rounding (a fused multiply-add) gives a smaller threshold:
    a kernel that fused the two would code that value one level higher."""
    rng = np.random.default_rng(seed)
    found = []
    for _ in range(20000):
        if len(found) == count:
            break
        column = rng.uniform(0.5, 0.75, n)
        t = MU_SIGMA_EDGES[int(rng.integers(1, 4))]  # (0.5 * sigma is exact: no fused difference)
        for _ in range(40):  # fixed point: the last value on its own column's threshold
            mu, sigma = column.mean(), column.std(ddof=1)
            threshold = mu + t * sigma
            if column[-1] == threshold:
                break
            column[-1] = threshold
        mu, sigma = column.mean(), column.std(ddof=1)
        if column[-1] == mu + t * sigma and column.max() < 1.0 and _fused_threshold(mu, t, sigma) < mu + t * sigma:
            found.append(column.copy())
    return np.column_stack(found)


def test_thresholds_are_not_fused_multiply_adds():
    """mu + t * sigma is rounded after the product and after the sum, as NumPy's two ufuncs do;
    the columns are built so that a fused multiply-add would change a code."""
    X = fma_sensitive_columns()
    assert X.shape[1] == 12
    expected = reference_codes(X, "mu_sigma")
    # the test can fail: with fused thresholds the reference itself would differ
    G = np.ascontiguousarray(X.T)
    mu, sigma = G.mean(axis=1), G.std(axis=1, ddof=1)
    fused_levels = np.zeros(G.shape, dtype=int)
    for t in MU_SIGMA_EDGES:
        upper = np.array([_fused_threshold(m, t, s) for m, s in zip(mu, sigma)])[:, None]
        lower = np.array([float(Fraction(m) - Fraction(t) * Fraction(s)) for m, s in zip(mu, sigma)])[:, None]
        fused_levels += (G > upper).astype(int) - (G < lower)
    assert np.any(fused_levels + 4 != expected)
    for n_threads in (1, 2):
        np.testing.assert_array_equal(kernel_codes(X, "mu_sigma", n_threads=n_threads), expected)


@pytest.mark.parametrize("n", [2, 3, 7, 8, 9, 15, 16, 17, 64, 127, 128, 129, 136, 255, 256, 257, 1000, 4099, 8192])
def test_mean_and_sigma_are_numpys(n):
    """The kernel's sum is NumPy's pairwise sum from 0.0 (plain Python transcription), and its
    mean and sigma those of numpy.mean and numpy.std(ddof=1) on a contiguous row."""
    rng = np.random.default_rng(n)
    values = rng.normal(size=n) * 10.0 ** rng.uniform(-3, 3, n)  # magnitudes that make the order matter
    assert _discretize.pairwise_sum_of(values) == 0.0 + python_pairwise_sum([float(v) for v in values])
    assert _discretize.pairwise_sum_of(values) == np.add.reduce(values)
    mu, sigma = _discretize.mean_and_sigma_of(values)
    assert mu == values.mean()
    assert sigma == values.std(ddof=1)


@pytest.mark.parametrize("n", [8193, 9000, 20000])
def test_pairwise_sum_of_long_columns_is_over_the_whole_column(n):
    """Beyond 8192 values the kernel sums the whole column pairwise, as NumPy 2.3 and later do
    (NumPy 1.25 to 2.2 sum the chunks of their 8192-value ufunc buffer one after another)."""
    rng = np.random.default_rng(n)
    values = rng.normal(size=n) * 10.0 ** rng.uniform(-3, 3, n)
    assert _discretize.pairwise_sum_of(values) == 0.0 + python_pairwise_sum([float(v) for v in values])
    if WHOLE_ROW_PAIRWISE:
        assert _discretize.pairwise_sum_of(values) == np.add.reduce(values)
        X = np.column_stack([values, np.round(values), rng.normal(size=n)])
        np.testing.assert_array_equal(kernel_codes(X, "mu_sigma", n_threads=2), reference_codes(X, "mu_sigma"))


def test_sums_differ_in_another_order():
    """The magnitudes of test_mean_and_sigma_are_numpys make the summation order matter (so
    the test can fail): a left-to-right sum differs from the pairwise one for some sizes."""
    differs = 0
    for n in (129, 257, 1000, 4099):
        values = np.random.default_rng(n).normal(size=n) * 10.0 ** np.random.default_rng(n).uniform(-3, 3, n)
        total = 0.0
        for value in values:
            total += float(value)
        differs += total != _discretize.pairwise_sum_of(values)
    assert differs > 0


def test_chosen_columns_only_and_other_rows_untouched():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 20))
    chosen = np.array([0, 3, 4, 11, 19])
    for method, n_bins in METHODS:
        codes = kernel_codes(X, method, n_bins, n_threads=3, columns=chosen)
        expected = reference_codes(X, method, n_bins)
        np.testing.assert_array_equal(codes[chosen], expected[chosen])
        others = np.setdiff1d(np.arange(20), chosen)
        assert np.all(codes[others] == -1)


def test_strided_views_are_read_as_they_are():
    rng = np.random.default_rng(6)
    big = rng.normal(size=(401, 31))
    for X in (big[::3, ::2], big[::-1, 5:9], big.T[::2].T, np.asfortranarray(big)[::2, ::3]):
        for method, n_bins in METHODS:
            np.testing.assert_array_equal(kernel_codes(X, method, n_bins, n_threads=2),
                                          reference_codes(X, method, n_bins))


def test_int16_codes_for_many_bins():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(5000, 3))
    for method in ("equal_width", "equal_frequency"):
        codes, _ = discretize(X, method, 1000)
        assert codes.dtype == np.int16
        np.testing.assert_array_equal(codes, reference_codes(X, method, 1000))


# ---------------------------------------------------------------------------
# Bad input: ValueError naming the argument
# ---------------------------------------------------------------------------

def _call(**changes):
    X = np.random.default_rng(0).normal(size=(10, 3))
    arguments = {"X": X, "columns": np.arange(3, dtype=np.intp), "codes": np.zeros((3, 10), dtype=np.int8),
                 "scheme": _discretize.EQUAL_WIDTH, "n_bins": 4}
    arguments.update(changes)
    return _discretize.discretize_columns(arguments.pop("X"), arguments.pop("columns"), arguments.pop("codes"),
                                          arguments.pop("scheme"), **arguments)


@pytest.mark.parametrize("changes, name", [
    ({"X": np.zeros((10, 3), dtype=np.float32)}, "X"),
    ({"X": np.zeros(10)}, "X"),
    ({"X": np.zeros((0, 3))}, "X"),
    ({"X": [[1.0]]}, "X"),
    ({"X": np.ndarray((10, 3), dtype=np.float64, buffer=np.zeros(200, dtype=np.uint8), strides=(12, 4))}, "X"),
    ({"columns": np.array([0, 3], dtype=np.intp)}, "columns"),
    ({"columns": np.array([-1, 1], dtype=np.intp)}, "columns"),
    ({"columns": np.array([1, 1], dtype=np.intp)}, "columns"),
    ({"columns": np.array([0, 1], dtype=np.int32)}, "columns"),
    ({"codes": np.zeros((3, 9), dtype=np.int8)}, "codes"),
    ({"codes": np.zeros((3, 10), dtype=np.int64)}, "codes"),
    ({"codes": np.zeros((10, 3), dtype=np.int8).T}, "codes"),
    ({"n_bins": 1}, "n_bins"),
    ({"n_bins": 200}, "n_bins"),
    ({"scheme": 7}, "scheme"),
    ({"scheme": _discretize.MU_SIGMA}, "edges"),
    ({"scheme": _discretize.MU_SIGMA, "edges": np.array([0.5, 1.5, 3.5, 2.5])}, "edges"),
    ({"scheme": _discretize.MU_SIGMA, "edges": np.array([-0.5, 1.5, 2.5, 3.5])}, "edges"),
    ({"scheme": _discretize.MU_SIGMA, "edges": np.array([0.5, 1.5, 2.5])}, "edges"),
    ({"scheme": _discretize.EQUAL_FREQUENCY}, "ranks"),
    ({"scheme": _discretize.EQUAL_FREQUENCY, "ranks": np.array([1, 5, 10], dtype=np.intp)}, "ranks"),
    ({"scheme": _discretize.EQUAL_FREQUENCY, "ranks": np.array([5, 1, 2], dtype=np.intp)}, "ranks"),
    ({"scheme": _discretize.EQUAL_FREQUENCY, "ranks": np.array([1, 2], dtype=np.intp)}, "ranks"),
    ({"n_threads": 0}, "n_threads"),
])
def test_bad_arguments_name_the_argument(changes, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        _call(**changes)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_value_names_the_column(bad):
    X = np.random.default_rng(0).normal(size=(10, 3))
    X[4, 2] = bad
    with pytest.raises(ValueError, match=r"^X: .*column 2"):
        _call(X=X)
    _call(X=X, columns=np.array([0, 1], dtype=np.intp))  # column 2 not chosen: fine


def test_helper_wrappers_check_their_argument():
    with pytest.raises(ValueError, match="^values"):
        _discretize.mean_and_sigma_of(np.zeros(1))
    with pytest.raises(ValueError, match="^values"):
        _discretize.pairwise_sum_of(np.zeros(3, dtype=np.float32))


# ---------------------------------------------------------------------------
# Ctrl-C
# ---------------------------------------------------------------------------

@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process needs POSIX")
def test_ctrl_c_stops_the_kernel():
    """A kernel call of about a minute (equal-frequency codes of 3000 columns of 200,000 values,
    each sorted) stops within seconds of SIGINT with KeyboardInterrupt."""
    code = textwrap.dedent("""
        import signal
        signal.signal(signal.SIGINT, signal.default_int_handler)
        import numpy as np
        from numpy.lib.stride_tricks import as_strided
        from fstools._ext import _discretize
        m, p = 200_000, 3000
        column = np.random.default_rng(0).normal(size=m)
        X = as_strided(column, shape=(m, p), strides=(8, 0))
        codes = np.empty((p, m), dtype=np.int8)
        ranks = (np.arange(1, 10) * m // 10).astype(np.intp)
        print("started", flush=True)
        _discretize.discretize_columns(X, np.arange(p), codes, _discretize.EQUAL_FREQUENCY, n_bins=10,
                                       ranks=ranks, n_threads=2)
        print("finished", flush=True)
    """)
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, **subprocess_options(PYTHONFAULTHANDLER=""))
    try:
        assert process.stdout.readline().strip() == "started", process.stderr.read()[-2000:]
        time.sleep(0.5)
        assert process.poll() is None, process.stderr.read()[-2000:]
        process.send_signal(signal.SIGINT)
        sent = time.monotonic()
        stdout, stderr = process.communicate(timeout=30)
        elapsed = time.monotonic() - sent
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode != 0
    assert "KeyboardInterrupt" in stderr, stderr[-2000:]
    assert "finished" not in stdout
    assert elapsed < 5.0


@pytest.mark.parametrize("dtype", [np.int16, np.int32])
def test_wider_code_types_give_the_same_codes(dtype):
    """codes of int16 / int32 (allowed by the kernel for every scheme) hold the same codes."""
    rng = np.random.default_rng(8)
    X = np.column_stack([rng.normal(size=300), np.round(rng.normal(size=300)), np.full(300, 3.0),
                         on_threshold_column(rng, 300)])
    for method, n_bins in METHODS:
        expected = reference_codes(X, method, n_bins)
        codes = np.full((X.shape[1], X.shape[0]), -1, dtype=dtype)
        scheme = {"mu_sigma": _discretize.MU_SIGMA, "equal_width": _discretize.EQUAL_WIDTH,
                  "equal_frequency": _discretize.EQUAL_FREQUENCY}[method]
        arguments = {"edges": np.array(MU_SIGMA_EDGES)} if method == "mu_sigma" else {"n_bins": n_bins}
        if method == "equal_frequency":
            arguments["ranks"] = np.quantile(np.arange(300.0), np.arange(1, n_bins) / n_bins,
                                             method="inverted_cdf").astype(np.intp)
        _discretize.discretize_columns(X, np.arange(X.shape[1]), codes, scheme, n_threads=2, **arguments)
        np.testing.assert_array_equal(codes, expected)


# ---------------------------------------------------------------------------
# The row-tile path (path="rows": MU_SIGMA on a row-major X, every column at a time, NumPy's
# pairwise tree rebuilt over row tiles) == the column path == the NumPy reference
# ---------------------------------------------------------------------------

#: Sizes around the pairwise blocks and the default work item (TALL_ITEM_ROWS = 8192 rows).
TALL_SIZES = SIZES + [4095, 4096, 4097, 8191, 8192, 8193, 8200, 16383, 16384, 16385, 16393]
#: Rows per work item: the tree then also splits above the items (items of one leaf, of a few).
ITEM_ROWS = [1, 128, 136, 1000, 4096, None]


def rows_codes(X, n_threads=1, item_rows=None, columns=None, dtype=np.int8, path="rows"):
    """MU_SIGMA codes by the kernel on the row-tile path (or ``path``), rows not chosen left at -1."""
    n, p = X.shape
    codes = np.full((p, n), -1, dtype=dtype)
    columns = np.arange(p, dtype=np.intp) if columns is None else np.asarray(columns, dtype=np.intp)
    _discretize.discretize_columns(X, columns, codes, _discretize.MU_SIGMA, edges=np.array(MU_SIGMA_EDGES),
                                   n_threads=n_threads, path=path, item_rows=item_rows)
    return codes


@st.composite
def tall_matrices(draw, max_columns=6):
    """X float64 (n, p), C order: columns of the KINDS, n around the pairwise blocks and tiles."""
    n = draw(st.one_of(st.sampled_from(TALL_SIZES), st.integers(1, 20000)))
    kinds = draw(st.lists(st.sampled_from(KINDS + ("near_constant",)), min_size=1, max_size=max_columns))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    columns = []
    for kind in kinds:
        if kind == "near_constant":  # noise of a few ulps: the bands hold most values
            columns.append(1.0 + rng.integers(-3, 4, n) * 2.0 ** -52)
        else:
            columns.append(make_column(rng, kind, n, columns))
    return np.ascontiguousarray(np.column_stack(columns))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tall_matrices(), st.sampled_from(ITEM_ROWS), st.sampled_from([1, 2]))
def test_row_tiles_equal_column_path_and_reference(X, item_rows, n_threads):
    """The row tiles give the codes of the column path on the same values in Fortran order, and
    of numpy.mean / numpy.std(ddof=1) on the scaled columns, whatever the work items and threads."""
    got = rows_codes(X, n_threads, item_rows)
    np.testing.assert_array_equal(got, rows_codes(np.asfortranarray(X), path="columns"))
    if X.shape[0] <= 8192 or WHOLE_ROW_PAIRWISE:
        np.testing.assert_array_equal(got, reference_codes(X, "mu_sigma"))


def test_row_tiles_code_ordinary_columns_themselves():
    """Columns of ordinary magnitudes are coded by the row tiles (not left to the column path);
    those it cannot sum exactly from the unscaled values are left to it."""
    rng = np.random.default_rng(3)
    X = np.ascontiguousarray(np.column_stack([rng.normal(size=5000), rng.normal(size=5000) * 1e-200,
                                              rng.integers(0, 5, 5000) * 1e8, rng.normal(size=5000) * 1e300,
                                              rng.integers(-9, 10, 5000) * 5e-324]))
    codes = np.full((5, 5000), -1, dtype=np.int8)
    status, _, fallback = _discretize._tall_mu_sigma(X, np.arange(5, dtype=np.intp), codes,
                                                     np.array(MU_SIGMA_EDGES), 1, 1000)
    assert status == 0
    assert list(fallback) == [4]  # subnormal numbers: scaled by ldexp
    np.testing.assert_array_equal(rows_codes(X), reference_codes(X, "mu_sigma"))


@pytest.mark.parametrize("n", [16, 17, 130, 1000, 8200])
def test_row_tiles_on_threshold_columns(n):
    """Values exactly on mu +- t sigma (inside the bands: coded again against the exact
    thresholds), and columns where most values are inside a band (work items coded again)."""
    rng = np.random.default_rng(n)
    X = np.column_stack([on_threshold_column(rng, n) for _ in range(6)]
                        + [1.0 + rng.integers(-2, 3, n) * 2.0 ** -52, fma_sensitive_columns(1, n)[:, 0]
                           if n <= 40 else rng.normal(size=n)])
    X = np.ascontiguousarray(X)
    expected = reference_codes(X, "mu_sigma")
    for item_rows in (128, 1000, None):
        for n_threads in (1, 2):
            np.testing.assert_array_equal(rows_codes(X, n_threads, item_rows), expected)


def test_row_tiles_chosen_columns_windows_and_strides():
    """Chosen columns across several windows of 128 columns, the others untouched (and not read
    for finiteness); strided views (rows of a wider array, every other row)."""
    rng = np.random.default_rng(5)
    wide = rng.normal(size=(3000, 700)) * 10.0 ** rng.integers(-3, 4, 700)
    wide[:, 5] = np.nan     # not chosen: no error
    wide[:, 300] = 7.0      # constant
    X = wide[:, :300]       # row stride 700, column stride 1
    columns = np.array([0, 1, 2, 127, 128, 129, 255, 256, 299], dtype=np.intp)
    expected = reference_codes(np.nan_to_num(X), "mu_sigma")
    for n_threads in (1, 2):
        got = rows_codes(X, n_threads, 1000, columns)
        np.testing.assert_array_equal(got[columns], expected[columns])
        untouched = np.setdiff1d(np.arange(300), columns)
        assert (got[untouched] == -1).all()
    strided = wide[::2, 250:520]
    np.testing.assert_array_equal(rows_codes(strided, 2, 200), reference_codes(strided, "mu_sigma"))
    # every chosen column (all of ordinary magnitudes) coded by the row tiles themselves
    codes = np.full((300, 3000), -1, dtype=np.int8)
    status, _, fallback = _discretize._tall_mu_sigma(X, columns, codes, np.array(MU_SIGMA_EDGES), 2, 1000)
    assert status == 0 and fallback.size == 0


@pytest.mark.parametrize("dtype", [np.int16, np.int32])
def test_row_tiles_wider_code_types(dtype):
    rng = np.random.default_rng(9)
    X = np.ascontiguousarray(np.column_stack([rng.normal(size=3001), np.round(rng.normal(size=3001)),
                                              np.full(3001, 3.0), on_threshold_column(rng, 3001)]))
    np.testing.assert_array_equal(rows_codes(X, 2, 1000, dtype=dtype), reference_codes(X, "mu_sigma"))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 3000), st.integers(1, 300), st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 10 ** 6),
                                                                  st.sampled_from([np.nan, np.inf, -np.inf])),
                                                        min_size=1, max_size=4),
       st.sampled_from([1, 2]))
def test_row_tiles_non_finite_value_names_the_same_column(n, p, bad, n_threads):
    """A non-finite value: the same error as the column path, naming the first chosen column that
    has one."""
    X = np.random.default_rng(n * p).normal(size=(n, p))
    for row, column, value in bad:
        X[row % n, column % p] = value
    messages = []
    for array, path in ((X, "rows"), (np.asfortranarray(X), "columns")):
        with pytest.raises(ValueError, match=r"^X: must contain only finite values; column \d+") as error:
            rows_codes(array, n_threads, 200, path=path)
        messages.append(str(error.value))
    assert messages[0] == messages[1]


def test_auto_path_takes_row_tiles_on_tall_row_major_X():
    """path="auto" (what fstools.core.discretize uses) takes the row tiles on a tall, wide enough
    C-ordered X, and gives the codes of the Fortran-ordered X through information_codes and
    mu_sigma_levels."""
    n = (1 << 25) // (8 * 4)  # 4 columns: the rows' span is TALL_MIN_BYTES
    assert _discretize._prefers_row_tiles(np.empty((n, 4)), np.arange(4), _discretize.MU_SIGMA)
    assert not _discretize._prefers_row_tiles(np.empty((n, 4)), np.arange(2), _discretize.MU_SIGMA)
    assert not _discretize._prefers_row_tiles(np.empty((n, 4), order="F"), np.arange(4), _discretize.MU_SIGMA)
    assert not _discretize._prefers_row_tiles(np.empty((n, 4)), np.arange(4), _discretize.EQUAL_WIDTH)
    assert not _discretize._prefers_row_tiles(np.empty((4000, 10000)), np.arange(10000), _discretize.MU_SIGMA)
    rng = np.random.default_rng(11)
    X = np.ascontiguousarray(np.column_stack([rng.normal(size=n), rng.integers(0, 3, n).astype(float),
                                              rng.normal(size=n) * 1e-310, rng.exponential(size=n)]))
    F = np.asfortranarray(X)
    for n_threads in (1, 2):
        c_codes = information_codes(X, n_threads=n_threads)
        f_codes = information_codes(F, n_threads=n_threads)
        for a, b in zip(c_codes, f_codes):
            np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(mu_sigma_levels(X)[0], mu_sigma_levels(F)[0])
    np.testing.assert_array_equal(mu_sigma_levels(X)[0], rows_codes(X))


def test_row_tiles_reject_other_schemes_and_layouts():
    X = np.random.default_rng(0).normal(size=(50, 3))
    codes = np.empty((3, 50), dtype=np.int8)
    with pytest.raises(ValueError, match="^path:"):
        _discretize.discretize_columns(np.asfortranarray(X), np.arange(3), codes, _discretize.MU_SIGMA,
                                       edges=np.array(MU_SIGMA_EDGES), path="rows")
    with pytest.raises(ValueError, match="^path:"):
        _discretize.discretize_columns(X, np.arange(3), codes, _discretize.EQUAL_WIDTH, n_bins=4, path="rows")
    with pytest.raises(ValueError, match="^path:"):
        _discretize.discretize_columns(X, np.arange(3), codes, _discretize.MU_SIGMA,
                                       edges=np.array(MU_SIGMA_EDGES), path="diagonal")
    with pytest.raises(ValueError, match="^item_rows:"):
        _discretize.discretize_columns(X, np.arange(3), codes, _discretize.MU_SIGMA,
                                       edges=np.array(MU_SIGMA_EDGES), path="rows", item_rows=0)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(16385, 40000), st.lists(st.sampled_from(KINDS), min_size=1, max_size=4),
       st.integers(0, 2 ** 32 - 1), st.sampled_from([1, 2]), st.sampled_from([np.int8, np.int16]))
def test_tall_contiguous_columns_coded_in_place(n, kinds, seed, n_threads, dtype):
    """MU_SIGMA on tall contiguous columns (Fortran order, a DataFrame's values), coded where they
    are (no copy; subnormal columns from a copy): the NumPy reference and the row tiles."""
    rng = np.random.default_rng(seed)
    columns = []
    for kind in kinds:
        columns.append(make_column(rng, kind, n, columns))
    F = np.asfortranarray(np.column_stack(columns))
    got = rows_codes(F, n_threads, dtype=dtype, path="columns")
    if WHOLE_ROW_PAIRWISE:
        np.testing.assert_array_equal(got, reference_codes(F, "mu_sigma"))
    np.testing.assert_array_equal(got, rows_codes(np.ascontiguousarray(F), n_threads, dtype=dtype))


def test_tall_contiguous_columns_non_finite_value_names_the_column():
    F = np.asfortranarray(np.random.default_rng(2).normal(size=(20000, 4)))
    F[19999, 2] = np.inf
    F[5, 3] = np.nan
    with pytest.raises(ValueError, match=r"^X: .*column 2 has"):
        rows_codes(F, path="columns")
    rows_codes(F, columns=[0, 1], path="columns")  # columns 2 and 3 not chosen: fine

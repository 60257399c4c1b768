"""Adversarial arrays for every compiled kernel and the methods built on them.

Every public ``def`` of ``fstools/_ext/_fvg.pyx``, ``_entropy.pyx``, ``_neighbours.pyx``,
``_online.pyx`` and ``_moments.pyx`` (:func:`test_every_public_kernel_function_is_covered` keeps the list complete),
and every registered method that runs on one of them, is called with zero-length arrays, length
1, all values tied, one class / every sample its own class, extreme magnitudes (+-1e308,
subnormals, both at once), huge class counts, out-of-range and negative codes, the wrong dtype,
non-contiguous arrays, ``None`` and mismatched lengths.  Each case must end in a documented result
(checked against the references in ``tests/references/``, brute force, or an invariant such as "the
entropy of a constant is 0") or in a ValueError/TypeError whose message names the argument -- never a crash,
a hang, a MemoryError from an absurd allocation or a silently wrong number.

The tests run in the pytest process on purpose: a segfault kills the run (and shows in CI, where
they also run against a build with Cython bounds checking).  Cases that could allocate absurdly
run under :func:`address_space_limit`, which turns such an allocation into a failing MemoryError
instead of swapping the machine.  They check public behaviour only (results and error messages),
not memory layouts or code types, so they hold when a kernel's internals change.
"""
import contextlib
import math
import os
import re
import sys

import numpy as np
import pytest
from references.cmqfs import fvg_adjacency_ref, modularity_parts_ref, modularity_ref
from references.information import entropy_ref
from references.passive_aggressive import SplitMix64Ref, online_pa_ref, top_set_ref, truncate_ref
from scipy import sparse

from fstools._ext import _build_info
from fstools._ext import _entropy as entropy_kernel
from fstools._ext import _fvg as fvg
from fstools._ext import _moments as moments
from fstools._ext import _neighbours as neighbours
from fstools._ext import _online as online
from fstools.core.arrays import as_class_codes
from fstools.methods.cmqfs import modularity_scores
from fstools.methods.passive_aggressive import OnlineLearner
from fstools.methods.registry import get_method, method_names

INT32_MAX = 2 ** 31 - 1

#: Extreme magnitudes: the largest doubles, subnormals (the smallest is 5e-324) and zero, mixed.
EXTREME_VALUES = np.array([1e308, -1e308, 1.7976931348623157e308, -1.7976931348623157e308, 1e-308, -1e-308,
                           5e-324, -5e-324, 2.2250738585072014e-308, 0.0, 1.0, -1.0])

#: Phrases of errors raised by NumPy or Cython internals rather than by a check of ours.
INTERNAL_PHRASES = ("zero-size array", "negative dimensions", "'list' argument", "index out of bounds",
                    "Out of bounds on buffer access", "must not contain infs", "division by zero",
                    "unsupported operand")


def assert_clear(excinfo, *names):
    """The error message names one of ``names`` and is not a NumPy/Cython internal message."""
    message = str(excinfo.value)
    assert any(name in message for name in names), f"message {message!r} names none of {names}"
    assert not any(phrase in message for phrase in INTERNAL_PHRASES), f"internal error message: {message!r}"


def _virtual_memory_bytes():
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


@contextlib.contextmanager
def address_space_limit(extra_bytes=3 * 2 ** 30):
    """Let the process map at most ``extra_bytes`` more memory while inside (Linux only).

    An absurd allocation (say 16 GB for 2**31 classes of 3 samples) then fails fast with a
    MemoryError, which the test reports, instead of succeeding lazily or swapping.
    """
    if not sys.platform.startswith("linux"):
        yield
        return
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = _virtual_memory_bytes() + extra_bytes
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _public_functions(module):
    return sorted(name for name, value in vars(module).items()
                  if callable(value) and not name.startswith("_") and not isinstance(value, type)
                  and getattr(value, "__module__", None) == module.__name__)


COVERED = {
    "_fvg": {"feature_modularity", "modularity_parts", "modularity_scores", "neighbour_runs",
             "permuted_modularity"},
    "_entropy": {"entropy", "joint_entropy", "mutual_information", "conditional_mutual_information",
                 "pair_information_terms", "relevant_independency_terms", "feature_class_information",
                 "feature_entropies", "discrete_column_codes", "lazy_cmim", "accumulate_pair_terms"},
    "_neighbours": {"class_neighbours", "all_class_neighbours", "relieff_terms", "block_size",
                    "kth_chebyshev_distances", "count_within", "kraskov_counts"},
    "_online": {"online_pass_dense", "online_pass_csr", "random_integers", "random_units", "random_words",
                "kth_largest", "top_weight_mask", "truncate_weights", "keep_top_weights"},
    "_moments": {"column_flags", "column_extremes", "class_counts"},
}


@pytest.mark.parametrize("module", [fvg, entropy_kernel, neighbours, online, moments], ids=lambda m: m.__name__)
def test_every_public_kernel_function_is_covered(module):
    """A new public kernel function must get adversarial cases here (add it to COVERED)."""
    short = module.__name__.rsplit(".", 1)[1]
    missing = set(_public_functions(module)) - COVERED[short]
    assert not missing, f"{short}: no adversarial tests for {sorted(missing)}"


def test_build_mode_is_the_expected_one():
    """CI builds once with FSTOOLS_BOUNDSCHECK=1 and sets FSTOOLS_EXPECT_BUILD_MODE=boundscheck: the kernels
    must then really be bounds checked (``_build_info`` is compiled with the same directives)."""
    build_info = _build_info
    assert build_info.build_mode() in ("release", "boundscheck")
    assert build_info.wraparound_checked() == build_info.bounds_checked()
    expected = os.environ.get("FSTOOLS_EXPECT_BUILD_MODE")
    if expected:
        assert build_info.build_mode() == expected


# ====================================================================== _fvg

def _parts_reference(x, y):
    return modularity_parts_ref(fvg_adjacency_ref(x, y), y)


def _check_fvg_against_reference(x, y):
    """feature_modularity, modularity_parts and neighbour_runs of (x, y) against the brute-force graph."""
    n_classes = int(y.max()) + 1
    x = np.ascontiguousarray(x, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.int32)
    expected_edges, expected_within, expected_degree = _parts_reference(x, y)
    n_edges, within, degree = fvg.modularity_parts(x, y, n_classes)
    assert n_edges == expected_edges
    np.testing.assert_array_equal(within, expected_within)
    np.testing.assert_array_equal(degree, expected_degree)
    expected_q = modularity_ref(x, y)
    q = fvg.feature_modularity(x, y, n_classes)
    if math.isnan(expected_q):
        assert math.isnan(q)
    else:
        assert q == pytest.approx(expected_q, abs=1e-12)
    order, runs = fvg.neighbour_runs(x, y, n_classes)
    adjacency = fvg_adjacency_ref(x, y)
    sizes = np.bincount(y, minlength=n_classes)
    for position in range(len(x)):
        i = order[position]
        found = {int(j) for start, end in runs[position] for j in order[start:end]}
        assert len(found) == sizes[y[i]] - 1
        assert all(adjacency[i, j] for j in found)
    return q


@pytest.mark.parametrize("m", [0, 1])
def test_fvg_no_edges_for_zero_or_one_sample(m):
    """Documented: Q is NaN without edges; M = 0 and empty runs for 0 or 1 sample."""
    x = np.zeros(m)
    y = np.zeros(m, dtype=np.int32)
    assert math.isnan(fvg.feature_modularity(x, y, 1))
    n_edges, within, degree = fvg.modularity_parts(x, y, 1)
    assert n_edges == 0 and within.tolist() == [0] and degree.tolist() == [0]
    order, runs = fvg.neighbour_runs(x, y, 1)
    assert order.shape == (m,) and runs.shape[0] == m
    scores = modularity_scores(np.zeros((m, 3)), y, 1)
    assert scores.shape == (3,) and np.all(np.isnan(scores))


def test_fvg_zero_features():
    assert modularity_scores(np.zeros((5, 0)), np.array([0, 1, 0, 1, 0], dtype=np.int32), 2).shape == (0,)


@pytest.mark.parametrize("pattern", ["alternating", "blocks", "one_minority", "three_classes"])
def test_fvg_all_values_tied_equals_brute_force(pattern):
    """Every value tied: neighbours are the lowest other indices (the tie rule), as in the reference."""
    m = 24
    y = {"alternating": np.arange(m) % 2, "blocks": np.arange(m) // 12,
         "one_minority": (np.arange(m) == 7).astype(int), "three_classes": np.arange(m) % 3}[pattern]
    _check_fvg_against_reference(np.full(m, 3.25), y)
    # documented: a constant column scores NaN (its graph is decided by row order alone)
    assert np.all(np.isnan(modularity_scores(np.full((m, 2), -1e308), y.astype(np.int32), int(y.max()) + 1)))


def test_fvg_one_class_has_modularity_zero():
    """One community holding every edge: Q = l/M - (d/2M)^2 = 1 - 1 = 0."""
    x = np.random.default_rng(0).normal(size=40)
    assert _check_fvg_against_reference(x, np.zeros(40, dtype=np.int32)) == 0.0


def test_fvg_every_sample_its_own_class_has_no_edges():
    x = np.random.default_rng(1).normal(size=30)
    assert math.isnan(_check_fvg_against_reference(x, np.arange(30)))


def test_fvg_huge_class_count_every_sample_its_own_class():
    """100,000 classes among 100,000 samples: no edges (Q NaN), in linear memory."""
    m = 100_000
    x = np.random.default_rng(2).normal(size=m)
    y = np.arange(m, dtype=np.int32)
    with address_space_limit():
        assert math.isnan(fvg.feature_modularity(x, y, m))
        n_edges, within, degree = fvg.modularity_parts(x, y, m)
        scores = modularity_scores(np.column_stack([x, -x]), y, m)
    assert n_edges == 0 and not within.any() and not degree.any()
    assert np.all(np.isnan(scores))


def test_fvg_permuted_huge_class_count_and_few_samples():
    """The permutation kernel: 100,000 one-sample classes in linear memory (no edges: NaN), and
    0 or 1 sample, zero features or zero permutations (shapes as documented)."""
    m = 100_000
    x = np.random.default_rng(3).normal(size=(m, 2))
    permutations = np.stack([np.random.default_rng(b).permutation(m) for b in range(2)]).astype(np.int32)
    with address_space_limit():
        null = fvg.permuted_modularity(x, np.arange(m, dtype=np.int32), m, permutations)
    assert null.shape == (2, 2) and np.all(np.isnan(null))
    for size in (0, 1):
        identity = np.arange(size, dtype=np.int32)[None, :]
        assert np.all(np.isnan(fvg.permuted_modularity(np.zeros((size, 3)), np.zeros(size, dtype=np.int32), 1,
                                                       identity)))
    assert fvg.permuted_modularity(np.zeros((4, 0)), np.zeros(4, dtype=np.int32), 1,
                                   np.zeros((2, 4), dtype=np.int32) + np.arange(4, dtype=np.int32)).shape == (2, 0)


@pytest.mark.parametrize("seed", range(3))
def test_fvg_permuted_extreme_magnitudes_equal_brute_force(seed):
    """+-1e308 (inf distances), subnormals, zeros and ties: every permuted Q as the brute-force graph."""
    rng = np.random.default_rng(seed)
    X = rng.choice(EXTREME_VALUES, size=(26, 3))
    y = rng.integers(0, 3, size=26).astype(np.int32)
    y[:3] = [0, 1, 2]
    permutations = np.stack([rng.permutation(26) for _ in range(4)]).astype(np.int32)
    null = fvg.permuted_modularity(X, y, 3, permutations)
    for b, permutation in enumerate(permutations):
        for f in range(3):
            expected = modularity_ref(X[:, f], y[permutation])
            if math.isnan(expected):
                assert math.isnan(null[b, f])
            else:
                assert null[b, f] == pytest.approx(expected, abs=1e-12)


def test_fvg_permuted_bad_inputs_name_the_argument():
    X = np.zeros((4, 2))
    y = np.array([0, 1, 0, 1], dtype=np.int32)
    with pytest.raises(ValueError, match="permutations: row 0 is not a permutation"):
        fvg.permuted_modularity(X, y, 2, np.array([[0, 1, 2, -1]], dtype=np.int32))
    with pytest.raises(ValueError, match="permutations"):
        fvg.permuted_modularity(X, y, 2, np.zeros((1, 3), dtype=np.int32))
    with pytest.raises(ValueError, match="y"):
        fvg.permuted_modularity(X, y[:3], 2, np.zeros((1, 4), dtype=np.int32))
    with pytest.raises(ValueError, match="y"):
        fvg.permuted_modularity(X, y * 5, 2, np.arange(4, dtype=np.int32)[None, :])
    with pytest.raises(ValueError, match="n_classes"):
        fvg.permuted_modularity(X, y, 0, np.arange(4, dtype=np.int32)[None, :])


def test_fvg_distances_equal_after_rounding_follow_the_tie_rule():
    """|2**54 - 1| == |2**54 - 0| in doubles: the tie goes to the lower index, as in the reference."""
    _check_fvg_against_reference(np.array([2.0 ** 54, 1.0, 0.0]), np.array([0, 0, 1]))


@pytest.mark.parametrize("seed", range(4))
def test_fvg_extreme_magnitudes_equal_brute_force(seed):
    """+-1e308 (differences overflow to inf), subnormals and zeros, mixed, with ties."""
    rng = np.random.default_rng(seed)
    x = rng.choice(EXTREME_VALUES, size=26)
    y = rng.integers(0, 3, size=26)
    y[:3] = [0, 1, 2]
    _check_fvg_against_reference(x, y)


@pytest.mark.parametrize("scale", [2.0 ** 1000, 2.0 ** -1070, -(2.0 ** 1015)])
def test_fvg_power_of_two_scaling_keeps_the_graph(scale):
    """Small integers times 2**1000 (near the largest doubles) or 2**-1070 (subnormal) are exact:
    the graph, and so Q, is that of the integers."""
    rng = np.random.default_rng(5)
    x = rng.integers(0, 8, size=60).astype(float)
    y = rng.integers(0, 3, size=60).astype(np.int32)
    expected = fvg.modularity_parts(x, y, 3)
    scaled = fvg.modularity_parts(x * scale, y, 3)
    assert scaled[0] == expected[0]
    np.testing.assert_array_equal(scaled[1], expected[1])
    np.testing.assert_array_equal(scaled[2], expected[2])
    np.testing.assert_array_equal(modularity_scores(np.column_stack([x * scale, x]), y, 3),
                                  np.repeat(modularity_scores(x[:, None], y, 3), 2))


@pytest.mark.parametrize("function", ["feature_modularity", "modularity_parts", "neighbour_runs"])
def test_fvg_class_count_near_int32_max_is_refused_or_computed(function):
    x = np.array([0.0, 1.0, 2.0, 3.0])
    y = np.array([0, 1, 0, 1], dtype=np.int32)
    with address_space_limit():
        try:
            result = getattr(fvg, function)(x, y, INT32_MAX)
        except ValueError as error:
            assert "n_classes" in str(error)
            return
    if function == "feature_modularity":
        assert result == pytest.approx(modularity_ref(x, y), abs=1e-12)


@pytest.mark.parametrize("codes", [[0, -1, 1, 0], [0, 2, 1, 0], [0, INT32_MAX, 1, 0], [-(2 ** 31), 0, 1, 1]],
                         ids=["negative", "out_of_range", "int32_max", "int32_min"])
@pytest.mark.parametrize("function", ["feature_modularity", "modularity_parts"])
def test_fvg_bad_class_codes(function, codes):
    with pytest.raises(ValueError) as excinfo:
        getattr(fvg, function)(np.arange(4.0), np.array(codes, dtype=np.int32), 2)
    assert_clear(excinfo, "y")
    with pytest.raises(ValueError) as excinfo:
        modularity_scores(np.ones((4, 2)), np.array(codes, dtype=np.int32), 2)
    assert_clear(excinfo, "y")


@pytest.mark.parametrize("codes", [
    pytest.param([0, -1, 1, 0], id="negative"),
    pytest.param([0, 2, 1, 0], id="out_of_range")])
def test_fvg_neighbour_runs_bad_class_codes(codes):
    with pytest.raises(ValueError) as excinfo:
        fvg.neighbour_runs(np.arange(4.0), np.array(codes, dtype=np.int32), 2)
    assert_clear(excinfo, "y")


@pytest.mark.parametrize("function", ["feature_modularity", "modularity_parts", "neighbour_runs"])
def test_fvg_wrong_arguments(function):
    kernel = getattr(fvg, function)
    y = np.array([0, 1, 1], dtype=np.int32)
    with pytest.raises(ValueError) as excinfo:  # mismatched lengths
        kernel(np.arange(4.0), y, 2)
    assert_clear(excinfo, "y")
    with pytest.raises(ValueError) as excinfo:
        kernel(np.arange(3.0), y, 0)
    assert_clear(excinfo, "n_classes")
    for x, codes in [(np.arange(3, dtype=np.float32), y), (np.arange(3.0), y.astype(np.int64)),
                     (np.arange(6.0)[::2], y), (np.arange(3.0), np.repeat(y, 2)[::2]),
                     ([0.0, 1.0, 2.0], y), (np.arange(3.0), "abc")]:
        # the wrong dtype, strided views, lists: refused, or (if a kernel accepts them) the right answer
        try:
            result = kernel(x, codes, 2)
        except (ValueError, TypeError):
            continue
        expected = getattr(fvg, function)(np.ascontiguousarray(x, dtype=np.float64),
                                          np.ascontiguousarray(codes, dtype=np.int32), 2)
        np.testing.assert_equal(result, expected)


# ====================================================================== _entropy

ENTROPY_FUNCTIONS = {
    "entropy": 1, "joint_entropy": 2, "mutual_information": 2, "conditional_mutual_information": 3,
}


def _call_scalar(name, variables, levels):
    arguments = []
    for codes, n_levels in zip(variables, levels):
        arguments += [codes, n_levels]
    return getattr(entropy_kernel, name)(*arguments)


def _scalar_reference(name, variables):
    if name == "entropy":
        return entropy_ref(variables[0])
    if name == "joint_entropy":
        return entropy_ref(variables[0], variables[1])
    if name == "mutual_information":
        x, y = variables
        return entropy_ref(x) + entropy_ref(y) - entropy_ref(x, y)
    x, y, z = variables
    return entropy_ref(x, z) + entropy_ref(y, z) - entropy_ref(x, y, z) - entropy_ref(z)


@pytest.mark.parametrize("name", list(ENTROPY_FUNCTIONS))
def test_entropy_empty_is_refused(name):
    empty = np.zeros(0, dtype=np.int32)
    with pytest.raises(ValueError) as excinfo:
        _call_scalar(name, [empty] * ENTROPY_FUNCTIONS[name], [1] * ENTROPY_FUNCTIONS[name])
    assert_clear(excinfo, "empty")


@pytest.mark.parametrize("name", list(ENTROPY_FUNCTIONS))
@pytest.mark.parametrize("m", [1, 2, 50])
def test_entropy_of_constants_is_zero(name, m):
    """One sample, or every code tied: every entropy and information is exactly 0."""
    codes = np.full(m, 2, dtype=np.int32)
    assert _call_scalar(name, [codes] * ENTROPY_FUNCTIONS[name], [3] * ENTROPY_FUNCTIONS[name]) == 0.0


def test_entropy_every_sample_its_own_level_at_100000():
    """100,000 distinct codes: H = log m; I(X;C) = H(X) for a class per sample."""
    m = 100_000
    codes = np.arange(m, dtype=np.int32)
    with address_space_limit():
        assert entropy_kernel.entropy(codes, m) == pytest.approx(math.log(m), rel=1e-14)
        levels9 = (np.arange(m) % 9).astype(np.int32)
        assert entropy_kernel.mutual_information(levels9, 9, codes, m) == pytest.approx(entropy_ref(levels9),
                                                                                        rel=1e-12)
        out = np.empty(2)
        entropy_kernel.feature_class_information(np.ascontiguousarray(np.vstack([levels9, levels9 % 3])),
                                                 np.array([9, 3], dtype=np.int32), codes, m, out)
    np.testing.assert_allclose(out, [entropy_ref(levels9), entropy_ref(levels9 % 3)], rtol=1e-12)


@pytest.mark.parametrize("name", list(ENTROPY_FUNCTIONS))
def test_entropy_level_counts_near_int32_max_are_refused(name):
    """Tables beyond MAX_TABLE_CELLS are refused up front (no allocation), naming the limit."""
    n = ENTROPY_FUNCTIONS[name]
    codes = np.array([0, 1, 2], dtype=np.int32)
    with address_space_limit():
        with pytest.raises(ValueError) as excinfo:
            _call_scalar(name, [codes] * n, [INT32_MAX] * n)
    assert_clear(excinfo, "cells", "levels")


@pytest.mark.parametrize("name", list(ENTROPY_FUNCTIONS))
@pytest.mark.parametrize("bad", [-1, 3, INT32_MAX, -(2 ** 31)])
def test_entropy_bad_codes_name_the_argument(name, bad):
    n = ENTROPY_FUNCTIONS[name]
    good = np.array([0, 1, 2, 0], dtype=np.int32)
    for position in range(n):
        variables = [good.copy() for _ in range(n)]
        variables[position][2] = bad
        with pytest.raises(ValueError) as excinfo:
            _call_scalar(name, variables, [3] * n)
        assert_clear(excinfo, "xyz"[position])


@pytest.mark.parametrize("name", [n for n, count in ENTROPY_FUNCTIONS.items() if count > 1])
def test_entropy_mismatched_lengths_and_levels(name):
    n = ENTROPY_FUNCTIONS[name]
    variables = [np.zeros(4, dtype=np.int32)] * (n - 1) + [np.zeros(5, dtype=np.int32)]
    with pytest.raises(ValueError) as excinfo:
        _call_scalar(name, variables, [1] * n)
    assert_clear(excinfo, "length")
    with pytest.raises(ValueError) as excinfo:
        _call_scalar(name, [np.zeros(4, dtype=np.int32)] * n, [1] * (n - 1) + [0])
    assert_clear(excinfo, ">= 1")


@pytest.mark.parametrize("name", list(ENTROPY_FUNCTIONS))
def test_entropy_wrong_dtype_and_layout(name):
    """Other integer widths, strided views, floats, lists, None: refused, or the reference's answer."""
    n = ENTROPY_FUNCTIONS[name]
    base = np.array([0, 1, 2, 1, 0, 2, 2], dtype=np.int32)
    expected = _scalar_reference(name, [base] * n)
    for variant in [base.astype(np.int8), base.astype(np.int16), base.astype(np.int64), base.astype(np.uint32),
                    np.repeat(base, 2)[::2], base.astype(np.float64), list(base)]:
        try:
            result = _call_scalar(name, [variant] * n, [3] * n)
        except (ValueError, TypeError):
            continue
        assert result == pytest.approx(expected, abs=1e-12)
    with pytest.raises((ValueError, TypeError)):
        _call_scalar(name, [None] * n, [3] * n)


def _feature_codes(m=12, n_features=3, seed=0):
    rng = np.random.default_rng(seed)
    levels = np.array([2, 3, 4][:n_features], dtype=np.int32)
    codes = np.ascontiguousarray(np.vstack([rng.integers(0, level, m) for level in levels]).astype(np.int32))
    y = rng.integers(0, 2, m).astype(np.int32)
    return codes, levels, y


def _feature_kernel_calls(codes, levels, y, n_classes, n_threads=1, selected=0, candidates=None, active=None):
    """The five many-feature kernels as (name, call) with fresh outputs."""
    n_features = codes.shape[0]
    candidates = np.arange(n_features, dtype=np.intp) if candidates is None else candidates
    active = np.ones(n_features, dtype=np.uint8) if active is None else active
    return {
        "accumulate_pair_terms": lambda: entropy_kernel.accumulate_pair_terms(
            codes, levels, y, n_classes, selected, active, np.zeros(n_features), 1, 1.0, False, n_threads),
        "feature_entropies": lambda: entropy_kernel.feature_entropies(codes, levels, np.empty(n_features),
                                                                      n_threads),
        "feature_class_information": lambda: entropy_kernel.feature_class_information(
            codes, levels, y, n_classes, np.empty(n_features), n_threads),
        "pair_information_terms": lambda: entropy_kernel.pair_information_terms(
            codes, levels, y, n_classes, selected, candidates, np.empty((len(candidates), 4)), n_threads),
        "relevant_independency_terms": lambda: entropy_kernel.relevant_independency_terms(
            codes, levels, y, n_classes, selected, candidates, np.empty(len(candidates)), n_threads),
    }


FEATURE_KERNELS = ["feature_entropies", "feature_class_information", "pair_information_terms",
                   "relevant_independency_terms", "accumulate_pair_terms"]


@pytest.mark.parametrize("name", FEATURE_KERNELS)
def test_entropy_feature_kernels_zero_samples_refused(name):
    codes = np.zeros((2, 0), dtype=np.int32)
    call = _feature_kernel_calls(codes, np.ones(2, dtype=np.int32), np.zeros(0, dtype=np.int32), 1)[name]
    with pytest.raises(ValueError) as excinfo:
        call()
    assert_clear(excinfo, "empty", "no samples")


def test_entropy_feature_kernels_zero_features():
    """No features: nothing to compute, an empty result; the pair kernels have no valid ``selected``."""
    codes = np.zeros((0, 5), dtype=np.int32)
    calls = _feature_kernel_calls(codes, np.zeros(0, dtype=np.int32), np.zeros(5, dtype=np.int32), 1)
    calls["feature_entropies"]()
    calls["feature_class_information"]()
    for name in ("pair_information_terms", "relevant_independency_terms", "accumulate_pair_terms"):
        with pytest.raises(ValueError) as excinfo:
            calls[name]()
        assert_clear(excinfo, "selected")


@pytest.mark.parametrize("m", [1, 40])
def test_entropy_feature_kernels_tied_codes_are_zero(m):
    """Every feature constant (and one class): all four kernels give exactly 0."""
    codes = np.zeros((3, m), dtype=np.int32)
    levels = np.array([1, 2, 5], dtype=np.int32)
    y = np.zeros(m, dtype=np.int32)
    out = np.full(3, np.nan)
    entropy_kernel.feature_entropies(codes, levels, out)
    assert out.tolist() == [0.0] * 3
    entropy_kernel.feature_class_information(codes, levels, y, 1, out)
    assert out.tolist() == [0.0] * 3
    pair = np.full((3, 4), np.nan)
    entropy_kernel.pair_information_terms(codes, levels, y, 1, 1, np.arange(3, dtype=np.intp), pair)
    assert pair.tolist() == [[0.0] * 4] * 3


def test_entropy_feature_kernels_each_sample_its_own_class():
    """I(X_j; C) = H(X_j) and I(X_c; C | X_s) = H(X_c | X_s) when every sample is its own class."""
    codes, levels, _ = _feature_codes(m=30)
    y = np.arange(30, dtype=np.int32)
    out = np.empty(3)
    entropy_kernel.feature_class_information(codes, levels, y, 30, out)
    np.testing.assert_allclose(out, [entropy_ref(row) for row in codes], rtol=1e-12)
    pair = np.empty((3, 4))
    entropy_kernel.pair_information_terms(codes, levels, y, 30, 0, np.arange(3, dtype=np.intp), pair)
    for c in range(3):
        np.testing.assert_allclose(pair[c, 2], entropy_ref(codes[c], codes[0]) - entropy_ref(codes[0]),
                                   atol=1e-12)


@pytest.mark.parametrize("name", FEATURE_KERNELS)
def test_entropy_feature_kernels_bad_arguments(name):
    codes, levels, y = _feature_codes()
    cases = {
        "levels": dict(levels=np.array([2, 0, 4], dtype=np.int32)),
        "n_threads": dict(n_threads=0),
    }
    if name != "feature_entropies":
        cases["y"] = dict(y=np.array([0] * 11 + [5], dtype=np.int32))
        cases["n_classes"] = dict(n_classes=INT32_MAX)  # table beyond the limit
    if name in ("pair_information_terms", "relevant_independency_terms"):
        cases["selected"] = dict(selected=3)
        cases["candidates"] = dict(candidates=np.array([0, -1], dtype=np.intp))
    if name == "accumulate_pair_terms":
        cases["selected"] = dict(selected=3)
        cases["active"] = dict(active=np.ones(2, dtype=np.uint8))
    for argument, change in cases.items():
        settings = dict(codes=codes, levels=levels, y=y, n_classes=2)
        settings.update(change)
        with address_space_limit():
            with pytest.raises(ValueError) as excinfo:
                _feature_kernel_calls(**settings)[name]()
        assert_clear(excinfo, argument if argument != "n_classes" else "cells")
    bad_codes = codes.copy()
    bad_codes[2, 5] = -7
    with pytest.raises(ValueError) as excinfo:
        _feature_kernel_calls(bad_codes, levels, y, 2)[name]()
    assert_clear(excinfo, "codes[2]")


@pytest.mark.parametrize("name", FEATURE_KERNELS)
def test_entropy_feature_kernels_wrong_layout(name):
    codes, levels, y = _feature_codes()
    for variant in [np.asfortranarray(codes), codes.astype(np.int64), codes[:, ::-1], codes.astype(np.float64)]:
        try:
            _feature_kernel_calls(variant, levels, y, 2)[name]()
        except (ValueError, TypeError):
            continue
        pytest.fail(f"{name} accepted codes of dtype {variant.dtype}, strides {variant.strides}")  # pragma: no cover



def _discrete_outputs(n, m):
    return np.zeros((n, m), dtype=np.int8), np.zeros(n, dtype=np.int32), np.zeros(n, dtype=np.int8)


@pytest.mark.parametrize("case", ["not_2d", "dtype", "max_levels", "no_rows", "codes_shape", "codes_dtype",
                                  "status_read_only"])
def test_discrete_column_codes_bad_input_names_the_argument(case):
    X = np.zeros((4, 3))
    codes, levels, status = _discrete_outputs(3, 4)
    arguments = {"X": X, "max_levels": 32, "codes": codes, "levels": levels, "status": status}
    names = {"not_2d": ("X",), "dtype": ("X",), "max_levels": ("max_levels",), "no_rows": ("X",),
             "codes_shape": ("codes",), "codes_dtype": ("codes",), "status_read_only": ("status",)}[case]
    if case == "not_2d":
        arguments["X"] = np.zeros(4)
    elif case == "dtype":
        arguments["X"] = np.zeros((4, 3), dtype=np.complex128)
    elif case == "max_levels":
        arguments["max_levels"] = 128
    elif case == "no_rows":
        arguments["X"] = np.zeros((0, 3))
    elif case == "codes_shape":
        arguments["codes"] = np.zeros((3, 5), dtype=np.int8)
    elif case == "codes_dtype":
        arguments["codes"] = np.zeros((3, 4), dtype=np.int16)
    else:
        status.flags.writeable = False
    with pytest.raises((TypeError, ValueError)) as excinfo:
        entropy_kernel.discrete_column_codes(**arguments)
    assert_clear(excinfo, *names)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.float32, np.float64])
def test_discrete_column_codes_extremes_of_each_dtype(dtype):
    """The extreme values of every dtype, one row, constant columns, NaN and infinity."""
    if np.dtype(dtype).kind == "f":
        info = np.finfo(dtype)
        columns = [[info.min, info.max, 0.0], [info.tiny, -info.tiny, 0.0], [np.nan, 0.0, 1.0],
                   [np.inf, 0.0, 1.0], [-0.0, 0.0, -0.0], [0.5, 0.5, 0.5]]
    else:
        info = np.iinfo(dtype)
        columns = [[info.min, info.max, 0], [info.min, info.min, info.min], [info.max, 0, info.max],
                   [0, 1, 0], [int(info.min) // 2, int(info.max) // 2, 0], [3, 3, 3]]
    X = np.array(columns, dtype=dtype).T.copy()
    for rows in (X, X[:1]):
        codes, levels, status = _discrete_outputs(X.shape[1], rows.shape[0])
        with np.errstate(invalid="ignore", over="ignore"):
            entropy_kernel.discrete_column_codes(rows, 32, codes, levels, status)
        for j in range(rows.shape[1]):
            column = rows[:, j].astype(np.float64)
            if not np.isfinite(column).all():
                assert status[j] == entropy_kernel.COLUMN_NON_FINITE
            elif status[j] != entropy_kernel.COLUMN_UNDECIDED:
                is_integer = bool(np.all(column == np.round(column)))
                assert status[j] == (entropy_kernel.COLUMN_DISCRETE if is_integer
                                     else entropy_kernel.COLUMN_CONTINUOUS)
                if is_integer and dtype != np.int64:
                    values, inverse = np.unique(rows[:, j], return_inverse=True)
                    np.testing.assert_array_equal(codes[j], inverse)
                    assert levels[j] == values.size


def test_discrete_column_codes_more_levels_than_allowed_is_continuous():
    X = np.column_stack([np.arange(40) % 33, np.arange(40) % 32, (np.arange(40) % 33) * 1000]).astype(float)
    codes, levels, status = _discrete_outputs(3, 40)
    entropy_kernel.discrete_column_codes(X, 32, codes, levels, status)
    assert list(status) == [entropy_kernel.COLUMN_CONTINUOUS, entropy_kernel.COLUMN_DISCRETE,
                            entropy_kernel.COLUMN_CONTINUOUS]
    entropy_kernel.discrete_column_codes(X, 1, codes, levels, status)
    assert (status == entropy_kernel.COLUMN_CONTINUOUS).all()


def _lazy_arguments(n=3, m=6, k=2):
    codes = np.ascontiguousarray(np.arange(n * m).reshape(n, m) % 2, dtype=np.int8)
    return {"codes": codes, "levels": np.full(n, 2, dtype=np.int32), "y": np.arange(m, dtype=np.int32) % 2,
            "n_classes": 2, "relevance": np.linspace(0.1, 0.3, n), "k": k,
            "ranking": np.empty(k, dtype=np.intp), "scores": np.empty(k), "tolerance": 1e-12}


@pytest.mark.parametrize("case, name", [("k0", "k"), ("k_big", "k"), ("ranking", "ranking"),
                                        ("relevance", "relevance"), ("y", "y"), ("levels", "levels"),
                                        ("codes", "codes"), ("tolerance", "tolerance"), ("class", "y")])
def test_lazy_cmim_bad_input_names_the_argument(case, name):
    arguments = _lazy_arguments()
    if case == "k0":
        arguments.update(k=0, ranking=np.empty(0, dtype=np.intp), scores=np.empty(0))
    elif case == "k_big":
        arguments.update(k=4, ranking=np.empty(4, dtype=np.intp), scores=np.empty(4))
    elif case == "ranking":
        arguments["ranking"] = np.empty(2, dtype=np.float64)
    elif case == "relevance":
        arguments["relevance"] = np.zeros(5)
    elif case == "y":
        arguments["y"] = np.zeros(5, dtype=np.int32)
    elif case == "levels":
        arguments["levels"] = np.zeros(3, dtype=np.int32)
    elif case == "codes":
        arguments["codes"] = arguments["codes"].astype(np.float64)
    elif case == "tolerance":
        arguments["tolerance"] = float("nan")
    else:
        arguments["y"] = np.full(6, 7, dtype=np.int32)
    with pytest.raises((TypeError, ValueError)) as excinfo:
        entropy_kernel.lazy_cmim(**arguments)
    assert_clear(excinfo, name)


@pytest.mark.parametrize("n, m", [(1, 1), (1, 5), (4, 1), (5, 2)])
def test_lazy_cmim_tiny_problems_equal_eager(n, m):
    from fstools.methods.information import greedy_information_selection
    rng = np.random.default_rng(n * 10 + m)
    codes = np.ascontiguousarray(rng.integers(0, 2, (n, m)), dtype=np.int8)
    levels = np.full(n, 2, dtype=np.int32)
    y = np.arange(m, dtype=np.int32) % 2
    eager = greedy_information_selection(codes, levels, y, "cmim", k=n, lazy=False)
    lazy = greedy_information_selection(codes, levels, y, "cmim", k=n, lazy=True)
    np.testing.assert_array_equal(lazy[0], eager[0])
    assert lazy[1]["J"].tobytes() == eager[1]["J"].tobytes()


# ====================================================================== _neighbours

def _neighbours_reference(X, labels, n_classes, rows, k, metric):
    """Brute force: the k smallest (distance, index) of every class, the distance summed in column order."""
    n_samples = X.shape[0]
    index = np.full((len(rows), n_classes, k), -1, dtype=np.intp)
    distance = np.full((len(rows), n_classes, k), np.nan)
    count = np.zeros((len(rows), n_classes), dtype=np.intp)
    for q, i in enumerate(rows):
        for c in range(n_classes):
            found = []
            for j in range(n_samples):
                if j == i or labels[j] != c:
                    continue
                total = 0.0
                for f in range(X.shape[1]):
                    difference = float(X[i, f]) - float(X[j, f])
                    total += difference * difference if metric == neighbours.METRIC_SQEUCLIDEAN else abs(difference)
                found.append((total, j))
            found.sort()
            count[q, c] = min(k, len(found))
            for slot, (d, j) in enumerate(found[:k]):
                index[q, c, slot] = j
                distance[q, c, slot] = d
    return index, distance, count


def _run_neighbours(X, labels, n_classes, k, metric, rows=None, n_threads=1):
    """(index, distance, count) of all_class_neighbours, or of class_neighbours when ``rows`` is given."""
    n_queries = X.shape[0] if rows is None else len(rows)
    index = np.full((n_queries, n_classes, k), -1, dtype=np.intp)
    distance = np.full((n_queries, n_classes, k), np.nan)
    count = np.full((n_queries, n_classes), -1, dtype=np.intp)
    features = np.ascontiguousarray(np.asarray(X, dtype=np.float64).T)
    labels = np.ascontiguousarray(labels, dtype=np.int32)
    if rows is None:
        neighbours.all_class_neighbours(features, labels, n_classes, k, metric, index, distance, count, n_threads)
    else:
        neighbours.class_neighbours(features, labels, n_classes, np.asarray(rows, dtype=np.intp), k, metric,
                                    index, distance, count, n_threads)
    return index, distance, count


def _check_neighbours(X, labels, n_classes, k):
    for metric in (neighbours.METRIC_SQEUCLIDEAN, neighbours.METRIC_MANHATTAN):
        expected = _neighbours_reference(X, labels, n_classes, range(X.shape[0]), k, metric)
        for rows in (None, np.arange(X.shape[0])):
            for n_threads in (1, 2):
                index, distance, count = _run_neighbours(X, labels, n_classes, k, metric, rows, n_threads)
                np.testing.assert_array_equal(count, expected[2])
                used = np.arange(k) < count[:, :, None]
                np.testing.assert_array_equal(index[used], expected[0][used])
                np.testing.assert_array_equal(distance[used], expected[1][used])


def test_neighbours_zero_samples_and_zero_queries():
    """No samples (or no queries): nothing to do, outputs untouched; samples but no features: refused."""
    index, distance, count = _run_neighbours(np.zeros((0, 2)), np.zeros(0), 1, 3, neighbours.METRIC_MANHATTAN)
    assert index.shape == (0, 1, 3)
    _run_neighbours(np.zeros((4, 2)), np.zeros(4), 1, 3, neighbours.METRIC_MANHATTAN, rows=[])
    for rows in (None, [0]):
        with pytest.raises(ValueError) as excinfo:
            _run_neighbours(np.zeros((3, 0)), np.zeros(3), 1, 1, neighbours.METRIC_MANHATTAN, rows=rows)
        assert_clear(excinfo, "features")


def test_neighbours_one_sample_has_none():
    for rows in (None, [0]):
        _, _, count = _run_neighbours(np.ones((1, 3)), [0], 2, 4, neighbours.METRIC_SQEUCLIDEAN, rows=rows)
        assert count.tolist() == [[0, 0]]


@pytest.mark.parametrize("case", ["tied", "extreme", "one_class", "own_class", "subnormal"])
def test_neighbours_adversarial_values_equal_brute_force(case):
    rng = np.random.default_rng(3)
    m = 40
    X = {"tied": np.full((m, 2), 7.5), "extreme": rng.choice(EXTREME_VALUES, size=(m, 2)),
         "one_class": rng.normal(size=(m, 2)), "own_class": rng.normal(size=(m, 2)),
         "subnormal": rng.integers(0, 4, size=(m, 2)) * 5e-324}[case]
    labels = {"one_class": np.zeros(m), "own_class": np.arange(m)}.get(case, rng.integers(0, 3, m))
    n_classes = int(labels.max()) + 1
    _check_neighbours(X, labels.astype(np.int32), n_classes, k=3)


def test_neighbours_many_classes():
    """1,000 classes of one sample: one neighbour in every other class, none in its own."""
    m = 1000
    X = np.random.default_rng(4).normal(size=(m, 1))
    with address_space_limit():
        index, distance, count = _run_neighbours(X, np.arange(m), m, 1, neighbours.METRIC_MANHATTAN,
                                                 n_threads=2)
    assert (count == 1 - np.eye(m, dtype=np.intp)).all()
    np.testing.assert_array_equal(index[:, :, 0][count == 1], np.tile(np.arange(m), (m, 1))[count == 1])


@pytest.mark.parametrize("function", ["class_neighbours", "all_class_neighbours"])
def test_neighbours_bad_arguments(function):
    X = np.random.default_rng(5).normal(size=(6, 2))
    labels = np.array([0, 1, 0, 1, 0, 1])
    rows = None if function == "all_class_neighbours" else np.arange(6)
    manhattan = neighbours.METRIC_MANHATTAN
    for bad_labels in ([0, 1, 0, -1, 0, 1], [0, 1, 0, 2, 0, 1], [0, 1, 0, INT32_MAX, 0, 1]):
        with pytest.raises(ValueError) as excinfo:
            _run_neighbours(X, np.array(bad_labels), 2, 2, manhattan, rows=rows)
        assert_clear(excinfo, "labels")
    with pytest.raises(ValueError) as excinfo:
        _run_neighbours(X, labels[:5], 2, 2, manhattan, rows=rows)
    assert_clear(excinfo, "labels")
    for n_classes, k, metric, n_threads, name in [(0, 2, manhattan, 1, "n_classes"), (2, 0, manhattan, 1, "k"),
                                                  (2, 2, 9, 1, "metric"), (2, 2, manhattan, 0, "n_threads")]:
        with pytest.raises(ValueError) as excinfo:
            _run_neighbours(X, labels, n_classes, k, metric, rows=rows, n_threads=n_threads)
        assert_clear(excinfo, name)
    if rows is not None:
        for bad_rows in ([0, 6], [-1]):
            with pytest.raises(ValueError) as excinfo:
                _run_neighbours(X, labels, 2, 2, manhattan, rows=bad_rows)
            assert_clear(excinfo, "rows")
    # outputs of the wrong shape, dtype or layout, and None
    features = np.ascontiguousarray(X.T)
    y = labels.astype(np.int32)
    good = (np.zeros((6, 2, 2), dtype=np.intp), np.zeros((6, 2, 2)), np.zeros((6, 2), dtype=np.intp))
    bad_outputs = [(np.zeros((6, 2, 3), dtype=np.intp), good[1], good[2]),
                   (good[0], good[1], np.zeros((5, 2), dtype=np.intp)),
                   (good[0].astype(np.int32), good[1], good[2]),
                   (good[0], np.asfortranarray(np.zeros((6, 2, 2))), good[2]),
                   (None, good[1], good[2])]
    for index, distance, count in bad_outputs:
        with pytest.raises((ValueError, TypeError)) as excinfo:
            if rows is None:
                neighbours.all_class_neighbours(features, y, 2, 2, manhattan, index, distance, count)
            else:
                neighbours.class_neighbours(features, y, 2, rows, 2, manhattan, index, distance, count)
        assert_clear(excinfo, "index", "count", "distance", "dtype", "contiguous", "None")
    for bad_features in (X.T, features.astype(np.float32), None):  # X.T is not C-contiguous
        with pytest.raises((ValueError, TypeError)) as excinfo:
            neighbours.all_class_neighbours(bad_features, y, 2, 2, manhattan, *good)
        assert_clear(excinfo, "contiguous", "dtype", "None")


def _relieff_reference(values, labels, rows, index, count, miss_weight):
    n_blocks = -(-len(rows) // neighbours.block_size())
    hit = np.zeros((n_blocks, values.shape[1]))
    miss = np.zeros((n_blocks, values.shape[1]))
    for q, i in enumerate(rows):
        block = q // neighbours.block_size()
        for c in range(count.shape[1]):
            if count[q, c] == 0:
                continue
            mean = np.abs(values[i] - values[index[q, c, :count[q, c]]]).sum(axis=0) / count[q, c]
            if c == labels[i]:
                hit[block] += mean
            else:
                miss[block] += miss_weight[labels[i], c] * mean
    return hit, miss


def _relieff_call(values, labels, n_classes, rows, index, count, miss_weight):
    n_blocks = -(-len(rows) // neighbours.block_size())
    hit = np.full((n_blocks, values.shape[1]), np.nan)
    miss = np.full((n_blocks, values.shape[1]), np.nan)
    neighbours.relieff_terms(values, labels, n_classes, rows, index, count, miss_weight, hit, miss)
    return hit, miss


@pytest.mark.parametrize("case", ["tied", "random", "own_class", "many_queries"])
def test_relieff_terms_equal_reference(case):
    rng = np.random.default_rng(6)
    m = 70 if case == "many_queries" else 12
    values = np.full((m, 3), 0.5) if case == "tied" else rng.random((m, 3))
    labels = (np.arange(m) if case == "own_class" else rng.integers(0, 3, m)).astype(np.int32)
    n_classes = int(labels.max()) + 1
    rows = np.arange(m, dtype=np.intp)
    index, _, count = _run_neighbours(values, labels, n_classes, 2, neighbours.METRIC_MANHATTAN)
    miss_weight = np.ascontiguousarray(rng.random((n_classes, n_classes)))
    hit, miss = _relieff_call(values, labels, n_classes, rows, index, count, miss_weight)
    expected_hit, expected_miss = _relieff_reference(values, labels, rows, index, count, miss_weight)
    np.testing.assert_allclose(hit, expected_hit, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(miss, expected_miss, rtol=1e-12, atol=1e-15)
    if case == "tied":
        assert not hit.any() and not miss.any()


def test_relieff_terms_bad_arguments():
    rng = np.random.default_rng(7)
    values = rng.random((5, 2))
    labels = np.array([0, 1, 0, 1, 0], dtype=np.int32)
    rows = np.arange(5, dtype=np.intp)
    index, _, count = _run_neighbours(values, labels, 2, 2, neighbours.METRIC_MANHATTAN)
    weight = np.ones((2, 2))
    _relieff_call(values, labels, 2, rows[:0], index[:0], count[:0], weight)  # no queries: nothing to do
    bad = {
        "no samples": (values[:0], labels[:0], rows, index, count, weight, "values"),
        "labels": (values, np.array([0, 1, 0, 5, 0], dtype=np.int32), rows, index, count, weight, "labels"),
        "rows": (values, labels, np.array([0, 1, 2, 3, 9], dtype=np.intp), index, count, weight, "rows"),
        "count": (values, labels, rows, index, count + 5, weight, "count"),
        "index": (values, labels, rows, np.full_like(index, 99), count, weight, "index"),
        "negative index": (values, labels, rows, np.full_like(index, -1), count, weight, "index"),
        "miss_weight": (values, labels, rows, index, count, np.ones((3, 3)), "miss_weight"),
        "features": (np.zeros((5, 0)), labels, rows, index, count, weight, "values"),
    }
    for case, (v, y, r, i, c, w, name) in bad.items():
        with pytest.raises(ValueError) as excinfo:
            _relieff_call(v, y, 2, r, i, c, w)
        assert_clear(excinfo, name)
    with pytest.raises(ValueError) as excinfo:
        neighbours.relieff_terms(values, labels, 2, rows, index, count, weight, np.zeros((2, 2)), np.zeros((1, 2)))
    assert_clear(excinfo, "near_hit")
    with pytest.raises((ValueError, TypeError)):
        neighbours.relieff_terms(values, labels, 2, rows, index, count, weight, None, np.zeros((1, 2)))


def test_block_size_is_a_positive_integer():
    assert isinstance(neighbours.block_size(), int) and neighbours.block_size() >= 1


# ====================================================================== _online

def test_random_helpers_edge_cases():
    for function, arguments in [(online.random_words, ()), (online.random_units, ()),
                                (online.random_integers, (5,))]:
        state = np.array([42], dtype=np.uint64)
        assert function(state, *arguments, 0).shape == (0,)
        assert state[0] == 42  # no draw, no advance
        for bad_state in (np.zeros(0, dtype=np.uint64), np.zeros(2, dtype=np.uint64)):
            with pytest.raises(ValueError) as excinfo:
                function(bad_state, *arguments, 3)
            assert_clear(excinfo, "state")
        with pytest.raises((ValueError, TypeError)) as excinfo:
            function(None, *arguments, 3)
        assert_clear(excinfo, "state")
        with pytest.raises(ValueError) as excinfo:
            function(state, *arguments, -3)
        assert_clear(excinfo, "n")
        with pytest.raises((ValueError, TypeError)):
            function(np.array([42], dtype=np.int64), *arguments, 3)
    state = np.array([9], dtype=np.uint64)
    with pytest.raises(ValueError) as excinfo:
        online.random_integers(state, 0, 3)
    assert_clear(excinfo, "bound")
    assert online.random_integers(state, 1, 5).tolist() == [0] * 5
    reference = SplitMix64Ref(9)
    for _ in range(5):
        reference.below(1)
    top = 2 ** 64 - 1
    draws = online.random_integers(state, top, 4).tolist()
    assert draws == [reference.below(top) for _ in range(4)]


@pytest.mark.parametrize("values", [
    np.full(7, 2.5), EXTREME_VALUES, np.array([5e-324, -5e-324, 0.0, -0.0]), np.array([1e308]),
], ids=["tied", "extreme", "subnormal", "one"])
def test_weight_helpers_on_adversarial_values(values):
    d = len(values)
    for k in range(1, d + 1):
        assert online.kth_largest(values, k) == np.sort(values)[::-1][k - 1]
        mask = online.top_weight_mask(values, k)
        assert set(np.flatnonzero(mask)) == top_set_ref(values.tolist(), k)
        kept = values.copy()
        online.keep_top_weights(kept, k)
        assert set(np.flatnonzero(kept != values)) <= set(range(d)) - top_set_ref(values.tolist(), k)
        assert np.all(kept[list(top_set_ref(values.tolist(), k))] == values[list(top_set_ref(values.tolist(), k))])
    for gravity, theta in [(0.0, np.inf), (1e308, np.inf), (5e-324, 1e-308), (np.inf, np.inf)]:
        truncated = values.copy()
        online.truncate_weights(truncated, gravity, theta)
        assert truncated.tolist() == [truncate_ref(v, gravity, theta) for v in values]


def test_weight_helpers_bad_arguments():
    for function in (online.kth_largest, online.top_weight_mask, online.keep_top_weights):
        for values, k in [(np.zeros(0), 1), (np.zeros(3), 0), (np.zeros(3), 4), (np.zeros(3), -1)]:
            with pytest.raises(ValueError) as excinfo:
                function(values, k)
            assert_clear(excinfo, "k:", "M:")
        for values in (None, np.zeros(3, dtype=np.float32), np.zeros(6)[::2]):
            with pytest.raises((ValueError, TypeError)):
                function(values, 1)
    online.truncate_weights(np.zeros(0), 1.0, 1.0)
    for gravity, theta in [(-1.0, 1.0), (1.0, -1.0), (np.nan, 1.0), (1.0, np.nan)]:
        with pytest.raises(ValueError) as excinfo:
            online.truncate_weights(np.ones(3), gravity, theta)
        assert_clear(excinfo, "gravity")
    with pytest.raises((ValueError, TypeError)):
        online.truncate_weights(None, 1.0, 1.0)


ONLINE_VARIANTS = {  # method -> (loss, step, synthesis) of the reference
    "pa": ("hinge", "pa", None), "pa1": ("hinge", "pa1", None), "pa2": ("hinge", "pa2", None),
    "mbpa": ("margin_based", "pa1", None), "onpa": ("hinge", "pa", "extrapolate"),
    "cs": ("cost_sensitive", "ogd", None),
}


def _online_against_reference(method, X, y, form="dense", K=3, eta=0.5, g=0.2):
    loss, step, synthesis = ONLINE_VARIANTS[method]
    state, trace = online_pa_ref(X, y, loss=loss, step=step, C=1.0, gravity=eta * K * g, K=K, topk=2,
                                 synthesis=synthesis, capacity=50, budgets=[1], seed=3)
    learner = OnlineLearner(method, X.shape[1], 2, seed=3, K=K, eta=eta, g=g, memory=50)
    data = X if form == "dense" else sparse.csr_matrix(X)
    try:
        out = learner.learn(data, y, budgets=[1])
    except ValueError as error:
        # Overflow is refused, naming the row, where the reference's ||x||^2, margin, step or weights are not
        # finite; the pass is all or nothing, and the rows before it are the reference's.
        found = re.search(r"X: row (\d+) overflows.*rescale X", str(error))
        assert found, f"unclear {error!r}"
        row = int(found.group(1))
        with np.errstate(all="ignore"):
            squared_norm = sum(float(v) * float(v) for v in X[row])
            assert not np.all(np.isfinite([squared_norm, trace["margins"][row], trace["taus"][row],
                                           *trace["w"][row]]))
        assert learner.rounds == 0 and not learner.weights.any()
        if row == 0:
            return learner
        X, y = X[:row], y[:row]
        trace = {key: values[:row] for key, values in trace.items()}
        learner = OnlineLearner(method, X.shape[1], 2, seed=3, K=K, eta=eta, g=g, memory=50)
        out = learner.learn(X if form == "dense" else sparse.csr_matrix(X), y, budgets=[1])
    np.testing.assert_array_equal(learner.weights, trace["w"][-1] if trace["w"] else np.zeros(X.shape[1]))
    np.testing.assert_array_equal(out["margins"], trace["margins"])
    np.testing.assert_array_equal(out["taus"], trace["taus"])
    return learner


@pytest.mark.parametrize("form", ["dense", "csr"])
@pytest.mark.parametrize("method", list(ONLINE_VARIANTS))
@pytest.mark.parametrize("case", ["one_row", "tied_rows", "extreme", "subnormal", "one_class"])
def test_online_pass_adversarial_rows_equal_reference(case, method, form):
    """The kernel does the reference's arithmetic on adversarial rows (inf/NaN included, if it comes to that)."""
    rng = np.random.default_rng(8)
    n, d = 30, 4
    X = {"one_row": np.array([[1.0, -2.0, 0.0, 3.0]]), "tied_rows": np.tile([[1.0, 0.0, 2.0, 2.0]], (n, 1)),
         "extreme": rng.choice(EXTREME_VALUES, size=(n, d)), "subnormal": rng.integers(-3, 4, (n, d)) * 5e-324,
         "one_class": rng.normal(size=(n, d))}[case]
    y = np.where(np.arange(len(X)) % 3 == 0, -1, 1).astype(np.int32)
    if case == "one_class":
        y[:] = -1
    with np.errstate(all="ignore"):
        _online_against_reference(method, X, y, form)


def _online_state(n_rows, d, capacity=0, width=0):
    counters = np.zeros(online.N_COUNTERS, dtype=np.int64)
    counters[online.COUNTER_POSITIVE] = 1
    counters[online.COUNTER_NEGATIVE] = 1
    return dict(weights=np.zeros(d), counters=counters, random_state=np.array([1], dtype=np.uint64),
                memory_indices=np.zeros((capacity, width), dtype=np.int32),
                memory_values=np.zeros((capacity, width)), memory_nnz=np.zeros(capacity, dtype=np.int32),
                budgets=np.zeros(0, dtype=np.intp), margins=np.zeros(n_rows),
                budget_margins=np.zeros((n_rows, 0)), losses=np.zeros(n_rows), taus=np.zeros(n_rows),
                synthetic=np.zeros(n_rows, dtype=np.int32))


STATE_ORDER = ["weights", "counters", "random_state", "memory_indices", "memory_values", "memory_nnz", "budgets",
               "margins", "budget_margins", "losses", "taus", "synthetic"]
SETTINGS = dict(loss=online.LOSS_HINGE, step=online.STEPS["pa"], truncate=online.TRUNCATIONS["none"],
                synthesis=online.SYNTHESES["none"], C=1.0, gravity=0.0, theta=1.0, period=1)


def _dense_pass(X, y, order=None, state=None, **settings):
    order = np.arange(len(y), dtype=np.intp) if order is None else np.asarray(order, dtype=np.intp)
    state = _online_state(len(order), X.shape[1]) if state is None else state
    online.online_pass_dense(X, y, order, *[state[key] for key in STATE_ORDER], **{**SETTINGS, **settings})
    return state


def _csr_pass(data, indices, indptr, n_features, y, order, state=None):
    state = _online_state(len(order), max(n_features, 1)) if state is None else state
    online.online_pass_csr(data, indices, indptr, n_features, y, np.asarray(order, dtype=np.intp),
                           *[state[key] for key in STATE_ORDER], **SETTINGS)
    return state


def test_online_pass_zero_rows_and_zero_features():
    state = _dense_pass(np.zeros((0, 3)), np.zeros(0, dtype=np.int32))
    assert not state["weights"].any() and state["counters"][online.COUNTER_ROUNDS] == 0
    state = _csr_pass(np.zeros(0), np.zeros(0, dtype=np.int32), np.zeros(1, dtype=np.int32), 3,
                      np.zeros(0, dtype=np.int32), [])
    assert state["counters"][online.COUNTER_ROUNDS] == 0
    # rows with no features: refused (nothing to learn, and no feature to select)
    with pytest.raises(ValueError) as excinfo:
        _dense_pass(np.zeros((3, 0)), np.ones(3, dtype=np.int32), state=_online_state(3, 0))
    assert_clear(excinfo, "n_features")
    with pytest.raises(ValueError) as excinfo:
        _csr_pass(np.zeros(0), np.zeros(0, dtype=np.int32), np.zeros(4, dtype=np.int32), 0,
                  np.ones(3, dtype=np.int32), [0, 1, 2])
    assert_clear(excinfo, "n_features")


def test_online_pass_bad_dense_arguments():
    X = np.ones((3, 2))
    y = np.array([1, -1, 1], dtype=np.int32)
    for bad_y, name in [(np.array([1, 0, 1], dtype=np.int32), "+1 or -1"),
                        (np.array([1, -1], dtype=np.int32), "y"),
                        (np.array([1, INT32_MAX, 1], dtype=np.int32), "+1 or -1")]:
        with pytest.raises(ValueError) as excinfo:
            _dense_pass(X, bad_y)
        assert_clear(excinfo, name)
    for order in ([0, 3], [-1]):
        with pytest.raises(ValueError) as excinfo:
            _dense_pass(X, y, order=order)
        assert_clear(excinfo, "order")
    for bad_X in (np.ones((3, 2), dtype=np.float32), np.ones((2, 3)).T, None):
        with pytest.raises((ValueError, TypeError)) as excinfo:
            _dense_pass(bad_X, y, state=_online_state(3, 2))
        assert_clear(excinfo, "dtype", "contiguous", "None")
    state = _online_state(3, 2)
    state["weights"] = np.zeros(3)
    with pytest.raises(ValueError) as excinfo:
        _dense_pass(X, y, state=state)
    assert_clear(excinfo, "weights")
    for slot, value, name in [(online.COUNTER_MEMORY_FILLED, -1, "counters"),
                              (online.COUNTER_NEGATIVES_OFFERED, -5, "counters"),
                              (online.COUNTER_POSITIVE, 0, "counters")]:
        state = _online_state(3, 2)
        state["counters"][slot] = value
        with pytest.raises(ValueError) as excinfo:
            _dense_pass(X, y, state=state)
        assert_clear(excinfo, name)
    for settings, name in [(dict(C=0.0), "C"), (dict(C=np.nan), "C"), (dict(gravity=-1.0), "gravity"),
                           (dict(theta=np.nan), "theta"), (dict(period=0), "period"), (dict(loss=7), "loss"),
                           (dict(step=9), "step"), (dict(truncate=5), "truncate"), (dict(synthesis=4), "synthesis"),
                           (dict(truncate=online.TRUNCATIONS["topk"], topk=3), "topk"),
                           (dict(synthesis=online.SYNTHESES["extrapolate"], beta=np.inf), "beta"),
                           (dict(synthesis=online.SYNTHESES["extrapolate"], beta=0.0), "beta")]:
        with pytest.raises(ValueError) as excinfo:
            _dense_pass(X, y, **settings)
        assert_clear(excinfo, name)


def test_online_pass_corrupt_memory_state_is_refused():
    X = np.ones((3, 2))
    y = np.array([1, -1, 1], dtype=np.int32)
    for nnz, indices, name in [(3, [0, 1], "memory_nnz"), (-1, [0, 1], "memory_nnz"), (2, [0, 5], "memory_indices"),
                               (2, [1, 0], "memory_indices"), (2, [-3, 0], "memory_indices")]:
        state = _online_state(3, 2, capacity=2, width=2)
        state["counters"][online.COUNTER_MEMORY_FILLED] = 1
        state["counters"][online.COUNTER_NEGATIVES_OFFERED] = 1
        state["memory_nnz"][0] = nnz
        state["memory_indices"][0] = indices
        with pytest.raises(ValueError) as excinfo:
            _dense_pass(X, y, state=state, synthesis=online.SYNTHESES["extrapolate"])
        assert_clear(excinfo, name)


def test_online_pass_huge_beta_is_refused_not_a_hang():
    """N = floor(beta p / n) synthetic negatives per negative: a huge N is refused instead of running for ever."""
    X = np.ones((3, 2))
    y = np.array([1, 1, -1], dtype=np.int32)
    state = _online_state(3, 2, capacity=4, width=2)
    state["counters"][online.COUNTER_MEMORY_FILLED] = 1
    state["counters"][online.COUNTER_NEGATIVES_OFFERED] = 1
    state["memory_nnz"][0] = 2
    state["memory_indices"][0] = [0, 1]
    with pytest.raises(ValueError) as excinfo:
        _dense_pass(X, y, state=state, synthesis=online.SYNTHESES["extrapolate"], beta=1e300)
    assert_clear(excinfo, "beta")


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_online_pass_csr_non_canonical_rows_are_refused(index_dtype):
    """Out-of-range, negative, unsorted or duplicated column indices and decreasing indptr: refused, naming
    the row (they would write outside the weights)."""
    y = np.array([1, -1], dtype=np.int32)
    cases = {
        "index too large": ([0, 1, 99], [0, 2, 3]), "negative index": ([0, 1, -5], [0, 2, 3]),
        "unsorted": ([1, 0, 2], [0, 2, 3]), "duplicate": ([1, 1, 2], [0, 2, 3]),
        "indptr decreasing": ([0, 1, 2], [0, 3, 2]),
    }
    for case, (indices, indptr) in cases.items():
        with pytest.raises(ValueError) as excinfo:
            _csr_pass(np.ones(3), np.array(indices, dtype=index_dtype), np.array(indptr, dtype=index_dtype), 3,
                      y, [0, 1])
        assert_clear(excinfo, "row")
    for indices, indptr in [([0, 1, 2], [-5, 2, 3]), ([0, 1, 2], [0, 2, 7]), ([0, 1], [0, 2, 3])]:
        with pytest.raises(ValueError) as excinfo:
            _csr_pass(np.ones(3), np.array(indices, dtype=index_dtype), np.array(indptr, dtype=index_dtype), 3,
                      y, [0, 1])
        assert_clear(excinfo, "indptr", "indices")
    with pytest.raises(ValueError) as excinfo:
        _csr_pass(np.ones(0), np.zeros(0, dtype=index_dtype), np.zeros(0, dtype=index_dtype), 3, y[:0], [])
    assert_clear(excinfo, "indptr")
    with pytest.raises((ValueError, TypeError)):
        _csr_pass(np.ones(3), np.array([0, 1, 2], dtype=np.int16), np.array([0, 2, 3], dtype=np.int16), 3, y, [0, 1])


# ====================================================================== methods on the kernels

def _uses_kernel(name):
    module = get_method(name).function.__module__
    return module in ("fstools.methods.cmqfs", "fstools.methods.information", "fstools.methods.similarity",
                      "fstools.methods.passive_aggressive") and name != "fisher"


KERNEL_METHODS = [name for name in method_names() if _uses_kernel(name)]
STREAMING = [name for name in KERNEL_METHODS if "streaming" in get_method(name).capabilities]


def _run_method(name, X, y, k=None, **params):
    spec = get_method(name)
    values = {**spec.defaults(), **params}
    return spec.function(np.ascontiguousarray(X, dtype=np.float64), np.asarray(y, dtype=np.int32), k, 1, **values)


def _check_output(output, n_features):
    """A valid result: the ranking is distinct column indices, one score per column."""
    ranking = np.asarray(output.ranking)
    assert ranking.ndim == 1 and len(set(ranking.tolist())) == len(ranking)
    assert np.all((0 <= ranking) & (ranking < n_features))
    assert np.asarray(output.scores).shape == (n_features,)


def _result_or_clear_error(name, X, y, *argument_names, **params):
    """Run a method: a valid output, or a ValueError/TypeError naming one of ``argument_names``."""
    try:
        output = _run_method(name, X, y, **params)
    except (ValueError, TypeError) as error:
        message = str(error)
        assert any(argument in message for argument in argument_names), f"{name}: unclear {message!r}"
        assert not any(phrase in message for phrase in INTERNAL_PHRASES), f"{name}: internal error {message!r}"
        return None
    _check_output(output, X.shape[1])
    return output


@pytest.mark.parametrize("name", KERNEL_METHODS)
def test_method_zero_samples(name):
    _result_or_clear_error(name, np.zeros((0, 3)), np.zeros(0), "X", "y")


@pytest.mark.parametrize("name", KERNEL_METHODS)
def test_method_zero_features(name):
    _result_or_clear_error(name, np.zeros((6, 0)), np.arange(6) % 2, "X", "feature")


@pytest.mark.parametrize("name", KERNEL_METHODS)
@pytest.mark.parametrize("case", ["two_samples", "tied", "one_class", "own_class"])
def test_method_small_and_degenerate_data(name, case):
    rng = np.random.default_rng(9)
    X, y = {
        "two_samples": (np.array([[1.0, 2.0, 3.0], [4.0, 0.0, 3.0]]), np.array([0, 1])),
        "tied": (np.full((20, 3), 2.0), np.arange(20) % 2),
        "one_class": (rng.normal(size=(20, 3)), np.zeros(20)),
        "own_class": (rng.normal(size=(30, 3)), np.arange(30)),
    }[case]
    output = _result_or_clear_error(name, X, y, "y", "X", "response", "class")
    if output is not None and case == "tied" and name in ("mim", "jmi", "cmim", "mifs", "mifs_u", "mrmr"):
        assert np.all(np.asarray(output.scores) == 0.0)  # no information in a constant column


@pytest.mark.parametrize("name", KERNEL_METHODS)
def test_method_huge_class_count(name):
    """5,000 classes among 5,000 samples: a result or a clear error, in bounded memory."""
    m = 5000
    X = np.random.default_rng(10).normal(size=(m, 3))
    with address_space_limit(2 * 2 ** 30):
        _result_or_clear_error(name, X, np.arange(m), "y", "response", "class")


SCALE_INVARIANT = ("cmqfs", "mim", "mifs", "mifs_u", "mrmr", "jmi", "cmim", "relieff")
@pytest.mark.parametrize("case", ["huge", "per_column", "subnormal", "signed_span"])
@pytest.mark.parametrize("name", SCALE_INVARIANT)
def test_method_extreme_magnitudes_keep_the_ranking_or_refuse(name, case):
    """Scale-invariant methods: data times powers of two (exact) near the largest doubles, per column, or in
    the subnormals give the ranking of the unscaled data -- or a clear error naming X.

    Integer-valued columns are used as they are by the information methods and continuous ones go through
    the mu/sigma levels, so each case keeps that kind: ``huge`` and ``per_column`` scale integers (huge
    doubles are integers; every factor is an integer so that no column stops being integer-valued),
    ``subnormal`` scales integers + 0.5.
    """
    rng = np.random.default_rng(11)
    y = np.arange(60) % 3
    X = rng.integers(0, 7, size=(60, 4)).astype(float)
    X[:, 0] += 3 * y  # an informative column, so that the ranking is not all ties
    factors = {"huge": 2.0 ** 1020, "per_column": np.array([2.0 ** 1020, 1.0, 2.0 ** 1018, 2.0 ** 20]),
               "subnormal": 2.0 ** -1070, "signed_span": 2.0 ** 1021}[case]
    if case == "subnormal":
        X += 0.5
    if case == "signed_span":  # -1.35e308 .. 1.35e308: max - min overflows
        X -= 6.0
    with np.errstate(all="ignore"):
        output = _result_or_clear_error(name, X * factors, y, "X")
    if output is not None:
        expected = _run_method(name, X, y)
        assert list(output.ranking) == list(expected.ranking)
        np.testing.assert_allclose(output.scores, expected.scores, rtol=1e-9, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("name", STREAMING)
def test_streaming_method_extreme_magnitudes_finite_or_refused(name):
    rng = np.random.default_rng(12)
    X = rng.choice(EXTREME_VALUES, size=(40, 4))
    y = np.where(np.arange(40) % 4 == 0, 1, 0)
    with np.errstate(all="ignore"):
        output = _result_or_clear_error(name, X, y, "X")
    if output is not None:
        assert np.all(np.isfinite(output.scores))


# ====================================================================== _neighbours: the Kraskov searches

def _kth_chebyshev_reference(x, y, k):
    with np.errstate(over="ignore"):
        d = np.maximum(np.abs(x[:, None] - x[None, :]), np.abs(y[:, None] - y[None, :]))
    np.fill_diagonal(d, np.inf)
    return np.sort(d, axis=1)[:, k - 1]


@pytest.mark.parametrize("case", ["tied", "extreme", "subnormal", "two_points", "normal"])
def test_kraskov_searches_adversarial_values_equal_brute_force(case):
    rng = np.random.default_rng(11)
    m = 2 if case == "two_points" else 60
    x, y = {"tied": (np.full(m, 7.5), np.full(m, -1.0)),
            "extreme": (rng.choice(EXTREME_VALUES, m), rng.choice(EXTREME_VALUES, m)),
            "subnormal": (rng.integers(0, 4, m) * 5e-324, rng.integers(0, 4, m) * 5e-324),
            "two_points": (np.array([0.0, 1.0]), np.array([3.0, -3.0])),
            "normal": (rng.normal(size=m), rng.normal(size=m))}[case]
    order = np.argsort(x, kind="stable")
    x, y = np.ascontiguousarray(x[order]), np.ascontiguousarray(y[order])
    for k in range(1, min(m, 4)):
        expected = _kth_chebyshev_reference(x, y, k)
        for n_threads in (1, 2):
            out = np.empty(m)
            neighbours.kth_chebyshev_distances(x, y, k, out, n_threads)
            np.testing.assert_array_equal(out, expected)
        radius = np.nextafter(expected, 0)
        n_x = np.empty((1, m), dtype=np.intp)
        n_y = np.empty((1, m), dtype=np.intp)
        neighbours.kraskov_counts(x[None, :].copy(), y[None, :].copy(), np.sort(y), k, n_x, n_y, 2)
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(n_x[0], (np.abs(x[None, :] - x[:, None]) <= radius[:, None]).sum(axis=1))
            np.testing.assert_array_equal(n_y[0], (np.abs(y[None, :] - y[:, None]) <= radius[:, None]).sum(axis=1))
        counts = np.empty(m, dtype=np.intp)
        neighbours.count_within(x, y, radius, counts)
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(counts, (np.abs(x[None, :] - y[:, None]) <= radius[:, None]).sum(axis=1))


def test_kraskov_searches_bad_arguments():
    x = np.arange(5.0)
    y = np.zeros(5)
    out = np.empty(5)
    counts = np.empty(5, dtype=np.intp)
    cases = [
        (lambda: neighbours.kth_chebyshev_distances(x[::-1].copy(), y, 2, out), ("sorted",)),
        (lambda: neighbours.kth_chebyshev_distances(x, y[:4], 2, out), ("y",)),
        (lambda: neighbours.kth_chebyshev_distances(x, y, 0, out), ("k",)),
        (lambda: neighbours.kth_chebyshev_distances(x, y, 5, out), ("k",)),
        (lambda: neighbours.kth_chebyshev_distances(x, y, 2, out, 0), ("n_threads",)),
        (lambda: neighbours.kth_chebyshev_distances(np.array([0, 1, np.nan, 3, 4.0]), y, 2, out), ("finite",)),
        (lambda: neighbours.kth_chebyshev_distances(x, y, 2, np.empty(4)), ("out",)),
        (lambda: neighbours.kth_chebyshev_distances(None, y, 2, out), ("None",)),
        (lambda: neighbours.count_within(x[::-1].copy(), y, y, counts), ("sorted",)),
        (lambda: neighbours.count_within(x, y, y[:3], counts), ("radius",)),
        (lambda: neighbours.count_within(x, y, np.full(5, np.nan), counts), ("radius",)),
        (lambda: neighbours.count_within(x, np.full(5, np.inf), y, counts), ("finite",)),
        (lambda: neighbours.count_within(x, y, y, counts.astype(np.int32)), ("dtype", "Buffer")),
        (lambda: neighbours.kraskov_counts(x[None, :].copy(), y[None, :].copy(), y, 2,
                                           np.empty((1, 4), dtype=np.intp), np.empty((1, 5), dtype=np.intp)),
         ("n_x",)),
        (lambda: neighbours.kraskov_counts(x[None, :].copy(), y[None, :].copy(), y, 9,
                                           np.empty((1, 5), dtype=np.intp), np.empty((1, 5), dtype=np.intp)),
         ("k",)),
        (lambda: neighbours.kraskov_counts(x[None, ::-1].copy(), y[None, :].copy(), y, 2,
                                           np.empty((1, 5), dtype=np.intp), np.empty((1, 5), dtype=np.intp)),
         ("sorted",)),
    ]
    for call, names in cases:
        with pytest.raises((ValueError, TypeError)) as excinfo:
            call()
        assert_clear(excinfo, *names)
    empty = np.empty(3, dtype=np.intp)
    neighbours.count_within(np.empty(0), np.zeros(3), np.ones(3), empty)
    assert empty.tolist() == [0, 0, 0]


# ====================================================================== _moments

# ------------------------------------------------------------------ column_flags

def _column_flags_reference(X):
    nonfinite = ~np.isfinite(X).all(axis=0)
    constant = (X == X[0]).all(axis=0) & ~nonfinite if X.shape[0] else np.ones(X.shape[1], dtype=bool)
    return nonfinite, constant


@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (3, 0), (1, 1), (1, 5), (5, 1)])
def test_column_flags_empty_and_single(shape):
    X = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    for got, expected in zip(moments.column_flags(X), _column_flags_reference(X)):
        np.testing.assert_array_equal(got, expected)


def test_column_flags_extreme_magnitudes_and_non_contiguous():
    rng = np.random.default_rng(11)
    X = rng.choice(np.r_[EXTREME_VALUES, np.nan, np.inf, -np.inf], size=(40, 300))
    X[:, 7] = 1e308          # constant at the largest magnitudes (|v - first| = 0, no overflow)
    X[:, 8] = 5e-324         # constant subnormal
    X[::2, 9], X[1::2, 9] = 1e308, -1e308   # differences that overflow to inf: not constant
    for view in (X, np.asfortranarray(X), X[::3, ::2], X.T.copy().T):
        for got, expected in zip(moments.column_flags(view, n_threads=2), _column_flags_reference(view)):
            np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("bad", [None, [[1.0, 2.0]], np.zeros((2, 2), dtype=np.float32), np.zeros(3),
                                 np.zeros((2, 2, 2))])
def test_column_flags_refuses_what_it_does_not_take(bad):
    with pytest.raises(TypeError) as excinfo:
        moments.column_flags(bad)
    assert_clear(excinfo, "X")


def test_column_flags_refuses_bad_threads():
    with pytest.raises(ValueError) as excinfo:
        moments.column_flags(np.zeros((3, 3)), n_threads=0)
    assert_clear(excinfo, "n_threads")


# ------------------------------------------------------------------ column_extremes

@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "int32", "int64"])
def test_column_extremes_type_limits_single_row_and_non_contiguous(dtype):
    rng = np.random.default_rng(12)
    if dtype == "bool":
        X = rng.integers(0, 2, (37, 300)).astype(bool)
    else:
        info = np.iinfo(dtype)
        X = rng.choice(np.array([info.min, info.max, info.min + 1, info.max - 1, 0, -1 if info.min else 1],
                                dtype=dtype), size=(37, 300))
        X[:, 5] = info.min   # constant at either end
        X[:, 6] = info.max
    for view in (X, X[:1], np.asfortranarray(X), X[::3, ::2], X.T.copy().T, X[:, ::-1]):
        low, high = moments.column_extremes(view, n_threads=2)
        np.testing.assert_array_equal(low, view.min(axis=0).astype(np.int64))
        np.testing.assert_array_equal(high, view.max(axis=0).astype(np.int64))


@pytest.mark.parametrize("bad", [None, [[1, 2]], np.zeros((2, 2)), np.zeros((2, 2), dtype=np.uint64),
                                 np.zeros((2, 2), dtype=np.uint16), np.zeros(3, dtype=np.int64),
                                 np.zeros((2, 2, 2), dtype=np.int64)])
def test_column_extremes_refuses_what_it_does_not_take(bad):
    with pytest.raises(TypeError) as excinfo:
        moments.column_extremes(bad)
    assert_clear(excinfo, "X")


def test_column_extremes_refuses_no_rows_and_bad_threads():
    with pytest.raises(ValueError) as excinfo:
        moments.column_extremes(np.zeros((0, 3), dtype=np.int64))
    assert_clear(excinfo, "X")
    with pytest.raises(ValueError) as excinfo:
        moments.column_extremes(np.zeros((3, 3), dtype=np.int64), n_threads=0)
    assert_clear(excinfo, "n_threads")


# ------------------------------------------------------------------ class_counts

@pytest.mark.parametrize("codes", [[-1], [0, 3, -7, 2], [-(2 ** 31), 5], [0, INT32_MAX, 1],
                                   [0, moments.LARGEST_CLASS_CODE + 1]],
                         ids=["negative", "negative_inside", "int32_min", "int32_max", "over_the_limit"])
def test_class_counts_refuses_codes_that_are_not_class_codes(codes):
    """A negative code, or one far over the number of codes (2**31 - 1 asks for 16 GB of
    counts): refused with the argument's name, never an allocation of that size."""
    with address_space_limit(), pytest.raises(ValueError) as excinfo:
        moments.class_counts(np.array(codes, dtype=np.int32), "y")
    assert_clear(excinfo, "y:")
    with address_space_limit(), pytest.raises(ValueError) as excinfo:
        as_class_codes(np.array(codes), len(codes), name="labels")
    assert_clear(excinfo, "labels:")


def test_class_counts_at_the_limits():
    """The largest code allowed (LARGEST_CLASS_CODE, or the number of codes), empty input, and
    what is not a contiguous int32 vector."""
    limit = moments.LARGEST_CLASS_CODE
    counts = moments.class_counts(np.array([0, limit], dtype=np.int32))
    assert counts.size == limit + 1 and counts[0] == counts[limit] == 1 and counts.sum() == 2
    many = np.arange(limit + 10, dtype=np.int32)[::-1].copy()   # codes up to the number of codes
    np.testing.assert_array_equal(moments.class_counts(many), np.ones(limit + 10, dtype=np.int64))
    assert moments.class_counts(np.zeros(0, dtype=np.int32)).size == 0
    for bad in (None, [0, 1], np.zeros(3, dtype=np.int64), np.zeros((2, 2), dtype=np.int32),
                np.zeros(6, np.int32)[::2]):
        with pytest.raises(TypeError) as excinfo:
            moments.class_counts(bad, "y")
        assert_clear(excinfo, "y:")

"""The greedy step of mrmr, mifs and mifs_u on bit-planes (term 0 of accumulate_pair_terms).

:meth:`fstools._ext._bitcount.PlaneCounter.accumulate_pair_terms` with ``term=0``
counts only the (candidate, selected) table, I(X_c;X_s) = H(X_c) + H(X_s) - H(X_c, X_s),
without the class planes.  Its running sums (weighted) and minima must be bitwise those of
the byte-code kernel :func:`fstools._ext._entropy.accumulate_pair_terms`, and within 1e-12
of a slow NumPy reference that counts the table with ``np.add.at``, for 2-16 levels, 2-4
classes and sample counts that are not multiples of 64; and the same for 1 and 2 threads.
"""
import contextlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fstools._ext import _bitcount, _entropy

CODE_DTYPES = (np.int8, np.int16, np.int32)


@contextlib.contextmanager
def _every_pair_on_planes():
    """Count every pair with planes on the planes, whatever its number of streams (only the
    table capacities limit it), so that the plane path is the one compared."""
    saved = _bitcount.MAX_STREAMS
    _bitcount.MAX_STREAMS = 10 ** 6
    try:
        yield
    finally:
        _bitcount.MAX_STREAMS = saved


def _entropy_ref(counts, m):
    """(m log m - sum n log n) / m over the nonzero cells."""
    n = counts[counts > 0].astype(np.float64)
    return (m * np.log(m) - np.sum(n * np.log(n))) / m


def _pair_information_ref(a, b, la, lb):
    """I(X_a;X_b) in nats from the (a, b) table counted one sample at a time."""
    m = a.size
    table = np.zeros((la, lb), dtype=np.int64)
    np.add.at(table, (a.astype(np.intp), b.astype(np.intp)), 1)
    return _entropy_ref(table.sum(axis=1), m) + _entropy_ref(table.sum(axis=0), m) - _entropy_ref(table, m)


def _random_data(rng, m, levels, n_classes, dtype):
    codes = np.stack([rng.integers(0, level, size=m) for level in levels]).astype(dtype)
    if len(levels) >= 3:  # a level that no sample has (an empty row and column of the table)
        codes[2][codes[2] == levels[2] - 1] = 0
    y = rng.integers(0, n_classes, size=m).astype(np.int32)
    return np.ascontiguousarray(codes), np.asarray(levels, dtype=np.int32), y


def _step(kernel, codes, levels, y, n_classes, selected, active, start, weight, minimum, n_threads=1, term=0):
    running = start.copy()
    kernel.accumulate_pair_terms(codes, levels, y, n_classes, selected, active, running, term, weight, minimum,
                                 n_threads)
    return running


def _check_step(codes, levels, y, n_classes, selected, active, start, weight, minimum, n_threads=1):
    """Planes bitwise the byte-code kernel, and within 1e-12 of the NumPy reference."""
    planes = _bitcount.PlaneCounter(codes, levels, y, n_classes)
    got = _step(planes, codes, levels, y, n_classes, selected, active, start, weight, minimum, n_threads)
    want = _step(_entropy, codes, levels, y, n_classes, selected, active, start, weight, minimum)
    assert np.array_equal(got.view(np.int64), want.view(np.int64)), np.abs(got - want).max()
    expected = start.copy()
    for j in np.flatnonzero(active):
        value = _pair_information_ref(codes[j], codes[selected], levels[j], levels[selected])
        expected[j] = min(start[j], value) if minimum else start[j] + weight * value
    np.testing.assert_allclose(got, expected, rtol=0.0, atol=1e-12)
    return got


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), m=st.integers(1, 3000),
       levels=st.lists(st.integers(2, 16), min_size=2, max_size=6), n_classes=st.integers(2, 4),
       dtype=st.sampled_from(CODE_DTYPES), minimum=st.booleans(), weight=st.sampled_from([1.0, 0.37, 2.5]))
def test_term_zero_on_planes_equals_byte_codes_and_reference(seed, m, levels, n_classes, dtype, minimum, weight):
    rng = np.random.default_rng(seed)
    codes, levels, y = _random_data(rng, m, levels, n_classes, dtype)
    n = levels.size
    selected = int(rng.integers(0, n))
    active = (rng.random(n) < 0.8).astype(np.uint8)
    active[selected] = 0
    start = rng.random(n) * (0.5 if minimum else 3.0)
    with _every_pair_on_planes():
        # every pair is counted on planes (not handed to the byte-code kernel)
        assert _bitcount._pair_on_planes(levels.astype(np.intp), int(levels[selected]), n_classes).all()
        _check_step(codes, levels, y, n_classes, selected, active, start, weight, minimum)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("minimum", [False, True])
def test_term_zero_across_many_words(n_classes, minimum):
    # m = 70,001: 1,094 words, the last one partial; 9 levels (mu_sigma) and others
    rng = np.random.default_rng(70 + n_classes)
    m = 70_001
    codes, levels, y = _random_data(rng, m, [9, 9, 16, 2, 5, 9], n_classes, np.int8)
    codes[0] = np.digitize(rng.standard_normal(m), [-1.5, -1.0, -0.5, -0.2, 0.2, 0.5, 1.0, 1.5])
    codes[5] = np.where(rng.random(m) < 0.7, codes[0], codes[5])  # dependent on feature 0
    active = np.ones(6, dtype=np.uint8)
    for selected in (0, 2):
        active[:] = 1
        active[selected] = 0
        start = np.full(6, 0.05) if minimum else np.linspace(0.0, 1.0, 6)
        with _every_pair_on_planes():
            _check_step(codes, levels, y, n_classes, selected, active, start, 0.37 if not minimum else 1.0, minimum)


def test_term_zero_with_the_default_routing():
    # the default MAX_STREAMS: some pairs on planes, others (too many streams, or a feature of
    # 17 levels without planes) by byte codes, in the same step
    rng = np.random.default_rng(3)
    codes, levels, y = _random_data(rng, 999, [9, 2, 16, 17, 3, 9, 12], 3, np.int8)
    kernel = _bitcount.counting_kernel(codes, levels, y, 3)
    assert isinstance(kernel, _bitcount.PlaneCounter)
    active = np.ones(7, dtype=np.uint8)
    active[0] = 0
    got = _check_step(codes, levels, y, 3, 0, active, np.zeros(7), 1.0, False)
    assert np.all(got[1:] > 0.0)


def test_term_zero_threads_give_the_same_values():
    # 600 candidates: three blocks of PLANE_BLOCK = 256, shared between the threads
    rng = np.random.default_rng(600)
    levels = rng.integers(2, 17, size=600)
    codes, levels, y = _random_data(rng, 517, levels, 3, np.int8)
    planes = _bitcount.PlaneCounter(codes, levels, y, 3)
    active = np.ones(600, dtype=np.uint8)
    for selected, minimum in ((0, False), (1, True)):
        active[:] = 1
        active[selected] = 0
        start = np.full(600, 0.5)
        with _every_pair_on_planes():
            one = _step(planes, codes, levels, y, 3, selected, active, start, 0.37, minimum, n_threads=1)
            two = _step(planes, codes, levels, y, 3, selected, active, start, 0.37, minimum, n_threads=2)
        want = _step(_entropy, codes, levels, y, 3, selected, active, start, 0.37, minimum)
        assert np.array_equal(one.view(np.int64), two.view(np.int64))
        assert np.array_equal(one.view(np.int64), want.view(np.int64))


@pytest.mark.parametrize("term", [0, 1, 2, 3])
def test_every_term_still_equals_byte_codes(term):
    # term 0 takes its own path; terms 1-3 the (candidate, selected, class) table
    rng = np.random.default_rng(term)
    codes, levels, y = _random_data(rng, 777, [9, 4, 16, 2, 9], 2, np.int8)
    planes = _bitcount.PlaneCounter(codes, levels, y, 2)
    active = np.array([1, 1, 0, 1, 1], dtype=np.uint8)
    start = np.linspace(0.1, 0.9, 5)
    with _every_pair_on_planes():
        got = _step(planes, codes, levels, y, 2, 2, active, start, 1.0, False, term=term)
    want = _step(_entropy, codes, levels, y, 2, 2, active, start, 1.0, False, term=term)
    assert np.array_equal(got.view(np.int64), want.view(np.int64))
    assert not np.array_equal(got, start)

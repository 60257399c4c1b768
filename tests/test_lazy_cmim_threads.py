"""Lazy CMIM on several threads: the picks and scores of the eager update, bit for bit.

The lazy loop of ``fstools/_ext/_lazy.pxd`` brings candidates up to date in batches of
(candidate, selected feature) items computed in parallel and merged in the order of the
one-thread loop, and keeps in its heap only the candidates whose I(X;C) is near the top (the
others wait in a reserve that joins the heap when it could hold a pick).  Neither may change a
pick or a score: every run here is compared with the eager update of every candidate at every
step (``lazy=False`` of :func:`fstools.methods.information.greedy_information_selection`, the
tested reference) bitwise, for 1, 2 and 3 threads, on byte codes and on bit-planes, with

* the threaded batches and passes forced on small data (``LAZY_PARALLEL_SAMPLES``,
  ``LAZY_PARALLEL_WORDS`` and ``LAZY_PARALLEL_CANDIDATES`` lowered to 0: every step's items go in
  batches of two per thread, the passes over all candidates run on blocks in parallel),
* a heap that starts with 1 to 7 candidates (``LAZY_HEAP_LEAST``), so that the reserve is
  drawn on again and again, and with the default (the whole heap at once on small data),
* data built to be hard for a lazy scheme: exact ties (duplicated and relabelled columns),
  constant columns, all-equal I(X;C), extreme magnitudes of the relevance handed to the kernel,
  few samples and k up to the number of features.

Small cases are also checked against the brute-force CMIM of ``tests/references/information.py``
(every criterion recomputed from counts at every step; nothing of fstools).
"""
import contextlib
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from references.information import codes_with_ties, information_selection_ref
from test_interrupt import _PRELUDE, STOP_WITHIN, _interrupt

from fstools._ext import _bitcount, _entropy
from fstools.core.ranking import TIE_TOLERANCE
from fstools.methods.information import greedy_information_selection

THREADS = (1, 2, 3)


@contextlib.contextmanager
def _lazy_settings(batches=False, heap_least=None):
    """Force the threaded batches and passes (whatever the work) and/or a small first heap."""
    saved = (_entropy.LAZY_PARALLEL_SAMPLES, _bitcount.LAZY_PARALLEL_WORDS, _entropy.LAZY_PARALLEL_CANDIDATES,
             _entropy.LAZY_HEAP_LEAST)
    try:
        if batches:
            _entropy.LAZY_PARALLEL_SAMPLES = 0
            _bitcount.LAZY_PARALLEL_WORDS = 0
            _entropy.LAZY_PARALLEL_CANDIDATES = 0
        if heap_least is not None:
            _entropy.LAZY_HEAP_LEAST = heap_least
        yield
    finally:
        (_entropy.LAZY_PARALLEL_SAMPLES, _bitcount.LAZY_PARALLEL_WORDS, _entropy.LAZY_PARALLEL_CANDIDATES,
         _entropy.LAZY_HEAP_LEAST) = saved


def _eager(codes, levels, y, k):
    ranking, values, relevance = greedy_information_selection(codes, levels, y, "cmim", k=k, lazy=False)
    return ranking, values["J"], relevance


def _kernel_runs(kernel, codes, levels, y, relevance, k):
    """The kernel's lazy CMIM with 1, 2 and 3 threads: [(ranking, scores), ...]."""
    n_classes = int(y.max()) + 1
    runs = []
    for n_threads in THREADS:
        ranking, scores = np.empty(k, dtype=np.intp), np.empty(k)
        kernel.lazy_cmim(codes, levels, y, n_classes, relevance, k, ranking, scores, TIE_TOLERANCE, n_threads)
        runs.append((ranking, scores))
    return runs


def _assert_runs_equal_eager(runs, eager):
    want_ranking, want_scores = eager
    for n_threads, (ranking, scores) in zip(THREADS, runs):
        np.testing.assert_array_equal(ranking, want_ranking, err_msg=f"{n_threads} thread(s)")
        assert scores.tobytes() == want_scores.tobytes(), f"{n_threads} thread(s)"


def _both_kernels(codes, levels, y):
    """The byte-code kernel, and the planes when the data get them (else None)."""
    planes = _bitcount.counting_kernel(codes, levels, y, int(y.max()) + 1)
    return _entropy, (planes if isinstance(planes, _bitcount.PlaneCounter) else None)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), m=st.integers(2, 70), n=st.integers(1, 40),
       max_levels=st.integers(1, 5), n_classes=st.integers(2, 4), all_features=st.booleans(),
       batches=st.booleans(), heap_least=st.sampled_from([None, 1, 2, 7]))
def test_threads_equal_the_eager_update_property(seed, m, n, max_levels, n_classes, all_features,
                                                 batches, heap_least):
    rng = np.random.default_rng(seed)
    codes, levels = codes_with_ties(rng, m, n, max_levels)
    y = rng.integers(0, n_classes, m).astype(np.int32)
    y[:2] = [0, 1]
    k = n if all_features else int(rng.integers(1, n + 1))
    want_ranking, want_scores, relevance = _eager(codes, levels, y, k)
    with _lazy_settings(batches, heap_least):
        for kernel in _both_kernels(codes, levels, y):
            if kernel is not None:
                _assert_runs_equal_eager(_kernel_runs(kernel, codes, levels, y, relevance, k),
                                         (want_ranking, want_scores))


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), heap_least=st.sampled_from([None, 1, 3, 64]))
def test_sparse_binary_columns_on_planes_and_bytes(seed, heap_least):
    # Dorothea-like: mostly-zero 0/1 columns (many equal, hence tied), a few relevant ones;
    # more features than the default first heap, so that the reserve is used with the default too
    rng = np.random.default_rng(seed)
    m, n = 150, 1500
    y = (rng.random(m) < 0.2).astype(np.int32)
    y[:2] = [0, 1]
    X = rng.random((m, n)) < 0.02
    X[:, :12] |= (y[:, None] == 1) & (rng.random((m, 12)) < 0.6)
    X[:, 700] = X[:, 3]                                      # a duplicate of a relevant column
    codes = np.ascontiguousarray(X.T.astype(np.int8))
    levels = np.full(n, 2, dtype=np.int32)
    k = 40
    want_ranking, want_scores, relevance = _eager(codes, levels, y, k)
    for batches in (False, True):
        with _lazy_settings(batches, heap_least):
            for kernel in _both_kernels(codes, levels, y):
                _assert_runs_equal_eager(_kernel_runs(kernel, codes, levels, y, relevance, k),
                                         (want_ranking, want_scores))


@pytest.mark.parametrize("heap_least", [None, 2, 40])
def test_many_features_several_blocks(heap_least):
    # 20,000 candidates: the passes over all of them run on three blocks (8,192 candidates or
    # more each), threaded without any lowered limit; the best feature (and its tied copies) in
    # the middle block and the last, the first pick's block holding reserve candidates too
    rng = np.random.default_rng(5)
    m, n = 48, 20_000
    y = (rng.random(m) < 0.3).astype(np.int32)
    y[:2] = [0, 1]
    X = rng.random((m, n)) < 0.05
    X[:, 9000] = y == 1
    X[:, 19_999] = X[:, 9000]
    X[:, 9001:9030] |= (y[:, None] == 1) & (rng.random((m, 29)) < 0.5)
    codes = np.ascontiguousarray(X.T.astype(np.int8))
    levels = np.full(n, 2, dtype=np.int32)
    assert n >= _entropy.LAZY_PARALLEL_CANDIDATES
    k = 30
    want_ranking, want_scores, relevance = _eager(codes, levels, y, k)
    assert want_ranking[0] == 9000
    with _lazy_settings(heap_least=heap_least):
        for kernel in _both_kernels(codes, levels, y):
            _assert_runs_equal_eager(_kernel_runs(kernel, codes, levels, y, relevance, k),
                                     (want_ranking, want_scores))


@pytest.mark.parametrize("heap_least", [None, 1, 5])
def test_many_samples_take_the_threaded_batches_by_default(heap_least):
    # m >= LAZY_PARALLEL_SAMPLES: the byte-code kernel's items go in batches without any
    # lowered limit; ten levels (too many streams for planes), ties and constants
    rng = np.random.default_rng(11)
    m, n = 400, 120
    assert m >= _entropy.LAZY_PARALLEL_SAMPLES
    y = rng.integers(0, 3, m).astype(np.int32)
    codes = rng.integers(0, 10, (n, m)).astype(np.int8)
    codes[:10] = np.where(rng.random((10, m)) < 0.6, y * 3, codes[:10])    # relevant
    codes[20:30] = codes[:10]                                             # tied copies
    codes[40:45] = 0                                                      # constant
    codes = np.ascontiguousarray(codes)
    levels = np.full(n, 10, dtype=np.int32)
    levels[40:45] = 1
    want_ranking, want_scores, relevance = _eager(codes, levels, y, n)
    with _lazy_settings(heap_least=heap_least):
        _assert_runs_equal_eager(_kernel_runs(_entropy, codes, levels, y, relevance, n), (want_ranking, want_scores))


@pytest.mark.parametrize("scale", [1e-300, 1e-12, 1.0, 1e12, 1e300])
@pytest.mark.parametrize("heap_least", [1, 4])
def test_extreme_magnitudes_and_all_equal_relevance(scale, heap_least):
    # The kernel takes any finite relevance (the histogram that cuts the heap must not
    # overflow or lose candidates): the eager update's rule on the same numbers is the reference
    rng = np.random.default_rng(3)
    m, n = 90, 60
    codes, levels = codes_with_ties(rng, m, n, 3)
    y = rng.integers(0, 2, m).astype(np.int32)
    y[:2] = [0, 1]
    relevance = np.empty(n)
    _entropy.feature_class_information(codes, levels, y, 2, relevance)
    cases = {"scaled": relevance * scale, "all equal": np.full(n, scale),
             "signed": (relevance - relevance.mean()) * scale}
    for name, values in cases.items():
        want = _eager_from_relevance(codes, levels, y, values, n)
        with _lazy_settings(batches=True, heap_least=heap_least):
            for kernel in _both_kernels(codes, levels, y):
                _assert_runs_equal_eager(_kernel_runs(kernel, codes, levels, y, values, n), want)


def _eager_from_relevance(codes, levels, y, relevance, k):
    """The eager CMIM update started from the given relevance: every remaining candidate's
    running minimum updated at every step (NumPy), the pick by the tie rule of fstools."""
    n_classes = int(y.max()) + 1
    n = codes.shape[0]
    running = relevance.astype(np.float64).copy()
    remaining = np.ones(n, dtype=bool)
    ranking, scores = [], []
    terms = np.empty((n, 4))
    for _ in range(k):
        values = np.where(remaining, running, -np.inf)
        best = values.max()
        window = best - TIE_TOLERANCE * max(1.0, abs(best))
        chosen = int(np.flatnonzero(values >= window)[0])
        ranking.append(chosen)
        scores.append(running[chosen])
        remaining[chosen] = False
        candidates = np.flatnonzero(remaining).astype(np.intp)
        if candidates.size:
            _entropy.pair_information_terms(codes, levels, y, n_classes, chosen, candidates,
                                            terms[:candidates.size])
            running[candidates] = np.minimum(running[candidates], terms[:candidates.size, 2])
    return np.array(ranking, dtype=np.intp), np.array(scores)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), m=st.integers(2, 40), n=st.integers(1, 9))
def test_threads_equal_the_brute_force_reference(seed, m, n):
    rng = np.random.default_rng(seed)
    codes, levels = codes_with_ties(rng, m, n, 3)
    y = rng.integers(0, 3, m).astype(np.int32)
    y[:2] = [0, 1]
    expected_ranking, expected_j = information_selection_ref(codes, y, n, "cmim")
    relevance = np.empty(n)
    _entropy.feature_class_information(codes, levels, y, 3, relevance)
    with _lazy_settings(batches=True, heap_least=1):
        for kernel in _both_kernels(codes, levels, y):
            if kernel is None:
                continue
            for ranking, scores in _kernel_runs(kernel, codes, levels, y, relevance, n):
                assert list(ranking) == expected_ranking
                np.testing.assert_allclose(scores, expected_j, atol=1e-10, rtol=0)


def test_selection_end_to_end_is_thread_invariant(parallel_everywhere):
    # through greedy_information_selection (the threads reach the lazy kernel)
    rng = np.random.default_rng(8)
    codes, levels = codes_with_ties(rng, 300, 80, 4)
    y = rng.integers(0, 3, 300).astype(np.int32)
    want = greedy_information_selection(codes, levels, y, "cmim", k=80, lazy=False)
    for n_threads in THREADS:
        got = greedy_information_selection(codes, levels, y, "cmim", k=80, n_threads=n_threads)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1]["J"].tobytes() == want[1]["J"].tobytes()


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_relevance_not_finite_is_refused(value):
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 2, (5, 30)).astype(np.int8)
    levels = np.full(5, 2, dtype=np.int32)
    y = rng.integers(0, 2, 30).astype(np.int32)
    relevance = np.linspace(0.1, 0.5, 5)
    relevance[3] = value
    for kernel in (_entropy, _bitcount.counting_kernel(codes, levels, y, 2)):
        with pytest.raises(ValueError, match=r"relevance: must be finite .* at index 3"):
            kernel.lazy_cmim(codes, levels, y, 2, relevance, 3, np.empty(3, dtype=np.intp), np.empty(3),
                             TIE_TOLERANCE, 2)


def test_bad_code_reported_whatever_the_threads():
    # every feature's codes are checked before the loop: the lowest bad feature is named, for any
    # number of threads, even when the loop would never have looked at it
    rng = np.random.default_rng(2)
    codes = rng.integers(0, 2, (8, 50)).astype(np.int8)
    levels = np.full(8, 2, dtype=np.int32)
    y = rng.integers(0, 2, 50).astype(np.int32)
    relevance = np.empty(8)
    _entropy.feature_class_information(codes, levels, y, 2, relevance)
    codes[6, 4] = 3
    codes[5, 9] = -1
    for n_threads in THREADS:
        with pytest.raises(ValueError, match=r"codes\[5\]: has code -1 at index 9"):
            _entropy.lazy_cmim(codes, levels, y, 2, relevance, 1, np.empty(1, dtype=np.intp), np.empty(1),
                               TIE_TOLERANCE, n_threads)


@pytest.mark.parametrize("n_threads", [0, -1, 1.5, "2"])
def test_bad_thread_count_names_the_argument(n_threads):
    codes = np.zeros((3, 4), dtype=np.int8)
    with pytest.raises((TypeError, ValueError), match="n_threads"):
        _entropy.lazy_cmim(codes, np.full(3, 1, dtype=np.int32), np.array([0, 1, 0, 1], dtype=np.int32), 2,
                           np.zeros(3), 2, np.empty(2, dtype=np.intp), np.empty(2), TIE_TOLERANCE, n_threads)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process needs POSIX")
@pytest.mark.parametrize("planes", [False, True])
def test_ctrl_c_stops_the_threaded_loop(planes):
    # Many identical binary columns with I(X;C) = 0: every one stays tied at every step, so each
    # step updates all the candidates left (several seconds, in batches on two threads)
    code = _PRELUDE + textwrap.dedent(f"""
        from fstools._ext import _bitcount, _entropy
        m, n = 4096, {6000 if planes else 3000}
        y = rng.integers(0, 2, m).astype(np.int32)
        codes = np.ascontiguousarray(np.repeat(rng.integers(0, 2, (1, m)), n, axis=0).astype(np.int8))
        levels = np.full(n, 2, dtype=np.int32)
        kernel = _bitcount.counting_kernel(codes, levels, y, 2) if {planes} else _entropy
        _entropy.LAZY_PARALLEL_SAMPLES = 0
        _bitcount.LAZY_PARALLEL_WORDS = 0
        ranking, scores = np.empty(n, dtype=np.intp), np.empty(n)
        print("started", flush=True)
        kernel.lazy_cmim(codes, levels, y, 2, np.zeros(n), n, ranking, scores, 1e-12, 2)
        print("finished", flush=True)
    """)
    returncode, stderr, elapsed = _interrupt(code)
    assert returncode != 0
    assert "KeyboardInterrupt" in stderr, stderr[-2000:]
    assert elapsed < STOP_WITHIN

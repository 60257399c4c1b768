"""The greedy information engine in parallel: one fused pass per step, planes built once.

``accumulate_pair_terms`` (on bit-planes and on byte codes) must give bitwise the running
values of ``pair_information_terms`` followed by the NumPy update the engine used to do
(``running[c] += weight * terms[:, t]`` or ``np.minimum``); ``pair_information_terms`` is
itself checked against the NumPy references in tests/test_entropy.py and tests/test_bitcount.py.
The engine is checked against a slow, step-by-step NumPy version of the greedy loop (the
candidate list, one ``pair_information_terms`` call and one NumPy update per step), and every
result must be bitwise the same for 1, 2 and 3 threads.  Also: ``available_cores`` reads
joblib's count once per process and affinity mask, and sees a change of either.
"""
import os

import joblib
import numpy as np
import pytest

from fstools._ext import _bitcount, _entropy
from fstools.core import parallel as _parallel
from fstools.core.discretize import information_codes
from fstools.core.ranking import first_maximum
from fstools.methods import information

THREADS = (1, 2, 3)


def _mixed_codes(seed, m=333, n_classes=3):
    """Binary, few-level, many-level (no planes) and constant features, a duplicated one, m not a
    multiple of 64."""
    rng = np.random.default_rng(seed)
    levels = np.array([2, 2, 3, 4, 9, 16, 17, 30, 2, 1, 2, 5], dtype=np.int32)
    codes = np.stack([rng.integers(0, level, size=m) for level in levels]).astype(np.int8)
    codes[8] = codes[0]            # a duplicated feature: tied terms
    codes[10] = 0                  # constant, one level of two unused
    y = rng.integers(0, n_classes, size=m).astype(np.int32)
    return np.ascontiguousarray(codes), levels, y


def _reference_update(codes, levels, y, n_classes, selected, active, running, term, weight, minimum):
    """``pair_information_terms`` for the active features, then the update in NumPy."""
    candidates = np.flatnonzero(active).astype(np.intp)
    terms = np.empty((candidates.size, 4))
    _entropy.pair_information_terms(codes, levels, y, n_classes, selected, candidates, terms)
    if minimum:
        running[candidates] = np.minimum(running[candidates], terms[:, term])
    elif weight == 1.0:
        running[candidates] += terms[:, term]
    else:
        running[candidates] += weight * terms[:, term]


@pytest.mark.parametrize("on_planes", [True, False])
@pytest.mark.parametrize("term, weight, minimum", [(0, 1.0, False), (0, 0.37, False), (1, 1.0, False),
                                                   (2, 1.0, True), (3, 1.0, False)])
def test_accumulate_pair_terms_equals_pair_terms_and_numpy(on_planes, term, weight, minimum):
    codes, levels, y = _mixed_codes(0)
    kernel = _bitcount.counting_kernel(codes, levels, y, 3) if on_planes else _entropy
    assert isinstance(kernel, _bitcount.PlaneCounter) == on_planes
    rng = np.random.default_rng(1)
    start = rng.random(codes.shape[0])
    for selected in range(codes.shape[0]):   # selected with and without planes, many streams or few
        active = (rng.random(codes.shape[0]) < 0.8).astype(np.uint8)
        active[selected] = 0
        want = start.copy()
        _reference_update(codes, levels, y, 3, selected, active, want, term, weight, minimum)
        for n_threads in THREADS:
            got = start.copy()
            kernel.accumulate_pair_terms(codes, levels, y, 3, selected, active, got, term, weight, minimum, n_threads)
            assert np.array_equal(got, want), (selected, n_threads)
            assert np.array_equal(got[active == 0], start[active == 0])   # the others untouched


def test_accumulate_pair_terms_on_binary_planes_many_blocks():
    # more features than a block of the planes' loop (256), every pair on planes
    rng = np.random.default_rng(2)
    codes = (rng.random((700, 130)) < 0.2).astype(np.int8)
    levels = np.full(700, 2, dtype=np.int32)
    y = (rng.random(130) < 0.3).astype(np.int32)
    kernel = _bitcount.counting_kernel(codes, levels, y, 2)
    assert isinstance(kernel, _bitcount.PlaneCounter)
    active = np.ones(700, dtype=np.uint8)
    active[[5, 300, 699]] = 0
    for term, minimum in ((0, False), (1, False), (2, True)):
        want = np.full(700, 0.5)
        _reference_update(codes, levels, y, 2, 300, active, want, term, 1.0, minimum)
        for n_threads in THREADS:
            got = np.full(700, 0.5)
            kernel.accumulate_pair_terms(codes, levels, y, 2, 300, active, got, term, 1.0, minimum, n_threads)
            assert np.array_equal(got, want)


def test_accumulate_pair_terms_bad_arguments_are_named():
    codes, levels, y = _mixed_codes(3)
    n = codes.shape[0]
    planes = _bitcount.counting_kernel(codes, levels, y, 3)
    for kernel in (planes, _entropy):
        with pytest.raises(ValueError, match="term: must be 0, 1, 2 or 3"):
            kernel.accumulate_pair_terms(codes, levels, y, 3, 0, np.ones(n, np.uint8), np.zeros(n), 4)
        with pytest.raises(ValueError, match="active, running: must have one entry per feature"):
            kernel.accumulate_pair_terms(codes, levels, y, 3, 0, np.ones(n - 1, np.uint8), np.zeros(n), 0)
        with pytest.raises(ValueError, match="selected: must be a feature index"):
            kernel.accumulate_pair_terms(codes, levels, y, 3, n, np.ones(n, np.uint8), np.zeros(n), 0)
    bad = codes.copy()
    bad[3, 7] = 4   # out of range for 4 levels
    planes = _bitcount.counting_kernel(bad, levels, y, 3)
    for kernel in (planes, _entropy):
        with pytest.raises(ValueError, match=r"codes\[3\]: has code 4 at index 7"):
            kernel.accumulate_pair_terms(bad, levels, y, 3, 0, np.ones(n, np.uint8), np.zeros(n), 0, n_threads=2)


def _reference_greedy(codes, levels, y, criterion, k, beta=1.0):
    """The greedy loop step by step: the list of remaining candidates, their pair terms against
    the feature just chosen, the running values updated in NumPy, the pick by first_maximum."""
    n_classes = int(y.max()) + 1
    n = codes.shape[0]
    relevance = np.empty(n)
    _entropy.feature_class_information(codes, levels, y, n_classes, relevance)
    entropies = np.empty(n)
    _entropy.feature_entropies(codes, levels, entropies)
    running = relevance.copy() if criterion == "cmim" else np.zeros(n)
    remaining = np.ones(n, dtype=bool)
    ranking, scores, redundancies = [], [], []
    for step in range(k):
        candidates = np.flatnonzero(remaining)
        redundancy = np.zeros(candidates.size)
        if step == 0:
            values = relevance[candidates]
        elif criterion in ("mifs", "mifs_u"):
            redundancy = beta * running[candidates]
            values = relevance[candidates] - redundancy
        elif criterion == "mrmr":
            redundancy = running[candidates] / step
            values = relevance[candidates] - redundancy
        else:
            values = running[candidates]
        best = first_maximum(values)
        chosen = int(candidates[best])
        ranking.append(chosen)
        scores.append(values[best])
        redundancies.append(redundancy[best])
        remaining[chosen] = False
        candidates = np.flatnonzero(remaining).astype(np.intp)
        terms = np.empty((candidates.size, 4))
        _entropy.pair_information_terms(codes, levels, y, n_classes, chosen, candidates, terms)
        if criterion in ("mifs", "mrmr"):
            running[candidates] += terms[:, 0]
        elif criterion == "mifs_u":
            weight = relevance[chosen] / entropies[chosen] if entropies[chosen] > 0 else 0.0
            running[candidates] += weight * terms[:, 0]
        elif criterion == "jmi":
            running[candidates] += terms[:, 1]
        else:
            running[candidates] = np.minimum(running[candidates], terms[:, 2])
    return np.array(ranking), np.array(scores), np.array(redundancies), relevance


@pytest.fixture(scope="module")
def wide_codes():
    """Binary and few-level features (planes), many-level ones (byte codes), ties, a constant."""
    rng = np.random.default_rng(4)
    X = np.column_stack([(rng.random((260, 300)) < 0.1), rng.integers(0, 3, size=(260, 40)),
                         rng.integers(0, 25, size=(260, 5)), rng.normal(size=(260, 6))]).astype(np.float64)
    y = (X[:, 0] + X[:, 1] + X[:, 301] + rng.random(260) > 2.0).astype(np.int32)
    y[rng.random(260) < 0.2] = 2
    X[:, 17] = X[:, 3]       # duplicated: tied scores
    X[:, 30] = 1.0           # constant
    codes, levels, _ = information_codes(X)
    return codes, levels, y


@pytest.mark.parametrize("criterion", ["mifs", "mifs_u", "mrmr", "jmi", "cmim"])
@pytest.mark.parametrize("k", [20, None])
def test_engine_equals_the_step_by_step_reference_for_any_threads(criterion, k, wide_codes, parallel_everywhere):
    codes, levels, y = wide_codes
    steps = codes.shape[0] if k is None else k
    want = _reference_greedy(codes, levels, y, criterion, steps, beta=0.7 if criterion.startswith("mifs") else 1.0)
    for n_threads in THREADS:
        ranking, values, relevance = information.greedy_information_selection(
            codes, levels, y, criterion, k, n_threads=n_threads, beta=0.7, lazy=False)
        assert np.array_equal(ranking, want[0]), n_threads
        assert np.array_equal(values["J"], want[1]), n_threads
        if criterion in ("mifs", "mifs_u", "mrmr"):
            assert np.array_equal(values["redundancy"], want[2]), n_threads
        assert np.array_equal(relevance, want[3])


@pytest.mark.parametrize("criterion", ["mim", "cmim"])
def test_mim_and_lazy_cmim_thread_invariant(criterion, wide_codes, parallel_everywhere):
    codes, levels, y = wide_codes
    results = [information.greedy_information_selection(codes, levels, y, criterion, 40, n_threads=t)
               for t in THREADS]
    eager = _reference_greedy(codes, levels, y, "cmim", 40) if criterion == "cmim" else None
    for ranking, values, relevance in results:
        assert np.array_equal(ranking, results[0][0])
        assert np.array_equal(values["J"], results[0][1]["J"])
        assert np.array_equal(relevance, results[0][2])
        if eager is not None:
            assert np.array_equal(ranking, eager[0]) and np.array_equal(values["J"], eager[1])


def test_planes_are_built_once_per_selection(monkeypatch, wide_codes):
    codes, levels, y = wide_codes
    built = []
    original = _bitcount.counting_kernel

    def counting(*args, **kwargs):
        kernel = original(*args, **kwargs)
        built.append(kernel)
        return kernel

    monkeypatch.setattr(_bitcount, "counting_kernel", counting)
    for criterion in ("mim", "mifs_u", "jmi", "cmim"):
        built.clear()
        information.greedy_information_selection(codes, levels, y, criterion, 10, n_threads=2)
        assert len(built) == 1 and isinstance(built[0], _bitcount.PlaneCounter), criterion


def test_engine_under_a_joblib_backend_is_the_local_result(wide_codes):
    # the relevance is scored per block of features by joblib tasks (their own planes)
    codes, levels, y = wide_codes
    want = information.greedy_information_selection(codes, levels, y, "jmi", 15, n_threads=2)
    with joblib.parallel_backend("threading", n_jobs=3):
        got = information.greedy_information_selection(codes, levels, y, "jmi", 15, n_threads=2)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1]["J"], want[1]["J"])
    assert np.array_equal(got[2], want[2])


def test_score_features_local_block_only_for_a_local_call():
    X = np.arange(12.0).reshape(2, 6)
    calls = []

    def score(block, n_threads=1):
        calls.append("score_block")
        return block.sum(axis=0)

    def local(block, n_threads=1):
        calls.append("local_block")
        return block.sum(axis=0)

    assert np.array_equal(_parallel.score_features(score, X, 1, local_block=local), X.sum(axis=0))
    assert calls == ["local_block"]
    calls.clear()
    with joblib.parallel_backend("threading", n_jobs=2):
        assert np.array_equal(_parallel.score_features(score, X, 1, local_block=local), X.sum(axis=0))
    assert calls == ["score_block", "score_block"]


def test_available_cores_reads_joblib_once_per_affinity_mask(monkeypatch):
    if not hasattr(os, "sched_getaffinity"):
        pytest.skip("no CPU affinity on this platform")
    monkeypatch.setattr(_parallel, "_joblib_cores", {})
    calls = []
    monkeypatch.setattr(joblib, "cpu_count", lambda: calls.append(1) or 64)
    mask = os.sched_getaffinity(0)
    for _ in range(5):
        assert _parallel.available_cores() == len(mask)
    assert len(calls) == 1
    # a narrower affinity mask (os.sched_setaffinity elsewhere in the process) is seen at once
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {min(mask)})
    assert _parallel.available_cores() == 1
    assert len(calls) == 2


def test_available_cores_follows_loky_max_cpu_count(monkeypatch):
    # joblib's own reading of the variable, not a stand-in
    monkeypatch.delenv("LOKY_MAX_CPU_COUNT", raising=False)
    cores = _parallel.available_cores()
    monkeypatch.setenv("LOKY_MAX_CPU_COUNT", "1")
    assert _parallel.available_cores() == 1
    monkeypatch.delenv("LOKY_MAX_CPU_COUNT")
    assert _parallel.available_cores() == cores


@pytest.mark.parametrize("seed", range(4))
def test_lazy_cmim_on_planes_equals_byte_codes_and_eager(seed):
    # few levels and classes: every pair is counted on planes, so the planes' lazy loop runs
    rng = np.random.default_rng(seed)
    levels = rng.integers(1, 5, size=60).astype(np.int32)
    codes = np.stack([rng.integers(0, level, size=150) for level in levels]).astype(np.int8)
    codes[7], levels[7] = codes[3], levels[3]       # tied
    codes[11] = 0                                   # constant
    y = rng.integers(0, 3, size=150).astype(np.int32)
    y[:3] = [0, 1, 2]
    relevance = np.empty(60)
    _entropy.feature_class_information(codes, levels, y, 3, relevance)
    kernel = _bitcount.counting_kernel(codes, levels, y, 3)
    assert isinstance(kernel, _bitcount.PlaneCounter)
    eager = _reference_greedy(codes, levels, y, "cmim", 60)
    for k in (1, 10, 60):
        on_planes = (np.empty(k, dtype=np.intp), np.empty(k))
        by_bytes = (np.empty(k, dtype=np.intp), np.empty(k))
        kernel.lazy_cmim(codes, levels, y, 3, relevance, k, *on_planes, 1e-12)
        _entropy.lazy_cmim(codes, levels, y, 3, relevance, k, *by_bytes, 1e-12)
        assert np.array_equal(on_planes[0], by_bytes[0]) and on_planes[1].tobytes() == by_bytes[1].tobytes()
        assert np.array_equal(on_planes[0], eager[0][:k]) and np.array_equal(on_planes[1], eager[1][:k])


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32])
def test_lazy_cmim_reports_a_bad_code(dtype):
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 2, size=(6, 80)).astype(dtype)
    levels = np.full(6, 2, dtype=np.int32)
    y = rng.integers(0, 2, size=80).astype(np.int32)
    relevance = np.empty(6)
    _entropy.feature_class_information(codes, levels, y, 2, relevance)
    codes[4, 9] = 5
    planes = _bitcount.counting_kernel(codes, levels, y, 2)   # feature 4 gets no planes: byte codes
    for kernel in (planes, _entropy):
        with pytest.raises(ValueError, match=r"codes\[4\]: has code 5 at index 9"):
            kernel.lazy_cmim(codes, levels, y, 2, relevance, 6, np.empty(6, dtype=np.intp), np.empty(6), 1e-12)

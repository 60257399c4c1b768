"""Bit-parallel counting (fstools._ext._bitcount): bitwise the byte-code kernels' results.

The byte-code kernels of ``fstools._ext._entropy`` are themselves checked against the NumPy
references of ``tests/references/information.py`` (tests/test_entropy.py); here every quantity
counted on bit-planes must be the very same double, for random codes of 1-4 levels with
constant and duplicated features (ties), sample counts that are not multiples of 64, and 1-4
classes.  The popcount loops are checked against Python's ``int.bit_count``.
"""
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from references.information import conditional_mutual_information_ref, mutual_information_ref
from test_interrupt import _PRELUDE, STOP_WITHIN, _interrupt

from fstools._ext import _bitcount, _entropy
from fstools.core.discretize import information_codes
from fstools.methods import cmqfs, information

CODE_DTYPES = (np.int8, np.int16, np.int32)


def _popcount_ref(a, others):
    return [sum(int(x & o).bit_count() for x, o in zip(a.tolist(), row.tolist())) for row in others]


@pytest.mark.parametrize("portable", [False, True])
@pytest.mark.parametrize("n_words", [0, 1, 2, 3, 13, 64])
def test_and_counts_are_popcounts(portable, n_words):
    rng = np.random.default_rng(n_words)
    a = rng.integers(0, 2 ** 64, size=n_words, dtype=np.uint64)
    others = rng.integers(0, 2 ** 64, size=(4, n_words), dtype=np.uint64)
    others[0] = np.uint64(2 ** 64 - 1)   # every bit: popcount(a)
    others[1] = 0
    if n_words:
        a[0] = np.uint64(2 ** 64 - 1)
        others[2, 0] = np.uint64(2 ** 63)  # the high bit alone
    got = _bitcount._and_counts(a, others, portable=portable)
    assert got.tolist() == _popcount_ref(a, others)


def _data(draw_or_rng, m, n, max_levels, n_classes, dtype):
    rng = draw_or_rng
    levels = rng.integers(1, max_levels + 1, size=n).astype(np.int32)
    codes = np.stack([rng.integers(0, level, size=m) for level in levels]).astype(dtype)
    if n >= 3:
        codes[2], levels[2] = codes[0], levels[0]     # a duplicated feature: tied scores
    if n >= 4:
        codes[3], levels[3] = 0, 2                    # constant, one level of two unused
    y = rng.integers(0, n_classes, size=m).astype(np.int32)
    return np.ascontiguousarray(codes), levels, y


def _assert_bitwise_equal(codes, levels, y, n_classes, n_threads=1):
    planes = _bitcount.PlaneCounter(codes, levels, y, n_classes, n_threads)
    n = codes.shape[0]
    got, want = np.empty(n), np.empty(n)
    planes.feature_class_information(codes, levels, y, n_classes, got, n_threads)
    _entropy.feature_class_information(codes, levels, y, n_classes, want)
    assert np.array_equal(got, want)
    planes.feature_entropies(codes, levels, got, n_threads)
    _entropy.feature_entropies(codes, levels, want)
    assert np.array_equal(got, want)
    candidates = np.arange(n, dtype=np.intp)
    for selected in range(n):
        got, want = np.empty((n, 4)), np.empty((n, 4))
        planes.pair_information_terms(codes, levels, y, n_classes, selected, candidates, got, n_threads)
        _entropy.pair_information_terms(codes, levels, y, n_classes, selected, candidates, want)
        assert np.array_equal(got, want), (selected, np.abs(got - want).max())
        got, want = np.empty(n), np.empty(n)
        planes.relevant_independency_terms(codes, levels, y, n_classes, selected, candidates, got, n_threads)
        _entropy.relevant_independency_terms(codes, levels, y, n_classes, selected, candidates, want)
        assert np.array_equal(got, want)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), m=st.integers(1, 300), n=st.integers(1, 7),
       max_levels=st.integers(1, 4), n_classes=st.integers(1, 4), dtype=st.sampled_from(CODE_DTYPES))
def test_planes_equal_byte_codes_bitwise(seed, m, n, max_levels, n_classes, dtype):
    codes, levels, y = _data(np.random.default_rng(seed), m, n, max_levels, n_classes, dtype)
    _assert_bitwise_equal(codes, levels, y, n_classes)


@pytest.mark.parametrize("m", [1, 63, 64, 65, 127, 128, 1000])
def test_planes_equal_byte_codes_at_word_boundaries(m):
    codes, levels, y = _data(np.random.default_rng(m), m, 6, 4, 3, np.int8)
    _assert_bitwise_equal(codes, levels, y, 3)
    _assert_bitwise_equal(codes, levels, y, 3, n_threads=2)


def test_mixed_levels_pairs_on_planes_and_on_byte_codes():
    # 2, 9, 16 levels have planes; 17 and 30 do not; (9 - 1) (16 - 1) 3 streams > MAX_STREAMS
    rng = np.random.default_rng(5)
    levels = np.array([2, 9, 16, 17, 30, 2, 3], dtype=np.int32)
    codes = np.stack([rng.integers(0, level, size=500) for level in levels]).astype(np.int8)
    y = rng.integers(0, 3, size=500).astype(np.int32)
    kernel = _bitcount.counting_kernel(codes, levels, y, 3)
    assert isinstance(kernel, _bitcount.PlaneCounter)
    assert kernel.has_planes().tolist() == [True, True, True, False, False, True, True]
    _assert_bitwise_equal(codes, levels, y, 3)


def test_planes_against_the_numpy_references():
    rng = np.random.default_rng(11)
    codes = rng.integers(0, 3, size=(4, 201)).astype(np.int8)
    levels = np.full(4, 3, dtype=np.int32)
    y = rng.integers(0, 2, size=201).astype(np.int32)
    planes = _bitcount.PlaneCounter(codes, levels, y, 2)
    out = np.empty((3, 4))
    planes.pair_information_terms(codes, levels, y, 2, 0, np.arange(1, 4, dtype=np.intp), out)
    joint = codes[0] * 3   # (x_c, x_s) as one variable
    for row, c in enumerate(range(1, 4)):
        expected = [mutual_information_ref(codes[c], codes[0]), mutual_information_ref(joint + codes[c], y),
                    conditional_mutual_information_ref(codes[c], y, codes[0]),
                    conditional_mutual_information_ref(codes[0], y, codes[c])]
        np.testing.assert_allclose(out[row], expected, rtol=1e-12, atol=1e-14)


def test_counting_kernel_chooses_by_levels():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, size=100).astype(np.int32)
    binary = rng.integers(0, 2, size=(5, 100)).astype(np.int8)
    many = rng.integers(0, 30, size=(5, 100)).astype(np.int8)
    assert isinstance(_bitcount.counting_kernel(binary, np.full(5, 2, np.int32), y, 2), _bitcount.PlaneCounter)
    assert _bitcount.counting_kernel(many, np.full(5, 30, np.int32), y, 2) is _entropy
    # anything the kernels would refuse goes to the byte-code kernels, which say why
    assert _bitcount.counting_kernel(binary.astype(np.int64), np.full(5, 2, np.int32), y, 2) is _entropy
    assert _bitcount.counting_kernel(binary, np.full(5, 2, np.int32), y, 1) is _entropy


def test_bad_codes_are_reported_by_the_byte_code_kernels():
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 2, size=(4, 70)).astype(np.int8)
    codes[2, 5] = 2   # out of range for 2 levels
    levels = np.full(4, 2, dtype=np.int32)
    y = rng.integers(0, 2, size=70).astype(np.int32)
    planes = _bitcount.PlaneCounter(codes, levels, y, 2)
    assert planes.has_planes().tolist() == [True, True, False, True]
    with pytest.raises(ValueError, match=r"codes\[2\]: has code 2 at index 5"):
        planes.feature_class_information(codes, levels, y, 2, np.empty(4))
    with pytest.raises(ValueError, match=r"codes\[2\]: has code 2 at index 5"):
        planes.pair_information_terms(codes, levels, y, 2, 0, np.arange(1, 4, dtype=np.intp), np.empty((3, 4)))
    with pytest.raises(ValueError, match="n_threads"):
        planes.feature_entropies(codes, levels, np.empty(4), n_threads=0)
    with pytest.raises(ValueError, match="out"):
        planes.pair_information_terms(codes, levels, y, 2, 0, np.arange(1, 4, dtype=np.intp), np.empty((3, 3)))


@pytest.mark.parametrize("method", ["mim", "mifs", "mifs_u", "mrmr", "jmi", "cmim"])
@pytest.mark.parametrize("lazy", [True, False])
def test_greedy_selection_on_planes_equals_byte_codes(monkeypatch, method, lazy):
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.integers(0, 2, size=(300, 30)), rng.integers(0, 4, size=(300, 10)),
                         rng.normal(size=(300, 5))])
    X[:, 7] = X[:, 3]
    y = (X[:, 0] + X[:, 31] + rng.random(300) > 2).astype(np.int32)
    codes, levels, _ = information_codes(X)
    got = [information.greedy_information_selection(codes, levels, y, method, k=15, n_threads=n, lazy=lazy)
           for n in (1, 2)]
    monkeypatch.setattr(_bitcount, "counting_kernel", lambda *args, **kwargs: _entropy)
    want = information.greedy_information_selection(codes, levels, y, method, k=15, lazy=lazy)
    for result in got:
        assert np.array_equal(result[0], want[0])
        for key in want[1]:
            assert np.array_equal(result[1][key], want[1][key])
        assert np.array_equal(result[2], want[2])


def test_cmqfs_on_planes_equals_byte_codes(monkeypatch):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 12))
    y = (X[:, 0] + X[:, 1] > 0).astype(np.int32)
    got = cmqfs.cmqfs(X, y, k=8)
    # the byte-code kernels on every codes row (no prepared planes)
    from fstools.core.discretize import mu_sigma_levels
    monkeypatch.setattr(cmqfs, "mu_sigma_planes",
                        lambda X, n_classes, n_threads=1: (*mu_sigma_levels(X), None, np.zeros(X.shape[1], bool)))
    monkeypatch.setattr(_bitcount, "counting_kernel", lambda *args, **kwargs: _entropy)
    want = cmqfs.cmqfs(X, y, k=8)
    assert np.array_equal(got.ranking, want.ranking)
    for key in want.steps:
        assert np.array_equal(got.steps[key], want.steps[key], equal_nan=True)


def test_ctrl_c_stops_the_plane_pairs():
    code = _PRELUDE + textwrap.dedent("""
        from fstools._ext import _bitcount
        m, n = 50_000, 1000
        codes = rng.integers(0, 9, size=(n, m)).astype(np.int8)
        levels = np.full(n, 9, dtype=np.int32)
        y = rng.integers(0, 2, size=m).astype(np.int32)
        planes = _bitcount.PlaneCounter(codes, levels, y, 2, 2)
        candidates = np.tile(np.arange(1, n, dtype=np.intp), 400)
        out = np.empty((candidates.size, 4))
        print("started", flush=True)
        planes.pair_information_terms(codes, levels, y, 2, 0, candidates, out, 2)
        print("finished", flush=True)
    """)
    returncode, stderr, elapsed = _interrupt(code)
    assert returncode != 0
    assert "KeyboardInterrupt" in stderr, stderr[-2000:]
    assert elapsed < STOP_WITHIN

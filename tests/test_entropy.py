"""Tests of the plug-in information kernels in fstools._ext._entropy."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import mutual_info_score

from fstools._ext import _entropy as ent
from references.information import conditional_mutual_information_ref, entropy_ref, mutual_information_ref


TOL = 1e-12
LOG2 = math.log(2.0)


def i32(values):
    return np.asarray(values, dtype=np.int32)


@st.composite
def code_vectors(draw, n_vectors, max_m=40, max_levels=4):
    """``n_vectors`` equally long code vectors with their level counts (small, many ties)."""
    m = draw(st.integers(1, max_m))
    out = []
    for _ in range(n_vectors):
        n_levels = draw(st.integers(1, max_levels))
        codes = draw(st.lists(st.integers(0, n_levels - 1), min_size=m, max_size=m))
        out.append((i32(codes), n_levels))
    return out


# ---------------------------------------------------------------------------
# kernels against the brute-force reference
# ---------------------------------------------------------------------------

@given(code_vectors(3))
@settings(max_examples=300, deadline=None)
def test_kernels_match_reference(vectors):
    (x, nx), (y, ny), (z, nz) = vectors
    assert ent.entropy(x, nx) == pytest.approx(entropy_ref(x.tolist()), abs=TOL)
    assert ent.joint_entropy(x, nx, y, ny) == pytest.approx(entropy_ref(x.tolist(), y.tolist()), abs=TOL)
    assert ent.mutual_information(x, nx, y, ny) == pytest.approx(
        mutual_information_ref(x.tolist(), y.tolist()), abs=TOL)
    assert ent.conditional_mutual_information(x, nx, y, ny, z, nz) == pytest.approx(
        conditional_mutual_information_ref(x.tolist(), y.tolist(), z.tolist()), abs=TOL)


@given(code_vectors(2, max_m=60, max_levels=6))
@settings(max_examples=200, deadline=None)
def test_mutual_information_matches_sklearn(vectors):
    (x, nx), (y, ny) = vectors
    # sklearn's mutual_info_score uses the natural logarithm too
    assert ent.mutual_information(x, nx, y, ny) == pytest.approx(mutual_info_score(x, y), abs=TOL)


def test_unused_levels_do_not_change_the_result():
    x = i32([0, 1, 1, 2, 2, 2])
    y = i32([1, 0, 1, 0, 1, 1])
    assert ent.entropy(x, 3) == ent.entropy(x, 10)
    assert ent.mutual_information(x, 3, y, 2) == pytest.approx(ent.mutual_information(x, 7, y, 5), abs=TOL)


# ---------------------------------------------------------------------------
# hand-computed cases
# ---------------------------------------------------------------------------

def test_entropy_hand_values():
    # constant: one occupied cell -> exactly 0
    assert ent.entropy(i32([2, 2, 2, 2]), 3) == 0.0
    # all distinct (an ID column): H = log m
    assert ent.entropy(i32(np.arange(7)), 7) == pytest.approx(math.log(7), abs=TOL)
    # x = (0, 0, 1, 2): p = (1/2, 1/4, 1/4),
    # H = -(1/2 log 1/2 + 2 * 1/4 log 1/4) = 1/2 log 2 + log 2 = 1.5 log 2
    assert ent.entropy(i32([0, 0, 1, 2]), 3) == pytest.approx(1.5 * LOG2, abs=TOL)


def test_mutual_information_of_x_with_itself_is_its_entropy():
    x = i32([0, 0, 1, 2])
    assert ent.mutual_information(x, 3, x, 3) == pytest.approx(1.5 * LOG2, abs=TOL)
    assert ent.joint_entropy(x, 3, x, 3) == pytest.approx(1.5 * LOG2, abs=TOL)


def test_independent_uniform_pair():
    # every (x, y) combination exactly once: H(X) = H(Y) = log 2, H(X,Y) = log 4, I = 0
    x = i32([0, 0, 1, 1])
    y = i32([0, 1, 0, 1])
    assert ent.joint_entropy(x, 2, y, 2) == pytest.approx(math.log(4), abs=TOL)
    assert ent.mutual_information(x, 2, y, 2) == pytest.approx(0.0, abs=TOL)
    # 3 x 4 levels, each combination twice
    x3 = i32(np.repeat(np.arange(3), 8))
    y4 = i32(np.tile(np.repeat(np.arange(4), 2), 3))
    assert ent.mutual_information(x3, 3, y4, 4) == pytest.approx(0.0, abs=TOL)
    assert ent.joint_entropy(x3, 3, y4, 4) == pytest.approx(math.log(12), abs=TOL)


def test_worked_eight_sample_example():
    # x = 0 0 0 0 1 1 1 1
    # y = 0 0 0 1 1 1 1 1
    # counts: x: (4, 4); y: (3, 5); (x, y): (0,0)=3, (0,1)=1, (1,1)=4.
    # H(X)   = log 2
    # H(Y)   = -(3/8) log(3/8) - (5/8) log(5/8)
    # H(X,Y) = -(3/8) log(3/8) - (1/8) log(1/8) - (4/8) log(4/8)
    # I = H(X) + H(Y) - H(X,Y)
    #   = log 2 - (5/8) log(5/8) + (1/8) log(1/8) + (1/2) log(1/2)
    #   = log 2 - (5/8) log 5 + (15/8) log 2 - (3/8) log 2 - (1/2) log 2
    #   = 2 log 2 - (5/8) log 5  (= 1.386294 - 1.005899 = 0.380396)
    x = i32([0, 0, 0, 0, 1, 1, 1, 1])
    y = i32([0, 0, 0, 1, 1, 1, 1, 1])
    expected_hy = -(3 / 8) * math.log(3 / 8) - (5 / 8) * math.log(5 / 8)
    expected_hxy = -(3 / 8) * math.log(3 / 8) - (1 / 8) * math.log(1 / 8) - (1 / 2) * math.log(1 / 2)
    assert ent.entropy(x, 2) == pytest.approx(LOG2, abs=TOL)
    assert ent.entropy(y, 2) == pytest.approx(expected_hy, abs=TOL)
    assert ent.joint_entropy(x, 2, y, 2) == pytest.approx(expected_hxy, abs=TOL)
    assert ent.mutual_information(x, 2, y, 2) == pytest.approx(2 * LOG2 - (5 / 8) * math.log(5), abs=TOL)
    assert ent.mutual_information(x, 2, y, 2) == pytest.approx(0.3803956658, abs=1e-10)


def test_xor_example():
    # x, z independent fair bits (each combination twice), y = x xor z.
    # I(X;Y) = 0 (y is uniform whatever x is); I(X;Y|Z) = H(X|Z) - H(X|Y,Z) = log 2 - 0.
    x = i32([0, 0, 1, 1, 0, 0, 1, 1])
    z = i32([0, 1, 0, 1, 0, 1, 0, 1])
    y = x ^ z
    assert ent.mutual_information(x, 2, y, 2) == pytest.approx(0.0, abs=TOL)
    assert ent.conditional_mutual_information(x, 2, y, 2, z, 2) == pytest.approx(LOG2, abs=TOL)
    assert ent.joint_entropy(x, 2, y, 2) == pytest.approx(math.log(4), abs=TOL)


# ---------------------------------------------------------------------------
# identities
# ---------------------------------------------------------------------------

@given(code_vectors(3))
@settings(max_examples=200, deadline=None)
def test_information_identities(vectors):
    (x, nx), (y, ny), (z, nz) = vectors
    m = x.size
    mi_xy = ent.mutual_information(x, nx, y, ny)
    # symmetric and non-negative
    assert mi_xy >= 0.0
    assert mi_xy == pytest.approx(ent.mutual_information(y, ny, x, nx), abs=TOL)
    assert ent.conditional_mutual_information(x, nx, y, ny, z, nz) >= 0.0
    # given a constant Z, CMI is MI
    constant = np.zeros(m, dtype=np.int32)
    assert ent.conditional_mutual_information(x, nx, y, ny, constant, 1) == pytest.approx(mi_xy, abs=TOL)
    # given an ID column (all codes distinct) nothing is left: CMI = 0
    ids = np.arange(m, dtype=np.int32)
    assert ent.conditional_mutual_information(x, nx, y, ny, ids, m) == pytest.approx(0.0, abs=TOL)
    # chain rule: I(X; Y,Z) = I(X;Z) + I(X;Y|Z), with (Y,Z) coded as y * nz + z
    yz = (y * nz + z).astype(np.int32)
    assert ent.mutual_information(x, nx, yz, ny * nz) == pytest.approx(
        ent.mutual_information(x, nx, z, nz) + ent.conditional_mutual_information(x, nx, y, ny, z, nz),
        abs=TOL)
    # H(X,Y) = H(X) + H(Y) - I(X;Y)
    assert ent.joint_entropy(x, nx, y, ny) == pytest.approx(
        ent.entropy(x, nx) + ent.entropy(y, ny) - mi_xy, abs=TOL)


# ---------------------------------------------------------------------------
# relevant independency pair terms
# ---------------------------------------------------------------------------

def ri_reference(codes, y, s, c):
    return (conditional_mutual_information_ref(codes[c].tolist(), y.tolist(), codes[s].tolist())
            + conditional_mutual_information_ref(codes[s].tolist(), y.tolist(), codes[c].tolist()))


@st.composite
def ri_problems(draw):
    n_features = draw(st.integers(1, 5))
    m = draw(st.integers(1, 30))
    levels = i32(draw(st.lists(st.integers(1, 4), min_size=n_features, max_size=n_features)))
    codes = np.empty((n_features, m), dtype=np.int32)
    for j in range(n_features):
        codes[j] = draw(st.lists(st.integers(0, int(levels[j]) - 1), min_size=m, max_size=m))
    n_classes = draw(st.integers(1, 3))
    y = i32(draw(st.lists(st.integers(0, n_classes - 1), min_size=m, max_size=m)))
    selected = draw(st.integers(0, n_features - 1))
    candidates = np.asarray(draw(st.lists(st.integers(0, n_features - 1), max_size=8)), dtype=np.intp)
    return codes, levels, y, n_classes, selected, candidates


@given(ri_problems(), st.integers(1, 3))
@settings(max_examples=300, deadline=None)
def test_relevant_independency_terms_match_reference(problem, n_threads):
    codes, levels, y, n_classes, selected, candidates = problem
    out = np.full(candidates.size, np.nan)
    ent.relevant_independency_terms(codes, levels, y, n_classes, selected, candidates, out, n_threads)
    for i, c in enumerate(candidates):
        assert out[i] == pytest.approx(ri_reference(codes, y, selected, c), abs=TOL)


def test_relevant_independency_terms_hand_values():
    # class = x xor z: I(X;C|Z) = I(Z;C|X) = log 2, so the pair term is 2 log 2;
    # a feature paired with itself: I(X;C|X) = 0 twice.
    x = [0, 0, 1, 1, 0, 0, 1, 1]
    z = [0, 1, 0, 1, 0, 1, 0, 1]
    codes = i32([x, z])
    y = codes[0] ^ codes[1]
    out = np.full(2, np.nan)
    ent.relevant_independency_terms(codes, i32([2, 2]), y, 2, 1, np.array([0, 1], dtype=np.intp), out)
    assert out[0] == pytest.approx(2 * LOG2, abs=TOL)
    assert out[1] == pytest.approx(0.0, abs=TOL)


def test_relevant_independency_terms_do_not_depend_on_thread_count():
    rng = np.random.default_rng(12345)
    n_features, m = 64, 2000
    levels = rng.integers(1, 10, size=n_features).astype(np.int32)
    codes = np.ascontiguousarray((rng.random((n_features, m)) * levels[:, None]).astype(np.int32))
    y = rng.integers(0, 3, size=m).astype(np.int32)
    candidates = np.arange(n_features, dtype=np.intp)[::-1].copy()
    results = []
    for n_threads in (1, 2, 4):
        out = np.full(n_features, np.nan)
        ent.relevant_independency_terms(codes, levels, y, 3, 5, candidates, out, n_threads)
        results.append(out)
    assert np.all(np.isfinite(results[0]))
    assert np.array_equal(results[0], results[1])  # bitwise identical
    assert np.array_equal(results[0], results[2])
    for i in (0, 17, 58):  # spot check against the reference
        assert results[0][i] == pytest.approx(ri_reference(codes, y, 5, candidates[i]), abs=TOL)


def test_relevant_independency_terms_no_candidates():
    codes = i32([[0, 1], [1, 0]])
    out = np.empty(0)
    ent.relevant_independency_terms(codes, i32([2, 2]), i32([0, 1]), 2, 0, np.empty(0, dtype=np.intp), out, 2)
    assert out.size == 0


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------

def test_length_mismatch_names_the_argument():
    with pytest.raises(ValueError, match=r"^y: has length 3"):
        ent.mutual_information(i32([0, 1]), 2, i32([0, 1, 1]), 2)
    with pytest.raises(ValueError, match=r"^z: has length 1"):
        ent.conditional_mutual_information(i32([0, 1]), 2, i32([0, 1]), 2, i32([0]), 2)
    with pytest.raises(ValueError, match=r"^y: has length 1"):
        ent.joint_entropy(i32([0, 1]), 2, i32([0]), 2)


def test_code_out_of_range_names_the_argument():
    with pytest.raises(ValueError, match=r"^x: has code 3 at index 1.*0\.\.1"):
        ent.entropy(i32([0, 3]), 2)
    with pytest.raises(ValueError, match=r"^x: has code -1 at index 0"):
        ent.mutual_information(i32([-1, 0]), 2, i32([0, 1]), 2)
    with pytest.raises(ValueError, match=r"^y: has code 2 at index 2"):
        ent.joint_entropy(i32([0, 1, 1]), 2, i32([0, 1, 2]), 2)
    with pytest.raises(ValueError, match=r"^z: has code 5"):
        ent.conditional_mutual_information(i32([0, 1]), 2, i32([0, 1]), 2, i32([5, 0]), 3)


def test_bad_levels_and_empty_input():
    with pytest.raises(ValueError, match="^n_levels: must be an integer >= 1"):
        ent.entropy(i32([0, 0]), 0)
    with pytest.raises(ValueError, match="^ny: must be an integer >= 1"):
        ent.mutual_information(i32([0, 0]), 1, i32([0, 0]), -2)
    with pytest.raises(ValueError, match="^x: is empty"):
        ent.entropy(i32([]), 2)
    with pytest.raises(ValueError, match="joint counting table"):
        ent.conditional_mutual_information(i32([0]), 2 ** 10, i32([0]), 2 ** 10, i32([0]), 2 ** 10)


def test_relevant_independency_terms_bad_input():
    codes = i32([[0, 1, 1], [1, 0, 2]])
    levels = i32([2, 3])
    y = i32([0, 1, 1])
    cand = np.array([0, 1], dtype=np.intp)
    out = np.empty(2)
    call = ent.relevant_independency_terms
    with pytest.raises(ValueError, match="^y: has length 2 but each row of codes has length 3"):
        call(codes, levels, i32([0, 1]), 2, 0, cand, out)
    with pytest.raises(ValueError, match="^y: has code 2"):
        call(codes, levels, i32([0, 1, 2]), 2, 0, cand, out)
    with pytest.raises(ValueError, match="^selected: must be a feature index"):
        call(codes, levels, y, 2, 2, cand, out)
    with pytest.raises(ValueError, match="^candidates: must hold feature indices.*got 7"):
        call(codes, levels, y, 2, 0, np.array([0, 7], dtype=np.intp), out)
    with pytest.raises(ValueError, match="^out: has length 1"):
        call(codes, levels, y, 2, 0, cand, np.empty(1))
    with pytest.raises(ValueError, match="^levels: has length 1"):
        call(codes, i32([2]), y, 2, 0, cand, out)
    with pytest.raises(ValueError, match="^levels: must be >= 1"):
        call(codes, i32([2, 0]), y, 2, 0, cand, out)
    with pytest.raises(ValueError, match="^n_threads: must be"):
        call(codes, levels, y, 2, 0, cand, out, 0)
    # a code of the selected feature out of range
    with pytest.raises(ValueError, match=r"^codes\[1\] \(the selected feature\): has code 2"):
        call(codes, i32([2, 2]), y, 2, 1, cand, out)
    # a code of a candidate out of range: detected inside the parallel loop, raised after it
    with pytest.raises(ValueError, match=r"^codes\[1\]: has code 2 at index 2.*0\.\.1"):
        call(codes, i32([2, 2]), y, 2, 0, cand, out, 2)
    with pytest.raises(ValueError, match="joint counting table"):
        call(codes, i32([2, 2 ** 20]), y, 2 ** 7, 0, cand, out)


# ---------------------------------------------------------------------------
# code dtypes: int8, int16 and int32 codes give bitwise identical results
# ---------------------------------------------------------------------------

CODE_DTYPES = (np.int8, np.int16, np.int32)


@given(code_vectors(3, max_levels=6), st.sampled_from(CODE_DTYPES), st.sampled_from(CODE_DTYPES),
       st.sampled_from(CODE_DTYPES))
@settings(max_examples=300, deadline=None)
def test_scalar_kernels_identical_for_every_code_dtype(vectors, dx, dy, dz):
    (x, nx), (y, ny), (z, nz) = vectors
    x8, y8, z8 = x.astype(dx), y.astype(dy), z.astype(dz)  # also mixed dtypes in one call
    assert ent.entropy(x8, nx) == ent.entropy(x, nx)
    assert ent.joint_entropy(x8, nx, y8, ny) == ent.joint_entropy(x, nx, y, ny)
    assert ent.mutual_information(x8, nx, y8, ny) == ent.mutual_information(x, nx, y, ny)
    assert (ent.conditional_mutual_information(x8, nx, y8, ny, z8, nz)
            == ent.conditional_mutual_information(x, nx, y, ny, z, nz))
    # and against the brute-force reference
    assert ent.entropy(x8, nx) == pytest.approx(entropy_ref(x.tolist()), abs=TOL)
    assert ent.mutual_information(x8, nx, y8, ny) == pytest.approx(
        mutual_information_ref(x.tolist(), y.tolist()), abs=TOL)
    assert ent.conditional_mutual_information(x8, nx, y8, ny, z8, nz) == pytest.approx(
        conditional_mutual_information_ref(x.tolist(), y.tolist(), z.tolist()), abs=TOL)


def test_int16_codes_with_many_levels():
    # codes up to 999 (int16; not representable in int8) against the reference
    rng = np.random.default_rng(4)
    x = rng.integers(0, 1000, 5000).astype(np.int16)
    y = (x // 100 + rng.integers(0, 2, 5000)).astype(np.int16)   # 0..10, depends on x
    z = rng.integers(0, 3, 5000).astype(np.int16)
    assert ent.entropy(x, 1000) == pytest.approx(entropy_ref(x.tolist()), abs=1e-10)
    assert ent.mutual_information(x, 1000, y, 11) == pytest.approx(
        mutual_information_ref(x.tolist(), y.tolist()), abs=1e-10)
    assert ent.conditional_mutual_information(x, 1000, y, 11, z, 3) == pytest.approx(
        conditional_mutual_information_ref(x.tolist(), y.tolist(), z.tolist()), abs=1e-10)
    assert ent.entropy(x, 1000) == ent.entropy(x.astype(np.int32), 1000)


@given(ri_problems(), st.integers(1, 2))
@settings(max_examples=200, deadline=None)
def test_feature_kernels_identical_for_every_code_dtype(problem, n_threads):
    codes, levels, y, n_classes, selected, candidates = problem
    results = {}
    for dtype in CODE_DTYPES:
        typed = np.ascontiguousarray(codes, dtype=dtype)
        pair = np.full((candidates.size, 4), np.nan)
        ri = np.full(candidates.size, np.nan)
        mi = np.full(codes.shape[0], np.nan)
        h = np.full(codes.shape[0], np.nan)
        ent.pair_information_terms(typed, levels, y, n_classes, selected, candidates, pair, n_threads)
        ent.relevant_independency_terms(typed, levels, y, n_classes, selected, candidates, ri, n_threads)
        ent.feature_class_information(typed, levels, y, n_classes, mi, n_threads)
        ent.feature_entropies(typed, levels, h, n_threads)
        results[dtype] = (pair, ri, mi, h)
    for dtype in (np.int8, np.int16):
        for got, want in zip(results[dtype], results[np.int32]):
            assert np.array_equal(got, want)  # bitwise identical
    pair, ri, mi, h = results[np.int8]
    for i, c in enumerate(candidates):
        assert ri[i] == pytest.approx(ri_reference(codes, y, selected, c), abs=TOL)
        assert pair[i, 0] == pytest.approx(mutual_information_ref(codes[c].tolist(), codes[selected].tolist()),
                                           abs=TOL)
    for j in range(codes.shape[0]):
        assert h[j] == pytest.approx(entropy_ref(codes[j].tolist()), abs=TOL)
        assert mi[j] == pytest.approx(mutual_information_ref(codes[j].tolist(), y.tolist()), abs=TOL)


def test_int8_kernels_do_not_depend_on_thread_count():
    rng = np.random.default_rng(99)
    n_features, m = 48, 3000
    levels = rng.integers(1, 10, size=n_features).astype(np.int32)
    codes = np.ascontiguousarray((rng.random((n_features, m)) * levels[:, None]).astype(np.int8))
    y = rng.integers(0, 3, size=m).astype(np.int32)
    candidates = np.arange(n_features, dtype=np.intp)
    outputs = []
    for n_threads in (1, 2):
        pair = np.empty((n_features, 4))
        mi = np.empty(n_features)
        ent.pair_information_terms(codes, levels, y, 3, 7, candidates, pair, n_threads)
        ent.feature_class_information(codes, levels, y, 3, mi, n_threads)
        outputs.append((pair, mi))
    assert np.array_equal(outputs[0][0], outputs[1][0]) and np.array_equal(outputs[0][1], outputs[1][1])
    pair32 = np.empty((n_features, 4))
    ent.pair_information_terms(codes.astype(np.int32), levels, y, 3, 7, candidates, pair32, 2)
    assert np.array_equal(outputs[0][0], pair32)


def test_bad_code_dtype_names_the_argument():
    with pytest.raises(TypeError, match=r"^x: must be a NumPy array of int8, int16 or int32 codes; got int64"):
        ent.entropy(np.array([0, 1], dtype=np.int64), 2)
    with pytest.raises(TypeError, match=r"^y: must be a NumPy array of int8, int16 or int32 codes; got float64"):
        ent.mutual_information(i32([0, 1]), 2, np.array([0.0, 1.0]), 2)
    with pytest.raises(TypeError, match=r"^z: must be a NumPy array of int8, int16 or int32 codes; got list"):
        ent.conditional_mutual_information(i32([0, 1]), 2, i32([0, 1]), 2, [0, 1], 2)
    codes = np.zeros((2, 3), dtype=np.uint8)
    out = np.empty(2)
    with pytest.raises(TypeError, match=r"^codes: must be a C-contiguous 2-D NumPy array of int8, int16 or int32 "
                                        r"codes; got uint8"):
        ent.feature_entropies(codes, i32([1, 1]), out)
    with pytest.raises(TypeError, match=r"^codes: .*got int64"):
        ent.relevant_independency_terms(codes.astype(np.int64), i32([1, 1]), i32([0, 0, 0]), 1, 0,
                                        np.array([1], dtype=np.intp), np.empty(1))
    # out-of-range codes of a narrow type are reported as before
    with pytest.raises(ValueError, match=r"^codes\[1\]: has code 2 at index 2.*0\.\.1"):
        ent.relevant_independency_terms(np.array([[0, 1, 1], [1, 0, 2]], dtype=np.int8), i32([2, 2]),
                                        i32([0, 1, 1]), 2, 0, np.array([0, 1], dtype=np.intp), np.empty(2), 2)
    with pytest.raises(ValueError, match=r"^x: has code -1 at index 0"):
        ent.entropy(np.array([-1, 0], dtype=np.int8), 2)

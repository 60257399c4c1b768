"""Information-theoretic filters (MIM, MIFS, MIFS-U, mRMR, JMI, CMIM) and their kernels."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from references.information import (conditional_mutual_information_ref, entropy_ref, information_codes_ref,
                                    information_selection_ref, mutual_information_ref)

import fstools as fs
from fstools._ext import _bitcount as bitcount
from fstools._ext import _entropy as ent
from fstools.core.discretize import information_codes
from fstools.core.messages import format_count
from fstools.methods import information
from fstools.core.ranking import TIE_TOLERANCE, first_maximum, rank_features
from fstools.methods.registry import get_method


METHODS = ("mim", "mifs", "mifs_u", "mrmr", "jmi", "cmim")
TOL = 1e-12
LOG2 = math.log(2.0)


def i32(values):
    return np.ascontiguousarray(values, dtype=np.int32)


def pair_terms(codes, levels, y, n_classes, selected, candidates, n_threads=1):
    candidates = np.asarray(candidates, dtype=np.intp)
    out = np.full((candidates.size, 4), np.nan)
    ent.pair_information_terms(i32(codes), i32(levels), i32(y), n_classes, selected, candidates, out,
                               n_threads)
    return out


# ---------------------------------------------------------------------------
# kernels: hand-computed values
# ---------------------------------------------------------------------------

def test_pair_terms_of_a_feature_with_itself():
    # x = 0 0 0 0 1 1 1 1, y = 0 0 0 1 1 1 1 1 (the worked example of test_entropy):
    # I(X;X) = H(X) = log 2; I(X,X;C) = I(X;C) = 2 log 2 - (5/8) log 5;
    # I(X;C|X) = 0 both ways.
    x = [0, 0, 0, 0, 1, 1, 1, 1]
    y = [0, 0, 0, 1, 1, 1, 1, 1]
    out = pair_terms([x, x], [2, 2], y, 2, 1, [0])
    np.testing.assert_allclose(out[0], [LOG2, 2 * LOG2 - 0.625 * math.log(5), 0.0, 0.0], atol=TOL)


def test_pair_terms_candidate_independent_of_class():
    # x_s = C (each class 4 times), x_c independent of both (each (x_c, C) pair twice):
    # I(Xc;Xs) = 0; I(Xc,Xs;C) = H(C) = log 2; I(Xc;C|Xs) = 0 (Xs fixes C);
    # I(Xs;C|Xc) = H(C|Xc) = H(C) = log 2.
    xc = [0, 1, 0, 1, 0, 1, 0, 1]
    y = [0, 0, 1, 1, 0, 0, 1, 1]
    out = pair_terms([xc, y], [2, 2], y, 2, 1, [0])
    np.testing.assert_allclose(out[0], [0.0, LOG2, 0.0, LOG2], atol=TOL)


def test_pair_terms_xor():
    # C = X1 xor X2 with X1, X2 independent fair bits (each combination twice):
    # I(X1;X2) = 0; (X1, X2) determines C: I(X1,X2;C) = H(C) = log 2;
    # given X2, X1 determines C: I(X1;C|X2) = I(X2;C|X1) = log 2.
    x1 = [0, 0, 1, 1, 0, 0, 1, 1]
    x2 = [0, 1, 0, 1, 0, 1, 0, 1]
    y = [a ^ b for a, b in zip(x1, x2)]
    out = pair_terms([x1, x2], [2, 2], y, 2, 1, [0, 1])
    np.testing.assert_allclose(out[0], [0.0, LOG2, LOG2, LOG2], atol=TOL)
    # the selected feature against itself: I(X2;X2) = log 2, I(X2;C) = 0, CMIs 0
    np.testing.assert_allclose(out[1], [LOG2, 0.0, 0.0, 0.0], atol=TOL)


def test_pair_terms_three_classes_with_a_constant_selected_feature():
    # x_c = C (three classes, twice each), x_s constant:
    # I(Xc;Xs) = 0; I(Xc,Xs;C) = I(Xc;C) = H(C) = log 3; I(Xc;C|Xs) = log 3; I(Xs;C|Xc) = 0.
    y = [0, 1, 2, 0, 1, 2]
    out = pair_terms([y, [0] * 6], [3, 1], y, 3, 1, [0])
    np.testing.assert_allclose(out[0], [0.0, math.log(3), math.log(3), 0.0], atol=TOL)


def test_feature_class_information_and_entropies_hand_values():
    # rows: x = (0, 0, 1, 2): H = 1.5 log 2; constant: H = 0; y itself: H = I(Y;Y) = log 2
    codes = i32([[0, 0, 1, 2], [1, 1, 1, 1], [0, 1, 0, 1]])
    y = i32([0, 1, 0, 1])
    h = np.full(3, np.nan)
    ent.feature_entropies(codes, i32([3, 2, 2]), h)
    np.testing.assert_allclose(h, [1.5 * LOG2, 0.0, LOG2], atol=TOL)
    mi = np.full(3, np.nan)
    ent.feature_class_information(codes, i32([3, 2, 2]), y, 2, mi)
    # I(x;y): x = 0 -> y in {0, 1}; x = 1 -> 0; x = 2 -> 1.  H(X,Y) = log 4 (four distinct pairs),
    # so I = 1.5 log 2 + log 2 - 2 log 2 = 0.5 log 2.
    np.testing.assert_allclose(mi, [0.5 * LOG2, 0.0, LOG2], atol=TOL)
    assert h[1] == 0.0 and mi[1] == 0.0   # exactly 0 for a constant column


# ---------------------------------------------------------------------------
# kernels against the reference (hypothesis)
# ---------------------------------------------------------------------------

@st.composite
def pair_problems(draw):
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


@given(pair_problems(), st.integers(1, 3))
@settings(max_examples=300, deadline=None)
def test_pair_terms_match_reference(problem, n_threads):
    codes, levels, y, n_classes, selected, candidates = problem
    out = pair_terms(codes, levels, y, n_classes, selected, candidates, n_threads)
    xs, cls = codes[selected].tolist(), y.tolist()
    for i, c in enumerate(candidates):
        xc = codes[c].tolist()
        expected = [mutual_information_ref(xc, xs),
                    mutual_information_ref(list(zip(xc, xs)), cls),
                    conditional_mutual_information_ref(xc, cls, xs),
                    conditional_mutual_information_ref(xs, cls, xc)]
        np.testing.assert_allclose(out[i], expected, atol=TOL, rtol=0)
    # the CMQFS pair term is the sum of the last two, from the same engine
    ri = np.full(candidates.size, np.nan)
    ent.relevant_independency_terms(codes, levels, y, n_classes, selected, candidates, ri, n_threads)
    np.testing.assert_array_equal(ri, out[:, 2] + out[:, 3])


@given(pair_problems(), st.integers(1, 3))
@settings(max_examples=200, deadline=None)
def test_feature_kernels_match_reference(problem, n_threads):
    codes, levels, y, n_classes, _, _ = problem
    h = np.full(codes.shape[0], np.nan)
    mi = np.full(codes.shape[0], np.nan)
    ent.feature_entropies(codes, levels, h, n_threads)
    ent.feature_class_information(codes, levels, y, n_classes, mi, n_threads)
    for j in range(codes.shape[0]):
        assert h[j] == pytest.approx(entropy_ref(codes[j].tolist()), abs=TOL)
        assert mi[j] == pytest.approx(mutual_information_ref(codes[j].tolist(), y.tolist()), abs=TOL)


def _random_codes(seed, n_features=64, m=2000, n_classes=3):
    rng = np.random.default_rng(seed)
    levels = rng.integers(1, 10, size=n_features).astype(np.int32)
    codes = np.ascontiguousarray((rng.random((n_features, m)) * levels[:, None]).astype(np.int32))
    y = rng.integers(0, n_classes, size=m).astype(np.int32)
    return codes, levels, y


def test_kernels_do_not_depend_on_thread_count():
    codes, levels, y = _random_codes(7)
    candidates = np.arange(codes.shape[0], dtype=np.intp)[::-1].copy()
    pair, mi, h = [], [], []
    for n_threads in (1, 2, 4):
        pair.append(pair_terms(codes, levels, y, 3, 5, candidates, n_threads))
        mi.append(np.empty(codes.shape[0]))
        ent.feature_class_information(codes, levels, y, 3, mi[-1], n_threads)
        h.append(np.empty(codes.shape[0]))
        ent.feature_entropies(codes, levels, h[-1], n_threads)
    assert np.all(np.isfinite(pair[0]))
    for other in (1, 2):   # bitwise identical
        assert np.array_equal(pair[0], pair[other])
        assert np.array_equal(mi[0], mi[other])
        assert np.array_equal(h[0], h[other])


def test_kernels_empty_inputs():
    codes = i32([[0, 1], [1, 0]])
    out = np.empty((0, 4))
    ent.pair_information_terms(codes, i32([2, 2]), i32([0, 1]), 2, 0, np.empty(0, dtype=np.intp), out, 2)
    none = np.empty((0, 2), dtype=np.int32)
    ent.feature_class_information(none, i32([]), i32([0, 1]), 2, np.empty(0), 2)
    ent.feature_entropies(none, i32([]), np.empty(0), 2)


def test_kernel_bad_input_names_the_argument():
    codes = i32([[0, 1, 1], [1, 0, 2]])
    levels = i32([2, 3])
    y = i32([0, 1, 1])
    cand = np.array([0, 1], dtype=np.intp)
    call = ent.pair_information_terms
    with pytest.raises(ValueError, match=r"^out: has shape \(2, 3\) but must be \(n_candidates, 4\)"):
        call(codes, levels, y, 2, 0, cand, np.empty((2, 3)))
    with pytest.raises(ValueError, match=r"^out: has shape \(1, 4\)"):
        call(codes, levels, y, 2, 0, cand, np.empty((1, 4)))
    with pytest.raises(ValueError, match="^y: has length 2 but each row of codes has length 3"):
        call(codes, levels, i32([0, 1]), 2, 0, cand, np.empty((2, 4)))
    with pytest.raises(ValueError, match="^selected: must be a feature index"):
        call(codes, levels, y, 2, 5, cand, np.empty((2, 4)))
    with pytest.raises(ValueError, match="^candidates: must hold feature indices.*got -1"):
        call(codes, levels, y, 2, 0, np.array([-1], dtype=np.intp), np.empty((1, 4)))
    with pytest.raises(ValueError, match="^n_threads: must be"):
        call(codes, levels, y, 2, 0, cand, np.empty((2, 4)), 0)
    # a candidate code out of range: flagged inside the parallel loop, raised after it
    with pytest.raises(ValueError, match=r"^codes\[1\]: has code 2 at index 2.*0\.\.1"):
        call(codes, i32([2, 2]), y, 2, 0, cand, np.empty((2, 4)), 2)
    with pytest.raises(ValueError, match=r"^codes\[1\]: has code 2 at index 2"):
        ent.feature_class_information(codes, i32([2, 2]), y, 2, np.empty(2), 2)
    with pytest.raises(ValueError, match=r"^codes\[1\]: has code 2 at index 2"):
        ent.feature_entropies(codes, i32([2, 2]), np.empty(2), 2)
    with pytest.raises(ValueError, match="^out: has length 1 but codes has 2 rows"):
        ent.feature_class_information(codes, levels, y, 2, np.empty(1))
    with pytest.raises(ValueError, match="^out: has length 3 but codes has 2 rows"):
        ent.feature_entropies(codes, levels, np.empty(3))
    with pytest.raises(ValueError, match="^levels: has length 1"):
        ent.feature_entropies(codes, i32([2]), np.empty(2))
    with pytest.raises(ValueError, match="^y: has code 2"):
        ent.feature_class_information(codes, levels, i32([0, 1, 2]), 2, np.empty(2))
    with pytest.raises(ValueError, match="^codes: has no samples"):
        ent.feature_entropies(np.empty((2, 0), dtype=np.int32), levels, np.empty(2))
    with pytest.raises(ValueError, match="joint counting table"):
        call(codes, i32([2, 2 ** 20]), y, 2 ** 7, 0, cand, np.empty((2, 4)))


# ---------------------------------------------------------------------------
# methods against the slow reference
# ---------------------------------------------------------------------------

def _mixed_data(seed, n_classes, m=48):
    """Continuous columns (rounded, so with ties), discrete columns, a duplicate,
    a constant and a wide-range integer column (treated as continuous)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, m).astype(np.int32)
    y[:n_classes] = np.arange(n_classes)
    columns = [
        np.round(rng.normal(size=m) + 0.9 * y, 1),                     # 0 relevant, continuous
        np.round(rng.normal(size=m), 1),                               # 1 noise, continuous
        ((y + rng.integers(0, 2, m)) % 3).astype(float),               # 2 discrete, relevant
        rng.integers(0, 2, m).astype(float),                           # 3 discrete noise (binary)
        None,                                                          # 4 duplicate of 0
        np.full(m, 3.0),                                               # 5 constant
        np.round(rng.normal(size=m) - 0.6 * y + 0.3 * rng.normal(size=m), 1),  # 6 relevant
        rng.integers(0, 1000, m).astype(float),                        # 7 integers, many values
        ((y == 0) | (rng.random(m) < 0.2)).astype(float),              # 8 discrete, relevant
    ]
    columns[4] = columns[0].copy()
    return np.column_stack(columns), y


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("seed", range(3))
def test_method_equals_reference(method, n_classes, seed):
    X, y = _mixed_data(seed, n_classes)
    codes = information_codes_ref(X)
    expected_ranking, expected_j = information_selection_ref(codes, y, None, method)
    out = getattr(information, method)(X, y, k=None)
    assert list(out.ranking) == expected_ranking
    np.testing.assert_allclose(out.steps["J"], expected_j, atol=1e-10, rtol=0)
    np.testing.assert_allclose(out.columns["J"][out.ranking], expected_j, atol=1e-10, rtol=0)
    expected_mi = [mutual_information_ref(c, y.tolist()) for c in codes]
    np.testing.assert_allclose(out.scores, expected_mi, atol=1e-10, rtol=0)
    np.testing.assert_array_equal(out.columns["step"][out.ranking], np.arange(1, X.shape[1] + 1))


@pytest.mark.parametrize("method", ["mifs", "mifs_u"])
@pytest.mark.parametrize("beta", [0.0, 0.5, 2.0])
def test_beta_equals_reference(method, beta):
    X, y = _mixed_data(11, 3)
    expected_ranking, expected_j = information_selection_ref(information_codes_ref(X), y, 6, method, beta)
    out = getattr(information, method)(X, y, k=6, beta=beta)
    assert list(out.ranking) == expected_ranking
    np.testing.assert_allclose(out.steps["J"], expected_j, atol=1e-10, rtol=0)


def test_beta_zero_is_mim():
    X, y = _mixed_data(4, 2)
    np.testing.assert_array_equal(information.mifs(X, y, beta=0.0).ranking, information.mim(X, y).ranking)


@pytest.mark.parametrize("discretization", ["equal_width", "equal_frequency"])
@pytest.mark.parametrize("method", ["mrmr", "jmi", "cmim"])
def test_binning_schemes_equal_reference(discretization, method):
    # the binning itself is tested in test_discretize; here: the method uses those codes
    X, y = _mixed_data(5, 3)
    codes, _, as_is = information_codes(X, discretization, 4)
    expected_ranking, expected_j = information_selection_ref(codes, y, 5, method)
    out = getattr(information, method)(X, y, k=5, discretization=discretization, n_bins=4)
    assert list(out.ranking) == expected_ranking
    np.testing.assert_allclose(out.steps["J"], expected_j, atol=1e-10, rtol=0)
    assert f"'{discretization}' with n_bins = 4" in out.notes[0]
    assert format_count(int(as_is.sum()), "discrete column") in out.notes[0]


def test_first_k_steps_are_the_start_of_the_full_ranking():
    X, y = _mixed_data(2, 3)
    for method in METHODS:
        full = getattr(information, method)(X, y)
        part = getattr(information, method)(X, y, k=4)
        np.testing.assert_array_equal(part.ranking, full.ranking[:4])
        np.testing.assert_array_equal(part.steps["J"], full.steps["J"][:4])
        assert np.isnan(part.columns["J"]).sum() == X.shape[1] - 4
        assert np.isnan(part.columns["step"]).sum() == X.shape[1] - 4


def test_constant_column_has_zero_information():
    X, y = _mixed_data(0, 2)
    for method in METHODS:
        out = getattr(information, method)(X, y)
        assert out.scores[5] == 0.0
        assert 5 in out.ranking
        assert any("1 column constant" in note for note in out.notes)
    # No special treatment: under mRMR a constant column (J = 0 - 0) comes before the
    # duplicate of a chosen feature (J = I(X;C) - H(X) < 0 when X is not a function of C).
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1], dtype=np.int32)
    f = np.array([0, 0, 0, 1, 1, 1, 1, 1], dtype=float)
    out = information.mrmr(np.column_stack([f, f, np.full(8, 7.0)]), y)
    assert list(out.ranking) == [0, 2, 1]
    assert out.steps["J"][1] == 0.0


# ---------------------------------------------------------------------------
# hand-made case: xor
# ---------------------------------------------------------------------------

def _xor_data():
    # 16 samples: every combination of four fair bits (n1, x1, n2, x2); C = x1 xor x2.
    # Each feature alone is independent of C (I = 0), as is every pair except (x1, x2).
    bits = np.array([[(i >> b) & 1 for b in range(4)] for i in range(16)], dtype=float)
    X = bits[:, [0, 1, 2, 3]]  # columns: n1, x1, n2, x2
    y = (bits[:, 1].astype(int) ^ bits[:, 3].astype(int)).astype(np.int32)
    return X, y


def test_xor_jmi_finds_the_pair_and_mim_does_not():
    X, y = _xor_data()
    # All I(X_k;C) = 0: MIM takes the lowest indices, n1, x1, n2 -- missing x2.
    mim = information.mim(X, y, k=3)
    assert list(mim.ranking) == [0, 1, 2]
    np.testing.assert_allclose(mim.steps["J"], [0, 0, 0], atol=TOL)
    # JMI: step 1 n1 (tie, lowest index); step 2: I(X_k,n1;C) = 0 for all -> x1;
    # step 3: x2 scores I(x2,n1;C) + I(x2,x1;C) = 0 + log 2, n2 scores 0.
    jmi = information.jmi(X, y, k=4)
    assert list(jmi.ranking) == [0, 1, 3, 2]
    np.testing.assert_allclose(jmi.steps["J"], [0, 0, LOG2, 0], atol=TOL)
    # CMIM's score is capped by I(X_k;C) = 0, so it cannot see the pair (FEAST's form).
    cmim = information.cmim(X, y, k=3)
    assert list(cmim.ranking) == [0, 1, 2]
    np.testing.assert_allclose(cmim.steps["J"], [0, 0, 0], atol=TOL)


def test_mifs_u_weights_by_relevant_share_of_entropy():
    # y balanced binary (8 samples); f0 = y except one sample; f1 = f0 (duplicate);
    # f2 = f0 on other samples. With f0 selected, MIFS-U subtracts
    # [I(f0;C)/H(f0)] I(f_k;f0) -- check the step-2 J of f1 against the hand formula.
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1], dtype=np.int32)
    f0 = np.array([0, 0, 0, 1, 1, 1, 1, 1], dtype=float)
    X = np.column_stack([f0, f0, 1 - f0])
    # H(f0) = H(3/8, 5/8); I(f0;C) = 2 log 2 - (5/8) log 5 (worked example of test_entropy);
    # I(f1;f0) = H(f0).  So J(f1) = I - [I / H] H = 0, and J of f2 (= 1 - f0, the same
    # information) is 0 too: a tie, resolved to the lower index f1.
    out = information.mifs_u(X, y, k=3)
    i_f0 = 2 * LOG2 - 0.625 * math.log(5)
    assert list(out.ranking) == [0, 1, 2]
    np.testing.assert_allclose(out.steps["J"][:2], [i_f0, 0.0], atol=TOL)
    # step 3: f2 minus the terms of f0 and f1, each [I/H] H = I: J = I - 2 I = -I
    np.testing.assert_allclose(out.steps["J"][2], -i_f0, atol=TOL)
    # MIFS with beta = 1 subtracts H(f0) per selected copy instead
    h_f0 = -(3 / 8) * math.log(3 / 8) - (5 / 8) * math.log(5 / 8)
    mifs = information.mifs(X, y, k=3)
    np.testing.assert_allclose(mifs.steps["J"], [i_f0, i_f0 - h_f0, i_f0 - 2 * h_f0], atol=TOL)
    # mRMR divides by |S|: J = I - H at step 2 and I - (H + H) / 2 at step 3
    mrmr = information.mrmr(X, y, k=3)
    np.testing.assert_allclose(mrmr.steps["J"], [i_f0, i_f0 - h_f0, i_f0 - h_f0], atol=TOL)


# ---------------------------------------------------------------------------
# engine details
# ---------------------------------------------------------------------------

def test_rank_by_tie_rule_equals_repeated_first_maximum():
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(1, 40))
        values = np.round(rng.normal(size=n), 1) if rng.random() < 0.7 else rng.normal(size=n)  # ties or none
        values += rng.choice([0.0, 1e-14, -1e-14, 1e-9], size=n)  # near-ties and real gaps
        remaining = list(range(n))
        expected = []
        while remaining:
            best = first_maximum(values[remaining])
            expected.append(remaining.pop(best))
        np.testing.assert_array_equal(rank_features(values, tolerance=TIE_TOLERANCE), expected)
        np.testing.assert_array_equal(rank_features(values, k=3, tolerance=TIE_TOLERANCE), expected[:3])


@pytest.mark.parametrize("method", METHODS)
def test_threads_do_not_change_the_result(method, parallel_everywhere):
    rng = np.random.default_rng(8)
    X = rng.normal(size=(600, 40)) + 0.5 * rng.integers(0, 3, 600)[:, None] * (rng.random(40) < 0.3)
    y = rng.integers(0, 3, 600).astype(np.int32)
    one = getattr(information, method)(X, y, k=12, n_threads=1)
    two = getattr(information, method)(X, y, k=12, n_threads=2)
    np.testing.assert_array_equal(one.ranking, two.ranking)
    np.testing.assert_array_equal(one.steps["J"], two.steps["J"])   # bitwise


def test_finds_informative_features_of_synthetic_data():
    # four class-shifted features (independent given the class) among 30; the rest noise
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 600).astype(np.int32)
    X = rng.normal(size=(600, 30))
    X[:, :4] += np.array([1.5, 1.2, 1.0, 0.8]) * (y[:, None] - 1)
    for method in ("mim", "mifs_u", "mrmr", "jmi", "cmim"):
        out = getattr(information, method)(X, y, k=4)
        assert set(out.ranking) == {0, 1, 2, 3}, method
    # MIFS with beta = 1 counts the redundancy the informative features share through
    # the class in full, and so takes noise after the first two -- the weakness that
    # motivated MIFS-U (Kwak & Choi 2002)
    out = information.mifs(X, y, k=4)
    assert list(out.ranking[:2]) == [0, 1]
    assert set(out.ranking[2:]) - {2, 3}


def test_one_class_is_an_error():
    X, _ = _mixed_data(0, 2)
    with pytest.raises(ValueError, match="^y: mrmr needs at least two classes"):
        information.mrmr(X, np.zeros(X.shape[0], dtype=np.int32))


# ---------------------------------------------------------------------------
# registry and API
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def wine():
    return fs.datasets.load("wine")


@pytest.mark.parametrize("method", METHODS)
def test_select_end_to_end_on_wine(wine, method):
    import matplotlib.pyplot as plt

    res = fs.select("class ~ .", wine, method=method, k=5)
    assert len(res.selected) == 5
    assert res.steps is not None and list(res.steps["feature"]) == res.selected
    assert {"step", "feature", "J", "MI"} <= set(res.steps.columns)
    text = str(res.summary(details=True))
    assert information.CRITERIA[method] in text
    assert "discretisation: 'mu_sigma'" in text
    assert "13 continuous columns; 0 discrete columns" in text
    assert {"MI", "J", "step"} <= set(res.scores.columns)
    np.testing.assert_array_equal(res.scores["score"], res.scores["MI"])
    assert res.scores.loc[res.selected[0], "J"] == res.scores.loc[res.selected[0], "MI"]
    ax = res.plot(kind="path")
    assert ax is not None
    plt.close("all")
    spec = get_method(method)
    assert spec.path_column == "J" and spec.score_name == "I(X;C)"
    assert ("greedy" in spec.capabilities) == (method != "mim")


def test_select_ranks_everything_without_k_and_uses_discrete_columns_as_they_are(wine):
    data = wine.copy()
    data["grade"] = (data["alcohol"] > 13).astype(int) + (data["proline"] > 1000).astype(int)
    res = fs.select("class ~ .", data, method="jmi")
    assert len(res.selected) == 14
    assert "13 continuous columns; 1 discrete column " in str(res.summary())


def test_select_with_equal_frequency_bins(wine):
    res = fs.select("class ~ .", wine, method="mrmr", k=3, discretization="equal_frequency", n_bins=5)
    assert res.params["discretization"] == "equal_frequency" and res.params["n_bins"] == 5
    assert "'equal_frequency' with n_bins = 5" in str(res.summary())


def test_feature_selector_in_a_pipeline(wine):
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline

    X = wine.drop(columns="class")
    y = wine["class"]
    selector = fs.FeatureSelector(method="jmi", k=5).fit(X, y)
    expected = fs.select("class ~ .", wine, method="jmi", k=5).selected
    assert list(selector.get_feature_names_out()) == sorted(expected, key=list(X.columns).index)
    model = make_pipeline(fs.FeatureSelector(method="mifs", k=4, params={"beta": 0.5}), KNeighborsClassifier(1))
    assert model.fit(X, y).score(X, y) > 0.8


@pytest.mark.parametrize("params, name", [
    ({"method": "mifs", "beta": -1}, "beta"),
    ({"method": "mifs_u", "beta": float("nan")}, "beta"),
    ({"method": "mifs", "beta": True}, "beta"),
    ({"method": "mrmr", "discretization": "foo"}, "discretization"),
    ({"method": "jmi", "discretization": "none"}, "discretization"),
    ({"method": "cmim", "discretization": "equal_width"}, "n_bins"),
    ({"method": "mim", "discretization": "equal_frequency", "n_bins": 1}, "n_bins"),
    ({"method": "mim", "discretization": "equal_width", "n_bins": 2.5}, "n_bins"),
    ({"method": "mrmr", "n_bins": 5}, "n_bins"),  # n_bins with the mu/sigma scheme
])
def test_parameter_errors_name_the_parameter(wine, params, name):
    with pytest.raises(ValueError, match=rf"^{name}:"):
        fs.select("class ~ .", wine, k=3, **params)


def test_beta_is_only_a_parameter_of_mifs_and_mifs_u(wine):
    with pytest.raises(TypeError, match="unknown parameter"):
        fs.select("class ~ .", wine, method="mrmr", k=3, beta=0.5)


def test_list_methods_shows_the_information_methods():
    from fstools.api.catalogue import list_methods

    rows = list_methods().set_index("name")
    for method in METHODS:
        assert method in rows.index
    assert "beta=1.0" in rows.loc["mifs", "parameters"]
    assert "beta" not in rows.loc["mrmr", "parameters"]
    assert "discretization='mu_sigma'" in rows.loc["cmim", "parameters"]


# ---------------------------------------------------------------------------
# compact codes: int8 / int16 codes all the way to the kernels
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("method", METHODS)
def test_rankings_identical_for_every_code_dtype(method):
    X, y = _mixed_data(3, 3)
    codes, levels, _ = information_codes(X)
    assert codes.dtype == np.int8
    want = information.greedy_information_selection(codes.astype(np.int32), levels, y, method)
    for dtype in (np.int8, np.int16, np.int64):   # int64: converted to the smallest code type
        got = information.greedy_information_selection(codes.astype(dtype), levels, y, method)
        np.testing.assert_array_equal(got[0], want[0])
        for key in want[1]:
            assert np.array_equal(got[1][key], want[1][key])   # bitwise identical
        assert np.array_equal(got[2], want[2])
    for n_threads in (1, 2):
        got = information.greedy_information_selection(codes, levels, y, method, n_threads=n_threads)
        np.testing.assert_array_equal(got[0], want[0])
        assert np.array_equal(got[1]["J"], want[1]["J"])


@pytest.mark.parametrize("method, discretization, n_bins, dtype", [
    ("mrmr", "mu_sigma", None, np.int8), ("jmi", "mu_sigma", None, np.int8),
    ("cmim", "equal_frequency", 4, np.int8), ("mifs", "equal_width", 200, np.int16)])
def test_methods_pass_compact_codes_to_the_kernels(monkeypatch, method, discretization, n_bins, dtype):
    # the codes reach every kernel call in their compact type: no int32 or float64 copy
    X, y = _mixed_data(8, 2)
    seen = []
    for module, name in ((ent, "pair_information_terms"), (ent, "feature_class_information"),
                         (ent, "feature_entropies"), (bitcount, "counting_kernel")):
        original = getattr(module, name)

        def spy(codes, *args, _original=original, **kwargs):
            seen.append(codes.dtype)
            return _original(codes, *args, **kwargs)
        monkeypatch.setattr(module, name, spy)
    out = getattr(information, method)(X, y, k=5, discretization=discretization, n_bins=n_bins)
    assert seen and set(seen) == {np.dtype(dtype)}
    codes, _, _ = information_codes(X, discretization, n_bins)
    expected_ranking, expected_j = information_selection_ref(codes, y, 5, method)
    assert list(out.ranking) == expected_ranking
    np.testing.assert_allclose(out.steps["J"], expected_j, atol=1e-10, rtol=0)

"""Lazy CMIM (Fleuret 2004) gives the picks and scores of the eager update, bit for bit.

Fleuret, "Fast binary feature selection with conditional mutual information" (JMLR 5,
2004), section 3.3: each candidate keeps a partial minimum of I(X_k;C|X_s) over the
selected features it has been updated against and the index of the last of them; a
candidate is brought up to date only while its partial score can still beat the best
complete score of the step (:func:`fstools._ext._entropy.lazy_cmim`).  The reference is
the eager update of every candidate at every step (``lazy=False`` of
:func:`fstools.methods.information.greedy_information_selection`); the lazy picks and
scores are also checked against the brute-force pure-Python CMIM of
``tests/references/information.py`` (every criterion recomputed from counts at every
step).  The data are built to be hard for a lazy scheme: exact ties (duplicated and relabelled
columns), constant columns, few samples and k = all features.
"""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from references.information import codes_with_ties, information_selection_ref

from fstools.methods.information import greedy_information_selection


def _eager_and_lazy(codes, levels, y, k):
    eager = greedy_information_selection(codes, levels, y, "cmim", k=k, lazy=False)
    lazy = greedy_information_selection(codes, levels, y, "cmim", k=k, lazy=True)
    return eager, lazy


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), m=st.integers(2, 60), n=st.integers(1, 30),
       max_levels=st.integers(1, 5), n_classes=st.integers(2, 4), all_features=st.booleans())
def test_lazy_equals_eager_property(seed, m, n, max_levels, n_classes, all_features):
    rng = np.random.default_rng(seed)
    codes, levels = codes_with_ties(rng, m, n, max_levels)
    y = rng.integers(0, n_classes, m).astype(np.int32)
    y[:2] = [0, 1]
    k = n if all_features else int(rng.integers(1, n + 1))
    (r_eager, s_eager, rel_eager), (r_lazy, s_lazy, rel_lazy) = _eager_and_lazy(codes, levels, y, k)
    np.testing.assert_array_equal(r_lazy, r_eager)
    assert s_lazy["J"].tobytes() == s_eager["J"].tobytes()
    assert rel_lazy.tobytes() == rel_eager.tobytes()


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_lazy_equals_eager_on_sparse_binary_columns(seed):
    # Dorothea-like: mostly-zero 0/1 columns, many of them equal (all zero), a few relevant.
    rng = np.random.default_rng(seed)
    m, n = 120, 200
    y = (rng.random(m) < 0.2).astype(np.int32)
    y[:2] = [0, 1]
    X = rng.random((m, n)) < 0.02
    X[:, :8] |= (y[:, None] == 1) & (rng.random((m, 8)) < 0.6)
    codes = np.ascontiguousarray(X.T.astype(np.int8))
    levels = np.full(n, 2, dtype=np.int32)
    (r_eager, s_eager, _), (r_lazy, s_lazy, _) = _eager_and_lazy(codes, levels, y, 40)
    np.testing.assert_array_equal(r_lazy, r_eager)
    assert s_lazy["J"].tobytes() == s_eager["J"].tobytes()


def test_lazy_updates_few_candidates_but_picks_the_same():
    # One strongly relevant feature and its duplicates: after it is chosen the duplicates'
    # conditional information is 0, and the lazy scheme must not keep their stale bound.
    rng = np.random.default_rng(0)
    m = 400
    y = rng.integers(0, 2, m).astype(np.int32)
    strong = np.where(rng.random(m) < 0.9, y, 1 - y).astype(np.int8)
    weak = np.where(rng.random(m) < 0.65, y, 1 - y).astype(np.int8)
    noise = rng.integers(0, 3, (20, m)).astype(np.int8)
    codes = np.ascontiguousarray(np.vstack([noise[:5], strong, strong, weak, noise[5:], strong]))
    levels = np.array([3] * 5 + [2, 2, 2] + [3] * 15 + [2], dtype=np.int32)
    (r_eager, s_eager, _), (r_lazy, s_lazy, _) = _eager_and_lazy(codes, levels, y, codes.shape[0])
    np.testing.assert_array_equal(r_lazy, r_eager)
    assert s_lazy["J"].tobytes() == s_eager["J"].tobytes()
    assert r_lazy[0] == 5 and r_lazy[1] == 7       # the strong feature, then the weak one (not a copy)
    assert s_lazy["J"][2:].max() < s_lazy["J"][1]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), m=st.integers(2, 40), n=st.integers(1, 10))
def test_lazy_equals_the_brute_force_reference(seed, m, n):
    rng = np.random.default_rng(seed)
    codes, levels = codes_with_ties(rng, m, n, 3)
    y = rng.integers(0, 3, m).astype(np.int32)
    y[:2] = [0, 1]
    ranking, steps, _ = greedy_information_selection(codes, levels, y, "cmim", k=n, lazy=True)
    expected_ranking, expected_j = information_selection_ref(codes, y, n, "cmim")
    assert list(ranking) == expected_ranking
    np.testing.assert_allclose(steps["J"], expected_j, atol=1e-10, rtol=0)

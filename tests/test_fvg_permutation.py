"""The permutation kernel of the FVG modularity against the slow paths it replaces.

``_fvg.permuted_modularity`` sorts each column and finds its neighbour runs once, then
counts every permutation of the classes by prefix sums.  The references:

* the sweeps (``_modularity_parts_sweep``, forced by a class-table cell limit of 0), run
  on each permuted class vector: the kernel must agree bit for bit;
* the brute-force O(m^2) graph of ``tests/references/cmqfs.py`` (explicit adjacency, no
  fstools code) for the edge count, within-class edges and degree sums;
* the permutation null as computed before the kernel: ``modularity_scores`` once per
  permuted response.
"""
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from references.cmqfs import modularity_ref

import fstools as fs
from fstools._ext import _fvg
from fstools.methods.cmqfs import modularity_scores, permuted_modularity_scores
from fstools.methods.permutation import permutation_indices, permutation_null, permutation_p_values
from fstools.methods.registry import get_method

ROUNDING_VALUES = [2.0 ** 54, 2.0 ** 54 + 4, 2.0 ** 54 - 2, 2.0 ** 53, 0.0, 1.0, 2.0, 3.0, -1.0,
                   1e308, -1e308, 5e-324, -5e-324, 1e-308]


class sweeps_only:
    """Within the block every modularity is computed by the sweeps (the pre-kernel path)."""

    def __enter__(self):
        _fvg._set_class_table_cell_limit(0)

    def __exit__(self, *exc):
        _fvg._set_class_table_cell_limit(1 << 24)


def _sweep_null(X, y, n_classes, permutations):
    """Q of every column for every permutation, by the sweeps on each permuted class vector."""
    out = np.empty((len(permutations), X.shape[1]))
    with sweeps_only():
        for b, permutation in enumerate(permutations):
            permuted = np.ascontiguousarray(y[permutation])
            for f in range(X.shape[1]):
                out[b, f] = _fvg.feature_modularity(np.ascontiguousarray(X[:, f]), permuted, n_classes)
    return out


@st.composite
def matrix_classes_permutations(draw, max_samples=40):
    """Columns with heavy ties (few distinct values, several scales), some constant; 2-5
    classes of any sizes (a class of one sample included); a few permutations."""
    m = draw(st.integers(min_value=2, max_value=max_samples))
    n_features = draw(st.integers(min_value=1, max_value=4))
    seed = draw(st.integers(min_value=0, max_value=2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    columns = []
    for _ in range(n_features):
        kind = draw(st.sampled_from(["ties", "continuous", "constant"]))
        if kind == "ties":
            n_values = draw(st.integers(min_value=1, max_value=m))
            scale = draw(st.sampled_from([1.0, 0.1, 1e-3, 1e6]))
            columns.append(rng.integers(0, n_values, size=m) * scale)
        elif kind == "continuous":
            columns.append(rng.standard_normal(m))
        else:
            columns.append(np.full(m, 2.5))
    X = np.column_stack(columns)
    n_classes = draw(st.integers(min_value=2, max_value=min(m, 5)))
    y = np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, size=m - n_classes)])
    y = rng.permutation(y).astype(np.int32)
    n_permutations = draw(st.integers(min_value=1, max_value=6))
    permutations = np.stack([rng.permutation(m) for _ in range(n_permutations)]).astype(np.int32)
    return X, y, n_classes, permutations


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matrix_classes_permutations())
def test_kernel_equals_the_sweeps_bit_for_bit(data):
    X, y, n_classes, permutations = data
    np.testing.assert_array_equal(_fvg.permuted_modularity(X, y, n_classes, permutations),
                                  _sweep_null(X, y, n_classes, permutations))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matrix_classes_permutations(max_samples=25))
def test_kernel_equals_the_brute_force_graph(data):
    """Independent of every fstools kernel: the explicit O(m^2) adjacency matrix."""
    X, y, n_classes, permutations = data
    null = _fvg.permuted_modularity(X, y, n_classes, permutations)
    for b, permutation in enumerate(permutations):
        for f in range(X.shape[1]):
            expected = modularity_ref(X[:, f], y[permutation])
            np.testing.assert_allclose(null[b, f], expected, rtol=1e-12, atol=1e-15)


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=3, max_value=20), st.integers(min_value=0, max_value=2 ** 32 - 1))
def test_distances_equal_after_rounding_take_the_sweeps(m, seed):
    """Tie runs of several values (equal distances only after rounding) are not of the linear
    form: each permutation then runs the sweeps, with the same result."""
    rng = np.random.default_rng(seed)
    X = rng.choice(ROUNDING_VALUES, size=(m, 2))
    n_classes = int(rng.integers(2, 4))
    y = rng.permutation(np.concatenate([np.arange(n_classes),
                                        rng.integers(0, n_classes, size=m - n_classes)])).astype(np.int32)
    permutations = np.stack([rng.permutation(m) for _ in range(3)]).astype(np.int32)
    np.testing.assert_array_equal(_fvg.permuted_modularity(X, y, n_classes, permutations),
                                  _sweep_null(X, y, n_classes, permutations))


def test_sweeps_inside_the_kernel_equal_the_linear_path():
    """Above the table limit the kernel runs the sweeps per permutation: the same numbers."""
    rng = np.random.default_rng(5)
    X = np.round(rng.standard_normal((300, 3)), 1)
    y = rng.integers(0, 3, size=300).astype(np.int32)
    permutations = permutation_indices(300, 5, 0)
    linear = _fvg.permuted_modularity(X, y, 3, permutations)
    with sweeps_only():
        swept = _fvg.permuted_modularity(X, y, 3, permutations)
    np.testing.assert_array_equal(linear, swept)


@pytest.mark.parametrize("n_classes, balanced", [(2, False), (2, True), (3, False), (5, False)])
def test_larger_data_equal_the_sweeps(n_classes, balanced):
    rng = np.random.default_rng(n_classes)
    m = 2000
    X = rng.standard_normal((m, 4))
    X[:, 1] = np.round(X[:, 1], 1)
    X[:, 2] = rng.integers(0, 3, size=m)
    y = (np.arange(m) % n_classes if balanced else rng.integers(0, n_classes, size=m)).astype(np.int32)
    X[:, 3] += y
    permutations = permutation_indices(m, 4, 1)
    np.testing.assert_array_equal(_fvg.permuted_modularity(X, y, n_classes, permutations, 2),
                                  _sweep_null(X, y, n_classes, permutations))


def test_wrapper_equals_modularity_scores_per_permutation(parallel_everywhere):
    """NaN for constant columns, any layout, any thread count: row b is modularity_scores of
    the b-th permuted response (here computed by the sweeps)."""
    rng = np.random.default_rng(2)
    X = np.asfortranarray(np.round(rng.standard_normal((150, 5)), 1))
    X[:, 2] = 1.0
    y = rng.integers(0, 2, size=150).astype(np.int32)
    permutations = permutation_indices(150, 7, 3)
    with sweeps_only():
        expected = np.stack([modularity_scores(X, np.ascontiguousarray(y[p]), 2) for p in permutations])
    assert np.isnan(expected[:, 2]).all()
    for n_threads in (1, 2):
        for layout in (X, np.ascontiguousarray(X), X[:, ::-1][:, ::-1]):
            np.testing.assert_array_equal(permuted_modularity_scores(layout, y, 2, permutations, n_threads),
                                          expected)


def test_permutation_test_p_values_equal_the_slow_path():
    """The null and p-values of ``test='permutation'`` for cmqfs are exactly those of the former
    path (modularity_scores rerun per permuted response) and of fs.select."""
    rng = np.random.default_rng(4)
    m = 120
    y = rng.integers(0, 2, size=m).astype(np.int32)
    X = np.round(rng.standard_normal((m, 6)), 1)
    X[:, :2] += y[:, None]
    spec = get_method("cmqfs")
    indices = permutation_indices(m, 99, 11)
    fast = permutation_null(spec, X, y, spec.defaults(), indices=indices)
    with sweeps_only():
        observed = modularity_scores(X, y, 2)
        slow = np.stack([modularity_scores(X, np.ascontiguousarray(y[p]), 2) for p in indices])
    np.testing.assert_array_equal(fast.observed, observed)
    np.testing.assert_array_equal(fast.null, slow)
    expected = permutation_p_values(observed, slow, True)
    np.testing.assert_array_equal(permutation_p_values(fast.observed, fast.null, True), expected)
    assert expected[:2].max() < 0.05 and expected[2:].min() > 0.01  # the planted columns
    names = [f"x{j}" for j in range(X.shape[1])]
    frame = pd.DataFrame(X, columns=names)
    frame["class"] = np.where(y == 1, "b", "a")
    res = fs.select("class ~ .", frame, method="cmqfs", test="permutation", n_permutations=99,
                    permutation_seed=11)
    np.testing.assert_array_equal(res.scores["p_perm"].loc[names].to_numpy(), expected)


def test_bad_permutations_are_refused():
    X = np.arange(12.0).reshape(6, 2)
    y = np.array([0, 1, 0, 1, 0, 1], dtype=np.int32)
    with pytest.raises(ValueError, match="permutations: row 1 is not a permutation of 0..5"):
        _fvg.permuted_modularity(X, y, 2, np.array([[0, 1, 2, 3, 4, 5], [0, 0, 2, 3, 4, 5]], dtype=np.int32))
    with pytest.raises(ValueError, match="permutations: row 0 is not a permutation"):
        _fvg.permuted_modularity(X, y, 2, np.array([[0, 1, 2, 3, 4, 6]], dtype=np.int32))
    with pytest.raises(ValueError, match="permutations"):
        _fvg.permuted_modularity(X, y, 2, np.zeros((2, 5), dtype=np.int32))
    with pytest.raises(ValueError, match="y"):
        _fvg.permuted_modularity(X, y + 1, 2, np.zeros((0, 6), dtype=np.int32))
    assert _fvg.permuted_modularity(X, y, 2, np.zeros((0, 6), dtype=np.int32)).shape == (0, 2)

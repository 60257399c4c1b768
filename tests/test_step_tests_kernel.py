"""CMQFS step tests through the permuted-modularity kernel (fstools.methods.step_tests).

The step tests compute the modularity Q of every feature under a block of permutations of the
classes in one call of :func:`fstools.methods.cmqfs.permuted_modularity_scores`.  Reference: the
per-permutation path, :func:`fstools.methods.cmqfs.modularity_scores` called on ``y[permutation]``
for each permutation in turn (what the step tests did before); every number of the step tests must
be bitwise the same either way.  The per-permutation path is itself checked against the edge-by-edge
modularity of ``references.cmqfs`` in tests/test_step_tests.py.
"""
import numpy as np
import pytest

import fstools.methods.step_tests as step_tests_module
from fstools.methods.cmqfs import modularity_scores
from fstools.methods.registry import get_method
from fstools.methods.step_tests import step_tests

ARRAYS = ("ranking", "observed", "p_step", "p_candidate", "n_strata", "shared_share", "movable", "tested",
          "null_best", "null_candidate")


def _per_permutation_modularity(X, y, n_classes, permutations, n_threads=1):
    """Q of every column for each permutation, one modularity_scores call per permutation."""
    return np.stack([modularity_scores(X, np.ascontiguousarray(y[permutation]), n_classes, n_threads)
                     for permutation in permutations])


def _data(seed, n=60, p=6, n_classes=3, ties=False, constant=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = rng.integers(0, n_classes, size=n).astype(np.int32)
    X[:, 0] += 0.8 * y
    X[:, 1] += 0.4 * y
    if ties:   # few distinct values: many equal distances in the feature vector graphs
        X = np.round(X)
    if constant:
        X[:, -1] = 2.5
    return X, y


@pytest.mark.parametrize("seed, n_classes, ties, constant, n_threads",
                         [(0, 2, False, False, 1), (1, 3, False, False, 1), (2, 3, True, False, 1),
                          (3, 4, True, True, 1), (4, 3, False, True, 2)])
def test_kernel_path_is_bitwise_the_per_permutation_path(monkeypatch, seed, n_classes, ties, constant, n_threads):
    X, y = _data(seed, n_classes=n_classes, ties=ties, constant=constant)
    spec = get_method("cmqfs")
    kernel = step_tests(spec, X, y, {"beta": 0.3}, X.shape[1], n_permutations=49, random_state=seed,
                        n_threads=n_threads)
    monkeypatch.setattr(step_tests_module, "permuted_modularity_scores", _per_permutation_modularity)
    loop = step_tests(spec, X, y, {"beta": 0.3}, X.shape[1], n_permutations=49, random_state=seed,
                      n_threads=n_threads)
    assert kernel.tested.any() and np.isfinite(kernel.p_step).any()   # something was compared
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(kernel, name), getattr(loop, name), err_msg=name, strict=True)
    assert kernel.notes == loop.notes and kernel.statistic == loop.statistic


def test_kernel_scores_whole_blocks_of_permutations(monkeypatch):
    """Every Q of the step tests comes from the kernel, a block of permutations per call."""
    X, y = _data(5)
    calls = []
    kernel = step_tests_module.permuted_modularity_scores

    def counting(X, y, n_classes, permutations, n_threads=1):
        calls.append(permutations.shape[0])
        return kernel(X, y, n_classes, permutations, n_threads)

    monkeypatch.setattr(step_tests_module, "permuted_modularity_scores", counting)
    tests = step_tests(get_method("cmqfs"), X, y, {"beta": 0.3}, 3, n_permutations=19, random_state=0)
    assert tests.tested.all() and np.isfinite(tests.p_step).all()
    # per step: one call for its 19 permutations and one for the data (the identity: the observed
    # value); from step 2 one more for the data's ranges, which normalise Q and the relevant independency
    assert sorted(calls) == [1] * 5 + [19] * 3

"""The dense Fisher score (:func:`fstools.methods.similarity.fisher_scores` and the ``fisher`` method).

The scores are checked against ``references.similarity.fisher_score_ref``; 1 and 2 threads,
blocks of columns and class codes no sample uses give bitwise-identical results.  The per-class
moments the score is built from (:func:`fstools._ext._one_pass.column_moments`) are tested in
``tests/test_one_pass.py``.
"""
import math

import numpy as np
from references.similarity import fisher_score_ref

from fstools.methods.similarity import fisher, fisher_scores


def test_fisher_scores_dense_equal_reference_and_thread_invariant():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 37))
    y = rng.integers(0, 4, size=400)
    X[:, 3] += 2 * y                       # informative
    X[:, 5] = 1.5                          # constant: 0
    X[:, 6] = np.where(y == 1, 0.1, 0.3)   # constant within every class, different means: inf
    one = fisher_scores(X, y, n_threads=1)
    two = fisher_scores(X, y, n_threads=2)
    for a, b in zip(one, two):
        assert a.tobytes() == b.tobytes()
    np.testing.assert_allclose(one[0], fisher_score_ref(X, y), rtol=1e-10)
    assert one[0][5] == 0.0 and one[0][6] == math.inf


def test_fisher_method_threads_bitwise_identical(parallel_everywhere):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(300, 25))
    y = rng.integers(0, 3, size=300).astype(np.int32)
    one = fisher(X, y, None, 1)
    two = fisher(X, y, None, 2)
    assert np.array_equal(one.ranking, two.ranking)
    for name in one.columns:
        assert np.asarray(one.columns[name]).tobytes() == np.asarray(two.columns[name]).tobytes()


def test_fisher_scores_column_blocks_and_unused_codes_give_the_same_bits(monkeypatch):
    """Blocks of columns (a small FISHER_MOMENT_CELLS) and codes no sample uses change nothing."""
    from fstools.methods import similarity

    rng = np.random.default_rng(7)
    X = rng.normal(size=(200, 23))
    y = rng.integers(0, 3, size=200)
    whole = fisher_scores(X, y)
    monkeypatch.setattr(similarity, "FISHER_MOMENT_CELLS", 7)
    blocked = fisher_scores(X, y, n_threads=2)
    gapped = fisher_scores(X, 2 * y, n_threads=2)          # codes 1 and 3 unused
    for a, b, c in zip(whole, blocked, gapped):
        assert a.tobytes() == b.tobytes() == c.tobytes()

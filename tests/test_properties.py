"""Property tests (hypothesis) of the relevance kernels.

* permuting the rows (samples with their labels) leaves the relevance scores unchanged;
* permuting the columns permutes the scores the same way;
* scaling a feature by a positive constant leaves the CMQFS relevance (modularity Q) unchanged.

The data are continuous (drawn with NumPy from a hypothesis seed), so no two distances tie: the
feature vector graph breaks ties by row index (documented in ``modularity_scores``), and with ties a
row permutation may legitimately change the graph.  Modularity against the brute-force reference and
the MI/CMI identities are in tests/test_cmqfs.py, tests/test_fvg.py and tests/test_information.py.
"""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fstools.methods.cmqfs import modularity_scores
from fstools.methods.registry import get_method

RELEVANCE_METHODS = ["fisher", "mim", "cmqfs"]   # cmqfs: its Q column (relevance)


@st.composite
def problems(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    m = draw(st.integers(6, 40))
    n = draw(st.integers(1, 6))
    n_classes = draw(st.integers(2, 4))
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, m).astype(np.int32)
    y[:n_classes] = np.arange(n_classes)                       # every class present
    shift = rng.normal(size=n) * (rng.random(n) < 0.5)
    X = rng.normal(size=(m, n)) + shift * y[:, None]            # some features depend on the class
    return X, y, n_classes, rng


def relevance(method, X, y):
    out = get_method(method).function(np.ascontiguousarray(X), y, None, 1)
    return np.asarray(out.columns["Q"] if method == "cmqfs" else out.scores, dtype=np.float64)


@settings(max_examples=60, deadline=None)
@given(problems())
def test_modularity_invariant_to_row_permutation(problem):
    X, y, n_classes, rng = problem
    rows = rng.permutation(len(y))
    np.testing.assert_allclose(modularity_scores(X[rows], y[rows], n_classes),
                               modularity_scores(X, y, n_classes), rtol=0, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(problems(), st.sampled_from(RELEVANCE_METHODS))
def test_relevance_invariant_to_row_permutation(problem, method):
    X, y, _, rng = problem
    rows = rng.permutation(len(y))
    np.testing.assert_allclose(relevance(method, X[rows], y[rows]), relevance(method, X, y),
                               rtol=1e-10, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(problems(), st.sampled_from(RELEVANCE_METHODS))
def test_permuting_columns_permutes_the_scores(problem, method):
    X, y, _, rng = problem
    columns = rng.permutation(X.shape[1])
    np.testing.assert_allclose(relevance(method, X[:, columns], y), relevance(method, X, y)[columns],
                               rtol=1e-10, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(problems(), st.lists(st.floats(1e-3, 1e3), min_size=6, max_size=6))
def test_positive_scaling_leaves_modularity_unchanged(problem, factors):
    X, y, n_classes, _ = problem
    scale = np.asarray(factors[: X.shape[1]])
    expected = modularity_scores(X, y, n_classes)
    np.testing.assert_allclose(modularity_scores(X * scale, y, n_classes), expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(relevance("cmqfs", X * scale, y), expected, rtol=0, atol=1e-12)


def test_scaling_changes_the_data_but_not_the_relevance():
    # A hand-checked case: the scaled data still rank the class-shifted feature first, with the same Q.
    rng = np.random.default_rng(3)
    y = np.repeat(np.arange(2, dtype=np.int32), 15)
    X = rng.normal(size=(30, 3)) + np.array([1.5, 0.0, 0.5]) * y[:, None]
    q = modularity_scores(X, y, 2)
    assert q[0] > q[1]                                  # the class-shifted feature is more relevant
    np.testing.assert_allclose(modularity_scores(X * [7.0, 0.01, 300.0], y, 2), q, rtol=0, atol=1e-12)

"""Every registered method against an independent reference, on one set of awkward data.

The idea of R's praznik, which checks every native method against a pure implementation: the
table ``REFERENCES`` maps every name of :func:`fstools.methods.registry.registered_methods` to
its reference (a function of ``tests/references/``, written from the paper and sharing no code
with fstools, or an established library), says how both are called and how they are compared;
:func:`test_every_registered_method_has_a_reference` fails when a method is registered without
an entry (or an entry outlives its method).

The shared data (:func:`shared_data`) are small (60 rows x 8 columns) and awkward on purpose:
values rounded to one decimal (ties), an integer column with three values, an exact duplicate
of a column and a constant column; two or three classes, a binary class for the streaming
methods, three 0/1 labels for the multi-label ones, non-negative counts for chi2.  The
conventions of fstools are part of the expected answer: ties go to the lowest column index,
constant columns rank last (where the method documents it), and a method whose scores come out
of floating-point linear algebra (eigenvectors, iterative solvers) may order two features whose
reference scores agree within the entry's tolerance either way -- the same tolerance the
scores are compared with, and only between non-constant columns.  (On these data the
tolerance is used for a duplicated column and its original only: the authors' BAHSIC
elimination breaks their tie by rounding, the DFS row norms of the two differ in the last
bits in both implementations, and so do scikit-learn's ``r_regression`` values of the two.)  Where a method ranks by its own scores and two of them are
exactly equal, the tie rule is checked on those numbers directly (:func:`assert_tie_rule`).
Call conventions and tolerances are those of the method's own test file (named in each entry).
"""
import math
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest
from references.cmqfs import cmqfs_ref, modularity_ref
from references.discriminant import (bahsic_ref, dfs_ref, standardise_ref, trace_ratio_ref, trace_ratio_weights_ref,
                                     unbiased_hsic_ref)
from references.information import information_codes_ref, information_selection_ref, mutual_information_ref
from references.multilabel import (cmfs_ref, elc_ref, gamma_star_ref, label_rbf_ref, llsf_ref, ml_fisher_ref, ml_mi_ref,
                                   ml_mifs_ref)
from references.passive_aggressive import ONLINE_VARIANTS, online_pa_ref
from references.similarity import fisher_score_ref, laplacian_score_ref, relieff_ref, rrelieff_ref
from references.statistical import chi2_ref
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import chi2 as sklearn_chi2
from sklearn.feature_selection import f_classif, f_regression, r_regression

from fstools.methods.registry import get_method, registered_methods

SEEDS = range(3)
DUPLICATE, ORIGINAL, CONSTANT = 4, 1, 6


# ---------------------------------------------------------------------------------------- the data

def shared_data(seed, m=60, d=8):
    """(X, y, y_binary, Y, counts): ties, an integer column, a duplicated and a constant column."""
    rng = np.random.default_rng(seed)
    n_classes = 2 + seed % 2
    y = rng.integers(0, n_classes, m).astype(np.int32)
    y[:n_classes] = np.arange(n_classes)                        # every class present
    X = rng.normal(size=(m, d)) + 0.8 * y[:, None] * (rng.random(d) < 0.5)
    X[:, 0] += 0.8 * y                                          # at least one relevant column
    X = np.round(X, 1)                                          # ties
    X[:, 2] = rng.integers(0, 3, m)                             # discrete, three values
    X[:, DUPLICATE] = X[:, ORIGINAL]                            # an exact duplicate
    X[:, CONSTANT] = 2.0                                        # a constant column
    y_binary = (y == 0).astype(np.int32)                        # streaming methods are binary
    Y = np.column_stack([y == 0, X[:, 3] + 0.5 * rng.normal(size=m) > 0, rng.random(m) < 0.4]).astype(np.int64)
    Y[0], Y[1] = 1, 0                                           # both values in every label
    counts = X - X.min(axis=0)                                  # non-negative; the constant column is all 0
    # A continuous response (methods for continuous responses), rounded: ties.
    y_continuous = np.round(X[:, 0] - 0.5 * X[:, 3] + np.random.default_rng(seed + 100).normal(size=m), 1)
    return {"X": X, "y": y, "y_binary": y_binary, "Y": Y, "counts": counts, "y_continuous": y_continuous}


def constant_columns(X):
    return np.ptp(X, axis=0) == 0


def order(scores, constant, higher_is_better=True):
    """Column indices by (constant last, score best first, index): the documented ranking rule."""
    scores = np.asarray(scores, dtype=float)
    key = -scores if higher_is_better else scores
    return [int(j) for j in np.lexsort((np.arange(scores.size), key, constant))]


# ---------------------------------------------------------------------------------------- the table

@dataclass
class Expected:
    """What the reference says: the ranking, the scores and further (name, actual getter, value) checks."""

    ranking: list
    scores: np.ndarray | None = None
    checks: list = field(default_factory=list)      # (name, getter(out), expected, rtol, atol)
    tie_scores: np.ndarray | None = None            # scores that judge near-ties (default: scores)


@dataclass(frozen=True)
class Entry:
    """How one method is checked.

    reference : the independent function (in ``tests/references/`` or a library) behind ``expected``
    inputs : which of :func:`shared_data`'s arrays are ``X`` and ``y`` for the method
    k : passed to the method
    params : passed to the method on top of its registered defaults (the reference gets the same values)
    expected : ``expected(X, y) -> Expected``, calling the reference
    rtol, atol : score tolerance (``atol`` relative to the largest finite reference score when
        ``scaled_atol``)
    ranking_tolerance : 0 = the ranking must equal the reference's exactly; > 0 = non-constant
        columns whose reference scores agree within it (relative to the largest) may swap
    ranked_by_scores : the method ranks by its own ``scores``; then columns whose scores are exactly
        equal must come in column order (the tie rule, checked on the method's own numbers)
    where : the test file whose call conventions and tolerances the entry follows
    """

    reference: Callable
    inputs: tuple
    k: int | None
    expected: Callable
    params: dict = field(default_factory=dict)
    rtol: float = 1e-10
    atol: float = 1e-12
    scaled_atol: bool = False
    ranking_tolerance: float = 0.0
    exact_scores: bool = False
    ranked_by_scores: bool = True
    where: str = ""


def information_entry(method):
    def expected(X, y):
        codes = information_codes_ref(X)
        ranking, J = information_selection_ref(codes, y, None, method)
        mi = np.array([mutual_information_ref(c, y.tolist()) for c in codes])
        return Expected(ranking, mi, checks=[("steps J", lambda out: out.steps["J"], J, 0.0, 1e-10)])
    return Entry(information_selection_ref, ("X", "y"), None, expected, rtol=0.0, atol=1e-10,
                 ranked_by_scores=False, where="test_information.py::test_method_equals_reference")


def cmqfs_expected(X, y):
    constant = constant_columns(X)
    q = np.array([math.nan if constant[j] else modularity_ref(X[:, j], y) for j in range(X.shape[1])])
    return Expected(cmqfs_ref(X, y, k=6), q)


def fisher_expected(X, y):
    scores = fisher_score_ref(X, y)
    return Expected(order(scores, constant_columns(X)), scores)


def laplacian_expected(X, y):
    scores = laplacian_score_ref(X, 5, 1.0)
    return Expected(order(scores, constant_columns(X), higher_is_better=False), scores)


def relieff_expected(X, y):
    scores, hit, miss = relieff_ref(X, y, 10)
    return Expected(order(scores, constant_columns(X)), scores,
                    checks=[("near_hit", lambda out: out.columns["near_hit"], hit, 1e-10, 1e-13),
                            ("near_miss", lambda out: out.columns["near_miss"], miss, 1e-10, 1e-13)])


def chi2_expected(X, y):
    scores = chi2_ref(X, y)
    nonzero = X.sum(axis=0) > 0                   # scikit-learn: NaN on an all-zero column (0 here)
    library, p_values = sklearn_chi2(X[:, nonzero], y)
    return Expected(order(scores, constant_columns(X)), scores,
                    checks=[("scikit-learn chi2", lambda out: out.scores[nonzero], library, 1e-10, 0.0),
                            ("scikit-learn p", lambda out: out.columns["p_value"][nonzero], p_values, 1e-8, 1e-300)])


def f_test_expected(X, y):
    constant = constant_columns(X)
    F, p_values = np.zeros(X.shape[1]), np.ones(X.shape[1])
    F[~constant], p_values[~constant] = f_classif(X[:, ~constant], y)
    return Expected(order(F, constant), F,
                    checks=[("scikit-learn p", lambda out: out.columns["p_value"], p_values, 1e-8, 1e-300)])


def pearson_expected(X, y):
    constant = constant_columns(X)
    r, p_values = np.zeros(X.shape[1]), np.ones(X.shape[1])
    r[~constant] = r_regression(X[:, ~constant], y)
    p_values[~constant] = f_regression(X[:, ~constant], y)[1]
    return Expected(order(np.abs(r), constant), np.abs(r),
                    checks=[("signed r", lambda out: out.columns["r"], r, 1e-10, 1e-14),
                            ("scikit-learn p", lambda out: out.columns["p_value"], p_values, 1e-8, 1e-300)])


def rrelieff_expected(X, y):
    weights, _, n_da, n_dc_da = rrelieff_ref(X, y, 10)
    return Expected(order(weights, constant_columns(X)), weights,
                    checks=[("N_dA", lambda out: out.columns["N_dA"], n_da, 1e-10, 1e-13),
                            ("N_dCdA", lambda out: out.columns["N_dCdA"], n_dc_da, 1e-10, 1e-13)])


DFS_ITERATIONS = 6


def dfs_expected(X, y):
    ref = dfs_ref(X, y, n_iterations=DFS_ITERATIONS)
    norms = ref["row_norms"][-1]
    return Expected(order(norms, constant_columns(X)), norms,
                    checks=[("objective", lambda out: out.iterations["objective"], ref["objective"], 1e-9, 1e-12)])


TRACE_RATIO_K = 3


def trace_ratio_expected(X, y):
    """Brute force over the k-subsets of the non-constant standardised columns (constants are no candidates)."""
    Z = standardise_ref(X)
    constant = constant_columns(X)
    varying = np.flatnonzero(~constant)
    subset, ratio = trace_ratio_ref(Z[:, varying], y, TRACE_RATIO_K)
    between, within = trace_ratio_weights_ref(Z, y)
    scores = between - ratio * within
    ranking = order(scores, constant)
    best = sorted(int(varying[j]) for j in subset)
    return Expected(ranking, scores,
                    checks=[("trace ratio", lambda out: out.iterations["trace_ratio"][-1], ratio, 1e-12, 0.0),
                            ("subset's ratio", lambda out: subset_ratio(between, within, out.ranking[:TRACE_RATIO_K]),
                             subset_ratio(between, within, best), 1e-12, 0.0)])


def subset_ratio(between, within, subset):
    subset = list(subset)
    return sum(between[j] for j in subset) / sum(within[j] for j in subset)


def class_kernel(y):
    """L = Y Y^T with Y_ic = 1/n_c (the label kernel of BAHSIC with linear kernels, any number of classes)."""
    classes = sorted(set(int(v) for v in y))
    Y = np.array([[1.0 / list(y).count(c) if int(label) == c else 0.0 for c in classes] for label in y])
    return Y @ Y.T


def bahsic_expected(X, y):
    """The authors' backward elimination on the non-constant standardised columns, constants appended last."""
    Z = standardise_ref(X)
    constant = constant_columns(X)
    varying = np.flatnonzero(~constant)
    L = class_kernel(y)
    eliminated = bahsic_ref(Z[:, varying], y, n_keep=3, fraction=0.1, estimator="unbiased", L=L)
    ranking = [int(varying[j]) for j in eliminated] + [int(j) for j in np.flatnonzero(constant)]
    h = np.array([0.0 if constant[j] else unbiased_hsic_ref(np.outer(Z[:, j], Z[:, j]), L)
                  for j in range(X.shape[1])])
    return Expected(ranking, h)


ELC_K, ELC_ITERATIONS = 3, 25


def elc_expected(X, Y):
    """Algorithm 1 literally; the k selected by their Eq. 14 residual, the rest by Eq. 1 alone, constants last."""
    ref = elc_ref(X, Y, ELC_K, max_iter=ELC_ITERATIONS, tol=0.0)
    constant = constant_columns(X)
    residual, alone = np.asarray(ref["residual"]), np.asarray(ref["alone"])
    selected = [j for j in ref["selected"] if not constant[j]]
    rest = [j for j in range(X.shape[1]) if j not in selected]
    ranking = (sorted(selected, key=lambda j: (residual[j], j))
               + sorted(rest, key=lambda j: (bool(constant[j]), alone[j], j)))
    gamma = gamma_star_ref(label_rbf_ref(Y), X.shape[0])
    gain = np.sum(gamma ** 2) - residual
    # the ranking's near-ties are judged on one scale: the residual of the selected, Eq. 1 of the rest
    tie = np.where(np.isin(np.arange(X.shape[1]), selected), -residual, -alone)
    return Expected(ranking, None, tie_scores=tie,
                    checks=[("objective", lambda out: out.iterations["objective"], ref["objective"], 1e-6, 0.0),
                            ("selected", lambda out: np.flatnonzero(out.columns["selected"]), sorted(selected), 0, 0),
                            ("alone", lambda out: out.columns["alone"], alone, 1e-10, 0.0),
                            ("gain of the selected", lambda out: out.columns["gain"][selected], gain[selected],
                             1e-6, 1e-10 * float(np.sum(gamma ** 2)))])


LLSF_ITERATIONS = 30


def llsf_expected(X, Y):
    """Algorithm 1 literally, the same number of iterations (the l1 penalty leaves the split of a weight
    between duplicated columns open, so the iterates are compared, not only the optimum)."""
    W, objectives = llsf_ref(X, Y, n_iterations=LLSF_ITERATIONS)
    norms = np.sqrt(np.sum(W * W, axis=1))
    norms[constant_columns(X)] = 0.0
    return Expected(order(norms, constant_columns(X)), norms,
                    checks=[("objective", lambda out: out.iterations["objective"], objectives, 1e-12, 0.0)])


LATENT_ITERATIONS = 15


def latent_expected(reference):
    """ML-MIFS / CMFS block by block (literal updates), the same number of iterations: row norms of W and the
    objective of every iteration."""
    def expected(X, Y):
        W, objectives = reference(X, Y, n_iterations=LATENT_ITERATIONS)
        norms = np.sqrt(np.sum(W * W, axis=1))
        norms[constant_columns(X)] = 0.0
        return Expected(order(norms, constant_columns(X)), norms,
                        checks=[("objective", lambda out: out.iterations["objective"], objectives, 1e-10, 0.0)])
    return expected


def ml_expected(reference):
    def expected(X, Y):
        scores = reference(X, Y)
        return Expected(order(scores, constant_columns(X)), scores)
    return expected


ONLINE_BUDGET = 4


def online_entry(method):
    """The registered defaults (eta = 0.1, K = 10, g = 1e-6: gravity eta K g; ONPA's synthetic point
    interpolated), rows in order, +1 = the majority class (a tie: the larger code); ONPA's SplitMix64
    seeded with the first uint64 of numpy.random.default_rng(random_state = 0)."""
    loss, step, synthesis = ONLINE_VARIANTS[method]
    if synthesis is not None:
        synthesis = "interpolate"

    def expected(X, y):
        counts = np.bincount(y, minlength=2)
        positive = 1 if counts[1] >= counts[0] else 0
        y_pm = np.where(y == positive, 1, -1)
        seed = int(np.random.default_rng(0).integers(0, 2 ** 64, dtype=np.uint64))
        state, _ = online_pa_ref(X, y_pm, loss=loss, step=step, C=1.0, gravity=0.1 * 10 * 1e-6, theta=math.inf,
                                 K=10, truncate="gradient", topk=ONLINE_BUDGET, synthesis=synthesis, beta=1.0,
                                 capacity=1000, cost_ratio=None, seed=seed)
        w = np.array(state["w"])
        ranking = sorted(range(len(w)), key=lambda j: (-abs(w[j]), j))[:ONLINE_BUDGET]
        return Expected(ranking, np.abs(w), checks=[("weight", lambda out: out.columns["weight"], w, 0, 0)])
    return Entry(online_pa_ref, ("X", "y_binary"), ONLINE_BUDGET, expected, exact_scores=True,
                 where="test_online_kernel.py::_check_row_by_row (bitwise equal weights)")


REFERENCES = {
    **{name: information_entry(name) for name in ("mim", "mifs", "mifs_u", "mrmr", "jmi", "cmim")},
    "cmqfs": Entry(cmqfs_ref, ("X", "y"), 6, cmqfs_expected, rtol=0.0, atol=1e-12, ranked_by_scores=False,
                   where="test_cmqfs.py::test_ranking_equals_reference, test_scores_columns_and_steps"),
    "fisher": Entry(fisher_score_ref, ("X", "y"), None, fisher_expected, rtol=1e-10, atol=1e-14,
                    where="test_similarity.py::test_fisher_equals_reference"),
    "laplacian": Entry(laplacian_score_ref, ("X", "y"), None, laplacian_expected, rtol=1e-9, atol=0.0,
                       where="test_similarity.py::test_laplacian_equals_reference"),
    "relieff": Entry(relieff_ref, ("X", "y"), None, relieff_expected, rtol=1e-10, atol=1e-13,
                     where="test_similarity.py::test_relieff_equals_reference"),
    "rrelieff": Entry(rrelieff_ref, ("X", "y_continuous"), None, rrelieff_expected, rtol=1e-10, atol=1e-13,
                      where="test_continuous_response.py::test_rrelieff_equals_the_brute_force_reference"),
    "f_test": Entry(f_classif, ("X", "y"), None, f_test_expected, rtol=1e-10, atol=1e-12,
                    where="test_continuous_response.py::test_f_test_equals_scikit_learn_for_both_response_types"),
    "pearson": Entry(r_regression, ("X", "y_continuous"), None, pearson_expected, rtol=1e-10, atol=1e-14,
                     ranking_tolerance=1e-12,
                     where="test_continuous_response.py::test_pearson_equals_r_regression_and_pearsonr_and_ranks_"
                           "by_absolute_r"),
    "chi2": Entry(chi2_ref, ("counts", "y"), None, chi2_expected, rtol=1e-10, atol=1e-12,
                  where="test_sparse.py::test_chi2_matches_scikit_learn_and_the_contingency_computation"),
    "dfs": Entry(dfs_ref, ("X", "y"), None, dfs_expected, params={"max_iter": DFS_ITERATIONS, "tol": 0.0},
                 rtol=0.0, atol=1e-8, scaled_atol=True, ranking_tolerance=1e-8,
                 where="test_dfs.py::test_dfs_equals_reference"),
    "trace_ratio": Entry(trace_ratio_ref, ("X", "y"), TRACE_RATIO_K, trace_ratio_expected, rtol=1e-9, atol=1e-9,
                         ranking_tolerance=1e-9,
                         where="test_discriminant_baselines.py::test_trace_ratio_finds_the_best_subset"),
    "bahsic": Entry(bahsic_ref, ("X", "y"), None, bahsic_expected, rtol=1e-9, atol=1e-15, ranking_tolerance=1e-9,
                    where="test_discriminant_baselines.py::test_bahsic_equals_the_backward_elimination"),
    "elc": Entry(elc_ref, ("X", "Y"), ELC_K, elc_expected, params={"max_iter": ELC_ITERATIONS, "tol": 0.0},
                 ranking_tolerance=1e-10, ranked_by_scores=False,
                 where="test_elc.py::test_padm_matches_literal_reference"),
    "llsf": Entry(llsf_ref, ("X", "Y"), None, llsf_expected, params={"max_iter": LLSF_ITERATIONS, "tol": 0.0},
                  rtol=1e-9, atol=1e-12, scaled_atol=True, ranking_tolerance=1e-9,
                  where="test_elc.py::test_llsf_reaches_a_stationary_point (here: Algorithm 1 literally)"),
    "ml_fisher": Entry(ml_fisher_ref, ("X", "Y"), None, ml_expected(ml_fisher_ref), rtol=1e-10, atol=1e-14,
                       where="test_elc.py::test_ml_fisher_is_the_mean_of_per_label_fisher_scores"),
    "ml_mifs": Entry(ml_mifs_ref, ("X", "Y"), None, latent_expected(ml_mifs_ref),
                     params={"max_iter": LATENT_ITERATIONS, "tol": 0.0}, rtol=1e-9, atol=1e-12, scaled_atol=True,
                     ranking_tolerance=1e-9,
                     where="test_multilabel_baselines.py::test_ml_mifs_equals_the_literal_block_updates"),
    "cmfs": Entry(cmfs_ref, ("X", "Y"), None, latent_expected(cmfs_ref),
                  params={"max_iter": LATENT_ITERATIONS, "tol": 0.0}, rtol=1e-9, atol=1e-12, scaled_atol=True,
                  ranking_tolerance=1e-9,
                  where="test_multilabel_baselines.py::test_cmfs_equals_the_literal_multiplicative_updates"),
    "ml_mi": Entry(ml_mi_ref, ("X", "Y"), None, ml_expected(ml_mi_ref), rtol=1e-10, atol=1e-15,
                   where="test_elc.py::test_ml_mi_is_the_mean_of_per_label_information"),
    **{name: online_entry(name) for name in ONLINE_VARIANTS},
}


# ---------------------------------------------------------------------------------------- the tests

def test_every_registered_method_has_a_reference():
    registered = {spec.name for spec in registered_methods()}
    missing = sorted(registered - set(REFERENCES))
    stale = sorted(set(REFERENCES) - registered)
    assert not missing, f"registered methods without an independent reference in REFERENCES: {missing}"
    assert not stale, f"REFERENCES entries for methods that are not registered: {stale}"


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_references_are_independent_of_fstools(name):
    module = REFERENCES[name].reference.__module__
    assert module.startswith(("references.", "sklearn.")), f"{name}: reference {module} is not independent"


def assert_ranking(name, actual, expected, tie_scores, tolerance, constant):
    actual = [int(j) for j in actual]
    assert len(actual) == len(expected), f"{name}: ranking {actual}, reference {expected}"
    if tolerance == 0 or actual == expected:
        assert actual == expected, f"{name}: ranking {actual}, reference {expected}"
        return
    scores = np.asarray(tie_scores, dtype=float)
    scale = max(1e-300, float(np.max(np.abs(scores[np.isfinite(scores)]))))
    for position, (a, e) in enumerate(zip(actual, expected)):
        near = (not constant[a] and not constant[e] and abs(scores[a] - scores[e]) <= tolerance * scale)
        assert a == e or near, (f"{name}: position {position} holds {a} (reference score {scores[a]!r}), the "
                                f"reference has {e} ({scores[e]!r}), beyond the tie tolerance {tolerance}: "
                                f"ranking {actual}, reference {expected}")
    if len(set(actual)) == len(actual) and len(actual) == len(scores):
        assert sorted(actual) == sorted(expected)


def assert_tie_rule(name, ranking, scores, constant):
    """Columns with exactly equal scores (not constant) come in column order, in and out of a top-k ranking."""
    ranking = [int(j) for j in ranking]
    position = {j: i for i, j in enumerate(ranking)}
    for a in ranking:
        for b in range(a):
            if not constant[a] and not constant[b] and scores[a] == scores[b]:
                assert b in position and position[b] < position[a], (
                    f"{name}: columns {b} and {a} have the same score {scores[a]!r}, but {a} ranks first: {ranking}")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_method_equals_reference(name, seed):
    entry = REFERENCES[name]
    data = shared_data(seed)
    X, y = (data[key] for key in entry.inputs)
    spec = get_method(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        out = spec.function(X, y, entry.k, 1, **{**spec.defaults(), **entry.params})
        expected = entry.expected(X, y)
    if expected.scores is not None:
        if entry.exact_scores:
            np.testing.assert_array_equal(out.scores, expected.scores, err_msg=f"{name}: scores")
        else:
            finite = np.isfinite(expected.scores)
            atol = entry.atol * (float(np.max(np.abs(expected.scores[finite]))) if entry.scaled_atol else 1.0)
            np.testing.assert_allclose(out.scores, expected.scores, rtol=entry.rtol, atol=atol,
                                       err_msg=f"{name}: scores")
    for label, getter, value, rtol, atol in expected.checks:
        np.testing.assert_allclose(getter(out), value, rtol=rtol, atol=atol, err_msg=f"{name}: {label}")
    tie_scores = expected.tie_scores if expected.tie_scores is not None else expected.scores
    assert_ranking(name, out.ranking, expected.ranking, tie_scores, entry.ranking_tolerance, constant_columns(X))
    if entry.ranked_by_scores:
        assert_tie_rule(name, out.ranking, out.scores, constant_columns(X))

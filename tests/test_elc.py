"""ELC (and the multi-label baselines): literal references, hand-computed answers, a known-answer
problem, the multi-label front end (select, response=, FeatureSelector) and its errors."""
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from references.information import mutual_information_ref
from references.multilabel import (elc_code_ref, elc_ref, gamma_star_ref, label_code_ref, label_rbf_ref,
                                   pearson_ref, standardize_ref)
from references.similarity import fisher_score_ref
from sklearn.exceptions import ConvergenceWarning

import fstools as fs
from fstools.model.exceptions import FormulaError
from fstools.methods.multilabel import (elc, elc_fit, gamma_star, label_correlation, llsf, llsf_fit, ml_fisher,
                                        ml_mi, single_feature_objectives, standardize_features)
from fstools.methods.registry import get_method
from fstools.results.multilabel_result import MultiLabelResult


def known_answer_data(seed=0, n=300, n_informative=5, n_noise=50, copy_noise=0.1):
    """Labels driven by the informative columns 0..4; columns 5..9 are noisy copies of them (redundant);
    the rest pure noise.  Label c thresholds z_c + 0.5 z_(c+1) (+ noise) at its median: every
    informative feature raises one or two labels (positive weights, so the features' correlations with
    the labels agree in sign with the labels' co-occurrence, which S encodes)."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, n_informative))
    B = np.eye(n_informative) + 0.5 * np.roll(np.eye(n_informative), 1, axis=1)
    logits = Z @ B + 0.3 * rng.normal(size=(n, n_informative))
    Y = (logits > np.median(logits, axis=0)).astype(np.int64)
    X = np.column_stack([Z, Z + copy_noise * rng.normal(size=Z.shape), rng.normal(size=(n, n_noise))])
    return X, Y


def small_data(seed, n=40, d=8, l=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 0] += 1.5 * (X[:, 1] > 0)
    Y = np.column_stack([(X[:, 0] + 0.5 * rng.normal(size=n)) > 0.5,
                         (X[:, 1] + X[:, 2] + 0.5 * rng.normal(size=n)) > 0,
                         rng.random(n) < 0.4]).astype(np.int64)[:, :l]
    return X, Y


def frame_of(X, Y):
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    for j in range(Y.shape[1]):
        df[f"y{j + 1}"] = Y[:, j]
    return df


# ---------------------------------------------------------------- label correlation, Gamma*, scaling

def test_masked_rbf_by_hand():
    # columns y1 = (1,1,0,1), y2 = (1,0,1,1), y3 = (0,0,1,0): ||y1-y2||^2 = 2, ||y1-y3||^2 = 4,
    # ||y2-y3||^2 = 2; delta'^2 = (0+2+4 + 2+0+2 + 4+2+0) / 9 = 16/9; <y1,y3> = 0 masks S_13.
    Y = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1], [1, 1, 0]])
    e = math.exp(-2 / (2 * 16 / 9))
    expected = np.array([[1, e, 0], [e, 1, e], [0, e, 1]])
    np.testing.assert_allclose(label_correlation(Y, "rbf"), expected, rtol=1e-14)
    np.testing.assert_allclose(label_correlation(Y, "pearson"), np.corrcoef(Y.T), rtol=1e-14)
    # the authors' code: exp(-D) / (2 dbar), plain distances, mean over the 9 entries, no mask
    D = np.array([[0, math.sqrt(2), 2], [math.sqrt(2), 0, math.sqrt(2)], [2, math.sqrt(2), 0]])
    np.testing.assert_allclose(label_correlation(Y, "reference-code"), np.exp(-D) / (2 * D.mean()), rtol=1e-14)


@pytest.mark.parametrize("seed", range(3))
def test_label_correlation_equals_reference(seed):
    rng = np.random.default_rng(seed)
    Y = (rng.random((30, 6)) < 0.3).astype(int)
    Y[:2] = [[1] * 6, [0] * 6]
    np.testing.assert_allclose(label_correlation(Y), label_rbf_ref(Y), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(label_correlation(Y, "reference-code"), label_code_ref(Y), rtol=1e-12)


def test_gamma_star_reproduces_s_and_clips_negative_eigenvalues():
    S = label_rbf_ref(np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1], [1, 1, 0]]))
    G, eigenvalues = gamma_star(S, 4)
    assert np.all(np.diff(eigenvalues) <= 0)
    np.testing.assert_allclose(G, gamma_star_ref(S, 4), rtol=1e-12, atol=1e-12)
    # S here is positive definite: Gamma* Gamma*^T = n^2 S
    np.testing.assert_allclose(G @ G.T, 16 * S, rtol=1e-12, atol=1e-12)
    # an indefinite "S": the negative eigenvalue is dropped, G G^T / n^2 = the PSD part
    T = np.array([[1.0, 0.9, 0.0], [0.9, 1.0, 0.9], [0.0, 0.9, 1.0]])
    values, vectors = np.linalg.eigh(T)
    assert values[0] < 0
    G, _ = gamma_star(T, 10)
    psd = vectors @ np.diag(np.clip(values, 0, None)) @ vectors.T
    np.testing.assert_allclose(G @ G.T / 100, psd, atol=1e-12)


def test_variance_scaling_makes_a_equal_n_sigma_rho():
    """<f_i, y_c> = n sigma_c rho(f_i, y_c) for centred unit-variance features: the scale at which
    Property 2 and Eq. (1) hold (why standardize='variance' is the default)."""
    X, Y = small_data(0)
    n = X.shape[0]
    Z, _ = standardize_features(X, "variance")
    A = Y.T @ Z
    for c in range(Y.shape[1]):
        sigma = Y[:, c].std()
        for i in range(X.shape[1]):
            assert A[c, i] == pytest.approx(n * sigma * pearson_ref(X[:, i], Y[:, c]), rel=1e-10)
    Z_length, _ = standardize_features(X, "length")
    np.testing.assert_allclose(Y.T @ Z_length, A / math.sqrt(n), rtol=1e-12)
    np.testing.assert_allclose(Z, standardize_ref(X), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(standardize_features(X, "zscore")[0], standardize_ref(X, ddof=1), rtol=1e-12)


def test_single_feature_objectives_brute_force():
    X, Y = small_data(1)
    n = X.shape[0]
    Z, _ = standardize_features(X)
    A = Y.T @ Z
    S = label_rbf_ref(Y)
    brute = [np.sum((np.outer(A[:, i], A[:, i]) / n ** 2 - S) ** 2) for i in range(X.shape[1])]
    np.testing.assert_allclose(single_feature_objectives(A, S, n), brute, rtol=1e-12)


# ---------------------------------------------------------------- the PADM against the literal reference

@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("tau, u_step, beta, gradient", [
    ("lipschitz", "derived", 1e8, "selected"), ("paper", "derived", 1e8, "selected"),
    (1e-3, "derived", 1e8, "selected"), ("lipschitz", "printed", 1e8, "selected"),
    ("lipschitz", "derived", 1e2, "all"), ("paper", "derived", 1.0, "all")])
def test_padm_matches_literal_reference(seed, tau, u_step, beta, gradient):
    X, Y = small_data(seed)
    k = 3
    ref = elc_ref(X, Y, k, beta=beta, tau=tau, max_iter=25, tol=0.0, sign=-1.0 if u_step == "derived" else 1.0,
                  gradient=gradient)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = elc_fit(X, Y, k, beta=beta, tau=tau, max_iter=25, tol=0.0, u_step=u_step, gradient=gradient)
    assert sorted(np.flatnonzero(fit.initial)) == ref["p"][0]
    assert sorted(np.flatnonzero(fit.selected)) == ref["selected"]
    for name in ("objective", "relaxed_objective", "w_change", "tau"):
        np.testing.assert_allclose(fit.iterations[name], ref[name], rtol=1e-6, err_msg=name)
    np.testing.assert_allclose(fit.W, ref["W"], rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(fit.alone, ref["alone"], rtol=1e-10)
    # The kernel expands ||a_i w_i - G||^2 = |a_i|^2 |w_i|^2 - 2 <a_i^T G, w_i> + |G|^2; with a small beta and
    # the gradient on every row, W grows and the expansion cancels to about 1e-8 relative.
    np.testing.assert_allclose(fit.residual, ref["residual"], rtol=1e-10 if gradient == "selected" else 1e-7)


@pytest.mark.parametrize("seed", range(3))
def test_reference_code_variant_matches_the_published_code(seed):
    X, Y = small_data(seed)
    selected, loops, W = elc_code_ref(X, Y, 3, tmax=60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = elc_fit(X, Y, 3, max_iter=60, variant="reference-code")
    assert sorted(np.flatnonzero(fit.selected)) == selected
    assert len(fit.iterations["iteration"]) == loops
    np.testing.assert_allclose(fit.W, W, rtol=1e-6, atol=1e-12)


def test_reference_code_variant_refuses_paper_options():
    X, Y = small_data(0)
    with pytest.raises(ValueError, match="correlation: variant='reference-code'"):
        elc(X, Y, 2, variant="reference-code", correlation="pearson")


# ---------------------------------------------------------------- known answer

def test_known_answer_informative_above_noise_with_paper_defaults():
    X, Y = known_answer_data()
    out = elc(X, Y, 10)
    ranking = list(out.ranking)
    assert sorted(ranking) == list(range(X.shape[1]))              # every feature ranked
    assert np.isfinite(out.scores).all() and out.scores.shape == (X.shape[1],)
    informative_and_copies = set(range(10))
    assert set(ranking[:10]) == informative_and_copies             # the k selected
    worst_informative = max(ranking.index(j) for j in range(5))
    best_noise = min(ranking.index(j) for j in range(10, X.shape[1]))
    assert worst_informative < best_noise
    assert np.all(out.columns["selected"][:10] == 1) and np.all(out.columns["selected"][10:] == 0)


def test_known_answer_with_a_moving_iteration_objective_decreases():
    """With tau = 1/rho the PADM moves W every iteration: the relaxed objective (Eq. 3) decreases,
    monotonically in these runs; Eq. (1) for the current p does not increase (p never changes here)."""
    X, Y = known_answer_data(seed=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = elc(X, Y, 10, tau="lipschitz", max_iter=300)
    relaxed = out.iterations["relaxed_objective"]
    assert relaxed[-1] < 0.9 * relaxed[0]
    assert np.all(np.diff(relaxed) <= 1e-9 * abs(relaxed[0]))       # observed: monotone
    assert out.iterations["objective"][-1] <= out.iterations["objective"][0]
    assert set(out.ranking[:10]) == set(range(10))
    assert any(issubclass(w.category, ConvergenceWarning) for w in caught)   # 300 < needed


def test_printed_u_step_climbs_the_objective():
    """Eq. (7)-(9) as printed (w + v/beta) move W uphill once the step lets it move."""
    X, Y = known_answer_data(seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        derived = elc(X, Y, 10, tau="lipschitz", max_iter=50)
        printed = elc(X, Y, 10, tau="lipschitz", max_iter=50, u_step="printed")
    assert derived.iterations["relaxed_objective"][-1] < derived.iterations["relaxed_objective"][0]
    assert printed.iterations["relaxed_objective"][-1] > printed.iterations["relaxed_objective"][0]


def test_baselines_rank_informative_above_noise():
    X, Y = known_answer_data()
    for method in (llsf, ml_fisher, ml_mi):
        ranking = list(method(X, Y).ranking)
        assert set(ranking[:10]) == set(range(10)), method.__name__


# ---------------------------------------------------------------- stopping, warnings, constant columns

def test_warns_at_the_iteration_limit_and_records_every_iteration():
    X, Y = small_data(0)
    with pytest.warns(ConvergenceWarning, match="iteration limit max_iter = 5"):
        out = elc(X, Y, 3, max_iter=5, tol=0.0)
    assert list(out.iterations["iteration"]) == [1, 2, 3, 4, 5]
    assert set(out.iterations) >= {"objective", "relaxed_objective", "w_change", "tau", "p_changes"}
    assert any("iteration limit" in note for note in out.notes)


def test_stopping_rule_tol():
    X, Y = small_data(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        fit = elc_fit(X, Y, 3, tau="lipschitz", tol=1e3)
    assert fit.converged and len(fit.iterations["iteration"]) == 1
    assert fit.iterations["w_change"][0] <= 1e3


def test_constant_column_ranked_last_and_never_selected():
    X, Y = small_data(0, d=6)
    X[:, 2] = 7.0
    out = elc(X, Y, 5)
    assert out.ranking[-1] == 2 and 2 not in out.ranking[:5]


def test_parameter_errors_name_the_parameter_and_allowed_values():
    X, Y = small_data(0)
    with pytest.raises(ValueError, match=r"lam: must be a finite number > 0"):
        elc(X, Y, 2, lam=0)
    with pytest.raises(ValueError, match=r"tau: must be 'paper', 'lipschitz' or a finite number > 0"):
        elc(X, Y, 2, tau="fast")
    with pytest.raises(ValueError, match=r"k: ELC selects a fixed number.*1\.\.8"):
        elc(X, Y, 9)
    with pytest.raises(ValueError, match="k: ELC selects a fixed number"):
        elc(X, Y, None)
    df = frame_of(X, Y)
    with pytest.raises(ValueError, match=r"correlation: must be one of 'rbf', 'pearson' for method 'elc'"):
        fs.select("y1 + y2 ~ .", df, method="elc", k=2, correlation="kendall")
    with pytest.raises(ValueError, match=r"variant: must be one of 'paper', 'reference-code'"):
        fs.select("y1 + y2 ~ .", df, method="elc", k=2, variant="matlab")
    with pytest.raises(ValueError, match=r"k: must be in 1\.\.8"):
        fs.select("y1 + y2 + y3 ~ .", df, method="elc", k=9)


def test_pearson_correlation_option():
    X, Y = known_answer_data()
    out = elc(X, Y, 10, correlation="pearson")
    assert set(out.ranking[:10]) == set(range(10))
    assert any("Pearson" in note for note in out.notes)


# ---------------------------------------------------------------- baselines against references

def test_ml_fisher_is_the_mean_of_per_label_fisher_scores():
    X, Y = small_data(2)
    expected = np.mean([fisher_score_ref(X, Y[:, c]) for c in range(Y.shape[1])], axis=0)
    np.testing.assert_allclose(ml_fisher(X, Y).scores, expected, rtol=1e-10)


def test_ml_mi_is_the_mean_of_per_label_information():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, size=(60, 5)).astype(float)             # discrete: used as they are
    Y = np.column_stack([X[:, 0] > 1, rng.random(60) < 0.5]).astype(int)
    expected = [np.mean([mutual_information_ref(X[:, i].astype(int), Y[:, c]) for c in range(2)])
                for i in range(5)]
    np.testing.assert_allclose(ml_mi(X, Y).scores, expected, rtol=1e-10, atol=1e-15)


def test_llsf_reaches_a_stationary_point():
    """At the LLSF optimum, for w_ij != 0: (X^T(XW - Y) + alpha W R)_ij = -beta sign(w_ij); else |.| <= beta."""
    X, Y = small_data(4, n=80, d=6)
    alpha, beta = 0.05, 2.0
    W, history, converged = llsf_fit(X, Y, alpha=alpha, beta=beta, max_iter=5000, tol=1e-13)
    Z = standardize_ref(X)
    norms = np.sqrt((Y * Y).sum(axis=0))
    R = 1 - (Y.T @ Y) / np.outer(norms, norms)
    gradient = Z.T @ (Z @ W - Y) + alpha * W @ R
    active = W != 0
    np.testing.assert_allclose(gradient[active], -beta * np.sign(W[active]), atol=1e-4 * beta)
    assert np.all(np.abs(gradient[~active]) <= beta * (1 + 1e-4))
    assert np.all(np.diff(history["objective"]) <= 1e-8 * history["objective"][0]) or converged


# ---------------------------------------------------------------- front end

@pytest.fixture(scope="module")
def multilabel_frame():
    X, Y = known_answer_data(n=200, n_noise=20)
    return frame_of(X, Y)


def test_select_with_several_responses(multilabel_frame):
    res = fs.select("y1 + y2 + y3 + y4 + y5 ~ .", multilabel_frame, method="elc", k=10)
    assert isinstance(res, MultiLabelResult)
    assert set(res.selected) == {f"x{j}" for j in range(10)}
    assert res.labels == ["y1", "y2", "y3", "y4", "y5"]
    assert len(res.scores) == 30 and list(res.scores["rank"]) == list(range(1, 31))
    assert res.formula.startswith("y1 + y2 + y3 + y4 + y5 ~ ")
    assert res.iterations is not None and "objective" in res.iterations
    text = str(res.summary())
    assert "R(F)" in text and "C(F)" in text and "label" in text
    assert res.transform(multilabel_frame).shape == (200, 15)
    assert np.isfinite(res.residual_redundancy) and np.isfinite(res.residual_label_correlation)
    res.plot(kind="convergence")
    res.plot()


def test_response_dataframe_and_transformer_agree(multilabel_frame):
    labels = multilabel_frame[["y1", "y2", "y3", "y4", "y5"]]
    features = multilabel_frame.drop(columns=labels.columns)
    by_formula = fs.select("y1 + y2 + y3 + y4 + y5 ~ .", multilabel_frame, method="elc", k=10)
    by_frame = fs.select("~ .", features, method="elc", k=10, response=labels)
    assert by_frame.selected == by_formula.selected
    selector = fs.FeatureSelector(method="elc", k=10).fit(features, labels.to_numpy())
    assert list(features.columns[selector.ranking_]) == by_formula.selected
    assert selector.transform(features).shape == (200, 10)
    selector = fs.FeatureSelector(method="llsf", k=4).fit(features.to_numpy(), labels)
    assert list(selector.classes_) == ["y1", "y2", "y3", "y4", "y5"]


@pytest.mark.parametrize("method", ["llsf", "ml_fisher", "ml_mi"])
def test_baselines_through_select(multilabel_frame, method):
    res = fs.select("y1 + y2 + y3 + y4 + y5 ~ .", multilabel_frame, method=method, k=10)
    assert set(res.selected) == {f"x{j}" for j in range(10)}
    assert get_method(method).capabilities >= {"multilabel"}
    str(res.summary(all_features=True))


@pytest.mark.parametrize("absent, present", [(1, 2), (-1, 1), (0, 2), (False, True)])
def test_two_valued_labels_are_read_as_zero_one(multilabel_frame, absent, present):
    """Any two values make a label, the larger one meaning present (scikit-learn's LabelBinarizer
    of two classes; R's second level): the same selection as the 0/1 columns."""
    labels = [f"y{j}" for j in range(1, 6)]
    expected = fs.select(" + ".join(labels) + " ~ .", multilabel_frame, method="ml_fisher", k=5)
    recoded = multilabel_frame.copy()
    for label in labels[:3]:
        recoded[label] = np.where(recoded[label] == 1, present, absent)
    res = fs.select(" + ".join(labels) + " ~ .", recoded, method="ml_fisher", k=5)
    assert res.selected == expected.selected
    pd.testing.assert_frame_equal(res.scores, expected.scores)
    X = multilabel_frame[[f"x{j}" for j in range(30)]].to_numpy()
    Y = multilabel_frame[labels].to_numpy()
    as_objects = np.where(Y == 1, present, absent).astype(object)
    selector = fs.FeatureSelector(method="ml_fisher", k=5).fit(X, as_objects)
    assert list(selector.ranking_) == list(fs.FeatureSelector(method="ml_fisher", k=5).fit(X, Y).ranking_)


def test_label_errors(multilabel_frame):
    df = multilabel_frame.copy()
    df["y2"] = np.arange(len(df)) % 3
    with pytest.raises(ValueError, match=r"response 'y2': a label column must hold two values .*0, 1, 2"):
        fs.select("y1 + y2 ~ .", df, method="elc", k=3)
    df = multilabel_frame.copy()
    df["y3"] = 0
    with pytest.raises(ValueError, match=r"response 'y3': is constant \(all 0\), one class only"):
        fs.select("y1 + y3 ~ .", df, method="elc", k=3)
    df = multilabel_frame.copy()
    df["y1"] = np.where(df["y1"] == 1, "yes", "no")
    with pytest.raises(ValueError, match=r"response 'y1': a label column must hold numbers or booleans"):
        fs.select("y1 + y2 ~ .", df, method="llsf", k=3)
    X = multilabel_frame[[f"x{j}" for j in range(30)]].to_numpy()
    with pytest.raises(ValueError, match=r"label 1: a label column must hold two values"):
        fs.FeatureSelector(method="elc", k=3).fit(X, np.column_stack([np.arange(200) % 2, np.arange(200) % 3]))
    with pytest.raises(ValueError, match=r"label 0: is constant \(all 1\), one class only"):
        fs.FeatureSelector(method="elc", k=3).fit(X, np.column_stack([np.ones(200), np.arange(200) % 2]))
    with pytest.raises(ValueError, match=r"Unknown label type"):
        fs.FeatureSelector(method="elc", k=3).fit(X, np.full((200, 2), "a", dtype=object))
    with pytest.raises(ValueError, match=r"k: must be in 1\.\.30"):
        fs.FeatureSelector(method="elc", k=31).fit(X, multilabel_frame[["y1", "y2"]].to_numpy())


def test_response_argument_errors(multilabel_frame):
    labels = multilabel_frame[["y1", "y2"]]
    features = multilabel_frame[["x0", "x1", "x2"]]
    with pytest.raises(FormulaError, match="one-sided"):
        fs.select("y1 ~ .", features, method="elc", k=2, response=labels)
    with pytest.raises(TypeError, match="response: only multi-label methods"):
        fs.select("~ .", features, method="fisher", k=2, response=labels)
    with pytest.raises(ValueError, match="response: must have the rows of data"):
        fs.select("~ .", features.iloc[:50], method="elc", k=2, response=labels)
    with pytest.raises(TypeError, match="response: must be a pandas DataFrame"):
        fs.select("~ .", features, method="elc", k=2, response=labels.to_numpy())
    with pytest.raises(FormulaError, match="takes one response"):
        fs.select("y1 + y2 ~ .", multilabel_frame, method="fisher", k=2)


def test_user_data_not_modified(multilabel_frame):
    before = multilabel_frame.copy()
    fs.select("y1 + y2 ~ .", multilabel_frame, method="elc", k=3)
    pd.testing.assert_frame_equal(multilabel_frame, before)


# ---------------------------------------------------------------- scale: no d x d or n x n matrix

@pytest.mark.parametrize("n, d", [(40, 20_000), (20_000, 12)])
def test_no_square_matrix_of_the_features_or_samples(n, d):
    """A d x d (n x n) float64 matrix would take 3.2 GB here; ELC's peak stays a few times the data."""
    import tracemalloc

    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, d))
    Y = (X[:, :4] + rng.standard_normal((n, 4)) > 0).astype(np.int64)
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            out = elc(X, Y, 5, max_iter=3)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(out.ranking) == d
    assert peak < 8 * X.nbytes + (32 << 20)


def test_command_line_multilabel(tmp_path, capsys, multilabel_frame):
    import json

    from fstools.cli import main

    path = tmp_path / "ml.csv"
    multilabel_frame.to_csv(path, index=False)
    status = main(["select", "y1 + y2 + y3 + y4 + y5 ~ .", "--data", str(path), "--method", "elc", "-k", "10",
                   "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0
    assert set(out["selected"]) == {f"x{j}" for j in range(10)} and out["classes"] == ["y1", "y2", "y3", "y4", "y5"]


def test_ranking_rule_and_ties():
    """The k selected by their Eq. (14) residual (gain descending), the rest by Eq. (1) alone; an
    exact duplicate column ties with its original and comes after it."""
    X, Y = known_answer_data(seed=3, n_noise=10)
    X = np.column_stack([X, X[:, 12]])                   # column 20 duplicates noise column 12
    out = elc(X, Y, 8)
    ranking = list(out.ranking)
    gain, alone = out.columns["gain"], out.columns["alone"]
    assert all(gain[a] >= gain[b] for a, b in zip(ranking[:7], ranking[1:8]))
    assert all(alone[a] <= alone[b] for a, b in zip(ranking[8:-1], ranking[9:]))
    assert alone[12] == alone[20] and ranking.index(12) + 1 == ranking.index(20)


def test_indefinite_label_correlation_is_clipped_with_a_note():
    # y1 and y3 never co-occur (S_13 = 0 by the mask) while both are close to y2: S is indefinite.
    Y = np.array([[1, 1, 0]] * 30 + [[0, 1, 1]] + [[0, 0, 0]] * 5)
    S = label_correlation(Y)
    assert S[0, 2] == 0 and np.linalg.eigvalsh(S)[0] < 0
    X = np.random.default_rng(0).normal(size=(36, 6))
    out = elc(X, Y, 2)
    assert any("negative eigenvalue" in note for note in out.notes)


def test_length_scaling_option_runs():
    X, Y = known_answer_data()
    out = elc(X, Y, 10, standardize="length")
    assert set(out.ranking[:10]) == set(range(10))
    assert any("unit length" in note for note in out.notes)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_pipeline_with_mlknn(multilabel_frame):
    from sklearn.pipeline import make_pipeline

    from fstools.evaluation.mlknn import MLkNN

    labels = multilabel_frame[["y1", "y2", "y3", "y4", "y5"]].to_numpy()
    features = multilabel_frame.drop(columns=["y1", "y2", "y3", "y4", "y5"])
    model = make_pipeline(fs.FeatureSelector(method="elc", k=10), MLkNN()).fit(features[:150], labels[:150])
    scores = model.predict_proba(features[150:])
    assert scores.shape == (50, 5)
    assert fs.metrics.ranking_loss(labels[150:], scores) < 0.3


# ---------------------------------------------------------------- presets

def test_paper_preset_runs_the_printed_settings(multilabel_frame):
    formula = "y1 + y2 + y3 + y4 + y5 ~ ."
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        preset = fs.select(formula, multilabel_frame, method="elc", k=10, preset="paper")
        by_hand = fs.select(formula, multilabel_frame, method="elc", k=10, u_step="printed")
    assert preset.params["u_step"] == "printed" and preset.params["beta"] == 1e8
    assert "preset='paper'" in preset.call
    pd.testing.assert_frame_equal(preset.scores, by_hand.scores)
    for name in ("objective", "w_change"):
        np.testing.assert_array_equal(preset.iterations[name], by_hand.iterations[name])


def test_preset_errors_name_the_presets_and_the_clash(multilabel_frame):
    formula = "y1 + y2 + y3 + y4 + y5 ~ ."
    with pytest.raises(ValueError, match=r"preset: method 'elc' has the presets 'paper'; got 'fast'"):
        fs.select(formula, multilabel_frame, method="elc", k=10, preset="fast")
    with pytest.raises(ValueError, match=r"u_step: preset='paper' sets u_step='printed'; got 'derived'"):
        fs.select(formula, multilabel_frame, method="elc", k=10, preset="paper", u_step="derived")
    with pytest.raises(ValueError, match=r"preset: method 'ml_fisher' has no presets; got 'paper'"):
        fs.select(formula, multilabel_frame, method="ml_fisher", k=10, preset="paper")

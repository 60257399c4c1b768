"""Multi-label metrics and the ELC paper's diagnostics R(F), C(F): hand-computed examples, the
definitions written as loops (references.multilabel) and scikit-learn where it has the metric."""
import math

import numpy as np
import pandas as pd
import pytest
from references.multilabel import (average_precision_ref, hamming_loss_ref, label_rbf_ref, macro_auc_ref,
                                   one_error_ref, ranking_loss_ref, residual_label_correlation_ref,
                                   residual_redundancy_ref)
from sklearn import metrics as skm

import fstools as fs
from fstools.evaluation.metrics import (average_precision, hamming_loss, macro_auc, one_error, ranking_loss,
                             residual_label_correlation, residual_redundancy)

# Two instances, three labels (hand-computed below).
Y = np.array([[1, 0, 1],
              [0, 1, 0]])
F = np.array([[0.9, 0.5, 0.2],
              [0.3, 0.3, 0.6]])           # a tie in row 2 between labels 0 and 1
P = np.array([[1, 1, 1],
              [0, 1, 1]])
# A third, degenerate instance: no relevant label.
Y3 = np.vstack([Y, [0, 0, 0]])
F3 = np.vstack([F, [0.1, 0.2, 0.3]])


def test_hand_computed_examples():
    # Hamming: one wrong label in each row -> 2 / 6
    assert hamming_loss(Y, P) == pytest.approx(1 / 3)
    # one-error: row 1's top label 0 is relevant, row 2's top label 2 is not -> 1/2
    assert one_error(Y, F) == pytest.approx(1 / 2)
    # ranking loss: row 1 pairs (0,1) right, (2,1) wrong -> 1/2; row 2 pairs (1,0) tie = wrong,
    # (1,2) wrong -> 1; mean 3/4
    assert ranking_loss(Y, F) == pytest.approx(3 / 4)
    # average precision: row 1 ranks 1, 3 for labels 0, 2 -> (1/1 + 2/3) / 2 = 5/6; row 2 label 1
    # has rank 3 (two labels score >= 0.3) -> 1/3; mean 7/12
    assert average_precision(Y, F) == pytest.approx(7 / 12)
    # macro AUC over two instances: label 0: 0.9 > 0.3 -> 1; label 1: 0.3 < 0.5 -> 0; label 2: 0.2 < 0.6 -> 0
    assert macro_auc(Y, F) == pytest.approx(1 / 3)


def test_macro_auc_counts_ties_one_half():
    # positives {0.8, 0.4}, negatives {0.8, 0.1}: (0.8, 0.8) 1/2, (0.8, 0.1) 1, (0.4, 0.8) 0, (0.4, 0.1) 1
    y = np.array([[1], [0], [1], [0]])
    s = np.array([[0.8], [0.8], [0.4], [0.1]])
    assert macro_auc(y, s) == pytest.approx(2.5 / 4)


def test_degenerate_instances_skipped_or_counted():
    # skipped (default): as without the third row
    assert ranking_loss(Y3, F3) == pytest.approx(3 / 4)
    assert average_precision(Y3, F3) == pytest.approx(7 / 12)
    assert one_error(Y3, F3) == pytest.approx(1 / 2)
    # counted: ranking loss 0 and precision 1 (scikit-learn's convention), top label never relevant
    assert ranking_loss(Y3, F3, skip_degenerate=False) == pytest.approx((0.5 + 1 + 0) / 3)
    assert average_precision(Y3, F3, skip_degenerate=False) == pytest.approx((5 / 6 + 1 / 3 + 1) / 3)
    assert one_error(Y3, F3, skip_degenerate=False) == pytest.approx(2 / 3)
    assert math.isnan(ranking_loss(np.zeros((2, 3)), F))


def _random(seed, n=40, l=5, ties=True):
    rng = np.random.default_rng(seed)
    truth = (rng.random((n, l)) < 0.35).astype(int)
    scores = rng.random((n, l))
    if ties:
        scores = np.round(scores, 1)
    predictions = (rng.random((n, l)) < 0.35).astype(int)
    return truth, scores, predictions


@pytest.mark.parametrize("seed", range(5))
def test_against_scikit_learn(seed):
    truth, scores, predictions = _random(seed)
    truth[0] = 0                       # a degenerate row: the conventions differ only here
    assert hamming_loss(truth, predictions) == pytest.approx(skm.hamming_loss(truth, predictions), abs=1e-15)
    assert ranking_loss(truth, scores, skip_degenerate=False) == pytest.approx(
        skm.label_ranking_loss(truth, scores), abs=1e-12)
    assert average_precision(truth, scores, skip_degenerate=False) == pytest.approx(
        skm.label_ranking_average_precision_score(truth, scores), abs=1e-12)
    assert macro_auc(truth, scores) == pytest.approx(skm.roc_auc_score(truth, scores, average="macro"), abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("skip", [True, False])
def test_against_the_definitions(seed, skip):
    truth, scores, predictions = _random(seed, n=25, l=4)
    truth[1] = 1                       # all relevant
    truth[2] = 0                       # none relevant
    t, s, p = truth.tolist(), scores.tolist(), predictions.tolist()
    assert hamming_loss(truth, predictions) == pytest.approx(hamming_loss_ref(t, p))
    assert one_error(truth, scores, skip) == pytest.approx(one_error_ref(t, s, skip))
    assert ranking_loss(truth, scores, skip) == pytest.approx(ranking_loss_ref(t, s, skip))
    assert average_precision(truth, scores, skip) == pytest.approx(average_precision_ref(t, s, skip))
    assert macro_auc(truth, scores) == pytest.approx(macro_auc_ref(t, s))


def test_macro_auc_leaves_out_single_valued_labels():
    truth, scores, _ = _random(3)
    truth[:, 2] = 0
    keep = [0, 1, 3, 4]
    assert macro_auc(truth, scores) == pytest.approx(skm.roc_auc_score(truth[:, keep], scores[:, keep]))
    assert math.isnan(macro_auc(np.zeros((4, 2)), np.ones((4, 2))))


def test_metric_errors():
    with pytest.raises(ValueError, match="y_true: must hold only 0 and 1"):
        ranking_loss([[0, 2], [1, 0]], [[0.1, 0.2], [0.3, 0.4]])
    with pytest.raises(ValueError, match=r"y_score: must have the shape of y_true \(2, 2\)"):
        average_precision([[0, 1], [1, 0]], [[0.1, 0.2, 0.3], [0.3, 0.4, 0.5]])
    with pytest.raises(ValueError, match="y_pred: must have the shape"):
        hamming_loss([[0, 1], [1, 0]], [[0, 1]])
    with pytest.raises(TypeError, match="skip_degenerate: must be True or False"):
        one_error(Y, F, skip_degenerate="yes")
    with pytest.raises(ValueError, match="y_true: must be a 2-D 0/1 label matrix"):
        macro_auc([0, 1, 1], [0.1, 0.2, 0.3])


def test_exported_from_fs_metrics():
    for name in ("hamming_loss", "one_error", "ranking_loss", "average_precision", "macro_auc",
                 "residual_redundancy", "residual_label_correlation"):
        assert name in fs.metrics.__all__ and callable(getattr(fs.metrics, name))


# ---------------------------------------------------------------- R(F) and C(F)

# One label y = (1, 1, 0, 0); f1 = y (rho = 1), f2 = (1, 0, 1, 0) (rho = 0), f3 = (1, 0, 0, 0)
# (rho = 0.5 / sqrt(0.75), rho^2 = 1/3).
X_HAND = np.array([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
Y_HAND = np.array([[1], [1], [0], [0]])


def test_residual_redundancy_by_hand():
    # Q = (1, 0, 1/3): sum_{i != j} Q_i Q_j = (4/3)^2 - (1 + 1/9) = 2/3; R = (2/3) / (3 * 2 * 1) = 1/9
    assert residual_redundancy(X_HAND, Y_HAND) == pytest.approx(1 / 9)
    assert residual_redundancy(X_HAND, Y_HAND, [0, 1]) == pytest.approx(0.0)
    assert math.isnan(residual_redundancy(X_HAND, Y_HAND, [0]))


def test_residual_label_correlation_by_hand():
    # one label: S = [[1]]; unit-variance features give (1/n^2) <f, y>^2 = sigma_y^2 rho^2 = rho^2 / 4;
    # F = {f1, f3}: 1/4 (1 + 1/3) = 1/3; |1/3 - 1| / (2 * 1) = 1/3
    assert residual_label_correlation(X_HAND, Y_HAND, [0, 2]) == pytest.approx(1 / 3)
    assert math.isnan(residual_label_correlation(X_HAND, Y_HAND, [1]))


@pytest.mark.parametrize("seed", range(3))
def test_diagnostics_against_reference(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 8))
    labels = np.column_stack([X[:, 0] > 0, X[:, 1] + X[:, 0] > 0, rng.random(30) < 0.3]).astype(int)
    columns = [0, 1, 4, 6]
    assert residual_redundancy(X, labels, columns) == pytest.approx(residual_redundancy_ref(X, labels, columns))
    assert residual_label_correlation(X, labels, columns) == pytest.approx(
        residual_label_correlation_ref(X, labels, columns))
    S = label_rbf_ref(labels)
    frame = pd.DataFrame(X, columns=list("abcdefgh"))
    assert residual_label_correlation(frame, labels, ["a", "b", "e", "g"], S=S) == pytest.approx(
        residual_label_correlation_ref(X, labels, columns, S))
    mask = np.zeros(8, dtype=bool)
    mask[columns] = True
    assert residual_redundancy(X, labels, mask) == pytest.approx(residual_redundancy_ref(X, labels, columns))


def test_diagnostic_errors():
    with pytest.raises(ValueError, match=r"S: must be 1 x 1"):
        residual_label_correlation(X_HAND, Y_HAND, S=np.eye(2))
    with pytest.raises(ValueError, match="standardize: must be one of"):
        residual_label_correlation(X_HAND, Y_HAND, standardize="unit")
    with pytest.raises(ValueError, match="Y: must be a label matrix with one row per sample"):
        residual_redundancy(X_HAND, np.ones((3, 1)))


# ---------------------------------------------------------------- scikit-learn against fstools' former code
# The metrics are scikit-learn's after fstools' checks and filtering of degenerate rows / labels;
# these are fstools' former vectorised implementations, kept as the reference of that switch.
def _former_hamming_loss(truth, predicted):
    return float(np.mean(truth != predicted))


def _former_keep(truth, skip):
    count = truth.sum(axis=1)
    return ((count > 0) & (count < truth.shape[1])) if skip else np.ones(truth.shape[0], dtype=bool)


def _former_ranking_loss(truth, scores, skip):
    at_least = scores[:, None, :] >= scores[:, :, None]
    wrong = np.einsum("ijm,ij,im->i", at_least, truth, ~truth, dtype=np.float64)
    pairs = truth.sum(axis=1) * (~truth).sum(axis=1)
    losses = np.divide(wrong, pairs, out=np.zeros_like(wrong), where=pairs > 0)
    keep = _former_keep(truth, skip)
    return float(np.mean(losses[keep])) if keep.any() else float("nan")


def _former_average_precision(truth, scores, skip):
    at_least = scores[:, None, :] >= scores[:, :, None]
    rank = at_least.sum(axis=2)
    relevant_above = np.einsum("ijm,im->ij", at_least, truth, dtype=np.float64)
    ratio = np.where(truth, relevant_above / rank, 0.0)
    count = truth.sum(axis=1)
    precision = np.ones(truth.shape[0])
    has = count > 0
    precision[has] = ratio[has].sum(axis=1) / count[has]
    keep = _former_keep(truth, skip)
    return float(np.mean(precision[keep])) if keep.any() else float("nan")


def _former_macro_auc(truth, scores):
    from scipy.stats import rankdata

    values = []
    for j in range(truth.shape[1]):
        positive = truth[:, j]
        n_positive = int(positive.sum())
        n_negative = truth.shape[0] - n_positive
        if n_positive == 0 or n_negative == 0:
            continue
        ranks = rankdata(scores[:, j])
        values.append((ranks[positive].sum() - n_positive * (n_positive + 1) / 2.0) / (n_positive * n_negative))
    return float(np.mean(values)) if values else float("nan")


def _edge_cases(seed):
    """Random label matrices with ties, degenerate rows and single-valued labels, and small shapes."""
    rng = np.random.default_rng(seed)
    n, l = int(rng.integers(1, 30)), int(rng.integers(1, 7))
    truth = rng.random((n, l)) < rng.uniform(0.1, 0.9)
    scores = np.round(rng.random((n, l)), int(rng.integers(0, 3)))       # 0 decimals: all ties
    predicted = rng.random((n, l)) < 0.4
    if n > 2:
        truth[0] = False
        truth[1] = True
    if l > 2:
        truth[:, 2] = truth[0, 2]                                          # a single-valued label
    return truth, scores, predicted


@pytest.mark.parametrize("seed", range(40))
def test_equal_to_the_former_implementations(seed):
    truth, scores, predicted = _edge_cases(seed)
    same = dict(nan_ok=True, abs=1e-12)
    assert hamming_loss(truth, predicted) == pytest.approx(_former_hamming_loss(truth, predicted), abs=1e-15)
    for skip in (True, False):
        assert ranking_loss(truth, scores, skip) == pytest.approx(_former_ranking_loss(truth, scores, skip), **same)
        assert average_precision(truth, scores, skip) == pytest.approx(
            _former_average_precision(truth, scores, skip), **same)
    assert macro_auc(truth, scores) == pytest.approx(_former_macro_auc(truth, scores), **same)

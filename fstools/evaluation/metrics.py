"""Metrics: classification on imbalanced streams, multi-label classification.

Functions take NumPy arrays (or array-likes) and return numbers; they know
nothing of formulas.  Add functions, keep one concern per function, and list
them in ``__all__``.

The multi-label metrics are scikit-learn's (``hamming_loss``, ``label_ranking_loss``,
``label_ranking_average_precision_score``, ``roc_auc_score(average='macro')``) after
fstools' checks of the label matrix and, for the ranking metrics, the filtering of the
degenerate instances (``skip_degenerate``) and of the single-valued labels (macro AUC) that
the multi-label literature leaves out (Zhang & Zhou, "A review on multi-label learning
algorithms", IEEE TKDE 26(8), 2014; Zhang's MATLAB code and MULAN do the same).
``one_error`` is fstools' own: scikit-learn has no one-error (its ``coverage_error`` and
``top_k_accuracy_score`` measure other things).  ``g_mean`` and its parts are fstools' own
too: scikit-learn has no g-mean (imbalanced-learn's ``geometric_mean_score`` is not a
dependency), and :func:`sensitivity` / :func:`specificity` keep the paper's naming and 0/0
convention.
"""

__all__ = []


# ---- classification on imbalanced (streaming) data: Han et al. (2016), section 4.1 ----
# The paper's confusion matrix (Table 2): a = positives predicted positive, b = positives
# predicted negative, c = negatives predicted positive, d = negatives predicted negative.

import numpy as np  # noqa: E402

# The diagnostics of a selected set live with the results that print them; re-exported here.
from fstools.results.diagnostics import (  # noqa: E402
    redundancy_rate,
    residual_label_correlation,
    residual_redundancy,
)

__all__ += ["redundancy_rate", "residual_redundancy", "residual_label_correlation"]

__all__ += ["sensitivity", "specificity", "g_mean"]


def _label_pair(y_true, y_pred):
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    if y_true.ndim != 1 or y_pred.ndim != 1:
        raise ValueError(f"y_true, y_pred: must be 1-D label vectors; got shapes {y_true.shape}, {y_pred.shape}")
    if y_true.shape[0] != y_pred.shape[0]:
        raise ValueError(f"y_pred: has {y_pred.shape[0]} labels but y_true has {y_true.shape[0]}")
    if y_true.shape[0] == 0:
        raise ValueError("y_true: is empty")
    return y_true, y_pred


def _check_label(label, y_true, y_pred, name):
    present = np.union1d(np.unique(y_true), np.unique(y_pred))
    if not np.any(present == label):
        raise ValueError(f"{name}: {label!r} is not a label of y_true or y_pred; allowed: "
                         f"{', '.join(repr(v.item() if isinstance(v, np.generic) else v) for v in present[:10])}")


def _ratio(numerator, denominator, zero_division):
    return float(numerator) / float(denominator) if denominator else float(zero_division)


def sensitivity(y_true, y_pred, pos_label=1, zero_division=np.nan):
    """Accuracy on the positive class: a / (a + b) (the paper's a+, section 4.1).

    The recall of ``pos_label`` (scikit-learn's ``recall_score``).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    pos_label : label, default 1
        The positive class (in the paper the majority class, coded +1).
    zero_division : float, default NaN
        Returned when ``y_true`` has no positive (0 / 0).
    """
    y_true, y_pred = _label_pair(y_true, y_pred)
    _check_label(pos_label, y_true, y_pred, "pos_label")
    positive = y_true == pos_label
    return _ratio(np.sum(positive & (y_pred == pos_label)), np.sum(positive), zero_division)


def specificity(y_true, y_pred, pos_label=1, zero_division=np.nan):
    """Accuracy on the negative class: d / (c + d) (the paper's specificity, section 4.1).

    The negatives are the rows whose true label is not ``pos_label``; d counts
    those predicted as something other than ``pos_label`` (TN / (TN + FP)).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    pos_label : label, default 1
        The positive class; for the paper's {+1, -1} coding the default 1 makes
        this the accuracy on the minority class -1.
    zero_division : float, default NaN
        Returned when ``y_true`` has no negative (0 / 0).
    """
    y_true, y_pred = _label_pair(y_true, y_pred)
    _check_label(pos_label, y_true, y_pred, "pos_label")
    negative = y_true != pos_label
    return _ratio(np.sum(negative & (y_pred != pos_label)), np.sum(negative), zero_division)


def g_mean(y_true, y_pred, labels=None, zero_division=np.nan):
    """Geometric mean of the per-class accuracies (recalls).

    Two classes: ``sqrt(a+ x a-)`` with a+ = a / (a + b) and a- = d / (c + d)
    (Kubat and Matwin 1997; Han et al. 2016, section 4.1); with more classes
    the k-th root of the product of the k recalls.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    labels : sequence, optional
        The classes whose recalls enter; default: every label of ``y_true`` or ``y_pred``.
    zero_division : float, default NaN
        The recall of a class absent from ``y_true`` (0 / 0); with the default
        NaN the g-mean is NaN.
    """
    y_true, y_pred = _label_pair(y_true, y_pred)
    if labels is None:
        labels = np.union1d(np.unique(y_true), np.unique(y_pred))
    else:
        labels = list(labels)
        if len(labels) == 0:
            raise ValueError("labels: must name at least one class")
    recalls = []
    for label in labels:
        members = y_true == label
        recalls.append(_ratio(np.sum(members & (y_pred == label)), np.sum(members), zero_division))
    return float(np.prod(recalls) ** (1.0 / len(recalls)))


# ---- multi-label classification: Zhang & Zhou (2014, IEEE TKDE 26(8), section 2.2); ELC paper, section 5.1 ----
# y_true is an (n, l) 0/1 matrix, y_pred an (n, l) 0/1 prediction and y_score an (n, l) matrix of
# real-valued confidences (higher = more likely relevant; e.g. ML-kNN's posteriors).  Y_i is the set
# of relevant labels of instance i and Ybar_i its complement.  An instance is *degenerate* for the
# ranking metrics when Y_i or Ybar_i is empty (their definitions divide by |Y_i| or |Y_i||Ybar_i|).

__all__ += ["hamming_loss", "one_error", "ranking_loss", "average_precision", "macro_auc"]


def _label_indicator(y_true, name="y_true"):
    """An (n, l) 0/1 matrix as bool; ValueError naming ``name`` otherwise."""
    values = np.asarray(y_true)
    if values.ndim != 2:
        raise ValueError(f"{name}: must be a 2-D 0/1 label matrix (samples x labels); got shape {values.shape}")
    if values.shape[0] == 0 or values.shape[1] == 0:
        raise ValueError(f"{name}: is empty (shape {values.shape})")
    if values.dtype == object or not (np.issubdtype(values.dtype, np.number) or values.dtype == bool):
        raise ValueError(f"{name}: must hold 0/1 (or False/True); got dtype {values.dtype}")
    numeric = values.astype(np.float64)
    if not np.all((numeric == 0) | (numeric == 1)):
        found = np.unique(numeric[~((numeric == 0) | (numeric == 1))])
        raise ValueError(f"{name}: must hold only 0 and 1 (or False/True); found {found[:5].tolist()}")
    return numeric.astype(bool)


def _scores_like(y_score, shape, name="y_score"):
    scores = np.asarray(y_score, dtype=np.float64)
    if scores.shape != shape:
        raise ValueError(f"{name}: must have the shape of y_true {shape}; got {scores.shape}")
    if not np.isfinite(scores).all():
        raise ValueError(f"{name}: non-finite values (NaN or inf); allowed: finite numbers")
    return scores


def _check_skip(skip_degenerate):
    if not isinstance(skip_degenerate, (bool, np.bool_)):
        raise TypeError(f"skip_degenerate: must be True or False; got {skip_degenerate!r}")


def _mean_over(values, keep):
    return float(np.mean(values[keep])) if np.any(keep) else float("nan")


def hamming_loss(y_true, y_pred):
    """Hamming loss: the fraction of (instance, label) pairs predicted wrongly.

    ``hloss = 1/n sum_i |h(x_i) Delta Y_i| / l`` (Zhang & Zhou 2014, Eq. 4): symmetric
    difference between the predicted and the true label sets.  Lower is better;
    :func:`sklearn.metrics.hamming_loss` on the checked indicator matrices.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n, l), 0/1
    """
    from sklearn.metrics import hamming_loss as sklearn_hamming_loss

    truth = _label_indicator(y_true)
    predicted = _label_indicator(y_pred, "y_pred")
    if predicted.shape != truth.shape:
        raise ValueError(f"y_pred: must have the shape of y_true {truth.shape}; got {predicted.shape}")
    return float(sklearn_hamming_loss(truth.astype(np.int8), predicted.astype(np.int8)))


def one_error(y_true, y_score, skip_degenerate=True):
    """One-error: how often the top-ranked label is not relevant.

    ``one-error = 1/n sum_i [argmax_y f(x_i, y) not in Y_i]`` (Zhang & Zhou 2014, Eq. 6).
    Lower is better.  Ties for the top score go to the lowest label index (as ``max`` in
    Zhang's MATLAB code).

    Parameters
    ----------
    y_true : array-like of shape (n, l), 0/1
    y_score : array-like of shape (n, l)
    skip_degenerate : bool, default True
        Leave out instances with no relevant or no irrelevant label (as Zhang's code and
        MULAN do for all ranking metrics).  False: count them (the top label of an instance
        with no relevant label is always an error, of one with all labels relevant never).
        NaN when every instance is left out.
    """
    _check_skip(skip_degenerate)
    truth = _label_indicator(y_true)
    scores = _scores_like(y_score, truth.shape)
    top = np.argmax(scores, axis=1)
    errors = ~truth[np.arange(truth.shape[0]), top]
    keep = _non_degenerate(truth) if skip_degenerate else np.ones(truth.shape[0], dtype=bool)
    return _mean_over(errors.astype(np.float64), keep)


def _non_degenerate(truth):
    count = truth.sum(axis=1)
    return (count > 0) & (count < truth.shape[1])


def _over_instances(metric, truth, scores, skip_degenerate, degenerate_value):
    """``metric`` (a scikit-learn label-ranking metric, a mean over instances) over the
    non-degenerate instances; with ``skip_degenerate=False`` the degenerate ones enter the mean
    with ``degenerate_value`` (scikit-learn's convention).  NaN when no instance is left."""
    keep = _non_degenerate(truth)
    n_kept = int(keep.sum())
    if n_kept == 0:
        return float("nan") if skip_degenerate else float(degenerate_value)
    value = float(metric(truth[keep].astype(np.int8), scores[keep]))
    if skip_degenerate:
        return value
    return (value * n_kept + degenerate_value * (truth.shape[0] - n_kept)) / truth.shape[0]


def ranking_loss(y_true, y_score, skip_degenerate=True):
    """Ranking loss: the fraction of (relevant, irrelevant) label pairs ordered wrongly.

    ``rloss = 1/n sum_i |{(y', y'') in Y_i x Ybar_i : f(x_i, y') <= f(x_i, y'')}| / (|Y_i| |Ybar_i|)``
    (Zhang & Zhou 2014, Eq. 8).  A tie counts as an error (``<=``), as in the definition and in
    :func:`sklearn.metrics.label_ranking_loss`.  Lower is better.

    Parameters
    ----------
    y_true : array-like of shape (n, l), 0/1
    y_score : array-like of shape (n, l)
    skip_degenerate : bool, default True
        Leave out instances with no relevant or no irrelevant label (no pair; Zhang's code,
        MULAN).  False: count them as loss 0, as scikit-learn does.  NaN when every
        instance is left out.
    """
    from sklearn.metrics import label_ranking_loss

    _check_skip(skip_degenerate)
    truth = _label_indicator(y_true)
    scores = _scores_like(y_score, truth.shape)
    return _over_instances(label_ranking_loss, truth, scores, skip_degenerate, 0.0)


def average_precision(y_true, y_score, skip_degenerate=True):
    """Average precision of the label ranking (the ELC paper's "precision", Table 2a).

    ``avgprec = 1/n sum_i 1/|Y_i| sum_{y in Y_i} |{y' in Y_i : rank(y') <= rank(y)}| / rank(y)``
    (Zhang & Zhou 2014, Eq. 9), with ``rank(y) = |{y'' : f(x_i, y'') >= f(x_i, y)}|``: tied labels
    share the worst rank of their group, as in
    :func:`sklearn.metrics.label_ranking_average_precision_score`.  Higher is better.

    Parameters
    ----------
    y_true : array-like of shape (n, l), 0/1
    y_score : array-like of shape (n, l)
    skip_degenerate : bool, default True
        Leave out instances with no relevant or no irrelevant label (Zhang's code, MULAN).
        False: count them as precision 1, as scikit-learn does.  NaN when every instance is
        left out.
    """
    from sklearn.metrics import label_ranking_average_precision_score

    _check_skip(skip_degenerate)
    truth = _label_indicator(y_true)
    scores = _scores_like(y_score, truth.shape)
    # Instances with every label relevant have precision 1 by the formula; with none it is 0/0 (set to 1).
    return _over_instances(label_ranking_average_precision_score, truth, scores, skip_degenerate, 1.0)


def macro_auc(y_true, y_score):
    """Macro-averaged AUC: the mean over labels of the area under each label's ROC curve.

    ``AUC_j = |{(x', x'') : f(x', y_j) > f(x'', y_j), x' in P_j, x'' in N_j}| / (|P_j| |N_j|)`` with
    ties counted 1/2 (the Mann-Whitney statistic; Zhang & Zhou 2014, Eq. 11 count a tie as a
    success -- 1/2 is the usual convention and scikit-learn's), P_j / N_j the instances with /
    without label j.  Higher is better; equals ``roc_auc_score(y_true, y_score, average='macro')``.

    Labels whose column in ``y_true`` has only one value (AUC undefined) are left out of the mean
    (scikit-learn refuses them); NaN when that is every label.

    Parameters
    ----------
    y_true : array-like of shape (n, l), 0/1
    y_score : array-like of shape (n, l)
    """
    from sklearn.metrics import roc_auc_score

    truth = _label_indicator(y_true)
    scores = _scores_like(y_score, truth.shape)
    n_positive = truth.sum(axis=0)
    labels = np.flatnonzero((n_positive > 0) & (n_positive < truth.shape[0]))
    if labels.size == 0:
        return float("nan")
    if labels.size == 1:  # one label: a binary problem for scikit-learn
        return float(roc_auc_score(truth[:, labels[0]], scores[:, labels[0]]))
    return float(roc_auc_score(truth[:, labels].astype(np.int8), scores[:, labels], average="macro"))

"""Display names: the one table of how plots, tables and vignettes name methods, scores and metrics.

Every plot of fstools labels its axes from here, so that a method, a score or a metric reads the
same in every figure: a plain name, the symbol in brackets, and the direction, e.g.
``"Modularity [Q] (higher is better)"`` or ``"Laplacian score (lower is better)"``.

* :data:`METHOD_LABELS` -- registered method name -> display label ("mRMR", "MIFS-U", "Fisher score");
  :func:`method_label` falls back to the name itself (user labels of ``fs.compare`` stay as given);
* :data:`SCORE_NAMES` -- a method's score symbol (``MethodSpec.score_name``) -> (plain name, symbol);
  :data:`CONTINUOUS_SCORE_NAMES` -- the names that read differently for a continuous response
  (:func:`score_names` picks);
* :data:`RECORD_NAMES` -- per-step and per-iteration records (greedy path, convergence) ->
  (plain name, symbol, direction);
* :data:`METRIC_NAMES` -- evaluation metrics -> plain name;
* :func:`axis_label` puts the pieces together.
"""

__all__ = ["METHOD_LABELS", "SCORE_NAMES", "CONTINUOUS_SCORE_NAMES", "RECORD_NAMES", "METRIC_NAMES", "SCORE_NOTES",
           "PATH_NOTES", "NA_REASONS", "method_label", "axis_label", "score_names", "score_label", "record_label",
           "metric_label"]

#: Registered method name -> display label.
METHOD_LABELS = {
    "cmqfs": "CMQFS",
    "fisher": "Fisher score",
    "chi2": "Chi-square",
    "laplacian": "Laplacian score",
    "relieff": "ReliefF",
    "rrelieff": "RReliefF",
    "f_test": "F-test",
    "pearson": "Pearson correlation",
    "mim": "MIM",
    "mifs": "MIFS",
    "mifs_u": "MIFS-U",
    "mrmr": "mRMR",
    "jmi": "JMI",
    "cmim": "CMIM",
    "dfs": "DFS",
    "trace_ratio": "Trace ratio",
    "bahsic": "BAHSIC",
    "pa": "PA",
    "pa1": "PA-I",
    "pa2": "PA-II",
    "mbpa": "MBPA",
    "onpa": "ONPA",
    "cs": "CS",
    "elc": "ELC",
    "llsf": "LLSF",
    "ml_fisher": "Multi-label Fisher score",
    "ml_mi": "Multi-label MI",
    "ml_mifs": "ML-MIFS",
    "cmfs": "CMFS",
}

#: A method's score symbol (``MethodSpec.score_name``) -> (plain name, symbol or None).
SCORE_NAMES = {
    "Q": ("Modularity", "Q"),
    "fisher": ("Fisher score", None),
    "chi2": ("Chi-square statistic", "χ²"),
    "laplacian": ("Laplacian score", None),
    "relieff": ("ReliefF weight", None),
    "rrelieff": ("RReliefF weight", None),
    "F": ("F statistic", "F"),
    "|r|": ("Absolute Pearson correlation", "|r|"),
    "I(X;C)": ("Mutual information with the class", "I(X;C), nats"),
    "||a^i||": ("Row norm of the projection", "‖aⁱ‖"),
    "b_i - lambda* w_i": ("Trace-ratio weight", "b − λ*w"),
    "HSIC contribution": ("HSIC lost without the feature", "HSIC"),
    "|w|": ("Absolute weight", "|w|"),
    "Eq. 14 gain": ("Label-correlation gain", "G"),
    "||w_i||_2": ("Row norm of the weights", "‖wᵢ‖"),
    "mean Fisher": ("Fisher score, mean over labels", None),
    "mean MI (nats)": ("Mutual information, mean over labels", "nats"),
}

#: The entries of :data:`SCORE_NAMES` that name the class, as they read for a continuous response
#: (the methods taking one; a discretised response is named in the result's notes).
CONTINUOUS_SCORE_NAMES = {
    "I(X;C)": ("Mutual information with the response", "I(X;C), nats"),
}

#: Per-step and per-iteration records -> (plain name, symbol or None, direction or None).
RECORD_NAMES = {
    # greedy paths (MethodSpec.path_column)
    "w": ("Criterion of the chosen feature", "w", "higher is better"),
    "J": ("Criterion of the chosen feature", "J", "higher is better"),
    # convergence records
    "objective": ("Objective", None, "minimised"),
    "relaxed_objective": ("Relaxed objective", None, "minimised"),
    "divergence": ("Change of the row norms", "Div(k)", "0 at convergence"),
    "w_change": ("Change of the weights", "‖Wₜ₊₁ − Wₜ‖", "0 at convergence"),
    "trace_ratio": ("Trace ratio", "λ", "maximised"),
    "trace_sb": ("Between-class trace", "tr(AᵀS_bA)", None),
    "penalty": ("Row-sparsity penalty", None, None),
    "tau": ("Step size", "τ", None),
    "p_changes": ("Features entering or leaving", None, None),
}

#: Evaluation metrics -> plain name.
METRIC_NAMES = {
    "accuracy": "Accuracy",
    "error_rate": "Error rate",
    "balanced_accuracy": "Balanced accuracy",
    "f1_macro": "Macro F1",
    "g_mean": "G-mean",
    "specificity": "Specificity",
    "sensitivity": "Sensitivity",
    "mistake_rate": "Mistake rate",
    "average_precision": "Average precision",
    "macro_auc": "Macro AUC",
    "hamming_loss": "Hamming loss",
    "ranking_loss": "Ranking loss",
    "one_error": "One-error",
    "r2": "R²",
    "rmse": "RMSE",
    "mae": "MAE",
}

#: Why a method's score is 0 or missing for features it did not select (shown on its score plot).
SCORE_NOTES = {
    "elc": "unselected features: gain 0 (their rows of W stay 0); ranked by their objective alone",
}

#: Why a method's score columns hold NA for some features: method -> column -> reason (summaries).
NA_REASONS = {
    "cmqfs": {"w": "at rank 1 (no feature chosen before it)", "NRI": "at rank 1 (no feature chosen before it)"},
}

#: Why a greedy method's path has no value at some step (shown on its path plot).
PATH_NOTES = {
    "cmqfs": "the first feature is chosen by NQ alone; w needs a feature already chosen",
}

_LOWER_IS_BETTER_METRICS = {"error_rate", "mistake_rate", "hamming_loss", "ranking_loss", "one_error", "rmse", "mae"}


def method_label(name):
    """The display label of a method (``'mrmr'`` -> ``'mRMR'``); other names (user labels) unchanged."""
    return METHOD_LABELS.get(name, name)


def axis_label(plain, symbol=None, direction=None):
    """``'plain [symbol] (direction)'``, leaving out the parts that are None."""
    text = plain
    if symbol:
        text += f" [{symbol}]"
    if direction:
        text += f" ({direction})"
    return text


def score_names(score_name, response_type="class"):
    """(plain name, symbol or None) of a method's score (``MethodSpec.score_name``) for a response of
    ``response_type`` ('class', 'continuous', or None without one); unknown scores by their name."""
    if response_type == "continuous" and score_name in CONTINUOUS_SCORE_NAMES:
        return CONTINUOUS_SCORE_NAMES[score_name]
    return SCORE_NAMES.get(score_name, (score_name, None))


def score_label(score_name, higher_is_better=True, response_type="class"):
    """The axis label of a method's score: ``'Laplacian score (lower is better)'`` (named for a response
    of ``response_type``, see :func:`score_names`)."""
    plain, symbol = score_names(score_name, response_type)
    return axis_label(plain, symbol, "higher is better" if higher_is_better else "lower is better")


def record_label(column):
    """The axis label of a greedy-path or convergence record (unknown records by their name)."""
    plain, symbol, direction = RECORD_NAMES.get(column, (column.replace("_", " "), None, None))
    return axis_label(plain, symbol, direction)


def metric_label(metric, percent=False, higher_is_better=None):
    """The axis label of an evaluation metric: ``'Balanced accuracy [%] (higher is better)'``."""
    if higher_is_better is None:
        higher_is_better = metric not in _LOWER_IS_BETTER_METRICS
    plain = METRIC_NAMES.get(metric, metric.replace("_", " "))
    return axis_label(plain, "%" if percent else None, "higher is better" if higher_is_better else "lower is better")

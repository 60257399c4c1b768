"""``fs.compare``: several selection methods x feature counts x learners, cross-validated.

This is the evaluation protocol of the papers (CMQFS: Zhao et al. 2015, section 5): every
method ranks the features, a classifier is cross-validated on the top-p features for each
requested p, with the *same* splits for every method (a paired design), repeated with fresh
splits.  Two protocols:

* ``select_in_fold=False`` (the papers): each method ranks once, on all the data; then the
  classifier is cross-validated.  Every test fold took part in the selection, so accuracies are
  optimistic (selection bias; Ambroise & McLachlan 2002).
* ``select_in_fold=True`` (honest): each method ranks inside every training fold and the
  classifier is tested on the held-out fold, which the selector never saw.

In both, a method ranks once per data set (per fold when ``select_in_fold``) with ``k`` = the
largest feature count asked for, and the top-p set for every p is the first p of that ranking
(for the greedy methods the first p picks do not depend on ``k``).

The result is a :class:`fstools.evaluation.comparison_result.ComparisonResult` (tables, paired tests, plots).

The single-response metrics are scikit-learn's (``accuracy_score``, ``zero_one_loss``,
``recall_score(average='macro')`` over the classes of the test fold -- the balanced accuracy --
and ``f1_score(average='macro')``), except the g-mean: the metric of the imbalanced-stream
papers (Kubat & Matwin 1997; Han et al. 2016, section 4.1: the geometric mean of the per-class
recalls), which scikit-learn does not have (:func:`fstools.evaluation.metrics.g_mean`).  The
multi-label ones are :mod:`fstools.evaluation.metrics` (scikit-learn's after fstools' handling
of degenerate instances).  The default classifier is the exact 1-NN of
:mod:`fstools.evaluation.classifiers`.

A continuous response (decided as :func:`fstools.select` decides it, or ``response_type``) is
compared the same way with regression learners and metrics: the folds are shuffled but not
stratified (scikit-learn's ``KFold``), the default learner is the 1-NN regressor (the response
of the nearest training row), ``'ridge'`` and ``'svr'`` are built in, and the metrics are
scikit-learn's ``r2_score``, ``root_mean_squared_error`` and ``mean_absolute_error`` (the last
two lower-is-better, which the tables, tests and plots follow).

A failure inside a method or a classifier reaches the caller as the exception raised there
(a ValueError stays a ValueError), its message prefixed with the method, the data set and the
repeat and fold (:func:`fstools.core.failures.reraise_with_context`).
"""
import numbers
from collections import Counter
import time
import warnings
from typing import Any, Callable, NamedTuple

import numpy as np
import pandas as pd

from fstools.core.constraints import BOOLEAN, integer_at_least
from fstools.core.messages import suggest_keywords
from fstools.core.parallel import effective_n_threads, external_backend, local_scoring, run_tasks
from fstools.api.selection import run_method
from fstools.model.checked_frame import frame_response
from fstools.model.terms import ranked_terms, selection_design, selection_input
from fstools.core.arrays import standardize_columns
from fstools.core.constraints import RANDOM_STATE, is_integer, validate
from fstools.core.failures import reraise_with_context
from fstools.evaluation.comparison_result import ALL_DATASETS, ComparisonResult, Split
from fstools.model.exceptions import FormulaError
from fstools.model.formula import parse_formula
from fstools.model.frames import ACCEPTED_FRAMES, as_data_frame, is_data_frame_like, qualified_type
from fstools.evaluation import metrics as metric_functions
from fstools.evaluation.metrics import g_mean
from fstools.methods.registry import NA_ACTION_MEANINGS, check_na_action, check_response, get_method, method_names
from fstools.model.response import check_response_type
from fstools.model.validation import (check_finite_matrix, check_method_params, constant_columns,
                                      label_matrix, warn_constant_columns)

__all__ = ["compare", "CLASSIFIERS", "REGRESSORS", "METRICS", "MetricSpec"]

#: Built-in classifiers: name -> description (the estimators are built by _make_classifier).
CLASSIFIERS = {
    "1nn": "1-nearest neighbour, Euclidean (ties: the first training row)",
    "svm": "SVM, RBF kernel, default parameters (SVC(): C = 1, gamma = 1 / n_features on standardised data)",
    "linear_svm": "linear SVM (SVC(kernel='linear'), C = 1)",
    "mlknn": "ML-kNN for multi-label data (Zhang & Zhou 2007; k = 10, s = 1), fs.MLkNN",
}

#: Built-in learners for a continuous response: name -> description (built by _make_classifier).
#: '1nn' is the regression counterpart of the default classifier (k = 1 as there); 'ridge' and
#: 'svr' keep scikit-learn's defaults, and 'svr' fits the response standardised on the training
#: fold, because its epsilon (0.1) and C (1) are in the units of the response.
REGRESSORS = {
    "1nn": "1-nearest-neighbour regression, Euclidean: the response of the nearest training row (ties: the first)",
    "ridge": "ridge regression, alpha = 1 (Ridge(alpha=1.0))",
    "svr": ("SVR, RBF kernel, C = 1, epsilon = 0.1, gamma = 'scale', on the response standardised with the "
            "training fold's mean and sd (TransformedTargetRegressor(SVR(), transformer=StandardScaler()))"),
}

#: The built-in learners of each task ('single': one class response; 'multi': several 0/1
#: responses; 'continuous': one continuous response).
_LEARNERS = {"single": ("1nn", "svm", "linear_svm"), "multi": ("mlknn",), "continuous": tuple(REGRESSORS)}

_TASK_WORDS = {"single": "a class response", "multi": "multi-label data (several 0/1 responses)",
               "continuous": "a continuous response"}


def _allowed_learners(task):
    """The learners allowed for data of ``task``, in words."""
    kind = {"single": "classifier", "continuous": "regressor", "multi": "estimator"}[task]
    return f"{', '.join(map(repr, _LEARNERS[task]))} or a scikit-learn {kind} (an object with fit and predict)"


def _accuracy(y_true, y_pred, labels, score):
    from sklearn.metrics import accuracy_score

    return float(accuracy_score(y_true, y_pred))


def _error_rate(y_true, y_pred, labels, score):
    from sklearn.metrics import zero_one_loss

    return float(zero_one_loss(y_true, y_pred))


def _balanced_accuracy(y_true, y_pred, labels, score):
    # balanced_accuracy_score's value (mean recall of the classes of y_true), without its warning
    # when the fold's predictions hold a class that its truth lacks.
    from sklearn.metrics import recall_score

    return float(recall_score(y_true, y_pred, labels=np.unique(y_true), average="macro"))


def _f1_macro(y_true, y_pred, labels, score):
    from sklearn.metrics import f1_score

    return float(f1_score(y_true, y_pred, labels=labels, average="macro", zero_division=0.0))


def _g_mean(y_true, y_pred, labels, score):
    return g_mean(y_true, y_pred, labels=np.unique(y_true))


def _r2(y_true, y_pred, labels, score):
    from sklearn.metrics import r2_score

    return float(r2_score(y_true, y_pred))


def _rmse(y_true, y_pred, labels, score):
    from sklearn.metrics import root_mean_squared_error

    return float(root_mean_squared_error(y_true, y_pred))


def _mae(y_true, y_pred, labels, score):
    from sklearn.metrics import mean_absolute_error

    return float(mean_absolute_error(y_true, y_pred))


class _MultiLabelMetric:
    """A multi-label metric of :mod:`fstools.evaluation.metrics`, of the predictions or the label scores."""

    def __init__(self, name, uses_score):
        self.name = name
        self.uses_score = uses_score

    def __call__(self, y_true, y_pred, labels, score):
        return float(getattr(metric_functions, self.name)(y_true, score if self.uses_score else y_pred))


class _UserMetric:
    """A user's ``metric(y_true, y_pred)`` called as the built-in ones (picklable for joblib)."""

    def __init__(self, function):
        self.function = function

    def __call__(self, y_true, y_pred, labels, score):
        return float(self.function(y_true, y_pred))


class MetricSpec(NamedTuple):
    """A metric of ``compare``."""

    #: ``function(y_true, y_pred, labels, score) -> float``.
    function: Callable[..., float]
    higher_is_better: bool
    description: str
    #: 'single' (one class response), 'multi' (a 0/1 label matrix) or 'continuous' (one
    #: continuous response).
    task: str
    #: True when it ranks the labels by the classifier's scores (predict_proba / decision_function).
    needs_score: bool


#: Built-in metrics: name -> MetricSpec.
METRICS = {
    "accuracy": MetricSpec(_accuracy, True, "accuracy", "single", False),
    "error_rate": MetricSpec(_error_rate, False, "error rate (1 - accuracy)", "single", False),
    "balanced_accuracy": MetricSpec(_balanced_accuracy, True, "balanced accuracy (mean per-class recall)", "single",
                                    False),
    "f1_macro": MetricSpec(_f1_macro, True, "macro-averaged F1", "single", False),
    "g_mean": MetricSpec(_g_mean, True, "g-mean (geometric mean of the per-class recalls; fs.metrics.g_mean)",
                         "single", False),
    "average_precision": MetricSpec(_MultiLabelMetric("average_precision", True), True,
                                    "average precision of the label ranking (fs.metrics.average_precision)", "multi",
                                    True),
    "macro_auc": MetricSpec(_MultiLabelMetric("macro_auc", True), True, "macro-averaged AUC over the labels", "multi",
                            True),
    "hamming_loss": MetricSpec(_MultiLabelMetric("hamming_loss", False), False, "Hamming loss", "multi", False),
    "ranking_loss": MetricSpec(_MultiLabelMetric("ranking_loss", True), False, "ranking loss", "multi", True),
    "one_error": MetricSpec(_MultiLabelMetric("one_error", True), False, "one-error", "multi", True),
    "r2": MetricSpec(_r2, True, "R^2 (coefficient of determination, 1 - residual SS / total SS of the test fold)",
                     "continuous", False),
    "rmse": MetricSpec(_rmse, False, "RMSE (root mean squared error, in the units of the response)", "continuous",
                       False),
    "mae": MetricSpec(_mae, False, "MAE (mean absolute error, in the units of the response)", "continuous", False),
}
#: The metrics used when ``metrics`` is None.
DEFAULT_METRICS = {"single": ["accuracy"],
                   "multi": ["average_precision", "macro_auc", "hamming_loss", "ranking_loss", "one_error"],
                   "continuous": ["r2", "rmse", "mae"]}


class _Metric(NamedTuple):
    """A metric chosen for a comparison: its name in the results and what it is."""

    name: str
    spec: MetricSpec


class _Method(NamedTuple):
    """A method to compare: its label in the results, registered name, spec, the parameters as
    given and completed with the defaults."""

    label: str
    name: str
    spec: Any
    given: dict
    values: dict


class _Classifier(NamedTuple):
    """A classifier to cross-validate: its label, the estimator to clone, a description, and
    whether it is one of the built-in ones."""

    label: str
    prototype: Any
    description: str
    builtin: bool


class _FoldTask(NamedTuple):
    """One (repeat, fold) of a data set: what ``_evaluate_fold`` needs besides the data set."""

    split: Split
    methods: list
    classifiers: list
    metrics: list
    #: label -> term ranking on all the data, or None to select inside the training fold.
    rankings: Any
    standardize: bool
    select_threads: Any
    classifier_seed: int


class _ScoreRow(NamedTuple):
    classifier: str
    method: str
    k: int
    metric: str
    value: float


class _TimingRow(NamedTuple):
    dataset: str
    method: str
    repeat: Any
    fold: Any
    seconds: float


class _RankingRow(NamedTuple):
    dataset: str
    method: str
    repeat: Any
    fold: Any
    rank: int
    feature: str


class _FoldResult(NamedTuple):
    scores: list
    timings: list
    rankings: dict


# --------------------------------------------------------------------------- validation
def _check_count(value, name, minimum, what):
    """An integer >= minimum: TypeError for a non-integer, ValueError below the minimum (one wording)."""
    return validate(integer_at_least(minimum, what), value, name, right_type=is_integer)


def _method_label(name, params):
    if not params:
        return name
    return f"{name}(" + ", ".join(f"{key}={value!r}" for key, value in params.items()) + ")"


def _repeated(labels):
    """The labels that occur more than once, sorted."""
    return sorted(label for label, count in Counter(labels).items() if count > 1)


def _normalise_methods(methods):
    """[_Method] from names, (name, params) pairs or a dict."""
    if isinstance(methods, (str, tuple)):
        methods = [methods]
    if isinstance(methods, dict):
        items = list(methods.items())
    else:
        try:
            items = [(None, entry) for entry in methods]
        except TypeError:
            raise TypeError(f"methods: must be a list of method names or (name, params) pairs, or a dict "
                            f"label -> name or (name, params); got {type(methods).__name__}") from None
    if not items:
        raise ValueError("methods: is empty; give at least one method (see fs.list_methods())")
    normalised = []
    for label, entry in items:
        if isinstance(entry, str):
            name, params = entry, {}
        elif (isinstance(entry, (tuple, list)) and len(entry) == 2 and isinstance(entry[0], str)
              and isinstance(entry[1], dict)):
            name, params = entry[0], dict(entry[1])
        else:
            raise TypeError(f"methods: each entry must be a method name or a (name, params) pair with params "
                            f"a dict; got {entry!r}")
        spec = get_method(name)
        values = check_method_params(spec, params)
        if label is not None and not isinstance(label, str):
            raise TypeError(f"methods: labels (the dict keys) must be strings; got {label!r}")
        normalised.append(_Method(label, name, spec, params, values))
    # Labels: as given; else the name, with the parameters when a name repeats.
    names = [method.name for method in normalised if method.label is None]
    normalised = [method if method.label is not None else method._replace(
                      label=method.name if names.count(method.name) == 1 else _method_label(method.name, method.given))
                  for method in normalised]
    labels = [method.label for method in normalised]
    duplicates = _repeated(labels)
    if duplicates:
        raise ValueError(f"methods: the same method and parameters given more than once "
                         f"({', '.join(duplicates)}); give each once, or label them with a dict")
    return normalised


def _make_classifier(name, task):
    """A fresh built-in learner ``name`` for data of ``task``."""
    # imported at first use: scikit-learn takes longer to import than fstools
    from sklearn.svm import SVC
    from fstools.evaluation.classifiers import OneNearestNeighbor  # subclasses scikit-learn's classes
    from fstools.evaluation.mlknn import MLkNN  # subclasses scikit-learn's classes

    if task == "continuous":
        from fstools.evaluation.classifiers import OneNearestNeighborRegressor  # subclasses scikit-learn's classes
        from sklearn.compose import TransformedTargetRegressor
        from sklearn.linear_model import Ridge
        from sklearn.preprocessing import StandardScaler
        from sklearn.svm import SVR

        if name == "1nn":
            return OneNearestNeighborRegressor()
        if name == "ridge":
            return Ridge(alpha=1.0)
        return TransformedTargetRegressor(regressor=SVR(), transformer=StandardScaler())
    if name == "1nn":
        return OneNearestNeighbor()
    if name == "svm":
        return SVC()
    if name == "linear_svm":
        return SVC(kernel="linear")
    return MLkNN()


def _describe_estimator(estimator):
    text = repr(estimator)
    return " ".join(text.split())


def _estimator_type(estimator):
    """'classifier', 'regressor' or None (not declared: an estimator without scikit-learn's tags)."""
    from sklearn.utils import get_tags  # imported at first use: scikit-learn takes longer to import than fstools

    try:
        return get_tags(estimator).estimator_type
    except (AttributeError, TypeError):
        return None


def _wrong_task_learner(name, task):
    """The error for built-in learner ``name``, which does not take data of ``task``."""
    if task == "multi":
        return ValueError(f"classifier: {name!r} predicts one response; for multi-label data (several "
                          f"responses) use 'mlknn' or an estimator that predicts a label matrix")
    if name == "mlknn":
        return ValueError(f"classifier: 'mlknn' is for multi-label data (several 0/1 responses, 'y1 + y2 ~ .'); "
                          f"for {_TASK_WORDS[task]} use {_allowed_learners(task)}")
    if task == "continuous":
        return ValueError(f"classifier: {name!r} is a classifier, for a class response; for a continuous response "
                          f"use {_allowed_learners(task)} (or response_type='class' if the response is classes)")
    return ValueError(f"classifier: {name!r} is a regressor, for a continuous response; for a class response use "
                      f"{_allowed_learners(task)} (or response_type='continuous' if the response is a number)")


def _check_estimator_task(entry, task):
    """Refuse a scikit-learn classifier for a continuous response and a regressor for classes."""
    kind = _estimator_type(entry)
    name = type(entry).__name__
    if task == "continuous" and kind == "classifier":
        raise ValueError(f"classifier: {name} is a classifier; a continuous response needs a regressor: "
                         f"{_allowed_learners(task)} (or response_type='class' if the response is classes)")
    if task == "single" and kind == "regressor":
        raise ValueError(f"classifier: {name} is a regressor; a class response needs a classifier: "
                         f"{_allowed_learners(task)} (or response_type='continuous' if the response is a number)")


def _normalise_classifiers(classifier, task):
    """[_Classifier] for data of ``task`` from a name, an estimator, a list or a dict."""
    if isinstance(classifier, dict):
        items = list(classifier.items())
        if not items:
            raise ValueError(f"classifier: is empty; allowed: {_allowed_learners(task)}")
    elif isinstance(classifier, (list, tuple)):
        items = [(None, entry) for entry in classifier]
        if not items:
            raise ValueError(f"classifier: is empty; allowed: {_allowed_learners(task)}")
    else:
        items = [(None, classifier)]
    descriptions = REGRESSORS if task == "continuous" else CLASSIFIERS
    out = []
    for label, entry in items:
        if isinstance(entry, str):
            if entry not in CLASSIFIERS and entry not in REGRESSORS:
                raise ValueError(f"classifier: unknown classifier {entry!r}; allowed: {_allowed_learners(task)}")
            if entry not in _LEARNERS[task]:
                raise _wrong_task_learner(entry, task)
            out.append(_Classifier(label or entry, _make_classifier(entry, task), descriptions[entry], True))
        elif isinstance(entry, type):
            raise TypeError(f"classifier: got the class {entry.__name__}; pass an instance such as "
                            f"{entry.__name__}()")
        elif hasattr(entry, "fit") and hasattr(entry, "predict"):
            from sklearn.base import clone

            try:
                clone(entry)
            except Exception as error:
                raise TypeError(f"classifier: {type(entry).__name__} cannot be cloned by scikit-learn "
                                f"({error}); allowed: {_allowed_learners(task)}") from None
            _check_estimator_task(entry, task)
            out.append(_Classifier(label or type(entry).__name__, entry, _describe_estimator(entry), False))
        else:
            raise TypeError(f"classifier: got {entry!r}; allowed: {_allowed_learners(task)}")
    labels = [classifier.label for classifier in out]
    duplicates = _repeated(labels)
    if duplicates:
        raise ValueError(f"classifier: label(s) {', '.join(duplicates)} given more than once; name them "
                         f"with a dict, e.g. {{'rf100': RandomForestClassifier(100), ...}}")
    return out


def _normalise_metrics(metrics, task):
    """[_Metric] for data of ``task``."""
    if metrics is None:
        metrics = DEFAULT_METRICS[task]
    if isinstance(metrics, str) or callable(metrics):
        metrics = [metrics]
    if isinstance(metrics, dict):
        items = list(metrics.items())
    else:
        items = [(None, entry) for entry in metrics]
    if not items:
        raise ValueError(f"metrics: is empty; allowed: {', '.join(METRICS)} or functions metric(y_true, y_pred)")
    out = []
    for name, entry in items:
        if isinstance(entry, str):
            if entry not in METRICS:
                raise ValueError(f"metrics: unknown metric {entry!r}; allowed: {', '.join(map(repr, METRICS))} "
                                 f"or functions metric(y_true, y_pred) (higher is better)")
            spec = METRICS[entry]
            if spec.task != task:
                allowed = [m for m, other in METRICS.items() if other.task == task]
                what = {"multi": "multi-label data (several responses)", "single": "one response",
                        "continuous": "a continuous response"}[task]
                if task == "single" and spec.task == "continuous":
                    what = "a class response (it is for a continuous response)"
                raise ValueError(f"metrics: {entry!r} does not apply to {what}; allowed: "
                                 f"{', '.join(map(repr, allowed))} or functions metric(y_true, y_pred)")
            out.append(_Metric(name or entry, spec))
        elif callable(entry):
            label = name or getattr(entry, "__name__", None)
            if not label or label == "<lambda>":
                raise ValueError("metrics: give functions a name with a dict, e.g. metrics={'kappa': "
                                 "cohen_kappa_score}")
            out.append(_Metric(label, MetricSpec(_UserMetric(entry), True, f"{label} (user function; higher is "
                                                                            f"better)", task, False)))
        else:
            raise TypeError(f"metrics: got {entry!r}; allowed: {', '.join(map(repr, METRICS))} or functions "
                            f"metric(y_true, y_pred)")
    names = [metric.name for metric in out]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"metrics: {', '.join(duplicates)} given more than once")
    return out


def _check_feature_counts(k, n_terms, dataset):
    """Sorted unique feature counts in 1..n_terms, from None, an int, a range or a list."""
    where = (f" (the number of features of data set {dataset!r})" if dataset is not None
             else " (the number of features)")
    if k is None:
        return list(range(1, n_terms + 1))
    if isinstance(k, bool):
        raise TypeError(f"k: must be an integer, a range or a list of integers in 1..{n_terms}; got {k!r}")
    if isinstance(k, numbers.Integral):
        values = [k]
    else:
        try:
            values = list(k)
        except TypeError:
            raise TypeError(f"k: must be an integer, a range or a list of integers in 1..{n_terms}; "
                            f"got {k!r}") from None
    if not values:
        raise ValueError(f"k: is empty; give feature counts in 1..{n_terms}{where}")
    for value in values:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"k: feature counts must be integers in 1..{n_terms}; got {value!r}")
    bad = [int(v) for v in values if not 1 <= int(v) <= n_terms]
    if bad:
        raise ValueError(f"k: feature counts must be in 1..{n_terms}{where}; got {bad[0]}")
    return sorted({int(v) for v in values})


def _check_task(datasets, methods):
    """'single' (a class response), 'multi' (several 0/1 responses) or 'continuous': the same for every
    data set, and methods that fit it."""
    tasks = {dataset.task for dataset in datasets}
    if len(tasks) > 1:
        multi = [dataset.name for dataset in datasets if dataset.multilabel]
        if multi:
            raise ValueError(f"data: mixes multi-label data sets ({', '.join(multi)}) with single-response ones; "
                             f"compare them separately")
        continuous = [dataset.name for dataset in datasets if dataset.task == "continuous"]
        classes = [dataset.name for dataset in datasets if dataset.task == "single"]
        raise ValueError(f"data: mixes data sets with a continuous response ({', '.join(continuous)}) and with "
                         f"classes ({', '.join(classes)}); compare them separately, or give response_type")
    task = tasks.pop()
    for method in methods:
        label, name, spec = method.label, method.name, method.spec
        multilabel_method = "multilabel" in spec.capabilities
        if task == "multi" and not multilabel_method:
            allowed = [m for m in method_names() if "multilabel" in get_method(m).capabilities]
            dataset = datasets[0]
            raise ValueError(f"methods: {label!r} ({name}) takes one response, but data set {dataset.name!r} has "
                             f"{len(dataset.class_names)} labels ({', '.join(dataset.class_names)}); multi-label "
                             f"methods: {', '.join(allowed) or 'none registered'}")
        if task == "single" and multilabel_method:
            raise ValueError(f"methods: {label!r} ({name}) is a multi-label method and needs several 0/1 "
                             f"responses ('y1 + y2 + y3 ~ .'); the formula has one")
        if "streaming" in spec.capabilities and task == "single":
            for dataset in datasets:
                if len(dataset.class_names) != 2:
                    raise ValueError(f"methods: {label!r} ({name}) is an online method for a binary response, "
                                     f"but data set {dataset.name!r} has {len(dataset.class_names)} classes")
    return task


def _format_call(formula, methods, k, classifier, cv, repeats, metrics, random_state, n_jobs, select_in_fold,
                 standardize, response_type=None):
    def show_methods():
        shown = []
        for method in methods:
            shown.append(repr(method.name) if not method.given else repr((method.name, method.given)))
        return "[" + ", ".join(shown) + "]"

    def show_k(value):
        if isinstance(value, range):
            return repr(value)
        if isinstance(value, dict):
            return "{" + ", ".join(f"{key!r}: {show_k(item)}" for key, item in value.items()) + "}"
        if isinstance(value, (list, tuple, np.ndarray)):
            return repr([int(v) if isinstance(v, numbers.Integral) else v for v in value])
        return repr(value)

    parts = [repr(formula), "data", f"methods={show_methods()}", f"k={show_k(k)}"]
    if isinstance(classifier, str):
        parts.append(f"classifier={classifier!r}")
    elif isinstance(classifier, dict):
        parts.append("classifier={" + ", ".join(f"{key!r}: {value!r}" if isinstance(value, str) else
                                                f"{key!r}: {type(value).__name__}(...)"
                                                for key, value in classifier.items()) + "}")
    elif isinstance(classifier, (list, tuple)):
        parts.append("classifier=[" + ", ".join(repr(value) if isinstance(value, str) else
                                                f"{type(value).__name__}(...)" for value in classifier) + "]")
    else:
        parts.append(f"classifier={type(classifier).__name__}(...)")
    parts += [f"cv={cv}", f"repeats={repeats}"]
    if metrics is not None:
        parts.append(f"metrics={[m if isinstance(m, str) else getattr(m, '__name__', 'f') for m in metrics]!r}"
                     if isinstance(metrics, (list, tuple)) else f"metrics={metrics!r}")
    parts.append(f"random_state={random_state!r}")
    if n_jobs is not None:
        parts.append(f"n_jobs={n_jobs!r}")
    if select_in_fold:
        parts.append("select_in_fold=True")
    if not standardize:
        parts.append("standardize=False")
    if response_type is not None:
        parts.append(f"response_type={response_type!r}")
    return f"compare({', '.join(parts)})"


# --------------------------------------------------------------------------- data
class _Dataset:
    """One data set, ready for the protocol: arrays, term map, feature counts, splits."""

    def __init__(self, name, formula, frame, na_action, k, formula_mode="safe", response_type=None, methods=()):
        frame = as_data_frame(frame, f"data[{name!r}]" if name is not None else "data")
        model = parse_formula(formula, frame, na_action=na_action, formula_mode=formula_mode)
        self.name = name if name is not None else "data"
        self.multilabel = len(model.response_names) > 1
        self.response_type, self.response_reason, self.notes = None, None, []
        if self.multilabel:
            # Several 0/1 responses: a label matrix (multi-label methods, ML-kNN, multi-label metrics).
            if response_type is not None:
                raise TypeError(f"response_type: the formula has several 0/1 responses (multi-label data), which "
                                f"take no response_type; got response_type={response_type!r}")
            self.y = label_matrix(model.response)
            self.class_names = list(model.response_names)
            self.class_counts = self.y.sum(axis=0).astype(int)
            response = " + ".join(model.response_names)
        else:
            response = model.response_names[0]
            # The response decided as fs.select decides it; every method must take its type.
            target = frame_response(model, response_type, methods[0].spec, stacklevel=6)
            for method in methods[1:]:
                check_response(method.spec, target.kind)
            self.response_type, self.response_reason = target.kind, target.reason
            self.notes = list(target.notes)
            self.y = target.values
            if target.kind == "class":
                self.class_names = list(target.class_names)
                self.class_counts = np.bincount(self.y, minlength=len(self.class_names))
            else:
                self.class_names, self.class_counts = None, None
        where = "data" if name is None else f"data[{name!r}]"
        check_finite_matrix(model.X, model.column_names, name=where)
        # stacklevel: _Dataset, compare, its suggest_keywords wrapper, the caller
        warn_constant_columns(constant_columns(model.X, list(model.column_names)), where,
                              "labels" if self.multilabel else "response", stacklevel=4)
        self.X = np.ascontiguousarray(model.X, dtype=np.float64)
        self.response = response
        self.n_dropped = int(model.n_dropped)
        self.column_names = list(model.column_names)
        column_terms = list(model.column_terms)
        self.terms = list(dict.fromkeys(column_terms))
        if not self.terms:
            raise FormulaError(f"formula {formula!r}: no predictor has any design column")
        index = {term: t for t, term in enumerate(self.terms)}
        self.column_term_index = [index[term] for term in column_terms]
        self.term_columns = [[] for _ in self.terms]
        for j, t in enumerate(self.column_term_index):
            self.term_columns[t].append(j)
        self.ks = _check_feature_counts(k, len(self.terms), name)
        # What each kind of method ranks: a factor as its level codes or dummies, as fs.select has it.
        self.designs = {}
        for method in methods:
            if method.spec.factors not in self.designs:
                self.designs[method.spec.factors] = selection_design(method.spec, self.X, self.column_names,
                                                                     column_terms, self.terms)

    @property
    def n(self):
        return int(self.X.shape[0])

    def info(self):
        continuous = self.response_type == "continuous"
        return {"n": self.n, "n_dropped": self.n_dropped, "n_features": len(self.terms),
                "n_columns": len(self.column_names), "classes": None if continuous else list(self.class_names),
                "class_counts": None if continuous else [int(c) for c in self.class_counts],
                "response": self.response, "multilabel": self.multilabel,
                "response_type": "multilabel" if self.multilabel else self.response_type,
                "response_reason": self.response_reason, "notes": list(self.notes), "k": list(self.ks)}

    @property
    def task(self):
        if self.multilabel:
            return "multi"
        return "continuous" if self.response_type == "continuous" else "single"

    def top_columns(self, term_ranking, p):
        """Design columns of the first ``p`` terms of ``term_ranking`` (sorted)."""
        return tuple(sorted(j for t in term_ranking[:p] for j in self.term_columns[t]))


def _make_splits(dataset, cv, repeat_seeds):
    """[Split] (repeat and fold from 1) for every repeat: stratified folds for classes, shuffled folds
    (``KFold``) for multi-label data and a continuous response."""
    from sklearn.model_selection import KFold, StratifiedKFold

    if dataset.multilabel or dataset.response_type == "continuous":
        if cv > dataset.n:
            raise ValueError(f"cv: {cv} folds but data set {dataset.name!r} has only {dataset.n} rows; "
                             f"allowed: 2..{dataset.n}")
        return [Split(repeat, fold, train, test) for repeat, seed in enumerate(repeat_seeds, start=1)
                for fold, (train, test) in enumerate(KFold(n_splits=cv, shuffle=True, random_state=int(seed))
                                                     .split(dataset.X), start=1)]
    largest = int(np.max(dataset.class_counts))
    if cv > dataset.n:
        raise ValueError(f"cv: {cv} folds but data set {dataset.name!r} has only {dataset.n} rows; "
                         f"allowed: 2..{dataset.n}")
    if cv > largest:
        raise ValueError(f"cv: {cv} folds but no class of data set {dataset.name!r} has that many rows (largest "
                         f"class: {largest}); stratified folds need cv <= {largest}")
    smallest = int(np.min(dataset.class_counts))
    if cv > smallest:
        warnings.warn(f"cv: data set {dataset.name!r} has a class with only {smallest} rows, fewer than the "
                      f"{cv} folds: some test folds miss that class", UserWarning, stacklevel=4)
    splits = []
    dummy = np.zeros((dataset.n, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # said above, in our words
        for repeat, seed in enumerate(repeat_seeds, start=1):
            folds = StratifiedKFold(n_splits=cv, shuffle=True, random_state=int(seed))
            for fold, (train, test) in enumerate(folds.split(dummy, dataset.y), start=1):
                splits.append(Split(repeat, fold, train, test))
    return splits


# --------------------------------------------------------------------------- the work
def _rank_terms(dataset, label, spec, values, X, y, n_threads, where):
    """Term indices in the method's order, as many as the largest feature count; and the seconds.

    ``X`` holds the rows of ``dataset.designs[spec.factors]`` to rank on (:func:`selection_input`)."""
    design = dataset.designs[spec.factors]
    k_max = max(dataset.ks)
    n_columns = min(len(design.column_names), k_max + design.extra_columns)
    run_values = {**values, **design.keywords}
    if "streaming" in spec.capabilities:
        run_values["class_names"] = dataset.class_names
    started = time.perf_counter()
    try:
        output = run_method(spec, X, y, n_columns, run_values, n_threads, column_names=design.column_names,
                            response_type=dataset.response_type or "class")
    except Exception as error:
        reraise_with_context(error, f"method {label!r} ({spec.name}) failed on data set {dataset.name!r}{where}")
    seconds = time.perf_counter() - started
    terms = ranked_terms(output, spec.higher_is_better, design.column_term_index, k_max)
    return terms, seconds


def _prepare_estimator(prototype, seed):
    from sklearn.base import clone

    estimator = clone(prototype)
    params = estimator.get_params(deep=False)
    if "random_state" in params and params["random_state"] is None:
        estimator.set_params(random_state=int(seed))
    return estimator


def _evaluate_fold(dataset, task):
    """One (data set, repeat, fold): (optionally) select, then every classifier x method x p.

    The data set is an argument of its own, so that joblib's Dask backend sends it to the
    cluster once, not once per fold; ``task`` is a :class:`_FoldTask`.  The per-feature scoring
    inside runs in place (the folds are the tasks).  Returns a :class:`_FoldResult`.
    """
    with local_scoring():
        return _evaluate_fold_here(dataset, task)


def _evaluate_fold_here(dataset, task):
    import sklearn

    split = task.split
    train, test = split.train, split.test
    rows = []
    timings = []
    fold_rankings = {}
    rankings = task.rankings
    where = f" (repeat {split.repeat}, fold {split.fold})"
    if rankings is None:  # select inside the training fold
        y_train = np.ascontiguousarray(dataset.y[train])
        rankings = {}
        inputs = {}   # one standardised training fold per kind of design
        for method in task.methods:
            factors = method.spec.factors
            if factors not in inputs:
                inputs[factors] = selection_input(dataset.designs[factors], train, task.standardize)
            rankings[method.label], seconds = _rank_terms(dataset, method.label, method.spec, method.values,
                                                          inputs[factors], y_train, task.select_threads, where)
            timings.append((method.label, seconds))
        fold_rankings = rankings
    y_train = dataset.y[train]
    y_test = dataset.y[test]
    # Standardisation fitted on the training fold: column by column, so standardising all the
    # columns once and then taking the top-p ones is Pipeline(StandardScaler(), classifier) on them.
    X_train = dataset.X[train]
    X_test = dataset.X[test]
    if task.standardize:
        X_test = standardize_columns(X_test, reference=X_train)
        X_train = standardize_columns(X_train)
    labels = None if dataset.class_names is None or dataset.multilabel else np.arange(len(dataset.class_names))
    needs_score = any(metric.spec.needs_score for metric in task.metrics)
    cache = {}
    # One clone per classifier and fold (fit starts afresh; cloning costs more than small fits).
    models = {classifier.label: _prepare_estimator(classifier.prototype, task.classifier_seed)
              for classifier in task.classifiers}
    for classifier in task.classifiers:
        # The data are finite (checked), and the built-in classifiers' parameters are ours:
        # skip scikit-learn's per-call checks for them (speed only).
        with sklearn.config_context(assume_finite=True, skip_parameter_validation=classifier.builtin):
            for method in task.methods:
                for p in dataset.ks:
                    columns = dataset.top_columns(rankings[method.label], p)
                    key = (classifier.label, columns)
                    if key not in cache:
                        model = models[classifier.label]
                        try:
                            model.fit(X_train[:, columns], y_train)
                            predicted = np.asarray(model.predict(X_test[:, columns]))
                            score = _label_scores(model, X_test[:, columns]) if needs_score else None
                        except Exception as error:
                            reraise_with_context(error, f"classifier {classifier.label!r} failed on data set "
                                                        f"{dataset.name!r}{where} with the top {p} features of "
                                                        f"method {method.label!r}")
                        cache[key] = [metric.spec.function(y_test, predicted, labels, score)
                                      for metric in task.metrics]
                    for metric, value in zip(task.metrics, cache[key]):
                        rows.append(_ScoreRow(classifier.label, method.label, p, metric.name, value))
    return _FoldResult(rows, timings, fold_rankings)


def _label_scores(model, X):
    """Label scores (n x labels) for the ranking metrics: predict_proba, else decision_function."""
    if hasattr(model, "predict_proba"):
        scores = model.predict_proba(X)
        if isinstance(scores, list):  # scikit-learn's multi-output classifiers: one (n, 2) array per label
            columns = []
            for classes, proba in zip(getattr(model, "classes_", [None] * len(scores)), scores):
                present = list(classes) if classes is not None else [0, 1]
                columns.append(proba[:, present.index(1)] if 1 in present else np.zeros(len(proba)))
            scores = np.column_stack(columns)
        return np.asarray(scores, dtype=np.float64)
    if hasattr(model, "decision_function"):
        return np.asarray(model.decision_function(X), dtype=np.float64)
    raise TypeError(f"metrics: the ranking metrics need label scores, and {type(model).__name__} has neither "
                    f"predict_proba nor decision_function; use 'hamming_loss' or a function of the predictions")


@suggest_keywords
def compare(formula, data, methods, k=None, classifier=None, *, cv=10, repeats=10, metrics=None,
            random_state=None, n_jobs=None, select_in_fold=False, standardize=True, na_action="drop",
            progress=True, formula_mode="safe", response_type=None):
    """Compare feature-selection methods by the cross-validated accuracy of their top-p features.

    The protocol of the papers (CMQFS: Zhao et al. 2015, section 5.2): features standardised,
    each method ranks the features, a classifier is trained on the top-p features for each
    requested p, ``cv``-fold stratified cross-validation repeated ``repeats`` times, the same
    splits for every method within a repeat (paired design).

    A continuous response is compared the same way with a regression learner (default: 1-NN
    regression; ``'ridge'``, ``'svr'`` or any scikit-learn regressor), R^2, RMSE and MAE, and
    shuffled, not stratified, folds (``KFold``).

    Parameters
    ----------
    formula : str
        ``"class ~ ."`` etc., as for :func:`fstools.select`; several 0/1 responses
        (``"y1 + y2 + y3 ~ ."``) make a multi-label comparison (multi-label methods, ML-kNN,
        folds shuffled but not stratified).
    data : pandas.DataFrame or dict of str -> DataFrame
        One data set, or several by name (the formula applies to each): per-data-set tables
        and tests pooled across data sets (as the CMQFS paper's Tables 7-8).  Not modified.
    methods : list or dict
        Method names (``"cmqfs"``), ``(name, params)`` pairs (``("mifs", {"beta": 1.0})``),
        or a dict ``label -> name or (name, params)`` to choose the labels shown.
    k : int, range, list of int, dict of data set -> those, or None
        The feature counts p to evaluate (``range(1, 11)`` for the papers' p = 1..lambda); an
        int is one count; None: every count 1..n_features.  Each must be in 1..n_features.
    classifier : str, estimator, list or dict, optional
        The learner.  Classes: ``'1nn'`` (1-nearest neighbour, Euclidean; the default), ``'svm'``
        (RBF SVM with default parameters, the papers' SVM), ``'linear_svm'``; ``'mlknn'``
        (ML-kNN, for multi-label data: the default when the formula has several 0/1 responses,
        ``"y1 + y2 + y3 ~ ."``).  A continuous response: ``'1nn'`` (1-nearest-neighbour
        regression, the response of the nearest training row; the default), ``'ridge'``
        (``Ridge(alpha=1.0)``), ``'svr'`` (``SVR()``: RBF, C = 1, epsilon = 0.1, fitted to the
        response standardised on the training fold, as its epsilon and C are in the response's
        units).  Or any scikit-learn classifier or regressor (cloned for each fold; a
        ``random_state`` left at None is fixed from ``random_state``); several as a list or a
        dict ``label -> classifier``.  A classifier for a continuous response, or a regressor
        for classes, is refused.
    cv : int, default 10
        Folds (stratified by class for a class response; shuffled for a continuous response and
        multi-label data), at least 2.
    repeats : int, default 10
        Repetitions of the cross-validation with fresh splits (the papers' 10 runs).
    metrics : str, function or list, optional
        Classes: ``'accuracy'`` (the default), ``'error_rate'``, ``'balanced_accuracy'``,
        ``'f1_macro'``, ``'g_mean'``.  A continuous response: ``'r2'``, ``'rmse'``, ``'mae'``
        (all three by default; scikit-learn's ``r2_score``, ``root_mean_squared_error``,
        ``mean_absolute_error``; RMSE and MAE are lower-is-better).  Multi-label:
        ``'average_precision'``, ``'macro_auc'``, ``'hamming_loss'``, ``'ranking_loss'``,
        ``'one_error'`` (all five by default; the ranking ones use the classifier's
        ``predict_proba``).  Or functions ``metric(y_true, y_pred)``
        (higher is better; name them with a dict ``{'kappa': cohen_kappa_score}``).
    random_state : int or None
        Seeds the splits (and classifiers' ``random_state`` left at None): the same value gives
        the same result, for any ``n_jobs``.
    n_jobs : int or None
        Folds evaluated in parallel through joblib, in threads (the kernels release the GIL; a
        ``joblib.parallel_backend`` context, e.g. Dask's, overrides the choice).  None: one fold
        at a time, the methods' kernels using all cores; -1: all cores.  The results do not
        depend on it; the selection times recorded do (the work shares the cores).
    select_in_fold : bool, default False
        False: select on all the data, then cross-validate the classifier (the papers' protocol;
        optimistic).  True: select inside each training fold (honest: the selector never sees
        the test fold).  The summary says which was used.
    standardize : bool, default True
        Standardise the features as the papers do: for the selection, with the means and sds of
        the rows the method sees (all rows, or the training fold); for the classifier, by a
        ``StandardScaler`` fitted on each training fold inside the pipeline.
    na_action : {'drop', 'raise'}
        Rows with missing values, as in :func:`fstools.select` (not ``'level'`` or ``'pass'``: the
        learners need complete rows).
    progress : bool, default True
        A tqdm progress bar over the selections and folds.
    formula_mode : {'safe', 'code'}, default 'safe'
        How the formula is read, as in :func:`fstools.select`: ``'safe'`` allows column names,
        R's operators and an allow-list of numeric functions; ``'code'`` evaluates any Python
        in the formula's terms (a formula string is code: use it only for formulas you wrote).
    response_type : {None, 'class', 'continuous'}, default None
        What the response is, as in :func:`fstools.select`: None decides from the data
        (strings, booleans, categoricals and integers with at most 10 distinct values are
        classes; other numbers continuous); ``C(y)`` on the left of the formula makes it
        classes.  Every method must take the response's type (the error names those that do).

    Returns
    -------
    ComparisonResult
        ``results`` (long table: dataset, classifier, method, k, repeat, fold, metric, value),
        ``summary()``, ``ttest()``, ``wilcoxon()``, ``friedman()``, ``plot()``, ``timing``.

    Examples
    --------
    >>> import fstools as fs
    >>> cmp = fs.compare("class ~ .", fs.datasets.load("wine"), ["cmqfs", "fisher"], k=range(1, 4),
    ...                  cv=5, repeats=2, random_state=0, progress=False)
    >>> cmp.ttest("cmqfs").frame["p_value"].shape
    (1,)
    """
    from tqdm.auto import tqdm

    if not isinstance(formula, str):
        raise TypeError(f"formula: must be a string such as 'class ~ .'; got {type(formula).__name__}")
    if is_data_frame_like(data):
        frames = {None: data}      # (read into pandas by _Dataset, as each frame of a dict)
    elif isinstance(data, dict):
        if not data:
            raise ValueError("data: the dict of data sets is empty")
        bad = [name for name in data if not isinstance(name, str)]
        if bad:
            raise TypeError(f"data: data set names (the dict keys) must be strings; got {bad[0]!r}")
        if ALL_DATASETS in data:
            raise ValueError(f"data: {ALL_DATASETS!r} is reserved (the summary row over every data set); rename "
                             f"that data set")
        frames = dict(data)
    else:
        raise TypeError(f"data: must be {ACCEPTED_FRAMES}, or a dict of name -> such a frame; got "
                        f"{qualified_type(data)}")
    method_list = _normalise_methods(methods)
    if na_action in ("level", "pass"):
        raise ValueError(f"na_action: compare takes 'drop' or 'raise'; {na_action!r} ({NA_ACTION_MEANINGS[na_action]}, "
                         f"for the methods that take it) leaves missing values the learners cannot take; use "
                         f"fs.select or fs.stability with na_action={na_action!r}")
    for method in method_list:
        check_na_action(method.spec, na_action)
    response_type = check_response_type(response_type)
    cv = _check_count(cv, "cv", 2, "the number of cross-validation folds")
    repeats = _check_count(repeats, "repeats", 1, "the number of repetitions of the cross-validation")
    # Every refused value of these is of the wrong type: TypeError.
    validate(BOOLEAN, select_in_fold, "select_in_fold", right_type=lambda value: False)
    validate(BOOLEAN, standardize, "standardize", right_type=lambda value: False)
    effective_n_threads(n_jobs)  # validate early
    validate(RANDOM_STATE, random_state, "random_state", right_type=lambda value: False)
    if isinstance(k, dict):
        unknown = sorted(set(k) - set(frames))
        if None in frames or unknown:
            raise ValueError(f"k: a dict of feature counts needs data as a dict with the same names; unknown "
                             f"data set(s) {unknown or list(k)}; allowed: {[n for n in frames if n is not None]}")
        missing = [name for name in frames if name not in k]
        if missing:
            raise ValueError(f"k: no feature counts for data set(s) {missing}; give one entry per data set")
    datasets = []
    for name, frame in frames.items():
        dataset_k = k[name] if isinstance(k, dict) else k
        datasets.append(_Dataset(name, formula, frame, na_action, dataset_k, formula_mode, response_type,
                                 method_list))
    task = _check_task(datasets, method_list)
    if classifier is None:
        classifier = "mlknn" if task == "multi" else "1nn"
    classifier_list = _normalise_classifiers(classifier, task)
    metric_list = _normalise_metrics(metrics, task)
    scored = [metric.name for metric in metric_list if metric.spec.needs_score]
    for entry in classifier_list:
        if scored and not (hasattr(entry.prototype, "predict_proba") or hasattr(entry.prototype, "decision_function")):
            raise TypeError(f"metrics: {', '.join(map(repr, scored))} rank the labels by score, and classifier "
                            f"{entry.label!r} has neither predict_proba nor decision_function; choose other metrics "
                            f"(e.g. 'hamming_loss') or another classifier")

    call = _format_call(formula, method_list, k, classifier, cv, repeats, metrics, random_state, n_jobs,
                        select_in_fold, standardize, response_type)
    rng = random_state if isinstance(random_state, np.random.RandomState) else np.random.RandomState(random_state)
    repeat_seeds = rng.randint(0, 2**31 - 1, size=repeats)
    classifier_seed = int(rng.randint(0, 2**31 - 1))
    splits = {dataset.name: _make_splits(dataset, cv, repeat_seeds) for dataset in datasets}

    # Folds run as joblib tasks inside a joblib backend context (e.g. Dask) or on n_jobs threads.
    in_joblib_context = external_backend() is not None
    parallel = in_joblib_context or (n_jobs is not None and effective_n_threads(n_jobs) > 1)
    n_units = len(datasets) * (repeats * cv + (0 if select_in_fold else len(method_list)))
    bar = tqdm(total=n_units, desc="fs.compare", unit="step", disable=not progress, leave=False)
    timing_rows = []
    ranking_rows = []
    result_parts = []
    try:
        for dataset in datasets:
            all_data_rankings = None
            if not select_in_fold:
                inputs = {factors: selection_input(design, None, standardize)
                          for factors, design in dataset.designs.items()}
                all_data_rankings = {}
                for method in method_list:
                    terms, seconds = _rank_terms(dataset, method.label, method.spec, method.values,
                                                 inputs[method.spec.factors], dataset.y, n_jobs, "")
                    all_data_rankings[method.label] = terms
                    timing_rows.append(_TimingRow(dataset.name, method.label, pd.NA, pd.NA, seconds))
                    ranking_rows += [_RankingRow(dataset.name, method.label, pd.NA, pd.NA, rank + 1, dataset.terms[t])
                                     for rank, t in enumerate(terms)]
                    bar.update(1)
            select_threads = 1 if parallel else n_jobs
            tasks = [(dataset, _FoldTask(split, method_list, classifier_list, metric_list, all_data_rankings,
                                         bool(standardize), select_threads, classifier_seed))
                     for split in splits[dataset.name]]
            if in_joblib_context:
                jobs = n_jobs  # joblib's own meaning (-1: every worker of the backend)
            else:
                jobs = effective_n_threads(n_jobs) if parallel else None
            for split, fold_result in zip(splits[dataset.name], run_tasks(_evaluate_fold, tasks, jobs, bar)):
                frame = pd.DataFrame(fold_result.scores, columns=list(_ScoreRow._fields))
                frame.insert(0, "dataset", dataset.name)
                frame.insert(4, "repeat", split.repeat)
                frame.insert(5, "fold", split.fold)
                result_parts.append(frame)
                timing_rows += [_TimingRow(dataset.name, label, split.repeat, split.fold, seconds)
                                for label, seconds in fold_result.timings]
                for label, terms in fold_result.rankings.items():
                    ranking_rows += [_RankingRow(dataset.name, label, split.repeat, split.fold, rank + 1,
                                                 dataset.terms[t]) for rank, t in enumerate(terms)]
    finally:
        bar.close()

    results = pd.concat(result_parts, ignore_index=True)
    results = results[["dataset", "classifier", "method", "k", "repeat", "fold", "metric", "value"]]
    results["k"] = results["k"].astype(np.int64)
    timing = pd.DataFrame(timing_rows, columns=list(_TimingRow._fields))
    timing[["repeat", "fold"]] = timing[["repeat", "fold"]].astype("Int64")
    rankings = pd.DataFrame(ranking_rows, columns=list(_RankingRow._fields))
    rankings[["repeat", "fold"]] = rankings[["repeat", "fold"]].astype("Int64")
    return ComparisonResult(
        call=call, results=results, timing=timing, rankings=rankings, splits=splits,
        datasets={dataset.name: dataset.info() for dataset in datasets},
        methods={method.label: {"method": method.name, "params": dict(method.values), "given": dict(method.given)}
                 for method in method_list},
        classifiers={entry.label: entry.description for entry in classifier_list},
        metrics={metric.name: {"higher_is_better": metric.spec.higher_is_better,
                               "description": metric.spec.description, "task": metric.spec.task}
                 for metric in metric_list},
        cv=cv, repeats=repeats, select_in_fold=bool(select_in_fold), standardize=bool(standardize),
        random_state=random_state if not isinstance(random_state, np.random.RandomState) else "RandomState",
        single_dataset=None in frames)

"""Evaluation protocols of the papers.

:func:`evaluate_online` -- the protocol of Han et al. (2016), section 4: several
online algorithms run over the same R random orders of a stream (R = 20 in the
paper), for a list of feature budgets, scored by g-mean and specificity (mean
and standard deviation over the orders), and drawn against the percentage of
selected features (the paper's Figs. 1-2).
"""
import numbers
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np
import pandas as pd

from fstools.core.constraints import POSITIVE_INTEGER, one_of
from fstools.core.messages import suggest_keywords
from fstools.core.parallel import effective_n_threads
from fstools.core.constraints import OPEN_UNIT_INTERVAL
from fstools.core.ranking import rank_features
from fstools.methods.passive_aggressive import (ONLINE_METHODS, OnlineLearner, as_stream_matrix, check_online_params,
                                    choose_positive, confusion_counts, counts_metrics, seed_from)
from fstools.results.labels import METHOD_LABELS as _DISPLAY_LABELS
from fstools.results.labels import METRIC_NAMES, metric_label
from fstools.results.tables import format_number

__all__ = ["evaluate_online", "OnlineEvaluation", "METHOD_LABELS"]

#: How the plots and tables name the online methods (the paper's names; all use truncated gradient),
#: from the one display-name table, :data:`fstools.results.labels.METHOD_LABELS`.
METHOD_LABELS = {name: _DISPLAY_LABELS[name] for name in ONLINE_METHODS}

_METRICS = ("g_mean", "specificity", "sensitivity", "mistake_rate")
_PROTOCOLS = ("prequential", "holdout")
_METRIC = one_of(_METRICS)
_METHOD = one_of(tuple(ONLINE_METHODS))


class _RunScores(NamedTuple):
    """The scores of one method on one order of the stream with one feature budget."""

    method: str
    order: int
    budget: int
    #: counts_metrics' dict: n and the metrics.
    metrics: dict


def _check_each(values, constraint, name):
    """Every entry of a list argument: ValueError ``"<name>: each must be <allowed>; got <entry>"``."""
    for value in values:
        if not constraint.check(value):
            raise ValueError(f"{name}: each must be {constraint.allowed}; got {value!r}")


def _budget_counts(budgets, n_features):
    """Budgets as sorted distinct feature counts: integers are counts, floats in (0, 1] fractions."""
    if budgets is None:
        budgets = [i / 10 for i in range(1, 11)]
    if isinstance(budgets, (numbers.Number, np.number)):
        budgets = [budgets]
    counts = []
    for value in budgets:
        if isinstance(value, (bool, np.bool_)):
            raise ValueError(f"budgets: must be integers in 1..{n_features} or fractions in (0, 1]; got {value!r}")
        if isinstance(value, (numbers.Integral, np.integer)):
            if not 1 <= int(value) <= n_features:
                raise ValueError(f"budgets: integer budgets must lie in 1..{n_features} (the number of "
                                 f"features); got {value!r}")
            counts.append(int(value))
        elif isinstance(value, (numbers.Real, np.floating)) and 0.0 < float(value) <= 1.0:
            counts.append(max(1, int(round(float(value) * n_features))))
        else:
            raise ValueError(f"budgets: must be integers in 1..{n_features} or fractions in (0, 1]; got {value!r}")
    if not counts:
        raise ValueError("budgets: must name at least one budget")
    return sorted(set(counts))


def _stratified_test_mask(y_pm, test_size, rng):
    """A random test set holding ``test_size`` of each class (at least one row of each, when it has two)."""
    test = np.zeros(y_pm.shape[0], dtype=bool)
    for code in (1, -1):
        rows = np.flatnonzero(y_pm == code)
        take = int(round(test_size * rows.shape[0]))
        if rows.shape[0] >= 2:
            take = min(max(take, 1), rows.shape[0] - 1)
        else:
            take = 0
        test[rng.choice(rows, size=take, replace=False)] = True
    return test


class OnlineEvaluation:
    """What :func:`evaluate_online` returns.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per method and budget: ``method``, ``label``, ``budget`` (features),
        ``percent`` (of all features), then ``<metric>_mean`` and ``<metric>_sd``
        (standard deviation over the orders, ddof = 1) for g_mean, specificity,
        sensitivity and mistake_rate.
    runs : pandas.DataFrame
        One row per method, order and budget: ``n`` (rows scored: every row in
        the prequential protocol, the held-out rows otherwise) and the metrics.
    methods, budgets : list
    n_features, n_orders : int
    protocol : str
    class_mapping : dict
        label -> +1 / -1.
    params : dict
        The learner parameters shared by every method.
    """

    def __init__(self, *, runs, methods, budgets, n_features, n_orders, protocol, class_mapping, params,
                 test_size):
        self.runs = runs
        self.methods = list(methods)
        self.budgets = list(budgets)
        self.n_features = int(n_features)
        self.n_orders = int(n_orders)
        self.protocol = protocol
        self.class_mapping = dict(class_mapping)
        self.params = dict(params)
        self.test_size = test_size
        grouped = runs.groupby(["method", "budget"], sort=False)[list(_METRICS)]
        means = grouped.mean().add_suffix("_mean")
        sds = grouped.std(ddof=1).add_suffix("_sd")
        table = pd.concat([means, sds], axis=1).reset_index()
        table.insert(1, "label", [METHOD_LABELS[m] for m in table["method"]])
        table.insert(3, "percent", 100.0 * table["budget"] / self.n_features)
        columns = ["method", "label", "budget", "percent"]
        for metric in _METRICS:
            columns += [f"{metric}_mean", f"{metric}_sd"]
        order = {m: i for i, m in enumerate(self.methods)}
        table = table[columns].sort_values(["method", "budget"], key=lambda c: c.map(order) if c.name == "method"
                                           else c).reset_index(drop=True)
        self.table = table

    def best(self, metric="g_mean"):
        """For each budget, the method with the highest mean ``metric`` (ties: first in ``methods``)."""
        _METRIC.validate(metric, "metric")
        column = f"{metric}_mean"
        rows = []
        for budget, part in self.table.groupby("budget", sort=True):
            best = part.loc[part[column].idxmax()] if part[column].notna().any() else part.iloc[0]
            rows.append({"budget": budget, "percent": best["percent"], "method": best["method"],
                         column: best[column]})
        return pd.DataFrame(rows)

    def plot(self, metrics=("g_mean", "specificity"), ax=None, sd=True, fig=None, axes=None):
        """Metric against the percentage of selected features, one line per method (the paper's Figs. 1-2).

        Parameters
        ----------
        metrics : str or sequence of str
            One panel each (g_mean, specificity, sensitivity, mistake_rate).
        ax : matplotlib Axes (one metric) or sequence of Axes (one per metric), optional
            ``axes`` is accepted as another name for it.
        sd : bool
            Shade mean ± one standard deviation over the orders.
        fig : matplotlib Figure, optional
            Several metrics: draw the panels into this figure.

        Returns
        -------
        matplotlib Axes when ``metrics`` is one name; the Figure for a sequence (one panel each)
        """
        # Imported when first drawn: matplotlib costs start-up time.
        from fstools.results.plotting import axes_for, panels_for, plain_numbers

        single = isinstance(metrics, str)
        metrics = [metrics] if single else list(metrics)
        _check_each(metrics, _METRIC, "metrics")
        ax = axes if ax is None else ax
        if single and fig is None:
            targets = [axes_for(np.ravel(np.asarray(ax, dtype=object))[0] if isinstance(ax, (list, tuple, np.ndarray))
                                and len(ax) == 1 else ax, (5.5, 4.4))]
        else:
            targets = panels_for(len(metrics), fig=fig, ax=ax, what="metric", names=metrics,
                                 figsize=None if fig is not None else (5.4 * len(metrics), 4.4))
        protocol = ("prequential: each row predicted, then learnt" if self.protocol == "prequential"
                    else f"hold-out: {self.test_size:g} of each class held out")
        for axis, metric in zip(targets, metrics):
            for method in self.methods:
                part = self.table[self.table["method"] == method]
                x = part["percent"].to_numpy()
                mean = part[f"{metric}_mean"].to_numpy()
                line, = axis.plot(x, mean, marker="o", markersize=4, label=METHOD_LABELS[method])
                if sd and self.n_orders > 1:
                    spread = part[f"{metric}_sd"].to_numpy()
                    axis.fill_between(x, mean - spread, mean + spread, color=line.get_color(), alpha=0.15,
                                      linewidth=0)
            axis.set_xlabel(f"selected features (% of {self.n_features})")
            axis.set_ylabel(metric_label(metric))
            plain_numbers(axis)
            band = "; band: ± sd over the orders" if sd and self.n_orders > 1 else ""
            axis.set_title(f"{METRIC_NAMES[metric]}: mean over "
                           f"{self.n_orders} random orders{band}\n{protocol}", fontsize=9)
            axis.grid(True, alpha=0.3)
            axis.legend(fontsize=8)
        targets[0].figure.tight_layout()
        return targets[0] if single and fig is None else targets[0].figure

    def __repr__(self):
        shown = self.table[["label", "budget", "percent", "g_mean_mean", "g_mean_sd", "specificity_mean",
                            "specificity_sd"]].copy()
        for column in shown.columns[3:]:
            shown[column] = [format_number(v) for v in shown[column]]
        shown["percent"] = [f"{v:.0f}" for v in shown["percent"]]
        mapping = ", ".join(f"{label!r} -> {code:+d}" for label, code in self.class_mapping.items())
        return (f"Online evaluation ({self.protocol}): {len(self.methods)} methods x {len(self.budgets)} budgets "
                f"x {self.n_orders} orders, {self.n_features} features\nclasses: {mapping}\n"
                + shown.to_string(index=False))


@suggest_keywords
def evaluate_online(X, y, methods=("pa", "cs", "mbpa", "onpa"), budgets=None, n_orders=20, *,
                    protocol="prequential", test_size=0.3, positive=None, random_state=0, n_jobs=1,
                    progress=False, **params):
    """Several online methods over the same random orders of a stream, for several feature budgets.

    The protocol of Han et al. (2016), section 4: every method sees the same R
    random orders of the rows (R = ``n_orders``, 20 in the paper) with the same
    parameters; g-mean and specificity are averaged over the orders for each
    number of selected features.

    Parameters
    ----------
    X : array-like, DataFrame or scipy sparse matrix (used as CSR)
    y : array-like
        Two class labels; the majority is +1 (the paper's "positive") unless
        ``positive`` names it; specificity is the accuracy on the -1 class.
    methods : sequence of str
        Online methods (``pa``, ``pa1``, ``pa2``, ``mbpa``, ``onpa``, ``cs``); the
        paper compares PA and CS (both with truncated gradient) with MBPA and ONPA.
    budgets : sequence or None
        Numbers of selected features M: integers are counts, floats in (0, 1]
        fractions of the features (rounded, at least 1).  None: 10 %, 20 %, ..., 100 %.
    n_orders : int, default 20
        R, the random orders of the stream (the paper: 20).
    protocol : {'prequential', 'holdout'}
        ``'prequential'`` (default): each row is predicted, then learnt from, in
        one pass; the prediction is the M-feature classifier of that moment (w_t
        restricted to its M largest weights); every row is scored once.
        ``'holdout'``: for each order a stratified ``test_size`` share of the rows
        is held out (drawn with the order); the other rows are streamed in the
        order, and the final M-feature classifier (the M largest ``|w_j|`` of the
        final w) predicts the held-out rows.  The paper does not say which it used.
    test_size : float in (0, 1)
        Share of each class held out (``'holdout'`` only).
    positive : label, optional
        The +1 class.
    random_state : int, Generator or None, default 0
        Seed of the orders (and held-out sets) and of ONPA's draws; the same
        orders for every method.
    n_jobs : int or None, default 1
        Threads running (method, order) pairs at once (the kernel releases the
        GIL); the results do not depend on it.
    progress : bool, default False
        Show a progress bar (tqdm).
    **params
        Learner parameters shared by every method (C, eta, g, theta, K,
        truncate, update, beta, synthesis, memory, cost_ratio; see
        :class:`fstools.OnlineSelector`); a method ignores the ones it does not use.

    Returns
    -------
    OnlineEvaluation
        ``.table`` (mean and sd per method and budget), ``.runs``, ``.plot()``.
    """
    methods = [methods] if isinstance(methods, str) else list(methods)
    if not methods:
        raise ValueError("methods: name at least one online method")
    _check_each(methods, _METHOD, "methods")
    if len(set(methods)) != len(methods):
        raise ValueError(f"methods: names must be distinct; got {methods!r}")
    one_of(_PROTOCOLS).validate(protocol, "protocol")
    n_orders = POSITIVE_INTEGER.validate(n_orders, "n_orders")
    if protocol == "holdout":
        test_size = OPEN_UNIT_INTERVAL.validate(test_size, "test_size")
    unknown = sorted(set(params) - {"C", "eta", "g", "theta", "K", "truncate", "update", "beta", "synthesis",
                                    "memory", "cost_ratio"})
    if unknown:
        raise TypeError(f"evaluate_online: unknown parameter(s) {', '.join(unknown)}; learner parameters are "
                        f"C, eta, g, theta, K, truncate, update, beta, synthesis, memory, cost_ratio")
    for method in methods:
        check_online_params(method, **params)
    n_threads = effective_n_threads(n_jobs)

    if isinstance(X, pd.DataFrame):
        X = X.to_numpy()
    matrix, is_sparse = as_stream_matrix(X)
    n_rows, n_features = matrix.shape
    if n_rows == 0 or n_features == 0:
        raise ValueError(f"X: is empty (shape {matrix.shape})")
    labels = np.asarray(y.to_numpy() if isinstance(y, pd.Series) else y)
    if labels.ndim != 1 or labels.shape[0] != n_rows:
        raise ValueError(f"y: must be 1-D with one label per row of X ({n_rows}); got shape {labels.shape}")
    classes, counts = np.unique(labels, return_counts=True)
    if classes.shape[0] != 2:
        raise ValueError(f"y: online evaluation is binary; y has {classes.shape[0]} class(es) "
                         f"({', '.join(repr(c) for c in classes[:5].tolist())})")
    class_list = classes.tolist()
    positive_label = choose_positive(class_list, counts, positive)
    negative_label = class_list[1 - class_list.index(positive_label)]
    y_pm = np.where(labels == classes[class_list.index(positive_label)], 1, -1).astype(np.int32)
    budget_list = _budget_counts(budgets, n_features)

    # The same orders (and held-out sets) and ONPA seeds for every method.
    rng = np.random.default_rng(random_state)
    plans = []
    for r in range(int(n_orders)):
        if protocol == "holdout":
            test = _stratified_test_mask(y_pm, float(test_size), rng)
            order = rng.permutation(np.flatnonzero(~test)).astype(np.intp)
            plans.append((order, np.flatnonzero(test), seed_from(rng)))
        else:
            plans.append((rng.permutation(n_rows).astype(np.intp), None, seed_from(rng)))

    topk = params.get("truncate", "gradient") == "topk"

    def run(task):
        method, r = task
        order, test_rows, seed = plans[r]
        rows = []
        # With truncate='topk' the budget changes the learning: one learner per budget.
        groups = [[M] for M in budget_list] if topk else [budget_list]
        for group in groups:
            learner = OnlineLearner(method, n_features, group[0] if topk else n_features, seed=seed, **params)
            if protocol == "prequential":
                trace = learner.learn(matrix, y_pm, order, budgets=group, is_sparse=is_sparse)
                truth = y_pm[order]
                for b, M in enumerate(group):
                    rows.append(_RunScores(method, r, M, counts_metrics(confusion_counts(
                        truth, trace["budget_margins"][:, b]))))
            else:
                learner.learn(matrix, y_pm, order, budgets=[], is_sparse=is_sparse)
                test = matrix[test_rows]
                for M in group:
                    coef = np.zeros(n_features)
                    chosen = rank_features(np.abs(learner.weights), k=M)
                    coef[chosen] = learner.weights[chosen]
                    margins = np.asarray(test @ coef).ravel()
                    rows.append(_RunScores(method, r, M, counts_metrics(confusion_counts(y_pm[test_rows], margins))))
        return rows

    tasks = [(method, r) for method in methods for r in range(int(n_orders))]
    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=len(tasks), desc="evaluate_online")
    results = []
    if n_threads > 1 and len(tasks) > 1:
        with ThreadPoolExecutor(max_workers=n_threads) as pool:
            for rows in pool.map(run, tasks):
                results.extend(rows)
                if bar is not None:
                    bar.update(1)
    else:
        for task in tasks:
            results.extend(run(task))
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    runs = pd.DataFrame([{"method": run.method, "label": METHOD_LABELS[run.method], "order": run.order,
                          "budget": run.budget, "percent": 100.0 * run.budget / n_features, "n": run.metrics["n"],
                          **{k: run.metrics[k] for k in _METRICS}}
                         for run in results])
    mapping = {positive_label: 1, negative_label: -1}
    return OnlineEvaluation(runs=runs, methods=methods, budgets=budget_list, n_features=n_features,
                            n_orders=int(n_orders), protocol=protocol, class_mapping=mapping,
                            params=dict(params), test_size=float(test_size) if protocol == "holdout" else None)

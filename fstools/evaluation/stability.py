"""Selection stability: how much a method's selection changes when the data change.

:func:`stability` reruns a method on bootstrap samples of the rows (drawn within each class for
a class response, from all the rows for a continuous one) and measures the agreement
of the selected sets with the stability index of Nogueira, Sechidis and Brown (2018, *On the
stability of feature selection algorithms*, JMLR 18(174)), :func:`nogueira_stability`, which
comes with an asymptotic variance and confidence interval.

The index for M selected sets of d features (a binary M x d matrix Z, row i the set of run i)::

    Phi = 1 - [ (1/d) sum_f s_f^2 ] / [ (kbar/d) (1 - kbar/d) ]          (Definition 4)

with p_f the selection frequency of feature f, s_f^2 = M/(M-1) p_f (1 - p_f) its unbiased
variance and kbar the mean set size.  Phi = 1 when every run selects the same set; its expected
value is 0 for sets drawn at random (of the observed sizes); its minimum is -1/(M-1).

The index, its variance and interval are fstools' own: no library at hand (scikit-learn,
SciPy, statsmodels) computes them.  A failure of the method on a bootstrap sample reaches the
caller as the exception the method raised, its message prefixed with the method and the
sample (:func:`fstools.core.failures.reraise_with_context`).
"""
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from fstools.core.constraints import SEED, integer_at_least
from fstools.core.parallel import effective_n_threads
from fstools.core.lazy import LazyModule
from fstools.core.constraints import OPEN_UNIT_INTERVAL, is_integer, validate
from fstools.core.failures import reraise_with_context
from fstools.api.selection import run_method
from fstools.model.checked_frame import check_finite_design, frame_response
from fstools.model.terms import ranked_terms, selection_design, selection_input
from fstools.model.exceptions import FormulaError
from fstools.model.formula import parse_formula
from fstools.model.frames import as_data_frame
from fstools.methods.registry import check_na_action, get_method, method_names
from fstools.results.labels import method_label
from fstools.results.tables import Summary, format_count, format_number, text_as_html
from fstools.model.response import check_response_type
from fstools.model.validation import check_k, check_method_params, split_method

stats = LazyModule("scipy.stats")  # imported at its first use: it takes longer to import than fstools

__all__ = ["stability", "nogueira_stability", "StabilityResult"]


def nogueira_stability(Z, alpha=0.05):
    """Nogueira, Sechidis and Brown's (2018) stability index of M selections, with its variance
    and a (1 - alpha) confidence interval.

    Parameters
    ----------
    Z : array-like of bool, shape (M, d)
        Row i marks the features selected in run i (M >= 2 runs, d >= 2 features).
    alpha : float
        For the interval Phi +- z_{1-alpha/2} sqrt(var) (their Corollary 9).

    Returns
    -------
    dict with ``stability``, ``variance``, ``lower``, ``upper``, ``M``, ``d``, ``kbar``
        The variance is the asymptotic one of their Theorem 7:
        var = 4 / M^2 sum_i (phi_i - mean phi)^2, with
        phi_i = [ (1/d) sum_f Z_if p_f - k_i kbar / d^2
                  + Phi/2 (2 k_i kbar / d^2 - k_i / d - kbar / d + 1) ] / [ (kbar/d)(1 - kbar/d) ].
        NaN (with the reason under ``note``) when every run selects nothing or everything.
    """
    Z = np.asarray(Z)
    if Z.ndim != 2:
        raise ValueError(f"Z: must be 2-D (runs x features); got {Z.ndim}-D")
    if Z.size and not np.isin(Z, (0, 1)).all():
        raise ValueError("Z: must be binary (1 = selected)")
    Z = Z.astype(float)
    M, d = Z.shape
    if M < 2 or d < 2:
        raise ValueError(f"Z: needs at least 2 runs and 2 features; got {M} x {d}")
    alpha = OPEN_UNIT_INTERVAL.validate(alpha, "alpha")
    p = Z.mean(axis=0)
    sizes = Z.sum(axis=1)
    kbar = p.sum()
    denominator = (kbar / d) * (1.0 - kbar / d)
    out = {"M": M, "d": d, "kbar": float(kbar)}
    if denominator <= 0:
        out.update(stability=np.nan, variance=np.nan, lower=np.nan, upper=np.nan,
                   note="undefined: every run selected no feature or every feature")
        return out
    phi_hat = 1.0 - (M / (M - 1.0)) * np.mean(p * (1.0 - p)) / denominator
    phi = ((Z @ p) / d - sizes * kbar / d ** 2
           + phi_hat / 2.0 * (2.0 * sizes * kbar / d ** 2 - sizes / d - kbar / d + 1.0)) / denominator
    variance = 4.0 / M ** 2 * np.sum((phi - phi.mean()) ** 2)
    half = stats.norm.ppf(1.0 - alpha / 2.0) * np.sqrt(variance)
    out.update(stability=float(phi_hat), variance=float(variance), lower=float(phi_hat - half),
               upper=float(phi_hat + half))
    return out


def _stratified_bootstrap(y, rng):
    """Row indices of a bootstrap sample drawn within each class (class sizes kept)."""
    parts = []
    for c in np.unique(y):
        members = np.flatnonzero(y == c)
        parts.append(rng.choice(members, size=len(members), replace=True))
    return np.sort(np.concatenate(parts))


def _bootstrap(n, rng):
    """Row indices of a bootstrap sample of ``n`` rows (drawn with replacement from all of them)."""
    return np.sort(rng.choice(n, size=n, replace=True))


class _BootstrapRun(NamedTuple):
    """One run of the method: on all the rows (``run`` 0) or on bootstrap sample ``run``."""

    run: int
    label: str
    spec: Any
    values: dict
    X: np.ndarray
    y: np.ndarray
    #: Design columns to ask the method for, so that ``k`` distinct terms are among them.
    n_columns: int
    column_term_index: list
    k: int
    n_threads: Any
    #: 'class' or 'continuous': what ``y`` is.
    response_type: str = "class"

    @property
    def where(self):
        return "all the rows" if self.run == 0 else f"bootstrap sample {self.run}"


def _run_bootstrap(task):
    """The term indices the method selects in ``task`` (a :class:`_BootstrapRun`)."""
    try:
        output = run_method(task.spec, task.X, task.y, task.n_columns, task.values, task.n_threads,
                            response_type=task.response_type)
    except Exception as error:
        reraise_with_context(error, f"method {task.label!r} failed on {task.where}")
    return ranked_terms(output, task.spec.higher_is_better, task.column_term_index, task.k)


class StabilityResult:
    """The outcome of :func:`fstools.stability`.

    Attributes
    ----------
    selections : pandas.DataFrame of bool
        Bootstrap runs (1..B) x features: True where the run selected the feature.
    frequency : pandas.DataFrame
        Per feature, most often selected first: ``frequency`` (share of runs selecting it),
        ``count``, ``selected_all_data`` (selected by the method on all the rows).
    stability : float
        Nogueira's index; ``variance``, ``lower``, ``upper`` its variance and confidence interval.
    alpha : float
    method : str
    params : dict
    k, n_bootstrap : int
    n : int
        Rows of the data.
    response_type : {'class', 'continuous'}
        What the response is (decided as :func:`fstools.select` decides it), and
        ``response_reason`` why.
    classes : list of str or None
        The classes; None for a continuous response.
    call : str
    """

    # Defaults for results pickled before continuous responses were measured.
    response_type = "class"
    response_reason = None

    def __init__(self, *, call, method, spec, params, k, selections, full_selection, index, alpha, n, classes,
                 random_state, response_type="class", response_reason=None):
        self.call = call
        self.method = method
        self._spec = spec
        self.params = dict(params)
        self.k = k
        self.n_bootstrap = len(selections)
        self.selections = selections
        counts = selections.sum(axis=0)
        frame = pd.DataFrame({"frequency": counts / len(selections), "count": counts.astype(int),
                              "selected_all_data": [name in full_selection for name in selections.columns]},
                             index=pd.Index(selections.columns, name="feature"))
        position = {name: j for j, name in enumerate(selections.columns)}
        order = sorted(frame.index, key=lambda name: (-frame.loc[name, "frequency"], position[name]))
        self.frequency = frame.loc[order]
        self.full_selection = list(full_selection)
        self.stability = index["stability"]
        self.variance = index["variance"]
        self.lower = index["lower"]
        self.upper = index["upper"]
        self.alpha = alpha
        self.n = n
        self.classes = None if classes is None else list(classes)
        self.response_type = response_type
        self.response_reason = response_reason
        self.random_state = random_state
        self._note = index.get("note")

    def _response_text(self):
        what = "a continuous response" if self.classes is None else f"{len(self.classes)} classes"
        return what + (f" ({self.response_reason})" if self.response_reason else "")

    def summary_frame(self):
        """The per-feature selection frequencies (numbers), most often selected first."""
        return self.frequency.copy()

    def summary(self, all_features=False):
        """Stability index with its interval, and the features by selection frequency.

        Parameters
        ----------
        all_features : bool
            List every feature; default the ones selected at least once.
        """
        shown = self.frequency if all_features else self.frequency[self.frequency["count"] > 0]
        table = pd.DataFrame({"feature": shown.index,
                              "frequency": [f"{100 * v:.1f}%" for v in shown["frequency"]],
                              "runs": [f"{c}/{self.n_bootstrap}" for c in shown["count"]],
                              "all data": ["yes" if v else "" for v in shown["selected_all_data"]]})
        level = f"{100 * (1 - self.alpha):g}%"
        index_text = (f"{format_number(self.stability)} ({level} CI {format_number(self.lower)} to "
                      f"{format_number(self.upper)}; sd {format_number(np.sqrt(self.variance))})"
                      if np.isfinite(self.stability) else f"NA ({self._note})")
        params = ", ".join(f"{name} = {value!r}" for name, value in self.params.items())
        header = [("Call", self.call),
                  ("Method", f"{self.method}: {self._spec.description}"),
                  ("Parameters", params or "none"),
                  ("Data", f"{self.n} rows, {self.selections.shape[1]} features, {self._response_text()}"),
                  ("Resampling", f"{self.n_bootstrap} bootstrap samples (rows drawn with replacement "
                                 f"{'from all the rows' if self.classes is None else 'within each class'}); "
                                 f"random_state = {self.random_state!r}"),
                  ("Selected", f"top {self.k} features in each run"),
                  ("Stability", f"Nogueira's Phi = {index_text}")]
        notes = ["Phi (Nogueira, Sechidis & Brown 2018, JMLR 18(174), Def. 4): 1 = the same features in every run; "
                 "0 = the agreement expected of random sets of the same size; minimum -1/(B-1). Interval: "
                 "asymptotic normal (their Corollary 9).",
                 "frequency: share of the runs that selected the feature; all data: selected by the method on "
                 "all the rows."]
        if not all_features:
            never = int((self.frequency["count"] == 0).sum())
            if never:
                notes.append(f"Not listed: {format_count(int(never), 'feature')} never selected (summary(all_features=True)).")
        return Summary("Selection stability", header, table, notes, frame=shown.copy())

    def plot(self, kind="heatmap", ax=None, **kwargs):
        """Plot the selections.

        Parameters
        ----------
        kind : {'heatmap', 'frequency'}
            ``'heatmap'``: features x bootstrap runs (selected marked); ``'frequency'``: bar chart
            of the selection frequencies (red: selected by the method on all the rows).
        ax : matplotlib Axes, optional

        Returns
        -------
        matplotlib Axes
        """
        from matplotlib.patches import Patch

        # Imported when first drawn: matplotlib costs start-up time.
        from fstools.results.plotting import axes_for, plain_numbers, plot_selection_heatmap

        phi = (f"Nogueira's Φ = {self.stability:.3f} ({100 * (1 - self.alpha):g}% CI {self.lower:.3f} to "
               f"{self.upper:.3f})")
        head = (f"{method_label(self.method)}, top {self.k} of {self.selections.shape[1]} features\n"
                f"{self.n_bootstrap} bootstrap runs of n = {self.n} rows")
        if kind == "heatmap":
            return plot_selection_heatmap(self.selections, self.frequency["frequency"], ax=ax,
                                          title=f"{head}\n{phi}", **kwargs)
        if kind == "frequency":
            max_features = kwargs.pop("max_features", 40)
            shown = self.frequency.iloc[:max_features]
            ax = axes_for(ax, (max(5.5, 0.28 * len(shown) + 2.5), 4.4))
            colors = ["tab:red" if flag else "tab:blue" for flag in shown["selected_all_data"]]
            ax.bar(np.arange(len(shown)), shown["frequency"], color=colors, **kwargs)
            ax.set_xticks(np.arange(len(shown)))
            ax.set_xticklabels(shown.index, rotation=60, ha="right", fontsize=8)
            ax.set_ylim(0, 1.12)
            ax.set_ylabel("Selection frequency\n(share of the runs)", fontsize=9)
            ax.set_xlabel("feature, most often selected first")
            plain_numbers(ax)
            ax.legend(handles=[Patch(color="tab:red", label="selected on all data"),
                               Patch(color="tab:blue", label="not selected on all data")],
                      fontsize=8, loc="upper right", frameon=False)
            ax.set_title(f"{head}\n{phi}", fontsize=9)
            ax.figure.tight_layout()
            return ax
        raise ValueError(f"kind: must be 'heatmap' or 'frequency'; got {kind!r}")

    def __repr__(self):
        return (f"Selection stability: {self.method}, top {self.k} of {self.selections.shape[1]} features, "
                f"{self.n_bootstrap} bootstrap runs\n"
                f"Call: {self.call}\n"
                f"Nogueira's Phi = {self.stability:.4g} ({100 * (1 - self.alpha):g}% CI {self.lower:.4g} to "
                f"{self.upper:.4g})")

    def _repr_html_(self):
        """What a notebook shows: the short print of ``repr`` as HTML (the table is ``summary()``)."""
        return text_as_html(repr(self))


def stability(formula, data, method, k, n_bootstrap=100, *, random_state=None, alpha=0.05, n_jobs=None,
              standardize=False, na_action="drop", progress=True, formula_mode="safe", response_type=None,
              **params):
    """Stability of a method's selection over bootstrap samples (Nogueira et al. 2018).

    The method selects its top ``k`` features on ``n_bootstrap`` bootstrap samples of the rows
    (drawn with replacement within each class, so every class keeps its size; for a continuous
    response, with replacement from all the rows); the selections give the per-feature selection
    frequency and Nogueira's stability index with its confidence interval.

    Parameters
    ----------
    formula : str
    data : pandas.DataFrame
        Not modified.
    method : str or (str, dict)
        A registered method, or a ``(name, params)`` pair.
    k : int
        Features selected in each run (1..n_features - 1: the index needs a proper subset).
    n_bootstrap : int, default 100
        Bootstrap runs (at least 2).
    random_state : int or None
        Seeds the bootstrap samples; the same value gives the same result for any ``n_jobs``.
    alpha : float
        The interval is (1 - alpha).
    n_jobs : int or None
        Runs in parallel (joblib threads); None: one at a time.
    standardize : bool, default False
        Standardise the columns of each sample before the method sees them (as fs.compare); a
        factor's level codes are not standardised.
    na_action : {'drop', 'raise', 'level', 'pass'}, default 'drop'
        Rows with missing values, as in :func:`fstools.select` (``'level'``: the information
        methods, a missing predictor value a level of its own; ``'pass'``: ``relieff``, which
        treats missing values itself, without ``standardize``).
    progress : bool
        A tqdm progress bar.
    formula_mode : {'safe', 'code'}, default 'safe'
        How the formula is read, as in :func:`fstools.select`: ``'safe'`` allows column names,
        R's operators and an allow-list of numeric functions; ``'code'`` evaluates any Python
        in the formula's terms (a formula string is code: use it only for formulas you wrote).
    response_type : {None, 'class', 'continuous'}, default None
        What the response is, as in :func:`fstools.select`: None decides from the data, ``C(y)``
        in the formula makes it classes; a method that cannot take the type is refused.
    **params
        The method's parameters.

    Returns
    -------
    StabilityResult
    """
    from tqdm.auto import tqdm


    if not isinstance(formula, str):
        raise TypeError(f"formula: must be a string such as 'class ~ .'; got {type(formula).__name__}")
    data = as_data_frame(data)   # a polars or Arrow frame read once into pandas
    name, given = split_method(method, params)
    spec = get_method(name)
    if "multilabel" in spec.capabilities:
        allowed = [method for method in method_names() if "multilabel" not in get_method(method).capabilities]
        raise ValueError(f"method: {name!r} is a multi-label method (several 0/1 label columns on the left of the "
                         f"formula); fs.stability measures single-response selection only. Allowed methods: "
                         f"{', '.join(allowed)}")
    values = check_method_params(spec, given)
    check_na_action(spec, na_action, values)
    if na_action == "pass" and standardize:
        raise ValueError("standardize: na_action='pass' keeps missing values for the method, which the "
                         "standardisation cannot take; use standardize=False or na_action='drop'")
    n_bootstrap = integer_at_least(2, "the index compares runs").validate(n_bootstrap, "n_bootstrap")
    alpha = OPEN_UNIT_INTERVAL.validate(alpha, "alpha")
    random_state = validate(SEED, random_state, "random_state",
                            right_type=lambda value: value is None or is_integer(value))
    effective_n_threads(n_jobs)
    response_type = check_response_type(response_type)

    frame = parse_formula(formula, data, na_action=na_action, formula_mode=formula_mode)
    if len(frame.response_names) != 1:
        raise FormulaError(f"formula {formula!r}: fs.stability takes one response; the formula has "
                           f"{len(frame.response_names)}")
    target = frame_response(frame, response_type, spec)
    y, class_names = target.values, target.class_names
    check_finite_design(frame)
    terms = list(dict.fromkeys(frame.column_terms))
    if len(terms) < 2:
        raise ValueError(f"data: the stability index needs at least 2 candidate features; the formula gives "
                         f"{len(terms)}")
    if k is None:
        raise ValueError(f"k: must be an integer in 1..{len(terms) - 1} (selecting every feature is always "
                         f"stable); got None")
    k = check_k(k, len(terms))
    if k == len(terms):
        raise ValueError(f"k: must be in 1..{len(terms) - 1}: selecting all {len(terms)} features is always the "
                         f"same set (the index is undefined); got {k}")
    run_values = dict(values)
    if "streaming" in spec.capabilities:
        run_values["class_names"] = class_names
    X = np.ascontiguousarray(frame.X, dtype=np.float64)
    column_names, column_terms = list(frame.column_names), list(frame.column_terms)

    rng = np.random.RandomState(random_state)
    if target.kind == "class":
        samples = [_stratified_bootstrap(y, rng) for _ in range(n_bootstrap)]
    else:
        samples = [_bootstrap(len(y), rng) for _ in range(n_bootstrap)]
    parallel = n_jobs is not None and effective_n_threads(n_jobs) > 1
    threads = 1 if parallel else n_jobs

    def task(run, rows):
        # What fs.select would rank on these rows: factors as level codes, missing values as a level
        # (fstools.model.terms.method_design), standardised apart from the codes when asked.
        design = selection_design(spec, X[rows], column_names, column_terms, terms, values, na_action=na_action)
        return _BootstrapRun(run, name, spec, {**run_values, **design.keywords},
                             selection_input(design, None, standardize), y[rows],
                             min(len(design.column_names), k + design.extra_columns), design.column_term_index,
                             k, threads, target.kind)

    full = _run_bootstrap(task(0, np.arange(len(y))))
    bar = tqdm(total=n_bootstrap, desc="fs.stability", unit="run", disable=not progress, leave=False)
    chosen = []
    try:
        if parallel:
            from joblib import Parallel, delayed

            runner = Parallel(n_jobs=effective_n_threads(n_jobs), return_as="generator", prefer="threads")
            for result in runner(delayed(_run_bootstrap)(task(run, rows))
                                 for run, rows in enumerate(samples, start=1)):
                chosen.append(result)
                bar.update(1)
        else:
            for run, rows in enumerate(samples, start=1):
                chosen.append(_run_bootstrap(task(run, rows)))
                bar.update(1)
    finally:
        bar.close()
    Z = np.zeros((n_bootstrap, len(terms)), dtype=bool)
    for i, members in enumerate(chosen):
        Z[i, members] = True
    selections = pd.DataFrame(Z, columns=terms, index=pd.RangeIndex(1, n_bootstrap + 1, name="run"))
    index = nogueira_stability(Z, alpha=alpha)
    shown = {key: value for key, value in given.items()}
    call_parts = [repr(formula), "data", f"method={name!r}", f"k={k}", f"n_bootstrap={n_bootstrap}",
                  f"random_state={random_state!r}"] + [f"{key}={value!r}" for key, value in shown.items()]
    if standardize:
        call_parts.append("standardize=True")
    if response_type is not None:
        call_parts.append(f"response_type={response_type!r}")
    if na_action != "drop":
        call_parts.append(f"na_action={na_action!r}")
    return StabilityResult(call=f"stability({', '.join(call_parts)})", method=name, spec=spec, params=values, k=k,
                           selections=selections, full_selection=[terms[t] for t in full], index=index,
                           alpha=float(alpha), n=len(y), classes=class_names, random_state=random_state,
                           response_type=target.kind, response_reason=target.reason)

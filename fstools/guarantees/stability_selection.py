"""Stability selection for every method, with the error bound of R's ``stabs``.

:func:`stability_selection` reruns a method on many half-samples of the rows and keeps the
features that the method puts among its first ``q`` in at least a share ``cutoff`` of the runs
(Meinshausen & Buhlmann 2010, "Stability selection", JRSS-B 72:417-473).  By default the
half-samples come in complementary pairs (a random half and the other half: Shah & Samworth
2013, "Variable selection with error control: another look at stability selection", JRSS-B
75:55-80), whose bound on the expected number of false selections (PFER) is sharper under
their unimodality or r-concavity assumption.  Any two of ``q``, ``cutoff`` and ``pfer`` fix the
third (:func:`fstools.guarantees.pfer_bound.stability_selection_parameters`, as
``stabs::stabsel_parameters``).

The procedure follows ``stabs::stabsel``: the selection probability of a feature is the share of
the runs that select it (``max`` in ``stabs``), ``path`` the share that select it among their first
``q'`` for q' = 1..q (``phat``), ``selected`` the features with probability >= ``cutoff``.  Unlike
``stabs``, which draws half-samples from all the rows unless given strata, the half-samples of a
class response are drawn within each class (``stabs::subsample`` with ``strata`` the classes), so
that every run sees every class in its proportion; ``stratify=False`` draws them from all rows.
"""
import numpy as np
import pandas as pd

from fstools.core.constraints import SEED, BOOLEAN, integer_at_least, is_integer, one_of, validate
from fstools.api.selection import run_method
from fstools.core.failures import reraise_with_context
from fstools.core.parallel import effective_n_threads, run_jobs, run_tasks
from fstools.guarantees.importance import prepare
from fstools.guarantees.pfer_bound import stability_selection_parameters
from fstools.model.terms import ranked_terms
from fstools.results.labels import method_label
from fstools.results.tables import Summary, format_count, format_number, text_as_html

__all__ = ["stability_selection", "StabilitySelectionResult", "half_samples"]

SAMPLINGS = ("SS", "MB")


def half_samples(n_runs, y=None, n=None, complementary=True, random_state=None):
    """Boolean masks (runs x rows) of half-samples of the rows, as ``stabs::subsample``.

    Each run keeps floor(m / 2) of the m rows of every stratum (the classes of ``y`` when given,
    else all ``n`` rows); with ``complementary``, run 2i + 1 is the complement of run 2i (Shah &
    Samworth 2013, Sec. 2.1), so ``n_runs`` must be even.
    """
    rng = np.random.RandomState(random_state)
    if y is None:
        strata = [np.arange(n)]
    else:
        y = np.asarray(y)
        n = len(y)
        strata = [np.flatnonzero(y == level) for level in np.unique(y)]
    draws = n_runs // 2 if complementary else n_runs
    masks = np.zeros((n_runs, n), dtype=bool)
    for draw in range(draws):
        row = 2 * draw if complementary else draw
        for members in strata:
            chosen = rng.permutation(len(members))[: len(members) // 2]
            masks[row, members[chosen]] = True
        if complementary:
            masks[row + 1] = ~masks[row]
    return masks


def _half_sample_run(prepared, mask, n_columns, q, n_threads, run):
    """The terms the method ranks first, in order (at most ``q``), on the rows of ``mask``."""
    design = prepared.design
    try:
        output = run_method(prepared.spec, design.X[mask], prepared.y[mask], n_columns, prepared.keywords, n_threads,
                            response_type=prepared.response_type)
    except Exception as error:
        reraise_with_context(error, f"method {prepared.name!r} failed on half-sample {run}")
    return ranked_terms(output, prepared.spec.higher_is_better, design.column_term_index, q)


class StabilitySelectionResult:
    """The outcome of :func:`stability_selection`.

    Attributes
    ----------
    selected : list of str
        The features whose selection probability is at least ``cutoff``, most often selected first.
    probabilities : pandas.Series
        Per feature (the formula's order), the share of the runs that selected it among their first ``q``.
    path : pandas.DataFrame
        Features x q' (1..q): the share of the runs that selected the feature among their first q'
        (``stabs``' ``phat``).
    selections : pandas.DataFrame of bool
        Runs x features: True where the run selected the feature.
    parameters : StabilityParameters
        ``q``, ``cutoff`` and the bound ``pfer`` (with ``specified_pfer`` when a PFER was asked for),
        ``sampling``, ``assumption``, ``B``.
    q, cutoff, pfer : as in ``parameters``
    method, params, call, n, random_state, response_type, classes
    """

    def __init__(self, *, call, method, spec, params, parameters, selections, orders, n, classes, response_type,
                 response_reason, random_state, stratified, n_dropped):
        self.call = call
        self.method = method
        self._spec = spec
        self.params = dict(params)
        self.parameters = parameters
        self.selections = selections
        terms = list(selections.columns)
        n_runs = len(selections)
        q = parameters.q
        counts = np.zeros((len(terms), q))
        for order in orders:
            for position, term in enumerate(order):
                counts[term, position:] += 1
        self.path = pd.DataFrame(counts / n_runs, index=pd.Index(terms, name="feature"),
                                 columns=pd.Index(np.arange(1, q + 1), name="q"))
        self.probabilities = pd.Series(selections.mean(axis=0).to_numpy(), index=pd.Index(terms, name="feature"),
                                       name="probability")
        kept = self.probabilities[self.probabilities >= parameters.cutoff - 1e-12]
        position = {term: j for j, term in enumerate(terms)}
        self.selected = sorted(kept.index, key=lambda term: (-kept[term], position[term]))
        self.n = n
        self.classes = None if classes is None else list(classes)
        self.response_type = response_type
        self.response_reason = response_reason
        self.random_state = random_state
        self.stratified = stratified
        self.n_dropped = n_dropped

    q = property(lambda self: self.parameters.q)
    cutoff = property(lambda self: self.parameters.cutoff)
    pfer = property(lambda self: self.parameters.pfer)

    @property
    def n_runs(self):
        return len(self.selections)

    def _sampling_text(self):
        where = ("within each class" if self.stratified else "from all the rows")
        if self.parameters.sampling == "SS":
            return (f"{self.parameters.B} complementary pairs of half-samples ({self.n_runs} runs; halves drawn "
                    f"{where})")
        return f"{self.n_runs} half-samples (drawn {where})"

    def _bound_text(self, short=False):
        parameters = self.parameters
        if parameters.sampling == "MB":
            source = "Meinshausen & Buhlmann 2010" + ("" if short else ", Theorem 1")
        elif parameters.assumption == "none":
            source = "Shah & Samworth 2013, " + ("no assumption" if short else
                                                  "without assumption (the Meinshausen & Buhlmann bound)")
        else:
            source = (f"Shah & Samworth 2013, {parameters.assumption}" if short else
                      f"Shah & Samworth 2013, under the {parameters.assumption} assumption")
        return f"PFER {'≤' if short else '<='} {format_number(parameters.pfer)} ({source})"

    def guarantee(self):
        """The guarantee in words."""
        parameters = self.parameters
        p = self.selections.shape[1]
        return (f"Among the {len(self.selected)} selected feature(s), the expected number that are noise (features "
                f"whose selection is no better than random guessing) is at most {format_number(parameters.pfer)} "
                f"(the per-family error rate; per comparison, {format_number(parameters.pfer / p)} of the {p} "
                f"features). The bound assumes the noise features are selected no more "
                f"often than at random (exchangeability) and that the method does better than random guessing.")

    def summary_frame(self):
        """Per feature: selection probability, selected, and the path (numbers), most often selected first."""
        frame = pd.DataFrame({"probability": self.probabilities,
                              "selected": [term in self.selected for term in self.probabilities.index]})
        order = np.argsort(-frame["probability"].to_numpy(), kind="stable")
        return frame.iloc[order]

    def as_dict(self):
        """The result's numbers as plain Python (for JSON): the call, the parameters of the bound,
        the selection and every feature's probability and path."""
        parameters = self.parameters
        return {"call": self.call, "procedure": "stability_selection", "method": self.method,
                "params": dict(self.params), "q": int(parameters.q), "cutoff": float(parameters.cutoff),
                "pfer": float(parameters.pfer), "sampling": parameters.sampling, "assumption": parameters.assumption,
                "B": int(parameters.B), "runs": int(self.n_runs), "stratified": bool(self.stratified),
                "random_state": self.random_state, "n": int(self.n), "response_type": self.response_type,
                "classes": self.classes, "selected": list(self.selected), "guarantee": self.guarantee(),
                "features": [{"feature": term, "probability": float(self.probabilities[term]),
                              "path": [float(value) for value in self.path.loc[term]]}
                             for term in self.probabilities.index]}

    def summary(self, all_features=False):
        """The bound, the guarantee in words and the features by selection probability.

        Parameters
        ----------
        all_features : bool
            List every feature; default the ones selected in at least one run.
        """
        frame = self.summary_frame()
        shown = frame if all_features else frame[frame["probability"] > 0]
        table = pd.DataFrame({"feature": shown.index,
                              "probability": [f"{value:.2f}" for value in shown["probability"]],
                              "selected": ["yes" if flag else "" for flag in shown["selected"]]})
        params = ", ".join(f"{name} = {value!r}" for name, value in self.params.items())
        what = ("a continuous response" if self.classes is None else f"{len(self.classes)} classes")
        dropped = f"; {self.n_dropped} incomplete rows dropped" if self.n_dropped else ""
        header = [("Call", self.call),
                  ("Method", f"{self.method}: {self._spec.description}"),
                  ("Parameters", params or "none"),
                  ("Data", f"{self.n} rows, {self.selections.shape[1]} features, {what}{dropped}"),
                  ("Resampling", f"{self._sampling_text()}; random_state = {self.random_state!r}"),
                  ("Per run", f"the first q = {self.q} features of the method"),
                  ("Cutoff", f"selected when chosen in at least {format_number(self.cutoff)} of the runs"),
                  ("Error bound", self._bound_text()),
                  ("Selected", f"{len(self.selected)}: {', '.join(self.selected) if self.selected else 'none'}")]
        notes = [self.guarantee(),
                 "probability: share of the runs whose first q features include the feature."]
        if not all_features:
            never = int((frame["probability"] == 0).sum())
            if never:
                notes.append(f"Not listed: {format_count(int(never), 'feature')} never selected (summary(all_features=True)).")
        return Summary("Stability selection", header, table, notes, frame=shown.copy())

    def plot(self, kind="probabilities", ax=None, max_features=30):
        """Plot the selection probabilities.

        Parameters
        ----------
        kind : {'probabilities', 'path'}
            ``'probabilities'``: bars of the selection probabilities, highest first, with the cutoff
            (selected features in red; ``stabs``' ``plot(type = "maxsel")``); ``'path'``: the
            probability of each feature against q' = 1..q (``type = "paths"``), the selected
            features in colour.
        ax : matplotlib Axes, optional
        max_features : int
            Bars shown (``'probabilities'``).

        Returns
        -------
        matplotlib Axes
        """
        from fstools.results.plotting import axes_for, plain_numbers  # imports matplotlib: only when drawn

        title = (f"Stability selection: {method_label(self.method)}, q = {self.q}, cutoff = "
                 f"{format_number(self.cutoff)}\n{self._bound_text(short=True)}")
        if kind == "probabilities":
            frame = self.summary_frame().iloc[:max_features]
            ax = axes_for(ax, (6.4, max(3.0, 0.26 * len(frame) + 1.6)))
            positions = np.arange(len(frame))[::-1]
            colors = ["tab:red" if flag else "0.65" for flag in frame["selected"]]
            ax.barh(positions, frame["probability"], color=colors)
            ax.set_yticks(positions)
            ax.set_yticklabels(frame.index, fontsize=8)
            ax.axvline(self.cutoff, color="k", linestyle="--", linewidth=1)
            ax.text(self.cutoff, positions[0] + 0.6, f" cutoff {format_number(self.cutoff)}", fontsize=8,
                    va="bottom")
            ax.set_xlim(0, 1.05)
            ax.set_ylim(-0.7, len(frame) + 0.3)
            ax.set_xlabel("selection probability (share of the runs)")
            plain_numbers(ax, "x")
        elif kind == "path":
            ax = axes_for(ax, (6.4, 4.4))
            steps = self.path.columns.to_numpy()
            for term in self.path.index:
                values = self.path.loc[term].to_numpy()
                if term in self.selected:
                    ax.plot(steps, values, marker="o", markersize=3, linewidth=1.6, label=term)
                else:
                    ax.plot(steps, values, color="0.75", linewidth=0.8)
            ax.axhline(self.cutoff, color="k", linestyle="--", linewidth=1)
            ax.set_xlabel("q' (features taken per run)")
            ax.set_ylabel("selection probability")
            ax.set_ylim(0, 1.05)
            ax.set_xticks(steps if len(steps) <= 20 else steps[:: max(1, len(steps) // 10)])
            if self.selected:
                ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="selected",
                          title_fontsize=8)
            plain_numbers(ax, "both")
        else:
            raise ValueError(f"kind: must be 'probabilities' or 'path'; got {kind!r}")
        ax.set_title(title, fontsize=9)
        ax.figure.tight_layout()
        return ax

    def __repr__(self):
        selected = ", ".join(self.selected) if self.selected else "none"
        return (f"Stability selection: {self.method}, {self._sampling_text()}\n"
                f"Call: {self.call}\n"
                f"q = {self.q} per run, cutoff = {format_number(self.cutoff)}: {self._bound_text()}\n"
                f"Selected ({len(self.selected)}): {selected}")

    def _repr_html_(self):
        """What a notebook shows: the short print of ``repr`` as HTML (the table is ``summary()``)."""
        return text_as_html(repr(self))


def stability_selection(formula, data, method, *, q=None, cutoff=None, pfer=None, B=None, sampling="SS",
                        assumption="unimodal", stratify=True, random_state=None, n_jobs=None, na_action="drop",
                        formula_mode="safe", response_type=None, progress=False, **params):
    """Stability selection with any method: the features chosen in most half-samples, with a PFER bound.

    Each of ``2 B`` runs (``sampling="SS"``: ``B`` complementary pairs of half-samples) or ``B`` runs
    (``"MB"``: independent half-samples) takes the method's first ``q`` features on half of the rows;
    a feature is selected when at least a share ``cutoff`` of the runs took it.  Give any two of
    ``q``, ``cutoff`` and ``pfer``; the third follows from the bound on the per-family error rate,
    the expected number of noise features selected (Meinshausen & Buhlmann 2010, JRSS-B 72:417-473,
    Theorem 1; Shah & Samworth 2013, JRSS-B 75:55-80, Eqs. 7 and 8), computed as
    ``stabs::stabsel_parameters``.

    Parameters
    ----------
    formula : str
        ``'y ~ .'`` and R's other formula forms, as :func:`fstools.select`.
    data : pandas.DataFrame
        Not modified.
    method : str or (str, dict)
        A registered supervised single-response method (or a ``(name, params)`` pair).  The method's
        first ``q`` features: its top ``q`` scores, or a greedy method's first ``q`` steps.
    q : int, optional
        Features taken per run, 1..p-1.
    cutoff : float, optional
        In (0.5, 1]: the share of the runs a feature needs.
    pfer : float, optional
        The bound to meet (> 0): the largest expected number of false selections allowed.
    B : int, optional
        Complementary pairs (``"SS"``, default 50) or half-samples (``"MB"``, default 100), as ``stabs``.
    sampling : {'SS', 'MB'}, default 'SS'
        ``"SS"``: complementary pairs (Shah & Samworth); ``"MB"``: half-samples of Meinshausen &
        Buhlmann, whose bound takes no assumption (``assumption`` is then ``"none"``, as in ``stabs``).
    assumption : {'unimodal', 'r-concave', 'none'}, default 'unimodal'
        The assumption on the distribution of the selection probabilities of the noise features
        behind the bound of ``"SS"`` (Shah & Samworth 2013, Sec. 3; ``stabs``' default).
    stratify : bool, default True
        Draw each half within each class (a class response), as ``stabs::subsample(strata=)``.
    random_state : int or None
        Seeds the half-samples; the same value gives the same result for any ``n_jobs``.
    n_jobs : int or None
        Runs in parallel: joblib threads, or the workers of a joblib backend context (e.g.
        ``with joblib.parallel_backend("dask"):``, as :func:`fstools.compare`).
    na_action, formula_mode, response_type
        As in :func:`fstools.select`.
    progress : bool
        A tqdm progress bar.
    **params
        The method's parameters.

    Returns
    -------
    StabilitySelectionResult
    """
    from tqdm.auto import tqdm

    sampling = validate(one_of(SAMPLINGS), sampling, "sampling")
    stratify = validate(BOOLEAN, stratify, "stratify")
    random_state = validate(SEED, random_state, "random_state",
                            right_type=lambda value: value is None or is_integer(value))
    effective_n_threads(n_jobs)
    if B is None:
        B = 50 if sampling == "SS" else 100
    B = integer_at_least(1).validate(B, "B")
    prepared = prepare("stability_selection", formula, data, method, params, na_action=na_action,
                       formula_mode=formula_mode, response_type=response_type)
    p = prepared.n_terms
    parameters = stability_selection_parameters(p, q=q, cutoff=cutoff, pfer=pfer, B=B, sampling=sampling,
                                                assumption=assumption)
    if prepared.n // 2 < 2:
        raise ValueError(f"data: half-samples of {prepared.n} rows are too small for stability selection")
    n_runs = 2 * B if sampling == "SS" else B
    strata = prepared.y if (stratify and prepared.response_type == "class") else None
    masks = half_samples(n_runs, y=strata, n=prepared.n, complementary=sampling == "SS", random_state=random_state)
    design = prepared.design
    n_columns = min(len(design.column_names), parameters.q + design.extra_columns)
    jobs, threads = run_jobs(n_jobs)
    tasks = [(prepared, mask, n_columns, parameters.q, threads, run) for run, mask in enumerate(masks, start=1)]
    bar = tqdm(total=n_runs, desc="fs.stability_selection", unit="run", disable=not progress, leave=False)
    try:
        orders = list(run_tasks(_half_sample_run, tasks, jobs, bar))
    finally:
        bar.close()
    Z = np.zeros((n_runs, p), dtype=bool)
    for i, order in enumerate(orders):
        Z[i, order] = True
    selections = pd.DataFrame(Z, columns=prepared.terms, index=pd.RangeIndex(1, n_runs + 1, name="run"))
    return StabilitySelectionResult(
        call=_format_call(formula, prepared, q, cutoff, pfer, B, sampling, assumption, stratify, random_state,
                          na_action, response_type),
        method=prepared.name, spec=prepared.spec, params=prepared.values, parameters=parameters,
        selections=selections, orders=orders, n=prepared.n, classes=prepared.class_names,
        response_type=prepared.response_type, response_reason=prepared.response_reason, random_state=random_state,
        stratified=strata is not None, n_dropped=prepared.frame.n_dropped)


def _format_call(formula, prepared, q, cutoff, pfer, B, sampling, assumption, stratify, random_state, na_action,
                 response_type):
    parts = [repr(formula), "data", f"method={prepared.name!r}"]
    for name, value in (("q", q), ("cutoff", cutoff), ("pfer", pfer), ("B", B)):
        if value is not None:
            parts.append(f"{name}={value!r}")
    if sampling != "SS":
        parts.append(f"sampling={sampling!r}")
    if assumption != "unimodal":
        parts.append(f"assumption={assumption!r}")
    if not stratify:
        parts.append("stratify=False")
    parts.append(f"random_state={random_state!r}")
    if na_action != "drop":
        parts.append(f"na_action={na_action!r}")
    if response_type is not None:
        parts.append(f"response_type={response_type!r}")
    parts += [f"{name}={value!r}" for name, value in prepared.given.items()]
    return f"stability_selection({', '.join(parts)})"

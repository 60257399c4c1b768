"""The base of every selection result: what was asked, what was chosen, how it prints.

:class:`Result` holds the attributes every selection has -- the call, the method and its
parameters, the per-feature scores, the selection and the reduced formula, the number of
rows used and dropped, notes -- and the parts of the presentation they share: the R-like
``repr``, the summary's header and score columns.  :class:`~fstools.SelectionResult`
(one response), :class:`~fstools.MultiLabelResult` (a label matrix) and
:class:`~fstools.OutOfCoreResult` (statistics combined over the partitions of a Dask
collection) extend it with what only they have: the response's classes or labels, their
tests and plots.
"""
import pandas as pd

from fstools.model.formula import format_formula
from fstools.results.labels import NA_REASONS, score_names
from fstools.results.tables import format_count, format_number, text_as_html

__all__ = ["Result"]


class Result:
    """Base class of the selection results.

    Attributes
    ----------
    call : str
        The call, as R's ``match.call`` would show it.
    method : str
    params : dict
        Every parameter of the method with the value used, plus ``k``.
    scores : pandas.DataFrame
        One row per candidate feature, indexed by name, sorted by ``rank``.
    steps : pandas.DataFrame or None
        For greedy methods, one row per step.
    selected : list of str
        The selected features (terms of the formula), in selection order.
    formula : str
        The reduced formula: the response(s) and the selected features.
    n, n_dropped : int
        Rows used, and rows dropped for missing values.
    notes : list of str
        Facts about this run, shown in the summary.
    iterations : pandas.DataFrame or None
        For iterative methods, one row per iteration.
    tables : dict of str -> pandas.DataFrame
        Further tables of the method.
    """

    #: First words of the printed result and of the summary's title.
    title = "Feature selection"
    #: Method-specific score columns not shown in the summary table.
    hidden_columns = ("rank", "score", "term_column", "step")
    #: What the response is ('class', 'continuous'; None without one): the score is named for it.
    response_type = "class"

    def __init__(self, *, call, spec, params, scores, selected, response_names, n, n_dropped, notes,
                 steps=None, iterations=None, tables=None):
        self.call = call
        self.method = spec.name
        self._spec = spec
        self.params = dict(params)
        if callable(scores):  # the tables built when first read: see _build_tables
            self._pending_tables = scores
        else:
            self._scores = scores
            self._steps = steps
        self.selected = list(selected)
        self.notes = list(notes)
        self.iterations = None if iterations is None else pd.DataFrame(iterations)
        self.tables = {name: pd.DataFrame(table) for name, table in (tables or {}).items()}
        self.n = int(n)
        self.n_dropped = int(n_dropped)
        self.formula = format_formula(list(response_names), self.selected)

    # ---------------------------------------------------------- the tables, built when first read
    # ``scores`` given to __init__ as a function of no arguments returning (scores, steps): the
    # tables are built when one is first read (or the result pickled or copied), so that a
    # selection whose tables nobody looks at (a wide frame: 100,000 rows) does not pay for them.

    def _build_tables(self):
        pending = self.__dict__.pop("_pending_tables", None)
        if pending is not None:
            self._scores, self._steps = pending()

    @property
    def scores(self):
        self._build_tables()
        return self._scores

    @scores.setter
    def scores(self, value):
        self._build_tables()
        self._scores = value

    @property
    def steps(self):
        self._build_tables()
        return self._steps

    @steps.setter
    def steps(self, value):
        self._build_tables()
        self._steps = value

    def __getstate__(self):
        self._build_tables()  # (the pending function need not pickle)
        return self.__dict__.copy()

    def __setstate__(self, state):
        state = dict(state)
        for name in ("scores", "steps"):  # results pickled when these were plain attributes
            if name in state:
                state[f"_{name}"] = state.pop(name)
        self.__dict__.update(state)

    # ---------------------------------------------------------- presentation
    def _population(self):
        """What the response is, in a few words for ``repr`` (e.g. '3 classes')."""
        raise NotImplementedError

    def _score_columns(self):
        extra = [c for c in self.scores.columns if c not in self.hidden_columns]
        return extra if extra else ["score"]

    def _score_table(self, shown):
        """rank, feature and the method's score columns of the rows ``shown``, formatted."""
        table = pd.DataFrame({"rank": shown["rank"].astype(int).to_numpy(), "feature": shown.index.to_numpy()})
        for column in self._score_columns():
            table[column] = [format_number(v) for v in shown[column]]
        return table

    def _header(self, response_line, extra=(), details=False):
        """The summary's header lines: call, method, criterion (``details`` only), reference, parameters,
        data, selection."""
        params = ", ".join(f"{name} = {value!r}" for name, value in self.params.items())
        criterion = [("Criterion", self._spec.criterion or "see the method's documentation")] if details else []
        return [
            ("Call", self.call),
            ("Method", f"{self.method}: {self._spec.description}"),
            *criterion,
            ("Reference", self._spec.reference),
            ("Parameters", params or "none"),
            ("Observations", f"{self.n} ({self.n_dropped} dropped for missing values)"),
            ("Candidates", format_count(len(self.scores), "feature")),
            response_line,
            ("Selected", format_count(len(self.selected), "feature")),
            *extra,
        ]

    def _score_note(self):
        direction = "higher" if self._spec.higher_is_better else "lower"
        plain, symbol = score_names(self._spec.score_name, self.response_type)
        named = f"{plain} ({symbol})" if symbol else plain
        return f"score = {named}, {direction} is better"

    def _na_legend(self, table):
        """One line saying why the score columns shown hold NA (None when none does)."""
        columns = [c for c in self._score_columns() if c in table.columns and (table[c] == "NA").any()]
        if not columns:
            return None
        reasons = NA_REASONS.get(self.method, {})
        grouped = {}
        for column in columns:
            if column in reasons:
                grouped.setdefault(reasons[column], []).append(column)
        parts = [f"{', '.join(names)}: NA {reason}" for reason, names in grouped.items()]
        others = [c for c in columns if c not in reasons]
        if others:
            parts.append(f"{', '.join(others)}: NA = not defined for that feature (see the notes)")
        return "; ".join(parts)

    def __repr__(self):
        shown = ", ".join(self.selected[:10]) + (", ..." if len(self.selected) > 10 else "")
        return (f"{self.title}: {self.method}\n"
                f"Call: {self.call}\n"
                f"n = {self.n} ({self.n_dropped} dropped), {format_count(len(self.scores), 'candidate feature')}, "
                f"{self._population()}\n"
                f"Selected ({len(self.selected)}): {shown}")

    def _repr_html_(self):
        """What a notebook shows: the short print of ``repr``, as HTML (the full table is
        ``summary()``, one call away, as in R: ``res`` then ``summary(res)``)."""
        return text_as_html(repr(self))

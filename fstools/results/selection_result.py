"""Result objects: what a selection returns, how it prints, tests and plots.

:class:`SelectionResult` holds the selected features and the per-feature
scores, and owns presentation: an R-like ``repr``, :meth:`SelectionResult.summary`
(text / HTML / LaTeX) with a univariate test of class separation per feature,
and :meth:`SelectionResult.plot`.  :meth:`SelectionResult.test` adds the permutation test of
the method's own score (:mod:`fstools.methods.permutation`).
"""
import copy
from functools import cached_property

import numpy as np
import pandas as pd
from scipy import sparse

from fstools.core.constraints import one_of, validate
from fstools.core.messages import did_you_mean
from fstools.core.parallel import effective_n_threads
from fstools.methods.permutation import (best_by_group, check_permutation_arguments, check_permutation_method,
                                         permutation_null, permutation_p_values)
from fstools.model.formula import term_frame
from fstools.model.terms import columns_for_k_terms, method_design
from fstools.results.base import Result
from fstools.results.labels import PATH_NOTES, method_label
from fstools.results.diagnostics import redundancy_rate
from fstools.results.tables import (SIGNIFICANCE_COLUMN, Summary, format_number, format_p_value,
                                    significance_legend, significance_stars)
from fstools.results.univariate_tests import (adjust_p_values, association_test, benjamini_hochberg,
                                              class_separation_test)

#: Classes listed on the summary's Response line (with their counts); more are counted.
RESPONSE_LEVELS_SHOWN = 10

#: The columns a permutation test adds to ``scores``: its p-value, Benjamini-Hochberg and Holm adjusted.
PERMUTATION_COLUMNS = ("p_perm", "p_perm_bh", "p_perm_holm")

#: What ``summary(tests=...)`` shows.
SUMMARY_TESTS = ("auto", "permutation", "marginal")

__all__ = ["SelectionResult", "PERMUTATION_COLUMNS"]


class SelectionResult(Result):
    """The outcome of :func:`fstools.select`.

    Attributes
    ----------
    selected : list of str
        Selected features (terms of the formula), in selection order; every
        feature ranked when ``k`` was None.
    scores : pandas.DataFrame
        One row per candidate feature, indexed by name, sorted by ``rank``:
        ``rank`` (selection order for the selected features, then by score),
        ``score`` (the method's score; for CMQFS the modularity Q) and the
        method's own columns (CMQFS: ``Q``, ``NQ``, ``step``, ``w``, ``NRI``).
        After a permutation test (:meth:`test`, or ``fs.select(..., test='permutation')``) also
        ``p_perm`` (its p-value), ``p_perm_bh`` and ``p_perm_holm`` (adjusted by
        Benjamini-Hochberg and by Holm over all candidate features).
    permutation : dict or None
        The permutation test, if one was run (None otherwise): ``n_permutations``,
        ``random_state``, ``statistic`` (what was recomputed, in words), ``observed`` (a
        Series by feature) and ``null`` (a DataFrame, one row per permutation, one column
        per feature): see :meth:`test`.
    steps : pandas.DataFrame or None
        For greedy methods, one row per step: ``step``, ``feature`` (the feature chosen) and
        the criterion values at that step (CMQFS: ``w``, ``NQ``, ``NRI``, ``RI``; the
        information methods: ``J``, ``MI`` and, where the criterion has one, ``redundancy``).
    formula : str
        The reduced formula: the response(s) and the selected features.
    method : str
    params : dict
        Every parameter of the method with the value used, plus ``k``.
    call : str
        The call, as R's ``match.call`` would show it.
    n : int
        Rows used.
    n_dropped : int
        Rows dropped for missing values.
    response : str
    response_type : {'class', 'continuous'}
        What the response was taken as (see :mod:`fstools.model.response`).
    response_reason : str or None
        Why: e.g. "strings", or "numeric, 214 distinct integer values (...)".
    classes : list of str or None
        The classes, in code order; None for a continuous response.
    class_counts : pandas.Series or None
        Rows per class; None for a continuous response.
    notes : list of str
        Facts about this run (constant columns, ...), shown in the summary.
    iterations : pandas.DataFrame or None
        For iterative methods (DFS, trace ratio), one row per iteration: ``iteration`` and
        the method's records (DFS: ``objective``, ``divergence``, ...); drawn by
        ``plot(kind="convergence")``.
    tables : dict of str -> pandas.DataFrame
        Further tables of the method (DFS with ``gamma='cv'``: ``gamma_cv``, the grid
        searched), printed under the summary.
    class_mapping : dict or None
        Streaming methods: the class coded +1 and the one coded -1, by name.
    stream_metrics : pandas.DataFrame or None
        Streaming methods: the prequential metrics of the pass (rows 'selected' and 'learner').
    redundancy : float
        RED of the selected features (Tao et al. 2016, Eq. 34; see
        :func:`fstools.evaluation.metrics.redundancy_rate`) on their design columns: NaN with fewer
        than 2 columns or a constant one.  Shown in the summary.
    """

    def __init__(self, *, call, spec, params, model_frame, y, class_names, scores, steps,
                 selected, notes, iterations=None, tables=None, class_mapping=None, stream_metrics=None,
                 response_type="class", response_reason=None):
        super().__init__(call=call, spec=spec, params=params, scores=scores, selected=selected,
                         response_names=model_frame.response_names, n=model_frame.X.shape[0],
                         n_dropped=model_frame.n_dropped, notes=notes, steps=steps, iterations=iterations,
                         tables=tables)
        self._frame = model_frame
        self._y = y
        self.response_type = response_type
        self.response_reason = response_reason
        if response_type == "class" and class_names is not None:
            self.classes = list(class_names)
            self.class_counts = pd.Series(np.bincount(y, minlength=len(class_names)), index=self.classes,
                                          name="n")
        else:
            self.classes = None
            self.class_counts = None
        self.response = model_frame.response_names[0] if model_frame.response_names else None
        self.class_mapping = None if class_mapping is None else dict(class_mapping)
        self.stream_metrics = None if stream_metrics is None else pd.DataFrame(stream_metrics)
        self.permutation = None

    #: Score columns not shown among the method's own in the summary (the p-values have their own).
    hidden_columns = Result.hidden_columns + PERMUTATION_COLUMNS

    # ------------------------------------------------------------------ data
    def transform(self, data):
        """The reduced DataFrame: the selected features (in selection order), then the response.

        ``data`` has the columns the formula used (the original data or new data).
        Plain columns are returned as they are (dtype kept); computed terms such as
        ``np.log(c)`` as their evaluated design columns.  ``data`` is not modified.
        """
        features = term_frame(self._frame, self.selected, data)
        missing = [name for name in self._frame.response_names if name not in data.columns]
        if missing:
            return features
        responses = data.loc[:, self._frame.response_names]
        return pd.concat([features, responses], axis=1)

    def _design_columns(self, columns):
        """Dense values of some design columns (of a sparse design: only these columns densified)."""
        X = self._frame.X[:, columns]
        return X.toarray() if sparse.issparse(X) else X

    @cached_property
    def _univariate(self):
        if self.response_type is None:
            columns = ["test", "statistic", "df", "p_value", "p_adjusted"]
            return pd.DataFrame({name: pd.Series(dtype=object if name in ("test", "df") else float)
                                 for name in columns}).reindex(self.scores.index)
        rows = []
        column_terms = np.asarray(self._frame.column_terms)
        column_names = np.asarray(self._frame.column_names)
        for term in self.scores.index:
            owned = column_terms == term
            # patsy names the columns of a categorical term 'name[level]'.
            categorical = any("[" in name for name in column_names[owned])
            columns, y = self._design_columns(owned), self._y
            if self._frame.na_action == "level":
                # Missing values kept for the method (NaN): the marginal test on the rows where it is observed.
                observed = ~np.isnan(columns.reshape(len(y), -1)).any(axis=1)
                columns, y = columns[observed], y[observed]
            if self.response_type == "continuous":
                rows.append(association_test(columns, y, categorical=categorical))
            else:
                rows.append(class_separation_test(columns, y, len(self.classes), categorical=categorical))
        table = pd.DataFrame(rows, index=self.scores.index)
        table["p_adjusted"] = benjamini_hochberg(table["p_value"].to_numpy())
        return table

    @cached_property
    def _redundancy(self):
        """(RED, number of design columns, why it is NA or None) for the selected features."""
        chosen = set(self.selected)
        columns = [j for j, term in enumerate(self._frame.column_terms) if term in chosen]
        if len(columns) < 2:
            return float("nan"), len(columns), "fewer than 2 selected design columns"
        X = self._design_columns(columns)
        if not sparse.issparse(X) and np.isnan(X).any():
            return float("nan"), len(columns), "missing values in the selected columns (na_action='level')"
        constant = [self._frame.column_names[j] for j, flat in zip(columns, np.ptp(X, axis=0) == 0) if flat]
        if constant:
            return float("nan"), len(columns), f"constant selected column(s) {', '.join(constant[:3])}" \
                                               f"{', ...' if len(constant) > 3 else ''}: correlation undefined"
        return redundancy_rate(X), len(columns), None

    @property
    def redundancy(self):
        """RED (Eq. 34) of the selected features' design columns; NaN when undefined."""
        return self._redundancy[0]

    def _redundancy_line(self, details=False):
        value, n_columns, reason = self._redundancy
        if reason is not None:
            return f"RED = NA ({reason})"
        pairs = n_columns * (n_columns - 1) // 2
        line = (f"RED = {format_number(value)} on the {n_columns} design column(s) of the selected features "
                f"(half their mean |Pearson r| = {format_number(2 * value)}; lower is less redundant)")
        if details:
            line += (f"; Tao et al. (2016) Eq. 34: sum over the {pairs} pairs of |r| / (|F| (|F| - 1)), |r| as "
                     f"Zhao et al. (2010), fs.metrics.redundancy_rate")
        return line

    def univariate_tests(self):
        """Per-feature test of class separation (or of association with a continuous
        response) for every candidate feature.

        Classes: Welch's t for two classes, one-way ANOVA F for more, chi-square for
        categorical features.  A continuous response: the regression F test of each
        numeric feature (scikit-learn's ``f_regression``), the one-way ANOVA F of the response
        across a categorical feature's levels; ``p_adjusted`` is Benjamini-Hochberg over all
        candidate features (the family the selection looked at).  Each test looks at one
        feature on its own (a marginal test): it is not a test of the selection, which chose
        the features on the same data.

        Returns
        -------
        pandas.DataFrame
            One row per candidate feature, indexed by name: ``test`` (the test's name),
            ``statistic``, ``df`` (a number, or "df1, df2" for F), ``p_value``, ``p_adjusted``.
        """
        return self._univariate.copy()

    def test(self, test="permutation", n_permutations=999, random_state=None, n_jobs=None):
        """The result with a permutation test of the method's own score of every candidate feature.

        Under the null hypothesis that a feature and the response are independent, the
        response is permuted ``n_permutations`` (B) times, the method's score of every feature
        recomputed on each permuted response, and the p-value of a feature is
        ``(1 + #{permuted score >= observed score}) / (1 + B)`` (``<=`` for a score where lower
        is better; Phipson and Smyth 2010, "Permutation p-values should never be zero",
        Eq. 2).  A term with several design columns (a factor) is scored by its best column,
        under each permutation as on the data.  For a greedy method the test is of its
        relevance, the score of its first step -- I(X;C) for mrmr, jmi, cmim, mifs and mifs_u,
        the modularity Q for cmqfs -- not of the greedy selection.  The smallest p-value
        possible is 1 / (1 + B).

        Parameters
        ----------
        test : {'permutation'}
        n_permutations : int, default 999
        random_state : None or int
            Seed of the permutations (``numpy.random.default_rng``); the same seed gives the
            same p-values whatever ``n_jobs``.  Not a parameter of the method (a method's own
            ``random_state``, e.g. mim with ``estimator='knn'``, is in :attr:`params` and is
            kept fixed under the permutations).
        n_jobs : int or None
            Threads, as in :func:`fstools.select`; the p-values do not depend on it.

        Returns
        -------
        SelectionResult
            A copy of this result with the columns ``p_perm``, ``p_perm_bh`` (Benjamini-Hochberg)
            and ``p_perm_holm`` (Holm) in :attr:`scores`, the test in :attr:`permutation`, the
            p-values in :meth:`summary` and the null distributions in
            ``plot(kind='null', feature=...)``.  This result is not modified.

        Raises
        ------
        ValueError
            For an unsupervised or streaming method (naming the methods that take the test),
            or a bad argument.
        """
        test, n_permutations, random_state = check_permutation_arguments(test, n_permutations, random_state)
        if test is None:
            raise ValueError("test: must be one of 'permutation'; got None")
        check_permutation_method(self._spec)
        n_threads = effective_n_threads(n_jobs)
        method_params = {name: value for name, value in self.params.items() if name != "k"}
        # The design the method ran on (factors as level codes, missing values as a level), as select has it.
        X, _, column_terms, _, design_values = method_design(self._spec, self._frame.X, self._frame.column_names,
                                                             self._frame.column_terms, method_params)
        null = permutation_null(self._spec, X, self._y, {**method_params, **design_values},
                                n_permutations=n_permutations,
                                random_state=random_state, n_threads=n_threads, response_type=self.response_type,
                                k=columns_for_k_terms(column_terms, self.params.get("k")))
        position = {term: i for i, term in enumerate(self.scores.index)}
        groups = [position[term] for term in column_terms]
        higher = self._spec.higher_is_better
        observed = best_by_group(null.observed, groups, len(position), higher)
        term_null = best_by_group(null.null, groups, len(position), higher)
        p_values = permutation_p_values(observed, term_null, higher)
        tested = copy.copy(self)
        tested.scores = self.scores.copy()
        tested.scores["p_perm"] = p_values
        tested.scores["p_perm_bh"] = adjust_p_values(p_values, "fdr_bh")
        tested.scores["p_perm_holm"] = adjust_p_values(p_values, "holm")
        tested.permutation = {"n_permutations": n_permutations, "random_state": random_state,
                              "statistic": null.statistic, "observed": pd.Series(observed, index=self.scores.index),
                              "null": pd.DataFrame(term_null, columns=self.scores.index)}
        return tested

    def _permutation_note(self):
        """The summary's line saying what was permuted, how often, and what was tested."""
        test = self.permutation
        greedy = ("; for a greedy method the test is of its relevance (the first-step score), not of the "
                  "greedy selection") if self.steps is not None else ""
        return (f"p.perm: permutation test of the method's own score ({test['statistic']}) of each feature: "
                f"{self.response} permuted B = {test['n_permutations']} times (random_state = "
                f"{test['random_state']!r}), p = (1 + #{{null {'>=' if self._spec.higher_is_better else '<='} "
                f"observed}}) / (1 + B){greedy}; p.BH: Benjamini-Hochberg, p.Holm: Holm, over all "
                f"{len(self.scores)} candidates")

    def summary_frame(self, all_features=False):
        """The numbers of :meth:`summary` as a DataFrame.

        Returns
        -------
        pandas.DataFrame
            One row per selected feature (every candidate with ``all_features``), indexed by
            name: the columns of :attr:`scores` (``rank``, ``score`` and the method's own, e.g.
            CMQFS: ``Q``, ``NQ``, ``step``, ``w``, ``NRI``; after :meth:`test` the permutation
            p-values ``p_perm``, ``p_perm_bh``, ``p_perm_holm``), then the columns of
            :meth:`univariate_tests`: ``test``, ``statistic``, ``df``, ``p_value``, ``p_adjusted``.
        """
        shown = self.scores if all_features else self.scores.loc[self.selected]
        # A method's own column named like a test column (f_test's p_value) keeps its name; the
        # marginal test's gets the suffix "_marginal".
        return shown.join(self._univariate.loc[shown.index], rsuffix="_marginal")

    # ---------------------------------------------------------- presentation
    def _population(self):
        if self.response_type == "continuous":
            return "a continuous response"
        return f"{len(self.classes)} classes"

    def _response_line(self):
        """The Response line of the summary: the response, its type with the reason, and its
        classes (the first ten, with counts) or its distribution."""
        if self.response_type is None:
            return "none (one-sided formula: the method uses no response)"
        reason = f" ({self.response_reason})" if self.response_reason else ""
        if self.response_type == "continuous":
            y = self._y
            return (f"{self.response}, continuous{reason}: mean {format_number(float(np.mean(y)))}, "
                    f"sd {format_number(float(np.std(y, ddof=1)))}, range {format_number(float(y.min()))} to "
                    f"{format_number(float(y.max()))}")
        shown = [f"{name} ({count})" for name, count in self.class_counts.items()]
        if len(shown) > RESPONSE_LEVELS_SHOWN:
            shown = shown[:RESPONSE_LEVELS_SHOWN] + [f"... ({len(shown) - RESPONSE_LEVELS_SHOWN} more)"]
        return f"{self.response}, {len(self.classes)} classes{reason}: {', '.join(shown)}"

    def summary(self, all_features=False, details=False, tests="auto"):
        """Summary table: the call, method, parameters, data, then per selected feature its
        rank, score(s) and p-values.

        Parameters
        ----------
        all_features : bool
            Show every candidate feature, not only the selected ones.
        details : bool
            Also show the method's criterion as a formula and the equations behind the
            redundancy rate.
        tests : {'auto', 'permutation', 'marginal'}, default 'auto'
            ``'permutation'``: the permutation test of the method's own score (:meth:`test`),
            its p-value and the Benjamini-Hochberg and Holm adjusted ones, next to the score.
            ``'marginal'``: a univariate test of each feature against the response
            (:meth:`univariate_tests`; Welch t / ANOVA F / chi-square, or the regression F),
            with its BH-adjusted p-value.  ``'auto'``: the permutation test when the result
            has one, else the marginal tests.
        """
        tests = validate(one_of(SUMMARY_TESTS), tests, "tests")
        if tests == "permutation" and self.permutation is None:
            raise ValueError("tests: 'permutation' needs a permutation test; run res = res.test('permutation') "
                             "or fs.select(..., test='permutation') first (or use tests='marginal')")
        if tests == "permutation" or (tests == "auto" and self.permutation is not None):
            return self._permutation_summary(all_features, details)
        shown = self.scores if all_features else self.scores.loc[self.selected]
        tests = self._univariate.loc[shown.index]
        table = self._score_table(shown)
        if self.response_type is None:
            header = self._header(("Response", self._response_line()),
                                  [("Redundancy", self._redundancy_line(details))], details=details)
            notes = [f"{self._score_note()}", "no p-values: there is no response to test the features against"]
            return self._summary(header, table, notes, legend_at=0)
        table["test"] = tests["test"].to_numpy()
        table["statistic"] = [format_number(v) for v in tests["statistic"]]
        table["df"] = [v if isinstance(v, str) else format_number(v, 4) for v in tests["df"]]
        table["p.value"] = [format_p_value(v) for v in tests["p_value"]]
        table["p.adj"] = [format_p_value(v) for v in tests["p_adjusted"]]
        table[SIGNIFICANCE_COLUMN] = [significance_stars(v) for v in tests["p_adjusted"]]
        header = self._header(("Response", self._response_line()),
                              [("Redundancy", self._redundancy_line(details))], details=details)
        used = ", ".join(dict.fromkeys(tests["test"]))
        notes = [significance_legend(SIGNIFICANCE_COLUMN),
                 f"{self._score_note()}; p.adj: Benjamini-Hochberg over all {len(self.scores)} candidates",
                 f"p-values: {used} test of each feature against {self.response}, one feature at a time "
                 f"(marginal tests); they are not tests of the selection, which chose these features on the same "
                 f"data"]
        return self._summary(header, table, notes, legend_at=1)

    def _summary(self, header, table, notes, legend_at):
        """The Summary of ``table``: ``notes``, the NA legend (inserted at ``legend_at``) where the
        table shows NA, the result's own notes and its further tables."""
        notes = list(notes)
        na_line = self._na_legend(table)
        if na_line:
            notes.insert(legend_at, na_line)
        notes += self.notes
        for name, frame in self.tables.items():
            notes.append(f"{name}:")
            notes += ["  " + line for line in _format_table(frame).to_string(index=False).split("\n")]
        return Summary(f"Feature selection ({self.method})", header, table, notes)

    def _permutation_summary(self, all_features, details):
        """:meth:`summary` with the permutation p-values next to the score."""
        shown = self.scores if all_features else self.scores.loc[self.selected]
        table = self._score_table(shown)
        table["p.perm"] = [format_p_value(v) for v in shown["p_perm"]]
        table["p.BH"] = [format_p_value(v) for v in shown["p_perm_bh"]]
        table["p.Holm"] = [format_p_value(v) for v in shown["p_perm_holm"]]
        table[SIGNIFICANCE_COLUMN] = [significance_stars(v) for v in shown["p_perm_bh"]]
        header = self._header(("Response", self._response_line()),
                              [("Redundancy", self._redundancy_line(details))], details=details)
        notes = [significance_legend(SIGNIFICANCE_COLUMN, on="p.BH"), self._score_note(),
                 self._permutation_note(),
                 "marginal tests of each feature (Welch t / ANOVA F / regression F): summary(tests='marginal')"]
        return self._summary(header, table, notes, legend_at=1)

    def plot(self, kind="scores", ax=None, fig=None, **kwargs):
        """Plot the result.

        Parameters
        ----------
        kind : {'scores', 'path', 'convergence', 'null'}
            ``'scores'``: bar chart of the score of every feature by rank,
            selected features marked.  ``'null'``: the permutation distribution of the
            method's score of one feature (``feature=``, default the first selected) with
            the observed value and the p-value (after :meth:`test`).  ``'path'``: the greedy criterion of the
            feature chosen at each step (greedy methods only; every step shown).
            ``'convergence'``: the per-iteration records against the iteration,
            one panel each (iterative methods only; DFS: the objective and the
            divergence Div(k), as the DFS paper's Fig. 6).
        ax : matplotlib Axes, optional
            For ``'convergence'``, a sequence of Axes, one per panel.
        fig : matplotlib Figure, optional
            ``'convergence'`` only: draw the panels into this figure.
        **kwargs
            Passed to the plot function (``'null'``: ``feature``, ``bins``).

        Returns
        -------
        matplotlib Axes; for ``'convergence'`` (several panels) the Figure
        """
        # Imported when first drawn: matplotlib costs start-up time.
        from fstools.results.plotting import plot_convergence, plot_null, plot_path, plot_scores

        if kind == "scores":
            return plot_scores(self, ax=ax, **kwargs)
        if kind == "path":
            if self.steps is None or self._spec.path_column is None:
                raise ValueError(f"kind: 'path' needs a greedy method; {self.method!r} is not greedy "
                                 f"(allowed for it: 'scores')")
            title = (f"{method_label(self.method)}: selection path, {len(self.steps)} steps\n"
                     f"response {self.response}, n = {self.n}")
            return plot_path(self.steps, self._spec.path_column, title=title, ax=ax,
                             note=PATH_NOTES.get(self.method), **kwargs)
        if kind == "convergence":
            if self.iterations is None:
                allowed = "'scores', 'path'" if self.steps is not None and self._spec.path_column else "'scores'"
                raise ValueError(f"kind: 'convergence' needs an iterative method; {self.method!r} records no "
                                 f"iterations (allowed for it: {allowed})")
            title = (f"{method_label(self.method)}: convergence over {len(self.iterations)} iteration"
                     f"{'s' if len(self.iterations) != 1 else ''} (response {self.response}, n = {self.n})")
            return plot_convergence(self.iterations, title=title, ax=ax, fig=fig, **kwargs)
        if kind == "null":
            return self._plot_null(plot_null, ax=ax, **kwargs)
        raise ValueError(f"kind: must be 'scores' or 'path' (greedy methods) or 'convergence' (iterative "
                         f"methods) or 'null' (after a permutation test); got {kind!r}")

    def _plot_null(self, plot_null, ax=None, feature=None, bins=40):
        """``plot(kind='null')``: the permutation distribution of one feature's score."""
        if self.permutation is None:
            raise ValueError("kind: 'null' needs a permutation test; run res = res.test('permutation') or "
                             "fs.select(..., test='permutation') first")
        features = list(self.scores.index)
        if feature is None:
            feature = self.selected[0] if self.selected else features[0]
        if feature not in self.scores.index:
            raise ValueError(f"feature: must be a candidate feature of the result; got {feature!r}"
                             f"{did_you_mean(str(feature), [str(name) for name in features])}")
        test = self.permutation
        greedy = ", its relevance" if self.steps is not None else ""
        title = (f"{method_label(self.method)}: permutation null of {feature!r}{greedy}\n"
                 f"response {self.response} permuted B = {test['n_permutations']} times, n = {self.n}")
        return plot_null(test["null"][feature].to_numpy(), float(test["observed"][feature]),
                         float(self.scores.loc[feature, "p_perm"]), self._spec.score_name,
                         self._spec.higher_is_better, title=title, ax=ax, bins=bins)


def _format_table(frame):
    """A copy of ``frame`` with floats as in the summary table (4 significant digits, NaN as NA)."""
    shown = frame.copy()
    for column in shown.columns:
        if pd.api.types.is_float_dtype(shown[column].dtype):
            shown[column] = [format_number(v) for v in shown[column]]
    return shown

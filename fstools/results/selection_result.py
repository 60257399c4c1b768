"""Result objects: what a selection returns, how it prints, tests and plots.

:class:`SelectionResult` holds the selected features and the per-feature
scores, and owns presentation: an R-like ``repr``, :meth:`SelectionResult.summary`
(text / HTML / LaTeX) with a univariate test of class separation per feature,
and :meth:`SelectionResult.plot`.  :meth:`SelectionResult.test` adds the permutation test of
the method's own score (:mod:`fstools.methods.permutation`) or, for the greedy methods, the step
tests of the path (:mod:`fstools.methods.step_tests`), by which :meth:`SelectionResult.cut` cuts it.
"""
import copy
import re
from functools import cached_property

import numpy as np
import pandas as pd
from scipy import sparse

from fstools.core.constraints import OPEN_UNIT_INTERVAL, one_of, validate
from fstools.core.messages import did_you_mean
from fstools.core.parallel import effective_n_threads
from fstools.methods.registry import NA_ACTION_MEANINGS
from fstools.methods.permutation import (best_by_group, check_permutation_arguments, check_permutation_method,
                                         permutation_null, permutation_p_values)
from fstools.methods.step_tests import check_step_method, step_tests
from fstools.model.formula import format_formula, term_frame
from fstools.model.terms import columns_for_k_terms, method_design
from fstools.results.base import Result
from fstools.results.labels import PATH_NOTES, method_label
from fstools.results.diagnostics import redundancy_rate
from fstools.results.tables import (SIGNIFICANCE_COLUMN, Summary, format_count, format_number, format_p_value,
                                    noun_for, significance_legend, significance_stars)
from fstools.results.univariate_tests import (adjust_p_values, association_test, benjamini_hochberg,
                                              class_separation_test)

#: Classes listed on the summary's Response line (with their counts); more are counted.
RESPONSE_LEVELS_SHOWN = 10

#: The columns a permutation test adds to ``scores``: its p-value, Benjamini-Hochberg and Holm adjusted.
PERMUTATION_COLUMNS = ("p_perm", "p_perm_bh", "p_perm_holm")

#: The columns a step test adds to ``steps``.
STEP_COLUMNS = ("p_step", "p_candidate", "strata")

#: What ``summary(tests=...)`` shows.
SUMMARY_TESTS = ("auto", "permutation", "marginal")

#: The design's note naming the factors scored as one variable
#: (:func:`fstools.model.terms.factor_code_design`) ...
_DESIGN_FACTOR_NOTE = re.compile(r"^(?P<named>factor\(s\) .+ scored as one variable each), by their level codes$")
#: ... and a nominal method's note on how it scores them (:mod:`fstools.methods.similarity`,
#: :mod:`fstools.methods.statistical`): "<n> factors scored by ...", "<n> factors scored as one
#: variable each: ...", "<n> nominal columns (factors, by their level codes): ..." (or singular).
_METHOD_FACTOR_NOTE = re.compile(r"^\d+ (?:factors? scored (?:as one variable each: )?|"
                                 r"nominal columns? \(factors, by their level codes\): )(?P<how>.+)$")

__all__ = ["SelectionResult", "PERMUTATION_COLUMNS", "STEP_COLUMNS"]


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
        After a step test (``test('step')``, ``fs.select(..., test='step')``, ``k='auto'``, :meth:`cut`)
        also ``p_step``, ``p_candidate`` and ``strata``; after :meth:`cut` (or ``k='auto'``) the whole
        path tested, with ``kept`` saying which steps the cut kept.
    step_test : dict or None
        The step tests, if run: ``n_permutations``, ``random_state``, ``statistic``, ``notes``
        (one line per step left NA), ``null`` (a DataFrame, one row per permutation, one column
        per step: the null of the best candidate's criterion); see :meth:`test`.
    cut_at : dict or None
        After :meth:`cut` (or ``k='auto'``): ``alpha``, ``n_kept``, ``step`` (the first step not
        significant, None when every step of the path was), ``p_step`` and ``reason``.
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
        What the response was taken as (see ``fstools.model.response``).
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

    def __init__(self, *, call, spec, params, model_frame, y, class_names, scores, selected, notes, steps=None,
                 iterations=None, tables=None, class_mapping=None, stream_metrics=None, response_type="class",
                 response_reason=None):
        super().__init__(call=call, spec=spec, params=params, scores=scores, selected=selected,
                         response_names=model_frame.response_names, n=model_frame.X.shape[0],
                         n_dropped=model_frame.n_dropped, notes=notes, steps=steps, iterations=iterations,
                         tables=tables)
        self._frame = model_frame
        self._y = y
        self.response_type = response_type
        self.response_reason = response_reason
        self.classes = list(class_names) if response_type == "class" and class_names is not None else None
        self.response = model_frame.response_names[0] if model_frame.response_names else None
        self.class_mapping = None if class_mapping is None else dict(class_mapping)
        self.stream_metrics = None if stream_metrics is None else pd.DataFrame(stream_metrics)
        self.permutation = None
        self.step_test = None
        self.cut_at = None

    #: Score columns not shown among the method's own in the summary (the p-values have their own).
    hidden_columns = Result.hidden_columns + PERMUTATION_COLUMNS

    @cached_property
    def class_counts(self):
        """The rows of each class (a Series named 'n' indexed by the classes), or None without
        classes; built when first read (a pandas Series costs more than a small selection)."""
        if self.classes is None:
            return None
        return pd.Series(np.bincount(self._y, minlength=len(self.classes)), index=self.classes, name="n")

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
        """Dense float64 values of some design columns (of a sparse design: only these columns
        densified; of a bool or integer design: only these columns converted)."""
        X = self._frame.X[:, columns]
        return X.toarray() if sparse.issparse(X) else np.asarray(X, dtype=np.float64)

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
            X, y = _complete_rows(self._design_columns(owned), self._y)
            if self.response_type == "continuous":
                rows.append(association_test(X, y, categorical=categorical))
            else:
                rows.append(class_separation_test(X, y, len(self.classes), categorical=categorical))
        table = pd.DataFrame(rows, index=self.scores.index)
        table["p_adjusted"] = benjamini_hochberg(table["p_value"].to_numpy())
        return table

    @cached_property
    def _observed_rows(self):
        """Rows of each candidate with a missing value in its design columns (under ``na_action='level'``
        or ``'pass'``) where it is observed: the rows of its marginal test; a Series, empty otherwise."""
        if self._frame.na_action not in NA_ACTION_MEANINGS or sparse.issparse(self._frame.X):
            return pd.Series(dtype=np.int64)
        column_terms = np.asarray(self._frame.column_terms)
        observed = {}
        for term in self.scores.index:
            n_observed = int(np.count_nonzero(~np.isnan(self._design_columns(column_terms == term)).any(axis=1)))
            if n_observed < self.n:
                observed[term] = n_observed
        return pd.Series(observed, dtype=np.int64)

    def _observed_rows_note(self):
        """The summary's line saying that the marginal tests of features with missing values use the rows
        where they are observed (None when no candidate has a missing value)."""
        observed = self._observed_rows
        if observed.empty:
            return None
        shown = ", ".join(f"{name} ({count} of {self.n})" for name, count in observed.iloc[:5].items())
        more = f" and {len(observed) - 5} more" if len(observed) > 5 else ""
        na_action = self._frame.na_action
        # (what na_action does with the rows is the model frame's note)
        return (f"na_action={na_action!r}: the marginal test of a feature with missing values uses the rows where "
                f"it is observed: {shown}{more}")

    @cached_property
    def _redundancy(self):
        """(RED, number of design columns, why it is NA or None, rows used) for the selected features."""
        chosen = set(self.selected)
        columns = [j for j, term in enumerate(self._frame.column_terms) if term in chosen]
        if len(columns) < 2:
            return float("nan"), len(columns), "fewer than 2 selected design columns", self.n
        X, _ = _complete_rows(self._design_columns(columns), self._y)
        constant = [self._frame.column_names[j] for j, flat in zip(columns, np.ptp(X, axis=0) == 0) if flat]
        if constant:
            return float("nan"), len(columns), f"constant selected {noun_for(len(constant), 'column')} " \
                                               f"{', '.join(constant[:3])}" \
                                               f"{', ...' if len(constant) > 3 else ''}: correlation undefined", \
                X.shape[0]
        return redundancy_rate(X), len(columns), None, X.shape[0]

    @property
    def redundancy(self):
        """RED (Eq. 34) of the selected features' design columns; NaN when undefined."""
        return self._redundancy[0]

    def _redundancy_line(self, details=False):
        value, n_columns, reason, n_rows = self._redundancy
        if reason is not None:
            return f"RED = NA ({reason})"
        pairs = n_columns * (n_columns - 1) // 2
        rows = f", on the {n_rows} of {self.n} rows where they are all observed" if n_rows < self.n else ""
        line = (f"RED = {format_number(value)} on the {format_count(n_columns, 'design column')} of the selected "
                f"features{rows} (half their mean |Pearson r| = {format_number(2 * value)}; lower is less redundant)")
        if details:
            line += (f"; Tao et al. (2016) Eq. 34: sum over the {format_count(pairs, 'pair')} of |r| / "
                     f"(|F| (|F| - 1)), |r| as Zhao et al. (2010), fs.metrics.redundancy_rate")
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
        the features on the same data.  Under ``na_action='level'`` or ``'pass'`` (the rows with
        missing values kept for the method) a feature with missing values is tested on the rows
        where it is observed; the summary says which and how many.

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

        ``test='step'`` (greedy methods: mifs, mifs_u, mrmr, jmi, cmim, cmqfs) instead tests each
        step of the path given the features chosen before: a conditional permutation test, the
        response permuted within the strata of the selected features' joint codes and the
        step's criterion recomputed for every remaining candidate
        (:ref:`step-tests`; the assumptions are stated in ``fstools.methods.step_tests``).  It adds to
        :attr:`steps` ``p_step`` (the step's p-value: the chosen criterion against the best
        candidate's under each permutation, so that it accounts for the choice), ``p_candidate``
        (the chosen candidate's own conditional p-value, not adjusted for the choice) and
        ``strata`` (the number of strata); a step whose strata are too fine for a permutation to
        move anything gets NA, with a note.  :meth:`cut` cuts the path where the steps stop being
        significant.

        Parameters
        ----------
        test : {'permutation', 'step'}
        n_permutations : int, default 999
        random_state : None or int
            Seed of the permutations (:func:`numpy.random.default_rng`); the same seed gives the
            same p-values whatever ``n_jobs``.  Not a parameter of the method (a method's own
            ``random_state``, e.g. mim with ``estimator='knn'``, is in :attr:`params` and is
            kept fixed under the permutations).
        n_jobs : int or None
            Threads, as in :func:`fstools.select`; the p-values do not depend on it.

        Returns
        -------
        SelectionResult
            A copy of this result (which is not modified).  ``test='permutation'``: with the
            columns ``p_perm``, ``p_perm_bh`` (Benjamini-Hochberg) and ``p_perm_holm`` (Holm) in
            :attr:`scores`, the test in :attr:`permutation`, the p-values in :meth:`summary` and
            the null distributions in ``plot(kind='null', feature=...)``.  ``test='step'``: with
            the step tests in :attr:`steps`, :attr:`step_test` and the summary (``p.step``).

        Raises
        ------
        ValueError
            For an unsupervised or streaming method (naming the methods that take the test),
            a non-greedy method with ``test='step'``, or a bad argument.
        """
        test, n_permutations, random_state = check_permutation_arguments(test, n_permutations, random_state)
        if test is None:
            raise ValueError("test: must be one of 'permutation', 'step'; got None")
        if test == "step":
            check_step_method(self._spec, "test")
            return self._with_step_tests(n_permutations, random_state, n_jobs)
        check_permutation_method(self._spec)
        n_threads = effective_n_threads(n_jobs)
        method_params = {name: value for name, value in self.params.items() if name != "k"}
        # The design the method ran on (factors as level codes, missing values as the method takes
        # them), as select has it.
        X, column_terms, design_values = self._method_design(method_params)
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

    def _method_design(self, params):
        """The design the method ran on, the term of each of its columns and the keywords that
        describe it to the method (:func:`fstools.model.terms.method_design`, as select has it)."""
        X, _, column_terms, _, keywords = method_design(self._spec, self._frame.X, self._frame.column_names,
                                                        self._frame.column_terms, params,
                                                        na_action=self._frame.na_action)
        return X, column_terms, keywords

    def _with_step_tests(self, n_permutations, random_state, n_jobs, stop_alpha=None):
        """A copy with the step tests of the path (every step, or up to the first not significant at
        ``stop_alpha``) in :attr:`steps` and :attr:`step_test`."""
        method_params = {name: value for name, value in self.params.items() if name != "k"}
        X, _, design_values = self._method_design(method_params)
        tests = step_tests(self._spec, X, self._y, {**method_params, **design_values}, len(self.steps),
                           n_permutations=n_permutations, random_state=random_state,
                           n_threads=effective_n_threads(n_jobs), response_type=self.response_type,
                           stop_alpha=stop_alpha)
        tested = copy.copy(self)
        tested.steps = self.steps.copy()
        tested.steps["p_step"] = tests.p_step
        tested.steps["p_candidate"] = tests.p_candidate
        tested.steps["strata"] = pd.array(np.where(tests.tested, tests.n_strata, 0), dtype="Int64")
        tested.steps.loc[~tests.tested, "strata"] = pd.NA   # NA: not tested
        untested = int(np.count_nonzero(~tests.tested))
        notes = list(tests.notes)
        if untested:
            first, last = int(np.argmin(tests.tested)) + 1, len(tests.tested)
            steps = f"{noun_for(last - first + 1, 'step')} {first}" + (f"-{last}" if last > first else "")
            notes.append(f"{steps}: not tested (the tests stopped at the first step not significant at alpha = "
                         f"{stop_alpha})")
        tested.step_test = {"n_permutations": n_permutations, "random_state": random_state,
                            "statistic": tests.statistic, "notes": notes, "stop_alpha": stop_alpha,
                            "null": pd.DataFrame(tests.null_best.T, columns=pd.RangeIndex(1, len(tests.tested) + 1,
                                                                                           name="step"))}
        return tested

    def cut(self, alpha=0.05, n_permutations=999, random_state=None, n_jobs=None):
        """The result cut where the greedy path's steps stop being significant.

        The steps are read in order and the path ends before the first step whose ``p_step``
        (:meth:`test` with ``'step'``) is not below ``alpha`` -- NA counts as not significant;
        the features of the steps before it are kept.  This is the rule of ``fs.select(...,
        k='auto')``.  Without step tests on this result they are run here, in order, up to the
        first step not significant (``n_permutations``, ``random_state``, ``n_jobs`` as in
        :meth:`test`); with step tests that do not reach a decision at ``alpha`` (every tested
        step significant, some untested) the remaining steps are tested with the settings of
        those tests (the same seed gives a step the same p-value).

        Parameters
        ----------
        alpha : float in (0, 1), default 0.05
            Level of each step's test.  The steps are tested in sequence, each at ``alpha``,
            and the first failure ends the path; no multiplicity correction is applied (the
            sequence stops at the first non-rejection, so each further step is only tested when
            all earlier ones were significant).
        n_permutations : int, default 999
        random_state : None or int
        n_jobs : int or None

        Returns
        -------
        SelectionResult
            A copy: :attr:`selected` (and ``formula``, ``params['k']``) the kept features,
            :attr:`steps` the whole path with the step tests and a ``kept`` column, :attr:`cut_at`
            the cut; both in the summary.  This result is not modified.

        Raises
        ------
        ValueError
            For a method without a greedy path, or ``alpha`` outside (0, 1).
        """
        check_step_method(self._spec, "cut")
        alpha = validate(OPEN_UNIT_INTERVAL, alpha, "alpha")
        result = self
        if result.step_test is None:
            _, n_permutations, random_state = check_permutation_arguments(None, n_permutations, random_state)
            result = result._with_step_tests(n_permutations, random_state, n_jobs, stop_alpha=alpha)
        p_values = result.steps["p_step"].to_numpy(dtype=float)
        failing = np.flatnonzero(~(p_values < alpha))
        if failing.size and pd.isna(result.steps["strata"].iloc[failing[0]]):  # untested: test the rest
            test = result.step_test
            result = result._with_step_tests(test["n_permutations"], test["random_state"], n_jobs, stop_alpha=alpha)
            p_values = result.steps["p_step"].to_numpy(dtype=float)
            failing = np.flatnonzero(~(p_values < alpha))
        n_steps = int(failing[0]) if failing.size else len(p_values)
        cut = copy.copy(result)
        cut.__dict__.pop("_redundancy", None)   # a cached property of the selection
        cut.steps = result.steps.copy()
        cut.steps["kept"] = np.arange(len(p_values)) < n_steps
        cut.selected = list(dict.fromkeys(result.steps["feature"].iloc[:n_steps]))
        cut.formula = format_formula(list(self._frame.response_names), cut.selected)
        cut.params = {**result.params, "k": len(cut.selected)}
        if failing.size:
            step, p = n_steps + 1, float(p_values[n_steps])
            feature = result.steps["feature"].iloc[n_steps]
            reason = (f"step {step} ({feature}): p.step = NA (the test is undefined there, see the notes)"
                      if np.isnan(p) else f"step {step} ({feature}): p.step = {format_p_value(p)} >= alpha")
        else:
            step, p = None, float("nan")
            reason = (f"every step of the path ({format_count(len(p_values), 'step')}) significant: the path may go "
                      f"on (ask for a "
                      f"longer path with k)")
        cut.cut_at = {"alpha": alpha, "n_kept": len(cut.selected), "step": step, "p_step": p, "reason": reason}
        return cut

    def _step_columns(self, table, shown):
        """The summary table with the step p-value of each shown feature (its first step), after a step test."""
        if self.step_test is None:
            return table
        first = self.steps.drop_duplicates("feature").set_index("feature")["p_step"]
        values = [format_p_value(first.get(name, np.nan)) for name in shown.index]
        at = table.columns.get_loc(SIGNIFICANCE_COLUMN) if SIGNIFICANCE_COLUMN in table.columns else len(table.columns)
        table.insert(at, "p.step", values)
        return table

    def _step_notes(self):
        """The summary's lines on the step tests (none without them)."""
        if self.step_test is None:
            return []
        test = self.step_test
        lines = [f"p.step: conditional permutation test of the greedy step that chose the feature, given the "
                 f"features chosen before ({test['statistic']}): {self.response} permuted B = "
                 f"{format_count(test['n_permutations'], 'time')} within the strata of the selected features' joint "
                 f"codes (random_state = {test['random_state']!r}), p = (1 + #{{best candidate's null >= observed}}) / "
                 f"(1 + B); res.steps also has p_candidate (the chosen candidate alone, not adjusted for the "
                 f"choice); NA: not tested or strata too fine"]
        lines += [f"  {note}" for note in test["notes"]]
        return lines

    def _cut_line(self):
        """The summary header's line on the cut (None before a cut)."""
        if self.cut_at is None:
            return None
        cut = self.cut_at
        return ("Path cut", f"at alpha = {cut['alpha']:g}: {format_count(cut['n_kept'], 'feature')} kept; "
                            f"{cut['reason']}")

    def _permutation_note(self):
        """The summary's line saying what was permuted, how often, and what was tested."""
        test = self.permutation
        greedy = ("; for a greedy method the test is of its relevance (the first-step score), not of the "
                  "greedy selection") if self.steps is not None else ""
        return (f"p.perm: permutation test of the method's own score ({test['statistic']}) of each feature: "
                f"{self.response} permuted B = {format_count(test['n_permutations'], 'time')} (random_state = "
                f"{test['random_state']!r}), p = (1 + #{{null {'>=' if self._spec.higher_is_better else '<='} "
                f"observed}}) / (1 + B){greedy}; p.BH: Benjamini-Hochberg, p.Holm: Holm, over all "
                f"{format_count(len(self.scores), 'candidate')}")

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
        # marginal test's gets the suffix "_marginal" (renamed here: join's rsuffix is deprecated).
        tests = self._univariate.loc[shown.index]
        tests = tests.rename(columns={name: f"{name}_marginal" for name in tests.columns if name in shown.columns})
        return shown.join(tests)

    # ---------------------------------------------------------- presentation
    def _population(self):
        if self.response_type == "continuous":
            return "a continuous response"
        return format_count(len(self.classes), "class")

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
        return f"{self.response}, {format_count(len(self.classes), 'class')}{reason}: {', '.join(shown)}"

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
        table = self._step_columns(table, shown)
        header = self._header(("Response", self._response_line()), self._extra_header(details), details=details)
        used = ", ".join(dict.fromkeys(tests["test"] if len(tests) else self._univariate["test"]))
        notes = [significance_legend(SIGNIFICANCE_COLUMN),
                 f"{self._score_note()}; p.adj: Benjamini-Hochberg over all "
                 f"{format_count(len(self.scores), 'candidate')}",
                 f"p-values: {used} test of each feature against {self.response}, one feature at a time "
                 f"(marginal tests); they are not tests of the selection, which chose these features on the same "
                 f"data", *filter(None, [self._observed_rows_note()]), *self._step_notes()]
        return self._summary(header, table, notes, legend_at=1)

    def _extra_header(self, details):
        """The summary header's lines after Selected: the redundancy rate and the cut of the path."""
        cut = self._cut_line()
        return [("Redundancy", self._redundancy_line(details)), *([cut] if cut else [])]

    def _summary(self, header, table, notes, legend_at):
        """The Summary of ``table``: ``notes``, the NA legend (inserted at ``legend_at``) where the
        table shows NA, the result's own notes and its further tables."""
        notes = list(notes)
        na_line = self._na_legend(table)
        if na_line:
            notes.insert(legend_at, na_line)
        notes += _one_factor_note(self.notes)
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
        table = self._step_columns(table, shown)
        header = self._header(("Response", self._response_line()), self._extra_header(details), details=details)
        notes = [significance_legend(SIGNIFICANCE_COLUMN, on="p.BH"), self._score_note(),
                 self._permutation_note(),
                 "marginal tests of each feature (Welch t / ANOVA F / regression F): summary(tests='marginal')",
                 *self._step_notes()]
        return self._summary(header, table, notes, legend_at=1)

    def plot(self, kind="scores", ax=None, fig=None, **kwargs):
        """Plot the result.

        Parameters
        ----------
        kind : {'scores', 'path', 'convergence', 'null'}
            ``'scores'``: bar chart of what the method ranked the features by, in rank order,
            selected features marked: for a greedy method (mifs, mifs_u, mrmr, jmi, cmim, cmqfs)
            the criterion of each feature at the step that chose it, for the others the score of
            every candidate (``value=`` below).  ``'null'``: the permutation distribution of the
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
            Passed to the plot function (``'scores'``: ``value``, ``max_features``; ``'null'``:
            ``feature``, ``bins``).  ``value`` : {'criterion', 'relevance'}, default 'criterion':
            the bars of ``'scores'``; ``'relevance'`` (greedy methods) draws every candidate's
            first-step score (I(X;C), CMQFS's Q), on which a feature chosen late can stand lower
            than one not chosen (``fstools.results.plotting.plot_scores``).

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
            title = (f"{method_label(self.method)}: selection path, {format_count(len(self.steps), 'step')}\n"
                     f"response {self.response}, n = {self.n}")
            return plot_path(self.steps, self._spec.path_column, title=title, ax=ax,
                             note=PATH_NOTES.get(self.method), **kwargs)
        if kind == "convergence":
            if self.iterations is None:
                allowed = "'scores', 'path'" if self.steps is not None and self._spec.path_column else "'scores'"
                raise ValueError(f"kind: 'convergence' needs an iterative method; {self.method!r} records no "
                                 f"iterations (allowed for it: {allowed})")
            title = (f"{method_label(self.method)}: convergence over {format_count(len(self.iterations), 'iteration')} "
                     f"(response {self.response}, n = {self.n})")
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
                 f"response {self.response} permuted B = {format_count(test['n_permutations'], 'time')}, "
                 f"n = {self.n}")
        return plot_null(test["null"][feature].to_numpy(), float(test["observed"][feature]),
                         float(self.scores.loc[feature, "p_perm"]), self._spec.score_name,
                         self._spec.higher_is_better, title=title, ax=ax, bins=bins,
                         response_type=self.response_type)


def _format_table(frame):
    """A copy of ``frame`` with floats as in the summary table (4 significant digits, NaN as NA)."""
    shown = frame.copy()
    for column in shown.columns:
        if pd.api.types.is_float_dtype(shown[column].dtype):
            shown[column] = [format_number(v) for v in shown[column]]
    return shown


def _one_factor_note(notes):
    """``notes`` with the design's note naming the factors and the method's note on how it scores them
    (the nominal methods) said once, in the place of the design's note: ``"factor(s) 'colour' scored as one
    variable each: by Pearson's chi-square test ..."``."""
    design = next((i for i, note in enumerate(notes) if _DESIGN_FACTOR_NOTE.match(note)), None)
    method = next((i for i, note in enumerate(notes) if _METHOD_FACTOR_NOTE.match(note)), None)
    if design is None or method is None:
        return list(notes)
    named = _DESIGN_FACTOR_NOTE.match(notes[design]).group("named")
    how = _METHOD_FACTOR_NOTE.match(notes[method]).group("how")
    merged = list(notes)
    merged[design] = f"{named}: {how}"
    del merged[method]
    return merged


def _complete_rows(X, y):
    """The rows of ``X`` (and ``y``) without a missing value: with ``na_action='pass'`` or ``'level'``
    the design keeps NaN, and the marginal tests and RED use the complete rows of the columns they read."""
    missing = np.isnan(X).any(axis=1)
    if not missing.any():
        return X, y
    return X[~missing], (None if y is None else np.asarray(y)[~missing])

"""The result of multi-label selection (:func:`fstools.select` with a multi-label method).

A multi-label method (capability ``"multilabel"``: ELC, LLSF, ...) takes a 0/1
label matrix Y, one column per label; :func:`fstools.api.selection.select_multilabel`
builds it and returns a :class:`MultiLabelResult`.

The result's summary replaces the class-separation tests of single-label
results (meaningless with several labels) by a per-feature test of
association with the labels -- the label with the strongest correlation and an
F test Bonferroni-adjusted over the labels -- and shows the ELC paper's
diagnostics of the selected set: the residual redundancy R(F) (Eq. 16) and the
residual label correlation C(F) (Eq. 17).
"""
from functools import cached_property

import numpy as np
import pandas as pd

from fstools.model.formula import term_frame
from fstools.core.lazy import LazyModule
from fstools.results.base import Result
from fstools.results.labels import method_label
from fstools.results.diagnostics import residual_label_correlation, residual_redundancy
from fstools.methods.multilabel import label_correlation
from fstools.results.tables import (SIGNIFICANCE_COLUMN, Summary, format_count, format_number, format_p_value,
                                    significance_legend, significance_stars)
from fstools.results.univariate_tests import benjamini_hochberg

stats = LazyModule("scipy.stats")  # imported at its first use: it takes longer to import than fstools

__all__ = ["MultiLabelResult"]


class MultiLabelResult(Result):
    """The outcome of :func:`fstools.select` with a multi-label method.

    Attributes
    ----------
    selected : list of str
        Selected features (terms), in rank order.
    scores : pandas.DataFrame
        One row per candidate feature, sorted by ``rank``: ``rank``, ``score`` and the
        method's own columns (ELC: ``gain``, ``alone``, ``row_norm``, ``selected``).
    formula : str
        ``y1 + y2 + ... ~ selected features``.
    method, call : str
    params : dict
        Every parameter of the method with the value used, plus ``k``.
    n, n_dropped : int
    labels : list of str
        The label (response) names.
    label_counts : pandas.Series
        Rows with each label.
    classes, class_counts
        Aliases of ``labels`` and ``label_counts`` (the names of :class:`SelectionResult`).
    label_correlation : pandas.DataFrame
        S, the masked RBF label correlation of Appendix B of the ELC paper (the one R(F) /
        C(F) are measured against); for ELC with ``correlation='pearson'`` the method's S is
        in ``tables['label_correlation']``.
    iterations : pandas.DataFrame or None
        For iterative methods, one row per iteration (ELC: ``objective``,
        ``relaxed_objective``, ``w_change``, ``tau``, ``p_changes``).
    tables : dict of str -> DataFrame
    notes : list of str
    residual_redundancy, residual_label_correlation : float
        R(F) (Eq. 16) and C(F) (Eq. 17) of the selected features' design columns.
    """

    title = "Multi-label feature selection"
    hidden_columns = Result.hidden_columns + ("selected",)

    def __init__(self, *, call, spec, params, model_frame, Y, scores, selected, notes,
                 iterations=None, tables=None):
        super().__init__(call=call, spec=spec, params=params, scores=scores, selected=selected,
                         response_names=model_frame.response_names, n=model_frame.X.shape[0],
                         n_dropped=model_frame.n_dropped, notes=notes, iterations=iterations)
        self._frame = model_frame
        self._Y = np.asarray(Y, dtype=np.float64)
        self.labels = list(model_frame.response_names)
        self.response = self.labels
        self.label_counts = pd.Series(self._Y.sum(axis=0).astype(int), index=self.labels, name="n")
        # The names single-label results use (code written for SelectionResult, e.g. the CLI's json).
        self.classes = self.labels
        self.class_counts = self.label_counts
        self.tables = {}
        for name, table in (tables or {}).items():
            frame = pd.DataFrame(table)
            if name == "label_correlation" and "label" in frame.columns:
                frame = frame.drop(columns="label")
                frame.index = self.labels
                frame.columns = self.labels
            self.tables[name] = frame

    # ------------------------------------------------------------------ data
    @cached_property
    def label_correlation(self):
        S = label_correlation(self._Y, "rbf")
        return pd.DataFrame(S, index=self.labels, columns=self.labels)

    def _selected_columns(self):
        chosen = set(self.selected)
        return [j for j, term in enumerate(self._frame.column_terms) if term in chosen]

    @cached_property
    def residual_redundancy(self):
        """R(F), Eq. 16 of the ELC paper, on the selected design columns (NaN with fewer than 2)."""
        return residual_redundancy(self._frame.X, self._Y, self._selected_columns())

    @cached_property
    def residual_label_correlation(self):
        """C(F), Eq. 17 of the ELC paper (unit-variance features, masked RBF S; NaN with fewer than 2)."""
        return residual_label_correlation(self._frame.X, self._Y, self._selected_columns(),
                                          S=self.label_correlation.to_numpy())

    def transform(self, data):
        """The reduced DataFrame: the selected features (rank order), then the label columns present."""
        features = term_frame(self._frame, self.selected, data)
        present = [name for name in self.labels if name in data.columns]
        if not present:
            return features
        return pd.concat([features, data.loc[:, present]], axis=1)

    @cached_property
    def _associations(self):
        rows = []
        column_terms = np.asarray(self._frame.column_terms)
        n, n_labels = self._Y.shape
        for term in self.scores.index:
            columns = self._frame.X[:, column_terms == term]
            rows.append(_label_association(columns, self._Y, self.labels))
        table = pd.DataFrame(rows, index=self.scores.index)
        table["p_adjusted"] = benjamini_hochberg(table["p_value"].to_numpy())
        return table

    def label_tests(self):
        """Per candidate feature: its association with each label, summarised (marginal tests, one
        feature at a time; not tests of the selection).

        For every label c an F test of the regression of ``y_c`` on the feature's design
        column(s) (for one column: the test of Pearson's r, F = t^2); shown are the label
        with the largest R^2, ``r`` (signed Pearson r for one column, the multiple
        correlation R otherwise), F with its degrees of freedom, ``p_value`` = the smallest
        p over the labels, Bonferroni-adjusted for the l labels, and ``p_adjusted`` =
        Benjamini-Hochberg of those over all candidate features.

        Returns
        -------
        pandas.DataFrame
            One row per candidate feature, indexed by name: ``label``, ``r``, ``F``, ``df``
            ("df1, df2"), ``p_value``, ``p_adjusted``.
        """
        return self._associations.copy()

    # ---------------------------------------------------------- presentation
    def _population(self):
        return format_count(len(self.labels), "label")

    def summary(self, all_features=False, details=False):
        """Header (call, method, labels, R(F), C(F)), then per selected feature its rank, scores and
        the label test of :meth:`label_tests`.

        Parameters
        ----------
        all_features : bool
            Show every candidate feature, not only the selected ones.
        details : bool
            Also show the method's criterion as a formula and the ELC paper's equation numbers.
        """
        shown = self.scores if all_features else self.scores.loc[self.selected]
        tests = self._associations.loc[shown.index]
        table = self._score_table(shown)
        table["label"] = tests["label"].to_numpy()
        table["r"] = [format_number(v) for v in tests["r"]]
        table["F"] = [format_number(v) for v in tests["F"]]
        table["df"] = tests["df"].to_numpy()
        table["p.value"] = [format_p_value(v) for v in tests["p_value"]]
        table["p.adj"] = [format_p_value(v) for v in tests["p_adjusted"]]
        table[SIGNIFICANCE_COLUMN] = [significance_stars(v) for v in tests["p_adjusted"]]
        cardinality = float(self._Y.sum(axis=1).mean())
        counts = ", ".join(f"{name} ({count})" for name, count in self.label_counts.items())
        eq16, eq17 = (", Eq. 16", ", Eq. 17") if details else ("", "")
        header = self._header(
            ("Labels", f"{len(self.labels)}, label cardinality {cardinality:.3g}: {counts}"),
            [("R(F)", f"{format_number(self.residual_redundancy)}  (residual redundancy{eq16}; lower is better)"),
             ("C(F)", f"{format_number(self.residual_label_correlation)}  (residual label correlation{eq17}; "
                      f"lower is better)")], details=details)
        notes = [significance_legend(SIGNIFICANCE_COLUMN),
                 f"{self._score_note()}; label / r / F: the label most associated with the feature; p.value: the "
                 f"smallest over the {format_count(len(self.labels), 'label')}, times {len(self.labels)} (Bonferroni); "
                 f"p.adj: Benjamini-Hochberg over all {format_count(len(self.scores), 'candidate')}",
                 "p-values: F tests of each feature against each label, one feature at a time (marginal tests); "
                 "they are not tests of the selection, which chose these features on the same data"]
        na_line = self._na_legend(table)
        if na_line:
            notes.insert(1, na_line)
        notes += self.notes
        return Summary(f"Multi-label feature selection ({self.method})", header, table, notes)

    def plot(self, kind="scores", ax=None, fig=None, **kwargs):
        """Plot the result.

        Parameters
        ----------
        kind : {'scores', 'convergence'}
            ``'scores'``: bar chart of the scores by rank, selected features marked
            (``fstools.results.plotting.plot_scores``; ``max_features=``);
            ``'convergence'``: the per-iteration records, one panel each (iterative methods:
            ELC's objective, relaxed objective and the change of W).
        ax : matplotlib Axes, optional
            For ``'convergence'``, a sequence of Axes, one per panel.
        fig : matplotlib Figure, optional
            ``'convergence'`` only: draw the panels into this figure.

        Returns
        -------
        matplotlib Axes; for ``'convergence'`` (several panels) the Figure
        """
        # Imported when first drawn: matplotlib costs start-up time.
        from fstools.results.plotting import plot_convergence, plot_scores

        if kind == "scores":
            return plot_scores(self, ax=ax, **kwargs)
        if kind == "convergence":
            if self.iterations is None:
                raise ValueError(f"kind: 'convergence' needs an iterative method; {self.method!r} records no "
                                 f"iterations (allowed for it: 'scores')")
            columns = kwargs.pop("columns", None)
            if columns is None:
                columns = [c for c in ("objective", "relaxed_objective", "w_change") if c in self.iterations]
            title = (f"{method_label(self.method)}: convergence over {format_count(len(self.iterations), 'iteration')} "
                     f"({format_count(len(self.labels), 'label')}, n = {self.n})")
            return plot_convergence(self.iterations, columns=columns, title=title, ax=ax, fig=fig, **kwargs)
        raise ValueError(f"kind: must be 'scores' or 'convergence'; got {kind!r}")


def _label_association(columns, Y, labels):
    """F test of y_c ~ columns for every label c; the strongest label and the Bonferroni p."""
    n = columns.shape[0]
    centred = columns - columns.mean(axis=0)
    keep = np.ptp(columns, axis=0) > 0
    centred = centred[:, keep]
    m = centred.shape[1]
    if m == 0 or n - m - 1 < 1:
        return {"label": "", "r": np.nan, "F": np.nan, "df": "NA", "p_value": np.nan}
    Yc = Y - Y.mean(axis=0)
    coefficients, *_ = np.linalg.lstsq(centred, Yc, rcond=None)
    explained = np.einsum("ij,ij->j", centred @ coefficients, centred @ coefficients)
    total = np.einsum("ij,ij->j", Yc, Yc)
    r_squared = np.clip(np.divide(explained, total, out=np.zeros_like(total), where=total > 0), 0.0, 1.0)
    df2 = n - m - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        F = (r_squared / m) / ((1.0 - r_squared) / df2)
    p_values = stats.f.sf(F, m, df2)
    best = int(np.nanargmax(r_squared))
    if m == 1:
        r = float(np.sign(coefficients[0, best]) * np.sqrt(r_squared[best]))
    else:
        r = float(np.sqrt(r_squared[best]))
    p_min = float(np.nanmin(p_values)) if np.isfinite(p_values).any() else np.nan
    return {"label": labels[best], "r": r, "F": float(F[best]), "df": f"{m}, {df2}",
            "p_value": min(1.0, p_min * Y.shape[1]) if np.isfinite(p_min) else np.nan}

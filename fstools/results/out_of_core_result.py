"""The result of out-of-core selection (:func:`fstools.select` on a Dask collection,
:func:`fstools.select_dask_array`): the scores and the selection, from statistics combined over
the partitions.  The univariate tests and the redundancy of the in-memory result need the data in
memory and are not computed.
"""
import pandas as pd

from fstools.results.base import Result
from fstools.results.tables import Summary, format_count

__all__ = ["OutOfCoreResult"]


class OutOfCoreResult(Result):
    """What :func:`fstools.select` on a Dask DataFrame and :func:`fstools.select_dask_array` return.

    Attributes as :class:`fstools.SelectionResult` (``selected``, ``scores``, ``formula``,
    ``method``, ``params``, ``call``, ``n``, ``n_dropped``, ``classes``, ``class_counts``,
    ``response``, ``notes``); the univariate tests and the redundancy of the in-memory result
    need the data in memory and are not computed.
    """

    title = "Feature selection out of core"

    def __init__(self, *, call, spec, params, scores, selected, response, classes, class_counts, n, n_dropped,
                 notes):
        super().__init__(call=call, spec=spec, params=params, scores=scores, selected=selected,
                         response_names=[response], n=n, n_dropped=n_dropped, notes=notes)
        self.response = response
        self.classes = list(classes)
        self.class_counts = pd.Series(class_counts, index=self.classes, name="n")

    def transform(self, data):
        """The selected columns (selection order), then the response if ``data`` has it (lazy for dask)."""
        columns = self.selected + ([self.response] if self.response in data.columns else [])
        return data[columns]

    def _population(self):
        return format_count(len(self.classes), "class")

    def summary(self, details=False):
        """The call, method, data and the scores of the selected features (``details``: also the
        method's criterion as a formula)."""
        counts = ", ".join(f"{name} ({count})" for name, count in self.class_counts.items())
        header = self._header(("Response", f"{self.response}, {format_count(len(self.classes), 'class')}: {counts}"),
                              details=details)
        table = self._score_table(self.scores.loc[self.selected])
        return Summary(f"{self.title} ({self.method})", header, table, [self._score_note()] + self.notes)

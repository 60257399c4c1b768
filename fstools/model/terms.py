"""The column <-> term map: from per-column method output to per-term (per-variable) results.

A formula term (a variable, a factor, an interaction) can own several design columns; a method
scores columns.  Every path that turns a column ranking into terms (``select``, ``compare``,
``stability`` and the out-of-core path) goes through this module: a term takes the rank of its
best column, and ``k`` counts terms.
"""
from collections import Counter

import numpy as np
import pandas as pd

from fstools.core.ranking import complete_ranking

__all__ = ["columns_for_k_terms", "ranked_terms", "term_scores", "steps_table"]


def columns_for_k_terms(column_terms, k):
    """How many columns to request so that ``k`` distinct terms are surely among them."""
    if k is None:
        return None
    shared = sum(count - 1 for count in Counter(column_terms).values())
    return min(len(column_terms), k + shared)


def _distinct(items, limit=None):
    """``items`` without repeats, in order of first appearance, at most ``limit`` of them."""
    seen = set()
    distinct = []
    for item in items:
        if item not in seen:
            seen.add(item)
            distinct.append(item)
            if limit is not None and len(distinct) == limit:
                break
    return distinct


def _column_order(output, higher_is_better):
    """Every column: the method's ranking, then the rest by score under the ranking rule."""
    return complete_ranking(output.ranking, output.scores, higher_is_better)


def ranked_terms(output, higher_is_better, column_terms, k=None):
    """The first ``k`` distinct terms (all when None) in the order of their best-ranked column."""
    return _distinct((column_terms[int(j)] for j in _column_order(output, higher_is_better)), k)


def term_scores(output, spec, column_names, column_terms, k):
    """The per-term scores table (best first) and the selected terms, from per-column output.

    Each term is represented by its best-ranked column (its score and diagnostics); the
    selection is the first ``k`` distinct terms of the method's own ranking.  When some term
    owns several columns, a ``term_column`` column names the representing one.
    """
    representative = {}
    for j in _column_order(output, spec.higher_is_better):
        representative.setdefault(column_terms[int(j)], int(j))
    term_order = list(representative)
    positions = np.fromiter(representative.values(), dtype=np.intp, count=len(representative))
    selected = _distinct((column_terms[int(j)] for j in output.ranking), k)
    rows = {"rank": np.arange(1, len(term_order) + 1), "score": _take(output.scores, positions)}
    for name, values in output.columns.items():
        rows[name] = _take(values, positions)
    table = pd.DataFrame(rows, index=pd.Index(term_order, name="feature"))
    if len(term_order) < len(column_terms):
        table["term_column"] = [column_names[representative[t]] for t in term_order]
    return table, selected


def _take(values, positions):
    """``values`` at ``positions``: one NumPy take for an array, else a list."""
    if isinstance(values, np.ndarray) and values.ndim == 1:
        return values[positions]
    return [values[j] for j in positions]


def steps_table(output, column_terms, selected):
    """The method's greedy steps with columns named by term, up to the step that completed ``selected``."""
    if output.steps is None:
        return None
    steps = pd.DataFrame(output.steps)
    steps.insert(0, "step", np.arange(1, len(steps) + 1))
    steps["feature"] = [column_terms[int(j)] for j in steps["feature"]]
    chosen = set(selected)
    last = 0
    for i, term in enumerate(steps["feature"]):
        if term in chosen:
            last = i
    return steps.iloc[: last + 1].reset_index(drop=True)

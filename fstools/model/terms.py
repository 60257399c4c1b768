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

__all__ = ["columns_for_k_terms", "ranked_terms", "term_scores", "steps_table", "factor_code_design",
           "nominal_code_design", "FACTOR_CODE_LEVELS"]

#: Most levels of a factor scored by its level codes: the information methods read integer
#: columns with at most this many values as codes (more are binned as numbers), so a factor
#: with more levels keeps its dummy columns (with a note).
FACTOR_CODE_LEVELS = 32


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


def factor_code_design(X, column_names, column_terms):
    """The design with each factor (a term of 0/1 dummy columns) as one column of level codes.

    For the methods that score a categorical variable by its levels (the information methods:
    I(colour; y), not the information of one dummy).  A term is a factor here when its design
    columns are named ``name[level]`` (patsy's names of a categorical term, also of an
    interaction of factors) and hold only 0 and 1; each distinct row of its dummy block is one
    level (the reference level is the all-zero row), coded 0..L-1 in the order of
    ``numpy.unique`` of the rows.  Numeric terms keep their columns.

    Returns
    -------
    (X, column_names, column_terms, notes)
        ``X`` float64 (unchanged, and the same object, when no term is a factor); a factor's
        column is named by its term.  Factors with more than :data:`FACTOR_CODE_LEVELS` levels
        keep their dummies, with a note.
    """
    column_terms = list(column_terms)
    if not any("[" in name for name in column_names):  # no dummy columns (one look at a wide design)
        return X, list(column_names), column_terms, []
    blocks = {}
    for j, term in enumerate(column_terms):
        blocks.setdefault(term, []).append(j)
    factors = {}
    notes = []
    for term, columns in blocks.items():
        if not all("[" in column_names[j] for j in columns):
            continue
        block = np.asarray(X[:, columns], dtype=np.float64)
        if not np.isin(block, (0.0, 1.0)).all():
            continue
        _, codes = np.unique(block, axis=0, return_inverse=True)
        codes = codes.ravel()
        levels = int(codes.max()) + 1
        if levels > FACTOR_CODE_LEVELS:
            notes.append(f"factor {term!r} has {levels} levels (more than {FACTOR_CODE_LEVELS}): scored by its "
                         f"dummy columns")
            continue
        factors[term] = codes.astype(np.float64)
    if not factors:
        return X, list(column_names), column_terms, notes
    new_columns, names, terms = [], [], []
    done = set()
    for j, term in enumerate(column_terms):
        if term in factors:
            if term not in done:
                done.add(term)
                new_columns.append(factors[term])
                names.append(term)
                terms.append(term)
            continue
        new_columns.append(np.asarray(X[:, j], dtype=np.float64))
        names.append(column_names[j])
        terms.append(term)
    notes.append(f"factor(s) {', '.join(map(repr, factors))} scored as one variable each, by their level codes")
    return np.column_stack(new_columns), names, terms, notes


def nominal_code_design(X, column_names, column_terms):
    """:func:`factor_code_design` with the mask of the factor columns, for ``factors="nominal"``.

    Rows with a missing value (NaN, kept by ``na_action="pass"``) in a factor's dummy block get
    the code NaN; numeric columns keep their NaN.

    Returns
    -------
    (X, column_names, column_terms, nominal, notes)
        As :func:`factor_code_design`, and ``nominal`` (bool, one per column of the new ``X``):
        True for the column of level codes of a factor.
    """
    missing = np.isnan(X)
    any_missing = bool(missing.any())
    coded, names, terms, notes = factor_code_design(np.where(missing, 0.0, X) if any_missing else X,
                                                    column_names, column_terms)
    original = {name: j for j, name in enumerate(column_names)}
    # A factor's column is named by its term, which is none of the original (dummy) column names.
    nominal = np.array([name == term and name not in original for name, term in zip(names, terms)], dtype=bool)
    if any_missing:
        coded = np.array(coded, dtype=np.float64)
        for j, (name, term) in enumerate(zip(names, terms)):
            if nominal[j]:
                block = [original[c] for c, t in zip(column_names, column_terms) if t == term]
                coded[missing[:, block].any(axis=1), j] = np.nan
            else:
                coded[:, j] = X[:, original[name]]
    return coded, names, terms, nominal, notes

"""Stage 5, the map: the name of each design column, and the term that owns it.

fstools names a term by its variables as the formula wrote them (``colour``, not ``C(colour)``
nor ``colour[T.red]``), whichever way the formula spelt the column (``.``, backticks, ``Q()``);
patsy's design column names keep their levels (``colour[T.red]``), with ``poly()``'s columns
numbered by degree as in R.
"""
from __future__ import annotations

import ast
import re

import patsy

from fstools.model.formula.messages import formula_error
from fstools.model.formula.names import backtick_name, is_code_name, r_function_names
from fstools.model.formula.term_code import plain_column

__all__ = ["display_column_names", "r_column_names", "term_map", "map_terms"]


_Q_CALL = re.compile(r"""\bQ\(\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*\)""")


def _factor_display_name(factor) -> str:
    """fstools' name of one factor: the column for a plain column (``x``, ``Q("x")``,
    ``C(x)``, ``factor(x)``), else its code with ``Q("name")`` written as the formula
    would (bare, or in backticks when not an identifier)."""
    code = getattr(factor, "code", None)
    if code is None:
        return factor.name()
    column = plain_column(code)
    if column is not None:
        return column
    return r_function_names(_Q_CALL.sub(_displayed_quote, code))


def _displayed_quote(match) -> str:
    """``Q("name")`` as the formula would write it: bare, or in backticks."""
    name = ast.literal_eval(match.group(1))
    return name if is_code_name(name) else backtick_name(name)


def display_column_names(names: list[str]) -> list[str]:
    """patsy's design column names with the columns written as in the formula: a column read
    as ``Q("my col")`` is ``my col``, and inside a longer name (a level, an interaction) it is
    written bare or in backticks (`` `my col`[T.b] ``), and R's dotted functions as R writes them
    (``as.numeric(f)``, not the code's ``as_numeric(f)``)."""
    shown = []
    for name in names:
        match = _Q_CALL.fullmatch(name)
        shown.append(ast.literal_eval(match.group(1)) if match
                     else r_function_names(_Q_CALL.sub(_displayed_quote, name)))
    return shown


def _term_display_name(term) -> str:
    """fstools' name of a patsy term: its factors' names joined by ``:``.

    A term of one plain column is named by the column, and an interaction by its
    factors' names (``a.b:x1``), so that a term is named the same whichever
    way the formula spelt its columns (``.``, backticks, ``Q()``).
    """
    return ":".join(_factor_display_name(factor) for factor in term.factors)


def r_column_names(design_info, names: list[str]) -> list[str]:
    """Design column names with the columns of ``poly(x, d)`` numbered by degree, 1 to d.

    patsy numbers the columns of a factor that gives several from 0
    (``poly(x, 2)[0]``); fstools numbers those of ``poly()`` by the degree they
    stand for (``poly(x, 2)[1]``, ``poly(x, 2)[2]``), as R does (``poly(x, 2)1``).
    """
    codes = set()
    for term in design_info.terms:
        for factor in term.factors:
            code = getattr(factor, "code", "")
            if code.startswith("poly("):
                codes.add(code)
    if not codes:
        return names
    pattern = re.compile("(" + "|".join(re.escape(code) for code in sorted(codes)) + r")\[(\d+)\]")
    return [pattern.sub(lambda m: f"{m.group(1)}[{int(m.group(2)) + 1}]", name) for name in names]


def term_map(formula: str, design_info) -> tuple[list[str], list[str]]:
    """(term names, term name of each design column), intercept left out."""
    terms = []
    column_terms = []
    patsy_name_of = {}
    for term in design_info.terms:
        if term == patsy.INTERCEPT:
            continue
        name = _term_display_name(term)
        if name in patsy_name_of:
            raise formula_error(
                formula,
                f"terms {patsy_name_of[name]!r} and {term.name()!r} both stand for "
                f"the column {name!r}; use one of them",
            )
        patsy_name_of[name] = term.name()
        terms.append(name)
        term_slice = design_info.slice(term)
        column_terms.extend([name] * (term_slice.stop - term_slice.start))
    return terms, column_terms


def map_terms(formula: str, design) -> tuple[list, list, list]:
    """Stage 5: (column names, term names, the term of each column) of a
    :class:`fstools.model.formula.design.Design`.

    A design whose terms are its columns (``design.columns``) is named by them: one list for the
    three (read, never changed: :func:`fstools.model.terms.same_names` sees it at once).  A patsy
    design's columns are patsy's names with the columns written as in the formula
    (:func:`display_column_names`, :func:`r_column_names`), the intercept left out, and its terms
    are named by :func:`term_map`.
    """
    if design.design_info is None:
        names = design.columns if type(design.columns) is list else list(design.columns)
        return names, names, names
    design_info = design.design_info
    intercept = design_info.slice(patsy.INTERCEPT)
    names = [name for position, name in enumerate(design_info.column_names)
             if not intercept.start <= position < intercept.stop]
    terms, column_terms = term_map(formula, design_info)
    return display_column_names(r_column_names(design_info, names)), terms, column_terms

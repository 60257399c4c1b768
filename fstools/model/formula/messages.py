"""The messages of the formula layer: a formula's errors quote it first, then name the problem.

Column names in messages are written as a formula can write them (:func:`shown_name`), an unknown
column comes with the nearest name, and a long list of columns is cut short.
"""
from __future__ import annotations

import difflib

import patsy

from fstools.model.exceptions import FormulaError
from fstools.model.formula.names import backtick_name, label_name
from fstools.model.formula.safe_eval import SAFE_MODE_HINT

__all__ = ["formula_error", "shown_name", "quote_list", "columns_listed", "unknown_columns_problem",
           "patsy_problem", "safe_mode_error", "rows_with_missing_error", "no_complete_row_error"]


def formula_error(formula: str, problem: str) -> FormulaError:
    """Build a FormulaError whose message quotes the formula first."""
    return FormulaError(f"formula {formula!r}: {problem}")


def shown_name(name) -> str:
    """A column name in a message, as it can be written: ``'name'`` (Python's quoting), or in
    R's backticks when quotes would need escapes (a name holding both quotes, a backslash or an
    unprintable character)."""
    text = name if isinstance(name, str) else label_name(name)
    plain = text.isprintable() and "\\" not in text and not ("'" in text and '"' in text)
    return repr(text) if plain else backtick_name(text)


def quote_list(names) -> str:
    """``'a', 'b'`` for messages."""
    return ", ".join(shown_name(name) for name in names)


#: How many column names a message lists before it says how many more there are.
_LISTED_COLUMNS = 20


def columns_listed(names) -> str:
    """``the columns are 'a', 'b', ... (n in all)`` for messages."""
    names = list(names)
    shown = quote_list(names[:_LISTED_COLUMNS])
    if len(names) > _LISTED_COLUMNS:
        shown += f", ... ({len(names)} in all)"
    return f"the columns are {shown}"


def unknown_columns_problem(unknown: list[str], columns, list_columns: bool = False) -> str:
    """Message part for unknown column names, with a suggestion for one typo.

    ``columns`` are formula names (strings); with ``list_columns`` the message also lists them.
    """
    if len(unknown) > 1:
        problem = f"unknown columns {quote_list(unknown)}"
    else:
        problem = f"unknown column {shown_name(unknown[0])}"
        close = difflib.get_close_matches(unknown[0], [str(column) for column in columns], n=1)
        if close:
            problem += f" (did you mean {shown_name(close[0])}?)"
    if list_columns:
        problem += f"; {columns_listed(columns)}"
    return problem


def patsy_problem(error: patsy.PatsyError) -> str:
    """A one-line description of a patsy error, with the code it points at."""
    problem = error.message
    origin = error.origin
    if origin is not None:
        snippet = origin.code[origin.start : origin.end].strip()
        if snippet:
            problem += f" (at {snippet!r})"
    return problem


def safe_mode_error(formula: str, problem: str) -> FormulaError:
    """The FormulaError of code the safe mode refuses."""
    return formula_error(formula, f"{problem}: {SAFE_MODE_HINT}")


def rows_with_missing_error(formula, data, row_missing, columns_with_missing):
    """na_action='raise' met rows with missing values."""
    return ValueError(
        f"formula {formula!r}: {int(row_missing.sum())} of {len(data)} rows have "
        f"missing values (in column(s) {quote_list(columns_with_missing)}); drop "
        f"them first or use na_action='drop'"
    )


def no_complete_row_error(formula, data, used_columns):
    """Every row has a missing value in a column the formula uses."""
    return ValueError(
        f"formula {formula!r}: all {len(data)} rows have missing values in the "
        f"columns used ({quote_list(used_columns)})"
    )

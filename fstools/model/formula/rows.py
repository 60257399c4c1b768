"""Stage 3, rows: which rows a formula keeps (``na_action``), and its columns read as they are meant.

Text columns of numbers are read as numbers (:mod:`fstools.model.columns`), integers beyond 2^53
are refused before they become float64, and the rows with a missing value in a used column are
dropped (R's ``na.omit``), refused, or kept: under ``na_action='level'`` a missing value of a
categorical predictor becomes the level :data:`MISSING_LEVEL`, under ``'pass'`` it stays missing.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from fstools.model.columns import read_number_columns, warn_identifier_columns
from fstools.model.formula.messages import no_complete_row_error, rows_with_missing_error, shown_name
from fstools.model.formula.patsy_terms import Terms
from fstools.model.formula.term_code import is_categorical_code, plain_column
from fstools.model.validation import check_integer_frame

__all__ = ["MISSING_LEVEL", "Rows", "read_rows", "missing_rows", "missing_value_notes", "missing_predictor_notes",
           "response_columns"]

#: The level a missing value of a categorical predictor becomes under ``na_action='level'``
#: (as pandas and R print a missing value).
MISSING_LEVEL = "<NA>"


class Rows(NamedTuple):
    """The rows a formula keeps, and its columns as read (stage 3)."""

    #: The data with the predictors' text numbers read as numbers and, under ``na_action='level'``,
    #: the missing values of categorical predictors as the level :data:`MISSING_LEVEL`.
    data: pd.DataFrame
    #: Positions of the rows without a missing value that drops them; None: every row (the
    #: formula ``y ~ .`` read in one pass, which builds its design on the way).
    positions: np.ndarray | None
    #: Conversions made on the way, for the summary.
    notes: list
    #: The columns of text numbers or ``Decimal`` values read as numbers.
    numbers: list


def read_rows(formula: str, data: pd.DataFrame, responses: list[str], terms: Terms, na_action: str = "drop",
              na_values=None, stacklevel: int = 4) -> Rows:
    """Stage 3: the predictors read as they are meant, and the rows kept under ``na_action``.

    The predictors are the columns the ``terms`` read (stage 2: no response among them).  Their
    text columns of numbers are read as numbers (:func:`fstools.model.columns.read_number_columns`),
    identifier-like columns warned about, integers beyond 2^53 refused, and a row with a missing value in a used
    column dropped (``'drop'``) or refused (``'raise'``); under ``'level'`` and ``'pass'`` only a
    missing response drops a row.  ``stacklevel``: where the warnings point, as
    :func:`warnings.warn` counts from here.

    Raises
    ------
    ValueError
        For missing values under ``na_action='raise'``, when no row is left, or for a column
        that holds numbers but for a few entries (see :mod:`fstools.model.columns`).
    """
    predictors = terms.predictors
    data, notes, numbers = read_number_columns(data, predictors, na_values)
    warn_identifier_columns(data, predictors, stacklevel=stacklevel + 1)
    # before any conversion to float64: integers beyond 2^53 would not survive it (responses may hold them)
    _check_integer_predictors(data, predictors)
    used_columns = responses + predictors
    if na_action == "level":
        # Only a missing response drops a row; a missing predictor value is kept as a level of its own.
        row_missing, _ = missing_rows(data, responses)
        notes += missing_value_notes(data, predictors)
        data = missing_as_level(formula, data, predictors, coded_columns(terms.patsy_terms))
    else:
        row_missing, columns_with_missing = missing_rows(data, responses if na_action == "pass" else used_columns)
    if na_action == "raise" and row_missing.any():
        raise rows_with_missing_error(formula, data, row_missing, columns_with_missing)
    positions = np.flatnonzero(~row_missing)
    if len(positions) == 0:
        raise no_complete_row_error(formula, data, used_columns)
    return Rows(data, positions, notes, numbers)



def missing_rows(data: pd.DataFrame, columns: list[str]) -> tuple[np.ndarray, list[str]]:
    """Which rows have a missing value in the used columns, and which columns have one.

    A pandas sparse column with a non-missing fill value is read from its stored
    values only (no array of the column's length is built for it).
    """
    row_missing = np.zeros(len(data), dtype=bool)
    columns_with_missing = []
    for column in columns:
        series = data[column]
        dtype = series.dtype
        if isinstance(dtype, np.dtype) and dtype.kind in "iub":
            continue  # (a NumPy integer or boolean column holds no missing value)
        values = series.array
        if isinstance(dtype, np.dtype) and dtype.kind == "f":
            missing_positions = np.flatnonzero(np.isnan(series.to_numpy()))
        elif isinstance(values, pd.arrays.SparseArray) and not pd.isna(values.fill_value):
            stored = np.asarray(values.sp_values)
            missing_positions = np.asarray(values.sp_index.indices)[pd.isna(stored)]
        else:
            missing_positions = np.flatnonzero(series.isna().to_numpy())
        if missing_positions.size:
            row_missing[missing_positions] = True
            columns_with_missing.append(column)
    return row_missing, columns_with_missing


def _check_integer_predictors(data: pd.DataFrame, columns: list[str]) -> None:
    """:func:`check_integer_frame` on those of ``columns`` that have an integer dtype."""
    integer = {name for name, dtype in data.dtypes.items() if pd.api.types.is_integer_dtype(dtype)}
    if integer:
        check_integer_frame(data[[column for column in columns if column in integer]], "data")


def missing_value_notes(data: pd.DataFrame, predictors: list[str]) -> list[str]:
    """The note of ``na_action='level'``: the predictors with missing values, and how many, kept."""
    return missing_predictor_notes({column: int(data[column].isna().sum()) for column in predictors})


def missing_predictor_notes(counts: dict) -> list[str]:
    """The note of ``na_action='level'`` from the number of missing values of each predictor
    (column name -> count; those without are left out)."""
    counts = {column: count for column, count in counts.items() if count}
    if not counts:
        return []
    shown = ", ".join(f"{shown_name(column)} ({count})" for column, count in list(counts.items())[:10])
    more = f" and {len(counts) - 10} more" if len(counts) > 10 else ""
    return [f"na_action='level': rows with missing predictor values kept; missing values in {len(counts)} "
            f"column(s): {shown}{more}, a level of their own (a factor's level {MISSING_LEVEL!r})"]


def coded_columns(patsy_terms) -> tuple[set, set]:
    """The columns the terms read as factors (``C(x)`` / ``factor(x)``) and those they read as they are."""
    coded, plain = set(), set()
    for term in patsy_terms:
        for factor in term.factors:
            code = getattr(factor, "code", "")
            column = plain_column(code)
            if column is not None:
                (coded if is_categorical_code(code) else plain).add(column)
    return coded, plain


def missing_as_level(formula: str, data: pd.DataFrame, predictors: list[str], uses: tuple) -> pd.DataFrame:
    """``data`` with every missing value of a categorical predictor (non-numeric, or numbers read as
    ``C(x)`` / ``factor(x)``) replaced by the level :data:`MISSING_LEVEL`; numeric predictors keep
    NaN.  A new frame when something is replaced (the caller's data is never modified)."""
    coded, plain = uses
    replaced = {}
    for column in predictors:
        series = data[column]
        missing = series.isna().to_numpy()
        if not missing.any():
            continue
        numeric = pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype)
        if numeric and column in coded and column in plain:
            raise ValueError(f"formula {formula!r}: na_action='level': column {shown_name(column)} has missing values "
                             f"and is read both as numbers and as a factor (C() / factor()), where a missing "
                             f"value would be NaN in one and a level in the other; give the factor a column of "
                             f"its own (e.g. as strings) or use na_action='drop'")
        if numeric and column not in coded:
            continue
        if (series.astype(object)[~missing] == MISSING_LEVEL).any():
            raise ValueError(f"na_action='level': column {shown_name(column)} already has a level {MISSING_LEVEL!r}, "
                             f"the level missing values would become; rename it")
        if isinstance(series.dtype, pd.CategoricalDtype):
            replaced[column] = series.cat.add_categories([MISSING_LEVEL]).fillna(MISSING_LEVEL)
        else:
            replaced[column] = series.astype(object).where(~missing, MISSING_LEVEL)
    return data.assign(**replaced) if replaced else data


#: pandas copies on write (always from 3.0): a selection of a frame is then a copy as far as
#: anyone can tell, made only when either side is written to.
_COPY_ON_WRITE = int(pd.__version__.split(".")[0]) >= 3 or pd.options.mode.copy_on_write is True


def response_columns(data: pd.DataFrame, responses: list, rows: np.ndarray | None = None) -> pd.DataFrame:
    """A copy of the columns ``responses`` of ``data`` (labels), at the row positions ``rows`` or all.

    ``data[responses].copy()``, built from a slice of the frame when the responses are adjacent
    columns (one response, most often) and column by column otherwise: on a wide frame pandas'
    selection of a list of columns costs several times more (0.28 ms against 0.06-0.09 on
    2,000 x 501).  A label held by several columns (and no response at all) takes pandas' own
    selection.  Where pandas copies on write, the selection of all rows is not copied: writing
    to either side copies it then (1,000,000 labels: 2-3 ms saved a fit).
    """
    positions = [data.columns.get_loc(name) for name in responses]
    if not positions or not all(isinstance(position, int) for position in positions):
        selected = data[responses]
        return _copy(selected if rows is None else selected.iloc[rows])
    first = positions[0]
    if positions == list(range(first, first + len(positions))):
        # adjacent columns (one response, most often): a slice of the frame and of its Index, cheaper
        # than a take of either (2,000 x 501: 0.09 ms against 0.11 for the columns one by one)
        frame = data.iloc[:, first:first + len(positions)]
    else:
        frame = pd.DataFrame({i: data.iloc[:, position] for i, position in enumerate(positions)}, copy=False)
        frame.columns = data.columns[positions]
    return _copy(frame if rows is None else frame.iloc[rows])


def _copy(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame``, a selection of the user's data, made a frame of its own: a copy, or where pandas
    copies on write the selection itself (a copy as far as anyone can tell)."""
    return frame if _COPY_ON_WRITE else frame.copy()

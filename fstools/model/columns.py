"""Numbers that arrive as objects, and columns that look like identifiers.

Data from databases and files often hold numbers as Python objects: ``read_sql`` returns
NUMERIC columns as ``decimal.Decimal``, and a CSV column with one stray ``'?'`` is read as
strings.  Left as they are, such columns would become factors with one level per value
(a Fisher score of 0.005 instead of 1.03).  Here a column whose every present value is a
number (or a string that parses as one) is read as numbers, with a note; a column of
numbers with a few entries that are not is refused, naming the column and the entries,
unless they are declared missing (``na_values=``, as in ``pandas.read_csv``).
"""
import decimal
import numbers
import warnings

import numpy as np
import pandas as pd

from fstools.core.messages import preview

__all__ = ["numbers_from_objects", "value_kinds", "stray_entries", "read_number_columns", "warn_identifier_columns",
           "STRAY_LIMIT", "IDENTIFIER_LEVELS"]

#: A column is "numbers with stray entries" when at most this many distinct entries (and at
#: most a tenth of its present values) do not parse as numbers.
STRAY_LIMIT = 5

#: A categorical predictor with more levels than this and than half its rows looks like an
#: identifier (one level per row): warned about.
IDENTIFIER_LEVELS = 10


def _is_text(dtype):
    return dtype == object or isinstance(dtype, pd.StringDtype)


def _is_number(value):
    return isinstance(value, (numbers.Number, decimal.Decimal)) and not isinstance(value, (bool, np.bool_))


#: What :func:`pandas.api.types.infer_dtype` calls a column without booleans among its values.
_NO_BOOLEANS = {"string", "integer", "floating", "mixed-integer-float", "decimal", "empty"}


def _distinct(series):
    """``(codes, values)`` of a text column: its distinct present values (Python objects, in order
    of first appearance) and the position of each row's value among them (-1 where missing).

    The checks below look at each distinct value once: a column of a million rows holds a few
    labels, and parsing or typing every row took 3.9 s where this takes 0.05 s.  Values that
    compare and hash equal are one value (``1`` and ``1.0``, as they are one level of a factor),
    except where a column may mix booleans with numbers (``True == 1``): there every present
    row is a value of its own, so that a boolean is never taken for the number 1.
    """
    values = series.astype(object)
    if pd.api.types.infer_dtype(values, skipna=True) in _NO_BOOLEANS:
        codes, distinct = pd.factorize(values, use_na_sentinel=True)
        return codes, list(distinct)
    present = values.notna().to_numpy()
    codes = np.full(len(values), -1, dtype=np.intp)
    codes[present] = np.arange(int(present.sum()))
    return codes, values[present].tolist()


def _parsed(values):
    """The float64 numbers that the strings or numbers ``values`` parse as (NaN where they do not)."""
    return pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(dtype=np.float64)


def numbers_from_objects(series):
    """A float64 Series from an object or string Series of numbers, or None if it holds others.

    ``decimal.Decimal`` values and Python numbers are numbers; so are strings that all parse
    as numbers (``"1.5"``, ``" 2e3 "``).  Missing values stay missing (NaN).  Booleans are
    not numbers here.
    """
    if not _is_text(series.dtype):
        return None
    return _numbers(series, *_distinct(series))


def _numbers(series, codes, values):
    """:func:`numbers_from_objects` of a text column from its :func:`_distinct` values."""
    if not values:
        return None
    if all(_is_number(value) for value in values):
        numbers = pd.to_numeric(pd.Series(values, dtype=object), errors="raise").to_numpy(dtype=np.float64)
    elif all(isinstance(value, str) for value in values):
        numbers = _parsed(values)
        if np.isnan(numbers).any():  # a string that is not a number (or reads as NaN)
            return None
    else:
        return None
    return pd.Series(np.where(codes >= 0, numbers[codes], np.nan), index=series.index, name=series.name)


def value_kinds(series):
    """The Python types of the present values, e.g. 'Decimal' or 'str', joined by '/'."""
    return "/".join(sorted({type(value).__name__ for value in _distinct(series)[1]}))


def _not_numbers(values):
    """Which of the distinct ``values`` are neither numbers nor strings that parse as one (a
    boolean is not a number)."""
    kept = [None if isinstance(value, (bool, np.bool_)) else value for value in values]
    return np.isnan(_parsed(kept))


def stray_entries(series):
    """The distinct entries that keep a column of numbers from being numbers, or an empty list.

    A text column qualifies when most of its present values are numbers (or parse as numbers)
    and at most :data:`STRAY_LIMIT` distinct entries, a tenth of the present values at most, do
    not: typically ``'?'``, ``'n/a'`` or ``'-'`` written for a missing value.
    """
    if not _is_text(series.dtype):
        return []
    return _stray(*_distinct(series))


def _stray(codes, values):
    """:func:`stray_entries` of a text column from its :func:`_distinct` values."""
    if not values:
        return []
    bad = _not_numbers(values)
    rows = np.bincount(codes[codes >= 0], minlength=len(values))
    distinct = [value for value, is_bad in zip(values, bad) if is_bad]
    if 0 < len(distinct) <= STRAY_LIMIT and rows[bad].sum() <= 0.1 * rows.sum():
        return distinct
    return []


def _entries_not_numbers(series):
    """The distinct present entries of a text column that are neither numbers nor parse as one."""
    _, values = _distinct(series)
    return [value for value, is_bad in zip(values, _not_numbers(values)) if is_bad]


def _text_columns(data):
    """The set of names of the text (object or string) columns of ``data``."""
    dtypes = data.dtypes
    text = [dtype for dtype in set(dtypes.tolist()) if _is_text(dtype)]  # each distinct dtype once
    return set(data.columns[dtypes.isin(text).to_numpy()]) if text else set()


def read_number_columns(data, columns, na_values=None, where="data", required=False):
    """``data`` with its text columns of numbers among ``columns`` read as numbers.

    Parameters
    ----------
    data : pandas.DataFrame
        Not modified: a changed column is set on a shallow copy.
    columns : list
        The columns to look at (the predictors and responses a formula uses).
    na_values : list, optional
        Entries that mean "missing" in text columns (as in ``pandas.read_csv``), e.g. ``['?']``.
    where : str
        The argument named in messages.
    required : bool, default False
        Every text column among ``columns`` must be numbers (a fitted selection's columns that
        were read as numbers, on new data): one that is not is refused, naming the entries.

    Returns
    -------
    (data, notes, numbers) : the DataFrame (the same object when nothing changed), the notes,
        and the columns read as numbers.

    Raises
    ------
    ValueError
        For a column of numbers with a few entries that are not numbers (see
        :func:`stray_entries`), naming the column and the entries; with ``required``, for
        any text column among ``columns`` that is not all numbers.
    """
    notes = []
    changed = {}
    numbers = []
    na_values = list(na_values) if na_values is not None else []
    text = _text_columns(data)  # one look at the dtypes (no Series per column of a wide frame)
    for column in columns:
        if column not in text:
            continue
        series = data[column]
        declared = series.isin(na_values) if na_values else None
        declared_missing = declared is not None and bool(declared.any())
        if declared_missing:
            series = series.astype(object).mask(declared, None)
        codes, values = _distinct(series)  # (one factorisation for both checks below)
        numbers_ = _numbers(series, codes, values)
        if numbers_ is not None:
            changed[column] = numbers_
            numbers.append(column)
            kinds = value_kinds(series)
            notes.append(f"column {column!r}: {kinds} values read as numbers" +
                         ("" if kinds != "str" else " (C() in the formula keeps them as a factor)"))
            continue
        stray = _stray(codes, values)
        if stray:
            count = int(series.isin(stray).sum())
            raise ValueError(f"{where}: column {column!r} holds numbers except for {count} entr"
                             f"{'y' if count == 1 else 'ies'} {preview(stray, quote=True)}; declare them missing "
                             f"with na_values={stray!r} (rows with missing values are dropped), or fix them")
        bad = _entries_not_numbers(series) if required else []
        if required and not bad:  # no present value (every entry missing): numbers, all NaN
            changed[column] = pd.to_numeric(series.astype(object), errors="coerce").astype(np.float64)
            continue
        if bad:
            raise ValueError(f"{where}: column {column!r} was read as numbers when the selection was made; here "
                             f"{len(bad)} distinct entr{'y is' if len(bad) == 1 else 'ies are'} not: "
                             f"{preview(bad, quote=True)}; declare them missing (na_values= of the selection) "
                             f"or fix them")
        if declared_missing:
            changed[column] = series
    if not changed:
        return data, notes, numbers
    copy = data.copy(deep=False)
    for column, values in changed.items():
        copy[column] = values
    return copy, notes, numbers


def warn_identifier_columns(data, columns, where="data", stacklevel=3):
    """Warn about categorical (text, categorical) columns with about one level per row."""
    n = len(data)
    for column in columns:
        series = data[column]
        if not (_is_text(series.dtype) or isinstance(series.dtype, pd.CategoricalDtype)):
            continue
        levels = series.nunique(dropna=True)
        if levels > max(IDENTIFIER_LEVELS, n / 2):
            warnings.warn(f"{where}: column {column!r} has {levels} levels in {n} rows: it looks like an "
                          f"identifier, not a predictor (remove it with '- {column}' in the formula)",
                          UserWarning, stacklevel=stacklevel)

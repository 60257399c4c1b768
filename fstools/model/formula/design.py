"""Stage 4, the design: the design matrix of the terms on the rows kept.

patsy builds it (:func:`patsy_design`: one column per level of a factor, interactions, R's
functions), with the intercept, which is then left out: feature selection scores predictors,
never the constant.  Two cases skip patsy's per-column evaluation, which dominates on wide data:
every term a plain numeric column (read straight from the DataFrame) and, for the methods that
take sparse input, every term a pandas sparse column (a CSC matrix of the stored values).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
import patsy
from scipy import sparse

from fstools.model.formula.messages import formula_error, patsy_problem, quote_list
from fstools.model.formula.names import patsy_key
from fstools.model.formula.namespace import eval_environment
from fstools.model.formula.patsy_terms import Terms
from fstools.model.formula.r_coding import r_design_info
from fstools.model.formula.rows import Rows, missing_rows
from fstools.model.formula.term_map import display_column_names
from fstools.model.formula.term_code import is_categorical_code, term_plain_column, term_references

__all__ = ["Design", "build_design", "is_plain_numeric", "patsy_frame", "patsy_design"]


class Design(NamedTuple):
    """A formula's design matrix (stage 4), before its columns are named."""

    #: float64 without the intercept (or the integer dtype of ``y ~ .`` for a method that reads
    #: one), dense, or CSC for pandas sparse columns.
    X: object
    #: Positions in the data of the rows of ``X``; None: every row, in order.
    positions: np.ndarray | None
    #: The data columns that are the terms and the design columns, when every term is one
    #: (``design_info`` is then None).
    columns: list | None
    #: patsy's description of the design (with the intercept), or None.
    design_info: object
    #: patsy's terms in design order.
    patsy_terms: tuple
    #: ``(nonfinite, constant)`` masks of the columns of ``X`` when they were found on the way.
    column_checks: tuple | None = None


def build_design(formula: str, rows: Rows, terms: Terms, na_action: str = "drop", formula_mode: str = "safe",
                 sparse_design: bool = False) -> Design:
    """Stage 4: the design matrix of ``terms`` on the ``rows`` kept.

    Every term a pandas sparse numeric column (fill value 0) and ``sparse_design``: a CSC matrix
    of the stored values (not under ``na_action='level'``, where a missing value is NaN in a
    dense design).  Every term a plain numeric column: the columns read directly (the values patsy
    gives).  Otherwise patsy's design, whose evaluated terms may drop more rows
    (:func:`patsy_design`); under ``na_action='pass'`` a term's columns are NaN where it reads a
    missing value.
    """
    data, complete = rows.data, rows.positions
    patsy_terms = terms.patsy_terms
    sparse_columns = (sparse_numeric_columns(patsy_terms, data) if sparse_design and na_action != "level"
                      else None)
    if sparse_columns is not None:
        # Every term is a pandas sparse numeric column (fill 0): a CSC matrix of the stored values.
        return Design(sparse_design_matrix(data, sparse_columns, complete), complete, sparse_columns, None,
                      tuple(patsy_terms))
    plain_columns = plain_numeric_columns(patsy_terms, data) if not terms.evaluated else None
    if plain_columns is not None:
        # Every term is a numeric column: read them directly (same values patsy gives).
        X = np.ascontiguousarray(data[plain_columns].to_numpy(dtype=np.float64)[complete])
        return Design(X, complete, plain_columns, None, tuple(patsy_terms))
    design = patsy_design(formula, patsy_terms, data, terms.predictors, complete, na_action, formula_mode,
                          terms.evaluated, terms.evaluated_columns)
    kept = complete[design.index.to_numpy()]
    design_info = design.design_info
    if na_action == "pass":
        design = missing_as_nan(design, design_info, data, kept)
    intercept = design_info.slice(patsy.INTERCEPT)
    values = design.to_numpy(dtype=np.float64)
    X = np.ascontiguousarray(np.delete(values, np.arange(intercept.start, intercept.stop), axis=1), dtype=np.float64)
    return Design(X, kept, None, design_info, tuple(term for term in design_info.terms if term != patsy.INTERCEPT))


def is_plain_numeric(dtype) -> bool:
    """A NumPy integer, unsigned or float dtype (not boolean, complex or a pandas extension)."""
    return isinstance(dtype, np.dtype) and dtype.kind in "iuf"


def plain_numeric_columns(patsy_terms: list, data: pd.DataFrame) -> list[str] | None:
    """The columns, when every term is one plain numeric (not boolean) column; else None."""
    columns = []
    for term in patsy_terms:
        column = term_plain_column(term)
        if column is None or column not in data.columns:
            return None
        if is_categorical_code(term.factors[0].code):
            return None
        columns.append(column)
    if len(set(columns)) != len(columns):
        return None
    dtypes = data.dtypes
    if not all(is_plain_numeric(dtypes[column]) for column in columns):
        return None
    return columns


def sparse_numeric_columns(patsy_terms: list, data: pd.DataFrame) -> list[str] | None:
    """The columns, when every term is one plain pandas sparse numeric column with fill value 0."""
    columns = []
    for term in patsy_terms:
        column = term_plain_column(term)
        if column is None or column not in data.columns or is_categorical_code(term.factors[0].code):
            return None
        dtype = data[column].dtype
        if not isinstance(dtype, pd.SparseDtype):
            return None
        subtype = dtype.subtype
        if (not np.issubdtype(subtype, np.number) or np.issubdtype(subtype, np.complexfloating)
                or pd.isna(dtype.fill_value) or dtype.fill_value != 0):
            return None
        columns.append(column)
    if len(set(columns)) != len(columns):
        return None
    return columns


def sparse_design_matrix(data: pd.DataFrame, columns: list[str], positions: np.ndarray) -> sparse.csc_matrix:
    """CSC float64 matrix of the given rows of pandas sparse columns, from their stored values only."""
    new_row = np.full(len(data), -1, dtype=np.int64)
    new_row[positions] = np.arange(len(positions))
    rows, cols, values = [], [], []
    for j, column in enumerate(columns):
        array = data[column].array
        stored_rows = new_row[np.asarray(array.sp_index.indices, dtype=np.int64)]
        stored_values = np.asarray(array.sp_values, dtype=np.float64)
        kept = stored_rows >= 0
        rows.append(stored_rows[kept])
        values.append(stored_values[kept])
        cols.append(np.full(int(kept.sum()), j, dtype=np.int64))
    matrix = sparse.coo_matrix((np.concatenate(values) if values else np.zeros(0),
                                (np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64),
                                 np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64))),
                               shape=(len(positions), len(columns)))
    matrix = matrix.tocsc()
    matrix.sum_duplicates()
    return matrix


def _patsy_column(series: pd.Series) -> pd.Series:
    """The column in a form patsy understands (pandas extension dtypes converted).

    Nullable integers and floats become NumPy numbers (missing -> NaN), nullable
    booleans and strings become objects (missing -> None, which patsy treats as
    missing).  NumPy dtypes, categoricals and objects are kept.
    """
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return series
    if not isinstance(dtype, pd.api.extensions.ExtensionDtype):
        return series
    has_missing = bool(series.isna().any())
    if pd.api.types.is_bool_dtype(dtype) or isinstance(dtype, pd.StringDtype):
        if not has_missing and pd.api.types.is_bool_dtype(dtype):
            return series.astype(bool)
        values = series.astype(object)
        return values.where(series.notna(), None)
    if pd.api.types.is_integer_dtype(dtype) and not has_missing:
        return series.astype(np.int64)
    if pd.api.types.is_numeric_dtype(dtype):
        return series.astype(np.float64)
    return series


def patsy_frame(
    data: pd.DataFrame, columns: list[str], positions: np.ndarray
) -> pd.DataFrame:
    """A new frame of the given rows and columns, positional index, for patsy.

    The positional index (0..n-1) lets patsy's kept rows be mapped back to the
    caller's rows even when the caller's index has duplicates.
    """
    frame = data.iloc[positions][columns].reset_index(drop=True)
    for column in columns:
        frame[column] = _patsy_column(frame[column])
    # A column read as Q("name") goes under a key that no formula code can name bare, so that
    # columns named like functions (Q, C, I, np, log, ...) never shadow them.
    frame.columns = [patsy_key(column) for column in columns]
    return frame


def patsy_design(formula, patsy_terms, data, predictors, positions, na_action,
                 formula_mode="safe", evaluated=(), evaluated_columns=()) -> pd.DataFrame:
    """patsy's design matrix (with intercept) for the complete rows, R's term order and coding.

    patsy reads the terms; :func:`fstools.model.formula.r_coding.r_design_info` gives its
    description R's term order and, where R's columns span another space, R's coding of the
    factors.  ``evaluated`` (patsy factors) are evaluated beside the terms without giving
    columns, as R's ``model.frame()`` evaluates every variable of a formula (those of removed
    terms, the operands of a comparison): an error in one is the formula's, and with
    ``na_action='drop'`` a row where one is missing is dropped; ``evaluated_columns`` are the data
    columns they read that no term reads.

    With ``na_action='drop'`` patsy drops rows whose evaluated terms are missing (e.g. ``log``
    of a negative number); with ``'raise'`` such rows raise a ValueError naming the design
    columns.  The returned frame's index holds positions into ``positions``.

    Raises
    ------
    FormulaError
        For a term patsy cannot evaluate, or when no row is left once the terms are evaluated
        (the message names the terms that are missing).
    """
    frame = patsy_frame(data, list(predictors) + [column for column in evaluated_columns if column not in predictors],
                        positions)
    if na_action == "pass":
        # A missing category stands in as a present one (patsy would drop the row, or make it a
        # level); missing_as_nan then sets the term's design columns of the row to NaN.
        for column in frame.columns:
            values = frame[column]
            if values.dtype.kind != "f" and values.isna().any() and values.notna().any():
                frame[column] = values.fillna(values[values.notna()].iloc[0])
    if na_action in ("raise", "level", "pass"):
        patsy_na_action = patsy.NAAction(NA_types=[])   # nothing is dropped: NaN stays NaN
    else:
        patsy_na_action = "drop"
    termlists = [[patsy.INTERCEPT] + list(patsy_terms)]
    if evaluated and na_action in ("drop", "raise"):
        termlists.append([patsy.Term([factor]) for factor in evaluated])
    environment = eval_environment(formula_mode)
    try:
        infos = patsy.design_matrix_builders(termlists, lambda: iter([frame]), environment, patsy_na_action)
        infos[0] = r_design_info(infos[0], list(patsy_terms), frame)
        matrices = patsy.build_design_matrices(infos, frame, NA_action=patsy_na_action, return_type="dataframe")
    except patsy.PatsyError as error:
        raise formula_error(formula, patsy_problem(error)) from None
    except SyntaxError as error:
        raise formula_error(formula, f"invalid expression: {error.msg}") from None
    design = matrices[0]
    if len(design) == 0:
        raise formula_error(formula, _every_row_missing(infos, frame, len(data)))

    if na_action == "raise":
        for matrix in matrices:
            not_a_number = np.isnan(matrix.to_numpy(dtype=np.float64))
            if not_a_number.any():
                rows = int(not_a_number.any(axis=1).sum())
                bad_columns = not_a_number.any(axis=0)
                columns = [name for name, bad in zip(matrix.columns, bad_columns) if bad]
                raise ValueError(
                    f"formula {formula!r}: {rows} of {len(data)} rows have missing values once "
                    f"the terms are evaluated (in design columns {quote_list(columns)}); "
                    f"use na_action='drop' to drop them"
                )
    return design


def _every_row_missing(infos, frame: pd.DataFrame, n_rows: int) -> str:
    """The problem of a design without rows: every row is missing in some evaluated term, named."""
    names = []
    try:
        matrices = patsy.build_design_matrices(infos, frame, NA_action=patsy.NAAction(NA_types=[]))
        for info, matrix in zip(infos, matrices):
            missing = np.isnan(np.asarray(matrix, dtype=np.float64)).any(axis=0)
            for term, columns in info.term_slices.items():
                if missing[columns].any():
                    names.append(term.name())
    except patsy.PatsyError:  # a missing category: patsy refuses to build without dropping it
        pass
    where = f" (NaN or missing in {quote_list(display_column_names(names))})" if names else ""
    return (f"all {n_rows} rows have missing values once the terms are evaluated{where}: no rows are "
            f"left to select on")


def missing_as_nan(design: pd.DataFrame, design_info, data: pd.DataFrame, positions: np.ndarray) -> pd.DataFrame:
    """na_action='pass': NaN in every design column of a term on the rows (``positions`` into
    ``data``) where a data column the term reads is missing (patsy would make a missing
    category a level of its own)."""
    design = design.copy()
    for term, columns in design_info.term_slices.items():
        used = [name for name in term_references(term) if name in data.columns]
        if used:
            missing, _ = missing_rows(data, used)
            rows = missing[positions]
            if rows.any():
                design.iloc[np.flatnonzero(rows), columns] = np.nan
    return design

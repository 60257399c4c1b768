"""A fitted formula's terms evaluated on new data: :func:`term_frame` (a selection's ``transform``).

A term that is a plain column is the column itself; any other term is computed by patsy from the
fitted design (the same ``center``, ``scale``, ``poly``, ... as on the rows it was fitted on), in
the formula mode of the fit, its code checked again in the safe mode.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import patsy

from fstools.model.columns import read_number_columns
from fstools.model.formula.design import patsy_frame
from fstools.model.formula.messages import formula_error, patsy_problem, quote_list
from fstools.model.formula.names import string_list
from fstools.model.formula.namespace import KNOWN_NAMES, PYTHON_BUILTINS
from fstools.model.formula.parse import ModelFrame
from fstools.model.formula.patsy_terms import check_factor_codes
from fstools.model.formula.safe_eval import column_set
from fstools.model.formula.term_code import term_plain_column, term_references
from fstools.model.formula.term_map import display_column_names, r_column_names

__all__ = ["term_frame"]


def term_frame(model_frame: ModelFrame, terms: list[str], data: pd.DataFrame) -> pd.DataFrame:
    """The requested terms evaluated on (possibly new) data, one block per term.

    Parameters
    ----------
    model_frame : ModelFrame
        The result of :func:`parse_formula`.
    terms : list of str
        Term names from ``model_frame.terms``, in the order wanted.
    data : pandas.DataFrame
        Data with the columns the terms use; every row is kept.

    Returns
    -------
    pandas.DataFrame
        Indexed like ``data``.  A term that is a plain column (``x``,
        `` `x` ``, ``C(x)``) contributes the column itself, dtype kept (a
        categorical stays categorical), except that a numeric term's column of text
        numbers or ``Decimal`` values is read as numbers, as the fit read it (with the
        fit's ``na_values``).  Any other term (``np.log(c)``,
        ``a:b``) contributes its design columns, computed by patsy from
        ``model_frame.design_info`` and named like ``model_frame.column_names``;
        rows where such a term cannot be evaluated (missing values) hold NaN.

    Raises
    ------
    ValueError
        For a term name that is not in ``model_frame.terms`` (the message lists
        them) or asked for twice.
    FormulaError
        If ``data`` lacks columns the terms need (named in the message), or
        patsy cannot evaluate a term on it (e.g. a new category level).
    """
    if not isinstance(model_frame, ModelFrame):
        raise TypeError(f"model_frame must be a ModelFrame, got {type(model_frame).__name__}")
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    terms = string_list("terms", terms)
    formula = model_frame.formula

    # Without design_info every term is a plain column named by the term (the fast paths).
    patsy_term_of = _patsy_terms_by_name(model_frame) if model_frame.design_info is not None else None
    known = set(model_frame.terms)
    unknown = [name for name in terms if name not in known]
    if unknown:
        raise ValueError(
            f"unknown term(s) {quote_list(unknown)}; the terms of {formula!r} are "
            f"{quote_list(model_frame.terms)}"
        )
    repeated = sorted(name for name, count in Counter(terms).items() if count > 1)
    if repeated:
        raise ValueError(f"term(s) {quote_list(repeated)} requested more than once")

    def present(name):  # a column of data, found by its label at the fit
        label = model_frame.label(name)
        try:
            return label in data.columns
        except TypeError:
            return False

    def plain_column(name):
        return name if patsy_term_of is None else term_plain_column(patsy_term_of[name])

    missing_columns = {}
    for name in terms:
        column = plain_column(name)
        needed = [column] if column is not None else _columns_needed(patsy_term_of[name], present)
        for column in needed:
            if not present(column):
                missing_columns[column] = None
    if missing_columns:
        raise formula_error(formula, f"data has no column(s) {quote_list(missing_columns)}")

    # The columns the fit read as numbers (text numbers, Decimal) are read so on the new data too,
    # with the fit's na_values.
    if model_frame.number_columns:
        data, _, _ = read_number_columns(data, [model_frame.label(column) for column in model_frame.number_columns
                                                if present(column)], model_frame.na_values, required=True)

    computed = [name for name in terms if plain_column(name) is None]
    work = None
    if computed:
        needed = {}
        for name in computed:
            for column in _columns_needed(patsy_term_of[name], present):
                if present(column):
                    needed[column] = None
        # The columns the computed terms read, under their formula names.
        work = pd.DataFrame({column: data[model_frame.label(column)] for column in needed}, index=data.index)
        if model_frame.formula_mode == "safe":
            # The terms were checked when the formula was read; checked again here, so that no
            # ModelFrame built or altered otherwise evaluates code that the safe mode refuses.
            check_factor_codes(formula, [patsy_term_of[name] for name in computed], column_set(needed))

    if not terms:
        return pd.DataFrame(index=data.index)
    if not computed:
        return data.loc[:, [model_frame.label(name) for name in terms]]
    blocks, labels = [], []
    for name in terms:
        column = plain_column(name)
        if column is not None:
            label = model_frame.label(column)
            blocks.append(data[label].rename(label))
            labels.append(label)
        else:
            block = _evaluate_term(model_frame, patsy_term_of[name], work)
            blocks.append(block)
            labels.extend(block.columns)
    frame = pd.concat(blocks, axis=1)
    if model_frame.column_labels:
        frame.columns = pd.Index(labels, dtype=object, tupleize_cols=False)
    return frame


def _patsy_terms_by_name(model_frame: ModelFrame) -> dict:
    """Map the ModelFrame's term names to patsy's Term objects (design order)."""
    return dict(zip(model_frame.terms, model_frame.patsy_terms))


def _columns_needed(patsy_term, is_column) -> list[str]:
    """The data columns evaluating the term needs.

    A name the term reads is taken as a column unless it is numpy, a patsy
    builtin or a Python builtin that is not a column (``is_column(name)``).
    """
    plain = term_plain_column(patsy_term)
    if plain is not None:
        return [plain]
    needed = []
    for name in term_references(patsy_term):
        if is_column(name) or (name not in KNOWN_NAMES and name not in PYTHON_BUILTINS):
            needed.append(name)
    return needed


def _evaluate_term(model_frame: ModelFrame, patsy_term, data: pd.DataFrame) -> pd.DataFrame:
    """The design columns of one term evaluated by patsy on ``data`` (columns under formula names)."""
    columns = [name for name in _columns_needed(patsy_term, data.columns.__contains__) if name in data.columns]
    frame = patsy_frame(data, columns, np.arange(len(data)))
    term_design = model_frame.design_info.subset([patsy_term])
    try:
        (block,) = patsy.build_design_matrices(
            [term_design], frame, NA_action="drop", return_type="dataframe"
        )
    except patsy.PatsyError as error:
        raise formula_error(model_frame.formula, patsy_problem(error)) from None
    block.columns = display_column_names(r_column_names(term_design, list(block.columns)))
    # Rows patsy dropped for missing values come back as NaN.
    block = block.reindex(np.arange(len(data)))
    block.index = data.index
    return block

"""The :class:`ModelFrame` of a numeric matrix, without a DataFrame or a formula to read.

For callers that hold validated arrays (:class:`fstools.FeatureSelector`): what
:func:`fstools.model.formula.parse.parse_formula` gives for ``response ~ .`` on a DataFrame of the
matrix's columns, built directly.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
from scipy import sparse

from fstools.model.formula.names import format_formula
from fstools.model.formula.parse import ModelFrame
from fstools.model.formula.rows import missing_predictor_notes

__all__ = ["matrix_model_frame", "with_matrix_response"]


def matrix_model_frame(X, column_names: list[str], response_name: str, response, row_index=None,
                       n_dropped: int = 0, na_action: str = "drop") -> ModelFrame:
    """The ModelFrame of ``response ~ .`` over a numeric matrix whose columns are named ``column_names``.

    What :func:`parse_formula` gives for that formula on a DataFrame of the columns of ``X`` and
    the response (every column a plain numeric term, no row with a missing value), without
    building the DataFrame or reading the formula: for callers that hold validated arrays
    (:class:`fstools.FeatureSelector`).

    Parameters
    ----------
    X : ndarray of float64 or scipy sparse matrix, shape (n_samples, n_features)
        Finite values (checked by the caller, not here); a sparse matrix becomes CSC (as
        ``parse_formula(..., sparse_design=True)`` gives it), a dense one is kept as it is.
    column_names : list of str
        Distinct names of the columns, none equal to ``response_name`` (a list is kept as it
        is, not copied: the frame's lists are not changed after it is built).
    response_name : str
    response : array_like or pandas.Categorical, shape (n_samples,), or None
        The response's values, without missing values; None leaves ``ModelFrame.response``
        None, for a caller that sets it later (:func:`with_matrix_response`) when something
        reads it.
    row_index : pandas.Index, optional
        The rows' labels (default 0 .. n_samples - 1), e.g. the positions kept after rows with
        missing values were dropped (``n_dropped`` of them).
    na_action : str
        How missing values were treated (:data:`fstools.methods.registry.NA_ACTIONS`): under
        ``'level'`` and ``'pass'`` ``X`` may hold NaN; under ``'level'`` the frame's notes name
        the columns with missing values, as :func:`parse_formula`'s do.
    """
    if sparse.issparse(X):
        X = sparse.csc_matrix(X)
    # one list for the names, the terms and the column terms (read, never changed; a wide
    # design's 100,000 names are not copied, and compare equal at once: model.terms.same_names)
    names = column_names if type(column_names) is list else list(column_names)
    n_samples = X.shape[0]
    row_index = pd.RangeIndex(n_samples) if row_index is None else row_index
    notes = ()
    if na_action == "level":  # the note the formula path gives: the columns with missing values kept, and how many
        if sparse.issparse(X):
            stored = X.tocoo()
            counts = np.bincount(stored.col[np.isnan(stored.data)], minlength=X.shape[1])
        else:
            counts = np.isnan(X).sum(axis=0) if X.dtype.kind == "f" else np.zeros(X.shape[1], dtype=np.intp)
        notes = tuple(missing_predictor_notes({name: int(count) for name, count in zip(names, counts) if count}))
    return ModelFrame(
        formula=format_formula([response_name], []).rsplit(" ~ ", 1)[0] + " ~ .",
        response_names=[response_name],
        response=None if response is None else pd.DataFrame({response_name: response}, index=row_index),
        X=X,
        column_names=names,
        terms=names,
        column_terms=names,
        row_index=row_index,
        n_dropped=n_dropped,
        design_info=None,
        patsy_terms=(),
        na_action=na_action,
        notes=notes,
    )


def with_matrix_response(frame: ModelFrame, response) -> ModelFrame:
    """``frame`` (of :func:`matrix_model_frame`) with the response's values ``response`` set."""
    name = frame.response_names[0]
    return dataclasses.replace(frame, response=pd.DataFrame({name: response}, index=frame.row_index))

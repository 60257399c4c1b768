"""A formula's model read and checked in one place, ready for a method: :func:`checked_frame`.

``fs.select`` enters the model layer once, here: the user's frame is read into pandas
(:mod:`fstools.model.frames`), the formula evaluated on it (:mod:`fstools.model.formula`), the
response typed and checked against the method (:mod:`fstools.model.response`; a multi-label
method's 0/1 label matrix instead), and the design checked where it is made: non-finite values,
constant columns, terms without a design column and ``k`` (:func:`check_design`).  What comes
back is a :class:`CheckedFrame`, which the method runs on as it is.
"""
import warnings
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import sparse

from fstools.core.arrays import is_integer_design
from fstools.methods.registry import check_response
from fstools.model.exceptions import FormulaError
from fstools.model.formula.names import label_name
from fstools.model.formula.parse import ModelFrame, parse_formula
from fstools.model.frames import as_data_frame, with_response
from fstools.model.response import Response, check_response_type, prepare_response
from fstools.model.terms import one_column_per_term, same_names
from fstools.model.validation import (check_finite_matrix, check_k, checked_constant_columns, constant_columns,
                                      label_matrix, warn_constant_columns)

__all__ = ["CheckedFrame", "checked_frame", "check_frame", "frame_response", "check_design", "check_design_values",
           "check_finite_design", "method_reads_design"]


class CheckedFrame(NamedTuple):
    """A model frame whose response and design are checked for a method (:func:`checked_frame`)."""

    #: The formula evaluated on the data.
    frame: ModelFrame
    #: The response: a :class:`fstools.model.response.Response`, or a multi-label method's 0/1
    #: label matrix (float64, rows x labels).
    target: object
    #: The term of each design column (the frame's, read, never copied).
    column_terms: list
    #: The number of terms to select, checked against the candidate terms (None: rank all).
    k: object
    #: Whether the checks of the design's values are left to the method's own read of ``X``
    #: (:func:`method_reads_design`): then :func:`check_design_values` runs after the method.
    deferred: bool = False
    #: The data as pandas, when read from the caller's (a polars or Arrow frame read once: a second
    #: reading starts from it); else None.
    data: pd.DataFrame | None = None


def checked_frame(formula, data, spec, k, *, na_action="drop", response_type=None, response=None,
                  formula_mode="safe", na_values=None, n_threads=1, read_values=True, stacklevel=3):
    """The :class:`CheckedFrame` of ``formula`` on ``data`` for the method ``spec``: :func:`fstools.select`'s
    one call into the model layer.

    Parameters
    ----------
    formula, data, k, na_action, response_type, response, formula_mode, na_values
        As :func:`fstools.select` takes them, checked there (``k`` None under ``k='auto'``).
    spec : fstools.methods.registry.MethodSpec
    n_threads : int
        Threads of the reads of the design's values.
    read_values : bool
        False (``na_action='drop'``, a method with ``MethodSpec.checks_design``): the values are
        not read for the rows with a missing value nor checked here; the method reads and checks
        them, and a caller whose method refuses one reads again with True.
    stacklevel : int
        Where the warnings about the data point, as :func:`warnings.warn` counts from this
        function (3: the caller's caller, the user's call of ``fs.select``).

    Raises
    ------
    FormulaError, TypeError, ValueError
        For a formula that does not fit the data, a response the method cannot take (naming the
        methods that can), a design without a predictor column or with non-finite values, or a
        ``k`` out of range.
    """
    data = as_data_frame(data, stacklevel=stacklevel + 1)   # a polars or Arrow frame read once into pandas
    if "multilabel" in spec.capabilities:
        # Several 0/1 responses (or response=): the label matrix.
        formula_used, frame_data = (formula, data) if response is None else with_response(formula, data, response)
        frame = parse_formula(formula_used, frame_data, na_action=na_action, formula_mode=formula_mode,
                              stacklevel=stacklevel + 1)
        Y = label_matrix(frame.response)
        column_terms, k = check_design(frame, k, response_word="labels", stacklevel=stacklevel + 1)
        return CheckedFrame(frame, Y, column_terms, k, data=data)
    # Pandas sparse predictors stay sparse (CSC) for the methods that take sparse input.
    frame = parse_formula(formula, data, na_action=na_action, sparse_design="sparse" in spec.capabilities,
                          formula_mode=formula_mode, na_values=na_values, require_response=False,
                          n_threads=n_threads, read_values=read_values, integer_design=spec.integer_designs,
                          stacklevel=stacklevel + 1)
    target = _formula_response(formula, frame, spec, response_type, stacklevel + 1)
    checked = check_frame(frame, spec, target, k, n_threads=n_threads, stacklevel=stacklevel + 1)
    return checked._replace(data=data)


def _formula_response(formula, frame, spec, response_type, stacklevel):
    """The :class:`Response` of a one-response formula for ``spec`` (:func:`frame_response`), or no
    response for a one-sided formula (``"~ ."``: R's formula without one) and a method that uses none;
    ``stacklevel`` as :func:`warnings.warn` counts from here."""
    if not frame.response_names:
        spec.check_response(None)
        if response_type is not None:
            raise ValueError(f"response_type: the formula {formula!r} has no response; got {response_type!r}")
        return Response(None, None, None, None)
    if len(frame.response_names) != 1:
        raise FormulaError(f"formula {formula!r}: method {spec.name!r} takes one response; the formula has "
                           f"{len(frame.response_names)} ({', '.join(map(label_name, frame.response_names))})")
    return frame_response(frame, response_type, spec, stacklevel=stacklevel + 2)


def check_frame(frame, spec, target, k, *, name="data", n_threads=1, stacklevel=2):
    """The :class:`CheckedFrame` of a model frame with its response ``target``: its design checked
    (:func:`check_design`), the checks of the values left to the method's own read of ``X``
    where it reads them (:func:`method_reads_design`).  ``name`` names the design in the messages
    (``'data'``, or ``'X'`` for :class:`fstools.FeatureSelector`); ``stacklevel`` as
    :func:`warnings.warn` counts from here."""
    deferred = method_reads_design(spec, frame)
    column_terms, k = check_design(frame, k, stacklevel=stacklevel + 1, name=name, n_threads=n_threads,
                                   read_values=not deferred)
    return CheckedFrame(frame, target, column_terms, k, deferred)


def frame_response(frame, response_type, spec, stacklevel=4):
    """The :class:`fstools.model.response.Response` of a one-response formula's frame for method
    ``spec``: ``C(y)`` on the left or ``response_type`` decide the type, else the data; a method
    that cannot take that type is refused (:func:`fstools.methods.registry.check_response`).
    ``spec`` None: no registered method (a procedure's own model, which takes either type)."""
    response_type = check_response_type(response_type)
    name = frame.response_names[0]
    if name in frame.factor_responses:
        if response_type == "continuous":
            raise ValueError(f"response_type: 'continuous' contradicts the formula, which makes the response "
                             f"{label_name(name)!r} classes with C() / factor(); drop one of them")
        response_type, reason = "class", "C() in the formula"
    else:
        reason = None
    target = prepare_response(frame.response[name], response_type, name=f"response {label_name(name)!r}",
                              reason=reason, stacklevel=stacklevel)
    if spec is not None:  # (None: a procedure's own model, e.g. a lasso, takes either type)
        check_response(spec, target.kind)
    return target


def check_finite_design(frame, name="data"):
    """Refuse a design with non-finite values, naming the columns; under ``na_action='level'`` or
    ``'pass'`` a missing value (NaN) is allowed: the methods that take those treat it (as a level
    of its own, or themselves)."""
    if frame.column_checks is not None and not frame.column_checks[0].any():  # known when the frame was read
        return
    missing = frame.na_action in ("level", "pass") and not sparse.issparse(frame.X)
    check_finite_matrix(np.where(np.isnan(frame.X), 0.0, frame.X) if missing else frame.X, frame.column_names,
                        name=name)


def check_design(frame, k, response_word="response", stacklevel=2, name="data", n_threads=1, read_values=True):
    """Checks of the design matrix shared by every entry point that takes a formula.

    Refuses non-finite values (but NaN, a missing value, under ``na_action='level'`` or
    ``'pass'``: :func:`check_finite_design`) and a formula whose terms have no design column,
    validates ``k`` against the number of candidate terms, and warns about terms
    without columns and constant columns.  Returns (column_terms, k).
    ``read_values=False`` leaves out the checks of the values (non-finite and constant
    columns: :func:`check_design_values`), for a caller that has them from the method.
    """
    if read_values:
        check_design_values(frame, response_word, stacklevel + 1, name, n_threads)
    column_terms = frame.column_terms  # (read, never changed: no copy of a wide design's names)
    if same_names(column_terms, frame.terms) and one_column_per_term(frame.column_names, column_terms):
        candidate_terms, empty_terms = column_terms, []  # every term one column (wide frames: no dict)
    else:
        candidate_terms = dict.fromkeys(column_terms)  # an ordered set: membership in O(1)
        empty_terms = [term for term in frame.terms if term not in candidate_terms]
    if empty_terms:
        warnings.warn(f"{name}: term(s) {', '.join(empty_terms)} have no design column (a categorical "
                      f"with one level) and are not candidates", UserWarning, stacklevel=stacklevel)
    if not candidate_terms:
        raise FormulaError(f"formula {frame.formula!r}: no predictor has any design column")
    return column_terms, check_k(k, len(candidate_terms))


def check_design_values(frame, response_word="response", stacklevel=2, name="data", n_threads=1, constant=None):
    """The checks of the design's values: refuse non-finite values (NaN allowed under
    ``na_action='level'`` or ``'pass'``), warn about constant columns.

    ``constant``: the mask of the constant columns when a method has found them on its own
    read of ``X`` (:attr:`fstools.methods.registry.MethodOutput.constant_columns`), else None.
    """
    if constant is not None:
        constants = [frame.column_names[j] for j in np.flatnonzero(constant)]
    elif frame.na_action in ("level", "pass"):  # NaN allowed: checked apart from the other values
        check_finite_design(frame, name)
        constants = constant_columns(frame.X, frame.column_names)
    else:  # one read of X for both checks
        constants = checked_constant_columns(frame.X, frame.column_names, name, n_threads, frame.column_checks)
    warn_constant_columns(constants, name, response_word, stacklevel)


def method_reads_design(spec, frame):
    """Whether the design's value checks can come from the method's own read of ``X``
    (:attr:`fstools.methods.registry.MethodSpec.checks_design`): a dense float64 ``X`` whose
    checks are not known yet, rows with missing values dropped or refused (or a bool or integer
    ``X`` the method reads as it is)."""
    return (spec.checks_design and frame.column_checks is None and frame.na_action in ("drop", "raise")
            and isinstance(frame.X, np.ndarray)
            and (frame.X.dtype == np.float64 or (spec.integer_designs and is_integer_design(frame.X))))

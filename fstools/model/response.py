"""The response of a formula: classes or a continuous variable, decided as R does, and stated.

R decides what a model does from the type of its response: a factor (or a logical or a
character vector) is classes, a numeric vector a continuous variable.  Python data seldom
say so: class labels often arrive as integers (scikit-learn's data sets) and continuous
scores as integer-valued numbers (the diabetes progression score, 214 distinct values in 442
rows).  The rule here, applied by :func:`response_type_of`:

* boolean, string, object (non-numeric) and categorical responses are classes;
* a numeric response with a non-integer value is continuous;
* an integer-valued numeric response is classes when it has at most
  :data:`CLASS_LEVEL_LIMIT` distinct values, continuous otherwise.

The decision and its reason are stated in the summary of every result
(:attr:`Response.reason`), and ``response_type="class" | "continuous"`` (or ``C(y)`` /
``factor(y)`` on the left of a formula) overrides it.  Numbers that arrive as objects
(``decimal.Decimal``, as ``read_sql`` returns for NUMERIC, or numeric strings) are numbers.
"""
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fstools.core.arrays import integer_levels
from fstools.core.constraints import one_of
from fstools.core.messages import format_count
from fstools.methods.registry import RESPONSE_TYPES
from fstools.model.columns import numbers_from_objects, value_kinds
from fstools.model.validation import encode_classes

__all__ = ["Response", "RESPONSE_TYPES", "CLASS_LEVEL_LIMIT", "check_response_type", "response_type_of",
           "prepare_response"]

#: An integer-valued numeric response with at most this many distinct values is taken as classes
#: (digits' ten classes are classes; a score with dozens of values is continuous).
CLASS_LEVEL_LIMIT = 10

#: A class response with more classes than this share of its rows (and more than
#: :data:`CLASS_LEVEL_LIMIT`) looks like an identifier: warned about.
ID_LIKE_SHARE = 0.5


@dataclass(frozen=True)
class Response:
    """A response ready for a method.

    Attributes
    ----------
    kind : {'class', 'continuous'}
    values : ndarray
        Class codes 0..C-1 (int32) or the continuous values (float64, finite).
    class_names : list of str or None
        The classes in code order; None for a continuous response.
    reason : str
        How the type was decided, for the summary (e.g. "numeric, 214 distinct integer values").
    notes : tuple of str
        Conversions made on the way (e.g. Decimal values read as numbers).
    class_values : ndarray or None
        The classes in code order as the labels held them, where the labels are NumPy integers
        or booleans counted by :func:`fstools.core.arrays.integer_levels` (a transformer's
        ``classes_``); None otherwise.
    """

    kind: str
    values: np.ndarray
    class_names: list | None
    reason: str
    notes: tuple = ()
    class_values: np.ndarray | None = None


def check_response_type(value):
    """``response_type``: None (decided from the data), 'class' or 'continuous'."""
    if value is None:
        return None
    return one_of(RESPONSE_TYPES).validate(value, "response_type")


def _is_integer_valued(values):
    return bool(np.all(values == np.round(values)))


def response_type_of(series, levels=None):
    """The response type of ``series`` by the rule of this module, and the reason in words.

    Parameters
    ----------
    series : pandas.Series
    levels : IntegerLevels, optional
        ``integer_levels(series.to_numpy())`` where the caller has counted them already.

    Returns
    -------
    (kind, reason) : ('class' or 'continuous', str)
    """
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return "class", "categorical"
    if pd.api.types.is_bool_dtype(dtype):
        return "class", "logical"
    if not pd.api.types.is_numeric_dtype(dtype):
        numbers_ = numbers_from_objects(series)
        if numbers_ is None:
            return "class", "strings" if pd.api.types.is_string_dtype(dtype) else f"{dtype} values"
        series = numbers_
    if isinstance(dtype, np.dtype) and dtype.kind in "iu":
        # NumPy integers: integer-valued, no missing value; their distinct values counted as they are
        values = series.to_numpy()
        levels = integer_levels(values) if levels is None else levels
        n_levels = len(np.unique(values)) if levels is None else len(levels.values)
    else:
        values = series.dropna().to_numpy(dtype=np.float64)
        if not _is_integer_valued(values[np.isfinite(values)]):
            return "continuous", "numeric with non-integer values"
        n_levels = len(np.unique(values))
    if n_levels <= CLASS_LEVEL_LIMIT:
        return "class", f"integer values, {n_levels} distinct; response_type='continuous' for a number"
    return "continuous", (f"numeric, {n_levels} distinct integer values; response_type='class' or C() "
                          f"for classes")


def prepare_response(series, response_type=None, name="response", reason=None, stacklevel=3):
    """The :class:`Response` of a response column: its type decided (or ``response_type``), its
    values converted for the methods.

    Parameters
    ----------
    series : pandas.Series
        The response column, rows with missing values already dropped.
    response_type : {None, 'class', 'continuous'}
        None decides by :func:`response_type_of`; a value overrides the rule.
    name : str
        The response as named in messages, e.g. "response 'y'".
    reason : str, optional
        Why ``response_type`` was given, for the summary (default: "response_type='...'").
    stacklevel : int
        Of the identifier warning: the caller's caller by default.

    Raises
    ------
    ValueError
        ``response_type`` not allowed; 'continuous' for a response that is not numeric; a
        continuous response with missing or infinite values; a class response with one class.
    """
    response_type = check_response_type(response_type)
    notes = []
    numeric = numbers_from_objects(series)
    if numeric is not None:
        notes.append(f"{name}: {value_kinds(series)} values read as numbers")
    # NumPy integer or boolean labels are counted once, for the rule and for the codes
    levels = (integer_levels(series.to_numpy())
              if isinstance(series.dtype, np.dtype) and series.dtype.kind in "iub" else None)
    if response_type is None:
        kind, reason = response_type_of(series if numeric is None else numeric, levels)
    else:
        kind, reason = response_type, reason or f"response_type={response_type!r}"
    if kind == "continuous":
        values = series if numeric is None else numeric
        if not (pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(values.dtype)):
            raise ValueError(f"response_type: 'continuous' needs a numeric response; {name} holds "
                             f"{values.dtype} values; allowed for it: 'class'")
        array = values.to_numpy(dtype=np.float64, na_value=np.nan)
        if not np.isfinite(array).all():
            raise ValueError(f"{name}: {int((~np.isfinite(array)).sum())} missing or infinite value(s); "
                             f"allowed: finite numbers")
        if array.shape[0] == 1:
            raise ValueError(f"{name}: one sample only (n_samples = 1); supervised selection needs a response "
                             f"that varies")
        if np.ptp(array) == 0:
            raise ValueError(f"{name}: constant ({array[0]:g}); supervised selection needs a response that varies")
        return Response("continuous", np.ascontiguousarray(array), None, reason, tuple(notes))
    labels = series if numeric is None or response_type == "class" else numeric
    codes, class_names, counts = encode_classes(labels, name=name, fractional=response_type == "class",
                                                levels=levels if labels is series else None)
    if len(class_names) > max(CLASS_LEVEL_LIMIT, ID_LIKE_SHARE * len(codes)):
        warnings.warn(f"{name}: {len(class_names)} classes in {len(codes)} rows ({format_count(int(counts.max()), 'row')} in the "
                      f"largest): this looks like an identifier, not a response", UserWarning, stacklevel=stacklevel)
    return Response("class", codes, class_names, reason, tuple(notes),
                    class_values=None if levels is None or labels is not series else levels.values)

"""R's numeric functions for formulas, with R's semantics.

Formulas may call ``log``, ``exp``, ``sqrt``, ``scale``, ``poly``, ... as in R (in both formula
modes).  The elementwise ones are NumPy's.  ``scale``, ``center``, ``standardize`` and ``poly``
learn from the data (a mean, a standard deviation, polynomial coefficients): they are classes
with the three-step protocol ``memorize_chunk``, ``memorize_finish``, ``transform``, so that a
selection's ``transform(new_data)`` applies what was learnt on the training rows, as R's
``predict`` does.  :mod:`fstools.model.formula.namespace` hands them to patsy as stateful transforms.

Differences from patsy's own ``scale``/``standardize``: R divides by the standard deviation with
``n - 1`` (patsy by ``n``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["ELEMENTWISE", "CONVERSIONS", "RScale", "RCenter", "RStandardize", "RPoly", "log", "as_numeric",
           "as_integer", "as_character"]


def log(x, base=np.e):
    """R's ``log(x, base = exp(1))``."""
    values = np.log(np.asarray(x, dtype=np.float64))
    if base == np.e:
        return values
    return values / np.log(base)


#: R's elementwise functions by their R names.
ELEMENTWISE = {
    "log": log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "exp": np.exp,
    "expm1": np.expm1, "sqrt": np.sqrt, "abs": np.abs, "sign": np.sign, "floor": np.floor,
    "ceiling": np.ceil, "round": np.round, "trunc": np.trunc, "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
}


def _level_numbers(values: pd.Series) -> np.ndarray:
    """The number of each value's level (1, 2, ...; NaN where missing), as R's ``as.numeric`` of a
    factor: a categorical's levels in their order, other values' in sorted order (R's
    ``factor()``)."""
    if not isinstance(values.dtype, pd.CategoricalDtype):
        present = values[values.notna()]
        levels = sorted(present.unique()) if len(present) else []
        values = pd.Series(pd.Categorical(values, categories=levels), index=values.index)
    codes = values.cat.codes.to_numpy().astype(np.float64)
    codes[codes < 0] = np.nan
    return codes + 1


def _as_series(x) -> pd.Series:
    """``x`` as a pandas Series: a column as it is, an array flattened, a scalar as one value."""
    if isinstance(x, pd.Series):
        return x
    return pd.Series(np.asarray(x).ravel() if np.ndim(x) else [x])


def as_numeric(x) -> np.ndarray:
    """R's ``as.numeric(x)``: float64 numbers; TRUE/FALSE are 1/0, and a text or categorical
    column, which fstools reads as R reads a factor, gives the number of each value's level
    (1, 2, ...; its categories' order, or sorted), missing values NaN.

    Parameters
    ----------
    x : pandas.Series or array-like
        The values (a column, or what formula code computed).

    Returns
    -------
    numpy.ndarray
        float64 values.
    """
    values = _as_series(x)
    dtype = values.dtype
    if pd.api.types.is_bool_dtype(dtype) or (pd.api.types.is_numeric_dtype(dtype)
                                             and not isinstance(dtype, pd.CategoricalDtype)):
        return values.to_numpy(dtype=np.float64, na_value=np.nan)
    return _level_numbers(values)


def as_integer(x) -> np.ndarray:
    """R's ``as.integer(x)``: :func:`as_numeric` truncated toward zero (as float64).

    Parameters
    ----------
    x : pandas.Series or array-like
        The values.

    Returns
    -------
    numpy.ndarray
        float64 whole numbers (NaN where missing).
    """
    return np.trunc(as_numeric(x))


def _r_text(value) -> object:
    """One value as R's ``as.character`` writes it (None where missing)."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    if isinstance(value, (bool, np.bool_)):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.15g}"
    return str(value)


def as_character(x) -> np.ndarray:
    """R's ``as.character(x)``: the values as text (numbers to 15 significant digits, TRUE and
    FALSE), missing values None; a formula codes the result as a factor, as R does.

    Parameters
    ----------
    x : pandas.Series or array-like
        The values.

    Returns
    -------
    numpy.ndarray
        An object array of strings and None.
    """
    values = _as_series(x)
    return np.array([_r_text(value) for value in values.astype(object)], dtype=object)


#: R's conversions ``as.numeric``, ``as.integer``, ``as.character`` by the Python names the
#: formula's code uses (``as.factor`` is ``factor``, see :mod:`fstools.model.formula.namespace`).
CONVERSIONS = {"as_numeric": as_numeric, "as_integer": as_integer, "as_character": as_character}


def _as_float(x) -> np.ndarray:
    values = np.asarray(x, dtype=np.float64)
    if values.ndim == 0:
        values = values.reshape(1)
    return values


class _Collecting:
    """Keeps the training values (chunks) until ``memorize_finish``."""

    def __init__(self):
        self._chunks = []

    def _collect(self, x):
        self._chunks.append(_as_float(x))

    def _training(self) -> np.ndarray:
        return np.concatenate(self._chunks, axis=0)


class RScale(_Collecting):
    """R's ``scale(x, center = TRUE, scale = TRUE)``.

    ``center=TRUE`` subtracts the mean, a number subtracts that number; ``scale=TRUE`` divides
    by the standard deviation (``n - 1``) when centring, else by the root mean square
    ``sqrt(sum(x^2) / (n - 1))``, exactly as R; a number divides by that number.  Missing values
    are left out of the statistics (R's ``na.rm = TRUE``).
    """

    def memorize_chunk(self, x, center=True, scale=True):
        self._collect(x)

    def memorize_finish(self):
        self._statistics = self._training()

    def _shift_and_divisor(self, center, scale):
        values = self._statistics
        if center is True:
            shift = np.nanmean(values, axis=0)
        elif center is False:
            shift = 0.0
        else:
            shift = np.asarray(center, dtype=np.float64)
        if scale is True:
            centred = values - shift
            n = np.sum(~np.isnan(centred), axis=0)
            divisor = np.sqrt(np.nansum(centred ** 2, axis=0) / np.maximum(n - 1, 1))
        elif scale is False:
            divisor = 1.0
        else:
            divisor = np.asarray(scale, dtype=np.float64)
        return shift, divisor

    def transform(self, x, center=True, scale=True):
        shift, divisor = self._shift_and_divisor(center, scale)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (_as_float(x) - shift) / divisor


class RCenter(RScale):
    """``center(x)``: ``x`` minus its training mean (R's ``scale(x, scale = FALSE)``)."""

    def memorize_chunk(self, x):
        self._collect(x)

    def transform(self, x):
        return RScale.transform(self, x, center=True, scale=False)


class RStandardize(RScale):
    """``standardize(x)``: R's ``scale(x)``, the mean removed and divided by the sd (``n - 1``)."""

    def memorize_chunk(self, x):
        self._collect(x)

    def transform(self, x):
        return RScale.transform(self, x, center=True, scale=True)


class RPoly(_Collecting):
    """R's ``poly(x, degree = 1, raw = FALSE)``: orthogonal polynomials, or raw powers.

    The orthogonal basis is R's: the centred powers ``1, x, ..., x^degree`` are orthogonalised
    by a QR decomposition, each column is divided by its norm, and the constant is dropped; the
    recurrence coefficients (R's ``coefs``: ``alpha`` and ``norm2``) are kept, so new data is
    evaluated with R's three-term recurrence as in R's ``predict``.  The columns are named
    ``[1] .. [degree]`` after the degree (R names them ``1 .. degree``).
    """

    def memorize_chunk(self, x, degree=1, raw=False):
        self._collect(x)

    def memorize_finish(self):
        self._values = self._training()

    @staticmethod
    def _check(x, degree):
        if x.ndim != 1:
            raise ValueError("poly() takes one column")
        if isinstance(degree, bool) or int(degree) != degree or degree < 1:
            raise ValueError(f"poly(): degree must be a positive integer, got {degree!r}")
        return int(degree)

    def _coefficients(self, degree):
        x = self._values
        x = x[~np.isnan(x)]
        if degree >= len(np.unique(x)):
            raise ValueError("poly(): 'degree' must be less than number of unique points")
        mean = x.mean()
        centred = x - mean
        powers = np.vander(centred, degree + 1, increasing=True)
        q, r = np.linalg.qr(powers)
        z = q * np.diag(r)
        norm2 = np.sum(z ** 2, axis=0)
        alpha = (np.sum(centred[:, None] * z ** 2, axis=0) / norm2 + mean)[:degree]
        return alpha, np.concatenate([[1.0], norm2])

    def transform(self, x, degree=1, raw=False):
        x = _as_float(x)
        degree = self._check(x, degree)
        if raw:
            return np.column_stack([x ** power for power in range(1, degree + 1)])
        alpha, norm2 = self._coefficients(degree)
        z = np.ones((len(x), degree + 1))
        z[:, 1] = x - alpha[0]
        for i in range(1, degree):
            z[:, i + 1] = (x - alpha[i]) * z[:, i] - (norm2[i + 1] / norm2[i]) * z[:, i - 1]
        z = z / np.sqrt(norm2[1:])
        return z[:, 1:]

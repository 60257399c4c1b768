"""Array helpers shared by the methods and the evaluation protocols (NumPy, and one kernel).

* :func:`as_float_matrix` -- a finite 2-D float64 array, or a ValueError naming ``X``.
* :func:`as_class_codes` -- class codes 0..n_classes-1 with at least two classes.
* :func:`constant_columns` -- which columns hold a single value.
* :func:`standardize_columns` -- the one standardiser: columns centred and scaled to unit
  variance (population or sample sd) or unit length, constant columns set to 0.
* :func:`scaled_to_unit` -- columns (or rows) multiplied by the power of two that brings
  their largest absolute value into [0.5, 1): exact, so sums of squares computed on the
  result neither overflow nor underflow and ratios of them are those of the unscaled data.
* :func:`check_exact_integers` -- refuses integers that float64 cannot hold exactly.
* :func:`nonfinite_and_constant_columns` -- both checks of a design in one threaded pass.
* :func:`column_moments` -- per-class counts, scaled sums and sums of squares, exact extremes,
  co-moments with a response and the checks of the values, in one threaded read of a float64
  matrix in any layout (:mod:`fstools._ext._one_pass`).
* :func:`rows_with_nan` -- the rows holding NaN, looking only at the columns that may.
"""
import functools
from typing import NamedTuple

import numpy as np
from scipy import sparse

from fstools._ext import _moments, _one_pass
from fstools.core.messages import preview

__all__ = ["as_float_matrix", "as_class_codes", "constant_columns", "standardize_columns", "SCALINGS",
           "scaled_to_unit", "check_exact_integers", "inexact_integer_columns", "EXACT_INTEGER_LIMIT", "nonfinite_columns",
           "nonfinite_and_constant_columns", "rows_with_nan", "INTEGER_DESIGN_DTYPES", "is_integer_design",
           "is_integer_design_of_columns",
           "c_contiguous", "ColumnMoments", "column_moments", "IntegerLevels", "integer_levels",
           "INTEGER_LEVEL_SPAN"]

#: What :func:`standardize_columns` scales each centred column to.
SCALINGS = ("variance", "length")

#: Largest integer magnitude below which float64 holds every integer exactly (2^53).
EXACT_INTEGER_LIMIT = 2 ** 53


def inexact_integer_columns(matrix, n_threads=1):
    """Boolean mask of the columns of a 2-D integer array with a value beyond 2^53 in magnitude
    (float64 cannot hold them exactly; see :func:`check_exact_integers`).

    Integer types of 4 bytes or fewer always fit (no read); an int64 matrix is read once for both
    ends of every column (:func:`fstools._ext._moments.column_extremes`, ``n_threads`` threads; in
    the other byte order, by NumPy), a uint64 one for its largest value.
    """
    if matrix.dtype.itemsize < 8 or matrix.size == 0:
        return np.zeros(matrix.shape[1], dtype=bool)
    if matrix.dtype.kind == "i":
        if matrix.dtype == np.int64:
            low, high = _moments.column_extremes(matrix, n_threads)
        else:  # int64 in the other byte order (the kernel reads the machine's)
            low, high = matrix.min(axis=0), matrix.max(axis=0)
        return (high > EXACT_INTEGER_LIMIT) | (low < -EXACT_INTEGER_LIMIT)
    if matrix.max() <= EXACT_INTEGER_LIMIT:  # uint64: every column at once first
        return np.zeros(matrix.shape[1], dtype=bool)
    return matrix.max(axis=0) > EXACT_INTEGER_LIMIT


def check_exact_integers(X, name="X", column_names=None, n_threads=1):
    """ValueError naming the integer columns of ``X`` with a value beyond 2^53 in magnitude.

    float64, in which every method computes, holds every integer up to 2^53 exactly; beyond
    it neighbouring integers round to the same value (an int64 column near the int64
    maximum would become constant).  Such columns are refused rather than rounded.  Arrays
    that are not of an integer dtype pass unchecked.

    Parameters
    ----------
    X : ndarray, 1-D or 2-D
    name : str
        The argument named in the message.
    column_names : sequence of str, optional
        Names of the columns of a 2-D ``X`` for the message (default: their indices).
    n_threads : int, default 1
        Threads of the read of an int64 ``X``.
    """
    X = np.asarray(X)
    if X.dtype.kind not in "iu" or X.size == 0:
        return
    matrix = X.reshape(X.shape[0], -1) if X.ndim >= 2 else X.reshape(-1, 1)
    too_large = inexact_integer_columns(matrix, n_threads)
    if not too_large.any():
        return
    bad = np.flatnonzero(too_large)
    shown = preview([column_names[j] for j in bad] if column_names is not None else bad,
                    quote=column_names is not None)
    where = f" in column(s) {shown}" if X.ndim >= 2 else ""
    column = matrix[:, bad[0]]
    extreme = column.max() if column.max() > EXACT_INTEGER_LIMIT else column.min()
    raise ValueError(f"{name}: integers beyond 2^53{where} (e.g. {int(extreme)}): float64, in which the "
                     f"scores are computed, cannot hold them exactly (neighbouring values would merge); "
                     f"allowed: integers of magnitude at most 2^53 = {EXACT_INTEGER_LIMIT} (subtract an "
                     f"offset, or convert to float yourself if the rounding is acceptable)")


def scaled_to_unit(X, magnitude=None, axis=0):
    """``X`` with each column (``axis=0``) or row (``axis=1``) multiplied by a power of two.

    The power ``2^-e`` brings the largest absolute value of the column (or ``magnitude``,
    one value > 0 per column, if given) into [0.5, 1); an all-zero column is left as it is
    (``e = 0``).  The scaling is exact except for values that become subnormal (more than
    2^1022 times smaller than the column's largest), so sums of squares computed on the
    result neither overflow nor underflow, and a ratio of two sums of squares of the same
    column is bitwise the one of the unscaled arithmetic wherever that did not overflow or
    underflow.

    Parameters
    ----------
    X : ndarray of float64, 2-D
        Finite values.
    magnitude : ndarray, optional
        The largest absolute value per column (``axis=0``) or row (``axis=1``).
    axis : {0, 1}

    Returns
    -------
    scaled : ndarray of float64
        A new array, ``X * 2^-e`` per column (row).
    exponent : ndarray of int
        ``e`` per column (row): ``X == ldexp(scaled, e)``.
    """
    if magnitude is None:
        if X.shape[axis] == 0:
            magnitude = np.zeros(X.shape[1 - axis])
        else:
            magnitude = np.maximum(np.abs(X.min(axis=axis)), np.abs(X.max(axis=axis)))
    exponent = np.frexp(magnitude)[1]
    # Multiplying by the power of two 2^-e gives the same, correctly rounded, value as
    # ldexp(x, -e) and is an order of magnitude faster; 2^-e is a double except for the columns
    # of subnormal magnitude (e < -1023, 2^-e overflows), which go through ldexp.
    with np.errstate(over="ignore"):
        factor = np.ldexp(1.0, -exponent)
    representable = np.isfinite(factor)
    shape = (1, -1) if axis == 0 else (-1, 1)
    if representable.all():
        return X * factor.reshape(shape), exponent
    scaled = X * np.where(representable, factor, 1.0).reshape(shape)
    tiny = np.flatnonzero(~representable)
    if axis == 0:
        scaled[:, tiny] = np.ldexp(X[:, tiny], -exponent[tiny])
    else:
        scaled[tiny, :] = np.ldexp(X[tiny, :], -exponent[tiny][:, None])
    return scaled, exponent


#: Side of the square tiles in which :func:`c_contiguous` transposes.
_TILE = 256


@functools.lru_cache(maxsize=8)
def default_column_names(n_columns):
    """The names of the columns of an array without names: ``('x0', 'x1', ...)``, a tuple (the
    names of a wide array are made once, not at every fit)."""
    return tuple(f"x{j}" for j in range(n_columns))


def c_contiguous(values):
    """``values`` as a C-contiguous array (no copy if it is one), copied tile by tile when it is
    in Fortran order.

    pandas stores a DataFrame's columns as the rows of a block, so the values of a wide frame
    come out in Fortran order; one ``np.ascontiguousarray`` of them walks memory with a large
    stride and is several times slower than copying square tiles that fit in the cache.
    """
    if values.flags.c_contiguous or not values.flags.f_contiguous or values.ndim != 2:
        return np.ascontiguousarray(values)
    rows, columns = values.shape
    out = np.empty((rows, columns), dtype=values.dtype)
    for row in range(0, rows, _TILE):
        for column in range(0, columns, _TILE):
            out[row:row + _TILE, column:column + _TILE] = values[row:row + _TILE, column:column + _TILE]
    return out


def nonfinite_columns(X):
    """Positions of the columns of a 2-D float array that hold NaN or an infinity, increasing.

    One pass of column sums, with no temporary of the size of ``X``: a column holding NaN or an
    infinity has a sum that is NaN or infinite, so a column with a finite sum holds only finite
    values.  The few others (also columns of finite values whose sum overflows) are checked
    value by value.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        sums = X.sum(axis=0)
    suspects = np.flatnonzero(~np.isfinite(sums))
    if suspects.size == 0:
        return suspects
    return suspects[~np.isfinite(X[:, suspects]).all(axis=0)]


def nonfinite_and_constant_columns(X, n_threads=1):
    """Two boolean masks of the columns of a 2-D float64 (or bool or integer) array: holding NaN or an
    infinity, and constant (every value equal to the first; a column with a non-finite value is not).

    One read of ``X``, threaded over blocks of columns
    (:func:`fstools._ext._moments.column_flags`), where :func:`nonfinite_columns` and a
    comparison with the first row would read it twice.
    """
    if isinstance(X, np.ndarray) and X.dtype.kind in "biu":  # (no value to refuse: no float64 copy)
        return np.zeros(X.shape[1], dtype=bool), constant_columns(X, n_threads)
    return _moments.column_flags(np.asarray(X, dtype=np.float64), n_threads)


#: The dtypes of a dense design that the methods with ``MethodSpec.integer_designs`` read as they
#: are: bool and the integer types of the kernels (:data:`fstools._ext._common.VALUE_DTYPES`), the
#: ones :func:`fstools._ext._moments.column_extremes` reads.
INTEGER_DESIGN_DTYPES = _moments.INTEGER_EXTREME_DTYPES


def is_integer_design(X):
    """Whether ``X`` is a dense 2-D NumPy array of bool or of an integer type the kernels read as it
    is (:data:`INTEGER_DESIGN_DTYPES`): it holds no missing or infinite value, and a method that
    counts values (``MethodSpec.integer_designs``) reads it without a float64 copy."""
    return isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype in INTEGER_DESIGN_DTYPES


def is_integer_design_of_columns(dtypes):
    """Whether columns of these dtypes (a DataFrame's) make an integer design
    (:func:`is_integer_design`) as they are: all of one dtype of :data:`INTEGER_DESIGN_DTYPES`
    (columns of several dtypes would be converted to a common one, or to object)."""
    kinds = set(dtypes)
    return len(kinds) == 1 and next(iter(kinds)) in INTEGER_DESIGN_DTYPES


def rows_with_nan(X, columns=None):
    """Boolean mask of the rows of a float matrix that hold NaN.

    ``X`` is dense or a scipy sparse matrix (its stored values; the implied zeros are not NaN).
    For a dense ``X`` only the ``columns`` (positions) that may hold one are looked at: by
    default those with a non-finite value (:func:`nonfinite_columns`, one pass of column sums),
    or the ones the caller already knows (e.g. from :func:`nonfinite_and_constant_columns`).
    """
    missing = np.zeros(X.shape[0], dtype=bool)
    if X.dtype.kind in "biu":  # (bool and integers hold no NaN: nothing to read)
        return missing
    if sparse.issparse(X):
        coo = X.tocoo()
        missing[coo.row[np.isnan(coo.data)]] = True
        return missing
    columns = nonfinite_columns(X) if columns is None else np.asarray(columns, dtype=np.intp)
    if columns.size:
        missing = np.isnan(X[:, columns]).any(axis=1)
    return missing


def as_float_matrix(X, name="X", check_finite=True):
    """``X`` as a 2-D float64 array of finite values; ValueError naming ``name`` otherwise.

    Integer input with a value beyond 2^53 in magnitude is refused, naming the columns
    (:func:`check_exact_integers`): float64 would round it.  ``check_finite=False`` leaves the
    test for NaN and infinities (a read of ``X``) to the caller, e.g. to :func:`column_moments`,
    which flags them in its own read.  A float64 array is returned as it is (no copy, any layout).
    """
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"{name}: must be 2-D (samples x features); got {X.ndim}-D")
    check_exact_integers(X, name)
    X = np.asarray(X, dtype=np.float64)
    if check_finite and nonfinite_columns(X).size:
        raise ValueError(f"{name}: non-finite values (NaN or inf); allowed: finite numbers")
    return X


class ColumnMoments(NamedTuple):
    """What :func:`column_moments` finds in one read of ``X`` (see :mod:`fstools._ext._one_pass`).

    Per class ``c`` and column ``j``: ``sums[j, c]`` and ``squares[j, c]`` are the class sum and the
    sum of squared deviations about the class mean of the column multiplied by ``2^-exponent[j]``
    (the power of two of :func:`scaled_to_unit`, exact); ``low`` and ``high`` the class extremes
    (unscaled, exact; +inf and -inf for an empty class); ``cross`` the co-moments with the
    response (None without one).
    """

    counts: np.ndarray
    sums: np.ndarray
    squares: np.ndarray
    low: np.ndarray
    high: np.ndarray
    cross: np.ndarray
    exponent: np.ndarray

    @property
    def minimum(self):
        """The smallest value of each column (exact)."""
        return self.low.min(axis=1)

    @property
    def maximum(self):
        """The largest value of each column (exact)."""
        return self.high.max(axis=1)

    @property
    def constant(self):
        """The columns with a single value (exact: smallest == largest), every column without rows."""
        if self.counts.sum() == 0:
            return np.ones(self.low.shape[0], dtype=bool)
        return self.minimum == self.maximum

    def class_means(self):
        """The class means of the scaled columns, ``sums / counts`` clamped into the class's
        [smallest, largest] scaled value (a class of equal values has exactly that value as its
        mean); NaN for an empty class."""
        with np.errstate(divide="ignore", invalid="ignore"):
            means = self.sums / self.counts
            low = np.ldexp(self.low, -self.exponent[:, None])
            high = np.ldexp(self.high, -self.exponent[:, None])
        return np.where(self.counts > 0, np.clip(means, low, high), np.nan)

    def scatter(self):
        """The between- and within-class sums of squares of the scaled columns:
        ``sum_c n_c (mean_c - mean)^2`` and ``sum_c squares_c`` over the classes present, the
        overall mean ``sum_c sums_c / n`` clamped into the column's scaled range (Duda, Hart and
        Stork 2001, section 3.8.2)."""
        present = np.flatnonzero(self.counts)
        counts = self.counts[present].astype(np.float64)
        means = self.class_means()[:, present]
        n = counts.sum()
        mean = np.clip(self.sums[:, present].sum(axis=1) / n, np.ldexp(self.minimum, -self.exponent),
                       np.ldexp(self.maximum, -self.exponent))
        between = (counts * (means - mean[:, None]) ** 2).sum(axis=1)
        within = self.squares[:, present].sum(axis=1)
        return between, within


def column_moments(X, codes, n_classes, response=None, n_threads=1, name="X"):
    """The :class:`ColumnMoments` of a float64 matrix in one threaded read of it, any layout.

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        C or Fortran order or a strided view, read in place (never copied).
    codes : ndarray of int, shape (n_samples,)
        Class codes 0..n_classes-1 (all 0 for one class).
    n_classes : int
    response : ndarray of float64, shape (n_samples,), optional
        A finite response for the co-moments (best centred and scaled near 1).
    n_threads : int
        Threads of the kernel (:func:`fstools._ext._one_pass.column_moments`); the result does
        not depend on it.
    name : str
        The argument named when ``X`` holds NaN or an infinity (ValueError).
    """
    codes = np.ascontiguousarray(codes, dtype=np.int32)
    if response is not None:
        response = np.ascontiguousarray(response, dtype=np.float64)
    if isinstance(X, np.ndarray) and X.ndim == 2 and (X.strides[0] % 8 or X.strides[1] % 8):
        X = np.ascontiguousarray(X)
    counts, sums, squares, low, high, cross, exponent, nonfinite = _one_pass.column_moments(
        X, codes, int(n_classes), response, int(n_threads))
    if nonfinite.any():
        raise ValueError(f"{name}: non-finite values (NaN or inf); allowed: finite numbers")
    return ColumnMoments(counts, sums, squares, low, high, cross, exponent)


#: Widest span (largest - smallest value) of the integer labels :func:`integer_levels` counts in a
#: table (a table of this many counts: 512 KB); wider ones are left to hashing.
INTEGER_LEVEL_SPAN = 1 << 16


class IntegerLevels(NamedTuple):
    """The distinct values of an integer vector, sorted, and the code of each entry."""

    #: The distinct values, increasing, in the vector's dtype.
    values: np.ndarray
    #: int32 code of each entry: its value's position in ``values``.
    codes: np.ndarray
    #: How many entries hold each value.
    counts: np.ndarray


def integer_levels(values):
    """The :class:`IntegerLevels` of a 1-D NumPy integer or boolean array whose values span at
    most :data:`INTEGER_LEVEL_SPAN`, or None for any other array.

    The codes and sorted distinct values of ``numpy.unique(values, return_inverse=True,
    return_counts=True)``, counted in one table indexed by ``value - smallest`` (two reads for
    the range, one for the table, one for the codes) instead of hashing or sorting the entries:
    a million labels of three values in about 4 ms, against 20-30 ms for a hash of them and its
    codes; two values (0/1 labels) are counted without the table (a million int64 labels: 1.0 ms).
    """
    if not isinstance(values, np.ndarray) or values.ndim != 1 or values.size == 0 or values.dtype.kind not in "iub":
        return None
    numbers = values.view(np.uint8) if values.dtype.kind == "b" else values
    low, high = numbers.min(), numbers.max()
    span = int(high) - int(low)  # (Python integers: no overflow of the dtype)
    if span >= INTEGER_LEVEL_SPAN:
        return None
    if span == 1:
        # two values (0/1 labels, the common case): both are present, and the code is whether the
        # value is the larger (a byte per label, not a copy of the labels' dtype)
        larger = np.not_equal(numbers, low)
        ones = np.count_nonzero(larger)
        counts = np.array([larger.size - ones, ones], dtype=np.intp)
        distinct = np.array([low, high], dtype=numbers.dtype).astype(values.dtype)
        return IntegerLevels(distinct, larger.view(np.uint8).astype(np.int32), counts)
    if numbers.dtype.itemsize < np.dtype(np.intp).itemsize:
        offsets = numbers.astype(np.intp)
        offsets -= int(low)
    else:  # value - smallest lies in 0 .. span: no overflow in the dtype itself
        offsets = np.subtract(numbers, low, dtype=numbers.dtype).astype(np.intp, copy=False)
    counts = np.bincount(offsets, minlength=span + 1)
    present = np.flatnonzero(counts)
    code_of_offset = np.zeros(span + 1, dtype=np.int32)
    code_of_offset[present] = np.arange(present.size, dtype=np.int32)
    distinct = np.add(present.astype(numbers.dtype), low, dtype=numbers.dtype).astype(values.dtype)
    return IntegerLevels(distinct, code_of_offset[offsets], counts[present])


def as_class_codes(y, n_samples, name="y"):
    """``(codes, n_classes, counts)`` of class codes 0..n_classes-1 with at least two classes present."""
    given = np.asarray(y)
    if given.dtype.kind in "iu" and not np.can_cast(given.dtype, np.int32) and given.size \
            and (given.min() < 0 or given.max() > np.iinfo(np.int32).max):
        # (beyond int32: the conversion below would wrap them into other codes)
        raise ValueError(f"{name}: class codes must be integers 0..n_classes-1; got {given.min()}..{given.max()}")
    if given.dtype.kind == "f":
        # (whole numbers only: the conversion below would truncate 1.5 to the code 1)
        whole = np.isfinite(given) & (given == np.floor(given)) & (np.abs(given) <= np.iinfo(np.int32).max)
        if not whole.all():
            raise ValueError(f"{name}: class codes must be integers 0..n_classes-1; got "
                             f"{given[~whole].flat[0]!r}")
    elif given.dtype.kind not in "iub":
        raise ValueError(f"{name}: class codes must be integers 0..n_classes-1; got dtype {given.dtype}")
    y = np.ascontiguousarray(given, dtype=np.int32)
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise ValueError(f"{name}: must be 1-D with one class code per sample ({n_samples}); got shape {y.shape}")
    counts = _moments.class_counts(y, name)   # as long as the largest code + 1
    n_classes = counts.size
    if np.count_nonzero(counts) < 2:
        raise ValueError(f"{name}: needs at least two classes")
    return y, n_classes, counts


def constant_columns(X, n_threads=1):
    """Boolean mask of the columns of a 2-D array with a single value (every column of an empty one);
    ``n_threads`` threads read a bool or integer array (:func:`fstools._ext._moments.column_extremes`)."""
    if X.shape[0] == 0:
        return np.ones(X.shape[1], dtype=bool)
    if is_integer_design(X):
        low, high = _moments.column_extremes(X, n_threads)  # (one read instead of two)
        return low == high
    return X.max(axis=0) == X.min(axis=0)   # not np.ptp: max - min may overflow


def standardize_columns(X, *, ddof=0, scaling="variance", reference=None):
    """Columns of ``X`` centred and scaled; constant columns set to 0.

    Parameters
    ----------
    X : ndarray, shape (n, d)
    ddof : {0, 1}, default 0
        With ``scaling="variance"``: divide by the population sd (0, as
        scikit-learn's ``StandardScaler``) or the sample sd (1, as R's ``scale``
        and MATLAB's ``zscore``).
    scaling : {'variance', 'length'}, default 'variance'
        ``'variance'``: unit standard deviation; ``'length'``: unit Euclidean norm.
    reference : ndarray, shape (n_ref, d), optional
        Rows whose mean and scale are used (e.g. the training rows of a fold);
        default ``X`` itself.

    Returns
    -------
    ndarray of float64, shape (n, d), C-contiguous
        A column that is constant in ``reference`` is centred only, and set to
        exactly 0 when ``reference`` is ``X``.

    Notes
    -----
    The mean and the scale are computed on each column multiplied by the power of two
    that brings its largest absolute value in ``reference`` into [0.5, 1)
    (:func:`scaled_to_unit`).  That is exact, so the result is bitwise the one of the
    unscaled arithmetic on ordinary data, and a column multiplied by any number from
    1e-300 to 1e300 is standardised to the same values up to rounding: no sum of squares
    overflows or underflows.
    """
    if scaling not in SCALINGS:
        raise ValueError(f"scaling: must be one of {', '.join(map(repr, SCALINGS))}; got {scaling!r}")
    X = np.asarray(X, dtype=np.float64)
    own = reference is None
    reference = X if own else np.asarray(reference, dtype=np.float64)
    if reference.shape[0] == 0:
        return np.zeros(X.shape) if own else np.ascontiguousarray(X)
    reference, exponent = scaled_to_unit(reference)  # (a new array: centred and scaled in place below)
    mean = reference.mean(axis=0)
    constant = constant_columns(reference)
    centred = reference
    centred -= mean
    if scaling == "variance":
        scale = np.sqrt(np.einsum("ij,ij->j", centred, centred) / max(centred.shape[0] - ddof, 1))
    else:
        scale = np.sqrt(np.einsum("ij,ij->j", centred, centred))
    scale[constant | (scale == 0)] = 1.0   # (after the scaling only a constant column has scale 0)
    Z = centred if own else np.ldexp(X, -exponent) - mean
    Z /= scale
    if own:
        Z[:, constant] = 0.0
    else:
        with np.errstate(over="ignore"):
            Z[:, constant] = np.ldexp(Z[:, constant], exponent[constant])   # centred only, in its units
    return np.ascontiguousarray(Z)

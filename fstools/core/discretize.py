"""Discretisation of continuous features into integer codes.

The information-theoretic parts of fstools (entropies, mutual information,
the relevant independency of CMQFS) work on discrete codes.  Every function
here takes a 2-D array ``X`` of shape (n_samples, n_features) and returns

codes : ndarray of int8 or int16, shape (n_features, n_samples), C-contiguous
    Feature-major codes: row ``j`` holds the codes of column ``j`` of ``X``,
    integers in ``0 .. levels[j]-1``, stored in the smallest type that holds
    every level (see :func:`code_dtype`): int8 up to 127 levels (the mu/sigma
    scheme, up to 127 bins, the discrete columns of
    :func:`information_codes`), int16 up to 32767.
levels : ndarray of int32, shape (n_features,)
    The number of levels of each feature.  Codes need not use every level.

which is the layout the kernels of :mod:`fstools._ext._entropy` expect.
This module is NumPy plus two kernels: :mod:`fstools._ext._discretize` codes
the continuous columns by the three schemes below (one pass per block of
columns, threaded over columns, bitwise the codes of the NumPy arithmetic
each scheme's docstring states), and :mod:`fstools._ext._entropy` finds and
codes the discrete columns of :func:`information_codes`.  It knows nothing
about data frames.

Memory: ``X`` is never copied whole.  float64 columns are read by the kernel
as they are (C- or F-ordered), a block of columns per thread at a time, or,
for the mu/sigma scheme on a tall row-major ``X`` (C order, as
``DataFrame.to_numpy()`` often gives it), every column at a time in two passes
over row tiles (see ROW TILES in :mod:`fstools._ext._discretize`: a column of
a C-ordered ``X`` touches every cache line of ``X``); other dtypes are
converted to float64 a block of columns at a time (about :data:`BLOCK_VALUES`
values per block), so beyond the codes the extra memory is a few blocks.

Extreme magnitudes: the levels of every scheme are invariant under scaling a
column by a positive factor, and the mu/sigma and equal-width schemes compute
on each column scaled by the power of two that brings its largest absolute
value into [0.5, 1).  Scaling by a power of two is exact, so this gives the
same codes as the unscaled arithmetic wherever that neither overflows nor
underflows, and the right codes for columns near 1e308 (whose mean or
variance would overflow) or made of subnormal numbers (whose variance would
underflow).

The default scheme is the nine-level mean / standard-deviation scheme used by
the CMQFS paper (Zhao, Wu, Chen, Zhang and Bai, "Feature selection with
community modularity", Neurocomputing 151 (2015) 376-389, section 5.2, after
its references [27, 52], in the mRMR line of work of Peng et al.).
"""
import mmap

import numpy as np

from fstools._ext import _bitcount, _common, _discretize, _entropy

__all__ = [
    "discretize",
    "mu_sigma_levels",
    "mu_sigma_planes",
    "scheme_levels",
    "equal_width_levels",
    "equal_frequency_levels",
    "factorize_columns",
    "discrete_columns",
    "information_codes",
    "code_dtype",
]

#: Allowed values of ``method`` in :func:`discretize`.
METHODS = ("mu_sigma", "equal_width", "equal_frequency", "none")

#: Number of levels of the mu/sigma scheme (codes -4..4 shifted to 0..8).
MU_SIGMA_LEVELS = 9

#: Largest number of levels whose codes (0 .. levels-1) are stored as int8.
INT8_MAX_LEVELS = int(np.iinfo(np.int8).max)

#: Largest number of bins of the equal-width / equal-frequency schemes: their
#: codes are stored as int16 at most.
MAX_BINS = int(np.iinfo(np.int16).max)

#: Number of values (rows x columns) of ``X`` converted to float64 at a time.
BLOCK_VALUES = 2 ** 16

#: Bytes of the buffer in which :func:`information_codes_with_planes` codes the continuous columns
#: a block at a time before their bit-planes are written (16 MiB: 16 columns of a million rows).
PLANE_BUFFER_BYTES = 1 << 24

# Multiples of sigma at which the mu/sigma intervals end, to the right of mu;
# the same multiples with a minus sign end the intervals to the left.
MU_SIGMA_EDGES = (0.5, 1.5, 2.5, 3.5)

# dtypes of X used as they are (converted to float64 a block at a time); any
# other dtype (object, strings, long double, ...) is converted whole, once.
_BLOCKWISE_FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


def code_dtype(n_levels):
    """The dtype in which codes of at most ``n_levels`` levels are stored.

    Parameters
    ----------
    n_levels : int
        The largest number of levels of a feature.

    Returns
    -------
    numpy.dtype
        int8 for at most 127 levels, int16 for at most 32767, else int32.
    """
    if n_levels <= INT8_MAX_LEVELS:
        return np.dtype(np.int8)
    if n_levels <= MAX_BINS:
        return np.dtype(np.int16)
    return np.dtype(np.int32)


def _first_non_finite_error(array):
    """The ValueError for an ``array`` with non-finite values (located row first)."""
    rows, cols = np.nonzero(~np.isfinite(array))
    return ValueError(
        f"X: must contain only finite values; got {array[rows[0], cols[0]]} at row {rows[0]}, "
        f"column {cols[0]} ({rows.size} non-finite value(s) in all)"
    )


def _check_X(X, check_finite=True):
    """Return ``X`` as a 2-D array of finite numbers, or raise ValueError.

    Boolean, integer and float16/32/64 arrays are returned as they are (no
    copy; :func:`_column_blocks` converts them to float64 a block at a time);
    anything else is converted to float64.  The finiteness check also works a
    block of rows at a time; ``check_finite=False`` leaves it to the caller.
    """
    array = np.asarray(X)
    if not (array.dtype.kind in "biu" or array.dtype in _BLOCKWISE_FLOATS):
        try:
            array = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise ValueError(f"X: cannot be converted to float ({error}); allowed: a 2-D array of numbers") from None
    if array.ndim != 2:
        raise ValueError(f"X: must be a 2-D array (n_samples, n_features); got {array.ndim}-D")
    if array.shape[0] < 1:
        raise ValueError("X: must have at least one row (sample); got 0 rows")
    if check_finite and array.dtype.kind == "f":
        rows_per_block = max(1, BLOCK_VALUES // max(array.shape[1], 1))
        for start in range(0, array.shape[0], rows_per_block):
            if not np.isfinite(array[start:start + rows_per_block]).all():
                raise _first_non_finite_error(array)
    return array


def _column_blocks(array):
    """Yield ``(start, block)`` over the columns of a checked ``array``.

    ``block`` holds the columns ``start .. start + len(block) - 1`` as
    contiguous float64 rows, shape (n_columns_in_block, n_samples), about
    :data:`BLOCK_VALUES` values in all (at least one column).  It may be a
    view of ``array``: never write to it.
    """
    n_samples, n_features = array.shape
    width = max(1, BLOCK_VALUES // n_samples)
    for start in range(0, n_features, width):
        yield start, np.ascontiguousarray(array[:, start:start + width].T, dtype=np.float64)


def _check_n_bins(n_bins):
    """Return ``n_bins`` as an int in 2..MAX_BINS, or raise ValueError."""
    if isinstance(n_bins, (bool, np.bool_)) or not isinstance(n_bins, (int, np.integer)) or n_bins < 2:
        raise ValueError(f"n_bins: must be an integer >= 2 and <= {MAX_BINS}; got {n_bins!r}")
    if n_bins > MAX_BINS:
        raise ValueError(f"n_bins: must be an integer >= 2 and <= {MAX_BINS} (the codes are stored as "
                         f"int16 at most); got {n_bins!r}")
    return int(n_bins)


def mu_sigma_levels(X):
    """Nine-level discretisation from each column's mean and standard deviation.

    The scheme of the CMQFS paper (Zhao et al. 2015, section 5.2, after its
    references [27, 52]).  For a column with mean ``mu`` and standard deviation
    ``sigma`` a value ``v`` gets the level

    ======  ==========================================
    level   interval of ``v``
    ======  ==========================================
     0      ``[mu - sigma/2, mu + sigma/2]``
     1      ``(mu + sigma/2, mu + 3 sigma/2]``
     2      ``(mu + 3 sigma/2, mu + 5 sigma/2]``
     3      ``(mu + 5 sigma/2, mu + 7 sigma/2]``
     4      ``(mu + 7 sigma/2, inf)`` (truncated)
    -1      ``[mu - 3 sigma/2, mu - sigma/2)``
    -2      ``[mu - 5 sigma/2, mu - 3 sigma/2)``
    -3      ``[mu - 7 sigma/2, mu - 5 sigma/2)``
    -4      ``(-inf, mu - 7 sigma/2)`` (truncated)
    ======  ==========================================

    so a value on a boundary belongs to the interval nearer to ``mu``.  The
    boundaries are computed as ``mu + t * sigma`` and ``mu - t * sigma`` for
    ``t`` in (0.5, 1.5, 2.5, 3.5) and compared with the values exactly.
    The levels -4..4 are returned shifted to codes 0..8.

    ``sigma`` is the sample standard deviation with ``ddof=1`` (divisor
    ``n - 1``), as MATLAB's ``std``, which the paper used.  A constant column
    (all values equal, so ``sigma == 0``; also any single-row ``X``) gets
    level 0 (code 4) everywhere.

    The levels do not change when a column is multiplied by a positive
    number, so ``mu``, ``sigma`` and the comparisons are computed on the
    column scaled by the power of two that brings its largest absolute value
    into [0.5, 1).  That scaling is exact: the codes are those of the
    unscaled arithmetic wherever it neither overflows nor underflows, and
    columns with values near 1e308 or of subnormal size are coded like the
    same column rescaled to ordinary magnitudes.

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
        Finite numbers.

    Returns
    -------
    codes : ndarray of int8, shape (n_features, n_samples)
        Codes 0..8 (level + 4), feature-major and C-contiguous.
    levels : ndarray of int32, shape (n_features,)
        9 for every feature (codes need not use all nine levels).

    Raises
    ------
    ValueError
        If ``X`` is not 2-D, has no rows, or has non-finite values.
    """
    return _scheme_codes(_check_X(X, check_finite=False), "mu_sigma")


def mu_sigma_planes(X, n_classes, n_threads=1):
    """:func:`mu_sigma_levels` with the codes as the bit-planes the counting kernels read, where
    the pairs of features are counted on planes.

    Returns ``(codes, levels, planes, prepared)`` for
    :func:`fstools._ext._bitcount.counting_kernel` (``binary_planes=planes``): as
    :func:`information_codes_with_planes`, the codes rows of the features with planes are not
    written (a tall row-major ``X``: written, packed, and their pages given back), so that the
    codes and the planes are not in memory together.  With ``n_classes`` classes a pair of
    nine-level features is counted on planes when its ``8 * 8 * n_classes`` streams are at most
    :data:`fstools._ext._bitcount.MAX_STREAMS` (two classes); otherwise every codes row is written
    and ``planes`` is None (``prepared`` all False).
    """
    array = _check_X(X, check_finite=False)
    n_samples, n_features = array.shape
    levels = np.full(n_features, MU_SIGMA_LEVELS, dtype=np.int32)
    columns = np.arange(n_features)
    if not _bitcount._pair_on_planes(MU_SIGMA_LEVELS, MU_SIGMA_LEVELS, int(n_classes)):
        codes, levels = _scheme_codes(array, "mu_sigma", n_threads=n_threads)
        return codes, levels, None, np.zeros(n_features, dtype=bool)
    # (codes rows written only by row tiles, and given back as they are packed; else only if read)
    codes = (_releasable_codes((n_features, n_samples)) if _by_row_tiles(array, columns, "mu_sigma")
             else np.empty((n_features, n_samples), dtype=np.int8))
    planes = _discretised_planes(array, columns, levels, None, codes, "mu_sigma", None, n_threads)
    return codes, levels, planes, np.ones(n_features, dtype=bool)


def equal_width_levels(X, n_bins):
    """Discretise each column into ``n_bins`` bins of equal width.

    The range ``[min, max]`` of a column is cut at ``min + k (max - min) / n_bins``
    for ``k = 1 .. n_bins-1`` (computed in floating point, so a value within
    rounding of a cut point may fall on either side); bins are right-closed,
    ``(cut_{k-1}, cut_k]``, with the minimum in the first bin, as R's ``cut``
    with ``include.lowest = TRUE``.
    A constant column gets code 0 everywhere.  This is one of the usual
    alternatives to the paper's scheme (:func:`mu_sigma_levels`); it is not
    used by the paper.  The cut points are computed on the column scaled by
    the power of two that brings its largest absolute value into [0.5, 1)
    (exact; no overflow of ``max - min`` near 1e308, no loss of precision for
    subnormal columns).

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
        Finite numbers.
    n_bins : int
        Number of bins, 2 .. 32767 (:data:`MAX_BINS`).

    Returns
    -------
    codes : ndarray of int8 (n_bins <= 127) or int16, shape (n_features, n_samples)
        Codes 0..n_bins-1, feature-major and C-contiguous.
    levels : ndarray of int32, shape (n_features,)
        ``n_bins`` for every feature.

    Raises
    ------
    ValueError
        If ``n_bins`` is not an integer in 2..32767, or ``X`` is not a 2-D
        array of finite numbers with at least one row.
    """
    n_bins = _check_n_bins(n_bins)
    return _scheme_codes(_check_X(X, check_finite=False), "equal_width", n_bins)


def equal_frequency_levels(X, n_bins):
    """Discretise each column into ``n_bins`` bins holding about equal numbers of samples.

    The cut points are the column's empirical quantiles at ``k / n_bins``,
    ``k = 1 .. n_bins-1``: ``cut_k`` is the smallest value ``v`` with at least
    ``k m / n_bins`` of the m values ``<= v`` (inverse of the empirical
    distribution function, R's quantile type 1, ``numpy.quantile(...,
    method="inverted_cdf")``); bins are right-closed, ``(cut_{k-1}, cut_k]``.
    Cut points are data values, never interpolated, so ``m`` distinct values
    with ``m`` a multiple of ``n_bins`` fill every bin with exactly
    ``m / n_bins`` values.  Equal values always share a bin, so with ties some
    bins hold more samples than others and some may be empty.  A constant
    column gets code 0 everywhere.  Like :func:`equal_width_levels` this is an
    alternative to the paper's scheme.  Cut points are data values and codes
    come from comparisons only, so no arithmetic can overflow or underflow
    whatever the magnitude of the values.

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
        Finite numbers.
    n_bins : int
        Number of bins, 2 .. 32767 (:data:`MAX_BINS`).

    Returns
    -------
    codes : ndarray of int8 (n_bins <= 127) or int16, shape (n_features, n_samples)
        Codes 0..n_bins-1, feature-major and C-contiguous.
    levels : ndarray of int32, shape (n_features,)
        ``n_bins`` for every feature.

    Raises
    ------
    ValueError
        If ``n_bins`` is not an integer in 2..32767, or ``X`` is not a 2-D
        array of finite numbers with at least one row.
    """
    n_bins = _check_n_bins(n_bins)
    return _scheme_codes(_check_X(X, check_finite=False), "equal_frequency", n_bins)


#: Scheme numbers of the kernel :func:`fstools._ext._discretize.discretize_columns`.
_KERNEL_SCHEMES = {"mu_sigma": _discretize.MU_SIGMA, "equal_width": _discretize.EQUAL_WIDTH,
                   "equal_frequency": _discretize.EQUAL_FREQUENCY}


def scheme_levels(method, n_bins=None):
    """The number of levels of the codes of the scheme ``method``: nine for 'mu_sigma', else
    ``n_bins``."""
    return MU_SIGMA_LEVELS if method == "mu_sigma" else n_bins


def _scheme_codes(array, method, n_bins=None, n_threads=1):
    """(codes, levels) of every column of a checked ``array`` by the scheme ``method``
    ('mu_sigma', 'equal_width' or 'equal_frequency')."""
    n_samples, n_features = array.shape
    n_levels = scheme_levels(method, n_bins)
    codes = np.empty((n_features, n_samples), dtype=code_dtype(n_levels))
    _continuous_codes(array, np.arange(n_features), codes, method, n_bins, n_threads)
    return codes, np.full(n_features, n_levels, dtype=np.int32)


def _continuous_codes(array, columns, codes, method, n_bins=None, n_threads=1):
    """Code the ``columns`` of a checked ``array`` by the scheme ``method`` into their rows of
    ``codes`` (shape (n_features, n_samples), C-contiguous; other rows untouched).

    The one place where continuous columns are discretised: the kernel
    :func:`fstools._ext._discretize.discretize_columns` reads float64 input as it is;
    other dtypes go to it a block of columns at a time, converted to float64.
    ``columns``: increasing column indices.  The kernel checks that the values are
    finite (``array`` need not be checked before); a non-finite value is the
    ValueError of :func:`_check_X`, located row first.
    """
    try:
        _kernel_codes(array, columns, codes, method, n_bins, n_threads)
    except ValueError:
        if array.dtype.kind == "f" and not np.isfinite(array[:, columns]).all():
            raise _first_non_finite_error(array) from None
        raise


def _kernel_codes(array, columns, codes, method, n_bins, n_threads):
    """:func:`_continuous_codes` without the located message for non-finite values."""
    n_samples, n_features = array.shape
    columns = np.asarray(columns, dtype=np.intp)
    scheme = {"scheme": _KERNEL_SCHEMES[method], "n_threads": n_threads}
    if method == "mu_sigma":
        scheme["edges"] = np.asarray(MU_SIGMA_EDGES, dtype=np.float64)
    else:
        scheme["n_bins"] = n_bins
    if method == "equal_frequency":
        scheme["ranks"] = _quantile_ranks(n_samples, n_bins)
    if array.dtype == np.float64:
        _discretize.discretize_columns(array, columns, codes, **scheme)
        return
    width = max(1, BLOCK_VALUES // n_samples)
    for start in range(0, n_features, width):
        stop = min(start + width, n_features)
        chosen = columns[(columns >= start) & (columns < stop)] - start
        if chosen.size:
            block = np.empty((n_samples, stop - start))  # only the chosen columns are set and read
            block[:, chosen] = array[:, chosen + start]
            _discretize.discretize_columns(block, chosen, codes[start:stop], **scheme)


def _quantile_ranks(n_samples, n_bins):
    """Positions in a sorted column of ``n_samples`` values of its equal-frequency cut points.

    The quantiles at ``k / n_bins``, ``k = 1 .. n_bins-1``, by
    ``numpy.quantile(..., method="inverted_cdf")``, which selects data values: the
    same quantiles of ``0 .. n_samples-1`` are those positions (NumPy's own rule,
    whatever its version).
    """
    positions = np.arange(n_samples, dtype=np.float64)
    probabilities = np.arange(1, n_bins) / n_bins
    return np.quantile(positions, probabilities, method="inverted_cdf").astype(np.intp)


def _equal_width_block(block, n_bins):
    """Equal-width codes of the rows of ``block`` (columns of X, float64), by the kernel
    (the block-at-a-time entry point tests/test_information_fast_paths.py checks)."""
    codes = np.empty(block.shape, dtype=code_dtype(n_bins))
    _continuous_codes(block.T, np.arange(block.shape[0]), codes, "equal_width", n_bins)
    return codes


def _equal_frequency_block(block, n_bins):
    """Equal-frequency codes of the rows of ``block`` (columns of X, float64), by the kernel
    (the block-at-a-time entry point tests/test_information_fast_paths.py checks)."""
    codes = np.empty(block.shape, dtype=code_dtype(n_bins))
    _continuous_codes(block.T, np.arange(block.shape[0]), codes, "equal_frequency", n_bins)
    return codes


def factorize_columns(X):
    """Use each column's values as they are: distinct values -> 0..L-1 in sorted order.

    For columns that are already discrete (integer codes, categories coded as
    numbers).  Column ``j`` with ``L_j`` distinct values gets codes
    ``0 .. L_j-1``, the smallest value coded 0.

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
        Finite numbers.

    Returns
    -------
    codes : ndarray of int8, int16 or int32, shape (n_features, n_samples)
        Feature-major and C-contiguous, in the smallest of these types that
        holds the largest number of levels (:func:`code_dtype`: int8 up to
        127 distinct values per column, int16 up to 32767, else int32).
    levels : ndarray of int32, shape (n_features,)
        Number of distinct values of each column (every level is used).

    Raises
    ------
    ValueError
        If ``X`` is not a 2-D array of finite numbers with at least one row.
    """
    return _factorize_codes(_check_X(X))


def _factorize_codes(array):
    """:func:`factorize_columns` of a checked ``array``, a block of columns at a time."""
    n_samples, n_features = array.shape
    codes = np.empty((n_features, n_samples), dtype=np.int8)
    levels = np.empty(n_features, dtype=np.int32)
    for start, block in _column_blocks(array):
        for j, column in enumerate(block, start):
            column_codes, levels[j] = _factorize_column(column)
            if code_dtype(levels[j]).itemsize > codes.dtype.itemsize:
                codes = codes.astype(code_dtype(levels[j]))  # widen the codes so far
            codes[j] = column_codes
    return codes, levels


def _factorize_column(column):
    """(codes as intp, number of distinct values) of one column: sorted distinct values -> 0..L-1."""
    values, inverse = np.unique(column, return_inverse=True)
    return inverse, values.size


def discretize(X, method="mu_sigma", n_bins=None):
    """Discretise the columns of ``X`` into integer codes.

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
        Finite numbers.
    method : {'mu_sigma', 'equal_width', 'equal_frequency', 'none'}, default 'mu_sigma'
        ``'mu_sigma'``: the nine-level scheme of the CMQFS paper (Zhao et al.
        2015, section 5.2), the default because it is the paper's;
        see :func:`mu_sigma_levels`.  ``'equal_width'`` and
        ``'equal_frequency'``: ``n_bins`` bins per column, see
        :func:`equal_width_levels` and :func:`equal_frequency_levels`.
        ``'none'``: the values are used as they are (already discrete
        columns), see :func:`factorize_columns`.
    n_bins : int, optional
        Number of bins (2 .. 32767); required by ``'equal_width'`` and
        ``'equal_frequency'`` and not allowed with the other methods.

    Returns
    -------
    codes : ndarray of int8 or int16, shape (n_features, n_samples)
        Feature-major, C-contiguous codes in ``0 .. levels[j]-1``, in the
        smallest type that holds the levels (:func:`code_dtype`; int32 only
        for ``'none'`` with more than 32767 distinct values in a column).
    levels : ndarray of int32, shape (n_features,)
        Number of levels of each feature.

    Raises
    ------
    ValueError
        For an unknown ``method``, a missing, superfluous or invalid
        ``n_bins``, or an ``X`` that is not a 2-D array of finite numbers.
    """
    n_bins = _check_method(method, n_bins)
    # (the schemes' kernel finds non-finite values itself, in the pass that reads the columns)
    return _codes_of(_check_X(X, check_finite=method == "none"), method, n_bins)


def _check_method(method, n_bins):
    """Check ``method`` and ``n_bins`` of :func:`discretize`; return ``n_bins`` (int or None)."""
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"method: must be one of {', '.join(repr(m) for m in METHODS)}; got {method!r}")
    if method in ("equal_width", "equal_frequency"):
        if n_bins is None:
            raise ValueError(f"n_bins: required by method={method!r} (an integer >= 2); got None")
        return _check_n_bins(n_bins)
    if n_bins is not None:
        raise ValueError(
            f"n_bins: only used with method='equal_width' or 'equal_frequency'; got n_bins={n_bins!r} "
            f"with method={method!r}"
        )
    return None


def _codes_of(array, method, n_bins):
    """(codes, levels) of a checked ``array`` by a checked ``method`` and ``n_bins``."""
    if method == "none":
        return _factorize_codes(array)
    return _scheme_codes(array, method, n_bins)


#: An integer-valued column with at most this many distinct values is used as
#: it is by :func:`information_codes` (codes, counts, dummies of a categorical).
MAX_LEVELS_AS_IS = 32


def discrete_columns(X, max_levels=MAX_LEVELS_AS_IS):
    """Mask of the columns of ``X`` that are already discrete.

    A column is discrete when every value is an integer and it has at most
    ``max_levels`` distinct values (0/1 dummies of categorical predictors,
    counts, codes).  Integer columns with more values (e.g. a measured
    quantity recorded in whole units) are treated as continuous.
    """
    return _discrete_columns(_check_X(X), max_levels)


def _discrete_columns(array, max_levels):
    """:func:`discrete_columns` of a checked ``array``, a block of columns at a time."""
    mask = np.zeros(array.shape[1], dtype=bool)
    for start, block in _column_blocks(array):
        for j, column in enumerate(block, start):
            mask[j] = _is_discrete(column, max_levels)
    return mask


def _is_discrete(column, max_levels):
    """True when every value of ``column`` is an integer and it has at most ``max_levels`` of them."""
    return bool(np.all(column == np.round(column))) and np.unique(column).size <= max_levels


def information_codes(X, discretization="mu_sigma", n_bins=None, n_threads=1):
    """Codes for the information-theoretic methods: discrete columns as they are,
    the others discretised.

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
    discretization : {'mu_sigma', 'equal_width', 'equal_frequency'}
        Scheme for the continuous columns (see :func:`discretize`); the
        default is the CMQFS paper's nine-level scheme (section 5.2).
    n_bins : int, optional
        Bins of the equal-width / equal-frequency schemes.
    n_threads : int, default 1
        Threads of the kernels that find and code the discrete columns and
        discretise the continuous ones; the result does not depend on it.

    Returns
    -------
    codes : ndarray of int8 or int16, shape (n_features, n_samples)
        int8 for 'mu_sigma' and up to 127 bins, int16 for more bins (the
        discrete columns, at most :data:`MAX_LEVELS_AS_IS` levels, fit both).
    levels : ndarray of int32, shape (n_features,)
    as_is : ndarray of bool, shape (n_features,)
        The columns used as they are (see :func:`discrete_columns`).

    Notes
    -----
    The discrete columns are found and coded by one kernel pass per column
    (:func:`fstools._ext._entropy.discrete_column_codes`: no Python loop over
    the columns, no sort), the finiteness check included; only the continuous
    columns are then discretised, by one kernel pass per block of columns
    (:func:`fstools._ext._discretize.discretize_columns`, read from ``X`` as it
    is when it is float64).  The codes are those of ``numpy.unique`` column by
    column and of the schemes above.
    """
    return _information_codes(X, discretization, n_bins, n_threads, False)[:3]


def information_codes_with_planes(X, discretization="mu_sigma", n_bins=None, n_threads=1, discretised_planes=True):
    """:func:`information_codes` with the binary and the discretised columns as bit-planes
    instead of codes.

    The same codes, levels and columns used as they are, except that two kinds of column are
    delivered as bit-planes (the layout of :mod:`fstools._ext._bitcount`) and their rows of
    ``codes`` are not written:

    * the columns used as they are with at most two levels (binary or constant), as the plane
      of their code 1: on a row-major ``X`` of 0/1 columns (Dorothea-like data) the codes kernel
      then writes one 64-bit word per 64 samples instead of 64 bytes, and the counting kernel
      reads the planes as they are instead of packing the codes again;
    * the discretised columns (at most :data:`fstools._ext._bitcount.MAX_PLANE_LEVELS` levels),
      unless ``X`` is coded by row tiles (a tall row-major float64 ``X``): coded a block of
      columns at a time into a buffer and packed from it, so that the codes of a tall ``X`` and
      their planes are never in memory together (the pages of the unwritten codes rows are
      never touched).

    Parameters
    ----------
    X, discretization, n_bins, n_threads
        As :func:`information_codes`.
    discretised_planes : bool, default True
        False: the discretised columns come as codes (only the binary ones as planes), for a
        caller that counts them once (MIM's I(X_j;C): packing them costs more than it saves).

    Returns
    -------
    codes : ndarray of int8 or int16, shape (n_features, n_samples)
        As :func:`information_codes`, but the rows where ``prepared`` is True hold no
        codes yet: give ``codes``, ``planes`` and ``prepared`` to
        :func:`fstools._ext._bitcount.counting_kernel` (``binary_planes=planes``), which
        writes them when something reads them, before any other use.
    levels : ndarray of int32, shape (n_features,)
    as_is : ndarray of bool, shape (n_features,)
    planes : ndarray of uint64, shape (n_rows, ceil(n_samples / 64)), or None
        The planes of feature ``j`` where ``prepared[j]``, in the rows of
        :func:`fstools._ext._bitcount.plane_rows` (a binary feature's at row ``j``, the
        ``L - 1`` planes of a feature of ``L`` levels after the first ``n_features`` rows;
        ``n_rows = n_features`` when only binary features have planes; the other rows hold no
        meaning).  None (and ``prepared`` all False, every codes row written) when no column
        has planes, or when the codes are not int8 (more than 127 bins).
    prepared : ndarray of bool, shape (n_features,)
    """
    return _information_codes(X, discretization, n_bins, n_threads, True, discretised_planes)


def _information_codes(X, discretization, n_bins, n_threads, with_planes, discretised_planes=False):
    """(codes, levels, as_is, planes, prepared) of :func:`information_codes_with_planes`;
    without ``with_planes``, planes None and every codes row written; without
    ``discretised_planes``, planes for the binary columns only.

    With planes, the continuous columns of at most MAX_PLANE_LEVELS levels are delivered as planes
    (:func:`_discretised_planes`), so that the codes and the planes of a tall X are never both in
    memory (1,000,000 x 50, nine levels: 8 planes of 125 KB a column, 12.5 % of a float64 X): coded
    a block of columns at a time into a buffer, their codes rows never written; or, for an X that
    the kernel codes by row tiles (:func:`_by_row_tiles`: every column in one read of each row),
    coded into releasable codes whose rows are given back as they are packed."""
    if discretization == "none":
        raise ValueError("discretization: must be one of 'mu_sigma', 'equal_width', 'equal_frequency'; "
                         "got 'none' (discrete columns are detected and used as they are anyway)")
    n_bins = _check_method(discretization, n_bins)
    array = _check_X(X, check_finite=False)
    n_samples, n_features = array.shape
    n_levels = scheme_levels(discretization, n_bins)
    dtype = code_dtype(n_levels)
    with_planes = with_planes and dtype == np.int8  # (int16 codes are a copy of the int8 ones: every row written)
    planes = np.empty((n_features, (n_samples + 63) // 64), dtype=np.uint64) if with_planes else None
    # (a tall row-major X: codes whose rows can give their memory back once packed into planes)
    releasable = with_planes and discretised_planes and _by_row_tiles(array, np.arange(n_features), discretization)
    discrete_codes, levels, status = _discrete_codes(array, MAX_LEVELS_AS_IS, n_threads, planes, releasable)
    if np.any(status == _entropy.COLUMN_NON_FINITE):
        raise _first_non_finite_error(array)
    # the columns whose plane the kernel wrote instead of their codes
    prepared = ((status == _entropy.COLUMN_DISCRETE) & (levels <= 2) if with_planes
                else np.zeros(n_features, dtype=bool))
    if not prepared.any():
        planes = None  # no binary column: nothing in the rows of one plane per feature
    for j in np.flatnonzero(status == _entropy.COLUMN_UNDECIDED):  # int64 beyond 2^53: as before
        column = array[:, j].astype(np.float64)
        status[j] = _entropy.COLUMN_CONTINUOUS
        if _is_discrete(column, MAX_LEVELS_AS_IS):
            discrete_codes[j], levels[j] = _factorize_column(column)
            status[j] = _entropy.COLUMN_DISCRETE
    as_is = status == _entropy.COLUMN_DISCRETE
    codes = discrete_codes if dtype == discrete_codes.dtype else discrete_codes.astype(dtype)
    continuous = np.flatnonzero(~as_is)
    levels[continuous] = n_levels
    if with_planes and discretised_planes and continuous.size and n_levels <= _bitcount.MAX_PLANE_LEVELS:
        planes = _discretised_planes(array, continuous, levels, planes, codes, discretization, n_bins, n_threads)
        prepared[continuous] = True
    elif continuous.size:
        _continuous_codes(array, continuous, codes, discretization, n_bins, n_threads)
    return codes, levels, as_is, planes, prepared


def _releasable_codes(shape):
    """A C-contiguous int8 array of ``shape`` in an anonymous memory map of its own, whose rows
    :func:`_release_rows` can give back to the system (a NumPy array whose memory comes from the
    allocator cannot); a plain array where the platform has no ``madvise``."""
    size = shape[0] * shape[1]
    if (size == 0 or not hasattr(mmap, "MADV_DONTNEED") or not hasattr(mmap.mmap, "madvise")
            or not hasattr(mmap, "MAP_PRIVATE") or not hasattr(mmap, "MAP_ANONYMOUS")):
        return np.empty(shape, dtype=np.int8)
    # private: the pages of a shared map stay in shared memory after MADV_DONTNEED
    memory = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        # huge pages where the kernel has them, as NumPy asks for its arrays of 4 MB or more: the
        # first writes fault in a few 2 MB pages instead of 4 KB ones (1,000,000 x 50 codes coded
        # in 0.127 s against 0.162); a row given back splits its huge pages
        memory.madvise(mmap.MADV_HUGEPAGE)
    return np.frombuffer(memory, dtype=np.int8, count=size).reshape(shape)


def _release_rows(codes, rows):
    """Give the whole pages of the ``rows`` of ``codes`` (from :func:`_releasable_codes`) back to
    the system: their values are lost (read again they are zeros on Linux), and a later write
    takes new pages.  Nothing for an array of another origin."""
    memory = codes.base
    while memory is not None and not isinstance(memory, mmap.mmap):  # (array -> memoryview -> the map)
        memory = memory.obj if isinstance(memory, memoryview) else getattr(memory, "base", None)
    if memory is None:
        return
    row_bytes = codes.shape[1]
    for j in rows:
        start = -(-int(j) * row_bytes // mmap.PAGESIZE) * mmap.PAGESIZE  # first whole page of the row
        stop = (int(j) + 1) * row_bytes // mmap.PAGESIZE * mmap.PAGESIZE
        if stop > start:
            memory.madvise(mmap.MADV_DONTNEED, start, stop - start)


def _discretised_planes(array, continuous, levels, binary_planes, codes, method, n_bins, n_threads):
    """The bit-planes of every feature in the layout of :func:`fstools._ext._bitcount.plane_rows`:
    the binary features' rows of ``binary_planes`` (or none), and those of the ``continuous``
    columns coded by the scheme ``method`` -- into their rows of ``codes`` and packed from them
    (an X coded by row tiles: ``codes`` from :func:`_releasable_codes`, whose packed rows are given
    back), or a block of columns at a time through a buffer (their codes rows never written)."""
    n_samples, n_features = array.shape
    first_plane, n_rows = _bitcount.plane_rows(levels)
    planes = np.empty((n_rows, (n_samples + 63) // 64), dtype=np.uint64)
    if binary_planes is not None:
        planes[:n_features] = binary_planes
    if _by_row_tiles(array, continuous, method):
        _continuous_codes(array, continuous, codes, method, n_bins, n_threads)
        _pack_written_rows(codes, continuous, levels, first_plane, planes, n_threads)
    else:
        _pack_column_blocks(array, continuous, levels, first_plane, planes, method, n_bins, n_threads)
    return planes


def _pack_written_rows(codes, continuous, levels, first_plane, planes, n_threads):
    """Pack the written codes rows of the ``continuous`` features into ``planes``, one row at a
    time, each row's memory given back once packed (:func:`_release_rows`): the planes grow as the
    codes shrink."""
    for j in np.asarray(continuous, dtype=np.intp):
        _bitcount.pack_planes(codes[j:j + 1], np.array([j], dtype=np.intp), levels, first_plane, planes, n_threads)
        _release_rows(codes, [j])


def _by_row_tiles(array, columns, method):
    """Whether the kernel codes these columns of ``array`` by row tiles (a tall row-major float64
    X, :func:`fstools._ext._discretize.discretize_columns`): all of them in one read of each row.
    Such an X is coded whole, not a block of columns at a time (a block of 16 of 50 columns
    costs as much as all 50: 1,000,000 rows, 0.25 s against 0.16)."""
    return (array.dtype == np.float64 and columns.size > 0
            and bool(_discretize._prefers_row_tiles(array, np.asarray(columns, dtype=np.intp),
                                                    _KERNEL_SCHEMES[method])))


def _pack_column_blocks(array, continuous, levels, first_plane, planes, method, n_bins, n_threads):
    """Code the ``continuous`` columns by the scheme ``method`` a block of columns at a time into a
    buffer of :data:`PLANE_BUFFER_BYTES` and pack their planes from it into ``planes``."""
    n_samples, n_features = array.shape
    width = max(1, min(n_features, PLANE_BUFFER_BYTES // max(1, n_samples)))
    buffer = np.empty((width, n_samples), dtype=np.int8)
    for start in range(0, n_features, width):
        stop = min(start + width, n_features)
        chosen = continuous[(continuous >= start) & (continuous < stop)]
        if chosen.size == 0:
            continue
        block = array[:, start:stop]  # (a view: the kernel reads any strides)
        block_codes = buffer[:stop - start]
        try:
            _kernel_codes(block, chosen - start, block_codes, method, n_bins, n_threads)
        except ValueError:
            if array.dtype.kind == "f" and not np.isfinite(block[:, chosen - start]).all():
                raise _first_non_finite_error(array) from None
            raise
        rows = block_codes if chosen.size == stop - start else np.ascontiguousarray(block_codes[chosen - start])
        _bitcount.pack_planes(rows, chosen.astype(np.intp), levels, first_plane, planes, n_threads)


def _discrete_codes(array, max_levels, n_threads=1, planes=None, releasable=False):
    """(codes int8 (n_features, n_samples), levels int32, status int8) of the kernel
    :func:`fstools._ext._entropy.discrete_column_codes` over a checked ``array``.

    Rows of ``codes`` and entries of ``levels`` of columns whose status is not
    ``COLUMN_DISCRETE`` are left unset; with ``planes``, so are the codes rows of the
    discrete columns of at most two levels (their bit-planes are in ``planes``).  ``releasable``:
    ``codes`` in memory whose rows can be given back (:func:`_releasable_codes`)."""
    n_samples, n_features = array.shape
    codes = (_releasable_codes((n_features, n_samples)) if releasable
             else np.empty((n_features, n_samples), dtype=np.int8))
    levels = np.zeros(n_features, dtype=np.int32)
    status = np.zeros(n_features, dtype=np.int8)
    # A continuous column is left at its first run of 64 values with a non-integer (whole_columns
    # False): the discretiser reads it (and refuses a non-finite value of it, as here).
    if array.dtype in _common.VALUE_DTYPES:  # read as they are
        _entropy.discrete_column_codes(array, max_levels, codes, levels, status, n_threads, planes,
                                       whole_columns=False)
        return codes, levels, status
    width = max(1, BLOCK_VALUES // n_samples)
    for start in range(0, n_features, width):
        stop = min(start + width, n_features)
        block = np.asarray(array[:, start:stop], dtype=np.float64)
        _entropy.discrete_column_codes(block, max_levels, codes[start:stop], levels[start:stop],
                                       status[start:stop], n_threads, None if planes is None else planes[start:stop],
                                       whole_columns=False)
    return codes, levels, status

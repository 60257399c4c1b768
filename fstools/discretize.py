"""Discretisation of continuous features into integer codes.

The information-theoretic parts of fstools (entropies, mutual information,
the relevant independency of CMQFS) work on discrete codes.  Every function
here takes a 2-D array ``X`` of shape (n_samples, n_features) and returns

codes : ndarray of int32, shape (n_features, n_samples), C-contiguous
    Feature-major codes: row ``j`` holds the codes of column ``j`` of ``X``,
    integers in ``0 .. levels[j]-1``.
levels : ndarray of int32, shape (n_features,)
    The number of levels of each feature.  Codes need not use every level.

which is the layout the kernels of :mod:`fstools._ext._entropy` expect.
This module is pure NumPy and knows nothing about data frames.

The default scheme is the nine-level mean / standard-deviation scheme used by
the CMQFS paper (Zhao, Wu, Chen, Zhang and Bai, "Feature selection with
community modularity", Neurocomputing 151 (2015) 376-389, section 5.2, after
its references [27, 52], in the mRMR line of work of Peng et al.).
"""
import numpy as np

__all__ = [
    "discretize",
    "mu_sigma_levels",
    "equal_width_levels",
    "equal_frequency_levels",
    "factorize_columns",
    "discrete_columns",
    "information_codes",
]

#: Allowed values of ``method`` in :func:`discretize`.
METHODS = ("mu_sigma", "equal_width", "equal_frequency", "none")

#: Number of levels of the mu/sigma scheme (codes -4..4 shifted to 0..8).
MU_SIGMA_LEVELS = 9

# Multiples of sigma at which the mu/sigma intervals end, to the right of mu;
# the same multiples with a minus sign end the intervals to the left.
_MU_SIGMA_EDGES = (0.5, 1.5, 2.5, 3.5)


def _check_X(X):
    """Return ``X`` as a 2-D float64 array of finite values, or raise ValueError."""
    try:
        array = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"X: cannot be converted to float ({error}); allowed: a 2-D array of numbers") from None
    if array.ndim != 2:
        raise ValueError(f"X: must be a 2-D array (n_samples, n_features); got {array.ndim}-D")
    if array.shape[0] < 1:
        raise ValueError("X: must have at least one row (sample); got 0 rows")
    if not np.all(np.isfinite(array)):
        rows, cols = np.nonzero(~np.isfinite(array))
        raise ValueError(
            f"X: must contain only finite values; got {array[rows[0], cols[0]]} at row {rows[0]}, "
            f"column {cols[0]} ({rows.size} non-finite value(s) in all)"
        )
    return array


def _check_n_bins(n_bins):
    """Return ``n_bins`` as an int >= 2, or raise ValueError."""
    if isinstance(n_bins, (bool, np.bool_)) or not isinstance(n_bins, (int, np.integer)) or n_bins < 2:
        raise ValueError(f"n_bins: must be an integer >= 2; got {n_bins!r}")
    return int(n_bins)


def _feature_major(X):
    """The columns of a checked ``X`` as contiguous rows: shape (n_features, n_samples)."""
    return np.ascontiguousarray(X.T)


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
    level 0 (code 4) everywhere, and so does a column whose computed ``sigma``
    underflows to 0 (subnormal differences).

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
        Finite numbers.

    Returns
    -------
    codes : ndarray of int32, shape (n_features, n_samples)
        Codes 0..8 (level + 4), feature-major and C-contiguous.
    levels : ndarray of int32, shape (n_features,)
        9 for every feature (codes need not use all nine levels).

    Raises
    ------
    ValueError
        If ``X`` is not 2-D, has no rows, or has non-finite values.
    """
    F = _feature_major(_check_X(X))
    n_features, n_samples = F.shape
    codes = np.full((n_features, n_samples), MU_SIGMA_LEVELS // 2, dtype=np.int32)
    varying = F.min(axis=1) < F.max(axis=1)  # constant columns stay at level 0
    if np.any(varying):
        G = F[varying]
        with np.errstate(over="ignore"):  # overflow is reported below
            mu = G.mean(axis=1, keepdims=True)
            sigma = G.std(axis=1, ddof=1, keepdims=True)
        if not (np.all(np.isfinite(mu)) and np.all(np.isfinite(sigma))):
            raise ValueError("X: has values so large that a column's mean or standard deviation overflows; rescale X")
        level = np.zeros(G.shape, dtype=np.int32)
        for t in _MU_SIGMA_EDGES:
            level += G > mu + t * sigma
            level -= G < mu - t * sigma
        # a non-constant column whose sigma underflows to 0 is treated as constant
        level[sigma[:, 0] == 0] = 0
        codes[varying] = level + MU_SIGMA_LEVELS // 2
    return codes, np.full(n_features, MU_SIGMA_LEVELS, dtype=np.int32)


def _codes_from_cuts(values, cuts):
    """Codes of ``values`` for increasing interior cut points: bins (cut[k-1], cut[k]].

    The code of ``v`` is the number of cut points strictly below ``v``, so a
    value equal to a cut point goes to the lower bin (right-closed bins, as R's
    ``cut`` and pandas' ``cut``/``qcut``).
    """
    return np.searchsorted(cuts, values, side="left").astype(np.int32)


def equal_width_levels(X, n_bins):
    """Discretise each column into ``n_bins`` bins of equal width.

    The range ``[min, max]`` of a column is cut at ``min + k (max - min) / n_bins``
    for ``k = 1 .. n_bins-1`` (computed in floating point, so a value within
    rounding of a cut point may fall on either side); bins are right-closed,
    ``(cut_{k-1}, cut_k]``, with the minimum in the first bin, as R's ``cut``
    with ``include.lowest = TRUE``.
    A constant column gets code 0 everywhere.  This is one of the usual
    alternatives to the paper's scheme (:func:`mu_sigma_levels`); it is not
    used by the paper.

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
        Finite numbers.
    n_bins : int
        Number of bins (>= 2).

    Returns
    -------
    codes : ndarray of int32, shape (n_features, n_samples)
        Codes 0..n_bins-1, feature-major and C-contiguous.
    levels : ndarray of int32, shape (n_features,)
        ``n_bins`` for every feature.

    Raises
    ------
    ValueError
        If ``n_bins`` is not an integer >= 2, or ``X`` is not a 2-D array of
        finite numbers with at least one row.
    """
    n_bins = _check_n_bins(n_bins)
    F = _feature_major(_check_X(X))
    codes = np.zeros(F.shape, dtype=np.int32)
    k = np.arange(1, n_bins)
    for j, column in enumerate(F):
        low, high = column.min(), column.max()
        if low < high:
            width = high / n_bins - low / n_bins  # (high - low) / n_bins without overflow
            codes[j] = _codes_from_cuts(column, low + k * width)
    return codes, np.full(F.shape[0], n_bins, dtype=np.int32)


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
    bins hold more samples than others and some may be empty.  A constant column gets code 0 everywhere.  Like
    :func:`equal_width_levels` this is an alternative to the paper's scheme.

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
        Finite numbers.
    n_bins : int
        Number of bins (>= 2).

    Returns
    -------
    codes : ndarray of int32, shape (n_features, n_samples)
        Codes 0..n_bins-1, feature-major and C-contiguous.
    levels : ndarray of int32, shape (n_features,)
        ``n_bins`` for every feature.

    Raises
    ------
    ValueError
        If ``n_bins`` is not an integer >= 2, or ``X`` is not a 2-D array of
        finite numbers with at least one row.
    """
    n_bins = _check_n_bins(n_bins)
    F = _feature_major(_check_X(X))
    codes = np.zeros(F.shape, dtype=np.int32)
    probabilities = np.arange(1, n_bins) / n_bins
    for j, column in enumerate(F):
        if column.min() < column.max():
            cuts = np.quantile(column, probabilities, method="inverted_cdf")
            codes[j] = _codes_from_cuts(column, cuts)
    return codes, np.full(F.shape[0], n_bins, dtype=np.int32)


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
    codes : ndarray of int32, shape (n_features, n_samples)
        Feature-major and C-contiguous.
    levels : ndarray of int32, shape (n_features,)
        Number of distinct values of each column (every level is used).

    Raises
    ------
    ValueError
        If ``X`` is not a 2-D array of finite numbers with at least one row.
    """
    F = _feature_major(_check_X(X))
    codes = np.empty(F.shape, dtype=np.int32)
    levels = np.empty(F.shape[0], dtype=np.int32)
    for j, column in enumerate(F):
        values, inverse = np.unique(column, return_inverse=True)
        codes[j] = inverse
        levels[j] = values.size
    return codes, levels


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
        Number of bins (>= 2); required by ``'equal_width'`` and
        ``'equal_frequency'`` and not allowed with the other methods.

    Returns
    -------
    codes : ndarray of int32, shape (n_features, n_samples)
        Feature-major, C-contiguous codes in ``0 .. levels[j]-1``.
    levels : ndarray of int32, shape (n_features,)
        Number of levels of each feature.

    Raises
    ------
    ValueError
        For an unknown ``method``, a missing, superfluous or invalid
        ``n_bins``, or an ``X`` that is not a 2-D array of finite numbers.
    """
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"method: must be one of {', '.join(repr(m) for m in METHODS)}; got {method!r}")
    if method in ("equal_width", "equal_frequency"):
        if n_bins is None:
            raise ValueError(f"n_bins: required by method={method!r} (an integer >= 2); got None")
        if method == "equal_width":
            return equal_width_levels(X, n_bins)
        return equal_frequency_levels(X, n_bins)
    if n_bins is not None:
        raise ValueError(
            f"n_bins: only used with method='equal_width' or 'equal_frequency'; got n_bins={n_bins!r} "
            f"with method={method!r}"
        )
    if method == "mu_sigma":
        return mu_sigma_levels(X)
    return factorize_columns(X)


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
    F = _feature_major(_check_X(X))
    mask = np.zeros(F.shape[0], dtype=bool)
    for j, column in enumerate(F):
        if np.all(column == np.round(column)):
            mask[j] = np.unique(column).size <= max_levels
    return mask


def information_codes(X, discretization="mu_sigma", n_bins=None):
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

    Returns
    -------
    codes : ndarray of int32, shape (n_features, n_samples)
    levels : ndarray of int32, shape (n_features,)
    as_is : ndarray of bool, shape (n_features,)
        The columns used as they are (see :func:`discrete_columns`).
    """
    if discretization == "none":
        raise ValueError("discretization: must be one of 'mu_sigma', 'equal_width', 'equal_frequency'; "
                         "got 'none' (discrete columns are detected and used as they are anyway)")
    codes, levels = discretize(X, method=discretization, n_bins=n_bins)
    as_is = discrete_columns(X)
    if as_is.any():
        as_is_codes, as_is_levels = factorize_columns(np.asarray(X, dtype=np.float64)[:, as_is])
        codes[as_is] = as_is_codes
        levels[as_is] = as_is_levels
    return codes, levels, as_is

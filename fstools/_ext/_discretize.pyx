# cython: language_level=3
"""Continuous columns discretised in one kernel pass per block of columns.

:func:`discretize_columns` codes chosen columns of a float64 matrix ``X``
(n_samples x n_features, any strides: C- or F-ordered, or a strided view) by
one of the schemes of :mod:`fstools.core.discretize` and writes the codes
straight into the rows of the feature-major codes array.  Per column, with
the same floating-point operations in the same order as the NumPy code these
kernels replaced (so the codes are bitwise those):

* ``MU_SIGMA`` -- the nine-level scheme of Zhao, Wu, Chen, Zhang and Bai,
  "Feature selection with community modularity" (Neurocomputing 151, 2015,
  section 5.2).  The column is scaled by the power of two that brings its
  largest absolute value into [0.5, 1) (exact;
  :func:`fstools.core.arrays.scaled_to_unit`: a multiplication by ``2^-e``,
  or ``ldexp`` where ``2^-e`` overflows).  ``mu`` is the mean and ``sigma``
  the standard deviation with divisor ``n - 1``, each sum being NumPy's
  pairwise summation (:func:`pairwise_sum`) started from 0.0, as
  ``numpy.mean`` / ``numpy.std(ddof=1)`` compute them on a contiguous row:
  ``mu = sum(g) / n``, ``sigma = sqrt(sum((g - mu)^2) / (n - 1))``.  The
  level of a value ``g`` is the number of edges ``t`` with ``g > mu + t
  sigma`` minus the number with ``g < mu - t sigma``, the products ``t
  sigma`` rounded before the addition (this extension is compiled with
  ``-ffp-contract=off``: no fused multiply-add); the code is level + 4.  The
  comparisons are a C loop (``fstools_mu_sigma_levels``) that the compiler
  vectorises, with an AVX2 clone chosen at load time where the CPU has it
  (``FSTOOLS_VECTOR_CLONES``: the same comparisons, wider vectors).
* ``EQUAL_WIDTH`` -- ``n_bins`` bins of equal width: min and max scaled by
  ``ldexp(., -e)``, ``width = high / n_bins - low / n_bins``, cut points
  ``low + k * width`` (k = 1 .. n_bins-1) and the code of a value the number
  of cut points strictly below the scaled value.
* ``EQUAL_FREQUENCY`` -- the cut points are order statistics of the column
  (``ranks``: their 0-based positions in the sorted column, computed by the
  caller with ``numpy.quantile(..., method="inverted_cdf")`` on ``0 .. n-1``),
  the code of a value the number of cut points strictly below it.

A constant column (min == max) gets the scheme's middle level: code 4 for
MU_SIGMA, 0 for the others.

NumPy versions: the pairwise summation is the one of NumPy's
``numpy/_core/src/umath/loops_utils.h.src``.  NumPy 2.3 and later apply it to
the whole row; NumPy 1.25 to 2.2 split a reduction longer than the ufunc
buffer (8192 values) into chunks summed one after another (checked with
1.25.2, 2.0.2, 2.2.6, 2.3.5 and 2.4.6).  The kernel sums the whole column, so
its codes are those of every NumPy >= 1.25 for columns of up to 8192 values,
and those of NumPy >= 2.3 beyond (they no longer depend on the NumPy version).

Non-finite values: found in the pass that takes each column's range; the
call raises a ValueError naming the first column that has one.

Threads: a work item is a block of up to :data:`BLOCK_WIDTH` of the chosen
columns (at most :data:`BLOCK_VALUES` values), copied into a per-thread
buffer (one strided read of ``X``; C-ordered input by tiles of eight rows, so
that each column of the buffer receives a whole cache line at a time), then
coded column by column in the buffer; each column is computed by one thread
with the same operations whatever the thread count, so the codes do not
depend on ``n_threads``.  Ctrl-C is looked at between work items.
"""
import numpy as np

from cython.parallel cimport parallel, prange
from libc.math cimport fabs, frexp, isfinite, ldexp, sqrt
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, intptr_t
from libc.stdlib cimport free, malloc, qsort

from fstools._ext._common cimport (NON_FINITE, OK, OUT_OF_MEMORY, SignalCheck, check_double_strides,
                                   check_threads, prefetch, raise_if_stopped, signal_check_init,
                                   stop_requested)
from fstools._ext._typedefs cimport code_t

#: Scheme numbers of :func:`discretize_columns`.
MU_SIGMA = 0
EQUAL_WIDTH = 1
EQUAL_FREQUENCY = 2

#: Chosen columns per work item (64 doubles: 512 bytes of a C-ordered row read at a time).
BLOCK_WIDTH = 64

#: Largest number of values (rows x columns) of a work item's copy of ``X`` (1 MiB: it stays
#: in the L2 cache while its columns are coded).
BLOCK_VALUES = 1 << 17

#: Below this many values NumPy's pairwise sum is a plain loop; up to PAIRWISE_BLOCK values
#: it uses eight accumulators; above, it splits the values in two and recurses.
cdef enum:
    PAIRWISE_UNROLL = 8
    PAIRWISE_BLOCK = 128

#: Edges of the MU_SIGMA scheme (multiples of sigma on each side of mu: nine levels; the C
#: loop fstools_mu_sigma_levels is written for four).
cdef enum:
    N_EDGES = 4

#: Rows of a C-ordered X gathered together (8 doubles: one cache line of each block column).
cdef enum:
    GATHER_ROWS = 8
    # C-ordered X: the gather asks for the values this many rows ahead.
    PREFETCH_ROWS = 64

cdef enum:
    SCHEME_MU_SIGMA = 0
    SCHEME_EQUAL_WIDTH = 1
    SCHEME_EQUAL_FREQUENCY = 2


cdef double pairwise_sum(const double* a, Py_ssize_t n) noexcept nogil:
    """Sum of ``a[0:n]`` in NumPy's pairwise order (``@TYPE@_pairwise_sum`` of NumPy's
    ``loops_utils.h.src``)."""
    cdef Py_ssize_t i, half
    cdef double result
    cdef double r0, r1, r2, r3, r4, r5, r6, r7
    if n < PAIRWISE_UNROLL:
        result = -0.0
        for i in range(n):
            result += a[i]
        return result
    if n <= PAIRWISE_BLOCK:
        r0 = a[0]
        r1 = a[1]
        r2 = a[2]
        r3 = a[3]
        r4 = a[4]
        r5 = a[5]
        r6 = a[6]
        r7 = a[7]
        i = 8
        while i < n - n % 8:
            r0 += a[i]
            r1 += a[i + 1]
            r2 += a[i + 2]
            r3 += a[i + 3]
            r4 += a[i + 4]
            r5 += a[i + 5]
            r6 += a[i + 6]
            r7 += a[i + 7]
            i += 8
        result = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            result += a[i]
            i += 1
        return result
    half = n // 2
    half -= half % 8
    return pairwise_sum(a, half) + pairwise_sum(a + half, n - half)


cdef inline double squared_deviation(double value, double mu) noexcept nogil:
    cdef double deviation = value - mu
    return deviation * deviation


cdef double pairwise_sum_of_squares(const double* a, Py_ssize_t n, double mu) noexcept nogil:
    """:func:`pairwise_sum` of the values ``(a[i] - mu)^2`` (each rounded as NumPy's ``subtract``
    then ``square`` round it), computed on the fly instead of from an array of them."""
    cdef Py_ssize_t i, half
    cdef double result
    cdef double r0, r1, r2, r3, r4, r5, r6, r7
    if n < PAIRWISE_UNROLL:
        result = -0.0
        for i in range(n):
            result += squared_deviation(a[i], mu)
        return result
    if n <= PAIRWISE_BLOCK:
        r0 = squared_deviation(a[0], mu)
        r1 = squared_deviation(a[1], mu)
        r2 = squared_deviation(a[2], mu)
        r3 = squared_deviation(a[3], mu)
        r4 = squared_deviation(a[4], mu)
        r5 = squared_deviation(a[5], mu)
        r6 = squared_deviation(a[6], mu)
        r7 = squared_deviation(a[7], mu)
        i = 8
        while i < n - n % 8:
            r0 += squared_deviation(a[i], mu)
            r1 += squared_deviation(a[i + 1], mu)
            r2 += squared_deviation(a[i + 2], mu)
            r3 += squared_deviation(a[i + 3], mu)
            r4 += squared_deviation(a[i + 4], mu)
            r5 += squared_deviation(a[i + 5], mu)
            r6 += squared_deviation(a[i + 6], mu)
            r7 += squared_deviation(a[i + 7], mu)
            i += 8
        result = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            result += squared_deviation(a[i], mu)
            i += 1
        return result
    half = n // 2
    half -= half % 8
    return pairwise_sum_of_squares(a, half, mu) + pairwise_sum_of_squares(a + half, n - half, mu)


cdef double numpy_sum(const double* a, Py_ssize_t n) noexcept nogil:
    """``numpy.add.reduce`` of a contiguous row: the identity 0.0 plus the pairwise sum of all values."""
    cdef double total = 0.0
    total += pairwise_sum(a, n)
    return total


cdef double mean_and_sigma(const double* g, Py_ssize_t n, double* sigma) noexcept nogil:
    """The mean of ``g[0:n]`` (returned) and its standard deviation with divisor n - 1 (``sigma``),
    as ``numpy.mean`` and ``numpy.std(ddof=1)`` (``n >= 2``): the sums from 0.0, as
    ``numpy.add.reduce``."""
    cdef double mu = numpy_sum(g, n) / <double> n
    cdef double squares = 0.0
    squares += pairwise_sum_of_squares(g, n, mu)
    sigma[0] = sqrt(squares / <double> (n - 1))
    return mu


cdef inline Py_ssize_t count_below(const double* cuts, Py_ssize_t n_cuts, double value) noexcept nogil:
    """Number of the non-decreasing ``cuts[0:n_cuts]`` (n_cuts >= 1) strictly below ``value``.

    A binary search whose steps depend on ``n_cuts`` only (the comparison picks the half
    without a branch): on data in random order a branch there is mispredicted half the
    time, which cost more than the rest of the scheme."""
    cdef const double* first = cuts
    cdef Py_ssize_t size = n_cuts
    cdef Py_ssize_t half
    while size > 1:
        half = size // 2
        first = first + half * (first[half - 1] < value)
        size -= half
    return (first - cuts) + (first[0] < value)


cdef bint column_range(const double* values, Py_ssize_t n, double* low, double* high) noexcept nogil:
    """Minimum and maximum of ``values[0:n]``; False when a value is not finite.

    Eight independent lanes (values i, i + 8, ...), so that no comparison waits for the one
    before it; ``value - value`` is 0 for a finite value and NaN otherwise, and a lane's sum
    of them stays 0 only when all its values are finite."""
    cdef Py_ssize_t i, lane
    cdef double smallest[8]
    cdef double largest[8]
    cdef double check[8]
    cdef double value
    for lane in range(8):
        smallest[lane] = values[0]
        largest[lane] = values[0]
        check[lane] = 0.0
    i = 0
    while i + 8 <= n:
        for lane in range(8):
            value = values[i + lane]
            smallest[lane] = value if value < smallest[lane] else smallest[lane]
            largest[lane] = value if value > largest[lane] else largest[lane]
            check[lane] += value - value
        i += 8
    while i < n:
        value = values[i]
        smallest[0] = value if value < smallest[0] else smallest[0]
        largest[0] = value if value > largest[0] else largest[0]
        check[0] += value - value
        i += 1
    for lane in range(1, 8):
        smallest[0] = smallest[lane] if smallest[lane] < smallest[0] else smallest[0]
        largest[0] = largest[lane] if largest[lane] > largest[0] else largest[0]
        check[0] += check[lane]
    low[0] = smallest[0]
    high[0] = largest[0]
    return check[0] == 0.0


cdef void scale_to_unit(double* values, Py_ssize_t n, int exponent) noexcept nogil:
    """``values * 2^-exponent`` in place, as :func:`fstools.core.arrays.scaled_to_unit`: a
    multiplication by the power of two, or ``ldexp`` where it overflows (subnormal columns)."""
    cdef Py_ssize_t i
    cdef double factor = ldexp(1.0, -exponent)
    if isfinite(factor):
        for i in range(n):
            values[i] = values[i] * factor
    else:
        for i in range(n):
            values[i] = ldexp(values[i], -exponent)


cdef extern from *:
    """
    /* The levels of the mu/sigma scheme, in C for the restrict qualifiers and the AVX2 clone:
       level = 4 + #{k: g > upper[k]} - #{k: g < lower[k]} (four edges), the comparisons
       exact.  The loop vectorises with SSE4.2 / AVX2, the levels in 64-bit lanes as wide as the
       compared doubles (narrowing every comparison to bytes instead cost a fifth more); then
       narrowed to bytes in one pass. */
    FSTOOLS_VECTOR_CLONES
    static void fstools_mu_sigma_levels(const double* restrict g, Py_ssize_t n,
                                        const double* restrict upper, const double* restrict lower,
                                        int64_t* restrict levels)
    {
        const double u0 = upper[0], u1 = upper[1], u2 = upper[2], u3 = upper[3];
        const double l0 = lower[0], l1 = lower[1], l2 = lower[2], l3 = lower[3];
        Py_ssize_t i;
        for (i = 0; i < n; ++i) {
            const double x = g[i];
            int64_t above = (int64_t) (x > u0) + (int64_t) (x > u1) + (int64_t) (x > u2) + (int64_t) (x > u3);
            int64_t below = (int64_t) (x < l0) + (int64_t) (x < l1) + (int64_t) (x < l2) + (int64_t) (x < l3);
            levels[i] = 4 + above - below;
        }
    }

    FSTOOLS_VECTOR_CLONES
    static void fstools_levels_to_bytes(const int64_t* restrict levels, Py_ssize_t n, int8_t* restrict out)
    {
        Py_ssize_t i;
        for (i = 0; i < n; ++i) {
            out[i] = (int8_t) levels[i];
        }
    }
    """
    void mu_sigma_levels "fstools_mu_sigma_levels"(const double* g, Py_ssize_t n, const double* upper,
                                                   const double* lower, int64_t* levels) noexcept nogil
    void levels_to_bytes "fstools_levels_to_bytes"(const int64_t* levels, Py_ssize_t n,
                                                   int8_t* out) noexcept nogil


cdef void mu_sigma_column(double* values, Py_ssize_t n, double low, double high, const double* edges,
                          int64_t* levels, code_t* out) noexcept nogil:
    """Nine-level codes of one column of range [low, high] (``values`` are overwritten by the
    scaled column; ``levels``: scratch of n integers)."""
    cdef Py_ssize_t i, k
    cdef double mu, sigma, step, value
    cdef double upper[N_EDGES]
    cdef double lower[N_EDGES]
    cdef int exponent
    cdef code_t middle = <code_t> N_EDGES
    if not low < high:
        for i in range(n):
            out[i] = middle
        return
    frexp(fabs(low) if fabs(low) > fabs(high) else fabs(high), &exponent)
    scale_to_unit(values, n, exponent)
    mu = mean_and_sigma(values, n, &sigma)
    if sigma == 0:  # defensive, as the NumPy code: a varying scaled column has sigma > 0
        for i in range(n):
            out[i] = middle
        return
    for k in range(N_EDGES):
        step = edges[k] * sigma
        upper[k] = mu + step
        lower[k] = mu - step
    mu_sigma_levels(values, n, upper, lower, levels)
    if code_t is int8_t:
        levels_to_bytes(levels, n, out)
    else:
        for i in range(n):
            out[i] = <code_t> levels[i]


cdef void equal_width_column(const double* values, Py_ssize_t n, double low, double high, Py_ssize_t n_bins,
                             double* cuts, code_t* out) noexcept nogil:
    """Equal-width codes of one column of range [low, high]; ``cuts``: scratch of n_bins - 1 doubles."""
    cdef Py_ssize_t i, k
    cdef double width, factor, scaled
    cdef int exponent
    if not low < high:
        for i in range(n):
            out[i] = 0
        return
    frexp(fabs(low) if fabs(low) > fabs(high) else fabs(high), &exponent)
    low = ldexp(low, -exponent)
    high = ldexp(high, -exponent)
    width = high / <double> n_bins - low / <double> n_bins  # (high - low) / n_bins without overflow
    for k in range(1, n_bins):
        cuts[k - 1] = low + <double> k * width
    # ldexp and the multiplication by an exact power of two round alike (correctly); ldexp
    # where the power of two overflows
    factor = ldexp(1.0, -exponent)
    if isfinite(factor):
        for i in range(n):
            scaled = values[i] * factor
            out[i] = <code_t> count_below(cuts, n_bins - 1, scaled)
    else:
        for i in range(n):
            scaled = ldexp(values[i], -exponent)
            out[i] = <code_t> count_below(cuts, n_bins - 1, scaled)


cdef int compare_doubles(const void* a, const void* b) noexcept nogil:
    """qsort order of finite doubles."""
    cdef double x = (<const double*> a)[0]
    cdef double y = (<const double*> b)[0]
    if x < y:
        return -1
    if x > y:
        return 1
    return 0


cdef void equal_frequency_column(const double* values, Py_ssize_t n, double low, double high,
                                 const intptr_t* ranks, Py_ssize_t n_cuts, double* ordered, double* cuts,
                                 code_t* out) noexcept nogil:
    """Equal-frequency codes of one column of range [low, high]: the cut points are the order
    statistics ``ranks``; ``ordered``: scratch of n doubles, ``cuts``: of n_cuts doubles."""
    cdef Py_ssize_t i, k
    if not low < high:
        for i in range(n):
            out[i] = 0
        return
    for i in range(n):
        ordered[i] = values[i]
    qsort(ordered, n, sizeof(double), compare_doubles)
    for k in range(n_cuts):
        cuts[k] = ordered[ranks[k]]
    for i in range(n):
        out[i] = <code_t> count_below(cuts, n_cuts, values[i])


cdef struct Scheme:
    int kind
    const double* edges
    Py_ssize_t n_bins
    const intptr_t* ranks


cdef int code_block(const double* base, Py_ssize_t row_stride, Py_ssize_t column_stride,
                    Py_ssize_t n, const intptr_t* columns, Py_ssize_t first, Py_ssize_t width,
                    const Scheme* scheme, double* block, double* scratch, double* cuts,
                    code_t* codes) noexcept nogil:
    """Code the chosen columns ``columns[first:first + width]`` into their rows of ``codes``
    (row ``columns[c]``, n codes each); ``block``: width * n doubles, ``scratch``: n,
    ``cuts``: n_bins.  Returns OK or NON_FINITE."""
    cdef Py_ssize_t i, c, start, stop
    cdef double low, high
    cdef const double* source
    # one strided read of X into the block; C-ordered X by tiles of GATHER_ROWS rows, so that
    # each column of the block receives a whole cache line at a time
    if column_stride == 1:
        start = 0
        while start < n:
            stop = start + GATHER_ROWS if n - start > GATHER_ROWS else n
            for c in range(width):
                source = base + columns[first + c]
                for i in range(start, stop):
                    # the same value PREFETCH_ROWS rows on: a block's columns are short runs of
                    # long rows, which the hardware does not read ahead (10,000 x 2,000: 13
                    # columns, 104 bytes of each row of 16 KB)
                    if i + PREFETCH_ROWS < n:
                        prefetch(source + (i + PREFETCH_ROWS) * row_stride)
                    block[c * n + i] = source[i * row_stride]
            start = stop
    else:
        for c in range(width):
            source = base + columns[first + c] * column_stride
            for i in range(n):
                block[c * n + i] = source[i * row_stride]
    for c in range(width):
        if not column_range(block + c * n, n, &low, &high):
            return NON_FINITE
        if scheme.kind == SCHEME_MU_SIGMA:
            mu_sigma_column(block + c * n, n, low, high, scheme.edges, <int64_t*> scratch,
                            codes + columns[first + c] * n)
        elif scheme.kind == SCHEME_EQUAL_WIDTH:
            equal_width_column(block + c * n, n, low, high, scheme.n_bins, cuts, codes + columns[first + c] * n)
        else:
            equal_frequency_column(block + c * n, n, low, high, scheme.ranks, scheme.n_bins - 1, scratch, cuts,
                                   codes + columns[first + c] * n)
    return OK


def discretize_columns(X, columns, codes, int scheme, Py_ssize_t n_bins=0, edges=None, ranks=None,
                       int n_threads=1):
    """Code the chosen columns of ``X`` by one scheme, writing into rows of ``codes``.

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        Any strides (C- or F-ordered, views); the chosen columns must be finite.
    columns : ndarray of intp, shape (n_chosen,)
        The columns to code, strictly increasing, in ``0 .. n_features-1``.
    codes : ndarray of int8, int16 or int32, shape (n_features, n_samples), C-contiguous
        Row ``j`` receives the codes of column ``j`` for each chosen ``j``; the other rows
        are left untouched.
    scheme : int
        :data:`MU_SIGMA`, :data:`EQUAL_WIDTH` or :data:`EQUAL_FREQUENCY`.
    n_bins : int
        Bins of EQUAL_WIDTH and EQUAL_FREQUENCY (2 or more; the codes' dtype must hold
        ``n_bins - 1``); unused by MU_SIGMA.
    edges : ndarray of float64, optional
        MU_SIGMA's four multiples of sigma, increasing and positive (codes 0 .. 8).
    ranks : ndarray of intp, shape (n_bins - 1,), optional
        EQUAL_FREQUENCY's cut points as 0-based positions in the sorted column,
        non-decreasing, in ``0 .. n_samples-1``.
    n_threads : int
        OpenMP threads over blocks of columns; the codes do not depend on it.

    Raises
    ------
    ValueError
        For arguments of the wrong type, shape or range (naming the argument), or a
        non-finite value in a chosen column (naming it).
    """
    check_threads(n_threads)
    if not isinstance(X, np.ndarray) or X.ndim != 2 or X.dtype != np.float64:
        raise ValueError(f"X: must be a 2-D NumPy array of float64; got {_describe(X)}")
    if X.shape[0] < 1:
        raise ValueError("X: must have at least one row (sample); got 0 rows")
    check_double_strides("X", X.strides[0], X.strides[1])
    if (not isinstance(columns, np.ndarray) or columns.ndim != 1 or columns.dtype != np.intp):
        raise ValueError(f"columns: must be a 1-D NumPy array of intp; got {_describe(columns)}")
    if columns.size and (columns[0] < 0 or columns[columns.size - 1] >= X.shape[1] or np.any(np.diff(columns) <= 0)):
        raise ValueError(f"columns: must be strictly increasing column indices in 0..{X.shape[1] - 1}")
    if (not isinstance(codes, np.ndarray) or codes.ndim != 2
            or codes.dtype not in (np.int8, np.int16, np.int32)
            or not codes.flags.c_contiguous or not codes.flags.writeable):
        raise ValueError(f"codes: must be a writeable C-contiguous 2-D NumPy array of int8, int16 or "
                         f"int32; got {_describe(codes)}")
    if codes.shape[0] != X.shape[1] or codes.shape[1] != X.shape[0]:
        raise ValueError(f"codes: must have shape ({X.shape[1]}, {X.shape[0]}) (features x samples of X); "
                         f"got {codes.shape}")
    top = np.iinfo(codes.dtype).max
    edge_values = np.zeros(1)
    rank_values = np.zeros(1, dtype=np.intp)
    if scheme == MU_SIGMA:
        edge_values = np.ascontiguousarray(edges, dtype=np.float64) if edges is not None else None
        if (edge_values is None or edge_values.ndim != 1 or edge_values.size != N_EDGES
                or not np.all(edge_values > 0) or np.any(np.diff(edge_values) <= 0)):
            raise ValueError(f"edges: must be {N_EDGES} increasing positive numbers; got {edges!r}")
        if 2 * edge_values.size > top:
            raise ValueError(f"codes: dtype {codes.dtype} cannot hold the codes 0..{2 * edge_values.size}")
    elif scheme in (EQUAL_WIDTH, EQUAL_FREQUENCY):
        if n_bins < 2 or n_bins - 1 > top:
            raise ValueError(f"n_bins: must be >= 2 and at most {top + 1} for codes of dtype {codes.dtype}; "
                             f"got {n_bins}")
        if scheme == EQUAL_FREQUENCY:
            if (not isinstance(ranks, np.ndarray) or ranks.ndim != 1 or ranks.dtype != np.intp
                    or ranks.size != n_bins - 1):
                raise ValueError(f"ranks: must be a 1-D NumPy array of {n_bins - 1} intp; got {_describe(ranks)}")
            if ranks[0] < 0 or ranks[ranks.size - 1] >= X.shape[0] or np.any(np.diff(ranks) < 0):
                raise ValueError(f"ranks: must be non-decreasing positions in 0..{X.shape[0] - 1}")
            rank_values = np.ascontiguousarray(ranks)
    else:
        raise ValueError(f"scheme: must be {MU_SIGMA} (MU_SIGMA), {EQUAL_WIDTH} (EQUAL_WIDTH) or "
                         f"{EQUAL_FREQUENCY} (EQUAL_FREQUENCY); got {scheme}")
    if columns.size == 0:
        return
    columns = np.ascontiguousarray(columns)
    status = _discretize_columns(X, columns, codes, scheme, n_bins, edge_values, rank_values, n_threads)
    if status[0] == OUT_OF_MEMORY:
        raise MemoryError("discretize_columns: cannot allocate the per-thread column buffers")
    if status[0] == NON_FINITE:
        bad = columns[int(status[1])]
        raise ValueError(f"X: must contain only finite values; column {bad} has a non-finite value")


def _describe(value):
    """Type, dtype and shape of an argument, for messages."""
    if isinstance(value, np.ndarray):
        return f"{value.ndim}-D array of {value.dtype}, shape {value.shape}"
    return type(value).__name__


def _discretize_columns(const double[:, :] X, const intptr_t[::1] columns, code_t[:, ::1] codes, int kind,
                        Py_ssize_t n_bins, const double[::1] edges, const intptr_t[::1] ranks,
                        int n_threads):
    """:func:`discretize_columns` for one code type, the arguments checked; returns
    (status, first column position with a non-finite value)."""
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t n_chosen = columns.shape[0]
    cdef Py_ssize_t row_stride = X.strides[0] // <Py_ssize_t> sizeof(double)
    cdef Py_ssize_t column_stride = X.strides[1] // <Py_ssize_t> sizeof(double)
    cdef Py_ssize_t width = max(1, min(BLOCK_WIDTH, BLOCK_VALUES // n))
    cdef Py_ssize_t n_blocks = (n_chosen + width - 1) // width
    cdef Py_ssize_t b, first, count
    cdef int32_t[::1] block_status = np.zeros(n_blocks, dtype=np.int32)
    cdef int32_t[::1] failed = np.zeros(1, dtype=np.int32)  # (a variable set in a parallel block is private)
    cdef double* block
    cdef double* scratch
    cdef double* cuts
    cdef Scheme scheme
    cdef SignalCheck check
    cdef const double* base = &X[0, 0]
    scheme.kind = kind
    scheme.edges = &edges[0]
    scheme.n_bins = n_bins
    scheme.ranks = &ranks[0]
    signal_check_init(&check, 1)
    with nogil, parallel(num_threads=n_threads):
        block = <double*> malloc((width * n + n + (n_bins if n_bins > 1 else 1)) * sizeof(double))
        if block == NULL:
            failed[0] = OUT_OF_MEMORY
        else:
            scratch = block + width * n
            cuts = scratch + n
            for b in prange(n_blocks, schedule='dynamic'):
                if failed[0] != OK or stop_requested(&check):
                    continue
                first = b * width
                count = width if n_chosen - first > width else n_chosen - first
                block_status[b] = code_block(base, row_stride, column_stride, n, &columns[0], first, count,
                                             &scheme, block, scratch, cuts, &codes[0, 0])
            free(block)
    raise_if_stopped(&check)
    if failed[0] != OK:
        return (OUT_OF_MEMORY, 0)
    for b in range(n_blocks):
        if block_status[b] != OK:
            first = b * width
            count = width if n_chosen - first > width else n_chosen - first
            for c in range(first, first + count):
                if not np.all(np.isfinite(np.asarray(X[:, columns[c]]))):
                    return (NON_FINITE, c)
    return (OK, 0)


def pairwise_sum_of(values):
    """:func:`numpy_sum` of a 1-D float64 array (for the tests): the identity 0.0 plus
    NumPy's pairwise sum of the values, as ``numpy.add.reduce`` of a contiguous row."""
    cdef const double[::1] view = _contiguous_values(values, 1)
    return numpy_sum(&view[0], view.shape[0])


def mean_and_sigma_of(values):
    """(mean, standard deviation with divisor n - 1) of a 1-D float64 array of at least two
    values, as the MU_SIGMA scheme computes them (for the tests)."""
    cdef const double[::1] view = _contiguous_values(values, 2)
    cdef double sigma = 0
    cdef double mu = mean_and_sigma(&view[0], view.shape[0], &sigma)
    return mu, sigma


def _contiguous_values(values, Py_ssize_t at_least):
    """``values`` as a contiguous 1-D float64 array of at least ``at_least`` values, or ValueError."""
    if not isinstance(values, np.ndarray) or values.ndim != 1 or values.dtype != np.float64:
        raise ValueError(f"values: must be a 1-D NumPy array of float64; got {_describe(values)}")
    if values.size < at_least:
        raise ValueError(f"values: must hold at least {at_least} value(s); got {values.size}")
    return np.ascontiguousarray(values)

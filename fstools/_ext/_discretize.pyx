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
  ``-ffp-contract=off``: no fused multiply-add); the code is level + 4.
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

Threads: a work item is a block of up to :data:`BLOCK_WIDTH` of the chosen
columns, copied into a per-thread buffer (one strided read of ``X``, row by
row for C-ordered input so that each cache line is read once), then coded
column by column; each column is computed by one thread with the same
operations whatever the thread count, so the codes do not depend on
``n_threads``.  Ctrl-C is looked at between work items.
"""
import numpy as np

from cython.parallel cimport parallel, prange
from libc.math cimport fabs, frexp, isfinite, ldexp, sqrt
from libc.stdint cimport int8_t, int16_t, int32_t, intptr_t
from libc.stdlib cimport free, malloc, qsort

from fstools._ext._common cimport (NON_FINITE, OK, OUT_OF_MEMORY, SignalCheck, check_double_strides,
                                   check_threads, raise_if_stopped, signal_check_init,
                                   stop_requested)
from fstools._ext._sorting cimport lower_bound
from fstools._ext._typedefs cimport code_t

#: Scheme numbers of :func:`discretize_columns`.
MU_SIGMA = 0
EQUAL_WIDTH = 1
EQUAL_FREQUENCY = 2

#: Chosen columns per work item (8 doubles: one 64-byte cache line of a C-ordered row).
BLOCK_WIDTH = 8

#: Largest number of values (rows x columns) of a work item's copy of ``X``.
BLOCK_VALUES = 1 << 18

#: Below this many values NumPy's pairwise sum is a plain loop; up to PAIRWISE_BLOCK values
#: it uses eight accumulators; above, it splits the values in two and recurses.
cdef enum:
    PAIRWISE_UNROLL = 8
    PAIRWISE_BLOCK = 128

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


cdef double numpy_sum(const double* a, Py_ssize_t n) noexcept nogil:
    """``numpy.add.reduce`` of a contiguous row: the identity 0.0 plus the pairwise sum of all values."""
    cdef double total = 0.0
    total += pairwise_sum(a, n)
    return total


cdef double mean_and_sigma(const double* g, Py_ssize_t n, double* squares, double* sigma) noexcept nogil:
    """The mean of ``g[0:n]`` (returned) and its standard deviation with divisor n - 1 (``sigma``),
    as ``numpy.mean`` and ``numpy.std(ddof=1)``; ``squares``: scratch of n doubles, ``n >= 2``."""
    cdef Py_ssize_t i
    cdef double mu = numpy_sum(g, n) / <double> n
    cdef double deviation
    for i in range(n):
        deviation = g[i] - mu
        squares[i] = deviation * deviation
    sigma[0] = sqrt(numpy_sum(squares, n) / <double> (n - 1))
    return mu


cdef bint column_range(const double* values, Py_ssize_t n, double* low, double* high) noexcept nogil:
    """Minimum and maximum of ``values[0:n]``; False when a value is not finite."""
    cdef Py_ssize_t i
    cdef double smallest = values[0]
    cdef double largest = values[0]
    cdef bint finite = True
    for i in range(n):
        finite = finite & (isfinite(values[i]) != 0)
        if values[i] < smallest:
            smallest = values[i]
        if values[i] > largest:
            largest = values[i]
    low[0] = smallest
    high[0] = largest
    return finite


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


cdef void mu_sigma_column(double* values, Py_ssize_t n, const double* edges, Py_ssize_t n_edges,
                          double* squares, code_t* out) noexcept nogil:
    """Nine-level codes of one column (``values`` are overwritten by the scaled column)."""
    cdef Py_ssize_t i, k
    cdef double low, high, mu, sigma, step
    cdef double upper[16]
    cdef double lower[16]
    cdef int exponent
    cdef int level
    cdef code_t middle = <code_t> n_edges
    column_range(values, n, &low, &high)
    if not low < high:
        for i in range(n):
            out[i] = middle
        return
    frexp(fabs(low) if fabs(low) > fabs(high) else fabs(high), &exponent)
    scale_to_unit(values, n, exponent)
    mu = mean_and_sigma(values, n, squares, &sigma)
    if sigma == 0:  # defensive, as the NumPy code: a varying scaled column has sigma > 0
        for i in range(n):
            out[i] = middle
        return
    for k in range(n_edges):
        step = edges[k] * sigma
        upper[k] = mu + step
        lower[k] = mu - step
    for i in range(n):
        level = 0
        for k in range(n_edges):
            if values[i] > upper[k]:
                level += 1
            if values[i] < lower[k]:
                level -= 1
        out[i] = <code_t> (level + n_edges)


cdef void equal_width_column(const double* values, Py_ssize_t n, Py_ssize_t n_bins, double* cuts,
                             code_t* out) noexcept nogil:
    """Equal-width codes of one column; ``cuts``: scratch of n_bins - 1 doubles."""
    cdef Py_ssize_t i, k
    cdef double low, high, width, factor, scaled
    cdef int exponent
    column_range(values, n, &low, &high)
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
            out[i] = <code_t> lower_bound(cuts, n_bins - 1, scaled)
    else:
        for i in range(n):
            scaled = ldexp(values[i], -exponent)
            out[i] = <code_t> lower_bound(cuts, n_bins - 1, scaled)


cdef int compare_doubles(const void* a, const void* b) noexcept nogil:
    """qsort order of finite doubles."""
    cdef double x = (<const double*> a)[0]
    cdef double y = (<const double*> b)[0]
    if x < y:
        return -1
    if x > y:
        return 1
    return 0


cdef void equal_frequency_column(const double* values, Py_ssize_t n, const intptr_t* ranks,
                                 Py_ssize_t n_cuts, double* ordered, double* cuts,
                                 code_t* out) noexcept nogil:
    """Equal-frequency codes of one column: the cut points are the order statistics ``ranks``;
    ``ordered``: scratch of n doubles, ``cuts``: of n_cuts doubles."""
    cdef Py_ssize_t i, k
    cdef double low, high
    column_range(values, n, &low, &high)
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
        out[i] = <code_t> lower_bound(cuts, n_cuts, values[i])


cdef struct Scheme:
    int kind
    const double* edges
    Py_ssize_t n_edges
    Py_ssize_t n_bins
    const intptr_t* ranks


cdef int code_block(const double* base, Py_ssize_t row_stride, Py_ssize_t column_stride,
                    Py_ssize_t n, const intptr_t* columns, Py_ssize_t first, Py_ssize_t width,
                    const Scheme* scheme, double* block, double* scratch, double* cuts,
                    code_t* codes) noexcept nogil:
    """Code the chosen columns ``columns[first:first + width]`` into their rows of ``codes``
    (row ``columns[c]``, n codes each); ``block``: width * n doubles, ``scratch``: n,
    ``cuts``: n_bins.  Returns OK or NON_FINITE."""
    cdef Py_ssize_t i, c
    cdef double low, high
    cdef const double* source
    # one strided read of X into the block, row by row when the rows are contiguous
    if column_stride == 1:
        for i in range(n):
            source = base + i * row_stride
            for c in range(width):
                block[c * n + i] = source[columns[first + c]]
    else:
        for c in range(width):
            source = base + columns[first + c] * column_stride
            for i in range(n):
                block[c * n + i] = source[i * row_stride]
    for c in range(width):
        if not column_range(block + c * n, n, &low, &high):
            return NON_FINITE
    for c in range(width):
        if scheme.kind == SCHEME_MU_SIGMA:
            mu_sigma_column(block + c * n, n, scheme.edges, scheme.n_edges, scratch,
                            codes + columns[first + c] * n)
        elif scheme.kind == SCHEME_EQUAL_WIDTH:
            equal_width_column(block + c * n, n, scheme.n_bins, cuts, codes + columns[first + c] * n)
        else:
            equal_frequency_column(block + c * n, n, scheme.ranks, scheme.n_bins - 1, scratch, cuts,
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
        MU_SIGMA's multiples of sigma, increasing and positive (at most 16; the codes run
        over ``0 .. 2 len(edges)``).
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
        if (edge_values is None or edge_values.ndim != 1 or not 1 <= edge_values.size <= 16
                or not np.all(edge_values > 0) or np.any(np.diff(edge_values) <= 0)):
            raise ValueError(f"edges: must be 1 to 16 increasing positive numbers; got {edges!r}")
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
    scheme.n_edges = edges.shape[0]
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
    cdef double[::1] squares = np.empty(view.shape[0])
    cdef double sigma = 0
    cdef double mu = mean_and_sigma(&view[0], view.shape[0], &squares[0], &sigma)
    return mu, sigma


def _contiguous_values(values, Py_ssize_t at_least):
    """``values`` as a contiguous 1-D float64 array of at least ``at_least`` values, or ValueError."""
    if not isinstance(values, np.ndarray) or values.ndim != 1 or values.dtype != np.float64:
        raise ValueError(f"values: must be a 1-D NumPy array of float64; got {_describe(values)}")
    if values.size < at_least:
        raise ValueError(f"values: must hold at least {at_least} value(s); got {values.size}")
    return np.ascontiguousarray(values)

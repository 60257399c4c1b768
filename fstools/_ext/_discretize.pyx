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

ROW TILES (``path="rows"``; ``"auto"`` for MU_SIGMA on a tall X whose column
stride is one element, when the column path would read its rows more than
once and they do not stay in the caches: :func:`_prefers_row_tiles`).
Gathering one column of a tall row-major X touches every cache line of X, so
the column path reads such an X once per block of columns (a million rows of
50 columns: one column per block, X read 50 times).  The row tiles read every
chosen column at a time, rows in order, in two passes over X (plus the rare
fix-ups below):

1. Per column: min, max, the finiteness check, the smallest nonzero
   magnitude, the pairwise sum of the UNSCALED values, and two shifted moment
   sums (an estimate of sigma).  The pairwise sum is NumPy's tree over the
   whole column, rebuilt in row order: the recursion of :func:`pairwise_sum`
   (halves split at a multiple of 8 above 128 values; a leaf of <= 128 values
   summed in 8 lanes, lane = row % 8, then ((r0 + r1) + (r2 + r3)) + ((r4 +
   r5) + (r6 + r7)) and the tail) is walked over row indices, the leaves
   reading whole rows, so that every column of a group is summed at once (a
   vector loop over the columns of a row) with the additions of NumPy's tree
   for each column.  The work items are the subtrees of at most
   :data:`TALL_ITEM_ROWS` rows (times a window of 128 columns); their sums are
   added afterwards along the same tree (:func:`combine_items`), so the sums
   do not depend on the threads.  The sum of the scaled values is the
   unscaled sum times 2^-e, bit for bit, when no unscaled partial sum
   overflows and every scaled value is exact: each addition then rounds the
   same significand in both (a sum in the subnormal range is exact); this is
   checked per column (``e + bits(n) <= 1021``; for e > 0 the smallest nonzero
   magnitude times 2^-e is normal), and the column goes to the column path
   otherwise (and when 2^-e overflows: columns of subnormal numbers).
2. Per value: g = x * 2^-e (the column path's exact scaling), d = g - mu,
   d^2 summed along the same tree (:func:`pairwise_sum_of_squares`), and the
   level 4 + sign(d) #{k: |d| > high_k} written to the codes eight rows at a
   time, from bands [low_k, high_k] = t_k sigma' -+ delta of distances around
   the estimate sigma' (delta = 2^-24 sigma' + 2^-44 |mu|).  Then sigma and
   the exact thresholds upper_k = mu + t_k sigma, lower_k = mu - t_k sigma
   are computed as the column path does.  d = fl(g - mu) is non-decreasing in
   g, so d > fl(upper_k - mu) implies g > upper_k and d < fl(upper_k - mu)
   implies g < upper_k (likewise for lower_k): where every band holds
   fl(upper_k - mu) and -fl(lower_k - mu), a value whose |d| is outside every
   band has its exact level.  The values inside a band (kept by position, up
   to 1024 per work item) are coded again against the exact thresholds, and a
   work item that found more is coded again whole (a pass over its rows
   only).  A column whose thresholds leave a band (an estimate too far off),
   or with sigma == 0, goes to the column path.

Memory of the row tiles: per work item 7 x 128 doubles and 1024 positions, per
thread 81 x 128 doubles, per column 20 doubles: far below X.

Tall contiguous columns (MU_SIGMA, a row stride of one element: Fortran order,
a DataFrame's values; at least DIRECT_MIN_ROWS rows) are coded where they
are (:func:`mu_sigma_direct`): the range, then the pairwise sums of the scaled
values ``x * 2^-e`` and of their squared deviations computed on the fly (the
same doubles as the scaled copy), then the levels a few thousand values at a
time; the copy of such a column and its int64 levels would not stay in the
L2 cache.  (Columns of subnormal numbers, scaled by ``ldexp``, from a copy.)

Threads: a work item is a block of up to :data:`BLOCK_WIDTH` of the chosen
columns (at most :data:`BLOCK_VALUES` values), copied into a per-thread
buffer (one strided read of ``X``; C-ordered input by tiles of eight rows, so
that each column of the buffer receives a whole cache line at a time), then
coded column by column in the buffer; each column is computed by one thread
with the same operations whatever the thread count, so the codes do not
depend on ``n_threads``.  The row tiles are threaded over their work items
(subtrees of rows times windows of columns), combined along the fixed tree:
neither do theirs.  Ctrl-C is looked at between work items.
"""
import numpy as np

from cython.parallel cimport parallel, prange
from libc.float cimport DBL_MIN
from libc.math cimport INFINITY, fabs, frexp, isfinite, ldexp, sqrt
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, intptr_t, uint8_t, uint64_t
from libc.string cimport memcpy
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


cdef enum:
    # Contiguous columns of at least this many values (MU_SIGMA) are coded straight from X
    # (:func:`mu_sigma_direct`) instead of from a copy: a copy of such a column (and its int64
    # levels) no longer stays in the L2 cache.
    DIRECT_MIN_ROWS = 16385
    # Values scaled and levelled at a time by mu_sigma_direct (16 KB of doubles and of levels).
    DIRECT_CHUNK = 2048
    # mu_sigma_direct: the column needs the copy (2^-e overflows: ldexp on each value).
    NEEDS_COPY = -1


cdef double pairwise_sum_scaled(const double* a, Py_ssize_t n, double factor) noexcept nogil:
    """:func:`pairwise_sum` of the values ``a[i] * factor``, each rounded as the multiplication of
    :func:`scale_to_unit` rounds it: the sum of the scaled copy, without the copy."""
    cdef Py_ssize_t i, half
    cdef double result
    cdef double r0, r1, r2, r3, r4, r5, r6, r7
    if n < PAIRWISE_UNROLL:
        result = -0.0
        for i in range(n):
            result += a[i] * factor
        return result
    if n <= PAIRWISE_BLOCK:
        r0 = a[0] * factor
        r1 = a[1] * factor
        r2 = a[2] * factor
        r3 = a[3] * factor
        r4 = a[4] * factor
        r5 = a[5] * factor
        r6 = a[6] * factor
        r7 = a[7] * factor
        i = 8
        while i < n - n % 8:
            r0 += a[i] * factor
            r1 += a[i + 1] * factor
            r2 += a[i + 2] * factor
            r3 += a[i + 3] * factor
            r4 += a[i + 4] * factor
            r5 += a[i + 5] * factor
            r6 += a[i + 6] * factor
            r7 += a[i + 7] * factor
            i += 8
        result = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            result += a[i] * factor
            i += 1
        return result
    half = n // 2
    half -= half % 8
    return pairwise_sum_scaled(a, half, factor) + pairwise_sum_scaled(a + half, n - half, factor)


cdef double pairwise_sum_of_squares_scaled(const double* a, Py_ssize_t n, double factor, double mu) noexcept nogil:
    """:func:`pairwise_sum_of_squares` of the scaled values ``a[i] * factor`` (without the copy)."""
    cdef Py_ssize_t i, half
    cdef double result
    cdef double r0, r1, r2, r3, r4, r5, r6, r7
    if n < PAIRWISE_UNROLL:
        result = -0.0
        for i in range(n):
            result += squared_deviation(a[i] * factor, mu)
        return result
    if n <= PAIRWISE_BLOCK:
        r0 = squared_deviation(a[0] * factor, mu)
        r1 = squared_deviation(a[1] * factor, mu)
        r2 = squared_deviation(a[2] * factor, mu)
        r3 = squared_deviation(a[3] * factor, mu)
        r4 = squared_deviation(a[4] * factor, mu)
        r5 = squared_deviation(a[5] * factor, mu)
        r6 = squared_deviation(a[6] * factor, mu)
        r7 = squared_deviation(a[7] * factor, mu)
        i = 8
        while i < n - n % 8:
            r0 += squared_deviation(a[i] * factor, mu)
            r1 += squared_deviation(a[i + 1] * factor, mu)
            r2 += squared_deviation(a[i + 2] * factor, mu)
            r3 += squared_deviation(a[i + 3] * factor, mu)
            r4 += squared_deviation(a[i + 4] * factor, mu)
            r5 += squared_deviation(a[i + 5] * factor, mu)
            r6 += squared_deviation(a[i + 6] * factor, mu)
            r7 += squared_deviation(a[i + 7] * factor, mu)
            i += 8
        result = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            result += squared_deviation(a[i] * factor, mu)
            i += 1
        return result
    half = n // 2
    half -= half % 8
    return (pairwise_sum_of_squares_scaled(a, half, factor, mu)
            + pairwise_sum_of_squares_scaled(a + half, n - half, factor, mu))


cdef int mu_sigma_direct(const double* x, Py_ssize_t n, const double* edges, double* chunk, int64_t* levels,
                         code_t* out) noexcept nogil:
    """:func:`mu_sigma_column` of a contiguous column ``x[0:n]`` read where it is: the range, then
    the pairwise sums of the scaled values and of their squared deviations computed on the fly
    (the same doubles as the scaled copy), then the levels DIRECT_CHUNK values at a time
    (``chunk``, ``levels``: scratch of DIRECT_CHUNK each).  Returns OK, NON_FINITE, or
    NEEDS_COPY (2^-e overflows: the caller codes the column from a copy)."""
    cdef Py_ssize_t i, k, start, count
    cdef double low, high, factor, mu, sigma, squares, step
    cdef double total = 0.0
    cdef double upper[N_EDGES]
    cdef double lower[N_EDGES]
    cdef int exponent
    cdef code_t middle = <code_t> N_EDGES
    if not column_range(x, n, &low, &high):
        return NON_FINITE
    if not low < high:
        for i in range(n):
            out[i] = middle
        return OK
    frexp(fabs(low) if fabs(low) > fabs(high) else fabs(high), &exponent)
    factor = ldexp(1.0, -exponent)
    if not isfinite(factor):
        return NEEDS_COPY
    total += pairwise_sum_scaled(x, n, factor)   # numpy_sum: 0.0 plus the pairwise sum
    mu = total / <double> n
    squares = 0.0
    squares += pairwise_sum_of_squares_scaled(x, n, factor, mu)
    sigma = sqrt(squares / <double> (n - 1))
    if sigma == 0:  # defensive, as mu_sigma_column
        for i in range(n):
            out[i] = middle
        return OK
    for k in range(N_EDGES):
        step = edges[k] * sigma
        upper[k] = mu + step
        lower[k] = mu - step
    start = 0
    while start < n:
        count = DIRECT_CHUNK if n - start > DIRECT_CHUNK else n - start
        for i in range(count):
            chunk[i] = x[start + i] * factor
        mu_sigma_levels(chunk, count, upper, lower, levels)
        if code_t is int8_t:
            levels_to_bytes(levels, count, out + start)
        else:
            for i in range(count):
                out[start + i] = <code_t> levels[i]
        start += count
    return OK


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
    cdef int status
    if scheme.kind == SCHEME_MU_SIGMA and row_stride == 1 and n >= DIRECT_MIN_ROWS:
        # tall contiguous columns: coded where they are (the copy would not stay in the cache)
        for c in range(width):
            source = base + columns[first + c] * column_stride
            status = mu_sigma_direct(source, n, scheme.edges, block, <int64_t*> scratch,
                                     codes + columns[first + c] * n)
            if status == NON_FINITE:
                return NON_FINITE
            if status == NEEDS_COPY:  # a column of subnormal numbers: from a copy, as below
                for i in range(n):
                    block[i] = source[i]
                column_range(block, n, &low, &high)
                mu_sigma_column(block, n, low, high, scheme.edges, <int64_t*> scratch,
                                codes + columns[first + c] * n)
        return OK
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


# ---------------------------------------------------------------------------
# The row-tile path: MU_SIGMA on a tall row-major X, every chosen column at a time
# ---------------------------------------------------------------------------

cdef extern from *:
    """
    #include <math.h>
    /* Columns of X per group: a work item reads FSTOOLS_TALL_GROUP contiguous values (1 KB) of each
       of its rows, and keeps its 8-lane sums and level tile (8 KB each) in the L1 cache.  The
       per-column arrays of a group are rows of FSTOOLS_TALL_GROUP doubles of one block, so that
       the row loops below address them at constant offsets from one pointer. */
    #define FSTOOLS_TALL_GROUP 128
    #define FSTOOLS_TALL_G FSTOOLS_TALL_GROUP
    /* A group's parameters (20 rows): f1 (the scaling g = x * f1, f1 = 2^-e), mu (the exact mean of
       the scaled column), shift (the column's first value) and its scale (a power of two near
       1 / |shift|: the shifted moments neither overflow nor underflow), then the bands of the
       distances |g - mu|: low[0..3], high[0..3] (around the estimated t_k sigma), then the exact
       thresholds upper[0..3] (mu + t_k sigma) and lower[0..3] (mu - t_k sigma). */
    #define FSTOOLS_TALL_F1 0
    #define FSTOOLS_TALL_MU 1
    #define FSTOOLS_TALL_SHIFT 2
    #define FSTOOLS_TALL_SHIFT_SCALE 3
    #define FSTOOLS_TALL_BANDS 4
    #define FSTOOLS_TALL_PARAMETERS 20
    /* A work item's statistics of the first pass (6 rows): low, high, tiny, check, s1, s2. */
    #define FSTOOLS_TALL_STATISTICS 6
    /* fstools_prefetch_write(p): ask for the cache line of p to be fetched for writing (a hint). */
    #if defined(__GNUC__) || defined(__clang__)
    #define fstools_prefetch_write(p) __builtin_prefetch((p), 1, 1)
    #else
    #define fstools_prefetch_write(p) ((void) 0)
    #endif

    /* First pass, one row of a group of w columns (x[0:w], contiguous): each value added to its
       column's running sum (an 8-lane leaf accumulator or a leaf total, chosen by the caller),
       and to its column's minimum, maximum, smallest nonzero magnitude, finiteness check (v - v:
       0, or NaN for an infinity or a NaN) and the two sums of (v - shift) * scale, shift the
       column's first value (only for an estimate of sigma: their order of summation does not
       matter).
       The loop runs over the columns of the row, which are contiguous: it vectorises. */
    FSTOOLS_VECTOR_CLONES
    static void fstools_tall_first_row(const double* restrict x, Py_ssize_t w, double* restrict sum,
                                       double* restrict stats, const double* restrict parameters)
    {
        const int G = FSTOOLS_TALL_G;
        const double* restrict shift = parameters + FSTOOLS_TALL_SHIFT * G;
        const double* restrict scale = parameters + FSTOOLS_TALL_SHIFT_SCALE * G;
        double* restrict low = stats;
        double* restrict high = stats + G;
        double* restrict tiny = stats + 2 * G;
        double* restrict check = stats + 3 * G;
        double* restrict s1 = stats + 4 * G;
        double* restrict s2 = stats + 5 * G;
        Py_ssize_t c;
        for (c = 0; c < w; ++c) {
            const double v = x[c];
            const double magnitude = fabs(v);
            const double d = (v - shift[c]) * scale[c];
            const int smaller = (magnitude < tiny[c]) & (v != 0.0);
            sum[c] += v;
            low[c] = v < low[c] ? v : low[c];
            high[c] = v > high[c] ? v : high[c];
            tiny[c] = smaller ? magnitude : tiny[c];
            check[c] += v - v;
            s1[c] += d;
            s2[c] += d * d;
        }
    }

    /* Second pass, one row of a group of w columns: the scaled value g = x * f1 (the exact
       scaling of the column-by-column path), d = g - mu (rounded as NumPy's subtract), d^2 added to
       its column's running sum, and the level of g from |d| against bands [low_k, high_k] of
       distances, written to tile[c]:
         level = 4 + sign(d) * #{k: |d| > high_k}.
       d = fl(g - mu) is non-decreasing in g, so with D_k = fl(upper_k - mu) and E_k = fl(lower_k -
       mu) (upper_k, lower_k the exact thresholds): d > D_k implies g > upper_k, d < D_k implies
       g < upper_k, and likewise for lower_k.  When every band holds D_k and -E_k (checked after
       the pass), a |d| outside every band gives the exact level; a |d| inside a band is counted:
       the return value is the number of (value, band) pairs of the row, and the caller finds
       them (rare) and codes them again against the exact thresholds. */
    FSTOOLS_VECTOR_CLONES
    static int64_t fstools_tall_second_row(const double* restrict x, Py_ssize_t w,
                                           const double* restrict parameters, double* restrict squares,
                                           int64_t* restrict tile)
    {
        const int G = FSTOOLS_TALL_G;
        const double* restrict p = parameters;
        const int B = FSTOOLS_TALL_BANDS;
        int64_t inside = 0;
        Py_ssize_t c;
        for (c = 0; c < w; ++c) {
            const double g = x[c] * p[FSTOOLS_TALL_F1 * G + c];
            const double d = g - p[FSTOOLS_TALL_MU * G + c];
            const double distance = fabs(d);
            int64_t beyond_low, beyond_high;
            squares[c] += d * d;
            beyond_low = (int64_t) (distance >= p[(B + 0) * G + c]) + (int64_t) (distance >= p[(B + 1) * G + c])
                       + (int64_t) (distance >= p[(B + 2) * G + c]) + (int64_t) (distance >= p[(B + 3) * G + c]);
            beyond_high = (int64_t) (distance > p[(B + 4) * G + c]) + (int64_t) (distance > p[(B + 5) * G + c])
                        + (int64_t) (distance > p[(B + 6) * G + c]) + (int64_t) (distance > p[(B + 7) * G + c]);
            tile[c] = d > 0.0 ? 4 + beyond_high : 4 - beyond_high;
            inside += beyond_low - beyond_high;
        }
        return inside;
    }

    /* The levels of one row against the exact thresholds (a work item coded again whole):
       level = 4 + #{k: g > upper_k} - #{k: g < lower_k}, as fstools_mu_sigma_levels. */
    FSTOOLS_VECTOR_CLONES
    static int64_t fstools_tall_exact_row(const double* restrict x, Py_ssize_t w,
                                          const double* restrict parameters, double* restrict squares,
                                          int64_t* restrict tile)
    {
        const int G = FSTOOLS_TALL_G;
        const double* restrict p = parameters;
        const int B = FSTOOLS_TALL_BANDS;
        Py_ssize_t c;
        (void) squares;
        for (c = 0; c < w; ++c) {
            const double g = x[c] * p[FSTOOLS_TALL_F1 * G + c];
            int64_t above, below;
            above = (int64_t) (g > p[(B + 8) * G + c]) + (int64_t) (g > p[(B + 9) * G + c])
                  + (int64_t) (g > p[(B + 10) * G + c]) + (int64_t) (g > p[(B + 11) * G + c]);
            below = (int64_t) (g < p[(B + 12) * G + c]) + (int64_t) (g < p[(B + 13) * G + c])
                  + (int64_t) (g < p[(B + 14) * G + c]) + (int64_t) (g < p[(B + 15) * G + c]);
            tile[c] = 4 + above - below;
        }
        return 0;
    }

    /* Eight rows of levels (tile: 8 rows of w, row-major) packed column by column: byte r of
       packed[c] (in memory order) is the level of row r of column c, so that one 8-byte store
       writes a column's eight codes.  Vectorises over the columns. */
    FSTOOLS_VECTOR_CLONES
    static void fstools_tall_pack_levels(const int64_t* restrict tile, Py_ssize_t w, uint64_t* restrict packed)
    {
        Py_ssize_t c;
        for (c = 0; c < w; ++c) {
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            packed[c] = ((uint64_t) (tile[c] & 255) << 56) | ((uint64_t) (tile[w + c] & 255) << 48)
                      | ((uint64_t) (tile[2 * w + c] & 255) << 40) | ((uint64_t) (tile[3 * w + c] & 255) << 32)
                      | ((uint64_t) (tile[4 * w + c] & 255) << 24) | ((uint64_t) (tile[5 * w + c] & 255) << 16)
                      | ((uint64_t) (tile[6 * w + c] & 255) << 8) | (uint64_t) (tile[7 * w + c] & 255);
    #else
            packed[c] = (uint64_t) (tile[c] & 255) | ((uint64_t) (tile[w + c] & 255) << 8)
                      | ((uint64_t) (tile[2 * w + c] & 255) << 16) | ((uint64_t) (tile[3 * w + c] & 255) << 24)
                      | ((uint64_t) (tile[4 * w + c] & 255) << 32) | ((uint64_t) (tile[5 * w + c] & 255) << 40)
                      | ((uint64_t) (tile[6 * w + c] & 255) << 48) | ((uint64_t) (tile[7 * w + c] & 255) << 56);
    #endif
        }
    }
    """
    enum:
        TALL_GROUP "FSTOOLS_TALL_GROUP"
        TALL_F1 "FSTOOLS_TALL_F1"
        TALL_MU "FSTOOLS_TALL_MU"
        TALL_SHIFT "FSTOOLS_TALL_SHIFT"
        TALL_SHIFT_SCALE "FSTOOLS_TALL_SHIFT_SCALE"
        TALL_BANDS "FSTOOLS_TALL_BANDS"
        TALL_PARAMETERS "FSTOOLS_TALL_PARAMETERS"
        TALL_STATISTICS "FSTOOLS_TALL_STATISTICS"
    void tall_first_row "fstools_tall_first_row"(const double* x, Py_ssize_t w, double* sum, double* stats,
                                                 const double* parameters) noexcept nogil
    int64_t tall_second_row "fstools_tall_second_row"(const double* x, Py_ssize_t w, const double* parameters,
                                                      double* squares, int64_t* tile) noexcept nogil
    int64_t tall_exact_row "fstools_tall_exact_row"(const double* x, Py_ssize_t w, const double* parameters,
                                                    double* squares, int64_t* tile) noexcept nogil
    void tall_pack_levels "fstools_tall_pack_levels"(const int64_t* tile, Py_ssize_t w,
                                                     uint64_t* packed) noexcept nogil
    void prefetch_write "fstools_prefetch_write"(const void* p) noexcept nogil


cdef enum:
    # Depth of the stack of partial sums: the pairwise tree of n values is about log2(n / 64)
    # levels deep.
    TALL_MAX_DEPTH = 64
    # Values of a work item inside a band (coded again against the exact threshold) whose
    # positions are kept; beyond, the whole work item is coded again.
    TALL_FLAG_CAPACITY = 1024
    # Rows of a work item (within the group's columns: at most 128 values each) requested ahead of
    # the row being read.
    TALL_PREFETCH_ROWS = 8
    # Slots of a work item's block of per-item values: its subtree's sum, then its statistics.
    TALL_ITEM_SLOTS = 1 + TALL_STATISTICS

#: Rows of a work item of the row-tile path (at most: a subtree of the pairwise tree).
TALL_ITEM_ROWS = 8192

#: Fewest rows for which ``path="auto"`` takes the row-tile path on row-major X (from there on a
#: block of the column path is fewer than eight columns, less than a cache line of each row).
TALL_MIN_ROWS = BLOCK_VALUES // 8 + 1

#: Fewest bytes of the rows' span of chosen columns (rows x (last - first chosen column + 1) x
#: 8) for which ``path="auto"`` takes the row tiles: below, X stays in the caches while the column
#: path reads it once per block, and the column path is faster (measured, one thread: 300,000 x 3
#: and 16,385 x 16 row-major, rows 2.3 and 1.7 x the column path's time; 1,000,000 x 2 (16 MB)
#: 1.25 x; 1,000,000 x 4 (32 MB) 0.71 x; 65,536 x 500 0.63 x; 1,000,000 x 50 about 0.2 x).
TALL_MIN_BYTES = 1 << 25


def _prefers_row_tiles(X, columns, int scheme):
    """Whether ``path="auto"`` codes the chosen ``columns`` (increasing, not empty) of ``X`` by row
    tiles: MU_SIGMA on a row-major X (column stride one element) of at least TALL_MIN_ROWS rows,
    whose column path would need more than one block of columns (read the rows more than once),
    and whose rows' span of chosen columns holds at least TALL_MIN_BYTES."""
    n = X.shape[0]
    if scheme != MU_SIGMA or X.strides[1] != sizeof(double) or n < TALL_MIN_ROWS:
        return False
    width = max(1, min(BLOCK_WIDTH, BLOCK_VALUES // n))
    span = int(columns[columns.size - 1]) - int(columns[0]) + 1
    return columns.size > width and n * span * sizeof(double) >= TALL_MIN_BYTES


cdef struct TallShared:
    # what every work item of a pass reads
    const double* base           # &X[0, 0]
    Py_ssize_t row_stride        # in doubles; the column stride is 1
    Py_ssize_t n                 # rows of X (and codes per row of codes)
    const double* parameters     # per window of TALL_GROUP columns of X: TALL_PARAMETERS rows
    const intptr_t* write_row    # per column of X: the row of codes it writes, or -1 (not written)
    bint record                  # the second pass proper (else: the exact levels of work items coded
                                 # again), which keeps the positions of the values inside a band


cdef struct TallItem:
    # one work item: the columns col0 .. col0 + w - 1 of X (a window) times one subtree of rows
    Py_ssize_t col0
    Py_ssize_t w
    const double* parameters     # the window's parameters
    double* total                # w: the subtree's pairwise sum (of the values or the squares)
    double* stats                # TALL_STATISTICS rows: the first pass's statistics
    int64_t* flags               # TALL_FLAG_CAPACITY positions row * TALL_GROUP + c
    int64_t* n_flags             # values inside a band found (more than the capacity: overflow)


cdef struct TallScratch:
    # per thread
    double* lanes                # 8 * TALL_GROUP: the eight accumulators of a leaf, lane-major
    double* stack                # TALL_MAX_DEPTH * TALL_GROUP: the right subtrees' sums, by depth
    int64_t* tile                # 8 * TALL_GROUP: levels of eight rows before they are transposed
    uint64_t* packed             # TALL_GROUP: the eight levels of each column, packed as bytes


cdef inline const double* tall_row(const TallShared* shared, const TallItem* item, Py_ssize_t i) noexcept nogil:
    """The values of row ``i`` of X in the item's columns (contiguous)."""
    return shared.base + i * shared.row_stride + item.col0


cdef inline void prefetch_row(const TallShared* shared, const TallItem* item, Py_ssize_t i,
                              Py_ssize_t stop) noexcept nogil:
    """Ask for the item's values of row ``i + TALL_PREFETCH_ROWS`` (if before ``stop``), a cache
    line (8 doubles) at a time."""
    cdef Py_ssize_t c
    cdef const double* ahead
    if i + TALL_PREFETCH_ROWS < stop:
        ahead = tall_row(shared, item, i + TALL_PREFETCH_ROWS)
        for c in range(0, item.w, 8):
            prefetch(ahead + c)


cdef inline void combine_lanes(const double* lanes, Py_ssize_t w, double* out) noexcept nogil:
    """``out[c]``: the eight lanes of a leaf added as NumPy adds r0 .. r7."""
    cdef Py_ssize_t c
    for c in range(w):
        out[c] = ((lanes[c] + lanes[w + c]) + (lanes[2 * w + c] + lanes[3 * w + c])) \
            + ((lanes[4 * w + c] + lanes[5 * w + c]) + (lanes[6 * w + c] + lanes[7 * w + c]))


cdef void first_leaf(const TallShared* shared, TallItem* item, TallScratch* scratch, Py_ssize_t start,
                     Py_ssize_t length, double* out, Py_ssize_t stop) noexcept nogil:
    """A leaf of the pairwise tree (``length <= PAIRWISE_BLOCK`` rows from ``start``), first pass:
    ``out[c]`` the leaf's sum of column c exactly as :func:`pairwise_sum` adds its values, and
    the item's statistics updated (``stop``: the item's end, for the prefetch).

    pairwise_sum of a leaf: fewer than 8 values are added one by one to -0.0; otherwise value i
    goes to lane i % 8 up to the last multiple of 8, the lanes are combined as
    ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)), and the remaining values are added one by
    one.  Here "value i" is row start + i of every column of the group at once.  Lanes start at
    -0.0: -0.0 + v is v for every v, so the first addition is NumPy's ``r_k = a[k]``."""
    cdef Py_ssize_t i, k
    cdef Py_ssize_t w = item.w
    cdef Py_ssize_t full = length - length % PAIRWISE_UNROLL if length >= PAIRWISE_UNROLL else 0
    cdef double* lanes = scratch.lanes
    for k in range(PAIRWISE_UNROLL * w):
        lanes[k] = -0.0
    for i in range(full):
        prefetch_row(shared, item, start + i, stop)
        tall_first_row(tall_row(shared, item, start + i), w, lanes + (i % PAIRWISE_UNROLL) * w, item.stats,
                       item.parameters)
    if full > 0:
        combine_lanes(lanes, w, out)
    else:
        for k in range(w):
            out[k] = -0.0
    for i in range(full, length):
        prefetch_row(shared, item, start + i, stop)
        tall_first_row(tall_row(shared, item, start + i), w, out, item.stats, item.parameters)


cdef void first_node(const TallShared* shared, TallItem* item, TallScratch* scratch, Py_ssize_t start,
                     Py_ssize_t length, double* out, Py_ssize_t depth, Py_ssize_t stop) noexcept nogil:
    """``out[c]``: the pairwise sum of rows ``start .. start + length - 1`` of each column of the
    item, by NumPy's recursion: above PAIRWISE_BLOCK values the first half (rounded down to a
    multiple of 8) and the rest are summed separately, then added (left + right).  The rows are
    read in order (the left subtree before the right one); the left subtree's sum waits in
    ``out`` while the right one is summed into the stack at ``depth``."""
    cdef Py_ssize_t half, c
    cdef double* right
    if length <= PAIRWISE_BLOCK:
        first_leaf(shared, item, scratch, start, length, out, stop)
        return
    half = length // 2
    half -= half % PAIRWISE_UNROLL
    first_node(shared, item, scratch, start, half, out, depth + 1, stop)
    right = scratch.stack + depth * TALL_GROUP
    first_node(shared, item, scratch, start + half, length - half, right, depth + 1, stop)
    for c in range(item.w):
        out[c] = out[c] + right[c]


cdef void write_tile(const TallShared* shared, TallItem* item, TallScratch* scratch, Py_ssize_t row0,
                     Py_ssize_t rows, code_t* codes) noexcept nogil:
    """Transpose the levels of ``rows`` (<= 8) rows from ``row0`` (``scratch.tile``) into the
    item's rows of codes: int8 codes of eight rows as one 8-byte store per column."""
    cdef Py_ssize_t c, r, target
    cdef Py_ssize_t w = item.w
    cdef code_t* destination
    cdef bint ahead = row0 % 64 == 0 and row0 + 128 <= shared.n
    if code_t is int8_t and rows == PAIRWISE_UNROLL:
        tall_pack_levels(scratch.tile, w, scratch.packed)
        for c in range(w):
            target = shared.write_row[item.col0 + c]
            if target >= 0:
                destination = codes + target * shared.n + row0
                memcpy(destination, scratch.packed + c, PAIRWISE_UNROLL)
                if ahead:  # the 64 codes after the next ones: each code row is a separate stream
                    prefetch_write(destination + 128)
        return
    for c in range(w):
        target = shared.write_row[item.col0 + c]
        if target < 0:
            continue
        destination = codes + target * shared.n + row0
        for r in range(rows):
            destination[r] = <code_t> scratch.tile[r * w + c]


cdef inline bint inside_band(double g, const double* parameters, Py_ssize_t c) noexcept nogil:
    """Whether the scaled value ``g`` of column ``c`` of a window has its distance to the mean
    inside one of the column's bands (as fstools_tall_second_row counts them)."""
    cdef Py_ssize_t k
    cdef double distance = fabs(g - parameters[TALL_MU * TALL_GROUP + c])
    cdef const double* bands = parameters + TALL_BANDS * TALL_GROUP + c
    for k in range(N_EDGES):
        if distance >= bands[k * TALL_GROUP] and not distance > bands[(N_EDGES + k) * TALL_GROUP]:
            return True
    return False


cdef void record_inside(const TallShared* shared, TallItem* item, Py_ssize_t row) noexcept nogil:
    """Keep the positions of the values of ``row`` that are inside a band (the second pass found
    some): ``row * TALL_GROUP + c``, up to TALL_FLAG_CAPACITY per item (beyond, only counted)."""
    cdef Py_ssize_t c
    cdef const double* x = tall_row(shared, item, row)
    for c in range(item.w):
        if shared.write_row[item.col0 + c] < 0:
            continue
        if inside_band(x[c] * item.parameters[TALL_F1 * TALL_GROUP + c], item.parameters, c):
            if item.n_flags[0] < TALL_FLAG_CAPACITY:
                item.flags[item.n_flags[0]] = row * TALL_GROUP + c
            item.n_flags[0] += 1


cdef void second_leaf(const TallShared* shared, TallItem* item, TallScratch* scratch, Py_ssize_t start,
                      Py_ssize_t length, double* out, code_t* codes, Py_ssize_t stop) noexcept nogil:
    """:func:`first_leaf` for the second pass: the squared deviations of the scaled values summed
    as :func:`pairwise_sum_of_squares` sums them (the same lanes), and the levels of the leaf's
    rows written into codes, eight rows at a time (leaves start at multiples of 8)."""
    cdef Py_ssize_t i, k
    cdef Py_ssize_t w = item.w
    cdef Py_ssize_t full = length - length % PAIRWISE_UNROLL if length >= PAIRWISE_UNROLL else 0
    cdef double* lanes = scratch.lanes
    cdef int64_t inside
    # (function pointer: the second pass proper, or the exact levels of a work item coded again)
    cdef int64_t (*row_levels)(const double*, Py_ssize_t, const double*, double*, int64_t*) noexcept nogil
    row_levels = tall_second_row if shared.record else tall_exact_row
    for k in range(PAIRWISE_UNROLL * w):
        lanes[k] = -0.0
    for i in range(full):
        prefetch_row(shared, item, start + i, stop)
        inside = row_levels(tall_row(shared, item, start + i), w, item.parameters,
                            lanes + (i % PAIRWISE_UNROLL) * w, scratch.tile + (i % PAIRWISE_UNROLL) * w)
        if inside and shared.record:
            record_inside(shared, item, start + i)
        if i % PAIRWISE_UNROLL == PAIRWISE_UNROLL - 1:
            write_tile(shared, item, scratch, start + i + 1 - PAIRWISE_UNROLL, PAIRWISE_UNROLL, codes)
    if full > 0:
        combine_lanes(lanes, w, out)
    else:
        for k in range(w):
            out[k] = -0.0
    for i in range(full, length):
        prefetch_row(shared, item, start + i, stop)
        inside = row_levels(tall_row(shared, item, start + i), w, item.parameters, out,
                            scratch.tile + (i - full) * w)
        if inside and shared.record:
            record_inside(shared, item, start + i)
    if length > full:
        write_tile(shared, item, scratch, start + full, length - full, codes)


cdef void second_node(const TallShared* shared, TallItem* item, TallScratch* scratch, Py_ssize_t start,
                      Py_ssize_t length, double* out, Py_ssize_t depth, code_t* codes,
                      Py_ssize_t stop) noexcept nogil:
    """:func:`first_node` for the second pass (:func:`second_leaf`)."""
    cdef Py_ssize_t half, c
    cdef double* right
    if length <= PAIRWISE_BLOCK:
        second_leaf(shared, item, scratch, start, length, out, codes, stop)
        return
    half = length // 2
    half -= half % PAIRWISE_UNROLL
    second_node(shared, item, scratch, start, half, out, depth + 1, codes, stop)
    right = scratch.stack + depth * TALL_GROUP
    second_node(shared, item, scratch, start + half, length - half, right, depth + 1, codes, stop)
    for c in range(item.w):
        out[c] = out[c] + right[c]


cdef inline bint is_tall_item(Py_ssize_t length, Py_ssize_t item_rows) noexcept nogil:
    """Whether a subtree of the pairwise tree of ``length`` rows is one work item (not split)."""
    return length <= item_rows or length <= PAIRWISE_BLOCK


cdef void combine_items(Py_ssize_t length, Py_ssize_t item_rows, const double* totals, Py_ssize_t* next_item,
                        Py_ssize_t w, double* out, double* stack, Py_ssize_t depth) noexcept nogil:
    """``out[c]``: the pairwise sum of a subtree of ``length`` rows from the sums of its work items
    (``totals``: the items' sums of one window, TALL_ITEM_SLOTS * TALL_GROUP apart, in row
    order; ``next_item``: the first one not used yet): the splits above the items, added as
    NumPy adds them (left + right)."""
    cdef Py_ssize_t half, c
    cdef double* right
    if is_tall_item(length, item_rows):
        for c in range(w):
            out[c] = totals[next_item[0] * TALL_ITEM_SLOTS * TALL_GROUP + c]
        next_item[0] += 1
        return
    half = length // 2
    half -= half % PAIRWISE_UNROLL
    combine_items(half, item_rows, totals, next_item, w, out, stack, depth + 1)
    right = stack + depth * TALL_GROUP
    combine_items(length - half, item_rows, totals, next_item, w, right, stack, depth + 1)
    for c in range(w):
        out[c] = out[c] + right[c]


def _tall_items(Py_ssize_t n, Py_ssize_t item_rows):
    """(starts, lengths) of the work items of the row-tile path: the subtrees of NumPy's pairwise
    tree of ``n`` rows that :func:`is_tall_item` does not split, in row order."""
    starts = []
    lengths = []
    pending = [(0, n)]  # subtrees to visit, the next one last
    while pending:
        start, length = pending.pop()
        if is_tall_item(length, item_rows):
            starts.append(start)
            lengths.append(length)
            continue
        half = length // 2
        half -= half % PAIRWISE_UNROLL
        pending.append((start + half, length - half))
        pending.append((start, half))
    return np.array(starts, dtype=np.intp), np.array(lengths, dtype=np.intp)


cdef inline TallItem tall_item_at(Py_ssize_t work, Py_ssize_t n_row_items, const intptr_t* windows,
                                  Py_ssize_t n_features, const double* parameters, double* values, int64_t* flags,
                                  int64_t* n_flags) noexcept nogil:
    """Work item ``work`` (window ``windows[work // n_row_items]``, row item ``work %
    n_row_items``): its columns and its blocks of the per-window parameters and of the per-item
    values (TALL_ITEM_SLOTS * TALL_GROUP doubles per item).  (Returned by value: assigned in a
    prange loop, the item is private to its thread.)"""
    cdef TallItem item
    cdef Py_ssize_t window = windows[work // n_row_items]
    item.col0 = window * TALL_GROUP
    item.w = TALL_GROUP if n_features - item.col0 > TALL_GROUP else n_features - item.col0
    item.parameters = parameters + window * TALL_PARAMETERS * TALL_GROUP
    item.total = values + work * TALL_ITEM_SLOTS * TALL_GROUP
    item.stats = item.total + TALL_GROUP
    item.flags = flags + work * TALL_FLAG_CAPACITY
    item.n_flags = n_flags + work
    return item


cdef inline TallScratch tall_scratch_at(double* memory) noexcept nogil:
    """A thread's scratch in ``memory`` ((17 + TALL_MAX_DEPTH) * TALL_GROUP doubles); returned by
    value, so that it is private to the thread that assigns it."""
    cdef TallScratch scratch
    scratch.lanes = memory
    scratch.stack = memory + PAIRWISE_UNROLL * TALL_GROUP
    scratch.tile = <int64_t*> (memory + (PAIRWISE_UNROLL + TALL_MAX_DEPTH) * TALL_GROUP)
    scratch.packed = <uint64_t*> (memory + (2 * PAIRWISE_UNROLL + TALL_MAX_DEPTH) * TALL_GROUP)
    return scratch


cdef int tall_pass(const TallShared* shared, int which, Py_ssize_t n_work, const uint8_t* chosen_work,
                   Py_ssize_t n_row_items, const intptr_t* windows, Py_ssize_t n_features, const intptr_t* starts,
                   const intptr_t* lengths, double* values, int64_t* flags, int64_t* n_flags, code_t* codes,
                   int n_threads) except -1:
    """One pass of the row-tile path over the work items with ``chosen_work`` set (``which``: 1 the
    first pass, 2 the second), threaded over work items; Ctrl-C looked at between them.  Returns
    OK or OUT_OF_MEMORY."""
    cdef Py_ssize_t work, c, start, stop
    cdef TallItem item
    cdef TallScratch scratch
    cdef double* memory
    cdef int32_t[::1] failure = np.zeros(1, dtype=np.int32)  # (a variable set in a parallel block is private)
    cdef SignalCheck check
    cdef const double* first
    signal_check_init(&check, 1)
    with nogil, parallel(num_threads=n_threads):
        memory = <double*> malloc((2 * PAIRWISE_UNROLL + TALL_MAX_DEPTH + 1) * TALL_GROUP * sizeof(double))
        if memory == NULL:
            failure[0] = OUT_OF_MEMORY
        else:
            scratch = tall_scratch_at(memory)
            for work in prange(n_work, schedule='dynamic'):
                if failure[0] != OK or stop_requested(&check) or not chosen_work[work]:
                    continue
                item = tall_item_at(work, n_row_items, windows, n_features, shared.parameters, values, flags,
                                    n_flags)
                start = starts[work % n_row_items]
                stop = start + lengths[work % n_row_items]
                if which == 1:
                    first = tall_row(shared, &item, start)
                    for c in range(item.w):
                        item.stats[c] = first[c]                       # low
                        item.stats[TALL_GROUP + c] = first[c]          # high
                        item.stats[2 * TALL_GROUP + c] = INFINITY      # tiny
                        item.stats[3 * TALL_GROUP + c] = 0.0           # check
                        item.stats[4 * TALL_GROUP + c] = 0.0           # s1
                        item.stats[5 * TALL_GROUP + c] = 0.0           # s2
                    first_node(shared, &item, &scratch, start, stop - start, item.total, 0, stop)
                else:
                    item.n_flags[0] = 0
                    second_node(shared, &item, &scratch, start, stop - start, item.total, 0, codes, stop)
            free(memory)
    raise_if_stopped(&check)
    return failure[0]


cdef inline int exact_level(double g, const double* parameters, Py_ssize_t c) noexcept nogil:
    """The level of the scaled value ``g`` of column ``c`` of a window against the exact
    thresholds, as fstools_mu_sigma_levels computes it."""
    cdef int level = N_EDGES
    cdef Py_ssize_t k
    cdef const double* thresholds = parameters + (TALL_BANDS + 2 * N_EDGES) * TALL_GROUP + c
    for k in range(N_EDGES):
        level += (g > thresholds[k * TALL_GROUP])
        level -= (g < thresholds[(N_EDGES + k) * TALL_GROUP])
    return level


def _tall_mu_sigma(const double[:, :] X, const intptr_t[::1] columns, code_t[:, ::1] codes, const double[::1] edges,
                   int n_threads, Py_ssize_t item_rows):
    """The MU_SIGMA codes of the chosen columns of a row-major ``X`` (column stride 1) by row
    tiles (see ROW TILES in the module docstring); the arguments checked.  Returns (status,
    position in ``columns`` of the first column with a non-finite value, positions in
    ``columns`` of the columns left to the column path)."""
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t n_features = X.shape[1]
    cdef Py_ssize_t n_chosen = columns.shape[0]
    cdef Py_ssize_t p, j, k, c, window, r, work, row, next_item, position, slot
    cdef int exponent, bits, status
    cdef double factor, total, mean, variance, sigma_estimate, delta, step, upper, lower, squares, sigma
    cdef double distance_upper, distance_lower
    cdef bint ok
    cdef TallShared shared
    cdef TallItem item
    # the windows of TALL_GROUP columns of X that hold a chosen column
    cdef const intptr_t[::1] windows = np.unique(np.asarray(columns) // TALL_GROUP).astype(np.intp)
    cdef Py_ssize_t n_windows = windows.shape[0]
    starts_array, lengths_array = _tall_items(n, item_rows)
    cdef const intptr_t[::1] starts = starts_array
    cdef const intptr_t[::1] lengths = lengths_array
    cdef Py_ssize_t n_row_items = starts.shape[0]
    cdef Py_ssize_t n_work = n_windows * n_row_items
    # per work item: its subtree's sum and its statistics; the positions of its values inside a band
    cdef double[:, :, ::1] values = np.empty((n_work, TALL_ITEM_SLOTS, TALL_GROUP))
    cdef int64_t[:, ::1] flags = np.empty((n_work, TALL_FLAG_CAPACITY), dtype=np.int64)
    cdef int64_t[::1] n_flags = np.zeros(n_work, dtype=np.int64)
    cdef uint8_t[::1] chosen_work = np.ones(n_work, dtype=np.uint8)
    # per window of X's columns: the parameters of the second pass, and the same with the exact
    # thresholds as bands of width 0 (upper bands at +inf and lower ones at -inf give level 4:
    # constant columns, and columns not coded here)
    cdef Py_ssize_t n_all_windows = (n_features + TALL_GROUP - 1) // TALL_GROUP
    parameter_array = np.zeros((n_all_windows, TALL_PARAMETERS, TALL_GROUP))
    parameter_array[:, TALL_F1] = 1.0
    parameter_array[:, TALL_BANDS:TALL_BANDS + 3 * N_EDGES] = INFINITY   # no band; upper at +inf
    parameter_array[:, TALL_BANDS + 3 * N_EDGES:] = -INFINITY             # lower at -inf
    # the shift of the moment sums: the first row; their scale 2^-e0, |shift| < 2^e0 (within
    # [2^-1000, 2^1000]; 1 for a shift of 0 or not finite)
    first_row = np.array(np.asarray(X)[0], dtype=np.float64)
    with np.errstate(invalid="ignore"):
        shift_exponents = np.clip(np.frexp(np.where(np.isfinite(first_row), first_row, 0.0))[1], -1000, 1000)
    padded = np.zeros(n_all_windows * TALL_GROUP)
    padded[:n_features] = first_row
    parameter_array[:, TALL_SHIFT, :] = padded.reshape(n_all_windows, TALL_GROUP)
    padded[:n_features] = np.ldexp(1.0, -shift_exponents)
    parameter_array[:, TALL_SHIFT_SCALE, :] = padded.reshape(n_all_windows, TALL_GROUP)
    cdef const int32_t[::1] shift_exponent = shift_exponents.astype(np.int32)
    cdef double[:, :, ::1] parameters = parameter_array
    cdef double[:, :, ::1] exact = parameter_array.copy()
    cdef intptr_t[::1] write_row = np.full(n_features, -1, dtype=np.intp)
    cdef uint8_t[::1] constant = np.zeros(n_features, dtype=np.uint8)
    # per column of X: the first pass's statistics and sum
    cdef double[:, ::1] stats = np.empty((TALL_STATISTICS, n_features))
    cdef double[::1] sums = np.empty(n_features)
    cdef double[::1] window_total = np.empty(TALL_GROUP)
    cdef double[::1] stack = np.empty(TALL_MAX_DEPTH * TALL_GROUP)
    fallback = []
    shared.base = &X[0, 0]
    shared.row_stride = X.strides[0] // <Py_ssize_t> sizeof(double)
    shared.n = n
    shared.parameters = &parameters[0, 0, 0]
    shared.write_row = &write_row[0]
    shared.record = True

    # Pass 1: per column the range, the finiteness check, the smallest nonzero magnitude, the
    # pairwise sum of the unscaled values and the shifted moment sums.
    status = tall_pass(&shared, 1, n_work, &chosen_work[0], n_row_items, &windows[0], n_features, &starts[0],
                       &lengths[0], &values[0, 0, 0], &flags[0, 0], &n_flags[0], &codes[0, 0], n_threads)
    if status != OK:
        return (status, 0, None)
    for window in range(n_windows):
        item = tall_item_at(window * n_row_items, n_row_items, &windows[0], n_features, shared.parameters,
                            &values[0, 0, 0], &flags[0, 0], &n_flags[0])
        next_item = 0
        combine_items(n, item_rows, item.total, &next_item, item.w, &window_total[0], &stack[0], 0)
        for c in range(item.w):
            j = item.col0 + c
            sums[j] = window_total[c]
            for k in range(TALL_STATISTICS):
                stats[k, j] = item.stats[k * TALL_GROUP + c]
        for r in range(1, n_row_items):
            item = tall_item_at(window * n_row_items + r, n_row_items, &windows[0], n_features, shared.parameters,
                                &values[0, 0, 0], &flags[0, 0], &n_flags[0])
            for c in range(item.w):
                j = item.col0 + c
                stats[0, j] = item.stats[c] if item.stats[c] < stats[0, j] else stats[0, j]
                stats[1, j] = item.stats[TALL_GROUP + c] if item.stats[TALL_GROUP + c] > stats[1, j] else stats[1, j]
                stats[2, j] = (item.stats[2 * TALL_GROUP + c] if item.stats[2 * TALL_GROUP + c] < stats[2, j]
                               else stats[2, j])
                for k in range(3, TALL_STATISTICS):
                    stats[k, j] += item.stats[k * TALL_GROUP + c]
    for p in range(n_chosen):
        if not stats[3, columns[p]] == 0.0:
            return (NON_FINITE, p, None)

    # Between the passes: the scaling, the exact mean where the unscaled sum gives it, and bands
    # around the thresholds of an estimate of sigma.
    bits = 0
    while (<Py_ssize_t> 1 << bits) <= n:
        bits += 1   # n < 2^bits: no partial sum of the unscaled values exceeds 2^bits max|x|
    for p in range(n_chosen):
        j = columns[p]
        window = j // TALL_GROUP
        c = j % TALL_GROUP
        if not stats[0, j] < stats[1, j]:
            constant[j] = 1
            write_row[j] = j   # its bands stay infinite: level 4
            continue
        frexp(fabs(stats[0, j]) if fabs(stats[0, j]) > fabs(stats[1, j]) else fabs(stats[1, j]), &exponent)
        factor = ldexp(1.0, -exponent)
        # The sum of the unscaled values times 2^-e is the sum of the scaled values, bit for bit,
        # when no unscaled partial sum overflows and every scaled value is exact (it is when
        # e <= 0; when e > 0 a value is rounded only if its scaled magnitude is below the
        # smallest normal number): each addition then rounds the same significand in both.
        # Otherwise, and for columns of subnormal numbers (2^-e overflows: the column path scales
        # those by ldexp), the column path codes the column.
        if not isfinite(factor) or exponent + bits > 1021 or (exponent > 0 and not stats[2, j] * factor >= DBL_MIN):
            fallback.append(p)
            continue
        total = 0.0
        total += sums[j] * factor
        mean = total / <double> n
        # An estimate of sigma (scaled), from the shifted sums; the bands around its thresholds
        # are wide enough for its error and the roundings of the thresholds, and are checked
        # against the exact thresholds after the second pass.
        variance = (stats[5, j] - stats[4, j] * stats[4, j] / <double> n) / <double> (n - 1)
        if not variance > 0:
            variance = 0
        sigma_estimate = ldexp(sqrt(variance), shift_exponent[j] - exponent)
        delta = sigma_estimate * ldexp(1.0, -24) + fabs(mean) * ldexp(1.0, -44)
        for k in range(N_EDGES):
            step = edges[k] * sigma_estimate
            parameters[window, TALL_BANDS + k, c] = step - delta
            parameters[window, TALL_BANDS + N_EDGES + k, c] = step + delta
        parameters[window, TALL_F1, c] = factor
        parameters[window, TALL_MU, c] = mean
        exact[window, TALL_F1, c] = factor
        exact[window, TALL_MU, c] = mean
        write_row[j] = j

    # Pass 2: the pairwise sums of the squared deviations, and the levels against the bands.
    status = tall_pass(&shared, 2, n_work, &chosen_work[0], n_row_items, &windows[0], n_features, &starts[0],
                       &lengths[0], &values[0, 0, 0], &flags[0, 0], &n_flags[0], &codes[0, 0], n_threads)
    if status != OK:
        return (status, 0, None)
    for slot in range(n_windows):
        item = tall_item_at(slot * n_row_items, n_row_items, &windows[0], n_features, shared.parameters,
                            &values[0, 0, 0], &flags[0, 0], &n_flags[0])
        window = windows[slot]
        next_item = 0
        combine_items(n, item_rows, item.total, &next_item, item.w, &window_total[0], &stack[0], 0)
        for c in range(item.w):
            j = item.col0 + c
            if write_row[j] < 0 or constant[j]:
                continue
            squares = 0.0
            squares += window_total[c]
            sigma = sqrt(squares / <double> (n - 1))
            ok = sigma != 0   # (sigma == 0: the column path codes the column 4, as the NumPy code)
            for k in range(N_EDGES):
                step = edges[k] * sigma
                upper = parameters[window, TALL_MU, c] + step
                lower = parameters[window, TALL_MU, c] - step
                exact[window, TALL_BANDS + 2 * N_EDGES + k, c] = upper
                exact[window, TALL_BANDS + 3 * N_EDGES + k, c] = lower
                # the distances of the thresholds as the pass computed distances, fl(t - mu):
                # inside the band, every distance outside it gives the exact level
                distance_upper = upper - parameters[window, TALL_MU, c]
                distance_lower = -(lower - parameters[window, TALL_MU, c])
                ok = (ok and parameters[window, TALL_BANDS + k, c] <= distance_upper
                      and distance_upper <= parameters[window, TALL_BANDS + N_EDGES + k, c]
                      and parameters[window, TALL_BANDS + k, c] <= distance_lower
                      and distance_lower <= parameters[window, TALL_BANDS + N_EDGES + k, c])
            if not ok:
                write_row[j] = -1
                fallback.append(int(np.searchsorted(np.asarray(columns), j)))

    # The values inside a band coded against the exact thresholds; the work items that found
    # more of them than they could keep coded again whole (a third pass over their rows only).
    for work in range(n_work):
        chosen_work[work] = n_flags[work] > TALL_FLAG_CAPACITY
        if chosen_work[work]:
            continue
        item = tall_item_at(work, n_row_items, &windows[0], n_features, &exact[0, 0, 0], &values[0, 0, 0],
                            &flags[0, 0], &n_flags[0])
        for position in range(n_flags[work]):
            row = item.flags[position] // TALL_GROUP
            c = item.flags[position] % TALL_GROUP
            j = item.col0 + c
            if write_row[j] >= 0:
                codes[j, row] = <code_t> exact_level(X[row, j] * item.parameters[TALL_F1 * TALL_GROUP + c],
                                                     item.parameters, c)
    if np.any(np.asarray(chosen_work)):
        shared.parameters = &exact[0, 0, 0]
        shared.record = False
        status = tall_pass(&shared, 2, n_work, &chosen_work[0], n_row_items, &windows[0], n_features, &starts[0],
                           &lengths[0], &values[0, 0, 0], &flags[0, 0], &n_flags[0], &codes[0, 0], n_threads)
        if status != OK:
            return (status, 0, None)
    return (OK, 0, np.array(sorted(fallback), dtype=np.intp))


def discretize_columns(X, columns, codes, int scheme, Py_ssize_t n_bins=0, edges=None, ranks=None,
                       int n_threads=1, path="auto", item_rows=None):
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
        OpenMP threads over blocks of columns (row tiles: over work items); the codes do not
        depend on it.
    path : {"auto", "columns", "rows"}
        ``"columns"``: blocks of columns, any layout and scheme; ``"rows"``: row tiles
        (MU_SIGMA on an X whose column stride is one element only); ``"auto"``: row tiles for
        MU_SIGMA on such an X where they are faster (:func:`_prefers_row_tiles`: a tall X, more
        chosen columns than a block of the column path holds, rows' span of at least
        :data:`TALL_MIN_BYTES`), else blocks of columns.  The codes do not depend on it.
    item_rows : int, optional
        Rows of a work item of the row tiles (default :data:`TALL_ITEM_ROWS`; for the tests).

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
    if path not in ("auto", "columns", "rows"):
        raise ValueError(f"path: must be 'auto', 'columns' or 'rows'; got {path!r}")
    if path == "rows" and (scheme != MU_SIGMA or X.strides[1] != sizeof(double)):
        raise ValueError("path: 'rows' needs scheme MU_SIGMA and an X whose column stride is one element")
    if item_rows is None:
        item_rows = TALL_ITEM_ROWS
    if isinstance(item_rows, bool) or not isinstance(item_rows, (int, np.integer)) or item_rows < 1:
        raise ValueError(f"item_rows: must be a positive integer; got {item_rows!r}")
    if columns.size == 0:
        return
    columns = np.ascontiguousarray(columns)
    if path == "rows" or (path == "auto" and _prefers_row_tiles(X, columns, scheme)):
        status = _tall_mu_sigma(X, columns, codes, edge_values, n_threads, item_rows)
        if status[0] == OK and status[2].size:  # the columns the row tiles leave to the column path
            status = _discretize_columns(X, columns[status[2]], codes, scheme, n_bins, edge_values, rank_values,
                                         n_threads)
    else:
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

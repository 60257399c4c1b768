# cython: language_level=3
"""Sorting and selection helpers of the kernels (declared in ``_sorting.pxd``)."""
cimport cython
from libc.math cimport fabs, fmax, isinf

from fstools._ext._common cimport check_threads, large_malloc  # (and the C of _common.pxd: FSTOOLS_VECTOR_CLONES)
from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

import numpy as np

cdef enum:
    # Runs of this length are insertion-sorted before merging.
    INSERTION_RUN = 24


cdef void _insertion_sort_run(const double* values, int32_t* order,
                              Py_ssize_t start, Py_ssize_t end) noexcept nogil:
    """Stable insertion sort of ``order[start:end]`` by value."""
    cdef Py_ssize_t i, j
    cdef int32_t item
    cdef double key
    for i in range(start + 1, end):
        item = order[i]
        key = values[item]
        j = i - 1
        while j >= start and values[order[j]] > key:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = item


cdef void stable_argsort(const double* values, Py_ssize_t n, int32_t* order,
                         int32_t* buffer) noexcept nogil:
    """Fill ``order`` with 0..n-1 sorted by (value, index); ``buffer`` is n slots of scratch.

    A stable sort (insertion-sorted runs, then bottom-up merging) started from the
    identity keeps equal values in index order.
    """
    cdef Py_ssize_t i, width, left, middle, right, a, b, out
    cdef int32_t* source = order
    cdef int32_t* target = buffer
    cdef int32_t* swap
    for i in range(n):
        order[i] = <int32_t> i
    left = 0
    while left < n:
        right = left + INSERTION_RUN
        if right > n:
            right = n
        _insertion_sort_run(values, order, left, right)
        left = right
    width = INSERTION_RUN
    while width < n:
        left = 0
        while left < n:
            middle = left + width
            if middle > n:
                middle = n
            right = left + 2 * width
            if right > n:
                right = n
            a = left
            b = middle
            out = left
            while a < middle and b < right:
                if values[source[b]] < values[source[a]]:
                    target[out] = source[b]
                    b += 1
                else:
                    target[out] = source[a]
                    a += 1
                out += 1
            while a < middle:
                target[out] = source[a]
                a += 1
                out += 1
            while b < right:
                target[out] = source[b]
                b += 1
                out += 1
            left = right
        swap = source
        source = target
        target = swap
        width *= 2
    if source != order:
        memcpy(order, source, n * sizeof(int32_t))


# ---------------------------------------------------------------------------------------------
# Sorting doubles by (value, index): a least-significant-digit radix sort
# ---------------------------------------------------------------------------------------------
# The bits of a double, made an unsigned integer that orders as the value: a positive double
# (sign bit 0) gets its sign bit set, a negative one has every bit flipped (so that a larger
# magnitude sorts lower).  -0.0 is made +0.0 first: the two compare equal, so their order
# must be the order of the indices, as for any other tie.

cdef enum:
    RADIX_BITS = 11
    RADIX_BUCKETS = 1 << RADIX_BITS
    RADIX_DIGITS = 6          # ceil(64 / 11)

cdef uint64_t SIGN_BIT = 0x8000000000000000


cdef union DoubleBits:
    double value
    uint64_t bits


cdef inline uint64_t _order_key(double value) noexcept nogil:
    """The unsigned integer whose order is the order of ``value`` (a finite or infinite double)."""
    cdef DoubleBits word
    word.value = value
    if value == 0.0:
        word.bits = 0
    if word.bits & SIGN_BIT:
        return ~word.bits
    return word.bits | SIGN_BIT


cdef inline double _key_value(uint64_t key) noexcept nogil:
    """The double of an order key (inverse of :func:`_order_key`; a zero comes back as +0.0)."""
    cdef DoubleBits word
    if key & SIGN_BIT:
        word.bits = key ^ SIGN_BIT
    else:
        word.bits = ~key
    return word.value


cdef int sort_by_value(const double* x, Py_ssize_t stride, Py_ssize_t n, int32_t* order,
                       double* sorted_values) noexcept nogil:
    """``order`` = 0..n-1 sorted by (value, index) and ``sorted_values`` = the values in that order.

    The values are ``x[0], x[stride], ..., x[(n - 1) * stride]`` (a column read in place).  The
    same order as :func:`stable_argsort` (every tie, -0.0 against +0.0 included, in index
    order), by a least-significant-digit radix sort of the values' order keys: six passes of
    11-bit digits, each a counting sort, which is stable, so the identity order the first pass
    starts from decides every tie.  A pass whose digit is the same for every value is skipped.
    Its cost is linear in n (about 6 reads and writes of 12 bytes per value) where a comparison
    sort's is n log2 n; its scratch is 20 bytes per value.  Zeros come back as +0.0.  NaN is not
    a valid value (the callers check for finite values first).

    Returns 0, or -1 when the scratch cannot be allocated (then nothing is written).
    """
    cdef Py_ssize_t i, digit, bucket, total, count
    cdef int shift
    cdef bint skip
    cdef uint64_t key
    cdef uint64_t* keys = <uint64_t*> large_malloc(n * sizeof(uint64_t)) if n > 0 else NULL
    cdef uint64_t* keys_out = <uint64_t*> large_malloc(n * sizeof(uint64_t)) if n > 0 else NULL
    cdef int32_t* order_out = <int32_t*> large_malloc(n * sizeof(int32_t)) if n > 0 else NULL
    cdef Py_ssize_t* counts = <Py_ssize_t*> malloc(RADIX_DIGITS * RADIX_BUCKETS * sizeof(Py_ssize_t))
    cdef uint64_t* swap_keys
    cdef int32_t* swap_order
    cdef int32_t* order_in = order
    if n > 0 and (keys == NULL or keys_out == NULL or order_out == NULL) or counts == NULL:
        free(keys); free(keys_out); free(order_out); free(counts)
        return -1
    # The keys and the counts of every digit, in one read of the column.
    memset(counts, 0, RADIX_DIGITS * RADIX_BUCKETS * sizeof(Py_ssize_t))
    for i in range(n):
        key = _order_key(x[i * stride])
        keys[i] = key
        order[i] = <int32_t> i
        for digit in range(RADIX_DIGITS):
            counts[digit * RADIX_BUCKETS + <Py_ssize_t> ((key >> (digit * RADIX_BITS)) & (RADIX_BUCKETS - 1))] += 1
    for digit in range(RADIX_DIGITS):
        shift = digit * RADIX_BITS
        # Skip a digit that every key shares.
        skip = False
        for bucket in range(RADIX_BUCKETS):
            if counts[digit * RADIX_BUCKETS + bucket] == n:
                skip = True
                break
        if skip:
            continue
        # Counts to the first output position of each bucket.
        total = 0
        for bucket in range(RADIX_BUCKETS):
            count = counts[digit * RADIX_BUCKETS + bucket]
            counts[digit * RADIX_BUCKETS + bucket] = total
            total += count
        for i in range(n):
            key = keys[i]
            bucket = <Py_ssize_t> ((key >> shift) & (RADIX_BUCKETS - 1))
            count = counts[digit * RADIX_BUCKETS + bucket]
            keys_out[count] = key
            order_out[count] = order_in[i]
            counts[digit * RADIX_BUCKETS + bucket] = count + 1
        swap_keys = keys
        keys = keys_out
        keys_out = swap_keys
        swap_order = order_in
        order_in = order_out
        order_out = swap_order
    if order_in != order:
        memcpy(order, order_in, n * sizeof(int32_t))
        order_out = order_in   # (the scratch to free)
    for i in range(n):
        sorted_values[i] = _key_value(keys[i])
    free(keys); free(keys_out); free(order_out); free(counts)
    return 0


def argsort_by_value(const double[:] x):
    """The indices of ``x`` sorted by (value, index), and the sorted values (:func:`sort_by_value`;
    for the tests).  Returns (order as int32, values)."""
    cdef Py_ssize_t n = x.shape[0]
    order = np.empty(n, dtype=np.int32)
    values = np.empty(n, dtype=np.float64)
    cdef int32_t[::1] order_view = order
    cdef double[::1] values_view = values
    cdef int status = 0
    if n > 0:
        with nogil:
            status = sort_by_value(&x[0], x.strides[0] // sizeof(double), n, &order_view[0], &values_view[0])
    if status != 0:
        raise MemoryError("argsort_by_value: not enough memory for the sort's scratch")
    return order, values


def argsort_stable(const double[::1] x):
    """The indices of ``x`` sorted by (value, index) by :func:`stable_argsort` (the merge sort; for
    the tests and benchmarks)."""
    cdef Py_ssize_t n = x.shape[0]
    order = np.empty(n, dtype=np.int32)
    buffer = np.empty(n, dtype=np.int32)
    cdef int32_t[::1] order_view = order
    cdef int32_t[::1] buffer_view = buffer
    if n > 0:
        with nogil:
            stable_argsort(&x[0], n, &order_view[0], &buffer_view[0])
    return order


cdef void _sift_down(int32_t* heap, Py_ssize_t root, Py_ssize_t size) noexcept nogil:
    """Restore the max-heap property below ``root`` in ``heap[0:size]``."""
    cdef Py_ssize_t child
    cdef int32_t item
    while 2 * root + 1 < size:
        child = 2 * root + 1
        if child + 1 < size and heap[child + 1] > heap[child]:
            child += 1
        if heap[root] >= heap[child]:
            return
        item = heap[root]
        heap[root] = heap[child]
        heap[child] = item
        root = child


cdef void heap_sort(int32_t* items, Py_ssize_t n) noexcept nogil:
    """Sort ``items[0:n]`` ascending in place (heap sort, no extra memory)."""
    cdef Py_ssize_t i
    cdef int32_t item
    i = n // 2 - 1
    while i >= 0:
        _sift_down(items, i, n)
        i -= 1
    i = n - 1
    while i > 0:
        item = items[0]
        items[0] = items[i]
        items[i] = item
        _sift_down(items, 0, i)
        i -= 1


cdef double kth_largest(double* values, Py_ssize_t n, Py_ssize_t k) noexcept nogil:
    """The k-th largest (k = 1..n) of ``values[0:n]`` (quickselect; reorders ``values``)."""
    cdef Py_ssize_t left = 0
    cdef Py_ssize_t right = n - 1
    cdef Py_ssize_t target = k - 1
    cdef Py_ssize_t i, j, middle
    cdef double pivot, a, b, c, swap
    while right > left:
        middle = left + (right - left) // 2
        a = values[left]
        b = values[middle]
        c = values[right]
        # median of three
        if (a >= b) == (b >= c):
            pivot = b
        elif (b >= a) == (a >= c):
            pivot = a
        else:
            pivot = c
        i = left
        j = right
        # Hoare partition in decreasing order: [left, j] >= pivot >= [i, right]
        while i <= j:
            while values[i] > pivot:
                i += 1
            while values[j] < pivot:
                j -= 1
            if i <= j:
                swap = values[i]
                values[i] = values[j]
                values[j] = swap
                i += 1
                j -= 1
        if target <= j:
            right = j
        elif target >= i:
            left = i
        else:
            return values[target]
    return values[target]


cdef enum:
    _STEP_RUNNING = 0
    _STEP_DIVIDED = 1
    _STEP_SCALED = 2

#: Modes of :func:`greedy_first_maximum`: the criterion of a greedy step from the running sums.
STEP_RUNNING = _STEP_RUNNING      # J = running (jmi, cmim)
STEP_DIVIDED = _STEP_DIVIDED      # J = gain - running / factor (mrmr: factor = |S|)
STEP_SCALED = _STEP_SCALED        # J = gain - factor * running (mifs, mifs_u: factor = beta)


cdef extern from *:
    """
    /* The criterion of a greedy step (mode 1: gain - running / factor, mode 2: gain - factor *
       running, written to values, one IEEE operation at a time as NumPy's ufuncs; mode 0:
       running itself) and its largest value, with the number of NaN criteria in *not_numbers.
       Plain loops that GCC vectorises (the AVX2 clone): the maximum in eight independent lanes
       (values i, i + 8, ...), exact in any order (a NaN compares false and is never taken). */
    FSTOOLS_VECTOR_CLONES
    static double fstools_step_criterion(const double* restrict gain, const double* restrict running,
                                         Py_ssize_t n, int mode, double factor, double* restrict values,
                                         Py_ssize_t* not_numbers)
    {
        const double* criterion = mode == 0 ? running : values;
        double lane[8];
        Py_ssize_t nan_lane[8];
        Py_ssize_t i, k;
        double best;
        if (mode == 1) {
            for (i = 0; i < n; ++i)
                values[i] = gain[i] - running[i] / factor;
        } else if (mode == 2) {
            for (i = 0; i < n; ++i)
                values[i] = gain[i] - factor * running[i];
        }
        for (k = 0; k < 8; ++k) {
            lane[k] = criterion[0];
            nan_lane[k] = 0;
        }
        for (i = 0; i + 8 <= n; i += 8) {
            for (k = 0; k < 8; ++k) {
                const double v = criterion[i + k];
                lane[k] = v > lane[k] ? v : lane[k];
                nan_lane[k] += v != v;
            }
        }
        for (; i < n; ++i) {
            const double v = criterion[i];
            lane[0] = v > lane[0] ? v : lane[0];
            nan_lane[0] += v != v;
        }
        best = lane[0];
        *not_numbers = nan_lane[0];
        for (k = 1; k < 8; ++k) {
            best = lane[k] > best ? lane[k] : best;
            *not_numbers += nan_lane[k];
        }
        return best;
    }
    """
    double step_criterion "fstools_step_criterion"(const double* gain, const double* running, Py_ssize_t n,
                                                   int mode, double factor, double* values,
                                                   Py_ssize_t* not_numbers) noexcept nogil


@cython.boundscheck(False)
@cython.wraparound(False)
def greedy_first_maximum(const double[::1] gain, const double[::1] running, int mode, double factor,
                         double[::1] values, double tolerance):
    """The pick of a greedy step: the first index whose criterion is within ``tolerance`` of the
    largest (:func:`fstools.core.ranking.first_maximum`), with the criterion computed in the same
    call (mode :data:`STEP_DIVIDED` or :data:`STEP_SCALED`: written to ``values``, each value
    the IEEE result of NumPy's ``gain - running / factor`` or ``gain - factor * running``, one
    operation at a time; :data:`STEP_RUNNING`: ``running`` itself, ``values`` not written).

    C loops instead of NumPy's three or four passes (the division or product, the subtraction,
    the maximum, the comparison and its index array) over the candidates.  Returns -1 when a
    criterion is NaN or there are no candidates (the caller then applies the NumPy rule to
    ``values``, which gives its own answer).
    """
    cdef Py_ssize_t i, n = running.shape[0]
    cdef double best, window
    cdef Py_ssize_t not_numbers = 0
    if n == 0:
        return -1
    if gain.shape[0] != n or values.shape[0] != n:
        raise ValueError("gain, running, values: must have the same length")
    if mode not in (_STEP_RUNNING, _STEP_DIVIDED, _STEP_SCALED):
        raise ValueError(f"mode: must be STEP_RUNNING, STEP_DIVIDED or STEP_SCALED; got {mode}")
    if not tolerance >= 0.0 or isinf(tolerance):
        raise ValueError(f"tolerance: must be a finite number >= 0; got {tolerance!r}")
    cdef const double* criterion = &running[0] if mode == _STEP_RUNNING else &values[0]
    with nogil:
        best = step_criterion(&gain[0], &running[0], n, mode, factor, &values[0], &not_numbers)
        if not_numbers:
            i = -1
        else:
            window = best if isinf(best) else best - tolerance * fmax(1.0, fabs(best))
            i = 0
            while i < n and criterion[i] < window:  # (best itself is within the window)
                i += 1
            if i == n:
                i = -1
    return i

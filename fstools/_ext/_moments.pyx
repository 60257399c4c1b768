# cython: language_level=3
"""Per-class column moments: counts, means, sums of squared deviations, constancy.

For a float64 matrix ``X`` (n_samples x n_features, any layout) and class codes
``y`` in ``0 .. n_classes-1``, :func:`class_moments` computes for every feature
``f`` and class ``c``:

* ``counts[c]`` -- the class size ``n_c`` (shared by all features);
* ``mean[f, c]`` -- the class mean, two-pass: the sum of the class's values in
  row order divided by ``n_c``, then clamped into [class minimum, class maximum]
  (so that a class of equal values has exactly that value as its mean);
* ``ss[f, c]`` -- ``sum_i (x_if - mean[f, c])^2`` over the class's rows in row
  order (second pass); exactly 0 for a constant class;
* ``constant[f, c]`` -- 1 when the class has no two different values in the
  feature (``min == max``, exact), else 0;
* ``column_mean[f]`` -- the mean of the feature, ``(sum_c class sum) / n``
  (classes in increasing code order), clamped into [column min, column max];
* ``column_constant[f]`` -- 1 when the whole feature is constant (exact).

These are what the Fisher score needs (:func:`fstools.methods.similarity.fisher_scores`).

Conventions: an empty class (a code no sample uses) has mean NaN, ss 0 and
constant 1; with no samples at all the column mean is NaN and every column is
constant.  A class sum that overflows (values near the largest doubles) is
recomputed on the values times 2**-32 (exact for such values) and the mean
taken as ``(scaled sum / n_c) * 2**32``, and the column mean then as
``sum_c (n_c / n) mean_c``: a mean is finite whenever the data are.  The
squared deviations are not rescaled: they overflow to inf, or underflow to 0,
exactly as ``(x - mean)**2`` does in NumPy.

Threads: the features are processed in fixed blocks of adjacent columns
(``BLOCK_WIDTH``, one cache line of a C-ordered row), one block per ``prange``
iteration; every feature is computed by one thread, in row order, with the same
operations whatever the block or the thread count, so the results do not depend
on ``n_threads``.  Per-thread scratch: ``3 * BLOCK_WIDTH * n_classes`` doubles
(the class sums, minima and maxima of the block; one column at a time when
``n_classes`` exceeds ``WIDE_CLASS_LIMIT``).  Non-finite values are detected
in the loop (flag) and raised as a ValueError after it.

Bounds checking and wraparound are switched off by ``setup.py`` (and on again
with ``FSTOOLS_BOUNDSCHECK=1``).
"""
import numpy as np

cimport numpy as cnp
from cython.parallel cimport parallel, prange
from libc.math cimport INFINITY, NAN, isfinite
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc

# Status codes of the nogil core (the largest over the blocks wins: OUT_OF_MEMORY over NON_FINITE).
from fstools._ext._common cimport (NON_FINITE, OK, OUT_OF_MEMORY, block_length, check_at_least_one,
                                   check_double_strides, check_length, check_threads, check_class_codes,
                                   max_status, SignalCheck, signal_check_init, stop_requested,
                                   raise_if_stopped)

cnp.import_array()

#: Adjacent features processed together by one thread (8 doubles = one 64-byte cache line).
BLOCK_WIDTH = 8
#: Above this many classes a block is one feature wide (bounds the per-thread scratch to 24 n_classes bytes).
WIDE_CLASS_LIMIT = 4096

# 2**-32 and 2**32: the scaling of a class sum that overflowed (n_c <= 2**31 values of at most
# DBL_MAX times 2**-32 cannot overflow).
cdef double DOWN_SCALE = 2.3283064365386963e-10
cdef double UP_SCALE = 4294967296.0


cdef inline double _clamp(double value, double low, double high) noexcept nogil:
    if value < low:
        return low
    if value > high:
        return high
    return value


cdef void _rescaled_class_means(const double* column, Py_ssize_t row_stride, Py_ssize_t m,
                                const int32_t* y, Py_ssize_t n_classes, const int64_t* counts,
                                double* mean, double* scaled_sum) noexcept nogil:
    """Means of the classes whose plain sum overflowed (``mean[c]`` not finite), from the
    values times 2**-32; ``scaled_sum`` is n_classes doubles of scratch."""
    cdef Py_ssize_t i, c
    for c in range(n_classes):
        scaled_sum[c] = 0.0
    for i in range(m):
        c = y[i]
        if not isfinite(mean[c]):
            scaled_sum[c] += column[i * row_stride] * DOWN_SCALE
    for c in range(n_classes):
        if counts[c] > 0 and not isfinite(mean[c]):
            mean[c] = (scaled_sum[c] / <double> counts[c]) * UP_SCALE


cdef int _block_moments(const double* first, Py_ssize_t row_stride, Py_ssize_t column_stride,
                        Py_ssize_t width, Py_ssize_t m, const int32_t* y, Py_ssize_t n_classes,
                        const int64_t* counts, double* mean, double* ss, uint8_t* constant,
                        double* column_mean, uint8_t* column_constant,
                        double* sums, double* low, double* high) noexcept nogil:
    """Moments of ``width`` adjacent features whose first value is at ``first``.

    Value (i, j) is ``first[i * row_stride + j * column_stride]``.  ``mean``, ``ss`` and
    ``constant`` point at the block's rows of the (n_features, n_classes) outputs (entry
    ``j * n_classes + c``), ``column_mean`` / ``column_constant`` at its entries; ``sums``,
    ``low`` and ``high`` are ``width * n_classes`` doubles of scratch each (class-major,
    entry ``c * width + j``).  Returns a status flag.
    """
    cdef Py_ssize_t i, j, c, slot
    cdef double value, deviation, total, column_low, column_high
    cdef bint overflow
    cdef const double* row
    cdef double* class_sum
    cdef double* class_low
    cdef double* class_high
    cdef double* class_mean
    cdef double* class_ss
    for slot in range(width * n_classes):
        sums[slot] = 0.0
        ss[slot] = 0.0
        low[slot] = INFINITY
        high[slot] = -INFINITY
    # Pass 1: class sums, minima and maxima, in row order.  The scratch holds them class-major
    # (entry c * width + j) so that the inner loop over the block's features runs along
    # consecutive doubles (and along the row when it is contiguous); each (j, c) entry still
    # sees its values in row order.
    for i in range(m):
        c = y[i]
        row = first + i * row_stride
        class_sum = sums + c * width
        class_low = low + c * width
        class_high = high + c * width
        if column_stride == 1:
            for j in range(width):
                value = row[j]
                class_sum[j] += value
                class_low[j] = value if value < class_low[j] else class_low[j]
                class_high[j] = value if value > class_high[j] else class_high[j]
        else:
            for j in range(width):
                value = row[j * column_stride]
                class_sum[j] += value
                class_low[j] = value if value < class_low[j] else class_low[j]
                class_high[j] = value if value > class_high[j] else class_high[j]
    for j in range(width):
        for c in range(n_classes):
            mean[j * n_classes + c] = sums[c * width + j]
    # From here low/high are read at c * width + j.
    for j in range(width):
        total = 0.0
        overflow = False
        column_low = INFINITY
        column_high = -INFINITY
        for c in range(n_classes):
            slot = j * n_classes + c
            if counts[c] == 0:
                continue
            # NaN in a sum or an infinite extreme means a non-finite value (an overflowed
            # finite sum is +-inf, never NaN, and the extremes of finite values are finite).
            if mean[slot] != mean[slot] or not isfinite(low[c * width + j]) or not isfinite(high[c * width + j]):
                return NON_FINITE
            total += mean[slot]
            if not isfinite(mean[slot]):
                overflow = True
            if low[c * width + j] < column_low:
                column_low = low[c * width + j]
            if high[c * width + j] > column_high:
                column_high = high[c * width + j]
        for c in range(n_classes):
            slot = j * n_classes + c
            if counts[c] == 0:
                mean[slot] = NAN
                constant[slot] = 1
            else:
                mean[slot] = mean[slot] / <double> counts[c]   # inf when the sum overflowed
                constant[slot] = low[c * width + j] == high[c * width + j]
        if overflow:
            # ss[j, :] is still all zeros: its n_classes doubles serve as scratch.
            _rescaled_class_means(first + j * column_stride, row_stride, m, y, n_classes, counts,
                                  mean + j * n_classes, ss + j * n_classes)
            for c in range(n_classes):
                ss[j * n_classes + c] = 0.0
        for c in range(n_classes):
            slot = j * n_classes + c
            if counts[c] > 0:
                mean[slot] = _clamp(mean[slot], low[c * width + j], high[c * width + j])
        if m == 0:
            column_mean[j] = NAN
            column_constant[j] = 1
            continue
        if overflow or not isfinite(total):
            total = 0.0
            for c in range(n_classes):
                if counts[c] > 0:
                    total += (<double> counts[c] / <double> m) * mean[j * n_classes + c]
            column_mean[j] = _clamp(total, column_low, column_high)
        else:
            column_mean[j] = _clamp(total / <double> m, column_low, column_high)
        column_constant[j] = column_low == column_high
    # Pass 2: squared deviations about the class means, in row order.
    # The means go class-major into the sums' scratch, the squares accumulate class-major in it too.
    for j in range(width):
        for c in range(n_classes):
            sums[c * width + j] = mean[j * n_classes + c]
            low[c * width + j] = 0.0
    for i in range(m):
        c = y[i]
        row = first + i * row_stride
        class_mean = sums + c * width
        class_ss = low + c * width
        if column_stride == 1:
            for j in range(width):
                deviation = row[j] - class_mean[j]
                class_ss[j] += deviation * deviation
        else:
            for j in range(width):
                deviation = row[j * column_stride] - class_mean[j]
                class_ss[j] += deviation * deviation
    for j in range(width):
        for c in range(n_classes):
            slot = j * n_classes + c
            ss[slot] = 0.0 if constant[slot] else low[c * width + j]
    return OK


def _check_output(name, array, shape, dtype):
    if not isinstance(array, np.ndarray) or array.dtype != dtype or array.shape != shape \
            or not array.flags.c_contiguous or not array.flags.writeable:
        got = (f"{type(array).__name__}" if not isinstance(array, np.ndarray)
               else f"{array.dtype} array of shape {array.shape}"
                    + ("" if array.flags.c_contiguous else ", not C-contiguous")
                    + ("" if array.flags.writeable else ", read-only"))
        raise ValueError(f"{name}: expected a writeable C-contiguous {np.dtype(dtype)} array of shape "
                         f"{shape}; got {got}")


def class_moments(X, y, int n_classes, counts, mean, ss, constant, column_mean, column_constant,
                  int n_threads=1):
    """Per-class moments of every column of ``X``, in parallel over features.

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features), any layout
        C-contiguous, Fortran-ordered or a strided view (strides whole multiples of
        8 bytes); read in place, never copied.  Finite values.
    y : ndarray of int32, shape (n_samples,), C-contiguous
        Class codes 0..n_classes-1 (codes no sample uses are allowed).
    n_classes : int >= 1
    counts : ndarray of int64, shape (n_classes,)
        Receives the class sizes.
    mean, ss : ndarray of float64, shape (n_features, n_classes)
        Receive the class means and sums of squared deviations about them.
    constant : ndarray of uint8, shape (n_features, n_classes)
        Receives 1 where the class is constant in the feature (min == max), else 0.
    column_mean : ndarray of float64, shape (n_features,)
    column_constant : ndarray of uint8, shape (n_features,)
        Receive the mean of each feature and whether it is constant.
    n_threads : int >= 1
        OpenMP threads (ignored when built without OpenMP); the results do not depend on it.

    Every output must be a writeable C-contiguous array of exactly that dtype and shape.
    See the module docstring for the definitions (empty classes, overflow).

    Raises
    ------
    ValueError
        Wrong shapes, dtypes or layouts, a class code outside 0..n_classes-1,
        n_classes < 1, n_threads < 1, or a NaN / infinite value in ``X``.
    """
    if not isinstance(X, np.ndarray) or X.dtype != np.float64 or X.ndim != 2:
        raise ValueError(f"X: expected a 2-D float64 ndarray (samples x features); got "
                         f"{type(X).__name__ if not isinstance(X, np.ndarray) else f'{X.dtype} array of {X.ndim}-D'}")
    if not isinstance(y, np.ndarray) or y.dtype != np.int32 or y.ndim != 1 or not y.flags.c_contiguous:
        raise ValueError("y: expected a 1-D C-contiguous int32 ndarray of class codes")
    cdef Py_ssize_t m = X.shape[0]
    cdef Py_ssize_t n_features = X.shape[1]
    check_length("y", y.shape[0], m, "class codes (one per sample)")
    check_at_least_one("n_classes", n_classes)
    check_threads(n_threads)
    check_double_strides("X", X.strides[0], X.strides[1])
    _check_output("counts", counts, (n_classes,), np.int64)
    _check_output("mean", mean, (n_features, n_classes), np.float64)
    _check_output("ss", ss, (n_features, n_classes), np.float64)
    _check_output("constant", constant, (n_features, n_classes), np.uint8)
    _check_output("column_mean", column_mean, (n_features,), np.float64)
    _check_output("column_constant", column_constant, (n_features,), np.uint8)

    cdef const int32_t[::1] codes = y
    cdef int64_t[::1] class_count = counts
    cdef Py_ssize_t i
    class_count[:] = 0
    check_class_codes("y", codes, n_classes)
    with nogil:
        for i in range(m):
            class_count[codes[i]] += 1
    if n_features == 0:
        return

    cdef Py_ssize_t width = BLOCK_WIDTH if n_classes <= WIDE_CLASS_LIMIT else 1
    cdef Py_ssize_t n_blocks = (n_features + width - 1) // width
    cdef Py_ssize_t row_stride = X.strides[0] // 8
    cdef Py_ssize_t column_stride = X.strides[1] // 8
    cdef cnp.ndarray X_array = X
    cdef const double* data = <const double*> cnp.PyArray_DATA(X_array)
    cdef double[:, ::1] mean_view = mean
    cdef double[:, ::1] ss_view = ss
    cdef uint8_t[:, ::1] constant_view = constant
    cdef double[::1] column_mean_view = column_mean
    cdef uint8_t[::1] column_constant_view = column_constant
    cdef const int32_t* code_ptr = &codes[0] if m > 0 else NULL
    cdef const int64_t* count_ptr = &class_count[0]
    cdef int32_t[::1] status = np.zeros(n_blocks, dtype=np.int32)
    cdef Py_ssize_t block, first_feature, block_width
    cdef double* scratch
    cdef SignalCheck check
    signal_check_init(&check, 1)
    with nogil, parallel(num_threads=n_threads):
        scratch = <double*> malloc(3 * width * n_classes * sizeof(double))
        for block in prange(n_blocks, schedule="dynamic"):
            first_feature = block * width
            block_width = block_length(first_feature, width, n_features)
            if stop_requested(&check):
                pass  # Ctrl-C: the remaining blocks are skipped
            elif scratch == NULL:
                status[block] = OUT_OF_MEMORY
            else:
                status[block] = _block_moments(
                    data + first_feature * column_stride, row_stride, column_stride, block_width, m,
                    code_ptr, n_classes, count_ptr, &mean_view[first_feature, 0], &ss_view[first_feature, 0],
                    &constant_view[first_feature, 0], &column_mean_view[first_feature],
                    &column_constant_view[first_feature], scratch, scratch + width * n_classes,
                    scratch + 2 * width * n_classes)
        free(scratch)
    raise_if_stopped(&check)
    worst = max_status(status)
    if worst == OUT_OF_MEMORY:
        raise MemoryError(f"class_moments: could not allocate {3 * width * n_classes * 8} bytes of scratch per thread")
    if worst == NON_FINITE:
        raise ValueError("X: non-finite values (NaN or inf); allowed: finite numbers")


# ---------------------------------------------------------------------------
# non-finite and constant columns in one pass (the checks of a design)
# ---------------------------------------------------------------------------

#: Columns of a row-major matrix checked together by one thread (their accumulators stay in L1).
CHECK_BLOCK_COLUMNS = 256


cdef extern from *:
    """
    /* One pass over rows of `width` adjacent float64 columns (row stride `row_stride`):
       bad[j] += v - v (0 for a finite v, NaN for NaN or an infinity: the sum is NaN exactly when
       column j holds one) and spread[j] += |v - first[j]| (a sum of non-negative terms, 0 exactly
       when every value equals first[j]: the difference of two different doubles is never 0).
       In C for the restrict qualifiers: the loop over the columns vectorises. */
    FSTOOLS_VECTOR_CLONES
    static void fstools_column_flag_rows(const double* restrict X, Py_ssize_t row_stride, Py_ssize_t m,
                                         Py_ssize_t width, const double* restrict first,
                                         double* restrict bad, double* restrict spread)
    {
        Py_ssize_t i, j;
        for (i = 0; i < m; ++i) {
            const double* restrict row = X + i * row_stride;
            for (j = 0; j < width; ++j) {
                double v = row[j];
                double d = v - first[j];
                bad[j] += v - v;
                spread[j] += d < 0.0 ? -d : d;
            }
        }
    }
    """
    void fstools_column_flag_rows(const double* X, Py_ssize_t row_stride, Py_ssize_t m, Py_ssize_t width,
                                  const double* first, double* bad, double* spread) noexcept nogil


def column_flags(X, int n_threads=1):
    """Which columns of a float64 matrix hold a non-finite value, and which are constant: one pass.

    Parameters
    ----------
    X : ndarray of float64, shape (m, n)
        Any strides (C or Fortran order are read without a copy).
    n_threads : int, default 1
        OpenMP threads over blocks of columns; the result does not depend on it.

    Returns
    -------
    nonfinite : ndarray of bool, shape (n,)
        True where the column holds NaN or an infinity.
    constant : ndarray of bool, shape (n,)
        True where every value equals the column's first (exact comparison; a column with NaN
        or an infinity is not constant, as ``X.max(0) == X.min(0)`` says of NaN); every column
        of a matrix without rows.

    Notes
    -----
    The equivalent of ``~np.isfinite(X).all(axis=0)`` and ``(X == X[0]).all(axis=0)`` without
    a temporary of the size of ``X`` and with one read of it: row-major, the rows of a block of
    CHECK_BLOCK_COLUMNS columns in order (vectorised over the columns); otherwise a column at a
    time.  Each column's sums are taken in row order by one thread, so the result does not
    depend on ``n_threads``.
    """
    if not isinstance(X, np.ndarray) or X.ndim != 2 or X.dtype != np.float64:
        raise TypeError("X: must be a 2-D NumPy array of float64")
    check_threads(n_threads)
    cdef Py_ssize_t m = X.shape[0]
    cdef Py_ssize_t n = X.shape[1]
    if m == 0:
        return np.zeros(n, dtype=bool), np.ones(n, dtype=bool)
    if n == 0:
        return np.zeros(0, dtype=bool), np.zeros(0, dtype=bool)
    if X.strides[0] % 8 or X.strides[1] % 8:
        X = np.ascontiguousarray(X)
    bad = np.zeros(n, dtype=np.float64)
    spread = np.zeros(n, dtype=np.float64)
    cdef const double[:, :] view = X
    cdef double[::1] bad_view = bad
    cdef double[::1] spread_view = spread
    cdef Py_ssize_t row_stride = view.strides[0] // 8
    cdef Py_ssize_t column_stride = view.strides[1] // 8
    cdef const double* base = &view[0, 0]
    cdef Py_ssize_t width, n_blocks, b, start, j
    cdef SignalCheck check
    signal_check_init(&check, 1)
    if column_stride == 1 and m > 1:  # row-major: blocks of columns, each read a row at a time
        width = min(n, CHECK_BLOCK_COLUMNS)
        n_blocks = (n + width - 1) // width
        with nogil:
            for b in prange(n_blocks, schedule='static', num_threads=n_threads):
                if stop_requested(&check):
                    continue
                start = b * width
                fstools_column_flag_rows(base + start, row_stride, m, block_length(start, width, n),
                                         base + start, &bad_view[start], &spread_view[start])
    else:  # a column at a time (Fortran order, or other strides): a column is a block of width 1
        with nogil:
            for j in prange(n, schedule='static', num_threads=n_threads):
                if stop_requested(&check):
                    continue
                fstools_column_flag_rows(base + j * column_stride, row_stride, m, 1, base + j * column_stride,
                                         &bad_view[j], &spread_view[j])
    raise_if_stopped(&check)
    nonfinite = bad != 0.0  # NaN != 0
    return nonfinite, (spread == 0.0) & ~nonfinite


# ---------------------------------------------------------------------------
# the smallest and largest value of every column of an integer matrix, one pass
# ---------------------------------------------------------------------------

ctypedef fused integer_value_t:
    int8_t
    uint8_t
    int16_t
    int32_t
    int64_t


cdef extern from *:
    """
    #include <stdint.h>
    /* One pass over rows 1 .. m - 1 of `width` adjacent integer columns (row stride `row_stride`),
       low[j] and high[j] starting from row 0: the column's smallest and largest value.  In C for
       the restrict qualifiers: the loop over the columns vectorises (compare and blend). */
    #define FSTOOLS_EXTREME_ROWS(NAME, T)                                                        \\
    FSTOOLS_VECTOR_CLONES                                                                         \\
    static void NAME(const T* restrict X, Py_ssize_t row_stride, Py_ssize_t m, Py_ssize_t width,  \\
                     T* restrict low, T* restrict high)                                            \\
    {                                                                                              \\
        Py_ssize_t i, j;                                                                           \\
        for (j = 0; j < width; ++j) {                                                              \\
            low[j] = X[j];                                                                         \\
            high[j] = X[j];                                                                        \\
        }                                                                                          \\
        /* four rows at a time: one load and one store of low[j] and high[j] per four values */  \\
        for (i = 1; i + 4 <= m; i += 4) {                                                          \\
            const T* restrict r0 = X + i * row_stride;                                             \\
            const T* restrict r1 = r0 + row_stride;                                                \\
            const T* restrict r2 = r1 + row_stride;                                                \\
            const T* restrict r3 = r2 + row_stride;                                                \\
            for (j = 0; j < width; ++j) {                                                          \\
                const T a = r0[j] < r1[j] ? r0[j] : r1[j], b = r2[j] < r3[j] ? r2[j] : r3[j];      \\
                const T c = r0[j] > r1[j] ? r0[j] : r1[j], d = r2[j] > r3[j] ? r2[j] : r3[j];      \\
                const T smaller = a < b ? a : b, larger = c > d ? c : d;                           \\
                low[j] = smaller < low[j] ? smaller : low[j];                                      \\
                high[j] = larger > high[j] ? larger : high[j];                                     \\
            }                                                                                      \\
        }                                                                                          \\
        for (; i < m; ++i) {                                                                       \\
            const T* restrict row = X + i * row_stride;                                            \\
            for (j = 0; j < width; ++j) {                                                          \\
                const T v = row[j];                                                                \\
                low[j] = v < low[j] ? v : low[j];                                                  \\
                high[j] = v > high[j] ? v : high[j];                                               \\
            }                                                                                      \\
        }                                                                                          \\
    }
    FSTOOLS_EXTREME_ROWS(fstools_extreme_rows_int8, int8_t)
    FSTOOLS_EXTREME_ROWS(fstools_extreme_rows_uint8, uint8_t)
    FSTOOLS_EXTREME_ROWS(fstools_extreme_rows_int16, int16_t)
    FSTOOLS_EXTREME_ROWS(fstools_extreme_rows_int32, int32_t)
    FSTOOLS_EXTREME_ROWS(fstools_extreme_rows_int64, int64_t)
    /* The same for one contiguous column x[0:m] (a column-major X): a reduction over the rows,
       vectorised by the compiler (integer minimum and maximum are associative). */
    #define FSTOOLS_EXTREME_COLUMN(NAME, T)                                                      \\
    FSTOOLS_VECTOR_CLONES                                                                         \\
    static void NAME(const T* restrict x, Py_ssize_t m, T* restrict low, T* restrict high)        \\
    {                                                                                              \\
        Py_ssize_t i;                                                                              \\
        T smallest = x[0], largest = x[0];                                                         \\
        for (i = 1; i < m; ++i) {                                                                  \\
            smallest = x[i] < smallest ? x[i] : smallest;                                          \\
            largest = x[i] > largest ? x[i] : largest;                                             \\
        }                                                                                          \\
        *low = smallest;                                                                           \\
        *high = largest;                                                                           \\
    }
    FSTOOLS_EXTREME_COLUMN(fstools_extreme_column_int8, int8_t)
    FSTOOLS_EXTREME_COLUMN(fstools_extreme_column_uint8, uint8_t)
    FSTOOLS_EXTREME_COLUMN(fstools_extreme_column_int16, int16_t)
    FSTOOLS_EXTREME_COLUMN(fstools_extreme_column_int32, int32_t)
    FSTOOLS_EXTREME_COLUMN(fstools_extreme_column_int64, int64_t)
    """
    void extreme_rows_int8 "fstools_extreme_rows_int8"(const int8_t* X, Py_ssize_t row_stride, Py_ssize_t m,
                                                       Py_ssize_t width, int8_t* low, int8_t* high) noexcept nogil
    void extreme_rows_uint8 "fstools_extreme_rows_uint8"(const uint8_t* X, Py_ssize_t row_stride, Py_ssize_t m,
                                                         Py_ssize_t width, uint8_t* low, uint8_t* high) noexcept nogil
    void extreme_rows_int16 "fstools_extreme_rows_int16"(const int16_t* X, Py_ssize_t row_stride, Py_ssize_t m,
                                                         Py_ssize_t width, int16_t* low, int16_t* high) noexcept nogil
    void extreme_rows_int32 "fstools_extreme_rows_int32"(const int32_t* X, Py_ssize_t row_stride, Py_ssize_t m,
                                                         Py_ssize_t width, int32_t* low, int32_t* high) noexcept nogil
    void extreme_rows_int64 "fstools_extreme_rows_int64"(const int64_t* X, Py_ssize_t row_stride, Py_ssize_t m,
                                                         Py_ssize_t width, int64_t* low, int64_t* high) noexcept nogil
    void extreme_column_int8 "fstools_extreme_column_int8"(const int8_t* x, Py_ssize_t m, int8_t* low,
                                                           int8_t* high) noexcept nogil
    void extreme_column_uint8 "fstools_extreme_column_uint8"(const uint8_t* x, Py_ssize_t m, uint8_t* low,
                                                             uint8_t* high) noexcept nogil
    void extreme_column_int16 "fstools_extreme_column_int16"(const int16_t* x, Py_ssize_t m, int16_t* low,
                                                             int16_t* high) noexcept nogil
    void extreme_column_int32 "fstools_extreme_column_int32"(const int32_t* x, Py_ssize_t m, int32_t* low,
                                                             int32_t* high) noexcept nogil
    void extreme_column_int64 "fstools_extreme_column_int64"(const int64_t* x, Py_ssize_t m, int64_t* low,
                                                             int64_t* high) noexcept nogil


cdef inline void _extreme_rows(const integer_value_t* X, Py_ssize_t row_stride, Py_ssize_t m, Py_ssize_t width,
                               integer_value_t* low, integer_value_t* high) noexcept nogil:
    """The C loop of the type of ``X`` (:c:func:`fstools_extreme_rows_<type>`)."""
    if integer_value_t is int8_t:
        extreme_rows_int8(X, row_stride, m, width, low, high)
    elif integer_value_t is uint8_t:
        extreme_rows_uint8(X, row_stride, m, width, low, high)
    elif integer_value_t is int16_t:
        extreme_rows_int16(X, row_stride, m, width, low, high)
    elif integer_value_t is int32_t:
        extreme_rows_int32(X, row_stride, m, width, low, high)
    else:
        extreme_rows_int64(X, row_stride, m, width, low, high)


cdef inline void _extreme_column(const integer_value_t* x, Py_ssize_t m, integer_value_t* low,
                                 integer_value_t* high) noexcept nogil:
    """The C loop of the type of ``x`` (:c:func:`fstools_extreme_column_<type>`)."""
    if integer_value_t is int8_t:
        extreme_column_int8(x, m, low, high)
    elif integer_value_t is uint8_t:
        extreme_column_uint8(x, m, low, high)
    elif integer_value_t is int16_t:
        extreme_column_int16(x, m, low, high)
    elif integer_value_t is int32_t:
        extreme_column_int32(x, m, low, high)
    else:
        extreme_column_int64(x, m, low, high)


def _column_extremes(const integer_value_t[:, :] X, integer_value_t[::1] low, integer_value_t[::1] high,
                     int n_threads):
    cdef Py_ssize_t m = X.shape[0]
    cdef Py_ssize_t n = X.shape[1]
    cdef Py_ssize_t row_stride = X.strides[0] // sizeof(integer_value_t)
    cdef Py_ssize_t column_stride = X.strides[1] // sizeof(integer_value_t)
    cdef const integer_value_t* base = &X[0, 0]
    cdef Py_ssize_t width, n_blocks, b, start, j
    cdef SignalCheck check
    signal_check_init(&check, 1)
    if column_stride == 1 and m > 1:  # row-major: blocks of columns, each read a row at a time
        width = min(n, CHECK_BLOCK_COLUMNS)
        n_blocks = (n + width - 1) // width
        with nogil:
            for b in prange(n_blocks, schedule='static', num_threads=n_threads):
                if stop_requested(&check):
                    continue
                start = b * width
                _extreme_rows(base + start, row_stride, m, block_length(start, width, n), &low[start], &high[start])
    else:  # a column at a time (Fortran order, or other strides): a column is a block of width 1
        with nogil:
            for j in prange(n, schedule='static', num_threads=n_threads):
                if stop_requested(&check):
                    continue
                if row_stride == 1:  # a contiguous column (column-major X): a vectorised reduction
                    _extreme_column(base + j * column_stride, m, &low[j], &high[j])
                else:
                    _extreme_rows(base + j * column_stride, row_stride, m, 1, &low[j], &high[j])
    raise_if_stopped(&check)


#: The dtypes :func:`column_extremes` reads (bool as the bytes 0 and 1).
INTEGER_EXTREME_DTYPES = tuple(np.dtype(name) for name in ("bool", "int8", "uint8", "int16", "int32", "int64"))


def column_extremes(X, int n_threads=1):
    """The smallest and the largest value of every column of an integer (or bool) matrix: one pass.

    Parameters
    ----------
    X : ndarray of bool, int8, uint8, int16, int32 or int64, shape (m, n), m >= 1
        Any strides (read as they are; strides that are not whole elements are copied into
        C order first).
    n_threads : int, default 1
        OpenMP threads over blocks of columns; the result does not depend on it.

    Returns
    -------
    low, high : ndarray of int64, shape (n,)
        ``X.min(axis=0)`` and ``X.max(axis=0)`` (bool: 0 and 1), with one read of ``X``
        instead of two: row-major, the rows of a block of CHECK_BLOCK_COLUMNS columns in
        order (vectorised over the columns); otherwise a column at a time (vectorised over
        the rows of a contiguous column).
    """
    if not isinstance(X, np.ndarray) or X.ndim != 2 or X.dtype not in INTEGER_EXTREME_DTYPES:
        raise TypeError(f"X: must be a 2-D NumPy array of one of "
                        f"{', '.join(str(dtype) for dtype in INTEGER_EXTREME_DTYPES)}")
    if X.shape[0] == 0:
        raise ValueError("X: has no rows: a column without values has no smallest or largest value")
    check_threads(n_threads)
    if X.dtype == np.bool_:
        X = X.view(np.uint8)
    if X.strides[0] % X.itemsize or X.strides[1] % X.itemsize:
        X = np.ascontiguousarray(X)
    low = np.empty(X.shape[1], dtype=X.dtype)
    high = np.empty(X.shape[1], dtype=X.dtype)
    if X.shape[1]:
        _column_extremes(X, low, high, n_threads)
    return low.astype(np.int64), high.astype(np.int64)

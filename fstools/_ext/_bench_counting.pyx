# cython: language_level=3
"""Plain C loops: the yardsticks of ``benchmarks/bench_counting.py`` and ``bench_threads.py`` (private, not API).

The loop a C programmer writes for a contingency table -- one table, one increment per
sample -- compiled by the same build (same compiler, flags and directives) as the kernels,
so that the benchmark compares the counting loops of :mod:`fstools._ext._entropy` with C
on the same codes; and a plain memory stream (:func:`stream_to_int8`), the ceiling that
the machine's memory bandwidth puts on any pass over a large matrix.  Nothing in fstools
uses this module.
"""
import numpy as np

from cython.parallel import prange
from libc.stdint cimport int8_t, int32_t, int64_t

cdef extern from *:
    """
    #include <stddef.h>
    #include <stdint.h>
    static void fstools_plain_count2(const int8_t* a, const int32_t* c, ptrdiff_t nc, ptrdiff_t m,
                                     int64_t* table) {
        for (ptrdiff_t i = 0; i < m; i++)
            table[a[i] * nc + c[i]]++;
    }
    static void fstools_plain_count3(const int8_t* a, const int8_t* b, ptrdiff_t nb, const int32_t* c,
                                     ptrdiff_t nc, ptrdiff_t m, int64_t* table) {
        for (ptrdiff_t i = 0; i < m; i++)
            table[(a[i] * nb + b[i]) * nc + c[i]]++;
    }
    """
    void plain_count2 "fstools_plain_count2"(const int8_t* a, const int32_t* c, Py_ssize_t nc, Py_ssize_t m,
                                             int64_t* table) noexcept nogil
    void plain_count3 "fstools_plain_count3"(const int8_t* a, const int8_t* b, Py_ssize_t nb, const int32_t* c,
                                             Py_ssize_t nc, Py_ssize_t m, int64_t* table) noexcept nogil


def feature_class_tables(const int8_t[:, ::1] codes, Py_ssize_t n_levels, const int32_t[::1] y,
                         Py_ssize_t n_classes):
    """The (level, class) table of every row of ``codes`` (codes in 0..n_levels-1, unchecked),
    shape (n_features, n_levels * n_classes)."""
    if codes.shape[1] != y.shape[0]:
        raise ValueError("y: must have one class code per column of codes")
    tables = np.zeros((codes.shape[0], n_levels * n_classes), dtype=np.int64)
    cdef int64_t[:, ::1] out = tables
    cdef Py_ssize_t j
    if codes.shape[0] == 0 or codes.shape[1] == 0:
        return tables
    with nogil:
        for j in range(codes.shape[0]):
            plain_count2(&codes[j, 0], &y[0], n_classes, codes.shape[1], &out[j, 0])
    return tables


def pair_tables(const int8_t[:, ::1] codes, Py_ssize_t n_levels, Py_ssize_t selected, const int32_t[::1] y,
                Py_ssize_t n_classes):
    """The (candidate, selected, class) table of every row of ``codes`` with row ``selected``,
    shape (n_features, n_levels ** 2 * n_classes) (codes unchecked)."""
    if codes.shape[1] != y.shape[0] or not 0 <= selected < codes.shape[0]:
        raise ValueError("y, selected: one class code per column of codes, a row of codes")
    tables = np.zeros((codes.shape[0], n_levels * n_levels * n_classes), dtype=np.int64)
    cdef int64_t[:, ::1] out = tables
    cdef Py_ssize_t j
    if codes.shape[1] == 0:
        return tables
    with nogil:
        for j in range(codes.shape[0]):
            plain_count3(&codes[j, 0], &codes[selected, 0], n_levels, &y[0], n_classes, codes.shape[1],
                         &out[j, 0])
    return tables



cdef extern from *:
    """
    /* The plain memory stream, one chunk: the loop a C programmer writes. */
    static void fstools_stream_to_int8(const double* x, int8_t* out, ptrdiff_t n) {
        for (ptrdiff_t i = 0; i < n; i++)
            out[i] = (int8_t) x[i];
    }
    """
    void stream_chunk "fstools_stream_to_int8"(const double* x, int8_t* out, Py_ssize_t n) noexcept nogil


cdef enum:
    STREAM_CHUNK = 1 << 16  # values per work item of stream_to_int8


def stream_to_int8(const double[::1] x, int8_t[::1] out, int n_threads=1):
    """``out[i] = (int8) x[i]``: one read of ``x`` and one write of ``out``, nothing else.

    The plain C stream over a matrix (OpenMP, static schedule over chunks of 65,536 values):
    its time on 1 and 2 threads is the memory-bandwidth ceiling of a pass that reads a
    float64 matrix and writes a byte per value (``benchmarks/bench_threads.py``)."""
    cdef Py_ssize_t n = x.shape[0]
    cdef Py_ssize_t chunk, start, n_chunks = (n + STREAM_CHUNK - 1) // STREAM_CHUNK
    if out.shape[0] != n:
        raise ValueError(f"out: must have the length of x ({n}); got {out.shape[0]}")
    if n_threads < 1:
        raise ValueError(f"n_threads: must be >= 1; got {n_threads}")
    for chunk in prange(n_chunks, nogil=True, num_threads=n_threads, schedule='static'):
        start = chunk * STREAM_CHUNK
        stream_chunk(&x[start], &out[start], min(<Py_ssize_t> STREAM_CHUNK, n - start))

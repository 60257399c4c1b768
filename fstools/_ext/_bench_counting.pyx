# cython: language_level=3
"""Plain C counting loops: the yardstick of ``benchmarks/bench_counting.py`` (private, not API).

The loop a C programmer writes for a contingency table -- one table, one increment per
sample -- compiled by the same build (same compiler, flags and directives) as the kernels,
so that the benchmark compares the counting loops of :mod:`fstools._ext._entropy` with C
on the same codes.  Nothing in fstools uses this module.
"""
import numpy as np

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

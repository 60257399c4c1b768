# cython: language_level=3
"""Counting-table helpers shared by the information kernels (_entropy, _permutation).

``count_t`` is the type of a cell of a counting table; :func:`entropy_of_counts` the plug-in
entropy (nats) of the distribution a table of counts describes.
"""
from libc.math cimport log
from libc.stdint cimport int64_t

ctypedef int64_t count_t


cdef inline double entropy_of_counts(const count_t* counts, Py_ssize_t n_cells, Py_ssize_t m) noexcept nogil:
    """H = (m log m - sum n log n) / m over the cells of ``counts`` (total m)."""
    cdef double sum_nlogn = 0.0
    cdef double n
    cdef Py_ssize_t k
    for k in range(n_cells):
        if counts[k] > 1:  # n log n is 0 for n = 0 (by convention) and n = 1
            n = <double> counts[k]
            sum_nlogn += n * log(n)
    return (<double> m * log(<double> m) - sum_nlogn) / m

# cython: language_level=3
"""Sorting and selection helpers of the kernels (implemented in ``_sorting.pyx``).

* :func:`stable_argsort` -- sample indices sorted by (value, index): a stable
  bottom-up merge sort (the tie rule of the feature vector graph);
* :func:`sort_by_value` -- the same order, and the sorted values, of a (strided) column by a
  radix sort in linear time;
* :func:`heap_sort` -- int32 items ascending in place, without extra memory;
* :func:`kth_largest` -- the k-th largest double by quickselect;
* :func:`lower_bound` -- binary search in an ascending array of any ``sorted_t`` (inline).
"""
from libc.stdint cimport int32_t

from fstools._ext._typedefs cimport sorted_t


cdef void stable_argsort(const double* values, Py_ssize_t n, int32_t* order,
                         int32_t* buffer) noexcept nogil
cdef int sort_by_value(const double* x, Py_ssize_t stride, Py_ssize_t n, int32_t* order,
                       double* sorted_values) noexcept nogil
cdef void heap_sort(int32_t* items, Py_ssize_t n) noexcept nogil
cdef double kth_largest(double* values, Py_ssize_t n, Py_ssize_t k) noexcept nogil


cdef inline Py_ssize_t lower_bound(const sorted_t* sorted_values, Py_ssize_t n,
                                   sorted_t key) noexcept nogil:
    """Number of entries of ``sorted_values[0:n]`` (ascending) strictly below ``key``."""
    cdef Py_ssize_t low = 0
    cdef Py_ssize_t high = n
    cdef Py_ssize_t mid
    while low < high:
        mid = (low + high) // 2
        if sorted_values[mid] < key:
            low = mid + 1
        else:
            high = mid
    return low

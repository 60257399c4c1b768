# cython: language_level=3
"""Argument checks shared by the kernels (declared in ``_common.pxd``).

Each raises ValueError with a message that starts with the argument's name; the
kernels call them in their ``def`` wrappers, once per call, before any nogil
loop reads memory on the strength of the argument.
"""
from libc.stdint cimport int32_t


cdef int check_threads(int n_threads) except -1:
    """The OpenMP thread count of a ``prange``."""
    if n_threads < 1:
        raise ValueError(f"n_threads: must be an integer >= 1; got {n_threads}")
    return 0


cdef int check_at_least_one(str name, Py_ssize_t value) except -1:
    """A count (classes, neighbours, ...) that must be >= 1."""
    if value < 1:
        raise ValueError(f"{name}: must be an integer >= 1; got {value}")
    return 0


cdef int check_length(str name, Py_ssize_t length, Py_ssize_t expected, str what) except -1:
    """An array of ``expected`` entries (``what``, e.g. "class codes (one per sample)")."""
    if length != expected:
        raise ValueError(f"{name}: expected {expected} {what}, got {length}")
    return 0


cdef int check_class_codes(str name, const int32_t[::1] codes, Py_ssize_t n_classes) except -1:
    """Class codes in ``0 .. n_classes-1`` (an empty array passes)."""
    cdef Py_ssize_t bad = -1
    if codes.shape[0] > 0:
        with nogil:
            bad = first_out_of_range(&codes[0], codes.shape[0], n_classes)
    if bad >= 0:
        raise ValueError(f"{name}: class codes must lie in 0..n_classes-1 = 0..{n_classes - 1}; "
                         f"got {codes[bad]} at position {bad}")
    return 0


cdef int check_double_strides(str name, Py_ssize_t row_stride, Py_ssize_t column_stride) except -1:
    """A 2-D float64 array read through a double pointer: strides in whole doubles."""
    if row_stride % <Py_ssize_t> sizeof(double) or column_stride % <Py_ssize_t> sizeof(double):
        raise ValueError(f"{name}: strides {row_stride}, {column_stride} bytes are not whole multiples of "
                         f"{sizeof(double)} (make it contiguous first)")
    return 0

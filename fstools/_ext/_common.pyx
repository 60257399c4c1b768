# cython: language_level=3
"""Argument checks shared by the kernels (declared in ``_common.pxd``).

Each raises ValueError with a message that starts with the argument's name; the
kernels call them in their ``def`` wrappers, once per call, before any nogil
loop reads memory on the strength of the argument.

Also the two halves of the Ctrl-C check of the long loops that need the GIL
(see ``_common.pxd``): :func:`signals_raised` and :func:`raise_if_stopped`.
"""
from cpython.exc cimport PyErr_Occurred
from libc.stdint cimport int32_t


cdef extern from "Python.h":
    # Declared here without an exception value: the exception a signal handler raised
    # stays pending in the thread state until raise_if_stopped raises it.
    int _check_signals "PyErr_CheckSignals"() noexcept


cdef bint signals_raised() noexcept nogil:
    """Run the Python signal handlers (with the GIL); True when one raised.

    Its exception (KeyboardInterrupt for Ctrl-C) is left pending for
    :func:`raise_if_stopped`.  Outside the main thread no handler runs and
    this is False.
    """
    cdef int result
    with gil:
        result = _check_signals()
    return result != 0


cdef int raise_if_stopped(SignalCheck* check) except -1:
    """Raise the exception of the signal handler that stopped a loop (with the GIL,
    after the loop; the caller has freed its buffers).  Returns 0 when not stopped."""
    if not check.stop:
        return 0
    if PyErr_Occurred() != NULL:
        return -1
    raise KeyboardInterrupt


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


#: The dtypes of X that the kernels reading a matrix of values take as they are (``sorted_t`` of
#: _typedefs; booleans are viewed as uint8): the one list for their callers.
VALUE_DTYPES = tuple(__import__("numpy").dtype(name) for name in ("float64", "float32", "int64", "int32", "int16",
                                                                   "int8", "uint8", "bool"))


cdef object value_matrix(object X):
    """``X`` as the kernels that read a matrix of values take it (``sorted_t`` of _typedefs): a 2-D
    NumPy array of float64, float32, int64, int32, int16, int8 or uint8, a boolean one viewed as
    uint8; TypeError naming ``X`` otherwise."""
    import numpy as np
    if not isinstance(X, np.ndarray):
        raise TypeError(f"X: must be a 2-D NumPy array; got {type(X).__name__}")
    if X.ndim != 2:
        raise TypeError(f"X: must be a 2-D NumPy array; got a {X.ndim}-D array")
    if X.dtype not in VALUE_DTYPES:
        raise TypeError(f"X: unsupported dtype {X.dtype}; allowed: {', '.join(map(str, VALUE_DTYPES))}")
    if X.dtype == np.bool_:
        X = X.view(np.uint8)
    return X

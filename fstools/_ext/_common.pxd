# cython: language_level=3
"""Status codes, argument checks and small nogil helpers shared by the kernels.

The inline helpers are compiled into every kernel that cimports them; the checks
(``check_*``, implemented in ``_common.pyx``) raise ValueError with a message that
names the argument, and are called by the ``def`` wrappers before any nogil loop.
"""
from libc.stdint cimport int32_t

from fstools._ext._typedefs cimport code_t

# Status codes of the nogil cores: returned, or stored per work item of a parallel
# loop and raised after it.  Where a kernel reduces the codes of a loop with
# :func:`max_status`, the larger code wins (OUT_OF_MEMORY over NON_FINITE).
cdef enum:
    OK = 0
    NON_FINITE = 1
    OUT_OF_MEMORY = 2
    BAD_CODE = 3
    BAD_LABEL = 4
    ROW_TOO_WIDE = 5
    TOO_MANY_SYNTHETIC = 6


cdef inline Py_ssize_t first_out_of_range(const code_t* codes, Py_ssize_t n,
                                          Py_ssize_t n_levels) noexcept nogil:
    """Index of the first of ``codes[0:n]`` outside ``0 .. n_levels-1``, or -1 if none."""
    cdef Py_ssize_t i
    for i in range(n):
        if codes[i] < 0 or codes[i] >= n_levels:
            return i
    return -1


cdef inline int max_status(const int32_t[::1] status) noexcept nogil:
    """The largest status code of a parallel loop (OK for none)."""
    cdef int worst = OK
    cdef Py_ssize_t i
    for i in range(status.shape[0]):
        if status[i] > worst:
            worst = status[i]
    return worst


cdef inline Py_ssize_t block_length(Py_ssize_t first, Py_ssize_t block_size,
                                    Py_ssize_t total) noexcept nogil:
    """Length of the block of at most ``block_size`` items starting at ``first`` of ``total``."""
    return block_size if total - first > block_size else total - first


cdef int check_threads(int n_threads) except -1
cdef int check_at_least_one(str name, Py_ssize_t value) except -1
cdef int check_length(str name, Py_ssize_t length, Py_ssize_t expected, str what) except -1
cdef int check_class_codes(str name, const int32_t[::1] codes, Py_ssize_t n_classes) except -1
cdef int check_double_strides(str name, Py_ssize_t row_stride, Py_ssize_t column_stride) except -1

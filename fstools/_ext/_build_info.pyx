# cython: language_level=3
"""How the kernels were compiled: with or without Cython bounds checking.

``setup.py`` compiles every ``fstools/_ext/*.pyx`` -- this module included -- with the
same compiler directives, so what holds here holds for the kernels.
:func:`bounds_checked` does not trust a flag: it indexes a typed memoryview one past
its end (inside memory that belongs to a larger array, so the unchecked build reads a
valid element) and reports whether Cython raised IndexError.  CI runs the kernel tests
against a build made with ``FSTOOLS_BOUNDSCHECK=1`` and asserts ``bounds_checked()``.
"""
import numpy as np


def bounds_checked():
    """True when memoryview indexing is bounds checked (built with ``FSTOOLS_BOUNDSCHECK=1``)."""
    storage = np.arange(4, dtype=np.float64)
    cdef double[::1] view = storage[:2]
    cdef Py_ssize_t past_the_end = 2
    cdef double value
    try:
        value = view[past_the_end]  # storage[2] without checking: valid memory
    except IndexError:
        return True
    return False


def wraparound_checked():
    """True when negative memoryview indices wrap around (on together with bounds checking)."""
    storage = np.arange(4, dtype=np.float64)
    cdef double[::1] view = storage[2:]
    cdef Py_ssize_t last = -1
    # with wraparound, view[-1] is storage[3]; without, it is storage[1] (valid memory)
    return view[last] == storage[3]


def build_mode():
    """``"boundscheck"`` or ``"release"``, from :func:`bounds_checked`."""
    return "boundscheck" if bounds_checked() else "release"

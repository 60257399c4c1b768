# cython: language_level=3
"""Types shared by the kernels (declarations only; nothing to import at run time).

``code_t`` and ``third_code_t`` are the integer codes of a discrete variable
(int8 and int16 from :mod:`fstools.core.discretize`, int32 too, and the int32
class codes of every kernel); ``third_code_t`` is the same set as an
independent fused type, for a third variable whose dtype need not be that of
the first two.  ``sorted_t`` is any element type of a sorted array searched by
:func:`fstools._ext._sorting.lower_bound`.  ``csr_index_t`` is the index type of scipy's CSR arrays.
"""
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t

ctypedef fused code_t:
    int8_t
    int16_t
    int32_t

ctypedef fused third_code_t:
    int8_t
    int16_t
    int32_t

ctypedef fused sorted_t:
    double
    float
    int64_t
    int32_t
    int16_t
    int8_t
    uint8_t

ctypedef fused csr_index_t:
    int32_t
    int64_t

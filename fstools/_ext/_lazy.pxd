# cython: language_level=3
"""Fleuret's lazy evaluation of CMIM, shared by the byte-code and the bit-plane kernels.

:func:`lazy_cmim_loop` is the loop of ``fstools._ext._entropy.lazy_cmim`` (see its docstring
for the method); the conditional information I(X_j;C|X_s) of a candidate and a selected
feature comes from a callback, so that the byte codes (``_entropy``) and the bit-planes
(``_bitcount``) run the very same loop on their own counting.
"""
from libc.math cimport fabs
from libc.stdint cimport int32_t

from fstools._ext._common cimport OK, SignalCheck, stop_requested

# I(X_candidate; C | X_selected) into value[0] (``selected`` is the pick of step ``step``);
# returns OK or a status code, which stops the loop.
ctypedef int (*conditional_information_t)(void* data, Py_ssize_t candidate, Py_ssize_t step,
                                          Py_ssize_t selected, double* value) noexcept nogil


cdef inline bint heap_before(const double* key, int32_t a, int32_t b) noexcept nogil:
    """Order of the max-heap of the loop: larger key first, then lower index."""
    return key[a] > key[b] or (key[a] == key[b] and a < b)


cdef inline void heap_sift_down(int32_t* heap, Py_ssize_t size, Py_ssize_t position,
                                const double* key) noexcept nogil:
    cdef Py_ssize_t child
    cdef int32_t item = heap[position]
    while True:
        child = 2 * position + 1
        if child >= size:
            break
        if child + 1 < size and heap_before(key, heap[child + 1], heap[child]):
            child += 1
        if not heap_before(key, heap[child], item):
            break
        heap[position] = heap[child]
        position = child
    heap[position] = item


cdef inline void heap_push(int32_t* heap, Py_ssize_t size, int32_t item, const double* key) noexcept nogil:
    """Add ``item`` to the heap ``heap[0:size]`` (room for one more)."""
    cdef Py_ssize_t position = size
    cdef Py_ssize_t parent
    while position > 0:
        parent = (position - 1) // 2
        if not heap_before(key, item, heap[parent]):
            break
        heap[position] = heap[parent]
        position = parent
    heap[position] = item


cdef inline double tie_window(double best, double tolerance) noexcept nogil:
    """The lowest value tied with ``best`` (fstools.core.ranking: best - tol * max(1, |best|))."""
    return best - tolerance * (fabs(best) if fabs(best) > 1.0 else 1.0)


cdef inline int lazy_cmim_loop(void* data, conditional_information_t conditional, Py_ssize_t n,
                               double* partial, Py_ssize_t k, double tolerance, int32_t* last,
                               int32_t* heap, int32_t* popped, Py_ssize_t* ranking, double* scores,
                               SignalCheck* check) noexcept nogil:
    """The lazy CMIM loop (``partial`` starts as I(X_j;C), ``last`` as 0); returns OK, or the
    first status other than OK of ``conditional``."""
    cdef Py_ssize_t j, t, size, n_popped, i, chosen
    cdef double best, value
    cdef bint have_best
    cdef int status
    # step 1: the first maximum of I(X_j;C), the lowest index within the window
    best = partial[0]
    for j in range(n):
        if partial[j] > best:
            best = partial[j]
    for j in range(n):
        if partial[j] >= tie_window(best, tolerance):
            break
    ranking[0] = j
    scores[0] = partial[j]
    size = 0
    for i in range(n):
        if i != j:
            heap[size] = <int32_t> i
            size += 1
    for i in range(size // 2 - 1, -1, -1):
        heap_sift_down(heap, size, i, partial)
    for t in range(1, k):
        if stop_requested(check):
            return OK
        have_best = False
        best = 0.0
        n_popped = 0
        while size > 0:
            j = heap[0]
            if have_best and partial[j] < tie_window(best, tolerance):
                break  # every other candidate's score is at most its partial score: out of the window
            size -= 1
            heap[0] = heap[size]
            heap_sift_down(heap, size, 0, partial)
            popped[n_popped] = <int32_t> j
            n_popped += 1
            while last[j] < t and (not have_best or partial[j] >= tie_window(best, tolerance)):
                status = conditional(data, j, last[j], ranking[last[j]], &value)
                if status != OK:
                    return status
                if value < partial[j]:  # the running minimum (np.minimum of the eager update)
                    partial[j] = value
                last[j] += 1
            if last[j] == t and (not have_best or partial[j] > best):
                best = partial[j]
                have_best = True
        chosen = -1
        for i in range(n_popped):
            j = popped[i]
            if last[j] == t and partial[j] >= tie_window(best, tolerance) and (chosen < 0 or j < chosen):
                chosen = j
        ranking[t] = chosen
        scores[t] = partial[chosen]
        for i in range(n_popped):
            if popped[i] != chosen:
                heap_push(heap, size, popped[i], partial)
                size += 1
    return OK

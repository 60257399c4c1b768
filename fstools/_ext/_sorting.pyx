# cython: language_level=3
"""Sorting and selection helpers of the kernels (declared in ``_sorting.pxd``)."""
from libc.stdint cimport int32_t
from libc.string cimport memcpy

cdef enum:
    # Runs of this length are insertion-sorted before merging.
    INSERTION_RUN = 24


cdef void _insertion_sort_run(const double* values, int32_t* order,
                              Py_ssize_t start, Py_ssize_t end) noexcept nogil:
    """Stable insertion sort of ``order[start:end]`` by value."""
    cdef Py_ssize_t i, j
    cdef int32_t item
    cdef double key
    for i in range(start + 1, end):
        item = order[i]
        key = values[item]
        j = i - 1
        while j >= start and values[order[j]] > key:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = item


cdef void stable_argsort(const double* values, Py_ssize_t n, int32_t* order,
                         int32_t* buffer) noexcept nogil:
    """Fill ``order`` with 0..n-1 sorted by (value, index); ``buffer`` is n slots of scratch.

    A stable sort (insertion-sorted runs, then bottom-up merging) started from the
    identity keeps equal values in index order.
    """
    cdef Py_ssize_t i, width, left, middle, right, a, b, out
    cdef int32_t* source = order
    cdef int32_t* target = buffer
    cdef int32_t* swap
    for i in range(n):
        order[i] = <int32_t> i
    left = 0
    while left < n:
        right = left + INSERTION_RUN
        if right > n:
            right = n
        _insertion_sort_run(values, order, left, right)
        left = right
    width = INSERTION_RUN
    while width < n:
        left = 0
        while left < n:
            middle = left + width
            if middle > n:
                middle = n
            right = left + 2 * width
            if right > n:
                right = n
            a = left
            b = middle
            out = left
            while a < middle and b < right:
                if values[source[b]] < values[source[a]]:
                    target[out] = source[b]
                    b += 1
                else:
                    target[out] = source[a]
                    a += 1
                out += 1
            while a < middle:
                target[out] = source[a]
                a += 1
                out += 1
            while b < right:
                target[out] = source[b]
                b += 1
                out += 1
            left = right
        swap = source
        source = target
        target = swap
        width *= 2
    if source != order:
        memcpy(order, source, n * sizeof(int32_t))


cdef void _sift_down(int32_t* heap, Py_ssize_t root, Py_ssize_t size) noexcept nogil:
    """Restore the max-heap property below ``root`` in ``heap[0:size]``."""
    cdef Py_ssize_t child
    cdef int32_t item
    while 2 * root + 1 < size:
        child = 2 * root + 1
        if child + 1 < size and heap[child + 1] > heap[child]:
            child += 1
        if heap[root] >= heap[child]:
            return
        item = heap[root]
        heap[root] = heap[child]
        heap[child] = item
        root = child


cdef void heap_sort(int32_t* items, Py_ssize_t n) noexcept nogil:
    """Sort ``items[0:n]`` ascending in place (heap sort, no extra memory)."""
    cdef Py_ssize_t i
    cdef int32_t item
    i = n // 2 - 1
    while i >= 0:
        _sift_down(items, i, n)
        i -= 1
    i = n - 1
    while i > 0:
        item = items[0]
        items[0] = items[i]
        items[i] = item
        _sift_down(items, 0, i)
        i -= 1


cdef double kth_largest(double* values, Py_ssize_t n, Py_ssize_t k) noexcept nogil:
    """The k-th largest (k = 1..n) of ``values[0:n]`` (quickselect; reorders ``values``)."""
    cdef Py_ssize_t left = 0
    cdef Py_ssize_t right = n - 1
    cdef Py_ssize_t target = k - 1
    cdef Py_ssize_t i, j, middle
    cdef double pivot, a, b, c, swap
    while right > left:
        middle = left + (right - left) // 2
        a = values[left]
        b = values[middle]
        c = values[right]
        # median of three
        if (a >= b) == (b >= c):
            pivot = b
        elif (b >= a) == (a >= c):
            pivot = a
        else:
            pivot = c
        i = left
        j = right
        # Hoare partition in decreasing order: [left, j] >= pivot >= [i, right]
        while i <= j:
            while values[i] > pivot:
                i += 1
            while values[j] < pivot:
                j -= 1
            if i <= j:
                swap = values[i]
                values[i] = values[j]
                values[j] = swap
                i += 1
                j -= 1
        if target <= j:
            right = j
        elif target >= i:
            left = i
        else:
            return values[target]
    return values[target]

# cython: language_level=3
"""Permutation nulls of the plug-in mutual information I(X_j; C), in one kernel call.

A permutation of the class only regroups the rows: the codes of the features, their
levels and their entropies H(X_j), and the class entropy H(C), are the same under every
permutation.  :func:`permuted_class_information` therefore takes the codes once and, for
every permutation ``b`` (OpenMP ``prange`` over the permutations, each thread with its own
permuted class vector and counting table), counts the joint table of (x_j, c[perm_b]) of
every feature and returns

    I_b(X_j; C) = H(X_j) + H(C) - H(X_j, C[perm_b]),

with the entropy of a counting table ``(m log m - sum_k n_k log n_k) / m`` summed over the
cells in increasing index, the formula and summation order of :mod:`fstools._ext._entropy`
(so the identity permutation gives that module's I(X_j; C)).  A negative result in
(-1e-12, 0) is rounding and is returned as 0.  The result does not depend on the number of
threads.  Ctrl-C is answered between features (KeyboardInterrupt, every buffer freed).
"""
import numpy as np

cimport numpy as cnp
from cython.parallel import parallel, prange
from libc.math cimport log
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

from fstools._ext._common cimport (OK, OUT_OF_MEMORY, SignalCheck, check_threads, raise_if_stopped,
                                   signal_check_init, stop_requested)
from fstools._ext._typedefs cimport code_t

cnp.import_array()

from fstools._ext._counting cimport clip_rounding, count_t, entropy_of_counts


def permuted_class_information(codes, levels, y, Py_ssize_t n_classes, permutations, int n_threads=1):
    """I(X_j; C[perm_b]) of every feature j and every permutation b of the class, in nats.

    Parameters
    ----------
    codes : ndarray of int8, int16 or int32, shape (n_features, m), C-contiguous
        Feature-major codes in ``0 .. levels[j]-1`` (checked by the caller, e.g.
        :func:`fstools.core.discretize.information_codes`).
    levels : ndarray of int32, shape (n_features,)
    y : ndarray of int32, shape (m,)
        Class codes in ``0 .. n_classes-1``.
    n_classes : int
    permutations : ndarray of int32, shape (n_permutations, m), C-contiguous
        Row ``b`` is a permutation of ``0 .. m-1``: the permuted class of row ``i`` is
        ``y[permutations[b, i]]``.
    n_threads : int, default 1

    Returns
    -------
    ndarray of float64, shape (n_permutations, n_features)
    """
    codes = np.asarray(codes)
    if codes.dtype in (np.int8, np.int16, np.int32):
        return _permuted_information(codes, levels, y, n_classes, permutations, n_threads)
    raise TypeError(f"codes: must be int8, int16 or int32 codes; got dtype {codes.dtype}")


def _permuted_information(const code_t[:, ::1] codes, const int32_t[::1] levels, const int32_t[::1] y,
                          Py_ssize_t n_classes, const int32_t[:, ::1] permutations, int n_threads):
    cdef Py_ssize_t n_features = codes.shape[0]
    cdef Py_ssize_t m = codes.shape[1]
    cdef Py_ssize_t n_permutations = permutations.shape[0]
    cdef Py_ssize_t i, j, b, c, cells, max_levels = 1
    check_threads(n_threads)
    if levels.shape[0] != n_features:
        raise ValueError(f"levels: must have one entry per feature ({n_features}); got {levels.shape[0]}")
    if y.shape[0] != m or (n_permutations and permutations.shape[1] != m):
        raise ValueError(f"y and permutations: must have one entry per sample ({m})")
    if n_classes < 1:
        raise ValueError(f"n_classes: must be an integer >= 1; got {n_classes}")
    for i in range(m):
        if y[i] < 0 or y[i] >= n_classes:
            raise ValueError(f"y: class code {y[i]} at row {i} is outside 0..{n_classes - 1}")
    for b in range(n_permutations):
        for i in range(m):
            if permutations[b, i] < 0 or permutations[b, i] >= m:
                raise ValueError(f"permutations: entry {permutations[b, i]} of row {b} is outside 0..{m - 1}")
    for j in range(n_features):
        if levels[j] < 1:
            raise ValueError(f"levels: must be >= 1; got {levels[j]} for feature {j}")
        max_levels = max(max_levels, levels[j])
    cdef cnp.ndarray[cnp.float64_t, ndim=2] out_array = np.zeros((n_permutations, n_features))
    if n_permutations == 0 or n_features == 0 or m == 0:
        return out_array
    # The permutation-invariant parts: H(X_j) and H(C).
    cdef double[:, ::1] out = out_array
    cdef double[::1] feature_entropy = np.empty(n_features)
    cdef count_t[::1] counts = np.zeros(max(max_levels, n_classes), dtype=np.int64)
    cdef double class_entropy
    for i in range(m):
        counts[y[i]] += 1
    class_entropy = entropy_of_counts(&counts[0], n_classes, m)
    for j in range(n_features):
        counts[:] = 0
        for i in range(m):
            if codes[j, i] < 0 or codes[j, i] >= levels[j]:
                raise ValueError(f"codes: code {codes[j, i]} of feature {j} at row {i} is outside "
                                 f"0..{levels[j] - 1}")
            counts[codes[j, i]] += 1
        feature_entropy[j] = entropy_of_counts(&counts[0], levels[j], m)

    cdef int32_t[::1] status = np.zeros(n_permutations, dtype=np.int32)
    cdef SignalCheck check
    cdef int32_t* permuted
    cdef count_t* table
    signal_check_init(&check, 1)
    with nogil, parallel(num_threads=n_threads):
        permuted = <int32_t*> malloc(m * sizeof(int32_t))
        table = <count_t*> calloc(max_levels * n_classes, sizeof(count_t))
        for b in prange(n_permutations, schedule='dynamic'):
            if permuted == NULL or table == NULL:
                status[b] = OUT_OF_MEMORY
            elif not stop_requested(&check):
                for i in range(m):
                    permuted[i] = y[permutations[b, i]]
                for j in range(n_features):
                    if stop_requested(&check):
                        break  # Ctrl-C: this permutation and the remaining ones are skipped
                    cells = levels[j] * n_classes
                    memset(table, 0, cells * sizeof(count_t))
                    for i in range(m):
                        table[codes[j, i] * n_classes + permuted[i]] += 1
                    out[b, j] = clip_rounding(feature_entropy[j] + class_entropy - entropy_of_counts(table, cells, m))
        free(permuted)
        free(table)
    raise_if_stopped(&check)
    for b in range(n_permutations):
        if status[b] == OUT_OF_MEMORY:
            raise MemoryError("permuted_class_information: cannot allocate the work buffers")
    return out_array

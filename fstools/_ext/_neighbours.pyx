# cython: language_level=3
"""Exact nearest-neighbour search by class, for the Laplacian score and ReliefF.

For every query sample ``i`` and every class ``c`` the kernel finds the ``k``
samples ``j != i`` of class ``c`` nearest to ``i`` (the Laplacian score uses
one class for all samples; ReliefF the class labels: nearest hits and nearest
misses of every other class).  Two distances, both summed over the features
in column order::

    SQEUCLIDEAN   d(i, j) = sum_f (x_if - x_jf)^2
    MANHATTAN     d(i, j) = sum_f |x_if - x_jf|

Per-feature diffs (optional, for ReliefF and for factors): a feature flagged
*nominal* (level codes) contributes ``diff = 0`` when the two codes are equal
and ``1`` otherwise (Kononenko 1994, "Estimating attributes: analysis and
extensions of RELIEF", for nominal attributes), squared or not alike; a
feature with a *missing-value table* may hold NaN, and a pair with a missing
value takes its diff from the tables (ReliefF's probability-based diff,
Robnik-Sikonja and Kononenko 2003, "Theoretical and empirical analysis of
ReliefF and RReliefF", section 2.1): with ``I1`` missing, ``known_diff[s,
class(I1), I2]``; with both missing, ``both_diff[s, class(I1), class(I2)]``
(the class is the sample's label in the search).  The caller computes the
tables (:mod:`fstools.methods.similarity`); every other value must be finite.

Tie rule: among samples at equal distance the lower sample index is the
nearer one.  Each list keeps the ``k`` smallest candidates in (distance,
index) order, whatever the order in which they are offered.  ``d(i, j)`` and ``d(j, i)`` are bit-identical
(``(a - b)^2 == (b - a)^2`` and ``|a - b| == |b - a|`` in floating point).

The search is brute force, O(m n p) for m queries, n samples and p features,
without materialising an m x n matrix: queries are processed in blocks of
``ROWS_PER_BLOCK`` and candidates in tiles of ``COLUMNS_PER_TILE``, reading the
data feature-major (``X.T``) so that the inner loop runs over contiguous
candidates (and vectorises).  Blocks of queries are independent and run in
parallel (``prange``); each writes only its own output rows, so the result
does not depend on the number of threads.

:func:`all_class_neighbours` is the same search with every sample a query:
each unordered pair is computed once (a row block against the column tiles
on and above the diagonal) and offered to both samples, into per-thread lists
that are merged by (distance, index) at the end -- half the work, the same
result bit for bit.

:func:`relieff_terms` is the ReliefF accumulation over those neighbours: per block of queries,
the mean per-feature differences to the hits and the prior-weighted mean
differences to the misses, summed in a fixed order into one row per block;
the caller adds the rows in block order (again independent of the threads).

Bounds checking and wraparound are switched off by ``setup.py`` (and on again
with ``FSTOOLS_BOUNDSCHECK=1``).
"""
import numpy as np

cimport numpy as cnp
from cython.parallel cimport prange, threadid
from libc.math cimport fabs, nextafter
from libc.stdint cimport int32_t
from libc.stdlib cimport free, malloc

from fstools._ext._common cimport (OK, OUT_OF_MEMORY, SignalCheck, block_length, check_at_least_one,
                                   check_class_codes, check_length, check_threads, max_status, raise_if_stopped,
                                   signal_check_init, stop_requested)

cnp.import_array()

# Distances (the ``metric`` argument).
cdef enum:
    SQEUCLIDEAN = 0
    MANHATTAN = 1

# Tiling: a block of query rows against a tile of candidate columns.
cdef enum:
    ROWS_PER_BLOCK = 32
    COLUMNS_PER_TILE = 128

#: Metric codes for Python callers.
METRIC_SQEUCLIDEAN = SQEUCLIDEAN
METRIC_MANHATTAN = MANHATTAN

# How a feature's diff is computed (``Diffs.kind``).
cdef enum:
    NUMERIC = 0         # |a - b| (squared for the squared Euclidean distance)
    NOMINAL = 1         # 0 if a == b else 1
    WITH_MISSING = 2    # as NUMERIC or NOMINAL when both are known, else from the tables


cdef struct Diffs:
    # The per-feature diff rules of one kernel call (arrays owned by the caller).
    const unsigned char* kind       # per feature: NUMERIC, NOMINAL or WITH_MISSING
    const unsigned char* nominal    # per feature: 1 for level codes
    const Py_ssize_t* slot          # per feature: its missing-value tables (WITH_MISSING), else -1
    const double* known_diff        # (n_slots, n_classes, n_samples)
    const double* both_diff         # (n_slots, n_classes, n_classes)
    const int32_t* labels           # class of every sample
    Py_ssize_t n_samples
    Py_ssize_t n_classes
    bint any_special                # some feature is not NUMERIC


cdef inline double _feature_diff(const Diffs* diffs, Py_ssize_t f, double a, Py_ssize_t i, double b,
                                 Py_ssize_t j) noexcept nogil:
    """diff(f, i, j) of samples i and j whose values of feature f are ``a`` and ``b``."""
    cdef Py_ssize_t s, n_classes = diffs.n_classes
    cdef bint a_missing, b_missing
    if diffs.kind[f] == NUMERIC:
        return fabs(a - b)
    a_missing = a != a
    b_missing = b != b
    if not a_missing and not b_missing:
        if diffs.nominal[f]:
            return 0.0 if a == b else 1.0
        return fabs(a - b)
    s = diffs.slot[f]
    if a_missing and b_missing:
        return diffs.both_diff[(s * n_classes + diffs.labels[i]) * n_classes + diffs.labels[j]]
    if a_missing:
        return diffs.known_diff[(s * n_classes + diffs.labels[i]) * diffs.n_samples + j]
    return diffs.known_diff[(s * n_classes + diffs.labels[j]) * diffs.n_samples + i]


cdef class _DiffArrays:
    """The arrays behind a :c:type:`Diffs` (checked, kept alive for the call)."""
    cdef unsigned char[::1] kind
    cdef unsigned char[::1] nominal
    cdef Py_ssize_t[::1] slot
    cdef double[:, :, ::1] known_diff
    cdef double[:, :, ::1] both_diff
    cdef Diffs diffs


cdef _DiffArrays _diff_arrays(Py_ssize_t n_features, Py_ssize_t n_samples, const int32_t[::1] labels,
                              Py_ssize_t n_classes, nominal, missing_slot, known_diff, both_diff):
    """Check the optional diff arguments of a kernel call and gather them (None: every feature numeric)."""
    cdef _DiffArrays arrays = _DiffArrays()
    cdef Py_ssize_t n_slots
    arrays.nominal = (np.zeros(n_features, dtype=np.uint8) if nominal is None
                      else np.ascontiguousarray(nominal, dtype=np.uint8))
    check_length("nominal", arrays.nominal.shape[0], n_features, "flags (one per feature)")
    slot = (np.full(n_features, -1, dtype=np.intp) if missing_slot is None
            else np.ascontiguousarray(missing_slot, dtype=np.intp))
    check_length("missing_slot", slot.shape[0], n_features, "table indices (one per feature, -1 for none)")
    n_slots = int(slot.max()) + 1 if n_features else 0
    if slot.size and slot.min() < -1:
        raise ValueError("missing_slot: must be -1 (no missing values) or a table index >= 0")
    if n_slots > 0 and (known_diff is None or both_diff is None):
        raise ValueError("known_diff, both_diff: needed when missing_slot names tables")
    known = np.zeros((max(n_slots, 1), n_classes, max(n_samples, 1))) if known_diff is None else known_diff
    both = np.zeros((max(n_slots, 1), n_classes, n_classes)) if both_diff is None else both_diff
    arrays.known_diff = np.ascontiguousarray(known, dtype=np.float64)
    arrays.both_diff = np.ascontiguousarray(both, dtype=np.float64)
    if n_slots > 0 and (arrays.known_diff.shape[0] < n_slots or arrays.known_diff.shape[1] != n_classes
                        or arrays.known_diff.shape[2] != n_samples):
        raise ValueError(f"known_diff: expected shape ({n_slots}, {n_classes}, {n_samples})")
    if n_slots > 0 and (arrays.both_diff.shape[0] < n_slots or arrays.both_diff.shape[1] != n_classes
                        or arrays.both_diff.shape[2] != n_classes):
        raise ValueError(f"both_diff: expected shape ({n_slots}, {n_classes}, {n_classes})")
    kind = np.where(slot >= 0, WITH_MISSING, np.where(np.asarray(arrays.nominal) != 0, NOMINAL, NUMERIC))
    arrays.kind = np.ascontiguousarray(kind, dtype=np.uint8)
    arrays.slot = slot
    arrays.diffs.kind = &arrays.kind[0] if n_features else NULL
    arrays.diffs.nominal = &arrays.nominal[0] if n_features else NULL
    arrays.diffs.slot = &arrays.slot[0] if n_features else NULL
    arrays.diffs.known_diff = &arrays.known_diff[0, 0, 0]
    arrays.diffs.both_diff = &arrays.both_diff[0, 0, 0]
    arrays.diffs.labels = &labels[0] if labels.shape[0] else NULL
    arrays.diffs.n_samples = n_samples
    arrays.diffs.n_classes = n_classes
    arrays.diffs.any_special = bool(np.any(kind != NUMERIC))
    return arrays


cdef void _distance_tile(const double* features, Py_ssize_t n_samples, Py_ssize_t n_features,
                         const Py_ssize_t* rows, Py_ssize_t n_rows, Py_ssize_t start,
                         Py_ssize_t width, int metric, const Diffs* diffs, double* tile) noexcept nogil:
    """``tile[r * COLUMNS_PER_TILE + c] = d(rows[r], start + c)``.

    ``features`` is feature-major: the value of feature f for sample j is
    ``features[f * n_samples + j]``.  Each distance is accumulated over the
    features in order f = 0, 1, ... (four numeric features per pass over the tile,
    added left to right, which is the same sequence of roundings), so it does
    not depend on the tiling.  Nominal features and features with missing values
    (``diffs``) add their diff (squared for SQEUCLIDEAN) one feature at a time.
    """
    cdef Py_ssize_t r, c, f, row
    cdef const double* c0
    cdef const double* c1
    cdef const double* c2
    cdef const double* c3
    cdef double* out
    cdef double v0, v1, v2, v3, e0, e1, e2, e3
    cdef const unsigned char* kind = diffs.kind
    for r in range(n_rows):
        out = tile + r * COLUMNS_PER_TILE
        for c in range(width):
            out[c] = 0.0
    f = 0
    while f < n_features:
        if (f + 4 <= n_features and kind[f] == NUMERIC and kind[f + 1] == NUMERIC and kind[f + 2] == NUMERIC
                and kind[f + 3] == NUMERIC):
            c0 = features + f * n_samples + start
            c1 = c0 + n_samples
            c2 = c1 + n_samples
            c3 = c2 + n_samples
            for r in range(n_rows):
                row = rows[r]
                v0 = features[f * n_samples + row]
                v1 = features[(f + 1) * n_samples + row]
                v2 = features[(f + 2) * n_samples + row]
                v3 = features[(f + 3) * n_samples + row]
                out = tile + r * COLUMNS_PER_TILE
                if metric == SQEUCLIDEAN:
                    for c in range(width):
                        e0 = v0 - c0[c]
                        e1 = v1 - c1[c]
                        e2 = v2 - c2[c]
                        e3 = v3 - c3[c]
                        out[c] = (((out[c] + e0 * e0) + e1 * e1) + e2 * e2) + e3 * e3
                else:
                    for c in range(width):
                        out[c] = (((out[c] + fabs(v0 - c0[c])) + fabs(v1 - c1[c])) + fabs(v2 - c2[c])) \
                            + fabs(v3 - c3[c])
            f += 4
            continue
        c0 = features + f * n_samples + start
        for r in range(n_rows):
            row = rows[r]
            v0 = features[f * n_samples + row]
            out = tile + r * COLUMNS_PER_TILE
            if kind[f] == NUMERIC:
                if metric == SQEUCLIDEAN:
                    for c in range(width):
                        e0 = v0 - c0[c]
                        out[c] += e0 * e0
                else:
                    for c in range(width):
                        out[c] += fabs(v0 - c0[c])
            elif kind[f] == NOMINAL:
                for c in range(width):
                    if v0 != c0[c]:
                        out[c] += 1.0
            else:
                for c in range(width):
                    e0 = _feature_diff(diffs, f, v0, row, c0[c], start + c)
                    out[c] += e0 * e0 if metric == SQEUCLIDEAN else e0
        f += 1


cdef inline bint _before(double distance_a, Py_ssize_t index_a,
                         double distance_b, Py_ssize_t index_b) noexcept nogil:
    """(distance, index) order: nearer first, then the lower sample index."""
    return distance_a < distance_b or (distance_a == distance_b and index_a < index_b)


cdef inline void _offer(double distance, Py_ssize_t j, double* best_distance, Py_ssize_t* best_index,
                        Py_ssize_t* count, Py_ssize_t k) noexcept nogil:
    """Insert (distance, j) into the sorted list of the ``k`` best if it belongs there.

    The list is kept sorted by (distance, index) and holds the ``k`` smallest
    candidates offered in that order, whatever the order of arrival.
    """
    cdef Py_ssize_t position = count[0]
    if position == k:
        if not _before(distance, j, best_distance[k - 1], best_index[k - 1]):
            return
        position = k - 1
    else:
        count[0] = position + 1
    while position > 0 and _before(distance, j, best_distance[position - 1], best_index[position - 1]):
        best_distance[position] = best_distance[position - 1]
        best_index[position] = best_index[position - 1]
        position -= 1
    best_distance[position] = distance
    best_index[position] = j


cdef _check_search_arguments(Py_ssize_t n_features, Py_ssize_t n_samples, const int32_t[::1] labels,
                             int n_classes, Py_ssize_t k, int metric, int n_threads):
    """The checks shared by :func:`class_neighbours` and :func:`all_class_neighbours` (all but the outputs)."""
    if n_features < 1:
        raise ValueError("features: need at least one feature (row)")
    check_length("labels", labels.shape[0], n_samples, "class codes (one per sample)")
    check_at_least_one("n_classes", n_classes)
    check_at_least_one("k", k)
    if metric != SQEUCLIDEAN and metric != MANHATTAN:
        raise ValueError(f"metric: must be METRIC_SQEUCLIDEAN or METRIC_MANHATTAN, got {metric}")
    check_threads(n_threads)


cdef _check_rows(const Py_ssize_t[::1] rows, Py_ssize_t n_samples):
    """Query rows: sample indices in 0..n_samples-1."""
    if rows.shape[0] and (np.min(rows) < 0 or np.max(rows) >= n_samples):
        raise ValueError(f"rows: sample indices must lie in 0..{n_samples - 1}")


cdef int _block_neighbours(const double* features, Py_ssize_t n_samples, Py_ssize_t n_features,
                           const int32_t* labels, Py_ssize_t n_classes,
                           const Py_ssize_t* rows, Py_ssize_t n_rows, Py_ssize_t k, int metric,
                           const Diffs* diffs, Py_ssize_t* out_index, double* out_distance,
                           Py_ssize_t* out_count, SignalCheck* check) noexcept nogil:
    """Nearest neighbours by class of the query rows ``rows[0:n_rows]`` (one block).

    Outputs for query r and class c start at ``(r * n_classes + c) * k`` in
    ``out_index`` / ``out_distance`` and at ``r * n_classes + c`` in ``out_count``.
    Stops early (outputs incomplete) when ``check`` reports Ctrl-C between tiles.
    """
    cdef double* tile = <double*> malloc(ROWS_PER_BLOCK * COLUMNS_PER_TILE * sizeof(double))
    cdef Py_ssize_t r, c, j, start, width, slot
    if tile == NULL:
        return OUT_OF_MEMORY
    for r in range(n_rows * n_classes):
        out_count[r] = 0
    start = 0
    while start < n_samples and not stop_requested(check):
        width = n_samples - start
        if width > COLUMNS_PER_TILE:
            width = COLUMNS_PER_TILE
        _distance_tile(features, n_samples, n_features, rows, n_rows, start, width, metric, diffs, tile)
        for r in range(n_rows):
            for c in range(width):
                j = start + c
                if j == rows[r]:
                    continue
                slot = r * n_classes + labels[j]
                _offer(tile[r * COLUMNS_PER_TILE + c], j, out_distance + slot * k,
                       out_index + slot * k, out_count + slot, k)
        start += width
    free(tile)
    return OK


def class_neighbours(const double[:, ::1] features not None, const int32_t[::1] labels not None,
                     int n_classes,
                     const Py_ssize_t[::1] rows not None, Py_ssize_t k, int metric,
                     Py_ssize_t[:, :, ::1] index not None, double[:, :, ::1] distance not None,
                     Py_ssize_t[:, ::1] count not None, int n_threads=1, nominal=None, missing_slot=None,
                     known_diff=None, both_diff=None):
    """The ``k`` nearest other samples of each class, for every query sample.

    Parameters
    ----------
    features : ndarray of float64, shape (n_features, n_samples), C-contiguous
        Feature-major data (``X.T`` made contiguous); finite values.
    labels : ndarray of int32, shape (n_samples,)
        Class codes 0..n_classes-1 (all zeros for an unsupervised search).
    n_classes : int
    rows : ndarray of intp, shape (n_queries,)
        The query samples (indices into 0..n_samples-1).
    k : int >= 1
        Neighbours per class.
    metric : int
        :data:`METRIC_SQEUCLIDEAN` or :data:`METRIC_MANHATTAN`.
    index : ndarray of intp, shape (n_queries, n_classes, k)
        Receives the neighbours of query q in class c, nearest first, in
        ``index[q, c, :count[q, c]]`` (the rest is left untouched).
    distance : ndarray of float64, shape (n_queries, n_classes, k)
        Receives their distances.
    count : ndarray of intp, shape (n_queries, n_classes)
        Receives min(k, number of samples of class c other than the query).
    n_threads : int
        OpenMP threads over blocks of queries; the result does not depend on it.
    nominal : ndarray of uint8, shape (n_features,), optional
        1 for a feature of level codes: its diff is 0 for equal codes, else 1.
    missing_slot : ndarray of intp, shape (n_features,), optional
        For a feature that may hold NaN (a missing value), the index s of its tables; -1
        (the default) for the others, whose values must be finite.
    known_diff : ndarray of float64, shape (n_slots, n_classes, n_samples), optional
        ``known_diff[s, c, j]``: the diff between sample j (value known) and a sample of class
        c whose value is missing.
    both_diff : ndarray of float64, shape (n_slots, n_classes, n_classes), optional
        ``both_diff[s, a, c]``: the diff between two samples of classes a and c whose values
        are both missing; symmetric (``d(i, j) == d(j, i)``).

    The search answers Ctrl-C (checked between tiles of candidates): KeyboardInterrupt,
    the outputs then incomplete.
    """
    cdef Py_ssize_t n_features = features.shape[0]
    cdef Py_ssize_t n_samples = features.shape[1]
    cdef Py_ssize_t n_queries = rows.shape[0]
    cdef Py_ssize_t n_blocks, block, first, size
    cdef int32_t[::1] status
    _check_search_arguments(n_features, n_samples, labels, n_classes, k, metric, n_threads)
    if (index.shape[0] != n_queries or index.shape[1] != n_classes or index.shape[2] != k
            or distance.shape[0] != n_queries or distance.shape[1] != n_classes or distance.shape[2] != k):
        raise ValueError(f"index, distance: expected shape ({n_queries}, {n_classes}, {k})")
    if count.shape[0] != n_queries or count.shape[1] != n_classes:
        raise ValueError(f"count: expected shape ({n_queries}, {n_classes})")
    check_class_codes("labels", labels, n_classes)
    _check_rows(rows, n_samples)
    cdef _DiffArrays arrays = _diff_arrays(n_features, n_samples, labels, n_classes, nominal, missing_slot,
                                           known_diff, both_diff)
    if n_queries == 0:
        return
    n_blocks = (n_queries + ROWS_PER_BLOCK - 1) // ROWS_PER_BLOCK
    status = np.zeros(n_blocks, dtype=np.int32)
    cdef SignalCheck check
    signal_check_init(&check, 1)
    for block in prange(n_blocks, nogil=True, num_threads=n_threads, schedule="dynamic"):
        first = block * ROWS_PER_BLOCK
        size = block_length(first, ROWS_PER_BLOCK, n_queries)
        status[block] = _block_neighbours(&features[0, 0], n_samples, n_features, &labels[0], n_classes,
                                          &rows[first], size, k, metric, &arrays.diffs, &index[first, 0, 0],
                                          &distance[first, 0, 0], &count[first, 0], &check)
    raise_if_stopped(&check)
    if max_status(status) == OUT_OF_MEMORY:
        raise MemoryError("class_neighbours: out of memory for a distance tile")


cdef int _pair_tile_neighbours(const double* features, Py_ssize_t n_samples, Py_ssize_t n_features,
                               const int32_t* labels, Py_ssize_t n_classes, const Py_ssize_t* all_rows,
                               Py_ssize_t row_start, Py_ssize_t column_start, Py_ssize_t k, int metric,
                               const Diffs* diffs, Py_ssize_t* local_index, double* local_distance,
                               Py_ssize_t* local_count) noexcept nogil:
    """One work item of the all-pairs search: rows [row_start, +ROWS_PER_BLOCK) x a column tile.

    Every pair i < j in the tile is offered both ways, (d, j) to row i and (d, i)
    to row j, into the calling thread's lists (``local_*``, laid out as the
    outputs of :func:`class_neighbours` for all samples).
    """
    cdef double* tile = <double*> malloc(ROWS_PER_BLOCK * COLUMNS_PER_TILE * sizeof(double))
    cdef Py_ssize_t n_rows, width, r, c, i, j, slot
    cdef double d
    if tile == NULL:
        return OUT_OF_MEMORY
    n_rows = n_samples - row_start
    if n_rows > ROWS_PER_BLOCK:
        n_rows = ROWS_PER_BLOCK
    width = n_samples - column_start
    if width > COLUMNS_PER_TILE:
        width = COLUMNS_PER_TILE
    _distance_tile(features, n_samples, n_features, all_rows + row_start, n_rows, column_start, width,
                   metric, diffs, tile)
    for r in range(n_rows):
        i = row_start + r
        for c in range(width):
            j = column_start + c
            if j <= i:
                continue
            d = tile[r * COLUMNS_PER_TILE + c]
            slot = i * n_classes + labels[j]
            _offer(d, j, local_distance + slot * k, local_index + slot * k, local_count + slot, k)
            slot = j * n_classes + labels[i]
            _offer(d, i, local_distance + slot * k, local_index + slot * k, local_count + slot, k)
    free(tile)
    return OK


def all_class_neighbours(const double[:, ::1] features not None, const int32_t[::1] labels not None,
                         int n_classes, Py_ssize_t k, int metric, Py_ssize_t[:, :, ::1] index not None,
                         double[:, :, ::1] distance not None,
                         Py_ssize_t[:, ::1] count not None, int n_threads=1, nominal=None,
                         missing_slot=None, known_diff=None, both_diff=None):
    """:func:`class_neighbours` with every sample a query, computing each distance once.

    Same arguments and results as ``class_neighbours(features, labels, n_classes,
    arange(n_samples), k, metric, index, distance, count, n_threads)``, bit for bit:
    the distances are the same sums, and the lists keep the k smallest by
    (distance, index) whatever the order in which candidates arrive.  Each
    unordered pair is computed once and offered to both samples; every thread
    fills its own lists (``n_threads * n_samples * n_classes * k`` entries), merged
    at the end by (distance, index), so the result does not depend on the threads.
    Answers Ctrl-C between work items (KeyboardInterrupt, before the merge).
    """
    cdef Py_ssize_t n_features = features.shape[0]
    cdef Py_ssize_t n_samples = features.shape[1]
    cdef Py_ssize_t n_items, item, row_start, column_start, tid, i, c, t, taken, slot, best_t, n_local
    cdef Py_ssize_t[::1] item_row, item_column, all_rows
    cdef int32_t[::1] status
    cdef Py_ssize_t[:, :, :, ::1] local_index
    cdef double[:, :, :, ::1] local_distance
    cdef Py_ssize_t[:, :, ::1] local_count
    cdef Py_ssize_t[:, ::1] cursor
    _check_search_arguments(n_features, n_samples, labels, n_classes, k, metric, n_threads)
    if (index.shape[0] != n_samples or index.shape[1] != n_classes or index.shape[2] != k
            or distance.shape[0] != n_samples or distance.shape[1] != n_classes or distance.shape[2] != k
            or count.shape[0] != n_samples or count.shape[1] != n_classes):
        raise ValueError(f"index, distance, count: expected shapes ({n_samples}, {n_classes}, {k}) and "
                         f"({n_samples}, {n_classes})")
    if n_samples == 0:
        return
    check_class_codes("labels", labels, n_classes)
    cdef _DiffArrays arrays = _diff_arrays(n_features, n_samples, labels, n_classes, nominal, missing_slot,
                                           known_diff, both_diff)
    # Work items: row blocks x column tiles holding some j > i (the upper triangle).
    starts_row = []
    starts_column = []
    for row_start in range(0, n_samples, ROWS_PER_BLOCK):
        column_start = (row_start // COLUMNS_PER_TILE) * COLUMNS_PER_TILE
        while column_start < n_samples:
            starts_row.append(row_start)
            starts_column.append(column_start)
            column_start += COLUMNS_PER_TILE
    item_row = np.asarray(starts_row, dtype=np.intp)
    item_column = np.asarray(starts_column, dtype=np.intp)
    n_items = item_row.shape[0]
    all_rows = np.arange(n_samples, dtype=np.intp)
    n_local = n_threads
    local_index = np.zeros((n_local, n_samples, n_classes, k), dtype=np.intp)
    local_distance = np.zeros((n_local, n_samples, n_classes, k), dtype=np.float64)
    local_count = np.zeros((n_local, n_samples, n_classes), dtype=np.intp)
    status = np.zeros(n_items, dtype=np.int32)
    cdef SignalCheck check
    signal_check_init(&check, 1)
    for item in prange(n_items, nogil=True, num_threads=n_threads, schedule="dynamic"):
        if stop_requested(&check):
            continue  # Ctrl-C: the remaining items are skipped
        tid = threadid()
        status[item] = _pair_tile_neighbours(&features[0, 0], n_samples, n_features, &labels[0], n_classes,
                                             &all_rows[0], item_row[item], item_column[item], k, metric,
                                             &arrays.diffs,
                                             &local_index[tid, 0, 0, 0], &local_distance[tid, 0, 0, 0],
                                             &local_count[tid, 0, 0])
    raise_if_stopped(&check)
    if max_status(status) == OUT_OF_MEMORY:
        raise MemoryError("all_class_neighbours: out of memory for a distance tile")
    # Merge the threads' sorted lists: the k smallest by (distance, index).
    cursor = np.zeros((n_samples, n_local), dtype=np.intp)
    for i in prange(n_samples, nogil=True, num_threads=n_threads, schedule="static"):
        for c in range(n_classes):
            for t in range(n_local):
                cursor[i, t] = 0
            taken = 0
            while taken < k:
                best_t = -1
                for t in range(n_local):
                    slot = cursor[i, t]
                    if slot < local_count[t, i, c] and (
                            best_t < 0 or _before(local_distance[t, i, c, slot], local_index[t, i, c, slot],
                                                  local_distance[best_t, i, c, cursor[i, best_t]],
                                                  local_index[best_t, i, c, cursor[i, best_t]])):
                        best_t = t
                if best_t < 0:
                    break
                index[i, c, taken] = local_index[best_t, i, c, cursor[i, best_t]]
                distance[i, c, taken] = local_distance[best_t, i, c, cursor[i, best_t]]
                cursor[i, best_t] += 1
                taken = taken + 1
            count[i, c] = taken


cdef int _relieff_block_terms(const double* values, Py_ssize_t n_features, const int32_t* labels,
                               Py_ssize_t n_classes, const Py_ssize_t* rows, Py_ssize_t n_rows,
                               Py_ssize_t k, const double* miss_weight, const Py_ssize_t* index,
                              const Py_ssize_t* count, const Diffs* diffs, double* near_hit,
                              double* near_miss) noexcept nogil:
    """Sum over the block's queries of the mean diff to the hits and the weighted mean diff to the misses.

    ``values`` is sample-major (row j at ``values + j * n_features``).  For query
    r of class a and each class c with neighbours: ``mean_f = sum_j diff_f(r, j) / count``
    (``|x_rf - x_jf|``, or the nominal and missing-value diffs of ``diffs``)
    goes to ``near_hit`` when c == a, else ``miss_weight[a * n_classes + c] * mean_f``
    goes to ``near_miss``.  Sums run in a fixed order (queries, classes,
    neighbours in index order), so they do not depend on the threads.
    """
    cdef Py_ssize_t r, c, j, f, found, own, neighbour_index
    cdef const double* query
    cdef const double* neighbour
    cdef double* target
    cdef double scale
    cdef double* mean = <double*> malloc(n_features * sizeof(double))
    if mean == NULL:
        return OUT_OF_MEMORY
    for f in range(n_features):
        near_hit[f] = 0.0
        near_miss[f] = 0.0
    for r in range(n_rows):
        query = values + rows[r] * n_features
        own = labels[rows[r]]
        for c in range(n_classes):
            found = count[r * n_classes + c]
            if found == 0:
                continue
            for f in range(n_features):
                mean[f] = 0.0
            for j in range(found):
                neighbour_index = index[(r * n_classes + c) * k + j]
                neighbour = values + neighbour_index * n_features
                if diffs.any_special:
                    for f in range(n_features):
                        mean[f] += _feature_diff(diffs, f, query[f], rows[r], neighbour[f], neighbour_index)
                else:
                    for f in range(n_features):
                        mean[f] += fabs(query[f] - neighbour[f])
            if c == own:
                scale = 1.0 / found
                target = near_hit
            else:
                scale = miss_weight[own * n_classes + c] / found
                target = near_miss
            for f in range(n_features):
                target[f] += mean[f] * scale
    free(mean)
    return OK


def relieff_terms(const double[:, ::1] values not None, const int32_t[::1] labels not None, int n_classes,
                  const Py_ssize_t[::1] rows not None, const Py_ssize_t[:, :, ::1] index not None,
                  const Py_ssize_t[:, ::1] count not None, const double[:, ::1] miss_weight not None,
                  double[:, ::1] near_hit not None, double[:, ::1] near_miss not None, int n_threads=1,
                  nominal=None, missing_slot=None, known_diff=None, both_diff=None):
    """ReliefF hit and miss terms from the neighbours, summed per block of ``block_size()`` queries.

    Parameters
    ----------
    values : ndarray of float64, shape (n_samples, n_features)
        The scaled data, sample-major.
    labels : ndarray of int32, shape (n_samples,)
    n_classes : int
    rows : ndarray of intp, shape (n_queries,)
        The instances.
    index : ndarray of intp, shape (n_queries, n_classes, k)
        Their nearest neighbours per class (from :func:`class_neighbours` or
        :func:`all_class_neighbours` with the Manhattan distance).
    count : ndarray of intp, shape (n_queries, n_classes)
        How many of them there are.
    miss_weight : ndarray of float64, shape (n_classes, n_classes)
        ``miss_weight[a, c]``: the weight of the misses of class c for an instance of
        class a (``P(c) / (1 - P(a))``); the diagonal is not used.
    near_hit, near_miss : ndarray of float64, shape (n_blocks, n_features)
        Receive, per block of queries, the sums of the mean hit diffs and of the
        weighted mean miss diffs; ``n_blocks = ceil(n_queries / block_size())``.
        Summing the rows in order gives a result independent of ``n_threads``.
    n_threads : int
    nominal, missing_slot, known_diff, both_diff : optional
        The per-feature diff rules, as in :func:`class_neighbours` (the same arrays as the
        search that found the neighbours).

    Answers Ctrl-C between blocks (KeyboardInterrupt).
    """
    cdef Py_ssize_t n_samples = values.shape[0]
    cdef Py_ssize_t n_features = values.shape[1]
    cdef Py_ssize_t n_queries = rows.shape[0]
    cdef Py_ssize_t k = index.shape[2]
    cdef Py_ssize_t n_blocks = (n_queries + ROWS_PER_BLOCK - 1) // ROWS_PER_BLOCK
    cdef Py_ssize_t block, first, size
    cdef int32_t[::1] status
    if n_features < 1:
        raise ValueError("values: need at least one feature (column)")
    check_length("labels", labels.shape[0], n_samples, "class codes (one per sample)")
    if (index.shape[0] != n_queries or index.shape[1] != n_classes or k < 1
            or count.shape[0] != n_queries or count.shape[1] != n_classes):
        raise ValueError(f"index, count: expected shapes ({n_queries}, {n_classes}, k >= 1) and "
                         f"({n_queries}, {n_classes})")
    if miss_weight.shape[0] != n_classes or miss_weight.shape[1] != n_classes:
        raise ValueError(f"miss_weight: expected shape ({n_classes}, {n_classes})")
    if (near_hit.shape[0] != n_blocks or near_hit.shape[1] != n_features
            or near_miss.shape[0] != n_blocks or near_miss.shape[1] != n_features):
        raise ValueError(f"near_hit, near_miss: expected shape ({n_blocks}, {n_features})")
    check_threads(n_threads)
    if n_queries == 0:
        return
    if n_samples == 0:
        raise ValueError(f"values: has no samples (0 rows) but {n_queries} queries (rows) were given")
    check_class_codes("labels", labels, n_classes)
    _check_rows(rows, n_samples)
    if np.min(count) < 0 or np.max(count) > k:
        raise ValueError(f"count: must lie in 0..{k}")
    used = np.asarray(index)[np.arange(k) < np.asarray(count)[:, :, None]]
    if used.size and (used.min() < 0 or used.max() >= n_samples):
        raise ValueError(f"index: sample indices must lie in 0..{n_samples - 1}")
    cdef _DiffArrays arrays = _diff_arrays(n_features, n_samples, labels, n_classes, nominal, missing_slot,
                                           known_diff, both_diff)
    status = np.zeros(n_blocks, dtype=np.int32)
    cdef SignalCheck check
    signal_check_init(&check, 1)
    for block in prange(n_blocks, nogil=True, num_threads=n_threads, schedule="dynamic"):
        if stop_requested(&check):
            continue  # Ctrl-C: the remaining blocks are skipped
        first = block * ROWS_PER_BLOCK
        size = block_length(first, ROWS_PER_BLOCK, n_queries)
        status[block] = _relieff_block_terms(&values[0, 0], n_features, &labels[0], n_classes,
                                             &rows[first], size, k, &miss_weight[0, 0],
                                             &index[first, 0, 0], &count[first, 0], &arrays.diffs,
                                             &near_hit[block, 0], &near_miss[block, 0])
    raise_if_stopped(&check)
    if max_status(status) == OUT_OF_MEMORY:
        raise MemoryError("relieff_terms: out of memory")


def block_size():
    """Queries per block (the rows of :func:`relieff_terms`' outputs)."""
    return ROWS_PER_BLOCK


# ---------------------------------------------------------------------------
# One-dimensional searches of the Kraskov mutual-information estimator
# ---------------------------------------------------------------------------

cdef double _kth_chebyshev(const double* x, const double* y, Py_ssize_t n, Py_ssize_t p, Py_ssize_t k,
                           double* best) noexcept nogil:
    """The k-th smallest max(|x_p - x_q|, |y_p - y_q|) over q != p, with ``x`` sorted increasingly.

    The candidates are scanned outwards from position p on both sides; a side stops once
    ``|x_p - x_q|`` is at least the k-th smallest distance found (then no further q on that side
    can be nearer).  ``best`` is scratch space for k values, kept sorted.
    """
    cdef Py_ssize_t found = 0, left = p - 1, right = p + 1, slot
    cdef double dx, dy, d
    cdef bint go_left, go_right
    while True:
        go_left = left >= 0 and (found < k or x[p] - x[left] < best[k - 1])
        go_right = right < n and (found < k or x[right] - x[p] < best[k - 1])
        if not go_left and not go_right:
            break
        # Take the side whose next candidate is nearer in x (the distance can only grow outwards).
        if go_left and (not go_right or x[p] - x[left] <= x[right] - x[p]):
            dx = x[p] - x[left]
            dy = fabs(y[p] - y[left])
            left -= 1
        else:
            dx = x[right] - x[p]
            dy = fabs(y[p] - y[right])
            right += 1
        d = dx if dx > dy else dy
        if found < k:
            slot = found
            found += 1
        elif d < best[k - 1]:
            slot = k - 1
        else:
            continue
        while slot > 0 and best[slot - 1] > d:
            best[slot] = best[slot - 1]
            slot -= 1
        best[slot] = d
    return best[k - 1]


def kth_chebyshev_distances(const double[::1] x not None, const double[::1] y not None, Py_ssize_t k,
                            double[::1] out not None, int n_threads=1):
    """Distance of every point of (x, y) to its k-th nearest other point in the maximum norm.

    ``max(|x_i - x_j|, |y_i - y_j|)``, the distance of Kraskov, Stoegbauer and Grassberger
    (2004, "Estimating mutual information", Phys. Rev. E 69, 066138; their algorithm 1);
    with ``y`` all zeros it is the k-th nearest neighbour distance on the line.

    Parameters
    ----------
    x : ndarray of float64, shape (n,)
        Sorted increasingly (the points in the order of x).
    y : ndarray of float64, shape (n,)
        The second coordinate of the same points (in the order of x).
    k : int in 1..n-1
    out : ndarray of float64, shape (n,)
        Receives the k-th distance of each point (in the order of x).
    n_threads : int
        OpenMP threads over the points; the result does not depend on it.

    Notes
    -----
    Each point scans outwards in x until the x-gap alone exceeds its k-th distance: for
    continuous data about ``sqrt(k n)`` candidates a point, O(n sqrt(k n)) in all, without a
    tree.  Only the distance values matter, so ties among neighbours need no rule.
    """
    cdef Py_ssize_t n = x.shape[0]
    cdef Py_ssize_t p, block, first, size, n_blocks
    cdef double* best
    cdef int32_t[::1] status
    check_length("y", y.shape[0], n, "values (one per point)")
    check_length("out", out.shape[0], n, "values (one per point)")
    if not 1 <= k < n:
        raise ValueError(f"k: must lie in 1..{n - 1} (the number of other points); got {k}")
    check_threads(n_threads)
    if not (np.isfinite(np.asarray(x)).all() and np.isfinite(np.asarray(y)).all()):
        raise ValueError("x, y: must be finite (no NaN or inf)")
    if n > 1 and np.any(np.diff(np.asarray(x)) < 0):
        raise ValueError("x: must be sorted increasingly")
    n_blocks = (n + 1023) // 1024
    status = np.zeros(n_blocks, dtype=np.int32)
    cdef SignalCheck check
    signal_check_init(&check, 1)
    for block in prange(n_blocks, nogil=True, num_threads=n_threads, schedule="dynamic"):
        if stop_requested(&check):
            continue
        best = <double*> malloc(k * sizeof(double))
        if best == NULL:
            status[block] = OUT_OF_MEMORY
            continue
        first = block * 1024
        size = block_length(first, 1024, n)
        for p in range(first, first + size):
            out[p] = _kth_chebyshev(&x[0], &y[0], n, p, k, best)
        free(best)
    raise_if_stopped(&check)
    if max_status(status) == OUT_OF_MEMORY:
        raise MemoryError("kth_chebyshev_distances: out of memory")


cdef inline Py_ssize_t _count_within(const double* sorted_values, Py_ssize_t m, double v,
                                     double r) noexcept nogil:
    """The number of ``sorted_values[0:m]`` s with ``|s - v| <= r``: two binary searches on the predicate
    itself (``|s - v|`` in floating point is monotone in s on each side of v, so those s are one run)."""
    cdef Py_ssize_t low = 0, high = m, middle, start
    # first s that is >= v or within r below v
    while low < high:
        middle = (low + high) // 2
        if sorted_values[middle] >= v or v - sorted_values[middle] <= r:
            high = middle
        else:
            low = middle + 1
    start = low
    # first s that is > v and farther than r above v
    high = m
    while low < high:
        middle = (low + high) // 2
        if sorted_values[middle] > v and sorted_values[middle] - v > r:
            high = middle
        else:
            low = middle + 1
    return low - start


def count_within(const double[::1] sorted_values not None, const double[::1] values not None,
                 const double[::1] radius not None, Py_ssize_t[::1] out not None):
    """For each value v_i, the number of ``sorted_values`` s with ``|s - v_i| <= radius_i``.

    Exactly the predicate as written (no rounding of ``v_i +- radius_i``): ``|s - v|``
    computed in floating point is monotone in s on each side of v, so the values within
    the radius are one run of ``sorted_values``, found by two binary searches on the
    predicate itself.

    Parameters
    ----------
    sorted_values : ndarray of float64, shape (m,)
        Sorted increasingly.
    values, radius : ndarray of float64, shape (n,)
    out : ndarray of intp, shape (n,)
        Receives the counts.
    """
    cdef Py_ssize_t m = sorted_values.shape[0]
    cdef Py_ssize_t n = values.shape[0]
    cdef Py_ssize_t i
    check_length("radius", radius.shape[0], n, "values (one per value)")
    check_length("out", out.shape[0], n, "counts (one per value)")
    if not (np.isfinite(np.asarray(sorted_values)).all() and np.isfinite(np.asarray(values)).all()):
        raise ValueError("sorted_values, values: must be finite (no NaN or inf)")
    if np.isnan(np.asarray(radius)).any():
        raise ValueError("radius: must not be NaN")
    if m > 1 and np.any(np.diff(np.asarray(sorted_values)) < 0):
        raise ValueError("sorted_values: must be sorted increasingly")
    if m == 0:
        out[:] = 0
        return
    with nogil:
        for i in range(n):
            out[i] = _count_within(&sorted_values[0], m, values[i], radius[i])


def kraskov_counts(const double[:, ::1] x not None, const double[:, ::1] y not None,
                   const double[::1] sorted_y not None, Py_ssize_t k, Py_ssize_t[:, ::1] n_x not None,
                   Py_ssize_t[:, ::1] n_y not None, int n_threads=1):
    """The counts of Kraskov et al.'s first estimator for every feature, in parallel over the features.

    For feature f and point p (in the order of ``x[f]``): ``eps`` = the distance to the k-th
    nearest other point of (x, y) in the maximum norm (:func:`kth_chebyshev_distances`), then
    ``n_x[f, p]`` = the number of points (p included) with ``|x_q - x_p| < eps`` and ``n_y[f, p]``
    the same in y (:func:`count_within` with the radius ``nextafter(eps, 0)``).

    Parameters
    ----------
    x : ndarray of float64, shape (n_features, n)
        Each row sorted increasingly (the feature's values in increasing order).
    y : ndarray of float64, shape (n_features, n)
        The response in the order of each row of ``x``.
    sorted_y : ndarray of float64, shape (n,)
        The response sorted increasingly.
    k : int in 1..n-1
    n_x, n_y : ndarray of intp, shape (n_features, n)
        Receive the counts.
    n_threads : int
        OpenMP threads over the features; the result does not depend on it.
    """
    cdef Py_ssize_t n_features = x.shape[0]
    cdef Py_ssize_t n = x.shape[1]
    cdef Py_ssize_t f, p
    cdef double* best
    cdef double eps
    cdef int32_t[::1] status
    if y.shape[0] != n_features or y.shape[1] != n or n_x.shape[0] != n_features or n_x.shape[1] != n \
            or n_y.shape[0] != n_features or n_y.shape[1] != n:
        raise ValueError(f"y, n_x, n_y: expected shape ({n_features}, {n}) as x")
    check_length("sorted_y", sorted_y.shape[0], n, "values (one per point)")
    if not 1 <= k < n:
        raise ValueError(f"k: must lie in 1..{n - 1} (the number of other points); got {k}")
    check_threads(n_threads)
    if not (np.isfinite(np.asarray(x)).all() and np.isfinite(np.asarray(y)).all()):
        raise ValueError("x, y: must be finite (no NaN or inf)")
    if n > 1 and (np.any(np.diff(np.asarray(x), axis=1) < 0) or np.any(np.diff(np.asarray(sorted_y)) < 0)):
        raise ValueError("x, sorted_y: every row of x and sorted_y must be sorted increasingly")
    status = np.zeros(max(n_features, 1), dtype=np.int32)
    cdef SignalCheck check
    signal_check_init(&check, 1)
    for f in prange(n_features, nogil=True, num_threads=n_threads, schedule="dynamic"):
        if stop_requested(&check):
            continue
        best = <double*> malloc(k * sizeof(double))
        if best == NULL:
            status[f] = OUT_OF_MEMORY
            continue
        for p in range(n):
            eps = nextafter(_kth_chebyshev(&x[f, 0], &y[f, 0], n, p, k, best), 0.0)
            n_x[f, p] = _count_within(&x[f, 0], n, x[f, p], eps)
            n_y[f, p] = _count_within(&sorted_y[0], n, y[f, p], eps)
        free(best)
    raise_if_stopped(&check)
    if max_status(status) == OUT_OF_MEMORY:
        raise MemoryError("kraskov_counts: out of memory")

# cython: language_level=3
"""Feature vector graph (FVG) modularity of the CMQFS paper, without edges.

Zhao, Wu, Chen, Zhang and Bai (2015), "Feature selection with community
modularity" (CMQFS), Neurocomputing 151, 376-389, section 4: for one feature
with values ``x`` and class labels ``y``, sample ``i`` is joined to its
``p_i - 1`` nearest other samples (``p_i`` = size of the class of ``i``) by
absolute difference, the arcs are symmetrised by union, and the score is the
Newman-Girvan modularity of the partition into classes (Eq. 1-2)::

    Q = sum_c [ l_c / M - (d_c / (2 M))^2 ]

Tie rule: among other samples at equal distance the one with the lower sample
index (row order) comes first.  Distances are the float64 differences
``x_j - x_i``; they are compared exactly as computed.

Nothing here materialises an edge.  With the samples sorted by (value, index)
the neighbour set of a sample is at most four runs of sorted positions:

    [left tie prefix] [left strict run] i [right strict run] [right tie prefix]

where the strict runs hold the samples closer than the k-th smallest distance
``r`` and the tie prefixes the samples at distance exactly ``r`` taken in index
order.  Rounding is monotone, so the computed distances never decrease
outwards on either side; the run ends are found by galloping searches that
start from the previous position's answers (a few steps per position on
ordinary data).
A tie run is in index order when it holds one value;
when distances to different values are equal only after rounding (|2**54 - 1|
== |2**54 - 0|) it is not, and the tied samples taken (the lowest indices) are
found by sorting the indices of both tie runs and stored as extra runs
(``ExtraRuns``) of consecutive positions.  This costs O(t log t) for a tie run
of t samples; it happens only with values of very different magnitudes (never
on ordinary data, where every tie run holds one value and is used as a prefix
found by binary search).

Two ways to count the graph from these runs, giving the same integers:

* the linear path (:func:`_linear_parts`, used wherever it applies): the right
  run and right tie prefix meet, so the right neighbours of p are one run
  whose end never decreases with p; the positions left of q that take q are
  then one run, and M, l_c and d_c follow from prefix counts of the classes
  over the sorted positions in O(m n_classes).  The neighbour runs depend on
  the labels only through the class sizes, which a permutation of the labels
  keeps: :func:`permuted_modularity` sorts and searches once per feature and
  pays one such linear pass per permutation;
* the sweeps (:func:`_modularity_parts_sweep`, for extra runs or tables over
  the size limit): out-degrees are ``k``, in-degrees come from a difference
  array, within-class arc counts from the class ranks of the run ends, and the
  pairs joined in both directions (counted twice by the union) from two offline
  sweeps with Fenwick trees, O(m log m).

Either way the largest single cost is the sort: a radix sort of the values'
order keys (:func:`fstools._ext._sorting.sort_by_value`, linear in m), whose
stability gives the (value, index) order of the ties.

Memory: the features are read in place, as columns of the caller's
(n_samples, n_features) array in any layout; each thread sorts the one
feature it is scoring straight from that column.  Sorted positions, sample indices
and per-sample counts are 32-bit (``index_t``), so m is at most 2**31 - 1;
edge totals over a feature (M, l_c, d_c, arc counts) are int64.  Buffers are
freed as soon as they are no longer needed; the per-thread peak is at most
about 84 bytes per sample for two classes (plus 4 bytes per sample per further
class for the class prefix counts, and 20 per further distinct class size on
the linear path).  The buffers of 8 MB or more are allocated by
``fstools_large_malloc`` (``_common.pxd``), which asks Linux for huge pages: at
10^7 samples the C library maps each such buffer afresh for every feature, and
the faults and TLB misses of its 4 KB pages cost a sixth of the feature (one
feature of 10^7 samples, two classes: 244 -> 204 ns per sample; 10^6: 192 -> 181).

Bounds checking and wraparound are switched off by ``setup.py`` (and on again
with ``FSTOOLS_BOUNDSCHECK=1``).
"""
import numpy as np

cimport numpy as cnp
from cython.parallel cimport prange
from libc.math cimport NAN
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset

from fstools._ext._common cimport (OK, OUT_OF_MEMORY, check_at_least_one, check_class_codes,
                                   check_double_strides, check_length, check_threads, max_status,
                                   SignalCheck, signal_check_init, stop_requested, raise_if_stopped,
                                   large_calloc, large_malloc)
from fstools._ext._sorting cimport heap_sort, lower_bound, sort_by_value

cnp.import_array()

# Sorted positions, sample indices and per-sample counts (each <= m).
ctypedef int32_t index_t

# Largest number of samples the 32-bit index_t can address (positions run to m).
MAX_SAMPLES = 2147483647

# Layout of the four neighbour runs of a sorted position p, each [start, end):
# INTERVALS_PER_NODE consecutive (start, end) pairs in this order.
cdef enum:
    LEFT_TIE = 0
    LEFT_STRICT = 1
    RIGHT_STRICT = 2
    RIGHT_TIE = 3
    INTERVALS_PER_NODE = 4

# --------------------------------------------------------------------------
# Neighbour runs of one sorted position.
# --------------------------------------------------------------------------

cdef inline double _left_distance(const double* v, Py_ssize_t p, Py_ssize_t j) noexcept nogil:
    """Distance from position p to the j-th sample on its left (j = 0 is p - 1)."""
    return v[p] - v[p - 1 - j]


cdef inline double _right_distance(const double* v, Py_ssize_t p, Py_ssize_t j) noexcept nogil:
    """Distance from position p to the j-th sample on its right (j = 0 is p + 1)."""
    return v[p + 1 + j] - v[p]


cdef inline bint _closer(const double* v, Py_ssize_t p, Py_ssize_t j, double r, bint right,
                         bint inclusive) noexcept nogil:
    """Whether the j-th sample on the left (or right) of position p is at distance < r (<= r)."""
    cdef double d = _right_distance(v, p, j) if right else _left_distance(v, p, j)
    return d < r or (inclusive and d == r)


cdef Py_ssize_t _count_below(const double* v, Py_ssize_t p, Py_ssize_t m, double r, bint right,
                             bint inclusive, Py_ssize_t hint) noexcept nogil:
    """Number of left (or right) neighbours of p at distance < r (or <= r when ``inclusive``).

    The distances never decrease outwards, so the answer is where ``_closer`` turns false;
    it is found by galloping from ``hint`` (an estimate of the answer) and then bisecting:
    the same answer from any hint, in O(log |answer - hint|) steps.
    """
    cdef Py_ssize_t n = m - 1 - p if right else p
    cdef Py_ssize_t low, high, probe, mid
    cdef Py_ssize_t step = 1
    if hint < 0:
        hint = 0
    elif hint > n:
        hint = n
    if hint < n and _closer(v, p, hint, r, right, inclusive):
        # The answer is above hint.
        low = hint + 1
        probe = hint + 1
        while probe < n and _closer(v, p, probe, r, right, inclusive):
            low = probe + 1
            step *= 2
            probe = hint + step
        high = probe if probe < n else n
    else:
        # The answer is at most hint.
        high = hint
        probe = hint - 1
        while probe >= 0 and not _closer(v, p, probe, r, right, inclusive):
            high = probe
            step *= 2
            probe = hint - step
        low = probe + 1 if probe >= 0 else 0
    while low < high:
        mid = (low + high) // 2
        if _closer(v, p, mid, r, right, inclusive):
            low = mid + 1
        else:
            high = mid
    return low


cdef inline bint _split_fits(const double* v, Py_ssize_t p, Py_ssize_t k, Py_ssize_t n_right,
                             Py_ssize_t from_left) noexcept nogil:
    """Whether taking ``from_left`` of the k nearest from the left (the rest from the right) is
    a valid split: its last left distance does not exceed the next right distance."""
    return k - from_left == n_right or \
        _left_distance(v, p, from_left - 1) <= _right_distance(v, p, k - from_left)


cdef Py_ssize_t _split(const double* v, Py_ssize_t p, Py_ssize_t k, Py_ssize_t n_right,
                       Py_ssize_t low, Py_ssize_t high, Py_ssize_t hint) noexcept nogil:
    """The largest ``from_left`` in [low, high] that is ``low`` or a valid split (:func:`_split_fits`
    holds for a prefix of the range), by galloping from ``hint`` and bisecting."""
    cdef Py_ssize_t first_bad, bad_high, probe, mid
    cdef Py_ssize_t step = 1
    # Search the first from_left above low that does not fit, in [low + 1, high + 1].
    if hint <= low:
        hint = low + 1
    elif hint > high + 1:
        hint = high + 1
    if hint <= high and _split_fits(v, p, k, n_right, hint):
        first_bad = hint + 1
        probe = hint + 1
        while probe <= high and _split_fits(v, p, k, n_right, probe):
            first_bad = probe + 1
            step *= 2
            probe = hint + step
        bad_high = probe if probe <= high else high + 1
    else:
        bad_high = hint
        probe = hint - 1
        while probe > low and not _split_fits(v, p, k, n_right, probe):
            bad_high = probe
            step *= 2
            probe = hint - step
        first_bad = probe + 1 if probe > low else low + 1
    while first_bad < bad_high:
        mid = (first_bad + bad_high) // 2
        if _split_fits(v, p, k, n_right, mid):
            first_bad = mid + 1
        else:
            bad_high = mid
    return first_bad - 1


cdef struct SearchHint:
    # The previous position searched (-1: none) and its split and strict-run ends, from which
    # the searches of the next position start (neighbouring positions have close answers).
    Py_ssize_t position
    Py_ssize_t from_left
    Py_ssize_t left_start
    Py_ssize_t right_end


cdef inline void _search_hint_init(SearchHint* hint) noexcept nogil:
    hint.position = -1


cdef struct ExtraRuns:
    # Tie sub-runs of the positions whose tie samples are not a prefix of each
    # tie run (distances equal only after rounding, so a tie run holds several
    # values and is not in index order).  Appended in position order, so the
    # runs of one position are consecutive: node[i] owns [start[i], end[i]).
    # Empty on ordinary data (every tie run holds one value).
    Py_ssize_t count
    Py_ssize_t capacity
    index_t* node
    index_t* start
    index_t* end
    # m slots for the sample indices of the tie runs; allocated on first use.
    index_t* scratch


cdef void _extra_runs_init(ExtraRuns* extra) noexcept nogil:
    extra.count = 0
    extra.capacity = 0
    extra.node = NULL
    extra.start = NULL
    extra.end = NULL
    extra.scratch = NULL


cdef void _extra_runs_free(ExtraRuns* extra) noexcept nogil:
    free(extra.node); free(extra.start); free(extra.end); free(extra.scratch)
    _extra_runs_init(extra)


cdef int _extra_runs_append(ExtraRuns* extra, Py_ssize_t p, Py_ssize_t start,
                            Py_ssize_t end) noexcept nogil:
    """Append the run [start, end) of position p; returns OK or OUT_OF_MEMORY."""
    cdef Py_ssize_t capacity
    cdef index_t* grown
    if extra.count == extra.capacity:
        capacity = 2 * extra.capacity if extra.capacity > 0 else 16
        grown = <index_t*> realloc(extra.node, capacity * sizeof(index_t))
        if grown == NULL:
            return OUT_OF_MEMORY
        extra.node = grown
        grown = <index_t*> realloc(extra.start, capacity * sizeof(index_t))
        if grown == NULL:
            return OUT_OF_MEMORY
        extra.start = grown
        grown = <index_t*> realloc(extra.end, capacity * sizeof(index_t))
        if grown == NULL:
            return OUT_OF_MEMORY
        extra.end = grown
        extra.capacity = capacity
    extra.node[extra.count] = <index_t> p
    extra.start[extra.count] = <index_t> start
    extra.end[extra.count] = <index_t> end
    extra.count += 1
    return OK


cdef int _append_selected_blocks(ExtraRuns* extra, const index_t* order, Py_ssize_t p,
                                 Py_ssize_t start, Py_ssize_t end,
                                 index_t largest_index) noexcept nogil:
    """Append the maximal blocks of [start, end) whose sample index is <= largest_index."""
    cdef Py_ssize_t q = start
    cdef Py_ssize_t block_start
    while q < end:
        if order[q] > largest_index:
            q += 1
            continue
        block_start = q
        while q < end and order[q] <= largest_index:
            q += 1
        if _extra_runs_append(extra, p, block_start, q) != OK:
            return OUT_OF_MEMORY
    return OK


cdef int _neighbour_runs(const double* v, const index_t* order, Py_ssize_t m,
                         Py_ssize_t p, Py_ssize_t k, index_t* runs,
                         ExtraRuns* extra, SearchHint* hint) noexcept nogil:
    """Write the [start, end) runs of the k nearest neighbours of position p.

    ``runs`` receives 8 numbers: LEFT_TIE, LEFT_STRICT, RIGHT_STRICT, RIGHT_TIE.
    When a tie run holds more than one value (distances equal only after
    rounding) the samples taken from it need not be a prefix: both tie runs
    in ``runs`` are then left empty and the taken samples are appended to
    ``extra`` as blocks of consecutive positions.  The searches start from
    ``hint`` (the previous position's answers; updated), which changes their
    cost, never their result.  Returns OK or OUT_OF_MEMORY.
    """
    cdef Py_ssize_t n_left = p
    cdef Py_ssize_t n_right = m - 1 - p
    cdef Py_ssize_t low, high, mid, from_left, i, n_gathered
    cdef Py_ssize_t left_strict, left_upto, right_strict, right_upto
    cdef Py_ssize_t n_tied, n_left_tied, n_right_tied, left_tie_start, right_tie_start
    cdef index_t largest_index
    cdef double r, d

    for i in range(2 * INTERVALS_PER_NODE):
        runs[i] = <index_t> p
    if k <= 0:
        return OK

    # r = k-th smallest distance: take `from_left` from the left list and
    # k - from_left from the right list (both sorted by distance: rounding
    # is monotone, so the computed distances never decrease outwards).  The
    # largest from_left whose last left distance does not exceed the next
    # right distance is a valid split.
    low = k - n_right
    if low < 0:
        low = 0
    high = k if k < n_left else n_left
    if hint.position < 0:
        from_left = _split(v, p, k, n_right, low, high, (low + high) // 2 + 1)
    else:
        from_left = _split(v, p, k, n_right, low, high, hint.from_left + 1)
    r = -1.0
    if from_left > 0:
        r = _left_distance(v, p, from_left - 1)
    if k - from_left > 0:
        d = _right_distance(v, p, k - from_left - 1)
        if d > r:
            r = d

    if hint.position < 0:
        left_strict = _count_below(v, p, m, r, False, False, from_left)
        right_strict = _count_below(v, p, m, r, True, False, k - from_left)
    else:
        left_strict = _count_below(v, p, m, r, False, False, p - hint.left_start)
        right_strict = _count_below(v, p, m, r, True, False, hint.right_end - p - 1)
    left_upto = _count_below(v, p, m, r, False, True, left_strict)
    right_upto = _count_below(v, p, m, r, True, True, right_strict)
    hint.position = p
    hint.from_left = from_left
    hint.left_start = p - left_strict
    hint.right_end = p + 1 + right_strict

    # The samples at computed distance exactly r: a run on each side.  Take
    # the n_tied lowest sample indices of the union (the tie rule).
    n_tied = k - left_strict - right_strict
    n_left_tied = left_upto - left_strict
    n_right_tied = right_upto - right_strict
    left_tie_start = p - left_upto
    right_tie_start = p + 1 + right_strict

    runs[2 * LEFT_STRICT] = <index_t> (p - left_strict)
    runs[2 * LEFT_STRICT + 1] = <index_t> p
    runs[2 * RIGHT_STRICT] = <index_t> (p + 1)
    runs[2 * RIGHT_STRICT + 1] = <index_t> (p + 1 + right_strict)

    if ((n_left_tied > 1 and v[left_tie_start] != v[left_tie_start + n_left_tied - 1]) or
            (n_right_tied > 1 and v[right_tie_start] != v[right_tie_start + n_right_tied - 1])):
        # A tie run holds several values (equal distances only after
        # rounding): it is in (value, index) order, not index order.  Find the
        # n_tied-th smallest sample index of both runs and take every tied
        # sample up to it, as blocks of consecutive positions.
        runs[2 * LEFT_TIE] = <index_t> left_tie_start
        runs[2 * LEFT_TIE + 1] = <index_t> left_tie_start
        runs[2 * RIGHT_TIE] = <index_t> right_tie_start
        runs[2 * RIGHT_TIE + 1] = <index_t> right_tie_start
        if n_tied <= 0:
            return OK
        if extra.scratch == NULL:
            extra.scratch = <index_t*> large_malloc(m * sizeof(index_t))
            if extra.scratch == NULL:
                return OUT_OF_MEMORY
        n_gathered = 0
        for i in range(left_tie_start, left_tie_start + n_left_tied):
            extra.scratch[n_gathered] = order[i]
            n_gathered += 1
        for i in range(right_tie_start, right_tie_start + n_right_tied):
            extra.scratch[n_gathered] = order[i]
            n_gathered += 1
        heap_sort(extra.scratch, n_gathered)
        largest_index = extra.scratch[n_tied - 1]
        if _append_selected_blocks(extra, order, p, left_tie_start, left_tie_start + n_left_tied,
                                   largest_index) != OK:
            return OUT_OF_MEMORY
        return _append_selected_blocks(extra, order, p, right_tie_start,
                                       right_tie_start + n_right_tied, largest_index)

    # Each tie run holds one value, so it is in index order (equal values
    # are sorted by index): the n_tied lowest indices are a prefix of each
    # run, found by binary search.
    low = n_tied - n_right_tied
    if low < 0:
        low = 0
    high = n_tied if n_tied < n_left_tied else n_left_tied
    while low < high:
        mid = (low + high + 1) // 2
        if n_tied - mid == n_right_tied or \
                order[left_tie_start + mid - 1] < order[right_tie_start + n_tied - mid]:
            low = mid
        else:
            high = mid - 1

    runs[2 * LEFT_TIE] = <index_t> left_tie_start
    runs[2 * LEFT_TIE + 1] = <index_t> (left_tie_start + low)
    runs[2 * RIGHT_TIE] = <index_t> right_tie_start
    runs[2 * RIGHT_TIE + 1] = <index_t> (right_tie_start + (n_tied - low))
    return OK


# --------------------------------------------------------------------------
# Counting helpers.
# --------------------------------------------------------------------------

# Above this many cells (n_classes * (m + 1)) the per-class prefix-count
# table is not built and class counts fall back to binary search -- unless the
# table has at most TABLE_CELLS_PER_ROW cells per sample (16 bytes a sample, two
# float64 columns' worth per thread), which any m allows: with a fixed limit, two
# classes and 10^7 samples went to the sweeps, 5x slower (39 s against 7.7 s for
# one feature).  The limit 0 (the tests) always means the sweeps.
cdef Py_ssize_t class_table_cell_limit = 1 << 24
cdef enum:
    TABLE_CELLS_PER_ROW = 4


cdef inline bint _table_fits(Py_ssize_t cells, Py_ssize_t m) noexcept nogil:
    """Whether a class table of ``cells`` cells over ``m`` samples may be built."""
    if class_table_cell_limit <= 0:
        return False
    return cells <= class_table_cell_limit or cells <= TABLE_CELLS_PER_ROW * (m + 1)


def _set_class_table_cell_limit(Py_ssize_t cells):
    """Set the size limit of the class prefix-count table (tests use 0 to force binary search)."""
    global class_table_cell_limit
    class_table_cell_limit = cells


cdef struct ClassIndex:
    # Sorted positions grouped by class: class c owns
    # positions[offset[c]:offset[c + 1]], ascending.
    # (positions is NULL once the count_before table replaces it.)
    Py_ssize_t n_classes
    Py_ssize_t m
    Py_ssize_t* offset
    index_t* positions
    # Index of every sorted position in that class-major list.
    index_t* class_major_index
    # Optional table: count_before[c * (m + 1) + pos] = number of class-c
    # positions below pos (NULL when n_classes * (m + 1) is too large).
    int32_t* count_before


cdef inline Py_ssize_t _class_rank(const ClassIndex* classes, Py_ssize_t c,
                                   Py_ssize_t pos) noexcept nogil:
    """Number of sorted positions below ``pos`` that hold class ``c``."""
    if classes.count_before != NULL:
        return classes.count_before[c * (classes.m + 1) + pos]
    return lower_bound(classes.positions + classes.offset[c],
                       classes.offset[c + 1] - classes.offset[c], <int32_t> pos)


cdef inline void _fenwick_add(index_t* tree, Py_ssize_t size, Py_ssize_t index,
                              index_t delta) noexcept nogil:
    """Add ``delta`` at 0-based ``index`` of a Fenwick tree over ``size`` slots."""
    index += 1
    while index <= size:
        tree[index] += delta
        index += index & (-index)


cdef inline Py_ssize_t _fenwick_prefix(const index_t* tree, Py_ssize_t end) noexcept nogil:
    """Sum of the slots [0, end) of a Fenwick tree (a count of samples, so <= m)."""
    cdef Py_ssize_t total = 0
    while end > 0:
        total += tree[end]
        end -= end & (-end)
    return total


cdef inline void _store_run_events(Py_ssize_t q, Py_ssize_t start, Py_ssize_t end,
                                   Py_ssize_t* event_bound, index_t* event_node,
                                   int8_t* event_sign) noexcept nogil:
    """Store sample q's activation (+1 at ``start``) and deactivation (-1 at ``end``)
    events in their buckets; ``event_bound[t + 1]`` is the next free slot of bucket t."""
    cdef Py_ssize_t slot = event_bound[start + 1]
    event_node[slot] = <index_t> q
    event_sign[slot] = 1
    event_bound[start + 1] = slot + 1
    slot = event_bound[end + 1]
    event_node[slot] = <index_t> q
    event_sign[slot] = -1
    event_bound[end + 1] = slot + 1


cdef void _bucket_run_events(Py_ssize_t m, const index_t* runs, const ExtraRuns* extra,
                             int active_first, Py_ssize_t* event_bound, index_t* event_node,
                             int8_t* event_sign) noexcept nogil:
    """Visit the activation / deactivation events of the two runs of every sample starting
    at ``active_first`` and of the extra runs on that side (left with LEFT_TIE).

    With ``event_node == NULL`` count them (into ``event_bound[t + 2]``), otherwise store
    them in their buckets (:func:`_store_run_events`)."""
    cdef bint active_left = active_first == LEFT_TIE
    cdef Py_ssize_t q, run, start, end, x_run
    for q in range(m):
        for run in range(active_first, active_first + 2):
            start = runs[q * 2 * INTERVALS_PER_NODE + 2 * run]
            end = runs[q * 2 * INTERVALS_PER_NODE + 2 * run + 1]
            if start < end:
                if event_node == NULL:
                    event_bound[start + 2] += 1
                    event_bound[end + 2] += 1
                else:
                    _store_run_events(q, start, end, event_bound, event_node, event_sign)
    for x_run in range(extra.count):
        start = extra.start[x_run]
        end = extra.end[x_run]
        if (start < extra.node[x_run]) == active_left and start < end:
            if event_node == NULL:
                event_bound[start + 2] += 1
                event_bound[end + 2] += 1
            else:
                _store_run_events(extra.node[x_run], start, end, event_bound, event_node, event_sign)


cdef inline int64_t _active_in_run(const index_t* tree_all, const index_t* tree_class,
                                   const ClassIndex* classes, Py_ssize_t c, Py_ssize_t start,
                                   Py_ssize_t end, int64_t* same) noexcept nogil:
    """Active samples at sorted positions [start, end); adds those of class ``c`` to
    ``same[0]`` when ``tree_class`` is not NULL."""
    cdef Py_ssize_t low_c, high_c
    if tree_class != NULL:
        low_c = classes.offset[c] + _class_rank(classes, c, start)
        high_c = classes.offset[c] + _class_rank(classes, c, end)
        same[0] += _fenwick_prefix(tree_class, high_c) - _fenwick_prefix(tree_class, low_c)
    return _fenwick_prefix(tree_all, end) - _fenwick_prefix(tree_all, start)


cdef int _mutual_sweep(Py_ssize_t m, const index_t* runs, const ExtraRuns* extra,
                       int active_first, int query_first,
                       const ClassIndex* classes, const int32_t* class_at,
                       int64_t* mutual_by_class, int64_t* mutual_same_by_class) noexcept nogil:
    """Count, for every position p, the positions q joined to p in both directions.

    Sample q is *active* at sweep time p when p lies in one of q's two runs
    starting at ``active_first``; p *queries* the positions in its own two runs
    starting at ``query_first``.  With (LEFT_TIE, RIGHT_STRICT) this counts the
    mutual pairs with q > p; with (RIGHT_STRICT, LEFT_TIE) those with q < p.
    ``mutual_by_class[c]`` is incremented by the counts of the positions of
    class c, and ``mutual_same_by_class[c]`` (unless NULL) by their counts of
    partners in class c.  The runs in ``extra`` take part on their side (left
    of their position with LEFT_TIE, right with RIGHT_STRICT).  Returns OK or
    OUT_OF_MEMORY.
    """
    cdef bint same_class = mutual_same_by_class != NULL
    cdef bint active_left = active_first == LEFT_TIE
    cdef bint is_left
    cdef Py_ssize_t x_run, x_cursor = 0
    # Event buckets by time t = 0..m: bucket t is event_bound[t]:event_bound[t + 1]
    # once filled.  Up to 4m events, so the bounds are 64-bit.
    cdef Py_ssize_t* event_bound = <Py_ssize_t*> large_calloc(m + 3, sizeof(Py_ssize_t))
    cdef index_t* event_node = NULL
    cdef int8_t* event_sign = NULL
    cdef index_t* tree_all = NULL
    cdef index_t* tree_class = NULL
    cdef Py_ssize_t q, p, t, e, run, start, end, c, n_events
    cdef int64_t total, same
    if event_bound == NULL:
        return OUT_OF_MEMORY

    # Bucket the activation (+1 at start) and deactivation (-1 at end) events
    # by time with a counting sort (two runs, so four events, per sample, plus
    # two per extra run).  The count of bucket t goes to event_bound[t + 2]; after the
    # prefix sum event_bound[t + 1] is where bucket t begins, and filling
    # advances it to where bucket t ends, i.e. where bucket t + 1 begins.
    _bucket_run_events(m, runs, extra, active_first, event_bound, NULL, NULL)
    for t in range(m + 2):
        event_bound[t + 1] += event_bound[t]
    n_events = event_bound[m + 2]
    # Only the events that exist are stored (malloc(0) may return NULL).
    event_node = <index_t*> large_malloc((n_events + 1) * sizeof(index_t))
    event_sign = <int8_t*> large_malloc((n_events + 1) * sizeof(int8_t))
    tree_all = <index_t*> large_calloc(m + 1, sizeof(index_t))
    if same_class:
        tree_class = <index_t*> large_calloc(m + 1, sizeof(index_t))
    if (event_node == NULL or event_sign == NULL or tree_all == NULL or
            (same_class and tree_class == NULL)):
        free(event_bound); free(event_node); free(event_sign); free(tree_all); free(tree_class)
        return OUT_OF_MEMORY
    _bucket_run_events(m, runs, extra, active_first, event_bound, event_node, event_sign)

    for p in range(m):
        for e in range(event_bound[p], event_bound[p + 1]):
            q = event_node[e]
            _fenwick_add(tree_all, m, q, event_sign[e])
            if same_class:
                _fenwick_add(tree_class, m, classes.class_major_index[q], event_sign[e])
        c = class_at[p]
        total = 0
        same = 0
        for run in range(query_first, query_first + 2):
            start = runs[p * 2 * INTERVALS_PER_NODE + 2 * run]
            end = runs[p * 2 * INTERVALS_PER_NODE + 2 * run + 1]
            if start < end:
                total += _active_in_run(tree_all, tree_class, classes, c, start, end, &same)
        # The extra runs of p (sorted by position), on the query side.
        while x_cursor < extra.count and extra.node[x_cursor] < p:
            x_cursor += 1
        while x_cursor < extra.count and extra.node[x_cursor] == p:
            start = extra.start[x_cursor]
            end = extra.end[x_cursor]
            x_cursor += 1
            is_left = start < p
            if is_left == active_left or start >= end:
                continue
            total += _active_in_run(tree_all, tree_class, classes, c, start, end, &same)
        mutual_by_class[c] += total
        if same_class:
            mutual_same_by_class[c] += same

    free(event_bound); free(event_node); free(event_sign); free(tree_all); free(tree_class)
    return OK


# --------------------------------------------------------------------------
# Modularity of one feature.
# --------------------------------------------------------------------------

cdef int _modularity_parts_sweep(const double* x, Py_ssize_t x_stride, Py_ssize_t m,
                                 const int32_t* y, int n_classes, int64_t* n_edges,
                                 int64_t* within_edges, int64_t* degree_sum) noexcept nogil:
    """Edge count M, within-class edges l_c and degree sums d_c of one FVG, by the sweeps.

    The general path: it handles the tie runs that hold several values (the
    extra runs) and needs no table over all classes.  :func:`_modularity_parts`
    uses it where the linear path (:func:`_linear_parts`) does not apply.

    The feature is ``x[0], x[x_stride], ..., x[(m - 1) * x_stride]`` (a column
    of the caller's array, read in place by the sort).
    ``within_edges`` and ``degree_sum`` have ``n_classes`` slots and are
    overwritten.  The class codes ``y`` lie in 0..n_classes-1 (checked once by the
    ``def`` wrapper).  Returns OK or OUT_OF_MEMORY.

    Edges are the union of arcs, so with A arcs and D pairs joined both ways,
    M = A - D; l_c = (arcs inside c) - (pairs inside c joined both ways); and
    deg(i) = out(i) + in(i) - mutual(i).  Per class only the sum of mutual(i)
    is needed: with at most two classes it follows from the first sweep
    (2 * D_cc plus every cross-class pair), otherwise a second, mirrored sweep
    counts each sample's partners on its left.

    Every work array of m entries is allocated in the step that first needs it
    and freed after the last step that reads it (pointers set to NULL), so
    the peak is the neighbour runs plus the sweep's events and trees.
    """
    # The sort order (the feature is read in place by the sort).
    cdef index_t* order = NULL
    # Sorted values and classes.
    cdef double* v = NULL
    cdef int32_t* class_at = NULL
    # Neighbour runs and in-degree difference array (in-degree < m).
    cdef index_t* runs = NULL
    cdef index_t* in_degree = NULL
    cdef Py_ssize_t* class_fill = NULL
    cdef int64_t* arc_within = <int64_t*> calloc(n_classes, sizeof(int64_t))
    cdef int64_t* mutual_by_class = <int64_t*> calloc(n_classes, sizeof(int64_t))
    cdef int64_t* mutual_within = <int64_t*> calloc(n_classes, sizeof(int64_t))
    cdef ClassIndex classes
    cdef ExtraRuns extra
    cdef SearchHint hint
    cdef Py_ssize_t i, p, c, run, start, end, k, x_run, first_extra
    cdef Py_ssize_t running = 0
    cdef int64_t n_arcs = 0
    cdef int64_t n_mutual = 0
    cdef int64_t n_mutual_within = 0
    cdef int status = OK
    cdef bint use_table = _table_fits(n_classes * (m + 1), m)

    _extra_runs_init(&extra)
    _search_hint_init(&hint)
    classes.n_classes = n_classes
    classes.m = m
    classes.offset = <Py_ssize_t*> malloc((n_classes + 1) * sizeof(Py_ssize_t))
    classes.positions = NULL
    classes.class_major_index = NULL
    classes.count_before = NULL

    if arc_within == NULL or mutual_by_class == NULL or mutual_within == NULL or classes.offset == NULL:
        status = OUT_OF_MEMORY

    if status == OK:
        # The sort order, the sorted values and the class at every sorted position.
        order = <index_t*> large_malloc(m * sizeof(index_t))
        v = <double*> large_malloc(m * sizeof(double))
        class_at = <int32_t*> large_malloc(m * sizeof(int32_t))
        if order == NULL or v == NULL or class_at == NULL:
            status = OUT_OF_MEMORY
    if status == OK:
        status = _sort_feature(x, x_stride, m, v, order)
    if status == OK:
        for p in range(m):
            class_at[p] = y[order[p]]

        # Class sizes and each class's sorted positions, ascending.
        class_fill = <Py_ssize_t*> malloc((n_classes + 1) * sizeof(Py_ssize_t))
        classes.positions = <index_t*> large_malloc(m * sizeof(index_t))
        classes.class_major_index = <index_t*> large_malloc(m * sizeof(index_t))
        if use_table:
            classes.count_before = <int32_t*> large_malloc(n_classes * (m + 1) * sizeof(int32_t))
        if (class_fill == NULL or classes.positions == NULL or classes.class_major_index == NULL or
                (use_table and classes.count_before == NULL)):
            status = OUT_OF_MEMORY
    if status == OK:
        memset(classes.offset, 0, (n_classes + 1) * sizeof(Py_ssize_t))
        for p in range(m):
            classes.offset[class_at[p] + 1] += 1
        for c in range(n_classes):
            classes.offset[c + 1] += classes.offset[c]
        memcpy(class_fill, classes.offset, (n_classes + 1) * sizeof(Py_ssize_t))
        for p in range(m):
            c = class_at[p]
            classes.positions[class_fill[c]] = <index_t> p
            classes.class_major_index[p] = <index_t> class_fill[c]
            class_fill[c] += 1
        free(class_fill)
        class_fill = NULL
        if use_table:
            for c in range(n_classes):
                classes.count_before[c * (m + 1)] = 0
                for p in range(m):
                    classes.count_before[c * (m + 1) + p + 1] = (
                        classes.count_before[c * (m + 1) + p] + (class_at[p] == c))
            # The table answers every class-rank query; the list is not needed.
            free(classes.positions)
            classes.positions = NULL

        runs = <index_t*> large_malloc(2 * INTERVALS_PER_NODE * m * sizeof(index_t))
        in_degree = <index_t*> large_calloc(m + 1, sizeof(index_t))
        if runs == NULL or in_degree == NULL:
            status = OUT_OF_MEMORY
    if status == OK:
        # Neighbour runs, out-degrees, in-degrees (difference array) and
        # arcs inside each class.
        for p in range(m):
            c = class_at[p]
            k = classes.offset[c + 1] - classes.offset[c] - 1
            n_arcs += k
            first_extra = extra.count
            if _neighbour_runs(v, order, m, p, k, runs + p * 2 * INTERVALS_PER_NODE, &extra,
                               &hint) != OK:
                status = OUT_OF_MEMORY
                break
            for run in range(INTERVALS_PER_NODE):
                start = runs[p * 2 * INTERVALS_PER_NODE + 2 * run]
                end = runs[p * 2 * INTERVALS_PER_NODE + 2 * run + 1]
                if start < end:
                    in_degree[start] += 1
                    in_degree[end] -= 1
                    arc_within[c] += _class_rank(&classes, c, end) - _class_rank(&classes, c, start)
            # Tie blocks of p when its ties are not prefixes (rounding).
            for x_run in range(first_extra, extra.count):
                start = extra.start[x_run]
                end = extra.end[x_run]
                in_degree[start] += 1
                in_degree[end] -= 1
                arc_within[c] += _class_rank(&classes, c, end) - _class_rank(&classes, c, start)
    if status == OK:
        free(extra.scratch)
        extra.scratch = NULL
        free(v)
        v = NULL
        free(order)
        order = NULL
        # Degree sums before subtracting the mutual partners: out + in.
        for c in range(n_classes):
            degree_sum[c] = 0
        for p in range(m):
            running += in_degree[p]
            c = class_at[p]
            degree_sum[c] += classes.offset[c + 1] - classes.offset[c] - 1 + running
        free(in_degree)
        in_degree = NULL

        # Pairs joined both ways, each counted once from its left end.
        status = _mutual_sweep(m, runs, &extra, LEFT_TIE, RIGHT_STRICT, &classes, class_at,
                               mutual_by_class, mutual_within)

    if status == OK:
        for c in range(n_classes):
            n_mutual += mutual_by_class[c]
            n_mutual_within += mutual_within[c]
            within_edges[c] = arc_within[c] - mutual_within[c]
        if n_classes <= 2:
            # Every pair across the (at most) two classes has one end in each.
            for c in range(n_classes):
                degree_sum[c] -= 2 * mutual_within[c] + (n_mutual - n_mutual_within)
        else:
            # Add each sample's partners on its left, then subtract per class.
            status = _mutual_sweep(m, runs, &extra, RIGHT_STRICT, LEFT_TIE, &classes, class_at,
                                   mutual_by_class, NULL)
            if status == OK:
                for c in range(n_classes):
                    degree_sum[c] -= mutual_by_class[c]
        n_edges[0] = n_arcs - n_mutual

    free(order); free(v); free(class_at)
    free(runs); free(in_degree); free(class_fill)
    free(arc_within); free(mutual_by_class); free(mutual_within)
    free(classes.offset); free(classes.positions); free(classes.class_major_index)
    free(classes.count_before)
    _extra_runs_free(&extra)
    return status


# --------------------------------------------------------------------------
# The linear path: label-free neighbour tables, then O(m n_classes) counts.
# --------------------------------------------------------------------------
#
# The graph depends on the labels only through each sample's neighbour count
# k_i = p_i - 1, and a permutation of the labels keeps the class sizes: the
# neighbour sets for every class size, and where each set lies in the sorted
# order, are fixed.  Only which of them a sample uses and the class of every
# position change.  On ordinary data (no extra runs) the out-neighbours of
# sorted position p for a count k are
#
#     [tie_start, tie_end)   the taken left tie samples (the farthest ones: the
#                            lowest indices of a run of one value lie left),
#     [left_strict, p)       the left samples closer than r,
#     [p + 1, right_end)     the right samples: strict run and tie prefix meet,
#
# and right_end never decreases with p (if s > p' > p were taken by p and not
# by p', the k samples p' prefers to s, with p' itself in place of p, would all
# be preferred to s by p).  So the positions left of q whose right run holds q
# form one run [first_source[q], q), found for all q by one two-pointer pass,
# and the pairs joined both ways with q as right end and p of class a are the
# class-a positions of [first_source_a[q], q) inside q's two left runs: two
# differences of a prefix-count table.  Arcs inside a class are prefix-count
# differences over the three runs, in-degrees come from a difference array.
# Every count is the integer the sweeps compute, so Q is bitwise the same.

# _neighbour_table / _linear_graph_init: the graph is not of this form (extra
# runs, or a table over the size limit): the caller uses the sweeps.  Never
# stored in a status array.
cdef enum:
    NOT_LINEAR = -1


# The fields of a neighbour table, per sorted position p (interleaved: the
# per-position passes read one record, not five arrays).
cdef enum:
    LEFT_STRICT_FIELD = 0       # left strict run [left_strict, p)
    TIE_START_FIELD = 1         # taken left tie samples [tie_start, tie_end)
    TIE_END_FIELD = 2
    RIGHT_END_FIELD = 3         # right run [p + 1, right_end)
    FIRST_SOURCE_FIELD = 4      # [first_source, p): the positions left of p whose right run holds p
    TABLE_FIELDS = 5


cdef struct NeighbourTable:
    # Runs of the out-neighbours of every sorted position p for one count k
    # (see above): entries[p * TABLE_FIELDS + field].
    index_t* entries


cdef inline bint _uses_table(const int32_t* class_at, const int64_t* class_size, Py_ssize_t p,
                             int64_t size) noexcept nogil:
    """Whether sorted position p needs the table of the class size ``size`` (every
    position when ``class_at`` is NULL, else those whose class has that size)."""
    return class_at == NULL or class_size[class_at[p]] == size


cdef int _neighbour_table(const double* v, const index_t* order, Py_ssize_t m, int64_t size,
                          const int32_t* class_at, const int64_t* class_size,
                          index_t* block, NeighbourTable* table) noexcept nogil:
    """Fill ``table`` (stored in ``block``, TABLE_FIELDS m entries) for classes of ``size`` samples (k = size - 1).

    With ``class_at`` (the classes at the sorted positions) only the positions
    of such classes are filled, and ``first_source`` counts only them: enough
    for that labelling, with the neighbour search done once per position.
    With ``class_at`` NULL every position is filled (for any labelling with
    these class sizes).  Returns OK, OUT_OF_MEMORY, or NOT_LINEAR when a tie
    run holds several values (the extra runs) or the right ends decrease.
    """
    cdef index_t runs[2 * INTERVALS_PER_NODE]
    cdef ExtraRuns extra
    cdef SearchHint hint
    cdef Py_ssize_t p, q, source, previous = -1
    cdef Py_ssize_t k = size - 1
    cdef int status = OK
    table.entries = block
    _extra_runs_init(&extra)
    _search_hint_init(&hint)
    for p in range(m):
        if not _uses_table(class_at, class_size, p, size):
            continue
        if k <= 0:
            table.entries[p * TABLE_FIELDS + LEFT_STRICT_FIELD] = <index_t> p
            table.entries[p * TABLE_FIELDS + TIE_START_FIELD] = <index_t> p
            table.entries[p * TABLE_FIELDS + TIE_END_FIELD] = <index_t> p
            table.entries[p * TABLE_FIELDS + RIGHT_END_FIELD] = <index_t> (p + 1)
        else:
            status = _neighbour_runs(v, order, m, p, k, runs, &extra, &hint)
            if status != OK:
                break
            if (extra.count > 0 or runs[2 * LEFT_STRICT + 1] != p or runs[2 * RIGHT_STRICT] != p + 1
                    or runs[2 * RIGHT_STRICT + 1] != runs[2 * RIGHT_TIE]):
                status = NOT_LINEAR
                break
            table.entries[p * TABLE_FIELDS + LEFT_STRICT_FIELD] = runs[2 * LEFT_STRICT]
            table.entries[p * TABLE_FIELDS + TIE_START_FIELD] = runs[2 * LEFT_TIE]
            table.entries[p * TABLE_FIELDS + TIE_END_FIELD] = runs[2 * LEFT_TIE + 1]
            table.entries[p * TABLE_FIELDS + RIGHT_END_FIELD] = runs[2 * RIGHT_TIE + 1]
        if previous >= 0 and table.entries[p * TABLE_FIELDS + RIGHT_END_FIELD] < table.entries[previous * TABLE_FIELDS + RIGHT_END_FIELD]:
            status = NOT_LINEAR
            break
        previous = p
    _extra_runs_free(&extra)
    if status != OK:
        return status
    # first_source[q]: the first position from which every used position left of q
    # has q in its right run (the used positions left of it do not).
    source = 0
    for q in range(m):
        while source < q and (not _uses_table(class_at, class_size, source, size) or
                              table.entries[source * TABLE_FIELDS + RIGHT_END_FIELD] <= q):
            source += 1
        table.entries[q * TABLE_FIELDS + FIRST_SOURCE_FIELD] = <index_t> source
    return OK


cdef struct LinearGraph:
    # What does not depend on the labels (for fixed class sizes) ...
    Py_ssize_t m
    Py_ssize_t n_classes
    int64_t* class_size        # n_classes
    Py_ssize_t n_present
    Py_ssize_t* present        # the classes with samples, ascending
    NeighbourTable* tables     # n_classes; tables[c] for k = class_size[c] - 1 (shared by equal sizes)
    index_t** blocks           # n_classes; the storage each class owns (NULL when shared or empty)
    # ... and the work arrays of one labelling.
    int32_t* class_at          # m: class at every sorted position (set by the caller)
    index_t* counts            # (m + 1) n_classes: counts[p * n_classes + c] = class-c positions below p
    index_t* in_change         # m + 1: in-degree difference array
    int64_t* arc_within        # n_classes
    int64_t* in_sum            # n_classes
    int64_t* mutual            # n_classes^2: pairs joined both ways, [left end class, right end class]


cdef void _linear_graph_clear(LinearGraph* graph) noexcept nogil:
    graph.class_size = NULL
    graph.present = NULL
    graph.tables = NULL
    graph.blocks = NULL
    graph.class_at = NULL
    graph.counts = NULL
    graph.in_change = NULL
    graph.arc_within = NULL
    graph.in_sum = NULL
    graph.mutual = NULL


cdef void _linear_graph_free(LinearGraph* graph) noexcept nogil:
    cdef Py_ssize_t c
    if graph.blocks != NULL:
        for c in range(graph.n_classes):
            free(graph.blocks[c])
    free(graph.class_size); free(graph.present); free(graph.tables); free(graph.blocks)
    free(graph.class_at); free(graph.counts); free(graph.in_change)
    free(graph.arc_within); free(graph.in_sum); free(graph.mutual)
    _linear_graph_clear(graph)


cdef int _linear_graph_init(LinearGraph* graph, const double* v, const index_t* order,
                            Py_ssize_t m, const int32_t* y, Py_ssize_t n_classes,
                            bint one_labelling) noexcept nogil:
    """Neighbour tables of the sorted feature (``v``, ``order``) for the class sizes of ``y``.

    With ``one_labelling`` the tables serve only the labelling ``y`` (each
    position's neighbours found for its own class size; ``class_at`` is filled);
    otherwise every labelling with the class sizes of ``y``.  Returns OK,
    OUT_OF_MEMORY or NOT_LINEAR; free with :func:`_linear_graph_free` in every case.
    """
    cdef Py_ssize_t i, c, d, n_sizes = 0
    cdef int status = OK
    graph.m = m
    graph.n_classes = n_classes
    graph.n_present = 0
    graph.class_size = <int64_t*> calloc(n_classes, sizeof(int64_t))
    graph.present = <Py_ssize_t*> malloc(n_classes * sizeof(Py_ssize_t))
    if graph.class_size == NULL or graph.present == NULL:
        return OUT_OF_MEMORY
    # The same memory bound as the sweeps' class table (tests set it to 0 to use the sweeps),
    # checked before anything sized by the classes is allocated (and before the O(n_classes^2)
    # search for equal class sizes).
    if not _table_fits((m + 1) * n_classes, m) or not _table_fits(n_classes * n_classes, m):
        return NOT_LINEAR
    for i in range(m):
        graph.class_size[y[i]] += 1
    for c in range(n_classes):
        if graph.class_size[c] > 0:
            graph.present[graph.n_present] = c
            graph.n_present += 1
            for d in range(c):
                if graph.class_size[d] == graph.class_size[c]:
                    break
            else:
                n_sizes += 1
    if n_sizes > 4 and not _table_fits(TABLE_FIELDS * m * n_sizes, m):
        return NOT_LINEAR
    graph.tables = <NeighbourTable*> calloc(n_classes, sizeof(NeighbourTable))
    graph.blocks = <index_t**> calloc(n_classes, sizeof(index_t*))
    graph.arc_within = <int64_t*> malloc(n_classes * sizeof(int64_t))
    graph.in_sum = <int64_t*> malloc(n_classes * sizeof(int64_t))
    graph.mutual = <int64_t*> malloc(n_classes * n_classes * sizeof(int64_t))
    if (graph.tables == NULL or graph.blocks == NULL or graph.arc_within == NULL or
            graph.in_sum == NULL or graph.mutual == NULL):
        return OUT_OF_MEMORY
    graph.class_at = <int32_t*> large_malloc(m * sizeof(int32_t))
    graph.counts = <index_t*> large_malloc((m + 1) * n_classes * sizeof(index_t))
    graph.in_change = <index_t*> large_malloc((m + 1) * sizeof(index_t))
    if graph.class_at == NULL or graph.counts == NULL or graph.in_change == NULL:
        return OUT_OF_MEMORY
    if one_labelling:
        for i in range(m):
            graph.class_at[i] = y[order[i]]
    for c in range(n_classes):
        if graph.class_size[c] == 0:
            continue
        for d in range(c):
            if graph.class_size[d] == graph.class_size[c]:
                graph.tables[c] = graph.tables[d]
                break
        else:
            graph.blocks[c] = <index_t*> large_malloc(TABLE_FIELDS * m * sizeof(index_t))
            if graph.blocks[c] == NULL:
                return OUT_OF_MEMORY
            status = _neighbour_table(v, order, m, graph.class_size[c],
                                      graph.class_at if one_labelling else NULL, graph.class_size,
                                      graph.blocks[c], &graph.tables[c])
            if status != OK:
                return status
    return OK


cdef void _linear_parts(LinearGraph* graph, int64_t* n_edges, int64_t* within_edges,
                        int64_t* degree_sum) noexcept nogil:
    """M, l_c and d_c of the graph for the classes in ``graph.class_at`` (sizes as at init)."""
    cdef Py_ssize_t m = graph.m
    cdef Py_ssize_t n_classes = graph.n_classes
    cdef const int32_t* class_at = graph.class_at
    cdef index_t* counts = graph.counts
    cdef index_t* in_change = graph.in_change
    cdef int64_t* mutual = graph.mutual
    cdef const NeighbourTable* table
    cdef Py_ssize_t p, c, a, i, left_strict, tie_start, tie_end, right_end, low
    cdef const index_t* row_p
    cdef int64_t running
    cdef index_t together
    if n_classes == 2 and graph.n_present == 2:
        _linear_parts_two(graph, n_edges, within_edges, degree_sum)
        return

    # counts[p * n_classes + c]: class-c positions below p.
    for c in range(n_classes):
        counts[c] = 0
    for p in range(m):
        for c in range(n_classes):
            counts[(p + 1) * n_classes + c] = counts[p * n_classes + c]
        counts[(p + 1) * n_classes + class_at[p]] += 1
    memset(in_change, 0, (m + 1) * sizeof(index_t))
    memset(graph.arc_within, 0, n_classes * sizeof(int64_t))
    memset(graph.in_sum, 0, n_classes * sizeof(int64_t))
    memset(mutual, 0, n_classes * n_classes * sizeof(int64_t))

    for p in range(m):
        a = class_at[p]
        table = &graph.tables[a]
        left_strict = table.entries[p * TABLE_FIELDS + LEFT_STRICT_FIELD]
        tie_start = table.entries[p * TABLE_FIELDS + TIE_START_FIELD]
        tie_end = table.entries[p * TABLE_FIELDS + TIE_END_FIELD]
        right_end = table.entries[p * TABLE_FIELDS + RIGHT_END_FIELD]
        row_p = counts + p * n_classes
        # Arcs of p inside its class, and its out-neighbours into the in-degrees.
        graph.arc_within[a] += ((row_p[a] - counts[left_strict * n_classes + a])
                                + (counts[tie_end * n_classes + a] - counts[tie_start * n_classes + a])
                                + (counts[right_end * n_classes + a] - row_p[n_classes + a]))
        in_change[left_strict] += 1
        in_change[p] -= 1
        in_change[tie_start] += 1
        in_change[tie_end] -= 1
        in_change[p + 1] += 1
        in_change[right_end] -= 1
        # Pairs joined both ways with p as right end, by the class c of the left end:
        # the class-c positions of [first_source, p) in p's two left runs.
        for i in range(graph.n_present):
            c = graph.present[i]
            low = graph.tables[c].entries[p * TABLE_FIELDS + FIRST_SOURCE_FIELD]
            together = 0
            if low < left_strict:
                together = row_p[c] - counts[left_strict * n_classes + c]
            else:
                together = row_p[c] - counts[low * n_classes + c]
            if low < tie_start:
                low = tie_start
            if low < tie_end:
                together += counts[tie_end * n_classes + c] - counts[low * n_classes + c]
            mutual[c * n_classes + a] += together

    running = 0
    for p in range(m):
        running += in_change[p]
        graph.in_sum[class_at[p]] += running
    _assemble_parts(graph, n_edges, within_edges, degree_sum)


cdef void _assemble_parts(const LinearGraph* graph, int64_t* n_edges, int64_t* within_edges,
                          int64_t* degree_sum) noexcept nogil:
    """M = A - D, l_c = (arcs inside c) - D_cc, d_c = out + in - (mutual partners) per class."""
    cdef Py_ssize_t n_classes = graph.n_classes
    cdef const int64_t* mutual = graph.mutual
    cdef Py_ssize_t a, b, c
    cdef int64_t partners, n_arcs = 0, n_mutual = 0
    for a in range(n_classes):
        n_arcs += graph.class_size[a] * (graph.class_size[a] - 1)
        for b in range(n_classes):
            n_mutual += mutual[a * n_classes + b]
    for c in range(n_classes):
        within_edges[c] = graph.arc_within[c] - mutual[c * n_classes + c]
        partners = 0
        for b in range(n_classes):
            partners += mutual[c * n_classes + b] + mutual[b * n_classes + c]
        degree_sum[c] = graph.class_size[c] * (graph.class_size[c] - 1) + graph.in_sum[c] - partners
    n_edges[0] = n_arcs - n_mutual


cdef void _linear_parts_two(LinearGraph* graph, int64_t* n_edges, int64_t* within_edges,
                            int64_t* degree_sum) noexcept nogil:
    """:func:`_linear_parts` for two classes, both present: one prefix count (of class 1;
    class 0 is the rest of a run) and the in-degrees from it, no difference array."""
    cdef Py_ssize_t m = graph.m
    cdef const int32_t* class_at = graph.class_at
    cdef index_t* ones = graph.counts
    cdef const index_t* entries0 = graph.tables[0].entries
    cdef const index_t* entries1 = graph.tables[1].entries
    cdef const index_t* record
    cdef index_t first0, first1
    cdef Py_ssize_t p, a, left_strict, tie_start, tie_end, right_end, low
    cdef index_t n_all, n_one, run_all, run_one
    cdef int64_t to_one = 0, within0 = 0, within1 = 0
    cdef int64_t mutual00 = 0, mutual01 = 0, mutual10 = 0, mutual11 = 0

    ones[0] = 0
    for p in range(m):
        ones[p + 1] = ones[p] + class_at[p]
    # Branch-free on the class (random under a permutation): products with a in {0, 1}.
    for p in range(m):
        a = class_at[p]
        first0 = entries0[p * TABLE_FIELDS + FIRST_SOURCE_FIELD]
        first1 = entries1[p * TABLE_FIELDS + FIRST_SOURCE_FIELD]
        record = (entries1 if a else entries0) + p * TABLE_FIELDS
        left_strict = record[LEFT_STRICT_FIELD]
        tie_start = record[TIE_START_FIELD]
        tie_end = record[TIE_END_FIELD]
        right_end = record[RIGHT_END_FIELD]
        # The out-neighbours of p: how many, and how many of class 1.
        run_all = (p - left_strict) + (tie_end - tie_start) + (right_end - p - 1)
        run_one = (ones[p] - ones[left_strict]) + (ones[tie_end] - ones[tie_start]) + \
            (ones[right_end] - ones[p + 1])
        to_one += run_one
        within1 += a * run_one
        within0 += (1 - a) * (run_all - run_one)
        # Pairs joined both ways with p as right end, left end of class 0: the positions of
        # [first0, p) in the left strict run and in the tie prefix (clamped, so possibly empty) ...
        low = first0 if first0 > left_strict else left_strict
        n_all = p - low
        n_one = ones[p] - ones[low]
        low = first0 if first0 > tie_start else tie_start
        low = low if low < tie_end else tie_end
        n_all += tie_end - low
        n_one += ones[tie_end] - ones[low]
        mutual01 += a * (n_all - n_one)
        mutual00 += (1 - a) * (n_all - n_one)
        # ... and of class 1.
        low = first1 if first1 > left_strict else left_strict
        n_one = ones[p] - ones[low]
        low = first1 if first1 > tie_start else tie_start
        low = low if low < tie_end else tie_end
        n_one += ones[tie_end] - ones[low]
        mutual11 += a * n_one
        mutual10 += (1 - a) * n_one
    graph.arc_within[0] = within0
    graph.arc_within[1] = within1
    graph.in_sum[1] = to_one
    graph.in_sum[0] = (graph.class_size[0] * (graph.class_size[0] - 1) +
                       graph.class_size[1] * (graph.class_size[1] - 1) - to_one)
    graph.mutual[0] = mutual00
    graph.mutual[1] = mutual01
    graph.mutual[2] = mutual10
    graph.mutual[3] = mutual11
    _assemble_parts(graph, n_edges, within_edges, degree_sum)


cdef int _sort_feature(const double* x, Py_ssize_t x_stride, Py_ssize_t m, double* v,
                       index_t* order) noexcept nogil:
    """``order`` = the samples by (value, index), ``v`` = their values (the radix sort of
    :func:`fstools._ext._sorting.sort_by_value`, read from the column in place); OK or
    OUT_OF_MEMORY."""
    if sort_by_value(x, x_stride, m, order, v) != 0:
        return OUT_OF_MEMORY
    return OK


cdef int _modularity_parts(const double* x, Py_ssize_t x_stride, Py_ssize_t m,
                           const int32_t* y, int n_classes, int64_t* n_edges,
                           int64_t* within_edges, int64_t* degree_sum) noexcept nogil:
    """Edge count M, within-class edges l_c and degree sums d_c of one FVG.

    The feature is ``x[0], x[x_stride], ..., x[(m - 1) * x_stride]``; ``y`` its
    class codes in 0..n_classes-1 (checked by the ``def`` wrapper).  The linear
    path (:func:`_linear_parts`), or the sweeps (:func:`_modularity_parts_sweep`)
    where it does not apply; both give the same integers.  Returns OK or OUT_OF_MEMORY.
    """
    cdef double* v = <double*> large_malloc(m * sizeof(double))
    cdef index_t* order = <index_t*> large_malloc(m * sizeof(index_t))
    cdef LinearGraph graph
    cdef Py_ssize_t p
    cdef int status = OK
    _linear_graph_clear(&graph)
    if v == NULL or order == NULL:
        status = OUT_OF_MEMORY
    if status == OK:
        status = _sort_feature(x, x_stride, m, v, order)
    if status == OK:
        status = _linear_graph_init(&graph, v, order, m, y, n_classes, True)
        free(v)
        v = NULL
    if status == OK:
        _linear_parts(&graph, n_edges, within_edges, degree_sum)
    free(v); free(order)
    _linear_graph_free(&graph)
    if status == NOT_LINEAR:
        return _modularity_parts_sweep(x, x_stride, m, y, n_classes, n_edges, within_edges, degree_sum)
    return status


cdef int _permuted_feature(const double* x, Py_ssize_t x_stride, Py_ssize_t m, const int32_t* y,
                           const uint8_t* small_y, int n_classes, const int32_t* permutations,
                           Py_ssize_t n_permutations, double* out, Py_ssize_t out_stride,
                           SignalCheck* check) noexcept nogil:
    """Q of one feature for the classes ``y[permutations[b]]`` of every b into ``out[b * out_stride]``.

    ``small_y``: ``y`` as bytes (NULL for more than 256 classes), for a gather from a
    smaller array.

    The sort and the neighbour tables are computed once; each permutation costs
    one :func:`_linear_parts` pass.  Where the linear path does not apply, each
    permutation runs the sweeps.  Returns OK or OUT_OF_MEMORY (Ctrl-C: stops early).
    """
    cdef double* v = <double*> large_malloc(m * sizeof(double))
    cdef index_t* order = <index_t*> large_malloc(m * sizeof(index_t))
    cdef int32_t* permuted = NULL
    cdef int64_t* within_edges = <int64_t*> malloc(n_classes * sizeof(int64_t))
    cdef int64_t* degree_sum = <int64_t*> malloc(n_classes * sizeof(int64_t))
    cdef int64_t n_edges = 0
    cdef const int32_t* permutation
    cdef LinearGraph graph
    cdef Py_ssize_t b, p
    cdef int status = OK
    _linear_graph_clear(&graph)
    if v == NULL or order == NULL or within_edges == NULL or degree_sum == NULL:
        status = OUT_OF_MEMORY
    if status == OK:
        status = _sort_feature(x, x_stride, m, v, order)
    if status == OK:
        status = _linear_graph_init(&graph, v, order, m, y, n_classes, False)
        free(v)
        v = NULL
    if status == OK:
        for b in range(n_permutations):
            if stop_requested(check):
                break
            permutation = permutations + b * m
            if small_y != NULL:
                for p in range(m):
                    graph.class_at[p] = small_y[permutation[order[p]]]
            else:
                for p in range(m):
                    graph.class_at[p] = y[permutation[order[p]]]
            _linear_parts(&graph, &n_edges, within_edges, degree_sum)
            out[b * out_stride] = _modularity_from_parts(n_edges, within_edges, degree_sum, n_classes)
    elif status == NOT_LINEAR:
        status = OK
        permuted = <int32_t*> large_malloc(m * sizeof(int32_t))
        if permuted == NULL:
            status = OUT_OF_MEMORY
        for b in range(n_permutations if status == OK else 0):
            if stop_requested(check):
                break
            permutation = permutations + b * m
            for p in range(m):
                permuted[p] = y[permutation[p]]
            status = _modularity_parts_sweep(x, x_stride, m, permuted, n_classes, &n_edges,
                                             within_edges, degree_sum)
            if status != OK:
                break
            out[b * out_stride] = _modularity_from_parts(n_edges, within_edges, degree_sum, n_classes)
    free(v); free(order); free(permuted); free(within_edges); free(degree_sum)
    _linear_graph_free(&graph)
    return status


cdef double _modularity_from_parts(int64_t n_edges, const int64_t* within_edges,
                                   const int64_t* degree_sum, int n_classes) noexcept nogil:
    """Newman-Girvan Q = sum_c [l_c / M - (d_c / 2M)^2]; NaN when the graph has no edge."""
    cdef double q = 0.0
    cdef double share
    cdef int c
    if n_edges == 0:
        return NAN
    for c in range(n_classes):
        share = degree_sum[c] / (2.0 * n_edges)
        q += within_edges[c] / <double> n_edges - share * share
    return q


cdef int _feature_modularity(const double* x, Py_ssize_t x_stride, Py_ssize_t m,
                             const int32_t* y, int n_classes, double* q) noexcept nogil:
    """Q of one feature (``x[i * x_stride]``, i < m) into ``q[0]``; returns an error flag."""
    cdef int64_t n_edges = 0
    cdef int64_t* within_edges = <int64_t*> malloc(n_classes * sizeof(int64_t))
    cdef int64_t* degree_sum = <int64_t*> malloc(n_classes * sizeof(int64_t))
    cdef int status
    if within_edges == NULL or degree_sum == NULL:
        free(within_edges); free(degree_sum)
        return OUT_OF_MEMORY
    status = _modularity_parts(x, x_stride, m, y, n_classes, &n_edges, within_edges, degree_sum)
    if status == OK:
        q[0] = _modularity_from_parts(n_edges, within_edges, degree_sum, n_classes)
    free(within_edges); free(degree_sum)
    return status


# --------------------------------------------------------------------------
# Python entry points.
# --------------------------------------------------------------------------

cdef _raise_for_status(int status):
    if status == OUT_OF_MEMORY:
        raise MemoryError("fvg modularity: could not allocate the work arrays")


cdef _check_inputs(Py_ssize_t m, Py_ssize_t n_y, int n_classes, str x_name="x"):
    """The sizes (the class codes are checked by :func:`check_class_codes`, once per call)."""
    if m > MAX_SAMPLES:
        raise ValueError(f"{x_name}: {m} samples; the FVG kernel handles at most "
                         f"{MAX_SAMPLES} (2**31 - 1, 32-bit indices)")
    check_length("y", n_y, m, "class codes (one per sample)")
    check_at_least_one("n_classes", n_classes)
    # Work arrays are sized by n_classes: more classes than samples (some
    # necessarily empty) is refused before anything is allocated.
    if n_classes > max(m, 1):
        raise ValueError(f"n_classes: must be at most the number of samples ({m}, or 1 without "
                         f"samples), got {n_classes}")


def modularity_parts(const double[::1] x, const int32_t[::1] y, int n_classes):
    """Edge count M, within-class edges l_c and degree sums d_c of the FVG of ``x``.

    Returns
    -------
    n_edges : int
    within_edges : ndarray of int64, shape (n_classes,)
    degree_sum : ndarray of int64, shape (n_classes,)
    """
    _check_inputs(x.shape[0], y.shape[0], n_classes)
    cdef int64_t n_edges = 0
    cdef cnp.ndarray[int64_t, ndim=1] within = np.zeros(n_classes, dtype=np.int64)
    cdef cnp.ndarray[int64_t, ndim=1] degrees = np.zeros(n_classes, dtype=np.int64)
    cdef int64_t* within_ptr = <int64_t*> within.data
    cdef int64_t* degree_ptr = <int64_t*> degrees.data
    cdef int status
    cdef Py_ssize_t m = x.shape[0]
    if m == 0:
        return 0, within, degrees
    check_class_codes("y", y, n_classes)
    with nogil:
        status = _modularity_parts(&x[0], 1, m, &y[0], n_classes, &n_edges, within_ptr, degree_ptr)
    _raise_for_status(status)
    return int(n_edges), within, degrees


def feature_modularity(const double[::1] x, const int32_t[::1] y, int n_classes):
    """Modularity Q of the class partition of the FVG of one feature (NaN without edges)."""
    _check_inputs(x.shape[0], y.shape[0], n_classes)
    cdef double q = float("nan")
    cdef int status
    cdef Py_ssize_t m = x.shape[0]
    if m == 0:
        return q
    check_class_codes("y", y, n_classes)
    with nogil:
        status = _feature_modularity(&x[0], 1, m, &y[0], n_classes, &q)
    _raise_for_status(status)
    return q


def modularity_scores(const double[:, :] X, const int32_t[::1] y, int n_classes,
                      double[::1] out, int n_threads=1):
    """Q of every column of ``X``, in parallel over features.

    Parameters
    ----------
    X : ndarray of float64, shape (m, n_features), any layout
        One sample per row, one feature per column: C-contiguous,
        Fortran-ordered or a strided view (strides must be whole multiples of
        8 bytes).  Read in place, never copied whole: each thread copies the
        one column it is scoring into its own buffer.
    y : ndarray of int32, shape (m,)
        Class codes 0..n_classes-1.
    n_classes : int
    out : ndarray of float64, shape (n_features,)
        Receives Q per feature.  Each feature is computed by one thread with
        no shared reductions, so the result does not depend on ``n_threads``.
    n_threads : int
        OpenMP threads (ignored when built without OpenMP).

    The loop answers Ctrl-C between features: KeyboardInterrupt, ``out``
    then partly filled.
    """
    cdef Py_ssize_t m = X.shape[0]
    cdef Py_ssize_t n_features = X.shape[1]
    cdef Py_ssize_t row_stride, f
    _check_inputs(m, y.shape[0], n_classes, "X")
    check_double_strides("X", X.strides[0], X.strides[1])
    check_length("out", out.shape[0], n_features, "scores (one per feature)")
    check_threads(n_threads)
    if m == 0 or n_features == 0:
        out[:] = float("nan")
        return
    check_class_codes("y", y, n_classes)
    row_stride = X.strides[0] // <Py_ssize_t> sizeof(double)
    cdef int32_t[::1] status = np.zeros(n_features, dtype=np.int32)
    cdef SignalCheck check
    signal_check_init(&check, 1)
    for f in prange(n_features, nogil=True, num_threads=n_threads, schedule="dynamic"):
        if not stop_requested(&check):
            status[f] = _feature_modularity(&X[0, f], row_stride, m, &y[0], n_classes, &out[f])
    raise_if_stopped(&check)
    _raise_for_status(max_status(status))


def permuted_modularity(const double[:, :] X, const int32_t[::1] y, int n_classes,
                        const int32_t[:, ::1] permutations, int n_threads=1):
    """Q of every column of ``X`` for every permutation of the classes, in parallel over features.

    Parameters
    ----------
    X : ndarray of float64, shape (m, n_features), any layout
        Read in place, as by :func:`modularity_scores`.
    y : ndarray of int32, shape (m,)
        Class codes 0..n_classes-1.
    n_classes : int
    permutations : ndarray of int32, shape (n_permutations, m), C-contiguous
        Each row a permutation of 0..m-1: the class of row ``i`` under permutation
        ``b`` is ``y[permutations[b, i]]``.
    n_threads : int
        OpenMP threads over the features; the result does not depend on it.

    Returns
    -------
    ndarray of float64, shape (n_permutations, n_features)
        ``out[b, f]`` equals ``feature_modularity(X[:, f], y[permutations[b]], n_classes)``
        bit for bit.  A permutation keeps the class sizes, so each feature is sorted
        and its neighbour runs for every class size are found once; each permutation
        then costs O(m n_classes) (the sweeps, per permutation, where the linear path
        does not apply: distances equal only after rounding, or very many classes).

    The loop answers Ctrl-C between permutations: KeyboardInterrupt.
    """
    cdef Py_ssize_t m = X.shape[0]
    cdef Py_ssize_t n_features = X.shape[1]
    cdef Py_ssize_t n_permutations = permutations.shape[0]
    cdef Py_ssize_t row_stride, f, b, i, j
    _check_inputs(m, y.shape[0], n_classes, "X")
    check_double_strides("X", X.strides[0], X.strides[1])
    check_threads(n_threads)
    if n_permutations:
        check_length("permutations", permutations.shape[1], m, "entries per row (one per sample)")
    out_array = np.full((n_permutations, n_features), np.nan)
    if m == 0:
        return out_array
    check_class_codes("y", y, n_classes)
    if n_features == 0 or n_permutations == 0:
        return out_array
    cdef int32_t[::1] seen = np.zeros(m, dtype=np.int32)
    for b in range(n_permutations):
        for i in range(m):
            j = permutations[b, i]
            if j < 0 or j >= m or seen[j] == b + 1:
                raise ValueError(f"permutations: row {b} is not a permutation of 0..{m - 1} "
                                 f"(entry {j} at column {i})")
            seen[j] = <int32_t> (b + 1)
    row_stride = X.strides[0] // <Py_ssize_t> sizeof(double)
    cdef double[:, ::1] out = out_array
    cdef int32_t[::1] status = np.zeros(n_features, dtype=np.int32)
    cdef uint8_t[::1] small_y_array = np.asarray(y, dtype=np.uint8) if n_classes <= 256 else None
    cdef const uint8_t* small_y = &small_y_array[0] if n_classes <= 256 else NULL
    cdef SignalCheck check
    signal_check_init(&check, 1)
    for f in prange(n_features, nogil=True, num_threads=n_threads, schedule="dynamic"):
        if not stop_requested(&check):
            status[f] = _permuted_feature(&X[0, f], row_stride, m, &y[0], small_y, n_classes,
                                          &permutations[0, 0], n_permutations, &out[0, f],
                                          n_features, &check)
    raise_if_stopped(&check)
    _raise_for_status(max_status(status))
    return out_array


def neighbour_runs(const double[::1] x, const int32_t[::1] y, int n_classes):
    """The sorted order and the neighbour runs of every sample (for tests and drawing).

    Returns
    -------
    order : ndarray of intp, shape (m,)
        Sample indices sorted by (value, index).
    runs : ndarray of intp, shape (m, n_runs, 2)
        For sorted position p: [start, end) runs of sorted positions; the
        out-neighbours of sample ``order[p]`` are ``order[start:end]`` over the
        runs.  The first four are the left tie prefix, left strict run, right
        strict run and right tie prefix; ``n_runs`` is 4 unless some distances
        are equal only after rounding: the tied samples taken by such a
        position are then not prefixes, its two tie runs are empty and the
        taken samples follow as further runs.  Unused runs are empty (p, p).
    """
    _check_inputs(x.shape[0], y.shape[0], n_classes)
    cdef Py_ssize_t m = x.shape[0]
    cdef Py_ssize_t p, c, x_run, slot
    cdef int status = OK
    cdef ExtraRuns extra
    cdef SearchHint hint
    order_array = np.empty(m, dtype=np.int32)
    runs_array = np.zeros((m, INTERVALS_PER_NODE, 2), dtype=np.int32)
    if m == 0:
        return order_array.astype(np.intp), runs_array.astype(np.intp)
    # The range is checked before np.bincount sees the codes.
    check_class_codes("y", y, n_classes)
    counts = np.bincount(np.asarray(y), minlength=n_classes)
    cdef index_t[::1] order = order_array
    cdef index_t[:, :, ::1] runs = runs_array
    cdef double[::1] v = np.empty(m, dtype=np.float64)
    cdef cnp.intp_t[::1] class_size = counts.astype(np.intp)
    _raise_for_status(_sort_feature(&x[0], 1, m, &v[0], &order[0]))
    _extra_runs_init(&extra)
    _search_hint_init(&hint)
    try:
        for p in range(m):
            c = y[order[p]]
            status = _neighbour_runs(&v[0], &order[0], m, p, class_size[c] - 1, &runs[p, 0, 0], &extra,
                                     &hint)
            if status != OK:
                break
        _raise_for_status(status)
        result = runs_array.astype(np.intp)
        if extra.count:
            per_node = np.bincount(np.asarray(<index_t[:extra.count]> extra.node), minlength=m)
            n_runs = INTERVALS_PER_NODE + int(per_node.max())
            result = np.concatenate([result, np.repeat(np.arange(m, dtype=np.intp)[:, None, None],
                                                       n_runs - INTERVALS_PER_NODE, axis=1)
                                     .repeat(2, axis=2)], axis=1)
            slot = INTERVALS_PER_NODE
            for x_run in range(extra.count):
                if x_run > 0 and extra.node[x_run] != extra.node[x_run - 1]:
                    slot = INTERVALS_PER_NODE
                result[extra.node[x_run], slot, 0] = extra.start[x_run]
                result[extra.node[x_run], slot, 1] = extra.end[x_run]
                slot += 1
    finally:
        _extra_runs_free(&extra)
    return order_array.astype(np.intp), result

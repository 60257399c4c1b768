# cython: language_level=3
"""Fleuret's lazy evaluation of CMIM, shared by the byte-code and the bit-plane kernels.

:func:`lazy_cmim_loop` is the loop of ``fstools._ext._entropy.lazy_cmim`` (see its docstring
for the method); the conditional information I(X_j;C|X_s) of a candidate and a selected
feature comes from a callback, so that the byte codes (``_entropy``) and the bit-planes
(``_bitcount``) run the very same loop on their own counting.

Threads.  Each candidate keeps its partial score (the running minimum over a prefix of the
selections) and the length of that prefix; its updates are independent of every other
candidate's.  A step therefore brings candidates up to date in *batches* of work items (a
candidate and one selected feature): the items the one-thread loop would compute next, in its
order (the candidate at the front of the step first, then the next ones off the heap), computed
in parallel, then merged in that order by one thread.  A batch may compute a few items the
one-thread loop would have skipped (a candidate that has dropped out of the tie window by the
time its items are merged): they only tighten upper bounds, so the argument of the loop (a
candidate whose partial score is below the tie window of the best complete score cannot be
picked) still holds, and every pick and score is the eager update's, whatever the number of
threads.  Batches are used when an item is worth a thread's start (``parallel_items``); with
one item per batch the loop is the one-thread loop.  The passes over every candidate (below)
are threaded when there are enough candidates (``parallel_passes``): a short parallel region
costs more than it saves, the more so on a loaded machine where a thread waits for a core.

The heap.  Only candidates whose I(X_j;C) is near the top ever leave it (those within the tie
window of a step's best score), so the heap starts with about ``heap_least`` of the most
relevant candidates (1,024 in the kernels): a histogram of I(X_j;C) per block of candidates
gives the cut, and three passes over the candidates (their blocks in parallel) find the first
pick, count the histogram and gather the candidates above the cut.  The others wait, never
updated, in a reserve; the next bins of the histogram join the heap when the reserve's largest
I(X_j;C) could come before the heap's top and be within the tie window.  A candidate gets a
*slot* (its partial score and prefix length) when it joins the heap, so the loop touches memory
in proportion to the candidates it takes, not to all of them.
"""
from cython.parallel cimport prange
from libc.math cimport INFINITY, fabs, isfinite
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free, malloc

from fstools._ext._common cimport NON_FINITE, OK, OUT_OF_MEMORY, SignalCheck, block_length, stop_requested

# I(X_candidate; C | X_selected) into value[0] (``selected`` is the pick of step ``step``);
# returns OK or a status code, which stops the loop.  Called from several threads at once
# (different candidates, steps already prepared): it must only read shared data.
ctypedef int (*conditional_information_t)(void* data, Py_ssize_t candidate, Py_ssize_t step,
                                          Py_ssize_t selected, double* value) noexcept nogil

# Called by one thread when ``selected`` becomes the pick of step ``step``, before any
# ``conditional_information_t`` call with that step (NULL: nothing to prepare).
ctypedef int (*prepare_step_t)(void* data, Py_ssize_t step, Py_ssize_t selected) noexcept nogil

cdef enum:
    LAZY_BINS = 1024          # bins of the histogram of I(X_j;C) that cuts the heap
    LAZY_BLOCK = 8192         # candidates per block of the passes over every candidate (at least)
    LAZY_MAX_BLOCKS = 64      # blocks at most (each has a histogram)
    LAZY_ITEMS_PER_THREAD = 2 # work items of a parallel batch per thread
    LAZY_SIGNAL_EVERY = 16    # calls of stop_requested between two readings of the clock


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


cdef struct LazyState:
    # inputs
    void* data
    conditional_information_t conditional
    const double* relevance     # I(X_j;C) of every candidate: the key of the histogram
    Py_ssize_t n
    double tolerance
    int n_threads
    int pass_threads            # threads of the passes over every candidate (at most one per block)
    Py_ssize_t heap_least       # candidates the heap starts with (at least; a refill adds as many)
    Py_ssize_t capacity         # work items per batch (1: the one-thread loop)
    Py_ssize_t* ranking
    double* scores
    SignalCheck* check
    # per slot (a candidate that has joined the heap; slots 0 .. used-1)
    Py_ssize_t used
    int32_t* candidate          # its column
    double* partial             # its running minimum (starts as I(X_j;C)): the key of the heap
    int32_t* last               # how many selections it has been updated against
    int32_t* heap               # heap[0:size]: slots
    Py_ssize_t size
    int32_t* popped             # the slots popped in the current step
    # one batch of work items
    int32_t* item_slot
    int32_t* item_step
    int32_t* item_status
    double* item_value
    # the reserve: the candidates whose bin is below ``cut`` (but the first pick), untouched
    double low                  # a value's bin: floor((value - low) * scale), in 0 .. LAZY_BINS-1
    double scale
    Py_ssize_t cut
    Py_ssize_t first            # the first pick (in no slot)
    Py_ssize_t reserve_count
    double reserve_max
    # the blocks of candidates of the passes over all of them
    Py_ssize_t n_blocks
    Py_ssize_t block_size
    int32_t* block_bins         # n_blocks rows of LAZY_BINS counts
    double* block_high
    double* block_low
    Py_ssize_t* block_first
    Py_ssize_t* block_offset
    Py_ssize_t* block_below


cdef inline Py_ssize_t relevance_bin(const LazyState* S, double value) noexcept nogil:
    """The histogram bin of an I(X_j;C) value (the same arithmetic at every pass)."""
    cdef double position = (value - S.low) * S.scale
    if not position >= 0.0:
        return 0
    if not position < <double> (LAZY_BINS - 1):
        return LAZY_BINS - 1
    return <Py_ssize_t> position


cdef inline int first_pick(LazyState* S) noexcept nogil:
    """Step 1: the first maximum of I(X_j;C) (the lowest index within the window) into
    ranking[0], and each block's histogram.  Two passes, blocks in parallel, reduced in
    block order.  NON_FINITE if a value is NaN or infinite."""
    cdef Py_ssize_t b, j, start, stop, first
    cdef double best, lowest, window, high, low, value
    cdef bint finite = True
    cdef int32_t* row
    for b in prange(S.n_blocks, num_threads=S.pass_threads, schedule='dynamic'):
        start = b * S.block_size
        stop = start + block_length(start, S.block_size, S.n)
        high = S.relevance[start]
        low = S.relevance[start]
        for j in range(start, stop):
            value = S.relevance[j]
            if not isfinite(value):
                high = value
                break
            if value > high:
                high = value
            if value < low:
                low = value
        S.block_high[b] = high
        S.block_low[b] = low
    for b in range(S.n_blocks):
        if not isfinite(S.block_high[b]):
            return NON_FINITE
    best = S.block_high[0]
    lowest = S.block_low[0]
    for b in range(1, S.n_blocks):
        if S.block_high[b] > best:
            best = S.block_high[b]
        if S.block_low[b] < lowest:
            lowest = S.block_low[b]
    S.low = lowest
    S.scale = 0.0
    if best > lowest and isfinite((best - lowest) * LAZY_BINS):
        S.scale = <double> LAZY_BINS / (best - lowest)
    window = tie_window(best, S.tolerance)
    for b in prange(S.n_blocks, num_threads=S.pass_threads, schedule='dynamic'):
        start = b * S.block_size
        stop = start + block_length(start, S.block_size, S.n)
        row = S.block_bins + b * LAZY_BINS
        for j in range(LAZY_BINS):
            row[j] = 0
        first = -1
        for j in range(start, stop):
            value = S.relevance[j]
            if first < 0 and value >= window:
                first = j
            row[relevance_bin(S, value)] += 1
        S.block_first[b] = first
    S.first = -1
    for b in range(S.n_blocks):
        if S.block_first[b] >= 0:
            S.first = S.block_first[b]
            break
    S.ranking[0] = S.first
    S.scores[0] = S.relevance[S.first]
    return OK


cdef inline void take_from_reserve(LazyState* S, Py_ssize_t least) noexcept nogil:
    """Give slots to at least ``least`` candidates of the reserve (or all) and add them to the
    heap: the highest bins below the cut, their candidates in index order (one pass, blocks
    in parallel); the reserve's largest I(X_j;C) after."""
    cdef Py_ssize_t b, i, j, start, stop, slot, end, bin_of, count, below, first_bin
    cdef Py_ssize_t high = S.cut
    cdef Py_ssize_t low = S.cut
    cdef int64_t taken = 0
    cdef double largest, value
    cdef int32_t* row
    while low > 0 and taken < least:
        low -= 1
        for b in range(S.n_blocks):
            taken += S.block_bins[b * LAZY_BINS + low]
    # each block's first slot and its count left in the reserve, from its histogram
    first_bin = relevance_bin(S, S.relevance[S.first])
    end = S.used
    S.reserve_count = 0
    for b in range(S.n_blocks):
        row = S.block_bins + b * LAZY_BINS
        count = 0
        below = 0
        for i in range(low, high):
            count += row[i]
        for i in range(low):
            below += row[i]
        if S.first // S.block_size == b:
            if low <= first_bin < high:
                count -= 1
            elif first_bin < low:
                below -= 1
        S.block_offset[b] = end
        S.block_below[b] = below
        end += count
        S.reserve_count += below
    for b in prange(S.n_blocks, num_threads=S.pass_threads, schedule='dynamic'):
        start = b * S.block_size
        stop = start + block_length(start, S.block_size, S.n)
        slot = S.block_offset[b]
        largest = -INFINITY
        for j in range(start, stop):
            if j == S.first:
                continue
            value = S.relevance[j]
            bin_of = relevance_bin(S, value)
            if bin_of >= high:
                continue
            if bin_of >= low:
                S.candidate[slot] = <int32_t> j
                S.partial[slot] = value
                S.last[slot] = 0
                slot = slot + 1
            elif value > largest:
                largest = value
        S.block_high[b] = largest
    S.reserve_max = -INFINITY
    for b in range(S.n_blocks):
        if S.block_below[b] > 0 and S.block_high[b] > S.reserve_max:
            S.reserve_max = S.block_high[b]
    # the new slots join the heap (Floyd's construction over the whole heap)
    for i in range(S.used, end):
        S.heap[S.size] = <int32_t> i
        S.size += 1
    S.used = end
    S.cut = low
    for i in range(S.size // 2 - 1, -1, -1):
        heap_sift_down(S.heap, S.size, i, S.partial)


cdef inline void refill_if_needed(LazyState* S, bint have_best, double best) noexcept nogil:
    """Before the heap's top is read: move candidates of the reserve to the heap while the
    reserve's largest I(X_j;C) could come before the top (and could be in the tie window)."""
    cdef Py_ssize_t least
    while (S.reserve_count > 0 and (S.size == 0 or S.partial[S.heap[0]] < S.reserve_max)
           and (not have_best or S.reserve_max >= tie_window(best, S.tolerance))):
        least = S.used if S.used > S.heap_least else S.heap_least
        take_from_reserve(S, least)


cdef inline void compute_items(LazyState* S, Py_ssize_t n_items) noexcept nogil:
    """The conditional information of every item of a batch (in parallel when more than one)."""
    cdef Py_ssize_t q
    if n_items == 1 or S.n_threads == 1:
        for q in range(n_items):
            S.item_status[q] = S.conditional(S.data, S.candidate[S.item_slot[q]], S.item_step[q],
                                             S.ranking[S.item_step[q]], &S.item_value[q])
        return
    for q in prange(n_items, num_threads=S.n_threads, schedule='dynamic'):
        S.item_status[q] = S.conditional(S.data, S.candidate[S.item_slot[q]], S.item_step[q],
                                         S.ranking[S.item_step[q]], &S.item_value[q])


cdef inline bint needs_update(const LazyState* S, int32_t slot, Py_ssize_t t, bint have_best,
                              double best) noexcept nogil:
    """Whether a slot's candidate is behind step ``t`` and can still be within the tie window."""
    return S.last[slot] < t and (not have_best or S.partial[slot] >= tie_window(best, S.tolerance))


cdef inline int lazy_step(LazyState* S, Py_ssize_t t) noexcept nogil:
    """Step ``t`` (0-based, t >= 1): the pick into ranking[t] and its score into scores[t]."""
    cdef Py_ssize_t n_popped = 0, front = 0, i, q, n_items, updates, s
    cdef int32_t slot, chosen
    cdef bint have_best = False
    cdef double best = 0.0
    while True:
        if stop_requested(S.check):
            return OK
        # the next batch: the items the one-thread loop computes next, in its order
        n_items = 0
        i = front
        while n_items < S.capacity:
            if i == n_popped:
                refill_if_needed(S, have_best, best)
                if S.size == 0:
                    break
                slot = S.heap[0]
                if have_best and S.partial[slot] < tie_window(best, S.tolerance):
                    break  # every other candidate's score is at most its partial score: out of the window
                S.size -= 1
                S.heap[0] = S.heap[S.size]
                heap_sift_down(S.heap, S.size, 0, S.partial)
                S.popped[n_popped] = slot
                n_popped += 1
            slot = S.popped[i]
            if needs_update(S, slot, t, have_best, best):
                updates = t - S.last[slot]
                if updates > S.capacity - n_items:
                    updates = S.capacity - n_items
                for s in range(S.last[slot], S.last[slot] + updates):
                    S.item_slot[n_items] = slot
                    S.item_step[n_items] = <int32_t> s
                    n_items += 1
            i += 1
        if n_items == 0:
            break
        compute_items(S, n_items)
        # merged in order: each candidate's running minimum over its selections in order
        # (np.minimum of the eager update), then the best score of the candidates now complete
        for q in range(n_items):
            if S.item_status[q] != OK:
                return S.item_status[q]
            slot = S.item_slot[q]
            if S.item_value[q] < S.partial[slot]:
                S.partial[slot] = S.item_value[q]
            S.last[slot] += 1
        for q in range(n_items):
            slot = S.item_slot[q]
            if q + 1 < n_items and S.item_slot[q + 1] == slot:
                continue
            if S.last[slot] == t and (not have_best or S.partial[slot] > best):
                best = S.partial[slot]
                have_best = True
        while front < n_popped and not needs_update(S, S.popped[front], t, have_best, best):
            front += 1
    # the lowest column among the complete candidates within the window (all of them were popped)
    chosen = -1
    for i in range(n_popped):
        slot = S.popped[i]
        if (S.last[slot] == t and S.partial[slot] >= tie_window(best, S.tolerance)
                and (chosen < 0 or S.candidate[slot] < S.candidate[chosen])):
            chosen = slot
    S.ranking[t] = S.candidate[chosen]
    S.scores[t] = S.partial[chosen]
    for i in range(n_popped):
        if S.popped[i] != chosen:
            heap_push(S.heap, S.size, S.popped[i], S.partial)
            S.size += 1
    return OK


cdef inline int lazy_cmim_loop(void* data, conditional_information_t conditional, prepare_step_t prepare,
                               Py_ssize_t n, const double* relevance, Py_ssize_t k, double tolerance,
                               Py_ssize_t* ranking, double* scores, int n_threads, bint parallel_passes,
                               bint parallel_items, Py_ssize_t heap_least, SignalCheck* check) noexcept nogil:
    """The lazy CMIM loop: ``k`` picks (1 <= k <= n) into ``ranking`` and their scores into ``scores``.

    ``relevance``: I(X_j;C) of the ``n`` candidates; ``n_threads``: threads of the passes over
    every candidate when ``parallel_passes`` (else one), and of the batches of work items when
    ``parallel_items`` (else one item at a time); ``heap_least``: candidates the heap starts with (at least 1).  Returns OK (also
    when stopped: see ``check``), NON_FINITE (a value of ``relevance`` is NaN or infinite:
    nothing done), OUT_OF_MEMORY, or the first status other
    than OK of ``conditional`` or ``prepare``.
    """
    cdef LazyState S
    cdef Py_ssize_t t
    cdef int status = OK
    if n_threads < 1:
        n_threads = 1
    S.data, S.conditional = data, conditional
    S.relevance, S.n, S.tolerance, S.n_threads = relevance, n, tolerance, n_threads
    S.heap_least = heap_least if heap_least > 1 else 1
    S.capacity = n_threads * LAZY_ITEMS_PER_THREAD if parallel_items and n_threads > 1 else 1
    S.ranking, S.scores, S.check = ranking, scores, check
    S.used, S.size = 0, 0
    S.n_blocks = (n + LAZY_BLOCK - 1) // LAZY_BLOCK
    if S.n_blocks > LAZY_MAX_BLOCKS:
        S.n_blocks = LAZY_MAX_BLOCKS
    S.block_size = (n + S.n_blocks - 1) // S.n_blocks
    S.n_blocks = (n + S.block_size - 1) // S.block_size
    S.pass_threads = n_threads if n_threads < S.n_blocks else <int> S.n_blocks
    if not parallel_passes:
        S.pass_threads = 1
    # the arrays of n entries are written only as far as slots are used (pages never touched
    # are never mapped)
    S.candidate = <int32_t*> malloc(n * sizeof(int32_t))
    S.partial = <double*> malloc(n * sizeof(double))
    S.last = <int32_t*> malloc(n * sizeof(int32_t))
    S.heap = <int32_t*> malloc(n * sizeof(int32_t))
    S.popped = <int32_t*> malloc(n * sizeof(int32_t))
    S.item_slot = <int32_t*> malloc(S.capacity * sizeof(int32_t))
    S.item_step = <int32_t*> malloc(S.capacity * sizeof(int32_t))
    S.item_status = <int32_t*> malloc(S.capacity * sizeof(int32_t))
    S.item_value = <double*> malloc(S.capacity * sizeof(double))
    S.block_bins = <int32_t*> malloc(S.n_blocks * LAZY_BINS * sizeof(int32_t))
    S.block_high = <double*> malloc(S.n_blocks * sizeof(double))
    S.block_low = <double*> malloc(S.n_blocks * sizeof(double))
    S.block_first = <Py_ssize_t*> malloc(S.n_blocks * sizeof(Py_ssize_t))
    S.block_offset = <Py_ssize_t*> malloc(S.n_blocks * sizeof(Py_ssize_t))
    S.block_below = <Py_ssize_t*> malloc(S.n_blocks * sizeof(Py_ssize_t))
    if (S.candidate == NULL or S.partial == NULL or S.last == NULL or S.heap == NULL or S.popped == NULL
            or S.item_slot == NULL or S.item_step == NULL or S.item_status == NULL or S.item_value == NULL
            or S.block_bins == NULL or S.block_high == NULL or S.block_low == NULL or S.block_first == NULL
            or S.block_offset == NULL or S.block_below == NULL):
        status = OUT_OF_MEMORY
    else:
        status = first_pick(&S)
        if status == OK and k > 1:
            S.cut = LAZY_BINS
            take_from_reserve(&S, S.heap_least)
        for t in range(1, k if status == OK else 1):
            if stop_requested(check):
                break
            if prepare != NULL:
                status = prepare(data, t - 1, ranking[t - 1])
                if status != OK:
                    break
            status = lazy_step(&S, t)
            if status != OK:
                break
    free(S.candidate)
    free(S.partial)
    free(S.last)
    free(S.heap)
    free(S.popped)
    free(S.item_slot)
    free(S.item_step)
    free(S.item_status)
    free(S.item_value)
    free(S.block_bins)
    free(S.block_high)
    free(S.block_low)
    free(S.block_first)
    free(S.block_offset)
    free(S.block_below)
    return status

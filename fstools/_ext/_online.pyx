# cython: language_level=3
"""Online passive-aggressive updates with truncated gradient (PA, PA-I, PA-II, MBPA, ONPA, CS).

Han, Tan, Zhu, Guo, Chen and Wu (2016), "Online feature selection of class
imbalance via PA algorithm", J. Comput. Sci. Technol. 31(4): the per-example
updates of Algorithms 1 (MBPA) and 2 (ONPA), the PA family of Crammer et al.
(2006) they extend, the cost-sensitive online baseline (Wang, Zhao and Hoi
2014) and the truncated gradient of Langford, Li and Zhang (2009).

Labels are +1 (majority, "positive") and -1 (minority, "negative").  One call
runs a whole pass over the rows given by ``order`` without the GIL, on dense
float64 rows or CSR rows (data / indices / indptr; indices sorted within each
row).  The learner's state lives in arrays owned by the caller and carries
over from call to call: the weights ``w``, the counters (rounds t, the class
counters p and n of the paper, which start at 1, the negatives offered to the
memory and the memory slots filled), the random generator and ONPA's memory of
earlier negatives.

One round t (one real example x, y), in this order:

1. prediction margins before any update: ``f = w . x`` (the learner) and, for
   every budget M in ``budgets``, ``f_M = sum_{j in S_M} w_j x_j`` where S_M
   holds the M largest |w_j| (ties to the lower index; all nonzero weights
   when there are at most M of them) -- the M-feature classifier of the moment.
   S_M is kept lazily: bounds of the sizes in S_M and outside it, per block of
   about sqrt(d) indices, cost one comparison per changed weight, and S_M is
   looked at (O(sqrt(d)) per exchanged weight) only when the bounds meet;
2. t += 1; p += 1 if y = +1 else n += 1 (Algorithms 1-2, lines 5-9);
3. the loss, with the margin m = y f:

   * HINGE (Eq. 1):            l = max(0, 1 - m)
   * MARGIN_BASED (MBPA, Eq. 7): y = +1: l = -m if m <= 0, else 0;
                                 y = -1: l = max(0, rho - m) if m <= 1, else 0; rho = p / n
     (the max(0, .) is ours: with rho < 1 the paper's rho - m is negative for
     rho < m <= 1, which would step *away* from the label; there is no step);
   * COST_SENSITIVE (type-I loss of Wang, Zhao and Hoi 2014, mirrored so that
     the minority is -1): l = max(0, r_y - m), r_{-1} = rho, r_{+1} = 1, with
     rho = ``cost_ratio`` if it is > 0, else p / n;

4. if l > 0 and ||x||^2 > 0: w <- w + tau y x with

   * PA (Eq. 3):   tau = l / ||x||^2
   * PA1 (Eq. 6):  tau = min(C, l / ||x||^2)
   * PA2:          tau = l / (||x||^2 + 1 / (2 C))
   * OGD (CS):     tau = C / sqrt(t)   (online gradient descent of the type-I loss);

5. ONPA (``synthesis`` != NONE) and y = -1: N = floor(beta p / n) times, if the
   memory holds an earlier negative: draw a slot uniformly, draw alpha uniform
   in (0, 1), build x_q = x + alpha (x - x_p) (EXTRAPOLATE, Algorithm 2 line
   15) or x + alpha (x_p - x) (INTERPOLATE, the paper's prose), and apply the
   hinge-loss update of step 4 to (x_q, -1).  Then x is offered to the memory:
   reservoir sampling (Vitter's algorithm R) over the negatives, so the memory
   is a uniform sample of all earlier negatives of at most ``capacity`` rows
   (a slot is filled while there is room; afterwards the k-th negative replaces
   slot j = uniform{0..k-1} when j < capacity).  The memory stores the nonzero
   entries of a row (sorted indices) in fixed-width slots;
6. if t % K == 0, truncation (Algorithm 1 line 12, Algorithm 2 line 18):

   * GRADIENT: w_j <- T(w_j, a, theta) with a = gravity = eta K g (Eq. 9-10):
     T(v, a, theta) = max(0, v - a) if 0 < v <= theta; min(0, v + a) if
     -theta <= v < 0; v otherwise (Langford et al.'s closed intervals; the
     paper's Eq. 10 writes them open, which differs only at |v| = theta);
   * TOPK: keep the ``topk`` largest |w_j| (ties to the lower index), zero the
     rest (the truncation of OFS, Wang et al. 2014, when K = 1);
   * NONE.

Random numbers come from SplitMix64 (Steele, Lea and Flood 2014) whose 64-bit
state is one of the caller's arrays: an integer below m by rejection
(``z >= (2^64 - m) mod m``, then ``z mod m``), a real in (0, 1) as
``((z >> 12) + 0.5) / 2^52``.  Draws per negative ONPA round: (slot, alpha)
per synthetic example, then one draw for the reservoir when it is full.

Every sum runs over the row's entries in increasing feature index, so a dense
row and the same row in CSR give the same floating-point results (zeros add
nothing).  Errors are flags returned by the nogil core and raised after it.

Overflow: a margin (``w . x`` or ``f_M``), a squared norm ``||x||^2``, a step
size or an updated weight that is not finite in float64 (rows near 1e308, or a
subnormal row whose ``l / ||x||^2`` overflows) stops the pass with a
ValueError naming the row (the row of ``X`` or of the CSR arrays) and asking to
rescale X.  An update is checked before it is applied, so the weights stay
finite; the rows before the failing one have been learned (and the failing
row may have advanced the counters), so a caller that wants the pass to be all
or nothing keeps a copy of the state.

Bounds checking and wraparound are switched off by ``setup.py`` (and on again
with ``FSTOOLS_BOUNDSCHECK=1``).
"""
import numpy as np

cimport numpy as cnp
from libc.math cimport INFINITY, fabs, floor, isfinite, sqrt
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc

from fstools._ext._common cimport (BAD_LABEL, NON_FINITE, OK, OUT_OF_MEMORY, ROW_TOO_WIDE, TOO_MANY_SYNTHETIC,
                                   SignalCheck, check_length, raise_if_stopped, signal_check_init, stop_requested)
from fstools._ext._random cimport next_random, random_below, random_open_unit
from fstools._ext._sorting cimport kth_largest as _kth_largest
# CSR column indices (and ``indptr``): int32 or int64.
from fstools._ext._typedefs cimport csr_index_t as index_t

cnp.import_array()

cdef extern from *:
    """
    /* value if mask is all ones, +0.0 if it is 0: a bit mask, not a branch (membership is
       unpredictable) */
    static inline double fstools_online_masked(double value, uint64_t mask) {
        union { double real; uint64_t bits; } word;
        word.real = value;
        word.bits &= mask;
        return word.real;
    }
    """
    double masked "fstools_online_masked"(double value, uint64_t mask) noexcept nogil


cdef extern from *:
    """
    /* The truncation T on every weight, returning the number of nonzero weights after it: a
       plain loop that the compiler vectorises.  On x86 built for the baseline (SSE2, two doubles
       a vector) a copy compiled for AVX2 (four) is used where the processor has it, chosen once
       at import; the operations (subtract, compare, select, copy the sign) are exact, so both
       copies give the same bits. */
    #include <math.h>
    #include <stddef.h>
    #define FSTOOLS_TRUNCATE_BODY                                           \
        ptrdiff_t count = 0;                                                \
        for (ptrdiff_t j = 0; j < d; j++) {                                 \
            double v = w[j];                                                \
            double size = fabs(v);                                          \
            double shrunk = size - a;                                       \
            shrunk = shrunk > 0.0 ? shrunk : 0.0;                           \
            v = size <= theta ? copysign(shrunk, v) : v;                    \
            w[j] = v;                                                       \
            count += v != 0.0;                                              \
        }                                                                   \
        return count;

    static ptrdiff_t fstools_truncate_plain(double* w, ptrdiff_t d, double a, double theta) {
        FSTOOLS_TRUNCATE_BODY
    }
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(__AVX2__)
    __attribute__((target("avx2")))
    static ptrdiff_t fstools_truncate_avx2(double* w, ptrdiff_t d, double a, double theta) {
        FSTOOLS_TRUNCATE_BODY
    }
    static int fstools_online_avx2 = 0;
    static void fstools_online_init(void) {
        __builtin_cpu_init();
        fstools_online_avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
    }
    static ptrdiff_t fstools_online_truncate(double* w, ptrdiff_t d, double a, double theta) {
        return fstools_online_avx2 ? fstools_truncate_avx2(w, d, a, theta) : fstools_truncate_plain(w, d, a, theta);
    }
    #else
    static void fstools_online_init(void) {}
    static ptrdiff_t fstools_online_truncate(double* w, ptrdiff_t d, double a, double theta) {
        return fstools_truncate_plain(w, d, a, theta);
    }
    #endif
    """
    void vector_unit_init "fstools_online_init"() noexcept nogil
    Py_ssize_t truncate_all "fstools_online_truncate"(double* w, Py_ssize_t d, double a, double theta) noexcept nogil


vector_unit_init()  # once, at import (the pass runs without the GIL, in several threads)

# Loss (step 3).
cdef enum:
    HINGE = 0
    MARGIN_BASED = 1
    COST_SENSITIVE = 2

# Step size (step 4).
cdef enum:
    STEP_PA = 0
    STEP_PA1 = 1
    STEP_PA2 = 2
    STEP_OGD = 3

# Truncation (step 6).
cdef enum:
    TRUNCATE_NONE = 0
    TRUNCATE_GRADIENT = 1
    TRUNCATE_TOPK = 2

# Synthetic negatives (step 5).
cdef enum:
    SYNTHESIS_NONE = 0
    SYNTHESIS_EXTRAPOLATE = 1
    SYNTHESIS_INTERPOLATE = 2

# Layout of the counters array.
cdef enum:
    ROUNDS = 0
    POSITIVE_COUNTER = 1
    NEGATIVE_COUNTER = 2
    NEGATIVES_OFFERED = 3
    MEMORY_FILLED = 4
    N_COUNTER_SLOTS = 5

# A weight in the top set S: all bits set (a mask that keeps a double whole).
cdef uint64_t IN_TOP = 0xFFFFFFFFFFFFFFFF

# Most synthetic negatives ONPA learns from for one real negative (N = floor(beta p / n));
# a larger N is refused (it would take hours, and the cast of a huge N overflows).
cdef double MAX_SYNTHETIC = 1048576.0
MAX_SYNTHETIC_PER_ROW = int(MAX_SYNTHETIC)

LOSS_HINGE = HINGE
LOSS_MARGIN_BASED = MARGIN_BASED
LOSS_COST_SENSITIVE = COST_SENSITIVE
STEPS = {"pa": STEP_PA, "pa1": STEP_PA1, "pa2": STEP_PA2, "ogd": STEP_OGD}
TRUNCATIONS = {"none": TRUNCATE_NONE, "gradient": TRUNCATE_GRADIENT, "topk": TRUNCATE_TOPK}
SYNTHESES = {"none": SYNTHESIS_NONE, "extrapolate": SYNTHESIS_EXTRAPOLATE,
             "interpolate": SYNTHESIS_INTERPOLATE}
COUNTER_ROUNDS = ROUNDS
COUNTER_POSITIVE = POSITIVE_COUNTER
COUNTER_NEGATIVE = NEGATIVE_COUNTER
COUNTER_NEGATIVES_OFFERED = NEGATIVES_OFFERED
COUNTER_MEMORY_FILLED = MEMORY_FILLED
N_COUNTERS = N_COUNTER_SLOTS


cdef struct Learner:
    # settings
    int loss
    int step
    int truncate
    int synthesis
    double C
    double gravity          # a = eta K g
    double theta
    double beta
    double cost_ratio       # <= 0: rho = p / n
    int64_t period          # K
    Py_ssize_t topk
    Py_ssize_t n_features
    # state, owned by the caller
    double* w
    int64_t* counters
    uint64_t* random_state
    int32_t* memory_indices     # capacity x width
    double* memory_values       # capacity x width
    int32_t* memory_nnz         # capacity
    Py_ssize_t memory_capacity
    Py_ssize_t memory_width
    # scratch, owned by the pass
    Py_ssize_t nonzero          # number of nonzero weights
    double* work                # n_features: |w| for the selection
    double* synthetic_values    # n_features
    int32_t* synthetic_indices  # n_features
    # prediction budgets, each with its top-M set S (see "The top-M set S of every budget"):
    # ``member`` (n_budgets x d) says whether j is in S (IN_TOP: all 64 bits set) or not (0); per budget, ``low`` and ``high``
    # (n_budgets x n_blocks) bound the sizes of S and of the rest R in each block of
    # 2^block_shift indices, ``lower`` and ``upper`` (n_budgets) all of them; ``tie_size``
    # (n_budgets) is the size of a tie at the boundary settled since (-1: none)
    Py_ssize_t n_budgets
    const Py_ssize_t* budgets
    uint64_t* member
    int block_shift
    Py_ssize_t n_blocks
    double* low
    double* high
    double* lower
    double* upper
    double* tie_size
    double* row_budget          # n_budgets: the budget margins of a row when they are not recorded


# --------------------------------------------------------------------------
# Row arithmetic.  ``indices == NULL`` means a dense row of ``nnz`` entries.
# --------------------------------------------------------------------------

cdef inline double _dot(const double* w, const double* values, const index_t* indices,
                        Py_ssize_t nnz) noexcept nogil:
    """w . x, summed in increasing feature index."""
    cdef double total = 0.0
    cdef Py_ssize_t k
    if indices == NULL:
        for k in range(nnz):
            total += w[k] * values[k]
    else:
        for k in range(nnz):
            total += w[indices[k]] * values[k]
    return total


cdef inline double _squared_norm(const double* values, Py_ssize_t nnz) noexcept nogil:
    """||x||^2, summed in increasing feature index."""
    cdef double total = 0.0
    cdef Py_ssize_t k
    for k in range(nnz):
        total += values[k] * values[k]
    return total




# --------------------------------------------------------------------------
# Selection of the M largest |w_j|.
# --------------------------------------------------------------------------

cdef void _top_threshold(const double* w, Py_ssize_t d, Py_ssize_t M, double* work,
                         double* threshold, Py_ssize_t* last_tie) noexcept nogil:
    """The M-th largest |w_j| and the index of the last weight of that size kept.

    The kept set is {j : |w_j| > threshold} plus the weights with |w_j| ==
    threshold and j <= last_tie: the M largest, ties to the lower index.
    Needs 1 <= M <= d.
    """
    cdef Py_ssize_t j, greater, need
    cdef double value
    for j in range(d):
        work[j] = fabs(w[j])
    value = _kth_largest(work, d, M)
    greater = 0
    for j in range(d):
        if fabs(w[j]) > value:
            greater += 1
    need = M - greater
    last_tie[0] = -1
    for j in range(d):
        if fabs(w[j]) == value:
            need -= 1
            if need == 0:
                last_tie[0] = j
                break
    threshold[0] = value


cdef inline bint _kept(double weight, Py_ssize_t j, double threshold, Py_ssize_t last_tie) noexcept nogil:
    cdef double size = fabs(weight)
    return size > threshold or (size == threshold and j <= last_tie)


# The top-M set S of every budget, kept lazily: neither S nor the rest R is ordered, they are
# only bounded.  The indices are cut into blocks of 2^block_shift consecutive ones (about
# sqrt(d) blocks); ``low`` holds, per block, a lower bound of the sizes |w_j| of S in it (inf
# when it holds none) and ``high`` an upper bound of the sizes of R in it (0 when none), and
# ``lower`` / ``upper`` bound all of S / R the same way.  A changed weight lowers its block's
# bound of S, or raises that of R, when it passes it: one comparison.  S is the M largest keys
# (|w_j|, -j) when its smallest key is above the largest key of R; ``lower > upper`` shows it
# at once, and S is looked at only when that fails and a budget margin needs S (more than M
# nonzero weights): the smallest key of S and the largest of R are found (the block with the
# extreme bound, made exact until the extreme bound is exact: O(sqrt(d)) when few bounds are
# stale) and exchanged while they are out of order.  A tie at the boundary (equal sizes, S
# holding the lower indices) is remembered in ``tie_size`` until a weight comes to a size at or
# beyond it.  A gradient truncation shrinks every size by the same monotone map: the bounds
# follow the map.

cdef inline Py_ssize_t _block_stop(const Learner* L, Py_ssize_t block) noexcept nogil:
    cdef Py_ssize_t stop = (block + 1) << L.block_shift
    return stop if stop < L.n_features else L.n_features


cdef double _top_block_min(const Learner* L, Py_ssize_t b, Py_ssize_t block, Py_ssize_t* index,
                           double* runner_up) noexcept nogil:
    """The smallest size in S among the indices of ``block`` (inf if none); into ``index``, the
    highest index of that size (the smallest key) and into ``runner_up`` the smallest size of
    the others in S (the same size on a tie; inf if none)."""
    cdef const uint64_t* member = L.member + b * L.n_features
    cdef Py_ssize_t start = block << L.block_shift
    cdef Py_ssize_t stop = _block_stop(L, block)
    cdef Py_ssize_t j
    cdef Py_ssize_t found = start
    cdef double smallest = INFINITY
    cdef double second = INFINITY
    cdef double size, larger
    for j in range(start, stop):  # without branches: the weights of R count as inf
        size = fabs(L.w[j]) if member[j] else INFINITY
        larger = size if size > smallest else smallest
        second = larger if larger < second else second
        found = j if size <= smallest else found
        smallest = size if size < smallest else smallest
    index[0] = found
    runner_up[0] = second
    return smallest


cdef double _rest_block_max(const Learner* L, Py_ssize_t b, Py_ssize_t block, Py_ssize_t* index,
                            double* runner_up) noexcept nogil:
    """The largest size in R among the indices of ``block`` (0 if none); into ``index``, the
    lowest index of that size (the largest key; any index of the block when the size is 0) and
    into ``runner_up`` the largest size of the others in R (the same size on a tie)."""
    cdef const uint64_t* member = L.member + b * L.n_features
    cdef Py_ssize_t start = block << L.block_shift
    cdef Py_ssize_t stop = _block_stop(L, block)
    cdef Py_ssize_t j
    cdef Py_ssize_t found = start
    cdef double largest = 0.0
    cdef double second = 0.0
    cdef double size, smaller
    for j in range(start, stop):  # without branches: the weights of S count as 0
        size = masked(fabs(L.w[j]), ~member[j])
        smaller = size if size < largest else largest
        second = smaller if smaller > second else second
        found = j if size > largest else found
        largest = size if size > largest else largest
    index[0] = found
    runner_up[0] = second
    return largest


cdef double _top_min(Learner* L, Py_ssize_t b, Py_ssize_t* index, double* runner_up,
                     double* in_block) noexcept nogil:
    """The smallest key of S (budget b): its size, returned, and its index; makes ``lower``
    exact.  The last block with the smallest bound is made exact until its bound was.  Without
    the weight ``index``: ``in_block`` receives the smallest size of the rest of S in its block,
    ``runner_up`` a lower bound of the sizes of the rest of S."""
    cdef double* low = L.low + b * L.n_blocks
    cdef Py_ssize_t k, best
    cdef double exact, smallest, second, larger
    while True:
        best = 0
        smallest = INFINITY
        second = INFINITY
        for k in range(L.n_blocks):  # the smallest bound, the last block of it, and the next
            larger = low[k] if low[k] > smallest else smallest
            second = larger if larger < second else second
            best = k if low[k] <= smallest else best
            smallest = low[k] if low[k] < smallest else smallest
        exact = _top_block_min(L, b, best, index, in_block)
        if exact == smallest:
            L.lower[b] = exact
            runner_up[0] = in_block[0] if in_block[0] < second else second
            return exact
        low[best] = exact


cdef double _rest_max(Learner* L, Py_ssize_t b, Py_ssize_t* index, double* runner_up,
                      double* in_block) noexcept nogil:
    """The largest key of R (budget b): its size, returned, and its index; makes ``upper``
    exact.  The first block with the largest bound is made exact until its bound was.  Without
    the weight ``index``: ``in_block`` receives the largest size of the rest of R in its block,
    ``runner_up`` an upper bound of the sizes of the rest of R."""
    cdef double* high = L.high + b * L.n_blocks
    cdef Py_ssize_t k, best
    cdef double exact, largest, second, smaller
    while True:
        best = 0
        largest = -1.0
        second = 0.0
        for k in range(L.n_blocks):  # the largest bound, the first block of it, and the next
            smaller = high[k] if high[k] < largest else largest
            second = smaller if smaller > second else second
            best = k if high[k] > largest else best
            largest = high[k] if high[k] > largest else largest
        exact = _rest_block_max(L, b, best, index, in_block)
        if exact == largest:
            L.upper[b] = exact
            runner_up[0] = in_block[0] if in_block[0] > second else second
            return exact
        high[best] = exact


cdef void _build_top_sets(Learner* L) noexcept nogil:
    """S = the M largest keys of the current w (a selection, O(d)) and exact bounds, for every
    budget."""
    cdef Py_ssize_t d = L.n_features
    cdef Py_ssize_t b, M, j, k, last_tie
    cdef double threshold, size
    cdef uint64_t* member
    cdef double* low
    cdef double* high
    for b in range(L.n_budgets):
        M = L.budgets[b]
        member = L.member + b * d
        low = L.low + b * L.n_blocks
        high = L.high + b * L.n_blocks
        L.tie_size[b] = -1.0
        L.lower[b] = INFINITY
        L.upper[b] = 0.0
        for k in range(L.n_blocks):
            low[k] = INFINITY
            high[k] = 0.0
        if M == d:
            for j in range(d):
                member[j] = IN_TOP  # S holds every weight: f_M = f, never looked at
            continue
        _top_threshold(L.w, d, M, L.work, &threshold, &last_tie)
        for j in range(d):
            member[j] = IN_TOP if _kept(L.w[j], j, threshold, last_tie) else 0
            size = fabs(L.w[j])
            k = j >> L.block_shift
            if member[j]:
                low[k] = size if size < low[k] else low[k]
                L.lower[b] = size if size < L.lower[b] else L.lower[b]
            else:
                high[k] = size if size > high[k] else high[k]
                L.upper[b] = size if size > L.upper[b] else L.upper[b]


cdef void _restore_top_set(Learner* L, Py_ssize_t b) noexcept nogil:
    """Make S of budget b the M largest keys: exchange the smallest key of S with the largest
    of R while they are out of order (remembering a tie at the boundary)."""
    cdef uint64_t* member = L.member + b * L.n_features
    cdef double* low = L.low + b * L.n_blocks
    cdef double* high = L.high + b * L.n_blocks
    cdef Py_ssize_t s, r, block_s, block_r
    cdef double size_s, size_r, next_s, next_r, in_block_s, in_block_r
    while not L.lower[b] > L.upper[b]:
        size_s = _top_min(L, b, &s, &next_s, &in_block_s)
        size_r = _rest_max(L, b, &r, &next_r, &in_block_r)
        if size_s > size_r or size_r == 0.0:  # (R all zero: S holds every nonzero weight)
            return
        if size_s == size_r and s < r:
            L.tie_size[b] = size_s
            return
        # exchange s (leaves S) and r (joins S); the bounds follow
        member[s] = 0
        member[r] = IN_TOP
        block_s = s >> L.block_shift
        block_r = r >> L.block_shift
        low[block_s] = in_block_s
        high[block_r] = in_block_r
        low[block_r] = size_r if size_r < low[block_r] else low[block_r]
        high[block_s] = size_s if size_s > high[block_s] else high[block_s]
        L.lower[b] = size_r if size_r < next_s else next_s
        L.upper[b] = size_s if size_s > next_r else next_r


cdef inline void _ensure_top_set(Learner* L, Py_ssize_t b) noexcept nogil:
    """Make S of budget b the M largest keys, unless its bounds (or a tie settled since) show
    that it is."""
    if L.lower[b] > L.upper[b] or L.tie_size[b] >= 0.0:
        return
    _restore_top_set(L, b)


cdef inline void _track_change(Learner* L, Py_ssize_t j, double old, double new) noexcept nogil:
    """Book-keeping of one changed weight: the nonzero count and every budget's bounds.

    A settled tie (``tie_size`` >= 0, then equal to ``lower`` and ``upper``) shows nothing any
    more once a weight of S comes to a size at or below it, or one of R at or above it.
    """
    cdef Py_ssize_t b, block
    cdef double size_old = fabs(old)
    cdef double size_new = fabs(new)
    cdef double* bound
    L.nonzero += (new != 0.0) - (old != 0.0)
    if size_old == size_new:
        return
    block = j >> L.block_shift
    for b in range(L.n_budgets):
        if L.member[b * L.n_features + j]:
            bound = L.low + b * L.n_blocks + block
            if size_new < bound[0]:
                bound[0] = size_new
            if size_new <= L.lower[b]:
                L.lower[b] = size_new
                L.tie_size[b] = -1.0
        else:
            bound = L.high + b * L.n_blocks + block
            if size_new > bound[0]:
                bound[0] = size_new
            if size_new >= L.upper[b]:
                L.upper[b] = size_new
                L.tie_size[b] = -1.0


cdef inline void _add_scaled(Learner* L, double scale, const double* values, const index_t* indices,
                             Py_ssize_t nnz) noexcept nogil:
    """w <- w + scale x, with the book-keeping of :func:`_track_change`."""
    cdef Py_ssize_t k, j
    cdef double old, new
    cdef double* w = L.w
    if indices == NULL:
        for k in range(nnz):
            old = w[k]
            new = old + scale * values[k]
            w[k] = new
            _track_change(L, k, old, new)
    else:
        for k in range(nnz):
            j = indices[k]
            old = w[j]
            new = old + scale * values[k]
            w[j] = new
            _track_change(L, j, old, new)


cdef bint _update_is_finite(const Learner* L, double scale, const double* values, const index_t* indices,
                            Py_ssize_t nnz) noexcept nogil:
    """Whether every weight of w + scale x (as :func:`_add_scaled` computes it) is finite."""
    cdef Py_ssize_t k, j
    if not isfinite(scale):
        return False
    for k in range(nnz):
        j = k if indices == NULL else indices[k]
        if not isfinite(L.w[j] + scale * values[k]):
            return False
    return True


cdef inline double _budget_margin(Learner* L, Py_ssize_t b, double full, const double* values,
                                  const index_t* indices, Py_ssize_t nnz) noexcept nogil:
    """Margin of the M-feature classifier (M = budgets[b]) of the current w: the sum of
    w_j x_j over the row's entries j in the top set S (in increasing j); ``full`` (= w . x)
    when S holds every nonzero weight."""
    cdef Py_ssize_t M = L.budgets[b]
    cdef Py_ssize_t k, j
    cdef double total = 0.0  # never -0.0: adding the +0.0 of a weight outside S changes nothing
    cdef const uint64_t* member = L.member + b * L.n_features
    if M == L.n_features or L.nonzero <= M:
        return full
    _ensure_top_set(L, b)
    for k in range(nnz):
        j = k if indices == NULL else indices[k]
        total += masked(L.w[j] * values[k], member[j])
    return total


cdef inline double _margins(Learner* L, const double* values, const index_t* indices, Py_ssize_t nnz,
                            double* budget_margin) noexcept nogil:
    """w . x, returned, and the margin of every budget's M-feature classifier into ``budget_margin``.

    With one budget whose S leaves out a nonzero weight, both sums run in one loop (two
    independent chains of additions, each in increasing j as :func:`_dot` and
    :func:`_budget_margin` add them).
    """
    cdef Py_ssize_t M, k, j
    cdef double full, total, term
    cdef const uint64_t* member
    cdef Py_ssize_t b
    if L.n_budgets == 1 and L.budgets[0] < L.n_features and L.nonzero > L.budgets[0]:
        _ensure_top_set(L, 0)
        member = L.member
        full = 0.0
        total = 0.0
        if indices == NULL:
            for k in range(nnz):
                term = L.w[k] * values[k]
                full += term
                total += masked(term, member[k])
        else:
            for k in range(nnz):
                j = indices[k]
                term = L.w[j] * values[k]
                full += term
                total += masked(term, member[j])
        budget_margin[0] = total
        return full
    full = _dot(L.w, values, indices, nnz)
    for b in range(L.n_budgets):
        budget_margin[b] = _budget_margin(L, b, full, values, indices, nnz)
    return full


# --------------------------------------------------------------------------
# Truncation.
# --------------------------------------------------------------------------

cdef Py_ssize_t _count_nonzero(const double* w, Py_ssize_t d) noexcept nogil:
    cdef Py_ssize_t j
    cdef Py_ssize_t count = 0
    for j in range(d):
        if w[j] != 0.0:
            count += 1
    return count


cdef Py_ssize_t _truncate_gradient(double* w, Py_ssize_t d, double a, double theta) noexcept nogil:
    """T on every weight, written without sign branches: copysign(max(|v| - a, 0), v) where
    |v| <= theta.  Equal to T(v, a, theta) of Eq. 10 with closed intervals at +-theta
    (round-to-nearest is symmetric: v + a = -(|v| - a) for v < 0) except that a negative weight
    shrunk to zero becomes -0.0 (== 0.0).  Returns the number of nonzero weights after it.  The
    loop is C (``fstools_online_truncate``): one copy per vector unit."""
    return truncate_all(w, d, a, theta)


cdef void _keep_top(double* w, Py_ssize_t d, Py_ssize_t M, double* work) noexcept nogil:
    """Zero every weight but the M largest |w_j| (ties to the lower index)."""
    cdef double threshold
    cdef Py_ssize_t last_tie, j
    _top_threshold(w, d, M, work, &threshold, &last_tie)
    for j in range(d):
        if not _kept(w[j], j, threshold, last_tie):
            w[j] = 0.0


cdef inline double _shrunk_size(double size, double a, double theta) noexcept nogil:
    """|T(v, a, theta)| for |v| = size, as :func:`_truncate_gradient` computes it (monotone in
    ``size``)."""
    cdef double shrunk = size - a
    shrunk = shrunk if shrunk > 0.0 else 0.0
    return shrunk if size <= theta else size


cdef void _truncate(Learner* L) noexcept nogil:
    cdef Py_ssize_t b, k
    if L.truncate == TRUNCATE_GRADIENT:
        if L.gravity > 0.0:
            L.nonzero = _truncate_gradient(L.w, L.n_features, L.gravity, L.theta)
            # T is monotone in |w_j|: the bounds follow it; two sizes may become equal, so a
            # settled tie shows nothing any more
            for k in range(L.n_budgets * L.n_blocks):
                L.low[k] = _shrunk_size(L.low[k], L.gravity, L.theta)
                L.high[k] = _shrunk_size(L.high[k], L.gravity, L.theta)
            for b in range(L.n_budgets):
                L.lower[b] = _shrunk_size(L.lower[b], L.gravity, L.theta)
                L.upper[b] = _shrunk_size(L.upper[b], L.gravity, L.theta)
                L.tie_size[b] = -1.0
    elif L.truncate == TRUNCATE_TOPK:
        if L.nonzero > L.topk:
            # zeroing by key (not by size) can leave S and R out of order between equal sizes:
            # select anew
            _keep_top(L.w, L.n_features, L.topk, L.work)
            L.nonzero = _count_nonzero(L.w, L.n_features)
            _build_top_sets(L)


# --------------------------------------------------------------------------
# Losses and steps.
# --------------------------------------------------------------------------

cdef inline double _loss(const Learner* L, double f, double y, int64_t p, int64_t n) noexcept nogil:
    cdef double margin = y * f
    cdef double rho, target
    if L.loss == HINGE:
        return 1.0 - margin if 1.0 - margin > 0.0 else 0.0
    if L.loss == MARGIN_BASED:
        if y > 0.0:
            return -margin if margin <= 0.0 else 0.0
        rho = <double> p / <double> n
        if margin <= 1.0 and rho - margin > 0.0:
            return rho - margin
        return 0.0
    # COST_SENSITIVE
    rho = L.cost_ratio if L.cost_ratio > 0.0 else <double> p / <double> n
    target = rho if y < 0.0 else 1.0
    return target - margin if target - margin > 0.0 else 0.0


cdef inline double _step_size(const Learner* L, double loss, double squared_norm, int64_t t) noexcept nogil:
    cdef double ratio
    if L.step == STEP_PA:
        return loss / squared_norm
    if L.step == STEP_PA1:
        ratio = loss / squared_norm
        return L.C if L.C < ratio else ratio
    if L.step == STEP_PA2:
        return loss / (squared_norm + 1.0 / (2.0 * L.C))
    return L.C / sqrt(<double> t)


cdef int _hinge_update(Learner* L, const double* values, const int32_t* indices,
                       Py_ssize_t nnz, double y, int64_t t) noexcept nogil:
    """The update of step 4 with the hinge loss (ONPA's synthetic examples); NON_FINITE if the
    margin, ||x||^2 or the update overflows (w is then left unchanged)."""
    cdef double f = _dot(L.w, values, indices, nnz)
    cdef double loss = 1.0 - y * f
    cdef double squared_norm, tau
    if not isfinite(f):
        return NON_FINITE
    if loss > 0.0:
        squared_norm = _squared_norm(values, nnz)
        if not isfinite(squared_norm):
            return NON_FINITE
        if squared_norm > 0.0:
            tau = _step_size(L, loss, squared_norm, t)
            if not _update_is_finite(L, tau * y, values, indices, nnz):
                return NON_FINITE
            _add_scaled(L, tau * y, values, indices, nnz)
    return OK


# --------------------------------------------------------------------------
# ONPA: synthetic negatives and the memory of earlier negatives.
# --------------------------------------------------------------------------

cdef inline double _synthetic_value(double x, double x_memory, double alpha, bint extrapolate) noexcept nogil:
    if extrapolate:
        return x + alpha * (x - x_memory)
    return x + alpha * (x_memory - x)


cdef Py_ssize_t _synthesise(Learner* L, const double* values, const index_t* indices, Py_ssize_t nnz,
                            Py_ssize_t slot, double alpha) noexcept nogil:
    """Write x_q into the synthetic buffers; returns its number of entries (d when dense)."""
    cdef const int32_t* memory_indices = L.memory_indices + slot * L.memory_width
    cdef const double* memory_values = L.memory_values + slot * L.memory_width
    cdef Py_ssize_t m = L.memory_nnz[slot]
    cdef bint extrapolate = L.synthesis == SYNTHESIS_EXTRAPOLATE
    cdef Py_ssize_t i = 0
    cdef Py_ssize_t k = 0
    cdef Py_ssize_t out = 0
    cdef Py_ssize_t j, a, b
    if indices == NULL:
        for j in range(nnz):
            L.synthetic_values[j] = _synthetic_value(values[j], 0.0, alpha, extrapolate)
        for k in range(m):
            j = memory_indices[k]
            L.synthetic_values[j] = _synthetic_value(values[j], memory_values[k], alpha, extrapolate)
        return nnz
    # merge the two sorted index lists
    while i < nnz or k < m:
        a = indices[i] if i < nnz else L.n_features
        b = memory_indices[k] if k < m else L.n_features
        if a < b:
            L.synthetic_indices[out] = <int32_t> a
            L.synthetic_values[out] = _synthetic_value(values[i], 0.0, alpha, extrapolate)
            i += 1
        elif b < a:
            L.synthetic_indices[out] = <int32_t> b
            L.synthetic_values[out] = _synthetic_value(0.0, memory_values[k], alpha, extrapolate)
            k += 1
        else:
            L.synthetic_indices[out] = <int32_t> a
            L.synthetic_values[out] = _synthetic_value(values[i], memory_values[k], alpha, extrapolate)
            i += 1
            k += 1
        out += 1
    return out


cdef int _remember(Learner* L, const double* values, const index_t* indices, Py_ssize_t nnz) noexcept nogil:
    """Offer a negative row to the memory (reservoir sampling)."""
    cdef int64_t offered = L.counters[NEGATIVES_OFFERED] + 1
    cdef int64_t filled = L.counters[MEMORY_FILLED]
    cdef Py_ssize_t slot, k, count
    cdef uint64_t drawn
    cdef int32_t* slot_indices
    cdef double* slot_values
    L.counters[NEGATIVES_OFFERED] = offered
    if L.memory_capacity == 0:
        return OK
    if filled < L.memory_capacity:
        slot = filled
    else:
        drawn = random_below(L.random_state, <uint64_t> offered)
        if drawn >= <uint64_t> L.memory_capacity:
            return OK
        slot = <Py_ssize_t> drawn
    count = 0
    for k in range(nnz):
        if values[k] != 0.0:
            count += 1
    if count > L.memory_width:
        return ROW_TOO_WIDE
    slot_indices = L.memory_indices + slot * L.memory_width
    slot_values = L.memory_values + slot * L.memory_width
    count = 0
    for k in range(nnz):
        if values[k] != 0.0:
            slot_indices[count] = <int32_t> (k if indices == NULL else indices[k])
            slot_values[count] = values[k]
            count += 1
    L.memory_nnz[slot] = <int32_t> count
    if filled < L.memory_capacity:
        L.counters[MEMORY_FILLED] = filled + 1
    return OK


# --------------------------------------------------------------------------
# One round and one pass.
# --------------------------------------------------------------------------

cdef int _learn_row(Learner* L, const double* values, const index_t* indices, Py_ssize_t nnz,
                    int label, double* margin, double* budget_margin, double* loss_out,
                    double* tau_out, int32_t* synthetic_out) noexcept nogil:
    cdef double y = <double> label
    cdef double f, loss, tau, squared_norm, alpha
    cdef int64_t t, p, n, filled
    cdef Py_ssize_t b, k, n_synthetic, done, slot, synthetic_nnz
    cdef int status = OK

    # 1. predictions before the update
    f = _margins(L, values, indices, nnz, budget_margin)
    margin[0] = f
    if not isfinite(f):
        return NON_FINITE
    for b in range(L.n_budgets):
        if not isfinite(budget_margin[b]):
            return NON_FINITE

    # 2. counters
    L.counters[ROUNDS] += 1
    t = L.counters[ROUNDS]
    if label == 1:
        L.counters[POSITIVE_COUNTER] += 1
    else:
        L.counters[NEGATIVE_COUNTER] += 1
    p = L.counters[POSITIVE_COUNTER]
    n = L.counters[NEGATIVE_COUNTER]

    # 3-4. loss and update
    loss = _loss(L, f, y, p, n)
    tau = 0.0
    if loss > 0.0:
        squared_norm = _squared_norm(values, nnz)
        if not isfinite(squared_norm):
            return NON_FINITE
        if squared_norm > 0.0:
            tau = _step_size(L, loss, squared_norm, t)
            if not _update_is_finite(L, tau * y, values, indices, nnz):
                return NON_FINITE
            _add_scaled(L, tau * y, values, indices, nnz)
    loss_out[0] = loss
    tau_out[0] = tau

    # 5. ONPA
    done = 0
    if L.synthesis != SYNTHESIS_NONE and label == -1:
        if not floor(L.beta * <double> p / <double> n) <= MAX_SYNTHETIC:
            return TOO_MANY_SYNTHETIC
        n_synthetic = <Py_ssize_t> floor(L.beta * <double> p / <double> n)
        for k in range(n_synthetic):
            filled = L.counters[MEMORY_FILLED]
            if filled == 0:
                break
            slot = <Py_ssize_t> random_below(L.random_state, <uint64_t> filled)
            alpha = random_open_unit(L.random_state)
            synthetic_nnz = _synthesise(L, values, indices, nnz, slot, alpha)
            if indices == NULL:
                status = _hinge_update(L, L.synthetic_values, <const int32_t*> NULL, synthetic_nnz, -1.0, t)
            else:
                status = _hinge_update(L, L.synthetic_values, L.synthetic_indices, synthetic_nnz, -1.0, t)
            if status != OK:
                synthetic_out[0] = <int32_t> done
                return status
            done += 1
        status = _remember(L, values, indices, nnz)
    synthetic_out[0] = <int32_t> done

    # 6. truncation every K rounds
    if t % L.period == 0:
        _truncate(L)
    return status


cdef int _run_pass(Learner* L, const double* data, const index_t* indices, const index_t* indptr,
                   const int32_t* y, const Py_ssize_t* order, Py_ssize_t n_rows,
                   double* margins, double* budget_margins, double* losses, double* taus,
                   int32_t* synthetic, int64_t* confusion, Py_ssize_t* failed_row,
                   SignalCheck* check) noexcept nogil:
    """Rows ``order[0:n_rows]`` in turn; ``indices == NULL``: dense rows of n_features values.

    The per-row outputs (``margins``, ``budget_margins``, ``losses``, ``taus``,
    ``synthetic``) are written when not NULL.  ``confusion`` (unless NULL) gets,
    per classifier (row 0 the learner's w, row 1 + b budget b), the confusion
    counts [a, b, c, d] of the rows learned: true +1 / -1 (a, b / c, d),
    predicted +1 when the margin before the update is >= 0.

    On an error, ``failed_row`` receives the row (of the data) being learned.  Stops
    (returning OK, with ``check.stop`` set) when ``check`` reports Ctrl-C between rows."""
    cdef Py_ssize_t i, row, start, nnz, b
    cdef int label
    cdef int status
    cdef Py_ssize_t d = L.n_features
    cdef Py_ssize_t n_budgets = L.n_budgets
    cdef double* row_budget
    cdef double margin, loss, tau
    cdef int32_t n_synthetic
    cdef Py_ssize_t cell
    cdef const double* values
    cdef const index_t* row_indices
    for i in range(n_rows):
        if stop_requested(check):
            return OK
        row = order[i]
        label = y[row]
        if label != 1 and label != -1:
            return BAD_LABEL
        row_budget = budget_margins + i * n_budgets if budget_margins != NULL else L.row_budget
        if indices == NULL:
            values = data + row * d
            row_indices = NULL
            nnz = d
        else:
            start = indptr[row]
            nnz = indptr[row + 1] - start
            values = data + start
            row_indices = indices + start
        status = _learn_row(L, values, row_indices, nnz, label, &margin, row_budget, &loss, &tau,
                            &n_synthetic)
        if margins != NULL:
            margins[i] = margin
        if status != OK:
            failed_row[0] = row
            return status
        if losses != NULL:
            losses[i] = loss
            taus[i] = tau
            synthetic[i] = n_synthetic
        if confusion != NULL:
            cell = 2 * (label != 1)
            confusion[cell + (margin < 0.0)] += 1
            for b in range(n_budgets):
                confusion[4 * (b + 1) + cell + (row_budget[b] < 0.0)] += 1
    return OK


# --------------------------------------------------------------------------
# Python entry points.
# --------------------------------------------------------------------------

def _raise_for_status(int status, Py_ssize_t failed_row=-1):
    if status == NON_FINITE:
        raise ValueError(f"X: row {failed_row} overflows float64: its squared norm ||x||^2, the margin w . x or "
                         "the weight update is not finite (values too large, or too small for the step "
                         "l / ||x||^2); rescale X, e.g. divide every column by its largest absolute value")
    if status == OUT_OF_MEMORY:
        raise MemoryError("online pass: could not allocate the scratch buffers")
    if status == BAD_LABEL:
        raise ValueError("y: labels must be +1 or -1")
    if status == ROW_TOO_WIDE:
        raise ValueError("memory: a negative row has more nonzero entries than the memory slots hold "
                         "(widen memory_indices / memory_values)")
    if status == TOO_MANY_SYNTHETIC:
        raise ValueError(f"beta: ONPA would learn from N = floor(beta p / n) > {MAX_SYNTHETIC_PER_ROW} "
                         "synthetic negatives for one row; use a smaller beta")


cdef int _allocate_scratch(Learner* L) noexcept nogil:
    cdef Py_ssize_t d = L.n_features if L.n_features > 0 else 1
    cdef Py_ssize_t nb = L.n_budgets if L.n_budgets > 0 else 1
    L.work = <double*> malloc(d * sizeof(double))
    L.synthetic_values = <double*> malloc(d * sizeof(double))
    L.synthetic_indices = <int32_t*> malloc(d * sizeof(int32_t))
    L.member = <uint64_t*> malloc(nb * d * sizeof(uint64_t))
    L.block_shift = 0
    while (<Py_ssize_t> 1 << (2 * L.block_shift + 2)) <= d:  # blocks of about sqrt(d) indices
        L.block_shift += 1
    L.n_blocks = ((d - 1) >> L.block_shift) + 1
    L.low = <double*> malloc(nb * L.n_blocks * sizeof(double))
    L.high = <double*> malloc(nb * L.n_blocks * sizeof(double))
    L.lower = <double*> malloc(nb * sizeof(double))
    L.upper = <double*> malloc(nb * sizeof(double))
    L.tie_size = <double*> malloc(nb * sizeof(double))
    L.row_budget = <double*> malloc(nb * sizeof(double))
    if (L.row_budget == NULL or L.work == NULL or L.synthetic_values == NULL or L.synthetic_indices == NULL
            or L.member == NULL or L.low == NULL or L.high == NULL or L.lower == NULL or L.upper == NULL
            or L.tie_size == NULL):
        return OUT_OF_MEMORY
    L.nonzero = _count_nonzero(L.w, L.n_features)
    _build_top_sets(L)
    return OK


cdef void _free_scratch(Learner* L) noexcept nogil:
    free(L.work)
    free(L.synthetic_values)
    free(L.synthetic_indices)
    free(L.member)
    free(L.low)
    free(L.high)
    free(L.lower)
    free(L.upper)
    free(L.tie_size)
    free(L.row_budget)


cdef _check_memory_slots(const int32_t[:, ::1] memory_indices, const int32_t[::1] memory_nnz,
                         Py_ssize_t filled, Py_ssize_t n_features):
    """ValueError unless every filled memory slot holds 0..width sorted, distinct indices in 0..n_features-1."""
    cdef Py_ssize_t width = memory_indices.shape[1]
    cdef Py_ssize_t slot, k, count
    for slot in range(filled):
        count = memory_nnz[slot]
        if not 0 <= count <= width:
            raise ValueError(f"memory_nnz: slot {slot} claims {count} entries; allowed 0..{width} (the width)")
        for k in range(count):
            if not 0 <= memory_indices[slot, k] < n_features:
                raise ValueError(f"memory_indices: slot {slot} has feature index {memory_indices[slot, k]}; "
                                 f"allowed 0..{n_features - 1}")
            if k > 0 and memory_indices[slot, k] <= memory_indices[slot, k - 1]:
                raise ValueError(f"memory_indices: slot {slot} is not sorted strictly increasing")


cdef bint _canonical_csr(const index_t* indices, const index_t* indptr, Py_ssize_t n_rows,
                         Py_ssize_t n_features) noexcept nogil:
    """Whether every row's column indices are strictly increasing in 0..n_features-1 and indptr
    does not decrease: flat loops over the whole arrays (no per-row loop, so they vectorise);
    False may also mean only "look row by row" (see ``limit``).

    Within the entries indptr[0]..indptr[n_rows]-1, an index not above the one before it is
    allowed only at the first entry of a (nonempty) row.
    """
    cdef Py_ssize_t row, position, begin, first, last
    cdef Py_ssize_t decreasing = 0
    cdef Py_ssize_t out_of_range = 0
    cdef Py_ssize_t descents = 0
    cdef Py_ssize_t most
    cdef index_t limit
    for row in range(n_rows):
        decreasing += indptr[row + 1] < indptr[row]
    if decreasing:
        return False
    first = indptr[0]
    last = indptr[n_rows]
    if first == last:
        return True
    # compared in index_t (vectorises); an int32 limit clipped at 2^31 - 1 may refuse the
    # largest index wrongly, never accept a wrong one: the caller's row-by-row loop decides
    most = 2147483647 if sizeof(index_t) == 4 else n_features
    limit = <index_t> (n_features if n_features < most else most)
    for position in range(first, last):
        out_of_range += (indices[position] < 0) | (indices[position] >= limit)
    for position in range(first + 1, last):
        descents += indices[position] <= indices[position - 1]
    for row in range(n_rows):
        begin = indptr[row]
        if first < begin < indptr[row + 1]:
            descents -= indices[begin] <= indices[begin - 1]
    return out_of_range == 0 and descents == 0


cdef Py_ssize_t _first_bad_csr_row(const index_t* indices, const index_t* indptr, Py_ssize_t n_rows,
                                   Py_ssize_t n_features) noexcept nogil:
    """The first row whose column indices are not strictly increasing in 0..n_features-1 (or whose
    indptr entries decrease), or -1 when all rows are canonical."""
    cdef Py_ssize_t row, position, start, end
    cdef index_t index, previous
    cdef bint bad
    if _canonical_csr(indices, indptr, n_rows, n_features):
        return -1
    # something is wrong: find the row, one row at a time
    for row in range(n_rows):
        start = indptr[row]
        end = indptr[row + 1]
        if end < start:
            return row
        # branch-free over the row: below 0 or not above the previous index, or too large
        previous = -1
        bad = False
        for position in range(start, end):
            index = indices[position]
            bad |= (index <= previous) | (index >= n_features)
            previous = index
        if bad:
            return row
    return -1


cdef struct Outputs:
    double* margins
    double* budget_margins
    double* losses
    double* taus
    int32_t* synthetic
    int64_t* confusion


cdef void _outputs(Outputs* out, double[::1] margins, double[:, ::1] budget_margins, double[::1] losses,
                   double[::1] taus, int32_t[::1] synthetic, int64_t[:, ::1] confusion):
    """Pointers to the outputs that are recorded (NULL: length 0, or no ``confusion``)."""
    out.margins = &margins[0] if margins.shape[0] > 0 else NULL
    out.budget_margins = (&budget_margins[0, 0] if budget_margins.shape[0] > 0 and budget_margins.shape[1] > 0
                          else NULL)
    out.losses = &losses[0] if losses.shape[0] > 0 else NULL
    out.taus = &taus[0] if taus.shape[0] > 0 else NULL
    out.synthetic = &synthetic[0] if synthetic.shape[0] > 0 else NULL
    out.confusion = &confusion[0, 0] if confusion is not None else NULL


cdef _setup(Learner* L, Py_ssize_t n_features, Py_ssize_t n_rows_data, Py_ssize_t n_y,
            const Py_ssize_t[::1] order, double[::1] weights, int64_t[::1] counters,
            uint64_t[::1] random_state, int32_t[:, ::1] memory_indices, double[:, ::1] memory_values,
            int32_t[::1] memory_nnz, const Py_ssize_t[::1] budgets, double[::1] margins,
            double[:, ::1] budget_margins, double[::1] losses, double[::1] taus, int32_t[::1] synthetic,
            int64_t[:, ::1] confusion, int loss, int step, int truncate, int synthesis, double C, double gravity, double theta,
            int64_t period, Py_ssize_t topk, double beta, double cost_ratio):
    """Check the arguments and fill ``L`` (everything but the scratch buffers)."""
    cdef Py_ssize_t n_rows = order.shape[0]
    cdef Py_ssize_t b
    if n_features < 1:
        raise ValueError(f"n_features: the rows need at least one feature; got {n_features}")
    check_length("y", n_y, n_rows_data, "labels (one per row)")
    check_length("weights", weights.shape[0], n_features, "weights (one per feature)")
    check_length("counters", counters.shape[0], N_COUNTER_SLOTS, "counters")
    if counters[POSITIVE_COUNTER] < 1 or counters[NEGATIVE_COUNTER] < 1 or counters[ROUNDS] < 0:
        raise ValueError("counters: the class counters start at 1 and the rounds at 0")
    if random_state.shape[0] != 1:
        raise ValueError(f"random_state: expected one 64-bit word, got {random_state.shape[0]}")
    if (memory_values.shape[0] != memory_indices.shape[0] or memory_values.shape[1] != memory_indices.shape[1]
            or memory_nnz.shape[0] != memory_indices.shape[0]):
        raise ValueError("memory: memory_indices, memory_values (capacity x width) and memory_nnz (capacity) "
                         "must agree in shape")
    if counters[MEMORY_FILLED] > memory_indices.shape[0]:
        raise ValueError(f"counters: {counters[MEMORY_FILLED]} memory slots filled but the capacity is "
                         f"{memory_indices.shape[0]}")
    if not 0 <= counters[MEMORY_FILLED] <= counters[NEGATIVES_OFFERED]:
        raise ValueError(f"counters: need 0 <= memory slots filled ({counters[MEMORY_FILLED]}) <= negatives "
                         f"offered to the memory ({counters[NEGATIVES_OFFERED]})")
    _check_memory_slots(memory_indices, memory_nnz, counters[MEMORY_FILLED], n_features)
    if n_rows and (np.asarray(order).min() < 0 or np.asarray(order).max() >= n_rows_data):
        raise ValueError(f"order: row numbers must lie in 0..{n_rows_data - 1}")
    if margins.shape[0] not in (0, n_rows):
        raise ValueError(f"margins: must have length {n_rows} (len(order)), or 0 (not recorded)")
    if not (losses.shape[0] == taus.shape[0] == synthetic.shape[0] and losses.shape[0] in (0, n_rows)):
        raise ValueError(f"outputs: losses, taus and synthetic must have length {n_rows} (len(order)), "
                         "or all 0 (not recorded)")
    if (budget_margins.shape[0] not in (0, n_rows) or budget_margins.shape[1] != budgets.shape[0]) and \
            budget_margins.shape[0] * budget_margins.shape[1] != 0:
        raise ValueError(f"budget_margins: expected shape ({n_rows}, {budgets.shape[0]}), or 0 rows "
                         "(not recorded)")
    if confusion is not None and (confusion.shape[0] != budgets.shape[0] + 1 or confusion.shape[1] != 4):
        raise ValueError(f"confusion: expected shape ({budgets.shape[0] + 1}, 4) (the learner, then each "
                         "budget)")
    for b in range(budgets.shape[0]):
        if budgets[b] < 1 or budgets[b] > n_features:
            raise ValueError(f"budgets: every budget must lie in 1..{n_features}; got {budgets[b]}")
    if loss not in (HINGE, MARGIN_BASED, COST_SENSITIVE):
        raise ValueError(f"loss: must be LOSS_HINGE, LOSS_MARGIN_BASED or LOSS_COST_SENSITIVE; got {loss}")
    if step not in (STEP_PA, STEP_PA1, STEP_PA2, STEP_OGD):
        raise ValueError(f"step: must be one of {STEPS}; got {step}")
    if truncate not in (TRUNCATE_NONE, TRUNCATE_GRADIENT, TRUNCATE_TOPK):
        raise ValueError(f"truncate: must be one of {TRUNCATIONS}; got {truncate}")
    if synthesis not in (SYNTHESIS_NONE, SYNTHESIS_EXTRAPOLATE, SYNTHESIS_INTERPOLATE):
        raise ValueError(f"synthesis: must be one of {SYNTHESES}; got {synthesis}")
    if not C > 0.0:
        raise ValueError(f"C: must be > 0; got {C}")
    if not gravity >= 0.0:
        raise ValueError(f"gravity: must be >= 0; got {gravity}")
    if not theta >= 0.0:
        raise ValueError(f"theta: must be >= 0; got {theta}")
    if period < 1:
        raise ValueError(f"period: K must be >= 1; got {period}")
    if truncate == TRUNCATE_TOPK and not 1 <= topk <= n_features:
        raise ValueError(f"topk: must lie in 1..{n_features} with truncate TOPK; got {topk}")
    if synthesis != SYNTHESIS_NONE and not 0.0 < beta < float("inf"):
        raise ValueError(f"beta: must be a finite number > 0; got {beta}")
    L.loss = loss
    L.step = step
    L.truncate = truncate
    L.synthesis = synthesis
    L.C = C
    L.gravity = gravity
    L.theta = theta
    L.beta = beta
    L.cost_ratio = cost_ratio
    L.period = period
    L.topk = topk
    L.n_features = n_features
    L.w = &weights[0] if n_features > 0 else NULL
    L.counters = &counters[0]
    L.random_state = &random_state[0]
    L.memory_capacity = memory_indices.shape[0]
    L.memory_width = memory_indices.shape[1]
    if L.memory_capacity > 0 and L.memory_width > 0:
        L.memory_indices = &memory_indices[0, 0]
        L.memory_values = &memory_values[0, 0]
    else:
        L.memory_indices = NULL
        L.memory_values = NULL
    L.memory_nnz = &memory_nnz[0] if L.memory_capacity > 0 else NULL
    L.n_budgets = budgets.shape[0]
    L.budgets = &budgets[0] if L.n_budgets > 0 else NULL
    L.work = NULL
    L.synthetic_values = NULL
    L.synthetic_indices = NULL
    L.member = NULL
    L.low = NULL
    L.high = NULL
    L.lower = NULL
    L.upper = NULL
    L.tie_size = NULL
    L.row_budget = NULL


def online_pass_dense(const double[:, ::1] X not None, const int32_t[::1] y not None,
                      const Py_ssize_t[::1] order not None, double[::1] weights not None,
                      int64_t[::1] counters not None, uint64_t[::1] random_state not None,
                      int32_t[:, ::1] memory_indices not None, double[:, ::1] memory_values not None,
                      int32_t[::1] memory_nnz not None, const Py_ssize_t[::1] budgets not None,
                      double[::1] margins not None, double[:, ::1] budget_margins not None,
                      double[::1] losses not None, double[::1] taus not None,
                      int32_t[::1] synthetic not None, *,
                      int loss, int step, int truncate, int synthesis, double C, double gravity,
                      double theta, int64_t period, Py_ssize_t topk=1, double beta=1.0,
                      double cost_ratio=0.0, int64_t[:, ::1] confusion=None):
    """One pass over dense rows ``X[order]`` (labels ``y`` in {+1, -1}); updates the state in place.

    Parameters
    ----------
    X : ndarray of float64, shape (n_rows, n_features), C-contiguous
    y : ndarray of int32, shape (n_rows,)
        +1 (majority) or -1 (minority), indexed like the rows of ``X``.
    order : ndarray of intp
        The rows to learn from, in turn (a row may appear more than once).
    weights : ndarray of float64, shape (n_features,)
        w, updated in place.
    counters : ndarray of int64, shape (N_COUNTERS,)
        [rounds t, p, n, negatives offered to the memory, memory slots filled];
        a fresh learner has [0, 1, 1, 0, 0].
    random_state : ndarray of uint64, shape (1,)
        SplitMix64 state, advanced in place.
    memory_indices, memory_values : ndarrays of int32 / float64, shape (capacity, width)
        ONPA's memory: slot s holds the nonzero entries of one earlier negative.
        Width must cover the nonzero entries of any negative row learned from.
    memory_nnz : ndarray of int32, shape (capacity,)
    budgets : ndarray of intp
        Feature budgets M (1..n_features) whose prequential margins are recorded.
    margins : ndarray of float64, shape (len(order),)
        Receives w . x before each update.
    budget_margins : ndarray of float64, shape (len(order), len(budgets))
        Receives the margin of the M-feature classifier before each update.
    losses, taus : ndarrays of float64, shape (len(order),)
        Receive the loss and step size of each real example's update.
    synthetic : ndarray of int32, shape (len(order),)
        Receives the number of synthetic negatives learned from (ONPA).
        Each per-row output may have length 0 instead (``budget_margins``: 0
        rows; ``losses``, ``taus`` and ``synthetic`` together): not recorded.
    loss, step, truncate, synthesis : int
        Codes: ``LOSS_*``, ``STEPS[...]``, ``TRUNCATIONS[...]``, ``SYNTHESES[...]``.
    C, gravity, theta, period, topk, beta, cost_ratio
        C of PA-I/PA-II (and the scale of CS's step), a = eta K g, theta, K,
        the budget of TOPK truncation, beta of ONPA, rho of CS (<= 0: p / n).
    confusion : ndarray of int64, shape (1 + len(budgets), 4), optional
        Incremented by the prequential confusion counts [a, b, c, d] (true +1
        predicted +1 / -1, true -1 predicted +1 / -1; +1 when the margin is
        >= 0) of the learner (row 0) and of each budget's M-feature classifier
        (row 1 + b), over the rows learned: the stream metrics without the
        per-row outputs.

    The pass answers Ctrl-C between rows: KeyboardInterrupt, with the state
    updated by the rows learned so far (the caller restores it).
    """
    cdef Learner L
    cdef int status
    cdef Py_ssize_t failed_row = -1
    cdef SignalCheck check
    _setup(&L, X.shape[1], X.shape[0], y.shape[0], order, weights, counters, random_state, memory_indices,
           memory_values, memory_nnz, budgets, margins, budget_margins, losses, taus, synthetic, confusion,
           loss, step, truncate, synthesis, C, gravity, theta, period, topk, beta, cost_ratio)
    cdef Py_ssize_t n_rows = order.shape[0]
    if n_rows == 0:
        return
    cdef Outputs outputs
    _outputs(&outputs, margins, budget_margins, losses, taus, synthetic, confusion)
    signal_check_init(&check, 64)
    with nogil:
        status = _allocate_scratch(&L)
        if status == OK:
            status = _run_pass(&L, &X[0, 0], <const int32_t*> NULL, <const int32_t*> NULL, &y[0], &order[0],
                               n_rows, outputs.margins, outputs.budget_margins, outputs.losses, outputs.taus,
                               outputs.synthetic, outputs.confusion, &failed_row, &check)
        _free_scratch(&L)
    raise_if_stopped(&check)
    _raise_for_status(status, failed_row)


def online_pass_csr(const double[::1] data not None, const index_t[::1] indices not None,
                    const index_t[::1] indptr not None, Py_ssize_t n_features,
                    const int32_t[::1] y not None, const Py_ssize_t[::1] order not None,
                    double[::1] weights not None, int64_t[::1] counters not None,
                    uint64_t[::1] random_state not None,
                    int32_t[:, ::1] memory_indices not None, double[:, ::1] memory_values not None,
                    int32_t[::1] memory_nnz not None, const Py_ssize_t[::1] budgets not None,
                    double[::1] margins not None, double[:, ::1] budget_margins not None,
                    double[::1] losses not None, double[::1] taus not None,
                    int32_t[::1] synthetic not None, *,
                    int loss, int step, int truncate, int synthesis, double C, double gravity,
                    double theta, int64_t period, Py_ssize_t topk=1, double beta=1.0,
                    double cost_ratio=0.0, int64_t[:, ::1] confusion=None):
    """:func:`online_pass_dense` on CSR rows (``data``, ``indices``, ``indptr``; int32 or int64 indices).

    The column indices of each row must be sorted, without duplicates, and
    lie in 0..n_features-1 (scipy's canonical format); any other row is refused
    with a ValueError naming it (an O(nnz) check before the pass).
    """
    cdef Learner L
    cdef int status
    cdef Py_ssize_t failed_row = -1
    cdef SignalCheck check
    cdef Py_ssize_t n_rows_data = indptr.shape[0] - 1
    if indptr.shape[0] < 1:
        raise ValueError("indptr: must have length n_rows + 1 >= 1")
    if (indices.shape[0] != data.shape[0] or indptr[0] < 0 or indptr[n_rows_data] > data.shape[0]):
        raise ValueError(f"indices, data, indptr: inconsistent CSR arrays (need len(indices) == len(data) = "
                         f"{data.shape[0]} and 0 <= indptr[0] <= indptr[-1] <= len(data); got len(indices) = "
                         f"{indices.shape[0]}, indptr[0] = {indptr[0]}, indptr[-1] = {indptr[n_rows_data]})")
    if n_features < 1:
        raise ValueError(f"n_features: the rows need at least one feature; got {n_features}")
    cdef Py_ssize_t bad_row
    cdef index_t dummy_index = 0
    cdef const index_t* indices_pointer = &indices[0] if indices.shape[0] > 0 else &dummy_index
    with nogil:
        bad_row = _first_bad_csr_row(indices_pointer, &indptr[0], n_rows_data, n_features)
    if bad_row >= 0:
        raise ValueError(f"indices, indptr: row {bad_row} is not canonical CSR (indptr must not decrease and "
                         f"each row's column indices must be strictly increasing in 0..{n_features - 1}); "
                         "call sort_indices() and sum_duplicates() first")
    _setup(&L, n_features, n_rows_data, y.shape[0], order, weights, counters, random_state, memory_indices,
           memory_values, memory_nnz, budgets, margins, budget_margins, losses, taus, synthetic, confusion,
           loss, step, truncate, synthesis, C, gravity, theta, period, topk, beta, cost_ratio)
    cdef Py_ssize_t n_rows = order.shape[0]
    if n_rows == 0:
        return
    cdef Outputs outputs
    _outputs(&outputs, margins, budget_margins, losses, taus, synthetic, confusion)
    cdef const double* data_pointer = &data[0] if data.shape[0] > 0 else NULL
    # (indices_pointer is never NULL: with every row empty the dummy marks the rows as sparse)
    signal_check_init(&check, 64)
    with nogil:
        status = _allocate_scratch(&L)
        if status == OK:
            status = _run_pass(&L, data_pointer, indices_pointer, &indptr[0], &y[0], &order[0], n_rows,
                               outputs.margins, outputs.budget_margins, outputs.losses, outputs.taus,
                               outputs.synthetic, outputs.confusion, &failed_row, &check)
        _free_scratch(&L)
    raise_if_stopped(&check)
    _raise_for_status(status, failed_row)


# --------------------------------------------------------------------------
# Thin wrappers of the helpers, for tests.
# --------------------------------------------------------------------------

cdef enum:
    DRAW_WORD = 0
    DRAW_BELOW = 1
    DRAW_UNIT = 2


cdef _draws(uint64_t[::1] state, Py_ssize_t n, int kind, uint64_t bound=1):
    """``n`` draws of one kind from the SplitMix64 ``state`` (advanced in place)."""
    if state.shape[0] != 1:
        raise ValueError(f"state: expected one 64-bit word (shape (1,)), got shape ({state.shape[0]},)")
    if n < 0:
        raise ValueError(f"n: the number of draws must be >= 0; got {n}")
    if bound < 1:
        raise ValueError(f"bound: must be >= 1; got {bound}")
    out = np.empty(n, dtype=np.float64 if kind == DRAW_UNIT else np.uint64)
    cdef uint64_t[::1] words
    cdef double[::1] units
    cdef Py_ssize_t i
    if kind == DRAW_UNIT:
        units = out
        for i in range(n):
            units[i] = random_open_unit(&state[0])
    else:
        words = out
        for i in range(n):
            words[i] = random_below(&state[0], bound) if kind == DRAW_BELOW else next_random(&state[0])
    return out


def random_integers(uint64_t[::1] state not None, uint64_t bound, Py_ssize_t n):
    """``n`` draws of the uniform integer below ``bound`` (advances ``state``)."""
    return _draws(state, n, DRAW_BELOW, bound)


def random_units(uint64_t[::1] state not None, Py_ssize_t n):
    """``n`` draws of the uniform real in (0, 1) (advances ``state``)."""
    return _draws(state, n, DRAW_UNIT)


def random_words(uint64_t[::1] state not None, Py_ssize_t n):
    """``n`` raw SplitMix64 outputs (advances ``state``)."""
    return _draws(state, n, DRAW_WORD)


def kth_largest(const double[::1] values not None, Py_ssize_t k):
    """The k-th largest value (k = 1..n) by quickselect."""
    cdef Py_ssize_t n = values.shape[0]
    if not 1 <= k <= n:
        raise ValueError(f"k: must lie in 1..{n}; got {k}")
    work = np.array(values, dtype=np.float64)
    cdef double[::1] view = work
    return _kth_largest(&view[0], n, k)


def top_weight_mask(const double[::1] w not None, Py_ssize_t M):
    """Boolean mask of the M largest |w_j|, ties to the lower index (1 <= M <= len(w))."""
    cdef Py_ssize_t d = w.shape[0]
    cdef Py_ssize_t j, last_tie
    cdef double threshold
    if not 1 <= M <= d:
        raise ValueError(f"M: must lie in 1..{d}; got {M}")
    work = np.empty(d, dtype=np.float64)
    cdef double[::1] view = work
    _top_threshold(&w[0], d, M, &view[0], &threshold, &last_tie)
    mask = np.zeros(d, dtype=bool)
    for j in range(d):
        if _kept(w[j], j, threshold, last_tie):
            mask[j] = True
    return mask


def truncate_weights(double[::1] w not None, double gravity, double theta):
    """Apply T(w_j, gravity, theta) (Eq. 10) to every weight, in place."""
    if not gravity >= 0.0 or not theta >= 0.0:
        raise ValueError(f"gravity, theta: must be >= 0; got {gravity}, {theta}")
    if w.shape[0]:
        _truncate_gradient(&w[0], w.shape[0], gravity, theta)


def keep_top_weights(double[::1] w not None, Py_ssize_t M):
    """Zero every weight but the M largest |w_j| (ties to the lower index), in place."""
    cdef Py_ssize_t d = w.shape[0]
    if not 1 <= M <= d:
        raise ValueError(f"M: must lie in 1..{d}; got {M}")
    work = np.empty(d, dtype=np.float64)
    cdef double[::1] view = work
    _keep_top(&w[0], d, M, &view[0])

# cython: language_level=3
"""Bit-parallel counting of binary and few-level features (bit-planes, 64-bit words).

A feature with ``L`` levels is stored as ``L - 1`` bit-planes, one per level
``1 .. L-1``: bit ``i`` of plane ``l`` is set when sample ``i`` has code ``l``
(``ceil(m / 64)`` 64-bit words per plane, the bits past ``m`` zero).  Level 0
is never stored: its counts follow by subtraction.  The class gets its planes
the same way.  A cell of a contingency table is then the popcount of ANDed
words, for 64 samples at a time:

    n(a = i, b = j)         = popcount(A_i & B_j)                 i, j >= 1
    n(a = i, b = j, c = k)  = popcount(A_i & (B_j & C_k))         i, j, k >= 1

and the cells with a level 0 come from the margins (for example
``n(i, 0, k) = n(a = i, c = k) - sum_{j >= 1} n(i, j, k)``).  The counts are
the integers the byte-code path of :mod:`fstools._ext._entropy` counts one
sample at a time, in the same table layout; the entropies are taken with the
same formula, ``(m log m - sum n log n) / m``, over the cells in the same
order (``n log n`` read from a table of the very same products), so every
result is bitwise that module's.

For a pair (candidate ``a`` of ``La`` levels, selected ``b`` of ``Lb``
levels) and ``K`` classes, the engine of the greedy filters counts
``(La - 1) (Lb - 1) K`` ANDed streams of ``ceil(m / 64)`` words; the
byte-code path reads ``m`` codes.  :func:`counting_kernel` therefore uses
the planes for a pair when that number of streams is at most
:data:`MAX_STREAMS` = 128, and the byte-code kernels otherwise.  Measured
(``benchmarks/bench_counting.py`` prints the byte-code / bit-plane time of
a greedy step for each number of streams, m = 800 and 5,000): the planes
are 8-23x faster at 2-4 streams (binary features), still 1.7-2.3x at 128,
and the two cost about the same near 250-350 streams.  Features of more
than :data:`MAX_PLANE_LEVELS` levels get no planes (their planes would
outweigh their int8 codes).  A greedy step that needs I(X_a;X_b) alone
(mrmr, mifs, mifs_u: term 0 of :meth:`PlaneCounter.accumulate_pair_terms`)
counts only the ``(La - 1) (Lb - 1)`` streams of the (candidate, selected)
table, half of them at 2 classes.

The popcount is the processor's instruction where the compiler has it: on
x86 with GCC or Clang a copy of the loop compiled for the POPCNT instruction,
chosen at import when the processor has it (:data:`HARDWARE_POPCOUNT`); on
other targets GCC's and Clang's ``__builtin_popcountll`` (one instruction
where the target has one); elsewhere, and on an x86 processor without
POPCNT, the portable bit-twiddling count (Hacker's Delight, Warren 2012,
section 5-1).

The loops run without the GIL, threaded with OpenMP over blocks of 256
features or candidates handed out as threads come free (a thread that loses
its core to another process does not hold the others up); each feature or
pair is computed by one thread with its own tables, so the result does not
depend on the number of threads or on which thread took which block.  They
answer Ctrl-C between blocks.  A greedy step is one such loop
(:meth:`PlaneCounter.accumulate_pair_terms`: the pair terms of every remaining
candidate folded into its running sum or minimum), so that the only serial
work of a step is the choice of the next feature.
"""
import numpy as np

cimport numpy as cnp
from cython.parallel import parallel, prange
from libc.math cimport log
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from fstools._ext import _entropy
from fstools._ext._common cimport (NON_FINITE, OK, OUT_OF_MEMORY, SignalCheck, block_length, check_threads,
                                   first_out_of_range, raise_if_stopped, signal_check_init, stop_requested)
from fstools._ext._counting cimport accumulate_term, clip_rounding as _clip_rounding
from fstools._ext._lazy cimport LAZY_SIGNAL_EVERY, lazy_cmim_loop
from fstools._ext._typedefs cimport code_t

cnp.import_array()

cdef extern from *:
    """
    #include <stddef.h>
    #include <stdint.h>
    #include <string.h>

    /* Portable popcount: Warren, Hacker's Delight (2nd ed., 2012), section 5-1. */
    static inline int fstools_popcount_portable(uint64_t x) {
        x = x - ((x >> 1) & 0x5555555555555555ULL);
        x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
        x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
        return (int) ((x * 0x0101010101010101ULL) >> 56);
    }

    /* counts[p] += sum_w popcount(a[w] & others[p * n_words + w]), p < n_others.  Four planes
       of others at a time, each word of a loaded once for the four (measured a tenth faster than
       one plane at a time, which loads two words per popcount); the last n_others % 4 one at a
       time, two words a turn. */
    #define FSTOOLS_AND_COUNTS_BODY(POPCOUNT)                                          \\
        ptrdiff_t p = 0;                                                                \\
        for (; p + 3 < n_others; p += 4) {                                              \\
            const uint64_t* o = others + p * n_words;                                   \\
            int64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;                                     \\
            for (ptrdiff_t w = 0; w < n_words; w++) {                                   \\
                uint64_t x = a[w];                                                      \\
                s0 += POPCOUNT(x & o[w]);                                               \\
                s1 += POPCOUNT(x & o[n_words + w]);                                     \\
                s2 += POPCOUNT(x & o[2 * n_words + w]);                                 \\
                s3 += POPCOUNT(x & o[3 * n_words + w]);                                 \\
            }                                                                           \\
            counts[p] += s0;                                                            \\
            counts[p + 1] += s1;                                                        \\
            counts[p + 2] += s2;                                                        \\
            counts[p + 3] += s3;                                                        \\
        }                                                                               \\
        for (; p < n_others; p++) {                                                     \\
            const uint64_t* o = others + p * n_words;                                   \\
            int64_t s0 = 0, s1 = 0;                                                     \\
            ptrdiff_t w = 0;                                                            \\
            for (; w + 1 < n_words; w += 2) {                                           \\
                s0 += POPCOUNT(a[w] & o[w]);                                            \\
                s1 += POPCOUNT(a[w + 1] & o[w + 1]);                                    \\
            }                                                                           \\
            if (w < n_words) s0 += POPCOUNT(a[w] & o[w]);                               \\
            counts[p] += s0 + s1;                                                       \\
        }

    static void fstools_and_counts_portable(const uint64_t* a, const uint64_t* others, ptrdiff_t n_others,
                                            ptrdiff_t n_words, int64_t* counts) {
        FSTOOLS_AND_COUNTS_BODY(fstools_popcount_portable)
    }

    #if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__)) \\
        && !defined(__POPCNT__)
    /* x86 built for a baseline without POPCNT: a copy for processors that have it, chosen at run time */
    __attribute__((target("popcnt")))
    static void fstools_and_counts_fast(const uint64_t* a, const uint64_t* others, ptrdiff_t n_others,
                                        ptrdiff_t n_words, int64_t* counts) {
        FSTOOLS_AND_COUNTS_BODY(__builtin_popcountll)
    }
    static int fstools_hardware_popcount(void) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("popcnt") ? 1 : 0;
    }
    #elif defined(__GNUC__) || defined(__clang__)
    /* the builtin is the processor's instruction where the target has one */
    static void fstools_and_counts_fast(const uint64_t* a, const uint64_t* others, ptrdiff_t n_others,
                                        ptrdiff_t n_words, int64_t* counts) {
        FSTOOLS_AND_COUNTS_BODY(__builtin_popcountll)
    }
    static int fstools_hardware_popcount(void) { return 1; }
    #else
    #define fstools_and_counts_fast fstools_and_counts_portable
    static int fstools_hardware_popcount(void) { return 0; }
    #endif

    /* Bit b of the result is set when byte b of the 8 codes in ``v`` equals ``level``
       (codes 0..127): the exact zero-byte test of Warren (2012, section 6-1), and the
       eight flags gathered into one byte by a multiplication. */
    static inline uint64_t fstools_level_bits8(uint64_t v, uint64_t level) {
        uint64_t t = v ^ (level * 0x0101010101010101ULL);
        uint64_t zero = ~(((t & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL) | t) & 0x8080808080808080ULL;
        return ((zero >> 7) * 0x0102040810204080ULL) >> 56;
    }
    static inline uint64_t fstools_load8(const int8_t* p) {
        uint64_t v;
        memcpy(&v, p, 8);
        #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        v = __builtin_bswap64(v);
        #endif
        return v;
    }

    /* The word w of the planes of levels 1 .. n_levels-1 of 64 int8 codes x[0..63]: bit i of
       planes[(l - 1) * n_words + w] set when x[i] == l.  With SSE2 (every x86-64 processor) the
       64 codes are loaded once, as four vectors of 16, and each level is one byte compare and
       one gather of the 16 flags per vector (movemask: flag i is bit i, in memory order);
       elsewhere the byte test of fstools_level_bits8, eight codes at a time. */
    #if defined(__SSE2__)
    #include <emmintrin.h>
    static inline void fstools_pack_word(const int8_t* x, ptrdiff_t n_levels, uint64_t* planes,
                                         ptrdiff_t n_words, ptrdiff_t w) {
        __m128i v0 = _mm_loadu_si128((const __m128i*) x);
        __m128i v1 = _mm_loadu_si128((const __m128i*) (x + 16));
        __m128i v2 = _mm_loadu_si128((const __m128i*) (x + 32));
        __m128i v3 = _mm_loadu_si128((const __m128i*) (x + 48));
        for (ptrdiff_t l = 1; l < n_levels; l++) {
            __m128i level = _mm_set1_epi8((char) l);
            uint64_t f0 = (uint64_t) (uint32_t) _mm_movemask_epi8(_mm_cmpeq_epi8(v0, level));
            uint64_t f1 = (uint64_t) (uint32_t) _mm_movemask_epi8(_mm_cmpeq_epi8(v1, level));
            uint64_t f2 = (uint64_t) (uint32_t) _mm_movemask_epi8(_mm_cmpeq_epi8(v2, level));
            uint64_t f3 = (uint64_t) (uint32_t) _mm_movemask_epi8(_mm_cmpeq_epi8(v3, level));
            planes[(l - 1) * n_words + w] = f0 | (f1 << 16) | (f2 << 32) | (f3 << 48);
        }
    }
    #else
    static inline void fstools_pack_word(const int8_t* x, ptrdiff_t n_levels, uint64_t* planes,
                                         ptrdiff_t n_words, ptrdiff_t w) {
        for (ptrdiff_t l = 1; l < n_levels; l++) {
            uint64_t word = 0;
            for (int i = 0; i < 8; i++) {
                word |= fstools_level_bits8(fstools_load8(x + 8 * i), (uint64_t) l) << (8 * i);
            }
            planes[(l - 1) * n_words + w] = word;
        }
    }
    #endif
    """
    void and_counts_portable "fstools_and_counts_portable"(const uint64_t* a, const uint64_t* others,
                                                           Py_ssize_t n_others, Py_ssize_t n_words,
                                                           int64_t* counts) noexcept nogil
    void and_counts_fast "fstools_and_counts_fast"(const uint64_t* a, const uint64_t* others,
                                                   Py_ssize_t n_others, Py_ssize_t n_words,
                                                   int64_t* counts) noexcept nogil
    int hardware_popcount "fstools_hardware_popcount"() noexcept nogil
    uint64_t level_bits8 "fstools_level_bits8"(uint64_t v, uint64_t level) noexcept nogil
    uint64_t load8 "fstools_load8"(const int8_t* p) noexcept nogil
    void pack_word "fstools_pack_word"(const int8_t* x, Py_ssize_t n_levels, uint64_t* planes, Py_ssize_t n_words,
                                       Py_ssize_t w) noexcept nogil

ctypedef void (*and_counts_t)(const uint64_t* a, const uint64_t* others, Py_ssize_t n_others,
                              Py_ssize_t n_words, int64_t* counts) noexcept nogil

#: True when the popcount is the processor's instruction (see the module docstring).
HARDWARE_POPCOUNT = bool(hardware_popcount())

cdef and_counts_t AND_COUNTS = and_counts_fast if HARDWARE_POPCOUNT else and_counts_portable

#: A pair of features is counted on bit-planes when it needs at most this many ANDed streams,
#: ``(La - 1) (Lb - 1) K`` (candidate levels, selected levels, classes); above it, byte codes.
MAX_STREAMS = 128

cdef enum:
    # capacities of the per-pair stack tables (whatever MAX_STREAMS is set to)
    PAIR_LEVELS = 16        # levels of a feature with planes
    PAIR_CELLS = 1024       # cells of a (candidate, selected, class) table on planes
    RAW_COUNTS = 256        # streams per candidate level, (Lb - 1) K

#: Features with more levels than this get no bit-planes.
MAX_PLANE_LEVELS = PAIR_LEVELS

cdef enum:
    # Features (or candidates) per work item of the parallel loops over the planes, each item
    # one look at Ctrl-C and one hand-out: a feature is counted in tens of nanoseconds, and a
    # look per feature would have every thread read the cache line that the master thread
    # writes at each look.
    PLANE_BLOCK = 256

cdef inline double _entropy_of_counts(const int64_t* counts, Py_ssize_t n_cells, Py_ssize_t m,
                                      const double* nlogn) noexcept nogil:
    """:func:`fstools._ext._counting.entropy_of_counts` with ``n log n`` read from ``nlogn``
    (the same products, summed in the same order: the same double)."""
    cdef double sum_nlogn = 0.0
    cdef Py_ssize_t k
    for k in range(n_cells):
        if counts[k] > 1:
            sum_nlogn += nlogn[counts[k]]
    return (nlogn[m] - sum_nlogn) / m


cdef struct Planes:
    const uint64_t* words         # every plane, n_words words each
    const uint64_t* class_words   # the class planes (levels 1 .. K-1)
    const Py_ssize_t* first_plane # first plane of feature j, or -1 (no planes)
    const int32_t* levels
    const Py_ssize_t* first_count # feature j's level counts at first_count[j], its class table at K * that
    const int64_t* counts
    const int64_t* class_tables
    const int64_t* class_counts
    const double* entropy         # H(X_j) (planes only)
    const double* class_entropy_of # H(X_j, C) (planes only)
    const double* nlogn
    double h_class
    Py_ssize_t m, n_words, n_classes


# ---------------------------------------------------------------------------
# building the planes
# ---------------------------------------------------------------------------

cdef void _pack_levels(const code_t* x, Py_ssize_t m, Py_ssize_t n_levels, Py_ssize_t n_words,
                       uint64_t* planes) noexcept nogil:
    """Planes of levels 1 .. n_levels-1 of ``x[0:m]`` into ``planes`` (every word written here).

    int8 codes: each whole word of 64 codes by ``pack_word``, the last partial one bit by bit
    from zero; other code types bit by bit into zeroed planes."""
    cdef Py_ssize_t w, i, l, start, stop
    if code_t is int8_t:
        if m % 64:
            for l in range(1, n_levels):
                planes[(l - 1) * n_words + n_words - 1] = 0
    else:
        memset(planes, 0, (n_levels - 1) * n_words * sizeof(uint64_t))
    for w in range(n_words):
        start = w * 64
        stop = start + 64 if start + 64 <= m else m
        if code_t is int8_t and stop - start == 64:
            pack_word(<const int8_t*> x + start, n_levels, planes, n_words, w)
        else:
            for i in range(start, stop):
                if x[i] > 0:
                    planes[(x[i] - 1) * n_words + w] |= (<uint64_t> 1) << (i - start)


cdef void _feature_tables(const uint64_t* a, Py_ssize_t n_levels, const Planes* P, int64_t* counts,
                          int64_t* table, double* entropy, double* joint) noexcept nogil:
    """Level counts (L), the (level, class) table (L x K) and H(X), H(X, C) of one feature."""
    cdef Py_ssize_t K = P.n_classes
    cdef Py_ssize_t l, c, n_words = P.n_words
    cdef int64_t rest
    memset(counts, 0, n_levels * sizeof(int64_t))
    memset(table, 0, n_levels * K * sizeof(int64_t))
    for l in range(1, n_levels):
        AND_COUNTS(a + (l - 1) * n_words, a + (l - 1) * n_words, 1, n_words, counts + l)
        AND_COUNTS(a + (l - 1) * n_words, P.class_words, K - 1, n_words, table + l * K + 1)
    rest = P.m
    for l in range(1, n_levels):
        rest -= counts[l]
        table[l * K] = counts[l]
        for c in range(1, K):
            table[l * K] -= table[l * K + c]
    counts[0] = rest
    for c in range(K):
        table[c] = P.class_counts[c]
        for l in range(1, n_levels):
            table[c] -= table[l * K + c]
    entropy[0] = _entropy_of_counts(counts, n_levels, P.m, P.nlogn)
    joint[0] = _entropy_of_counts(table, n_levels * K, P.m, P.nlogn)


# ---------------------------------------------------------------------------
# the pair engine
# ---------------------------------------------------------------------------

cdef inline Py_ssize_t pair_streams(Py_ssize_t la, Py_ssize_t lb, Py_ssize_t n_classes) noexcept nogil:
    """ANDed streams counted for a (candidate, selected) pair: (La - 1) (Lb - 1) K."""
    return (la - 1) * (lb - 1) * n_classes


cdef double _pair_information(const Planes* P, Py_ssize_t a_feature, Py_ssize_t b_feature) noexcept nogil:
    """I(X_a;X_b) of candidate ``a_feature`` and selected ``b_feature``: the first of the four
    quantities of :func:`_pair_terms`, from the (candidate, selected) table alone.

    Its ``(La - 1) (Lb - 1)`` streams are those of the selected feature's own planes (no class
    planes, nothing to fill); the table, its level-0 cells and the entropies are those of
    ``_pair_terms``, so the value is the same double.
    """
    cdef Py_ssize_t La = P.levels[a_feature]
    cdef Py_ssize_t Lb = P.levels[b_feature]
    cdef Py_ssize_t n_words = P.n_words
    cdef const uint64_t* a = P.words + P.first_plane[a_feature] * n_words
    cdef const uint64_t* b = P.words + P.first_plane[b_feature] * n_words
    cdef const int64_t* na = P.counts + P.first_count[a_feature]
    cdef const int64_t* nb = P.counts + P.first_count[b_feature]
    cdef int64_t raw[PAIR_LEVELS]
    cdef int64_t ab[PAIR_LEVELS * PAIR_LEVELS]
    cdef Py_ssize_t ia, ib
    cdef int64_t rest, v
    cdef double h_ab
    for ia in range(1, La):
        memset(raw, 0, (Lb - 1) * sizeof(int64_t))
        AND_COUNTS(a + (ia - 1) * n_words, b, Lb - 1, n_words, raw)
        rest = na[ia]
        for ib in range(1, Lb):
            v = raw[ib - 1]
            ab[ia * Lb + ib] = v
            rest -= v
        ab[ia * Lb] = rest
    for ib in range(Lb):
        rest = nb[ib]
        for ia in range(1, La):
            rest -= ab[ia * Lb + ib]
        ab[ib] = rest
    h_ab = _entropy_of_counts(ab, La * Lb, P.m, P.nlogn)
    return _clip_rounding(P.entropy[a_feature] + P.entropy[b_feature] - h_ab)


cdef void _pair_terms(const Planes* P, Py_ssize_t a_feature, Py_ssize_t b_feature, const uint64_t* others,
                      bint relevant_independency, double* dest) noexcept nogil:
    """The four quantities of :func:`fstools._ext._entropy.pair_information_terms` (or their
    relevant-independency sum) for candidate ``a_feature`` and selected ``b_feature``.

    ``others`` holds, for each selected level ib = 1 .. Lb-1, the plane B_ib followed by the
    planes B_ib & C_ic for ic = 1 .. K-1.
    """
    cdef Py_ssize_t K = P.n_classes
    cdef Py_ssize_t La = P.levels[a_feature]
    cdef Py_ssize_t Lb = P.levels[b_feature]
    cdef Py_ssize_t n_words = P.n_words
    cdef const uint64_t* a = P.words + P.first_plane[a_feature] * n_words
    cdef const int64_t* na = P.counts + P.first_count[a_feature]
    cdef const int64_t* nb = P.counts + P.first_count[b_feature]
    cdef const int64_t* nac = P.class_tables + P.first_count[a_feature] * K
    cdef const int64_t* nbc = P.class_tables + P.first_count[b_feature] * K
    cdef int64_t raw[RAW_COUNTS]
    cdef int64_t abc[PAIR_CELLS]
    cdef int64_t ab[PAIR_LEVELS * PAIR_LEVELS]
    cdef Py_ssize_t ia, ib, ic, per_level = (Lb - 1) * K
    cdef int64_t rest, v
    cdef double h_abc, h_ab, h_a, h_b
    for ia in range(1, La):
        memset(raw, 0, per_level * sizeof(int64_t))
        AND_COUNTS(a + (ia - 1) * n_words, others, per_level, n_words, raw)
        for ib in range(1, Lb):
            v = raw[(ib - 1) * K]
            ab[ia * Lb + ib] = v
            rest = v
            for ic in range(1, K):
                v = raw[(ib - 1) * K + ic]
                abc[(ia * Lb + ib) * K + ic] = v
                rest -= v
            abc[(ia * Lb + ib) * K] = rest
        rest = na[ia]
        for ib in range(1, Lb):
            rest -= ab[ia * Lb + ib]
        ab[ia * Lb] = rest
        for ic in range(K):
            rest = nac[ia * K + ic]
            for ib in range(1, Lb):
                rest -= abc[(ia * Lb + ib) * K + ic]
            abc[ia * Lb * K + ic] = rest
    for ib in range(Lb):
        rest = nb[ib]
        for ia in range(1, La):
            rest -= ab[ia * Lb + ib]
        ab[ib] = rest
        for ic in range(K):
            rest = nbc[ib * K + ic]
            for ia in range(1, La):
                rest -= abc[(ia * Lb + ib) * K + ic]
            abc[ib * K + ic] = rest
    # the entropies and their combinations of _entropy._pair_information, in its order
    h_abc = _entropy_of_counts(abc, La * Lb * K, P.m, P.nlogn)
    h_ab = _entropy_of_counts(ab, La * Lb, P.m, P.nlogn)
    h_a = P.entropy[a_feature]
    h_b = P.entropy[b_feature]
    if relevant_independency:
        dest[0] = (_clip_rounding(h_ab + P.class_entropy_of[b_feature] - h_abc - h_b)
                   + _clip_rounding(h_ab + P.class_entropy_of[a_feature] - h_abc - h_a))
    else:
        dest[0] = _clip_rounding(h_a + h_b - h_ab)
        dest[1] = _clip_rounding(h_ab + P.h_class - h_abc)
        dest[2] = _clip_rounding(h_ab + P.class_entropy_of[b_feature] - h_abc - h_b)
        dest[3] = _clip_rounding(h_ab + P.class_entropy_of[a_feature] - h_abc - h_a)


cdef void _accumulate_on_planes(const Planes* P, Py_ssize_t a_feature, Py_ssize_t b_feature,
                                const uint64_t* others, int term, double weight, bint minimum,
                                double* running) noexcept nogil:
    """Pair term ``term`` of candidate ``a_feature`` and selected ``b_feature`` and the update of
    the candidate's running value (``accumulate_term``): term 0, I(X_a;X_b), from the pair's
    table alone (:func:`_pair_information`; ``others`` unused, may be NULL), the others from the
    (candidate, selected, class) table (:func:`_pair_terms`)."""
    cdef double terms[4]
    if term == 0:
        terms[0] = _pair_information(P, a_feature, b_feature)
    else:
        _pair_terms(P, a_feature, b_feature, others, False, terms)
    accumulate_term(running, terms[term], weight, minimum)


cdef void _fill_selected_planes(const Planes* P, Py_ssize_t selected, uint64_t* others) noexcept nogil:
    """The planes ``_pair_terms`` ANDs with a candidate's: for ib = 1 .. Lb-1 of the selected
    feature, B_ib, then B_ib & C_ic for ic = 1 .. K-1 (``(Lb - 1) K`` rows of ``n_words``)."""
    cdef Py_ssize_t K = P.n_classes, n_words = P.n_words
    cdef Py_ssize_t Lb = P.levels[selected]
    cdef Py_ssize_t ib, ic, w
    cdef const uint64_t* b = P.words + P.first_plane[selected] * n_words
    for ib in range(1, Lb):
        for w in range(n_words):
            others[((ib - 1) * K) * n_words + w] = b[(ib - 1) * n_words + w]
            for ic in range(1, K):
                others[((ib - 1) * K + ic) * n_words + w] = (b[(ib - 1) * n_words + w]
                                                             & P.class_words[(ic - 1) * n_words + w])


cdef struct LazyPlanes:
    # the planes of lazy_cmim's conditional information
    const Planes* P
    uint64_t* others      # for each step, the planes of its pick (``_fill_selected_planes``)
    Py_ssize_t step_words # words of ``others`` per step


cdef int _plane_prepare_step(void* data, Py_ssize_t step, Py_ssize_t selected) noexcept nogil:
    """The planes of step ``step``'s pick, filled once by one thread before its terms are counted."""
    cdef LazyPlanes* L = <LazyPlanes*> data
    _fill_selected_planes(L.P, selected, L.others + step * L.step_words)
    return OK


cdef int _plane_conditional_information(void* data, Py_ssize_t candidate, Py_ssize_t step,
                                        Py_ssize_t selected, double* value) noexcept nogil:
    """I(X_candidate;C|X_selected) on the planes (the third term of ``_pair_terms``); reads the
    planes only (called from several threads at once)."""
    cdef const LazyPlanes* L = <const LazyPlanes*> data
    cdef double terms[4]
    _pair_terms(L.P, candidate, selected, L.others + step * L.step_words, False, terms)
    value[0] = terms[2]
    return OK


#: 64-bit words ANDed by a work item of the lazy CMIM loop on the planes (a pair's streams)
#: from which it is worth a thread: with fewer, a step's items run one at a time on one
#: thread.  Read at each call (tests lower it to run the threaded batches on small data).
LAZY_PARALLEL_WORDS = 256


def _pair_on_planes(candidate_levels, selected_levels, n_classes):
    """Whether a pair is counted on planes (its streams and table cells within the limits), for
    candidates of ``candidate_levels`` (a number or an array) with planes."""
    return (((candidate_levels - 1) * (selected_levels - 1) * n_classes <= MAX_STREAMS)
            & (candidate_levels * selected_levels * n_classes <= PAIR_CELLS))


cdef class PlaneCounter:
    """The bit-planes of one code matrix and class, and the information kernels on them.

    Built by :func:`counting_kernel`.  Its methods have the signatures of the
    kernels of :mod:`fstools._ext._entropy` of the same names and return the
    same values bitwise; they must be called with the codes, levels and class
    the counter was built from (anything else goes to :mod:`fstools._ext._entropy`
    unchanged).  Pairs and features without planes (too many levels or
    streams, see :data:`MAX_STREAMS`) go to the byte-code kernels as well.
    """
    cdef readonly object codes, levels, y
    cdef readonly Py_ssize_t n_classes
    cdef object _words, _class_words, _first_plane, _first_count, _counts, _class_tables, _class_counts
    cdef object _entropy_values, _joint_entropy_values, _relevance_values, _nlogn
    cdef object _pending          # features whose codes rows are still to be written from their planes, or None
    cdef int _n_threads
    cdef Py_ssize_t _most_levels
    cdef bint _all_planes
    cdef Planes planes

    CODE_DTYPES = _entropy.CODE_DTYPES

    def __cinit__(self, codes, levels, y, Py_ssize_t n_classes, int n_threads=1, binary_planes=None,
                  prepared=None):
        self.codes, self.levels, self.y, self.n_classes = codes, levels, y, n_classes
        self._pending = None
        self._n_threads = n_threads
        if binary_planes is None:
            self._build(codes, levels, y, n_classes, n_threads, None, None)
        else:
            self._build(codes, levels, y, n_classes, n_threads, binary_planes, prepared)
            if prepared.any():
                self._pending = prepared

    def _build(self, const code_t[:, ::1] codes, const int32_t[::1] levels, const int32_t[::1] y,
               Py_ssize_t n_classes, int n_threads, binary_planes, prepared):
        """Lay out and fill the planes.  Without ``binary_planes``, feature j's planes follow
        those of the features before it.  With them (checked by :func:`counting_kernel`), row j
        of the planes is feature j's when it has at most two levels (already filled where
        ``prepared[j]``: its codes row is not read), and the planes of the features of more
        levels follow the n rows."""
        cdef Py_ssize_t n = codes.shape[0]
        cdef Py_ssize_t m = codes.shape[1]
        cdef Py_ssize_t n_words = (m + 63) // 64
        cdef Py_ssize_t j, l, total_planes = 0, total_counts = 0, K = n_classes
        cdef Planes* P = &self.planes
        cdef bint slots = binary_planes is not None
        cdef const uint8_t[::1] ready = (prepared.view(np.uint8) if slots
                                         else np.zeros(n, dtype=np.uint8))
        check_threads(n_threads)
        # feature j's planes start at plane first_plane[j] (-1: none), its counts at first_count[j]
        first_plane = np.empty(n, dtype=np.intp)
        first_count = np.zeros(n, dtype=np.intp)
        cdef Py_ssize_t[::1] fp = first_plane
        cdef Py_ssize_t[::1] fc = first_count
        cdef bint every_feature = True
        if slots:
            total_planes = n
        self._most_levels = 0
        for j in range(n):
            fp[j] = -1
            if not 1 <= levels[j] <= PAIR_LEVELS:
                every_feature = False
            else:
                if slots and levels[j] <= 2:
                    fp[j] = j
                else:
                    fp[j] = total_planes
                    total_planes += levels[j] - 1
                fc[j] = total_counts
                total_counts += levels[j]
                self._most_levels = max(self._most_levels, levels[j])
        if slots and binary_planes.shape[0] == total_planes:
            words = binary_planes  # every plane in its row of plane_rows (the prepared ones written)
        elif slots:
            words = np.empty((total_planes, n_words), dtype=np.uint64)
            words[:n] = binary_planes
        else:
            # every plane is written by _pack_levels before it is read
            words = np.empty((max(total_planes, 1), n_words), dtype=np.uint64)
        class_words = np.zeros((max(K - 1, 1), n_words), dtype=np.uint64)
        class_counts = np.bincount(np.asarray(y), minlength=K).astype(np.int64)
        nlogn = np.zeros(m + 1, dtype=np.float64)
        self._words, self._class_words, self._nlogn = words, class_words, nlogn
        self._first_plane, self._first_count, self._class_counts = first_plane, first_count, class_counts
        # Written by _feature_tables for every feature with planes, and read only for those: not
        # zeroed first (zeroing ~70 bytes per feature is serial work as long as the parallel loop).
        # One allocation for the five (7 MB for 100,000 binary features): NumPy asks the kernel for
        # huge pages for an array of 4 MB or more, and the first touch by the threads then faults
        # in a few 2 MB pages instead of ~1,800 pages of 4 KB (measured: 2,400 faults, ~4 ms of a
        # 9 ms cmim selection on Dorothea-like data).
        cdef Py_ssize_t n_cells = max(total_counts, 1)
        tables_buffer = _huge_page_buffer(n_cells * (1 + K) + 3 * n)
        self._counts = tables_buffer[:n_cells]
        self._class_tables = tables_buffer[n_cells:n_cells * (1 + K)]
        self._entropy_values = tables_buffer[n_cells * (1 + K):n_cells * (1 + K) + n].view(np.float64)
        self._joint_entropy_values = tables_buffer[n_cells * (1 + K) + n:n_cells * (1 + K) + 2 * n].view(np.float64)
        self._relevance_values = tables_buffer[n_cells * (1 + K) + 2 * n:].view(np.float64)
        cdef uint64_t[:, ::1] w_view = words
        cdef uint64_t[:, ::1] cw_view = class_words
        cdef int64_t[::1] cc = class_counts
        cdef double[::1] nl = nlogn
        cdef int64_t[::1] counts = self._counts
        cdef int64_t[::1] tables = self._class_tables
        cdef double[::1] h = self._entropy_values
        cdef double[::1] hc = self._joint_entropy_values
        cdef double[::1] relevance = self._relevance_values
        cdef Py_ssize_t bad_codes = 0
        for l in range(1, m + 1):  # the products n log n of entropy_of_counts (libm's log), one per n
            nl[l] = (<double> l) * log(<double> l)
        if K > 1:
            _pack_levels(&y[0], m, K, n_words, &cw_view[0, 0])
        P.words, P.class_words = &w_view[0, 0], &cw_view[0, 0]
        P.first_plane, P.first_count, P.levels = &fp[0] if n else NULL, &fc[0] if n else NULL, &levels[0] if n else NULL
        P.counts, P.class_tables, P.class_counts = &counts[0], &tables[0], &cc[0]
        P.entropy, P.class_entropy_of = &h[0] if n else NULL, &hc[0] if n else NULL
        P.nlogn, P.m, P.n_words, P.n_classes = &nl[0], m, n_words, K
        P.h_class = _entropy_of_counts(&cc[0], K, m, &nl[0])
        cdef Py_ssize_t block, stop, n_blocks = (n + PLANE_BLOCK - 1) // PLANE_BLOCK
        cdef SignalCheck check
        signal_check_init(&check, 1)
        for block in prange(n_blocks, nogil=True, num_threads=n_threads, schedule='dynamic'):
            if stop_requested(&check):
                continue
            stop = block * PLANE_BLOCK + block_length(block * PLANE_BLOCK, PLANE_BLOCK, n)
            for j in range(block * PLANE_BLOCK, stop):
                if fp[j] < 0:
                    continue
                if not ready[j]:  # (a prepared plane is read as it is)
                    if first_out_of_range(&codes[j, 0], m, levels[j]) >= 0:
                        fp[j] = -1  # left to the byte-code kernels, which report the bad code
                        bad_codes += 1
                        continue
                    if levels[j] > 1:
                        _pack_levels(&codes[j, 0], m, levels[j], n_words, &w_view[0, 0] + fp[j] * n_words)
                _feature_tables(&w_view[0, 0] + fp[j] * n_words, levels[j], P, &counts[fc[j]],
                                &tables[fc[j] * K], &h[j], &hc[j])
                # I(X;C) = H(X) + H(C) - H(X,C), in the order of _entropy's _mutual_information
                relevance[j] = _clip_rounding(h[j] + P.h_class - hc[j])
        raise_if_stopped(&check)
        # every feature has planes (no level count too large, no bad code)
        self._all_planes = every_feature and bad_codes == 0

    def _write_codes(self):
        """Write the codes rows of the features built from prepared planes (once; a no-op
        after, and for a counter built from codes): called before the codes are read."""
        if self._pending is None:
            return
        pending = np.flatnonzero(self._pending)
        self._pending = None
        _unpack_planes(self._words, self._first_plane, self.levels, pending, self.codes, self._n_threads)

    def write_codes(self):
        """Make the codes the counter was built from complete: with prepared bit-planes
        (:func:`counting_kernel` with ``binary_planes``), the rows of the prepared features
        are written from their planes.  Call it before the codes are read other than through
        the counter's methods (which call it themselves when they need the codes)."""
        self._write_codes()

    cdef bint _same(self, codes, levels, y, n_classes):
        return codes is self.codes and levels is self.levels and y is self.y and n_classes == self.n_classes

    def has_planes(self):
        """Boolean array: which features have bit-planes."""
        return np.asarray(self._first_plane) >= 0

    def feature_class_information(self, codes, levels, y, n_classes, out, n_threads=1):
        """:func:`fstools._ext._entropy.feature_class_information`, from the planes' tables."""
        if not (self._same(codes, levels, y, n_classes) and _is_output(out, (codes.shape[0],))):
            self._write_codes()
            return _entropy.feature_class_information(codes, levels, y, n_classes, out, n_threads)
        check_threads(n_threads)
        if self._all_planes:  # I(X;C) of every feature computed with its planes
            out[:] = self._relevance_values
            return
        planes = self.has_planes()
        rest = np.flatnonzero(~planes)
        values = np.empty(rest.size, dtype=np.float64)
        try:  # (the rows without planes: their codes are written)
            _entropy.feature_class_information(np.ascontiguousarray(codes[rest]), levels[rest], y, n_classes,
                                               values, n_threads)
        except ValueError:  # a bad code: reported by the kernel on all the rows (their own numbers)
            self._write_codes()
            return _entropy.feature_class_information(codes, levels, y, n_classes, out, n_threads)
        out[rest] = values
        out[planes] = self._relevance_values[planes]

    def feature_entropies(self, codes, levels, out, n_threads=1):
        """:func:`fstools._ext._entropy.feature_entropies`, from the planes' level counts."""
        if codes is not self.codes or levels is not self.levels or not _is_output(out, (codes.shape[0],)):
            self._write_codes()
            return _entropy.feature_entropies(codes, levels, out, n_threads)
        check_threads(n_threads)
        planes = self.has_planes()
        rest = np.flatnonzero(~planes)
        if rest.size:
            values = np.empty(rest.size, dtype=np.float64)
            try:  # (the rows without planes: their codes are written)
                _entropy.feature_entropies(np.ascontiguousarray(codes[rest]), levels[rest], values, n_threads)
            except ValueError:  # a bad code: reported by the kernel on all the rows (their own numbers)
                self._write_codes()
                return _entropy.feature_entropies(codes, levels, out, n_threads)
            out[rest] = values
        out[planes] = self._entropy_values[planes]

    def lazy_cmim(self, codes, levels, y, n_classes, relevance, k, ranking, scores, tolerance, n_threads=1):
        """:func:`fstools._ext._entropy.lazy_cmim`: on the planes when every pair is counted on
        them (the same loop, ``fstools._ext._lazy``), else by byte codes."""
        n = codes.shape[0]
        if not (self._same(codes, levels, y, n_classes) and self._all_planes
                and _pair_on_planes(self._most_levels, self._most_levels, n_classes)
                and (self._most_levels - 1) * n_classes <= RAW_COUNTS
                and _is_vector(relevance, np.float64, n) and isinstance(k, (int, np.integer))
                and not isinstance(k, bool) and 1 <= k <= n and _is_vector(ranking, np.intp, k)
                and _is_vector(scores, np.float64, k) and isinstance(tolerance, (int, float))
                and tolerance >= 0.0 and isinstance(n_threads, (int, np.integer)) and not isinstance(n_threads, bool)
                and n_threads >= 1):
            # anything unusual: the byte-code kernel, which checks and reports it
            self._write_codes()
            return _entropy.lazy_cmim(codes, levels, y, n_classes, relevance, k, ranking, scores, tolerance,
                                      n_threads)
        check_threads(n_threads)
        if not self._plane_lazy_cmim(relevance, k, ranking, scores, tolerance, n_threads):
            # a value of relevance that is not finite: the byte-code kernel reports it
            self._write_codes()
            return _entropy.lazy_cmim(codes, levels, y, n_classes, relevance, k, ranking, scores, tolerance,
                                      n_threads)

    def _plane_lazy_cmim(self, const double[::1] relevance, Py_ssize_t k, Py_ssize_t[::1] ranking,
                         double[::1] scores, double tolerance, int n_threads):
        """The lazy loop on the planes; False (nothing done) when ``relevance`` is not finite."""
        cdef Py_ssize_t n = relevance.shape[0]
        cdef Py_ssize_t step_words = max((self._most_levels - 1) * self.n_classes, 1) * self.planes.n_words
        cdef Py_ssize_t item_words = ((self._most_levels - 1) * (self._most_levels - 1) * self.n_classes
                                      * self.planes.n_words)
        # for each step but the last, the planes of its pick
        cdef uint64_t[::1] others = np.empty(max(k - 1, 1) * step_words, dtype=np.uint64)
        cdef LazyPlanes data
        data.P, data.others, data.step_words = &self.planes, &others[0], step_words
        cdef bint parallel_items = item_words >= LAZY_PARALLEL_WORDS
        cdef bint parallel_passes = n >= _entropy.LAZY_PARALLEL_CANDIDATES
        cdef Py_ssize_t heap_least = _entropy.LAZY_HEAP_LEAST
        cdef int status
        cdef SignalCheck check
        signal_check_init(&check, LAZY_SIGNAL_EVERY)
        with nogil:
            status = lazy_cmim_loop(&data, _plane_conditional_information, _plane_prepare_step, n, &relevance[0],
                                    k, tolerance, &ranking[0], &scores[0], n_threads, parallel_passes, parallel_items,
                                    heap_least, &check)
        raise_if_stopped(&check)
        if status == OUT_OF_MEMORY:
            raise MemoryError("cannot allocate the arrays of the lazy loop")
        return status != NON_FINITE

    def pair_information_terms(self, codes, levels, y, n_classes, selected, candidates, out, n_threads=1):
        """:func:`fstools._ext._entropy.pair_information_terms`: the pairs with few enough streams
        on the planes, the others by byte codes."""
        self._pairs(codes, levels, y, n_classes, selected, candidates, out, n_threads, False)

    def relevant_independency_terms(self, codes, levels, y, n_classes, selected, candidates, out, n_threads=1):
        """:func:`fstools._ext._entropy.relevant_independency_terms`, as :meth:`pair_information_terms`."""
        self._pairs(codes, levels, y, n_classes, selected, candidates, out, n_threads, True)

    def accumulate_pair_terms(self, codes, levels, y, n_classes, selected, active, running, term, weight=1.0,
                              minimum=False, n_threads=1):
        """:func:`fstools._ext._entropy.accumulate_pair_terms`: the pairs with few enough streams
        on the planes, the others by byte codes."""
        n = codes.shape[0]
        if not (self._same(codes, levels, y, n_classes) and isinstance(selected, (int, np.integer))
                and 0 <= selected < n and self._first_plane[selected] >= 0
                and (term == 0 or (int(levels[selected]) - 1) * n_classes <= RAW_COUNTS)
                and isinstance(active, np.ndarray) and active.dtype == np.uint8 and active.shape == (n,)
                and active.flags.c_contiguous and _is_output(running, (n,))
                and not isinstance(term, bool) and isinstance(term, (int, np.integer)) and 0 <= term <= 3):
            # anything unusual: the byte-code kernel, which checks and reports it
            self._write_codes()
            return _entropy.accumulate_pair_terms(codes, levels, y, n_classes, selected, active, running, term,
                                                  weight, minimum, n_threads)
        check_threads(n_threads)
        selected_levels = int(levels[selected])
        on_planes = active
        pair_classes = 1 if term == 0 else n_classes  # (term 0, I(X_a;X_b): the pair's table alone)
        if not (self._all_planes and _pair_on_planes(self._most_levels, selected_levels, pair_classes)):
            eligible = (self._first_plane >= 0) & _pair_on_planes(levels.astype(np.intp), selected_levels,
                                                                  pair_classes)
            rest = (active != 0) & ~eligible
            if rest.any():
                self._write_codes()
                _entropy.accumulate_pair_terms(codes, levels, y, n_classes, selected, rest.view(np.uint8), running,
                                               term, weight, minimum, n_threads)
            on_planes = ((active != 0) & eligible).view(np.uint8)
        self._plane_accumulate(selected, on_planes, running, term, weight, minimum, n_threads)

    def _plane_accumulate(self, Py_ssize_t selected, const uint8_t[::1] active, double[::1] running, int term,
                          double weight, bint minimum, int n_threads):
        """:meth:`accumulate_pair_terms` on the planes, for the features flagged in ``active``."""
        cdef Planes* P = &self.planes
        cdef Py_ssize_t n = active.shape[0]
        cdef Py_ssize_t j, block, stop, n_blocks = (n + PLANE_BLOCK - 1) // PLANE_BLOCK
        cdef uint64_t[:, ::1] others
        cdef const uint64_t* others_words = NULL  # term 0 needs no class planes (_pair_information)
        cdef SignalCheck check
        if term != 0:
            others = self._selected_planes(selected)
            others_words = &others[0, 0]
        signal_check_init(&check, 1)
        for block in prange(n_blocks, nogil=True, num_threads=n_threads, schedule='dynamic'):
            if stop_requested(&check):
                continue
            stop = block * PLANE_BLOCK + block_length(block * PLANE_BLOCK, PLANE_BLOCK, n)
            for j in range(block * PLANE_BLOCK, stop):
                if active[j]:
                    _accumulate_on_planes(P, j, selected, others_words, term, weight, minimum, &running[j])
        raise_if_stopped(&check)

    def _pairs(self, codes, levels, y, n_classes, selected, candidates, out, n_threads, bint relevant_independency):
        byte_kernel = (_entropy.relevant_independency_terms if relevant_independency
                       else _entropy.pair_information_terms)
        width = 1 if relevant_independency else 4
        if not (self._same(codes, levels, y, n_classes) and isinstance(selected, (int, np.integer))
                and 0 <= selected < codes.shape[0] and self._first_plane[selected] >= 0
                and isinstance(candidates, np.ndarray) and candidates.dtype == np.intp and candidates.ndim == 1
                and _is_output(out, (candidates.shape[0],) if relevant_independency else (candidates.shape[0], 4))
                and (candidates.size == 0 or (candidates.min() >= 0 and candidates.max() < codes.shape[0]))):
            # anything unusual: the byte-code kernel, which checks and reports it
            self._write_codes()
            return byte_kernel(codes, levels, y, n_classes, selected, candidates, out, n_threads)
        check_threads(n_threads)
        candidate_levels = levels[candidates].astype(np.intp)
        selected_levels = int(levels[selected])
        on_planes = (self._first_plane[candidates] >= 0) & _pair_on_planes(candidate_levels, selected_levels,
                                                                            n_classes)
        if (selected_levels - 1) * n_classes > RAW_COUNTS or not on_planes.any():
            self._write_codes()
            return byte_kernel(codes, levels, y, n_classes, selected, candidates, out, n_threads)
        rows = out.reshape(candidates.shape[0], width)
        if on_planes.all():
            self._plane_pairs(selected, candidates, None, rows, n_threads, relevant_independency)
            return
        rest = np.flatnonzero(~on_planes)
        values = np.empty((rest.size,) + out.shape[1:], dtype=np.float64)
        try:
            self._write_codes()
            byte_kernel(codes, levels, y, n_classes, selected, np.ascontiguousarray(candidates[rest]), values,
                        n_threads)
        except ValueError:  # a bad code: reported by the kernel on all the candidates (their own numbers)
            self._write_codes()
            return byte_kernel(codes, levels, y, n_classes, selected, candidates, out, n_threads)
        out[rest] = values
        self._plane_pairs(selected, candidates, np.flatnonzero(on_planes), rows, n_threads, relevant_independency)

    def _selected_planes(self, Py_ssize_t selected):
        """The planes of ``selected`` that ``_pair_terms`` ANDs with a candidate's (``_fill_selected_planes``)."""
        others_array = np.zeros((max((self.planes.levels[selected] - 1) * self.planes.n_classes, 1),
                                 self.planes.n_words), dtype=np.uint64)
        cdef uint64_t[:, ::1] others = others_array
        _fill_selected_planes(&self.planes, selected, &others[0, 0])
        return others_array

    def _plane_pairs(self, Py_ssize_t selected, const Py_ssize_t[::1] candidates, positions,
                     double[:, ::1] out, int n_threads, bint relevant_independency):
        """Pair terms on the planes of ``candidates[p]`` into ``out[p]``, for every ``p`` of
        ``positions`` (an intp array; None: all)."""
        cdef Planes* P = &self.planes
        cdef Py_ssize_t i, p
        cdef const Py_ssize_t[::1] where = (np.arange(candidates.shape[0], dtype=np.intp) if positions is None
                                            else positions)
        cdef Py_ssize_t n_pairs = where.shape[0]
        if n_pairs == 0:
            return
        cdef uint64_t[:, ::1] others = self._selected_planes(selected)
        cdef Py_ssize_t block, stop, n_blocks = (n_pairs + PLANE_BLOCK - 1) // PLANE_BLOCK
        cdef SignalCheck check
        signal_check_init(&check, 1)
        for block in prange(n_blocks, nogil=True, num_threads=n_threads, schedule='dynamic'):
            if stop_requested(&check):
                continue
            stop = (block + 1) * PLANE_BLOCK
            if stop > n_pairs:
                stop = n_pairs
            for i in range(block * PLANE_BLOCK, stop):
                p = where[i]
                _pair_terms(P, candidates[p], selected, &others[0, 0], relevant_independency, &out[p, 0])
        raise_if_stopped(&check)


#: Bytes of a huge page (x86-64; elsewhere the alignment is merely unneeded).
HUGE_PAGE_BYTES = 1 << 21


def _huge_page_buffer(n_values):
    """An uninitialised int64 array of ``n_values`` starting on a 2 MB boundary when it is 4 MB
    or more: NumPy asks the kernel for huge pages for such an array (``madvise``), and the whole
    of an aligned array can then be backed by them (its first touch faults in a page per 2 MB
    instead of one per 4 KB).  The 4 MB allocated beyond it are address space, never touched."""
    if n_values * 8 < 2 * HUGE_PAGE_BYTES:
        return np.empty(n_values, dtype=np.int64)
    pad = 2 * HUGE_PAGE_BYTES // 8
    raw = np.empty(n_values + pad, dtype=np.int64)
    skip = (-raw.ctypes.data % HUGE_PAGE_BYTES) // 8
    return raw[skip:skip + n_values]


def _is_vector(value, dtype, length):
    """True when ``value`` is a writeable C-contiguous 1-D array of ``dtype`` and ``length``."""
    return (isinstance(value, np.ndarray) and value.dtype == dtype and value.shape == (length,)
            and value.flags.c_contiguous and value.flags.writeable)


def _is_output(out, shape):
    """True when ``out`` is a writeable C-contiguous float64 array of ``shape`` (the kernels' outputs)."""
    return (isinstance(out, np.ndarray) and out.dtype == np.float64 and out.shape == shape
            and out.flags.c_contiguous and out.flags.writeable)


cdef void _unpack_plane(const uint64_t* plane, Py_ssize_t m, int8_t* out) noexcept nogil:
    """``out[i]`` = bit ``i % 64`` of word ``i // 64`` of ``plane`` (the codes of a binary feature)."""
    cdef Py_ssize_t i
    for i in range(m):
        out[i] = <int8_t> ((plane[i >> 6] >> (i & 63)) & 1)


cdef void _unpack_levels(const uint64_t* planes, Py_ssize_t n_levels, Py_ssize_t n_words, Py_ssize_t m,
                         int8_t* out) noexcept nogil:
    """``out[i]`` = the level ``l`` whose plane ``l - 1`` has bit ``i`` set, else 0 (the codes of a
    feature of ``n_levels`` levels from its planes, :func:`_pack_levels` undone)."""
    cdef Py_ssize_t i, l
    if n_levels <= 2:
        _unpack_plane(planes, m, out)
        return
    memset(out, 0, m)
    for l in range(1, n_levels):
        for i in range(m):
            if (planes[(l - 1) * n_words + (i >> 6)] >> (i & 63)) & 1:
                out[i] = <int8_t> l


def _unpack_planes(const uint64_t[:, ::1] planes, const Py_ssize_t[::1] first_plane, const int32_t[::1] levels,
                   const Py_ssize_t[::1] rows, int8_t[:, ::1] codes, int n_threads=1):
    """``codes[j]`` from feature ``j``'s planes (``levels[j] - 1`` rows of ``planes`` from
    ``first_plane[j]``) for every ``j`` in ``rows``."""
    cdef Py_ssize_t r, j, n_rows = rows.shape[0], m = codes.shape[1], n_words = planes.shape[1]
    if n_rows == 0 or m == 0:
        return
    check_threads(n_threads)
    for r in prange(n_rows, nogil=True, num_threads=n_threads, schedule='dynamic', chunksize=16):
        j = rows[r]
        _unpack_levels(&planes[first_plane[j], 0], levels[j], n_words, m, &codes[j, 0])


def plane_rows(levels):
    """The rows of a feature's bit-planes in the layout of prepared planes: ``(first_plane,
    n_rows)``.

    Row ``j`` is feature ``j``'s plane when it has one or two levels (so that the kernel that
    finds the binary columns writes it there, :func:`fstools._ext._entropy.discrete_column_codes`);
    the ``L - 1`` planes of a feature of ``L`` = 3 .. :data:`MAX_PLANE_LEVELS` levels follow the
    ``n`` rows, in feature order; ``first_plane[j]`` is -1 for a feature of more levels (no planes).
    :class:`PlaneCounter` lays its planes out so when it is given prepared ones.
    """
    levels = np.asarray(levels)
    n = levels.shape[0]
    first_plane = np.full(n, -1, dtype=np.intp)
    small = (levels >= 1) & (levels <= 2)
    first_plane[small] = np.flatnonzero(small)
    wide = (levels > 2) & (levels <= PAIR_LEVELS)
    sizes = levels[wide].astype(np.intp) - 1
    first_plane[wide] = n + np.cumsum(sizes) - sizes
    return first_plane, n + int(sizes.sum())


def single_level_features(const uint64_t[:, ::1] planes, const Py_ssize_t[::1] first_plane,
                          const int32_t[::1] levels, Py_ssize_t m, const Py_ssize_t[::1] rows):
    """For each feature ``j`` in ``rows``: whether its ``m`` codes are all one level, read from its
    planes (layout of :func:`plane_rows`): a level ``l >= 1`` whose plane has all ``m`` bits set,
    or level 0 when no plane has a bit set."""
    cdef Py_ssize_t r, j, l, n_words = planes.shape[1]
    cdef int64_t count, total
    single = np.zeros(rows.shape[0], dtype=bool)
    cdef uint8_t[::1] out = single.view(np.uint8)
    for r in range(rows.shape[0]):
        j = rows[r]
        if not (0 <= j < levels.shape[0] and first_plane[j] >= 0
                and first_plane[j] + max(levels[j] - 1, 0) <= planes.shape[0]):
            raise ValueError(f"rows: feature {j} has no planes")
        total = 0
        for l in range(1, levels[j]):
            count = 0
            AND_COUNTS(&planes[first_plane[j] + l - 1, 0], &planes[first_plane[j] + l - 1, 0], 1, n_words, &count)
            total += count
            if count == m:
                out[r] = 1
        if total == 0:
            out[r] = 1
    return single


def pack_planes(const int8_t[:, ::1] codes, const Py_ssize_t[::1] features, const int32_t[::1] levels,
                const Py_ssize_t[::1] first_plane, uint64_t[:, ::1] planes, int n_threads=1):
    """Write the bit-planes of the codes rows ``codes[r]`` as those of feature ``features[r]``:
    its ``levels[f] - 1`` planes at rows ``first_plane[f] ..`` of ``planes`` (the layout of
    :func:`plane_rows`).  ValueError for a code outside ``0 .. levels[f] - 1``; the planes of
    features of one level (none) are left as they are."""
    cdef Py_ssize_t r, f, n_rows = features.shape[0], m = codes.shape[1], n_words = planes.shape[1]
    cdef Py_ssize_t bad = -1
    if codes.shape[0] < n_rows:
        raise ValueError(f"codes: has {codes.shape[0]} rows for {n_rows} features")
    if n_words != (m + 63) // 64:
        raise ValueError(f"planes: must have {(m + 63) // 64} words per plane for {m} codes; got {n_words}")
    for r in range(n_rows):
        f = features[r]
        if not (0 <= f < levels.shape[0] and 1 <= levels[f] <= PAIR_LEVELS and 0 <= first_plane[f]
                and first_plane[f] + levels[f] - 1 <= planes.shape[0]):
            raise ValueError(f"features: feature {f} has no room for planes (levels {levels[f] if 0 <= f < levels.shape[0] else '?'})")
    check_threads(n_threads)
    for r in prange(n_rows, nogil=True, num_threads=n_threads, schedule='dynamic', chunksize=1):
        f = features[r]
        if first_out_of_range(&codes[r, 0], m, levels[f]) >= 0:
            bad = r
        elif levels[f] > 1:
            _pack_levels(&codes[r, 0], m, levels[f], n_words, &planes[first_plane[f], 0])
    if bad >= 0:
        raise ValueError(f"codes: row {bad} holds a code outside 0 .. {levels[features[bad]] - 1}")


def counting_kernel(codes, levels, y, n_classes, n_threads=1, binary_planes=None, prepared=None, pairs_without_class=False):
    """The counting kernels for these codes: bit-planes where they pay, else byte codes.

    Returns a :class:`PlaneCounter` when some feature has at most
    :data:`MAX_PLANE_LEVELS` levels and a pair of two such features would be
    counted on planes (its number of streams at most :data:`MAX_STREAMS`), and
    the module :mod:`fstools._ext._entropy` otherwise.  Either has the methods
    ``feature_class_information``, ``feature_entropies``,
    ``pair_information_terms``, ``relevant_independency_terms``,
    ``accumulate_pair_terms`` and ``lazy_cmim`` of :mod:`fstools._ext._entropy`,
    with the same results (bitwise).  Build it once for a selection: the
    relevance and every greedy step then read the same planes.

    Parameters
    ----------
    codes : ndarray of int8, int16 or int32, shape (n_features, m), C-contiguous
        Feature-major codes in ``0 .. levels[j]-1``.
    levels : ndarray of int32, shape (n_features,)
    y : ndarray of int32, shape (m,)
        Class codes in ``0 .. n_classes-1``.
    n_classes : int
    n_threads : int, default 1
        Threads of the planes' construction (OpenMP over the features).
    binary_planes : ndarray of uint64, shape (n_features or n_rows, ceil(m / 64)), C-contiguous, optional
        Bit-planes already built (by :func:`fstools.core.discretize.information_codes_with_planes`)
        for the features where ``prepared[j]``, whose codes rows (int8 ``codes``) have not been
        written, in the rows of :func:`plane_rows`: ``n_features`` rows (binary features only,
        row ``j`` the plane of code 1 of feature ``j``) or all ``n_rows`` of the layout.  The
        counter takes the array over (all ``n_rows``) and counts on those planes as they are;
        the missing codes rows are written from them when something reads the codes (a
        byte-code kernel, :meth:`PlaneCounter.write_codes`), and before this function returns
        the byte-code module.
    prepared : ndarray of bool, shape (n_features,), optional
        With ``binary_planes``: the features whose planes are there (of at most two levels
        with ``n_features`` rows, of at most :data:`MAX_PLANE_LEVELS` otherwise).
    pairs_without_class : bool, default False
        The caller counts pairs for I(X_a;X_b) only (term 0 of ``accumulate_pair_terms``: mifs,
        mifs_u, mrmr), whose ``(La - 1) (Lb - 1)`` streams do not grow with the classes: the
        planes are chosen on that number (:func:`pairs_on_planes`).
    """
    if binary_planes is not None:
        _check_prepared(codes, levels, binary_planes, prepared)
        if (isinstance(y, np.ndarray) and y.dtype == np.int32 and y.shape == codes.shape[1:]
                and y.flags.c_contiguous and levels.flags.c_contiguous and 1 <= n_classes and codes.shape[1] > 0
                and levels.size and y.min() >= 0 and y.max() < n_classes
                and (int(levels.min()) - 1) ** 2 * (1 if pairs_without_class else n_classes) <= MAX_STREAMS):
            return PlaneCounter(codes, levels, y, int(n_classes), n_threads, binary_planes,
                                np.ascontiguousarray(prepared))
        # the byte-code kernels: they read every codes row
        _unpack_planes(binary_planes, plane_rows(levels)[0], levels, np.flatnonzero(prepared), codes, n_threads)
        return _entropy
    if (not isinstance(codes, np.ndarray) or codes.dtype not in _entropy.CODE_DTYPES or codes.ndim != 2
            or not codes.flags.c_contiguous or codes.shape[1] == 0
            or not isinstance(levels, np.ndarray) or levels.dtype != np.int32 or levels.shape != codes.shape[:1]
            or not isinstance(y, np.ndarray) or y.dtype != np.int32 or y.shape != codes.shape[1:]
            or not y.flags.c_contiguous or not levels.flags.c_contiguous or not 1 <= n_classes):
        return _entropy
    if y.min() < 0 or y.max() >= n_classes or levels.size == 0:
        return _entropy
    smallest = int(levels.min())
    if smallest > PAIR_LEVELS or (smallest - 1) ** 2 * (1 if pairs_without_class else n_classes) > MAX_STREAMS:
        return _entropy
    return PlaneCounter(codes, levels, y, int(n_classes), n_threads)


def pairs_on_planes(levels, n_classes, pairs_without_class=False):
    """Whether :func:`counting_kernel` counts the pairs of two features of ``levels`` levels on
    bit-planes, for ``n_classes`` classes (``pairs_without_class``: I(X_a;X_b) only)."""
    return bool(_pair_on_planes(levels, levels, 1 if pairs_without_class else n_classes))


def _check_prepared(codes, levels, binary_planes, prepared):
    """The arguments of :func:`counting_kernel` with prepared planes: a ValueError or TypeError
    naming the argument otherwise."""
    if (not isinstance(codes, np.ndarray) or codes.dtype != np.int8 or codes.ndim != 2
            or not codes.flags.c_contiguous or not codes.flags.writeable):
        raise TypeError("codes: with binary_planes, must be a writeable C-contiguous 2-D array of int8")
    n, m = codes.shape
    if (not isinstance(levels, np.ndarray) or levels.dtype != np.int32 or levels.shape != (n,)):
        raise TypeError(f"levels: must be an int32 array of shape ({n},)")
    n_words = (m + 63) // 64
    n_rows = plane_rows(levels)[1]
    if (not isinstance(binary_planes, np.ndarray) or binary_planes.dtype != np.uint64 or binary_planes.ndim != 2
            or binary_planes.shape[0] not in (n, n_rows) or binary_planes.shape[1] != n_words
            or not binary_planes.flags.c_contiguous):
        raise ValueError(f"binary_planes: must be a C-contiguous uint64 array of shape ({n}, {n_words}), or "
                         f"({n_rows}, {n_words}) with the planes of features of more levels (plane_rows)")
    if (not isinstance(prepared, np.ndarray) or prepared.dtype != np.bool_ or prepared.shape != (n,)):
        raise ValueError(f"prepared: must be a bool array of shape ({n},) with binary_planes")
    most = 2 if binary_planes.shape[0] == n else PAIR_LEVELS
    if np.any(prepared & ((levels < 1) | (levels > most))):
        raise ValueError(f"prepared: a feature with prepared planes must have 1 .. {most} levels")


def _and_counts(a, others, bint portable=False):
    """``sum_w popcount(a[w] & others[p, w])`` for each row ``p`` (a test of the popcount loops;
    ``portable``: the bit-twiddling count instead of the hardware one)."""
    cdef const uint64_t[::1] a_view = np.ascontiguousarray(a, dtype=np.uint64)
    cdef const uint64_t[:, ::1] o_view = np.ascontiguousarray(others, dtype=np.uint64)
    if o_view.shape[1] != a_view.shape[0]:
        raise ValueError("others: must have one column per word of a")
    counts = np.zeros(o_view.shape[0], dtype=np.int64)
    cdef int64_t[::1] c_view = counts
    if o_view.shape[0] and a_view.shape[0]:
        if portable:
            and_counts_portable(&a_view[0], &o_view[0, 0], o_view.shape[0], a_view.shape[0], &c_view[0])
        else:
            AND_COUNTS(&a_view[0], &o_view[0, 0], o_view.shape[0], a_view.shape[0], &c_view[0])
    return counts

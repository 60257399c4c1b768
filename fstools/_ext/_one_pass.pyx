# cython: language_level=3
"""One read of a float64 matrix: per-class column moments and the checks of its values.

For a float64 matrix ``X`` (n_samples x n_features, any layout), class codes ``y`` in
``0 .. n_classes-1`` and optionally a response ``r`` (one float64 per sample),
:func:`column_moments` reads every value of ``X`` once and returns, for every feature
``f`` and class ``c``:

* ``counts[c]`` -- the class size ``n_c`` (shared by all features);
* ``low[f, c]``, ``high[f, c]`` -- the smallest and largest value of the class (exact, unscaled);
* ``exponent[f]`` -- the exponent ``e`` of ``frexp`` of the column's largest absolute value
  (at least ``EXPONENT_FLOOR``), the one of :func:`fstools.core.arrays.scaled_to_unit`;
* ``sums[f, c]`` -- the sum of the class's values times ``2^-e`` (all of them at most 1 in
  magnitude, so no sum overflows);
* ``squares[f, c]`` -- the sum of squared deviations of the scaled values about their class
  mean, ``sum_i (x_if 2^-e - mean_fc)^2`` (no square overflows or underflows on the scaled
  values); exactly 0 for a class with a single value (``low == high``, exact) and for an
  empty class;
* ``cross[f, c]`` (with a response) -- the co-moment ``sum_i (x_if 2^-e - mean_fc)(r_i - rmean_c)``;
* ``nonfinite[f]`` -- 1 when the column holds NaN or an infinity (its other outputs are then
  meaningless), else 0.

These are the sufficient statistics of the Fisher score (Gu, Li and Han 2011, Eq. 1), of the
one-way ANOVA F (Fisher 1925), of the chi-square statistic of scikit-learn's ``chi2`` (the
class sums), of Pearson's r (Pearson 1896; one class and the response) and of the checks of a
design (non-finite and constant columns, the largest absolute value).

How one read suffices
---------------------
The rows are cut into fixed chunks of ``CHUNK_ROWS`` rows, each into blocks of ``BLOCK_ROWS``
rows; the columns into even panels of at most ``PANEL_WIDTH`` adjacent columns.  A block is read
from memory once and then swept in the cache, a panel at a time: straight from ``X`` when its
columns are contiguous (C order: the work item goes through all its panels of a block before
the next block, so that whole rows are read, once), else from a C-ordered copy of the block's
panel, the tile (at most 112 KB; each column's run contiguous in Fortran order; with AVX2,
8 columns at a time, two 4 x 4 blocks transposed in registers; the tile's rows start on cache
lines).  With AVX2, and
at least 16 rows of the block per class on average, the sweeps go by class: the rows of one
class in order, a chunk of 16 columns at a time (the last chunk up to 20, its last vector
masked), the class's moments of the chunk held in registers down the rows.  Otherwise they go
a row at a time, all the panel's columns at a time (the loops over the columns vectorise),
each row adding to its class's moments in memory.  Every moment takes the same operations in
the same order of rows either way: the same bits.  The sweeps:

1. the class minima and maxima (exact) and the class sums of the values times ``2^-E``, where
   ``E`` is the largest exponent seen so far in the chunk; when the block's largest ``|x|`` has
   a larger exponent, the chunk's sums and squares so far are rescaled by the power of two
   (exact, except for contributions that fall below the smallest normal double) and the
   block's sums taken again.  Non-finite values need no test of their own: an infinity shows
   as an infinite extreme, a NaN as a NaN sum (at a scale where no finite value overflows);
2. the squared deviations (and co-moments) about the block's class means (two passes over
   the block in the cache: the deviations are those of a stable two-pass algorithm);
3. the block is merged into the chunk's running (count, sum, squares) of each class by the
   update of Chan, Golub and LeVeque (1979): ``M2 = M2_a + M2_b + d^2 n_a n_b / n`` with
   ``d`` the difference of the two means (and ``C = C_a + C_b + d_x d_r n_a n_b / n``).

While a block is swept, the sweeps ask for the next block's lines (``fstools_prefetch``, a hint
with no effect on the results), spread evenly over their rows: every column's run of a
column-major panel (too many streams for the hardware's own read-ahead), so that the copy of
the next block reads the cache, not memory; every row's run of a row-major one (which the
sweeps by class read out of order).  Where a block of a work item's rows read in place is
over ``AHEAD_BLOCK_BYTES`` (1 MB: 500 columns), it and the next overflow the second-level
cache, and a panel's sweeps ask for the next panel instead (ns a value, C order, whole rows,
the next block / the next panel: 130 columns 1.12 / 1.49, 400 columns 1.21 / 1.33, 500
columns 1.57 / 1.50, 1,000 columns 2.37 / 1.64, 2,000 columns 3.75 / 1.88).
Kernel alone, 1,000,000 x 50, two classes, one thread:
C order 56 -> 47 ms with the sweeps by class and their read-ahead, Fortran order 66-70 -> 58
ms (Fortran / C 1.35 with the copy's own read-ahead, 1.28 with the sweeps', 1.27 with the
AVX2 copy too, 1.22-1.24 with the tile's rows on cache lines too, 1.23-1.26 with the sweeps by
class, which gain more where there is no copy).  Wider, ns a value (26 million values), before
and after the sweeps by class, their read-ahead and the panels as above: 130 columns, C
2.1-2.3 -> 0.95-1.01, Fortran 1.67 -> 1.16-1.21; 1,000 columns, C 2.7 -> 1.14-1.22, Fortran
1.6 -> 1.14-1.16 (in C order the panels used to be separate work items: each read its pieces
of the rows, a strided pattern the hardware reads ahead badly).

Threads
-------
A work item is one stripe of panels of one chunk (``prange``, dynamic schedule): one panel
where the blocks are copied, else all the panels of a group of columns (whole rows), or fewer
where the chunks are too few to give each of several threads two work items.  Each writes the
chunk's partial moments of its columns.  The chunks of a column are then merged in chunk order
(after rescaling to the column's largest exponent), one column per ``prange`` iteration.  The
chunks depend only on the number of rows (the stripes on the layout and on ``n_threads`` too),
and every column's arithmetic only on its own values and the chunks: the results are bitwise
the same for any ``n_threads``, for C or Fortran order, and for any block of columns of ``X``
passed on its own (and for either kind of sweeps; in a column holding NaN or an infinity, whose
outputs are not used, the sign and payload of a NaN sum may differ, as the compiler may swap
the operands of an addition).  Memory: per thread ``BLOCK_ROWS x PANEL_WIDTH`` doubles of tile
(where the blocks are copied) and ``6 n_classes x PANEL_WIDTH`` doubles of block moments;
the partial moments of the chunks, at most ``STATE_BYTES`` (the columns are taken in groups that fit).
Ctrl-C stops the loop between work items.

Bounds checking and wraparound are switched off by ``setup.py`` (and on again with
``FSTOOLS_BOUNDSCHECK=1``).
"""
import numpy as np

cimport numpy as cnp
from cython.parallel cimport parallel, prange
from libc.math cimport INFINITY, fabs, frexp, ldexp, isfinite
from libc.stdint cimport int32_t, int64_t, uint8_t, uintptr_t
from libc.stdlib cimport free, malloc

from fstools._ext._common cimport (OK, OUT_OF_MEMORY, block_length, check_at_least_one, check_double_strides,
                                   check_length, check_threads, check_class_codes, max_status, SignalCheck,
                                   signal_check_init, stop_requested, raise_if_stopped)

cnp.import_array()

#: Rows of a block swept in the cache (and of the tile, the C-ordered copy of a block of a
#: column-major panel).
BLOCK_ROWS = 256
#: Rows of a chunk, the unit of work of a thread (a multiple of BLOCK_ROWS).
CHUNK_ROWS = 32768
#: Adjacent columns swept together (at most): a copied block (Fortran order, strided views),
#: the tile (BLOCK_ROWS x 56 doubles, 112 KB), its runs and the next block's share the
#: second-level cache (406,250 x 64 in Fortran order: 1.55 ns a value in panels of 64 columns,
#: 1.21 in two of 32); the sweeps by class hold a class's moments of 16 columns in registers.
PANEL_WIDTH = 56
#: Bytes of a block of a work item's rows read in place (C order) above which the sweeps ask
#: for the next panel rather than the next block: such a block and the next overflow the
#: second-level cache.
AHEAD_BLOCK_BYTES = 1 << 20
#: Cells (classes x columns) of a panel's block moments: with many classes the panels are narrower.
PANEL_CELLS = 8192
#: Bytes of the chunks' partial moments held at a time (the columns are taken in groups that fit).
STATE_BYTES = 1 << 25
#: The smallest scaling exponent: a column whose largest |x| is below 2^-1000 is multiplied by
#: 2^1000 only (a power of two, exact; its squares cannot underflow either).
EXPONENT_FLOOR = -1000

cdef enum:
    _BLOCK_ROWS = 256
    _CLASS_ROWS = 16   # rows per class (on average) for the sweeps by class
    _FEW_CLASSES = 4   # classes counted a pass per class (_few_classes)
    _CHUNK_ROWS = 32768
    _FLOOR = -1000
assert (_BLOCK_ROWS, _CHUNK_ROWS, _FLOOR) == (BLOCK_ROWS, CHUNK_ROWS, EXPONENT_FLOOR)
assert _CHUNK_ROWS % _BLOCK_ROWS == 0


cdef extern from *:
    """
    #include <stdint.h>
    /* The sweeps over a block of `rows` rows of `width` adjacent columns (value (i, j) at
       tile[i * row_stride + j]); the class of row i is codes[i], and the per-class arrays hold
       entry (c, j) at c * width + j.  In C for the restrict qualifiers: the loops over the
       columns vectorise (the same IEEE operations per column, whatever the vector width). */
    /* tile[i * tile_stride + j] = first[i * row_stride + j * column_stride]: the C-ordered copy of a panel,
       eight columns at a time (eight contiguous reads in Fortran order, a line written per row);
       with SSE2 and contiguous columns, 2 x 2 blocks are transposed in registers (half the
       stores).  A copy: the values are the same bits whichever way. */
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    /* The next block of a panel, asked for while a block is swept: `runs` runs of `run_lines`
       lines of 64 bytes, `run_stride` doubles apart (a column's run in Fortran order, a row's
       in C order, or one run when the block's rows are contiguous), the lines spread evenly
       over the `span` calls of the block's sweeps (a few at each row: all at once would stall
       the sweeps).  A run may end with a line past the panel's
       values, which is asked for too (a hint: the line is never read). */
    typedef struct {
        Py_ssize_t run_stride;       /* doubles from a run to the next */
        Py_ssize_t run_lines;        /* lines of a run */
        Py_ssize_t lines;            /* lines of all runs */
        Py_ssize_t span;             /* the calls of fstools_one_pass_ask during the block */
        Py_ssize_t credit;           /* lines x calls so far - lines asked for x span */
        const double* run;           /* the run of the next line to ask for; NULL: nothing to ask for */
        Py_ssize_t line;             /* its line in the run */
        Py_ssize_t asked;            /* lines asked for so far (all of them once span calls are made) */
    } fstools_one_pass_ahead;
    static inline void fstools_one_pass_ask(fstools_one_pass_ahead* ahead)
    {
        if (ahead->run == NULL)
            return;
        ahead->credit += ahead->lines;
        while (ahead->credit >= ahead->span) {
            fstools_prefetch(ahead->run + 8 * ahead->line);
            ahead->asked += 1;
            ahead->line += 1;
            if (ahead->line == ahead->run_lines) {
                ahead->line = 0;
                ahead->run += ahead->run_stride;
            }
            ahead->credit -= ahead->span;
        }
    }
    /* The columns of the next chunk of a sweep by class, of `left` columns left: 16 while more
       than 20 are left, then all of them. */
    static inline Py_ssize_t fstools_one_pass_chunk_width(Py_ssize_t left)
    {
        return left > 20 ? 16 : left;
    }
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    #define FSTOOLS_ONE_PASS_AVX2 1
    #include <immintrin.h>
    /* A 4 x 4 block transposed in registers: rows i .. i + 3 of four columns (the first at
       `column`) to four rows of the tile (the first at `row`). */
    __attribute__((target("avx2"), always_inline))
    static inline void fstools_one_pass_transpose_4x4(const double* restrict column, Py_ssize_t column_stride,
                                                      double* restrict row, Py_ssize_t tile_stride)
    {
        const __m256d a0 = _mm256_loadu_pd(column);   /* c0[i .. i + 3] */
        const __m256d a1 = _mm256_loadu_pd(column + column_stride);
        const __m256d a2 = _mm256_loadu_pd(column + 2 * column_stride);
        const __m256d a3 = _mm256_loadu_pd(column + 3 * column_stride);
        const __m256d u0 = _mm256_unpacklo_pd(a0, a1);   /* c0[i], c1[i], c0[i + 2], c1[i + 2] */
        const __m256d u1 = _mm256_unpackhi_pd(a0, a1);   /* c0[i + 1], c1[i + 1], c0[i + 3], c1[i + 3] */
        const __m256d u2 = _mm256_unpacklo_pd(a2, a3);
        const __m256d u3 = _mm256_unpackhi_pd(a2, a3);
        _mm256_storeu_pd(row, _mm256_permute2f128_pd(u0, u2, 0x20));
        _mm256_storeu_pd(row + tile_stride, _mm256_permute2f128_pd(u1, u3, 0x20));
        _mm256_storeu_pd(row + 2 * tile_stride, _mm256_permute2f128_pd(u0, u2, 0x31));
        _mm256_storeu_pd(row + 3 * tile_stride, _mm256_permute2f128_pd(u1, u3, 0x31));
    }
    /* Contiguous columns (row_stride 1), eight at a time: two 4 x 4 blocks side by side, so that
       each row of the tile gets a whole line of 64 bytes at once (1,000,000 x 50 in Fortran
       order: the kernel 3 ms faster than with four columns at a time, about 0.25 ns a value
       above C order, a plain copy's cost); then four, two (2 x 2 blocks) and one. */
    __attribute__((target("avx2")))
    static void fstools_one_pass_transpose_avx2(const double* restrict first, Py_ssize_t column_stride,
                                                Py_ssize_t rows, Py_ssize_t width, double* restrict tile,
                                                Py_ssize_t tile_stride)
    {
        Py_ssize_t i, j, q;
        for (j = 0; j + 8 <= width; j += 8) {
            const double* restrict c0 = first + j * column_stride;
            const double* restrict c4 = c0 + 4 * column_stride;
            for (i = 0; i + 4 <= rows; i += 4) {
                fstools_one_pass_transpose_4x4(c0 + i, column_stride, tile + i * tile_stride + j, tile_stride);
                fstools_one_pass_transpose_4x4(c4 + i, column_stride, tile + i * tile_stride + j + 4, tile_stride);
            }
            for (; i < rows; ++i)
                for (q = 0; q < 8; ++q)
                    tile[i * tile_stride + j + q] = c0[q * column_stride + i];
        }
        for (; j + 4 <= width; j += 4) {
            const double* restrict c0 = first + j * column_stride;
            for (i = 0; i + 4 <= rows; i += 4)
                fstools_one_pass_transpose_4x4(c0 + i, column_stride, tile + i * tile_stride + j, tile_stride);
            for (; i < rows; ++i)
                for (q = 0; q < 4; ++q)
                    tile[i * tile_stride + j + q] = c0[q * column_stride + i];
        }
        for (; j + 2 <= width; j += 2) {   /* two columns left: 2 x 2 blocks */
            const double* restrict c0 = first + j * column_stride;
            const double* restrict c1 = c0 + column_stride;
            for (i = 0; i + 2 <= rows; i += 2) {
                const __m128d a0 = _mm_loadu_pd(c0 + i);
                const __m128d a1 = _mm_loadu_pd(c1 + i);
                _mm_storeu_pd(tile + i * tile_stride + j, _mm_unpacklo_pd(a0, a1));
                _mm_storeu_pd(tile + (i + 1) * tile_stride + j, _mm_unpackhi_pd(a0, a1));
            }
            for (; i < rows; ++i) {
                tile[i * tile_stride + j] = c0[i];
                tile[i * tile_stride + j + 1] = c1[i];
            }
        }
        for (; j < width; ++j) {
            const double* restrict column = first + j * column_stride;
            for (i = 0; i < rows; ++i)
                tile[i * tile_stride + j] = column[i];
        }
    }
    /* The sweeps by class (AVX2): the rows of one class, rows[0 .. count - 1] in ascending
       order, swept a chunk of at most five vectors of columns at a time (16 columns while more
       than 20 are left, then the last 5-20; 1-20 in a panel of at most 20), the class's moments
       of the chunk held in registers down the rows.  Each moment takes the same IEEE operations
       in the same order of rows as in the sweeps by row below: the same bits, without a load and
       a store of every moment at every row.  The chunk's last vector is masked to its columns,
       in every array it reads or writes (a masked load reads nothing beyond them). */
    __attribute__((target("avx2"), always_inline))
    static inline __m256i fstools_one_pass_lanes(Py_ssize_t n)   /* the first n lanes (1 .. 4) */
    {
        return _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long) n), _mm256_setr_epi64x(0, 1, 2, 3));
    }
    __attribute__((target("avx2"), always_inline))
    static inline __m256d fstools_one_pass_load(const double* p, int last, __m256i mask)
    {
        return last ? _mm256_maskload_pd(p, mask) : _mm256_loadu_pd(p);
    }
    __attribute__((target("avx2"), always_inline))
    static inline void fstools_one_pass_store(double* p, int last, __m256i mask, __m256d value)
    {
        if (last)
            _mm256_maskstore_pd(p, mask, value);
        else
            _mm256_storeu_pd(p, value);
    }
    /* The chunk of n columns (4 (V - 1) < n <= 4 V) of every sweep; `kind` as FSTOOLS_SWEEP_*. */
    #define FSTOOLS_SWEEP_EXTREMES 0
    #define FSTOOLS_SWEEP_SUMS 1
    #define FSTOOLS_SWEEP_SQUARES 2
    #define FSTOOLS_SWEEP_PRODUCTS 3
    __attribute__((target("avx2"), always_inline))
    static inline void fstools_one_pass_chunk(const int kind, const int V, const double* restrict tile,
                                              Py_ssize_t row_stride, const int32_t* restrict rows, Py_ssize_t count,
                                              Py_ssize_t n, const double* restrict factor,
                                              const double* restrict mean, const double* restrict response,
                                              double* restrict first, double* restrict second,
                                              double* restrict third, fstools_one_pass_ahead* ahead)
    {
        /* extremes: first, second, third = low, high, sum; sums: first = sum;
           squares: first = squares; products: first, second = squares, cross */
        __m256d a[5], b[5], c[5];
        const __m256i mask = fstools_one_pass_lanes(n - 4 * (V - 1));
        Py_ssize_t k;
        int q;
        #pragma GCC unroll 5
        for (q = 0; q < V; ++q) {
            a[q] = fstools_one_pass_load(first + 4 * q, q == V - 1, mask);
            if (kind == FSTOOLS_SWEEP_EXTREMES || kind == FSTOOLS_SWEEP_PRODUCTS)
                b[q] = fstools_one_pass_load(second + 4 * q, q == V - 1, mask);
            if (kind == FSTOOLS_SWEEP_EXTREMES)
                c[q] = fstools_one_pass_load(third + 4 * q, q == V - 1, mask);
        }
        for (k = 0; k < count; ++k) {
            const double* restrict row = tile + (Py_ssize_t) rows[k] * row_stride;
            __m256d r = _mm256_setzero_pd();
            if (kind == FSTOOLS_SWEEP_PRODUCTS)
                r = _mm256_set1_pd(response[rows[k]]);
            if (kind != FSTOOLS_SWEEP_SUMS)
                fstools_one_pass_ask(ahead);
            #pragma GCC unroll 5
            for (q = 0; q < V; ++q) {
                const __m256d v = fstools_one_pass_load(row + 4 * q, q == V - 1, mask);
                const __m256d scaled = _mm256_mul_pd(v, fstools_one_pass_load(factor + 4 * q, q == V - 1, mask));
                if (kind == FSTOOLS_SWEEP_EXTREMES) {
                    a[q] = _mm256_min_pd(v, a[q]);      /* v < low ? v : low */
                    b[q] = _mm256_max_pd(v, b[q]);      /* v > high ? v : high */
                    c[q] = _mm256_add_pd(scaled, c[q]);   /* sum += v * factor */
                } else if (kind == FSTOOLS_SWEEP_SUMS) {
                    a[q] = _mm256_add_pd(scaled, a[q]);
                } else {
                    const __m256d deviation = _mm256_sub_pd(scaled, fstools_one_pass_load(mean + 4 * q, q == V - 1,
                                                                                          mask));
                    a[q] = _mm256_add_pd(_mm256_mul_pd(deviation, deviation), a[q]);
                    if (kind == FSTOOLS_SWEEP_PRODUCTS)
                        b[q] = _mm256_add_pd(_mm256_mul_pd(deviation, r), b[q]);
                }
            }
        }
        #pragma GCC unroll 5
        for (q = 0; q < V; ++q) {
            fstools_one_pass_store(first + 4 * q, q == V - 1, mask, a[q]);
            if (kind == FSTOOLS_SWEEP_EXTREMES || kind == FSTOOLS_SWEEP_PRODUCTS)
                fstools_one_pass_store(second + 4 * q, q == V - 1, mask, b[q]);
            if (kind == FSTOOLS_SWEEP_EXTREMES)
                fstools_one_pass_store(third + 4 * q, q == V - 1, mask, c[q]);
        }
    }
    /* One sweep of one class, chunk by chunk (the moments of the class at c * width + j as in the
       sweeps by row; mean, second and third NULL where the kind has none). */
    __attribute__((target("avx2"), always_inline))
    static inline void fstools_one_pass_class_kind(const int kind, const double* restrict tile,
                                                   Py_ssize_t row_stride, const int32_t* restrict rows,
                                                   Py_ssize_t count, Py_ssize_t width, const double* restrict factor,
                                                   const double* restrict mean, const double* restrict response,
                                                   double* restrict first, double* restrict second,
                                                   double* restrict third, fstools_one_pass_ahead* ahead)
    {
        Py_ssize_t j = 0, n;
        while (j < width) {
            n = fstools_one_pass_chunk_width(width - j);
            /* the vectors of the chunk as a constant: one copy of the loops each */
            #define FSTOOLS_CHUNK(V) fstools_one_pass_chunk(kind, V, tile + j, row_stride, rows, count, n, factor + j, \
                                                            mean ? mean + j : NULL, response, first + j, \
                                                            second ? second + j : NULL, third ? third + j : NULL, ahead)
            switch ((n + 3) / 4) {
            case 1: FSTOOLS_CHUNK(1); break;
            case 2: FSTOOLS_CHUNK(2); break;
            case 3: FSTOOLS_CHUNK(3); break;
            case 4: FSTOOLS_CHUNK(4); break;
            default: FSTOOLS_CHUNK(5); break;
            }
            #undef FSTOOLS_CHUNK
            j += n;
        }
    }
    __attribute__((target("avx2")))
    static void fstools_one_pass_class_sweep(int kind, const double* tile, Py_ssize_t row_stride, const int32_t* rows,
                                             Py_ssize_t count, Py_ssize_t width, const double* factor,
                                             const double* mean, const double* response, double* first,
                                             double* second, double* third, fstools_one_pass_ahead* ahead)
    {
        switch (kind) {   /* one copy of the loops per kind */
        case FSTOOLS_SWEEP_EXTREMES:
            fstools_one_pass_class_kind(FSTOOLS_SWEEP_EXTREMES, tile, row_stride, rows, count, width, factor, NULL,
                                        NULL, first, second, third, ahead);
            break;
        case FSTOOLS_SWEEP_SUMS:
            fstools_one_pass_class_kind(FSTOOLS_SWEEP_SUMS, tile, row_stride, rows, count, width, factor, NULL, NULL,
                                        first, NULL, NULL, ahead);
            break;
        case FSTOOLS_SWEEP_SQUARES:
            fstools_one_pass_class_kind(FSTOOLS_SWEEP_SQUARES, tile, row_stride, rows, count, width, factor, mean, NULL,
                                        first, NULL, NULL, ahead);
            break;
        default:
            fstools_one_pass_class_kind(FSTOOLS_SWEEP_PRODUCTS, tile, row_stride, rows, count, width, factor, mean,
                                        response, first, second, NULL, ahead);
            break;
        }
    }
    static int fstools_one_pass_by_class(void) { return __builtin_cpu_supports("avx2"); }
    #else
    static void fstools_one_pass_class_sweep(int kind, const double* tile, Py_ssize_t row_stride, const int32_t* rows,
                                             Py_ssize_t count, Py_ssize_t width, const double* factor,
                                             const double* mean, const double* response, double* first,
                                             double* second, double* third, fstools_one_pass_ahead* ahead) { }
    static int fstools_one_pass_by_class(void) { return 0; }
    #endif
    static void fstools_one_pass_transpose(const double* restrict first, Py_ssize_t row_stride,
                                           Py_ssize_t column_stride, Py_ssize_t rows, Py_ssize_t width,
                                           double* restrict tile, Py_ssize_t tile_stride)
    {
        Py_ssize_t i, j, q;
    #if defined(FSTOOLS_ONE_PASS_AVX2)
        if (row_stride == 1 && __builtin_cpu_supports("avx2")) {
            fstools_one_pass_transpose_avx2(first, column_stride, rows, width, tile, tile_stride);
            return;
        }
    #endif
        for (j = 0; j + 8 <= width; j += 8) {
            const double* restrict c[8];
            for (q = 0; q < 8; ++q)
                c[q] = first + (j + q) * column_stride;
            i = 0;
            if (row_stride == 1) {
    #if defined(__SSE2__)
                for (; i + 2 <= rows; i += 2) {
                    double* restrict t0 = tile + i * tile_stride + j;
                    double* restrict t1 = t0 + tile_stride;
                    for (q = 0; q < 8; q += 2) {
                        const __m128d a = _mm_loadu_pd(c[q] + i);       /* c[q][i], c[q][i + 1] */
                        const __m128d b = _mm_loadu_pd(c[q + 1] + i);
                        _mm_storeu_pd(t0 + q, _mm_unpacklo_pd(a, b));
                        _mm_storeu_pd(t1 + q, _mm_unpackhi_pd(a, b));
                    }
                }
    #endif
                for (; i < rows; ++i) {
                    double* restrict t = tile + i * tile_stride + j;
                    t[0] = c[0][i]; t[1] = c[1][i]; t[2] = c[2][i]; t[3] = c[3][i];
                    t[4] = c[4][i]; t[5] = c[5][i]; t[6] = c[6][i]; t[7] = c[7][i];
                }
            } else {
                for (; i < rows; ++i) {
                    double* restrict t = tile + i * tile_stride + j;
                    for (q = 0; q < 8; ++q)
                        t[q] = c[q][i * row_stride];
                }
            }
        }
        for (; j < width; ++j) {
            const double* restrict column = first + j * column_stride;
            for (i = 0; i < rows; ++i)
                tile[i * tile_stride + j] = column[i * row_stride];
        }
    }
    FSTOOLS_VECTOR_CLONES
    static void fstools_one_pass_extremes(const double* restrict tile, Py_ssize_t row_stride, Py_ssize_t rows,
                                          Py_ssize_t width, const int32_t* restrict codes,
                                          const double* restrict factor, double* restrict low,
                                          double* restrict high, double* restrict sum,
                                          fstools_one_pass_ahead* ahead)
    {
        Py_ssize_t i, j;
        for (i = 0; i < rows; ++i) {
            const double* restrict row = tile + i * row_stride;
            fstools_one_pass_ask(ahead);
            const Py_ssize_t offset = (Py_ssize_t) codes[i] * width;
            double* restrict class_low = low + offset;
            double* restrict class_high = high + offset;
            double* restrict class_sum = sum + offset;
            for (j = 0; j < width; ++j) {
                const double v = row[j];
                class_low[j] = v < class_low[j] ? v : class_low[j];
                class_high[j] = v > class_high[j] ? v : class_high[j];
                class_sum[j] += v * factor[j];
            }
        }
    }
    FSTOOLS_VECTOR_CLONES
    static void fstools_one_pass_sums(const double* restrict tile, Py_ssize_t row_stride, Py_ssize_t rows,
                                      Py_ssize_t width, const int32_t* restrict codes,
                                      const double* restrict factor, double* restrict sum)
    {
        Py_ssize_t i, j;
        for (i = 0; i < rows; ++i) {
            const double* restrict row = tile + i * row_stride;
            double* restrict class_sum = sum + (Py_ssize_t) codes[i] * width;
            for (j = 0; j < width; ++j) {
                class_sum[j] += row[j] * factor[j];
            }
        }
    }
    FSTOOLS_VECTOR_CLONES
    static void fstools_one_pass_squares(const double* restrict tile, Py_ssize_t row_stride, Py_ssize_t rows,
                                         Py_ssize_t width, const int32_t* restrict codes,
                                         const double* restrict factor, const double* restrict mean,
                                         double* restrict squares, fstools_one_pass_ahead* ahead)
    {
        Py_ssize_t i, j;
        for (i = 0; i < rows; ++i) {
            const double* restrict row = tile + i * row_stride;
            fstools_one_pass_ask(ahead);
            const Py_ssize_t offset = (Py_ssize_t) codes[i] * width;
            const double* restrict class_mean = mean + offset;
            double* restrict class_squares = squares + offset;
            for (j = 0; j < width; ++j) {
                const double deviation = row[j] * factor[j] - class_mean[j];
                class_squares[j] += deviation * deviation;
            }
        }
    }
    FSTOOLS_VECTOR_CLONES
    static void fstools_one_pass_products(const double* restrict tile, Py_ssize_t row_stride, Py_ssize_t rows,
                                          Py_ssize_t width, const int32_t* restrict codes,
                                          const double* restrict factor, const double* restrict mean,
                                          const double* restrict response_deviation,
                                          double* restrict squares, double* restrict cross,
                                          fstools_one_pass_ahead* ahead)
    {
        Py_ssize_t i, j;
        for (i = 0; i < rows; ++i) {
            const double* restrict row = tile + i * row_stride;
            fstools_one_pass_ask(ahead);
            const Py_ssize_t offset = (Py_ssize_t) codes[i] * width;
            const double* restrict class_mean = mean + offset;
            double* restrict class_squares = squares + offset;
            double* restrict class_cross = cross + offset;
            const double r = response_deviation[i];
            for (j = 0; j < width; ++j) {
                const double deviation = row[j] * factor[j] - class_mean[j];
                class_squares[j] += deviation * deviation;
                class_cross[j] += deviation * r;
            }
        }
    }
    """
    ctypedef struct Ahead "fstools_one_pass_ahead":
        Py_ssize_t run_stride
        Py_ssize_t run_lines
        Py_ssize_t lines
        Py_ssize_t span
        Py_ssize_t credit
        const double* run
        Py_ssize_t line
        Py_ssize_t asked
    void transpose_tile "fstools_one_pass_transpose"(const double* first, Py_ssize_t row_stride,
                                                     Py_ssize_t column_stride, Py_ssize_t rows, Py_ssize_t width,
                                                     double* tile, Py_ssize_t tile_stride) noexcept nogil
    int _SWEEP_EXTREMES "FSTOOLS_SWEEP_EXTREMES"
    int _SWEEP_SUMS "FSTOOLS_SWEEP_SUMS"
    int _SWEEP_SQUARES "FSTOOLS_SWEEP_SQUARES"
    int _SWEEP_PRODUCTS "FSTOOLS_SWEEP_PRODUCTS"
    int sweeps_by_class "fstools_one_pass_by_class"() noexcept nogil
    Py_ssize_t chunk_width "fstools_one_pass_chunk_width"(Py_ssize_t left) noexcept nogil
    void class_sweep "fstools_one_pass_class_sweep"(int kind, const double* tile, Py_ssize_t row_stride,
                                                    const int32_t* rows, Py_ssize_t count, Py_ssize_t width,
                                                    const double* factor, const double* mean, const double* response,
                                                    double* first, double* second, double* third,
                                                    Ahead* ahead) noexcept nogil
    void sweep_extremes "fstools_one_pass_extremes"(const double* tile, Py_ssize_t row_stride, Py_ssize_t rows,
                                                    Py_ssize_t width, const int32_t* codes, const double* factor,
                                                    double* low, double* high, double* sum,
                                                    Ahead* ahead) noexcept nogil
    void sweep_sums "fstools_one_pass_sums"(const double* tile, Py_ssize_t row_stride, Py_ssize_t rows,
                                            Py_ssize_t width, const int32_t* codes, const double* factor,
                                            double* sum) noexcept nogil
    void sweep_squares "fstools_one_pass_squares"(const double* tile, Py_ssize_t row_stride, Py_ssize_t rows,
                                                  Py_ssize_t width, const int32_t* codes, const double* factor,
                                                  const double* mean, double* squares,
                                                  Ahead* ahead) noexcept nogil
    void sweep_products "fstools_one_pass_products"(const double* tile, Py_ssize_t row_stride, Py_ssize_t rows,
                                                    Py_ssize_t width, const int32_t* codes, const double* factor,
                                                    const double* mean, const double* response_deviation,
                                                    double* squares, double* cross,
                                                    Ahead* ahead) noexcept nogil




cdef struct Scratch:
    # Per-thread work buffers (one malloc): the tile, the block's per-class moments (class-major,
    # c * width + j), the running scale of the chunk's columns and the class counts.
    void* memory            # the allocation (NULL when out of memory), to free
    double* tile            # BLOCK_ROWS rows of _tile_stride(panel) doubles, on a 64-byte boundary
    double* block_sum       # n_classes x panel each
    double* block_low
    double* block_high
    double* block_squares
    double* block_mean
    double* block_cross
    double* factor          # columns (of the work item): 2^-exponent
    double* bad             # columns
    double* response_deviation  # BLOCK_ROWS
    double* block_response  # n_classes: the block's response sums, then means
    double* chunk_response  # n_classes: the chunk's response sums so far
    int64_t* block_count    # n_classes
    int64_t* chunk_count    # n_classes
    Py_ssize_t* present     # BLOCK_ROWS: the classes of the block, in order of first row
    Py_ssize_t* class_start # n_classes: where the rows of each class start in order
    int32_t* order          # BLOCK_ROWS + 1: the rows of the block by class (ascending in each)
    int* exponent           # columns


cdef inline Py_ssize_t _tile_stride(Py_ssize_t width) noexcept nogil:
    """The doubles of a row of the tile of ``width`` columns: ``width`` rounded up to a line of
    64 bytes, so that every row of the tile starts a line (the sweeps' loads then never straddle
    two lines)."""
    return (width + 7) // 8 * 8


cdef Scratch _scratch_new(Py_ssize_t panel, Py_ssize_t columns, Py_ssize_t n_classes, bint copies) noexcept nogil:
    """A thread's buffers, carved out of one allocation (``memory`` NULL when out of memory).

    Returned by value: assigned in a ``parallel`` block, the struct is private to each thread.
    Block moments for a panel, the scale and flags of the work item's ``columns``; a tile only
    where the blocks are ``copies``."""
    cdef Scratch scratch
    cdef Scratch* s = &scratch
    cdef Py_ssize_t tile = (_BLOCK_ROWS * _tile_stride(panel) + 8) if copies else 0
    cdef Py_ssize_t doubles = tile + 6 * n_classes * panel + 2 * columns + _BLOCK_ROWS + 2 * n_classes
    cdef size_t size = doubles * sizeof(double) + 2 * n_classes * sizeof(int64_t) \
        + (_BLOCK_ROWS + n_classes) * sizeof(Py_ssize_t) + (_BLOCK_ROWS + 1) * sizeof(int32_t) + columns * sizeof(int)
    cdef char* memory = <char*> malloc(size)
    cdef double* d
    s.memory = memory
    if memory == NULL:
        return scratch
    d = <double*> memory
    s.tile = <double*> ((<uintptr_t> memory + 63) & ~(<uintptr_t> 63)) if copies else NULL
    d += tile
    s.block_sum = d
    d += n_classes * panel
    s.block_low = d
    d += n_classes * panel
    s.block_high = d
    d += n_classes * panel
    s.block_squares = d
    d += n_classes * panel
    s.block_mean = d
    d += n_classes * panel
    s.block_cross = d
    d += n_classes * panel
    s.factor = d
    d += columns
    s.bad = d
    d += columns
    s.response_deviation = d
    d += _BLOCK_ROWS
    s.block_response = d
    d += n_classes
    s.chunk_response = d
    d += n_classes
    s.block_count = <int64_t*> d
    s.chunk_count = s.block_count + n_classes
    s.present = <Py_ssize_t*> (s.chunk_count + n_classes)
    s.class_start = s.present + _BLOCK_ROWS
    s.order = <int32_t*> (s.class_start + n_classes)
    s.exponent = <int*> (s.order + _BLOCK_ROWS + 1)   # (a row past the block's: _few_classes)
    return scratch


cdef inline double _smaller(double a, double b) noexcept nogil:
    return a if a < b else b


cdef inline double _larger(double a, double b) noexcept nogil:
    return a if a > b else b


cdef void _rescale_chunk(Py_ssize_t j, int shift, Py_ssize_t n_classes, const int64_t* chunk_count,
                         double* sums, double* squares, double* cross, Py_ssize_t stride) noexcept nogil:
    """Multiply column ``j``'s running sums (and co-moments) by ``2^shift`` and its squares by
    ``2^(2 shift)`` (exact unless the result falls below the smallest normal double)."""
    cdef Py_ssize_t c
    for c in range(n_classes):
        if chunk_count[c] > 0:
            sums[j * stride + c] = ldexp(sums[j * stride + c], shift)
            squares[j * stride + c] = ldexp(squares[j * stride + c], 2 * shift)
            if cross != NULL:
                cross[j * stride + c] = ldexp(cross[j * stride + c], shift)


cdef bint _by_class = True


def _set_sweeps_by_class(bint allowed):
    """Allow (the default) or forbid the sweeps by class, and return the previous setting: a
    switch for the tests, which compare the two kinds of sweeps bit for bit (they take the same
    operations in the same order); not a setting for users."""
    global _by_class
    previous = _by_class
    _by_class = allowed
    return previous


cdef bint _audit_ahead = False


def _set_read_ahead_audit(bint on):
    """Make column_moments raise AssertionError where a read-ahead did not ask for each of its
    lines exactly once (its span is not the number of calls of the sweeps), and return the
    previous setting: a switch for the tests (the read-ahead is a hint, the results are the same
    either way); not a setting for users."""
    global _audit_ahead
    previous = _audit_ahead
    _audit_ahead = on
    return previous


def _sweeps_by_class_available():
    """Whether this build and CPU sweep by class (GCC on x86-64 Linux, AVX2)."""
    return bool(sweeps_by_class())


cdef inline void _ahead(Ahead* ahead, const double* next, Py_ssize_t run_stride, Py_ssize_t run_length,
                        Py_ssize_t runs, bint contiguous) noexcept nogil:
    """The read-ahead of the next block: ``runs`` runs of ``run_length`` doubles, ``run_stride``
    apart, or (``contiguous``) all of them as one run.  Its span is set once the sweeps are known."""
    if contiguous:
        run_length *= runs
        runs = 1
    ahead.run = next
    ahead.line = 0
    ahead.run_stride = run_stride
    # a run that does not start a line ends one line further
    ahead.run_lines = (run_length * 8 + 63) // 64 + (1 if (<uintptr_t> next) % 64 != 0 or run_stride % 8 != 0 else 0)
    ahead.lines = ahead.run_lines * runs
    ahead.credit = 0
    ahead.asked = 0


cdef inline void _no_ahead(Ahead* ahead) noexcept nogil:
    """Nothing to ask for (the last block of a work item)."""
    ahead.run = NULL
    ahead.lines = 0
    ahead.asked = 0


cdef inline Py_ssize_t _asking_calls(Py_ssize_t rows, Py_ssize_t width, bint by_class) noexcept nogil:
    """The calls of the read-ahead's ask made by the sweeps of ``rows`` rows of a panel of
    ``width`` columns: one a row in the extremes and one in the squares (or products), a row and
    chunk of columns each by class (the sums taken again ask for nothing)."""
    return 2 * rows * (_class_chunks(width) if by_class else 1)


cdef Py_ssize_t _few_classes(const int32_t* codes, const double* response, Py_ssize_t rows,
                             Py_ssize_t n_classes, Scratch* s) noexcept nogil:
    """The block's bookkeeping where the classes are few (at most _FEW_CLASSES): the rows of each
    class in order (``s.order`` from ``s.class_start[c]``), a pass over the block's codes per
    class, and from them the class sizes, the classes present (in order of their codes; returns
    their number) and their response sums (NULL ``response``: 0), each in the order of the
    rows as before.  One increment per row and class, in a register: the loop over the rows
    with a class's count and cursor in memory waits at each row for the increment of the last
    (5,000,000 x 10: 38 % of the kernel).  ``s.order`` has a slot past the block's rows: a
    row that is not of the class is written at the cursor, then overwritten."""
    cdef Py_ssize_t i, k, c, slot = 0, n_present = 0
    cdef double total
    for c in range(n_classes):
        s.class_start[c] = slot
        for i in range(rows):
            s.order[slot] = <int32_t> i
            slot += codes[i] == c
        s.block_count[c] = slot - s.class_start[c]
        if s.block_count[c] > 0:
            s.present[n_present] = c
            n_present += 1
            total = 0.0
            if response != NULL:
                for k in range(s.class_start[c], slot):
                    total += response[s.order[k]]
            s.block_response[c] = total
    return n_present


cdef inline Py_ssize_t _class_chunks(Py_ssize_t width) noexcept nogil:
    """The chunks of columns of a sweep by class of ``width`` columns (fstools_one_pass_class_kind)."""
    cdef Py_ssize_t chunks = 0
    while width > 0:
        width -= chunk_width(width)
        chunks += 1
    return chunks


cdef void _sweep(int kind, const double* tile, Py_ssize_t tile_stride, Py_ssize_t rows, Py_ssize_t width,
                 const double* factor, const int32_t* codes, Py_ssize_t n_present, bint by_class, Scratch* s,
                 Ahead* ahead) noexcept nogil:
    """One sweep (``kind``, a FSTOOLS_SWEEP_* value) over the block's C-ordered rows of a panel of
    ``width`` columns (their scale ``factor``): by class (``s.order``) or a row at a time, the same
    bits either way."""
    cdef Py_ssize_t k, c, offset
    if by_class:
        for k in range(n_present):
            c = s.present[k]
            offset = c * width
            if kind == _SWEEP_EXTREMES:
                class_sweep(kind, tile, tile_stride, s.order + s.class_start[c], s.block_count[c], width, factor,
                            NULL, NULL, s.block_low + offset, s.block_high + offset, s.block_sum + offset, ahead)
            elif kind == _SWEEP_SUMS:
                class_sweep(kind, tile, tile_stride, s.order + s.class_start[c], s.block_count[c], width, factor,
                            NULL, NULL, s.block_sum + offset, NULL, NULL, ahead)
            elif kind == _SWEEP_SQUARES:
                class_sweep(kind, tile, tile_stride, s.order + s.class_start[c], s.block_count[c], width, factor,
                            s.block_mean + offset, NULL, s.block_squares + offset, NULL, NULL, ahead)
            else:
                class_sweep(kind, tile, tile_stride, s.order + s.class_start[c], s.block_count[c], width, factor,
                            s.block_mean + offset, s.response_deviation, s.block_squares + offset,
                            s.block_cross + offset, NULL, ahead)
    elif kind == _SWEEP_EXTREMES:
        sweep_extremes(tile, tile_stride, rows, width, codes, factor, s.block_low, s.block_high, s.block_sum, ahead)
    elif kind == _SWEEP_SUMS:
        sweep_sums(tile, tile_stride, rows, width, codes, factor, s.block_sum)
    elif kind == _SWEEP_SQUARES:
        sweep_squares(tile, tile_stride, rows, width, codes, factor, s.block_mean, s.block_squares, ahead)
    else:
        sweep_products(tile, tile_stride, rows, width, codes, factor, s.block_mean, s.response_deviation,
                       s.block_squares, s.block_cross, ahead)


cdef void _panel_block(const double* tile, Py_ssize_t tile_stride, Py_ssize_t rows, Py_ssize_t width,
                       Py_ssize_t j0, const int32_t* codes, Py_ssize_t n_present, bint by_class,
                       Py_ssize_t n_classes, bint has_response, Scratch* s, Ahead* ahead, double* sums,
                       double* squares, double* low, double* high, double* cross) noexcept nogil:
    """The block's sweeps over a panel of ``width`` columns, columns ``j0 ..`` of the work item, and
    their merge into the chunk's moments (the chunk's class counts are updated by the caller,
    once every panel of the block is merged)."""
    cdef Py_ssize_t j, k, c, slot, out
    cdef double magnitude, chunk_mean, delta, weight, response_delta
    cdef int e
    cdef bint redo
    cdef int64_t n_a, n_b
    cdef double* factor = s.factor + j0
    for k in range(n_present):
        c = s.present[k]
        for j in range(width):
            slot = c * width + j
            s.block_sum[slot] = 0.0
            s.block_low[slot] = INFINITY
            s.block_high[slot] = -INFINITY
            s.block_squares[slot] = 0.0
            s.block_cross[slot] = 0.0
    # Sweep 1: extremes and the sums at the chunk's scale so far.
    _sweep(_SWEEP_EXTREMES, tile, tile_stride, rows, width, factor, codes, n_present, by_class, s, ahead)
    # A larger exponent than the chunk's so far: rescale the chunk, take the block's sums again.
    redo = False
    for j in range(width):
        magnitude = 0.0
        for k in range(n_present):
            slot = s.present[k] * width + j
            magnitude = _larger(magnitude, _larger(fabs(s.block_low[slot]), fabs(s.block_high[slot])))
        if not isfinite(magnitude):   # an infinity, or a class whose values are all NaN
            s.bad[j0 + j] = 1.0
            continue
        if magnitude == 0.0:
            continue
        frexp(magnitude, &e)
        if e > s.exponent[j0 + j]:
            _rescale_chunk(j0 + j, s.exponent[j0 + j] - e, n_classes, s.chunk_count, sums, squares, cross, n_classes)
            s.exponent[j0 + j] = e
            factor[j] = ldexp(1.0, -e)
            redo = True
    if redo:
        for k in range(n_present):
            c = s.present[k]
            for j in range(width):
                s.block_sum[c * width + j] = 0.0
        _sweep(_SWEEP_SUMS, tile, tile_stride, rows, width, factor, codes, n_present, by_class, s, ahead)
    # Sweep 2: squared deviations (and co-moments) about the block's class means.  A NaN sum
    # (at a scale no finite value overflows) is a NaN value: with the infinities found by the
    # extremes, every non-finite value is flagged without a test per value.
    for k in range(n_present):
        c = s.present[k]
        for j in range(width):
            slot = c * width + j
            s.block_mean[slot] = s.block_sum[slot] / <double> s.block_count[c]
            if s.block_sum[slot] != s.block_sum[slot]:
                s.bad[j0 + j] = 1.0
    if has_response:
        _sweep(_SWEEP_PRODUCTS, tile, tile_stride, rows, width, factor, codes, n_present, by_class, s, ahead)
    else:
        _sweep(_SWEEP_SQUARES, tile, tile_stride, rows, width, factor, codes, n_present, by_class, s, ahead)
    # Merge into the chunk (Chan, Golub and LeVeque 1979).
    for k in range(n_present):
        c = s.present[k]
        n_a = s.chunk_count[c]
        n_b = s.block_count[c]
        if n_a == 0:
            for j in range(width):
                slot = c * width + j
                out = (j0 + j) * n_classes + c
                sums[out] = s.block_sum[slot]
                squares[out] = s.block_squares[slot]
                low[out] = s.block_low[slot]
                high[out] = s.block_high[slot]
                if cross != NULL:
                    cross[out] = s.block_cross[slot]
        else:
            weight = (<double> n_a) * (<double> n_b) / (<double> (n_a + n_b))
            response_delta = 0.0
            if cross != NULL:
                response_delta = (s.block_response[c] / <double> n_b - s.chunk_response[c] / <double> n_a)
            for j in range(width):
                slot = c * width + j
                out = (j0 + j) * n_classes + c
                chunk_mean = sums[out] / <double> n_a
                delta = s.block_mean[slot] - chunk_mean
                sums[out] += s.block_sum[slot]
                squares[out] += s.block_squares[slot] + delta * delta * weight
                low[out] = _smaller(low[out], s.block_low[slot])
                high[out] = _larger(high[out], s.block_high[slot])
                if cross != NULL:
                    cross[out] += s.block_cross[slot] + delta * response_delta * weight


cdef Py_ssize_t _chunk_moments(const double* first, Py_ssize_t row_stride, Py_ssize_t column_stride,
                               Py_ssize_t n_rows, Py_ssize_t width, Py_ssize_t panel, Py_ssize_t ahead_bytes,
                               const int32_t* codes, const double* response, Py_ssize_t n_classes, Scratch* s,
                               double* sums, double* squares, double* low, double* high, double* cross,
                               int32_t* exponent, uint8_t* nonfinite) noexcept nogil:
    """The moments of ``n_rows`` rows of ``width`` adjacent columns whose first value is at ``first``;
    returns the number of read-aheads that asked for other than all their lines once each (0:
    their spans are the calls of the sweeps; a hint, no effect on the results).

    ``codes`` (and ``response``, or NULL) start at the chunk's first row.  Each block is swept a
    panel of at most ``panel`` columns at a time (several only where the columns are contiguous:
    a block's rows are then read whole, once; a copied block is one panel).  The outputs are the
    chunk's partial moments of these columns: entry (j, c) at ``j * n_classes + c`` of ``sums``,
    ``squares``, ``low``, ``high`` and ``cross`` (NULL without a response), already set to
    0, 0, +inf, -inf and 0; ``exponent[j]`` and ``nonfinite[j]`` per column.  A block of rows
    read in place over ``ahead_bytes`` asks for the next panel while a panel is swept, else for
    the next block.
    """
    cdef Py_ssize_t start, rows, i, j, k, c, n_present, slot, j0, part
    cdef Py_ssize_t tile_stride
    cdef const double* tile
    cdef Ahead ahead
    cdef bint by_class
    cdef bint use_classes = _by_class and sweeps_by_class()
    cdef bint by_panel = width > panel and _BLOCK_ROWS * width * 8 > ahead_bytes
    cdef Py_ssize_t misfits = 0
    for j in range(width):
        s.exponent[j] = _FLOOR
        s.factor[j] = ldexp(1.0, -_FLOOR)
        s.bad[j] = 0.0
    for c in range(n_classes):
        s.block_count[c] = 0
        s.chunk_count[c] = 0
        s.chunk_response[c] = 0.0
    start = 0
    while start < n_rows:
        rows = block_length(start, _BLOCK_ROWS, n_rows)
        if n_classes <= _FEW_CLASSES:
            n_present = _few_classes(codes + start, response + start if response != NULL else NULL, rows,
                                     n_classes, s)
        else:
            # The classes of the block (in order of their first row) and their sizes.
            n_present = 0
            for i in range(rows):
                c = codes[start + i]
                if s.block_count[c] == 0:
                    s.present[n_present] = c
                    n_present += 1
                    s.block_response[c] = 0.0
                s.block_count[c] += 1
                if response != NULL:
                    s.block_response[c] += response[start + i]
        by_class = use_classes and rows >= _CLASS_ROWS * n_present
        # Sweeps by class when the classes have rows enough to fill their chunks (AVX2): the rows
        # of each class in order.
        if by_class and n_classes > _FEW_CLASSES:
            slot = 0
            for k in range(n_present):
                c = s.present[k]
                s.class_start[c] = slot
                slot += s.block_count[c]
            for i in range(rows):   # class_start as a cursor, then put back
                c = codes[start + i]
                s.order[s.class_start[c]] = <int32_t> i
                s.class_start[c] += 1
            for k in range(n_present):
                c = s.present[k]
                s.class_start[c] -= s.block_count[c]
        if response != NULL:
            for i in range(rows):
                c = codes[start + i]
                s.response_deviation[i] = response[start + i] - s.block_response[c] / <double> s.block_count[c]
        # The next block, asked for while this one is swept: a run per row of the work item's
        # columns (one run when the rows are contiguous), or a run per column of a Fortran block.
        # Rows of several panels read in place ask for the next panel instead (below).
        _no_ahead(&ahead)
        if start + rows < n_rows and not by_panel:
            if column_stride == 1:
                _ahead(&ahead, first + (start + rows) * row_stride, row_stride, width,
                       block_length(start + rows, _BLOCK_ROWS, n_rows), row_stride == width)
            elif row_stride == 1:
                _ahead(&ahead, first + start + rows, column_stride, block_length(start + rows, _BLOCK_ROWS, n_rows),
                       width, False)
        if ahead.run != NULL:   # its span: the calls, one per row of each sweep (and chunk, by class)
            ahead.span = 0
            j0 = 0
            while j0 < width:
                ahead.span += _asking_calls(rows, block_length(j0, panel, width), by_class)
                j0 += panel
        j0 = 0
        while j0 < width:
            part = block_length(j0, panel, width)
            if by_panel:
                # The panel swept next (this block's next, or the next block's first), asked for
                # while this one is swept: a block of the work item's rows (over 1 MB at 500
                # columns) and the next one overflow the second-level cache.
                _no_ahead(&ahead)
                if j0 + part < width:
                    _ahead(&ahead, first + start * row_stride + j0 + part, row_stride,
                           block_length(j0 + part, panel, width), rows, False)
                elif start + rows < n_rows:
                    _ahead(&ahead, first + (start + rows) * row_stride, row_stride, panel,
                           block_length(start + rows, _BLOCK_ROWS, n_rows), False)
                ahead.span = _asking_calls(rows, part, by_class)
            # The panel's rows in C order: X itself when its columns are contiguous, else a copy
            # made column by column (a contiguous read of each column's run in Fortran order).
            if column_stride == 1:
                tile = first + start * row_stride + j0
                tile_stride = row_stride
            else:
                tile_stride = _tile_stride(part)
                transpose_tile(first + start * row_stride + j0 * column_stride, row_stride, column_stride, rows, part,
                               s.tile, tile_stride)
                tile = s.tile
            _panel_block(tile, tile_stride, rows, part, j0, codes + start, n_present, by_class, n_classes,
                         response != NULL, s, &ahead, sums, squares, low, high, cross)
            if by_panel and ahead.asked != ahead.lines:
                misfits += 1
            j0 += panel
        if not by_panel and ahead.asked != ahead.lines:
            misfits += 1
        for k in range(n_present):
            c = s.present[k]
            s.chunk_count[c] += s.block_count[c]
            s.chunk_response[c] += s.block_response[c]
            s.block_count[c] = 0
        start += _BLOCK_ROWS
    for j in range(width):
        exponent[j] = s.exponent[j]
        nonfinite[j] = s.bad[j] != 0.0
    return misfits


cdef void _merge_chunks(Py_ssize_t j, Py_ssize_t n_chunks, Py_ssize_t group_width, Py_ssize_t n_classes,
                        const int64_t* chunk_count, const int64_t* prefix_count, const double* chunk_response,
                        const double* prefix_response,
                        const double* part_sums, const double* part_squares, const double* part_low,
                        const double* part_high, const double* part_cross, const int32_t* part_exponent,
                        const uint8_t* part_nonfinite, double* sums, double* squares, double* low, double* high,
                        double* cross, int32_t* exponent, uint8_t* nonfinite) noexcept nogil:
    """Column ``j`` (of the group) of every chunk merged in chunk order into the outputs (entry
    ``c`` of the column's row): each chunk brought to the column's largest exponent, then the
    update of Chan, Golub and LeVeque (1979); a class with a single value gets squares 0."""
    cdef Py_ssize_t k, c, part
    cdef int largest = _FLOOR
    cdef int shift
    cdef uint8_t bad = 0
    cdef int64_t n_a, n_b
    cdef double weight, delta, response_delta, part_sum, part_square, part_product
    for k in range(n_chunks):
        if part_exponent[k * group_width + j] > largest:
            largest = part_exponent[k * group_width + j]
        bad |= part_nonfinite[k * group_width + j]
    exponent[0] = largest
    nonfinite[0] = bad
    for k in range(n_chunks):
        shift = part_exponent[k * group_width + j] - largest
        for c in range(n_classes):
            n_b = chunk_count[k * n_classes + c]
            if n_b == 0:
                continue
            part = (k * group_width + j) * n_classes + c
            part_sum = ldexp(part_sums[part], shift)
            part_square = ldexp(part_squares[part], 2 * shift)
            part_product = ldexp(part_cross[part], shift) if cross != NULL else 0.0
            n_a = prefix_count[k * n_classes + c]
            if n_a == 0:
                sums[c] = part_sum
                squares[c] = part_square
                low[c] = part_low[part]
                high[c] = part_high[part]
                if cross != NULL:
                    cross[c] = part_product
            else:
                weight = (<double> n_a) * (<double> n_b) / (<double> (n_a + n_b))
                delta = part_sum / <double> n_b - sums[c] / <double> n_a
                sums[c] += part_sum
                squares[c] += part_square + delta * delta * weight
                low[c] = _smaller(low[c], part_low[part])
                high[c] = _larger(high[c], part_high[part])
                if cross != NULL:
                    response_delta = (chunk_response[k * n_classes + c] / <double> n_b
                                      - prefix_response[k * n_classes + c] / <double> n_a)
                    cross[c] += part_product + delta * response_delta * weight
    for c in range(n_classes):
        if not (low[c] < high[c]):   # a single value (or none): exactly no spread
            squares[c] = 0.0


def column_moments(X, y, int n_classes, response=None, int n_threads=1):
    """Per-class moments and checks of every column of ``X``, in one read of it.

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features), any layout
        C-contiguous, Fortran-ordered or a strided view (strides whole multiples of 8 bytes);
        read in place, never copied.  NaN and infinities are flagged (``nonfinite``), not refused.
    y : ndarray of int32, shape (n_samples,), C-contiguous
        Class codes 0..n_classes-1 (codes no sample uses are allowed); all 0 for one class.
    n_classes : int >= 1
    response : ndarray of float64, shape (n_samples,), C-contiguous, optional
        A finite response (best centred and scaled to magnitudes near 1 by the caller): the
        per-class co-moments ``cross`` are computed with it.
    n_threads : int >= 1
        OpenMP threads (ignored when built without OpenMP); the results do not depend on it.

    Returns
    -------
    counts : ndarray of int64, shape (n_classes,)
    sums, squares, low, high : ndarray of float64, shape (n_features, n_classes)
        The class sums of the scaled values, the sums of squared deviations of the scaled
        values about their class mean (0 for a class with a single value), the class minima
        and maxima (unscaled; +inf and -inf for an empty class).
    cross : ndarray of float64, shape (n_features, n_classes), or None without a response
    exponent : ndarray of int32, shape (n_features,)
        The scaling: the scaled values are ``x * 2^-exponent``.
    nonfinite : ndarray of bool, shape (n_features,)
        The columns holding NaN or an infinity.

    See the module docstring for the definitions and the algorithm.

    Raises
    ------
    ValueError
        Wrong types, shapes, dtypes or layouts (naming the argument), a class code outside
        0..n_classes-1, n_classes < 1 or n_threads < 1.
    """
    if not isinstance(X, np.ndarray) or X.dtype != np.float64 or X.ndim != 2:
        raise ValueError(f"X: expected a 2-D float64 ndarray (samples x features); got "
                         f"{type(X).__name__ if not isinstance(X, np.ndarray) else f'{X.dtype} array of {X.ndim}-D'}")
    if not isinstance(y, np.ndarray) or y.dtype != np.int32 or y.ndim != 1 or not y.flags.c_contiguous:
        raise ValueError("y: expected a 1-D C-contiguous int32 ndarray of class codes")
    cdef Py_ssize_t m = X.shape[0]
    cdef Py_ssize_t n_features = X.shape[1]
    check_length("y", y.shape[0], m, "class codes (one per sample)")
    check_at_least_one("n_classes", n_classes)
    check_threads(n_threads)
    check_double_strides("X", X.strides[0], X.strides[1])
    cdef bint has_response = response is not None
    if has_response:
        if (not isinstance(response, np.ndarray) or response.dtype != np.float64 or response.ndim != 1
                or not response.flags.c_contiguous):
            raise ValueError("response: expected a 1-D C-contiguous float64 ndarray (one value per sample)")
        check_length("response", response.shape[0], m, "response values (one per sample)")
    cdef const int32_t[::1] codes = y
    check_class_codes("y", codes, n_classes)

    counts = np.zeros(n_classes, dtype=np.int64)
    sums = np.zeros((n_features, n_classes))
    squares = np.zeros((n_features, n_classes))
    low = np.full((n_features, n_classes), np.inf)
    high = np.full((n_features, n_classes), -np.inf)
    cross = np.zeros((n_features, n_classes)) if has_response else None
    exponent = np.full(n_features, EXPONENT_FLOOR, dtype=np.int32)
    nonfinite = np.zeros(n_features, dtype=np.uint8)
    cdef Py_ssize_t i
    if m == 0 or n_features == 0:
        counts[:] = np.bincount(y, minlength=n_classes)
        return counts, sums, squares, low, high, cross, exponent, nonfinite.astype(bool)

    # The decomposition: chunks of rows (depending on m only), even panels of columns, stripes
    # of panels (a work item: a stripe of a chunk) and groups of columns (the partial moments).
    cdef Py_ssize_t n_chunks = (m + CHUNK_ROWS - 1) // CHUNK_ROWS
    cdef bint in_place = X.strides[1] == 8   # the rows of a block are swept where they are
    cdef Py_ssize_t panel = max(1, min(PANEL_WIDTH, PANEL_CELLS // n_classes, n_features))
    panel = (n_features + (n_features + panel - 1) // panel - 1) // ((n_features + panel - 1) // panel)  # even panels
    cdef Py_ssize_t per_column = n_chunks * n_classes * (5 if has_response else 4) * 8
    cdef Py_ssize_t group = max(panel, (STATE_BYTES // per_column) // panel * panel)
    group = min(group, n_features)
    cdef Py_ssize_t n_panels = (group + panel - 1) // panel
    # A copied block is one panel; rows read in place are read whole, all the group's panels
    # in one work item, unless the chunks are too few to give every thread two work items.
    cdef Py_ssize_t stripes = 1
    if in_place and n_threads > 1:
        stripes = min(n_panels, (2 * n_threads + n_chunks - 1) // n_chunks)
    cdef Py_ssize_t stripe = ((n_panels + stripes - 1) // stripes) * panel if in_place else panel
    cdef Py_ssize_t n_stripes
    cdef Py_ssize_t ahead_bytes = AHEAD_BLOCK_BYTES

    # The class sizes (and response sums) of every chunk, and of the chunks before it.
    chunk_count = np.zeros((n_chunks, n_classes), dtype=np.int64)
    chunk_response = np.zeros((n_chunks, n_classes))
    cdef int64_t[:, ::1] chunk_count_view = chunk_count
    cdef double[:, ::1] chunk_response_view = chunk_response
    cdef const double[::1] response_view
    cdef const double* response_data = NULL
    if has_response:
        response_view = response
        response_data = &response_view[0]
    cdef Py_ssize_t k, c, q, row_end
    # (without a response, four counts per class: row i adds to the (i % 4)-th, so that the
    # increments of consecutive rows of a class do not wait on each other)
    cdef int64_t[:, ::1] quarters = np.zeros((4, n_classes), dtype=np.int64)
    with nogil:
        for k in range(n_chunks):
            row_end = block_length(k * _CHUNK_ROWS, _CHUNK_ROWS, m) + k * _CHUNK_ROWS
            if has_response:
                for i in range(k * _CHUNK_ROWS, row_end):
                    chunk_count_view[k, codes[i]] += 1
                    chunk_response_view[k, codes[i]] += response_data[i]
            else:
                for i in range(k * _CHUNK_ROWS, row_end):
                    quarters[i & 3, codes[i]] += 1
                for q in range(4):
                    for c in range(n_classes):
                        chunk_count_view[k, c] += quarters[q, c]
                        quarters[q, c] = 0
    counts[:] = chunk_count.sum(axis=0)
    prefix_count = np.zeros_like(chunk_count)
    prefix_count[1:] = np.cumsum(chunk_count, axis=0)[:n_chunks - 1]
    prefix_response = np.zeros_like(chunk_response)
    for k in range(1, n_chunks):
        prefix_response[k] = prefix_response[k - 1] + chunk_response[k - 1]

    part_sums = np.empty((n_chunks, group, n_classes))
    part_squares = np.empty((n_chunks, group, n_classes))
    part_low = np.empty((n_chunks, group, n_classes))
    part_high = np.empty((n_chunks, group, n_classes))
    part_cross = np.empty((n_chunks, group, n_classes)) if has_response else np.empty((1, 1, 1))
    part_exponent = np.empty((n_chunks, group), dtype=np.int32)
    part_nonfinite = np.empty((n_chunks, group), dtype=np.uint8)

    cdef const double[:, :] view = X
    cdef const double* data = &view[0, 0]
    cdef Py_ssize_t row_stride = X.strides[0] // 8
    cdef Py_ssize_t column_stride = X.strides[1] // 8
    cdef const int32_t* code_data = &codes[0]
    cdef double[:, :, ::1] ps = part_sums
    cdef double[:, :, ::1] pq = part_squares
    cdef double[:, :, ::1] pl = part_low
    cdef double[:, :, ::1] ph = part_high
    cdef double[:, :, ::1] pc = part_cross
    cdef int32_t[:, ::1] pe = part_exponent
    cdef uint8_t[:, ::1] pn = part_nonfinite
    cdef double[:, ::1] sums_view = sums
    cdef double[:, ::1] squares_view = squares
    cdef double[:, ::1] low_view = low
    cdef double[:, ::1] high_view = high
    cdef double[:, ::1] cross_view = cross if has_response else np.empty((1, 1))
    cdef int32_t[::1] exponent_view = exponent
    cdef uint8_t[::1] nonfinite_view = nonfinite
    cdef const int64_t* chunk_count_data = &chunk_count_view[0, 0]
    cdef const int64_t[:, ::1] prefix_count_view = prefix_count
    cdef const double[:, ::1] prefix_response_view = prefix_response
    cdef int32_t[::1] status = np.zeros(n_chunks * ((group + stripe - 1) // stripe), dtype=np.int32)
    cdef Py_ssize_t[::1] misfits = np.zeros(status.shape[0], dtype=np.intp)
    cdef Py_ssize_t g0, width, item, p, j0, first_row, j
    cdef Scratch scratch
    cdef SignalCheck check
    signal_check_init(&check, 1)
    for g0 in range(0, n_features, group):
        width = block_length(g0, group, n_features)
        n_stripes = (width + stripe - 1) // stripe
        part_low.fill(np.inf)
        part_high.fill(-np.inf)
        part_sums.fill(0.0)
        part_squares.fill(0.0)
        part_cross.fill(0.0)
        with nogil, parallel(num_threads=n_threads):
            scratch = _scratch_new(panel, stripe, n_classes, not in_place)
            for item in prange(n_chunks * n_stripes, schedule="dynamic"):
                k = item // n_stripes
                p = item % n_stripes
                j0 = p * stripe
                first_row = k * _CHUNK_ROWS
                if stop_requested(&check):
                    pass  # Ctrl-C: the remaining items are skipped
                elif scratch.memory == NULL:
                    status[item] = OUT_OF_MEMORY
                else:
                    misfits[item] = _chunk_moments(
                        data + first_row * row_stride + (g0 + j0) * column_stride, row_stride, column_stride,
                        block_length(first_row, _CHUNK_ROWS, m), block_length(j0, stripe, width), panel,
                        ahead_bytes, code_data + first_row, (response_data + first_row) if has_response else NULL,
                        n_classes, &scratch, &ps[k, j0, 0], &pq[k, j0, 0], &pl[k, j0, 0], &ph[k, j0, 0],
                        &pc[k, j0, 0] if has_response else NULL, &pe[k, j0], &pn[k, j0])
            free(scratch.memory)
        raise_if_stopped(&check)
        if max_status(status) == OUT_OF_MEMORY:
            raise MemoryError(f"column_moments: could not allocate the scratch of a thread "
                              f"({(BLOCK_ROWS if not in_place else 0) + 6 * n_classes} x {panel} doubles "
                              f"and more)")
        if _audit_ahead and np.any(misfits):
            raise AssertionError(f"column_moments: {np.sum(misfits)} read-aheads asked for other than each of "
                                 f"their lines once")
        with nogil:
            for j in prange(width, schedule="static", num_threads=n_threads):
                _merge_chunks(j, n_chunks, group, n_classes, chunk_count_data, &prefix_count_view[0, 0],
                              &chunk_response_view[0, 0], &prefix_response_view[0, 0],
                              &ps[0, 0, 0], &pq[0, 0, 0], &pl[0, 0, 0], &ph[0, 0, 0],
                              &pc[0, 0, 0] if has_response else NULL, &pe[0, 0], &pn[0, 0],
                              &sums_view[g0 + j, 0], &squares_view[g0 + j, 0], &low_view[g0 + j, 0],
                              &high_view[g0 + j, 0], &cross_view[g0 + j, 0] if has_response else NULL,
                              &exponent_view[g0 + j], &nonfinite_view[g0 + j])
    return counts, sums, squares, low, high, cross, exponent, nonfinite.astype(bool)

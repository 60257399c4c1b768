"""What a column-major X costs the one-pass kernel, and what a sweep down its columns would.

``column_moments`` (``fstools/_ext/_one_pass.pyx``) sweeps the rows of a block of 256 rows by
class, a chunk of 16 columns held in registers; a column-major block is first copied to rows
(an 8-column transposition in registers), so that every sum has the same operations in the same
order whatever the layout.  The alternative, a sweep down each column of the block with no copy,
has to take the classes' rows apart with masks (its own order of sums, so other bits): each
value is blended into every class's moments.

This benchmark compiles a small C program (the system's ``cc``, AVX2; skipped without them) that
times, on a block of 256 rows x 48 columns of two classes, per value:

1. a plain copy of the block into a row-major tile (the floor of any copy);
2. the 8-column transposition the kernel uses;
3. the transposition and the two sweeps by class (extremes and sums, then squared deviations);
4. the same two sweeps down the columns, with masks, no copy;

with the block's columns in the second-level cache (1,024 rows) and in memory (1,000,192 rows).
Ratios (4) / (3) above 1 mean the copy is the faster way to a column-major block even without
the same bits.  Interleaved, best of 5 rounds.  Not run in CI.

    python benchmarks/bench_layout_floor.py
"""
import os
import shutil
import subprocess
import sys
import tempfile

SOURCE = r"""
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { BLOCK = 256, WIDTH = 48, TILE_STRIDE = 48 };

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* rows i .. i + 3 of four columns (first at `column`) to four rows of the tile */
static inline void transpose_4x4(const double* column, long column_stride, double* row)
{
    __m256d a0 = _mm256_loadu_pd(column);
    __m256d a1 = _mm256_loadu_pd(column + column_stride);
    __m256d a2 = _mm256_loadu_pd(column + 2 * column_stride);
    __m256d a3 = _mm256_loadu_pd(column + 3 * column_stride);
    __m256d u0 = _mm256_unpacklo_pd(a0, a1);
    __m256d u1 = _mm256_unpackhi_pd(a0, a1);
    __m256d u2 = _mm256_unpacklo_pd(a2, a3);
    __m256d u3 = _mm256_unpackhi_pd(a2, a3);
    _mm256_storeu_pd(row, _mm256_permute2f128_pd(u0, u2, 0x20));
    _mm256_storeu_pd(row + TILE_STRIDE, _mm256_permute2f128_pd(u1, u3, 0x20));
    _mm256_storeu_pd(row + 2 * TILE_STRIDE, _mm256_permute2f128_pd(u0, u2, 0x31));
    _mm256_storeu_pd(row + 3 * TILE_STRIDE, _mm256_permute2f128_pd(u1, u3, 0x31));
}

static void plain_copy(const double* block, long m, double* tile)
{
    for (long j = 0; j < WIDTH; j += 4)
        for (long i = 0; i < BLOCK; i += 4)
            for (long q = 0; q < 4; ++q)
                _mm256_storeu_pd(tile + (i + q) * TILE_STRIDE + j, _mm256_loadu_pd(block + (j + q) * m + i));
}

static void transpose(const double* block, long m, double* tile)
{
    for (long j = 0; j < WIDTH; j += 8)
        for (long i = 0; i < BLOCK; i += 4) {
            transpose_4x4(block + j * m + i, m, tile + i * TILE_STRIDE + j);
            transpose_4x4(block + (j + 4) * m + i, m, tile + i * TILE_STRIDE + j + 4);
        }
}

/* the two sweeps of one class over 16 columns of the tile, the rows `rows[0 .. count - 1]` */
static void class_sweeps(const double* tile, const int32_t* rows, long count, double* out)
{
    const __m256d factor = _mm256_set1_pd(0.5);
    __m256d low[4], high[4], sum[4], squares[4], mean[4];
    for (int q = 0; q < 4; ++q) {
        low[q] = _mm256_set1_pd(INFINITY);
        high[q] = _mm256_set1_pd(-INFINITY);
        sum[q] = _mm256_setzero_pd();
        squares[q] = _mm256_setzero_pd();
    }
    for (long k = 0; k < count; ++k) {
        const double* row = tile + rows[k] * TILE_STRIDE;
        for (int q = 0; q < 4; ++q) {
            __m256d v = _mm256_loadu_pd(row + 4 * q);
            low[q] = _mm256_min_pd(v, low[q]);
            high[q] = _mm256_max_pd(v, high[q]);
            sum[q] = _mm256_add_pd(_mm256_mul_pd(v, factor), sum[q]);
        }
    }
    for (int q = 0; q < 4; ++q)
        mean[q] = _mm256_div_pd(sum[q], _mm256_set1_pd((double) (count > 0 ? count : 1)));
    for (long k = 0; k < count; ++k) {
        const double* row = tile + rows[k] * TILE_STRIDE;
        for (int q = 0; q < 4; ++q) {
            __m256d deviation = _mm256_sub_pd(_mm256_mul_pd(_mm256_loadu_pd(row + 4 * q), factor), mean[q]);
            squares[q] = _mm256_add_pd(_mm256_mul_pd(deviation, deviation), squares[q]);
        }
    }
    for (int q = 0; q < 4; ++q) {
        _mm256_storeu_pd(out + 4 * q, _mm256_add_pd(_mm256_add_pd(low[q], high[q]), squares[q]));
    }
}

static void row_sweeps(const double* block, long m, double* tile, const int32_t* order, long count0, double* out)
{
    transpose(block, m, tile);
    for (long j = 0; j < WIDTH; j += 16) {
        class_sweeps(tile + j, order, count0, out + j);
        class_sweeps(tile + j, order + count0, BLOCK - count0, out + WIDTH + j);
    }
}

/* the same two sweeps down each column: each value blended into both classes' moments */
static void column_sweeps(const double* block, long m, const double* is_one, double* out)
{
    const __m256d factor = _mm256_set1_pd(0.5);
    const __m256d plus = _mm256_set1_pd(INFINITY), minus = _mm256_set1_pd(-INFINITY), zero = _mm256_setzero_pd();
    for (long j = 0; j < WIDTH; ++j) {
        const double* column = block + j * m;
        __m256d low0 = plus, low1 = plus, high0 = minus, high1 = minus, sum0 = zero, sum1 = zero;
        for (long i = 0; i < BLOCK; i += 4) {
            __m256d v = _mm256_loadu_pd(column + i);
            __m256d one = _mm256_loadu_pd(is_one + i);
            __m256d scaled = _mm256_mul_pd(v, factor);
            low1 = _mm256_min_pd(_mm256_blendv_pd(plus, v, one), low1);
            low0 = _mm256_min_pd(_mm256_blendv_pd(v, plus, one), low0);
            high1 = _mm256_max_pd(_mm256_blendv_pd(minus, v, one), high1);
            high0 = _mm256_max_pd(_mm256_blendv_pd(v, minus, one), high0);
            sum1 = _mm256_add_pd(_mm256_blendv_pd(zero, scaled, one), sum1);
            sum0 = _mm256_add_pd(_mm256_blendv_pd(scaled, zero, one), sum0);
        }
        double s0[4], s1[4];
        _mm256_storeu_pd(s0, sum0);
        _mm256_storeu_pd(s1, sum1);
        __m256d mean0 = _mm256_set1_pd((s0[0] + s0[1] + s0[2] + s0[3]) / (BLOCK / 2));
        __m256d mean1 = _mm256_set1_pd((s1[0] + s1[1] + s1[2] + s1[3]) / (BLOCK / 2));
        __m256d squares0 = zero, squares1 = zero;
        for (long i = 0; i < BLOCK; i += 4) {
            __m256d one = _mm256_loadu_pd(is_one + i);
            __m256d scaled = _mm256_mul_pd(_mm256_loadu_pd(column + i), factor);
            __m256d deviation = _mm256_sub_pd(scaled, _mm256_blendv_pd(mean0, mean1, one));
            __m256d square = _mm256_mul_pd(deviation, deviation);
            squares1 = _mm256_add_pd(_mm256_blendv_pd(zero, square, one), squares1);
            squares0 = _mm256_add_pd(_mm256_blendv_pd(square, zero, one), squares0);
        }
        __m256d total = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(low0, low1), _mm256_add_pd(high0, high1)),
                                      _mm256_add_pd(squares0, squares1));
        double t[4];
        _mm256_storeu_pd(t, total);
        out[j] += t[0] + t[3];
    }
}

int main(int argc, char** argv)
{
    long m = atol(argv[1]);   /* rows, a multiple of BLOCK */
    double* X = aligned_alloc(64, (size_t) m * WIDTH * sizeof(double));
    double* is_one = aligned_alloc(64, (size_t) m * sizeof(double));
    int32_t* order = malloc((size_t) m * sizeof(int32_t));
    long* count0 = malloc((size_t) (m / BLOCK) * sizeof(long));
    double* tile = aligned_alloc(64, BLOCK * TILE_STRIDE * sizeof(double));
    double* out = calloc(2 * WIDTH, sizeof(double));
    srand(1);
    for (long k = 0; k < m * WIDTH; ++k)
        X[k] = (double) rand() / RAND_MAX - 0.5;
    for (long s = 0; s < m; s += BLOCK) {   /* two classes at random; each block's rows by class */
        long zeros = 0, ones = 0;
        int code[BLOCK];
        for (long i = 0; i < BLOCK; ++i) {
            code[i] = rand() & 1;
            int64_t bits = code[i] ? -1 : 0;
            __builtin_memcpy(&is_one[s + i], &bits, sizeof(double));
            zeros += !code[i];
        }
        count0[s / BLOCK] = zeros;
        for (long i = 0; i < BLOCK; ++i) {
            if (code[i])
                order[s + zeros + ones++] = (int32_t) i;
            else
                order[s + (i - ones)] = (int32_t) i;
        }
    }
    long repeat = 50000000 / (m * WIDTH);
    if (repeat < 1)
        repeat = 1;
    double best[4] = {1e30, 1e30, 1e30, 1e30};
    for (int round = 0; round < 5; ++round)
        for (int kind = 0; kind < 4; ++kind) {
            double start = seconds();
            for (long r = 0; r < repeat; ++r)
                for (long s = 0; s < m; s += BLOCK) {
                    const double* block = X + s;
                    if (kind == 0)
                        plain_copy(block, m, tile);
                    else if (kind == 1)
                        transpose(block, m, tile);
                    else if (kind == 2)
                        row_sweeps(block, m, tile, order + s, count0[s / BLOCK], out);
                    else
                        column_sweeps(block, m, is_one + s, out);
                    out[0] += tile[5];
                }
            double ns = (seconds() - start) / repeat / (m * WIDTH) * 1e9;
            if (ns < best[kind])
                best[kind] = ns;
        }
    printf("%.3f %.3f %.3f %.3f %g\n", best[0], best[1], best[2], best[3], out[0]);
    return 0;
}
"""


def main():
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        print("no C compiler (cc): skipped")
        return 0
    with tempfile.TemporaryDirectory() as folder:
        source = os.path.join(folder, "floor.c")
        program = os.path.join(folder, "floor")
        with open(source, "w") as handle:
            handle.write(SOURCE)
        build = subprocess.run([compiler, "-O3", "-mavx2", "-o", program, source, "-lm"], capture_output=True,
                               text=True)
        if build.returncode != 0:
            print(f"the C program does not build here (AVX2 needed): skipped\n{build.stderr}")
            return 0
        print("A column-major block of 256 rows x 48 columns, two classes, ns a value (best of 5):")
        print(f"    {'columns in':14s} {'copy':>6s} {'transpose':>10s} {'copy + row sweeps':>18s} "
              f"{'column sweeps':>14s} {'column / row':>13s}")
        for label, rows in (("L2 (1,024)", 1024), ("memory (1M)", 1_000_192)):
            run = subprocess.run([program, str(rows)], capture_output=True, text=True, check=True)
            copy, transpose, row_sweeps, column_sweeps = (float(value) for value in run.stdout.split()[:4])
            print(f"    {label:14s} {copy:6.3f} {transpose:10.3f} {row_sweeps:18.3f} {column_sweeps:14.3f} "
                  f"{column_sweeps / row_sweeps:13.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

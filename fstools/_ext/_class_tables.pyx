# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""I(X_j;C) of the columns that hold small non-negative integers, counted straight from X.

MIM needs only I(X_j;C) of every column.  For a column whose values are integers in
``0 .. VALUE_RANGE-1`` the (value, class) table can be counted from the values
themselves, in the one pass that also checks them, with no code matrix in between
(:func:`fstools._ext._entropy.discrete_column_codes` first writes codes, which the
counting kernels then read).  The columns it cannot decide (another value, more than
``max_levels`` distinct values) are left to that general path.

The information is the one of the code path bit for bit: the codes of a discrete column
are the ranks of its sorted distinct values, so the (code, class) table is the
(value, class) table without its empty rows, and the plug-in entropies
(:func:`fstools._ext._counting.entropy_of_counts`) skip empty cells; the same nonzero
cells are summed in the same order.
"""
import numpy as np

cimport numpy as cnp
from cython.parallel import parallel, prange
from libc.stdint cimport int8_t, int32_t, uint8_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

from fstools._ext._common cimport (OK, OUT_OF_MEMORY, SignalCheck, block_length, check_threads, raise_if_stopped,
                                   signal_check_init, stop_requested, value_matrix)
from fstools._ext._counting cimport count_t, mutual_information_of_table
from fstools._ext._typedefs cimport sorted_t

cnp.import_array()

ctypedef sorted_t value_t

cdef enum:
    _LEFT = 0
    _COUNTED = 1
    # Values counted: integers 0 .. VALUE_RANGE - 1.
    VALUE_RANGE = 64
    # Row-major X: after this many rows, a block whose every column holds a value that is not
    # counted is not read further.
    FIRST_ROWS = 64
    # Row-major X: a look at Ctrl-C every this many rows of a block.
    SIGNAL_ROWS = 4096
    # A column of an X that is not row-major (and not two classes over contiguous float64 or uint8 columns:
    # _count_two_class_column) is counted in this many interleaved tables.
    COLUMN_SPLIT = 4
    # Row-major X: at most this many columns per block.
    MAX_BLOCK_COLUMNS = 1024
    # Rows of a column counted by byte compares at a time (_count_two_class_column): 8 flushes of
    # the byte lanes (255 compares of 32 rows); 128 KiB of codes and flags per thread.
    BYTE_CHUNK = 8 * 255 * 32

#: Status of a column after :func:`discrete_class_information`.
COLUMN_LEFT = _LEFT
COLUMN_COUNTED = _COUNTED

# Row-major X: the tables of a block of columns take at most this many bytes (int32 cells),
# so that they stay in the core's L2 cache while the rows stream by (wide blocks: X is read
# in long runs, 2,000 x 500 in one block with two classes).  Measured (one thread, CPU time):
# 10 levels 2,000 x 500 with X not in cache 1.8 ms against 3.2-3.5 for 64 KiB tables (126
# columns: a run of 1 KiB per row); Dorothea-like 800 x 100,000 180 ms against 229; 512 KiB
# no better.  Software prefetch of the next rows did not help.
cdef Py_ssize_t BLOCK_TABLE_BYTES = 1 << 18


cdef inline int32_t _table_row(value_t v) noexcept nogil:
    """The row of the table that counts ``v``: ``v`` itself when it is an integer in
    0 .. VALUE_RANGE - 1, else VALUE_RANGE, the row of the values that are not counted.

    Without a branch (conditional moves): the rows are counted in one increment per value,
    and a column is left when its last row is not empty.  NaN fails every comparison.
    """
    cdef bint inside = v >= 0 and v < VALUE_RANGE
    cdef int32_t row
    if value_t is double or value_t is float:
        row = <int32_t> (v if inside else <value_t> VALUE_RANGE)  # (no out-of-range conversion)
        return row if <value_t> row == v else VALUE_RANGE
    else:
        return <int32_t> v if inside else VALUE_RANGE


cdef Py_ssize_t _n_values(const int32_t* table, Py_ssize_t n_classes, Py_ssize_t limit) noexcept nogil:
    """The number of values (0 .. VALUE_RANGE - 1) counted in a column's table, or ``limit + 1``
    as soon as it is more than ``limit``."""
    cdef Py_ssize_t v, c, n_values = 0
    cdef count_t row
    for v in range(VALUE_RANGE):
        row = 0
        for c in range(n_classes):
            row += table[v * n_classes + c]
        if row > 0:
            n_values += 1
            if n_values > limit:
                return n_values
    return n_values


cdef int _column_information(const int32_t* table, Py_ssize_t n_classes, Py_ssize_t m, Py_ssize_t max_levels,
                             count_t* work, double* information, int32_t* n_levels) noexcept nogil:
    """From the (value, class) counts ``table`` (VALUE_RANGE x n_classes) of one column: the
    number of distinct values and I(X;C); returns 1 when the column has at most ``max_levels``
    values (counted), 0 otherwise (left to the caller).  ``work`` has room for
    VALUE_RANGE * n_classes + VALUE_RANGE + n_classes counts."""
    cdef Py_ssize_t v, c, cell = 0
    cdef Py_ssize_t n_values = _n_values(table, n_classes, max_levels)
    cdef count_t* xy = work
    cdef count_t* px
    cdef count_t* pc
    cdef count_t row
    if n_values > max_levels:
        return 0
    px = xy + n_values * n_classes
    pc = px + n_values
    for c in range(n_classes):
        pc[c] = 0
    for v in range(VALUE_RANGE):  # the table of the codes: the nonzero rows, in value order
        row = 0
        for c in range(n_classes):
            row += table[v * n_classes + c]
        if row == 0:
            continue
        px[cell // n_classes] = row
        for c in range(n_classes):
            xy[cell] = table[v * n_classes + c]
            pc[c] += table[v * n_classes + c]
            cell += 1
    information[0] = mutual_information_of_table(xy, px, n_values, pc, n_classes, m)
    n_levels[0] = <int32_t> n_values
    return 1


cdef inline int32_t _not_counted(const int32_t* table, Py_ssize_t n_classes) noexcept nogil:
    """The number of values of a column that are not counted (the last row of its table)."""
    cdef int32_t total = 0
    cdef Py_ssize_t c
    for c in range(n_classes):
        total += table[VALUE_RANGE * n_classes + c]
    return total


cdef bint _every_column_left(const int32_t* tables, Py_ssize_t width, Py_ssize_t n_classes) noexcept nogil:
    """Whether every column of a block has a value that is not counted."""
    cdef Py_ssize_t c
    for c in range(width):
        if _not_counted(tables + c * (VALUE_RANGE + 1) * n_classes, n_classes) == 0:
            return False
    return True


cdef bint _every_column_binary(const int32_t* tables, Py_ssize_t width, Py_ssize_t n_classes) noexcept nogil:
    """Whether every column of a block holds at most two values, all counted (0 .. 63), so far."""
    cdef Py_ssize_t c, column_cells = (VALUE_RANGE + 1) * n_classes
    cdef const int32_t* table
    for c in range(width):
        table = tables + c * column_cells
        if _not_counted(table, n_classes) != 0 or _n_values(table, n_classes, 2) > 2:
            return False
    return True


cdef extern from *:
    """
    /* Two classes, a contiguous float64 (or uint8: its own codes) column (a DataFrame's column-major values): the (value,
       class) table by byte compares instead of one increment per value.

       fstools_value_codes writes code[i] = x[i] when x[i] is an integer in 0 .. 63, else 255,
       for i in start .. stop - 1, and returns the largest code (255 when some value is not
       counted).  fstools_two_class_counts counts, for every value v < n_values, the codes equal
       to v and those of them in class 1 (positive[i] is 1 for a row of class 1, else 0), 32
       bytes at a time in byte lanes (a lane counts at most 255 before it is added to the
       totals) and four values at a time, added to table[2 v] (rows of v in class 0) and
       table[2 v + 1] (in class 1).  The same counts as the increments, so the same table and the same bits of
       I(X;C).  Measured on 10 levels, 2,000 x 500, one thread: 0.78 ms against 1.56 ms for the
       interleaved increments of _count_column (codes 0.27 of it, counts 0.26; perf). */
    #if defined(__GNUC__) && !defined(__clang__) && defined(__BYTE_ORDER__) \
        && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* (GCC's __builtin_shuffle; the lowest mantissa byte is byte 0 of a lane on little-endian
       machines only; elsewhere the same counts by plain loops) */
    #define FSTOOLS_BYTE_COUNTS 1
    #include <string.h>
    typedef unsigned char fstools_v32u8 __attribute__((vector_size(32)));
    typedef double fstools_v4d_ct __attribute__((vector_size(32)));
    typedef long long fstools_v4i_ct __attribute__((vector_size(32)));
    #else
    #define FSTOOLS_BYTE_COUNTS 0
    #endif

    static inline unsigned char fstools_value_code(double value) {
        /* value itself when an integer in 0 .. 63, else 255 (NaN fails both comparisons) */
        if (!(value >= 0.0 && value < 64.0))
            return 255;
        return (double) (int) value == value ? (unsigned char) (int) value : 255;
    }

    FSTOOLS_VECTOR_CLONES
    static unsigned char fstools_value_codes(const double* restrict x, Py_ssize_t start, Py_ssize_t stop,
                                             unsigned char* restrict code)
    {
        unsigned char largest = 0;
        Py_ssize_t i = start;
    #if FSTOOLS_BYTE_COUNTS
        /* Eight values at a time.  For 0 <= v < 64, v + 2^52 is exact when v is an integer and its
           lowest mantissa byte is then v; a value that is not an integer in [0, 64) (NaN fails
           every comparison) gets all its bits set: its lowest byte 255. */
        const fstools_v4d_ct zero = {0.0, 0.0, 0.0, 0.0}, top = {64.0, 64.0, 64.0, 64.0};
        const fstools_v4d_ct magic = {4503599627370496.0, 4503599627370496.0, 4503599627370496.0,
                                      4503599627370496.0};
        /* the lowest byte of each of eight 64-bit lanes, picked by one shuffle */
        const fstools_v32u8 low_bytes = {0, 8, 16, 24, 32, 40, 48, 56, 0, 0, 0, 0, 0, 0, 0, 0,
                                         0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        for (; i + 8 <= stop; i += 8) {
            fstools_v4d_ct v, w;
            memcpy(&v, x + i, 32);
            memcpy(&w, x + i + 4, 32);
            const fstools_v4d_ct shifted_v = v + magic, shifted_w = w + magic;
            const fstools_v4i_ct counted_v = (v >= zero) & (v < top) & ((shifted_v - magic) == v);
            const fstools_v4i_ct counted_w = (w >= zero) & (w < top) & ((shifted_w - magic) == w);
            const fstools_v32u8 bits_v = (fstools_v32u8) ((fstools_v4i_ct) shifted_v | ~counted_v);
            const fstools_v32u8 bits_w = (fstools_v32u8) ((fstools_v4i_ct) shifted_w | ~counted_w);
            const fstools_v32u8 picked = __builtin_shuffle(bits_v, bits_w, low_bytes);
            memcpy(code + i, &picked, 8);
        }
    #endif
        for (; i < stop; ++i)
            code[i] = fstools_value_code(x[i]);
        for (i = start; i < stop; ++i)  /* (a byte maximum GCC vectorises) */
            largest = code[i] > largest ? code[i] : largest;
        return largest;
    }

    #if FSTOOLS_BYTE_COUNTS
    static void fstools_add_lanes(const fstools_v32u8* lanes, int n, int32_t* totals)
    {
        int k, b;
        unsigned char bytes[32];
        for (k = 0; k < n; ++k) {
            memcpy(bytes, &lanes[k], 32);
            for (b = 0; b < 32; ++b)
                totals[k] += bytes[b];
        }
    }
    #endif

    FSTOOLS_VECTOR_CLONES
    static unsigned char fstools_byte_max(const unsigned char* restrict x, Py_ssize_t n)
    {
        /* the largest of n bytes (a uint8 or bool column's largest value; GCC vectorises it) */
        unsigned char largest = 0;
        Py_ssize_t i;
        for (i = 0; i < n; ++i)
            largest = x[i] > largest ? x[i] : largest;
        return largest;
    }

    FSTOOLS_VECTOR_CLONES
    static void fstools_two_class_counts(const unsigned char* restrict code, const unsigned char* restrict positive,
                                         Py_ssize_t m, int n_values, int32_t* restrict table)
    {
        int v, k;
        Py_ssize_t i;
    #if FSTOOLS_BYTE_COUNTS
        const Py_ssize_t whole = m - m % 32;
        for (v = 0; v < n_values; v += 4) {
            const int group = n_values - v < 4 ? n_values - v : 4;
            fstools_v32u8 all[4], ones[4], value[4];
            int32_t all_total[4] = {0, 0, 0, 0}, ones_total[4] = {0, 0, 0, 0};
            int in_lanes = 0;
            for (k = 0; k < 4; ++k) {
                const unsigned char level = (unsigned char) (k < group ? v + k : 254);
                for (i = 0; i < 32; ++i)
                    value[k][i] = level;
                all[k] = value[k] - value[k];
                ones[k] = all[k];
            }
            for (i = 0; i < whole; i += 32) {
                fstools_v32u8 c, p;
                memcpy(&c, code + i, 32);
                memcpy(&p, positive + i, 32);
                for (k = 0; k < 4; ++k) {
                    const fstools_v32u8 hit = (fstools_v32u8) (c == value[k]);  /* 255 or 0 */
                    all[k] -= hit;                                              /* + 1 */
                    ones[k] += hit & p;
                }
                if (++in_lanes == 255) {
                    fstools_add_lanes(all, 4, all_total);
                    fstools_add_lanes(ones, 4, ones_total);
                    for (k = 0; k < 4; ++k) {
                        all[k] = value[k] - value[k];
                        ones[k] = all[k];
                    }
                    in_lanes = 0;
                }
            }
            fstools_add_lanes(all, 4, all_total);
            fstools_add_lanes(ones, 4, ones_total);
            for (k = 0; k < group; ++k) {
                table[2 * (v + k)] += all_total[k] - ones_total[k];
                table[2 * (v + k) + 1] += ones_total[k];
            }
        }
        for (i = whole; i < m; ++i)
            table[2 * code[i] + positive[i]] += 1;
    #else
        for (i = 0; i < m; ++i)
            table[2 * code[i] + positive[i]] += 1;
    #endif
    }

    /* Rows of a row-major block (two classes): after the codes of a row (fstools_value_codes
       over its width columns), the largest counted code of the row, and for each value
       v <= top, lanes[v * width + c] += 1 where the row's code in column c is v (byte lanes,
       one per column, added to the tables every 255 rows); not_counted[c] |= 1 where it is 255. */
    FSTOOLS_VECTOR_CLONES
    static unsigned char fstools_row_top(const unsigned char* restrict code, Py_ssize_t width,
                                         unsigned char* restrict not_counted)
    {
        unsigned char top = 0;
        Py_ssize_t c;
        for (c = 0; c < width; ++c)  /* (two byte loops GCC vectorises) */
            not_counted[c] |= (unsigned char) (code[c] == 255);
        for (c = 0; c < width; ++c)
            top = code[c] > top ? code[c] : top;
        if (top == 255) {  /* (rare: a value not counted in the row) the largest counted one */
            top = 0;
            for (c = 0; c < width; ++c)
                top = code[c] != 255 && code[c] > top ? code[c] : top;
        }
        return top;
    }

    FSTOOLS_VECTOR_CLONES
    static void fstools_row_lanes(const unsigned char* restrict code, Py_ssize_t width, int top,
                                  unsigned char* restrict lanes)
    {
        int v;
        Py_ssize_t c;
        for (v = 0; v <= top; ++v) {
            unsigned char* restrict lane = lanes + (Py_ssize_t) v * width;
            const unsigned char value = (unsigned char) v;
            for (c = 0; c < width; ++c)  /* (byte compares: 32 columns a vector) */
                lane[c] += (unsigned char) (code[c] == value);
        }
    }
    """
    unsigned char row_top "fstools_row_top"(const unsigned char* code, Py_ssize_t width,
                                            unsigned char* not_counted) noexcept nogil
    void row_lanes "fstools_row_lanes"(const unsigned char* code, Py_ssize_t width, int top,
                                       unsigned char* lanes) noexcept nogil
    unsigned char value_codes "fstools_value_codes"(const double* x, Py_ssize_t start, Py_ssize_t stop,
                                                    unsigned char* code) noexcept nogil
    unsigned char byte_max "fstools_byte_max"(const unsigned char* x, Py_ssize_t n) noexcept nogil
    void two_class_counts "fstools_two_class_counts"(const unsigned char* code, const unsigned char* positive,
                                                     Py_ssize_t m, int n_values, int32_t* table) noexcept nogil


cdef bint _count_rows_by_bytes(const double* X, Py_ssize_t row_stride, Py_ssize_t start, Py_ssize_t m,
                               Py_ssize_t first, Py_ssize_t width, const int32_t* y, int32_t* tables,
                               uint8_t* scratch, SignalCheck* check) noexcept nogil:
    """Rows ``start .. m - 1`` of a row-major block of two classes added to its tables by byte
    compares (``fstools_row_lanes``: a byte lane per column, class and value, added to the tables
    every 255 rows) instead of one increment per value; a column with a value that is not
    counted gets one count in its table's last row (it is then left, as by the increments).
    ``scratch`` has room for (2 * VALUE_RANGE + 2) * width bytes.  Returns True when stopped
    (Ctrl-C)."""
    cdef Py_ssize_t column_cells = (VALUE_RANGE + 1) * 2
    cdef uint8_t* lanes = scratch                       # [class][value][column]
    cdef uint8_t* code = scratch + 2 * VALUE_RANGE * width
    cdef uint8_t* not_counted = code + width
    cdef Py_ssize_t i, c, v, k, in_lanes = 0
    cdef int top = 0, row_largest
    memset(lanes, 0, 2 * VALUE_RANGE * width)
    memset(not_counted, 0, width)
    for v in range(VALUE_RANGE):  # the largest value counted in the rows before start
        for c in range(width):
            if tables[c * column_cells + v * 2] or tables[c * column_cells + v * 2 + 1]:
                top = <int> v
                break
    for i in range(start, m):
        value_codes(X + i * row_stride + first, 0, width, code)
        row_largest = row_top(code, width, not_counted)
        if row_largest > top:
            top = row_largest
        row_lanes(code, width, top, lanes + y[i] * VALUE_RANGE * width)
        in_lanes += 1
        if in_lanes == 255 or i == m - 1:
            for k in range(2):
                for v in range(top + 1):
                    for c in range(width):
                        tables[c * column_cells + v * 2 + k] += lanes[(k * VALUE_RANGE + v) * width + c]
                        lanes[(k * VALUE_RANGE + v) * width + c] = 0
            in_lanes = 0
        if i % SIGNAL_ROWS == SIGNAL_ROWS - 1 and stop_requested(check):
            return True
    for c in range(width):
        if not_counted[c]:
            tables[c * column_cells + VALUE_RANGE * 2] += 1
    return False


cdef void _count_row_block(const value_t* X, Py_ssize_t row_stride, Py_ssize_t m, Py_ssize_t first,
                           Py_ssize_t width, const int32_t* y, Py_ssize_t n_classes, Py_ssize_t max_levels,
                           int32_t* tables, count_t* work, double* out, int32_t* levels,
                           int8_t* status, SignalCheck* check, uint8_t* byte_scratch) noexcept nogil:
    """Columns ``first .. first + width - 1`` of a row-major X, read a row at a time; with
    ``byte_scratch`` (float64, two classes), the rows after the first FIRST_ROWS by byte compares
    (:func:`_count_rows_by_bytes`: 10 levels, 2,000 x 500: 1.5 -> 0.76 ms)."""
    cdef Py_ssize_t i, c, column_cells = (VALUE_RANGE + 1) * n_classes
    cdef const value_t* row
    cdef int32_t* cell
    memset(tables, 0, width * column_cells * sizeof(int32_t))
    for i in range(m):
        row = X + i * row_stride + first
        cell = tables + y[i]
        if n_classes == 2:  # two classes (the common case): constants, the index is shifts and adds
            # (10 levels, 2,000 x 500 float64: 1.6 ms against 1.8)
            for c in range(width):
                cell[c * ((VALUE_RANGE + 1) * 2) + _table_row(row[c]) * 2] += 1
        else:
            for c in range(width):
                cell[c * column_cells + _table_row(row[c]) * n_classes] += 1
        # After FIRST_ROWS rows, a block is left to the general path (no need to read on) when
        # every column holds a value that is not counted (continuous columns: it codes them), or
        # when every column looks binary (it counts 0/1 columns on bit-planes written straight
        # from X: Dorothea-like 800 x 100,000, 70 ms against 180 here).
        if i == FIRST_ROWS - 1 and (_every_column_left(tables, width, n_classes)
                                    or _every_column_binary(tables, width, n_classes)):
            for c in range(width):
                status[first + c] = _LEFT
            return
        if value_t is double:
            if byte_scratch != NULL and i == FIRST_ROWS - 1 and i + 1 < m:
                if _count_rows_by_bytes(X, row_stride, FIRST_ROWS, m, first, width, y, tables, byte_scratch, check):
                    return  # Ctrl-C (the caller raises)
                break
        if i % SIGNAL_ROWS == SIGNAL_ROWS - 1 and stop_requested(check):
            return  # Ctrl-C (the caller raises)
    for c in range(width):
        status[first + c] = _LEFT
        if (_not_counted(tables + c * column_cells, n_classes) == 0
                and _column_information(tables + c * column_cells, n_classes, m, max_levels, work,
                                        &out[first + c], &levels[first + c])):
            status[first + c] = _COUNTED




cdef void _count_two_class_column(const value_t* x, Py_ssize_t m, Py_ssize_t j, const uint8_t* positive,
                                  Py_ssize_t max_levels, int32_t* table, count_t* work, uint8_t* scratch,
                                  double* out, int32_t* levels, int8_t* status, SignalCheck* check) noexcept nogil:
    """:func:`_count_column` of a contiguous float64 or uint8 (bool) column of an X with two classes,
    by byte compares (``fstools_two_class_counts``), BYTE_CHUNK rows at a time (a look at Ctrl-C
    between them).  ``positive[i]`` is 1 for a row of class 1, else 0 (all m rows, made once for
    every column).  A float64 column is coded first (``fstools_value_codes``: 255 for a value that
    is not an integer in 0 .. 63; ``scratch`` has room for min(m, BYTE_CHUNK) codes); a uint8 column
    is its own codes when its largest value is below VALUE_RANGE (mim on Dorothea-like 800 x 100,000
    column-major uint8: 102 -> 40 ms)."""
    cdef Py_ssize_t head = FIRST_ROWS if m > FIRST_ROWS else m
    cdef Py_ssize_t start, length
    cdef const uint8_t* code
    cdef unsigned char largest
    status[j] = _LEFT
    if value_t is double:
        if value_codes(x, 0, head, scratch) == 255:
            return  # a value that is not counted in the first rows (a continuous column): the general path
    elif value_t is uint8_t:
        if byte_max(x, head) >= VALUE_RANGE:
            return
    else:
        return  # (no other type is counted by bytes)
    memset(table, 0, (VALUE_RANGE + 1) * 2 * sizeof(int32_t))
    start = 0
    while start < m:
        length = BYTE_CHUNK if m - start > BYTE_CHUNK else m - start
        if value_t is double:
            largest = value_codes(x + start, 0, length, scratch)
            code = scratch
        else:
            largest = byte_max(<const uint8_t*> (x + start), length)
            code = <const uint8_t*> (x + start)
            if largest >= VALUE_RANGE:
                largest = 255
        if largest == 255:
            return  # a value that is not counted
        two_class_counts(code, positive + start, length, largest + 1, table)
        start += length
        if start < m and stop_requested(check):
            return  # Ctrl-C (the caller raises)
    if _column_information(table, 2, m, max_levels, work, &out[j], &levels[j]):
        status[j] = _COUNTED


cdef void _count_column(const value_t* x, Py_ssize_t stride, Py_ssize_t m, Py_ssize_t j, const int32_t* y,
                        Py_ssize_t n_classes, Py_ssize_t max_levels, int32_t* table, count_t* work,
                        double* out, int32_t* levels, int8_t* status, SignalCheck* check) noexcept nogil:
    """Column ``j`` (values ``x[0], x[stride], ...``) of an X that is not row-major.

    Counted in COLUMN_SPLIT interleaved tables (rows i mod COLUMN_SPLIT; ``table`` has room for
    them), summed at the end: consecutive values in the same cell (a binary column of mostly
    zeros, a dominant class) then do not wait on each other's increment.  The same counts.
    """
    cdef Py_ssize_t i, r, chunk, cells = (VALUE_RANGE + 1) * n_classes
    cdef Py_ssize_t end = m - m % COLUMN_SPLIT
    memset(table, 0, COLUMN_SPLIT * cells * sizeof(int32_t))
    status[j] = _LEFT
    for chunk in range(end // COLUMN_SPLIT):
        i = chunk * COLUMN_SPLIT
        for r in range(COLUMN_SPLIT):
            table[r * cells + _table_row(x[(i + r) * stride]) * n_classes + y[i + r]] += 1
        if i + COLUMN_SPLIT == FIRST_ROWS and _split_not_counted(table, cells, n_classes) > 0:
            return  # a continuous column: the general path codes it
        if (i + COLUMN_SPLIT) % SIGNAL_ROWS == 0 and stop_requested(check):
            return  # Ctrl-C (the caller raises)
    for i in range(end, m):
        table[_table_row(x[i * stride]) * n_classes + y[i]] += 1
    for r in range(1, COLUMN_SPLIT):
        for i in range(cells):
            table[i] += table[r * cells + i]
    if _not_counted(table, n_classes) == 0 and _column_information(table, n_classes, m, max_levels, work, &out[j],
                                                                   &levels[j]):
        status[j] = _COUNTED


cdef int32_t _split_not_counted(const int32_t* table, Py_ssize_t cells, Py_ssize_t n_classes) noexcept nogil:
    """:func:`_not_counted` over the COLUMN_SPLIT tables of :func:`_count_column`."""
    cdef int32_t total = 0
    cdef Py_ssize_t r
    for r in range(COLUMN_SPLIT):
        total += _not_counted(table + r * cells, n_classes)
    return total


def discrete_class_information(X, y, Py_ssize_t n_classes, Py_ssize_t max_levels, out, levels, status,
                               int n_threads=1):
    """I(X_j;C) in nats of every column of ``X`` that holds integers in 0 .. 63, from one read of X.

    A column is counted when every value is an integer in ``0 .. VALUE_RANGE - 1``
    (VALUE_RANGE = 64) and it has at most ``max_levels`` distinct values: then
    ``out[j]`` is I(X_j;C), ``levels[j]`` the number of distinct values and
    ``status[j]`` :data:`COLUMN_COUNTED`; bit for bit what
    :func:`fstools._ext._entropy.feature_class_information` gives on the codes of
    :func:`fstools._ext._entropy.discrete_column_codes`.  Every other column (a
    negative, larger or non-integer value, NaN or infinity, more distinct values)
    gets :data:`COLUMN_LEFT` and its ``out`` and ``levels`` are left as they are.

    Parameters
    ----------
    X : ndarray, shape (m, n_features)
        float64, float32, int64, int32, int16, int8, uint8 or bool; any strides
        (row-major is read a row at a time, a block of columns per thread).
    y : ndarray of int32, shape (m,)
        Class codes in ``0 .. n_classes - 1``.
    n_classes : int
        1 .. 1024.
    max_levels : int
        1 .. VALUE_RANGE.
    out : ndarray of float64, shape (n_features,)
    levels : ndarray of int32, shape (n_features,)
    status : ndarray of int8, shape (n_features,)
    n_threads : int
        OpenMP threads over blocks of columns; the result does not depend on it.
    """
    X = value_matrix(X)
    if X.shape[0] == 0:
        raise ValueError("X: has no rows")
    if not 1 <= n_classes <= 1024:
        raise ValueError(f"n_classes: must be in 1..1024; got {n_classes}")
    if not 1 <= max_levels <= VALUE_RANGE:
        raise ValueError(f"max_levels: must be in 1..{VALUE_RANGE}; got {max_levels}")
    n_features = X.shape[1]
    for name, value, dtype, shape in (("y", y, np.int32, (X.shape[0],)), ("out", out, np.float64, (n_features,)),
                                      ("levels", levels, np.int32, (n_features,)),
                                      ("status", status, np.int8, (n_features,))):
        if (not isinstance(value, np.ndarray) or value.dtype != dtype or value.shape != shape
                or not value.flags.c_contiguous or (name != "y" and not value.flags.writeable)):
            raise TypeError(f"{name}: must be a C-contiguous NumPy array of {np.dtype(dtype).name} and shape "
                            f"{shape}" + ("" if name == "y" else ", writeable"))
    if y.size and (y.min() < 0 or y.max() >= n_classes):
        raise ValueError(f"y: class codes must be in 0..{n_classes - 1}")
    return _discrete_class_information(X, y, n_classes, max_levels, out, levels, status, n_threads)


def _discrete_class_information(const value_t[:, :] X, const int32_t[::1] y, Py_ssize_t n_classes,
                                Py_ssize_t max_levels, double[::1] out, int32_t[::1] levels, int8_t[::1] status,
                                int n_threads):
    """:func:`discrete_class_information` for one element type."""
    cdef Py_ssize_t m = X.shape[0]
    cdef Py_ssize_t n = X.shape[1]
    cdef Py_ssize_t row_stride = X.strides[0] // sizeof(value_t)
    cdef Py_ssize_t column_stride = X.strides[1] // sizeof(value_t)
    cdef Py_ssize_t column_cells = (VALUE_RANGE + 1) * n_classes
    cdef Py_ssize_t work_cells = VALUE_RANGE * n_classes + VALUE_RANGE + n_classes
    cdef Py_ssize_t width, n_blocks, b, first, j
    cdef int32_t[::1] failed = np.zeros(1, dtype=np.int32)  # (a variable set in a parallel block is private)
    cdef int32_t* tables
    cdef count_t* work
    cdef uint8_t* code = NULL
    cdef bint row_major
    check_threads(n_threads)
    if n == 0:
        return
    if X.strides[0] % sizeof(value_t) or X.strides[1] % sizeof(value_t):
        raise ValueError("X: strides must be multiples of the element size")
    if m >= 2147483647:
        raise ValueError(f"X: at most 2147483646 rows (int32 counts); got {m}")
    if m == 1:
        row_stride = 1  # one row: every column is one value
    row_major = column_stride == 1 and m > 1
    width = max(1, min(MAX_BLOCK_COLUMNS, BLOCK_TABLE_BYTES // (column_cells * <Py_ssize_t> sizeof(int32_t))))
    if not row_major:
        width = 1
        column_cells *= COLUMN_SPLIT  # the interleaved tables of _count_column
    width = min(width, (n + n_threads - 1) // n_threads)  # a block for every thread
    n_blocks = (n + width - 1) // width
    # Two classes and contiguous float64 or uint8 (bool) columns: counted by byte compares
    # (_count_two_class_column), the class flags made once
    cdef bint byte_counts = ((value_t is double or value_t is uint8_t) and n_classes == 2 and not row_major
                             and row_stride == 1)
    cdef uint8_t[::1] positive = (np.asarray(y) == 1).view(np.uint8) if byte_counts else None
    # and row-major float64 blocks of two classes, after their first rows (_count_rows_by_bytes)
    cdef bint byte_rows = value_t is double and n_classes == 2 and row_major and m > FIRST_ROWS
    cdef const value_t* base = &X[0, 0]
    cdef SignalCheck check
    signal_check_init(&check, 1)
    with nogil, parallel(num_threads=n_threads):
        tables = <int32_t*> malloc(width * column_cells * sizeof(int32_t))
        work = <count_t*> malloc(work_cells * sizeof(count_t))
        code = NULL  # (private to each thread: set in every one)
        if byte_counts and value_t is double:  # (the codes of a float64 chunk; a uint8 column is its own)
            code = <uint8_t*> malloc((BYTE_CHUNK if m > BYTE_CHUNK else m) * sizeof(uint8_t))
        elif byte_rows:
            code = <uint8_t*> malloc((2 * VALUE_RANGE + 2) * width * sizeof(uint8_t))
        if tables == NULL or work == NULL or (((byte_counts and value_t is double) or byte_rows) and code == NULL):
            failed[0] = OUT_OF_MEMORY
        else:
            for b in prange(n_blocks, schedule='dynamic'):
                if stop_requested(&check):
                    continue
                first = b * width
                if row_major:
                    _count_row_block(base, row_stride, m, first, block_length(first, width, n), &y[0], n_classes,
                                     max_levels, tables, work, &out[0], &levels[0], &status[0], &check, code)
                elif byte_counts:
                    _count_two_class_column(base + first * column_stride, m, first, &positive[0], max_levels,
                                            tables, work, code, &out[0], &levels[0], &status[0], &check)
                else:
                    _count_column(base + first * column_stride, row_stride, m, first, &y[0], n_classes,
                                  max_levels, tables, work, &out[0], &levels[0], &status[0], &check)
        free(tables)
        free(work)
        free(code)
    raise_if_stopped(&check)
    if failed[0] != OK:
        raise MemoryError("cannot allocate the tables of discrete_class_information")

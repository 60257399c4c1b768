# cython: language_level=3
"""Status codes, argument checks and small nogil helpers shared by the kernels.

The inline helpers are compiled into every kernel that cimports them; the checks
(``check_*``, implemented in ``_common.pyx``) raise ValueError with a message that
names the argument, and are called by the ``def`` wrappers before any nogil loop.

Ctrl-C in a long nogil loop: the loop keeps a :c:type:`SignalCheck` and asks
:func:`stop_requested` between work items (a feature, a block of rows, a tile);
the master thread (OpenMP thread 0, or the only thread) takes the GIL at most
every :data:`SIGNAL_CHECK_SECONDS` to run ``PyErr_CheckSignals``, and when a
handler raised (KeyboardInterrupt) it sets ``stop``, which every thread reads:
the remaining items are skipped.  After the loop, with the GIL, the ``def``
wrapper frees what it allocated and calls :func:`raise_if_stopped`, which
raises the handler's exception.
"""
from libc.stdint cimport int8_t, int16_t, int32_t

from fstools._ext._typedefs cimport code_t

# Status codes of the nogil cores: returned, or stored per work item of a parallel
# loop and raised after it.  Where a kernel reduces the codes of a loop with
# :func:`max_status`, the larger code wins (OUT_OF_MEMORY over NON_FINITE).
cdef enum:
    OK = 0
    NON_FINITE = 1
    OUT_OF_MEMORY = 2
    BAD_CODE = 3
    BAD_LABEL = 4
    ROW_TOO_WIDE = 5
    TOO_MANY_SYNTHETIC = 6


cdef inline Py_ssize_t first_out_of_range(const code_t* codes, Py_ssize_t n,
                                          Py_ssize_t n_levels) noexcept nogil:
    """Index of the first of ``codes[0:n]`` outside ``0 .. n_levels-1``, or -1 if none.

    Blocks of 4096 codes are tested without a branch (the compiler vectorises the test,
    a tenth of the time of a loop that stops at the first bad code); a block that has a
    bad code is then searched for the first one.
    """
    cdef Py_ssize_t i, start, stop
    cdef Py_ssize_t largest = 127 if code_t is int8_t else (32767 if code_t is int16_t else 2147483647)
    cdef code_t top = <code_t> (n_levels - 1 if n_levels - 1 < largest else largest)
    cdef bint bad
    if n_levels < 1:
        return 0 if n > 0 else -1
    for start in range(0, n, 4096):
        stop = start + 4096 if n - start > 4096 else n
        bad = False
        for i in range(start, stop):
            bad = bad | (codes[i] < 0) | (codes[i] > top)
        if bad:
            for i in range(start, stop):
                if codes[i] < 0 or codes[i] > top:
                    return i
    return -1


cdef inline int max_status(const int32_t[::1] status) noexcept nogil:
    """The largest status code of a parallel loop (OK for none)."""
    cdef int worst = OK
    cdef Py_ssize_t i
    for i in range(status.shape[0]):
        if status[i] > worst:
            worst = status[i]
    return worst


cdef inline Py_ssize_t block_length(Py_ssize_t first, Py_ssize_t block_size,
                                    Py_ssize_t total) noexcept nogil:
    """Length of the block of at most ``block_size`` items starting at ``first`` of ``total``."""
    return block_size if total - first > block_size else total - first


cdef extern from *:
    """
    #ifdef _OPENMP
    #include <omp.h>
    static inline int fstools_thread_number(void) { return omp_get_thread_num(); }
    static inline int fstools_load_flag(int* flag) {
        int value;
        #pragma omp atomic read
        value = *flag;
        return value;
    }
    static inline void fstools_store_flag(int* flag, int value) {
        #pragma omp atomic write
        *flag = value;
    }
    #else
    static inline int fstools_thread_number(void) { return 0; }
    static inline int fstools_load_flag(int* flag) { return *(volatile int*) flag; }
    static inline void fstools_store_flag(int* flag, int value) { *(volatile int*) flag = value; }
    #endif
    #ifdef _WIN32
    #include <windows.h>
    static inline double fstools_seconds(void) { return (double) GetTickCount64() / 1000.0; }
    #else
    #include <time.h>
    static inline double fstools_seconds(void) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        return (double) now.tv_sec + 1e-9 * (double) now.tv_nsec;
    }
    #endif
    #define FSTOOLS_SIGNAL_CHECK_SECONDS 0.02
    /* FSTOOLS_VECTOR_CLONES before a vectorisable C loop of a kernel: an AVX2 copy of it besides
       the baseline one, chosen at load time by the CPU (GCC on x86-64 Linux; the same IEEE
       operations in the same order: the same bits, wider vectors). */
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    #define FSTOOLS_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define FSTOOLS_VECTOR_CLONES
    #endif
    /* fstools_prefetch(p): ask for the cache line of p to be read ahead (a hint: no effect on
       the results; nothing where the compiler has no __builtin_prefetch). */
    #if defined(__GNUC__) || defined(__clang__)
    #define fstools_prefetch(p) __builtin_prefetch((p), 0, 1)
    #else
    #define fstools_prefetch(p) ((void) 0)
    #endif
    /* fstools_large_malloc(size), fstools_large_calloc(count, size): malloc and calloc, and
       for a buffer of FSTOOLS_LARGE_BYTES or more (which the C library maps afresh from the
       system at every call) the advice that its whole 2 MB pages be huge pages (Linux: fewer
       page faults, fewer TLB misses; nothing elsewhere).  Freed with free(). */
    #include <stdlib.h>
    #include <stdint.h>
    #define FSTOOLS_LARGE_BYTES ((size_t) 8 << 20)
    #if defined(__linux__)
    #include <sys/mman.h>
    static inline void fstools_advise_huge(void* memory, size_t size) {
        const uintptr_t page = (uintptr_t) 2 << 20;
        uintptr_t first, last;
        if (memory == NULL || size < FSTOOLS_LARGE_BYTES)
            return;
        first = ((uintptr_t) memory + page - 1) & ~(page - 1);
        last = ((uintptr_t) memory + size) & ~(page - 1);
        if (last > first)
            (void) madvise((void*) first, last - first, MADV_HUGEPAGE);
    }
    #else
    static inline void fstools_advise_huge(void* memory, size_t size) { (void) memory; (void) size; }
    #endif
    static inline void* fstools_large_malloc(size_t size) {
        void* memory = malloc(size);
        fstools_advise_huge(memory, size);
        return memory;
    }
    static inline void* fstools_large_calloc(size_t count, size_t size) {
        void* memory = calloc(count, size);
        if (count != 0 && size <= SIZE_MAX / count)
            fstools_advise_huge(memory, count * size);
        return memory;
    }
    """
    # Seconds between two looks at pending signals (Ctrl-C) in a long loop.
    double SIGNAL_CHECK_SECONDS "FSTOOLS_SIGNAL_CHECK_SECONDS"
    void prefetch "fstools_prefetch"(const void* p) noexcept nogil
    int thread_number "fstools_thread_number"() noexcept nogil
    int load_flag "fstools_load_flag"(int* flag) noexcept nogil
    void store_flag "fstools_store_flag"(int* flag, int value) noexcept nogil
    double monotonic_seconds "fstools_seconds"() noexcept nogil
    void* large_malloc "fstools_large_malloc"(size_t size) noexcept nogil
    void* large_calloc "fstools_large_calloc"(size_t count, size_t size) noexcept nogil


cdef struct SignalCheck:
    # Set once by the master thread, read by every thread (atomic) at every work item: alone in
    # its cache line (64 bytes of padding on each side), so that the master's writes to the
    # fields below do not make every other thread fetch the line again (false sharing).
    char _before_stop[64]
    int stop
    char _after_stop[64]
    # Written by the master thread only:
    double next_time      # monotonic time of the next look at the signals
    Py_ssize_t every      # calls of stop_requested between two readings of the clock
    Py_ssize_t countdown


cdef inline void signal_check_init(SignalCheck* check, Py_ssize_t every) noexcept nogil:
    """Start a loop's check; ``every``: calls between readings of the clock (1 for work
    items of a millisecond or more, more for short ones such as the rows of a stream)."""
    check.every = every if every > 1 else 1
    check.countdown = check.every
    check.next_time = monotonic_seconds() + SIGNAL_CHECK_SECONDS
    check.stop = 0


cdef inline bint stop_requested(SignalCheck* check) noexcept nogil:
    """True when the loop should stop (a signal handler raised, e.g. on Ctrl-C).

    Any thread may call it between work items; only the master thread looks at
    the signals (taking the GIL briefly), at most every SIGNAL_CHECK_SECONDS.
    """
    cdef double now
    if load_flag(&check.stop):
        return True
    if thread_number() != 0:
        return False
    check.countdown -= 1
    if check.countdown > 0:
        return False
    check.countdown = check.every
    now = monotonic_seconds()
    if now < check.next_time:
        return False
    if signals_raised():
        store_flag(&check.stop, 1)
        return True
    check.next_time = monotonic_seconds() + SIGNAL_CHECK_SECONDS
    return False


cdef bint signals_raised() noexcept nogil
cdef int raise_if_stopped(SignalCheck* check) except -1
cdef int check_threads(int n_threads) except -1
cdef int check_at_least_one(str name, Py_ssize_t value) except -1
cdef int check_length(str name, Py_ssize_t length, Py_ssize_t expected, str what) except -1
cdef int check_class_codes(str name, const int32_t[::1] codes, Py_ssize_t n_classes) except -1
cdef int check_double_strides(str name, Py_ssize_t row_stride, Py_ssize_t column_stride) except -1
# X as the kernels that read a matrix of values take it (bool viewed as uint8), or TypeError.
cdef object value_matrix(object X)

# cython: language_level=3
"""SplitMix64 (Steele, Lea and Flood 2014) on a caller-owned 64-bit state (inline, nogil).

An integer below ``bound`` by rejection (``z >= (2^64 - bound) mod bound``, then
``z mod bound``); a real in (0, 1) as ``((z >> 12) + 0.5) / 2^52``.
"""
from libc.stdint cimport uint64_t


cdef inline uint64_t next_random(uint64_t* state) noexcept nogil:
    """The next 64-bit output of SplitMix64; advances ``state``."""
    cdef uint64_t z
    state[0] = state[0] + <uint64_t> 0x9E3779B97F4A7C15ULL
    z = state[0]
    z = (z ^ (z >> 30)) * <uint64_t> 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t> 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t random_below(uint64_t* state, uint64_t bound) noexcept nogil:
    """Uniform integer in 0..bound-1 (bound >= 1), unbiased by rejection."""
    cdef uint64_t threshold = ((<uint64_t> 0) - bound) % bound
    cdef uint64_t z
    while True:
        z = next_random(state)
        if z >= threshold:
            return z % bound


cdef inline double random_open_unit(uint64_t* state) noexcept nogil:
    """Uniform real in the open interval (0, 1): ((z >> 12) + 0.5) / 2^52."""
    return (<double> (next_random(state) >> 12) + 0.5) * (1.0 / 4503599627370496.0)

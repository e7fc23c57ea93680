# SplitMix64 of docs/design.md, inline so that every compiled module gets its own copy.
from libc.stdint cimport uint64_t


cdef inline uint64_t sm_next(uint64_t* state) noexcept nogil:
    """Advance the generator and return its next output (all arithmetic mod 2^64)."""
    cdef uint64_t z
    state[0] += <uint64_t>0x9E3779B97F4A7C15ULL
    z = state[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t sm_below(uint64_t* state, uint64_t n) noexcept nogil:
    """``next() % n``: the design's below(n) (its small modulo bias is part of the contract)."""
    return sm_next(state) % n


cdef inline uint64_t match_seed_of(uint64_t seed, long long i) noexcept nogil:
    """The generator state match ``i`` of a run seeded ``seed`` starts from: the i-th output
    (0-based) of SplitMix64 started at ``seed`` (docs/design.md "Simulation"). The same for
    simulate's matches, the tournament's deals and VecEnv's tables."""
    cdef uint64_t st = seed + <uint64_t>i * <uint64_t>0x9E3779B97F4A7C15ULL
    return sm_next(&st)

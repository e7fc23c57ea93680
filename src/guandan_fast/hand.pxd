# The 128-bit card multiset of docs/design.md, shared by every compiled module.
# Everything here is inline so that each module gets its own copy: no cross-module calls
# in the hot path.
from libc.stdint cimport uint64_t

ctypedef uint64_t u64

cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil

cdef enum:
    N_KINDS = 54
    KIND_SB = 52
    KIND_HR = 53
    TYPE_SHIFT = 56
    RANK_SHIFT = 60
    T_PASS = 0
    T_SINGLE = 1
    T_PAIR = 2
    T_TRIPS = 3
    T_THREE_WITH_TWO = 4
    T_STRAIGHT = 5
    T_THREE_PAIR = 6
    T_TWO_TRIPS = 7
    T_BOMB = 8
    T_STRAIGHT_FLUSH = 9
    T_TRIBUTE = 10
    T_BACK = 11
    RANK_JOKER = 15

# The card bits of each word (lo: kinds 0..25 in 52 bits; hi: kinds 26..53 in 56 bits) and the
# low bit of every 2-bit count. Macros, because a value assigned in a .pxd is never initialised
# in the modules that cimport it.
cdef extern from *:
    """
    #define GF_LO_CARD_MASK 0x000FFFFFFFFFFFFFULL
    #define GF_HI_CARD_MASK 0x00FFFFFFFFFFFFFFULL
    #define GF_ODD_BITS 0x5555555555555555ULL
    """
    const u64 LO_CARD_MASK "GF_LO_CARD_MASK"
    const u64 HI_CARD_MASK "GF_HI_CARD_MASK"
    const u64 ODD_BITS "GF_ODD_BITS"

cdef struct Cards:
    u64 lo
    u64 hi

cdef inline int kind_count(u64 lo, u64 hi, int k) noexcept nogil:
    if k < 26:
        return <int>((lo >> (2 * k)) & 3)
    return <int>((hi >> (2 * (k - 26))) & 3)

cdef inline void kind_add(Cards* c, int k, int n) noexcept nogil:
    if k < 26:
        c.lo += (<u64>n) << (2 * k)
    else:
        c.hi += (<u64>n) << (2 * (k - 26))

cdef inline int card_total(u64 lo, u64 hi) noexcept nogil:
    lo &= LO_CARD_MASK
    hi &= HI_CARD_MASK
    return (__builtin_popcountll(lo & ODD_BITS) + 2 * __builtin_popcountll((lo >> 1) & ODD_BITS)
            + __builtin_popcountll(hi & ODD_BITS) + 2 * __builtin_popcountll((hi >> 1) & ODD_BITS))

cdef inline bint contains(u64 hand_lo, u64 hand_hi, u64 lo, u64 hi) noexcept nogil:
    """Is the multiset (lo, hi) (type/rank bits ignored) inside the hand?"""
    cdef int k
    hi &= HI_CARD_MASK
    for k in range(N_KINDS):
        if kind_count(lo, hi, k) > kind_count(hand_lo, hand_hi, k):
            return False
    return True

cdef inline int move_type(u64 hi) noexcept nogil:
    return <int>((hi >> TYPE_SHIFT) & 15)

cdef inline int move_rank(u64 hi) noexcept nogil:
    return <int>((hi >> RANK_SHIFT) & 15)

cdef inline int wild_kind(int level) noexcept nogil:
    return 13 + level - 2

# Python objects <-> words, implemented once in hand.pyx and used by every module that talks
# to Python (checked: they raise ValueError/TypeError on bad input).
cdef object words_of(object cards)           # (lo, hi) of card codes, as parse_cards accepts
cdef tuple codes_of(u64 lo, u64 hi)          # card codes of a multiset, canonical order
cdef object move_of(u64 lo, u64 hi)          # the Move of well-formed move words

# cython: language_level=3, boundscheck=False, wraparound=False
"""Hand encoding: card codes <-> the 128-bit multiset of docs/design.md.

These functions check their input (they are reachable from Python); the inline helpers in
hand.pxd do not, and are only called by compiled code on words built here.
"""
from guandan_fast.hand cimport u64, Cards, kind_count, card_total, N_KINDS

_SUITS = "SHCD"
_RANKS = "23456789TJQKA"
cdef dict _KIND = {s + r: i * 13 + j for i, s in enumerate(_SUITS) for j, r in enumerate(_RANKS)}
_KIND["SB"] = 52
_KIND["HR"] = 53
cdef tuple _CODES = tuple(sorted(_KIND, key=_KIND.get))
# Canonical display order (rank, then suit; jokers last) as a kind sequence.
cdef tuple _DISPLAY = tuple(sorted(range(54), key=lambda k: (k % 13, k // 13) if k < 52 else (13 + k - 52, 0)))


def encode(codes):
    """``(lo, hi)`` of canonical card codes; ValueError on an unknown code or a third copy.

    >>> encode(['S2', 'S2', 'HR'])
    (2, 18014398509481984)
    """
    cdef Cards c
    cdef int k
    c.lo = 0
    c.hi = 0
    for code in codes:
        k = _KIND.get(code, -1)
        if k < 0:
            raise ValueError(f"unknown card code {code!r}")
        if kind_count(c.lo, c.hi, k) == 2:
            raise ValueError(f"card {code!r} appears 3 times; there are only 2 copies of each card")
        if k < 26:
            c.lo += (<u64>1) << (2 * k)
        else:
            c.hi += (<u64>1) << (2 * (k - 26))
    return c.lo, c.hi


def decode(u64 lo, u64 hi):
    """Card codes of a multiset in canonical order (type and rank bits are ignored).

    >>> decode(*encode(['HR', 'S2', 'D9']))
    ('S2', 'D9', 'HR')
    """
    cdef list out = []
    cdef int k, n
    for k in _DISPLAY:
        n = kind_count(lo, hi, k)
        while n > 0:
            out.append(_CODES[k])
            n -= 1
    return tuple(out)


def count(u64 lo, u64 hi):
    """Number of cards in a multiset.

    >>> count(*encode('S2 S2 HR H7'.split()))
    4
    """
    return card_total(lo, hi)

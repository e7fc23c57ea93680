# cython: language_level=3, boundscheck=False, wraparound=False
"""Hand encoding: card codes <-> the 128-bit multiset of docs/design.md, and move words ->
``Move``. The one place where the compiled core meets card codes: ``movegen`` and ``game``
cimport ``words_of``, ``codes_of`` and ``move_of`` from here.

These functions check their input (they are reachable from Python); the inline helpers in
hand.pxd do not, and are only called by compiled code on words built here.
"""
from guandan_fast.hand cimport u64, kind_count, card_total, HI_CARD_MASK

from guandan_fast.cards import CARD_CODES, KIND_OF, parse_cards
from guandan_fast.moves import PASS, TYPE_NAMES, Move

cdef dict _KIND = dict(KIND_OF)
cdef tuple _CODES = CARD_CODES
cdef str _RANKS = "23456789TJQKA"
# Kinds in canonical display order: by rank, then suit S H C D; jokers last.
cdef tuple _DISPLAY = tuple([s * 13 + r for r in range(13) for s in range(4)] + [52, 53])
cdef tuple _TYPE_NAMES = TYPE_NAMES
cdef object _PASS = PASS
cdef object _Move_new = Move.__new__
cdef object _setattr = object.__setattr__


cdef object _slow_words(object cards):
    cdef u64 lo = 0, hi = 0
    cdef int k
    for code in parse_cards(cards):
        k = _KIND[code]
        if k < 26:
            lo += (<u64>1) << (2 * k)
        else:
            hi += (<u64>1) << (2 * (k - 26))
    return lo, hi


cdef object words_of(object cards):
    # Canonical codes take the fast path; anything else (suit symbols, lower case, '10', a
    # third copy, bad codes or types) goes through parse_cards, which names the problem.
    cdef u64 lo = 0, hi = 0
    cdef int k
    if isinstance(cards, str):
        tokens = cards.replace(",", " ").split()
    elif isinstance(cards, (list, tuple)):
        tokens = cards
    else:
        return _slow_words(cards)
    for code in tokens:
        kk = _KIND.get(code) if type(code) is str else None
        if kk is None:
            return _slow_words(cards)
        k = kk
        if kind_count(lo, hi, k) == 2:
            return _slow_words(cards)
        if k < 26:
            lo += (<u64>1) << (2 * k)
        else:
            hi += (<u64>1) << (2 * (k - 26))
    return lo, hi


cdef tuple codes_of(u64 lo, u64 hi):
    cdef list out = []
    cdef int k, n
    for k in _DISPLAY:
        n = kind_count(lo, hi, k)
        while n > 0:
            out.append(_CODES[k])
            n -= 1
    return tuple(out)


# Moves by their words: the same moves recur constantly in games and move lists, and a Move is
# immutable, so one object per move serves every caller (bounded: cleared when full).
cdef dict _MOVES = {}


cdef object move_of(u64 lo, u64 hi):
    # Move.from_words without its Python loop over 54 kinds (same fields; tested).
    cdef int t = <int>((hi >> 56) & 15), rc = <int>((hi >> 60) & 15)
    if t == 0:
        return _PASS
    key = (lo, hi)
    m = _MOVES.get(key)
    if m is not None:
        return m
    cdef tuple cards = codes_of(lo, hi & HI_CARD_MASK)
    name = _TYPE_NAMES[t]
    if t >= 10:
        rank = name
    elif rc == 15:
        rank = "JOKER" if name == "Bomb" else ("R" if cards[0] == "HR" else "B")
    elif rc == 1:
        rank = "A"
    else:
        rank = _RANKS[rc - 2]
    m = _Move_new(Move)
    _setattr(m, "type", name)
    _setattr(m, "rank", rank)
    _setattr(m, "cards", cards)
    _setattr(m, "_words", key)
    if len(_MOVES) >= 1 << 16:
        _MOVES.clear()
    _MOVES[key] = m
    return m


def encode(cards):
    """``(lo, hi)`` of cards (a string or an iterable of codes, as ``parse_cards`` takes them).

    >>> encode(['S2', 'S2', 'HR'])
    (2, 18014398509481984)
    >>> encode('S2 S2 S2')
    Traceback (most recent call last):
    ...
    ValueError: card 'S2' appears 3 times; there are only 2 copies of each card
    """
    return words_of(cards)


def decode(u64 lo, u64 hi):
    """Card codes of a multiset in canonical order (type and rank bits are ignored).

    >>> decode(*encode(['HR', 'S2', 'D9']))
    ('S2', 'D9', 'HR')
    """
    return codes_of(lo, hi & HI_CARD_MASK)


def count(u64 lo, u64 hi):
    """Number of cards in a multiset.

    >>> count(*encode('S2 S2 HR H7'))
    4
    """
    return card_total(lo, hi)


def move(lo, hi):
    """The ``Move`` of move words (``Move.from_words`` in compiled code).

    >>> move(*Move('Pair', '9', 'H7 D9').words)
    Move('Pair', '9', ('H7', 'D9'))
    """
    # move_of trusts its words (it indexes without bounds checks): Move.from_words checks
    # every field first and raises ValueError naming what is wrong.
    m = Move.from_words(lo, hi)
    return move_of(m._words[0], m._words[1]) if m is not _PASS else _PASS

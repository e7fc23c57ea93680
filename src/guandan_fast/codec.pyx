# cython: language_level=3, boundscheck=False, wraparound=False
"""The card codec: card codes <-> the 128-bit multiset of docs/design.md, and move words ->
``Move``. The one place where the compiled core meets card codes: ``movegen`` and ``game``
cimport ``words_of``, ``codes_of`` and ``move_of`` from here.

These functions check their input (they are reachable from Python); the inline helpers in
types.pxd do not, and are only called by compiled code on words built here.
"""
from guandan_fast.types cimport *
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from cpython.unicode cimport PyUnicode_DecodeASCII
from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.ref cimport Py_INCREF

cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object s)
    const char* PyUnicode_AsUTF8AndSize(object s, Py_ssize_t* size) except NULL

from guandan_fast.cards import CARD_CODES, KIND_OF, parse_cards
from guandan_fast.moves import PASS, TYPE_NAMES, Move

cdef dict _KIND = dict(KIND_OF)
cdef tuple _CODES = CARD_CODES
cdef str _RANKS = "23456789TJQKA"
# Kinds in canonical display order: by rank, then suit S H C D; jokers last.
cdef tuple _DISPLAY = tuple([s * N_RANKS + r for r in range(N_RANKS) for s in range(N_SUITS)]
                            + [KIND_SB, KIND_HR])
cdef tuple _TYPE_NAMES = TYPE_NAMES
cdef object _PASS = PASS
cdef object _Move_new = Move.__new__
cdef object _setattr = object.__setattr__


cdef object _slow_words(object cards):
    cdef u64 lo = 0, hi = 0
    cdef int k
    for code in parse_cards(cards):
        words_add_kind(&lo, &hi, _KIND[code], 1)
    return lo, hi


# Byte -> suit index (S H C D = 0..3) and rank index (2..A = 0..12); -1 for anything else.
cdef signed char _SUIT_OF[256]
cdef signed char _RANK_OF[256]
cdef int _i
for _i in range(256):
    _SUIT_OF[_i] = -1
    _RANK_OF[_i] = -1
for _i in range(N_SUITS):
    _SUIT_OF[ord("SHCD"[_i])] = _i
for _i in range(N_RANKS):
    _RANK_OF[ord(_RANKS[_i])] = _i


cdef bint _ascii_words(str cards, u64* out_lo, u64* out_hi):
    """Parse canonical codes separated by spaces or commas straight from the string's ASCII
    buffer (the text form of a hand costs less than generating its moves). False for anything
    else: a non-ASCII string, a symbol, lower case, '10', a bad code or a third copy."""
    cdef Py_ssize_t n, i = 0
    cdef const char* buf
    cdef unsigned char a, b
    cdef int k, su, r
    cdef u64 lo = 0, hi = 0
    if not PyUnicode_IS_ASCII(cards):
        return False
    buf = PyUnicode_AsUTF8AndSize(cards, &n)  # the string's own buffer for ASCII: no copy
    while i < n:
        a = <unsigned char>buf[i]
        if a == 32 or a == 44 or a == 9 or a == 10:   # space , tab newline
            i += 1
            continue
        if i + 1 >= n:
            return False
        b = <unsigned char>buf[i + 1]
        if i + 2 < n and not (buf[i + 2] == 32 or buf[i + 2] == 44 or buf[i + 2] == 9
                              or buf[i + 2] == 10):
            return False
        if a == 83 and b == 66:        # SB
            k = KIND_SB
        elif a == 72 and b == 82:      # HR
            k = KIND_HR
        else:
            su = _SUIT_OF[a]
            r = _RANK_OF[b]
            if su < 0 or r < 0:
                return False
            k = su * N_RANKS + r
        if kind_count(lo, hi, k) == 2:
            return False
        words_add_kind(&lo, &hi, k, 1)
        i += 2
    out_lo[0] = lo
    out_hi[0] = hi
    return True


cdef object words_of(object cards):
    # Canonical codes take the fast paths; anything else (suit symbols, lower case, '10', a
    # third copy, bad codes or types) goes through parse_cards, which names the problem.
    cdef u64 lo = 0, hi = 0
    cdef int k
    if type(cards) is str:
        if _ascii_words(<str>cards, &lo, &hi):
            return lo, hi
        return _slow_words(cards)
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
        words_add_kind(&lo, &hi, k, 1)
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
    cdef int t = move_type(hi), rc = move_rank(hi)
    if t == T_PASS:
        return _PASS
    key = (lo, hi)
    m = _MOVES.get(key)
    if m is not None:
        return m
    cdef tuple cards = codes_of(lo, hi & HI_CARD_MASK)
    name = _TYPE_NAMES[t]
    if t >= T_TRIBUTE:
        rank = name
    elif rc == RANK_JOKER:
        rank = "JOKER" if name == "Bomb" else ("R" if cards[0] == "HR" else "B")
    elif rc == RANK_ACE_LOW:
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


# -- the platform's form of many moves at once ---------------------------------------------------
# Move.to_platform and json.dumps cost microseconds a move in Python; a bot or the server that
# wants every legal move as ``[type, rank, [cards]]`` gets them here straight from the words.

# Rank labels by index: '2'..'A' (0..12), then the jokers' 'B', 'R' and the joker bomb's 'JOKER'.
cdef tuple _LABELS = tuple(_RANKS) + ("B", "R", "JOKER")
# The same names as C strings for the JSON writer (the bytes objects keep them alive).
cdef tuple _TYPE_BYTES = tuple(name.encode("ascii") for name in TYPE_NAMES)
cdef tuple _LABEL_BYTES = tuple(label.encode("ascii") for label in _LABELS)
cdef tuple _CODE_BYTES = tuple(code.encode("ascii") for code in CARD_CODES)
cdef const char* _TYPE_C[16]
cdef const char* _LABEL_C[16]
cdef const char* _CODE_C[N_KINDS]
for _i in range(len(_TYPE_BYTES)):
    _TYPE_C[_i] = _TYPE_BYTES[_i]
for _i in range(len(_LABEL_BYTES)):
    _LABEL_C[_i] = _LABEL_BYTES[_i]
for _i in range(N_KINDS):
    _CODE_C[_i] = _CODE_BYTES[_i]
# The longest action text: ["StraightFlush", "JOKER", [ + 10 cards "XX", + ]] is under 100.
cdef enum:
    _ACTION_TEXT_MAX = 128


cdef inline int _label_of(u64 lo, u64 hi) noexcept nogil:
    """Index in _LABELS of a play's rank label (move_of's rule: a joker single or pair is 'B'
    when it holds the small joker, else 'R'; the four jokers are 'JOKER'); -1 for PASS and
    for tribute/back, whose label is the type name."""
    cdef int t = move_type(hi), rc = move_rank(hi)
    if t == T_PASS or t >= T_TRIBUTE:
        return -1
    if rc == RANK_JOKER:
        if t == T_BOMB:
            return 15
        return 13 if kind_count(lo, hi, KIND_SB) else 14
    if rc == RANK_ACE_LOW:
        return 12
    return rc - 2


cdef inline int _display_kinds(u64 lo, u64 hi, int* out) noexcept nogil:
    """The kinds of a multiset's cards in canonical order (codes_of's: by rank, then suit
    S H C D, jokers last), a kind once per copy, into out (room for 108); returns how many.
    Visits only the ranks present: a move holds a few of the 54 kinds."""
    cdef u64 ranks = (lo | (lo >> 26) | hi | (hi >> 26)) & ((<u64>1 << 26) - 1)
    cdef int n = 0, r, s, k, c
    while ranks:
        r = __builtin_ctzll(ranks) >> 1
        ranks &= ~(<u64>3 << (2 * r))
        for s in range(N_SUITS):
            k = s * N_RANKS + r
            c = kind_count(lo, hi, k)
            while c > 0:
                out[n] = k
                n += 1
                c -= 1
    for k in range(KIND_SB, KIND_HR + 1):
        c = kind_count(lo, hi, k)
        while c > 0:
            out[n] = k
            n += 1
            c -= 1
    return n


cdef object _platform_action(u64 lo, u64 hi):
    cdef int t = move_type(hi), label = _label_of(lo, hi), i, n
    cdef int kinds[N_CARDS]
    if t == T_PASS:
        return ["PASS", "PASS", "PASS"]
    n = _display_kinds(lo, hi & HI_CARD_MASK, kinds)
    cdef list cards = PyList_New(n)
    for i in range(n):
        code = _CODES[kinds[i]]
        Py_INCREF(code)               # the reference PyList_SET_ITEM takes
        PyList_SET_ITEM(cards, i, code)
    name = _TYPE_NAMES[t]
    return [name, name if label < 0 else _LABELS[label], cards]


cdef inline char* _put(char* p, const char* s) noexcept nogil:
    while s[0]:
        p[0] = s[0]
        p += 1
        s += 1
    return p


cdef char* _action_text(char* p, u64 lo, u64 hi) noexcept nogil:
    """Write ``json.dumps(move.to_platform())`` at p (at most _ACTION_TEXT_MAX bytes); returns
    the end."""
    cdef int t = move_type(hi), label = _label_of(lo, hi), i, k, n
    cdef int kinds[N_CARDS]
    if t == T_PASS:
        return _put(p, b'["PASS", "PASS", "PASS"]')
    p = _put(p, b'["')
    p = _put(p, _TYPE_C[t])
    p = _put(p, b'", "')
    p = _put(p, _TYPE_C[t] if label < 0 else _LABEL_C[label])
    p = _put(p, b'", [')
    n = _display_kinds(lo, hi & HI_CARD_MASK, kinds)
    for i in range(n):
        k = kinds[i]
        if i:
            p[0] = 44          # ,
            p[1] = 32
            p += 2
        p[0] = 34              # "
        p[1] = _CODE_C[k][0]
        p[2] = _CODE_C[k][1]
        p[3] = 34
        p += 4
    return _put(p, b']]')


cdef inline bint _is_pass(const u64* words, Py_ssize_t i) noexcept nogil:
    return move_type(words[2 * i + 1]) == T_PASS


cdef extern from "Python.h":
    int PyGC_Disable()
    int PyGC_Enable()


cdef list platform_actions(const u64* words, Py_ssize_t n, bint pass_first):
    cdef list out = PyList_New(n)
    cdef Py_ssize_t i, j = 0
    cdef int sweep
    # The cyclic collector stays off while the lists are made: they hold only strings and
    # lists of strings, and its passes triggered by these allocations would cost a third of
    # the time (the next allocation after this runs the collection that was due).
    cdef int gc_was_on = PyGC_Disable()
    try:
        # pass_first: a first sweep for PASS, then the others in their order
        for sweep in range(2 if pass_first else 1):
            for i in range(n):
                if pass_first and _is_pass(words, i) != (sweep == 0):
                    continue
                action = _platform_action(words[2 * i], words[2 * i + 1])
                Py_INCREF(action)         # the reference PyList_SET_ITEM takes
                PyList_SET_ITEM(out, j, action)
                j += 1
    finally:
        if gc_was_on:
            PyGC_Enable()
    return out


cdef str platform_json(const u64* words, Py_ssize_t n, bint pass_first):
    cdef char* text = <char*>malloc(2 + n * (_ACTION_TEXT_MAX + 2))
    cdef char* p = text
    cdef Py_ssize_t i
    cdef int sweep
    if text == NULL:
        raise MemoryError()
    try:
        with nogil:
            p[0] = 91          # [
            p += 1
            for sweep in range(2 if pass_first else 1):
                for i in range(n):
                    if pass_first and _is_pass(words, i) != (sweep == 0):
                        continue
                    if p != text + 1:
                        p = _put(p, b', ')
                    p = _action_text(p, words[2 * i], words[2 * i + 1])
            p[0] = 93          # ]
            p += 1
        return PyUnicode_DecodeASCII(text, p - text, NULL)
    finally:
        free(text)


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
    return card_count(lo, hi)


def move(lo, hi):
    """The ``Move`` of move words (``Move.from_words`` in compiled code).

    >>> move(*Move('Pair', '9', 'H7 D9').words)
    Move('Pair', '9', ('H7', 'D9'))
    """
    # move_of trusts its words (it indexes without bounds checks): Move.from_words checks
    # every field first and raises ValueError naming what is wrong.
    m = Move.from_words(lo, hi)
    if m is _PASS:
        return _PASS
    lo, hi = m.words
    return move_of(lo, hi)


def layout():
    """The encoding constants of the compiled core (types.pxd) by name, for the test that
    the Python package (cards.py, moves.py) uses the same ones.

    >>> layout()['TYPE_SHIFT'], layout()['KIND_HR']
    (56, 53)
    """
    return {
        "N_RANKS": N_RANKS, "N_SUITS": N_SUITS, "N_KINDS": N_KINDS, "KIND_SB": KIND_SB,
        "KIND_HR": KIND_HR, "KIND_H2": KIND_H2, "SUIT_HEARTS": SUIT_HEARTS,
        "ACE_RANK": ACE_RANK, "N_CARDS": N_CARDS, "HAND_SIZE": HAND_SIZE, "MAX_LEVEL": MAX_LEVEL,
        "LO_KINDS": LO_KINDS, "SB_BIT": SB_BIT, "HR_BIT": HR_BIT,
        "TYPE_SHIFT": TYPE_SHIFT, "RANK_SHIFT": RANK_SHIFT, "FIELD_MASK": FIELD_MASK,
        "TYPE_CODES": {"PASS": T_PASS, "Single": T_SINGLE, "Pair": T_PAIR, "Trips": T_TRIPS,
                       "ThreeWithTwo": T_THREE_WITH_TWO, "Straight": T_STRAIGHT,
                       "ThreePair": T_THREE_PAIR, "TwoTrips": T_TWO_TRIPS, "Bomb": T_BOMB,
                       "StraightFlush": T_STRAIGHT_FLUSH, "tribute": T_TRIBUTE,
                       "back": T_BACK},
        "N_PLAY_TYPES": N_PLAY_TYPES, "NONBOMB_TYPES": NONBOMB_TYPES,
        "RANK_ACE_LOW": RANK_ACE_LOW, "RANK_ACE": RANK_ACE, "RANK_JOKER": RANK_JOKER,
        "VALUE_LEVEL": VALUE_LEVEL, "VALUE_SB": VALUE_SB, "VALUE_HR": VALUE_HR,
        "TIER_BOMB4": TIER_BOMB4, "TIER_BOMB5": TIER_BOMB5,
        "TIER_STRAIGHT_FLUSH": TIER_STRAIGHT_FLUSH, "TIER_JOKERS": TIER_JOKERS,
        "LO_CARD_MASK": LO_CARD_MASK, "HI_CARD_MASK": HI_CARD_MASK,
        "SB_HI": SB_HI, "HR_HI": HR_HI,
        "wild_kind": {lv: wild_kind(lv) for lv in range(2, 15)},
        "single_value": {(k, lv): single_value(k, lv) for k in range(N_KINDS)
                         for lv in range(2, 15)},
        "bomb_tier": {n: bomb_tier(n) for n in range(4, 11)},
    }

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, autotestdict=False, embedsignature=True, binding=True
"""Move generation from Python: ``Hand``, ``MoveList``, ``legal_moves``, ``count_moves``,
``classify``, ``beats`` (docs/rules.md §3-6). Every input is checked here before it reaches the
unchecked ``nogil`` generator of ``movegen_core``:

>>> from guandan_fast.movegen import Hand, legal_moves, classify, beats
>>> from guandan_fast import Move
>>> sorted(m.rank for m in classify('S8 C8 H7 DJ HJ', 7))
['8', 'J']
>>> moves = legal_moves('S9 C9 H7', 7, last=Move('Pair', '8', 'S8 D8'))
>>> [str(m) for m in moves.sorted()]
['PASS', 'Pair 9 H7 C9', 'Pair 9 H7 S9', 'Pair 9 S9 C9']
>>> h = Hand('S3 S4 S5 S6 S7 D7')
>>> h.count_moves(2, compact=True)
8
>>> beats(Move('StraightFlush', '3', 'S3 S4 S5 S6 S7'), Move('Bomb', '2', 'S2 H2 C2 D2 D2'), 5)
True
"""

from libc.stdlib cimport malloc, free
from cpython.bytes cimport PyBytes_FromStringAndSize, PyBytes_AS_STRING
from cpython.ref cimport Py_INCREF

from guandan_fast.types cimport u64, RANK_JOKER, move_rank
from guandan_fast.codec cimport words_of, codes_of, move_of, platform_actions, platform_json
from guandan_fast.movegen_core cimport (RulesC, generate, generate_grow, count_moves,
                                        can_follow as c_can_follow,
                                        classify_cards, beats)

cimport numpy as cnp

cnp.import_array()

from guandan_fast.moves import Move, PASS
from guandan_fast.rules import Rules
from guandan_fast.validate import (as_int as _as_int, check_bool as _check_bool,
                                   check_level as _check_level,
                                   check_rules as _check_rules,
                                   check_platform_form as _check_platform_form)


# ---------------------------------------------------------------------------------------------
# Python API: everything below checks its input, then calls the unchecked core above.

from collections.abc import Sequence as _Sequence

_DEFAULT_RULES = Rules()
_RANKS = "23456789TJQKA"
cdef dict _checked = {}   # (lo, hi, level, rules flags) of plays known to be readings


cdef int _level(object level) except -1:
    # The common case without a Python call; validate.check_level names anything else.
    if type(level) is int and 2 <= level <= 14:
        return <int>level
    return _check_level(level)


cdef int _rules_c(object rules, RulesC* out) except -1:
    if not isinstance(rules, Rules):
        _check_rules(rules)       # raises the TypeError
    out.sf_as_straight = rules.sf_as_straight
    out.fullhouse_joker_pair = rules.fullhouse_joker_pair
    return 0


cdef object _as_move(object move, int level, str what):
    """A Move (or PASS) from a Move or a platform list, its form checked (not its reading)."""
    if isinstance(move, Move):
        return move
    if isinstance(move, (list, tuple)):
        _check_platform_form(move, what)
        if move[0] == "PASS":
            return Move.from_platform(move, level)
        return Move(*move)
    raise TypeError(f"{what} must be a Move or a platform list [type, rank, cards], "
                    f"not {type(move).__name__}")


cdef object _check_play(object move, int level, RulesC* rc, str what):
    """(lo, hi) of a move that is PASS or a reading of its cards at this level; else raises."""
    cdef u64 buf[2 * 64]
    cdef u64 lo, hi
    cdef int n, i
    m = _as_move(move, level, what)
    if m.type == "PASS":
        return (0, 0)
    if m.type in ("tribute", "back"):
        raise ValueError(f"{what} {m} is a {m.type} card, not a play")
    words = m.words
    lo = words[0]
    hi = words[1]
    # The words of the two jokers' moves share rank code 15, so a false joker label (Single R
    # of SB) has the words of the true move: the label is checked against the cards first.
    if move_rank(hi) == RANK_JOKER and move_of(lo, hi) != m:
        raise ValueError(f"{what}: cards {' '.join(m.cards)} do not make {m.type} {m.rank} "
                         f"at level {_RANKS[level - 2]}")
    ck = (words, level, rc.sf_as_straight, rc.fullhouse_joker_pair)
    if ck in _checked:
        return words
    n = classify_cards(lo, hi, level, rc, buf, 64)
    for i in range(min(n, 64)):
        if buf[2 * i] == lo and buf[2 * i + 1] == hi:
            if len(_checked) > 100000:
                _checked.clear()
            _checked[ck] = True
            return words
    raise ValueError(f"{what}: cards {' '.join(m.cards)} do not make {m.type} {m.rank} "
                     f"at level {_RANKS[level - 2]}")


cdef MoveList new_move_list(const u64* src, int n):
    # The words go into one immutable bytes object, which .array then wraps without a copy
    # (one allocation and one copy per list; the array cannot be made writeable over it).
    cdef bytes data = PyBytes_FromStringAndSize(<const char*>src, sizeof(u64) * 2 * n)
    cdef MoveList ml = MoveList.__new__(MoveList)
    ml._data = data
    ml.buf = <const u64*>PyBytes_AS_STRING(data)
    ml.n = n
    return ml


cdef MoveList _run_generate(u64 lo, u64 hi, int level, u64 llo, u64 lhi, RulesC* rc,
                            bint compact):
    """Generate into a private buffer (STACK_MOVES on the stack, else one on the heap) and copy
    the result into a new MoveList."""
    cdef u64 stack[2 * STACK_MOVES]
    cdef u64* heap = NULL
    cdef int cap = 0
    cdef int n = generate(lo, hi, level, llo, lhi, rc, compact, stack, STACK_MOVES)
    if n >= 0:
        return new_move_list(stack, n)
    try:
        n = generate_grow(lo, hi, level, llo, lhi, rc, compact, &heap, &cap)
        if n < 0:
            raise MemoryError("no memory for the legal moves of this hand")
        return new_move_list(heap, n)
    finally:
        free(heap)


cdef MoveList _move_list_from_moves(moves):
    """A MoveList of given Moves (unpickling): their words come from the checked Move."""
    cdef MoveList ml
    cdef Py_ssize_t i = 0
    moves = tuple(moves)
    for m in moves:
        if not isinstance(m, Move):
            raise TypeError(f"a MoveList holds Moves, not {type(m).__name__}")
    cdef u64* words = <u64*>malloc(sizeof(u64) * 2 * (len(moves) if moves else 1))
    if words == NULL:
        raise MemoryError()
    try:
        for m in moves:
            w = m.words
            words[2 * i] = w[0]
            words[2 * i + 1] = w[1]
            i += 1
        return new_move_list(words, i)
    finally:
        free(words)


def _restore_move_list(moves):
    """Unpickle a ``MoveList`` (see ``MoveList.__reduce__``)."""
    return _move_list_from_moves(moves)


cdef class MoveList:
    """The legal moves of one call: a read-only sequence of ``Move`` backed by the compiled
    buffer. ``Move`` objects are made only when accessed; ``.array`` gives the raw moves as an
    ``(n, 2)`` uint64 array of ``(lo, hi)`` rows (docs/design.md).

    >>> ml = legal_moves('S9 C9', 2)
    >>> len(ml), ml[-1], Move('Pair', '9', 'S9 C9') in ml, ['Single', '9', ['C9']] in ml
    (3, Move('Pair', '9', ('S9', 'C9')), True, True)
    >>> ml.array.shape, ml.array.dtype.name
    ((3, 2), 'uint64')
    """

    def __cinit__(self):
        self.buf = NULL
        self.n = 0

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        cdef Py_ssize_t i
        if isinstance(index, slice):
            return [self[j] for j in range(*index.indices(self.n))]
        v = _as_int(index, "move index")        # any size: 10**30 is out of range, not overflow
        if v < 0:
            v += self.n
        if v < 0 or v >= self.n:
            raise IndexError(f"move index {index} out of range for {self.n} moves")
        i = v
        return move_of(self.buf[2 * i], self.buf[2 * i + 1])

    def __iter__(self):
        cdef Py_ssize_t i
        for i in range(self.n):
            yield move_of(self.buf[2 * i], self.buf[2 * i + 1])

    def __reversed__(self):
        cdef Py_ssize_t i
        for i in range(self.n - 1, -1, -1):
            yield move_of(self.buf[2 * i], self.buf[2 * i + 1])

    cdef Py_ssize_t _find(self, x) except -2:
        """Index of a move given as a Move or a platform list; -1 when absent, including for
        anything that is not a move (``5 in moves`` is False, as for a list)."""
        cdef u64 lo, hi
        cdef Py_ssize_t i
        if isinstance(x, Move):
            m = x
        elif isinstance(x, (list, tuple)):
            try:
                if len(x) == 3 and x[0] == "PASS":
                    m = Move.from_platform(x, 2)
                elif len(x) == 3 and not isinstance(x[2], str):
                    m = Move(*x)
                else:
                    return -1
            except (ValueError, TypeError):
                return -1
        else:
            return -1
        words = m.words
        lo = words[0]
        hi = words[1]
        for i in range(self.n):
            if self.buf[2 * i] == lo and self.buf[2 * i + 1] == hi:
                # The words of the two jokers' moves share rank code 15: the label decides.
                if move_rank(hi) == RANK_JOKER and move_of(lo, hi) != m:
                    return -1
                return i
        return -1

    def __contains__(self, x):
        return self._find(x) >= 0

    def index(self, x):
        """Position of a move (a ``Move`` or a platform list); ValueError when absent."""
        cdef Py_ssize_t i = self._find(x)
        if i < 0:
            raise ValueError(f"{x!r} is not in this MoveList")
        return i

    def count(self, x):
        """1 if the move is in the list, else 0 (moves are distinct)."""
        return 1 if self._find(x) >= 0 else 0

    @property
    def array(self):
        """The moves as a read-only ``(n, 2)`` uint64 numpy array of ``(lo, hi)`` rows."""
        return self.get_array()

    cdef object get_array(self):
        cdef cnp.npy_intp dims[2]
        if self._array is None:
            # The array's memory is the immutable bytes object of the words, so that the flag
            # cannot be turned back on (numpy refuses writeable=True over a read-only base).
            dims[0] = self.n
            dims[1] = 2
            a = cnp.PyArray_SimpleNewFromData(2, dims, cnp.NPY_UINT64, <void*>self.buf)
            Py_INCREF(self._data)  # the reference PyArray_SetBaseObject steals
            cnp.PyArray_SetBaseObject(a, self._data)
            cnp.PyArray_CLEARFLAGS(a, cnp.NPY_ARRAY_WRITEABLE)
            self._array = a
        return self._array

    def __reduce__(self):
        # Pickled as its moves; unpickling rebuilds the words from the (checked) Moves.
        return (_restore_move_list, (tuple(self),))

    def __copy__(self):
        return self  # immutable

    def __deepcopy__(self, memo):
        return self

    def to_list(self):
        """The moves as a list of ``Move``."""
        return [move_of(self.buf[2 * i], self.buf[2 * i + 1]) for i in range(self.n)]

    def to_platform(self, pass_first=False):
        """The moves as the platform writes them, ``[type, rank, [cards]]`` each (what
        ``Move.to_platform`` gives, made in compiled code without making the ``Move``s), in
        this list's order; ``pass_first=True`` puts PASS first, as the platform lists the
        moves of a follow (the generator lists it last).

        >>> ml = legal_moves('S9 C9 H7', 7, last=Move('Pair', '8', 'S8 D8'))
        >>> ml.to_platform() == [m.to_platform() for m in ml]
        True
        >>> ml.to_platform(pass_first=True)[:2]
        [['PASS', 'PASS', 'PASS'], ['Pair', '9', ['S9', 'C9']]]
        """
        return platform_actions(self.buf, self.n, _check_bool(pass_first, "pass_first"))

    def to_platform_json(self, pass_first=False):
        """``json.dumps(self.to_platform(pass_first))``, written in compiled code: the
        ``actionList`` of the platform's ``act`` message.

        >>> import json
        >>> ml = legal_moves('S9 C9 H7', 7, last=Move('Pair', '8', 'S8 D8'))
        >>> ml.to_platform_json(pass_first=True)[:46]
        '[["PASS", "PASS", "PASS"], ["Pair", "9", ["S9"'
        >>> ml.to_platform_json() == json.dumps(ml.to_platform())
        True
        """
        return platform_json(self.buf, self.n, _check_bool(pass_first, "pass_first"))

    def __eq__(self, other):
        # Equal to another MoveList or a list/tuple holding the same moves in any order: the
        # generator's order is its own (the reference sorts by Move.sort_key), and the moves of
        # one call are distinct, so the order carries no information.
        if isinstance(other, (MoveList, list, tuple)):
            return len(self) == len(other) and set(self) == set(other)
        return NotImplemented

    def sorted(self):
        """The moves as a list sorted by ``Move.sort_key`` (the reference's order)."""
        return sorted(self, key=_SORT_KEY)

    def __repr__(self):
        return f"<MoveList of {self.n} moves>"


_Sequence.register(MoveList)


cdef class Hand:
    """A hand parsed once, for repeated move generation without parsing or conversion.

    >>> h = Hand('S5 H5 C5 D5 H7')
    >>> len(h), h.cards
    (5, ('S5', 'H5', 'C5', 'D5', 'H7'))
    >>> [str(m) for m in h.legal_moves(7, last=Move('Bomb', 'A', 'SA HA CA DA'))]
    ['Bomb 5 S5 H5 C5 D5 H7', 'PASS']
    """

    def __cinit__(self):
        self._rules = None
        self._last = None
        self._last_level = 0

    def __init__(self, cards):
        if isinstance(cards, Hand):
            self.lo = (<Hand>cards).lo
            self.hi = (<Hand>cards).hi
            self._cards = (<Hand>cards)._cards
            return
        lo, hi = words_of(cards)
        self.lo = lo
        self.hi = hi
        self._cards = codes_of(lo, hi)

    @property
    def cards(self):
        """The cards in canonical order."""
        return self._cards

    @property
    def words(self):
        """``(lo, hi)``: the hand as a 128-bit multiset (docs/design.md)."""
        return (self.lo, self.hi)

    def __len__(self):
        return len(self._cards)

    def __repr__(self):
        return f"Hand({' '.join(self._cards)!r})"

    def __eq__(self, other):
        if isinstance(other, Hand):
            return self.lo == (<Hand>other).lo and self.hi == (<Hand>other).hi
        return NotImplemented

    def __hash__(self):
        return hash((self.lo, self.hi))

    def __reduce__(self):
        return (Hand, (self._cards,))

    cdef int prepare(self, object level, object last, object rules) except -1:
        """Level, rules flags and the words of ``last``, cached between calls.

        Everything is computed into locals first and stored at the end with no Python code
        in between (the GIL can only pass to another thread while Python code runs), and
        callers read the fields right after: threads sharing a Hand never mix one call's
        rules with another's last play."""
        cdef int lv = _level(level)
        cdef RulesC rc
        cdef u64 llo = 0, lhi = 0
        cdef bint cached
        if rules is self._rules:
            rc = self.rules_c
        else:
            _rules_c(rules, &rc)
        cached = last is None or (last is self._last and lv == self._last_level
                                  and rules is self._last_rules and type(last) is Move)
        if not cached:  # a list may have changed since the last call: only Moves are immutable
            words = _check_play(last, lv, &rc, "last")   # Python code: threads may switch
            llo = words[0]
            lhi = words[1]
        # From here on, no Python code.
        self.rules_c = rc
        self._rules = rules
        if last is None:
            self.last_lo = 0
            self.last_hi = 0
            self._last = None
        elif not cached:
            self.last_lo = llo
            self.last_hi = lhi
            self._last = last
            self._last_level = lv
            self._last_rules = rules
        return lv

    def legal_moves(self, level, last=None, rules=_DEFAULT_RULES, compact=False):
        """Every legal move (docs/rules.md §6) as a ``MoveList``; see ``legal_moves``."""
        cdef int lv = self.prepare(level, last, rules)
        return _run_generate(self.lo, self.hi, lv, self.last_lo, self.last_hi, &self.rules_c, compact)

    def count_moves(self, level, last=None, rules=_DEFAULT_RULES, compact=False):
        """The number of legal moves, materialising none."""
        cdef int lv = self.prepare(level, last, rules)
        return count_moves(self.lo, self.hi, lv, self.last_lo, self.last_hi, &self.rules_c, compact)


cdef object _prepare_free(object hand, object level, object last, object rules, RulesC* rc,
                          u64* llo, u64* lhi):
    if isinstance(hand, Hand):
        lo = (<Hand>hand).lo
        hi = (<Hand>hand).hi
    else:
        lo, hi = words_of(hand)
    lv = _level(level)
    _rules_c(rules, rc)
    if last is None:
        llo[0] = 0
        lhi[0] = 0
    else:
        words = _check_play(last, lv, rc, "last")
        llo[0] = words[0]
        lhi[0] = words[1]
    return lo, hi, lv


def legal_moves(hand, level, last=None, rules=_DEFAULT_RULES, compact=False):
    """Every legal move of ``hand`` (docs/rules.md §6) as a ``MoveList``.

    ``hand``: card codes (a string or an iterable) or a ``Hand``; ``level``: 2..14 or a rank
    character; ``last``: None (or PASS) on lead, else the play to beat (a ``Move`` or a
    platform list), which must be a reading of its cards. On follow the moves that beat
    ``last`` come first, then PASS. ``compact``: one canonical move per (type, key, size) and
    per suit for straight flushes (docs/design.md, "Compact mode").

    >>> [str(m) for m in legal_moves('S3 C3 D9 H7', 7, last=['Pair', '2', ['S2', 'D2']]).sorted()]
    ['PASS', 'Pair 3 C3 H7', 'Pair 3 S3 C3', 'Pair 3 S3 H7', 'Pair 9 H7 D9']
    >>> [str(m) for m in legal_moves('S3 C3 D9 H7', 7, last=['Pair', '2', ['S2', 'D2']], compact=True)]
    ['Pair 3 S3 C3', 'Pair 9 H7 D9', 'PASS']
    """
    cdef RulesC rc
    cdef u64 llo, lhi
    lo, hi, lv = _prepare_free(hand, level, last, rules, &rc, &llo, &lhi)
    return _run_generate(lo, hi, lv, llo, lhi, &rc, compact)


def _count_moves_py(hand, level, last=None, rules=_DEFAULT_RULES, compact=False):
    """``len(legal_moves(...))`` without making the list.

    >>> count_moves('S3 C3 D9 H7', 7)    # 4 singles, pairs 33 3w 3w 9w, trips 33w
    9
    """
    cdef RulesC rc
    cdef u64 llo, lhi
    lo, hi, lv = _prepare_free(hand, level, last, rules, &rc, &llo, &lhi)
    return count_moves(lo, hi, lv, llo, lhi, &rc, compact)


_SORT_KEY = Move.sort_key


def classify(cards, level, rules=_DEFAULT_RULES):
    """Every reading of exactly these cards (docs/rules.md §3-4), sorted by ``Move.sort_key``.

    >>> [str(m) for m in classify('S8 C8 D8 H7 H7', 7)]
    ['ThreeWithTwo 8 H7 H7 S8 C8 D8', 'Bomb 8 H7 H7 S8 C8 D8']
    >>> classify('H7 SB', 7)
    []
    """
    cdef RulesC rc
    cdef u64 buf[2 * 64]
    cdef int n, i
    lo, hi = words_of(cards)
    lv = _level(level)
    _rules_c(rules, &rc)
    n = classify_cards(lo, hi, lv, &rc, buf, 64)
    return sorted([move_of(buf[2 * i], buf[2 * i + 1]) for i in range(min(n, 64))],
                  key=_SORT_KEY)


def _beats_py(move, last, level, rules=_DEFAULT_RULES):
    """Does ``move`` beat ``last`` (docs/rules.md §5)? ``last`` None (or PASS) is a lead. Both must
    be readings of their cards at ``level`` (``ValueError`` otherwise).

    >>> beats(Move('Bomb', '9', 'S9 C9 D9 D9'), ['Bomb', 'A', ['SA', 'CA', 'DA', 'DA']], 9)
    True
    >>> beats(PASS, None, 2)
    False
    """
    cdef RulesC rc
    lv = _level(level)
    _rules_c(rules, &rc)
    m = _check_play(move, lv, &rc, "move")
    if last is None:
        p = (0, 0)
    else:
        p = _check_play(last, lv, &rc, "last")
    return bool(beats(m[0], m[1], p[0], p[1], lv))


def can_follow(hand, level, last, rules=_DEFAULT_RULES):
    """Does ``hand`` hold a play that beats ``last`` (a play, not PASS)? The same answer as
    ``len(legal_moves(hand, level, last, rules)) > 1``, computed from the hand's per-rank
    counts without listing a move (``Game.legal_action_mask`` and ``VecEnv`` answer a forced
    pass this way).

    >>> can_follow('S3 C3 D9 H7', 7, ['Pair', '2', ['S2', 'D2']]), can_follow('S3 D9', 7, Move('Single', 'A', 'SA'))
    (True, False)
    """
    cdef RulesC rc
    cdef u64 llo, lhi
    if last is None:
        raise ValueError("last must be a play to beat, not None")
    lo, hi, lv = _prepare_free(hand, level, last, rules, &rc, &llo, &lhi)
    if llo == 0 and lhi == 0:
        raise ValueError("last must be a play to beat, not PASS")
    return bool(c_can_follow(lo, hi, lv, llo, lhi, &rc))


# The C functions count_moves and beats (movegen.pxd) own those names inside this module, so the
# Python functions are defined under other names and published under the public ones here.
_count_moves_py.__name__ = _count_moves_py.__qualname__ = "count_moves"
_beats_py.__name__ = _beats_py.__qualname__ = "beats"
globals().update(count_moves=_count_moves_py, beats=_beats_py)
del _count_moves_py, _beats_py

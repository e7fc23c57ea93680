# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, embedsignature=True, binding=True
"""The ``Game`` class: one ``GameState`` struct (the ``nogil`` state machine of game_core.pyx,
docs/rules.md §7-10) behind the API of docs/design.md, the same as the reference
``guandan_fast.reference.Game``. Everything that comes from Python is checked here before the
core sees it.

>>> from guandan_fast.game import Game
>>> g = Game(seed=1)
>>> g.phase, g.level, g.hand_number, len(g.hand(0))
('play', 2, 0, 27)
>>> moves = g.legal_moves()
>>> g.play(moves[0]); g.current_player == (g.history[0][0] + 1) % 4
True
>>> c = g.clone(); c == g
True
"""
cimport cython
from libc.string cimport memset, memcpy, memcmp
from libc.stdlib cimport free
from libc.stdint cimport int8_t, int32_t
from cpython.long cimport PyLong_CheckExact, PyLong_AsLongLongAndOverflow
from cpython.ref cimport Py_REFCNT

from guandan_fast.types cimport (u64, N_KINDS, KIND_SB, KIND_H2, LO_CARD_MASK, HI_CARD_MASK,
                                 T_TRIBUTE, RANK_JOKER, kind_count, card_count, move_type,
                                 move_rank)
from guandan_fast.codec cimport codes_of, move_of
from guandan_fast.game_core cimport (GameState, GameRulesC, PH_TRIBUTE, PH_BACK, PH_PLAY, PH_OVER,
                                     STEP_CONTINUE, game_init, game_legal, game_legal_grow,
                                     game_is_legal, game_apply, reset_hand, setup_tribute,
                                     start_play, hand_add)
from guandan_fast.movegen_core cimport count_moves, classify_cards
from guandan_fast.movegen cimport MoveList, new_move_list, STACK_MOVES
from guandan_fast.rng cimport sm_below
from guandan_fast.rules_core cimport rules_to_c


from .cards import CARD_CODES, KIND_OF, FULL_DECK, sort_cards
from .moves import Move, PASS, IllegalMoveError, TYPE_NAMES
from .rules import Rules
from .validate import (as_int as _as_int, check_seat as _check_seat, check_rules as _check_rules,
                       check_setup as _check_setup, check_platform_form as _check_platform_form)


# ------------------------------------------------------------------------------------------
# Python side
# ------------------------------------------------------------------------------------------

_PHASE_NAMES = ("tribute", "back", "play", "over")
cdef u64 MASK64 = 0xFFFFFFFFFFFFFFFF
cdef tuple _CODES = CARD_CODES
cdef object _PASS = PASS
cdef object _PLAY_TYPES = frozenset(TYPE_NAMES[1:10])

cdef int _legal_into(const GameState* s, bint compact, u64* stack, u64** heap) except -1:
    """The current player's legal moves into `stack` (STACK_MOVES moves, the caller's) or, when
    they do not fit, into a new *heap buffer that the caller frees; returns their number.
    Private buffers: no generation buffer is shared between calls (movegen.pxd STACK_MOVES)."""
    cdef int cap = 0
    cdef int n = game_legal(s, compact, stack, STACK_MOVES)
    if n >= 0:
        return n
    n = game_legal_grow(s, compact, heap, &cap)
    if n < 0:
        raise MemoryError("no memory for the legal moves of this hand")
    return n


@cython.final
@cython.freelist(64)
@cython.no_gc   # cannot be part of a cycle: it refers only to older steps and an immutable Move
cdef class _Step:
    """One move of the match history: a persistent (shared, immutable) linked list, so that
    clones share their past and appending costs one small object. Not tracked by the cyclic
    GC (one node per move would feed it for nothing)."""
    cdef _Step prev
    cdef u64 lo
    cdef u64 hi
    cdef int32_t hand
    cdef int32_t length
    cdef int8_t seat
    cdef object move      # the Move, built on first use

    def __dealloc__(self):
        # A history may be many thousands of steps long: free the older steps that only this
        # one holds in a loop, not by recursion through `prev` (which could exhaust the C
        # stack; Python's trashcan, which would bound it, needs GC-tracked objects). Each
        # `n = n.prev` frees the node n held, whose own __dealloc__ finds its prev shared
        # (we hold it) and stops at once.
        cdef _Step n = self.prev
        self.prev = None
        while n is not None and Py_REFCNT(n) == 1:
            n = n.prev


cdef inline object step_move(_Step n):
    if n.move is None:
        n.move = move_of(n.lo, n.hi)
    return n.move


@cython.final
cdef class Game:
    """A Guandan match on the compiled core, with the API of docs/design.md (the same
    behaviour as ``guandan_fast.reference.Game``).

    >>> g = Game(seed=0)
    >>> g.phase, g.level, g.levels, g.hand_number, g.current_player
    ('play', 2, (2, 2), 0, 0)
    >>> g.play(['Pair', '3', ['H3', 'H3']])
    Traceback (most recent call last):
    ...
    guandan_fast.moves.IllegalMoveError: seat 0 does not hold H3 for Pair 3 H3 H3
    >>> sizeof_state()
    160
    """
    cdef GameState st
    cdef object _seed
    cdef object _rules
    cdef _Step _hist
    cdef tuple _results
    cdef object _origin      # how the match started: None (from the seed) or a setup dict
    cdef object _cache       # legal-move MoveList of the current state (compact=False) or None
    cdef object _ccache      # the same for compact=True
    __hash__ = None

    def __cinit__(self):
        # A bare Game.__new__(Game) is an inert finished match, not a zeroed (tribute) state.
        self.st.phase = PH_OVER
        self.st.current = -1
        self.st.winner = -1
        self.st.declarer = -1
        self.st.level = 2

    def __init__(self, seed=None, rules=Rules()):
        cdef GameRulesC rc
        _check_rules(rules)
        if seed is None:
            import secrets
            seed = secrets.randbits(64)
        seed = _as_int(seed, "seed")
        rc = rules_to_c(rules)
        game_init(&self.st, <u64>(seed & MASK64), &rc)
        self._seed = seed
        self._rules = rules
        self._hist = None
        self._results = ()
        self._origin = None
        self._cache = None
        self._ccache = None

    @classmethod
    def setup(cls, hands, *, levels=(2, 2), declarer=None, previous_finish=None, leader=None,
              seed=0, rules=Rules()):
        """A match starting from a constructed hand (docs/design.md; the same checks and
        defaults as the reference ``Game.setup``).

        >>> hands = [['D3'], ['S4'], ['S5'], list(FULL_DECK)]
        >>> for h in hands[:3]:
        ...     hands[3].remove(h[0])
        >>> g = Game.setup(hands, leader=0)
        >>> g.play(Move('Single', '3', ['D3'])); g.finish_order, g.current_player
        ((0,), 1)
        """
        cdef Game self
        cdef GameRulesC rc
        cdef int p, i
        cdef list deck
        cdef GameState* st
        _check_rules(rules)
        parsed, lv, declarer, prev, leader = _check_setup(hands, levels, declarer,
                                                         previous_finish, leader)
        if seed is None:
            import secrets
            seed = secrets.randbits(64)
        seed = _as_int(seed, "seed")
        rc = rules_to_c(rules)
        self = Game.__new__(Game)
        st = &self.st
        memset(st, 0, sizeof(GameState))
        st.rules = rc
        st.rng = <u64>(seed & MASK64)
        st.levels[0] = lv[0]
        st.levels[1] = lv[1]
        st.declarer = -1 if declarer is None else declarer
        st.level = 2 if declarer is None else lv[declarer]
        st.winner = -1
        st.last_level = -1
        st.last_declarer = -1
        for i in range(4):
            st.last_finish[i] = -1
        reset_hand(st)
        for p in range(4):
            for c in parsed[p]:
                hand_add(st, p, KIND_OF[c], 1)
        if prev is not None:
            st.last_n_finished = 2 if len(prev) == 2 else 3
            for i in range(len(prev)):
                st.last_finish[i] = prev[i]
            setup_tribute(st)
        else:
            if leader is None:
                if rules.first_leader != "random":
                    leader = min(p for p in range(4) if rules.first_leader in parsed[p])
                else:
                    deck = [KIND_OF[c] for h in parsed for c in h]
                    bounds = []
                    end = 0
                    for h in parsed:
                        end += len(h)
                        bounds.append(end)
                    while True:
                        i = <int>sm_below(&st.rng, 108)
                        if deck[i] < KIND_SB and deck[i] != KIND_H2:
                            leader = next(p for p in range(4) if i < bounds[p])
                            break
            start_play(st, leader)
        self._seed = seed
        self._rules = rules
        self._hist = None
        self._results = ()
        self._origin = {"hands": [list(h) for h in parsed], "levels": list(lv),
                        "declarer": declarer, "previous_finish": prev,
                        "leader": None if prev is not None else leader}
        self._cache = None
        self._ccache = None
        return self

    # -- properties ------------------------------------------------------------------------
    @property
    def seed(self):
        """The seed the match was started from (``Game(seed)``, or ``Game.setup(seed=...)``)."""
        return self._seed

    @property
    def rules(self):
        """The ``Rules`` of the match."""
        return self._rules

    @property
    def current_player(self):
        """The seat (0..3) to act, or None when the match is over."""
        return None if self.st.current < 0 else self.st.current

    @property
    def phase(self):
        """``'tribute'``, ``'back'``, ``'play'`` or ``'over'``."""
        return _PHASE_NAMES[self.st.phase]

    @property
    def level(self):
        """The level (2..14, 14 = A) of the hand being played."""
        return self.st.level

    @property
    def levels(self):
        """Each team's level, ``(team 0, team 1)``."""
        return (self.st.levels[0], self.st.levels[1])

    @property
    def declarer(self):
        """The team whose level is played, or None in a first hand."""
        return None if self.st.declarer < 0 else self.st.declarer

    @property
    def hand_number(self):
        """The number of the hand being played (0-based)."""
        return self.st.hand_number

    @property
    def finish_order(self):
        """The seats that have gone out in this hand, in order."""
        return tuple(self.st.finish[i] for i in range(self.st.n_finished))

    @property
    def is_over(self):
        """Whether the match is over."""
        return self.st.phase == PH_OVER

    @property
    def winner(self):
        """The team (0 or 1) that won the match, or None while it goes on."""
        return None if self.st.winner < 0 else self.st.winner

    @property
    def history(self):
        """``(seat, Move)`` of the current hand, tribute and back moves included."""
        cdef _Step n
        cdef list out = []
        for n in self._hand_steps():
            out.append((n.seat, step_move(n)))
        return out

    @property
    def results(self):
        """One dict per finished hand: level, declarer, finish_order, winner, levels."""
        return [dict(r, finish_order=list(r["finish_order"])) for r in self._results]

    def hand(self, p):
        """Seat ``p``'s cards in canonical order.

        >>> from guandan_fast.reference import Game as Reference
        >>> Game(seed=0).hand(1) == Reference(seed=0).hand(1)
        True
        """
        p = _check_seat(p, "seat")
        return codes_of(self.st.hand_lo[p], self.st.hand_hi[p])

    cdef list _hand_steps(self):
        """The current hand's history nodes, oldest first."""
        cdef list out = []
        cdef _Step n = self._hist
        cdef int32_t h = self.st.hand_number
        while n is not None and n.hand == h:
            out.append(n)
            n = n.prev
        out.reverse()
        return out

    # -- legal moves -----------------------------------------------------------------------
    cdef MoveList _legal_list(self, bint compact):
        cdef int n
        cdef u64 stack[2 * STACK_MOVES]
        cdef u64* heap = NULL
        cdef MoveList ml = self._ccache if compact else self._cache
        if ml is not None:
            return ml
        try:
            n = _legal_into(&self.st, compact, stack, &heap)
            ml = new_move_list(&stack[0] if heap == NULL else heap, n)
        finally:
            free(heap)
        if compact:
            self._ccache = ml
        else:
            self._cache = ml
        return ml

    def legal_moves(self, compact=False):
        """The current player's moves (tribute or back cards, or plays then PASS when
        following); empty when the match is over. ``compact=True``: one canonical move per
        (type, key, size) (docs/rules.md §6), for fast simulation.

        >>> g = Game(seed=0); ms = g.legal_moves()
        >>> len(ms) > len(g.legal_moves(compact=True)) > 0
        True
        """
        return self._legal_list(compact)

    def legal_moves_array(self, compact=False):
        """The legal moves as an ``(n, 2)`` uint64 array of ``(lo, hi)`` words (fast path).

        >>> g = Game(seed=0); a = g.legal_moves_array(); a.dtype, a.shape[1]
        (dtype('uint64'), 2)
        """
        return self._legal_list(compact).get_array()

    def num_legal(self, compact=False):
        """How many legal moves (nothing else is built)."""
        cdef int p = self.st.current
        cdef u64 exchange[2 * 64]
        if self.st.phase == PH_OVER:
            return 0
        if self.st.phase == PH_PLAY:
            return count_moves(self.st.hand_lo[p], self.st.hand_hi[p], self.st.level,
                               self.st.top_lo, self.st.top_hi, &self.st.rules.gen, compact)
        return game_legal(&self.st, compact, exchange, 64)   # tribute/back: at most 54

    # -- playing ---------------------------------------------------------------------------
    cdef void _apply(self, u64 lo, u64 hi) except *:
        cdef _Step node = _Step.__new__(_Step)
        cdef int r, level = self.st.level, declarer = self.st.declarer
        node.prev = self._hist
        node.lo = lo
        node.hi = hi
        node.hand = self.st.hand_number
        node.seat = self.st.current
        node.length = 1 if self._hist is None else self._hist.length + 1
        self._hist = node
        self._cache = None
        self._ccache = None
        r = game_apply(&self.st, lo, hi)
        if r != STEP_CONTINUE:
            self._results = self._results + (self._last_result(),)

    cdef dict _last_result(self):
        cdef int n = 2 if self.st.last_n_finished == 2 else 4
        return {"level": self.st.last_level,
                "declarer": None if self.st.last_declarer < 0 else self.st.last_declarer,
                "finish_order": [self.st.last_finish[i] for i in range(n)],
                "winner": self.st.last_finish[0] & 1,
                "levels": (self.st.levels[0], self.st.levels[1])}

    def play_index(self, index, compact=False):
        """Make the i-th move of ``legal_moves_array(compact)`` (fast path for bots and RL).

        >>> g = Game(seed=0); g.play_index(0); len(g.history)
        1
        """
        cdef Py_ssize_t n, i
        cdef long long v
        cdef int ov
        cdef const u64* buf
        cdef u64 stack[2 * STACK_MOVES]
        cdef u64* heap = NULL
        cdef MoveList ml = self._ccache if compact else self._cache
        if PyLong_CheckExact(index):
            # An exact int without Python comparisons: anything outside 0..2**31 is out of
            # range (ov: it does not even fit a long long).
            v = PyLong_AsLongLongAndOverflow(index, &ov)
            i = v if ov == 0 and 0 <= v < (1 << 31) else -1
        else:
            index = _as_int(index, "move index")
            i = index if 0 <= index < 1 << 31 else -1
        if ml is not None:
            n = ml.n
            buf = ml.buf
        else:
            if self.st.phase == PH_OVER:
                raise IllegalMoveError("the match is over")
            try:
                n = _legal_into(&self.st, compact, stack, &heap)
                if 0 <= i < n:
                    buf = &stack[0] if heap == NULL else heap
                    self._apply(buf[2 * i], buf[2 * i + 1])
                    return
            finally:
                free(heap)
        if not 0 <= i < n:
            if n == 0:
                raise IllegalMoveError("the match is over")
            raise IndexError(f"move index {index} out of range: {n} legal moves")
        self._apply(buf[2 * i], buf[2 * i + 1])

    def play_words(self, lo, hi):
        """Make the move with these integer words (checked like ``play``)."""
        cdef u64 wlo, whi
        if (isinstance(lo, bool) or isinstance(hi, bool) or not isinstance(lo, int)
                or not isinstance(hi, int)):
            raise TypeError("move words are two ints (lo, hi)")
        if not (0 <= lo <= MASK64 and 0 <= hi <= MASK64):
            raise ValueError("move words are unsigned 64-bit integers")
        wlo = lo
        whi = hi
        if not game_is_legal(&self.st, wlo, whi):
            try:
                m = Move.from_words(wlo, whi)
            except (ValueError, IndexError, KeyError) as exc:
                raise ValueError(f"({lo:#x}, {hi:#x}) is not a move: {exc}") from None
            self._diagnose(m, wlo, whi)
            raise IllegalMoveError(f"{m} is not a legal move now")
        self._apply(wlo, whi)

    def play_log(self, log, start=0, stop=None, hand_end=False):
        """Make the moves of an action log from row ``start`` up to row ``stop`` (the end by
        default), or only to the end of the current hand with ``hand_end``; returns the index
        of the next row. ``log`` is a C-contiguous ``(n, 3)`` uint64 array of ``(seat, lo, hi)``
        rows, as ``action_log()`` and ``simulate_core.record_match`` give. Every row is checked
        like ``play_words`` and against the seat to move; on a bad row nothing is changed (the
        rows before it are undone too) and the error names the row.

        >>> g = Game(seed=0); g.play_index(0); g.play_index(0); log = g.action_log()
        >>> h = Game(seed=0); h.play_log(log), h == g
        (2, True)
        >>> h = Game(seed=0); h.play_log(log[::-1].copy())
        Traceback (most recent call last):
        ...
        guandan_fast.moves.IllegalMoveError: log row 0: seat 1 moves out of turn (seat 0 is to move)
        >>> h.history
        []
        """
        cdef const u64[:, ::1] rows
        cdef Py_ssize_t i, end, n
        cdef u64 seat
        cdef GameState saved
        cdef _Step saved_hist = self._hist
        cdef tuple saved_results = self._results
        cdef Py_ssize_t results = len(self._results)
        try:
            rows = log
        except (TypeError, ValueError, BufferError):
            raise TypeError("log must be a C-contiguous (n, 3) uint64 array of (seat, lo, hi) rows"
                            f" (Game.action_log(), simulate_core.record_match); got "
                            f"{type(log).__name__}") from None
        if rows.shape[1] != 3:
            raise ValueError(f"log rows are (seat, lo, hi): 3 columns, not {rows.shape[1]}")
        n = rows.shape[0]
        i = _as_int(start, "start")
        if not 0 <= i <= n:
            raise ValueError(f"start must be in 0..{n} (the log's rows), got {start}")
        end = n if stop is None else _as_int(stop, "stop")
        if not i <= end <= n:
            raise ValueError(f"stop must be in {i}..{n}, got {stop}")
        memcpy(&saved, &self.st, sizeof(GameState))
        try:
            while i < end:
                seat = rows[i, 0]
                if self.st.phase == PH_OVER:
                    raise IllegalMoveError(f"log row {i}: the match is over")
                if seat != <u64>self.st.current:
                    raise IllegalMoveError(f"log row {i}: seat {seat} moves out of turn "
                                           f"(seat {self.st.current} is to move)")
                if not game_is_legal(&self.st, rows[i, 1], rows[i, 2]):
                    try:
                        self.play_words(rows[i, 1], rows[i, 2])   # raises the specific error
                    except (ValueError, IllegalMoveError) as exc:
                        raise type(exc)(f"log row {i}: {exc}") from None
                self._apply(rows[i, 1], rows[i, 2])
                i += 1
                if hand_end and len(self._results) != results:
                    break
        except BaseException:
            # Undo every row of this call: the state is a plain struct, the history and
            # results immutable objects.
            memcpy(&self.st, &saved, sizeof(GameState))
            self._hist = saved_hist
            self._results = saved_results
            self._cache = None
            self._ccache = None
            raise
        return i

    def action_log(self):
        """Every move of the match so far as an ``(n, 3)`` uint64 array of ``(seat, lo, hi)``
        rows (tribute and back moves and passes included), for ``play_log``.

        >>> g = Game(seed=2); g.play_index(0); g.action_log().shape
        (1, 3)
        """
        cdef Py_ssize_t n = 0 if self._hist is None else self._hist.length
        cdef u64[:, ::1] rows
        cdef _Step node = self._hist
        import numpy as np

        out = np.empty((n, 3), dtype=np.uint64)
        rows = out
        while node is not None:
            n -= 1
            rows[n, 0] = <u64>node.seat
            rows[n, 1] = node.lo
            rows[n, 2] = node.hi
            node = node.prev
        return out

    def play(self, move, seat=None):
        """Make the current player's move: a ``Move`` (``PASS`` to pass) or a platform list.

        Raises ``TypeError``/``ValueError`` for malformed input and ``IllegalMoveError`` for
        a move not allowed now; the state is then unchanged.

        >>> g = Game(seed=0)
        >>> g.play(PASS)
        Traceback (most recent call last):
        ...
        guandan_fast.moves.IllegalMoveError: seat 0 leads this trick and cannot pass
        """
        cdef u64 lo, hi
        if isinstance(move, Move):
            m = move
        elif isinstance(move, (list, tuple)):
            m = self._from_platform(move)
        else:
            raise TypeError(f"a move is a Move or a platform list [type, rank, cards], "
                            f"not {type(move).__name__}")
        if seat is not None:
            seat = _check_seat(seat, "seat")
        if self.st.phase == PH_OVER:
            raise IllegalMoveError("the match is over")
        if seat is not None and seat != self.st.current:
            raise IllegalMoveError(f"seat {seat} cannot act: it is seat {self.st.current}'s turn")
        lo, hi = m.words
        if move_rank(hi) == RANK_JOKER and move_of(lo, hi) != m:
            # A false joker label (Single R of SB) has the words of the true move.
            raise ValueError(f"cards {' '.join(m.cards)} do not make {m.type} {m.rank} at "
                             f"level {self.st.level}")
        if not game_is_legal(&self.st, lo, hi):
            self._diagnose(m, lo, hi)
            raise IllegalMoveError(f"{m} is not a legal move now")
        self._apply(lo, hi)

    cdef object _from_platform(self, action):
        _check_platform_form(action)
        if action[0] == "PASS" or action[0] in ("tribute", "back"):
            return Move.from_platform(action, self.st.level)
        m = Move(*action)
        self._check_reading(m)
        return m

    cdef int _check_reading(self, m) except -1:
        cdef u64 buf[2 * 64]
        cdef u64 lo, hi
        cdef int n, i
        lo, hi = m.words
        n = classify_cards(lo, hi & HI_CARD_MASK, self.st.level, &self.st.rules.gen, buf, 64)
        for i in range(min(n, 64)):
            if buf[2 * i] == lo and buf[2 * i + 1] == hi:
                if move_rank(hi) == RANK_JOKER and move_of(lo, hi) != m:
                    break   # a false joker label
                return 0
        raise ValueError(f"cards {' '.join(m.cards)} do not make {m.type} {m.rank} at "
                         f"level {self.st.level}")

    cdef int _diagnose(self, m, u64 lo, u64 hi) except -1:
        """Raise the specific error for an illegal move (the reference's messages)."""
        cdef int p = self.st.current
        cdef GameState* s = &self.st
        if s.phase == PH_OVER:
            raise IllegalMoveError("the match is over")
        if s.phase == PH_TRIBUTE:
            if m.type != "tribute":
                raise IllegalMoveError(f"seat {p} must make a tribute move now, not {m}")
            choices = " ".join(str(x.cards[0]) for x in self.legal_moves())
            if s.choosing:
                raise IllegalMoveError(f"seat {p} chooses one of the tribute cards "
                                       f"{choices}, not {m.cards[0]}")
            raise IllegalMoveError(f"seat {p} must pay his highest non-wild card: one of "
                                   f"{choices}, not {m.cards[0]}")
        if s.phase == PH_BACK:
            if m.type != "back":
                raise IllegalMoveError(f"seat {p} must return a card (a back move) now, not {m}")
            choices = " ".join(str(x.cards[0]) for x in self.legal_moves())
            raise IllegalMoveError(f"seat {p} may return one of {choices}, not {m.cards[0]}")
        if m.type in ("tribute", "back"):
            raise IllegalMoveError(f"no {m.type} moves in the play phase ({m})")
        if m.type == "PASS":
            raise IllegalMoveError(f"seat {p} leads this trick and cannot pass")
        self._check_reading(m)
        hand = self.hand(p)
        lacking = [c for c in set(m.cards) if hand.count(c) < m.cards.count(c)]
        if lacking:
            raise IllegalMoveError(f"seat {p} does not hold {' '.join(sort_cards(lacking))} "
                                   f"for {m}")
        if s.top_seat >= 0:
            raise IllegalMoveError(f"{m} does not beat {move_of(s.top_lo, s.top_hi)}")
        return 0

    # -- information -----------------------------------------------------------------------
    def observation(self, p):
        """What seat ``p`` knows (docs/rules.md §10), as the dict of docs/design.md.

        >>> sorted(Game(seed=0).observation(0))[:4]
        ['anti_tribute', 'back', 'counts', 'current_player']
        """
        cdef GameState* s = &self.st
        cdef int q, n, i, limit = s.rules.disclosure
        p = _check_seat(p, "seat")
        counts = []
        for q in range(4):
            n = card_count(s.hand_lo[q], s.hand_hi[q])
            counts.append(n if q == p or n <= limit else None)
        cdef _Step node
        cdef list plays = []
        for node in self._hand_steps():
            if move_type(node.hi) < T_TRIBUTE:
                plays.append((node.seat, step_move(node)))
        returned = s.n_pay > 0 and (s.phase == PH_PLAY or s.phase == PH_OVER)
        tribute = []
        paid = s.step if s.phase == PH_TRIBUTE and not s.choosing else s.n_pay
        for i in range(paid):
            receiver = None if s.receiver[i] < 0 else s.receiver[i]
            seen = returned or p == s.payer[i] or (receiver is not None and p == receiver)
            tribute.append((s.payer[i], receiver, _CODES[s.trib_kind[i]] if seen else None))
        back = []
        if s.phase == PH_BACK or returned:
            for j in range(s.step if s.phase == PH_BACK else s.n_pay):
                i = j if s.n_pay == 1 else (0 if (s.receiver[0] == s.tribute_first) == (j == 0) else 1)
                seen = returned or p == s.receiver[i] or p == s.payer[i]
                back.append((s.receiver[i], s.payer[i],
                             _CODES[s.back_kind[i]] if seen else None))
        top = None
        if s.top_seat >= 0:
            top = (s.top_seat, move_of(s.top_lo, s.top_hi))
        return {
            "seat": p,
            "phase": _PHASE_NAMES[s.phase],
            "current_player": None if s.current < 0 else s.current,
            "level": s.level,
            "levels": (s.levels[0], s.levels[1]),
            "declarer": None if s.declarer < 0 else s.declarer,
            "hand_number": s.hand_number,
            "hand": codes_of(s.hand_lo[p], s.hand_hi[p]),
            "counts": tuple(counts),
            "finish_order": tuple(s.finish[i] for i in range(s.n_finished)),
            "plays": tuple(plays),
            "top": top,
            "tribute": tuple(tribute),
            "back": tuple(back),
            "anti_tribute": bool(s.anti_tribute),
        }

    # -- value semantics -------------------------------------------------------------------
    def clone(self):
        """An independent copy: the struct is copied, the (immutable) past is shared.

        >>> g = Game(seed=5); c = g.clone(); c.play_index(0); c == g
        False
        """
        cdef Game c = Game.__new__(Game)
        memcpy(&c.st, &self.st, sizeof(GameState))
        c._seed = self._seed
        c._rules = self._rules
        c._hist = self._hist
        c._results = self._results
        c._origin = self._origin
        c._cache = self._cache
        c._ccache = self._ccache
        return c

    def __eq__(self, other):
        cdef Game o
        cdef _Step a, b
        if not isinstance(other, Game):
            return NotImplemented
        o = <Game>other
        if memcmp(&self.st, &o.st, sizeof(GameState)) != 0:
            return False
        if self._seed != o._seed or self._rules != o._rules or self._results != o._results:
            return False
        a = self._hist
        b = o._hist
        if (0 if a is None else a.length) != (0 if b is None else b.length):
            return False
        while a is not b:
            if a.lo != b.lo or a.hi != b.hi or a.seat != b.seat or a.hand != b.hand:
                return False
            a = a.prev
            b = b.prev
        return True

    def __copy__(self):
        return self.clone()

    def __deepcopy__(self, memo):
        return self.clone()   # the past is immutable and shared; the struct is copied

    def __reduce__(self):
        """Pickling: the struct's bytes, the past and the start (``_restore`` replays the past
        from the start and checks the result against the bytes)."""
        cdef list steps = []
        cdef _Step n = self._hist
        while n is not None:
            steps.append((n.lo, n.hi, n.hand, n.seat))
            n = n.prev
        steps.reverse()
        state = (<char*>&self.st)[:sizeof(GameState)]
        return (_restore, (state, self._seed, self._rules, tuple(steps), self._results,
                           self._origin))

    def __repr__(self):
        return (f"<Game hand {self.st.hand_number} phase={self.phase} level={self.st.level} "
                f"levels={self.levels} to act={self.current_player}>")

    # -- pictures (python/guandan_fast/svg.py, docs/web.md) ----------------------------------
    def _repr_svg_(self):
        """Jupyter shows a game as the picture of its position, every hand face up
        (``guandan_fast.svg.table``; ``svg.table(game, seat=p)`` draws one seat's view)."""
        from .svg import table
        return str(table(self))

    def _repr_html_(self):
        from .svg import table
        return str(table(self))

    # -- search (src/guandan_fast/sample.pyx, docs/search.md) --------------------------------
    def sample_world(self, p, seed=0, weights=None):
        """A copy in which the cards seat ``p`` cannot see are redealt among the other seats
        (``guandan_fast.sample.sample_world``).

        >>> g = Game(seed=3); w = g.sample_world(0, seed=1)
        >>> w.hand(0) == g.hand(0), w.hand(1) == g.hand(1)
        (True, False)
        """
        from .sample import sample_world
        return sample_world(self, p, seed, weights)

    def infoset_key(self, p):
        """A 64-bit hash of what seat ``p`` knows (``guandan_fast.sample.infoset_key``)."""
        from .sample import infoset_key
        return infoset_key(self, p)

    def state_bytes(self):
        """The position as bytes (the compiled state struct): equal for games in the same
        position, whatever their past; a key for transposition tables or a quick check that
        two games stand at the same point. Opaque: its layout may change between versions.

        >>> a, b = Game(seed=4), Game(seed=4)
        >>> a.state_bytes() == b.state_bytes()
        True
        >>> a.play_index(0); a.state_bytes() == b.state_bytes()
        False
        """
        return (<char*>&self.st)[:sizeof(GameState)]

    # -- records (python/guandan_fast/records.py) -------------------------------------------
    def moves_by_hand(self):
        """Every move of the match so far, tributes and back moves included: a list per hand
        (the current one last) of ``(seat, Move)``.

        >>> g = Game(seed=2); first = g.current_player; g.play_index(0)
        >>> [[seat for seat, move in hand] for hand in g.moves_by_hand()] == [[first]]
        True
        """
        cdef list steps = []
        cdef _Step n = self._hist
        while n is not None:
            steps.append(n)
            n = n.prev
        steps.reverse()
        out = [[] for _ in range(self.st.hand_number + 1)]
        for node in steps:
            n = <_Step>node
            out[n.hand].append((n.seat, step_move(n)))
        return out

    @property
    def origin(self):
        """How the match started: ``None`` when it was dealt from the seed, else a dict of
        what ``Game.setup`` was given (hands, levels, declarer, previous_finish, leader).

        >>> Game(seed=1).origin is None
        True
        """
        return self._origin

    def to_record(self, path=None):
        """The match as JSON Lines (``records.py``): a list of lines, also written to
        ``path`` when given (a ``str``/``os.PathLike``, gzip-compressed if it ends in ``.gz``,
        or a file object, written to and not closed).

        >>> g = Game(seed=2); g.play_index(0)
        >>> Game.from_record(g.to_record()) == g
        True
        """
        from .records import record_game
        return record_game(self, path)

    @staticmethod
    def from_record(path_or_lines, match=0, step=None):
        """Replay a JSON Lines record (a path, gzip or not, a file object or an iterable of
        lines; ``match``: which of the file's matches) to the same state, reading line by line;
        every field is checked, and a corrupted record raises ``ValueError`` naming its line.
        ``step=k``: the position after the match's first ``k`` moves instead of its end.

        >>> g = Game(seed=2)
        >>> for _ in range(5):
        ...     g.play_index(0)
        >>> Game.from_record(g.to_record(), step=3).history == g.history[:3]
        True
        """
        from .records import replay
        return replay(path_or_lines, Game, match, step)

    # -- learning interface (guandan_fast.actions / observe; docs/learning.md) ---------------
    # Thin delegations: the compiled work lives in actions.pyx and observe.pyx.
    def legal_action_mask(self, out=None):
        """``bool[N_ACTIONS]``: which abstract actions (``guandan_fast.actions``) are legal
        now (all False when the match is over). ``out``: a C-contiguous ``bool[N_ACTIONS]``
        array to fill instead of a new one.

        >>> g = Game(seed=0); m = g.legal_action_mask(); m.shape, bool(m[0])
        ((501,), False)
        """
        from . import actions
        return actions.legal_action_mask(self, out)

    def play_action(self, action):
        """Play the canonical concrete move of a legal abstract action id (docs/learning.md);
        ``IllegalMoveError`` when the id is not legal now, the state then unchanged.

        >>> g = Game(seed=0); g.play_action(int(g.legal_action_mask().nonzero()[0][0]))
        >>> len(g.history)
        1
        """
        from . import actions
        cdef u64 lo, hi
        lo, hi = actions.canonical_words(self, action)
        self._apply(lo, hi)

    def observation_tensor(self, p=None, out=None):
        """Seat ``p``'s observation (default: the player to act) as ``float32[OBS_SIZE]``
        (layout: ``guandan_fast.observe.OBS_LAYOUT``)."""
        from . import observe
        return observe.observation_tensor(self, p, out)

    def information_state_tensor(self, p=None, out=None):
        """The observation plus the hand's recent moves, ``float32[INFO_SIZE]``
        (``guandan_fast.observe.INFO_LAYOUT``)."""
        from . import observe
        return observe.information_state_tensor(self, p, out)


def _restore(state, seed, rules, steps, results, origin):
    """Unpickle a ``Game`` (see ``Game.__reduce__``).

    A pickle is data from outside: the game is rebuilt from its start (the seed, or the
    ``Game.setup`` arguments) by replaying every move of its history through the checked
    ``play_words``, and must then equal the pickled struct and results byte for byte. So a
    corrupted pickle raises ``ValueError`` and never reaches the unchecked core.

    >>> import pickle
    >>> g = Game(seed=4); g.play_index(0)
    >>> pickle.loads(pickle.dumps(g)) == g
    True
    >>> _restore(b'x' * sizeof_state(), 4, Rules(), (), (), None)
    Traceback (most recent call last):
    ...
    ValueError: corrupted Game pickle: the state does not match the game's history
    """
    cdef Game g
    if not isinstance(state, bytes) or len(state) != sizeof(GameState):
        raise ValueError(f"corrupted Game pickle: the state is {sizeof(GameState)} bytes, not "
                         f"{len(state) if isinstance(state, bytes) else type(state).__name__}"
                         f" (pickled by another build of guandan_fast?)")
    try:
        if not isinstance(steps, tuple) or not isinstance(results, tuple):
            raise TypeError("steps and results must be tuples")
        if not isinstance(rules, Rules):
            raise TypeError(f"rules is a {type(rules).__name__}")
        # Unpickling a dataclass skips its checks: rebuild it through __init__.
        rules = Rules(**{f.name: getattr(rules, f.name) for f in _dc_fields(Rules)})
        if seed is None and origin is None:
            g = Game.__new__(Game)      # the inert Game.__new__(Game)
        elif origin is None:
            g = Game(seed, rules)
        else:
            if type(origin) is not dict or set(origin) != _ORIGIN_KEYS:
                raise TypeError("bad setup origin")
            g = Game.setup(origin["hands"], levels=origin["levels"],
                           declarer=origin["declarer"],
                           previous_finish=origin["previous_finish"], leader=origin["leader"],
                           seed=seed, rules=rules)
        for step in steps:
            if type(step) is not tuple or len(step) != 4:
                raise TypeError("a history step is (lo, hi, hand, seat)")
            lo, hi, hand, seat = step
            if hand != g.st.hand_number or seat != g.st.current:
                raise ValueError(f"history step {step!r} out of turn")
            g.play_words(lo, hi)
    except ValueError as exc:
        raise ValueError(f"corrupted Game pickle: {exc}") from None
    except (TypeError, KeyError, IndexError, AttributeError, OverflowError) as exc:
        raise ValueError(f"corrupted Game pickle: {type(exc).__name__}: {exc}") from None
    if memcmp(<const char*>state, &g.st, sizeof(GameState)) != 0 or g._results != results:
        raise ValueError("corrupted Game pickle: the state does not match the game's history")
    return g


from dataclasses import fields as _dc_fields
_ORIGIN_KEYS = frozenset({"hands", "levels", "declarer", "previous_finish", "leader"})


def sizeof_state():
    """``sizeof(GameState)`` in bytes: one match's whole state."""
    return sizeof(GameState)


# ------------------------------------------------------------------------------------------
# Learning interface: C-level access for actions.pyx / observe.pyx (game.pxd)
# ------------------------------------------------------------------------------------------

cdef GameState* game_state_ptr(object game) except NULL:
    if not isinstance(game, Game):
        raise TypeError(f"game must be a guandan_fast.Game, not {type(game).__name__}")
    return &(<Game>game).st


cdef object game_with_state(object game, const GameState* t):
    """A clone of ``game`` (its seed, rules and past) standing in position ``t`` (a world
    drawn by guandan_fast.sample, a solver's test position), after checks that keep the
    compiled code in bounds: ``ValueError`` if a field is out of range."""
    cdef int q, k, n
    cdef Game c
    seats = [t.current, t.top_seat, t.leader, t.tribute_first] + [t.finish[q] for q in range(4)] \
        + [t.payer[q] for q in range(2)] + [t.receiver[q] for q in range(2)]
    kinds = [t.trib_kind[q] for q in range(2)] + [t.back_kind[q] for q in range(2)]
    ok = (0 <= t.phase <= 3 and all(-1 <= x <= 3 for x in seats)
          and all(-1 <= x < N_KINDS for x in kinds) and 0 <= t.n_finished <= 4
          and 0 <= t.n_pay <= 2 and -1 <= t.declarer <= 1 and 2 <= t.level <= 14
          and 2 <= t.levels[0] <= 14 and 2 <= t.levels[1] <= 14)
    for q in range(4):
        ok = ok and (t.hand_lo[q] & ~LO_CARD_MASK) == 0 and (t.hand_hi[q] & ~HI_CARD_MASK) == 0
    for k in range(N_KINDS):
        n = 0
        for q in range(4):
            n += kind_count(t.hand_lo[q], t.hand_hi[q], k)
        ok = ok and n <= 2
    if not ok:
        raise ValueError("state: not a state of this engine (a field is out of range)")
    c = (<Game?>game).clone()
    memcpy(&c.st, t, sizeof(GameState))
    c._cache = None
    c._ccache = None
    return c


cdef int game_hand_plays(object game, u64* out, int cap) except -1:
    cdef Game g
    cdef _Step n
    cdef int count = 0, i
    if not isinstance(game, Game):
        raise TypeError(f"game must be a guandan_fast.Game, not {type(game).__name__}")
    g = <Game>game
    n = g._hist
    # Newest first: keep the latest `cap` play-phase moves, then reverse in place.
    while n is not None and n.hand == g.st.hand_number and count < cap:
        if move_type(n.hi) < T_TRIBUTE:
            out[3 * count] = <u64>n.seat
            out[3 * count + 1] = n.lo
            out[3 * count + 2] = n.hi
            count += 1
        n = n.prev
    for i in range(count // 2):
        for j in range(3):
            out[3 * i + j], out[3 * (count - 1 - i) + j] = out[3 * (count - 1 - i) + j], out[3 * i + j]
    return count


def __getattr__(name):
    # perft_game and random_playout live in guandan_fast.perft_core (which needs this module,
    # so it cannot be imported at this module's start); they stay importable from here, where
    # tests and scripts have always found them.
    if name in ("perft_game", "random_playout"):
        from guandan_fast import perft_core
        return getattr(perft_core, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The fixed abstract action space: one integer per thing a policy head can say.

Every concrete move belongs to exactly one abstract action (``action_id(move, level)``); in a
position, each legal abstract action has one **canonical** concrete move (the compact mode's
choice, extended to full houses by pair rank), which ``Game.play_action(id)`` plays. The
numbering (version ``VERSION``, ``N_ACTIONS`` = 501 ids) is documented in docs/learning.md.

>>> import guandan_fast as gf
>>> N_ACTIONS, action_id(gf.PASS, 2), action_name(action_id(gf.Move('Pair', 'R', 'HR HR'), 2))
(501, 0, 'Pair R')
>>> action_name(action_id(gf.Move('ThreeWithTwo', '8', 'S8 C8 D8 H7 H7'), 7))
'ThreeWithTwo 8 over 7'
>>> g = gf.Game(seed=0); ids = legal_actions(g)
>>> all(action_id(canonical_move(g, int(i)), g.level) == i for i in ids)
True
"""
from libc.string cimport memset
from libc.stdint cimport int32_t, uint8_t, uint16_t

from guandan_fast.types cimport (u64, N_RANKS, N_SUITS, KIND_SB, KIND_HR, HI_CARD_MASK, T_PASS,
                                 T_SINGLE, T_PAIR, T_TRIPS, T_THREE_WITH_TWO, T_STRAIGHT,
                                 T_THREE_PAIR, T_TWO_TRIPS, T_BOMB, T_STRAIGHT_FLUSH,
                                 T_TRIBUTE, T_BACK, RANK_JOKER, RANK_ACE, kind_count, move_type,
                                 move_rank, move_tag, wild_kind, single_kind, card_count,
                                 NONBOMB_TYPES, __builtin_ctzll, rank_value, play_key)
from guandan_fast.codec cimport move_of
from guandan_fast.movegen_core cimport classify_cards
from guandan_fast.game_core cimport GameState, PH_PLAY, PH_OVER, game_legal
from guandan_fast.game cimport game_state_ptr

cimport numpy as cnp
import numpy as np

from guandan_fast.validate import check_count, check_words_array
from collections import namedtuple

from .moves import Move, IllegalMoveError

cnp.import_array()

VERSION = ACTIONS_VERSION
# The enum's value as a module attribute (a cdef enum is invisible to Python).
globals()["N_ACTIONS"] = int(N_ACTIONS)

#: name -> (first id, count) of each block of the numbering.
BLOCKS = {
    "PASS": (A_PASS, 1), "Single": (A_SINGLE, 15), "Pair": (A_PAIR, 15),
    "Trips": (A_TRIPS, 13), "ThreeWithTwo": (A_FULL_HOUSE, 182),
    "Straight": (A_STRAIGHT, 10), "ThreePair": (A_THREE_PAIR, 12),
    "TwoTrips": (A_TWO_TRIPS, 13), "Bomb": (A_BOMB, 91),
    "StraightFlush": (A_STRAIGHT_FLUSH, 40), "JokerBomb": (A_JOKER_BOMB, 1),
    "tribute": (A_TRIBUTE, 54), "back": (A_BACK, 54),
}


# ------------------------------------------------------------------------------------------
# Moves -> ids (nogil)
# ------------------------------------------------------------------------------------------

cdef inline int group_index(u64 lo, u64 hi, int rc) noexcept nogil:
    """Rank index of a single or pair: 0..12 for 2..A, 13 small joker, 14 big joker
    (-1 for a rank code no single or pair has)."""
    if rc == RANK_JOKER:
        if kind_count(lo, hi, KIND_SB):
            return N_RANKS
        return N_RANKS + 1 if kind_count(lo, hi, KIND_HR) else -1
    return rc - 2 if 2 <= rc <= RANK_ACE else -1


cdef int action_of_move(u64 lo, u64 hi, int level) noexcept nogil:
    cdef int t = move_type(hi)
    cdef int rc = move_rank(hi)
    cdef int k, q, ti, wild, n
    if t == T_PASS:
        return A_PASS if (lo == 0 and (hi & HI_CARD_MASK) == 0) else -1
    if t == T_SINGLE or t == T_PAIR:
        q = group_index(lo, hi, rc)
        if q < 0:
            return -1
        return (A_SINGLE if t == T_SINGLE else A_PAIR) + q
    if t == T_TRIPS:
        return A_TRIPS + rc - 2 if 2 <= rc <= 14 else -1
    if t == T_THREE_WITH_TWO:
        if not 2 <= rc <= 14:
            return -1
        ti = rc - 2
        wild = wild_kind(level)
        if kind_count(lo, hi, KIND_SB):
            q = N_RANKS
        elif kind_count(lo, hi, KIND_HR):
            q = N_RANKS + 1
        else:
            # The pair's rank: a natural card of another rank, else a pair of wilds (level).
            q = level - 2
            for k in range(KIND_SB):
                if k != wild and k % N_RANKS != ti and kind_count(lo, hi, k):
                    q = k % N_RANKS
                    break
        if q == ti:
            return -1
        return A_FULL_HOUSE + ti * 14 + (q if q < ti else q - 1)
    if t == T_STRAIGHT:
        return A_STRAIGHT + rc - 1 if 1 <= rc <= 10 else -1
    if t == T_THREE_PAIR:
        return A_THREE_PAIR + rc - 1 if 1 <= rc <= 12 else -1
    if t == T_TWO_TRIPS:
        return A_TWO_TRIPS + rc - 1 if 1 <= rc <= 13 else -1
    if t == T_BOMB:
        if rc == RANK_JOKER:
            return A_JOKER_BOMB
        n = card_count(lo, hi)
        if not (2 <= rc <= 14 and 4 <= n <= 10):
            return -1
        return A_BOMB + (rc - 2) * 7 + n - 4
    if t == T_STRAIGHT_FLUSH:
        if not 1 <= rc <= 10:
            return -1
        wild = wild_kind(level)
        for k in range(KIND_SB):
            if k != wild and kind_count(lo, hi, k):
                return A_STRAIGHT_FLUSH + (rc - 1) * N_SUITS + k // N_RANKS
        return -1
    if t == T_TRIBUTE or t == T_BACK:
        k = single_kind(lo, hi)
        if k < 0:
            return -1
        return (A_TRIBUTE if t == T_TRIBUTE else A_BACK) + k
    return -1


# ------------------------------------------------------------------------------------------
# Legal abstract actions and their canonical moves (nogil)
# ------------------------------------------------------------------------------------------

cdef int fill_exchange_actions(const GameState* s, u64* scratch, int32_t* ids,
                               u64* words) noexcept nogil:
    cdef int n
    if s.phase == PH_OVER:
        return 0
    n = game_legal(s, True, scratch, ACT_SCRATCH)
    return sort_actions(scratch, n, s.level, ids, words)


cdef int sort_actions(const u64* moves, int c, int level, int32_t* ids, u64* words) noexcept nogil:
    """The abstract actions of moves[0 .. c) (words, their ids distinct) into ids/words in
    ascending id order, through a bit per id in a 512-bit set. Returns the count written."""
    cdef u64 seen[(N_ACTIONS + 63) >> 6]
    cdef uint16_t at[N_ACTIONS]
    cdef int i, k, a, b
    cdef u64 x
    memset(seen, 0, sizeof(seen))
    for i in range(c):
        a = action_of_move(moves[2 * i], moves[2 * i + 1], level)
        seen[a >> 6] |= (<u64>1) << (a & 63)
        at[a] = <uint16_t>i
    k = 0
    for b in range((N_ACTIONS + 63) >> 6):
        x = seen[b]
        while x:
            a = 64 * b + __builtin_ctzll(x)
            x &= x - 1
            i = at[a]
            ids[k] = a
            words[2 * k] = moves[2 * i]
            words[2 * k + 1] = moves[2 * i + 1]
            k += 1
    return k


# ------------------------------------------------------------------------------------------
# Python API
# ------------------------------------------------------------------------------------------

# module=: made in a compiled module, a namedtuple would take importlib._bootstrap for its
# module, where pickle cannot find it
ActionInfo = namedtuple("ActionInfo", "type rank pair size suit card", module=__name__)
ActionInfo.__doc__ = """What an abstract action id stands for (docs/learning.md).

``type``: a move type name, or ``'JokerBomb'``; ``rank``: the rank label (``'2'``..``'A'``,
``'B'``, ``'R'``; for sequences the low end, ``'A'`` = A-low); ``pair``: a full house's pair
rank; ``size``: a bomb's card count; ``suit``: a straight flush's suit; ``card``: the card of a
tribute/back action. Unused fields are None."""

_RANKS = "23456789TJQKA"
_GROUP = tuple(_RANKS) + ("B", "R")
_SEQ = ("A",) + tuple(_RANKS[:-1])     # low end of a sequence window, rank code 1..13


def _build_infos():
    from .cards import CARD_CODES
    out = [ActionInfo("PASS", None, None, None, None, None)]
    out += [ActionInfo("Single", r, None, None, None, None) for r in _GROUP]
    out += [ActionInfo("Pair", r, None, None, None, None) for r in _GROUP]
    out += [ActionInfo("Trips", r, None, None, None, None) for r in _RANKS]
    for t in range(N_RANKS):
        out += [ActionInfo("ThreeWithTwo", _RANKS[t], _GROUP[q], None, None, None)
                for q in range(15) if q != t]
    out += [ActionInfo("Straight", _SEQ[w], None, None, None, None) for w in range(10)]
    out += [ActionInfo("ThreePair", _SEQ[w], None, None, None, None) for w in range(12)]
    out += [ActionInfo("TwoTrips", _SEQ[w], None, None, None, None) for w in range(13)]
    out += [ActionInfo("Bomb", r, None, n, None, None) for r in _RANKS for n in range(4, 11)]
    out += [ActionInfo("StraightFlush", _SEQ[w], None, None, s, None)
            for w in range(10) for s in "SHCD"]
    out.append(ActionInfo("JokerBomb", "JOKER", None, None, None, None))
    out += [ActionInfo("tribute", None, None, None, None, c) for c in CARD_CODES]
    out += [ActionInfo("back", None, None, None, None, c) for c in CARD_CODES]
    assert len(out) == N_ACTIONS
    return tuple(out)


cdef tuple _INFOS = _build_infos()


cdef int check_id(object a) except -1:
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
        raise TypeError(f"an action id is an int, not {type(a).__name__}")
    if not 0 <= a < N_ACTIONS:
        raise ValueError(f"action id must be 0..{N_ACTIONS - 1}, got {a}")
    return <int>a


def action_info(a):
    """The :class:`ActionInfo` of id ``a`` (the inverse of :func:`action_id`).

    >>> action_info(action_id(Move('StraightFlush', 'A', 'SA S2 S3 S4 S5'), 2))
    ActionInfo(type='StraightFlush', rank='A', pair=None, size=None, suit='S', card=None)
    """
    return _INFOS[check_id(a)]


def action_name(a):
    """A short readable name of id ``a``: ``'Single 7'``, ``'Bomb 9 x5'``, ``'tribute HA'``.

    >>> [action_name(a) for a in (0, 1, 392, 446)]
    ['PASS', 'Single 2', 'JokerBomb', 'tribute HR']
    """
    i = _INFOS[check_id(a)]
    if i.type == "PASS" or i.type == "JokerBomb":
        return i.type
    if i.card is not None:
        return f"{i.type} {i.card}"
    if i.pair is not None:
        return f"ThreeWithTwo {i.rank} over {i.pair}"
    if i.size is not None:
        return f"Bomb {i.rank} x{i.size}"
    if i.suit is not None:
        return f"StraightFlush {i.rank} {i.suit}"
    return f"{i.type} {i.rank}"


cdef object words_of_move(object move):
    if not isinstance(move, Move):
        raise TypeError(f"move must be a guandan_fast.Move, not {type(move).__name__}")
    return move.words


def action_id(move, level):
    """The abstract action of a ``Move`` at ``level`` (2..14 or a rank character): which
    cards are wild decides a full house's pair rank and a straight flush's suit.

    ``ValueError`` when the cards do not make that move at that level.

    >>> action_id(Move('Single', '2', 'S2'), 2), action_id(Move('tribute', 'tribute', 'HR'), 2)
    (1, 446)
    """
    from .cards import parse_level
    cdef int lv = parse_level(level)
    cdef u64 lo, hi
    cdef u64 buf[2 * 64]
    cdef int t, n, i, a
    lo, hi = words_of_move(move)
    t = move_type(hi)
    if T_SINGLE <= t <= T_STRAIGHT_FLUSH:
        n = classify_cards(lo, hi & HI_CARD_MASK, lv, &_GEN, buf, 64)
        for i in range(n):
            if buf[2 * i] == lo and buf[2 * i + 1] == hi:
                break
        else:
            raise ValueError(f"{move} is not a reading of its cards at level {lv}")
    a = action_of_move(lo, hi, lv)
    if a < 0:
        raise ValueError(f"{move} has no abstract action")
    return a


from guandan_fast.movegen_core cimport RulesC
cdef RulesC _GEN
_GEN.sf_as_straight = True
_GEN.fullhouse_joker_pair = True


cdef long _sink = 0

# The buffers of one listing (about 42 KB), on the caller's C stack: no module-level buffer
# shared between calls. (A shared one was unsafe even with the GIL: legal_action_mask runs
# Python code between filling it and reading it, and time_legal_actions filled it without
# the GIL.)
cdef struct Listing:
    u64 scratch[2 * ACT_SCRATCH]
    int32_t ids[N_ACTIONS]
    u64 words[2 * N_ACTIONS]


cdef int _legal(object game, Listing* out) except -1:
    """Fill `out` with game's legal actions and their canonical moves; their number."""
    cdef GameState* s = game_state_ptr(game)
    return fill_legal_actions(s, out.scratch, out.ids, out.words, NULL)


def legal_action_mask(game, out=None):
    """``bool[N_ACTIONS]`` of a ``Game``'s legal abstract actions (``Game.legal_action_mask``).

    >>> import guandan_fast as gf
    >>> m = legal_action_mask(gf.Game(seed=0)); m.dtype, m.shape, int(m.sum()) > 10
    (dtype('bool'), (501,), True)
    """
    cdef Listing la
    cdef int n, i
    cdef uint8_t[::1] view
    n = _legal(game, &la)
    if out is None:
        out = np.zeros(N_ACTIONS, dtype=np.bool_)
    else:
        if not isinstance(out, np.ndarray) or out.dtype != np.bool_ or out.shape != (N_ACTIONS,):
            raise ValueError(f"out must be a numpy bool array of shape ({N_ACTIONS},), got "
                             f"{getattr(out, 'dtype', type(out).__name__)} "
                             f"{getattr(out, 'shape', '')}")
        if not out.flags.c_contiguous or not out.flags.writeable:
            raise ValueError("out must be C-contiguous and writeable")
        out[:] = False
    view = out.view(np.uint8)
    for i in range(n):
        view[la.ids[i]] = 1
    return out


def legal_actions(game):
    """The legal abstract action ids of a ``Game``, ascending (``int32``)."""
    cdef Listing la
    cdef int n = _legal(game, &la)
    cdef cnp.ndarray arr = np.empty(n, dtype=np.int32)
    cdef int32_t[::1] v = arr
    cdef int i
    for i in range(n):
        v[i] = la.ids[i]
    return arr


def canonical_moves(game):
    """``(ids int32[n], words uint64[n, 2])``: every legal abstract action of a ``Game`` with
    its canonical concrete move as ``(lo, hi)`` words (docs/design.md)."""
    cdef Listing la
    cdef int n = _legal(game, &la)
    cdef cnp.ndarray ids = np.empty(n, dtype=np.int32)
    cdef cnp.ndarray words = np.empty((n, 2), dtype=np.uint64)
    cdef int32_t[::1] iv = ids
    cdef u64[:, ::1] wv = words
    cdef int i
    for i in range(n):
        iv[i] = la.ids[i]
        wv[i, 0] = la.words[2 * i]
        wv[i, 1] = la.words[2 * i + 1]
    return ids, words


def canonical_words(game, a):
    """``(lo, hi)`` of the canonical move of legal action ``a``; ``IllegalMoveError`` when
    ``a`` is not legal now."""
    cdef Listing la
    cdef int want = check_id(a)
    cdef int n = _legal(game, &la)
    cdef int i
    for i in range(n):
        if la.ids[i] == want:
            return la.words[2 * i], la.words[2 * i + 1]
    if game_state_ptr(game).phase == PH_OVER:
        raise IllegalMoveError("the match is over")
    raise IllegalMoveError(f"action {want} ({action_name(want)}) is not legal now")


def canonical_move(game, a):
    """The canonical concrete ``Move`` of legal action ``a`` (what ``play_action`` plays).

    >>> import guandan_fast as gf
    >>> canonical_move(gf.Game(seed=0), 0)
    Traceback (most recent call last):
    ...
    guandan_fast.moves.IllegalMoveError: action 0 (PASS) is not legal now
    """
    lo, hi = canonical_words(game, a)
    return move_of(lo, hi)


def concrete_moves(game, a):
    """Every legal concrete ``Move`` of action ``a`` (the complete legal list filtered by id;
    empty when ``a`` is not legal now)."""
    cdef int want = check_id(a)
    cdef GameState* s = game_state_ptr(game)
    arr = game.legal_moves_array()
    cdef const u64[:, ::1] w = arr
    cdef Py_ssize_t i
    out = []
    for i in range(w.shape[0]):
        if action_of_move(w[i, 0], w[i, 1], s.level) == want:
            out.append(move_of(w[i, 0], w[i, 1]))
    return out


def actions_of_moves(words, level):
    """Vectorised :func:`action_id` on trusted move words (``uint64[n, 2]``, e.g.
    ``Game.legal_moves_array()``): ``int32[n]`` (-1 for words that are no move)."""
    from .cards import parse_level
    cdef int lv = parse_level(level)
    arr = check_words_array(words)
    cdef const u64[:, ::1] w = arr
    out = np.empty(arr.shape[0], dtype=np.int32)
    cdef int32_t[::1] o = out
    cdef Py_ssize_t i
    with nogil:
        for i in range(w.shape[0]):
            o[i] = action_of_move(w[i, 0], w[i, 1], lv)
    return out


def time_legal_actions(game, reps):
    """Seconds per call of the compiled legal-action listing (canonical moves included) on
    a ``Game``'s state, called ``reps`` times from a C loop (benchmarks)."""
    import time
    cdef GameState* s = game_state_ptr(game)
    cdef Listing la
    cdef long i
    cdef int n = 0
    cdef long n_reps = check_count(reps, "reps", 1)
    t = time.perf_counter()
    with nogil:
        for i in range(n_reps):
            n += fill_legal_actions(s, la.scratch, la.ids, la.words, NULL)
    dt = time.perf_counter() - t
    global _sink
    _sink = n
    return dt / n_reps


def time_action_of_moves(words, level, reps):
    """Seconds per move of the compiled move -> id mapping over ``uint64[n, 2]`` words,
    ``reps`` passes from a C loop (benchmarks)."""
    import time
    from .cards import parse_level
    cdef int lv = parse_level(level)
    arr = check_words_array(words, nonempty=True)
    cdef long n_reps = check_count(reps, "reps", 1)
    cdef const u64[:, ::1] w = arr
    cdef Py_ssize_t i, r
    cdef long acc = 0
    t = time.perf_counter()
    with nogil:
        for r in range(n_reps):
            for i in range(w.shape[0]):
                acc += action_of_move(w[i, 0], w[i, 1], lv)
    dt = time.perf_counter() - t
    global _sink
    _sink = acc          # keeps the loop from being optimised away
    return dt / (n_reps * arr.shape[0])

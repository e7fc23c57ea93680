# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The exact endgame solver: double-dummy minimax of the current hand's outcome.

``solve(game, max_nodes)`` searches the rest of the current hand with every hand known (the
"double-dummy" game) and returns its exact minimax outcome: which team's seat finishes first
and where its partner finishes, hence the level change. Team 0 (seats 0, 2) maximises the
outcome code +3/+2/+1 (team 0 first, partner 2nd/3rd/4th), team 1 minimises it (-3/-2/-1).
It is an alpha-beta search over the complete legal move lists of the compiled generator, moves
applied by the compiled state machine (no second copy of the rules), with move ordering and a
transposition table keyed on the state (two independent 64-bit hashes of the hands, the trick
and the finishing order). ``minimax`` is the plain search with no pruning, for verification.

>>> g = random_endgame(seed=1, cards=2)
>>> s = solve(g)
>>> s.finished, s.value == minimax(g)[0], s.outcome in (-3, -2, -1, 1, 2, 3)
(True, True, True)
>>> g.play(s.best_move); solve(g).outcome == s.outcome       # the best move keeps the value
True
"""
from dataclasses import dataclass

from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy
from libc.stdint cimport int8_t, uint8_t
from libc.string cimport memset

from guandan_fast.types cimport u64, Cards, HI_CARD_MASK, T_PASS, kind_add, move_type, card_count
from guandan_fast.codec cimport move_of
from guandan_fast.game_core cimport (GameState, GameRulesC, game_legal, game_apply,
                                     STEP_CONTINUE, PH_PLAY)
from guandan_fast.rules_core cimport rules_to_c
from guandan_fast.game cimport game_state_ptr, game_with_state
from guandan_fast.rng cimport sm_below
from guandan_fast.interrupt cimport (Interrupt, interrupt_init, interrupted, in_main_thread,
                                     raise_pending)

from .rules import Rules
from . import validate as _validate


def _is_int(x) -> bool:
    """An int or a numpy integer (not a bool): what validate.as_int accepts."""
    return not isinstance(x, bool) and hasattr(type(x), "__index__")


def _node_budget(max_nodes) -> int:
    """``max_nodes`` checked (an int >= 1, numpy integers too), capped at 2**62."""
    return min(_validate.check_count(max_nodes, "max_nodes", 1, None), 1 << 62)

cdef enum:
    TT_EXACT = 1
    TT_LOWER = 2
    TT_UPPER = 3
    INF = 100


cdef inline u64 mix(u64 h, u64 x) noexcept nogil:
    h ^= x
    h = (h ^ (h >> 30)) * <u64>0xBF58476D1CE4E5B9ULL
    h = (h ^ (h >> 27)) * <u64>0x94D049BB133111EBULL
    return h ^ (h >> 31)


cdef inline u64 state_hash(const GameState* s, u64 h) noexcept nogil:
    """Everything the rest of the hand depends on: hands, trick, who acts, finishing order and
    the level (a search agent's table outlives a hand)."""
    cdef int q
    for q in range(4):
        h = mix(h, s.hand_lo[q])
        h = mix(h, s.hand_hi[q])
    h = mix(h, s.top_lo)
    h = mix(h, s.top_hi)
    h = mix(h, (<u64>(<uint8_t>s.top_seat)) | ((<u64>(<uint8_t>s.current)) << 8)
            | ((<u64>(<uint8_t>s.passes)) << 16) | ((<u64>(<uint8_t>s.n_finished)) << 24)
            | ((<u64>(<uint8_t>s.finish[0])) << 32) | ((<u64>(<uint8_t>s.finish[1])) << 40)
            | ((<u64>(<uint8_t>s.finish[2])) << 48) | ((<u64>(<uint8_t>s.level)) << 56))
    return h


cdef Solver* solver_new(int tt_bits, int arena_moves) noexcept nogil:
    cdef Solver* S = <Solver*>calloc(1, sizeof(Solver))
    if S == NULL:
        return NULL
    S.moves = <u64*>malloc(sizeof(u64) * 2 * arena_moves)
    S.order = <int*>malloc(sizeof(int) * arena_moves)
    S.tt = <TTEntry*>calloc((<size_t>1) << tt_bits, sizeof(TTEntry))
    if S.moves == NULL or S.order == NULL or S.tt == NULL:
        solver_free(S)
        return NULL
    S.cap = arena_moves
    S.tt_mask = ((<u64>1) << tt_bits) - 1
    S.gen = 1
    return S


cdef void solver_clear(Solver* S) noexcept nogil:
    S.gen += 1
    if S.gen == 0:              # wrapped: entries of an old generation 0..2**32 could match
        memset(S.tt, 0, sizeof(TTEntry) * (S.tt_mask + 1))
        S.gen = 1


# One solver per thread for the agents that have no context to hold one (the expert): a
# pthread key whose destructor frees it when the thread ends.
cdef extern from *:
    """
    #include <pthread.h>
    static pthread_key_t gf_solver_key;
    static pthread_once_t gf_solver_once = PTHREAD_ONCE_INIT;
    static void (*gf_solver_dtor)(void*) = 0;
    static void gf_solver_destroy(void* p) { if (p && gf_solver_dtor) gf_solver_dtor(p); }
    static void gf_solver_make_key(void) { pthread_key_create(&gf_solver_key, gf_solver_destroy); }
    static void* gf_solver_get(void) {
        pthread_once(&gf_solver_once, gf_solver_make_key);
        return pthread_getspecific(gf_solver_key);
    }
    static void gf_solver_set(void* p, void (*dtor)(void*)) {
        pthread_once(&gf_solver_once, gf_solver_make_key);
        gf_solver_dtor = dtor;
        pthread_setspecific(gf_solver_key, p);
    }
    """
    void* gf_solver_get() noexcept nogil
    void gf_solver_set(void* p, void (*dtor)(void*) noexcept nogil) noexcept nogil


cdef void free_thread_solver(void* p) noexcept nogil:
    solver_free(<Solver*>p)


cdef Solver* thread_solver_if_any() noexcept nogil:
    return <Solver*>gf_solver_get()


cdef Solver* thread_solver() noexcept nogil:
    cdef Solver* S = <Solver*>gf_solver_get()
    if S == NULL:
        S = solver_new(14, 1 << 15)
        if S != NULL:
            gf_solver_set(<void*>S, free_thread_solver)
    return S


cdef int child_value(Solver* S, const GameState* s, u64 lo, u64 hi, long long* left,
                     int* value) noexcept nogil:
    """Exact value of s after (lo, hi) within the budget left (debited): 1, or 0 when out."""
    cdef GameState child
    cdef u64 blo, bhi
    memcpy(&child, s, sizeof(GameState))
    if game_apply(&child, lo, hi) != STEP_CONTINUE:
        value[0] = outcome_of(&child)
        return 1
    if left[0] <= 0 or solver_run(S, &child, left[0], value, &blo, &bhi) != 1:
        return 0
    left[0] -= S.nodes
    return 1


cdef int solve_pick(Solver* S, const GameState* s, const u64* moves, int n, int prefer,
                    long long budget) noexcept nogil:
    cdef int v = 0, cv = 0, i, best = -1, best_v = 0
    cdef u64 blo = 0, bhi = 0
    cdef long long left = budget
    cdef bint maxi = (s.current & 1) == 0
    if n <= 0 or s.phase != PH_PLAY:
        return -1
    if solver_run(S, s, left, &v, &blo, &bhi) != 1:
        return -1
    left -= S.nodes
    # The preferred move when it keeps the value (its children are mostly in the table now).
    if 0 <= prefer < n:
        if not child_value(S, s, moves[2 * prefer], moves[2 * prefer + 1], &left, &cv):
            return -1
        if cv == v:
            return prefer
        best = prefer
        best_v = cv
    for i in range(n):
        if moves[2 * i] == blo and moves[2 * i + 1] == bhi:
            return i
    # The solver's best move is not in this (compact) list: the first listed move that keeps
    # the value, else the best listed one.
    for i in range(n):
        if i == prefer:
            continue
        if not child_value(S, s, moves[2 * i], moves[2 * i + 1], &left, &cv):
            return -1
        if cv == v:
            return i
        if best < 0 or (maxi and cv > best_v) or (not maxi and cv < best_v):
            best = i
            best_v = cv
    return best


cdef void solver_free(Solver* S) noexcept nogil:
    if S != NULL:
        free(S.moves)
        free(S.order)
        free(S.tt)
        free(S)


cdef inline int order_score(const GameState* s, u64 lo, u64 hi, u64 hint_lo, u64 hint_hi,
                            bint hinted) noexcept nogil:
    """Higher first: the table's best move, then going out, then bigger plays; PASS last."""
    cdef int p = s.current
    if hinted and lo == hint_lo and hi == hint_hi:
        return 1000
    if move_type(hi) == T_PASS:
        return 0
    if lo == s.hand_lo[p] and (hi & HI_CARD_MASK) == (s.hand_hi[p] & HI_CARD_MASK):
        return 500
    return 10 + card_count(lo, hi)


cdef int alphabeta(Solver* S, const GameState* s, int alpha, int beta, int base,
                   u64* best_lo, u64* best_hi) noexcept nogil:
    """Minimax value of s in the window (alpha, beta) (fail-hard); moves at arena[base:]."""
    cdef GameState child
    cdef TTEntry* e
    cdef u64 key, check, hint_lo = 0, hint_hi = 0, lo, hi, blo = 0, bhi = 0
    cdef int n, i, j, k, v, r, best, a0 = alpha, b0 = beta, tmp
    cdef bint hinted = False, maxi
    cdef u64* mv
    cdef int* order
    cdef int* score
    S.nodes += 1
    if S.nodes > S.max_nodes or (S.it != NULL and interrupted(S.it)):
        S.aborted = True
        return 0
    key = state_hash(s, <u64>0x243F6A8885A308D3ULL)
    check = state_hash(s, <u64>0x13198A2E03707344ULL)
    e = &S.tt[key & S.tt_mask]
    if e.flag and e.gen == S.gen and e.key == key and e.check == check:
        hinted = True
        hint_lo = e.best_lo
        hint_hi = e.best_hi
        v = e.value
        if e.flag == TT_EXACT:
            best_lo[0] = hint_lo
            best_hi[0] = hint_hi
            return v
        if e.flag == TT_LOWER and v > alpha:
            alpha = v
        elif e.flag == TT_UPPER and v < beta:
            beta = v
        if alpha >= beta:
            best_lo[0] = hint_lo
            best_hi[0] = hint_hi
            return v
    mv = S.moves + 2 * base
    n = game_legal(s, False, mv, S.cap - base)
    if n <= 0:
        S.aborted = True          # arena too small (or no move: cannot happen in play)
        return 0
    # Order the moves: scores in order[n .. 2n), indices in order[0 .. n), insertion sort.
    order = S.order + base
    if base + 2 * n > S.cap:
        S.aborted = True
        return 0
    score = order + n
    for i in range(n):
        score[i] = order_score(s, mv[2 * i], mv[2 * i + 1], hint_lo, hint_hi, hinted)
        order[i] = i
    for i in range(1, n):
        j = i
        tmp = order[i]
        while j > 0 and score[order[j - 1]] < score[tmp]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = tmp
    maxi = (s.current & 1) == 0
    best = -INF if maxi else INF
    for k in range(n):
        i = order[k]
        lo = mv[2 * i]
        hi = mv[2 * i + 1]
        memcpy(&child, s, sizeof(GameState))
        r = game_apply(&child, lo, hi)
        if r != STEP_CONTINUE:
            v = outcome_of(&child)
        else:
            v = alphabeta(S, &child, alpha, beta, base + 2 * n, &lo, &hi)
            lo = mv[2 * i]
            hi = mv[2 * i + 1]
            if S.aborted:
                return 0
        if (maxi and v > best) or (not maxi and v < best):
            best = v
            blo = lo
            bhi = hi
        if maxi:
            if v > alpha:
                alpha = v
        elif v < beta:
            beta = v
        if alpha >= beta:
            break
    e.key = key
    e.check = check
    e.gen = S.gen
    e.value = <int8_t>best
    e.best_lo = blo
    e.best_hi = bhi
    if best <= a0:
        e.flag = TT_UPPER
    elif best >= b0:
        e.flag = TT_LOWER
    else:
        e.flag = TT_EXACT
    best_lo[0] = blo
    best_hi[0] = bhi
    return best


cdef int solver_run(Solver* S, const GameState* s, long long max_nodes, int* value,
                    u64* best_lo, u64* best_hi) noexcept nogil:
    cdef int v
    S.nodes = 0
    S.max_nodes = max_nodes
    S.aborted = False
    if s.phase != PH_PLAY:
        return -1
    v = alphabeta(S, s, -INF, INF, 0, best_lo, best_hi)
    if S.aborted:
        return 0 if S.nodes > S.max_nodes else -1
    value[0] = v
    return 1


cdef int plain_minimax(const GameState* s, u64* arena, int base, int cap,
                       long long* nodes, long long max_nodes, Interrupt* it) noexcept nogil:
    """The same game value by exhaustive minimax: no pruning, no table, no ordering.
    -INF when the arena is too small, INF past max_nodes or on Ctrl-C (it.stopped)."""
    cdef GameState child
    cdef int n, i, v, r, best
    cdef bint maxi = (s.current & 1) == 0
    nodes[0] += 1
    if nodes[0] > max_nodes or interrupted(it):
        return INF
    n = game_legal(s, False, arena + 2 * base, cap - base)
    if n <= 0:
        return -INF
    best = -INF if maxi else INF
    for i in range(n):
        memcpy(&child, s, sizeof(GameState))
        r = game_apply(&child, arena[2 * (base + i)], arena[2 * (base + i) + 1])
        if r != STEP_CONTINUE:
            v = outcome_of(&child)
        else:
            v = plain_minimax(&child, arena, base + n, cap, nodes, max_nodes, it)
            if v == -INF or v == INF:
                return v
        if (maxi and v > best) or (not maxi and v < best):
            best = v
    return best


# ---------------------------------------------------------------------------------------------
# Python side

@dataclass(frozen=True)
class Solution:
    """What ``solve`` found. ``outcome``: the hand's result for team 0 (+3/+2/+1: team 0's seat
    finishes first and its partner 2nd/3rd/4th; -3/-2/-1 the same for team 1), None when the
    node budget ran out; ``value``: the same from the side to move's team (positive: it wins);
    ``winner``: the winning team; ``partner_place``: 2, 3 or 4; ``level_gain``: levels the
    winners go up (``Rules.upgrade_steps``; the A rule's match end aside); ``best_move``: a
    move achieving the value (when not finished: the best one found so far, or None);
    ``nodes``: positions searched; ``finished``: whether the search completed."""
    outcome: object
    value: object
    winner: object
    partner_place: object
    level_gain: object
    best_move: object
    nodes: int
    finished: bool


cdef int load_state(game, GameState* st) except -1:
    memcpy(st, game_state_ptr(game), sizeof(GameState))
    if st.phase != PH_PLAY:
        raise ValueError(f"solve needs a game in its play phase, not "
                         f"{('tribute', 'back', 'play', 'over')[st.phase]!r}")
    return 0


def solve(game, max_nodes=10_000_000, tt_bits=20):
    """Solve the rest of the current hand exactly (module docstring); ``max_nodes`` bounds the
    positions searched, ``tt_bits`` the table (2**tt_bits entries of 40 bytes).

    >>> solve(random_endgame(seed=3, cards=3), max_nodes=1).finished
    False
    """
    cdef GameState st
    cdef Solver* S
    cdef int value = 0, r
    cdef u64 blo = 0, bhi = 0
    cdef long long budget
    cdef Interrupt it
    budget = _node_budget(max_nodes)
    tt_bits = _validate.check_count(tt_bits, "tt_bits", 10, 28)
    load_state(game, &st)
    S = solver_new(tt_bits, 1 << 20)
    if S == NULL:
        raise MemoryError()
    interrupt_init(&it, 4096, in_main_thread(), NULL)    # ~1 ms of positions between checks
    S.it = &it
    try:
        with nogil:
            r = solver_run(S, &st, budget, &value, &blo, &bhi)
        nodes = S.nodes
    finally:
        solver_free(S)
    if it.stopped:
        raise_pending(&it)
    if r < 0:
        raise RuntimeError("solve: move arena too small for this position")
    team = st.current & 1
    if r == 0:
        return Solution(None, None, None, None, None,
                        move_of(blo, bhi) if (blo or bhi) else None, min(nodes, budget), False)
    winner = 0 if value > 0 else 1
    place = 5 - abs(value)
    gain = game.rules.upgrade_steps[place - 2]
    return Solution(value, value if team == 0 else -value, winner, place, gain,
                    move_of(blo, bhi), nodes, True)


def minimax(game, max_nodes=10_000_000):
    """``(outcome, nodes)`` by plain minimax (no pruning, no table): the solver's oracle.
    ``ValueError`` (after ``max_nodes`` positions) when the tree is larger."""
    cdef GameState st
    cdef long long nodes = 0
    cdef int v
    cdef u64* arena
    cdef int cap = 1 << 20
    cdef long long budget
    cdef Interrupt it
    budget = _node_budget(max_nodes)
    load_state(game, &st)
    arena = <u64*>malloc(sizeof(u64) * 2 * cap)
    if arena == NULL:
        raise MemoryError()
    interrupt_init(&it, 4096, in_main_thread(), NULL)
    try:
        with nogil:
            v = plain_minimax(&st, arena, 0, cap, &nodes, budget, &it)
    finally:
        free(arena)
    if it.stopped:
        raise_pending(&it)
    if v == -INF:
        raise RuntimeError("minimax: move arena too small")
    if v == INF:
        raise ValueError(f"the tree has more than max_nodes={max_nodes} positions")
    return v, nodes


def random_endgame(seed, cards, rules=Rules(), level=None, out=0):
    """A random play-phase position late in a hand, as a ``Game``: ``cards`` random cards per
    seat (an int, or four ints), a random level (or ``level``), a random seat to lead; with
    ``out`` > 0 that many seats (of different teams) have already gone out.

    >>> g = random_endgame(seed=0, cards=(1, 2, 3, 4), level=5)
    >>> [len(g.hand(q)) for q in range(4)], g.level, g.phase
    ([1, 2, 3, 4], 5, 'play')
    """
    from .game import Game
    from .cards import parse_level
    cdef GameState st
    cdef GameRulesC rc = rules_to_c(rules)
    cdef u64 rng
    cdef uint8_t deck[108]
    cdef int i, j, q, m
    cdef uint8_t tmp
    cdef Cards h
    seed = _validate.check_seed(seed)
    if _is_int(cards):
        counts = [cards.__index__()] * 4
    elif isinstance(cards, (list, tuple)):
        counts = list(cards)
    else:
        counts = None
    if (counts is None or len(counts) != 4
            or not all(_is_int(c) and 1 <= c <= 27 for c in counts)):
        raise ValueError(f"cards must be an int 1..27 or four of them, got {cards!r}")
    if out not in (0, 1, 2):
        raise ValueError(f"out must be 0, 1 or 2, got {out!r}")
    rng = <u64>(seed & 0xFFFFFFFFFFFFFFFF)
    game = Game(seed=seed, rules=rules)
    memcpy(&st, game_state_ptr(game), sizeof(GameState))
    lv = parse_level(level) if level is not None else 2 + <int>sm_below(&rng, 13)
    st.level = lv
    st.levels[0] = lv
    st.levels[1] = lv
    st.declarer = 0
    for i in range(108):
        deck[i] = <uint8_t>(i >> 1)
    for i in range(107, 0, -1):
        j = <int>sm_below(&rng, <u64>(i + 1))
        tmp = deck[i]
        deck[i] = deck[j]
        deck[j] = tmp
    # Seats that went out first: 0 (out=1), or 0 then 1 (out=2, different teams).
    m = 0
    for q in range(4):
        h.lo = 0
        h.hi = 0
        if q >= out:
            for i in range(counts[q]):
                kind_add(&h, deck[m], 1)
                m += 1
        st.hand_lo[q] = h.lo
        st.hand_hi[q] = h.hi
    st.n_finished = out
    for i in range(4):
        st.finish[i] = -1
    for i in range(out):
        st.finish[i] = i
    st.top_lo = 0
    st.top_hi = 0
    st.top_seat = -1
    st.passes = 0
    st.current = out + <int>sm_below(&rng, <u64>(4 - out))
    st.leader = st.current
    return game_with_state(game, &st)

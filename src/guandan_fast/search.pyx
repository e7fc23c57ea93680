# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled search agents: PIMC and single-observer information-set MCTS (docs/search.md).

Both decide for the seat to move from what that seat knows: every sampled world comes from
``sample_deal`` (sample.pyx), never from the real hidden cards. Before a seat holds
``search_at`` cards or fewer, and in the exchange phases, they play the greedy bot's move.

* ``pimc``: ``samples`` worlds per decision; in each, every candidate move (the compact legal
  list) is followed by ``rollouts`` greedy rollouts to the end of the hand (the 2nd and later
  ones with 10% random moves), or, when all hands together hold at most ``solve_at`` cards, by
  the exact solver (solve.pyx). The move with the best summed outcome is played (ties: the
  greedy move).
* ``ismcts``: ``iterations`` iterations of single-observer IS-MCTS: one sampled world per
  iteration, a tree over action sequences whose children are the moves legal in that world,
  UCB with availability counts, a greedy rollout (or the exact solver in small worlds) at the
  leaf; the most visited root move is played.

Outcomes are the hand's result (solve.pyx: +-3, +-2, +-1 for the winning team by the
partner's place). From Python, ``choose`` makes one decision in a ``Game``:

>>> from guandan_fast.game import Game
>>> from guandan_fast.solve import random_endgame
>>> g = random_endgame(seed=4, cards=3)
>>> m = choose(g, "pimc:samples=4")
>>> m in g.legal_moves(compact=True), m == choose(g, "pimc:samples=4")
(True, True)
>>> parse_agent("ismcts:iterations=50")[1]["iterations"]
50
"""
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy, memset
from libc.math cimport sqrt, log, exp

from guandan_fast.types cimport (u64, Cards, move_type, card_count, play_key, wild_kind,
                                 kind_words, T_STRAIGHT_FLUSH, LO_CARD_MASK, HI_CARD_MASK,
                                 ODD_BITS)
from guandan_fast.codec cimport move_of
from guandan_fast.game_core cimport (GameState, game_legal, game_apply, STEP_CONTINUE, PH_PLAY)
from guandan_fast.game cimport game_state_ptr
from guandan_fast.movegen_core cimport MAX_MOVES
from guandan_fast.rng cimport sm_next
from guandan_fast.bots cimport (greedy_choose, AGENT_PIMC, AGENT_ISMCTS, AGENT_GREEDY,
                                AGENT_EXPERT, AGENT_RANDOM_COMPACT, is_expert_kind)
from guandan_fast.expert cimport (expert_choose, expert_rules_choose, expert_reset,
                                  style_knobs, N_STYLES)
from guandan_fast.expert import STYLE_NAMES
from guandan_fast.sample cimport Played, played_track, known_pins, sample_deal
from guandan_fast.solve cimport (solver_new, solver_free, solver_run, solver_clear, solve_pick,
                                 hands_known, outcome_of)

from guandan_fast import validate as _validate

cdef u64 SEARCH_SALT = 0x5EA4C4A6E1715EEDULL
cdef int PATH_CAP = 4096

cdef extern from "<time.h>" nogil:
    ctypedef long time_t
    cdef struct timespec:
        time_t tv_sec
        long tv_nsec
    int clock_gettime(int clk, timespec* ts)
    int CLOCK_MONOTONIC


cdef inline double now_ms() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec * 1000.0 + ts.tv_nsec * 1e-6


cdef inline bint out_of_time(const SearchCtx* c, double t0) noexcept nogil:
    """Has the decision used its time budget (never when there is none)?"""
    return c.prm.ms > 0.0 and now_ms() - t0 >= c.prm.ms


cdef inline int fast_below(u64* rng, u64 n) noexcept nogil:
    return <int>(((sm_next(rng) >> 32) * n) >> 32)


cdef inline double uniform01(u64* rng) noexcept nogil:
    return <double>(sm_next(rng) >> 11) * (1.0 / 9007199254740992.0)


cdef SearchCtx* search_new(const SearchParams* prm) noexcept nogil:
    cdef SearchCtx* c = <SearchCtx*>calloc(1, sizeof(SearchCtx))
    if c == NULL:
        return NULL
    c.prm = prm[0]
    c.buf = <u64*>malloc(sizeof(u64) * 2 * MAX_MOVES)
    c.sums = <double*>malloc(sizeof(double) * MAX_MOVES)
    if prm.solve_at > 0:
        c.solver = solver_new(16, 1 << 18)
    if prm.kind == AGENT_ISMCTS:
        c.nodes = <TreeNode*>malloc(sizeof(TreeNode) * (prm.iterations + 2))
        c.path = <int*>malloc(sizeof(int) * PATH_CAP)
    if prm.worlds == WORLDS_STYLES:
        c.hist = <HistEntry*>malloc(sizeof(HistEntry) * HIST_CAP)
        c.memo = <ExpertMemo*>malloc(sizeof(ExpertMemo) * 4)
    if (c.buf == NULL or c.sums == NULL or (prm.solve_at > 0 and c.solver == NULL)
            or (prm.kind == AGENT_ISMCTS and (c.nodes == NULL or c.path == NULL))
            or (prm.worlds == WORLDS_STYLES and (c.hist == NULL or c.memo == NULL))):
        search_free(c)
        return NULL
    c.played.hand = -1
    c.hist_hand = -1
    return c


cdef void search_free(SearchCtx* c) noexcept nogil:
    if c != NULL:
        free(c.buf)
        free(c.sums)
        solver_free(c.solver)
        free(c.nodes)
        free(c.path)
        free(c.hist)
        free(c.memo)
        free(c)


cdef void search_reset(SearchCtx* c, u64 match_seed, int seat) noexcept nogil:
    cdef u64 st = match_seed ^ SEARCH_SALT
    cdef int i
    c.rng = 0
    for i in range(seat + 1):
        c.rng = sm_next(&st)
    c.seat = seat
    if c.solver != NULL:
        solver_clear(c.solver)      # the table holds this match's solves only
    memset(&c.played, 0, sizeof(Played))
    c.played.hand = -1
    c.n_hist = 0
    c.hist_hand = -1
    if c.memo != NULL:
        for i in range(4):
            expert_reset(&c.memo[i])


cdef void search_observe(SearchCtx* c, const GameState* s, u64 lo, u64 hi) noexcept nogil:
    if c.hist != NULL:
        hist_track(c, s, lo, hi)
    played_track(&c.played, s, lo, hi)


cdef void hist_track(SearchCtx* c, const GameState* s, u64 lo, u64 hi) noexcept nogil:
    """WORLDS_STYLES: remember an opponent's play-phase decision of this hand, with only what
    is public in its state (the hands and the future deals are zeroed: a world puts its own
    hands back, so nothing hidden is ever read)."""
    cdef HistEntry* e
    cdef int q
    if c.hist_hand != s.hand_number:
        c.n_hist = 0
        c.hist_hand = s.hand_number
    if s.phase != PH_PLAY or s.current < 0 or ((s.current - c.seat) & 1) == 0:
        return
    if c.n_hist >= HIST_CAP:
        return
    e = &c.hist[c.n_hist]
    c.n_hist += 1
    memcpy(&e.s, s, sizeof(GameState))
    for q in range(4):
        e.s.hand_lo[q] = 0
        e.s.hand_hi[q] = 0
        # played_track has not yet seen a move of a new hand when its first move is a play
        if c.played.hand == s.hand_number:
            e.before[q] = c.played.cards[q]
        else:
            e.before[q].lo = 0
            e.before[q].hi = 0
    e.s.rng = 0
    e.lo = lo
    e.hi = hi


cdef inline int policy_choose(SearchCtx* c, const GameState* w, const u64* moves,
                              int n) noexcept nogil:
    """The rollout policy's move (also the default move of a decision)."""
    if n <= 1:
        return 0
    if is_expert_kind(c.prm.rollout):
        return expert_choose(w, moves, n, NULL, style_knobs(c.prm.rollout - AGENT_EXPERT))
    if c.prm.rollout == ROLLOUT_MIX:
        if c.world_style[w.current] < 0:
            return greedy_choose(w, moves, n)
        return expert_choose(w, moves, n, NULL, style_knobs(c.world_style[w.current]))
    if c.prm.rollout == AGENT_RANDOM_COMPACT:
        return fast_below(&c.rng, <u64>n)
    return greedy_choose(w, moves, n)


cdef int rollout(SearchCtx* c, GameState* w, double eps) noexcept nogil:
    """The rollout policy's play (a random move with probability eps) to the end of the hand;
    the outcome."""
    cdef int n, i, r
    while True:
        n = game_legal(w, True, c.buf, MAX_MOVES)
        if n <= 0:
            return 0
        if eps > 0.0 and uniform01(&c.rng) < eps:
            i = fast_below(&c.rng, <u64>n)
        else:
            i = policy_choose(c, w, c.buf, n)
        r = game_apply(w, c.buf[2 * i], c.buf[2 * i + 1])
        if r != STEP_CONTINUE:
            return outcome_of(w)


cdef inline int total_cards(const GameState* w) noexcept nogil:
    return (card_count(w.hand_lo[0], w.hand_hi[0]) + card_count(w.hand_lo[1], w.hand_hi[1])
            + card_count(w.hand_lo[2], w.hand_hi[2]) + card_count(w.hand_lo[3], w.hand_hi[3]))


cdef inline void draw_styles(SearchCtx* c, int p) noexcept nogil:
    """ROLLOUT_MIX: the styles of a new world's rollouts: the expert for seat p's team, a
    style drawn uniformly for each opponent (the model of opponents of unknown style); with
    WORLDS_STYLES, a model drawn from its posterior in this world (world_loglik's c.ll)."""
    cdef int q, m
    cdef double top, total, u
    if c.prm.rollout != ROLLOUT_MIX:
        return
    for q in range(4):
        if ((q - p) & 1) == 0:
            c.world_style[q] = 0
        elif c.prm.worlds != WORLDS_STYLES:
            c.world_style[q] = fast_below(&c.rng, <u64>N_STYLES)
        else:
            top = c.ll[q * N_MODELS]
            for m in range(1, N_MODELS):
                if c.ll[q * N_MODELS + m] > top:
                    top = c.ll[q * N_MODELS + m]
            total = 0.0
            for m in range(N_MODELS):
                total += exp(c.prm.temper * (c.ll[q * N_MODELS + m] - top))
            u = uniform01(&c.rng) * total
            m = 0
            while m < N_MODELS - 1:
                u -= exp(c.prm.temper * (c.ll[q * N_MODELS + m] - top))
                if u < 0.0:
                    break
                m += 1
            c.world_style[q] = m - 1        # model 0 is greedy (-1), model m the style m - 1


cdef inline bint same_group(u64 alo, u64 ahi, u64 blo, u64 bhi, int level) noexcept nogil:
    """Are two moves of one group of the compact list (docs/design.md "Compact mode": type,
    key and size; and suit for straight flushes)? Two straight flushes of one key and size
    share a natural card exactly when they are of one suit (each holds 3 or more of the 5
    positions' natural cards, wilds aside)."""
    cdef u64 wlo, whi
    if move_type(ahi) != move_type(bhi):
        return False
    if move_type(ahi) == 0:
        return True                 # PASS
    if (play_key(alo, ahi, level) != play_key(blo, bhi, level)
            or card_count(alo & LO_CARD_MASK, ahi & HI_CARD_MASK)
            != card_count(blo & LO_CARD_MASK, bhi & HI_CARD_MASK)):
        return False
    if move_type(ahi) != T_STRAIGHT_FLUSH:
        return True
    kind_words(wild_kind(level), &wlo, &whi)     # the low bit of the wild's 2-bit count
    # Presence (the low bit of each kind's count set when it holds one copy or two), wilds aside.
    return ((((alo | (alo >> 1)) & (blo | (blo >> 1)) & LO_CARD_MASK & ODD_BITS & ~wlo)
             | ((ahi | (ahi >> 1)) & (bhi | (bhi >> 1)) & HI_CARD_MASK & ODD_BITS & ~whi))
            != 0)


cdef double world_loglik(SearchCtx* c, const GameState* w, int p) noexcept nogil:
    """WORLDS_STYLES: the log-likelihood of world w, the log of the product over p's opponents
    of the mixture (equal weights) over the style models of the probability of the seat's
    decisions this hand; c.ll gets each seat's log-likelihood under each model. Each past
    decision is replayed in the world: its public state with every seat's hand then (the
    world's hand plus what the seat gave away since), the compact list there, and each model's
    move softened (1 - soft for its own move, soft / (moves - 1) for each other)."""
    cdef GameState st
    cdef HistEntry* e
    cdef int t, q, r, n, a, m, pick
    cdef double lhit, lmiss, top, total, out = 0.0
    for m in range(4 * N_MODELS):
        c.ll[m] = 0.0
    if c.hist_hand != w.hand_number or c.played.hand != w.hand_number:
        return 0.0
    lhit = log(1.0 - c.prm.soft)
    for t in range(c.n_hist):
        e = &c.hist[t]
        memcpy(&st, &e.s, sizeof(GameState))
        for r in range(4):
            # Counts are at most 2 per kind and what was given away before is inside what has
            # been given away by now: the words subtract and add field by field.
            st.hand_lo[r] = w.hand_lo[r] + (c.played.cards[r].lo - e.before[r].lo)
            st.hand_hi[r] = w.hand_hi[r] + (c.played.cards[r].hi - e.before[r].hi)
        n = game_legal(&st, True, c.buf, MAX_MOVES)
        if n <= 1:
            continue
        a = -1
        for r in range(n):
            if same_group(c.buf[2 * r], c.buf[2 * r + 1], e.lo, e.hi, st.level):
                a = r
                break
        if a < 0:
            continue                # not a legal play in this world's hand (never, in fact)
        q = st.current
        lmiss = log(c.prm.soft / (n - 1))
        pick = greedy_choose(&st, c.buf, n)
        c.ll[q * N_MODELS] += lhit if pick == a else lmiss
        for m in range(N_STYLES):
            pick = expert_rules_choose(&st, c.buf, n, &c.memo[q], style_knobs(m))
            c.ll[q * N_MODELS + 1 + m] += lhit if pick == a else lmiss
    for q in range(4):
        if ((q - p) & 1) == 0:
            continue
        top = c.ll[q * N_MODELS]
        for m in range(1, N_MODELS):
            if c.ll[q * N_MODELS + m] > top:
                top = c.ll[q * N_MODELS + m]
        total = 0.0
        for m in range(N_MODELS):
            total += exp(c.ll[q * N_MODELS + m] - top)
        out += top + log(total / N_MODELS)
    # Tempered: with every decision counted at full strength the weights of a few hundred
    # worlds sit on a handful of them (docs/search.md); a power below 1 spreads them.
    return c.prm.temper * out


cdef int evaluate(SearchCtx* c, GameState* w) noexcept nogil:
    """Outcome of a world mid-hand: exact when small enough and within the node budget, else a
    greedy rollout (which consumes w)."""
    cdef int v = 0
    cdef u64 blo, bhi
    if c.solver != NULL and total_cards(w) <= c.prm.solve_at:
        if solver_run(c.solver, w, c.prm.nodes, &v, &blo, &bhi) == 1:
            return v
    return rollout(c, w, 0.0)


cdef int pimc_choose(SearchCtx* c, const GameState* s, const u64* moves, int n,
                     const Cards* pins, int g) noexcept nogil:
    cdef GameState world, child
    cdef int p = s.current
    cdef int sign = 1 if (p & 1) == 0 else -1
    cdef int i, j, r, v, best
    cdef bint exact
    cdef double bestv
    cdef double t0 = now_ms() if c.prm.ms > 0.0 else 0.0
    cdef int done = 0
    cdef bint styles = c.prm.worlds == WORLDS_STYLES
    cdef double lw, wt = 1.0, wsum = 0.0, top = 0.0
    for i in range(n):
        c.sums[i] = 0.0
    for j in range(c.prm.samples):
        if j > 0 and out_of_time(c, t0):
            break
        done += 1
        if sample_deal(s, p, pins, &c.rng, &world) != 0:
            return g
        if styles:
            # Self-normalised importance weights: a world counts by its likelihood relative
            # to the most likely world so far (earlier sums rescaled when a likelier one comes).
            lw = world_loglik(c, &world, p)
            if j == 0 or lw > top:
                if j > 0:
                    wt = exp(top - lw)
                    for i in range(n):
                        c.sums[i] *= wt
                    wsum *= wt
                top = lw
            wt = exp(lw - top)
            wsum += wt
        draw_styles(c, p)
        exact = c.solver != NULL and total_cards(&world) <= c.prm.solve_at
        for i in range(n):
            for r in range(1 if exact else c.prm.rollouts):
                memcpy(&child, &world, sizeof(GameState))
                if game_apply(&child, moves[2 * i], moves[2 * i + 1]) != STEP_CONTINUE:
                    v = outcome_of(&child)
                elif exact:
                    v = evaluate(c, &child)
                else:
                    v = rollout(c, &child, 0.1 if r > 0 else 0.0)
                if styles:
                    c.sums[i] += wt * sign * v * (c.prm.rollouts if exact else 1)
                else:
                    c.sums[i] += sign * v * (c.prm.rollouts if exact else 1)
    # Sums are per world and rollout: the default move gets the margin on each (on each unit
    # of weight with WORLDS_STYLES: the margin is on the weighted mean).
    best = g
    if styles:
        bestv = c.sums[g] + c.prm.margin * wsum * c.prm.rollouts
    else:
        bestv = c.sums[g] + c.prm.margin * done * c.prm.rollouts
    for i in range(n):
        if i != g and c.sums[i] > bestv + 1e-9:
            bestv = c.sums[i]
            best = i
    return best


cdef int find_child(const TreeNode* nodes, int parent, u64 lo, u64 hi) noexcept nogil:
    cdef int ch = nodes[parent].first_child
    while ch >= 0:
        if nodes[ch].lo == lo and nodes[ch].hi == hi:
            return ch
        ch = nodes[ch].next_sibling
    return -1


cdef int ismcts_choose(SearchCtx* c, const GameState* s, const u64* moves, int n,
                       const Cards* pins, int g) noexcept nogil:
    cdef GameState st
    cdef TreeNode* T = c.nodes
    cdef int p = s.current
    cdef int cap = c.prm.iterations + 2
    cdef int nn = 1, it, node, depth, m, i, ch, pick, untried, best_ch, r, v, k, best, most, gi
    cdef double ucb, best_ucb, val
    cdef bint done
    cdef double t0 = now_ms() if c.prm.ms > 0.0 else 0.0
    T[0].first_child = -1
    T[0].next_sibling = -1
    T[0].visits = 0
    T[0].avail = 0
    T[0].total = 0.0
    T[0].mover = -1
    for it in range(c.prm.iterations):
        if it > 0 and out_of_time(c, t0):
            break
        if sample_deal(s, p, pins, &c.rng, &st) != 0:
            break
        draw_styles(c, p)
        node = 0
        depth = 0
        c.path[0] = 0
        done = False
        v = 0
        while depth < PATH_CAP - 2:
            m = game_legal(&st, True, c.buf, MAX_MOVES)
            if m <= 0:
                break
            untried = 0
            pick = -1
            best_ch = -1
            best_ucb = -1e300
            # The greedy move is expanded first, the others in random order: with a small
            # budget a node's first visits then follow the rollout policy, not random moves.
            gi = policy_choose(c, &st, c.buf, m)
            for i in range(m):
                ch = find_child(T, node, c.buf[2 * i], c.buf[2 * i + 1])
                if ch < 0:
                    untried += 1
                    if pick != gi and (i == gi or fast_below(&c.rng, <u64>untried) == 0):
                        pick = i
                else:
                    T[ch].avail += 1
                    ucb = (T[ch].total / (3.0 * T[ch].visits)
                           + c.prm.explore * sqrt(log(<double>T[ch].avail) / T[ch].visits))
                    if ucb > best_ucb:
                        best_ucb = ucb
                        best_ch = ch
            # Progressive widening below the root: a node gets a k-th child only after
            # (k-1)^2 visits, so replies are mostly the greedy one until a node is well visited.
            if (untried > 0 and nn < cap
                    and (node == 0 or (m - untried) * (m - untried) <= T[node].visits)):
                ch = nn
                nn += 1
                T[ch].lo = c.buf[2 * pick]
                T[ch].hi = c.buf[2 * pick + 1]
                T[ch].first_child = -1
                T[ch].next_sibling = T[node].first_child
                T[node].first_child = ch
                T[ch].visits = 0
                T[ch].avail = 1
                T[ch].total = 0.0
                T[ch].mover = st.current
                depth += 1
                c.path[depth] = ch
                r = game_apply(&st, T[ch].lo, T[ch].hi)
                if r != STEP_CONTINUE:
                    v = outcome_of(&st)
                    done = True
                break
            if best_ch < 0:
                break
            node = best_ch
            depth += 1
            c.path[depth] = node
            r = game_apply(&st, T[node].lo, T[node].hi)
            if r != STEP_CONTINUE:
                v = outcome_of(&st)
                done = True
                break
        if not done:
            v = evaluate(c, &st)
        T[0].visits += 1
        for k in range(1, depth + 1):
            ch = c.path[k]
            T[ch].visits += 1
            T[ch].total += v if (T[ch].mover & 1) == 0 else -v
    best = g
    most = -1
    for i in range(n):
        ch = find_child(T, 0, moves[2 * i], moves[2 * i + 1])
        k = T[ch].visits if ch >= 0 else 0
        if k > most or (k == most and i == g):
            most = k
            best = i
    return best


cdef int search_choose(SearchCtx* c, const GameState* s, const u64* moves, int n) noexcept nogil:
    cdef Cards pins[4]
    cdef int g, i, p = s.current
    if n <= 1:
        return 0
    # The default move (exchanges, large hands, ties): the rollout style's with expert (or style) rollouts,
    # greedy's otherwise (a random rollout policy is no default).
    if is_expert_kind(c.prm.rollout):
        g = expert_choose(s, moves, n, NULL, style_knobs(c.prm.rollout - AGENT_EXPERT))
    elif c.prm.rollout == ROLLOUT_MIX:
        g = expert_choose(s, moves, n, NULL, style_knobs(0))
    else:
        g = greedy_choose(s, moves, n)
    if s.phase != PH_PLAY:
        return g
    # Every hand known (one other seat left with cards): no world to sample, solve the real
    # position (bounded; the search below when the budget runs out).
    if c.solver != NULL and hands_known(s) and total_cards(s) <= 2 * c.prm.solve_at:
        i = solve_pick(c.solver, s, moves, n, g, c.prm.nodes)
        if i >= 0:
            return i
    if card_count(s.hand_lo[p], s.hand_hi[p]) > c.prm.search_at:
        return g
    known_pins(s, p, &c.played, pins)
    if c.prm.kind == AGENT_ISMCTS:
        return ismcts_choose(c, s, moves, n, pins, g)
    return pimc_choose(c, s, moves, n, pins, g)


# ---------------------------------------------------------------------------------------------
# Python side: names, parameters, one decision

#: Default parameters of each search agent (docs/search.md).
DEFAULTS = {
    "pimc": {"samples": 8, "rollouts": 1, "search_at": 12, "solve_at": 10, "nodes": 20000,
             "rollout": "greedy", "margin": 0.0, "ms": 0, "worlds": "uniform", "soft": 0.2,
             "temper": 1.0},
    "ismcts": {"iterations": 200, "explore": 0.15, "search_at": 12, "solve_at": 10,
               "nodes": 20000, "rollout": "greedy", "ms": 0},
}
#: The rollout (and default-move) policies a search agent takes.
ROLLOUTS = {"greedy": AGENT_GREEDY, "random": AGENT_RANDOM_COMPACT}
ROLLOUTS.update({name: AGENT_EXPERT + i for i, name in enumerate(STYLE_NAMES)})  # the styles
ROLLOUTS["mix"] = ROLLOUT_MIX       # opponents of styles drawn per world
_KINDS = {"pimc": AGENT_PIMC, "ismcts": AGENT_ISMCTS}
#: How PIMC's worlds count (docs/search.md "Worlds weighted by the opponents' styles").
WORLDS = {"uniform": WORLDS_UNIFORM, "styles": WORLDS_STYLES}
#: PIMC's worlds per decision when a time budget is given without ``samples``: the time
#: decides, this only bounds it (a million worlds take minutes even in small end games).
SAMPLES_CAP = 1000000
_FLOATS = ("explore", "ms", "margin", "soft", "temper")
_LIMITS = {"samples": (1, SAMPLES_CAP), "rollouts": (1, 100000), "iterations": (1, 10000000),
           "search_at": (0, 27), "solve_at": (0, 108), "nodes": (1, 1 << 40)}


def parse_agent(name):
    """``(base name, parameters)`` of a search agent name ``NAME[:KEY=VALUE...]``; the
    parameters are the defaults updated by the name's. ``ValueError`` names a bad part.

    >>> parse_agent("pimc:samples=3:rollout=expert")    # doctest: +NORMALIZE_WHITESPACE
    ('pimc', {'samples': 3, 'rollouts': 1, 'search_at': 12, 'solve_at': 10, 'nodes': 20000,
              'rollout': 'expert', 'margin': 0.0, 'ms': 0, 'worlds': 'uniform', 'soft': 0.2,
              'temper': 1.0})
    >>> parse_agent("pimc:iterations=3")
    Traceback (most recent call last):
    ...
    ValueError: agent 'pimc:iterations=3': unknown parameter 'iterations' (pimc takes samples, rollouts, search_at, solve_at, nodes, rollout, margin, ms, worlds, soft, temper)

    A PIMC time budget without ``samples`` is bounded by the time alone (SAMPLES_CAP):

    >>> parse_agent("pimc:ms=100")[1]["samples"], parse_agent("pimc:ms=100:samples=8")[1]["samples"]
    (1000000, 8)
    """
    if not isinstance(name, str):
        raise TypeError(f"an agent name is a str, not {type(name).__name__}")
    base, *parts = name.strip().split(":")
    if base not in DEFAULTS:
        raise ValueError(f"unknown search agent {base!r}; known: {', '.join(DEFAULTS)}")
    params = dict(DEFAULTS[base])
    given = set()
    for part in parts:
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq:
            raise ValueError(f"agent {name!r}: parameter {part!r} is not KEY=VALUE")
        if key not in params:
            raise ValueError(f"agent {name!r}: unknown parameter {key!r} ({base} takes "
                             f"{', '.join(DEFAULTS[base])})")
        given.add(key)
        if key in ("worlds", "rollout"):         # a name from a fixed list
            value, names = value.strip(), WORLDS if key == "worlds" else ROLLOUTS
            if value not in names:
                raise ValueError(f"agent {name!r}: {key} must be one of "
                                 f"{', '.join(names)}, got {value!r}")
            params[key] = value
            continue
        try:
            v = float(value) if key in _FLOATS else int(value)
        except ValueError:
            raise ValueError(f"agent {name!r}: {key} must be "
                             f"{'a number' if key in _FLOATS else 'an integer'}, "
                             f"got {value!r}") from None
        if key == "explore":
            if not 0.0 <= v <= 100.0:
                raise ValueError(f"agent {name!r}: explore must be in 0..100, got {value}")
        elif key == "margin":
            if not 0.0 <= v <= 6.0:
                raise ValueError(f"agent {name!r}: margin must be in 0..6, got {value}")
        elif key == "ms":
            if not 0.0 <= v <= 3600000.0:
                raise ValueError(f"agent {name!r}: ms must be in 0..3600000, got {value}")
        elif key == "soft":
            if not 0.001 <= v <= 0.999:
                raise ValueError(f"agent {name!r}: soft must be in 0.001..0.999, got {value}")
        elif key == "temper":
            if not 0.001 <= v <= 1.0:
                raise ValueError(f"agent {name!r}: temper must be in 0.001..1, got {value}")
        else:
            lo, hi = _LIMITS[key]
            if not lo <= v <= hi:
                raise ValueError(f"agent {name!r}: {key} must be in {lo}..{hi}, got {v}")
        params[key] = v
    if base == "pimc" and params["ms"] > 0 and "samples" not in given:
        params["samples"] = SAMPLES_CAP
    return base, params


cdef SearchParams params_to_c(str base, dict params):
    cdef SearchParams prm
    memset(&prm, 0, sizeof(SearchParams))
    prm.kind = _KINDS[base]
    prm.samples = params.get("samples", 1)
    prm.rollouts = params.get("rollouts", 1)
    prm.iterations = params.get("iterations", 1)
    prm.explore = params.get("explore", 0.15)
    prm.search_at = params["search_at"]
    prm.solve_at = params["solve_at"]
    prm.nodes = params["nodes"]
    prm.rollout = ROLLOUTS[params.get("rollout", "greedy")]
    prm.margin = params.get("margin", 0.0)
    prm.ms = params.get("ms", 0)
    prm.worlds = WORLDS[params.get("worlds", "uniform")]
    prm.soft = params.get("soft", 0.2)
    prm.temper = params.get("temper", 1.0)
    return prm


cdef class Agents:
    """Search contexts of one simulation chunk: one per seat playing a search agent (the
    compiled loop of simulate_core reads ``ctx``)."""

    def __cinit__(self, specs):
        cdef SearchParams prm
        cdef int q
        for q in range(4):
            self.ctx[q] = NULL
        # (a tuple of exactly 4 read by index: this module indexes without bounds checks)
        specs = tuple(specs)
        if len(specs) != 4:
            raise ValueError(f"specs must hold 4 entries (one per seat), got {len(specs)}")
        for q in range(4):
            if specs[q] is None:
                continue
            base, params = specs[q]
            # Checked again: the compiled search trusts its parameters.
            base, params = parse_agent(":".join([base] + [f"{k}={v}" for k, v in params.items()]))
            prm = params_to_c(base, params)
            self.ctx[q] = search_new(&prm)
            if self.ctx[q] == NULL:
                raise MemoryError()

    def __dealloc__(self):
        cdef int q
        for q in range(4):
            search_free(self.ctx[q])
            self.ctx[q] = NULL


cdef int observe_hand(SearchCtx* c, game) except -1:
    """Show the context every move of the game's current hand, each with the state before it
    (as a match does, move by move): the hand is replayed from its start, which the game's
    record gives."""
    from .game import Game
    cdef GameState st
    n = len(game.history)
    try:
        start = Game.from_record(game.to_record(), step=len(game.action_log()) - n)
        for seat, move in game.history:
            memcpy(&st, game_state_ptr(start), sizeof(GameState))
            lo, hi = move.words
            search_observe(c, &st, <u64>lo, <u64>hi)
            start.play(move)
        same = start == game
    except ValueError:
        same = False
    if not same:
        raise ValueError("worlds=styles replays the hand from the game's record, which does "
                         "not give this position (a game not made by Game(seed) or "
                         "Game.setup and moves, e.g. random_endgame's)")
    return 0


def style_loglik(game, world, soft=0.2, temper=1.0):
    """How likely the opponents' plays of this hand are in ``world`` (a ``Game`` at the same
    point that differs at most in the hands the seat to move cannot see, e.g. ``sample_world``'s),
    as ``pimc:worlds=styles`` weighs its worlds: ``(log_weight, table)``, ``table[q][m]`` the
    log-likelihood of seat ``q``'s decisions under model ``m`` (``STYLE_MODELS``; zeros for the
    searching team), ``log_weight`` the sum over the opponents of the log of the mixture
    (equal weights) of their models, times ``temper``. Only the world's hands and the game's
    public record are read.

    >>> from guandan_fast.game import Game
    >>> g = Game(seed=1)
    >>> style_loglik(g, g.sample_world(g.current_player, seed=2))[0]      # no play yet
    0.0
    """
    from .game import Game
    cdef GameState st, ws
    cdef SearchParams prm
    cdef SearchCtx* c
    cdef double lw
    cdef int q, m
    if not isinstance(game, Game) or not isinstance(world, Game):
        raise TypeError("game and world must be guandan_fast.Game objects")
    base, params = parse_agent(f"pimc:worlds=styles:soft={soft}:temper={temper}")
    if game.is_over:
        raise ValueError("the match is over: no decision to make")
    memcpy(&st, game_state_ptr(game), sizeof(GameState))
    memcpy(&ws, game_state_ptr(world), sizeof(GameState))
    p = st.current
    if (ws.hand_number != st.hand_number or ws.n_actions != st.n_actions
            or ws.current != st.current or ws.hand_lo[p] != st.hand_lo[p]
            or ws.hand_hi[p] != st.hand_hi[p]
            or any(card_count(ws.hand_lo[q], ws.hand_hi[q])
                   != card_count(st.hand_lo[q], st.hand_hi[q]) for q in range(4))):
        raise ValueError("world must be the game's position with other hidden hands (the same "
                         "hand, move, seat to move, own hand and card counts)")
    prm = params_to_c(base, params)
    c = search_new(&prm)
    if c == NULL:
        raise MemoryError()
    try:
        search_reset(c, 0, p)
        observe_hand(c, game)
        lw = world_loglik(c, &ws, p)
        table = [[c.ll[q * N_MODELS + m] for m in range(N_MODELS)] for q in range(4)]
    finally:
        search_free(c)
    return lw, table


#: The style models of ``worlds=styles``, in ``style_loglik``'s table order.
STYLE_MODELS = ("greedy",) + tuple(STYLE_NAMES)


def choose(game, agent="pimc", seed=0):
    """The move a search agent makes for the seat to move in ``game`` (one decision; the
    agent's stream starts from ``seed``). Outside the play phase, or above ``search_at``
    cards, it is the greedy move.

    >>> from guandan_fast.game import Game
    >>> choose(Game(seed=1), "pimc:search_at=0") == choose(Game(seed=1), "pimc")
    True
    """
    from .game import Game
    cdef GameState st
    cdef SearchParams prm
    cdef SearchCtx* c
    cdef int i, n
    cdef u64[::1] arr
    if not isinstance(game, Game):
        raise TypeError(f"game must be a guandan_fast.Game, not {type(game).__name__}")
    seed = _validate.check_seed(seed)
    base, params = parse_agent(agent)
    if game.is_over:
        raise ValueError("the match is over: no decision to make")
    memcpy(&st, game_state_ptr(game), sizeof(GameState))
    arr = game.legal_moves_array(compact=True).reshape(-1).copy()
    n = arr.shape[0] // 2
    prm = params_to_c(base, params)
    c = search_new(&prm)
    if c == NULL:
        raise MemoryError()
    try:
        search_reset(c, <u64>(seed & 0xFFFFFFFFFFFFFFFF), st.current)
        if c.hist != NULL:
            observe_hand(c, game)
        else:
            c.played.hand = st.hand_number
            for seat, move in game.history:
                lo, hi = move.words
                if move_type(<u64>hi) not in (0, 10):    # PASS and tribute give nothing away
                    c.played.cards[seat].lo += <u64>lo & <u64>0x000FFFFFFFFFFFFFULL
                    c.played.cards[seat].hi += <u64>hi & <u64>0x00FFFFFFFFFFFFFFULL
        with nogil:
            i = search_choose(c, &st, &arr[0], n)
    finally:
        search_free(c)
    return move_of(arr[2 * i], arr[2 * i + 1])

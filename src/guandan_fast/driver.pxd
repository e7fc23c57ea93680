# The one compiled match driver: the agents of a match play until a listed seat must decide,
# or a hand or the match ends. simulate_core (whole matches, their counters and records),
# tournament_core (whole matches; the bot seats of Python-driven matches) and vecenv (the bot
# seats between two learner decisions) all play through it, so a seat's agent makes the same
# moves on every path (same streams, same observations).
#
# Everything here is inline and nogil: each module gets its own copy, so the per-move hook a
# caller passes (a function of its own module, or NULL) is a constant the C compiler folds
# into a direct call (or away).
from libc.stdint cimport int8_t
from guandan_fast.types cimport u64
from guandan_fast.movegen_core cimport MAX_MOVES
from guandan_fast.interrupt cimport Interrupt, interrupted
from guandan_fast.game_core cimport (GameState, GameRulesC, game_init, game_legal, game_apply,
                                     STEP_CONTINUE, STEP_HAND_OVER, STEP_MATCH_OVER)
from guandan_fast.bots cimport Bot, bot_init, bot_choose, agent_compact
from guandan_fast.search cimport SearchCtx, search_reset, search_observe, search_choose

cdef enum:
    # Return codes of drive()
    DRIVE_DECIDE = 0                    # a listed seat must decide (s.current)
    DRIVE_HAND_OVER = STEP_HAND_OVER    # a hand ended, the next one is dealt (s.last_*)
    DRIVE_MATCH_OVER = STEP_MATCH_OVER  # a hand ended and so did the match
    DRIVE_NO_MOVE = -1                  # internal error: an agent found no legal move
    DRIVE_HOOK_STOP = -2                # the caller's hook asked to stop (before the move)
    DRIVE_STOPPED = -3                  # interrupted: Ctrl-C or the caller's stop flag

cdef struct Seating:
    # Who plays each seat (the same for every match of a run).
    int kinds[4]              # AGENT_* of bots.pxd (also given, unused, for listed seats)
    SearchCtx* search[4]      # the seat's search context (search.pyx), NULL for a bot
    int8_t listed[4]          # the caller decides for this seat (a learner, a Python agent)
    int8_t searching          # some search[p] is set (search agents observe every move)

# Called with each move the agents make, before it is applied; nonzero stops the driver.
ctypedef int (*move_hook)(void* ctx, const GameState* s, u64 lo, u64 hi) noexcept nogil


cdef inline void seating_init(Seating* a, const int* kinds, SearchCtx** search,
                              const int8_t* listed) noexcept nogil:
    """``search`` and ``listed`` may be NULL (no search agent, no listed seat)."""
    cdef int p
    a.searching = 0
    for p in range(4):
        a.kinds[p] = kinds[p]
        a.search[p] = search[p] if search != NULL else NULL
        a.listed[p] = listed[p] if listed != NULL else 0
        if a.search[p] != NULL:
            a.searching = 1


cdef inline void match_start(GameState* s, Bot* bots, const Seating* a, u64 match_seed,
                             const GameRulesC* rules) noexcept nogil:
    """A new match from ``match_seed``: the deal, and every seat's agent on its own stream
    (bots.pxd bot_init, search.pxd search_reset)."""
    cdef int p
    game_init(s, match_seed, rules)
    for p in range(4):
        bot_init(&bots[p], a.kinds[p], match_seed, p)
        if a.search[p] != NULL:
            search_reset(a.search[p], match_seed, p)


cdef inline int agent_pick(const GameState* s, Bot* bots, const Seating* a, u64* buf,
                           u64* lo, u64* hi) noexcept nogil:
    """The move the agent of the seat to act plays, into (lo, hi): 0, or -1 when the legal
    list is empty (an internal error; a dealt hand's moves always fit MAX_MOVES)."""
    cdef int p = s.current, n, i
    n = game_legal(s, agent_compact(a.kinds[p]), buf, MAX_MOVES)
    if n <= 0:
        return -1
    if a.search[p] != NULL:
        i = search_choose(a.search[p], s, buf, n)
    else:
        i = bot_choose(&bots[p], s, buf, n)
    lo[0] = buf[2 * i]
    hi[0] = buf[2 * i + 1]
    return 0


cdef inline int match_apply(GameState* s, const Seating* a, u64 lo, u64 hi) noexcept nogil:
    """Any move of the match, an agent's or the caller's: the search agents see it, then it
    is made (unchecked: a legal move). Returns game_apply's STEP_*."""
    cdef int q
    if a.searching:
        for q in range(4):
            if a.search[q] != NULL:
                search_observe(a.search[q], s, lo, hi)
    return game_apply(s, lo, hi)


cdef inline int drive(GameState* s, Bot* bots, const Seating* a, u64* buf, Interrupt* it,
                      move_hook hook, void* ctx) noexcept nogil:
    """Play the agents' moves until a listed seat must decide (DRIVE_DECIDE) or a hand ends
    (DRIVE_HAND_OVER, DRIVE_MATCH_OVER); negative DRIVE_* codes on failure or stop. ``s``
    must not be over. ``buf``: MAX_MOVES moves of scratch. ``it`` (may be NULL) is polled
    once per move; ``hook`` (may be NULL) sees each move before it is made."""
    cdef u64 lo, hi
    cdef int r
    while True:
        if it != NULL and interrupted(it):
            return DRIVE_STOPPED
        if a.listed[s.current]:
            return DRIVE_DECIDE
        if agent_pick(s, bots, a, buf, &lo, &hi) < 0:
            return DRIVE_NO_MOVE
        if hook != NULL and hook(ctx, s, lo, hi):
            return DRIVE_HOOK_STOP
        r = match_apply(s, a, lo, hi)
        if r != STEP_CONTINUE:
            return r

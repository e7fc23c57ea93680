# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, autotestdict=False, embedsignature=True, binding=True
"""Whole-tree counts and random playouts in C over a ``Game``'s state: ``perft_game`` (the
compiled perft; ``guandan_fast.perft`` is its command-line and reference side) and
``random_playout`` (the benchmarks' "compiled loop"). Both run without the GIL on a private
copy of the game's struct.

>>> from guandan_fast.game import Game
>>> g = Game(seed=0); perft_game(g, 1) == len(g.legal_moves())
True
"""
from libc.string cimport memcpy
from libc.stdlib cimport free, calloc

from guandan_fast.types cimport u64
from guandan_fast.codec cimport move_of
from guandan_fast.game_core cimport (GameState, PH_OVER, game_legal, game_legal_grow,
                                     game_apply)
from guandan_fast.game cimport game_state_ptr
from guandan_fast.interrupt cimport (Interrupt, interrupt_init, interrupted, in_main_thread,
                                     raise_pending)
from guandan_fast.rng cimport sm_below

from guandan_fast.validate import as_int as _as_int

cdef u64 MASK64 = 0xFFFFFFFFFFFFFFFF


# ------------------------------------------------------------------------------------------
# Whole-tree counts and random playouts in C (perft, benchmarks)
# ------------------------------------------------------------------------------------------

cdef enum:
    MAX_PERFT_DEPTH = 1000   # the recursion's C stack stays small (~300 bytes a level)


cdef struct PerftCtx:
    bint compact
    bint failed            # out of memory
    Interrupt it
    u64** bufs             # one growable buffer per remaining level
    int* caps


cdef long long perft_rec(const GameState* s, int depth, PerftCtx* ctx) noexcept nogil:
    """Leaves of the complete-move tree of depth `depth` under s (a finished match is a leaf).
    ctx.bufs[depth] holds this level's moves; the count is meaningless once ctx.it.stopped or
    ctx.failed is set (the caller discards it)."""
    cdef GameState child
    cdef long long total = 0
    cdef int n, i
    if depth == 0 or s.phase == PH_OVER:
        return 1
    if interrupted(&ctx.it):
        return 0
    # The direct call first (a buffer not yet allocated has capacity 0): the grow path only
    # when it does not fit.
    n = game_legal(s, ctx.compact, ctx.bufs[depth], ctx.caps[depth])
    if n < 0:
        n = game_legal_grow(s, ctx.compact, &ctx.bufs[depth], &ctx.caps[depth])
        if n < 0:
            ctx.failed = True
            return 0
    if depth == 1:
        return n
    for i in range(n):
        memcpy(&child, s, sizeof(GameState))
        game_apply(&child, ctx.bufs[depth][2 * i], ctx.bufs[depth][2 * i + 1])
        total += perft_rec(&child, depth - 1, ctx)
        if ctx.it.stopped or ctx.failed:
            return 0
    return total


def perft_game(game, depth, bint per_move=False, bint compact=False):
    """Leaf count of the move tree of ``depth`` plies below a game's current state (the
    compiled perft; ``guandan_fast.perft.perft`` starts it from ``Game(seed)``).
    With ``per_move``: a dict ``{first Move: leaves below it}``.

    The count runs without the GIL on a private copy of the game's state (other threads may
    play on the game meanwhile); Ctrl-C stops it (KeyboardInterrupt, no partial result).

    >>> from guandan_fast.game import Game
    >>> g = Game(seed=0); perft_game(g, 1) == len(g.legal_moves())
    True
    """
    cdef GameState root, child
    cdef PerftCtx ctx
    cdef long long total = 0
    cdef int n, i, d
    dv = _as_int(depth, "depth")
    if not 0 <= dv <= MAX_PERFT_DEPTH:
        raise ValueError(f"depth must be 0..{MAX_PERFT_DEPTH}, got {depth}")
    d = dv
    memcpy(&root, game_state_ptr(game), sizeof(GameState))   # with the GIL: a consistent snapshot
    ctx.compact = compact
    ctx.failed = False
    interrupt_init(&ctx.it, 1024, in_main_thread(), NULL)
    ctx.bufs = <u64**>calloc(d + 1, sizeof(u64*))
    ctx.caps = <int*>calloc(d + 1, sizeof(int))
    if ctx.bufs == NULL or ctx.caps == NULL:
        free(ctx.bufs)
        free(ctx.caps)
        raise MemoryError()
    try:
        if not per_move:
            with nogil:
                total = perft_rec(&root, d, &ctx)
        else:
            out = {}
            if d == 0 or root.phase == PH_OVER:
                return out
            n = game_legal_grow(&root, compact, &ctx.bufs[d], &ctx.caps[d])
            if n < 0:
                raise MemoryError()
            for i in range(n):
                memcpy(&child, &root, sizeof(GameState))
                game_apply(&child, ctx.bufs[d][2 * i], ctx.bufs[d][2 * i + 1])
                with nogil:
                    total = perft_rec(&child, d - 1, &ctx)
                if ctx.it.stopped or ctx.failed:
                    break
                out[move_of(ctx.bufs[d][2 * i], ctx.bufs[d][2 * i + 1])] = total
        if ctx.it.stopped:
            raise_pending(&ctx.it)
        if ctx.failed:
            raise MemoryError("no memory for the legal moves of a position")
        return out if per_move else total
    finally:
        for i in range(d + 1):
            free(ctx.bufs[i])
        free(ctx.bufs)
        free(ctx.caps)


cdef long long playout(GameState* s, long long max_steps, u64* rng, bint compact,
                       u64** buf, int* cap, Interrupt* it) noexcept nogil:
    """Uniformly random legal moves until the match ends or max_steps; returns the steps, or
    -1 when memory ran out (it.stopped: interrupted)."""
    cdef long long steps = 0
    cdef int n, i
    while steps < max_steps and s.phase != PH_OVER:
        if interrupted(it):
            break
        n = game_legal(s, compact, buf[0], cap[0])
        if n < 0:
            n = game_legal_grow(s, compact, buf, cap)
        if n <= 0:
            return -1
        i = <int>sm_below(rng, <u64>n)
        game_apply(s, buf[0][2 * i], buf[0][2 * i + 1])
        steps += 1
    return steps


def random_playout(game, max_steps, seed=0, bint compact=False):
    """Play uniformly random legal moves from a game's state on a private copy of its struct
    (no Python per move; the game itself is unchanged) until the match ends or ``max_steps``
    moves. Returns ``(moves made, winner or None)``: the benchmarks' "compiled loop".
    Ctrl-C stops it (KeyboardInterrupt).

    >>> from guandan_fast.game import Game
    >>> g = Game(seed=0); steps, winner = random_playout(g, 10**6)
    >>> steps > 0, winner in (0, 1), g.hand_number
    (True, True, 0)
    """
    cdef long long steps, limit
    cdef GameState st
    cdef u64* buf = NULL
    cdef int cap = 0
    cdef Interrupt it
    cdef u64 r = <u64>(_as_int(seed, "seed") & MASK64)
    lim = _as_int(max_steps, "max_steps")
    if lim < 0:
        raise ValueError(f"max_steps must be >= 0, got {max_steps}")
    limit = min(lim, 1 << 62)   # more steps than any match has
    memcpy(&st, game_state_ptr(game), sizeof(GameState))
    interrupt_init(&it, 1024, in_main_thread(), NULL)
    try:
        with nogil:
            steps = playout(&st, limit, &r, compact, &buf, &cap, &it)
        if it.stopped:
            raise_pending(&it)
        if steps < 0:
            raise MemoryError("no memory for the legal moves of a position")
    finally:
        free(buf)
    return steps, (None if st.winner < 0 else st.winner)

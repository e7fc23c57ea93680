# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled support of the duplicate tournament (python/guandan_fast/tournament.py).

``play_matches`` plays a batch of whole matches, each from a given deal (match index of a run
seed, dealt like ``simulate``'s match ``i``) with given agent kinds by seat, without the GIL,
and returns one row of outcome counters per match. ``BotSeats`` runs the built-in bots of some
seats of a match driven from Python (when the other seats are Python agents): it follows the
match move by move on its own copy of the state and picks the bots' moves exactly as the
compiled loop does (same streams), so a bot plays the same in both paths.

Outcome columns (``OUTCOME_COLUMNS``): winner team, hands played, hands won by team 0 and 1,
levels won by team 0 and 1 (each hand won is worth ``Rules.upgrade_steps`` by the partner's
place, counted before the cap at A).

>>> from guandan_fast.simulate_core import AGENT_CODES, run_chunk
>>> g, r = AGENT_CODES['greedy'], AGENT_CODES['random']
>>> import numpy as np
>>> out = play_matches(0, [0, 0], [0, 1], [[g, r, g, r], [r, g, r, g]])
>>> out.shape, int(out[0, 1]) == run_chunk(0, 1, 0, (g, r, g, r))['hands']
((2, 6), True)
"""
from libc.stdlib cimport malloc, free
from libc.stdint cimport int64_t

from libc.stdint cimport int8_t

from guandan_fast.types cimport u64
from guandan_fast.rng cimport match_seed_of
from guandan_fast.movegen_core cimport MAX_MOVES
from guandan_fast.game_core cimport (GameState, GameRulesC, game_is_legal, last_partner_place,
                                     PH_OVER)
from guandan_fast.rules_core cimport rules_to_c
from guandan_fast.bots cimport Bot, N_AGENT_KINDS, AGENT_PIMC, AGENT_ISMCTS
from guandan_fast.search cimport Agents, SearchCtx
from guandan_fast.driver cimport (Seating, seating_init, match_start, agent_pick, match_apply,
                                  drive, DRIVE_MATCH_OVER, DRIVE_STOPPED)
from guandan_fast.interrupt cimport Interrupt, interrupt_init, in_main_thread, raise_pending

import numpy as np

from .rules import Rules

OUTCOME_COLUMNS = ("winner", "hands", "hand_wins_0", "hand_wins_1", "levels_0", "levels_1")
cdef enum:
    NCOL = 6


cdef inline void count_hand(const GameState* s, int64_t* row) noexcept nogil:
    """Add the hand that just ended (s.last_*) to an outcome row."""
    cdef int team = s.last_finish[0] & 1
    row[1] += 1
    row[2 + team] += 1
    row[4 + team] += s.rules.up[last_partner_place(s) - 1]


cdef int play_one(u64 mseed, const GameRulesC* rules, const Seating* seating, u64* buf,
                  int64_t* row, Interrupt* it) noexcept nogil:
    """One whole match through the driver (driver.pxd, as simulate_core plays it, so a deal
    plays alike in both); fills ``row`` and returns 0, -1 when no legal move was produced, or
    DRIVE_STOPPED when ``it`` (polled per move) says stop."""
    cdef GameState s
    cdef Bot bots[4]
    cdef int r
    match_start(&s, bots, seating, mseed, rules)
    while True:
        r = drive(&s, bots, seating, buf, it, NULL, NULL)
        if r == DRIVE_STOPPED:
            return r
        if r < 0:
            return -1
        count_hand(&s, row)
        if r == DRIVE_MATCH_OVER:
            row[0] = s.winner
            return 0


cdef Agents _search_agents(const int* ks, spec):
    """The search contexts of one seating (``spec``: per seat None or the (name, parameters)
    of search.parse_agent; required exactly for the seats of search kinds)."""
    cdef int p
    specs = [None] * 4
    for p in range(4):
        sp = None if spec is None else spec[p]
        if ks[p] == AGENT_PIMC or ks[p] == AGENT_ISMCTS:
            if sp is None:
                raise ValueError(f"seat {p} plays a search agent: its (name, parameters) "
                                 f"are needed")
            specs[p] = sp
        elif sp is not None:
            raise ValueError(f"seat {p} is a built-in bot, not the search agent {sp[0]!r}")
    return Agents(specs)


def play_matches(seed, deals, seating, kinds, rules=Rules(), search=None, cancel=None):
    """Play match ``k`` from deal ``deals[k]`` of the run seeded ``seed`` with the agents of
    seating ``seating[k]``: ``kinds[seating[k]]``, four ``AGENT_*`` codes by seat (and, for
    search agents, ``search[seating[k]]``: per seat None or ``search.parse_agent``'s
    ``(name, parameters)``). Runs without the GIL; returns an ``(n, 6)`` int64 array of
    outcomes (``OUTCOME_COLUMNS``). Ctrl-C (in the main thread) or setting ``cancel[0]``
    (``cancel``: a bytearray shared with the thread that cancels) stops it within
    milliseconds, even inside a match of search agents: KeyboardInterrupt.

    >>> play_matches(0, [1], [0], [[0, 0, 0, 99]])
    Traceback (most recent call last):
    ...
    ValueError: kinds[0][3]: unknown agent kind 99
    """
    cdef GameRulesC rc = rules_to_c(rules)
    cdef u64 s64 = <u64>(seed & 0xFFFFFFFFFFFFFFFF)
    d_arr = np.ascontiguousarray(deals, dtype=np.int64)
    s_arr = np.ascontiguousarray(seating, dtype=np.int64)
    k_arr = np.ascontiguousarray(kinds, dtype=np.int32)
    if (d_arr.ndim != 1 or s_arr.shape != d_arr.shape or k_arr.ndim != 2
            or k_arr.shape[1] != 4 or k_arr.shape[0] < 1):
        raise ValueError(f"deals and seating must be (n,), kinds (s, 4); got {d_arr.shape}, "
                         f"{s_arr.shape} and {k_arr.shape}")
    if d_arr.size and d_arr.min() < 0:
        raise ValueError(f"deals must be >= 0, got {int(d_arr.min())}")
    if s_arr.size and (s_arr.min() < 0 or s_arr.max() >= k_arr.shape[0]):
        raise ValueError(f"seating entries must be in 0..{k_arr.shape[0] - 1}")
    bad = np.argwhere((k_arr < 0) | (k_arr >= N_AGENT_KINDS))
    if bad.size:
        m, p = (int(v) for v in bad[0])
        raise ValueError(f"kinds[{m}][{p}]: unknown agent kind {int(k_arr[m, p])}")
    if search is not None and len(search) != k_arr.shape[0]:
        raise ValueError(f"search must give one entry per seating, got {len(search)}")
    cdef Interrupt it
    cdef const unsigned char* flag = NULL
    cdef unsigned char[::1] cancel_view
    if cancel is not None:
        cancel_view = cancel
        if cancel_view.shape[0] < 1:
            raise ValueError("cancel must be a writable buffer of at least one byte")
        flag = &cancel_view[0]
    cdef const int[:, ::1] kv = k_arr
    agents = [_search_agents(&kv[j, 0], None if search is None else search[j])
              for j in range(k_arr.shape[0])]
    # One Seating per seating row (its search contexts kept alive by `agents`).
    cdef Py_ssize_t n_seat = k_arr.shape[0], j
    cdef Seating* seatings = <Seating*>malloc(n_seat * sizeof(Seating))
    if seatings == NULL:
        raise MemoryError()
    for j in range(n_seat):
        seating_init(&seatings[j], &kv[j, 0], (<Agents>agents[j]).ctx, NULL)
    out = np.zeros((d_arr.shape[0], NCOL), dtype=np.int64)
    cdef const int64_t[::1] dv = d_arr
    cdef const int64_t[::1] sv = s_arr
    cdef int64_t[:, ::1] ov = out
    cdef Py_ssize_t k, n = d_arr.shape[0], failed = -1
    cdef int r = 0
    # A search agent's move takes milliseconds: look at every move (a bot's, well under a
    # microsecond's work, every 1024).
    searching = search is not None and any(sp is not None for row in search for sp in row)
    interrupt_init(&it, 1 if searching else 1024, in_main_thread(),
                   <const volatile unsigned char*>flag)
    cdef u64* buf = <u64*>malloc(2 * MAX_MOVES * sizeof(u64))
    if buf == NULL:
        free(seatings)
        raise MemoryError()
    try:
        with nogil:
            for k in range(n):
                r = play_one(match_seed_of(s64, dv[k]), &rc, &seatings[sv[k]], buf, &ov[k, 0],
                             &it)
                if r != 0:
                    failed = k
                    break
    finally:
        free(buf)
        free(seatings)
    if r == DRIVE_STOPPED:
        raise_pending(&it)
    if failed >= 0:
        raise RuntimeError(f"internal error in deal {d_arr[failed]} of seed {seed}: no legal move")
    return out


cdef class BotSeats:
    """The compiled agents of a Python-driven match: ``choose()`` gives the seat to act's
    move as ``(lo, hi)`` words, ``apply(lo, hi)`` follows every move made (by anyone); both
    through the match driver (driver.pxd), so the agents play as in ``play_matches``.
    ``kinds``: per seat an ``AGENT_*`` code or None (a Python seat); ``search``: per seat None
    or a search agent's ``(name, parameters)``.

    >>> from guandan_fast.game import Game
    >>> from guandan_fast.simulate_core import match_seed
    >>> ms = match_seed(0, 0)
    >>> bots, g = BotSeats(ms, (2, 2, 2, 2)), Game(seed=ms)
    >>> for _ in range(5):
    ...     lo, hi = bots.choose(); g.play_words(lo, hi); bots.apply(lo, hi)
    >>> bots.current == g.current_player
    True
    """
    cdef GameState st
    cdef Bot bots[4]
    cdef Seating seating
    cdef u64 buf[2 * MAX_MOVES]
    cdef Agents agents

    def __init__(self, u64 match_seed, kinds, rules=Rules(), search=None):
        cdef GameRulesC rc = rules_to_c(rules)
        cdef int p
        cdef int ks[4]
        cdef int8_t listed[4]
        if len(kinds) != 4:
            raise ValueError(f"kinds must give 4 agent kinds (None for a Python seat), got {len(kinds)}")
        for p in range(4):
            k = kinds[p]
            listed[p] = k is None
            if k is None:
                ks[p] = 0           # a Python seat: its bot stream is drawn, never used
            elif not (0 <= k < N_AGENT_KINDS):
                raise ValueError(f"kinds[{p}]: unknown agent kind {k!r}")
            else:
                ks[p] = k
        self.agents = _search_agents(ks, search)
        seating_init(&self.seating, ks, self.agents.ctx, listed)
        match_start(&self.st, self.bots, &self.seating, match_seed, &rc)

    @property
    def current(self):
        """The seat to act (-1 when the match is over)."""
        return self.st.current

    def choose(self):
        """The move the agent at the seat to act plays, as ``(lo, hi)``."""
        cdef int p = self.st.current, r
        cdef u64 lo, hi
        if self.st.phase == PH_OVER:
            raise ValueError("the match is over")
        if self.seating.listed[p]:
            raise ValueError(f"seat {p} is not a compiled agent")
        if self.seating.search[p] != NULL:
            with nogil:
                r = agent_pick(&self.st, self.bots, &self.seating, self.buf, &lo, &hi)
        else:
            r = agent_pick(&self.st, self.bots, &self.seating, self.buf, &lo, &hi)
        if r < 0:
            raise RuntimeError("internal error: no legal move")
        return int(lo), int(hi)

    def apply(self, lo, hi):
        """Follow a move made in the match (checked against this copy's legal moves)."""
        cdef u64 wlo = lo, whi = hi
        if self.st.phase == PH_OVER or not game_is_legal(&self.st, wlo, whi):
            raise ValueError("BotSeats.apply: not a legal move of the followed match")
        match_apply(&self.st, &self.seating, wlo, whi)

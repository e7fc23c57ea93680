# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled simulation loop: whole matches between built-in bots, without the GIL.

``run_chunk`` plays matches ``start .. stop-1`` of a simulation and returns its counters; the
Python ``guandan_fast.simulate`` splits a run into chunks and spreads them over threads. Match
``i`` of a run with seed ``S`` starts its game generator at ``match_seed(S, i)``, the ``i``-th
output (0-based) of SplitMix64 started at ``S``; its bots draw from their own streams derived
from that match seed (bots.pyx). So a match's play depends only on ``(S, i)``.

>>> match_seed(0, 0) == 0xe220a8397b1dcdaf
True
>>> greedy, rnd = AGENT_CODES['greedy'], AGENT_CODES['random']
>>> r = run_chunk(0, 2, 0, (greedy, rnd, greedy, rnd))
>>> r['matches'], r['team_wins'][0] + r['team_wins'][1]
(2, 2)
"""
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset
from cpython.bytes cimport PyBytes_FromStringAndSize

from guandan_fast.types cimport (u64, T_PASS, T_BOMB, T_STRAIGHT_FLUSH, T_TRIBUTE, T_BACK,
                                 move_type, card_count)
from guandan_fast.rng cimport match_seed_of
from guandan_fast.movegen_core cimport MAX_MOVES
from guandan_fast.interrupt cimport Interrupt, interrupt_init, in_main_thread, raise_pending
from guandan_fast.game_core cimport GameState, GameRulesC, game_init, last_partner_place
from guandan_fast.record_lines cimport (LineBuf, LINES_OK, LINES_NO_MEMORY, linebuf_append,
                                        linebuf_free, write_hand_lines)
from guandan_fast.rules_core cimport rules_to_c
from guandan_fast.bots cimport Bot, AGENT_PIMC, AGENT_ISMCTS, N_AGENT_KINDS
from guandan_fast.search cimport Agents
from guandan_fast.driver cimport (Seating, seating_init, match_start, drive, DRIVE_NO_MOVE,
                                  DRIVE_MATCH_OVER)

import numpy as np

from .bots import AGENT_CODES  # the compiled agent codes by name (re-exported)
from .rules import Rules

cdef struct SimStats:
    long long matches          # matches played to the end
    long long hands            # hands played to the end
    long long plays            # non-PASS plays (tribute and back excluded)
    long long passes
    long long cards            # cards played
    long long bombs            # bomb-class plays (bombs, straight flushes, four jokers)
    long long team_wins[2]     # matches won per team
    long long hand_wins[2]     # hands won per team (team of the 1st finisher)
    long long patterns[3]      # hands won 1-2, 1-3, 1-4 (place of the winner's partner)
    long long longest          # most hands in one match
    long long truncated        # matches cut short by a hand budget
    long long errors           # internal failures (no legal move, buffer too small)


def match_seed(seed, long long i):
    """The generator state that match ``i`` of a run seeded ``seed`` starts from (the one
    formula, rng.pxd match_seed_of: also the tournament's deals and VecEnv's tables).

    >>> match_seed(5, 1) == match_seed(5, 1) != match_seed(5, 2)
    True
    """
    return match_seed_of(<u64>(seed & 0xFFFFFFFFFFFFFFFF), i)


cdef struct MoveLog:
    # What play_match's hook adds up per move (the driver calls it before each move).
    SimStats* st
    u64** rec                  # *rec: (seat, lo, hi) per action; NULL: no log
    long long* rec_cap         # its size in words
    long long* rec_n           # words written
    bint grow                  # a full log grows (realloc) instead of stopping the match


cdef int log_move(void* ctx, const GameState* s, u64 lo, u64 hi) noexcept nogil:
    cdef MoveLog* m = <MoveLog*>ctx
    cdef SimStats* st = m.st
    cdef int t
    cdef u64* grown
    if m.rec != NULL:
        if m.rec_n[0] + 3 > m.rec_cap[0]:
            if not m.grow:
                return 1
            grown = <u64*>realloc(m.rec[0], 2 * m.rec_cap[0] * sizeof(u64))
            if grown == NULL:
                return 1
            m.rec[0] = grown
            m.rec_cap[0] *= 2
        m.rec[0][m.rec_n[0]] = <u64>s.current
        m.rec[0][m.rec_n[0] + 1] = lo
        m.rec[0][m.rec_n[0] + 2] = hi
        m.rec_n[0] += 3
    t = move_type(hi)
    if t == T_PASS:
        st.passes += 1
    elif t != T_TRIBUTE and t != T_BACK:
        st.plays += 1
        st.cards += card_count(lo, hi)
        if t == T_BOMB or t == T_STRAIGHT_FLUSH:
            st.bombs += 1
    return 0


cdef int play_match(u64 mseed, const GameRulesC* rules, const Seating* seating, SimStats* st,
                    u64* buf, long long* budget, u64** rec, long long* rec_cap,
                    long long* rec_n, bint grow, Interrupt* it) noexcept nogil:
    """Play one match; returns 0 (over), 1 (stopped by the hand budget), -1 (error),
    -2 (record buffer full, or out of memory with ``grow``), -3 (interrupted: it.stopped).
    ``budget`` (when not NULL) is decremented per finished hand. ``*rec`` (when ``rec`` is
    not NULL) receives (seat, lo, hi) per action from word 0; with ``grow`` it is a malloc'd
    buffer made larger as needed. Dealt hands have 27 cards, so MAX_MOVES always suffices
    (-1 otherwise)."""
    cdef GameState s
    cdef Bot bots[4]
    cdef MoveLog log
    cdef int r, hands = 0
    log.st = st
    log.rec = rec
    log.rec_cap = rec_cap
    log.rec_n = rec_n
    log.grow = grow
    if rec != NULL:
        rec_n[0] = 0
    match_start(&s, bots, seating, mseed, rules)
    while True:
        r = drive(&s, bots, seating, buf, it, log_move, &log)
        if r < 0:
            if r == DRIVE_NO_MOVE:
                st.errors += 1
            return r
        # A hand ended: s.last_* describe it.
        hands += 1
        st.hands += 1
        st.hand_wins[s.last_finish[0] & 1] += 1
        st.patterns[last_partner_place(&s) - 1] += 1
        if budget != NULL:
            budget[0] -= 1
        if r == DRIVE_MATCH_OVER:
            st.matches += 1
            st.team_wins[s.winner] += 1
            if hands > st.longest:
                st.longest = hands
            return 0
        if budget != NULL and budget[0] <= 0:
            st.truncated += 1
            if hands > st.longest:
                st.longest = hands
            return 1


cdef _stats_dict(SimStats* st):
    return {
        "matches": st.matches, "hands": st.hands, "plays": st.plays, "passes": st.passes,
        "cards": st.cards, "bombs": st.bombs,
        "team_wins": [st.team_wins[0], st.team_wins[1]],
        "hand_wins": [st.hand_wins[0], st.hand_wins[1]],
        "patterns": [st.patterns[0], st.patterns[1], st.patterns[2]],
        "longest": st.longest, "truncated": st.truncated, "errors": st.errors,
    }


cdef int _check_kinds(kinds, int* out) except -1:
    if len(kinds) != 4:
        raise ValueError(f"four agent kinds are needed, got {len(kinds)}")
    for p in range(4):
        k = kinds[p]
        if not (0 <= k < N_AGENT_KINDS):
            raise ValueError(f"unknown agent kind {k!r}")
        out[p] = k
    return 0


cdef Agents _agents(const int* ks, search):
    """The search contexts of the seats whose kind is a search agent (checked specs)."""
    cdef int p
    specs = [None] * 4
    for p in range(4):
        if ks[p] == AGENT_PIMC or ks[p] == AGENT_ISMCTS:
            if search is None or search[p] is None:
                raise ValueError(f"seat {p} plays a search agent: search[{p}] must give its "
                                 f"(name, parameters)")
            base, params = search[p]
            if AGENT_CODES.get(base) != ks[p]:
                raise ValueError(f"search[{p}] is {base!r}, not the agent of kind {ks[p]}")
            specs[p] = (base, params)
    return Agents(specs)


cdef long long _hand_budget(hand_budget) except -1:
    """A run's hand budget, checked (0: none)."""
    cdef long long budget
    if hand_budget is None:
        return 0
    budget = hand_budget
    if budget < 1:
        raise ValueError(f"hand_budget must be >= 1, got {hand_budget}")
    return budget


cdef class _ChunkRun:
    """What every entry point that plays matches sets up the same way, checked: the seats'
    agents and their seating, the Ctrl-C / cancel check, the hand budget. The caller keeps
    the object alive while its nogil loop reads ``seating``, ``it`` and ``budget_at``."""
    cdef int ks[4]
    cdef Agents agents
    cdef Seating seating
    cdef Interrupt it
    cdef unsigned char[::1] cancel_view   # holds the cancel buffer while ``it`` reads it
    cdef long long budget                 # hands left (the loop counts it down)
    cdef long long budget0                # the budget given (0: none)
    cdef long long* budget_at             # &budget, or NULL for no budget

    def __cinit__(self, kinds, search, hand_budget, cancel):
        cdef const unsigned char* flag = NULL
        _check_kinds(kinds, self.ks)
        self.agents = _agents(self.ks, search)
        seating_init(&self.seating, self.ks, self.agents.ctx, NULL)
        if cancel is not None:
            self.cancel_view = cancel
            if self.cancel_view.shape[0] < 1:
                raise ValueError("cancel must be a writable buffer of at least one byte")
            flag = &self.cancel_view[0]
        interrupt_init(&self.it, 1024, in_main_thread(), <const volatile unsigned char*>flag)
        self.budget0 = _hand_budget(hand_budget)
        self.budget = self.budget0
        self.budget_at = &self.budget if self.budget0 > 0 else NULL

    cdef bint spent(self) noexcept nogil:
        """The hand budget is used up."""
        return self.budget_at != NULL and self.budget <= 0


cdef int _check_range(long long start, long long stop) except -1:
    """A chunk's matches start..stop-1, checked."""
    if stop < start:
        raise ValueError(f"stop ({stop}) must not be below start ({start})")
    return 0


def run_chunk(long long start, long long stop, seed, kinds, rules=Rules(), hand_budget=None,
              search=None, cancel=None):
    """Play matches ``start .. stop-1`` of a run seeded ``seed`` between bots of ``kinds``
    (four ``AGENT_*`` codes by seat) without the GIL; returns the counters as a dict.
    ``search``: for the seats of search agents, four ``(name, parameters)`` pairs of
    ``search.parse_agent`` (None for the other seats).

    With ``hand_budget`` the chunk stops after that many hands in total (the match in
    progress then counts as ``truncated``, not in ``matches``). Ctrl-C (in the main thread)
    stops it within milliseconds, as does setting ``cancel[0]`` (``cancel``: a bytearray,
    shared with the thread that cancels); it then raises KeyboardInterrupt and the chunk's
    counts are discarded.

    >>> run_chunk(3, 3, 0, (0, 0, 0, 0))['hands']
    0
    """
    cdef SimStats st
    cdef GameRulesC rc = rules_to_c(rules)
    cdef u64 s64 = <u64>(seed & 0xFFFFFFFFFFFFFFFF)
    cdef long long i
    cdef int r = 0
    cdef u64* buf
    _check_range(start, stop)
    cdef _ChunkRun run = _ChunkRun(kinds, search, hand_budget, cancel)
    memset(&st, 0, sizeof(SimStats))
    buf = <u64*>malloc(2 * MAX_MOVES * sizeof(u64))
    if buf == NULL:
        raise MemoryError()
    try:
        with nogil:
            i = start
            while i < stop:
                r = play_match(match_seed_of(s64, i), &rc, &run.seating, &st, buf, run.budget_at,
                               NULL, NULL, NULL, False, &run.it)
                i += 1
                if r != 0 or run.spent():
                    break
        if r == -3:
            raise_pending(&run.it)
    finally:
        free(buf)
    if r == -1:
        raise RuntimeError(f"internal error in match {i - 1} of seed {seed}: no legal move")
    return _stats_dict(&st)


def record_match(seed, long long i, kinds, rules=Rules(), hand_budget=None, search=None):
    """Play match ``i`` of a run seeded ``seed`` and return ``(match_seed, actions, stats)``:
    ``actions`` an ``(n, 3)`` uint64 array of ``(seat, lo, hi)`` per action (tribute and back
    moves and PASSes included), replayable through any ``Game(seed=match_seed)``.

    >>> ms, actions, stats = record_match(0, 0, (2, 0, 2, 0))  # greedy, random, greedy, random
    >>> ms == match_seed(0, 0), actions.shape[1], stats['matches']
    (True, 3, 1)
    """
    cdef SimStats st
    cdef GameRulesC rc = rules_to_c(rules)
    cdef u64 s64 = <u64>(seed & 0xFFFFFFFFFFFFFFFF)
    cdef u64 ms = match_seed_of(s64, i)
    cdef long long rec_n = 0, cap = 3 * 4096
    cdef int r = -2
    cdef u64* buf
    cdef u64* recp
    cdef u64[::1] rec
    cdef _ChunkRun run = _ChunkRun(kinds, search, hand_budget, None)
    buf = <u64*>malloc(2 * MAX_MOVES * sizeof(u64))
    if buf == NULL:
        raise MemoryError()
    try:
        while r == -2:
            arr = np.zeros(cap, dtype=np.uint64)
            rec = arr
            memset(&st, 0, sizeof(SimStats))
            rec_n = 0
            run.budget = run.budget0      # a retry with a bigger buffer starts over
            recp = &rec[0]
            with nogil:
                r = play_match(ms, &rc, &run.seating, &st, buf, run.budget_at, &recp, &cap,
                               &rec_n, False, &run.it)
            if r == -3:
                raise_pending(&run.it)
            cap *= 4
    finally:
        free(buf)
    if r == -1:
        raise RuntimeError(f"internal error in match {i} of seed {seed}: no legal move")
    return int(ms), arr[:rec_n].reshape(-1, 3), _stats_dict(&st)




def record_chunk(long long start, long long stop, seed, kinds, headers, rules=Rules(),
                 hand_budget=None, search=None, cancel=None):
    """``run_chunk`` with the record: returns ``(record, counters)``, ``record`` the bytes of
    the JSON Lines of every match played (``headers[i - start]``, match ``i``'s header line
    as bytes with its newline, then its hand lines, ``record_lines``: the match replayed
    from its start and every move checked), all without the GIL, so threads record side by
    side. The lines are those of ``records.log_to_lines``.

    >>> from guandan_fast.game import Game
    >>> from guandan_fast.records import log_to_lines
    >>> data, stats = record_chunk(0, 1, 0, (2, 0, 2, 0), [b'{"header": 0}\\n'])
    >>> ms, actions, _ = record_match(0, 0, (2, 0, 2, 0))
    >>> lines = log_to_lines(Game, ms, Rules(), None, actions)
    >>> data.decode().splitlines()[1:] == lines[1:], stats['matches']
    (True, 1)
    """
    cdef SimStats st
    cdef GameRulesC rc = rules_to_c(rules)
    cdef GameState origin
    cdef u64 s64 = <u64>(seed & 0xFFFFFFFFFFFFFFFF)
    cdef u64 ms = 0
    cdef long long i, rec_n = 0, cap = 3 * 4096, bad = -1
    cdef int r = 0, w = LINES_OK
    cdef u64* buf = NULL
    cdef u64* rec = NULL
    cdef const char** head = NULL
    cdef Py_ssize_t* head_len = NULL
    cdef LineBuf out
    _check_range(start, stop)
    cdef _ChunkRun run = _ChunkRun(kinds, search, hand_budget, cancel)
    headers = list(headers)
    if len(headers) < stop - start or not all(type(h) is bytes for h in headers):
        raise ValueError(f"headers must be {stop - start} bytes objects, one per match")
    memset(&st, 0, sizeof(SimStats))
    out.data = NULL
    out.n = 0
    out.cap = 0
    try:
        buf = <u64*>malloc(2 * MAX_MOVES * sizeof(u64))
        rec = <u64*>malloc(cap * sizeof(u64))
        head = <const char**>malloc((stop - start + 1) * sizeof(char*))
        head_len = <Py_ssize_t*>malloc((stop - start + 1) * sizeof(Py_ssize_t))
        if buf == NULL or rec == NULL or head == NULL or head_len == NULL:
            raise MemoryError()
        for i in range(stop - start):
            head[i] = <bytes>headers[i]
            head_len[i] = len(<bytes>headers[i])
        with nogil:
            i = start
            while i < stop:
                ms = match_seed_of(s64, i)
                r = play_match(ms, &rc, &run.seating, &st, buf, run.budget_at, &rec, &cap, &rec_n,
                               True, &run.it)
                if r < 0:
                    break
                if linebuf_append(&out, head[i - start], head_len[i - start]) < 0:
                    w = LINES_NO_MEMORY
                    break
                game_init(&origin, ms, &rc)
                w = write_hand_lines(&origin, rec, rec_n // 3, &out, &bad)
                if w != LINES_OK:
                    break
                i += 1
                if r != 0 or run.spent():
                    break
        if r == -3:
            raise_pending(&run.it)
        if r == -2 or w == LINES_NO_MEMORY:
            raise MemoryError("no memory for the record of a match")
        if r == -1:
            raise RuntimeError(f"internal error in match {i} of seed {seed}: no legal move")
        if w != LINES_OK:
            raise RuntimeError(f"internal error in match {i} of seed {seed}: its log is "
                               f"refused at row {bad}")
        return PyBytes_FromStringAndSize(out.data, out.n), _stats_dict(&st)
    finally:
        free(buf)
        free(rec)
        free(head)
        free(head_len)
        linebuf_free(&out)

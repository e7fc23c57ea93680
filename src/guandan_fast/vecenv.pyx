# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""``VecEnv``: many Guandan tables stepped in one call, for learning loops (docs/learning.md).

Each table is a ``GameState`` plus the public history the encoders need, its bots and its
seed stream. ``step`` applies one learner decision per table, then (inside compiled code,
without the GIL, over ``threads`` OpenMP threads) plays the bot seats until a learner must
act again, starting the table's next match when one ends, and encodes that decision into
the env's batch buffers.

>>> env = VecEnv(4, seed=1)
>>> b = env.reset(); b.obs.shape, b.mask.shape, b.env_id.tolist()
((4, 536), (4, 501), [0, 1, 2, 3])
>>> env.step(b.cand_ids[b.cand_offsets[:-1]]); b = env.pending(); b.obs.shape
(4, 536)
"""
cimport cython
from cython.parallel cimport prange, threadid
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset, memcpy
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t

from guandan_fast.types cimport u64
from guandan_fast.rng cimport sm_next
from guandan_fast.movegen_core cimport MAX_MOVES
from guandan_fast.game_core cimport (GameState, GameRulesC, game_init, game_legal, game_apply,
                                     STEP_CONTINUE, STEP_MATCH_OVER, PH_PLAY, PH_OVER)
from guandan_fast.game cimport rules_to_c
from guandan_fast.bots cimport Bot, bot_init, bot_choose, agent_compact
from guandan_fast.actions cimport fill_legal_actions, N_ACTIONS, ACT_SCRATCH
from guandan_fast.observe cimport (Track, track_reset, track_play, encode_obs, encode_info,
                                   encode_danzero, cards_u8, cards_u8_danzero, OBS_SIZE,
                                   INFO_SIZE, DZ_STATE_SIZE)

cimport numpy as cnp
import numpy as np
from collections import namedtuple

from .rules import Rules
from .moves import IllegalMoveError

cnp.import_array()

cdef enum:
    ENC_NONE = 0
    ENC_DEFAULT = 1
    ENC_INFO = 2
    ENC_DANZERO = 3
    MODE_ABSTRACT = 0
    MODE_CANDIDATES = 1
    SCRATCH_U64 = 2 * MAX_MOVES     # per thread: a complete move list (>= 4 * ACT_SCRATCH)

cdef struct Result:
    int64_t match
    int32_t hand_number
    int8_t level
    int8_t declarer
    int8_t finish[4]
    int8_t levels[2]
    float reward[4]
    int8_t match_over
    int8_t match_winner

cdef struct Config:
    GameRulesC rules
    int8_t learner[4]
    int kinds[4]
    int encoder
    int dim
    int mode

cdef struct Table:
    GameState s
    Track t
    Bot bots[4]
    u64 stream             # SplitMix64 state: the next match's seed is its next output
    u64 mseed              # seed of the current match
    int64_t match          # matches started on this table - 1
    int32_t n_legal
    int32_t n_res
    int32_t error
    int32_t ids[N_ACTIONS]
    u64 words[2 * N_ACTIONS]
    Result res[4]


# ------------------------------------------------------------------------------------------
# One table (nogil)
# ------------------------------------------------------------------------------------------

cdef void new_match(Table* tb, const Config* cfg) noexcept nogil:
    cdef int p
    tb.mseed = sm_next(&tb.stream)
    tb.match += 1
    game_init(&tb.s, tb.mseed, &cfg.rules)
    for p in range(4):
        bot_init(&tb.bots[p], cfg.kinds[p], tb.mseed, p)
    track_reset(&tb.t)


cdef void record(Table* tb, const Config* cfg, int r) noexcept nogil:
    cdef GameState* s = &tb.s
    cdef Result* out
    cdef int i, f0, place, u, w
    if tb.n_res >= 4:
        tb.error = 2
        return
    out = &tb.res[tb.n_res]
    tb.n_res += 1
    out.match = tb.match
    out.hand_number = s.hand_number if r == STEP_MATCH_OVER else s.hand_number - 1
    out.level = s.last_level
    out.declarer = s.last_declarer
    for i in range(4):
        out.finish[i] = s.last_finish[i] if i < s.last_n_finished or s.last_n_finished == 3 else -1
    out.levels[0] = s.levels[0]
    out.levels[1] = s.levels[1]
    f0 = s.last_finish[0]
    place = 3
    for i in range(1, s.last_n_finished):
        if s.last_finish[i] == (f0 ^ 2):
            place = i
    u = cfg.rules.up[place - 1]
    w = f0 & 1
    for i in range(4):
        out.reward[i] = <float>(u if (i & 1) == w else -u)
    out.match_over = r == STEP_MATCH_OVER
    out.match_winner = s.winner if r == STEP_MATCH_OVER else -1


cdef void apply_move(Table* tb, const Config* cfg, u64 lo, u64 hi) noexcept nogil:
    cdef int seat = tb.s.current
    cdef int phase = tb.s.phase
    cdef int r = game_apply(&tb.s, lo, hi)
    if r == STEP_CONTINUE:
        if phase == PH_PLAY:
            track_play(&tb.t, seat, lo, hi)
        return
    record(tb, cfg, r)
    track_reset(&tb.t)


cdef void advance(Table* tb, const Config* cfg, u64* scratch) noexcept nogil:
    """Play bot seats (and start new matches) until a learner must act; list its actions."""
    cdef int p, n, i
    while True:
        if tb.s.phase == PH_OVER:
            new_match(tb, cfg)
        p = tb.s.current
        if cfg.learner[p]:
            tb.n_legal = fill_legal_actions(&tb.s, scratch, tb.ids, tb.words)
            if tb.n_legal <= 0:
                tb.error = 1
            return
        n = game_legal(&tb.s, agent_compact(cfg.kinds[p]), scratch, MAX_MOVES)
        if n <= 0:
            tb.error = 1
            return
        i = bot_choose(&tb.bots[p], &tb.s, scratch, n)
        apply_move(tb, cfg, scratch[2 * i], scratch[2 * i + 1])


cdef void encode(Table* tb, const Config* cfg, float* obs, uint8_t* mask) noexcept nogil:
    cdef int p = tb.s.current
    cdef int k
    if cfg.encoder == ENC_DEFAULT:
        encode_obs(&tb.s, &tb.t, p, obs)
    elif cfg.encoder == ENC_INFO:
        encode_info(&tb.s, &tb.t, p, obs)
    elif cfg.encoder == ENC_DANZERO:
        encode_danzero(&tb.s, &tb.t, p, obs)
    if cfg.mode == MODE_ABSTRACT:
        memset(mask, 0, N_ACTIONS)
        for k in range(tb.n_legal):
            mask[tb.ids[k]] = 1


cdef void table_step(Table* tb, const Config* cfg, int choice, u64* scratch, float* obs,
                     uint8_t* mask) noexcept nogil:
    """choice >= 0: apply the table's choice-th legal action; -1: (re)start, no move."""
    tb.n_res = 0
    if choice >= 0:
        apply_move(tb, cfg, tb.words[2 * choice], tb.words[2 * choice + 1])
    advance(tb, cfg, scratch)
    encode(tb, cfg, obs, mask)


cdef void fill_table(const Table* tb, int8_t* seat, int8_t* phase, int32_t* ids, u64* words,
                     uint8_t* cards, bint dz) noexcept nogil:
    cdef int k
    seat[0] = tb.s.current
    phase[0] = tb.s.phase
    memcpy(ids, tb.ids, tb.n_legal * sizeof(int32_t))
    memcpy(words, tb.words, 2 * tb.n_legal * sizeof(u64))
    if cards != NULL:
        for k in range(tb.n_legal):
            if dz:
                cards_u8_danzero(tb.words[2 * k], tb.words[2 * k + 1], cards + 54 * k)
            else:
                cards_u8(tb.words[2 * k], tb.words[2 * k + 1], cards + 54 * k)


# ------------------------------------------------------------------------------------------
# Python side
# ------------------------------------------------------------------------------------------

Batch = namedtuple("Batch", "obs mask cand_offsets cand_ids cand_words cand_cards env_id seat phase")
Batch.__doc__ = """The learner decisions of every table (docs/learning.md, section 3).

Zero-copy views of the env's buffers: valid until the env's next ``step``/``reset``."""

_ENCODERS = {None: ENC_NONE, "default": ENC_DEFAULT, "info": ENC_INFO, "danzero": ENC_DANZERO}
_MODES = {"abstract": MODE_ABSTRACT, "candidates": MODE_CANDIDATES}
_EMPTY = (("env_id", np.int32, 0), ("match", np.int64, 0), ("hand_number", np.int32, 0),
          ("level", np.int8, 0), ("declarer", np.int8, 0), ("finish", np.int8, (0, 4)),
          ("levels", np.int8, (0, 2)), ("reward", np.float32, (0, 4)),
          ("match_over", np.bool_, 0), ("match_winner", np.int8, 0))
_RESULT_FIELDS = ("env_id", "match", "hand_number", "level", "declarer", "finish", "levels",
                  "reward", "match_over", "match_winner")


cdef tuple _result_row(int env, const Result* r):
    return (env, r.match, r.hand_number, r.level, r.declarer,
            (r.finish[0], r.finish[1], r.finish[2], r.finish[3]), (r.levels[0], r.levels[1]),
            (r.reward[0], r.reward[1], r.reward[2], r.reward[3]), bool(r.match_over),
            r.match_winner)


def _table_stream(seed, long long i):
    from .simulate_core import match_seed
    return match_seed(seed, i)


@cython.final
cdef class VecEnv:
    """``num_envs`` Guandan tables stepped together (docs/learning.md).

    ``VecEnv(num_envs, *, seed, rules=Rules(), threads=1, learners=(0, 1, 2, 3),
    opponents='greedy', encoder='default', action_mode='abstract')``; ``reset()``, then
    ``pending()`` / ``step(actions)`` / ``drain_results()`` / ``fork(env_id, n)``.
    """
    cdef Table* tables
    cdef u64* scratch
    cdef Config cfg
    cdef readonly int num_envs
    cdef readonly int threads
    cdef readonly int obs_size
    cdef object _seed
    cdef object _rules
    cdef tuple _learners
    cdef tuple _opponents
    cdef object _encoder
    cdef object _mode
    cdef bint _started
    cdef bint _pending
    cdef object _obs, _mask, _offsets, _ids, _words, _cards, _env_id, _seat, _phase
    cdef Py_ssize_t _cap
    cdef list _results
    cdef int32_t* _choice

    def __cinit__(self):
        self.tables = NULL
        self.scratch = NULL
        self._choice = NULL

    def __dealloc__(self):
        free(self.tables)
        free(self.scratch)
        free(self._choice)

    def __init__(self, num_envs, *, seed, rules=Rules(), threads=1, learners=(0, 1, 2, 3),
                 opponents="greedy", encoder="default", action_mode="abstract"):
        from .bots import agent_kind
        cdef int p
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"seed must be an int, not {type(seed).__name__}")
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads must be an int >= 1, got {threads!r}")
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a guandan_fast.Rules, not {type(rules).__name__}")
        try:
            ls = tuple(learners)
        except TypeError:
            raise TypeError(f"learners must be a sequence of seats, not {type(learners).__name__}") from None
        if not ls or any(isinstance(q, bool) or not isinstance(q, int) or not 0 <= q <= 3
                         for q in ls) or len(set(ls)) != len(ls):
            raise ValueError(f"learners must be distinct seats 0..3 (at least one), got {learners!r}")
        if isinstance(opponents, str):
            opp = (opponents,) * 4
        else:
            opp = tuple(opponents)
            if len(opp) != 4:
                raise ValueError(f"opponents must be a bot name or 4 names, got {opponents!r}")
        kinds = [agent_kind(name) for name in opp]      # every name checked, learners' unused
        if encoder not in _ENCODERS:
            raise ValueError(f"encoder must be 'default', 'info', 'danzero' or None, got {encoder!r}")
        if action_mode not in _MODES:
            raise ValueError(f"action_mode must be 'abstract' or 'candidates', got {action_mode!r}")
        self.num_envs = num_envs
        self.threads = threads
        self._seed = seed
        self._rules = rules
        self._learners = ls
        self._opponents = opp
        self._encoder = encoder
        self._mode = action_mode
        self.cfg.rules = rules_to_c(rules)
        for p in range(4):
            self.cfg.learner[p] = p in ls
            self.cfg.kinds[p] = kinds[p]
        self.cfg.encoder = _ENCODERS[encoder]
        self.cfg.mode = _MODES[action_mode]
        self.obs_size = {ENC_NONE: 0, ENC_DEFAULT: OBS_SIZE, ENC_INFO: INFO_SIZE,
                         ENC_DANZERO: DZ_STATE_SIZE}[self.cfg.encoder]
        self.cfg.dim = self.obs_size
        self.tables = <Table*>calloc(num_envs, sizeof(Table))
        self.scratch = <u64*>malloc(threads * SCRATCH_U64 * sizeof(u64))
        self._choice = <int32_t*>malloc(num_envs * sizeof(int32_t))
        if self.tables == NULL or self.scratch == NULL or self._choice == NULL:
            raise MemoryError()
        n = num_envs
        self._obs = np.zeros((n, self.obs_size), dtype=np.float32)
        self._mask = np.zeros((n, N_ACTIONS), dtype=np.bool_) if self.cfg.mode == MODE_ABSTRACT else None
        self._offsets = np.zeros(n + 1, dtype=np.int64)
        self._env_id = np.arange(n, dtype=np.int32)
        self._seat = np.zeros(n, dtype=np.int8)
        self._phase = np.zeros(n, dtype=np.int8)
        self._cap = 0
        self._grow(64 * n)
        self._results = []
        self._started = False
        self._pending = False

    # -- buffers -----------------------------------------------------------------------------
    cdef _grow(self, Py_ssize_t need):
        if need <= self._cap:
            return
        cap = max(need, 2 * self._cap)
        self._ids = np.zeros(cap, dtype=np.int32)
        self._words = np.zeros((cap, 2), dtype=np.uint64)
        self._cards = (np.zeros((cap, 54), dtype=np.uint8)
                       if self.cfg.mode == MODE_CANDIDATES else None)
        self._cap = cap

    cdef _run(self, bint fresh):
        """Step every table (fresh: start it, no move) in compiled code, then build the CSR."""
        cdef Table* tabs = self.tables
        cdef Config* cfg = &self.cfg
        cdef u64* scratch = self.scratch
        cdef int32_t* choice = self._choice
        cdef int n = self.num_envs, i, k, nt = self.threads, dim = self.obs_size
        cdef float[:, ::1] obs = self._obs
        cdef float* obs_p = &obs[0, 0] if dim > 0 else NULL
        cdef uint8_t* mask_p = NULL
        cdef cnp.ndarray mask_arr
        cdef int64_t total
        cdef int64_t[::1] off = self._offsets
        if self.cfg.mode == MODE_ABSTRACT:
            mask_arr = self._mask
            mask_p = <uint8_t*>cnp.PyArray_DATA(mask_arr)
        with nogil:
            if nt == 1:
                for i in range(n):
                    table_step(&tabs[i], cfg, -1 if fresh else choice[i], scratch,
                               obs_p + <Py_ssize_t>i * dim if dim > 0 else NULL,
                               mask_p + <Py_ssize_t>i * N_ACTIONS if mask_p != NULL else NULL)
            else:
                for i in prange(n, num_threads=nt, schedule="dynamic", chunksize=8):
                    table_step(&tabs[i], cfg, -1 if fresh else choice[i],
                               scratch + <Py_ssize_t>threadid() * SCRATCH_U64,
                               obs_p + <Py_ssize_t>i * dim if dim > 0 else NULL,
                               mask_p + <Py_ssize_t>i * N_ACTIONS if mask_p != NULL else NULL)
            total = 0
            for i in range(n):
                off[i] = total
                total += tabs[i].n_legal
            off[n] = total
        for i in range(n):
            if tabs[i].error:
                raise RuntimeError(f"table {i}: internal error {tabs[i].error}")
            for k in range(tabs[i].n_res):
                self._results.append(_result_row(i, &tabs[i].res[k]))
        self._grow(total)
        self._fill_csr()

    cdef _fill_csr(self):
        """Copy every table's legal actions into the batch's CSR arrays (seat and phase too),
        over the env's threads (each table's rows are its own)."""
        cdef Table* tabs = self.tables
        cdef int n = self.num_envs, i, nt = self.threads
        cdef int32_t[::1] ids = self._ids
        cdef u64[:, ::1] words = self._words
        cdef uint8_t[:, ::1] cards
        cdef int8_t[::1] seat = self._seat
        cdef int8_t[::1] phase = self._phase
        cdef int64_t[::1] off = self._offsets
        cdef uint8_t* cards_p = NULL
        cdef bint dz = self.cfg.encoder == ENC_DANZERO
        if self.cfg.mode == MODE_CANDIDATES:
            cards = self._cards
            cards_p = &cards[0, 0]
        with nogil:
            # Ids and words are a few hundred bytes a table: one thread copies them faster
            # than a second parallel region (a second wake-up and barrier per step) would.
            # The 54-byte candidate rows are worth spreading over the threads.
            if nt == 1 or cards_p == NULL:
                for i in range(n):
                    fill_table(&tabs[i], &seat[i], &phase[i], &ids[off[i]], &words[off[i], 0],
                               cards_p + off[i] * 54 if cards_p != NULL else NULL, dz)
            else:
                for i in prange(n, num_threads=nt, schedule="dynamic", chunksize=16):
                    fill_table(&tabs[i], &seat[i], &phase[i], &ids[off[i]], &words[off[i], 0],
                               cards_p + off[i] * 54 if cards_p != NULL else NULL, dz)

    # -- API ---------------------------------------------------------------------------------
    def reset(self):
        """Start every table's first match (table ``i``'s seed stream from
        ``match_seed(seed, i)``); drop pending results. Returns ``pending()``."""
        cdef int i
        for i in range(self.num_envs):
            memset(&self.tables[i], 0, sizeof(Table))
            self.tables[i].stream = <u64>_table_stream(self._seed, i)
            self.tables[i].match = -1
            self.tables[i].s.phase = PH_OVER
        self._results = []
        self._run(True)
        self._started = True
        return self.pending()

    def pending(self):
        """The decisions every table waits for, as a ``Batch`` of views (valid until the next
        ``step``/``reset``)."""
        if not self._started:
            raise RuntimeError("call reset() first")
        self._pending = True
        c = self._offsets[self.num_envs]
        return Batch(self._obs, self._mask, self._offsets, self._ids[:c], self._words[:c],
                     None if self._cards is None else self._cards[:c], self._env_id,
                     self._seat, self._phase)

    def step(self, actions):
        """Apply one decision per table: ids (abstract mode) or candidate indices, an integer
        array of shape ``[num_envs]``. Everything is checked before any table moves."""
        cdef int n = self.num_envs, i, k, lo_k, hi_k, mid
        cdef int64_t a
        cdef Table* tb
        if not self._pending:
            raise RuntimeError("step() needs a pending() batch: call pending() (or reset()) "
                               "after each step")
        arr = actions if isinstance(actions, np.ndarray) else np.asarray(actions)
        if arr.dtype.kind not in "iu":
            raise TypeError(f"actions must be an integer array, got dtype {arr.dtype}")
        if arr.shape != (n,):
            raise ValueError(f"actions must have shape ({n},), got {arr.shape}")
        cdef const int64_t[::1] av = np.ascontiguousarray(arr, dtype=np.int64)
        for i in range(n):
            tb = &self.tables[i]
            a = av[i]
            if self.cfg.mode == MODE_CANDIDATES:
                if not 0 <= a < tb.n_legal:
                    raise ValueError(f"actions[{i}] = {a}: table {i} has {tb.n_legal} "
                                     f"candidates (0..{tb.n_legal - 1})")
                self._choice[i] = <int32_t>a
            else:
                if not 0 <= a < N_ACTIONS:
                    raise ValueError(f"actions[{i}] = {a}: action ids are 0..{N_ACTIONS - 1}")
                lo_k = 0
                hi_k = tb.n_legal
                while lo_k < hi_k:
                    mid = (lo_k + hi_k) >> 1
                    if tb.ids[mid] < a:
                        lo_k = mid + 1
                    else:
                        hi_k = mid
                if lo_k >= tb.n_legal or tb.ids[lo_k] != a:
                    from .actions import action_name
                    raise IllegalMoveError(f"actions[{i}] = {a} ({action_name(a)}) is not "
                                           f"legal at table {i}")
                self._choice[i] = lo_k
        self._pending = False
        self._run(False)

    def drain_results(self):
        """Every hand finished since the last call (by step, then table) as a dict of arrays
        (docs/learning.md); the results are then forgotten."""
        res = self._results
        self._results = []
        m = len(res)
        if m == 0:
            return {name: np.empty(shape, dtype=dt) for name, dt, shape in _EMPTY}
        cols = list(zip(*res))
        dtypes = (np.int32, np.int64, np.int32, np.int8, np.int8, np.int8, np.int8, np.float32,
                  np.bool_, np.int8)
        shapes = {"finish": (m, 4), "levels": (m, 2), "reward": (m, 4)}
        out = {}
        for name, col, dt in zip(_RESULT_FIELDS, cols, dtypes):
            out[name] = np.array(col, dtype=dt).reshape(shapes.get(name, (m,)))
        return out

    def match_seed(self, env_id):
        """The seed of table ``env_id``'s current match: ``Game(seed=...)`` deals the same."""
        cdef int i = self._check_env(env_id)
        return self.tables[i].mseed

    cdef int _check_env(self, env_id) except -1:
        if isinstance(env_id, bool) or not isinstance(env_id, (int, np.integer)):
            raise TypeError(f"env_id must be an int, not {type(env_id).__name__}")
        if not 0 <= env_id < self.num_envs:
            raise ValueError(f"env_id must be 0..{self.num_envs - 1}, got {env_id}")
        if not self._started:
            raise RuntimeError("call reset() first")
        return <int>env_id

    def fork(self, env_id, n):
        """A new ``VecEnv`` of ``n`` tables, each a copy of table ``env_id`` as it is now
        (game, history, bots, seed stream), with the same settings; its batch is pending."""
        cdef int src = self._check_env(env_id)
        cdef int i
        cdef VecEnv out
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be an int >= 1, got {n!r}")
        out = VecEnv(n, seed=self._seed, rules=self._rules, threads=self.threads,
                     learners=self._learners, opponents=self._opponents,
                     encoder=self._encoder, action_mode=self._mode)
        for i in range(n):
            memcpy(&out.tables[i], &self.tables[src], sizeof(Table))
        out._started = True
        # Re-encode in the new buffers (no move is made: the copied decision stays pending).
        out._encode_all()
        return out

    cdef _encode_all(self):
        cdef int i, dim = self.obs_size
        cdef float[:, ::1] obs = self._obs
        cdef uint8_t* mask_p = NULL
        cdef cnp.ndarray mask_arr
        cdef int64_t total = 0
        cdef int64_t[::1] off = self._offsets
        if self.cfg.mode == MODE_ABSTRACT:
            mask_arr = self._mask
            mask_p = <uint8_t*>cnp.PyArray_DATA(mask_arr)
        for i in range(self.num_envs):
            encode(&self.tables[i], &self.cfg, &obs[i, 0] if dim > 0 else NULL,
                   mask_p + <Py_ssize_t>i * N_ACTIONS if mask_p != NULL else NULL)
            off[i] = total
            total += self.tables[i].n_legal
        off[self.num_envs] = total
        self._grow(total)
        self._fill_csr()

    def __repr__(self):
        return (f"VecEnv({self.num_envs}, seed={self._seed!r}, threads={self.threads}, "
                f"learners={self._learners}, encoder={self._encoder!r}, "
                f"action_mode={self._mode!r})")

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""``VecEnv``: many Guandan tables stepped in one call, for learning loops (docs/learning.md).

Each table is a ``GameState`` plus the public history the encoders need, its bots and its
seed stream. ``step`` applies one learner decision per table, then (inside compiled code,
without the GIL, over ``threads`` threads of the env's own pool) plays the bot seats until a learner must
act again, starting the table's next match when one ends, and encodes that decision into
the env's batch buffers.

>>> env = VecEnv(4, seed=1)
>>> b = env.reset(); b.obs.shape, b.mask.shape, b.env_id.tolist()
((4, 536), (4, 501), [0, 1, 2, 3])
>>> env.step(b.cand_ids[b.cand_offsets[:-1]]); b = env.pending(); b.obs.shape
(4, 536)
"""
cimport cython
from cpython.object cimport PyObject
from libc.stdlib cimport malloc, calloc, free, realloc
from libc.string cimport memset, memcpy
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from guandan_fast.types cimport u64
from guandan_fast.rng cimport sm_next, match_seed_of
from guandan_fast.movegen_core cimport MAX_MOVES, HandCounts
from guandan_fast.game_core cimport (GameState, GameRulesC, STEP_CONTINUE, STEP_MATCH_OVER,
                                     PH_PLAY, PH_OVER, last_partner_place)
from guandan_fast.rules_core cimport rules_to_c
from guandan_fast.bots cimport Bot
from guandan_fast.driver cimport (Seating, seating_init, match_start, match_apply, drive,
                                  DRIVE_DECIDE)
from guandan_fast.actions cimport fill_legal_actions, N_ACTIONS, ACT_SCRATCH, A_PASS
from guandan_fast.observe cimport (Track, track_init, track_reset, track_play, encode_obs, encode_info,
                                   encode_danzero, cards_u8_rows, OBS_SIZE,
                                   INFO_SIZE, DZ_STATE_SIZE)
# The thread count of a step (1 or `threads`).
from guandan_fast.thread_chooser cimport Chooser, chooser_init, chooser_next, chooser_record
# The parallel step's thread pool (C, vec_pool.h).
from guandan_fast.vec_pool cimport (VecPool, vec_help_fn, VEC_MAX_COUNT, vec_pool_new,
                                    vec_pool_free, vec_pool_begin, vec_pool_spin, vec_pool_end,
                                    vec_pool_rest, vec_publish, vec_claim, vec_ctx, vec_done,
                                    vec_wait_done, vec_alloc64)

cimport numpy as cnp
import numpy as np
from collections import namedtuple

from .rules import Rules
from . import validate as _validate
from .moves import IllegalMoveError

cnp.import_array()

cdef enum:
    RECENT = 16               # the caller's last gaps between steps kept (the spin)

cdef enum:
    ENC_NONE = 0
    ENC_DEFAULT = 1
    ENC_INFO = 2
    ENC_DANZERO = 3
    MODE_ABSTRACT = 0
    MODE_CANDIDATES = 1
    SCRATCH_U64 = 2 * MAX_MOVES     # per thread: a complete move list (>= 4 * ACT_SCRATCH)
    SMALL_LIST = 4                  # legal lists this long or shorter (3 in 4) are copied to
                                    # the batch as one block of this many, past n included
    MAX_RES = 4                     # hand results one table can produce in one step

# More tables than this is refused (~12 KB each: 200 GB; and counts of tables times results
# or candidates stay far inside C ints).
MAX_ENVS = 1 << 24

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

cdef struct Row:                   # one row of drain_results
    int32_t env
    Result r

cdef struct Config:
    GameRulesC rules
    Seating seating        # the opponents' kinds; the learners are its listed seats
    int encoder
    int dim
    int mode
    bint auto_pass         # a learner whose only legal action is PASS passes in the step

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
    # The learner's legal action ids (n_legal), then 3 copies of the last one (set_mask and
    # vec_find_id read ids in blocks of 4)
    int32_t ids[N_ACTIONS + 3]
    u64 words[2 * N_ACTIONS]
    # Per seat, its hand as the move generator last broke it down (a seat that passed is asked
    # again with the same hand: 57 % of random play's decisions). Zeroed by reset() (no hand
    # held), refilled by generate_actions whenever the seat's hand or the level differs.
    HandCounts memo[4]
    Result res[MAX_RES]
    # Never written: the last line one thread writes of table i and the first line another
    # writes of table i + 1 are a line apart (no false sharing between neighbouring tables).
    char _gap[64]

cdef struct Span:
    # Tables [lo, hi) stepped in one claim, with their candidates and hand results; the lead
    # fills in where they go in the batch (off, roff) before the threads write it.
    int32_t lo, hi
    int32_t n_res
    int32_t _pad
    int64_t n_legal
    int64_t off
    int64_t roff

cdef struct Lane:
    # One thread's record of a parallel step, alone on its cache line (the threads write
    # their own Lane while the others run).
    Span* log              # the claims it stepped, in the order it claimed them
    int32_t n_log
    int32_t bad            # first table with an invalid action among those it checked, or -1
    int32_t err            # an internal error was seen
    int32_t at             # the lead's cursor in the log while it merges the logs
    char _pad[40]

cdef struct Job:
    # Everything one step's threads share (read-only for them except as described).
    Table* tabs
    const Config* cfg
    u64* scratch           # SCRATCH_U64 per thread
    Lane* lanes            # one per thread
    Span* order            # the lead: every claim of the step phase in table order
    int n_order
    int unit               # tables per piece of the check and step phases
    int n_units            # pieces: ceil(n / unit) <= VEC_MAX_COUNT
    const int64_t* act64   # the actions (one of act64 / act32), NULL when not stepping
    const int32_t* act32
    int32_t* choice        # table i's validated choice (index into its legal actions)
    float* obs
    uint8_t* mask
    int64_t* off
    int32_t* ids
    u64* words
    uint8_t* cards
    int32_t* env           # the batch's env_id: rewritten with the rest (a caller may write
                           # into the views; the next batch is whole again)
    int8_t* seat
    int8_t* phase
    Row* rows              # results are appended at rows[rbase ...]
    int64_t rbase
    int64_t cap            # CSR capacity (rows of ids / words / cards)
    int64_t total          # written by the lead: candidates of the step
    int64_t total_res      # written by the lead: results of the step
    int n
    int dim
    int fresh              # reset: start every table, no move
    int csr                # the candidates fit (total <= cap): the threads write them
    int bad                # written by the lead: first table with an invalid action, or -1
    int err                # written by the lead: an internal error was seen
    int nt_seen            # written by the lead: thread count of this step
    int dz


# ------------------------------------------------------------------------------------------
# One table (nogil)
# ------------------------------------------------------------------------------------------

cdef void new_match(Table* tb, const Config* cfg) noexcept nogil:
    tb.mseed = sm_next(&tb.stream)
    tb.match += 1
    match_start(&tb.s, tb.bots, &cfg.seating, tb.mseed, &cfg.rules)
    track_reset(&tb.t)


cdef void record(Table* tb, const Config* cfg, int r) noexcept nogil:
    cdef GameState* s = &tb.s
    cdef Result* out
    cdef int i, u, w
    if tb.n_res >= MAX_RES:
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
    u = cfg.rules.up[last_partner_place(s) - 1]
    w = s.last_finish[0] & 1
    for i in range(4):
        out.reward[i] = <float>(u if (i & 1) == w else -u)
    out.match_over = r == STEP_MATCH_OVER
    out.match_winner = s.winner if r == STEP_MATCH_OVER else -1


cdef int track_move(void* ctx, const GameState* s, u64 lo, u64 hi) noexcept nogil:
    """The driver's hook: the public history the encoders read (a hand's last move is
    tracked too, then cleared with the hand)."""
    if s.phase == PH_PLAY:
        track_play(&(<Table*>ctx).t, s.current, lo, hi)
    return 0


cdef void hand_over(Table* tb, const Config* cfg, int r) noexcept nogil:
    record(tb, cfg, r)
    track_reset(&tb.t)


cdef void advance(Table* tb, const Config* cfg, u64* scratch) noexcept nogil:
    """Play bot seats (and start new matches) until a learner must act; list its actions."""
    cdef int r
    while True:
        if tb.s.phase == PH_OVER:
            new_match(tb, cfg)
        r = drive(&tb.s, tb.bots, &cfg.seating, scratch, NULL, track_move, tb)
        if r == DRIVE_DECIDE:
            tb.n_legal = fill_legal_actions(&tb.s, scratch, tb.ids, tb.words,
                                            &tb.memo[tb.s.current])
            if tb.n_legal <= 0:
                tb.error = 1
                return
            tb.ids[tb.n_legal] = tb.ids[tb.n_legal + 1] = tb.ids[tb.n_legal + 2] = \
                tb.ids[tb.n_legal - 1]
            if not (cfg.auto_pass and tb.n_legal == 1 and tb.ids[0] == A_PASS):
                return
            # A forced pass (auto_pass): played here, as the learner would have to.
            track_move(tb, &tb.s, tb.words[0], tb.words[1])
            r = match_apply(&tb.s, &cfg.seating, tb.words[0], tb.words[1])
            if r == STEP_CONTINUE:
                continue
            if r < 0:
                tb.error = 1
                return
        if r < 0:
            tb.error = 1
            return
        hand_over(tb, cfg, r)


# A mask row cleared with 32-byte stores where the CPU has AVX (checked once at import; the
# module is built for any x86-64), else 16-byte ones: a memset of its 501 bytes becomes
# `rep stosq`, which starts slower than these 16 (or 32) stores. The AVX stores are a
# function of their own (gcc inlines no AVX code into the rest).
cdef extern from *:
    """
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    static inline void vec_zero_mask_sse(unsigned char *m, int n) {
        int i = 0;
    #if defined(__SSE2__)
        __m128i z = _mm_setzero_si128();
        #pragma GCC unroll 40
        for (; i + 16 <= n; i += 16) _mm_storeu_si128((__m128i *)(m + i), z);
        /* the last bytes: one store over the row's last 16 (n >= 16) */
        if (i < n && n >= 16) { _mm_storeu_si128((__m128i *)(m + n - 16), z); return; }
    #endif
        for (; i < n; i++) m[i] = 0;
    }
    #if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    #include <immintrin.h>
    #define VEC_AVX_PATH 1
    __attribute__((target("avx"))) static void vec_zero_mask_avx(unsigned char *m, int n) {
        int i = 0;
        __m256i z = _mm256_setzero_si256();
        #pragma GCC unroll 20
        for (; i + 32 <= n; i += 32) _mm256_storeu_si256((__m256i *)(m + i), z);
        if (i < n && n >= 32) { _mm256_storeu_si256((__m256i *)(m + n - 32), z); return; }
        for (; i < n; i++) m[i] = 0;
    }
    static int vec_avx = 0;
    static void vec_check_avx(void) {
        __builtin_cpu_init();
        vec_avx = __builtin_cpu_supports("avx") ? 1 : 0;
    }
    #else
    static void vec_check_avx(void) {}
    #endif
    static inline void vec_zero_mask(unsigned char *m, int n) {
    #ifdef VEC_AVX_PATH
        if (vec_avx) { vec_zero_mask_avx(m, n); return; }
    #endif
        vec_zero_mask_sse(m, n);
    }
    /* The first 4 legal actions' ids and words (SMALL_LIST in vecenv.pyx), with 16-byte
       moves. */
    static inline void vec_copy_small_list(int32_t *dids, unsigned long long *dwords,
                                           const int32_t *sids, const unsigned long long *swords) {
        int k;
    #if defined(__SSE2__)
        _mm_storeu_si128((__m128i *)dids, _mm_loadu_si128((const __m128i *)sids));
        for (k = 0; k < 4; k++)
            _mm_storeu_si128((__m128i *)(dwords + 2 * k), _mm_loadu_si128((const __m128i *)(swords + 2 * k)));
    #else
        for (k = 0; k < 4; k++) { dids[k] = sids[k]; dwords[2 * k] = swords[2 * k]; dwords[2 * k + 1] = swords[2 * k + 1]; }
    #endif
    }
    /* The index of id a among a table's n distinct legal ids, or -1. Four ids compared at a
       time, from the first (half the lists hold 4 ids or fewer, the median of the rest is
       4, and the longest ~500: a linear scan of 4-id blocks beats a binary search's
       unpredictable branches). Reads up to 3 ids past n: Table.ids has room for them. */
    static inline int vec_find_id(const int32_t *ids, int n, int32_t a) {
        int i;
    #if defined(__SSE2__)
        __m128i v = _mm_set1_epi32(a);
        for (i = 0; i < n; i += 4) {
            int m = _mm_movemask_ps(_mm_castsi128_ps(
                _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(ids + i)), v)));
            if (m) {
                i += __builtin_ctz(m);       /* ids past n may hold anything: */
                return i < n ? i : -1;       /* a match there is no match */
            }
        }
    #else
        for (i = 0; i < n; i++) if (ids[i] == a) return i;
    #endif
        return -1;
    }
    """
    void vec_zero_mask(uint8_t* m, int n) noexcept nogil
    void vec_check_avx() noexcept nogil
    int vec_find_id(const int32_t* ids, int n, int32_t a) noexcept nogil
    void copy_small_list "vec_copy_small_list"(int32_t* dids, u64* dwords, const int32_t* sids,
                                               const u64* swords) noexcept nogil

vec_check_avx()


cdef inline void zero_mask(uint8_t* mask) noexcept nogil:
    vec_zero_mask(mask, N_ACTIONS)


cdef inline void set_mask(uint8_t* mask, const int32_t* ids, int n) noexcept nogil:
    """mask[ids[k]] = 1 for k < n, four at a time: ids[n .. n + 2] repeat the last id (see
    Table.ids), so the last block needs no test. Three lists in four hold 4 ids or fewer:
    one pass, with no loop that ends at a different count from one table to the next."""
    cdef int k = 0
    if n <= 0:
        return
    while True:
        mask[ids[k]] = 1
        mask[ids[k + 1]] = 1
        mask[ids[k + 2]] = 1
        mask[ids[k + 3]] = 1
        k += 4
        if k >= n:
            break


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
        zero_mask(mask)
        set_mask(mask, tb.ids, tb.n_legal)


cdef void table_step(Table* tb, const Config* cfg, int choice, u64* scratch, float* obs,
                     uint8_t* mask) noexcept nogil:
    """choice >= 0: apply the table's choice-th legal action; -1: (re)start, no move."""
    cdef u64 lo, hi
    cdef int r
    tb.n_res = 0
    if choice >= 0:
        lo = tb.words[2 * choice]
        hi = tb.words[2 * choice + 1]
        track_move(tb, &tb.s, lo, hi)
        r = match_apply(&tb.s, &cfg.seating, lo, hi)
        if r != STEP_CONTINUE:
            hand_over(tb, cfg, r)
    advance(tb, cfg, scratch)
    encode(tb, cfg, obs, mask)


# ------------------------------------------------------------------------------------------
# One step over all tables (nogil): check, step, write the batch
# ------------------------------------------------------------------------------------------

cdef inline int check_action(Job* j, int i) noexcept nogil:
    """Validate table i's action into j.choice[i]: 0, or 1 (out of range), 2 (not legal)."""
    cdef const Table* tb = &j.tabs[i]
    cdef int64_t a = j.act64[i] if j.act64 != NULL else j.act32[i]
    cdef int k
    if j.cfg.mode == MODE_CANDIDATES:
        if not 0 <= a < tb.n_legal:
            return 1
        j.choice[i] = <int32_t>a
        return 0
    if not 0 <= a < N_ACTIONS:
        return 1
    k = vec_find_id(tb.ids, tb.n_legal, <int32_t>a)   # (forced moves too: no branch on it)
    if k < 0:
        return 2
    j.choice[i] = k
    return 0


cdef void step_range(Job* j, Span* sp, Lane* me, int lo, int hi, u64* scratch,
                     bint emit_now) noexcept nogil:
    """Step tables lo..hi-1: their candidate / result counts into sp, errors into the lane.
    emit_now (one thread, lo = 0): each table's batch entries are written right after its
    step, at offsets summed so far, while its lists are still in the core's first-level cache
    (the candidates where they fit: the caller grows the buffers and writes them again
    where they did not)."""
    # j's fields and the sums in locals: the mask's byte stores may alias anything, so gcc
    # would otherwise reload them through j (and store the sums) at every table.
    cdef Job jl = j[0]            # (emit's copy: see emit_span)
    cdef Table* tb = j.tabs + lo
    cdef const Config* cfg = j.cfg
    cdef const int32_t* choice = NULL if j.fresh else j.choice
    cdef Py_ssize_t dim = j.dim
    cdef float* obs = j.obs + lo * dim if dim > 0 else NULL
    cdef uint8_t* mask = j.mask + <Py_ssize_t>lo * N_ACTIONS if j.mask != NULL else NULL
    cdef int64_t n_legal = 0
    cdef int32_t n_res = 0, err = 0
    cdef int i
    for i in range(lo, hi):
        table_step(tb, cfg, -1 if choice == NULL else choice[i], scratch, obs, mask)
        if emit_now:
            emit(&jl, i, n_legal, n_res, n_legal + tb.n_legal <= jl.cap, True)
        n_legal += tb.n_legal
        n_res += tb.n_res
        err |= tb.error
        tb += 1
        if obs != NULL:
            obs += dim
        if mask != NULL:
            mask += N_ACTIONS
    sp.lo = lo
    sp.hi = hi
    sp.n_legal = n_legal
    sp.n_res = n_res
    me.err |= err


cdef inline void emit(Job* j, int i, int64_t o, int64_t r, bint csr, bint tail_free) noexcept nogil:
    """Table i's batch entries: offset o, seat, phase, its candidates at o (when csr) and
    its results at rows[rbase + r] (unless rows is NULL). tail_free: the SMALL_LIST - 1
    candidate rows past the table's own are written later by this thread (or spare)."""
    cdef const Table* tb = &j.tabs[i]
    cdef int k
    cdef Row* row
    j.off[i] = o
    j.env[i] = i
    j.seat[i] = tb.s.current
    j.phase[i] = tb.s.phase
    if csr and tail_free:
        # A short list (forced moves: ~half the decisions) as a block of SMALL_LIST, whatever
        # its length (no branch on it, no memcpy call): the rows past it are the next
        # table's, written after, or the buffers' spare rows.
        copy_small_list(j.ids + o, j.words + 2 * o, tb.ids, tb.words)
        if tb.n_legal > SMALL_LIST:
            memcpy(j.ids + o + SMALL_LIST, tb.ids + SMALL_LIST,
                   (tb.n_legal - SMALL_LIST) * sizeof(int32_t))
            memcpy(j.words + 2 * (o + SMALL_LIST), tb.words + 2 * SMALL_LIST,
                   2 * (tb.n_legal - SMALL_LIST) * sizeof(u64))
    elif csr:
        memcpy(j.ids + o, tb.ids, tb.n_legal * sizeof(int32_t))
        memcpy(j.words + 2 * o, tb.words, 2 * tb.n_legal * sizeof(u64))
    if csr:
        if j.cards != NULL:
            cards_u8_rows(tb.words, tb.n_legal, j.cards + 54 * o, j.dz)
    if j.rows == NULL:
        return
    for k in range(tb.n_res):
        row = &j.rows[j.rbase + r + k]
        row.env = i
        row.r = tb.res[k]


cdef void emit_span(Job* j, const Span* sp) noexcept nogil:
    cdef int i
    cdef int64_t o = sp.off, r = sp.roff
    # A local copy of the job: its fields stay in registers (the batch's byte stores, seat
    # and phase, may alias anything but a local whose address does not escape).
    cdef Job jl = j[0]
    cdef int64_t end = sp.off + sp.n_legal
    for i in range(sp.lo, sp.hi):
        # the rows past the span's are another claim's (written by another thread, maybe
        # before): a short list's block of SMALL_LIST rows only where it stays inside
        emit(&jl, i, o, r, jl.csr, o + SMALL_LIST <= end)
        o += jl.tabs[i].n_legal
        r += jl.tabs[i].n_res


# The phases of a parallel step (the pool's state word; 0: nothing to claim).
cdef enum:
    PHASE_CHECK = 1        # pieces: units of tables, whose actions are checked
    PHASE_STEP = 2         # pieces: units of tables, stepped
    PHASE_EMIT = 3         # pieces: the step phase's claims (Job.order), written to the batch
    # A claim of the step phase takes half of what is left, at most STEP_CAP tables: few
    # claims, each a compare-and-swap on a line both threads write (a line transfer when
    # the other thread claimed last: 75-700 ns here). Measured on 256 tables, 2 threads
    # against 1, interleaved (bench/RESULTS.md, session 12): a quarter, at most 16 tables
    # (~24 claims a step) 1.50-1.75x; half, at most 64 (~12) 1.55-1.88x, 1.16x on 64
    # tables (1.10x), 2.44x on 1,024 (2.26x); an eighth, at most 8: slower than a quarter.
    STEP_DIV = 2
    STEP_CAP = 64
    CHECK_DIV = 2          # checking is ~1/30 of stepping: half of what is left (few claims)
    EMIT_DIV = 2           # the batch: half of the step claims left (one at a time was
                           # ~20 claims a step, each a line transfer: no faster than 1 thread)


cdef void do_claim(Job* j, int tid, int phase, int first, int k) noexcept nogil:
    """The work of k pieces from first of the phase, on thread tid."""
    cdef Lane* me = &j.lanes[tid]
    cdef int i, lo, hi
    if phase == PHASE_EMIT:
        for i in range(first, first + k):
            emit_span(j, &j.order[i])
        return
    lo = first * j.unit
    hi = min((first + k) * j.unit, j.n)
    if phase == PHASE_CHECK:
        for i in range(lo, hi):
            if check_action(j, i):
                if me.bad < 0 or i < me.bad:
                    me.bad = i
                break
    else:
        step_range(j, &me.log[me.n_log], me, lo, hi,
                   j.scratch + <Py_ssize_t>tid * SCRATCH_U64, False)
        me.n_log += 1


cdef void vec_help(VecPool* p, int tid) noexcept nogil:
    """A worker's share of a phase: pieces from the back while there are any."""
    cdef int first, phase, k
    while True:
        k = vec_claim(p, 1, &first, &phase)
        if k == 0:
            return
        do_claim(<Job*>vec_ctx(p), tid, phase, first, k)
        vec_done(p, tid, k)


cdef void lead_phase(Job* j, VecPool* p, int phase, int count, int div, int cap) noexcept nogil:
    """The lead publishes a phase, claims pieces from the front while there are any, then
    waits for the pieces the workers hold."""
    cdef int first, ph, k
    vec_publish(p, phase, count, div, cap)
    while True:
        k = vec_claim(p, 0, &first, &ph)
        if k == 0:
            break
        do_claim(j, 0, ph, first, k)
        vec_done(p, 0, k)
    vec_wait_done(p)


cdef void merge_logs(Job* j, int nt) noexcept nogil:
    """Job.order: the step phase's claims in table order. The lead's log ascends (it claims
    from the front), each worker's descends (from the back): a merge of the reversed ones."""
    cdef int t, best, m = 0
    cdef int32_t lo
    cdef Lane* ln
    for t in range(nt):
        j.lanes[t].at = 0 if t == 0 else j.lanes[t].n_log - 1
    while True:
        best = -1
        for t in range(nt):
            ln = &j.lanes[t]
            if (t == 0 and ln.at < ln.n_log) or (t > 0 and ln.at >= 0):
                lo = ln.log[ln.at].lo
                if best < 0 or lo < j.lanes[best].log[j.lanes[best].at].lo:
                    best = t
        if best < 0:
            break
        ln = &j.lanes[best]
        j.order[m] = ln.log[ln.at]
        m += 1
        ln.at += 1 if best == 0 else -1
    j.n_order = m


cdef void run_parallel(Job* j, VecPool* p, int nt) noexcept nogil:
    """One step on the lead and nt - 1 workers: check, step, then write the batch at the
    offsets the lead sums from the step's claims (every phase waits for the one before)."""
    cdef int t, i
    cdef int64_t o = 0, r = 0
    for t in range(nt):
        j.lanes[t].bad = -1
        j.lanes[t].err = 0
        j.lanes[t].n_log = 0
    if not j.fresh:
        lead_phase(j, p, PHASE_CHECK, j.n_units, CHECK_DIV, VEC_MAX_COUNT)
        for t in range(nt):
            if j.lanes[t].bad >= 0 and (j.bad < 0 or j.lanes[t].bad < j.bad):
                j.bad = j.lanes[t].bad
        if j.bad >= 0:
            return                  # no table has moved
    lead_phase(j, p, PHASE_STEP, j.n_units, STEP_DIV, max(1, STEP_CAP // j.unit))
    for t in range(nt):
        j.err |= j.lanes[t].err
    merge_logs(j, nt)
    for i in range(j.n_order):
        j.order[i].off = o
        j.order[i].roff = r
        o += j.order[i].n_legal
        r += j.order[i].n_res
    j.total = o
    j.total_res = r
    j.off[j.n] = o
    j.csr = o <= j.cap              # else offsets only: the caller grows the buffers, copies
    if j.n_order > 0:
        lead_phase(j, p, PHASE_EMIT, j.n_order, EMIT_DIV, VEC_MAX_COUNT)


cdef void run_alone(Job* j) noexcept nogil:
    """One step on the calling thread alone: the actions checked, then each table stepped
    and written to the batch (without the pool)."""
    cdef Lane* me = &j.lanes[0]
    cdef Span sp
    cdef int i
    me.err = 0
    if not j.fresh:
        for i in range(j.n):
            if check_action(j, i):
                j.bad = i
                return
    step_range(j, &sp, me, 0, j.n, j.scratch, True)
    j.err = me.err
    j.total = sp.n_legal
    j.total_res = sp.n_res
    j.off[j.n] = sp.n_legal
    j.csr = sp.n_legal <= j.cap


# ------------------------------------------------------------------------------------------
# Python side
# ------------------------------------------------------------------------------------------

# module=: a namedtuple made in a compiled module takes the caller's module name
# (importlib._bootstrap here), and pickle looks the class up there and fails.
Batch = namedtuple("Batch", "obs mask cand_offsets cand_ids cand_words cand_cards env_id seat phase",
                   module=__name__)
Batch.__doc__ = """The learner decisions of every table (docs/learning.md, section 3).

Zero-copy views of the env's buffers: valid until the env's next ``step``/``reset``."""

_ENCODERS = {None: ENC_NONE, "default": ENC_DEFAULT, "info": ENC_INFO, "danzero": ENC_DANZERO}
_MODES = {"abstract": MODE_ABSTRACT, "candidates": MODE_CANDIDATES}
_RESULT_FIELDS = ("env_id", "match", "hand_number", "level", "declarer", "finish", "levels",
                  "reward", "match_over", "match_winner")


cdef extern from "numpy/arrayobject.h":
    # (not in numpy's .pxd: the array type object, and PyArray_New with a data pointer)
    ctypedef struct PyTypeObject:
        pass
    PyTypeObject PyArray_Type
    object PyArray_New(PyTypeObject* subtype, int nd, cnp.npy_intp* dims, int type_num,
                       cnp.npy_intp* strides, void* data, int itemsize, int flags, object obj)


cdef extern from *:
    """
    /* A tuple subclass's instance (the Batch namedtuple) of n items, as tuple.__new__(type,
       items) makes it (tp_alloc, then the items), without the call through Python's
       argument parsing and the tuple of arguments (~1,000 instructions a pending()). */
    static PyObject *vec_tuple_of(PyObject *type, PyObject **items, Py_ssize_t n) {
        PyTypeObject *t = (PyTypeObject *)type;
        PyObject *o = t->tp_alloc(t, n);
        Py_ssize_t i;
        if (o == NULL) return NULL;
        for (i = 0; i < n; i++) {
            Py_INCREF(items[i]);
            PyTuple_SET_ITEM(o, i, items[i]);
        }
        return o;
    }
    """
    object vec_tuple_of(object type, PyObject** items, Py_ssize_t n)


cdef inline object _head(cnp.ndarray a, Py_ssize_t c):
    """``a[:c]`` of a C-contiguous array, made directly (a view with ``a`` as its base):
    numpy's slicing (an index object parsed per call) took ~1 us of pending() per array."""
    cdef cnp.npy_intp dims[2]
    cdef cnp.ndarray v
    dims[0] = c
    dims[1] = cnp.PyArray_DIM(a, 1) if cnp.PyArray_NDIM(a) == 2 else 0
    v = PyArray_New(&PyArray_Type, cnp.PyArray_NDIM(a), dims, cnp.PyArray_TYPE(a), NULL,
                    cnp.PyArray_DATA(a), 0, cnp.NPY_ARRAY_CARRAY, None)
    cnp.set_array_base(v, a)
    return v


cdef inline cnp.ndarray _empty(int nd, Py_ssize_t m, Py_ssize_t w, int typenum):
    cdef cnp.npy_intp dims[2]
    dims[0] = m
    dims[1] = w
    return cnp.PyArray_EMPTY(nd, dims, typenum, 0)


@cython.final
cdef class VecEnv:
    """``num_envs`` Guandan tables stepped together (docs/learning.md).

    ``VecEnv(num_envs, *, seed, rules=Rules(), threads=1, learners=(0, 1, 2, 3),
    opponents='greedy', encoder='default', action_mode='abstract', adapt_threads=True,
    auto_pass=False)``; ``reset()``, then
    ``pending()`` / ``step(actions)`` / ``drain_results()`` / ``fork(env_id, n)``.
    """
    cdef Table* tables
    cdef u64* scratch
    cdef Lane* lanes              # one per thread
    cdef Span* logs               # their logs: n_units each
    cdef Span* order              # the step phase's claims in table order (n_units)
    cdef int unit, n_units        # tables per piece of a parallel step, pieces
    cdef VecPool* pool            # threads - 1 workers, started at the first parallel step
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
    cdef double _region_s         # wall time of the last step's compiled region
    cdef timespec _t_end          # when it ended (the caller's gap starts)
    cdef double _gaps[RECENT]     # the caller's last gaps between regions (s): the spin
    cdef int _gap_i, _gap_n
    cdef Chooser _ch              # the thread count (chooser_*)
    cdef object _obs, _mask, _offsets, _ids, _words, _cards, _env_id, _seat, _phase
    cdef Py_ssize_t _cap
    cdef int32_t* _choice
    cdef Row* _rows               # results not yet drained: _rows[0 .. _nrows)
    cdef int64_t _nrows, _rows_cap
    # Raw pointers to the arrays above (the env owns the arrays; _grow replaces them).
    cdef float* _obs_p
    cdef uint8_t* _mask_p
    cdef int64_t* _off_p
    cdef int32_t* _ids_p
    cdef u64* _words_p
    cdef uint8_t* _cards_p
    cdef int32_t* _env_p
    cdef int8_t* _seat_p
    cdef int8_t* _phase_p

    def __cinit__(self):
        self.tables = NULL
        self.scratch = NULL
        self.lanes = NULL
        self.logs = NULL
        self.order = NULL
        self.pool = NULL
        self._choice = NULL
        self._rows = NULL

    def __dealloc__(self):
        vec_pool_free(self.pool)
        free(self.tables)
        free(self.scratch)
        free(self.lanes)
        free(self.logs)
        free(self.order)
        free(self._choice)
        free(self._rows)

    def __init__(self, num_envs, *, seed, rules=Rules(), threads=1, learners=(0, 1, 2, 3),
                 opponents="greedy", encoder="default", action_mode="abstract",
                 adapt_threads=True, auto_pass=False):
        from .agents import parse_agents
        cdef int p
        cdef int ks[4]
        cdef int8_t listed[4]
        num_envs = _validate.check_count(num_envs, "num_envs", 1, MAX_ENVS)
        seed = _validate.check_seed(seed)
        threads = _validate.check_threads(threads)
        _validate.check_rules(rules)
        _validate.check_bool(adapt_threads, "adapt_threads")
        _validate.check_bool(auto_pass, "auto_pass")
        try:
            ls = tuple(learners)
        except TypeError:
            raise TypeError(f"learners must be a sequence of seats, not {type(learners).__name__}") from None
        if not ls or any(isinstance(q, bool) or not hasattr(type(q), "__index__")
                         or not 0 <= q <= 3 for q in ls) or len(set(ls)) != len(ls):
            raise ValueError(f"learners must be distinct seats 0..3 (at least one), got {learners!r}")
        if isinstance(opponents, str) and "," not in opponents:
            opponents = (opponents,) * 4
        # Every seat's agent checked (the learners' are unused): compiled bots only.
        parsed = parse_agents(opponents, 4, what="opponents", where="bot",
                              place="VecEnv (opponents)")
        opp = tuple(a.name for a in parsed)
        kinds = [a.code for a in parsed]
        if encoder not in _ENCODERS:
            raise ValueError(f"encoder must be 'default', 'info', 'danzero' or None, got {encoder!r}")
        if action_mode not in _MODES:
            raise ValueError(f"action_mode must be 'abstract' or 'candidates', got {action_mode!r}")
        self.num_envs = num_envs
        self.threads = threads
        chooser_init(&self._ch, threads, adapt_threads)
        self._seed = seed
        self._rules = rules
        self._learners = ls
        self._opponents = opp
        self._encoder = encoder
        self._mode = action_mode
        self.cfg.rules = rules_to_c(rules)
        for p in range(4):
            ks[p] = kinds[p]
            listed[p] = p in ls
        seating_init(&self.cfg.seating, ks, NULL, listed)
        self.cfg.encoder = _ENCODERS[encoder]
        self.cfg.mode = _MODES[action_mode]
        self.cfg.auto_pass = auto_pass
        self.obs_size = {ENC_NONE: 0, ENC_DEFAULT: OBS_SIZE, ENC_INFO: INFO_SIZE,
                         ENC_DANZERO: DZ_STATE_SIZE}[self.cfg.encoder]
        self.cfg.dim = self.obs_size
        self.tables = <Table*>vec_alloc64(num_envs * sizeof(Table))
        self.scratch = <u64*>vec_alloc64(threads * SCRATCH_U64 * sizeof(u64))
        self.lanes = <Lane*>vec_alloc64(threads * sizeof(Lane))
        # pieces of a parallel step: single tables, or more when they would not fit the
        # pool's 15-bit counts
        self.unit = 1 + (num_envs - 1) // VEC_MAX_COUNT
        self.n_units = (num_envs + self.unit - 1) // self.unit
        self.logs = <Span*>vec_alloc64(<size_t>threads * self.n_units * sizeof(Span))
        self.order = <Span*>vec_alloc64(self.n_units * sizeof(Span))
        self._choice = <int32_t*>vec_alloc64(num_envs * sizeof(int32_t))
        self.pool = vec_pool_new(threads - 1, vec_help)
        self._rows_cap = MAX_RES * num_envs
        self._rows = <Row*>malloc(self._rows_cap * sizeof(Row))
        if (self.tables == NULL or self.scratch == NULL or self.lanes == NULL
                or self.logs == NULL or self.order == NULL or self._choice == NULL
                or self._rows == NULL or self.pool == NULL):
            raise MemoryError(f"VecEnv({num_envs}): not enough memory for its tables "
                              f"({num_envs * sizeof(Table) / 2 ** 30:.1f} GiB)")
        for p in range(threads):
            self.lanes[p].log = self.logs + <Py_ssize_t>p * self.n_units
        self._nrows = 0
        n = num_envs
        self._obs = np.zeros((n, self.obs_size), dtype=np.float32)
        self._mask = np.zeros((n, N_ACTIONS), dtype=np.bool_) if self.cfg.mode == MODE_ABSTRACT else None
        self._offsets = np.zeros(n + 1, dtype=np.int64)
        self._env_id = np.arange(n, dtype=np.int32)
        self._seat = np.zeros(n, dtype=np.int8)
        self._phase = np.zeros(n, dtype=np.int8)
        self._obs_p = <float*>cnp.PyArray_DATA(<cnp.ndarray>self._obs) if self.obs_size > 0 else NULL
        self._mask_p = (<uint8_t*>cnp.PyArray_DATA(<cnp.ndarray>self._mask)
                        if self._mask is not None else NULL)
        self._off_p = <int64_t*>cnp.PyArray_DATA(<cnp.ndarray>self._offsets)
        self._env_p = <int32_t*>cnp.PyArray_DATA(<cnp.ndarray>self._env_id)
        self._seat_p = <int8_t*>cnp.PyArray_DATA(<cnp.ndarray>self._seat)
        self._phase_p = <int8_t*>cnp.PyArray_DATA(<cnp.ndarray>self._phase)
        self._cap = 0
        self._grow(64 * n)
        self._started = False
        self._pending = False

    # -- buffers -----------------------------------------------------------------------------
    cdef _grow(self, Py_ssize_t need):
        if need <= self._cap:
            return
        cap = max(need, 2 * self._cap)
        # (+ SMALL_LIST rows: emit writes a short list as a whole block of SMALL_LIST; the
        # batch's views stop at the candidates' count)
        self._ids = np.zeros(cap + SMALL_LIST, dtype=np.int32)
        self._words = np.zeros((cap + SMALL_LIST, 2), dtype=np.uint64)
        self._cards = (np.zeros((cap, 54), dtype=np.uint8)
                       if self.cfg.mode == MODE_CANDIDATES else None)
        self._ids_p = <int32_t*>cnp.PyArray_DATA(<cnp.ndarray>self._ids)
        self._words_p = <u64*>cnp.PyArray_DATA(<cnp.ndarray>self._words)
        self._cards_p = (<uint8_t*>cnp.PyArray_DATA(<cnp.ndarray>self._cards)
                         if self._cards is not None else NULL)
        self._cap = cap

    cdef void _job(self, Job* j) noexcept:
        memset(j, 0, sizeof(Job))
        j.tabs = self.tables
        j.cfg = &self.cfg
        j.scratch = self.scratch
        j.lanes = self.lanes
        j.order = self.order
        j.unit = self.unit
        j.n_units = self.n_units
        j.choice = self._choice
        j.obs = self._obs_p
        j.mask = self._mask_p
        j.off = self._off_p
        j.ids = self._ids_p
        j.words = self._words_p
        j.cards = self._cards_p
        j.env = self._env_p
        j.seat = self._seat_p
        j.phase = self._phase_p
        j.rows = self._rows
        j.rbase = self._nrows
        j.cap = self._cap
        j.n = self.num_envs
        j.dim = self.obs_size
        j.dz = self.cfg.encoder == ENC_DANZERO
        j.bad = -1

    cdef int _run(self, Job* j) except -2:
        """Run one step (j.fresh: start every table) over the env's threads. Returns the first
        table with an invalid action (nothing moved), or -1 when every table stepped."""
        cdef int i, nt = chooser_next(&self._ch)
        cdef int64_t need = self._nrows + <int64_t>MAX_RES * self.num_envs
        cdef Row* rows
        cdef timespec t0, t1
        if need > self._rows_cap:        # room for this step's results (the body can't grow it)
            rows = <Row*>realloc(self._rows, max(need, 2 * self._rows_cap) * sizeof(Row))
            if rows == NULL:
                raise MemoryError()
            self._rows = rows
            self._rows_cap = max(need, 2 * self._rows_cap)
            j.rows = rows
        clock_gettime(CLOCK_MONOTONIC, &t0)
        if self._t_end.tv_sec != 0 or self._t_end.tv_nsec != 0:   # not the first region
            self._note_gap((t0.tv_sec - self._t_end.tv_sec)
                           + (t0.tv_nsec - self._t_end.tv_nsec) * 1e-9)
        if nt == 1 and self.threads > 1:
            vec_pool_rest(self.pool)     # this step on the lead alone (_note_gap sets the
                                         # spin again before the next step)
        with nogil:
            if nt > 1:
                nt = vec_pool_begin(self.pool, nt, j)
            if nt > 1:
                run_parallel(j, self.pool, nt)
                vec_pool_end(self.pool)
            else:
                run_alone(j)
        clock_gettime(CLOCK_MONOTONIC, &t1)
        self._t_end = t1
        self._region_s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9
        j.nt_seen = nt
        if j.bad >= 0:
            return j.bad
        if not j.fresh:                  # a reset's region deals too: not a typical step
            chooser_record(&self._ch, nt, self._region_s)
        if j.err:
            for i in range(self.num_envs):
                if self.tables[i].error:
                    raise RuntimeError(f"table {i}: internal error {self.tables[i].error}")
        self._nrows += j.total_res
        if j.total > self._cap:          # the candidates did not fit: grow, then copy
            self._grow(j.total)
            self._emit_all(j)
        return -1

    cdef void _note_gap(self, double gap) noexcept:
        """The caller's time between two regions: the workers spin through the upper
        quartile of the last RECENT gaps when it is short, nap through regular long ones
        (vec_pool_spin; the default spin until 4 gaps are known). Sets the spin at every
        step, so that a step on the lead alone (vec_pool_rest) holds for that step only."""
        cdef double buf[RECENT]
        cdef double v
        cdef int i, k
        self._gaps[self._gap_i] = gap
        self._gap_i = (self._gap_i + 1) % RECENT
        self._gap_n = min(self._gap_n + 1, RECENT)
        if self.threads == 1:
            return
        if self._gap_n < 4:
            vec_pool_spin(self.pool, 0, 0)
            return
        for i in range(self._gap_n):        # insertion sort of a copy (at most RECENT)
            v = self._gaps[i]
            k = i
            while k > 0 and buf[k - 1] > v:
                buf[k] = buf[k - 1]
                k -= 1
            buf[k] = v
        vec_pool_spin(self.pool, <long long>(buf[(3 * self._gap_n) // 4] * 1e9),
                      <long long>(buf[self._gap_n // 4] * 1e9))

    @property
    def threads_in_use(self):
        """Threads the steps run on now: ``threads``, or 1 while one thread is faster (the
        machine busy; ``adapt_threads=False`` keeps ``threads``)."""
        return self._ch.mode

    cdef _emit_all(self, Job* j):
        """The batch's candidate lists (and seats, phases), on the calling thread."""
        cdef int i
        cdef int64_t o = 0
        j.ids = self._ids_p
        j.words = self._words_p
        j.cards = self._cards_p
        j.cap = self._cap
        j.rows = NULL                    # results: written by the step already, or none
        for i in range(self.num_envs):
            emit(j, i, o, 0, True, True)
            o += self.tables[i].n_legal
        self._off_p[self.num_envs] = o

    # -- API ---------------------------------------------------------------------------------
    def reset(self):
        """Start every table's first match (table ``i``'s seed stream from
        ``match_seed(seed, i)``); drop pending results. Returns ``pending()``."""
        cdef int i
        cdef Job j
        for i in range(self.num_envs):
            memset(&self.tables[i], 0, sizeof(Table))
            track_init(&self.tables[i].t, self.cfg.encoder == ENC_DANZERO)
            self.tables[i].stream = match_seed_of(<u64>(self._seed & 0xFFFFFFFFFFFFFFFF), i)
            self.tables[i].match = -1
            self.tables[i].s.phase = PH_OVER
        self._nrows = 0
        self._job(&j)
        j.fresh = 1
        self._run(&j)
        self._started = True
        return self.pending()

    def pending(self):
        """The decisions every table waits for, as a ``Batch`` of views (valid until the next
        ``step``/``reset``)."""
        if not self._started:
            raise RuntimeError("call reset() first")
        self._pending = True
        c = self._off_p[self.num_envs]
        # (the namedtuple's own __new__ is a Python function: a frame per call)
        cdef object ids = _head(self._ids, c), words = _head(self._words, c)
        cdef object cards = None if self._cards is None else _head(self._cards, c)
        cdef PyObject* items[9]
        items[0] = <PyObject*>self._obs
        items[1] = <PyObject*>self._mask
        items[2] = <PyObject*>self._offsets
        items[3] = <PyObject*>ids
        items[4] = <PyObject*>words
        items[5] = <PyObject*>cards
        items[6] = <PyObject*>self._env_id
        items[7] = <PyObject*>self._seat
        items[8] = <PyObject*>self._phase
        return vec_tuple_of(Batch, items, 9)

    def step(self, actions):
        """Apply one decision per table: ids (abstract mode) or candidate indices, an integer
        array of shape ``[num_envs]``. Everything is checked before any table moves."""
        cdef int n = self.num_envs, i
        cdef int64_t a
        cdef cnp.ndarray arr
        cdef Job j
        if not self._pending:
            raise RuntimeError("step() needs a pending() batch: call pending() (or reset()) "
                               "after each step")
        arr = actions if type(actions) is np.ndarray else np.asarray(actions)
        if not cnp.PyArray_ISINTEGER(arr):
            raise TypeError(f"actions must be an integer array, got dtype {(<object>arr).dtype}")
        if arr.ndim != 1 or arr.shape[0] != n:
            raise ValueError(f"actions must have shape ({n},), got {(<object>arr).shape}")
        self._job(&j)
        # int64 and int32 (what cand_ids holds) are read in place; other integer types are
        # converted once (wrapping as numpy's cast does, then rejected as out of range).
        if cnp.PyArray_ISCARRAY_RO(arr) and cnp.PyArray_TYPE(arr) == cnp.NPY_INT64:
            j.act64 = <const int64_t*>cnp.PyArray_DATA(arr)
        elif cnp.PyArray_ISCARRAY_RO(arr) and cnp.PyArray_TYPE(arr) == cnp.NPY_INT32:
            j.act32 = <const int32_t*>cnp.PyArray_DATA(arr)
        else:
            arr = np.ascontiguousarray(arr, dtype=np.int64)
            j.act64 = <const int64_t*>cnp.PyArray_DATA(arr)
        i = self._run(&j)
        if i >= 0:
            a = j.act64[i] if j.act64 != NULL else j.act32[i]
            self._raise_bad(i, a)
        self._pending = False

    cdef _raise_bad(self, int i, int64_t a):
        cdef Table* tb = &self.tables[i]
        if self.cfg.mode == MODE_CANDIDATES:
            raise ValueError(f"actions[{i}] = {a}: table {i} has {tb.n_legal} "
                             f"candidates (0..{tb.n_legal - 1})")
        if not 0 <= a < N_ACTIONS:
            raise ValueError(f"actions[{i}] = {a}: action ids are 0..{N_ACTIONS - 1}")
        from .actions import action_name
        raise IllegalMoveError(f"actions[{i}] = {a} ({action_name(a)}) is not "
                               f"legal at table {i}")

    def drain_results(self):
        """Every hand finished since the last call (by step, then table) as a dict of arrays
        (docs/learning.md); the results are then forgotten."""
        cdef Py_ssize_t m = self._nrows, k
        cdef int c
        cdef const Row* row
        cdef cnp.ndarray env_id = _empty(1, m, 0, cnp.NPY_INT32)
        cdef cnp.ndarray match = _empty(1, m, 0, cnp.NPY_INT64)
        cdef cnp.ndarray hand = _empty(1, m, 0, cnp.NPY_INT32)
        cdef cnp.ndarray level = _empty(1, m, 0, cnp.NPY_INT8)
        cdef cnp.ndarray declarer = _empty(1, m, 0, cnp.NPY_INT8)
        cdef cnp.ndarray finish = _empty(2, m, 4, cnp.NPY_INT8)
        cdef cnp.ndarray levels = _empty(2, m, 2, cnp.NPY_INT8)
        cdef cnp.ndarray reward = _empty(2, m, 4, cnp.NPY_FLOAT32)
        cdef cnp.ndarray over = _empty(1, m, 0, cnp.NPY_BOOL)
        cdef cnp.ndarray winner = _empty(1, m, 0, cnp.NPY_INT8)
        cdef int32_t* p_env = <int32_t*>cnp.PyArray_DATA(env_id)
        cdef int64_t* p_match = <int64_t*>cnp.PyArray_DATA(match)
        cdef int32_t* p_hand = <int32_t*>cnp.PyArray_DATA(hand)
        cdef int8_t* p_level = <int8_t*>cnp.PyArray_DATA(level)
        cdef int8_t* p_decl = <int8_t*>cnp.PyArray_DATA(declarer)
        cdef int8_t* p_fin = <int8_t*>cnp.PyArray_DATA(finish)
        cdef int8_t* p_lev = <int8_t*>cnp.PyArray_DATA(levels)
        cdef float* p_rew = <float*>cnp.PyArray_DATA(reward)
        cdef uint8_t* p_over = <uint8_t*>cnp.PyArray_DATA(over)
        cdef int8_t* p_win = <int8_t*>cnp.PyArray_DATA(winner)
        for k in range(m):
            row = &self._rows[k]
            p_env[k] = row.env
            p_match[k] = row.r.match
            p_hand[k] = row.r.hand_number
            p_level[k] = row.r.level
            p_decl[k] = row.r.declarer
            for c in range(4):
                p_fin[4 * k + c] = row.r.finish[c]
                p_rew[4 * k + c] = row.r.reward[c]
            p_lev[2 * k] = row.r.levels[0]
            p_lev[2 * k + 1] = row.r.levels[1]
            p_over[k] = row.r.match_over != 0
            p_win[k] = row.r.match_winner
        self._nrows = 0
        return {"env_id": env_id, "match": match, "hand_number": hand, "level": level,
                "declarer": declarer, "finish": finish, "levels": levels, "reward": reward,
                "match_over": over, "match_winner": winner}

    @property
    def _last_region_seconds(self):
        """Wall time of the last step's compiled region (checks, stepping, the batch): the
        part that runs over the threads (bench/bench_vecenv.py --split)."""
        return self._region_s

    def match_seed(self, env_id):
        """The seed of table ``env_id``'s current match: ``Game(seed=...)`` deals the same."""
        cdef int i = self._check_env(env_id)
        return self.tables[i].mseed

    cdef int _check_env(self, env_id) except -1:
        env_id = _validate.as_int(env_id, "env_id")
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
        n = _validate.check_count(n, "n", 1)
        out = VecEnv(n, seed=self._seed, rules=self._rules, threads=self.threads,
                     learners=self._learners, opponents=self._opponents,
                     encoder=self._encoder, action_mode=self._mode,
                     adapt_threads=bool(self._ch.adapt) or self.threads == 1,
                     auto_pass=bool(self.cfg.auto_pass))
        for i in range(n):
            memcpy(&out.tables[i], &self.tables[src], sizeof(Table))
        out._started = True
        # Re-encode in the new buffers (no move is made: the copied decision stays pending).
        out._encode_all()
        return out

    cdef _encode_all(self):
        cdef int i
        cdef int64_t total = 0
        cdef Job j
        for i in range(self.num_envs):
            encode(&self.tables[i], &self.cfg,
                   self._obs_p + <Py_ssize_t>i * self.obs_size if self.obs_size > 0 else NULL,
                   self._mask_p + <Py_ssize_t>i * N_ACTIONS if self._mask_p != NULL else NULL)
            total += self.tables[i].n_legal
        self._grow(total)
        self._job(&j)
        self._emit_all(&j)

    def __repr__(self):
        return (f"VecEnv({self.num_envs}, seed={self._seed!r}, threads={self.threads}, "
                f"learners={self._learners}, encoder={self._encoder!r}, "
                f"action_mode={self._mode!r}, auto_pass={bool(self.cfg.auto_pass)})")

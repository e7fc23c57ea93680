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
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset, memcpy
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t

from guandan_fast.types cimport u64
from guandan_fast.rng cimport sm_next, match_seed_of
from guandan_fast.movegen_core cimport MAX_MOVES
from guandan_fast.game_core cimport (GameState, GameRulesC, STEP_CONTINUE, STEP_MATCH_OVER,
                                     PH_PLAY, PH_OVER, last_partner_place)
from guandan_fast.rules_core cimport rules_to_c
from guandan_fast.bots cimport Bot
from guandan_fast.driver cimport (Seating, seating_init, match_start, match_apply, drive,
                                  DRIVE_DECIDE)
from guandan_fast.actions cimport fill_legal_actions, N_ACTIONS, ACT_SCRATCH, A_PASS
from guandan_fast.observe cimport (Track, track_reset, track_play, encode_obs, encode_info,
                                   encode_danzero, cards_u8, cards_u8_danzero, OBS_SIZE,
                                   INFO_SIZE, DZ_STATE_SIZE)

cimport numpy as cnp
import numpy as np
from collections import namedtuple

from .rules import Rules
from . import validate as _validate
from .moves import IllegalMoveError

cnp.import_array()

# The parallel step is one run of a thread pool of the env's own (below) whose body
# (vec_body) runs three phases separated by barriers: check the actions, step the tables,
# write the batch. Its waits spin for a short while (SPIN_NS), then sleep on a futex: a
# step's threads meet four times (start, two barriers, end) within ~60 µs on an idle
# machine, where spinning makes them cheap, while on a busy machine a thread that waits
# for a descheduled one gives its core away after the spin instead of holding it for
# milliseconds (libgomp's default policy spins up to 300,000 rounds: 0.01-0.02x of one
# thread's rate with 2 threads and one other busy process).
from libc.stdlib cimport realloc
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

cdef extern from *:
    """
    #include <stdlib.h>
    #include <string.h>
    #include <pthread.h>
    #include <unistd.h>
    #include <limits.h>
    #include <time.h>
    #include <linux/futex.h>
    #include <sys/syscall.h>
    typedef void (*vec_body_fn)(void *, int, int);

    /* Nanoseconds a waiting thread spins before it sleeps: covers the gaps of a step (its
       barriers) and the caller's Python between steps on an idle machine (~10 µs at 256
       tables), and costs a busy machine at most this per wait. */
    #define VEC_SPIN_NS 50000

    static long vec_futex(int *addr, int op, int val) {
        return syscall(SYS_futex, addr, op, val, NULL, NULL, 0);
    }
    static long long vec_now_ns(void) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
    }
    static inline void vec_pause(void) {
    #if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
    #endif
    }
    /* Wait while *word == val: spin up to VEC_SPIN_NS, then sleep. A waker stores a new value
       and wakes only when *sleepers is not zero (both sequentially consistent: either the
       waker sees the sleeper counted, or the sleeper sees the new value). */
    static void vec_wait(int *word, int val, int *sleepers) {
        long long until = 0;
        int i;
        for (;;) {
            for (i = 0; i < 64; i++) {
                if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != val) return;
                vec_pause();
            }
            if (until == 0) until = vec_now_ns() + VEC_SPIN_NS;
            else if (vec_now_ns() > until) break;
        }
        __atomic_add_fetch(sleepers, 1, __ATOMIC_SEQ_CST);
        while (__atomic_load_n(word, __ATOMIC_SEQ_CST) == val)
            vec_futex(word, FUTEX_WAIT_PRIVATE, val);
        __atomic_sub_fetch(sleepers, 1, __ATOMIC_SEQ_CST);
    }
    static void vec_wake(int *word, int *sleepers) {
        if (__atomic_load_n(sleepers, __ATOMIC_SEQ_CST))
            vec_futex(word, FUTEX_WAKE_PRIVATE, INT_MAX);
    }

    /* The pool: the calling thread is thread 0, workers 1..started. Each field a thread
       writes while others read sits on its own cache line. */
    typedef struct {
        int gen;                 /* bumped per run (futex word of the idle workers) */
        int gen_sleepers;
        int quit;
        int nt;                  /* threads of the current run */
        vec_body_fn body;
        void *ctx;
        int pending __attribute__((aligned(64)));  /* workers not done (thread 0 waits) */
        int pending_sleepers;
        int bar_count __attribute__((aligned(64)));  /* arrivals at the current barrier */
        int bar_gen;             /* bumped when a barrier opens (futex word) */
        int bar_sleepers;
        int size __attribute__((aligned(64)));  /* workers wanted (threads - 1) */
        int started;             /* workers running */
        pid_t owner;             /* the process that started them (a fork child has none) */
        pthread_t *tids;
    } VecPool;

    typedef struct { VecPool *p; int k; int seen; } VecWorkerArg;

    static void *vec_worker(void *arg) {
        VecPool *p = ((VecWorkerArg *)arg)->p;
        int k = ((VecWorkerArg *)arg)->k;
        int seen = ((VecWorkerArg *)arg)->seen;   /* the runs before it started */
        free(arg);
        for (;;) {
            vec_wait(&p->gen, seen, &p->gen_sleepers);
            seen = __atomic_load_n(&p->gen, __ATOMIC_ACQUIRE);
            if (__atomic_load_n(&p->quit, __ATOMIC_ACQUIRE)) return NULL;
            if (k < p->nt) p->body(p->ctx, k, p->nt);
            if (__atomic_sub_fetch(&p->pending, 1, __ATOMIC_SEQ_CST) == 0)
                vec_wake(&p->pending, &p->pending_sleepers);
        }
    }

    static VecPool *vec_pool_new(int size) {
        VecPool *p = NULL;
        if (posix_memalign((void **)&p, 64, sizeof(VecPool)) != 0) return NULL;
        memset(p, 0, sizeof(VecPool));
        p->size = size;
        p->tids = (pthread_t *)calloc(size > 0 ? size : 1, sizeof(pthread_t));
        if (p->tids == NULL) { free(p); return NULL; }
        return p;
    }
    /* Start the workers (again in a fork child, which has none); as many as can be. */
    static void vec_pool_start(VecPool *p) {
        pid_t me = getpid();
        if (p->owner == me && p->started == p->size) return;
        if (p->owner != me) {       /* a fork child: the parent's workers are not here */
            p->started = 0;
            p->gen = 0; p->gen_sleepers = 0; p->quit = 0;
            p->pending = 0; p->pending_sleepers = 0;
            p->bar_count = 0; p->bar_gen = 0; p->bar_sleepers = 0;
            p->owner = me;
        }
        while (p->started < p->size) {
            VecWorkerArg *a = (VecWorkerArg *)malloc(sizeof(VecWorkerArg));
            if (a == NULL) break;
            a->p = p;
            a->k = p->started + 1;
            a->seen = p->gen;       /* no run is in progress: gen is stable here */
            if (pthread_create(&p->tids[p->started], NULL, vec_worker, a) != 0) { free(a); break; }
            p->started++;
        }
    }
    static void vec_pool_free(VecPool *p) {
        int i;
        if (p == NULL) return;
        if (p->owner == getpid() && p->started > 0) {
            __atomic_store_n(&p->quit, 1, __ATOMIC_SEQ_CST);
            __atomic_add_fetch(&p->gen, 1, __ATOMIC_SEQ_CST);
            vec_futex(&p->gen, FUTEX_WAKE_PRIVATE, INT_MAX);
            for (i = 0; i < p->started; i++) pthread_join(p->tids[i], NULL);
        }
        free(p->tids);
        free(p);
    }
    /* body(ctx, thread id, thread count) on min(nt, 1 + started workers) threads; returns the
       count used. */
    static int vec_pool_run(VecPool *p, int nt, vec_body_fn body, void *ctx) {
        if (nt > 1) vec_pool_start(p);
        if (nt > 1 + p->started) nt = 1 + p->started;
        if (nt <= 1) { body(ctx, 0, 1); return 1; }
        p->body = body;
        p->ctx = ctx;
        p->nt = nt;
        p->bar_count = 0;
        __atomic_store_n(&p->pending, p->started, __ATOMIC_SEQ_CST);
        __atomic_add_fetch(&p->gen, 1, __ATOMIC_SEQ_CST);
        vec_wake(&p->gen, &p->gen_sleepers);
        body(ctx, 0, nt);
        for (;;) {
            int left = __atomic_load_n(&p->pending, __ATOMIC_SEQ_CST);
            if (left == 0) break;
            vec_wait(&p->pending, left, &p->pending_sleepers);
        }
        return nt;
    }
    /* A barrier of the nt threads of the current run. */
    static void vec_pool_barrier(VecPool *p, int nt) {
        int g = __atomic_load_n(&p->bar_gen, __ATOMIC_ACQUIRE);
        if (__atomic_add_fetch(&p->bar_count, 1, __ATOMIC_ACQ_REL) == nt) {
            __atomic_store_n(&p->bar_count, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&p->bar_gen, g + 1, __ATOMIC_SEQ_CST);
            vec_wake(&p->bar_gen, &p->bar_sleepers);
        } else {
            vec_wait(&p->bar_gen, g, &p->bar_sleepers);
        }
    }
    /* The claim counters only split indices between threads (the barriers publish the
       tables), so relaxed atomics suffice. */
    static int vec_claim(int *counter, int k) { return __atomic_fetch_add(counter, k, __ATOMIC_RELAXED); }
    static int vec_load(int *counter) { return __atomic_load_n(counter, __ATOMIC_RELAXED); }
    /* Zeroed memory on a cache-line boundary (per-thread records must not share lines). */
    static void *vec_alloc64(size_t n) {
        void *p = NULL;
        if (n == 0) n = 64;
        if (posix_memalign(&p, 64, n) != 0) return NULL;
        memset(p, 0, n);
        return p;
    }
    """
    ctypedef void (*vec_body_fn)(void* ctx, int tid, int nt) noexcept nogil
    ctypedef struct VecPool:
        pass
    VecPool* vec_pool_new(int size) nogil
    void vec_pool_free(VecPool* p) nogil
    int vec_pool_run(VecPool* p, int nt, vec_body_fn body, void* ctx) nogil
    void vec_pool_barrier(VecPool* p, int nt) nogil
    int vec_claim(int* counter, int k) nogil
    int vec_load(int* counter) nogil
    void* vec_alloc64(size_t n) nogil


cdef enum:
    # The thread count's choice (VecEnv._choose_threads, docs/learning.md "Threads").
    MODE_SAMPLES = 8          # region times kept of the current count (their median)
    PROBE_STEPS = 4           # steps a probe of the other count runs (their 2nd best)
    FIRST_PROBE = 8           # steps before the first probe of more threads
    MIN_BACKOFF = 64          # steps before the next one, after a probe that lost
    CHECK_EVERY = 512         # steps between 1-thread probes while more threads win
    MAX_BACKOFF = 16384       # most steps between probes of more threads while 1 wins

cdef enum:
    ENC_NONE = 0
    ENC_DEFAULT = 1
    ENC_INFO = 2
    ENC_DANZERO = 3
    MODE_ABSTRACT = 0
    MODE_CANDIDATES = 1
    SCRATCH_U64 = 2 * MAX_MOVES     # per thread: a complete move list (>= 4 * ACT_SCRATCH)
    MAX_RES = 4                     # hand results one table can produce in one step

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
    int32_t ids[N_ACTIONS]
    u64 words[2 * N_ACTIONS]
    Result res[MAX_RES]
    # Never written: the last line one thread writes of table i and the first line another
    # writes of table i + 1 are a line apart (no false sharing between neighbouring tables).
    char _gap[64]

cdef struct Lane:
    # One thread's record of a parallel step, alone on its cache line (the threads write
    # their own Lane while the others run).
    int64_t n_legal        # candidates of the tables it stepped
    int32_t lo, hi         # the tables it stepped: [lo, hi), contiguous
    int32_t n_res          # hand results of those tables
    int32_t bad            # first table of its range with an invalid action, or -1
    int32_t err            # an internal error was seen
    char _pad[36]

cdef struct Counter:
    int taken              # tables of a segment claimed so far
    char _pad[60]

cdef struct Job:
    # Everything one step's threads share (read-only for them except as described).
    Table* tabs
    const Config* cfg
    u64* scratch           # SCRATCH_U64 per thread
    Lane* lanes            # one per thread
    Counter* claims        # one per pair of threads
    VecPool* pool          # the threads' barriers
    const int64_t* act64   # the actions (one of act64 / act32), NULL when not stepping
    const int32_t* act32
    int32_t* choice        # table i's validated choice (index into its legal actions)
    float* obs
    uint8_t* mask
    int64_t* off
    int32_t* ids
    u64* words
    uint8_t* cards
    int8_t* seat
    int8_t* phase
    Row* rows              # results are appended at rows[rbase ...]
    int64_t rbase
    int64_t cap            # CSR capacity (rows of ids / words / cards)
    int64_t total          # written by thread 0: candidates of the step
    int64_t total_res      # written by thread 0: results of the step
    int n
    int dim
    int fresh              # reset: start every table, no move
    int prev_nt            # thread count of the previous step (its lanes' ranges), 0: none
    int nt_seen            # written by thread 0: thread count of this step
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
            tb.n_legal = fill_legal_actions(&tb.s, scratch, tb.ids, tb.words)
            if tb.n_legal <= 0:
                tb.error = 1
                return
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

cdef int check_action(Job* j, int i) noexcept nogil:
    """Validate table i's action into j.choice[i]: 0, or 1 (out of range), 2 (not legal)."""
    cdef const Table* tb = &j.tabs[i]
    cdef int64_t a = j.act64[i] if j.act64 != NULL else j.act32[i]
    cdef int lo_k, hi_k, mid
    if j.cfg.mode == MODE_CANDIDATES:
        if not 0 <= a < tb.n_legal:
            return 1
        j.choice[i] = <int32_t>a
        return 0
    if not 0 <= a < N_ACTIONS:
        return 1
    lo_k = 0                      # ids are ascending: binary search
    hi_k = tb.n_legal
    while lo_k < hi_k:
        mid = (lo_k + hi_k) >> 1
        if tb.ids[mid] < a:
            lo_k = mid + 1
        else:
            hi_k = mid
    if lo_k >= tb.n_legal or tb.ids[lo_k] != a:
        return 2
    j.choice[i] = lo_k
    return 0


cdef void step_range(Job* j, Lane* me, int lo, int hi, u64* scratch) noexcept nogil:
    """Step tables lo..hi-1 and add their candidate / result counts to the lane."""
    cdef int i
    cdef Table* tb
    for i in range(lo, hi):
        tb = &j.tabs[i]
        table_step(tb, j.cfg, -1 if j.fresh else j.choice[i], scratch,
                   j.obs + <Py_ssize_t>i * j.dim if j.dim > 0 else NULL,
                   j.mask + <Py_ssize_t>i * N_ACTIONS if j.mask != NULL else NULL)
        me.n_legal += tb.n_legal
        me.n_res += tb.n_res
        me.err |= tb.error


cdef void emit(Job* j, int i, int64_t o, int64_t r, bint csr) noexcept nogil:
    """Table i's batch entries: offset o, seat, phase, its candidates at o (when csr) and
    its results at rows[rbase + r] (unless rows is NULL)."""
    cdef const Table* tb = &j.tabs[i]
    cdef int k
    cdef Row* row
    j.off[i] = o
    j.seat[i] = tb.s.current
    j.phase[i] = tb.s.phase
    if csr:
        memcpy(j.ids + o, tb.ids, tb.n_legal * sizeof(int32_t))
        memcpy(j.words + 2 * o, tb.words, 2 * tb.n_legal * sizeof(u64))
        if j.cards != NULL:
            for k in range(tb.n_legal):
                if j.dz:
                    cards_u8_danzero(tb.words[2 * k], tb.words[2 * k + 1], j.cards + 54 * (o + k))
                else:
                    cards_u8(tb.words[2 * k], tb.words[2 * k + 1], j.cards + 54 * (o + k))
    if j.rows == NULL:
        return
    for k in range(tb.n_res):
        row = &j.rows[j.rbase + r + k]
        row.env = i
        row.r = tb.res[k]


cdef void vec_body(void* ctx, int tid, int nt) noexcept nogil:
    """One step on thread tid of nt. Phase 1 checks the actions (nothing has moved yet, so
    a bad one stops every thread before any table advances), phase 2 steps the tables,
    phase 3 writes the batch in table order. Each thread steps a contiguous range of
    tables, so offsets follow from the per-thread totals; ranges are kept from one step to
    the next (a table mostly stays on one core: its state, the previous step's candidate
    lists, stay in that core's cache for phases 1 and 3)."""
    cdef Job* j = <Job*>ctx
    cdef Lane* me = &j.lanes[tid]
    cdef u64* scratch = j.scratch + <Py_ssize_t>tid * SCRATCH_U64
    cdef int n = j.n, i, t, lo, hi, seg, s_lo, s_hi, size, done, k, old, got
    cdef int64_t o, r, total, total_res
    cdef Counter* ctr
    # -- phase 1: validate (the tables this thread stepped last time, where they are cached)
    if not j.fresh:
        if j.prev_nt == nt:
            lo = me.lo
            hi = me.hi
        else:
            lo = <int>(<int64_t>n * tid // nt)
            hi = <int>(<int64_t>n * (tid + 1) // nt)
        for i in range(lo, hi):
            if check_action(j, i):
                me.bad = i
                break
        if nt > 1:
            vec_pool_barrier(j.pool, nt)
        for t in range(nt):
            if j.lanes[t].bad >= 0:
                return              # every thread returns: no table has moved
    # -- phase 2: step. Threads 2s and 2s+1 share segment s of the tables (a thread alone in
    # the last segment when nt is odd): the first takes tables from the segment's start
    # upwards, the second from its end downwards, each claiming a quarter of what is left
    # (one table at the end) on a shared counter, until they meet. Balanced to one table,
    # with ~15 atomic claims a step, and each thread's tables stay contiguous.
    me.n_legal = 0
    me.n_res = 0
    me.err = 0
    seg = tid >> 1
    s_lo = <int>(<int64_t>n * (2 * seg) // nt)
    s_hi = <int>(<int64_t>n * min(2 * seg + 2, nt) // nt)
    if 2 * seg + 1 >= nt:
        step_range(j, me, s_lo, s_hi, scratch)
        me.lo = s_lo
        me.hi = s_hi
    else:
        size = s_hi - s_lo
        ctr = &j.claims[seg]
        done = 0
        while True:
            k = (size - vec_load(&ctr.taken)) >> 2
            if k < 1:
                k = 1
            old = vec_claim(&ctr.taken, k)
            if old >= size:
                break
            got = min(k, size - old)
            if tid & 1:
                step_range(j, me, s_hi - done - got, s_hi - done, scratch)
            else:
                step_range(j, me, s_lo + done, s_lo + done + got, scratch)
            done += got
        if tid & 1:
            me.lo = s_hi - done
            me.hi = s_hi
        else:
            me.lo = s_lo
            me.hi = s_lo + done
    if nt > 1:
        vec_pool_barrier(j.pool, nt)
    # -- phase 3: the batch. A thread's tables start after those of the threads before it
    # (ranges are in thread order), so its offsets are known from their totals. When the
    # candidates do not fit, offsets only: the caller grows the buffers and copies.
    o = r = total = total_res = 0
    for t in range(nt):
        if t < tid:
            o += j.lanes[t].n_legal
            r += j.lanes[t].n_res
        total += j.lanes[t].n_legal
        total_res += j.lanes[t].n_res
    for i in range(me.lo, me.hi):
        emit(j, i, o, r, total <= j.cap)
        o += j.tabs[i].n_legal
        r += j.tabs[i].n_res
    if tid == 0:
        j.off[n] = total
        j.total = total
        j.total_res = total_res
        j.nt_seen = nt


# ------------------------------------------------------------------------------------------
# Python side
# ------------------------------------------------------------------------------------------

Batch = namedtuple("Batch", "obs mask cand_offsets cand_ids cand_words cand_cards env_id seat phase")
Batch.__doc__ = """The learner decisions of every table (docs/learning.md, section 3).

Zero-copy views of the env's buffers: valid until the env's next ``step``/``reset``."""

_ENCODERS = {None: ENC_NONE, "default": ENC_DEFAULT, "info": ENC_INFO, "danzero": ENC_DANZERO}
_MODES = {"abstract": MODE_ABSTRACT, "candidates": MODE_CANDIDATES}
_RESULT_FIELDS = ("env_id", "match", "hand_number", "level", "declarer", "finish", "levels",
                  "reward", "match_over", "match_winner")


cdef double _median(double* xs, int n) noexcept nogil:
    """The median of n <= MODE_SAMPLES values (the upper one of an even count)."""
    cdef double buf[MODE_SAMPLES]
    cdef double v
    cdef int i, k
    for i in range(n):                 # insertion sort of a copy: n is at most 8
        v = xs[i]
        k = i
        while k > 0 and buf[k - 1] > v:
            buf[k] = buf[k - 1]
            k -= 1
        buf[k] = v
    return buf[n // 2]


cdef double _second_best(double* xs, int n) noexcept nogil:
    """The second smallest of n >= 2 values (a probe's first step may pay the threads'
    wake-up)."""
    cdef double a = xs[0], b = xs[1], v
    cdef int i
    if b < a:
        a, b = b, a
    for i in range(2, n):
        v = xs[i]
        if v < a:
            a, b = v, a
        elif v < b:
            b = v
    return b


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
    cdef Lane* lanes
    cdef Counter* claims
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
    cdef int _last_nt             # threads of the last parallel step (Job.prev_nt)
    cdef double _region_s         # wall time of the last step's compiled region
    # The thread count's choice (_choose_threads): steps run on _nt_mode threads (1 or
    # threads); every so often a probe of PROBE_STEPS steps on the other count decides.
    cdef bint _adapt
    cdef int _nt_mode, _probe_nt, _probe_left, _probe_count, _until_probe, _backoff
    cdef int _mode_count, _slow_steps
    cdef double _one_typical      # the median step on one thread when more were chosen
    cdef double _mode_times[MODE_SAMPLES]
    cdef double _probe_times[PROBE_STEPS]
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
    cdef int8_t* _seat_p
    cdef int8_t* _phase_p

    def __cinit__(self):
        self.tables = NULL
        self.scratch = NULL
        self.lanes = NULL
        self.claims = NULL
        self.pool = NULL
        self._choice = NULL
        self._rows = NULL

    def __dealloc__(self):
        vec_pool_free(self.pool)
        free(self.tables)
        free(self.scratch)
        free(self.lanes)
        free(self.claims)
        free(self._choice)
        free(self._rows)

    def __init__(self, num_envs, *, seed, rules=Rules(), threads=1, learners=(0, 1, 2, 3),
                 opponents="greedy", encoder="default", action_mode="abstract",
                 adapt_threads=True, auto_pass=False):
        from .agents import parse_agents
        cdef int p
        cdef int ks[4]
        cdef int8_t listed[4]
        num_envs = _validate.check_count(num_envs, "num_envs", 1)
        seed = _validate.check_seed(seed)
        threads = _validate.check_count(threads, "threads", 1)
        _validate.check_rules(rules)
        if not isinstance(adapt_threads, bool):
            raise TypeError(f"adapt_threads must be a bool, not {type(adapt_threads).__name__}")
        if not isinstance(auto_pass, bool):
            raise TypeError(f"auto_pass must be a bool, not {type(auto_pass).__name__}")
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
        self._adapt = adapt_threads and threads > 1
        # Start on one thread: on a busy machine a step on more threads can take
        # milliseconds, on an idle one the first probe (after FIRST_PROBE steps) switches.
        self._nt_mode = 1 if self._adapt else threads
        self._probe_left = 0
        self._mode_count = 0
        self._until_probe = FIRST_PROBE
        self._backoff = FIRST_PROBE
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
        self.claims = <Counter*>vec_alloc64((threads + 1) // 2 * sizeof(Counter))
        self._choice = <int32_t*>vec_alloc64(num_envs * sizeof(int32_t))
        self.pool = vec_pool_new(threads - 1)
        self._rows_cap = MAX_RES * num_envs
        self._rows = <Row*>malloc(self._rows_cap * sizeof(Row))
        if (self.tables == NULL or self.scratch == NULL or self.lanes == NULL
                or self.claims == NULL or self._choice == NULL or self._rows == NULL
                or self.pool == NULL):
            raise MemoryError()
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
        self._seat_p = <int8_t*>cnp.PyArray_DATA(<cnp.ndarray>self._seat)
        self._phase_p = <int8_t*>cnp.PyArray_DATA(<cnp.ndarray>self._phase)
        self._cap = 0
        self._grow(64 * n)
        self._started = False
        self._pending = False
        self._last_nt = 0

    # -- buffers -----------------------------------------------------------------------------
    cdef _grow(self, Py_ssize_t need):
        if need <= self._cap:
            return
        cap = max(need, 2 * self._cap)
        self._ids = np.zeros(cap, dtype=np.int32)
        self._words = np.zeros((cap, 2), dtype=np.uint64)
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
        j.claims = self.claims
        j.pool = self.pool
        j.choice = self._choice
        j.obs = self._obs_p
        j.mask = self._mask_p
        j.off = self._off_p
        j.ids = self._ids_p
        j.words = self._words_p
        j.cards = self._cards_p
        j.seat = self._seat_p
        j.phase = self._phase_p
        j.rows = self._rows
        j.rbase = self._nrows
        j.cap = self._cap
        j.n = self.num_envs
        j.dim = self.obs_size
        j.dz = self.cfg.encoder == ENC_DANZERO
        j.prev_nt = self._last_nt

    cdef int _run(self, Job* j) except -2:
        """Run one step (j.fresh: start every table) over the env's threads. Returns the first
        table with an invalid action (nothing moved), or -1 when every table stepped."""
        cdef int i, t, nt = self._choose_threads(), bad = -1
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
        for t in range((nt + 1) // 2):
            self.claims[t].taken = 0
        for t in range(nt):             # reset here: a lane the region did not run stays -1
            self.lanes[t].bad = -1
        clock_gettime(CLOCK_MONOTONIC, &t0)
        with nogil:
            vec_pool_run(self.pool, nt, vec_body, j)
        clock_gettime(CLOCK_MONOTONIC, &t1)
        self._region_s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9
        for t in range(nt):             # each lane holds the first bad table of its range
            if self.lanes[t].bad >= 0 and (bad < 0 or self.lanes[t].bad < bad):
                bad = self.lanes[t].bad
        if bad >= 0:
            return bad
        if not j.fresh:                  # a reset's region deals too: not a typical step
            self._record_time(nt, self._region_s)
        self._last_nt = j.nt_seen
        for t in range(j.nt_seen):
            if self.lanes[t].err:
                for i in range(self.num_envs):
                    if self.tables[i].error:
                        raise RuntimeError(f"table {i}: internal error {self.tables[i].error}")
        self._nrows += j.total_res
        if j.total > self._cap:          # the candidates did not fit: grow, then copy
            self._grow(j.total)
            self._emit_all(j)
        return -1

    # -- the thread count ----------------------------------------------------------------------
    # More threads are faster only while the machine has a core for each: with one or two
    # other busy processes on 2 cores, a step's threads wait for each other at every barrier
    # (libgomp's default policy spins meanwhile: 0.01-0.02x of one thread's rate; PASSIVE
    # sleeps: 0.87-0.90x, and 0.88x on an idle machine). So the env measures: it runs the
    # steps on one thread first, and now and then a short probe on the other count (1 or
    # `threads`); it switches when the probe's steps are at least 10 % faster than the
    # median of the last steps. While 1 thread wins, probes of more threads come ever more
    # rarely (doubling up to MAX_BACKOFF steps) and stop at the first step that is clearly
    # slower, so a busy machine costs a few slow steps a probe. Results do not depend on
    # the thread count (every table is stepped the same on any thread).
    cdef int _choose_threads(self) noexcept:
        if not self._adapt:
            return self.threads
        if self._probe_left > 0:
            return self._probe_nt
        self._until_probe -= 1
        if self._until_probe <= 0 and self._mode_count >= MODE_SAMPLES:
            self._probe_nt = 1 if self._nt_mode != 1 else self.threads
            self._probe_left = PROBE_STEPS
            self._probe_count = 0
            return self._probe_nt
        return self._nt_mode

    cdef void _record_time(self, int nt, double dt) noexcept:
        cdef double typical, best
        cdef int k
        if not self._adapt:
            return
        if self._probe_left > 0 and nt == self._probe_nt:
            self._probe_times[self._probe_count] = dt
            self._probe_count += 1
            self._probe_left -= 1
            typical = _median(self._mode_times, MODE_SAMPLES)
            if dt > 4 * typical:         # clearly slower: stop the probe here
                self._probe_left = 0
            if self._probe_left > 0:
                return
            best = _median(self._probe_times, self._probe_count) if self._probe_count < 3 \
                else _second_best(self._probe_times, self._probe_count)
            if best < 0.9 * typical:    # the other count wins: switch
                self._one_typical = typical if self._probe_nt != 1 else best
                self._nt_mode = self._probe_nt
                self._mode_count = 0
                self._slow_steps = 0
                self._backoff = FIRST_PROBE
            elif self._nt_mode == 1:
                self._backoff = min(max(2 * self._backoff, MIN_BACKOFF), MAX_BACKOFF)
            else:                       # one thread lost: its step as measured now
                self._one_typical = best
            self._until_probe = self._backoff if self._nt_mode == 1 else CHECK_EVERY
            return
        k = self._mode_count % MODE_SAMPLES
        self._mode_times[k] = dt
        self._mode_count += 1
        if self._nt_mode != 1:
            # the machine got busy: two steps in a row slower than one thread's typical step
            # go back to one thread at once (not at the next probe, up to CHECK_EVERY away)
            self._slow_steps = self._slow_steps + 1 if dt > 1.5 * self._one_typical else 0
            if self._slow_steps >= 2:
                self._nt_mode = 1
                self._mode_count = 0
                self._slow_steps = 0
                self._backoff = MIN_BACKOFF
                self._until_probe = MIN_BACKOFF

    @property
    def threads_in_use(self):
        """Threads the steps run on now: ``threads``, or 1 while one thread is faster (the
        machine busy; ``adapt_threads=False`` keeps ``threads``)."""
        return self._nt_mode if self._adapt else self.threads

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
            emit(j, i, o, 0, True)
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
            self.tables[i].stream = match_seed_of(<u64>(self._seed & 0xFFFFFFFFFFFFFFFF), i)
            self.tables[i].match = -1
            self.tables[i].s.phase = PH_OVER
        self._nrows = 0
        self._last_nt = 0
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
        return Batch(self._obs, self._mask, self._offsets, self._ids[:c], self._words[:c],
                     None if self._cards is None else self._cards[:c], self._env_id,
                     self._seat, self._phase)

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
                     adapt_threads=bool(self._adapt) or self.threads == 1,
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

/* The thread pool of VecEnv's parallel step (vecenv.pyx; declared for Cython in
   vec_pool.pxd; docs/learning.md "Threads").

   A step is one run of the pool. Its phases (check the actions, step the tables, write the
   batch) are each a range of pieces that the threads claim from a shared word, the calling
   thread (the lead) from the front and the workers from the back, so a worker that is not
   running holds nothing: the lead takes what is left and waits only for a piece a worker
   has claimed and not finished. A waiting thread spins for a short while (VEC_SPIN_NS),
   then sleeps on a futex: on an idle machine a step's hand-offs take microseconds and cost
   no system call, on a busy one a thread that waits gives its core away (to the thread it
   waits for, often) instead of holding it (libgomp's default policy spins up to 300,000
   rounds: 0.01-0.02x of one thread's rate with 2 threads and one other busy process;
   bench/RESULTS.md). Workers between steps spin through the caller's gap when it is short
   (up to VEC_SPIN_MAX_NS): a worker asleep at the next step wakes 15-20 us late or more (a
   halted virtual CPU), and a 50 us spin against a gap of 40-60 us put it to sleep at a
   fifth of the steps.

   Linux-only (futexes, CPU sets); sched_getcpu and the CPU-set calls need _GNU_SOURCE,
   which Python.h, included first by Cython's module, defines. */
#ifndef GUANDAN_FAST_VEC_POOL_H
#define GUANDAN_FAST_VEC_POOL_H

#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>
#include <limits.h>
#include <time.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sched.h>
#include <sys/prctl.h>

/* Nanoseconds a waiting thread spins before it sleeps: covers a step's hand-offs, and
   costs a busy machine at most this per wait. Workers between steps spin longer when the
   caller's gaps between steps are short (vec_pool_spin). */
#define VEC_SPIN_NS 50000
/* The longest spin of a worker between steps: a caller whose gaps are longer than this
   (a learner's network between steps) gets the short spin and a futex wake per step,
   unless its gaps are regular: then the workers nap through most of the gap (vec_wait). */
#define VEC_SPIN_MAX_NS 300000
/* A nap ends this long before the shortest usual gap does (a timed futex wait on a
   virtual machine oversleeps by tens of µs), and the spin after it lasts the usual
   gaps' spread plus twice this. */
#define VEC_NAP_MARGIN_NS 100000
/* Gaps spread wider than this (upper minus lower quartile) get no nap. */
#define VEC_NAP_SPREAD_NS 400000
/* Pieces are counted in 15 bits (the state word below). */
#define VEC_MAX_COUNT 32767
/* Counters per cache line (one thread's finished pieces each). */
#define VEC_LINE 8

/* A futex call (timeout: NULL, or at most this long for FUTEX_WAIT). */
static long vec_futex(int *addr, int op, int val, const struct timespec *timeout) {
    return syscall(SYS_futex, addr, op, val, timeout, NULL, 0);
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
/* Wait while *word == val: spin up to *spin_ns (read again as the spin goes on: the
   lead may cut it short), then sleep. Once *between is set (the step is over) and
   *nap_ns is not zero, it first sleeps that long (a timed wait, woken early by a new
   value), then spins. A waker stores a new value and wakes only when *sleepers is not
   zero (both sequentially consistent: either the waker sees the sleeper counted, or
   the sleeper sees the new value). */
static void vec_wait(int *word, int val, int *sleepers, const int *spin_ns,
                     const int *nap_ns, const int *between) {
    long long start = 0, nap;
    int i, napped = 0;
    struct timespec t;
    for (;;) {
        for (i = 0; i < 64; i++) {
            if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != val) return;
            vec_pause();
        }
        if (!napped && __atomic_load_n(between, __ATOMIC_ACQUIRE)
                && (nap = __atomic_load_n(nap_ns, __ATOMIC_RELAXED)) > 0) {
            napped = 1;
            t.tv_sec = nap / 1000000000LL;
            t.tv_nsec = nap % 1000000000LL;
            __atomic_add_fetch(sleepers, 1, __ATOMIC_SEQ_CST);
            if (__atomic_load_n(word, __ATOMIC_SEQ_CST) == val)
                vec_futex(word, FUTEX_WAIT_PRIVATE, val, &t);
            __atomic_sub_fetch(sleepers, 1, __ATOMIC_SEQ_CST);
            start = vec_now_ns();          /* the spin starts after the nap */
            continue;
        }
        if (start == 0) start = vec_now_ns();
        else if (vec_now_ns() - start > __atomic_load_n(spin_ns, __ATOMIC_RELAXED)) break;
    }
    __atomic_add_fetch(sleepers, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(word, __ATOMIC_SEQ_CST) == val)
        vec_futex(word, FUTEX_WAIT_PRIVATE, val, NULL);
    __atomic_sub_fetch(sleepers, 1, __ATOMIC_SEQ_CST);
}
static void vec_wake(int *word, int *sleepers) {
    if (__atomic_load_n(sleepers, __ATOMIC_SEQ_CST))
        vec_futex(word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
}

struct VecPool;
typedef void (*vec_help_fn)(struct VecPool *, int);

/* The pool: the calling thread (the lead, thread 0) and workers 1..started. The lead
   publishes a phase as the state word: a publication number (32 bits), the phase
   (2 bits, 0: nothing to do) and the pieces not yet claimed, [front, back) (15 bits
   each). A claim is a compare-and-swap of that word, so a worker that read an older
   publication claims nothing. Each thread counts the pieces it has finished on a cache
   line of its own (a shared counter cost a line transfer per claim: the check and batch
   phases took as long on 2 threads as on 1); the lead waits until their sum reaches the
   pieces published so far. Each group of fields written by one side while the other
   reads sits on its own cache line. */
typedef struct VecPool {
    unsigned long long state;    /* the claims (above) */
    int div, cap;                /* a claim takes (back - front) / div pieces, 1..cap */
    int spin_ns;                 /* a worker's spin before it sleeps (vec_pool_spin) */
    int nap_ns;                  /* its nap between steps before that spin, or 0 */
    int between;                 /* 1 from the end of a step to the start of the next */
    void *ctx;                   /* the run's context (valid while a claim is held) */
    int nt;                      /* threads of the current run */
    int lead_cpu;                /* the CPU the lead ran on at the run's start, or -1 */
    unsigned pub;                /* publications so far (the lead's) */
    unsigned long long expect;   /* pieces published so far (the lead's) */
    int seq __attribute__((aligned(64)));  /* bumped per publication (the workers' futex) */
    int seq_sleepers;
    int quit;
    int done_seq __attribute__((aligned(64)));  /* bumped to wake the lead (its futex) */
    int done_sleepers;
    unsigned long long *done;    /* pieces finished by thread t: done[t * VEC_LINE] */
    int size __attribute__((aligned(64)));  /* workers wanted (threads - 1) */
    int started;                 /* workers running */
    pid_t owner;                 /* the process that started them (a fork child has none) */
    vec_help_fn help;            /* what a worker runs at each publication */
    pthread_t *tids;
} VecPool;

typedef struct { VecPool *p; int k; } VecWorkerArg;

/* A worker running on the CPU the lead runs on shares that CPU with it (Linux starts a
   new thread on its creator's CPU and wakes a sleeping one next to its waker, and on a
   busy machine may leave it there for 100 steps and more: measured, 2 threads then
   no faster than 1, or slower). A worker that finds itself there moves off it: it
   narrows its own CPU set to the ones it was allowed minus the lead's (nothing when
   that leaves none: one allowed CPU). */
static void vec_keep_apart(VecPool *p, const cpu_set_t *allowed) {
    int lead = __atomic_load_n(&p->lead_cpu, __ATOMIC_RELAXED);
    cpu_set_t m;
    if (lead < 0 || lead >= CPU_SETSIZE || sched_getcpu() != lead
            || !CPU_ISSET(lead, allowed))
        return;
    m = *allowed;
    CPU_CLR(lead, &m);
    if (CPU_COUNT(&m) > 0)
        pthread_setaffinity_np(pthread_self(), sizeof(m), &m);
}

static void *vec_worker(void *arg) {
    VecPool *p = ((VecWorkerArg *)arg)->p;
    int k = ((VecWorkerArg *)arg)->k;
    int seen, apart;
    cpu_set_t allowed;
    free(arg);
    /* Its naps end on time: a timer slack of 1 us instead of 50 (a 0.5-0.9 ms sleep
       overslept by a median 105-111 us here, 40-55 us with it). */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
    apart = pthread_getaffinity_np(pthread_self(), sizeof(allowed), &allowed) == 0
            && CPU_COUNT(&allowed) > 1;
    for (;;) {
        seen = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE);
        if (__atomic_load_n(&p->quit, __ATOMIC_ACQUIRE)) return NULL;
        if (k < __atomic_load_n(&p->nt, __ATOMIC_RELAXED)) {
            if (apart) vec_keep_apart(p, &allowed);
            p->help(p, k);
        }
        vec_wait(&p->seq, seen, &p->seq_sleepers, &p->spin_ns, &p->nap_ns, &p->between);
    }
}

/* This process's id, kept by a fork handler: getpid() is a system call (160 ns here),
   and vec_pool_start asks at every parallel step. */
static pid_t vec_pid;
static pthread_once_t vec_pid_once = PTHREAD_ONCE_INIT;
static void vec_pid_refresh(void) { vec_pid = getpid(); }
static void vec_pid_init(void) {
    vec_pid_refresh();
    pthread_atfork(NULL, NULL, vec_pid_refresh);
}
static VecPool *vec_pool_new(int size, vec_help_fn help) {
    VecPool *p = NULL;
    pthread_once(&vec_pid_once, vec_pid_init);
    if (posix_memalign((void **)&p, 64, sizeof(VecPool)) != 0) return NULL;
    memset(p, 0, sizeof(VecPool));
    p->size = size;
    p->help = help;
    p->spin_ns = VEC_SPIN_NS;
    p->tids = (pthread_t *)calloc(size > 0 ? size : 1, sizeof(pthread_t));
    if (p->tids == NULL) { free(p); return NULL; }
    if (posix_memalign((void **)&p->done, 64, (size_t)(size + 1) * 64) != 0) {
        free(p->tids); free(p); return NULL;
    }
    memset(p->done, 0, (size_t)(size + 1) * 64);
    return p;
}
/* Start the workers (again in a fork child, which has none); as many as can be. */
static void vec_pool_start(VecPool *p) {
    pid_t me = vec_pid;
    if (p->owner == me && p->started == p->size) return;
    if (p->owner != me) {       /* a fork child: the parent's workers are not here */
        p->started = 0;
        p->state = 0; p->seq = 0; p->seq_sleepers = 0; p->quit = 0;
        p->done_seq = 0; p->done_sleepers = 0; p->nt = 0; p->expect = 0;
        memset(p->done, 0, (size_t)(p->size + 1) * 64);
        p->owner = me;
    }
    while (p->started < p->size) {
        VecWorkerArg *a = (VecWorkerArg *)malloc(sizeof(VecWorkerArg));
        if (a == NULL) break;
        a->p = p;
        a->k = p->started + 1;
        if (pthread_create(&p->tids[p->started], NULL, vec_worker, a) != 0) { free(a); break; }
        p->started++;
    }
}
static void vec_pool_free(VecPool *p) {
    int i;
    if (p == NULL) return;
    if (p->owner == vec_pid && p->started > 0) {
        __atomic_store_n(&p->quit, 1, __ATOMIC_SEQ_CST);
        __atomic_add_fetch(&p->seq, 1, __ATOMIC_SEQ_CST);
        vec_futex(&p->seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
        for (i = 0; i < p->started; i++) pthread_join(p->tids[i], NULL);
    }
    free(p->tids);
    free(p->done);
    free(p);
}
/* Threads for a run of nt: starts the workers when nt > 1; returns the count available
   (nt, or fewer when threads could not be started). The lead then publishes phases. */
static int vec_pool_begin(VecPool *p, int nt, void *ctx) {
    __atomic_store_n(&p->between, 0, __ATOMIC_RELAXED);
    if (nt > 1) vec_pool_start(p);
    if (nt > 1 + p->started) nt = 1 + p->started;
    __atomic_store_n(&p->nt, nt, __ATOMIC_RELAXED);
    __atomic_store_n(&p->lead_cpu, nt > 1 ? sched_getcpu() : -1, __ATOMIC_RELAXED);
    __atomic_store_n(&p->ctx, ctx, __ATOMIC_RELAXED);
    return nt;
}
/* The lead: a phase of count pieces (count <= VEC_MAX_COUNT), claimed (back - front) / div
   at a time, 1..cap; wakes the sleeping workers. */
static void vec_publish(VecPool *p, int phase, int count, int div, int cap) {
    unsigned long long s;
    p->expect += (unsigned long long)count;
    __atomic_store_n(&p->div, div, __ATOMIC_RELAXED);
    __atomic_store_n(&p->cap, cap, __ATOMIC_RELAXED);
    p->pub++;
    s = ((unsigned long long)p->pub << 32) | ((unsigned long long)phase << 30)
        | (unsigned long long)count;
    __atomic_store_n(&p->state, s, __ATOMIC_RELEASE);
    __atomic_add_fetch(&p->seq, 1, __ATOMIC_SEQ_CST);
    vec_wake(&p->seq, &p->seq_sleepers);
}
/* Claim pieces of the published phase, from its front (the lead) or its back (workers):
   returns how many (0: none left), the first in *first and the phase in *phase. */
static int vec_claim(VecPool *p, int from_back, int *first, int *phase) {
    unsigned long long s = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE), t;
    int f, b, k;
    for (;;) {
        f = (int)((s >> 15) & VEC_MAX_COUNT);
        b = (int)(s & VEC_MAX_COUNT);
        if (((s >> 30) & 3) == 0 || f >= b) return 0;
        k = (b - f) / __atomic_load_n(&p->div, __ATOMIC_RELAXED);
        if (k > __atomic_load_n(&p->cap, __ATOMIC_RELAXED)) k = __atomic_load_n(&p->cap, __ATOMIC_RELAXED);
        if (k < 1) k = 1;
        t = from_back ? s - (unsigned long long)k : s + ((unsigned long long)k << 15);
        if (__atomic_compare_exchange_n(&p->state, &s, t, 1, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            *first = from_back ? b - k : f;
            *phase = (int)((s >> 30) & 3);
            return k;
        }
    }
}
/* The context of the run a claim belongs to (read after a successful claim). */
static void *vec_ctx(VecPool *p) { return __atomic_load_n(&p->ctx, __ATOMIC_RELAXED); }
/* k pieces finished by thread t; wakes the lead if it sleeps (both sequentially
   consistent: either the lead's sum sees this count, or this sees the lead counted). */
static void vec_done(VecPool *p, int t, int k) {
    __atomic_add_fetch(&p->done[t * VEC_LINE], (unsigned long long)k, __ATOMIC_SEQ_CST);
    if (t > 0 && __atomic_load_n(&p->done_sleepers, __ATOMIC_SEQ_CST)) {
        __atomic_add_fetch(&p->done_seq, 1, __ATOMIC_SEQ_CST);
        vec_futex(&p->done_seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
    }
}
static int vec_all_done(VecPool *p) {
    unsigned long long n = 0;
    int t;
    for (t = 0; t <= p->started; t++)
        n += __atomic_load_n(&p->done[t * VEC_LINE], __ATOMIC_SEQ_CST);
    return n == p->expect;
}
/* The lead: wait until every piece published so far is finished (spin, then sleep). */
static void vec_wait_done(VecPool *p) {
    long long until = 0;
    int i, v;
    for (;;) {
        for (i = 0; i < 64; i++) {
            if (vec_all_done(p)) return;
            vec_pause();
        }
        if (until == 0) until = vec_now_ns() + VEC_SPIN_NS;
        else if (vec_now_ns() > until) break;
    }
    __atomic_add_fetch(&p->done_sleepers, 1, __ATOMIC_SEQ_CST);
    for (;;) {
        v = __atomic_load_n(&p->done_seq, __ATOMIC_SEQ_CST);
        if (vec_all_done(p)) break;
        vec_futex(&p->done_seq, FUTEX_WAIT_PRIVATE, v, NULL);
    }
    __atomic_sub_fetch(&p->done_sleepers, 1, __ATOMIC_SEQ_CST);
}
/* The workers' spin before they sleep, from the caller's recent gaps between steps (ns,
   the lead's region end to its next region start): through the gap when it is short
   (a worker that sleeps between steps is woken by a system call, and on a virtual
   machine its idle CPU may take tens of microseconds and more to come back), the short
   spin when it is long. */
static void vec_pool_spin(VecPool *p, long long gap_ns, long long low_ns) {
    long long s = gap_ns + gap_ns / 2 + 20000, nap = 0;
    if (s < VEC_SPIN_NS || gap_ns > VEC_SPIN_MAX_NS) s = VEC_SPIN_NS;
    if (s > VEC_SPIN_MAX_NS) s = VEC_SPIN_MAX_NS;
    /* Regular long gaps (a learner's network between steps): nap through the shortest
       of them but the margin, then spin through their spread (a futex wake per step
       made two threads slower than one with gaps of 0.5-1 ms: bench/RESULTS.md). */
    if (gap_ns > VEC_SPIN_MAX_NS && low_ns > VEC_SPIN_MAX_NS
            && gap_ns - low_ns <= VEC_NAP_SPREAD_NS && gap_ns < 1000000000LL) {
        nap = low_ns - VEC_NAP_MARGIN_NS;
        s = gap_ns - low_ns + 2 * VEC_NAP_MARGIN_NS;
    }
    __atomic_store_n(&p->spin_ns, (int)s, __ATOMIC_RELAXED);
    __atomic_store_n(&p->nap_ns, (int)nap, __ATOMIC_RELAXED);
}
/* The step is over: the workers may nap (vec_wait). */
static void vec_pool_end(VecPool *p) {
    __atomic_store_n(&p->between, 1, __ATOMIC_RELEASE);
}
/* The next steps run on the lead alone: the workers sleep now instead of spinning
   (beside other busy processes a spinning worker takes CPU time from the lead, and
   would count against one thread in the thread chooser's probes). The next
   vec_pool_spin sets their spin again. */
static void vec_pool_rest(VecPool *p) {
    __atomic_store_n(&p->nap_ns, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&p->spin_ns, 0, __ATOMIC_RELAXED);
}
/* Zeroed memory on a cache-line boundary (per-thread records must not share lines).
   (Transparent huge pages for the tables were tried: 1.03x before the Track's rows
   became bytes, 0.97x after; bench/RESULTS.md, branch encode6.) */
static void *vec_alloc64(size_t n) {
    void *p = NULL;
    if (n == 0) n = 64;
    if (posix_memalign(&p, 64, n) != 0) return NULL;
    memset(p, 0, n);
    return p;
}

#endif /* GUANDAN_FAST_VEC_POOL_H */

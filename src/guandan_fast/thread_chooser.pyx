# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Which of 1 and ``threads`` threads an adapting ``VecEnv`` steps on (``adapt_threads=True``;
docs/learning.md "Threads"): ``chooser_*`` for the env's step (nogil), ``ThreadChooser`` to
try the rule on timings of one's own.
"""
cimport cython
from libc.string cimport memset

from . import validate as _validate

# More threads are faster only while the machine has cores for them: beside other busy
# processes (or other sessions' work, which Linux shares out per session) a worker loses
# its core now and then while it holds a piece of a step, and the lead waits for it for a
# scheduler slice (milliseconds, where a step takes a few hundred µs). Two threads are then
# as fast as ever while both run (the median step) and slower in cost (the mean). So the
# env times the compiled part of each step and now and then probes the other count:
#
# * A probe alternates the counts, current - other - current - ... - current, in blocks of
#   2 units (~1 ms; the first and last 1 unit), until the other count has run CH_OTHER_US
#   (half of it when it is 1.3x slower by then):
#   a drift of the work per step (256 tables pass through deals, tributes and long hands
#   together: 2-fold over tens of steps) cancels, and the probe spans many scheduler slices,
#   so a stall counts as often as it happens. It compares mean times per step (stalls
#   included: they are what a count costs), each step counted as at most CH_CAP one-thread
#   steps (the process losing its CPU for 10-30 ms to other work, whatever the count, is
#   noise that one such step would make of a whole probe). The first step after each change
#   is not counted.
# * Fewer threads win when they are no slower (under load two threads burn more CPU for the
#   same work); more threads win when they are 1.15x faster, in the median as well as the
#   mean (lost scheduler slices hit both counts and can tip a mean alone).
# * A probe of fewer threads that is clearly slower after its first or second block (median
#   1.4x that of the block before, mean 1.15x that of the last 64 steps before the probe,
#   stalls included: an idle machine) stops there: an idle machine pays ~8 one-thread
#   steps per probe. One that is CH_FEWER_PCT faster by then (mean and median: small
#   batches, whose hand-offs outweigh the halves) switches at once; a probe of more threads
#   CH_MORE_LOSES_PCT slower by then stops (measured: VecEnv(32) on an idle machine ran its
#   first ~14,000 steps on two threads at 0.8x of one thread's rate before this).
# * Probes come CH_FIRST_US after the start, then twice as late after each one that keeps
#   the count up to CH_GAP_MAX_US (or later: a probe costs at most 1/CH_COST of the time), and
#   CH_SWITCH_US after a switch; two blocks of CH_BLOCK_US in a row whose mean step (each
#   step capped as in a probe) is 1.6x off that of the last probe (the machine changed)
#   probe at once.
# Results never depend on the count.

# The rule's settings. Times in µs of the steps' compiled parts (the caller's own time
# between steps is not counted).
cdef enum:
    CH_FIRST_US = 8000        # the first probe, after this long on `threads` (the end of
                              # the first block, whose mean sizes the probe's units)
    CH_SWITCH_US = 50000      # after a switch, the next probe this soon (a wrong switch is
                              # undone fast)
    CH_GAP_MAX_US = 250000    # most time between probes (gaps double after a probe that
                              # keeps the count) ...
    CH_COST = 40              # ... unless the probe cost more than 1/CH_COST of that
    CH_BLOCK_US = 8000        # the steps between probes are timed in blocks this long
    CH_UNIT_US = 500          # a probe alternates the counts every 2 units (this long) ...
    CH_UNIT_MIN = 4           # ... of at least this many steps
    CH_UNIT_MAX = 2048
    CH_OTHER_US = 40000       # ... until the other count has run this long
    CH_SETTLE_US = 1000       # the first step after each change is not counted, nor are
                              # one thread's steps in the first 1 ms after two threads':
                              # beside two busy processes they took 4.5x, 1.9x, 1.3x their
                              # usual time (medians) for the first 1, 2, 3-7 steps after
                              # 100 steps on two threads (the scheduler paying the busy
                              # processes back the CPU two threads took), two threads'
                              # steps after one thread's ~1x but for the first: in blocks
                              # of ~1 ms, probes saw one thread up to 2.8x slower than it
                              # ran when chosen, and kept two threads at 0.8-0.9x ...
    CH_STALL_X = 8            # ... but for the first, a step of 8 median steps (a thread's
                              # stall, not the scheduler's settling) counts
    CH_CAP = 12               # a probe counts a step as at most this many times the median
                              # step before it (on 1 thread; times the count on more)
    CH_SLICE_US = 5000        # ... but never less than this (a scheduler slice and some:
                              # under load, two threads' steps of 30 µs stalled 4.2 ms at
                              # 0.6 % of the steps, 42 % of the time, which a cap of 12
                              # median steps counted as 0.35 ms: two threads looked 1.5x
                              # faster than one while 10 % slower)
    CH_FEWER_PCT = 105        # a probe of fewer threads whose first blocks beat the count it
                              # runs on by 5 % (mean and median: every step slower on more
                              # threads, as with small batches on an idle machine, where a
                              # step's hand-offs outweigh its halves) switches at once
    CH_MORE_LOSES_PCT = 110   # and one of more threads 10 % slower (mean and median) stops
    # stages
    CH_RUN = 0                # steps on the chosen count
    CH_PROBE = 1              # a probe


cdef void chooser_init(Chooser* ch, int threads, bint adapt) noexcept nogil:
    memset(ch, 0, sizeof(Chooser))
    ch.threads = threads
    ch.adapt = adapt and threads > 1
    ch.mode = threads              # an idle machine loses nothing; the first probe is soon
    ch.stage = CH_RUN
    ch.until = CH_FIRST_US * 1e-6
    ch.gap = CH_FIRST_US * 1e-6


cdef inline int chooser_other(const Chooser* ch) noexcept nogil:
    return 1 if ch.mode != 1 else ch.threads


cdef int chooser_next(const Chooser* ch) noexcept nogil:
    """The thread count of the next step."""
    if not ch.adapt:
        return ch.threads
    return chooser_other(ch) if ch.stage == CH_PROBE and ch.on_other else ch.mode


cdef double _median(const double* xs, int n) noexcept nogil:
    """The median (the upper one of an even count) of 0 < n <= CH_KEEP values."""
    cdef double buf[CH_KEEP]
    cdef double v
    cdef int i, k
    for i in range(n):                 # insertion sort of a copy
        v = xs[i]
        k = i
        while k > 0 and buf[k - 1] > v:
            buf[k] = buf[k - 1]
            k -= 1
        buf[k] = v
    return buf[n // 2]


cdef inline double chooser_typical(const Chooser* ch) noexcept nogil:
    """A one-thread step, roughly (s): the median step between probes times the count it
    ran on (0 < ring_n)."""
    return _median(ch.ring, ch.ring_n) * ch.mode


cdef inline double chooser_cap(const Chooser* ch) noexcept nogil:
    """The most one step counts for (s): CH_CAP one-thread steps, but never less than a
    scheduler slice, so that a worker's stall (its core lent to another process for a
    slice while it holds a piece: ~4 ms here) counts whole."""
    return max(CH_CAP * chooser_typical(ch), CH_SLICE_US * 1e-6)


cdef void chooser_end(Chooser* ch, bint won, double mode_mean, double other_mean) noexcept nogil:
    ch.probes += 1
    if won:
        ch.mode = chooser_other(ch)
        ch.switches += 1
        ch.ref_mean = other_mean
        ch.gap = CH_SWITCH_US * 1e-6
        ch.ring_n = 0
        ch.run_cap = 0
    else:
        ch.ref_mean = mode_mean
        # twice as late, up to CH_GAP_MAX_US, but at least CH_COST times what the probe cost
        # (steps of seconds each: 8 one-thread steps on an idle machine are 30 ms and more)
        ch.gap = max(min(ch.gap * 2, CH_GAP_MAX_US * 1e-6),
                     CH_COST * max(other_mean - mode_mean, 0.0) * ch.n_other)
    ch.until = ch.gap
    ch.run_mean = ch.ref_mean
    ch.run_sum = 0
    ch.run_n = 0
    ch.since = 0
    ch.jumped = 0
    ch.stage = CH_RUN


cdef void chooser_run_step(Chooser* ch, double dt) noexcept nogil:
    """A step between probes."""
    cdef int k
    cdef bint off
    ch.ring[ch.ring_i] = dt
    ch.ring_i = (ch.ring_i + 1) % CH_KEEP
    ch.ring_n = min(ch.ring_n + 1, <int>CH_KEEP)
    if ch.run_cap > 0:
        dt = min(dt, ch.run_cap)
    ch.run_sum += dt
    ch.run_n += 1
    ch.until -= dt
    ch.since += dt
    if ch.run_sum >= CH_BLOCK_US * 1e-6 and ch.run_n >= 4:
        ch.run_mean = ch.run_sum / ch.run_n
        ch.run_sum = 0
        ch.run_n = 0
        ch.run_cap = chooser_cap(ch)
        off = (ch.ref_mean > 0 and ch.since >= CH_SWITCH_US * 1e-6 and
               (ch.run_mean > 1.6 * ch.ref_mean or 1.6 * ch.run_mean < ch.ref_mean))
        if off and ch.jumped:
            ch.until = 0                # the machine changed: probe now
        ch.jumped = off
    if ch.until <= 0 and ch.run_mean > 0:
        k = <int>(CH_UNIT_US * 1e-6 / ch.run_mean) + 1
        ch.unit = max(<int>CH_UNIT_MIN, min(k, <int>CH_UNIT_MAX))
        ch.cap = chooser_cap(ch) if ch.ring_n > 0 else 1.0
        ch.stall_dt = CH_STALL_X * chooser_typical(ch) if ch.ring_n > 0 else 1.0
        ch.stage = CH_PROBE
        ch.on_other = 0
        ch.blen = ch.unit
        ch.n = ch.other_blocks = ch.first = 0
        ch.settle = 0
        ch.sum_mode = ch.sum_other = 0
        ch.n_mode = ch.n_other = ch.at_n = ch.ot_n = 0


cdef void chooser_record(Chooser* ch, int nt, double dt) noexcept nogil:
    """The step just run took dt seconds (its compiled part) on nt threads."""
    cdef int other, k
    cdef double a_mean, o_mean, ring_mean, r
    if not ch.adapt:
        return
    other = chooser_other(ch)
    if nt != chooser_next(ch):
        # the pool could not start its threads: no probe now
        ch.stage = CH_RUN
        ch.until = ch.gap
        return
    if ch.stage == CH_RUN:
        chooser_run_step(ch, dt)
        return
    dt = min(dt, ch.cap)
    if ch.first:                        # the first step after a change of count
        ch.first = 0
        ch.settle -= dt
        return
    if ch.settle > 0:                   # the next ones on one thread: not counted ...
        ch.settle -= dt
        if dt < ch.stall_dt:
            return
        # (... but a stall, counted as any other step)
    if ch.on_other:
        ch.sum_other += dt
        ch.n_other += 1
        if ch.ot_n < CH_KEEP:
            ch.ot[ch.ot_n] = dt
            ch.ot_n += 1
    else:
        ch.sum_mode += dt
        ch.n_mode += 1
        if ch.at_n < CH_KEEP:
            ch.at[ch.at_n] = dt
            ch.at_n += 1
    ch.n += 1
    if ch.n < ch.blen:
        return
    ch.n = 0                            # the block is over: the other count next
    ch.first = 1
    ch.settle = CH_SETTLE_US * 1e-6 if (ch.mode if ch.on_other else other) == 1 else 0
    if ch.on_other:
        ch.other_blocks += 1
        if (other < ch.mode and ch.other_blocks <= 2 and ch.ring_n > 0 and ch.at_n > 0
                and ch.n_other > 0):
            ring_mean = 0
            for k in range(ch.ring_n):
                ring_mean += ch.ring[k]
            ring_mean /= ch.ring_n
            o_mean = ch.sum_other / ch.n_other
            if (o_mean > 1.15 * ring_mean and
                    _median(ch.ot, ch.ot_n) > 1.4 * _median(ch.at, ch.at_n)):
                chooser_end(ch, False, ring_mean, o_mean)     # clearly slower: stop
                return
            a_mean = ch.sum_mode / ch.n_mode if ch.n_mode > 0 else ring_mean
            if (CH_FEWER_PCT * o_mean < 100 * a_mean and CH_FEWER_PCT * o_mean < 100 * ring_mean
                    and CH_FEWER_PCT * _median(ch.ot, ch.ot_n) < 100 * _median(ch.at, ch.at_n)):
                chooser_end(ch, True, a_mean, o_mean)         # clearly faster: take it
                return
        elif (other > ch.mode and ch.other_blocks <= 2 and ch.n_mode > 0 and ch.at_n > 0
                and ch.n_other > 0):
            # more threads slower in every step (not only stalls: the median too): stop
            a_mean = ch.sum_mode / ch.n_mode
            o_mean = ch.sum_other / ch.n_other
            if (100 * o_mean > CH_MORE_LOSES_PCT * a_mean and 100 * _median(ch.ot, ch.ot_n)
                    > CH_MORE_LOSES_PCT * _median(ch.at, ch.at_n)):
                chooser_end(ch, False, a_mean, o_mean)
                return
        ch.on_other = 0
        ch.at_n = 0
        ch.blen = ch.unit if ch.sum_other >= CH_OTHER_US * 1e-6 else 2 * ch.unit
        return
    if ch.sum_other >= CH_OTHER_US * 0.5e-6 and ch.n_mode > 0 and ch.n_other > 0:
        a_mean = ch.sum_mode / ch.n_mode
        o_mean = ch.sum_other / ch.n_other
        r = o_mean / a_mean
        if ch.sum_other >= CH_OTHER_US * 1e-6:
            if other > ch.mode:
                # more threads: faster in the mean (stalls included) and in the median (a
                # busy machine's lost slices, which hit either count, can tip a mean alone)
                chooser_end(ch, r < 0.87 and ch.ot_n > 0 and ch.at_n > 0 and
                            _median(ch.ot, ch.ot_n) < 0.87 * _median(ch.at, ch.at_n),
                            a_mean, o_mean)
            else:
                chooser_end(ch, r < 1.0, a_mean, o_mean)
            return
        if r > 1.3:                     # halfway and clearly slower: stop here
            chooser_end(ch, False, a_mean, o_mean)
            return
    ch.on_other = 1
    ch.blen = 2 * ch.unit


@cython.final
cdef class ThreadChooser:
    """The rule ``VecEnv`` picks its thread count by (``adapt_threads=True``; docs/learning.md
    "Threads"), on its own, to try it on timings of one's own: ``next()`` is the thread count
    of the next step (1 or ``threads``), ``record(count, seconds)`` reports how long that
    step's compiled part took.

    >>> ch = ThreadChooser(2)
    >>> for _ in range(3000):           # one thread twice as slow: stays on two
    ...     n = ch.next(); ch.record(n, 1e-4 if n == 2 else 2e-4)
    >>> ch.count, ch.probes >= 2, ch.switches
    (2, True, 0)
    >>> for _ in range(3000):           # now two threads are slower: moves to one
    ...     n = ch.next(); ch.record(n, 1.2e-4 if n == 2 else 1e-4)
    >>> ch.count, ch.switches
    (1, 1)
    """
    cdef Chooser ch

    def __init__(self, threads):
        threads = _validate.check_count(threads, "threads", 2, _validate.MAX_THREADS)
        chooser_init(&self.ch, threads, True)

    def next(self):
        """The thread count of the next step."""
        return chooser_next(&self.ch)

    def record(self, count, seconds):
        """The step run on ``count`` threads (what ``next()`` said) took ``seconds``."""
        count = _validate.as_int(count, "count")
        if count != chooser_next(&self.ch):
            raise ValueError(f"count must be what next() said ({chooser_next(&self.ch)}), "
                             f"got {count}")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or \
                not 0 < seconds < float("inf"):
            raise ValueError(f"seconds must be a positive number, got {seconds!r}")
        chooser_record(&self.ch, count, seconds)

    @property
    def count(self):
        """The count chosen (what the steps run on between probes)."""
        return self.ch.mode

    @property
    def probing(self):
        """A probe is under way."""
        return self.ch.stage != CH_RUN

    @property
    def probes(self):
        """Probes finished so far."""
        return self.ch.probes

    @property
    def switches(self):
        """Probes that changed the count."""
        return self.ch.switches

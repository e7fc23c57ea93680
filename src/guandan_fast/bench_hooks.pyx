# cython: language_level=3, boundscheck=False, wraparound=False, embedsignature=True, binding=True
"""Benchmark hooks: the compiled move generator and the determinization sampler timed and
called with as little Python around them as possible (bench/bench_movegen.py,
bench/bench_search.py, bench/callgrind_workloads.py, bench/RESULTS.md). Not part of the public
API; ``Hand`` and ``sample_world`` keep only what users need.
"""
from libc.stdlib cimport free
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from libc.time cimport clock_t, clock, CLOCKS_PER_SEC

from guandan_fast.types cimport u64, Cards
from guandan_fast.game_core cimport GameState
from guandan_fast.sample cimport Played, known_pins, sample_deal, load_state, load_played
from guandan_fast.movegen_core cimport RulesC, generate as c_generate, generate_grow
from guandan_fast.movegen cimport Hand, STACK_MOVES
from guandan_fast.interrupt cimport (Interrupt, interrupt_init, interrupted, in_main_thread,
                                     raise_pending)

from guandan_fast.rules import Rules
from guandan_fast.validate import check_count as _check_count
from guandan_fast.validate import check_seat as _check_seat, check_seed as _check_seed

_DEFAULT_RULES = Rules()


cdef Hand _hand(object hand):
    return hand if isinstance(hand, Hand) else Hand(hand)


def generate(hand, level, last=None, rules=_DEFAULT_RULES, compact=False):
    """Generate the legal moves of ``hand`` (a ``Hand``) into a private buffer, as
    ``Hand.legal_moves`` does, and return their number, making no MoveList: the compiled call
    plus the argument handling.

    >>> from guandan_fast import Hand
    >>> generate(Hand('S3 C3 D9 H7'), 7)
    9
    """
    cdef Hand self = _hand(hand)
    cdef int lv = self._prepare(level, last, rules)
    cdef u64 stack[2 * STACK_MOVES]
    cdef u64* heap = NULL
    cdef int cap = 0
    cdef int n = c_generate(self.lo, self.hi, lv, self._llo, self._lhi, &self._rc, compact,
                            stack, STACK_MOVES)
    if n >= 0:
        return n
    n = generate_grow(self.lo, self.hi, lv, self._llo, self._lhi, &self._rc, compact, &heap,
                      &cap)
    free(heap)
    if n < 0:
        raise MemoryError("no memory for the legal moves of this hand")
    return n

def time_generate(hand, level, last=None, rules=_DEFAULT_RULES, compact=False, repeat=1000):
    """Mean nanoseconds of one compiled generate() call on ``hand`` (a ``Hand``, or cards),
    over ``repeat`` calls made from C (no Python in the loop): the figure the benchmarks quote.

    The loop runs without the GIL on a private buffer and private copies of the inputs
    (other threads may use the Hand meanwhile), and Ctrl-C stops it.

    >>> time_generate('S3 C3 D9 H7', 7, repeat=10) > 0
    True
    """
    cdef Hand self = _hand(hand)
    cdef long long i, reps = _check_count(repeat, "repeat", 1)
    cdef bint cm = compact
    cdef timespec t0, t1
    cdef int lv = self._prepare(level, last, rules)
    # Private copies, taken right after _prepare (no Python code in between).
    cdef u64 lo = self.lo, hi = self.hi, llo = self._llo, lhi = self._lhi
    cdef RulesC rc = self._rc
    cdef u64* buf = NULL
    cdef int cap = 0
    cdef Interrupt it
    if generate_grow(lo, hi, lv, llo, lhi, &rc, cm, &buf, &cap) < 0:  # sized and warm
        free(buf)
        raise MemoryError("no memory for the legal moves of this hand")
    interrupt_init(&it, 64, in_main_thread(), NULL)
    try:
        clock_gettime(CLOCK_MONOTONIC, &t0)
        with nogil:
            for i in range(reps):
                c_generate(lo, hi, lv, llo, lhi, &rc, cm, buf, cap)
                if interrupted(&it):
                    break
        clock_gettime(CLOCK_MONOTONIC, &t1)
        if it.stopped:
            raise_pending(&it)
    finally:
        free(buf)
    return ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / reps


def time_sample(game, p, n, seed=0):
    """Draw ``n`` determinizations of ``game`` for seat ``p`` in compiled code (no Python per
    sample); returns ``(seconds, checksum)`` (bench/bench_search.py).

    >>> from guandan_fast.game import Game
    >>> seconds, checksum = time_sample(Game(seed=21), 0, 1000)
    >>> seconds >= 0
    True
    """
    cdef GameState st, out
    cdef Played t
    cdef Cards pins[4]
    cdef u64 rng = <u64>(_check_seed(seed) & 0xFFFFFFFFFFFFFFFF)
    cdef u64 acc = 0
    cdef long long i, count = _check_count(n, "n", 1)
    cdef clock_t t0, t1
    cdef int pp = _check_seat(p)
    load_state(game, &st)
    load_played(game, &st, &t)
    known_pins(&st, pp, &t, pins)
    with nogil:
        t0 = clock()
        for i in range(count):
            sample_deal(&st, pp, pins, &rng, &out)
            acc ^= out.hand_lo[(pp + 1) & 3] + out.hand_hi[(pp + 2) & 3]
        t1 = clock()
    return (t1 - t0) / <double>CLOCKS_PER_SEC, acc

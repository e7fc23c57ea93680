"""``thread_chooser.ThreadChooser``: the rule by which an adapting ``VecEnv`` picks 1 or ``threads``
threads (docs/learning.md, "Threads"), fed with made-up step times of known machines.

Each machine gives every step a time on one thread and on two from the same random draws
(so every rule sees the same noise): the work per step drifts 2-fold, single steps vary,
and under load two threads stall now and then for a scheduler slice (milliseconds) while
their median stays fast, which is what a rule that compares medians or short blocks misreads.
The rule's total time is checked against the best fixed count's.
"""

import numpy as np
import pytest

from guandan_fast.thread_chooser import ThreadChooser


def machine(steps, seed, *, two, stall_p=0.0, stall=2e-3, lost_p=0.0, lost=10e-3):
    """Per-step times (s) on 1 and on 2 threads: a drifting 250 µs step on one thread; on
    two, ``two`` times that, plus a stall of ``stall`` s with probability ``stall_p``; on
    both, the process loses its CPU for ``lost`` s with probability ``lost_p`` (other work)."""
    rng = np.random.default_rng(seed)
    k = np.arange(steps)
    work = 250e-6 * (1 + 0.35 * np.sin(k / 40.0)) * rng.lognormal(0, 0.15, steps)
    one = work * rng.lognormal(0, 0.05, steps)
    both = work * two + stall * (rng.random(steps) < stall_p)
    one = one + lost * (rng.random(steps) < lost_p)
    both = both + lost * (rng.random(steps) < lost_p)
    return one, both


def run(chooser, one, both):
    """Total time of the steps on the counts the chooser picks, and the steps on 2."""
    total, on_two = 0.0, 0
    for k in range(len(one)):
        n = chooser.next()
        dt = float(both[k] if n == 2 else one[k])
        chooser.record(n, dt)
        total += dt
        on_two += n == 2
    return total, on_two


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_idle_machine_stays_on_two_threads(seed):
    one, both = machine(12000, seed, two=0.52)
    ch = ThreadChooser(2)
    total, on_two = run(ch, one, both)
    assert ch.count == 2 and ch.switches == 0 and ch.probes >= 3
    assert on_two >= 0.985 * len(one)           # probes of one thread stop early
    assert total <= 1.02 * both.sum()


def test_long_steps_on_an_idle_machine_are_probed_seldom():
    # 4 ms steps (a VecEnv of thousands of tables): a probe of one thread costs ~8 of them,
    # so probes come at most every 40 times that cost
    rng = np.random.default_rng(1)
    one = 4e-3 * rng.lognormal(0, 0.1, 3000)
    both = 0.52 * one
    ch = ThreadChooser(2)
    total, on_two = run(ch, one, both)
    assert ch.count == 2 and 2 <= ch.probes <= 12
    assert total <= 1.03 * both.sum()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_small_steps_slower_on_two_threads_move_to_one_at_the_first_probe(seed):
    # 8 µs steps (a VecEnv of a few dozen tables on an idle machine): the hand-offs outweigh
    # the halves, every step 1.2x slower on two threads. The first probe (8 ms in) switches
    # after its first blocks (and the 1 ms after the change whose steps are not counted),
    # not after 40 ms of one thread; the probes of two threads after it stop after their
    # first blocks too.
    rng = np.random.default_rng(seed)
    one = 8e-6 * rng.lognormal(0, 0.1, 12000)
    both = 1.2 * one * rng.lognormal(0, 0.05, 12000)
    ch = ThreadChooser(2)
    first, _ = run(ch, one[:1200], both[:1200])
    assert ch.count == 1 and ch.switches == 1
    rest, on_two = run(ch, one[1200:], both[1200:])
    assert ch.count == 1 and ch.switches == 1 and ch.probes >= 2
    assert on_two <= 150
    assert first + rest <= 1.02 * one.sum()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_two_threads_that_stall_lose_to_one(seed):
    # Two threads fast while both run (median 0.52x) but stalled 2 ms at 8 % of the steps:
    # mean 1.16x of one thread. The rule must see the cost, not the median.
    one, both = machine(12000, seed, two=0.52, stall_p=0.08)
    assert np.median(both) < 0.6 * np.median(one) and both.mean() > 1.1 * one.mean()
    ch = ThreadChooser(2)
    total, on_two = run(ch, one, both)
    assert ch.count == 1
    assert on_two <= 0.25 * len(one)
    assert total <= 1.04 * one.sum()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_short_steps_whose_stalls_are_a_scheduler_slice_lose_to_one(seed):
    # Today's steps (50 µs on one thread, 0.55x on two) stalled for a whole scheduler slice
    # (4.2 ms, measured under one busy process) at 1 % of the steps: 1.3-1.4x of one thread
    # in the mean. A stall is 150 median steps: a cap of 12 median steps counted it as 0.7 ms
    # and kept two threads (1.31-1.38x of one thread's time); the 5 ms floor counts it whole.
    rng = np.random.default_rng(seed)
    k = np.arange(40000)
    one = 50e-6 * (1 + 0.35 * np.sin(k / 40.0)) * rng.lognormal(0, 0.1, len(k))
    both = 0.55 * one + 4.2e-3 * (rng.random(len(k)) < 0.01)
    assert both.mean() > 1.3 * one.mean()
    ch = ThreadChooser(2)
    total, on_two = run(ch, one, both)
    assert ch.count == 1 and on_two <= 0.15 * len(k)
    assert total <= 1.06 * one.sum()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_other_work_that_takes_the_cpu_at_any_count_is_noise(seed):
    # 3 % of the steps lose the CPU for 10 ms at either count (a third of the time or more).
    # Two threads (0.52x, stalled 3 ms at 2 % of their steps) 0.9x of one on the whole: the
    # rule stays faster than one thread.
    one, both = machine(12000, seed, two=0.52, stall_p=0.02, stall=3e-3, lost_p=0.03)
    assert 0.8 * one.sum() < both.sum() < 0.92 * one.sum()
    total, _ = run(ThreadChooser(2), one, both)
    assert total <= 0.98 * one.sum()
    # stalled at 12 % (1.3x of one thread on the whole): within issue 19's 0.9x of one thread
    # (1 / 0.9 of its time; the noise makes the probes of two threads long and some of them
    # win: 1.04-1.08x here)
    one, both = machine(12000, seed, two=0.52, stall_p=0.12, stall=3e-3, lost_p=0.03)
    assert both.sum() > 1.2 * one.sum()
    total, on_two = run(ThreadChooser(2), one, both)
    assert total <= one.sum() / 0.9 and on_two <= 0.3 * len(one)


@pytest.mark.parametrize("seed", [1, 2])
def test_follows_a_machine_that_changes(seed):
    # idle, then busy (two threads 1.3x slower in mean), then idle again, then busy with
    # two threads still worth it (0.75x)
    parts = [machine(6000, seed, two=0.52), machine(6000, seed + 10, two=0.6, stall_p=0.12),
             machine(6000, seed + 20, two=0.52), machine(6000, seed + 30, two=0.55,
                                                          stall_p=0.03, stall=1e-3)]
    one = np.concatenate([p[0] for p in parts])
    both = np.concatenate([p[1] for p in parts])
    best = sum(min(p[0].sum(), p[1].sum()) for p in parts)
    ch = ThreadChooser(2)
    total, _ = run(ch, one, both)
    assert ch.switches >= 2
    assert total <= 1.1 * best


def test_record_checks_its_input():
    ch = ThreadChooser(2)
    with pytest.raises(ValueError, match="what next"):
        ch.record(1, 1e-4)
    with pytest.raises(ValueError, match="positive"):
        ch.record(2, 0.0)
    with pytest.raises(ValueError, match="positive"):
        ch.record(2, float("nan"))
    with pytest.raises(TypeError):
        ch.record(2.0, 1e-4)
    with pytest.raises(ValueError, match="threads must be >= 2"):
        ThreadChooser(1)
    assert ch.count == 2 and ch.probes == 0 and not ch.probing


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_one_thread_settling_after_two_does_not_count_against_it(seed):
    # Beside two busy processes (measured in session 12) one thread's steps
    # just after steps on two took 4.5x, 1.9x, 1.9x, then 1.3x for 5 steps, their usual time
    # (the scheduler paying back the CPU two threads took), while two threads, fast while
    # both run, stalled 3 ms at 1 % of their steps: 1.15x of one thread on the whole. Counted
    # from the second step after each change, one thread looked slower than two in the
    # probes and two threads stayed.
    rng = np.random.default_rng(seed)
    settle = [4.5, 1.9, 1.9] + [1.3] * 5
    ch = ThreadChooser(2)
    total = one_total = 0.0
    since, last, on_two = 0, 2, 0
    for _ in range(30000):
        n = ch.next()
        since = since + 1 if n == last else 0
        last = n
        one = 50e-6 * rng.lognormal(0, 0.1)
        if n == 1:
            dt = one * (settle[since] if since < len(settle) else 1.0)
        else:
            dt = 0.55 * one + 3e-3 * (rng.random() < 0.01)
            on_two += 1
        ch.record(n, dt)
        total += dt
        one_total += one
    # (counting them, two threads stayed at the end for two seeds in three, on_two 9,379 for
    # the third; the probes' own settling costs a few per cent: 1.06-1.08x)
    assert ch.count == 1 and on_two <= 0.3 * 30000
    assert total <= one_total / 0.9

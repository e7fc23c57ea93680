"""Two threads against one beside busy processes: every multi-threaded loop of the package
(``VecEnv``, ``simulate``, ``tournament``, a search agent in ``simulate``) on default settings,
with 0, 1 and 2 other CPU-bound processes (``python -c 'while 1: pass'``, started and killed by
this script). Issue 19: never slower than one thread (>= 0.9x under load, >= 1.85x idle).

Run as a script (prints the table recorded in bench/RESULTS.md)::

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/bench_threads.py [--loops vecenv,simulate,tournament,search] \
        [--busy 0,1,2] [--rounds 3] [--seconds 1.0] [--envs 256,1024]

The VecEnv loops run once per table count of ``--envs``: ``vecenv`` is the whole loop (the
caller's numpy draw of random legal actions, ``step``, ``pending()``, ``drain_results()``),
``vecenv_step`` the same loop's compiled step alone (the part the threads share; the rest runs
on the caller's thread at any thread count), ``vecenv_fixed`` the whole loop with
``adapt_threads=False``.

or under pytest-benchmark: ``.venv/bin/python -m pytest bench/bench_threads.py
--benchmark-enable --benchmark-only``.

Each round runs the loop once on 1 thread and once on 2, alternately (both see the same
load); the figure is the median over rounds of each count's rate, and their ratio; the last
column is the process's CPU time on 2 threads over that on 1 (the same work: what 2 threads
cost beyond it, whatever share of a loaded machine the process got). Work sizes are fixed
per loop: each loop is timed once on one thread before the busy processes start, and sized so
that a run takes about ``--seconds`` there; so a round measures the same work at both counts,
and a faster machine runs as long as a slower one.

``--interleave K`` (VecEnv only): on a machine whose load changes from second to second, three
``VecEnv(256)`` (1 thread, 2 threads fixed, 2 threads adapting) step K steps each in turn for
``--steps`` steps, so all three see the same load; prints each one's rate, its ratio to the
1-thread env, and the share of the adapting env's steps on 2 threads (``--envs 256,1024``: other
table counts; the caller's serial Python per step weighs less in bigger batches). Each env's
rate is given twice: of the whole loop, and of the compiled step alone (the part the threads
share; ``VecEnv._last_region_seconds``), with the rest of a step (the caller's numpy draw,
``pending()``, ``drain_results()``) in µs::

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/bench_threads.py --interleave 100 --steps 3000

Takes about 1-3 minutes with the defaults (every loop sized to ``--seconds``).
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import guandan_fast as gf
from guandan_fast.simulate import simulate
from guandan_fast.tournament import tournament

from bench_learning_loop import random_actions


def vecenv_loop(threads, scale=1.0, adapt_threads=True, num_envs=256):
    """Run ``VecEnv(num_envs)`` (default encoder) with random legal actions; returns the
    decisions/s of the whole loop and of the compiled step alone (what the threads share)."""
    steps = max(10, int(4000 * scale * 256 / num_envs))
    run = blocks_in_turns({"env": dict(threads=threads, adapt_threads=adapt_threads)}, steps, 1,
                          num_envs)["env"]
    return steps * num_envs / run["spent"][0], steps * num_envs / run["region"][0]


def vecenv_rate(threads, scale=1.0, adapt_threads=True, num_envs=256):
    """Decisions/s of ``VecEnv(num_envs)`` (default encoder) with random legal actions."""
    return vecenv_loop(threads, scale, adapt_threads, num_envs)[0]


def vecenv_step_rate(threads, scale=1.0, num_envs=256):
    """The same loop's compiled step alone: decisions per second of ``step``'s compiled
    region (``VecEnv._last_region_seconds``), the caller's numpy draw, ``pending()`` and
    ``drain_results()`` left out (they run on the caller's thread whatever the count)."""
    return vecenv_loop(threads, scale, True, num_envs)[1]


def simulate_rate(threads, scale=1.0):
    """Hands/s of ``simulate`` with four greedy bots."""
    hands = max(200, int(10000 * scale))
    t = time.perf_counter()
    simulate(hands=hands, agents=("greedy",) * 4, threads=threads, seed=1)
    return hands / (time.perf_counter() - t)


def tournament_rate(threads, scale=1.0):
    """Matches/s of a greedy-against-random duplicate tournament."""
    deals = max(4, int(900 * scale))
    t = time.perf_counter()
    res = tournament("greedy,random", deals, seed=1, workers=threads)
    return 2 * deals / (time.perf_counter() - t) if res is not None else 0.0


def search_rate(threads, scale=1.0):
    """Matches/s of ``simulate`` with a PIMC search agent against greedy bots."""
    matches = max(16, int(64 * scale))
    t = time.perf_counter()
    simulate(matches=matches, agents="pimc:samples=2,greedy,pimc:samples=2,greedy",
             threads=threads, seed=1)
    return matches / (time.perf_counter() - t)


def vecenv_fixed_rate(threads, scale=1.0, num_envs=256):
    """The same with ``adapt_threads=False`` (every step on ``threads`` threads)."""
    return vecenv_rate(threads, scale, adapt_threads=False, num_envs=num_envs)


LOOPS = {"vecenv": vecenv_rate, "vecenv_step": vecenv_step_rate, "vecenv_fixed": vecenv_fixed_rate,
         "simulate": simulate_rate, "tournament": tournament_rate, "search": search_rate}


def blocks_in_turns(specs, block, rounds, num_envs=256):
    """Step a ``VecEnv(num_envs, seed=1, **spec)`` per entry of ``specs`` (name: keywords)
    ``block`` steps each in turn, ``rounds`` times, random legal actions (so all see the same
    load). Per name: the wall time of each block (``spent``), its compiled steps' time
    (``region``: ``VecEnv._last_region_seconds``, the part the threads share) and its steps
    on two threads or more (``on_two``)."""
    envs = {k: gf.VecEnv(num_envs, seed=1, **v) for k, v in specs.items()}
    state = {k: [e.reset(), np.random.default_rng(0)] for k, e in envs.items()}
    out = {k: {"spent": [], "region": [], "on_two": 0} for k in envs}
    for _ in range(rounds):
        for name, env in envs.items():
            b, rng = state[name]
            region = 0.0
            t = time.perf_counter()
            for _ in range(block):
                env.step(random_actions(b, rng, False))
                region += env._last_region_seconds
                b = env.pending()
                env.drain_results()
                out[name]["on_two"] += env.threads_in_use > 1
            out[name]["spent"].append(time.perf_counter() - t)
            out[name]["region"].append(region)
            state[name][0] = b
    return out


def interleaved(block, steps, busy, num_envs=256):
    """Decisions/s of three VecEnv(num_envs) stepped ``block`` steps each in turn (same load)."""
    specs = {"1 thread": dict(threads=1), "2 threads, fixed": dict(threads=2, adapt_threads=False),
             "2 threads, adapting (default)": dict(threads=2)}
    rounds = max(1, steps // block)
    procs = start_busy(busy)
    try:
        time.sleep(0.5 if busy else 0)
        load = os.getloadavg()[0]
        runs = blocks_in_turns(specs, block, rounds, num_envs)
    finally:
        stop_busy(procs)
    spent = {k: sum(r["spent"]) for k, r in runs.items()}
    region = {k: sum(r["region"]) for k, r in runs.items()}
    on_two = runs["2 threads, adapting (default)"]["on_two"]
    n_steps = rounds * block
    rates = {k: n_steps * num_envs / v for k, v in spent.items()}
    step_rates = {k: n_steps * num_envs / v for k, v in region.items()}
    one, step_one = rates["1 thread"], step_rates["1 thread"]
    print(f"VecEnv({num_envs}), busy processes {busy}, load at start {load:.2f}, "
          f"{rounds} x {block} steps each; "
          f"the adapting env ran {on_two / n_steps:.0%} of its steps on 2 threads")
    # The loop's rate counts the caller's own serial time (the numpy draw, pending(),
    # drain_results()); the step's rate only the compiled step that the threads share.
    print("| env | decisions/s, whole loop | ratio | decisions/s, compiled step only | ratio "
          "| the rest of a step (µs) |")
    print("|---|---|---|---|---|---|")
    for k, v in rates.items():
        rest = (spent[k] - region[k]) / n_steps * 1e6
        print(f"| {k} | {v:,.0f} | **{v / one:.2f}x** | {step_rates[k]:,.0f} "
              f"| {step_rates[k] / step_one:.2f}x | {rest:.1f} |", flush=True)


def start_busy(k):
    """k CPU-bound processes of our own (killed by stop_busy)."""
    return [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(k)]


def stop_busy(procs):
    for p in procs:
        p.kill()
        p.wait()


# The work scale of a calibration run: large enough that no loop's minimum size applies
# (search: 16 matches), small enough to take a fraction of a second.
CALIBRATION = 0.25


def sweep(loops, busy, rounds, seconds, sizes=(256,)):
    print(f"1 vs 2 threads, {rounds} alternated rounds, medians of the rates")
    print("| loop | busy processes | load at start | 1 thread | 2 threads | ratio | min ratio of a round "
          "| CPU time, 2 threads / 1 |")
    print("|---|---|---|---|---|---|---|---|")
    for name, fn in [(f"{x}({n})", functools.partial(LOOPS[x], num_envs=n))
                     for x in loops if x.startswith("vecenv") for n in sizes] \
            + [(x, LOOPS[x]) for x in loops if not x.startswith("vecenv")]:
        fn(1, 0.1)                          # warm-up (imports, first allocation)
        t = time.perf_counter()             # then the scale of a run of about `seconds`
        fn(1, CALIBRATION)
        scale = CALIBRATION * seconds / max(time.perf_counter() - t, 1e-3)
        for k in busy:
            procs = start_busy(k)
            try:
                time.sleep(0.5)
                load = os.getloadavg()[0]
                one, two, cpu = [], [], [0.0, 0.0]
                for _ in range(rounds):
                    for t, out in ((0, one), (1, two)):
                        c = time.process_time()
                        out.append(fn(t + 1, scale))
                        cpu[t] += time.process_time() - c
            finally:
                stop_busy(procs)
            m1, m2 = statistics.median(one), statistics.median(two)
            worst = min(b / a for a, b in zip(one, two))
            # the same work at both counts: more CPU time on 2 threads is their overhead (spinning,
            # hand-offs, work thrown away), whatever share of the machine the process got
            print(f"| {name} | {k} | {load:.2f} | {m1:,.1f} | {m2:,.1f} | **{m2 / m1:.2f}x** "
                  f"| {worst:.2f}x | {cpu[1] / cpu[0]:.2f} |", flush=True)


# -- pytest-benchmark ----------------------------------------------------------------------------

def test_vecenv_two_threads(benchmark):
    benchmark.pedantic(vecenv_rate, args=(2, 0.05), rounds=3, iterations=1)


def test_simulate_two_threads(benchmark):
    benchmark.pedantic(simulate_rate, args=(2, 0.1), rounds=3, iterations=1)


def test_tournament_two_threads(benchmark):
    benchmark.pedantic(tournament_rate, args=(2, 0.1), rounds=3, iterations=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loops", default="vecenv,simulate,tournament,search")
    ap.add_argument("--busy", default="0,1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=1.0,
                    help="a run's length on one thread (measured once per loop, before the "
                         "busy processes start)")
    ap.add_argument("--interleave", type=int, default=0, metavar="K",
                    help="VecEnv only: 1-thread, fixed and adapting envs, K steps each in turn")
    ap.add_argument("--steps", type=int, default=3000, help="steps of each env with --interleave")
    ap.add_argument("--envs", default="256",
                    help="VecEnv's table counts, comma-separated (default 256)")
    args = ap.parse_args()
    try:
        sizes = [int(x) for x in args.envs.split(",")]
        busy = [int(x) for x in args.busy.split(",")]
    except ValueError:
        sizes = busy = [-1]
    if (args.interleave < 0 or args.steps < 1 or min(sizes) < 1 or min(busy) < 0
            or not args.seconds > 0):
        ap.error("--interleave must be >= 0, --steps >= 1, --envs positive integers, "
                 "--busy integers >= 0 and --seconds > 0")
    if args.interleave:
        print("load average at the start: %.2f %.2f %.2f" % os.getloadavg())
        for n in sizes:
            for k in busy:
                interleaved(args.interleave, args.steps, k, n)
        return
    loops = [x.strip() for x in args.loops.split(",") if x.strip()]
    for x in loops:
        if x not in LOOPS:
            ap.error(f"unknown loop {x!r}; known: {', '.join(LOOPS)}")
    print("load average at the start: %.2f %.2f %.2f" % os.getloadavg())
    sweep(loops, busy, args.rounds, args.seconds, sizes)
    print("load average at the end: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()

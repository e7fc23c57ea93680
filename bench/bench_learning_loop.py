"""The learning loop on one thread, in hands per second (issue 19): ``VecEnv(256)``, encoding
on, a uniformly random legal action per table drawn in numpy from the batch's CSR lists,
``drain_results()`` after every step (it counts the hands). Modes: the default encoder in
abstract mode, DanZero's encoder in candidates mode (its 54 card counts per candidate), and
the information-state encoder (the observation and the hand's last 16 moves) in abstract mode;
each also with ``auto_pass=True`` (forced passes played inside the step).

Run as a script (prints the table recorded in bench/RESULTS.md)::

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/bench_learning_loop.py [--steps 1500] [--repeats 5]

Instruction counts (load-independent; the cost of one decision is the difference of two
runs divided by the extra decisions, 100 steps x 256 tables)::

    OPENBLAS_NUM_THREADS=1 valgrind --tool=callgrind .venv/bin/python bench/bench_learning_loop.py \\
        --steps-only 50 --mode danzero        # and 150; --mode default|danzero|info, --auto-pass

or under pytest-benchmark: ``.venv/bin/python -m pytest bench/bench_learning_loop.py
--benchmark-enable --benchmark-only``.

Takes about 10 s with the defaults.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import guandan_fast as gf

MODES = {"default": dict(encoder="default", action_mode="abstract"),
         "danzero": dict(encoder="danzero", action_mode="candidates"),
         "info": dict(encoder="info", action_mode="abstract")}


def random_actions(batch, rng, candidates=False):
    """One uniformly random legal action per table (its index in candidates mode)."""
    counts = np.diff(batch.cand_offsets)
    local = (rng.random(len(counts)) * counts).astype(np.int64)
    return local if candidates else batch.cand_ids[batch.cand_offsets[:-1] + local]


def run(mode, steps, envs=256, auto_pass=False):
    """(hands, decisions returned, seconds) of ``steps`` steps after a warm-up."""
    kw = MODES[mode]
    cand = kw["action_mode"] == "candidates"
    if auto_pass:                  # (only then: the script also runs against older builds)
        kw = dict(kw, auto_pass=True)
    env = gf.VecEnv(envs, seed=1, **kw)
    b = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        env.step(random_actions(b, rng, cand))
        b = env.pending()
    env.drain_results()
    hands = 0
    t = time.perf_counter()
    for _ in range(steps):
        env.step(random_actions(b, rng, cand))
        b = env.pending()
        hands += len(env.drain_results()["env_id"])
    return hands, steps * envs, time.perf_counter() - t


def table(steps, repeats):
    print(f"VecEnv(256), 1 thread, {steps} steps a run, median of {repeats} runs")
    print("| mode | auto_pass | hands/s (median) | best run | decisions returned/s | decisions per hand |")
    print("|---|---|---|---|---|---|")
    for mode in MODES:
        for ap in (False, True):
            runs = [run(mode, steps, auto_pass=ap) for _ in range(repeats)]
            rates = [h / s for h, _, s in runs]
            dec = statistics.median(d / s for _, d, s in runs)
            per_hand = sum(d for _, d, _ in runs) / max(1, sum(h for h, _, _ in runs))
            print(f"| {mode} | {ap} | {statistics.median(rates):,.0f} | {max(rates):,.0f} "
                  f"| {dec:,.0f} | {per_hand:.1f} |", flush=True)


# -- pytest-benchmark ----------------------------------------------------------------------------

def _bench(benchmark, mode, auto_pass):
    benchmark.pedantic(run, args=(mode, 40), kwargs=dict(auto_pass=auto_pass), rounds=3,
                       iterations=1)


def test_loop_default(benchmark):
    _bench(benchmark, "default", False)


def test_loop_danzero(benchmark):
    _bench(benchmark, "danzero", False)


def test_loop_default_auto_pass(benchmark):
    _bench(benchmark, "default", True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--steps-only", type=int, default=0, metavar="N",
                    help="just N steps of one mode (for callgrind)")
    ap.add_argument("--mode", choices=list(MODES), default="default")
    ap.add_argument("--auto-pass", action="store_true")
    args = ap.parse_args()
    if args.steps_only:
        hands, dec, _ = run(args.mode, args.steps_only, auto_pass=args.auto_pass)
        print(f"{hands} hands, {dec} decisions")
        return
    print("load average at the start: %.2f %.2f %.2f" % os.getloadavg())
    table(args.steps, args.repeats)
    print("load average at the end: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()

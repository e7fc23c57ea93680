"""What the machine gives two threads of one process against two processes (issue 19,
"Threads"): the same VecEnv work split four ways, in fresh processes started together, in
turns, so each round's four runs see about the same host.

* **one process, 1 thread**: ``VecEnv(N // 2)``, twice the steps;
* **two processes, 1 thread each**: two such processes at once (nothing shared: what the two
  CPUs give work that never meets);
* **one process, 1 thread**: ``VecEnv(N)``;
* **one process, 2 threads**: ``VecEnv(N, threads=2, adapt_threads=False)``.

Each run prints the decisions per second of its compiled step (``_last_region_seconds``)
and of its whole loop (random legal actions drawn in numpy, ``pending()``,
``drain_results()``). The table gives, per round, the two processes' summed rate over one
process's, and the 2-thread env's over the 1-thread env's; then their medians. On a virtual
machine whose two CPUs move closer and further apart (bench/RESULTS.md, session 11), the
processes keep ~1.9-2x while the threads, which hand data between the CPUs at every step,
swing from round to round::

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/threads_vs_processes.py [--envs 256] [--rounds 12] [--steps 3000]

``--steps`` are the ``VecEnv(N)`` runs' steps (the half-size runs take twice as many).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# One run (bench_learning_loop's random legal actions): set up and warm up, say "ready", wait for a line, run, print the two rates.
CHILD = r"""
import sys, time
sys.path.insert(0, sys.argv[4])
import numpy as np
import guandan_fast as gf
from bench_learning_loop import random_actions
n, threads, steps = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
env = gf.VecEnv(n, seed=1, threads=threads, adapt_threads=False)
b = env.reset()
rng = np.random.default_rng(0)
for _ in range(100):
    env.step(random_actions(b, rng, False)); b = env.pending(); env.drain_results()
print("ready", flush=True)
sys.stdin.readline()
region = 0.0
t = time.perf_counter()
for _ in range(steps):
    env.step(random_actions(b, rng, False)); region += env._last_region_seconds
    b = env.pending(); env.drain_results()
print(n * steps / region, n * steps / (time.perf_counter() - t), flush=True)
"""


def run_together(specs, steps):
    """Start one child per (num_envs, threads) of specs, release them at once; the sums of
    their (compiled step, whole loop) decisions per second."""
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(n), str(t), str(steps), HERE],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for n, t in specs]
    try:
        for p in procs:
            if p.stdout.readline().strip() != "ready":
                raise RuntimeError(f"a child failed (exit {p.wait()})")
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        rates = [tuple(float(x) for x in p.stdout.readline().split()) for p in procs]
    finally:
        for p in procs:
            p.kill()
            p.wait()
    if any(len(r) != 2 for r in rates):
        raise RuntimeError("a child failed")
    return sum(r[0] for r in rates), sum(r[1] for r in rates)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--envs", type=int, default=256, help="tables of the 2-thread env (even)")
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--steps", type=int, default=3000)
    args = ap.parse_args()
    if args.envs < 2 or args.envs % 2 or args.rounds < 1 or args.steps < 1:
        ap.error("--envs must be an even number >= 2, --rounds and --steps >= 1")
    n, steps = args.envs, args.steps
    procs, threads = [], []
    print(f"VecEnv({n}): 2 processes x VecEnv({n // 2}) against 1; 2 threads against 1")
    print("| round | 2 processes / 1: compiled step | whole loop "
          "| 2 threads / 1: compiled step | whole loop |")
    print("|---|---|---|---|---|")
    for r in range(args.rounds):
        one_half = run_together([(n // 2, 1)], 2 * steps)
        two_procs = run_together([(n // 2, 1), (n // 2, 1)], 2 * steps)
        one = run_together([(n, 1)], steps)
        two_threads = run_together([(n, 2)], steps)
        procs.append((two_procs[0] / one_half[0], two_procs[1] / one_half[1]))
        threads.append((two_threads[0] / one[0], two_threads[1] / one[1]))
        print(f"| {r + 1} | {procs[-1][0]:.2f}x | {procs[-1][1]:.2f}x "
              f"| {threads[-1][0]:.2f}x | {threads[-1][1]:.2f}x |", flush=True)
    med = [statistics.median(x[i] for x in rows) for rows in (procs, threads) for i in (0, 1)]
    print(f"| **median** | **{med[0]:.2f}x** | **{med[1]:.2f}x** "
          f"| **{med[2]:.2f}x** | **{med[3]:.2f}x** |")


if __name__ == "__main__":
    main()

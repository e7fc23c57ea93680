"""Two builds of the package compared at the same moment: the learning loop of
bench_learning_loop.py run by both at once, each pinned to its own core, the cores swapped
every round. On a host whose speed changes from minute to minute (a shared VM), runs one after
the other differ by up to 2x; runs side by side see the same host, so the ratio of each pair
is the figure (its median over the rounds is printed).

    .venv/bin/python bench/paired_builds.py OLD/.venv/bin/python NEW/.venv/bin/python \\
        [--mode default|danzero] [--steps 1500] [--rounds 10] [--envs 256] [--alternate]

``--alternate``: when other work keeps one core busier than the other (the pairs' ratios then
swing with the core each build got), both builds keep one env each, on one core, and step
it in turns of ``--steps`` steps (old-new, then new-old); each turn pair is a ratio.

Each interpreter imports its own ``guandan_fast`` (run it from outside both source trees, or
give builds installed non-editable); needs 2 CPUs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# The loop, as bench_learning_loop.run, in a child: its set-up and warm-up, then a turn of
# `steps` steps whose hands/s it prints; CHILD runs one turn, TURNS one per line read (for
# --alternate).
SETUP = """
import os, sys, time
os.sched_setaffinity(0, {core})
sys.path.insert(0, {here!r})
import numpy as np
import guandan_fast as gf
from bench_learning_loop import MODES, random_actions
kw = dict(MODES[{mode!r}]); cand = kw["action_mode"] == "candidates"
env = gf.VecEnv({envs}, seed=1, **kw); b = env.reset(); rng = np.random.default_rng(0)
for _ in range(20):
    env.step(random_actions(b, rng, cand)); b = env.pending()
env.drain_results()
def turn():
    global b
    hands = 0; t = time.perf_counter()
    for _ in range({steps}):
        env.step(random_actions(b, rng, cand)); b = env.pending()
        hands += len(env.drain_results()["env_id"])
    print(hands / (time.perf_counter() - t), flush=True)
"""
CHILD = SETUP + "turn()\n"
TURNS = SETUP + "for line in sys.stdin:\n    turn()\n"


def alternate(old, new, mode, steps, envs, rounds, report):
    """Both builds' envs on core 0, a turn each (old-new, new-old, ...); report(k, a, b)."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    procs = [subprocess.Popen([py, "-c", TURNS.format(core={0}, here=HERE, mode=mode,
                                                      envs=envs, steps=steps)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env=env, cwd="/")
             for py in (old, new)]

    def turn(p):
        p.stdin.write("go\n")
        p.stdin.flush()
        line = p.stdout.readline()
        if not line:
            sys.exit(f"a run failed (exit {p.wait()})")
        return float(line)

    try:
        for k in range(rounds):
            if k % 2 == 0:
                a = turn(procs[0])
                b = turn(procs[1])
            else:
                b = turn(procs[1])
                a = turn(procs[0])
            report(k, a, b)
    finally:
        for p in procs:
            p.stdin.close()
            p.wait()


def pair(old, new, mode, steps, envs, swap):
    """(old hands/s, new hands/s), both run at once on cores 0 and 1 (swapped if ``swap``)."""
    cores = (1, 0) if swap else (0, 1)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    procs = [subprocess.Popen([py, "-c", CHILD.format(core={c}, here=HERE, mode=mode,
                                                      envs=envs, steps=steps)],
                              stdout=subprocess.PIPE, text=True, env=env, cwd="/")
             for py, c in zip((old, new), cores)]
    out = []
    for p in procs:
        text, _ = p.communicate()
        if p.returncode != 0:
            sys.exit(f"a run failed (exit {p.returncode})")
        out.append(float(text.split()[-1]))
    return out[0], out[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", help="the first build's python")
    ap.add_argument("new", help="the second build's python")
    ap.add_argument("--mode", choices=("default", "danzero"), default="default")
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--envs", type=int, default=256)
    ap.add_argument("--alternate", action="store_true",
                    help="both on one core, in turns (when the cores are unevenly loaded)")
    args = ap.parse_args()
    if args.steps < 1 or args.rounds < 1 or args.envs < 1:
        ap.error("--steps, --rounds and --envs must be >= 1")
    if len(os.sched_getaffinity(0)) < 2 and not args.alternate:
        ap.error("needs 2 CPUs (or --alternate)")
    rows = []
    print(f"{args.mode}, VecEnv({args.envs}), {args.steps} steps a run, hands/s")
    print("| round | old | new | new / old |")
    print("|---|---|---|---|")

    def report(k, a, b):
        rows.append((a, b))
        print(f"| {k + 1} | {a:,.0f} | {b:,.0f} | {b / a:.2f} |", flush=True)

    try:
        if args.alternate:
            alternate(args.old, args.new, args.mode, args.steps, args.envs, args.rounds, report)
        else:
            for k in range(args.rounds):
                report(k, *pair(args.old, args.new, args.mode, args.steps, args.envs,
                                k % 2 == 1))
    except KeyboardInterrupt:
        print(f"interrupted after {len(rows)} round(s)")
    if rows:
        ratios = [b / a for a, b in rows]
        print(f"median: old {statistics.median(a for a, _ in rows):,.0f}, "
              f"new {statistics.median(b for _, b in rows):,.0f}, paired ratio "
              f"{statistics.median(ratios):.3f} (spread {min(ratios):.2f}-{max(ratios):.2f})")


if __name__ == "__main__":
    main()

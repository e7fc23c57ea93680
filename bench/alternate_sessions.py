"""Two builds' learning loops compared in turns on one core, over several sessions of fresh
processes (what bench/RESULTS.md's `encode6` section measured with).

Each session starts one child per build, both pinned to the same core; they take turns of
``--steps`` steps (old-new, new-old, ...) of bench_learning_loop.py's loop (``VecEnv(256)``,
random legal actions, ``drain_results()`` every step), each turn timed by the child's own CPU
time (time the process was not running does not count). A session's figure is the geometric
mean of its ``--turns`` new/old ratios; one pair of processes alone was biased by up to ±3 %
here (where its pages landed), so sessions are repeated with fresh processes, two at a time
(cores 0 and 1), and the result is the geometric mean of the sessions with a bootstrap 95 %
interval.

    .venv/bin/python bench/alternate_sessions.py OLD/.venv/bin/python NEW/.venv/bin/python \\
        [--mode default|danzero] [--steps 50] [--turns 50] [--sessions 8]

Run it from outside both source trees (or give builds installed non-editable); needs 2 CPUs.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import subprocess
import sys
import threading

from paired_builds import HERE, SETUP

# One build's child: set up (paired_builds.SETUP), say "ready", then one turn of `steps`
# steps per line read, printing its decisions per CPU second.
CHILD = SETUP + """
print("ready", flush=True)
for line in sys.stdin:
    c = time.process_time()
    for _ in range({steps}):
        env.step(random_actions(b, rng, cand)); b = env.pending(); env.drain_results()
    print({steps} * 256 / (time.process_time() - c), flush=True)
"""


def session(old, new, mode, steps, turns, core):
    """The geometric mean of one session's new/old turn ratios, both children on `core`."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    procs = [subprocess.Popen([py, "-c", CHILD.format(core={core}, here=HERE, mode=mode,
                                                      envs=256, steps=steps)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env=env, cwd="/") for py in (old, new)]

    def turn(p):
        p.stdin.write("go\n")
        p.stdin.flush()
        line = p.stdout.readline()
        if not line:
            raise RuntimeError(f"a child failed (exit {p.wait()})")
        return float(line)

    try:
        for p in procs:
            if p.stdout.readline().strip() != "ready":
                raise RuntimeError(f"a child failed to start (exit {p.wait()})")
        logs = []
        for k in range(turns):
            if k % 2 == 0:
                a = turn(procs[0])
                b = turn(procs[1])
            else:
                b = turn(procs[1])
                a = turn(procs[0])
            logs.append(math.log(b / a))
        return math.exp(statistics.mean(logs))
    finally:
        for p in procs:
            p.stdin.close()
            p.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", help="the first build's python")
    ap.add_argument("new", help="the second build's python")
    ap.add_argument("--mode", choices=("default", "danzero"), default="default")
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--turns", type=int, default=50)
    ap.add_argument("--sessions", type=int, default=8)
    args = ap.parse_args()
    if min(args.steps, args.turns, args.sessions) < 1:
        ap.error("--steps, --turns and --sessions must be >= 1")
    if len(os.sched_getaffinity(0)) < 2:
        ap.error("needs 2 CPUs")
    ratios = []
    try:
        for first in range(0, args.sessions, 2):
            out = {}
            cores = range(min(2, args.sessions - first))
            ths = [threading.Thread(target=lambda c=c: out.__setitem__(c, session(
                args.old, args.new, args.mode, args.steps, args.turns, c))) for c in cores]
            for t in ths:
                t.start()
            for t in ths:
                t.join()
            if len(out) < len(ths):
                sys.exit("a session failed")
            for c in cores:
                ratios.append(out[c])
                print(f"session {len(ratios)} (core {c}): new / old {out[c]:.3f}", flush=True)
    except KeyboardInterrupt:
        print(f"interrupted after {len(ratios)} session(s)")
    if ratios:
        logs = [math.log(r) for r in ratios]
        rng = random.Random(0)
        boots = sorted(statistics.mean(rng.choices(logs, k=len(logs))) for _ in range(4000))
        print(f"{args.mode}: new / old {math.exp(statistics.mean(logs)):.3f} over "
              f"{len(ratios)} sessions (bootstrap 95 %: {math.exp(boots[100]):.3f}-"
              f"{math.exp(boots[3899]):.3f})")


if __name__ == "__main__":
    main()

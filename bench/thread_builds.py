"""Two builds' two-thread speed-up compared: each fresh process steps a one-thread and a
two-thread ``VecEnv`` (``adapt_threads=False``, default encoder, random legal actions) in
turns, blocks of steps each, and reports the median over blocks of the compiled step's
1-thread time over its 2-thread time (``VecEnv._last_region_seconds``): the speed-up at the
same moment of the host. The builds' processes alternate, so both see the same stretch of a
host whose speed drifts (bench/RESULTS.md, session 11: one thread's step of 256 tables took
anywhere between 40 and 63 µs from one 20 ms window to the next).

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/thread_builds.py OLD/.venv/bin/python \\
        NEW/.venv/bin/python [--envs 256] [--runs 6] [--blocks 40]

Each interpreter imports its own ``guandan_fast`` (run it from outside both source trees, or
give builds installed non-editable); needs 2 CPUs and an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

CHILD = """
import statistics, sys
sys.path.insert(0, {here!r})
from bench_threads import blocks_in_turns
per_block = max(10, 25600 // {envs})
runs = blocks_in_turns({{"one": dict(threads=1), "two": dict(threads=2, adapt_threads=False)}},
                       per_block, {blocks} + 1, {envs})
one, two = runs["one"]["region"][1:], runs["two"]["region"][1:]   # the first block warms up
print(statistics.median(a / b for a, b in zip(one, two)),
      sum(one) / {blocks} / per_block * 1e6, sum(two) / {blocks} / per_block * 1e6)
"""


def run(python, envs, blocks):
    """(median speed-up, µs a step on 1 thread, on 2) of one fresh process of ``python``."""
    out = subprocess.run([python, "-c", CHILD.format(here=HERE, envs=envs, blocks=blocks)],
                         capture_output=True, text=True, check=True, cwd="/")
    ratio, one, two = (float(x) for x in out.stdout.split())
    return ratio, one, two


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", help="the first build's python")
    ap.add_argument("new", help="the second build's python")
    ap.add_argument("--envs", type=int, default=256)
    ap.add_argument("--runs", type=int, default=6, help="fresh processes of each build")
    ap.add_argument("--blocks", type=int, default=40, help="blocks of steps a process")
    args = ap.parse_args(argv)
    for name, value in (("--envs", args.envs), ("--runs", args.runs), ("--blocks", args.blocks)):
        if value < 1:
            ap.error(f"{name} must be at least 1, not {value}")
    for name in ("old", "new"):
        python = getattr(args, name)
        if not os.access(python, os.X_OK):
            ap.error(f"{python}: not an executable interpreter")
        # absolute: the children run from / (so that neither source tree shadows the build)
        setattr(args, name, os.path.abspath(python))
    results = {"old": [], "new": []}
    try:
        for r in range(args.runs):
            for name in ("old", "new") if r % 2 == 0 else ("new", "old"):
                results[name].append(run(getattr(args, name), args.envs, args.blocks))
                ratio, one, two = results[name][-1]
                print(f"run {r + 1}/{args.runs} {name}: {ratio:.3f}x ({one:.1f} µs on 1 thread,"
                      f" {two:.1f} on 2)", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print(f"interrupted: {len(results['old'])} + {len(results['new'])} runs done",
              file=sys.stderr)
    print(f"| build | runs | 2-thread speed-up of VecEnv({args.envs})'s compiled step "
          "(median of runs) | each run |")
    print("|---|---|---|---|")
    for name in ("old", "new"):
        rs = [x[0] for x in results[name]]
        if rs:
            print(f"| {name} | {len(rs)} | **{statistics.median(rs):.3f}x** | "
                  + " ".join(f"{x:.2f}" for x in rs) + " |")


if __name__ == "__main__":
    main()

"""The quick set (``make bench``): one short measurement per area, one summary table.

Each row is a small run of the area's own benchmark (named in the last column, where the
full run and its options are documented): move generation, whole games, simulation, the
learning loop, search and the solver, the duplicate tournament, agents' strength, and this
engine against its pure-Python reference through bench_peers.py's interleaved method. It
takes about 25 s on a 2-vCPU machine (``--scale 0.05``: a smoke run of a few seconds).
Figures are short runs on whatever the machine is doing: good for "is this build in the
right range", not for a RESULTS.md figure (the full benchmarks are).

    .venv/bin/python bench/quick.py [--scale 1.0] [--only AREA,...]

Ctrl-C prints the rows measured so far and exits with status 130.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # numpy's threads would spin beside ours
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import guandan_fast as gf  # noqa: E402


def movegen(scale):
    from guandan_fast.bench_hooks import time_generate

    from bench_peers import random_hands

    hands = [gf.Hand(h) for h in random_hands(max(20, int(400 * scale)))]
    lead = statistics.median(time_generate(h, 7, repeat=200) for h in hands)
    last = gf.Move("Pair", "8", "S8 C8")
    follow = statistics.median(time_generate(h, 7, last=last, repeat=200) for h in hands)
    return [("lead of a random 27-card hand, compiled loop", lead / 1e3, "µs"),
            ("follow of a pair, compiled loop", follow / 1e3, "µs")]


def games(scale):
    from bench_game import compiled_loop, python_fast_path

    n = max(4, int(300 * scale))
    steps, secs = compiled_loop(n)
    py_steps, py_secs = python_fast_path(max(2, n // 4))
    return [("random moves, compiled loop", secs / steps * 1e6, "µs/move"),
            ("random moves from Python (legal_moves_array + play_index)",
             py_secs / py_steps * 1e6, "µs/move")]


def simulation(scale):
    rows = []
    for agent, hands in (("random", 60000), ("greedy", 60000), ("expert", 20000)):
        n = max(200, int(hands * scale))
        t = time.perf_counter()
        gf.simulate(hands=n, agents=(agent,) * 4, threads=1, seed=1)
        rows.append((f"simulate, {agent} in all seats, 1 thread", n / (time.perf_counter() - t),
                     "hands/s"))
    return rows


def learning(scale):
    from bench_learning_loop import run

    hands, decisions, secs = run("default", max(50, int(5000 * scale)))
    return [("VecEnv(256) loop, default encoder, 1 thread", hands / secs, "hands/s"),
            ("the same, decisions returned", decisions / secs, "decisions/s")]


def search(scale):
    from bench_search import positions, sample_ns
    from guandan_fast.solve import random_endgame, solve

    mid = [g for name, g in positions().items() if name.startswith("mid")][0]
    ns = sample_ns(mid, n=max(10_000, int(1_000_000 * scale)), repeat=3)
    t = []
    for seed in range(max(2, int(10 * scale))):
        g = random_endgame(seed, 4)
        t0 = time.perf_counter()
        solve(g)
        t.append(time.perf_counter() - t0)
    return [("determinization (sample_deal), mid-hand", ns, "ns"),
            ("exact solve, 4 cards per seat", statistics.median(t) * 1e3, "ms")]


def tournament(scale):
    deals = max(10, int(1000 * scale))
    t = time.perf_counter()
    res = gf.tournament(["greedy", "random"], deals=deals, seed=1, workers=1)
    rate = res.pairs[0].matches / (time.perf_counter() - t)
    return [("duplicate tournament greedy vs random, 1 worker", rate, "matches/s")]


def strength(scale):
    deals = max(10, int(500 * scale))
    p = gf.tournament(["expert", "greedy"], deals=deals, seed=1, workers=2).pairs[0]
    return [(f"expert vs greedy, match wins ({deals} deals)", 100 * p.match_win_rate, "%"),
            (f"expert vs greedy, hand wins ({deals} deals)", 100 * p.hand_win_rate, "%")]


def peers(scale):
    from bench_peers import FastEngine, ReferenceEngine, compare

    r = compare({"fast": FastEngine(), "reference": ReferenceEngine()}, ["lead"],
                hands=8, rounds=5, seconds=max(0.05, 1.0 * scale))
    return [("reference engine / this engine, lead (interleaved)",
             r["workloads"]["lead"]["ratio"]["reference"]["median"], "x time")]


AREAS = {"movegen": (movegen, "bench_movegen.py"), "games": (games, "bench_game.py"),
         "simulation": (simulation, "bench_simulate.py"),
         "learning": (learning, "bench_learning_loop.py"),
         "search": (search, "bench_search.py"), "tournament": (tournament, "bench_tournament.py"),
         "strength": (strength, "tournament --deals 1000"),
         "peers": (peers, "bench_peers.py")}


def render(rows) -> str:
    out = ["| area | what | figure | unit | full benchmark |", "|---|---|---|---|---|"]
    for area, what, value, unit, full in rows:
        figure = f"{value:,.3f}" if value < 10 else f"{value:,.0f}"
        out.append(f"| {area} | {what} | {figure} | {unit} | {full} |")
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="bench/quick.py", description=__doc__.split("\n")[0])
    p.add_argument("--scale", type=float, default=1.0,
                   help="work per row, relative to the default (default: 1.0)")
    p.add_argument("--only", default="", help=f"comma-separated areas of {', '.join(AREAS)}")
    args = p.parse_args(argv)
    only = [a for a in args.only.split(",") if a] or list(AREAS)
    unknown = [a for a in only if a not in AREAS]
    if unknown or not args.scale > 0:
        print(f"bench/quick.py: unknown area {', '.join(unknown)} (choose from "
              f"{', '.join(AREAS)})" if unknown else
              f"bench/quick.py: --scale {args.scale} must be above 0", file=sys.stderr)
        return 2
    rows, t0 = [], time.perf_counter()
    try:
        for i, area in enumerate(only, 1):
            fn, full = AREAS[area]
            print(f"[{i}/{len(only)}] {area} ({time.perf_counter() - t0:.0f} s so far)",
                  file=sys.stderr, flush=True)
            rows.extend((area, what, value, unit, full) for what, value, unit in fn(args.scale))
    except KeyboardInterrupt:
        print(f"interrupted after {len(rows)} row(s), {time.perf_counter() - t0:.1f} s",
              file=sys.stderr)
        print(render(rows))
        return 130
    print(render(rows))
    print(f"({time.perf_counter() - t0:.0f} s, guandan_fast {gf.__version__}, "
          f"{os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

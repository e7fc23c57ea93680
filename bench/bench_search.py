"""Benchmarks of the search backend: one determinization (compiled loop), the exact solver's
reach (cards per seat solved within a second), and a search agent's decision time.

    .venv/bin/python bench/bench_search.py [--max-cards 7]

Takes about 5 s with ``--max-cards 5``; 6 cards per seat add about 20 s and 7 about 4 minutes
(ten end games each, up to 50 million nodes).

or under pytest-benchmark: ``.venv/bin/python -m pytest bench/bench_search.py
--benchmark-enable``.
"""

from __future__ import annotations

import random
import statistics
import time

import guandan_fast as gf
from guandan_fast.bench_hooks import time_sample
from guandan_fast.search import choose
from guandan_fast.solve import random_endgame, solve


def positions():
    """A deal's first move, a mid-hand and a late position of one random match (seat 0's view)."""
    g = gf.Game(seed=21)
    out = {"start of a hand (81 hidden cards)": g.clone()}
    rnd = random.Random(21)
    while g.hand_number == 0:
        total = sum(len(g.hand(q)) for q in range(4))
        if total <= 70 and "mid-hand" not in " ".join(out):
            out[f"mid-hand ({total - len(g.hand(0))} hidden cards)"] = g.clone()
        if total <= 30:
            out[f"late ({total - len(g.hand(0))} hidden cards)"] = g.clone()
            break
        moves = g.legal_moves(compact=True)
        g.play(moves[rnd.randrange(len(moves))])
    return out


def sample_ns(g, n=1_000_000, repeat=5):
    """Median ns per compiled sample_deal over ``repeat`` runs of ``n`` samples."""
    return statistics.median(time_sample(g, 0, n, seed=r)[0] / n * 1e9 for r in range(repeat))


def solver_reach(cards_range=range(2, 8), per=10, budget=50_000_000):
    rows = []
    for c in cards_range:
        times, nodes, done = [], [], 0
        for seed in range(per):
            g = random_endgame(seed, c)
            t = time.perf_counter()
            s = solve(g, max_nodes=budget)
            times.append(time.perf_counter() - t)
            nodes.append(s.nodes)
            done += s.finished
        rows.append((c, statistics.median(times), max(times), statistics.median(nodes), done,
                     sum(t <= 1.0 for t in times)))
    return rows


def main(argv=None) -> None:
    import argparse

    ap = argparse.ArgumentParser(description="determinization and exact-solver reach")
    ap.add_argument("--max-cards", type=int, default=7,
                    help="the largest end game solved, cards per seat (default: 7, minutes)")
    args = ap.parse_args(argv)
    print("sample_deal (compiled, seat 0's view), median of 5 runs of 10^6 samples:")
    for name, g in positions().items():
        print(f"  {name:<34} {sample_ns(g):7.0f} ns")
    print("\nexact solver on random endgames (10 per size, all seats holding c cards):")
    print(f"  {'c':>2} {'median s':>9} {'max s':>8} {'median nodes':>13} {'finished':>9} {'<= 1 s':>7}")
    for c, med, mx, nodes, done, fast in solver_reach(range(2, args.max_cards + 1)):
        print(f"  {c:>2} {med:9.3f} {mx:8.3f} {nodes:13,.0f} {done:>6}/10 {fast:>5}/10")


# -- pytest-benchmark entry points -------------------------------------------------------------

def test_bench_sample_python(benchmark):
    g = gf.Game(seed=21)
    benchmark(g.sample_world, 0, 1)


def test_bench_sample_compiled_1e5(benchmark):
    g = gf.Game(seed=21)
    benchmark(time_sample, g, 0, 100_000)


def test_bench_solve_4_cards(benchmark):
    g = random_endgame(1, 4)
    benchmark(solve, g)


def test_bench_pimc_decision(benchmark):
    g = random_endgame(2, 8)
    benchmark(choose, g, "pimc")


if __name__ == "__main__":
    main()

"""Tournament throughput against simulate's (the same matches: greedy vs random, both seatings).

Run as a script (prints the figures recorded in bench/RESULTS.md)::

    .venv/bin/python bench/bench_tournament.py

or under pytest-benchmark: ``.venv/bin/python -m pytest bench/bench_tournament.py
--benchmark-enable``.

Takes about 15 s.
"""
import statistics
import time

from guandan_fast.simulate import simulate
from guandan_fast.tournament import tournament


def median_rate(fn, matches, runs=5):
    rates = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        rates.append(matches / (time.perf_counter() - t0))
    return statistics.median(rates)


def test_tournament_greedy_random(benchmark):
    res = benchmark(tournament, ["greedy", "random"], deals=200)
    assert res.pairs[0].matches == 400


def test_simulate_same_matches(benchmark):
    res = benchmark(simulate, matches=400, agents="greedy,random,greedy,random")
    assert res.matches == 400


def test_tournament_python_agent(benchmark):
    import os
    import sys

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    res = benchmark(tournament, ["greedy", "tourney_bench_agent:first"], deals=5)
    assert res.pairs[0].matches == 10


if __name__ == "__main__":
    deals = 1000
    for workers in (1, 2):
        t = median_rate(lambda: tournament(["greedy", "random"], deals=deals, workers=workers),
                        2 * deals)
        s = median_rate(lambda: simulate(matches=2 * deals, agents="greedy,random,greedy,random",
                                         threads=workers), 2 * deals)
        print(f"workers {workers}: tournament {t:,.0f} matches/s, simulate {s:,.0f} matches/s, "
              f"ratio {t / s:.2f}")
    t = median_rate(lambda: tournament(["greedy", "tourney_bench_agent:first"], deals=20,
                                       workers=1), 40, runs=3)
    print(f"Python agent (first legal move) vs greedy, 1 worker: {t:,.1f} matches/s")

"""Simulation throughput: hands per second of the compiled loop, and the 1 -> 2 thread speed-up.

Run (figures in bench/RESULTS.md, "Whole games and simulation"):

    .venv/bin/python -m pytest bench/bench_simulate.py --benchmark-enable --benchmark-only \
        -p no:randomly -s

Each benchmark plays a fixed number of hands (``GF_BENCH_HANDS``, default 20000) in hands
mode, so every round does the same work. The machine is shared: medians are what to quote.

Takes about a minute and a half with the defaults (``GF_BENCH_HANDS=10000
GF_BENCH_ROUNDS=3``: about 30 s).
"""

import os
import statistics
import time

import pytest

from guandan_fast.simulate import simulate

HANDS = int(os.environ.get("GF_BENCH_HANDS", "20000"))
ROUNDS = int(os.environ.get("GF_BENCH_ROUNDS", "5"))

MIXES = {
    "random": ("random",) * 4,
    "random_compact": ("random_compact",) * 4,
    "greedy": ("greedy",) * 4,
    "greedy_vs_random": ("greedy", "random", "greedy", "random"),
}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("mix", list(MIXES))
def test_hands_per_second(benchmark, mix, threads):
    res = benchmark.pedantic(simulate, kwargs=dict(hands=HANDS, agents=MIXES[mix],
                                                   threads=threads, seed=1),
                             rounds=ROUNDS, iterations=1, warmup_rounds=1)
    assert res.hands == HANDS
    stats = getattr(benchmark, "stats", None)
    if stats is not None:  # None when benchmarks are disabled (a plain test run)
        rate = HANDS / stats.stats.median
        benchmark.extra_info["hands_per_second"] = round(rate)
        print(f"\n{mix:>18} threads={threads}: {rate:,.0f} hands/s (median of {ROUNDS})")


@pytest.mark.parametrize("mix", ["random", "greedy"])
def test_thread_speedup(benchmark, mix):
    """Median elapsed time of 1 and 2 threads, measured alternately so that both see the
    same background load; the ratio is the speed-up."""
    agents = MIXES[mix]
    one, two = [], []

    def both():
        for threads, out in ((1, one), (2, two)):
            t0 = time.perf_counter()
            simulate(hands=HANDS, agents=agents, threads=threads, seed=2)
            out.append(time.perf_counter() - t0)

    benchmark.pedantic(both, rounds=ROUNDS, iterations=1)
    speedup = statistics.median(one) / statistics.median(two)
    benchmark.extra_info["speedup_1_to_2_threads"] = round(speedup, 2)
    print(f"\n{mix:>18}: 1 thread {statistics.median(one):.3f} s, 2 threads "
          f"{statistics.median(two):.3f} s, speed-up {speedup:.2f}x (medians of {len(one)})")


def test_reference_hands_per_second(benchmark):
    """The same job on the reference engine (pure Python, random bots), for the ratio."""
    from guandan_fast.reference.simulate import simulate_reference

    res = benchmark.pedantic(simulate_reference, kwargs=dict(matches=1, seed=1),
                             rounds=3, iterations=1)
    assert res.matches == 1 and res.hands >= 1
    stats = getattr(benchmark, "stats", None)
    if stats is not None:
        rate = res.hands / stats.stats.median
        benchmark.extra_info["hands_per_second"] = round(rate, 1)
        print(f"\n reference random: {rate:,.1f} hands/s (median of 3 one-match runs)")


def test_recorded_speedup(benchmark, tmp_path):
    """``record=``: greedy hands per second without a record, and with one on 1 and 2 threads
    (each match's log replayed once, checked, into record lines by the thread that played it),
    measured alternately; ``GF_BENCH_HANDS // 4`` hands a run."""
    hands = max(1, HANDS // 4)
    times = {"no record, 1 thread": [], "record, 1 thread": [], "record, 2 threads": []}

    def all_three():
        for (name, out), (threads, record) in zip(times.items(),
                                                 ((1, None), (1, "r1.jsonl"), (2, "r2.jsonl"))):
            t0 = time.perf_counter()
            simulate(hands=hands, agents=MIXES["greedy"], threads=threads, seed=3,
                     record=None if record is None else tmp_path / record)
            out.append(time.perf_counter() - t0)

    benchmark.pedantic(all_three, rounds=ROUNDS, iterations=1)
    assert (tmp_path / "r1.jsonl").read_bytes() == (tmp_path / "r2.jsonl").read_bytes()
    for name, out in times.items():
        rate = hands / statistics.median(out)
        benchmark.extra_info[name] = round(rate)
        print(f"\n{name:>20}: {rate:,.0f} hands/s (median of {len(out)})")

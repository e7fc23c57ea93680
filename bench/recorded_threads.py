"""Recorded simulate runs against unrecorded ones, on 1 and 2 threads (bench/RESULTS.md,
"Recorded runs on every thread").

    python bench/recorded_threads.py rates HANDS ROUNDS
        four greedy bots, HANDS hands a run; no record and record, 1 and 2 threads, (and the
        previous simulate when given) interleaved round by round; median rates
    python bench/recorded_threads.py run MODE HANDS
        one run for callgrind (MODE: none, record or previous; 1 thread): instructions per
        hand are the difference of two HANDS over the difference of the hands

The previous simulate: GF_PREVIOUS_SIMULATE=python/guandan_fast/simulate_previous.py, a copy of
an older python/guandan_fast/simulate.py placed in the package (``git show
cdc2a69~1:python/guandan_fast/simulate.py > python/guandan_fast/simulate_previous.py``; delete
it afterwards).
"""
import importlib
import os
import statistics
import sys
import tempfile
import time

from guandan_fast.simulate import simulate

AGENTS = ("greedy",) * 4


def previous():
    path = os.environ.get("GF_PREVIOUS_SIMULATE")
    if not path:
        return None
    name = os.path.splitext(os.path.basename(path))[0]
    return importlib.import_module(f"guandan_fast.{name}").simulate


def rates(hands: int, rounds: int) -> None:
    tmp = tempfile.mkdtemp()
    runs = {"no record, 1 thread": (simulate, 1, False),
            "no record, 2 threads": (simulate, 2, False),
            "record, 1 thread": (simulate, 1, True), "record, 2 threads": (simulate, 2, True)}
    if previous() is not None:
        runs["previous record path, 1 thread"] = (previous(), 1, True)
    times = {k: [] for k in runs}
    for _ in range(rounds):
        for name, (fn, threads, rec) in runs.items():
            t0 = time.perf_counter()
            fn(hands=hands, agents=AGENTS, seed=3, threads=threads,
               record=os.path.join(tmp, f"r{threads}.jsonl") if rec else None)
            times[name].append(time.perf_counter() - t0)
    rate = {k: hands / statistics.median(v) for k, v in times.items()}
    for k, v in rate.items():
        print(f"{k:>32}: {v:,.0f} hands/s (median of {rounds})")
    print(f"2 threads / 1: no record "
          f"{rate['no record, 2 threads'] / rate['no record, 1 thread']:.2f}x, record "
          f"{rate['record, 2 threads'] / rate['record, 1 thread']:.2f}x")


def run(mode: str, hands: int) -> None:
    fn = previous() if mode == "previous" else simulate
    path = None if mode == "none" else os.path.join(tempfile.mkdtemp(), "r.jsonl")
    res = fn(hands=hands, agents=AGENTS, seed=3, threads=1, record=path)
    print(mode, res.hands)


if __name__ == "__main__":
    if sys.argv[1] == "rates":
        rates(int(sys.argv[2]), int(sys.argv[3]))
    else:
        run(sys.argv[2], int(sys.argv[3]))

"""What an external agent costs: the same decision rule as a platform client process
(examples/platform_bot.py, threaded websocket-client) and as a built-in Python agent, each
against greedy on the same deals, in alternating runs (python, external, python, ...).

The rule is "the first legal move that is not a pass", so both play the very same matches
(tests/test_external.py checks that) and make the same number of decisions; the figure is
decisions of that agent per second of wall time, whole matches included (for the external
agent: a server per match, two client processes started per match, every decision a
WebSocket round trip). It takes about a minute with the defaults below.

Run as a script (prints the figures for bench/RESULTS.md)::

    .venv/bin/python bench/bench_external.py [--deals 5] [--rounds 3]

or under pytest-benchmark: ``.venv/bin/python -m pytest bench/bench_external.py
--benchmark-enable``.
"""
import argparse
import os
import statistics
import sys
import time

from guandan_fast.moves import PASS
from guandan_fast.tournament import tournament

HERE = os.path.dirname(os.path.abspath(__file__))
BOT = os.path.join(os.path.dirname(HERE), "examples", "platform_bot.py")
EXTERNAL = {"first_play": f"{sys.executable} {BOT} {{url}}"}

decisions = [0]


def first_play(observation, legal_moves):
    """examples/platform_bot.py's rule as a Python agent (counts its decisions)."""
    decisions[0] += 1
    return next((m for m in legal_moves if m != PASS), PASS)


def python_run(deals):
    return tournament(["greedy", first_play], deals=deals, workers=1)


def external_run(deals):
    return tournament(["greedy", "first_play"], deals=deals, workers=1, external=EXTERNAL)


def test_external_agent_matches(benchmark):
    res = benchmark(external_run, 1)
    assert res.pairs[0].matches == 2 and res.faults == []


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=5, help="deals per run (2 matches each)")
    ap.add_argument("--rounds", type=int, default=3, help="python/external run pairs")
    args = ap.parse_args()
    decisions[0] = 0
    python_run(args.deals)
    per_run = decisions[0]          # the same decisions in every run, both ways
    times = {"python": [], "external": []}
    for r in range(args.rounds):
        for kind, run in (("python", python_run), ("external", external_run)):
            t0 = time.perf_counter()
            res = run(args.deals)
            times[kind].append(time.perf_counter() - t0)
            assert not res.faults
        print(f"round {r + 1}: python {times['python'][-1]:.2f} s, "
              f"external {times['external'][-1]:.2f} s", file=sys.stderr, flush=True)
    py, ext = (statistics.median(times[k]) for k in ("python", "external"))
    print(f"{per_run} decisions of the agent per run ({2 * args.deals} matches against greedy)")
    print(f"built-in Python agent: {per_run / py:,.0f} decisions/s (median of {args.rounds})")
    print(f"external client:       {per_run / ext:,.0f} decisions/s "
          f"({py / ext:.4f} x the Python agent; {1e3 * (ext - py) / per_run:.2f} ms more "
          f"per decision, process starts and servers included)")
    ratios = [p / e for p, e in zip(times["python"], times["external"])]
    print(f"paired ratios (python time / external time) per round: "
          + ", ".join(f"{x:.4f}" for x in ratios))


if __name__ == "__main__":
    main()

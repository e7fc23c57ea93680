"""What ``simulate`` costs with agents that are not compiled (the Python loop, docs/design.md
"Simulation"): decisions per second of a learned ``dmc`` network, beside the same matches'
compiled agents through the compiled loop and through the Python loop.

    .venv/bin/python bench/simulate_python.py [--matches 20] [--hidden 256,256] [--threads 1,2]

It takes about 15 seconds with the defaults. The network is untrained (``QNet.initial``, seed 0,
written to a temporary folder): a decision costs the same whatever the weights. A decision is
a move of the play phase (``plays + passes``; the few tribute and return moves of a hand are
left out), so the figure is a slight underestimate. Wall time, one run per row.
"""

from __future__ import annotations

import argparse
import os
import tempfile


def rows(matches: int, hidden: tuple, threads: tuple):
    from guandan_fast.learn.qnet import QNet
    from guandan_fast.simulate import simulate

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "w.npz")
        QNet.initial(hidden, seed=0).save(path)
        dmc = f"dmc:{path}"
        cases = [("greedy x4", ("greedy",) * 4, None, 1, 200),
                 ("greedy x4", ("greedy",) * 4, "python", 1, matches * 4),
                 ("dmc x4", (dmc,) * 4, None, 1, matches)]
        cases += [("dmc x4", (dmc,) * 4, None, t, matches) for t in threads if t != 1]
        cases += [("dmc, greedy, dmc, greedy", (dmc, "greedy") * 2, None, 1, matches)]
        for label, agents, loop, t, n in cases:
            res = simulate(matches=n, seed=1, agents=agents, threads=t, loop=loop)
            moves = res.plays + res.passes
            kind = "compiled" if loop is None and label.startswith("greedy") else "Python"
            yield (label, kind, t, n, moves, res.elapsed, moves / res.elapsed,
                   res.hands / res.elapsed)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--matches", type=int, default=20, help="matches of each dmc row")
    p.add_argument("--hidden", default="256,256", help="the network's hidden widths")
    p.add_argument("--threads", default="1,2", help="thread counts of the dmc x4 rows")
    args = p.parse_args(argv)
    if args.matches < 1:
        p.error("--matches must be >= 1")
    try:
        hidden = tuple(int(x) for x in args.hidden.split(","))
        threads = tuple(int(x) for x in args.threads.split(","))
    except ValueError:
        p.error("--hidden and --threads take integers separated by commas, e.g. 256,256")
    if min(hidden) < 1 or min(threads) < 1:
        p.error("--hidden widths and --threads must be >= 1")
    print(f"network hidden {','.join(map(str, hidden))}, seed 1")
    print("| agents | loop | threads | matches | decisions | seconds | decisions/s | hands/s |")
    print("|---|---|---|---|---|---|---|---|")
    for label, kind, t, n, moves, secs, rate, hps in rows(args.matches, hidden, threads):
        print(f"| {label} | {kind} | {t} | {n} | {moves:,} | {secs:.2f} | {rate:,.0f} "
              f"| {hps:,.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

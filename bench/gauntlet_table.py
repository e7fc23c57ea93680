"""Every agent against every gauntlet member (docs/expert.md "The gauntlet"): one markdown row
per pairing (duplicate deals, the agent's hand and match win rates with paired 95 % intervals,
levels per hand of each side), the worst case per agent, and, with --speed-matches, each
agent's speed (decisions per CPU second with the agent in all four seats, one thread, as
bench/agent_speed.py measures it; only on a quiet machine).

    .venv/bin/python bench/gauntlet_table.py --deals 300              # the members: about a minute
    .venv/bin/python bench/gauntlet_table.py --agents strong --deals 60   # search: about 15 minutes

The members' table takes about a minute; a search agent's row, about 15 minutes on one core.

Progress on stderr, one line per pairing; Ctrl-C stops after the pairing in play, prints the
rows so far and exits 130. One worker: the figures are the same for any seed-equal rerun.
"""
from __future__ import annotations

import argparse
import sys
import time

import guandan_fast as gf
from guandan_fast.gauntlet import GAUNTLET, gauntlet


def pct(x, ci) -> str:
    return f"{100 * x:.1f} % [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def speed(agent: str, matches: int) -> float:
    """Decisions (plays and passes) per CPU second, the agent in all four seats."""
    t = time.process_time()
    r = gf.simulate(matches=matches, agents=(agent,) * 4, seed=0, threads=1)
    return (r.plays + r.passes) / (time.process_time() - t)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agents", default=",".join(GAUNTLET),
                    help="agents to measure, comma-separated (default: the gauntlet's members)")
    ap.add_argument("--deals", type=int, default=300, help="deals per pairing (default 300)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the deals (default 0)")
    ap.add_argument("--speed-matches", type=int, default=0,
                    help="self-play matches of the speed measurement (default 0: none; it "
                         "needs a quiet machine whose CPU time the process is charged for)")
    args = ap.parse_args(argv)
    if args.deals < 1 or args.speed_matches < 0:
        print("gauntlet_table: error: --deals must be >= 1 and --speed-matches >= 0",
              file=sys.stderr)
        return 2
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    rows, worst = [], []
    try:
        for agent in agents:
            t0 = time.perf_counter()
            res = gauntlet(agent, deals=args.deals, seed=args.seed, workers=1)
            for p in res.pairs:
                rows.append(f"| {agent} | {p.b} | {p.deals} | {pct(p.hand_win_rate, p.hand_ci_paired)} "
                            f"| {pct(p.match_win_rate, p.match_ci_paired)} "
                            f"| {p.levels_per_hand_a:.2f} / {p.levels_per_hand_b:.2f} |")
            w = res.worst
            dps = speed(agent, args.speed_matches) if args.speed_matches else None
            worst.append(f"| {agent} | {w.b} | {pct(w.hand_win_rate, w.hand_ci_paired)} "
                         f"| {pct(w.match_win_rate, w.match_ci_paired)} "
                         f"| {'n/a' if dps is None else f'{dps:,.0f}'} |")
            print(f"{agent}: {len(res.pairs)} pairings, {time.perf_counter() - t0:.0f} s",
                  file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print(f"interrupted after {len(worst)} of {len(agents)} agent(s)", file=sys.stderr)
        code = 130
    else:
        code = 0
    print("| agent | member | deals | hand win [paired 95 %] | match win [paired 95 %] "
          "| levels per hand agent / member |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    print("\n| agent | worst case | hand win [paired 95 %] | match win [paired 95 %] "
          "| decisions per CPU s |")
    print("|---|---|---|---|---|")
    print("\n".join(worst))
    return code


if __name__ == "__main__":
    sys.exit(main())

"""Match win rate of a search agent against greedy over duplicate deals (docs/search.md).

Every deal is played twice with the teams swapping seats: run A seats the agent at 0 and 2,
run B at 1 and 3, both with the same simulation seed, so match ``i`` of both runs has the
same deal. The agent's match win rate is its share of the 2N matches, with a 95% interval
(normal approximation over the N per-deal scores 0, 1/2 or 1, which accounts for the pairing).

    .venv/bin/python bench/search_strength.py --agent pimc --deals 100 --threads 2
"""

from __future__ import annotations

import argparse
import math
import time



def duplicate(agent: str, deals: int, seed: int, threads: int, opponent: str = "greedy"):
    from guandan_fast import simulate_core as core
    from guandan_fast.simulate import _search_spec

    t = time.perf_counter()
    kinds_a = [core.AGENT_CODES[n.split(":")[0]] for n in (agent, opponent, agent, opponent)]
    kinds_b = kinds_a[1:] + kinds_a[:1]
    spec = _search_spec(agent)
    search_a = (spec, None, spec, None)
    search_b = (None, spec, None, spec)
    scores, hand_wins, hands = [], 0, 0
    import concurrent.futures as cf

    def one(i):
        ra = core.run_chunk(i, i + 1, seed, kinds_a, search=search_a)
        rb = core.run_chunk(i, i + 1, seed, kinds_b, search=search_b)
        return ra, rb

    with cf.ThreadPoolExecutor(threads) as ex:
        for ra, rb in ex.map(one, range(deals)):
            scores.append((ra["team_wins"][0] + rb["team_wins"][1]) / 2)
            hand_wins += ra["hand_wins"][0] + rb["hand_wins"][1]
            hands += ra["hands"] + rb["hands"]
    elapsed = time.perf_counter() - t
    n = len(scores)
    mean = sum(scores) / n
    var = sum((s - mean) ** 2 for s in scores) / (n - 1)
    half = 1.96 * math.sqrt(var / n)
    return {"agent": agent, "deals": n, "matches": 2 * n, "win_rate": mean,
            "ci95": (mean - half, mean + half), "hand_win_rate": hand_wins / hands,
            "hands": hands, "seconds": elapsed, "seconds_per_match": elapsed * threads / (2 * n)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--agent", default="pimc")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    r = duplicate(a.agent, a.deals, a.seed, a.threads)
    lo, hi = r["ci95"]
    print(f"{r['agent']} vs greedy: {r['deals']} duplicate deals ({r['matches']} matches, "
          f"{r['hands']} hands), match win rate {100 * r['win_rate']:.1f}% "
          f"[95% CI {100 * lo:.1f}%, {100 * hi:.1f}%], hand win rate "
          f"{100 * r['hand_win_rate']:.1f}%; {r['seconds']:.0f} s wall, "
          f"{r['seconds_per_match']:.2f} s per match (wall x threads)")


if __name__ == "__main__":
    main()

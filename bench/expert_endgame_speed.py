"""The expert's speed against its end-game limits (bench/RESULTS.md, "Search above the expert"):
150 matches of four experts, seed 0, one thread, hands per CPU second of the process (best of
two rounds), for each (cards, nodes) of ``expert.endgame_limits``.

    python bench/expert_endgame_speed.py
"""
import time

import guandan_fast as gf
from guandan_fast.expert import endgame_limits

LIMITS = ((0, 1), (10, 1000), (14, 3000), (24, 6000))


def main() -> None:
    default = endgame_limits()
    best = {}
    try:
        for _ in range(2):
            for cards, nodes in LIMITS:
                endgame_limits(cards, nodes)
                t = time.process_time()
                r = gf.simulate(matches=150, agents=("expert",) * 4, seed=0, threads=1)
                rate = r.hands / (time.process_time() - t)
                best[cards, nodes] = max(best.get((cards, nodes), 0.0), rate)
    finally:
        endgame_limits(*default)
    for (cards, nodes), rate in best.items():
        print(f"end game up to {cards} cards, {nodes} nodes: {rate:,.0f} hands per CPU second")


if __name__ == "__main__":
    main()

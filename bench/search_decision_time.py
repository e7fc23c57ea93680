"""CPU time of one search decision (bench/RESULTS.md, "Search and solver"): every
play-phase decision with a choice of the seat to move holding at most 12 cards (where the
search agents search by default), in the first hand of 40 matches played by random compact
moves; process CPU time, so other processes' load counts less than in wall time.

    python bench/search_decision_time.py pimc:samples=32:rollout=expert:margin=0.6

Takes about 5 s.
"""
import random
import sys
import time

import guandan_fast as gf
from guandan_fast.search import choose


def main(spec: str, matches: int = 40) -> None:
    times = []
    for seed in range(matches):
        g = gf.Game(seed=seed)
        rnd = random.Random(seed)
        while g.hand_number == 0 and not g.is_over:
            p = g.current_player
            if g.phase == "play" and len(g.hand(p)) <= 12 and g.num_legal(compact=True) > 1:
                t = time.process_time()
                choose(g, spec, seed=seed)
                times.append(time.process_time() - t)
            moves = g.legal_moves(compact=True)
            g.play(moves[rnd.randrange(len(moves))])
    times.sort()
    print(f"{spec}: {len(times)} decisions; CPU s: median {times[len(times) // 2]:.3f}, "
          f"99th percentile {times[int(len(times) * 0.99)]:.3f}, max {times[-1]:.3f}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "pimc:samples=32:rollout=expert:margin=0.6")

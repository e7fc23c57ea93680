"""How spread the weights of ``pimc:worlds=styles`` are, and what they cost (docs/search.md,
"Worlds weighted by the opponents' styles"): six positions of the first hand (seeds 0-5,
seat 0 to move with at most 12 cards; seats 0 and 2 play the expert, 1 and 3 the given
style), 300 sampled worlds each. Prints, per position, the effective number of worlds
(sum of weights squared over the sum of squared weights) as a percentage of the worlds for
each softness and temper, and what a world costs in one decision of ``pimc`` (CPU time of
``choose`` with 300 worlds over 300, uniform and weighted).

    python bench/style_worlds.py bomber

Takes about 10 s.
"""
import sys
import time

import numpy as np

import guandan_fast as gf
from guandan_fast.expert import STYLE_NAMES, choose as expert_move
from guandan_fast.search import choose, style_loglik

WORLDS = 300
SOFTS = (0.05, 0.2, 0.5)
TEMPERS = (1.0, 0.5, 0.25, 0.1)


def position(seed: int, style: str):
    """Seed ``seed``'s first hand played until seat 0 is to move with at most 12 cards (None
    when the hand ends first)."""
    g = gf.Game(seed=seed)
    while not (g.phase == "play" and g.current_player == 0 and len(g.hand(0)) <= 12):
        g.play(expert_move(g, style=style if g.current_player % 2 else "expert"))
        if g.hand_number > 0:
            return None
    return g


def ess_percent(logw: np.ndarray) -> float:
    w = np.exp(logw - logw.max())
    return 100.0 * w.sum() ** 2 / (w ** 2).sum() / len(w)


def main(style: str = "bomber") -> None:
    if style not in STYLE_NAMES:
        raise SystemExit(f"style must be one of {', '.join(STYLE_NAMES)}, got {style!r}")
    cols = [f"soft={s}" for s in SOFTS] + [f"temper={t}" for t in TEMPERS[1:]]
    print(f"opponents: {style}; effective worlds, % of {WORLDS} (temper=1 unless named; "
          f"soft=0.2 with temper)")
    print(f"{'seed':>4} {'opp. plays':>10} " + " ".join(f"{c:>11}" for c in cols)
          + f" {'ms/world uniform':>17} {'styles':>7}")
    for seed in range(6):
        g = position(seed, style)
        if g is None:
            continue
        worlds = [g.sample_world(0, seed=k) for k in range(WORLDS)]
        row = []
        for soft in SOFTS:
            lw = np.array([style_loglik(g, w, soft)[0] for w in worlds])
            if soft == 0.2:
                base = lw
            row.append(ess_percent(lw))
        row += [ess_percent(t * base) for t in TEMPERS[1:]]
        cost = []
        for worlds_opt in ("uniform", "styles"):
            t = time.process_time()
            choose(g, f"pimc:samples={WORLDS}:rollout=mix:worlds={worlds_opt}", seed=seed)
            cost.append((time.process_time() - t) / WORLDS * 1000)
        plays = sum(1 for seat, _ in g.history if seat % 2)
        print(f"{seed:>4} {plays:>10} " + " ".join(f"{x:>11.1f}" for x in row)
              + f" {cost[0]:>17.3f} {cost[1]:>7.3f}")


if __name__ == "__main__":
    main(*sys.argv[1:2])

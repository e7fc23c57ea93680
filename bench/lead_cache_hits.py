"""Would a per-seat cache of the lead list (reused while the seat's hand is unchanged, filtered
for follows) hit often under random play? Plays whole matches with a uniformly random legal
abstract action at every decision and counts, among the decisions with more than PASS legal,
those where the seat's hand is the one it held at its previous listed decision (a cache filled
by listed decisions) or at its previous decision of any kind (forced passes included).

    .venv/bin/python bench/lead_cache_hits.py [--matches 40] [--seed 0]
"""

from __future__ import annotations

import argparse

import numpy as np

import guandan_fast as gf
from guandan_fast.actions import legal_actions


def count(matches, seed):
    """Counters over ``matches`` matches (seeds seed .. seed + matches - 1)."""
    rng = np.random.default_rng(seed)
    out = dict(decisions=0, forced=0, listed=0, same_as_last_listed=0, same_as_last_any=0)
    for m in range(seed, seed + matches):
        g = gf.Game(seed=m)
        last_any, last_listed = {}, {}
        while not g.is_over:
            ids = legal_actions(g)
            if g.phase == "play":
                p, h = g.current_player, g.hand(g.current_player)
                out["decisions"] += 1
                if len(ids) == 1 and ids[0] == 0:
                    out["forced"] += 1
                else:
                    out["listed"] += 1
                    out["same_as_last_listed"] += last_listed.get(p) == h
                    out["same_as_last_any"] += last_any.get(p) == h
                    last_listed[p] = h
                last_any[p] = h
            g.play_action(int(rng.choice(ids)))
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    c = count(a.matches, a.seed)
    print(c)
    print(f"forced {c['forced'] / c['decisions']:.1%} of decisions; of the listed ones, hand as at "
          f"the seat's last listed decision {c['same_as_last_listed'] / c['listed']:.1%}, "
          f"as at its last decision {c['same_as_last_any'] / c['listed']:.1%}")

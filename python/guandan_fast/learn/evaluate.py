"""Duplicate evaluation of a Q-network against a built-in bot, batched on ``VecEnv``.

Deal ``d`` is the first match of table ``d`` of a ``VecEnv`` seeded with ``seed``; it is
played twice, the network at seats 0 and 2 and then at seats 1 and 3 (a table's course
depends only on the seed, its number and the learners' choices, so both seatings get the
same cards), the bot at the other seats, all tables stepped together and the network's
decisions scored in one batch per step. The training run's evaluations are this; the shipped
agent's tables come from ``guandan-fast tournament`` (the same duplicate scheme, one match
at a time).

>>> from guandan_fast.learn.qnet import QNet
>>> r = duplicate(QNet.initial((8,), seed=0), "random", deals=2, seed=0)
>>> r["matches"], 0 <= r["match_win_rate"] <= 1
(4, True)
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["duplicate"]


def duplicate(net, opponent: str, deals: int, seed: int) -> dict:
    """The network's record over ``deals`` duplicate deals against ``opponent`` (a
    ``VecEnv`` bot): ``matches`` (2 per deal), ``match_win_rate`` with ``match_ci`` (95 %,
    over deals), ``hand_win_rate`` and ``points_per_hand`` (the hands' rewards, ±1..3)."""
    from ..vecenv import VecEnv

    score = np.zeros(deals)
    hands = wins = 0
    points = 0.0
    for team, learners in ((0, (0, 2)), (1, (1, 3))):
        env = VecEnv(deals, seed=seed, learners=learners, opponents=opponent,
                     encoder="danzero", action_mode="candidates")
        batch = env.reset()
        open_ = np.ones(deals, bool)
        while open_.any():
            env.step(net.choose(batch.obs, batch.cand_cards, batch.cand_ids,
                                batch.cand_offsets))
            batch = env.pending()
            res = env.drain_results()
            for k in np.flatnonzero(open_[res["env_id"]]):
                e = int(res["env_id"][k])
                if not open_[e]:        # its match ended earlier in this same drain
                    continue
                r = float(res["reward"][k, learners[0]])
                hands += 1
                wins += r > 0
                points += r
                if res["match_over"][k]:
                    open_[e] = False
                    score[e] += int(res["match_winner"][k]) == team
    rate = float(score.mean() / 2)
    half = 1.96 * float(score.std(ddof=1) / 2 / math.sqrt(deals)) if deals > 1 else 1.0
    return {"opponent": opponent, "deals": deals, "matches": 2 * deals,
            "match_win_rate": rate, "match_ci": [max(0.0, rate - half), min(1.0, rate + half)],
            "hand_win_rate": wins / hands, "points_per_hand": points / hands, "hands": hands}

"""A teacher's decisions: what a built-in agent plays, as the trainer's samples.

A run may begin with *teacher rounds* (``TrainConfig.teacher``, docs/training.md "Starting
from a teacher"): before self-play, the network learns to rank the moves a compiled agent
(the expert by default) would make, and to predict the hand's reward of the move it made.
Self-play from random weights learns slowly on two cores (a 17 M-frame run stayed below
greedy); starting from the teacher's ranking, the Monte-Carlo rounds refine a policy that
already plays.

``collect`` plays whole matches with the teacher in all four seats (``Game``, seeded from
the run's seed and the round: the same samples everywhere) and keeps every decision with
two or more candidates: the seat's DanZero state, every candidate (the canonical moves,
exactly the candidates of ``VecEnv(action_mode='candidates')``), which of them the teacher
played, and the reward the seat's team got at the end of the hand (±3/±2/±1, as
``VecEnv``'s). The teacher only ever sees what it sees at the table.

>>> d = collect("expert", 200, seed=1)
>>> n = len(d["label"]); n >= 200 and d["state"].shape == (n, 513)
True
>>> counts = np.diff(d["offsets"]); bool((counts >= 2).all() and (d["label"] < counts).all())
True
>>> set(d["target"].tolist()) <= {-3.0, -2.0, -1.0, 1.0, 2.0, 3.0}
True
"""

from __future__ import annotations

import numpy as np

from .qnet import ACTION_SIZE, STATE_SIZE

__all__ = ["collect", "TEACHERS"]

#: The agents a run can learn from: the compiled rule agents that decide in microseconds.
TEACHERS = ("greedy", "expert", "bomber", "saver", "shedder", "keeper", "solo")


def collect(teacher: str, decisions: int, seed: int) -> dict:
    """At least ``decisions`` decisions of ``teacher`` (whole hands: the last hand begun is
    played out), as arrays: ``state float32[N, 513]``, ``cand_cards uint8[C, 54]``,
    ``cand_ids int16[C]``, ``offsets int64[N+1]`` (decision ``i``'s candidates are
    ``offsets[i]:offsets[i+1]``), ``label int64[N]`` (the teacher's, an index within the
    list), ``target float32[N]``; and ``hands``, the hands played."""
    from ..actions import action_id, canonical_moves
    from ..agents import parse_agent
    from ..game import Game
    from ..observe import danzero_actions, danzero_state
    from .selfplay import round_seed

    if teacher not in TEACHERS:
        raise ValueError(f"unknown teacher {teacher!r}; teachers: {', '.join(TEACHERS)}")
    agent = parse_agent(teacher)
    states, cards, ids_all, counts, labels, seats, hands_of = [], [], [], [], [], [], []
    targets: list = []
    n = hands = 0
    match = 0
    while n < decisions:
        game = Game(seed=round_seed(seed, match))
        match += 1
        first = len(labels)
        while not game.is_over and (n < decisions or game.hand_number == hands_of[-1]):
            p = game.current_player
            move = agent.move(game, seed=0)
            ids, words = canonical_moves(game)
            if len(ids) > 1:
                k = np.flatnonzero(ids == action_id(move, game.level))
                states.append(danzero_state(game, p))
                cards.append(danzero_actions(words))
                ids_all.append(ids)
                counts.append(len(ids))
                labels.append(int(k[0]))
                seats.append(p)
                hands_of.append(game.hand_number)
                n += 1
            game.play(move)
        # Each hand's reward, for the decisions made in it.
        rules = game.rules
        for i in range(first, len(labels)):     # every hand with a decision has ended
            order = game.results[hands_of[i]]["finish_order"]
            up = rules.hand_levels(order)
            targets.append(float(up if seats[i] % 2 == order[0] % 2 else -up))
        hands += len(game.results)
    offsets = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    return {"state": np.asarray(states, np.float32).reshape(-1, STATE_SIZE),
            "cand_cards": np.concatenate(cards).astype(np.uint8).reshape(-1, ACTION_SIZE),
            "cand_ids": np.concatenate(ids_all).astype(np.int16),
            "offsets": offsets, "label": np.asarray(labels, np.int64),
            "target": np.asarray(targets, np.float32), "hands": hands}

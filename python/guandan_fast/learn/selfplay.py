"""Self-play rounds: ε-greedy actors on ``VecEnv`` and their Monte-Carlo targets.

An actor plays one *round*: a fresh ``VecEnv`` (all four seats learners, DanZero's encoder,
candidate-action lists) seeded from the run's seed, the round number and the actor's number,
``steps`` steps with the round's weights, then on until every hand it has decisions in has
ended (decisions of hands begun after the ``steps`` are not kept). So a round depends only on
``(seed, round, actor, weights)``: it gives the same samples in this process, in a pool of
processes or on a Ray cluster, and a run resumed from a checkpoint replays exactly.

The target of a decision is the reward its seat got at the end of the hand (deep Monte-Carlo,
as DouZero and DanZero: no discount, no bootstrapping): ``VecEnv``'s ±3/±2/±1 per hand.

>>> from guandan_fast.learn.qnet import QNet
>>> out = play_round(QNet.initial((16,), seed=0), RoundSettings(num_envs=4, steps=30),
...                  seed=1, round_index=0, actor=0)
>>> n = len(out["target"]); n > 0 and out["state"].shape == (n, 513)
True
>>> set(out["target"].tolist()) <= {-3.0, -2.0, -1.0, 1.0, 2.0, 3.0}
True
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

__all__ = ["RoundSettings", "HandBook", "play_round", "round_seed"]


@dataclass(frozen=True)
class RoundSettings:
    """What an actor's round needs besides its weights: tables, steps, exploration."""

    num_envs: int = 64
    steps: int = 400
    epsilon: float = 0.01


def round_seed(seed: int, *parts: int) -> int:
    """A 63-bit seed for the part of a run named by ``parts`` (round, actor, use), the same
    on every machine.

    >>> round_seed(1, 2, 3) == round_seed(1, 2, 3) != round_seed(1, 3, 2)
    True
    """
    state = np.random.SeedSequence([seed, *parts]).generate_state(2, np.uint32)
    return (int(state[0]) << 31) ^ int(state[1])


class HandBook:
    """Each table's decisions whose hand has not ended yet, and their targets once it has.

    ``add(env_ids, rows, seats)`` notes that sample ``rows[k]`` was table ``env_ids[k]``'s
    decision for seat ``seats[k]``; ``finish(results)`` takes ``VecEnv.drain_results()``
    and returns ``(rows, targets)`` of the decisions of the hands that ended, each target the
    reward of the decision's seat.

    >>> book = HandBook(2)
    >>> book.add([0, 1], [0, 1], [0, 1]); book.add([0, 1], [2, 3], [1, 2])
    >>> ended = {"env_id": np.array([1]), "reward": np.array([[2., -2., 2., -2.]])}
    >>> book.finish(ended)
    (array([1, 3]), array([-2.,  2.], dtype=float32))
    >>> book.open(0), book.open(1)
    (2, 0)
    """

    def __init__(self, num_envs: int) -> None:
        self._rows = [[] for _ in range(num_envs)]
        self._seats = [[] for _ in range(num_envs)]

    def add(self, env_ids, rows, seats) -> None:
        for e, r, s in zip(np.asarray(env_ids).tolist(), np.asarray(rows).tolist(),
                           np.asarray(seats).tolist()):
            self._rows[e].append(r)
            self._seats[e].append(s)

    def open(self, env_id: int) -> int:
        """How many decisions of table ``env_id`` wait for their hand's end."""
        return len(self._rows[env_id])

    def finish(self, results) -> tuple:
        rows, targets = [], []
        for e, reward in zip(np.asarray(results["env_id"]).tolist(), results["reward"]):
            seats = self._seats[e]
            rows.extend(self._rows[e])
            targets.extend(np.asarray(reward, np.float32)[seats].tolist())
            self._rows[e], self._seats[e] = [], []
        return np.array(rows, np.int64), np.array(targets, np.float32)


def play_round(net, settings: RoundSettings, seed: int, round_index: int, actor: int) -> dict:
    """One actor's round (module doc): the samples of the hands that ended, as arrays
    ``state float32[N, 513]``, ``cards uint8[N, 54]``, ``ids int16[N]`` (the chosen
    candidates), ``target float32[N]``, and its costs: ``decisions`` (all steps' decisions,
    kept or not), ``hands``, ``seconds`` and the parts of it in the engine (``VecEnv.step``
    with its encoder, ``pending``, ``drain_results``) and in the network."""
    from ..vecenv import VecEnv

    t_start = time.perf_counter()
    env = VecEnv(settings.num_envs, seed=round_seed(seed, round_index, actor, 0),
                 encoder="danzero", action_mode="candidates")
    rng = np.random.default_rng(round_seed(seed, round_index, actor, 1))
    book = HandBook(settings.num_envs)
    states, cards, ids, keep_rows, keep_targets = [], [], [], [], []
    recording = np.ones(settings.num_envs, bool)
    engine = network = 0.0
    rows = 0
    decisions = hands = 0
    step = 0
    t = time.perf_counter()
    batch = env.reset()
    engine += time.perf_counter() - t
    while True:
        if step == settings.steps:
            # From here on only the hands already begun are played out.
            recording = np.array([book.open(e) > 0 for e in range(settings.num_envs)])
        if step >= settings.steps and not recording.any():
            break
        offsets = batch.cand_offsets
        t = time.perf_counter()
        pick = net.choose(batch.obs, batch.cand_cards, batch.cand_ids, offsets)
        network += time.perf_counter() - t
        counts = np.diff(offsets)
        explore = rng.random(len(counts)) < settings.epsilon
        if explore.any():
            pick[explore] = (rng.random(int(explore.sum())) * counts[explore]).astype(np.int64)
        chosen = offsets[:-1] + pick
        kept = np.flatnonzero(recording)
        states.append(batch.obs[kept].copy())
        cards.append(batch.cand_cards[chosen[kept]].copy())
        ids.append(batch.cand_ids[chosen[kept]].astype(np.int16))
        book.add(batch.env_id[kept], np.arange(rows, rows + len(kept)), batch.seat[kept])
        rows += len(kept)
        decisions += len(counts)
        t = time.perf_counter()
        env.step(pick)
        batch = env.pending()
        ended = env.drain_results()
        engine += time.perf_counter() - t
        hands += len(ended["env_id"])
        if step >= settings.steps:
            recording[ended["env_id"]] = False
        done_rows, done_targets = book.finish(ended)
        keep_rows.append(done_rows)
        keep_targets.append(done_targets)
        step += 1
    order = np.concatenate(keep_rows)
    sort = np.argsort(order, kind="stable")
    order = order[sort]
    return {"state": np.concatenate(states)[order], "cards": np.concatenate(cards)[order],
            "ids": np.concatenate(ids)[order],
            "target": np.concatenate(keep_targets)[sort],
            "decisions": decisions, "hands": hands, "engine_seconds": engine,
            "network_seconds": network, "seconds": time.perf_counter() - t_start}

"""Self-play rounds: ε-greedy actors on ``VecEnv`` and their Monte-Carlo targets.

An actor plays one *round*: a fresh ``VecEnv`` (all four seats learners, or one team against
a built-in bot; DanZero's encoder, candidate-action lists) seeded from the run's seed, the round number and the actor's number,
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

from .qnet import ACTION_SIZE, STATE_SIZE

__all__ = ["RoundSettings", "HandBook", "play_round", "round_seed"]


@dataclass(frozen=True)
class RoundSettings:
    """What an actor's round needs besides its weights: tables, steps, exploration."""

    num_envs: int = 64
    steps: int = 400
    epsilon: float = 0.01
    opponent: str = "self"    # 'self': all four seats learn; a VecEnv bot: it plays one team


def round_seed(seed: int, *parts: int) -> int:
    """A 63-bit seed for the part of a run named by ``parts`` (round, actor, use), the same
    on every machine.

    >>> round_seed(1, 2, 3) == round_seed(1, 2, 3) != round_seed(1, 3, 2)
    True
    """
    state = np.random.SeedSequence([seed, *parts]).generate_state(2, np.uint32)
    return (int(state[0]) << 31) ^ int(state[1])


class HandBook:
    """Which hand of its table each decision belongs to, and the hands' rewards: the
    Monte-Carlo targets of a round.

    ``add(env_ids, rows, seats)`` notes that sample ``rows[k]`` was table ``env_ids[k]``'s
    decision for seat ``seats[k]`` in the table's current hand; ``end(results)`` takes
    ``VecEnv.drain_results()`` (the hands that ended); ``targets()`` returns ``(rows,
    targets)`` of the decisions of every hand that ended, in row order, each target the
    reward of the decision's seat in its hand. Arrays throughout: a step costs a few numpy
    calls, whatever the number of tables.

    >>> book = HandBook(2)
    >>> book.add([0, 1], [0, 1], [0, 1]); book.add([0, 1], [2, 3], [1, 2])
    >>> book.end({"env_id": np.array([1]), "reward": np.array([[2., -2., 2., -2.]])})
    >>> book.targets()
    (array([1, 3]), array([-2.,  2.], dtype=float32))
    >>> book.open(0), book.open(1)
    (2, 0)
    """

    def __init__(self, num_envs: int) -> None:
        self._n = num_envs
        self._hand = np.zeros(num_envs, np.int64)     # hands ended so far, per table
        self._open = np.zeros(num_envs, np.int64)     # decisions in the current hand
        self._rows, self._keys, self._seats = [], [], []
        self._ended_keys, self._rewards = [], []

    def add(self, env_ids, rows, seats) -> None:
        env_ids = np.asarray(env_ids, np.int64)
        self._rows.append(np.asarray(rows, np.int64))
        self._keys.append(self._hand[env_ids] * self._n + env_ids)
        self._seats.append(np.asarray(seats, np.int64))
        np.add.at(self._open, env_ids, 1)

    def open(self, env_id: int) -> int:
        """How many decisions of table ``env_id`` wait for their hand's end."""
        return int(self._open[env_id])

    def end(self, results) -> None:
        for e, reward in zip(np.asarray(results["env_id"]).tolist(), results["reward"]):
            self._ended_keys.append(int(self._hand[e]) * self._n + e)
            self._rewards.append(np.asarray(reward, np.float32))
            self._hand[e] += 1
            self._open[e] = 0

    def targets(self) -> tuple:
        if not self._rows or not self._ended_keys:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        rows, keys = np.concatenate(self._rows), np.concatenate(self._keys)
        seats = np.concatenate(self._seats)
        ended = np.array(self._ended_keys, np.int64)
        order = np.argsort(ended)
        at = np.minimum(np.searchsorted(ended, keys, sorter=order), len(ended) - 1)
        hit = ended[order[at]] == keys
        rewards = np.stack(self._rewards)[order[at[hit]], seats[hit]]
        rows = rows[hit]
        sort = np.argsort(rows, kind="stable")
        return rows[sort], rewards[sort].astype(np.float32)


class _Buffers:
    """A round's samples, written in place; ``reserve(n)`` makes room for ``n`` rows."""

    def __init__(self, capacity: int) -> None:
        self.state = np.empty((capacity, STATE_SIZE), np.float32)
        self.cards = np.empty((capacity, ACTION_SIZE), np.uint8)
        self.ids = np.empty(capacity, np.int16)

    def reserve(self, n: int) -> None:
        if n > len(self.ids):
            size = max(n, len(self.ids) * 3 // 2)
            for name in ("state", "cards", "ids"):
                old = getattr(self, name)
                new = np.empty((size,) + old.shape[1:], old.dtype)
                new[:len(old)] = old
                setattr(self, name, new)


def play_round(net, settings: RoundSettings, seed: int, round_index: int, actor: int) -> dict:
    """One actor's round (module doc): the samples of the hands that ended, as arrays
    ``state float32[N, 513]``, ``cards uint8[N, 54]``, ``ids int16[N]`` (the chosen
    candidates), ``target float32[N]``, and its costs: ``decisions`` (all steps' decisions,
    kept or not), ``hands``, ``seconds`` and the parts of it in the engine (``VecEnv.step``
    with its encoder, ``pending``, ``drain_results``) and in the network."""
    from ..vecenv import VecEnv

    t_start = time.perf_counter()
    if settings.opponent == "self":
        seats = dict(learners=(0, 1, 2, 3))
    else:   # the learning team sits at seats 0 and 2, or 1 and 3, by turns
        seats = dict(learners=(0, 2) if (round_index + actor) % 2 == 0 else (1, 3),
                     opponents=settings.opponent)
    env = VecEnv(settings.num_envs, seed=round_seed(seed, round_index, actor, 0),
                 encoder="danzero", action_mode="candidates", **seats)
    rng = np.random.default_rng(round_seed(seed, round_index, actor, 1))
    book = HandBook(settings.num_envs)
    n = settings.num_envs
    # The samples are written straight into buffers (copying the batch, then concatenating
    # the copies, doubled the round's memory traffic), with room for the hands played out
    # after the steps (a hand is about 160 decisions; pages never written cost nothing).
    buf = _Buffers(n * (settings.steps + 256))
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
        k = len(kept)
        buf.reserve(rows + k)
        if k == n:
            buf.state[rows:rows + k] = batch.obs
        else:
            buf.state[rows:rows + k] = batch.obs[kept]
        buf.cards[rows:rows + k] = batch.cand_cards[chosen[kept]]
        buf.ids[rows:rows + k] = batch.cand_ids[chosen[kept]]
        book.add(batch.env_id[kept], np.arange(rows, rows + k), batch.seat[kept])
        rows += k
        decisions += len(counts)
        t = time.perf_counter()
        env.step(pick)
        batch = env.pending()
        ended = env.drain_results()
        engine += time.perf_counter() - t
        hands += len(ended["env_id"])
        if step >= settings.steps:
            recording[ended["env_id"]] = False
        book.end(ended)
        step += 1
    kept_rows, targets = book.targets()
    if len(kept_rows) == rows:
        # Every decision kept (the hands are played out): the buffers' first rows as they
        # are; gathering them again cost a fifth of the round.
        kept_rows = slice(0, rows)
    return {"state": buf.state[kept_rows], "cards": buf.cards[kept_rows],
            "ids": buf.ids[kept_rows], "target": targets,
            "decisions": decisions, "hands": hands, "engine_seconds": engine,
            "network_seconds": network, "seconds": time.perf_counter() - t_start}

"""Learned agents as ``VecEnv`` opponents: ``DMCOpponentsEnv``.

``VecEnv``'s opponents are compiled bots, played inside its step. Here any opponent seat may
also be a ``dmc`` agent (``dmc:PATH``, plain ``dmc``): the wrapper runs a ``VecEnv`` in which
those seats are learners too, scores all their decisions of a step in one batch per network,
and gives the caller only the tables where one of *its* learners is to act. Every table
still advances at every step (the caller's tables by the caller's actions, the others by the
networks), and steps where no table waits for the caller are played through. So a batch has
``B <= num_envs`` rows (``env_id`` says which tables), and the rest is ``VecEnv``'s contract:
the same ``Batch`` fields, ``step``, ``drain_results``, ``match_seed``, the same seeds.

The wrapper's encoder is DanZero's (what the networks read); ``action_mode`` is the
caller's: ``'candidates'`` (indices into each row's candidates) or ``'abstract'`` (action
ids, with ``mask``).

>>> import os, tempfile
>>> from guandan_fast.learn.qnet import QNet
>>> path = os.path.join(tempfile.mkdtemp(), "w.npz"); QNet.initial((16,), seed=0).save(path)
>>> env = DMCOpponentsEnv(8, seed=0, learners=(0, 2), opponents=f"dmc:{path}")
>>> b = env.reset()
>>> set(b.seat.tolist()) <= {0, 2}, b.obs.shape[1]
(True, 513)
>>> b = env.step(np.zeros(len(b.env_id), np.int64))
"""

from __future__ import annotations

import numpy as np

__all__ = ["DMCOpponentsEnv"]


class DMCOpponentsEnv:
    """A ``VecEnv`` (module doc) whose opponent seats may be ``dmc`` agents; the other
    opponent seats are ``VecEnv`` bots. Keyword arguments other than these go to ``VecEnv``
    (``rules``, ``threads``, ...)."""

    def __init__(self, num_envs: int, *, seed: int, learners=(0, 2), opponents="dmc",
                 action_mode: str = "candidates", **vecenv_options) -> None:
        from ..agents import names, parse_agents
        from ..vecenv import VecEnv

        if action_mode not in ("candidates", "abstract"):
            raise ValueError(f"action_mode must be 'abstract' or 'candidates', "
                             f"got {action_mode!r}")
        for key in ("encoder", "learners", "action_mode"):
            if key in vecenv_options:
                raise ValueError(f"DMCOpponentsEnv sets {key} itself")
        if isinstance(opponents, str):
            opponents = [opponents] * 4 if "," not in opponents else opponents.split(",")
        parsed = parse_agents(opponents, 4, what="opponents")
        try:
            ls = tuple(int(p) for p in learners)
        except (TypeError, ValueError):
            raise TypeError("learners must be a sequence of seats") from None
        bots = names("bot")
        self._nets = {}
        inner = []
        for p, a in enumerate(parsed):
            if p not in ls and a.kind == "dmc":
                self._nets[p] = a.func
            elif p not in ls and a.kind not in bots:
                raise ValueError(f"agent {a.name!r} cannot play in DMCOpponentsEnv, which "
                                 f"takes dmc agents and {', '.join(bots)}")
            inner.append(a.name if a.kind in bots else "greedy")   # a learner's is unused
        self.learners = ls
        self.action_mode = action_mode
        self.env = VecEnv(num_envs, seed=seed, learners=tuple(sorted(set(ls) | set(self._nets))),
                          opponents=tuple(inner), encoder="danzero",
                          action_mode="candidates", **vecenv_options)
        self.num_envs = num_envs
        self.obs_size = self.env.obs_size
        self._inner = None
        self._rows = None

    def reset(self):
        self._inner = self.env.reset()
        return self._advance()

    def pending(self):
        """The tables waiting for the caller's learners, as a ``Batch`` (copies)."""
        from ..actions import N_ACTIONS
        from ..vecenv import Batch

        b, rows = self._inner, self._rows
        offsets, counts = b.cand_offsets, np.diff(b.cand_offsets)[rows]
        new = np.zeros(len(rows) + 1, np.int64)
        np.cumsum(counts, out=new[1:])
        take = np.repeat(offsets[rows] - new[:-1], counts) + np.arange(new[-1])
        ids = b.cand_ids[take]
        mask = None
        if self.action_mode == "abstract":
            mask = np.zeros((len(rows), N_ACTIONS), bool)
            mask[np.repeat(np.arange(len(rows)), counts), ids] = True
        return Batch(obs=b.obs[rows], mask=mask, cand_offsets=new, cand_ids=ids,
                     cand_words=b.cand_words[take], cand_cards=b.cand_cards[take],
                     env_id=b.env_id[rows], seat=b.seat[rows], phase=b.phase[rows])

    def step(self, actions):
        """Step every table: the caller's rows by ``actions`` (one per row of the last
        batch), the networks' rows by the networks; returns the next batch."""
        from ..moves import IllegalMoveError

        if self._rows is None:
            raise RuntimeError("call reset() first")
        b, rows = self._inner, self._rows
        actions = np.asarray(actions)
        if actions.shape != (len(rows),):
            raise ValueError(f"actions must have shape ({len(rows)},), got {actions.shape}")
        if actions.dtype.kind not in "iu":
            raise TypeError(f"actions must be integers, got {actions.dtype}")
        counts = np.diff(b.cand_offsets)
        full = self._network_actions(np.ones(len(counts), bool))
        if self.action_mode == "candidates":
            if ((actions < 0) | (actions >= counts[rows])).any():
                raise ValueError("a candidate index out of range")
            full[rows] = actions
        else:
            table_of = np.repeat(np.arange(len(counts)), counts)
            keys = table_of * 1024 + b.cand_ids
            want = rows * 1024 + actions
            at = np.minimum(np.searchsorted(keys, want), len(keys) - 1)
            if (keys[at] != want).any():
                k = int(np.flatnonzero(keys[at] != want)[0])
                raise IllegalMoveError(f"action {int(actions[k])} is not legal at table "
                                       f"{int(b.env_id[rows[k]])}")
            full[rows] = at - b.cand_offsets[rows]
        self.env.step(full)
        self._inner = self.env.pending()
        return self._advance()

    def drain_results(self):
        return self.env.drain_results()

    def match_seed(self, env_id):
        return self.env.match_seed(env_id)

    def _network_actions(self, wanted) -> np.ndarray:
        """Each network's choice at the rows whose seat it plays (0 elsewhere)."""
        b = self._inner
        out = np.zeros(len(b.env_id), np.int64)
        for seat, net in self._nets.items():
            rows = np.flatnonzero(wanted & (b.seat == seat))
            if rows.size == 0:
                continue
            offsets, counts = b.cand_offsets, np.diff(b.cand_offsets)[rows]
            new = np.zeros(len(rows) + 1, np.int64)
            np.cumsum(counts, out=new[1:])
            take = np.repeat(offsets[rows] - new[:-1], counts) + np.arange(new[-1])
            out[rows] = net.choose(b.obs[rows], b.cand_cards[take], b.cand_ids[take], new)
        return out

    def _advance(self):
        mine = np.isin(self._inner.seat, self.learners)
        while not mine.any():            # only networks to act: play them through
            self.env.step(self._network_actions(np.ones(len(mine), bool)))
            self._inner = self.env.pending()
            mine = np.isin(self._inner.seat, self.learners)
        self._rows = np.flatnonzero(mine)
        return self.pending()

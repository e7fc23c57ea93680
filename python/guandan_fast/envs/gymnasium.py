"""Guandan for Gymnasium (imports ``gymnasium``): one learner against built-in bots.

``GuandanEnv`` is a ``gymnasium.Env``: the learner sits at ``seat``, the three other seats are
played inside ``step`` by agents of ``guandan_fast.agents`` (any spec: ``greedy``,
``pimc:samples=8``, ``module:function``, a policy). An episode is a whole match.
``GuandanVectorEnv`` is the same for many tables at once, a ``gymnasium.vector.VectorEnv`` over
``guandan_fast.VecEnv`` (built-in bots in compiled code). Observations are ``float32[D]`` tensors of the learning interface,
actions ``Discrete(N)`` ids of the fixed action space; the legal ones are in
``info["action_mask"]`` (and ``env.action_masks()``, the sb3-contrib convention). Rewards follow
docs/envs.md.

Importing this module registers ``guandan_fast/Guandan-v0`` for ``gymnasium.make`` (keyword
arguments are ``GuandanEnv``'s) and for ``gymnasium.make_vec`` (``GuandanVectorEnv``):

>>> import gymnasium
>>> import guandan_fast.envs.gymnasium
>>> env = gymnasium.make("guandan_fast/Guandan-v0", opponents="random")
>>> [agent.name if agent else None for agent in env.unwrapped.opponents]
[None, 'random', 'random', 'random']

>>> from guandan_fast.envs.gymnasium import GuandanEnv
>>> env = GuandanEnv(seat=0, opponents="greedy")
>>> obs, info = env.reset(seed=3)
>>> obs.shape == env.observation_space.shape
True
>>> action = int(info["action_mask"].argmax())       # the first legal action
>>> obs, reward, terminated, truncated, info = env.step(action)
>>> terminated, truncated
(False, False)
"""

from __future__ import annotations

import gymnasium
import numpy as np

from ..game import Game
from ..moves import IllegalMoveError
from ..rules import Rules
from ..agents import parse_agents
from ..validate import check_count, check_rules, check_seat
from . import common
from .spaces import Spaces

__all__ = ["GuandanEnv", "GuandanVectorEnv", "ENV_ID"]

#: The id under which ``gymnasium.make`` / ``gymnasium.make_vec`` build these environments.
ENV_ID = "guandan_fast/Guandan-v0"

_ILLEGAL = ("raise", "terminate")


def _check_opponents(opponents, seat, where="all"):
    """Four ``Agent``s by seat (None at the learner's) from one spec or four (None at
    ``seat``); ``where``: the kinds accepted (``agents.names``)."""
    if isinstance(opponents, str) or not hasattr(opponents, "__iter__"):
        specs = [opponents] * 4
    else:
        specs = list(opponents)
        if len(specs) != 4 or specs[seat] is not None:
            raise ValueError(f"opponents as a sequence has 4 entries with None at the learner's "
                             f"seat {seat}; got {opponents!r}")
    out = [None] * 4
    for p in range(4):
        if p != seat:
            try:
                out[p] = parse_agents([specs[p]], where=where, place="these opponents")[0]
            except ValueError as exc:
                raise ValueError(f"unknown bot for seat {p}: {exc}") from None
    return tuple(out)


class GuandanEnv(gymnasium.Env):
    """One learner (``seat``) against built-in bots (``opponents``: a bot name for the three
    other seats, or 4 names with None at ``seat``), a whole match per episode.

    ``reward``: ``'match'`` or ``'hand'`` (docs/envs.md), for the learner's team.
    ``illegal_action``: ``'raise'`` (``IllegalMoveError``, nothing changes) or ``'terminate'``
    (the episode ends with reward -1 and ``info["illegal_action"] = True``: for learners that
    sample without the mask). ``max_hands``: truncate after this many hands.
    """

    metadata = {"render_modes": list(common.RENDER_MODES), "render_fps": common.RENDER_FPS}

    def __init__(self, seat=0, opponents="greedy", rules=Rules(), encoder="default",
                 reward="match", illegal_action="raise", max_hands=None, render_mode=None):
        self.seat = seat = check_seat(seat)
        self.opponents = _check_opponents(opponents, seat)
        self.rules = check_rules(rules)
        self.reward_mode = common.check_reward(reward)
        if illegal_action not in _ILLEGAL:
            raise ValueError(f"illegal_action must be 'raise' or 'terminate', "
                             f"got {illegal_action!r}")
        self.illegal_action = illegal_action
        self.max_hands = None if max_hands is None else check_count(max_hands, "max_hands", 1)
        self.render_mode = common.check_render_mode(render_mode)
        self._spaces = Spaces(encoder)
        self.observation_space = self._spaces.observation_space()
        self.action_space = gymnasium.spaces.Discrete(self._spaces.num_actions)
        self.game = None
        self._done = True

    # -- helpers ------------------------------------------------------------------------------
    def _advance(self):
        """Bots play until the learner acts or the match ends; their rewards for the learner."""
        game = self.game
        total = 0.0
        while not game.is_over and game.current_player != self.seat:
            n = len(game.results)
            agent = self.opponents[game.current_player]
            game.play(agent.move(game, int(self.np_random.integers(0, 2**63))))
            total += float(common.rewards(game.results[n:], game, self.reward_mode)[self.seat])
            if self._truncated():
                break
        return total

    def _truncated(self):
        return (self.max_hands is not None and not self.game.is_over
                and self.game.hand_number >= self.max_hands)

    def _obs_info(self):
        mask = np.zeros(self._spaces.num_actions, np.int8)
        if self.game.current_player == self.seat:
            mask[:] = self._spaces.mask(self.game)
        info = {"action_mask": mask, "hand_number": self.game.hand_number}
        return self._spaces.obs(self.game, self.seat), info

    def action_masks(self):
        """The legal actions now, ``bool[N]`` (sb3-contrib's ``MaskablePPO`` convention)."""
        if self.game is None or self._done:
            return np.zeros(self._spaces.num_actions, bool)
        return self._spaces.mask(self.game).astype(bool)

    # -- gymnasium API ------------------------------------------------------------------------
    def reset(self, *, seed=None, options=None):
        """A new match: ``Game(seed=seed)`` when a seed is given (bots then draw from
        ``np_random``, seeded by it too), else a seed drawn from ``np_random``."""
        super().reset(seed=seed)
        game_seed = (int(seed) & (2**64 - 1) if seed is not None
                     else int(self.np_random.integers(0, 2**63)))
        self.game = Game(seed=game_seed, rules=self.rules)
        self._done = False
        self._advance()
        obs, info = self._obs_info()
        return obs, info

    def step(self, action):
        if self.game is None or self._done:
            raise RuntimeError("step() needs reset() first (the episode is over or not started)")
        a = common.check_action(action, self._spaces.num_actions)
        game = self.game
        n = len(game.results)
        try:
            self._spaces.play(game, a)
        except IllegalMoveError:
            if self.illegal_action == "raise":
                raise
            self._done = True
            obs, info = self._obs_info()
            info["illegal_action"] = True
            return obs, -1.0, True, False, info
        reward = float(common.rewards(game.results[n:], game, self.reward_mode)[self.seat])
        if not self._truncated():
            reward += self._advance()
        terminated = game.is_over
        truncated = self._truncated()
        self._done = terminated or truncated
        obs, info = self._obs_info()
        return obs, reward, terminated, truncated, info

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode ('ansi' or 'svg')")
            return None
        return common.render(self.game, self.render_mode, seat=self.seat)



class GuandanVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` tables of ``guandan_fast.VecEnv`` as a ``gymnasium.vector.VectorEnv``: one
    learner per table at ``seat``, the other seats built-in bots played in compiled code.

    Actions: an int array ``[num_envs]`` of action ids; observations ``float32[num_envs, D]``;
    ``infos["action_mask"]``: ``int8[num_envs, N]``. A table whose match ends is replaced by
    its next match within the same ``step`` (``AutoresetMode.SAME_STEP``: the observation
    returned is the new match's first; the finished match's last observation is not kept, as
    nothing is bootstrapped from a terminal state). Rewards: ``reward='match'`` or ``'hand'``
    (docs/envs.md) for the learner's team. ``threads``: ``VecEnv``'s threads (results do not
    depend on it). Table ``i`` plays the matches of ``VecEnv(seed=...)``'s table ``i``
    (docs/learning.md "Seeds").

    >>> import numpy as np
    >>> envs = GuandanVectorEnv(8, seat=0, opponents="greedy")
    >>> obs, infos = envs.reset(seed=1)
    >>> obs.shape, infos["action_mask"].shape
    ((8, 536), (8, 501))
    >>> actions = infos["action_mask"].argmax(axis=1)         # the first legal id per table
    >>> obs, rewards, terminated, truncated, infos = envs.step(actions)
    >>> rewards.shape, terminated.dtype
    ((8,), dtype('bool'))
    """

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP}

    def __init__(self, num_envs, seat=0, opponents="greedy", rules=Rules(), encoder="default",
                 reward="match", threads=1):
        from ..vecenv import VecEnv  # noqa: F401  (fails here when the build lacks it)
        self.num_envs = num_envs = check_count(num_envs, "num_envs", 1)
        self.seat = seat = check_seat(seat)
        self.opponents = _check_opponents(opponents, seat, where="bot")
        self.rules = check_rules(rules)
        self.reward_mode = common.check_reward(reward)
        self.threads = threads
        self._spaces = Spaces(encoder)
        self.single_observation_space = self._spaces.observation_space()
        self.single_action_space = gymnasium.spaces.Discrete(self._spaces.num_actions)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, num_envs)
        self.action_space = gymnasium.spaces.MultiDiscrete(
            np.full(num_envs, self._spaces.num_actions))
        self._vec = None
        self._team = seat & 1

    def _out(self, batch):
        return batch.obs.copy(), {"action_mask": batch.mask.astype(np.int8),
                                  "_action_mask": np.ones(self.num_envs, bool)}

    def reset(self, *, seed=None, options=None):
        """New matches on every table: ``VecEnv(num_envs, seed=seed)`` (a seed drawn from
        ``np_random`` when None)."""
        from ..vecenv import VecEnv
        super().reset(seed=seed)
        vec_seed = (int(seed) & (2**64 - 1) if seed is not None
                    else int(self.np_random.integers(0, 2**63)))
        names = tuple("greedy" if a is None else a.name for a in self.opponents)
        self._vec = VecEnv(self.num_envs, seed=vec_seed, rules=self.rules, threads=self.threads,
                           learners=(self.seat,), opponents=names,
                           encoder=self._spaces.encoder, action_mode="abstract")
        batch = self._vec.reset()
        return self._out(batch)

    def step(self, actions):
        if self._vec is None:
            raise RuntimeError("step() needs reset() first")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be an int array of shape ({self.num_envs},), "
                             f"got {a.dtype} {a.shape}")
        self._vec.step(a)
        batch = self._vec.pending()
        res = self._vec.drain_results()
        rewards = np.zeros(self.num_envs, np.float64)
        terminated = np.zeros(self.num_envs, bool)
        env_id = np.asarray(res["env_id"])
        if self.reward_mode == "hand":
            np.add.at(rewards, env_id, np.asarray(res["reward"])[:, self.seat])
        over = np.asarray(res["match_over"], bool)
        if over.any():
            ids = env_id[over]
            terminated[ids] = True
            if self.reward_mode == "match":
                won = np.asarray(res["match_winner"])[over] == self._team
                rewards[ids] += np.where(won, 1.0, -1.0)
        obs, infos = self._out(batch)
        return obs, rewards, terminated, np.zeros(self.num_envs, bool), infos


# Registered on import (gymnasium's convention for third-party environments); a second import
# of the module (importlib.reload) finds the id and leaves it.
if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point=f"{__name__}:GuandanEnv",
                       vector_entry_point=f"{__name__}:GuandanVectorEnv")

"""Guandan as a PettingZoo AEC environment, version 0 (imports ``pettingzoo`` and ``gymnasium``).

Named as PettingZoo names its own environments (``pettingzoo.classic.chess_v6``): the suffix
is raised whenever a change could alter what an agent trained on it sees or gets.

Agents ``player_0`` .. ``player_3`` (seat ``p``; teams {0, 2} and {1, 3}); an episode is a whole
match. Each agent observes ``{"observation": float32[D], "action_mask": int8[N]}`` and acts
with a ``Discrete(N)`` id of the fixed action space (``guandan_fast.actions``); rewards follow
docs/envs.md (``reward='match'`` or ``'hand'``). An illegal or malformed action raises
(``IllegalMoveError``, ``ValueError`` or ``TypeError``) and changes nothing.

>>> from guandan_fast.envs.pettingzoo import guandan_v0
>>> e = guandan_v0.env()
>>> e.reset(seed=7)
>>> e.agent_selection in e.agents
True
>>> obs, reward, terminated, truncated, info = e.last()
>>> mask = obs["action_mask"]
>>> e.step(int(mask.argmax()))        # the first legal action
>>> e.close()
"""

from __future__ import annotations

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ...game import Game
from ...rules import Rules
from ...validate import check_count, check_rules, check_seed
from .. import common
from ..spaces import Spaces

__all__ = ["env", "raw_env"]


def env(**kwargs):
    """The environment, wrapped in PettingZoo's order-enforcing wrapper (``step`` before
    ``reset`` raises). Keyword arguments are those of ``raw_env``."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv):
    """The unwrapped AEC environment.

    ``rules``: a ``guandan_fast.Rules``; ``encoder``: the observation encoder of the learning
    interface; ``reward``: ``'match'`` or ``'hand'`` (docs/envs.md); ``max_hands``: truncate the
    episode after this many hands (None: play until the match ends); ``render_mode``: None,
    ``'ansi'`` (``render()`` returns a text table of the whole state) or ``'svg'`` (the same
    view as a picture, ``guandan_fast.svg.table``).
    """

    metadata = {"render_modes": list(common.RENDER_MODES), "render_fps": common.RENDER_FPS,
                "name": "guandan_v0", "is_parallelizable": False}

    def __init__(self, rules=Rules(), encoder="default", reward="match", max_hands=None,
                 render_mode=None):
        super().__init__()
        self.rules = check_rules(rules)
        self.reward_mode = common.check_reward(reward)
        self.max_hands = None if max_hands is None else check_count(max_hands, "max_hands", 1)
        self.render_mode = common.check_render_mode(render_mode)
        self._spaces = Spaces(encoder)
        n = self._spaces.num_actions
        self.possible_agents = list(common.AGENTS)
        obs_space = gymnasium.spaces.Dict({
            "observation": self._spaces.observation_space(),
            "action_mask": gymnasium.spaces.Box(0, 1, (n,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: gymnasium.spaces.Discrete(n) for a in self.possible_agents}
        self.game = None
        self._rng = np.random.default_rng()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        """A new match: ``Game(seed=seed)`` when a seed is given, else a seed drawn from the
        generator of the last seeded reset (so a seeded sequence of episodes repeats)."""
        seed = check_seed(seed, optional=True)
        if seed is not None:
            self._rng = np.random.default_rng(seed & (2**64 - 1))
            game_seed = seed & (2**64 - 1)
        else:
            game_seed = int(self._rng.integers(0, 2**63))
        self.game = Game(seed=game_seed, rules=self.rules)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = common.AGENTS[self.game.current_player]
        self._skip_agent_selection = None

    def observe(self, agent):
        p = common.AGENTS.index(agent)
        mask = np.zeros(self._spaces.num_actions, np.int8)
        if self.game.current_player == p:
            mask[:] = self._spaces.mask(self.game)
        return {"observation": self._spaces.obs(self.game, p), "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = common.check_action(action, self._spaces.num_actions)
        game = self.game
        n_results = len(game.results)
        self._spaces.play(game, a)       # raises before any change when not legal
        self._cumulative_rewards[agent] = 0.0
        r = common.rewards(game.results[n_results:], game, self.reward_mode)
        for p, name in enumerate(common.AGENTS):
            self.rewards[name] = float(r[p])
        if game.is_over:
            for name in self.agents:
                self.terminations[name] = True
        elif self.max_hands is not None and game.hand_number >= self.max_hands:
            for name in self.agents:
                self.truncations[name] = True
        if game.is_over or any(self.truncations.values()):
            # Every agent gets its last observation and steps None, from the one after.
            self.agent_selection = common.AGENTS[(common.AGENTS.index(agent) + 1) % 4]
        else:
            self.agent_selection = common.AGENTS[game.current_player]
        self._accumulate_rewards()

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode ('ansi' or 'svg')")
            return None
        return common.render(self.game, self.render_mode, seat=None)

    def close(self):
        pass

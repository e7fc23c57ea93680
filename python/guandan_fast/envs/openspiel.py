"""Guandan as an OpenSpiel game (imports ``pyspiel``): ``python_guandan``.

Importing this module registers the game with ``pyspiel.register_game``; then
``pyspiel.load_game("python_guandan")`` (with parameters, e.g.
``"python_guandan(max_hands=20,count_disclosure=1000)"``) works like any OpenSpiel game.

* Four players, sequential, imperfect information; zero-sum between the teams: when the
  match ends the seats of the winning team get +1 and the others -1 (terminal rewards only). A
  match still running after ``max_hands`` hands ends as a draw (0 for everyone).
* The deal is a chance node: outcome ``i`` (of ``deals``, uniform) deals the match
  ``Game(seed=i)``; later hands are dealt by the match's own generator (hidden state). With
  ``seed >= 0`` there is no chance node and the match is ``Game(seed=seed)``.
* Player actions are ids of the fixed action space of the learning interface; the
  information-state and observation tensors are the learning interface's.
* ``resample_from_infostate`` draws a world consistent with a player's information
  (``Game.sample_world``, the determinization of docs/search.md).
* ``serialize``/``deserialize`` go through OpenSpiel's Python-game mechanism (the state's
  attributes, the compiled ``Game`` pickled).

>>> import pyspiel
>>> import guandan_fast.envs.openspiel
>>> game = pyspiel.load_game("python_guandan(seed=5)")
>>> state = game.new_initial_state()
>>> state.current_player() in range(4)
True
>>> state.apply_action(state.legal_actions()[0])
>>> game.deserialize_state(state.serialize()).history() == state.history()
True
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyspiel

from .. import observe
from ..game import Game
from ..perft_core import random_playout
from ..rules import Rules
from ..validate import check_seat
from .spaces import Spaces

__all__ = ["GuandanGame", "GuandanState", "RolloutEvaluator", "GAME_TYPE"]

_SPACES = Spaces("default")
_NUM_PLAYERS = 4
# A hand has at most 108 plays, each followed by at most 3 passes, plus 5 exchange moves.
_MAX_HAND_MOVES = 108 * 4 + 5

# Every Rules switch is a game parameter. OpenSpiel's game strings read a value starting with
# a digit as a number, so three are ints: ace_fail_reset (0 means None), count_disclosure
# (10, 7, or 1000 for 'always') and upgrade (321 or 421).
_RULE_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Rules)}
_RULE_DEFAULTS["ace_fail_reset"] = 0
_RULE_DEFAULTS["count_disclosure"] = 10
_RULE_DEFAULTS["upgrade"] = 321
_DISCLOSURE = {10: "10", 7: "7", 1000: "always"}
_UPGRADE = {321: "3-2-1", 421: "4-2-1"}
_DEFAULT_PARAMS = {"seed": -1, "deals": 1 << 16, "max_hands": 64, **_RULE_DEFAULTS}

GAME_TYPE = pyspiel.GameType(
    short_name="python_guandan",
    long_name="Python Guandan (guandan-fast)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_NUM_PLAYERS,
    min_num_players=_NUM_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULT_PARAMS,
)


@dataclasses.dataclass(frozen=True)
class _Settings:
    """A game's parameters, shared by all its states."""

    rules: Rules
    seed: int            # the deal's seed, or -1: a chance node deals one of `deals`
    deals: int
    max_hands: int


class _Box:
    """The compiled match and the game's settings. ``copy.deepcopy`` (OpenSpiel's clone)
    shares the settings and clones the match in O(1) (the past is shared, immutable)."""

    __slots__ = ("game", "cfg")

    def __init__(self, game, cfg):
        self.game = game
        self.cfg = cfg

    def __deepcopy__(self, memo):
        return _Box(None if self.game is None else self.game.clone(), self.cfg)

    def __getstate__(self):
        return self.game, self.cfg

    def __setstate__(self, st):
        self.game, self.cfg = st


class GuandanGame(pyspiel.Game):
    """The ``python_guandan`` game; ``params``: see the module docstring."""

    def __init__(self, params=None):
        params = {**_DEFAULT_PARAMS, **(params or {})}
        rule_args = {k: params[k] for k in _RULE_DEFAULTS}
        rule_args["ace_fail_reset"] = rule_args["ace_fail_reset"] or None
        if rule_args["count_disclosure"] not in _DISCLOSURE:
            raise ValueError(f"count_disclosure must be 10, 7 or 1000 (always), "
                             f"got {rule_args['count_disclosure']!r}")
        rule_args["count_disclosure"] = _DISCLOSURE[rule_args["count_disclosure"]]
        if rule_args["upgrade"] not in _UPGRADE:
            raise ValueError(f"upgrade must be 321 or 421, got {rule_args['upgrade']!r}")
        rule_args["upgrade"] = _UPGRADE[rule_args["upgrade"]]
        self.rules = Rules(**rule_args)
        if params["deals"] < 1:
            raise ValueError(f"deals must be >= 1, got {params['deals']}")
        if params["max_hands"] < 1:
            raise ValueError(f"max_hands must be >= 1, got {params['max_hands']}")
        self.seed = params["seed"]
        self.deals = params["deals"]
        self.max_hands = params["max_hands"]
        info = pyspiel.GameInfo(
            num_distinct_actions=_SPACES.num_actions,
            max_chance_outcomes=self.deals,
            num_players=_NUM_PLAYERS,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.max_hands * _MAX_HAND_MOVES)
        super().__init__(GAME_TYPE, info, params)
        self._cfg = _Settings(self.rules, self.seed, self.deals, self.max_hands)

    def new_initial_state(self):
        return GuandanState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return GuandanObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class GuandanState(pyspiel.State):
    """A state of ``python_guandan``; ``state.game`` is the compiled ``guandan_fast.Game``
    (None before the deal)."""

    def __init__(self, game):
        super().__init__(game)
        cfg = game._cfg
        self._box = _Box(Game(seed=cfg.seed, rules=cfg.rules) if cfg.seed >= 0 else None, cfg)

    @property
    def game(self):
        return self._box.game

    # -- OpenSpiel API ----------------------------------------------------------------------
    def current_player(self):
        g = self._box.game
        if g is None:
            return pyspiel.PlayerId.CHANCE
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return g.current_player

    def is_terminal(self):
        g = self._box.game
        return g is not None and (g.is_over or g.hand_number >= self._box.cfg.max_hands)

    def _legal_actions(self, player):
        return np.flatnonzero(_SPACES.mask(self._box.game)).tolist()

    def chance_outcomes(self):
        deals = self._box.cfg.deals
        p = 1.0 / deals
        return [(i, p) for i in range(deals)]

    def _apply_action(self, action):
        if self._box.game is None:
            self._box.game = Game(seed=int(action), rules=self._box.cfg.rules)
        else:
            _SPACES.play(self._box.game, int(action))

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        return _SPACES.action_name(int(action))

    def returns(self):
        g = self._box.game
        if g is None or not g.is_over:
            return [0.0] * _NUM_PLAYERS
        s = 1.0 if g.winner == 0 else -1.0
        return [s, -s, s, -s]

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state ``player_id`` cannot tell from this one: the cards it cannot see (and the
        future deals) redrawn by ``Game.sample_world`` (docs/search.md), seeded from one draw
        of ``probability_sampler`` (e.g. ``pyspiel.UniformProbabilitySampler``).

        During the tribute phase (where ``sample_world`` does not apply) the state itself is
        returned: the choices there are only which of the payer's highest cards to pay, or
        (``double_tie='winners_choose'``) which of the two paid cards to take.
        """
        player_id = check_seat(player_id, "player_id")
        out = self.clone()
        g = self._box.game
        if g is not None and g.phase in ("play", "back"):
            seed = int(probability_sampler() * 2.0**53)
            out._box = _Box(g.sample_world(player_id, seed), self._box.cfg)
        return out

    def __str__(self):
        from .common import table
        return "before the deal" if self._box.game is None else table(self._box.game)


def _info_string(game, player):
    return f"p{player} {game.observation(player)!r} results={game.results!r}"


def _obs_string(game, player):
    ob = game.observation(player)
    top = ob["top"]
    return (f"p{player} phase={ob['phase']} hand#{ob['hand_number']} level={ob['level']} "
            f"levels={ob['levels']} turn={ob['current_player']} counts={ob['counts']} "
            f"finished={ob['finish_order']} top={None if top is None else (top[0], str(top[1]))} "
            f"hand={' '.join(ob['hand'])}")


class GuandanObserver:
    """OpenSpiel's Python observer: ``perfect_recall=True`` gives the information-state
    tensor, else the observation tensor; private information of the observing player only."""

    def __init__(self, iig_obs_type, params):
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or \
                not iig_obs_type.public_info:
            raise ValueError("python_guandan observes public information plus one player's "
                             "private information (PrivateInfoType.SINGLE_PLAYER)")
        self.perfect_recall = iig_obs_type.perfect_recall
        size = _SPACES.info_size if self.perfect_recall else _SPACES.obs_size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"tensor": self.tensor}

    def set_from(self, state, player):
        g = state._box.game
        if g is None:
            self.tensor.fill(0)
        elif self.perfect_recall:
            observe.information_state_tensor(g, player, self.tensor)
        else:
            observe.observation_tensor(g, player, self.tensor)

    def string_from(self, state, player):
        g = state._box.game
        if g is None:
            return f"p{player} before the deal"
        return _info_string(g, player) if self.perfect_recall else _obs_string(g, player)


try:
    from open_spiel.python.algorithms.mcts import Evaluator as _Evaluator
except ImportError:  # pragma: no cover - part of every open_spiel wheel
    _Evaluator = object


class RolloutEvaluator(_Evaluator):
    """An evaluator for OpenSpiel's MCTS and IS-MCTS bots: the average result of
    ``n_rollouts`` uniformly random playouts to the match's end, played in compiled code (a
    Python rollout through the OpenSpiel API would cost thousands of calls per match).
    Priors are uniform."""

    def __init__(self, n_rollouts=1, seed=0):
        self.n_rollouts = n_rollouts
        self._rng = np.random.default_rng(seed)

    def evaluate(self, state):
        if state.is_terminal():
            return np.array(state.returns())
        total = 0.0
        for _ in range(self.n_rollouts):
            _, winner = random_playout(state.game, 10**7, int(self._rng.integers(0, 2**63)))
            total += 0.0 if winner is None else (1.0 if winner == 0 else -1.0)
        v = total / self.n_rollouts
        return np.array([v, -v, v, -v])

    def prior(self, state):
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


pyspiel.register_game(GAME_TYPE, GuandanGame)

"""What the framework adapters share: agent names, the reward convention, the text table, and
the bridge to the learning interface (fixed action space and observation tensors).

No framework is imported here.
"""

from __future__ import annotations

import numpy as np

from ..game import Game
from ..rules import partner_place

#: PettingZoo agent names, seat ``p`` is ``AGENTS[p]``; teams are seats {0, 2} and {1, 3}.
AGENTS = ("player_0", "player_1", "player_2", "player_3")

#: Reward conventions (docs/envs.md): ``'match'``: +1 to the seats of the team that wins the
#: match and -1 to the others, when it ends; ``'hand'``: at the end of every hand, +d to the
#: winning team and -d to the other, ``d`` = 3, 2 or 1 as the winner's partner finished 2nd,
#: 3rd or last (the levels a hand is worth, ``Rules.upgrade_steps``): ``VecEnv``'s rewards.
REWARD_MODES = ("match", "hand")


def check_reward(reward):
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {', '.join(map(repr, REWARD_MODES))}, "
                         f"got {reward!r}")
    return reward


RENDER_MODES = ("ansi", "svg")
# Frames a second for a recorder of rendered frames: the renderings are still pictures, one a
# decision, but Gymnasium's checker and video recorders read the rate from the metadata.
RENDER_FPS = 4


def check_render_mode(render_mode):
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None, 'ansi' or 'svg', got {render_mode!r}")
    return render_mode


def render(game: Game | None, render_mode: str, seat: int | None = None):
    """What ``render()`` of an adapter returns in ``render_mode`` ('ansi': ``table``; 'svg':
    the ``guandan_fast.svg`` picture from ``seat``'s view, every hand open when None).

    >>> render(None, "ansi")
    'no match yet: call reset()'
    >>> render(Game(seed=0), "svg", seat=0).startswith("<svg")
    True
    """
    if game is None:
        return "no match yet: call reset()"
    if render_mode == "svg":   # a picture (Jupyter displays it)
        from ..svg import table as picture
        return picture(game, seat=seat)
    return table(game)


def hand_value(finish_order, steps=(3, 2, 1)) -> int:
    """Levels a hand is worth to its winners (``rules.upgrade_steps``: 3, 2 or 1 by default)
    as the partner of the first finisher finished 2nd, 3rd or last (a double-down is listed
    with two seats).

    >>> hand_value([0, 2]), hand_value([1, 0, 3, 2]), hand_value([2, 1, 3, 0])
    (3, 2, 1)
    """
    return steps[partner_place(finish_order) - 1]


def rewards(new_results, game: Game, mode: str) -> np.ndarray:
    """Per-seat rewards for the hands in ``new_results`` (the ``game.results`` entries added by
    the last move, mode ``'hand'``) or, when ``game`` is over, for the match (mode
    ``'match'``); a ``float32[4]``, zero-sum between the teams.

    >>> g = Game(seed=0)
    >>> rewards([{'finish_order': [1, 0, 3, 2], 'winner': 1}], g, 'hand').tolist()
    [-2.0, 2.0, -2.0, 2.0]
    """
    r = np.zeros(4, np.float32)
    if mode == "hand":
        for res in new_results:
            d = hand_value(res["finish_order"], game.rules.upgrade_steps)
            sign = 1.0 if res["winner"] == 0 else -1.0
            r += sign * d * np.array([1, -1, 1, -1], np.float32)
    elif game.is_over:
        sign = 1.0 if game.winner == 0 else -1.0
        r += sign * np.array([1, -1, 1, -1], np.float32)
    return r


def table(game: Game) -> str:
    """A readable table of the whole state (every hand shown: it is the omniscient view).

    >>> print(table(Game(seed=0)).splitlines()[0])
    hand 0 | level 2 (declarer -) | levels team0 2, team1 2 | phase play | to act: seat 0
    """
    declarer = "-" if game.declarer is None else f"team{game.declarer}"
    turn = "-" if game.current_player is None else f"seat {game.current_player}"
    lines = [f"hand {game.hand_number} | level {game.level} (declarer {declarer}) | levels "
             f"team0 {game.levels[0]}, team1 {game.levels[1]} | phase {game.phase} | "
             f"to act: {turn}"]
    last = {}
    for seat, move in game.history:
        last[seat] = str(move)
    for p in range(4):
        cards = game.hand(p)
        mark = ">" if game.current_player == p else " "
        place = (f" finished #{game.finish_order.index(p) + 1}"
                 if p in game.finish_order else "")
        lines.append(f"{mark} seat {p} (team{p & 1}) {len(cards):2d} cards{place} | last: "
                     f"{last.get(p, '-'):<28} | {' '.join(cards)}")
    if game.is_over:
        lines.append(f"match over: team{game.winner} wins")
    return "\n".join(lines)


def check_action(action, n: int) -> int:
    """An action id as a Python int (numpy integers accepted), or a clear error."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"an action is an int id in [0, {n}), not {type(action).__name__}")
    a = int(action)
    if not 0 <= a < n:
        raise ValueError(f"action {a} out of range: ids are 0..{n - 1}")
    return a

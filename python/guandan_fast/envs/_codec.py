"""The bridge to the learning interface (docs/learning.md): the fixed action space
(``guandan_fast.actions``) and the observation encoders. PROVISIONAL observation until
``guandan_fast.observe`` lands: a small numpy encoding."""

from __future__ import annotations

import numpy as np

from .. import actions
from ..cards import KIND_OF

_PHASES = ("tribute", "back", "play", "over")


class Codec:
    num_actions = actions.N_ACTIONS

    def __init__(self, encoder="default"):
        if encoder not in ("default",):
            raise ValueError(f"encoder must be 'default', got {encoder!r}")
        self.encoder = encoder
        self.obs_size = 54 + 54 + 4 + 13 + 4 + 4
        self.info_size = self.obs_size + 54 * 4

    def mask(self, game, out=None):
        """``bool[N]``: the legal action ids now."""
        return game.legal_action_mask(out)

    def play(self, game, a):
        """Play action id ``a`` (``IllegalMoveError`` when not legal; nothing changes)."""
        game.play_action(a)

    @staticmethod
    def action_name(a):
        return actions.action_name(a)

    def obs(self, game, p):
        o = np.zeros(self.obs_size, np.float32)
        for c in game.hand(p):
            o[KIND_OF[c]] += 0.5
        ob = game.observation(p)
        if ob["top"] is not None:
            for c in ob["top"][1].cards:
                o[54 + KIND_OF[c]] += 0.5
        for q, n in enumerate(ob["counts"]):
            o[108 + q] = (n if n is not None else 13) / 28
        o[112 + game.level - 2] = 1
        o[125 + _PHASES.index(game.phase)] = 1
        if game.current_player is not None:
            o[129 + (game.current_player - p) % 4] = 1
        return o

    def info_state(self, game, p):
        o = np.zeros(self.info_size, np.float32)
        o[:self.obs_size] = self.obs(game, p)
        for seat, m in game.observation(p)["plays"]:
            for c in m.cards:
                o[self.obs_size + 54 * ((seat - p) % 4) + KIND_OF[c]] += 0.5
        return o

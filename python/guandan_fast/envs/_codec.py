"""PROVISIONAL bridge to the learning interface (issue 7), until branch `learn` lands:
actions are indices into the compact legal list, the observation a small numpy encoding.
Replaced by gf.actions / Game.legal_action_mask / play_action / observation tensors."""

from __future__ import annotations

import numpy as np

from ..cards import KIND_OF
from ..moves import IllegalMoveError

_PHASES = ("tribute", "back", "play", "over")


class Codec:
    num_actions = 512

    def __init__(self, encoder="default"):
        if encoder not in ("default",):
            raise ValueError(f"encoder must be 'default', got {encoder!r}")
        self.encoder = encoder
        self.obs_size = 54 + 54 + 4 + 13 + 4 + 4
        self.info_size = self.obs_size + 54 * 4

    def mask(self, game):
        m = np.zeros(self.num_actions, bool)
        m[:game.num_legal(compact=True)] = True
        return m

    def play(self, game, a):
        n = game.num_legal(compact=True)
        if not 0 <= a < n:
            raise IllegalMoveError(f"action {a} is not legal now")
        game.play_index(a, compact=True)

    def action_name(self, game, a):
        ms = game.legal_moves(compact=True)
        return str(ms[a]) if 0 <= a < len(ms) else f"action {a}"

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

"""The bridge to the learning interface (docs/learning.md): the fixed action space
(``guandan_fast.actions``) and the observation encoders (``guandan_fast.observe``), with the
bounds of each tensor slot for the frameworks' ``Box`` spaces.

>>> c = Spaces("default")
>>> c.num_actions, c.obs_size, Spaces("danzero").obs_size, Spaces("info").obs_size
(501, 536, 513, 1480)
>>> float(c.high[c.layout["cards_left"][0]]), float(Spaces("danzero").low[120])
(28.0, -1.0)
"""

from __future__ import annotations

import numpy as np

from .. import actions, observe

#: Encoder names, as ``VecEnv``'s ``encoder``: the observation tensor, the information-state
#: tensor (observation + the hand's last moves), DanZero's 513-float state.
ENCODERS = ("default", "info", "danzero")

# Slots holding card counts (0..2); cards_left holds 0..28 (a receiver may hold 28 after a
# tribute), passes 0..3; every other slot of the project's layouts is a 0/1 flag.
_COUNT_SLICES = {"hand", "played", "top_cards", "history", "exch_given", "exch_received",
                 "unseen", "last_move", "partner_last_move", "played_next", "played_partner",
                 "played_previous"}
_HIGH = {"cards_left": 28.0, "passes": 3.0}
# DanZero marks "no move yet" with a row of -1.
_LOW = {"last_move": -1.0, "partner_last_move": -1.0}


class Spaces:
    """The action and observation spaces of one encoder (``ENCODERS``): bounds, masks, the
    seat's tensor, playing an action id."""

    num_actions = actions.N_ACTIONS

    def __init__(self, encoder="default"):
        if encoder not in ENCODERS:
            raise ValueError(f"encoder must be one of {', '.join(map(repr, ENCODERS))}, "
                             f"got {encoder!r}")
        self.encoder = encoder
        if encoder == "default":
            self.layout, self._obs = observe.OBS_LAYOUT, observe.observation_tensor
        elif encoder == "info":
            self.layout, self._obs = observe.INFO_LAYOUT, observe.information_state_tensor
        else:
            self.layout, self._obs = observe.DZ_LAYOUT, observe.danzero_state
        self.obs_size = max(o + n for o, n in self.layout.values())
        self.info_size = observe.INFO_SIZE
        self.low = np.zeros(self.obs_size, np.float32)
        self.high = np.ones(self.obs_size, np.float32)
        for name, (o, n) in self.layout.items():
            self.low[o:o + n] = _LOW.get(name, 0.0)
            self.high[o:o + n] = _HIGH.get(name, 2.0 if name in _COUNT_SLICES else 1.0)

    def observation_space(self):
        import gymnasium
        return gymnasium.spaces.Box(self.low, self.high, (self.obs_size,), np.float32)

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
        """Seat ``p``'s observation with this encoder, a new ``float32`` array."""
        return self._obs(game, p)

"""The learned agent: a weights file playing a compiled ``Game`` (numpy only, no PyTorch).

``dmc:PATH`` (an agent spec, ``guandan_fast.agents``) plays the weights file at ``PATH``;
plain ``dmc`` plays the weights shipped in the package (``SHIPPED``), and is refused with
one clear line when this package ships none. At a decision the agent encodes the seat's
view as the trainer's actors do (``observe.danzero_state``), lists the canonical moves
(``actions.canonical_moves``: the candidates of ``VecEnv(action_mode='candidates')``), scores
them in one batch and plays the best.

>>> from guandan_fast import Game
>>> from guandan_fast.learn.qnet import QNet
>>> g = Game(seed=2)
>>> move(g, QNet.initial((8,), seed=0)) in g.legal_moves()
True
"""

from __future__ import annotations

import os
import threading

import numpy as np

from .qnet import QNet, WeightsError, load

__all__ = ["SHIPPED", "move", "load_spec", "shipped_path"]

#: The weights file shipped in the package (plain ``dmc``), relative to this module.
SHIPPED = os.path.join("weights", "dmc.npz")

_cache: dict = {}
_lock = threading.Lock()


def shipped_path() -> str:
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), SHIPPED)


def load_spec(path: str | None) -> QNet:
    """The network of ``dmc:PATH`` (``path``) or of plain ``dmc`` (``None``), loaded once per
    file (and again when the file changes); ``WeightsError`` for a bad or missing file."""
    if path is None:
        name = shipped_path()
        if not os.path.isfile(name):
            raise WeightsError("this package ships no trained 'dmc' weights; train some "
                               "(guandan-fast train, docs/training.md) and play them as "
                               "dmc:PATH")
    else:
        name = os.path.abspath(path)
    try:
        st = os.stat(name)
        key = (name, st.st_mtime_ns, st.st_size)
    except OSError:
        key = None
    with _lock:
        net = _cache.get(key) if key else None
        if net is None:
            net = load(path if path is not None else name)
            if key:
                _cache[key] = net
    return net


def move(game, net: QNet):
    """The move ``net`` makes for the current player of ``game`` (the game is unchanged)."""
    from ..actions import canonical_move, canonical_moves
    from ..observe import danzero_actions, danzero_state

    p = game.current_player
    ids, words = canonical_moves(game)
    state = danzero_state(game, p)
    cards = danzero_actions(words)
    best = net.choose(state[None, :], cards, ids, np.array([0, len(ids)]))[0]
    return canonical_move(game, int(ids[best]))

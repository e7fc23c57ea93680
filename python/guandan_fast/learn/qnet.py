"""The DMC Q-network in numpy: the exported weights file and inference without PyTorch.

``Q(state, action)`` scores each candidate move of a decision. The state is DanZero's
513-float encoding of the seat's view (``observe.danzero_state``, ``VecEnv(encoder='danzero')``),
the action its 54 card counts in DanZero's card order (``cand_cards``) and its abstract action
id (``cand_ids``: the cards alone do not tell a full house of 8s from one of jacks). The first
layer is split in three so that the state's share is computed once per decision, not once
per candidate::

    h1 = relu(state @ W_state + cards @ W_cards + W_id[id] + b1)
    h_k = relu(h_{k-1} @ W_k + b_k)            (k = 2 .. depth)
    Q = h_depth @ w_out + b_out

The weights file is a numpy ``.npz`` (a few hundred KB to a few MB) with a ``format`` tag, a
version, the sizes it was trained for and the layers; ``load`` refuses anything else with one
line naming the file and what is wrong.

>>> import numpy as np
>>> net = QNet.initial((32, 16), seed=0)
>>> state = np.zeros((2, STATE_SIZE), np.float32)
>>> cards = np.zeros((5, ACTION_SIZE), np.float32)
>>> ids, offsets = np.array([0, 3, 7, 1, 2]), np.array([0, 3, 5])
>>> net.q(state, cards, ids, offsets).shape
(5,)
>>> choice = net.choose(state, cards, ids, offsets)   # an index into each decision's list
>>> choice.shape, bool(((0 <= choice) & (choice < [3, 2])).all())
((2,), True)
"""

from __future__ import annotations

import os

import numpy as np

from ..actions import N_ACTIONS
from ..observe import DZ_ACTION_SIZE, DZ_STATE_SIZE

__all__ = ["QNet", "WeightsError", "load", "STATE_SIZE", "ACTION_SIZE", "FORMAT", "VERSION",
           "segment_argmax"]

STATE_SIZE = DZ_STATE_SIZE      # the encoder's state row (DanZero's 513 floats)
ACTION_SIZE = DZ_ACTION_SIZE    # a candidate's card counts (54, DanZero's card order)
FORMAT = "guandan-fast-dmc"     # the tag a weights file carries
VERSION = 1                     # bumped when the layout of the file changes


class WeightsError(ValueError):
    """A weights file that is missing, unreadable, or made for other sizes."""


def segment_argmax(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The index (within its segment) of the first largest value of each CSR segment
    ``values[offsets[i]:offsets[i+1]]`` (every segment non-empty).

    >>> segment_argmax(np.array([1., 3., 3., 0., 5.]), np.array([0, 3, 5]))
    array([1, 1])
    """
    starts = offsets[:-1]
    counts = np.diff(offsets)
    best = np.maximum.reduceat(values, starts)
    hits = np.flatnonzero(values == np.repeat(best, counts))
    return hits[np.searchsorted(hits, starts)] - starts


class QNet:
    """The Q-network's weights as float32 arrays (``layers``: ``(W, b)`` of the hidden layers
    after the first, then the output's) and its batched forward pass."""

    def __init__(self, w_state, w_cards, w_id, b1, layers) -> None:
        self.w_state = np.ascontiguousarray(w_state, np.float32)
        self.w_cards = np.ascontiguousarray(w_cards, np.float32)
        self.w_id = np.ascontiguousarray(w_id, np.float32)
        self.b1 = np.ascontiguousarray(b1, np.float32)
        self.layers = [(np.ascontiguousarray(w, np.float32), np.ascontiguousarray(b, np.float32))
                       for w, b in layers]

    @classmethod
    def initial(cls, hidden, seed: int = 0) -> "QNet":
        """Small random weights (uniform, PyTorch's default scale) for hidden sizes ``hidden``."""
        rng = np.random.default_rng(seed)
        fan_in = STATE_SIZE + ACTION_SIZE + N_ACTIONS

        def uni(n_in, *shape):
            bound = 1 / np.sqrt(n_in)
            return rng.uniform(-bound, bound, shape).astype(np.float32)

        h = list(hidden)
        layers = [(uni(a, a, b), uni(a, b)) for a, b in zip(h, h[1:] + [1])]
        return cls(uni(fan_in, STATE_SIZE, h[0]), uni(fan_in, ACTION_SIZE, h[0]),
                   uni(fan_in, N_ACTIONS, h[0]), uni(fan_in, h[0]), layers)

    @property
    def hidden(self) -> tuple:
        return (self.b1.shape[0],) + tuple(b.shape[0] for _, b in self.layers[:-1])

    def q(self, state, cards, ids, offsets) -> np.ndarray:
        """Q of every candidate: ``state float32[B, 513]`` (one row per decision),
        ``cards [C, 54]`` and ``ids int[C]`` (the candidates, decision by decision),
        ``offsets int[B+1]`` (decision ``i``'s candidates are ``offsets[i]:offsets[i+1]``)."""
        hs = np.asarray(state, np.float32) @ self.w_state
        counts = np.diff(offsets)
        h = np.asarray(cards, np.float32) @ self.w_cards
        h += self.w_id[ids]
        h += np.repeat(hs + self.b1, counts, axis=0)
        np.maximum(h, 0, out=h)
        for w, b in self.layers[:-1]:
            h = h @ w
            h += b
            np.maximum(h, 0, out=h)
        w, b = self.layers[-1]
        return (h @ w + b)[:, 0]

    def choose(self, state, cards, ids, offsets) -> np.ndarray:
        """The greedy choice of each decision: the index of its best candidate (the first of
        equals) within its list."""
        return segment_argmax(self.q(state, cards, ids, offsets), np.asarray(offsets))

    def arrays(self) -> dict:
        """The weights by name, as ``save`` writes them."""
        out = {"w_state": self.w_state, "w_cards": self.w_cards, "w_id": self.w_id,
               "b1": self.b1}
        for k, (w, b) in enumerate(self.layers):
            out[f"w{k + 2}"], out[f"b{k + 2}"] = w, b
        return out

    def save(self, path) -> None:
        """Write the weights file (``.npz``, compressed) to ``path``, atomically."""
        path = os.fspath(path)
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            np.savez_compressed(f, format=np.array(FORMAT), version=np.array(VERSION),
                                sizes=np.array([STATE_SIZE, ACTION_SIZE, N_ACTIONS]),
                                **self.arrays())
        os.replace(tmp, path)

    def __eq__(self, other) -> bool:
        if not isinstance(other, QNet):
            return NotImplemented
        a, b = self.arrays(), other.arrays()
        return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def load(path) -> QNet:
    """The ``QNet`` of a weights file; ``WeightsError`` (one line, naming the file) for a file
    that is missing, not such a file, or made for other sizes.

    >>> load("no-such-file.npz")
    Traceback (most recent call last):
    ...
    guandan_fast.learn.qnet.WeightsError: no-such-file.npz: no such file
    """
    name = os.fspath(path)
    if not os.path.isfile(name):
        raise WeightsError(f"{name}: no such file")
    try:
        with np.load(name, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except Exception:
        raise WeightsError(f"{name}: not a DMC weights file (not a numpy .npz archive)") \
            from None
    if data.get("format") is None or str(data["format"]) != FORMAT:
        raise WeightsError(f"{name}: not a DMC weights file (no '{FORMAT}' tag)")
    if int(data["version"]) != VERSION:
        raise WeightsError(f"{name}: weights file version {int(data['version'])}, this "
                           f"package reads version {VERSION}")
    want = [STATE_SIZE, ACTION_SIZE, N_ACTIONS]
    if data["sizes"].tolist() != want:
        raise WeightsError(f"{name}: made for state/action/id sizes "
                           f"{data['sizes'].tolist()}, this package has {want}")
    try:
        depth = 2
        layers = []
        while f"w{depth}" in data:
            layers.append((data[f"w{depth}"], data[f"b{depth}"]))
            depth += 1
        net = QNet(data["w_state"], data["w_cards"], data["w_id"], data["b1"], layers)
    except KeyError as exc:
        raise WeightsError(f"{name}: weights file lacks {exc.args[0]!r}") from None
    _check_shapes(net, name)
    return net


def _check_shapes(net: QNet, name: str) -> None:
    h = net.b1.shape
    ok = (len(h) == 1 and net.w_state.shape == (STATE_SIZE,) + h
          and net.w_cards.shape == (ACTION_SIZE,) + h and net.w_id.shape == (N_ACTIONS,) + h
          and len(net.layers) >= 1)
    width = h[0] if ok else 0
    for w, b in net.layers:
        ok = ok and w.ndim == 2 and w.shape[0] == width and b.shape == (w.shape[1],)
        width = w.shape[1] if w.ndim == 2 else 0
    if not ok or width != 1:
        raise WeightsError(f"{name}: layer shapes do not chain "
                           f"({', '.join(f'{k}{v.shape}' for k, v in net.arrays().items())})")

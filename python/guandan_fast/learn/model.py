"""The DMC Q-network in PyTorch (the learner's copy; the ``train`` extra).

The same function as ``qnet.QNet`` (its module doc gives the layers), trained on one sample
per decision: the decision's state, the chosen candidate's cards and id, and its Monte-Carlo
target. ``from_qnet`` / ``to_qnet`` move the weights between the two without changing a bit,
so a run starts from ``QNet.initial`` (seeded numpy, the same whatever torch's own generator)
and the actors play the learner's weights exactly.

>>> import torch
>>> from guandan_fast.learn.qnet import QNet
>>> net = QNet.initial((16, 8), seed=0)
>>> model = QModel.from_qnet(net)
>>> model.to_qnet() == net
True
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ..actions import N_ACTIONS
from .qnet import ACTION_SIZE, STATE_SIZE, QNet

__all__ = ["QModel"]


class QModel(nn.Module):
    """``Q(state, cards, id)`` for a batch of (decision, chosen candidate) samples."""

    def __init__(self, hidden) -> None:
        super().__init__()
        h = list(hidden)
        self.state_in = nn.Linear(STATE_SIZE, h[0])
        self.cards_in = nn.Linear(ACTION_SIZE, h[0], bias=False)
        self.id_in = nn.Embedding(N_ACTIONS, h[0])
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(h, h[1:] + [1]))

    def forward(self, state, cards, ids, owner=None):
        """Q of each (state, candidate) pair; with ``owner`` (the decision of each candidate,
        an index into ``state``) a decision's state row is computed once for all of its
        candidates, as ``QNet.q`` does."""
        s = self.state_in(state)
        if owner is not None:
            s = s[owner]
        h = torch.relu(s + self.cards_in(cards) + self.id_in(ids))
        for layer in self.layers[:-1]:
            h = torch.relu(layer(h))
        return self.layers[-1](h)[:, 0]

    @classmethod
    def from_qnet(cls, net: QNet) -> "QModel":
        model = cls(net.hidden)
        with torch.no_grad():
            model.state_in.weight.copy_(torch.from_numpy(net.w_state.T.copy()))
            model.state_in.bias.copy_(torch.from_numpy(net.b1))
            model.cards_in.weight.copy_(torch.from_numpy(net.w_cards.T.copy()))
            model.id_in.weight.copy_(torch.from_numpy(net.w_id))
            for layer, (w, b) in zip(model.layers, net.layers):
                layer.weight.copy_(torch.from_numpy(w.T.copy()))
                layer.bias.copy_(torch.from_numpy(b))
        return model

    def to_qnet(self) -> QNet:
        def arr(t):
            return t.detach().cpu().numpy().astype(np.float32)

        return QNet(arr(self.state_in.weight).T, arr(self.cards_in.weight).T,
                    arr(self.id_in.weight), arr(self.state_in.bias),
                    [(arr(layer.weight).T, arr(layer.bias)) for layer in self.layers])

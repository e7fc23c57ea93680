"""The decision rule of the test clients, as a built-in Python agent: the first legal move
that is not a pass (the platform clients pick the first such action of ``actionList``,
which lists the moves in the engine's order, only the pass moved to the front), so the
agent and the clients make the same moves on the same deals.

>>> from guandan_fast.game import Game
>>> g = Game(seed=1)
>>> agent(g.observation(g.current_player), g.legal_moves()) == g.legal_moves()[0]
True
"""

from guandan_fast.moves import PASS

#: Calls of ``agent`` in this process (the overhead benchmark counts decisions with it).
calls = [0]


def agent(observation, legal_moves):
    calls[0] += 1
    for m in legal_moves:
        if m != PASS:
            return m
    return PASS

"""Agents deciding one move: for a compiled ``Game`` (the server's bot seats) and for a
platform ``act`` message (the client); any agent of ``guandan_fast.agents`` in both.

At a platform table the built-in bots (random, random_compact, greedy) decide from the act
message alone, through ``guandan_fast.bots.choose`` with exactly what the bot reads inside
``simulate`` (own hand, level, top play, public counts). Every other agent plays on the game
its seat's view makes from the messages it received (``net.view.SeatView``). In the exchange
(tribute and return), which the view does not rebuild, the expert and the search agents pay and
return as the expert does (greedy's exchange for search agents with greedy or random
rollouts); Python agents and policies as greedy does (docs/server.md).

>>> from guandan_fast import Game
>>> g = Game(seed=3)
>>> m = bot_move(g, 'greedy'); m in g.legal_moves()
True
>>> bot_move(g, 'smart')                  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unknown agent 'smart'; known agents: random, random_compact, greedy, expert, ...; ...
"""

from __future__ import annotations

from ..agents import AgentError, parse_agent, parse_agents
from ..bots import choose
from ..cards import parse_level, sort_cards
from ..moves import PASS, Move

__all__ = ["bot_move", "check_platform_agent", "choose_index", "mix_seed"]

_MASK = (1 << 64) - 1
#: The agents that decide from an act message alone (the others play on a SeatView's game).
_MESSAGE_BOTS = ("random", "random_compact", "greedy")


def mix_seed(*parts: int) -> int:
    """A 64-bit seed from integers (SplitMix64 finaliser over each part in turn).

    >>> mix_seed(1, 2) == mix_seed(1, 2) != mix_seed(2, 1)
    True
    """
    z = 0x9E3779B97F4A7C15
    for p in parts:
        z = (z ^ (p & _MASK)) * 0xBF58476D1CE4E5B9 & _MASK
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB & _MASK
        z ^= z >> 31
    return z


def bot_move(game, agent, seed: int = 0) -> Move:
    """The move ``agent`` (any spec of ``guandan_fast.agents``) makes for the current player
    of a compiled ``Game`` (``seed`` seeds a random or search agent's draw). The game is not
    changed."""
    return parse_agent(agent).move(game, seed)


def check_platform_agent(agent) -> str:
    """The name of an agent that can answer platform ``act`` messages (``connect``); a clear
    ValueError for any other."""
    return parse_agents([agent], where="platform", place="connect")[0].name


def _action_key(action) -> tuple:
    t, r, cards = action
    if t == "PASS":
        return ("PASS",)
    return (t, r, sort_cards(cards))


def _to_move(action) -> Move:
    if action[0] == "PASS":
        return PASS
    return Move(action[0], action[1], action[2])


def _exchange_bot(a) -> str:
    """The compiled bot that pays and returns for agent ``a`` at a platform table."""
    from ..expert import STYLE_NAMES  # compiled

    if a.kind in STYLE_NAMES:
        return a.kind           # the expert and its styles pay and return their own way
    if a.search_spec is not None and a.search_spec[1].get("rollout") in STYLE_NAMES:
        return a.search_spec[1]["rollout"]
    return "greedy"


def choose_index(agent, msg: dict, seat: int, seed: int = 0, view=None) -> int:
    """The ``actIndex`` ``agent`` (any spec) at ``seat`` (the ``myPos`` of the hand's
    ``beginning`` message) answers to a platform ``act`` message. The built-in bots need only
    the message; the other agents, in the play stage, the seat's ``SeatView`` (``view``,
    fed every message of the connection), else ValueError.

    Counts are read as the wire shows them (``publicInfo`` ``rest``, all public). In the
    play phase the compact agents pick among their own generated moves and the pick is
    looked up in ``actionList``; should it be missing (a server with other rules switches),
    they pick among ``actionList`` itself.

    >>> msg = {'handCards': ['S3', 'S3', 'D5'], 'curRank': '2', 'stage': 'play',
    ...        'greaterPos': -1, 'greaterAction': None,
    ...        'publicInfo': [{'rest': 3, 'playArea': None}] + [{'rest': 27, 'playArea': None}] * 3,
    ...        'actionList': [['Single', '3', ['S3']], ['Single', '5', ['D5']],
    ...                       ['Pair', '3', ['S3', 'S3']]]}
    >>> choose_index('greedy', msg, seat=0)
    2
    """
    actions = msg["actionList"]
    if len(actions) == 1:
        return 0
    a = parse_agents([agent], where="platform", place="connect")[0]
    stage = msg["stage"]
    if a.kind not in _MESSAGE_BOTS:
        if stage != "play":
            agent = _exchange_bot(a)
        else:
            if view is None:
                raise ValueError(f"agent {a.name!r} plays on the seat's view of the table: "
                                 f"pass view=SeatView() fed every message")
            game = view.game(msg)
            try:
                move = a.move(game, seed)
            except AgentError as exc:
                raise AgentError(f"at a platform table (the view's game): {exc}") from \
                    exc.__cause__
            key = _action_key(move.to_platform())
            for i, act in enumerate(actions):
                if _action_key(act) == key:
                    return i
            raise ValueError(f"agent {a.name!r} chose {move}, which is not in the actionList")
    else:
        agent = a.kind
    hand = msg["handCards"]
    level = parse_level(msg["curRank"])
    counts = [min(27, e["rest"]) for e in msg["publicInfo"]]
    top = msg.get("greaterAction")
    top_pos = msg.get("greaterPos", -1)
    kw = dict(level=level, seat=seat, counts=counts, seed=seed, disclosure=1000)
    if stage == "play":
        top_move = None if top is None or top_pos == -1 else _to_move(top)
        kw.update(top=top_move, top_seat=None if top_move is None else top_pos)
        if agent != "random":
            picked = choose(agent, hand, **kw)
            key = _action_key(picked.to_platform())
            for i, a in enumerate(actions):
                if _action_key(a) == key:
                    return i
    else:
        kw["phase"] = stage
    moves = [_to_move(a) for a in actions]
    picked = choose(agent, hand, moves=moves, **kw)
    return moves.index(picked)

"""A seat's view of a platform table, built from the messages it receives (``connect``).

The platform tells a client its own hand, every play (``notify play``), the exchange results,
the levels and every seat's card count (``publicInfo`` ``rest``) — nothing else. ``SeatView``
keeps that and, when the seat must play, makes a compiled ``Game`` that agrees with all of it:
the seat's own hand as dealt to it, every play of the hand replayed, and the cards the seat
cannot see dealt to the other seats in a fixed order (known exchange cards to their
receivers), each with its count. Any agent can then decide on that game: the expert and the
search agents read the other hands only through their union and the counts (docs/expert.md,
docs/search.md), which the view has exactly, so they decide as they would at a table of our
own server; a Python agent gets ``Game.observation(seat)``, which shows only that too.

>>> from guandan_fast.cards import FULL_DECK
>>> v = SeatView()
>>> v.observe({'type': 'notify', 'stage': 'beginning', 'myPos': 1,
...            'handCards': list(FULL_DECK[27:54])})
>>> act = {'type': 'act', 'stage': 'play', 'handCards': list(FULL_DECK[27:54]),
...        'curRank': '2', 'selfRank': '2', 'oppoRank': '2', 'curPos': -1, 'curAction': None,
...        'greaterPos': -1, 'greaterAction': None,
...        'publicInfo': [{'rest': 27, 'playArea': None}] * 4, 'actionList': []}
>>> g = v.game(act)
>>> g.current_player, sorted(g.hand(1)) == sorted(FULL_DECK[27:54])
(1, True)
"""

from __future__ import annotations

from collections import Counter

from ..cards import FULL_DECK, parse_level
from ..game import Game
from ..moves import Move
from ..rules import Rules

__all__ = ["SeatView"]


class SeatView:
    """What one seat has seen at a platform table (the current hand's plays and exchange
    results); ``game(act)`` makes the ``Game`` of a ``play`` act message (module doc).
    ``rules``: the table's rules (default ``Rules.platform()``, the platform's)."""

    def __init__(self, rules: Rules | None = None) -> None:
        self.rules = Rules.platform() if rules is None else rules
        self.seat: int | None = None
        self.plays: list = []          # (seat, platform action) of the current hand, in order
        self.received: list = []       # (receiver, card) of the current hand's exchange

    def observe(self, msg: dict) -> None:
        """Take note of a message (a checked one: protocol.check_message)."""
        if msg.get("type") != "notify":
            return
        stage = msg.get("stage")
        if stage == "beginning":
            self.seat = msg["myPos"]
            self.plays = []
            self.received = []
        elif stage == "play":
            self.plays.append((msg["curPos"], msg["curAction"]))
        elif stage in ("tribute", "back"):
            self.received.extend((to, card) for _, to, card in msg["result"])

    def game(self, act: dict) -> Game:
        """A ``Game`` in the play phase, the seat to move being this seat, that agrees with all
        the seat has seen (module doc). ``ValueError`` when the messages do not fit together
        (a message missed, other rules at the server)."""
        if self.seat is None:
            raise ValueError("no beginning message seen: the seat is unknown")
        if act.get("stage") != "play":
            raise ValueError(f"a view makes games of play decisions, not {act.get('stage')!r}")
        me = self.seat
        level = parse_level(act["curRank"])
        levels = [0, 0]
        levels[me % 2] = parse_level(act["selfRank"])
        levels[1 - me % 2] = parse_level(act["oppoRank"])
        # The team whose level is played (both at that level: either gives the same hand).
        declarer = me % 2 if levels[me % 2] == level else 1 - me % 2
        if levels[declarer] != level:
            raise ValueError(f"curRank {act['curRank']!r} is neither team's level")
        rest = [e["rest"] for e in act["publicInfo"]]
        moves = [(seat, Move.from_platform(a, level)) for seat, a in self.plays]
        played = [Counter() for _ in range(4)]
        for seat, m in moves:
            played[seat].update(m.cards)
        mine = Counter(act["handCards"])
        if sum(mine.values()) != rest[me]:
            raise ValueError(f"handCards holds {sum(mine.values())} cards, publicInfo says "
                             f"{rest[me]}")
        unseen = Counter(FULL_DECK) - mine - sum(played, Counter())
        others = [q for q in range(4) if q != me]
        if sum(unseen.values()) != sum(rest[q] for q in others):
            raise ValueError(f"{sum(unseen.values())} cards unseen, but the other seats hold "
                             f"{sum(rest[q] for q in others)}")
        # Known exchange cards first to their receivers (while they may still hold them),
        # then the rest in deck order.
        hands = [Counter() for _ in range(4)]
        hands[me] = mine
        for to, card in self.received:
            if (to != me and unseen[card] > 0 and sum(hands[to].values()) < rest[to]
                    and hands[to][card] + played[to][card] < 2):
                hands[to][card] += 1
                unseen[card] -= 1
        # FULL_DECK lists each code twice (two decks): walk the codes once
        pool = [c for c in dict.fromkeys(FULL_DECK) for _ in range(unseen[c])]
        i = 0
        for q in others:
            k = rest[q] - sum(hands[q].values())
            hands[q].update(pool[i:i + k])
            i += k
        start = [sorted((hands[q] + played[q]).elements(), key=FULL_DECK.index)
                 for q in range(4)]
        leader = moves[0][0] if moves else me
        g = Game.setup(start, levels=tuple(levels), declarer=declarer, leader=leader,
                       rules=self.rules)
        for seat, m in moves:
            g.play(m, seat=seat)
        if g.current_player != me:
            raise ValueError(f"after the hand's {len(moves)} plays seat {g.current_player} "
                             f"is to move, not this seat ({me})")
        return g

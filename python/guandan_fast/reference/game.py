"""A whole Guandan match as a state machine (docs/rules.md §7-10), the reference ``Game``.

The API is the contract of docs/design.md ("The ``Game`` API"); the compiled ``Game`` must
behave identically. Plain Python, written for clarity: moves are validated with the reference
``classify``/``beats``, and ``legal_moves`` of the play phase comes from the reference
generator.

A match from a seed is reproducible:

>>> g = Game(seed=0)
>>> g.phase, g.level, g.levels, g.hand_number, g.current_player
('play', 2, (2, 2), 0, 0)
>>> [len(g.hand(p)) for p in range(4)]
[27, 27, 27, 27]
>>> Game(seed=0) == g
True

A constructed deal (``Game.setup``): seat 0 leads its last card and goes out; the others
pass, so its partner (seat 2) takes the lead (接风).

>>> from guandan_fast.cards import FULL_DECK
>>> from guandan_fast.moves import PASS
>>> hands = [['D3'], ['S4'], ['S5'], list(FULL_DECK)]
>>> for h in hands[:3]:
...     hands[3].remove(h[0])
>>> g = Game.setup(hands, leader=0)
>>> g.play(Move('Single', '3', ['D3']))
>>> g.finish_order, g.current_player
((0,), 1)
>>> for seat in (1, 2, 3):
...     g.play(PASS, seat=seat)
>>> g.current_player, g.observation(1)['top']
(2, None)
"""

from __future__ import annotations

import copy
import secrets
from collections import Counter
from typing import Iterable, Sequence

from ..cards import (CARD_CODES, KIND_OF, is_wild, natural_value, single_value,
                     sort_cards)
from ..moves import IllegalMoveError, Move
from ..rules import Rules
from ..validate import check_rules, check_seat, check_setup  # the form of the input, shared
from .rng import SplitMix64, draw_first_leader, shuffled_deck

__all__ = ["Game"]

_PHASES = ("tribute", "back", "play", "over")


def _next(p: int) -> int:
    return (p + 1) % 4


def _partner(p: int) -> int:
    return (p + 2) % 4


def _prev(p: int) -> int:
    return (p + 3) % 4


class Game:
    """A Guandan match: hands, tricks, finishing places, levels, tribute (docs/design.md)."""

    __hash__ = None  # mutable; compared by value

    # -- construction ------------------------------------------------------------------------
    def __init__(self, seed: int | None = None, rules: Rules = Rules()) -> None:
        check_rules(rules)
        if seed is None:
            seed = secrets.randbits(64)
        gen = SplitMix64(seed)  # TypeError for a non-int seed
        self._init_match(seed, rules, gen)
        deck = shuffled_deck(gen)
        hands = [[CARD_CODES[k] for k in deck[27 * p: 27 * p + 27]] for p in range(4)]
        leader = self._first_leader(hands, deck)
        self._start_hand(hands, previous_finish=None, leader=leader)

    @classmethod
    def setup(cls, hands: Sequence[Iterable[str] | str], *, levels=(2, 2), declarer=None,
              previous_finish=None, leader=None, seed: int = 0,
              rules: Rules = Rules()) -> "Game":
        """A match starting from a constructed hand (docs/design.md).

        ``hands``: four card lists (or strings) making exactly the 108-card deck (a hand may
        hold any number of cards >= 1). ``declarer``: the team whose level is played, None for
        a first hand (``levels`` must then be (2, 2)); with ``previous_finish`` and no
        ``declarer``, the declarer is the team of its first finisher. ``previous_finish``:
        the previous hand's finishing order (2 seats for a double-down, or 3-4 seats; the
        4th is inferred); the hand starts with that order's tribute exchange. Without it,
        ``leader`` leads (None: drawn as for a first hand, from the generator at ``seed``,
        over the hands concatenated in seat order).

        >>> Game.setup([['SB']] * 4)
        Traceback (most recent call last):
        ...
        ValueError: the hands must make exactly the 108-card deck: 'SB' appears 4 times (expected 2); 106 cards are missing
        """
        check_rules(rules)
        parsed, lv, declarer, prev, leader = check_setup(hands, levels, declarer,
                                                         previous_finish, leader)
        if seed is None:
            seed = secrets.randbits(64)
        gen = SplitMix64(seed)
        self = cls.__new__(cls)
        self._init_match(seed, rules, gen)
        self._levels = lv
        self._declarer = declarer
        if prev is None and leader is None:
            deck = [KIND_OF[c] for h in parsed for c in h]
            leader = self._first_leader(parsed, deck)
        self._start_hand(parsed, previous_finish=prev, leader=leader)
        return self

    def _init_match(self, seed, rules: Rules, gen: SplitMix64) -> None:
        self.seed = seed
        self.rules = rules
        self._gen = gen
        self._levels = [2, 2]
        self._declarer: int | None = None
        self._hand_number = 0
        self._results: list[dict] = []
        self._winner: int | None = None
        self._ace_failures = [0, 0]

    def _first_leader(self, hands: list[list[str]], deck: list[int]) -> int:
        """The first-hand leader: the draw of docs/design.md, or ``rules.first_leader``'s
        holder (then no number is drawn)."""
        fl = self.rules.first_leader
        if fl != "random":
            return min(p for p in range(4) if fl in hands[p])
        if all(len(h) == 27 for h in hands):
            return draw_first_leader(self._gen, deck)
        # Uneven constructed hands: the seat whose span of the concatenated deck holds i.
        bounds = []
        end = 0
        for h in hands:
            end += len(h)
            bounds.append(end)
        while True:
            i = self._gen.below(108)
            k = deck[i]
            if k < 52 and k != KIND_OF["H2"]:
                return next(p for p in range(4) if i < bounds[p])

    # -- one hand ----------------------------------------------------------------------------
    def _start_hand(self, hands, previous_finish, leader) -> None:
        self._hands = [Counter(h) for h in hands]
        self._finish: list[int] = []
        self._out_moves: dict[int, Move] = {}
        self._history: list[tuple[int, Move]] = []
        self._plays: list[tuple[int, Move]] = []
        self._top: tuple[int, Move] | None = None
        self._passes = 0
        # Tribute state of this hand.
        self._anti = False
        self._payers: list[int] = []        # in paying order
        self._paid: list[tuple[int, str]] = []  # (payer, card) as paid
        self._receiver_of: dict[int, int] = {}  # payer -> receiver, once every tribute is in
        self._choosing = False              # winners_choose: 1st still to pick his card
        self._receivers: list[int] = []     # in returning order
        self._backs: list[tuple[int, int, str]] = []  # (receiver, payer, card)
        self._first = None                  # the previous hand's 1st finisher
        self._leader_after = None
        if previous_finish is None:
            self._phase = "play"
            self._turn = leader
            return
        self._setup_tribute(previous_finish)

    def _setup_tribute(self, order: list[int]) -> None:
        first = order[0]
        self._first = first
        if len(order) == 2:  # double-down: both losers pay, from the seat after 1st
            payers = [_next(first), _prev(first)]
        elif order[3] == _partner(first):
            mode = self.rules.tribute_on_first_fourth
            payers = {"4th_pays": [order[3]], "3rd_pays": [order[2]], "none": []}[mode]
        else:
            payers = [order[3]]
        if not payers:
            self._phase, self._turn = "play", first
            return
        if self.rules.anti_tribute and sum(self._hands[p]["HR"] for p in payers) == 2:
            self._anti = True
            self._phase, self._turn = "play", first
            return
        self._payers = payers
        self._phase, self._turn = "tribute", payers[0]

    # -- properties --------------------------------------------------------------------------
    @property
    def current_player(self) -> int | None:
        """Seat to act; None once the match is over."""
        return self._turn

    @property
    def phase(self) -> str:
        """``'tribute'``, ``'back'``, ``'play'`` or ``'over'``."""
        return self._phase

    @property
    def level(self) -> int:
        """Level (2..14) of the hand being played: the declarer's, 2 in a first hand."""
        return 2 if self._declarer is None else self._levels[self._declarer]

    @property
    def levels(self) -> tuple[int, int]:
        """Each team's level."""
        return tuple(self._levels)

    @property
    def declarer(self) -> int | None:
        """Team whose level is played (the previous hand's winner); None in a first hand."""
        return self._declarer

    @property
    def hand_number(self) -> int:
        """0-based number of the hand being played (or the last one, once over)."""
        return self._hand_number

    @property
    def finish_order(self) -> tuple[int, ...]:
        """Seats out so far in this hand, in finishing order."""
        return tuple(self._finish)

    @property
    def is_over(self) -> bool:
        """True once a team has won the match."""
        return self._phase == "over"

    @property
    def winner(self) -> int | None:
        """The team that won the match, or None."""
        return self._winner

    @property
    def history(self) -> list[tuple[int, Move]]:
        """``(seat, Move)`` of this hand so far, tribute and back moves included."""
        return list(self._history)

    @property
    def results(self) -> list[dict]:
        """One dict per finished hand: level, declarer, finish_order, winner, levels after."""
        return [dict(r, finish_order=list(r["finish_order"])) for r in self._results]

    def hand(self, p: int) -> tuple[str, ...]:
        """Seat ``p``'s cards in canonical order."""
        p = check_seat(p)
        return sort_cards(self._hands[p].elements())

    # -- legal moves -------------------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        """The current player's moves (tribute or back cards, or plays and PASS); [] when
        the match is over."""
        if self._phase == "over":
            return []
        p = self._turn
        if self._phase == "tribute":
            if self._choosing:
                return [Move("tribute", "tribute", [c]) for c in self._choice_codes()]
            return [Move("tribute", "tribute", [c]) for c in self._tribute_codes(p)]
        if self._phase == "back":
            return [Move("back", "back", [c]) for c in self._back_codes(p)]
        from .movegen import legal_moves

        last = self._top[1] if self._top is not None else None
        return list(legal_moves(self.hand(p), self.level, last, self.rules))

    def _tribute_codes(self, p: int) -> list[str]:
        """Distinct codes of the payer's highest non-wild cards by single order."""
        lv = self.level
        # A constructed hand may hold nothing but wilds; it then pays one (its highest card).
        cards = [c for c in self._hands[p] if not is_wild(c, lv)] or list(self._hands[p])
        top = max(single_value(c, lv) for c in cards)
        return list(sort_cards(c for c in cards if single_value(c, lv) == top))

    def _choice_codes(self) -> list[str]:
        return list(sort_cards(set(c for _, c in self._paid)))

    def _back_codes(self, r: int) -> list[str]:
        lv = self.level
        hand = self._hands[r]
        rule = self.rules.return_rule
        if rule == "any":
            return list(sort_cards(hand))
        if rule == "any_but_received":
            received = next(c for payer, c in self._paid if self._receiver_of[payer] == r)
            return list(sort_cards(c for c in hand if c != received))
        allowed = [c for c in hand if c not in ("SB", "HR") and 2 <= natural_value(c) <= 10
                   and natural_value(c) != lv]
        if allowed:
            return list(sort_cards(allowed))
        low = min(single_value(c, lv) for c in hand)
        return list(sort_cards(c for c in hand if single_value(c, lv) == low))

    # -- playing -----------------------------------------------------------------------------
    def play(self, move, seat: int | None = None) -> None:
        """Make the current player's move: a ``Move`` (``PASS`` to pass) or a platform list.

        Raises ``TypeError``/``ValueError`` for malformed input and ``IllegalMoveError`` for
        a move not allowed now; the state is then unchanged.
        """
        if isinstance(move, Move):
            m = move
        elif isinstance(move, (list, tuple)):
            m = Move.from_platform(move, self.level)
        else:
            raise TypeError(f"a move is a Move or a platform list [type, rank, cards], "
                            f"not {type(move).__name__}")
        if seat is not None:
            seat = check_seat(seat)
        if self._phase == "over":
            raise IllegalMoveError("the match is over")
        p = self._turn
        if seat is not None and seat != p:
            raise IllegalMoveError(f"seat {seat} cannot act: it is seat {p}'s turn")
        if self._phase == "tribute":
            self._play_tribute(p, m)
        elif self._phase == "back":
            self._play_back(p, m)
        else:
            self._play_card(p, m)

    def _play_tribute(self, p: int, m: Move) -> None:
        if m.type != "tribute":
            raise IllegalMoveError(f"seat {p} must make a tribute move now, not {m}")
        card = m.cards[0]
        if self._choosing:
            choices = self._choice_codes()
            if card not in choices:
                raise IllegalMoveError(f"seat {p} chooses one of the tribute cards "
                                       f"{' '.join(choices)}, not {card}")
            self._history.append((p, m))
            a, b = self._paid
            if a[1] == b[1]:  # same code either way: the clockwise assignment
                self._assign_clockwise()
            else:
                mine, other = (a, b) if a[1] == card else (b, a)
                self._receiver_of = {mine[0]: self._first, other[0]: _partner(self._first)}
            self._choosing = False
            self._deliver()
            return
        choices = self._tribute_codes(p)
        if card not in choices:
            raise IllegalMoveError(f"seat {p} must pay his highest non-wild card: one of "
                                   f"{' '.join(choices)}, not {card}")
        self._hands[p][card] -= 1
        if not self._hands[p][card]:
            del self._hands[p][card]
        self._paid.append((p, card))
        self._history.append((p, m))
        if len(self._paid) < len(self._payers):
            self._turn = self._payers[len(self._paid)]
            return
        first = self._first
        lv = self.level
        if len(self._paid) == 1:
            self._receiver_of = {p: first}
            self._leader_after = p
        else:
            (pa, ca), (pb, cb) = self._paid
            va, vb = single_value(ca, lv), single_value(cb, lv)
            if va != vb:
                hi, lo = (pa, pb) if va > vb else (pb, pa)
                self._receiver_of = {hi: first, lo: _partner(first)}
                self._leader_after = hi
            else:
                self._leader_after = _next(first)
                if self.rules.double_tie == "winners_choose":
                    self._choosing = True
                    self._turn = first
                    return
                self._assign_clockwise()
        self._deliver()

    def _assign_clockwise(self) -> None:
        # Each payer gives to the player before him: the seat after 1st pays 1st.
        self._receiver_of = {payer: _prev(payer) for payer, _ in self._paid}

    def _deliver(self) -> None:
        """Every tribute is in: cards reach their receivers; returns start with 1st."""
        for payer, card in self._paid:
            self._hands[self._receiver_of[payer]][card] += 1
        first = self._first
        self._receivers = sorted(self._receiver_of.values(), key=lambda r: r != first)
        self._phase = "back"
        self._turn = self._receivers[0]

    def _play_back(self, p: int, m: Move) -> None:
        if m.type != "back":
            raise IllegalMoveError(f"seat {p} must return a card (a back move) now, not {m}")
        card = m.cards[0]
        choices = self._back_codes(p)
        if card not in choices:
            raise IllegalMoveError(f"seat {p} may return one of {' '.join(choices)}, "
                                   f"not {card}")
        payer = next(pp for pp, r in self._receiver_of.items() if r == p)
        self._hands[p][card] -= 1
        if not self._hands[p][card]:
            del self._hands[p][card]
        self._hands[payer][card] += 1
        self._backs.append((p, payer, card))
        self._history.append((p, m))
        if len(self._backs) < len(self._receivers):
            self._turn = self._receivers[len(self._backs)]
        else:
            self._phase = "play"
            self._turn = self._leader_after

    def _play_card(self, p: int, m: Move) -> None:
        if m.type in ("tribute", "back"):
            raise IllegalMoveError(f"no {m.type} moves in the play phase ({m})")
        if m.is_pass:
            if self._top is None:
                raise IllegalMoveError(f"seat {p} leads this trick and cannot pass")
            self._history.append((p, m))
            self._plays.append((p, m))
            self._passes += 1
            top_seat = self._top[0]
            in_play = [s for s in range(4) if s not in self._finish]
            needed = len(in_play) - (1 if top_seat in in_play else 0)
            if self._passes == needed:
                # Everyone still in passed: the last player leads, or his partner when he
                # has gone out (接风).
                self._turn = top_seat if top_seat in in_play else _partner(top_seat)
                self._top = None
                self._passes = 0
            else:
                self._turn = self._next_in(p)
            return
        from .combos import beats, classify

        lv = self.level
        if m not in classify(m.cards, lv, self.rules):
            raise ValueError(f"cards {' '.join(m.cards)} do not make {m.type} {m.rank} at "
                             f"level {lv}")
        need = Counter(m.cards)
        hand = self._hands[p]
        lacking = [c for c, n in need.items() if hand[c] < n]
        if lacking:
            raise IllegalMoveError(f"seat {p} does not hold {' '.join(sort_cards(lacking))} "
                                   f"for {m}")
        if self._top is not None and not beats(m, self._top[1], lv, self.rules):
            raise IllegalMoveError(f"{m} does not beat {self._top[1]}")
        for c, n in need.items():
            hand[c] -= n
            if not hand[c]:
                del hand[c]
        self._history.append((p, m))
        self._plays.append((p, m))
        if not hand:
            self._finish.append(p)
            self._out_moves[p] = m
            f = self._finish
            if len(f) == 3 or (len(f) == 2 and f[1] == _partner(f[0])):
                self._end_hand()
                return
        self._top = (p, m)
        self._passes = 0
        self._turn = self._next_in(p)

    def _next_in(self, p: int) -> int:
        q = _next(p)
        while q in self._finish:
            q = _next(q)
        return q

    # -- end of a hand -----------------------------------------------------------------------
    def _end_hand(self) -> None:
        f = self._finish
        order = list(f) if len(f) == 2 else f + [s for s in range(4) if s not in f]
        win = f[0] % 2
        place = order.index(_partner(f[0])) + 1 if _partner(f[0]) in order else 2
        declarer = self._declarer
        played = self.level
        own_ace = declarer is not None and self._levels[declarer] == 14
        match_won = False
        if own_ace and win == declarer:
            match_won = {"partner_2nd_or_3rd": place in (2, 3), "double_only": place == 2,
                         "any_win": True}[self.rules.ace_rule]
        if not match_won:
            if not (own_ace and win == declarer):
                gain = self.rules.upgrade_steps[place - 2]
                self._levels[win] = min(14, self._levels[win] + gain)
            if own_ace:
                self._ace_penalty(declarer)
        self._results.append({"level": played, "declarer": declarer, "finish_order": order,
                              "winner": win, "levels": tuple(self._levels)})
        if match_won:
            self._winner = win
            self._phase = "over"
            self._turn = None
            self._top = None
            return
        self._declarer = win
        self._hand_number += 1
        deck = shuffled_deck(self._gen)
        hands = [[CARD_CODES[k] for k in deck[27 * p: 27 * p + 27]] for p in range(4)]
        self._start_hand(hands, previous_finish=order, leader=None)

    def _ace_penalty(self, team: int) -> None:
        """A hand at ``team``'s own A that did not win it the match (the optional resets)."""
        reset = False
        n = self.rules.ace_fail_reset
        if n is not None:
            self._ace_failures[team] += 1
            reset = self._ace_failures[team] >= n
        if self.rules.ace_reset_on_natural_aces:
            opp_out = [s for s in self._finish if s % 2 != team]
            if opp_out:
                last = self._out_moves[opp_out[0]]
                # "a play of natural aces": every card an ace and none the wild HA
                if all(c in ("SA", "CA", "DA") for c in last.cards):
                    reset = True
        if reset:
            self._levels[team] = 2
            self._ace_failures[team] = 0

    # -- information -------------------------------------------------------------------------
    def observation(self, p: int) -> dict:
        """What seat ``p`` knows (docs/rules.md §10), as the dict of docs/design.md."""
        p = check_seat(p)
        limit = self.rules.disclosure_threshold
        counts = []
        for s in range(4):
            n = sum(self._hands[s].values())
            counts.append(n if s == p or n <= limit else None)
        # Receivers are known once every tribute is in (and, under winners_choose, the 1st
        # has chosen); every card is public once every return is made.
        returned = bool(self._receivers) and len(self._backs) == len(self._receivers)
        tribute = []
        for payer, card in self._paid:
            receiver = self._receiver_of.get(payer)
            seen = returned or p == payer or (receiver is not None and p == receiver)
            tribute.append((payer, receiver, card if seen else None))
        back = [(r, payer, card if returned or p in (r, payer) else None)
                for r, payer, card in self._backs]
        return {
            "seat": p,
            "phase": self._phase,
            "current_player": self._turn,
            "level": self.level,
            "levels": self.levels,
            "declarer": self._declarer,
            "hand_number": self._hand_number,
            "hand": self.hand(p),
            "counts": tuple(counts),
            "finish_order": tuple(self._finish),
            "plays": tuple(self._plays),
            "top": self._top,
            "tribute": tuple(tribute),
            "back": tuple(back),
            "anti_tribute": self._anti,
        }

    # -- value semantics ---------------------------------------------------------------------
    def clone(self) -> "Game":
        """An independent copy (same state, same generator state). Moves and Rules are
        immutable and shared; every container is copied."""
        g = Game.__new__(Game)
        for name, value in self.__dict__.items():
            if isinstance(value, Counter):
                value = Counter(value)
            elif isinstance(value, (list, dict)):
                value = copy.copy(value)
            elif isinstance(value, SplitMix64):
                value = value.clone()
            setattr(g, name, value)
        g._hands = [Counter(h) for h in self._hands]
        g._results = [dict(r, finish_order=list(r["finish_order"])) for r in self._results]
        return g

    def __copy__(self) -> "Game":
        # A shallow copy would share the containers of the state: copies are independent.
        return self.clone()

    def __deepcopy__(self, memo) -> "Game":
        return self.clone()

    def _state(self) -> tuple:
        return (self.seed, self.rules, self._gen.state, tuple(self._levels), self._declarer,
                self._hand_number, self._winner, tuple(self._ace_failures),
                tuple(map(tuple, self._results_key())), self._phase, self._turn,
                tuple(tuple(sorted(h.items())) for h in self._hands), tuple(self._finish),
                tuple(sorted(self._out_moves.items())), tuple(self._history),
                tuple(self._plays), self._top, self._passes, self._anti, tuple(self._payers),
                tuple(self._paid), tuple(sorted(self._receiver_of.items())), self._choosing,
                tuple(self._receivers), tuple(self._backs), self._first,
                self._leader_after)

    def _results_key(self):
        return [(r["level"], r["declarer"], tuple(r["finish_order"]), r["winner"], r["levels"])
                for r in self._results]

    def __eq__(self, other) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self._state() == other._state()

    def __repr__(self) -> str:
        return (f"<Game hand {self._hand_number} phase={self._phase} level={self.level} "
                f"levels={self.levels} to act={self._turn}>")


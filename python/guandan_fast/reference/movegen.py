"""Legal moves (docs/rules.md §6), the reference way: list every card multiset of the hand that
could make some combination, shape by shape, and let ``classify`` say what each one is.

Candidate multisets are built per shape: a group of one rank (singles, pairs, trips, bombs),
a triple plus a pair (full houses), and runs of 1, 2 or 3 cards per rank (straights and
straight flushes, pair runs, plates). For each, the natural cards of a rank are chosen in every
possible way and the wilds fill the rest. Over-generating is harmless (``classify`` rejects
what is not a combination); the generators only have to miss nothing, which the tests check
against a brute force over every sub-multiset.

>>> [str(m) for m in legal_moves('H7 H7 S9', 7)]
['Single 7 H7', 'Single 9 S9', 'Pair 7 H7 H7', 'Pair 9 H7 S9', 'Trips 9 H7 H7 S9']
>>> [str(m) for m in legal_moves('S3 C3 D9 H7', 7, last=['Pair', '2', ['S2', 'D2']])]
['PASS', 'Pair 3 C3 H7', 'Pair 3 S3 C3', 'Pair 3 S3 H7', 'Pair 9 H7 D9']
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import product
from typing import Iterable, Iterator, Sequence

from ..cards import RANKS, is_wild, natural_value, parse_cards, parse_level, sort_cards
from ..moves import PASS, Move
from ..rules import Rules
from ..validate import check_rules
from .combos import beats_unchecked, check_last, readings

__all__ = ["legal_moves"]


def legal_moves(hand: str | Iterable[str], level: int | str, last: Move | Sequence | None = None,
                rules: Rules = Rules()) -> list[Move]:
    """Every distinct legal move of ``hand`` (docs/rules.md §6), sorted by ``Move.sort_key``.

    On lead (``last`` None or PASS): every reading of every card multiset the hand can form.
    On follow: the moves that beat ``last`` (a ``Move`` or a platform list), then PASS first.

    >>> legal_moves('SB SB HR HR', 2, last=Move('Bomb', 'T', 'ST ST CT CT DT DT HT HT H2 H2'))
    [PASS, Move('Bomb', 'JOKER', ('SB', 'SB', 'HR', 'HR'))]
    >>> legal_moves('S3', 2, last=['Single', '3', ['S4']])
    Traceback (most recent call last):
    ...
    ValueError: last: cards S4 do not make Single 3 at level 2
    """
    codes = parse_cards(hand)
    lv = parse_level(level)
    check_rules(rules)
    prev = check_last(last, lv, rules)

    moves: set[Move] = set()
    for cards in set(_candidates(codes, lv, prev)):
        for m in readings(cards, lv, rules.sf_as_straight, rules.fullhouse_joker_pair):
            if prev is None or beats_unchecked(m, prev, lv):
                moves.add(m)
    if prev is not None:
        moves.add(PASS)
    return sorted(moves, key=Move.sort_key)


# ---------------------------------------------------------------------------------------------
# candidate card multisets
# ---------------------------------------------------------------------------------------------

_NONE: Counter = Counter()   # no naturals at a position (only ever read)


class _Pool:
    """The hand split the way the rules look at it: naturals by natural value, wilds, jokers."""

    def __init__(self, codes: tuple[str, ...], level: int) -> None:
        self.level = level
        self.wild = "H" + RANKS[level - 2]
        self.wilds = sum(1 for c in codes if is_wild(c, level))
        self.jokers = Counter(c for c in codes if c in ("SB", "HR"))
        self.naturals: dict[int, Counter] = {}
        for c in codes:
            if c not in ("SB", "HR") and not is_wild(c, level):
                self.naturals.setdefault(natural_value(c), Counter())[c] += 1

    def at(self, position: int) -> Counter:
        """Naturals at a natural-order position (1 and 14 are both the ace)."""
        return self.naturals.get(14 if position == 1 else position, _NONE)

    def groups(self, value: int, size: int, max_wilds: int) -> Iterator[tuple[tuple[str, ...], int]]:
        """Every way to make ``size`` cards of natural value ``value`` from its naturals (at
        least one) plus up to ``max_wilds`` wilds: ``(cards, wilds used)``."""
        nat = self.at(value)
        for w in range(min(max_wilds, self.wilds, size - 1) + 1):
            for chosen in _submultisets(nat, size - w):
                yield chosen + (self.wild,) * w, w


def _submultisets(counter: Counter, k: int) -> tuple[tuple[str, ...], ...]:
    """Every sub-multiset of size ``k`` of a multiset of codes, each once."""
    return _submultisets_of(tuple(sorted(counter.items())), k)


@lru_cache(maxsize=1 << 14)
def _submultisets_of(items: tuple[tuple[str, int], ...], k: int) -> tuple[tuple[str, ...], ...]:
    """``_submultisets`` of a multiset given as sorted ``(code, count)`` pairs; cached, because
    the same few cards of a rank are asked about again and again (every window of a run)."""

    def rec(i: int, k: int) -> Iterator[tuple[str, ...]]:
        if k == 0:
            yield ()
            return
        if i == len(items):
            return
        code, have = items[i]
        for take in range(min(have, k), -1, -1):
            for rest in rec(i + 1, k - take):
                yield (code,) * take + rest

    return tuple(rec(0, k))


def _candidates(codes: tuple[str, ...], level: int, prev: Move | None) -> Iterator[tuple[str, ...]]:
    """Canonical card tuples that may make a move; on follow only the shapes that can beat
    ``prev`` (its own type, and bombs)."""
    pool = _Pool(codes, level)
    wanted = None if prev is None else {prev.type, "Bomb", "StraightFlush"}

    def want(*types: str) -> bool:
        return wanted is None or any(t in wanted for t in types)

    sizes = [s for s, t in ((1, "Single"), (2, "Pair"), (3, "Trips")) if want(t)]
    if want("Bomb"):
        sizes += range(4, 11)
    for size in sizes:
        yield from (sort_cards(c) for c in _same_rank(pool, size))
    if want("ThreeWithTwo"):
        yield from (sort_cards(c) for c in _full_houses(pool))
    if want("Straight", "StraightFlush"):
        yield from (sort_cards(c) for c in _runs(pool, 5, 1))
    if want("ThreePair"):
        yield from (sort_cards(c) for c in _runs(pool, 3, 2))
    if want("TwoTrips"):
        yield from (sort_cards(c) for c in _runs(pool, 2, 3))


def _same_rank(pool: _Pool, size: int) -> Iterator[tuple[str, ...]]:
    """Groups of one rank: naturals plus wilds, wilds alone, jokers alone (incl. SB SB HR HR)."""
    for value in pool.naturals:
        for cards, _ in pool.groups(value, size, 2):
            yield cards
    if size <= pool.wilds:
        yield (pool.wild,) * size
    yield from _submultisets(pool.jokers, size)


def _full_houses(pool: _Pool) -> Iterator[tuple[str, ...]]:
    """A triple of one rank plus a pair of another (naturals with wilds, two wilds, jokers)."""
    for t in pool.naturals:
        for triple, used in pool.groups(t, 3, 2):
            left = pool.wilds - used
            for p in pool.naturals:
                if p != t:
                    for pair, _ in pool.groups(p, 2, left):
                        yield triple + pair
            if left == 2:
                yield triple + (pool.wild, pool.wild)
            for joker in ("SB", "HR"):
                if pool.jokers[joker] == 2:
                    yield triple + (joker, joker)


def _runs(pool: _Pool, length: int, per: int) -> Iterator[tuple[str, ...]]:
    """Runs of ``length`` consecutive natural positions, ``per`` cards each, in every window
    A.. through ..A, each slot filled from its naturals and wilds (a whole slot may be wild)."""
    for low in range(1, 16 - length):
        slot_options = []
        for position in range(low, low + length):
            options = [(chosen + (pool.wild,) * w, w)
                       for w in range(min(per, pool.wilds) + 1)
                       for chosen in _submultisets(pool.at(position), per - w)]
            if not options:
                break
            slot_options.append(options)
        else:
            for combo in product(*slot_options):
                if sum(w for _, w in combo) <= pool.wilds:
                    yield tuple(card for cards, _ in combo for card in cards)

"""Readings and beating, written straight from docs/rules.md §2-5 (the reference oracle).

``classify(cards, level)`` lists every reading of exactly these cards; ``beats(move, last,
level)`` is the relation of docs/rules.md §5. Both favour clarity over speed.

>>> [str(m) for m in classify('S8 C8 H7 DJ HJ', 7)]
['ThreeWithTwo 8 H7 S8 C8 HJ DJ', 'ThreeWithTwo J H7 S8 C8 HJ DJ']
>>> [str(m) for m in classify('S8 C8 D8 H7 H7', 7)]
['ThreeWithTwo 8 H7 H7 S8 C8 D8', 'Bomb 8 H7 H7 S8 C8 D8']
>>> [str(m) for m in classify('H9 D2 C3 S4 S5', 9)]
['Straight A D2 C3 S4 S5 H9', 'Straight 2 D2 C3 S4 S5 H9']
>>> classify('H7 SB', 7)
[]
>>> beats(Move('Single', '7', 'S7'), Move('Single', 'A', 'SA'), 7)
True
>>> beats(Move('Single', '7', 'S7'), Move('Single', '7', 'H7'), 7)
False
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Iterable, Sequence

from ..cards import RANKS, is_wild, natural_value, parse_cards, parse_level, sort_cards
from ..moves import PASS, SEQUENCE_TYPES, Move
from ..rules import Rules

__all__ = ["classify", "beats", "key", "bomb_tier", "check_play", "check_last"]

#: Rung of the bomb ladder (docs/rules.md §5) by number of cards of a rank bomb.
_RANK_BOMB_TIER = {4: 1, 5: 2, 6: 4, 7: 5, 8: 6, 9: 7, 10: 8}
_STRAIGHT_FLUSH_TIER = 3
_JOKER_BOMB_TIER = 9


def _rank_char(value: int) -> str:
    """Rank character of a natural value 2..14, or of sequence position 1 (low ace)."""
    return "A" if value in (1, 14) else RANKS[value - 2]


# ---------------------------------------------------------------------------------------------
# classify
# ---------------------------------------------------------------------------------------------

def classify(cards: str | Iterable[str], level: int | str, rules: Rules = Rules()) -> list[Move]:
    """Every distinct reading (docs/rules.md §3-4) of exactly these cards, sorted by
    ``Move.sort_key``; an empty list when the cards make no combination.

    >>> classify('H7 H7', 7)
    [Move('Pair', '7', ('H7', 'H7'))]
    >>> [str(m) for m in classify('S9 H7 SJ SQ SK', 7)]
    ['Straight 9 H7 S9 SJ SQ SK', 'StraightFlush 9 H7 S9 SJ SQ SK']
    >>> [str(m) for m in classify('S9 H7 SJ SQ SK', 7, Rules(sf_as_straight=False))]
    ['StraightFlush 9 H7 S9 SJ SQ SK']
    >>> classify('S8 S8 S8', 'X')
    Traceback (most recent call last):
    ...
    ValueError: card 'S8' appears 3 times; there are only 2 copies of each card
    """
    codes = sort_cards(parse_cards(cards))
    lv = parse_level(level)
    check_rules(rules)
    return list(readings(codes, lv, rules.sf_as_straight, rules.fullhouse_joker_pair))


def check_rules(rules) -> None:
    """TypeError unless ``rules`` is a ``Rules`` (the reference's own check)."""
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules instance, not {type(rules).__name__}")


@lru_cache(maxsize=1 << 16)
def readings(codes: tuple[str, ...], level: int, sf_as_straight: bool = True,
             fullhouse_joker_pair: bool = True) -> tuple[Move, ...]:
    """``classify`` on already canonical input (codes sorted by ``sort_cards``, level an int);
    cached, because move generation asks about the same multisets again and again."""
    n = len(codes)
    if n == 0:
        return ()
    wilds = sum(1 for c in codes if is_wild(c, level))
    small = codes.count("SB")
    big = codes.count("HR")
    jokers = small + big
    # Natural (non-wild, non-joker) cards by natural value 2..14: what the wilds must fit around.
    by_value = Counter(natural_value(c) for c in codes if c not in ("SB", "HR") and not is_wild(c, level))
    suits = {c[0] for c in codes if c not in ("SB", "HR") and not is_wild(c, level)}
    found: list[Move] = []

    def add(type_name: str, rank: str) -> None:
        found.append(Move(type_name, rank, codes))

    # One group of one rank (single, pair, trips, rank bomb). A group made only of wilds is
    # read as natural level cards (docs/rules.md §3): its rank is the level rank.
    if jokers == 0 and len(by_value) <= 1:
        value = next(iter(by_value)) if by_value else level
        rank = _rank_char(value)
        if n == 1:
            add("Single", rank)
        elif n == 2:
            add("Pair", rank)
        elif n == 3:
            add("Trips", rank)
        elif 4 <= n <= 10:
            # Card counts alone cap a level-rank bomb at 8 (6 natural level cards + 2 wilds).
            add("Bomb", rank)
    # Jokers never combine with other cards except in a full house's pair.
    if jokers == n:
        if n == 1:
            add("Single", "B" if small else "R")
        elif n == 2 and (small == 2 or big == 2):
            add("Pair", "B" if small else "R")
        elif n == 4 and small == 2 and big == 2:
            add("Bomb", "JOKER")

    if n == 5:
        for triple in _full_house_triples(by_value, wilds, small, big, level, fullhouse_joker_pair):
            add("ThreeWithTwo", _rank_char(triple))
        if jokers == 0:
            flush = len(suits) == 1  # wilds take the suit of the naturals
            for low in range(1, 11):
                if _fits_window(by_value, low, 5, 1):
                    if flush:
                        add("StraightFlush", _rank_char(low))
                    if not flush or sf_as_straight:
                        add("Straight", _rank_char(low))
    if n == 6 and jokers == 0:
        for low in range(1, 13):
            if _fits_window(by_value, low, 3, 2):
                add("ThreePair", _rank_char(low))
        for low in range(1, 14):
            if _fits_window(by_value, low, 2, 3):
                add("TwoTrips", _rank_char(low))
    return tuple(sorted(found, key=Move.sort_key))


def _full_house_triples(by_value: Counter, wilds: int, small: int, big: int, level: int,
                        joker_pair: bool) -> list[int]:
    """Natural values T such that five cards are a triple of T plus a pair of another rank.

    The triple holds every natural T (at most 3) and wilds for the rest; the remaining two cards
    must be a pair of a different rank: naturals of one rank P with wilds, two wilds (standing
    for a pair of any rank other than the triple's, so a natural triple of the level rank takes
    them too: docs/rules.md §4, edge case 42), or SB SB / HR HR when the rules allow a joker pair.
    """
    out = []
    for t, have in by_value.items():
        if have > 3 or 3 - have > wilds:
            continue
        spare_wilds = wilds - (3 - have)
        rest = {v: c for v, c in by_value.items() if v != t}
        if small or big:
            ok = (joker_pair and not rest and spare_wilds == 0
                  and (small, big) in ((2, 0), (0, 2)))
        elif rest:
            ok = len(rest) == 1 and sum(rest.values()) + spare_wilds == 2
        else:
            ok = spare_wilds == 2
        if ok:
            out.append(t)
    return out


def _fits_window(by_value: Counter, low: int, length: int, per: int) -> bool:
    """Can the naturals sit in the run of ``length`` ranks from natural position ``low``
    (A = 1 or 14), ``per`` cards each, with wilds filling the gaps?

    The caller has checked that the card count is ``length * per`` and that there are no
    jokers, so the gaps are exactly the wilds.
    """
    high = low + length - 1
    filled = [0] * length
    for value, count in by_value.items():
        if low <= value <= high:
            filled[value - low] += count
        elif value == 14 and low == 1:
            filled[0] += count  # the ace as the low end of A2345, AA2233, AAA222
        else:
            return False
    return all(f <= per for f in filled)


# ---------------------------------------------------------------------------------------------
# keys and beating
# ---------------------------------------------------------------------------------------------

def key(move: Move, level: int) -> int:
    """What docs/rules.md §4 compares within one type: v of the compared group for same-rank types
    (level rank 15, SB 16, HR 17), the lowest natural position for sequences (A-low = 1).

    >>> key(Move('Pair', '9', 'D9 H7'), 9), key(Move('Straight', 'A', 'SA S2 S3 S4 D5'), 2)
    (15, 1)
    """
    if move.type in SEQUENCE_TYPES:
        return 1 if move.rank == "A" else RANKS.index(move.rank) + 2
    if move.rank == "B":
        return 16
    if move.rank == "R":
        return 17
    if move.rank == "JOKER":
        return 18
    value = RANKS.index(move.rank) + 2
    return 15 if value == level else value


def bomb_tier(move: Move) -> int:
    """Rung of the bomb ladder: Bomb4=1, Bomb5=2, StraightFlush=3, Bomb6=4 … Bomb10=8,
    four jokers=9; 0 for a non-bomb.

    >>> bomb_tier(Move('Bomb', '2', 'S2 S2 C2 C2 D2')), bomb_tier(Move('Pair', '2', 'S2 C2'))
    (2, 0)
    """
    if move.type == "StraightFlush":
        return _STRAIGHT_FLUSH_TIER
    if move.type == "Bomb":
        return _JOKER_BOMB_TIER if move.rank == "JOKER" else _RANK_BOMB_TIER[len(move.cards)]
    return 0


def beats_unchecked(move: Move, last: Move | None, level: int) -> bool:
    """docs/rules.md §5's reference relation on moves already known to be readings."""
    if move.is_pass:
        return False
    if last is None or last.is_pass:
        return True
    if move.is_bomb:
        if not last.is_bomb:
            return True
        return (bomb_tier(move), key(move, level)) > (bomb_tier(last), key(last, level))
    if last.is_bomb:
        return False
    return move.type == last.type and key(move, level) > key(last, level)


def check_play(move, level: int, rules: Rules = Rules(), *, what: str = "move") -> Move:
    """``move`` (a ``Move`` or a platform list) as a ``Move`` that is PASS or a reading of its
    cards at ``level``; ``ValueError``/``TypeError`` otherwise."""
    if isinstance(move, Move):
        m = move
    elif isinstance(move, (list, tuple)):
        if len(move) != 3:
            raise ValueError(f"{what}: a platform action is [type, rank, cards]; got {move!r}")
        if move[0] == "PASS":
            m = Move.from_platform(move, level)  # checks the PASS form
        elif isinstance(move[2], str):
            raise ValueError(f"{what}: the cards of a platform action are a list of codes; "
                             f"got {move[2]!r}")
        else:
            m = Move(*move)
    else:
        raise TypeError(f"{what} must be a Move or a platform list [type, rank, cards], "
                        f"not {type(move).__name__}")
    if m.is_pass:
        return PASS
    if m.type in ("tribute", "back"):
        raise ValueError(f"{what} {m} is a {m.type} card, not a play")
    if m not in readings(m.cards, level, rules.sf_as_straight, rules.fullhouse_joker_pair):
        raise ValueError(f"{what}: cards {' '.join(m.cards)} do not make {m.type} {m.rank} "
                         f"at level {_rank_char(level)}")
    return m


def check_last(last, level: int, rules: Rules = Rules()) -> Move | None:
    """The play to beat, or None on a lead (``last`` None or PASS)."""
    if last is None:
        return None
    m = check_play(last, level, rules, what="last")
    return None if m.is_pass else m


def beats(move: Move | Sequence, last: Move | Sequence | None, level: int | str,
          rules: Rules = Rules()) -> bool:
    """Does ``move`` beat ``last`` (docs/rules.md §5)? ``last`` None (or PASS) means a lead, which
    any non-PASS move "beats". Both moves must be readings of their cards at ``level``.

    >>> beats(Move('Bomb', '2', 'S2 S2 C2 C2 D2'), Move('Bomb', '9', 'S9 C9 D9 D9'), 9)
    True
    >>> beats(['Bomb', '9', ['S9', 'C9', 'D9', 'D9']], ['Bomb', 'A', ['SA', 'CA', 'DA', 'DA']], 9)
    True
    >>> beats(PASS, None, 2)
    False
    >>> beats(Move('Pair', '9', 'D9 SB'), None, 7)
    Traceback (most recent call last):
    ...
    ValueError: move: cards D9 SB do not make Pair 9 at level 7
    """
    lv = parse_level(level)
    check_rules(rules)
    m = check_play(move, lv, rules)
    prev = check_last(last, lv, rules)
    return beats_unchecked(m, prev, lv)

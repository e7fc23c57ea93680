"""Small builders shared by the rules test modules."""

from collections import Counter

from guandan_fast import Move, Rules
from guandan_fast.cards import FULL_DECK


def M(type_name, rank, cards):
    return Move(type_name, rank, cards)


def single(card: str) -> Move:
    if card in ("SB", "HR"):
        return Move("Single", "B" if card == "SB" else "R", [card])
    return Move("Single", card[1], [card])


def readings(engine, cards, level, rules=Rules()):
    """``classify`` as a set, checking that no reading is listed twice."""
    found = engine.classify(cards, level, rules)
    assert len(found) == len(set(found)), f"duplicate readings in {found}"
    return set(found)


def make_hands(spec: dict[int, str], rest: tuple[int, ...]) -> list[list[str]]:
    """Seats of ``spec`` hold exactly those cards plus, for the seats of ``rest``, a
    round-robin share of the rest of the deck."""
    hands = {p: spec.get(p, "").split() for p in range(4)}
    remaining = Counter(FULL_DECK) - Counter(c for h in hands.values() for c in h)
    for i, c in enumerate(sorted(remaining.elements())):
        hands[rest[i % len(rest)]].append(c)
    return [hands[p] for p in range(4)]

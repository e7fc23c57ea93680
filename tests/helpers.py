"""Small builders shared by the test modules, and ``LONG``: True under ``pytest --long``
(set by conftest.py before the test modules are imported)."""

import csv
import random
from collections import Counter
from pathlib import Path

from guandan_fast import PASS, Move, Rules
from guandan_fast.cards import FULL_DECK, RANKS, card_sort_key, sort_cards
from guandan_fast.game import Game
from guandan_fast.reference import Game as RefGame
from guandan_fast.reference.combos import key

LONG = False


def M(type_name, rank, cards):
    return Move(type_name, rank, cards)


def single(card: str) -> Move:
    if card in ("SB", "HR"):
        return Move("Single", "B" if card == "SB" else "R", [card])
    return Move("Single", card[1], [card])


def tribute(card: str) -> Move:
    return Move("tribute", "tribute", [card])


def back(card: str) -> Move:
    return Move("back", "back", [card])


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


def wild_of(level: int) -> str:
    return "H" + RANKS[level - 2]


def sf_usable(hand, level):
    """Natural cards of the hand that some straight flush of the hand could use (docs/design.md)."""
    w = wild_of(level)
    wilds = hand.count(w)
    naturals = {c for c in hand if c not in ("SB", "HR") and c != w}
    usable = set()
    for suit in "SHCD":
        for low in range(1, 11):
            codes = [suit + ("A" if p in (1, 14) else RANKS[p - 2]) for p in range(low, low + 5)]
            held = [c for c in codes if c in naturals]
            if 5 - len(held) <= wilds:
                usable.update(held)
    return usable


def compact_definition(moves, hand, level):
    """docs/design.md "Compact mode", written plainly over a complete move list: group by
    (type, key, size[, suit]) and keep the best of each group by (wilds, straight-flush
    penalty, [full house: pair value], cards in canonical order)."""
    w = wild_of(level)
    held = Counter(hand)
    usable = sf_usable(hand, level)

    def group(m):
        if m.type == "StraightFlush":
            suit = {c[0] for c in m.cards if c != w}.pop()
            return (m.type, key(m, level), 5, suit)
        return (m.type, key(m, level), len(m.cards))

    def preference(m):
        used = Counter(c for c in m.cards if c != w and c not in ("SB", "HR"))
        penalty = sum(1 for c, k in used.items() if c in usable and k == held[c])
        pair_value = 0
        if m.type == "ThreeWithTwo":
            # the pair: what is neither a wild nor a natural of the triple's rank
            rest = [c for c in m.cards if c != w and (c in ("SB", "HR") or c[1] != m.rank)]
            if not rest:
                pair_value = 15  # two wilds: a pair of level cards
            else:
                c = rest[0]
                pair_value = 16 if c == "SB" else 17 if c == "HR" else (
                    15 if RANKS.index(c[1]) + 2 == level else RANKS.index(c[1]) + 2)
        cards_key = tuple(card_sort_key(c) for c in sort_cards(m.cards))
        return (m.cards.count(w), penalty, pair_value, cards_key)

    best = {}
    for m in moves:
        if m == PASS:
            continue
        g = group(m)
        if g not in best or preference(m) < preference(best[g]):
            best[g] = m
    return set(best.values())


def perft_pins() -> list[tuple[int, int, str, int, bool]]:
    """``(seed, depth, mode, leaves, long)`` rows of tests/data/perft.csv."""
    path = Path(__file__).parent / "data" / "perft.csv"
    lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    return [(int(r["seed"]), int(r["depth"]), r["mode"], int(r["leaves"]), r["long"] == "1")
            for r in csv.DictReader(lines)]


def go_out(game, order, cards) -> None:
    """Seats of ``order`` go out in that order on the given single cards, in one trick (the
    other seats pass)."""
    due = list(zip(order, cards))
    while due:
        p = game.current_player
        if p == due[0][0]:
            game.play(single(due[0][1]), seat=p)
            due.pop(0)
        else:
            game.play(PASS, seat=p)


def hand_with_finish(game_cls, order, levels, declarer, rules=Rules(), cards=("S3", "S4", "S5"),
                     **setup):
    """A ``game_cls.setup`` game in which the seats of ``order`` go out in that order, one
    single card each, in one trick; returned after the last of them went out."""
    spec = dict(zip(order, cards))
    game = game_cls.setup(make_hands(spec, tuple(p for p in range(4) if p not in order)),
                          levels=levels, declarer=declarer, leader=order[0], rules=rules, **setup)
    go_out(game, order, cards)
    return game


def played(seed, rules=Rules(), steps=None):
    """A compiled ``Game(seed, rules)`` after ``steps`` random moves (a seeded chooser), or
    played to its end (``steps`` None)."""
    g = Game(seed, rules)
    rng = random.Random(seed)
    n = 0
    while not g.is_over and (steps is None or n < steps):
        g.play_index(rng.randrange(g.num_legal()))
        n += 1
    return g


# The two Game implementations, for tests parametrized over both without the fixture.
ENGINES = [RefGame, Game]
ENGINE_IDS = ["reference", "compiled"]

# A 72-card seat: one of every card, the second copies of spades and hearts 2..10, two jokers.
# It has about 81,000 legal moves on lead, far beyond the 32,768 of a dealt hand's buffer.
BIG = ([s + r for s in "SHCD" for r in "23456789TJQKA"]
       + [s + r for s in "SH" for r in "23456789T"] + ["SB", "HR"])


def big_hands():
    """A legal set-up deal whose seat 3 holds ``BIG`` and the others 12 cards each."""
    rest = sorted((Counter(FULL_DECK) - Counter(BIG)).elements())
    return [rest[0:12], rest[12:24], rest[24:36], list(BIG)]


def replay_with_permuted_hidden(seed: int, steps: int, p: int | None = None):
    """Two matches seat ``p`` cannot tell apart (the privacy tests of the sampler and the
    expert): A from ``Game(seed)`` played ``steps`` random compact moves (stopping at the end
    of the first hand), B set up with the other seats' unplayed cards permuted among them and
    the same moves replayed. ``p`` None: the seat to move in A. Returns (A, B, p)."""
    a = Game(seed=seed)
    start = [list(a.hand(q)) for q in range(4)]
    leader = a.current_player
    rnd = random.Random(seed)
    for _ in range(steps):
        moves = a.legal_moves(compact=True)
        a.play(moves[rnd.randrange(len(moves))])
        if a.hand_number > 0 or a.is_over:
            break
    if p is None:
        p = a.current_player
    played = [Counter() for _ in range(4)]
    for seat, m in a.history:
        played[seat].update(m.cards)
    rest = {q: Counter(start[q]) - played[q] for q in range(4) if q != p}
    pool = [c for q in rest for c in sorted(rest[q].elements())]
    rnd.shuffle(pool)
    hands_b = [None] * 4
    hands_b[p] = start[p]
    i = 0
    for q in sorted(rest):
        k = sum(rest[q].values())
        hands_b[q] = sorted(played[q].elements()) + pool[i:i + k]
        i += k
    b = Game.setup(hands_b, leader=leader, seed=seed + 1)
    for _, m in a.history:
        b.play(m)
    return a, b, p

"""Property and unit tests of the reference move engine (``guandan_fast.reference``).

Two independent oracles live in this module:

* ``brute_legal_moves`` enumerates *every* sub-multiset of a hand and keeps every reading
  ``classify`` gives that ``beats`` the last play: ``legal_moves`` (which generates candidates
  shape by shape) must equal it exactly.
* ``oracle_classify`` reads cards by substituting every possible suited card for each wild and
  reading the wild-free result with a small classifier written here from docs/rules.md §4, so
  ``classify`` itself is checked by a second, differently built implementation.

Default runs take a few seconds. ``--long`` multiplies the hypothesis examples (several
minutes) for a deeper search.
"""

import random
from collections import Counter
from itertools import combinations_with_replacement, product

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guandan_fast import PASS, Move, Rules
from guandan_fast.cards import FULL_DECK, RANKS, natural_value
from guandan_fast.reference import beats, classify, legal_moves
from guandan_fast.reference.combos import bomb_tier, key, readings

from helpers import LONG, wild_of

pytestmark = pytest.mark.reference


def examples(n):
    return settings(max_examples=n * 20 if LONG else n, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


RULESETS = [Rules(), Rules(sf_as_straight=False), Rules(fullhouse_joker_pair=False)]
SUITED = [c for c in FULL_DECK[::2] if c not in ("SB", "HR")]  # the 52 suited codes


# ---------------------------------------------------------------------------------------------
# oracle 1: brute force over sub-multisets
# ---------------------------------------------------------------------------------------------

def brute_legal_moves(hand, level, last=None, rules=Rules()):
    """Every reading of every non-empty sub-multiset that beats ``last``, plus PASS on follow."""
    counts = sorted(Counter(hand).items())
    found = set()
    for takes in product(*(range(n + 1) for _, n in counts)):
        cards = [code for (code, _), t in zip(counts, takes) for _ in range(t)]
        if cards:
            found.update(m for m in classify(cards, level, rules) if beats(m, last, level, rules))
    if last is not None and last != PASS:
        found.add(PASS)
    return found


# ---------------------------------------------------------------------------------------------
# oracle 2: wild substitution + a wild-free classifier
# ---------------------------------------------------------------------------------------------

def _label(position):
    return "A" if position in (1, 14) else RANKS[position - 2]


def plain_labels(cards, rules):
    """(type, rank) readings of cards containing no wild, straight from docs/rules.md §4."""
    n = len(cards)
    out = set()
    jokers = [c for c in cards if c in ("SB", "HR")]
    suited = [c for c in cards if c not in ("SB", "HR")]
    ranks = Counter(natural_value(c) for c in suited)
    # groups by rank identity; the two jokers are two different ranks
    ident = Counter([natural_value(c) for c in suited] + jokers)
    if n == 1:
        c = cards[0]
        out.add(("Single", {"SB": "B", "HR": "R"}.get(c) or c[1]))
    if len(ident) == 1 and 2 <= n <= 10:
        (rank,) = ident
        if rank in ("SB", "HR"):
            if n == 2:
                out.add(("Pair", "B" if rank == "SB" else "R"))
        else:
            name = {2: "Pair", 3: "Trips"}.get(n, "Bomb")
            out.add((name, _label(rank)))
    if sorted(cards) == ["HR", "HR", "SB", "SB"]:
        out.add(("Bomb", "JOKER"))
    if n == 5 and sorted(ident.values()) == [2, 3]:
        triple = next(r for r, c in ident.items() if c == 3)
        pair = next(r for r, c in ident.items() if c == 2)
        if triple not in ("SB", "HR") and (pair not in ("SB", "HR") or rules.fullhouse_joker_pair):
            out.add(("ThreeWithTwo", _label(triple)))
    if not jokers:
        for length, per, name, lows in ((5, 1, "Straight", range(1, 11)),
                                        (3, 2, "ThreePair", range(1, 13)),
                                        (2, 3, "TwoTrips", range(1, 14))):
            if n != length * per:
                continue
            for low in lows:
                window = list(range(low, low + length))
                # an ace sits at 1 in the A.. window, else at 14
                at = Counter(1 if (v == 14 and low == 1) else v for v in ranks.elements())
                if all(at[p] == per for p in window) and sum(at.values()) == n:
                    if name == "Straight" and len({c[0] for c in suited}) == 1:
                        out.add(("StraightFlush", _label(low)))
                    out.add((name, _label(low)))
    return out


def oracle_classify(cards, level, rules=Rules()):
    cards = tuple(cards)
    wild = wild_of(level)
    n_wild = cards.count(wild)
    rest = [c for c in cards if c != wild]
    labels = set()
    if not rest:
        # only wilds: natural level cards (docs/rules.md §3)
        labels = plain_labels(("S" + RANKS[level - 2],) * n_wild, rules)
    else:
        for subst in combinations_with_replacement(SUITED, n_wild):
            labels |= plain_labels(tuple(rest) + subst, rules)
    if len({c[1] for c in cards}) == 1 and n_wild == 0:
        # [decision] five natural cards of one rank are never a full house (with both wilds
        # among them, the wilds are a pair of another rank: docs/rules.md edge case 42)
        labels = {lb for lb in labels if lb[0] != "ThreeWithTwo"}
    if not rules.sf_as_straight:
        # [decision] a run that can be a straight flush in a window is not a straight there
        sf = {r for t, r in labels if t == "StraightFlush"}
        labels = {(t, r) for t, r in labels if not (t == "Straight" and r in sf)}
    return {Move(t, r, cards) for t, r in labels}


# ---------------------------------------------------------------------------------------------
# strategies
# ---------------------------------------------------------------------------------------------

@st.composite
def hands(draw, max_size=12, min_size=0):
    """(hand, level): 0-2 wilds; often drawn from a few consecutive ranks (and sometimes one
    or two suits) so that runs, bombs and full houses are common."""
    level = draw(st.integers(2, 14))
    wild = wild_of(level)
    n_wild = draw(st.integers(0, 2))
    if draw(st.booleans()):
        low = draw(st.integers(1, 10))
        values = {14 if p == 1 else p for p in range(low, low + draw(st.integers(1, 5)))}
        suits = draw(st.sampled_from(["SHCD", "SHCD", "S", "SD"]))
        pool = [c for c in FULL_DECK if c not in ("SB", "HR")
                and natural_value(c) in values and c[0] in suits]
        pool += ["SB", "SB", "HR", "HR"][:draw(st.integers(0, 4))]
    else:
        pool = list(FULL_DECK)
    pool = [c for c in pool if c != wild]
    high = min(len(pool), max_size - n_wild)
    low_size = min(high, max(0, min_size - n_wild))
    if draw(st.booleans()):
        size = draw(st.integers(low_size, high))
    else:  # hypothesis favours small integers: count down from the largest size instead
        size = high - draw(st.integers(0, high - low_size))
    idx = draw(st.lists(st.integers(0, len(pool) - 1), unique=True, min_size=size, max_size=size))
    return tuple(pool[i] for i in idx) + (wild,) * n_wild, level


#: Plays with no heart, so that they read the same at every level.
FIXED_LASTS = [
    Move("Single", "5", "S5"), Move("Single", "R", "HR"), Move("Pair", "9", "S9 C9"),
    Move("Pair", "B", "SB SB"), Move("Trips", "Q", "SQ CQ DQ"),
    Move("ThreeWithTwo", "4", "S4 C4 D4 S8 C8"), Move("Straight", "3", "S3 C4 D5 S6 C7"),
    Move("Straight", "A", "SA C2 D3 S4 C5"), Move("ThreePair", "5", "S5 C5 S6 C6 S7 C7"),
    Move("TwoTrips", "T", "ST CT DT SJ CJ DJ"), Move("Bomb", "6", "S6 C6 D6 D6"),
    Move("Bomb", "K", "SK SK CK DK DK"), Move("StraightFlush", "8", "S8 S9 ST SJ SQ"),
    Move("Bomb", "3", "S3 S3 C3 C3 D3 D3"), Move("Bomb", "JOKER", "SB SB HR HR"),
]


@st.composite
def follows(draw, max_size=12):
    """(hand, level, last): last is a fixed play or a lead of another dense hand."""
    hand, level = draw(hands(max_size))
    if draw(st.booleans()):
        return hand, level, draw(st.sampled_from(FIXED_LASTS))
    other, _ = draw(hands(8, min_size=1))
    options = legal_moves(other, level)
    # type first, so that singles (the most numerous moves) do not crowd out the rest
    kind = draw(st.sampled_from(sorted({m.type for m in options})))
    return hand, level, draw(st.sampled_from([m for m in options if m.type == kind]))


def random_hand(rng, size, level, n_wild):
    wild = wild_of(level)
    deck = [c for c in FULL_DECK if c != wild]
    rng.shuffle(deck)
    return tuple(deck[:size - n_wild]) + (wild,) * n_wild


# ---------------------------------------------------------------------------------------------
# legal_moves against the brute force
# ---------------------------------------------------------------------------------------------

def check_list_shape(moves, hand, level, last, rules=Rules()):
    assert moves == sorted(moves, key=Move.sort_key)
    assert len(moves) == len(set(moves))
    assert (PASS in moves) == (last is not None and last != PASS)
    held = Counter(hand)
    for m in moves:
        if m == PASS:
            continue
        assert not Counter(m.cards) - held, f"{m} uses cards not in the hand"
        assert m in classify(m.cards, level, rules)
        assert beats(m, last, level, rules)


@examples(80)
@given(hands(), st.sampled_from(RULESETS))
def test_lead_equals_brute_force(hand_level, rules):
    hand, level = hand_level
    moves = legal_moves(hand, level, rules=rules)
    check_list_shape(moves, hand, level, None, rules)
    assert set(moves) == brute_legal_moves(hand, level, None, rules)


@examples(80)
@given(follows(), st.sampled_from(RULESETS))
def test_follow_equals_brute_force(case, rules):
    hand, level, last = case
    if last not in classify(last.cards, level, rules):
        return  # this reading does not exist under these switches
    moves = legal_moves(hand, level, last, rules)
    check_list_shape(moves, hand, level, last, rules)
    assert set(moves) == brute_legal_moves(hand, level, last, rules)


def test_brute_force_seeded_hands():
    """Deterministic complement to hypothesis: full random 12-card hands at every level."""
    rng = random.Random(20240601)
    for i in range(20 if not LONG else 400):
        level = 2 + i % 13
        hand = random_hand(rng, 12, level, i % 3)
        lead = legal_moves(hand, level)
        assert set(lead) == brute_legal_moves(hand, level)
        last = rng.choice(lead)
        assert set(legal_moves(hand, level, last)) == brute_legal_moves(hand, level, last)


def test_full_hands_follow_is_filtered_lead():
    """27-card hands (too big for the brute force): every move is a reading of cards in the
    hand, and following equals filtering the lead list by ``beats`` (so the shape-restricted
    follow generation misses nothing)."""
    rng = random.Random(7)
    for i in range(6 if not LONG else 60):
        level = rng.randint(2, 14)
        hand = random_hand(rng, 27, level, i % 3)
        lead = legal_moves(hand, level)
        check_list_shape(lead, hand, level, None)
        for last in FIXED_LASTS + [rng.choice(lead)]:
            follow = legal_moves(hand, level, last)
            assert follow == [PASS] + [m for m in lead if beats(m, last, level)]


def test_legal_moves_examples():
    # Lead: every reading of every multiset, PASS excluded.
    assert set(legal_moves("S3 C3", 2)) == {Move("Single", "3", "S3"), Move("Single", "3", "C3"),
                                            Move("Pair", "3", "S3 C3")}
    assert legal_moves("D9 D9", 5) == [Move("Single", "9", "D9"), Move("Pair", "9", "D9 D9")]
    # Distinct multisets with and without the wild are distinct moves (docs/rules.md §6).
    bombs = {m for m in legal_moves("D9 D9 S9 C9 H7", 7) if m.type == "Bomb"}
    assert bombs == {Move("Bomb", "9", "D9 D9 S9 C9"), Move("Bomb", "9", "D9 S9 C9 H7"),
                     Move("Bomb", "9", "D9 D9 S9 H7"), Move("Bomb", "9", "D9 D9 C9 H7"),
                     Move("Bomb", "9", "D9 D9 S9 C9 H7")}
    # Eight natural 6s and both wilds: bombs of 4..10 cards. The number of ways to take k of
    # the naturals (4 codes, 2 copies each) is the coefficient of x^k in (1 + x + x^2)^4.
    ways = [1, 4, 10, 16, 19, 16, 10, 4, 1]
    sixes = "S6 S6 H6 H6 C6 C6 D6 D6 H7 H7"
    bombs = Counter(len(m.cards) for m in legal_moves(sixes, 7) if m.type == "Bomb")
    assert bombs == {n: sum(ways[n - w] for w in range(3) if n - w <= 8) for n in range(4, 11)}
    assert [m for m in legal_moves(sixes, 7) if len(m.cards) == 10] == [Move("Bomb", "6", sixes)]
    # Following: PASS plus what beats; last as a platform list, PASS or None means a lead.
    assert legal_moves("S4 C4 SB", 2, last=["Pair", "3", ["S3", "D3"]]) == [
        PASS, Move("Pair", "4", "S4 C4")]
    assert legal_moves("S4", 2, last=PASS) == legal_moves("S4", 2) == [Move("Single", "4", "S4")]
    assert legal_moves("S4", 2, last=["PASS", "PASS", "PASS"]) == [Move("Single", "4", "S4")]
    assert legal_moves("", 2) == []
    assert legal_moves([], 2, last=Move("Single", "4", "S4")) == [PASS]


# ---------------------------------------------------------------------------------------------
# classify
# ---------------------------------------------------------------------------------------------

@examples(150)
@given(hands(max_size=10, min_size=1), st.sampled_from(RULESETS))
def test_classify_matches_substitution_oracle(hand_level, rules):
    cards, level = hand_level
    found = classify(cards, level, rules)
    assert len(found) == len(set(found))
    assert set(found) == oracle_classify(cards, level, rules)
    for m in found:
        assert sorted(m.cards) == sorted(cards)


@examples(30)
@given(hands(max_size=12, min_size=5), st.sampled_from(RULESETS))
def test_classify_of_generated_moves_matches_oracle(hand_level, rules):
    """Positive examples: the cards of generated moves (runs, full houses, bombs with wilds)."""
    hand, level = hand_level
    moves = legal_moves(hand, level, rules=rules)
    rng = random.Random(len(moves))
    for m in rng.sample(moves, min(8, len(moves))):
        assert set(classify(m.cards, level, rules)) == oracle_classify(m.cards, level, rules)


@pytest.mark.parametrize("cards, level, expected", [
    ("S8 C8 H7 DJ HJ", 7, {("ThreeWithTwo", "8"), ("ThreeWithTwo", "J")}),
    ("S8 C8 D8 H7 H7", 7, {("Bomb", "8"), ("ThreeWithTwo", "8")}),
    ("H9 D2 C3 S4 S5", 9, {("Straight", "A"), ("Straight", "2")}),
    ("H7 H7", 7, {("Pair", "7")}),
    ("H7", 7, {("Single", "7")}),
    ("SB", 7, {("Single", "B")}),
    ("HR HR", 7, {("Pair", "R")}),
    ("S9 H7 SJ SQ SK", 7, {("Straight", "9"), ("StraightFlush", "9")}),
    ("ST SJ SQ SK SA", 3, {("Straight", "T"), ("StraightFlush", "T")}),
    ("H7 H7 S2 S3 S4", 7, {("Straight", "A"), ("Straight", "2"), ("StraightFlush", "A"),
                           ("StraightFlush", "2")}),
    ("H7 S8 S8 C8 C8 S9", 7, set()),
    ("S3 C3 H7 S4 C4 D4", 7, {("TwoTrips", "3")}),
    ("S3 C3 H7 H7 S4 C4", 7, {("ThreePair", "2"), ("ThreePair", "3"), ("TwoTrips", "3")}),
    ("SA CA H7 H7 SK CK", 7, {("ThreePair", "Q"), ("TwoTrips", "K")}),
    ("SA CA H7 H7 S2 C2", 7, {("ThreePair", "A"), ("TwoTrips", "A")}),
    ("S5 C5 D5 S5 H7", 7, {("Bomb", "5")}),
    ("S5 C5 H7 H7 SB", 7, set()),
    ("S5 C5 D5 SB SB SB", 7, "error"),
    ("S2 C2 D2 SB HR", 2, set()),
    ("", 2, set()),
])
def test_classify_examples(cards, level, expected):
    if expected == "error":
        with pytest.raises(ValueError):
            classify(cards, level)
        return
    found = classify(cards, level)
    assert {(m.type, m.rank) for m in found} == expected
    assert len(found) == len(expected)


def test_classify_switches():
    assert classify("S3 C3 D3 SB SB", 2, Rules(fullhouse_joker_pair=False)) == []
    assert [m.type for m in classify("S4 S5 S6 S7 S8", 2, Rules(sf_as_straight=False))] == [
        "StraightFlush"]
    # A non-flush run is still a straight with the switch off.
    assert [m.type for m in classify("S4 S5 S6 S7 D8", 2, Rules(sf_as_straight=False))] == [
        "Straight"]


# ---------------------------------------------------------------------------------------------
# beats, key, bomb ladder
# ---------------------------------------------------------------------------------------------

def test_key_and_tier_values():
    assert key(Move("Single", "7", "H7"), 7) == 15
    assert key(Move("Single", "A", "SA"), 7) == 14
    assert key(Move("Pair", "B", "SB SB"), 7) == 16
    assert key(Move("Straight", "A", "SA S2 S3 S4 D5"), 14) == 1
    assert key(Move("TwoTrips", "K", "SK CK DK SA CA DA"), 2) == 13
    tiers = [bomb_tier(Move("Bomb", "5", ["S5", "S5", "C5", "C5", "D5", "D5", "H5", "H5"][:n]))
             for n in range(4, 9)]
    assert tiers == [1, 2, 4, 5, 6]
    assert bomb_tier(Move("StraightFlush", "3", "S3 S4 S5 S6 S7")) == 3
    assert bomb_tier(Move("Bomb", "JOKER", "SB SB HR HR")) == 9


@examples(40)
@given(hands(max_size=10, min_size=4))
def test_beats_is_a_strict_order_by_type(hand_level):
    """On the moves of one hand: irreflexive, asymmetric, transitive; a non-bomb beats only its
    own type; every bomb beats every non-bomb."""
    hand, level = hand_level
    moves = legal_moves(hand, level)
    rng = random.Random(len(moves))
    sample = rng.sample(moves, min(25, len(moves)))
    rel = {(a, b): beats(a, b, level) for a in sample for b in sample}
    for a in sample:
        assert beats(a, None, level) and beats(a, PASS, level)
        assert not beats(PASS, a, level)
        assert not rel[a, a]
        for b in sample:
            if rel[a, b]:
                assert not rel[b, a]
                assert a.is_bomb or a.type == b.type
                for c in sample:
                    if rel[b, c]:
                        assert rel[a, c]
            if a.is_bomb and not b.is_bomb:
                assert rel[a, b]


def test_beats_examples():
    assert beats(Move("Single", "2", "D2"), Move("Single", "A", "SA"), 2)
    assert not beats(Move("Single", "2", "D2"), Move("Single", "A", "SA"), 3)
    assert not beats(Move("Pair", "K", "SK CK"), Move("Single", "Q", "SQ"), 2)
    assert not beats(Move("Trips", "K", "SK CK DK"), Move("ThreeWithTwo", "Q", "SQ CQ DQ S3 C3"), 2)
    assert beats(["Bomb", "2", ["S2", "C2", "D2", "D2"]], ["Straight", "T", ["ST", "SJ", "SQ", "SK", "DA"]], 9)
    assert not beats(PASS, PASS, 2)
    assert beats(Move("Single", "3", "S3"), ["PASS", "PASS", "PASS"], 2)


# ---------------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("hand", ["S1", "D9 D9 D9", "X", "SB SB SB"])
def test_bad_hand_raises_value_error(hand):
    with pytest.raises(ValueError):
        legal_moves(hand, 2)
    with pytest.raises(ValueError):
        classify(hand, 2)


@pytest.mark.parametrize("hand", [42, [1, 2], None])
def test_hand_of_wrong_type_raises_type_error(hand):
    with pytest.raises(TypeError):
        legal_moves(hand, 2)


@pytest.mark.parametrize("level, exc", [(1, ValueError), (15, ValueError), ("X", ValueError),
                                        ("", ValueError), (2.0, TypeError), (True, TypeError),
                                        (None, TypeError)])
def test_bad_level(level, exc):
    with pytest.raises(exc):
        legal_moves("S3", level)
    with pytest.raises(exc):
        classify("S3", level)
    with pytest.raises(exc):
        beats(Move("Single", "3", "S3"), None, level)


@pytest.mark.parametrize("last, exc", [
    (["Pair", "9"], ValueError),
    (["Pair", "9", ["S9", "SB"]], ValueError),         # not a reading
    (["Pair", "8", ["S9", "C9"]], ValueError),         # wrong label
    (["Pair", "9", "S9 C9"], ValueError),              # cards as a string
    (["Pairs", "9", ["S9", "C9"]], ValueError),        # unknown type
    (["Pair", "9", ["S9", "C9", "D9"]], ValueError),   # wrong size
    (["Pair", "9", ["S9", "X9"]], ValueError),         # unknown code
    (["PASS", "PASS", ["S3"]], ValueError),
    (["tribute", "tribute", ["S3"]], ValueError),      # not a play
    (Move("back", "back", ["S3"]), ValueError),
    (Move("Pair", "9", "S9 SB"), ValueError),
    (Move("Straight", "2", "SA S2 S3 S4 S5"), ValueError),  # A2345 is labelled A
    ("Pair 9 S9 C9", TypeError),
    (42, TypeError),
])
def test_malformed_last(last, exc):
    with pytest.raises(exc):
        legal_moves("S3 C3", 2, last=last)
    with pytest.raises(exc):
        beats(Move("Single", "3", "S3"), last, 2)


def test_malformed_move_and_rules():
    with pytest.raises(ValueError):
        beats(Move("Trips", "9", "S9 C9 D8"), None, 2)
    with pytest.raises(TypeError):
        beats("S3", None, 2)
    for bad in ("default", None, {"sf_as_straight": False}):
        with pytest.raises(TypeError):
            legal_moves("S3", 2, rules=bad)
        with pytest.raises(TypeError):
            classify("S3", 2, rules=bad)
    # Under sf_as_straight=False a same-suit run is no Straight, so it is not a valid last.
    with pytest.raises(ValueError):
        legal_moves("S3", 2, last=Move("Straight", "4", "S4 S5 S6 S7 S8"),
                    rules=Rules(sf_as_straight=False))

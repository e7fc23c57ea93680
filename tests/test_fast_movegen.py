"""The compiled move generator (``guandan_fast.movegen``) against the reference oracle.

* differential: fast == reference (as sets of ``Move``) on random (hand, level, last, rules)
  cases: 27-card hands with 0, 1 and 2 wilds at every level, leads and follows of every type
  and every bomb tier, and smaller hands;
* compact mode against a plain Python implementation of its definition (docs/design.md,
  "Compact mode") applied to the reference's complete move list;
* exhaustive small hands: on hands of at most 12 cards the generator equals a brute force over
  every sub-multiset of the hand through the reference ``classify``;
* ``classify``, ``beats``, ``MoveList``, ``Hand``, input checking, and a fuzz test of the public
  API (only ``ValueError``/``TypeError`` may come out);

docs/rules.md §13 items 1-26 run on this engine through the ``engine`` fixture (tests/conftest.py).

The default run takes about a minute. ``--long`` multiplies every case count by 20; the
million-case differential run is ``bench/diff_long.py`` (see bench/RESULTS.md).
"""

import random
from collections import Counter
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guandan_fast import PASS, Move, Rules
from guandan_fast import movegen as fast
from guandan_fast import reference as ref
from guandan_fast.cards import CARD_CODES, FULL_DECK, RANKS, sort_cards
from guandan_fast.moves import cards_to_words
from guandan_fast.reference.combos import beats_unchecked, bomb_tier, readings
from helpers import LONG, compact_definition, wild_of

pytestmark = pytest.mark.reference
SCALE = 20 if LONG else 1
# The heaviest comparisons run half their cases by default (--long: 20 times the full count).
HALF = 20 if LONG else 0.5

ALL_RULES = [Rules(), Rules(sf_as_straight=False), Rules(fullhouse_joker_pair=False),
             Rules(sf_as_straight=False, fullhouse_joker_pair=False)]


def deal(rng, n, level, wilds, ranks=None):
    """n cards holding exactly ``wilds`` wilds; ``ranks`` (a subset of RANKS) concentrates the
    hand on a few ranks, which makes bombs, full houses and runs frequent."""
    w = wild_of(level)
    pool = [c for c in FULL_DECK if c != w and (ranks is None or c in ("SB", "HR") or c[1] in ranks)]
    rng.shuffle(pool)
    return pool[:n - wilds] + [w] * wilds


def as_set(moves):
    out = set(moves)
    assert len(out) == len(moves), "a move is listed twice"
    return out


def words_set(ml):
    return {(int(lo), int(hi)) for lo, hi in ml.array}


# A pool of plays to follow, by (type, bomb tier), drawn from the reference's readings of
# random hands, so that every type and every rung of the bomb ladder gets followed.
def _last_pool():
    rng = random.Random(99)
    pool = {}
    for i in range(40):
        level = 2 + i % 13
        hand = deal(rng, 27, level, i % 3, ranks=None if i % 2 else rng.sample(RANKS, 7))
        for m in fast.legal_moves(hand, level):
            pool.setdefault((level, m.type, bomb_tier(m)), []).append(m)
    # every bomb size (10-card bombs are rare in random hands) and the four-joker bomb
    for level in range(2, 15):
        for r in RANKS:
            natural = [s + r for s in "SHCD" for _ in range(2) if s + r != wild_of(level)]
            cards = natural + [wild_of(level)] * 2
            for n in range(4, len(cards) + 1):
                m = Move("Bomb", r, cards[:n])
                pool.setdefault((level, "Bomb", bomb_tier(m)), []).append(m)
        pool[(level, "Bomb", 9)] = [Move("Bomb", "JOKER", "SB SB HR HR")]
    return pool


LAST_POOL = _last_pool()
CLASSES = sorted({(t, tier) for (_, t, tier) in LAST_POOL})


def random_last(rng, level, rules=Rules()):
    """A play to follow: a random (type, tier) class, then a random move of it that is a
    reading under ``rules`` (the pool is built under the default rules)."""
    choices = [c for c in CLASSES if (level,) + c in LAST_POOL]
    while True:
        t, tier = rng.choice(choices)
        m = rng.choice(LAST_POOL[(level, t, tier)])
        if m in readings(m.cards, level, rules.sf_as_straight, rules.fullhouse_joker_pair):
            return m


def test_last_pool_covers_every_type_and_tier():
    assert {t for t, _ in CLASSES} == {"Single", "Pair", "Trips", "ThreeWithTwo", "Straight",
                                       "ThreePair", "TwoTrips", "Bomb", "StraightFlush"}
    assert {tier for t, tier in CLASSES if t in ("Bomb", "StraightFlush")} == set(range(1, 10))


# -- differential: fast == reference -----------------------------------------------------------

@pytest.mark.parametrize("wilds", [0, 1, 2])
def test_leads_27_cards(wilds):
    rng = random.Random(1000 + wilds)
    for i in range(26 * SCALE if LONG else 13):     # 13: every level once
        level = 2 + i % 13
        hand = deal(rng, 27, level, wilds)
        rules = ALL_RULES[i % 4] if i % 3 == 0 else Rules()
        got = fast.legal_moves(hand, level, rules=rules)
        want = ref.legal_moves(hand, level, rules=rules)
        assert as_set(got) == set(want), (hand, level, rules)
        assert fast.count_moves(hand, level, rules=rules) == len(want)


def test_follows_27_cards():
    """Follows of every type and bomb tier on 27-card hands (the reference's own follow path)."""
    rng = random.Random(2000)
    for i in range(int(400 * HALF) if LONG else 100):   # 100: every level, type and tier
        level = 2 + i % 13
        hand = deal(rng, 27, level, i % 3, ranks=None if i % 4 else rng.sample(RANKS, 8))
        rules = ALL_RULES[i % 4]
        last = random_last(rng, level, rules)
        got = fast.legal_moves(hand, level, last, rules)
        want = ref.legal_moves(hand, level, last, rules)
        assert as_set(got) == set(want), (hand, level, last, rules)
        assert got[-1] == PASS


def test_leads_and_follows_cached_27_cards():
    """Many follows per hand: the reference's lead list filtered by the reference ``beats``."""
    rng = random.Random(2500)
    n, hands = 0, 26 * SCALE if LONG else 13
    for i in range(hands):
        level = 2 + i % 13
        hand = deal(rng, 27, level, i % 3, ranks=None if i % 2 else rng.sample(RANKS, 9))
        rules = ALL_RULES[i % 4]
        lead = ref.legal_moves(hand, level, rules=rules)
        h = fast.Hand(hand)
        assert as_set(h.legal_moves(level, rules=rules)) == set(lead)
        for _ in range(60):
            last = random_last(rng, level, rules)
            want = {m for m in lead if beats_unchecked(m, last, level)} | {PASS}
            assert as_set(h.legal_moves(level, last, rules)) == want, (hand, level, last)
            n += 1
    assert n == hands * 60


def test_small_hands_leads_and_follows():
    rng = random.Random(3000)
    for i in range(600 * SCALE):
        level = 2 + i % 13
        size = rng.randint(1, 18)
        hand = deal(rng, size, level, min(size, i % 3), ranks=rng.sample(RANKS, rng.randint(3, 13)))
        rules = ALL_RULES[i % 4]
        last = random_last(rng, level, rules) if i % 2 else None
        got = fast.legal_moves(hand, level, last, rules)
        want = ref.legal_moves(hand, level, last, rules)
        assert as_set(got) == set(want), (hand, level, last, rules)


# -- can_follow: the forced-pass test without a move list --------------------------------------

def test_can_follow_is_the_generators_answer():
    """``can_follow`` (per-rank counts, no list) against the generator's follow list, on the
    hands where it decides most: small ones (end of a hand), few ranks (bombs, runs, full
    houses), every wild count, jokers, under every rule set. Both answers occur often."""
    rng = random.Random(4500)
    seen = Counter()
    for i in range(3000 * SCALE):
        level = 2 + i % 13
        size = rng.choice((1, 2, 3, 4, 5, 6, 8, 10, 14, 20, 27))
        ranks = None if i % 3 == 0 else rng.sample(RANKS, rng.randint(2, 8))
        hand = deal(rng, size, level, min(size, i % 3), ranks=ranks)
        if i % 7 == 0:                       # jokers: the pairs, the joker bomb
            jokers = ["SB", "SB", "HR", "HR"] if i % 14 == 0 else \
                rng.choice((["SB", "SB"], ["HR", "HR"], ["SB", "HR"]))
            rest = [c for c in hand if c not in ("SB", "HR")]
            hand = rest[:max(0, size - len(jokers))] + jokers
        rules = ALL_RULES[i % 4]
        last = random_last(rng, level, rules)
        want = fast.count_moves(hand, level, last, rules) > 1
        assert fast.can_follow(hand, level, last, rules) == want, (hand, level, last, rules)
        assert (fast.count_moves(hand, level, last, rules, compact=True) > 1) == want
        seen[want, last.type] += 1
    for t in ("Single", "Pair", "Trips", "ThreeWithTwo", "Straight", "ThreePair", "TwoTrips",
              "Bomb", "StraightFlush"):
        assert seen[True, t] >= 5 and seen[False, t] >= 5, (t, seen)


def test_can_follow_edge_cases():
    seven = Rules()
    # a level triple with the two wilds as its pair (edge case 42) beats a lower full house
    assert fast.can_follow("S7 C7 D7 H7 H7", 7, Move("ThreeWithTwo", "5", "S5 C5 D5 S3 C3"))
    # without the wilds the triple has no pair
    assert not fast.can_follow("S7 C7 D7 S9", 7, Move("ThreeWithTwo", "5", "S5 C5 D5 S3 C3"))
    # one suit only: a straight flush (a bomb), which also beats the straight
    assert fast.can_follow("S3 S4 S5 S6 S7", 2, Move("Straight", "2", "S2 C3 D4 H5 S6"))
    hand, last = "S3 S4 S5 S6 C8", Move("Straight", "2", "S2 C3 D4 H5 S6")
    assert not fast.can_follow(hand, 2, last)          # no 7: no straight above 2
    assert fast.can_follow("S3 S4 S5 S6 C7", 2, last)
    # joker pairs in a full house only under fullhouse_joker_pair
    fh = Move("ThreeWithTwo", "5", "S5 C5 D5 S3 C3")
    assert fast.can_follow("S9 C9 D9 SB SB", 2, fh, seven)
    assert not fast.can_follow("S9 C9 D9 SB SB", 2, fh, Rules(fullhouse_joker_pair=False))
    # the joker bomb beats everything but itself
    assert fast.can_follow("SB SB HR HR", 2, Move("StraightFlush", "T", "ST SJ SQ SK SA"))
    with pytest.raises(ValueError):
        fast.can_follow("S3", 2, PASS)
    with pytest.raises(ValueError):
        fast.can_follow("S3", 2, None)


# -- exhaustive small hands: brute force over every sub-multiset -------------------------------

def brute_force(hand, level, rules):
    counts = sorted(Counter(hand).items())
    found = set()
    for take in product(*[range(c + 1) for _, c in counts]):
        cards = [code for (code, _), k in zip(counts, take) for _ in range(k)]
        if cards:
            found.update(ref.classify(cards, level, rules))
    return found


def test_exhaustive_small_hands():
    rng = random.Random(4000)
    for i in range(100 * SCALE):
        level = 2 + i % 13
        size = rng.randint(4, 12)
        hand = deal(rng, size, level, min(size, i % 3), ranks=rng.sample(RANKS, rng.randint(2, 6)))
        rules = ALL_RULES[i % 4]
        everything = brute_force(hand, level, rules)
        assert as_set(fast.legal_moves(hand, level, rules=rules)) == everything, (hand, level)
        for _ in range(5):
            last = random_last(rng, level, rules)
            want = {m for m in everything if ref.beats(m, last, level, rules)} | {PASS}
            assert as_set(fast.legal_moves(hand, level, last, rules)) == want


# -- compact mode against its definition ----------------------------------------------------------

def check_compact(hand, level, last, rules, complete):
    want = compact_definition(complete, hand, level)
    if last is not None:
        want.add(PASS)
    got = fast.legal_moves(hand, level, last, rules, compact=True)
    assert as_set(got) == want, (hand, level, last, rules)
    assert fast.count_moves(hand, level, last, rules, compact=True) == len(want)


def test_compact_against_definition_on_reference_lists():
    rng = random.Random(5000)
    for i in range(int(300 * HALF)):
        level = 2 + i % 13
        size = 27 if i % 10 == 0 else rng.randint(5, 16)
        hand = deal(rng, size, level, i % 3, ranks=rng.sample(RANKS, rng.randint(4, 13)))
        rules = ALL_RULES[i % 4]
        last = random_last(rng, level, rules) if i % 3 == 1 else None
        check_compact(hand, level, last, rules, ref.legal_moves(hand, level, last, rules))


def test_compact_against_definition_on_27_card_hands():
    """Many 27-card hands: the definition applied to the complete list (which the tests above
    check against the reference on the same kind of hands)."""
    rng = random.Random(5500)
    for i in range(int(400 * HALF) if LONG else 100):
        level = 2 + i % 13
        hand = deal(rng, 27, level, i % 3, ranks=None if i % 2 else rng.sample(RANKS, 9))
        rules = ALL_RULES[i % 4]
        last = random_last(rng, level, rules) if i % 2 else None
        complete = fast.legal_moves(hand, level, last, rules)
        check_compact(hand, level, last, rules, complete)


def test_compact_level_triple_takes_the_wild_pair_only_when_nothing_else_fits():
    # docs/rules.md edge case 42: the two wilds may be the pair of a natural level triple.
    def full_houses(hand):
        return {m for m in fast.legal_moves(hand, 7, compact=True) if m.type == "ThreeWithTwo"}
    assert full_houses("S7 C7 D7 H7 H7") == {Move("ThreeWithTwo", "7", "S7 C7 D7 H7 H7")}
    # A pair with fewer wilds wins: S3 + a wild, then S3 C3 with none.
    assert Move("ThreeWithTwo", "7", "S7 C7 D7 S3 H7") in full_houses("S7 C7 D7 H7 H7 S3")
    assert Move("ThreeWithTwo", "7", "S7 C7 D7 S3 C3") in full_houses("S7 C7 D7 H7 H7 S3 C3")


def test_compact_examples_by_hand():
    # Fewest wilds: the pair of 9s is S9 C9, not a 9 with the wild.
    assert set(fast.legal_moves("S9 C9 H7", 7, last=Move("Pair", "8", "S8 D8"), compact=True)) == {
        Move("Pair", "9", "S9 C9"), PASS}
    # S5 is in the spade straight flush S3-S7, C5 and D5 are not: the single 5 is C5 (then
    # suit order S H C D), the pair C5 D5; the triple needs S5 too.
    hand = "S3 S4 S5 C5 D5 S6 S7"
    moves = set(fast.legal_moves(hand, 2, compact=True))
    assert Move("Single", "5", "C5") in moves and Move("Single", "5", "S5") not in moves
    assert Move("Pair", "5", "C5 D5") in moves
    assert Move("Trips", "5", "S5 C5 D5") in moves
    # Straights keep the flush suit out where they can: 3-7 uses C5.
    assert Move("Straight", "3", "S3 S4 C5 S6 S7") in moves
    assert Move("StraightFlush", "3", "S3 S4 S5 S6 S7") in moves
    # Full house: the lowest pair by single order, natural before wild.
    moves = fast.legal_moves("S9 C9 D9 S3 C3 SK CK H2", 2, compact=True)
    fh = [m for m in moves if m.type == "ThreeWithTwo" and m.rank == "9"]
    assert fh == [Move("ThreeWithTwo", "9", "S9 C9 D9 S3 C3")]
    # One canonical move per bomb size.
    bombs = [m for m in fast.legal_moves("S8 S8 H8 C8 D8 H2 H2", 2, compact=True) if m.type == "Bomb"]
    assert sorted(len(b.cards) for b in bombs) == [4, 5, 6, 7]
    assert Move("Bomb", "8", "S8 S8 H8 C8") in bombs


# -- classify and beats ---------------------------------------------------------------------------

def test_classify_matches_reference():
    rng = random.Random(6000)
    for i in range(3000 * SCALE):
        level = 2 + i % 13
        rules = ALL_RULES[i % 4]
        if i % 2:
            # a real reading, possibly perturbed by one card
            m = random_last(rng, level)
            cards = list(m.cards)
            if i % 4 == 1:
                cards[rng.randrange(len(cards))] = rng.choice(CARD_CODES)
        else:
            cards = deal(rng, rng.randint(1, 10), level, i % 3, ranks=rng.sample(RANKS, 2))
        if max(Counter(cards).values()) > 2:
            continue
        got = fast.classify(cards, level, rules)
        assert got == ref.classify(cards, level, rules), (cards, level, rules)


def test_beats_matches_reference():
    rng = random.Random(7000)
    for i in range(5000 * SCALE):
        level = 2 + i % 13
        a, b = random_last(rng, level), random_last(rng, level)
        assert fast.beats(a, b, level) == ref.beats(a, b, level), (a, b, level)
    assert fast.beats(Move("Single", "3", "S3"), None, 2)
    assert fast.beats(Move("Single", "3", "S3"), PASS, 2)
    assert not fast.beats(PASS, None, 2)
    assert not fast.beats(PASS, Move("Single", "3", "S3"), 2)


def test_bomb_ladder_by_hand():
    lv = 9
    ladder = [Move("Bomb", "A", "SA CA DA DA"), Move("Bomb", "9", "S9 C9 D9 D9"),
              Move("Bomb", "2", "S2 C2 D2 D2 H9"), Move("StraightFlush", "A", "SA S2 S3 S4 S5"),
              Move("StraightFlush", "T", "ST SJ SQ SK SA"), Move("Bomb", "3", "S3 S3 C3 C3 D3 D3"),
              Move("Bomb", "3", "S3 S3 C3 C3 D3 D3 H3"), Move("Bomb", "3", "S3 S3 C3 C3 D3 D3 H3 H3"),
              Move("Bomb", "3", "S3 S3 C3 C3 D3 D3 H3 H3 H9"),
              Move("Bomb", "3", "S3 S3 C3 C3 D3 D3 H3 H3 H9 H9"), Move("Bomb", "JOKER", "SB SB HR HR")]
    for i, a in enumerate(ladder):
        for j, b in enumerate(ladder):
            assert fast.beats(a, b, lv) == (i > j), (a, b)


# -- MoveList and Hand -----------------------------------------------------------------------------

def test_movelist_sequence_behaviour():
    ml = fast.legal_moves("S9 C9 H7 SB", 7, last=Move("Single", "8", "S8"))
    moves = ml.to_list()
    assert len(ml) == len(moves) == 5  # S9, C9, H7, SB, PASS (H7 is a level card: 15 > 8)
    assert ml[-1] == PASS and ml[len(ml) - 1] == PASS and ml[-len(ml)] == moves[0]
    assert list(ml) == moves and list(reversed(ml)) == moves[::-1]
    assert ml[1:3] == moves[1:3]
    with pytest.raises(IndexError):
        ml[5]
    with pytest.raises(IndexError):
        ml[-6]
    with pytest.raises(TypeError):
        ml["0"]
    assert Move("Single", "9", "C9") in ml
    assert ["Single", "B", ["SB"]] in ml
    assert ["PASS", "PASS", "PASS"] in ml
    assert Move("Single", "7", "S7") not in ml
    assert ml.index(PASS) == 4 and ml.count(PASS) == 1
    with pytest.raises(ValueError):
        ml.index(Move("Single", "7", "S7"))
    assert "S9" not in ml and 5 not in ml  # like a list: anything else is simply absent
    arr = ml.array
    assert arr.shape == (5, 2) and arr.dtype == np.uint64
    assert [tuple(int(x) for x in row) for row in arr] == [m.words for m in moves]
    with pytest.raises(ValueError):
        arr[0, 0] = 1
    assert ml == moves and ml == list(reversed(moves)) and ml != moves[:-1]
    assert ml.sorted() == sorted(moves, key=Move.sort_key)
    from collections.abc import Sequence
    assert isinstance(ml, Sequence)
    empty = fast.legal_moves("", 2)
    assert len(empty) == 0 and empty.array.shape == (0, 2) and empty.to_list() == []


def test_hand_api():
    h = fast.Hand("HR d9 S9 ♠10")
    assert h.cards == ("S9", "D9", "ST", "HR") and len(h) == 4
    assert h.words == cards_to_words(h.cards)
    assert fast.Hand(h) == h and hash(fast.Hand(h)) == hash(h)
    import pickle
    assert pickle.loads(pickle.dumps(h)) == h
    assert set(h.legal_moves(9)) == set(ref.legal_moves(h.cards, 9))
    assert h.count_moves(9) == len(h.legal_moves(9))
    # cached rules, level and last change correctly between calls
    hand = "S8 C8 D8 H7 H7 S9 ST SJ SQ SK"
    h = fast.Hand(hand)
    for rules in ALL_RULES * 2:
        for level in (7, 8, 9):
            for last in (None, Move("Pair", "2", "S2 D2"), Move("Straight", "6", "S6 S7 S8 S9 CT")):
                assert set(h.legal_moves(level, last, rules)) == set(ref.legal_moves(hand, level, last, rules))
                assert h.count_moves(level, last, rules, compact=True) == len(
                    h.legal_moves(level, last, rules, compact=True))


def test_buffer_growth_on_huge_move_lists():
    # Far more moves than the Hand's first buffer holds (4096): it grows and stays exact.
    hand = "S5 S5 C5 C5 D5 D5 S6 S6 C6 C6 D6 D6 S7 S7 C7 C7 D7 D7 S8 S8 C8 C8 D8 D8 H2 H2 S9"
    h = fast.Hand(hand)
    n = h.count_moves(2)
    assert n > 4096
    ml = h.legal_moves(2)
    assert len(ml) == n == len(set(ml))
    assert len(fast.legal_moves(hand, 2)) == n


def test_moves_are_decoded_as_move_from_words():
    rng = random.Random(8000)
    for i in range(40):
        level = 2 + i % 13
        hand = deal(rng, 27, level, i % 3) + (["SB", "SB", "HR", "HR"] if i % 5 == 0 else [])
        for m in list(fast.legal_moves(hand[:27], level)) + [PASS]:
            want = Move.from_words(*m.words)
            assert type(m) is Move and hash(m) == hash(want)
            assert (m.type, m.rank, m.cards, m.words) == (want.type, want.rank, want.cards, want.words)
        for cards in ("SB SB HR HR", "SB", "HR HR", "SA S2 S3 S4 S5"):
            for m in fast.classify(cards, level):
                want = Move.from_words(*m.words)
                assert (m.type, m.rank, m.cards) == (want.type, want.rank, want.cards)


def test_hand_parsing_fast_path_agrees_with_parse_cards():
    from guandan_fast.cards import parse_cards
    for text in ("♥7 h7 S10, sb", "D9 D9 HR", ["S2", "s2"], ("HR",), iter(["CA", "DA"]), ""):
        if not isinstance(text, type(iter([]))):
            assert fast.Hand(text).cards == sort_cards(parse_cards(text))
    assert fast.Hand(iter(["CA", "DA"])).cards == ("CA", "DA")
    for bad in ("S2 S2 S2", ["S2", "S2", "s2"], "X9", ["S2", 5]):
        with pytest.raises((ValueError, TypeError)):
            fast.Hand(bad)


def test_whole_deck_as_one_hand():
    """Far beyond 27 cards (132,162 moves at level 7): no overflow, every move sampled is a
    reading of its cards (reference), and compact mode has one move per group."""
    ml = fast.legal_moves(FULL_DECK, 7)
    assert len(ml) == fast.count_moves(FULL_DECK, 7) == len(set(map(tuple, ml.array.tolist())))
    rng = random.Random(9)
    for i in rng.sample(range(len(ml)), 200):
        m = ml[i]
        assert m in ref.classify(m.cards, 7)
    compact = fast.legal_moves(FULL_DECK, 7, compact=True)
    assert set(compact) == compact_definition(ml.to_list(), list(FULL_DECK), 7)


# -- input checking ------------------------------------------------------------------------------

def test_bad_input_raises_specific_errors():
    with pytest.raises(ValueError, match="unknown card code"):
        fast.legal_moves("S1", 2)
    with pytest.raises(ValueError, match="appears 3 times"):
        fast.Hand("S2 S2 S2")
    with pytest.raises(TypeError):
        fast.legal_moves(5, 2)
    with pytest.raises(ValueError, match="level"):
        fast.legal_moves("S2", 15)
    with pytest.raises(TypeError):
        fast.legal_moves("S2", True)
    with pytest.raises(TypeError, match="Rules"):
        fast.legal_moves("S2", 2, rules={"sf_as_straight": False})
    with pytest.raises(ValueError, match="do not make Pair 9"):
        fast.legal_moves("S2", 2, last=Move("Pair", "9", "S9 D8"))
    with pytest.raises(ValueError, match="do not make Pair 9"):
        fast.Hand("S2").legal_moves(7, last=Move("Pair", "9", "H7 SB"))
    with pytest.raises(ValueError, match="do not make ThreeWithTwo"):
        fast.legal_moves("S2", 2, last=Move("ThreeWithTwo", "3", "S3 C3 D3 SB SB"),
                         rules=Rules(fullhouse_joker_pair=False))
    with pytest.raises(ValueError, match="do not make Straight"):
        fast.legal_moves("S2", 2, last=Move("Straight", "3", "S3 S4 S5 S6 S7"),
                         rules=Rules(sf_as_straight=False))
    with pytest.raises(ValueError, match="tribute"):
        fast.legal_moves("S2", 2, last=Move("tribute", "tribute", "S3"))
    with pytest.raises(TypeError):
        fast.legal_moves("S2", 2, last="Single 3 S3")
    with pytest.raises(ValueError):
        fast.legal_moves("S2", 2, last=["Single", "3"])
    with pytest.raises(ValueError):
        fast.legal_moves("S2", 2, last=["Single", "3", "S3"])
    with pytest.raises(ValueError):
        fast.beats(Move("Single", "4", "S3"), None, 2)
    # the same Move object is checked again under another level (H7 is wild only at 7)
    h = fast.Hand("S2 S3 ST ST")
    last = Move("Pair", "9", "H7 D9")
    assert set(h.legal_moves(7, last)) == {Move("Pair", "T", "ST ST"), PASS}
    with pytest.raises(ValueError, match="do not make Pair 9"):
        h.legal_moves(8, last)
    assert len(h.legal_moves(7, last)) == 2
    # a platform list passed again after a change is read again
    h = fast.Hand("S9 ST")
    last = ["Single", "8", ["S8"]]
    assert len(h.legal_moves(2, last)) == 3
    last[1:] = ["T", ["DT"]]
    assert len(h.legal_moves(2, last)) == 1
    # PASS as last is a lead
    assert set(fast.legal_moves("S2 S3", 2, last=PASS)) == set(fast.legal_moves("S2 S3", 2))
    assert set(fast.legal_moves("S2 S3", 2, last=["PASS", "PASS", "PASS"])) == set(
        fast.legal_moves("S2 S3", 2))


# -- fuzz ------------------------------------------------------------------------------------------

_TOKENS = list(CARD_CODES) + ["", " ", "S1", "10", "h7", "♥7", "X", "SBB", ",", "HR", "JOKER"]


@settings(max_examples=300, deadline=None)
@given(hand=st.one_of(st.text(max_size=40),
                      st.lists(st.sampled_from(_TOKENS), max_size=30),
                      st.lists(st.one_of(st.integers(), st.none(), st.text(max_size=3)), max_size=5)),
       level=st.one_of(st.integers(-3, 20), st.sampled_from(list(RANKS) + ["10", "x", ""]),
                       st.none(), st.booleans()),
       last=st.one_of(st.none(), st.text(max_size=10),
                      st.lists(st.one_of(st.text(max_size=6),
                                         st.lists(st.sampled_from(_TOKENS), max_size=6)),
                               max_size=4),
                      st.tuples(st.sampled_from(["Single", "Pair", "Trips", "ThreeWithTwo",
                                                 "Straight", "ThreePair", "TwoTrips", "Bomb",
                                                 "StraightFlush", "PASS", "tribute", "bogus"]),
                                st.sampled_from(list(RANKS) + ["B", "R", "JOKER", "PASS", "Z"]),
                                st.lists(st.sampled_from(list(CARD_CODES)), max_size=10))),
       compact=st.booleans())
def test_fuzz_public_api(hand, level, last, compact):
    calls = [
        lambda: fast.legal_moves(hand, level, last, compact=compact),
        lambda: fast.count_moves(hand, level, last, compact=compact),
        lambda: fast.Hand(hand).legal_moves(level, last, compact=compact),
        lambda: fast.classify(hand, level),
        lambda: fast.beats(last, None, level),
        lambda: fast.beats(last, last, level),
    ]
    for call in calls:
        try:
            call()
        except (ValueError, TypeError):
            pass

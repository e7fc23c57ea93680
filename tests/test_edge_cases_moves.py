"""docs/rules.md §13 items 1-26 (order, pairs and triples, full houses, straights, pair runs,
plates and bombs), one test per item, run against every move engine of ``conftest.py``.

Every expectation here is written by hand from docs/rules.md; nothing is taken from an engine's
output. Only ``engine.classify``, ``engine.beats``, ``engine.legal_moves`` and ``Move`` values
are used, so the compiled engine can be checked with the same tests.
"""

from guandan_fast import PASS, Move, Rules
from helpers import M, readings


def equal_keys(engine, a, b, level):
    """Neither beats the other (docs/rules.md §5: equal keys never beat)."""
    return not engine.beats(a, b, level) and not engine.beats(b, a, level)


def strictly_above(engine, high, low, level):
    return engine.beats(high, low, level) and not engine.beats(low, high, level)


# -- order and singles -------------------------------------------------------------------------

def test_13_01_level_card_and_joker_singles(engine):
    s7, h7 = M("Single", "7", "S7"), M("Single", "7", "H7")
    sa, sb, hr = M("Single", "A", "SA"), M("Single", "B", "SB"), M("Single", "R", "HR")
    assert strictly_above(engine, s7, sa, 7)
    assert equal_keys(engine, s7, h7, 7)
    assert strictly_above(engine, sb, s7, 7)
    assert strictly_above(engine, sb, h7, 7)
    assert strictly_above(engine, hr, sb, 7)
    # Following S7: only the jokers are higher singles; the other 7 and the ace are not.
    assert engine.legal_moves("SA H7 SB HR", 7, last=s7) == sorted([PASS, sb, hr], key=Move.sort_key)


def test_13_02_level_two_is_high_single_but_natural_in_sequences(engine):
    assert strictly_above(engine, M("Single", "2", "D2"), M("Single", "A", "SA"), 2)
    assert readings(engine, "SA D2 C3 S4 D5", 2) == {M("Straight", "A", "SA D2 C3 S4 D5")}
    assert readings(engine, "D2 C3 S4 D5 C6", 2) == {M("Straight", "2", "D2 C3 S4 D5 C6")}
    assert readings(engine, "SA CA D2 C2 S3 C3", 2) == {M("ThreePair", "A", "SA CA D2 C2 S3 C3")}
    assert readings(engine, "SA CA DA S2 C2 D2", 2) == {M("TwoTrips", "A", "SA CA DA S2 C2 D2")}
    # 2 is not lifted above the ace in sequences: no K-A-2 wrap.
    assert readings(engine, "SQ CK DA S2 C3", 2) == set()


def test_13_03_level_ace(engine):
    assert strictly_above(engine, M("Single", "A", "SA"), M("Single", "K", "SK"), 14)
    assert readings(engine, "SA D2 C3 S4 D5", "A") == {M("Straight", "A", "SA D2 C3 S4 D5")}
    assert readings(engine, "ST DJ CQ SK DA", "A") == {M("Straight", "T", "ST DJ CQ SK DA")}
    # HA is the wild: with D9 it is a pair of 9s; alone it is a level-card single.
    assert readings(engine, "HA D9", "A") == {M("Pair", "9", "HA D9")}
    assert readings(engine, "HA", "A") == {M("Single", "A", "HA")}
    # As a wild in a run it can be the ace (A2345) or the six (23456), taking the clubs suit.
    cards = "HA C2 C3 C4 C5"
    assert readings(engine, cards, "A") == {
        M("Straight", "A", cards), M("Straight", "2", cards),
        M("StraightFlush", "A", cards), M("StraightFlush", "2", cards)}


# -- pairs and triples -------------------------------------------------------------------------

def test_13_04_two_wilds_are_a_level_pair(engine):
    wilds = M("Pair", "7", "H7 H7")
    assert readings(engine, "H7 H7", 7) == {wilds}
    assert equal_keys(engine, wilds, M("Pair", "7", "S7 C7"), 7)
    assert strictly_above(engine, M("Pair", "B", "SB SB"), wilds, 7)
    assert strictly_above(engine, wilds, M("Pair", "A", "SA DA"), 7)


def test_13_05_wild_pairs_and_joker_pairs(engine):
    assert readings(engine, "H7 D9", 7) == {M("Pair", "9", "H7 D9")}
    assert readings(engine, "H7 SB", 7) == set()
    assert readings(engine, "H7 HR", 7) == set()
    assert readings(engine, "SB HR", 7) == set()
    assert strictly_above(engine, M("Pair", "R", "HR HR"), M("Pair", "B", "SB SB"), 7)


def test_13_06_wild_triples_are_not_bombs_and_no_joker_triples(engine):
    assert readings(engine, "D9 H7 H7", 7) == {M("Trips", "9", "D9 H7 H7")}
    assert readings(engine, "SB SB HR", 7) == set()
    assert readings(engine, "SB HR HR", 7) == set()
    assert readings(engine, "SB SB H7", 7) == set()


# -- full houses -------------------------------------------------------------------------------

def test_13_07_full_house_compares_the_triple_only(engine):
    low_pair = M("ThreeWithTwo", "9", "S9 C9 D9 S3 C3")
    high_pair = M("ThreeWithTwo", "9", "S9 C9 D9 SK CK")
    assert equal_keys(engine, low_pair, high_pair, 2)
    # At level 5 the triple of level cards is above a triple of aces.
    assert strictly_above(engine, M("ThreeWithTwo", "5", "S5 C5 D5 S2 C2"),
                          M("ThreeWithTwo", "A", "SA CA DA SK CK"), 5)


def test_13_08_joker_pair_in_full_house(engine):
    fh = M("ThreeWithTwo", "3", "S3 C3 D3 HR HR")
    assert readings(engine, "S3 C3 D3 HR HR", 7) == {fh}
    assert readings(engine, "S3 C3 D3 SB SB", 7) == {M("ThreeWithTwo", "3", "S3 C3 D3 SB SB")}
    assert readings(engine, "S3 C3 D3 SB HR", 7) == set()
    # Its key is the triple: it beats 222+AA at level 5 and loses to 444+22.
    assert strictly_above(engine, fh, M("ThreeWithTwo", "2", "S2 C2 D2 SA CA"), 5)
    assert strictly_above(engine, M("ThreeWithTwo", "4", "S4 C4 D4 S2 C2"), fh, 5)
    # The switch off: no joker pair.
    assert readings(engine, "S3 C3 D3 HR HR", 7, Rules(fullhouse_joker_pair=False)) == set()


def test_13_09_full_house_two_readings(engine):
    cards = "S8 C8 H7 DJ HJ"
    assert readings(engine, cards, 7) == {M("ThreeWithTwo", "8", cards),
                                          M("ThreeWithTwo", "J", cards)}


def test_13_10_bomb_and_full_house_with_two_wilds(engine):
    cards = "S8 C8 D8 H7 H7"
    assert readings(engine, cards, 7) == {M("Bomb", "8", cards), M("ThreeWithTwo", "8", cards)}


def test_13_11_five_natural_of_a_rank_are_a_bomb_only(engine):
    assert readings(engine, "S8 S8 C8 C8 D8", 2) == {M("Bomb", "8", "S8 S8 C8 C8 D8")}
    assert readings(engine, "S7 S7 C7 C7 D7", 7) == {M("Bomb", "7", "S7 S7 C7 C7 D7")}


def test_13_42_level_triple_takes_both_wilds_as_its_pair(engine):
    # docs/rules.md edge case 42 (revised): the two wilds stand for a pair of another rank.
    cards = "S7 C7 D7 H7 H7"
    fh = M("ThreeWithTwo", "7", cards)
    assert readings(engine, cards, 7) == {M("Bomb", "7", cards), fh}
    assert readings(engine, "SA CA DA HA HA", "A") == {M("Bomb", "A", "SA CA DA HA HA"),
                                                       M("ThreeWithTwo", "A", "SA CA DA HA HA")}
    # Generated on lead and as a follow of a lower full house; its key is the level card's.
    assert fh in engine.legal_moves("S7 C7 D7 H7 H7 S3", 7)
    assert fh in engine.legal_moves(cards, 7, last=M("ThreeWithTwo", "A", "SA CA DA S2 C2"))
    assert strictly_above(engine, fh, M("ThreeWithTwo", "A", "SA CA DA S2 C2"), 7)
    # One wild is not enough: four level cards and a wild make no full house.
    assert M("ThreeWithTwo", "7", "S7 S7 C7 D7 H7") not in engine.legal_moves(
        "S7 S7 C7 D7 H7", 7)


# -- straights and straight flushes ------------------------------------------------------------

def test_13_12_straight_range(engine):
    a2345 = M("Straight", "A", "SA D2 C3 S4 D5")
    s23456 = M("Straight", "2", "S2 D3 C4 S5 D6")
    s9tjqk = M("Straight", "9", "S9 DT CJ SQ DK")
    tjqka = M("Straight", "T", "ST DJ CQ SK DA")
    assert strictly_above(engine, s23456, a2345, 7)
    assert strictly_above(engine, tjqka, s9tjqk, 7)
    # Nothing non-bomb follows TJQKA, even with a hand full of straights.
    assert engine.legal_moves("ST DJ CQ SK DA S9", 7, last=tjqka) == [PASS]
    assert readings(engine, "SJ DQ CK SA C2", 7) == set()
    assert readings(engine, "SK DA C2 S3 D4", 7) == set()
    assert readings(engine, "S3 D4 C5 S6 D7 C8", 2) == set()
    assert readings(engine, "S3 D4 C5 S6", 2) == set()


def test_13_13_natural_level_card_in_a_straight(engine):
    low = M("Straight", "3", "S3 D4 C5 S6 D7")
    assert readings(engine, "S3 D4 C5 S6 D7", 5) == {low}
    assert strictly_above(engine, M("Straight", "4", "S4 C5 D6 S7 D8"), low, 5)


def test_13_14_wild_makes_two_straights(engine):
    assert readings(engine, "SA D2 C3 H9 S5", 9) == {M("Straight", "A", "SA D2 C3 H9 S5")}
    cards = "H9 D2 C3 S4 S5"
    assert readings(engine, cards, 9) == {M("Straight", "A", cards), M("Straight", "2", cards)}


def test_13_15_equal_lowest_rank_never_beats(engine):
    plain = M("Straight", "5", "S5 C6 D7 S8 C9")
    with_wild = M("Straight", "5", "D5 H2 C7 D8 D9")  # level 2: H2 is the six
    assert equal_keys(engine, plain, with_wild, 2)
    spades = M("StraightFlush", "5", "S5 S6 S7 S8 S9")
    hearts = M("StraightFlush", "5", "H5 H6 H7 H8 H9")
    assert equal_keys(engine, spades, hearts, 3)
    assert engine.legal_moves("H5 H6 H7 H8 H9", 3, last=spades) == [PASS]


def test_13_16_straight_flush_order_and_level_card(engine):
    low = M("StraightFlush", "A", "SA S2 S3 S4 S5")
    assert strictly_above(engine, M("StraightFlush", "2", "S2 S3 S4 S5 S6"), low, 7)
    cards = "C3 C4 C5 C6 C7"
    assert M("StraightFlush", "3", cards) in readings(engine, cards, 5)


def test_13_17_wild_in_a_straight_flush(engine):
    cards = "S9 H7 SJ SQ SK"
    assert readings(engine, cards, 7) == {M("StraightFlush", "9", cards),
                                          M("Straight", "9", cards)}
    assert readings(engine, cards, 7, Rules(sf_as_straight=False)) == {
        M("StraightFlush", "9", cards)}


def test_13_18_straight_flush_follows_as_plain_straight(engine):
    last = M("Straight", "3", "S3 C4 D5 S6 C7")
    hand = "S4 S5 S6 S7 S8"
    assert engine.legal_moves(hand, 2, last=last) == sorted(
        [PASS, M("Straight", "4", hand), M("StraightFlush", "4", hand)], key=Move.sort_key)
    assert engine.legal_moves(hand, 2, last=last, rules=Rules(sf_as_straight=False)) == [
        PASS, M("StraightFlush", "4", hand)]


def test_13_19_straight_flush_between_five_and_six_card_bombs(engine):
    sf = M("StraightFlush", "2", "S2 S3 S4 S5 S6")
    level_bomb5 = M("Bomb", "9", "S9 S9 C9 D9 D9")
    assert strictly_above(engine, sf, level_bomb5, 9)
    top_sf = M("StraightFlush", "T", "ST SJ SQ SK SA")
    assert strictly_above(engine, M("Bomb", "2", "S2 S2 C2 C2 D2 D2"), top_sf, 9)


# -- pair runs and plates ----------------------------------------------------------------------

def test_13_20_pair_run_and_plate_windows(engine):
    assert readings(engine, "SA CA S2 C2 S3 C3", 9) == {M("ThreePair", "A", "SA CA S2 C2 S3 C3")}
    assert readings(engine, "SQ CQ SK CK SA CA", 9) == {M("ThreePair", "Q", "SQ CQ SK CK SA CA")}
    assert strictly_above(engine, M("ThreePair", "Q", "SQ CQ SK CK SA CA"),
                          M("ThreePair", "J", "SJ CJ SQ CQ SK CK"), 9)
    assert strictly_above(engine, M("ThreePair", "2", "S2 C2 S3 C3 S4 C4"),
                          M("ThreePair", "A", "SA CA S2 C2 S3 C3"), 9)
    assert readings(engine, "SK CK SA CA S2 C2", 9) == set()
    assert readings(engine, "SA CA DA S2 C2 D2", 9) == {M("TwoTrips", "A", "SA CA DA S2 C2 D2")}
    assert readings(engine, "SK CK DK SA CA DA", 9) == {M("TwoTrips", "K", "SK CK DK SA CA DA")}
    assert readings(engine, "SK CK DK SA CA DA S2 C2 D2", 9) == set()
    assert readings(engine, "S3 C3 S4 C4 S5 C5 S6 C6", 9) == set()


def test_13_21_pair_runs_with_level_cards_and_wilds(engine):
    cards = "S6 C6 S7 C7 S8 C8"
    assert readings(engine, cards, 7) == {M("ThreePair", "6", cards)}
    cards = "S3 C3 H7 H7 S5 C5"
    assert readings(engine, cards, 7) == {M("ThreePair", "3", cards)}


# -- bombs -------------------------------------------------------------------------------------

def test_13_22_bomb_ladder(engine):
    ladder = [  # level 9, low to high
        M("Bomb", "3", "S3 S3 C3 D3"),
        M("Bomb", "A", "SA SA CA DA"),
        M("Bomb", "9", "S9 S9 C9 D9"),  # level rank: top of the 4-card rung
        M("Bomb", "2", "S2 S2 C2 C2 D2"),
        M("Bomb", "9", "S9 S9 C9 D9 D9"),
        M("StraightFlush", "A", "DA D2 D3 D4 D5"),
        M("StraightFlush", "T", "ST SJ SQ SK SA"),
        M("Bomb", "2", "S2 S2 C2 C2 D2 D2"),
        M("Bomb", "2", "S2 S2 C2 C2 D2 D2 H2"),
        M("Bomb", "2", "S2 S2 C2 C2 D2 D2 H2 H2"),
        M("Bomb", "2", "S2 S2 C2 C2 D2 D2 H2 H2 H9"),
        M("Bomb", "2", "S2 S2 C2 C2 D2 D2 H2 H2 H9 H9"),
        M("Bomb", "JOKER", "SB SB HR HR"),
    ]
    for i, low in enumerate(ladder):
        for high in ladder[i + 1:]:
            assert strictly_above(engine, high, low, 9), (high, low)


def test_13_23_wild_bombs(engine):
    assert readings(engine, "S9 C9 H7 H7", 7) == {M("Bomb", "9", "S9 C9 H7 H7")}
    ten = "S6 S6 H6 H6 C6 C6 D6 D6 H7 H7"
    assert readings(engine, ten, 7) == {M("Bomb", "6", ten)}
    assert strictly_above(engine, M("Bomb", "6", ten), M("Bomb", "A", "SA SA HA HA CA CA DA DA H7"), 7)
    # The level rank stops at 8 cards: there are only 8 level cards, the wilds included.
    assert readings(engine, "S7 S7 H7 H7 C7 C7 D7 D7", 7) == {M("Bomb", "7", "S7 S7 H7 H7 C7 C7 D7 D7")}


def test_13_24_wilds_do_not_change_a_bomb(engine):
    assert equal_keys(engine, M("Bomb", "9", "S9 C9 D9 D9"), M("Bomb", "9", "S9 C9 D9 H7"), 7)
    assert equal_keys(engine, M("Bomb", "9", "S9 C9 D9 D9 S9"), M("Bomb", "9", "S9 C9 D9 H7 H7"), 7)


def test_13_25_four_jokers(engine):
    jokers = M("Bomb", "JOKER", "SB SB HR HR")
    ten = M("Bomb", "A", "SA SA HA HA CA CA DA DA H7 H7")
    assert strictly_above(engine, jokers, ten, 7)
    assert readings(engine, "SB SB HR HR", 7) == {jokers}
    assert readings(engine, "SB HR HR H7", 7) == set()
    assert readings(engine, "SB SB HR", 7) == set()


def test_13_26_bombs_against_non_bombs(engine):
    bomb4 = M("Bomb", "3", "S3 S3 C3 D3")
    sf = M("StraightFlush", "A", "SA S2 S3 S4 S5")
    assert strictly_above(engine, sf, bomb4, 7)
    non_bombs = [
        M("Single", "R", "HR"), M("Pair", "R", "HR HR"), M("Trips", "7", "S7 C7 D7"),
        M("ThreeWithTwo", "A", "SA CA DA HR HR"), M("Straight", "T", "ST DJ CQ SK DA"),
        M("ThreePair", "Q", "SQ CQ SK CK SA CA"), M("TwoTrips", "K", "SK CK DK SA CA DA"),
    ]
    for m in non_bombs:
        assert strictly_above(engine, bomb4, m, 7), m
        assert strictly_above(engine, sf, m, 7), m
    # Following a top pair with a 4-card bomb and a straight flush in hand: both bombs offered.
    assert engine.legal_moves("S3 S3 C3 D3 SA S2 S4 S5", 7, last=M("Pair", "R", "HR HR")) == [
        PASS, bomb4, sf]

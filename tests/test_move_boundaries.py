"""Rules audit of move reading and beating (docs/rules.md §2-6 and the §12 move switches) at the
boundaries the §13 list touches only lightly: levels A, 10 and 2, wild-only groups, natural
level cards inside full houses and runs, joker pairs in full houses with the switch off,
``sf_as_straight`` off on follow, bombs of the level rank against the ladder.

Every expectation is written by hand from docs/rules.md and docs/rules.md §14 (the reasoning is in
the comments); nothing is copied from an engine's output. Only ``engine.classify``,
``engine.beats``, ``engine.legal_moves`` and ``Move`` values are used, so every move engine of
``tests/conftest.py`` runs these tests. Runtime: well under a second.
"""

from guandan_fast import PASS, Move, Rules
from helpers import M, readings

OFF_JOKER_PAIR = Rules(fullhouse_joker_pair=False)
OFF_SF_STRAIGHT = Rules(sf_as_straight=False)


def above(engine, high, low, level, rules=Rules()):
    """``high`` beats ``low`` and not the other way round."""
    return engine.beats(high, low, level, rules) and not engine.beats(low, high, level, rules)


def tie(engine, a, b, level):
    """Equal keys: neither beats the other."""
    return not engine.beats(a, b, level) and not engine.beats(b, a, level)


def ordered(moves):
    return sorted(moves, key=Move.sort_key)


# -- level A: the ace is a level card (15) in the single order, 1 or 14 in sequences -----------

def test_level_ace_single_order_and_bombs(engine):
    sa, ha, sk = M("Single", "A", "SA"), M("Single", "A", "HA"), M("Single", "K", "SK")
    assert above(engine, sa, sk, "A")
    assert tie(engine, sa, ha, "A")  # HA is the wild, alone a level-card single
    assert above(engine, M("Single", "B", "SB"), sa, "A")
    # Pairs: two wilds are a pair of level cards, equal to a natural pair of aces.
    assert readings(engine, "HA HA", "A") == {M("Pair", "A", "HA HA")}
    assert tie(engine, M("Pair", "A", "HA HA"), M("Pair", "A", "SA CA"), "A")
    assert above(engine, M("Pair", "A", "SA CA"), M("Pair", "K", "SK CK"), "A")
    # 4-card rung: the level rank on top; any 5-card bomb above it.
    aces4 = M("Bomb", "A", "SA CA DA DA")
    assert above(engine, aces4, M("Bomb", "K", "SK SK CK DK"), "A")
    assert above(engine, M("Bomb", "2", "S2 S2 C2 C2 D2"), aces4, "A")
    # 8 level cards (6 natural + the 2 wilds): top of the 8-card rung, below any 9-card bomb.
    aces8 = M("Bomb", "A", "SA SA CA CA DA DA HA HA")
    assert readings(engine, "SA SA CA CA DA DA HA HA", "A") == {aces8}
    assert above(engine, aces8, M("Bomb", "K", "SK SK HK HK CK CK DK DK"), "A")
    assert above(engine, M("Bomb", "3", "S3 S3 H3 H3 C3 C3 D3 D3 HA"), aces8, "A")


def test_level_ace_sequences_keep_the_ace_at_both_ends(engine):
    low_pairs = M("ThreePair", "A", "SA CA S2 C2 S3 C3")
    assert readings(engine, "SA CA S2 C2 S3 C3", "A") == {low_pairs}
    assert above(engine, M("ThreePair", "2", "S2 C2 S3 C3 S4 C4"), low_pairs, "A")
    assert readings(engine, "SQ CQ SK CK SA CA", "A") == {M("ThreePair", "Q", "SQ CQ SK CK SA CA")}
    low_plate = M("TwoTrips", "A", "SA CA DA S2 C2 D2")
    high_plate = M("TwoTrips", "K", "SK CK DK SA CA DA")
    assert readings(engine, "SA CA DA S2 C2 D2", "A") == {low_plate}
    assert readings(engine, "SK CK DK SA CA DA", "A") == {high_plate}
    assert above(engine, high_plate, low_plate, "A")
    # A2345 is still the lowest straight, TJQKA the highest, although A is the level rank.
    a2345 = M("Straight", "A", "SA D2 C3 S4 D5")
    tjqka = M("Straight", "T", "ST DJ CQ SK DA")
    assert above(engine, M("Straight", "2", "S2 D3 C4 S5 D6"), a2345, "A")
    assert above(engine, tjqka, M("Straight", "9", "S9 DT CJ SQ DK"), "A")


def test_level_ace_full_houses(engine):
    # Two natural aces + two wilds + a king: triple of aces with K+wild as the pair, or a
    # triple of kings (K + both wilds) with the natural aces as the pair.
    cards = "SA CA HA HA SK"
    fh_a, fh_k = M("ThreeWithTwo", "A", cards), M("ThreeWithTwo", "K", cards)
    assert readings(engine, cards, "A") == {fh_a, fh_k}
    assert above(engine, fh_a, fh_k, "A")
    # Three natural aces + both wilds: a bomb, and a full house whose pair is the two wilds
    # standing for another rank (docs/rules.md edge case 42, revised).
    assert readings(engine, "SA CA DA HA HA", "A") == {M("Bomb", "A", "SA CA DA HA HA"),
                                                       M("ThreeWithTwo", "A", "SA CA DA HA HA")}


# -- level 10: the ten is lifted in the single order, natural in sequences --------------------

def test_level_ten_singles_pairs_and_the_eight_card_bomb(engine):
    assert above(engine, M("Single", "T", "ST"), M("Single", "A", "SA"), "T")
    assert tie(engine, M("Single", "T", "HT"), M("Single", "T", "DT"), 10)
    assert readings(engine, "ST HT", 10) == {M("Pair", "T", "ST HT")}
    assert above(engine, M("Pair", "T", "ST CT"), M("Pair", "A", "SA CA"), 10)
    tens = "ST ST HT HT CT CT DT DT"
    assert readings(engine, tens, 10) == {M("Bomb", "T", tens)}
    assert above(engine, M("Bomb", "T", tens), M("Bomb", "A", "SA SA HA HA CA CA DA DA"), 10)
    assert above(engine, M("Bomb", "3", "S3 S3 H3 H3 C3 C3 D3 D3 HT"), M("Bomb", "T", tens), 10)


def test_level_ten_sequences(engine):
    # The natural ten keeps its place in straights, plates and pair runs.
    assert readings(engine, "DT SJ SQ SK SA", 10) == {M("Straight", "T", "DT SJ SQ SK SA")}
    assert above(engine, M("Straight", "T", "DT SJ SQ SK SA"),
                 M("Straight", "9", "S9 DT SJ SQ SK"), 10)
    assert readings(engine, "ST CT DT SJ CJ DJ", 10) == {M("TwoTrips", "T", "ST CT DT SJ CJ DJ")}
    assert readings(engine, "S9 C9 ST CT SJ CJ", 10) == {M("ThreePair", "9", "S9 C9 ST CT SJ CJ")}
    # Both wilds with J Q K of spades: the windows 9TJQK (wilds 9, T) and TJQKA (wilds T, A);
    # the naturals are all spades, so each window is also a straight flush.
    cards = "HT HT SJ SQ SK"
    assert readings(engine, cards, 10) == {
        M("Straight", "9", cards), M("Straight", "T", cards),
        M("StraightFlush", "9", cards), M("StraightFlush", "T", cards)}


# -- level 2: the two is lifted in the single order, natural in A2345 and 23456 -----------------

def test_level_two_wild_in_low_straights(engine):
    # S3 S4 S5 S6 + wild: 23456 (wild as 2) or 34567 (wild as 7); not A2345 (6 is outside).
    cards = "H2 S3 S4 S5 S6"
    assert readings(engine, cards, 2) == {
        M("Straight", "2", cards), M("Straight", "3", cards),
        M("StraightFlush", "2", cards), M("StraightFlush", "3", cards)}
    # SA S3 S4 S5 + wild: only A2345 (wild as the 2); the ace cannot sit in 23456.
    cards = "SA H2 S3 S4 S5"
    assert readings(engine, cards, 2) == {M("Straight", "A", cards), M("StraightFlush", "A", cards)}


def test_level_two_groups(engine):
    assert readings(engine, "S2 H2", 2) == {M("Pair", "2", "S2 H2")}
    assert above(engine, M("Pair", "2", "H2 H2"), M("Pair", "A", "SA CA"), 2)
    assert above(engine, M("Pair", "B", "SB SB"), M("Pair", "2", "H2 H2"), 2)
    assert above(engine, M("Bomb", "2", "S2 C2 D2 H2"), M("Bomb", "A", "SA SA CA DA"), 2)
    # A full house of level 2s beats one of aces.
    assert above(engine, M("ThreeWithTwo", "2", "S2 C2 D2 SA CA"),
                 M("ThreeWithTwo", "A", "SA CA DA SK CK"), 2)


# -- wild-only groups and natural level cards --------------------------------------------------

def test_wild_only_groups_on_lead_and_follow(engine):
    pair_a = M("Pair", "A", "SA CA")
    wilds = M("Pair", "7", "H7 H7")
    assert engine.legal_moves("H7 H7", 7) == ordered([M("Single", "7", "H7"), wilds])
    assert engine.legal_moves("H7 H7 S3", 7, last=pair_a) == [PASS, wilds]
    # Against a natural pair of level cards the two wilds are equal: only the joker pair beats.
    assert engine.legal_moves("H7 H7 SB SB", 7, last=M("Pair", "7", "S7 C7")) == [
        PASS, M("Pair", "B", "SB SB")]
    # One natural level card + two wilds: trips of level cards, not a bomb.
    assert readings(engine, "S7 H7 H7", 7) == {M("Trips", "7", "S7 H7 H7")}
    assert above(engine, M("Trips", "7", "S7 H7 H7"), M("Trips", "A", "SA CA DA"), 7)
    # Two natural level cards + two wilds: the top 4-card bomb, below any 5-card bomb.
    level4 = M("Bomb", "7", "S7 C7 H7 H7")
    assert readings(engine, "S7 C7 H7 H7", 7) == {level4}
    assert above(engine, level4, M("Bomb", "A", "SA SA CA DA"), 7)
    assert above(engine, M("Bomb", "2", "S2 S2 C2 C2 D2"), level4, 7)


def test_natural_level_cards_in_full_houses(engine):
    # S8 C8 + S7 C7 + wild: triple of 8s with the natural 7s as pair, or triple of 7s (level,
    # key 15) with the 8s as pair.
    cards = "S8 C8 H7 S7 C7"
    fh8, fh7 = M("ThreeWithTwo", "8", cards), M("ThreeWithTwo", "7", cards)
    assert readings(engine, cards, 7) == {fh8, fh7}
    assert above(engine, fh7, M("ThreeWithTwo", "A", "SA CA DA SK CK"), 7)
    # One natural 7 + the wild is a pair of level cards; no triple of 7s (only one wild).
    cards = "S8 C8 D8 S7 H7"
    assert readings(engine, cards, 7) == {M("ThreeWithTwo", "8", cards)}
    # Three natural level cards + wild + 9: triple of 7s, pair of 9s (wild as a 9).
    cards = "S7 C7 D7 H7 S9"
    assert readings(engine, cards, 7) == {M("ThreeWithTwo", "7", cards)}


# -- fullhouse_joker_pair off ---------------------------------------------------------------------

def test_joker_pair_full_house_switch_on_follow_and_lead(engine):
    last = M("ThreeWithTwo", "2", "S2 C2 D2 S4 C4")  # level 7: a triple of 2s
    fh = M("ThreeWithTwo", "3", "S3 C3 D3 SB SB")
    assert engine.legal_moves("S3 C3 D3 SB SB", 7, last=last) == [PASS, fh]
    assert engine.legal_moves("S3 C3 D3 SB SB", 7, last=last, rules=OFF_JOKER_PAIR) == [PASS]
    # On lead with the switch off: every single, pair and the triple, no full house.
    hand = "SK CK DK HR HR"
    expected = [M("Single", "K", "SK"), M("Single", "K", "CK"), M("Single", "K", "DK"),
                M("Single", "R", "HR"), M("Pair", "K", "SK CK"), M("Pair", "K", "SK DK"),
                M("Pair", "K", "CK DK"), M("Pair", "R", "HR HR"), M("Trips", "K", "SK CK DK")]
    assert engine.legal_moves(hand, 2, rules=OFF_JOKER_PAIR) == ordered(expected)
    assert engine.legal_moves(hand, 2) == ordered(expected + [M("ThreeWithTwo", "K", hand)])


def test_joker_pair_switch_off_keeps_wild_and_level_pairs(engine):
    # The switch concerns jokers only: a pair made of the wilds, or of a natural level card
    # and a wild, still completes a full house.
    cards = "S8 C8 D8 H7 H7"
    assert readings(engine, cards, 7, OFF_JOKER_PAIR) == {M("ThreeWithTwo", "8", cards),
                                                         M("Bomb", "8", cards)}
    cards = "S8 C8 D8 S7 H7"
    assert readings(engine, cards, 7, OFF_JOKER_PAIR) == {M("ThreeWithTwo", "8", cards)}
    # A wild never stands for a joker, switch on or off.
    assert readings(engine, "S3 C3 D3 SB H7", 7) == set()
    assert readings(engine, "S3 C3 H7 SB SB", 7) == {M("ThreeWithTwo", "3", "S3 C3 H7 SB SB")}
    assert readings(engine, "S3 C3 H7 SB SB", 7, OFF_JOKER_PAIR) == set()


# -- sf_as_straight off -----------------------------------------------------------------------------

def test_sf_as_straight_off_on_follow(engine):
    last = M("Straight", "3", "S3 C4 D5 S6 C7")
    hand = "S4 S5 S6 S7 S8 D9"
    # 4..8 is all spades: a straight flush only when the switch is off; 5..9 has a diamond.
    plain5 = M("Straight", "5", "S5 S6 S7 S8 D9")
    sf4 = M("StraightFlush", "4", "S4 S5 S6 S7 S8")
    assert engine.legal_moves(hand, 2, last=last, rules=OFF_SF_STRAIGHT) == [PASS, plain5, sf4]
    assert engine.legal_moves(hand, 2, last=last) == ordered(
        [PASS, M("Straight", "4", "S4 S5 S6 S7 S8"), plain5, sf4])


def test_sf_as_straight_off_with_a_wild(engine):
    last = M("Straight", "8", "S8 C9 DT SJ CQ")
    hand = "S9 SJ SQ SK H7"  # level 7: the wild is the ten of spades, 9..K
    assert engine.legal_moves(hand, 7, last=last, rules=OFF_SF_STRAIGHT) == [
        PASS, M("StraightFlush", "9", hand)]
    assert engine.legal_moves(hand, 7, last=last) == [
        PASS, M("Straight", "9", hand), M("StraightFlush", "9", hand)]
    # Naturals of two suits: the wild cannot make a flush, so it stays a plain straight.
    mixed = "S9 DJ SQ SK H7"
    assert readings(engine, mixed, 7, OFF_SF_STRAIGHT) == {M("Straight", "9", mixed)}


# -- the bomb ladder around the straight flush rung -------------------------------------------------

def test_straight_flush_follows_five_card_bombs_only(engine):
    hand = "S4 S5 S6 S7 S8"
    sf = M("StraightFlush", "4", hand)
    assert engine.legal_moves(hand, 9, last=M("Bomb", "9", "S9 S9 C9 C9 D9")) == [PASS, sf]
    assert engine.legal_moves(hand, 9, last=M("Bomb", "3", "S3 S3 C3 C3 D3 D3")) == [PASS]
    # A higher straight flush beats a lower one whatever the suits; a 4-card bomb never does.
    assert above(engine, M("StraightFlush", "5", "D5 D6 D7 D8 D9"), sf, 9)
    assert engine.legal_moves("SA SA CA DA", 9, last=sf) == [PASS]

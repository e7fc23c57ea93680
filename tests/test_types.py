"""The compiled core's one definition of the encoding (src/guandan_fast/types.pxd, exposed by
``guandan_fast.codec.layout()``) against the Python package's (cards.py, moves.py) and the
reference engine's: the two sides must never drift apart."""
import pytest

from guandan_fast import codec
from guandan_fast.cards import CARD_CODES, FULL_DECK, KIND_OF, RANKS, SUITS, single_value
from guandan_fast.moves import TYPE_CODE, TYPE_NAMES, Move, _RANK_SHIFT, _TYPE_SHIFT, cards_to_words, rank_code
from guandan_fast.reference.combos import bomb_tier

L = codec.layout()


def test_card_kinds():
    assert L["N_KINDS"] == len(CARD_CODES) == 54
    assert L["N_RANKS"] == len(RANKS) and L["N_SUITS"] == len(SUITS)
    assert L["KIND_SB"] == KIND_OF["SB"] and L["KIND_HR"] == KIND_OF["HR"]
    assert L["KIND_H2"] == KIND_OF["H2"] and L["SUIT_HEARTS"] == SUITS.index("H")
    for code, k in KIND_OF.items():
        if code not in ("SB", "HR"):
            assert k == SUITS.index(code[0]) * L["N_RANKS"] + RANKS.index(code[1])


def test_multiset_layout():
    # The last kind of lo and the first of hi, the jokers' bits and the card masks.
    assert cards_to_words([CARD_CODES[L["LO_KINDS"] - 1]])[1] == 0
    assert cards_to_words([CARD_CODES[L["LO_KINDS"]]]) == (0, 1)
    assert cards_to_words(["SB"]) == (0, L["SB_HI"]) == (0, 1 << L["SB_BIT"])
    assert cards_to_words(["HR"]) == (0, L["HR_HI"]) == (0, 1 << L["HR_BIT"])
    # Two copies of every kind (count 0b10) and the bit below: the masks of the card bits.
    lo, hi = cards_to_words(FULL_DECK)
    assert (lo | lo >> 1) == L["LO_CARD_MASK"] and (hi | hi >> 1) == L["HI_CARD_MASK"]


def test_move_words():
    assert L["TYPE_SHIFT"] == _TYPE_SHIFT and L["RANK_SHIFT"] == _RANK_SHIFT
    assert L["RANK_SHIFT"] - L["TYPE_SHIFT"] == L["FIELD_MASK"].bit_length() == 4
    assert L["TYPE_CODES"] == TYPE_CODE
    assert L["N_PLAY_TYPES"] == TYPE_NAMES.index("tribute")
    assert L["NONBOMB_TYPES"] == sum(1 << TYPE_CODE[t] for t in TYPE_NAMES[1:8])
    assert L["RANK_ACE_LOW"] == rank_code("Straight", "A")
    assert L["RANK_ACE"] == rank_code("Single", "A")
    assert L["RANK_JOKER"] == rank_code("Single", "R") == rank_code("Bomb", "JOKER")
    m = Move("Pair", "9", "H7 D9")
    assert m.words[1] >> L["TYPE_SHIFT"] == TYPE_CODE["Pair"] | 9 << 4


@pytest.mark.parametrize("level", range(2, 15))
def test_values_and_wilds(level):
    assert L["wild_kind"][level] == KIND_OF["H" + RANKS[level - 2]]
    for code, k in KIND_OF.items():
        assert L["single_value"][(k, level)] == single_value(code, level), (code, level)
    assert single_value("SB", level) == L["VALUE_SB"] and single_value("HR", level) == L["VALUE_HR"]
    assert single_value("S" + RANKS[level - 2], level) == L["VALUE_LEVEL"]


def test_bomb_ladder():
    for n in range(4, 11):
        cards = ["S5", "S5", "H5", "H5", "C5", "C5", "D5", "D5", "H2", "H2"][:n]
        assert L["bomb_tier"][n] == bomb_tier(Move("Bomb", "5", cards)), n
    assert L["TIER_BOMB4"] == 1 and L["TIER_BOMB5"] == 2
    assert L["TIER_STRAIGHT_FLUSH"] == bomb_tier(Move("StraightFlush", "5", "S5 S6 S7 S8 S9"))
    assert L["TIER_JOKERS"] == bomb_tier(Move("Bomb", "JOKER", "SB SB HR HR"))


def test_deck_and_levels():
    from guandan_fast.game import Game
    assert L["N_CARDS"] == len(FULL_DECK)
    assert L["HAND_SIZE"] * 4 == L["N_CARDS"] and len(Game(seed=0).hand(0)) == L["HAND_SIZE"]
    assert CARD_CODES[L["ACE_RANK"]] == "SA" and L["MAX_LEVEL"] == L["RANK_ACE"] == 14

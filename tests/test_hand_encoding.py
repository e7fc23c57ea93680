"""The hand encoding (``guandan_fast.codec``): card text and codes to the 128-bit multiset and
back. Text in the canonical form is parsed straight from the string's buffer; everything else
goes through ``cards.parse_cards``. Both paths must give the same words, or the same error."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guandan_fast import codec as hand
from guandan_fast.cards import CARD_CODES, FULL_DECK, parse_cards
from guandan_fast.moves import cards_to_words

_PIECES = list(CARD_CODES) + ["s2", "h7", "♥7", "10", "S10", "X9", "S", "SBB", "", "ＳA", "S1"]
_SEPARATORS = [" ", ",", ", ", "  ", "\t", "\n", "\r", ",,", "\u00a0"]


def _plain(cards):
    """The words through the pure-Python parser, or the error it raises."""
    try:
        return cards_to_words(parse_cards(cards))
    except ValueError as e:
        return ("error", str(e))


def _encoded(cards):
    try:
        return hand.encode(cards)
    except ValueError as e:
        return ("error", str(e))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from(_SEPARATORS)), max_size=30),
       st.sampled_from(["", " ", ","]))
def test_text_parses_as_parse_cards_does(pieces, lead):
    text = lead + "".join(code + sep for code, sep in pieces)
    assert _encoded(text) == _plain(text)
    assert _encoded(text.split()) == _plain(text.split())


def test_the_whole_deck_round_trips():
    text = " ".join(FULL_DECK)
    lo, hi = hand.encode(text)
    assert hand.count(lo, hi) == 108
    assert sorted(hand.decode(lo, hi)) == sorted(FULL_DECK)
    assert hand.encode(",".join(FULL_DECK)) == (lo, hi) == hand.encode(list(FULL_DECK))


@pytest.mark.parametrize("text", ["S2 S2 S2", "SB,SB,SB", "HR HR HR"])
def test_a_third_copy_is_named(text):
    with pytest.raises(ValueError, match="appears 3 times"):
        hand.encode(text)

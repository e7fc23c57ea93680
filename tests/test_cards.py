"""Card notation (docs/design.md): ``parse_cards`` accepts the documented spellings and rejects
look-alike letters from other alphabets."""

import pytest

import guandan_fast as gf


@pytest.mark.parametrize("token", ["С9", "Ｓ9", "ſ9", "ﬅ", "Ｈ10", "S９", "𝐒9", "Һ7"])
def test_parse_cards_rejects_look_alike_letters(token):
    with pytest.raises(ValueError, match="unknown card code"):
        gf.parse_cards(token)
    with pytest.raises(ValueError, match="unknown card code"):
        gf.Hand(f"S2 {token}")


def test_parse_cards_accepts_the_documented_spellings():
    assert gf.parse_cards("♠9 ♥10 ♣A ♦2 s9 hT SB hr") == (
        "S9", "HT", "CA", "D2", "S9", "HT", "SB", "HR")
    with pytest.raises(ValueError, match="level must be"):
        gf.parse_level("ᴀ")

"""Rules audit of the match state machine (RULES.md §7-10 and the §12 game switches), run
against every ``Game`` of the ``game_cls`` fixture.

Two parts:

* Constructed deals (``Game.setup``) for the cases the §13 list touches only lightly: trick
  ends and 接风 with players already out, the last two players, each
  ``tribute_on_first_fourth`` value with its leader, anti-tribute counting only the payers,
  double-down assignment with level cards, return at levels 10, A and 2, count disclosure at
  exactly 10/11 and 7/8 cards, the A rule variants and resets.
* ``RulesMonitor``: an independent tracker written from RULES.md and docs/decisions.md that
  follows random matches move by move and predicts, before every step, the player to act, the
  phase, the legal tribute/return choices, the leader after the exchange, every hand's
  finishing order, levels, declarer and match winner, and the public card counts.

Expectations are derived from the rules by hand, never from an engine's output. Default run:
a few seconds per engine. ``GF_LONG=1`` plays many more monitored matches (minutes).
"""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest

from guandan_fast.cards import FULL_DECK, is_wild, natural_value, single_value, sort_cards
from guandan_fast.moves import PASS, IllegalMoveError, Move
from guandan_fast.rules import Rules

LONG = os.environ.get("GF_LONG") == "1"


def partner(p):
    return (p + 2) % 4


def make_hands(spec: dict[int, str], rest: tuple[int, ...]) -> list[list[str]]:
    """Seats of ``spec`` hold exactly those cards plus, for the seats of ``rest``, a
    round-robin share of the rest of the deck."""
    hands = {p: spec.get(p, "").split() for p in range(4)}
    remaining = Counter(FULL_DECK) - Counter(c for h in hands.values() for c in h)
    for i, c in enumerate(sorted(remaining.elements())):
        hands[rest[i % len(rest)]].append(c)
    return [hands[p] for p in range(4)]


def single(card: str) -> Move:
    if card in ("SB", "HR"):
        return Move("Single", "B" if card == "SB" else "R", [card])
    return Move("Single", card[1], [card])


def trib(card: str) -> Move:
    return Move("tribute", "tribute", [card])


def back(card: str) -> Move:
    return Move("back", "back", [card])


def is_lead(game) -> bool:
    """The current player leads a new trick: no top play, and a PASS is refused. (Not via
    ``legal_moves``: constructed hands here hold up to half the deck.)"""
    if game.observation(game.current_player)["top"] is not None:
        return False
    trial = game.clone()
    try:
        trial.play(PASS)
    except IllegalMoveError:
        return True
    return False


# ------------------------------------------------------------------------------------------------
# trick flow with players out (RULES.md §7.4-7.7)
# ------------------------------------------------------------------------------------------------

def test_jiefeng_counts_only_players_still_in(game_cls):
    # Seat 1 goes out 1st; seat 0 goes out 2nd on a later play of the same trick. Only seats 2
    # and 3 are still in: their two passes end the trick and seat 0's partner (2) leads.
    game = game_cls.setup(make_hands({1: "S3", 0: "S5"}, (2, 3)), leader=1)
    game.play(single("S3"), seat=1)
    game.play(PASS, seat=2)
    game.play(PASS, seat=3)
    game.play(single("S5"), seat=0)
    assert game.finish_order == (1, 0) and game.hand_number == 0
    assert game.current_player == 2  # seat 1 is out and skipped
    game.play(PASS, seat=2)
    assert game.current_player == 3 and game.observation(3)["top"] == (0, single("S5"))
    game.play(PASS, seat=3)
    assert game.current_player == 2 and is_lead(game)


def test_jiefeng_needs_the_partner_to_pass_too(game_cls):
    # Seat 0 goes out; after seats 1 and 2 (the partner) pass the trick is still open for 3.
    game = game_cls.setup(make_hands({0: "S3", 3: "S9 S4"}, (1, 2)), leader=0)
    game.play(single("S3"))
    game.play(PASS, seat=1)
    game.play(PASS, seat=2)
    assert game.current_player == 3 and game.observation(3)["top"] == (0, single("S3"))
    game.play(single("S9"), seat=3)  # an opponent beats the going-out play
    game.play(PASS, seat=1)
    game.play(PASS, seat=2)
    assert game.current_player == 3 and is_lead(game)


def test_last_two_players_one_pass_ends_a_trick_and_third_out_ends_the_hand(game_cls):
    # Seats 0 and 1 (opponents) go out first; 2 and 3 are left. A single pass ends a trick.
    game = game_cls.setup(make_hands({0: "S3", 1: "S4", 2: "S5 S6"}, (3,)), leader=0)
    game.play(single("S3"))
    game.play(single("S4"), seat=1)
    assert game.finish_order == (0, 1) and game.current_player == 2
    game.play(single("S5"), seat=2)
    game.play(PASS, seat=3)
    assert game.current_player == 2 and is_lead(game)
    game.play(single("S6"), seat=2)  # the 3rd player out: the hand is over at once
    result = game.results[-1]
    assert result["finish_order"] == [0, 1, 2, 3] and result["winner"] == 0
    assert result["levels"] == (4, 2) and game.levels == (4, 2)  # partner 3rd: +2
    assert game.hand_number == 1 and game.declarer == 0


def test_going_out_second_after_partner_ends_the_hand_mid_trick(game_cls):
    # 1st and 2nd partners end the hand at once, though seat 1 had passed and seat 3 not yet.
    game = game_cls.setup(make_hands({1: "S4", 3: "S6", 0: "S3 S9", 2: "S5 S8"}, (0,)), leader=1)
    game.play(single("S4"), seat=1)  # 1st
    game.play(single("S5"), seat=2)
    game.play(single("S6"), seat=3)  # 2nd, partner of 1st
    result = game.results[-1]
    assert result["finish_order"] == [1, 3] and result["winner"] == 1
    assert game.levels == (2, 5) and game.declarer == 1 and game.hand_number == 1


# ------------------------------------------------------------------------------------------------
# tribute, anti-tribute, return and the leader (RULES.md §9, §12)
# ------------------------------------------------------------------------------------------------

FIRST_FOURTH = [0, 1, 3, 2]  # seat 0 1st, its partner 2 4th


def test_first_fourth_third_pays(game_cls):
    rules = Rules(tribute_on_first_fourth="3rd_pays")
    game = game_cls.setup(make_hands({3: "SQ S4", 0: "S6 SK"}, (1, 2)),
                          previous_finish=FIRST_FOURTH, rules=rules)
    assert game.phase == "tribute" and game.current_player == 3
    assert list(game.legal_moves()) == [trib("SQ")]
    game.play(trib("SQ"))
    assert game.phase == "back" and game.current_player == 0
    assert game.hand(0) == ("S6", "SQ", "SK")
    assert list(game.legal_moves()) == [back("S6")]  # level 2: the only card of 3..10
    game.play(back("S6"))
    assert game.hand(3) == ("S4", "S6") and game.hand(0) == ("SQ", "SK")
    assert game.phase == "play" and game.current_player == 3  # the payer of 1st leads


def test_first_fourth_no_tribute_first_leads(game_cls):
    hands = make_hands({2: "SK S3", 0: "S6 SQ"}, (1, 3))
    game = game_cls.setup(hands, previous_finish=FIRST_FOURTH,
                          rules=Rules(tribute_on_first_fourth="none"))
    assert game.phase == "play" and game.current_player == 0
    assert all(game.hand(p) == sort_cards(hands[p]) for p in range(4))
    obs = game.observation(1)
    assert obs["tribute"] == () and obs["back"] == () and obs["anti_tribute"] is False


def test_first_fourth_partner_with_both_big_jokers_resists(game_cls):
    # Default (4th pays): the payer is 1st's partner; holding both HR he is the paying side.
    game = game_cls.setup(make_hands({2: "HR HR S3"}, (0, 1, 3)), previous_finish=FIRST_FOURTH)
    assert game.phase == "play" and game.current_player == 0
    assert game.observation(0)["anti_tribute"] is True


def test_third_pays_anti_tribute_counts_the_payer_only(game_cls):
    rules = Rules(tribute_on_first_fourth="3rd_pays")
    # The 4th (not paying under this switch) holds both HR: the 3rd still pays.
    game = game_cls.setup(make_hands({2: "HR HR S3", 3: "SK S4"}, (0, 1)),
                          previous_finish=FIRST_FOURTH, rules=rules)
    assert game.phase == "tribute" and game.current_player == 3
    assert list(game.legal_moves()) == [trib("SK")]
    # The 3rd holds both HR: anti-tribute, 1st leads.
    game = game_cls.setup(make_hands({3: "HR HR S4"}, (0, 1, 2)),
                          previous_finish=FIRST_FOURTH, rules=rules)
    assert game.phase == "play" and game.current_player == 0
    assert game.observation(2)["anti_tribute"] is True


def test_double_down_one_payer_with_both_big_jokers_resists(game_cls):
    game = game_cls.setup(make_hands({1: "HR HR S3", 3: "SA S4"}, (0, 2)), previous_finish=[0, 2])
    assert game.phase == "play" and game.current_player == 0
    assert game.observation(3)["anti_tribute"] is True
    assert game.hand(1) == ("S3", "HR", "HR")


def test_double_down_one_big_joker_and_small_jokers_pays(game_cls):
    # One HR and the small jokers on the paying side: small jokers do not count.
    game = game_cls.setup(make_hands({1: "HR SB S3", 3: "SB S4"}, (0, 2)), previous_finish=[0, 2])
    assert game.phase == "tribute" and game.current_player == 1
    assert list(game.legal_moves()) == [trib("HR")]
    game.play(trib("HR"))
    assert game.current_player == 3 and list(game.legal_moves()) == [trib("SB")]
    game.play(trib("SB"))
    # HR > SB: HR goes to 1st (0), SB to 2nd (2); seat 1 paid 1st and will lead.
    assert "HR" in game.hand(0) and "SB" in game.hand(2)
    assert game.phase == "back" and game.current_player == 0


def test_double_down_level_card_outranks_an_ace(game_cls):
    # Level 7 (team 0's). Payer 1 holds both wilds and an ace: the wilds are not paid, SA is.
    # Payer 3's highest is the level card C7 (15 > 14): it goes to 1st and seat 3 leads.
    game = game_cls.setup(make_hands({1: "H7 H7 SA S3", 3: "C7 S4", 0: "S5 SK", 2: "S6 SQ"},
                                     (0, 2)), levels=(7, 2), previous_finish=[0, 2])
    assert game.level == 7 and game.current_player == 1
    assert list(game.legal_moves()) == [trib("SA")]
    game.play(trib("SA"))
    assert list(game.legal_moves()) == [trib("C7")]
    game.play(trib("C7"))
    assert "C7" in game.hand(0) and "SA" in game.hand(2)
    assert game.phase == "back" and game.current_player == 0
    assert back("S5") in game.legal_moves() and back("SK") not in game.legal_moves()
    game.play(back("S5"))  # to seat 3, who paid seat 0
    assert game.current_player == 2
    game.play(back("S6"))  # to seat 1
    assert game.hand(3) == ("S4", "S5") and game.hand(1) == ("S3", "S6", "H7", "H7")
    assert game.phase == "play" and game.current_player == 3


def double_tie_game(game_cls, rules=Rules()):
    """Level 7 (team 1's), seat 1 1st and 3 2nd. Payers 2 (then 0) pay S7 and D7: equal."""
    spec = {2: "S7 S3", 0: "D7 H7 S4", 1: "S5", 3: "S6"}
    game = game_cls.setup(make_hands(spec, (1, 3)), levels=(2, 7), previous_finish=[1, 3],
                          rules=rules)
    assert game.level == 7 and game.current_player == 2
    assert list(game.legal_moves()) == [trib("S7")]
    game.play(trib("S7"))
    assert list(game.legal_moves()) == [trib("D7")]  # the wild H7 is never paid
    game.play(trib("D7"))
    return game


def test_double_down_equal_level_cards_go_clockwise(game_cls):
    game = double_tie_game(game_cls)
    # Each payer gives to the player before him: 2 -> 1 (1st), 0 -> 3 (2nd).
    assert "S7" in game.hand(1) and "D7" in game.hand(3)
    assert game.phase == "back" and game.current_player == 1
    game.play(back("S5"))  # to seat 2
    assert game.current_player == 3
    game.play(back("S6"))  # to seat 0
    assert game.hand(2) == ("S3", "S5") and game.hand(0) == ("S4", "S6", "H7")
    assert game.phase == "play" and game.current_player == 2  # the player after 1st


def test_double_down_equal_cards_winners_choose(game_cls):
    game = double_tie_game(game_cls, Rules(double_tie="winners_choose"))
    assert game.phase == "tribute" and game.current_player == 1
    assert set(game.legal_moves()) == {trib("S7"), trib("D7")} and len(game.legal_moves()) == 2
    game.play(trib("D7"))  # 1st takes seat 0's card; seat 2's goes to 2nd
    assert "D7" in game.hand(1) and "S7" in game.hand(3)
    assert game.phase == "back" and game.current_player == 1
    game.play(back("S5"))  # to seat 0, whose card he took
    game.play(back("S6"), seat=3)  # to seat 2
    assert game.hand(0) == ("S4", "S5", "H7") and game.hand(2) == ("S3", "S6")
    assert game.phase == "play" and game.current_player == 2  # decisions.md: after 1st


def test_tribute_of_a_level_card_choice_of_suits(game_cls):
    # Level 9: the payer's highest non-wild cards are S9 and D9 (value 15), either may be paid.
    game = game_cls.setup(make_hands({3: "H9 H9 S9 D9 SA S3"}, (0, 1, 2)), levels=(9, 2),
                          previous_finish=[0, 1, 2, 3])
    assert set(game.legal_moves()) == {trib("S9"), trib("D9")} and len(game.legal_moves()) == 2
    before = game.clone()
    with pytest.raises(IllegalMoveError):
        game.play(trib("H9"))
    assert game == before


def single_tribute(game_cls, level, receiver_cards, payer_cards="SK S3"):
    """Seat 0 1st (team 0 at ``level``), seat 3 4th pays; returns the game at the return."""
    game = game_cls.setup(make_hands({3: payer_cards, 0: receiver_cards}, (1, 2)),
                          levels=(level, 2), previous_finish=[0, 1, 2, 3])
    top = max(payer_cards.split(), key=lambda c: single_value(c, level))
    game.play(trib(top))
    assert game.phase == "back" and game.current_player == 0
    return game


def test_return_at_level_ten(game_cls):
    # Tens are level cards: not returnable as 2..10; with nothing of 2..9 the lowest card by
    # single order is the jack (the tens are 15).
    game = single_tribute(game_cls, 10, "ST DT SJ")
    assert list(game.legal_moves()) == [back("SJ")]
    game = single_tribute(game_cls, 10, "S9 ST SJ")
    assert list(game.legal_moves()) == [back("S9")]


def test_return_at_level_ace_and_level_two(game_cls):
    game = single_tribute(game_cls, 14, "SA CA ST S2")
    assert set(game.legal_moves()) == {back("S2"), back("ST")} and len(game.legal_moves()) == 2
    game = single_tribute(game_cls, 2, "S2 D2 SJ")  # 2s are level cards at level 2
    assert list(game.legal_moves()) == [back("SJ")]


def test_return_may_be_the_received_card(game_cls):
    # The payer's best is S4: the receiver (nothing of 2..10) now holds it and returns it.
    game = single_tribute(game_cls, 2, "SJ SQ", payer_cards="S4 S3")
    assert list(game.legal_moves()) == [back("S4")]
    # Lowest by single order when only level cards, the wilds and jokers are held: the
    # received ace (14) is below the level cards (15).
    game = single_tribute(game_cls, 7, "H7 S7 SB", payer_cards="SA S3")
    assert list(game.legal_moves()) == [back("SA")]
    game.play(back("SA"))
    assert game.hand(3) == ("S3", "SA") and game.current_player == 3


# ------------------------------------------------------------------------------------------------
# card counts (RULES.md §7.8, count_disclosure)
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode, visible", [
    ("10", {10: True, 11: False, 8: True, 7: True}),
    ("7", {10: False, 11: False, 8: False, 7: True}),
    ("always", {10: True, 11: True, 8: True, 7: True}),
])
def test_count_disclosure_boundaries(game_cls, mode, visible):
    sizes = {0: 11, 1: 10, 2: 8}  # seat 3 holds the other 79
    deck = sorted(FULL_DECK)
    spec, start = {}, 0
    for p, n in sizes.items():
        spec[p] = " ".join(deck[start:start + n])
        start += n
    game = game_cls.setup(make_hands(spec, (3,)), leader=2,
                          rules=Rules(count_disclosure=mode))
    counts = {p: 79 if p == 3 else sizes[p] for p in range(4)}
    for viewer in range(4):
        seen = game.observation(viewer)["counts"]
        for p in range(4):
            public = viewer == p or mode == "always" or visible.get(counts[p], False)
            assert seen[p] == (counts[p] if public else None), (viewer, p, seen)
    # Seat 2 leads one card, 8 -> 7: public under every mode, taken at observation time.
    game.play(single(spec[2].split()[0]), seat=2)
    assert game.observation(0)["counts"][2] == 7

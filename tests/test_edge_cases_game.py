"""docs/rules.md §13 items 27-41 (trick flow, tribute, levels and the match), one test each, with
hand-written expectations, run against every ``Game`` of the ``game_cls`` fixture (only the
documented API of docs/design.md is used)."""

from __future__ import annotations

import pytest

from guandan_fast.moves import PASS, IllegalMoveError
from helpers import back, go_out, hand_with_finish, make_hands, single, tribute


# -- trick flow ---------------------------------------------------------------------------------

def test_27_leader_cannot_pass_and_passer_may_play_later(game_cls):
    game = game_cls.setup(make_hands({0: "S3 S4", 1: "S5 S9", 2: "S6 S7"}, (3,)), leader=0)
    before = game.clone()
    with pytest.raises(IllegalMoveError):
        game.play(PASS)
    assert game == before
    game.play(single("S3"))
    game.play(PASS, seat=1)
    game.play(single("S6"), seat=2)
    game.play(PASS, seat=3)
    game.play(PASS, seat=0)
    game.play(single("S9"), seat=1)  # seat 1 passed earlier in this trick
    assert game.observation(0)["top"] == (1, single("S9"))


def test_28_three_passes_end_trick_and_partner_leads_after_going_out(game_cls):
    game = game_cls.setup(make_hands({0: "S3 S4", 2: "S5"}, (1, 3)), leader=0)
    game.play(single("S3"))
    for p in (1, 2, 3):
        game.play(PASS, seat=p)
    assert game.current_player == 0 and game.observation(0)["top"] is None
    game.play(single("S4"))  # seat 0's last card
    assert game.finish_order == (0,)
    for p in (1, 2, 3):
        game.play(PASS, seat=p)
    assert game.current_player == 2 and game.observation(2)["top"] is None


def test_29_opponent_beating_the_going_out_play_leads(game_cls):
    game = game_cls.setup(make_hands({0: "S3", 1: "S8 S9"}, (2, 3)), leader=0)
    game.play(single("S3"))
    game.play(single("S8"), seat=1)
    game.play(PASS, seat=2)
    game.play(PASS, seat=3)
    assert game.current_player == 1


def test_30_hand_ends_at_double_down_else_at_third_out(game_cls):
    game = game_cls.setup(make_hands({0: "S3", 2: "S4"}, (1, 3)), leader=0)
    go_out(game, [0, 2], ["S3", "S4"])
    assert game.hand_number == 1 and game.results[-1]["finish_order"] == [0, 2]
    game = game_cls.setup(make_hands({0: "S3", 1: "S4", 3: "S5"}, (2,)), leader=0)
    go_out(game, [0, 1], ["S3", "S4"])
    assert game.hand_number == 0 and game.finish_order == (0, 1)
    go_out(game, [3], ["S5"])
    assert game.hand_number == 1
    assert game.results[-1]["finish_order"] == [0, 1, 3, 2]


# -- tribute ----------------------------------------------------------------------------------

def test_31_level_2_payer_pays_a_natural_2_never_h2(game_cls):
    game = game_cls.setup(make_hands({3: "H2 S2 C2 D2 SA"}, (0, 1, 2)),
                          previous_finish=[0, 1, 2, 3])
    assert game.level == 2 and game.current_player == 3
    assert set(game.legal_moves()) == {tribute("S2"), tribute("C2"), tribute("D2")}
    assert len(game.legal_moves()) == 3


def test_32_payer_with_big_joker_and_wild_pays_big_joker(game_cls):
    game = game_cls.setup(make_hands({3: "HR H2 H2 S3"}, (0, 1, 2)),
                          previous_finish=[0, 1, 2, 3])
    assert list(game.legal_moves()) == [tribute("HR")]


def test_33_single_payer_with_both_big_jokers_anti_tribute(game_cls):
    game = game_cls.setup(make_hands({3: "HR HR S3"}, (0, 1, 2)), previous_finish=[0, 1, 2, 3])
    assert game.phase == "play" and game.current_player == 0
    obs = game.observation(1)
    assert obs["anti_tribute"] is True and obs["tribute"] == () and obs["back"] == ()
    assert game.hand(3) == ("S3", "HR", "HR")


def test_34_double_down_payers_one_big_joker_each_anti_tribute(game_cls):
    game = game_cls.setup(make_hands({1: "HR S3", 3: "HR S4"}, (0, 2)), previous_finish=[0, 2])
    assert game.phase == "play" and game.current_player == 0
    assert game.observation(0)["anti_tribute"] is True


def test_35_non_paying_loser_with_both_big_jokers_tribute_paid(game_cls):
    game = game_cls.setup(make_hands({1: "HR HR", 3: "SK S3"}, (0, 2)),
                          previous_finish=[0, 1, 2, 3])
    assert game.phase == "tribute" and game.current_player == 3
    game.play(tribute("SK"))
    assert game.phase == "back" and game.current_player == 0


def test_36_first_and_fourth_partner_pays_and_leads(game_cls):
    game = game_cls.setup(make_hands({2: "SK S3", 0: "S6 SQ"}, (1, 3)),
                          previous_finish=[0, 1, 3, 2])
    assert game.phase == "tribute" and game.current_player == 2
    game.play(tribute("SK"))
    assert game.current_player == 0 and game.hand(0) == ("S6", "SQ", "SK")
    game.play(back("S6"))
    assert game.hand(2) == ("S3", "S6")
    assert game.phase == "play" and game.current_player == 2


def test_37_double_down_equal_cards_clockwise(game_cls):
    # 1st = 2, 2nd = 0; payers 3 (pays SA) and 1 (pays DA), equal: 3 -> 2, 1 -> 0.
    game = game_cls.setup(make_hands({3: "SA S3", 1: "DA S4", 2: "S6 S7", 0: "S8 S9"}, (0, 2)),
                          previous_finish=[2, 0], levels=(2, 2), declarer=0)
    assert game.current_player == 3
    game.play(tribute("SA"))
    game.play(tribute("DA"), seat=1)
    assert game.phase == "back" and game.current_player == 2
    game.play(back("S6"))  # to seat 3, who paid seat 2
    game.play(back("S8"), seat=0)  # to seat 1
    assert game.hand(3) == ("S3", "S6") and game.hand(1) == ("S4", "S8")
    assert game.phase == "play" and game.current_player == 3  # the player after 1st


def test_38_return_at_level_5_no_five_and_lowest_when_nothing_allowed(game_cls):
    game = game_cls.setup(make_hands({3: "SK S3", 0: "S5 C5 D6 SQ"}, (1, 2)),
                          levels=(5, 2), declarer=0, previous_finish=[0, 1, 2, 3])
    game.play(tribute("SK"))
    assert list(game.legal_moves()) == [back("D6")]
    before = game.clone()
    with pytest.raises(IllegalMoveError):
        game.play(back("S5"))
    assert game == before
    game = game_cls.setup(make_hands({3: "SK S3", 0: "S5 DJ CJ SQ"}, (1, 2)),
                          levels=(5, 2), declarer=0, previous_finish=[0, 1, 2, 3])
    game.play(tribute("SK"))
    assert set(game.legal_moves()) == {back("CJ"), back("DJ")}
    assert len(game.legal_moves()) == 2


# -- levels and the match -------------------------------------------------------------------------

def test_39_level_gains_and_king_stops_at_ace(game_cls):
    assert hand_with_finish(game_cls, [0, 2], (2, 2), None).levels == (5, 2)
    assert hand_with_finish(game_cls, [1, 0, 3], (2, 2), None).levels == (2, 4)
    assert hand_with_finish(game_cls, [1, 0, 2], (2, 2), None).levels == (2, 3)
    game = hand_with_finish(game_cls, [2, 0], (13, 6), 1)
    assert game.levels == (14, 6) and game.declarer == 0 and game.level == 14


def test_40_own_ace_first_and_third_wins_other_level_only_declarer(game_cls):
    game = hand_with_finish(game_cls, [0, 1, 2], (14, 9), 0)
    assert game.is_over and game.winner == 0 and game.current_player is None
    game = hand_with_finish(game_cls, [0, 1, 2], (14, 9), 1)
    assert not game.is_over and game.winner is None
    assert game.declarer == 0 and game.levels == (14, 9) and game.level == 14


def test_41_own_ace_first_and_fourth_stays_ace_and_declarer(game_cls):
    game = hand_with_finish(game_cls, [0, 1, 3], (14, 9), 0)
    assert not game.is_over and game.winner is None
    assert game.levels == (14, 9) and game.declarer == 0 and game.level == 14
    assert game.results[-1]["winner"] == 0

"""The built-in bots: the greedy policy's rules (docs/design.md "Bots") on constructed
positions, the random bots' reproducibility, and greedy's strength against random.

Expected moves come from the policy as documented and the rules (docs/rules.md), not from runs of
the implementation. The strength test plays 240 matches (about 10 s); ``--long`` plays
2000 and prints the rate.
"""

import math

import pytest

from guandan_fast import PASS, Move
from guandan_fast.bots import choose
from guandan_fast.simulate import simulate

from helpers import LONG


def greedy(hand, level=2, **kw):
    return choose("greedy", hand, level=level, **kw)


# -- leading --------------------------------------------------------------------------------

def test_lead_lowest_combination():
    # The pair of 3s sheds the lowest rank and two cards at once.
    assert greedy("S3 S3 D5 HK CA") == Move("Pair", "3", "S3 S3")


def test_lead_prefers_whole_groups_over_splitting():
    # Leading one 3 of three would split the triple; the triple itself goes first.
    assert greedy("S3 H3 D3 D6 CK") == Move("Trips", "3", "S3 H3 D3")


def test_lead_keeps_a_bomb_intact():
    # S4 H4 C4 D4 is a bomb: the 6 is led although the 4s are lower.
    assert greedy("S4 H4 C4 D4 S6 DK") == Move("Single", "6", "S6")


def test_lead_keeps_a_straight_flush_intact():
    # S5..S9 is a straight flush: neither a plain straight nor a single from it is led.
    assert greedy("S5 S6 S7 S8 S9 DK") == Move("Single", "K", "DK")


def test_lead_does_not_spend_the_wild():
    # At level 7 H7 would make 9 9 a pair with it: the natural pair of 5s goes first.
    move = greedy("H7 C5 D5 S9", level=7)
    assert move == Move("Pair", "5", "C5 D5")


def test_lead_a_bomb_only_when_nothing_else():
    move = greedy("S4 H4 C4 D4 S9 H9 C9 D9 D9")
    assert move == Move("Bomb", "4", "S4 H4 C4 D4")


def test_lead_goes_out_when_possible():
    # The whole hand is one straight: playing it finishes, whatever its rank.
    move = greedy("S9 HT CJ DQ SK")
    assert move.type == "Straight" and len(move.cards) == 5


def test_lead_avoids_singles_when_an_opponent_has_one_card():
    # Seat 1 (an opponent) has one card left: a single would let him out; lead the pair.
    move = greedy("S3 D8 D8", counts=[3, 1, 10, 10])
    assert move == Move("Pair", "8", "D8 D8")
    # Without that danger the low single goes first.
    assert greedy("S3 D8 D8", counts=[3, 20, 10, 20]) == Move("Single", "3", "S3")


def test_lead_feeds_a_partner_with_one_card():
    move = greedy("S3 S3 D9", counts=[3, 20, 1, 20])
    assert move == Move("Single", "3", "S3")


# -- following --------------------------------------------------------------------------------

def test_never_beats_the_partner():
    assert greedy("S3 D5 HK", top="Single 4 S4", top_seat=2) == PASS
    assert greedy("S3 D5 HK", top="Pair 4 S4 D4", top_seat=2, counts=[3, 5, 3, 5]) == PASS


def test_beats_the_partner_to_go_out():
    assert greedy("SK", top="Single 4 S4", top_seat=2) == Move("Single", "K", "SK")


def test_follows_an_opponent_with_the_lowest_beating_play():
    move = greedy("S3 D6 C9 HK", top="Single 5 D5", top_seat=1)
    assert move == Move("Single", "6", "D6")
    move = greedy("S3 S3 D7 D7 C9 C9", top="Pair 6 S6 D6", top_seat=3)
    assert move == Move("Pair", "7", "D7 D7")


def test_does_not_break_a_bomb_to_follow():
    # Level 9: only 4s beat the 3 but they are a bomb and nobody is close to going out: pass.
    assert greedy("S4 H4 C4 D4 S2", level=9, top="Single 3 D3", top_seat=1) == PASS


def test_bombs_an_opponent_about_to_go_out():
    hand = "S4 H4 C4 D4 S2"  # at level 9 nothing but the bomb beats an ace
    # Seat 1 has 3 cards left (public): bomb his ace.
    move = greedy(hand, level=9, top="Single A SA", top_seat=1, counts=[5, 3, 20, 20])
    assert move == Move("Bomb", "4", "S4 H4 C4 D4")
    # With 20 cards he is not about to go out: keep the bomb.
    assert greedy(hand, level=9, top="Single A SA", top_seat=1,
                  counts=[5, 20, 20, 20]) == PASS


def test_bomb_uses_the_lowest_bomb():
    hand = "S4 H4 C4 D4 S9 H9 C9 D9 C9 D2"
    move = greedy(hand, top="Pair K SK SK", top_seat=3, counts=[10, 15, 15, 2])
    assert move == Move("Bomb", "4", "S4 H4 C4 D4")


def test_counts_above_disclosure_are_not_used():
    # 6 cards is public under the default (10 or fewer), not when only 5 or fewer are.
    hand = "S4 H4 C4 D4 S2"
    kw = dict(level=9, top="Single A SA", top_seat=1, counts=[5, 6, 20, 20])
    assert greedy(hand, **kw) == Move("Bomb", "4", "S4 H4 C4 D4")
    assert greedy(hand, disclosure=5, **kw) == PASS


# -- tribute and return ------------------------------------------------------------------------

def test_return_pays_the_lowest_allowed_card():
    moves = [Move("back", "back", [c]) for c in ("S3", "D6", "C9")]
    assert greedy("S3 D6 C9 SA HR", phase="back", moves=moves) == Move("back", "back", ["S3"])


def test_return_keeps_a_bomb_intact():
    # The 3s are a bomb: the 4 is returned although it is higher.
    moves = [Move("back", "back", [c]) for c in ("S3", "D4")]
    hand = "S3 H3 C3 D3 D4 SA"
    assert greedy(hand, phase="back", moves=moves) == Move("back", "back", ["D4"])


def test_tribute_choice_takes_the_higher_card():
    moves = [Move("tribute", "tribute", [c]) for c in ("SA", "HR")]
    assert greedy("S3 D3", phase="tribute", moves=moves) == Move("tribute", "tribute", ["HR"])


# -- random bots ------------------------------------------------------------------------------

def test_random_is_reproducible_and_spreads():
    hand = "S3 D4 C5 H6 S7 D8 C9 ST"
    picks = [choose("random", hand, seed=s) for s in range(60)]
    assert picks == [choose("random", hand, seed=s) for s in range(60)]
    assert len(set(picks)) >= 10  # uniform over dozens of leads: many distinct picks


def test_random_compact_sees_fewer_moves():
    # S7 S7 and S7 D7... all pairs of 7s are one compact move; the complete list has them all.
    hand = "S7 H7 C7 D7"
    complete = {choose("random", hand, level=2, seed=s) for s in range(300)}
    compact = {choose("random_compact", hand, level=2, seed=s) for s in range(300)}
    assert len({m for m in complete if m.type == "Pair"}) == 6
    assert len({m for m in compact if m.type == "Pair"}) == 1


def test_bad_agent_and_position():
    with pytest.raises(ValueError, match="unknown agent 'smart'"):
        choose("smart", "S3")
    with pytest.raises(ValueError, match="top_seat"):
        choose("greedy", "S3", top="Single 2 S2")
    with pytest.raises(ValueError, match="unknown card code"):
        choose("greedy", "S3 Z9")


# -- strength ----------------------------------------------------------------------------------

def test_greedy_beats_random():
    # Measured over 20,000 matches per seating (seeds 11 and 12, about 102,500 hands each):
    # the greedy team won every match and 99.44% of hands (the 1st finisher's team). The test
    # pins both near those figures: a regression in the bot or the engine shows as a drop.
    hand_rate = 0.9944
    n = 2000 if LONG else 240
    for seed, agents, team in ((7, ("greedy", "random", "greedy", "random"), 0),
                               (8, ("random", "greedy", "random", "greedy"), 1)):
        res = simulate(matches=n, agents=agents, seed=seed)
        # A match takes many hands, so losing one is far rarer than losing a hand.
        assert res.win_rate(team) >= 0.99, (agents, res.win_rate(team))
        rate = res.hand_wins[team] / res.hands
        sd = math.sqrt(hand_rate * (1 - hand_rate) / res.hands)
        if LONG:
            print(f"greedy vs random: matches {res.win_rate(team):.4f}, hands {rate:.4f}")
        assert abs(rate - hand_rate) < 4.5 * sd, (agents, rate, res.hands)

"""The reference ``Game`` (python/guandan_fast/reference/game.py): docs/rules.md §7-10 and §12.

Whole matches from seeds with a seeded random chooser (every card accounted for after every
step, levels re-derived from the results), and constructed deals (``Game.setup``) for each
rule: hand ends, 接风, tribute/anti-tribute/return and their switches, the A rule, card-count
disclosure, observation visibility, bad input.

Environment: ``--long`` plays many more random matches (minutes).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from guandan_fast.cards import FULL_DECK, is_wild, natural_value, single_value, sort_cards
from guandan_fast.moves import PASS, IllegalMoveError, Move
from guandan_fast.reference.game import Game
from guandan_fast.reference.rng import SplitMix64
from guandan_fast.rules import Rules
from helpers import LONG, back, hand_with_finish, make_hands, single, tribute

pytestmark = pytest.mark.reference


# -- helpers ----------------------------------------------------------------------------------

def finish_hand(order, *, levels=(2, 2), declarer=None, rules=Rules(), cards=None, seed=0):
    """A game set up so that the seats of ``order`` (2 or 3 of them) go out in that order,
    each on one single card, all in one trick (the others pass); returns it after the last
    of them went out. ``cards``: the single card of each due seat (ascending in the single
    order); by default three non-level suited cards."""
    level = 2 if declarer is None else levels[declarer]
    if cards is None:
        ranks = [r for r in "3456789TJQK" if natural_value("S" + r) != level][:3]
        cards = ["S" + r for r in ranks][:len(order)]
    return hand_with_finish(Game, order, levels, declarer, rules=rules, cards=cards, seed=seed)


def accounted(game: Game) -> Counter:
    """Every card of the current hand: the four hands, the cards played so far, and during
    the tribute phase the tribute cards paid but not yet delivered."""
    total = Counter()
    for p in range(4):
        total.update(game.hand(p))
    for _, m in game.history:
        if m.type not in ("tribute", "back") or (m.type == "tribute" and game.phase == "tribute"):
            total.update(m.cards)
    return total


def expected_levels(results, rules=Rules()):
    """Levels after each hand, re-derived from the finishing orders (docs/rules.md §8, no resets);
    also whether each hand won the match."""
    levels = [2, 2]
    out = []
    for r in results:
        order, win, dec = r["finish_order"], r["winner"], r["declarer"]
        assert win == order[0] % 2
        place = 2 if len(order) == 2 else order.index((order[0] + 2) % 4) + 1
        own_ace = dec is not None and levels[dec] == 14
        won_match = own_ace and dec == win and {
            "partner_2nd_or_3rd": place in (2, 3), "double_only": place == 2,
            "any_win": True}[rules.ace_rule]
        if not (own_ace and dec == win):
            levels[win] = min(14, levels[win] + rules.upgrade_steps[place - 2])
        out.append((tuple(levels), won_match))
    return out


# -- the generator and the deal -----------------------------------------------------------------

def _sm64(seed):
    """An independent SplitMix64 (straight from docs/design.md) for cross-checking."""
    s = seed % 2**64
    while True:
        s = (s + 0x9E3779B97F4A7C15) % 2**64
        z = s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
        yield z ^ (z >> 31)


def test_splitmix64_known_outputs():
    # Seed 0 outputs of SplitMix64 (checked against a C implementation of the algorithm).
    g = SplitMix64(0)
    assert [g.next() for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4,
                                            0x06C45D188009454F]
    for seed in (1, 12345, 2**64 - 1, -7):
        g, ref = SplitMix64(seed), _sm64(seed)
        assert [g.next() for _ in range(20)] == [next(ref) for _ in range(20)]


@pytest.mark.parametrize("seed", [0, 1, 99, 2**63 + 5])
def test_deal_and_first_leader_follow_design(seed):
    ref = _sm64(seed)
    deck = [i // 2 for i in range(108)]
    for i in range(107, 0, -1):
        j = next(ref) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    codes = [s + r for s in "SHCD" for r in "23456789TJQKA"] + ["SB", "HR"]
    while True:
        i = next(ref) % 108
        if deck[i] < 52 and codes[deck[i]] != "H2":
            leader = i // 27
            break
    game = Game(seed=seed)
    for p in range(4):
        assert game.hand(p) == sort_cards(codes[k] for k in deck[27 * p: 27 * p + 27])
    assert game.current_player == leader
    assert (game.phase, game.level, game.levels, game.declarer, game.hand_number) == \
        ("play", 2, (2, 2), None, 0)
    # The next hand is dealt from the same generator, right after the draw.
    nxt = [i // 2 for i in range(108)]
    for i in range(107, 0, -1):
        j = next(ref) % (i + 1)
        nxt[i], nxt[j] = nxt[j], nxt[i]
    chooser = random.Random(seed)
    while game.hand_number == 0:
        game.play(chooser.choice(sorted(game.legal_moves(), key=Move.sort_key)))
    exchanged = [m for _, m in game.history]
    assert all(m.type in ("tribute", "back") for m in exchanged)
    if not exchanged:  # no tribute yet (anti-tribute): the hands are exactly the deal
        for p in range(4):
            assert game.hand(p) == sort_cards(codes[k] for k in nxt[27 * p: 27 * p + 27])
    else:
        dealt = Counter(codes[k] for p in range(4) for k in nxt[27 * p: 27 * p + 27])
        assert dealt == Counter(FULL_DECK)
        payer = game.history[0][0]
        assert Counter(game.hand(payer)) + Counter(exchanged[0].cards) == \
            Counter(codes[k] for k in nxt[27 * payer: 27 * payer + 27])
    assert game.seed == seed


def test_first_leader_switch_takes_lowest_holder():
    game = Game(seed=5, rules=Rules(first_leader="D2"))
    holders = [p for p in range(4) if "D2" in game.hand(p)]
    assert game.current_player == min(holders)


def test_seed_none_draws_a_seed():
    game = Game()
    assert isinstance(game.seed, int)
    assert Game(seed=game.seed) == Game(seed=game.seed)


def test_same_seed_same_game_different_seed_different_deal():
    a, b = Game(seed=42), Game(seed=42)
    assert a == b
    assert Game(seed=43).hand(0) != a.hand(0)
    ra, rb = random.Random(1), random.Random(1)
    for _ in range(60):
        ma = ra.choice(sorted(a.legal_moves(), key=Move.sort_key))
        mb = rb.choice(sorted(b.legal_moves(), key=Move.sort_key))
        assert ma == mb
        a.play(ma)
        b.play(mb)
        assert a == b
    c = a.clone()
    assert c == a
    c.play(sorted(c.legal_moves(), key=Move.sort_key)[-1])
    assert c != a  # the clone is independent


# -- whole matches --------------------------------------------------------------------------------

RANDOM_RULES = [
    Rules(),
    Rules(double_tie="winners_choose", return_rule="any_but_received", count_disclosure="7"),
    Rules(ace_rule="double_only", tribute_on_first_fourth="3rd_pays", anti_tribute=False,
          upgrade="4-2-1", return_rule="any"),
    Rules(ace_rule="any_win", tribute_on_first_fourth="none", ace_fail_reset=2,
          ace_reset_on_natural_aces=True, count_disclosure="always"),
]
N_MATCHES = 60 if LONG else 4   # each ruleset once by default


@pytest.mark.parametrize("i", range(N_MATCHES))
def test_random_match(i):
    rules = RANDOM_RULES[i % len(RANDOM_RULES)]
    game = Game(seed=1000 + i, rules=rules)
    chooser = random.Random(i)
    full = Counter(FULL_DECK)
    steps = 0
    while not game.is_over:
        assert accounted(game) == full
        p = game.current_player
        assert p not in game.finish_order
        obs = game.observation(p)
        assert obs["hand"] == game.hand(p) and obs["current_player"] == p
        for s in range(4):
            n = len(game.hand(s))
            public = s == p or n <= rules.disclosure_threshold
            assert obs["counts"][s] == (n if public else None)
        moves = sorted(game.legal_moves(), key=Move.sort_key)
        assert moves, "the player to act always has a move"
        if game.phase == "tribute" and not game._choosing:  # noqa: SLF001
            lv = game.level
            values = {single_value(m.cards[0], lv) for m in moves}
            best = max(single_value(c, lv) for c in game.hand(p) if not is_wild(c, lv))
            assert values == {best}
        if game.phase == "play" and obs["top"] is None:
            assert PASS not in moves
        hand_before, results_before = game.hand_number, len(game.results)
        game.play(chooser.choice(moves), seat=p)
        steps += 1
        if game.hand_number != hand_before and not game.is_over:
            # A new hand: tribute or not, as the previous finish calls for.
            r = game.results[-1]
            assert len(game.results) == results_before + 1
            assert game.declarer == r["winner"] and game.level == game.levels[r["winner"]]
            check_hand_start(game, r["finish_order"], rules)
    assert accounted(game) == full
    assert game.current_player is None and game.phase == "over" and game.legal_moves() == []
    if rules.ace_fail_reset is None and not rules.ace_reset_on_natural_aces:
        derived = expected_levels(game.results, rules)
        for r, (lv, won) in zip(game.results, derived):
            assert r["levels"] == lv
        assert [won for _, won in derived] == [False] * (len(derived) - 1) + [True]
    last = game.results[-1]
    assert game.winner == last["winner"] == last["declarer"] and last["level"] == 14
    assert steps > 100


def check_hand_start(game, order, rules):
    first = order[0]
    if len(order) == 2:
        payers = [(first + 1) % 4, (first + 3) % 4]
    elif order[3] == (first + 2) % 4:
        payers = {"4th_pays": [order[3]], "3rd_pays": [order[2]],
                  "none": []}[rules.tribute_on_first_fourth]
    else:
        payers = [order[3]]
    obs = game.observation(0)
    if not payers:
        assert game.phase == "play" and game.current_player == first and not obs["anti_tribute"]
        return
    big = sum(game.hand(p).count("HR") for p in payers)
    if rules.anti_tribute and big == 2:
        assert obs["anti_tribute"] and game.phase == "play" and game.current_player == first
    else:
        assert not obs["anti_tribute"]
        assert game.phase == "tribute" and game.current_player == payers[0]


# -- hand ends, tricks, 接风 ------------------------------------------------------------------------

def test_double_down_ends_the_hand_at_once():
    game = finish_hand([0, 2])
    r = game.results[-1]
    assert r == {"level": 2, "declarer": None, "finish_order": [0, 2], "winner": 0,
                 "levels": (5, 2)}
    assert game.hand_number == 1 and game.declarer == 0 and game.level == 5
    assert game.finish_order == () and all(len(game.hand(p)) == 27 for p in range(4))
    assert game.history == [] and game.observation(1)["plays"] == ()


def test_three_out_ends_the_hand_and_fourth_is_listed_last():
    game = finish_hand([1, 2, 0])
    assert game.results[-1] == {"level": 2, "declarer": None, "finish_order": [1, 2, 0, 3],
                                "winner": 1, "levels": (2, 3)}  # partner 4th: +1


def test_hand_goes_on_after_two_opponents_go_out():
    # 0 and 1 out (not partners): the hand continues; finished seats are skipped.
    hands = make_hands({0: "S3", 1: "S4", 2: "S5 S6"}, (3,))
    game = Game.setup(hands, leader=0)
    game.play(single("S3"))
    game.play(single("S4"))
    assert game.finish_order == (0, 1) and game.phase == "play" and game.current_player == 2
    game.play(PASS)
    game.play(PASS)  # seat 3; top is seat 1, out: seats 2 and 3 must both pass -> partner 3
    assert game.current_player == 3 and game.observation(2)["top"] is None
    assert game.results == []


def test_passed_player_may_play_later_in_the_trick():
    hands = make_hands({0: "S3 S4", 1: "S5 S9", 2: "S6 S7"}, (3,))
    game = Game.setup(hands, leader=0)
    game.play(single("S3"))
    game.play(PASS)           # seat 1 passes ...
    game.play(single("S6"))
    game.play(PASS)           # seat 3
    game.play(PASS)           # seat 0
    game.play(single("S9"))     # ... and plays later in the same trick
    assert game.observation(0)["top"] == (1, single("S9"))


def test_partner_leads_after_last_play_out_jiefeng():
    hands = make_hands({1: "S3", 2: "S4 S5"}, (0, 3))
    game = Game.setup(hands, leader=1)
    game.play(single("S3"))
    assert game.finish_order == (1,) and game.current_player == 2
    for p in (2, 3, 0):
        game.play(PASS, seat=p)
    assert game.current_player == 3 and game.observation(3)["top"] is None
    assert PASS not in game.legal_moves()  # a lead


def test_opponent_who_beats_the_last_play_leads():
    hands = make_hands({1: "S3", 2: "S4 S5"}, (0, 3))
    game = Game.setup(hands, leader=1)
    game.play(single("S3"))
    game.play(single("S4"), seat=2)
    game.play(PASS, seat=3)
    game.play(PASS, seat=0)
    assert game.current_player == 2


def test_observation_plays_and_top():
    hands = make_hands({0: "S3 S4"}, (1, 2, 3))
    game = Game.setup(hands, leader=0)
    game.play(single("S3"))
    game.play(PASS)
    obs = game.observation(3)
    assert obs["plays"] == ((0, single("S3")), (1, PASS))
    assert obs["top"] == (0, single("S3"))
    assert game.history == [(0, single("S3")), (1, PASS)]
    assert set(obs) == {"seat", "phase", "current_player", "level", "levels", "declarer",
                        "hand_number", "hand", "counts", "finish_order", "plays", "top",
                        "tribute", "back", "anti_tribute"}


# -- tribute ---------------------------------------------------------------------------------------

def tribute_game(spec, rest, order, *, levels=(2, 2), rules=Rules()):
    return Game.setup(make_hands(spec, rest), levels=levels, previous_finish=order, rules=rules)


def test_single_tribute_return_and_leader():
    # Team 0 won (0 1st, 2 3rd): seat 3 (4th) pays seat 0. Level 5 (team 0's).
    game = tribute_game({3: "SA DA S3 S4", 0: "S5 C7 DJ SB"}, (1, 2), [0, 1, 2, 3],
                        levels=(5, 9))
    assert game.declarer == 0 and game.level == 5 and game.phase == "tribute"
    assert game.current_player == 3
    assert game.legal_moves() == [tribute("SA"), tribute("DA")]
    game.play(tribute("DA"), seat=3)
    assert game.phase == "back" and game.current_player == 0
    assert "DA" not in game.hand(3) and "DA" in game.hand(0)
    # At level 5 the 5 may not go back: only C7 is natural 2..10 and not the level rank.
    assert game.legal_moves() == [back("C7")]
    assert game.observation(1)["tribute"] == ((3, 0, None),)
    assert game.observation(3)["tribute"] == ((3, 0, "DA"),)
    game.play(back("C7"))
    assert game.phase == "play" and game.current_player == 3
    assert sorted(game.hand(3)) == sorted(["SA", "S3", "S4", "C7"])
    obs = game.observation(1)
    assert obs["tribute"] == ((3, 0, "DA"),) and obs["back"] == ((0, 3, "C7"),)
    assert not obs["anti_tribute"]
    assert [m.type for _, m in game.history] == ["tribute", "back"]


def test_tribute_at_level_2_pays_level_card_never_the_wild():
    game = tribute_game({3: "H2 H2 S2 D2 SA"}, (0, 1, 2), [0, 1, 2, 3])
    assert game.legal_moves() == [tribute("S2"), tribute("D2")]
    clone = game.clone()
    with pytest.raises(IllegalMoveError):
        game.play(tribute("H2"))
    with pytest.raises(IllegalMoveError):
        game.play(tribute("SA"))
    assert game == clone


def test_payer_with_big_joker_and_wild_pays_the_joker():
    game = tribute_game({3: "HR H2 SB S2"}, (0, 1, 2), [0, 1, 2, 3])
    assert game.legal_moves() == [tribute("HR")]


def test_double_down_higher_card_to_first_and_return_order():
    # 0 and 2 went out 1st and 2nd: payers 1 then 3 (from the seat after 1st).
    game = tribute_game({1: "SA S3", 3: "HR S4", 0: "S6 S7 SB", 2: "S8 S9 SB"}, (0, 2),
                        [0, 2], levels=(7, 2))
    assert game.phase == "tribute" and game.current_player == 1
    game.play(tribute("SA"))
    assert game.current_player == 3
    assert game.observation(0)["tribute"] == ((1, None, None),)  # receiver not known yet
    assert game.observation(1)["tribute"] == ((1, None, "SA"),)
    game.play(tribute("HR"))
    assert "HR" in game.hand(0) and "SA" in game.hand(2)
    assert game.phase == "back" and game.current_player == 0
    assert game.observation(0)["tribute"] == ((1, 2, None), (3, 0, "HR"))
    game.play(back("S6"))
    assert game.current_player == 2 and "S6" in game.hand(3)
    assert game.observation(2)["back"] == ((0, 3, None),)
    assert game.observation(3)["back"] == ((0, 3, "S6"),)
    game.play(back("S8"))
    assert "S8" in game.hand(1)
    assert game.phase == "play" and game.current_player == 3  # the payer of 1st leads
    obs = game.observation(1)
    assert obs["tribute"] == ((1, 2, "SA"), (3, 0, "HR"))
    assert obs["back"] == ((0, 3, "S6"), (2, 1, "S8"))


def test_double_down_equal_cards_clockwise():
    # 2 1st, 0 2nd: payers 3 then 1. Equal (A vs A): each gives to prev(p): 3 -> 2, 1 -> 0.
    game = tribute_game({3: "SA S3", 1: "DA S4"}, (0, 2), [2, 0], levels=(2, 6))
    assert game.level == 2 and game.current_player == 3
    game.play(tribute("SA"))
    game.play(tribute("DA"))
    assert "SA" in game.hand(2) and "DA" in game.hand(0)
    assert game.phase == "back" and game.current_player == 2
    b2 = game.legal_moves()[0]
    game.play(b2)
    game.play(game.legal_moves()[0])
    assert b2.cards[0] in game.hand(3)
    assert game.current_player == 3  # the player after 1st leads


def test_double_down_equal_cards_winners_choose():
    rules = Rules(double_tie="winners_choose")
    game = tribute_game({1: "SA S3", 3: "DA S4"}, (0, 2), [0, 2], rules=rules)
    game.play(tribute("SA"))
    game.play(tribute("DA"))
    assert game.phase == "tribute" and game.current_player == 0
    assert game.legal_moves() == [tribute("SA"), tribute("DA")]
    sa, da = game.hand(2).count("SA"), game.hand(0).count("DA")
    game.play(tribute("DA"))
    assert game.hand(0).count("DA") == da + 1 and game.hand(2).count("SA") == sa + 1
    assert game.observation(0)["tribute"] == ((1, 2, None), (3, 0, "DA"))
    game.play(back(game.legal_moves()[0].cards[0]))  # 0 returns to 3
    back0 = game.observation(0)["back"][0]
    assert back0[:2] == (0, 3)
    game.play(back(game.legal_moves()[0].cards[0]))
    assert game.observation(0)["back"][1][:2] == (2, 1)
    assert game.current_player == 1 and game.phase == "play"
    assert [m.type for _, m in game.history] == ["tribute"] * 3 + ["back"] * 2


def test_winners_choose_same_code_falls_back_to_clockwise():
    rules = Rules(double_tie="winners_choose")
    game = tribute_game({1: "SA S3", 3: "SA S4"}, (0, 2), [0, 2], rules=rules)
    game.play(tribute("SA"))
    game.play(tribute("SA"))
    assert game.legal_moves() == [tribute("SA")]
    game.play(tribute("SA"))
    assert game.hand(0).count("SA") == 1 and game.hand(2).count("SA") == 1
    assert game.observation(0)["tribute"] == ((1, 0, "SA"), (3, 2, None))


def test_anti_tribute_single_payer_both_big_jokers():
    game = tribute_game({3: "HR HR S3"}, (0, 1, 2), [0, 1, 2, 3])
    assert game.phase == "play" and game.current_player == 0
    obs = game.observation(2)
    assert obs["anti_tribute"] and obs["tribute"] == () and obs["back"] == ()
    assert game.hand(3) == ("S3", "HR", "HR") and game.history == []


def test_anti_tribute_double_one_big_joker_each():
    game = tribute_game({1: "HR S3", 3: "HR S4"}, (0, 2), [2, 0])
    assert game.phase == "play" and game.current_player == 2
    assert game.observation(0)["anti_tribute"]


def test_anti_tribute_switch_off_pays_the_joker():
    game = tribute_game({3: "HR HR S3"}, (0, 1, 2), [0, 1, 2, 3],
                        rules=Rules(anti_tribute=False))
    assert game.phase == "tribute" and game.legal_moves() == [tribute("HR")]


def test_non_paying_loser_with_both_big_jokers_does_not_stop_tribute():
    game = tribute_game({1: "HR HR", 3: "SA S3"}, (0, 2), [0, 1, 2, 3])
    assert game.phase == "tribute" and game.current_player == 3
    assert not game.observation(0)["anti_tribute"]


@pytest.mark.parametrize("mode, payer, phase", [("4th_pays", 2, "tribute"),
                                                 ("3rd_pays", 3, "tribute"),
                                                 ("none", None, "play")])
def test_first_and_fourth_switch(mode, payer, phase):
    # 0 1st, its partner 2 4th.
    game = tribute_game({2: "SK S3", 3: "SQ S4"}, (0, 1), [0, 1, 3, 2],
                        rules=Rules(tribute_on_first_fourth=mode))
    assert game.phase == phase
    if payer is None:
        assert game.current_player == 0 and not game.observation(0)["anti_tribute"]
        return
    assert game.current_player == payer
    card = "SK" if payer == 2 else "SQ"
    game.play(tribute(card))
    assert card in game.hand(0) and game.current_player == 0
    game.play(game.legal_moves()[0])
    assert game.phase == "play" and game.current_player == payer


def test_return_no_natural_2_10_returns_lowest_card():
    # Level 5: the receiver holds only J and above (and 5s): lowest single-order value J.
    game = tribute_game({3: "S3 S4 SK", 0: "DJ CJ S5 SQ SB"}, (1, 2), [0, 1, 2, 3],
                        levels=(5, 5))
    game.play(tribute("SK"))
    assert game.legal_moves() == [back("CJ"), back("DJ")]
    clone = game.clone()
    with pytest.raises(IllegalMoveError):
        game.play(back("S5"))
    assert game == clone


@pytest.mark.parametrize("rule, expected", [
    ("natural_2_10", ["S6"]),
    ("any", ["S6", "SQ", "SK", "SB"]),
    ("any_but_received", ["S6", "SQ", "SB"]),
])
def test_return_rules(rule, expected):
    game = tribute_game({3: "S3 S4 SK", 0: "S6 SQ SB"}, (1, 2), [0, 1, 2, 3],
                        rules=Rules(return_rule=rule))
    game.play(tribute("SK"))
    assert game.legal_moves() == [back(c) for c in expected]


def test_tribute_card_reaches_receiver_only_after_every_payment():
    game = tribute_game({1: "SA S3", 3: "SK S4"}, (0, 2), [0, 2])
    n0, n2 = len(game.hand(0)), len(game.hand(2))
    game.play(tribute("SA"))
    assert len(game.hand(1)) == 1 and (len(game.hand(0)), len(game.hand(2))) == (n0, n2)
    game.play(tribute("SK"))
    assert (len(game.hand(0)), len(game.hand(2))) == (n0 + 1, n2 + 1)


# -- levels and the A rule ----------------------------------------------------------------------

def test_level_gains_3_2_1_and_4_2_1():
    assert finish_hand([0, 2]).levels == (5, 2)
    assert finish_hand([0, 1, 2]).levels == (4, 2)
    assert finish_hand([0, 1, 3]).levels == (3, 2)
    assert finish_hand([1, 3], rules=Rules(upgrade="4-2-1")).levels == (2, 6)
    assert finish_hand([1, 0, 3], rules=Rules(upgrade="4-2-1")).levels == (2, 4)


def test_levels_stop_at_ace_and_loser_keeps_level():
    game = finish_hand([0, 2], levels=(13, 9), declarer=1)
    assert game.levels == (14, 9) and game.declarer == 0 and game.level == 14
    game = finish_hand([0, 3, 2], levels=(12, 9), declarer=0)  # +2 from Q
    assert game.levels == (14, 9)


@pytest.mark.parametrize("ace_rule, order, wins", [
    ("partner_2nd_or_3rd", [0, 2], True),
    ("partner_2nd_or_3rd", [0, 1, 2], True),
    ("partner_2nd_or_3rd", [0, 1, 3], False),
    ("double_only", [0, 2], True),
    ("double_only", [0, 1, 2], False),
    ("any_win", [0, 1, 3], True),
])
def test_ace_rule_at_own_ace(ace_rule, order, wins):
    game = finish_hand(order, levels=(14, 8), declarer=0, rules=Rules(ace_rule=ace_rule))
    assert game.is_over is wins
    assert game.levels == (14, 8)
    if wins:
        assert game.winner == 0 and game.phase == "over" and game.current_player is None
        assert game.legal_moves() == [] and len(game.results) == 1
        clone = game.clone()
        with pytest.raises(IllegalMoveError):
            game.play(PASS)
        assert game == clone
    else:
        assert game.winner is None and game.declarer == 0 and game.level == 14


def test_win_at_other_teams_level_only_makes_declarer():
    game = finish_hand([0, 2], levels=(14, 8), declarer=1)
    assert not game.is_over and game.levels == (14, 8) and game.declarer == 0
    assert game.level == 14


def test_losing_at_own_ace_without_reset_keeps_ace():
    game = finish_hand([1, 3], levels=(14, 8), declarer=0)
    assert game.levels == (14, 11) and game.declarer == 1


def test_ace_fail_reset_one_failure():
    game = finish_hand([0, 1, 3], levels=(14, 8), declarer=0, rules=Rules(ace_fail_reset=1))
    assert game.levels == (2, 8) and game.declarer == 0 and game.level == 2


def test_ace_fail_reset_counts_failures():
    rules = Rules(ace_fail_reset=2, ace_rule="double_only")
    game = finish_hand([1, 0, 3], levels=(14, 8), declarer=0, rules=rules)
    assert game.levels == (14, 10) and game.declarer == 1  # one failure, still at A
    # One failure (1st-and-4th at its own A), then a second hand at its own A played out.
    game = finish_hand([0, 1, 3], levels=(14, 8), declarer=0, rules=rules)
    assert game.levels == (14, 8)  # first failure
    chooser = random.Random(3)
    while len(game.results) < 2:
        game.play(chooser.choice(sorted(game.legal_moves(), key=Move.sort_key)))
    r = game.results[-1]
    assert r["level"] == 14 and r["declarer"] == 0
    if game.is_over:  # team 0 finished 1st and 2nd: the match is won, no failure
        assert r["finish_order"][:2] in ([0, 2], [2, 0])
    else:
        assert game.levels[0] == 2


def test_ace_reset_on_natural_aces():
    rules = Rules(ace_reset_on_natural_aces=True)
    # Team 0 at its own A; seat 1 (opponent) goes out first on SA: team 0 back to 2.
    game = finish_hand([1, 0, 2], levels=(14, 8), declarer=0, rules=rules,
                       cards=["SA", "SB", "HR"])
    assert game.levels == (2, 9) and game.declarer == 1
    # The same on the wild HA (a level card, not a natural ace): no reset.
    game = finish_hand([1, 0, 2], levels=(14, 8), declarer=0, rules=rules,
                       cards=["HA", "SB", "HR"])
    assert game.levels == (14, 9)
    # Team 0 wins 1st-and-4th but the first opponent out (2nd) went out on DA: reset.
    game = finish_hand([0, 1, 3], levels=(14, 8), declarer=0, rules=rules,
                       cards=["SK", "DA", "SB"])
    assert game.levels == (2, 8) and game.declarer == 0
    # Switch off: nothing happens.
    game = finish_hand([1, 0, 2], levels=(14, 8), declarer=0, cards=["SA", "SB", "HR"])
    assert game.levels == (14, 9)


# -- information ------------------------------------------------------------------------------------

def disclosure_game(rules):
    hands = make_hands({0: " ".join(FULL_DECK[:11]), 1: " ".join(FULL_DECK[11:21]),
                        2: " ".join(FULL_DECK[21:28])}, (3,))
    return Game.setup(hands, leader=0, rules=rules)


@pytest.mark.parametrize("mode, seen_by_1", [
    ("10", (None, 10, 7, None)),
    ("7", (None, 10, 7, None)),
    ("always", (11, 10, 7, 80)),
])
def test_count_disclosure(mode, seen_by_1):
    game = disclosure_game(Rules(count_disclosure=mode))
    assert game.observation(1)["counts"] == seen_by_1
    assert game.observation(3)["counts"][3] == 80
    assert game.observation(0)["counts"][0] == 11


def test_count_disclosure_7_hides_8_to_10():
    game = disclosure_game(Rules(count_disclosure="7"))
    assert game.observation(0)["counts"][1] is None
    assert game.observation(0)["counts"][2] == 7


def test_counts_are_taken_at_observation_time():
    game = disclosure_game(Rules())
    assert game.observation(2)["counts"][0] is None
    game.play(Move("Single", "2", ["S2"]))  # 11 -> 10 cards: now public
    assert game.observation(2)["counts"][0] == 10


def test_observation_hides_other_hands():
    game = Game(seed=8)
    for p in range(4):
        obs = game.observation(p)
        assert obs["hand"] == game.hand(p) and obs["seat"] == p
        assert obs["counts"] == tuple(27 if s == p else None for s in range(4))


# -- bad input -------------------------------------------------------------------------------------

def test_bad_input_leaves_state_unchanged():
    hands = make_hands({0: "S3 S4 S5 D9 H7", 1: "S6"}, (2, 3))
    game = Game.setup(hands, leader=0)
    before = game.clone()
    bad = [
        (["Single", "3", ["Z3"]], ValueError),              # bad code
        (["Single", "3"], ValueError),                       # not a move
        ("S3", TypeError),                                   # not a move type
        (Move("Pair", "9", ["D9", "S3"]), ValueError),       # cards do not make that reading
        (Move("Single", "K", ["SK"]), IllegalMoveError),     # not in hand
        (PASS, IllegalMoveError),                            # pass on lead
        (tribute("S3"), IllegalMoveError),                         # wrong phase
        (back("S3"), IllegalMoveError),
    ]
    for move, exc in bad:
        with pytest.raises(exc):
            game.play(move)
        assert game == before
    with pytest.raises(IllegalMoveError):
        game.play(single("S3"), seat=1)  # wrong seat
    with pytest.raises(ValueError):
        game.play(single("S3"), seat=4)
    with pytest.raises(TypeError):
        game.play(single("S3"), seat="0")
    assert game == before


def test_does_not_beat_and_platform_lists():
    hands = make_hands({0: "S5 S4", 1: "S3 S6"}, (2, 3))
    game = Game.setup(hands, leader=0)
    game.play(["Single", "5", ["S5"]], seat=0)
    before = game.clone()
    with pytest.raises(IllegalMoveError, match="does not beat"):
        game.play(["Single", "3", ["S3"]])
    assert game == before
    game.play(["Single", "6", ["S6"]])
    game.play(["PASS", "PASS", "PASS"])
    assert game.observation(0)["plays"][-1] == (2, PASS)


def test_play_moves_in_tribute_phase_are_illegal():
    game = tribute_game({3: "SA S3"}, (0, 1, 2), [0, 1, 2, 3])
    before = game.clone()
    for move in (single("S3"), PASS, back("S3")):
        with pytest.raises(IllegalMoveError):
            game.play(move)
        assert game == before
    with pytest.raises(IllegalMoveError):
        game.play(tribute("SA"), seat=0)
    assert game == before


def test_setup_validation():
    good = make_hands({0: "S3"}, (1, 2, 3))
    with pytest.raises(ValueError, match="108-card deck"):
        Game.setup([h[:] for h in good[:3]] + [good[3][1:]])
    with pytest.raises(ValueError):
        Game.setup(good[:3])
    with pytest.raises(ValueError, match=r"levels \(2, 2\)"):
        Game.setup(good, levels=(5, 2))
    with pytest.raises(ValueError, match="declarer"):
        Game.setup(good, levels=(5, 2), declarer=1, previous_finish=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="leader"):
        Game.setup(good, previous_finish=[0, 1, 2, 3], leader=0)
    with pytest.raises(ValueError, match="distinct"):
        Game.setup(good, previous_finish=[0, 0, 1])
    with pytest.raises(ValueError, match="double-down"):
        Game.setup(good, previous_finish=[0, 1])
    with pytest.raises(ValueError):
        Game.setup(good, leader=5)
    with pytest.raises(TypeError):
        Game.setup(good, rules={"upgrade": "3-2-1"})
    with pytest.raises(ValueError):
        Game.setup([["S3", "XX"]] + good[1:])
    g = Game.setup(good, previous_finish=[0, 1, 2])  # 4th inferred: seat 3 pays seat 0
    assert g.declarer == 0 and g.current_player == 3 and g.phase == "tribute"


def test_setup_drawn_leader_is_reproducible():
    hands = make_hands({}, (0, 1, 2, 3))
    a, b = Game.setup(hands, seed=9), Game.setup(hands, seed=9)
    assert a == b and a.current_player in range(4)


def test_observation_bad_seat():
    game = Game(seed=1)
    with pytest.raises(ValueError):
        game.observation(4)
    with pytest.raises(TypeError):
        game.observation(None)

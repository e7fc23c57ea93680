"""Rules audit of the match state machine (docs/rules.md §7-10 and the §12 game switches), run
against every ``Game`` of the ``game_cls`` fixture.

Two parts:

* Constructed deals (``Game.setup``) for the cases the §13 list touches only lightly: trick
  ends and 接风 with players already out, the last two players, each
  ``tribute_on_first_fourth`` value with its leader, anti-tribute counting only the payers,
  double-down assignment with level cards, return at levels 10, A and 2, count disclosure at
  exactly 10/11 and 7/8 cards, the A rule variants and resets.
* ``RulesMonitor``: an independent tracker written from docs/rules.md and docs/rules.md §14 that
  follows random matches move by move and predicts, before every step, the player to act, the
  phase, the legal tribute/return choices, the leader after the exchange, every hand's
  finishing order, levels, declarer and match winner, and the public card counts.

Expectations are derived from the rules by hand, never from an engine's output. Default run:
a few seconds per engine. ``--long`` plays many more monitored matches (minutes).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from guandan_fast.cards import FULL_DECK, is_wild, natural_value, single_value, sort_cards
from guandan_fast.moves import PASS, IllegalMoveError, Move
from guandan_fast.rules import Rules
from helpers import LONG, back, hand_with_finish, make_hands, single, tribute


def partner(p):
    return (p + 2) % 4


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
# trick flow with players out (docs/rules.md §7.4-7.7)
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
# tribute, anti-tribute, return and the leader (docs/rules.md §9, §12)
# ------------------------------------------------------------------------------------------------

FIRST_FOURTH = [0, 1, 3, 2]  # seat 0 1st, its partner 2 4th


def test_first_fourth_third_pays(game_cls):
    rules = Rules(tribute_on_first_fourth="3rd_pays")
    game = game_cls.setup(make_hands({3: "SQ S4", 0: "S6 SK"}, (1, 2)),
                          previous_finish=FIRST_FOURTH, rules=rules)
    assert game.phase == "tribute" and game.current_player == 3
    assert list(game.legal_moves()) == [tribute("SQ")]
    game.play(tribute("SQ"))
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
    assert list(game.legal_moves()) == [tribute("SK")]
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
    assert list(game.legal_moves()) == [tribute("HR")]
    game.play(tribute("HR"))
    assert game.current_player == 3 and list(game.legal_moves()) == [tribute("SB")]
    game.play(tribute("SB"))
    # HR > SB: HR goes to 1st (0), SB to 2nd (2); seat 1 paid 1st and will lead.
    assert "HR" in game.hand(0) and "SB" in game.hand(2)
    assert game.phase == "back" and game.current_player == 0


def test_double_down_level_card_outranks_an_ace(game_cls):
    # Level 7 (team 0's). Payer 1 holds both wilds and an ace: the wilds are not paid, SA is.
    # Payer 3's highest is the level card C7 (15 > 14): it goes to 1st and seat 3 leads.
    game = game_cls.setup(make_hands({1: "H7 H7 SA S3", 3: "C7 S4", 0: "S5 SK", 2: "S6 SQ"},
                                     (0, 2)), levels=(7, 2), previous_finish=[0, 2])
    assert game.level == 7 and game.current_player == 1
    assert list(game.legal_moves()) == [tribute("SA")]
    game.play(tribute("SA"))
    assert list(game.legal_moves()) == [tribute("C7")]
    game.play(tribute("C7"))
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
    assert list(game.legal_moves()) == [tribute("S7")]
    game.play(tribute("S7"))
    assert list(game.legal_moves()) == [tribute("D7")]  # the wild H7 is never paid
    game.play(tribute("D7"))
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
    assert set(game.legal_moves()) == {tribute("S7"), tribute("D7")} and len(game.legal_moves()) == 2
    game.play(tribute("D7"))  # 1st takes seat 0's card; seat 2's goes to 2nd
    assert "D7" in game.hand(1) and "S7" in game.hand(3)
    assert game.phase == "back" and game.current_player == 1
    game.play(back("S5"))  # to seat 0, whose card he took
    game.play(back("S6"), seat=3)  # to seat 2
    assert game.hand(0) == ("S4", "S5", "H7") and game.hand(2) == ("S3", "S6")
    assert game.phase == "play" and game.current_player == 2  # rules.md §14: after 1st


def test_tribute_of_a_level_card_choice_of_suits(game_cls):
    # Level 9: the payer's highest non-wild cards are S9 and D9 (value 15), either may be paid.
    game = game_cls.setup(make_hands({3: "H9 H9 S9 D9 SA S3"}, (0, 1, 2)), levels=(9, 2),
                          previous_finish=[0, 1, 2, 3])
    assert set(game.legal_moves()) == {tribute("S9"), tribute("D9")} and len(game.legal_moves()) == 2
    before = game.clone()
    with pytest.raises(IllegalMoveError):
        game.play(tribute("H9"))
    assert game == before


def single_tribute(game_cls, level, receiver_cards, payer_cards="SK S3"):
    """Seat 0 1st (team 0 at ``level``), seat 3 4th pays; returns the game at the return."""
    game = game_cls.setup(make_hands({3: payer_cards, 0: receiver_cards}, (1, 2)),
                          levels=(level, 2), previous_finish=[0, 1, 2, 3])
    top = max(payer_cards.split(), key=lambda c: single_value(c, level))
    game.play(tribute(top))
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
# card counts (docs/rules.md §7.8, count_disclosure)
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


# ------------------------------------------------------------------------------------------------
# levels and the A rule (docs/rules.md §8, ace_rule, ace_fail_reset, ace_reset_on_natural_aces)
# ------------------------------------------------------------------------------------------------

def test_any_win_needs_the_teams_own_ace(game_cls):
    rules = Rules(ace_rule="any_win")
    game = hand_with_finish(game_cls, [0, 1, 3], (14, 9), 0, rules)
    assert game.is_over and game.winner == 0
    # At the other team's level (9) a team at A only becomes declarer (rules.md §14).
    game = hand_with_finish(game_cls, [0, 1, 3], (14, 9), 1, rules)
    assert not game.is_over and game.declarer == 0 and game.levels == (14, 9)
    assert game.level == 14


def test_double_only_first_and_third_at_own_ace_stays(game_cls):
    game = hand_with_finish(game_cls, [2, 1, 0], (14, 6), 0, Rules(ace_rule="double_only"))
    assert not game.is_over and game.winner is None
    assert game.levels == (14, 6) and game.declarer == 0 and game.results[-1]["winner"] == 0


def test_ace_fail_reset_when_the_opponents_win(game_cls):
    game = hand_with_finish(game_cls, [1, 3], (14, 6), 0, Rules(ace_fail_reset=1))
    assert game.levels == (2, 9) and game.declarer == 1 and game.level == 9


def test_natural_aces_reset_not_applied_when_the_match_is_won(game_cls):
    # Team 0 at its own A finishes 1st and 3rd: the match is won although the first opponent
    # out (seat 1, 2nd) went out on a natural ace.
    rules = Rules(ace_reset_on_natural_aces=True)
    game = hand_with_finish(game_cls, [0, 1, 2], (14, 6), 0, rules, cards=("S3", "DA", "SB"))
    assert game.is_over and game.winner == 0 and game.levels == (14, 6)
    # The same finish under double_only fails: now the reset applies (team 0 back to 2).
    rules = Rules(ace_reset_on_natural_aces=True, ace_rule="double_only")
    game = hand_with_finish(game_cls, [0, 1, 2], (14, 6), 0, rules, cards=("S3", "DA", "SB"))
    assert not game.is_over and game.levels == (2, 6) and game.declarer == 0


@pytest.mark.parametrize("cards, reset", [
    ("SA CA", True),              # Pair A: a play of natural aces
    ("ST SJ SQ SK DA", False),    # Straight T holds an ace but is not a play of aces
])
def test_natural_aces_reset_needs_a_play_of_aces(game_cls, cards, reset):
    # Team 0 at its own A; seat 1 goes out first on `cards`, everyone passes, his partner
    # (seat 3) takes the lead (接风) and goes out 2nd: team 1 wins 1st-and-2nd (+3).
    play = Move("Pair", "A", cards) if reset else Move("Straight", "T", cards)
    rules = Rules(ace_reset_on_natural_aces=True)
    game = game_cls.setup(make_hands({1: cards, 3: "S3"}, (0, 2)), levels=(14, 6), declarer=0,
                          leader=1, rules=rules)
    game.play(play, seat=1)
    for p in (2, 3, 0):
        game.play(PASS, seat=p)
    game.play(single("S3"), seat=3)
    assert game.results[-1]["finish_order"][:2] == [1, 3]
    assert game.levels == ((2 if reset else 14), 9)


# ------------------------------------------------------------------------------------------------
# an independent rules monitor over random matches
# ------------------------------------------------------------------------------------------------

class RulesMonitor:
    """Follows a match and predicts what docs/rules.md says must happen next.

    It keeps its own copy of the four hands, the trick (top play, passes, players out), the
    exchange (payers, receivers, leader) and the match (levels, declarer, A failures), all
    from the rules text; ``step`` checks the engine against it, makes a random legal move and
    advances both.
    """

    def __init__(self, game, rules, levels=(2, 2), declarer=None, previous_finish=None):
        self.game, self.rules = game, rules
        self.levels, self.declarer = list(levels), declarer
        self.failures = [0, 0]
        self.over = False
        self.events = Counter()
        self._start_hand(previous_finish)

    @property
    def level(self):
        return 2 if self.declarer is None else self.levels[self.declarer]

    # -- a new hand and its exchange (§9) ------------------------------------------------------
    def _start_hand(self, previous_finish):
        g = self.game
        self.hands = [Counter(g.hand(p)) for p in range(4)]
        assert sum(self.hands, Counter()) == Counter(FULL_DECK)
        self.finish, self.out_move = [], {}
        self.top, self.passes = None, 0
        self.payers, self.paid, self.receiver_of = [], [], {}
        self.choosing, self.receivers, self.backs = False, [], 0
        self.anti = False
        if previous_finish is None:
            self.phase, self.turn = "play", g.current_player  # the draw is checked elsewhere
            return
        order = previous_finish
        first = self.first = order[0]
        if len(order) == 2:
            payers = [(first + 1) % 4, (first + 3) % 4]
        elif order[3] == partner(first):
            payers = {"4th_pays": [order[3]], "3rd_pays": [order[2]],
                      "none": []}[self.rules.tribute_on_first_fourth]
        else:
            payers = [order[3]]
        big_jokers = sum(self.hands[p]["HR"] for p in payers)
        if payers and self.rules.anti_tribute and big_jokers == 2:
            self.anti = True
            self.events["anti_tribute"] += 1
            payers = []
        if not payers:
            self.phase, self.turn = "play", first
            return
        self.payers = payers
        self.phase, self.turn = "tribute", payers[0]

    def _tribute_choices(self, p):
        hand = self.hands[p]
        cards = [c for c in hand if not is_wild(c, self.level)] or list(hand)
        best = max(single_value(c, self.level) for c in cards)
        return {c for c in cards if single_value(c, self.level) == best}

    def _return_choices(self, r):
        hand = self.hands[r]
        rule = self.rules.return_rule
        if rule == "any":
            return set(hand)
        if rule == "any_but_received":
            received = next(c for payer, c in self.paid if self.receiver_of[payer] == r)
            return set(hand) - {received}
        ok = {c for c in hand if c not in ("SB", "HR") and 2 <= natural_value(c) <= 10
              and natural_value(c) != self.level}
        if ok:
            return ok
        low = min(single_value(c, self.level) for c in hand)
        return {c for c in hand if single_value(c, self.level) == low}

    def _deliver(self):
        for payer, card in self.paid:
            self.hands[self.receiver_of[payer]][card] += 1
        self.receivers = sorted(self.receiver_of.values(), key=lambda r: r != self.first)
        self.phase, self.turn = "back", self.receivers[0]

    def _after_tribute(self, p, card):
        self.hands[p][card] -= 1
        self.paid.append((p, card))
        if len(self.paid) < len(self.payers):
            self.turn = self.payers[len(self.paid)]
            return
        first = self.first
        if len(self.paid) == 1:
            self.receiver_of, self.leader = {p: first}, p
            self._deliver()
            return
        (pa, ca), (pb, cb) = self.paid
        va, vb = single_value(ca, self.level), single_value(cb, self.level)
        if va != vb:
            high, low = (pa, pb) if va > vb else (pb, pa)
            self.receiver_of, self.leader = {high: first, low: partner(first)}, high
        else:
            self.events["equal_double"] += 1
            self.leader = (first + 1) % 4
            if self.rules.double_tie == "winners_choose":
                self.choosing, self.turn = True, first
                return
            self.receiver_of = {payer: (payer + 3) % 4 for payer, _ in self.paid}
        self._deliver()

    # -- the end of a hand (§8) ----------------------------------------------------------------
    def _end_hand(self):
        f = self.finish
        order = list(f) if len(f) == 2 else f + [s for s in range(4) if s not in f]
        win = order[0] % 2
        place = order.index(partner(order[0])) + 1
        played, declarer = self.level, self.declarer
        own_ace = declarer is not None and self.levels[declarer] == 14
        at_own_ace_win = own_ace and win == declarer
        won = at_own_ace_win and {"partner_2nd_or_3rd": place in (2, 3),
                                  "double_only": place == 2,
                                  "any_win": True}[self.rules.ace_rule]
        if not won:
            if not at_own_ace_win:
                steps = (3, 2, 1) if self.rules.upgrade == "3-2-1" else (4, 2, 1)
                self.levels[win] = min(14, self.levels[win] + steps[place - 2])
            if own_ace:
                self.events["ace_failure"] += 1
                reset = False
                if self.rules.ace_fail_reset is not None:
                    self.failures[declarer] += 1
                    reset = self.failures[declarer] >= self.rules.ace_fail_reset
                if self.rules.ace_reset_on_natural_aces:
                    opponents = [s for s in f if s % 2 != declarer]
                    # a play made only of natural aces (rules.md §14)
                    if opponents and all(c in ("SA", "CA", "DA")
                                         for c in self.out_move[opponents[0]].cards):
                        reset = True
                if reset:
                    self.events["ace_reset"] += 1
                    self.levels[declarer], self.failures[declarer] = 2, 0
        expected = {"level": played, "declarer": declarer, "finish_order": order,
                    "winner": win, "levels": tuple(self.levels)}
        g = self.game
        assert g.results[-1] == expected, (g.results[-1], expected)
        assert tuple(g.levels) == tuple(self.levels)
        self.events["hands"] += 1
        if won:
            self.over = True
            self.events["match_won"] += 1
            assert g.is_over and g.winner == win and g.phase == "over"
            assert g.current_player is None and list(g.legal_moves()) == []
            return
        assert not g.is_over and g.winner is None
        self.declarer = win
        assert g.declarer == win and g.level == self.level
        self._start_hand(order)

    # -- one step ------------------------------------------------------------------------------
    def step(self, rng):
        g = self.game
        p = self.turn
        assert g.current_player == p and g.phase == self.phase, (g.current_player, p, g.phase)
        moves = list(g.legal_moves())
        assert len(moves) == len(set(moves))
        if self.phase == "tribute":
            assert {m.type for m in moves} == {"tribute"}
            want = ({c for _, c in self.paid} if self.choosing else self._tribute_choices(p))
            assert {m.cards[0] for m in moves} == want
            m = rng.choice(moves)
            g.play(m, seat=p)
            card = m.cards[0]
            self.events["tribute"] += 1
            if self.choosing:
                self.choosing = False
                (pa, ca), (pb, cb) = self.paid
                if ca == cb:
                    self.receiver_of = {payer: (payer + 3) % 4 for payer, _ in self.paid}
                else:
                    mine, other = (pa, pb) if ca == card else (pb, pa)
                    self.receiver_of = {mine: self.first, other: partner(self.first)}
                self._deliver()
            else:
                self._after_tribute(p, card)
        elif self.phase == "back":
            assert {m.type for m in moves} == {"back"}
            assert {m.cards[0] for m in moves} == self._return_choices(p)
            m = rng.choice(moves)
            g.play(m, seat=p)
            card = m.cards[0]
            payer = next(q for q, r in self.receiver_of.items() if r == p)
            self.hands[p][card] -= 1
            self.hands[payer][card] += 1
            self.backs += 1
            self.events["back"] += 1
            if self.backs < len(self.receivers):
                self.turn = self.receivers[self.backs]
            else:
                self.phase, self.turn = "play", self.leader
        else:
            assert (PASS in moves) == (self.top is not None)
            plays = [m for m in moves if m != PASS]
            m = rng.choice(plays) if plays and rng.random() < 0.75 else rng.choice(moves)
            g.play(m, seat=p)
            self._after_play(p, m)
        if not self.over:
            self._check_visible()

    def _after_play(self, p, m):
        in_play = [s for s in range(4) if s not in self.finish]
        if m == PASS:
            self.passes += 1
            top_seat = self.top[0]
            needed = len(in_play) - (1 if top_seat in in_play else 0)
            if self.passes == needed:
                if top_seat not in in_play:
                    self.events["jiefeng"] += 1
                self.turn = top_seat if top_seat in in_play else partner(top_seat)
                self.top, self.passes = None, 0
            else:
                self.turn = self._next_in(p)
            return
        self.hands[p] -= Counter(m.cards)
        if not +self.hands[p]:
            self.finish.append(p)
            self.out_move[p] = m
            f = self.finish
            if len(f) == 3 or (len(f) == 2 and f[1] == partner(f[0])):
                self._end_hand()
                return
        self.top, self.passes = (p, m), 0
        self.turn = self._next_in(p)

    def _next_in(self, p):
        q = (p + 1) % 4
        while q in self.finish:
            q = (q + 1) % 4
        return q

    def _check_visible(self):
        g = self.game
        for p in range(4):
            assert g.hand(p) == sort_cards((+self.hands[p]).elements()), p
        viewer = self.turn
        obs = g.observation(viewer)
        limit = {"10": 10, "7": 7, "always": 10 ** 6}[self.rules.count_disclosure]
        sizes = [sum((+h).values()) for h in self.hands]
        assert obs["counts"] == tuple(n if s == viewer or n <= limit else None
                                      for s, n in enumerate(sizes))
        assert obs["finish_order"] == tuple(self.finish) and obs["top"] == self.top
        assert obs["anti_tribute"] is self.anti


MONITOR_RULES = [
    Rules(),
    Rules(tribute_on_first_fourth="3rd_pays", double_tie="winners_choose", count_disclosure="7",
          return_rule="any_but_received"),
    Rules(tribute_on_first_fourth="none", ace_rule="double_only", ace_fail_reset=1,
          upgrade="4-2-1", return_rule="any"),
    Rules(ace_rule="any_win", ace_reset_on_natural_aces=True, anti_tribute=False,
          count_disclosure="always", sf_as_straight=False, fullhouse_joker_pair=False),
    Rules(ace_fail_reset=2, ace_reset_on_natural_aces=True, double_tie="winners_choose"),
]


def monitored_match(game_cls, seed, max_hands):
    """A monitored random match: from a seed, or from a random deal near the end of a match
    (levels at or near A, a random previous finish so that the first hand has a tribute)."""
    rng = random.Random(seed)
    rules = MONITOR_RULES[seed % len(MONITOR_RULES)]
    if seed % 3 == 0:
        game = game_cls(seed=seed, rules=rules)
        monitor = RulesMonitor(game, rules)
    else:
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        hands = [deck[27 * p: 27 * p + 27] for p in range(4)]
        order = rng.sample(range(4), 4)
        if order[1] == partner(order[0]):
            # 1st and 2nd partners: a double-down, the engine ignores any later seats.
            given, order = (order if rng.random() < 0.5 else order[:2]), order[:2]
        else:
            given = order
        levels = tuple(rng.choice([12, 13, 14, 14]) for _ in range(2))
        game = game_cls.setup(hands, levels=levels, previous_finish=given, seed=seed,
                              rules=rules)
        monitor = RulesMonitor(game, rules, levels, order[0] % 2, order)
    start = len(game.results)
    while not monitor.over and len(game.results) - start < max_hands:
        monitor.step(rng)
    return monitor.events


N_MATCHES = 60 if LONG else 6


def test_rules_monitor_random_matches(game_cls):
    events = Counter()
    for seed in range(N_MATCHES):
        events += monitored_match(game_cls, seed, max_hands=12 if LONG else 3)
    # The matches must have gone through the parts of the rules the monitor checks.
    for what in ("hands", "tribute", "back", "jiefeng", "ace_failure"):
        assert events[what] > 0, (what, dict(events))

"""The expert agent (docs/expert.md): its plan of a hand, its behaviours in constructed
positions, its determinism and privacy, and its strength.

Expected moves follow from the documented policy and the rules (docs/rules.md), not from runs
of the implementation. The strength tests play a bounded number of matches (about 10 s in all).
"""

import random
from collections import Counter

import pytest

import guandan_fast as gf
from guandan_fast import PASS, Move
from guandan_fast.bots import choose
from guandan_fast.expert import choose as decide, hand_value, plan, set_knobs
from guandan_fast.simulate import simulate
from helpers import replay_with_permuted_hidden


def expert(hand, level=2, **kw):
    return choose("expert", hand, level=level, **kw)


def shape(p):
    return sorted((g["type"], g["key"], g["size"]) for g in p)


# -- the plan -------------------------------------------------------------------------------

def test_plan_takes_the_straight_and_makes_a_full_house():
    # 3 4 5 6 7 8 9 with three 3s and a 9 pair: the straight 4..8 leaves 333 + 99 and the K.
    p = plan("S3 H3 C3 C4 S5 S6 S7 S8 D9 S9 HK", 2)
    assert shape(p) == [("Single", 13, 1), ("Straight", 4, 5), ("ThreeWithTwo", 3, 5)]


def test_plan_keeps_a_bomb_whole():
    p = plan("S7 H7 C7 D7 S8 S9 ST SJ", 2)
    assert ("Bomb", 7, 4) in shape(p)
    assert all(g["type"] != "Straight" for g in p)


def test_plan_spends_the_wild_on_a_straight_gap():
    # Level 2: H2 is wild; 3 4 _ 6 7 needs one card: one group instead of four singles.
    p = plan("S3 D4 C6 S7 H2", 2)
    assert shape(p) == [("Straight", 3, 5)]


def test_plan_makes_trips_a_bomb_with_the_wild():
    p = plan("S9 C9 D9 H5 SK", 5)     # H5 is the wild at level 5
    assert ("Bomb", 9, 4) in shape(p)


def test_plan_counts_every_card_once():
    from guandan_fast.cards import FULL_DECK
    rnd = random.Random(1)
    deck = list(FULL_DECK)
    for level in (2, 7, 14):
        for _ in range(200):
            hand = rnd.sample(deck, rnd.randint(1, 27))
            p = plan(hand, level)
            assert sum(g["size"] for g in p) == len(hand)


def test_hand_value_is_the_sum_of_the_plans_groups():
    """The search values hands without writing groups (groups_value); the plan it returns is
    written by eval_groups: both must agree, on hands with many pairs, trips, bombs and wilds."""
    from guandan_fast.cards import FULL_DECK
    rnd = random.Random(2)
    deck = list(FULL_DECK)
    for level in (2, 7, 13, 14):
        wild = "H" + "23456789TJQKA"[level - 2]
        for i in range(300):
            if i % 2:
                hand = rnd.sample(deck, rnd.randint(1, 27))
            else:   # few ranks: same-rank groups, full houses and bombs; sometimes the wilds
                ranks = set(rnd.sample("23456789TJQKA", rnd.randint(2, 6)))
                pool = [c for c in deck if c[1] in ranks or c in ("SB", "HR", wild)]
                hand = rnd.sample(pool, min(len(pool), rnd.randint(4, 20)))
            assert hand_value(hand, level) == sum(g["value"] for g in plan(hand, level)), hand


def test_a_seat_that_remembers_moves_as_one_that_does_not():
    """A compiled seat keeps its plan and the plan values it computed between its decisions
    (expert.pxd ExpertMemo); remembering must never change a move: every move of whole
    expert matches equals expert.choose on the same position, which remembers nothing."""
    from guandan_fast.bots import AGENT_CODES
    from guandan_fast.codec import move
    from guandan_fast.simulate_core import match_seed
    from guandan_fast.tournament_core import BotSeats

    for m in range(2):
        ms = match_seed(4, m)
        bots, g = BotSeats(ms, (AGENT_CODES["expert"],) * 4), gf.Game(seed=ms)
        decisions = 0
        while bots.current >= 0:
            lo, hi = bots.choose()
            assert move(lo, hi) == decide(g), (m, len(g.history))
            g.play_words(lo, hi)
            bots.apply(lo, hi)
            decisions += 1
        assert g.is_over and decisions > 300


def test_plan_rejects_bad_input():
    with pytest.raises(ValueError):
        plan("", 2)
    with pytest.raises(ValueError):
        plan("S3 XX", 2)
    with pytest.raises(ValueError):
        plan("S3", 15)


# -- leading --------------------------------------------------------------------------------

def test_lead_weakest_group_first():
    # Plan: pair of 4s, single 9, pair of As. The 4s are the weakest group.
    assert expert("S4 D4 C9 SA HA") == Move("Pair", "4", "S4 D4")


def test_lead_keeps_control_cards():
    # The joker and the A are control; the 6 goes first.
    assert expert("HR SA D6") == Move("Single", "6", "D6")


def test_lead_feeds_a_partner_with_one_card():
    # Partner (seat 2) holds 1 card: the lowest single, even out of a pair.
    move = expert("S3 D3 C9 C9 SK", counts=[5, 20, 1, 20])
    assert move == Move("Single", "3", "S3")


def test_lead_avoids_singles_when_the_next_opponent_has_one_card():
    # Seat 1 (next) holds one card; a single he could beat is not led: the pair goes.
    move = expert("S4 D9 C9 S6", counts=[4, 1, 20, 20])
    assert move.type == "Pair"


def test_two_groups_left_leads_the_unbeatable_one_first():
    # HR HR is the top pair: no pair can beat it. Lead it (the 3 is the weaker group), keep
    # the lead and go out with the 3.
    move = expert("HR HR S3", counts=[3, 20, 20, 20])
    assert move == Move("Pair", "R", "HR HR")


def test_with_one_beatable_group_the_others_lead_first():
    # Plan: a 4, a pair of Ks, a pair of As. The unseen cards hold no pair above 10, no joker
    # and no level card: only the 4 can be beaten. The expert (run_out) keeps the lead with a
    # pair and leaves the 4 for last; without run_out the weakest group, the 4, goes first.
    kw = dict(counts=[5, 3, 3, 3], unseen="C5 D6 C7 H8 D8 C9 D9 CT DT")
    assert expert("S4 SA HA SK HK", **kw).type == "Pair"
    old = set_knobs({"run_out": 0})
    try:
        assert expert("S4 SA HA SK HK", **kw) == Move("Single", "4", "S4")
    finally:
        set_knobs(old)
    # Two groups the unseen cards can beat (a red joker is unseen): the weakest first.
    kw = dict(counts=[5, 3, 3, 3], unseen="C5 D6 C7 H8 D8 C9 D9 CT HR")
    assert expert("S4 SA SK HK DK", **kw) == Move("Single", "4", "S4")


def test_lead_goes_out_when_possible():
    assert expert("S9 HT CJ DQ SK") == Move("Straight", "9", "S9 HT CJ DQ SK")


# -- following ------------------------------------------------------------------------------

def test_follow_with_the_cheapest_group_of_the_plan():
    # Opponent (seat 1) played a 4: the 5 of the pair stays, the loose 9 wins.
    move = expert("S5 D5 C9 HK", top="Single 4 D4", top_seat=1)
    assert move == Move("Single", "9", "C9")


def test_does_not_overtake_the_partner():
    # Partner (seat 2) leads a K; an A would win but the trick is already the team's.
    assert expert("SA D6 C7", top="Single K SK", top_seat=2) == PASS


def test_does_not_overtake_a_partner_about_to_finish():
    assert expert("S5 D9 CQ", top="Single 4 S4", top_seat=2, counts=[3, 20, 6, 20]) == PASS


def test_keeps_a_bomb_against_a_far_opponent():
    # An opponent with many cards plays an A: no bomb spent on it.
    move = expert("S6 H6 C6 D6 S9 DJ CQ", top="Single A SA", top_seat=1, counts=[7, 20, 20, 20])
    assert move == PASS


def test_bombs_an_opponent_about_to_go_out():
    # Seat 1 holds 2 cards after his A: the bomb stops him.
    move = expert("S6 H6 C6 D6 S9 DJ CQ", top="Single A SA", top_seat=1, counts=[7, 2, 20, 20])
    assert move == Move("Bomb", "6", "S6 H6 C6 D6")


def test_goes_out_over_the_partner():
    assert expert("SA", top="Single K SK", top_seat=2) == Move("Single", "A", "SA")


# -- exchanges ------------------------------------------------------------------------------

def test_return_gives_the_loose_low_card_not_a_pair():
    # Level 5 (no 5 may be returned). The 2s are a pair; the 3 is a loose low single.
    hand = "S2 H2 S3 D7 C7 C9 SK"
    cands = [gf.Move("back", "back", (c,)) for c in ("S2", "H2", "S3", "D7", "C7", "C9")]
    assert expert(hand, level=5, phase="back", moves=cands) == gf.Move("back", "back", ("S3",))


def test_tribute_keeps_the_straight_flush():
    # Level 6: the highest cards are the natural 6s (H6 is wild, never paid). S6 is the top of
    # the spade straight flush 2..6; D6 is loose: D6 is paid, in either order of the offer.
    hand = "S2 S3 S4 S5 S6 D6 C9 SJ"
    cands = [gf.Move("tribute", "tribute", (c,)) for c in ("S6", "D6")]
    want = gf.Move("tribute", "tribute", ("D6",))
    assert expert(hand, level=6, phase="tribute", moves=cands) == want
    assert expert(hand, level=6, phase="tribute", moves=cands[::-1]) == want


# -- determinism, privacy, strength ---------------------------------------------------------

def test_same_seed_same_games_at_any_thread_count():
    agents = ("expert", "greedy", "expert", "greedy")
    a = simulate(matches=8, agents=agents, seed=3, threads=1)
    b = simulate(matches=8, agents=agents, seed=3, threads=2)
    assert (a.team_wins, a.hands, a.plays, a.cards) == (b.team_wins, b.hands, b.plays, b.cards)


@pytest.mark.parametrize("seed", range(40))
def test_same_public_history_different_hidden_cards_same_decision(seed):
    a, b, p = replay_with_permuted_hidden(seed, steps=10 + 3 * seed)
    assert a.hand_number == 0 and not a.is_over
    assert a.hand(p) == b.hand(p)
    assert [a.hand(q) for q in range(4)] != [b.hand(q) for q in range(4)]
    assert decide(a) == decide(b)


def test_beats_random_clearly():
    r = simulate(matches=60, agents=("expert", "random", "expert", "random"), seed=11)
    assert r.team_wins[0] >= 57


def test_beats_greedy_in_duplicate_deals():
    from guandan_fast.tournament import tournament
    p = tournament(["expert", "greedy"], deals=60, seed=5).pair("expert", "greedy")
    assert p.match_ci_paired[0] > 0.6 and p.hand_win_rate > 0.6


# -- the end game ----------------------------------------------------------------------------

def late_position(seed: int, stop):
    """Match `seed` played by random compact moves until `stop(game)` holds in hand 0 (the
    game and the hands each seat started with), or None when the hand ends first."""
    g = gf.Game(seed=seed)
    start = [list(g.hand(q)) for q in range(4)]
    rnd = random.Random(seed)
    while g.hand_number == 0 and not g.is_over:
        if stop(g):
            return g, start
        moves = g.legal_moves(compact=True)
        g.play(moves[rnd.randrange(len(moves))])
    return None


def cards_left(g):
    return [len(g.hand(q)) for q in range(4)]


@pytest.fixture
def endgame_up_to_14_cards():
    from guandan_fast.expert import endgame_limits

    old = endgame_limits(cards=14, nodes=10 ** 6)
    yield
    endgame_limits(*old)


def test_the_end_game_is_played_exactly_when_every_hand_is_known(endgame_up_to_14_cards):
    """Two seats left (their cards the complement of everything seen): the expert's move keeps
    the solved value, and somewhere the rules alone would have given some of it away."""
    from guandan_fast.solve import random_endgame, solve

    improved = 0
    for seed in range(80):
        g = random_endgame(seed=seed, cards=(1, 1, 6, 6), out=2)
        best = solve(g).outcome
        m, rule = decide(g), decide(g, endgame=False)
        after = g.clone()
        after.play(m)
        assert after.is_over or after.hand_number > g.hand_number or solve(after).outcome == best
        if m != rule:
            after = g.clone()
            after.play(rule)
            assert after.hand_number == g.hand_number and solve(after).outcome != best
            improved += 1
    assert improved >= 3


def test_end_game_limits(endgame_up_to_14_cards):
    """Above the card limit (or past the node budget) the rules decide alone."""
    from guandan_fast.expert import endgame_limits
    from guandan_fast.solve import random_endgame

    g = random_endgame(seed=84, cards=(1, 1, 6, 6), out=2)
    assert decide(g) != decide(g, endgame=False)
    endgame_limits(cards=11)
    assert decide(g) == decide(g, endgame=False)
    endgame_limits(cards=12, nodes=1)
    assert decide(g) == decide(g, endgame=False)
    with pytest.raises(ValueError, match="cards must be at most 108, got 109"):
        endgame_limits(cards=109)
    with pytest.raises(TypeError):
        decide(g, endgame=1)


@pytest.mark.parametrize("seed", range(12))
def test_three_seats_in_play_hidden_split_does_not_change_the_decision(seed,
                                                                       endgame_up_to_14_cards):
    """One seat out, three in play, few cards: how the unseen cards split between the two other
    seats is hidden, so the expert (which solves only known positions) decides the same for any
    split with the same counts."""
    found = None
    for s in range(seed * 50, seed * 50 + 50):
        found = late_position(s, lambda g: (len(g.finish_order) == 1
                                            and sum(cards_left(g)) <= 20
                                            and len(g.hand(g.current_player)) > 0))
        if found:
            break
    assert found, "no such position in 50 random hands"
    a, start = found
    p = a.current_player
    played = [Counter() for _ in range(4)]
    for seat, m in a.history:
        played[seat].update(m.cards)
    others = [q for q in range(4) if q != p and len(a.hand(q)) > 0]
    assert len(others) == 2
    pool = [c for q in others for c in a.hand(q)]
    rnd = random.Random(seed)
    decisions = set()
    for _ in range(4):
        rnd.shuffle(pool)
        hands = [sorted(played[q].elements()) + list(a.hand(q)) for q in range(4)]
        k = len(a.hand(others[0]))
        hands[others[0]] = sorted(played[others[0]].elements()) + pool[:k]
        hands[others[1]] = sorted(played[others[1]].elements()) + pool[k:]
        b = gf.Game.setup(hands, leader=a.history[0][0], seed=seed + 1)
        for _, m in a.history:
            b.play(m)
        assert b.hand(p) == a.hand(p) and cards_left(b) == cards_left(a)
        decisions.add(decide(b))
    assert decisions == {decide(a)}

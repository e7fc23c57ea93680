"""The compiled ``Game`` against the reference ``Game``, records, bad input and perft.

The heart of this file is a lockstep differential test: a compiled and a reference game
start from the same seed (or the same ``Game.setup`` deal) and are driven by one seeded
chooser over the legal moves sorted by ``Move.sort_key``; at every step the two
must agree on every public property, the legal-move set (complete, not compact), all four
observations, the history and the results. The chooser favours the moves that shed the most
cards, so that hands end quickly and the slow reference stays affordable; it still picks
among all legal moves (PASS included) some of the time.

Besides matches from ``Game(seed)``, "endgame" matches start from ``Game.setup`` deals at
high levels with a previous finishing order (so each begins with a tribute exchange and
ends within a few hands), some with the big jokers or equal tribute cards arranged so that
anti-tribute and the double-down tie occur; each rules switch of §12 is exercised. The
default run asserts that tribute, returns, anti-tribute, double-downs, 1st-and-4th
finishes, 接风, the winners' choice, every kind of hand end and every A-rule outcome
occurred (counted on the compiled engine alone, through the very matches the battery's parts
play in lockstep).

Long mode: ``.venv/bin/python -m pytest -q -n auto --long tests/test_fast_game.py -k long``
plays 10,000 lockstep matches in 20 slices (parallel workers take a slice each; ``-k
'long_lockstep and 3-'`` picks one). Result and timing: bench/RESULTS.md.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter

import pytest

from guandan_fast.cards import FULL_DECK
from guandan_fast.game import Game as Fast, perft_game, random_playout, sizeof_state
from guandan_fast.moves import PASS, IllegalMoveError, Move
from guandan_fast.perft import perft, perft_reference
from guandan_fast.reference.game import Game as Ref
from guandan_fast.rules import Rules
from helpers import LONG, played

pytestmark = pytest.mark.reference

# Rules variants cycled over the matches: together they switch every §12 option.
RULESETS = [
    Rules(),
    Rules(ace_rule="double_only", count_disclosure="always", double_tie="winners_choose"),
    Rules(ace_rule="any_win", upgrade="4-2-1", return_rule="any", tribute_on_first_fourth="none"),
    Rules(ace_fail_reset=2, ace_reset_on_natural_aces=True, return_rule="any_but_received",
          tribute_on_first_fourth="3rd_pays", count_disclosure="7"),
    Rules(sf_as_straight=False, fullhouse_joker_pair=False, anti_tribute=False,
          first_leader="D2"),
    Rules(double_tie="winners_choose", ace_fail_reset=1, ace_reset_on_natural_aces=True),
]


# ---------------------------------------------------------------------------------------------
# Lockstep driver
# ---------------------------------------------------------------------------------------------

def snapshot(g):
    """Every public part of a game's state (both engines have the same API)."""
    return {
        "phase": g.phase, "current_player": g.current_player, "level": g.level,
        "levels": g.levels, "declarer": g.declarer, "hand_number": g.hand_number,
        "finish_order": g.finish_order, "is_over": g.is_over, "winner": g.winner,
        "hands": [g.hand(p) for p in range(4)], "history": g.history, "results": g.results,
        "observations": [g.observation(p) for p in range(4)],
    }


def choose(rng: random.Random, moves: list) -> Move:
    moves = sorted(moves, key=Move.sort_key)
    if rng.random() < 0.8:
        most = max(len(m.cards) for m in moves)
        return rng.choice([m for m in moves if len(m.cards) == most])
    return rng.choice(moves)


class Stats(Counter):
    """What happened in the lockstep matches (for the coverage assertions)."""

    def see_step(self, before: dict, game) -> None:
        obs = game.observation(0)
        if game.phase == "tribute":
            self["tribute_phase"] += 1
            if len(obs["tribute"]) == 2 and all(r is None for _, r, _ in obs["tribute"]):
                self["winners_choose"] += 1
        if game.phase == "back":
            self["back_phase"] += 1
        if obs["anti_tribute"]:
            self["anti_tribute_steps"] += 1
        top = before["observations"][0]["top"]
        if (top is not None and game.hand_number == before["hand_number"]
                and obs["top"] is None and game.phase == "play"):
            # A trick ended: did the partner of a player who went out take the lead (接风)?
            if top[0] in game.finish_order and game.current_player == (top[0] + 2) % 4:
                self["jiefeng"] += 1

    def see_result(self, res: dict, levels_before: tuple, rules: Rules, final: bool) -> None:
        order = res["finish_order"]
        win = res["winner"]
        if len(order) == 2:
            self["end_double_down"] += 1
            place = 2
        else:
            self["end_three_out"] += 1
            place = order.index((order[0] + 2) % 4) + 1
            if place == 4:
                self["first_and_fourth"] += 1
        decl = res["declarer"]
        own_ace = decl is not None and levels_before[decl] == 14
        if own_ace and win == decl:
            if final:
                self[f"match_won_{rules.ace_rule}_partner_{place}"] += 1
            else:
                self["ace_not_enough"] += 1
        elif levels_before[win] == 14:
            self["win_at_other_level_while_at_A"] += 1
        if own_ace and res["levels"][decl] == 2:
            self["ace_reset"] += 1


def lockstep(fast, ref, rng: random.Random, rules: Rules, stats: Stats,
             max_steps: int = 20000, hands: int | None = None) -> None:
    """Drive both games to the end of the match (or of its first ``hands`` hands),
    comparing everything at every step. ``ref`` None drives the fast game alone through
    the same moves (the moves are chosen from the sorted list, so a match that agrees in
    lockstep takes the same path alone): the coverage count, without the oracle's cost."""
    assert fast == fast.clone()
    steps = 0
    ref_or_fast = fast if ref is None else ref
    levels_before = ref_or_fast.levels
    seen_results = 0
    while True:
        if ref is not None:
            before = snapshot(ref)
            assert snapshot(fast) == before, f"states differ at step {steps}"
        else:                            # what Stats.see_step reads of the state before
            before = {"observations": [fast.observation(0)], "hand_number": fast.hand_number}
        if ref_or_fast.is_over or (hands is not None and len(ref_or_fast.results) >= hands):
            break
        fast_moves = fast.legal_moves()
        assert len(set(fast_moves)) == len(fast_moves), "duplicate moves"
        if ref is not None:
            ref_moves = ref.legal_moves()
            assert set(fast_moves) == set(ref_moves), (
                f"legal moves differ at step {steps}: only fast {set(fast_moves) - set(ref_moves)}"
                f", only reference {set(ref_moves) - set(fast_moves)}")
        move = choose(rng, fast_moves)
        if ref is not None:
            ref.play(move)
        fast.play(move)
        steps += 1
        assert steps < max_steps, "match did not end"
        stats.see_step(before, ref_or_fast)
        results = ref_or_fast.results
        while seen_results < len(results):
            final = ref_or_fast.is_over and seen_results == len(results) - 1
            stats.see_result(results[seen_results], levels_before, rules, final)
            levels_before = results[seen_results]["levels"]
            seen_results += 1
    stats["matches"] += 1
    stats["steps"] += steps
    stats["hands"] += len(ref_or_fast.results)


def full_match(seed: int, stats: Stats, rules: Rules | None = None, oracle: bool = True) -> None:
    rules = RULESETS[seed % len(RULESETS)] if rules is None else rules
    lockstep(Fast(seed, rules), Ref(seed, rules) if oracle else None, random.Random(seed), rules,
             stats)


def endgame_setup(seed: int, both_at_ace: bool = False) -> dict:
    """``Game.setup`` arguments of a short match: a shuffled deal, high levels (both A with
    ``both_at_ace``), and a previous finishing order (so a tribute exchange), sometimes
    arranged for anti-tribute or a double-down tie."""
    rng = random.Random(seed)
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    hands = [deck[27 * p: 27 * p + 27] for p in range(4)]
    first = rng.randrange(4)
    partner = (first + 2) % 4
    others = [(first + 1) % 4, (first + 3) % 4]
    rng.shuffle(others)
    shape = rng.choice(["double", "double", "partner_third", "partner_third", "first_fourth"])
    if shape == "double":
        order = [first, partner]
    elif shape == "first_fourth":
        order = [first] + others          # the partner is 4th
    else:
        order = [first, others[0], partner]  # others[1] is 4th
    win = first % 2
    levels = [rng.choice([13, 14, 14, 14]), rng.choice([2, 12, 14, 14])]
    if both_at_ace:
        levels = [14, 14]
    if win == 1:
        levels.reverse()
    payers = others if len(order) == 2 else [[s for s in range(4) if s not in order][0]]
    arrange = rng.random()
    if arrange < 0.2:
        # Anti-tribute: the paying side gets both big jokers.
        _give(hands, "HR", payers[0], rng)
        _give(hands, "HR", payers[-1], rng)
    elif arrange < 0.4 and len(payers) == 2:
        # A double-down tie: each payer's best card is a small joker.
        for p in range(4):
            if p not in payers:
                _give(hands, "HR", p, rng, only_from=payers)
        _give(hands, "SB", payers[0], rng)
        _give(hands, "SB", payers[1], rng)
    return {"hands": hands, "levels": tuple(levels), "previous_finish": order,
            "seed": seed}


def _give(hands, card, to, rng, only_from=None):
    """Move one copy of ``card`` into seat ``to`` (swapping a random card back), unless
    ``to`` already has a copy not yet given."""
    holders = [p for p in range(4) if card in hands[p] and p != to
               and (only_from is None or p in only_from)]
    if not holders or (only_from is None and hands[to].count(card) >= 2):
        return
    src = holders[0]
    hands[src].remove(card)
    swap = rng.choice([c for c in hands[to] if c != card])
    hands[to].remove(swap)
    hands[to].append(card)
    hands[src].append(swap)


def endgame_match(seed: int, stats: Stats, both_at_ace: bool = False,
                  any_win: bool = False, rules: Rules | None = None, oracle: bool = True) -> None:
    rules = RULESETS[seed % len(RULESETS)] if rules is None else rules
    if any_win:
        # Every win at the declarer's own A ends the match: at most a couple of hands.
        rules = dataclasses.replace(rules, ace_rule="any_win")
    args = endgame_setup(seed, both_at_ace)
    fast = Fast.setup(args["hands"], levels=args["levels"],
                      previous_finish=args["previous_finish"], seed=seed, rules=rules)
    ref = None if not oracle else Ref.setup(args["hands"], levels=args["levels"],
                                            previous_finish=args["previous_finish"], seed=seed,
                                            rules=rules)
    lockstep(fast, ref, random.Random(seed), rules, stats)


# ---------------------------------------------------------------------------------------------
# Lockstep tests
# ---------------------------------------------------------------------------------------------

FULL_MATCHES = 3
ENDGAME_MATCHES = 60 if LONG else 20


EVENTS = ("tribute_phase", "back_phase", "anti_tribute_steps", "winners_choose", "jiefeng",
          "end_double_down", "end_three_out", "first_and_fourth", "ace_not_enough",
          "win_at_other_level_while_at_A", "ace_reset",
          "match_won_partner_2nd_or_3rd_partner_2", "match_won_partner_2nd_or_3rd_partner_3",
          "match_won_double_only_partner_2", "match_won_any_win_partner_4")


# The battery in parts (xdist spreads them over the workers; it was the suite's longest unit):
# each part plays its matches in lockstep with the oracle. The coverage test drives the fast
# engine alone through the same matches: they take the same path (the parts prove it), so
# what occurs there occurred in the lockstep matches.
ENDGAME_PARTS = 5


PARTS = FULL_MATCHES + ENDGAME_PARTS   # (parts of similar length, for the parallel workers)


def battery(part: int, stats: Stats, oracle: bool = True) -> None:
    """Part ``part`` of the lockstep battery: one full match each for the first FULL_MATCHES
    parts, then every ENDGAME_PARTS-th end-game match."""
    if part < FULL_MATCHES:
        full_match(part, stats, oracle=oracle)
    else:
        for seed in range(part - FULL_MATCHES, ENDGAME_MATCHES, ENDGAME_PARTS):
            endgame_match(1000 + seed, stats, oracle=oracle)


@pytest.mark.parametrize("part", range(PARTS))
def test_lockstep_battery_agrees_move_by_move(part):
    stats = Stats()
    battery(part, stats)
    expected = (1 if part < FULL_MATCHES
                else len(range(part - FULL_MATCHES, ENDGAME_MATCHES, ENDGAME_PARTS)))
    assert stats["matches"] == expected


def test_lockstep_battery_covers_every_event():
    """Every situation the battery is meant to exercise occurs in its matches."""
    stats = Stats()
    for part in range(PARTS):
        battery(part, stats, oracle=False)
    assert stats["matches"] == FULL_MATCHES + ENDGAME_MATCHES
    assert stats["hands"] > FULL_MATCHES * 5
    missing = [event for event in EVENTS if stats[event] == 0]
    assert not missing, f"never occurred: {missing}; counts: {dict(stats)}"


LONG_MATCHES = 10_000
LONG_SLICES = 20


def long_schedule(indices) -> Stats:
    """Lockstep matches ``indices`` of the long schedule: 1 in 100 from Game(seed), the rest
    endgame matches with both teams at A (two in three of them under ace_rule='any_win'), which
    end within a few hands."""
    stats = Stats()
    for i in indices:
        # Rulesets and the any_win switch vary with i // 2 and i // 6, so that every slice
        # (i mod LONG_SLICES) meets every ruleset, with and without any_win.
        rules = RULESETS[(i // 2) % len(RULESETS)]
        if i % 100 == 0:
            full_match(100_000 + i, stats, RULESETS[(i // 100) % len(RULESETS)])
        else:
            endgame_match(200_000 + i, stats, both_at_ace=True, any_win=(i // 12) % 3 != 0,
                          rules=rules)
    return stats


def test_long_schedule_start():
    """Five matches of the long schedule at both teams' A (its full matches, 1 in 100, are
    what the battery above plays; --long plays them all)."""
    stats = long_schedule(range(1, 6))
    assert stats["matches"] == 5
    assert stats["hands"] >= 5


@pytest.mark.long
@pytest.mark.parametrize("part", range(LONG_SLICES), ids=lambda k: f"{k}-of-{LONG_SLICES}")
def test_long_lockstep(part):
    """--long: the 10,000 matches of the long schedule, one slice per test."""
    indices = range(part, LONG_MATCHES, LONG_SLICES)
    stats = long_schedule(indices)
    print(json.dumps(dict(stats), sort_keys=True))
    assert stats["matches"] == len(indices)


def test_first_deals_and_leaders_match_reference():
    for seed in list(range(200)) + [2**64 - 1, 2**64 + 5, -3, 123456789123456789]:
        f, r = Fast(seed), Ref(seed)
        assert [f.hand(p) for p in range(4)] == [r.hand(p) for p in range(4)]
        assert f.current_player == r.current_player
        assert f.seed == seed
    f, r = Fast(5, Rules(first_leader="CT")), Ref(5, Rules(first_leader="CT"))
    assert f.current_player == r.current_player
    assert "CT" in f.hand(f.current_player)
    assert all("CT" not in f.hand(p) for p in range(f.current_player))


def test_setup_leader_draw_matches_reference():
    rng = random.Random(9)
    for seed in range(30):
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        cut = sorted(rng.sample(range(1, 108), 3))
        hands = [deck[:cut[0]], deck[cut[0]:cut[1]], deck[cut[1]:cut[2]], deck[cut[2]:]]
        f, r = Fast.setup(hands, seed=seed), Ref.setup(hands, seed=seed)
        assert snapshot(f) == snapshot(r)
        assert f == f.clone()


def test_lockstep_uneven_constructed_hands():
    """Constructed first hands of uneven sizes (the reference allows any size >= 1), played
    through in lockstep, then one more (dealt) hand."""
    stats = Stats()
    for seed in range(4):
        rng = random.Random(50 + seed)
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        cut = sorted(rng.sample(range(14, 95), 3))
        hands = [deck[:cut[0]], deck[cut[0]:cut[1]], deck[cut[1]:cut[2]], deck[cut[2]:]]
        rules = RULESETS[seed]
        lockstep(Fast.setup(hands, seed=seed, rules=rules), Ref.setup(hands, seed=seed, rules=rules),
                 rng, rules, stats, hands=2)
    assert stats["hands"] == 4 * 2


# ---------------------------------------------------------------------------------------------
# Fast paths, clone, equality
# ---------------------------------------------------------------------------------------------

def test_fast_stepping_paths_agree_with_play():
    a, b, c = Fast(11), Fast(11), Fast(11)
    rng = random.Random(11)
    while not a.is_over:
        arr = a.legal_moves_array()
        moves = a.legal_moves()
        assert arr.shape == (len(moves), 2) and a.num_legal() == len(moves)
        assert not arr.flags.writeable
        i = rng.randrange(len(moves))
        assert moves[i].words == (int(arr[i, 0]), int(arr[i, 1]))
        a.play_index(i)
        b.play(moves[i])
        c.play_words(int(arr[i, 0]), int(arr[i, 1]))
        assert a == b == c
    assert a.winner in (0, 1) and a.legal_moves_array().shape == (0, 2)


def test_compact_moves_are_a_subset():
    g = Fast(4)
    rng = random.Random(4)
    for _ in range(300):
        if g.is_over:
            break
        full = set(g.legal_moves())
        compact = set(g.legal_moves(compact=True))
        assert compact and compact <= full
        assert g.num_legal(compact=True) == len(compact)
        g.play_index(rng.randrange(g.num_legal()))


def test_clone_is_independent_and_equal():
    g = Fast(3)
    for _ in range(5):
        g.play_index(0)
    c = g.clone()
    assert c == g and c is not g
    snap = snapshot(g)
    c.play_index(len(c.legal_moves()) - 1)
    assert c != g and snapshot(g) == snap
    assert len(c.history) == len(g.history) + 1


def test_equality_covers_the_generator_and_the_past():
    assert Fast(1) == Fast(1)
    assert Fast(1) != Fast(2)
    assert Fast(1) != Fast(1, Rules(count_disclosure="always"))
    a, b = Fast(1), Fast(1)
    a.play_index(0)
    assert a != b
    b.play_index(0)
    assert a == b
    assert (Fast(1) == "a game") is False
    with pytest.raises(TypeError):
        hash(Fast(1))


def test_pickle_and_deepcopy_round_trip():
    import copy
    import pickle

    g = played(31, steps=500)
    for other in (pickle.loads(pickle.dumps(g)), copy.deepcopy(g), copy.copy(g)):
        assert other == g and snapshot(other) == snapshot(g)
        other.play_index(0)
        assert other != g
    with pytest.raises(ValueError, match="bytes"):
        from guandan_fast.game import _restore
        _restore(b"short", 0, Rules(), (), (), None)


def test_sizeof_state_is_small():
    assert sizeof_state() <= 192


def test_random_playout_leaves_the_game_alone():
    g = Fast(8)
    snap = snapshot(g)
    steps, winner = random_playout(g, 10**7, seed=1)
    assert steps > 50 and winner in (0, 1)
    assert snapshot(g) == snap
    assert random_playout(g, 10**7, seed=1) == (steps, winner)
    assert random_playout(g, 5, seed=1) == (5, None)


# ---------------------------------------------------------------------------------------------
# Bad input: specific exceptions, and the state is unchanged
# ---------------------------------------------------------------------------------------------

def _tribute_game():
    """A game in the tribute phase: seat 1 (4th) pays seat 0 (1st)."""
    deck = list(FULL_DECK)
    random.Random(2).shuffle(deck)
    hands = [deck[27 * p: 27 * p + 27] for p in range(4)]
    for p in range(4):  # no anti-tribute: both big jokers with seat 0
        while "HR" in hands[p] and p != 0:
            hands[p].remove("HR")
            swap = next(c for c in hands[0] if c != "HR")
            hands[0].remove(swap)
            hands[0].append("HR")
            hands[p].append(swap)
    return Fast.setup(hands, levels=(5, 2), previous_finish=[0, 3, 2, 1])


BAD_PLAY_INPUT = [
    (None, TypeError), (42, TypeError), ("Single 3 D3", TypeError),
    (["Pair", "9"], ValueError), (["Pair", "9", "H7 SB"], ValueError),
    (["Pair", "9", ["H7", "SB"]], ValueError), (["Pair", "9", ["X9", "S9"]], ValueError),
    (["Nonsense", "9", ["S9"]], ValueError), (["PASS", "9", []], ValueError),
    (Move("Pair", "9", ["S9", "SB"]), ValueError),
    (Move("Bomb", "JOKER", ["SB", "SB", "HR", "HR"]), IllegalMoveError),
    (PASS, IllegalMoveError), (Move("tribute", "tribute", ["S3"]), IllegalMoveError),
]


@pytest.mark.parametrize("move,exc", BAD_PLAY_INPUT)
def test_bad_play_input_changes_nothing(move, exc):
    for engine in (Fast, Ref):
        g = engine(0)  # seat 0 leads; it holds no SB SB HR HR
        before = g.clone()
        with pytest.raises(exc):
            g.play(move)
        assert g == before


@pytest.mark.parametrize("seat,exc", [(5, ValueError), ("0", TypeError), (True, TypeError),
                                      (1, IllegalMoveError)])
def test_bad_seat_changes_nothing(seat, exc):
    g = Fast(0)
    before = g.clone()
    with pytest.raises(exc):
        g.play(g.legal_moves()[0], seat=seat)
    assert g == before


def test_bad_moves_in_the_exchange_and_fast_paths():
    g = _tribute_game()
    r = Ref.setup([list(g.hand(p)) for p in range(4)], levels=(5, 2),
                  previous_finish=[0, 3, 2, 1])
    assert g.phase == r.phase == "tribute" and g.current_player == 1
    before = g.clone()
    low = g.hand(1)[0]
    for bad in (Move("tribute", "tribute", [low]), Move("back", "back", [low]),
                Move("Single", low[1], [low]), PASS):
        with pytest.raises(IllegalMoveError):
            g.play(bad)
        with pytest.raises(IllegalMoveError):
            r.play(bad)
        assert g == before
    for args, exc in [((10**9,), IndexError), ((-1,), IndexError)]:
        with pytest.raises(exc):
            g.play_index(*args)
        assert g == before
    for lo, hi, exc in [(1, 2**64, ValueError), (-1, 0, ValueError), (1.0, 0, TypeError),
                        (0, 0, IllegalMoveError)]:
        with pytest.raises(exc):
            g.play_words(lo, hi)
        assert g == before
    g.play(g.legal_moves()[0])
    assert g.phase == "back"


def test_game_over_refuses_moves():
    g = Fast(6)
    while not g.is_over:
        g.play_index(0)
    before = g.clone()
    for call in (lambda: g.play(PASS), lambda: g.play_index(0), lambda: g.play_words(0, 0)):
        with pytest.raises(IllegalMoveError):
            call()
    assert g == before and g.current_player is None and len(g.legal_moves()) == 0


@pytest.mark.parametrize("kwargs,exc", [
    ({"hands": [["SB"]] * 4}, ValueError),
    ({"hands": "S2 S3"}, ValueError),
    ({"levels": (3, 2)}, ValueError),
    ({"declarer": 2, "levels": (3, 2)}, ValueError),
    ({"previous_finish": [0, 1]}, ValueError),
    ({"previous_finish": [0, 2], "declarer": 1}, ValueError),
    ({"previous_finish": [0, 2], "leader": 1}, ValueError),
    ({"leader": 4}, ValueError),
    ({"leader": "0"}, TypeError),
    ({"rules": "default"}, TypeError),
    ({"seed": 1.5}, TypeError),
])
def test_setup_rejects_bad_arguments(kwargs, exc):
    deck = list(FULL_DECK)
    args = {"hands": [deck[27 * p: 27 * p + 27] for p in range(4)]}
    args.update(kwargs)
    hands = args.pop("hands")
    with pytest.raises(exc):
        Fast.setup(hands, **args)
    with pytest.raises(exc):
        Ref.setup(hands, **args)


def test_constructor_rejects_bad_arguments():
    with pytest.raises(TypeError):
        Fast("seed")
    with pytest.raises(TypeError):
        Fast(1, rules={"upgrade": "3-2-1"})
    with pytest.raises(ValueError):
        Fast(1).hand(4)
    with pytest.raises(TypeError):
        Fast(1).observation("1")
    assert isinstance(Fast().seed, int)


# ---------------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------------

def test_record_round_trip_whole_match(tmp_path):
    g = played(21, RULESETS[3])
    path = tmp_path / "match.jsonl"
    lines = g.to_record(path)
    assert path.read_text().splitlines() == lines
    header = json.loads(lines[0])
    assert header["seed"] == 21 and Rules.from_dict(header["rules"]) == RULESETS[3]
    assert len(lines) == 1 + len(g.results)
    back = Fast.from_record(str(path))
    assert back == g and back.is_over and back.results == g.results
    hand0 = json.loads(lines[1])
    assert hand0["levels_before"] == [2, 2] and len(hand0["deal"]) == 4
    assert all(len(d) == 27 for d in hand0["deal"])


def test_record_round_trip_mid_hand_and_setup(tmp_path):
    g = played(22, steps=700)
    assert not g.is_over
    assert Fast.from_record(g.to_record()) == g
    args = endgame_setup(5)
    s = Fast.setup(args["hands"], levels=args["levels"], previous_finish=args["previous_finish"],
                   seed=5, rules=RULESETS[1])
    rng = random.Random(5)
    for _ in range(60):
        if s.is_over:
            break
        s.play_index(rng.randrange(s.num_legal()))
    assert Fast.from_record(s.to_record()) == s
    hand0 = json.loads(s.to_record()[1])
    assert hand0["moves"][0][1][0] == "tribute" or hand0["anti_tribute"]


def test_record_file_with_two_matches(tmp_path):
    from guandan_fast import records

    a, b = played(25, steps=150), played(26, steps=90)
    path = tmp_path / "two.jsonl"
    records.write(path, [a, b])
    assert Fast.from_record(path) == a
    assert Fast.from_record(path, match=1) == b
    with pytest.raises(ValueError, match="2 match"):
        Fast.from_record(path, match=2)


def _corrupt(lines, line_no, edit):
    out = list(lines)
    obj = json.loads(out[line_no - 1])
    edit(obj)
    out[line_no - 1] = json.dumps(obj)
    return out


def test_corrupted_records_name_the_line():
    g = played(23, steps=400)
    lines = g.to_record()
    assert g.hand_number >= 1
    play_at = next(i for i, (s, a) in enumerate(json.loads(lines[1])["moves"])
                   if a[0] not in ("PASS", "tribute", "back"))

    def swap_card(h):
        h["moves"][play_at][1][2][0] = "HR" if h["moves"][play_at][1][2][0] != "HR" else "D3"

    cases = [
        (_corrupt(lines, 2, lambda h: h["moves"][0].__setitem__(0, (h["moves"][0][0] + 1) % 4)),
         "record line 2: move 0"),
        (_corrupt(lines, 2, swap_card), f"record line 2: move {play_at}"),
        (_corrupt(lines, 2, lambda h: h["deal"][0].__setitem__(0, "SB")),
         "record line 2: deal of seat 0"),
        (_corrupt(lines, 2, lambda h: h.__setitem__("finish_order", [3, 2, 1, 0])),
         "record line 2: finish_order"),
        (_corrupt(lines, 2, lambda h: h.__setitem__("levels_after", [14, 14])),
         "record line 2: levels_after"),
        (_corrupt(lines, 2, lambda h: h.__setitem__("hand", 1)), "record line 2: hand number"),
        (_corrupt(lines, 2, lambda h: h["moves"].pop()), "record line 2"),
        (_corrupt(lines, 1, lambda h: h.__setitem__("version", 9)), "record line 1"),
        (_corrupt(lines, 1, lambda h: h.__setitem__("seed", 24)), "record line 2: deal"),
        (lines[:1] + lines[2:], "record line 2: hand number"),
        (lines[:2] + ["{not json"] + lines[2:], "record line 3: not JSON"),
        (lines[1:], "record line 1: a hand line before any header"),
        (_corrupt(lines, 1, lambda h: h["rules"].__setitem__("upgrade", "9-9-9")),
         "record line 1: field .rules.: bad rules"),
    ]
    for bad, message in cases:
        with pytest.raises(ValueError, match=message):
            Fast.from_record(bad)


def test_render_shows_every_hand(tmp_path):
    from guandan_fast.records import render

    g = played(24)
    path = tmp_path / "r.jsonl"
    g.to_record(path)
    text = render(str(path))
    assert text.count("== hand ") == len(g.results)
    one = render(str(path), hand=1)
    assert one.count("== hand ") == 1 and "trick 1" in one
    with pytest.raises(ValueError, match="no hand 1000 in match 1"):   # (people count from 1)
        render(str(path), hand=999)


# ---------------------------------------------------------------------------------------------
# perft
# ---------------------------------------------------------------------------------------------

# Seeds 2 and 7 at depth 2 prove what tests/test_perft_pinned.py proves with their pins
# (compiled == pin == reference): --long only.
@pytest.mark.parametrize("seed,depth", [(0, 1), (1, 2), pytest.param(2, 2, marks=pytest.mark.long),
                                        pytest.param(7, 2, marks=pytest.mark.long)])
def test_perft_fast_equals_reference(seed, depth):
    assert perft(seed, depth) == perft_reference(seed, depth)


def test_perft_per_move_and_other_rules():
    rules = Rules(sf_as_straight=False, fullhouse_joker_pair=False)
    fast = perft(3, 2, rules, per_move=True)
    assert fast == perft_reference(3, 2, rules, per_move=True)
    assert sum(fast.values()) == perft(3, 2, rules)
    assert perft(3, 0) == 1 and perft(3, 1) == len(Fast(3).legal_moves())


def test_perft_through_the_exchange():
    g = _tribute_game()
    r = Ref.setup([list(g.hand(p)) for p in range(4)], levels=(5, 2),
                  previous_finish=[0, 3, 2, 1])

    def ref_count(game, d):
        if d == 0:
            return 1
        total = 0
        for m in game.legal_moves():
            c = game.clone()
            c.play(m)
            total += ref_count(c, d - 1)
        return total

    # tribute, back, then the leader's moves
    assert perft_game(g, 3) == ref_count(r, 3) > 100

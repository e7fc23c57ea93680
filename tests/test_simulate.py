"""``guandan_fast.simulate`` and the compiled simulation loop.

Reproducibility (seed, thread count), the counters' consistency with the rules, argument
checking, progress reporting, and legality: matches played by the compiled loop are replayed
move by move through the reference ``Game`` (which checks every move) and must end the same.
About 10 s; ``--long`` replays 40 matches per agent mix instead of 10.
"""

import pytest

from guandan_fast import Move, Rules
from guandan_fast import simulate_core as core
from guandan_fast.reference.rng import SplitMix64
from guandan_fast.reference.simulate import simulate_reference
from guandan_fast.simulate import AGENTS, simulate

from helpers import LONG
MIXES = [
    ("greedy", "random", "greedy", "random"),
    ("random", "random", "random", "random"),
    ("random_compact", "greedy", "random", "greedy"),
]


# -- reproducibility ------------------------------------------------------------------------------

def test_same_seed_same_result_any_thread_count():
    a = simulate(matches=40, seed=3)
    assert a == simulate(matches=40, seed=3)
    assert a == simulate(matches=40, seed=3, threads=2)
    assert a == simulate(matches=40, seed=3, threads=3)


def test_different_seeds_differ():
    a = simulate(matches=30, seed=1, agents=("random",) * 4)
    b = simulate(matches=30, seed=2, agents=("random",) * 4)
    assert (a.hands, a.plays, a.cards, a.team_wins) != (b.hands, b.plays, b.cards, b.team_wins)


def test_hands_mode_is_exact_and_thread_independent():
    a = simulate(hands=333, seed=5, agents=("random",) * 4)
    assert a.hands == 333
    assert a == simulate(hands=333, seed=5, agents=("random",) * 4, threads=2)
    # The hands mode plays the same matches as the matches mode, in order: its finished
    # matches are the first ones of a matches-mode run, then part of the next one.
    prefix = simulate(matches=a.matches, seed=5, agents=("random",) * 4)
    nxt = simulate(matches=a.matches + 1, seed=5, agents=("random",) * 4)
    assert prefix.team_wins == a.team_wins
    assert a.truncated in (0, 1)
    if a.truncated:
        assert prefix.hands < a.hands < nxt.hands
    else:
        assert prefix.hands == a.hands


def test_match_seeds_follow_splitmix64():
    # Match i starts from the i-th output of SplitMix64(seed) (docs: reproducible elsewhere).
    g = SplitMix64(12345)
    assert [core.match_seed(12345, i) for i in range(4)] == [g.next() for _ in range(4)]
    assert core.match_seed(-1, 0) == SplitMix64(-1).next()


# -- counters ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("agents", MIXES)
def test_counts_are_consistent(agents):
    res = simulate(matches=60, seed=11, agents=agents)
    assert res.matches == 60 and res.truncated == 0
    # Every match has exactly one winner; every hand one winning team.
    assert sum(res.team_wins) == res.matches
    assert sum(res.hand_wins) == res.hands == sum(res.finishes.values())
    # A match needs at least 5 hands: from 2, +3 per hand reaches A after 4 won hands, and
    # the match is won only in a hand played at the team's own A (docs/rules.md §8).
    assert res.hands >= 5 * res.matches
    assert 5 <= res.longest_match
    # Two players (27 cards each) at least go out per hand; a play has 1..10 cards, so
    # each of them needs 3 plays or more.
    assert res.cards >= 54 * res.hands
    assert res.plays >= 6 * res.hands
    assert res.plays <= res.cards <= 10 * res.plays
    assert res.cards <= 108 * res.hands
    assert 0 <= res.bombs <= res.plays
    # Per-agent wins: once per match for each agent name in the winning team.
    for name in set(agents):
        teams = [t for t in (0, 1) if name in (agents[t], agents[t + 2])]
        assert res.agent_wins[name] == sum(res.team_wins[t] for t in teams)


def test_a_1st_and_2nd_finish_dominates_greedy_wins_over_random():
    # Greedy partners against random ones nearly always take 1st and 2nd.
    res = simulate(matches=50, seed=4)
    assert res.finishes["1-2"] > 0.6 * res.hands


def test_rules_switches_reach_the_engine():
    # any_win: a team wins at its own A with any finish, so matches are never longer than
    # under the default rule, hand for hand (same deals, same bots, until they diverge).
    base = simulate(matches=40, seed=9, agents=("random",) * 4)
    quick = simulate(matches=40, seed=9, agents=("random",) * 4, rules=Rules(ace_rule="any_win"))
    assert quick.hands < base.hands
    assert quick.rules == Rules(ace_rule="any_win") and "any_win" in quick.summary()


def test_summary_table():
    res = simulate(matches=10, seed=2)
    text = res.summary()
    assert "10 matches" in text and f"{res.hands} hands" in text
    assert "greedy / greedy" in text and "random / random" in text
    assert "1-2" in text and "1-3" in text and "1-4" in text
    assert res.hands_per_second > 0 and res.elapsed > 0


# -- arguments ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    (dict(matches=2, hands=3), "exactly one of matches= and hands=, not both"),
    (dict(), "exactly one of matches= and hands="),
    (dict(matches=0), "matches must be >= 1"),
    (dict(hands=-5), "hands must be >= 1"),
    (dict(matches=1, threads=0), "threads must be >= 1"),
    (dict(matches=1, agents=("greedy", "random", "alpha", "random")), "unknown agent 'alpha'"),
    (dict(matches=1, agents=("greedy", "random")), "exactly 4 agents"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        simulate(**kwargs)


@pytest.mark.parametrize("kwargs", [
    dict(matches=1.5), dict(matches=True), dict(matches=1, seed="x"),
    dict(matches=1, rules={"ace_rule": "any_win"}), dict(matches=1, progress=5),
])
def test_bad_argument_types(kwargs):
    with pytest.raises(TypeError):
        simulate(**kwargs)


def test_agents_as_a_string():
    assert simulate(matches=3, agents="greedy, random,greedy,random") == simulate(matches=3)
    assert set(AGENTS) == {"random", "random_compact", "greedy", "expert", "pimc", "ismcts",
                           "bomber", "saver", "shedder", "keeper", "solo"}


# -- progress ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("threads", [1, 2])
def test_progress_reports_matches_done(threads):
    seen = []
    simulate(matches=50, seed=1, threads=threads, progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == 50 and len(seen) >= 3


def test_progress_in_hands_mode_reaches_the_target():
    seen = []
    simulate(hands=100, seed=1, progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == 100


def test_progress_errors_propagate():
    def boom(done):
        raise KeyError("stop")

    with pytest.raises(KeyError):
        simulate(matches=40, threads=2, progress=boom)


# -- legality: replay through the reference engine ----------------------------------------------

def replay(seed, i, agents, rules=Rules()):
    """Play match i in the compiled loop, then through the reference Game, move by move."""
    from guandan_fast.reference import Game

    kinds = tuple(core.AGENT_CODES[a] for a in agents)
    ms, actions, stats = core.record_match(seed, i, kinds, rules)
    game = Game(seed=ms, rules=rules)
    kinds_seen = set()
    for seat, lo, hi in actions.tolist():
        move = Move.from_words(lo, hi)
        kinds_seen.add(move.type)
        # The reference checks turn, phase, cards held and that the move beats the top play.
        game.play(move, seat=seat)
    assert game.is_over
    assert len(game.results) == stats["hands"] and stats["matches"] == 1
    assert stats["team_wins"][game.winner] == 1
    return kinds_seen


@pytest.mark.parametrize("agents", MIXES)
def test_compiled_matches_are_legal_reference_games(agents):
    n = 40 if LONG else 10
    seen = set()
    for i in range(n):
        seen |= replay(21, i, agents)
    # Whole matches: tribute, returns, passes and plays all occurred and were accepted.
    assert {"tribute", "back", "PASS", "Single", "Pair"} <= seen


VARIANTS = [
    Rules(ace_rule="double_only", ace_fail_reset=2, ace_reset_on_natural_aces=True,
          upgrade="4-2-1"),
    Rules(tribute_on_first_fourth="3rd_pays", return_rule="any", double_tie="winners_choose",
          anti_tribute=False, count_disclosure="always"),
    Rules(first_leader="D2", sf_as_straight=False, fullhouse_joker_pair=False,
          return_rule="any_but_received", tribute_on_first_fourth="none", count_disclosure="7"),
]


@pytest.mark.parametrize("rules", VARIANTS, ids=["ace", "tribute", "moves"])
def test_compiled_matches_are_legal_under_variant_rules(rules):
    # The switches reach the compiled engine as the reference reads them: any difference
    # (leader, tribute, readings, levels) makes the replay fail or end differently.
    for i in range(12 if LONG else 3):
        replay(31, i, MIXES[2], rules)


def test_replayed_match_is_the_simulated_match():
    kinds = tuple(core.AGENT_CODES[a] for a in MIXES[0])
    ms, actions, stats = core.record_match(6, 2, kinds)
    one = simulate(matches=1, seed=6, agents=MIXES[0])  # match 0 of seed 6, not match 2
    three = simulate(matches=3, seed=6, agents=MIXES[0])
    two = simulate(matches=2, seed=6, agents=MIXES[0])
    assert three.hands - two.hands == stats["hands"]
    assert three.plays - two.plays == stats["plays"]
    assert one.hands == core.record_match(6, 0, kinds)[2]["hands"]


# -- records ---------------------------------------------------------------------------------------

def test_record_writes_replayable_matches(tmp_path):
    from guandan_fast import records
    from guandan_fast.reference import Game

    path = tmp_path / "sim.jsonl"
    res = simulate(matches=3, seed=4, record=path)
    assert res == simulate(matches=3, seed=4)  # recording changes nothing
    matches = records.read(path)
    assert len(matches) == 3
    winners = [0, 0]
    hands = 0
    for i, (header, lines) in enumerate(matches):
        assert header["seed"] == core.match_seed(4, i)
        game = records.replay(path, Game, match=i)  # the reference checks every move
        assert game.is_over
        winners[game.winner] += 1
        hands += len(game.results)
    assert tuple(winners) == res.team_wins and hands == res.hands


def test_record_in_hands_mode_ends_mid_match(tmp_path):
    from guandan_fast import records

    path = tmp_path / "sim.jsonl"
    res = simulate(hands=12, seed=4, agents=("random",) * 4, record=path)
    assert res.hands == 12
    matches = records.read(path)
    assert len(matches) == res.matches + res.truncated
    finished = sum(1 for _, lines in matches for _, h in lines if h["finish_order"] is not None)
    assert finished == 12


def test_a_record_is_the_same_file_at_any_thread_count(tmp_path):
    # Each thread writes the records of its own blocks; they are written in block order, and
    # in hands mode the block that reaches the target (past the first 16 matches here) is
    # replayed with the hands left, so the file ends on the same cut match as an unrecorded
    # run.
    from guandan_fast import records

    texts = []
    for threads in (1, 2, 3):
        path = tmp_path / f"sim{threads}.jsonl"
        res = simulate(hands=200, seed=5, agents=("greedy", "random") * 2, threads=threads,
                       record=path)
        assert res == simulate(hands=200, seed=5, agents=("greedy", "random") * 2)
        texts.append(path.read_bytes())
    assert texts[0] == texts[1] == texts[2]
    matches = records.read(tmp_path / "sim2.jsonl")
    assert len(matches) == res.matches + res.truncated > 16
    assert sum(1 for _, lines in matches for _, h in lines if h["finish_order"]) == 200


@pytest.mark.parametrize("kwargs, message", [
    ({"matches": 0}, "matches must be >= 1"),
    ({"matches": -3}, "matches must be >= 1"),
    ({"hands": 0}, "hands must be >= 1"),
    ({"matches": 1, "threads": 0}, "threads must be >= 1"),
    ({"matches": 1, "threads": 10_000}, "threads must be at most 1024"),
])
def test_simulate_refuses_empty_and_absurd_counts(kwargs, message):
    with pytest.raises(ValueError, match=message):
        simulate(**kwargs)


@pytest.mark.parametrize("matches", [0, -1])
def test_reference_simulate_refuses_counts_the_fast_one_refuses(matches):
    with pytest.raises(ValueError, match="matches must be >= 1"):
        simulate_reference(matches=matches)
    with pytest.raises(ValueError, match="matches must be >= 1"):
        simulate(matches=matches)
    with pytest.raises(TypeError, match="matches must be an int"):
        simulate_reference(matches=1.0)


def test_result_as_data_with_the_tournament_intervals(tmp_path):
    import json

    from guandan_fast.tournament import wilson_interval

    r = simulate(matches=30, seed=2, agents=("greedy", "random", "greedy", "random"))
    d = r.to_dict()
    assert d["matches"] == 30 and d["agents"] == list(r.agents)
    assert [t["match_wins"] for t in d["teams"]] == list(r.team_wins)
    assert [t["hand_wins"] for t in d["teams"]] == list(r.hand_wins)
    lo, hi = wilson_interval(r.team_wins[0], 30)
    assert d["teams"][0]["match_win_rate"] == {"value": round(r.win_rate(0), 6),
                                               "ci_wilson": [round(lo, 6), round(hi, 6)]}
    assert Rules.from_dict(d["rules"]) == r.rules
    assert json.loads(r.to_json(tmp_path / "r.json")) == d
    assert json.loads((tmp_path / "r.json").read_text()) == d

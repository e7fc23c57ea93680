"""The duplicate tournament: pairing and seating (checked from the records), statistics against
independent computations, reproducibility, Python agents, strength detection, bad input."""

import json
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
import xml.etree.ElementTree as ET

import pytest

import guandan_fast as gf
from guandan_fast import records
from guandan_fast.cli import main
from guandan_fast.moves import IllegalMoveError
from guandan_fast.simulate_core import AGENT_CODES, match_seed
from guandan_fast.agents import parse_agent
from guandan_fast.tournament import (_outcome_of, _play_python, clustered_wilson_interval,
                                     mean_interval, t_quantile, tournament, wilson_interval)
from guandan_fast.tournament_core import play_matches

Z = 1.959963984540054


# -- statistics --------------------------------------------------------------------------------

def score_interval_by_bisection(k, n, z=Z):
    """The Wilson interval by its definition: the p with |k/n - p| <= z sqrt(p(1-p)/n)."""
    phat = k / n

    def inside(p):
        return (phat - p) ** 2 <= z * z * p * (1 - p) / n

    def edge(a, b):  # a inside, b outside (or the boundary)
        for _ in range(200):
            m = (a + b) / 2
            a, b = (m, b) if inside(m) else (a, m)
        return (a + b) / 2

    lo = 0.0 if k == 0 else edge(phat, 0.0)
    hi = 1.0 if k == n else edge(phat, 1.0)
    return lo, hi


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (81, 263), (50, 50), (500, 1000), (1, 2)])
def test_wilson_interval_is_the_inverted_score_test(k, n):
    lo, hi = wilson_interval(k, n)
    elo, ehi = score_interval_by_bisection(k, n)
    assert lo == pytest.approx(elo, abs=1e-9) and hi == pytest.approx(ehi, abs=1e-9)


def test_wilson_interval_published_values():
    # 0 successes of 10: the upper end is z^2 / (n + z^2).
    assert wilson_interval(0, 10)[1] == pytest.approx(Z * Z / (10 + Z * Z), abs=1e-12)
    # 81 of 263 (a textbook example): about [0.2553, 0.3662].
    lo, hi = wilson_interval(81, 263)
    assert (round(lo, 4), round(hi, 4)) == (0.2553, 0.3662)


@pytest.mark.parametrize("df,value", [(1, 12.7062), (2, 4.3027), (3, 3.1824), (5, 2.5706),
                                      (10, 2.2281), (30, 2.0423), (120, 1.9799)])
def test_t_quantile_matches_the_table(df, value):
    assert round(t_quantile(0.975, df), 4) == value


def test_t_quantile_large_df_and_other_levels():
    assert t_quantile(0.995, 10) == pytest.approx(3.1693, abs=1e-4)
    assert t_quantile(0.95, 4) == pytest.approx(2.1318, abs=1e-4)
    # The expansion beyond 1000 df joins the exact value continuously and tends to z.
    assert t_quantile(0.975, 1001) == pytest.approx(t_quantile(0.975, 1000), abs=1e-5)
    assert 1.95996 < t_quantile(0.975, 10 ** 6) < 1.96000
    with pytest.raises(ValueError, match="df"):
        t_quantile(0.975, 0)


def test_mean_interval_by_hand():
    xs = [0.5, 1.0, 1.0, 0.0, 0.5, 1.0]
    m = sum(xs) / 6
    s = math.sqrt(sum((x - m) ** 2 for x in xs) / 5)
    half = 2.5706 * s / math.sqrt(6)          # t(0.975, 5) from the table
    lo, hi = mean_interval(xs)
    assert lo == pytest.approx(m - half, abs=1e-4) and hi == pytest.approx(m + half, abs=1e-4)
    assert mean_interval([3.0]) is None


def test_clustered_wilson_reduces_to_known_cases():
    # Clusters of one Bernoulli trial each: the linearised variance is r(1-r)/(n-1), so the
    # interval is Wilson's with n - 1 trials.
    bits = [1] * 7 + [0] * 13
    lo, hi = clustered_wilson_interval(bits, [1] * 20)
    r = 7 / 20
    elo, ehi = score_interval_by_bisection(r * 19, 19)
    assert lo == pytest.approx(elo, abs=1e-9) and hi == pytest.approx(ehi, abs=1e-9)
    # No spread between clusters: the number of clusters is the sample size.
    lo, hi = clustered_wilson_interval([2, 2, 2, 2, 2], [2] * 5)
    assert (lo, hi) == pytest.approx(score_interval_by_bisection(5, 5), abs=1e-9)
    # Perfectly anti-correlated pairs (every deal split 1-1) with some spread elsewhere.
    lo, hi = clustered_wilson_interval([1, 1, 1, 2, 0], [2] * 5)
    assert lo < 0.5 < hi
    with pytest.raises(ValueError):
        clustered_wilson_interval([], [])


# -- pairing, seating, records -----------------------------------------------------------------

def winner_of(hands):
    """A recorded match's winner team: the team of the last hand's first finisher."""
    return hands[-1][1]["finish_order"][0] & 1


def test_every_deal_is_played_twice_with_the_teams_swapped(tmp_path):
    path = tmp_path / "t.jsonl"
    res = tournament(["greedy", "random", "random_compact"], deals=3, seed=11, record=path)
    matches = records.read(path)
    assert len(matches) == 3 * 3 * 2                      # pairs x deals x seatings
    for i, pair in enumerate([("greedy", "random"), ("greedy", "random_compact"),
                              ("random", "random_compact")]):
        a, b = pair
        wins_a = 0
        for d in range(3):
            (h0, hands0), (h1, hands1) = matches[6 * i + 2 * d], matches[6 * i + 2 * d + 1]
            assert h0["agents"] == [a, b, a, b]
            assert h1["agents"] == [b, a, b, a]
            assert h0["tournament"]["deal"] == h1["tournament"]["deal"] == d
            # The same deal seed, so the same cards: hand by hand while both matches last.
            assert h0["seed"] == h1["seed"] == match_seed(11, d)
            for (_, x), (_, y) in zip(hands0, hands1):
                assert x["deal"] == y["deal"]
            # Every recorded match replays and is complete.
            for m in (6 * i + 2 * d, 6 * i + 2 * d + 1):
                assert gf.Game.from_record(path, match=m).is_over
            wins_a += (winner_of(hands0) == 0) + (winner_of(hands1) == 1)
        assert res.pair(a, b).wins_a == wins_a
    # Recording plays the very same matches as the compiled batch path.
    assert res == tournament(["greedy", "random", "random_compact"], deals=3, seed=11)


def test_compiled_batches_equal_python_driven_matches():
    """BotSeats reproduces compiled play, so a bot plays alike in both paths."""
    g, r = AGENT_CODES["greedy"], AGENT_CODES["random"]
    kinds = [[g, r, g, r], [r, g, r, g], [AGENT_CODES["random_compact"], g, r, g]]
    rows = play_matches(5, [0, 0, 3], [0, 1, 2], kinds)
    for d, ks, row in zip([0, 0, 3], kinds, rows.tolist()):
        names = {v: n for n, v in AGENT_CODES.items()}
        seats = tuple(parse_agent(names[k]) for k in ks)
        game = _play_python(match_seed(5, d), seats, gf.Rules())
        assert _outcome_of(game) == row
        assert row[1] == row[2] + row[3] == len(game.results)


def test_search_agents_play_alike_compiled_and_python_driven(agent_module, tmp_path):
    """A compiled search agent (docs/search.md) by name, cheap budgets: the batch path, the
    Python-driven path (next to a Python agent) and the recorded path agree."""
    from guandan_fast.tournament import _check_agents

    pimc, ismcts, greedy = _check_agents(["pimc:samples=2", "ismcts:iterations=20", "greedy"])
    assert pimc.search_spec[0] == "pimc" and pimc.search_spec[1]["samples"] == 2
    for seats in [(pimc, greedy, pimc, greedy), (greedy, ismcts, greedy, ismcts)]:
        row = play_matches(2, [1], [0], [[a.code for a in seats]],
                           search=[[a.search_spec for a in seats]]).tolist()[0]
        assert _outcome_of(_play_python(match_seed(2, 1), seats, gf.Rules())) == row
    agents = ["pimc:samples=2", "greedy"]
    res = tournament(agents, deals=2, seed=2, workers=2)
    assert res == tournament(agents, deals=2, seed=2, record=tmp_path / "s.jsonl")
    assert len(records.read(tmp_path / "s.jsonl")) == 4
    mixed = tournament(["pimc:samples=2", f"{agent_module}:first"], deals=1, seed=2)
    assert mixed.pairs[0].matches == 2


# -- reproducibility ---------------------------------------------------------------------------

def test_same_seed_same_json_for_any_worker_count():
    agents = ["greedy", "random", "random_compact"]
    one = tournament(agents, deals=20, seed=4, workers=1).to_json()
    assert tournament(agents, deals=20, seed=4, workers=3).to_json() == one
    assert tournament(agents, deals=20, seed=5, workers=2).to_json() != one


# -- Python agents -----------------------------------------------------------------------------

AGENT_SOURCE = '''
calls = []

def first(observation, legal_moves):
    calls.append((observation["seat"], len(legal_moves)))
    return legal_moves[0]

def platform(observation, legal_moves):
    return legal_moves[len(legal_moves) // 2].to_platform()

def cheat(observation, legal_moves):
    return ["Single", "R", ["HR"]]

not_callable = 3
'''


@pytest.fixture
def agent_module(tmp_path, monkeypatch):
    (tmp_path / "tourney_test_agents.py").write_text(AGENT_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "tourney_test_agents", raising=False)
    yield "tourney_test_agents"


def test_python_agent_by_module_and_function(agent_module, tmp_path):
    import importlib

    res = tournament(["greedy", f"{agent_module}:first"], deals=3, seed=2,
                     record=tmp_path / "p.jsonl")
    calls = importlib.import_module(agent_module).calls
    assert calls and all(n >= 1 for _, n in calls)
    p = res.pair("greedy", f"{agent_module}:first")
    assert p.matches == 6 and 0 <= p.wins_a <= 6
    # The agent sat on both sides: seats 1, 3 in seating 0 and 0, 2 in seating 1.
    assert {s for s, _ in calls} == {0, 1, 2, 3}
    # Same result without records, and with a process pool (forked workers).
    assert tournament(["greedy", f"{agent_module}:first"], deals=3, seed=2) == res
    assert tournament(["greedy", f"{agent_module}:first"], deals=3, seed=2, workers=2) == res
    # A platform action is accepted as the move; a callable works too.
    mod = importlib.import_module(agent_module)
    res2 = tournament([mod.platform, "random"], deals=2, seed=2)
    assert res2.agents == (f"{agent_module}:platform", "random")


def test_python_agent_illegal_move_is_reported(agent_module):
    with pytest.raises(IllegalMoveError, match="cheat"):
        tournament(["greedy", f"{agent_module}:cheat"], deals=1)


# -- strength ----------------------------------------------------------------------------------

def test_greedy_is_significantly_stronger_than_random():
    res = tournament(["random", "greedy"], deals=40, seed=9, workers=2)
    p = res.pair("greedy", "random")                # seen from greedy's side
    assert p.match_ci_paired[0] > 0.5 and p.match_ci[0] > 0.5
    assert p.hand_ci_paired[0] > 0.5
    assert p.net_levels_ci[0] > 0
    assert p.verdict == "greedy" and res.pairs[0].verdict == "greedy"
    assert res.standings["greedy"]["match_wins"] == p.wins_a
    # The reversed view is the mirror image.
    q = res.pairs[0]
    assert (q.a, q.b) == ("random", "greedy") and q.wins_a == p.matches - p.wins_a
    assert q.match_ci_paired == pytest.approx((1 - p.match_ci_paired[1], 1 - p.match_ci_paired[0]))


def test_result_schema_and_plot(tmp_path):
    res = tournament(["greedy", "random"], deals=5, seed=1)
    d = json.loads(res.to_json(tmp_path / "r.json"))
    assert json.loads((tmp_path / "r.json").read_text()) == d
    (pair,) = d["pairs"]
    assert pair["match_wins"]["a"] + pair["match_wins"]["b"] == pair["matches"] == 10
    assert pair["hand_wins"]["a"] + pair["hand_wins"]["b"] == pair["hands"]
    lo, hi = pair["match_win_rate"]["ci_paired"]
    assert lo <= pair["match_win_rate"]["value"] <= hi
    res.plot(tmp_path / "r.svg")
    root = ET.parse(tmp_path / "r.svg").getroot()
    assert root.tag.endswith("svg")
    assert "greedy vs random" in (tmp_path / "r.svg").read_text()
    with pytest.raises(ValueError, match="svg"):
        res.plot(tmp_path / "r.png")
    assert not (tmp_path / "r.png").exists()


# -- progress and Ctrl-C -----------------------------------------------------------------------

@pytest.mark.parametrize("workers", [1, 2])
def test_interrupt_from_progress_stops_cleanly(workers):
    seen = []

    def progress(n):
        seen.append(n)
        if len(seen) == 2:
            raise KeyboardInterrupt

    before = threading.active_count()
    with pytest.raises(KeyboardInterrupt):
        tournament(["greedy", "random"], deals=200, workers=workers, progress=progress)
    assert threading.active_count() == before
    assert seen[-1] < 400 and seen == sorted(seen)


def test_play_matches_stops_when_cancel_is_set():
    g = AGENT_CODES["greedy"]
    args = (3, [0, 1], [0, 0], [[g, g, g, g]])
    with pytest.raises(KeyboardInterrupt):
        play_matches(*args, cancel=bytearray(b"\x01"))
    assert (play_matches(*args, cancel=bytearray(1)) == play_matches(*args)).all()
    with pytest.raises(ValueError, match="cancel must be a writable buffer"):
        play_matches(*args, cancel=bytearray(0))


def test_ctrl_c_stops_search_agents_inside_their_match():
    # One job of 4 deals of an expensive search agent (tens of seconds of work): SIGINT half
    # a second in must not wait for the job's matches to end (the compiled loop polls the
    # stop byte every few moves).
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    t0 = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            tournament(["pimc:samples=64:rollout=expert", "greedy"], deals=4, workers=2)
    finally:
        timer.cancel()
    assert time.monotonic() - t0 < 5


def test_interrupt_stops_the_process_pool(agent_module):
    def progress(n):
        raise KeyboardInterrupt

    before = set(multiprocessing.active_children())  # other tests' children may linger
    with pytest.raises(KeyboardInterrupt):
        tournament(["random", f"{agent_module}:first"], deals=40, workers=2, progress=progress)
    # The workers are terminated and joined before the interrupt goes on, but the pool's own
    # manager thread may be reaping one of them at the same moment: then our Process object
    # learns its exit status a moment later (seen under load). So: gone within seconds.
    deadline = time.monotonic() + 10
    while set(multiprocessing.active_children()) - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert set(multiprocessing.active_children()) - before == set()


# -- bad input ---------------------------------------------------------------------------------

@pytest.mark.parametrize("agents,deals,exc,words", [
    (["greedy", "smart"], 5, ValueError, "unknown agent 'smart'"),
    (["greedy"], 5, ValueError, "at least 2 agents"),
    ("greedy", 5, ValueError, "at least 2 agents"),
    (["greedy", "greedy"], 5, ValueError, "distinct"),
    (["greedy", "random"], 0, ValueError, "deals must be >= 1"),
    (["greedy", "random"], -3, ValueError, "deals must be >= 1"),
    (["greedy", "random"], 2.5, TypeError, "deals must be an int"),
    (["greedy", "no_such_module_xyz:act"], 5, ValueError, "cannot import module"),
    (["greedy", "os:no_such_function"], 5, ValueError, "has no attribute"),
    (["greedy", "os:sep"], 5, ValueError, "not callable"),
    (["greedy", ":act"], 5, ValueError, "module:function"),
    (["greedy", "pimc:bogus=1"], 5, ValueError, "unknown parameter 'bogus'"),
    (["greedy", "ismcts:iterations=many"], 5, ValueError, "iterations must be an integer"),
    (["greedy", 7], 5, TypeError, "an agent is a name or a callable"),
    (None, 5, TypeError, "agents must be a list"),
])
def test_bad_input_is_rejected(agents, deals, exc, words):
    with pytest.raises(exc, match=words):
        tournament(agents, deals=deals)


def test_bad_options_are_rejected(tmp_path):
    with pytest.raises(ValueError, match="workers must be >= 1"):
        tournament(["greedy", "random"], deals=2, workers=0)
    with pytest.raises(ValueError, match="workers must be at most 1024"):
        tournament(["greedy", "random"], deals=2, workers=10_000)
    with pytest.raises(TypeError, match="seed must be an int"):
        tournament(["greedy", "random"], deals=2, seed="1")
    with pytest.raises(TypeError, match="rules"):
        tournament(["greedy", "random"], deals=2, rules={})
    with pytest.raises(ValueError):
        tournament(["greedy", "random"], deals=2, record=tmp_path / "r.jsonl", workers=0)
    assert not (tmp_path / "r.jsonl").exists()


# -- the command -------------------------------------------------------------------------------

def test_cli_tournament_writes_table_json_and_plot(capsys, tmp_path):
    code = main(["tournament", "--agents", "greedy,random", "--deals", "6", "--seed", "3",
                 "--workers", "2", "--json", str(tmp_path / "t.json"),
                 "--plot", str(tmp_path / "t.svg")])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""                  # no progress bar when not on a terminal
    assert "greedy" in out and "stronger" in out
    d = json.loads((tmp_path / "t.json").read_text())
    assert d == tournament(["greedy", "random"], deals=6, seed=3).to_dict()
    assert (tmp_path / "t.svg").read_text().startswith("<svg")


@pytest.mark.parametrize("argv,words", [
    (["--agents", "greedy,nobody", "--deals", "3"], "unknown agent 'nobody'"),
    (["--agents", "greedy", "--deals", "3"], "at least 2 agents"),
    (["--agents", "greedy,random", "--deals", "0"], "deals must be >= 1"),
    (["--agents", "greedy,no_such_module_xyz:f", "--deals", "3"], "cannot import module"),
    (["--agents", "greedy,random", "--deals", "3", "--plot", "x.png"], "--plot must name"),
])
def test_cli_bad_input_exits_2_with_one_line(capsys, tmp_path, argv, words):
    code = main(["tournament", *argv, "--json", str(tmp_path / "never.json")])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("guandan-fast: error:") and words in err
    assert err.count("\n") == 1
    assert not (tmp_path / "never.json").exists()

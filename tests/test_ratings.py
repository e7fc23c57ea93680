"""The tournament's ratings (ratings.py): the Bradley–Terry fit against an independent
solver and known cases, the Elo scale, the bootstrap interval, and the report's table, JSON
and picture."""

import json
import math
import sys

import numpy as np
import pytest

from guandan_fast.extras import install_hint
from guandan_fast.ratings import ELO_PER_UNIT, PRIOR_WINS, fit, rate
from guandan_fast.tournament import tournament


def mm_fit(n, games, rounds=20000):
    """Hunter's (2004) minorisation-maximisation iteration for the same likelihood (the
    prior wins added to the counts): an independent solver."""
    w = np.zeros((n, n))
    for i, j, a, b in games:
        w[i, j] += a + PRIOR_WINS
        w[j, i] += b + PRIOR_WINS
    p = np.ones(n)
    played = w + w.T
    for _ in range(rounds):
        p = w.sum(axis=1) / np.array([sum(played[i, j] / (p[i] + p[j])
                                          for j in range(n) if j != i) for i in range(n)])
        p /= np.exp(np.log(p).mean())
    theta = np.log(p)
    return theta - theta.mean()


def test_the_fit_agrees_with_an_independent_solver():
    games = [(0, 1, 14, 6), (0, 2, 17, 3), (1, 2, 9, 11), (0, 3, 10, 10), (1, 3, 5, 15),
             (2, 3, 8, 12)]
    got = fit(4, [g[0] for g in games], [g[1] for g in games], [g[2:] for g in games])
    assert np.allclose(got, mm_fit(4, games), atol=1e-5)
    assert abs(got.sum()) < 1e-9


def test_equal_records_give_equal_ratings_and_two_agents_the_log_odds():
    even = fit(3, [0, 0, 1], [1, 2, 2], [[5, 5], [7, 7], [3, 3]])
    assert np.allclose(even, 0, atol=1e-7)
    two = fit(2, [0], [1], [[9, 3]])
    assert math.isclose(two[0] - two[1], math.log(9.5 / 3.5), rel_tol=1e-6)
    # 200 Elo points are a 76 % match win share
    assert math.isclose(1 / (1 + math.exp(-200 / ELO_PER_UNIT)), 1 / (1 + 10 ** (-0.5)))


def test_many_data_sets_fit_at_once_as_each_alone():
    sets = np.array([[[3, 1], [2, 2], [0, 4]], [[1, 3], [4, 0], [2, 2]]])
    both = fit(3, [0, 0, 1], [1, 2, 2], sets)
    for k in range(2):
        assert np.allclose(both[k], fit(3, [0, 0, 1], [1, 2, 2], sets[k]), atol=1e-6)


@pytest.fixture(scope="module")
def three():
    return tournament(["expert", "greedy", "random"], deals=12, seed=2)


def test_tournament_ratings_order_interval_and_bounds(three):
    r = three.ratings
    assert r.order() == ["expert", "greedy", "random"]
    for a in r.agents:
        lo, hi = r.ci[a]
        assert lo <= r.elo[a] <= hi
    swept = {a for a, s in three.standings.items() if s["match_wins"] == s["matches"]}
    assert {a for a, b in r.bound.items() if b == "lower"} == swept
    assert r == rate(three.agents, three.pairs, seed=three.seed)      # seeded: the same


def test_the_bootstrap_interval_narrows_with_more_deals():
    small = tournament(["greedy", "random", "random_compact"], deals=10, seed=1).ratings
    large = tournament(["greedy", "random", "random_compact"], deals=80, seed=1).ratings

    def width(r):
        return r.ci["random"][1] - r.ci["random"][0]

    assert width(large) < width(small)


def test_ratings_in_the_table_json_and_picture(three, tmp_path):
    table = three.table()
    assert "ratings (Bradley-Terry on match wins, Elo points, mean 0" in table
    assert "won every match: a lower bound" in table
    d = json.loads(three.to_json())["ratings"]
    assert list(d["agents"]) == ["expert", "greedy", "random"]
    assert d["agents"]["greedy"]["elo"] == round(three.ratings.elo["greedy"], 1)
    path = tmp_path / "t.svg"
    three.plot(path)
    svg = path.read_text()
    assert "rating (Elo points, mean 0" in svg and svg.count("<circle") == 3 + 3 * 3


def test_two_agents_have_no_ratings():
    res = tournament(["greedy", "random"], deals=2)
    assert res.ratings is None and "ratings" not in res.to_dict()


def test_without_scipy_the_table_says_how_to_get_ratings(monkeypatch):
    res = tournament(["greedy", "random", "random_compact"], deals=2)
    module = sys.modules["guandan_fast.tournament"]    # (the package's name is the function)
    monkeypatch.setattr(module, "_scipy_found", lambda: False)
    assert res.ratings is None and "ratings" not in res.to_dict()
    assert "ratings: the fit needs scipy; " + install_hint("ratings") in res.table()

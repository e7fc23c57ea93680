"""The compiled search agents (search.pyx): names and budgets, determinism, information use,
the exact solver in small worlds, and their play through simulate()."""

import random

import pytest

import guandan_fast as gf
from guandan_fast.search import choose, parse_agent
from guandan_fast.solve import random_endgame, solve

from helpers import replay_with_permuted_hidden


def test_names_and_budgets():
    base, params = parse_agent("pimc:samples=3:rollouts=2:search_at=20")
    assert base == "pimc" and (params["samples"], params["rollouts"], params["search_at"]) == (3, 2, 20)
    base, params = parse_agent("ismcts:iterations=17:explore=0.25")
    assert base == "ismcts" and params["iterations"] == 17 and params["explore"] == 0.25
    for bad, msg in [("pimc:samples=0", "samples must be in 1..100000, got 0"),
                     ("pimc:samples=x", "samples must be an integer, got 'x'"),
                     ("pimc:samples", "is not KEY=VALUE"),
                     ("ismcts:rollouts=2", "unknown parameter 'rollouts'"),
                     ("ismcts:explore=-1", "explore must be in 0..100"),
                     ("mcts", "unknown search agent 'mcts'")]:
        with pytest.raises(ValueError, match=msg):
            parse_agent(bad)
    with pytest.raises(ValueError, match="unknown parameter 'samples'"):
        gf.simulate(matches=1, agents=("ismcts:samples=3", "greedy", "greedy", "greedy"))
    with pytest.raises(ValueError, match="unknown agent 'greedy:x=1'"):
        gf.simulate(matches=1, agents=("greedy:x=1", "greedy", "greedy", "greedy"))


def test_choose_is_deterministic_and_legal():
    for seed in range(6):
        g = random_endgame(seed, (3, 4, 2, 5))
        for agent in ("pimc:samples=4", "ismcts:iterations=60"):
            m = choose(g, agent, seed=seed)
            assert m in g.legal_moves(compact=True)
            assert choose(g, agent, seed=seed) == m


def test_above_search_at_the_agents_play_greedy():
    from guandan_fast.bots import choose as bot_choose
    g = gf.Game(seed=9)
    greedy = bot_choose("greedy", g.hand(g.current_player), level=g.level)
    assert choose(g, "pimc") == greedy and choose(g, "ismcts") == greedy


@pytest.mark.parametrize("seed", range(3))
def test_decisions_depend_only_on_what_the_seat_knows(seed):
    # Random moves until the seat to move holds at most 12 cards (the agents search), then the
    # same moves in a match with the other seats' unplayed cards permuted: the same decision.
    a = gf.Game(seed=seed)
    rnd = random.Random(seed)
    while a.phase != "play" or len(a.hand(a.current_player)) > 12:
        moves = a.legal_moves(compact=True)
        a.play(moves[rnd.randrange(len(moves))])
        assert a.hand_number == 0
    p = a.current_player
    a2, b, _ = replay_with_permuted_hidden(seed, steps=len(a.history), p=p)
    assert a2.history == a.history and a.hand(p) == b.hand(p)
    assert [a.hand(q) for q in range(4)] != [b.hand(q) for q in range(4)]
    for agent in ("pimc:samples=6", "ismcts:iterations=80"):
        assert choose(a, agent, seed=3) == choose(b, agent, seed=3)


def outcome_of_result(result):
    """The solver's outcome code of a finished hand's result."""
    order = result["finish_order"]
    place = order.index(order[0] ^ 2) if (order[0] ^ 2) in order else 3
    return (4 - place) * (1 if order[0] % 2 == 0 else -1)


def test_pimc_with_the_solver_plays_optimally_when_the_worlds_are_exact():
    # Two seats out: the seat to move knows every card, every world is the real one, and PIMC
    # with the exact solver picks a compact move of the best solved value.
    checked = 0
    for seed in range(40):
        g = random_endgame(seed, (3, 4, 4, 3), out=2)
        p = g.current_player
        sign = 1 if p % 2 == 0 else -1
        m = choose(g, "pimc:samples=2:solve_at=20:nodes=1000000", seed=seed)
        values = {}
        for c in g.legal_moves(compact=True):
            x = g.clone()
            x.play(c)
            if x.hand_number == 0 and not x.is_over:
                values[c] = sign * solve(x).outcome
            else:
                values[c] = sign * outcome_of_result(x.results[-1])
        assert values[m] == max(values.values())
        checked += 1
    assert checked == 40


@pytest.mark.parametrize("agent", ["pimc:samples=2", "ismcts:iterations=20"])
def test_simulate_with_search_agents_is_reproducible(agent):
    agents = (agent, "greedy", agent, "greedy")
    r1 = gf.simulate(matches=2, agents=agents, seed=4)
    r2 = gf.simulate(matches=2, agents=agents, seed=4, threads=2)
    assert r1 == r2 and r1.matches == 2 and r1.agents == agents
    assert r1.agent_wins[agent] + r1.agent_wins["greedy"] == 2


def test_search_agents_on_two_threads_at_once_play_as_on_one():
    """Matches with a search agent are units of SEARCH_MATCHES_PER_CHUNK, so 4 of them are
    several units and two threads search at the same time."""
    from guandan_fast.simulate import SEARCH_MATCHES_PER_CHUNK
    agents = ("pimc:samples=2", "greedy", "ismcts:iterations=10", "greedy")
    n = 4 * SEARCH_MATCHES_PER_CHUNK
    r1 = gf.simulate(matches=n, agents=agents, seed=6)
    r2 = gf.simulate(matches=n, agents=agents, seed=6, threads=2)
    assert r1 == r2 and r1.matches == n and r1.hands > n


def test_search_agents_in_hands_mode_end_where_one_thread_ends():
    """Hands mode with units of one match: the unit that reaches the target is replayed with
    the hands left, so two threads stop at the same hand as one."""
    agents = ("pimc:samples=2", "greedy", "pimc:samples=2", "greedy")
    r1 = gf.simulate(hands=9, agents=agents, seed=8)
    r2 = gf.simulate(hands=9, agents=agents, seed=8, threads=2)
    assert r1 == r2 and r1.hands == 9


def test_cli_runs_a_search_agent(tmp_path, capsys):
    from guandan_fast.cli import main
    out = tmp_path / "g.jsonl"
    assert main(["simulate", "--matches", "1", "--agents", "pimc:samples=2,greedy,pimc:samples=2,greedy",
                 "--record", str(out)]) == 0
    text = capsys.readouterr().out
    assert "pimc:samples=2 / pimc:samples=2" in text
    assert gf.Game.from_record(str(out)).is_over       # the recorded moves replay legally


def test_docs_search_examples_run():
    import doctest
    import pathlib
    path = pathlib.Path(__file__).resolve().parent.parent / "docs" / "search.md"
    result = doctest.testfile(str(path), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted >= 8


def test_rollout_policy_and_time_budget_options():
    assert parse_agent("pimc:rollout=expert")[1]["rollout"] == "expert"
    assert parse_agent("ismcts:rollout=random:ms=5")[1]["ms"] == 5.0
    for bad, msg in (("pimc:rollout=smart", "rollout must be one of"),
                     ("pimc:ms=-1", "ms must be in"), ("pimc:ms=x", "ms must be a number")):
        with pytest.raises(ValueError, match=msg):
            parse_agent(bad)
    g = random_endgame(seed=2, cards=4)
    legal = g.legal_moves(compact=True)
    for agent in ("pimc:samples=6:rollout=expert", "pimc:samples=6:rollout=random",
                  "ismcts:iterations=60:rollout=expert"):
        m = choose(g, agent, seed=3)
        assert m in legal and m == choose(g, agent, seed=3)   # no time budget: deterministic
    # A time budget stops a search that would otherwise run for minutes (2 ms per decision).
    assert choose(g, "pimc:samples=100000:solve_at=0:ms=2", seed=1) in legal


def test_expert_rollouts_play_expert_moves_above_search_at():
    # Above search_at the agent plays its rollout policy's move: the expert's.
    from guandan_fast.expert import choose as expert_move
    g = gf.Game(seed=4)
    assert choose(g, "pimc:rollout=expert", seed=0) == expert_move(g)


def test_known_end_games_are_solved_at_any_hand_size():
    """Two seats left: every hand is known, so both agents play a move keeping the solved
    value even with search_at=0 (no sampling); without the solver (solve_at=0) they play the
    default move, which somewhere gives value away."""
    from guandan_fast.solve import random_endgame, solve

    worse = 0
    for seed in range(40):
        g = random_endgame(seed=seed, cards=(1, 1, 5, 5), out=2)
        best = solve(g).outcome
        for agent in ("pimc:search_at=0", "ismcts:search_at=0:iterations=5",
                      "pimc:search_at=0:solve_at=0"):
            after = g.clone()
            after.play(choose(g, agent))
            keeps = (after.is_over or after.hand_number > g.hand_number
                     or solve(after).outcome == best)
            if agent.endswith("solve_at=0"):
                worse += not keeps
            else:
                assert keeps, (seed, agent)
    assert worse >= 2


def test_margin_keeps_the_default_move_unless_another_is_clearly_better():
    """margin=6 (more than any outcome difference) always plays the default move (the expert's
    with expert rollouts); margin=0 sometimes does not."""
    from guandan_fast.expert import choose as expert_move

    differs = 0
    for seed in range(25):
        g = random_endgame(seed=seed, cards=4)
        default = expert_move(g, endgame=False)
        assert choose(g, "pimc:samples=6:rollout=expert:margin=6") == default
        differs += choose(g, "pimc:samples=6:rollout=expert") != default
    assert differs >= 1
    with pytest.raises(ValueError, match="margin must be in 0..6"):
        parse_agent("pimc:margin=7")
    with pytest.raises(ValueError, match="margin must be a number"):
        parse_agent("pimc:margin=x")


@pytest.mark.parametrize("specs", [[], (), [None], [None] * 5, None])
def test_search_contexts_refuse_anything_but_four_seats(specs):
    """search.Agents reads its specs by index with bounds checks off: their form is checked
    first (a short list once read past its end)."""
    from guandan_fast.search import Agents
    with pytest.raises((TypeError, ValueError)):
        Agents(specs)
    assert Agents([None] * 4) is not None

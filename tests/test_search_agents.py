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
    for bad, msg in [("pimc:samples=0", "samples must be in 1..1000000, got 0"),
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


def twin_positions(seed):
    """Random moves until the seat to move holds at most 12 cards (the agents search), and the
    same moves in a match with the other seats' unplayed cards permuted: ``(a, b, p)``, two
    positions seat ``p`` cannot tell apart, whose hidden hands differ."""
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
    return a, b, p


@pytest.mark.parametrize("seed", range(3))
def test_decisions_depend_only_on_what_the_seat_knows(seed):
    a, b, p = twin_positions(seed)       # the same decision in both
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


def test_a_time_budget_without_samples_is_bounded_by_the_time_alone():
    """pimc with ms and no samples samples until the time is spent (SAMPLES_CAP only bounds
    it); samples given, or no time budget, keep their budgets (ms=0 is unchanged)."""
    import time
    from guandan_fast.search import SAMPLES_CAP

    assert parse_agent("pimc:ms=40")[1]["samples"] == SAMPLES_CAP == 1000000
    assert parse_agent("pimc:ms=40:samples=8")[1]["samples"] == 8
    assert parse_agent("pimc")[1]["samples"] == 8 and parse_agent("pimc:ms=0")[1]["samples"] == 8
    assert parse_agent("ismcts:ms=40")[1]["iterations"] == 200
    g = gf.Game(seed=5)
    legal = g.legal_moves(compact=True)
    # From the first play (27 cards, no exact solves): 8 worlds take a few ms; with the time
    # alone deciding, the decision takes its 40 ms (it stops only once they are spent).
    t = time.perf_counter()
    m = choose(g, "pimc:search_at=27:solve_at=0:ms=40", seed=1)
    assert m in legal and time.perf_counter() - t >= 0.040
    assert choose(g, "pimc:search_at=27", seed=1) == choose(g, "pimc:search_at=27", seed=1)


# A hand-made deal: seat 1 holds two four-card bombs (nines and queens), the other seats
# what a deal gives. Seats 1 and 3 play the bomber style, seats 0 and 2 the expert.
STYLE_DEAL = [
    "H3 H5 C5 D5 D5 D6 D6 S7 S9 H9 C9 HT HT CT SJ CJ DJ CQ CQ SK HK CK DK SA SA HR HR",
    "C9 D2 S3 H3 C3 H4 D4 S6 C7 S8 D8 S9 H9 D9 HJ CJ DJ SQ SQ HQ HQ SK HK HA HA DA SB",
    "S2 H2 D2 D3 C4 D4 S5 H5 S6 H6 H6 C6 S7 H7 D7 D7 S8 H8 C8 ST DT HJ DQ DQ CA CA SB",
    "S2 H2 C2 S3 C3 D3 S4 S4 H4 C4 S5 C5 C6 H7 C7 H8 C8 D8 C2 D9 ST CT DT SJ CK DK DA"]


def style_position():
    """The deal played (seats 1, 3: bomber; 0, 2: expert) until seat 0 is to move with at
    most 12 cards (the search decides); both opponents have bombed by then."""
    from guandan_fast.expert import choose as expert_move
    g = gf.Game.setup([h.split() for h in STYLE_DEAL], leader=0)
    while not (g.current_player == 0 and len(g.hand(0)) <= 12):
        q = g.current_player
        g.play(expert_move(g, style="bomber" if q % 2 else "expert"))
        assert g.hand_number == 0
    return g


def test_style_weights_favour_worlds_where_the_opponents_played_their_style():
    """In the real world every play of an opponent is its style's own move, so that style's
    log-likelihood is the highest there, and the real world outweighs every one of 200
    uniformly sampled worlds (in which the opponents' plays fit no style as well)."""
    import math
    from guandan_fast.search import style_loglik, STYLE_MODELS

    g = style_position()
    bombs = [seat for seat, m in g.history if m.type == "Bomb"]
    assert 1 in bombs and 3 in bombs
    real, table = style_loglik(g, g, soft=0.2)
    bomber = STYLE_MODELS.index("bomber")
    for q in (1, 3):
        assert table[q][bomber] == max(table[q])
        # every decision with a choice a hit: a whole multiple of log(0.8)
        k = table[q][bomber] / math.log(0.8)
        assert k >= 3 and abs(k - round(k)) < 1e-9
    assert table[3][bomber] > table[3][STYLE_MODELS.index("expert")] + 3   # told apart
    assert table[0] == [0.0] * len(STYLE_MODELS) and table[2] == table[0]  # own team: unread
    sampled = [style_loglik(g, g.sample_world(0, seed=k))[0] for k in range(200)]
    assert real > max(sampled)
    # temper scales the log-weight (a power of the likelihood); the table is untempered
    half, table_half = style_loglik(g, g, soft=0.2, temper=0.5)
    assert half == pytest.approx(real / 2) and table_half == table
    assert len(set(sampled)) > 100      # the worlds differ in weight, not only the real one
    with pytest.raises(ValueError, match="world must be the game's position"):
        style_loglik(g, gf.Game(seed=1))


@pytest.mark.parametrize("seed", range(3))
def test_style_worlds_depend_only_on_what_the_seat_knows(seed):
    """worlds=styles reads the opponents' plays and a world's hands, never the real hidden
    cards: two matches the seat cannot tell apart give the same weights and decisions."""
    from guandan_fast.search import style_loglik
    a, b, p = twin_positions(seed)
    weights = []
    for k in range(8):
        wa, wb = a.sample_world(p, seed=k), b.sample_world(p, seed=k)
        assert wa.state_bytes() == wb.state_bytes()
        assert style_loglik(a, wa) == style_loglik(b, wb)
        weights.append(style_loglik(a, wa)[0])
    assert len(set(weights)) > 1        # the plays do tell the worlds apart
    # the real hands differ, and so may their weights: the weights read the world, not them
    agent = "pimc:samples=16:rollout=mix:worlds=styles"
    assert choose(a, agent, seed=3) == choose(b, agent, seed=3)
    assert choose(a, agent, seed=3) in a.legal_moves(compact=True)


def test_style_worlds_options():
    base, params = parse_agent("pimc:worlds=styles:soft=0.3")
    assert params["worlds"] == "styles" and params["soft"] == 0.3
    assert parse_agent("pimc")[1]["worlds"] == "uniform"
    for bad, msg in (("pimc:worlds=bayes", "worlds must be one of uniform, styles"),
                     ("pimc:soft=0", "soft must be in 0.001..0.999"),
                     ("pimc:soft=x", "soft must be a number"),
                     ("pimc:temper=0", "temper must be in 0.001..1"),
                     ("pimc:temper=1.5", "temper must be in 0.001..1"),
                     ("ismcts:worlds=styles", "unknown parameter 'worlds'")):
        with pytest.raises(ValueError, match=msg):
            parse_agent(bad)
    # A position not reached from a deal by moves has no record to replay the hand from.
    g = random_endgame(seed=1, cards=5)
    g.play(g.legal_moves(compact=True)[0])
    with pytest.raises(ValueError, match="replays the hand from the game's record"):
        choose(g, "pimc:worlds=styles")
    assert choose(g, "pimc") in g.legal_moves(compact=True)


def test_style_worlds_in_matches_are_reproducible_and_change_play():
    """In simulate() the agent sees every move (no replay): the same seed gives the same
    result on one thread or two; the weighting changes some decisions against uniform worlds."""
    agent = "pimc:samples=8:rollout=mix:worlds=styles"
    agents = (agent, "bomber", agent, "bomber")
    r1 = gf.simulate(matches=2, agents=agents, seed=11)
    r2 = gf.simulate(matches=2, agents=agents, seed=11, threads=2)
    assert r1 == r2 and r1.matches == 2
    # The same worlds (same seed) weighted or not: over the decisions of a match against
    # bombers, some moves differ.
    from guandan_fast.expert import choose as expert_move
    g = gf.Game.setup([h.split() for h in STYLE_DEAL], leader=0)
    differs = searched = 0
    while g.hand_number == 0:
        q = g.current_player
        if q % 2 == 0 and len(g.hand(q)) <= 12 and g.num_legal(compact=True) > 1:
            searched += 1
            differs += (choose(g, "pimc:samples=32:rollout=mix", seed=q)
                        != choose(g, "pimc:samples=32:rollout=mix:worlds=styles", seed=q))
        g.play(expert_move(g, style="bomber" if q % 2 else "expert"))
    assert searched >= 5 and differs >= 1

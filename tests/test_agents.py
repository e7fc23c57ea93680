"""The one table of agent kinds and the one parser of agent specs (guandan_fast.agents), and
every place that takes an agent going through them."""

import numpy as np
import pytest

import guandan_fast as gf
from guandan_fast import agents
from guandan_fast.agents import AgentError, parse_agent, parse_agents, policy_agent
from guandan_fast.bots import AGENT_CODES
from guandan_fast.cli import main

POLICY_MODULE = '''
import numpy as np

def last_legal(obs, mask):
    assert obs.dtype == np.float32 and mask.shape == (501,)
    return int(np.flatnonzero(mask)[-1])

def first_move(observation, legal_moves):
    return legal_moves[0]

def broken(observation, legal_moves):
    if observation["hand_number"] == 0 and len(observation["plays"]) >= 3:
        raise ZeroDivisionError("the agent's own bug")
    return legal_moves[0]
'''


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "my_agents.py").write_text(POLICY_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "my_agents"


def test_the_table_and_the_compiled_codes_agree():
    assert set(agents.names("compiled")) == set(AGENT_CODES)
    assert set(agents.names("bot")) < set(agents.names("compiled"))
    from guandan_fast.simulate import AGENTS
    assert AGENTS == agents.names("compiled")
    for name in agents.names("compiled"):
        a = parse_agent(name)
        assert a.compiled and a.code == AGENT_CODES[name] and a.kind == name


@pytest.mark.parametrize("spec, kind, compiled", [
    ("greedy", "greedy", True), (" random ", "random", True),
    ("pimc:samples=3", "pimc", True), ("ismcts:iterations=20", "ismcts", True),
    ("math:floor", "python", False), ("policy:math:floor", "policy", False),
])
def test_specs_parse(spec, kind, compiled):
    a = parse_agent(spec)
    assert (a.kind, a.compiled, a.name) == (kind, compiled, spec.strip())
    assert parse_agent(a) is a


@pytest.mark.parametrize("spec, exc, message", [
    ("smart", ValueError, "unknown agent 'smart'; known agents: random, random_compact, greedy"),
    ("greedy:x=1", ValueError, "unknown agent 'greedy:x=1': greedy takes no parameters"),
    ("pimc:iterations=3", ValueError, "unknown parameter 'iterations'"),
    ("no_such_module_xyz:f", ValueError, "cannot import module 'no_such_module_xyz'"),
    ("math:no_such_function", ValueError, "has no attribute 'no_such_function'"),
    ("math:pi", ValueError, "'pi' is not callable"),
    ("policy:math", ValueError, "a policy is 'policy:MODULE:FUNCTION'"),
    ("policy:math:floor:encoder=big", ValueError, "encoder must be one of"),
    (5, TypeError, "an agent is a name"),
])
def test_bad_specs_say_what_is_wrong(spec, exc, message):
    with pytest.raises(exc, match=message):
        parse_agent(spec)


def test_places_refuse_the_kinds_they_cannot_play():
    # simulate plays every kind (tests/test_simulate_python.py), but on Ray compiled ones only
    with pytest.raises(ValueError, match="cluster='ray' plays compiled agents only, not "
                                         "'math:floor'"):
        gf.simulate(matches=1, agents=("greedy", "math:floor", "greedy", "random"),
                    cluster="ray")
    with pytest.raises(ValueError, match=r"cannot play in VecEnv \(opponents\)"):
        gf.VecEnv(2, seed=0, learners=(0,), opponents="pimc")
    from guandan_fast.net.agents import check_platform_agent
    # connect takes every kind (tests/test_agents_platform.py), still naming a bad spec
    for spec in ("expert", "pimc:samples=2", "ismcts", "math:floor", "policy:math:floor"):
        assert check_platform_agent(spec) == spec
    with pytest.raises(ValueError, match="unknown agent 'smart'"):
        check_platform_agent("smart")
    with pytest.raises(ValueError, match="exactly 4 agents"):
        parse_agents("greedy,random", 4)


def test_a_python_agent_and_a_policy_play_a_tournament(user_module):
    res = gf.tournament([f"{user_module}:first_move", f"policy:{user_module}:last_legal",
                         "greedy"], deals=2, seed=5)
    assert [(p.a, p.b) for p in res.pairs] == [
        (f"{user_module}:first_move", f"policy:{user_module}:last_legal"),
        (f"{user_module}:first_move", "greedy"), (f"policy:{user_module}:last_legal", "greedy")]
    assert all(p.matches == 4 for p in res.pairs)
    # The same policy as a Python object plays the same matches.
    import importlib
    mod = importlib.import_module(user_module)
    obj = gf.tournament([policy_agent(mod.last_legal, name="mine"), "greedy"], deals=2, seed=5)
    assert obj.pairs[0]._rows.tolist() == res.pairs[2]._rows.tolist()


def test_a_policy_plays_what_play_action_plays():
    def first_legal(obs, mask):
        return int(np.flatnonzero(mask)[0])

    g = gf.Game(seed=2)
    for _ in range(30):
        m = policy_agent(first_legal).move(g)
        h = g.clone()
        h.play_action(int(np.flatnonzero(g.legal_action_mask())[0]))
        g.play(m)
        assert g == h


def test_a_failing_python_agent_names_itself_and_the_decision(user_module):
    with pytest.raises(AgentError, match=rf"agent '{user_module}:broken' at seat \d, hand 0, "
                                         r"move \d+ \(play phase\) failed: ZeroDivisionError") as ei:
        gf.tournament([f"{user_module}:broken", "greedy"], deals=1)
    assert isinstance(ei.value.__cause__, ZeroDivisionError)


def test_an_agent_returning_a_wrong_move_is_named():
    g = gf.Game(seed=1)
    with pytest.raises(gf.IllegalMoveError, match="returned 'nonsense', which is not one of the"):
        parse_agent(lambda obs, legal: "nonsense").move(g)


def test_the_cli_shows_the_agent_then_its_traceback(user_module, capsys):
    assert main(["tournament", "--agents", f"{user_module}:broken,greedy", "--deals", "1",
                 "--workers", "1", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"guandan-fast: error: agent '{user_module}:broken' at seat")
    assert "Traceback" in err and "ZeroDivisionError: the agent's own bug" in err


@pytest.mark.parametrize("command", ["simulate", "tournament", "serve", "connect", "play"])
def test_every_command_lists_the_agents(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "greedy" in out and "random_compact" in out and "expert" in out
    assert "pimc:samples=" in out
    if command != "simulate":      # simulate plays compiled agents only
        assert "MODULE:FUNCTION" in out and "policy:MODULE:FUNCTION" in out


def test_the_server_seats_any_agent():
    from guandan_fast.net.server import ServerConfig

    cfg = ServerConfig(bots={1: "pimc:samples=2", 3: "greedy"}, takeover="ismcts:iterations=10")
    assert cfg.bots[1].kind == "pimc" and cfg.takeover.kind == "ismcts"
    with pytest.raises(ValueError, match="unknown agent 'smart'"):
        ServerConfig(takeover="smart")


def test_gymnasium_opponents_take_any_agent(user_module):
    from guandan_fast.envs.gymnasium import GuandanEnv

    env = GuandanEnv(seat=0, opponents=(None, f"{user_module}:first_move", "pimc:samples=2",
                                        "greedy"))
    obs, info = env.reset(seed=1)
    for _ in range(5):
        obs, r, term, trunc, info = env.step(int(info["action_mask"].argmax()))
    assert env.game.hand_number == 0 and not term

"""``simulate`` with agents that are not compiled: the Python loop (``simulate.PythonBlock``).

Its oracle is the compiled loop: compiled agents forced through the Python loop
(``loop='python'``) give exactly the compiled run's result, every counter, in both modes, at
any thread count, and the same record bytes. Then the learned agent (``dmc:PATH``, a small
untrained network), a Python agent and a policy play in it, from Python and from the CLI.
About 30 s.
"""

import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import guandan_fast as gf
from guandan_fast.agents import AgentError
from guandan_fast import Rules, records
from guandan_fast import simulate_core as core
from guandan_fast.codec import layout
from guandan_fast.learn.qnet import QNet
from guandan_fast.simulate import simulate

CMD = [sys.executable, "-m", "guandan_fast"]

POLICY_MODULE = '''
import numpy as np

def first_legal(observation, legal_moves):
    return legal_moves[0]

def last_action(obs, mask):
    return int(np.flatnonzero(mask)[-1])
'''


@pytest.fixture
def weights(tmp_path):
    path = tmp_path / "w.npz"
    QNet.initial((16,), seed=0).save(path)
    return str(path)


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "sim_agents.py").write_text(POLICY_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "sim_agents"


# -- the oracle: compiled agents through both loops ----------------------------------------------

@pytest.mark.parametrize("agents, rules", [
    (("greedy", "random", "greedy", "random"), Rules()),
    (("expert", "greedy", "expert", "greedy"), Rules()),
    (("random_compact", "bomber", "random", "solo"), Rules()),
    (("random",) * 4, Rules(ace_rule="double_only")),
    (("pimc:samples=2:rollouts=1", "greedy", "random", "greedy"), Rules()),
])
def test_the_python_loop_plays_compiled_agents_as_the_compiled_loop(agents, rules):
    n = 3 if agents[0].startswith("pimc") else 12
    fast = simulate(matches=n, seed=7, agents=agents, rules=rules)
    slow = simulate(matches=n, seed=7, agents=agents, rules=rules, loop="python")
    assert slow == fast                    # every counter (dataclass equality)
    assert slow.matches == n and slow.hands > n and slow.plays > 0


def test_the_python_loop_in_hands_mode_cuts_the_same_match():
    agents = ("greedy", "random", "expert", "random")
    for hands in (1, 7, 45):
        fast = simulate(hands=hands, seed=3, agents=agents)
        assert simulate(hands=hands, seed=3, agents=agents, loop="python") == fast
        assert fast.hands == hands
    assert fast.truncated == 1 or fast.matches > 0


def test_the_python_loop_is_the_same_at_any_thread_count():
    agents = ("greedy", "random", "greedy", "random")
    one = simulate(matches=10, seed=2, agents=agents, loop="python")
    assert simulate(matches=10, seed=2, agents=agents, loop="python", threads=3) == one
    h = simulate(hands=33, seed=2, agents=agents, loop="python", threads=2)
    assert h == simulate(hands=33, seed=2, agents=agents)


def test_the_python_loop_writes_the_compiled_record_byte_for_byte(tmp_path):
    agents = ("expert", "random", "greedy", "random")
    for kw in ({"matches": 3}, {"hands": 14}):
        a, b = tmp_path / "fast.jsonl", tmp_path / "slow.jsonl"
        fast = simulate(seed=4, agents=agents, record=a, **kw)
        slow = simulate(seed=4, agents=agents, record=b, loop="python", threads=2, **kw)
        assert slow == fast
        assert b.read_bytes() == a.read_bytes()


def test_the_move_word_fields_are_the_compiled_ones():
    import importlib

    sim = importlib.import_module("guandan_fast.simulate")    # the module, not the function
    lay = layout()
    codes = lay["TYPE_CODES"]
    assert sim._TYPE_SHIFT == lay["TYPE_SHIFT"] and sim._T_PASS == codes["PASS"]
    assert sim._T_BOMBS == (codes["Bomb"], codes["StraightFlush"])
    assert sim._T_EXCHANGE == (codes["tribute"], codes["back"])


# -- agents that are not compiled ----------------------------------------------------------------

def test_a_dmc_agent_plays_simulate_with_every_counter(weights, tmp_path):
    agents = (f"dmc:{weights}", "greedy", f"dmc:{weights}", "random")
    seen = []
    rec = tmp_path / "dmc.jsonl"
    res = simulate(matches=3, seed=5, agents=agents, progress=seen.append, record=rec)
    assert res.agents == agents and res.matches == 3 and sum(res.team_wins) == 3
    assert sum(res.hand_wins) == res.hands == sum(res.finishes.values()) > 3
    assert res.plays > res.bombs >= 0 and res.cards >= res.plays and res.passes > 0
    assert res.agent_wins == {agents[0]: res.team_wins[0], "greedy": res.team_wins[1],
                              "random": res.team_wins[1]}
    assert seen == [1, 2, 3]
    # the same deals as the compiled loop's matches, each replays (every move checked)
    matches = records.read(rec)
    assert [h["seed"] for h, _ in matches] == [core.match_seed(5, i) for i in range(3)]
    assert [h["agents"] for h, _ in matches] == [list(agents)] * 3
    hands = 0
    for i in range(3):
        game = gf.Game.from_record(str(rec), match=i)
        assert game.is_over
        hands += len(game.results)
    assert hands == res.hands
    # deterministic, at any thread count, with or without the record
    assert simulate(matches=3, seed=5, agents=agents, threads=2) == res


def test_a_dmc_agent_in_hands_mode_plays_the_matches_mode_prefix(weights):
    agents = (f"dmc:{weights}", "greedy") * 2
    h = simulate(hands=9, seed=1, agents=agents)
    assert h.hands == 9 and h.matches + h.truncated >= 1
    assert h == simulate(hands=9, seed=1, agents=agents, threads=2)
    if h.matches:
        assert simulate(matches=h.matches, seed=1, agents=agents).team_wins == h.team_wins


def test_python_agents_and_policies_play_too(user_module, weights):
    agents = (f"{user_module}:first_legal", f"policy:{user_module}:last_action",
              f"dmc:{weights}", "expert")
    res = simulate(matches=1, seed=3, agents=agents)
    assert res.matches == 1 and res.hands >= 1
    assert res == simulate(matches=1, seed=3, agents=agents, threads=2)


def test_a_failing_python_agent_is_named():
    def broken(observation, legal_moves):
        raise RuntimeError("boom")

    with pytest.raises(AgentError, match="boom"):
        simulate(matches=1, agents=(broken, "greedy", "greedy", "greedy"))


@pytest.mark.parametrize("kwargs, message", [
    ({"cluster": "ray"}, "cluster='ray' plays compiled agents only, not 'dmc:"),
    ({"loop": "compiled"}, "loop='compiled' plays compiled agents only, not 'dmc:"),
    ({"loop": "numpy"}, "loop must be None, 'compiled' or 'python'"),
])
def test_what_the_python_loop_refuses(weights, kwargs, message):
    with pytest.raises(ValueError, match=message):
        simulate(matches=1, agents=(f"dmc:{weights}", "greedy") * 2, **kwargs)
    with pytest.raises(ValueError):
        simulate(matches=1, loop="python", cluster="ray")


@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_stops_the_python_loop_within_a_second_keeping_whole_matches(weights, threads):
    import os
    import signal

    fired = []

    def ctrl_c():
        fired.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    agents = (f"dmc:{weights}", "greedy") * 2
    timer = threading.Timer(2.0, ctrl_c)
    timer.start()
    try:
        simulate(matches=10**6, seed=2, agents=agents, threads=threads)
        raise AssertionError("not interrupted")
    except KeyboardInterrupt as exc:
        stopped = time.monotonic()
        part = exc.partial
    finally:
        timer.cancel()
    assert stopped - fired[0] < 1.0
    assert part.matches >= 1 and sum(part.team_wins) == part.matches
    assert part.truncated == 0 and part.hands == sum(part.hand_wins)
    assert simulate(matches=part.matches, seed=2, agents=agents) == part   # whole matches


# -- the CLI ---------------------------------------------------------------------------------------

def test_cli_simulate_plays_a_dmc_agent(weights, tmp_path):
    out = tmp_path / "res.json"
    spec = f"dmc:{weights}"
    proc = subprocess.run(CMD + ["simulate", "--agents", f"{spec},greedy,{spec},random",
                                 "--matches", "2", "--seed", "6", "--threads", "1",
                                 "--no-progress", "--json", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("simulation: 2 matches")
    assert f"{spec} / {spec}" in proc.stdout
    # the long names widen the agents column: the counts stay under their headings
    lines = proc.stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("team"))
    end = lines[head].index("match wins") + len("match wins")
    for row in lines[head + 1:head + 3]:
        assert row[:end].split()[-1].isdigit() and row[end] == " ", (lines[head], row)
    import json

    data = json.loads(out.read_text())
    res = simulate(matches=2, seed=6, agents=(spec, "greedy", spec, "random"))
    assert data["matches"] == 2 and data["hands"] == res.hands
    assert [t["match_wins"] for t in data["teams"]] == list(res.team_wins)


@pytest.mark.parametrize("make, fragment", [
    (lambda p: p.write_text("not weights"), "not a DMC weights file"),
    (lambda p: None, "no such file"),
])
def test_cli_simulate_with_a_bad_weights_file_says_so_in_one_line(tmp_path, make, fragment):
    bad = tmp_path / "bad.npz"
    make(bad)
    out, rec = tmp_path / "res.json", tmp_path / "rec.jsonl"
    proc = subprocess.run(CMD + ["simulate", "--agents", f"dmc:{bad},greedy,greedy,greedy",
                                 "--matches", "2", "--json", str(out), "--record", str(rec)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"agent 'dmc:{bad}'" in lines[0] and fragment in lines[0], lines[0]
    assert not out.exists() and not rec.exists()
    assert proc.stdout == ""


def test_cli_simulate_refuses_ray_for_a_dmc_agent_in_one_line(weights):
    proc = subprocess.run(CMD + ["simulate", "--agents", f"dmc:{weights},greedy,greedy,greedy",
                                 "--matches", "1", "--ray", "127.0.0.1:1"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "cluster='ray' plays compiled agents only" in lines[0], lines


def test_cli_simulate_help_says_what_a_dmc_seat_costs():
    proc = subprocess.run(CMD + ["simulate", "--help"], capture_output=True, text=True)
    text = " ".join(proc.stdout.split())
    assert "dmc:PATH" in text and "decisions/s" in text and "not with --ray" in text
    assert np.isfinite(float(text.split("decisions/s")[0].split()[-1].replace(",", "")))


def test_ctrl_c_on_cli_simulate_with_a_dmc_agent_keeps_whole_matches(weights, tmp_path):
    import signal

    rec = tmp_path / "int.jsonl"
    spec = f"dmc:{weights}"
    proc = subprocess.Popen(CMD + ["simulate", "--agents", f"{spec},greedy,{spec},greedy",
                                   "--matches", "100000", "--seed", "2", "--yes", "--threads",
                                   "2", "--record", str(rec)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if rec.exists() and rec.read_bytes().count(b'"format"') >= 2:
                break
            time.sleep(0.05)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        seconds = time.monotonic() - t0
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and seconds < 1.5
    first = out.splitlines()[0]
    assert first.startswith("interrupted after ") and " of 100000 match(es)" in first, out
    done = int(first.split()[2])
    assert done >= 2 and f"{done} matches" in out       # the totals so far follow
    assert rec.read_bytes().count(b'"format"') == done    # the record ends on a whole match
    gf.Game.from_record(str(rec), match=done - 1)

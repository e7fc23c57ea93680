"""External agents in the tournament: platform client programs (tests/clients/, the example
bot) play as agents, the same moves as the same rule written as a Python agent; every kind
of fault is a result (forfeit, or a takeover) listed with the client's stderr; no client
process outlives its match, also after Ctrl-C; bad input is one line and exit status 2."""

import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time
import uuid

import pytest

from guandan_fast.external import external_agent, live_groups
from guandan_fast.game import Game
from guandan_fast.tournament import tournament

ROOT = pathlib.Path(__file__).resolve().parent.parent
CLIENTS = ROOT / "tests" / "clients"
PY = sys.executable
sys.path.insert(0, str(CLIENTS))
import first_play  # noqa: E402  (the test clients' rule as a Python agent)

THREADED = f"{PY} {ROOT / 'examples' / 'platform_bot.py'} {{url}}"
ASYNCIO = f"{PY} {CLIENTS / 'asyncio_client.py'} {{url}}"


def faulty(mode, n, tag):
    return f"{PY} {CLIENTS / 'faulty_client.py'} {mode} {n} {{url}} {tag}"


def running_with(tag: str) -> list[str]:
    """Command lines of the processes in the process table that carry ``tag``."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if tag in cmd and int(pid) != os.getpid():
            found.append(f"{pid}: {cmd}")
    return found


def assert_none_left(tag: str) -> None:
    # A killed process may stay a zombie for an instant until its parent reaps it.
    deadline = time.monotonic() + 3
    while running_with(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert running_with(tag) == []
    assert live_groups() == set()


def test_platform_clients_of_both_shapes_play_the_moves_of_the_same_python_agent():
    # The threaded example bot and the asyncio client apply the rule of first_play.agent:
    # the same deals give the same matches, so the same statistics.
    tag = uuid.uuid4().hex
    res = tournament(["greedy", "threaded", "asyncio"], deals=1, seed=3, workers=2,
                     external={"threaded": THREADED + " " + tag,
                               "asyncio": ASYNCIO + " " + tag})
    ref = tournament(["greedy", first_play.agent], deals=1, seed=3)
    want = {k: v for k, v in ref.pairs[0].to_dict().items() if k != "b"}
    for b in ("threaded", "asyncio"):
        got = res.pair("greedy", b).to_dict()
        assert got.pop("b") == b
        assert got == want
    # Two copies of the same rule: every deal is split one match each.
    twin = res.pair("threaded", "asyncio")
    assert (twin.wins_a, twin.matches) == (1, 2)
    assert res.faults == []
    assert "external clients: no fault" in res.table()
    assert res.ratings is not None and set(res.ratings.elo) == {"greedy", "threaded", "asyncio"}
    assert_none_left(tag)


def test_the_same_seed_gives_the_same_result_at_any_worker_count():
    tag = uuid.uuid4().hex
    ext = {"bot": ASYNCIO + " " + tag}
    one = tournament(["expert", "bot"], deals=1, seed=5, workers=1, external=ext)
    two = tournament(["expert", "bot"], deals=1, seed=5, workers=2, external=ext)
    assert one == two and one.to_dict() == two.to_dict()
    assert_none_left(tag)


@pytest.mark.parametrize("mode, reason", [
    ("crash", "disconnected"),
    ("hang", "no valid answer within 1.5 s"),
    ("garbage", "refused message(s), the first: not JSON"),
    ("exit", "disconnected"),
    ("child", "no valid answer within 1.5 s"),
])
def test_a_faulty_client_forfeits_its_matches_and_leaves_nothing_running(mode, reason):
    tag = uuid.uuid4().hex
    res = tournament(["greedy", "bad"], deals=1, seed=2, workers=2, decision_timeout=1.5,
                     external={"bad": faulty(mode, 3, tag)})
    p = res.pairs[0]
    assert (p.wins_a, p.matches) == (2, 2)        # both matches forfeited to greedy
    assert len(res.faults) == 2
    for seating, f in enumerate(res.faults):
        assert (f["agent"], f["a"], f["b"], f["deal"], f["seating"]) == \
            ("bad", "greedy", "bad", 0, seating)
        assert f["seat"] % 2 == 1 - seating       # a seat of bad's team
        assert reason in f["reason"], f["reason"]
        assert f["finished_by"] is None
    if mode == "crash":
        assert "crashing at decision 3 as asked" in res.faults[0]["stderr_tail"]
        assert "exited with status 3" in res.faults[0]["reason"]
    table = res.table()
    assert "faults: 2 (bad 2)" in table and "bad forfeits the match" in table
    assert json.loads(res.to_json())["faults"][0]["reason"] == res.faults[0]["reason"]
    assert_none_left(tag)


def test_a_client_that_never_connects_is_a_fault_after_the_timeout(monkeypatch):
    monkeypatch.setattr("guandan_fast.external.CONNECT_TIMEOUT_MIN", 1.0)
    tag = uuid.uuid4().hex
    t0 = time.monotonic()
    res = tournament(["greedy", "mute"], deals=1, workers=2, decision_timeout=1.0,
                     external={"mute": faulty("noconnect", 0, tag)})
    assert time.monotonic() - t0 < 10
    assert [f["reason"] for f in res.faults] == ["did not connect within 1 s"] * 2
    assert res.pairs[0].wins_a == 2 and res.pairs[0].hands == 0
    assert_none_left(tag)


def test_a_named_agent_can_finish_the_match_instead(tmp_path):
    tag = uuid.uuid4().hex
    keep = tmp_path / "kept"
    res = tournament(["random", "bad"], deals=1, seed=4, on_fault="greedy", keep=keep,
                     external={"bad": faulty("crash", 5, tag)}, workers=1)
    # both clients of bad's team crash in each match; greedy finishes for them (the last
    # one in-process: the server ends a table without clients) and beats random
    assert [f["finished_by"] for f in res.faults] == ["greedy"] * 4
    assert [f["seat"] % 2 for f in res.faults] == [1, 1, 0, 0]
    assert "finished by greedy" in res.table()
    assert res.pairs[0].wins_a == 0
    # the kept files: each match's record (it replays, the faults in its header) and logs
    records = sorted(keep.glob("*.jsonl"))
    assert [r.name for r in records] == ["random-vs-bad-deal0-seating0.jsonl",
                                         "random-vs-bad-deal0-seating1.jsonl"]
    for r in records:
        head = json.loads(r.read_text().splitlines()[0])
        assert head["server"]["end"] == "win" and head["server"]["faults"]
        assert Game.from_record(str(r)).is_over
    assert "crashing at decision 5" in (keep / "random-vs-bad-deal0-seating0-seat1.err").read_text()
    assert (keep / "random-vs-bad-deal0-seating0-seat3.out").exists()
    assert_none_left(tag)


def test_the_tournament_record_holds_the_external_matches(tmp_path):
    tag = uuid.uuid4().hex
    path = tmp_path / "t.jsonl"
    res = tournament(["greedy", "bot"], deals=1, seed=1, record=path,
                     external={"bot": ASYNCIO + " " + tag})
    heads = [json.loads(line) for line in path.read_text().splitlines()
             if '"format"' in line]
    assert [h["agents"] for h in heads] == [["greedy", "bot"] * 2, ["bot", "greedy"] * 2]
    assert [h["tournament"]["seating"] for h in heads] == [0, 1]
    assert res == tournament(["greedy", "bot"], deals=1, seed=1,
                             external={"bot": ASYNCIO + " " + tag})
    assert_none_left(tag)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_bot_with_a_hard_coded_url_plays_on_a_fixed_port():
    tag = uuid.uuid4().hex
    port = free_port()
    fixed = f"{PY} {CLIENTS / 'asyncio_client.py'} ws://127.0.0.1:{port}/game/mine {tag}"
    res = tournament(["greedy", "mine"], deals=1, seed=3, external={"mine": fixed},
                     external_port=port, workers=2)
    ref = tournament(["greedy", first_play.agent], deals=1, seed=3)
    assert res.pairs[0].wins_a == ref.pairs[0].wins_a and res.faults == []
    assert res.pairs[0].hands == ref.pairs[0].hands
    assert_none_left(tag)


def test_external_agent_objects_and_their_environment(tmp_path):
    # The URL and the seat are in the environment too: a client may ignore its arguments.
    script = tmp_path / "env_client.py"
    script.write_text(
        "import os, runpy, sys\n"
        f"sys.argv = ['c', os.environ['GUANDAN_FAST_URL']]\n"
        "assert os.environ['GUANDAN_FAST_SEAT'] in '0123'\n"
        f"runpy.run_path({str(CLIENTS / 'asyncio_client.py')!r}, run_name='__main__')\n")
    tag = uuid.uuid4().hex
    bot = external_agent("envbot", f"{PY} {script} {tag} {{url}}")
    res = tournament(["greedy", bot], deals=1, seed=3)
    assert res.faults == [] and res.agents == ("greedy", "envbot")
    assert_none_left(tag)


@pytest.mark.cli
def test_ctrl_c_stops_within_a_second_and_kills_the_clients():
    tag = uuid.uuid4().hex
    cmd = [PY, "-m", "guandan_fast", "tournament", "--agents", "greedy,hang", "--deals", "3",
           "--decision-timeout", "60", "--workers", "2", "--no-progress",
           "--external", "hang=" + faulty("hang", 2, tag)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while len(running_with(tag)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(running_with(tag)) >= 2, "the clients did not start"
    time.sleep(0.5)                                    # they are at the table, hanging
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert time.monotonic() - t0 < 2.0
    assert proc.returncode == 130, err
    assert "interrupted after 0 of 6 match(es)" in out
    assert_none_left(tag)


@pytest.mark.cli
@pytest.mark.parametrize("args, message", [
    (["--agents", "greedy,bot", "--external", "bot=no-such-program-xyz {url}"],
     "external agent 'bot': command 'no-such-program-xyz' does not start: not found on PATH"),
    (["--agents", "greedy,bot", "--external", f"bot={PY} bot.py"],
     "external agent 'bot': the command has no {url}"),
    (["--agents", "greedy,bto", "--external", f"bot={PY} bot.py {{url}}"],
     "external agent 'bot' is not among the agents"),
    (["--agents", "greedy,bto"], "unknown agent 'bto'"),
    (["--agents", "greedy,bot", "--external", "bot"], "--external takes NAME=COMMAND"),
    (["--agents", "greedy,bot", "--external", f"bot={PY} b.py {{url}}",
      "--decision-timeout", "0"], "decision_timeout must be seconds > 0"),
    (["--agents", "greedy,bot", "--external", f"bot={PY} b.py {{url}}",
      "--on-fault", "nobody"], "unknown agent 'nobody'"),
])
def test_bad_input_is_one_line_and_status_2(args, message):
    proc = subprocess.run([PY, "-m", "guandan_fast", "tournament", "--deals", "1", *args],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("guandan-fast: error: ")
    assert message in lines[0]


@pytest.mark.cli
def test_the_command_reports_ratings_and_faults_in_table_json_and_picture(tmp_path):
    tag = uuid.uuid4().hex
    out_json, out_svg = tmp_path / "t.json", tmp_path / "t.svg"
    proc = subprocess.run(
        [PY, "-m", "guandan_fast", "tournament", "--agents", "greedy,random,bot", "--deals", "1",
         "--workers", "2", "--external", f"bot={ASYNCIO} {tag}", "--json", str(out_json),
         "--plot", str(out_svg), "--no-progress"],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "ratings (Bradley-Terry" in proc.stdout
    assert "external clients: no fault" in proc.stdout
    data = json.loads(out_json.read_text())
    assert data["faults"] == [] and set(data["ratings"]["agents"]) == {"greedy", "random", "bot"}
    assert "rating (Elo points" in out_svg.read_text()
    assert_none_left(tag)


def test_importing_the_package_does_not_load_asyncio():
    # external.py is imported with the tournament; its event loop only when a match runs
    out = subprocess.run([PY, "-c", "import sys, guandan_fast; print('asyncio' in sys.modules)"],
                         capture_output=True, text=True, timeout=60).stdout.strip()
    assert out == "False"


def test_an_external_bot_runs_the_gauntlet_like_the_same_python_agent():
    # gauntlet() passes the external options to the tournament: the client program plays
    # each member on the same deals as its rule written as a Python agent.
    from guandan_fast.gauntlet import gauntlet

    tag = uuid.uuid4().hex
    got = gauntlet("mybot", deals=1, seed=5, members=("greedy", "bomber"),
                   external={"mybot": THREADED + " " + tag})
    ref = gauntlet(first_play.agent, deals=1, seed=5, members=("greedy", "bomber"))
    assert got.agent == "mybot"
    for member in ("greedy", "bomber"):
        mine = got.result.pair("mybot", member).to_dict()
        theirs = ref.result.pair(ref.agent, member).to_dict()
        assert mine.pop("a") == "mybot" and theirs.pop("a") == ref.agent
        assert mine == theirs
    assert got.result.faults == []
    assert_none_left(tag)

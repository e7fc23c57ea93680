"""What a new user meets: after the default install alone (what `make run` installs), `play
--no-browser` serves the page over HTTP; a command missing an optional extra says so in one
line; Ctrl-C ends every listening command with 130; a taken port is one message for all; the
docs name no path outside the repository."""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from importlib import metadata

import pytest

from guandan_fast.cli import main, port_busy
from guandan_fast.extras import missing_extra

ROOT = pathlib.Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.cli


def default_requirements() -> set[str]:
    """The distributions the default install brings: guandan-fast's requirements without an
    ``extra`` marker, and theirs, as installed."""
    want, todo = set(), ["guandan-fast"]
    while todo:
        name = todo.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in want:
            continue
        want.add(key)
        for req in metadata.requires(name) or []:
            if "extra ==" in req.replace('"', "'").replace("extra==", "extra =="):
                continue
            todo.append(re.split(r"[\s;<>=!~\[(]", req, maxsplit=1)[0])
    return want


def default_only_venv(path: pathlib.Path) -> pathlib.Path:
    """A virtual environment (no system packages, no pip) holding exactly the default install:
    the installed files of ``default_requirements()`` linked in from this environment (what
    ``pip install .`` would copy; the compiled core is not built a second time)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    (site,) = path.glob("lib/python*/site-packages")
    for name in default_requirements():
        dist = metadata.distribution(name)
        for f in dist.files or []:
            if str(f).startswith("..") or "__pycache__" in str(f):
                continue   # scripts outside site-packages, and caches
            src = pathlib.Path(dist.locate_file(f))
            dst = site / f
            if src.exists() and not dst.exists():
                dst.parent.mkdir(parents=True, exist_ok=True)
                dst.symlink_to(src)
    return path / "bin" / "python"


def test_pyproject_installs_websockets_by_default():
    assert "websockets" in default_requirements()
    makefile = (ROOT / "Makefile").read_text()
    # `make run` installs the project without extras: the default install
    assert re.search(r"pip install -q \.$", makefile, re.M)


def test_play_serves_the_page_after_the_default_install_alone(tmp_path):
    python = default_only_venv(tmp_path / "venv")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONUNBUFFERED"] = "1"
    # nothing beyond the default install: the extras' packages are not importable here
    probe = subprocess.run([str(python), "-c", "import importlib.util as u; print("
                            "[m for m in ('gymnasium', 'ray', 'pytest', 'pyspiel') if u.find_spec(m)])"],
                           capture_output=True, text=True, env=env, cwd=tmp_path, check=True)
    assert probe.stdout.strip() == "[]"
    proc = subprocess.Popen([str(python), "-m", "guandan_fast", "play", "--no-browser", "--port", "0",
                             "--agents", "greedy"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=tmp_path)
    try:
        line = proc.stdout.readline()
        assert line.startswith("play at http://127.0.0.1:"), (line, proc.stderr.read() if proc.poll() else "")
        url = line.split()[2]
        base = url.split("?")[0]
        assert url == base + "?seat=0"
        links = proc.stdout.readline()      # the spectators' and the lobby's links
        assert links == f"watch: {base}?watch=1   lobby: {base}lobby\n", links
        with urllib.request.urlopen(url, timeout=20) as r:
            body = r.read().decode()
        assert r.status == 200 and 'id="gf-config"' in body and "gf-pass" in body
        with urllib.request.urlopen(base + "lobby", timeout=20) as r:   # the table waits for you
            lobby = r.read().decode()
        assert 'seat 0: <a href="/?seat=0">take this seat</a>' in lobby
        # a command that needs a missing extra: one line, how to install it, status 2
        ray = subprocess.run([str(python), "-m", "guandan_fast", "simulate", "--matches", "1",
                              "--ray", "--no-progress"], capture_output=True, text=True, env=env,
                             cwd=tmp_path, timeout=120)
        assert ray.returncode == 2, ray.stderr
        assert ray.stderr.count("\n") == 1 and "make test" in ray.stderr
        assert "pip install 'guandan-fast[ray]'" in ray.stderr
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out, _ = proc.communicate(timeout=10)
        finally:
            proc.kill()
    assert proc.returncode == 130 and "interrupted (Ctrl-C)" in out


def test_a_missing_extra_is_one_line(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)      # import ray fails, as when not installed
    assert main(["simulate", "--matches", "1", "--ray", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("guandan-fast: error: cluster='ray' needs Ray")
    assert ".venv/bin/pip install -e '.[ray]'" in err and "pip install 'guandan-fast[ray]'" in err
    gym = ModuleNotFoundError("No module named 'gymnasium'", name="gymnasium")
    assert "'gymnasium' extra" in missing_extra(gym)
    assert missing_extra(ModuleNotFoundError("x", name="mymodule")) is None


def listening(*argv, wait_for="http", cwd=None):
    """Start a guandan-fast command; returns (process, its first line of output)."""
    proc = subprocess.Popen([sys.executable, "-m", "guandan_fast", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=cwd,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))
    return proc, proc.stdout.readline()


@pytest.fixture
def record(tmp_path):
    from guandan_fast import simulate

    path = tmp_path / "r.jsonl"
    simulate(matches=1, agents=("greedy", "random", "greedy", "random"), seed=4, record=str(path))
    return path


@pytest.mark.parametrize("command", ["serve", "play", "view"])
def test_ctrl_c_is_130_everywhere(command, record, tmp_path):
    argv = {"serve": ["serve", "--port", "0"], "play": ["play", "--no-browser", "--agents", "greedy"],
            "view": ["view", str(record), "--no-browser"]}[command]
    proc, first = listening(*argv, cwd=tmp_path)
    assert "127.0.0.1:" in first, (first, proc.stderr.read() if proc.poll() is not None else "")
    page, stack = None, contextlib.ExitStack()
    if command == "play":   # a page at the table: the message says where the match stopped
        from websockets.sync.client import connect

        port = re.search(r"127\.0\.0\.1:(\d+)", first).group(1)
        page = stack.enter_context(connect(f"ws://127.0.0.1:{port}/game/t?seat=0"))
        while json.loads(page.recv(timeout=20)).get("type") != "act":
            pass
    start = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=10)
    assert time.monotonic() - start < 3
    assert proc.returncode == 130, (out, err)
    assert "interrupted (Ctrl-C)" in out
    if page is not None:
        assert "0 match(es) finished; stopped in match 1, hand 1" in out, out
    stack.close()


@pytest.mark.parametrize("command", ["serve", "play", "view"])
def test_a_taken_port_is_one_message_for_every_command(command, record, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        argv = {"serve": ["serve", "--port", str(port)],
                "play": ["play", "--no-browser", "--agents", "greedy", "--port", str(port)],
                "view": ["view", str(record), "--no-browser", "--port", str(port)]}[command]
        assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == f"guandan-fast: error: {port_busy('127.0.0.1', port)}\n"


def test_resume_keeps_the_records_people_and_agents(tmp_path):
    """`play --resume` takes the seats and agents of the record (and its rules), unless
    --seat / --agents say otherwise; the numbers it prints count from 1."""
    from guandan_fast import Game, Rules
    from guandan_fast.records import game_to_lines

    g = Game(seed=9, rules=Rules.platform())
    while g.hand_number < 1:
        g.play_index(0)
    names = ["bot:greedy", "web-abc", "bot:random", "bot:greedy"]
    rec = tmp_path / "me.jsonl"
    rec.write_text("\n".join(game_to_lines(g, names, server={
        "table": 0, "game": 0, "players": names, "end": "playing", "faults": []})) + "\n")
    proc, first = listening("play", "--resume", str(rec), "--no-browser", cwd=tmp_path)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=10)
    assert first.startswith("resuming: hand 2, levels ")
    assert "seat 0 greedy, seat 1 person, seat 2 random, seat 3 greedy" in first, first
    assert proc.returncode == 130, err
    assert rec.read_text().splitlines()[0] == game_to_lines(g, names, server={
        "table": 0, "game": 0, "players": names, "end": "playing", "faults": []})[0]
    assert main(["play", "--resume", str(rec), "--rules", "default", "--no-browser"]) == 2


def test_replay_counts_from_one_and_names_levels_as_cards(record, capsys):
    assert main(["replay", str(record), "--hand", "1"]) == 0
    out = capsys.readouterr().out
    assert "== hand 1: level 2" in out and "== hand 2" not in out
    with pytest.raises(SystemExit) as stop:
        main(["replay", str(record), "--match", "0"])
    assert stop.value.code == 2 and "must be >= 1" in capsys.readouterr().err
    from guandan_fast import Game
    g = Game.from_record(str(record))
    if any(max(r["levels"]) > 10 for r in g.results):
        assert main(["replay", str(record)]) == 0
        text = capsys.readouterr().out
        assert not re.search(r"levels (1[0-4])/|/(1[0-4])\b", text)


def test_protocol_doc_lists_every_message_the_code_builds():
    from guandan_fast.net import protocol as P

    text = (ROOT / "docs" / "protocol.md").read_text()
    for stage in ("beginning", "play", "tribute", "anti-tribute", "back", "episodeOver",
                  "gameOver", "gameResult"):
        assert f"| `{stage}` |" in text, stage
    act = json.loads(P.act_json("play", action_list_json='[["PASS","PASS","PASS"]]', n_actions=1,
                                hand_cards=["S2"],
                                public_info=[{"rest": 1, "playArea": None}] * 4, self_rank="2",
                                oppo_rank="2", cur_rank="2", cur_pos=-1, cur_action=None,
                                greater_pos=-1, greater_action=None))
    for key in act:
        if key not in ("type", "stage"):
            assert f"`{key}`" in text, key


def test_connect_ctrl_c_says_how_far_it_got(tmp_path):
    server, first = listening("serve", "--port", "0", "--bots", "1,2,3=greedy", "--games", "1000",
                              cwd=tmp_path)
    try:
        url = re.search(r"ws://\S+/game/", first).group(0) + "me"
        proc = subprocess.Popen([sys.executable, "-m", "guandan_fast", "connect", url],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ, PYTHONUNBUFFERED="1"))
        line = ""
        while "starts" not in line:   # the server's log: the table is on
            line = server.stderr.readline()
            assert line, "the server ended before its table started"
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        assert proc.returncode == 130, (out, err)
        assert re.match(r"interrupted \(Ctrl-C\): seat 0: \d+ game\(s\) finished, \d+ hand\(s\) "
                        r"begun$", out.strip()), out
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=10)

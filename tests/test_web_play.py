"""guandan-fast play without a browser: settings, resuming a record, bad input, the page."""

import json

import pytest

from guandan_fast import Game, Rules
from guandan_fast.agents import STRONGEST
from guandan_fast.cli import main
from guandan_fast.web.pages import page
from guandan_fast.web.play import http_handler, page_config, play_config, resume_game


def test_agents_and_seats():
    cfg = play_config(seat=1, agents="greedy,random,pimc:samples=4")
    assert {s: a.name for s, a in cfg.bots.items()} == {0: "greedy", 2: "random", 3: "pimc:samples=4"}
    assert cfg.remote_seats == (1,) and cfg.tables == 1 and cfg.rejoin and cfg.error_messages
    conf = page_config(cfg, 0.5)
    assert conf["seat"] == 1 and conf["delay"] == 500 and conf["agents"][1] is None
    assert conf["agents"][0] == "greedy" and conf["hintAgents"][0] == STRONGEST
    with pytest.raises(ValueError, match="unknown agent 'smart'"):
        play_config(agents="smart")
    with pytest.raises(ValueError, match="--seat must be 0..3"):
        play_config(seat=4)
    with pytest.raises(ValueError, match="--seat must be 0..3"):
        play_config(seat=(0, 0))
    # by default the other seats are the strongest agent
    assert {a.name for a in play_config(seat=(0, 2)).bots.values()} == {STRONGEST}
    assert main(["play", "--seat", "0,5", "--no-browser"]) == 2


def test_http_handler_serves_the_page_only():
    cfg = play_config()
    answer = http_handler(lambda: page_config(cfg, 0.8))
    status, ctype, body = answer("/")
    assert status == 200 and ctype.startswith("text/html") and b'id="gf-config"' in body
    assert answer("/favicon.ico")[1] == "image/svg+xml"
    assert answer("/etc/passwd") is None     # the server answers 404
    assert '"delay":800' in body.decode()


def played(seed: int, hands_done: int, extra_moves: int) -> Game:
    g = Game(seed=seed, rules=Rules.platform())
    while g.hand_number < hands_done:
        g.play_index(0)
    for _ in range(extra_moves):
        g.play_index(0)
    return g


def test_resume_drops_the_unfinished_hand(tmp_path):
    rec = tmp_path / "r.jsonl"
    other = played(1, 1, 0)
    g = played(2, 2, 15)                     # hand 2 in progress
    rec.write_text("\n".join(other.to_record() + g.to_record()) + "\n")
    game, offset = resume_game(rec)
    assert game.hand_number == 2 and game.history == []          # at the start of hand 2
    assert game.hand(0) == Game.from_record(g.to_record()[:3]).hand(0)
    assert game.levels == g.levels and game.results == g.results
    assert rec.read_bytes()[offset:].startswith(b'{"format"')
    assert offset == len("\n".join(other.to_record()) + "\n")


def test_resume_refuses_a_finished_match_and_bad_files(tmp_path):
    g = Game(seed=3)
    while not g.is_over:
        g.play_index(0)
    rec = tmp_path / "done.jsonl"
    g.to_record(str(rec))
    with pytest.raises(ValueError, match="is over"):
        resume_game(rec)
    with pytest.raises(ValueError, match="no such record file"):
        resume_game(tmp_path / "none.jsonl")


def test_cli_bad_input(tmp_path, capsys):
    assert main(["play", "--agents", "greedy,greedy", "--no-browser"]) == 2
    assert "give one agent, or 3" in capsys.readouterr().err
    assert main(["play", "--record", str(tmp_path / "x.jsonl.gz"), "--no-browser"]) == 2
    assert "plain .jsonl" in capsys.readouterr().err
    assert main(["play", "--delay", "-1", "--no-browser"]) == 2
    assert "--delay" in capsys.readouterr().err
    assert not (tmp_path / "x.jsonl.gz").exists()


def test_page_is_self_contained():
    doc = page("play", {"seat": 0})
    head = doc.split("<body>")[0]
    assert "<script src" not in doc and "http://" not in head and "https://" not in head
    config = json.loads(doc.split('id="gf-config">')[1].split("</script>")[0])
    assert config["deck"]["7"]["wild"] == ["H7"] and len(config["deck"]["A"]["order"]) == 54

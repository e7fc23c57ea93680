"""The ``guandan-fast`` command: each sub-command runs, prints what it says, and rejects bad
input with a clear message and exit status 2."""

import json
import subprocess
import sys

import pytest

from guandan_fast.cli import main
from helpers import perft_pins


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_module_entry_point_and_console_script_share_main():
    proc = subprocess.run([sys.executable, "-m", "guandan_fast", "--help"],
                          capture_output=True, text=True, check=True)
    for sub in ("simulate", "moves", "perft", "replay"):
        assert sub in proc.stdout
    from importlib.metadata import entry_points

    (ep,) = [e for e in entry_points(group="console_scripts") if e.name == "guandan-fast"]
    assert ep.value == "guandan_fast.cli:main"


def test_moves_groups_by_type_with_counts(capsys):
    code, out, _ = run(capsys, "moves", "S9 S9 D9 H7 SB HR", "--level", "7",
                       "--last", "Pair 8 S8 C8")
    assert code == 0
    # Pairs of 9 that beat 8s: S9 S9, S9 D9, S9+wild, D9+wild; the 4-card bomb 9999 (wild);
    # and PASS.
    assert out.splitlines()[0].startswith("6 legal moves (complete)")
    assert "Pair (4)" in out and "Bomb (1)" in out and "PASS (1)" in out


def test_moves_compact_and_json_last(capsys):
    code, out, _ = run(capsys, "moves", "S9 S9 D9 H7 SB HR", "--level", "7",
                       "--last", json.dumps(["Pair", "8", ["S8", "C8"]]), "--compact")
    assert code == 0
    # compact: one pair of 9s (no wild), one 4-card bomb of 9s, PASS.
    assert out.splitlines()[0].startswith("3 legal moves (compact)")


@pytest.mark.parametrize("argv, message", [
    (["moves", "S9 X9", "--level", "7"], "unknown card code 'X9'"),
    (["moves", "S9 S9", "--level", "1"], "level must be"),
    (["moves", "S9 S9", "--level", "7", "--last", "Pair 9 S8 C8"], "do not make Pair 9"),
    (["simulate", "--matches", "1", "--agents", "greedy,nobody,greedy,random"], "nobody"),
    (["simulate", "--matches", "1", "--rule", "ace_rule=sometimes"], "ace_rule"),
    (["simulate", "--engine", "reference", "--agents", "greedy,random,greedy,random"],
     "random bots only"),
])
def test_bad_input_is_a_clear_error(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert message in err


def test_simulate_prints_a_summary(capsys):
    code, out, _ = run(capsys, "simulate", "--matches", "5", "--seed", "3", "--no-progress")
    assert code == 0
    assert "5 matches" in out


def test_simulate_reference_engine(capsys):
    code, out, _ = run(capsys, "simulate", "--engine", "reference", "--matches", "1",
                       "--seed", "2", "--no-progress")
    assert code == 0
    assert "matches           1" in out


def test_record_then_replay(capsys, tmp_path):
    path = tmp_path / "games.jsonl"
    code, _, _ = run(capsys, "simulate", "--matches", "2", "--record", str(path), "--no-progress")
    assert code == 0
    code, out, _ = run(capsys, "replay", str(path), "--hand", "0")
    assert code == 0
    assert "== hand 0" in out and "== hand 1" not in out
    assert "trick 1" in out
    dealt = [line.split(":", 1)[1].split() for line in out.splitlines()
             if line.strip().startswith("seat") and "(team" in line]
    assert [len(cards) for cards in dealt] == [27, 27, 27, 27]


def test_perft_prints_matching_counts(capsys):
    code, out, _ = run(capsys, "perft", "--seed", "1", "--depth", "2")
    assert code == 0
    counts = {line.split()[0]: line.split()[1] for line in out.splitlines()
              if line.startswith(("compiled", "reference"))}
    assert counts["compiled"] == counts["reference"]
    want = next(n for seed, depth, mode, n, _ in perft_pins() if (seed, depth, mode) == (1, 2, "complete"))
    assert int(counts["compiled"].replace(",", "")) == want
    assert "agree" in out


def test_perft_warns_before_a_run_of_minutes(capsys, monkeypatch):
    from guandan_fast import perft

    calls = []
    monkeypatch.setattr(perft, "estimate_seconds", lambda *a: calls.append(a) or 300.0)
    monkeypatch.setattr(perft, "perft_report", lambda **kw: "report")
    code, out, err = run(capsys, "perft", "--seed", "1", "--depth", "3", "--per-move")
    assert code == 0 and out.strip() == "report"
    assert "about 5 minutes (mostly the reference engine" in err
    assert calls == [(1, 3, calls[0][2], True, True)]
    monkeypatch.setattr(perft, "estimate_seconds", lambda *a: 2.0)
    code, out, err = run(capsys, "perft", "--depth", "1")
    assert code == 0 and err == ""


def test_perft_estimate_is_the_right_order_of_magnitude():
    from guandan_fast import perft

    fast = perft.estimate_seconds(1, 2, reference=False)
    both = perft.estimate_seconds(1, 2)
    assert 0 < fast < both < 60  # the reference dominates; depth 2 takes seconds

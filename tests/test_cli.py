"""The ``guandan-fast`` command: each sub-command runs and prints what it says; bad input or bad
files give one line on stderr and exit status 2, never a traceback; ``| head`` ends quietly;
every option is documented; large record output is a confirmed choice; the progress bar
follows stderr."""

import argparse
import gzip
import json
import os
import pty
import select
import subprocess
import sys

import pytest

import guandan_fast as gf
from guandan_fast import cli
from guandan_fast.cli import main
from guandan_fast.game import Game
from helpers import perft_pins

pytestmark = pytest.mark.cli

CMD = [sys.executable, "-m", "guandan_fast"]


def gf_run(*argv, cwd=None, **kw):
    return subprocess.run(CMD + list(argv), capture_output=True, text=True, cwd=cwd, **kw)


def assert_clean_error(proc, fragment):
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert fragment in lines[0], lines[0]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    good = d / "good.jsonl"
    assert subprocess.run(CMD + ["simulate", "--matches", "3", "--seed", "4", "--record",
                                 str(good), "--no-progress"], capture_output=True).returncode == 0
    lines = good.read_text().splitlines()
    h = json.loads(lines[1])
    h["moves"][0][0] = None
    (d / "nullseat.jsonl").write_text("\n".join([lines[0], json.dumps(h)] + lines[2:]) + "\n")
    h = json.loads(lines[1])
    del h["moves"]
    (d / "nomoves.jsonl").write_text("\n".join([lines[0], json.dumps(h)] + lines[2:]) + "\n")
    h = json.loads(lines[1])
    h["level"] = 9
    (d / "level.jsonl").write_text("\n".join([lines[0], json.dumps(h)] + lines[2:]) + "\n")
    (d / "binary.dat").write_bytes(bytes(range(255, -1, -1)) * 40)
    (d / "nested.jsonl").write_text("[" * 200_000 + "\n")
    header = json.loads(lines[0])
    huge = json.dumps(header).replace(f'"seed": {header["seed"]}', '"seed": ' + "7" * 6000)
    assert huge != json.dumps(header)
    (d / "hugeint.jsonl").write_text(huge + "\n")
    (d / "empty.jsonl").write_text("")
    (d / "gz.jsonl.gz").write_bytes(gzip.compress(good.read_bytes()))
    (d / "broken.gz").write_bytes(gzip.compress(good.read_bytes())[:300])
    return d


BAD_FILES = [
    ("nope.jsonl", "no such file: "),
    ("binary.dat", "not UTF-8 text"),
    ("nested.jsonl", "record line 1: not a record line"),
    ("hugeint.jsonl", "record line 1: not a record line"),
    ("empty.jsonl", "empty record"),
    ("nullseat.jsonl", "record line 2: move 0: field 'moves': seat None"),
    ("nomoves.jsonl", "record line 2: field 'moves': missing"),
    ("level.jsonl", "record line 2: level 9"),
    ("broken.gz", "damaged gzip file"),
    (".", "Is a directory"),
]


def gf_main(capsys, *argv):
    """The command run in this process (``main``; argparse's errors exit): what ``gf_run``
    gives, without starting Python (the real process is checked on a few of each list)."""
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(list(argv), code, out, err)


@pytest.mark.parametrize("name, fragment", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_replay_of_bad_files_is_one_line_and_status_2(files, name, fragment, capsys):
    proc = gf_main(capsys, "replay", str(files / name))
    assert_clean_error(proc, fragment)
    assert proc.stdout == ""  # a bad record prints nothing


@pytest.mark.parametrize("name", ["binary.dat", "broken.gz"])
def test_replay_of_bad_files_in_a_real_process(files, name):
    proc = gf_run("replay", str(files / name))
    assert_clean_error(proc, dict(BAD_FILES)[name])
    assert proc.stdout == ""


BAD_ARGS = [
    (["moves", "S9 X9"], "unknown card code 'X9'"),
    (["moves", "S9 С9"], "unknown card code 'С9'"),
    (["moves", "S9", "--level", "99999999999999999999"], "level must be"),
    (["moves", "S9", "--limit", "-1"], "argument --limit: must be >= 0"),
    (["moves", "S9", "--last", "[[[["], "--last is not valid JSON"),
    (["moves", "S9", "--last", "[" * 100_000], "--last"),
    (["moves", "S9", "--last", '{"a": 1}'], "--last"),
    (["moves", "S9", "--last", "Foo 9 S9"], "--last: unknown move type 'Foo'"),
    (["moves", "S9", "--last", '["Foo", "9", "S9"]'], "unknown move type 'Foo'"),
    (["moves", "S9", "--last", "Pair 9 S9"], "--last: a Pair has 2 cards, not 1"),
    (["moves", "S9", "--last", "Bomb 9 S9 S9"], "--last: a Bomb has 4 to 10 cards, not 2"),
    (["simulate", "--agents", "", "--matches", "1"], "--agents is empty"),
    (["simulate", "--agents", " , ", "--matches", "1"], "agents must name exactly 4"),
    (["simulate", "--matches", "0"], "argument --matches: must be >= 1"),
    (["simulate", "--matches", "-5"], "argument --matches: must be >= 1"),
    (["simulate", "--hands", "0"], "argument --hands: must be >= 1"),
    (["simulate", "--threads", "0", "--matches", "1"], "argument --threads: must be >= 1"),
    (["simulate", "--engine", "reference", "--threads", "0"], "argument --threads"),
    (["simulate", "--engine", "reference", "--matches", "0"], "argument --matches"),
    (["simulate", "--threads", "100000", "--matches", "1"], "threads must be at most 1024"),
    (["simulate", "--matches", "9" * 5000], "argument --matches"),
    (["simulate", "--matches", "1", "--rule", "ace_fail_reset=0"], "ace_fail_reset"),
    (["simulate", "--matches", "1", "--rule", "nonsense"], "--rule takes key=value"),
    (["perft", "--depth", "-1"], "argument --depth"),
    (["replay", "x.jsonl", "--match", "0"], "argument --match: must be >= 1"),
    (["simulate", "--matches", "1", "--record", "no/such/dir/x.jsonl"],
     "no such folder: no/such/dir (for no/such/dir/x.jsonl)"),
    (["tournament", "--agents", "greedy,random", "--deals", "1", "--json", "no/dir/r.json"],
     "no such folder: no/dir"),
    (["nosuchcommand"], "invalid choice"),
]


@pytest.mark.parametrize("argv, fragment", BAD_ARGS)
def test_bad_arguments_are_one_line_and_status_2(argv, fragment, capsys):
    assert_clean_error(gf_main(capsys, *argv), fragment)


@pytest.mark.parametrize("k", [1, 5, 13, 27])
def test_bad_arguments_in_a_real_process(k):
    argv, fragment = BAD_ARGS[k]
    assert_clean_error(gf_run(*argv), fragment)


def test_replay_chooses_a_match_and_reads_gzip(files):
    from guandan_fast.simulate_core import match_seed

    proc = gf_run("replay", str(files / "good.jsonl"), "--match", "3", "--hand", "1")
    assert proc.returncode == 0
    assert proc.stdout.startswith(f"match: seed {match_seed(4, 2)},")
    assert proc.stdout.count("== hand ") == 1
    gz = gf_run("replay", str(files / "gz.jsonl.gz"), "--match", "3", "--hand", "1")
    assert gz.returncode == 0 and gz.stdout == proc.stdout
    assert_clean_error(gf_run("replay", str(files / "good.jsonl"), "--match", "4"),
                       "the record holds 3 match(es); no match 4")


def test_closed_pipe_ends_quietly():
    # Four suits of 3..J: about 200 KB of moves, well past a pipe's 64 KB buffer, so the
    # command is still writing when the reader goes away.
    hand = " ".join(s + r for s in "SHCD" for r in "3456789TJ")
    proc = subprocess.Popen(CMD + ["moves", hand, "--all"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    first = proc.stdout.readline()  # like `| head -1`
    proc.stdout.close()
    err = proc.stderr.read().decode()
    code = proc.wait(timeout=60)
    assert b"legal moves" in first
    assert err == "", err
    assert code in (0, 141)  # 141: cut short by the closed pipe (128 + SIGPIPE)


def test_version_option():
    proc = gf_run("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"guandan-fast {gf.__version__}"


def test_every_option_of_every_command_has_help():
    parser = cli.build_parser()
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert subs
    checked = 0
    for name, sp in [("", parser)] + list(subs[0].choices.items()):
        for action in sp._actions:
            if isinstance(action, argparse._SubParsersAction):
                continue
            assert action.help and action.help != argparse.SUPPRESS, (name, action.dest)
            checked += 1
    assert checked > 25


def test_large_record_output_needs_confirmation(tmp_path, monkeypatch, capsys):
    path = tmp_path / "big.jsonl"
    # The default run (250,000 matches) would write gigabytes: refused, nothing written.
    proc = gf_run("simulate", "--record", str(path))
    assert_clean_error(proc, "--record would write at least")
    assert "--yes" in proc.stderr and not path.exists()
    # The threshold is a setting; below it no flag is needed, above it --yes confirms.
    assert cli.record_estimate("x.jsonl", 1000, None) == 10 * cli.record_estimate("x.gz", 1000, None)
    monkeypatch.setattr(cli, "RECORD_CONFIRM_BYTES", 20_000)
    assert cli.main(["simulate", "--matches", "2", "--record", str(path), "--no-progress"]) == 2
    assert "--yes" in capsys.readouterr().err and not path.exists()
    assert cli.main(["simulate", "--matches", "2", "--record", str(path), "--no-progress",
                     "--yes"]) == 0
    assert Game.from_record(path, match=1).is_over
    gz = tmp_path / "small.jsonl.gz"
    assert cli.main(["simulate", "--matches", "2", "--record", str(gz), "--no-progress"]) == 0
    assert gz.read_bytes()[:2] == b"\x1f\x8b"


def _run_with_tty(stderr_tty: bool):
    """simulate with stderr (or stdout) on a pseudo-terminal; returns (stdout, stderr) text."""
    master, slave = pty.openpty()
    argv = CMD + ["simulate", "--matches", "40", "--threads", "1"]
    if stderr_tty:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=slave)
    else:
        proc = subprocess.Popen(argv, stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)
    tty = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the other side closed
            break
        if not chunk:
            break
        tty += chunk
    piped = (proc.stdout if stderr_tty else proc.stderr).read()
    proc.wait(timeout=60)
    os.close(master)
    return tty.decode(errors="replace"), piped.decode(errors="replace")


def test_progress_bar_is_drawn_when_stderr_is_a_terminal():
    tty, out = _run_with_tty(stderr_tty=True)
    assert "matches [" in tty and "40/40" in tty
    assert "40 matches" in out and "[" not in out.splitlines()[0]


def test_no_progress_bar_when_stderr_is_not_a_terminal():
    tty, err = _run_with_tty(stderr_tty=False)
    assert "40 matches" in tty  # the summary went to the terminal
    assert "matches [" not in tty and err == ""


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
    # Seed 7: a match of 11 hands (the pure-Python engine plays ~2 hands a second).
    code, out, _ = run(capsys, "simulate", "--engine", "reference", "--matches", "1",
                       "--seed", "7", "--no-progress")
    assert code == 0
    assert "matches           1" in out


def test_record_then_replay(capsys, tmp_path):
    path = tmp_path / "games.jsonl"
    code, _, _ = run(capsys, "simulate", "--matches", "2", "--record", str(path), "--no-progress")
    assert code == 0
    code, out, _ = run(capsys, "replay", str(path), "--hand", "1")
    assert code == 0
    assert "== hand 1" in out and "== hand 2" not in out
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
    monkeypatch.setattr(perft, "perft_report", lambda emit, **kw: emit("report"))
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


def test_simulate_json_writes_the_result_as_data(tmp_path, capsys):
    out = tmp_path / "r.json"
    code, text, err = run(capsys, "simulate", "--matches", "3", "--seed", "5", "--json", str(out),
                          "--no-progress")
    assert code == 0 and "simulation: 3 matches" in text
    data = json.loads(out.read_text())
    assert data["format"] == "guandan-fast-simulation" and data["matches"] == 3
    assert sum(t["match_wins"] for t in data["teams"]) == 3


def test_replay_of_a_record_cut_mid_line_or_mid_match_says_so(files, tmp_path):
    text = (files / "good.jsonl").read_text()
    lines = text.splitlines(keepends=True)
    second = next(i for i in range(1, len(lines)) if '"format"' in lines[i])
    mid_line = tmp_path / "midline.jsonl"
    mid_line.write_text("".join(lines[:second + 2]) + lines[second + 2][:100])
    proc = gf_run("replay", str(mid_line), "--match", "2")
    assert_clean_error(proc, f"record line {second + 3}: cut short")
    mid_match = tmp_path / "midmatch.jsonl"
    mid_match.write_text("".join(lines[:second + 2]))
    proc = gf_run("replay", str(mid_match), "--match", "2")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip().splitlines()[-1] == (
        "(the record of this match ends after 1 hand(s), before the match is over: a run "
        "stopped or cut short)")
    assert "before the match is over" not in gf_run("replay", str(files / "good.jsonl")).stdout
    # a match past the end: the count of matches, and that the last one is cut (not parsed
    # on the way, so found at the end)
    proc = gf_run("replay", str(mid_line), "--match", "10")
    assert_clean_error(proc, f"the record holds 2 match(es), the last one cut short at line "
                             f"{second + 3} (a writer stopped mid-line); no match 10")
    proc = gf_run("replay", str(mid_match), "--match", "10")
    assert_clean_error(proc, "the record holds 2 match(es); no match 10")


def _running_until(argv, rec, matches, **popen):
    """``guandan-fast argv`` started and left running until its record ``rec`` holds
    ``matches`` match headers (at most a minute); the process is returned."""
    import time

    proc = subprocess.Popen(CMD + argv, **popen)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if rec.exists() and rec.read_bytes().count(b'"format"') >= matches:
            break
        time.sleep(0.05)
    return proc


def _interrupted(argv, rec, matches):
    """``_running_until``, then Ctrl-C (SIGINT): (exit status, stdout, stderr, seconds it took
    to stop)."""
    import signal
    import time

    proc = _running_until(argv, rec, matches, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    return proc.returncode, out, err, time.monotonic() - t0


@pytest.mark.parametrize("command", [
    ["simulate", "--matches", "100000", "--seed", "3", "--no-progress", "--yes"],
    ["tournament", "--agents", "random,greedy", "--deals", "100000", "--seed", "3",
     "--no-progress"],
])
def test_records_survive_sigkill(tmp_path, command):
    """A writer killed (SIGKILL) in the middle: every match before the cut replays, and a
    replay of the cut one is whole or says it is cut short."""
    import signal

    rec = tmp_path / "killed.jsonl"
    proc = _running_until(command + ["--record", str(rec)], rec, 3, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    try:
        assert proc.poll() is None, proc.stderr.read()
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        proc.kill()
    n = rec.read_bytes().count(b'"format"')
    assert n >= 3
    for i in range(n - 1):
        Game.from_record(str(rec), match=i)       # every earlier match replays
    try:
        Game.from_record(str(rec), match=n - 1)
    except ValueError as exc:
        assert "cut short" in str(exc), exc


def test_ctrl_c_on_simulate_says_how_far_it_got_and_keeps_whole_matches(tmp_path):
    rec = tmp_path / "int.jsonl"
    code, out, err, _ = _interrupted(["simulate", "--matches", "100000", "--seed", "2", "--yes",
                                      "--record", str(rec)], rec, 2)
    assert code == 130, err
    assert "Traceback" not in err
    first = out.splitlines()[0]
    assert first.startswith("interrupted after ") and " of 100000 match(es)" in first, out
    done = int(first.split()[2])
    assert done >= 2 and f"{done} matches" in out     # the totals so far follow
    assert rec.read_bytes().count(b'"format"') == done  # the record ends on a whole match
    Game.from_record(str(rec), match=done - 1)


def test_simulate_interrupted_from_python_carries_the_partial_result():
    import threading
    import _thread

    seen = []
    timer = threading.Timer(1.0, _thread.interrupt_main)
    timer.start()
    try:
        gf.simulate(matches=10_000_000, seed=1, progress=seen.append)
        raise AssertionError("not interrupted")
    except KeyboardInterrupt as exc:
        part = exc.partial
    finally:
        timer.cancel()
    assert isinstance(part, gf.SimulationResult) and 0 < part.matches < 10_000_000
    assert part.hands > part.matches and sum(part.team_wins) == part.matches
    assert seen and max(seen) >= part.matches   # progress came along the way


def test_ctrl_c_on_tournament_prints_the_totals_so_far_and_keeps_whole_matches(tmp_path):
    rec = tmp_path / "int.jsonl"
    code, out, err, seconds = _interrupted(["tournament", "--agents", "random,greedy",
                                            "--deals", "100000", "--seed", "4", "--record",
                                            str(rec)], rec, 5)
    assert seconds < 5
    assert code == 130, err
    assert "Traceback" not in err
    lines = out.splitlines()
    assert lines[0].startswith("interrupted after ") and "of 200000 match(es)" in lines[0], out
    assert "the totals so far (deals played in both seatings):" in lines[0], out
    # the table of the deals so far: its deal count matches the record, whole matches only
    deals = int(lines[1].split(" deals x 2 seatings")[0].rsplit(" ", 1)[1])
    n = rec.read_bytes().count(b'"format"')
    assert deals >= 2 and n in (2 * deals, 2 * deals + 1), (deals, n)
    assert "random" in out and "standings (match wins / matches)" in out
    assert f"/{2 * deals}" in lines[-1]
    assert Game.from_record(str(rec), match=n - 1).is_over


def test_tournament_interrupted_from_python_carries_the_partial_result():
    import _thread

    seen = []

    def progress(n):
        seen.append(n)
        if n >= 40 and len(seen) == 5:
            _thread.interrupt_main()      # Ctrl-C, once some jobs are done

    try:
        gf.tournament(["random", "greedy"], deals=100_000, seed=1, progress=progress)
        raise AssertionError("not interrupted")
    except KeyboardInterrupt as exc:
        part = exc.partial
    assert isinstance(part, gf.TournamentResult) and len(part.pairs) == 1
    pair = part.pairs[0]
    assert 20 <= pair.deals == part.deals < 100_000 and pair.matches == 2 * pair.deals
    assert part.standings["random"]["matches"] == pair.matches
    assert max(seen) >= pair.matches   # progress came along the way


@pytest.mark.parametrize("cut", [7, 8])
def test_ctrl_c_right_after_a_record_write_keeps_record_and_totals_equal(tmp_path, monkeypatch,
                                                                         cut):
    """Ctrl-C that arrives while a match is written (here: as the write returns) is held
    until the match is also counted: the record holds the partial result's whole deals (and
    at most the first seating of the next)."""
    import signal

    from guandan_fast import records

    rec = tmp_path / "t.jsonl"
    real_block, writes = records.RecordWriter.block, []

    def block(self, data):
        real_block(self, data)
        writes.append(data)
        if len(writes) == cut:
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(records.RecordWriter, "block", block)
    with pytest.raises(KeyboardInterrupt) as info:
        gf.tournament("random,greedy", deals=50, seed=4, record=str(rec))
    n = rec.read_bytes().count(b'"format"')
    assert n == cut and info.value.partial.deals == cut // 2


def test_ctrl_c_as_a_simulate_record_write_starts_keeps_record_and_totals_equal(
        tmp_path, monkeypatch):
    import signal

    from guandan_fast import records

    rec = tmp_path / "s.jsonl"
    real_block, writes = records.RecordWriter.block, []

    def block(self, data):              # Ctrl-C as the second block starts to be written
        writes.append(data)
        if len(writes) == 2:
            signal.raise_signal(signal.SIGINT)
        real_block(self, data)

    monkeypatch.setattr(records.RecordWriter, "block", block)
    with pytest.raises(KeyboardInterrupt) as info:
        gf.simulate(matches=100_000, seed=2, threads=1, record=str(rec))
    n = rec.read_bytes().count(b'"format"')
    assert n >= 2 and info.value.partial.matches == n


def test_ctrl_c_on_perft_prints_the_reference_count_so_far():
    import re
    import signal
    import time

    proc = subprocess.Popen(CMD + ["perft", "--depth", "3", "--seed", "0", "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("perft seed 0, depth 3")
        assert proc.stdout.readline().startswith("compiled ")   # the reference runs now
        time.sleep(1.5)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        assert time.monotonic() - t0 < 5
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    lines = out.splitlines()
    assert lines[0].startswith("perft interrupted after ") and "complete counts" in lines[0]
    m = re.fullmatch(r"reference +([\d,]+) leaves so far, below (\d+) of (\d+) first moves",
                     lines[1])
    assert m, out
    done, total = int(m.group(2)), int(m.group(3))
    assert 0 <= done < total
    assert (int(m.group(1).replace(",", "")) > 0) == (done > 0)


def _serving(argv, rec, enough):
    """Start ``guandan-fast`` with ``argv`` (a server printing its URL first), one platform
    client at it (``connect``), until ``enough(record text)``; then SIGKILL the server.
    Returns the record's text at the kill."""
    import signal
    import time

    proc = subprocess.Popen(CMD + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    client = None
    try:
        line = proc.stdout.readline()
        port = int(line.split("127.0.0.1:")[1].split("/")[0])
        client = subprocess.Popen(CMD + ["connect", f"ws://127.0.0.1:{port}/game/me",
                                         "--seed", "1"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            if rec.exists() and enough(rec.read_text(encoding="utf-8")):
                break
            time.sleep(0.02)
        assert proc.poll() is None, proc.stderr.read()
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        return rec.read_text(encoding="utf-8")
    finally:
        for p in (proc, client):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()


def test_serve_record_survives_sigkill(tmp_path):
    """`serve` killed (SIGKILL) in the middle of a run: every game finished before the kill
    is in the record whole and replays to its end; replay of the record says nothing is cut."""
    rec = tmp_path / "serve.jsonl"
    text = _serving(["serve", "--port", "0", "--tables", "1", "--games", "1000", "--bots",
                     "1,2,3=greedy", "--handshake-pause", "0", "--quiet", "--record", str(rec)],
                    rec, lambda t: t.count('"format"') >= 2)
    headers = [json.loads(ln) for ln in text.splitlines() if '"format"' in ln]
    assert len(headers) >= 2 and text.endswith("\n")
    for i, h in enumerate(headers):
        assert h["server"]["end"] == "win"
        assert Game.from_record(str(rec), match=i).is_over
    proc = gf_run("replay", str(rec), "--match", str(len(headers) - 1))
    assert proc.returncode == 0, proc.stderr
    assert "cut short" not in proc.stdout and "before the match is over" not in proc.stdout


def test_play_record_survives_sigkill(tmp_path):
    """`play --record` killed (SIGKILL) in the middle of a match: every hand finished before
    the kill replays, and replay of the cut record says so in one line."""
    rec = tmp_path / "play.jsonl"

    def hands(t):
        return sum(1 for ln in t.splitlines() if ln.startswith('{"hand"'))

    seen = []

    def enough(t):
        seen.append(hands(t))
        return seen[-1] >= 3
    text = _serving(["play", "--no-browser", "--port", "0", "--delay", "0", "--seed", "2",
                     "--record", str(rec)], rec, enough)
    n = hands(text)
    assert n >= max(seen) >= 3 and text.count('"format"') == 1
    g = Game.from_record(str(rec))
    assert len(g.results) >= n - 1 and not g.is_over
    proc = gf_run("replay", str(rec))
    assert proc.returncode == 0, proc.stderr
    last = proc.stdout.rstrip().splitlines()[-1]
    assert last.startswith("(the record of this match ends after ") and \
        "before the match is over" in last, proc.stdout

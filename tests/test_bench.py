"""The benchmarks' own mechanics: bench/bench_peers.py (adapters, pinning, interleaving,
ratios, bad input) measured against the reference engine, which is always here, and
bench/quick.py (``make bench``) printing its one table."""

import doctest
import importlib.util
import os
import pathlib
import statistics
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"



def ctrl_c_when(argv, marker: str, pause: float = 0.0):
    """Run ``argv`` (from the repository root), send it Ctrl-C once a line of its stderr
    starts with ``marker`` (after ``pause`` seconds more), and check that it stops within
    1.5 s; returns (exit status, stdout, stderr after the marker)."""
    import signal
    import time

    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        for line in proc.stderr:
            if line.startswith(marker):
                break
        time.sleep(pause)
        t = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        assert time.monotonic() - t < 1.5
    finally:
        proc.kill()
    return proc.returncode, out, err

def load(name):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module                 # (its doctests name its exception by module)
    spec.loader.exec_module(module)
    return module


peers = load("bench_peers")


def run_script(*args, timeout=300):
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def test_bench_peers_docstring_examples_run():
    result = doctest.testmod(peers, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted >= 4


def test_reference_is_far_slower_and_counts_agree():
    engines = {"fast": peers.FastEngine(), "reference": peers.ReferenceEngine()}
    r = peers.compare(engines, ["lead", "follow"], hands=2, rounds=2, seconds=0.02)
    for workload in ("lead", "follow"):
        entry = r["workloads"][workload]
        # Both engines list the same legal moves (PASS included on follows).
        assert entry["counts"]["fast"] == entry["counts"]["reference"] > 0
        assert entry["order"] == [["fast", "reference"], ["reference", "fast"]]
        assert len(entry["seconds"]["fast"]) == len(entry["seconds"]["reference"]) == 2
        ratio = entry["ratio"]["reference"]
        assert ratio["min"] <= ratio["median"] <= ratio["max"]
        assert ratio["min"] > 20, ratio          # the reference takes far longer per item
    assert r["workloads"]["lead"]["items"] == 2 and r["workloads"]["follow"]["items"] == 16
    text = peers.table(r)
    assert "| lead | reference |" in text and "1 (baseline)" in text


def test_whole_hands_on_both_engines():
    r = peers.compare({"fast": peers.FastEngine(), "reference": peers.ReferenceEngine()},
                      ["hand"], hands=1, rounds=1, seconds=0.01, choice="random")
    counts = r["workloads"]["hand"]["counts"]
    assert counts["fast"] > 20 and counts["reference"] > 20   # whole hands, plays and passes


class Recorder:
    """An adapter that notes the CPUs it runs on and answers like the compiled engine."""

    version = "recorder 1"

    def __init__(self):
        self.inner, self.cpus = peers.FastEngine(), set()

    def lead_count(self, cards, level):
        self.cpus |= os.sched_getaffinity(0)
        return self.inner.lead_count(cards, level)

    def follow_count(self, cards, level, last):
        return self.inner.follow_count(cards, level, last)

    def play_hand(self, seed, choice):
        return self.inner.play_hand(seed, choice)


def test_pinned_to_one_cpu_and_restored():
    before = os.sched_getaffinity(0)
    cpu = max(before)
    rec = Recorder()
    r = peers.compare({"fast": peers.FastEngine(), "rec": rec}, ["lead"], hands=2, rounds=3,
                      seconds=0.005, cpu=cpu)
    assert rec.cpus == {cpu} and os.sched_getaffinity(0) == before
    assert r["workloads"]["lead"]["counts"]["rec"] == r["workloads"]["lead"]["counts"]["fast"]
    assert r["versions"]["rec"] == "recorder 1"


ADAPTER = '''
import guandan_fast as gf

class Adapter:
    version = "file adapter"
    def lead_count(self, cards, level):
        return len(gf.legal_moves(list(cards), level))
    def follow_count(self, cards, level, last):
        return len(gf.legal_moves(list(cards), level, last=gf.Move(*last)))
    def play_hand(self, seed, choice):
        return 1

def make():
    return Adapter()

def broken():
    return object()
'''


def test_a_peer_from_a_file_and_its_errors(tmp_path):
    path = tmp_path / "my_adapter.py"
    path.write_text(ADAPTER)
    name, engine = peers.load_engine(f"mine={path}:make")
    assert name == "mine" and engine.version == "file adapter"
    assert engine.lead_count(("S3", "C3"), 7) == peers.FastEngine().lead_count(("S3", "C3"), 7)
    name, engine = peers.load_engine("mod=my_adapter:make", paths=[str(tmp_path)])
    assert engine.version == "file adapter"
    for spec, says in ((f"x={path}:broken", "lacks lead_count"),
                       (f"x={path}:nothing", "no callable nothing"),
                       (f"x={tmp_path / 'gone.py'}:make", "no file"),
                       ("gd_core", "not a built-in engine"), ("x=:make", "expected NAME=")):
        with pytest.raises(peers.BadArgument, match=says):
            peers.load_engine(spec)


@pytest.mark.parametrize("args, says", [
    (["--peer", "gd_core"], "not a built-in engine"),
    (["--peer", "reference", "--workloads", "lead,dance"], "unknown dance"),
    (["--peer", "reference", "--rounds", "0"], "--rounds: 0 is out of range"),
    (["--peer", "reference", "--seconds", "0"], "must be above 0"),
    (["--peer", "reference", "--cpu", "4096"], "--cpu: 4096 is not one of"),
])
def test_bad_arguments_one_line_and_status_2(args, says, tmp_path):
    out = tmp_path / "r.json"
    r = run_script(BENCH / "bench_peers.py", *args, "--json", out)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and says in r.stderr
    assert not out.exists()


def test_the_command_prints_the_table_and_writes_json(tmp_path):
    out = tmp_path / "r.json"
    r = run_script(BENCH / "bench_peers.py", "--peer", "reference", "--workloads", "lead",
                   "--hands", "2", "--rounds", "2", "--seconds", "0.02", "--json", out)
    assert r.returncode == 0, r.stderr
    assert "| lead | reference |" in r.stdout and "lead: round 2 of 2" in r.stderr
    import json

    assert json.loads(out.read_text())["workloads"]["lead"]["ratio"]["reference"]["median"] > 20


def test_quick_set_prints_one_table():
    r = run_script(BENCH / "quick.py", "--only", "movegen,peers", "--scale", "0.05")
    assert r.returncode == 0, r.stderr
    rows = [line for line in r.stdout.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| area | what | figure |") and len(rows) == 1 + 2 + 1   # header, movegen 2, peers 1
    assert any(row.startswith("| peers | reference engine") for row in rows)
    assert "[2/2] peers" in r.stderr


def test_quick_set_ctrl_c_prints_the_rows_so_far():
    code, out, err = ctrl_c_when([sys.executable, str(BENCH / "quick.py"), "--only",
                                  "movegen,simulation,learning"],
                                 "[2/3] simulation", pause=0.3)   # movegen done, simulation running
    assert code == 130 and "interrupted after 2 row(s)" in err
    assert "| movegen | lead of a random 27-card hand" in out and "| learning |" not in out


def test_quick_set_refuses_an_unknown_area():
    r = run_script(BENCH / "quick.py", "--only", "movegen,nope")
    assert r.returncode == 2 and r.stdout == "" and "unknown area nope" in r.stderr
    assert r.stderr.count("\n") == 1


# Helpers of the benchmarks rather than benchmarks: an agent bench_tournament.py plays, and the
# fixed workloads of the instruction-count guard.
NOT_BENCHMARKS = {"tourney_bench_agent.py", "callgrind_workloads.py"}


@pytest.mark.parametrize("path", sorted(p.name for p in BENCH.glob("*.py")
                                        if p.name not in NOT_BENCHMARKS))
def test_every_benchmark_says_what_it_measures_and_how_long_it_takes(path):
    import ast

    doc = ast.get_docstring(ast.parse((BENCH / path).read_text()))
    assert doc and len(doc.split("\n", 1)[0]) > 20, path
    assert "takes about" in doc.lower() or "takes a " in doc.lower(), path
    assert f"bench/{path}" in doc, f"{path}: its docstring should show how to run it"


# -- an engine in a process of its own (the line protocol) --------------------------------------

SERVE = f"{sys.executable} {BENCH / 'bench_peers.py'} --serve"


def test_an_engine_in_another_process_answers_like_in_this_one():
    name, engine = peers.load_engine(f"pipe=cmd:{SERVE} reference")
    try:
        assert name == "pipe" and engine.version.startswith("guandan_fast.reference")
        r = peers.compare({"fast": peers.FastEngine(), "pipe": engine},
                          ["lead", "follow", "hand", "env"], hands=2, rounds=2, seconds=0.01,
                          cpu=max(os.sched_getaffinity(0)), tables=4, steps=3)
        counts = {w: e["counts"] for w, e in r["workloads"].items()}
        assert counts["lead"]["pipe"] == counts["lead"]["fast"] > 0
        assert counts["follow"]["pipe"] == counts["follow"]["fast"] > 0
        assert counts["hand"]["pipe"] > 20
        # The reference has no batched environment: it sits that workload out, said so.
        assert r["workloads"]["env"]["left_out"] == ["pipe"]
        assert counts["env"] == {"fast": 12} and "| env | pipe | | | (no batched" in peers.table(r)
        assert engine.proc.poll() is None            # one process for the whole run
    finally:
        engine.close()
    assert engine.proc.poll() is not None


def test_a_batched_environment_is_timed_per_decision():
    _, engine = peers.load_engine(f"pipe=cmd:{SERVE} fast")
    try:
        r = peers.compare({"fast": peers.FastEngine(), "pipe": engine}, ["env"], rounds=2,
                          seconds=0.01, tables=8, steps=5)
    finally:
        engine.close()
    entry = r["workloads"]["env"]
    assert entry["counts"] == {"fast": 40, "pipe": 40} and entry["left_out"] == []
    assert entry["items"] == 1 and entry["order"] == [["fast", "pipe"], ["pipe", "fast"]]
    # per decision: a step of 8 tables takes microseconds, not the whole run's milliseconds
    assert 0 < statistics.median(entry["seconds"]["fast"]) < 1e-3


def test_an_engine_process_is_pinned_with_the_bench():
    _, engine = peers.load_engine(f"pipe=cmd:{SERVE} fast")
    try:
        before, cpu = os.sched_getaffinity(engine.pid), max(os.sched_getaffinity(0))
        with peers.pinned(cpu, [engine.pid]):
            assert os.sched_getaffinity(engine.pid) == {cpu} == os.sched_getaffinity(0)
        assert os.sched_getaffinity(engine.pid) == before
    finally:
        engine.close()


def test_an_engine_process_that_fails_is_named(tmp_path):
    with pytest.raises(peers.BadArgument, match="cannot start no_such_program_here"):
        peers.load_engine("x=cmd:no_such_program_here --flag")
    with pytest.raises(peers.BadArgument, match=r"process ended \(status 3\)"):
        peers.load_engine(f"x=cmd:{sys.executable} -c 'raise SystemExit(3)'")
    quits = tmp_path / "quits.py"          # answers its version, then ends
    quits.write_text("import sys\nsys.stdin.readline()\nprint('quitter 1', flush=True)\n")
    _, engine = peers.load_engine(f"x=cmd:{sys.executable} {quits}")
    with pytest.raises(RuntimeError, match="process ended .* at the request 'lead 7"):
        peers.compare({"fast": peers.FastEngine(), "x": engine}, ["lead"], hands=1, rounds=1,
                      seconds=0.01)
    nonsense = tmp_path / "nonsense.py"    # answers every request with words
    nonsense.write_text("import sys\nfor line in sys.stdin:\n    print('maybe', flush=True)\n")
    r = run_script(BENCH / "bench_peers.py", "--peer", f"x=cmd:{sys.executable} {nonsense}",
                   "--workloads", "lead", "--hands", "1", "--rounds", "1")
    assert r.returncode == 1 and r.stdout == ""
    errors = [line for line in r.stderr.splitlines() if line.startswith("bench_peers.py:")]
    assert errors == [errors[-1]] and errors[0].startswith(
        "bench_peers.py: --peer x: 'maybe' is not a count (request 'lead 7 ")


def test_ctrl_c_stops_within_a_second_and_says_how_far_it_got():
    code, out, err = ctrl_c_when([sys.executable, str(BENCH / "bench_peers.py"), "--peer",
                                  "reference", "--workloads", "lead", "--hands", "4",
                                  "--rounds", "100", "--seconds", "0.5"],
                                 "lead: round 1 of 100")          # a round is done
    assert code == 130
    assert "interrupted; rounds done per workload: {'lead': " in err
    assert "| lead | reference |" in out                # the rounds done so far, as a table


# -- bench/RESULTS.md: current figures with commands that run -----------------------------------

RESULTS = BENCH / "RESULTS.md"


def results_commands() -> list[list[str]]:
    """The command lines of RESULTS.md (its 4-space-indented lines, continuations joined,
    comments and leading VAR=value settings dropped), split as a shell would."""
    import shlex

    commands, pending = [], ""
    for line in RESULTS.read_text().splitlines():
        if not line.startswith("    ") and not pending:
            continue
        pending += line.strip()
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        argv = shlex.split(pending.split(" # ", 1)[0].split("  #", 1)[0])
        pending = ""
        while argv and "=" in argv[0] and not argv[0].startswith("-"):
            argv.pop(0)
        if argv[:1] == ["/usr/bin/time"]:
            argv = argv[3:]                        # /usr/bin/time -f FORMAT COMMAND...
        commands.append(argv)
    return commands


def test_results_is_the_current_state_not_a_log():
    text = RESULTS.read_text()
    assert len(text.splitlines()) <= 400
    sections = text.split("\n## ")[1:]
    assert len(sections) >= 8
    for section in sections:      # each area: a command, a date, a table
        name = section.split("\n", 1)[0]
        assert "\n    " in section and "2026-" in section and "\n|---" in section, name


def test_every_results_command_names_what_exists_and_parses():
    from guandan_fast import cli

    commands = results_commands()
    assert len(commands) >= 20
    helps = {}
    for argv in commands:
        program = argv[0]
        assert program.startswith(".venv/bin/"), argv
        if program.endswith("guandan-fast"):
            cli.build_parser().parse_args(argv[1:])            # exits on a bad option
        elif argv[1:3] == ["-m", "pytest"]:
            paths = [a for a in argv[3:] if a.startswith(("bench/", "tests/"))]
            assert all((ROOT / p).exists() for p in paths), argv
        else:
            script = argv[1]
            assert (ROOT / script).is_file(), argv
            if script not in helps:
                r = run_script(ROOT / script, "--help", timeout=120)
                helps[script] = r.stdout if r.returncode == 0 else ""
            if helps[script]:                     # scripts with options: each one is known
                unknown = [a for a in argv[2:] if a.startswith("--")
                           and a.split("=")[0] not in helps[script]]
                assert not unknown, (argv, unknown)
            else:
                assert not any(a.startswith("--") for a in argv[2:]), argv

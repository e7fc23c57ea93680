"""The instruction guard (bench/instruction_guard.py, run by ``make test`` after the suite):
its comparison and table, its baseline file, its command line, and one workload really counted
under callgrind against the committed baseline."""

import doctest
import importlib.util
import json
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "instruction_guard.py"


def load_guard():
    spec = importlib.util.spec_from_file_location("instruction_guard", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


guard = load_guard()


def test_docstring_examples_run():
    result = doctest.testmod(guard)
    assert result.failed == 0 and result.attempted >= 3


def test_the_baseline_counts_every_workload_once():
    data = json.loads(guard.BASELINE.read_text())
    counts = data["instructions"]
    assert list(counts) == list(guard.WORKLOADS)
    assert all(isinstance(v, int) and v > 100_000 for v in counts.values())
    assert sorted(n for g in guard.GROUPS for n in g) == sorted(guard.WORKLOADS)


def test_growth_beyond_the_tolerance_fails_and_is_named():
    base = {"lead": 1_000_000, "follow": 2_000_000, "solve": 3_000_000}
    now = {"lead": 1_200_000, "follow": 2_000_100, "solve": 2_000_000, "extra": 5}
    rows, grown = guard.compare(base, now, 0.03)
    assert grown == ["lead", "extra"]             # +20 %, and a workload with no baseline
    text = guard.table(rows)
    assert "+20.00%  FAIL" in text.splitlines()[1]
    assert "-33.33%" in text and "new" in text
    assert guard.compare(base, base, 0)[1] == []


def test_read_parts_insists_on_one_dump_per_mark(tmp_path):
    out = tmp_path / "cg.0"
    for i, n in enumerate((10, 20, 30), 1):
        (tmp_path / f"cg.0.{i}").write_text(f"cmd: x\npart: {i}\nsummary: {n}\ntotals: {n}\n")
    assert guard.read_parts(out, 3) == [10, 20, 30]
    with pytest.raises(guard.GuardError, match="wrote 3 dumps, expected 4"):
        guard.read_parts(out, 4)


@pytest.mark.parametrize("argv, message", [
    (["--only", "nosuch"], "--only: unknown workload nosuch"),
    (["--tolerance", "-1"], "--tolerance must be a percentage"),
    (["--jobs", "0"], "--jobs must be 1..64"),
    (["--update", "--only", "lead"], "--update rewrites the whole baseline"),
])
def test_bad_arguments_give_one_line_and_status_2(argv, message, capsys, tmp_path):
    baseline = tmp_path / "b.json"
    with pytest.raises(SystemExit) as exc:
        guard.main(argv + ["--baseline", str(baseline)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not baseline.exists()


def test_a_missing_baseline_is_one_line(capsys, tmp_path):
    assert guard.main(["--baseline", str(tmp_path / "none.json"), "--only", "lead"]) == 2
    assert "no baseline at" in capsys.readouterr().err


def test_one_workload_counted_under_callgrind_is_within_tolerance_of_the_baseline():
    # the real thing for one cheap workload: a callgrind process, its dumps, the second run
    lines = []
    counts = guard.measure(((("platform_lists",),)), progress=lines.append)
    base = json.loads(guard.BASELINE.read_text())["instructions"]["platform_lists"]
    assert abs(counts["platform_lists"] / base - 1) <= guard.TOLERANCE
    assert lines == [lines[0]] and lines[0].startswith("counted 1 of 1 workloads")

"""The docs match the code: the README's layout table and docs/design.md's module list name
the files that exist (and every module that exists), the CLI rows name every command, every
command's ``--help`` has a description, its defaults and an example that parses, there is one
version number, and the examples of docs/*.md run."""

import argparse
import doctest
import pathlib
import re
import shlex
import subprocess
import sys

import pytest

import guandan_fast as gf
from guandan_fast import cli

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "guandan_fast"
COMPILED = ROOT / "src" / "guandan_fast"
COMMANDS = sorted(cli.build_parser()._subparsers._group_actions[0].choices)


def table_rows(markdown: str, heading: str) -> list[list[str]]:
    """The cells of the first table after ``heading`` (header and rule rows left out)."""
    text = markdown.split(heading, 1)[1]
    rows = []
    for line in text.splitlines()[1:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\) \| ", line.strip().strip("|"))]
        rows.append(cells)
    return rows[2:]


def ticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def python_modules() -> set[str]:
    """Paths (relative to python/guandan_fast) of the package's modules and stubs."""
    return {str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
            if p.name not in ("__init__.py", "__main__.py")}


def compiled_modules() -> set[str]:
    return {p.stem for p in COMPILED.iterdir() if p.suffix in (".pyx", ".pxd")
            and p.stem != "__init__"}


# -- README ----------------------------------------------------------------------------------

def test_readme_layout_table_names_what_exists_and_everything_that_does():
    rows = {cells[0].strip("`"): cells[1] for cells in table_rows(
        (ROOT / "README.md").read_text(), "## Layout")}
    for path, what in rows.items():
        assert (ROOT / path).exists(), f"README layout: {path} does not exist"
        if path.endswith("/") and (ROOT / path).is_dir():
            for name in ticked(what):
                if re.fullmatch(r"[\w/]+\.(py|md)", name):
                    assert (ROOT / path / name).exists(), f"README layout: {path}{name}?"
    src = {n for n in ticked(rows["src/guandan_fast/"]) if re.fullmatch(r"[a-z_]+", n)}
    assert src == compiled_modules(), ("README layout, src/ row",
                                       sorted(src ^ compiled_modules()))
    named = {f"{d}{n}" for d, what in rows.items() if d.startswith("python/guandan_fast/")
             for n in ticked(what) if n.endswith(".py")}
    named = {n.removeprefix("python/guandan_fast/") for n in named}
    missing = {m for m in python_modules() if m not in named
               and not m.startswith("envs/_") and not m.endswith("__init__.py")}
    assert not missing, f"README layout does not name {sorted(missing)}"


def test_readme_shell_examples_parse():
    readme = (ROOT / "README.md").read_text()
    lines = [line.split("#")[0] for line in readme.splitlines()
             if line.startswith(".venv/bin/guandan-fast ")]
    assert len(lines) >= 5
    parser = cli.build_parser()
    for line in lines:
        for part in line.split("&&"):
            argv = shlex.split(part)[1:]
            parser.parse_args(argv)           # exits (status 2) on an unknown option


# -- docs/design.md ----------------------------------------------------------------------------

def test_design_module_list_names_what_exists_and_everything_that_does():
    rows = table_rows((ROOT / "docs" / "design.md").read_text(), "## Pieces")
    seen_py, seen_compiled = set(), set()
    for piece, where, _ in rows:
        folder = None
        for path in ticked(where):
            if "/" in path:
                folder = (ROOT / path).parent if not path.endswith("/") else ROOT / path
                full = ROOT / path
            else:
                full = folder / path
            if "*" in path:
                assert list(full.parent.glob(full.name)), (piece, path)
                continue
            assert full.exists(), f"docs/design.md {piece!r}: {path} does not exist"
            if full.is_dir():
                seen_py |= {str(p.relative_to(PACKAGE)) for p in full.rglob("*.py")
                            if PACKAGE in p.parents}
            elif full.suffix == ".py":
                seen_py.add(str(full.relative_to(PACKAGE)))
            elif full.suffix in (".pyx", ".pxd"):
                seen_compiled.add(full.stem)
    assert compiled_modules() <= seen_compiled, sorted(compiled_modules() - seen_compiled)
    assert python_modules() <= seen_py, sorted(python_modules() - seen_py)


def test_design_cli_row_names_every_command():
    rows = table_rows((ROOT / "docs" / "design.md").read_text(), "## Pieces")
    (cli_row,) = [r for r in rows if r[0] == "CLI"]
    named = ticked(cli_row[2])[0].removeprefix("guandan-fast ").split(" \\| ")
    assert sorted(named) == COMMANDS


# -- the command's help ------------------------------------------------------------------------

@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_help_has_a_description_defaults_and_an_example(command, capsys):
    parser = cli.build_parser()
    with pytest.raises(SystemExit):
        parser.parse_args([command, "--help"])
    text = capsys.readouterr().out
    sub = parser._subparsers._group_actions[0].choices[command]
    assert sub.description and " ".join(sub.description.split()[:4]) in " ".join(text.split())
    example = text.split("example:\n", 1)[1].strip().splitlines()[0].strip()
    assert example.startswith(f"guandan-fast {command}")
    parser.parse_args(shlex.split(example)[1:])   # the example parses


def test_every_default_is_shown_in_the_help():
    parser = cli.build_parser()
    for command, sub in parser._subparsers._group_actions[0].choices.items():
        formatter = sub._get_formatter()
        for action in sub._actions:
            d = action.default
            if action.option_strings and d is not None and d is not False and d != [] \
                    and d is not argparse.SUPPRESS:
                assert "default" in formatter._get_help_string(action), (command, action.dest)


def test_task_matches_help_states_the_default_the_code_uses():
    from guandan_fast.distributed import MIN_TASK_MATCHES, TASKS_PER_SLOT

    sub = cli.build_parser()._subparsers._group_actions[0].choices["simulate"]
    (action,) = [a for a in sub._actions if a.dest == "task_matches"]
    assert f"about {TASKS_PER_SLOT} tasks per worker slot" in action.help
    assert f"at least {MIN_TASK_MATCHES} matches" in action.help


# -- one version number ------------------------------------------------------------------------

def test_one_version_number():
    from importlib.metadata import version

    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^dynamic = \[.*"version"', pyproject, re.M)
    assert not re.search(r"^version =", pyproject, re.M)
    out = subprocess.run([sys.executable, "-m", "guandan_fast", "--version"],
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == ["guandan-fast", gf.__version__] and version("guandan-fast") == gf.__version__


# -- examples in docs/*.md ---------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "docs").glob("*.md")
                                        if ">>> " in p.read_text()))
def test_doc_examples_run(name):
    result = doctest.testfile(str(ROOT / "docs" / name), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0


def test_tournament_json_example_comes_out():
    """docs/tournament.md's JSON example is what its command writes (rules abridged there)."""
    import json

    text = (ROOT / "docs" / "tournament.md").read_text()
    example = json.loads(text.split("```json\n", 1)[1].split("```", 1)[0])
    command = re.search(r"\(`guandan-fast tournament --agents (\S+) --deals (\d+) --json FILE`",
                        text)
    agents, deals = command.group(1).split(","), int(command.group(2))
    got = gf.tournament(agents, deals=deals, seed=0).to_dict()
    assert example["rules"].items() <= {**got["rules"], "...": example["rules"]["..."]}.items()
    example["rules"] = got["rules"]
    assert got == example

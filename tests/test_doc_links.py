"""The docs point only inside the repository, at files that exist: no absolute path, no
scratch folder, no path above the repository in README.md, docs/ and bench/ (nor as a string in
tests/), every Markdown link and every repository path a doc names resolves; and the lists a
newcomer reads are complete: docs/tournament.md names every agent kind, the README's layout
table every doc."""

import io
import pathlib
import re
import tokenize

import pytest

from guandan_fast.agents import KINDS

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
BENCH = sorted(p for p in (ROOT / "bench").rglob("*") if p.is_file()
               and p.suffix in (".py", ".md", ".c", ".txt", ".sh") and "__pycache__" not in p.parts)
TESTS = sorted((ROOT / "tests").rglob("*.py"))

#: Places that exist on one machine only (a home, a scratch folder, a checkout beside this
#: one); a doc that names one sends its reader nowhere.
#: (Written as alternatives after one slash, so that this file names none of them itself.)
OUTSIDE = re.compile(r"(?<![\w.])(/(?:work|home|root|Users|tmp|var/tmp)/|[A-Z]:\\\\|"
                     r"file://|\.\./shared|\.\./\.\./)")
#: A Markdown link or image: [text](target) / ![alt](target).
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
#: A path inside the repository named in prose: a top folder, then a file with an extension.
REPO_PATH = re.compile(r"(?<![\w./-])((?:bench|docs|tests|python|src)/[\w./-]*\w\.(?:py|pyx|pxd|pyi|"
                       r"md|h|c|csv|json|png|svg|txt))(?![\w/])")


def rel(path: pathlib.Path) -> str:
    return str(path.relative_to(ROOT))


def outside_paths(text: str) -> list[str]:
    """The lines of ``text`` that name a place outside the repository.

    >>> scratch, beside = "/".join(["", "tmp", "x"]), "/".join(["..", "shared", "RULES.md"])
    >>> [line[:2] for line in outside_paths(f"see docs/rules.md\\nfrom {scratch}\\nor {beside}")]
    ['2:', '3:']
    """
    return [f"{i}: {line.strip()}" for i, line in enumerate(text.splitlines(), 1)
            if OUTSIDE.search(line)]


def broken_links(path: pathlib.Path) -> list[str]:
    """The Markdown links of ``path`` and the repository paths it names that lead to no file
    of the repository (web links and in-page anchors are not checked)."""
    text = path.read_text()
    bad = []
    for target in LINK.findall(text):
        if re.match(r"[a-z][a-z+.-]*:", target) or target.startswith("#"):
            continue
        full = (path.parent / target.split("#", 1)[0]).resolve()
        if ROOT not in full.parents and full != ROOT or not full.exists():
            bad.append(f"link {target}")
    for named in REPO_PATH.findall(text):
        if "*" not in named and not (ROOT / named).exists():
            bad.append(f"names {named}")
    return bad


def string_literals(path: pathlib.Path) -> list[tuple[int, str]]:
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
    return [(t.start[0], t.string) for t in tokens if t.type == tokenize.STRING]


# -- the checks work -------------------------------------------------------------------------

def test_the_checks_find_what_they_look_for(tmp_path):
    home, beside = "/".join(["", "work", "main", "x"]), "/".join(["..", "shared", "P.md"])
    assert outside_paths(f"a {home}") and outside_paths(f"and {beside}") and \
        not outside_paths("/".join(["a", "work", " b (docs/rules.md) tmp_path .venv/bin/python"]))
    doc = ROOT / "docs" / "rules.md"
    assert broken_links(doc) == []
    page = tmp_path / "page.md"
    page.write_text("[ok](https://example.com) [gone](missing.md) see bench/no_such_bench.py "
                    "and docs/rules.md [up](../../etc/passwd) [anchor](#x)")
    got = broken_links(page)
    assert "link missing.md" in got and "names bench/no_such_bench.py" in got
    assert "link ../../etc/passwd" in got and len(got) == 3


# -- docs, bench, tests ------------------------------------------------------------------------

@pytest.mark.parametrize("path", DOCS + BENCH, ids=rel)
def test_no_path_outside_the_repository(path):
    assert not outside_paths(path.read_text()), rel(path)


@pytest.mark.parametrize("path", TESTS, ids=rel)
def test_tests_name_no_path_outside_the_repository(path):
    # Tests write where pytest's tmp_path says; a literal machine path in one is a doc or a
    # fixture that works on one machine only.
    found = [(line, s) for line, s in string_literals(path) if OUTSIDE.search(s)
             and path.name != "test_doc_links.py"]
    assert not found, (rel(path), found)


@pytest.mark.parametrize("path", DOCS + [p for p in BENCH if p.suffix == ".md"], ids=rel)
def test_every_link_and_named_file_exists(path):
    assert broken_links(path) == [], rel(path)


@pytest.mark.parametrize("path", [p for p in BENCH if p.suffix == ".py"], ids=rel)
def test_bench_scripts_name_files_that_exist(path):
    bad = [n for n in REPO_PATH.findall(path.read_text()) if not (ROOT / n).exists()]
    assert not bad, (rel(path), bad)


# -- lists a newcomer reads ----------------------------------------------------------------------

def test_tournament_doc_lists_every_agent_kind():
    text = (ROOT / "docs" / "tournament.md").read_text()
    named = set(re.findall(r"`([a-z_]+)(?::[^`]*)?`", text))
    assert set(KINDS) <= named, sorted(set(KINDS) - named)


def test_readme_layout_table_lists_every_doc():
    readme = (ROOT / "README.md").read_text()
    layout = readme.split("## Layout", 1)[1].split("\n## ", 1)[0]
    docs = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    missing = {d for d in docs if f"docs/{d}" not in layout and f"`{d}`" not in layout}
    assert not missing, sorted(missing)
    bench_docs = {p.name for p in (ROOT / "bench").glob("*.md")}
    assert all(name in layout for name in bench_docs), sorted(bench_docs)


def test_the_results_sections_docs_cite_exist():
    results = (ROOT / "bench" / "RESULTS.md").read_text()
    headings = set(re.findall(r"^#+ (.+?)\s*$", results, re.M))
    cited = {}
    for path in DOCS:
        text = " ".join(path.read_text().split())      # a citation may wrap lines
        for m in re.finditer(r'RESULTS\.md,? (?:sections? )?"([^"]+)"(?: and "([^"]+)")?', text):
            for name in filter(None, m.groups()):
                cited.setdefault(name, rel(path))
    assert len(cited) >= 5
    missing = {name: where for name, where in cited.items() if name not in headings}
    assert not missing, missing


def test_learning_doc_states_the_thread_default_the_code_has():
    import guandan_fast as gf

    text = " ".join((ROOT / "docs" / "learning.md").read_text().split())
    assert "**One thread or two: the default is one** (`threads=1`)" in text
    assert gf.VecEnv(2, seed=0).threads == 1

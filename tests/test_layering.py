"""The package's layers: the compiled core and the friendly API never load the reference engine
(the slow oracle is for tests, perft comparison and users who ask for it)."""

import subprocess
import sys

import pytest

from guandan_fast import Move

_USE_THE_API = """
import sys
import guandan_fast as gf
m = gf.Move.from_platform(['Pair', '9', ['H7', 'D9']], level=7)
g = gf.Game(seed=3)
for _ in range(50):
    g.play(g.legal_moves()[0])
gf.classify('S8 C8 H7 DJ HJ', 7)
gf.simulate(matches=2, seed=1)
g.to_record()
from guandan_fast import cli, perft, records
perft.perft(1, 2)
print(sorted(k for k in sys.modules if k.startswith('guandan_fast.reference')))
"""


def test_the_api_never_imports_the_reference_engine():
    out = subprocess.run([sys.executable, "-c", _USE_THE_API], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_from_platform_rejects_a_false_reading_without_the_reference():
    with pytest.raises(ValueError, match="do not make Pair 9 at level 7"):
        Move.from_platform(["Pair", "9", ["H7", "SB"]], level=7)


# -- the package's import graph ------------------------------------------------------------------
# Read from the sources (ast for Python modules, the import lines of the Cython ones), lazy
# imports inside functions included: every edge is a dependency, whenever it is taken.

import ast  # noqa: E402
import pathlib  # noqa: E402
import re  # noqa: E402

_ROOT = pathlib.Path(__file__).resolve().parent.parent
_PY = _ROOT / "python" / "guandan_fast"
_PYX = _ROOT / "src" / "guandan_fast"


def _modules() -> dict:
    def name(path, base):
        parts = list(path.relative_to(base).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        return ".".join(["guandan_fast"] + parts)

    mods = {name(p, _PY): p for p in _PY.rglob("*.py")}
    mods.update({name(p, _PYX): p for p in _PYX.glob("*.pyx")})
    return mods


def _resolve(current: str, is_package: bool, level: int, module: str | None) -> str:
    if level == 0:
        return module or ""
    base = current.split(".")
    if not is_package:
        base = base[:-1]
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _imports(mods: dict):
    """(importer, imported module, name or None) for every import of a package module."""
    for mod, path in mods.items():
        pkg = path.name == "__init__.py"
        if path.suffix == ".py":
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom):
                    target = _resolve(mod, pkg, node.level, node.module)
                    for a in node.names:
                        if f"{target}.{a.name}" in mods:
                            yield mod, f"{target}.{a.name}", None
                        elif target in mods:
                            yield mod, target, a.name
                elif isinstance(node, ast.Import):
                    for a in node.names:
                        if a.name in mods:
                            yield mod, a.name, None
        else:
            text = path.read_text()
            for m in re.finditer(r"^\s*from\s+(\.*)([\w.]*)\s+c?import\s+\(?([^)\n]*(?:\n[^)\n]*)*?)\)?\s*$",
                                 text, re.M):
                target = _resolve(mod, False, len(m.group(1)), m.group(2)) if m.group(1) \
                    else m.group(2)
                for item in m.group(3).replace("\n", " ").split(","):
                    n = item.split(" as ")[0].strip().strip("()")
                    if not n:
                        continue
                    if f"{target}.{n}" in mods:
                        yield mod, f"{target}.{n}", None
                    elif target in mods:
                        yield mod, target, n


def test_no_private_name_crosses_a_module_boundary():
    mods = _modules()
    crossing = sorted({(a, b, n) for a, b, n in _imports(mods)
                       if n and n.startswith("_") and not n.startswith("__") and a != b})
    assert crossing == []


def _circle(graph: dict):
    """One import circle of ``graph`` (module -> modules it imports) as a list, or None."""
    state: dict = {}

    def visit(m, path):
        state[m] = "open"
        for n in sorted(graph[m]):
            if state.get(n) == "open":
                return path[path.index(n):] + [n]
            if n not in state:
                found = visit(n, path + [n])
                if found:
                    return found
        state[m] = "done"
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m, [m])
            if found:
                return found
    return None


def test_the_circle_finder_finds_circles():
    assert _circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _circle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_python_modules_import_each_other_without_a_circle():
    """No circle among the package's Python modules (the front ends, the runner, the Ray
    executor, the agents...): a module never needs, even lazily, one that needs it."""
    mods = _modules()
    graph = {m: set() for m, p in mods.items() if p.suffix == ".py"}
    for a, b, _ in _imports(mods):
        if a in graph and b in graph and a != b:
            graph[a].add(b)
    assert {"guandan_fast.simulate", "guandan_fast.distributed", "guandan_fast.runner"} <= set(graph)
    assert _circle(graph) is None

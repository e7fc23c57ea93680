"""What a user of the installed package expects: the reference engine reachable lazily, type hints
shipped and covering every public name of the compiled modules, the README's platform recipe
in step with the protocol."""

import ast
import inspect
import pathlib
import re
import subprocess
import sys

import pytest

import guandan_fast as gf

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = pathlib.Path(gf.__file__).resolve().parent


def test_reference_is_reachable_lazily_from_the_package():
    code = ("import sys, guandan_fast as gf\n"
            "assert 'guandan_fast.reference' not in sys.modules\n"
            "assert gf.reference.Game(seed=1).hand_number == 0\n"
            "assert 'guandan_fast.reference' in sys.modules\n"
            "try:\n    gf.no_such_name\nexcept AttributeError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "no attribute 'no_such_name'" in out.stdout


def _compiled_modules():
    """The compiled modules, as CMakeLists.txt's CORE_MODULES lists them (the one list)."""
    text = (ROOT / "CMakeLists.txt").read_text()
    listed = re.search(r"set\(CORE_MODULES([^)]*)\)", text).group(1).split()
    assert len(listed) > 10 and "vecenv" in listed
    return listed


COMPILED = _compiled_modules()


def _stub(name):
    path = PACKAGE / f"{name}.pyi"
    return ast.parse(path.read_text(encoding="utf-8"))


def _defs(body):
    out = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.setdefault(node.name, node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.asname == alias.name:  # an explicit re-export
                    out[alias.name] = node
    return out


def test_type_hints_are_shipped_with_the_package():
    assert (PACKAGE / "py.typed").is_file()
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'wheel.packages = ["python/guandan_fast"]' in pyproject
    assert PACKAGE == (ROOT / "python" / "guandan_fast").resolve() or (PACKAGE / "game.pyi").is_file()


@pytest.mark.parametrize("name", COMPILED)
def test_stubs_cover_every_public_name_of_the_compiled_modules(name):
    import importlib

    module = importlib.import_module(f"guandan_fast.{name}")
    defs = _defs(_stub(name).body)
    public = [n for n in dir(module) if not n.startswith("_")
              and not inspect.ismodule(getattr(module, n))]
    missing = [n for n in public if n not in defs]
    assert not missing, f"{name}.pyi lacks {missing}"
    for n in public:
        obj = getattr(module, n)
        node = defs[n]
        if isinstance(node, ast.FunctionDef) and callable(obj):
            params = [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
            assert params == list(inspect.signature(obj).parameters), (name, n)
        if isinstance(node, ast.ClassDef) and getattr(obj, "__module__", "") == module.__name__:
            members = _defs(node.body)
            for attr, value in vars(obj).items():
                if attr.startswith("_"):
                    continue
                assert attr in members, f"{name}.pyi: {n}.{attr} missing"
                stub = members[attr]
                try:
                    sig = inspect.signature(value.__func__ if isinstance(value, (staticmethod, classmethod)) else value)
                except (TypeError, ValueError):
                    continue
                params = [a.arg for a in stub.args.posonlyargs + stub.args.args + stub.args.kwonlyargs]
                if isinstance(value, classmethod):
                    params = params[1:]
                    sig_params = list(sig.parameters)[1:] if "cls" in sig.parameters else list(sig.parameters)
                else:
                    sig_params = list(sig.parameters)
                assert params == sig_params, (name, n, attr, params, sig_params)


def test_readme_platform_recipe_matches_the_protocol():
    # PROTOCOL.md "Platform rules that differ": A won only by 1st-2nd, back to 2 after 2
    # failed hands at A; the platform shows every card count.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = re.search(r"competition\s+platform", readme).start()
    recipe = re.search(r"gf\.Rules\([^)]*\)", readme[start:]).group(0)
    rules = eval(recipe, {"gf": gf})
    assert rules == gf.Rules(ace_rule="double_only", ace_fail_reset=2, count_disclosure="always")

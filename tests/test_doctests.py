"""The docstring examples of every module of the installed package, and the README's, run."""

import doctest
import importlib
import pathlib
import pkgutil

import pytest

import guandan_fast

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
MODULES = sorted(info.name for info in pkgutil.walk_packages(guandan_fast.__path__, "guandan_fast.")
                 if not info.name.endswith("__main__"))


@pytest.mark.parametrize("name", ["guandan_fast"] + MODULES)
def test_module_docstrings(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=FLAGS)
    assert result.failed == 0


@pytest.mark.xdist_group("ray")     # its Ray examples run on the Ray tests' connection
def test_readme_examples(ray_connection):
    readme = pathlib.Path(__file__).resolve().parent.parent / "README.md"
    result = doctest.testfile(str(readme), module_relative=False, optionflags=FLAGS)
    assert result.failed == 0
    assert result.attempted > 5, "the README's API examples should be doctests"

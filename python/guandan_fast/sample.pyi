"""Type stubs of the compiled module src/guandan_fast/sample.pyx,
written by hand from its signatures (tests/test_package.py checks that they name every public
name of the module); the module docstrings say what each takes and returns."""

from typing import Any, NamedTuple


def infoset_key(game: Any, p: Any) -> Any: ...
def known_cards(game: Any, p: Any) -> Any: ...
def sample_world(game: Any, p: Any, seed: Any = ..., weights: Any = ...) -> Any: ...

"""Type stubs of the compiled module src/guandan_fast/search.pyx,
written by hand from its signatures (tests/test_package.py checks that they name every public
name of the module); the module docstrings say what each takes and returns."""

from typing import Any, NamedTuple


class Agents:
    def __init__(self, specs: Any) -> None: ...

DEFAULTS: dict[Any, Any]
ROLLOUTS: dict[str, int]
STYLE_NAMES: tuple[str, ...]     # the expert's styles (expert.STYLE_NAMES)
def choose(game: Any, agent: Any = ..., seed: Any = ...) -> Any: ...
def parse_agent(name: Any) -> Any: ...

"""Type stubs of the compiled module src/guandan_fast/search.pyx (generated from its signatures;
see the module docstrings for what each takes and returns)."""

from typing import Any, NamedTuple


class Agents:
    def __init__(self, specs: Any) -> None: ...

DEFAULTS: dict[Any, Any]
ROLLOUTS: dict[str, int]
def choose(game: Any, agent: Any = ..., seed: Any = ...) -> Any: ...
def parse_agent(name: Any) -> Any: ...

"""Type stubs of the compiled module src/guandan_fast/search.pyx,
written by hand from its signatures (tests/test_package.py checks that they name every public
name of the module); the module docstrings say what each takes and returns."""

from typing import Any, NamedTuple


class Agents:
    def __init__(self, specs: Any) -> None: ...

DEFAULTS: dict[Any, Any]
ROLLOUTS: dict[str, int]
STYLE_NAMES: tuple[str, ...]     # the expert's styles (expert.STYLE_NAMES)
STYLE_MODELS: tuple[str, ...]    # worlds=styles: greedy, then STYLE_NAMES
WORLDS: dict[str, int]
SAMPLES_CAP: int
def choose(game: Any, agent: Any = ..., seed: Any = ...) -> Any: ...
def parse_agent(name: Any) -> Any: ...
def style_loglik(game: Any, world: Any, soft: float = ...,
                 temper: float = ...) -> tuple[float, list[list[float]]]: ...

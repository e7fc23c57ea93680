"""Type stubs of the compiled module src/guandan_fast/tournament_core.pyx,
written by hand from its signatures (tests/test_package.py checks that they name every public
name of the module); the module docstrings say what each takes and returns."""

from typing import Any, NamedTuple

from guandan_fast.rules import Rules as Rules

class BotSeats:
    def __init__(self, match_seed: int, kinds: Any, rules: Rules = ..., search: Any = None) -> None: ...
    def choose(self) -> Any: ...
    def apply(self, lo: Any, hi: Any) -> Any: ...
    @property
    def current(self) -> Any: ...

OUTCOME_COLUMNS: tuple[Any, ...]
def play_matches(seed: Any, deals: Any, seating: Any, kinds: Any, rules: Any = ..., search: Any = ..., cancel: Any = ...) -> Any: ...

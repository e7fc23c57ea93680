"""Type stubs of the compiled module src/guandan_fast/solve.pyx,
written by hand from its signatures (tests/test_package.py checks that they name every public
name of the module); the module docstrings say what each takes and returns."""

from typing import Any, NamedTuple

from dataclasses import dataclass as dataclass
from guandan_fast.rules import Rules as Rules

class Solution:
    def __init__(self, outcome: Any, value: Any, winner: Any, partner_place: Any, level_gain: Any, best_move: Any, nodes: Any, finished: Any) -> None: ...

def minimax(game: Any, max_nodes: Any = ...) -> Any: ...
def random_endgame(seed: Any, cards: Any, rules: Any = ..., level: Any = ..., out: Any = ...) -> Any: ...
def solve(game: Any, max_nodes: Any = ..., tt_bits: Any = ...) -> Any: ...

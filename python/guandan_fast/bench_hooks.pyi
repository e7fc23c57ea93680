"""Type stubs of the benchmark hooks (src/guandan_fast/bench_hooks.pyx)."""

from typing import Iterable, Sequence

from .game import Game
from .movegen import Hand
from .moves import Move
from .rules import Rules as Rules

_Last = Move | Sequence[object] | None

def generate(hand: Hand, level: int | str, last: _Last = None, rules: Rules = ...,
             compact: bool = False) -> int: ...
def time_generate(hand: Hand | str | Iterable[str], level: int | str, last: _Last = None,
                  rules: Rules = ..., compact: bool = False, repeat: int = 1000) -> float: ...
def time_sample(game: Game, p: int, n: int, seed: int = 0) -> tuple[float, int]: ...

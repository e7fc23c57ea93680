"""Type stubs of the compiled built-in bots (src/guandan_fast/bots.pyx)."""

from typing import Iterable, Sequence

from .moves import Move

AGENT_CODES: dict[str, int]
STYLE_NAMES: tuple[str, ...]     # the expert's styles (expert.STYLE_NAMES)

def bot_kind(name: str) -> int: ...
def choose(agent: str, hand: str | Iterable[str], level: int | str = 2,
           top: Move | Sequence[object] | None = None, top_seat: int | None = None,
           seat: int = 0, counts: Sequence[int] | None = None,
           moves: Sequence[Move] | None = None, phase: str = "play", seed: int = 0,
           disclosure: int = 10, unseen: str | Iterable[str] | None = None) -> Move: ...

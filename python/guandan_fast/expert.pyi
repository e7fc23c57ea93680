"""Type stubs of the compiled expert agent (src/guandan_fast/expert.pyx)."""

from typing import Iterable, TypedDict

class Group(TypedDict):
    type: str
    key: int
    size: int
    value: int
    control: bool

def plan(hand: str | Iterable[str], level: int | str = 2) -> list[Group]: ...
def hand_value(hand: str | Iterable[str], level: int | str = 2) -> int: ...

def choose(game: object, endgame: bool = True) -> object: ...
def endgame_limits(cards: int | None = None, nodes: int | None = None) -> tuple[int, int]: ...

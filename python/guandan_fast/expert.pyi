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

STYLE_NAMES: tuple[str, ...]
KNOB_NAMES: tuple[str, ...]
BASE_KNOBS: dict[str, int]
TUNED_CHANGES: dict[str, int]
EXPERT_KNOBS: dict[str, int]
STYLE_CHANGES: dict[str, dict[str, int]]

def knobs(style: str = "expert") -> dict[str, int]: ...
def set_knobs(values: dict[str, int], style: str = "expert") -> dict[str, int]: ...
def choose(game: object, endgame: bool = True, style: str = "expert") -> object: ...
def endgame_limits(cards: int | None = None, nodes: int | None = None) -> tuple[int, int]: ...

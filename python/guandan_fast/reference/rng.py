"""SplitMix64 and the seeded deal of docs/design.md, in plain Python (the reference).

Every implementation must produce the same numbers, deals and first leaders from the same
seed; the compiled engine implements the same algorithm separately and is checked against this.

The first outputs for seed 0 (computed from the algorithm as written in docs/design.md):

>>> g = SplitMix64(0)
>>> [hex(g.next()) for _ in range(3)]
['0xe220a8397b1dcdaf', '0x6e789e6aa1b965f4', '0x6c45d188009454f']
>>> SplitMix64(0).below(108)
7
>>> g = SplitMix64(0); hands = deal(g)
>>> [len(h) for h in hands], sorted(c for h in hands for c in h) == sorted(FULL_DECK)
([27, 27, 27, 27], True)
"""

from __future__ import annotations

from ..cards import CARD_CODES, FULL_DECK, KIND_OF

MASK64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB

_H2 = KIND_OF["H2"]


class SplitMix64:
    """The SplitMix64 generator; the state is one unsigned 64-bit integer.

    ``SplitMix64(seed)`` starts at ``seed mod 2**64`` (negative seeds wrap the same way).

    >>> g = SplitMix64(2**64 + 5); g.state
    5
    >>> SplitMix64(-1).state == 2**64 - 1
    True
    """

    __slots__ = ("state",)

    def __init__(self, seed: int = 0) -> None:
        if isinstance(seed, bool) or not hasattr(type(seed), "__index__"):
            raise TypeError(f"a seed is an int, not {type(seed).__name__}")
        self.state = seed.__index__() & MASK64   # numpy integers too

    def next(self) -> int:
        """Advance and return the next 64-bit output."""
        self.state = (self.state + _GAMMA) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * _M1) & MASK64
        z = ((z ^ (z >> 27)) * _M2) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """``next() % n`` (the small modulo bias is part of the shared contract).

        >>> SplitMix64(1).below(1)
        0
        """
        if n < 1:
            raise ValueError(f"below(n) needs n >= 1, got {n}")
        return self.next() % n

    def clone(self) -> "SplitMix64":
        g = SplitMix64.__new__(SplitMix64)
        g.state = self.state
        return g

    def __eq__(self, other) -> bool:
        if not isinstance(other, SplitMix64):
            return NotImplemented
        return self.state == other.state

    def __hash__(self) -> int:
        return hash(self.state)

    def __repr__(self) -> str:
        return f"SplitMix64(state={self.state:#x})"


def shuffled_deck(gen: SplitMix64) -> list[int]:
    """The 108 physical cards as kinds (``[0, 0, 1, 1, ..., 53, 53]``) after Fisher-Yates.

    >>> d = shuffled_deck(SplitMix64(7)); len(d), sorted(d) == [k // 2 for k in range(108)]
    (108, True)
    """
    deck = [i // 2 for i in range(108)]
    for i in range(107, 0, -1):
        j = gen.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def hands_of(deck: list[int]) -> tuple[tuple[str, ...], ...]:
    """The four hands (card codes, deck order) of a dealt deck of kinds."""
    return tuple(tuple(CARD_CODES[k] for k in deck[27 * p: 27 * p + 27]) for p in range(4))


def deal(gen: SplitMix64) -> tuple[tuple[str, ...], ...]:
    """Deal one hand from ``gen``: four tuples of 27 card codes (in deck order)."""
    return hands_of(shuffled_deck(gen))


def draw_first_leader(gen: SplitMix64, deck: list[int]) -> int:
    """The first-hand leader: draw ``i = below(108)`` until ``deck[i]`` is neither a joker
    nor ``H2``; the leader is the seat holding it, ``i // 27``.

    >>> deck = shuffled_deck(SplitMix64(0)); g = SplitMix64(0)
    >>> 0 <= draw_first_leader(g, deck) < 4
    True
    """
    while True:
        i = gen.below(108)
        k = deck[i]
        if k < 52 and k != _H2:
            return i // 27


__all__ = ["SplitMix64", "MASK64", "shuffled_deck", "deal", "hands_of", "draw_first_leader",
           "FULL_DECK"]

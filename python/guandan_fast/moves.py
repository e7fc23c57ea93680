"""Moves: the value object every part of the engine speaks, in the platform's terms.

A move is ``(type, rank label, cards)`` (docs/rules.md §3-4, §11). Its integer form, used by the
compiled core and by numpy arrays of moves, is described in ``docs/design.md``.

>>> m = Move('Pair', '4', ['H4', 'C4'])
>>> m
Move('Pair', '4', ('H4', 'C4'))
>>> m.to_platform()
['Pair', '4', ['H4', 'C4']]
>>> m == Move('Pair', '4', 'C4 H4')
True
>>> print(Move.from_platform(['Bomb', 'JOKER', ['SB', 'SB', 'HR', 'HR']], level=2))
Bomb JOKER SB SB HR HR
>>> PASS.to_platform()
['PASS', 'PASS', 'PASS']
>>> Move.from_words(*m.words) == m
True
"""

from __future__ import annotations

import operator
from typing import Iterable, Sequence

from .cards import CARD_CODES, KIND_OF, RANKS, parse_cards, sort_cards

#: Type names (docs/rules.md §4, the platform's) by type code.
TYPE_NAMES: tuple[str, ...] = (
    "PASS", "Single", "Pair", "Trips", "ThreeWithTwo", "Straight", "ThreePair", "TwoTrips",
    "Bomb", "StraightFlush", "tribute", "back",
)
TYPE_CODE: dict[str, int] = {name: code for code, name in enumerate(TYPE_NAMES)}
PLAY_TYPES: tuple[str, ...] = TYPE_NAMES[1:10]
SEQUENCE_TYPES = frozenset({"Straight", "ThreePair", "TwoTrips", "StraightFlush"})
BOMB_TYPES = frozenset({"Bomb", "StraightFlush"})
_SIZES = {"Single": (1,), "Pair": (2,), "Trips": (3,), "ThreeWithTwo": (5,), "Straight": (5,),
          "ThreePair": (6,), "TwoTrips": (6,), "Bomb": tuple(range(4, 11)),
          "StraightFlush": (5,), "tribute": (1,), "back": (1,)}
_RANK_LABELS = frozenset(RANKS) | {"B", "R", "JOKER"}


def _size_error(type: str, n: int) -> str:
    """``a Pair has 2 cards, not 1`` (a Bomb: 4 to 10 cards)."""
    sizes = _SIZES.get(type, (0,))
    allowed = str(sizes[0]) if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]}"
    return f"a {type} has {allowed} card{'s' if sizes[-1] != 1 else ''}, not {n}"

_TYPE_SHIFT = 56
_RANK_SHIFT = 60


class IllegalMoveError(ValueError):
    """A well-formed move that the rules do not allow now (wrong turn, phase, cards or play)."""


def rank_code(type_name: str, rank: str) -> int:
    """The 4-bit rank code of a label (see docs/design.md).

    >>> rank_code('Straight', 'A'), rank_code('Single', 'A'), rank_code('Pair', 'R')
    (1, 14, 15)
    """
    if type_name in ("PASS", "tribute", "back"):
        return 0
    if rank in ("B", "R", "JOKER"):
        return 15
    v = RANKS.index(rank) + 2
    if v == 14 and type_name in SEQUENCE_TYPES:
        return 1
    return v


def cards_to_words(codes: Iterable[str]) -> tuple[int, int]:
    """The 128-bit multiset ``(lo, hi)`` of some card codes."""
    lo = hi = 0
    for code in codes:
        k = KIND_OF[code]
        if k < 26:
            lo += 1 << (2 * k)
        else:
            hi += 1 << (2 * (k - 26))
    return lo, hi


def words_to_cards(lo: int, hi: int) -> tuple[str, ...]:
    """Card codes of a 128-bit multiset, in canonical order (type/rank bits ignored)."""
    out = []
    for k in range(54):
        n = (lo >> (2 * k)) & 3 if k < 26 else (hi >> (2 * (k - 26))) & 3
        out.extend([CARD_CODES[k]] * n)
    return sort_cards(out)


class Move:
    """A play (or PASS, or a tribute/back card) as ``(type, rank, cards)``.

    ``type`` and ``rank`` use the platform's names; ``cards`` is a tuple of codes in canonical
    order. Moves are immutable and hashable; equal when type, rank and card multiset are equal.
    Constructing a ``Move`` checks its form, not whether the cards make that combination: use
    ``Move.from_platform(action, level)`` or ``classify`` for that.
    """

    __slots__ = ("type", "rank", "cards", "_words")

    def __init__(self, type: str, rank: str, cards: str | Iterable[str] = ()) -> None:
        if type not in TYPE_CODE:
            raise ValueError(f"unknown move type {type!r}; expected one of {', '.join(TYPE_NAMES)}")
        codes = parse_cards(cards)
        if type == "PASS":
            if codes or rank not in ("PASS", "", None):
                raise ValueError("a PASS has no rank and no cards")
            rank = "PASS"
        elif type in ("tribute", "back"):
            if rank not in (type, "", None):
                raise ValueError(f"a {type} move has rank label {type!r}, got {rank!r}")
            rank = type
        else:
            if not isinstance(rank, str) or rank.upper() not in _RANK_LABELS:
                raise ValueError(f"unknown rank label {rank!r} for a {type}")
            rank = rank.upper()
        if len(codes) not in _SIZES.get(type, (0,)):
            raise ValueError(_size_error(type, len(codes)))
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "rank", rank)
        object.__setattr__(self, "cards", sort_cards(codes))
        object.__setattr__(self, "_words", None)

    def __setattr__(self, name, value):
        raise AttributeError("Move is immutable")

    def __delattr__(self, name):
        raise AttributeError("Move is immutable")

    # Pickling and copying: a Move is immutable, so copies are the object itself, and a pickle
    # holds its three fields (rebuilt through the checked constructor). PASS pickles as the
    # module's PASS, so `unpickled is PASS` still holds.
    def __reduce__(self):
        if self.type == "PASS":
            return "PASS"
        return (Move, (self.type, self.rank, self.cards))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    # -- integer form ---------------------------------------------------------------------
    @property
    def words(self) -> tuple[int, int]:
        """``(lo, hi)``: the move as two 64-bit integers (docs/design.md)."""
        w = self._words
        if w is None:
            lo, hi = cards_to_words(self.cards)
            hi |= (TYPE_CODE[self.type] << _TYPE_SHIFT) | (rank_code(self.type, self.rank) << _RANK_SHIFT)
            w = (lo, hi)
            object.__setattr__(self, "_words", w)
        return w

    @classmethod
    def from_words(cls, lo: int, hi: int) -> "Move":
        """Decode the integer form; ``ValueError`` naming the problem when the words are not
        those of a move (type or rank code out of range, bits beyond the 54 card kinds, a
        third copy of a card, a card count the type cannot have).

        >>> Move.from_words(0, 12 << 56)
        Traceback (most recent call last):
        ...
        ValueError: move words: type code 12 is not a move type (0..11)
        """
        if isinstance(lo, bool) or isinstance(hi, bool):
            raise TypeError("move words are two ints (lo, hi), not bools")
        try:  # ints, and integer types such as numpy.uint64
            lo, hi = operator.index(lo), operator.index(hi)
        except TypeError:
            raise TypeError(f"move words are two ints (lo, hi), not "
                            f"{type(lo).__name__}, {type(hi).__name__}") from None
        if not (0 <= lo < 1 << 64 and 0 <= hi < 1 << 64):
            raise ValueError(f"move words are unsigned 64-bit integers, got ({lo}, {hi})")
        t = (hi >> _TYPE_SHIFT) & 15
        rc = (hi >> _RANK_SHIFT) & 15
        if t >= len(TYPE_NAMES):
            raise ValueError(f"move words: type code {t} is not a move type (0..11)")
        name = TYPE_NAMES[t]
        if name == "PASS":
            if lo or hi:
                raise ValueError(f"move words ({lo:#x}, {hi:#x}): a PASS (type code 0) has "
                                 f"no cards and rank code 0")
            return PASS
        if lo >> 52:
            raise ValueError(f"move words: bits {lo >> 52:#x} << 52 of lo are beyond the "
                             f"26 card kinds it holds")
        for k in range(54):
            if ((lo >> (2 * k)) & 3 if k < 26 else (hi >> (2 * (k - 26))) & 3) == 3:
                raise ValueError(f"move words: card {CARD_CODES[k]} has count 3 (at most 2)")
        cards = words_to_cards(lo, hi & ((1 << 56) - 1))
        if len(cards) not in _SIZES[name]:
            raise ValueError(f"move words: {_size_error(name, len(cards))}")
        if name in ("tribute", "back"):
            if rc:
                raise ValueError(f"move words: a {name} move has rank code 0, not {rc}")
            rank = name
        elif rc == 15:
            if any(c not in ("SB", "HR") for c in cards) or (name != "Bomb" and len(set(cards)) != 1):
                raise ValueError(f"move words: rank code 15 (joker) but cards "
                                 f"{' '.join(cards)}")
            if name == "Bomb":
                rank = "JOKER"
            else:
                rank = "R" if cards[0] == "HR" else "B"
        elif rc == 1:
            if name not in SEQUENCE_TYPES:
                raise ValueError(f"move words: rank code 1 (a low ace) is for sequences, "
                                 f"not a {name}")
            rank = "A"
        elif 2 <= rc <= 14 and not (rc == 14 and name in SEQUENCE_TYPES):
            rank = RANKS[rc - 2]
        else:
            raise ValueError(f"move words: rank code {rc} is not valid for a {name}")
        m = cls.__new__(cls)
        object.__setattr__(m, "type", name)
        object.__setattr__(m, "rank", rank)
        object.__setattr__(m, "cards", cards)
        object.__setattr__(m, "_words", (lo, hi))
        return m

    # -- platform form --------------------------------------------------------------------
    def to_platform(self) -> list:
        """``[type, rank, [cards]]`` as the AI-competition platform writes moves."""
        if self.type == "PASS":
            return ["PASS", "PASS", "PASS"]
        return [self.type, self.rank, list(self.cards)]

    @classmethod
    def from_platform(cls, action: Sequence, level: int | str) -> "Move":
        """Read a platform action ``[type, rank, cards]``, checking the reading at ``level``.

        >>> Move.from_platform(['Pair', '9', ['H7', 'D9']], level=7)
        Move('Pair', '9', ('H7', 'D9'))
        >>> Move.from_platform(['Pair', '9', ['H7', 'SB']], level=7)
        Traceback (most recent call last):
        ...
        ValueError: cards H7 SB do not make Pair 9 at level 7
        """
        from .cards import parse_level

        if isinstance(action, Move):
            return action
        if not isinstance(action, (list, tuple)) or len(action) != 3:
            raise ValueError(f"a platform action is [type, rank, cards]; got {action!r}")
        lv = parse_level(level)
        type_name, rank, cards = action
        if type_name == "PASS":
            if rank != "PASS" or cards not in ("PASS", [], (), None):
                raise ValueError(f"malformed PASS action {action!r}")
            return PASS
        if not isinstance(type_name, str) or type_name not in TYPE_CODE:
            # named before the cards: an unknown type is the real problem, whatever they are
            raise ValueError(f"unknown move type {type_name!r}; expected one of "
                             f"{', '.join(TYPE_NAMES)}")
        if isinstance(cards, str):
            raise ValueError(f"the cards of a platform action are a list of codes; got {cards!r}")
        m = cls(type_name, rank, cards)
        if m.type in ("tribute", "back"):
            return m
        from .movegen import classify  # compiled; imported here as movegen imports this module

        if m not in classify(m.cards, lv):
            raise ValueError(f"cards {' '.join(m.cards)} do not make {m.type} {m.rank} "
                             f"at level {RANKS[lv - 2]}")
        return m

    # -- value semantics ------------------------------------------------------------------
    @property
    def is_pass(self) -> bool:
        return self.type == "PASS"

    @property
    def is_bomb(self) -> bool:
        """Bombs, straight flushes and the four jokers (docs/rules.md §5's bomb class)."""
        return self.type in BOMB_TYPES

    def __eq__(self, other) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        return self.type == other.type and self.rank == other.rank and self.cards == other.cards

    def __hash__(self) -> int:
        return hash((self.type, self.rank, self.cards))

    def __len__(self) -> int:
        return len(self.cards)

    def sort_key(self) -> tuple:
        """A total order: by type code, rank code, then cards (used to sort move lists)."""
        return (TYPE_CODE[self.type], rank_code(self.type, self.rank), self.cards)

    def _ordering_key(self, other, op: str) -> tuple:
        """``other``'s sort key; a TypeError that says what the order is for anything else."""
        if not isinstance(other, Move):
            raise TypeError(
                f"'{op}' compares two Moves by Move.sort_key (type, rank, cards), not a Move "
                f"with {type(other).__name__}; which play wins is beats(move, last, level)")
        return other.sort_key()

    def __lt__(self, other: "Move") -> bool:
        """The sort order of move lists (``Move.sort_key``); not which play wins.

        >>> Move("Single", "3", ["S3"]) < Move("Pair", "3", ["S3", "H3"])
        True
        >>> Move("Single", "3", ["S3"]) < 3
        Traceback (most recent call last):
        ...
        TypeError: '<' compares two Moves by Move.sort_key (type, rank, cards), not a Move with int; which play wins is beats(move, last, level)
        """
        return self.sort_key() < self._ordering_key(other, "<")

    def __le__(self, other: "Move") -> bool:
        return self.sort_key() <= self._ordering_key(other, "<=")

    def __gt__(self, other: "Move") -> bool:
        return self.sort_key() > self._ordering_key(other, ">")

    def __ge__(self, other: "Move") -> bool:
        return self.sort_key() >= self._ordering_key(other, ">=")

    def __repr__(self) -> str:
        if self.type == "PASS":
            return "PASS"
        return f"Move({self.type!r}, {self.rank!r}, {self.cards!r})"

    def __str__(self) -> str:
        if self.type == "PASS":
            return "PASS"
        return f"{self.type} {self.rank} {' '.join(self.cards)}"


PASS = Move("PASS", "PASS")

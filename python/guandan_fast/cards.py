"""Cards and notation: the platform's card codes, levels and the two card orders.

A card code is a suit letter (``S H C D``) and a rank character (``2``..``9``, ``T``, ``J``,
``Q``, ``K``, ``A``); the jokers are ``SB`` (small) and ``HR`` (big).

>>> parse_cards("♠10 h7, HR")
('ST', 'H7', 'HR')
>>> parse_level('T'), parse_level(14)
(10, 14)
>>> single_value('H7', level=7), single_value('SA', level=7), single_value('HR', level=7)
(15, 14, 17)
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

SUITS = "SHCD"
RANKS = "23456789TJQKA"  # rank index r = natural value - 2
JOKERS = ("SB", "HR")

#: Every card code, in kind order (kind = suit * 13 + r; SB = 52, HR = 53).
CARD_CODES: tuple[str, ...] = tuple(s + r for s in SUITS for r in RANKS) + JOKERS
KIND_OF: dict[str, int] = {code: kind for kind, code in enumerate(CARD_CODES)}

#: The full two-deck multiset, each code twice.
FULL_DECK: tuple[str, ...] = tuple(code for code in CARD_CODES for _ in range(2))

_SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♣": "C", "♦": "D"}
_LEVEL_CHARS = {ch: i + 2 for i, ch in enumerate(RANKS)}


def natural_value(code: str) -> int:
    """Natural rank 2..14 of a suited card (A = 14).

    >>> natural_value('DT'), natural_value('CA')
    (10, 14)
    """
    return RANKS.index(code[1]) + 2


def is_wild(code: str, level: int) -> bool:
    """True for the heart of the level rank, the wild card (docs/rules.md §2-3)."""
    return code[0] == "H" and code != "HR" and natural_value(code) == level


def single_value(code: str, level: int) -> int:
    """Value in the single order: natural 2..14, any level card 15, SB 16, HR 17."""
    if code == "SB":
        return 16
    if code == "HR":
        return 17
    v = natural_value(code)
    return 15 if v == level else v


def card_sort_key(code: str) -> tuple[int, int]:
    """Canonical display order: by natural rank, then suit S H C D; jokers last."""
    kind = KIND_OF[code]
    if kind >= 52:
        return (13 + kind - 52, 0)
    return (kind % 13, kind // 13)


# card_sort_key of every code, looked up by sort_cards (sorting is most of what building a
# Move costs, and the reference engine builds hundreds of thousands)
_SORT_KEY: dict[str, tuple[int, int]] = {code: card_sort_key(code) for code in CARD_CODES}


def _canonical_token(token: str) -> str:
    if token in KIND_OF:           # already a canonical code (most calls: engines, records)
        return token
    t = token.strip()
    if not t:
        raise ValueError("empty card code")
    if t[0] in _SUIT_SYMBOLS:
        t = _SUIT_SYMBOLS[t[0]] + t[1:]
    if not t.isascii():
        # str.upper() maps some non-ASCII letters onto ASCII ones ('ſ' -> 'S', 'ﬅ' -> 'ST'):
        # only the documented codes and the four suit symbols are cards.
        raise ValueError(f"unknown card code {token!r} (card codes are ASCII, e.g. 'S9', "
                         f"or a suit symbol ♠♥♣♦ and a rank)")
    t = t.upper()
    if len(t) == 3 and t[1:] == "10":
        t = t[0] + "T"
    if t not in KIND_OF:
        raise ValueError(f"unknown card code {token!r}")
    return t


def parse_cards(cards: str | Iterable[str]) -> tuple[str, ...]:
    """Parse cards from a string (spaces or commas) or an iterable of codes.

    Returns canonical codes in the given order. Codes are ASCII and case-insensitive
    (``'d9'`` is ``'D9'``); the suit symbols ``♠♥♣♦`` may replace the suit letter and ``10``
    the rank ``T``. Nothing else is read as a card: look-alike letters from other scripts
    (Cyrillic ``С``, fullwidth ``Ｓ``, ``ſ``) are errors. An unknown token, or a third copy of a
    card, raises ``ValueError`` naming it.

    >>> parse_cards(['d9', 'D9'])
    ('D9', 'D9')
    >>> parse_cards('D9 D9 D9')
    Traceback (most recent call last):
    ...
    ValueError: card 'D9' appears 3 times; there are only 2 copies of each card
    >>> parse_cards('S1')
    Traceback (most recent call last):
    ...
    ValueError: unknown card code 'S1'
    >>> parse_cards('ſ9')
    Traceback (most recent call last):
    ...
    ValueError: unknown card code 'ſ9' (card codes are ASCII, e.g. 'S9', or a suit symbol ♠♥♣♦ and a rank)
    """
    if isinstance(cards, str):
        tokens = [t for t in cards.replace(",", " ").split() if t]
    else:
        try:
            tokens = list(cards)
        except TypeError:
            raise TypeError(
                f"cards must be a string or an iterable of card codes, not {type(cards).__name__}"
            ) from None
        for t in tokens:
            if not isinstance(t, str):
                raise TypeError(f"card codes must be strings, got {t!r}")
    codes = tuple(map(_canonical_token, tokens))
    if len(codes) < 3:             # (no third copy possible)
        return codes
    for code, n in Counter(codes).items():
        if n > 2:
            raise ValueError(
                f"card {code!r} appears {n} times; there are only 2 copies of each card"
            )
    return codes


def parse_level(level: int | str) -> int:
    """A level as an int 2..14 from ``'2'``..``'9'``, ``'T'``, ``'J'``, ``'Q'``, ``'K'``,
    ``'A'`` (also ``'10'``) or an int 2..14.

    >>> parse_level('A')
    14
    >>> parse_level(1)
    Traceback (most recent call last):
    ...
    ValueError: level must be 2..14 or one of 2-9, T, J, Q, K, A; got 1
    """
    if isinstance(level, bool):
        raise TypeError("level must be an int 2..14 or a rank character, not bool")
    if hasattr(type(level), "__index__"):          # int, numpy integers
        level = level.__index__()
        if 2 <= level <= 14:
            return level
    elif isinstance(level, str):
        s = level.strip().upper() if level.isascii() else ""
        if s == "10":
            return 10
        if s in _LEVEL_CHARS:
            return _LEVEL_CHARS[s]
    else:
        raise TypeError(f"level must be an int or a str, not {type(level).__name__}")
    raise ValueError(f"level must be 2..14 or one of 2-9, T, J, Q, K, A; got {level!r}")


def level_char(level: int) -> str:
    """The rank character of a level: ``level_char(10) == 'T'``."""
    return RANKS[level - 2]


def sort_cards(codes: Iterable[str]) -> tuple[str, ...]:
    """Codes in canonical order.

    >>> sort_cards(['HR', 'DJ', 'S8', 'C8'])
    ('S8', 'C8', 'DJ', 'HR')
    """
    return tuple(sorted(codes, key=_SORT_KEY.__getitem__))

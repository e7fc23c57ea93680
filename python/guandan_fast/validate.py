"""Checks of the arguments that come from Python, shared by both engines: the compiled ``Game``
(src/guandan_fast/game.pyx), the compiled move-generation API (movegen.pyx), perft and the
benchmark hooks, and the reference ``Game`` (reference/game.py). Only the *form* of the input
is checked here (types, ranges, seats, finishing orders, the 108-card deck of a set-up);
whether a move is legal is each engine's own rules code.

Every check raises ``TypeError`` for a wrong type and ``ValueError`` for a bad value, naming
the argument; none raises ``OverflowError`` for a huge int. This module imports nothing
compiled (the reference engine uses it too).

>>> check_seat(2), check_level('T'), check_finish([1, 3])
(2, 10, [1, 3])
>>> check_seat(4, "leader")
Traceback (most recent call last):
...
ValueError: leader must be 0..3, got 4
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

from .cards import FULL_DECK, KIND_OF, parse_cards, parse_level
from .rules import Rules

_FULL_DECK = Counter(FULL_DECK)


def as_int(value, what: str) -> int:
    """An int argument (numpy integers too); TypeError naming it for anything else.

    >>> import numpy as np
    >>> as_int(np.int64(7), "seed")
    7
    >>> as_int(2.0, "seed")
    Traceback (most recent call last):
    ...
    TypeError: seed must be an int, not float
    """
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    return value.__index__()


def check_bool(value, what: str) -> bool:
    """A bool argument (``True``/``False`` only: ``1`` or ``np.True_`` are refused, so a
    misplaced count never passes for a flag); TypeError naming it for anything else.

    >>> check_bool(True, "auto_pass")
    True
    >>> check_bool(1, "auto_pass")
    Traceback (most recent call last):
    ...
    TypeError: auto_pass must be a bool, not int
    """
    if not isinstance(value, bool):
        raise TypeError(f"{what} must be a bool, not {type(value).__name__}")
    return value


def check_seed(seed, what: str = "seed", optional: bool = False) -> int | None:
    """A seed: any int (numpy integers too; reduced mod 2**64 where it is used), or None when
    ``optional``."""
    if seed is None and optional:
        return None
    if isinstance(seed, bool) or not hasattr(type(seed), "__index__"):
        kinds = "an int or None" if optional else "an int"
        raise TypeError(f"{what} must be {kinds}, not {type(seed).__name__}")
    return seed.__index__()


def check_count(value, what: str, minimum: int, maximum: int | None = 1 << 62) -> int:
    """A count argument: an int (numpy integers too) in ``minimum..maximum`` (2**62 unless
    given; None: no upper bound).

    >>> check_count(0, "matches", 1)
    Traceback (most recent call last):
    ...
    ValueError: matches must be >= 1, got 0
    """
    v = as_int(value, what)
    if v < minimum:
        raise ValueError(f"{what} must be >= {minimum}, got {v}")
    if maximum is not None and v > maximum:
        top = "2**62" if maximum == 1 << 62 else str(maximum)
        raise ValueError(f"{what} must be at most {top}, got {v}")
    return v


#: More threads than this is refused (a typo, not a machine): each is an OS thread.
MAX_THREADS = 1024


def check_threads(value, what: str = "threads") -> int:
    """A thread count: an int in ``1..MAX_THREADS``.

    >>> check_threads(2)
    2
    >>> check_threads(10 ** 6)
    Traceback (most recent call last):
    ...
    ValueError: threads must be at most 1024, got 1000000
    """
    return check_count(value, what, 1, MAX_THREADS)


def check_words_array(words, what: str = "words", nonempty: bool = False):
    """Move words as a C-contiguous ``uint64[n, 2]`` numpy array (n >= 1 if ``nonempty``).
    Only the form: whether the words hold cards is the caller's check.

    >>> check_words_array([[1, 2]]).dtype
    dtype('uint64')
    >>> check_words_array([[-1, 0]])
    Traceback (most recent call last):
    ...
    TypeError: words must be unsigned 64-bit integers of shape (n, 2): Python integer -1 out of bounds for uint64
    """
    import numpy as np     # (here: the reference engine imports this module without numpy use)
    try:
        arr = np.ascontiguousarray(words, dtype=np.uint64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(f"{what} must be unsigned 64-bit integers of shape (n, 2): {exc}") from None
    if arr.ndim != 2 or arr.shape[1] != 2 or (nonempty and arr.shape[0] == 0):
        need = "(n, 2), n >= 1" if nonempty else "(n, 2)"
        raise ValueError(f"{what} must have shape {need}, got {arr.shape}")
    return arr


def check_callable(value, what: str, optional: bool = False):
    """A function argument (``progress``, ``policy``), or None when ``optional``."""
    if value is None and optional:
        return None
    if not callable(value):
        raise TypeError(f"{what} must be callable, not {type(value).__name__}")
    return value


def check_level(level, what: str = "level") -> int:
    """A level: 2..14 as an int (numpy integers too) or a rank character ('2'..'A', '10')."""
    if isinstance(level, str) or isinstance(level, bool) or not hasattr(type(level), "__index__"):
        return parse_level(level)
    v = level.__index__()
    if not 2 <= v <= 14:
        raise ValueError(f"{what} must be 2..14 (or a rank 2..A), got {level!r}")
    return v


def check_seat(p, what: str = "seat") -> int:
    """A seat 0..3 (numpy integers too)."""
    if isinstance(p, bool) or not hasattr(type(p), "__index__"):
        raise TypeError(f"{what} must be an int 0..3, not {type(p).__name__}")
    v = p.__index__()
    if not 0 <= v <= 3:
        raise ValueError(f"{what} must be 0..3, got {p}")
    return v


def check_rules(rules) -> Rules:
    """A ``Rules`` argument.

    >>> check_rules({"ace_rule": "any_win"})
    Traceback (most recent call last):
    ...
    TypeError: rules must be a guandan_fast.Rules, not dict
    """
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a guandan_fast.Rules, not {type(rules).__name__}")
    return rules


def check_finish(order) -> list[int]:
    """A previous hand's finishing order: 2 seats (a double-down: 1st and 2nd partners) or 3-4
    distinct seats, completed with the seats that did not go out. A double-down gives its two
    seats only (the other two never went out)."""
    if isinstance(order, (str, bytes)) or not isinstance(order, (list, tuple)):
        raise ValueError(f"previous_finish must be a list of seats, got {order!r}")
    seats = [check_seat(s, "a seat of previous_finish") for s in order]
    if len(set(seats)) != len(seats) or not 2 <= len(seats) <= 4:
        raise ValueError(f"previous_finish must be 2 to 4 distinct seats, got {list(order)}")
    if seats[1] == (seats[0] + 2) % 4:
        return seats[:2]
    if len(seats) == 2:
        raise ValueError(f"previous_finish {seats}: two seats only describe a double-down "
                         f"(1st and 2nd partners)")
    return seats + [s for s in range(4) if s not in seats]


class Setup(NamedTuple):
    """The checked arguments of ``Game.setup`` (docs/design.md)."""
    hands: list[list[str]]          # four card lists, canonical codes
    levels: list[int]               # per team
    declarer: int | None            # team whose level is played (None: a first hand)
    previous_finish: list[int] | None   # check_finish's form
    leader: int | None              # seat to lead (None with previous_finish, or drawn)


def check_setup(hands, levels, declarer, previous_finish, leader) -> Setup:
    """The arguments of ``Game.setup`` checked and normalised (both engines; the seed and the
    rules are checked by the caller).

    >>> check_setup([['SB']] * 4, (2, 2), None, None, 0)
    Traceback (most recent call last):
    ...
    ValueError: the hands must make exactly the 108-card deck: 'SB' appears 4 times (expected 2); 106 cards are missing
    """
    if isinstance(hands, (str, bytes)) or not isinstance(hands, (list, tuple)) or len(hands) != 4:
        raise ValueError("hands must be a sequence of four card lists")
    parsed = [list(parse_cards(h)) for h in hands]
    total = Counter(c for h in parsed for c in h)
    if total != _FULL_DECK:
        problems = [f"{c!r} appears {n} times (expected 2)"
                    for c, n in sorted(total.items(), key=lambda x: KIND_OF[x[0]]) if n > 2]
        missing = sum((_FULL_DECK - total).values())
        if missing:
            problems.append(f"{missing} cards are missing")
        raise ValueError("the hands must make exactly the 108-card deck: " + "; ".join(problems))
    for p in range(4):
        if not parsed[p]:
            raise ValueError(f"hand {p} is empty; every seat starts with at least one card")
    if not isinstance(levels, (tuple, list)) or len(levels) != 2:
        raise ValueError(f"levels must be a pair (team 0, team 1), got {levels!r}")
    lv = [check_level(x, "a level") for x in levels]
    prev = None
    if previous_finish is not None:
        prev = check_finish(previous_finish)
        team = prev[0] % 2
        if declarer is None:
            declarer = team
        elif declarer != team:
            raise ValueError(f"declarer {declarer} does not match previous_finish: team "
                             f"{team} of seat {prev[0]} won the previous hand")
        if leader is not None:
            raise ValueError("leader must be None with previous_finish: the tribute "
                             "decides who leads")
    if declarer is not None:
        if isinstance(declarer, bool) or declarer not in (0, 1):
            raise ValueError(f"declarer must be 0, 1 or None, got {declarer!r}")
        declarer = int(declarer)
    elif lv != [2, 2]:
        raise ValueError(f"a first hand (declarer None) is played with levels (2, 2), "
                         f"got {tuple(lv)}")
    if leader is not None:
        leader = check_seat(leader, "leader")
    return Setup(parsed, lv, declarer, prev, leader)


def check_platform_form(action, what: str = "") -> None:
    """The form of a platform action ``[type, rank, cards]`` before it is read as a move: three
    fields, the cards a list of codes (``what``: the argument's name, prefixed to the message).
    A PASS is read by ``Move.from_platform``, which checks its own form."""
    prefix = f"{what}: " if what else ""
    if len(action) != 3:
        raise ValueError(f"{prefix}a platform action is [type, rank, cards]; got {action!r}")
    if action[0] != "PASS" and isinstance(action[2], str):
        raise ValueError(f"{prefix}the cards of a platform action are a list of codes; "
                         f"got {action[2]!r}")

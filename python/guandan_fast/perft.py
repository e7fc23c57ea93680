"""perft: node counts of the complete-move tree from a fixed deal, for both engines.

``perft(seed, depth)`` counts the leaves of the tree of every legal move sequence of
``depth`` plies starting from the deal of ``Game(seed)`` (tribute, back, plays and PASS are
plies; a finished match is a leaf). The compiled count recurses in C over struct copies; the
reference count is a plain-Python clone-and-play recursion over ``reference.Game``. The two
must agree: a disagreement pinpoints a bug in move generation or in the game's flow (use
``per_move=True`` to see under which first move the counts differ).

>>> from guandan_fast.game import Game
>>> perft(0, 1) == perft_reference(0, 1) == len(Game(seed=0).legal_moves())
True
>>> counts = perft(1, 2, per_move=True)    # first move -> leaves below it
>>> len(counts) == perft(1, 1), sum(counts.values()) == perft(1, 2)
(True, True)
"""

from __future__ import annotations

import time

from .rules import Rules
from .validate import check_callable, check_count

__all__ = ["perft", "perft_reference", "perft_report", "count_leaves", "estimate_seconds",
           "PerftPartial"]


def _check(depth) -> int:
    return check_count(depth, "depth", 0)


def perft(seed: int, depth: int, rules: Rules = Rules(), per_move: bool = False,
          compact: bool = False):
    """The compiled engine's leaf count (or ``{first move: count}`` with ``per_move``);
    ``compact`` counts the tree of compact moves (docs/design.md, "Compact mode").

    >>> perft(1, 2), perft(1, 2, compact=True)
    (64542, 547)
    """
    from .game import Game as _Fast
    from .perft_core import perft_game

    return perft_game(_Fast(seed, rules), _check(depth), per_move, bool(compact))


def count_leaves(game, depth: int, children=None) -> int:
    """Leaves of the tree of ``depth`` plies below any ``Game`` (either engine) by clone and
    play; ``children(game)`` lists the moves to follow (default: ``game.legal_moves()``)."""
    if depth == 0 or game.is_over:
        return 1
    moves = game.legal_moves() if children is None else children(game)
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        child = game.clone()
        child.play(m)
        total += count_leaves(child, depth - 1, children)
    return total


def perft_reference(seed: int, depth: int, rules: Rules = Rules(), per_move: bool = False,
                    progress=None):
    """The same count over the reference ``Game`` (clone + play; slow: depth <= 2 or 3).
    ``progress(done, total)`` is called after each first move's subtree. Ctrl-C stops it:
    ``KeyboardInterrupt`` with ``.partial``, a ``PerftPartial`` (the subtrees counted).

    >>> seen = []
    >>> perft_reference(1, 1, progress=lambda done, total: seen.append((done, total)))
    268
    >>> seen[0], seen[-1], len(seen)
    ((1, 268), (268, 268), 268)
    """
    from .reference.game import Game as _Ref

    _check(depth)
    check_callable(progress, "progress", optional=True)
    root = _Ref(seed, rules)
    if depth == 0 or root.is_over:
        return {} if per_move else 1
    out = {}
    moves = root.legal_moves()
    try:
        for k, m in enumerate(moves):
            child = root.clone()
            child.play(m)
            out[m] = count_leaves(child, depth - 1)
            if progress is not None:
                progress(k + 1, len(moves))
    except KeyboardInterrupt as exc:
        # Ctrl-C: the counts of the first moves whose subtrees are done ride on the exception
        exc.partial = PerftPartial(dict(out), len(moves))
        raise
    return out if per_move else sum(out.values())


class PerftPartial:
    """What an interrupted ``perft_reference`` had counted: ``counts`` (first move -> leaves,
    the subtrees done), of ``first_moves`` in all; ``leaves``: their sum.

    >>> p = PerftPartial({"a": 3, "b": 4}, 10)
    >>> p.leaves, p
    (7, PerftPartial(7 leaves below 2 of 10 first moves))
    """

    def __init__(self, counts: dict, first_moves: int) -> None:
        self.counts, self.first_moves = counts, first_moves

    @property
    def leaves(self) -> int:
        return sum(self.counts.values())

    def __repr__(self) -> str:
        return (f"PerftPartial({self.leaves:,} leaves below {len(self.counts)} of "
                f"{self.first_moves} first moves)")


def estimate_seconds(seed: int, depth: int, rules: Rules = Rules(), per_move: bool = False,
                     reference: bool = True, samples: int = 24) -> float:
    """A rough estimate of the seconds ``perft_report`` will take (both engines when
    ``reference``), in well under a second: for a warning before a run of minutes.

    The nodes of each level of the tree are estimated by Knuth's method (random paths from
    the root; the product of the branching factors met is an unbiased estimate of a level's
    size), and each engine's cost per expanded node is timed on this machine on a few nodes.
    Expect the right order of magnitude, not more.

    >>> estimate_seconds(0, 1, reference=False) < 1.0
    True
    """
    import random

    from .game import Game as _Fast
    from .perft_core import perft_game

    _check(depth)
    rnd = random.Random(seed)
    expanded = [0.0] * depth          # nodes of level d that are expanded (d < depth)
    path = []                         # the first sample's moves, for timing the reference
    for k in range(samples):
        g = _Fast(seed, rules)
        weight = 1.0
        for d in range(depth):
            n = g.num_legal()
            if n == 0:
                break
            expanded[d] += weight / samples
            weight *= n
            i = rnd.randrange(n)
            if k == 0:
                path.append(g.legal_moves()[i])
            g.play_index(i)
    internal = sum(expanded)
    root = _Fast(seed, rules)
    t = time.perf_counter()
    perft_game(root, 2)               # expands the root's children: the compiled cost a node
    fast_per_node = (time.perf_counter() - t) / max(1, root.num_legal())
    total = internal * fast_per_node
    if reference:
        from .reference.game import Game as _Ref

        # Per level, on the first sampled path: listing the moves of a node (every expanded
        # node does), and cloning + playing into a child (every node below the root).
        def best_of_3(f) -> float:   # the least disturbed of three timings
            times = []
            for _ in range(3):
                t = time.perf_counter()
                f()
                times.append(time.perf_counter() - t)
            return min(times)

        ref = _Ref(seed, rules)
        for d, m in enumerate(path):
            total += expanded[d] * best_of_3(ref.legal_moves)
            if d + 1 < depth:
                total += expanded[d + 1] * best_of_3(lambda: ref.clone().play(m))
            ref = ref.clone()
            ref.play(m)
    return total


def perft_report(seed: int = 0, depth: int = 2, rules: Rules = Rules(), per_move: bool = False,
                 reference: bool = True, progress=None, emit=None) -> str:
    """The text of ``guandan-fast perft``: counts and times of both engines, and whether
    they agree. ``emit(line)`` receives each line as soon as it is known (the compiled count
    before the slow reference starts); ``progress`` is ``perft_reference``'s.

    >>> print(perft_report(0, 1, reference=False).splitlines()[0])
    perft seed 0, depth 1, rules Rules()
    """
    check_callable(emit, "emit", optional=True)

    lines = []

    def add(line: str) -> None:
        lines.append(line)
        if emit is not None:
            emit(line)

    add(f"perft seed {seed}, depth {depth}, rules {rules!r}")
    t = time.perf_counter()
    fast = perft(seed, depth, rules, per_move)
    tf = time.perf_counter() - t
    total_fast = sum(fast.values()) if per_move else fast
    add(f"compiled   {total_fast:>14,} leaves  {tf:9.3f} s")
    ref = None
    if reference:
        t = time.perf_counter()
        ref = perft_reference(seed, depth, rules, per_move, progress)
        tr = time.perf_counter() - t
        total_ref = sum(ref.values()) if per_move else ref
        add(f"reference  {total_ref:>14,} leaves  {tr:9.3f} s")
        add("agree" if ref == fast else "DISAGREE")
    if per_move:
        for m in sorted(fast, key=lambda m: m.sort_key()):
            extra = ""
            if ref is not None and ref.get(m) != fast[m]:
                extra = f"   reference {ref.get(m)}"
            add(f"  {fast[m]:>12,}  {m}{extra}")
        if ref is not None:
            for m in sorted(set(ref) - set(fast), key=lambda m: m.sort_key()):
                add(f"  {'-':>12}  {m}   reference {ref[m]}")
    return "\n".join(lines)


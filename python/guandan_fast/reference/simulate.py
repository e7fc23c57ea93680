"""Whole matches between random bots on the reference engine: slow, simple, the yardstick
(``guandan-fast simulate --engine reference``)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from ..moves import Move
from ..rules import Rules
from ..validate import check_callable, check_count, check_rules, check_seed


@dataclass
class ReferenceResult:
    matches: int = 0
    hands: int = 0
    plays: int = 0
    wins: list = field(default_factory=lambda: [0, 0])
    elapsed: float = 0.0

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.elapsed if self.elapsed else 0.0


def simulate_reference(matches: int = 1, seed: int = 0, rules: Rules = Rules(),
                       progress=None) -> ReferenceResult:
    """Play ``matches`` matches of uniform random bots (over sorted legal moves).

    Match ``i`` is dealt from seed ``seed + i``; the bots draw from ``random.Random(seed + i)``.
    Bad counts are refused as ``guandan_fast.simulate`` refuses them:

    >>> simulate_reference(matches=0)
    Traceback (most recent call last):
    ...
    ValueError: matches must be >= 1, got 0
    """
    from .game import Game

    matches = check_count(matches, "matches", 1)
    seed = check_seed(seed)
    check_rules(rules)
    check_callable(progress, "progress", optional=True)

    res = ReferenceResult()
    t0 = time.perf_counter()
    for i in range(matches):
        game = Game(seed=seed + i, rules=rules)
        chooser = random.Random(seed + i)
        while not game.is_over:
            moves = sorted(game.legal_moves(), key=Move.sort_key)
            move = chooser.choice(moves)
            if move.type not in ("tribute", "back"):
                res.plays += not move.is_pass
            game.play(move)
        res.hands += len(game.results)
        res.wins[game.winner] += 1
        res.matches += 1
        if progress is not None:
            progress(res.matches)
    res.elapsed = time.perf_counter() - t0
    return res

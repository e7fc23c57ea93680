"""Legal moves in the platform's form: the Python path against the compiled one, interleaved.

    .venv/bin/python bench/platform_lists_speed.py [--rounds 7] [--hands 20]

It takes about half a minute with the defaults.

Every round deals new 27-card hands (lead, and follow against a pair; the hands of round r
are fixed by r) and each path lists their moves, the paths alternating, so a busy machine slows
them alike; the figures are the medians over the rounds. The paths:

* lists: ``[m.to_platform() for m in moves]`` against ``moves.to_platform()``;
* JSON text: ``json.dumps([m.to_platform() for m in moves])`` against
  ``moves.to_platform_json()``;
* the server's text before the compiled path: ``net.protocol.action_json`` of each move,
  joined, against ``moves.to_platform_json()``.

The Python paths run twice: first on the round's new hands, as a bot or the server meets a new
position (the ``Move`` objects are made then: "new"), then again on the same lists, finding the
``Move`` objects in the engine's cache ("cached", the Python path's best case).
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time

from guandan_fast import Hand, Move
from guandan_fast.cards import FULL_DECK


def action_json(kind, rank, cards):
    """net.protocol.action_json, repeated here so that the bench needs no ``net`` extra."""
    if kind == "PASS":
        return '["PASS", "PASS", "PASS"]'
    return '["' + kind + '", "' + rank + '", ["' + '", "'.join(cards) + '"]]'


PATHS = {
    "lists": (lambda ml: [m.to_platform() for m in ml], lambda ml: ml.to_platform()),
    "json": (lambda ml: json.dumps([m.to_platform() for m in ml]),
             lambda ml: ml.to_platform_json()),
    "server json": (lambda ml: "[" + ", ".join([action_json(m.type, m.rank, m.cards)
                                                for m in ml.to_list()]) + "]",
                    lambda ml: ml.to_platform_json()),
}


def move_lists(hands: int, seed: int):
    """(lead lists, follow lists) of ``hands`` dealt 27-card hands at levels 2..A."""
    rnd = random.Random(seed)
    deck = list(FULL_DECK)
    leads, follows = [], []
    last = Move("Pair", "8", "S8 D8")
    for i in range(hands):
        rnd.shuffle(deck)
        h = Hand(deck[:27])
        leads.append(h.legal_moves(2 + i % 13))
        follows.append(h.legal_moves(2 + i % 13, last=last))
    return leads, follows


def rate(fn, lists, repeat: int) -> float:
    """Moves per second of fn over the lists."""
    n = sum(len(ml) for ml in lists) * repeat
    t0 = time.perf_counter()
    for _ in range(repeat):
        for ml in lists:
            fn(ml)
    return n / (time.perf_counter() - t0)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                epilog="example: python bench/platform_lists_speed.py --rounds 7")
    p.add_argument("--rounds", type=int, default=9, help="interleaved rounds (default: 9)")
    p.add_argument("--hands", type=int, default=100, help="dealt hands a round (default: 100)")
    args = p.parse_args(argv)
    if not 1 <= args.rounds <= 1000 or not 1 <= args.hands <= 10000:
        print("platform_lists_speed: --rounds must be 1..1000 and --hands 1..10000",
              file=sys.stderr)
        return 2
    leads, follows = move_lists(args.hands, seed=10**6)
    for ml in leads + follows:       # both paths give the same text
        assert ml.to_platform_json() == json.dumps([m.to_platform() for m in ml])
    print(f"{args.hands} hands a round: about {sum(map(len, leads))} lead moves, "
          f"{sum(map(len, follows))} follow moves")
    # (path, lead/follow) -> [(Python new, Python cached, compiled)] moves/s per round
    results = {(path, kind): [] for path in PATHS for kind in ("lead", "follow")}
    done = 0
    try:
        for r in range(args.rounds):
            for i, (path, (python, compiled)) in enumerate(PATHS.items()):
                for j, kind in enumerate(("lead", "follow")):
                    lists = move_lists(args.hands, seed=100 * r + 10 * i + j)[j]   # new hands
                    new = rate(python, lists, 1)
                    comp = rate(compiled, lists, 3)
                    cached = rate(python, lists, 1)
                    results[path, kind].append((new, cached, comp))
            done += 1
            print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    except KeyboardInterrupt:
        print(f"platform_lists_speed: interrupted after {done} of {args.rounds} rounds",
              file=sys.stderr)
        if not done:
            return 130
    med = statistics.median
    print(f"{'path':<12} {'moves':<7} {'Python new':>11} {'Python cached':>14} "
          f"{'compiled':>11}  {'x new':>6} {'x cached':>9}   (moves/s; ratios: median of rounds)")
    for (path, kind), rows in results.items():
        rows = rows[:done]
        print(f"{path:<12} {kind:<7} {med(a for a, _, _ in rows):>11,.0f} "
              f"{med(b for _, b, _ in rows):>14,.0f} {med(c for _, _, c in rows):>11,.0f}  "
              f"{med(c / a for a, _, c in rows):>5.1f}x {med(c / b for _, b, c in rows):>8.1f}x")
    return 130 if done < args.rounds else 0


if __name__ == "__main__":
    sys.exit(main())

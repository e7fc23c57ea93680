"""Benchmarks of the compiled ``Game``: clone, stepping from Python vs the compiled loop,
bytes per state.

Run as a script (prints the table recorded in bench/RESULTS.md)::

    .venv/bin/python bench/bench_game.py [--matches N]

or under pytest-benchmark: ``.venv/bin/python -m pytest bench/bench_game.py
--benchmark-enable``.

Every stepping loop plays whole matches with uniformly random legal moves (complete move
lists) from seeds 0..N-1; per-step figures are total time / total moves, so the Python loops
and the compiled loop are averaged over the same kind of matches (the random streams differ,
the distributions of states do not).

Takes about 5 s with the default 200 matches.
"""

from __future__ import annotations

import argparse
import statistics
import time

from guandan_fast.game import Game, sizeof_state
from guandan_fast.perft_core import random_playout

_MASK = (1 << 64) - 1


def compiled_loop(matches: int, compact: bool = False) -> tuple[int, float]:
    """Moves and seconds of the compiled loop (generate + apply in C, no Python per move)."""
    games = [Game(seed) for seed in range(matches)]
    t = time.perf_counter()
    steps = 0
    for seed, g in enumerate(games):
        steps += random_playout(g, 10**9, seed=seed, compact=compact)[0]
    return steps, time.perf_counter() - t


def python_fast_path(matches: int, compact: bool = False) -> tuple[int, float]:
    """``num_legal()`` / ``legal_moves_array()`` + ``play_index(i)`` per move from Python."""
    games = [Game(seed) for seed in range(matches)]
    t = time.perf_counter()
    steps = 0
    x = 12345
    for g in games:
        legal = g.legal_moves_array
        play = g.play_index
        while not g.is_over:
            n = legal(compact).shape[0]
            x = (x * 6364136223846793005 + 1442695040888963407) & _MASK
            play((x >> 33) % n, compact)
            steps += 1
    return steps, time.perf_counter() - t


def python_move_objects(matches: int) -> tuple[int, float]:
    """``legal_moves()`` + ``play(Move)`` per move: the plain API with ``Move`` objects."""
    games = [Game(seed) for seed in range(matches)]
    t = time.perf_counter()
    steps = 0
    x = 12345
    for g in games:
        while not g.is_over:
            moves = g.legal_moves()
            x = (x * 6364136223846793005 + 1442695040888963407) & _MASK
            g.play(moves[(x >> 33) % len(moves)])
            steps += 1
    return steps, time.perf_counter() - t


def clone_time(repeat: int = 200_000) -> float:
    """Seconds per ``clone()`` of a mid-hand game."""
    g = Game(1)
    for _ in range(20):
        g.play_index(0)
    clone = g.clone
    best = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(repeat):
            clone()
        best.append((time.perf_counter() - t) / repeat)
    return statistics.median(best)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=200)
    args = ap.parse_args(argv)
    n = args.matches
    print(f"bytes per state (sizeof GameState): {sizeof_state()}")
    print(f"clone(): {clone_time() * 1e9:.0f} ns")
    rows = []
    for name, fn in (("compiled loop (C)", lambda: compiled_loop(n)),
                     ("Python: legal_moves_array + play_index", lambda: python_fast_path(n)),
                     ("Python: legal_moves + play(Move)", lambda: python_move_objects(n)),
                     ("compiled loop (C), compact", lambda: compiled_loop(n, True)),
                     ("Python fast path, compact", lambda: python_fast_path(n, True))):
        steps, secs = fn()
        rows.append((name, steps, secs))
    base = {False: rows[0][2] / rows[0][1], True: rows[3][2] / rows[3][1]}
    print(f"\n{n} matches of uniformly random moves per row")
    print(f"{'loop':42} {'moves':>9} {'s':>7} {'us/move':>8} {'over C':>8}")
    for name, steps, secs in rows:
        per = secs / steps
        ref = base["compact" in name]
        print(f"{name:42} {steps:>9} {secs:>7.2f} {per * 1e6:>8.2f} {(per - ref) * 1e6:>+8.2f}")


# -- pytest-benchmark entry points -------------------------------------------------------------

def test_bench_clone(benchmark):
    g = Game(1)
    benchmark(g.clone)


def test_bench_clone_reference(benchmark):
    from guandan_fast.reference import Game as RefGame

    benchmark(RefGame(1).clone)


def _one_match_steps(game_cls, seed: int) -> int:
    """A whole match of the first legal move each step (``legal_moves()`` + ``play``)."""
    g = game_cls(seed)
    steps = 0
    while not g.is_over:
        g.play(g.legal_moves()[0])
        steps += 1
    return steps


def test_bench_match_first_move_fast(benchmark):
    benchmark.pedantic(_one_match_steps, args=(Game, 5), rounds=5)


def test_bench_match_first_move_reference(benchmark):
    from guandan_fast.reference import Game as RefGame

    benchmark.pedantic(_one_match_steps, args=(RefGame, 5), rounds=1)


def test_bench_step_fast_path(benchmark):
    benchmark.pedantic(python_fast_path, args=(20,), rounds=3)


def test_bench_compiled_loop(benchmark):
    benchmark.pedantic(compiled_loop, args=(20,), rounds=3)


if __name__ == "__main__":
    main()

"""Ctrl-C stops the long compiled loops (perft, playouts, benchmarks, simulation, the solver)
within a second, in the API and from a real SIGINT to a process."""

import pickle
import signal
import subprocess
import sys
import threading
import time

import pytest

import guandan_fast as gf
from guandan_fast import Hand
from guandan_fast.game import Game
from guandan_fast.perft_core import perft_game, random_playout
from guandan_fast import bench_hooks
from guandan_fast.solve import minimax, solve


# ---------------------------------------------------------------------------------------------
# Ctrl-C stops long compiled loops


def _interrupt_after(seconds):
    """A real SIGINT to the main thread after ``seconds`` (as Ctrl-C sends; it also wakes a
    main thread blocked in Thread.join, which _thread.interrupt_main does not)."""
    main = threading.main_thread().ident
    t = threading.Timer(seconds, signal.pthread_kill, (main, signal.SIGINT))
    t.start()
    return t


def _play_phase(g):
    """A clone of ``g`` in its play phase: the whole first hand, far beyond any solve."""
    g = g.clone()
    while g.phase != "play":
        g.play_index(0)
    return g


@pytest.mark.parametrize("call", [
    lambda g: perft_game(g, 7),
    lambda g: perft_game(g, 7, per_move=True),
    lambda g: [random_playout(g, 10**9, seed=s) for s in range(10**9)],
    lambda g: bench_hooks.time_generate(Hand(g.hand(0)), 2, repeat=10**12),
    lambda g: gf.simulate(matches=10**9),
    lambda g: gf.simulate(matches=10**9, threads=2),
    lambda g: solve(_play_phase(g), max_nodes=10**15),
    lambda g: minimax(_play_phase(g), max_nodes=10**15),
], ids=["perft", "perft_per_move", "random_playout", "time_generate", "simulate",
        "simulate_threads", "solve", "minimax"])
def test_ctrl_c_stops_long_compiled_loops_within_a_second(call):
    g = Game(seed=4)
    before = pickle.dumps(g)
    timer = _interrupt_after(0.3)
    t0 = time.perf_counter()
    try:
        with pytest.raises(KeyboardInterrupt):
            call(g)
    finally:
        timer.cancel()
    assert time.perf_counter() - t0 < 1.3
    # Nothing half-done: the game is as before and the engine works on.
    assert pickle.dumps(g) == before
    assert perft_game(g, 2) == perft_game(Game(seed=4), 2)


def test_ctrl_c_from_a_real_sigint_ends_a_perft_process():
    code = ("import sys; from guandan_fast.perft import perft; print('go', flush=True); "
            "perft(0, 8)")
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "go"
        time.sleep(0.5)
        t0 = time.perf_counter()
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=10)
        elapsed = time.perf_counter() - t0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert "KeyboardInterrupt" in err and p.returncode != 0
    assert elapsed < 2.0


def test_perft_estimate_warns_about_long_runs():
    from guandan_fast.perft import estimate_seconds

    fast1 = estimate_seconds(0, 1)
    assert 0 <= fast1 < 1
    # a level deeper costs about the branching factor (~30 moves a position here); the
    # seconds themselves depend on the machine (40-100 s for this depth-3 run so far)
    deep = estimate_seconds(0, 3, per_move=True, reference=True)
    assert deep > 15 * estimate_seconds(0, 2, per_move=True, reference=True)
    assert deep > 10
    assert estimate_seconds(0, 3, reference=True) > estimate_seconds(0, 3, reference=False)

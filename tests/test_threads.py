"""Threads: the nogil sections of the compiled core work on private copies, so threads that share
a game or a hand never see each other's state."""

import threading
import time


from guandan_fast import Hand, Move, Rules
from guandan_fast.game import Game
from guandan_fast.perft_core import perft_game
from guandan_fast import bench_hooks
from guandan_fast.reference import movegen as ref_movegen


# ---------------------------------------------------------------------------------------------
# Threads: nogil sections work on private copies


def test_perft_game_reads_a_private_copy_while_another_thread_plays():
    g = Game(seed=11)
    # The states the game will pass through, and the 2-ply count of each.
    probe = g.clone()
    expected = {perft_game(probe, 2)}
    moves = []
    for _ in range(40):
        moves.append(len(probe.legal_moves()) // 2)
        probe.play_index(moves[-1])
        expected.add(perft_game(probe, 2))
    results, errors = [], []
    done = threading.Event()

    def counter():
        try:
            while not done.is_set():
                results.append(perft_game(g, 2))
        except BaseException as exc:   # reported below
            errors.append(exc)

    t = threading.Thread(target=counter)
    t.start()
    try:
        for i in moves:
            time.sleep(0.002)
            g.play_index(i)
    finally:
        done.set()
        t.join(timeout=60)
    assert not errors and results
    assert set(results) <= expected


def test_hand_time_generate_leaves_other_threads_results_alone():
    h = Hand("S3 S4 S5 S6 S7 H8 H9 HT HJ HQ C5 C5 D5 SB HR HR")
    lasts = [None, Move("Single", "4", "D4"), Move("Pair", "3", "D3 D3"),
             Move("Straight", "3", "D3 D4 D5 D6 D7")]
    expected = [sorted(ref_movegen.legal_moves(h.cards, 5, last=x), key=Move.sort_key)
                for x in lasts]
    errors = []
    done = threading.Event()

    def timer():
        try:
            while not done.is_set():
                bench_hooks.time_generate(h, 5, last=Move("Single", "4", "D4"), repeat=300)
                bench_hooks.generate(h, 9)
        except BaseException as exc:
            errors.append(exc)

    ts = [threading.Thread(target=timer) for _ in range(2)]
    for t in ts:
        t.start()
    try:
        for _ in range(300):
            for x, want in zip(lasts, expected):
                assert h.legal_moves(5, last=x).sorted() == want
    finally:
        done.set()
        for t in ts:
            t.join(timeout=60)
    assert not errors


def test_threads_sharing_a_hand_never_mix_rules_and_last_plays():
    h = Hand("S3 S4 S5 S6 S7 H8 H9 HT HJ HQ C5 C5 D5 H2 SB HR")
    calls = [(Rules(), None), (Rules(sf_as_straight=False), Move("Straight", "3", "D3 D4 D5 D6 S7")),
             (Rules(fullhouse_joker_pair=False), Move("ThreeWithTwo", "4", "D4 D4 C4 S3 S3")),
             (Rules(), ["Pair", "4", ["D4", "D4"]])]
    expected = [sorted(ref_movegen.legal_moves(h.cards, 9, last=x, rules=r), key=Move.sort_key)
                for r, x in calls]
    assert len({len(e) for e in expected}) == len(calls)   # four different answers
    errors = []

    def worker(k):
        try:
            for i in range(400):
                r, x = calls[(i + k) % len(calls)]
                got = h.legal_moves(9, last=x, rules=r).sorted()
                assert got == expected[(i + k) % len(calls)], (k, i)
        except BaseException as exc:
            errors.append(exc)

    ts = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=120)
    assert not errors, errors[:1]

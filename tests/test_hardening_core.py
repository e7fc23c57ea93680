"""Hardening of the compiled core (issue 13): large hands, threads, pickling, Ctrl-C, corrupted
pickles, false joker labels, garbage move words, exception types. Each test is named after what
it guards; where both engines have the API, both are run."""

import copy
import multiprocessing
import pickle
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

import numpy as np
import pytest

import guandan_fast as gf
from guandan_fast import Hand, Move, PASS, Rules, movegen
from guandan_fast import codec as hand_module
from guandan_fast.cards import FULL_DECK
from guandan_fast.game import Game, _restore
from guandan_fast.perft_core import perft_game, random_playout
from guandan_fast import bench_hooks
from guandan_fast.reference import Game as RefGame
from guandan_fast.reference import movegen as ref_movegen
from guandan_fast.reference import combos as ref_combos

ENGINES = [RefGame, Game]
ENGINE_IDS = ["reference", "compiled"]

# A 72-card seat: one of every card, the second copies of spades and hearts 2..10, two jokers.
# It has about 81,000 legal moves on lead, far beyond the 32,768 of a dealt hand's buffer.
_R = "23456789TJQKA"
BIG = ([s + r for s in "SHCD" for r in _R] + [s + r for s in "SH" for r in "23456789T"]
       + ["SB", "HR"])


def big_hands():
    rest = sorted((Counter(FULL_DECK) - Counter(BIG)).elements())
    return [rest[0:12], rest[12:24], rest[24:36], list(BIG)]


# ---------------------------------------------------------------------------------------------
# 1. Large uneven hands: every buffer is sized from the hand


def test_large_hand_legal_moves_match_the_reference():
    hands = big_hands()
    fast = Game.setup(hands, leader=3)
    ref = RefGame.setup(hands, leader=3)
    ml = fast.legal_moves()
    assert len(ml) > 32768
    assert fast.num_legal() == len(ml)
    assert ml == ref.legal_moves()
    assert set(fast.legal_moves(compact=True)) <= set(ml)
    assert fast.num_legal(compact=True) == len(fast.legal_moves(compact=True))


def test_large_hand_play_index_perft_and_playout():
    hands = big_hands()
    g = Game.setup(hands, leader=3)
    n = g.num_legal()
    assert perft_game(g, 1) == n
    per = perft_game(g, 1, per_move=True)
    assert len(per) == n and set(per.values()) == {1}
    # The last move (past any fixed buffer) through the uncached path, then the cached one.
    c = g.clone()
    last = g.legal_moves()[n - 1]
    c.play_index(n - 1)
    assert c.history == [(3, last)]
    c2 = g.clone()
    c2.legal_moves()
    c2.play_index(n - 1)
    assert c2 == c
    steps, winner = random_playout(g, 10**6, seed=5)
    assert steps > 0 and winner in (0, 1)
    assert g.history == [] and g.num_legal() == n   # the game itself is unchanged
    # A 2-ply count: the other seats answer each of the big seat's leads.
    assert perft_game(g, 2) == sum(perft_game(_after(g, i), 1) for i in range(n))


def _after(g, i):
    c = g.clone()
    c.play_index(i)
    return c


@pytest.mark.parametrize("compact", [False, True])
def test_large_hand_hand_apis(compact):
    h = Hand(BIG)
    n = h.count_moves(2, compact=compact)
    assert bench_hooks.generate(h, 2, compact=compact) == n == len(h.legal_moves(2, compact=compact))
    assert gf.count_moves(BIG, 2, compact=compact) == n
    assert len(gf.legal_moves(BIG, 2, compact=compact)) == n
    assert bench_hooks.time_generate(h, 2, compact=compact, repeat=2) > 0
    if not compact:
        assert n > 32768


def test_large_hand_bot_choose_sees_every_move():
    from guandan_fast.bots import choose

    m = choose("random", BIG, level=2, seed=3)
    assert m in gf.legal_moves(BIG, 2)


# ---------------------------------------------------------------------------------------------
# 2. Threads: nogil sections work on private copies


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


# ---------------------------------------------------------------------------------------------
# 3. Everything a user gets back pickles and copies


def _roundtrips(x):
    return [pickle.loads(pickle.dumps(x, protocol=p)) for p in range(2, pickle.HIGHEST_PROTOCOL + 1)] \
        + [copy.copy(x), copy.deepcopy(x)]


def test_moves_pickle_and_copy_and_pass_stays_pass():
    for m in [Move("Single", "R", ["HR"]), Move("Bomb", "JOKER", "SB SB HR HR"),
              Move("Straight", "A", "SA H2 S3 D4 C5"), Move("tribute", "tribute", ["HA"])]:
        for c in _roundtrips(m):
            assert c == m and c.words == m.words and hash(c) == hash(m)
    for c in _roundtrips(PASS):
        assert c is PASS
    with pytest.raises(AttributeError):
        Move("Single", "3", "S3").rank = "4"


@pytest.mark.parametrize("cls", ENGINES, ids=ENGINE_IDS)
def test_games_and_what_they_return_pickle_and_copy(cls):
    g = cls(seed=3)
    for _ in range(30):
        g.play(g.legal_moves()[0])
    returned = [g.legal_moves(), g.history, g.observation(1), g.results, g.hand(2)]
    for x in returned:
        for c in _roundtrips(x):
            assert c == x
    n = len(g.history)
    for c in _roundtrips(g):
        assert c == g and c is not g
        assert c.legal_moves() == g.legal_moves()
        c.play(c.legal_moves()[-1])          # the copy is independent
        assert c != g and len(g.history) == n
    for c in _roundtrips(Hand("S3 HR HR")):
        assert c == Hand("S3 HR HR")


def test_movelist_pickles_and_its_array_is_read_only():
    ml = gf.legal_moves("S3 S3 H7 SB HR", 7, last=Move("Single", "2", "S2"))
    for c in _roundtrips(ml):
        assert c == ml and list(c) == list(ml)
        assert c.array.tolist() == ml.array.tolist()
    a = ml.array
    with pytest.raises(ValueError):
        a[0, 0] = 1
    with pytest.raises(ValueError):
        a.flags.writeable = True
    assert ml.array.tolist() == [list(m.words) for m in ml]


def test_simulation_result_pickles():
    r = gf.simulate(matches=2, seed=1)
    for c in _roundtrips(r):
        assert c == r


def _moves_of_seed(seed):
    g = Game(seed=seed)
    return g.legal_moves()[:3], g.legal_moves(), PASS


def test_multiprocessing_pool_returns_moves():
    pool = multiprocessing.get_context("fork").Pool(2)
    try:
        out = pool.map_async(_moves_of_seed, [1, 2, 3]).get(timeout=120)
        pool.close()
    finally:
        pool.terminate()
        pool.join()  # no child outlives the test
    for seed, (first, ml, p) in zip([1, 2, 3], out):
        g = Game(seed=seed)
        assert first == g.legal_moves()[:3] and ml == g.legal_moves() and p is PASS


# ---------------------------------------------------------------------------------------------
# 4. Ctrl-C stops long compiled loops


def _interrupt_after(seconds):
    """A real SIGINT to the main thread after ``seconds`` (as Ctrl-C sends; it also wakes a
    main thread blocked in Thread.join, which _thread.interrupt_main does not)."""
    main = threading.main_thread().ident
    t = threading.Timer(seconds, signal.pthread_kill, (main, signal.SIGINT))
    t.start()
    return t


@pytest.mark.parametrize("call", [
    lambda g: perft_game(g, 7),
    lambda g: perft_game(g, 7, per_move=True),
    lambda g: [random_playout(g, 10**9, seed=s) for s in range(10**9)],
    lambda g: bench_hooks.time_generate(Hand(g.hand(0)), 2, repeat=10**12),
    lambda g: gf.simulate(matches=10**9),
    lambda g: gf.simulate(matches=10**9, threads=2),
], ids=["perft", "perft_per_move", "random_playout", "time_generate", "simulate",
        "simulate_threads"])
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
    assert estimate_seconds(0, 3, per_move=True, reference=True) > 60
    assert estimate_seconds(0, 3, reference=True) > estimate_seconds(0, 3, reference=False)


# ---------------------------------------------------------------------------------------------
# 5. A corrupted Game pickle raises ValueError


def _games_to_corrupt():
    a = Game(seed=8)
    for _ in range(300):          # into a later hand, through tribute and back
        if a.is_over:
            break
        a.play_index(a.num_legal() // 3)
    hands = big_hands()
    b = Game.setup(hands, leader=3)
    b.play_index(0)
    c = Game.setup([h for h in hands], previous_finish=[0, 1, 2, 3], levels=(3, 2))
    return [a, b, c, Game(seed=1)]


def test_corrupted_game_pickle_state_bytes_raise_value_error():
    rnd = random.Random(0)
    for g in _games_to_corrupt():
        func, args = g.__reduce__()
        assert func(*args) == g
        state = args[0]
        for _ in range(150):
            b = bytearray(state)
            i = rnd.randrange(len(b))
            b[i] ^= 1 << rnd.randrange(8)
            with pytest.raises(ValueError):
                func(bytes(b), *args[1:])


def test_corrupted_game_pickle_fields_raise_value_error():
    rnd = random.Random(1)
    g = _games_to_corrupt()[0]
    _, (state, seed, rules, steps, results, origin) = g.__reduce__()
    bad = [
        (state[:-1], seed, rules, steps, results, origin),
        (state, seed + 1, rules, steps, results, origin),
        (state, "x", rules, steps, results, origin),
        (state, seed, Rules(anti_tribute=False), steps, results, origin),
        (state, seed, None, steps, results, origin),
        (state, seed, rules, steps[:-1], results, origin),
        (state, seed, rules, steps + steps[-1:], results, origin),
        (state, seed, rules, steps, results[:-1], origin),
        (state, seed, rules, steps, results, {"hands": 1}),
        (state, seed, rules, list(steps), results, origin),
    ]
    for _ in range(100):
        s = list(steps)
        i = rnd.randrange(len(s))
        lo, hi, hand, seat = s[i]
        j = rnd.randrange(4)
        field = [lo, hi, hand, seat]
        field[j] = field[j] ^ (1 << rnd.randrange(64 if j < 2 else 3))
        s[i] = tuple(field)
        bad.append((state, seed, rules, tuple(s), results, origin))
    for args in bad:
        with pytest.raises(ValueError):
            _restore(*args)


_FUZZ_PICKLE = r"""
import pickle, random, sys
from guandan_fast.game import Game
g = Game(seed=8)
for _ in range(250):
    g.play_index(g.num_legal() // 3)
data = pickle.dumps(g)
rnd = random.Random(int(sys.argv[1]))
ok = bad = caught = 0
for _ in range(400):
    b = bytearray(data)
    for _ in range(rnd.randrange(1, 4)):
        b[rnd.randrange(len(b))] = rnd.randrange(256)
    try:
        c = pickle.loads(bytes(b))
    except ValueError as exc:    # _restore's check (or the unpickler's own ValueErrors)
        bad += 1
        caught += str(exc).startswith("corrupted Game pickle")
        continue
    except Exception:            # the pickle's framing itself is broken
        bad += 1
        continue
    if isinstance(c, Game):
        while not c.is_over:     # a restored game plays on to the end
            c.play_index(c.num_legal() - 1)
    ok += 1
print(ok, bad, caught)
"""


def test_fuzzed_game_pickles_never_crash_the_interpreter():
    r = subprocess.run([sys.executable, "-c", _FUZZ_PICKLE, "5"], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    ok, bad, caught = map(int, r.stdout.split())
    assert ok + bad == 400 and caught > 20   # many corruptions reach _restore's check


# ---------------------------------------------------------------------------------------------
# 6. False joker labels are rejected by every compiled entry, as by the reference

FALSE_LABELS = [Move("Single", "R", ["SB"]), Move("Single", "B", ["HR"]),
                Move("Single", "JOKER", ["HR"]), Move("Pair", "R", "SB SB"),
                Move("Pair", "B", "HR HR"), Move("Bomb", "R", "SB SB HR HR"),
                Move("Bomb", "B", "SB SB HR HR")]


@pytest.mark.parametrize("m", FALSE_LABELS, ids=str)
def test_false_joker_labels_are_rejected_by_the_compiled_entries(m):
    hand = "SB SB HR HR S3"
    for beats in (movegen.beats, ref_combos.beats):
        with pytest.raises(ValueError):
            beats(m, None, 2)
        with pytest.raises(ValueError):
            beats(Move("Single", "3", "S3"), m, 2)
    for lm in (movegen.legal_moves, ref_movegen.legal_moves, gf.count_moves):
        with pytest.raises(ValueError):
            lm(hand, 2, last=m)
    h = Hand(hand)
    for method in (h.legal_moves, h.count_moves):
        with pytest.raises(ValueError):
            method(2, last=m)
    for hook in (bench_hooks.generate, bench_hooks.time_generate):
        with pytest.raises(ValueError):
            hook(h, 2, last=m)
    assert m not in gf.legal_moves(hand, 2) and m.to_platform() not in gf.legal_moves(hand, 2)
    hands = [["SB", "SB", "HR", "HR"], ["S4"], ["S5"], []]
    hands[3] = sorted((Counter(FULL_DECK) - Counter(c for h in hands for c in h)).elements())
    for cls in ENGINES:
        g = cls.setup(hands, leader=0)
        for move in (m, m.to_platform()):
            with pytest.raises(ValueError):
                g.play(move)
            assert g.history == [] and g.current_player == 0


def test_forged_joker_label_in_a_record_is_rejected():
    import json

    hands = [["SB", "S4"], ["S5"], ["S6"], []]
    hands[3] = sorted((Counter(FULL_DECK) - Counter(c for h in hands for c in h)).elements())
    g = Game.setup(hands, leader=0)
    g.play(Move("Single", "B", ["SB"]))
    lines = g.to_record()
    assert Game.from_record(lines) == g
    text = "\n".join(lines)
    assert text.count('"B", ["SB"]') == 1
    forged = text.replace('"B", ["SB"]', '"R", ["SB"]').splitlines()
    json.loads(forged[-1])   # still a well-formed record line
    with pytest.raises(ValueError):
        Game.from_record(forged)


_LABELS = list("23456789TJQKA") + ["B", "R", "JOKER"]
_POOL = ["S3", "H3", "S4", "S5", "S6", "S7", "D7", "H2", "SB", "SB", "HR", "HR", "SA", "CA"]


def _random_move(rnd):
    t = rnd.choice(["Single", "Pair", "Trips", "ThreeWithTwo", "Straight", "Bomb"])
    n = {"Single": 1, "Pair": 2, "Trips": 3, "ThreeWithTwo": 5, "Straight": 5, "Bomb": 4}[t]
    return Move(t, rnd.choice(_LABELS), rnd.sample(_POOL, n))  # at most 2 copies of a card


def _outcome(f):
    try:
        r = f()
    except (ValueError, TypeError) as exc:
        return ("reject", type(exc).__name__ == "IllegalMoveError")
    if isinstance(r, (list, movegen.MoveList)):
        return ("ok", sorted(r, key=Move.sort_key))
    return ("ok", r)


def test_fuzz_compiled_and_reference_accept_the_same_moves():
    rnd = random.Random(13)
    hand = "SB SB HR HR S3 H3 S4 S5 S6 S7 H2 SA CA D7"
    h = Hand(hand)
    for _ in range(400):
        m = _random_move(rnd)
        last = _random_move(rnd) if rnd.random() < 0.5 else None
        level = rnd.choice([2, 7, 14])
        assert _outcome(lambda: movegen.beats(m, last, level)) == \
            _outcome(lambda: ref_combos.beats(m, last, level)), (m, last, level)
        assert _outcome(lambda: movegen.legal_moves(hand, level, last=m)) == \
            _outcome(lambda: ref_movegen.legal_moves(hand, level, last=m)), (m, level)
        ref = _outcome(lambda: ref_movegen.legal_moves(hand, level, last=m))
        cnt = _outcome(lambda: gf.count_moves(hand, level, last=m))
        assert cnt[0] == ref[0] and (cnt[0] == "reject" or cnt[1] == len(ref[1]))
        assert _outcome(lambda: h.legal_moves(level, last=m)) == ref
    # Game.play: compiled and reference agree on acceptance and on what is recorded.
    hands = [hand.split(), ["D3"], ["D4"], []]
    hands[3] = sorted((Counter(FULL_DECK) - Counter(c for x in hands for c in x)).elements())
    fast, ref = Game.setup(hands, leader=0), RefGame.setup(hands, leader=0)
    for _ in range(300):
        m = _random_move(rnd) if rnd.random() < 0.8 else rnd.choice(fast.legal_moves())
        a = _outcome(lambda: fast.play(m))
        b = _outcome(lambda: ref.play(m))
        assert a == b, m
        assert fast.history == ref.history
        if fast.is_over:
            break


# ---------------------------------------------------------------------------------------------
# 7. Move.from_words rejects garbage words

@pytest.mark.parametrize("words, what", [
    ((0, 12 << 56), "type code 12"),
    ((0, 15 << 56), "type code 15"),
    ((5, 0), "PASS"),
    ((0, 3 << 60), "PASS"),
    ((0b010101, (1 << 56) | (3 << 60)), "a Single cannot have 3 cards"),
    ((0, (1 << 56) | (3 << 60)), "a Single cannot have 0 cards"),
    ((1 << 60, (1 << 56) | (3 << 60)), "beyond"),
    ((3, (2 << 56) | (2 << 60)), "count 3"),
    ((1 << 4, (1 << 56) | (15 << 60)), "joker"),
    ((1 << 4, (1 << 56) | (1 << 60)), "sequences"),
    ((1 << 4, (1 << 56) | (0 << 60)), "rank code 0"),
    ((1 << 4, (10 << 56) | (3 << 60)), "rank code 0, not 3"),
])
def test_from_words_rejects_garbage_words(words, what):
    with pytest.raises(ValueError, match=what):
        Move.from_words(*words)
    with pytest.raises(ValueError, match=what):   # the compiled decoder checks the same
        hand_module.move(*words)


def test_from_words_round_trips_or_rejects_random_words():
    rnd = random.Random(7)
    accepted = 0
    for _ in range(3000):
        m = _random_move(rnd)
        lo, hi = m.words
        if rnd.random() < 0.7:
            if rnd.random() < 0.5:
                lo ^= 1 << rnd.randrange(64)
            else:
                hi ^= 1 << rnd.randrange(64)
        try:
            d = Move.from_words(lo, hi)
        except ValueError:
            continue
        accepted += 1
        assert d.words == (lo, hi)
        assert Move(d.type, d.rank, d.cards).words == (lo, hi)
        assert hand_module.move(lo, hi) == d
    assert accepted > 100
    assert Move.from_words(np.uint64(0), np.uint64(0)) is PASS


# ---------------------------------------------------------------------------------------------
# 8. Exception types that fit; numpy integers; signatures and docstrings

HUGE = 10**30


@pytest.mark.parametrize("cls", ENGINES, ids=ENGINE_IDS)
def test_huge_integers_raise_value_error(cls):
    g = cls(seed=0)
    for call in (lambda: g.hand(HUGE), lambda: g.observation(-HUGE),
                 lambda: g.play(g.legal_moves()[0], seat=HUGE)):
        with pytest.raises(ValueError):
            call()
    with pytest.raises(ValueError):
        cls.setup(big_hands(), leader=HUGE)


def test_huge_integers_raise_value_error_in_the_compiled_api():
    g = Game(seed=0)
    for call in (lambda: g.play_index(HUGE), lambda: g.play_index(-HUGE),
                 lambda: perft_game(g, HUGE), lambda: random_playout(g, -HUGE),
                 lambda: gf.legal_moves("S3", HUGE), lambda: gf.count_moves("S3", -HUGE),
                 lambda: Hand("S3").legal_moves(HUGE),
                 lambda: bench_hooks.time_generate(Hand("S3"), 2, repeat=HUGE),
                 lambda: gf.simulate(matches=HUGE), lambda: g.play_words(HUGE, 0)):
        with pytest.raises((ValueError, IndexError)) as info:
            call()
        assert not isinstance(info.value, OverflowError)
    assert g.history == []


def test_move_comparisons_with_other_types_raise_type_error():
    m = Move("Single", "3", "S3")
    for op in (lambda: m < 3, lambda: m <= "x", lambda: m > None, lambda: m >= 3.0):
        with pytest.raises(TypeError):
            op()
    assert Move("Single", "3", "S3") < Move("Single", "4", "S4")
    assert m != 3 and not (m == "S3")


def test_movelist_contains_anything_without_raising():
    ml = gf.legal_moves("S3 SB", 2)
    assert 5 not in ml and "S3" not in ml and None not in ml and ["x"] not in ml
    assert ["Single", "Z", ["S3"]] not in ml and Move("Single", "R", ["SB"]) not in ml
    assert Move("Single", "B", ["SB"]) in ml and ml.count(5) == 0
    with pytest.raises(ValueError):
        ml.index(5)


@pytest.mark.parametrize("cls", ENGINES, ids=ENGINE_IDS)
def test_numpy_integers_are_accepted_as_ints(cls):
    g = cls(seed=np.int64(3))
    assert g == cls(seed=3) if cls is Game else g.hand(0) == cls(seed=3).hand(0)
    assert g.hand(np.int8(1)) == g.hand(1)
    obs = g.observation(np.int64(2))
    assert obs["seat"] == 2 and type(obs["seat"]) is int
    g.play(g.legal_moves()[0], seat=np.int32(g.current_player))
    assert len(g.history) == 1


def test_numpy_integers_are_accepted_by_the_compiled_api():
    g = Game(seed=np.uint64(5))
    g.play_index(np.int64(0))
    assert perft_game(g, np.int16(2)) == perft_game(g, 2)
    assert random_playout(g, np.int64(50), seed=np.uint64(1)) == random_playout(g, 50, seed=1)
    assert gf.legal_moves("S3 S4", np.int64(5)) == gf.legal_moves("S3 S4", 5)
    assert gf.count_moves("S3 S4", np.int32(5)) == 2
    assert Hand("S3 S4").count_moves(np.int64(5)) == 2
    assert bench_hooks.time_generate(Hand("S3 S4"), np.int64(5), repeat=np.int64(3)) >= 0
    r = gf.simulate(matches=np.int64(2), seed=np.int64(1), threads=np.int8(1))
    assert r == gf.simulate(matches=2, seed=1)


def test_help_shows_signatures_and_every_public_property_has_a_docstring():
    import inspect
    import pydoc

    text = pydoc.render_doc(gf.Game, renderer=pydoc.plaintext)
    assert "Game(seed=None, rules=Rules())" in text
    assert "setup(hands, *, levels=(2, 2), declarer=None" in text
    assert "play(self, move, seat=None)" in text
    assert "legal_moves(self, level, last=None" in pydoc.render_doc(Hand, renderer=pydoc.plaintext)
    assert str(inspect.signature(Game.play_index)) == "(self, index, compact=False)"
    assert str(inspect.signature(gf.legal_moves)).startswith("(hand, level, last=None")
    for cls in (Game, Hand, movegen.MoveList):
        for name, attr in vars(cls).items():
            if isinstance(attr, property) or type(attr).__name__ == "getset_descriptor":
                if not name.startswith("_"):
                    assert attr.__doc__, f"{cls.__name__}.{name} has no docstring"


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

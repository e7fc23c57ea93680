"""Everything a user gets back pickles and copies; a corrupted or fuzzed ``Game`` pickle raises
``ValueError`` and never crashes the interpreter."""

import copy
import multiprocessing
import pickle
import random
import subprocess
import sys

import pytest

import guandan_fast as gf
from guandan_fast import Hand, Move, PASS, Rules
from guandan_fast.game import Game, _restore
from helpers import ENGINES, ENGINE_IDS, big_hands


# ---------------------------------------------------------------------------------------------
# Everything a user gets back pickles and copies


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
# A corrupted Game pickle raises ValueError


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


def test_every_named_tuple_type_of_the_package_pickles():
    # A namedtuple made in a compiled module took importlib._bootstrap for its module (pickle
    # then fails to find it): each carries its own module, and its values round-trip.
    import importlib
    import pkgutil

    found = {}
    for info in pkgutil.iter_modules(gf.__path__, "guandan_fast."):
        if info.name.endswith("__main__"):
            continue
        mod = importlib.import_module(info.name)
        for value in vars(mod).values():
            if isinstance(value, type) and issubclass(value, tuple) and hasattr(value, "_fields"):
                found[value.__qualname__] = value
    assert {"ActionInfo", "Batch"} <= set(found)
    for name, cls in found.items():
        assert cls.__module__.startswith("guandan_fast"), (name, cls.__module__)
        value = cls(*range(len(cls._fields)))
        assert pickle.loads(pickle.dumps(value)) == value and \
            type(pickle.loads(pickle.dumps(value))) is cls
    from guandan_fast.actions import action_info
    info = action_info(1)
    assert pickle.loads(pickle.dumps(info)) == info

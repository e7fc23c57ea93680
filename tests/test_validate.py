"""The shared input checks (python/guandan_fast/validate.py): both engines take the form of
their input from there, so the same bad argument gets the same exception and message from the
compiled and the reference ``Game``."""
import numpy as np
import pytest

from guandan_fast import validate
from guandan_fast.cards import FULL_DECK
from guandan_fast.game import Game as Fast
from guandan_fast.reference.game import Game as Ref
from guandan_fast.rules import Rules


def _hands():
    hands = [["D3"], ["S4"], ["S5"], list(FULL_DECK)]
    for h in hands[:3]:
        hands[3].remove(h[0])
    return hands


BAD_SETUPS = [
    dict(hands="S3 S4"),
    dict(hands=[["SB"]] * 4),
    dict(hands=[[], ["D3"], ["S4"], list(FULL_DECK)]),
    dict(levels=(2,)),
    dict(levels=(2, 15)),
    dict(levels=(2, "Z")),
    dict(levels=(5, 2)),                                # a first hand is played at (2, 2)
    dict(declarer=2, levels=(5, 2)),
    dict(declarer=True),
    dict(leader=4),
    dict(leader="0"),
    dict(previous_finish=[0, 0, 1]),
    dict(previous_finish=[0, 1]),
    dict(previous_finish="0123"),
    dict(previous_finish=[0, 1, 2], declarer=1),
    dict(previous_finish=[0, 1, 2], leader=1),
    dict(rules="jiangsu"),
]


@pytest.mark.parametrize("args", BAD_SETUPS, ids=[str(a) for a in BAD_SETUPS])
def test_both_engines_reject_a_bad_setup_alike(args):
    args = dict(args)
    hands = args.pop("hands", None) or _hands()
    errors = []
    for engine in (Fast, Ref):
        with pytest.raises((TypeError, ValueError)) as info:
            engine.setup(hands, **args)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]


def test_both_engines_accept_numpy_integers_alike():
    args = dict(levels=(np.int64(5), np.int8(2)), previous_finish=[np.int32(0), 1, 2])
    f, r = Fast.setup(_hands(), **args), Ref.setup(_hands(), **args)
    assert (f.level, f.levels, f.declarer, f.phase) == (r.level, r.levels, r.declarer, r.phase)
    assert (f.level, f.declarer) == (5, 0)


def test_checks():
    assert validate.check_finish([2, 0]) == [2, 0]                # a double-down
    assert validate.check_finish([1, 2, 3]) == [1, 2, 3, 0]
    assert validate.check_level("10") == validate.check_level(np.uint8(10)) == 10
    assert validate.check_seat(np.int16(3)) == 3
    with pytest.raises(ValueError, match="repeat must be >= 1, got 0"):
        validate.check_count(0, "repeat", 1)
    with pytest.raises(ValueError, match="huge must be 0..3"):
        validate.check_seat(10**30, "huge")                     # no OverflowError
    with pytest.raises(TypeError, match="seat must be an int 0..3, not float"):
        validate.check_seat(1.0)
    with pytest.raises(TypeError, match="rules must be a Rules instance, not dict"):
        validate.check_rules({})
    assert validate.check_rules(Rules()) == Rules()
    with pytest.raises(ValueError, match="last: a platform action is"):
        validate.check_platform_form(["Pair", "9"], "last")
    with pytest.raises(ValueError, match="cards of a platform action are a list"):
        validate.check_platform_form(["Pair", "9", "S9 C9"])
    validate.check_platform_form(["PASS", "PASS", "PASS"])      # PASS: Move.from_platform's

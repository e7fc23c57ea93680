"""Legal moves in the platform's form, made in compiled code (``MoveList.to_platform`` and
``MoveList.to_platform_json``): the same lists and the same JSON text as the Python path
(``Move.to_platform`` of each move, ``json.dumps``) on random hands at every level with
wild cards and jokers, leads and follows, complete and compact, tribute and back moves of the
``Game``; the same moves as the reference engine; bad arguments refused."""

import json
import random

import pytest

from guandan_fast import PASS, Game, Hand, Move, legal_moves
from guandan_fast import reference as ref
from guandan_fast.cards import FULL_DECK
from helpers import wild_of


def python_path(ml, pass_first=False):
    """Today's Python path: a Move per entry, then its platform list."""
    actions = [m.to_platform() for m in ml]
    if pass_first:
        actions = ([a for a in actions if a[0] == "PASS"]
                   + [a for a in actions if a[0] != "PASS"])
    return actions


def check(ml):
    for pass_first in (False, True):
        expect = python_path(ml, pass_first)
        assert ml.to_platform(pass_first=pass_first) == expect
        assert ml.to_platform_json(pass_first=pass_first) == json.dumps(expect)


def random_hand(rng, n, level):
    """n cards, with extra wild cards and jokers mixed in half the time."""
    pool = list(FULL_DECK)
    rng.shuffle(pool)
    cards = pool[:n]
    if rng.random() < 0.5:
        extra = [wild_of(level)] * rng.randint(1, 2) + rng.sample(["SB", "SB", "HR", "HR"], 2)
        cards = (extra + [c for c in cards if c not in extra])[:n]
    return cards


def test_equal_to_the_python_path_on_random_hands_leads_and_follows():
    rng = random.Random(7)
    for case in range(300):
        level = rng.randint(2, 14)
        hand = Hand(random_hand(rng, rng.choice((5, 10, 18, 27)), level))
        leads = hand.legal_moves(level)
        check(leads)
        check(hand.legal_moves(level, compact=True))
        # follows: against a play some other hand can lead
        other = legal_moves(random_hand(rng, 27, level), level)
        last = other[rng.randrange(len(other))]
        follows = hand.legal_moves(level, last=last)
        assert follows[-1] == PASS
        check(follows)


def test_every_label_and_every_type_comes_out_as_the_python_path_writes_it():
    # the jokers' B, R and JOKER, a low-ace straight ('A'), a straight flush, the wild heart
    hand = Hand("SB SB HR HR SA S2 S3 S4 S5 H7 H7 C8 D8 S8 H8 D9 C9")
    ml = hand.legal_moves(7)
    labels = {(a[0], a[1]) for a in ml.to_platform()}
    assert {("Single", "B"), ("Pair", "R"), ("Bomb", "JOKER"), ("Straight", "A"),
            ("StraightFlush", "A")} <= labels
    check(ml)


def test_the_same_moves_as_the_reference_engine():
    rng = random.Random(11)
    for case in range(40):
        level = rng.randint(2, 14)
        cards = random_hand(rng, 9, level)
        last = None
        if case % 2:
            leads = ref.legal_moves(random_hand(rng, 9, level), level)
            last = leads[rng.randrange(len(leads))]
        fast = legal_moves(cards, level, last=last).to_platform()
        slow = [m.to_platform() for m in ref.legal_moves(cards, level, last=last)]
        assert sorted(map(json.dumps, fast)) == sorted(map(json.dumps, slow))


def test_game_lists_with_tribute_and_back_moves():
    seen = set()
    for seed in range(40):
        g = Game(seed=seed)
        while not g.is_over and g.hand_number < 3:
            ml = g.legal_moves()
            seen.add(g.phase)
            check(ml)
            g.play(ml[(seed * 7 + len(g.history)) % len(ml)])
        if {"tribute", "back"} <= seen:
            break
    assert {"play", "tribute", "back"} <= seen


def test_the_lists_are_new_objects_each_call():
    ml = legal_moves("S9 C9 H7", 7, last=Move("Pair", "8", "S8 D8"))
    a = ml.to_platform()
    a[0][2].append("S2")
    a.clear()
    assert ml.to_platform() == python_path(ml)


def test_an_empty_list_and_bad_arguments():
    ml = legal_moves("S9", 7, last=Move("Pair", "8", "S8 D8"))
    assert ml.to_platform() == [["PASS", "PASS", "PASS"]]
    assert legal_moves("", 7).to_platform_json() == "[]"
    for bad in (1, None, "yes"):
        with pytest.raises(TypeError, match="pass_first must be a bool"):
            ml.to_platform(pass_first=bad)
        with pytest.raises(TypeError, match="pass_first must be a bool"):
            ml.to_platform_json(pass_first=bad)

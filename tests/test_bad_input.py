"""Bad input to the compiled entries: false joker labels, garbage move words, huge and numpy
integers, comparisons with other types; every error is of the type that fits. Help texts show
signatures and docstrings."""

import random
from collections import Counter

import numpy as np
import pytest

import guandan_fast as gf
from guandan_fast import Hand, Move, PASS, Rules, movegen
from guandan_fast import codec as hand_module
from guandan_fast.cards import FULL_DECK
from guandan_fast.game import Game
from guandan_fast.perft_core import perft_game, random_playout
from guandan_fast import bench_hooks
from guandan_fast.reference import Game as RefGame
from guandan_fast.reference import movegen as ref_movegen
from guandan_fast.reference import combos as ref_combos
from helpers import ENGINES, ENGINE_IDS, big_hands


# ---------------------------------------------------------------------------------------------
# False joker labels are rejected by every compiled entry, as by the reference

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
# Move.from_words rejects garbage words

@pytest.mark.parametrize("words, what", [
    ((0, 12 << 56), "type code 12"),
    ((0, 15 << 56), "type code 15"),
    ((5, 0), "PASS"),
    ((0, 3 << 60), "PASS"),
    ((0b010101, (1 << 56) | (3 << 60)), "a Single has 1 card, not 3"),
    ((0, (1 << 56) | (3 << 60)), "a Single has 1 card, not 0"),
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
# Exception types that fit; numpy integers; signatures and docstrings

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
        with pytest.raises(TypeError, match="compares two Moves by Move.sort_key .* not a Move "
                                             "with (int|str|NoneType|float); which play wins"):
            op()
    assert Move("Single", "3", "S3") < Move("Single", "4", "S4")
    assert m != 3 and not (m == "S3")


def test_movelist_index_out_of_range_is_an_index_error():
    ml = gf.legal_moves("S3 SB", 2)
    for i in (10**30, -10**30, len(ml), -len(ml) - 1):
        with pytest.raises(IndexError, match="out of range"):
            ml[i]
    assert ml[np.int64(-1)] == ml[len(ml) - 1]
    with pytest.raises(TypeError, match="move index must be an int, not str"):
        ml["0"]


def test_rules_from_dict_refuses_what_is_not_a_dict_of_switches():
    with pytest.raises(TypeError, match="rules must be a dict of rules switches .* not NoneType"):
        Rules.from_dict(None)
    with pytest.raises(TypeError, match="not list"):
        Rules.from_dict([("ace_rule", "any_win")])
    with pytest.raises(TypeError, match="named by strings, not 1"):
        Rules.from_dict({1: True})
    with pytest.raises(ValueError, match="unknown rules switch"):
        Rules.from_dict({"ace": "any_win"})
    assert Rules.from_dict({}) == Rules()


def test_parse_level_takes_numpy_integers():
    assert gf.parse_level(np.int64(14)) == gf.parse_level(np.uint8(14)) == 14
    with pytest.raises(ValueError, match="level must be 2..14"):
        gf.parse_level(np.int32(15))


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


def test_words_arrays_and_repetition_counts_are_checked_by_name():
    """The array and benchmark entries of actions / observe: no OverflowError from C."""
    from guandan_fast import actions, observe
    g = gf.Game(seed=2)
    for f in (actions.actions_of_moves, lambda w, lv: observe.danzero_actions(w)):
        with pytest.raises(TypeError, match="words must be unsigned 64-bit integers"):
            f([[-1, 0]], 2)
        with pytest.raises(TypeError, match="words must be unsigned 64-bit integers"):
            f("S2", 2)
        with pytest.raises(ValueError, match=r"words must have shape \(n, 2\)"):
            f(np.zeros(3, dtype=np.uint64), 2)
    for call in (lambda r: actions.time_legal_actions(g, r),
                 lambda r: actions.time_action_of_moves(g.legal_moves_array(), 2, r),
                 lambda r: observe.time_encode(g, 0, "default", r)):
        with pytest.raises(ValueError, match="reps must be at most 2\\*\\*62"):
            call(2 ** 64)
        with pytest.raises(ValueError, match="reps must be >= 1"):
            call(0)
        with pytest.raises(TypeError, match="reps must be an int"):
            call(1.5)
        assert call(2) > 0

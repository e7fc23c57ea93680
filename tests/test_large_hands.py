"""Large uneven hands (set-ups far from a dealt hand): every buffer is sized from the hand, on
every API that generates moves (compared with the reference engine)."""

import pytest

import guandan_fast as gf
from guandan_fast import Hand
from guandan_fast.game import Game
from guandan_fast.perft_core import perft_game, random_playout
from guandan_fast import bench_hooks
from guandan_fast.reference import Game as RefGame
from helpers import BIG, big_hands


# ---------------------------------------------------------------------------------------------
# Large uneven hands: every buffer is sized from the hand


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

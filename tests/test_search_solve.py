"""The exact endgame solver (solve.pyx) against plain minimax, and its contract.

Default run: about 3,500 small endgames (1 to 3 cards per seat, 0 to 2 seats already out, on
lead and after one move; plain minimax of 3 cards in each of four seats is the slow part);
``--long``: ten times as many.
"""

import random
from collections import Counter

import pytest

import guandan_fast as gf
from guandan_fast.solve import minimax, random_endgame, solve

from helpers import LONG
SCALE = 10 if LONG else 1


def positions(seed, cards, out):
    """A random endgame and, when the hand goes on, one random move later (mid-trick)."""
    g = random_endgame(seed, cards, out=out)
    yield g
    moves = g.legal_moves()
    c = g.clone()
    c.play(moves[random.Random(seed).randrange(len(moves))])
    if c.hand_number == 0 and not c.is_over:
        yield c


@pytest.mark.parametrize("cards,out,n", [(1, 0, 400), (2, 0, 400), (2, 1, 300),
                                         (3, 0, 12 if LONG else 6), (3, 1, 150), (3, 2, 300),
                                         ((1, 2, 3, 2), 0, 200), ((3, 1, 2, 3), 0, 80),
                                         (4, 2, 100)])
def test_solver_equals_plain_minimax(cards, out, n):
    n *= SCALE
    checked = 0
    for seed in range(n):
        for g in positions(seed, cards, out):
            s = solve(g)
            value, nodes = minimax(g, max_nodes=10**8)
            assert s.finished and s.outcome == value, (seed, s, value)
            assert s.nodes <= nodes
            checked += 1
    assert checked >= n


def test_best_move_achieves_the_value():
    for seed in range(150):
        g = random_endgame(seed, (2, 3, 3, 2))
        s = solve(g)
        team = g.current_player % 2
        assert s.value == (s.outcome if team == 0 else -s.outcome)
        assert s.winner == (0 if s.outcome > 0 else 1) and s.partner_place == 5 - abs(s.outcome)
        assert s.level_gain == g.rules.upgrade_steps[s.partner_place - 2]
        g.play(s.best_move)
        if g.hand_number == 0:
            assert solve(g).outcome == s.outcome
        else:
            last = g.results[-1]["finish_order"]
            assert (last[0] % 2 == 0) == (s.outcome > 0)


def test_a_seat_that_can_go_out_at_once_wins_the_hand_for_its_team():
    found = 0
    for seed in range(300):
        g = random_endgame(seed, (1, 3, 2, 3))
        p = g.current_player
        hand = g.hand(p)
        if any(sorted(m.cards) == sorted(hand) for m in g.legal_moves()):
            assert solve(g).winner == p % 2
            found += 1
    assert found > 20


def test_node_budget_and_bad_input():
    g = random_endgame(3, 4)
    s = solve(g, max_nodes=50)
    assert not s.finished and s.outcome is None and s.nodes == 50
    assert s.best_move is None or s.best_move in g.legal_moves()
    with pytest.raises(ValueError, match="max_nodes must be >= 1"):
        solve(g, max_nodes=0)
    with pytest.raises(TypeError, match="max_nodes must be an int"):
        solve(g, max_nodes=1.5)
    with pytest.raises(TypeError, match="game must be a guandan_fast.Game"):
        solve("g")
    with pytest.raises(ValueError, match="more than max_nodes=10 positions"):
        minimax(g, max_nodes=10)
    rest = Counter(gf.cards.FULL_DECK) - Counter(["S3", "S4", "S5"])
    t = gf.Game.setup([sorted(rest.elements()), ["S3"], ["S4"], ["S5"]],
                      previous_finish=[1, 0, 3, 2])
    with pytest.raises(ValueError, match="play phase, not 'tribute'"):
        solve(t)
    with pytest.raises(ValueError, match="cards must be an int 1..27"):
        random_endgame(0, 0)
    with pytest.raises(ValueError, match="cards must be an int 1..27 or four of them, got 2.5"):
        random_endgame(0, 2.5)


def test_mid_game_position_from_a_real_match():
    # Play a real match down with greedy-like choices until every seat is small, then solve.
    g = gf.Game(seed=8)
    rnd = random.Random(8)
    while g.hand_number == 0 and sum(len(g.hand(q)) for q in range(4)) > 14:
        moves = g.legal_moves(compact=True)
        g.play(moves[rnd.randrange(len(moves))])
    if g.hand_number == 0 and g.phase == "play":
        s = solve(g, max_nodes=2_000_000)
        assert s.finished and s.best_move in g.legal_moves()

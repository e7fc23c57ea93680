"""Pinned perft counts (tests/data/perft.csv): the leaf counts of the move tree from fixed deals,
as chess engines pin theirs. A changed count means move generation or the game's flow changed.

The pins were checked against the reference engine when they were made; these tests check the
cheap ones against it again: the complete trees to depth 2 through ``perft_reference``, and the
compact trees to depth 3 (one deal each by default; every deal, compact to depth 4, in long mode) through the reference's complete lists pruned by
the compact definition (docs/design.md). Rows marked ``long`` (seconds to a minute each) run
only with ``--long``.
"""

import pytest

from guandan_fast.perft import count_leaves, perft, perft_reference
from guandan_fast.reference.game import Game as RefGame
from helpers import LONG, compact_definition, perft_pins

pytestmark = pytest.mark.reference


PINS = perft_pins()


def test_the_pin_file_covers_both_modes_and_several_depths():
    modes = {(mode, depth) for _, depth, mode, _, _ in PINS}
    assert {("complete", d) for d in (1, 2, 3, 4)} <= modes
    assert {("compact", d) for d in (1, 2, 3, 4, 5)} <= modes


@pytest.mark.parametrize("seed,depth,mode,leaves",
                         [p[:4] for p in PINS if LONG or not p[4]],
                         ids=lambda v: str(v))
def test_pinned_count(seed, depth, mode, leaves):
    assert perft(seed, depth, compact=(mode == "compact")) == leaves


SEEDS = sorted({p[0] for p in PINS})


@pytest.mark.parametrize("seed", SEEDS)
def test_complete_pins_equal_the_reference_at_depth_1(seed):
    pin = {d: n for s, d, mode, n, _ in PINS if s == seed and mode == "complete"}
    assert perft_reference(seed, 1) == pin[1]


# Depth 2 (the reference's slow part): one deal by default, every deal with --long (the
# compiled counts of every deal are pinned above; this re-checks the pin file itself).
@pytest.mark.parametrize("seed", [s if k < 1 else pytest.param(s, marks=pytest.mark.long)
                                  for k, s in enumerate(SEEDS)])
def test_complete_pins_equal_the_reference(seed):
    pin = {d: n for s, d, mode, n, _ in PINS if s == seed and mode == "complete"}
    assert perft_reference(seed, 2) == pin[2]


def _compact_children(game):
    """The reference's legal moves pruned by the compact definition."""
    moves = game.legal_moves()
    if game.phase != "play":
        return moves
    pruned = compact_definition(moves, list(game.hand(game.current_player)), game.level)
    return [m for m in moves if m in pruned or m.is_pass]


@pytest.mark.parametrize("seed", sorted({p[0] for p in PINS}))
def test_compact_pins_equal_the_reference_pruned_by_the_definition(seed):
    pin = {d: n for s, d, mode, n, _ in PINS if s == seed and mode == "compact"}
    # Depth 3 (the reference's slow part) on one deal by default, depth 4 on every deal
    # with --long.
    depths = (1, 2, 3, 4) if LONG else (1, 2, 3) if seed in SEEDS[:1] else (1, 2)
    for depth in depths:
        assert count_leaves(RefGame(seed), depth, _compact_children) == pin[depth], depth

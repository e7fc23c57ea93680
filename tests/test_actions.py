"""The fixed abstract action space (``guandan_fast.actions``, docs/learning.md).

* the numbering: ``N_ACTIONS`` ids in contiguous blocks, ``action_info`` describing each;
* ``action_id`` against a plain Python reading of the move's fields (independent of the
  compiled mapping), on every legal move of many positions (leads, follows, tribute, back,
  all four movegen rule combinations);
* legality: the legal abstract actions are exactly the ids of the complete legal move list;
* canonical moves: each is a legal move of its id, and the best of its id's moves by the
  compact mode's four keys (docs/design.md), written plainly here;
* ``Game.legal_action_mask`` / ``play_action`` and their errors (state unchanged).
"""

import random
from collections import Counter

import numpy as np
import pytest

import guandan_fast as gf
from guandan_fast import actions as A
from guandan_fast.cards import RANKS, card_sort_key, sort_cards
from guandan_fast.moves import IllegalMoveError
from helpers import sf_usable

ALL_RULES = [gf.Rules(), gf.Rules(sf_as_straight=False), gf.Rules(fullhouse_joker_pair=False),
             gf.Rules(sf_as_straight=False, fullhouse_joker_pair=False,
                      double_tie="winners_choose", return_rule="any")]


def test_numbering_blocks_cover_every_id_once():
    assert A.N_ACTIONS == 501
    starts = sorted(A.BLOCKS.values())
    pos = 0
    for start, count in starts:
        assert start == pos
        pos += count
    assert pos == A.N_ACTIONS
    infos = [A.action_info(a) for a in range(A.N_ACTIONS)]
    assert len(set(infos)) == A.N_ACTIONS
    for name, (start, count) in A.BLOCKS.items():
        assert {infos[a].type for a in range(start, start + count)} == {name}
    assert sum(1 for i in infos if i.type == "ThreeWithTwo") == 13 * 14
    assert sum(1 for i in infos if i.type == "Bomb") == 13 * 7


_ID_OF = {tuple(A.action_info(a)): a for a in range(A.N_ACTIONS)}


def plain_id(m, level):
    """The id of a Move read plainly from its fields (docs/learning.md), via action_info."""
    wild = "H" + RANKS[level - 2]
    if m.type == "PASS":
        key = ("PASS", None, None, None, None, None)
    elif m.type in ("tribute", "back"):
        key = (m.type, None, None, None, None, m.cards[0])
    elif m.type == "Bomb" and m.rank == "JOKER":
        key = ("JokerBomb", "JOKER", None, None, None, None)
    elif m.type == "Bomb":
        key = ("Bomb", m.rank, None, len(m.cards), None, None)
    elif m.type == "StraightFlush":
        suit = {c[0] for c in m.cards if c != wild}.pop()
        key = ("StraightFlush", m.rank, None, None, suit, None)
    elif m.type == "ThreeWithTwo":
        rest = [c for c in m.cards if c != wild and (c in ("SB", "HR") or c[1] != m.rank)]
        pair = RANKS[level - 2] if not rest else {"SB": "B", "HR": "R"}.get(rest[0], rest[0][1])
        key = ("ThreeWithTwo", m.rank, pair, None, None, None)
    else:
        key = (m.type, m.rank, None, None, None, None)
    return _ID_OF[key]


def preference(m, hand, level):
    """The compact mode's order within a group (docs/design.md): wilds, straight-flush
    penalty, cards in canonical order (a full house's pair value is fixed within an id)."""
    w = "H" + RANKS[level - 2]
    held = Counter(hand)
    usable = sf_usable(hand, level)
    used = Counter(c for c in m.cards if c != w and c not in ("SB", "HR"))
    penalty = sum(1 for c, k in used.items() if c in usable and k == held[c])
    return (m.cards.count(w), penalty, tuple(card_sort_key(c) for c in sort_cards(m.cards)))


def positions(n_games, every, rules_list=ALL_RULES, seed=0):
    """Game states along random matches: every `every`-th decision, hands >= 2 included."""
    rng = random.Random(seed)
    for i in range(n_games):
        rules = rules_list[i % len(rules_list)]
        g = gf.Game(seed=1000 + i, rules=rules)
        steps = 0
        while not g.is_over and steps < 3000:
            if steps % every == 0 or g.phase != "play":
                yield g
            g.play_index(rng.randrange(g.num_legal()))
            steps += 1


def test_legal_ids_canonical_moves_and_action_id_agree_with_plain_definitions():
    checked = Counter()
    for g in positions(8, 37):
        level = g.level
        complete = list(g.legal_moves())
        by_id = {}
        for m in complete:
            a = A.action_id(m, level)
            assert a == plain_id(m, level), m
            by_id.setdefault(a, []).append(m)
        ids, words = A.canonical_moves(g)
        assert list(ids) == sorted(by_id), (g.phase, g.history[-3:])
        assert g.legal_action_mask().nonzero()[0].tolist() == sorted(by_id)
        hand = g.hand(g.current_player)
        for a, (lo, hi) in zip(ids.tolist(), words.tolist()):
            canon = gf.Move.from_words(lo, hi)
            assert canon in by_id[a]
            best = min(by_id[a], key=lambda m: preference(m, hand, level))
            if g.phase == "play":
                assert preference(canon, hand, level) == preference(best, hand, level), (a, canon, best)
                assert canon == best
            assert A.canonical_move(g, a) == canon
            checked[A.action_info(a).type] += 1
        # ... and `concrete_moves` lists exactly the id's complete moves.
        a = int(ids[len(ids) // 2])
        assert set(A.concrete_moves(g, a)) == set(by_id[a])
    for kind in ("Single", "Pair", "Trips", "ThreeWithTwo", "Straight", "Bomb", "PASS",
                 "tribute", "back"):
        assert checked[kind] > 0, kind


def test_canonical_moves_extend_the_compact_list():
    """Every compact move is the canonical move of its id (full houses: the compact one is
    the canonical move of its own pair rank)."""
    for g in positions(4, 53, seed=3):
        ids, words = A.canonical_moves(g)
        canon = {int(a): (int(lo), int(hi)) for a, (lo, hi) in zip(ids, words)}
        for lo, hi in g.legal_moves_array(compact=True).tolist():
            m = gf.Move.from_words(lo, hi)
            assert canon[A.action_id(m, g.level)] == (lo, hi), m


def test_play_action_plays_the_canonical_move():
    g = gf.Game(seed=7)
    rng = random.Random(1)
    for _ in range(400):
        if g.is_over:
            break
        ids = A.legal_actions(g)
        a = int(ids[rng.randrange(len(ids))])
        twin = g.clone()
        twin.play(A.canonical_move(g, a))
        g.play_action(a)
        assert g == twin


def test_bad_input_raises_and_changes_nothing():
    g = gf.Game(seed=0)
    before = g.clone()
    with pytest.raises(IllegalMoveError, match="action 0 \\(PASS\\) is not legal"):
        g.play_action(0)                     # a lead: PASS is illegal
    with pytest.raises(ValueError, match="action id must be 0..500"):
        g.play_action(501)
    with pytest.raises(ValueError, match="action id must be 0..500"):
        g.play_action(-1)
    with pytest.raises(TypeError, match="an action id is an int"):
        g.play_action(1.0)
    with pytest.raises(TypeError, match="an action id is an int"):
        g.play_action(True)
    with pytest.raises(ValueError, match="out must be a numpy bool array"):
        g.legal_action_mask(out=np.zeros(501, dtype=np.uint8))
    with pytest.raises(ValueError, match="out must be a numpy bool array"):
        g.legal_action_mask(out=np.zeros(500, dtype=bool))
    with pytest.raises(ValueError, match="C-contiguous"):
        g.legal_action_mask(out=np.zeros(1002, dtype=bool)[::2])
    with pytest.raises(TypeError, match="must be a guandan_fast.Move"):
        A.action_id(["Single", "3", ["S3"]], 2)
    with pytest.raises(ValueError, match="not a reading"):
        A.action_id(gf.Move("Pair", "3", "S3 S4"), 2)
    with pytest.raises(TypeError, match="must be a guandan_fast.Game"):
        A.legal_actions(object())
    assert g == before
    out = np.ones(501, dtype=bool)
    assert g.legal_action_mask(out=out) is out
    assert out.tolist() == g.legal_action_mask().tolist()
    # A finished match: no legal action.
    while not g.is_over:
        g.play_action(int(A.legal_actions(g)[0]))
    assert not g.legal_action_mask().any()
    with pytest.raises(IllegalMoveError, match="the match is over"):
        g.play_action(1)


def test_action_id_examples():
    assert A.action_id(gf.Move("Single", "B", "SB"), 2) == A.BLOCKS["Single"][0] + 13
    assert A.action_id(gf.Move("Bomb", "JOKER", "SB SB HR HR"), 2) == A.BLOCKS["JokerBomb"][0]
    fh = A.action_id(gf.Move("ThreeWithTwo", "8", "S8 C8 D8 H7 H7"), 7)
    assert A.action_info(fh) == ("ThreeWithTwo", "8", "7", None, None, None)
    sf = A.action_id(gf.Move("StraightFlush", "9", "S9 H7 SJ SQ SK"), 7)
    assert A.action_info(sf) == ("StraightFlush", "9", None, None, "S", None)
    b = A.action_id(gf.Move("Bomb", "7", "S7 C7 D7 S7 C7"), 7)
    assert A.action_info(b) == ("Bomb", "7", None, 5, None, None)
    words = np.array([gf.Move("Straight", "A", "SA S2 S3 S4 C5").words, gf.PASS.words],
                     dtype=np.uint64)
    assert A.actions_of_moves(words, 2).tolist() == [A.BLOCKS["Straight"][0], 0]
    # Words that are no move map to -1 (type 1 = Single with rank codes 0 and 1, type 12).
    garbage = np.array([[1, (1 << 56)], [1, (1 << 56) | (1 << 60)], [0, 12 << 56]],
                       dtype=np.uint64)
    assert A.actions_of_moves(garbage, 2).tolist() == [-1, -1, -1]

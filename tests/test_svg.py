"""Pictures of hands and positions (guandan_fast.svg) and the picture render modes."""

import re
import xml.etree.ElementTree as ET

import pytest

from guandan_fast import Game, Rules
from guandan_fast import svg

NS = "{http://www.w3.org/2000/svg}"


def faces(doc: str) -> list[str]:
    """The cards drawn face up, by their titles (the names people read)."""
    root = ET.fromstring(doc)
    return [g.find(NS + "title").text for g in root.iter(NS + "g") if g.get("class") == "card"]


def backs(doc: str) -> list[str]:
    root = ET.fromstring(doc)
    return ["".join(g.itertext()) for g in root.iter(NS + "g") if g.get("class") == "back"]


def test_hand_sorted_in_level_order_with_level_and_wild_cards_marked():
    doc = svg.hand("HR S8 H7 C8 DJ SB C7", level=7)
    assert faces(doc) == ["8 of spades", "8 of clubs", "jack of diamonds",
                          "7 of hearts, level card, wild", "7 of clubs, level card",
                          "small joker", "big joker"]
    assert doc.count("&#9733;") == 1            # one star: the wild heart 7
    assert doc.count('fill="#fff4c2"') == 2      # the two level cards have the level fill
    assert isinstance(doc, svg.SVG) and doc._repr_svg_() == str(doc)


def test_hand_rejects_bad_cards():
    with pytest.raises(ValueError, match="unknown card code 'S1'"):
        svg.hand("S1 H2")


def test_table_all_open_and_one_seats_view():
    g = Game(seed=4)
    open_view = svg.table(g)
    assert len(faces(open_view)) == 108 and backs(open_view) == []
    view = svg.table(g, seat=2)
    assert len(faces(view)) == 27
    # default rules disclose a count only at 10 cards or fewer: 27 is hidden
    assert backs(view) == ["?", "?", "?"]
    platform = Game(seed=4, rules=Rules.platform())
    assert backs(svg.table(platform, seat=2)) == ["27", "27", "27"]
    with pytest.raises(ValueError):
        svg.table(g, seat=4)


def test_current_trick_and_table_show_the_plays_of_the_trick():
    g = Game(seed=11)
    trick, seen_tricks = [], 0      # followed move by move: a move made with nothing on top leads
    for step in range(400):
        if g.is_over:
            break
        seat = g.current_player
        lead = g.phase == "play" and g.observation(seat)["top"] is None
        moves = g.legal_moves()
        move = moves[len(moves) - 1 if step % 3 else 0]   # passes now and then
        g.play(move)
        if lead or move.type in ("tribute", "back"):
            trick = []
        if move.type not in ("tribute", "back"):
            trick.append((seat, move))
        want = trick if g.phase == "play" and g.observation(0)["top"] is not None else []
        assert svg.current_trick(g) == want
        seen_tricks += len(want) > 1
        if step in (5, 60, 200) and g.phase == "play":
            me = g.current_player
            doc = svg.table(g, seat=me)
            played = sum(len(m.cards) for m in {s: m for s, m in want}.values())
            assert len(faces(doc)) == len(g.hand(me)) + played
    assert seen_tricks > 10


def test_game_displays_as_its_picture():
    g = Game(seed=2)
    g.play_index(0)
    assert g._repr_svg_() == str(svg.table(g))
    assert g._repr_html_() == str(svg.table(g))
    assert "hand 0" in g._repr_svg_()


def test_table_shows_tribute_levels_and_finish():
    g = Game(seed=9)
    while not g.finish_order:
        g.play_index(0)
    first = g.finish_order[0]
    assert f"finished: seat {first}" in svg.table(g)
    assert f"seat {first} (team {first % 2}) — 1st" in svg.table(g)
    while g.hand_number == 0 or g.phase != "play":
        g.play_index(0)
    doc = svg.table(g)
    obs = g.observation(0)
    assert obs["tribute"] and obs["back"]
    for payer, receiver, card in obs["tribute"]:
        assert f"tribute {payer}→{receiver} {card}" in doc
    for r, p, back in obs["back"]:
        assert f"return {r}→{p} {back}" in doc
    assert f"team 0 {'23456789TJQKA'[g.levels[0] - 2]}" in doc


def test_render_modes_of_the_adapters():
    from guandan_fast.envs.gymnasium import GuandanEnv
    from guandan_fast.envs.pettingzoo import raw_env

    env = GuandanEnv(render_mode="svg")
    env.reset(seed=3)
    pic = env.render()
    on_table = sum(len(m.cards) for m in dict(svg.current_trick(env.game)).values())
    assert pic.startswith("<svg") and "seat 0&#x27;s view" in pic            # the learner's view
    assert len(faces(pic)) == len(env.game.hand(0)) + on_table
    assert "svg" in GuandanEnv.metadata["render_modes"]
    aec = raw_env(render_mode="svg")
    aec.reset(seed=3)
    assert len(faces(aec.render())) == 108                     # every hand: the whole state
    assert "svg" in raw_env.metadata["render_modes"]
    with pytest.raises(ValueError, match="render_mode"):
        GuandanEnv(render_mode="rgb_array")

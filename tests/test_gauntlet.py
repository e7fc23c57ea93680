"""The gauntlet of styles (docs/expert.md "The gauntlet"): the expert's knobs in one table, each
style a named agent that plays wherever agents play, each doing what its description says in
constructed positions, deterministic and private like the expert; ``tournament --gauntlet``
and its worst case; the ``strong`` preset; the tuning script.

Expected moves follow from the documented styles and the rules, not from runs of the code."""

import json
import pathlib
import subprocess
import sys

import pytest

import guandan_fast as gf
from guandan_fast import PASS, Move
from guandan_fast.agents import PRESETS, parse_agent
from guandan_fast.bots import AGENT_CODES, choose
from guandan_fast.cli import main
from guandan_fast.expert import (BASE_KNOBS, EXPERT_KNOBS, KNOB_NAMES, STYLE_CHANGES,
                                 STYLE_NAMES, TUNED_CHANGES, knobs, set_knobs)
from guandan_fast.expert import choose as decide
from guandan_fast.gauntlet import GAUNTLET, gauntlet
from helpers import replay_with_permuted_hidden

ROOT = pathlib.Path(__file__).resolve().parent.parent
STYLES = STYLE_NAMES[1:]


# -- the knobs ----------------------------------------------------------------------------------

def test_every_style_is_the_expert_with_its_changes():
    assert set(STYLE_CHANGES) == set(STYLES) and len(GAUNTLET) >= 6
    assert knobs("expert") == EXPERT_KNOBS == {**BASE_KNOBS, **TUNED_CHANGES}
    for style in STYLES:
        assert knobs(style) == {**BASE_KNOBS, **STYLE_CHANGES[style]}
    for style in STYLE_NAMES:
        assert list(knobs(style)) == list(KNOB_NAMES)
    for style in STYLES:
        assert STYLE_CHANGES[style], style
        assert AGENT_CODES[style] == AGENT_CODES["expert"] + STYLE_NAMES.index(style)


def test_the_documented_knob_table_is_the_code():
    # docs/expert.md "Knobs and styles": one row per knob, its base value and the expert's
    # (bold where tuning changed it).
    rows = {}
    for line in (ROOT / "docs" / "expert.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`") and cells[0].strip("`") in KNOB_NAMES:
            rows[cells[0].strip("`")] = (int(cells[1]), int(cells[2].strip("*")),
                                         cells[2].startswith("**"))
    assert list(rows) == list(KNOB_NAMES)
    for name, (base, tuned, bold) in rows.items():
        assert (base, tuned) == (BASE_KNOBS[name], EXPERT_KNOBS[name]), name
        assert bold == (name in TUNED_CHANGES and TUNED_CHANGES[name] != BASE_KNOBS[name]), name


def test_set_knobs_changes_play_and_restores():
    # A far opponent's A over a hand with a bomb and three loose cards: the expert passes
    # (not urgent, not attacking); with bomb_free it bombs.
    hand, top = "S6 H6 C6 D6 S9 DJ CQ", "Single A SA"
    assert choose("expert", hand, top=top, top_seat=1, counts=[7, 20, 20, 20]) == PASS
    old = set_knobs({"bomb_free": 1})
    try:
        assert choose("expert", hand, top=top, top_seat=1, counts=[7, 20, 20, 20]).type == "Bomb"
    finally:
        assert set_knobs(old)["bomb_free"] == 1
    assert knobs() == EXPERT_KNOBS


@pytest.mark.parametrize("call, message", [
    (lambda: set_knobs({"luck": 1}), "unknown knob 'luck'"),
    (lambda: set_knobs({"bomb_at": 1}, "nobody"), "unknown style 'nobody'"),
    (lambda: set_knobs({"bomb_at": -101}), "bomb_at must be >= -100"),
    (lambda: set_knobs({"bomb_at": 1.5}), "bomb_at"),
    (lambda: set_knobs({"break_loss": 1, "bomb_at": 1000}), "bomb_at must be at most 100"),
    (lambda: set_knobs(5), "values must be a dict"),
])
def test_bad_knobs_say_what_is_wrong_and_change_nothing(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()
    assert knobs() == EXPERT_KNOBS


# -- each style does what its description says --------------------------------------------------

BOMB_HAND = "S6 H6 C6 D6 S9 DJ CQ"      # a bomb and three loose cards: not attacking


def test_bomber_bombs_a_far_opponent_the_expert_lets_go():
    kw = dict(top="Single A SA", top_seat=1, counts=[7, 20, 20, 20])
    assert choose("expert", BOMB_HAND, **kw) == PASS
    assert choose("bomber", BOMB_HAND, **kw) == Move("Bomb", "6", "S6 H6 C6 D6")


def test_saver_keeps_its_bomb_until_a_seat_is_at_ten_cards():
    # Two bombs, an A, the black joker and a 9 (11 cards): four controls, one weak group, so
    # the expert attacks and bombs the red joker; the saver waits for a seat at 10 cards.
    hand, kw = "S6 H6 C6 D6 S7 H7 C7 D7 CA SB S9", dict(top="Single R HR", top_seat=1)
    assert choose("expert", hand, counts=[11, 20, 20, 20], **kw).type == "Bomb"
    assert choose("saver", hand, counts=[11, 20, 20, 20], **kw) == PASS
    # Seat 3 (the other opponent) is down to 9 cards: the trigger.
    assert choose("saver", hand, counts=[11, 20, 20, 9], **kw).type == "Bomb"


def test_saver_and_keeper_pass_rather_than_lose_plan_value():
    # An opponent's 8: only a 9 of the trips beats it, which costs the plan 1 (trips to a
    # pair). The expert accepts a loss up to 5; the keepers of the plan accept none.
    hand, kw = "S9 D9 C9 S3", dict(top="Single 8 S8", top_seat=1)
    assert choose("expert", hand, **kw).type == "Single"
    assert choose("saver", hand, **kw) == PASS
    assert choose("keeper", hand, **kw) == PASS


def test_shedder_leads_long_groups_and_keeper_short_ones():
    # A low pair and a high straight: the expert leads the weaker group (the pair of 3s).
    hand = "S3 D3 C8 S9 HT SJ DQ"
    assert choose("expert", hand) == Move("Pair", "3", "S3 D3")
    assert choose("shedder", hand).type == "Straight"
    # Three 4s and a loose K: the expert leads the trips, the keeper the single.
    hand = "S4 D4 C4 SK"
    assert choose("expert", hand).type == "Trips"
    assert choose("keeper", hand) == Move("Single", "K", "SK")


def test_shedder_breaks_any_group_to_win_a_trick():
    # An opponent's 6 and only the straight's 7 beats it: breaking the straight 3..7 costs the
    # plan far more than 5, so the expert passes; the shedder breaks it.
    hand, kw = "S3 D4 C5 D6 C7 D3", dict(top="Single 6 S6", top_seat=1)
    assert choose("expert", hand, **kw) == PASS
    assert choose("shedder", hand, **kw) == Move("Single", "7", "C7")


def test_solo_ignores_its_partner():
    # The partner's low single: the expert lets it stand, solo beats it with its K.
    kw = dict(top="Single 4 S4", top_seat=2)
    assert choose("expert", "S8 D8 DK", **kw) == PASS
    assert choose("solo", "S8 D8 DK", **kw) == Move("Single", "K", "DK")
    # A partner with one card: the expert feeds him its lowest single, solo leads its plan.
    counts = [5, 20, 1, 20]
    assert choose("expert", "S3 D3 C9 C9 SK", counts=counts) == Move("Single", "3", "S3")
    assert choose("solo", "S3 D3 C9 C9 SK", counts=counts) == Move("Pair", "3", "S3 D3")


def test_shedder_returns_its_lowest_card():
    # Level 5: the expert returns the loose 3 (keeping its pair of 2s); the shedder, which
    # does not weigh its plan in the exchange, the lowest card.
    hand = "S2 H2 S3 D7 C7 C9 SK"
    cands = [gf.Move("back", "back", (c,)) for c in ("S2", "H2", "S3", "D7", "C7", "C9")]
    assert choose("expert", hand, level=5, phase="back", moves=cands).cards == ("S3",)
    assert choose("shedder", hand, level=5, phase="back", moves=cands).cards[0][1] == "2"


# -- everywhere agents play, deterministic, private ---------------------------------------------

@pytest.mark.parametrize("style", STYLES)
def test_a_style_plays_everywhere_and_repeats_itself(style):
    agents = (style, "expert", style, "expert")
    a = gf.simulate(matches=3, agents=agents, seed=4, threads=1)
    b = gf.simulate(matches=3, agents=agents, seed=4, threads=2)
    assert (a.team_wins, a.hands, a.plays) == (b.team_wins, b.hands, b.plays)
    env = gf.VecEnv(2, seed=0, learners=(0,), opponents=style)
    env.reset()
    g = gf.Game(seed=9)
    assert parse_agent(style).move(g) == decide(g, style=style)


def test_styles_play_differently():
    """Over the same deals, every style's games differ from the expert's and from each
    other's (counted plays and bombs per seat team)."""
    seen = {}
    for style in STYLE_NAMES:
        r = gf.simulate(matches=6, agents=(style, "greedy", style, "greedy"), seed=2)
        seen[style] = (r.team_wins, r.hands, r.plays, r.bombs)
    assert len(set(seen.values())) == len(STYLE_NAMES), seen


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("seed", range(6))
def test_a_style_reads_no_hidden_hand(style, seed):
    a, b, p = replay_with_permuted_hidden(seed, steps=10 + 5 * seed)
    assert [a.hand(q) for q in range(4)] != [b.hand(q) for q in range(4)]
    assert decide(a, style=style) == decide(b, style=style)


# -- the gauntlet --------------------------------------------------------------------------------

def test_gauntlet_plays_every_member_but_the_agent_and_names_the_worst():
    res = gauntlet("expert", deals=3, seed=1, members=("greedy", "expert", "random"))
    assert [p.b for p in res.pairs] == ["greedy", "random"]
    assert all(p.a == "expert" and p.deals == 3 for p in res.pairs)
    assert res.worst is min(res.pairs, key=lambda p: p.hand_win_rate)
    assert res.worst.b == "greedy"
    assert res.to_dict() == gauntlet("expert", deals=3, seed=1, workers=2,
                                     members=("greedy", "expert", "random")).to_dict()
    # The same pair in a round robin: the same deals, the same result.
    t = gf.tournament(["expert", "greedy"], deals=3, seed=1)
    assert t.pairs[0].to_dict() == res.pairs[0].to_dict()


def test_tournament_gauntlet_command(tmp_path, capsys):
    out = tmp_path / "g.json"
    assert main(["tournament", "--gauntlet", "saver", "--deals", "2", "--workers", "1",
                 "--json", str(out)]) == 0
    text = capsys.readouterr().out
    members = [m for m in GAUNTLET if m != "saver"]
    for m in members:
        assert any(line.startswith(m + " ") for line in text.splitlines()), m
    data = json.loads(out.read_text())
    assert data["format"] == "guandan-fast-tournament"
    assert [p["b"] for p in data["pairs"]] == members
    worst = min(data["pairs"], key=lambda p: (p["hand_win_rate"]["value"],
                                              p["hand_win_rate"]["ci_paired"][0]))
    assert data["gauntlet"]["worst"]["b"] == worst["b"]
    assert f"worst case: {worst['b']}," in text


@pytest.mark.parametrize("argv, message", [
    (["--deals", "2"], "give --agents (a round robin) or --gauntlet AGENT"),
    (["--agents", "greedy,random", "--gauntlet", "expert", "--deals", "2"], "one of them"),
    (["--gauntlet", "smart", "--deals", "2"], "unknown agent 'smart'"),
    (["--gauntlet", "expert", "--deals", "2", "--ray"], "--gauntlet plays on this machine"),
    (["--gauntlet", "expert", "--deals", "0"], "deals must be >= 1"),
])
def test_tournament_gauntlet_bad_input(argv, message, capsys):
    assert main(["tournament", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


# -- search with the styles ------------------------------------------------------------------------

@pytest.mark.parametrize("rollout", ["saver", "mix"])
def test_search_rolls_out_with_styles_deterministically(rollout):
    spec = f"pimc:samples=6:rollout={rollout}"
    agents = (spec, "expert", spec, "expert")
    a = gf.simulate(matches=2, agents=agents, seed=6, threads=1)
    b = gf.simulate(matches=2, agents=agents, seed=6, threads=2)
    assert (a.team_wins, a.hands, a.plays, a.passes) == (b.team_wins, b.hands, b.plays, b.passes)


def test_mix_rollouts_model_other_opponents_than_the_expert():
    """Over late positions, PIMC with opponents of mixed styles in its worlds decides
    differently from PIMC whose worlds are played by four experts, somewhere."""
    from guandan_fast.search import choose as search_choose

    differ = 0
    for seed in range(30):
        g = gf.Game(seed=seed)
        while not g.is_over and g.hand_number == 0 and len(g.hand(g.current_player)) > 9:
            g.play(decide(g))
        if g.is_over or g.hand_number != 0:
            continue
        a = search_choose(g, "pimc:samples=24:rollout=mix", seed=1)
        b = search_choose(g, "pimc:samples=24:rollout=expert", seed=1)
        assert a in g.legal_moves(compact=True)
        differ += a != b
    assert differ > 0


# -- the strong preset ----------------------------------------------------------------------------

def test_strong_is_its_spec_under_one_name():
    a, b = parse_agent("strong"), parse_agent(PRESETS["strong"])
    assert (a.name, a.kind, a.code, a.params) == ("strong", b.kind, b.code, b.params)
    g = gf.Game(seed=3)
    assert a.move(g, seed=5) == b.move(g, seed=5)
    r1 = gf.simulate(matches=1, agents=("strong", "greedy", "strong", "greedy"), seed=1,
                     threads=1)
    r2 = gf.simulate(matches=1, agents=(PRESETS["strong"], "greedy") * 2, seed=1, threads=1)
    assert (r1.team_wins, r1.hands, r1.plays) == (r2.team_wins, r2.hands, r2.plays)
    with pytest.raises(ValueError, match="cannot play in VecEnv"):
        gf.VecEnv(2, seed=0, learners=(0,), opponents="strong")


# -- the tuning script ------------------------------------------------------------------------------

def test_tuning_script_tiny_run(tmp_path):
    out = tmp_path / "tune.json"
    cmd = [sys.executable, str(ROOT / "bench" / "tune_expert.py"), "--trials", "3",
           "--deals", "1", "--check-deals", "1", "--members", "greedy,saver",
           "--json", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert len(data["trials"]) == 3
    first = data["trials"][0]["values"]
    assert all(first[k] == EXPERT_KNOBS[k] for k in first)        # the defaults come first
    assert data["best_value"] == max(t["worst"] for t in data["trials"])
    assert set(data["check"]["before"]) == {"greedy", "saver"}
    assert "check on 1 deals of seed 1" in proc.stdout
    assert proc.stderr.count("trial ") == 3
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert json.loads(out.read_text())["trials"] == data["trials"]     # seeded: the same
    assert again.returncode == 0
    bad = subprocess.run(cmd[:2] + ["--trials", "0"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1

"""Records (docs/records.md): the targets they are written to (paths, open files, ``.gz``), the
validation of every line when they are read back (hand-edited records are rejected by line and
field), and records at scale (replay reads only the match it needs, in bounded memory)."""

import gzip
import io
import json
import os
import tracemalloc

import pytest

import guandan_fast as gf
from guandan_fast import records
from guandan_fast.game import Game
from helpers import played


def _with_tribute():
    """A finished match whose second hand (line 3) has a tribute and a return."""
    for seed in range(100):
        g = played(seed)
        lines = g.to_record()
        h = json.loads(lines[2])
        if h["tribute"] and h["back"] and not h["anti_tribute"]:
            return lines
    raise AssertionError("no match with a tribute in its second hand")


def _edit(lines, line_no, edit):
    out = list(lines)
    obj = json.loads(out[line_no - 1])
    edit(obj)
    out[line_no - 1] = json.dumps(obj)
    return out


# -- paths ------------------------------------------------------------------------------------------

def test_record_targets_refuse_ints_instead_of_using_them_as_descriptors(tmp_path):
    g = played(3, steps=50)
    r, w = os.pipe()
    try:
        with pytest.raises(TypeError, match="path must be a path .* not int"):
            g.to_record(path=w)
        with pytest.raises(TypeError, match="record must be a path .* not int"):
            gf.simulate(matches=1, record=w)
        with pytest.raises(TypeError, match="path must be a path .* not int"):
            records.write(w, [g])
        for bad in (True, 2.5, b"x.jsonl", object()):
            with pytest.raises(TypeError, match="record must be a path"):
                gf.simulate(matches=1, record=bad)
        os.write(w, b"still open")  # neither descriptor was used, nor closed
        assert os.read(r, 10) == b"still open"
    finally:
        os.close(r)
        os.close(w)
    assert list(tmp_path.iterdir()) == []


def test_record_file_objects_are_written_and_left_open(tmp_path):
    g = played(4, steps=120)
    text = io.StringIO()
    lines = g.to_record(text)
    assert not text.closed and text.getvalue() == "".join(line + "\n" for line in lines)
    raw = io.BytesIO()
    res = gf.simulate(matches=2, seed=5, record=raw)
    assert not raw.closed
    assert res == gf.simulate(matches=2, seed=5)
    assert len(records.read(raw.getvalue())) == 2
    with open(tmp_path / "f.jsonl", "w", encoding="utf-8") as f:
        g.to_record(f)
        assert not f.closed
    assert Game.from_record(tmp_path / "f.jsonl") == g
    for mode in ("r", "rb"):  # file objects are read too (line by line)
        with open(tmp_path / "f.jsonl", mode) as f:
            assert Game.from_record(f) == g
    with open(tmp_path / "f.jsonl", encoding="utf-8") as f:
        with pytest.raises(ValueError, match="record: the file object is not open for writing"):
            gf.simulate(matches=1, record=f)
    closed = io.StringIO()
    closed.close()
    with pytest.raises(ValueError, match="closed file"):
        g.to_record(closed)


def test_gzip_records_by_suffix_and_read_by_content(tmp_path):
    g = played(6)
    path = tmp_path / "m.jsonl.gz"
    lines = g.to_record(path)
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    assert gzip.decompress(path.read_bytes()).decode().splitlines() == lines
    assert Game.from_record(path) == g
    sim = tmp_path / "s.gz"
    res = gf.simulate(matches=3, seed=2, record=str(sim))
    assert gzip.decompress(sim.read_bytes())[:1] == b"{"
    assert Game.from_record(sim, match=2).is_over
    assert len(records.read(sim)) == res.matches
    # gzip is recognised by content, whatever the name
    renamed = tmp_path / "plain-name.jsonl"
    renamed.write_bytes(path.read_bytes())
    assert Game.from_record(renamed) == g


def test_record_sources_of_a_wrong_type_are_type_errors():
    for bad in (3, 2.5, None):
        with pytest.raises(TypeError, match="path_or_lines must be a path"):
            Game.from_record(bad)
    with pytest.raises(TypeError, match="record line 2: a line must be str or bytes"):
        Game.from_record([played(1, steps=1).to_record()[0], 7])


# -- validation ----------------------------------------------------------------------------------

FORGERIES = [
    ("swapped deal cards", 2,
     lambda h: h["deal"].__setitem__(0, h["deal"][1][:1] + h["deal"][0][1:]),
     "record line 2: deal of seat 0"),
    ("forged level", 3, lambda h: h.__setitem__("level", h["level"] + 1), "record line 3: level"),
    ("forged tribute card", 3, lambda h: h["tribute"][0].__setitem__(2, "HR"),
     "record line 3: field 'tribute'"),
    ("forged tribute payer", 3, lambda h: h["tribute"][0].__setitem__(0, (h["tribute"][0][0] + 1) % 4),
     "record line 3: field 'tribute'"),
    ("dropped tribute line", 3, lambda h: h["tribute"].pop(), "record line 3: field 'tribute'"),
    ("forged return", 3, lambda h: h["back"][0].__setitem__(2, "SB"), "record line 3: field 'back'"),
    ("forged anti-tribute", 3, lambda h: h.__setitem__("anti_tribute", True),
     "record line 3: field 'anti_tribute'"),
    ("anti-tribute not a bool", 3, lambda h: h.__setitem__("anti_tribute", 0),
     "record line 3: field 'anti_tribute'"),
    ("forged finishing order", 2, lambda h: h.__setitem__("finish_order", h["finish_order"][::-1]),
     "record line 2: finish_order"),
    ("null seat", 2, lambda h: h["moves"][0].__setitem__(0, None),
     "record line 2: move 0: field 'moves': seat None"),
    ("bool seat", 2, lambda h: h["moves"][0].__setitem__(0, True), "record line 2: move 0"),
    ("missing field", 3, lambda h: h.pop("back"), "record line 3: field 'back': missing"),
    ("float level", 2, lambda h: h.__setitem__("level", 2.0), "record line 2: level"),
]


@pytest.mark.parametrize("name, line_no, edit, message", FORGERIES, ids=[f[0] for f in FORGERIES])
def test_hand_edited_records_are_rejected_by_line_and_field(name, line_no, edit, message):
    lines = _with_tribute()
    assert Game.from_record(lines).is_over  # the genuine record replays
    bad = _edit(lines, line_no, edit)
    with pytest.raises(ValueError, match=message):
        Game.from_record(bad)
    with pytest.raises(ValueError, match=message):  # replay validates exactly the same way
        records.render(bad)
    from guandan_fast.reference import Game as Reference

    with pytest.raises(ValueError, match=message):
        records.replay(bad, Reference)


def test_bad_header_fields_name_line_one():
    lines = played(8, steps=30).to_record()
    for edit, message in [
        (lambda h: h.__setitem__("seed", "7"), "record line 1: field 'seed'"),
        (lambda h: h.__setitem__("rules", []), "record line 1: field 'rules'"),
        (lambda h: h.__setitem__("setup", {"hands": []}), "record line 1: field 'setup'"),
    ]:
        with pytest.raises(ValueError, match=message):
            Game.from_record(_edit(lines, 1, edit))


def test_hostile_record_lines_are_value_errors():
    header = played(1, steps=1).to_record()[0]
    cases = [
        ([header, "[" * 100_000], "record line 2: not a record line"),
        ([header, '{"hand": ' + "9" * 5000 + "}"], "record line 2: not a record line"),
        ([header.encode(), b"\xff\xfe\x00binary"], "record line 2: not UTF-8"),
    ]
    for lines, message in cases:
        with pytest.raises(ValueError, match=message):
            Game.from_record(lines)


# -- records at scale ----------------------------------------------------------------------------

def test_replay_stops_reading_at_the_end_of_the_chosen_match():
    a, b = played(11), played(12, steps=200)

    def source():
        yield from a.to_record()
        yield b.to_record()[0]
        raise AssertionError("read past the next header")

    assert Game.from_record(source()) == a
    assert records.render(source()).count("== hand ") == len(a.results)


def test_replay_memory_does_not_grow_with_the_file(tmp_path):
    one = played(13).to_record()
    path = tmp_path / "many.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for _ in range(300):
            f.write("\n".join(one) + "\n")
    size = path.stat().st_size
    assert size > 5_000_000
    tracemalloc.start()
    try:
        first = Game.from_record(path, match=0)
        last = Game.from_record(path, match=299)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert first == last and first.is_over
    assert peak < size / 5, (peak, size)
    with pytest.raises(ValueError, match="holds 300 match"):
        Game.from_record(path, match=300)
    with pytest.raises(ValueError, match="match must be >= 0"):
        Game.from_record(path, match=-1)
    with pytest.raises(TypeError, match="match must be an int, not bool"):
        Game.from_record(path, match=True)
    import numpy as np

    assert Game.from_record(path, match=np.int64(3)) == first
    assert records.render(path, hand=np.int32(0), match=np.uint8(7)).count("== hand ") == 1
    with pytest.raises(ValueError, match="hand must be >= 0"):
        records.render(path, hand=-1)


# -- one writer, agents, positions at any step ------------------------------------------------

def test_one_writer_streams_plain_and_gzip_with_agents_and_extra_fields(tmp_path):
    names = ["greedy", "random", "greedy", "random"]
    games = [played(21), played(22, steps=40)]
    for name in ("w.jsonl", "w.jsonl.gz"):
        with records.RecordWriter(tmp_path / name) as out:
            out.write(games[0], names, tournament={"deal": 3})
            out.write(games[1])
        raw = (tmp_path / name).read_bytes()
        text = (gzip.decompress(raw) if name.endswith(".gz") else raw).decode()
        headers = [json.loads(line) for line in text.splitlines() if '"format"' in line]
        assert headers[0]["agents"] == names and headers[0]["tournament"] == {"deal": 3}
        assert "agents" not in headers[1]
        assert Game.from_record(tmp_path / name, match=1) == games[1]
    with pytest.raises(ValueError, match="agents must be four names by seat"):
        records.game_to_lines(games[0], agents=["greedy"] * 3)
    with pytest.raises(ValueError, match="'seed' is a header field of its own"):
        records.game_to_lines(games[0], seed=5)


def test_a_forged_agents_field_names_line_one():
    lines = records.game_to_lines(played(5, steps=10), agents=["a", "b", "c", "d"])
    header = json.loads(lines[0])
    header["agents"] = ["a", "b"]
    with pytest.raises(ValueError, match="record line 1: field 'agents'"):
        Game.from_record([json.dumps(header)] + lines[1:])


def test_from_record_gives_the_position_at_every_step():
    g = played(9)
    lines = g.to_record()
    total = 0                       # moves of the match: played(9, steps=total) is over
    while not played(9, steps=total).is_over:
        total += 50
    while played(9, steps=total - 1).is_over:
        total -= 1
    for k in list(range(0, total, 97)) + [total]:
        assert Game.from_record(lines, step=k) == played(9, steps=k), k
    with pytest.raises(ValueError, match=f"step {total + 1} is beyond the {total} moves"):
        Game.from_record(lines, step=total + 1)
    with pytest.raises(ValueError, match="step must be >= 0"):
        Game.from_record(lines, step=-1)


def test_replay_names_the_agents_and_the_winner(tmp_path):
    path = tmp_path / "sim.jsonl"
    result = gf.simulate(matches=2, seed=3, agents="greedy,random,greedy,random", record=path)
    text = records.render(path, match=1)
    assert "agents: team 0 seats 0,2 greedy / greedy, team 1 seats 1,3 random / random" in text
    last = Game.from_record(path, match=1)
    t = last.winner
    assert text.splitlines()[-1].startswith(f"winner: team {t}, seats {t},{t + 2} (")
    assert result.matches == 2
    unfinished = records.render(played(4, steps=30).to_record())
    assert unfinished.splitlines()[-1].startswith("(the record of this match ends after 1 hand")


def test_hand_lines_are_the_json_of_their_fields_move_for_move():
    # The writer joins each move's JSON text (made once per process); the line must still be
    # exactly json.dumps of the hand's fields, moves in platform form, by seat and in order.
    for seed in (3, 8):
        g = played(seed)
        hands = g.moves_by_hand()
        lines = g.to_record()
        assert len(lines) == 1 + len(hands)
        for line, moves in zip(lines[1:], hands):
            obj = json.loads(line)
            assert obj["moves"] == [[seat, move.to_platform()] for seat, move in moves]
            assert line == json.dumps(obj)


# -- action logs ------------------------------------------------------------------------------------

def test_action_logs_replay_hand_by_hand_into_the_same_game():
    g = played(6)
    log = g.action_log()
    moves = [(seat, move.words) for hand in g.moves_by_hand() for seat, move in hand]
    assert log.dtype.name == "uint64" and log.tolist() == [[s, *w] for s, w in moves]
    h, i, ends = Game(seed=6), 0, []
    while i < len(log):
        i = h.play_log(log, i, hand_end=True)
        ends.append(i)
        assert len(h.results) == len(ends)          # each call stopped at the end of a hand
    assert ends[-1] == len(log) and h == g
    part = Game(seed=6)
    assert part.play_log(log, 0, 5) == 5 and part.action_log().tolist() == log[:5].tolist()
    assert part.play_log(log, 5, 5) == 5


def test_a_bad_action_log_changes_nothing_and_names_the_row():
    g = played(7)
    log = g.action_log()
    h = Game(seed=7)
    assert h.play_log(log, 0, 10) == 10
    before = h.clone()
    bad = log.copy()
    bad[14, 2] ^= 1 << 60                  # row 14: another move type code
    with pytest.raises(ValueError, match="log row 14"):
        h.play_log(bad, 10)
    assert h == before and h.action_log().tolist() == before.action_log().tolist()
    bad = log.copy()
    bad[12, 0] = (bad[12, 0] + 1) % 4
    with pytest.raises(gf.IllegalMoveError, match="log row 12: seat .* moves out of turn"):
        h.play_log(bad, 10)
    assert h == before
    with pytest.raises(gf.IllegalMoveError, match=f"log row {len(log)}: the match is over"):
        Game(seed=7).play_log(log[list(range(len(log))) + [0]].copy())
    for arg, exc, msg in [([[0, 1, 2]], TypeError, "C-contiguous .n, 3. uint64 array"),
                          (log.astype("int64"), TypeError, "uint64"),
                          (log[:, :2].copy(), ValueError, "3 columns, not 2"),
                          (log[::2], TypeError, "C-contiguous")]:
        with pytest.raises(exc, match=msg):
            h.play_log(arg, 10)
    for kw, msg in [(dict(start=-1), "start must be in 0"), (dict(start=10, stop=9), "stop must"),
                    (dict(start=len(log) + 1), "start must be in")]:
        with pytest.raises(ValueError, match=msg):
            h.play_log(log, **kw)
    assert h == before


def test_records_from_a_log_equal_the_records_of_the_game_setup_and_cut_included():
    hands = [list(Game(seed=9).hand(p)) for p in range(4)]
    g = Game.setup(hands, levels=(14, 9), declarer=1, previous_finish=[1, 2, 0, 3])
    rng = __import__("random").Random(9)
    while not g.is_over and len(g.results) < 2:
        g.play_index(rng.randrange(g.num_legal()))
    for cut in (len(g.history), len(g.history) // 2):
        part = g.clone() if cut == len(g.history) else Game.from_record(g.to_record(), step=cut)
        lines = records.log_to_lines(Game, part.seed, part.rules, part.origin, part.action_log(),
                                     agents=["a", "b", "c", "d"], note=cut)
        header = json.loads(lines[0])
        assert header["note"] == cut and header["agents"] == ["a", "b", "c", "d"]
        assert header["setup"] == part.origin and len(lines) == 1 + part.hand_number + 1
        assert Game.from_record(lines) == part      # every field checked by the reader's replay

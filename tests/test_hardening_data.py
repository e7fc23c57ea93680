"""Hardening (issue 13), data side: record paths, record validation, records at scale, card
parsing, counts, the lazy reference, shipped type hints and the README's platform recipe."""

import ast
import gzip
import inspect
import io
import json
import os
import pathlib
import random
import subprocess
import sys
import tracemalloc

import pytest

import guandan_fast as gf
from guandan_fast import records
from guandan_fast.game import Game
from guandan_fast.reference.simulate import simulate_reference

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = pathlib.Path(gf.__file__).resolve().parent


def _played(seed, steps=None):
    g = Game(seed=seed)
    rng = random.Random(seed)
    n = 0
    while not g.is_over and (steps is None or n < steps):
        g.play_index(rng.randrange(g.num_legal()))
        n += 1
    return g


def _with_tribute():
    """A finished match whose second hand (line 3) has a tribute and a return."""
    for seed in range(100):
        g = _played(seed)
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


# -- 1. paths --------------------------------------------------------------------------------------

def test_record_targets_refuse_ints_instead_of_using_them_as_descriptors(tmp_path):
    g = _played(3, steps=50)
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
    g = _played(4, steps=120)
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
    g = _played(6)
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
        Game.from_record([_played(1, steps=1).to_record()[0], 7])


# -- 2. validation ---------------------------------------------------------------------------------

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
    lines = _played(8, steps=30).to_record()
    for edit, message in [
        (lambda h: h.__setitem__("seed", "7"), "record line 1: field 'seed'"),
        (lambda h: h.__setitem__("rules", []), "record line 1: field 'rules'"),
        (lambda h: h.__setitem__("setup", {"hands": []}), "record line 1: field 'setup'"),
    ]:
        with pytest.raises(ValueError, match=message):
            Game.from_record(_edit(lines, 1, edit))


def test_hostile_record_lines_are_value_errors():
    header = _played(1, steps=1).to_record()[0]
    cases = [
        ([header, "[" * 100_000], "record line 2: not a record line"),
        ([header, '{"hand": ' + "9" * 5000 + "}"], "record line 2: not a record line"),
        ([header.encode(), b"\xff\xfe\x00binary"], "record line 2: not UTF-8"),
    ]
    for lines, message in cases:
        with pytest.raises(ValueError, match=message):
            Game.from_record(lines)


# -- 3. records at scale ---------------------------------------------------------------------------

def test_replay_stops_reading_at_the_end_of_the_chosen_match():
    a, b = _played(11), _played(12, steps=200)

    def source():
        yield from a.to_record()
        yield b.to_record()[0]
        raise AssertionError("read past the next header")

    assert Game.from_record(source()) == a
    assert records.render(source()).count("== hand ") == len(a.results)


def test_replay_memory_does_not_grow_with_the_file(tmp_path):
    one = _played(13).to_record()
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


# -- 5. silent acceptance --------------------------------------------------------------------------

@pytest.mark.parametrize("token", ["С9", "Ｓ9", "ſ9", "ﬅ", "Ｈ10", "S９", "𝐒9", "Һ7"])
def test_parse_cards_rejects_look_alike_letters(token):
    with pytest.raises(ValueError, match="unknown card code"):
        gf.parse_cards(token)
    with pytest.raises(ValueError, match="unknown card code"):
        gf.Hand(f"S2 {token}")


def test_parse_cards_accepts_the_documented_spellings():
    assert gf.parse_cards("♠9 ♥10 ♣A ♦2 s9 hT SB hr") == (
        "S9", "HT", "CA", "D2", "S9", "HT", "SB", "HR")
    with pytest.raises(ValueError, match="level must be"):
        gf.parse_level("ᴀ")


@pytest.mark.parametrize("kwargs, message", [
    ({"matches": 0}, "matches must be >= 1"),
    ({"matches": -3}, "matches must be >= 1"),
    ({"hands": 0}, "hands must be >= 1"),
    ({"matches": 1, "threads": 0}, "threads must be >= 1"),
    ({"matches": 1, "threads": 10_000}, "threads must be 1..1024"),
])
def test_simulate_refuses_empty_and_absurd_counts(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gf.simulate(**kwargs)


@pytest.mark.parametrize("matches", [0, -1])
def test_reference_simulate_refuses_counts_the_fast_one_refuses(matches):
    with pytest.raises(ValueError, match="matches must be >= 1"):
        simulate_reference(matches=matches)
    with pytest.raises(ValueError, match="matches must be >= 1"):
        gf.simulate(matches=matches)
    with pytest.raises(TypeError, match="matches must be an int"):
        simulate_reference(matches=1.0)


# -- 7. what users expect --------------------------------------------------------------------------

def test_reference_is_reachable_lazily_from_the_package():
    code = ("import sys, guandan_fast as gf\n"
            "assert 'guandan_fast.reference' not in sys.modules\n"
            "assert gf.reference.Game(seed=1).hand_number == 0\n"
            "assert 'guandan_fast.reference' in sys.modules\n"
            "try:\n    gf.no_such_name\nexcept AttributeError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "no attribute 'no_such_name'" in out.stdout


COMPILED = ["codec", "movegen_core", "movegen", "bench_hooks", "game_core", "game", "perft_core",
            "bots", "simulate_core", "actions", "observe", "vecenv", "sample", "solve", "search",
            "tournament_core", "rules_core"]


def _stub(name):
    path = PACKAGE / f"{name}.pyi"
    return ast.parse(path.read_text(encoding="utf-8"))


def _defs(body):
    out = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.setdefault(node.name, node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.asname == alias.name:  # an explicit re-export
                    out[alias.name] = node
    return out


def test_type_hints_are_shipped_with_the_package():
    assert (PACKAGE / "py.typed").is_file()
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'wheel.packages = ["python/guandan_fast"]' in pyproject
    assert PACKAGE == (ROOT / "python" / "guandan_fast").resolve() or (PACKAGE / "game.pyi").is_file()


@pytest.mark.parametrize("name", COMPILED)
def test_stubs_cover_every_public_name_of_the_compiled_modules(name):
    import importlib

    module = importlib.import_module(f"guandan_fast.{name}")
    defs = _defs(_stub(name).body)
    public = [n for n in dir(module) if not n.startswith("_")
              and not inspect.ismodule(getattr(module, n))]
    missing = [n for n in public if n not in defs]
    assert not missing, f"{name}.pyi lacks {missing}"
    for n in public:
        obj = getattr(module, n)
        node = defs[n]
        if isinstance(node, ast.FunctionDef) and callable(obj):
            params = [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
            assert params == list(inspect.signature(obj).parameters), (name, n)
        if isinstance(node, ast.ClassDef) and getattr(obj, "__module__", "") == module.__name__:
            members = _defs(node.body)
            for attr, value in vars(obj).items():
                if attr.startswith("_"):
                    continue
                assert attr in members, f"{name}.pyi: {n}.{attr} missing"
                stub = members[attr]
                try:
                    sig = inspect.signature(value.__func__ if isinstance(value, (staticmethod, classmethod)) else value)
                except (TypeError, ValueError):
                    continue
                params = [a.arg for a in stub.args.posonlyargs + stub.args.args + stub.args.kwonlyargs]
                if isinstance(value, classmethod):
                    params = params[1:]
                    sig_params = list(sig.parameters)[1:] if "cls" in sig.parameters else list(sig.parameters)
                else:
                    sig_params = list(sig.parameters)
                assert params == sig_params, (name, n, attr, params, sig_params)


def test_readme_platform_recipe_matches_the_protocol():
    # PROTOCOL.md "Platform rules that differ": A won only by 1st-2nd, back to 2 after 2
    # failed hands at A; the platform shows every card count.
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = re.search(r"competition\s+platform", readme).start()
    recipe = re.search(r"gf\.Rules\([^)]*\)", readme[start:]).group(0)
    rules = eval(recipe, {"gf": gf})
    assert rules == gf.Rules(ace_rule="double_only", ace_fail_reset=2, count_disclosure="always")

"""The replay viewer's data and files (guandan_fast.web.viewer), without a browser."""

import gzip
import json
import re

import pytest

from guandan_fast import Game, simulate
from guandan_fast.cli import main
from guandan_fast.records import read
from guandan_fast.web.viewer import match_document, match_offsets, viewer_html


@pytest.fixture(scope="module")
def record(tmp_path_factory):
    path = tmp_path_factory.mktemp("rec") / "games.jsonl"
    simulate(matches=6, agents=("greedy", "random", "greedy", "random"), seed=3, record=str(path))
    return path


def test_offsets_are_the_header_lines(record):
    data = record.read_bytes()
    starts, pos = [], 0
    for line in data.splitlines(keepends=True):
        if json.loads(line).get("format"):
            starts.append(pos)
        pos += len(line)
    assert match_offsets(record) == starts and len(starts) == 6


def test_offsets_of_odd_files(tmp_path):
    empty = tmp_path / "e.jsonl"
    empty.write_bytes(b"")
    assert match_offsets(empty) == []
    one = tmp_path / "o.jsonl"
    one.write_bytes(b'{"format": "guandan-fast"}')          # no final newline
    assert match_offsets(one) == [0]


def test_document_matches_the_record(record):
    matches = read(record)
    for m in (0, 5):
        doc = match_document(record, m)
        header, hands = matches[m]
        assert doc["match"] == m and doc["matches"] == 6 and doc["seed"] == str(header["seed"])
        assert [h["hand"] for h in doc["hands"]] == [h["hand"] for _, h in hands]
        for got, (_, want) in zip(doc["hands"], hands):
            assert [[s, a] for s, a, _ in got["moves"]] == want["moves"]
            assert got["deal"] == want["deal"] and got["tribute"] == want["tribute"]
            leads = [lead for _, _, lead in got["moves"]]
            assert leads.count(True) >= 5          # several tricks per hand
        assert doc["over"] is True


def test_gzip_record_and_lines(record, tmp_path):
    gz = tmp_path / "g.jsonl.gz"
    gz.write_bytes(gzip.compress(record.read_bytes()))
    assert match_document(gz, 4)["hands"] == match_document(record, 4)["hands"]
    g = Game(seed=7)
    for _ in range(30):
        g.play_index(0)
    doc = match_document(g.to_record())
    assert doc["over"] is False and doc["hands"][0]["finish_order"] is None


def test_bad_input(record, tmp_path):
    with pytest.raises(ValueError, match="holds 6 match"):
        match_document(record, 6)
    with pytest.raises(ValueError, match="no such record file"):
        match_document(tmp_path / "none.jsonl", 0)
    bad = tmp_path / "bad.jsonl"
    lines = record.read_text().splitlines()
    h = json.loads(lines[1])
    h["moves"][3][1] = ["Single", "3", ["S3"]] if h["moves"][3][1][2] != ["S3"] else ["Single", "4", ["S4"]]
    bad.write_text("\n".join([lines[0], json.dumps(h)]) + "\n")
    with pytest.raises(ValueError, match="record line 2"):
        match_document(bad, 0)


def test_cli_view_html_is_self_contained(record, tmp_path, capsys):
    out = tmp_path / "m.html"
    assert main(["view", str(record), "--match", "2", "--html", str(out)]) == 0
    text = out.read_text()
    assert "<script src" not in text and "@import" not in text and "url(" not in text
    refs = re.findall(r'(?:src|href)="([^"]*)"', text)
    assert refs and all(r.startswith(("data:", "#")) for r in refs), refs   # all inline
    assert "wrote match 2" in capsys.readouterr().out
    assert main(["view", str(record), "--match", "9", "--html", str(out)]) == 2
    assert "holds 6 match" in capsys.readouterr().err


def test_cli_view_serves_the_page_and_stops_on_a_signal(record):
    import signal
    import subprocess
    import sys
    import urllib.error
    import urllib.request

    proc = subprocess.Popen([sys.executable, "-m", "guandan_fast", "view", str(record), "--match",
                             "2", "--no-browser"], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("viewing match 2 at ")     # people count from 1
        url = re.search(r"http://\S+/", line).group(0)
        body = urllib.request.urlopen(url, timeout=10).read().decode()
        assert 'id="gf-config"' in body and '"match":1' in body
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(url + "elsewhere", timeout=10)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
        assert "stopped" in proc.stdout.read()
    finally:
        if proc.poll() is None:
            proc.kill()

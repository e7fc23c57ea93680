"""``guandan-fast view``: one match of a record in the browser, all four hands face up.

A record may hold thousands of matches: ``match_offsets`` finds where each match starts by
scanning the bytes for header lines (nothing is parsed), and ``match_document`` reads only the
chosen match from its offset, checks it as ``Game.from_record`` does and turns it into the
page's data: per hand the deal, the exchange, the levels, the finishing order and every move
with a flag saying whether it led a trick. gzip records cannot be entered in the middle: they
are read through ``records`` (which skips earlier matches unparsed).

>>> from guandan_fast import Game
>>> g = Game(seed=3)
>>> for _ in range(12):
...     g.play_index(0)
>>> doc = match_document(g.to_record())
>>> doc["seed"], len(doc["hands"]), doc["hands"][0]["moves"][0][2]
('3', 1, True)
"""

from __future__ import annotations

import gzip
import json
import os

from .. import records
from ..cards import level_char
from ..game import Game
from .pages import page

__all__ = ["match_offsets", "match_document", "viewer_html", "write_html", "serve"]

_KEY = b'"format"'


def _is_gzip(path) -> bool:
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def match_offsets(path) -> list[int]:
    """Byte offsets of the header lines (one per match) of a plain JSON Lines record.

    Only lines holding ``"format"`` can be headers (a hand line never does), so the file is
    searched for that string (memory-mapped: nothing is copied or parsed) and each hit is
    taken back to its line's start.
    """
    import mmap

    offsets: list[int] = []
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return offsets
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            i = mm.find(_KEY)
            while i >= 0:
                offsets.append(mm.rfind(b"\n", 0, i) + 1)
                end = mm.find(b"\n", i)   # one header per line: go on after this line
                if end < 0:
                    break
                i = mm.find(_KEY, end)
    return offsets


def _match_lines(path, offset: int):
    """The lines of the match whose header starts at ``offset`` (read up to the next header)."""
    with open(path, "rb") as f:
        f.seek(offset)
        first = True
        for raw in iter(lambda: f.readline(records.MAX_LINE + 1), b""):
            if not first and _KEY in raw:
                return
            first = False
            yield raw


def _names(header: dict) -> list:
    server = header.get("server")
    if isinstance(server, dict) and isinstance(server.get("players"), list) and len(server["players"]) == 4:
        return [str(n) for n in server["players"]]
    tour = header.get("tournament")
    if isinstance(tour, dict) and isinstance(tour.get("agents"), list) and len(tour["agents"]) == 4:
        return [str(n) for n in tour["agents"]]
    agents = header.get("agents")
    if isinstance(agents, list) and len(agents) == 4:
        return [str(n) for n in agents]
    return [None] * 4   # unnamed: the page says "seat N"


def _raw_lines(source):
    if isinstance(source, str) and source.lstrip().startswith("{"):
        yield from source.splitlines()
    elif isinstance(source, (str, os.PathLike)):
        opener = gzip.open if _is_gzip(source) else open
        with opener(source, "rb") as f:
            yield from iter(lambda: f.readline(records.MAX_LINE + 1), b"")
    else:
        yield from source


def _header_of(source, match: int) -> dict:
    """The header of match ``match`` as recorded (with its ``server``/``tournament`` parts);
    the match was checked by ``records.replay`` already."""
    index = -1
    for line in _raw_lines(source):
        text = line.decode("utf-8") if isinstance(line, (bytes, bytearray)) else line
        if '"format"' in text:
            index += 1
            if index == match:
                return json.loads(text)
    raise ValueError(f"no match {match}")


def match_document(source, match: int = 0) -> dict:
    """The viewer's data for match ``match`` of a record (a path, gzip or not, or lines as
    ``records`` reads them), checked move by move (``ValueError`` naming the line otherwise).
    A plain file is entered at the match's byte offset (``match_offsets``)."""
    if isinstance(match, bool) or not isinstance(match, int) or match < 0:
        raise ValueError(f"match must be an int >= 0, got {match!r}")
    count = None
    number = match
    if isinstance(source, (str, os.PathLike)) and not str(source).lstrip().startswith("{"):
        if not os.path.isfile(source):
            raise ValueError(f"no such record file: {os.fspath(source)!r}")
        if not _is_gzip(source):
            offsets = match_offsets(source)
            count = len(offsets)
            if not offsets:
                raise ValueError("empty record: no header line")
            if match >= count:
                raise ValueError(f"the record holds {count} match(es); no match {match + 1}")
            source, match = list(_match_lines(source, offsets[match])), 0
    game = records.replay(source, Game, match)   # checks every line of the match
    header = _header_of(source, match)
    lines = game.to_record()
    start = Game.from_record(lines[:1])
    hands = []
    for text in lines[1:]:
        h = json.loads(text)
        moves = []
        for seat, action in h["moves"]:
            lead = start.phase == "play" and start.observation(seat)["top"] is None
            start.play(action, seat=seat)
            moves.append([seat, action, lead])
        h["moves"] = moves
        h["levelChar"] = level_char(h["level"])
        h["levelsBeforeChars"] = [level_char(v) for v in h["levels_before"]]
        if h["levels_after"] is not None:
            h["levelsAfterChars"] = [level_char(v) for v in h["levels_after"]]
        hands.append(h)
    # the seed as text: a 64-bit seed is beyond JavaScript's exact integers
    return {"seed": str(header["seed"]), "rules": header["rules"], "match": number, "matches": count,
            "players": _names(header), "end": (header.get("server") or {}).get("end"),
            "over": game.is_over, "winner": game.winner, "hands": hands}


def viewer_html(doc: dict, title: str | None = None) -> str:
    """The self-contained page of a match document."""
    return page("viewer", {"match": doc}, title or "guandan-fast: match replay")


def write_html(source, out, match: int = 0) -> None:
    """Write match ``match`` of ``source`` as one self-contained HTML file ``out``."""
    doc = match_document(source, match)
    text = viewer_html(doc)
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)


def serve(doc: dict, port: int = 0, browser: bool = True, out=print) -> int:
    """Serve the viewer page of ``doc`` on 127.0.0.1 until Ctrl-C or SIGTERM (``guandan-fast
    view``); returns the number of the signal that stopped it."""
    import http.server
    import threading

    body = viewer_html(doc).encode("utf-8")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path.split("?")[0] not in ("/", "/index.html"):
                self.send_error(404, "the viewer has one page: /")
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    import signal

    got = {"signal": signal.SIGINT}

    def stop(signum, frame):
        got["signal"] = signum
        raise KeyboardInterrupt

    # Ctrl-C and SIGTERM stop it, even where SIGINT was ignored at start (a background job)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    try:   # (a signal right after the URL is printed is handled here too)
        url = f"http://127.0.0.1:{httpd.server_address[1]}/"
        out(f"viewing match {doc['match'] + 1} at {url}  (Ctrl-C stops)", flush=True)
        if browser:
            import webbrowser
            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
        httpd.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        out("interrupted (Ctrl-C): the viewer stopped" if got["signal"] == signal.SIGINT
            else "stopped by SIGTERM")
    finally:
        httpd.server_close()
    return got["signal"]

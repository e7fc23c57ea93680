"""Game records as JSON Lines: one match per record, replayable and readable.

A record is a header line and then one line per hand (docs/design.md deals and moves):

* header: ``{"format": "guandan-fast", "version": 1, "rules": {...}, "seed": S,
  "setup": null | {...}, "agents": [4 names by seat]}`` (``setup`` holds the ``Game.setup``
  arguments of a match that started from a constructed hand; null for ``Game(seed)``;
  ``agents`` when the writer knows who played; a writer may add its own object, e.g.
  ``"tournament"`` or ``"server"``);
* hand: ``{"hand": i, "level": L, "declarer": team | null, "levels_before": [a, b],
  "deal": [[codes of seat 0], ...], "anti_tribute": bool,
  "tribute": [[payer, receiver, card], ...], "back": [[receiver, payer, card], ...],
  "moves": [[seat, platform action], ...], "finish_order": [...] | null,
  "levels_after": [a, b] | null}`` (``null`` for a hand still being played).

Several records may follow each other in one file (each starts with its header line).
Replaying (``replay``, ``Game.from_record``, ``render`` and ``guandan-fast replay``, all the
same code) checks every field of the chosen match: the header, every deal against the
generator, the exchange (tribute, back, anti-tribute), every seat and move for legality and
every hand's outcome; any disagreement raises ``ValueError`` naming the line (and field).
Files are read line by line, gzip-compressed ones too (recognised by content); earlier matches
are skipped unparsed and reading stops at the end of the chosen one (docs/records.md).

>>> from guandan_fast.game import Game
>>> g = Game(seed=7)
>>> for _ in range(10):
...     g.play_index(0)
>>> lines = g.to_record()
>>> json.loads(lines[0])["seed"], json.loads(lines[1])["hand"]
(7, 0)
>>> replay(lines, Game) == g
True
>>> replay([lines[0], lines[1].replace('"hand": 0', '"hand": 3')], Game)
Traceback (most recent call last):
...
ValueError: record line 2: hand number 3, expected 0
"""

from __future__ import annotations

import errno
import gzip
import io
import json
import os
import struct
import zlib

from .cards import level_char, sort_cards
from .codec import move as move_of_words
from .moves import Move
from .rules import Rules
from .validate import check_count

FORMAT = "guandan-fast"
VERSION = 1

__all__ = ["FORMAT", "VERSION", "game_to_lines", "log_to_lines", "header_lines", "write", "read",
           "replay", "render", "check_output", "record_game", "RecordWriter"]


def _origin_game(game_cls, seed, rules, setup):
    if setup is None:
        return game_cls(seed, rules)
    return game_cls.setup(setup["hands"], levels=tuple(setup["levels"]),
                          declarer=setup["declarer"],
                          previous_finish=setup["previous_finish"], leader=setup["leader"],
                          seed=seed, rules=rules)


def _exchange(game) -> tuple[list, list, bool]:
    """Tribute and returns of the current hand as everyone sees them once it is done."""
    obs = game.observation(0)
    return ([list(t) for t in obs["tribute"]], [list(b) for b in obs["back"]],
            obs["anti_tribute"])


def game_to_lines(game, agents=None, **extra) -> list[str]:
    """The record of a compiled ``Game`` (its whole match so far) as JSON strings; the header
    names the ``agents`` by seat when given and carries the ``extra`` header fields.

    The match is replayed from its start (``log_to_lines``) to recover each hand's deal and
    exchange.
    """
    return log_to_lines(type(game), game.seed, game.rules, game.origin, game.action_log(),
                        agents, **extra)


def header_lines(seeds, rules, setup=None, agents=None, /, **extra) -> list[str]:
    """The header lines (JSON) of the records of matches started from each of ``seeds``,
    ``rules`` and ``setup`` (``Game.origin``, or None), their ``agents`` by seat when known
    and ``extra`` header fields (what ``log_to_lines`` writes first).

    >>> from guandan_fast.rules import Rules
    >>> [json.loads(h)["seed"] for h in header_lines([9, 4], Rules(), None, ["a", "b"] * 2)]
    [9, 4]
    """
    header = {"format": FORMAT, "version": VERSION, "rules": rules.to_dict(),
              "seed": None, "setup": setup}
    if agents is not None:
        header["agents"] = _check_agent_names(agents)
    for key, value in extra.items():
        if key in header:
            raise ValueError(f"{key!r} is a header field of its own, not an extra one")
        header[key] = value
    # One encoding for all: the seed's text goes where null stands (the first '"seed": '
    # is the header's own: it follows the rules, whose keys are switch names).
    head, tail = json.dumps(header).split('"seed": null', 1)
    return [f'{head}"seed": {json.dumps(seed)}{tail}' for seed in seeds]


def log_to_lines(game_cls, seed, rules, setup, log, /, agents=None, **extra) -> list[str]:
    """The record of a match given by how it started (``seed``, ``rules`` and the ``setup``
    dict of ``Game.origin``, or None) and its action log (``Game.action_log()``,
    ``simulate_core.record_match``), as JSON strings. The log is replayed once, in a
    ``game_cls`` game, which checks every move.

    >>> from guandan_fast.game import Game
    >>> g = Game(seed=5); g.play_index(0)
    >>> lines = log_to_lines(Game, 5, g.rules, None, g.action_log(), agents=["a"] * 4)
    >>> Game.from_record(lines) == g        # the reader replays and checks every field
    True
    """
    lines = header_lines([seed], rules, setup, agents, **extra)
    replica = _origin_game(game_cls, seed, rules, setup)
    replica.play_log(log, 0, 0)          # checks the log's type and shape (plays nothing)
    data = memoryview(log).tobytes()
    i, n, hand = 0, len(log), 0
    while True:
        line = {"hand": hand, "level": replica.level, "declarer": replica.declarer,
                "levels_before": list(replica.levels),
                "deal": [list(replica.hand(p)) for p in range(4)]}
        tribute, back, anti = _exchange(replica)
        first = i
        while replica.phase in ("tribute", "back") and i < n:
            i = replica.play_log(log, i, i + 1)
            if replica.phase == "play":
                tribute, back, anti = _exchange(replica)  # the exchange just completed
        i = replica.play_log(log, i, hand_end=True)
        results = replica.results
        done = hand < len(results)
        line.update({"anti_tribute": anti, "tribute": tribute, "back": back,
                     "moves": _MOVES_HERE,
                     "finish_order": results[hand]["finish_order"] if done else None,
                     "levels_after": list(results[hand]["levels"]) if done else None})
        lines.append(json.dumps(line).replace(_MOVES_HERE_JSON, _moves_json(data, first, i), 1))
        if replica.hand_number == hand:   # the match is over, or the log ends in this hand
            break
        hand += 1                         # (a line for the next hand, even with no moves yet)
    if i < n:
        raise ValueError(f"log row {i}: the match is over")
    return lines


# A hand's moves are most of its line: the JSON text of each (seat, move) is made once per
# process and joined (as json.dumps would write the list), in place of this marker in the
# line's JSON. The texts are found by the log row's 24 bytes (making Python ints of the
# 64-bit words would cost more than the rest of the line).
_MOVES_HERE = "\x00moves\x00"
_MOVES_HERE_JSON = json.dumps(_MOVES_HERE)
_MOVE_TEXT: dict = {}                  # log row bytes -> '[seat, [type, rank, [cards]]]'
_MOVE_TEXT_MAX = 1 << 17
_ROW = struct.Struct("=QQQ")           # a log row: seat, lo, hi (native uint64)


def _moves_json(data: bytes, first: int, stop: int) -> str:
    """``json.dumps([[seat, move.to_platform()], ...])`` of rows ``first .. stop-1`` of a log
    given as its bytes, faster."""
    size = _ROW.size
    keys = [data[k:k + size] for k in range(first * size, stop * size, size)]
    parts = list(map(_MOVE_TEXT.get, keys))
    if None in parts:
        if len(_MOVE_TEXT) >= _MOVE_TEXT_MAX:
            _MOVE_TEXT.clear()
        for j, key in enumerate(keys):
            if parts[j] is None:
                seat, lo, hi = _ROW.unpack(key)
                parts[j] = _MOVE_TEXT[key] = json.dumps(
                    [seat, move_of_words(lo, hi).to_platform()])
    return "[" + ", ".join(parts) + "]"


# -- files -------------------------------------------------------------------------------------
#: Longest line a record may hold (a hand line is about 5 KB): a bound on the memory a binary
#: or hostile file can take.
MAX_LINE = 16 << 20


def _check_agent_names(agents) -> list[str]:
    if isinstance(agents, str) or not isinstance(agents, (list, tuple)) or len(agents) != 4 \
            or not all(isinstance(a, str) for a in agents):
        raise ValueError(f"agents must be four names by seat, got {agents!r}"[:300])
    return list(agents)


def _is_path(obj) -> bool:
    return isinstance(obj, (str, os.PathLike))


def check_output(target, name: str = "path") -> None:
    """Raise ``TypeError`` naming ``name`` unless ``target`` is a path or a file object
    (``ValueError`` if that file is closed or not writable; ``FileNotFoundError`` if the folder
    of the path does not exist, before any work is done).

    An ``int`` is refused: ``open()`` would take it for a file descriptor (and close it).

    >>> check_output(1, "record")
    Traceback (most recent call last):
    ...
    TypeError: record must be a path (str or os.PathLike) or a file object open for writing, not int
    """
    if _is_path(target):
        folder = os.path.dirname(os.fsdecode(target))
        if folder and not os.path.isdir(folder):
            raise FileNotFoundError(errno.ENOENT, f"{name}: no such folder: {folder}",
                                    os.fsdecode(target))
        return
    if not isinstance(target, (int, float, bytes, bytearray)) and callable(getattr(target, "write", None)):
        writable = getattr(target, "writable", None)
        if callable(writable) and not writable():  # (a closed file raises ValueError here)
            raise ValueError(f"{name}: the file object is not open for writing")
        return
    raise TypeError(f"{name} must be a path (str or os.PathLike) or a file object open for "
                    f"writing, not {type(target).__name__}")


class RecordWriter:
    """The one writer of records: matches streamed to a path (gzip-compressed when it ends in
    ``.gz``) or to a file object given by the caller (written to, not closed), one match at a
    time as they end. Used by ``simulate``, ``tournament``, the server and ``Game.to_record``.

    >>> import io
    >>> from guandan_fast.game import Game
    >>> buf = io.StringIO()
    >>> with RecordWriter(buf) as w:
    ...     w.write(Game(seed=3), agents=["greedy", "random", "greedy", "random"])
    >>> json.loads(buf.getvalue().splitlines()[0])["agents"]
    ['greedy', 'random', 'greedy', 'random']
    """

    def __init__(self, target, name: str = "path", append: bool = False) -> None:
        check_output(target, name)
        self.close_it = _is_path(target)
        if self.close_it:
            mode = "a" if append else "w"
            if os.fsdecode(target).endswith(".gz"):
                self.f = gzip.open(target, mode + "t", encoding="utf-8")
            else:
                self.f = open(target, mode, encoding="utf-8")
            self.binary = False
        else:
            self.f = target
            self.binary = (isinstance(target, (io.RawIOBase, io.BufferedIOBase))
                           or "b" in str(getattr(target, "mode", "")))

    def lines(self, lines) -> None:
        """A match's lines, already JSON (records made elsewhere, e.g. by a worker), in one
        write: Ctrl-C arrives between Python steps, so it never leaves half a match."""
        text = "".join(line + "\n" for line in lines)
        self.f.write(text.encode("utf-8") if self.binary else text)

    def block(self, data: bytes) -> None:
        """Whole matches' lines already encoded (UTF-8 JSON Lines, each line ending in a
        newline: ``simulate_core.record_chunk``), in one write, as ``lines``."""
        self.f.write(data if self.binary else data.decode("utf-8"))

    def write(self, game, agents=None, **extra) -> None:
        """The record of ``game`` (``game_to_lines``: its agents and extra header fields)."""
        self.lines(game_to_lines(game, agents, **extra))

    def __enter__(self):
        return self

    def close(self) -> None:
        """Close a file this object opened; flush a caller's file object."""
        if self.close_it:
            self.f.close()
        elif hasattr(self.f, "flush"):
            self.f.flush()

    def __exit__(self, *exc) -> None:
        self.close()


def write(path, games, append: bool = False) -> None:
    """Write the records of some games (one after another) to ``path``: a file name (``.gz``:
    gzip-compressed) or a file object (written to, not closed)."""
    with RecordWriter(path, "path", append) as out:
        for g in games:
            out.write(g)


def record_game(game, path=None) -> list[str]:
    """``Game.to_record``: the lines, also written to ``path`` when given (checked first)."""
    if path is not None:
        check_output(path, "path")
    lines = game_to_lines(game)
    if path is not None:
        with RecordWriter(path, "path") as out:
            out.lines(lines)
    return lines


def _binary_lines(f, where: str):
    """``(number, text)`` of a binary stream's lines, decoded one at a time."""
    n = 0
    while True:
        try:
            raw = f.readline(MAX_LINE + 1)
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            raise ValueError(f"record line {n + 1}: {where} is a damaged gzip file ({exc})") from None
        if not raw:
            return
        n += 1
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            raise ValueError(f"record line {n}: longer than {MAX_LINE} bytes (not a record)")
        try:
            yield n, raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"record line {n}: not UTF-8 text (is {where} a binary file?)") from None


def _path_lines(path):
    with open(path, "rb") as f:
        magic = f.read(2)
        f.seek(0)
        if magic == b"\x1f\x8b":
            with gzip.open(f, "rb") as g:
                yield from _binary_lines(g, repr(os.fspath(path)))
        else:
            yield from _binary_lines(f, repr(os.fspath(path)))


def _numbered_lines(source, name: str = "path_or_lines"):
    """``(line number, text)`` of a record source, read lazily: a path (``str`` or
    ``os.PathLike``; gzip files are recognised by their content), JSON Lines text (a ``str``
    starting with ``{``), a file object, or an iterable of lines (``str`` or ``bytes``)."""
    if isinstance(source, str) and source.lstrip().startswith("{"):
        return enumerate(source.splitlines(), start=1)
    if _is_path(source):
        return _path_lines(source)
    if isinstance(source, (bytes, bytearray)):
        return _binary_lines(io.BytesIO(bytes(source)), "the data")
    if isinstance(source, (io.RawIOBase, io.BufferedIOBase)):
        return _binary_lines(source, "the file")
    if isinstance(source, (int, float, bool)) or source is None or not hasattr(source, "__iter__"):
        raise TypeError(f"{name} must be a path (str or os.PathLike), a file object or an "
                        f"iterable of lines, not {type(source).__name__}")

    def lines():
        for n, item in enumerate(source, start=1):
            if isinstance(item, (bytes, bytearray)):
                try:
                    item = bytes(item).decode("utf-8")
                except UnicodeDecodeError:
                    raise ValueError(f"record line {n}: not UTF-8 text") from None
            elif not isinstance(item, str):
                raise TypeError(f"record line {n}: a line must be str or bytes, "
                                f"not {type(item).__name__}")
            yield n, item
    return lines()


class _Lines:
    """``(n, text)`` lines that can tell, when asked, whether the one just read was the
    last (peeking one line ahead only then: reading stays lazy)."""

    def __init__(self, numbered) -> None:
        self.it, self.ahead = iter(numbered), []

    def __iter__(self):
        return self

    def __next__(self):
        return self.ahead.pop() if self.ahead else next(self.it)

    def at_end(self) -> bool:
        if not self.ahead:
            item = next(self.it, None)
            if item is None:
                return True
            self.ahead.append(item)
        return False


def _parse(n: int, text: str, lines: "_Lines | None" = None):
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        if lines is not None and lines.at_end() and _cut_short(text):
            # every whole record line is a JSON object: the file stops inside its last one
            # (a writer stopped in the middle of the line)
            raise ValueError(f"record line {n}: cut short (the line ends in the middle of its "
                             f"JSON: was the writer stopped? the matches before it are whole)"
                             ) from None
        raise ValueError(f"record line {n}: not JSON ({exc.msg})") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise ValueError(f"record line {n}: not a record line ({exc})"[:300]) from None
    except RecursionError:
        raise ValueError(f"record line {n}: not a record line (JSON nested too deeply)") from None
    if not isinstance(obj, dict):
        raise ValueError(f"record line {n}: expected a JSON object")
    return obj


def _cut_short(text: str) -> bool:
    """Whether a file's last line stops inside its JSON object (every whole record line is
    one object): what a writer killed in the middle of a line leaves."""
    if text.rstrip().endswith("}"):
        return False
    try:
        json.loads(text)
    except ValueError:
        return True
    return False


def _check_header(n: int, obj: dict) -> dict:
    if obj.get("format") != FORMAT:
        raise ValueError(f"record line {n}: not a {FORMAT} record header")
    if obj.get("version") != VERSION:
        raise ValueError(f"record line {n}: unsupported record version "
                         f"{obj.get('version')!r} (this is version {VERSION})")
    for key in ("rules", "seed"):
        if key not in obj:
            raise ValueError(f"record line {n}: header without {key!r}")
    if "agents" in obj:
        try:
            _check_agent_names(obj["agents"])
        except ValueError as exc:
            raise ValueError(f"record line {n}: field 'agents': {exc}") from None
    return obj


def _scan(source, name: str = "path_or_lines"):
    """Stream a record: yields ``("header", n, obj)`` and ``("hand", n, obj)`` in file order.

    Only lines that may be headers (holding ``"format"``) are parsed by callers skipping
    matches, see ``_scan_match``.
    """
    seen_header = False
    lines = _Lines(_numbered_lines(source, name))
    for n, text in lines:
        if not text.strip():
            continue
        obj = _parse(n, text, lines)
        if "format" in obj:
            seen_header = True
            yield "header", n, _check_header(n, obj)
        else:
            if not seen_header:
                raise ValueError(f"record line {n}: a hand line before any header")
            yield "hand", n, obj
    if not seen_header:
        raise ValueError("empty record: no header line")


def _check_match(match, name: str = "match") -> int:
    """A 0-based index: an int (numpy integers too), not a bool, >= 0."""
    return check_count(match, name, 0)


def _scan_match(source, match: int, name: str = "path_or_lines"):
    """The header ``(n, obj)`` of match ``match`` and an iterator over its hand lines
    ``(n, obj)``; the lines of earlier matches are skipped without being parsed (only the
    possible headers among them are), reading stops at the next header."""
    match = _check_match(match)
    lines = _Lines(_numbered_lines(source, name))
    index = -1
    found = None
    last = (0, "")
    for n, text in lines:
        if not text.strip():
            continue
        last = (n, text)
        if 0 <= index < match and '"format"' not in text:
            continue  # a hand line of an earlier match: not parsed, not checked
        obj = _parse(n, text, lines)
        if "format" in obj:
            _check_header(n, obj)
            index += 1
            if index == match:
                found = (n, obj)
                break
        elif index < 0:
            raise ValueError(f"record line {n}: a hand line before any header")
    if found is None:
        if index < 0:
            raise ValueError("empty record: no header line")
        cut = ""
        if _cut_short(last[1]):
            cut = f", the last one cut short at line {last[0]} (a writer stopped mid-line)"
        raise ValueError(f"the record holds {index + 1} match(es){cut}; no match {match + 1}")

    def hands():
        for n, text in lines:
            if not text.strip():
                continue
            obj = _parse(n, text, lines)
            if "format" in obj:
                return
            yield n, obj
    return found, hands()


def read(path_or_lines) -> list[tuple[dict, list[tuple[int, dict]]]]:
    """Parse a whole record: a list of ``(header, [(line number, hand dict), ...])`` per
    match (everything in memory: for large files use ``replay``/``render``, which stream).

    >>> read(['{"format": "guandan-fast", "version": 2}'])
    Traceback (most recent call last):
    ...
    ValueError: record line 1: unsupported record version 2 (this is version 1)
    """
    matches = []
    for kind, n, obj in _scan(path_or_lines):
        if kind == "header":
            matches.append((obj, []))
        else:
            matches[-1][1].append((n, obj))
    return matches


def _json_eq(a, b) -> bool:
    # Strict equality as JSON: True is not 1, 2.0 is not 2, a tuple is its list.
    return json.dumps(a) == json.dumps(b)


def _norm_exchange(rows) -> list:
    return sorted(json.dumps(r) for r in rows)


def _start(game_cls, n: int, header: dict):
    seed = header["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"record line {n}: field 'seed': expected an int, got {seed!r}"[:300])
    if not isinstance(header["rules"], dict):
        raise ValueError(f"record line {n}: field 'rules': expected a JSON object")
    try:
        rules = Rules.from_dict(header["rules"])
    except (TypeError, ValueError) as exc:
        raise ValueError(f"record line {n}: field 'rules': bad rules: {exc}") from None
    setup = header.get("setup")
    if setup is not None:
        keys = ("hands", "levels", "declarer", "previous_finish", "leader")
        if not isinstance(setup, dict) or any(k not in setup for k in keys):
            raise ValueError(f"record line {n}: field 'setup': expected null or an object "
                             f"with {', '.join(keys)}")
        if not isinstance(setup["levels"], list):
            raise ValueError(f"record line {n}: field 'setup': levels must be a list")
    try:
        game = _origin_game(game_cls, seed, rules, setup)
    except (TypeError, ValueError, KeyError, OverflowError) as exc:
        raise ValueError(f"record line {n}: field 'setup': cannot start the match: {exc}") from None
    return rules, game


def _walk(source, game_cls, match: int = 0, name: str = "path_or_lines"):
    """Replay match ``match`` of a record, checking every line; yields events for ``render``:
    ``("start", header, rules, game)``, ``("hand", n, h)`` before a hand's moves,
    ``("move", seat, move, lead)`` after each move, ``("end", n, h)`` after a hand is checked.
    """
    (hn, header), hands = _scan_match(source, match, name)
    rules, game = _start(game_cls, hn, header)
    yield "start", header, rules, game
    previous = None  # line number of the previous hand while it is unfinished
    for n, h in hands:
        def bad(field, msg, n=n):
            return ValueError(f"record line {n}: field {field!r}: {msg}"[:1000])

        if previous is not None:
            raise ValueError(f"record line {n}: an unfinished hand (line {previous}) is not "
                             f"the last line of its match")
        if game.is_over:
            raise ValueError(f"record line {n}: a hand after the end of the match")
        if not _json_eq(h.get("hand"), game.hand_number):
            raise ValueError(f"record line {n}: hand number {h.get('hand')!r}, "
                             f"expected {game.hand_number}"[:1000])
        for key, want in (("level", game.level), ("declarer", game.declarer),
                          ("levels_before", list(game.levels))):
            if not _json_eq(h.get(key), want):
                raise ValueError(f"record line {n}: {key} {h.get(key)!r} does not match the "
                                 f"replay ({want!r})"[:1000])
        deal = h.get("deal")
        if (not isinstance(deal, list) or len(deal) != 4
                or any(not isinstance(d, list) for d in deal)):
            raise bad("deal", "must be four card lists")
        for p in range(4):
            try:
                recorded = sort_cards(deal[p])
            except (KeyError, TypeError, ValueError):
                raise ValueError(f"record line {n}: deal of seat {p} has a bad card code") from None
            if recorded != tuple(game.hand(p)):
                raise ValueError(f"record line {n}: deal of seat {p} does not match the "
                                 f"generator's deal")
        for key in ("anti_tribute", "tribute", "back", "moves", "finish_order", "levels_after"):
            if key not in h:
                raise bad(key, "missing")
        if not isinstance(h["anti_tribute"], bool):
            raise bad("anti_tribute", f"expected true or false, got {h['anti_tribute']!r}")
        for key in ("tribute", "back"):
            rows = h[key]
            if not isinstance(rows, list) or any(
                    not isinstance(r, list) or len(r) != 3 for r in rows):
                raise bad(key, "expected a list of [seat, seat, card] rows")
        yield "hand", n, h
        tribute, back, anti = _exchange(game)
        moves = h["moves"]
        if not isinstance(moves, list):
            raise bad("moves", "must be a list")
        number = game.hand_number
        for j, entry in enumerate(moves):
            if not isinstance(entry, list) or len(entry) != 2:
                raise bad("moves", f"move {j}: expected [seat, action], got {entry!r}")
            seat, action = entry
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
                raise ValueError(f"record line {n}: move {j}: field 'moves': seat {seat!r}, "
                                 f"expected 0..3"[:1000])
            if game.hand_number != number or game.is_over:
                raise ValueError(f"record line {n}: move {j}: the hand ended but "
                                 f"{len(moves) - j} moves follow")
            exchanging = game.phase in ("tribute", "back")
            lead = not exchanging and game.observation(seat)["top"] is None
            try:
                game.play(action, seat=seat)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"record line {n}: move {j} {entry!r}: {exc}"[:1000]) from None
            if exchanging and game.phase == "play":
                tribute, back, anti = _exchange(game)  # the exchange just completed
            yield "move", seat, action, lead
        ended = game.hand_number != number or game.is_over
        if h["anti_tribute"] != anti:
            raise bad("anti_tribute", f"{h['anti_tribute']!r} does not match the replay ({anti!r})")
        for key, want in (("tribute", tribute), ("back", back)):
            if _norm_exchange(h[key]) != _norm_exchange(want):
                raise bad(key, f"{h[key]!r} does not match the replay ({want!r})"[:900])
        if h["finish_order"] is None:
            if ended:
                raise ValueError(f"record line {n}: the hand ended but the line has no "
                                 f"finish_order")
            if h["levels_after"] is not None:
                raise bad("levels_after", "given for an unfinished hand")
            previous = n
        else:
            if not ended:
                raise ValueError(f"record line {n}: finish_order given but the moves do not "
                                 f"end the hand")
            res = game.results[number]
            if not _json_eq(h["finish_order"], list(res["finish_order"])):
                raise ValueError(f"record line {n}: finish_order {h['finish_order']!r} does not "
                                 f"match the replay ({list(res['finish_order'])!r})"[:1000])
            if not _json_eq(h["levels_after"], list(res["levels"])):
                raise ValueError(f"record line {n}: levels_after {h['levels_after']!r} does not "
                                 f"match the replay ({list(res['levels'])!r})"[:1000])
        yield "end", n, h


def replay(path_or_lines, game_cls, match: int = 0, step: int | None = None):
    """Replay match ``match`` of a record with ``game_cls`` (e.g. the compiled ``Game``),
    checking every field of every line; returns the game in the recorded state, or with
    ``step=k`` as it was after the match's first ``k`` moves (tributes and returns count;
    the lines up to there are checked).

    The source is read line by line (a path, gzip or not, a file object or lines), and reading
    stops at the end of the chosen match: memory does not grow with the file.

    >>> from guandan_fast.game import Game
    >>> g = Game(seed=4)
    >>> for _ in range(6):
    ...     g.play_index(0)
    >>> len(replay(g.to_record(), Game, step=2).history), replay(g.to_record(), Game, step=0).hand(0) == Game(seed=4).hand(0)
    (2, True)
    >>> replay(g.to_record(), Game, step=7)
    Traceback (most recent call last):
    ...
    ValueError: step 7 is beyond the 6 moves of match 0 of the record
    """
    if step is not None:
        step = check_count(step, "step", 0)
    game = None
    done = 0
    for event in _walk(path_or_lines, game_cls, match):
        if event[0] == "start":
            game = event[3]
            if step == 0:
                return game
        elif event[0] == "move":
            done += 1
            if done == step:
                return game
    if step is not None:
        raise ValueError(f"step {step} is beyond the {done} moves of match {match} of the record")
    return game


def _fmt_move(move: Move) -> str:
    return "PASS" if move.is_pass else f"{move.type} {move.rank}: {' '.join(move.cards)}"


def render(path_or_lines, hand: int | None = None, match: int = 0) -> str:
    """A readable account of a recorded match (or of one hand of it), for
    ``guandan-fast replay FILE``. The match is checked exactly as ``replay`` checks it
    before anything is returned.

    >>> from guandan_fast.game import Game
    >>> g = Game(seed=7); g.play_index(0)
    >>> print(render(g.to_record()).splitlines()[0])
    match: seed 7, rules Rules()
    """
    if hand is not None:
        hand = _check_match(hand, "hand")
    from .game import Game

    out: list[str] = []
    game = None
    hands = 0
    showing = False
    shown = False
    trick = 0
    lv = 2
    agents = None
    for event in _walk(path_or_lines, Game, match):
        kind = event[0]
        if kind == "start":
            header, rules, game = event[1], event[2], event[3]
            out.append(f"match: seed {header['seed']}, rules {rules!r}")
            agents = header.get("agents")
            if agents:
                out.append("agents: " + ", ".join(
                    f"team {t} seats {t},{t + 2} {agents[t]} / {agents[t + 2]}" for t in (0, 1)))
            if header.get("setup"):
                out.append("started from a constructed deal")
        elif kind == "hand":
            h = event[2]
            hands += 1
            showing = hand is None or h["hand"] == hand
            if not showing:
                continue
            shown = True
            trick = 0
            lv = h["level"]
            decl = h["declarer"]
            out.append("")
            # people count hands from 1 and name levels as cards (as every page does)
            out.append(f"== hand {h['hand'] + 1}: level {level_char(lv)}"
                       + (f", declarer team {decl}" if decl is not None else ", first hand")
                       + f", levels {level_char(h['levels_before'][0])}/"
                         f"{level_char(h['levels_before'][1])}")
            for p, cards in enumerate(h["deal"]):
                out.append(f"  seat {p} (team {p % 2}): {' '.join(sort_cards(cards))}")
            if h["anti_tribute"]:
                out.append("  anti-tribute: the paying side holds both big jokers")
            for payer, receiver, card in h["tribute"]:
                out.append(f"  tribute: seat {payer} pays {card} to seat {receiver}")
            for receiver, payer, card in h["back"]:
                out.append(f"  return: seat {receiver} gives {card} back to seat {payer}")
        elif kind == "move":
            if not showing:
                continue
            _, seat, action, lead = event
            move = game_move(action, lv)
            if move.type in ("tribute", "back"):
                continue
            if lead:
                trick += 1
                out.append(f"  trick {trick}")
            out.append(f"    seat {seat}: {_fmt_move(move)}")
        elif kind == "end":
            h = event[2]
            if not showing:
                continue
            if h["finish_order"] is not None:
                names = ["1st", "2nd", "3rd", "4th"]
                order = ", ".join(f"{names[i]} seat {s}" for i, s in enumerate(h["finish_order"]))
                out.append(f"  finish: {order}; levels after {level_char(h['levels_after'][0])}/"
                           f"{level_char(h['levels_after'][1])}")
            else:
                out.append("  (hand in progress)")
    if hand is not None and not shown:
        raise ValueError(f"the record has no hand {hand + 1} in match {match + 1}")
    if game is not None and game.is_over:
        t = game.winner
        who = f" ({agents[t]} / {agents[t + 2]})" if agents else ""
        out.append("")
        out.append(f"winner: team {t}, seats {t},{t + 2}{who}, after {len(game.results)} "
                   f"hands")
    elif hand is None and game is not None:
        out.append("")
        out.append(f"(the record of this match ends after {hands} hand(s), before the match "
                   f"is over: a run stopped or cut short)")
    return "\n".join(out)


def game_move(action, level: int) -> Move:
    """The Move of a recorded platform action."""
    return Move.from_platform(action, level)

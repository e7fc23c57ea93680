"""External agents: a platform client program entered into the tournament as an agent.

``external_agent(name, command)`` makes one: ``command`` is a shell-like command line (split
with ``shlex``, run without a shell) in which ``{url}`` is replaced by the WebSocket URL of
the seat the process plays; the URL is also in the environment variable ``GUANDAN_FAST_URL``
and the seat in ``GUANDAN_FAST_SEAT``.

>>> import sys
>>> bot = external_agent("mybot", sys.executable + " -c pass {url}")
>>> bot.name, bot.kind, bot.compiled
('mybot', 'external', False)
>>> bot.argv("ws://127.0.0.1:5/game/x")[-1]
'ws://127.0.0.1:5/game/x'
>>> parse_external("mybot=python mybot.py {url}")
('mybot', 'python mybot.py {url}')
>>> external_agent("mybot", "no-such-program-here {url}")
Traceback (most recent call last):
...
ValueError: external agent 'mybot': command 'no-such-program-here' does not start: not found on PATH

``play_match`` plays one whole match with such agents at some seats (docs/tournament.md,
"External agents"): it starts a ``net.server.GameServer`` for that match on a free port (or
a fixed one), launches one process per seat of an external agent, each in its own process
group, one after the other (each must connect before the next starts, so seats follow the
order of launch), and plays the match on the tournament's deal. The server does the
protocol; this module watches the processes. A client that does not start, exits or does not
connect within the decision timeout (at least ``CONNECT_TIMEOUT_MIN`` seconds) before its
table starts, disconnects, or answers nothing valid within the decision timeout (a hang, or
only garbage) is a **fault**: its team forfeits the match, or the ``takeover`` agent
finishes it for that seat. Every process group is killed on every way out
(the match's end, a fault, Ctrl-C, an exception, and at interpreter exit).
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field

from .records import game_to_lines

__all__ = ["ExternalAgent", "external_agent", "parse_external", "MatchOptions", "MatchOutcome",
           "play_match", "URL_FIELD", "URL_ENV", "SEAT_ENV", "PLATFORM_PORT",
           "DEFAULT_DECISION_TIMEOUT", "live_groups"]

#: The placeholder of a command replaced by the seat's WebSocket URL.
URL_FIELD = "{url}"
#: Environment variables a client process gets: its URL and its seat (0-3).
URL_ENV = "GUANDAN_FAST_URL"
SEAT_ENV = "GUANDAN_FAST_SEAT"
#: The port platform bots hard-code (``ws://127.0.0.1:23456/game/NAME``).
PLATFORM_PORT = 23456
#: Seconds a client may take per decision (and to connect) unless told otherwise.
DEFAULT_DECISION_TIMEOUT = 60.0
#: How much of a faulty client's stderr the report quotes.
STDERR_TAIL_LINES = 12
#: The least time a client is given to connect (an interpreter may take seconds to start on
#: a busy machine); the decision timeout when that is longer.
CONNECT_TIMEOUT_MIN = 10.0
#: Seconds a client may take to exit by itself once its table has ended.
EXIT_GRACE = 1.0
_POLL = 0.05      # seconds between looks at the processes and the stop byte

log = logging.getLogger("guandan_fast.external")


# -- the agent ------------------------------------------------------------------------------

@dataclass(frozen=True)
class ExternalAgent:
    """A platform client program as an agent (``external_agent``). It has the attributes the
    tournament reads of an ``agents.Agent`` (``name``, ``kind``, ``code``, ``compiled``,
    ``search_spec``), so it stands wherever the tournament seats agents."""

    name: str
    command: str
    words: tuple = field(repr=False)
    kind: str = "external"
    code: None = None
    search_spec: None = None

    @property
    def compiled(self) -> bool:
        return False

    @property
    def has_url_field(self) -> bool:
        return any(URL_FIELD in w for w in self.words)

    def argv(self, url: str) -> list[str]:
        """The command's words with ``{url}`` replaced by ``url``."""
        return [w.replace(URL_FIELD, url) for w in self.words]

    def __str__(self) -> str:
        return self.name


def _check_name(name) -> str:
    from .agents import KINDS

    if not isinstance(name, str):
        raise TypeError(f"an external agent's name is a str, not {type(name).__name__}")
    name = name.strip()
    if not re.fullmatch(r"[A-Za-z0-9_.\-]+", name):
        raise ValueError(f"external agent name {name!r}: use letters, digits, '_', '.', '-'")
    if name in KINDS or name == "policy":
        raise ValueError(f"external agent name {name!r} is a built-in agent's name; pick another")
    return name


def external_agent(name: str, command: str) -> ExternalAgent:
    """The agent ``name`` played by processes of ``command`` (the module doc). ValueError when
    the name is not a plain word (or is a built-in agent's), the command is empty or badly
    quoted, or its program cannot be found or run."""
    name = _check_name(name)
    if not isinstance(command, str):
        raise TypeError(f"external agent {name!r}: the command is a str, "
                        f"not {type(command).__name__}")
    try:
        words = tuple(shlex.split(command))
    except ValueError as exc:
        raise ValueError(f"external agent {name!r}: cannot read the command {command!r}: "
                         f"{exc}") from None
    if not words:
        raise ValueError(f"external agent {name!r}: the command is empty")
    program = words[0]
    if os.sep in program:
        if not os.path.isfile(program):
            why = "no such file"
        elif not os.access(program, os.X_OK):
            why = "not executable"
        else:
            why = None
    else:
        why = None if shutil.which(program) else "not found on PATH"
    if why:
        raise ValueError(f"external agent {name!r}: command {program!r} does not start: {why}")
    return ExternalAgent(name=name, command=command, words=words)


def parse_external(text: str) -> tuple:
    """``NAME=COMMAND`` (the ``--external`` option) -> ``(name, command)``."""
    name, sep, command = text.partition("=")
    if not sep or not name.strip() or not command.strip():
        raise ValueError(f"--external takes NAME=COMMAND, got {text!r}")
    return name.strip(), command.strip()


# -- the processes ------------------------------------------------------------------------------

# Process groups started and not yet killed: killed at interpreter exit whatever happened.
_LIVE: set = set()
_LIVE_LOCK = threading.Lock()


def live_groups() -> set:
    """The process groups of client processes started and not killed yet (empty between
    matches)."""
    with _LIVE_LOCK:
        return set(_LIVE)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass                     # every process of the group has gone
    with _LIVE_LOCK:
        _LIVE.discard(pgid)


@atexit.register
def _kill_all() -> None:
    for pgid in live_groups():
        _kill_group(pgid)


class _Client:
    """One launched client process: its seat, agent, files."""

    def __init__(self, seat: int, agent: ExternalAgent, url: str, prefix: str,
                 keep_stdout: bool) -> None:
        self.seat, self.agent, self.url = seat, agent, url
        self.ended: str | None = None
        self.err_path = prefix + f"-seat{seat}.err"
        env = dict(os.environ, **{URL_ENV: url, SEAT_ENV: str(seat)})
        with open(self.err_path, "wb") as err:
            out = open(prefix + f"-seat{seat}.out", "wb") if keep_stdout else subprocess.DEVNULL
            try:
                # A session of its own: the whole group (the client and whatever it starts)
                # is killed at once, and a Ctrl-C at the terminal reaches only us.
                self.proc = subprocess.Popen(agent.argv(url), stdin=subprocess.DEVNULL,
                                             stdout=out, stderr=err, env=env,
                                             start_new_session=True)
            finally:
                if out is not subprocess.DEVNULL:
                    out.close()
        with _LIVE_LOCK:
            _LIVE.add(self.proc.pid)      # the group id is the leader's pid

    def exited(self) -> str | None:
        """How the process ended ('exited with status 3', 'killed by SIGSEGV'), None if it
        runs."""
        code = self.proc.poll()
        if code is None:
            return None
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exited with status {code}"

    def kill(self) -> None:
        self.ended = self.exited()    # how it ended by itself (None: it was still running)
        _kill_group(self.proc.pid)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:   # (a process in uninterruptible sleep)
            pass

    def stderr_tail(self) -> str:
        try:
            with open(self.err_path, "rb") as f:
                f.seek(0, 2)
                f.seek(max(0, f.tell() - 4000))
                text = f.read().decode("utf-8", "replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-STDERR_TAIL_LINES:])


# -- one match --------------------------------------------------------------------------------

@dataclass(frozen=True)
class MatchOptions:
    """How external matches are played: ``decision_timeout`` (seconds per decision, and to
    connect: at least ``CONNECT_TIMEOUT_MIN``), ``takeover`` (None: a fault forfeits the
    match; an ``Agent``: that agent finishes it for the faulty seat), ``port`` (None: a free port per match; a number: every
    match on that port, one at a time), ``keep`` (a folder: each match's record and its
    clients' stdout and stderr are kept there)."""

    decision_timeout: float = DEFAULT_DECISION_TIMEOUT
    takeover: object = None
    port: int | None = None
    keep: str | None = None


@dataclass
class MatchOutcome:
    """A played external match: ``game`` (the compiled ``Game`` as it ended; unfinished after
    a forfeit, None when it never started), ``forfeit`` (the seat whose team forfeited, or
    None), ``faults`` (dicts: ``seat``, ``agent``, ``reason``, ``stderr_tail``)."""

    game: object
    forfeit: int | None
    faults: list


class _Refusals(logging.Handler):
    """The server's refused-message warnings, kept per client name (for the fault report);
    installed on the server's logger, it also keeps them off the tournament's stderr."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.by_name: dict = {}
        self.lock2 = threading.Lock()

    def emit(self, record) -> None:
        try:
            text = record.getMessage()
        except Exception:
            return
        with self.lock2:
            for name, got in self.by_name.items():
                if f"({name}): refused" in text:
                    got.append(text.split(": refused: ", 1)[-1])


_REFUSALS = _Refusals()
_INSTALL = threading.Lock()
_USERS = [0]        # matches being played: the handler is on the logger while any is


def _install_refusals() -> _Refusals:
    with _INSTALL:
        if _USERS[0] == 0:
            logging.getLogger("guandan_fast.net.server").addHandler(_REFUSALS)
        _USERS[0] += 1
    return _REFUSALS


def _remove_refusals() -> None:
    with _INSTALL:
        _USERS[0] -= 1
        if _USERS[0] == 0:
            logging.getLogger("guandan_fast.net.server").removeHandler(_REFUSALS)


_MATCH_IDS = iter(range(1, 1 << 62))
_IDS_LOCK = threading.Lock()


def _slug(text: str) -> str:
    """``text`` as a file or URL name: other characters than these become ``_``."""
    return re.sub(r"[^A-Za-z0-9_.\-]+", "_", text)


def play_match(seats, match_seed: int, rules, options: MatchOptions,
               cancel: bytearray | None = None, label: str = "match") -> MatchOutcome:
    """Play one match from deal seed ``match_seed``: ``seats`` are four agents (``Agent`` or
    ``ExternalAgent``, at least one external); returns its ``MatchOutcome``. ``label`` names
    the match's files in ``options.keep``. KeyboardInterrupt once ``cancel[0]`` is set
    (within ``_POLL`` seconds); the clients are killed on every way out."""
    import asyncio    # here: importing the package must not pay for asyncio

    with _IDS_LOCK:
        mid = next(_MATCH_IDS)
    if options.keep is not None:
        os.makedirs(options.keep, exist_ok=True)
        return asyncio.run(_play(seats, match_seed, rules, options, cancel, mid,
                                 os.path.join(options.keep, _slug(label))))
    with tempfile.TemporaryDirectory(prefix="guandan-external-") as tmp:
        return asyncio.run(_play(seats, match_seed, rules, options, cancel, mid,
                                 os.path.join(tmp, "match")))


async def _play(seats, match_seed, rules, options, cancel, mid, prefix) -> MatchOutcome:
    import asyncio

    from .game import Game
    from .net.server import GameServer, ServerConfig

    games = []

    def deal(table, number, seed, rules_):     # the tournament's deal, not the server's
        games.append(Game(seed=match_seed, rules=rules))
        return games[-1]

    remote = [s for s in range(4) if isinstance(seats[s], ExternalAgent)]
    record = prefix + ".jsonl"
    if os.path.exists(record):
        os.remove(record)            # the server appends
    cfg = ServerConfig(port=options.port or 0, games=1, tables=1, rules=rules,
                       bots={s: seats[s] for s in range(4) if s not in remote}, seed=0,
                       timeout=options.decision_timeout,
                       on_fault="forfeit" if options.takeover is None else "bot",
                       takeover=options.takeover or "greedy", draw_after=0, record=record,
                       game_factory=deal, ping_interval=None)
    names = {s: f"{_slug(seats[s].name)[:40]}-m{mid}-s{s}" for s in remote}   # unique
    server = GameServer(cfg)
    clients: dict = {}
    fault = None                     # a fault found here (before the table started)
    refusals = _install_refusals()
    with refusals.lock2:
        for n in names.values():
            refusals.by_name[n] = []
    try:
        await server.start()
        connect = max(options.decision_timeout, CONNECT_TIMEOUT_MIN)
        for k, s in enumerate(remote):
            deadline = time.monotonic() + connect
            url = f"ws://127.0.0.1:{server.port}/game/{names[s]}"
            try:
                clients[s] = _Client(s, seats[s], url, prefix, options.keep is not None)
            except OSError as exc:
                fault = (s, f"did not start: {exc.strerror or exc}")
                break
            # Seats go in order of arrival: the next client starts once this one is in.
            fault = await _wait(lambda: server.stats["connections"] > k, clients, cancel,
                                deadline, connect)
            if fault:
                break
        if fault is None:
            fault = await _wait(lambda: server.stats["tables"] > 0, clients, cancel, deadline,
                                connect)
        if fault is None:
            done = asyncio.ensure_future(server.wait())
            while not done.done():
                if cancel is not None and cancel[0]:
                    raise KeyboardInterrupt("stopped")
                await asyncio.wait({done}, timeout=_POLL)
            end = time.monotonic() + EXIT_GRACE   # they were told the table ended
            while any(c.exited() is None for c in clients.values()) \
                    and time.monotonic() < end:
                await asyncio.sleep(_POLL)
    finally:
        for c in clients.values():
            c.kill()
        try:
            await server.stop()
        finally:
            with refusals.lock2:
                refused = {s: refusals.by_name.pop(names[s], []) for s in remote}
            _remove_refusals()
    outcome = _outcome(seats, games, record, fault, clients, refused, options.takeover)
    if options.keep is None:
        for path in [record] + [c.err_path for c in clients.values()]:
            try:
                os.remove(path)
            except OSError:
                pass
    return outcome


async def _wait(ready, clients, cancel, deadline, timeout) -> tuple | None:
    """Until ``ready()``; a fault ``(seat, reason)`` when a client exits or the deadline
    passes first; KeyboardInterrupt when ``cancel`` is set."""
    import asyncio

    while not ready():
        if cancel is not None and cancel[0]:
            raise KeyboardInterrupt("stopped")
        for s, c in clients.items():
            how = c.exited()
            if how is not None:
                return s, f"{how} before its table started"
        if time.monotonic() > deadline:     # the last one launched has not come in
            return list(clients)[-1], f"did not connect within {timeout:g} s"
        await asyncio.sleep(_POLL)
    return None


def _finish(game, seats, takeover) -> None:
    """Play ``game`` to its end: the takeover agent in the external agents' seats, the
    built-in agents in theirs, each move seeded as the server seeds it."""
    from .net.agents import bot_move, mix_seed

    while not game.is_over:
        seat = game.current_player
        agent = takeover if isinstance(seats[seat], ExternalAgent) else seats[seat]
        seed = mix_seed(game.seed, game.hand_number, len(game.history), seat)
        game.play(bot_move(game, agent, seed), seat=seat)


def _outcome(seats, games, record, fault, clients, refused, takeover) -> MatchOutcome:
    faults = []
    forfeit = None
    if fault is not None:
        faults.append({"seat": fault[0], "reason": fault[1]})
        forfeit = fault[0]
    else:
        with open(record, encoding="utf-8") as f:
            head = json.loads(f.readline())
        server = head["server"]
        faults = [{"seat": x["seat"], "reason": x["reason"]} for x in server["faults"]]
        if server["end"] == "forfeit":
            forfeit = faults[-1]["seat"]
        elif server["end"] == "abandoned" and takeover is not None and games:
            # Every client failed and was taken over: the server stops a table nobody
            # watches, so the match is finished here as it would have been there.
            _finish(games[0], seats, takeover)
            lines = game_to_lines(games[0], head.get("agents"),
                                  server=dict(server, end="win", finished_here=True))
            with open(record, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
        elif server["end"] != "win":
            raise RuntimeError(f"external match ended {server['end']!r}, not won or forfeit")
    for x in faults:
        s = x["seat"]
        c = clients.get(s)
        if c is not None and c.ended is not None and fault is None:
            x["reason"] += f" (the client {c.ended})"
        if refused.get(s):
            x["reason"] += f"; {len(refused[s])} refused message(s), the first: {refused[s][0]}"
        x["agent"] = seats[s].name
        x["stderr_tail"] = c.stderr_tail() if c is not None else ""
    return MatchOutcome(game=games[0] if games else None, forfeit=forfeit, faults=faults)

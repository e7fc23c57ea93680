"""``guandan-fast play``: people at a table of agents, in the browser.

It is ``serve`` (``net.server``) with agents in the seats no person takes and the pages served
over HTTP by the same process on the same port (``ServerConfig.http``): the play page (a
platform-protocol client, ``assets/play.js``; ``/?seat=S`` for a person's seat,
``/?watch=1`` for a spectator) and the lobby (``/lobby``, the open tables with their links).
``ServerConfig.rejoin`` keeps each person's seat across reloads and sends the page ``state``
messages (the table as the seat sees it), hints and the ``handOver`` summaries.

>>> cfg = play_config(seat=2, agents="greedy,random,greedy", seed=5)
>>> {s: a.name for s, a in cfg.bots.items()}, cfg.remote_seats, cfg.rejoin
({0: 'greedy', 1: 'random', 3: 'greedy'}, (2,), True)
>>> play_config(seat=(0, 2), agents="greedy").remote_seats
(0, 2)
>>> play_config(seat=0, agents="greedy,greedy")
Traceback (most recent call last):
...
ValueError: --agents: give one agent, or 3 (for the seats without a person, in seat order), got 2
"""

from __future__ import annotations

import json
import os
from html import escape

from ..agents import STRONGEST, parse_agents
from ..game import Game
from ..net.server import ServerConfig
from ..rules import Rules
from .pages import favicon, page

__all__ = ["play_config", "page_config", "resume_game", "recorded_table", "HINT_AGENTS",
           "lobby_html", "seat_links", "watch_config", "http_handler"]

#: Agents the page offers hints from (the move the agent would make in the person's seat):
#: the strongest first.
HINT_AGENTS = tuple(dict.fromkeys((STRONGEST, "greedy", "pimc:samples=8", "random_compact")))
#: How long a spectator's page shows a hand's summary before going on (milliseconds).
SUMMARY_DELAY_MS = 5000


def _seats(seat) -> tuple:
    """People's seats: one seat or several (``0`` or ``(0, 2)``), each 0..3, no repeats."""
    seats = (seat,) if isinstance(seat, int) else tuple(seat)
    if (not seats or len(set(seats)) != len(seats) or len(seats) > 3
            or any(isinstance(s, bool) or s not in (0, 1, 2, 3) for s in seats)):
        raise ValueError(f"--seat must be 0..3 (several: 0,2; at most 3, each once), got {seat!r}")
    return seats


def _agents(seats: tuple, agents: str | None) -> dict:
    """The agents of the seats without a person: one spec for all or one per seat in seat
    order (any spec of ``guandan_fast.agents``, as ``serve --bots``); default the strongest."""
    free = [s for s in range(4) if s not in seats]
    names = [a.strip() for a in (agents or STRONGEST).split(",")]
    if len(names) == 1:
        names *= len(free)
    if len(names) != len(free):
        raise ValueError(f"--agents: give one agent, or {len(free)} (for the seats without a "
                         f"person, in seat order), got {len(names)}")
    found = parse_agents(names, len(free), place="play --agents")
    return dict(zip(free, found))


def resume_game(path) -> tuple[Game, int]:
    """The last match of a record, at the start of its first unplayed hand (an unfinished
    hand is dropped: it is dealt again, the same cards), and the byte offset of that match's
    header (its record is rewritten from there). ``ValueError`` if the match is over."""
    from .viewer import match_offsets

    if not os.path.isfile(path):
        raise ValueError(f"--resume: no such record file: {os.fspath(path)!r}")
    offsets = match_offsets(path)
    if not offsets:
        raise ValueError(f"--resume: {os.fspath(path)!r} holds no match")
    with open(path, "rb") as f:
        f.seek(offsets[-1])
        lines = [line.decode("utf-8") for line in f if line.strip()]
    if len(lines) > 1 and json.loads(lines[-1]).get("finish_order") is None:
        lines = lines[:-1]   # the hand in progress is played again from its deal
    game = Game.from_record(lines)
    if game.is_over:
        raise ValueError(f"--resume: the last match of {os.fspath(path)!r} is over; "
                         f"start a new one without --resume")
    return game, offsets[-1]


def recorded_table(path, offset: int) -> tuple[tuple, str | None]:
    """The people's seats and the agents (one spec per other seat, comma-separated) of the
    match whose header starts at ``offset``, as ``play`` recorded them (``server.players``:
    ``bot:AGENT`` for an agent's seat); ``((), None)`` when the header names none."""
    with open(path, "rb") as f:
        f.seek(offset)
        header = json.loads(f.readline())
    players = (header.get("server") or {}).get("players")
    if not isinstance(players, list) or len(players) != 4:
        return (), None
    seats = tuple(s for s, n in enumerate(players) if not str(n).startswith("bot:"))
    agents = [str(n)[4:] for n in players if str(n).startswith("bot:")]
    return seats, (",".join(agents) or None)


def play_config(seat=0, agents: str | None = None, rules: Rules | None = None,
                seed: int | None = None, port: int = 0, games: int = 1,
                record: str | None = None, resume=None, http=None,
                host: str = "127.0.0.1") -> ServerConfig:
    """The server settings of ``play``: one table, people at ``seat`` (one seat or several),
    ``agents`` in the other seats (default ``agents.STRONGEST``); ``resume``: a ``Game`` the
    first match continues."""
    seats = _seats(seat)
    factory = None
    if resume is not None:
        first = resume

        def factory(table, number, game_seed, rules_):
            return first if number == 0 else Game(game_seed, rules_)
        rules = resume.rules
    return ServerConfig(host=host, port=port, games=games, tables=1,
                        rules=rules or Rules.platform(), bots=_agents(seats, agents), seed=seed,
                        handshake_pause=0.0, error_messages=True, record=record,
                        record_each_hand=record is not None, game_factory=factory,
                        http=http, rejoin=True, watch=True)


def page_config(cfg: ServerConfig, delay: float) -> dict:
    """The data the play page is served with: the people's seats (the page takes the one
    its link names, ``?seat=S``, else the first), each seat's agent (None: a person)."""
    return {"seat": cfg.remote_seats[0], "seats": list(cfg.remote_seats),
            "delay": int(round(delay * 1000)),
            "agents": [cfg.bots[s].name if s in cfg.bots else None for s in range(4)],
            "hintAgents": list(HINT_AGENTS), "stateMessages": True, "name": "web",
            "summaryDelay": SUMMARY_DELAY_MS}


def watch_config(cfg: ServerConfig) -> dict:
    """The data of the page that ``serve --watch`` serves: spectators only (its seats are
    the platform clients'), each seat's agent where a bot plays it."""
    return {"seat": 0, "seats": [], "watchOnly": True, "delay": 800,
            "agents": [cfg.bots[s].name if s in cfg.bots else "a client" for s in range(4)],
            "hintAgents": [], "stateMessages": True, "name": "watch",
            "summaryDelay": SUMMARY_DELAY_MS}


def seat_links(base: str, cfg: ServerConfig) -> list[tuple[str, str]]:
    """``(what, url)`` for each person's seat, the spectators and the lobby.

    >>> seat_links("http://h:1/", play_config(seat=(0, 2), agents="greedy"))[1:]
    [('seat 2', 'http://h:1/?seat=2'), ('watch', 'http://h:1/?watch=1'), ('lobby', 'http://h:1/lobby')]
    """
    return ([(f"seat {s}", f"{base}?seat={s}") for s in cfg.remote_seats]
            + [("watch", f"{base}?watch=1"), ("lobby", f"{base}lobby")])


def lobby_html(tables: list, join: bool = True) -> str:
    """The lobby page: every open table (``GameServer.tables_info``) with a link for each
    free seat (``join``: people may take seats, as at ``play``'s tables; at ``serve --watch``
    they are for platform clients) and one to watch; it reloads itself every few seconds.

    >>> html = lobby_html([{"table": 0, "started": False, "game": 1, "hand": None,
    ...     "watchers": 0, "seats": [{"seat": 0, "who": "free"}, {"seat": 1, "who": "bot:expert"},
    ...     {"seat": 2, "who": "person", "name": "web-x"}, {"seat": 3, "who": "bot:expert"}]}])
    >>> 'href="/?seat=0"' in html and 'href="/?seat=2"' not in html and "/?watch=1&amp;table=0" in html
    True
    """
    rows = []
    for t in tables:
        cells = []
        for s in t["seats"]:
            who = s["who"]
            if who == "free" and not join:
                cells.append(f'<li>seat {s["seat"]}: free (a platform client takes it)</li>')
            elif who == "free":
                cells.append(f'<li>seat {s["seat"]}: <a href="/?seat={s["seat"]}">take this seat</a></li>')
            elif who == "away":
                cells.append(f'<li>seat {s["seat"]}: a person, away (<a href="/?seat={s["seat"]}">'
                             f'take it back</a>)</li>')
            else:
                what = (who[4:] + " (bot)" if who.startswith("bot:") else "a person" if join
                        else f"a client ({s.get('name')})")
                cells.append(f'<li>seat {s["seat"]}: {escape(what)}</li>')
        state = (f'match {t["game"]}, hand {t["hand"]}' if t["started"] and t["hand"]
                 else "playing" if t["started"] else "waiting for people")
        rows.append(f'<section><h2>table {t["table"] + 1} — {state}</h2><ul>{"".join(cells)}</ul>'
                    f'<p><a href="/?watch=1&amp;table={t["table"]}">watch</a> '
                    f'({t["watchers"]} watching)</p></section>')
    body = "".join(rows) or "<p>no open table</p>"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<meta http-equiv=\"refresh\" content=\"3\"><title>guandan-fast: lobby</title>"
            "<style>body{font-family:system-ui,sans-serif;background:#183a23;color:#fff;"
            "margin:0;padding:.8rem}a{color:#ffd54a}section{background:#2e6b3f;"
            "border-radius:.5rem;padding:.4rem .8rem;margin:.5rem 0}</style></head>"
            f"<body><h1>guandan-fast: open tables</h1>{body}</body></html>\n")


def http_handler(get_config, get_tables=None, join: bool = True):
    """``ServerConfig.http`` for the people's pages: ``/`` and ``/index.html`` answer the
    play page, ``/lobby`` the lobby (``get_tables()``: ``GameServer.tables_info``; ``join``
    as for ``lobby_html``)."""
    def answer(path: str):
        where = path.split("?")[0]
        if where in ("/", "/index.html"):
            return 200, "text/html; charset=utf-8", page("play", get_config(),
                                                        "guandan-fast: play").encode("utf-8")
        if where == "/lobby" and get_tables is not None:
            return 200, "text/html; charset=utf-8", lobby_html(get_tables(), join).encode("utf-8")
        if path == "/favicon.ico":
            return 200, "image/svg+xml", favicon().encode("utf-8")
        return None
    return answer


def run(cfg: ServerConfig, delay: float, browser: bool = True, out=print) -> tuple:
    """Serve the table until the match ends or Ctrl-C/SIGTERM (the record, if any, is
    written as it stands); prints the pages' links and opens the first unless ``browser``
    is False. Returns ``(stats, None)`` when the matches were played, ``(stats or None,
    signal number)`` when a signal stopped it (the stats then also hold ``where``: the
    started tables as ``GameServer.tables_info`` gave them at the signal)."""
    import asyncio
    import signal

    from ..net.server import serve

    holder = {}
    cfg.http = http_handler(lambda: page_config(cfg, delay),
                            lambda: holder["server"].tables_info())

    def ready(server):
        holder["server"] = server
        host = cfg.host
        if host in ("0.0.0.0", "::", ""):   # every interface: a name others can reach
            import socket
            host = socket.gethostname()
        base = f"http://{host}:{server.port}/"
        links = seat_links(base, cfg)
        url = links[0][1]
        holder["url"] = url
        out(f"play at {url}  (Ctrl-C stops; the page reconnects after a reload)", flush=True)
        if len(cfg.remote_seats) > 1:
            out("a link per person's seat (send them to your friends):", flush=True)
            for what, link in links[1:len(cfg.remote_seats)]:
                out(f"  {what}: {link}", flush=True)
        out(f"watch: {links[-2][1]}   lobby: {links[-1][1]}", flush=True)
        if browser:
            import webbrowser
            webbrowser.open(url)

    def stop(sig):
        holder.setdefault("signal", sig)
        server = holder.get("server")
        if server is not None:   # where the table was, for the message (before it is cut)
            holder["where"] = [t for t in server.tables_info() if t["started"]]
        task.cancel()

    async def main():
        nonlocal task
        task = asyncio.ensure_future(serve(cfg, ready))
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, lambda sig=sig: stop(sig))
        try:
            return await task, None
        except asyncio.CancelledError:
            server = holder.get("server")
            stats = dict(server.stats, where=holder.get("where") or []) if server else None
            return stats, holder.get("signal")

    task = None
    return asyncio.run(main())

"""``guandan-fast play``: a person at a table of agents, in the browser.

It is ``serve`` (``net.server``) with agents in the other seats and the page served over HTTP
by the same process on the same port (``ServerConfig.http``); the page is a platform-protocol
client (``assets/play.js``). ``ServerConfig.rejoin`` keeps the person's seat across reloads
and sends the page ``state`` messages (the table as the seat sees it) and hints.

>>> cfg = play_config(seat=2, agents="greedy,random,greedy", seed=5)
>>> {s: a.name for s, a in cfg.bots.items()}, cfg.remote_seats, cfg.rejoin
({0: 'greedy', 1: 'random', 3: 'greedy'}, (2,), True)
>>> play_config(seat=0, agents="greedy,greedy")
Traceback (most recent call last):
...
ValueError: --agents: give one agent, or three (for the seats other than yours in seat order), got 2
"""

from __future__ import annotations

import json
import os

from ..agents import parse_agents
from ..game import Game
from ..net.server import ServerConfig
from ..rules import Rules
from .pages import favicon, page

__all__ = ["play_config", "page_config", "resume_game", "HINT_AGENTS"]

#: Agents the page offers hints from (the move the agent would make in the person's seat).
HINT_AGENTS = ("greedy", "pimc:samples=8", "random_compact")


def _agents(seat: int, agents: str) -> dict:
    """The other seats' agents: one spec for all three or three in seat order (any spec of
    ``guandan_fast.agents``, as ``serve --bots``)."""
    names = [a.strip() for a in agents.split(",")] if agents else []
    if len(names) == 1:
        names *= 3
    if len(names) != 3:
        raise ValueError(f"--agents: give one agent, or three (for the seats other than yours "
                         f"in seat order), got {len(names)}")
    found = parse_agents(names, 3, place="play --agents")
    return dict(zip([s for s in range(4) if s != seat], found))


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


def play_config(seat: int = 0, agents: str = "greedy", rules: Rules | None = None,
                seed: int | None = None, port: int = 0, games: int = 1,
                record: str | None = None, resume=None, http=None) -> ServerConfig:
    """The server settings of ``play``: one table, the person at ``seat``, ``agents`` in
    the other seats; ``resume``: a ``Game`` the first match continues."""
    if isinstance(seat, bool) or seat not in (0, 1, 2, 3):
        raise ValueError(f"--seat must be 0..3, got {seat!r}")
    factory = None
    if resume is not None:
        first = resume

        def factory(table, number, game_seed, rules_):
            return first if number == 0 else Game(game_seed, rules_)
        rules = resume.rules
    return ServerConfig(host="127.0.0.1", port=port, games=games, tables=1,
                        rules=rules or Rules.platform(), bots=_agents(seat, agents), seed=seed,
                        handshake_pause=0.0, error_messages=True, record=record,
                        record_each_hand=record is not None, game_factory=factory,
                        http=http, rejoin=True)


def page_config(cfg: ServerConfig, delay: float) -> dict:
    """The data the play page is served with."""
    seat = cfg.remote_seats[0]
    players = [f"{cfg.bots[s].name} (bot)" if s in cfg.bots else "you" for s in range(4)]
    return {"seat": seat, "delay": int(round(delay * 1000)), "players": players,
            "hintAgents": list(HINT_AGENTS), "stateMessages": True, "name": "web"}


def http_handler(get_config):
    """``ServerConfig.http`` for the play page: ``/`` and ``/index.html`` answer the page."""
    def answer(path: str):
        if path.split("?")[0] in ("/", "/index.html"):
            return 200, "text/html; charset=utf-8", page("play", get_config(),
                                                        "guandan-fast: play").encode("utf-8")
        if path == "/favicon.ico":
            return 200, "image/svg+xml", favicon().encode("utf-8")
        return None
    return answer


def run(cfg: ServerConfig, delay: float, browser: bool = True, out=print) -> dict | None:
    """Serve the table until the match ends or Ctrl-C/SIGTERM (the record, if any, is
    written as it stands); prints the page's URL and opens it unless ``browser`` is False.
    Returns the server's stats (None when stopped by a signal)."""
    import asyncio
    import signal

    from ..net.server import serve

    holder = {}
    cfg.http = http_handler(lambda: page_config(cfg, delay))

    def ready(server):
        url = f"http://{cfg.host}:{server.port}/"
        holder["url"] = url
        out(f"play at {url}  (Ctrl-C stops; the page reconnects after a reload)", flush=True)
        if browser:
            import webbrowser
            webbrowser.open(url)

    async def main():
        task = asyncio.ensure_future(serve(cfg, ready))
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, task.cancel)
        try:
            return await task
        except asyncio.CancelledError:
            return None

    return asyncio.run(main())

"""A WebSocket server speaking the competition platform's protocol on the compiled ``Game``
(``guandan-fast serve``; behaviour and decisions in docs/server.md).

Connections on ``/game/{name}`` are seated in arrival order; every ``4 - len(bots)`` new
connections open a new table, which plays ``games`` matches and ends. Tables run
concurrently in one asyncio loop; a failure in one table is logged and ends that table only.

>>> cfg = ServerConfig(bots={1: 'greedy', 3: 'greedy'})
>>> cfg.remote_seats
(0, 2)
>>> ServerConfig(bots={0: 'greedy', 1: 'greedy', 2: 'greedy', 3: 'greedy'})
Traceback (most recent call last):
...
ValueError: bots: at least one seat must be left for a client
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Callable

from ..bots import agent_kind
from ..cards import level_char
from ..game import Game
from ..moves import PASS
from ..rules import Rules
from ..records import RecordWriter
from ..validate import check_count, check_rules
from . import protocol as P
from .agents import bot_move, mix_seed

__all__ = ["ServerConfig", "GameServer", "serve", "PATH_RE"]

log = logging.getLogger("guandan_fast.net.server")

PATH_RE = re.compile(r"^/game/([^/?#]+)$")
_FAULT_POLICIES = ("bot", "forfeit")


@dataclass
class ServerConfig:
    """Settings of ``GameServer`` (the ``serve`` options, docs/server.md).

    ``games``: matches per table; ``tables``: stop after that many tables ended (0: serve
    until stopped); ``bots``: ``{seat: agent}`` filled by built-in agents; ``seed``: base of
    every table's and game's seed (None: random); ``timeout``: seconds a client may take per
    answer (None: wait forever, as the platform); ``on_fault``: what a timeout or a dropped
    connection leads to: ``'bot'`` (the ``takeover`` agent plays that seat for the rest of
    the table) or ``'forfeit'`` (its team loses the game and the table ends);
    ``draw_after``: a game whose A resets reach this count is a draw (0: never);
    ``handshake_pause``: seconds between a handshake and the first message to that client
    (the ws4py race); ``error_messages``: also answer a refused message with
    ``{"type": "error", "message": ...}`` (off: platform clients fail on unknown messages);
    ``record``: a JSONL file every game's record is appended to; ``game_factory``:
    ``f(table, game, seed, rules) -> Game`` for rigged starts (tests).
    """

    host: str = "127.0.0.1"
    port: int = 23456
    games: int = 1
    tables: int = 0
    rules: Rules = field(default_factory=Rules.platform)
    bots: dict = field(default_factory=dict)
    seed: int | None = None
    timeout: float | None = None
    on_fault: str = "bot"
    takeover: str = "greedy"
    draw_after: int = 50
    handshake_pause: float = 0.2
    error_messages: bool = False
    record: str | None = None
    game_factory: Callable | None = None

    def __post_init__(self) -> None:
        check_rules(self.rules)
        for name in ("games", "tables", "draw_after", "port"):
            setattr(self, name, check_count(getattr(self, name), name, 1 if name == "games" else 0))
        bots = {}
        for seat, agent in dict(self.bots).items():
            if isinstance(seat, bool) or seat not in (0, 1, 2, 3):
                raise ValueError(f"bots: a seat is 0..3, got {seat!r}")
            agent_kind(agent)
            bots[seat] = agent
        self.bots = bots
        if len(bots) == 4:
            raise ValueError("bots: at least one seat must be left for a client")
        agent_kind(self.takeover)
        if self.on_fault not in _FAULT_POLICIES:
            raise ValueError(f"on_fault must be one of {', '.join(_FAULT_POLICIES)}, "
                             f"got {self.on_fault!r}")
        for name in ("timeout",):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0):
                raise ValueError(f"{name} must be None or seconds > 0, got {v!r}")
        if (isinstance(self.handshake_pause, bool)
                or not isinstance(self.handshake_pause, (int, float)) or self.handshake_pause < 0):
            raise ValueError(f"handshake_pause must be seconds >= 0, got {self.handshake_pause!r}")

    @property
    def remote_seats(self) -> tuple:
        return tuple(s for s in range(4) if s not in self.bots)


def _websockets(module: str):
    """A ``websockets`` submodule, with a clear error when the extra is missing or too old
    (the asyncio API used here came with websockets 13)."""
    import importlib

    try:
        return importlib.import_module(f"websockets.{module}")
    except ImportError:
        raise ImportError("network play needs websockets >= 13: pip install "
                          "'guandan-fast[net]' (or 'websockets>=13')") from None


class _Fault(Exception):
    """A client timed out or disconnected while it had to answer."""


class _Forfeit(Exception):
    def __init__(self, seat: int, reason: str) -> None:
        super().__init__(f"seat {seat} forfeits: {reason}")
        self.seat, self.reason = seat, reason


class _Abandoned(Exception):
    """No client is left at the table."""


class _Client:
    """One WebSocket connection: its seat, the pending question, its send pacing."""

    def __init__(self, ws, name: str, pause: float) -> None:
        self.ws, self.name = ws, name
        self.ready_at = time.monotonic() + pause
        self.started = False
        self.closed = False
        self.pending: asyncio.Future | None = None
        self.index_range = -1
        self.table: "_Table | None" = None
        self.seat = -1
        self.done = asyncio.Event()

    async def send(self, text: str, timeout: float | None) -> None:
        if self.closed:
            return
        if not self.started:
            # ws4py clients can lose a frame that arrives with the handshake's answer.
            delay = self.ready_at - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            self.started = True
        try:
            if timeout is None:
                await self.ws.send(text)
            else:
                await asyncio.wait_for(self.ws.send(text), timeout)
        except Exception as exc:  # closed, reset, or a send timeout: the client is gone
            self._gone(f"send failed: {exc!r}")

    def _gone(self, why: str) -> None:
        if not self.closed:
            self.closed = True
            log.info("%s: connection %s closed (%s)", self._where(), self.name, why)
        if self.pending is not None and not self.pending.done():
            self.pending.set_exception(_Fault("disconnected"))

    def _where(self) -> str:
        if self.table is None:
            return "lobby"
        return f"table {self.table.index} seat {self.seat}"


class _Table:
    def __init__(self, server: "GameServer", index: int, clients: list) -> None:
        self.server, self.cfg, self.index = server, server.cfg, index
        self.seats: dict[int, _Client] = {}
        for seat, client in zip(self.cfg.remote_seats, clients):
            client.table, client.seat = self, seat
            self.seats[seat] = client
        self.bots = dict(self.cfg.bots)      # seat -> agent (grows on takeovers)
        self.victories = [0, 0, 0, 0]
        self.draws = [0, 0, 0, 0]
        self.games_done = 0
        self.faults: list = []
        self.game: Game | None = None
        self.seed = None if self.cfg.seed is None else mix_seed(self.cfg.seed, index)

    def _where(self, seat=None) -> str:
        return f"table {self.index}" + ("" if seat is None else f" seat {seat}")

    # -- sending ----------------------------------------------------------------------------
    async def _notify_all(self, msg: dict) -> None:
        text = json.dumps(msg)
        await asyncio.gather(*(c.send(text, self.cfg.timeout) for c in self.seats.values()))

    async def _notify(self, seat: int, msg: dict) -> None:
        c = self.seats.get(seat)
        if c is not None:
            await c.send(json.dumps(msg), self.cfg.timeout)

    def _live(self) -> bool:
        return any(not c.closed for c in self.seats.values())

    # -- asking -----------------------------------------------------------------------------
    async def _ask(self, seat: int, msg: dict) -> int:
        c = self.seats[seat]
        if c.closed:
            raise _Fault("disconnected")
        await c.send(json.dumps(msg), self.cfg.timeout)
        if c.closed:
            raise _Fault("disconnected")
        # Only now does an answer count: nothing runs between the send and these lines, so
        # a message read from here on was sent after the question.
        c.pending = asyncio.get_running_loop().create_future()
        c.index_range = msg["indexRange"]
        try:
            if self.cfg.timeout is None:
                return await c.pending
            try:
                return await asyncio.wait_for(c.pending, self.cfg.timeout)
            except asyncio.TimeoutError:
                raise _Fault(f"no valid answer within {self.cfg.timeout} s") from None
        finally:
            c.pending = None
            c.index_range = -1

    def _fault(self, seat: int, reason: str) -> None:
        self.faults.append({"game": self.games_done, "seat": seat, "reason": reason})
        self.server.stats["faults"] += 1
        if self.cfg.on_fault == "forfeit":
            log.warning("%s: %s; the seat forfeits", self._where(seat), reason)
            raise _Forfeit(seat, reason)
        log.warning("%s: %s; the %s bot takes the seat over for the rest of the table",
                    self._where(seat), reason, self.cfg.takeover)
        self.bots[seat] = self.cfg.takeover
        if not self._live():
            raise _Abandoned("every client left")

    # -- one decision -----------------------------------------------------------------------
    def _public_info(self, stage: str, play_area) -> list:
        g = self.game
        if stage in ("tribute", "back"):
            # The engine takes tributes (and returns) one after the other; the platform asks
            # the players at once, so counts change only with the tribute / back notify.
            rest = self.shown
        else:
            rest = [len(g.hand(q)) for q in range(4)]
        return [{"rest": rest[q], "playArea": play_area[q]} for q in range(4)]

    async def _decide(self, seat: int, stage: str, trick: dict):
        """Have ``seat`` make its move (a bot's or the client's answer); returns the Move."""
        g = self.game
        if seat in self.bots:
            seed = mix_seed(g.seed, g.hand_number, len(g.history), seat)
            move = bot_move(g, self.bots[seat], seed)
            g.play(move, seat=seat)
            return move
        moves = g.legal_moves()
        n = len(moves)
        order = list(range(n))
        if stage == "play" and trick["greater"] is not None and n > 1:
            order = [n - 1] + list(range(n - 1))   # the engine lists PASS last; PASS first
        actions = [moves[i].to_platform() for i in order]
        team = seat % 2
        levels = g.levels
        greater = trick["greater"]
        msg = P.act(stage, hand_cards=g.hand(seat), public_info=self._public_info(stage, trick["area"]),
                    self_rank=level_char(levels[team]), oppo_rank=level_char(levels[1 - team]),
                    cur_rank=level_char(g.level),
                    cur_pos=-1 if trick["last"] is None else trick["last"][0],
                    cur_action=None if trick["last"] is None else trick["last"][1],
                    greater_pos=-1 if greater is None else greater[0],
                    greater_action=None if greater is None else greater[1],
                    action_list=actions)
        try:
            i = await self._ask(seat, msg)
        except _Fault as exc:
            self._fault(seat, str(exc))
            return await self._decide(seat, stage, trick)
        move = moves[order[i]]
        g.play_index(order[i])
        return move

    # -- a match ------------------------------------------------------------------------------
    def _new_game(self, number: int) -> Game:
        seed = None if self.seed is None else mix_seed(self.seed, number)
        if seed is None:
            import secrets
            seed = secrets.randbits(64)
        if self.cfg.game_factory is not None:
            return self.cfg.game_factory(self.index, number, seed, self.cfg.rules)
        return Game(seed, self.cfg.rules)

    def _anti_pos(self) -> list:
        """Paying seats that hold a big joker (the anti-tribute's antiPos)."""
        g = self.game
        res = g.results[-1] if g.results else None
        if res is None:
            origin = g._origin_info()
            fo = origin["previous_finish"] if origin else None
        else:
            fo = res["finish_order"]
        if not fo:
            return []
        if len(fo) == 2:
            payers = [s for s in range(4) if s not in fo]
        elif fo[3] == (fo[0] + 2) % 4:   # 1st and 4th partners
            rule = g.rules.tribute_on_first_fourth
            payers = [fo[2]] if rule == "3rd_pays" else ([fo[3]] if rule == "4th_pays" else [])
        else:
            payers = [fo[3]]
        return [s for s in payers if "HR" in g.hand(s)]

    def _exchange_result(self, key: str) -> list:
        """Tribute or back entries with every card (merged over the seats' observations)."""
        g = self.game
        merged = None
        for p in range(4):
            entries = g.observation(p)[key]
            if merged is None:
                merged = [list(e) for e in entries]
            for i, e in enumerate(entries):
                if e[2] is not None:
                    merged[i][2] = e[2]
                if e[1] is not None:
                    merged[i][1] = e[1]
        return merged or []

    async def _play_hand(self) -> dict:
        if not self._live():   # e.g. clients taken over, then gone: nobody is watching
            raise _Abandoned("every client left")
        g = self.game
        hand_no = g.hand_number
        levels_before = g.levels
        self.shown = [len(g.hand(q)) for q in range(4)]
        for seat in range(4):
            await self._notify(seat, P.notify_beginning(g.hand(seat), seat))
        trick = {"greater": None, "last": None, "area": [None] * 4}
        if g.phase == "play" and g.observation(0)["anti_tribute"]:
            await self._notify_all(P.notify_anti_tribute(self._anti_pos()))
        if g.phase == "tribute":
            while g.phase == "tribute":
                await self._decide(g.current_player, "tribute", trick)
            await self._notify_all(P.notify_exchange("tribute", self._exchange_result("tribute")))
            self.shown = [len(g.hand(q)) for q in range(4)]  # no return made yet
        if g.phase == "back":
            while g.phase == "back":
                await self._decide(g.current_player, "back", trick)
            await self._notify_all(P.notify_exchange("back", self._exchange_result("back")))
        rest = None
        while g.hand_number == hand_no and not g.is_over:
            seat = g.current_player
            top = g.observation(seat)["top"]
            if top is None:      # a fresh lead: a new trick
                trick = {"greater": None, "last": None, "area": [None] * 4}
            before = [g.hand(q) for q in range(4)]
            move = await self._decide(seat, "play", trick)
            if g.hand_number != hand_no or g.is_over:   # the hand ended: who holds what
                left = list(before)
                left[seat] = ()
                rest = [(q, left[q]) for q in range(4) if left[q]]
            action = move.to_platform()
            if move != PASS:
                trick["greater"] = (seat, action)
            trick["last"] = (seat, action)
            trick["area"][seat] = action
            await self._notify_all(P.notify_play(seat, action, trick["greater"][0],
                                                 trick["greater"][1]))
        res = g.results[hand_no]
        order = list(res["finish_order"])
        if len(order) == 2:   # a double-down: the other two by cards left, then seat
            counts = {q: len(c) for q, c in rest}
            order += sorted((q for q in range(4) if q not in order), key=lambda q: (counts[q], q))
        await self._notify_all(P.notify_episode_over(order, level_char(res["level"]), rest))
        d = res["declarer"]
        reset = d is not None and levels_before[d] == 14 and res["levels"][d] == 2
        return {"reset": reset}

    def _write_record(self, end: str, number: int) -> None:
        if self.cfg.record is None or self.game is None:
            return
        names = [f"bot:{self.cfg.bots[s]}" if s in self.cfg.bots else self.seats[s].name
                 for s in range(4)]
        with RecordWriter(self.cfg.record, "record", append=True) as out:
            out.write(self.game, names,
                      server={"table": self.index, "game": number, "players": names, "end": end,
                              "faults": [f for f in self.faults if f["game"] == number]})

    async def run(self) -> None:
        names = {s: c.name for s, c in self.seats.items()}
        log.info("%s: starts (%d games; clients %s; bots %s)", self._where(), self.cfg.games,
                 names, self.cfg.bots)
        end = "interrupted"
        try:
            for number in range(self.cfg.games):
                self.game = self._new_game(number)
                resets = 0
                end = "interrupted"
                try:
                    while not self.game.is_over:
                        info = await self._play_hand()
                        resets += info["reset"]
                        if self.cfg.draw_after and resets >= self.cfg.draw_after:
                            break
                except _Forfeit as f:
                    loser = f.seat % 2
                    for s in range(4):
                        if s % 2 != loser:
                            self.victories[s] += 1
                    end = "forfeit"
                    self.games_done += 1
                    self.server.stats["games"] += 1
                    self._write_record(end, number)
                    self.game = None
                    await self._notify_all(P.notify_game_over(self.games_done, self.cfg.games))
                    break
                if self.game.is_over:
                    end = "win"
                    for s in range(4):
                        if s % 2 == self.game.winner:
                            self.victories[s] += 1
                else:
                    end = "draw"
                    self.draws = [d + 1 for d in self.draws]
                self.games_done += 1
                self.server.stats["games"] += 1
                self._write_record(end, number)
                self.game = None   # written: a later failure must not write it again
                await self._notify_all(P.notify_game_over(self.games_done, self.cfg.games))
            await self._notify_all(P.notify_game_result(self.victories, self.draws))
            log.info("%s: ends after %d game(s): victories %s, draws %s", self._where(),
                     self.games_done, self.victories, self.draws)
        except _Abandoned:
            log.warning("%s: every client left; the table ends", self._where())
            self._write_record("abandoned", self.games_done)
            self.server.stats["abandoned"] += 1
        except asyncio.CancelledError:
            self._write_record("interrupted", self.games_done)
            raise
        except Exception:  # a bug must not take the other tables down
            log.exception("%s: failed; the table ends", self._where())
            self.server.stats["errors"] += 1
            try:
                self._write_record("error", self.games_done)
            except Exception:
                log.exception("%s: could not write the record", self._where())
        finally:
            for c in self.seats.values():
                c.done.set()
            self.server._table_ended(self)


class GameServer:
    """The server: ``await start()``, then ``await wait()`` (until ``tables`` tables ended) or
    ``await stop()``. ``port`` 0 picks a free port (see ``.port``). ``stats`` counts games,
    refused messages, faults, abandoned tables, table errors and connections."""

    def __init__(self, config: ServerConfig | None = None) -> None:
        self.cfg = config or ServerConfig()
        self.stats = {"games": 0, "refused": 0, "faults": 0, "abandoned": 0, "errors": 0,
                      "tables": 0, "connections": 0}
        self._lobby: list[_Client] = []
        self._tables: dict[int, asyncio.Task] = {}
        self._n_tables = 0
        self._ended = 0
        self._server = None
        self._finished = None
        self.port = None

    async def start(self) -> None:
        ws_serve = _websockets("asyncio.server").serve

        self._finished = asyncio.Event()
        self._server = await ws_serve(self._handler, self.cfg.host, self.cfg.port,
                                      process_request=self._check_path, max_size=2 ** 20,
                                      compression=None)
        # websockets' keepalive pings (every 20 s) find dead peers; no compression: the
        # platform's ws4py clients do not negotiate it and it costs more than it saves here.
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("listening on ws://%s:%d/game/{name}", self.cfg.host, self.port)

    def _check_path(self, connection, request):
        if PATH_RE.match(request.path) is None:
            self.stats["refused"] += 1
            log.warning("refused a connection on path %r (expected /game/{name})", request.path)
            return connection.respond(HTTPStatus.NOT_FOUND, "use ws://HOST:PORT/game/{name}\n")
        return None

    async def _handler(self, ws) -> None:
        name = PATH_RE.match(ws.request.path).group(1)
        client = _Client(ws, name, self.cfg.handshake_pause)
        self.stats["connections"] += 1
        self._lobby.append(client)
        log.info("lobby: %s connected (%d waiting)", name, len(self._lobby))
        reader = asyncio.ensure_future(self._read(client))
        if len(self._lobby) == len(self.cfg.remote_seats):
            clients, self._lobby = self._lobby, []
            self._open_table(clients)
        try:
            # The connection lives until its table ends (or it leaves the lobby); returning
            # from the handler closes it.
            await client.done.wait()
        finally:
            reader.cancel()

    async def _read(self, client: _Client) -> None:
        try:
            async for data in client.ws:
                self._received(client, data)
        except Exception as exc:  # a protocol error or a reset: the connection is over
            log.info("connection %s: %r", client.name, exc)
        finally:
            if client.table is None and client in self._lobby:
                self._lobby.remove(client)
                log.info("lobby: %s left before its table started", client.name)
                client.done.set()
            client._gone("closed by the client")

    def _refuse(self, client: _Client, reason: str) -> None:
        self.stats["refused"] += 1
        log.warning("%s (%s): refused: %s", client._where(), client.name, reason)
        if self.cfg.error_messages and not client.closed:
            asyncio.ensure_future(client.send(json.dumps({"type": "error", "message": reason}),
                                              self.cfg.timeout))

    def _received(self, client: _Client, data) -> None:
        fut = client.pending
        if fut is None or fut.done():
            what = "a binary frame" if isinstance(data, bytes) else repr(data[:80])
            self._refuse(client, f"message out of turn: {what}")
            return
        try:
            i = P.parse_answer(data, client.index_range)
        except ValueError as exc:
            self._refuse(client, f"{exc}; still waiting for a valid answer")
            return
        fut.set_result(i)

    def _open_table(self, clients: list) -> None:
        if self.cfg.tables and self._n_tables >= self.cfg.tables:
            log.warning("lobby: %d client(s) turned away: the server plays only %d table(s)",
                        len(clients), self.cfg.tables)
            for c in clients:
                c.done.set()
            return
        index = self._n_tables
        self._n_tables += 1
        self.stats["tables"] += 1
        table = _Table(self, index, clients)
        self._tables[index] = asyncio.ensure_future(table.run())

    def _table_ended(self, table: _Table) -> None:
        self._tables.pop(table.index, None)
        self._ended += 1
        if self.cfg.tables and self._ended >= self.cfg.tables:
            self._finished.set()

    async def wait(self) -> None:
        """Until ``tables`` tables have ended (forever when ``tables`` is 0)."""
        await self._finished.wait()

    async def stop(self) -> None:
        """Stop accepting, cancel running tables (their records are written as they stand)
        and close every connection."""
        if self._server is None:
            return
        self._server.close()
        tasks = list(self._tables.values())
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for c in self._lobby:
            c.done.set()
        await self._server.wait_closed()
        self._server = None


async def serve(config: ServerConfig, ready: Callable | None = None) -> dict:
    """Run a server until ``config.tables`` tables ended, or until cancelled (Ctrl-C /
    SIGTERM in the CLI); returns its stats."""
    server = GameServer(config)
    await server.start()
    if ready is not None:
        ready(server)
    try:
        await server.wait()
    finally:
        await server.stop()
    return server.stats

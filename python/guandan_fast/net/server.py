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
import struct
import time
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Callable

from ..agents import parse_agent
from ..cards import level_char
from ..extras import require
from ..game import Game
from ..moves import PASS
from ..rules import Rules
from ..records import game_to_lines
from ..validate import check_count, check_rules
from . import protocol as P
from .agents import bot_move, mix_seed

__all__ = ["ServerConfig", "GameServer", "serve", "PATH_RE", "text_frame"]

log = logging.getLogger("guandan_fast.net.server")

TRY_AGAIN_LATER = 1013   # the WebSocket close code (RFC 6455 registry) for "server full"

# /game/NAME or the online platform's /game/gd/NAME, with or without a query string
# (websockets' request.path includes it).
PATH_RE = re.compile(r"^/game/(?:gd/)?([^/?#]+)(?:\?[^#]*)?$")
# /watch/NAME[?table=K]: a spectator (ServerConfig.watch); never seated, never asked.
WATCH_RE = re.compile(r"^/watch/([^/?#]+)(?:\?[^#]*)?$")
SEAT_TAKEN = 4001   # close codes of people's tables (ServerConfig.rejoin), shown by the page
TAKEN_OVER = 4002
_FAULT_POLICIES = ("bot", "forfeit")
_MAX_MOVE_CARDS = 10          # the longest move: a bomb of 8 natural cards and 2 wild ones


@dataclass
class ServerConfig:
    """Settings of ``GameServer`` (the ``serve`` options, docs/server.md).

    ``games``: matches per table; ``tables``: stop after that many tables ended (0: serve
    until stopped); ``bots``: ``{seat: agent}`` filled by agents (any spec of
    ``guandan_fast.agents``); ``seed``: base of
    every table's and game's seed (None: random); ``timeout``: seconds a client may take per
    answer (None: wait forever, as the platform); ``on_fault``: what a timeout or a dropped
    connection leads to: ``'bot'`` (the ``takeover`` agent plays that seat for the rest of
    the table) or ``'forfeit'`` (its team loses the game and the table ends);
    ``draw_after``: a game whose A resets reach this count is a draw (0: never);
    ``handshake_pause``: seconds between a handshake and the first message to that client
    (the ws4py race); ``error_messages``: also answer a refused message with
    ``{"type": "error", "message": ...}`` (off: platform clients fail on unknown messages);
    ``ping_interval``: seconds between WebSocket keepalive pings (None: no pings); a ping
    left unanswered never drops a client (a client that thinks long may not answer pings
    meanwhile): only ``timeout`` does;
    ``record``: a JSONL file every game's record is appended to; ``game_factory``:
    ``f(table, game, seed, rules) -> Game`` for rigged starts (tests).

    For people at the table (``guandan-fast play``, docs/web.md): ``http``:
    ``f(path) -> (status, content_type, body bytes) | None`` answers plain HTTP requests on
    paths other than ``/game/{name}`` (the web page); ``rejoin``: a client's seat outlives its
    connection (no fault, the table waits): a new connection takes a seat whose client is
    gone (or whose client has the same name), gets a ``{"type": "state"}`` message with the
    table as the seat sees it and the pending question again; such clients also get a
    ``state`` message after every notification (counts as the rules disclose them) and may
    ask ``{"hint": AGENT}`` while asked (answered ``{"type": "hint", "actIndex": i}``);
    ``record_each_hand``: the game's record is (re)written at the end of every hand, not only
    when the game ends; ``watch``: spectators may connect on ``/watch/{name}[?table=K]``:
    they get every public notification and ``state`` messages without any hand during a hand,
    and every hand's deal in the ``handOver`` message after it. With ``rejoin`` a connection
    may ask for a seat with ``?seat=S`` in its path (a person's link), and every client gets a
    ``handOver`` summary after each hand (docs/protocol.md, "People's tables").
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
    ping_interval: float | None = 20.0
    record: str | None = None
    game_factory: Callable | None = None
    http: Callable | None = None
    rejoin: bool = False
    record_each_hand: bool = False
    watch: bool = False

    def __post_init__(self) -> None:
        check_rules(self.rules)
        for name in ("games", "tables", "draw_after"):
            setattr(self, name, check_count(getattr(self, name), name, 1 if name == "games" else 0))
        self.port = check_count(self.port, "port", 0, 65535)
        bots = {}
        for seat, agent in dict(self.bots).items():
            if isinstance(seat, bool) or seat not in (0, 1, 2, 3):
                raise ValueError(f"bots: a seat is 0..3, got {seat!r}")
            bots[seat] = parse_agent(agent)
        self.bots = bots
        if len(bots) == 4:
            raise ValueError("bots: at least one seat must be left for a client")
        self.takeover = parse_agent(self.takeover)
        if self.on_fault not in _FAULT_POLICIES:
            raise ValueError(f"on_fault must be one of {', '.join(_FAULT_POLICIES)}, "
                             f"got {self.on_fault!r}")
        for name in ("timeout", "ping_interval"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0):
                raise ValueError(f"{name} must be None or seconds > 0, got {v!r}")
        if (isinstance(self.handshake_pause, bool)
                or not isinstance(self.handshake_pause, (int, float)) or self.handshake_pause < 0):
            raise ValueError(f"handshake_pause must be seconds >= 0, got {self.handshake_pause!r}")

    @property
    def remote_seats(self) -> tuple:
        return tuple(s for s in range(4) if s not in self.bots)


def websockets_module(module: str):
    """A ``websockets`` submodule; ``extras.MissingExtra`` (one line: how to install it) when
    it is missing or too old (the asyncio API used here came with websockets 13)."""
    return require(f"websockets.{module}", "net", "network play needs websockets >= 13")


def _query(path: str) -> dict:
    """The query string of a request path as ``{key: last value}``.

    >>> _query("/game/web-1?seat=2&x=1")
    {'seat': '2', 'x': '1'}
    """
    from urllib.parse import parse_qsl

    return dict(parse_qsl(path.partition("?")[2]))


def text_frame(text: str) -> bytes:
    """``text`` as one unmasked, unfragmented WebSocket text frame (RFC 6455 section 5.2:
    FIN + opcode 1, then the payload length in 7, 16 or 64 bits; a server never masks).
    The server negotiates no extension (compression=None), so no RSV bit is ever set.

    >>> text_frame('hi')
    b'\\x81\\x02hi'
    >>> text_frame('x' * 200)[:4]
    b'\\x81~\\x00\\xc8'
    """
    data = text.encode()
    n = len(data)
    if n < 126:
        return bytes((0x81, n)) + data
    if n < 65536:
        return struct.pack("!BBH", 0x81, 126, n) + data
    return struct.pack("!BBQ", 0x81, 127, n) + data


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
        self.close_with = (1000, "the table has ended")   # the server's close frame
        self.open_state = type(ws.protocol.state).OPEN   # websockets' State.OPEN
        self.started = False
        self.closed = False
        self.pending: asyncio.Future | None = None
        self.index_range = -1
        self.table: "_Table | None" = None
        self.seat = -1
        self.done = asyncio.Event()
        self.question: str | None = None    # the pending act message (re-sent on a rejoin)
        self.rejoin = False
        self.want: int | None = None        # the seat its link asks for (?seat=S)
        # one of our pages (its path has ?seat=S or ?page=1): it gets the additions of people's
        # tables (state, handOver, hint, error); any other client the platform protocol alone
        self.page = False
        self.watching: int | None = None    # a spectator: the index of the table it watches

    def send_now(self, frame: bytes) -> bool:
        """Write a whole text frame (``text_frame``) at once when nothing stands in the way
        (the connection open, started, nothing queued for it); False: use ``send``.
        websockets' ``send`` cost about as much as the rest of serving a decision (a context
        manager, a drain check, the framing per client); a frame made once goes to every
        client of a table. A queued client (a slow reader) goes through ``send``, which
        waits for it (flow control)."""
        if not self.started or self.closed:
            return False
        transport = self.ws.transport
        if self.ws.protocol.state is not self.open_state or transport.is_closing() \
                or transport.get_write_buffer_size():
            return False
        transport.write(frame)
        return True

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
            log.info("%s (%s): connection closed: %s", self._where(), self.name, why)
        if self.rejoin and self.table is not None:
            return   # the seat waits for a new connection (ServerConfig.rejoin)
        if self.pending is not None and not self.pending.done():
            self.pending.set_exception(_Fault("disconnected"))

    def _where(self) -> str:
        if self.watching is not None:
            return f"table {self.watching} spectator"
        if self.table is None:
            return "lobby"
        return f"table {self.table.index} seat {self.seat}"


def _close_story(ws, exc: BaseException | None = None) -> str:
    """Who closed a connection and why, from the close frames exchanged (websockets'
    protocol state), for the log: 'by the client (1000 'bye')', 'by the server (...)', or
    'lost without a close frame'."""
    proto = getattr(ws, "protocol", None)
    rcvd = getattr(proto, "close_rcvd", None)
    sent = getattr(proto, "close_sent", None)

    def frame(close) -> str:
        text = f"{int(close.code)}"
        return text + (f" {close.reason!r}" if close.reason else "")

    if rcvd is not None and (sent is None or getattr(proto, "close_rcvd_then_sent", False)):
        return f"by the client ({frame(rcvd)})"
    if sent is not None:
        return f"by the server ({frame(sent)})"
    cause = f": {exc!r}" if exc is not None and not hasattr(exc, "rcvd") else ""
    return f"lost without a close frame (the client's process or network went away){cause}"


class _Table:
    def __init__(self, server: "GameServer", index: int, clients: list) -> None:
        self.server, self.cfg, self.index = server, server.cfg, index
        self.seats: dict[int, _Client] = {}
        free = list(self.cfg.remote_seats)
        # the seats clients asked for first (a person's link), then the others by arrival
        asked = [c for c in clients if c.want in free]
        for client in asked + [c for c in clients if c not in asked]:
            seat = client.want if client.want in free else free[0]
            free.remove(seat)
            client.table, client.seat = self, seat
            self.seats[seat] = client
        self.bots = dict(self.cfg.bots)      # seat -> agent (grows on takeovers)
        self.victories = [0, 0, 0, 0]
        self.draws = [0, 0, 0, 0]
        self.games_done = 0
        self.faults: list = []
        self.game: Game | None = None
        self.seed = None if self.cfg.seed is None else mix_seed(self.cfg.seed, index)
        self.trick = {"greater": None, "last": None, "area": [None] * 4}
        self.record_offset: int | None = None   # where this game's record starts in the file
        self.last_summary: str | None = None    # the last handOver (sent again on a reload)
        for client in self.seats.values():
            client.rejoin = self.cfg.rejoin

    def _where(self, seat=None) -> str:
        return f"table {self.index}" + ("" if seat is None else f" seat {seat}")

    # -- sending ----------------------------------------------------------------------------
    async def _notify_all(self, msg: dict) -> None:
        await self._notify_all_text(json.dumps(msg))

    async def _notify_all_text(self, text: str, states: bool = True) -> None:
        frame = text_frame(text)
        for c in self.seats.values():   # one after the other: no task per send
            if not c.send_now(frame):
                await c.send(text, self.cfg.timeout)
        if self.cfg.watch:   # (serve's hot path: nothing more without spectators)
            for c in self.server.watchers(self.index):
                await c.send(text, self.cfg.timeout)
        if (self.cfg.rejoin or self.cfg.watch) and states:   # pages and spectators
            await self._send_states()

    def state_message(self, seat: int | None) -> dict:
        """The table as ``seat`` sees it (the ``state`` message of ``ServerConfig.rejoin``);
        ``seat=None``: as a spectator does (no cards in hand; ``myPos`` -1)."""
        g = self.game
        info = {"type": "state", "myPos": -1 if seat is None else seat,
                "game": self.games_done + 1, "games": self.cfg.games,
                "victoryNum": list(self.victories)}
        if g is None:
            return info
        obs = g.observation(0 if seat is None else seat)
        counts = list(obs["counts"])
        if seat is None:   # each count as the other seats are told it
            counts = [g.observation((q + 1) % 4)["counts"][q] for q in range(4)]
        t = self.trick
        info.update({"handNumber": g.hand_number, "phase": g.phase,
                     "handCards": [] if seat is None else list(g.hand(seat)), "counts": counts,
                     "levels": [level_char(v) for v in g.levels], "curRank": level_char(g.level),
                     "declarer": g.declarer, "currentPlayer": g.current_player,
                     "finishOrder": list(obs["finish_order"]), "playArea": list(t["area"]),
                     "greaterPos": -1 if t["greater"] is None else t["greater"][0],
                     "greaterAction": None if t["greater"] is None else t["greater"][1],
                     "tribute": [list(r) for r in obs["tribute"]],
                     "back": [list(r) for r in obs["back"]],
                     "antiTribute": obs["anti_tribute"], "over": g.is_over,
                     "tributePairs": self._tribute_pairs()})
        return info

    async def _send_states(self) -> None:
        for s, c in self.seats.items():
            if c.page:
                await c.send(json.dumps(self.state_message(s)), self.cfg.timeout)
        watchers = self.server.watchers(self.index)
        if watchers:
            text = json.dumps(self.state_message(None))
            for c in watchers:
                await c.send(text, self.cfg.timeout)

    async def _notify(self, seat: int, msg: dict) -> None:
        c = self.seats.get(seat)
        if c is not None:
            await c.send(json.dumps(msg), self.cfg.timeout)

    def _live(self) -> bool:
        return self.cfg.rejoin or any(not c.closed for c in self.seats.values())

    # -- asking -----------------------------------------------------------------------------
    async def _ask(self, seat: int, text: str, index_range: int) -> int:
        c = self.seats[seat]
        if c.closed and not c.rejoin:
            raise _Fault("disconnected")
        c.question = text
        if not c.send_now(text_frame(text)):
            await c.send(text, self.cfg.timeout)
        if c.closed and not c.rejoin:
            raise _Fault("disconnected")
        # Only now does an answer count: nothing runs between the send and these lines, so
        # a message read from here on was sent after the question.
        c.pending = asyncio.get_running_loop().create_future()
        c.index_range = index_range
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
            c.question = None

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
    def _public_info(self, play_area) -> list:
        # self.shown: the counts of the deal during the tribute acts and those after the
        # tribute during the back acts (the engine takes tributes and returns one after the
        # other; the platform asks the players at once, so counts change only with the
        # tribute / back notify), then the live counts of the play, kept by _play_hand.
        return [{"rest": self.shown[q], "playArea": play_area[q]} for q in range(4)]

    async def _decide(self, seat: int, stage: str, trick: dict, moves=None):
        """Have ``seat`` make its move (a bot's or the client's answer); returns the Move.
        ``moves``: the legal moves when the caller has them already."""
        g = self.game
        if seat in self.bots:
            seed = mix_seed(g.seed, g.hand_number, len(g.history), seat)
            move = bot_move(g, self.bots[seat], seed)
            g.play(move, seat=seat)
            return move
        if moves is None:
            moves = g.legal_moves()
        n = len(moves)
        following = stage == "play" and trick["greater"] is not None and n > 1
        # the action list is most of an act message: its JSON text written in compiled code,
        # PASS first when following as the platform lists it (the engine lists it last)
        actions = moves.to_platform_json(pass_first=following)
        team = seat % 2
        levels = g.levels
        greater = trick["greater"]
        text = P.act_json(stage, action_list_json=actions, n_actions=n, hand_cards=g.hand(seat),
                          public_info=self._public_info(trick["area"]),
                          self_rank=level_char(levels[team]),
                          oppo_rank=level_char(levels[1 - team]), cur_rank=level_char(g.level),
                          cur_pos=-1 if trick["last"] is None else trick["last"][0],
                          cur_action=None if trick["last"] is None else trick["last"][1],
                          greater_pos=-1 if greater is None else greater[0],
                          greater_action=None if greater is None else greater[1])
        try:
            i = await self._ask(seat, text, n - 1)
        except _Fault as exc:
            self._fault(seat, str(exc))
            return await self._decide(seat, stage, trick, moves)
        if following:
            i = n - 1 if i == 0 else i - 1
        move = moves[i]
        g.play_index(i)
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
            origin = g.origin
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
        return self._exchange_of(self.game, key)

    async def _play_hand(self) -> dict:
        if not self._live():   # e.g. clients taken over, then gone: nobody is watching
            raise _Abandoned("every client left")
        g = self.game
        hand_no = g.hand_number
        levels_before = g.levels
        self.shown = [len(g.hand(q)) for q in range(4)]
        deal = [list(g.hand(q)) for q in range(4)] if self.cfg.watch else None   # for spectators
        for seat in range(4):
            await self._notify(seat, P.notify_beginning(g.hand(seat), seat))
        trick = self.trick = {"greater": None, "last": None, "area": [None] * 4}
        if self.cfg.rejoin or self.cfg.watch:
            await self._send_states()
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
        counts = self.shown = [len(g.hand(q)) for q in range(4)]   # kept up to date below
        while g.hand_number == hand_no and not g.is_over:
            seat = g.current_player
            moves = g.legal_moves()
            if moves[-1] != PASS:  # PASS is legal exactly when following: a fresh lead
                trick = self.trick = {"greater": None, "last": None, "area": [None] * 4}
            # The hand can end only when the mover plays out; the others' cards are then
            # read before the engine deals the next hand.
            before = [g.hand(q) for q in range(4)] if counts[seat] <= _MAX_MOVE_CARDS else None
            move = await self._decide(seat, "play", trick, moves)
            counts[seat] -= len(move.cards)
            if g.hand_number != hand_no or g.is_over:   # the hand ended: who holds what
                left = list(before)
                left[seat] = ()
                rest = [(q, left[q]) for q in range(4) if left[q]]
            action = move.to_platform()
            if move != PASS:
                trick["greater"] = (seat, action)
            trick["last"] = (seat, action)
            trick["area"][seat] = action
            # (no states after the hand's last play: the engine has dealt the next hand, which
            # people see after the episodeOver and handOver messages)
            await self._notify_all_text(P.notify_play_json(seat, action, trick["greater"][0],
                                                           trick["greater"][1]),
                                        states=rest is None)
        res = g.results[hand_no]
        order = list(res["finish_order"])
        if len(order) == 2:   # a double-down: the other two by cards left, then seat
            counts = {q: len(c) for q, c in rest}
            order += sorted((q for q in range(4) if q not in order), key=lambda q: (counts[q], q))
        over = P.notify_episode_over(order, level_char(res["level"]), rest)
        if not (self.cfg.rejoin or self.cfg.watch):
            await self._notify_all(over)
        else:   # the summary before the next hand's states (the page holds it until continued)
            await self._notify_all_text(json.dumps(over), states=False)
            summary = self._hand_over(hand_no, order, levels_before, rest)
            self.last_summary = json.dumps(summary)
            if self.cfg.rejoin:
                for c in self.seats.values():
                    if c.page:
                        await c.send(self.last_summary, self.cfg.timeout)
            watchers = self.server.watchers(self.index)
            if watchers:
                text = json.dumps(dict(summary, deal=deal))   # every hand, once it is over
                for c in watchers:
                    await c.send(text, self.cfg.timeout)
            await self._send_states()
        d = res["declarer"]
        reset = d is not None and levels_before[d] == 14 and res["levels"][d] == 2
        if self.cfg.record_each_hand and not g.is_over:
            self._write_record("playing", self.games_done)
        return {"reset": reset}

    def _hand_over(self, hand_no: int, order: list, levels_before, rest) -> dict:
        """The ``handOver`` summary of people's tables: the hand (1-based), the finishing
        order, the levels before and after, the last trick, the cards left, and the exchange
        of the next hand: who pays whom (``_tribute_pairs``) or the anti-tribute."""
        g = self.game
        res = g.results[hand_no]
        nxt = None
        if not g.is_over:
            anti = g.phase == "play" and g.observation(0)["anti_tribute"]
            nxt = {"hand": g.hand_number + 1, "level": level_char(g.level),
                   "tribute": self._tribute_pairs(), "antiTribute": self._anti_pos() if anti else []}
        return {"type": "handOver", "hand": hand_no + 1, "order": order,
                "curRank": level_char(res["level"]), "declarer": res["declarer"],
                "levelsBefore": [level_char(v) for v in levels_before],
                "levelsAfter": [level_char(v) for v in res["levels"]],
                "lastTrick": list(self.trick["area"]), "restCards": [[q, list(c)] for q, c in rest],
                "next": nxt, "matchOver": g.is_over, "winner": g.winner if g.is_over else None}

    def summary_pending(self) -> str | None:
        """The last ``handOver`` while the next hand has no play yet (a page reloaded on
        the summary sees it again), else None."""
        g = self.game
        if self.last_summary is None or g is None or g.is_over:
            return None
        if any(m.type not in ("tribute", "back") for _, m in g.history):
            return None
        return self.last_summary

    def _tribute_pairs(self) -> list:
        """``[[payer, receiver], ...]`` of the tribute to be paid (empty outside the tribute
        phase), found by paying on a copy of the game: who receives which tribute follows
        from the cards (the larger to the 1st finisher), which the engine knows."""
        g = self.game
        if g is None or g.phase != "tribute":
            return []
        copy = g.clone()
        while copy.phase == "tribute":
            copy.play_index(0)
        return [[payer, receiver] for payer, receiver, _ in self._exchange_of(copy)]

    @staticmethod
    def _exchange_of(g: Game, key: str = "tribute") -> list:
        merged = None
        for p in range(4):
            entries = g.observation(p)[key]
            if merged is None:
                merged = [list(e) for e in entries]
            for i, e in enumerate(entries):
                for j in (1, 2):
                    if e[j] is not None:
                        merged[i][j] = e[j]
        return merged or []

    def _write_record(self, end: str, number: int) -> None:
        if self.cfg.record is None or self.game is None:
            return
        names = [f"bot:{self.cfg.bots[s]}" if s in self.cfg.bots else self.seats[s].name
                 for s in range(4)]
        # The record's lines from records.py (agents and the server's own header object); the
        # file is handled here, as record_each_hand rewrites the game's record in place.
        lines = game_to_lines(self.game, names,
                              server={"table": self.index, "game": number, "players": names,
                                      "end": end,
                                      "faults": [f for f in self.faults if f["game"] == number]})
        text = "\n".join(lines) + "\n"
        if not self.cfg.record_each_hand:
            with open(self.cfg.record, "a", encoding="utf-8") as f:
                f.write(text)
            return
        # The game's earlier (partial) record, the file's last one, is overwritten in place
        # and the file cut after the new one only then: a kill at any moment leaves at least
        # the hands written before (the new text starts with them).
        with open(self.cfg.record, "a", encoding="utf-8") as f:
            if self.record_offset is None:
                self.record_offset = f.seek(0, 2)
        with open(self.cfg.record, "r+", encoding="utf-8") as f:
            f.seek(self.record_offset)
            f.write(text)
            f.truncate()
        if end != "playing":
            self.record_offset = None

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
                      "tables": 0, "connections": 0, "turned_away": 0}
        self._lobby: list[_Client] = []
        self._watchers: list[_Client] = []
        self._tables: dict[int, asyncio.Task] = {}
        self._table_objects: dict[int, _Table] = {}
        self._n_tables = 0
        self._ended = 0
        self._server = None
        self._finished = None
        self.port = None

    async def start(self) -> None:
        ws_serve = websockets_module("asyncio.server").serve

        self._finished = asyncio.Event()
        self._server = await ws_serve(self._handler, self.cfg.host, self.cfg.port,
                                      process_request=self._check_path, max_size=2 ** 20,
                                      compression=None, ping_interval=self.cfg.ping_interval,
                                      ping_timeout=None)
        # Pings keep idle connections open through proxies, but an unanswered one must not
        # drop a client: a bot thinking for a minute in the thread that reads its socket
        # answers no ping meanwhile, and the platform waits for it (ping_timeout=None;
        # --timeout is the only clock). No compression: the platform's ws4py clients do not
        # negotiate it and it costs more than it saves here.
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("listening on ws://%s:%d/game/{name}", self.cfg.host, self.port)

    def watchers(self, table: int) -> list:
        """The open spectator connections of table ``table``."""
        return [c for c in self._watchers if c.watching == table and not c.closed]

    def tables_info(self) -> list:
        """The open tables, for a lobby page: per table its index, whether it has started,
        the game and hand, and per seat ``bot:AGENT``, ``person`` (connected), ``away`` (a
        person's seat whose page is gone) or ``free`` (no one yet), with the client's name."""
        out = []
        for t in self._table_objects.values():
            seats = []
            for s in range(4):
                if s in t.bots and s not in t.seats:
                    seats.append({"seat": s, "who": f"bot:{t.bots[s]}"})
                else:
                    c = t.seats[s]
                    who = f"bot:{t.bots[s]}" if s in t.bots else ("away" if c.closed else "person")
                    seats.append({"seat": s, "who": who, "name": c.name})
            g = t.game
            out.append({"table": t.index, "started": True, "seats": seats,
                        "game": t.games_done + 1, "hand": None if g is None else g.hand_number + 1,
                        "watchers": len(self.watchers(t.index))})
        if not self._full():   # the table the lobby fills next
            wanted = {c.want: c for c in self._lobby if c.want is not None}
            others = [c for c in self._lobby if c.want is None]   # seated by arrival
            seats = []
            for s in range(4):
                if s in self.cfg.bots:
                    seats.append({"seat": s, "who": f"bot:{self.cfg.bots[s]}"})
                    continue
                c = wanted.get(s) or (others.pop(0) if others else None)
                seats.append({"seat": s, "who": "person" if c else "free",
                              "name": c.name if c else None})
            out.append({"table": self._n_tables, "started": False, "seats": seats, "game": 1,
                        "hand": None, "watchers": len(self.watchers(self._n_tables))})
        return out

    def _check_path(self, connection, request):
        if self.cfg.watch and WATCH_RE.match(request.path):
            return None
        if self.cfg.http is not None and PATH_RE.match(request.path) is None:
            answer = self.cfg.http(request.path)
            if answer is not None:
                status, content_type, body = answer
                headers = websockets_module("datastructures").Headers(
                    [("Content-Type", content_type), ("Content-Length", str(len(body))),
                     ("Cache-Control", "no-store"), ("Connection", "close")])
                return websockets_module("http11").Response(status, HTTPStatus(status).phrase,
                                                            headers, body)
        if PATH_RE.match(request.path) is None:
            self.stats["refused"] += 1
            log.warning("refused a connection on path %r (expected /game/{name})", request.path)
            return connection.respond(HTTPStatus.NOT_FOUND, "use ws://HOST:PORT/game/{name}\n")
        return None

    def _full(self) -> bool:
        return bool(self.cfg.tables) and self._n_tables >= self.cfg.tables

    async def _handler(self, ws) -> None:
        path = ws.request.path
        self.stats["connections"] += 1
        if self.cfg.watch and WATCH_RE.match(path):
            await self._watch(ws, WATCH_RE.match(path).group(1), _query(path))
            return
        name = PATH_RE.match(path).group(1)
        page = self.cfg.rejoin and ("seat" in _query(path) or _query(path).get("page") == "1")
        want = None
        if self.cfg.rejoin and "seat" in _query(path):
            text = _query(path)["seat"]
            if text not in [str(s) for s in self.cfg.remote_seats]:
                reason = (f"seat {text} is not a seat for people at this table (those are "
                          f"{', '.join(map(str, self.cfg.remote_seats))})")
                log.warning("refused %s: %s", name, reason)
                await ws.close(SEAT_TAKEN, reason)
                return
            want = int(text)
        if self.cfg.rejoin and await self._rejoin(ws, name, want, page):
            return
        if self._full():
            # Turned away at once (not left waiting in a lobby that never fills).
            self.stats["turned_away"] += 1
            reason = f"server full: it plays only {self.cfg.tables} table(s), all started"
            log.warning("lobby: %s turned away: %s", name, reason)
            await ws.close(TRY_AGAIN_LATER, reason)
            return
        client = _Client(ws, name, self.cfg.handshake_pause)
        client.want, client.page = want, page
        if want is not None:
            same = next((c for c in self._lobby if c.want == want), None)
            if same is not None and same.name != name:
                reason = f"seat {want} is taken: another page is playing it"
                log.warning("refused %s: %s", name, reason)
                await ws.close(SEAT_TAKEN, reason)
                return
            if same is not None:   # the same page again (a reload): the new connection waits
                self._lobby.remove(same)
                same.done.set()
        self._lobby.append(client)
        log.info("lobby: %s connected (%d waiting)", name, len(self._lobby))
        reader = asyncio.ensure_future(self._read(client))
        if len(self._lobby) == len(self.cfg.remote_seats):
            clients, self._lobby = self._lobby, []
            self._open_table(clients)
        await self._hold(client, ws, reader)

    @staticmethod
    async def _hold(client: _Client, ws, reader) -> None:
        """Keep connection ``ws`` of ``client`` until its table ends (or it leaves the lobby),
        then close it with the table's reason; returning from the handler closes it."""
        try:
            await client.done.wait()
            if not client.closed and client.ws is ws:
                code, reason = client.close_with
                client._gone(f"by the server ({code} {reason!r})")
                await ws.close(code, reason)
        finally:
            reader.cancel()

    async def _rejoin(self, ws, name: str, want: int | None = None, page: bool = True) -> bool:
        """``ServerConfig.rejoin``: seat a new connection in place of a gone client (or of a
        client with the same name); ``want``: only that seat (a person's link). Refuse it with
        a close reason when the seats it may take are connected and no more table can open.
        False: go to the lobby."""
        seats = [(t, s, c) for t in self._table_objects.values() for s, c in t.seats.items()
                 if want is None or s == want]
        pick = next((x for x in seats if x[2].name == name), None)
        pick = pick or next((x for x in seats if x[2].closed), None)
        if pick is None:
            if self._full():
                taken = ", ".join(str(s) for _, s, _ in seats)
                log.warning("refused %s: every seat is taken", name)
                await ws.close(SEAT_TAKEN, f"seat {taken} is taken: another page is playing it")
                return True
            return False
        table, seat, client = pick
        old = client.ws
        client.ws, client.name, client.closed, client.started = ws, name, False, True
        client.page = page
        if old is not ws:
            try:
                await old.close(4002, "this seat was taken over by a new connection")
            except Exception:
                pass
        log.info("%s: %s rejoins", table._where(seat), name)
        reader = asyncio.ensure_future(self._read(client, ws))
        if page:
            again = table.summary_pending()
            if again is not None:   # reloaded on the end-of-hand summary: it shows again
                await client.send(again, self.cfg.timeout)
            await client.send(json.dumps(table.state_message(seat)), self.cfg.timeout)
        if client.question is not None:
            await client.send(client.question, self.cfg.timeout)
        await self._hold(client, ws, reader)
        return True

    async def _watch(self, ws, name: str, query: dict) -> None:
        """A spectator (``ServerConfig.watch``) of table ``?table=K`` (default: the first
        open table, else the one the lobby fills next): public messages only."""
        try:
            index = int(query["table"]) if "table" in query else min(
                self._table_objects, default=self._n_tables)
        except ValueError:
            await ws.close(SEAT_TAKEN, f"table must be a number, got {query['table']!r}")
            return
        client = _Client(ws, name, 0.0)
        client.watching, client.started = index, True
        self._watchers.append(client)
        log.info("table %d: spectator %s connected", index, name)
        reader = asyncio.ensure_future(self._read(client))
        table = self._table_objects.get(index)
        if table is not None:
            await client.send(json.dumps(table.state_message(None)), self.cfg.timeout)
        try:
            await self._hold(client, ws, reader)
        finally:
            if client in self._watchers:
                self._watchers.remove(client)

    async def _read(self, client: _Client, ws=None) -> None:
        ws = client.ws if ws is None else ws
        error = None
        try:
            async for data in ws:
                self._received(client, data)
        except Exception as exc:  # a protocol error or a reset: the connection is over
            error = exc
        finally:
            if client.table is None and client in self._lobby:
                self._lobby.remove(client)
                log.info("lobby: %s left before its table started", client.name)
                client.done.set()
            if client.ws is ws:   # (a rejoined seat has a new connection by now)
                client._gone(_close_story(ws, error))

    def _refuse(self, client: _Client, reason: str) -> None:
        self.stats["refused"] += 1
        log.warning("%s (%s): refused: %s", client._where(), client.name, reason)
        if self.cfg.error_messages and not client.closed and (client.page or not self.cfg.rejoin):
            asyncio.ensure_future(client.send(json.dumps({"type": "error", "message": reason}),
                                              self.cfg.timeout))

    def _received(self, client: _Client, data) -> None:
        if client.watching is not None:
            self._refuse(client, "a spectator does not play")
            return
        fut = client.pending
        if client.rejoin and client.page and isinstance(data, str) and '"hint"' in data:
            self._hint(client, data)
            return
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

    def _hint(self, client: _Client, data: str) -> None:
        """A ``{"hint": AGENT}`` request of a rejoin client: the index in the pending
        question's ``actionList`` of the move AGENT (any spec of ``guandan_fast.agents``)
        would make in the client's seat."""
        try:
            spec = json.loads(data)["hint"]
            table = client.table
            if client.question is None or table is None or table.game is None:
                raise ValueError("no question is pending")
            g = table.game
            move = parse_agent(spec).move(g, mix_seed(g.seed, g.hand_number, len(g.history),
                                                      client.seat))
            def key(a):
                return (a[0], a[1], sorted(a[2]))
            actions = [key(a) for a in json.loads(client.question)["actionList"]]
            i = actions.index(key(move.to_platform()))
            answer = {"type": "hint", "agent": str(spec), "actIndex": i}
        except (ValueError, TypeError, KeyError) as exc:
            answer = {"type": "error", "message": f"hint: {exc}"}
        asyncio.ensure_future(client.send(json.dumps(answer), self.cfg.timeout))

    def _open_table(self, clients: list) -> None:
        index = self._n_tables
        self._n_tables += 1
        self.stats["tables"] += 1
        table = _Table(self, index, clients)
        self._table_objects[index] = table
        self._tables[index] = asyncio.ensure_future(table.run())

    def _table_ended(self, table: _Table) -> None:
        for c in self.watchers(table.index):
            c.done.set()
        self._tables.pop(table.index, None)
        self._table_objects.pop(table.index, None)
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
        for c in self._lobby + self._watchers:
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

"""Any agent as a platform client (``guandan-fast connect``; docs/server.md).

``play(url, agent)`` connects to ``ws://HOST:PORT/game/NAME``, answers every ``act`` message
with the agent's ``{"actIndex": i}`` and returns when the server closes the connection. The
agent decides from what its seat was told (``net.agents.choose_index``, ``net.view``).
Every message received is checked against the protocol; a bad one is logged (and counted)
and, if it is an ``act`` the agent cannot read, answered with index 0 so the table goes on.
A Python agent that raises (or answers a move that is not legal) stops the client with an
error naming the agent and the decision.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, field

from ..agents import AgentError, parse_agents
from ..moves import IllegalMoveError
from . import protocol as P
from .agents import choose_index, mix_seed
from .view import SeatView

__all__ = ["ClientResult", "play"]

log = logging.getLogger("guandan_fast.net.client")


@dataclass
class ClientResult:
    """What a client saw: its seat, messages by ``type/stage``, hands and games played, the
    last ``gameResult`` (``victory_num``, ``draws``) and protocol problems found."""

    seat: int | None = None
    messages: dict = field(default_factory=dict)
    hands: int = 0
    games: int = 0
    victory_num: list | None = None
    draws: list | None = None
    problems: list = field(default_factory=list)


async def play(url: str, agent="greedy", seed: int = 0, open_timeout: float = 10.0,
               result: ClientResult | None = None) -> ClientResult:
    """Play at a platform server until it closes the connection (``agent``: any spec of
    ``guandan_fast.agents``, or an ``Agent``); ``result``: the ``ClientResult`` to fill (the
    caller then sees how far it got if it is interrupted)."""
    from .server import websockets_module

    connect = websockets_module("asyncio.client").connect
    from websockets.exceptions import ConnectionClosed, InvalidHandshake

    agent = parse_agents([agent], where="platform", place="connect")[0]
    view = SeatView()
    if not isinstance(url, str) or not url.startswith(("ws://", "wss://")):
        raise ValueError(f"url must be ws://HOST:PORT/game/NAME, got {url!r}")
    res = ClientResult() if result is None else result
    decisions = 0
    try:
        ws = await connect(url, open_timeout=open_timeout, max_size=2 ** 22, ping_interval=None)
    except InvalidHandshake as exc:   # e.g. HTTP 404 on a wrong path
        raise ConnectionError(f"cannot join {url}: {exc}") from None
    async with ws:
        try:
            async for data in ws:
                msg = None
                try:
                    msg = json.loads(data)
                    P.check_message(msg)
                except ValueError as exc:
                    res.problems.append(str(exc))
                    log.warning("bad message from the server: %s", exc)
                    if not (isinstance(msg, dict) and msg.get("type") == "act"):
                        continue
                try:
                    view.observe(msg)
                except (KeyError, TypeError, ValueError) as exc:
                    res.problems.append(f"cannot follow the table: {exc}")
                key = f"{msg.get('type')}/{msg.get('stage')}"
                res.messages[key] = res.messages.get(key, 0) + 1
                stage = msg.get("stage")
                if msg.get("type") == "notify":
                    if stage == "beginning":
                        res.seat = msg["myPos"]
                        res.hands += 1
                    elif stage == "gameOver":
                        res.games = msg["curTimes"]
                    elif stage == "gameResult":
                        res.victory_num, res.draws = msg["victoryNum"], msg["draws"]
                    continue
                try:
                    i = choose_index(agent, msg, res.seat if res.seat is not None else 0,
                                     seed=mix_seed(seed, decisions), view=view)
                except AgentError as exc:
                    raise AgentError(f"connect, decision {decisions + 1} of the connection "
                                     f"(hand {res.hands}): {exc}") from exc.__cause__
                except IllegalMoveError:
                    raise
                except (KeyError, TypeError, ValueError) as exc:
                    res.problems.append(f"cannot decide: {exc}")
                    log.warning("cannot decide on %s: %s; answering 0", key, exc)
                    i = 0
                decisions += 1
                await ws.send(json.dumps({"actIndex": i}))
        except ConnectionClosed:
            pass
    return res


def run(url: str, agent="greedy", seed: int = 0, result: ClientResult | None = None) -> ClientResult:
    """``play`` in a fresh event loop (the CLI's entry; ``result`` as for ``play``)."""
    return asyncio.run(play(url, agent, seed, result=result))

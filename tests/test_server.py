"""The platform WebSocket server and client (docs/server.md), over loopback only.

The clients here are written for the tests: they speak only the JSON of PROTOCOL.md and check
every message they receive against its field tables and against the cards they track
themselves (hand, counts, trick), independently of guandan_fast.net.protocol.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import subprocess
import sys
import time
from collections import Counter

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from guandan_fast import Game, Rules
from guandan_fast.cards import FULL_DECK
from guandan_fast.net.agents import bot_move
from guandan_fast.net.client import play
from guandan_fast.net.server import GameServer, ServerConfig
from guandan_fast.simulate import simulate
from guandan_fast.simulate_core import match_seed

# PROTOCOL.md's tables: (type, stage) -> fields besides type and stage.
NOTIFY = {
    "beginning": {"handCards", "myPos"},
    "play": {"curPos", "curAction", "greaterPos", "greaterAction"},
    "tribute": {"result"},
    "anti-tribute": {"antiNums", "antiPos"},
    "back": {"result"},
    "episodeOver": {"order", "curRank", "restCards"},
    "gameOver": {"curTimes", "settingTimes"},
    "gameResult": {"victoryNum", "draws"},
}
ACT = {"handCards", "publicInfo", "selfRank", "oppoRank", "curRank", "curPos", "curAction",
       "greaterPos", "greaterAction", "actionList", "indexRange"}
PASS = ["PASS", "PASS", "PASS"]
RANK_CHARS = "23456789TJQKA"
LIMIT = 150  # seconds: every test's event loop is bounded


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, LIMIT))


class Client:
    """A platform client for the tests: answers with a seeded random index and checks every
    message. Subclasses change ``answer`` to misbehave."""

    def __init__(self, url: str, seed: int = 0) -> None:
        self.url, self.rng = url, random.Random(seed)
        self.seat = None
        self.hand: Counter = Counter()
        self.counts = [0, 0, 0, 0]
        self.stages: list = []
        self.acts = 0
        self.hands = 0
        self.result = None
        self.game_overs: list = []
        self.my_last = None          # the action this client picked last (play stage)
        self.first_message_delay = None
        self.errors: list = []       # {"type": "error"} messages (error_messages option)
        self.closed_ok = False

    # -- policy ----------------------------------------------------------------------------
    async def answer(self, ws, msg) -> None:
        i = self.rng.randrange(len(msg["actionList"]))
        if msg["stage"] == "play":
            self.my_last = msg["actionList"][i]
        await ws.send(json.dumps({"actIndex": i}))

    # -- the loop --------------------------------------------------------------------------
    async def run(self) -> "Client":
        async with connect(self.url, ping_interval=None, max_size=None) as ws:
            self.t0 = time.monotonic()
            try:
                async for data in ws:
                    await self.receive(ws, data)
                self.closed_ok = True
            except ConnectionClosed:
                pass
        return self

    async def receive(self, ws, data) -> None:
        """One message from the server: checked, and answered when it asks."""
        if self.first_message_delay is None:
            self.first_message_delay = time.monotonic() - self.t0
        assert isinstance(data, str), "the server sends text frames"
        msg = json.loads(data)
        if msg.get("type") == "error":
            self.errors.append(msg)
            return
        self.check(msg)
        if msg["type"] == "act":
            self.acts += 1
            await self.answer(ws, msg)

    # -- checks ----------------------------------------------------------------------------
    def check(self, msg) -> None:
        t, stage = msg["type"], msg["stage"]
        want = NOTIFY[stage] if t == "notify" else ACT
        assert t in ("notify", "act")
        assert set(msg) - {"type", "stage"} == want, (t, stage, sorted(msg))
        self.stages.append((t, stage))
        getattr(self, f"_{t}_{stage.replace('-', '_')}")(msg)

    def _take(self, seat, cards) -> None:
        self.counts[seat] -= len(cards)
        if seat == self.seat:
            for c in cards:
                assert self.hand[c] > 0, f"seat {seat} played {c} it does not hold"
                self.hand[c] -= 1
            self.hand += Counter()

    def _give(self, seat, card) -> None:
        self.counts[seat] += 1
        if seat == self.seat:
            self.hand[card] += 1

    def _notify_beginning(self, m) -> None:
        assert m["myPos"] in range(4) and (self.seat is None or self.seat == m["myPos"])
        assert len(m["handCards"]) == 27
        self.seat = m["myPos"]
        self.hand = Counter(m["handCards"])
        self.counts = [27, 27, 27, 27]
        self.hands += 1

    def _exchange(self, m, stage) -> None:
        assert 1 <= len(m["result"]) <= 2
        for frm, to, card in m["result"]:
            assert frm != to, m   # partners too: the 4th pays his partner the 1st
            self._take(frm, [card])
            self._give(to, card)

    def _notify_tribute(self, m) -> None:
        self._exchange(m, "tribute")

    def _notify_back(self, m) -> None:
        assert self.stages[-2][1] in ("tribute", "back"), self.stages[-4:]
        self._exchange(m, "back")

    def _notify_anti_tribute(self, m) -> None:
        assert m["antiNums"] in (1, 2) and len(m["antiPos"]) == m["antiNums"]
        if self.seat in m["antiPos"]:
            assert self.hand["HR"] >= 1

    def _notify_play(self, m) -> None:
        assert m["curPos"] in range(4) and m["greaterPos"] in range(4)
        assert m["greaterAction"] != PASS
        if m["curAction"] != PASS:
            assert m["greaterPos"] == m["curPos"] and m["greaterAction"] == m["curAction"]
            self._take(m["curPos"], m["curAction"][2])
        if m["curPos"] == self.seat and self.my_last is not None:  # None: a bot's move
            assert m["curAction"] == self.my_last, (m, self.my_last)
            self.my_last = None

    def _notify_episodeOver(self, m) -> None:
        assert sorted(m["order"]) == [0, 1, 2, 3] and m["curRank"] in RANK_CHARS
        rest = {s: c for s, c in m["restCards"]}
        for s in range(4):
            assert self.counts[s] == len(rest.get(s, [])), (s, self.counts, m)
        if self.seat in rest:
            assert Counter(rest[self.seat]) == self.hand
        # players out first come first in the order
        assert set(m["order"][: 4 - len(rest)]) == {s for s in range(4) if s not in rest}

    def _notify_gameOver(self, m) -> None:
        assert m["curTimes"] == len(self.game_overs) + 1 <= m["settingTimes"]
        self.game_overs.append(m)

    def _notify_gameResult(self, m) -> None:
        assert len(m["victoryNum"]) == 4 and len(m["draws"]) == 4
        self.result = m

    def _act(self, m) -> None:
        assert Counter(m["handCards"]) == self.hand, "handCards differ from the tracked hand"
        info = m["publicInfo"]
        assert len(info) == 4
        assert [e["rest"] for e in info] == self.counts
        for r in ("selfRank", "oppoRank", "curRank"):
            assert m[r] in RANK_CHARS
        actions = m["actionList"]
        assert m["indexRange"] == len(actions) - 1 >= 0
        assert len({json.dumps(a) for a in actions}) == len(actions), "duplicate actions"
        for a in actions:
            if a != PASS:
                assert not Counter(a[2]) - self.hand, f"{a} uses cards not held"
        return actions

    def _act_play(self, m) -> None:
        actions = self._act(m)
        info = m["publicInfo"]
        if m["greaterPos"] == -1:
            assert m["greaterAction"] is None and m["curPos"] == -1 and m["curAction"] is None
            assert PASS not in actions
            assert all(e["playArea"] is None for e in info)
        else:
            assert actions[0] == PASS and actions.count(PASS) == 1
            assert m["greaterPos"] != self.seat and m["greaterAction"] != PASS
            assert info[m["greaterPos"]]["playArea"] == m["greaterAction"]
            assert info[m["curPos"]]["playArea"] == m["curAction"]
        for a in actions:
            assert a[0] not in ("tribute", "back")

    def _act_tribute(self, m) -> None:
        actions = self._act(m)
        assert all(a[0] == "tribute" == a[1] and len(a[2]) == 1 for a in actions)

    def _act_back(self, m) -> None:
        actions = self._act(m)
        assert all(a[0] == "back" == a[1] and len(a[2]) == 1 for a in actions)


def deal(seed: int) -> list:
    deck = list(FULL_DECK)
    random.Random(seed).shuffle(deck)
    return [deck[i * 27:(i + 1) * 27] for i in range(4)]


def give(hands, to, card, want) -> None:
    """Make seat ``to`` hold ``want`` copies of ``card``, swapping other cards back."""
    while hands[to].count(card) < want:
        frm = next(p for p in range(4) if p != to and card in hands[p])
        other = next(c for c in hands[to] if c != card)
        hands[frm].remove(card)
        hands[to].remove(other)
        hands[frm].append(other)
        hands[to].append(card)


def rigged(kinds):
    """A game factory: game g of each table starts (levels K/K, team 0 declaring) after a
    previous hand of kind ``kinds[g % len(kinds)]``: 'tribute' (seat 3 pays seat 0),
    'double' (seats 1 and 3 pay), 'anti' (seats 1 and 3 hold a big joker each), 'anti1'
    (seat 3 holds both big jokers)."""
    def factory(table, game, seed, rules):
        kind = kinds[game % len(kinds)]
        hands = deal(seed)
        give(hands, 0, "HR", 2)        # then place the big jokers as the kind needs
        prev = [0, 1, 2, 3]
        if kind in ("double", "anti"):
            prev = [0, 2]
        if kind == "anti":
            give(hands, 1, "HR", 1)
            give(hands, 3, "HR", 1)
        elif kind == "anti1":
            give(hands, 3, "HR", 2)
        return Game.setup(hands, levels=(13, 13), previous_finish=prev, seed=seed, rules=rules)
    return factory


async def serve_and_play(cfg: ServerConfig, make_clients):
    server = GameServer(cfg)
    await server.start()
    try:
        url = f"ws://127.0.0.1:{server.port}/game/"
        tasks = []
        for k, c in enumerate(make_clients(url)):
            # one at a time, so that the k-th client is the k-th arrival
            tasks.append(asyncio.ensure_future(c.run() if isinstance(c, Client) else c))
            while server.stats["connections"] <= k and not tasks[-1].done():
                await asyncio.sleep(0.002)
        results = await asyncio.gather(*tasks)
        await asyncio.wait_for(server.wait(), 30)
    finally:
        await server.stop()
    return server, results


def replay_all(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    headers = [json.loads(ln) for ln in lines if '"format"' in ln]
    games = [Game.from_record(path, match=i) for i in range(len(headers))]
    return headers, games


FAST = dict(port=0, handshake_pause=0.01, rules=Rules())


# -----------------------------------------------------------------------------------------
# Whole games

def test_whole_games_tribute_anti_tribute_back(tmp_path):
    """Four test clients play five games on one table, each opened after a rigged previous
    hand, to the end; every message checked; records replay to the results announced."""
    rec = tmp_path / "games.jsonl"
    kinds = ["tribute", "anti", "double", "anti1", "tribute"]
    cfg = ServerConfig(**FAST, games=len(kinds), tables=1, seed=11, record=str(rec),
                       game_factory=rigged(kinds))
    server, clients = run(serve_and_play(
        cfg, lambda url: [Client(url + f"client{i + 1}", seed=i) for i in range(4)]))
    assert sorted(c.seat for c in clients) == [0, 1, 2, 3]
    assert all(c.closed_ok for c in clients)
    stages = {s for c in clients for s in c.stages}
    for s in [("notify", "tribute"), ("notify", "back"), ("notify", "anti-tribute"),
              ("act", "tribute"), ("act", "back"), ("act", "play"), ("notify", "episodeOver")]:
        assert s in stages, s
    result = clients[0].result
    assert all(c.result == result for c in clients)
    assert sum(result["victoryNum"]) == 2 * len(kinds) and result["draws"] == [0, 0, 0, 0]
    assert result["victoryNum"][0] == result["victoryNum"][2]
    # the records: one match per game, each replays to the end and its winner is counted
    headers, games = replay_all(rec)
    assert len(games) == len(kinds)
    wins = [0, 0, 0, 0]
    for h, g in zip(headers, games):
        assert g.is_over and h["server"]["end"] == "win"
        for s in range(4):
            wins[s] += g.winner == s % 2
    assert wins == result["victoryNum"]
    hands = sum(len(g.results) for g in games)
    assert all(c.hands == hands for c in clients)
    # the anti-tribute games really were: no tribute in their first hand
    first = [json.loads(open(rec).read().splitlines()[i + 1]) for i in
             [k for k, ln in enumerate(open(rec).read().splitlines()) if '"format"' in ln]]
    assert [f["anti_tribute"] for f in first] == [k.startswith("anti") for k in kinds]
    assert server.stats["refused"] == 0 and server.stats["errors"] == 0


def test_platform_rules_cli_one_client_three_bots(tmp_path):
    """`guandan-fast serve` with the platform profile: one test client, three greedy bots, a
    whole platform match; the CLI ends by itself after --tables 1."""
    rec = tmp_path / "plat.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "guandan_fast", "serve", "--port", "0", "--tables", "1",
         "--bots", "1,2,3=greedy", "--seed", "5", "--record", str(rec), "--quiet",
         "--handshake-pause", "0.05"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening on ws://127.0.0.1:"), line
        port = int(line.split(":")[2].split("/")[0])
        client = run(Client(f"ws://127.0.0.1:{port}/game/me", seed=3).run())
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "1 game(s)" in out
    assert client.seat == 0 and len(client.game_overs) == 1
    headers, games = replay_all(rec)
    assert Rules.from_dict(headers[0]["rules"]) == Rules.platform()
    g = games[0]
    assert g.is_over and client.result["victoryNum"] == [int(g.winner == s % 2) for s in range(4)]
    # platform ace rule: the match was won by a 1st-and-2nd at the winners' own A
    last = g.results[-1]
    assert last["level"] == 14 and last["declarer"] == g.winner
    assert len(last["finish_order"]) == 2 and last["finish_order"][0] % 2 == g.winner


def test_our_client_against_our_server(tmp_path):
    """Four guandan_fast.net.client players (greedy and random agents) at one table."""
    rec = tmp_path / "ours.jsonl"
    cfg = ServerConfig(**FAST, games=2, tables=1, seed=2, record=str(rec),
                       game_factory=rigged(["tribute", "anti"]))
    agents = ["greedy", "random", "random_compact", "greedy"]
    server, results = run(serve_and_play(
        cfg, lambda url: [play(url + f"p{i}", agents[i], seed=i) for i in range(4)]))
    assert sorted(r.seat for r in results) == [0, 1, 2, 3]
    for r in results:
        assert r.problems == [] and r.games == 2
        assert r.messages["act/play"] > 0 and r.messages["notify/gameResult"] == 1
    assert sum(results[0].victory_num) == 4
    _, games = replay_all(rec)
    assert all(g.is_over for g in games)


def test_bot_move_plays_as_the_compiled_greedy():
    """A match played with bot_move('greedy') at every seat is the compiled simulation's."""
    seed = 9
    g = Game(match_seed(seed, 0), Rules())
    plays = 0
    while not g.is_over:
        m = bot_move(g, "greedy")
        plays += m.type not in ("PASS", "tribute", "back")
        g.play(m)
    res = simulate(matches=1, agents=("greedy",) * 4, seed=seed, threads=1)
    assert res.hands == len(g.results) and res.plays == plays
    assert res.team_wins[g.winner] == 1


# -----------------------------------------------------------------------------------------
# Bad clients

class Garbage(Client):
    """On its first act: every kind of invalid answer, then a valid one. Before that, a
    message out of turn."""

    BAD = ["{", b"\x00\x01", json.dumps({"actIndex": 10 ** 6}), json.dumps({"actIndex": -1}),
           json.dumps({"actIndex": True}), json.dumps({"actIndex": "0"}), "[]",
           json.dumps({"other": 1}), "null"]

    async def answer(self, ws, msg):
        if self.acts == 1:
            for bad in self.BAD:
                await ws.send(bad)
        await super().answer(ws, msg)


class EarlyTalker(Client):
    """Answers the ``beginning`` message, which asks nothing (out of turn)."""

    async def receive(self, ws, data):
        if self.first_message_delay is None:
            await ws.send(json.dumps({"actIndex": 0}))   # nobody asked: out of turn
        await super().receive(ws, data)


def test_invalid_answers_are_refused_and_the_game_goes_on(tmp_path, caplog):
    rec = tmp_path / "bad.jsonl"
    cfg = ServerConfig(**FAST, games=1, tables=1, seed=4, record=str(rec),
                       bots={2: "greedy", 3: "greedy"}, error_messages=True,
                       game_factory=rigged(["tribute"]))
    with caplog.at_level(logging.WARNING, logger="guandan_fast.net.server"):
        server, (bad, early) = run(serve_and_play(
            cfg, lambda url: [Garbage(url + "bad", 1), EarlyTalker(url + "early", 2)]))
    refused = len(Garbage.BAD) + 1
    assert server.stats["refused"] == refused and server.stats["errors"] == 0
    assert bad.result is not None and early.result is not None and bad.closed_ok
    logged = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert len(logged) == refused
    assert any("out of range" in m for m in logged) and any("not JSON" in m for m in logged)
    assert any("binary frame" in m for m in logged) and any("out of turn" in m for m in logged)
    assert len(bad.errors) == len(Garbage.BAD) and len(early.errors) == 1
    _, games = replay_all(rec)
    assert games[0].is_over


class Quitter(Client):
    """Disconnects in the middle of its ``quit_at``-th act."""

    def __init__(self, url, seed, quit_at):
        super().__init__(url, seed)
        self.quit_at = quit_at

    async def answer(self, ws, msg):
        if self.acts == self.quit_at:
            await ws.close()
            return
        await super().answer(ws, msg)


def test_disconnect_bot_takes_over_other_table_unaffected(tmp_path):
    rec = tmp_path / "dc.jsonl"
    cfg = ServerConfig(**FAST, games=2, tables=2, seed=6, record=str(rec),
                       bots={1: "greedy", 3: "greedy"}, game_factory=rigged(["tribute"]))

    async def main():
        server = GameServer(cfg)
        await server.start()
        url = f"ws://127.0.0.1:{server.port}/game/"
        # table 0: the first two arrivals (its seat 0 quits at its 5th act); table 1: the next two
        t0 = [Quitter(url + "q", 1, quit_at=5), Client(url + "a", 2)]
        t1 = [Client(url + "b", 3), Client(url + "c", 4)]
        tasks = []
        for k, c in enumerate(t0 + t1):
            tasks.append(asyncio.ensure_future(c.run()))
            while server.stats["connections"] <= k:
                await asyncio.sleep(0.002)
        await asyncio.gather(*tasks)
        await asyncio.wait_for(server.wait(), 30)
        await server.stop()
        return server, t0, t1

    server, t0, t1 = run(main())
    assert server.stats["faults"] == 1 and server.stats["errors"] == 0
    assert t0[1].result is not None and sum(t0[1].result["victoryNum"]) == 4
    assert t1[0].result is not None and sum(t1[0].result["victoryNum"]) == 4
    assert t0[0].result is None
    headers, games = replay_all(rec)
    assert len(games) == 4 and all(g.is_over for g in games)
    faults = [f for h in headers for f in h["server"]["faults"]]
    assert len(faults) == 1 and faults[0]["seat"] == 0 and "disconnect" in faults[0]["reason"]
    players = {h["server"]["table"]: h["server"]["players"] for h in headers}
    assert players[0][1] == "bot:greedy" and players[0][0] == "q"


def test_disconnect_forfeit(tmp_path):
    rec = tmp_path / "ff.jsonl"
    cfg = ServerConfig(**FAST, games=3, tables=1, seed=8, record=str(rec), on_fault="forfeit",
                       bots={1: "greedy", 3: "greedy"}, game_factory=rigged(["tribute"]))
    server, (q, a) = run(serve_and_play(
        cfg, lambda url: [Quitter(url + "q", 1, quit_at=3), Client(url + "a", 2)]))
    assert q.seat == 0 and a.seat == 2
    # team 0 forfeits the first game; the table ends there
    assert a.result == {"type": "notify", "stage": "gameResult",
                        "victoryNum": [0, 1, 0, 1], "draws": [0, 0, 0, 0]}
    assert [m["curTimes"] for m in a.game_overs] == [1]
    headers, games = replay_all(rec)
    assert len(games) == 1 and not games[0].is_over
    assert headers[0]["server"]["end"] == "forfeit"


class Sleeper(Client):
    """Does not answer its 2nd act in time; answers it late (out of turn)."""

    async def answer(self, ws, msg):
        if self.acts == 2:
            async def late():
                await asyncio.sleep(0.5)
                try:
                    await ws.send(json.dumps({"actIndex": 0}))
                except ConnectionClosed:
                    pass
            asyncio.ensure_future(late())
            return
        await super().answer(ws, msg)


def test_slow_client_times_out_and_a_bot_plays_its_seat(tmp_path):
    rec = tmp_path / "slow.jsonl"
    cfg = ServerConfig(**FAST, games=1, tables=1, seed=5, record=str(rec), timeout=0.3,
                       bots={1: "greedy", 2: "greedy", 3: "greedy"},
                       game_factory=rigged(["tribute"]))
    server, (s,) = run(serve_and_play(cfg, lambda url: [Sleeper(url + "s", 1)]))
    assert server.stats["faults"] == 1
    assert s.acts == 2 and s.result is not None       # no act after the takeover
    headers, games = replay_all(rec)
    assert games[0].is_over and "no valid answer" in headers[0]["server"]["faults"][0]["reason"]


class Thinker(Client):
    """Blocks its own event loop (so its library answers no ping) for ``think`` seconds on
    its 2nd act, as a bot that computes in the thread reading its socket does."""

    def __init__(self, url, seed, think):
        super().__init__(url, seed)
        self.think = think

    async def answer(self, ws, msg):
        if self.acts == 2:
            time.sleep(self.think)
        await super().answer(ws, msg)


@pytest.mark.parametrize("timeout", [None, 5.0])
def test_a_thinking_client_is_never_dropped_by_keepalive(tmp_path, timeout):
    """Pings every 0.05 s, a client deaf to them for 0.8 s (16 intervals): without a timeout
    it is waited for; with one (longer than its thinking) the timeout is the only clock."""
    rec = tmp_path / "think.jsonl"
    cfg = ServerConfig(**FAST, games=1, tables=1, seed=5, record=str(rec), timeout=timeout,
                       ping_interval=0.05, bots={1: "greedy", 2: "greedy", 3: "greedy"},
                       game_factory=rigged(["tribute"]))
    thinker = Thinker("", 1, think=0.8)

    def clients(url):
        thinker.url = url + "thinker"
        # its own thread and loop: blocking it must not block the server
        return [asyncio.to_thread(lambda: asyncio.run(thinker.run()))]

    server, (t,) = run(serve_and_play(cfg, clients))
    assert server.stats["faults"] == 0 and server.stats["errors"] == 0
    assert t.result is not None and t.closed_ok and t.acts > 2
    headers, games = replay_all(rec)
    assert games[0].is_over and headers[0]["server"]["players"][0] == "thinker"


def test_platform_url_form_and_query_string_accepted(tmp_path):
    rec = tmp_path / "url.jsonl"
    cfg = ServerConfig(**FAST, games=1, tables=1, seed=2, record=str(rec),
                       bots={2: "greedy", 3: "greedy"}, game_factory=rigged(["tribute"]))
    server, (a, b) = run(serve_and_play(cfg, lambda url: [
        Client(url + "gd/alice", 1), Client(url + "bob?token=x&seat=any", 2)]))
    assert a.result is not None and b.result is not None
    headers, _ = replay_all(rec)
    assert headers[0]["server"]["players"][:2] == ["alice", "bob"]


def test_connection_after_the_last_table_is_turned_away_at_once(caplog):
    async def main():
        server = GameServer(ServerConfig(**FAST, tables=1, bots={1: "greedy", 2: "greedy",
                                                                 3: "greedy"}))
        await server.start()
        base = f"ws://127.0.0.1:{server.port}/game/"
        first = Client(base + "first", 1)
        task = asyncio.ensure_future(first.run())
        while server.stats["tables"] < 1:
            await asyncio.sleep(0.002)
        t0 = time.monotonic()
        async with connect(base + "late", ping_interval=None) as ws:
            with pytest.raises(ConnectionClosed):
                await ws.recv()
        waited = time.monotonic() - t0
        await task
        await server.wait()
        await server.stop()
        return server, ws, waited, first

    with caplog.at_level(logging.INFO, logger="guandan_fast.net.server"):
        server, ws, waited, first = run(main())
    assert first.result is not None
    assert ws.close_code == 1013 and "plays only 1 table(s)" in ws.close_reason
    assert waited < 1.0 and server.stats["turned_away"] == 1
    logged = [r.getMessage() for r in caplog.records]
    assert any("late turned away: server full" in m for m in logged)
    # the log names who closed each connection and why
    assert any("(first): connection closed: by the server (1000 'the table has ended')" in m
               for m in logged)


def test_the_log_names_who_closed_a_connection(caplog):
    cfg = ServerConfig(**FAST, games=1, tables=1, seed=6, bots={1: "greedy", 3: "greedy"},
                       game_factory=rigged(["tribute"]))
    with caplog.at_level(logging.INFO, logger="guandan_fast.net.server"):
        server, (q, a) = run(serve_and_play(
            cfg, lambda url: [Quitter(url + "q", 1, quit_at=3), Client(url + "a", 2)]))
    logged = [r.getMessage() for r in caplog.records]
    assert any("table 0 seat 0 (q): connection closed: by the client (1000)" in m
               for m in logged), logged
    assert any("table 0 seat 2 (a): connection closed: by the server" in m for m in logged)


def test_wrong_path_refused_and_lobby_leaver_not_seated():
    async def main():
        server = GameServer(ServerConfig(**FAST, tables=1, bots={2: "greedy", 3: "greedy"}))
        await server.start()
        base = f"ws://127.0.0.1:{server.port}"
        with pytest.raises(InvalidStatus) as exc:
            async with connect(base + "/other/x"):
                pass
        assert exc.value.response.status_code == 404
        async with connect(base + "/game/leaver"):
            pass                                     # leaves before the table fills
        await asyncio.sleep(0.1)
        a, b = Client(base + "/game/a", 1), Client(base + "/game/b", 2)
        ta = asyncio.ensure_future(a.run())
        await asyncio.sleep(0.1)
        tb = asyncio.ensure_future(b.run())
        await asyncio.gather(ta, tb)
        await server.wait()
        await server.stop()
        return server, a, b

    server, a, b = run(main())
    assert (a.seat, b.seat) == (0, 1) and a.result is not None
    assert server.stats["tables"] == 1 and server.stats["refused"] == 1


def test_handshake_pause_before_first_message():
    cfg = ServerConfig(port=0, games=1, tables=1, rules=Rules(), handshake_pause=0.3,
                       bots={1: "greedy", 2: "greedy", 3: "greedy"},
                       game_factory=rigged(["tribute"]))
    _, (c,) = run(serve_and_play(cfg, lambda url: [Client(url + "x", 1)]))
    assert c.first_message_delay >= 0.29 and c.result is not None


def test_draw_after_resets(tmp_path):
    """A reset at the declarer's own A ends the game as a draw when draw_after=1: every
    game of the table is either won at A (1st and 2nd) or drawn at its first reset."""
    rec = tmp_path / "draw.jsonl"
    rules = Rules(ace_rule="double_only", ace_fail_reset=1, count_disclosure="always")

    def factory(table, game, seed, rules):
        return Game.setup(deal(seed), levels=(14, 14), declarer=0, leader=0, seed=seed,
                          rules=rules)

    cfg = ServerConfig(port=0, handshake_pause=0.01, rules=rules, games=6, tables=1, seed=1,
                       record=str(rec), draw_after=1, bots={1: "greedy", 3: "greedy"},
                       game_factory=factory)
    _, (a, b) = run(serve_and_play(cfg, lambda url: [Client(url + "a", 1), Client(url + "b", 2)]))
    res = a.result
    headers, games = replay_all(rec)
    ends = [h["server"]["end"] for h in headers]
    assert "draw" in ends and len(ends) == 6
    assert res["draws"] == [ends.count("draw")] * 4
    assert sum(res["victoryNum"]) == 2 * ends.count("win")
    for end, g in zip(ends, games):
        last = g.results[-1]
        if end == "draw":
            d = last["declarer"]
            assert not g.is_over and last["level"] == 14 and last["levels"][d] == 2
        else:
            assert g.is_over


# -----------------------------------------------------------------------------------------
# Load

def test_many_tables_concurrently(tmp_path):
    rec = tmp_path / "load.jsonl"
    tables = 6
    cfg = ServerConfig(**FAST, games=1, tables=tables, seed=3, record=str(rec),
                       game_factory=rigged(["tribute", "anti"]))
    t0 = time.perf_counter()
    server, clients = run(serve_and_play(
        cfg, lambda url: [Client(url + f"c{i}", seed=i) for i in range(4 * tables)]))
    assert server.stats["games"] == tables and server.stats["errors"] == 0
    assert all(c.result is not None and c.closed_ok for c in clients)
    _, games = replay_all(rec)
    assert len(games) == tables and all(g.is_over for g in games)
    assert time.perf_counter() - t0 < LIMIT


def test_config_errors():
    with pytest.raises(ValueError, match="on_fault"):
        ServerConfig(on_fault="retry")
    with pytest.raises(ValueError, match="unknown agent"):
        ServerConfig(bots={1: "smart"})
    with pytest.raises(ValueError, match="a seat is 0..3"):
        ServerConfig(bots={4: "greedy"})
    with pytest.raises(ValueError, match="timeout"):
        ServerConfig(timeout=0)
    with pytest.raises(ValueError, match="games"):
        ServerConfig(games=0)
    with pytest.raises(ValueError, match="port must be at most 65535, got 70000"):
        ServerConfig(port=70000)


def test_import_does_not_load_websockets():
    code = ("import sys, guandan_fast, guandan_fast.net.server, guandan_fast.net.client; "
            "print('websockets' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr


# -----------------------------------------------------------------------------------------
# The command line: serve and connect, SIGTERM

def _start_cli_server(*extra, started=None):
    proc = subprocess.Popen(
        [sys.executable, "-m", "guandan_fast", "serve", "--port", "0", "--quiet",
         "--handshake-pause", "0.01", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if started is not None:
        started.append(proc)
    line = proc.stdout.readline()
    assert line.startswith("listening on ws://127.0.0.1:"), (line, proc.stderr.read())
    return proc, int(line.split(":")[2].split("/")[0])


@pytest.fixture
def cli_server():
    """``_start_cli_server`` for a test that stops the server itself: any server process
    still running when the test ends, passed or failed, is killed (none is left behind)."""
    started = []
    yield lambda *extra: _start_cli_server(*extra, started=started)
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_cli_connect_plays_at_cli_server():
    proc, port = _start_cli_server("--tables", "1", "--bots", "1,3=random", "--rules",
                                   "default", "--seed", "2")
    try:
        clients = [subprocess.Popen(
            [sys.executable, "-m", "guandan_fast", "connect",
             f"ws://127.0.0.1:{port}/game/c{i}", "--agent", "greedy"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(2)]
        outs = [c.communicate(timeout=120) for c in clients]
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        for c in clients:
            c.kill()
    for c, (o, e) in zip(clients, outs):
        assert c.returncode == 0, e
        assert "1 game(s)" in o and "victoryNum [" in o
    assert proc.returncode == 0 and "1 table(s), 1 game(s)" in out, err


def test_cli_connect_to_no_server_says_so_in_one_line():
    import socket

    with socket.socket() as sock:          # a port nothing listens on (bound, never listening)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        p = subprocess.run([sys.executable, "-m", "guandan_fast", "connect",
                            f"ws://127.0.0.1:{port}/game/c0", "--agent", "greedy"],
                           capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert p.stderr.strip() == (f"guandan-fast: error: cannot reach ws://127.0.0.1:{port}/game/c0: "
                                f"Connection refused")


def test_sigterm_stops_cleanly_with_a_valid_record(tmp_path, cli_server):
    import signal

    rec = tmp_path / "term.jsonl"
    proc, port = cli_server("--bots", "1,2,3=greedy", "--record", str(rec))

    async def stall():
        async with connect(f"ws://127.0.0.1:{port}/game/staller", ping_interval=None) as ws:
            async for data in ws:
                if json.loads(data)["type"] == "act":
                    proc.send_signal(signal.SIGTERM)   # asked to act: stop the server now
            return ws.close_code

    code = run(stall())
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "stopped" in out, err
    assert code is not None
    game = Game.from_record(str(rec))        # the unfinished match replays
    assert not game.is_over and json.loads(open(rec).readline())["server"]["end"] == "interrupted"


def test_ctrl_c_says_how_far_it_got_and_exits_130(tmp_path, cli_server):
    import signal

    rec = tmp_path / "int.jsonl"
    proc, port = cli_server("--bots", "1,2,3=greedy", "--record", str(rec))

    async def stall():
        async with connect(f"ws://127.0.0.1:{port}/game/staller", ping_interval=None) as ws:
            async for data in ws:
                if json.loads(data)["type"] == "act":
                    proc.send_signal(signal.SIGINT)    # Ctrl-C while a client thinks
            return ws.close_code

    assert run(stall()) == 1001                       # going away: the server stops
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert out.splitlines()[-1].startswith(
        "interrupted (Ctrl-C): 1 table(s), 0 game(s) finished, 0 refused message(s), 0 fault(s)")
    assert "Traceback" not in err
    game = Game.from_record(str(rec))        # the cut game's record is whole and replays
    assert not game.is_over and json.loads(open(rec).readline())["server"]["end"] == "interrupted"


def test_a_failing_table_does_not_stop_the_others(tmp_path, caplog):
    """A table whose game cannot even start (here: the factory raises in table 0's second
    game) ends alone, logged; the table beside it plays to the end."""
    rec = tmp_path / "err.jsonl"
    good = rigged(["tribute"])

    def factory(table, game, seed, rules):
        if table == 0 and game == 1:
            raise RuntimeError("boom")
        return good(table, game, seed, rules)

    cfg = ServerConfig(**FAST, games=2, tables=2, seed=7, record=str(rec),
                       bots={1: "greedy", 2: "greedy", 3: "greedy"}, game_factory=factory)
    with caplog.at_level(logging.ERROR, logger="guandan_fast.net.server"):
        server, (a, b) = run(serve_and_play(cfg, lambda url: [Client(url + "a", 1),
                                                               Client(url + "b", 2)]))
    assert server.stats["errors"] == 1 and server.stats["games"] == 3
    assert len(a.game_overs) == 1 and a.result is None     # table 0: cut after its first game
    assert len(b.game_overs) == 2 and b.result is not None
    assert any("boom" in (r.exc_text or "") for r in caplog.records)
    headers, games = replay_all(rec)
    assert sorted((h["server"]["table"], h["server"]["game"]) for h in headers) == [
        (0, 0), (1, 0), (1, 1)]
    assert all(g.is_over for g in games)


@pytest.mark.parametrize("broken, reason", [
    ({"type": "notify", "stage": "beginning", "handCards": ["S2"], "myPos": 4}, "myPos"),
    ({"type": "notify", "stage": "beginning", "handCards": ["X9"], "myPos": 0}, "handCards"),
    ({"type": "notify", "stage": "gameOver", "curTimes": 1, "settingTimes": 1, "x": 0},
     "unexpected"),
    ({"type": "notify", "stage": "dealing"}, "unknown"),
    ({"type": "notify", "stage": "play", "curPos": 0, "curAction": PASS, "greaterPos": 1,
      "greaterAction": PASS}, "PASS"),
    ({"type": "notify", "stage": "anti-tribute", "antiNums": 2, "antiPos": [1]}, "antiNums"),
])
def test_protocol_check_rejects_broken_messages(broken, reason):
    from guandan_fast.net.protocol import check_message

    with pytest.raises(ValueError, match=reason):
        check_message(broken)


def test_protocol_check_accepts_what_the_server_sends():
    """Every message of a table, as the test client received it, passes check_message."""
    from guandan_fast.net.protocol import check_message

    class Recorder(Client):
        def check(self, msg):
            super().check(msg)
            check_message(msg)

    cfg = ServerConfig(**FAST, games=1, tables=1, seed=12, bots={1: "random", 3: "greedy"},
                       game_factory=rigged(["anti"]))
    _, (a, b) = run(serve_and_play(cfg, lambda url: [Recorder(url + "a", 1),
                                                      Recorder(url + "b", 2)]))
    assert a.result is not None and ("notify", "anti-tribute") in a.stages


def test_our_greedy_client_plays_as_the_greedy_bot(tmp_path):
    """guandan-fast connect's greedy, deciding from the act messages alone, makes the moves
    the greedy bot makes on the Game: a whole platform match replays move for move."""
    rec = tmp_path / "same.jsonl"
    cfg = ServerConfig(port=0, handshake_pause=0.01, rules=Rules.platform(), games=1,
                       tables=1, seed=21, record=str(rec),
                       bots={1: "greedy", 2: "greedy", 3: "greedy"})
    _, (res,) = run(serve_and_play(cfg, lambda url: [play(url + "ours", "greedy")]))
    assert res.problems == [] and res.games == 1
    header = json.loads(open(rec).readline())
    g = Game(header["seed"], Rules.from_dict(header["rules"]))
    while not g.is_over:
        g.play(bot_move(g, "greedy"))
    assert g == Game.from_record(str(rec))


def test_client_url_errors():
    with pytest.raises(ValueError, match="url must be ws://"):
        asyncio.run(play("http://127.0.0.1:1/game/x"))
    with pytest.raises(ValueError, match="unknown agent"):
        asyncio.run(play("ws://127.0.0.1:1/game/x", agent="smart"))

    async def wrong_path():
        server = GameServer(ServerConfig(**FAST, tables=1))
        await server.start()
        try:
            with pytest.raises(ConnectionError, match="HTTP 404"):
                await play(f"ws://127.0.0.1:{server.port}/nogame")
        finally:
            await server.stop()

    run(wrong_path())


def test_same_seed_same_records(tmp_path):
    """Two runs of a seeded table with the same (seeded) clients write identical records."""
    def once(path):
        cfg = ServerConfig(**FAST, games=2, tables=1, seed=31, record=str(path),
                           bots={1: "random", 2: "greedy", 3: "random_compact"},
                           game_factory=rigged(["double", "anti1"]))
        run(serve_and_play(cfg, lambda url: [Client(url + "a", 5)]))
        return path.read_text()

    first, second = once(tmp_path / "1.jsonl"), once(tmp_path / "2.jsonl")
    assert first == second and first.count('"format"') == 2


class Flooder(Client):
    """Answers its first act with a 2 MiB frame (over the server's 1 MiB limit)."""

    async def answer(self, ws, msg):
        await ws.send(json.dumps({"actIndex": 0, "pad": "x" * (2 << 20)}))


def test_oversized_frame_closes_that_connection_only(tmp_path):
    rec = tmp_path / "big.jsonl"
    cfg = ServerConfig(**FAST, games=1, tables=2, seed=13, record=str(rec),
                       bots={1: "greedy", 2: "greedy", 3: "greedy"},
                       game_factory=rigged(["tribute"]))
    server, (f, ok) = run(serve_and_play(cfg, lambda url: [Flooder(url + "f", 1),
                                                            Client(url + "ok", 2)]))
    assert f.result is None and ok.result is not None
    assert server.stats["abandoned"] == 1 and server.stats["errors"] == 0
    headers, games = replay_all(rec)
    ends = {h["server"]["table"]: h["server"]["end"] for h in headers}
    assert ends == {0: "abandoned", 1: "win"}
    assert games[[h["server"]["table"] for h in headers].index(1)].is_over


def test_soak_with_faulty_clients_short(tmp_path):
    """bench/bench_soak.py in short: 4 tables of clients that send garbage, malformed JSON and
    binary frames, answer twice, stall and leave; every game is in the record and replays."""
    import pathlib

    rec = tmp_path / "soak.jsonl"
    script = pathlib.Path(__file__).resolve().parent.parent / "bench" / "bench_soak.py"
    out = subprocess.run([sys.executable, str(script), "--tables", "4", "--games", "1",
                          "--fault-rate", "0.01", "--seed", "3", "--record", str(rec),
                          "--client-procs", "2"],
                         capture_output=True, text=True, timeout=LIMIT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "record: 4 games" in out.stdout and "4 replay" in out.stdout, out.stdout
    refused = int(out.stdout.split(" refused message(s)")[0].rsplit(" ", 1)[1])
    assert refused > 0                      # the garbage was sent, refused, and survived
    headers, games = replay_all(rec)
    assert len(games) == 4
    assert all(g.is_over for g, h in zip(games, headers) if h["server"]["end"] == "win")


# -----------------------------------------------------------------------------------------
# People's tables (guandan-fast play): a platform bot beside a page, and a spectator

async def page_client(url: str, seen: list) -> None:
    """A page's connection (``?seat=S``): answers every question with its first action and
    keeps every message."""
    async with connect(url) as ws:
        async for data in ws:
            msg = json.loads(data)
            seen.append(msg)
            if msg.get("type") == "act":
                await ws.send(json.dumps({"actIndex": 0}))


async def spectator(url: str, seen: list) -> None:
    async with connect(url) as ws:
        async for data in ws:
            seen.append(json.loads(data))


def test_platform_bot_page_and_spectator_at_one_people_table(tmp_path):
    """`play --seat 0,2`: a platform client takes one person's seat and a page the other; the
    platform client sees the plain protocol (checked message by message), the page the
    additions, and a spectator never a hand while it is played but every deal after it."""
    from guandan_fast.web.play import play_config

    cfg = play_config(seat=(0, 2), agents="greedy", seed=5, rules=Rules.platform(),
                      record=str(tmp_path / "r.jsonl"))
    page_seen, watch_seen = [], []

    async def main():
        server = GameServer(cfg)
        await server.start()
        base = f"ws://127.0.0.1:{server.port}"
        try:
            watcher = asyncio.ensure_future(spectator(base + "/watch/w1", watch_seen))
            page = asyncio.ensure_future(page_client(base + "/game/web-1?seat=2", page_seen))
            while server.stats["connections"] < 2:
                await asyncio.sleep(0.005)
            bot = await play(base + "/game/platformbot", "greedy", 1)
            await asyncio.wait_for(server.wait(), 30)
            await asyncio.wait_for(asyncio.gather(page, watcher), 30)
            return bot
        finally:
            await server.stop()

    bot = run(main())
    assert bot.problems == [] and bot.seat == 0 and bot.games == 1 and bot.hands > 1
    kinds = Counter(m["type"] for m in page_seen)
    assert kinds["handOver"] == bot.hands and kinds["state"] > bot.hands
    assert all(m["myPos"] == 2 for m in page_seen if m["type"] == "state")
    # the spectator: no deal while a hand is played, no hand in its states, every deal after
    assert not [m for m in watch_seen if m.get("stage") == "beginning"]
    states = [m for m in watch_seen if m["type"] == "state"]
    assert states and all(m.get("handCards", []) == [] and m["myPos"] == -1 for m in states)
    overs = [m for m in watch_seen if m["type"] == "handOver"]
    assert len(overs) == bot.hands
    headers, games = replay_all(tmp_path / "r.jsonl")
    hands = [json.loads(ln) for ln in open(tmp_path / "r.jsonl").read().splitlines()[1:]]
    assert [o["deal"] for o in overs] == [h["deal"] for h in hands]
    assert [o["hand"] for o in overs] == list(range(1, bot.hands + 1))
    assert headers[0]["server"]["players"] == ["platformbot", "bot:greedy", "web-1", "bot:greedy"]


def test_a_link_to_a_seat_that_is_no_persons_is_refused_with_the_reason():
    from guandan_fast.web.play import play_config

    cfg = play_config(seat=(0, 2), agents="greedy", rules=Rules.platform())

    async def main():
        server = GameServer(cfg)
        await server.start()
        base = f"ws://127.0.0.1:{server.port}/game/"
        try:
            closes = []
            for path in ("a?seat=1", "b?seat=x"):
                async with connect(base + path) as ws:
                    with pytest.raises(ConnectionClosed):
                        await ws.recv()
                    closes.append((ws.close_code, ws.close_reason))
            # two pages for one seat before the table starts: the second is refused
            first = await connect(base + "c?seat=2")
            while not server._lobby:
                await asyncio.sleep(0.005)
            async with connect(base + "d?seat=2") as ws:
                with pytest.raises(ConnectionClosed):
                    await ws.recv()
                closes.append((ws.close_code, ws.close_reason))
            lobby = server.tables_info()
            await first.close()
            return closes, lobby
        finally:
            await server.stop()

    closes, lobby = run(main())
    assert closes[0] == (4001, "seat 1 is not a seat for people at this table (those are 0, 2)")
    assert closes[1][0] == 4001 and "seat x is not a seat" in closes[1][1]
    assert closes[2] == (4001, "seat 2 is taken: another page is playing it")
    (table,) = lobby
    assert not table["started"]
    assert [s["who"] for s in table["seats"]] == ["free", "bot:greedy", "person", "bot:greedy"]


def test_serve_watch_spectators_and_lobby_beside_four_platform_clients(tmp_path):
    """`serve --watch`: four platform clients play a game (their protocol unchanged, checked
    message by message) while a spectator watches; the page and the lobby are served on the
    same port."""
    import urllib.request

    from guandan_fast.web.play import http_handler, watch_config

    cfg = ServerConfig(port=0, tables=1, games=1, seed=3, handshake_pause=0.01,
                       rules=Rules.platform(), watch=True)
    watch_seen, pages = [], {}

    async def main():
        server = GameServer(cfg)
        cfg.http = http_handler(lambda: watch_config(cfg), server.tables_info, join=False)
        await server.start()
        base = f"127.0.0.1:{server.port}"
        loop = asyncio.get_running_loop()
        try:
            for path in ("/", "/lobby"):
                pages[path] = await loop.run_in_executor(None, lambda p=path: urllib.request.urlopen(
                    f"http://{base}{p}", timeout=10).read().decode())
            watcher = asyncio.ensure_future(spectator(f"ws://{base}/watch/w?table=0", watch_seen))
            clients = [asyncio.ensure_future(play(f"ws://{base}/game/c{k}", "greedy", k))
                       for k in range(4)]
            results = await asyncio.gather(*clients)
            await asyncio.wait_for(server.wait(), 30)
            await asyncio.wait_for(watcher, 30)
            return results
        finally:
            await server.stop()

    results = run(main())
    assert all(r.problems == [] and r.games == 1 for r in results)
    assert '"watchOnly":true' in pages["/"]
    assert pages["/lobby"].count("free (a platform client takes it)") == 4
    assert "take this seat" not in pages["/lobby"]
    assert not [m for m in watch_seen if m.get("stage") == "beginning" or m["type"] == "act"]
    states = [m for m in watch_seen if m["type"] == "state" and "handCards" in m]
    assert states and all(m["handCards"] == [] for m in states)
    assert len([m for m in watch_seen if m["type"] == "handOver"]) == results[0].hands
    assert {"type": "notify", "stage": "gameResult", "victoryNum": results[0].victory_num,
            "draws": results[0].draws} in watch_seen

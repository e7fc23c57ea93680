"""Every agent at a platform table (``connect``): the seat's view of the table (net/view.py)
rebuilt from the messages, agents that need more than an act message deciding on it, and a
failing Python agent named. Over loopback only."""

from __future__ import annotations

import asyncio
import json

import pytest

from guandan_fast import Game, Rules
from guandan_fast.agents import AgentError
from guandan_fast.net.agents import bot_move, choose_index
from guandan_fast.net.client import play
from guandan_fast.net.server import GameServer, ServerConfig
from guandan_fast.net.view import SeatView

LIMIT = 300

AGENTS_MODULE = '''
def broken_late(observation, legal_moves):
    if len(observation["plays"]) >= 6:
        raise KeyError("the agent's own bug")
    return legal_moves[0]

def last_move(observation, legal_moves):
    return legal_moves[-1]
'''


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "table_agents.py").write_text(AGENTS_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "table_agents"


async def one_client(cfg: ServerConfig, agent, seed: int = 0):
    """Our server with bots in three seats and one ``connect`` client in the fourth."""
    server = GameServer(cfg)
    await server.start()
    try:
        res = await play(f"ws://127.0.0.1:{server.port}/game/c", agent, seed=seed)
        await asyncio.wait_for(server.wait(), 30)
    finally:
        await server.stop()
    return res


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, LIMIT))


def platform_cfg(rec, seed, bot="expert"):
    return ServerConfig(port=0, handshake_pause=0.01, rules=Rules.platform(), games=1,
                        tables=1, seed=seed, record=str(rec),
                        bots={1: bot, 2: bot, 3: bot})


@pytest.mark.parametrize("agent, bots", [("expert", "expert"), ("saver", "bomber"),
                                         ("solo", "shedder")])
def test_the_expert_client_plays_as_the_expert_bot(tmp_path, agent, bots):
    """The expert (or one of its styles, docs/expert.md "The gauntlet") at a platform table,
    deciding on the game its view rebuilds from the messages, makes the moves it makes on the
    server's own game (which it reads only through the union of the hidden hands and the
    counts): a whole platform match replays move for move."""
    rec = tmp_path / "expert.jsonl"
    res = run(one_client(platform_cfg(rec, seed=21, bot=bots), agent))
    assert res.problems == [] and res.games == 1 and res.messages["act/play"] > 20
    header = json.loads(open(rec).readline())
    g = Game(header["seed"], Rules.from_dict(header["rules"]))
    while not g.is_over:
        g.play(bot_move(g, agent if g.current_player == 0 else bots))
    assert g == Game.from_record(str(rec))


@pytest.mark.parametrize("agent", ["pimc:samples=2:rollout=expert", "ismcts:iterations=20",
                                   "table_agents:last_move"])
def test_search_and_python_agents_play_a_whole_platform_match(tmp_path, agent, user_module):
    rec = tmp_path / "m.jsonl"
    res = run(one_client(platform_cfg(rec, seed=5, bot="greedy"), agent))
    assert res.problems == [] and res.games == 1 and res.messages["act/play"] > 20
    assert Game.from_record(str(rec)).is_over


def test_a_failing_python_agent_at_a_table_is_named(tmp_path, user_module):
    rec = tmp_path / "f.jsonl"
    with pytest.raises(AgentError, match=r"connect, decision \d+ of the connection \(hand 1\): "
                                         r"at a platform table .*'table_agents:broken_late' "
                                         r"at seat 0") as info:
        run(one_client(platform_cfg(rec, seed=5, bot="greedy"), "table_agents:broken_late"))
    assert isinstance(info.value.__cause__, KeyError)


def test_the_view_rebuilds_what_the_seat_knows():
    """A hand of a real game told to seat 2 as the platform tells it: the view's game has the
    seat's hand, every count, the trick and the legal moves of the real game; the other seats'
    cards are the unseen ones (their union is right, not who holds what)."""
    from collections import Counter

    from guandan_fast.cards import level_char

    g = Game(seed=8, rules=Rules.platform())
    while g.phase != "play":
        g.play(g.legal_moves()[0])
    v = SeatView()
    v.observe({"type": "notify", "stage": "beginning", "myPos": 2,
               "handCards": list(g.hand(2))})
    checked = 0
    while g.hand_number == 0 and checked < 25:
        p = g.current_player
        if p == 2:
            top = g.observation(2)["top"]
            act = {"type": "act", "stage": "play", "handCards": list(g.hand(2)),
                   "curRank": level_char(g.level), "selfRank": level_char(g.levels[0]),
                   "oppoRank": level_char(g.levels[1]), "curPos": -1, "curAction": None,
                   "greaterPos": -1 if top is None else top[0],
                   "greaterAction": None if top is None else top[1].to_platform(),
                   "publicInfo": [{"rest": len(g.hand(q)), "playArea": None} for q in range(4)],
                   "actionList": [m.to_platform() for m in g.legal_moves()]}
            w = v.game(act)
            assert w.current_player == 2 and w.hand(2) == g.hand(2)
            assert [len(w.hand(q)) for q in range(4)] == [len(g.hand(q)) for q in range(4)]
            assert (sum((Counter(w.hand(q)) for q in (0, 1, 3)), Counter())
                    == sum((Counter(g.hand(q)) for q in (0, 1, 3)), Counter()))
            assert list(w.legal_moves()) == list(g.legal_moves())
            assert w.observation(2)["top"] == g.observation(2)["top"]
            i = choose_index("expert", act, 2, view=v)
            assert act["actionList"][i] == bot_move(g, "expert").to_platform()
            checked += 1
        m = g.legal_moves()[-1] if p != 2 else bot_move(g, "expert")
        v.observe({"type": "notify", "stage": "play", "curPos": p,
                   "curAction": m.to_platform(), "greaterPos": -1, "greaterAction": None})
        g.play(m)
    assert checked >= 5


def test_the_view_refuses_messages_that_do_not_fit():
    v = SeatView()
    act = {"type": "act", "stage": "play", "handCards": ["S3"], "curRank": "2",
           "selfRank": "2", "oppoRank": "2", "publicInfo": [{"rest": 27, "playArea": None}] * 4,
           "actionList": []}
    with pytest.raises(ValueError, match="no beginning message"):
        v.game(act)
    v.observe({"type": "notify", "stage": "beginning", "myPos": 0, "handCards": ["S3"] * 2})
    with pytest.raises(ValueError, match="handCards holds 1 cards, publicInfo says 27"):
        v.game(act)
    with pytest.raises(ValueError, match="play decisions, not 'tribute'"):
        v.game(dict(act, stage="tribute"))
    with pytest.raises(ValueError, match="plays on the seat's view"):
        choose_index("expert", dict(act, actionList=[["Single", "3", ["S3"]]] * 2), 0)

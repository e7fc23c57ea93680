"""The learned agent (``dmc:PATH``, plain ``dmc``): its weights file, what it sees (the trainer's
actors' view), playing with numpy alone, and playing in every command that takes an agent.
Weights here are small random networks (``QNet.initial``); no PyTorch is needed."""

import asyncio
import json
import subprocess
import sys

import numpy as np
import pytest

import guandan_fast as gf
from guandan_fast.actions import canonical_move, canonical_moves
from guandan_fast.agents import parse_agent, parse_agents
from guandan_fast.learn import agent as dmc_agent
from guandan_fast.learn.qnet import FORMAT, QNet, WeightsError, load
from guandan_fast.observe import danzero_actions, danzero_state
from guandan_fast.vecenv import VecEnv


@pytest.fixture
def weights(tmp_path):
    path = tmp_path / "w.npz"
    QNet.initial((24, 12), seed=5).save(path)
    return str(path)


def test_the_file_round_trips_and_plays_legal_moves(weights):
    net = load(weights)
    assert net == QNet.initial((24, 12), seed=5) and net.hidden == (24, 12)
    a = parse_agent(f"dmc:{weights}")
    assert (a.kind, a.compiled, a.name) == ("dmc", False, f"dmc:{weights}")
    g = gf.Game(seed=4)
    for _ in range(200):
        if g.is_over:
            break
        m = a.move(g)
        assert m in g.legal_moves()
        g.play(m)


def bad_file(tmp_path, name, **changes):
    arrays = {"format": np.array(FORMAT), "version": np.array(1),
              "sizes": np.array([513, 54, 501]), **QNet.initial((4,), seed=0).arrays()}
    arrays.update(changes)
    for k in [k for k, v in changes.items() if v is None]:
        del arrays[k]
    path = tmp_path / name
    np.savez(path, **arrays)
    return str(path)


def test_bad_or_mismatched_files_get_one_clear_line(tmp_path):
    (tmp_path / "text.npz").write_text("not weights")
    cases = [
        (str(tmp_path / "missing.npz"), "no such file"),
        (str(tmp_path / "text.npz"), "not a DMC weights file (not a numpy .npz archive)"),
        (bad_file(tmp_path, "a.npz", format=np.array("other")), "no 'guandan-fast-dmc' tag"),
        (bad_file(tmp_path, "b.npz", version=np.array(9)), "version 9, this package reads "
                                                           "version 1"),
        (bad_file(tmp_path, "c.npz", sizes=np.array([536, 54, 501])), "made for state/action/id "
                                                                      "sizes [536, 54, 501]"),
        (bad_file(tmp_path, "d.npz", w_cards=np.zeros((54, 5), np.float32)), "do not chain"),
        (bad_file(tmp_path, "e.npz", w_id=None), "lacks 'w_id'"),
    ]
    for path, message in cases:
        with pytest.raises(WeightsError, match=None) as ei:
            load(path)
        assert message in str(ei.value) and "\n" not in str(ei.value), (path, ei.value)
        with pytest.raises(ValueError, match=f"agent 'dmc:{path}': "):
            parse_agent(f"dmc:{path}")


def test_plain_dmc_is_the_shipped_file_and_refused_when_there_is_none(tmp_path, monkeypatch,
                                                                      weights):
    monkeypatch.setattr(dmc_agent, "shipped_path", lambda: str(tmp_path / "none.npz"))
    with pytest.raises(ValueError, match="agent 'dmc': this package ships no trained 'dmc' "
                                         "weights; train some"):
        parse_agent("dmc")
    monkeypatch.setattr(dmc_agent, "shipped_path", lambda: weights)
    assert parse_agent("dmc").func == load(weights)


def test_the_agent_sees_what_the_trainers_actors_saw():
    """A Game replaying a VecEnv table's choices gives the actors' state row and candidate
    list at every decision: the agent plays the network on the inputs it was trained on."""
    env = VecEnv(2, seed=11, encoder="danzero", action_mode="candidates")
    b = env.reset()
    games = [gf.Game(seed=env.match_seed(e)) for e in range(2)]
    rng = np.random.default_rng(0)
    hands = 0
    for _ in range(400):
        pick = (rng.random(2) * np.diff(b.cand_offsets)).astype(np.int64)
        for e, g in enumerate(games):
            lo, hi = b.cand_offsets[e], b.cand_offsets[e + 1]
            ids, words = canonical_moves(g)
            assert g.current_player == b.seat[e]
            assert np.array_equal(danzero_state(g, g.current_player), b.obs[e])
            assert ids.tolist() == b.cand_ids[lo:hi].tolist()
            assert np.array_equal(danzero_actions(words), b.cand_cards[lo:hi])
            g.play(canonical_move(g, int(ids[pick[e]])))
        env.step(pick)
        b = env.pending()
        hands += len(env.drain_results()["env_id"])
    assert hands >= 2                   # through hands' ends, tributes and returns too


def test_it_plays_with_numpy_alone(weights):
    """Importing torch is blocked: the agent still loads, decides and plays a tournament."""
    code = f"""
import sys
sys.modules["torch"] = None          # any `import torch` now raises ImportError
import guandan_fast as gf
from guandan_fast.agents import parse_agent
a = parse_agent("dmc:{weights}")
g = gf.Game(seed=1)
for _ in range(40):
    g.play(a.move(g))
res = gf.tournament(["dmc:{weights}", "greedy"], deals=1, seed=0, workers=1)
print(res.pairs[0].matches, sys.modules["torch"])
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["2", "None"]


def test_it_plays_a_tournament_and_the_same_matches_every_time(weights):
    a = gf.tournament([f"dmc:{weights}", "greedy"], deals=2, seed=3, workers=1)
    b = gf.tournament([f"dmc:{weights}", "greedy"], deals=2, seed=3, workers=2)
    assert a.pairs[0].matches == 4 and a.pairs[0]._rows.tolist() == b.pairs[0]._rows.tolist()


@pytest.mark.cli
def test_the_commands_take_it_and_refuse_a_bad_file_with_status_2(weights, tmp_path):
    def cli(*args):
        return subprocess.run([sys.executable, "-m", "guandan_fast", *args],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)
    r = cli("tournament", "--agents", f"dmc:{weights},random", "--deals", "1", "--no-progress")
    assert r.returncode == 0 and f"dmc:{weights}" in r.stdout, r.stderr
    (tmp_path / "junk.npz").write_text("junk")
    for args in (["tournament", "--agents", "dmc:junk.npz,greedy", "--deals", "1"],
                 ["connect", "ws://127.0.0.1:9/game/x", "--agent", "dmc:junk.npz"],
                 ["serve", "--bots", "1,2,3=dmc:junk.npz", "--games", "1"],
                 ["play", "--agents", "dmc:junk.npz", "--no-browser"]):
        r = cli(*args)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, (args, r.stderr)
        assert "dmc:junk.npz" in r.stderr and "not a DMC weights file" in r.stderr, args


def test_it_plays_at_a_platform_table_as_on_the_servers_own_game(weights, tmp_path):
    """A dmc client at our server (three dmc bots beside it), deciding on the game its view
    rebuilds from the messages, makes the plays the agent makes on the server's own game: the
    recorded match replays move for move (serve and connect)."""
    from guandan_fast.net.agents import bot_move
    from guandan_fast.net.client import play
    from guandan_fast.net.server import GameServer, ServerConfig

    spec = f"dmc:{weights}"
    rec = tmp_path / "m.jsonl"
    cfg = ServerConfig(port=0, handshake_pause=0.01, rules=gf.Rules.platform(), games=1,
                       tables=1, seed=8, record=str(rec), bots={1: spec, 2: spec, 3: spec})

    async def one_client():
        server = GameServer(cfg)
        await server.start()
        try:
            res = await play(f"ws://127.0.0.1:{server.port}/game/c", spec)
            await asyncio.wait_for(server.wait(), 60)
        finally:
            await server.stop()
        return res

    res = asyncio.run(asyncio.wait_for(one_client(), 300))
    assert res.problems == [] and res.games == 1
    header = json.loads(open(rec).readline())
    g = gf.Game(header["seed"], gf.Rules.from_dict(header["rules"]))
    while not g.is_over:
        # at a platform table the client's exchange (tribute, return) is greedy's, as for
        # every agent that decides on the view (net/agents.py)
        client_exchange = g.current_player == 0 and g.phase != "play"
        g.play(bot_move(g, "greedy" if client_exchange else spec))
    assert g == gf.Game.from_record(str(rec))


def test_play_and_the_gymnasium_env_seat_it_and_vecenv_names_what_it_takes(weights):
    from guandan_fast.envs.gymnasium import GuandanEnv
    from guandan_fast.web.play import play_config

    cfg = play_config(seat=0, agents=f"dmc:{weights}")
    assert {cfg.bots[s].kind for s in (1, 2, 3)} == {"dmc"}
    env = GuandanEnv(seat=0, opponents=(None, f"dmc:{weights}", "greedy", f"dmc:{weights}"))
    obs, info = env.reset(seed=1)
    for _ in range(20):
        obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].argmax()))
    assert len(env.game.history) > 20 or env.game.hand_number > 0   # the other seats played
    with pytest.raises(ValueError, match=r"cannot play in VecEnv \(opponents\), which takes "
                                         r"random, random_compact, greedy, expert"):
        VecEnv(2, seed=0, learners=(0,), opponents=f"dmc:{weights}")
    with pytest.raises(ValueError, match="cannot play in simulate"):
        parse_agents([f"dmc:{weights}"], where="compiled", place="simulate")


def test_as_vecenv_opponents_it_plays_as_a_learner_seat_would(weights):
    """DMCOpponentsEnv: the caller at seats 0 and 2 (always its first candidate), the network
    at seats 1 and 3, equals a VecEnv with four learner seats stepped by hand the same way;
    in abstract mode the mask is the candidates' ids and an id steps as its index does."""
    from guandan_fast.learn.opponents import DMCOpponentsEnv

    net = load(weights)
    wrapped = DMCOpponentsEnv(6, seed=9, learners=(0, 2), opponents=f"dmc:{weights}")
    ids_mode = DMCOpponentsEnv(6, seed=9, learners=(0, 2), opponents=f"dmc:{weights}",
                               action_mode="abstract")
    plain = VecEnv(6, seed=9, encoder="danzero", action_mode="candidates")
    b, c, p = wrapped.reset(), ids_mode.reset(), plain.reset()
    got, want = [], []
    for _ in range(300):
        assert set(b.seat.tolist()) <= {0, 2} and len(b.env_id) >= 1
        assert np.array_equal(b.env_id, c.env_id) and np.array_equal(b.obs, c.obs)
        for i in range(len(c.env_id)):
            lo, hi = b.cand_offsets[i], b.cand_offsets[i + 1]
            assert np.flatnonzero(c.mask[i]).tolist() == b.cand_ids[lo:hi].tolist()
        b = wrapped.step(np.zeros(len(b.env_id), np.int64))
        c = ids_mode.step(c.cand_ids[c.cand_offsets[:-1]].astype(np.int64))
        got.append(wrapped.drain_results()["reward"])
        assert np.array_equal(ids_mode.drain_results()["reward"], got[-1])
    while sum(len(r) for r in want) < sum(len(r) for r in got):
        pick = net.choose(p.obs, p.cand_cards, p.cand_ids, p.cand_offsets)
        pick[np.isin(p.seat, (0, 2))] = 0
        plain.step(pick)
        p = plain.pending()
        want.append(plain.drain_results()["reward"])
    hands = sum(len(r) for r in got)
    assert hands >= 4
    assert np.array_equal(np.concatenate(got), np.concatenate(want)[:hands])
    with pytest.raises(ValueError, match="cannot play in DMCOpponentsEnv"):
        DMCOpponentsEnv(2, seed=0, opponents="pimc")
    with pytest.raises(gf.IllegalMoveError, match="is not legal at table"):
        ids_mode.step(np.array([np.flatnonzero(~m)[0] for m in c.mask], np.int64))


def test_the_shipped_agent_is_the_shipped_runs_network_and_plays_in_the_package():
    from guandan_fast.learn.config import TrainConfig

    net = load(dmc_agent.shipped_path())
    assert net.hidden == TrainConfig.shipped().hidden
    g = gf.Game(seed=4)
    for _ in range(60):                     # the first hand's decisions, tribute included
        m = parse_agent("dmc").move(g)
        assert m in g.legal_moves()
        g.play(m)
    # It learned to play: it wins every match of a small duplicate run against the uniform
    # random agent, as greedy and the expert do.
    res = gf.tournament(["dmc", "random"], deals=4, workers=1, seed=3)
    assert res.pairs[0].matches == 8 and res.pairs[0].wins_a == 8

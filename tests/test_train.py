"""The DMC trainer (guandan_fast.learn, the `train` extra): the learner's step, the Monte-Carlo
targets, the export to numpy, exact resumption, the actors' placement, the command. Small
networks and short rounds: seconds each."""

import json
import subprocess
import sys

import numpy as np
import pytest
import torch

from guandan_fast.learn.config import TrainConfig
from guandan_fast.learn.model import QModel
from guandan_fast.learn.qnet import QNet, load, segment_argmax
from guandan_fast.learn.selfplay import HandBook, RoundSettings, play_round
from guandan_fast.learn.trainer import Learner, Trainer, export, load_checkpoint
from guandan_fast.vecenv import VecEnv

TINY = dict(hidden=(16, 8), num_envs=4, steps=25, batch_size=64, eval_every=0,
            checkpoint_every=1)


@pytest.fixture(autouse=True)
def one_thread():
    was = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(was)


def decisions(n_envs=8, steps=12, seed=3):
    """A real batch of decisions: VecEnv's DanZero states and candidate lists after a few
    random steps."""
    env = VecEnv(n_envs, seed=seed, encoder="danzero", action_mode="candidates")
    b = env.reset()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        env.step((rng.random(n_envs) * np.diff(b.cand_offsets)).astype(np.int64))
        b = env.pending()
    return (b.obs.copy(), b.cand_cards.copy(), b.cand_ids.copy(), b.cand_offsets.copy())


def test_a_training_step_lowers_the_loss_on_a_fixed_batch():
    learner = Learner(TrainConfig(hidden=(32, 32), lr=1e-3))
    state, cards, ids, offsets = decisions()
    pick = offsets[:-1]                                    # each decision's first candidate
    rng = np.random.default_rng(0)
    batch = {"state": state, "cards": cards[pick], "ids": ids[pick],
             "target": rng.choice([-3., -2., -1., 1., 2., 3.], len(pick)).astype(np.float32)}
    losses = [learner.step(batch) for _ in range(60)]      # each: the loss before its step
    assert losses[1] < losses[0]                           # one step lowers it
    assert losses[-1] < 0.5 * losses[0]


def test_targets_are_each_seats_reward_at_the_end_of_its_hand():
    book = HandBook(3)
    # table 0: a hand of four decisions (seats 0 1 2 3); table 2: two decisions, then a new
    # hand's first decision after its end; table 1 never ends.
    book.add([0, 2, 1], [0, 1, 2], [0, 2, 1])
    book.add([0, 2, 1], [3, 4, 5], [1, 3, 2])
    book.end({"env_id": np.array([2]), "reward": np.array([[-1., 1., -1., 1.]], np.float32)})
    rows, targets = book.targets()
    assert rows.tolist() == [1, 4] and targets.tolist() == [-1., 1.]   # seats 2 and 3
    book.add([0, 2], [6, 7], [2, 0])
    book.add([0], [8], [3])
    assert (book.open(0), book.open(1), book.open(2)) == (4, 2, 1)
    book.end({"env_id": np.array([0, 2]),
              "reward": np.array([[3., -3., 3., -3.], [2., -2., 2., -2.]], np.float32)})
    rows, targets = book.targets()
    assert rows.tolist() == [0, 1, 3, 4, 6, 7, 8]
    assert targets.tolist() == [3., -1., -3., 1., 3., 2., -3.]
    assert (book.open(0), book.open(1), book.open(2)) == (0, 2, 0)
    # a table's second hand: its decisions get the second hand's reward, not the first's
    book.add([2], [9], [1])
    book.end({"env_id": np.array([2]), "reward": np.array([[-3., 3., -3., 3.]], np.float32)})
    rows, targets = book.targets()
    assert rows.tolist()[-1] == 9 and targets.tolist()[-1] == 3.0
    assert HandBook(2).targets()[0].size == 0


def test_a_round_keeps_whole_hands_and_each_team_gets_one_sign():
    out = play_round(QNet.initial((8,), seed=1), RoundSettings(num_envs=3, steps=40),
                     seed=7, round_index=0, actor=0)
    n = len(out["target"])
    assert n >= 40 * 3 and out["decisions"] >= n and out["hands"] >= 3
    assert out["cards"].shape == (n, 54) and out["ids"].shape == (n,)
    assert set(np.abs(out["target"]).tolist()) <= {1.0, 2.0, 3.0}
    # every kept decision is a legal candidate's cards (a card count of 0..2 per kind)
    assert out["cards"].max() <= 2 and (out["ids"] >= 0).all() and (out["ids"] < 501).all()
    # the same round again: the same samples
    again = play_round(QNet.initial((8,), seed=1), RoundSettings(num_envs=3, steps=40),
                       seed=7, round_index=0, actor=0)
    for k in ("state", "cards", "ids", "target"):
        assert np.array_equal(out[k], again[k])


def test_export_load_plays_the_torch_models_actions(tmp_path):
    cfg = TrainConfig(**{**TINY, "rounds": 1})
    t = Trainer(cfg, tmp_path / "run", progress=None)
    t.run()
    net = export(tmp_path / "run" / "checkpoint.pt", tmp_path / "x.npz")
    assert load(tmp_path / "x.npz") == net == load(tmp_path / "run" / "dmc.npz")
    state, cards, ids, offsets = decisions()
    counts = np.diff(offsets)
    with torch.no_grad():
        q_torch = t.learner.model(torch.from_numpy(np.repeat(state, counts, axis=0)),
                                  torch.from_numpy(cards.astype(np.float32)),
                                  torch.from_numpy(ids.astype(np.int64))).numpy()
    q_numpy = net.q(state, cards, ids, offsets)
    assert np.allclose(q_numpy, q_torch, atol=1e-5)
    assert segment_argmax(q_torch, offsets).tolist() == net.choose(state, cards, ids,
                                                                   offsets).tolist()
    assert QModel.from_qnet(net).to_qnet() == net


def weights_and_history(run_dir):
    state = load_checkpoint(run_dir / "checkpoint.pt")
    timeless = [{k: v for k, v in h.items() if not k.endswith("seconds")}
                for h in state["history"]]
    return state, timeless


def same_state(a, b):
    assert a["round"] == b["round"] and a["frames"] == b["frames"]
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k
    sa, sb = a["optimizer"]["state"], b["optimizer"]["state"]
    for k in sa:
        for name in sa[k]:
            assert torch.equal(sa[k][name], sb[k][name]), (k, name)


def test_resume_continues_bit_exactly(tmp_path):
    cfg = TrainConfig(**{**TINY, "rounds": 3, "eval_every": 2, "eval_deals": 2,
                         "eval_opponents": ("random",)})
    Trainer(cfg, tmp_path / "a", progress=None).run()
    Trainer(cfg, tmp_path / "b", progress=None).run(rounds=1)
    Trainer(None, tmp_path / "b", resume=True, progress=None).run()
    (a, ha), (b, hb) = weights_and_history(tmp_path / "a"), weights_and_history(tmp_path / "b")
    same_state(a, b)
    assert ha == hb and [h["kind"] for h in ha] == ["eval", "round", "round", "eval", "round"]
    assert (tmp_path / "b" / "log.jsonl").read_text().count("\n") == len(hb)
    assert load(tmp_path / "a" / "dmc.npz") == load(tmp_path / "b" / "dmc.npz")
    assert "<svg" in (tmp_path / "b" / "curve.svg").read_text()


def test_ctrl_c_saves_the_last_round_and_resume_matches_an_unbroken_run(tmp_path):
    cfg = TrainConfig(**{**TINY, "rounds": 3, "checkpoint_every": 10})
    Trainer(cfg, tmp_path / "a", progress=None).run()
    lines = []

    def interrupt_in_round_two(line):
        lines.append(line)
        if line.startswith("round 2/"):
            raise KeyboardInterrupt       # as Ctrl-C does, in the middle of the run
    with pytest.raises(KeyboardInterrupt):
        Trainer(cfg, tmp_path / "b", progress=interrupt_in_round_two).run()
    assert lines[-1].startswith("stopped: 2 rounds")      # the rounds shown are saved
    assert load_checkpoint(tmp_path / "b" / "checkpoint.pt")["round"] == 2
    Trainer(cfg, tmp_path / "b", resume=True, progress=None).run()
    same_state(weights_and_history(tmp_path / "a")[0], weights_and_history(tmp_path / "b")[0])


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_actors_anywhere_train_the_same_weights(tmp_path, mode):
    cfg = TrainConfig(**{**TINY, "rounds": 1, "actors": 2})
    Trainer(cfg, tmp_path / "local", progress=None).run()
    other = TrainConfig(**{**TINY, "rounds": 1, "actors": 2, "actor_mode": mode})
    Trainer(other, tmp_path / mode, progress=None).run()
    a = load_checkpoint(tmp_path / "local" / "checkpoint.pt")
    b = load_checkpoint(tmp_path / mode / "checkpoint.pt")
    assert a["frames"] == b["frames"] > 0
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k])


@pytest.mark.ray
@pytest.mark.xdist_group("ray")     # on the Ray tests' connection
def test_ray_actors_train_the_same_weights(tmp_path, ray_connection):
    cfg = TrainConfig(**{**TINY, "rounds": 1, "actors": 2})
    Trainer(cfg, tmp_path / "local", progress=None).run()
    Trainer(TrainConfig(**{**TINY, "rounds": 1, "actors": 2, "actor_mode": "ray"}),
            tmp_path / "ray", progress=None).run()
    a = load_checkpoint(tmp_path / "local" / "checkpoint.pt")
    b = load_checkpoint(tmp_path / "ray" / "checkpoint.pt")
    assert a["frames"] == b["frames"] > 0
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k])


def test_a_new_run_refuses_a_used_directory_and_resume_refuses_other_settings(tmp_path):
    cfg = TrainConfig(**{**TINY, "rounds": 1})
    Trainer(cfg, tmp_path, progress=None).run()
    with pytest.raises(ValueError, match="already holds a run"):
        Trainer(cfg, tmp_path, progress=None)
    with pytest.raises(ValueError, match="other settings"):
        Trainer(TrainConfig(**{**TINY, "lr": 0.5}), tmp_path, resume=True, progress=None)
    with pytest.raises(ValueError, match="no such checkpoint"):
        Trainer(None, tmp_path / "elsewhere", resume=True, progress=None)
    (tmp_path / "junk.pt").write_text("junk")
    with pytest.raises(ValueError, match="not a training checkpoint"):
        export(tmp_path / "junk.pt", tmp_path / "x.npz")


def run_cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "guandan_fast", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.cli
def test_the_train_command_trains_resumes_and_refuses_bad_configs(tmp_path):
    (tmp_path / "cfg.json").write_text(json.dumps({**TINY, "hidden": [16], "rounds": 2,
                                                   "eval_every": 2, "eval_deals": 2}))
    r = run_cli("train", "cfg.json", "--out", "run", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "training in run on cpu: 0 of 2 rounds done"
    assert lines[1].startswith("eval after 0 frames: greedy ")
    assert lines[2].startswith("round 1/2  frames ") and "decisions/s" in lines[2]
    assert "learner" in lines[2] and "loss" in lines[2]
    assert lines[-1] == "done: 2 rounds, " + lines[-1].split(", ", 1)[1]
    assert "dmc:run/dmc.npz" in lines[-1]
    r = run_cli("train", "--out", "run", "--resume", "--rounds", "3", cwd=tmp_path)
    assert r.returncode == 0 and "2 of 3 rounds done" in r.stdout and "round 3/3" in r.stdout
    for text, message in (('{"hidden": [0]}', "hidden must be a list of positive widths"),
                          ('{"lr": 1, "nope": 2}', "unknown training setting 'nope'"),
                          ('[1, 2', "not JSON")):
        (tmp_path / "bad.json").write_text(text)
        r = run_cli("train", "bad.json", "--out", "run2", cwd=tmp_path)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and message in r.stderr
        assert not (tmp_path / "run2").exists()


@pytest.mark.cli
@pytest.mark.parametrize("sig, status", [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_real_ctrl_c_saves_says_how_far_and_exits_130(tmp_path, sig, status):
    import signal
    import time

    (tmp_path / "cfg.json").write_text(json.dumps({**TINY, "hidden": [16], "rounds": 10**6,
                                                   "checkpoint_every": 10**6}))
    p = subprocess.Popen([sys.executable, "-m", "guandan_fast", "train", "cfg.json", "--out",
                          "run"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        for line in p.stdout:
            if line.startswith("round 3/"):
                break
        p.send_signal(getattr(signal, sig))   # Ctrl-C, or a job scheduler's stop
        t0 = time.monotonic()
        for last in p.stdout:
            if last.startswith("stopped: "):
                break
        # stopped, saved and said so within a second (and some slack on a busy machine)
        assert time.monotonic() - t0 < 3
        out, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == status, err
    assert out == ""
    assert last.startswith("stopped: ") and "(continue with --resume)" in last
    rounds = int(last.split()[1])
    assert rounds >= 3 and load_checkpoint(tmp_path / "run" / "checkpoint.pt")["round"] == rounds
    assert load(tmp_path / "run" / "dmc.npz").hidden == (16,)


# --- Teacher rounds (learn/teacher.py): learning the expert's ranking before self-play ---

TEACHER = dict(TINY, teacher="expert", teacher_rounds=2, teacher_decisions=150)


def test_the_teacher_data_are_its_moves_states_and_hand_rewards():
    from guandan_fast import Game
    from guandan_fast.actions import action_id, canonical_moves
    from guandan_fast.expert import choose
    from guandan_fast.learn.selfplay import round_seed
    from guandan_fast.learn.teacher import collect
    from guandan_fast.observe import danzero_state

    d = collect("expert", 120, seed=5)
    g = Game(seed=round_seed(5, 0))          # the first match the collector played
    k, seen = 0, []
    while k < len(d["label"]):
        p, move = g.current_player, choose(g, style="expert")
        ids, _ = canonical_moves(g)
        if len(ids) > 1:
            lo, hi = d["offsets"][k], d["offsets"][k + 1]
            assert np.array_equal(d["cand_ids"][lo:hi], ids)
            assert np.array_equal(d["state"][k], danzero_state(g, p))
            assert d["cand_ids"][lo + d["label"][k]] == action_id(move, g.level)
            seen.append((k, p, g.hand_number))
            k += 1
        g.play(move)
    for k, p, hand in seen:                  # the seat's team's reward for that hand
        order = g.results[hand]["finish_order"]
        up = g.rules.hand_levels(order)
        assert d["target"][k] == (up if p % 2 == order[0] % 2 else -up)


def test_learning_from_the_teacher_raises_agreement_on_decisions_it_trained_on():
    from guandan_fast.learn.teacher import collect

    learner = Learner(TrainConfig(hidden=(64, 64), batch_size=128, lr=2e-3))
    data = collect("expert", 1500, seed=2)
    runs = [learner.imitate(data, r, 0.1) for r in range(8)]   # (loss, agreement) per pass
    assert runs[-1][0] < runs[0][0] - 0.3
    assert runs[-1][1] > runs[0][1] + 0.15
    # Its agreement is the network's: the same measure on its exported numpy weights.
    net = learner.qnet()
    best = segment_argmax(net.q(data["state"], data["cand_cards"], data["cand_ids"],
                                data["offsets"]), data["offsets"])
    assert np.mean(best == data["label"]) > runs[0][1] + 0.15


def test_teacher_rounds_then_self_play_resume_bit_exactly(tmp_path):
    cfg = TrainConfig(**{**TEACHER, "rounds": 3})
    lines = []
    Trainer(cfg, tmp_path / "a", progress=lines.append).run()
    assert [("learning from expert" in line) for line in lines] == [True, True, False]
    Trainer(cfg, tmp_path / "b", progress=None).run(rounds=1)
    Trainer(None, tmp_path / "b", resume=True, progress=None).run()
    (a, ha), (b, hb) = weights_and_history(tmp_path / "a"), weights_and_history(tmp_path / "b")
    same_state(a, b)
    assert ha == hb and [h.get("teacher") for h in ha] == ["expert", "expert", None]
    assert 0 <= ha[0]["agreement"] <= 1 and ha[1]["frames"] - ha[0]["frames"] >= 150


def test_teacher_rounds_are_the_same_in_actor_processes(tmp_path):
    cfg = dict(TEACHER, rounds=1, actors=2)
    Trainer(TrainConfig(**cfg), tmp_path / "local", progress=None).run()
    Trainer(TrainConfig(**cfg, actor_mode="processes"), tmp_path / "procs", progress=None).run()
    same_state(weights_and_history(tmp_path / "local")[0],
               weights_and_history(tmp_path / "procs")[0])


@pytest.mark.parametrize("bad, message", [
    ({"teacher_rounds": 3}, "teacher_rounds needs a teacher"),
    ({"teacher": "pimc"}, "teacher must be one of greedy, expert"),
    ({"teacher": "expert", "teacher_rounds": -1}, "teacher_rounds must be 0 or more"),
    ({"teacher": "expert", "teacher_decisions": 0}, "teacher_decisions must be a positive"),
])
def test_bad_teacher_settings_are_refused_in_one_line(bad, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig.from_dict(bad)


def test_teacher_rounds_may_grow_on_resume_while_the_run_is_in_them(tmp_path):
    longer = TrainConfig(**{**TEACHER, "teacher_rounds": 3, "rounds": 3})
    Trainer(longer, tmp_path / "a", progress=None).run()
    Trainer(TrainConfig(**{**TEACHER, "rounds": 2}), tmp_path / "b", progress=None).run()
    Trainer(longer, tmp_path / "b", resume=True, progress=None).run()
    (a, ha), (b, hb) = weights_and_history(tmp_path / "a"), weights_and_history(tmp_path / "b")
    same_state(a, b)
    assert ha == hb and [h.get("teacher") for h in hb] == ["expert"] * 3
    # Past the teacher rounds the self-play rounds already played would change: refused.
    Trainer(TrainConfig(**{**TEACHER, "rounds": 3}), tmp_path / "c", progress=None).run()
    with pytest.raises(ValueError, match="teacher_rounds can change only while the run is in "
                                         "its teacher rounds"):
        Trainer(TrainConfig(**{**TEACHER, "teacher_rounds": 4, "rounds": 4}), tmp_path / "c",
                resume=True, progress=None)

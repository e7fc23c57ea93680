"""``simulate(..., cluster='ray')`` and ``tournament(..., cluster='ray')`` on a local Ray cluster (head node and workers on this
machine, loopback only): identical results to one process, records included; a worker killed
mid-task; Ctrl-C; progress; bad arguments; the CLI's ``--ray [ADDRESS]``.

One cluster (2 CPUs) for the whole session: Ray takes seconds to start.
"""

import os
import signal
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import ray

import guandan_fast as gf
from guandan_fast.cli import main
from guandan_fast.simulate_core import match_seed

pytestmark = [pytest.mark.ray, pytest.mark.xdist_group("ray")]  # one cluster per run

RANDOM = ("random",) * 4


def test_the_ray_group_runs_in_one_worker(request):
    # Under the README's test command (xdist, --dist loadgroup) the Ray tests share one worker,
    # so one cluster is started. pytest 9.2 ignores the group suffix pytest-xdist 3.8 gives
    # the test ids (each worker then ran some Ray tests and started its own cluster).
    if getattr(request.config.option, "loadgroup", False):
        assert request.node.nodeid.endswith("@ray")


def _wait_all_cpus_free(timeout=20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ray.available_resources().get("CPU", 0) == ray.cluster_resources()["CPU"]:
            return True
        time.sleep(0.1)
    return False


# -- identical to one process --------------------------------------------------------------------

@pytest.mark.parametrize("threads, task_matches", [(1, None), (1, 37), (2, 16)])
def test_matches_mode_equals_one_process(cluster, threads, task_matches):
    local = gf.simulate(matches=400, seed=21)
    res = gf.simulate(matches=400, seed=21, cluster="ray", threads=threads,
                      task_matches=task_matches)
    assert res == local
    assert res.matches == 400 and res.threads == threads


@pytest.mark.parametrize("task_matches", [None, 8, 50])
def test_hands_mode_equals_one_process(cluster, task_matches):
    local = gf.simulate(hands=1999, seed=8, agents=RANDOM)
    res = gf.simulate(hands=1999, seed=8, agents=RANDOM, cluster="ray",
                      task_matches=task_matches)
    assert res == local
    assert res.hands == 1999


def test_search_agents_travel_with_their_parameters(cluster):
    agents = "pimc:samples=2,random,greedy,random"
    local = gf.simulate(matches=4, seed=2, agents=agents)
    assert gf.simulate(matches=4, seed=2, agents=agents, cluster="ray", task_matches=1) == local


def test_records_are_byte_identical(cluster, tmp_path):
    for kwargs in (dict(matches=23), dict(hands=120)):
        a, b = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
        local = gf.simulate(seed=5, agents=RANDOM, record=a, **kwargs)
        res = gf.simulate(seed=5, agents=RANDOM, record=b, cluster="ray", task_matches=5,
                          **kwargs)
        assert res == local
        text = b.read_text()
        assert text == a.read_text()
        # One header line per match (a truncated one included).
        assert text.count('"format": "guandan-fast"') == local.matches + local.truncated


# -- faults ---------------------------------------------------------------------------------------

def test_a_worker_killed_mid_task_is_retried_exactly_once(cluster):
    local = gf.simulate(matches=300, seed=13)
    cluster.touch()  # the next run_chunk call on the cluster kills its worker process
    res = gf.simulate(matches=300, seed=13, cluster="ray", task_matches=32)
    assert not cluster.exists(), "no worker was killed"
    assert res == local


def _interrupt_after_first_progress():
    """A progress callback that sends this process SIGINT 0.2 s after its first call (the
    driver is then waiting on the cluster, with many tasks queued or running), and its calls."""
    calls = []

    def progress(done):
        if not calls:
            threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
        calls.append(done)

    return progress, calls


def test_ctrl_c_cancels_the_run(cluster):
    progress, calls = _interrupt_after_first_progress()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        gf.simulate(matches=200_000, seed=1, cluster="ray", task_matches=400, progress=progress)
    assert time.monotonic() - t0 < 30
    assert calls and calls[-1] < 200_000
    assert _wait_all_cpus_free(), "tasks of the interrupted run still hold CPUs"
    # The cluster is usable afterwards.
    assert gf.simulate(matches=20, seed=2, cluster="ray") == gf.simulate(matches=20, seed=2)


def test_hands_mode_stops_the_blocks_it_does_not_need(cluster):
    # Small blocks: many are queued or running when the block reaching the target is merged.
    # They stop themselves (no ray.cancel) and free their CPUs at once.
    res = gf.simulate(hands=3000, seed=4, agents=RANDOM, cluster="ray", task_matches=4)
    assert res == gf.simulate(hands=3000, seed=4, agents=RANDOM)
    assert _wait_all_cpus_free(timeout=5), "unneeded blocks still hold CPUs"


def test_ctrl_c_cancels_a_tournament(cluster):
    # Search agents: each task (4 deals, 8 matches) is many seconds of work. SIGINT a second
    # in, while the first tasks run: the run stops at once and its tasks stop inside their
    # matches (the compiled loop polls the stop byte every few moves), freeing the CPUs.
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    t0 = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            gf.tournament(["pimc:samples=64:rollout=expert", "greedy"], deals=400, seed=1,
                          cluster="ray")
    finally:
        timer.cancel()
    assert time.monotonic() - t0 < 10
    # (a task of 8 such matches runs for a minute: waiting for them would not free the CPUs
    # in time; the time allowed covers starting Ray workers on a busy machine)
    assert _wait_all_cpus_free(), "tasks of the interrupted tournament still hold CPUs"


def test_stop_watch_sets_the_byte_the_compiled_loops_poll(cluster):
    from guandan_fast.distributed import _RunStop, _Watch

    stopper, other = _RunStop(ray), _RunStop(ray)
    assert stopper.actor == other.actor and stopper.run != other.run  # one actor, two runs
    watch, watch_other = _Watch(ray, stopper.run), _Watch(ray, other.run)
    time.sleep(3 * _Watch.POLL)
    assert not watch.stopped
    stopper.set()
    deadline = time.monotonic() + 10
    while not watch.stopped and time.monotonic() < deadline:
        time.sleep(0.01)
    assert watch.stopped and watch.cancel[0] == 1
    time.sleep(3 * _Watch.POLL)
    assert not watch_other.stopped  # only the run that was stopped
    watch.close()
    watch_other.close()
    assert not _Watch(ray, None).stopped  # no run: never stops


# -- progress and arguments ----------------------------------------------------------------------

def test_progress_once_per_finished_task(cluster):
    seen = []
    gf.simulate(matches=130, seed=3, cluster="ray", task_matches=20, progress=seen.append)
    assert len(seen) == 7  # ceil(130 / 20) tasks
    assert seen == sorted(seen) and seen[-1] == 130
    hands = []
    gf.simulate(hands=500, seed=3, cluster="ray", task_matches=10, progress=hands.append)
    assert hands == sorted(hands) and hands[-1] == 500


@pytest.mark.parametrize("kwargs, exc, message", [
    (dict(cluster="dask"), ValueError, "cluster must be None or 'ray'"),
    (dict(address="127.0.0.1:6379"), ValueError, "address= needs cluster='ray'"),
    (dict(cluster="ray", address=6379), TypeError, "address must be a str"),
    (dict(task_matches=10), ValueError, "task_matches= needs cluster='ray'"),
    (dict(cluster="ray", task_matches=0), ValueError, "task_matches must be >= 1"),
])
def test_bad_arguments_need_no_cluster(kwargs, exc, message):
    with pytest.raises(exc, match=message):
        gf.simulate(matches=5, **kwargs)


def test_bad_arguments_against_the_cluster(cluster, tmp_path):
    path = tmp_path / "keep.jsonl"
    path.write_text("previous\n")
    with pytest.raises(ValueError, match="threads=3 per task, but the largest node"):
        gf.simulate(matches=5, cluster="ray", threads=3, record=path)
    assert path.read_text() == "previous\n"  # not truncated
    with pytest.raises(ValueError, match="already connected to Ray"):
        gf.simulate(matches=5, cluster="ray", address="auto")
    assert ray.is_initialized()


def test_ray_is_imported_only_when_used():
    code = ("import sys, guandan_fast, guandan_fast.distributed, guandan_fast.cli;"
            "guandan_fast.simulate(matches=2);"
            "print('ray' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


# -- command line ----------------------------------------------------------------------------------

def test_cli_ray_uses_the_current_connection(cluster, capsys):
    assert main(["simulate", "--matches", "40", "--seed", "6", "--threads", "1", "--ray",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1:] == gf.simulate(matches=40, seed=6).summary().splitlines()[1:]


def test_cli_ray_address_connects_to_that_cluster(cluster):
    # A separate process joins the test cluster at its address (a new driver, same cluster).
    address = ray.get_runtime_context().gcs_address
    with socket.socket() as sock:  # binding succeeds only to an address of this machine
        sock.bind((address.rsplit(":", 1)[0], 0))
    proc = subprocess.run(
        [sys.executable, "-m", "guandan_fast", "simulate", "--matches", "30", "--seed", "4",
         "--threads", "1", "--ray", address, "--no-progress"],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    expected = gf.simulate(matches=30, seed=4).summary().splitlines()[1:]
    assert proc.stdout.splitlines()[1:] == expected


# -- tournaments ------------------------------------------------------------------------------------

def test_tournament_equals_one_machine(cluster):
    agents = ["greedy", "random", "random_compact"]
    local = gf.tournament(agents, deals=60, seed=3)
    res = gf.tournament(agents, deals=60, seed=3, cluster="ray")
    assert res == local
    assert [p.matches for p in res.pairs] == [120, 120, 120]


def test_tournament_with_a_python_agent(cluster):
    # The agent is importable on the workers too (tests/ is on their PYTHONPATH).
    agents = ["greedy", "ray_helpers:first_legal"]
    assert (gf.tournament(agents, deals=3, seed=1, cluster="ray")
            == gf.tournament(agents, deals=3, seed=1))


def test_tournament_worker_killed_mid_task(cluster):
    local = gf.tournament(["greedy", "random"], deals=80, seed=9)
    cluster.touch()
    res = gf.tournament(["greedy", "random"], deals=80, seed=9, cluster="ray")
    assert not cluster.exists(), "no worker was killed"
    assert res == local


def test_tournament_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="cluster must be None or 'ray'"):
        gf.tournament(["greedy", "random"], deals=2, cluster="spark")
    with pytest.raises(ValueError, match="address= needs cluster='ray'"):
        gf.tournament(["greedy", "random"], deals=2, address="auto")
    with pytest.raises(ValueError, match="record= is not available with cluster='ray'"):
        gf.tournament(["greedy", "random"], deals=2, cluster="ray", record=tmp_path / "r.jsonl")
    assert not (tmp_path / "r.jsonl").exists()


def test_cli_tournament_ray(cluster, capsys):
    assert main(["tournament", "--agents", "greedy,random", "--deals", "20", "--seed", "5",
                 "--ray", "--no-progress"]) == 0
    out = capsys.readouterr().out
    expected = gf.tournament(["greedy", "random"], deals=20, seed=5).table()
    assert out.splitlines()[1:] == expected.splitlines()[1:]


# -- rollouts -----------------------------------------------------------------------------------------

from guandan_fast.distributed import (LinearPolicy, RolloutWorker, collect, hand_returns,  # noqa: E402
                                      rollout_actors)


class LowestLegal:
    """Always the lowest legal id (importable on the workers: this module is on their path)."""

    def __call__(self, obs, mask, rng):
        return mask.argmax(axis=1).astype(np.int32)


def _policy(seed=0):
    from guandan_fast.actions import N_ACTIONS
    from guandan_fast.observe import OBS_SIZE

    w = np.random.default_rng(seed).normal(size=(OBS_SIZE, N_ACTIONS)).astype(np.float32)
    return LinearPolicy(0.1 * w)


def test_rollout_arrays_are_legal_and_consistent():
    worker = RolloutWorker(_policy(), num_envs=4, seed=3)
    traj = worker.rollout(400)
    steps, n = traj["actions"].shape
    assert (steps, n) == (400, 4)
    assert traj["obs"].shape[:2] == (400, 4) and traj["obs"].dtype == np.float32
    assert traj["mask"].shape == (400, 4, 501)
    t, b = np.indices((steps, n))
    assert traj["mask"][t, b, traj["actions"]].all()          # every action was legal
    assert set(np.unique(traj["seat"])) <= {0, 1, 2, 3}
    over = traj["hand_over"]
    assert over.sum() >= 4                                       # hands ended (~130 steps each)
    r = traj["rewards"]
    assert (r[~over] == 0).all()
    ended = r[over]
    assert (ended.sum(axis=1) == 0).all()                        # +u for one team, -u the other
    assert set(np.abs(ended).ravel().tolist()) <= {1.0, 2.0, 3.0}
    assert (ended[:, 0] == ended[:, 2]).all() and (ended[:, 1] == ended[:, 3]).all()
    ret = hand_returns(traj)
    done = ~np.isnan(ret)
    assert done.any() and set(np.abs(ret[done]).tolist()) <= {1.0, 2.0, 3.0}


def test_learners_and_opponents_reach_the_env():
    traj = RolloutWorker(_policy(), 3, seed=1, learners=(0, 2), opponents="greedy").rollout(50)
    assert set(np.unique(traj["seat"])) <= {0, 2}


def test_actors_give_what_one_process_gives(cluster):
    actors = rollout_actors(2, _policy(), num_envs=4, seed=5)
    first, second = collect(actors, 60), collect(actors, 60)
    for k in range(2):
        local = RolloutWorker(_policy(), 4, seed=match_seed(5, k))
        for got in (first[k], second[k]):
            want = local.rollout(60)
            assert want.keys() == got.keys()
            for key in want:
                assert np.array_equal(want[key], got[key]), key
    assert not np.array_equal(first[0]["obs"], first[1]["obs"])  # actors play other deals
    for a in actors:
        ray.kill(a)


def test_set_policy_on_actors(cluster):
    actors = rollout_actors(2, _policy(), num_envs=2, seed=1)
    ref = ray.put(LowestLegal())
    ray.get([a.set_policy.remote(ref) for a in actors])
    for traj in collect(actors, 30):
        assert np.array_equal(traj["actions"], traj["mask"].argmax(axis=2))
    for a in actors:
        ray.kill(a)


def test_rollout_bad_input():
    with pytest.raises(TypeError, match="policy must be callable"):
        RolloutWorker("greedy", 2)
    with pytest.raises(ValueError, match="action_mode must be 'abstract'"):
        RolloutWorker(LowestLegal(), 2, action_mode="candidates")
    worker = RolloutWorker(LowestLegal(), 2, seed=4)
    with pytest.raises(ValueError, match="steps must be >= 1"):
        worker.rollout(0)
    worker.set_policy(lambda obs, mask, rng: np.zeros(3, np.int32))
    with pytest.raises(ValueError, match=r"policy must return 2 integer action ids"):
        worker.rollout(5)
    # Nothing advanced: with a good policy it goes on like a fresh worker.
    worker.set_policy(LowestLegal())
    fresh = RolloutWorker(LowestLegal(), 2, seed=4)
    assert np.array_equal(worker.rollout(20)["obs"], fresh.rollout(20)["obs"])
    with pytest.raises(ValueError, match="n must be >= 1"):
        rollout_actors(0, LowestLegal(), 2)
    with pytest.raises(TypeError, match="policy must be callable"):
        rollout_actors(1, None, 2)


def test_rollout_actors_need_a_connection():
    code = ("from guandan_fast.distributed import rollout_actors\n"
            "try:\n    rollout_actors(1, print, 2)\n"
            "except RuntimeError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "needs a Ray connection: call ray.init() first" in out


def test_a_run_after_reconnecting_equals_one_process(cluster):
    # A second connection in the same process (ray.shutdown() then ray.init()) runs as the
    # first: every new local cluster numbers its jobs from 1 again, so nothing of the first
    # connection (its stop actor) may be taken for the second's. Tasks last long enough
    # (two of 100 matches) to ask the stop actor.
    expected = gf.simulate(matches=200, seed=3)
    assert gf.simulate(matches=200, seed=3, cluster="ray", task_matches=100) == expected
    ray.shutdown()
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    # This connection stays: the README's example (after this file) runs on it, and the
    # `cluster` fixture replaces it if a test of this file runs after this one.
    assert gf.simulate(matches=200, seed=3, cluster="ray", task_matches=100) == expected

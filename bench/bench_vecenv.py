"""Benchmarks of the learning interface: ``VecEnv`` decisions per second, and the per-call
cost of ``observation_tensor``, ``legal_action_mask`` and ``action_id`` from Python and in
the compiled loop.

Run as a script (prints the tables recorded in bench/RESULTS.md)::

    .venv/bin/python bench/bench_vecenv.py [--envs 256] [--decisions 200000] [--repeats 5]

or under pytest-benchmark: ``.venv/bin/python -m pytest bench/bench_vecenv.py
--benchmark-enable --benchmark-only``.

A "decision" is one learner decision (every seat is a learner unless stated). The policy is
uniformly random over the legal actions, drawn in numpy from the batch's CSR lists (one
vectorised draw per step), so the figure includes the numpy work a learner would do.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import guandan_fast as gf
from guandan_fast import actions as A
from guandan_fast import observe as O


def random_actions(batch, rng, candidates=False):
    """One uniformly random legal action per table, drawn in numpy."""
    counts = np.diff(batch.cand_offsets)
    local = (rng.random(len(counts)) * counts).astype(np.int64)
    return local if candidates else batch.cand_ids[batch.cand_offsets[:-1] + local]


def decisions_per_second(envs=256, decisions=200_000, threads=1, encoder="default",
                         action_mode="abstract", learners=(0, 1, 2, 3)):
    env = gf.VecEnv(envs, seed=1, threads=threads, encoder=encoder, action_mode=action_mode,
                    learners=learners)
    batch = env.reset()
    rng = np.random.default_rng(0)
    cand = action_mode == "candidates"
    for _ in range(20):                                   # warm-up
        env.step(random_actions(batch, rng, cand))
        batch = env.pending()
    steps = max(1, decisions // envs)
    t = time.perf_counter()
    for _ in range(steps):
        env.step(random_actions(batch, rng, cand))
        batch = env.pending()
        env.drain_results()
    return steps * envs / (time.perf_counter() - t)


def sample_games(n=40, seed=0):
    """Game states along random matches (every 13th decision)."""
    rng = np.random.default_rng(seed)
    out = []
    g = gf.Game(seed=seed)
    while len(out) < n:
        if g.is_over:
            g = gf.Game(seed=int(rng.integers(1 << 62)))
        out.append(g.clone())
        for _ in range(13):
            if g.is_over:
                break
            g.play_index(int(rng.integers(g.num_legal())))
    return [x for x in out if not x.is_over]


def per_call(fn, reps):
    t = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t) / reps


def call_costs(reps=2000):
    """Median over sample states, microseconds per call."""
    games = sample_games()
    rows = {}
    out = np.empty(O.OBS_SIZE, dtype=np.float32)
    mask = np.empty(A.N_ACTIONS, dtype=bool)
    rows["observation_tensor, Python (out=)"] = [per_call(lambda: g.observation_tensor(out=out), reps) for g in games]
    rows["observation_tensor, compiled loop"] = [O.time_encode(g, g.current_player, "default", reps * 10) for g in games]
    rows["danzero_state, Python"] = [per_call(lambda: O.danzero_state(g), reps) for g in games]
    rows["danzero encoder, compiled loop"] = [O.time_encode(g, g.current_player, "danzero", reps * 10) for g in games]
    rows["legal_action_mask, Python (out=)"] = [per_call(lambda: g.legal_action_mask(out=mask), reps) for g in games]
    rows["legal actions + canonical moves, compiled loop"] = [A.time_legal_actions(g, reps * 10) for g in games]
    moves = [(g, list(g.legal_moves())) for g in games]
    rows["action_id(move, level), Python"] = [per_call(lambda: A.action_id(ms[0], g.level), reps) for g, ms in moves]
    rows["action id of move words, compiled loop (per move)"] = [A.time_action_of_moves(g.legal_moves_array(), g.level, 200) for g in games]
    return {k: statistics.median(v) * 1e6 for k, v in rows.items()}


# -- pytest-benchmark ----------------------------------------------------------------------------

def _env_step_bench(benchmark, **kw):
    env = gf.VecEnv(256, seed=1, **kw)
    state = {"b": env.reset(), "rng": np.random.default_rng(0)}
    cand = kw.get("action_mode") == "candidates"

    def step():
        env.step(random_actions(state["b"], state["rng"], cand))
        state["b"] = env.pending()
    benchmark(step)


def test_vecenv_step_256_default(benchmark):
    _env_step_bench(benchmark)


def test_vecenv_step_256_no_encoder(benchmark):
    _env_step_bench(benchmark, encoder=None)


def test_vecenv_step_256_danzero_candidates(benchmark):
    _env_step_bench(benchmark, encoder="danzero", action_mode="candidates")


def test_vecenv_step_256_two_threads(benchmark):
    _env_step_bench(benchmark, threads=2)


def test_observation_tensor(benchmark):
    g = sample_games(3)[-1]
    out = np.empty(O.OBS_SIZE, dtype=np.float32)
    benchmark(g.observation_tensor, None, out)


def test_legal_action_mask(benchmark):
    g = sample_games(3)[-1]
    out = np.empty(A.N_ACTIONS, dtype=bool)
    benchmark(g.legal_action_mask, out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--envs", type=int, default=256)
    ap.add_argument("--decisions", type=int, default=200_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    configs = [
        ("default encoder, abstract, 1 thread", dict(encoder="default")),
        ("encoder=None, abstract, 1 thread", dict(encoder=None)),
        ("danzero encoder, candidates, 1 thread", dict(encoder="danzero", action_mode="candidates")),
        ("info encoder, abstract, 1 thread", dict(encoder="info")),
        ("default encoder, abstract, 2 threads", dict(encoder="default", threads=2)),
        ("encoder=None, abstract, 2 threads", dict(encoder=None, threads=2)),
        ("default, learner seat 0 only, greedy bots, 1 thread", dict(learners=(0,))),
    ]
    print(f"VecEnv, {args.envs} tables, random legal choices drawn in numpy "
          f"(median of {args.repeats} runs of {args.decisions:,} decisions)")
    print("| configuration | decisions/s (median) | min | max |")
    print("|---|---|---|---|")
    for name, kw in configs:
        rates = [decisions_per_second(args.envs, args.decisions, **kw) for _ in range(args.repeats)]
        print(f"| {name} | {statistics.median(rates):,.0f} | {min(rates):,.0f} | {max(rates):,.0f} |")
    print()
    print("| per call (median over 40 states) | µs |")
    print("|---|---|")
    for k, v in call_costs().items():
        print(f"| {k} | {v:.4f} |")


if __name__ == "__main__":
    main()

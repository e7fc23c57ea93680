"""Benchmarks of the learning interface: ``VecEnv`` decisions per second, and the per-call
cost of ``observation_tensor``, ``legal_action_mask`` and ``action_id`` from Python and in
the compiled loop.

Run as a script (prints the tables recorded in bench/RESULTS.md)::

    .venv/bin/python bench/bench_vecenv.py [--envs 256] [--decisions 200000] [--repeats 5]
    .venv/bin/python bench/bench_vecenv.py --split [--repeats 5]   # where a step's time goes

or under pytest-benchmark: ``.venv/bin/python -m pytest bench/bench_vecenv.py
--benchmark-enable --benchmark-only``.

Wall-clock rates depend on the machine's load; the CPU-time column (decisions per second
of CPU time used by the process, all its threads) is what the work costs when the process
is not descheduled. A "decision" is one learner decision (every seat is a learner unless stated). The policy is
uniformly random over the legal actions, drawn in numpy from the batch's CSR lists (one
vectorised draw per step), so the figure includes the numpy work a learner would do.

Takes about 10 s with the defaults.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import guandan_fast as gf
from guandan_fast import actions as A
from guandan_fast import observe as O

from bench_learning_loop import random_actions


def decisions_per_second(envs=256, decisions=200_000, threads=1, encoder="default",
                         action_mode="abstract", learners=(0, 1, 2, 3), adapt_threads=True):
    env = gf.VecEnv(envs, seed=1, threads=threads, encoder=encoder, action_mode=action_mode,
                    learners=learners, adapt_threads=adapt_threads)
    batch = env.reset()
    rng = np.random.default_rng(0)
    cand = action_mode == "candidates"
    for _ in range(20):                                   # warm-up
        env.step(random_actions(batch, rng, cand))
        batch = env.pending()
    steps = max(1, decisions // envs)
    t = time.perf_counter()
    c = time.process_time()
    for _ in range(steps):
        env.step(random_actions(batch, rng, cand))
        batch = env.pending()
        env.drain_results()
    wall = time.perf_counter() - t
    cpu = time.process_time() - c
    return steps * envs / wall, steps * envs / cpu


def step_split(envs=256, threads=1, steps=600, encoder="default"):
    """Median µs per step of each call of the learning loop: the numpy draw, ``step`` (and
    within it, the compiled region where the tables are stepped over the threads),
    ``pending``, ``drain_results``. Medians of single calls shrug off the steps where the
    process was descheduled (a loaded machine), which whole-run rates do not."""
    env = gf.VecEnv(envs, seed=1, threads=threads, encoder=encoder)
    batch = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        env.step(random_actions(batch, rng))
        batch = env.pending()
        env.drain_results()
    parts = {"draw": [], "step": [], "region": [], "pending": [], "drain": []}
    clock = time.perf_counter
    for _ in range(steps):
        t0 = clock()
        a = random_actions(batch, rng)
        t1 = clock()
        env.step(a)
        t2 = clock()
        batch = env.pending()
        t3 = clock()
        env.drain_results()
        t4 = clock()
        parts["draw"].append(t1 - t0)
        parts["step"].append(t2 - t1)
        parts["region"].append(env._last_region_seconds)
        parts["pending"].append(t3 - t2)
        parts["drain"].append(t4 - t3)
    return {k: statistics.median(v) * 1e6 for k, v in parts.items()}


def print_split(envs, repeats):
    """1 and 2 threads alternated; the serial part is everything outside the region."""
    runs = {1: [], 2: []}
    for _ in range(repeats):
        for t in (1, 2):
            runs[t].append(step_split(envs, t))
    print(f"Split of one {envs}-table step, µs (median over steps, then over {repeats} runs)")
    print("| threads | numpy draw | step | of which the parallel region | pending | drain_results | whole loop |")
    print("|---|---|---|---|---|---|---|")
    med = {}
    for t in (1, 2):
        m = {k: statistics.median(r[k] for r in runs[t]) for k in runs[t][0]}
        m["loop"] = m["draw"] + m["step"] + m["pending"] + m["drain"]
        med[t] = m
        print(f"| {t} | {m['draw']:.1f} | {m['step']:.1f} | {m['region']:.1f} | {m['pending']:.1f} "
              f"| {m['drain']:.1f} | {m['loop']:.1f} |")
    one, two = med[1], med[2]
    serial = one["loop"] - one["region"]
    f = serial / one["loop"]
    print(f"\nserial part (1 thread, outside the region): {serial:.1f} µs = {100 * f:.1f} % of the "
          f"loop; Amdahl bound for 2 threads {1 / (f + (1 - f) / 2):.2f}x; region "
          f"{one['region']:.1f} -> {two['region']:.1f} µs ({one['region'] / two['region']:.2f}x); "
          f"whole loop {one['loop'] / two['loop']:.2f}x")


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


def busy_sweep(envs, decisions, repeats):
    """1 thread against 2 (adapting, the default, and fixed) with k = 0, 1, 2 busy loops of
    our own beside it: alternated runs, medians of the wall rates."""
    import subprocess

    print(f"VecEnv({envs}), default encoder, {decisions:,} decisions a run, {repeats} "
          f"alternated rounds; wall decisions/s (medians)")
    print("| busy processes | load at start | 1 thread | 2 threads (adapting) | ratio "
          "| 2 threads (adapt_threads=False) | ratio |")
    print("|---|---|---|---|---|---|---|")
    for k in (0, 1, 2):
        busy = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(k)]
        try:
            time.sleep(0.5)
            load = os.getloadavg()[0]
            runs = {"1": [], "2a": [], "2f": []}
            for _ in range(repeats):
                runs["1"].append(decisions_per_second(envs, decisions, threads=1)[0])
                runs["2a"].append(decisions_per_second(envs, decisions, threads=2)[0])
                runs["2f"].append(decisions_per_second(envs, decisions, threads=2,
                                                       adapt_threads=False)[0])
        finally:
            for b in busy:
                b.kill()
                b.wait()
        m = {key: statistics.median(v) for key, v in runs.items()}
        print(f"| {k} | {load:.1f} | {m['1']:,.0f} | {m['2a']:,.0f} | {m['2a'] / m['1']:.2f}x "
              f"| {m['2f']:,.0f} | {m['2f'] / m['1']:.2f}x |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--envs", type=int, default=256)
    ap.add_argument("--decisions", type=int, default=200_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--steps-only", type=int, default=0, metavar="N",
                    help="just make N steps of VecEnv(ENVS, seed=1) (for callgrind: run with "
                         "two N and divide the difference by the extra decisions)")
    ap.add_argument("--encoder", default="default", help="with --steps-only: default, info, "
                    "danzero or none")
    ap.add_argument("--drain", action="store_true", help="with --steps-only: call "
                    "drain_results() after each step too")
    ap.add_argument("--split", action="store_true", help="only the split of a step's time "
                    "(1 and 2 threads)")
    ap.add_argument("--busy-sweep", action="store_true", help="only 1 vs 2 threads with 0, 1 "
                    "and 2 extra busy processes (`yes > /dev/null`) started by the script")
    args = ap.parse_args()
    if args.busy_sweep:
        busy_sweep(args.envs, args.decisions, args.repeats)
        return
    if args.steps_only:
        enc = None if args.encoder == "none" else args.encoder
        env = gf.VecEnv(args.envs, seed=1, encoder=enc)
        batch = env.reset()
        rng = np.random.default_rng(0)
        for _ in range(args.steps_only):
            env.step(random_actions(batch, rng))
            batch = env.pending()
            if args.drain:
                env.drain_results()
        return
    print("load average at the start: %.2f %.2f %.2f" % os.getloadavg())
    if args.split:
        print_split(args.envs, args.repeats)
        print("load average at the end: %.2f %.2f %.2f" % os.getloadavg())
        return
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
    print("| configuration | decisions/s, wall (median) | min | max | per CPU-second of the process (median) |")
    print("|---|---|---|---|---|")
    for name, kw in configs:
        runs = [decisions_per_second(args.envs, args.decisions, **kw) for _ in range(args.repeats)]
        rates = [r[0] for r in runs]
        cpu = statistics.median(r[1] for r in runs)
        print(f"| {name} | {statistics.median(rates):,.0f} | {min(rates):,.0f} | "
              f"{max(rates):,.0f} | {cpu:,.0f} |")
    one, two = [], []
    for _ in range(args.repeats):       # alternate, so both see the same load
        one.append(decisions_per_second(args.envs, args.decisions, threads=1))
        two.append(decisions_per_second(args.envs, args.decisions, threads=2))
    m1, m2 = statistics.median(r[0] for r in one), statistics.median(r[0] for r in two)
    c1, c2 = statistics.median(r[1] for r in one), statistics.median(r[1] for r in two)
    best = max(b[0] / a[0] for a, b in zip(one, two))
    print(f"\n1 vs 2 threads, default encoder, alternated: {m1:,.0f} -> {m2:,.0f} decisions/s "
          f"(medians), ratio {m2 / m1:.2f}x (best pair {best:.2f}x); per CPU-second "
          f"{c1:,.0f} -> {c2:,.0f}")
    print("load average after the pairs: %.2f %.2f %.2f" % os.getloadavg())
    print()
    print_split(args.envs, args.repeats)
    print()
    print("| per call (median over 40 states) | µs |")
    print("|---|---|")
    for k, v in call_costs().items():
        print(f"| {k} | {v:.4f} |")


if __name__ == "__main__":
    main()

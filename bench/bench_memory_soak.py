"""Memory soak: resident memory (VmRSS) of this process over many VecEnv decisions and many
simulated hands. Flat after warm-up means nothing leaks per decision or per hand.

    .venv/bin/python bench/bench_memory_soak.py --decisions 100000000 --hands 10000000
    .venv/bin/python bench/bench_memory_soak.py --decisions 2000000 --hands 200000   # quick

Prints RSS after warm-up (the first 5 % of the work) and at ten points along the way, with
the growth since warm-up, the rate and the time left.

Takes about 15 s for the quick sizes; the defaults about half an hour of CPU.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import guandan_fast as gf


def rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def left(elapsed: float, done: int, total: int) -> str:
    """The time left at the rate so far, e.g. '12.5 min'."""
    return f"{elapsed * (total - done) / done / 60:.1f} min" if done else "?"


def vecenv_soak(decisions: int, envs: int) -> None:
    env = gf.VecEnv(envs, seed=1)
    batch = env.reset()
    rng = np.random.default_rng(0)
    steps = max(1, decisions // envs)
    marks = {max(1, steps // 20): "warm-up"} | {steps * k // 10: f"{10 * k} %" for k in range(1, 11)}
    base = None
    t0 = time.perf_counter()
    print(f"VecEnv({envs}), default encoder, {steps * envs:,} decisions")
    for s in range(1, steps + 1):
        counts = np.diff(batch.cand_offsets)
        local = (rng.random(len(counts)) * counts).astype(np.int64)
        env.step(batch.cand_ids[batch.cand_offsets[:-1] + local])
        batch = env.pending()
        env.drain_results()
        if s in marks:
            r = rss_mib()
            base = r if base is None else base
            el = time.perf_counter() - t0
            print(f"  {marks[s]:>8}: {s * envs:>13,} decisions, RSS {r:7.1f} MiB "
                  f"(+{r - base:.1f}), {s * envs / el:,.0f} decisions/s, "
                  f"{left(el, s, steps)} left", flush=True)


def simulate_soak(hands: int, chunk: int) -> None:
    print(f"simulate, greedy/random bots, {hands:,} hands in runs of {chunk:,}")
    done, seed, base = 0, 0, None
    t0 = time.perf_counter()
    next_mark = max(chunk, hands // 20)
    while done < hands:
        res = gf.simulate(hands=min(chunk, hands - done), seed=seed)
        done += res.hands
        seed += 1
        if done >= next_mark or done >= hands:
            r = rss_mib()
            base = r if base is None else base
            el = time.perf_counter() - t0
            print(f"  {done:>12,} hands, RSS {r:7.1f} MiB (+{r - base:.1f}), "
                  f"{done / el:,.0f} hands/s, {left(el, done, hands)} left", flush=True)
            next_mark += max(chunk, hands // 10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decisions", type=int, default=100_000_000)
    ap.add_argument("--envs", type=int, default=256)
    ap.add_argument("--hands", type=int, default=10_000_000)
    ap.add_argument("--chunk", type=int, default=100_000, help="hands per simulate() call")
    args = ap.parse_args()
    if args.decisions:
        vecenv_soak(args.decisions, args.envs)
    if args.hands:
        simulate_soak(args.hands, args.chunk)


if __name__ == "__main__":
    main()

"""Where a CPU training run's time goes (docs/training.md, "Costs"): the actors' side (engine,
encoder, network), the learner's side, a teacher round's two sides, and the exported agent's
cost per decision.

    .venv/bin/python bench/train_speed.py [--hidden 256,256] [--reps 5] [--widths]

It takes about two minutes with the defaults (a few minutes with ``--widths``).

Everything on one thread (BLAS and PyTorch limited to 1). Each figure is the median of
``--reps`` repetitions; the encoder's share is measured as a ratio of two ``VecEnv`` loops
(DanZero's encoder against none) run in alternation, so a busy machine slows both alike.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def actor_rounds(net, reps):
    from guandan_fast.learn.selfplay import RoundSettings, play_round

    rows = []
    for r in range(reps):
        out = play_round(net, RoundSettings(num_envs=64, steps=400), seed=1, round_index=r,
                         actor=0)
        d, s = out["decisions"], out["seconds"]
        rows.append((d / s, out["engine_seconds"] / s, out["network_seconds"] / s,
                     len(out["target"]), out))
    return rows


def encoder_ratio(reps, steps=300, tables=64):
    """Seconds of a VecEnv step loop with DanZero's encoder over the same loop without one."""
    from guandan_fast.vecenv import VecEnv

    def loop(encoder):
        env = VecEnv(tables, seed=5, encoder=encoder, action_mode="candidates")
        b = env.reset()
        rng = np.random.default_rng(0)
        t = 0.0
        for _ in range(steps):
            a = (rng.random(tables) * np.diff(b.cand_offsets)).astype(np.int64)
            t0 = time.perf_counter()
            env.step(a)
            b = env.pending()
            env.drain_results()
            t += time.perf_counter() - t0
        return t, steps * tables

    ratios, per = [], []
    for _ in range(reps):
        with_enc, n = loop("danzero")
        without, _ = loop(None)
        ratios.append(with_enc / without)
        per.append((with_enc - without) / n)
    return statistics.median(ratios), statistics.median(per)


def learner_rate(hidden, samples, reps):
    from guandan_fast.learn.config import TrainConfig
    from guandan_fast.learn.trainer import Learner

    learner = Learner(TrainConfig(hidden=hidden))
    rates = []
    for r in range(reps):
        t0 = time.perf_counter()
        learner.fit(samples, r)
        rates.append(len(samples["target"]) / (time.perf_counter() - t0))
    return statistics.median(rates)


def teacher_rates(hidden, reps, decisions=10_000):
    """A teacher round's two sides: the expert's decisions collected a second (playing,
    encoding, listing the candidates) and the learner's teacher frames a second."""
    from guandan_fast.learn.config import TrainConfig
    from guandan_fast.learn.teacher import collect
    from guandan_fast.learn.trainer import VALUE_WEIGHT, Learner

    learner = Learner(TrainConfig(hidden=hidden))
    actor, fit = [], []
    for r in range(reps):
        t0 = time.perf_counter()
        data = collect("expert", decisions, seed=r)
        t1 = time.perf_counter()
        learner.imitate(data, r, VALUE_WEIGHT)
        n = len(data["label"])
        actor.append(n / (t1 - t0))
        fit.append(n / (time.perf_counter() - t1))
    return statistics.median(actor), statistics.median(fit)


def agent_decision(net, reps, moves=400):
    """Seconds per decision of the exported agent on a Game (encode, candidates, network),
    and of the greedy bot through the same Python entry point, for scale."""
    import guandan_fast as gf
    from guandan_fast.agents import parse_agent
    from guandan_fast.learn.agent import move

    greedy = parse_agent("greedy")
    out = {"dmc": [], "greedy": []}
    for r in range(reps):
        for name in ("dmc", "greedy"):
            g = gf.Game(seed=r)
            n, t = 0, 0.0
            while n < moves and not g.is_over:
                t0 = time.perf_counter()
                m = move(g, net) if name == "dmc" else greedy.move(g)
                t += time.perf_counter() - t0
                g.play(m)
                n += 1
            out[name].append(t / n)
    return {k: statistics.median(v) for k, v in out.items()}


def widths_table(reps) -> None:
    """The actor's rate and shares for square networks of several widths, the widths in turn
    within each repetition."""
    from guandan_fast.learn.qnet import QNet
    from guandan_fast.learn.selfplay import RoundSettings, play_round

    sizes = [(64, 64), (128, 128), (256, 256), (512, 512)]
    rows = {s: [] for s in sizes}
    for r in range(reps):
        for s in sizes:
            o = play_round(QNet.initial(s, seed=0), RoundSettings(64, 200), 1, r, 0)
            rows[s].append((o["decisions"] / o["seconds"], o["engine_seconds"] / o["seconds"],
                            o["network_seconds"] / o["seconds"]))
    for s in sizes:
        rate, engine, network = (statistics.median(x[k] for x in rows[s]) for k in range(3))
        print(f"hidden {s}: {rate:,.0f} decisions/s; engine {engine:.1%}, network {network:.1%}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hidden", default="256,256")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--widths", action="store_true",
                    help="only the actor, for networks of widths 64 to 512")
    args = ap.parse_args()
    hidden = tuple(int(h) for h in args.hidden.split(","))
    import torch
    from threadpoolctl import threadpool_limits

    from guandan_fast.learn.qnet import QNet

    torch.set_num_threads(1)
    with threadpool_limits(1, "blas"):
        if args.widths:
            return widths_table(args.reps)
        net = QNet.initial(hidden, seed=0)
        rows = actor_rounds(net, args.reps)
        rate = statistics.median(r[0] for r in rows)
        engine = statistics.median(r[1] for r in rows)
        network = statistics.median(r[2] for r in rows)
        print(f"actor (64 tables, 400 steps a round, hidden {hidden}): {rate:,.0f} decisions/s; "
              f"engine {engine:.1%}, network {network:.1%}, the rest {1 - engine - network:.1%}")
        ratio, per = encoder_ratio(args.reps)
        print(f"VecEnv step with DanZero's encoder / without: {ratio:.2f}x "
              f"({per * 1e6:.2f} us a decision)")
        out = rows[-1][4]
        samples = {k: out[k] for k in ("state", "cards", "ids", "target")}
        print(f"learner (batch 512, Adam): {learner_rate(hidden, samples, args.reps):,.0f} "
              f"frames/s")
        collect_rate, fit_rate = teacher_rates(hidden, args.reps)
        print(f"teacher round: {collect_rate:,.0f} expert decisions/s collected; learner "
              f"{fit_rate:,.0f} frames/s (each frame a whole candidate list)")
        costs = agent_decision(net, args.reps)
        print(f"exported agent on a Game: {costs['dmc'] * 1e6:.0f} us a decision "
              f"(greedy through the same call: {costs['greedy'] * 1e6:.0f} us); batched in "
              f"the actors: {network / rate * 1e6:.1f} us a decision")


if __name__ == "__main__":
    main()

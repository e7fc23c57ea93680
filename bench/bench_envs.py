"""What the framework adapters cost: decisions per second through each adapter against the raw
``Game`` (and ``VecEnv``), with the same policy (a uniformly random legal action id).

Run as a script (prints the table recorded in bench/RESULTS.md)::

    .venv/bin/python bench/bench_envs.py [--matches N] [--rounds R]

or under pytest-benchmark: ``.venv/bin/python -m pytest bench/bench_envs.py --benchmark-enable``.

Every loop plays whole matches from seeds 0..N-1 and counts decisions (one action id applied);
the figure is decisions / seconds, median over rounds. The Gymnasium single-learner env counts
the learner's decisions only (the bots' moves are in its time, as a user sees it) and also
reports all moves per second. The batched loops (``VecEnv`` and ``GuandanVectorEnv``, 256
tables) pick with one vectorized numpy draw per batch and count learner decisions.

Takes about 10 s with ``--matches 6 --rounds 5``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

_MASK = (1 << 64) - 1


class _Pick:
    """The shared policy: a uniformly random legal id from a mask, by a cheap LCG (the same
    cost in every loop)."""

    def __init__(self, seed=12345):
        self.x = seed

    def __call__(self, mask):
        legal = np.flatnonzero(mask)
        self.x = (self.x * 6364136223846793005 + 1442695040888963407) & _MASK
        return int(legal[(self.x >> 33) % legal.shape[0]])


def raw_game(matches):
    """The raw ``Game`` with the action space: ``legal_action_mask``, pick, ``play_action``."""
    from guandan_fast import Game
    from guandan_fast.actions import N_ACTIONS
    mask = np.zeros(N_ACTIONS, bool)
    pick = _Pick()
    steps = 0
    t = time.perf_counter()
    for seed in range(matches):
        g = Game(seed=seed)
        while not g.is_over:
            g.play_action(pick(g.legal_action_mask(mask)))
            steps += 1
    return steps, time.perf_counter() - t


def raw_game_obs(matches):
    """The same plus the acting seat's observation tensor each decision (what every adapter
    computes), into reused buffers."""
    from guandan_fast import Game
    from guandan_fast.actions import N_ACTIONS
    from guandan_fast.observe import OBS_SIZE
    mask = np.zeros(N_ACTIONS, bool)
    obs = np.zeros(OBS_SIZE, np.float32)
    pick = _Pick()
    steps = 0
    t = time.perf_counter()
    for seed in range(matches):
        g = Game(seed=seed)
        while not g.is_over:
            g.observation_tensor(g.current_player, obs)
            g.play_action(pick(g.legal_action_mask(mask)))
            steps += 1
    return steps, time.perf_counter() - t


def pettingzoo_aec(matches, wrapped=True):
    from guandan_fast.envs.pettingzoo.guandan_v0 import env, raw_env
    e = env() if wrapped else raw_env()
    pick = _Pick()
    steps = 0
    t = time.perf_counter()
    for seed in range(matches):
        e.reset(seed=seed)
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(pick(obs["action_mask"]))
            steps += 1
    return steps, time.perf_counter() - t


def pettingzoo_raw(matches):
    return pettingzoo_aec(matches, wrapped=False)


def gymnasium_single(matches, opponents="random"):
    from guandan_fast.envs.gymnasium import GuandanEnv
    env = GuandanEnv(seat=0, opponents=opponents)
    pick = _Pick()
    steps = moves = 0
    t = time.perf_counter()
    for seed in range(matches):
        obs, info = env.reset(seed=seed)
        while True:
            obs, r, term, trunc, info = env.step(pick(info["action_mask"]))
            steps += 1
            if term or trunc:
                break
        moves += sum(len(h) for h in env.game.moves_by_hand())
    return steps, time.perf_counter() - t, moves


def openspiel_state(matches):
    import pyspiel
    import guandan_fast.envs.openspiel  # noqa: F401  (registers python_guandan)
    game = pyspiel.load_game("python_guandan")
    pick = _Pick()
    steps = 0
    t = time.perf_counter()
    for seed in range(matches):
        s = game.new_initial_state()
        s.apply_action(seed)                       # the deal (chance outcome = seed)
        while not s.is_terminal():
            legal = s.legal_actions()
            mask = np.zeros(game.num_distinct_actions(), bool)
            mask[legal] = True
            s.apply_action(pick(mask))
            steps += 1
    return steps, time.perf_counter() - t


def _batch_pick(rng, mask):
    """One uniformly random legal id per row of a ``[B, N]`` mask (vectorized)."""
    return np.argmax(rng.random(mask.shape, np.float32) * mask, axis=1)


VEC_TABLES = 256


def vecenv_raw(matches, learners=(0,)):
    """``VecEnv`` directly: ``pending()`` batch, numpy pick, ``step``; random bots at the other
    seats, default encoder. ``matches`` scales the number of batch steps (40 per match)."""
    from guandan_fast import VecEnv
    env = VecEnv(VEC_TABLES, seed=0, learners=learners, opponents="random")
    rng = np.random.default_rng(0)
    batch = env.reset()
    steps = 40 * matches
    t = time.perf_counter()
    for _ in range(steps):
        env.step(_batch_pick(rng, batch.mask))
        batch = env.pending()
        env.drain_results()
    return steps * VEC_TABLES, time.perf_counter() - t


def vecenv_all_seats(matches):
    return vecenv_raw(matches, learners=(0, 1, 2, 3))


def gymnasium_vector(matches):
    """``GuandanVectorEnv`` over the same ``VecEnv`` (one learner, random bots)."""
    from guandan_fast.envs.gymnasium import GuandanVectorEnv
    envs = GuandanVectorEnv(VEC_TABLES, seat=0, opponents="random")
    rng = np.random.default_rng(0)
    obs, infos = envs.reset(seed=0)
    steps = 40 * matches
    t = time.perf_counter()
    for _ in range(steps):
        obs, r, term, trunc, infos = envs.step(_batch_pick(rng, infos["action_mask"]))
    return steps * VEC_TABLES, time.perf_counter() - t


LOOPS = {
    "raw Game (mask + play_action)": raw_game,
    "raw Game + observation tensor": raw_game_obs,
    "PettingZoo AEC (env(), order-enforcing wrapper)": pettingzoo_aec,
    "PettingZoo AEC (raw_env, unwrapped)": pettingzoo_raw,
    "Gymnasium GuandanEnv (learner steps, random bots)": gymnasium_single,
    "OpenSpiel python_guandan state": openspiel_state,
    f"VecEnv({VEC_TABLES}), all four seats learners": vecenv_all_seats,
    f"VecEnv({VEC_TABLES}), learner seat 0, random bots": vecenv_raw,
    f"Gymnasium GuandanVectorEnv({VEC_TABLES}), same": gymnasium_vector,
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    # Rounds are interleaved (every loop once per round) so that a change of machine load
    # hits all loops alike; each loop's figure is its median over the rounds.
    rates = {name: [] for name in LOOPS}
    extra = {name: [] for name in LOOPS}
    for _ in range(args.rounds):
        for name, fn in LOOPS.items():
            res = fn(args.matches)
            rates[name].append(res[0] / res[1])
            if len(res) > 2:
                extra[name].append(res[2] / res[1])
    rows = [(name, statistics.median(rates[name]),
             statistics.median(extra[name]) if extra[name] else None) for name in LOOPS]
    base = rows[0][1]
    print(f"| loop ({args.matches} matches, median of {args.rounds}) | decisions/s | "
          f"vs raw Game |")
    print("|---|---|---|")
    for name, rate, extra in rows:
        note = f" ({extra:,.0f} moves/s with the bots')" if extra else ""
        print(f"| {name} | {rate:,.0f}{note} | {rate / base:.2f}× |")


# -- pytest-benchmark -----------------------------------------------------------------------
def _bench(benchmark, fn):
    res = benchmark.pedantic(fn, args=(2,), rounds=3, iterations=1)
    assert res[0] > 0


def test_raw_game(benchmark):
    _bench(benchmark, raw_game)


def test_pettingzoo(benchmark):
    _bench(benchmark, pettingzoo_aec)


def test_gymnasium_single(benchmark):
    _bench(benchmark, gymnasium_single)


def test_openspiel(benchmark):
    _bench(benchmark, openspiel_state)


def test_vecenv(benchmark):
    _bench(benchmark, vecenv_raw)


def test_gymnasium_vector(benchmark):
    _bench(benchmark, gymnasium_vector)


if __name__ == "__main__":
    main()

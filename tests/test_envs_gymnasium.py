"""The Gymnasium single-learner adapter."""

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import guandan_fast as gf
from guandan_fast.envs.gymnasium import ENV_ID, GuandanEnv, GuandanVectorEnv


def run_episode(env, seed, rng):
    obs, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        assert env.game.current_player == env.seat
        assert env.observation_space.contains(obs)
        a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, r, term, trunc, info = env.step(a)
        total += r
        steps += 1
        if term or trunc:
            return total, steps, term, trunc


def test_check_env():
    # check_env steps with actions sampled without the mask: 'terminate' ends the episode on
    # an illegal one instead of raising. Made through the registered id (so it has a spec,
    # which the checker reads), checked unwrapped (as the checker asks).
    env = gymnasium.make(ENV_ID, illegal_action="terminate", render_mode="ansi")
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # the checker finds nothing to warn about
        check_env(env.unwrapped, skip_render_check=False)


@pytest.mark.parametrize("seat", [0, 3])
def test_whole_match_and_reward(seat):
    env = GuandanEnv(seat=seat, opponents="random")
    total, steps, term, trunc = run_episode(env, 8, np.random.default_rng(seat))
    g = env.game
    assert term and not trunc and g.is_over and steps > 50
    assert total == (1.0 if g.winner == seat % 2 else -1.0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_bots_play_the_other_seats():
    """A random learner with a random partner against two greedy bots loses almost every
    match (greedy pairs win ~100% against random pairs, docs/design.md)."""
    env = GuandanEnv(seat=0, opponents=(None, "greedy", "random", "greedy"))
    rng = np.random.default_rng(0)
    wins = sum(run_episode(env, 100 + i, rng)[0] > 0 for i in range(12))
    assert wins <= 2
    # and the learner acts only at its own seat: every history move by seat 1 or 3 was a bot's
    env.reset(seed=1)
    assert env.game.current_player == 0


def test_hand_reward_sums_results():
    env = GuandanEnv(seat=1, opponents="random", reward="hand")
    total, *_ = run_episode(env, 21, np.random.default_rng(5))
    g = env.game
    expect = 0.0
    for res in g.results:
        fo = res["finish_order"]
        partner = fo[0] ^ 2
        place = fo.index(partner) + 1 if partner in fo else 4
        expect += (1 if res["winner"] == 1 else -1) * {2: 3, 3: 2, 4: 1}[place]
    assert total == expect


def test_same_seed_same_episode():
    a = GuandanEnv(opponents="random")
    b = GuandanEnv(opponents="random")
    ra = run_episode(a, 4, np.random.default_rng(9))
    rb = run_episode(b, 4, np.random.default_rng(9))
    assert ra == rb and a.game == b.game


def test_illegal_action_raises_and_changes_nothing():
    env = GuandanEnv()
    obs, info = env.reset(seed=2)
    before = env.game.clone()
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(gf.IllegalMoveError):
        env.step(illegal)
    with pytest.raises(ValueError, match="out of range"):
        env.step(-1)
    with pytest.raises(TypeError):
        env.step(1.5)
    assert env.game == before
    np.testing.assert_array_equal(env.action_masks(), info["action_mask"].astype(bool))


def test_illegal_action_terminate_mode():
    env = GuandanEnv(illegal_action="terminate")
    obs, info = env.reset(seed=2)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, r, term, trunc, info = env.step(illegal)
    assert (r, term, trunc, info["illegal_action"]) == (-1.0, True, False, True)


def test_max_hands_truncates():
    env = GuandanEnv(opponents="random", max_hands=2)
    total, steps, term, trunc = run_episode(env, 3, np.random.default_rng(3))
    assert trunc and not term and env.game.hand_number == 2


def test_bad_arguments():
    with pytest.raises(ValueError, match="seat"):
        GuandanEnv(seat=4)
    with pytest.raises(ValueError, match="unknown bot"):
        GuandanEnv(opponents="alphago")
    with pytest.raises(ValueError, match="None at the learner"):
        GuandanEnv(seat=1, opponents=("greedy", "greedy", "greedy", None))
    with pytest.raises(ValueError, match="illegal_action"):
        GuandanEnv(illegal_action="ignore")


def test_observation_is_the_learners_tensor():
    from guandan_fast import observe
    env = GuandanEnv(seat=2, opponents="random", encoder="danzero")
    obs, info = env.reset(seed=6)
    rng = np.random.default_rng(6)
    for _ in range(50):
        np.testing.assert_array_equal(obs, observe.danzero_state(env.game, 2))
        np.testing.assert_array_equal(info["action_mask"].astype(bool),
                                      env.game.legal_action_mask())
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        assert not term


# -- GuandanVectorEnv (over guandan_fast.VecEnv) ----------------------------------------------

def test_vector_env_tables_replay_the_single_env():
    """Table i of the vector env plays the match VecEnv deals it; the single-learner env fed
    that match seed and the same actions (greedy bots, deterministic in both: compiled in
    VecEnv, through bots.choose in GuandanEnv) sees the same observations, masks, rewards and
    terminations, across match ends (the vector env resets a table within the step)."""
    n, seat = 3, 1
    venv = GuandanVectorEnv(n, seat=seat, opponents="greedy", reward="hand")
    obs, infos = venv.reset(seed=5)
    singles = [GuandanEnv(seat=seat, opponents="greedy", reward="hand") for _ in range(n)]
    outs = [s.reset(seed=venv._vec.match_seed(i)) for i, s in enumerate(singles)]
    rng = np.random.default_rng(0)
    ends = 0
    for step in range(1500):
        for i in range(n):
            np.testing.assert_array_equal(obs[i], outs[i][0])
            np.testing.assert_array_equal(infos["action_mask"][i], outs[i][1]["action_mask"])
        actions = np.array([rng.choice(np.flatnonzero(infos["action_mask"][i]))
                            for i in range(n)])
        obs, rewards, term, trunc, infos = venv.step(actions)
        assert not trunc.any()
        for i, s in enumerate(singles):
            o, r, t, tr, inf = s.step(int(actions[i]))
            assert (r, t) == (rewards[i], term[i])
            if t:
                ends += 1
                o, inf = s.reset(seed=venv._vec.match_seed(i))
            outs[i] = (o, inf)
    assert ends >= 1


def test_vector_env_spaces_and_errors():
    venv = GuandanVectorEnv(4, seat=0, opponents="random", encoder="danzero")
    obs, infos = venv.reset(seed=1)
    assert venv.observation_space.contains(obs)
    assert obs.shape == (4, 513) and infos["action_mask"].shape == (4, 501)
    with pytest.raises(ValueError, match="shape"):
        venv.step(np.zeros(3, np.int64))
    bad = np.array([int(np.flatnonzero(m == 0)[0]) for m in infos["action_mask"]])
    with pytest.raises(gf.IllegalMoveError):
        venv.step(bad)
    good = np.array([int(np.flatnonzero(m)[0]) for m in infos["action_mask"]])
    obs2, *_ = venv.step(good)        # the failed step changed nothing: this one is accepted
    assert obs2.shape == (4, 513)
    with pytest.raises(RuntimeError, match="reset"):
        GuandanVectorEnv(2).step(np.zeros(2, np.int64))


def test_vector_env_match_reward_and_seeding():
    a = GuandanVectorEnv(8, seat=0, opponents=(None, "greedy", "random", "greedy"))
    b = GuandanVectorEnv(8, seat=0, opponents=(None, "greedy", "random", "greedy"))
    oa, ia = a.reset(seed=3)
    ob, ib = b.reset(seed=3)
    np.testing.assert_array_equal(oa, ob)
    rng = np.random.default_rng(1)
    total = np.zeros(8)
    ends = np.zeros(8, int)
    for _ in range(3000):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in ia["action_mask"]])
        oa, ra, ta, _, ia = a.step(acts)
        ob, rb, tb, _, ib = b.step(acts)
        np.testing.assert_array_equal(oa, ob)
        np.testing.assert_array_equal(ra, rb)
        assert set(np.unique(ra[ta])) <= {-1.0, 1.0} and not ra[~ta].any()
        total += ra
        ends += ta
    # random learner + random partner against two greedy bots: they lose (almost) every match
    assert ends.sum() >= 8 and total.sum() <= -0.6 * ends.sum()


def test_vector_env_under_gymnasium_wrappers():
    import gymnasium
    envs = gymnasium.wrappers.vector.RecordEpisodeStatistics(GuandanVectorEnv(4, opponents="random"))
    obs, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(1500):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
        obs, r, term, trunc, infos = envs.step(acts)
        if "episode" in infos:
            done = infos["_episode"]
            episodes += int(done.sum())
            assert set(infos["episode"]["r"][done]) <= {-1.0, 1.0}
    assert episodes >= 4


def test_registered_for_gymnasium_make_and_make_vec():
    import gymnasium

    from guandan_fast.envs import gymnasium as adapter

    env = gymnasium.make(adapter.ENV_ID, seat=2, opponents="random")
    assert isinstance(env.unwrapped, GuandanEnv) and env.unwrapped.seat == 2
    obs, info = env.reset(seed=5)
    assert obs.shape == env.observation_space.shape and info["action_mask"].any()
    vec = gymnasium.make_vec(adapter.ENV_ID, num_envs=3, vectorization_mode="vector_entry_point",
                             opponents="random")
    assert isinstance(vec, GuandanVectorEnv) and vec.num_envs == 3
    vec.close()
    env.close()

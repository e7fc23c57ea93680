"""The Gymnasium single-learner adapter."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import guandan_fast as gf
from guandan_fast.envs.gymnasium import GuandanEnv


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
    # an illegal one instead of raising.
    check_env(GuandanEnv(illegal_action="terminate", render_mode="ansi"), skip_render_check=False)


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

"""The PettingZoo AEC adapter: PettingZoo's own API and seed tests, plus what they cannot see
(lockstep with the raw Game, the reward convention, errors that change nothing)."""

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import guandan_fast as gf
from guandan_fast.envs import common
from guandan_fast.envs.pettingzoo import guandan_v0
from guandan_fast.envs.pettingzoo.guandan_v0 import env, raw_env


def play_match(e, seed, rng, on_step=None):
    """Random legal actions through a whole match; the final cumulative rewards."""
    e.reset(seed=seed)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        totals[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        a = int(rng.choice(legal))
        if on_step is not None:
            on_step(e, agent, a)
        e.step(a)
    return totals


# api_test's two notes on an observation that is a dict of the features and the action mask
# (the form of PettingZoo's own card and board games): expected here, and nothing else is.
DICT_OBSERVATION_NOTES = [
    "error",        # (the filters listed later take precedence)
    "ignore:Observation space for each agent probably should be:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
]


@pytest.mark.filterwarnings(*DICT_OBSERVATION_NOTES)
def test_pettingzoo_api_test():
    # 4000 agent steps: more than a whole match of random play (about 1,800 decisions).
    api_test(env(), num_cycles=1000)


def test_pettingzoo_seed_test():
    seed_test(env, num_cycles=500)


def test_lockstep_with_raw_game_and_match_rewards():
    """Each step makes exactly the move the codec makes on a raw Game; at the end every agent
    has terminated with +1 for the winning team and -1 for the other."""
    e = raw_env()
    twin = {}

    def on_step(e, agent, a):
        if "g" not in twin:
            twin["g"] = gf.Game(seed=11)
        g = twin["g"]
        assert g == e.game
        assert e.agent_selection == f"player_{g.current_player}"
        e._spaces.play(g, a)

    totals = play_match(e, 11, np.random.default_rng(0), on_step)
    assert twin["g"] == e.game and e.game.is_over
    assert e.agents == []
    w = e.game.winner
    assert totals == {f"player_{p}": (1.0 if p % 2 == w else -1.0) for p in range(4)}


def test_hand_rewards_follow_results():
    e = raw_env(reward="hand")
    totals = play_match(e, 5, np.random.default_rng(1))
    g = e.game
    expect = 0.0
    for res in g.results:
        partner = res["finish_order"][0] ^ 2
        fo = res["finish_order"]
        place = fo.index(partner) + 1 if partner in fo else 4
        expect += (1 if res["winner"] == 0 else -1) * {2: 3, 3: 2, 4: 1}[place]
    assert totals["player_0"] == expect == totals["player_2"] == -totals["player_1"]


def test_only_the_acting_agent_has_a_mask():
    e = raw_env()
    e.reset(seed=3)
    acting = e.agent_selection
    for agent in e.agents:
        mask = e.observe(agent)["action_mask"]
        if agent == acting:
            assert mask.sum() > 0
        else:
            assert mask.sum() == 0
    # the observation of one seat does not change with the seat to act's mask
    assert e.observation_space(acting).contains(e.observe(acting))


def test_bad_actions_raise_and_change_nothing():
    e = raw_env()
    e.reset(seed=4)
    before = e.game.clone()
    agent = e.agent_selection
    mask = e.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(gf.IllegalMoveError):
        e.step(illegal)
    with pytest.raises(ValueError, match="out of range"):
        e.step(10**6)
    with pytest.raises(TypeError, match="action"):
        e.step("pass")
    assert e.game == before and e.agent_selection == agent
    e.step(int(np.flatnonzero(mask)[0]))
    assert e.game != before


def test_seeded_resets_repeat_and_differ():
    a, b = raw_env(), raw_env()
    a.reset(seed=9)
    b.reset(seed=9)
    assert a.game == b.game
    a.reset()
    b.reset()
    assert a.game == b.game            # an unseeded reset continues the seeded stream
    b.reset(seed=10)
    assert a.game.hand(0) != b.game.hand(0) or a.game.hand(1) != b.game.hand(1)


def test_max_hands_truncates():
    e = raw_env(max_hands=1)
    e.reset(seed=2)
    rng = np.random.default_rng(2)
    steps = 0
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            assert trunc and not term
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    assert e.game.hand_number == 1 and len(e.game.results) == 1 and steps > 20


def test_render_ansi_shows_every_seat():
    e = raw_env(render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    for p in range(4):
        assert " ".join(e.game.hand(p)) in text
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert raw_env().render() is None


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match="reward"):
        raw_env(reward="points")
    with pytest.raises(TypeError, match="rules"):
        raw_env(rules={"upgrade": "3-2-1"})
    with pytest.raises(ValueError, match="max_hands"):
        raw_env(max_hands=0)
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="human")


def test_step_before_reset_is_refused():
    with pytest.raises(Exception, match="reset"):
        env().step(0)


def test_hand_value_uses_partner_place():
    assert [common.hand_value(fo) for fo in ([0, 2], [0, 1, 2, 3], [0, 1, 3, 2])] == [3, 2, 1]


@pytest.mark.parametrize("encoder,fn", [("default", "observation_tensor"),
                                        ("info", "information_state_tensor"),
                                        ("danzero", "danzero_state")])
def test_observations_are_the_learning_interface_tensors(encoder, fn):
    from guandan_fast import observe
    e = raw_env(encoder=encoder)
    rng = np.random.default_rng(3)
    e.reset(seed=12)
    for _ in range(300):
        acting = e.agent_selection
        for p, agent in enumerate(e.possible_agents):
            obs = e.observe(agent)
            np.testing.assert_array_equal(obs["observation"], getattr(observe, fn)(e.game, p))
            assert e.observation_space(agent).contains(obs)
        mask = e.observe(acting)["action_mask"]
        np.testing.assert_array_equal(mask.astype(bool), e.game.legal_action_mask())
        e.step(int(rng.choice(np.flatnonzero(mask))))


@pytest.mark.filterwarnings(*DICT_OBSERVATION_NOTES)
def test_api_test_danzero_encoder():
    api_test(env(encoder="danzero"), num_cycles=300)


def test_versioned_module_as_pettingzoo_names_its_environments():
    import guandan_fast.envs.pettingzoo as unversioned

    assert guandan_v0.raw_env.metadata["name"] == "guandan_v0" == guandan_v0.__name__.rsplit(".", 1)[1]
    # the unversioned import is the current version's
    assert unversioned.env is guandan_v0.env and unversioned.raw_env is guandan_v0.raw_env

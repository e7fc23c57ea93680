"""The OpenSpiel game ``python_guandan``."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts

import guandan_fast as gf
from guandan_fast.envs import openspiel as gos


def test_random_sim_test_with_chance_deal():
    game = pyspiel.load_game("python_guandan")
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_random_sim_test_with_seed_and_rules():
    game = pyspiel.load_game("python_guandan(seed=3,max_hands=3,count_disclosure=1000,"
                             "upgrade=421,double_tie=winners_choose)")
    assert game.rules == gf.Rules(count_disclosure="always", upgrade="4-2-1",
                                  double_tie="winners_choose")
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_game_info():
    game = pyspiel.load_game("python_guandan")
    assert game.num_players() == 4
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    s = game.new_initial_state()
    assert s.is_chance_node() and len(s.chance_outcomes()) == game.max_chance_outcomes()
    s.apply_action(17)
    assert s.game == gf.Game(seed=17)
    assert len(s.information_state_tensor(s.current_player())) == \
        game.information_state_tensor_size()
    assert len(s.observation_tensor(0)) == game.observation_tensor_size()


def test_mcts_bots_play_a_whole_match():
    """OpenSpiel's MCTS bot (seats 0 and 2, compiled rollouts) against uniform random bots:
    a whole match, to its end, zero-sum between the teams."""
    game = pyspiel.load_game("python_guandan")
    ev = gos.RolloutEvaluator(n_rollouts=1, seed=1)
    bots = [mcts.MCTSBot(game, 2.0, 8, ev, solve=False, random_state=np.random.RandomState(p))
            if p % 2 == 0 else pyspiel.make_uniform_random_bot(p, 5 + p) for p in range(4)]
    state = game.new_initial_state()
    returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(0))
    g = state.game
    assert state.is_terminal() and g.is_over and g.hand_number >= 1
    w = g.winner
    assert returns == [1.0 if p % 2 == w else -1.0 for p in range(4)]


def test_ismcts_bot_plays_a_whole_match():
    """OpenSpiel's IS-MCTS bot at seat 0 (worlds from resample_from_infostate) against
    uniformly random seats, to the match's end."""
    game = pyspiel.load_game("python_guandan")
    bot = ismcts.ISMCTSBot(game, gos.RolloutEvaluator(seed=1), 2.0, 8,
                           random_state=np.random.RandomState(0))
    sampler = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)
    bot.set_resampler(lambda st, p: st.resample_from_infostate(p, sampler))
    rng = np.random.default_rng(1)
    state = game.new_initial_state()
    state.apply_action(11)
    decisions = 0
    while not state.is_terminal():
        if state.current_player() == 0:
            action = bot.step(state)
            decisions += 1
        else:
            action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
    g = state.game
    assert g.is_over and decisions > 50
    assert state.returns() == [1.0 if p % 2 == g.winner else -1.0 for p in range(4)]


def test_resample_keeps_the_information_state():
    """Along a random match, a resampled world looks the same to the player (strings,
    tensors, legal actions) and changes what it cannot see."""
    game = pyspiel.load_game("python_guandan(seed=3)")
    s = game.new_initial_state()
    rng = np.random.default_rng(0)
    sampler = pyspiel.UniformProbabilitySampler(1, 0.0, 1.0)
    changed = 0
    for step in range(600):
        p = s.current_player()
        w = s.resample_from_infostate(p, sampler)
        assert w.information_state_string(p) == s.information_state_string(p)
        assert w.information_state_tensor(p) == s.information_state_tensor(p)
        assert w.observation_tensor(p) == s.observation_tensor(p)
        assert w.legal_actions() == s.legal_actions()
        assert w.game.hand(p) == s.game.hand(p)
        changed += any(w.game.hand(q) != s.game.hand(q) for q in range(4) if q != p)
        s.apply_action(int(rng.choice(s.legal_actions())))
    assert changed > 500
    with pytest.raises(ValueError, match="player_id"):
        s.resample_from_infostate(4, sampler)


def test_clone_is_independent_and_history_replays():
    game = pyspiel.load_game("python_guandan(seed=4)")
    s = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(30):
        s.apply_action(int(rng.choice(s.legal_actions())))
    c = s.clone()
    assert c.game == s.game and c.game is not s.game
    c.apply_action(c.legal_actions()[0])
    assert c.game != s.game and len(c.history()) == len(s.history()) + 1
    replay = game.new_initial_state()
    for a in s.history():
        replay.apply_action(a)
    assert replay.game == s.game
    back = game.deserialize_state(s.serialize())
    assert back.game == s.game and back.history() == s.history()


def test_illegal_action_raises_and_changes_nothing():
    game = pyspiel.load_game("python_guandan(seed=4)")
    s = game.new_initial_state()
    before = s.game.clone()
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in s.legal_actions())
    with pytest.raises(gf.IllegalMoveError):
        s.apply_action(illegal)
    assert s.game == before and s.history() == []


def _swapped_worlds():
    """Two first-hand states, seat 0 to lead, that differ only in the cards of seats 1 and 3
    (one card exchanged between them)."""
    base = gf.Game(seed=6)
    hands = [list(base.hand(p)) for p in range(4)]
    i = next(i for i, c in enumerate(hands[1]) if c not in hands[3])
    j = next(j for j, c in enumerate(hands[3]) if c not in hands[1])
    other = [list(h) for h in hands]
    other[1][i], other[3][j] = hands[3][j], hands[1][i]
    game = pyspiel.load_game("python_guandan(seed=6)")
    states = []
    for hs in (hands, other):
        s = game.new_initial_state()
        s._box.game = gf.Game.setup(hs, leader=0)
        states.append(s)
    return states


def test_information_state_hides_other_hands():
    a, b = _swapped_worlds()
    for s in (a, b):        # one move each, the same one, so the history is not empty
        s.apply_action(s.legal_actions()[0])
    for p in (0, 2):
        assert a.information_state_string(p) == b.information_state_string(p)
        assert a.observation_string(p) == b.observation_string(p)
        assert a.information_state_tensor(p) == b.information_state_tensor(p)
        assert a.observation_tensor(p) == b.observation_tensor(p)
    for p in (1, 3):
        assert a.information_state_string(p) != b.information_state_string(p)
        assert a.observation_tensor(p) != b.observation_tensor(p)


def test_bad_parameters():
    with pytest.raises(ValueError, match="count_disclosure"):
        pyspiel.load_game("python_guandan(count_disclosure=5)")
    with pytest.raises(ValueError, match="upgrade"):
        pyspiel.load_game("python_guandan(upgrade=322)")
    with pytest.raises(ValueError, match="max_hands"):
        pyspiel.load_game("python_guandan(max_hands=0)")

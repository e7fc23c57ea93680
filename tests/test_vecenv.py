"""``gf.VecEnv`` (docs/learning.md section 3).

* stepping a VecEnv equals stepping ``Game`` objects by hand with the same choices: every
  observation row, mask, candidate list and hand result;
* the same with built-in bots (greedy, stepped by hand through ``bots.choose``);
* identical batches and results for any thread count (1-4, fewer tables than threads too),
  with the candidate buffers growing mid-run, for any integer dtype of the actions;
* candidates mode, the DanZero and info encoders, ``fork``, ``drain_results``;
* bad input raises before any table advances (1 and 2 threads, the bad action at any table);
* results accumulate across steps until drained.
"""

import numpy as np
import pytest

import guandan_fast as gf
from guandan_fast import actions as A
from guandan_fast import bots
from guandan_fast import observe as O


def random_choice(batch, rng):
    counts = np.diff(batch.cand_offsets)
    pick = batch.cand_offsets[:-1] + (rng.random(len(counts)) * counts).astype(np.int64)
    return batch.cand_ids[pick], pick - batch.cand_offsets[:-1]


def hand_result(game):
    r = game.results[-1]
    fin = list(r["finish_order"]) + [-1] * (4 - len(r["finish_order"]))
    return r, fin


@pytest.mark.parametrize("rules", [gf.Rules(), gf.Rules(upgrade="4-2-1", double_tie="winners_choose",
                                                       return_rule="any", anti_tribute=False,
                                                       fullhouse_joker_pair=False)])
def test_vecenv_equals_games_stepped_by_hand(rules):
    n, steps = 6, 900
    env = gf.VecEnv(n, seed=11, rules=rules)
    b = env.reset()
    games = [gf.Game(seed=env.match_seed(i), rules=rules) for i in range(n)]
    rng = np.random.default_rng(5)
    hands_seen = matches_seen = 0
    for _ in range(steps):
        for i, g in enumerate(games):
            assert b.seat[i] == g.current_player
            assert b.phase[i] == ("tribute", "back", "play").index(g.phase)
            assert (b.obs[i] == g.observation_tensor()).all()
            assert (b.mask[i] == g.legal_action_mask()).all()
            ids, words = A.canonical_moves(g)
            lo, hi = b.cand_offsets[i], b.cand_offsets[i + 1]
            assert (b.cand_ids[lo:hi] == ids).all() and (b.cand_words[lo:hi] == words).all()
        a, _ = random_choice(b, rng)
        env.step(a)
        res = env.drain_results()
        by_env = {}
        for k in range(len(res["env_id"])):
            by_env.setdefault(int(res["env_id"][k]), []).append(k)
        for i, g in enumerate(games):
            before = len(g.results)
            g.play_action(int(a[i]))
            if len(g.results) > before:
                (k,) = by_env.pop(i)
                r, fin = hand_result(g)
                assert res["finish"][k].tolist() == fin
                assert tuple(res["levels"][k]) == r["levels"]
                assert res["level"][k] == r["level"]
                assert res["match_over"][k] == g.is_over
                w = r["winner"]
                rw = res["reward"][k]
                assert rw[w] == rw[w + 2] == -rw[1 - w] == -rw[3 - w] > 0
                partner_place = r["finish_order"].index(r["finish_order"][0] ^ 2) \
                    if r["finish_order"][0] ^ 2 in r["finish_order"] else 3
                assert rw[w] == rules.upgrade_steps[partner_place - 1]
                hands_seen += 1
                if g.is_over:
                    assert res["match_winner"][k] == g.winner
                    matches_seen += 1
                    games[i] = gf.Game(seed=env.match_seed(i), rules=rules)
        assert not by_env
        b = env.pending()
    assert hands_seen >= 3


def test_vecenv_with_greedy_bots_equals_games_stepped_by_hand():
    n = 4
    env = gf.VecEnv(n, seed=3, learners=(1,), opponents="greedy", encoder="danzero",
                    action_mode="candidates")
    b = env.reset()
    rng = np.random.default_rng(1)

    def bot_move(g):
        p = g.current_player
        top = g.observation(p)["top"]
        counts = [min(27, len(g.hand(q))) for q in range(4)]   # 28: only in the exchange
        moves = list(g.legal_moves(compact=True))
        return bots.choose("greedy", g.hand(p), level=g.level,
                           top=None if top is None else top[1],
                           top_seat=None if top is None else top[0], seat=p, counts=counts,
                           moves=moves, phase=g.phase)

    games = []
    for i in range(n):
        g = gf.Game(seed=env.match_seed(i))
        while g.current_player != 1:
            g.play(bot_move(g))
        games.append(g)
    for _ in range(150):
        _, local = random_choice(b, rng)
        for i, g in enumerate(games):
            assert (b.obs[i] == O.danzero_state(g)).all()
            lo, hi = b.cand_offsets[i], b.cand_offsets[i + 1]
            ids, words = A.canonical_moves(g)
            assert (b.cand_words[lo:hi] == words).all()
            assert (b.cand_cards[lo:hi] == O.danzero_actions(words)).all()
        chosen = b.cand_ids[b.cand_offsets[:-1] + local].copy()   # b is invalid after step
        env.step(local)
        for i, g in enumerate(games):
            g.play_action(int(chosen[i]))
            while not g.is_over and g.current_player != 1:
                g.play(bot_move(g))
        if any(g.is_over for g in games):
            break
        b = env.pending()


@pytest.mark.parametrize("encoder,mode", [("default", "abstract"), ("info", "candidates"),
                                          (None, "abstract"), ("danzero", "candidates")])
def test_identical_for_any_thread_count(encoder, mode):
    envs = [gf.VecEnv(24, seed=9, threads=t, learners=(0, 2), opponents="random",
                      encoder=encoder, action_mode=mode) for t in (1, 2)]
    batches = [e.reset() for e in envs]
    rng = np.random.default_rng(2)
    for _ in range(120):
        b1, b2 = batches
        for f in b1._fields:
            x, y = getattr(b1, f), getattr(b2, f)
            assert (x is None and y is None) or np.array_equal(x, y), f
        ids, local = random_choice(b1, rng)
        for e in envs:
            e.step(ids if mode == "abstract" else local)
        r1, r2 = (e.drain_results() for e in envs)
        assert r1.keys() == r2.keys() and all(np.array_equal(r1[k], r2[k]) for k in r1)
        batches = [e.pending() for e in envs]
    assert batches[0].obs.shape == (24, envs[0].obs_size)


def test_seats_and_results_shapes_and_reward_convention():
    env = gf.VecEnv(16, seed=4, learners=(0,), opponents=("greedy",) * 4, encoder=None)
    b = env.reset()
    assert b.obs.shape == (16, 0) and (b.seat == 0).all()
    rng = np.random.default_rng(0)
    total = 0
    for _ in range(400):
        env.step(random_choice(b, rng)[0])
        b = env.pending()
        assert (b.seat == 0).all()
        r = env.drain_results()
        total += len(r["env_id"])
        assert r["reward"].shape == (len(r["env_id"]), 4)
        for k in range(len(r["env_id"])):
            u = r["reward"][k]
            assert u.sum() == 0 and set(np.abs(u)) <= {1.0, 2.0, 3.0}
            assert r["finish"][k][0] >= 0
    assert total > 5


def test_batch_pickles_as_its_own_type():
    # a copy of a batch (e.g. sent to another process) keeps its type and arrays
    import pickle
    b = gf.VecEnv(3, seed=2).reset()
    assert type(b).__module__ == "guandan_fast.vecenv"
    c = pickle.loads(pickle.dumps(b))
    assert type(c) is type(b) and c._fields == b._fields
    for x, y in zip(b, c):
        assert (x is None and y is None) or (np.array_equal(x, y) and x.dtype == y.dtype)


@pytest.mark.parametrize("threads", [1, 2])
def test_fork_copies_a_table(threads):
    env = gf.VecEnv(3, seed=21, threads=threads)
    b = env.reset()
    rng = np.random.default_rng(3)
    for _ in range(30):
        env.step(random_choice(b, rng)[0])
        b = env.pending()
    f = env.fork(1, 4)
    fb = f.pending()
    assert (fb.obs == b.obs[1]).all() and (fb.mask == b.mask[1]).all()
    first = b.cand_ids[b.cand_offsets[:-1]].copy()
    env.step(first)
    f.step(np.full(4, first[1]))
    assert (f.pending().obs == env.pending().obs[1]).all()
    assert f.match_seed(2) == env.match_seed(1)
    fb, b = f.pending(), env.pending()
    for k in range(4):                  # every copy's candidates equal the source table's
        lo, hi = fb.cand_offsets[k], fb.cand_offsets[k + 1]
        assert np.array_equal(fb.cand_ids[lo:hi], b.cand_ids[b.cand_offsets[1]:b.cand_offsets[2]])


@pytest.mark.parametrize("threads", [1, 2])
def test_bad_input_changes_nothing(threads):
    env = gf.VecEnv(4, seed=0, threads=threads)
    with pytest.raises(RuntimeError, match="reset"):
        env.pending()
    b = env.reset()
    obs = b.obs.copy()
    with pytest.raises(ValueError, match="shape \\(4,\\)"):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(TypeError, match="integer array"):
        env.step(np.zeros(4, dtype=np.float32))
    good = b.cand_ids[b.cand_offsets[:-1]].copy()
    bad = good.copy()
    bad[2] = 0                          # PASS on a lead
    with pytest.raises(gf.IllegalMoveError, match="actions\\[2\\] = 0 \\(PASS\\) is not legal at table 2"):
        env.step(bad)
    bad[2] = 501
    with pytest.raises(ValueError, match="action ids are 0..500"):
        env.step(bad)
    assert (env.pending().obs == obs).all()
    env.step(good)
    with pytest.raises(RuntimeError, match="needs a pending"):
        env.step(good)
    c = gf.VecEnv(2, seed=0, action_mode="candidates", threads=threads)
    cb = c.reset()
    with pytest.raises(ValueError, match="candidates"):
        c.step(np.diff(cb.cand_offsets))
    for kwargs, exc in [(dict(learners=()), ValueError), (dict(learners=(4,)), ValueError),
                        (dict(encoder="x"), ValueError), (dict(action_mode="x"), ValueError),
                        (dict(opponents="smart"), ValueError), (dict(threads=0), ValueError),
                        (dict(rules={}), TypeError)]:
        with pytest.raises(exc):
            gf.VecEnv(2, seed=0, **kwargs)
    with pytest.raises(TypeError):
        gf.VecEnv(2, seed="x")
    with pytest.raises(ValueError, match="env_id"):
        env.fork(4, 1)


def test_info_encoder_rows_equal_game_information_state():
    env = gf.VecEnv(3, seed=5, encoder="info", action_mode="candidates")
    b = env.reset()
    games = [gf.Game(seed=env.match_seed(i)) for i in range(3)]
    rng = np.random.default_rng(4)
    for _ in range(300):
        for i, g in enumerate(games):
            assert (b.obs[i] == g.information_state_tensor()).all()
            lo, hi = b.cand_offsets[i], b.cand_offsets[i + 1]
            rows = np.zeros((hi - lo, 54), dtype=np.uint8)
            for r, (wlo, whi) in enumerate(b.cand_words[lo:hi].tolist()):
                for c in gf.Move.from_words(wlo, whi).cards:
                    rows[r, gf.cards.KIND_OF[c]] += 1
            assert (b.cand_cards[lo:hi] == rows).all()
        ids, local = random_choice(b, rng)
        env.step(local)
        for i, g in enumerate(games):
            g.play_action(int(ids[i]))
            if g.is_over:
                games[i] = gf.Game(seed=env.match_seed(i))
        b = env.pending()


@pytest.mark.parametrize("num_envs", [1, 3, 24, 70, 200])
def test_identical_for_1_to_4_threads_and_growing_buffers(num_envs):
    # Threads claim the tables in pieces (the lead from the front, the workers from the back,
    # half of what is left and up to 64 tables a claim: 200 tables take claims of the cap, 70
    # several per worker), so who steps and writes which table changes from step to step; the
    # batch must not depend on it. One table's buffers start at 64 candidates, fewer than a
    # lead often has: the step that overflows them is copied after the region.
    # adapt_threads=False: every step runs on all the threads of the pool (an adapting env
    # runs most steps on one while it measures).
    envs = [gf.VecEnv(num_envs, seed=13, threads=t, adapt_threads=False) for t in (1, 2, 3, 4)]
    batches = [e.reset() for e in envs]
    rng = np.random.default_rng(6)
    most = 0
    for _ in range(150):
        for b in batches[1:]:
            for f in b._fields:
                x, y = getattr(batches[0], f), getattr(b, f)
                assert (x is None and y is None) or np.array_equal(x, y), f
        most = max(most, int(np.diff(batches[0].cand_offsets).max()))
        ids, _ = random_choice(batches[0], rng)
        for e in envs:
            e.step(ids)
        res = [e.drain_results() for e in envs]
        assert all(np.array_equal(res[0][k], r[k]) for r in res[1:] for k in res[0])
        batches = [e.pending() for e in envs]
    assert most > 64                    # the growth path ran


def test_actions_of_any_integer_dtype_and_layout_step_the_same():
    kinds = [np.int64, np.int32, np.uint16, np.int16, "strided", "list"]
    envs = [gf.VecEnv(5, seed=2, threads=2) for _ in kinds]
    batches = [e.reset() for e in envs]
    rng = np.random.default_rng(8)
    for _ in range(60):
        ids, _ = random_choice(batches[0], rng)
        for e, kind in zip(envs, kinds):
            if kind == "strided":
                a = np.repeat(ids.astype(np.int64), 2)[::2]
                assert not a.flags.c_contiguous
            elif kind == "list":
                a = ids.tolist()
            else:
                a = ids.astype(kind)
            e.step(a)
        batches = [e.pending() for e in envs]
        for b in batches[1:]:
            assert np.array_equal(b.obs, batches[0].obs)
            assert np.array_equal(b.cand_ids, batches[0].cand_ids)
    with pytest.raises(TypeError, match="integer array"):
        envs[0].step(np.ones(5, dtype=bool))
    with pytest.raises(ValueError, match="shape"):
        envs[0].step(np.zeros((5, 1), dtype=np.int64))


@pytest.mark.parametrize("threads", [1, 2])
def test_bad_action_at_any_table_moves_no_table(threads):
    # The threads claim the checks in pieces from both ends; a bad action in any piece (the
    # first table, the last, both) must stop the step before any table moves, and report
    # the first bad table. adapt_threads=False: every step on all the threads.
    n = 8
    env = gf.VecEnv(n, seed=17, threads=threads, adapt_threads=False)
    twin = gf.VecEnv(n, seed=17, threads=1)
    b, tb = env.reset(), twin.reset()
    rng = np.random.default_rng(9)
    for _ in range(40):
        ids, _ = random_choice(b, rng)
        for bad_tables in ([0], [n - 1], [n - 1, 2]):
            bad = ids.copy()
            bad[bad_tables] = 501
            with pytest.raises(ValueError, match=rf"actions\[{min(bad_tables)}\] = 501"):
                env.step(bad)
        env.step(ids)
        twin.step(ids)
        b, tb = env.pending(), twin.pending()
        assert np.array_equal(b.obs, tb.obs) and np.array_equal(b.cand_ids, tb.cand_ids)
        r1, r2 = env.drain_results(), twin.drain_results()
        assert all(np.array_equal(r1[k], r2[k]) for k in r1)


def test_results_accumulate_until_drained():
    # Results stay in the env's buffer across steps until drain_results. Before a step the
    # buffer is grown to hold 4 more per table than it has: with results pending it grows.
    a, b = gf.VecEnv(16, seed=23, threads=2), gf.VecEnv(16, seed=23, threads=2)
    ba = a.reset()
    b.reset()
    rng = np.random.default_rng(10)
    per_step = []
    for _ in range(300):
        ids, _ = random_choice(ba, rng)
        a.step(ids)
        b.step(ids)
        ba = a.pending()
        b.pending()
        per_step.append(b.drain_results())
    whole = a.drain_results()
    assert len(whole["env_id"]) > 20
    for k in whole:
        assert np.array_equal(whole[k], np.concatenate([r[k] for r in per_step])), k
        assert whole[k].flags.c_contiguous
    empty = a.drain_results()
    assert {k: (v.shape, v.dtype) for k, v in empty.items()} == \
        {k: ((0,) + v.shape[1:], v.dtype) for k, v in whole.items()}


def test_last_region_seconds_times_the_compiled_step():
    # bench/bench_vecenv.py --split reads it: the wall time of the last step's region, a
    # part of the step call's own wall time.
    import time
    env = gf.VecEnv(64, seed=1, threads=2)
    b = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(5):
        a = random_choice(b, rng)[0]
        t = time.perf_counter()
        env.step(a)
        wall = time.perf_counter() - t
        assert 0 < env._last_region_seconds <= wall
        b = env.pending()


def test_adapting_thread_count_changes_nothing_but_speed():
    """With adapt_threads (the default) a 2-thread env probes 1 thread now and then and may
    switch (docs/learning.md, "Threads"): over 300 steps (several probes) its batches and
    results equal those of a 2-thread env that never adapts."""
    envs = [gf.VecEnv(16, seed=4, threads=2, adapt_threads=a) for a in (True, False)]
    assert envs[1].threads_in_use == 2 and envs[0].threads_in_use in (1, 2)
    batches = [e.reset() for e in envs]
    rng = np.random.default_rng(5)
    seen = set()
    for _ in range(300):
        for f in ("obs", "mask", "cand_offsets", "cand_ids", "seat"):
            assert np.array_equal(getattr(batches[0], f), getattr(batches[1], f)), f
        ids, _ = random_choice(batches[0], rng)
        for e in envs:
            e.step(ids)
        seen.add(envs[0].threads_in_use)
        r1, r2 = (e.drain_results() for e in envs)
        assert all(np.array_equal(r1[k], r2[k]) for k in r1)
        batches = [e.pending() for e in envs]
    assert seen <= {1, 2} and envs[1].threads_in_use == 2
    assert gf.VecEnv(4, seed=1, threads=1).threads_in_use == 1
    with pytest.raises(TypeError, match="adapt_threads must be a bool"):
        gf.VecEnv(4, seed=1, threads=2, adapt_threads=1)
    assert envs[0].fork(0, 2).threads_in_use in (1, 2)


def test_workers_that_nap_through_a_callers_long_gaps_step_the_same():
    """A caller whose gaps between steps are long and regular (a learner's network: here a
    0.6 ms sleep) has the workers nap through most of each gap and spin through the rest;
    a step that comes early or late wakes them all the same (every 7th gap is short, every
    11th long), and the batches are those of one thread."""
    import time
    envs = [gf.VecEnv(64, seed=31, threads=t, adapt_threads=False) for t in (2, 1)]
    batches = [e.reset() for e in envs]
    rng = np.random.default_rng(3)
    for k in range(80):
        ids, _ = random_choice(batches[1], rng)
        time.sleep(0.00005 if k % 7 == 6 else 0.002 if k % 11 == 10 else 0.0006)
        for e in envs:
            e.step(ids)
        batches = [e.pending() for e in envs]
        for f in batches[0]._fields:
            x, y = getattr(batches[0], f), getattr(batches[1], f)
            assert (x is None and y is None) or np.array_equal(x, y), f
    res = [e.drain_results() for e in envs]
    assert all(np.array_equal(res[0][k], res[1][k]) for k in res[0])


def test_threads_work_in_a_forked_child():
    """A fork child has none of its parent's threads: an env whose workers ran in the parent
    starts its own in the child and steps on as a one-thread env does."""
    import os
    envs = [gf.VecEnv(8, seed=3, threads=t, adapt_threads=False) for t in (2, 1)]
    batches = [e.reset() for e in envs]
    rng = np.random.default_rng(1)
    for _ in range(5):                       # the parent's workers run
        ids, _ = random_choice(batches[1], rng)
        for e in envs:
            e.step(ids)
        batches = [e.pending() for e in envs]
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:                             # the child: 30 more steps on both
        ok = 0
        try:
            for _ in range(30):
                ids, _ = random_choice(batches[1], rng)
                for e in envs:
                    e.step(ids)
                batches = [e.pending() for e in envs]
            ok = int(all(np.array_equal(getattr(batches[0], f), getattr(batches[1], f))
                         for f in ("obs", "mask", "cand_offsets", "cand_ids")))
        finally:
            os.write(w, bytes([ok + 48]))
            os._exit(0)
    os.close(w)
    got = os.read(r, 1)
    os.waitpid(pid, 0)
    os.close(r)
    assert got == b"1"
    ids, _ = random_choice(batches[1], rng)   # the parent's threads still run
    for e in envs:
        e.step(ids)
    assert np.array_equal(envs[0].pending().obs, envs[1].pending().obs)


@pytest.mark.parametrize("kw", [dict(), dict(learners=(1,), opponents="random"),
                                dict(encoder="danzero", action_mode="candidates")])
def test_auto_pass_skips_exactly_the_forced_passes(kw):
    """auto_pass=True: a learner whose only legal action is PASS passes inside the step. The
    env then returns exactly the other decisions of a plain env whose learner passes when
    forced (same rows, same order), with the same hand results."""
    assert A.action_name(0) == "PASS"
    auto = gf.VecEnv(1, seed=31, auto_pass=True, **kw)
    plain = gf.VecEnv(1, seed=31, **kw)
    assert "auto_pass=True" in repr(auto)
    cand = kw.get("action_mode") == "candidates"
    ba, bp = auto.reset(), plain.reset()
    rng = np.random.default_rng(2)
    skipped = 0
    res_a, res_p = [], []
    for _ in range(1500):
        forced = bp.phase[0] == 2 and bp.cand_offsets[1] == 1 and bp.cand_ids[0] == 0
        if forced:
            plain.step(np.zeros(1, np.int64))
            skipped += 1
        else:
            for f in ("obs", "cand_offsets", "cand_ids", "cand_words", "seat", "phase"):
                assert np.array_equal(getattr(ba, f), getattr(bp, f)), f
            if cand:
                assert np.array_equal(ba.cand_cards, bp.cand_cards)
            else:
                assert np.array_equal(ba.mask, bp.mask)
            ids, local = random_choice(bp, rng)
            a = local if cand else ids
            auto.step(a)
            plain.step(a)
            ba = auto.pending()
            res_a.append(auto.drain_results())
        bp = plain.pending()
        res_p.append(plain.drain_results())
        # the auto env never returns a forced pass
        assert not (ba.phase[0] == 2 and ba.cand_offsets[1] == 1 and ba.cand_ids[0] == 0)
    assert skipped > 200
    cat = {k: np.concatenate([r[k] for r in res_a]) for k in res_a[0]}
    cat_p = {k: np.concatenate([r[k] for r in res_p]) for k in res_p[0]}
    n = len(cat["env_id"])
    assert n > 3
    for k in cat:                        # the plain env may be mid-way into a further hand
        assert np.array_equal(cat[k], cat_p[k][:n]), k
    with pytest.raises(TypeError, match="auto_pass must be a bool"):
        gf.VecEnv(2, seed=1, auto_pass=1)
    assert "auto_pass=True" in repr(auto.fork(0, 2))


@pytest.mark.parametrize("encoder, mode", [("default", "abstract"), ("info", "candidates"),
                                           ("danzero", "candidates")])
def test_writing_into_a_batch_changes_no_later_batch(encoder, mode):
    # The encoders keep rows of their own between decisions (observe.pxd, Track) and write
    # every batch row whole: a caller that scribbles over the views (they are writeable)
    # gets the same later batches as one that does not.
    kw = dict(seed=21, encoder=encoder, action_mode=mode)
    clean, dirty = gf.VecEnv(8, **kw), gf.VecEnv(8, **kw)
    a, b = clean.reset(), dirty.reset()
    rng = np.random.default_rng(2)
    for _ in range(300):
        for x, y in zip(a, b):
            if x is None:
                assert y is None
            else:
                assert (x == y).all()
        ids, local = random_choice(a, rng)
        act = local if mode == "candidates" else ids
        for name, arr in zip(b._fields, b):
            if arr is not None:
                arr[...] = 7
        clean.step(act)
        dirty.step(act)
        a, b = clean.pending(), dirty.pending()
        ra, rb = clean.drain_results(), dirty.drain_results()
        assert all((ra[k] == rb[k]).all() for k in ra)


@pytest.mark.parametrize("kw, words", [
    (dict(num_envs=2 ** 31), "num_envs must be at most 16777216"),
    (dict(num_envs=10 ** 12), "num_envs must be at most 16777216"),
    (dict(num_envs=4, threads=10 ** 6), "threads must be at most 1024"),
])
def test_sizes_beyond_the_limits_are_refused_by_name(kw, words):
    """Not an OverflowError from C, nor an attempt at 10**6 threads: the argument named."""
    n = kw.pop("num_envs")
    with pytest.raises(ValueError, match=words):
        gf.VecEnv(n, seed=1, **kw)

"""Observation encoders (``guandan_fast.observe``, docs/learning.md section 2).

* the default tensor decoded slice by slice equals the same facts read plainly from
  ``Game.observation(p)``, ``Game.hand`` and ``Game.history``;
* the information state's history tokens are the hand's last moves;
* DanZero's state against a plain Python rendering of its fields;
* no leak: states that differ only in cards ``p`` cannot know give identical tensors for
  ``p`` (a hypothesis property test over constructed deals and random continuations).
"""

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import guandan_fast as gf
from guandan_fast import observe as O
from guandan_fast.cards import KIND_OF
from guandan_fast.moves import TYPE_CODE, rank_code


def sl(x, name, layout=O.OBS_LAYOUT):
    a, b = O.span(name, layout)
    return x[a:b]


def counts54(cards):
    v = np.zeros(54, dtype=np.float32)
    for c in cards:
        v[KIND_OF[c]] += 1
    return v


def states(n_games, every, seed=0, rules=gf.Rules()):
    rng = random.Random(seed)
    for i in range(n_games):
        g = gf.Game(seed=500 + i, rules=rules)
        steps = 0
        while not g.is_over and steps < 2500:
            if steps % every == 0 or g.phase != "play":
                yield g
            g.play_index(rng.randrange(g.num_legal()))
            steps += 1
        yield g


def test_sizes_and_layouts():
    assert O.OBS_SIZE == sum(n for _, n in O.OBS_LAYOUT.values()) == 536
    assert O.INFO_SIZE == O.OBS_SIZE + 16 * 59
    assert O.DZ_STATE_SIZE == sum(n for _, n in O.DZ_LAYOUT.values()) == 513
    for layout, size in ((O.OBS_LAYOUT, O.OBS_SIZE), (O.DZ_LAYOUT, O.DZ_STATE_SIZE)):
        pos = 0
        for off, n in sorted(layout.values()):
            assert off == pos
            pos += n
        assert pos == size


def test_observation_tensor_matches_the_plain_observation():
    seen_phases = Counter()
    for g in states(6, 29):
        for p in range(4):
            x = g.observation_tensor(p)
            ob = g.observation(p)
            rel = [(p + r) % 4 for r in range(4)]
            seen_phases[ob["phase"]] += 1
            assert (sl(x, "hand") == counts54(ob["hand"])).all()
            played = {q: [] for q in range(4)}
            for seat, m in ob["plays"]:
                played[seat].extend(m.cards)
            for r, q in enumerate(rel):
                assert (sl(x, "played")[54 * r:54 * r + 54] == counts54(played[q])).all()
                assert sl(x, "cards_left")[r] == len(g.hand(q))
            top = ob["top"]
            if top is None:
                assert sl(x, "top_cards").sum() == 0 and sl(x, "top_type")[0] == 1
                assert sl(x, "top_seat").sum() == 0
            else:
                seat, m = top
                assert (sl(x, "top_cards") == counts54(m.cards)).all()
                assert sl(x, "top_type").argmax() == TYPE_CODE[m.type]
                assert sl(x, "top_rank").argmax() == rank_code(m.type, m.rank)
                assert sl(x, "top_seat").argmax() == rel.index(seat)
            assert sl(x, "level").argmax() == ob["level"] - 2
            tl = sl(x, "team_levels")
            assert tl[:13].argmax() == ob["levels"][p % 2] - 2
            assert tl[13:].argmax() == ob["levels"][1 - p % 2] - 2
            d = ob["declarer"]
            assert sl(x, "declarer").argmax() == (2 if d is None else 0 if d == p % 2 else 1)
            assert sl(x, "phase").argmax() == ("tribute", "back", "play", "over").index(ob["phase"])
            cur = ob["current_player"]
            assert sl(x, "to_act").tolist() == [float(cur is not None and rel.index(cur) == r)
                                                 for r in range(4)]
            fin = sl(x, "finish").reshape(4, 4)
            for place, seat in enumerate(ob["finish_order"]):
                assert fin[rel.index(seat), place] == 1
            assert fin.sum() == len(ob["finish_order"])
            given, got = [], []
            for payer, receiver, card in ob["tribute"]:
                if card is not None and payer == p:
                    given.append(card)
                if card is not None and receiver == p:
                    got.append(card)
            for receiver, payer, card in ob["back"]:
                if card is not None and receiver == p:
                    given.append(card)
                if card is not None and payer == p:
                    got.append(card)
            assert (sl(x, "exch_given") == counts54(given)).all()
            assert (sl(x, "exch_received") == counts54(got)).all()
            assert sl(x, "exch_role")[2] == ob["anti_tribute"]
    assert {"tribute", "back", "play", "over"} <= set(seen_phases)


def test_information_state_history_tokens():
    for g in states(3, 41, seed=2):
        if g.is_over:
            continue
        p = g.current_player
        x = g.information_state_tensor()
        assert (x[:O.OBS_SIZE] == g.observation_tensor()).all()
        plays = [(s, m) for s, m in g.history if m.type not in ("tribute", "back")]
        tokens = x[O.OBS_SIZE:].reshape(16, 59)
        for i in range(16):
            if i >= len(plays):
                assert not tokens[i].any()
                continue
            seat, m = plays[-1 - i]
            assert tokens[i, :4].argmax() == (seat - p) % 4 and tokens[i, :4].sum() == 1
            assert tokens[i, 4] == (m.type == "PASS")
            assert (tokens[i, 5:] == counts54(m.cards)).all()


# -- DanZero, written plainly from its published field list -----------------------------------

def dz_vec(cards):
    v = np.zeros(54, dtype=np.float32)
    for c in cards:
        v[O.danzero_index(c)] += 1
    return v


def test_danzero_card_order():
    assert [O.danzero_index(c) for c in ("H2", "S2", "C2", "D2", "H3", "DA", "SB", "HR")] == \
        [0, 1, 2, 3, 4, 51, 52, 53]


def plain_wild_flags(h, level):
    res = np.zeros(12, dtype=np.float32)
    wild = (level - 2) * 4
    if h[wild] == 0:
        return res
    res[0] = 1
    held = lambda i: i != wild and h[i] != 0
    res[1] = any(sum(not held(s + 4 * j) for j in range(a, a + 5)) <= 1
                 for s in range(4) for a in range(8))
    nc = [sum(held(s + 4 * j) for s in range(4)) for j in range(13)]
    res[max(2, 8 - max(nc) if max(nc) > 1 else 7):8] = 1
    run = 0
    for i in range(13):
        if nc[i]:
            run += 1
        else:
            run = 0
        if nc[i] and i >= 1:
            a, b = nc[i - 1], nc[i]
            if (b == 2 and a >= 3) or (b >= 3 and a == 2):
                res[9] = 1
            elif a == 2 and b == 2:
                res[11] = 1
        if nc[i] and i >= 2:
            a, b, c = nc[i - 2], nc[i - 1], nc[i]
            if (a == 1 and b >= 2 and c >= 2) or (a >= 2 and b == 1 and c >= 2) or \
                    (a >= 2 and b >= 2 and c == 1):
                res[10] = 1
    res[8] = run >= 4
    return res


def plain_danzero(g, p):
    hand = g.hand(p)
    plays = [(s, m) for s, m in g.history if m.type not in ("tribute", "back")]
    played = {q: [c for s, m in plays if s == q for c in m.cards] for q in range(4)}
    own = dz_vec(hand)
    unseen = 2 - own - dz_vec([c for q in range(4) for c in played[q]])
    last = dz_vec(plays[-1][1].cards) if plays else -np.ones(54, np.float32)
    partner = (p + 2) % 4
    pl = [m for s, m in plays if s == partner]
    plast = dz_vec(pl[-1].cards) if pl and partner not in g.finish_order else -np.ones(54, np.float32)
    rel = [(p + r) % 4 for r in (1, 2, 3)]
    left = []
    for q in rel:
        v = np.zeros(28, np.float32)
        v[min(27, len(g.hand(q)))] = 1   # 28 while holding a tribute
        left.append(v)
    lv = lambda L: np.eye(13, dtype=np.float32)[L - 2]
    return np.concatenate([own, plain_wild_flags(own, g.level), unseen, last, plast]
                          + [dz_vec(played[q]) for q in rel] + left
                          + [lv(g.levels[p % 2]), lv(g.levels[1 - p % 2]), lv(g.level)])


def test_danzero_state_matches_plain_rendering():
    n = 0
    for g in states(5, 17, seed=4):
        for p in range(4):
            got = O.danzero_state(g, p)
            want = plain_danzero(g, p)
            assert got.shape == (513,)
            assert (got == want).all(), [k for k, (o, s) in O.DZ_LAYOUT.items()
                                         if (got[o:o + s] != want[o:o + s]).any()]
            n += 1
    assert n > 100
    # Wild flags on constructed hands (level 2: H2 is wild).
    h = dz_vec("H2 S3 S4 S5 S6 C9 C9 D9 D9 S9 DT DT ST".split())
    assert (O.danzero_state(gf.Game(seed=0), 0)[54:66] == plain_wild_flags(
        dz_vec(gf.Game(seed=0).hand(0)), 2)).all()
    assert plain_wild_flags(h, 2)[[0, 1]].tolist() == [1, 1]


def test_danzero_actions_rows():
    g = gf.Game(seed=1)
    w = g.legal_moves_array()
    rows = O.danzero_actions(w)
    for i, m in enumerate(g.legal_moves()):
        assert (rows[i] == dz_vec(m.cards)).all()


# -- no leak ------------------------------------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 150), p=st.integers(0, 3),
       swaps=st.integers(1, 6), tribute=st.booleans())
@example(seed=167866, steps=0, p=0, swaps=2, tribute=True)   # a big joker would move
def test_no_hidden_information_leaks(seed, steps, p, swaps, tribute):
    """Swap cards between the two other hands that ``p`` cannot see (kept out of every move
    made), replay the same moves: every tensor of ``p`` is unchanged."""
    rng = random.Random(seed)
    deck = list(gf.cards.FULL_DECK)
    rng.shuffle(deck)
    hands = [deck[27 * i:27 * i + 27] for i in range(4)]
    kw = dict(previous_finish=[(p + 1) % 4, p, (p + 3) % 4, (p + 2) % 4]) if tribute else \
        dict(leader=rng.randrange(4))
    a = gf.Game.setup(hands, seed=seed, **kw)
    moves = []
    for _ in range(steps):
        if a.is_over or a.hand_number > 0:
            break
        m = a.legal_moves()[rng.randrange(a.num_legal())]
        moves.append(m)
        a.play(m)
    if a.hand_number > 0:
        return
    used = Counter(c for m in moves for c in m.cards)
    q1, q2 = [q for q in range(4) if q != p][:2] if rng.random() < 0.5 else \
        [q for q in range(4) if q != p][1:]
    h1, h2 = list(hands[q1]), list(hands[q2])
    # With a tribute the big jokers are not hidden: the payers' two big jokers make an
    # anti-tribute, which everyone sees (moving one would change the public past).
    shown = {gf.cards.JOKERS[1]} if tribute else set()
    for _ in range(swaps):
        c1 = [c for c in h1 if not used[c] and c not in h2 and c not in shown]
        c2 = [c for c in h2 if not used[c] and c not in h1 and c not in shown]
        if not c1 or not c2:
            break
        x, y = rng.choice(c1), rng.choice(c2)
        h1[h1.index(x)] = y
        h2[h2.index(y)] = x
    hands2 = list(hands)
    hands2[q1], hands2[q2] = h1, h2
    b = gf.Game.setup(hands2, seed=seed, **kw)
    try:
        for m in moves:
            b.play(m)
    except gf.IllegalMoveError:
        return          # the swap changed what a tribute had to be: not the same public past
    assert a.hand(p) == b.hand(p)
    assert (a.observation_tensor(p) == b.observation_tensor(p)).all()
    assert (a.information_state_tensor(p) == b.information_state_tensor(p)).all()
    assert (O.danzero_state(a, p) == O.danzero_state(b, p)).all()


def test_bad_input():
    g = gf.Game(seed=0)
    with pytest.raises(ValueError, match="p must be 0..3"):
        g.observation_tensor(4)
    with pytest.raises(TypeError, match="p must be an int"):
        g.observation_tensor("0")
    with pytest.raises(ValueError, match="out must be a writeable C-contiguous float32"):
        g.observation_tensor(0, out=np.zeros(536, dtype=np.float64))
    with pytest.raises(ValueError, match="out must be"):
        O.danzero_state(g, 0, out=np.zeros(512, dtype=np.float32))
    out = np.full(536, 7, dtype=np.float32)
    assert g.observation_tensor(0, out=out) is out and (out == g.observation_tensor(0)).all()
    with pytest.raises(ValueError, match="words must have shape"):
        O.danzero_actions(np.zeros(3, dtype=np.uint64))


@pytest.mark.parametrize("words", [
    [[0b11, 0]],                      # a count of 3 in lo (kind 0)
    [[0, 0b11 << 20]],                # a count of 3 in hi
    [[1 << 52, 0]],                   # beyond lo's 26 kinds
    [[0b01, 0], [0b11 << 2, 0]],      # the second row bad: named
])
def test_danzero_actions_refuses_words_that_hold_no_card_multiset(words):
    bad = len(words) - 1
    with pytest.raises(ValueError, match=rf"words\[{bad}\] = .* hold no card multiset"):
        O.danzero_actions(np.array(words, dtype=np.uint64))


def test_danzero_actions_refuses_what_is_not_uint64_words():
    with pytest.raises(TypeError, match="unsigned 64-bit integers"):
        O.danzero_actions([[-1, 0]])
    with pytest.raises(TypeError, match="unsigned 64-bit integers"):
        O.danzero_actions("x")
    # a move's type bits above hi's cards are not cards: legal words pass
    g = gf.Game(seed=0)
    assert O.danzero_actions(g.legal_moves_array()).shape == (len(g.legal_moves()), 54)


def _batches(encoder, steps=120):
    env = gf.VecEnv(32, seed=5, encoder=encoder, action_mode="candidates")
    b = env.reset()
    rng = np.random.default_rng(2)
    out = []
    for _ in range(steps):
        counts = np.diff(b.cand_offsets)
        env.step((rng.random(len(counts)) * counts).astype(np.int64))
        b = env.pending()
        out.append([None if a is None else np.array(a) for a in b])
    return out


def _encodings(n_games=3):
    rows = []
    for g in states(n_games, 7, seed=11):
        p = g.current_player if not g.is_over else 0
        rows.append((O.observation_tensor(g, p), O.information_state_tensor(g, p),
                     O.danzero_state(g, p), O.danzero_actions(g.legal_moves_array())))
    return rows


@pytest.mark.parametrize("encoder", ["default", "danzero", "info"])
def test_plain_paths_write_what_the_simd_paths_write(encoder):
    # The AVX2 shuffles (candidate rows, the Track's rows, the top) and the plain C loops
    # they replace must agree byte for byte, batch after batch (the Track is kept by one
    # path or the other through whole hands).
    simd = _batches(encoder)
    was = O.use_simd(False)
    try:
        plain = _batches(encoder)
        plain_api = _encodings() if encoder == "default" else None
    finally:
        O.use_simd(was)
    assert len(simd) == len(plain)
    for a, b in zip(simd, plain):
        for x, y in zip(a, b):
            assert (x is None) == (y is None)
            if x is not None:
                assert x.dtype == y.dtype and x.shape == y.shape
                assert x.tobytes() == y.tobytes()
    if plain_api is not None:
        for r1, r2 in zip(_encodings(), plain_api):
            for x, y in zip(r1, r2):
                assert x.tobytes() == y.tobytes()


def test_use_simd_refuses_what_is_not_a_bool():
    with pytest.raises(TypeError, match="enabled must be a bool"):
        O.use_simd(1)

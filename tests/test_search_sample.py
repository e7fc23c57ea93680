"""Determinization (sample.pyx): sample_world / infoset_key / known_cards.

The uniformity tests compare sampled deals with an exact enumeration of every assignment of the
unseen physical cards (a chi-square test); the information tests build two matches that seat
``p`` cannot tell apart (the other seats' unplayed cards permuted, the same moves replayed) and
require the same samples and keys.
"""

import itertools
import math
import random
from collections import Counter

import numpy as np
import pytest

import guandan_fast as gf
from guandan_fast.cards import FULL_DECK, KIND_OF
from guandan_fast.perft_core import random_playout
from guandan_fast.sample import known_cards, sample_world

from helpers import LONG, replay_with_permuted_hidden


def hidden(g, p):
    return tuple(tuple(sorted(g.hand(q))) if q != p else () for q in range(4))


def chi2_ok(observed: Counter, expected: dict, n: int) -> None:
    """Chi-square goodness of fit at p = 1e-4 (Wilson-Hilferty quantile): no unexpected
    outcome, every expected outcome weighted."""
    assert set(observed) <= set(expected), set(observed) - set(expected)
    stat = sum((observed.get(k, 0) - n * pk) ** 2 / (n * pk) for k, pk in expected.items())
    df = len(expected) - 1
    z = 3.719
    crit = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
    assert stat < crit, (stat, crit, df)


def exact_distribution(pool: list[str], slots: dict[int, int], pins: dict[int, list[str]]):
    """Probability of each (hand 1.., sorted) over all assignments of the physical cards of
    ``pool`` (pins removed) to the seats' free slots."""
    free = list(pool)
    for cards in pins.values():
        for c in cards:
            free.remove(c)
    seats = sorted(slots)
    counts = Counter()
    for perm in itertools.permutations(range(len(free))):
        i = 0
        hands = {}
        for q in seats:
            take = slots[q] - len(pins.get(q, []))
            hands[q] = tuple(sorted(pins.get(q, []) + [free[j] for j in perm[i:i + take]]))
            i += take
        counts[tuple(hands.get(q, ()) for q in range(4))] += 1
    total = sum(counts.values())
    return {k: v / total for k, v in counts.items()}


def small_game(small: list[list[str]], **kw):
    """Seat 0 holds the rest of the deck, seats 1..3 the small hands (seat 0 leads)."""
    big = Counter(FULL_DECK) - Counter(c for h in small for c in h)
    if "previous_finish" not in kw:
        kw["leader"] = 0
    return gf.Game.setup([sorted(big.elements())] + small, **kw)


def test_uniform_over_exact_enumeration():
    # Seats 1..3 hold 3, 3 and 2 cards, with duplicate kinds (the two copies are physical
    # cards: the deal is uniform over their assignments).
    g = small_game([["S3", "S3", "DK"], ["HQ", "C9", "C9"], ["SB", "D4"]])
    pool = [c for q in (1, 2, 3) for c in g.hand(q)]
    expected = exact_distribution(pool, {1: 3, 2: 3, 3: 2}, {})
    n = 20000
    observed = Counter(hidden(sample_world(g, 0, seed=s), 0) for s in range(n))
    chi2_ok(observed, expected, n)
    assert len(observed) == len(expected)      # every deal occurs


def exchange_game():
    # Seat 2 (4th last hand) pays seat 1 (1st) its highest card, seat 1 returns one; seat 0 (p)
    # then knows one card of each of them.
    g = small_game([["S3", "D8", "CJ"], ["S5", "HQ", "HK"], ["C4", "D6", "D6"]],
                   previous_finish=[1, 0, 3, 2])
    assert g.phase == "tribute"
    g.play(g.legal_moves()[0])                  # the tribute: HK from seat 2
    g.play(g.legal_moves()[0])                  # seat 1 returns its lowest allowed card
    assert g.phase == "play"
    return g


def test_exchange_cards_are_pinned_and_uniform_otherwise():
    g = exchange_game()
    hist = g.history
    trib, back = hist[0][1].cards[0], hist[1][1].cards[0]
    assert known_cards(g, 0) == ((), (trib,), (back,), ())
    # The seats that exchanged know the other's card too, nobody knows his own.
    assert known_cards(g, 1)[2] == (back,) and known_cards(g, 2)[1] == (trib,)
    pool = [c for q in (1, 2, 3) for c in g.hand(q)]
    expected = exact_distribution(pool, {q: len(g.hand(q)) for q in (1, 2, 3)},
                                  {1: [trib], 2: [back]})
    n = 20000
    observed = Counter(hidden(sample_world(g, 0, seed=s), 0) for s in range(n))
    chi2_ok(observed, expected, n)
    for h, _ in observed.items():
        assert trib in h[1] and back in h[2]


def test_a_payer_gets_nothing_above_his_tribute():
    # Seat 2 (4th) pays seat 1 its highest card, HQ: it held no A, so no sample gives it one
    # of the two unseen aces (the heart 2 is the wild at level 2 and stays possible). The
    # deal is uniform over the deals that respect this (exact enumeration, conditioned).
    g = small_game([["S3", "D8", "CA"], ["S5", "HQ", "C9"], ["C4", "D6", "DA"]],
                   previous_finish=[1, 0, 3, 2])
    g.play(g.legal_moves()[0])
    assert g.history[0][1].cards == ("HQ",)
    g.play(g.legal_moves()[0])
    back = g.history[1][1].cards[0]
    assert g.phase == "play"
    pool = [c for q in (1, 2, 3) for c in g.hand(q)]
    unconstrained = exact_distribution(pool, {q: len(g.hand(q)) for q in (1, 2, 3)},
                                       {1: ["HQ"], 2: [back]})
    allowed = {k: v for k, v in unconstrained.items() if not any(c[1] == "A" for c in k[2])}
    total = sum(allowed.values())
    assert 0 < total < 1
    expected = {k: v / total for k, v in allowed.items()}
    n = 20000
    observed = Counter(hidden(sample_world(g, 0, seed=s), 0) for s in range(n))
    chi2_ok(observed, expected, n)
    assert len(observed) == len(expected)


def test_pin_released_when_the_kind_is_played():
    g = exchange_game()
    trib = g.history[0][1].cards[0]
    # Play on until seat 1 plays a single of the tribute's kind (others pass or lead low).
    while g.current_player != 1 or not any(m.cards == (trib,) for m in g.legal_moves()):
        moves = g.legal_moves()
        g.play(moves[-1] if gf.PASS in moves else moves[0])
        assert g.phase == "play"
    g.play(next(m for m in g.legal_moves() if m.cards == (trib,)))
    assert known_cards(g, 0)[1] == ()


@pytest.mark.parametrize("seed", range(6))
def test_indistinguishable_states_give_the_same_sample_and_key(seed):
    p = seed % 4
    a, b, _ = replay_with_permuted_hidden(seed, steps=20 + 7 * seed, p=p)
    assert a.hand(p) == b.hand(p)
    assert [a.hand(q) for q in range(4)] != [b.hand(q) for q in range(4)]
    assert a.infoset_key(p) == b.infoset_key(p)
    for s in range(5):
        wa, wb = a.sample_world(p, seed=s), b.sample_world(p, seed=s)
        assert wa.state_bytes() == wb.state_bytes()
    assert a.sample_world(p, seed=0).state_bytes() != a.sample_world(p, seed=1).state_bytes()
    # Another seat sees the difference: its own hand differs.
    q = next(q for q in range(4) if q != p and a.hand(q) != b.hand(q))
    assert a.infoset_key(q) != b.infoset_key(q)


def test_infoset_key_separates_what_p_can_tell_apart():
    g = gf.Game(seed=11)
    keys = {g.infoset_key(p) for p in range(4)}
    assert len(keys) == 4
    moves = g.legal_moves()
    k0 = g.infoset_key(1)
    # Different public plays: different keys for everyone.
    x, y = g.clone(), g.clone()
    x.play(moves[0])
    y.play(moves[1])
    assert x.infoset_key(1) != y.infoset_key(1) and x.infoset_key(1) != k0
    assert gf.Game(seed=12).infoset_key(1) != k0          # another own hand
    assert g.clone().infoset_key(1) == k0


@pytest.mark.parametrize("seed", range(4 if not LONG else 40))
def test_samples_are_legal_states_that_play_to_the_end(seed):
    rnd = random.Random(seed)
    g = gf.Game(seed=seed)
    checked = 0
    while checked < 12 and not g.is_over:
        moves = g.legal_moves(compact=True)
        g.play(moves[rnd.randrange(len(moves))])
        if g.phase not in ("play", "back") or rnd.random() < 0.9:
            continue
        p = rnd.randrange(4)
        w = g.sample_world(p, seed=rnd.randrange(1 << 30))
        assert w.hand(p) == g.hand(p)
        assert [len(w.hand(q)) for q in range(4)] == [len(g.hand(q)) for q in range(4)]
        assert (sorted(c for q in range(4) for c in w.hand(q))
                == sorted(c for q in range(4) for c in g.hand(q)))
        for q, cards in enumerate(known_cards(g, p)):
            assert not (Counter(cards) - Counter(w.hand(q)))
        assert w.history == g.history and w.current_player == g.current_player
        steps, winner = random_playout(w, 10**6, seed=seed)
        assert winner in (0, 1)
        checked += 1
    assert checked > 0


def test_weighted_sampling():
    g = small_game([["S3", "S3", "DK"], ["HQ", "C9", "C9"], ["SB", "D4"]])
    # Equal weights: the uniform distribution.
    ones = np.ones((54, 4))
    pool = [c for q in (1, 2, 3) for c in g.hand(q)]
    expected = exact_distribution(pool, {1: 3, 2: 3, 3: 2}, {})
    n = 20000
    observed = Counter(hidden(sample_world(g, 0, seed=s, weights=ones), 0) for s in range(n))
    chi2_ok(observed, expected, n)
    # A zero weight keeps a card away from a seat; a heavy one pulls it there.
    w = np.ones((54, 4))
    w[KIND_OF["SB"], 1] = 0.0
    w[KIND_OF["SB"], 2] = 0.0
    w[KIND_OF["DK"], 1] = 50.0
    hands = [sample_world(g, 0, seed=s, weights=w) for s in range(300)]
    assert all("SB" in h.hand(3) for h in hands)
    assert sum("DK" in h.hand(1) for h in hands) > 250
    w0 = np.zeros((54, 4))
    with pytest.raises(ValueError, match="positive weight"):
        sample_world(g, 0, weights=w0)
    with pytest.raises(ValueError, match=r"shape \(54, 4\)"):
        sample_world(g, 0, weights=np.ones((4, 54)))
    with pytest.raises(ValueError, match="finite and >= 0"):
        sample_world(g, 0, weights=-ones)


def test_bad_input_is_refused_and_changes_nothing():
    g = small_game([["S3", "D8", "CJ"], ["S5", "HQ", "HK"], ["C4", "D6", "D6"]],
                   previous_finish=[1, 0, 3, 2])
    before = g.state_bytes()
    with pytest.raises(ValueError, match="play .or back. phase, not 'tribute'"):
        g.sample_world(0)
    with pytest.raises(TypeError, match="p .the observing seat. must be an int"):
        gf.Game(seed=1).sample_world("0")
    with pytest.raises(ValueError, match="must be 0..3, got 5"):
        gf.Game(seed=1).infoset_key(5)
    with pytest.raises(TypeError, match="seed must be an int"):
        gf.Game(seed=1).sample_world(0, seed=1.5)
    with pytest.raises(TypeError, match="game must be a guandan_fast.Game"):
        sample_world("game", 0)
    assert g.state_bytes() == before


# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Determinization: the hidden cards of a game redealt as one seat knows them.

``sample_world(game, p, seed)`` returns a copy of the game in which the cards seat ``p`` cannot
see are dealt again among the other seats, uniformly over the deals consistent with what ``p``
knows (docs/search.md): ``p``'s own hand, every public play (through the union of the other
hands, which is the deck minus ``p``'s hand and the cards played), each seat's card count, and
the exchange cards ``p`` saw (a card paid to a seat or returned to it stays pinned to that seat
until it plays a card of that kind). The future deals are redrawn too. The sample's state is a
function of ``p``'s information and ``seed`` only, so two states ``p`` cannot tell apart give
the same sample. The compiled entries (sample.pxd) are nogil and allocation-free.

>>> from guandan_fast.game import Game
>>> g = Game(seed=7)
>>> w = sample_world(g, 0, seed=1)
>>> w.hand(0) == g.hand(0), [len(w.hand(q)) for q in range(4)]
(True, [27, 27, 27, 27])
>>> sample_world(g, 0, seed=1).state_bytes() == w.state_bytes()
True
>>> infoset_key(g, 0) == infoset_key(g.clone(), 0) != infoset_key(g, 1)
True
"""
import hashlib
import math

from libc.string cimport memcpy, memset
from libc.stdint cimport uint8_t

from guandan_fast.types cimport (u64, Cards, LO_KINDS, LO_CARD_MASK, HI_CARD_MASK, T_PASS,
                                 T_TRIBUTE, kind_count, kind_add, move_type, card_count,
                                 single_value, wild_kind, __builtin_ctzll)
from guandan_fast.codec cimport codes_of
from guandan_fast.game_core cimport GameState, PH_BACK, PH_PLAY
from guandan_fast.game cimport game_state_ptr, game_with_state
from guandan_fast.rng cimport sm_next

import numpy as np

from guandan_fast import validate as _validate
from guandan_fast.validate import check_seat as _check_seat



cdef void played_track(Played* t, const GameState* s, u64 lo, u64 hi) noexcept nogil:
    cdef int q, ty
    if t.hand != s.hand_number:
        for q in range(4):
            t.cards[q].lo = 0
            t.cards[q].hi = 0
        t.hand = s.hand_number
    ty = move_type(hi)
    if ty == T_PASS or ty == T_TRIBUTE or s.current < 0:
        return
    # A play or a back move: counts stay <= 2 per kind (two copies exist), so words add.
    t.cards[s.current].lo += lo & LO_CARD_MASK
    t.cards[s.current].hi += hi & HI_CARD_MASK


cdef inline void pin_one(Cards* pins, const Played* t, bint tracked, int q, int k) noexcept nogil:
    if tracked and kind_count(t.cards[q].lo, t.cards[q].hi, k) > 0:
        return          # q gave a card of this kind away: it may have been the exchanged one
    kind_add(&pins[q], k, 1)


cdef void known_pins(const GameState* s, int p, const Played* t, Cards* pins) noexcept nogil:
    cdef int q, i, k
    cdef bint tracked = t != NULL and t.hand == s.hand_number
    cdef bint public
    for q in range(4):
        pins[q].lo = 0
        pins[q].hi = 0
    if s.phase != PH_PLAY and s.phase != PH_BACK:
        return
    # After the exchange every tribute and return is public; during the returns a card is
    # known to the two seats that exchanged it (docs/rules.md §10, Game.observation).
    public = s.phase == PH_PLAY
    for i in range(s.n_pay):
        k = s.trib_kind[i]
        q = s.receiver[i]
        if k >= 0 and q >= 0 and q != p and (public or p == s.payer[i]):
            pin_one(pins, t, tracked, q, k)
        k = s.back_kind[i]
        q = s.payer[i]
        if k >= 0 and q >= 0 and q != p and (public or p == s.receiver[i]):
            pin_one(pins, t, tracked, q, k)


cdef inline int fast_below(u64* rng, u64 n) noexcept nogil:
    """A draw in 0..n-1 (n < 2**32) by multiply-shift: no division on the hot path."""
    return <int>(((sm_next(rng) >> 32) * n) >> 32)


cdef inline int pool_deck(const GameState* s, int p, const Cards* pins, uint8_t* deck,
                          int* need) noexcept nogil:
    """The unseen physical cards (the union of the other hands minus the pins) into deck, in
    kind order; need[q]: free slots of each other seat. Returns the card count or -1."""
    cdef u64 lo = 0, hi = 0, w, word
    cdef int q, k, c, pc, m = 0, b, total = 0, half
    for q in range(4):
        need[q] = 0
        if q == p:
            continue
        lo += s.hand_lo[q] & LO_CARD_MASK
        hi += s.hand_hi[q] & HI_CARD_MASK
        need[q] = card_count(s.hand_lo[q], s.hand_hi[q]) - card_count(pins[q].lo, pins[q].hi)
        if need[q] < 0:
            return -1
        total += need[q]
    for half in range(2):          # the lo word's kinds, then the hi word's (kind order)
        word = lo if half == 0 else hi
        w = word
        while w:
            b = __builtin_ctzll(w) >> 1
            k = b + (LO_KINDS if half else 0)
            w &= ~((<u64>3) << (2 * b))
            c = <int>((word >> (2 * b)) & 3)
            for q in range(4):
                if q != p:
                    c -= kind_count(pins[q].lo, pins[q].hi, k)
            if c < 0:
                return -1
            while c > 0:
                deck[m] = <uint8_t>k
                m += 1
                c -= 1
    if m != total:
        return -1
    return m


cdef int tribute_limits(const GameState* s, int p, int* limit) noexcept nogil:
    """What the tributes tell p (docs/rules.md §9): a payer paid his highest card but the
    wilds, so he held no other card above it, and since then he received only the returned
    card (pinned while he holds it). limit[q]: the highest single-order value seat q may hold
    among the unseen non-wild cards (99: no limit). Returns the number of limited seats."""
    cdef int i, q, k, v, n = 0
    for q in range(4):
        limit[q] = 99
    for i in range(s.n_pay):
        q = s.payer[i]
        k = s.trib_kind[i]
        if q < 0 or k < 0 or q == p:
            continue
        # Known to p once the exchange is over, or as the receiver during the returns.
        if s.phase != PH_PLAY and not (s.phase == PH_BACK and p == s.receiver[i]):
            continue
        v = single_value(k, s.level)
        if v < limit[q]:
            if limit[q] == 99:
                n += 1
            limit[q] = v
    return n


cdef int deal_limited(const GameState* s, int p, const int* limit, uint8_t* deck, int m,
                      int* need, u64* rng, Cards* h) noexcept nogil:
    """Deal deck[0..m) to the free places need[q] of the other seats, uniformly over the
    assignments that respect the limits. A card a limited seat may not hold goes first, to a
    uniformly drawn free place among the seats that may hold it, the most restricted cards
    first. The seats allowed a card only grow with its value (a seat is excluded when the
    card is above its limit), so every earlier card's place lies inside every later card's
    choice: the number of choices at each step does not depend on the earlier draws, and so
    every valid assignment is equally likely. The other cards are then shuffled into the
    places left. Returns 0, or -1 when a card has no free place (inconsistent limits)."""
    cdef int i, j, q, r, k, v, rounds, allowed, total, wk = wild_kind(s.level)
    cdef int free_[4]
    cdef uint8_t tmp
    cdef int done[108]
    for q in range(4):
        free_[q] = need[q]
    for i in range(m):
        done[i] = 0
    # The cards one seat may hold, then those two seats may hold (the others: any seat).
    for rounds in range(1, 3):
        for i in range(m):
            if done[i]:
                continue
            k = deck[i]
            v = 0 if k == wk else single_value(k, s.level)
            allowed = 0
            total = 0
            for q in range(4):
                if q != p and v <= limit[q]:
                    allowed += 1
                    total += free_[q]
            if allowed != rounds:
                continue
            if total == 0:
                return -1
            r = fast_below(rng, <u64>total)
            q = 0
            while q == p or v > limit[q] or r >= free_[q]:
                if q != p and v <= limit[q]:
                    r -= free_[q]
                q += 1
            free_[q] -= 1
            kind_add(&h[q], k, 1)
            done[i] = 1
    # The rest: a partial Fisher-Yates shuffle deals the free places seat by seat.
    j = 0
    for i in range(m):
        if not done[i]:
            deck[j] = deck[i]
            j += 1
    m = j
    i = 0
    for q in range(4):
        if q == p:
            continue
        for j in range(free_[q]):
            r = i + fast_below(rng, <u64>(m - i))
            tmp = deck[r]
            deck[r] = deck[i]
            deck[i] = tmp
            kind_add(&h[q], tmp, 1)
            i += 1
    return 0


cdef int sample_deal(const GameState* s, int p, const Cards* pins, u64* rng,
                     GameState* out) noexcept nogil:
    cdef uint8_t deck[108]
    cdef int need[4]
    cdef int limit[4]
    cdef int m, q, j, i, r, last
    cdef uint8_t tmp
    cdef Cards h
    cdef Cards hs[4]
    m = pool_deck(s, p, pins, deck, need)
    if m < 0:
        return -1
    if tribute_limits(s, p, limit) > 0:
        for q in range(4):
            hs[q] = pins[q]
        if deal_limited(s, p, limit, deck, m, need, rng, hs) != 0:
            return -1
        if out != s:
            memcpy(out, s, sizeof(GameState))
        for q in range(4):
            if q != p:
                out.hand_lo[q] = hs[q].lo
                out.hand_hi[q] = hs[q].hi
        out.rng = sm_next(rng)
        return 0
    if out != s:
        memcpy(out, s, sizeof(GameState))
    # A partial Fisher-Yates shuffle deals need[q] uniformly drawn cards to each seat in turn;
    # the last seat takes what is left (no draws).
    i = 0
    last = 3 if p != 3 else 2
    for q in range(4):
        if q == p:
            continue
        h = pins[q]
        for j in range(need[q]):
            r = i if q == last else i + fast_below(rng, <u64>(m - i))
            tmp = deck[r]
            deck[r] = deck[i]
            deck[i] = tmp
            kind_add(&h, tmp, 1)
            i += 1
        out.hand_lo[q] = h.lo
        out.hand_hi[q] = h.hi
    out.rng = sm_next(rng)
    return 0


cdef inline double uniform01(u64* rng) noexcept nogil:
    return <double>(sm_next(rng) >> 11) * (1.0 / 9007199254740992.0)


cdef int sample_deal_weighted(const GameState* s, int p, const Cards* pins, const double* w,
                              u64* rng, GameState* out) noexcept nogil:
    cdef uint8_t deck[108]
    cdef int need[4]
    cdef int free_[4]
    cdef Cards h[4]
    cdef double part[4]
    cdef double total, u
    cdef int m, q, i, r, k, attempt
    cdef uint8_t tmp
    cdef bint ok
    m = pool_deck(s, p, pins, deck, need)
    if m < 0:
        return -1
    for attempt in range(64):
        for i in range(m - 1, 0, -1):
            r = fast_below(rng, <u64>(i + 1))
            tmp = deck[i]
            deck[i] = deck[r]
            deck[r] = tmp
        for q in range(4):
            free_[q] = need[q]
            h[q] = pins[q]
        ok = True
        for i in range(m):
            k = deck[i]
            total = 0.0
            for q in range(4):
                part[q] = 0.0
                if q != p and free_[q] > 0:
                    part[q] = w[4 * k + q] * free_[q]
                total += part[q]
            if not total > 0.0:
                ok = False
                break
            u = uniform01(rng) * total
            q = 0
            while q < 3 and (part[q] == 0.0 or u >= part[q]):
                u -= part[q]
                q += 1
            while part[q] == 0.0:        # rounding at the top end: the last seat with weight
                q -= 1
            free_[q] -= 1
            kind_add(&h[q], k, 1)
        if ok:
            if out != s:
                memcpy(out, s, sizeof(GameState))
            for q in range(4):
                if q != p:
                    out.hand_lo[q] = h[q].lo
                    out.hand_hi[q] = h[q].hi
            out.rng = sm_next(rng)
            return 0
    return -1


# ---------------------------------------------------------------------------------------------
# Python side

cdef int check_seat(object p) except -1:
    return _check_seat(p, "p (the observing seat)")


cdef u64 check_seed(object seed) except? 0:
    return <u64>(_validate.check_seed(seed) & 0xFFFFFFFFFFFFFFFF)


cdef int load_state(game, GameState* st) except -1:
    memcpy(st, game_state_ptr(game), sizeof(GameState))
    return 0


cdef int load_played(game, GameState* st, Played* t) except -1:
    """The tracker of the current hand, from the game's history."""
    memset(t, 0, sizeof(Played))
    t.hand = st.hand_number
    for seat, move in game.history:
        lo, hi = move.words
        ty = move_type(<u64>hi)
        if ty != T_PASS and ty != T_TRIBUTE:
            t.cards[seat].lo += <u64>lo & LO_CARD_MASK
            t.cards[seat].hi += <u64>hi & HI_CARD_MASK
    return 0


def known_cards(game, p):
    """The cards seat ``p`` knows each other seat holds now (exchange cards not given away
    since), as four tuples of card codes (``p``'s own entry is empty).

    >>> from guandan_fast.game import Game
    >>> known_cards(Game(seed=1), 0)
    ((), (), (), ())
    """
    cdef GameState st
    cdef Played t
    cdef Cards pins[4]
    check_seat(p)
    load_state(game, &st)
    load_played(game, &st, &t)
    known_pins(&st, p, &t, pins)
    return tuple(codes_of(pins[q].lo, pins[q].hi) for q in range(4))


def sample_world(game, p, seed=0, weights=None):
    """A copy of ``game`` with the cards seat ``p`` cannot see redealt (module docstring).

    ``weights``: optional belief, an array of shape ``(54, 4)`` (card kind in the order of
    ``guandan_fast.cards.CARD_CODES``, seat) of non-negative weights; a card then goes to a
    seat with probability proportional to weight x free slots, in a random card order (the
    default, equal weights, is the uniform redeal). The game must be in its ``play`` phase (or
    the returns of the exchange, ``back``). Raises ``ValueError`` when no deal has positive
    weight.

    >>> from guandan_fast.game import Game
    >>> sample_world(Game(seed=1), 4)
    Traceback (most recent call last):
    ...
    ValueError: p (the observing seat) must be 0..3, got 4
    """
    cdef GameState st, out
    cdef Played t
    cdef Cards pins[4]
    cdef u64 rng
    cdef int r
    cdef double[::1] wv
    check_seat(p)
    rng = check_seed(seed)
    load_state(game, &st)
    if st.phase != PH_PLAY and st.phase != PH_BACK:
        raise ValueError(f"sample_world needs a game in its play (or back) phase, not "
                         f"{('tribute', 'back', 'play', 'over')[st.phase]!r}")
    if weights is not None:
        arr = np.ascontiguousarray(weights, dtype=np.float64)
        if arr.shape != (54, 4):
            raise ValueError(f"weights must have shape (54, 4) (card kind, seat), got "
                             f"{arr.shape}")
        if not np.all(np.isfinite(arr)) or np.any(arr < 0):
            raise ValueError("weights must be finite and >= 0")
        wv = arr.reshape(-1)
    load_played(game, &st, &t)
    known_pins(&st, p, &t, pins)
    if weights is None:
        r = sample_deal(&st, p, pins, &rng, &out)
    else:
        r = sample_deal_weighted(&st, p, pins, &wv[0], &rng, &out)
    if r != 0:
        if weights is not None:
            raise ValueError("weights: no deal of the unseen cards has positive weight")
        raise RuntimeError("inconsistent game state: the known cards do not fit")
    return game_with_state(game, &out)


def infoset_key(game, p):
    """A 64-bit hash of what seat ``p`` knows: the rules, the match's public record (every
    hand's moves as ``p`` saw them, results, levels), ``p``'s hand, each seat's card count and
    the current trick. Equal for states ``p`` cannot tell apart, different otherwise (up to
    hash collisions).

    >>> from guandan_fast.game import Game
    >>> g = Game(seed=2); k = infoset_key(g, 1); g.play_index(0)
    >>> infoset_key(g, 1) != k
    True
    """
    cdef GameState st
    check_seat(p)
    load_state(game, &st)
    obs = game.observation(p)
    obs["counts"] = tuple(card_count(st.hand_lo[q], st.hand_hi[q]) for q in range(4))
    past = game.moves_by_hand()[:-1]
    h = hashlib.blake2b(digest_size=8)
    h.update(repr((repr(game.rules), sorted(obs.items()), past, game.results)).encode())
    return int.from_bytes(h.digest(), "little")

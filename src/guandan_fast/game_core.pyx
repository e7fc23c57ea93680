# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, embedsignature=True, binding=True
"""The compiled game state machine: one plain ``GameState`` struct per match and the ``nogil``
functions of game_core.pxd (``game_init``, ``game_legal``, ``game_is_legal``, ``game_apply``, and
the hand set-up steps ``Game.setup`` uses), implementing docs/rules.md §7-10 and the §12
switches on the 128-bit encoding of docs/design.md. Allocation-free except
``game_legal_grow``, and unchecked: the ``Game`` wrapper (game.pyx) checks everything that
comes from Python first. This module has no Python API.
"""
from libc.stdlib cimport realloc
from libc.string cimport memset, memcpy
from libc.stdint cimport uint8_t

from guandan_fast.types cimport (u64, N_CARDS, HAND_SIZE, MAX_LEVEL, ACE_RANK, SUIT_BITS, N_KINDS,
                                 N_RANKS, KIND_SB, KIND_HR, KIND_H2, LO_CARD_MASK, HI_CARD_MASK,
                                 LO_KINDS, SUIT_MASK, ODD_BITS, SB_BIT, HR_BIT,
                                 __builtin_popcountll, __builtin_ctzll, __builtin_clzll,
                                 T_PASS, T_STRAIGHT_FLUSH, T_TRIBUTE, T_BACK,
                                 kind_count, kind_words, words_remove_kind, single_kind,
                                 wild_kind, single_value, contains, move_type, move_tag)
from guandan_fast.movegen_core cimport generate, generate_grow, classify_cards, beats
from guandan_fast.rng cimport sm_below


# ------------------------------------------------------------------------------------------
# Small nogil helpers on the state (the encoding's helpers are in types.pxd)
# ------------------------------------------------------------------------------------------

cdef inline bint is_empty(const GameState* s, int p) noexcept nogil:
    return s.hand_lo[p] == 0 and (s.hand_hi[p] & HI_CARD_MASK) == 0


cdef inline void exchange_words(int k, int t, u64* lo, u64* hi) noexcept nogil:
    """The one-card move of kind k with type code t (tribute/back: rank code 0)."""
    kind_words(k, lo, hi)
    hi[0] |= move_tag(t, 0)


cdef inline void hand_sub(GameState* s, int p, int k) noexcept nogil:
    words_remove_kind(&s.hand_lo[p], &s.hand_hi[p], k, 1)


cdef inline int next_in(const GameState* s, int p) noexcept nogil:
    """The next seat after p (anticlockwise) still holding cards."""
    cdef int q = (p + 1) & 3
    cdef int i
    for i in range(4):
        if not is_empty(s, q):
            return q
        q = (q + 1) & 3
    return -1


# ------------------------------------------------------------------------------------------
# Dealing and starting hands
# ------------------------------------------------------------------------------------------

# The deck before the shuffle (card i is kind i >> 1) and each kind's one card as words
# (_ONE_LO[k], _ONE_HI[k]): the deal copies the one and adds up the others, without a branch
# or a shift per card.
cdef uint8_t _DECK0[N_CARDS]
cdef u64 _ONE_LO[N_KINDS]
cdef u64 _ONE_HI[N_KINDS]
for _i in range(N_CARDS):
    _DECK0[_i] = _i >> 1
for _i in range(N_KINDS):
    kind_words(_i, &_ONE_LO[_i], &_ONE_HI[_i])


cdef void shuffle_deal(GameState* s, uint8_t* deck) noexcept nogil:
    """Fisher-Yates over the 108 physical cards from the match's generator; 27 cards per seat
    (seat p: cards 27p .. 27p + 26). A card is final once the shuffle has passed it (it goes
    from the top down), so each seat's hand is summed as the shuffle passes its cards."""
    cdef int i, j, p, last
    cdef uint8_t c
    cdef u64 lo, hi
    cdef u64 rng = s.rng            # a local: the deck's byte stores could alias s.rng
    memcpy(deck, _DECK0, N_CARDS)
    for p in range(3, -1, -1):
        lo = 0
        hi = 0
        last = HAND_SIZE * p if p > 0 else 1
        for i in range(HAND_SIZE * p + HAND_SIZE - 1, last - 1, -1):
            j = <int>sm_below(&rng, <u64>(i + 1))
            c = deck[j]
            deck[j] = deck[i]
            deck[i] = c
            lo += _ONE_LO[c]
            hi += _ONE_HI[c]
        if p == 0:                  # card 0: what the shuffle left there
            lo += _ONE_LO[deck[0]]
            hi += _ONE_HI[deck[0]]
        s.hand_lo[p] = lo
        s.hand_hi[p] = hi
    s.rng = rng


cdef void reset_hand(GameState* s) noexcept nogil:
    cdef int i
    s.top_lo = 0
    s.top_hi = 0
    s.top_seat = -1
    s.passes = 0
    s.n_finished = 0
    s.first_out_aces = 0
    s.n_actions = 0
    s.n_pay = 0
    s.step = 0
    s.anti_tribute = 0
    s.choosing = 0
    s.leader = -1
    s.tribute_first = -1
    for i in range(4):
        s.finish[i] = -1
    for i in range(2):
        s.payer[i] = -1
        s.receiver[i] = -1
        s.trib_kind[i] = -1
        s.back_kind[i] = -1


cdef int draw_leader(GameState* s, const uint8_t* deck) noexcept nogil:
    cdef int i
    while True:
        i = <int>sm_below(&s.rng, N_CARDS)
        if deck[i] < KIND_SB and deck[i] != KIND_H2:
            return i // HAND_SIZE


cdef int holder_of(const GameState* s, int k) noexcept nogil:
    cdef int p
    for p in range(4):
        if kind_count(s.hand_lo[p], s.hand_hi[p], k) > 0:
            return p
    return 0


cdef void start_play(GameState* s, int leader) noexcept nogil:
    s.phase = PH_PLAY
    s.leader = leader
    s.current = leader
    s.top_lo = 0
    s.top_hi = 0
    s.top_seat = -1
    s.passes = 0


cdef void setup_tribute(GameState* s) noexcept nogil:
    """docs/rules.md §9 from the previous hand's finishing order (last_finish), hands dealt."""
    cdef int f0 = s.last_finish[0]
    cdef int fourth, hr, i
    s.tribute_first = f0
    if s.last_n_finished >= 2 and (s.last_finish[1] & 1) == (f0 & 1):
        # Double-down: both losers pay, in playing order from the seat after the 1st.
        s.n_pay = 2
        s.payer[0] = (f0 + 1) & 3
        s.payer[1] = (f0 + 3) & 3
    else:
        fourth = s.last_finish[3]
        s.n_pay = 1
        s.payer[0] = fourth
        if (fourth & 1) == (f0 & 1):
            if s.rules.tribute_first_fourth == 1:
                s.n_pay = 0
                s.payer[0] = -1
                start_play(s, f0)
                return
            if s.rules.tribute_first_fourth == 2:
                s.payer[0] = s.last_finish[2]
    if s.rules.anti_tribute:
        hr = 0
        for i in range(s.n_pay):
            hr += kind_count(s.hand_lo[s.payer[i]], s.hand_hi[s.payer[i]], KIND_HR)
        if hr == 2:
            s.anti_tribute = 1
            s.n_pay = 0
            s.payer[0] = -1
            s.payer[1] = -1
            start_play(s, f0)
            return
    s.phase = PH_TRIBUTE
    s.step = 0
    s.current = s.payer[0]


cdef void start_next_hand(GameState* s) noexcept nogil:
    cdef uint8_t deck[N_CARDS]
    s.hand_number += 1
    s.level = s.levels[s.declarer]
    reset_hand(s)
    shuffle_deal(s, deck)
    setup_tribute(s)


cdef void game_init(GameState* s, u64 seed, const GameRulesC* rules) noexcept nogil:
    cdef uint8_t deck[N_CARDS]
    cdef int i, leader
    memset(s, 0, sizeof(GameState))
    s.rules = rules[0]
    s.rng = seed
    s.levels[0] = 2
    s.levels[1] = 2
    s.declarer = -1
    s.level = 2
    s.winner = -1
    s.hand_number = 0
    s.last_n_finished = 0
    s.last_level = -1
    s.last_declarer = -1
    for i in range(4):
        s.last_finish[i] = -1
    reset_hand(s)
    shuffle_deal(s, deck)
    if rules.first_leader < 0:
        leader = draw_leader(s, deck)
    else:
        leader = holder_of(s, rules.first_leader)
    start_play(s, leader)


# ------------------------------------------------------------------------------------------
# Ending a hand: levels, the match (docs/rules.md §8, §12 ace switches)
# ------------------------------------------------------------------------------------------

cdef int end_hand(GameState* s) noexcept nogil:
    cdef int f0 = s.finish[0]
    cdef int w = f0 & 1
    cdef int d = s.declarer
    cdef int place, i, p
    cdef bint own_ace, won_match = False
    cdef bint seen[4]
    # Complete the order with the seat still holding cards (unknown after a double-down).
    if s.n_finished == 3:
        for p in range(4):
            seen[p] = False
        for i in range(3):
            seen[s.finish[i]] = True
        for p in range(4):
            if not seen[p]:
                s.finish[3] = p
    place = partner_place(s.finish)
    own_ace = d == w and s.levels[w] == MAX_LEVEL
    if own_ace:
        if s.rules.ace_rule == 0:
            won_match = place <= 2
        elif s.rules.ace_rule == 1:
            won_match = place == 1
        else:
            won_match = True
    if not won_match:
        if not own_ace:
            s.levels[w] = min(MAX_LEVEL, s.levels[w] + s.rules.up[place - 1])
        # The declaring team failed at its own A (lost, or won without the needed place).
        if d >= 0 and s.levels[d] == MAX_LEVEL and s.level == MAX_LEVEL:
            if s.rules.ace_fail_reset > 0:
                s.ace_fails[d] += 1
                if s.ace_fails[d] >= s.rules.ace_fail_reset:
                    s.levels[d] = 2
                    s.ace_fails[d] = 0
            if (s.rules.ace_reset_natural_aces and (s.first_out_aces >> (d ^ 1)) & 1
                    and s.levels[d] == MAX_LEVEL):
                s.levels[d] = 2
                s.ace_fails[d] = 0
    s.last_n_finished = s.n_finished
    for i in range(4):
        s.last_finish[i] = s.finish[i]
    s.last_level = s.level
    s.last_declarer = s.declarer
    s.declarer = w
    if won_match:
        s.phase = PH_OVER
        s.current = -1
        s.winner = w
        s.top_lo = 0
        s.top_hi = 0
        s.top_seat = -1
        s.passes = 0
        return STEP_MATCH_OVER
    start_next_hand(s)
    return STEP_HAND_OVER


# ------------------------------------------------------------------------------------------
# Moves
# ------------------------------------------------------------------------------------------

cdef inline bint only_natural_aces(u64 lo, u64 hi) noexcept nogil:
    """Is the play made only of SA, CA and DA (a play of natural aces; HA is the wild when the
    aces' team plays at A)?"""
    cdef u64 ace_lo = (<u64>3) << (2 * ACE_RANK)                          # SA (suit 0, lo)
    cdef u64 ace_hi = (((<u64>3) << (2 * ACE_RANK))                       # CA (suit 2, hi)
                       | ((<u64>3) << (SUIT_BITS + 2 * ACE_RANK)))        # DA (suit 3, hi)
    hi &= HI_CARD_MASK
    return (lo | hi) != 0 and (lo & ~ace_lo) == 0 and (hi & ~ace_hi) == 0


cdef inline bint team_out(const GameState* s, int p) noexcept nogil:
    """Has a partner of p already gone out this hand (before p, just appended)?"""
    cdef int i
    for i in range(s.n_finished - 1):
        if s.finish[i] == (p ^ 2):
            return True
    return False


cdef int apply_play(GameState* s, u64 lo, u64 hi) noexcept nogil:
    cdef int p = s.current
    cdef int needed, leader
    cdef bint top_in
    if lo == 0 and hi == 0:
        s.passes += 1
        top_in = not is_empty(s, s.top_seat)
        needed = (4 - s.n_finished) - (1 if top_in else 0)
        if s.passes >= needed:
            leader = s.top_seat if top_in else (s.top_seat ^ 2)
            s.top_lo = 0
            s.top_hi = 0
            s.top_seat = -1
            s.passes = 0
            s.current = leader
        else:
            s.current = next_in(s, p)
        return STEP_CONTINUE
    s.hand_lo[p] -= lo
    s.hand_hi[p] -= hi & HI_CARD_MASK
    s.top_lo = lo
    s.top_hi = hi
    s.top_seat = p
    s.passes = 0
    if is_empty(s, p):
        s.finish[s.n_finished] = p
        s.n_finished += 1
        if not team_out(s, p):
            # The team's first finisher: did he go out on a play of natural aces?
            # (ace_reset_on_natural_aces, rules.md §14)
            if only_natural_aces(lo, hi):
                s.first_out_aces |= 1 << (p & 1)
        if s.n_finished == 3 or (s.n_finished == 2 and (s.finish[0] & 1) == (p & 1)):
            return end_hand(s)
    s.current = next_in(s, p)
    return STEP_CONTINUE


cdef inline int back_index(const GameState* s) noexcept nogil:
    """Index of the payer whose receiver returns now: receivers act 1st, then 2nd."""
    if s.n_pay == 1:
        return 0
    if (s.receiver[0] == s.tribute_first) == (s.step == 0):
        return 0
    return 1


cdef void deliver_tribute(GameState* s) noexcept nogil:
    """Every tribute is paid and assigned: the cards reach the receivers; returns begin."""
    cdef int i
    for i in range(s.n_pay):
        hand_add(s, s.receiver[i], s.trib_kind[i], 1)
    s.choosing = 0
    s.phase = PH_BACK
    s.step = 0
    s.current = s.receiver[back_index(s)]


cdef void apply_tribute(GameState* s, u64 lo, u64 hi) noexcept nogil:
    cdef int k = single_kind(lo, hi)
    cdef int f0 = s.tribute_first
    cdef int i, v0, v1
    if s.choosing:
        # winners_choose: the 1st finisher takes the card he names, the 2nd the other.
        if s.trib_kind[0] == k:
            s.receiver[0] = f0
            s.receiver[1] = f0 ^ 2
        else:
            s.receiver[1] = f0
            s.receiver[0] = f0 ^ 2
        s.leader = (f0 + 1) & 3
        deliver_tribute(s)
        return
    i = s.step
    hand_sub(s, s.payer[i], k)
    s.trib_kind[i] = k
    s.step += 1
    if s.step < s.n_pay:
        s.current = s.payer[s.step]
        return
    if s.n_pay == 1:
        s.receiver[0] = f0
        s.leader = s.payer[0]
        deliver_tribute(s)
        return
    v0 = single_value(s.trib_kind[0], s.level)
    v1 = single_value(s.trib_kind[1], s.level)
    if v0 != v1:
        s.receiver[0] = f0 if v0 > v1 else (f0 ^ 2)
        s.receiver[1] = (f0 ^ 2) if v0 > v1 else f0
        s.leader = s.payer[0] if v0 > v1 else s.payer[1]
        deliver_tribute(s)
        return
    s.leader = (f0 + 1) & 3
    if s.rules.double_tie == 1:
        s.choosing = 1
        s.current = f0
        return
    # Equal cards, clockwise: each payer gives to the player before him.
    for i in range(2):
        s.receiver[i] = (s.payer[i] + 3) & 3
    deliver_tribute(s)


cdef void apply_back(GameState* s, u64 lo, u64 hi) noexcept nogil:
    cdef int k = single_kind(lo, hi)
    cdef int i = back_index(s)
    hand_sub(s, s.receiver[i], k)
    hand_add(s, s.payer[i], k, 1)
    s.back_kind[i] = k
    s.step += 1
    if s.step < s.n_pay:
        s.current = s.receiver[back_index(s)]
        return
    start_play(s, s.leader)


cdef int game_apply(GameState* s, u64 lo, u64 hi) noexcept nogil:
    s.n_actions += 1
    if s.phase == PH_PLAY:
        return apply_play(s, lo, hi)
    if s.phase == PH_TRIBUTE:
        apply_tribute(s, lo, hi)
    elif s.phase == PH_BACK:
        apply_back(s, lo, hi)
    return STEP_CONTINUE


cdef inline u64 rank_bits(int r) noexcept nogil:
    """The low bit of rank r's count in both suits of a word (a `held` mask below)."""
    return ((<u64>1) << (2 * r)) | ((<u64>1) << (SUIT_BITS + 2 * r))


cdef inline int top_rank(u64 x) noexcept nogil:
    """Highest rank index with a bit in the `held` mask x (of either word's suits), or -1."""
    x = (x | (x >> SUIT_BITS)) & SUIT_MASK
    return -1 if x == 0 else (63 - __builtin_clzll(x)) >> 1


cdef inline int low_rank(u64 x) noexcept nogil:
    """Lowest rank index with a bit in the `held` mask x, or -1."""
    x = (x | (x >> SUIT_BITS)) & SUIT_MASK
    return -1 if x == 0 else __builtin_ctzll(x) >> 1


cdef int exchange_moves(const GameState* s, u64* out, int cap) noexcept nogil:
    """Legal tribute/back moves (one card each, distinct codes) into out, in kind order.
    Worked on `held` masks: the low bit of every count the hand holds, per word (kinds 0..25
    in lo, 26..53 in hi), so a rank or a set of kinds is a mask, not a loop over 54 kinds."""
    cdef int n = 0, p, i, r, lr = s.level - 2, t
    cdef u64 ok_lo = 0, ok_hi = 0, hl, hh, x, tag, b
    cdef u64 wild = (<u64>1) << (SUIT_BITS + 2 * lr)      # the heart of the level rank (lo)
    cdef u64 sb = (<u64>1) << SB_BIT, hr = (<u64>1) << HR_BIT
    if s.phase == PH_TRIBUTE:
        if s.choosing:
            add_kind_bit(s.trib_kind[0], &ok_lo, &ok_hi)
            add_kind_bit(s.trib_kind[1], &ok_lo, &ok_hi)
        else:
            # The payer's highest card by single order, wilds excluded: HR, SB, the level
            # rank's other cards, then the highest natural rank.
            p = s.payer[s.step]
            hl = held_bits(s.hand_lo[p]) & ~wild
            hh = held_bits(s.hand_hi[p] & HI_CARD_MASK)
            if hh & hr:
                ok_hi = hr
            elif hh & sb:
                ok_hi = sb
            elif (hl | hh) & rank_bits(lr):
                ok_lo = hl & rank_bits(lr)
                ok_hi = hh & rank_bits(lr)
            else:
                r = top_rank(hl | hh)
                if r < 0:
                    ok_lo = wild        # a constructed hand of nothing but wilds pays one
                else:
                    ok_lo = hl & rank_bits(r)
                    ok_hi = hh & rank_bits(r)
    else:
        i = back_index(s)
        p = s.receiver[i]
        hl = held_bits(s.hand_lo[p])
        hh = held_bits(s.hand_hi[p] & HI_CARD_MASK)
        if s.rules.return_rule == 0:
            # natural 2..10 but the level rank; else the lowest cards by single order
            x = 0
            for r in range(9):
                if r != lr:
                    x |= rank_bits(r)
            ok_lo = hl & x
            ok_hi = hh & x
            if ok_lo == 0 and ok_hi == 0:
                r = low_rank((hl | hh) & ~rank_bits(lr))
                if r >= 0:
                    ok_lo = hl & rank_bits(r)
                    ok_hi = hh & rank_bits(r)
                elif (hl | hh) & rank_bits(lr):
                    ok_lo = hl & rank_bits(lr)
                    ok_hi = hh & rank_bits(lr)
                else:
                    ok_hi = hh & (sb if hh & sb else hr)
        else:
            ok_lo = hl
            ok_hi = hh
            if s.rules.return_rule == 2:
                b = 0
                t = s.trib_kind[i]
                x = 0
                add_kind_bit(t, &b, &x)
                ok_lo &= ~b
                ok_hi &= ~x
    if __builtin_popcountll(ok_lo) + __builtin_popcountll(ok_hi) > cap:
        return -1
    tag = move_tag(T_TRIBUTE if s.phase == PH_TRIBUTE else T_BACK, 0)
    while ok_lo:
        out[2 * n] = ok_lo & (~ok_lo + 1)
        out[2 * n + 1] = tag
        ok_lo &= ok_lo - 1
        n += 1
    while ok_hi:
        out[2 * n] = 0
        out[2 * n + 1] = (ok_hi & (~ok_hi + 1)) | tag
        ok_hi &= ok_hi - 1
        n += 1
    return n


cdef inline u64 held_bits(u64 w) noexcept nogil:
    """The low bit of every nonzero 2-bit count of a word."""
    return (w | (w >> 1)) & ODD_BITS


cdef inline void add_kind_bit(int k, u64* lo, u64* hi) noexcept nogil:
    """Set kind k's low count bit in a pair of `held` masks."""
    if k < LO_KINDS:
        lo[0] |= (<u64>1) << (2 * k)
    else:
        hi[0] |= (<u64>1) << (2 * (k - LO_KINDS))


cdef int game_legal(const GameState* s, bint compact, u64* out, int cap) noexcept nogil:
    cdef int p = s.current
    if s.phase == PH_OVER:
        return 0
    if s.phase == PH_PLAY:
        return generate(s.hand_lo[p], s.hand_hi[p], s.level, s.top_lo, s.top_hi, &s.rules.gen,
                        compact, out, cap)
    return exchange_moves(s, out, cap)


cdef int game_legal_grow(const GameState* s, bint compact, u64** buf, int* cap) noexcept nogil:
    """game_legal into a heap buffer grown to fit (movegen.generate_grow): a constructed hand
    may hold far more than 27 cards. Returns the count, or -1 when memory ran out."""
    cdef int p = s.current
    cdef u64* nb
    if s.phase == PH_PLAY:
        return generate_grow(s.hand_lo[p], s.hand_hi[p], s.level, s.top_lo, s.top_hi,
                             &s.rules.gen, compact, buf, cap)
    if buf[0] == NULL or cap[0] < 64:   # tribute/back: at most 54 moves
        nb = <u64*>realloc(buf[0], sizeof(u64) * 2 * 64)
        if nb == NULL:
            return -1
        buf[0] = nb
        cap[0] = 64
    return game_legal(s, compact, buf[0], cap[0])


cdef bint game_is_legal(const GameState* s, u64 lo, u64 hi) noexcept nogil:
    cdef u64 buf[2 * 64]
    cdef int n, i, t, p = s.current
    if s.phase == PH_OVER:
        return False
    t = move_type(hi)
    if s.phase != PH_PLAY:
        n = exchange_moves(s, buf, 64)
        for i in range(n):
            if buf[2 * i] == lo and buf[2 * i + 1] == hi:
                return True
        return False
    if t == T_PASS:
        return lo == 0 and hi == 0 and s.top_seat >= 0
    if t > T_STRAIGHT_FLUSH:
        return False
    if lo & ~LO_CARD_MASK:
        return False
    if not contains(s.hand_lo[p], s.hand_hi[p], lo, hi):
        return False
    n = classify_cards(lo, hi & HI_CARD_MASK, s.level, &s.rules.gen, buf, 64)
    for i in range(min(n, 64)):   # n counts every reading; at most 64 were written
        if buf[2 * i] == lo and buf[2 * i + 1] == hi:
            return beats(lo, hi, s.top_lo, s.top_hi, s.level)
    return False

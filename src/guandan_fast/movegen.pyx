# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, autotestdict=False, embedsignature=True, binding=True
"""The compiled move generator: docs/rules.md §3-6 over the 128-bit encoding of docs/design.md.

The C core (``generate``, ``count_moves``, ``classify_cards``, ``beats``; see movegen.pxd) is
``nogil``, allocation-free and unchecked. It works on per-rank counts (naturals by suit, the
wilds apart), per-suit rank masks for straight flushes, and per-rank option lists ("k natural
cards of rank r plus n-k wilds") from which every combination is assembled by adding words, so
that distinct choices give distinct multisets and no deduplication is needed. The Python API
below checks every input before it reaches the core:

>>> from guandan_fast.movegen import Hand, legal_moves, classify, beats
>>> from guandan_fast import Move
>>> sorted(m.rank for m in classify('S8 C8 H7 DJ HJ', 7))
['8', 'J']
>>> moves = legal_moves('S9 C9 H7', 7, last=Move('Pair', '8', 'S8 D8'))
>>> [str(m) for m in moves.sorted()]
['PASS', 'Pair 9 H7 C9', 'Pair 9 H7 S9', 'Pair 9 S9 C9']
>>> h = Hand('S3 S4 S5 S6 S7 D7')
>>> h.count_moves(2, compact=True)
8
>>> beats(Move('StraightFlush', '3', 'S3 S4 S5 S6 S7'), Move('Bomb', '2', 'S2 H2 C2 D2 D2'), 5)
True
"""

from libc.stdlib cimport malloc, free, realloc
from libc.string cimport memcpy
from cpython.bytes cimport PyBytes_FromStringAndSize, PyBytes_AS_STRING
from cpython.ref cimport Py_INCREF
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from guandan_fast.types cimport (u64, N_RANKS, N_SUITS, LO_KINDS, SUIT_BITS, SB_BIT, HR_BIT,
                                 ALL_RANKS, SUIT_MASK, HI_CARD_MASK, SB_HI, HR_HI, RANK_SHIFT,
                                 T_PASS, T_SINGLE, T_PAIR, T_TRIPS, T_THREE_WITH_TWO,
                                 T_STRAIGHT, T_THREE_PAIR, T_TWO_TRIPS, T_BOMB,
                                 T_STRAIGHT_FLUSH, NONBOMB_TYPES, RANK_JOKER, VALUE_LEVEL,
                                 VALUE_SB, VALUE_HR, TIER_STRAIGHT_FLUSH, TIER_JOKERS,
                                 LAST_STRAIGHT_POS, LAST_THREE_PAIR_POS, LAST_TWO_TRIPS_POS,
                                 move_type, move_rank, move_tag, rank_value, bomb_tier, tier_key,
                                 card_count, MAX_BOMB_SIZE)
from guandan_fast.hand cimport words_of, codes_of, move_of
from guandan_fast.movegen cimport RulesC, MAX_MOVES
from guandan_fast.interrupt cimport (Interrupt, interrupt_init, interrupted, in_main_thread,
                                     raise_pending)

import numpy as np
cimport numpy as cnp

cnp.import_array()

from guandan_fast.cards import parse_cards, parse_level
from guandan_fast.moves import Move, PASS
from guandan_fast.rules import Rules


# ---------------------------------------------------------------------------------------------
# Tables (the encoding's constants are in types.pxd)

cdef enum:
    # classify_cards generates only moves of exactly the hand's size, i.e. readings of all its
    # cards: one per (type, rank label), a handful
    CLASSIFY_CAP = 256

# KW_LO[s][r], KW_HI[s][r]: one card of suit s, rank index r.
cdef u64 KW_LO[N_SUITS][N_RANKS]
cdef u64 KW_HI[N_SUITS][N_RANKS]

cdef _init_tables():
    cdef int s, r
    for s in range(4):
        for r in range(N_RANKS):
            KW_LO[s][r] = 0
            KW_HI[s][r] = 0
            if s < 2:
                KW_LO[s][r] = (<u64>1) << (SUIT_BITS * s + 2 * r)
            else:
                KW_HI[s][r] = (<u64>1) << (SUIT_BITS * (s - 2) + 2 * r)

# POP5[m]: bits set in a 5-bit mask (no popcount instruction is assumed)
cdef int POP5[32]
for _m in range(32):
    POP5[_m] = bin(_m).count("1")

_init_tables()

# Sub-multisets of one rank, tabulated. A rank's natural cards are one byte `col` (2 bits per
# suit: the copies held); SUB_BYTES[SUB_START[col][k] ...] lists, as bytes of the same form, every
# sub-multiset of k cards, SUB_COUNT[col][k] of them. BASE_LO/BASE_HI[b] are the words of b at
# rank 0 (shift left by 2r for rank r) and SUB_SUITS[b] its suits.
cdef unsigned short SUB_START[256][9]
cdef unsigned char SUB_COUNT[256][9]
cdef unsigned char SUB_BYTES[6561]
cdef u64 BASE_LO[256]
cdef u64 BASE_HI[256]
cdef int SUB_SUITS[256]


cdef _init_subsets():
    cdef int col, k, b, idx = 0
    for b in range(256):
        a = [(b >> (2 * s)) & 3 for s in range(4)]
        BASE_LO[b] = <u64>a[0] | (<u64>a[1] << SUIT_BITS)
        BASE_HI[b] = <u64>a[2] | (<u64>a[3] << SUIT_BITS)
        SUB_SUITS[b] = sum(1 << s for s in range(4) if a[s])
    for col in range(256):
        c = [(col >> (2 * s)) & 3 for s in range(4)]
        for k in range(9):
            SUB_START[col][k] = idx
            SUB_COUNT[col][k] = 0
            if max(c) > 2:
                continue
            for a0 in range(c[0] + 1):
                for a1 in range(c[1] + 1):
                    for a2 in range(c[2] + 1):
                        a3 = k - a0 - a1 - a2
                        if 0 <= a3 <= c[3]:
                            SUB_BYTES[idx] = a0 | (a1 << 2) | (a2 << 4) | (a3 << 6)
                            idx += 1
                            SUB_COUNT[col][k] += 1
    assert idx <= 6561


_init_subsets()

# ---------------------------------------------------------------------------------------------
# Generator state

cdef struct Opt:
    u64 lo
    u64 hi
    int w       # wilds used
    int suits   # bit mask of the suits of its natural cards
    int r       # rank index

cdef struct Ctx:
    int level
    int lr          # rank index of the level rank
    int W           # wilds held
    u64 wild_lo     # one wild (a heart, so always in lo)
    int cnt[N_RANKS][4]  # natural, non-wild copies per rank and suit
    int col[N_RANKS]     # the same as one byte per rank: 2 bits per suit
    int avail[N_RANKS]
    int pm[4]       # per suit: positions 1..14 (A at 1 and 14) holding a natural
    int nsb
    int nhr
    bint sfs        # Rules.sf_as_straight
    bint fjp        # Rules.fullhouse_joker_pair
    # what to generate
    unsigned tmask  # non-bomb types (bit per type code)
    int minkey      # non-bomb moves need key > minkey
    int btier       # bombs need (tier, key) > (btier, bkey)
    int bkey
    int size        # 0, or only moves of exactly this many cards
    # output
    u64* out
    int n
    int cap
    # option lists per rank for groups of 1, 2, 3 cards, sorted by wilds used
    int b1          # rank masks of the option lists built so far
    int b2
    int b3
    int bu          # compact: rank mask of the prefix tables built so far
    int n1[N_RANKS]
    int nn1[N_RANKS]     # entries with at least one natural card
    int n2[N_RANKS]
    int nn2[N_RANKS]
    int n3[N_RANKS]
    int nn3[N_RANKS]
    Opt o1[N_RANKS][5]
    Opt o2[N_RANKS][16]
    Opt o3[N_RANKS][31]
    # compact mode: per suit, rank mask of naturals usable in a straight flush of the hand
    int sfu[4]
    # compact mode: the canonical k naturals of rank r (docs/design.md) and their penalty
    u64 pre_lo[N_RANKS][9]
    u64 pre_hi[N_RANKS][9]
    int pre_pen[N_RANKS][9]
    int first_suit[N_RANKS]   # suit of the preferred single natural card of each rank


cdef inline void emit(Ctx* c, u64 lo, u64 hi) noexcept nogil:
    if c.n < c.cap:
        c.out[2 * c.n] = lo
        c.out[2 * c.n + 1] = hi
    c.n += 1


cdef inline int pos_rank(int pos) noexcept nogil:
    # natural position 1..14 -> rank index (A is 1 and 14)
    if pos == 1:
        return 12
    return pos - 2


cdef inline bint bomb_ok(Ctx* c, int tier, int key) noexcept nogil:
    return tier > c.btier or (tier == c.btier and key > c.bkey)


cdef inline u64 spread2(u64 x) noexcept nogil:
    # 2-bit fields at bits 2r -> 4-bit fields at bits 4r (r < 16)
    x = (x | (x << 16)) & <u64>0x0000FFFF0000FFFF
    x = (x | (x << 8)) & <u64>0x00FF00FF00FF00FF
    x = (x | (x << 4)) & <u64>0x0F0F0F0F0F0F0F0F
    x = (x | (x << 2)) & <u64>0x3333333333333333
    return x


cdef inline int nonzero_fields(u64 x) noexcept nogil:
    # bit r set when the 2-bit field r of x is not zero
    x = (x | (x >> 1)) & <u64>0x5555555555555555
    x = (x | (x >> 1)) & <u64>0x3333333333333333
    x = (x | (x >> 2)) & <u64>0x0F0F0F0F0F0F0F0F
    x = (x | (x >> 4)) & <u64>0x00FF00FF00FF00FF
    x = (x | (x >> 8)) & <u64>0x0000FFFF0000FFFF
    x = (x | (x >> 16)) & <u64>0x00000000FFFFFFFF
    return <int>x


cdef void ctx_init(Ctx* c, u64 lo, u64 hi, int level, const RulesC* rules) noexcept nogil:
    cdef int r, s, rm
    cdef u64 sw[4]
    cdef u64 av
    c.level = level
    c.lr = level - 2
    c.wild_lo = (<u64>1) << (SUIT_BITS + 2 * c.lr)   # the heart of the level rank
    c.W = <int>((lo >> (SUIT_BITS + 2 * c.lr)) & 3)
    lo -= (<u64>c.W) << (SUIT_BITS + 2 * c.lr)
    sw[0] = lo & SUIT_MASK
    sw[1] = (lo >> SUIT_BITS) & SUIT_MASK
    sw[2] = hi & SUIT_MASK
    sw[3] = (hi >> SUIT_BITS) & SUIT_MASK
    av = spread2(sw[0]) + spread2(sw[1]) + spread2(sw[2]) + spread2(sw[3])
    for s in range(4):
        rm = nonzero_fields(sw[s])
        c.pm[s] = (rm << 2) | ((rm >> 11) & 2)
    for r in range(N_RANKS):
        c.avail[r] = <int>((av >> (4 * r)) & 15)
        c.cnt[r][0] = <int>((sw[0] >> (2 * r)) & 3)
        c.cnt[r][1] = <int>((sw[1] >> (2 * r)) & 3)
        c.cnt[r][2] = <int>((sw[2] >> (2 * r)) & 3)
        c.cnt[r][3] = <int>((sw[3] >> (2 * r)) & 3)
        c.col[r] = c.cnt[r][0] | (c.cnt[r][1] << 2) | (c.cnt[r][2] << 4) | (c.cnt[r][3] << 6)
    c.nsb = <int>((hi >> SB_BIT) & 3)
    c.nhr = <int>((hi >> HR_BIT) & 3)
    c.sfs = rules.sf_as_straight
    c.fjp = rules.fullhouse_joker_pair
    c.b1 = 0
    c.b2 = 0
    c.b3 = 0
    c.bu = 0
    c.n = 0


cdef int subsets(Ctx* c, int r, int k, u64* los, u64* his, int* sm) noexcept nogil:
    """Every sub-multiset of k natural cards of rank r (at most 19), from the tables below."""
    cdef int col = c.col[r], i, b
    cdef int st = SUB_START[col][k], m = SUB_COUNT[col][k], sh = 2 * r
    for i in range(m):
        b = SUB_BYTES[st + i]
        los[i] = BASE_LO[b] << sh
        his[i] = BASE_HI[b] << sh
        sm[i] = SUB_SUITS[b]
    return m


cdef int fill_opts(Ctx* c, int r, int n, Opt* dst, int* nn) noexcept nogil:
    """Groups of n cards of rank r: k naturals + (n - k) wilds, fewest wilds first."""
    cdef int k, i, b, m, st, idx = 0, w
    cdef int col = c.col[r], sh = 2 * r
    cdef int kmax = min(n, c.avail[r])
    cdef int kmin = n - c.W
    cdef u64 wl
    if kmin < 0:
        kmin = 0
    nn[0] = 0
    k = kmax
    while k >= kmin:
        w = n - k
        wl = c.wild_lo * w
        if k == 0:
            nn[0] = idx
            dst[idx].lo = wl
            dst[idx].hi = 0
            dst[idx].w = w
            dst[idx].suits = 0
            dst[idx].r = r
            return idx + 1
        st = SUB_START[col][k]
        m = SUB_COUNT[col][k]
        for i in range(m):
            b = SUB_BYTES[st + i]
            dst[idx].lo = (BASE_LO[b] << sh) + wl
            dst[idx].hi = BASE_HI[b] << sh
            dst[idx].w = w
            dst[idx].suits = SUB_SUITS[b]
            dst[idx].r = r
            idx += 1
        k -= 1
    nn[0] = idx
    return idx


# Option lists are built only for the ranks a call needs (a follow needs few).

cdef void build1(Ctx* c, int mask) noexcept nogil:
    cdef int r
    mask &= ~c.b1
    if mask == 0:
        return
    for r in range(N_RANKS):
        if (mask >> r) & 1:
            c.n1[r] = fill_opts(c, r, 1, &c.o1[r][0], &c.nn1[r])
    c.b1 |= mask


cdef void build2(Ctx* c, int mask) noexcept nogil:
    cdef int r
    mask &= ~c.b2
    if mask == 0:
        return
    for r in range(N_RANKS):
        if (mask >> r) & 1:
            c.n2[r] = fill_opts(c, r, 2, &c.o2[r][0], &c.nn2[r])
    c.b2 |= mask


cdef void build3(Ctx* c, int mask) noexcept nogil:
    cdef int r
    mask &= ~c.b3
    if mask == 0:
        return
    for r in range(N_RANKS):
        if (mask >> r) & 1:
            c.n3[r] = fill_opts(c, r, 3, &c.o3[r][0], &c.nn3[r])
    c.b3 |= mask


cdef inline int keyed_ranks(Ctx* c) noexcept nogil:
    """Ranks whose single-order value beats minkey."""
    cdef int r, m = 0
    if c.minkey < 2:
        return ALL_RANKS
    for r in range(N_RANKS):
        if rank_value(r, c.lr) > c.minkey:
            m |= 1 << r
    return m


cdef inline int window_ranks(int p0) noexcept nogil:
    """Ranks at natural positions p0..14 (position 1 is the ace)."""
    if p0 <= 1:
        return ALL_RANKS
    return ALL_RANKS & ~((1 << (p0 - 2)) - 1)


# ---------------------------------------------------------------------------------------------
# Complete mode: every distinct (type, rank label, multiset)

cdef void gen_singles(Ctx* c) noexcept nogil:
    cdef int r, s
    cdef u64 t
    if c.size and c.size != 1:
        return
    for r in range(N_RANKS):
        if rank_value(r, c.lr) <= c.minkey:
            continue
        t = move_tag(T_SINGLE, r + 2)
        for s in range(4):
            if c.cnt[r][s]:
                emit(c, KW_LO[s][r], KW_HI[s][r] | t)
        if r == c.lr and c.W:
            emit(c, c.wild_lo, t)
    if c.nsb and VALUE_SB > c.minkey:
        emit(c, 0, SB_HI | move_tag(T_SINGLE, RANK_JOKER))
    if c.nhr and VALUE_HR > c.minkey:
        emit(c, 0, HR_HI | move_tag(T_SINGLE, RANK_JOKER))


cdef void gen_pairs(Ctx* c) noexcept nogil:
    cdef int r, i, m
    cdef u64 t
    cdef Opt* o
    if c.size and c.size != 2:
        return
    build2(c, keyed_ranks(c))
    for r in range(N_RANKS):
        if rank_value(r, c.lr) <= c.minkey:
            continue
        t = move_tag(T_PAIR, r + 2)
        # an all-wild pair is the level rank's pair
        m = c.n2[r] if r == c.lr else c.nn2[r]
        for i in range(m):
            o = &c.o2[r][i]
            emit(c, o.lo, o.hi | t)
    if c.nsb == 2 and VALUE_SB > c.minkey:
        emit(c, 0, 2 * SB_HI | move_tag(T_PAIR, RANK_JOKER))
    if c.nhr == 2 and VALUE_HR > c.minkey:
        emit(c, 0, 2 * HR_HI | move_tag(T_PAIR, RANK_JOKER))


cdef void gen_trips(Ctx* c) noexcept nogil:
    cdef int r, i
    cdef u64 t
    cdef Opt* o
    if c.size and c.size != 3:
        return
    build3(c, keyed_ranks(c))
    for r in range(N_RANKS):
        if rank_value(r, c.lr) <= c.minkey:
            continue
        t = move_tag(T_TRIPS, r + 2)
        for i in range(c.n3[r]):
            o = &c.o3[r][i]
            emit(c, o.lo, o.hi | t)


cdef void gen_bombs(Ctx* c) noexcept nogil:
    cdef u64 los[19]
    cdef u64 his[19]
    cdef int sm[19]
    cdef int r, n, k, i, m, key, kmin, nmax
    cdef u64 t, wl
    for r in range(N_RANKS):
        nmax = c.avail[r] + c.W
        if nmax > MAX_BOMB_SIZE:
            nmax = MAX_BOMB_SIZE
        if nmax < 4:
            continue
        key = rank_value(r, c.lr)
        for n in range(4, nmax + 1):
            if c.size and c.size != n:
                continue
            if not bomb_ok(c, bomb_tier(n), key):
                continue
            t = move_tag(T_BOMB, r + 2)
            kmin = n - c.W
            k = min(n, c.avail[r])
            while k >= kmin:
                wl = c.wild_lo * (n - k)
                m = subsets(c, r, k, los, his, sm)
                for i in range(m):
                    emit(c, los[i] + wl, his[i] | t)
                k -= 1
    if c.nsb == 2 and c.nhr == 2 and (c.size == 0 or c.size == 4) and bomb_ok(c, TIER_JOKERS, 0):
        emit(c, 0, 2 * SB_HI + 2 * HR_HI | move_tag(T_BOMB, RANK_JOKER))


cdef inline int sf_windows(int pm, int W) noexcept nogil:
    """Bit p set (p = 1..10) when the window of positions p..p+4 misses at most W cards."""
    cdef int m, i, one = 0, two = 0, three = 0
    for i in range(5):
        m = ~(pm >> i)
        three |= two & m
        two |= one & m
        one |= m
    if W == 0:
        m = ~one
    elif W == 1:
        m = ~two
    else:
        m = ~three
    return m & 0x7FE


cdef void gen_sf(Ctx* c, bint compact) noexcept nogil:
    cdef int s, p, i, nat, missing, extra, sub, r
    cdef u64 blo, bhi, lo, hi, t
    cdef u64 slo[5]
    cdef u64 shi[5]
    if c.size and c.size != 5:
        return
    cdef int wins[4]
    cdef int any_ = 0
    for s in range(4):
        wins[s] = sf_windows(c.pm[s], c.W)
        any_ |= wins[s]
    if any_ == 0:
        return
    for p in range(1, LAST_STRAIGHT_POS + 1):
        if not (any_ >> p) & 1 or not bomb_ok(c, TIER_STRAIGHT_FLUSH, p):
            continue
        t = move_tag(T_STRAIGHT_FLUSH, p)
        for s in range(4):
            if not (wins[s] >> p) & 1:
                continue
            nat = (c.pm[s] >> p) & 31
            missing = 5 - POP5[nat]
            blo = c.wild_lo * missing
            bhi = 0
            for i in range(5):
                r = pos_rank(p + i)
                if (nat >> i) & 1:
                    slo[i] = KW_LO[s][r]
                    shi[i] = KW_HI[s][r]
                    blo += slo[i]
                    bhi += shi[i]
            emit(c, blo, bhi | t)
            if compact:
                continue
            extra = c.W - missing
            if extra == 0:
                continue
            # replace one or two of the natural cards by wilds
            for i in range(5):
                if not (nat >> i) & 1:
                    continue
                emit(c, blo - slo[i] + c.wild_lo, (bhi - shi[i]) | t)
                if extra == 2:
                    for sub in range(i + 1, 5):
                        if (nat >> sub) & 1:
                            emit(c, blo - slo[i] - slo[sub] + 2 * c.wild_lo,
                                 (bhi - shi[i] - shi[sub]) | t)


cdef inline void emit_block(Ctx* c, u64 lo, u64 hi, const u64* plo, const u64* phi,
                            int a, int b) noexcept nogil:
    """Emit (lo + plo[j], hi + phi[j]) for j in a..b-1, checking the capacity once."""
    cdef int j
    cdef u64* o
    if c.n + (b - a) <= c.cap:
        o = c.out + 2 * c.n
        for j in range(a, b):
            o[0] = lo + plo[j]
            o[1] = hi + phi[j]
            o += 2
        c.n += b - a
    else:
        for j in range(a, b):
            emit(c, lo + plo[j], hi + phi[j])


cdef void gen_full_houses(Ctx* c) noexcept nogil:
    # The pairs of every rank (jokers last) by wilds used, as word arrays; ps/pe[w][x] delimit
    # the pairs of rank x, which a triple of rank x must skip.
    cdef u64 plo[3][200]
    cdef u64 phi[3][200]
    cdef int ps[3][N_RANKS]
    cdef int pe[3][N_RANKS]
    cdef int np_[3]
    cdef int r, i, w, m, wt, wmax, x
    cdef Opt* o
    cdef u64 t, lo, hi
    if c.size and c.size != 5:
        return
    build2(c, ALL_RANKS)
    build3(c, keyed_ranks(c))
    np_[0] = 0
    np_[1] = 0
    np_[2] = 0
    for r in range(N_RANKS):
        ps[0][r] = np_[0]
        ps[1][r] = np_[1]
        ps[2][r] = np_[2]
        m = c.n2[r] if r == c.lr else c.nn2[r]
        for i in range(m):
            o = &c.o2[r][i]
            plo[o.w][np_[o.w]] = o.lo
            phi[o.w][np_[o.w]] = o.hi
            np_[o.w] += 1
        pe[0][r] = np_[0]
        pe[1][r] = np_[1]
        pe[2][r] = np_[2]
    if c.fjp:
        if c.nsb == 2:
            plo[0][np_[0]] = 0
            phi[0][np_[0]] = 2 * SB_HI
            np_[0] += 1
        if c.nhr == 2:
            plo[0][np_[0]] = 0
            phi[0][np_[0]] = 2 * HR_HI
            np_[0] += 1
    for x in range(N_RANKS):
        if rank_value(x, c.lr) <= c.minkey:
            continue
        t = move_tag(T_THREE_WITH_TWO, x + 2)
        for i in range(c.n3[x]):
            o = &c.o3[x][i]
            wt = o.w
            lo = o.lo
            hi = o.hi | t
            wmax = c.W - wt
            for w in range(wmax + 1):
                emit_block(c, lo, hi, &plo[w][0], &phi[w][0], 0, ps[w][x])
                emit_block(c, lo, hi, &plo[w][0], &phi[w][0], pe[w][x], np_[w])
            if x == c.lr and wmax == 2:
                # The two wilds as the pair stand for another rank (docs/rules.md §4, edge case 42):
                # a natural triple of the level rank takes them, though they sit in its own
                # pair list (the only two-wild pair there).
                emit(c, lo + 2 * c.wild_lo, hi)


cdef void gen_straights(Ctx* c) noexcept nogil:
    cdef int p, i0, i1, i2, i3, i4, w0, w1, w2, w3, w4, s0, s1, s2, s3, s4
    cdef int r0, r1, r2, r3, r4, gaps, W = c.W
    cdef bint sfs = c.sfs
    cdef u64 t, lo0, lo1, lo2, lo3, hi0, hi1, hi2, hi3
    cdef Opt* a
    cdef Opt* b
    cdef Opt* d
    cdef Opt* e
    cdef Opt* f
    if c.size and c.size != 5:
        return
    build1(c, window_ranks(c.minkey + 1))
    for p in range(max(1, c.minkey + 1), LAST_STRAIGHT_POS + 1):
        r0 = pos_rank(p)
        r1 = p - 1
        r2 = p
        r3 = p + 1
        r4 = p + 2
        gaps = ((c.avail[r0] == 0) + (c.avail[r1] == 0) + (c.avail[r2] == 0)
                + (c.avail[r3] == 0) + (c.avail[r4] == 0))
        if gaps > W:
            continue
        t = move_tag(T_STRAIGHT, p)
        for i0 in range(c.n1[r0]):
            a = &c.o1[r0][i0]
            w0 = a.w
            lo0 = a.lo
            hi0 = a.hi | t
            s0 = a.suits
            for i1 in range(c.n1[r1]):
                b = &c.o1[r1][i1]
                w1 = w0 + b.w
                if w1 > W:
                    break
                lo1 = lo0 + b.lo
                hi1 = hi0 + b.hi
                s1 = s0 | b.suits
                for i2 in range(c.n1[r2]):
                    d = &c.o1[r2][i2]
                    w2 = w1 + d.w
                    if w2 > W:
                        break
                    lo2 = lo1 + d.lo
                    hi2 = hi1 + d.hi
                    s2 = s1 | d.suits
                    for i3 in range(c.n1[r3]):
                        e = &c.o1[r3][i3]
                        w3 = w2 + e.w
                        if w3 > W:
                            break
                        lo3 = lo2 + e.lo
                        hi3 = hi2 + e.hi
                        s3 = s2 | e.suits
                        for i4 in range(c.n1[r4]):
                            f = &c.o1[r4][i4]
                            w4 = w3 + f.w
                            if w4 > W:
                                break
                            if not sfs:
                                s4 = s3 | f.suits
                                # one suit only: a straight flush, not a straight
                                if (s4 & (s4 - 1)) == 0:
                                    continue
                            emit(c, lo3 + f.lo, hi3 + f.hi)


cdef void gen_three_pairs(Ctx* c) noexcept nogil:
    cdef int p, i0, i1, i2, w0, w1, r0, r1, r2, W = c.W
    cdef u64 t, lo0, hi0, lo1, hi1
    cdef Opt* a
    cdef Opt* b
    cdef Opt* d
    if c.size and c.size != 6:
        return
    build2(c, window_ranks(c.minkey + 1))
    for p in range(max(1, c.minkey + 1), LAST_THREE_PAIR_POS + 1):
        r0 = pos_rank(p)
        r1 = p - 1
        r2 = p
        if c.n2[r0] == 0 or c.n2[r1] == 0 or c.n2[r2] == 0:
            continue
        t = move_tag(T_THREE_PAIR, p)
        for i0 in range(c.n2[r0]):
            a = &c.o2[r0][i0]
            w0 = a.w
            lo0 = a.lo
            hi0 = a.hi | t
            for i1 in range(c.n2[r1]):
                b = &c.o2[r1][i1]
                w1 = w0 + b.w
                if w1 > W:
                    break
                lo1 = lo0 + b.lo
                hi1 = hi0 + b.hi
                for i2 in range(c.n2[r2]):
                    d = &c.o2[r2][i2]
                    if w1 + d.w > W:
                        break
                    emit(c, lo1 + d.lo, hi1 + d.hi)


cdef void gen_two_trips(Ctx* c) noexcept nogil:
    cdef int p, i0, i1, w0, r0, r1, W = c.W
    cdef u64 t, lo0, hi0
    cdef Opt* a
    cdef Opt* b
    if c.size and c.size != 6:
        return
    build3(c, window_ranks(c.minkey + 1))
    for p in range(max(1, c.minkey + 1), LAST_TWO_TRIPS_POS + 1):
        r0 = pos_rank(p)
        r1 = p - 1
        if c.n3[r0] == 0 or c.n3[r1] == 0:
            continue
        t = move_tag(T_TWO_TRIPS, p)
        for i0 in range(c.n3[r0]):
            a = &c.o3[r0][i0]
            w0 = a.w
            lo0 = a.lo
            hi0 = a.hi | t
            for i1 in range(c.n3[r1]):
                b = &c.o3[r1][i1]
                if w0 + b.w > W:
                    break
                emit(c, lo0 + b.lo, hi0 + b.hi)


# ---------------------------------------------------------------------------------------------
# Compact mode: one canonical move per (type, key, size), per suit for straight flushes.
# The choice (docs/design.md, "Compact mode"): fewest wilds; then fewest natural cards whose
# use leaves a straight flush of the hand without its card; (full house: lowest pair); then the
# lowest suits.

cdef void build_sfu(Ctx* c) noexcept nogil:
    cdef int s, p, wins, cover, i
    for s in range(4):
        wins = sf_windows(c.pm[s], c.W)
        cover = 0
        for i in range(5):
            cover |= wins << i
        cover &= c.pm[s]
        # positions 2..14 are ranks 0..12; position 1 is the ace too
        c.sfu[s] = ((cover >> 2) | (cover << 11)) & ALL_RANKS


cdef void build_unit(Ctx* c, int r) noexcept nogil:
    # The natural cards of each rank in order of preference: first the copies whose use breaks
    # no straight flush (all copies of a card no straight flush can use, all but one of the
    # others), then the last copies of cards a straight flush can use; each part in suit order.
    # The canonical choice of k naturals is the first k of this order.
    cdef int s, k = 0, j, cs, u, p = 0
    cdef u64 l = 0, h = 0
    c.pre_lo[r][0] = 0
    c.pre_hi[r][0] = 0
    c.pre_pen[r][0] = 0
    for s in range(4):
        cs = c.cnt[r][s]
        u = (c.sfu[s] >> r) & 1
        for j in range(cs - u):
            l += KW_LO[s][r]
            h += KW_HI[s][r]
            k += 1
            if k == 1:
                c.first_suit[r] = s
            c.pre_lo[r][k] = l
            c.pre_hi[r][k] = h
            c.pre_pen[r][k] = 0
    for s in range(4):
        if c.cnt[r][s] and (c.sfu[s] >> r) & 1:
            l += KW_LO[s][r]
            h += KW_HI[s][r]
            p += 1
            k += 1
            if k == 1:
                c.first_suit[r] = s
            c.pre_lo[r][k] = l
            c.pre_hi[r][k] = h
            c.pre_pen[r][k] = p
    c.bu |= 1 << r


cdef inline int canon_group(Ctx* c, int r, int n, u64* lo, u64* hi, int* pen) noexcept nogil:
    """The canonical n cards of rank r: wilds used, or -1 when the hand cannot."""
    cdef int k = min(n, c.avail[r])
    cdef int w = n - k
    if w > c.W:
        return -1
    if not (c.bu >> r) & 1:
        build_unit(c, r)
    lo[0] = c.pre_lo[r][k] + c.wild_lo * w
    hi[0] = c.pre_hi[r][k]
    pen[0] = c.pre_pen[r][k]
    return w


cdef void compact_groups(Ctx* c) noexcept nogil:
    cdef int r, n, w, pen, nmax, key
    cdef u64 lo, hi
    for r in range(N_RANKS):
        key = rank_value(r, c.lr)
        if key > c.minkey:
            if c.tmask & (1 << T_SINGLE) and (c.size == 0 or c.size == 1):
                if c.avail[r] or (r == c.lr and c.W):
                    canon_group(c, r, 1, &lo, &hi, &pen)
                    emit(c, lo, hi | move_tag(T_SINGLE, r + 2))
            if c.tmask & (1 << T_PAIR) and (c.size == 0 or c.size == 2):
                if c.avail[r] or r == c.lr:
                    if canon_group(c, r, 2, &lo, &hi, &pen) >= 0:
                        emit(c, lo, hi | move_tag(T_PAIR, r + 2))
            if c.tmask & (1 << T_TRIPS) and (c.size == 0 or c.size == 3):
                if canon_group(c, r, 3, &lo, &hi, &pen) >= 0:
                    emit(c, lo, hi | move_tag(T_TRIPS, r + 2))
        nmax = c.avail[r] + c.W
        if nmax > MAX_BOMB_SIZE:
            nmax = MAX_BOMB_SIZE
        for n in range(4, nmax + 1):
            if c.size and c.size != n:
                continue
            if bomb_ok(c, bomb_tier(n), key):
                canon_group(c, r, n, &lo, &hi, &pen)
                emit(c, lo, hi | move_tag(T_BOMB, r + 2))
    if c.tmask & (1 << T_SINGLE) and (c.size == 0 or c.size == 1):
        if c.nsb and VALUE_SB > c.minkey:
            emit(c, 0, SB_HI | move_tag(T_SINGLE, RANK_JOKER))
        if c.nhr and VALUE_HR > c.minkey:
            emit(c, 0, HR_HI | move_tag(T_SINGLE, RANK_JOKER))
    if c.tmask & (1 << T_PAIR) and (c.size == 0 or c.size == 2):
        if c.nsb == 2 and VALUE_SB > c.minkey:
            emit(c, 0, 2 * SB_HI | move_tag(T_PAIR, RANK_JOKER))
        if c.nhr == 2 and VALUE_HR > c.minkey:
            emit(c, 0, 2 * HR_HI | move_tag(T_PAIR, RANK_JOKER))
    if c.nsb == 2 and c.nhr == 2 and (c.size == 0 or c.size == 4) and bomb_ok(c, TIER_JOKERS, 0):
        emit(c, 0, 2 * SB_HI + 2 * HR_HI | move_tag(T_BOMB, RANK_JOKER))


cdef enum:
    # compact_full_houses' pair slots: one per rank index, then the two joker pairs
    PAIR_SB = N_RANKS
    PAIR_HR = N_RANKS + 1
    N_PAIR_SLOTS = N_RANKS + 2


cdef void compact_full_houses(Ctx* c) noexcept nogil:
    cdef u64 plo[N_PAIR_SLOTS]
    cdef u64 phi[N_PAIR_SLOTS]
    cdef int pw[N_PAIR_SLOTS]
    cdef int ppen[N_PAIR_SLOTS]
    cdef int pv[N_PAIR_SLOTS]
    cdef int y, x, wt, pen, best
    cdef u64 lo, hi
    if c.size and c.size != 5:
        return
    for y in range(N_RANKS):
        pw[y] = -1
        if c.avail[y] or y == c.lr:
            pw[y] = canon_group(c, y, 2, &plo[y], &phi[y], &ppen[y])
        pv[y] = rank_value(y, c.lr)
    pw[PAIR_SB] = -1
    pw[PAIR_HR] = -1
    if c.fjp:
        if c.nsb == 2:
            pw[PAIR_SB] = 0
            plo[PAIR_SB] = 0
            phi[PAIR_SB] = 2 * SB_HI
            ppen[PAIR_SB] = 0
            pv[PAIR_SB] = VALUE_SB
        if c.nhr == 2:
            pw[PAIR_HR] = 0
            plo[PAIR_HR] = 0
            phi[PAIR_HR] = 2 * HR_HI
            ppen[PAIR_HR] = 0
            pv[PAIR_HR] = VALUE_HR
    # the possible pairs, best first: fewest wilds, lowest penalty, lowest value
    cdef int order[N_PAIR_SLOTS]
    cdef int no = 0, i, j, y2, ky
    for y in range(N_PAIR_SLOTS):
        if pw[y] < 0:
            continue
        ky = (pw[y] * 64 + ppen[y]) * 32 + pv[y]
        j = no
        while j > 0:
            y2 = order[j - 1]
            if (pw[y2] * 64 + ppen[y2]) * 32 + pv[y2] <= ky:
                break
            order[j] = y2
            j -= 1
        order[j] = y
        no += 1
    for x in range(N_RANKS):
        if rank_value(x, c.lr) <= c.minkey:
            continue
        wt = canon_group(c, x, 3, &lo, &hi, &pen)
        if wt < 0:
            continue
        for i in range(no):
            best = order[i]
            if best != x and pw[best] + wt <= c.W:
                emit(c, lo + plo[best], (hi + phi[best]) | move_tag(T_THREE_WITH_TWO, x + 2))
                break
        else:
            # The pair of two wilds (edge case 42) for a natural triple of the level rank: it
            # has the most wilds of any pair, so it is canonical only when nothing else fits.
            if x == c.lr and wt == 0 and c.W == 2:
                emit(c, lo + 2 * c.wild_lo, hi | move_tag(T_THREE_WITH_TWO, x + 2))


cdef inline int single_cost(Ctx* c, int r, int s) noexcept nogil:
    # 1 when playing this card leaves a straight flush of the hand without it
    return ((c.sfu[s] >> r) & 1) and c.cnt[r][s] == 1


cdef void sort5(int* a, int n) noexcept nogil:
    cdef int i, j, v
    for i in range(1, n):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


cdef bint straight_choice(Ctx* c, int p, int* suit) noexcept nogil:
    """Canonical suits (-1 = wild) of the straight at p; False if it has none."""
    cdef int i, r, s, best, bc, cost, gaps = 0, pen, m = 0
    cdef int alt[5]
    cdef int altc[5]
    cdef int bestc[5]
    cdef int keys[5]
    cdef int bkeys[5]
    cdef int bslot = -1, bpen = 0, j, cand_pen
    for i in range(5):
        r = pos_rank(p + i)
        suit[i] = -1
        if c.avail[r] == 0:
            gaps += 1
            continue
        if not (c.bu >> r) & 1:
            build_unit(c, r)
        best = c.first_suit[r]
        suit[i] = best
        bestc[i] = c.pre_pen[r][1]
        m |= 1 << best
    if gaps > c.W:
        return False
    if c.sfs or (m & (m - 1)) != 0:
        return True
    # Not allowed to be one suit: change the one slot whose best other suit costs least.
    for i in range(5):
        alt[i] = -1
        r = pos_rank(p + i)
        if suit[i] < 0:
            continue
        bc = 2
        for s in range(4):
            if s != suit[i] and c.cnt[r][s]:
                cost = single_cost(c, r, s)
                if cost < bc:
                    bc = cost
                    alt[i] = s
        altc[i] = bc
    for i in range(5):
        if alt[i] < 0:
            continue
        cand_pen = altc[i] - bestc[i]
        for j in range(5):
            r = pos_rank(p + j)
            if suit[j] < 0:
                keys[j] = c.lr * 4 + 1
            elif j == i:
                keys[j] = r * 4 + alt[i]
            else:
                keys[j] = r * 4 + suit[j]
        sort5(keys, 5)
        if bslot >= 0:
            if cand_pen > bpen:
                continue
            if cand_pen == bpen:
                j = 0
                while j < 5 and keys[j] == bkeys[j]:
                    j += 1
                if j == 5 or keys[j] > bkeys[j]:
                    continue
        bslot = i
        bpen = cand_pen
        for j in range(5):
            bkeys[j] = keys[j]
    if bslot < 0:
        return False
    suit[bslot] = alt[bslot]
    return True


cdef void compact_sequences(Ctx* c) noexcept nogil:
    cdef int p, i, r, w, pen, ok, g
    cdef int suit[5]
    cdef u64 lo, hi, l, h
    if (c.size == 0 or c.size == 5) and c.tmask & (1 << T_STRAIGHT):
        for p in range(max(1, c.minkey + 1), LAST_STRAIGHT_POS + 1):
            if not straight_choice(c, p, suit):
                continue
            lo = 0
            hi = 0
            for i in range(5):
                r = pos_rank(p + i)
                if suit[i] < 0:
                    lo += c.wild_lo
                else:
                    lo += KW_LO[suit[i]][r]
                    hi += KW_HI[suit[i]][r]
            emit(c, lo, hi | move_tag(T_STRAIGHT, p))
    if (c.size == 0 or c.size == 6) and c.tmask & (1 << T_THREE_PAIR):
        for p in range(max(1, c.minkey + 1), LAST_THREE_PAIR_POS + 1):
            lo = 0
            hi = 0
            w = 0
            ok = 1
            for i in range(3):
                r = pos_rank(p + i)
                g = canon_group(c, r, 2, &l, &h, &pen)
                if g < 0:
                    ok = 0
                    break
                w += g
                lo += l
                hi += h
            if ok and w <= c.W:
                emit(c, lo, hi | move_tag(T_THREE_PAIR, p))
    if (c.size == 0 or c.size == 6) and c.tmask & (1 << T_TWO_TRIPS):
        for p in range(max(1, c.minkey + 1), LAST_TWO_TRIPS_POS + 1):
            lo = 0
            hi = 0
            w = 0
            ok = 1
            for i in range(2):
                r = pos_rank(p + i)
                g = canon_group(c, r, 3, &l, &h, &pen)
                if g < 0:
                    ok = 0
                    break
                w += g
                lo += l
                hi += h
            if ok and w <= c.W:
                emit(c, lo, hi | move_tag(T_TWO_TRIPS, p))


# ---------------------------------------------------------------------------------------------
# The C interface (movegen.pxd)

cdef int run(Ctx* c, u64 last_lo, u64 last_hi, bint compact) noexcept nogil:
    cdef int lt = move_type(last_hi), tier, key
    c.size = 0
    if last_lo == 0 and last_hi == 0:
        c.tmask = NONBOMB_TYPES
        c.minkey = 0
        c.btier = 0
        c.bkey = 0
    else:
        tier_key(last_lo, last_hi, c.level, &tier, &key)
        if tier:
            c.tmask = 0
            c.minkey = 99
            c.btier = tier
            c.bkey = key
        else:
            c.tmask = 1u << lt
            c.minkey = key
            c.btier = 0
            c.bkey = 0
    gen_moves(c, compact)
    if not (last_lo == 0 and last_hi == 0):
        emit(c, 0, 0)
    return c.n


cdef void gen_moves(Ctx* c, bint compact) noexcept nogil:
    if compact:
        build_sfu(c)
        compact_groups(c)
        if c.tmask & (1 << T_THREE_WITH_TWO):
            compact_full_houses(c)
        compact_sequences(c)
        if c.btier < TIER_STRAIGHT_FLUSH or (c.btier == TIER_STRAIGHT_FLUSH and c.bkey < LAST_STRAIGHT_POS):
            gen_sf(c, True)
        return
    if c.tmask & (1 << T_SINGLE):
        gen_singles(c)
    if c.tmask & (1 << T_PAIR):
        gen_pairs(c)
    if c.tmask & (1 << T_TRIPS):
        gen_trips(c)
    if c.tmask & (1 << T_THREE_WITH_TWO):
        gen_full_houses(c)
    if c.tmask & (1 << T_STRAIGHT):
        gen_straights(c)
    if c.tmask & (1 << T_THREE_PAIR):
        gen_three_pairs(c)
    if c.tmask & (1 << T_TWO_TRIPS):
        gen_two_trips(c)
    gen_bombs(c)
    if c.btier < TIER_STRAIGHT_FLUSH or (c.btier == TIER_STRAIGHT_FLUSH and c.bkey < LAST_STRAIGHT_POS):
        gen_sf(c, False)


cdef int generate(u64 lo, u64 hi, int level, u64 last_lo, u64 last_hi, const RulesC* rules,
                  bint compact, u64* out, int cap) noexcept nogil:
    cdef Ctx c
    ctx_init(&c, lo, hi & HI_CARD_MASK, level, rules)
    c.out = out
    c.cap = cap
    run(&c, last_lo, last_hi, compact)
    if c.n > cap:
        return -1
    return c.n


cdef int generate_grow(u64 lo, u64 hi, int level, u64 last_lo, u64 last_hi, const RulesC* rules,
                       bint compact, u64** buf, int* cap) noexcept nogil:
    cdef int n = -1, need
    cdef u64* nb
    if buf[0] != NULL:
        n = generate(lo, hi, level, last_lo, last_hi, rules, compact, buf[0], cap[0])
    if n >= 0:
        return n
    # Rare (a constructed hand far above 27 cards): one counting pass, one allocation.
    need = count_moves(lo, hi, level, last_lo, last_hi, rules, compact)
    if need < MAX_MOVES:
        need = MAX_MOVES
    nb = <u64*>realloc(buf[0], sizeof(u64) * 2 * <size_t>need)
    if nb == NULL:
        return -1
    buf[0] = nb
    cap[0] = need
    return generate(lo, hi, level, last_lo, last_hi, rules, compact, nb, need)


cdef int count_moves(u64 lo, u64 hi, int level, u64 last_lo, u64 last_hi, const RulesC* rules,
                     bint compact) noexcept nogil:
    cdef Ctx c
    ctx_init(&c, lo, hi & HI_CARD_MASK, level, rules)
    c.out = NULL
    c.cap = 0
    return run(&c, last_lo, last_hi, compact)


cdef int classify_cards(u64 lo, u64 hi, int level, const RulesC* rules, u64* out, int cap) noexcept nogil:
    cdef Ctx c
    cdef u64 buf[2 * CLASSIFY_CAP]
    cdef int n, i, k = 0
    hi &= HI_CARD_MASK
    n = card_count(lo, hi)
    if n == 0 or n > 10:
        return 0
    ctx_init(&c, lo, hi, level, rules)
    c.out = buf
    c.cap = CLASSIFY_CAP
    c.tmask = NONBOMB_TYPES
    c.minkey = 0
    c.btier = 0
    c.bkey = 0
    c.size = n
    gen_moves(&c, False)
    if c.n > CLASSIFY_CAP:
        c.n = CLASSIFY_CAP  # cannot happen: see CLASSIFY_CAP
    for i in range(c.n):
        if buf[2 * i] == lo and (buf[2 * i + 1] & HI_CARD_MASK) == hi:
            if k < cap:
                out[2 * k] = buf[2 * i]
                out[2 * k + 1] = buf[2 * i + 1]
            k += 1
    return k


cdef bint beats(u64 lo, u64 hi, u64 last_lo, u64 last_hi, int level) noexcept nogil:
    cdef int t = move_type(hi), lt = move_type(last_hi)
    cdef int tier, key, ltier, lkey
    if last_lo == 0 and last_hi == 0:
        return t != 0
    if t == 0:
        return False
    tier_key(lo, hi, level, &tier, &key)
    tier_key(last_lo, last_hi, level, &ltier, &lkey)
    if tier:
        return ltier == 0 or tier > ltier or (tier == ltier and key > lkey)
    if ltier:
        return False
    return t == lt and key > lkey


# ---------------------------------------------------------------------------------------------
# Python API: everything below checks its input, then calls the unchecked core above.

from collections.abc import Sequence as _Sequence

_DEFAULT_RULES = Rules()
_RANKS = "23456789TJQKA"
cdef dict _checked = {}   # (lo, hi, level, rules flags) of plays known to be readings
cdef u64* _scratch = NULL  # shared by the module-level functions (always called with the GIL)
cdef int _scratch_cap = 0


cdef int _level(object level) except -1:
    if type(level) is int and 2 <= level <= 14:
        return <int>level
    if isinstance(level, str) or isinstance(level, bool) or not hasattr(type(level), "__index__"):
        return parse_level(level)
    v = level.__index__()   # numpy integers; huge ints get a ValueError, not OverflowError
    if not 2 <= v <= 14:
        raise ValueError(f"level must be 2..14 (or a rank 2..A), got {level!r}")
    return v


cdef long long _count_arg(object value, str name, long long minimum) except? -1:
    """A count argument: an int (numpy integers too) >= minimum; TypeError or ValueError
    naming it otherwise (never OverflowError)."""
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    v = value.__index__()
    if v < minimum or v > (1 << 62):
        raise ValueError(f"{name} must be an int in {minimum}..2**62, got {v}")
    return v


cdef int _rules_c(object rules, RulesC* out) except -1:
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules instance, not {type(rules).__name__}")
    out.sf_as_straight = rules.sf_as_straight
    out.fullhouse_joker_pair = rules.fullhouse_joker_pair
    return 0


cdef object _as_move(object move, int level, str what):
    """A Move (or PASS) from a Move or a platform list, its form checked (not its reading)."""
    if isinstance(move, Move):
        return move
    if isinstance(move, (list, tuple)):
        if len(move) != 3:
            raise ValueError(f"{what}: a platform action is [type, rank, cards]; got {move!r}")
        if move[0] == "PASS":
            return Move.from_platform(move, level)
        if isinstance(move[2], str):
            raise ValueError(f"{what}: the cards of a platform action are a list of codes; "
                             f"got {move[2]!r}")
        return Move(*move)
    raise TypeError(f"{what} must be a Move or a platform list [type, rank, cards], "
                    f"not {type(move).__name__}")


cdef object _check_play(object move, int level, RulesC* rc, str what):
    """(lo, hi) of a move that is PASS or a reading of its cards at this level; else raises."""
    cdef u64 buf[2 * 64]
    cdef u64 lo, hi
    cdef int n, i
    m = _as_move(move, level, what)
    if m.type == "PASS":
        return (0, 0)
    if m.type in ("tribute", "back"):
        raise ValueError(f"{what} {m} is a {m.type} card, not a play")
    words = m.words
    lo = words[0]
    hi = words[1]
    # The words of the two jokers' moves share rank code 15, so a false joker label (Single R
    # of SB) has the words of the true move: the label is checked against the cards first.
    if move_rank(hi) == RANK_JOKER and move_of(lo, hi) != m:
        raise ValueError(f"{what}: cards {' '.join(m.cards)} do not make {m.type} {m.rank} "
                         f"at level {_RANKS[level - 2]}")
    ck = (words, level, rc.sf_as_straight, rc.fullhouse_joker_pair)
    if ck in _checked:
        return words
    n = classify_cards(lo, hi, level, rc, buf, 64)
    for i in range(min(n, 64)):
        if buf[2 * i] == lo and buf[2 * i + 1] == hi:
            if len(_checked) > 100000:
                _checked.clear()
            _checked[ck] = True
            return words
    raise ValueError(f"{what}: cards {' '.join(m.cards)} do not make {m.type} {m.rank} "
                     f"at level {_RANKS[level - 2]}")


cdef MoveList new_move_list(const u64* src, int n):
    # The words are copied before the object is made: making it may run the garbage
    # collector, hence finalizers, hence other threads, which could reuse a shared `src`.
    cdef u64* buf = <u64*>malloc(sizeof(u64) * 2 * (n if n > 0 else 1))
    cdef MoveList ml
    if buf == NULL:
        raise MemoryError()
    memcpy(buf, src, sizeof(u64) * 2 * n)
    try:
        ml = MoveList.__new__(MoveList)
    except BaseException:
        free(buf)
        raise
    ml.n = n
    ml.buf = buf
    return ml


cdef MoveList _run_generate(u64 lo, u64 hi, int level, u64 llo, u64 lhi, RulesC* rc,
                            bint compact, u64** buf, int* cap):
    """Generate into *buf (grown as needed) and copy the result into a new MoveList. Called
    with the GIL held throughout, so a buffer shared by callers (the module's, a Hand's) is
    never used by two threads at once."""
    cdef int n = generate_grow(lo, hi, level, llo, lhi, rc, compact, buf, cap)
    if n < 0:
        raise MemoryError("no memory for the legal moves of this hand")
    return new_move_list(buf[0], n)


cdef MoveList _move_list_from_moves(moves):
    """A MoveList of given Moves (unpickling): their words come from the checked Move."""
    cdef MoveList ml
    cdef Py_ssize_t i = 0
    moves = tuple(moves)
    for m in moves:
        if not isinstance(m, Move):
            raise TypeError(f"a MoveList holds Moves, not {type(m).__name__}")
    ml = MoveList.__new__(MoveList)
    ml.buf = <u64*>malloc(sizeof(u64) * 2 * (len(moves) if moves else 1))
    if ml.buf == NULL:
        raise MemoryError()
    for m in moves:
        w = m.words
        ml.buf[2 * i] = w[0]
        ml.buf[2 * i + 1] = w[1]
        i += 1
    ml.n = i
    return ml


def _restore_move_list(moves):
    """Unpickle a ``MoveList`` (see ``MoveList.__reduce__``)."""
    return _move_list_from_moves(moves)


cdef class MoveList:
    """The legal moves of one call: a read-only sequence of ``Move`` backed by the compiled
    buffer. ``Move`` objects are made only when accessed; ``.array`` gives the raw moves as an
    ``(n, 2)`` uint64 array of ``(lo, hi)`` rows (docs/design.md).

    >>> ml = legal_moves('S9 C9', 2)
    >>> len(ml), ml[-1], Move('Pair', '9', 'S9 C9') in ml, ['Single', '9', ['C9']] in ml
    (3, Move('Pair', '9', ('S9', 'C9')), True, True)
    >>> ml.array.shape, ml.array.dtype.name
    ((3, 2), 'uint64')
    """

    def __cinit__(self):
        self.buf = NULL
        self.n = 0

    def __dealloc__(self):
        free(self.buf)

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        cdef Py_ssize_t i
        if isinstance(index, slice):
            return [self[j] for j in range(*index.indices(self.n))]
        i = index
        if i < 0:
            i += self.n
        if i < 0 or i >= self.n:
            raise IndexError(f"move index {index} out of range for {self.n} moves")
        return move_of(self.buf[2 * i], self.buf[2 * i + 1])

    def __iter__(self):
        cdef Py_ssize_t i
        for i in range(self.n):
            yield move_of(self.buf[2 * i], self.buf[2 * i + 1])

    def __reversed__(self):
        cdef Py_ssize_t i
        for i in range(self.n - 1, -1, -1):
            yield move_of(self.buf[2 * i], self.buf[2 * i + 1])

    cdef Py_ssize_t _find(self, x) except -2:
        """Index of a move given as a Move or a platform list; -1 when absent, including for
        anything that is not a move (``5 in moves`` is False, as for a list)."""
        cdef u64 lo, hi
        cdef Py_ssize_t i
        if isinstance(x, Move):
            m = x
        elif isinstance(x, (list, tuple)):
            try:
                if len(x) == 3 and x[0] == "PASS":
                    m = Move.from_platform(x, 2)
                elif len(x) == 3 and not isinstance(x[2], str):
                    m = Move(*x)
                else:
                    return -1
            except (ValueError, TypeError):
                return -1
        else:
            return -1
        words = m.words
        lo = words[0]
        hi = words[1]
        for i in range(self.n):
            if self.buf[2 * i] == lo and self.buf[2 * i + 1] == hi:
                # The words of the two jokers' moves share rank code 15: the label decides.
                if move_rank(hi) == RANK_JOKER and move_of(lo, hi) != m:
                    return -1
                return i
        return -1

    def __contains__(self, x):
        return self._find(x) >= 0

    def index(self, x):
        """Position of a move (a ``Move`` or a platform list); ValueError when absent."""
        cdef Py_ssize_t i = self._find(x)
        if i < 0:
            raise ValueError(f"{x!r} is not in this MoveList")
        return i

    def count(self, x):
        """1 if the move is in the list, else 0 (moves are distinct)."""
        return 1 if self._find(x) >= 0 else 0

    @property
    def array(self):
        """The moves as a read-only ``(n, 2)`` uint64 numpy array of ``(lo, hi)`` rows."""
        cdef cnp.npy_intp dims[2]
        cdef bytes data
        if self._array is None:
            # The array's memory belongs to an immutable bytes object, so that the flag cannot
            # be turned back on (numpy refuses writeable=True over a read-only base).
            data = PyBytes_FromStringAndSize(<char*>self.buf, sizeof(u64) * 2 * self.n)
            dims[0] = self.n
            dims[1] = 2
            a = cnp.PyArray_SimpleNewFromData(2, dims, cnp.NPY_UINT64,
                                              <void*>PyBytes_AS_STRING(data))
            Py_INCREF(data)  # the reference PyArray_SetBaseObject steals
            cnp.PyArray_SetBaseObject(a, data)
            cnp.PyArray_CLEARFLAGS(a, cnp.NPY_ARRAY_WRITEABLE)
            self._array = a
        return self._array

    def __reduce__(self):
        # Pickled as its moves; unpickling rebuilds the words from the (checked) Moves.
        return (_restore_move_list, (tuple(self),))

    def __copy__(self):
        return self  # immutable

    def __deepcopy__(self, memo):
        return self

    def to_list(self):
        """The moves as a list of ``Move``."""
        return [move_of(self.buf[2 * i], self.buf[2 * i + 1]) for i in range(self.n)]

    def __eq__(self, other):
        # Equal to another MoveList or a list/tuple holding the same moves in any order: the
        # generator's order is its own (the reference sorts by Move.sort_key), and the moves of
        # one call are distinct, so the order carries no information.
        if isinstance(other, (MoveList, list, tuple)):
            return len(self) == len(other) and set(self) == set(other)
        return NotImplemented

    def sorted(self):
        """The moves as a list sorted by ``Move.sort_key`` (the reference's order)."""
        return sorted(self, key=_SORT_KEY)

    def __repr__(self):
        return f"<MoveList of {self.n} moves>"


_Sequence.register(MoveList)


cdef class Hand:
    """A hand parsed once, for repeated move generation without parsing or conversion.

    >>> h = Hand('S5 H5 C5 D5 H7')
    >>> len(h), h.cards
    (5, ('S5', 'H5', 'C5', 'D5', 'H7'))
    >>> [str(m) for m in h.legal_moves(7, last=Move('Bomb', 'A', 'SA HA CA DA'))]
    ['Bomb 5 S5 H5 C5 D5 H7', 'PASS']
    """

    cdef u64 lo
    cdef u64 hi
    cdef tuple _cards
    cdef u64* buf
    cdef int cap
    cdef object _rules      # the Rules whose flags are in _rc
    cdef RulesC _rc
    cdef object _last       # the last play whose words are cached below
    cdef int _last_level
    cdef object _last_rules
    cdef u64 _llo
    cdef u64 _lhi

    def __cinit__(self):
        self.buf = NULL
        self.cap = 0
        self._rules = None
        self._last = None
        self._last_level = 0

    def __init__(self, cards):
        if isinstance(cards, Hand):
            self.lo = (<Hand>cards).lo
            self.hi = (<Hand>cards).hi
            self._cards = (<Hand>cards)._cards
            return
        lo, hi = words_of(cards)
        self.lo = lo
        self.hi = hi
        self._cards = codes_of(lo, hi)

    def __dealloc__(self):
        free(self.buf)

    @property
    def cards(self):
        """The cards in canonical order."""
        return self._cards

    @property
    def words(self):
        """``(lo, hi)``: the hand as a 128-bit multiset (docs/design.md)."""
        return (self.lo, self.hi)

    def __len__(self):
        return len(self._cards)

    def __repr__(self):
        return f"Hand({' '.join(self._cards)!r})"

    def __eq__(self, other):
        if isinstance(other, Hand):
            return self.lo == (<Hand>other).lo and self.hi == (<Hand>other).hi
        return NotImplemented

    def __hash__(self):
        return hash((self.lo, self.hi))

    def __reduce__(self):
        return (Hand, (self._cards,))

    cdef int _prepare(self, object level, object last, object rules) except -1:
        """Level, rules flags and the words of ``last``, cached between calls.

        Everything is computed into locals first and stored at the end with no Python code
        in between (the GIL can only pass to another thread while Python code runs), and
        callers read the fields right after: threads sharing a Hand never mix one call's
        rules with another's last play."""
        cdef int lv = _level(level)
        cdef RulesC rc
        cdef u64 llo = 0, lhi = 0
        cdef bint cached
        if rules is self._rules:
            rc = self._rc
        else:
            _rules_c(rules, &rc)
        cached = last is None or (last is self._last and lv == self._last_level
                                  and rules is self._last_rules and type(last) is Move)
        if not cached:  # a list may have changed since the last call: only Moves are immutable
            words = _check_play(last, lv, &rc, "last")   # Python code: threads may switch
            llo = words[0]
            lhi = words[1]
        # From here on, no Python code.
        self._rc = rc
        self._rules = rules
        if last is None:
            self._llo = 0
            self._lhi = 0
            self._last = None
        elif not cached:
            self._llo = llo
            self._lhi = lhi
            self._last = last
            self._last_level = lv
            self._last_rules = rules
        return lv

    def legal_moves(self, level, last=None, rules=_DEFAULT_RULES, compact=False):
        """Every legal move (docs/rules.md §6) as a ``MoveList``; see ``legal_moves``."""
        cdef int lv = self._prepare(level, last, rules)
        return _run_generate(self.lo, self.hi, lv, self._llo, self._lhi, &self._rc,
                             compact, &self.buf, &self.cap)

    def generate(self, level, last=None, rules=_DEFAULT_RULES, compact=False):
        """Generate the legal moves into the Hand's scratch buffer and return their number,
        making no MoveList: the compiled call plus the argument handling, for benchmarks."""
        cdef int lv = self._prepare(level, last, rules)
        cdef int n
        if self.buf == NULL or self.cap < MAX_MOVES:
            free(self.buf)
            self.buf = <u64*>malloc(sizeof(u64) * 2 * MAX_MOVES)
            if self.buf == NULL:
                self.cap = 0
                raise MemoryError()
            self.cap = MAX_MOVES
        # The GIL is held throughout: no other thread uses self.buf meanwhile.
        n = generate_grow(self.lo, self.hi, lv, self._llo, self._lhi, &self._rc, compact,
                          &self.buf, &self.cap)
        if n < 0:
            raise MemoryError("no memory for the legal moves of this hand")
        return n

    def time_generate(self, level, last=None, rules=_DEFAULT_RULES, compact=False,
                      repeat=1000):
        """Mean nanoseconds of one compiled generate() call on this hand, over ``repeat``
        calls made from C (no Python in the loop): the figure the benchmarks quote.

        The loop runs without the GIL on a private buffer and private copies of the inputs
        (other threads may use the Hand meanwhile), and Ctrl-C stops it.
        """
        cdef long long i, reps = _count_arg(repeat, "repeat", 1)
        cdef bint cm = compact
        cdef timespec t0, t1
        cdef int lv = self._prepare(level, last, rules)
        # Private copies, taken right after _prepare (no Python code in between).
        cdef u64 lo = self.lo, hi = self.hi, llo = self._llo, lhi = self._lhi
        cdef RulesC rc = self._rc
        cdef u64* buf = NULL
        cdef int cap = 0
        cdef Interrupt it
        if generate_grow(lo, hi, lv, llo, lhi, &rc, cm, &buf, &cap) < 0:  # sized and warm
            free(buf)
            raise MemoryError("no memory for the legal moves of this hand")
        interrupt_init(&it, 64, in_main_thread(), NULL)
        try:
            clock_gettime(CLOCK_MONOTONIC, &t0)
            with nogil:
                for i in range(reps):
                    generate(lo, hi, lv, llo, lhi, &rc, cm, buf, cap)
                    if interrupted(&it):
                        break
            clock_gettime(CLOCK_MONOTONIC, &t1)
            if it.stopped:
                raise_pending(&it)
        finally:
            free(buf)
        return ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / reps

    def count_moves(self, level, last=None, rules=_DEFAULT_RULES, compact=False):
        """The number of legal moves, materialising none."""
        cdef int lv = self._prepare(level, last, rules)
        return count_moves(self.lo, self.hi, lv, self._llo, self._lhi, &self._rc, compact)


cdef object _prepare_free(object hand, object level, object last, object rules, RulesC* rc,
                          u64* llo, u64* lhi):
    if isinstance(hand, Hand):
        lo = (<Hand>hand).lo
        hi = (<Hand>hand).hi
    else:
        lo, hi = words_of(hand)
    lv = _level(level)
    _rules_c(rules, rc)
    if last is None:
        llo[0] = 0
        lhi[0] = 0
    else:
        words = _check_play(last, lv, rc, "last")
        llo[0] = words[0]
        lhi[0] = words[1]
    return lo, hi, lv


def legal_moves(hand, level, last=None, rules=_DEFAULT_RULES, compact=False):
    """Every legal move of ``hand`` (docs/rules.md §6) as a ``MoveList``.

    ``hand``: card codes (a string or an iterable) or a ``Hand``; ``level``: 2..14 or a rank
    character; ``last``: None (or PASS) on lead, else the play to beat (a ``Move`` or a
    platform list), which must be a reading of its cards. On follow the moves that beat
    ``last`` come first, then PASS. ``compact``: one canonical move per (type, key, size) and
    per suit for straight flushes (docs/design.md, "Compact mode").

    >>> [str(m) for m in legal_moves('S3 C3 D9 H7', 7, last=['Pair', '2', ['S2', 'D2']]).sorted()]
    ['PASS', 'Pair 3 C3 H7', 'Pair 3 S3 C3', 'Pair 3 S3 H7', 'Pair 9 H7 D9']
    >>> [str(m) for m in legal_moves('S3 C3 D9 H7', 7, last=['Pair', '2', ['S2', 'D2']], compact=True)]
    ['Pair 3 S3 C3', 'Pair 9 H7 D9', 'PASS']
    """
    cdef RulesC rc
    cdef u64 llo, lhi
    lo, hi, lv = _prepare_free(hand, level, last, rules, &rc, &llo, &lhi)
    return _run_generate(lo, hi, lv, llo, lhi, &rc, compact, &_scratch, &_scratch_cap)


def _count_moves_py(hand, level, last=None, rules=_DEFAULT_RULES, compact=False):
    """``len(legal_moves(...))`` without making the list.

    >>> count_moves('S3 C3 D9 H7', 7)    # 4 singles, pairs 33 3w 3w 9w, trips 33w
    9
    """
    cdef RulesC rc
    cdef u64 llo, lhi
    lo, hi, lv = _prepare_free(hand, level, last, rules, &rc, &llo, &lhi)
    return count_moves(lo, hi, lv, llo, lhi, &rc, compact)


_SORT_KEY = Move.sort_key


def classify(cards, level, rules=_DEFAULT_RULES):
    """Every reading of exactly these cards (docs/rules.md §3-4), sorted by ``Move.sort_key``.

    >>> [str(m) for m in classify('S8 C8 D8 H7 H7', 7)]
    ['ThreeWithTwo 8 H7 H7 S8 C8 D8', 'Bomb 8 H7 H7 S8 C8 D8']
    >>> classify('H7 SB', 7)
    []
    """
    cdef RulesC rc
    cdef u64 buf[2 * 64]
    cdef int n, i
    lo, hi = words_of(cards)
    lv = _level(level)
    _rules_c(rules, &rc)
    n = classify_cards(lo, hi, lv, &rc, buf, 64)
    return sorted([move_of(buf[2 * i], buf[2 * i + 1]) for i in range(min(n, 64))],
                  key=_SORT_KEY)


def _beats_py(move, last, level, rules=_DEFAULT_RULES):
    """Does ``move`` beat ``last`` (docs/rules.md §5)? ``last`` None (or PASS) is a lead. Both must
    be readings of their cards at ``level`` (``ValueError`` otherwise).

    >>> beats(Move('Bomb', '9', 'S9 C9 D9 D9'), ['Bomb', 'A', ['SA', 'CA', 'DA', 'DA']], 9)
    True
    >>> beats(PASS, None, 2)
    False
    """
    cdef RulesC rc
    lv = _level(level)
    _rules_c(rules, &rc)
    m = _check_play(move, lv, &rc, "move")
    if last is None:
        p = (0, 0)
    else:
        p = _check_play(last, lv, &rc, "last")
    return bool(beats(m[0], m[1], p[0], p[1], lv))


# The C functions count_moves and beats (movegen.pxd) own those names inside this module, so the
# Python functions are defined under other names and published under the public ones here.
_count_moves_py.__name__ = _count_moves_py.__qualname__ = "count_moves"
_beats_py.__name__ = _beats_py.__qualname__ = "beats"
globals().update(count_moves=_count_moves_py, beats=_beats_py)
del _count_moves_py, _beats_py

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, autotestdict=False, embedsignature=True, binding=True
"""The compiled move generator: docs/rules.md §3-6 over the 128-bit encoding of docs/design.md.

``generate``, ``generate_grow``, ``count_moves``, ``classify_cards`` and ``beats`` (declared in
movegen_core.pxd) are ``nogil``, allocation-free and unchecked: callers pass hands and moves
built by checked code (the Python API in ``guandan_fast.movegen``, the ``Game`` wrapper). This
module has no Python API of its own.

How it works: per-rank counts (naturals by suit, the wilds apart), per-suit position masks for
straight flushes, and per-rank option lists ("k natural cards of rank r plus n-k wilds") from
which every combination is assembled by adding words, so that distinct choices give distinct
multisets and no deduplication is needed.
"""

from libc.stdlib cimport realloc
from libc.stdint cimport int32_t

from guandan_fast.types cimport (u64, N_RANKS, N_SUITS, SUIT_BITS, SB_BIT, HR_BIT, ALL_RANKS,
                                 SUIT_MASK, HI_CARD_MASK, SB_HI, HR_HI, T_SINGLE, T_PAIR, T_TRIPS,
                                 T_THREE_WITH_TWO, T_STRAIGHT, T_THREE_PAIR, T_TWO_TRIPS, T_BOMB,
                                 T_STRAIGHT_FLUSH, NONBOMB_TYPES, RANK_JOKER, VALUE_SB, VALUE_HR,
                                 TIER_STRAIGHT_FLUSH, TIER_JOKERS, LAST_STRAIGHT_POS,
                                 LAST_THREE_PAIR_POS, LAST_TWO_TRIPS_POS, move_type, move_rank, move_tag,
                                 rank_value, bomb_tier, tier_key, card_count, MAX_BOMB_SIZE,
                                 ODD_BITS, VALUE_LEVEL, ACE_RANK, __builtin_ctzll, __builtin_popcountll,
                                 __builtin_clzll)
from guandan_fast.movegen_core cimport RulesC, MAX_MOVES, HandCounts
from guandan_fast.action_space cimport (N_ACTIONS, A_PASS, A_SINGLE, A_PAIR, A_TRIPS, A_FULL_HOUSE,
                                        A_STRAIGHT, A_THREE_PAIR, A_TWO_TRIPS, A_BOMB,
                                        A_STRAIGHT_FLUSH, A_JOKER_BOMB)


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
# PREFIX[b][k]: the first k copies of the byte b in suit order (S, H, C, D), as a byte of the
# same form (k at most the copies of b): the compact mode's canonical choices (canon_group).
cdef unsigned char PREFIX[256][9]


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
    for b in range(256):
        for k in range(9):
            left, out = k, 0
            for s in range(4):
                take = min(left, (b >> (2 * s)) & 3)
                out |= take << (2 * s)
                left -= take
            PREFIX[b][k] = out


_init_subsets()

# ---------------------------------------------------------------------------------------------
# Generator state

# One way to make a group of n cards of one rank: k natural cards of the rank plus n - k wilds.
cdef struct Opt:
    u64 lo      # the cards (no type/rank bits)
    u64 hi
    int w       # wilds used (n - k)
    int suits   # bit mask of the suits of its natural cards (straights must not be one suit)

cdef enum:
    # Capacity of a rank's option list for groups of 1, 2, 3 cards: at most 4 / 10 / 20 natural
    # sub-multisets (SUB_COUNT) plus the wild fillers, with a margin.
    OPT1_CAP = 5
    OPT2_CAP = 16
    OPT3_CAP = 31

# Everything one generate() call knows: the hand broken down (h: a HandCounts of movegen_core.pxd,
# its own `own`, or a caller's memo kept between calls on the same hand), what to generate,
# where to write, and tables built lazily (only for the ranks a call needs: a follow needs few).
cdef struct Ctx:
    HandCounts* h              # the hand's counts and the canonical choices' tables (hand_count)
    HandCounts own             # h's storage when the caller keeps no memo
    int col[N_RANKS]     # h.sw again, one byte per rank: 2 bits per suit (indexes SUB_* tables;
                         # complete mode only: build_cols)
    bint sfs             # Rules.sf_as_straight: a one-suit run is also a Straight
    bint fjp             # Rules.fullhouse_joker_pair: a joker pair may be a full house's pair
    # -- what to generate (run(), classify_cards) --
    unsigned tmask       # non-bomb types wanted (bit per type code)
    int minkey           # non-bomb moves need play_key > minkey (0 on lead)
    int btier            # bombs need (tier, key) > (btier, bkey)
    int bkey
    int size             # 0, or only moves of exactly this many cards (classify)
    # -- output: emit() writes while n < cap and always counts (cap 0: count only) --
    u64* out
    int32_t* ids         # generate_actions: the action id of each move (else NULL)
    int n
    int cap
    # -- option lists per rank for groups of 1, 2, 3 cards, fewest wilds first (build1/2/3) --
    int b1               # rank mask of the ranks whose 1-card list is built
    int b2               # the same for 2-card lists
    int b3               # and 3-card lists
    int n1[N_RANKS]      # entries of o1[r]
    int nn1[N_RANKS]     # entries of o1[r] with at least one natural card (the rest: all wilds)
    int n2[N_RANKS]
    int nn2[N_RANKS]
    int n3[N_RANKS]
    int nn3[N_RANKS]
    Opt o1[N_RANKS][OPT1_CAP]
    Opt o2[N_RANKS][OPT2_CAP]
    Opt o3[N_RANKS][OPT3_CAP]


cdef inline int cnt(const Ctx* c, int r, int s) noexcept nogil:
    """Natural copies (0..2) of rank index r in suit s."""
    return <int>((c.h.sw[s] >> (2 * r)) & 3)


cdef inline int navail(const Ctx* c, int r) noexcept nogil:
    """Natural copies (0..8) of rank index r, all suits."""
    return <int>((c.h.av >> (4 * r)) & 15)


cdef inline void emit(Ctx* c, u64 lo, u64 hi) noexcept nogil:
    # Count-only mode: count_moves() runs the same generator with cap 0, so nothing is written
    # and n still counts every move (generate_grow sizes its buffer from that count). A full
    # buffer is never written past: generate() then returns -1.
    if c.n < c.cap:
        c.out[2 * c.n] = lo
        c.out[2 * c.n + 1] = hi
    c.n += 1


cdef inline void emit_action(Ctx* c, int a, u64 lo, u64 hi) noexcept nogil:
    # emit() of a compact move whose abstract action is `a`; generate_actions also writes
    # the id beside it (the other callers pass ids NULL).
    if c.n < c.cap:
        c.out[2 * c.n] = lo
        c.out[2 * c.n + 1] = hi
        if c.ids != NULL:
            c.ids[c.n] = a
    c.n += 1


cdef inline int put_id(int32_t* ids, u64* out, int n, int a, u64 lo, u64 hi) noexcept nogil:
    # emit_action() in generate_actions' own blocks (action_singles, its pairs and trips,
    # action_full_houses), which write most of a decision's moves: there ids is set and the
    # buffers hold N_ACTIONS moves, one per id at most, so neither the capacity nor ids needs
    # a test; and the count stays in a register (the block's local n, returned here plus one,
    # stored in c.n once at its end: c.n in memory is reloaded after every store through ids,
    # which may alias it).
    out[2 * n] = lo
    out[2 * n + 1] = hi
    ids[n] = a
    return n + 1


cdef inline int pos_rank(int pos) noexcept nogil:
    # natural position 1..14 -> rank index (A is 1 and 14)
    if pos == 1:
        return 12
    return pos - 2


cdef extern from *:
    """
    /* A hand's natural counts per rank as 16 bytes (ranks 0..12, then zeros: HandCounts.avb) beside
       their 4-bit form (HandCounts.av): with SSE2 (x86-64 always has it) "the ranks holding at least
       k" is one byte compare and a movemask (against about 15 word operations gathering a bit
       per 4-bit field), and the runs' windows a few byte additions. Other targets get the
       4-bit word code. */
    #include <stdint.h>
    #define GF_NIBBLES_13 0x1111111111111ULL
    #define GF_NIBBLES_16 0x1111111111111111ULL
    #if defined(__SSE2__) && defined(__x86_64__)
    #include <emmintrin.h>
    #define GF_BYTE_COUNTS 1
    /* gf_bytes[i]: every byte i - 1 (row 0: -1) */
    #define GF_ROW(v) {v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v}
    static const signed char gf_bytes[17][16] __attribute__((aligned(16))) = {
        GF_ROW(-1), GF_ROW(0), GF_ROW(1), GF_ROW(2), GF_ROW(3), GF_ROW(4), GF_ROW(5),
        GF_ROW(6), GF_ROW(7), GF_ROW(8), GF_ROW(9), GF_ROW(10), GF_ROW(11), GF_ROW(12),
        GF_ROW(13), GF_ROW(14), GF_ROW(15)};
    #define GF_BYTES(i) _mm_load_si128((const __m128i *)gf_bytes[i])
    #else
    #define GF_BYTE_COUNTS 0
    #endif

    /* Bit i set when bit 4i of x is (i < 16): the 4-bit fields' flags gathered. */
    static inline int gf_nibble_bits(uint64_t x) {
        x &= GF_NIBBLES_16;
        x = (x | (x >> 3)) & 0x0303030303030303ULL;
        x = (x | (x >> 6)) & 0x000F000F000F000FULL;
        x = (x | (x >> 12)) & 0x000000FF000000FFULL;
        return (int)((x | (x >> 24)) & 0xFFFF);
    }

    static inline void gf_count_bytes(uint64_t av, unsigned char *avb) {
    #if GF_BYTE_COUNTS
        __m128i x = _mm_cvtsi64_si128((long long)av), m = GF_BYTES(16);
        _mm_storeu_si128((__m128i *)avb, _mm_unpacklo_epi8(_mm_and_si128(x, m),
                                                           _mm_and_si128(_mm_srli_epi16(x, 4), m)));
    #else
        int r;
        for (r = 0; r < 16; r++) avb[r] = (unsigned char)((av >> (4 * r)) & 15);
    #endif
    }

    /* Rank mask of the ranks holding at least k (0..15) natural cards. Without SSE2: count
       >= k exactly when count + 8 - k sets bit 3 of its field (counts are at most 8). */
    static inline int gf_ranks_with(const unsigned char *avb, uint64_t av, int k) {
    #if GF_BYTE_COUNTS
        return _mm_movemask_epi8(_mm_cmpgt_epi8(_mm_loadu_si128((const __m128i *)avb),
                                                GF_BYTES(k))) & 0x1FFF;
    #else
        if (k <= 0) return 0x1FFF;
        return gf_nibble_bits((av + (uint64_t)(8 - k) * GF_NIBBLES_13) >> 3) & 0x1FFF;
    #endif
    }

    /* Bit p set when a run of `width` groups of n cards from natural position p needs at
       most W wilds beside the hand's natural cards: the cards missing per rank (n minus the
       count, at least 0) at their positions (rank r at r + 2, the ace also at 1), summed
       over `width` shifted copies, compared with W. */
    static inline int gf_run_windows(const unsigned char *avb, uint64_t av, int width, int n,
                                     int W) {
    #if GF_BYTE_COUNTS
        __m128i need = _mm_subs_epu8(GF_BYTES(n + 1), _mm_loadu_si128((const __m128i *)avb));
        __m128i pos, sums;
        need = _mm_and_si128(need, _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                                 -1, -1, 0, 0, 0));
        pos = _mm_or_si128(_mm_slli_si128(need, 2),
                           _mm_cvtsi32_si128((_mm_extract_epi16(need, 6) & 0xFF) << 8));
        sums = pos;
        if (width > 1) sums = _mm_add_epi8(sums, _mm_srli_si128(pos, 1));
        if (width > 2) sums = _mm_add_epi8(sums, _mm_srli_si128(pos, 2));
        if (width > 3) sums = _mm_add_epi8(sums, _mm_srli_si128(pos, 3));
        if (width > 4) sums = _mm_add_epi8(sums, _mm_srli_si128(pos, 4));
        return ~_mm_movemask_epi8(_mm_cmpgt_epi8(sums, GF_BYTES(W + 1))) & 0xFFFE;
    #else
        /* the same on 4-bit fields (at most 6 missing per field: no carry) */
        uint64_t need = (uint64_t)n * GF_NIBBLES_13, pos, sums;
        int k;
        for (k = 1; k <= n; k++)
            need -= ((av + (uint64_t)(8 - k) * GF_NIBBLES_13) >> 3) & GF_NIBBLES_13;
        pos = (need << 8) | (((need >> 48) & 15) << 4);
        sums = pos;
        for (k = 1; k < width; k++) sums += pos >> (4 * k);
        return ~gf_nibble_bits((sums + (uint64_t)(7 - W) * GF_NIBBLES_16) >> 3) & 0xFFFE;
    #endif
    }
    """
    void count_bytes "gf_count_bytes"(u64 av, unsigned char* avb) noexcept nogil
    int gf_ranks_with(const unsigned char* avb, u64 av, int k) noexcept nogil
    int gf_run_windows(const unsigned char* avb, u64 av, int width, int n, int W) noexcept nogil


cdef inline int ranks_with(const HandCounts* h, int k) noexcept nogil:
    """Rank mask of the ranks holding at least k natural cards (k <= 15)."""
    return gf_ranks_with(h.avb, h.av, k)


# ABOVE[key][lr]: rank mask of the ranks whose single-order value beats key (0..17; row 18:
# any larger key, none) when the level's rank index is lr (the level rank: VALUE_LEVEL).
cdef unsigned short ABOVE[19][N_RANKS]


cdef _init_above():
    cdef int key, lr, r, m
    for key in range(19):
        for lr in range(N_RANKS):
            m = 0
            for r in range(N_RANKS):
                if rank_value(r, lr) > key:
                    m |= 1 << r
            ABOVE[key][lr] = m


_init_above()


cdef inline int ranks_above(int key, int lr) noexcept nogil:
    """Rank mask of the ranks whose single-order value beats key (>= 0)."""
    return ABOVE[key if key < 18 else 18][lr]


cdef inline int run_windows(const HandCounts* h, int width, int n, int W) noexcept nogil:
    """Bit p set when a run of `width` groups of n cards from natural position p needs at
    most W wilds beside the hand's natural cards (Straight 5 x 1, ThreePair 3 x 2, TwoTrips
    2 x 3): every window at once (gf_run_windows). Bits past a type's last window mean
    nothing (callers stop there)."""
    return gf_run_windows(h.avb, h.av, width, n, W)


cdef inline int windows_above(int key, int last) noexcept nogil:
    """Bits of the sequence positions p with key < p <= last (and p >= 1), in run_windows'
    layout: the windows a run must start at to beat a run of key."""
    if key >= last:
        return 0
    if key < 0:
        key = 0
    return ((2 << last) - 1) & ~((2 << key) - 1)


cdef inline bint bomb_ok(Ctx* c, int tier, int key) noexcept nogil:
    return tier > c.btier or (tier == c.btier and key > c.bkey)


cdef extern from *:
    """
    /* Two suits' counts spread at once in the two 64-bit lanes of an SSE2 register (GCC
       vector extensions; x86-64 always has SSE2, other targets get scalar code): 2-bit
       fields at bits 2r -> 4-bit fields at bits 4r (r < 16). */
    #include <stdint.h>
    typedef uint64_t gf_v2u __attribute__((vector_size(16)));
    static inline gf_v2u gf_spread2(gf_v2u x) {
        x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
        x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
        x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
        return (x | (x << 2)) & 0x3333333333333333ULL;
    }
    /* sw[0..3]: the four suits' natural counts (26 bits each) -> av: their sum per rank,
       4 bits per rank; c01, c23: suits 0 | 1 << 2 and 2 | 3 << 2, 4 bits per rank. */
    static inline void gf_rank_counts(const uint64_t *sw, uint64_t *av, uint64_t *c01,
                                      uint64_t *c23) {
        gf_v2u a = {sw[0], sw[2]}, b = {sw[1], sw[3]}, t;
        a = gf_spread2(a);
        b = gf_spread2(b);
        t = a + b;
        *av = t[0] + t[1];
        t = a | (b << 2);
        *c01 = t[0];
        *c23 = t[1];
    }
    """
    void rank_counts "gf_rank_counts"(const u64* sw, u64* av, u64* c01, u64* c23) noexcept nogil


cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    typedef uint32_t gf_v4u __attribute__((vector_size(16)));
    /* The four suits at once, one per 32-bit lane. sw: their natural counts (26 bits);
       W: the wilds held. Writes, per suit:
       pm:  the position mask, bit p set when the suit holds a card at sequence position p
            (1..14): rank index r at r + 2, and the ace (r = 12) also at 1, the low end of
            A2345 (the "ace fold"), so a window p..p+4 is bits p..p+4;
       sfw: bit p (1..10) set when the window p..p+4 misses at most W cards. Bit-sliced
            counters: every bit p is its own window; one, two, three are the bits "at least
            1 / 2 / 3 positions missing" of all ten windows at once; step i looks at
            position p + i of each (the mask shifted right by i) and a missing card promotes
            the count (saturating at three, all that W = 2 needs);
       sfu: the ranks (mask) of the suit's cards that some window of sfw covers. */
    static inline void gf_sf_suits(const uint64_t *sw, int W, int *pm, int *sfw, int *sfu) {
        gf_v4u x = {(uint32_t)sw[0], (uint32_t)sw[1], (uint32_t)sw[2], (uint32_t)sw[3]};
        gf_v4u p, m, w, cover, one = {0, 0, 0, 0}, two = one, three = one;
        int i;
        x = (x | (x >> 1)) & 0x55555555u;          /* bit 2r: rank r held */
        x = (x | (x >> 1)) & 0x33333333u;          /* ... packed to bit r */
        x = (x | (x >> 2)) & 0x0F0F0F0Fu;
        x = (x | (x >> 4)) & 0x00FF00FFu;
        x = (x | (x >> 8)) & 0x0000FFFFu;
        p = (x << 2) | ((x >> 11) & 2u);
        for (i = 0; i < 5; i++) {
            m = ~(p >> i);
            three |= two & m;
            two |= one & m;
            one |= m;
        }
        w = (W == 0 ? ~one : W == 1 ? ~two : ~three) & 0x7FEu;
        cover = (w | (w << 1) | (w << 2) | (w << 3) | (w << 4)) & p;
        /* back from positions to ranks: positions 2..14 are ranks 0..12, position 1 the ace */
        cover = ((cover >> 2) | (cover << 11)) & 0x1FFFu;
        memcpy(pm, &p, sizeof p);
        memcpy(sfw, &w, sizeof w);
        memcpy(sfu, &cover, sizeof cover);
    }
    """
    void sf_suits "gf_sf_suits"(const u64* sw, int W, int* pm, int* sfw, int* sfu) noexcept nogil


cdef inline int suit_ranks(u64 sw) noexcept nogil:
    """Distinct ranks held in one suit (the set bits of its position mask at 2..14)."""
    return __builtin_popcountll((sw | (sw >> 1)) & ODD_BITS)


cdef inline int bomb_rank(HandCounts* h) noexcept nogil:
    """The hand's best bomb on the ladder (docs/rules.md §5) as tier * 32 + key, 0 when it
    holds none; counted with the hand (hand_count: h.bombtk; counted on demand instead, the
    test "counted yet?" mispredicted 0.18 times a decision for 4 instructions less) and read
    by follow_possible: a bomb top is
    beaten exactly when this is larger than its own tier * 32 + key, a non-bomb top when it
    is not 0. Same-rank bombs: a rank's largest is its best (the tier grows with the size);
    straight flushes: the highest window of any suit (hand_count's sfw)."""
    cdef int best = 0, m, r, n, t, sf
    if h.nsb == 2 and h.nhr == 2:
        best = TIER_JOKERS * 32                 # the joker bomb, above everything
    else:
        m = ranks_with(h, 4 - h.W)
        while m:
            r = __builtin_ctzll(m)
            m &= m - 1
            n = <int>((h.av >> (4 * r)) & 15) + h.W
            if n > MAX_BOMB_SIZE:
                n = MAX_BOMB_SIZE
            t = bomb_tier(n) * 32 + rank_value(r, h.lr)
            if t > best:
                best = t
        if best < (TIER_STRAIGHT_FLUSH + 1) * 32:
            sf = h.sfany
            if sf:
                t = TIER_STRAIGHT_FLUSH * 32 + 63 - __builtin_clzll(sf)
                if t > best:
                    best = t
    return best


cdef void hand_count(HandCounts* h, u64 lo, u64 hi, int level) noexcept nogil:
    """The hand's counts (what a follow's feasibility test reads, follow_possible): wilds,
    naturals per suit and per rank, jokers, the straight-flush tables; nothing built on
    demand yet. hi: cards only (HI_CARD_MASK)."""
    h.lo = lo
    h.hi = hi
    h.level = level
    h.lr = level - 2
    h.wild_lo = (<u64>1) << (SUIT_BITS + 2 * h.lr)   # the heart of the level rank
    h.W = <int>((lo >> (SUIT_BITS + 2 * h.lr)) & 3)
    lo -= (<u64>h.W) << (SUIT_BITS + 2 * h.lr)
    h.sw[0] = lo & SUIT_MASK
    h.sw[1] = (lo >> SUIT_BITS) & SUIT_MASK
    h.sw[2] = hi & SUIT_MASK
    h.sw[3] = (hi >> SUIT_BITS) & SUIT_MASK
    rank_counts(h.sw, &h.av, &h.c01, &h.c23)
    count_bytes(h.av, h.avb)
    h.nsb = <int>((hi >> SB_BIT) & 3)
    h.nhr = <int>((hi >> HR_BIT) & 3)
    h.bu = 0
    # The straight-flush tables: every listing and bomb_rank (just below) read them, so they
    # are built here. A window needs five distinct ranks of its suit counting
    # the wilds: one test for the four suits (sf_suits costs ~80 instructions, the test ~16).
    cdef int s, most = suit_ranks(h.sw[0])
    for s in range(1, 4):
        most = max(most, suit_ranks(h.sw[s]))
    if most + h.W >= 5:
        sf_suits(h.sw, h.W, h.pm, h.sfw, h.sfu)
        h.sfany = h.sfw[0] | h.sfw[1] | h.sfw[2] | h.sfw[3]
    else:
        # no window in any suit (pm is not built: only suits with windows read it)
        for s in range(4):
            h.sfw[s] = 0
            h.sfu[s] = 0
        h.sfany = 0
    h.bombtk = bomb_rank(h)


cdef inline void ctx_hand(Ctx* c, u64 lo, u64 hi, int level) noexcept nogil:
    """c's hand, counted into its own storage (no memo)."""
    c.h = &c.own
    hand_count(c.h, lo, hi, level)


cdef inline void ctx_rest(Ctx* c, const RulesC* rules) noexcept nogil:
    """The rest of a generator's state after ctx_hand: switches, no option list built yet."""
    c.sfs = rules.sf_as_straight
    c.fjp = rules.fullhouse_joker_pair
    c.b1 = 0
    c.b2 = 0
    c.b3 = 0
    c.n = 0
    c.ids = NULL


cdef void ctx_init(Ctx* c, u64 lo, u64 hi, int level, const RulesC* rules) noexcept nogil:
    ctx_hand(c, lo, hi, level)
    ctx_rest(c, rules)


cdef void build_cols(Ctx* c) noexcept nogil:
    """col[r] for every rank: what the complete mode's sub-multiset tables are indexed by
    (the compact mode never reads it, so ctx_init leaves it to the complete mode's runs)."""
    cdef int r
    for r in range(N_RANKS):
        c.col[r] = cnt(c, r, 0) | (cnt(c, r, 1) << 2) | (cnt(c, r, 2) << 4) | (cnt(c, r, 3) << 6)


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
    cdef int kmax = min(n, navail(c, r))
    cdef int kmin = n - c.h.W
    cdef u64 wl
    if kmin < 0:
        kmin = 0
    nn[0] = 0
    k = kmax
    while k >= kmin:
        w = n - k
        wl = c.h.wild_lo * w
        if k == 0:
            nn[0] = idx
            dst[idx].lo = wl
            dst[idx].hi = 0
            dst[idx].w = w
            dst[idx].suits = 0
            return idx + 1
        st = SUB_START[col][k]
        m = SUB_COUNT[col][k]
        for i in range(m):
            b = SUB_BYTES[st + i]
            dst[idx].lo = (BASE_LO[b] << sh) + wl
            dst[idx].hi = BASE_HI[b] << sh
            dst[idx].w = w
            dst[idx].suits = SUB_SUITS[b]
            idx += 1
        k -= 1
    nn[0] = idx
    return idx


# Option lists are built only for the ranks a call needs (a follow needs few).

cdef inline void build_opts(Ctx* c, int n, int mask, int* built, int* count, int* ncount,
                            Opt* lists, int stride) noexcept nogil:
    """The option lists of n cards for the ranks of `mask` not built yet: rank r's list is
    lists + r * stride, count[r] entries, ncount[r] of them with a natural card."""
    cdef int r
    mask &= ~built[0]
    if mask == 0:
        return
    for r in range(N_RANKS):
        if (mask >> r) & 1:
            count[r] = fill_opts(c, r, n, lists + r * stride, &ncount[r])
    built[0] |= mask


cdef void build1(Ctx* c, int mask) noexcept nogil:
    build_opts(c, 1, mask, &c.b1, c.n1, c.nn1, &c.o1[0][0], OPT1_CAP)


cdef void build2(Ctx* c, int mask) noexcept nogil:
    build_opts(c, 2, mask, &c.b2, c.n2, c.nn2, &c.o2[0][0], OPT2_CAP)


cdef void build3(Ctx* c, int mask) noexcept nogil:
    build_opts(c, 3, mask, &c.b3, c.n3, c.nn3, &c.o3[0][0], OPT3_CAP)


cdef inline int keyed_ranks(Ctx* c) noexcept nogil:
    """Ranks whose single-order value beats minkey."""
    cdef int r, m = 0
    if c.minkey < 2:
        return ALL_RANKS
    for r in range(N_RANKS):
        if rank_value(r, c.h.lr) > c.minkey:
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
        if rank_value(r, c.h.lr) <= c.minkey:
            continue
        t = move_tag(T_SINGLE, r + 2)
        for s in range(4):
            if cnt(c, r, s):
                emit(c, KW_LO[s][r], KW_HI[s][r] | t)
        if r == c.h.lr and c.h.W:
            emit(c, c.h.wild_lo, t)
    if c.h.nsb and VALUE_SB > c.minkey:
        emit(c, 0, SB_HI | move_tag(T_SINGLE, RANK_JOKER))
    if c.h.nhr and VALUE_HR > c.minkey:
        emit(c, 0, HR_HI | move_tag(T_SINGLE, RANK_JOKER))


cdef void gen_pairs(Ctx* c) noexcept nogil:
    cdef int r, i, m
    cdef u64 t
    cdef Opt* o
    if c.size and c.size != 2:
        return
    build2(c, keyed_ranks(c))
    for r in range(N_RANKS):
        if rank_value(r, c.h.lr) <= c.minkey:
            continue
        t = move_tag(T_PAIR, r + 2)
        # an all-wild pair is the level rank's pair
        m = c.n2[r] if r == c.h.lr else c.nn2[r]
        for i in range(m):
            o = &c.o2[r][i]
            emit(c, o.lo, o.hi | t)
    if c.h.nsb == 2 and VALUE_SB > c.minkey:
        emit(c, 0, 2 * SB_HI | move_tag(T_PAIR, RANK_JOKER))
    if c.h.nhr == 2 and VALUE_HR > c.minkey:
        emit(c, 0, 2 * HR_HI | move_tag(T_PAIR, RANK_JOKER))


cdef void gen_trips(Ctx* c) noexcept nogil:
    cdef int r, i
    cdef u64 t
    cdef Opt* o
    if c.size and c.size != 3:
        return
    build3(c, keyed_ranks(c))
    for r in range(N_RANKS):
        if rank_value(r, c.h.lr) <= c.minkey:
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
        nmax = navail(c, r) + c.h.W
        if nmax > MAX_BOMB_SIZE:
            nmax = MAX_BOMB_SIZE
        if nmax < 4:
            continue
        key = rank_value(r, c.h.lr)
        for n in range(4, nmax + 1):
            if c.size and c.size != n:
                continue
            if not bomb_ok(c, bomb_tier(n), key):
                continue
            t = move_tag(T_BOMB, r + 2)
            kmin = n - c.h.W
            k = min(n, navail(c, r))
            while k >= kmin:
                wl = c.h.wild_lo * (n - k)
                m = subsets(c, r, k, los, his, sm)
                for i in range(m):
                    emit(c, los[i] + wl, his[i] | t)
                k -= 1
    if c.h.nsb == 2 and c.h.nhr == 2 and (c.size == 0 or c.size == 4) and bomb_ok(c, TIER_JOKERS, 0):
        emit(c, 0, 2 * SB_HI + 2 * HR_HI | move_tag(T_BOMB, RANK_JOKER))


cdef void gen_sf(Ctx* c, bint compact) noexcept nogil:
    cdef int s, p, i, nat, missing, extra, sub, r, pos
    cdef u64 blo, bhi, lo, hi, t, cards
    cdef u64 slo[5]
    cdef u64 shi[5]
    if c.size and c.size != 5:
        return
    cdef int wins[4]
    cdef int any_ = 0
    for s in range(4):
        wins[s] = c.h.sfw[s]          # (hand_count)
        any_ |= wins[s]
    if any_ == 0:
        return
    any_ &= (2 << LAST_STRAIGHT_POS) - 2
    while any_:
        p = __builtin_ctzll(any_)
        any_ &= any_ - 1
        if not bomb_ok(c, TIER_STRAIGHT_FLUSH, p):
            continue
        t = move_tag(T_STRAIGHT_FLUSH, p)
        for s in range(4):
            if not (wins[s] >> p) & 1:
                continue
            nat = (c.h.pm[s] >> p) & 31
            missing = 5 - POP5[nat]
            blo = c.h.wild_lo * missing
            bhi = 0
            if compact:
                # one card of each natural position, as one suit's 2-bit fields at once
                # (position q is rank q - 2, position 1 the ace)
                pos = nat << p
                cards = spread1(((pos >> 2) | (((pos >> 1) & 1) << ACE_RANK)) & ALL_RANKS)
                cards <<= SUIT_BITS * (s & 1)
                if s < 2:
                    blo += cards
                else:
                    bhi = cards
                emit_action(c, A_STRAIGHT_FLUSH + (p - 1) * N_SUITS + s, blo, bhi | t)
                continue
            for i in range(5):
                r = pos_rank(p + i)
                if (nat >> i) & 1:
                    slo[i] = KW_LO[s][r]
                    shi[i] = KW_HI[s][r]
                    blo += slo[i]
                    bhi += shi[i]
            emit_action(c, A_STRAIGHT_FLUSH + (p - 1) * N_SUITS + s, blo, bhi | t)
            extra = c.h.W - missing
            if extra == 0:
                continue
            # replace one or two of the natural cards by wilds
            for i in range(5):
                if not (nat >> i) & 1:
                    continue
                emit(c, blo - slo[i] + c.h.wild_lo, (bhi - shi[i]) | t)
                if extra == 2:
                    for sub in range(i + 1, 5):
                        if (nat >> sub) & 1:
                            emit(c, blo - slo[i] - slo[sub] + 2 * c.h.wild_lo,
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
        m = c.n2[r] if r == c.h.lr else c.nn2[r]
        for i in range(m):
            o = &c.o2[r][i]
            plo[o.w][np_[o.w]] = o.lo
            phi[o.w][np_[o.w]] = o.hi
            np_[o.w] += 1
        pe[0][r] = np_[0]
        pe[1][r] = np_[1]
        pe[2][r] = np_[2]
    if c.fjp:
        if c.h.nsb == 2:
            plo[0][np_[0]] = 0
            phi[0][np_[0]] = 2 * SB_HI
            np_[0] += 1
        if c.h.nhr == 2:
            plo[0][np_[0]] = 0
            phi[0][np_[0]] = 2 * HR_HI
            np_[0] += 1
    for x in range(N_RANKS):
        if rank_value(x, c.h.lr) <= c.minkey:
            continue
        t = move_tag(T_THREE_WITH_TWO, x + 2)
        for i in range(c.n3[x]):
            o = &c.o3[x][i]
            wt = o.w
            lo = o.lo
            hi = o.hi | t
            wmax = c.h.W - wt
            for w in range(wmax + 1):
                emit_block(c, lo, hi, &plo[w][0], &phi[w][0], 0, ps[w][x])
                emit_block(c, lo, hi, &plo[w][0], &phi[w][0], pe[w][x], np_[w])
            if x == c.h.lr and wmax == 2:
                # The two wilds as the pair stand for another rank (docs/rules.md §4, edge case 42):
                # a natural triple of the level rank takes them, though they sit in its own
                # pair list (the only two-wild pair there).
                emit(c, lo + 2 * c.h.wild_lo, hi)


# The three run generators (Straight: 5 positions x 1 card, ThreePair: 3 x 2, TwoTrips: 2 x 3)
# have one shape, but stay three nested loops on purpose. A single generator walking a
# variable number of positions with an explicit index stack (tried 2026-12-01, issue 12) costs
# +20 % instructions in the `gen` callgrind workload and +6.9 % in `perft` (bench/RESULTS.md):
# the innermost loop, which emits most moves, then keeps its bookkeeping in arrays instead of
# registers. Each level breaks out as soon as the wilds used exceed the hand's (the option
# lists are sorted by wilds), which is what makes the nesting cheap.
cdef void gen_straights(Ctx* c) noexcept nogil:
    cdef int p, i0, i1, i2, i3, i4, w0, w1, w2, w3, w4, s0, s1, s2, s3, s4
    cdef int r0, r1, r2, r3, r4, gaps, W = c.h.W
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
        gaps = ((navail(c, r0) == 0) + (navail(c, r1) == 0) + (navail(c, r2) == 0)
                + (navail(c, r3) == 0) + (navail(c, r4) == 0))
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
    cdef int p, i0, i1, i2, w0, w1, r0, r1, r2, W = c.h.W
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
    cdef int p, i0, i1, w0, r0, r1, W = c.h.W
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

cdef void build_unit(Ctx* c, int r) noexcept nogil:
    # The natural cards of rank r in order of preference: first the copies whose use breaks
    # no straight flush (fcol: all copies of a card no straight flush can use, all but one of
    # the others), then the last copies of cards a straight flush can use (rcol); each part
    # in suit order. The canonical choice of k naturals is the first k of this order
    # (canon_group, through PREFIX).
    cdef int col = <int>(((c.h.c01 >> (4 * r)) & 15) | (((c.h.c23 >> (4 * r)) & 15) << 4))
    cdef int res = 0
    if c.h.sfany:
        res = (((c.h.sfu[0] >> r) & 1) | (((c.h.sfu[1] >> r) & 1) << 2)
               | (((c.h.sfu[2] >> r) & 1) << 4) | (((c.h.sfu[3] >> r) & 1) << 6))
        col -= res              # (sfu holds only cards the hand holds)
    c.h.fcol[r] = col
    c.h.rcol[r] = res
    c.h.nfree[r] = __builtin_popcountll(col) + __builtin_popcountll(col & 0xAA)
    c.h.bu |= 1 << r


cdef inline int canon_group(Ctx* c, int r, int n, u64* lo, u64* hi, int* pen) noexcept nogil:
    """The canonical n cards of rank r: wilds used, or -1 when the hand cannot."""
    cdef int k = min(n, navail(c, r))
    cdef int w = n - k, nf, b
    if w > c.h.W:
        return -1
    if not (c.h.bu >> r) & 1:
        build_unit(c, r)
    nf = c.h.nfree[r]
    if k <= nf:
        b = PREFIX[c.h.fcol[r]][k]
        pen[0] = 0
    else:
        b = c.h.fcol[r] + PREFIX[c.h.rcol[r]][k - nf]
        pen[0] = k - nf
    lo[0] = (BASE_LO[b] << (2 * r)) + c.h.wild_lo * w
    hi[0] = BASE_HI[b] << (2 * r)
    return w


cdef enum:
    # canon_pairs_trips: one 2-bit field per rank index (bits 2r), the pairs' in the low
    # half of a word, the trips' in the high half (HALF bits up): both choices at once
    HALF = 32

cdef extern from *:
    """
    /* the low bit of each rank's 2-bit field in both halves of canon_pairs_trips' words */
    #define GF_LOW_BITS2 (0x1555555ULL | (0x1555555ULL << 32))
    """
    const u64 LOW_BITS2 "GF_LOW_BITS2"


cdef void canon_pairs_trips(const HandCounts* h, u64* words) noexcept nogil:
    """canon_group's natural cards for a pair (n = 2) and for trips (n = 3) of every rank at
    once, in 2-bit fields: the copies taken per suit, first the free copies (fcol) suit by
    suit, then the last copies of straight-flush cards (rcol) suit by suit, as many as the
    group needs (what canon_group takes through PREFIX). words[0], words[1]: the pairs' lo
    and hi card words (one group per rank: mask a rank's bits out, rank_bits); words[2],
    words[3]: the trips'; words[4]: the wilds each rank's pair needs (2 bits at 2r: n minus
    the naturals, when the rank holds fewer than n); words[5]: its trips'.
    Each field's arithmetic stays in its field (a take is at most the need it is taken
    from), so one word carries a rank's pair and trips side by side."""
    cdef u64 need = ((<u64>2 * LOW_BITS2) & SUIT_MASK) | ((<u64>3 * LOW_BITS2) & (SUIT_MASK << HALF))
    cdef u64 f, r, f1, g1, g2, take
    cdef u64 sel[4]
    cdef int s
    for s in range(4):
        f = h.sw[s]
        if h.sfany:
            f -= spread1(h.sfu[s])          # the free copies (sfu holds only cards held)
        f |= f << HALF
        f1 = (f >> 1) & LOW_BITS2           # two free copies
        g1 = (need | (need >> 1)) & LOW_BITS2   # a need of at least 1
        g2 = (need >> 1) & LOW_BITS2            # at least 2
        # min(need, f): 2 when both are 2 or more; 1 when f is 1 and need at least 1, or f is
        # 2 and need is 1
        take = (g1 & ((f & LOW_BITS2) | (f1 & ~g2))) | ((f1 & g2) << 1)
        need -= take
        sel[s] = take
    if h.sfany:
        for s in range(4):
            r = spread1(h.sfu[s])
            r |= r << HALF
            take = r & (need | (need >> 1)) & LOW_BITS2
            need -= take
            sel[s] += take
    words[0] = (sel[0] & SUIT_MASK) | ((sel[1] & SUIT_MASK) << SUIT_BITS)
    words[1] = (sel[2] & SUIT_MASK) | ((sel[3] & SUIT_MASK) << SUIT_BITS)
    words[2] = (sel[0] >> HALF) | ((sel[1] >> HALF) << SUIT_BITS)
    words[3] = (sel[2] >> HALF) | ((sel[3] >> HALF) << SUIT_BITS)
    words[4] = need & SUIT_MASK
    words[5] = need >> HALF


cdef inline u64 rank_bits(int r) noexcept nogil:
    """The 2-bit fields of rank index r in both suits of a card word."""
    return ((<u64>3) | ((<u64>3) << SUIT_BITS)) << (2 * r)


cdef inline void group_single(Ctx* c, int r) noexcept nogil:
    cdef u64 lo, hi
    cdef int pen
    if navail(c, r) or (r == c.h.lr and c.h.W):
        canon_group(c, r, 1, &lo, &hi, &pen)
        emit_action(c, A_SINGLE + r, lo, hi | move_tag(T_SINGLE, r + 2))


cdef inline u64 spread1(u64 x) noexcept nogil:
    # bit r -> bit 2r (r < 16): a rank mask as the low bits of a suit's 2-bit counts
    x = (x | (x << 8)) & <u64>0x00FF00FF
    x = (x | (x << 4)) & <u64>0x0F0F0F0F
    x = (x | (x << 2)) & <u64>0x33333333
    return (x | (x << 1)) & <u64>0x55555555


cdef extern from *:
    """
    /* single_choice on the four suits at once, one per 32-bit lane (gf_v4u, as gf_sf_suits):
       sw: the suits' natural counts (2 bits a rank, 26 bits), sfu: their straight-flush
       usable ranks. Per rank, the first suit (lane order) holding a free copy, else the first
       holding one: "first" is a lane's bits less the OR of the lanes before it. */
    static inline gf_v4u gf_lanes_before(gf_v4u x) {
        gf_v4u z = {0, 0, 0, 0}, a;
        a = x | __builtin_shuffle(x, z, (gf_v4u){4, 0, 1, 2});   /* lanes s-1 and s */
        return __builtin_shuffle(x, z, (gf_v4u){4, 0, 1, 2})
               | __builtin_shuffle(a, z, (gf_v4u){4, 4, 0, 1});  /* and s-3, s-2 */
    }
    static inline void gf_single_choice(const uint64_t *sw, const int *sfu, uint64_t *sel_lo,
                                        uint64_t *sel_hi) {
        const uint32_t low = 0x1555555u;                         /* bit 2r of 13 ranks */
        gf_v4u x = {(uint32_t)sw[0], (uint32_t)sw[1], (uint32_t)sw[2], (uint32_t)sw[3]};
        gf_v4u u, held, two, fr, sel, taken;
        memcpy(&u, sfu, sizeof u);
        held = (x | (x >> 1)) & low;                             /* a copy held */
        two = (x >> 1) & low;                                    /* two copies */
        u = (u | (u << 8)) & 0x00FF00FFu;                        /* rank bit r -> bit 2r */
        u = (u | (u << 4)) & 0x0F0F0F0Fu;
        u = (u | (u << 2)) & 0x33333333u;
        u = (u | (u << 1)) & 0x55555555u;
        fr = held & (~u | two);                                  /* a free copy */
        sel = fr & ~gf_lanes_before(fr);
        taken = fr | gf_lanes_before(fr);
        taken = __builtin_shuffle(taken, (gf_v4u){3, 3, 3, 3}); /* every suit's free copies */
        sel |= held & ~taken & ~gf_lanes_before(held);
        *sel_lo = (uint64_t)sel[0] | ((uint64_t)sel[1] << 26);
        *sel_hi = (uint64_t)sel[2] | ((uint64_t)sel[3] << 26);
    }
    """
    void gf_single_choice(const u64* sw, const int* sfu, u64* sel_lo, u64* sel_hi) noexcept nogil


cdef inline void single_choice(Ctx* c, u64* sel_lo, u64* sel_hi) noexcept nogil:
    """canon_group's one-card choice of every rank at once, on suit masks: per rank, the
    first suit holding a free copy (one whose use breaks no straight flush: the card no
    straight flush of the hand can use, or a second copy of it), else the first suit holding
    it; as card words with one card per rank held (action_singles, and the straights'
    natural cards: compact_sequences). All four suits at once (gf_single_choice)."""
    gf_single_choice(c.h.sw, c.h.sfu, sel_lo, sel_hi)


cdef void action_singles(Ctx* c, int m, u64 sel_lo, u64 sel_hi) noexcept nogil:
    """group_single for every rank of m at once: the natural card of single_choice's words
    (sel_lo, sel_hi); a level rank held only as wilds plays a wild."""
    cdef u64 bits
    cdef int r
    cdef int32_t* ids = c.ids
    cdef u64* out = c.out
    cdef int n = c.n
    # The wild of a level rank held only as wilds sits in its rank's fields (a heart of
    # that rank), so it joins the words and the loop below has no case of its own.
    sel_lo |= c.h.wild_lo & (<u64>0 - <u64>(navail(c, c.h.lr) == 0))
    while m:
        r = __builtin_ctzll(m)
        m &= m - 1
        bits = ((<u64>1) << (2 * r)) | ((<u64>1) << (SUIT_BITS + 2 * r))
        n = put_id(ids, out, n, A_SINGLE + r, sel_lo & bits,
                   (sel_hi & bits) | move_tag(T_SINGLE, r + 2))
    c.n = n


cdef inline void group_pair(Ctx* c, int r) noexcept nogil:
    cdef u64 lo, hi
    cdef int pen
    if navail(c, r) or r == c.h.lr:
        if canon_group(c, r, 2, &lo, &hi, &pen) >= 0:
            emit_action(c, A_PAIR + r, lo, hi | move_tag(T_PAIR, r + 2))


cdef inline void group_trips(Ctx* c, int r) noexcept nogil:
    cdef u64 lo, hi
    cdef int pen
    if canon_group(c, r, 3, &lo, &hi, &pen) >= 0:
        emit_action(c, A_TRIPS + r, lo, hi | move_tag(T_TRIPS, r + 2))


cdef inline void group_bombs(Ctx* c, int r, int key) noexcept nogil:
    """Rank r's same-rank bombs above the bound, smallest first."""
    cdef u64 lo, hi
    cdef int n, pen, nmax = navail(c, r) + c.h.W
    if nmax > MAX_BOMB_SIZE:
        nmax = MAX_BOMB_SIZE
    for n in range(4, nmax + 1):
        if c.size and c.size != n:
            continue
        if bomb_ok(c, bomb_tier(n), key):
            canon_group(c, r, n, &lo, &hi, &pen)
            emit_action(c, A_BOMB + r * 7 + n - 4, lo, hi | move_tag(T_BOMB, r + 2))


cdef inline void joker_singles(Ctx* c) noexcept nogil:
    if c.h.nsb and VALUE_SB > c.minkey:
        emit_action(c, A_SINGLE + N_RANKS, 0, SB_HI | move_tag(T_SINGLE, RANK_JOKER))
    if c.h.nhr and VALUE_HR > c.minkey:
        emit_action(c, A_SINGLE + N_RANKS + 1, 0, HR_HI | move_tag(T_SINGLE, RANK_JOKER))


cdef inline void joker_pairs(Ctx* c) noexcept nogil:
    if c.h.nsb == 2 and VALUE_SB > c.minkey:
        emit_action(c, A_PAIR + N_RANKS, 0, 2 * SB_HI | move_tag(T_PAIR, RANK_JOKER))
    if c.h.nhr == 2 and VALUE_HR > c.minkey:
        emit_action(c, A_PAIR + N_RANKS + 1, 0, 2 * HR_HI | move_tag(T_PAIR, RANK_JOKER))


cdef inline void joker_bomb(Ctx* c) noexcept nogil:
    if c.h.nsb == 2 and c.h.nhr == 2 and (c.size == 0 or c.size == 4) and bomb_ok(c, TIER_JOKERS, 0):
        emit_action(c, A_JOKER_BOMB, 0, 2 * SB_HI + 2 * HR_HI | move_tag(T_BOMB, RANK_JOKER))


cdef inline int pair_ranks(Ctx* c, int held) noexcept nogil:
    """Rank mask of the ranks with a pair (naturals and wilds; the level rank's may be all
    wilds): group_pair's condition. held: ranks_with(c.h, 1)."""
    return ranks_with(c.h, 2 - c.h.W) & (held | (1 << c.h.lr))


cdef void compact_groups(Ctx* c) noexcept nogil:
    cdef int r, key
    for r in range(N_RANKS):
        key = rank_value(r, c.h.lr)
        if key > c.minkey:
            if c.tmask & (1 << T_SINGLE) and (c.size == 0 or c.size == 1):
                group_single(c, r)
            if c.tmask & (1 << T_PAIR) and (c.size == 0 or c.size == 2):
                group_pair(c, r)
            if c.tmask & (1 << T_TRIPS) and (c.size == 0 or c.size == 3):
                group_trips(c, r)
        group_bombs(c, r, key)
    if c.tmask & (1 << T_SINGLE) and (c.size == 0 or c.size == 1):
        joker_singles(c)
    if c.tmask & (1 << T_PAIR) and (c.size == 0 or c.size == 2):
        joker_pairs(c)
    joker_bomb(c)


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
        if navail(c, y) or y == c.h.lr:
            pw[y] = canon_group(c, y, 2, &plo[y], &phi[y], &ppen[y])
        pv[y] = rank_value(y, c.h.lr)
    pw[PAIR_SB] = -1
    pw[PAIR_HR] = -1
    if c.fjp:
        if c.h.nsb == 2:
            pw[PAIR_SB] = 0
            plo[PAIR_SB] = 0
            phi[PAIR_SB] = 2 * SB_HI
            ppen[PAIR_SB] = 0
            pv[PAIR_SB] = VALUE_SB
        if c.h.nhr == 2:
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
        if rank_value(x, c.h.lr) <= c.minkey:
            continue
        wt = canon_group(c, x, 3, &lo, &hi, &pen)
        if wt < 0:
            continue
        for i in range(no):
            best = order[i]
            if best != x and pw[best] + wt <= c.h.W:
                emit(c, lo + plo[best], (hi + phi[best]) | move_tag(T_THREE_WITH_TWO, x + 2))
                break
        else:
            # The pair of two wilds (edge case 42) for a natural triple of the level rank: it
            # has the most wilds of any pair, so it is canonical only when nothing else fits.
            if x == c.h.lr and wt == 0 and c.h.W == 2:
                emit(c, lo + 2 * c.h.wild_lo, hi | move_tag(T_THREE_WITH_TWO, x + 2))


cdef inline int single_cost(Ctx* c, int r, int s) noexcept nogil:
    # 1 when playing this card leaves a straight flush of the hand without it
    return ((c.h.sfu[s] >> r) & 1) and cnt(c, r, s) == 1


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
        if navail(c, r) == 0:
            gaps += 1
            continue
        if not (c.h.bu >> r) & 1:
            build_unit(c, r)
        # the preferred single natural card: the first free copy, else the first last copy
        if c.h.nfree[r]:
            best = __builtin_ctzll(c.h.fcol[r]) >> 1
            bestc[i] = 0
        else:
            best = __builtin_ctzll(c.h.rcol[r]) >> 1
            bestc[i] = 1
        suit[i] = best
        m |= 1 << best
    if gaps > c.h.W:
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
            if s != suit[i] and cnt(c, r, s):
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
                keys[j] = c.h.lr * 4 + 1
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


cdef struct Groups:
    # generate_actions' canonical pairs and trips, built once for their own blocks and the
    # full houses: words and wilds used per rank (pairs: then the two joker pairs)
    int pairs               # rank mask of the pairs built
    int trips               # of the trips built
    int pair_w[N_RANKS]
    int trip_w[N_RANKS]
    u64 pair_lo[N_PAIR_SLOTS]
    u64 pair_hi[N_PAIR_SLOTS]
    u64 trip_lo[N_RANKS]
    u64 trip_hi[N_RANKS]
    int sel                 # sel_lo, sel_hi hold single_choice's words
    u64 sel_lo
    u64 sel_hi


cdef inline int run_group(Ctx* c, const Groups* gr, int r, int n, u64* lo, u64* hi) noexcept nogil:
    """canon_group(c, r, n) for a ThreePair (n = 2) or TwoTrips (n = 3) window: read from the
    groups generate_actions built on a lead (gr not NULL; canon_group is a function of the
    hand, so the words are the same), else built here. On a lead gr holds every rank's trips
    that the hand can make (ranks_with(h, 3 - W)) and every pair but the two-wild pair of a
    rank held by no natural card (a Pair action of that rank would be the level's pair), which
    a run may use: canon_group's words for it are the two wilds."""
    cdef int pen
    if gr == NULL:
        return canon_group(c, r, n, lo, hi, &pen)
    if n == 2:
        if (gr.pairs >> r) & 1:
            lo[0] = gr.pair_lo[r]
            hi[0] = gr.pair_hi[r]
            return gr.pair_w[r]
        if c.h.W == 2 and navail(c, r) == 0:
            lo[0] = 2 * c.h.wild_lo
            hi[0] = 0
            return 2
        return -1
    if (gr.trips >> r) & 1:
        lo[0] = gr.trip_lo[r]
        hi[0] = gr.trip_hi[r]
        return gr.trip_w[r]
    return -1


cdef void compact_sequences(Ctx* c, const Groups* gr) noexcept nogil:
    # gr: the canonical pairs and trips of every rank when generate_actions built them on a
    # lead (run_group), else NULL. A lead's ThreePair and TwoTrips windows then cost a lookup
    # per rank instead of a canon_group (issue 19).
    cdef int p, i, r, w, ok, g, wins, held, nat, used
    cdef int suit[5]
    cdef u64 lo, hi, l, h, sel_lo, sel_hi, rb
    # (the windows the wilds cannot fill are skipped before any rank is looked at)
    if (c.size == 0 or c.size == 5) and c.tmask & (1 << T_STRAIGHT):
        wins = run_windows(c.h, 5, 1, c.h.W) & windows_above(c.minkey, LAST_STRAIGHT_POS)
        if wins:
            # each rank's natural card is its single's (straight_choice's first choice):
            # single_choice's words, masked to the window's ranks, the gaps filled by wilds
            if gr != NULL and gr.sel:
                sel_lo = gr.sel_lo
                sel_hi = gr.sel_hi
            else:
                single_choice(c, &sel_lo, &sel_hi)
            held = ranks_with(c.h, 1)
        while wins:
            p = __builtin_ctzll(wins)
            wins &= wins - 1
            nat = ((0x1F << p) >> 2) & ALL_RANKS
            if p == 1:
                nat |= 1 << ACE_RANK
            nat &= held
            rb = spread1(nat)
            rb |= rb << SUIT_BITS
            lo = sel_lo & rb
            hi = sel_hi & rb
            used = ((lo & SUIT_MASK) != 0) + ((lo >> SUIT_BITS) != 0) + ((hi & SUIT_MASK) != 0) \
                + ((hi >> SUIT_BITS) != 0)
            if used == 1 and not c.sfs:
                # one suit only is a straight flush: straight_choice changes the slot that
                # costs least
                if not straight_choice(c, p, suit):
                    continue
                lo = 0
                hi = 0
                for i in range(5):
                    r = pos_rank(p + i)
                    if suit[i] < 0:
                        lo += c.h.wild_lo
                    else:
                        lo += KW_LO[suit[i]][r]
                        hi += KW_HI[suit[i]][r]
            else:
                lo += c.h.wild_lo * (5 - __builtin_popcountll(nat))
            emit_action(c, A_STRAIGHT + p - 1, lo, hi | move_tag(T_STRAIGHT, p))
    if (c.size == 0 or c.size == 6) and c.tmask & (1 << T_THREE_PAIR):
        wins = run_windows(c.h, 3, 2, c.h.W) & windows_above(c.minkey, LAST_THREE_PAIR_POS)
        while wins:
            p = __builtin_ctzll(wins)
            wins &= wins - 1
            lo = 0
            hi = 0
            w = 0
            ok = 1
            for i in range(3):
                r = pos_rank(p + i)
                g = run_group(c, gr, r, 2, &l, &h)
                if g < 0:
                    ok = 0
                    break
                w += g
                lo += l
                hi += h
            if ok and w <= c.h.W:
                emit_action(c, A_THREE_PAIR + p - 1, lo, hi | move_tag(T_THREE_PAIR, p))
    if (c.size == 0 or c.size == 6) and c.tmask & (1 << T_TWO_TRIPS):
        wins = run_windows(c.h, 2, 3, c.h.W) & windows_above(c.minkey, LAST_TWO_TRIPS_POS)
        while wins:
            p = __builtin_ctzll(wins)
            wins &= wins - 1
            lo = 0
            hi = 0
            w = 0
            ok = 1
            for i in range(2):
                r = pos_rank(p + i)
                g = run_group(c, gr, r, 3, &l, &h)
                if g < 0:
                    ok = 0
                    break
                w += g
                lo += l
                hi += h
            if ok and w <= c.h.W:
                emit_action(c, A_TWO_TRIPS + p - 1, lo, hi | move_tag(T_TWO_TRIPS, p))


# ---------------------------------------------------------------------------------------------
# The C interface (movegen.pxd)

cdef int run(Ctx* c, u64 last_lo, u64 last_hi, bint compact) noexcept nogil:
    set_bounds(c, last_lo, last_hi)
    if not compact:
        build_cols(c)
    gen_moves(c, compact)
    if not (last_lo == 0 and last_hi == 0):
        emit(c, 0, 0)
    return c.n


cdef void set_bounds(Ctx* c, u64 last_lo, u64 last_hi) noexcept nogil:
    """What beats `last` ((0, 0): a lead, anything): tmask, minkey, btier, bkey."""
    cdef int lt = move_type(last_hi), tier, key
    c.size = 0
    if last_lo == 0 and last_hi == 0:
        c.tmask = NONBOMB_TYPES
        c.minkey = 0
        c.btier = 0
        c.bkey = 0
    else:
        tier_key(last_lo, last_hi, c.h.level, &tier, &key)
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


cdef inline void follow_bounds(Ctx* c, u64 last_lo, u64 last_hi) noexcept nogil:
    """set_bounds for a follow (last is not (0, 0)) with fewer tests (generate_actions): the
    top's type varies from call to call. The same (tier, key) as tier_key. (Written with
    masks instead, as x ^ ((x ^ y) & -cond), it lost no branch that gcc keeps here but cost
    ~50 instructions a follow: gcc keeps the bomb's card count behind its test.)"""
    cdef int t = move_type(last_hi), rc = move_rank(last_hi), n, key, tier
    cdef int bomb = t == T_BOMB, joker = rc == RANK_JOKER
    # key: the rank field (a run's lowest position); a same-rank group of the level rank
    # is VALUE_LEVEL; a joker group by its cards; the joker bomb's, 0
    key = VALUE_LEVEL if (rc == c.h.level) & ((t <= T_THREE_WITH_TWO) | bomb) else rc
    key = (VALUE_HR if (last_hi >> HR_BIT) & 3 else VALUE_SB) if joker else key
    key = 0 if joker & bomb else key
    # tier: a same-rank bomb's by its size (bomb_tier: 4 -> 1, 5 -> 2, n -> n - 2)
    n = card_count(last_lo, last_hi)
    tier = TIER_JOKERS if joker else n - 3 + (n >= 6)
    tier = tier if bomb else 0
    tier = TIER_STRAIGHT_FLUSH if t == T_STRAIGHT_FLUSH else tier
    c.size = 0
    c.tmask = 0 if tier else 1u << t
    c.minkey = 99 if tier else key
    c.btier = tier
    c.bkey = key if tier else 0


cdef void gen_moves(Ctx* c, bint compact) noexcept nogil:
    if compact:
        compact_groups(c)
        if c.tmask & (1 << T_THREE_WITH_TWO):
            compact_full_houses(c)
        compact_sequences(c, NULL)
        if c.h.sfany and (c.btier < TIER_STRAIGHT_FLUSH
                        or (c.btier == TIER_STRAIGHT_FLUSH and c.bkey < LAST_STRAIGHT_POS)):
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


cdef void action_full_houses(Ctx* c, Groups* g) noexcept nogil:
    """The full houses of the action space (docs/learning.md): for each triple rank above
    minkey and each pair group (rank, or joker pair when the rules allow it) other than the
    triple's, the canonical trips plus the canonical pair when the hand's wilds cover both;
    ascending ids (triple rank, then pair group). The compact order's key is additive over
    the two disjoint rank groups, so this union is the group's canonical move. g: every
    pair rank's pair and the trips above minkey (generate_actions)."""
    # upto[k]: the pair groups needing at most k wilds: a pair needs 2 - min(2, naturals)
    # (canon_group), so the ranks holding 2 - k naturals (ranks_with)
    cdef int upto[3]
    cdef int t, q, pairs, trips, base, jokers
    cdef u64 tag, tlo, thi
    jokers = 0
    if c.fjp:
        jokers = (((c.h.nsb == 2) << PAIR_SB) | ((c.h.nhr == 2) << PAIR_HR))
        g.pair_lo[PAIR_SB] = 0
        g.pair_hi[PAIR_SB] = 2 * SB_HI
        g.pair_lo[PAIR_HR] = 0
        g.pair_hi[PAIR_HR] = 2 * HR_HI
    upto[2] = g.pairs | jokers
    upto[1] = upto[2] & (ranks_with(c.h, 1) | jokers)
    upto[0] = upto[2] & (ranks_with(c.h, 2) | jokers)
    cdef int32_t* ids = c.ids
    cdef u64* out = c.out
    cdef int n = c.n
    trips = g.trips
    while trips:
        t = __builtin_ctzll(trips)
        trips &= trips - 1
        pairs = upto[c.h.W - g.trip_w[t]] & ~(1 << t)     # (the trips use at most W wilds)
        tag = move_tag(T_THREE_WITH_TWO, t + 2)
        base = A_FULL_HOUSE + t * (N_PAIR_SLOTS - 1)
        tlo = g.trip_lo[t]
        thi = g.trip_hi[t] | tag
        while pairs:
            q = __builtin_ctzll(pairs)
            pairs &= pairs - 1
            # (pair slots skip the triple's own rank: q - 1 above it, without a branch)
            n = put_id(ids, out, n, base + q - (q > t), tlo + g.pair_lo[q], thi + g.pair_hi[q])
    c.n = n


cdef inline void groups_of_words(int m, u64 lo_w, u64 hi_w, u64 wilds, u64 wild_lo, int* w_out,
                                 u64* lo_out, u64* hi_out) noexcept nogil:
    """The group (pair or trips) of each rank of m from canon_pairs_trips' words of that size
    (its lo and hi card words, its wilds per rank): wilds, lo and hi words at [r]."""
    cdef int r, w
    cdef u64 rb
    while m:
        r = __builtin_ctzll(m)
        m &= m - 1
        rb = rank_bits(r)
        w = <int>((wilds >> (2 * r)) & 3)
        w_out[r] = w
        lo_out[r] = (lo_w & rb) + wild_lo * w
        hi_out[r] = hi_w & rb


cdef inline void groups_by_rank(Ctx* c, int m, int n, int* w_out, u64* lo_out, u64* hi_out,
                                int* pen) noexcept nogil:
    """The same rank by rank (canon_group), where canon_pairs_trips' set-up does not pay."""
    cdef int r
    while m:
        r = __builtin_ctzll(m)
        m &= m - 1
        w_out[r] = canon_group(c, r, n, &lo_out[r], &hi_out[r], pen)


cdef int generate_actions(u64 lo, u64 hi, int level, u64 last_lo, u64 last_hi,
                          const RulesC* rules, int32_t* ids, u64* out, HandCounts* memo) noexcept nogil:
    # The compact generator's canonical moves, block by block in the action space's order
    # (action_space.pxd): PASS, singles, pairs, trips (rank by rank, jokers last), full
    # houses, the three runs, bombs (rank by rank, size by size), straight flushes (window by
    # window, suit by suit), the joker bomb; each move's id beside it.
    # (each block walks the rank mask of the ranks that have one: ranks_with)
    # A follow that nothing beats (46 % of the decisions of random play) is decided from the
    # hand's counts alone (follow_possible) and lists PASS only; everything else is built
    # after that test.
    cdef Ctx c
    cdef Groups g
    cdef int r, m, n, pen, above, held
    cdef u64 words[6]
    cdef bint follow = not (last_lo == 0 and last_hi == 0)
    cdef bint fh
    hi &= HI_CARD_MASK
    if memo == NULL:
        ctx_hand(&c, lo, hi, level)
    else:
        # the memo's counts and tables when it holds this hand (what is built on demand
        # stays built for the next call), else counted afresh into it
        c.h = memo
        # (one test: a hit or a miss varies from call to call)
        if ((memo.lo ^ lo) | (memo.hi ^ hi) | <u64>(memo.level ^ level)) != 0:
            hand_count(memo, lo, hi, level)
    if follow:
        follow_bounds(&c, last_lo, last_hi)
        ids[0] = A_PASS
        out[0] = 0
        out[1] = 0
        if not follow_possible(&c, last_hi, rules):
            return 1
    else:
        set_bounds(&c, 0, 0)
    ctx_rest(&c, rules)
    c.out = out
    c.ids = ids
    c.cap = N_ACTIONS
    c.n = 1 if follow else 0
    g.sel = 0
    above = ranks_above(c.minkey, c.h.lr)
    held = ranks_with(c.h, 1)
    fh = (c.tmask >> T_THREE_WITH_TWO) & 1
    if c.tmask & (1 << T_SINGLE):
        m = (held | ((1 << c.h.lr) if c.h.W else 0)) & above
        # (single_choice, all suits at once, costs about one canon_group: so from one rank
        # on, and a lead's straights reuse it)
        single_choice(&c, &g.sel_lo, &g.sel_hi)
        g.sel = 1
        action_singles(&c, m, g.sel_lo, g.sel_hi)
        joker_singles(&c)
    g.pairs = 0
    g.trips = 0
    if c.tmask & ((1 << T_PAIR) | (1 << T_THREE_WITH_TWO)):
        g.pairs = pair_ranks(&c, held)          # (a full house takes a pair of any rank)
        if not fh:
            g.pairs &= above
    if c.tmask & ((1 << T_TRIPS) | (1 << T_THREE_WITH_TWO)):
        g.trips = ranks_with(c.h, 3 - c.h.W) & above
    if __builtin_popcountll(g.pairs | (g.trips << N_RANKS)) > 2:
        # every rank's at once (its set-up pays from three groups on; always on a lead)
        canon_pairs_trips(c.h, words)
        groups_of_words(g.pairs, words[0], words[1], words[4], c.h.wild_lo,
                        g.pair_w, g.pair_lo, g.pair_hi)
        groups_of_words(g.trips, words[2], words[3], words[5], c.h.wild_lo,
                        g.trip_w, g.trip_lo, g.trip_hi)
    else:
        groups_by_rank(&c, g.pairs, 2, g.pair_w, g.pair_lo, g.pair_hi, &pen)
        groups_by_rank(&c, g.trips, 3, g.trip_w, g.trip_lo, g.trip_hi, &pen)
    if c.tmask & (1 << T_PAIR):
        m = g.pairs & above
        n = c.n
        while m:
            r = __builtin_ctzll(m)
            m &= m - 1
            n = put_id(ids, out, n, A_PAIR + r, g.pair_lo[r],
                       g.pair_hi[r] | move_tag(T_PAIR, r + 2))
        c.n = n
        joker_pairs(&c)
    if c.tmask & (1 << T_TRIPS):
        m = g.trips
        n = c.n
        while m:
            r = __builtin_ctzll(m)
            m &= m - 1
            n = put_id(ids, out, n, A_TRIPS + r, g.trip_lo[r],
                       g.trip_hi[r] | move_tag(T_TRIPS, r + 2))
        c.n = n
    if fh:
        action_full_houses(&c, &g)
    if c.tmask & ((1 << T_STRAIGHT) | (1 << T_THREE_PAIR) | (1 << T_TWO_TRIPS)):
        # (a follow of one to three cards or a full house lists no runs: no call)
        compact_sequences(&c, NULL if follow else &g)
    m = ranks_with(c.h, 4 - c.h.W)
    while m:
        r = __builtin_ctzll(m)
        m &= m - 1
        group_bombs(&c, r, rank_value(r, c.h.lr))
    if c.h.sfany and (c.btier < TIER_STRAIGHT_FLUSH
                    or (c.btier == TIER_STRAIGHT_FLUSH and c.bkey < LAST_STRAIGHT_POS)):
        gen_sf(&c, True)
    joker_bomb(&c)
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
    build_cols(&c)
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


cdef bint can_follow(u64 lo, u64 hi, int level, u64 last_lo, u64 last_hi,
                     const RulesC* rules) noexcept nogil:
    cdef Ctx c
    ctx_hand(&c, lo, hi & HI_CARD_MASK, level)
    set_bounds(&c, last_lo, last_hi)
    return follow_possible(&c, last_hi, rules)


cdef inline bint follow_possible(Ctx* c, u64 last_hi, const RulesC* rules) noexcept nogil:
    # Exactly "generate() on this follow lists more than PASS" (either mode: both list a
    # move of every (type, key) that the complete list has), decided from the hand's
    # counts (ctx_hand) and the bounds (set_bounds) with no move listed: a forced pass (46 %
    # of the decisions of random play) then costs this instead of a follow generation. Each
    # test below is the feasibility condition of the compact generator's matching part
    # (compact_groups, compact_full_houses, straight_choice, compact_sequences, gen_sf), on
    # rank masks; tests/test_fast_movegen.py compares it with generate() on many hands and tops.
    # Inline, the common answers first: a top of one to three cards by the top's own type,
    # then bombs (h.bombtk, bomb_rank); the runs and full houses in follow_runs.
    cdef int lr = c.h.lr, W = c.h.W, nsb = c.h.nsb, nhr = c.h.nhr, tier = c.btier, lt
    cdef int key, k, m, bk
    cdef const HandCounts* h = c.h
    lt = move_type(last_hi)
    if tier == 0 and lt <= T_TRIPS:
        # one test for the three types (which one varies from call to call): lt cards of a
        # rank above the key, naturals topped up by wilds (the level rank may be all wilds;
        # lt - W clamped at 0: every rank), or lt jokers of one kind (none makes trips)
        key = c.minkey
        k = lt - W
        m = ranks_with(h, k if k > 0 else 0) & (ranks_with(h, 1) | (1 << lr))
        if ((m & ranks_above(key, lr)) | ((nsb >= lt) & (VALUE_SB > key))
                | ((nhr >= lt) & (VALUE_HR > key))):
            return True
    bk = h.bombtk
    if bk > (tier * 32 + c.bkey if tier else 0):
        return True
    if tier or lt <= T_TRIPS:
        return False
    return follow_runs(c, lt, rules)


cdef bint follow_runs(Ctx* c, int lt, const RulesC* rules) noexcept nogil:
    """follow_possible for a full house, straight, three-pair or two-trips top that no bomb
    of the hand answers: the top's own type."""
    cdef int lr = c.h.lr, W = c.h.W, nsb = c.h.nsb, nhr = c.h.nhr, s, n
    cdef int key = c.minkey
    cdef int x, wt, p, u, ax, width, last, held, m
    cdef int pm[4]
    cdef int sfw[4]
    cdef int sfu[4]
    cdef const HandCounts* h = c.h
    if lt == T_THREE_WITH_TWO:
        # a triple above the top's, and a pair of another rank (or of jokers) that the wilds
        # the triple leaves can complete
        m = ranks_with(h, 3 - W) & ranks_above(key, lr)
        if m == 0:
            return False
        if rules.fullhouse_joker_pair and (nsb == 2 or nhr == 2):
            return True
        held = ranks_with(h, 1) | (1 << lr)
        while m:
            x = __builtin_ctzll(m)
            m &= m - 1
            ax = navail(c, x)
            wt = 3 - ax if ax < 3 else 0
            if x == lr and wt == 0 and W == 2:
                return True             # two wilds as the pair (edge case 42)
            if ranks_with(h, 2 - (W - wt)) & held & ~(1 << x):
                return True
        return False
    if lt == T_STRAIGHT:
        m = run_windows(h, 5, 1, W) & windows_above(key, LAST_STRAIGHT_POS)
        if m == 0:
            return False
        if rules.sf_as_straight:
            return True
        sf_suits(c.h.sw, W, pm, sfw, sfu)      # (h.pm is built only when h can hold one)
        while m:
            p = __builtin_ctzll(m)
            m &= m - 1
            # natural cards of two suits at least (one suit is a straight flush)
            u = 0
            for s in range(4):
                if (pm[s] >> p) & 31:
                    u |= 1 << s
            if u & (u - 1):
                return True
        return False
    if lt == T_THREE_PAIR or lt == T_TWO_TRIPS:
        # n cards at each of `width` positions: 3 pairs, or 2 trips
        n = 2 if lt == T_THREE_PAIR else 3
        width = 3 if lt == T_THREE_PAIR else 2
        last = LAST_THREE_PAIR_POS if lt == T_THREE_PAIR else LAST_TWO_TRIPS_POS
        # windows above the top's, up to the type's last
        return (run_windows(h, width, n, W) & windows_above(key, last)) != 0
    return False


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

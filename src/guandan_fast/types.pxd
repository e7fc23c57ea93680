# The vocabulary of the compiled core, defined once: card kinds, the 128-bit card multiset,
# move words, type codes, the bomb ladder and the small inline helpers on them. Every compiled
# module cimports these names from here; nothing else defines them (tests/test_types.py checks
# the Python package's copies against these through guandan_fast.codec.layout()).
#
# Everything is an enum, a C macro or an inline function: a value assigned to a module-level
# variable in a .pxd would not be initialised in the modules that cimport it, and inline
# functions give each module its own copy (no cross-module call in a hot path).
# The layout is documented in docs/design.md ("Card kinds", "The 128-bit multiset", "Moves as
# integers", "Keys and the bomb ladder").
from libc.stdint cimport uint64_t

ctypedef uint64_t u64

cdef extern from *:
    # With -mpopcnt (CMakeLists.txt) this is the POPCNT instruction.
    int __builtin_popcountll(unsigned long long) nogil
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_clzll(unsigned long long) nogil

cdef enum:
    # ---- card kinds: kind = suit * N_RANKS + rank index; the two jokers last ----------------
    N_RANKS = 13          # rank index r = natural value - 2: '2' -> 0 .. 'A' -> 12
    N_SUITS = 4           # S H C D = 0 1 2 3
    N_KINDS = 54
    KIND_SB = 52          # small (black) joker
    KIND_HR = 53          # big (red) joker
    KIND_H2 = 13          # the heart 2 (never drawn as the first leader's card)
    SUIT_HEARTS = 1       # the wild is the heart of the level rank
    ACE_RANK = 12         # rank index of the ace
    N_CARDS = 108         # physical cards: two decks, two copies of every kind
    HAND_SIZE = 27        # cards dealt to each seat
    MAX_LEVEL = 14        # levels run 2..14 (A)
    ALL_RANKS = 0x1FFF    # a rank mask with every rank index 0..12
    # ---- the multiset: a 2-bit count per kind, kinds 0..25 in lo, 26..53 in hi -------------
    LO_KINDS = 26         # kinds held by the lo word
    SUIT_BITS = 26        # bits of one suit's 13 counts inside a word (suit 0/2 low, 1/3 high)
    SB_BIT = 52           # bit of the SB count in hi (kind 52 - 26 = 26, times 2)
    HR_BIT = 54           # bit of the HR count in hi
    # ---- move words: the cards, plus two 4-bit fields in the top byte of hi -----------------
    TYPE_SHIFT = 56
    RANK_SHIFT = 60
    FIELD_MASK = 15       # width of the type and rank fields
    # type codes (python/guandan_fast/moves.py TYPE_NAMES)
    T_PASS = 0
    T_SINGLE = 1
    T_PAIR = 2
    T_TRIPS = 3
    T_THREE_WITH_TWO = 4
    T_STRAIGHT = 5
    T_THREE_PAIR = 6
    T_TWO_TRIPS = 7
    T_BOMB = 8
    T_STRAIGHT_FLUSH = 9
    T_TRIBUTE = 10
    T_BACK = 11
    N_PLAY_TYPES = 10     # T_PASS .. T_STRAIGHT_FLUSH: the types of the play phase
    NONBOMB_TYPES = 0xFE  # bit t set for every non-bomb play type t = 1..7
    # rank codes: 2..13 = '2'..'K'; an ace is 14, or 1 as the low end of a sequence
    RANK_ACE_LOW = 1
    RANK_ACE = 14
    RANK_JOKER = 15       # joker singles and pairs (the cards say which) and the joker bomb
    # ---- single order (docs/rules.md §2): natural 2..14, then these -------------------------
    VALUE_LEVEL = 15      # any card of the level rank
    VALUE_SB = 16
    VALUE_HR = 17
    # ---- the bomb ladder (docs/rules.md §5): tier 0 for non-bombs ---------------------------
    TIER_BOMB4 = 1
    TIER_BOMB5 = 2
    TIER_STRAIGHT_FLUSH = 3
    # a same-rank bomb of n >= 6 cards is tier n - 2 (Bomb6 = 4 .. Bomb10 = 8)
    TIER_JOKERS = 9
    MAX_BOMB_SIZE = 10    # eight natural cards of a rank and the two wilds
    # ---- sequences: natural positions 1..14, the ace at both ends ---------------------------
    SEQ_LEN_STRAIGHT = 5  # Straight and StraightFlush: five single positions
    LAST_STRAIGHT_POS = 10
    LAST_THREE_PAIR_POS = 12
    LAST_TWO_TRIPS_POS = 13

# The card bits of each word (lo: kinds 0..25 in 52 bits; hi: kinds 26..53 in 56 bits), the
# low bit of every 2-bit count, one joker of each kind in hi.
cdef extern from *:
    """
    #define GF_LO_CARD_MASK 0x000FFFFFFFFFFFFFULL
    #define GF_HI_CARD_MASK 0x00FFFFFFFFFFFFFFULL
    #define GF_ODD_BITS 0x5555555555555555ULL
    #define GF_SUIT_MASK 0x3FFFFFFULL
    #define GF_SB_HI (1ULL << 52)
    #define GF_HR_HI (1ULL << 54)
    """
    const u64 LO_CARD_MASK "GF_LO_CARD_MASK"
    const u64 HI_CARD_MASK "GF_HI_CARD_MASK"
    const u64 ODD_BITS "GF_ODD_BITS"
    const u64 SUIT_MASK "GF_SUIT_MASK"    # one suit's 13 counts, at the bottom of a word
    const u64 SB_HI "GF_SB_HI"            # one SB, in hi
    const u64 HR_HI "GF_HR_HI"            # one HR, in hi

cdef struct Cards:
    u64 lo
    u64 hi


# ---- kinds ----------------------------------------------------------------------------------

cdef inline int kind_count(u64 lo, u64 hi, int k) noexcept nogil:
    """Copies (0..2) of kind k in the multiset."""
    if k < LO_KINDS:
        return <int>((lo >> (2 * k)) & 3)
    return <int>((hi >> (2 * (k - LO_KINDS))) & 3)


cdef inline void kind_words(int k, u64* lo, u64* hi) noexcept nogil:
    """The words of one card of kind k."""
    if k < LO_KINDS:
        lo[0] = (<u64>1) << (2 * k)
        hi[0] = 0
    else:
        lo[0] = 0
        hi[0] = (<u64>1) << (2 * (k - LO_KINDS))


cdef inline void words_add_kind(u64* lo, u64* hi, int k, int n) noexcept nogil:
    """Add n copies of kind k (the caller keeps the count at 2 or below)."""
    if k < LO_KINDS:
        lo[0] += (<u64>n) << (2 * k)
    else:
        hi[0] += (<u64>n) << (2 * (k - LO_KINDS))


cdef inline void words_remove_kind(u64* lo, u64* hi, int k, int n) noexcept nogil:
    """Remove n copies of kind k (the caller knows they are there)."""
    if k < LO_KINDS:
        lo[0] -= (<u64>n) << (2 * k)
    else:
        hi[0] -= (<u64>n) << (2 * (k - LO_KINDS))


cdef inline void kind_add(Cards* c, int k, int n) noexcept nogil:
    words_add_kind(&c.lo, &c.hi, k, n)


cdef inline void kind_remove(Cards* c, int k, int n) noexcept nogil:
    words_remove_kind(&c.lo, &c.hi, k, n)


cdef inline int single_kind(u64 lo, u64 hi) noexcept nogil:
    """Kind of the lowest kind present (of the card, for a one-card multiset); -1 if empty.
    Type and rank bits are ignored."""
    hi &= HI_CARD_MASK
    if lo:
        return __builtin_ctzll(lo) >> 1
    if hi:
        return LO_KINDS + (__builtin_ctzll(hi) >> 1)
    return -1


cdef inline int wild_kind(int level) noexcept nogil:
    """The wild of level 2..14: the heart of the level rank."""
    return SUIT_HEARTS * N_RANKS + level - 2


cdef inline int rank_value(int r, int level_rank) noexcept nogil:
    """Single-order value of rank index r (docs/rules.md §2) when the level's rank index is
    level_rank (level - 2): the level rank is VALUE_LEVEL. (The generator keeps level_rank,
    so its loops over ranks compare without recomputing it: 1 % fewer instructions in perft.)"""
    if r == level_rank:
        return VALUE_LEVEL
    return r + 2


cdef inline int single_value(int k, int level) noexcept nogil:
    """Single-order value of a card kind: 2..14, level cards 15, SB 16, HR 17."""
    if k == KIND_SB:
        return VALUE_SB
    if k == KIND_HR:
        return VALUE_HR
    return rank_value(k % N_RANKS, level - 2)


# ---- multisets ------------------------------------------------------------------------------

cdef inline int card_count(u64 lo, u64 hi) noexcept nogil:
    """Number of cards (type and rank bits ignored). A count is 0, 1 or 2 = 0b00, 0b01, 0b10,
    so the popcount of a word counts its kinds and that of its high bits adds the pairs."""
    lo &= LO_CARD_MASK
    hi &= HI_CARD_MASK
    return (__builtin_popcountll(lo) + __builtin_popcountll(lo & ~ODD_BITS)
            + __builtin_popcountll(hi) + __builtin_popcountll(hi & ~ODD_BITS))


cdef inline bint word_contains(u64 a, u64 b) noexcept nogil:
    # Every 2-bit count of b <= the same count of a.
    cdef int i
    for i in range(28):
        if ((b >> (2 * i)) & 3) > ((a >> (2 * i)) & 3):
            return False
    return True


cdef inline bint contains(u64 hand_lo, u64 hand_hi, u64 lo, u64 hi) noexcept nogil:
    """Is the multiset (lo, hi) (type/rank bits ignored) inside the hand? Validation only."""
    return word_contains(hand_lo, lo & LO_CARD_MASK) and word_contains(hand_hi, hi & HI_CARD_MASK)


# ---- move words -----------------------------------------------------------------------------

cdef inline int move_type(u64 hi) noexcept nogil:
    return <int>((hi >> TYPE_SHIFT) & FIELD_MASK)


cdef inline int move_rank(u64 hi) noexcept nogil:
    return <int>((hi >> RANK_SHIFT) & FIELD_MASK)


cdef inline u64 move_tag(int t, int rc) noexcept nogil:
    """The type and rank fields of a move, to OR into hi."""
    return ((<u64>t) << TYPE_SHIFT) | ((<u64>rc) << RANK_SHIFT)


cdef inline bint is_bomb_type(int t) noexcept nogil:
    return t == T_BOMB or t == T_STRAIGHT_FLUSH


cdef inline int bomb_tier(int n) noexcept nogil:
    """Tier of a same-rank bomb of n cards (4..10)."""
    if n == 4:
        return TIER_BOMB4
    if n == 5:
        return TIER_BOMB5
    return n - 2


cdef inline int play_key(u64 lo, u64 hi, int level) noexcept nogil:
    """The compared rank of a play within its type (docs/design.md "Keys"): the single-order
    value for same-rank groups (2..17), the lowest natural position for sequences (1..10)."""
    cdef int t = move_type(hi), rc = move_rank(hi)
    if t > T_THREE_WITH_TWO and t != T_BOMB:
        return rc                       # Straight, ThreePair, TwoTrips, StraightFlush
    if rc == RANK_JOKER:
        return VALUE_HR if (hi >> HR_BIT) & 3 else VALUE_SB
    if rc == level:
        return VALUE_LEVEL
    return rc


cdef inline void tier_key(u64 lo, u64 hi, int level, int* tier, int* key) noexcept nogil:
    """(tier, key) of a play on the bomb ladder (docs/rules.md §5); tier 0 for non-bombs, whose
    key is play_key. A bomb beats any non-bomb; bombs compare (tier, key)."""
    cdef int t = move_type(hi), rc = move_rank(hi)
    if t == T_BOMB:
        if rc == RANK_JOKER:
            tier[0] = TIER_JOKERS
            key[0] = 0
        else:
            tier[0] = bomb_tier(card_count(lo, hi))
            key[0] = VALUE_LEVEL if rc == level else rc
    elif t == T_STRAIGHT_FLUSH:
        tier[0] = TIER_STRAIGHT_FLUSH
        key[0] = rc
    else:
        tier[0] = 0
        key[0] = play_key(lo, hi, level)

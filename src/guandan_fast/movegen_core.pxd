# The compiled move generator's C-level interface (implemented in movegen_core.pyx).
# Contract shared with game.pyx; see docs/design.md for the encoding. No function here checks
# its input: callers pass hands and moves built by checked code.
from libc.stdint cimport int32_t
from guandan_fast.types cimport u64, N_RANKS

cdef struct RulesC:
    # The two docs/rules.md §12 switches that move generation depends on.
    bint sf_as_straight
    bint fullhouse_joker_pair

cdef struct HandCounts:
    # One hand broken down for the generator (movegen_core.hand_count), and the canonical
    # choices' tables built from it on demand: a function of (lo, hi, level) alone, so a
    # caller that asks again about the same hand (VecEnv keeps one per table and seat: a seat
    # that passed is asked again with the same hand) may keep it between calls and pass it
    # to generate_actions as a memo. Zeroed (level 0), it holds no hand yet.
    u64 lo               # the hand it describes (hi: card bits only)
    u64 hi
    int level
    int lr               # rank index of the level rank (level - 2)
    int W                # wilds held (0..2): hearts of the level rank
    u64 wild_lo          # the words of one wild (a heart, so always in lo)
    u64 sw[4]            # natural (non-wild) copies per suit, 2 bits per rank index (cnt())
    u64 av               # natural copies per rank, all suits, 4 bits per rank (navail())
    unsigned char avb[16]  # the same, a byte per rank (then zeros): the rank masks
                         # (ranks_with) and the runs' windows (run_windows)
    u64 c01              # 4 bits per rank: the copies of suit 0, and of suit 1 shifted by 2
    u64 c23              # the same for suits 2 and 3 (build_unit reads a rank's byte off them)
    int nsb              # small jokers held (0..2)
    int nhr              # big jokers held
    # -- the straight-flush tables (hand_count, sf_suits) and the best bomb --
    int sfany            # some sfw[s] is not zero (else every sfu is zero too)
    int pm[4]            # per suit, "position mask": bit p set when the hand holds a natural
                         # card of that suit at sequence position p (1..14; the ace at 1 and
                         # 14); built only when some suit can hold a straight flush
    int sfw[4]           # per suit, the straight-flush windows of the hand (sf_suits)
    int sfu[4]           # per suit, "straight-flush usable": rank mask of the naturals that some
                         # straight-flush window of the hand (with its wilds) could use
    int bombtk           # the best bomb as tier * 32 + key, 0: none (bomb_rank)
    # -- built on demand (build_unit: a bit of bu per rank) --
    int bu               # rank mask of the ranks whose preference split below is built
    int fcol[N_RANKS]    # rank r's natural copies that break no straight flush, and the
    int rcol[N_RANKS]    # last copies of straight-flush cards (bytes of SUB_* form: 2 bits
    int nfree[N_RANKS]   # per suit); nfree: the copies in fcol (build_unit)

cdef enum:
    # Capacity, in moves, of a buffer that always suffices for one generate() call on a hand of
    # at most 27 cards (each move takes two u64 words in the buffer). Larger hands (Game.setup
    # allows up to 105 cards in one seat: about 135,000 moves) need generate_grow.
    MAX_MOVES = 32768

# Every legal move of the hand into out[2*i], out[2*i+1] (lo, hi). On lead (last == (0, 0))
# PASS is not included; on follow the moves that beat `last` and then PASS as (0, 0).
# compact: one canonical move per (type, key, size), and per suit for straight flushes.
# Returns the number of moves, or -1 when `cap` (in moves) is too small.
cdef int generate(u64 lo, u64 hi, int level, u64 last_lo, u64 last_hi, const RulesC* rules,
                  bint compact, u64* out, int cap) noexcept nogil

# The compact moves as abstract actions (action_space.pxd; actions.fill_legal_actions), in ascending id order: ids[i] and the canonical move out[2*i], out[2*i+1]
# (PASS first on a follow), the full houses made by (triple rank, pair group) as the action
# space defines them. ids and out hold N_ACTIONS entries (one move per id at most). Returns
# the count. A follow that nothing in the hand beats costs can_follow's test, no listing.
# memo: NULL, or a HandCounts the caller keeps (zeroed at first: no hand): reused when it holds this
# hand and level, else refilled; either way it then holds this hand.
cdef int generate_actions(u64 lo, u64 hi, int level, u64 last_lo, u64 last_hi,
                          const RulesC* rules, int32_t* ids, u64* out, HandCounts* memo) noexcept nogil

# generate() into a heap buffer that is grown (realloc) to the exact count when it is too
# small: the buffer is sized from the hand, so any hand fits. *buf may be NULL with *cap 0.
# Returns the number of moves, or -1 when memory ran out (*buf and *cap then unchanged).
cdef int generate_grow(u64 lo, u64 hi, int level, u64 last_lo, u64 last_hi, const RulesC* rules,
                       bint compact, u64** buf, int* cap) noexcept nogil

# Number of moves generate() would return, writing nothing.
cdef int count_moves(u64 lo, u64 hi, int level, u64 last_lo, u64 last_hi, const RulesC* rules,
                     bint compact) noexcept nogil

# Every reading of exactly these cards (same output convention; never PASS). Returns the count.
cdef int classify_cards(u64 lo, u64 hi, int level, const RulesC* rules, u64* out, int cap) noexcept nogil

# Does generate() on this follow (last != (0, 0)) list more than PASS? The same answer without
# listing moves (a forced pass costs this instead of a generation).
cdef bint can_follow(u64 lo, u64 hi, int level, u64 last_lo, u64 last_hi,
                     const RulesC* rules) noexcept nogil

# docs/rules.md §5 on encoded moves (`last` == (0, 0) means a lead).
cdef bint beats(u64 lo, u64 hi, u64 last_lo, u64 last_hi, int level) noexcept nogil

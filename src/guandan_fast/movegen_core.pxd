# The compiled move generator's C-level interface (implemented in movegen_core.pyx).
# Contract shared with game.pyx; see docs/design.md for the encoding. No function here checks
# its input: callers pass hands and moves built by checked code.
from libc.stdint cimport int32_t
from guandan_fast.types cimport u64

cdef struct RulesC:
    # The two docs/rules.md §12 switches that move generation depends on.
    bint sf_as_straight
    bint fullhouse_joker_pair

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
cdef int generate_actions(u64 lo, u64 hi, int level, u64 last_lo, u64 last_hi,
                          const RulesC* rules, int32_t* ids, u64* out) noexcept nogil

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

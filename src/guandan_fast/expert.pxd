# The expert agent's C-level interface (implemented in expert.pyx; docs/expert.md).
#
# A rule-based player built on a hand plan (the split of the hand into the fewest, strongest
# plays). nogil, allocation-free and deterministic (no randomness); it reads only what the seat
# to move may know: its own hand, the union of the hands it cannot see (which is the deck minus
# its hand and every public play), card counts as the rules disclose them, the trick, the
# exchange cards and the finishing order.
from libc.stdint cimport int8_t
from guandan_fast.types cimport u64, HAND_SIZE
from guandan_fast.game_core cimport GameState

cdef struct Group:
    int8_t type           # T_* play type
    int8_t key            # play_key convention: 2..17 for same-rank groups, lowest position
                          # 1..10 for sequences
    int8_t size           # cards
    int8_t control        # does it win the lead back (A or higher, top sequences, bombs)?
    int value             # the group's worth in the plan (higher is better)

cdef struct Plan:
    int n                 # groups
    int value             # sum of the groups' values
    int weak              # groups that are not control groups
    Group g[HAND_SIZE + 1]

# The plan of the hand last planned (one per seat, in the seat's Bot): a seat's hand does not
# change between its decisions until it plays, so most decisions reuse it.
cdef struct ExpertMemo:
    u64 lo
    u64 hi
    int level             # -1: empty
    Plan plan

# The best plan of a hand (lo, hi) at `level` (2..14).
cdef void plan_hand(u64 lo, u64 hi, int level, Plan* out) noexcept nogil

# The value of the best plan alone (the same search, no groups written).
cdef int plan_value(u64 lo, u64 hi, int level) noexcept nogil

# Empty a memo (before a match).
cdef void expert_reset(ExpertMemo* memo) noexcept nogil

# The index of the expert's move among the n moves game_legal wrote (compact list) for s.current.
# memo: the seat's memo, or NULL (then the plan is made afresh). With a memo (a seat of a match)
# the end game is played exactly when every hand is known (expert.pyx endgame_choose, through
# the thread's solver); without one (search rollouts and default moves) by the rules alone.
cdef int expert_choose(const GameState* s, const u64* moves, int n, ExpertMemo* memo) noexcept nogil

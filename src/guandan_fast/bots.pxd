# The built-in bots' C-level interface (implemented in bots.pyx).
#
# A bot picks one of the moves that game_legal() wrote for the current player. Bots are nogil,
# allocation-free, and deterministic given their own SplitMix64 state (one per seat, seeded by
# the caller). The greedy policy is documented in docs/design.md ("Bots").
from guandan_fast.hand cimport u64
from guandan_fast.game cimport GameState

cdef enum:
    # Agent kinds (the names of simulate(agents=...) are "random", "random_compact", "greedy").
    AGENT_RANDOM = 0          # uniform over the complete legal move list
    AGENT_RANDOM_COMPACT = 1  # uniform over the compact legal move list
    AGENT_GREEDY = 2          # the greedy heuristic, over the compact legal move list
    # Search agents (search.pyx; simulate_core dispatches them, bot_choose never sees them)
    AGENT_PIMC = 3
    AGENT_ISMCTS = 4
    N_AGENT_KINDS = 5

cdef struct Bot:
    u64 rng                   # SplitMix64 state of this seat's bot
    int kind                  # AGENT_*

# Does this kind of agent choose among compact moves (movegen's compact mode)?
cdef bint agent_compact(int kind) noexcept nogil

# Seat p's bot for a match whose generator starts at `match_seed`: its own SplitMix64 stream,
# independent of the game's deal stream.
cdef void bot_init(Bot* bot, int kind, u64 match_seed, int seat) noexcept nogil

# Index (0 <= i < n) of the move the bot plays among moves[2*i], moves[2*i+1] (the list that
# game_legal() wrote for s.current, n >= 1).
cdef int bot_choose(Bot* bot, const GameState* s, const u64* moves, int n) noexcept nogil

# The greedy policy alone (no randomness).
cdef int greedy_choose(const GameState* s, const u64* moves, int n) noexcept nogil


# Population count without the libgcc call that __builtin_popcountll becomes when the
# compiler may not assume the POPCNT instruction (the build passes no -march flag).
cdef inline int popcount64(u64 x) noexcept nogil:
    x = x - ((x >> 1) & <u64>0x5555555555555555ULL)
    x = (x & <u64>0x3333333333333333ULL) + ((x >> 2) & <u64>0x3333333333333333ULL)
    x = (x + (x >> 4)) & <u64>0x0F0F0F0F0F0F0F0FULL
    return <int>((x * <u64>0x0101010101010101ULL) >> 56)

# Number of cards of a multiset or move (type and rank bits ignored). With 2-bit counts of
# at most 2, the count is the popcount of the words plus that of their high bits (a count
# of 2 is the single bit 0b10). The masks are literals on purpose: hand.pxd's module-level
# constants are not initialised in cimporting modules.
cdef inline int ncards(u64 lo, u64 hi) noexcept nogil:
    lo &= <u64>0x000FFFFFFFFFFFFFULL
    hi &= <u64>0x00FFFFFFFFFFFFFFULL
    return (popcount64(lo) + popcount64(lo & <u64>0xAAAAAAAAAAAAAAAAULL)
            + popcount64(hi) + popcount64(hi & <u64>0xAAAAAAAAAAAAAAAAULL))

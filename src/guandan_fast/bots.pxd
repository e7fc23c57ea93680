# The built-in bots' C-level interface (implemented in bots.pyx).
#
# A bot picks one of the moves that game_legal() wrote for the current player. Bots are nogil,
# allocation-free, and deterministic given their own SplitMix64 state (one per seat, seeded by
# the caller). The greedy policy is documented in docs/design.md ("Bots").
from guandan_fast.types cimport u64
from guandan_fast.game_core cimport GameState
from guandan_fast.expert cimport ExpertMemo, N_STYLES

cdef enum:
    # Agent kinds (the names of simulate(agents=...) are "random", "random_compact", "greedy").
    AGENT_RANDOM = 0          # uniform over the complete legal move list
    AGENT_RANDOM_COMPACT = 1  # uniform over the compact legal move list
    AGENT_GREEDY = 2          # the greedy heuristic, over the compact legal move list
    # Search agents (search.pyx; simulate_core dispatches them, bot_choose never sees them)
    AGENT_PIMC = 3
    AGENT_ISMCTS = 4
    AGENT_EXPERT = 5          # the plan-based rule player (expert.pyx), over the compact list
    # The expert's styles (the gauntlet, docs/expert.md): AGENT_EXPERT + the style's index in
    # expert.pyx STYLE_NAMES, each played by expert_choose with its row of knobs.
    AGENT_BOMBER = 6
    AGENT_SAVER = 7
    AGENT_SHEDDER = 8
    AGENT_KEEPER = 9
    AGENT_SOLO = 10
    N_AGENT_KINDS = 11

cdef struct Bot:
    u64 rng                   # SplitMix64 state of this seat's bot
    int kind                  # AGENT_*
    ExpertMemo memo           # the expert's plan of its hand (AGENT_EXPERT and its styles)

# Is this kind the expert or one of its styles (AGENT_EXPERT .. AGENT_SOLO)?
cdef inline bint is_expert_kind(int kind) noexcept nogil:
    return AGENT_EXPERT <= kind < AGENT_EXPERT + N_STYLES

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


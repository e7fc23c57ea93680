# Compiled search agents (search.pyx): PIMC and single-observer IS-MCTS. docs/search.md.
from guandan_fast.types cimport u64, Cards
from guandan_fast.game_core cimport GameState
from guandan_fast.sample cimport Played
from guandan_fast.solve cimport Solver
from guandan_fast.expert cimport ExpertMemo, N_STYLES

cdef enum:
    # Rollouts by a mixture of styles: the searching team plays the expert, each opponent a
    # style of the gauntlet drawn per world (expert.pyx STYLE_NAMES).
    ROLLOUT_MIX = 100
    # How the sampled worlds count (SearchParams.worlds): all alike, or weighted by how likely
    # the opponents' plays of this hand are in each under a mixture of style models.
    WORLDS_UNIFORM = 0
    WORLDS_STYLES = 1
    # The style models of WORLDS_STYLES: greedy (model 0) and the expert's N_STYLES styles.
    N_MODELS = N_STYLES + 1
    # Opponent decisions of one hand remembered for WORLDS_STYLES (later ones are not counted).
    HIST_CAP = 1024

cdef struct SearchParams:
    int kind              # AGENT_PIMC or AGENT_ISMCTS (bots.pxd)
    int samples           # PIMC: worlds per decision
    int rollouts          # PIMC: rollouts per candidate move and world
    int iterations        # IS-MCTS: iterations per decision
    double explore        # IS-MCTS: UCB constant
    int search_at         # search when the seat to move holds at most this many cards
    int solve_at          # solve a world exactly when all hands hold at most this many cards
    long long nodes       # node budget of one exact solve
    int rollout           # the rollout and default policy: AGENT_GREEDY, AGENT_EXPERT (or one
                          # of its styles), AGENT_RANDOM_COMPACT (bots.pxd) or ROLLOUT_MIX
    double margin         # PIMC: a move other than the default one is played only when its
                          # mean outcome per world beats the default move's by more than this
    double ms             # time budget per decision in milliseconds (0: none); stops the
                          # samples / iterations early (not deterministic: docs/search.md)
    int worlds            # PIMC: WORLDS_UNIFORM or WORLDS_STYLES
    double soft           # WORLDS_STYLES: a style model plays its own move with probability
                          # 1 - soft, each other compact move with soft / (moves - 1)
    double temper         # WORLDS_STYLES: a world's weight is its likelihood to this power
                          # (and so is each style's in the rollouts' draw)

# WORLDS_STYLES: an opponent's decision of the current hand, as the searching seat saw it.
cdef struct HistEntry:
    GameState s           # the state before the move, every hand and the rng zeroed (only
                          # what is public stays; a world's hands are put back in)
    u64 lo                # the move made
    u64 hi
    Cards before[4]       # what each seat had given away this hand before it (Played)

cdef struct TreeNode:
    u64 lo                # the move that leads here
    u64 hi
    int first_child
    int next_sibling
    int visits
    int avail
    double total          # sum of outcomes for the team of the seat that made the move
    int mover

cdef struct SearchCtx:
    SearchParams prm
    u64 rng
    int seat
    Played played         # what every seat gave away this hand (known exchange cards)
    Solver* solver
    u64* buf              # one MAX_MOVES buffer for rollouts and tree steps
    double* sums          # PIMC: per candidate
    TreeNode* nodes       # IS-MCTS pool (iterations + 1)
    int* path
    int world_style[4]    # ROLLOUT_MIX: each seat's style in the current world's rollouts
                          # (-1: greedy, with WORLDS_STYLES)
    HistEntry* hist       # WORLDS_STYLES: the opponents' decisions of hand hist_hand
    int n_hist
    int hist_hand
    ExpertMemo* memo      # WORLDS_STYLES: one plan cache per seat (4)
    double ll[4 * N_MODELS]   # WORLDS_STYLES: per seat and model, the log-likelihood of the
                              # seat's plays in the current world

# Allocate (NULL when out of memory) / free a context; reset it for a match (its own stream).
cdef SearchCtx* search_new(const SearchParams* prm) noexcept nogil
cdef void search_free(SearchCtx* c) noexcept nogil
cdef void search_reset(SearchCtx* c, u64 match_seed, int seat) noexcept nogil
# Every action of the match, before it is applied (the agent remembers what was played).
cdef void search_observe(SearchCtx* c, const GameState* s, u64 lo, u64 hi) noexcept nogil
# The index of the move to play among moves[0 .. n) (the compact list of s.current).
cdef int search_choose(SearchCtx* c, const GameState* s, const u64* moves, int n) noexcept nogil

# The search contexts of one simulation chunk, by seat (NULL for the built-in bots); built from
# Python by simulate_core from the parsed agent names.
cdef class Agents:
    cdef SearchCtx* ctx[4]

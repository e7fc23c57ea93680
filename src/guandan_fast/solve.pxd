# The exact endgame solver (solve.pyx): double-dummy minimax of the current hand's outcome.
from libc.stdint cimport int8_t, uint32_t
from guandan_fast.types cimport u64, card_count
from guandan_fast.game_core cimport GameState, last_partner_place, PH_PLAY
from guandan_fast.interrupt cimport Interrupt

cdef struct TTEntry:
    u64 key
    u64 check
    u64 best_lo
    u64 best_hi
    int8_t value
    int8_t flag          # 0 empty, 1 exact, 2 lower bound, 3 upper bound
    int8_t _pad[2]
    uint32_t gen         # the solver's generation that wrote it (older ones are empty)

cdef struct Solver:
    u64* moves           # one arena of moves for the whole search (a stack per depth)
    int* order
    int cap              # moves the arena holds
    TTEntry* tt
    u64 tt_mask
    long long nodes
    long long max_nodes
    bint aborted
    uint32_t gen         # current generation of the table (solver_clear)
    # Ctrl-C, checked every few thousand positions when not NULL (the Python solve() sets
    # it; the agents, whose budgets are small, leave it NULL): a signal aborts the search.
    Interrupt* it

# The hand's outcome for team 0: +3/+2/+1 when team 0's seat finished 1st and its partner 2nd,
# 3rd or 4th; -3/-2/-1 the same for team 1.
cdef Solver* solver_new(int tt_bits, int arena_moves) noexcept nogil
cdef void solver_free(Solver* S) noexcept nogil
# Solve s (play phase) within max_nodes: returns 1 when finished (value, best move set), 0 when
# the node budget ran out, -1 on an internal failure (arena too small).
cdef int solver_run(Solver* S, const GameState* s, long long max_nodes, int* value,
                    u64* best_lo, u64* best_hi) noexcept nogil

# Empty the table in O(1) (a new generation): what is solved next depends on nothing solved
# before (the agents that must decide the same at any thread count clear it per decision).
cdef void solver_clear(Solver* S) noexcept nogil

# The calling thread's own solver (2**14 table entries, 2**15 arena moves), made on first use
# and freed when the thread ends; NULL when out of memory. For agents without a context of
# their own (the expert): allocated once per thread, never per move. A match runs on one
# thread, so clearing it when a match starts (bots.pyx bot_init) makes its content depend on
# the match alone.
cdef Solver* thread_solver() noexcept nogil
# The same without making it: NULL when this thread has none yet.
cdef Solver* thread_solver_if_any() noexcept nogil

# The index among moves[0 .. n) (any legal list of s.current, e.g. the compact one) of a move
# that keeps the exact value of s, `prefer` when it does (else the solver's own best move when
# listed, else the first that does, else the list's best); -1 when the node budget (shared by
# the whole decision) ran out. The table is kept (what it holds is exact): a caller that must
# decide the same whatever was solved before clears it (solver_clear) at a point every run
# shares, e.g. the start of a match.
cdef int solve_pick(Solver* S, const GameState* s, const u64* moves, int n, int prefer,
                    long long budget) noexcept nogil

# Does the seat to move know every hand from public information? True when at most one other
# seat still holds cards: its hand is then the complement of the own hand and every card
# played. (With two other seats holding cards, how the unseen cards split between them is
# hidden: those positions are solved only over sampled worlds, inside search.)
cdef inline bint hands_known(const GameState* s) noexcept nogil:
    cdef int q, others = 0
    if s.phase != PH_PLAY:
        return False
    for q in range(4):
        if q != s.current and card_count(s.hand_lo[q], s.hand_hi[q]) > 0:
            others += 1
    return others <= 1

# Outcome code of the hand that just ended (s.last_finish, after game_apply returned a hand end).
cdef inline int outcome_of(const GameState* s) noexcept nogil:
    cdef int place = last_partner_place(s)
    return (4 - place) if (s.last_finish[0] & 1) == 0 else -(4 - place)

# The exact endgame solver (solve.pyx): double-dummy minimax of the current hand's outcome.
from libc.stdint cimport int8_t
from guandan_fast.types cimport u64
from guandan_fast.game_core cimport GameState, last_partner_place

cdef struct TTEntry:
    u64 key
    u64 check
    u64 best_lo
    u64 best_hi
    int8_t value
    int8_t flag          # 0 empty, 1 exact, 2 lower bound, 3 upper bound
    int8_t _pad[6]

cdef struct Solver:
    u64* moves           # one arena of moves for the whole search (a stack per depth)
    int* order
    int cap              # moves the arena holds
    TTEntry* tt
    u64 tt_mask
    long long nodes
    long long max_nodes
    bint aborted

# The hand's outcome for team 0: +3/+2/+1 when team 0's seat finished 1st and its partner 2nd,
# 3rd or 4th; -3/-2/-1 the same for team 1.
cdef Solver* solver_new(int tt_bits, int arena_moves) noexcept nogil
cdef void solver_free(Solver* S) noexcept nogil
# Solve s (play phase) within max_nodes: returns 1 when finished (value, best move set), 0 when
# the node budget ran out, -1 on an internal failure (arena too small).
cdef int solver_run(Solver* S, const GameState* s, long long max_nodes, int* value,
                    u64* best_lo, u64* best_hi) noexcept nogil

# Outcome code of the hand that just ended (s.last_finish, after game_apply returned a hand end).
cdef inline int outcome_of(const GameState* s) noexcept nogil:
    cdef int place = last_partner_place(s)
    return (4 - place) if (s.last_finish[0] & 1) == 0 else -(4 - place)

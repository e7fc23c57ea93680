# The fixed abstract action space's C-level interface (implemented in actions.pyx).
# Numbering: docs/learning.md (version ACTIONS_VERSION). nogil functions trust their input.
from libc.stdint cimport int32_t, uint8_t
from guandan_fast.types cimport u64
from guandan_fast.game_core cimport GameState

cdef enum:
    ACTIONS_VERSION = 1
    N_ACTIONS = 501
    A_PASS = 0
    A_SINGLE = 1            # 15: ranks 2..A, B, R
    A_PAIR = 16             # 15
    A_TRIPS = 31            # 13
    A_FULL_HOUSE = 44       # 13 triple ranks x 14 pair ranks (2..A, B, R but the triple's)
    A_STRAIGHT = 226        # 10 windows (low end A, 2, .. T)
    A_THREE_PAIR = 236      # 12 windows (AA2233 .. QQKKAA)
    A_TWO_TRIPS = 248       # 13 windows (AAA222 .. KKKAAA)
    A_BOMB = 261            # 13 ranks x 7 sizes (4..10)
    A_STRAIGHT_FLUSH = 352  # 10 windows x 4 suits
    A_JOKER_BOMB = 392
    A_TRIBUTE = 393         # 54 card kinds
    A_BACK = 447            # 54 card kinds
    # Scratch (in moves) that legal_actions needs: one compact list and the full houses.
    ACT_SCRATCH = 2048

# The abstract action of well-formed move words at `level` (-1 when it has none).
cdef int action_of_move(u64 lo, u64 hi, int level) noexcept nogil

# The current player's legal abstract actions, ascending, into ids[i] with their canonical
# concrete moves in words[2*i], words[2*i+1]; returns the count (0 when the match is over).
# `scratch` holds ACT_SCRATCH moves (2*ACT_SCRATCH u64); ids/words hold N_ACTIONS entries.
cdef int fill_legal_actions(const GameState* s, u64* scratch, int32_t* ids, u64* words) noexcept nogil

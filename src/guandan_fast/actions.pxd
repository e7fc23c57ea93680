# The fixed abstract action space's C-level interface (implemented in actions.pyx).
# Numbering: action_space.pxd, docs/learning.md. nogil functions trust their input.
from libc.stdint cimport int32_t, uint8_t
from guandan_fast.types cimport u64
from guandan_fast.game_core cimport GameState, PH_PLAY
from guandan_fast.movegen_core cimport Hand, generate_actions

from guandan_fast.action_space cimport (ACTIONS_VERSION, N_ACTIONS, A_PASS, A_SINGLE, A_PAIR,
                                        A_TRIPS, A_FULL_HOUSE, A_STRAIGHT, A_THREE_PAIR,
                                        A_TWO_TRIPS, A_BOMB, A_STRAIGHT_FLUSH, A_JOKER_BOMB,
                                        A_TRIBUTE, A_BACK)

cdef enum:
    # Scratch (in moves) that legal_actions needs outside the play phase (tribute and back).
    ACT_SCRATCH = 2048

# The abstract action of well-formed move words at `level` (-1 when it has none).
cdef int action_of_move(u64 lo, u64 hi, int level) noexcept nogil

# The current player's legal abstract actions, ascending, into ids[i] with their canonical
# concrete moves in words[2*i], words[2*i+1]; returns the count (0 when the match is over).
# `scratch` holds ACT_SCRATCH moves (2*ACT_SCRATCH u64); ids/words hold N_ACTIONS entries.
# memo: NULL, or the current player's Hand memo kept by the caller (generate_actions: a seat
# asked again with the same hand skips counting it).
# Inline: a play decision is one call into the generator from the caller (VecEnv lists one
# per decision; the call through this module cost ~30 instructions a decision).
cdef inline int fill_legal_actions(const GameState* s, u64* scratch, int32_t* ids, u64* words,
                                   Hand* memo) noexcept nogil:
    cdef int p = s.current
    if s.phase == PH_PLAY:
        # The compact generator lists the canonical moves with their ids, in id order (a
        # forced pass, decided from the hand's counts, costs no listing).
        return generate_actions(s.hand_lo[p], s.hand_hi[p], s.level, s.top_lo, s.top_hi,
                                &s.rules.gen, ids, words, memo)
    return fill_exchange_actions(s, scratch, ids, words)

# fill_legal_actions outside the play phase: the tribute and back choices (0 when over).
cdef int fill_exchange_actions(const GameState* s, u64* scratch, int32_t* ids,
                               u64* words) noexcept nogil

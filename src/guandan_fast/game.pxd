# The Game wrapper's C-level interface (implemented in game.pyx): what compiled modules need
# from Python objects. The state machine itself is game_core.pxd.
from guandan_fast.types cimport u64
from guandan_fast.game_core cimport GameState, GameRulesC

# ---- Learning interface (guandan_fast.actions / observe / vecenv; docs/learning.md) --------
# The struct inside a compiled Game (TypeError for anything else); valid while the Game lives.
cdef GameState* game_state_ptr(object game) except NULL
# The current hand's play-phase moves of a Game, oldest first, as (seat, lo, hi) triples into
# out[3*i..3*i+2]; returns how many (at most `cap`; the latest ones when there are more).
cdef int game_hand_plays(object game, u64* out, int cap) except -1
# A clone of a Game (seed, rules, past) in the position *st (checked: ValueError when a field
# is out of range); what guandan_fast.sample and solve return.
cdef object game_with_state(object game, const GameState* st)

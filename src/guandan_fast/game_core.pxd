# The compiled game state machine's C-level interface (implemented in game_core.pyx).
#
# A whole match is one plain GameState struct: no pointers, so copying the struct (memcpy or
# assignment) clones the game, and arrays of states can live in numpy buffers. The functions
# below are nogil and allocation-free; they trust their input (the Python wrapper `Game`
# validates what comes from Python before calling them, in game.pyx). Rules: docs/rules.md §7-10 and §12;
# encoding of cards and moves: docs/design.md.
from libc.stdint cimport int8_t, int32_t
from guandan_fast.types cimport u64, words_add_kind
from guandan_fast.movegen_core cimport RulesC

cdef enum:
    # GameState.phase
    PH_TRIBUTE = 0
    PH_BACK = 1
    PH_PLAY = 2
    PH_OVER = 3
    # Return codes of game_apply
    STEP_CONTINUE = 0     # the hand goes on
    STEP_HAND_OVER = 1    # a hand ended and the next one has been dealt (GameState.last_*)
    STEP_MATCH_OVER = 2   # a hand ended and so did the match (phase PH_OVER)

cdef struct GameRulesC:
    # The §12 switches as small integers (game.pyx converts a Rules into this).
    RulesC gen                    # sf_as_straight, fullhouse_joker_pair (for movegen)
    int8_t up[3]                  # levels gained when the partner finishes 2nd, 3rd, 4th
    int8_t ace_rule               # 0 partner_2nd_or_3rd, 1 double_only, 2 any_win
    int8_t ace_fail_reset         # 0: none; N: back to 2 after N failed hands at own A
    int8_t ace_reset_natural_aces # bool
    int8_t tribute_first_fourth   # 0 4th_pays, 1 none, 2 3rd_pays
    int8_t anti_tribute           # bool
    int8_t return_rule            # 0 natural_2_10, 1 any, 2 any_but_received
    int8_t double_tie             # 0 clockwise, 1 winners_choose
    int8_t disclosure             # a count <= this is public (10, 7, or 127 = always)
    int8_t first_leader           # -1 random, else the card kind whose holder leads

cdef struct GameState:
    u64 hand_lo[4]                # each seat's cards (docs/design.md multiset)
    u64 hand_hi[4]
    u64 top_lo                    # the trick's top play (move words); (0, 0) on lead
    u64 top_hi
    u64 rng                       # SplitMix64 state
    int32_t hand_number           # 0-based
    int32_t n_actions             # moves made in the current hand (tribute/back included)
    int8_t levels[2]              # per team, 2..14
    int8_t declarer               # team whose level is played; -1 for a first hand (at 2)
    int8_t level                  # level of the hand being played
    int8_t phase                  # PH_*
    int8_t current                # seat to act; -1 when the match is over
    int8_t top_seat               # seat of the top play; -1 on lead
    int8_t passes                 # passes in a row since the top play
    int8_t n_finished
    int8_t finish[4]              # finishing order of this hand (n_finished valid)
    int8_t first_out_aces         # bit t: team t's first finisher went out on a play holding a natural ace
    int8_t winner                 # match winner team, -1 while not over
    int8_t ace_fails[2]           # per team: failed hands at its own A (ace_fail_reset)
    # The previous hand (drives this hand's tribute; -1 entries when unknown)
    int8_t last_n_finished
    int8_t last_finish[4]         # 4th entry: the seat that did not go out (when known)
    int8_t last_level             # level the previous hand was played at
    int8_t last_declarer
    # Tribute bookkeeping of this hand (index i = i-th payer in acting order)
    int8_t n_pay                  # 0, 1 or 2 payers
    int8_t step                   # tribute: payers paid so far; back: returns made so far
    int8_t anti_tribute           # bool: anti-tribute applied this hand
    int8_t choosing               # bool: 1st finisher must choose a card (winners_choose)
    int8_t payer[2]
    int8_t receiver[2]            # -1 until every tribute is paid
    int8_t trib_kind[2]           # card kind paid by payer i, -1 before
    int8_t back_kind[2]           # card kind returned to payer i, -1 before
    int8_t leader                 # who leads the play phase after the exchange
    int8_t tribute_first          # the 1st finisher the exchange is about (-1: no exchange)
    int8_t _pad[6]                # explicit, so the struct has no hidden padding (memcmp ==)
    GameRulesC rules

# Start a new match from `seed` (deal, first leader): Game(seed, rules).

cdef void game_init(GameState* s, u64 seed, const GameRulesC* rules) noexcept nogil

# The current player's legal moves into out[2*i], out[2*i+1] (same convention as
# movegen.generate: tribute/back moves in their phases, plays then PASS when following).
# Returns the number of moves, 0 when the match is over, -1 when `cap` (moves) is too small.
cdef int game_legal(const GameState* s, bint compact, u64* out, int cap) noexcept nogil

# Is (lo, hi) one of the current player's legal moves? (Exact words, as game_legal writes them.)
cdef bint game_is_legal(const GameState* s, u64 lo, u64 hi) noexcept nogil

# Make a legal move of the current player (unchecked). Returns STEP_*.
cdef int game_apply(GameState* s, u64 lo, u64 hi) noexcept nogil

cdef inline bint game_over(const GameState* s) noexcept nogil:
    return s.phase == PH_OVER

cdef inline int game_winner(const GameState* s) noexcept nogil:
    return s.winner

# Where the first finisher's partner finished in a hand's order (finish[0] the first
# finisher; a double-down lists the partner 2nd): 1 = 2nd, 2 = 3rd, 3 = last. The hand is
# worth rules.up[place - 1] levels (docs/rules.md §8).
cdef inline int partner_place(const int8_t* finish) noexcept nogil:
    cdef int i
    for i in range(1, 4):
        if finish[i] == (finish[0] ^ 2):
            return i
    return 3

# partner_place of the hand that just ended (game_apply returned a hand end: s.last_*).
cdef inline int last_partner_place(const GameState* s) noexcept nogil:
    return partner_place(s.last_finish)

# game_legal into a heap buffer grown to fit (*buf may be NULL with *cap 0): a constructed hand
# may hold far more than 27 cards. Returns the count, or -1 when memory ran out.
cdef int game_legal_grow(const GameState* s, bint compact, u64** buf, int* cap) noexcept nogil

# ---- Steps of Game.setup (a match from constructed hands) -----------------------------------
# Clear the hand's play and tribute fields (not the cards).
cdef void reset_hand(GameState* s) noexcept nogil
# The tribute exchange that last_finish calls for (or anti-tribute, or straight to play).
cdef void setup_tribute(GameState* s) noexcept nogil
# Open the play phase with `leader` to lead.
cdef void start_play(GameState* s, int leader) noexcept nogil

cdef inline void hand_add(GameState* s, int p, int k, int n) noexcept nogil:
    words_add_kind(&s.hand_lo[p], &s.hand_hi[p], k, n)

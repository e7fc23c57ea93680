# Observation encoders' C-level interface (implemented in observe.pyx; layouts in
# docs/learning.md). nogil, allocation-free, writing into caller buffers; they trust input.
from libc.stdint cimport int8_t, int32_t, uint8_t
from guandan_fast.types cimport u64
from guandan_fast.game_core cimport GameState

cdef enum:
    OBS_SIZE = 536
    HIST_LEN = 16
    HIST_TOKEN = 59
    INFO_SIZE = 1480        # OBS_SIZE + HIST_LEN * HIST_TOKEN
    DZ_STATE_SIZE = 513
    DZ_ACTION_SIZE = 54

# What the encoders need beyond GameState: the current hand's public play history.
cdef struct Track:
    # The card rows below are 54 counts (0..2) as bytes, in the card order `dz` names (0:
    # kinds, the default encoder's; 1: DanZero's); an encoder widens them to floats as it
    # copies them out. Bytes, not floats: a decision reads 270 bytes of them (seat p's hand,
    # the four seats' plays) instead of 1,080, and VecEnv's tables crowd a core's cache less
    # (the learning loop's misses of a 2 MB L2, cachegrind: 8.0 -> 1.9 a decision, for 46
    # more instructions; bench/RESULTS.md, session 9).
    # Row s and row s + 4: seat s's play-phase cards this hand, kept up to date by
    # track_play: an encoder reads the rows of seats p, p + 1, ... (mod 4) in one piece
    # instead of expanding words.
    uint8_t played_b[8][54]
    # DanZero's order only (dz = 1): each seat's last play-phase move this hand (zeros: PASS)
    uint8_t last_b[4][54]
    u64 played_lo[4]          # play-phase cards of each seat this hand
    u64 played_hi[4]
    u64 last_lo[4]            # each seat's last play-phase move this hand (PASS = 0, 0)
    u64 last_hi[4]
    u64 played_all_lo         # DanZero's order only (dz = 1): all four seats' play-phase
    u64 played_all_hi         # cards this hand (the unseen rows' key without four sums)
    u64 hist_lo[HIST_LEN]     # ring: the hand's j-th play-phase move at j % HIST_LEN
    u64 hist_hi[HIST_LEN]
    int32_t n_moves           # play-phase moves this hand
    int8_t has_last[4]
    int8_t hist_seat[HIST_LEN]
    int8_t dz                 # card order of the rows (kept by track_reset)
    # Each seat's cards left as floats, seat s at s and s + 4 (rows p .. p + 3 in one
    # piece), valid while left_ok: set by an encoder at the hand's first play-phase decision
    # (from the words), then kept by track_play (a play takes its cards off). Play-phase
    # moves only change counts through track_play; the exchange's do not, hence the phase.
    int8_t left_ok
    float left_f[8]
    # Rows an encoder would otherwise expand from words at every decision: seat s's hand
    # (hand_b[s]) and, DanZero's order only, the cards s has not seen (unseen_b[s]), each
    # valid while its key (the words it shows) equals the state's. track_play takes a move's
    # cards off the row and the key alike (the mover's hand; the others' unseen cards), so a
    # row stays valid through the play phase; a key that does not match (a new hand, the
    # exchange, a seat never encoded) makes the encoder rebuild the row. A key that did not
    # match never matches by the subtractions (same words off both), and NO_ROW never does.
    u64 hand_key[4][2]
    u64 unseen_key[4][2]
    uint8_t hand_b[4][54]
    uint8_t unseen_b[4][54]

cdef void track_reset(Track* t) noexcept nogil      # a new hand (keeps the card order)
cdef void track_init(Track* t, int dz) noexcept nogil  # empty, rows in that order
cdef void track_play(Track* t, int seat, u64 lo, u64 hi) noexcept nogil

cdef void encode_obs(const GameState* s, Track* t, int p, float* out) noexcept nogil
cdef void encode_info(const GameState* s, Track* t, int p, float* out) noexcept nogil
cdef void encode_danzero(const GameState* s, Track* t, int p, float* out) noexcept nogil

# 54 card counts of a multiset: kind order, or DanZero's order (rank * 4 + suit H S C D).
cdef void cards_u8(u64 lo, u64 hi, uint8_t* out) noexcept nogil
cdef void cards_u8_danzero(u64 lo, u64 hi, uint8_t* out) noexcept nogil
# The same for n moves (words lo, hi each): n rows of 54 at out, in DanZero's order if dz.
cdef void cards_u8_rows(const u64* words, int n, uint8_t* out, bint dz) noexcept nogil

# Determinization: the hidden cards of a state redealt as one seat knows them (sample.pyx).
# docs/search.md describes the distribution. Every function is nogil and allocation-free.
from guandan_fast.types cimport u64, Cards
from guandan_fast.game_core cimport GameState

# Cards each seat gave away in the current hand since the exchange began (its plays and its
# back move): what releases a known exchange card. `hand` is the hand number tracked.
cdef struct Played:
    Cards cards[4]
    int hand

# Reset the tracker when `s` is in another hand, then count the move (lo, hi) about to be made
# by s.current (call it before game_apply).
cdef void played_track(Played* t, const GameState* s, u64 lo, u64 hi) noexcept nogil

# The cards seat p knows to be in each other seat's hand now (exchange cards, minus those given
# away since): pins[q] for q != p; pins[p] is left empty.
cdef void known_pins(const GameState* s, int p, const Played* t, Cards* pins) noexcept nogil

# A copy of s in which the cards p cannot see are dealt uniformly at random among the other
# seats (keeping their counts and the pins), and the future deals (rng) are redrawn.
# Reads the other seats' hands only through their union. Returns 0, or -1 when the pins do not
# fit (an inconsistent input: never for pins from known_pins on a real state).
cdef int sample_deal(const GameState* s, int p, const Cards* pins, u64* rng,
                     GameState* out) noexcept nogil

# The same with per-kind, per-seat weights w[4 * kind + seat] >= 0 (a belief): the unseen cards
# in random order each go to a seat with probability proportional to weight x free slots
# (uniform weights give exactly sample_deal's distribution). Returns 0, or -1 when 64 attempts
# found no assignment with positive weight.
cdef int sample_deal_weighted(const GameState* s, int p, const Cards* pins, const double* w,
                              u64* rng, GameState* out) noexcept nogil

# A Game's state and the tracker of its current hand (TypeError when it is not a Game).
cdef int load_state(object game, GameState* st) except -1
cdef int load_played(object game, GameState* st, Played* t) except -1

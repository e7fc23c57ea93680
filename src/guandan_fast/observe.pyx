# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Observation encoders: what one seat may know, as flat ``float32`` rows (docs/learning.md).

* ``observation_tensor(game, p)``: the project's layout, ``OBS_SIZE`` floats, slices in
  ``OBS_LAYOUT``;
* ``information_state_tensor(game, p)``: the observation plus the hand's last moves
  (``INFO_SIZE``, ``INFO_LAYOUT``);
* ``danzero_state(game, p)`` / ``danzero_actions(words)``: DanZero's 513-float state and
  54-float candidate rows.

The compiled encoders (``encode_obs``, ``encode_info``, ``encode_danzero``) read a
``GameState`` and a ``Track`` (the hand's public play history) and are what ``VecEnv`` runs.

>>> import guandan_fast as gf
>>> g = gf.Game(seed=0); x = observation_tensor(g, 0)
>>> x.shape, x.dtype, int(x[slice(*span('hand'))].sum())
((536,), dtype('float32'), 27)
>>> danzero_state(g, 0).shape
(513,)
"""
from libc.string cimport memset, memcpy
from libc.stdint cimport int8_t, uint8_t

from guandan_fast.types cimport (u64, N_RANKS, N_KINDS, LO_KINDS, KIND_SB, KIND_HR, LO_CARD_MASK,
                                 HI_CARD_MASK, ODD_BITS, SUIT_MASK, SUIT_BITS, SB_BIT, HR_BIT, move_type,
                                 move_rank, kind_count, __builtin_ctzll,
                                 __builtin_popcountll)
from guandan_fast.game_core cimport GameState, PH_PLAY
from guandan_fast.game cimport game_state_ptr, game_hand_plays

cimport numpy as cnp
import numpy as np

from guandan_fast import validate as _validate

cnp.import_array()

globals().update(OBS_SIZE=int(OBS_SIZE), INFO_SIZE=int(INFO_SIZE), HIST_LEN=int(HIST_LEN),
                 DZ_STATE_SIZE=int(DZ_STATE_SIZE), DZ_ACTION_SIZE=int(DZ_ACTION_SIZE))

# Offsets of the default layout (docs/learning.md, section 2).
cdef enum:
    O_HAND = 0
    O_PLAYED = 54
    O_LEFT = 270
    O_TOP_CARDS = 274
    O_TOP_TYPE = 328
    O_TOP_RANK = 338
    O_TOP_SEAT = 354
    O_PASSES = 358
    O_LEVEL = 359
    O_TEAM_LEVELS = 372
    O_DECLARER = 398
    O_PHASE = 401
    O_TO_ACT = 405
    O_FINISH = 409
    O_EXCH_GIVEN = 425
    O_EXCH_RECEIVED = 479
    O_EXCH_ROLE = 533

#: name -> (offset, size) of the observation tensor.
OBS_LAYOUT = {
    "hand": (O_HAND, 54), "played": (O_PLAYED, 216), "cards_left": (O_LEFT, 4),
    "top_cards": (O_TOP_CARDS, 54), "top_type": (O_TOP_TYPE, 10), "top_rank": (O_TOP_RANK, 16),
    "top_seat": (O_TOP_SEAT, 4), "passes": (O_PASSES, 1), "level": (O_LEVEL, 13),
    "team_levels": (O_TEAM_LEVELS, 26), "declarer": (O_DECLARER, 3), "phase": (O_PHASE, 4),
    "to_act": (O_TO_ACT, 4), "finish": (O_FINISH, 16), "exch_given": (O_EXCH_GIVEN, 54),
    "exch_received": (O_EXCH_RECEIVED, 54), "exch_role": (O_EXCH_ROLE, 3),
}
#: The information state: the observation, then the history tokens.
INFO_LAYOUT = dict(OBS_LAYOUT, history=(OBS_SIZE, HIST_LEN * HIST_TOKEN))
#: DanZero's state, in its order.
DZ_LAYOUT = {
    "hand": (0, 54), "wild_flags": (54, 12), "unseen": (66, 54), "last_move": (120, 54),
    "partner_last_move": (174, 54), "played_next": (228, 54), "played_partner": (282, 54),
    "played_previous": (336, 54), "left_next": (390, 28), "left_partner": (418, 28),
    "left_previous": (446, 28), "level_own": (474, 13), "level_opponents": (487, 13),
    "level_current": (500, 13),
}


def span(name, layout=None):
    """``(start, stop)`` of a named slice (default: ``OBS_LAYOUT``)."""
    off, size = (OBS_LAYOUT if layout is None else layout)[name]
    return off, off + size


# ------------------------------------------------------------------------------------------
# Track
# ------------------------------------------------------------------------------------------

cdef extern from *:
    """
    #define GF_NO_ROW (~0ULL)
    """
    const u64 NO_ROW "GF_NO_ROW"      # a key no hand or unseen set has (the top bits set)


cdef inline int cards_left(u64 lo, u64 hi) noexcept nogil:
    """card_count in three popcounts instead of four: the pairs' high bits of both words fit
    in one word (lo's at odd bits, hi's shifted to even ones)."""
    lo &= LO_CARD_MASK
    hi &= HI_CARD_MASK
    return (__builtin_popcountll(lo) + __builtin_popcountll(hi)
            + __builtin_popcountll((lo & ~ODD_BITS) | ((hi & ~ODD_BITS) >> 1)))


cdef inline void track_clear(Track* t, int dz) noexcept nogil:
    cdef int q
    # everything but the cached rows, which their keys make unused
    memset(t, 0, <size_t>(<char*>&t.hand_b[0][0] - <char*>t))
    t.dz = <int8_t>dz
    for q in range(4):
        t.hand_key[q][0] = NO_ROW
        t.unseen_key[q][0] = NO_ROW


cdef void track_reset(Track* t) noexcept nogil:
    track_clear(t, t.dz)


cdef void track_init(Track* t, int dz) noexcept nogil:
    track_clear(t, dz)


cdef void track_play(Track* t, int seat, u64 lo, u64 hi) noexcept nogil:
    cdef int j = <unsigned>t.n_moves % HIST_LEN
    cdef u64 clo = lo & LO_CARD_MASK, chi = hi & HI_CARD_MASK      # the cards alone
    t.last_lo[seat] = lo
    t.last_hi[seat] = hi
    t.has_last[seat] = 1
    t.hist_lo[j] = lo
    t.hist_hi[j] = hi
    t.hist_seat[j] = <int8_t>seat
    t.n_moves += 1
    if clo == 0 and chi == 0:       # a PASS: no cards move
        if t.dz:
            memset(t.last_b[seat], 0, 54)
        return
    _track_cards(t, seat, lo, clo, chi)


cdef inline void track_words(Track* t, int seat, u64 lo, u64 clo, u64 chi, float n) noexcept nogil:
    """A move's words and card count onto the Track's totals and keys (both row paths
    below): the mover's played words and cards left; the cached rows' keys (the mover's hand
    and, DanZero, the others' unseen cards lose the move; see Track: the same words off a key
    that did not match keep it unmatched)."""
    cdef int q
    t.played_lo[seat] += lo
    t.played_hi[seat] += chi
    t.hand_key[seat][0] -= clo
    t.hand_key[seat][1] -= chi
    if t.dz:
        t.played_all_lo += clo
        t.played_all_hi += chi
        for q in range(1, 4):
            t.unseen_key[(seat + q) & 3][0] -= clo
            t.unseen_key[(seat + q) & 3][1] -= chi
    # (left_f is garbage until left_ok, and then rewritten whole: no test here)
    t.left_f[seat] -= n
    t.left_f[seat + 4] -= n


cdef void track_cards(Track* t, int seat, u64 lo, u64 clo, u64 chi) noexcept nogil:
    # Called through _track_cards (a pointer, so that gcc does not inline it): the
    # registers its loops need are then saved for a move with cards only, not for a pass
    # (half the moves; 12 pushes and pops each).
    cdef float n = (track_cards_dz(t, seat, clo, chi) if t.dz
                    else track_cards_kinds(t, seat, clo, chi))
    track_words(t, seat, lo, clo, chi, n)


cdef void track_cards_avx2(Track* t, int seat, u64 lo, u64 clo, u64 chi) noexcept nogil:
    # track_cards with the move's rows by the AVX2 shuffle (gf_move_rows_avx2): the same
    # stores whatever the cards, no loop over them (its end mispredicted ~0.45 times a
    # decision: the number of kinds differs from move to move).
    cdef u64 w[2]
    cdef uint8_t* sub[4]
    cdef int q
    w[0] = clo
    w[1] = chi
    sub[0] = t.hand_b[seat]
    if t.dz:
        for q in range(1, 4):
            sub[q] = t.unseen_b[(seat + q) & 3]
        move_rows_avx2(w, _ROW_TABLES[1], t.played_b[seat], t.played_b[seat + 4],
                       t.last_b[seat], sub, 4)
    else:
        move_rows_avx2(w, _ROW_TABLES[0], t.played_b[seat], t.played_b[seat + 4], NULL,
                       sub, 1)
    track_words(t, seat, lo, clo, chi, <float>cards_left(clo, chi))


cdef void (*_track_cards)(Track*, int, u64, u64, u64) noexcept nogil


# _F_COUNT[b] / _U8_COUNT[b]: the count a word's lone set bit b of a 2-bit count stands for
# (1 + (b & 1)), as a float / a byte. A move or a hand holds at most two of a kind (two
# decks), so a word has exactly one set bit per kind held: bit b is kind b >> 1 of the word,
# with count _F_COUNT[b] (the loops below visit those bits, with no shift, mask or
# conversion per card).
cdef float _F_COUNT[64]
cdef uint8_t _U8_COUNT[64]
for _b in range(64):
    _F_COUNT[_b] = 1 + (_b & 1)
    _U8_COUNT[_b] = 1 + (_b & 1)

cdef inline int track_cards_kinds(Track* t, int seat, u64 lo, u64 hi) noexcept nogil:
    """A move's cards (kind order) onto the mover's played rows and off its hand row (one
    bit per kind held: see _U8_COUNT). Returns the number of cards."""
    cdef uint8_t* pa = t.played_b[seat]
    cdef uint8_t* pb = t.played_b[seat + 4]
    cdef uint8_t* hand = t.hand_b[seat]
    cdef unsigned int b, col       # unsigned: no sign extension per card
    cdef uint8_t n
    cdef int m = 0
    while lo:
        b = __builtin_ctzll(lo)
        n = _U8_COUNT[b]
        col = b >> 1
        pa[col] += n
        pb[col] += n
        hand[col] -= n
        m += n
        lo &= lo - 1
    while hi:
        b = __builtin_ctzll(hi)
        n = _U8_COUNT[b]
        col = LO_KINDS + (b >> 1)
        pa[col] += n
        pb[col] += n
        hand[col] -= n
        m += n
        hi &= hi - 1
    return m


cdef inline int track_cards_dz(Track* t, int seat, u64 lo, u64 hi) noexcept nogil:
    """The same in DanZero's order, and onto the mover's last-move row (cleared before),
    and off the other seats' unseen rows (one bit per kind held: see _F_COUNT; the column
    straight from the bit: _U8_POS; their keys: track_words). Returns the number of cards."""
    cdef uint8_t* pa = t.played_b[seat]
    cdef uint8_t* pb = t.played_b[seat + 4]
    cdef uint8_t* hand = t.hand_b[seat]
    cdef uint8_t* last = t.last_b[seat]
    cdef uint8_t* u1 = t.unseen_b[(seat + 1) & 3]
    cdef uint8_t* u2 = t.unseen_b[(seat + 2) & 3]
    cdef uint8_t* u3 = t.unseen_b[(seat + 3) & 3]
    cdef const uint8_t* pos = &_U8_POS[1][0][0]
    cdef int b, col, half, m = 0
    cdef uint8_t n
    cdef u64 x
    memset(last, 0, 54)
    for half in range(2):
        x = lo if half == 0 else hi
        while x:
            b = __builtin_ctzll(x)
            col = pos[b]
            n = _U8_COUNT[b]
            pa[col] += n
            pb[col] += n
            hand[col] -= n
            last[col] = n
            u1[col] -= n
            u2[col] -= n
            u3[col] -= n
            m += n
            x &= x - 1
        pos += 64
    return m


# ------------------------------------------------------------------------------------------
# Card rows
# ------------------------------------------------------------------------------------------

# _PLANE[b] = the four 2-bit counts of byte b as floats: a multiset's 54 counts are then 14
# 16-byte copies (about 60 instructions whatever the cards), not a loop over its kinds.
cdef float _PLANE[256][4]
for _b in range(256):
    for _j in range(4):
        _PLANE[_b][_j] = (_b >> (2 * _j)) & 3


cdef inline void set_cards_f(u64 lo, u64 hi, float* out) noexcept nogil:
    """out[0:54] = the counts of the multiset, kind order (overwrites; type bits ignored)."""
    cdef int i
    for i in range(7):              # lo: kinds 0..27 (26, 27 are zero here, rewritten below)
        memcpy(out + 4 * i, &_PLANE[(lo >> (8 * i)) & 255][0], 4 * sizeof(float))
    for i in range(7):              # hi: kinds 26..53 (bits 0..55)
        memcpy(out + LO_KINDS + 4 * i, &_PLANE[(hi >> (8 * i)) & 255][0], 4 * sizeof(float))


cdef int _DZ_POS[54]             # dz_index of every kind (filled below: no division per card)


cdef inline int dz_index(int k) noexcept nogil:
    """DanZero's card index of a kind: rank * 4 + suit in the order H S C D; jokers 52, 53."""
    cdef int suit
    if k >= KIND_SB:
        return k
    suit = k // N_RANKS
    if suit < 2:
        suit ^= 1
    return (k % N_RANKS) * 4 + suit


cdef int _KIND_POS[54]           # the identity: the default encoder's column of each kind
for _b in range(54):
    _DZ_POS[_b] = dz_index(_b)
    _KIND_POS[_b] = _b


# _DZ_SPREAD[s][b]: the four 2-bit counts of byte b of a suit's word (ranks 4i .. 4i+3 of
# suit s, kind order S H C D) moved to DanZero's places: rank j's counts of the four suits
# in byte j, suit s at bits 2 * (its DanZero suit). OR-ing one entry per suit gives four
# ranks in DanZero's order, one byte each, which _PLANE turns into floats.
cdef unsigned int _DZ_SPREAD[4][256]
for _s in range(4):
    for _b in range(256):
        _DZ_SPREAD[_s][_b] = sum(((_b >> (2 * _j)) & 3) << (8 * _j + 2 * (_s ^ 1 if _s < 2 else _s))
                                 for _j in range(4))

# Rows of floats cleared with 16-byte moves: a memset of a few hundred bytes becomes
# `rep stos` here, which starts slower than these few stores.
cdef extern from *:
    """
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    static inline void gf_zero_f(float *d, int n) {
        int i = 0;
    #if defined(__SSE2__)
        __m128 z = _mm_setzero_ps();
        #pragma GCC unroll 80
        for (; i + 4 <= n; i += 4) _mm_storeu_ps(d + i, z);
        if (i < n && n >= 4) { _mm_storeu_ps(d + n - 4, z); return; }  /* over the last 4 */
    #endif
        for (; i < n; i++) d[i] = 0.0f;
    }
    """


# The rows an encoder widens from a Track's bytes and the zeros around them, with 32-byte
# moves where the CPU has AVX2 / AVX (checked once at import; the module is built for any
# x86-64): half the stores. Functions of their own (gcc inlines no AVX code into the rest),
# one per encoder's block of rows (gf_obs_rows: the default observation's hand, played rows
# and zeroed tail; gf_dz_rows: DanZero's seven blocks), all lengths constant and the moves
# unrolled: one call a decision instead of three to seven (each ~8 instructions of test,
# spills and call), and no compare chain on a length known only at run time.
cdef extern from *:
    """
    #if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    #include <immintrin.h>
    #define GF_AVX_PATH 1
    __attribute__((target("avx"), always_inline)) static inline void gf_zero_f_avx_body(
            float *d, int n) {
        int i = 0;
        __m256 z = _mm256_setzero_ps();
        #pragma GCC unroll 128
        for (; i + 8 <= n; i += 8) _mm256_storeu_ps(d + i, z);
        if (i < n && n >= 8) { _mm256_storeu_ps(d + n - 8, z); return; }
        for (; i < n; i++) d[i] = 0.0f;
    }
    __attribute__((target("avx"))) static void gf_zero_f_avx(float *d, int n) {
        int i = 0;
        __m256 z = _mm256_setzero_ps();
        for (; i + 8 <= n; i += 8) _mm256_storeu_ps(d + i, z);
        if (i < n && n >= 8) { _mm256_storeu_ps(d + n - 8, z); return; }
        for (; i < n; i++) d[i] = 0.0f;
    }
    /* The history tokens (944 floats), unrolled. */
    __attribute__((target("avx"))) static void gf_zero_f_avx_944(float *d) {
        gf_zero_f_avx_body(d, 944);
    }
    /* A Track's byte rows widened to floats, 8 at a time (a 64-bit load, sign-extended to 8
       ints, converted): the same stores as a float copy, from a quarter of the bytes. Signed:
       counts are 0..2, and DanZero's "no move" row is -1s. A row of n >= 8 ends with one
       group over its last 8 (the bytes read stay in the row). */
    __attribute__((target("avx2"), always_inline)) static inline void gf_f_of_i8_avx2_body(
            float *d, const signed char *s, int n) {
        int i = 0;
        #pragma GCC unroll 32
        for (; i + 8 <= n; i += 8)
            _mm256_storeu_ps(d + i, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(
                _mm_loadl_epi64((const __m128i *)(s + i)))));
        if (i < n && n >= 8) {
            _mm256_storeu_ps(d + n - 8, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(
                _mm_loadl_epi64((const __m128i *)(s + n - 8)))));
            return;
        }
        for (; i < n; i++) d[i] = (float)s[i];
    }
    /* n moves' 54-byte card rows from their words (lo, hi: 16 bytes a move), with no loop
       over the cards: the 16 bytes in both 128-bit lanes, one shuffle brings to each column
       the byte that holds its kind's 2-bit count (sel), an AND keeps that count's two bits
       (m: 3 << 2j), and the count (1: 0b01 << 2j, 2: 0b10 << 2j; two decks hold no third
       copy) is min(y, 1) + min(y & 0xAA, 1). Columns 0..31 and 22..53 (overlapping), each
       with its own tables: the stores stay in the row. */
    __attribute__((target("avx2"), always_inline)) static inline void gf_cards_row_avx2_body(
            __m128i w, const unsigned char *tables, __m256i *y0, __m256i *y1) {
        const __m256i odd = _mm256_set1_epi8((char)0xAA), one = _mm256_set1_epi8(1);
        __m256i x = _mm256_broadcastsi128_si256(w);
        __m256i a = _mm256_and_si256(
            _mm256_shuffle_epi8(x, _mm256_loadu_si256((const __m256i *)tables)),
            _mm256_loadu_si256((const __m256i *)(tables + 64)));
        __m256i b = _mm256_and_si256(
            _mm256_shuffle_epi8(x, _mm256_loadu_si256((const __m256i *)(tables + 32))),
            _mm256_loadu_si256((const __m256i *)(tables + 96)));
        *y0 = _mm256_add_epi8(_mm256_min_epu8(a, one),
                              _mm256_min_epu8(_mm256_and_si256(a, odd), one));
        *y1 = _mm256_add_epi8(_mm256_min_epu8(b, one),
                              _mm256_min_epu8(_mm256_and_si256(b, odd), one));
    }
    __attribute__((target("avx2"))) static void gf_cards_rows_avx2(
            const unsigned long long *w, int n, unsigned char *out, const unsigned char *tables) {
        __m256i y0, y1;
        for (int k = 0; k < n; k++) {
            gf_cards_row_avx2_body(_mm_loadu_si128((const __m128i *)(w + 2 * k)), tables,
                                   &y0, &y1);
            _mm256_storeu_si256((__m256i *)(out + 54 * k), y0);
            _mm256_storeu_si256((__m256i *)(out + 54 * k + 22), y1);
        }
    }
    /* A move's row onto a Track's byte rows (54 bytes each): added to `add` rows, taken
       off `sub` rows, stored as `set` (NULL: none). Both halves of a row (bytes 0..31 and
       22..53) are loaded before either is stored, so the overlap gets old + move once. */
    __attribute__((target("avx2"), always_inline)) static inline void gf_row_add_avx2(
            unsigned char *r, __m256i y0, __m256i y1, int sub) {
        __m256i a = _mm256_loadu_si256((const __m256i *)r);
        __m256i b = _mm256_loadu_si256((const __m256i *)(r + 22));
        a = sub ? _mm256_sub_epi8(a, y0) : _mm256_add_epi8(a, y0);
        b = sub ? _mm256_sub_epi8(b, y1) : _mm256_add_epi8(b, y1);
        _mm256_storeu_si256((__m256i *)r, a);
        _mm256_storeu_si256((__m256i *)(r + 22), b);
    }
    __attribute__((target("avx2"))) static void gf_move_rows_avx2(
            const unsigned long long *w, const unsigned char *tables, unsigned char *add0,
            unsigned char *add1, unsigned char *set, unsigned char *const *sub, int n_sub) {
        __m256i y0, y1;
        gf_cards_row_avx2_body(_mm_loadu_si128((const __m128i *)w), tables, &y0, &y1);
        gf_row_add_avx2(add0, y0, y1, 0);
        gf_row_add_avx2(add1, y0, y1, 0);
        for (int i = 0; i < n_sub; i++) gf_row_add_avx2(sub[i], y0, y1, 1);
        if (set) {
            _mm256_storeu_si256((__m256i *)set, y0);
            _mm256_storeu_si256((__m256i *)(set + 22), y1);
        }
    }
    /* The default observation's rows: the hand, the four played rows, the trick's top (its
       words through the shuffle of gf_cards_row_avx2_body, widened from the registers: no
       loop over its cards, whose count differs from table to table), zeros after it. */
    __attribute__((target("avx2"))) static void gf_obs_rows_avx2(
            float *out, const signed char *hand, const signed char *played,
            unsigned long long top_lo, unsigned long long top_hi, const unsigned char *tables) {
        __m256i y0, y1;
        __m128i a, b;
        gf_f_of_i8_avx2_body(out, hand, 54);
        gf_f_of_i8_avx2_body(out + 54, played, 216);
        gf_cards_row_avx2_body(_mm_set_epi64x((long long)top_hi, (long long)top_lo), tables,
                               &y0, &y1);
        /* columns 0..23 from y0 (bytes 0..23), 22..53 from y1 (bytes 0..31: 22 + b) */
        a = _mm256_castsi256_si128(y0);
        b = _mm256_extracti128_si256(y0, 1);
        _mm256_storeu_ps(out + 274, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(a)));
        _mm256_storeu_ps(out + 282, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(a, 8))));
        _mm256_storeu_ps(out + 290, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b)));
        a = _mm256_castsi256_si128(y1);
        b = _mm256_extracti128_si256(y1, 1);
        _mm256_storeu_ps(out + 296, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(a)));
        _mm256_storeu_ps(out + 304, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(a, 8))));
        _mm256_storeu_ps(out + 312, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b)));
        _mm256_storeu_ps(out + 320, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(b, 8))));
        gf_zero_f_avx_body(out + 328, 208);
    }
    __attribute__((target("avx2"))) static void gf_dz_rows_avx2(
            float *out, const signed char *hand, const signed char *unseen,
            const signed char *last, const signed char *partner, const signed char *played) {
        gf_f_of_i8_avx2_body(out, hand, 54);
        gf_zero_f_avx_body(out + 54, 12);
        gf_f_of_i8_avx2_body(out + 66, unseen, 54);
        gf_f_of_i8_avx2_body(out + 120, last, 54);
        gf_f_of_i8_avx2_body(out + 174, partner, 54);
        gf_f_of_i8_avx2_body(out + 228, played, 162);
        gf_zero_f_avx_body(out + 390, 123);
    }
    static int gf_avx = 0, gf_avx2 = 0;
    static void gf_check_avx(void) {
        __builtin_cpu_init();
        gf_avx = __builtin_cpu_supports("avx") ? 1 : 0;
        gf_avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
    }
    #else
    static int gf_avx = 0, gf_avx2 = 0;
    static void gf_check_avx(void) {}
    static void gf_cards_rows_avx2(const unsigned long long *w, int n, unsigned char *out,
                                   const unsigned char *tables) {}
    static void gf_move_rows_avx2(const unsigned long long *w, const unsigned char *tables,
                                  unsigned char *add0, unsigned char *add1, unsigned char *set,
                                  unsigned char *const *sub, int n_sub) {}
    static void gf_obs_rows_avx2(float *out, const signed char *hand, const signed char *played,
                                 unsigned long long top_lo, unsigned long long top_hi,
                                 const unsigned char *tables) {}
    #endif
    static inline void gf_f_of_i8(float *d, const signed char *s, int n) {
        for (int i = 0; i < n; i++) d[i] = (float)s[i];   /* (vectorised by gcc: SSE2) */
    }
    static inline void gf_zero_f_long(float *d, int n) {
    #ifdef GF_AVX_PATH
        if (gf_avx) {
            if (__builtin_constant_p(n) && n == 944) { gf_zero_f_avx_944(d); return; }
            gf_zero_f_avx(d, n);
            return;
        }
    #endif
        gf_zero_f(d, n);
    }
    static inline void gf_obs_rows_plain(float *out, const unsigned char *hand,
                                         const unsigned char *played) {
        gf_f_of_i8(out, (const signed char *)hand, 54);
        gf_f_of_i8(out + 54, (const signed char *)played, 216);
        gf_zero_f(out + 274, 262);
    }
    static inline void gf_dz_rows(float *out, const unsigned char *hand,
                                  const unsigned char *unseen, const unsigned char *last,
                                  const unsigned char *partner, const unsigned char *played) {
    #ifdef GF_AVX_PATH
        if (gf_avx2) {
            gf_dz_rows_avx2(out, (const signed char *)hand, (const signed char *)unseen,
                            (const signed char *)last, (const signed char *)partner,
                            (const signed char *)played);
            return;
        }
    #endif
        gf_f_of_i8(out, (const signed char *)hand, 54);
        gf_zero_f(out + 54, 12);
        gf_f_of_i8(out + 66, (const signed char *)unseen, 54);
        gf_f_of_i8(out + 120, (const signed char *)last, 54);
        gf_f_of_i8(out + 174, (const signed char *)partner, 54);
        gf_f_of_i8(out + 228, (const signed char *)played, 162);
        gf_zero_f(out + 390, 123);
    }
    """
    void check_avx "gf_check_avx"() noexcept nogil
    int has_avx "gf_avx"
    void zero_f_long "gf_zero_f_long"(float* d, int n) noexcept nogil
    # out[0:54] = the hand row, out[54:270] = the four played rows, out[274:328] = the top's
    # cards (its words; tables: _ROW_TABLES[0]), out[328:536] = 0 (AVX2 only)
    void obs_rows_avx2 "gf_obs_rows_avx2"(float* out, const uint8_t* hand, const uint8_t* played,
                                          u64 top_lo, u64 top_hi,
                                          const uint8_t* tables) noexcept nogil
    # the same without the top: out[274:536] = 0
    void obs_rows_plain "gf_obs_rows_plain"(float* out, const uint8_t* hand,
                                            const uint8_t* played) noexcept nogil
    # DanZero's state: out[0:54] = hand, [54:66] = 0, [66:120] = unseen, [120:174] = last
    # move, [174:228] = the partner's, [228:390] = the three played rows, [390:513] = 0
    void dz_rows "gf_dz_rows"(float* out, const uint8_t* hand, const uint8_t* unseen,
                              const uint8_t* last, const uint8_t* partner,
                              const uint8_t* played) noexcept nogil
    void cards_rows_avx2 "gf_cards_rows_avx2"(const u64* w, int n, uint8_t* out,
                                              const uint8_t* tables) noexcept nogil
    # a move's row (words w, tables: _ROW_TABLES[dz]) added to rows add0 and add1, stored at
    # set (unless NULL), taken off the n_sub rows sub[i] (AVX2 only)
    void move_rows_avx2 "gf_move_rows_avx2"(const u64* w, const uint8_t* tables, uint8_t* add0,
                                            uint8_t* add1, uint8_t* set, uint8_t** sub,
                                            int n_sub) noexcept nogil
    int has_avx2 "gf_avx2"

check_avx()


# Every card twice (the unseen row is this less the hand and the plays).
cdef extern from *:
    """
    #define GF_FULL_LO 0x000AAAAAAAAAAAAAULL
    #define GF_FULL_HI 0x00AAAAAAAAAAAAAAULL
    """
    const u64 FULL_LO "GF_FULL_LO"
    const u64 FULL_HI "GF_FULL_HI"


cdef inline void set_cards_dz(u64 lo, u64 hi, float* out) noexcept nogil:
    """out[0:54] = the counts of the multiset in DanZero's order (overwrites; type bits
    ignored): four ranks at a time through _DZ_SPREAD, then 16-byte copies from _PLANE."""
    cdef u64 ws = lo & SUIT_MASK, wh = (lo >> SUIT_BITS) & SUIT_MASK
    cdef u64 wc = hi & SUIT_MASK, wd = (hi >> SUIT_BITS) & SUIT_MASK
    cdef unsigned int q
    cdef int i, j
    for i in range(4):
        q = (_DZ_SPREAD[0][(ws >> (8 * i)) & 255] | _DZ_SPREAD[1][(wh >> (8 * i)) & 255]
             | _DZ_SPREAD[2][(wc >> (8 * i)) & 255] | _DZ_SPREAD[3][(wd >> (8 * i)) & 255])
        for j in range(4 if i < 3 else 1):          # ranks 4i + j (the last group: the ace)
            memcpy(out + 16 * i + 4 * j, &_PLANE[(q >> (8 * j)) & 255][0], 4 * sizeof(float))
    out[KIND_SB] = <float>((hi >> SB_BIT) & 3)
    out[KIND_HR] = <float>((hi >> HR_BIT) & 3)


cdef inline u64 nonzero_pairs(u64 w) noexcept nogil:
    """Bit 2k of the result set when count k of w (bits 2k, 2k + 1) is not zero: the loops
    below visit one bit per kind held (ctz, then clear the lowest bit)."""
    return (w | (w >> 1)) & ODD_BITS


cdef inline void add_cards_dz(u64 lo, u64 hi, float* out) noexcept nogil:
    cdef int b
    cdef u64 x = nonzero_pairs(lo & LO_CARD_MASK)
    hi &= HI_CARD_MASK
    while x:
        b = __builtin_ctzll(x)
        out[_DZ_POS[b >> 1]] += <float>((lo >> b) & 3)
        x &= x - 1
    x = nonzero_pairs(hi)
    while x:
        b = __builtin_ctzll(x)
        out[_DZ_POS[LO_KINDS + (b >> 1)]] += <float>((hi >> b) & 3)
        x &= x - 1


# _ROW_TABLES[dz], for the AVX2 rows (gf_cards_row_avx2_body), kind order or DanZero's: at c
# (columns 0..31 at c, columns 22..53 at 32 + (column - 22)) the byte of a move's 16 (lo's 8,
# hi's 8) that holds the column's kind, at 64 + c that kind's two bits in it.
cdef uint8_t _ROW_TABLES[2][128]
for _dz in range(2):
    for _c in range(64):
        _col = _c if _c < 32 else _c - 32 + 22
        _k = [_x for _x in range(N_KINDS) if (dz_index(_x) if _dz else _x) == _col][0]
        _h, _kk = (0, _k) if _k < LO_KINDS else (1, _k - LO_KINDS)
        _ROW_TABLES[_dz][_c] = 8 * _h + (_kk >> 2)
        _ROW_TABLES[_dz][64 + _c] = 3 << (2 * (_kk & 3))


cdef inline void cards_u8_at(u64 lo, u64 hi, uint8_t* out, const int* pos) noexcept nogil:
    # Without AVX2: per card held, not per kind. ``pos``: the column of each kind (_KIND_POS
    # or _DZ_POS).
    cdef int b
    cdef u64 x = nonzero_pairs(lo & LO_CARD_MASK)
    hi &= HI_CARD_MASK
    memset(out, 0, N_KINDS)
    while x:
        b = __builtin_ctzll(x)
        out[pos[b >> 1]] = <uint8_t>((lo >> b) & 3)
        x &= x - 1
    x = nonzero_pairs(hi)
    pos += LO_KINDS
    while x:
        b = __builtin_ctzll(x)
        out[pos[b >> 1]] = <uint8_t>((hi >> b) & 3)
        x &= x - 1


# (here: after check_avx() and the tables)
_track_cards = track_cards_avx2 if has_avx2 else track_cards


cdef inline void card_row(u64 lo, u64 hi, uint8_t* out, int dz) noexcept nogil:
    # (a hand of ~27 cards: ~380 instructions and a mispredicted loop end by the loop, ~20
    # by the shuffle; the Track rebuilds a hand or unseen row at ~5 % of the decisions)
    cdef u64 w[2]
    if has_avx2:
        w[0] = lo
        w[1] = hi
        cards_rows_avx2(w, 1, out, _ROW_TABLES[dz])
    else:
        cards_u8_at(lo, hi, out, &_DZ_POS[0] if dz else &_KIND_POS[0])


cdef void cards_u8(u64 lo, u64 hi, uint8_t* out) noexcept nogil:
    card_row(lo, hi, out, 0)


cdef void cards_u8_danzero(u64 lo, u64 hi, uint8_t* out) noexcept nogil:
    card_row(lo, hi, out, 1)


# _U8_POS[dz][half][b]: the column (kind order, or DanZero's when dz) of the kind whose 2-bit
# count holds bit b of word `half` (0: lo, 1: hi) -- bits 2k and 2k + 1 both name kind k, so
# cards_u8_rows reads a kind's column straight from the bit it found, with no shift per card.
cdef uint8_t _U8_POS[2][2][64]
for _dz in range(2):
    for _h in range(2):
        for _b in range(64):
            _k = LO_KINDS * _h + (_b >> 1)
            _U8_POS[_dz][_h][_b] = (dz_index(_k) if _dz else _k) if _k < N_KINDS else 0


cdef void cards_u8_rows(const u64* words, int n, uint8_t* out, bint dz) noexcept nogil:
    # With AVX2 the shuffle (gf_cards_rows_avx2): 19 instructions a row whatever its cards
    # (in DanZero's candidates mode, 5.2 rows a decision: 185 -> 106 instructions and 4.9 ->
    # 1.0 mispredicted branches a decision; bench/RESULTS.md, encode7).
    if has_avx2:
        cards_rows_avx2(words, n, out, _ROW_TABLES[1 if dz else 0])
        return
    # Each row: cleared (4 stores), then one store per kind held. A kind's count is 1 (0b01) or
    # 2 (0b10) -- two decks hold no third copy -- so a word has exactly one set bit per kind
    # held: bit b is kind b >> 1 of the word, with count 1 + (b & 1). The loop visits those
    # bits and finds the column and the count in tables by b itself: 8 instructions a card
    # instead of 13 (issue 19: these rows cost ~50 instructions each, ~5 rows a decision in
    # DanZero's candidates mode).
    cdef int k, b
    cdef const uint8_t* plo = &_U8_POS[1 if dz else 0][0][0]
    cdef const uint8_t* phi = &_U8_POS[1 if dz else 0][1][0]
    cdef u64 x
    cdef uint8_t* row
    for k in range(n):
        row = out + N_KINDS * k
        memset(row, 0, N_KINDS)
        x = words[2 * k] & LO_CARD_MASK
        while x:
            b = __builtin_ctzll(x)
            row[plo[b]] = _U8_COUNT[b]
            x &= x - 1
        x = words[2 * k + 1] & HI_CARD_MASK
        while x:
            b = __builtin_ctzll(x)
            row[phi[b]] = _U8_COUNT[b]
            x &= x - 1


# ------------------------------------------------------------------------------------------
# The default observation and the information state
# ------------------------------------------------------------------------------------------

cdef inline const uint8_t* hand_row(const GameState* s, Track* t, int p) noexcept nogil:
    """Seat p's hand as a row in the Track's card order: the cached one, rebuilt from the
    words when its key does not match (a new hand, the exchange; see Track)."""
    cdef u64 lo = s.hand_lo[p] & LO_CARD_MASK, hi = s.hand_hi[p] & HI_CARD_MASK
    if t.hand_key[p][0] != lo or t.hand_key[p][1] != hi:
        if t.dz:
            cards_u8_danzero(lo, hi, t.hand_b[p])
        else:
            cards_u8(lo, hi, t.hand_b[p])
        t.hand_key[p][0] = lo
        t.hand_key[p][1] = hi
    return t.hand_b[p]


cdef inline const float* left_rows(const GameState* s, Track* t) noexcept nogil:
    """The Track's cards-left rows (play phase only: see Track), counted from the words at
    the hand's first play-phase decision."""
    cdef int q
    cdef float v
    if not t.left_ok:
        for q in range(4):
            v = <float>cards_left(s.hand_lo[q], s.hand_hi[q])
            t.left_f[q] = v
            t.left_f[q + 4] = v
        t.left_ok = 1
    return t.left_f


cdef inline void put_cards_f(u64 lo, u64 hi, float* out) noexcept nogil:
    """The counts of a move's cards (kind order) onto a zeroed row: one store per kind held
    (see _F_COUNT), where set_cards_f writes all 54 from words (~60 instructions)."""
    cdef unsigned int b            # unsigned: no sign extension per card
    lo &= LO_CARD_MASK
    hi &= HI_CARD_MASK
    while lo:
        b = __builtin_ctzll(lo)
        out[b >> 1] = _F_COUNT[b]
        lo &= lo - 1
    out += LO_KINDS
    while hi:
        b = __builtin_ctzll(hi)
        out[b >> 1] = _F_COUNT[b]
        hi &= hi - 1


cdef void encode_obs(const GameState* s, Track* t, int p, float* out) noexcept nogil:
    cdef int r, q, i, ty, team = p & 1
    cdef float on
    # The trick's top, with no branch on whether there is one (which differs from table to
    # table): on lead its words count as (0, 0), so no cards, type 0 (PASS: the lead's
    # one-hot), and the rank's and seat's one-hots are written 0.
    cdef u64 keep = <u64>0 - <u64>(s.top_seat >= 0)
    cdef u64 top_lo = s.top_lo & keep & LO_CARD_MASK, top_hi = s.top_hi & keep
    # hand, played, the top's cards and cards_left are written whole below; the rest is
    # zeros and one-hots
    if not t.dz and has_avx2:       # seats p .. p + 3 are rows p .. p + 3 of played_b
        obs_rows_avx2(out, hand_row(s, t, p), &t.played_b[p][0], top_lo, top_hi,
                      _ROW_TABLES[0])
    else:
        if t.dz:                    # a Track kept in DanZero's order: expand the words
            zero_f_long(out + O_TOP_CARDS, OBS_SIZE - O_TOP_CARDS)
            set_cards_f(s.hand_lo[p], s.hand_hi[p], out + O_HAND)
            for r in range(4):
                q = (p + r) & 3
                set_cards_f(t.played_lo[q], t.played_hi[q], out + O_PLAYED + 54 * r)
        else:
            obs_rows_plain(out, hand_row(s, t, p), &t.played_b[p][0])
        put_cards_f(top_lo, top_hi, out + O_TOP_CARDS)
    if s.phase == PH_PLAY:          # seats p .. p + 3 are left_f[p .. p + 3]
        memcpy(out + O_LEFT, left_rows(s, t) + p, 4 * sizeof(float))
    else:
        for r in range(4):
            out[O_LEFT + r] = <float>cards_left(s.hand_lo[(p + r) & 3], s.hand_hi[(p + r) & 3])
    ty = move_type(top_hi)
    out[O_TOP_TYPE + (ty if ty < 10 else 0)] = 1.0
    on = <float>(s.top_seat >= 0)
    out[O_TOP_RANK + move_rank(top_hi)] = on
    out[O_TOP_SEAT + ((s.top_seat - p) & 3)] = on
    out[O_PASSES] = <float>s.passes
    out[O_LEVEL + s.level - 2] = 1.0
    out[O_TEAM_LEVELS + s.levels[team] - 2] = 1.0
    out[O_TEAM_LEVELS + 13 + s.levels[team ^ 1] - 2] = 1.0
    out[O_DECLARER + (2 if s.declarer < 0 else 0 if s.declarer == team else 1)] = 1.0
    out[O_PHASE + s.phase] = 1.0
    if s.current >= 0:
        out[O_TO_ACT + ((s.current - p) & 3)] = 1.0
    for i in range(s.n_finished):
        out[O_FINISH + 4 * ((s.finish[i] - p) & 3) + i] = 1.0
    # The exchange as p saw it (docs/design.md: a card is known to its payer and receiver).
    for i in range(s.n_pay):
        if s.payer[i] == p:
            out[O_EXCH_ROLE] = 1.0
            if s.trib_kind[i] >= 0:
                out[O_EXCH_GIVEN + s.trib_kind[i]] += 1.0
            if s.back_kind[i] >= 0:
                out[O_EXCH_RECEIVED + s.back_kind[i]] += 1.0
        if s.receiver[i] == p:
            out[O_EXCH_ROLE + 1] = 1.0
            if s.trib_kind[i] >= 0:
                out[O_EXCH_RECEIVED + s.trib_kind[i]] += 1.0
            if s.back_kind[i] >= 0:
                out[O_EXCH_GIVEN + s.back_kind[i]] += 1.0
    out[O_EXCH_ROLE + 2] = <float>s.anti_tribute


cdef void encode_info(const GameState* s, Track* t, int p, float* out) noexcept nogil:
    cdef int i, j, n
    cdef float* tok
    encode_obs(s, t, p, out)
    zero_f_long(out + OBS_SIZE, HIST_LEN * HIST_TOKEN)
    n = t.n_moves if t.n_moves < HIST_LEN else HIST_LEN
    for i in range(n):
        j = (t.n_moves - 1 - i) % HIST_LEN
        tok = out + OBS_SIZE + HIST_TOKEN * i
        tok[(t.hist_seat[j] - p) & 3] = 1.0
        if t.hist_lo[j] == 0 and (t.hist_hi[j] & HI_CARD_MASK) == 0:
            tok[4] = 1.0
        else:
            set_cards_f(t.hist_lo[j], t.hist_hi[j], tok + 5)


# ------------------------------------------------------------------------------------------
# DanZero
# ------------------------------------------------------------------------------------------

cdef inline u64 held_ranks(u64 w) noexcept nogil:
    """The kinds held of a word's 26 counts (two suits of 13 ranks: bits 0..51) as 26 bits:
    the low suit's ranks at bits 0..12, the high suit's at 13..25. A nonzero count's 2-bit
    field becomes one bit, then every other bit is squeezed out (5 shift-and-mask steps)."""
    w = (w | (w >> 1)) & 0x0005555555555555ULL
    w = (w | (w >> 1)) & 0x3333333333333333ULL
    w = (w | (w >> 2)) & 0x0F0F0F0F0F0F0F0FULL
    w = (w | (w >> 4)) & 0x00FF00FF00FF00FFULL
    w = (w | (w >> 8)) & 0x0000FFFF0000FFFFULL
    return (w | (w >> 16)) & 0xFFFFFFFFULL


cdef void wild_flags(u64 lo, u64 hi, int level, float* res) noexcept nogil:
    """DanZero's 12 wild-card flags of a hand (its actor's ``proc_universal``), kept quirk
    for quirk: straight-flush windows are those starting at 2..9, rank "counts" are numbers
    of suits held, the run test looks only at the run that ends at A. Computed on rank
    bit sets (bit j: rank j) instead of rank loops: per suit, the ranks of its natural cards
    (the wild, the heart of the level rank, left out); from the four suits, the ranks held
    in at least 1, 2, 3, 4 suits. res must be zeros."""
    cdef int wild = N_RANKS + level - 2          # its kind (hearts are kinds 13..25)
    cdef u64 a, b, h0, h1, h2, h3, ge1, ge2, ge3, eq1, eq2, m, two, lanes
    cdef int n_wild = kind_count(lo, hi, wild), start, j
    if n_wild == 0:
        return
    res[0] = 1.0
    lo -= (<u64>n_wild) << (2 * wild)
    a = held_ranks(lo & LO_CARD_MASK)            # spades, hearts
    b = held_ranks(hi & 0x000FFFFFFFFFFFFFULL)   # clubs, diamonds (not the jokers)
    h0 = a & 0x1FFF
    h1 = a >> 13
    h2 = b & 0x1FFF
    h3 = b >> 13
    ge1 = h0 | h1 | h2 | h3
    ge2 = (h0 & h1) | (h2 & h3) | ((h0 | h1) & (h2 | h3))
    ge3 = (h0 & h1 & (h2 | h3)) | (h2 & h3 & (h0 | h1))
    eq1 = ge1 & ~ge2
    eq2 = ge2 & ~ge3
    # A straight-flush window (5 ranks from 2..9, i.e. starting at rank bit 0..7) missing
    # at most one card of its suit: the four suits in 16-bit lanes, and a window fails when
    # two of its five places are missing (bits 12..15 of a lane are never looked at).
    lanes = h0 | (h1 << 16) | (h2 << 32) | (h3 << 48)
    m = ~lanes
    two = ((m & ((m >> 1) | (m >> 2) | (m >> 3) | (m >> 4)))
           | ((m >> 1) & ((m >> 2) | (m >> 3) | (m >> 4)))
           | ((m >> 2) & ((m >> 3) | (m >> 4)))
           | ((m >> 3) & (m >> 4)))
    if ~two & 0x00FF00FF00FF00FFULL:
        res[1] = 1.0
    # most suits held of one rank (at most 4): 4 -> flags 4..7, 3 -> 5..7, 2 -> 6..7, else 7
    if h0 & h1 & h2 & h3:
        start = 4
    elif ge3:
        start = 5
    elif ge2:
        start = 6
    else:
        start = 7
    for j in range(start, 8):
        res[j] = 1.0
    if ((ge1 >> 9) & 15) == 15:                  # the run that ends at A: 4 ranks or more
        res[8] = 1.0
    if (eq2 & (ge3 << 1)) | (ge3 & (eq2 << 1)):  # a pair next to a triple (either side)
        res[9] = 1.0
    if ((eq1 << 2) & (ge2 << 1) & ge2) | ((ge2 << 2) & (eq1 << 1) & ge2) \
            | ((ge2 << 2) & (ge2 << 1) & eq1):    # three ranks: one single, two pairs+
        res[10] = 1.0
    if eq2 & (eq2 << 1):                         # two pairs side by side
        res[11] = 1.0


cdef inline void fill(float* out, int n, float v) noexcept nogil:
    cdef int i
    for i in range(n):
        out[i] = v


# DanZero's "no move" row: -1s (the rows are widened as signed bytes).
cdef uint8_t _NO_MOVE_B[54]
memset(_NO_MOVE_B, 255, 54)


cdef void encode_danzero(const GameState* s, Track* t, int p, float* out) noexcept nogil:
    cdef int i, q, r, team = p & 1, partner = p ^ 2
    cdef bint out_partner = False, partner_last
    cdef const float* left = left_rows(s, t) + p if s.phase == PH_PLAY else NULL
    cdef u64 un_lo = FULL_LO - s.hand_lo[p], un_hi = FULL_HI - (s.hand_hi[p] & HI_CARD_MASK)
    cdef const uint8_t* last
    cdef const uint8_t* last_partner
    # (hist_seat's index masked: for n_moves = 0 it names a row of the Track, not used then)
    cdef int j = (t.n_moves - 1) & (HIST_LEN - 1)
    for i in range(s.n_finished):
        if s.finish[i] == partner:
            out_partner = True
    partner_last = t.has_last[partner] and not out_partner
    if t.dz:
        # Unseen: two of each card, less p's hand and every card played this hand (counts
        # never exceed 2, so word arithmetic has no carries); the Track's cached row (see
        # Track), checked against its key.
        un_lo -= t.played_all_lo
        un_hi -= t.played_all_hi
        if t.unseen_key[p][0] != un_lo or t.unseen_key[p][1] != un_hi:
            cards_u8_danzero(un_lo, un_hi, t.unseen_b[p])
            t.unseen_key[p][0] = un_lo
            t.unseen_key[p][1] = un_hi
        # The last move of the hand (its seat's last one) and the partner's; "no move" is a
        # row of -1. Pointers chosen without a branch, every row widened by one call.
        last = &t.last_b[t.hist_seat[j]][0] if t.n_moves > 0 else &_NO_MOVE_B[0]
        last_partner = &t.last_b[partner][0] if partner_last else &_NO_MOVE_B[0]
        dz_rows(out, hand_row(s, t, p), t.unseen_b[p], last, last_partner,
                &t.played_b[p + 1][0])
    else:                           # a Track kept in kind order: expand the words
        set_cards_dz(s.hand_lo[p], s.hand_hi[p], out)
        memset(out + 54, 0, 12 * sizeof(float))
        for q in range(4):
            un_lo -= t.played_lo[q]
            un_hi -= t.played_hi[q]
        set_cards_dz(un_lo, un_hi, out + 66)
        if t.n_moves > 0:
            set_cards_dz(t.hist_lo[j], t.hist_hi[j], out + 120)
        else:
            fill(out + 120, 54, -1.0)
        if partner_last:
            set_cards_dz(t.last_lo[partner], t.last_hi[partner], out + 174)
        else:
            fill(out + 174, 54, -1.0)
        for r in range(1, 4):
            q = (p + r) & 3
            set_cards_dz(t.played_lo[q], t.played_hi[q], out + 228 + 54 * (r - 1))
        zero_f_long(out + 390, DZ_STATE_SIZE - 390)
    wild_flags(s.hand_lo[p], s.hand_hi[p], s.level, out + 54)
    for r in range(1, 4):
        q = (p + r) & 3
        # A receiver holds 28 cards between tribute and return: DanZero's 28 slots cap at 27.
        i = <int>left[r] if left != NULL else cards_left(s.hand_lo[q], s.hand_hi[q])
        out[390 + 28 * (r - 1) + (i if i < 27 else 27)] = 1.0
    out[474 + s.levels[team] - 2] = 1.0
    out[487 + s.levels[team ^ 1] - 2] = 1.0
    out[500 + s.level - 2] = 1.0


# ------------------------------------------------------------------------------------------
# Python API (Game objects)
# ------------------------------------------------------------------------------------------

cdef enum:
    MAX_HAND_PLAYS = 8192

cdef u64 _plays[3 * MAX_HAND_PLAYS]


cdef int _track_of(object game, Track* t, int dz) except -1:
    """The Track of the game's current hand, its played rows in DanZero's order if dz."""
    cdef int n = game_hand_plays(game, _plays, MAX_HAND_PLAYS)
    cdef int i
    if n >= MAX_HAND_PLAYS:
        raise RuntimeError("hand history too long to encode")  # beyond any real hand
    track_init(t, dz)
    for i in range(n):
        track_play(t, <int>_plays[3 * i], _plays[3 * i + 1], _plays[3 * i + 2])
    return 0


cdef int _seat(object game, object p) except -1:
    cdef GameState* s = game_state_ptr(game)
    if p is None:
        if s.current < 0:
            raise ValueError("p is required when the match is over (no seat to act)")
        return s.current
    return _validate.check_seat(p, "p")


cdef object _out(object out, int size):
    if out is None:
        return np.empty(size, dtype=np.float32)
    if (not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != (size,)
            or not out.flags.c_contiguous or not out.flags.writeable):
        raise ValueError(f"out must be a writeable C-contiguous float32 array of shape "
                         f"({size},), got {getattr(out, 'dtype', type(out).__name__)} "
                         f"{getattr(out, 'shape', '')}")
    return out


def observation_tensor(game, p=None, out=None):
    """Seat ``p``'s observation of a ``Game`` (default: the seat to act) as
    ``float32[OBS_SIZE]``, layout ``OBS_LAYOUT``."""
    cdef Track t
    cdef int seat = _seat(game, p)
    arr = _out(out, OBS_SIZE)
    cdef float[::1] v = arr
    _track_of(game, &t, 0)
    encode_obs(game_state_ptr(game), &t, seat, &v[0])
    return arr


def information_state_tensor(game, p=None, out=None):
    """The observation plus the hand's last ``HIST_LEN`` moves: ``float32[INFO_SIZE]``."""
    cdef Track t
    cdef int seat = _seat(game, p)
    arr = _out(out, INFO_SIZE)
    cdef float[::1] v = arr
    _track_of(game, &t, 0)
    encode_info(game_state_ptr(game), &t, seat, &v[0])
    return arr


def danzero_state(game, p=None, out=None):
    """DanZero's 513-float state of seat ``p`` (docs/learning.md, ``DZ_LAYOUT``).

    >>> import guandan_fast as gf
    >>> x = danzero_state(gf.Game(seed=0), 0)
    >>> float(x[120]), int(x[slice(*span('level_current', DZ_LAYOUT))].argmax())
    (-1.0, 0)
    """
    cdef Track t
    cdef int seat = _seat(game, p)
    arr = _out(out, DZ_STATE_SIZE)
    cdef float[::1] v = arr
    _track_of(game, &t, 1)
    encode_danzero(game_state_ptr(game), &t, seat, &v[0])
    return arr


def danzero_actions(words):
    """DanZero's 54-float action rows of moves given as ``uint64[n, 2]`` words (e.g.
    ``Game.legal_moves_array()``): card counts in DanZero's order, zeros for PASS. Words
    that hold no card multiset (a count of 3, bits beyond lo's 26 kinds) are refused.

    >>> import guandan_fast as gf
    >>> danzero_actions(gf.Game(seed=0).legal_moves_array()).shape[1]
    54
    >>> danzero_actions([[3, 0]])
    Traceback (most recent call last):
    ...
    ValueError: words[0] = (0x3, 0x0) hold no card multiset (a count of 3, or bits beyond lo's 26 kinds)
    """
    arr = _validate.check_words_array(words)
    cdef const u64[:, ::1] w = arr
    out = np.zeros((arr.shape[0], DZ_ACTION_SIZE), dtype=np.float32)
    cdef float[:, ::1] o = out
    cdef Py_ssize_t i, bad = -1
    cdef u64 lo, hi
    with nogil:
        for i in range(w.shape[0]):
            lo = w[i, 0]
            hi = w[i, 1] & HI_CARD_MASK
            if (lo & ~LO_CARD_MASK) or (lo & (lo >> 1) & ODD_BITS) or (hi & (hi >> 1) & ODD_BITS):
                bad = i
                break
            add_cards_dz(lo, hi, &o[i, 0])
    if bad >= 0:
        raise ValueError(f"words[{bad}] = ({arr[bad, 0]:#x}, {arr[bad, 1]:#x}) hold no card "
                         f"multiset (a count of 3, or bits beyond lo's 26 kinds)")
    return out


def danzero_index(code):
    """DanZero's index of a card code (``'H2'`` -> 0, ``'S2'`` -> 1, ``'HR'`` -> 53)."""
    from .cards import KIND_OF
    if code not in KIND_OF:
        raise ValueError(f"unknown card code {code!r}")
    return dz_index(KIND_OF[code])


def use_simd(enabled):
    """Whether the encoders and the Track use AVX / AVX2 where the CPU has them (the
    default); ``False`` takes the plain C paths, which write the same rows (the tests compare
    the two). Returns the previous setting. Not while another thread steps a ``VecEnv``.

    >>> import guandan_fast as gf
    >>> g = gf.Game(seed=0)
    >>> x = danzero_state(g, 0); was = use_simd(False)
    >>> bool((danzero_state(g, 0) == x).all()); _ = use_simd(was)
    True
    """
    global _track_cards, has_avx, has_avx2
    _validate.check_bool(enabled, "enabled")
    cdef bint was = has_avx2 != 0 or has_avx != 0
    if enabled:
        check_avx()
    else:
        has_avx = 0
        has_avx2 = 0
    _track_cards = track_cards_avx2 if has_avx2 else track_cards
    return was


def time_encode(game, p, encoder, reps):
    """Seconds per call of a compiled encoder (``'default'``, ``'info'``, ``'danzero'``) on
    a ``Game``'s state for seat ``p``, called ``reps`` times from a C loop (benchmarks)."""
    import time
    cdef Track t
    cdef int seat = _seat(game, p)
    cdef GameState* s = game_state_ptr(game)
    cdef long i
    cdef int enc
    cdef long n_reps = _validate.check_count(reps, "reps", 1)
    if encoder not in ("default", "info", "danzero"):
        raise ValueError(f"encoder must be 'default', 'info' or 'danzero', got {encoder!r}")
    enc = ("default", "info", "danzero").index(encoder)
    buf = np.empty(INFO_SIZE, dtype=np.float32)
    cdef float[::1] v = buf
    _track_of(game, &t, enc == 2)
    t0 = time.perf_counter()
    with nogil:
        for i in range(n_reps):
            if enc == 0:
                encode_obs(s, &t, seat, &v[0])
            elif enc == 1:
                encode_info(s, &t, seat, &v[0])
            else:
                encode_danzero(s, &t, seat, &v[0])
    return (time.perf_counter() - t0) / n_reps

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The hand lines of game records, written in compiled code without the GIL.

``records.log_to_lines`` (Python) is the definition of a record's lines (docs/records.md); this
module writes the same hand lines byte for byte, from a match's start and its action log, so
that ``simulate`` can write records on every thread: the log is replayed in a ``GameState``,
each move checked as ``Game.play_log`` checks it (the game core's own functions), and each
hand's line appended to a growable buffer. The texts it pastes together (card names, move
types and rank labels, ``json.dumps`` spacing) are taken at import from their one definition
(``cards.CARD_CODES``, the codec's ``move_of``, ``Move.to_platform``, ``json.dumps``), not
re-typed.

>>> from guandan_fast.game import Game
>>> from guandan_fast.records import log_to_lines
>>> g = Game(seed=3)
>>> for _ in range(40):
...     g.play_index(0)
>>> text = hand_lines(Game(seed=3), g.action_log())
>>> text.decode().splitlines() == log_to_lines(Game, 3, g.rules, None, g.action_log())[1:]
True
>>> hand_lines(Game(seed=3), g.action_log()[1:].copy())
Traceback (most recent call last):
...
guandan_fast.moves.IllegalMoveError: log row 0: seat 2 moves out of turn (seat 1 is to move)
"""
from libc.stdlib cimport realloc, free
from libc.string cimport memcpy, strlen
from cpython.bytes cimport PyBytes_FromStringAndSize

from guandan_fast.types cimport (u64, N_KINDS, KIND_SB, KIND_HR, LO_KINDS, LO_CARD_MASK,
                                 HI_CARD_MASK, RANK_JOKER, __builtin_ctzll,
                                 T_PASS, T_TRIBUTE, T_BACK, kind_count,
                                 kind_words, move_tag, move_type, move_rank)
from guandan_fast.codec cimport move_of
from guandan_fast.game_core cimport (GameState, PH_TRIBUTE, PH_BACK, PH_PLAY, PH_OVER,
                                     STEP_CONTINUE, game_is_legal, game_apply)
from guandan_fast.game cimport game_state_ptr

__all__ = ["hand_lines"]

cdef enum:
    TEXT_MAX = 48            # longest pasted text: a move's '["StraightFlush", "A", '
    N_TYPE_CODES = 16        # the 4-bit type field
    N_LABELS = 17            # rank codes 0..15; RANK_JOKER + 1: a joker move led by HR
    EXCHANGE_MAX = 256       # '"anti_tribute": false, "tribute": [...], "back": [...], '
    # Room made before writing (a hand line without its moves: the deal, 108 cards of 6
    # bytes, the exchange and the fields; one move: [seat, [type, label, 10 cards]], ").
    LINE_FIXED_MAX = 4096
    MOVE_TEXT_MAX = 160

# JSON texts by card kind, kinds in the order the codec lists cards (codes_of), and each
# move's text before its card list, by (type, rank code); filled once at import.
cdef char CARD_TEXT[N_KINDS][8]
cdef int CARD_LEN[N_KINDS]
cdef int DISPLAY[N_KINDS]
cdef int DISPLAY_PLACE[N_KINDS]          # DISPLAY's inverse: a kind's place in that order
cdef char PREFIX[N_TYPE_CODES][N_LABELS][TEXT_MAX]
cdef int PREFIX_LEN[N_TYPE_CODES][N_LABELS]
cdef char PASS_TEXT[TEXT_MAX]
cdef int PASS_LEN


cdef void _set_text(char* dst, int* length, str text) except *:
    cdef bytes b = text.encode("ascii")
    if len(b) >= TEXT_MAX:
        raise ValueError(f"record text {text!r} is longer than {TEXT_MAX - 1} bytes")
    memcpy(dst, <const char*>b, len(b))
    length[0] = len(b)


cdef int _fill_tables() except -1:
    import json

    from .cards import CARD_CODES, KIND_OF
    from .codec import decode, encode

    cdef int k, t, rc
    cdef u64 lo, hi
    for k in range(N_KINDS):
        _set_text(CARD_TEXT[k], &CARD_LEN[k], json.dumps(CARD_CODES[k]))
    # One card of every kind, listed by the codec: its canonical order.
    order = [KIND_OF[code] for code in decode(*encode(CARD_CODES))]
    if sorted(order) != list(range(N_KINDS)):
        raise ValueError("the codec's card order does not list every kind once")
    for k in range(N_KINDS):
        DISPLAY[k] = order[k]
        DISPLAY_PLACE[order[k]] = k
    if DISPLAY[N_KINDS - 1] != KIND_HR or DISPLAY[N_KINDS - 2] != KIND_SB:
        raise ValueError("the codec no longer lists the jokers last (SB, HR): put_move's "
                         "joker labels assume it")
    _set_text(PASS_TEXT, &PASS_LEN, json.dumps(move_of(0, 0).to_platform()))
    for t in range(N_TYPE_CODES):
        for rc in range(N_LABELS):
            PREFIX_LEN[t][rc] = 0
    # A move's platform form, [type, label, [cards]], with its card list cut off, from the
    # codec's Move of the words (move_of: Move.from_words in compiled code, which reads no
    # more than the type, the rank code and, for a joker single or pair, the first card).
    for t in range(1, T_BACK + 1):
        for rc in range(N_LABELS):
            if t >= T_TRIBUTE and rc != 0 or t < T_TRIBUTE and rc == 0:
                continue      # no such move: never in a legal log
            kind_words(KIND_HR if rc == RANK_JOKER + 1 else
                       (KIND_SB if rc == RANK_JOKER else 0), &lo, &hi)
            m = move_of(lo, hi | move_tag(t, min(rc, RANK_JOKER)))
            full = json.dumps(m.to_platform())
            tail = json.dumps(list(m.cards)) + "]"
            if not full.endswith(tail):
                raise ValueError(f"unexpected platform form {full!r}")
            _set_text(PREFIX[t][rc], &PREFIX_LEN[t][rc], full[:-len(tail)])
    return 0


_fill_tables()


# -- the buffer --------------------------------------------------------------------------------

cdef int linebuf_reserve(LineBuf* b, size_t extra) noexcept nogil:
    cdef size_t cap
    cdef char* data
    if b.n + extra <= b.cap:
        return 0
    cap = b.cap * 2 if b.cap else 1 << 16
    while cap < b.n + extra:
        cap *= 2
    data = <char*>realloc(b.data, cap)
    if data == NULL:
        return -1
    b.data = data
    b.cap = cap
    return 0


cdef int linebuf_append(LineBuf* b, const char* text, size_t n) noexcept nogil:
    if linebuf_reserve(b, n) < 0:
        return -1
    memcpy(b.data + b.n, text, n)
    b.n += n
    return 0


cdef void linebuf_free(LineBuf* b) noexcept nogil:
    free(b.data)
    b.data = NULL
    b.n = 0
    b.cap = 0


# -- JSON pieces: each writes at p (room made by the caller) and returns the end ----------------

cdef inline char* put(char* p, const char* text, size_t n) noexcept nogil:
    memcpy(p, text, n)
    return p + n


cdef inline char* put_lit(char* p, const char* text) noexcept nogil:
    return put(p, text, strlen(text))      # (a literal's length is folded by the compiler)


cdef inline char* put_int(char* p, long long v) noexcept nogil:
    # json.dumps of an int: its decimal digits.
    cdef char tmp[24]
    cdef int k = 0
    cdef unsigned long long u
    if v < 0:
        p[0] = b'-'
        p += 1
        u = <unsigned long long>(-(v + 1)) + 1
    else:
        u = <unsigned long long>v
    while True:
        tmp[k] = <char>(48 + u % 10)
        k += 1
        u //= 10
        if u == 0:
            break
    while k > 0:
        k -= 1
        p[0] = tmp[k]
        p += 1
    return p


cdef inline char* put_int_or_null(char* p, int v) noexcept nogil:
    # The game's -1 ("none") is Python's None: null.
    if v < 0:
        return put_lit(p, "null")
    return put_int(p, v)


cdef inline char* put_card(char* p, int k) noexcept nogil:
    if k < 0:
        return put_lit(p, "null")
    return put(p, CARD_TEXT[k], CARD_LEN[k])


cdef inline int add_kinds(int* keys, int n, u64 w, int base) noexcept nogil:
    # Insert each kind of the word (kinds base, base+1, ...) into keys[0 .. n-1], kept sorted
    # by place in the codec's order (key: place * 4 + count); returns the new n.
    cdef int b, k, key, i
    while w:
        b = __builtin_ctzll(w) & ~1
        k = base + (b >> 1)
        key = DISPLAY_PLACE[k] * 4 + <int>((w >> b) & 3)
        w &= ~((<u64>3) << b)
        i = n
        while i > 0 and keys[i - 1] > key:
            keys[i] = keys[i - 1]
            i -= 1
        keys[i] = key
        n += 1
    return n


cdef char* put_cards(char* p, u64 lo, u64 hi) noexcept nogil:
    # json.dumps(list(codes_of(lo, hi))): the cards in the codec's order (only the kinds
    # held are visited: a move has a few).
    cdef int keys[N_KINDS]
    cdef int n, j, k, c
    cdef bint first = True
    n = add_kinds(keys, 0, lo & LO_CARD_MASK, 0)
    n = add_kinds(keys, n, hi & HI_CARD_MASK, LO_KINDS)
    p[0] = b'['
    p += 1
    for j in range(n):
        k = DISPLAY[keys[j] >> 2]
        c = keys[j] & 3
        while c > 0:
            if not first:
                p = put_lit(p, ", ")
            first = False
            p = put(p, CARD_TEXT[k], CARD_LEN[k])
            c -= 1
    p[0] = b']'
    return p + 1


cdef char* put_move(char* p, u64 seat, u64 lo, u64 hi) noexcept nogil:
    # json.dumps([seat, move.to_platform()])
    cdef int t = move_type(hi), rc = move_rank(hi), j
    p[0] = b'['
    p = put_int(p + 1, <long long>seat)
    p = put_lit(p, ", ")
    if t == T_PASS:
        p = put(p, PASS_TEXT, PASS_LEN)
    else:
        if rc == RANK_JOKER and kind_count(lo, hi, KIND_SB) == 0:
            rc = RANK_JOKER + 1          # the label follows the first card: HR (no SB)
        p = put(p, PREFIX[t][rc], PREFIX_LEN[t][rc])
        p = put_cards(p, lo, hi)
        p[0] = b']'
        p += 1
    p[0] = b']'
    return p + 1


cdef int put_exchange(char* start, const GameState* s) noexcept nogil:
    """The exchange fields as ``records`` takes them from ``Game.observation(0)`` (what seat
    0 sees); returns their length."""
    cdef char* p = start
    cdef int i, j, k, n, receiver
    cdef bint returned = s.n_pay > 0 and (s.phase == PH_PLAY or s.phase == PH_OVER)
    cdef bint seen
    p = put_lit(p, '"anti_tribute": ')
    p = put_lit(p, "true" if s.anti_tribute else "false")
    p = put_lit(p, ', "tribute": [')
    n = s.step if s.phase == PH_TRIBUTE and not s.choosing else s.n_pay
    for i in range(n):
        if i:
            p = put_lit(p, ", ")
        receiver = s.receiver[i]
        seen = returned or s.payer[i] == 0 or receiver == 0
        p[0] = b'['
        p = put_int(p + 1, s.payer[i])
        p = put_lit(p, ", ")
        p = put_int_or_null(p, receiver)
        p = put_lit(p, ", ")
        p = put_card(p, s.trib_kind[i] if seen else -1)
        p[0] = b']'
        p += 1
    p = put_lit(p, '], "back": [')
    if s.phase == PH_BACK or returned:
        n = s.step if s.phase == PH_BACK else s.n_pay
        for j in range(n):
            if s.n_pay == 1:
                i = j
            else:
                i = 0 if (s.receiver[0] == s.tribute_first) == (j == 0) else 1
            if j:
                p = put_lit(p, ", ")
            seen = returned or s.receiver[i] == 0 or s.payer[i] == 0
            p[0] = b'['
            p = put_int(p + 1, s.receiver[i])
            p = put_lit(p, ", ")
            p = put_int(p, s.payer[i])
            p = put_lit(p, ", ")
            p = put_card(p, s.back_kind[i] if seen else -1)
            p[0] = b']'
            p += 1
    p = put_lit(p, "], ")
    return <int>(p - start)


cdef inline bint refused(const GameState* s, const u64* row) noexcept nogil:
    # Game.play_log's checks: the match goes on, the row's seat is to move, the move is legal.
    return (s.phase == PH_OVER or row[0] != <u64>s.current
            or not game_is_legal(s, row[1], row[2]))


# -- the lines ---------------------------------------------------------------------------------

cdef inline int append_move(LineBuf* out, const u64* row, bint comma) noexcept nogil:
    """A log row's move text at the end of ``out`` (after ", " when ``comma``); -1 when
    there is no memory for it."""
    cdef char* p
    if linebuf_reserve(out, MOVE_TEXT_MAX) < 0:
        return -1
    p = out.data + out.n
    if comma:
        p = put_lit(p, ", ")
    out.n = put_move(p, row[0], row[1], row[2]) - out.data
    return 0


cdef int write_hand_lines(const GameState* start, const u64* rows, long long n, LineBuf* out,
                          long long* bad_row) noexcept nogil:
    cdef GameState s = start[0]
    cdef size_t entry = out.n
    cdef long long i = 0, j, first
    cdef int hand = 0, q, r, m
    cdef bint ended
    cdef char exchange[EXCHANGE_MAX]
    cdef int exchange_len
    cdef char* p
    while True:
        # What the hand starts from: the line's first fields and the deal.
        if linebuf_reserve(out, LINE_FIXED_MAX) < 0:
            out.n = entry
            return LINES_NO_MEMORY
        p = out.data + out.n
        p = put_lit(p, '{"hand": ')
        p = put_int(p, hand)
        p = put_lit(p, ', "level": ')
        p = put_int(p, s.level)
        p = put_lit(p, ', "declarer": ')
        p = put_int_or_null(p, s.declarer)
        p = put_lit(p, ', "levels_before": [')
        p = put_int(p, s.levels[0])
        p = put_lit(p, ", ")
        p = put_int(p, s.levels[1])
        p = put_lit(p, '], "deal": [')
        for q in range(4):
            if q:
                p = put_lit(p, ", ")
            p = put_cards(p, s.hand_lo[q], s.hand_hi[q])
        p = put_lit(p, "], ")
        # The exchange: its moves first (the line gives the exchange before the moves), as
        # seen once it is complete (or as the hand began, if the log ends before).
        exchange_len = put_exchange(exchange, &s)
        first = i
        while (s.phase == PH_TRIBUTE or s.phase == PH_BACK) and i < n:
            if refused(&s, rows + 3 * i):
                bad_row[0] = i
                out.n = entry
                return LINES_BAD_ROW
            game_apply(&s, rows[3 * i + 1], rows[3 * i + 2])
            i += 1
            if s.phase == PH_PLAY:
                exchange_len = put_exchange(exchange, &s)
        p = put(p, exchange, exchange_len)
        p = put_lit(p, '"moves": [')
        out.n = p - out.data
        for j in range(first, i):
            if append_move(out, rows + 3 * j, j > first) < 0:
                out.n = entry
                return LINES_NO_MEMORY
        # The play, to the end of the hand or of the log.
        ended = False
        while i < n:
            if refused(&s, rows + 3 * i):
                bad_row[0] = i
                out.n = entry
                return LINES_BAD_ROW
            if append_move(out, rows + 3 * i, i > first) < 0:
                out.n = entry
                return LINES_NO_MEMORY
            r = game_apply(&s, rows[3 * i + 1], rows[3 * i + 2])
            i += 1
            if r != STEP_CONTINUE:
                ended = True
                break
        if linebuf_reserve(out, LINE_FIXED_MAX) < 0:
            out.n = entry
            return LINES_NO_MEMORY
        p = out.data + out.n
        p = put_lit(p, '], "finish_order": ')
        if ended:            # Game.results' entry of the hand: s.last_* and the new levels
            m = 2 if s.last_n_finished == 2 else 4
            p[0] = b'['
            p += 1
            for q in range(m):
                if q:
                    p = put_lit(p, ", ")
                p = put_int(p, s.last_finish[q])
            p = put_lit(p, '], "levels_after": [')
            p = put_int(p, s.levels[0])
            p = put_lit(p, ", ")
            p = put_int(p, s.levels[1])
            p = put_lit(p, "]}\n")
        else:
            p = put_lit(p, 'null, "levels_after": null}\n')
        out.n = p - out.data
        if s.hand_number == hand:   # the match is over, or the log ends in this hand
            break
        hand += 1                   # (a line for the next hand, even with no moves yet)
    if i < n:
        bad_row[0] = i              # the match is over
        out.n = entry
        return LINES_BAD_ROW
    return LINES_OK


def hand_lines(game, log):
    """The hand lines (UTF-8 JSON, each ending in a newline) of the record of the match that
    starts as ``game`` stands (a ``Game``, not changed) and goes on through ``log`` (an
    ``(n, 3)`` uint64 array of ``(seat, lo, hi)`` rows, ``Game.action_log()``): the lines of
    ``records.log_to_lines`` after its header, written without the GIL. A row that
    ``Game.play_log`` refuses raises its error (``log row i: ...``).

    >>> from guandan_fast.game import Game
    >>> hand_lines(Game(seed=1), Game(seed=1).action_log())[:40]
    b'{"hand": 0, "level": 2, "declarer": null'
    """
    cdef GameState s = game_state_ptr(game)[0]
    cdef const u64[:, ::1] rows
    cdef LineBuf out
    cdef long long bad = -1, n
    cdef int r
    try:
        rows = log
    except (TypeError, ValueError, BufferError):
        game.play_log(log, 0, 0)       # raises play_log's error for what the log is
        raise
    if rows.shape[1] != 3:
        game.play_log(log, 0, 0)
        raise ValueError(f"log rows are (seat, lo, hi): 3 columns, not {rows.shape[1]}")
    n = rows.shape[0]
    out.data = NULL
    out.n = 0
    out.cap = 0
    try:
        with nogil:
            r = write_hand_lines(&s, &rows[0, 0] if n else NULL, n, &out, &bad)
        if r == LINES_NO_MEMORY:
            raise MemoryError("no memory for the record's lines")
        if r == LINES_BAD_ROW:
            game.clone().play_log(log)     # raises the error of the row, as play_log words it
            raise ValueError(f"log row {bad}: refused")
        return PyBytes_FromStringAndSize(out.data, out.n)
    finally:
        linebuf_free(&out)

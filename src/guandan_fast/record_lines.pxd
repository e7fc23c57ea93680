# The hand lines of a game record written in compiled code (implemented in record_lines.pyx):
# a match's action log replayed in a GameState, every move checked as Game.play_log checks it,
# and each hand's JSON line appended to a caller-owned byte buffer, byte for byte what
# records.log_to_lines writes (docs/records.md). nogil, so simulate's threads write records.
from guandan_fast.types cimport u64
from guandan_fast.game_core cimport GameState

cdef enum:
    # Return codes of write_hand_lines
    LINES_OK = 0
    LINES_NO_MEMORY = -1    # the buffer could not grow (its text so far is intact)
    LINES_BAD_ROW = -2      # *bad_row is the first row play_log would refuse

cdef struct LineBuf:
    # A growable byte buffer: data[0 .. n-1] written, cap allocated (data NULL when cap 0).
    char* data
    size_t n
    size_t cap

# Make room for `extra` more bytes (realloc, doubling). 0, or -1 when memory ran out.
cdef int linebuf_reserve(LineBuf* b, size_t extra) noexcept nogil
# Append `n` bytes (growing the buffer). 0 or -1.
cdef int linebuf_append(LineBuf* b, const char* text, size_t n) noexcept nogil
# Free the buffer's memory (it stays usable, empty).
cdef void linebuf_free(LineBuf* b) noexcept nogil

# Append the hand lines (each ending in '\n') of the match that starts in *start and goes on
# through rows[0 .. 3n-1] ((seat, lo, hi) per action, Game.action_log's form). On
# LINES_BAD_ROW or LINES_NO_MEMORY the buffer is cut back to its length on entry.
cdef int write_hand_lines(const GameState* start, const u64* rows, long long n, LineBuf* out,
                          long long* bad_row) noexcept nogil

# The Python API of move generation (movegen.pyx) as other compiled modules see it: the list
# class of one generate() call, which game.pyx makes with new_move_list, and the Hand, whose
# cached inputs bench_hooks.pyx reads. The generator itself is movegen_core.pxd.
from guandan_fast.types cimport u64
from guandan_fast.movegen_core cimport RulesC

cdef enum:
    # Moves a call from Python generates into a buffer on its own C stack (32 KB) before it
    # needs the heap (then one exactly-sized buffer, freed on return). No generation buffer is
    # shared between calls or kept in an object, so threads never share one: safe without the
    # GIL too (free-threaded Python). Most lists are shorter (a dealt hand's median lead has
    # about 450 moves; the largest of 8,000 dealt hands 5,894).
    STACK_MOVES = 2048

# The Python-facing list of one generate() call (defined in movegen.pyx): a read-only sequence
# of Move over its own copy of the words. Other modules (game) make them with new_move_list.
cdef class MoveList:
    cdef bytes _data        # the words, (lo, hi) per move: immutable, shared with .array
    cdef const u64* buf     # = the bytes' buffer
    cdef Py_ssize_t n
    cdef object _array
    cdef Py_ssize_t _find(self, x) except -2
    cdef object get_array(self)

cdef MoveList new_move_list(const u64* src, int n)

# A hand parsed once (movegen.pyx). prepare checks and caches the arguments of a call and
# leaves them in rules_c, last_lo, last_hi; it returns the level.
cdef class Hand:
    cdef u64 lo
    cdef u64 hi
    cdef tuple _cards
    cdef object _rules      # the Rules whose flags are in rules_c
    cdef RulesC rules_c
    cdef object _last       # the last play whose words are cached below
    cdef int _last_level
    cdef object _last_rules
    cdef u64 last_lo
    cdef u64 last_hi
    cdef int prepare(self, object level, object last, object rules) except -1

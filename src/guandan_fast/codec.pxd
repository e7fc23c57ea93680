# Python objects <-> words (codec.pyx): the one place where the compiled core meets card codes.
# The encoding itself (u64, kinds, masks, move words) is in types.pxd.
from guandan_fast.types cimport u64

# Implemented once in codec.pyx and used by every module that talks to Python (checked: they
# raise ValueError/TypeError on bad input).
cdef object words_of(object cards)           # (lo, hi) of card codes, as parse_cards accepts
cdef tuple codes_of(u64 lo, u64 hi)          # card codes of a multiset, canonical order
cdef object move_of(u64 lo, u64 hi)          # the Move of well-formed move words
# The platform's form of n move words (words[2i], words[2i+1]): a list of ``[type, rank,
# [cards]]`` (Move.to_platform of each) and its json.dumps text; pass_first puts PASS first.
cdef list platform_actions(const u64* words, Py_ssize_t n, bint pass_first)
cdef str platform_json(const u64* words, Py_ssize_t n, bint pass_first)

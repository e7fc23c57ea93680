# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Built-in bots in compiled code: ``random``, ``random_compact`` and ``greedy``.

Every bot is a nogil, allocation-free function that picks one move of the list the compiled
game wrote for the current player (see bots.pxd). ``random`` draws uniformly from its own
SplitMix64 stream (one per seat); ``greedy`` is the deterministic baseline documented in
docs/design.md ("Bots").

From Python, ``choose`` asks a bot for its move in a constructed position (tests, examples):

>>> from guandan_fast.bots import choose
>>> choose('greedy', 'S3 S3 D5 HK CA', level=2)        # lead: the low pair first
Move('Pair', '3', ('S3', 'S3'))
>>> choose('greedy', 'S3 D5 HK', level=2, top='Single 4 S4', top_seat=2)  # partner's play
PASS
"""
from libc.stdlib cimport free
from libc.string cimport memset
from guandan_fast.types cimport (u64, N_RANKS, ACE_RANK, LAST_STRAIGHT_POS, N_KINDS, LO_KINDS,
                                 KIND_SB, KIND_HR, LO_CARD_MASK, HI_CARD_MASK, T_PASS, T_SINGLE, T_PAIR, T_TRIPS, T_THREE_WITH_TWO,
                                 N_PLAY_TYPES, RANK_JOKER, VALUE_LEVEL, VALUE_SB, VALUE_HR,
                                 kind_count, move_type, move_rank, wild_kind, words_add_kind,
                                 single_value, rank_value, card_count, is_bomb_type, tier_key,
                                 play_key, __builtin_ctzll)
from guandan_fast.rng cimport sm_next, sm_below
from guandan_fast.game_core cimport GameState, PH_TRIBUTE, PH_BACK, PH_PLAY
from guandan_fast.movegen_core cimport RulesC, generate_grow
from guandan_fast.expert cimport expert_choose, expert_reset, style_knobs
from guandan_fast.expert import STYLE_NAMES

import numpy as np

from guandan_fast import validate as _validate

cdef enum:
    # Greedy tuning (see docs/design.md "Bots"). Scores are "lower is better".
    BOMB_WHEN_OPPONENT_AT = 6   # bomb an opponent's top play when he holds this many or fewer
    PROTECTED_COST = 1000       # using a card of a bomb or of a natural straight flush
    WILD_COST = 40              # spending a wild on a non-finishing play
    BREAK_COST = 3              # per rank whose group the move splits

# Cards in a play of each non-bomb type (by type code).
cdef int TYPE_SIZE[N_PLAY_TYPES]
TYPE_SIZE[:] = [0, 1, 2, 3, 5, 5, 6, 6, 0, 5]

# Salt that separates the bots' streams from the game's deal stream started at the same seed.
cdef u64 BOT_SALT = 0xD1B54A32D192ED03ULL


cdef bint agent_compact(int kind) noexcept nogil:
    return kind != AGENT_RANDOM


cdef void bot_init(Bot* bot, int kind, u64 match_seed, int seat) noexcept nogil:
    cdef u64 st = match_seed ^ BOT_SALT
    cdef int i
    cdef u64 out = 0
    for i in range(seat + 1):
        out = sm_next(&st)
    bot.rng = out
    bot.kind = kind
    expert_reset(&bot.memo)


cdef int bot_choose(Bot* bot, const GameState* s, const u64* moves, int n) noexcept nogil:
    if n <= 1:
        return 0
    if bot.kind == AGENT_GREEDY:
        return greedy_choose(s, moves, n)
    if is_expert_kind(bot.kind):
        return expert_choose(s, moves, n, &bot.memo, style_knobs(bot.kind - AGENT_EXPERT))
    return <int>sm_below(&bot.rng, <u64>n)


# ---------------------------------------------------------------------------------------------
# Greedy

cdef struct HandInfo:
    int cnt[N_RANKS]        # natural cards per rank index (wilds excluded)
    int wilds
    int level
    int wk             # wild kind
    u64 prot_lo        # both count bits set for every kind that belongs to a bomb or a
    u64 prot_hi        # natural straight flush of the hand (kept intact by the policy)


cdef inline void set_kind_mask(u64* lo, u64* hi, int k) noexcept nogil:
    if k < LO_KINDS:
        lo[0] |= (<u64>3) << (2 * k)
    else:
        hi[0] |= (<u64>3) << (2 * (k - LO_KINDS))


cdef void analyze(HandInfo* h, u64 lo, u64 hi, int level) noexcept nogil:
    cdef int k, c, r, s, pos, j, b
    cdef int suit_ranks[4]
    cdef int ext
    cdef u64 w
    memset(h, 0, sizeof(HandInfo))
    h.level = level
    h.wk = wild_kind(level)
    suit_ranks[0] = suit_ranks[1] = suit_ranks[2] = suit_ranks[3] = 0
    # Visit only the kinds present (at most 27), lowest bit of each 2-bit count first.
    w = lo & LO_CARD_MASK
    while w:
        b = __builtin_ctzll(w)
        k = b >> 1
        w &= ~((<u64>3) << (2 * k))
        c = <int>((lo >> (2 * k)) & 3)
        if k == h.wk:
            h.wilds = c
            continue
        r = k % N_RANKS
        h.cnt[r] += c
        suit_ranks[k // N_RANKS] |= 1 << r
    w = hi & (HI_CARD_MASK >> 4)      # suited kinds 26..51 only
    while w:
        b = __builtin_ctzll(w)
        k = (b >> 1) + LO_KINDS
        w &= ~((<u64>3) << (2 * (k - LO_KINDS)))
        r = k % N_RANKS
        h.cnt[r] += <int>((hi >> (2 * (k - LO_KINDS))) & 3)
        suit_ranks[k // N_RANKS] |= 1 << r
    # Same-rank bombs without wilds: the whole rank is kept.
    for r in range(N_RANKS):
        if h.cnt[r] >= 4:
            for s in range(4):
                k = s * N_RANKS + r
                if k != h.wk:
                    set_kind_mask(&h.prot_lo, &h.prot_hi, k)
    if kind_count(lo, hi, KIND_SB) == 2 and kind_count(lo, hi, KIND_HR) == 2:
        set_kind_mask(&h.prot_lo, &h.prot_hi, KIND_SB)
        set_kind_mask(&h.prot_lo, &h.prot_hi, KIND_HR)
    # Natural straight flushes: bit p of `ext` is natural position p (0 = A low, 1 = 2 .. 13 = A).
    for s in range(4):
        ext = (suit_ranks[s] << 1) | ((suit_ranks[s] >> ACE_RANK) & 1)
        for pos in range(LAST_STRAIGHT_POS):     # windows starting at positions 0..9
            if ((ext >> pos) & 31) == 31:
                for j in range(pos, pos + 5):
                    r = ACE_RANK if j == 0 else j - 1
                    set_kind_mask(&h.prot_lo, &h.prot_hi, s * N_RANKS + r)


cdef inline int bomb_strength(u64 lo, u64 hi, int level) noexcept nogil:
    """(tier, key) of a bomb-class move as one increasing integer (docs/rules.md §5 ladder);
    keys are at most VALUE_LEVEL < 32."""
    cdef int tier, key
    tier_key(lo, hi, level, &tier, &key)
    return tier * 32 + key


cdef struct MoveInfo:
    int n              # cards
    int base
    int breaks         # ranks whose natural group in the hand the move splits
    int kicker         # ThreeWithTwo: single-order value of the pair
    bint wild
    bint prot


cdef void move_info(MoveInfo* m, const HandInfo* h, u64 lo, u64 hi) noexcept nogil:
    cdef int used[N_RANKS]
    cdef int k, b, c, r, t, rc, triple_r, kick
    cdef u64 w
    cdef bint jok_sb = False, jok_hr = False
    t = move_type(hi)
    rc = move_rank(hi)
    m.n = TYPE_SIZE[t]           # bombs never get here; every other type has one size
    m.base = play_key(lo, hi, h.level)
    m.breaks = 0
    m.kicker = 0
    c = kind_count(lo, hi, h.wk)
    m.wild = c > 0
    m.prot = ((lo & h.prot_lo) | (hi & HI_CARD_MASK & h.prot_hi)) != 0
    if t <= T_TRIPS:
        # Single, Pair, Trips: one rank (or jokers, which have no group to split).
        if rc != RANK_JOKER:
            r = rc - 2
            c = m.n - c
            if 0 < c < h.cnt[r]:
                m.breaks = 1
        return
    # Longer plays: natural cards per rank, visiting the move's kinds (at most 10 cards).
    memset(used, 0, sizeof(used))
    w = lo & LO_CARD_MASK
    while w:
        b = __builtin_ctzll(w)
        k = b >> 1
        w &= ~((<u64>3) << (2 * k))
        if k != h.wk:
            used[k % N_RANKS] += <int>((lo >> (2 * k)) & 3)
    w = hi & HI_CARD_MASK
    while w:
        b = __builtin_ctzll(w)
        k = (b >> 1) + LO_KINDS
        w &= ~((<u64>3) << (2 * (k - LO_KINDS)))
        if k == KIND_SB:
            jok_sb = True
        elif k == KIND_HR:
            jok_hr = True
        else:
            used[k % N_RANKS] += <int>((hi >> (2 * (k - LO_KINDS))) & 3)
    for r in range(N_RANKS):
        if used[r] and used[r] < h.cnt[r]:
            m.breaks += 1
    if t == T_THREE_WITH_TWO:
        triple_r = rc - 2        # rank label 2..14 -> rank index 0..12
        if jok_hr:
            kick = VALUE_HR
        elif jok_sb:
            kick = VALUE_SB
        else:
            kick = VALUE_LEVEL   # a pair made of the two wilds reads as level cards
            for r in range(N_RANKS):
                if used[r] and r != triple_r:
                    kick = rank_value(r, h.level - 2)
        m.kicker = kick


cdef inline int public_count(const GameState* s, int p) noexcept nogil:
    """p's card count if the rules make it public now, else 99 (0 when p is out)."""
    cdef int c = card_count(s.hand_lo[p], s.hand_hi[p])
    if c <= s.rules.disclosure:
        return c
    return 99


cdef int greedy_exchange(const GameState* s, const u64* moves, int n) noexcept nogil:
    """Tribute: the highest card offered (only a 1st finisher choosing has a real choice).
    Return: the lowest allowed card, preferring one that splits no group and breaks no bomb."""
    cdef HandInfo h
    cdef int i, k, v, score, best = 0, best_score = 1 << 30
    cdef u64 lo, hi
    cdef int me = s.current
    analyze(&h, s.hand_lo[me], s.hand_hi[me], s.level)
    for i in range(n):
        lo = moves[2 * i]
        hi = moves[2 * i + 1]
        k = 0
        while k < N_KINDS and kind_count(lo, hi & HI_CARD_MASK, k) == 0:
            k += 1
        v = single_value(k, s.level)
        if s.phase == PH_TRIBUTE:
            score = -v
        else:
            score = 8 * v
            if k < KIND_SB and k != h.wk and h.cnt[k % N_RANKS] >= 2:
                score += 2
            if ((lo & h.prot_lo) | (hi & HI_CARD_MASK & h.prot_hi)) != 0:
                score += 100
            if k == h.wk:
                score += 200
        if score < best_score:
            best_score = score
            best = i
    return best


cdef int greedy_choose(const GameState* s, const u64* moves, int n) noexcept nogil:
    cdef HandInfo h
    cdef MoveInfo mi
    cdef int me = s.current
    cdef int partner = (me + 2) & 3
    cdef int i, t, score, c, p
    cdef int pass_i = -1
    cdef int best = -1, best_score = 1 << 30
    cdef int bomb_i = -1, bomb_best = 1 << 30
    cdef bint best_wild = False
    cdef int opp_min = 99, partner_count, top_count
    cdef u64 hand_lo, hand_hi
    cdef bint leading, partner_top, danger
    cdef u64 lo, hi
    if s.phase != PH_PLAY:
        return greedy_exchange(s, moves, n)
    leading = s.top_seat < 0
    partner_top = (not leading) and s.top_seat == partner

    # Going out beats every other consideration (even over a partner). A play is a
    # sub-multiset of the hand, so it holds all the cards exactly when the words are equal.
    hand_lo = s.hand_lo[me]
    hand_hi = s.hand_hi[me] & HI_CARD_MASK
    for i in range(n):
        hi = moves[2 * i + 1]
        if move_type(hi) == T_PASS:
            pass_i = i
        elif moves[2 * i] == hand_lo and (hi & HI_CARD_MASK) == hand_hi:
            return i
    if partner_top:
        return pass_i if pass_i >= 0 else 0

    analyze(&h, s.hand_lo[me], s.hand_hi[me], s.level)
    for p in range(4):
        if p != me and p != partner:
            c = public_count(s, p)
            if 0 < c < opp_min:
                opp_min = c
    partner_count = public_count(s, partner)

    for i in range(n):
        lo = moves[2 * i]
        hi = moves[2 * i + 1]
        t = move_type(hi)
        if t == T_PASS:
            continue
        if is_bomb_type(t):
            score = bomb_strength(lo, hi, s.level)
            if score < bomb_best:
                bomb_best = score
                bomb_i = i
            continue
        move_info(&mi, &h, lo, hi)
        if leading:
            score = 4 * mi.base - 2 * mi.n + BREAK_COST * mi.breaks
            if t == T_SINGLE:
                if opp_min == 1:
                    score += 60      # an opponent out on any higher single
                if partner_count == 1:
                    score -= 60      # feed the partner's last card a low single
            elif t == T_PAIR and opp_min == 2:
                score += 30
        else:
            score = 4 * mi.base + BREAK_COST * mi.breaks
        if t == T_THREE_WITH_TWO:
            score += mi.kicker
        if mi.wild:
            score += WILD_COST
        if mi.prot:
            score += PROTECTED_COST
        if score < best_score:
            best_score = score
            best = i
            best_wild = mi.wild

    if leading:
        # Only when every other play would break a bomb is the lowest bomb led.
        if bomb_i >= 0 and (best < 0 or best_score >= PROTECTED_COST):
            return bomb_i
        return best if best >= 0 else 0

    top_count = public_count(s, s.top_seat)
    danger = 0 < top_count <= BOMB_WHEN_OPPONENT_AT or opp_min <= 2
    if best >= 0 and best_score < PROTECTED_COST and (danger or not best_wild):
        return best
    if danger and bomb_i >= 0:
        return bomb_i
    if best >= 0 and danger:
        return best
    return pass_i if pass_i >= 0 else 0


# ---------------------------------------------------------------------------------------------
# Python access (tests, examples): one decision in a constructed position.

#: Every compiled agent kind by name (the codes of bots.pxd). The user-facing table of agents,
#: with what each does, is python/guandan_fast/agents.py (which checks it against this).
AGENT_CODES = {"random": AGENT_RANDOM, "random_compact": AGENT_RANDOM_COMPACT,
               "greedy": AGENT_GREEDY, "expert": AGENT_EXPERT, "pimc": AGENT_PIMC,
               "ismcts": AGENT_ISMCTS}
# The expert's other styles: AGENT_EXPERT + their index (bots.pxd).
AGENT_CODES.update({name: AGENT_EXPERT + i for i, name in enumerate(STYLE_NAMES)})


cdef inline bint is_bot(int kind) noexcept nogil:
    """Does bot_choose play this kind (no search context)?"""
    return kind != AGENT_PIMC and kind != AGENT_ISMCTS


def bot_kind(name):
    """The code of a built-in bot (an agent ``choose`` plays); ValueError naming them.

    >>> bot_kind('greedy') == AGENT_CODES['greedy']
    True
    >>> bot_kind('pimc')
    Traceback (most recent call last):
    ...
    ValueError: unknown agent 'pimc' for a built-in bot; the bots are: random, random_compact, greedy, expert, bomber, saver, shedder, keeper, solo
    """
    if not isinstance(name, str) or name not in AGENT_CODES or not is_bot(AGENT_CODES[name]):
        known = ", ".join(n for n, k in AGENT_CODES.items() if is_bot(k))
        raise ValueError(f"unknown agent {name!r} for a built-in bot; the bots are: {known}")
    return AGENT_CODES[name]


def _parse_top(top, int level):
    from .moves import Move, PASS
    if top is None or top == PASS:
        return None
    if isinstance(top, str):
        parts = top.split()
        if len(parts) < 3:
            raise ValueError(f"top is 'TYPE RANK CARD...', got {top!r}")
        top = [parts[0], parts[1], parts[2:]]
    m = Move.from_platform(top, level)
    if m.type in ("tribute", "back"):
        raise ValueError(f"top must be a play, not a {m.type} move")
    return m


def choose(agent, hand, level=2, top=None, top_seat=None, seat=0, counts=None, moves=None,
           phase="play", seed=0, disclosure=10, unseen=None):
    """The move a built-in bot makes in a constructed position (one decision).

    ``hand``: the cards of ``seat``; ``top``: the play to follow (a ``Move``, a platform list
    or ``"Type Rank CARD ..."``) made by ``top_seat``, or None on lead; ``counts``: the card
    counts of the four seats (others default to 27; ``seat``'s is ``len(hand)``), made public
    when at most ``disclosure``; ``moves``: the candidate moves (default: the legal moves the
    agent sees, compact or complete, from movegen); ``phase``: ``'play'``, ``'tribute'`` or
    ``'back'`` (the latter two need ``moves``). ``seed`` seeds the seat's random stream.
    ``unseen``: the cards ``seat`` cannot see (the union of the other hands: the deck minus its
    hand and the cards played), as many as the other seats' counts; they are dealt to the other
    seats in order (only their union and counts matter to the bots). By default the other
    seats hold placeholder cards, the lowest kinds of the deck.

    >>> choose('greedy', 'S3 D5 C9', level=2, top='Single 4 D4', top_seat=1)
    Move('Single', '5', ('D5',))
    >>> choose('greedy', 'S5 S6 S7 S8 S9 DK', level=2)   # keep the straight flush
    Move('Single', 'K', ('DK',))
    >>> choose('greedy', 'S5', level=2, phase='back')
    Traceback (most recent call last):
    ...
    ValueError: phase 'back' needs the candidate moves
    """
    from collections import Counter
    from .cards import parse_cards, parse_level
    from .moves import Move, cards_to_words
    from .rules import Rules

    cdef GameState s
    cdef Bot bot
    cdef RulesC gen
    cdef int kind = bot_kind(agent)
    cdef int lv = parse_level(level)
    cdef int p, k, n, i, want, cap
    cdef u64* buf = NULL
    cdef u64 lo, hi
    codes = parse_cards(hand)
    if not codes:
        raise ValueError("hand is empty")
    seat = _validate.check_seat(seat)
    if phase not in ("play", "tribute", "back"):
        raise ValueError(f"phase must be 'play', 'tribute' or 'back', got {phase!r}")
    if phase != "play" and moves is None:
        raise ValueError(f"phase {phase!r} needs the candidate moves")
    m_top = _parse_top(top, lv) if phase == "play" else None
    if m_top is not None and (isinstance(top_seat, bool) or not hasattr(type(top_seat), "__index__")
                              or not 0 <= top_seat < 4 or top_seat == seat):
        raise ValueError(f"top_seat must be another seat 0..3 when top is given, got {top_seat!r}")
    cnts = [27, 27, 27, 27]
    if counts is not None:
        cnts = list(counts)
        if len(cnts) != 4 or not all(not isinstance(c, bool) and hasattr(type(c), "__index__")
                                     and 0 <= c <= 27 for c in cnts):
            raise ValueError(f"counts must be four ints 0..27, got {counts!r}")
    cnts[seat] = len(codes)
    unseen_codes = None
    if unseen is not None:
        unseen_codes = parse_cards(unseen)
        want = sum(cnts[p] for p in range(4) if p != seat)
        if len(unseen_codes) != want:
            raise ValueError(f"unseen must hold the other seats' {want} cards (their counts), "
                             f"got {len(unseen_codes)}")
        both = Counter(codes) + Counter(unseen_codes)
        if any(c > 2 for c in both.values()):
            raise ValueError("hand and unseen together hold more than two copies of a card")
    memset(&s, 0, sizeof(GameState))
    s.level = lv
    s.phase = {"play": PH_PLAY, "tribute": PH_TRIBUTE, "back": PH_BACK}[phase]
    s.current = seat
    s.top_seat = -1
    s.winner = -1
    s.rules.disclosure = min(127, disclosure)
    s.rules.gen.sf_as_straight = True
    s.rules.gen.fullhouse_joker_pair = True
    s.hand_lo[seat], s.hand_hi[seat] = cards_to_words(codes)
    # Other seats get the unseen cards in order, or placeholder cards.
    i = 0
    for p in range(4):
        if p == seat:
            continue
        want = cnts[p]
        if unseen_codes is not None:
            s.hand_lo[p], s.hand_hi[p] = cards_to_words(unseen_codes[i:i + want])
            i += want
            continue
        k = 0
        while want > 0:
            n = 2 if want >= 2 else 1
            words_add_kind(&s.hand_lo[p], &s.hand_hi[p], k, n)
            want -= n
            k += 1
    if m_top is not None:
        s.top_lo, s.top_hi = m_top.words
        s.top_seat = top_seat
    if moves is None:
        cap = 0
        try:
            # Sized from the hand: any hand (up to 108 cards) fits.
            n = generate_grow(s.hand_lo[seat], s.hand_hi[seat], lv, s.top_lo, s.top_hi,
                              &s.rules.gen, agent_compact(kind), &buf, &cap)
            if n < 0:
                raise MemoryError("no memory for the legal moves of this hand")
            words = [(buf[2 * i], buf[2 * i + 1]) for i in range(n)]
        finally:
            free(buf)
    else:
        words = []
        for m in moves:
            if not isinstance(m, Move):
                raise TypeError(f"moves must be Move objects, got {type(m).__name__}")
            words.append(m.words)
    if not words:
        raise ValueError("no candidate move")
    cdef u64[::1] arr = np.array([w for pair in words for w in pair], dtype=np.uint64)
    bot_init(&bot, kind, seed, seat)
    i = bot_choose(&bot, &s, &arr[0], len(words))
    return Move.from_words(int(words[i][0]), int(words[i][1]))

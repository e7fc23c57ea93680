# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The ``expert`` agent: a rule-based player that plays from a plan of its hand (docs/expert.md).

The **plan** splits the hand into plays (groups) so that the sum of the groups' values is
highest: every group costs a fixed amount (fewer groups is better), low groups are worth less
than high ones, bombs are worth a lot, and the wild cards go where they remove a whole group (a
gap of a straight or a pair run, trips made a bomb) or stay level cards. The split is found by
a bounded depth-first search over the sequences (straights, pair runs, plates) the hand can
make, the rest being same-rank groups with full houses formed from the lowest pairs.

The agent then leads its weakest group, follows an opponent with the cheapest group of its plan
that wins (a control group, a broken group or a bomb only when the situation calls for it),
lets its partner's winning play stand, feeds a partner who is about to finish, and pays and
returns the exchange cards that cost its plan least. It reads only what its seat may know.

>>> sorted((g['type'], g['key']) for g in plan('S3 H3 C3 D9 S9 S5 S6 S7 S8 C4 HK', 2))
[('Single', 13), ('Straight', 4), ('ThreeWithTwo', 3)]
>>> from guandan_fast.bots import choose
>>> choose('expert', 'S3 S3 D5 D6 C7 S8 H9 HK HK', level=2)        # the weakest group first
Move('Pair', '3', ('S3', 'S3'))
"""
from libc.string cimport memcpy
from guandan_fast import validate as _validate
from guandan_fast.codec cimport move_of
from guandan_fast.types cimport (u64, N_RANKS, ACE_RANK, KIND_SB, KIND_HR, SUIT_BITS,
                                 SB_BIT, HR_BIT, SUIT_MASK, LO_CARD_MASK, HI_CARD_MASK, T_PASS, T_SINGLE, T_PAIR, T_TRIPS,
                                 T_THREE_WITH_TWO, T_STRAIGHT, T_THREE_PAIR, T_TWO_TRIPS, T_BOMB,
                                 T_STRAIGHT_FLUSH, T_TRIBUTE, VALUE_LEVEL, VALUE_SB, VALUE_HR,
                                 LAST_STRAIGHT_POS, LAST_THREE_PAIR_POS, LAST_TWO_TRIPS_POS,
                                 kind_count, move_type, wild_kind, rank_value, single_value,
                                 card_count, is_bomb_type, tier_key, play_key,
                                 __builtin_popcountll, __builtin_ctzll)
from guandan_fast.game_core cimport GameState, PH_PLAY, PH_BACK
from guandan_fast.game cimport game_state_ptr
from guandan_fast.solve cimport Solver, thread_solver, solver_clear, solve_pick, hands_known

cdef enum:
    # ---- group values (the knobs of docs/expert.md; higher is better) ----------------------
    GROUP_COST = 6        # every group costs this: the plan with fewer groups wins
    BASE = 12             # a group's rank value v is worth v - BASE (A = +2, a 2 = -10)
    TRIPS_BONUS = 1
    FULL_HOUSE_BONUS = 2
    STRAIGHT_BONUS = 1
    THREE_PAIR_BONUS = 2
    TWO_TRIPS_BONUS = 3
    BOMB_VALUE = 12       # a 4-card bomb of 2s; +3 per rung of the ladder, + rank / 4
    JOKER_BOMB_VALUE = 40
    PLAN_BUDGET = 96      # nodes of the sequence search per plan
    MAX_SEQ = 12          # sequences in one plan at most (27 cards / 5 + wild gaps)
    MAX_CAND = 36         # sequence windows considered (10 + 12 + 13 at most)
    # ---- play (the knobs of the play are the ExpertKnobs rows below) ----------------------
    UNKNOWN = 99          # a card count the rules do not disclose (more than 10)
    # ---- end game (defaults of endgame_limits) -----------------------------------------
    SOLVE_AT = 10         # solve exactly when every hand is known and they hold this many
                          # cards or fewer together (bench/RESULTS.md "End game")
    SOLVE_NODES = 1000    # node budget of one decision's solve (then the rules above decide)


# The end-game limits in force (endgame_limits sets them for a run; read-only during it).
cdef int solve_at = SOLVE_AT
cdef long long solve_nodes = SOLVE_NODES


# ---------------------------------------------------------------------------------------------
# The knobs of the play, one row per style (docs/expert.md "Knobs and styles")

#: The styles in agent-code order: style i is the agent code AGENT_EXPERT + i (bots.pyx).
STYLE_NAMES = ("expert", "bomber", "saver", "shedder", "keeper", "solo")
#: The knobs, in ExpertKnobs order (expert.pxd says what each one does).
KNOB_NAMES = ("near_out", "near_out_other", "attack_margin", "shed_over_partner",
              "break_loss", "bomb_at", "unbeaten_keep", "bomb_trigger", "bomb_free",
              "bomb_on_attack", "spend_control", "lead_size", "feed_partner",
              "respect_partner", "return_plan", "return_spread", "run_out")
#: The knobs set by hand: break_loss 10 and bomb_at 10 by duplicate runs against greedy
#: (docs/expert.md "Tuning against the gauntlet"). The styles are this row with their changes.
BASE_KNOBS = dict(near_out=5, near_out_other=3, attack_margin=1, shed_over_partner=10,
                  break_loss=10, bomb_at=10, unbeaten_keep=30, bomb_trigger=0, bomb_free=0,
                  bomb_on_attack=1, spend_control=0, lead_size=1, feed_partner=1,
                  respect_partner=1, return_plan=4, return_spread=3, run_out=0)
#: What tuning against the gauntlet changed (bench/tune_expert.py --trials 30 --deals 100
#: --start base: the worst hand win rate over the other members, on 300 unseen deals,
#: 52.0 % -> 55.0 %; then a coordinate search from that row over 1,500 deals, which moved
#: near_out 8 -> 6 and bomb_trigger 3 -> 2 and turned run_out on: docs/expert.md "Tuning
#: against the gauntlet").
TUNED_CHANGES = dict(near_out=6, near_out_other=1, attack_margin=0, break_loss=5, bomb_at=2,
                     unbeaten_keep=16, bomb_trigger=2, lead_size=2, return_spread=1, run_out=1)
#: The expert's knobs.
EXPERT_KNOBS = {**BASE_KNOBS, **TUNED_CHANGES}
#: Each other style: what it changes in BASE_KNOBS (docs/expert.md describes them).
STYLE_CHANGES = {
    # bombs early: any opponent play its plan cannot beat, from the first trick; spends its
    # controls freely
    "bomber": dict(bomb_free=1, spend_control=1),
    # saves its bombs until a seat holds 10 cards or fewer (then bombs what it cannot beat),
    # beats only when its plan loses nothing (the plan keeper with a bomb trigger)
    "saver": dict(bomb_at=0, bomb_on_attack=0, bomb_trigger=10, break_loss=0),
    # sheds cards: leads its longest groups first, breaks any group and spends any control to
    # win a trick, returns its lowest card
    "shedder": dict(lead_size=20, break_loss=99, spend_control=1, return_plan=0),
    # keeps control: leads short groups (singles) first, beats only when its plan loses
    # nothing, attacks late
    "keeper": dict(lead_size=-20, break_loss=0, attack_margin=-1, unbeaten_keep=60),
    # ignores the partner: never feeds him, beats his plays like an opponent's
    "solo": dict(feed_partner=0, respect_partner=0),
}

cdef ExpertKnobs _knobs[N_STYLES]


cdef ExpertKnobs* style_knobs(int style) noexcept nogil:
    return &_knobs[style]


def _style_index(style):
    if style not in STYLE_NAMES:
        raise ValueError(f"unknown style {style!r}; styles: {', '.join(STYLE_NAMES)}")
    return STYLE_NAMES.index(style)


def knobs(style="expert"):
    """The knobs a style plays with, as a dict in ``KNOB_NAMES`` order.

    >>> knobs()["break_loss"], knobs("saver")["bomb_trigger"]
    (5, 10)
    >>> knobs("lucky")
    Traceback (most recent call last):
    ...
    ValueError: unknown style 'lucky'; styles: expert, bomber, saver, shedder, keeper, solo
    """
    row = _knobs[_style_index(style)]          # the struct as a dict
    return {k: row[k] for k in KNOB_NAMES}


def set_knobs(values, style="expert"):
    """Set some knobs of a style (``values``: a dict of knob names and ints; for every seat of
    that style in the process, from the next decision on: set them before a run, not during
    one, as the tuning script does); returns the style's previous knobs, so
    ``set_knobs(old, style)`` restores them.

    >>> old = set_knobs({"break_loss": 3})
    >>> knobs()["break_loss"], old["break_loss"]
    (3, 5)
    >>> _ = set_knobs(old)
    >>> set_knobs({"bomb_at": 1000})
    Traceback (most recent call last):
    ...
    ValueError: bomb_at must be at most 100, got 1000
    >>> set_knobs({"luck": 1})
    Traceback (most recent call last):
    ...
    ValueError: unknown knob 'luck'; knobs: near_out, near_out_other, attack_margin, shed_over_partner, break_loss, bomb_at, unbeaten_keep, bomb_trigger, bomb_free, bomb_on_attack, spend_control, lead_size, feed_partner, respect_partner, return_plan, return_spread, run_out
    """
    i = _style_index(style)
    if not isinstance(values, dict):
        raise TypeError(f"values must be a dict of knob names and ints, not {type(values).__name__}")
    for key, value in values.items():
        if key not in KNOB_NAMES:
            raise ValueError(f"unknown knob {key!r}; knobs: {', '.join(KNOB_NAMES)}")
        _validate.check_count(value, key, -100, 100)
    old = knobs(style)
    row = dict(old)
    row.update({k: int(v) for k, v in values.items()})
    _knobs[i] = row
    return old


def _reset_knobs():
    """Every style's knobs as the table above defines them."""
    for i, name in enumerate(STYLE_NAMES):
        _knobs[i] = EXPERT_KNOBS if name == "expert" else {**BASE_KNOBS, **STYLE_CHANGES[name]}


_reset_knobs()


# ---------------------------------------------------------------------------------------------
# Hand counts
#
# The planner keeps a hand's natural cards per rank in one word, 4 bits a rank ("lanes": rank
# index r in bits 4r..4r+3; at most 8 naturals and the 2 wilds, so a lane never overflows).
# It plans every decision, several hands a decision (each candidate's rest of the hand), so
# its inner steps (which ranks hold 1, 2, 3, 4 or more cards, a sequence's window, the value of
# the same-rank groups) are a few word operations instead of loops over the 13 ranks.

cdef extern from *:
    """
    #define GF_LANES4 0x3333333ULL
    #define GF_UNITS 0x1111111111111ULL
    #define GF_UNITS14 0x11111111111111ULL
    #define GF_RANK_BIT0 0x0101010101010ULL
    #define GF_RANK_BIT1 0x0110011001100ULL
    #define GF_RANK_BIT2 0x1000011110000ULL
    #define GF_RANK_BIT3 0x1111100000000ULL
    """
    const u64 LANES4 "GF_LANES4"          # the even ranks of a suit's 13 2-bit counts, in 4 bits
    const u64 UNITS "GF_UNITS"            # the low bit of every rank's lane
    const u64 UNITS14 "GF_UNITS14"        # the same for the 14 natural positions (windows)
    # the lanes of the ranks r whose index has bit k set (a sum of rank indices by popcounts)
    const u64 RANK_BIT0 "GF_RANK_BIT0"
    const u64 RANK_BIT1 "GF_RANK_BIT1"
    const u64 RANK_BIT2 "GF_RANK_BIT2"
    const u64 RANK_BIT3 "GF_RANK_BIT3"


cdef inline int lane(u64 x, int r) noexcept nogil:
    return <int>((x >> (4 * r)) & 15)


cdef inline u64 unit(int r) noexcept nogil:
    return (<u64>1) << (4 * r)


cdef inline u64 nibbles_to_bytes(u64 x) noexcept nogil:
    """Nibble j of x (j < 8) to the low nibble of byte j."""
    x = (x | (x << 16)) & <u64>0x0000FFFF0000FFFFULL
    x = (x | (x << 8)) & <u64>0x00FF00FF00FF00FFULL
    return (x | (x << 4)) & <u64>0x0F0F0F0F0F0F0F0FULL


cdef inline u64 rank_lanes(u64 lo, u64 hi, int level, int* wilds) noexcept nogil:
    """The natural cards per rank of a multiset as lanes; the wilds (heart level cards) apart.
    Each suit is 13 2-bit counts (docs/design.md "The 128-bit multiset"): the even and the odd
    ranks of the four suits are added in 4-bit lanes, then spread to rank order."""
    cdef int lr = level - 2
    cdef u64 s0 = lo & SUIT_MASK, s1 = (lo >> SUIT_BITS) & SUIT_MASK
    cdef u64 s2 = hi & SUIT_MASK, s3 = (hi >> SUIT_BITS) & SUIT_MASK
    cdef u64 even, odd
    wilds[0] = <int>((s1 >> (2 * lr)) & 3)         # the wild: the heart (suit 1) of the level
    s1 &= ~((<u64>3) << (2 * lr))
    even = (s0 & LANES4) + (s1 & LANES4) + (s2 & LANES4) + (s3 & LANES4)
    odd = (((s0 >> 2) & LANES4) + ((s1 >> 2) & LANES4) + ((s2 >> 2) & LANES4)
           + ((s3 >> 2) & LANES4))
    return nibbles_to_bytes(even) | (nibbles_to_bytes(odd) << 4)


cdef struct Counts:
    int cnt[N_RANKS]      # natural cards per rank index (wilds excluded)
    int wilds
    int sb
    int hr


cdef void count_cards(Counts* c, u64 lo, u64 hi, int level) noexcept nogil:
    """Rank counts of a multiset; the wilds (heart level cards) apart."""
    cdef int r
    cdef u64 x = rank_lanes(lo, hi, level, &c.wilds)
    c.sb = <int>((hi >> SB_BIT) & 3)
    c.hr = <int>((hi >> HR_BIT) & 3)
    for r in range(N_RANKS):
        c.cnt[r] = lane(x, r)


cdef struct RankMasks:
    # The ranks (their lanes' low bits) holding at least 1, 2, 3, 4 naturals, and exactly 2.
    u64 ge1
    u64 ge2
    u64 ge3
    u64 ge4
    u64 eq2


cdef inline void rank_masks(u64 x, RankMasks* m) noexcept nogil:
    cdef u64 b0 = x & UNITS, b1 = (x >> 1) & UNITS
    m.ge4 = ((x >> 2) | (x >> 3)) & UNITS
    m.ge2 = b1 | m.ge4
    m.ge1 = b0 | m.ge2
    m.ge3 = m.ge4 | (b0 & b1)
    m.eq2 = m.ge2 & ~m.ge3


cdef inline int rank_sum(u64 m) noexcept nogil:
    """The sum of the rank indices of the lanes in m (low bits)."""
    return (__builtin_popcountll(m & RANK_BIT0) + 2 * __builtin_popcountll(m & RANK_BIT1)
            + 4 * __builtin_popcountll(m & RANK_BIT2) + 8 * __builtin_popcountll(m & RANK_BIT3))


cdef inline int lowest_rank(u64 m) noexcept nogil:
    """The rank index of the lowest lane in m (not empty)."""
    return __builtin_ctzll(m) >> 2


# ---------------------------------------------------------------------------------------------
# Group values

cdef inline int bomb_value(int size, int v) noexcept nogil:
    cdef int tier = 1 if size == 4 else (2 if size == 5 else size - 2)
    return BOMB_VALUE + 3 * (tier - 1) + (v - 2) // 4


cdef inline int seq_value(int t, int pos) noexcept nogil:
    if t == T_STRAIGHT:
        return pos + 4 - BASE - GROUP_COST + STRAIGHT_BONUS
    if t == T_THREE_PAIR:
        return pos + 2 - BASE - GROUP_COST + THREE_PAIR_BONUS
    return pos + 1 - BASE - GROUP_COST + TWO_TRIPS_BONUS


cdef inline bint seq_control(int t, int pos) noexcept nogil:
    return ((t == T_STRAIGHT and pos == LAST_STRAIGHT_POS)
            or (t == T_THREE_PAIR and pos == LAST_THREE_PAIR_POS)
            or (t == T_TWO_TRIPS and pos == LAST_TWO_TRIPS_POS))


cdef inline void add_group(Plan* out, int t, int key, int size, int value, bint control) noexcept nogil:
    cdef Group* g
    if out == NULL:
        return
    out.value += value
    if out.n > HAND_SIZE:
        return
    g = &out.g[out.n]
    g.type = t
    g.key = key
    g.size = size
    g.value = value
    g.control = control
    out.n += 1
    if not control:
        out.weak += 1


# ---------------------------------------------------------------------------------------------
# The planner

cdef struct Search:
    u64 cnt                      # natural cards per rank, lanes (with the wilds placed, in leaf)
    int wilds
    int sb
    int hr
    int level_r                  # rank index of the level
    int ncand
    int cand_t[MAX_CAND]
    int cand_pos[MAX_CAND]
    u64 cand_win[MAX_CAND]       # the window's ranks (their lanes' low bits)
    int nseq                     # the sequences taken on the current path
    int seq_t[MAX_SEQ]
    int seq_pos[MAX_SEQ]
    int seq_val
    int best_val
    int best_nseq
    int best_t[MAX_SEQ]
    int best_pos[MAX_SEQ]
    u64 best_win[MAX_SEQ]
    u64 seq_win[MAX_SEQ]
    int budget


cdef inline int order_rank(int i, int level_r) noexcept nogil:
    """The rank index at place i (0..12) of the single order: the others ascending, the level
    rank last."""
    if i == N_RANKS - 1:
        return level_r
    return i if i < level_r else i + 1


cdef int eval_groups(Search* S, Plan* out) noexcept nogil:
    """The same-rank groups of S.cnt and the jokers into out, in single order; returns their
    value (groups_value computes it alone)."""
    cdef int trips[N_RANKS + 2]
    cdef int pairs[N_RANKS + 2]
    cdef int tn = 0, pn = 0, i, r, c, v, val = 0, k, attach
    for i in range(N_RANKS):
        r = order_rank(i, S.level_r)
        c = lane(S.cnt, r)
        if c == 0:
            continue
        v = rank_value(r, S.level_r)
        if c >= 4:
            val += bomb_value(c, v)
            add_group(out, T_BOMB, v, c, bomb_value(c, v), True)
        elif c == 3:
            trips[tn] = v
            tn += 1
        elif c == 2:
            pairs[pn] = v
            pn += 1
        else:
            val += v - BASE - GROUP_COST
            add_group(out, T_SINGLE, v, 1, v - BASE - GROUP_COST, v >= 14)
    if S.sb == 2 and S.hr == 2:
        val += JOKER_BOMB_VALUE
        add_group(out, T_BOMB, VALUE_HR, 4, JOKER_BOMB_VALUE, True)
    else:
        if S.sb == 2:
            pairs[pn] = VALUE_SB
            pn += 1
        elif S.sb == 1:
            val += VALUE_SB - BASE - GROUP_COST
            add_group(out, T_SINGLE, VALUE_SB, 1, VALUE_SB - BASE - GROUP_COST, True)
        if S.hr == 2:
            pairs[pn] = VALUE_HR
            pn += 1
        elif S.hr == 1:
            val += VALUE_HR - BASE - GROUP_COST
            add_group(out, T_SINGLE, VALUE_HR, 1, VALUE_HR - BASE - GROUP_COST, True)
    # Full houses: the lowest pairs below the ace go with the trips (a pair is in single order).
    attach = 0
    while attach < tn and attach < pn and pairs[attach] < 14:
        attach += 1
    for k in range(tn):
        v = trips[k]
        if k < attach:
            val += v - BASE - GROUP_COST + FULL_HOUSE_BONUS
            add_group(out, T_THREE_WITH_TWO, v, 5, v - BASE - GROUP_COST + FULL_HOUSE_BONUS,
                      v >= 14)
        else:
            val += v - BASE - GROUP_COST + TRIPS_BONUS
            add_group(out, T_TRIPS, v, 3, v - BASE - GROUP_COST + TRIPS_BONUS, v >= 14)
    for k in range(attach, pn):
        v = pairs[k]
        val += v - BASE - GROUP_COST
        add_group(out, T_PAIR, v, 2, v - BASE - GROUP_COST, v >= 14)
    return val


cdef int groups_value(const Search* S) noexcept nogil:
    """eval_groups' value alone, on the lanes (it runs at every node of every plan search):
    the singles, pairs and trips are worth their rank value (a sum of rank indices, by
    popcounts) minus BASE and GROUP_COST, trips TRIPS_BONUS more, each bomb its own value;
    then each of the lowest pairs below the ace that joins trips as a full house gives its own
    value up for the full-house bonus. (The tests check it against eval_groups' groups.)"""
    cdef RankMasks m
    cdef u64 small, bombs, low_pairs
    cdef u64 level_unit = unit(S.level_r)
    cdef int val, r, trips, k
    rank_masks(S.cnt, &m)
    small = m.ge1 & ~m.ge4                          # singles, pairs, trips
    trips = __builtin_popcountll(m.ge3 & ~m.ge4)
    val = (rank_sum(small) + __builtin_popcountll(small) * (2 - BASE - GROUP_COST)
           + trips * TRIPS_BONUS)
    if small & level_unit:
        val += VALUE_LEVEL - (S.level_r + 2)        # the level rank is worth VALUE_LEVEL
    bombs = m.ge4
    while bombs:
        r = lowest_rank(bombs)
        val += bomb_value(lane(S.cnt, r), rank_value(r, S.level_r))
        bombs &= bombs - 1
    if S.sb == 2 and S.hr == 2:
        val += JOKER_BOMB_VALUE
    else:
        # A joker single and a joker pair are worth the same.
        if S.sb:
            val += VALUE_SB - BASE - GROUP_COST
        if S.hr:
            val += VALUE_HR - BASE - GROUP_COST
    low_pairs = m.eq2 & ~level_unit & ~unit(ACE_RANK)  # ascending ranks: single order
    k = __builtin_popcountll(low_pairs)
    if trips < k:
        k = trips
    while k > 0:
        r = lowest_rank(low_pairs)
        val += FULL_HOUSE_BONUS - TRIPS_BONUS - (r + 2 - BASE - GROUP_COST)
        low_pairs &= low_pairs - 1
        k -= 1
    return val


cdef inline u64 lowest_exactly(const Search* S, bint trips) noexcept nogil:
    """The lane unit of the lowest rank (single order, the level rank excluded) holding exactly
    3 naturals (trips) or 2; 0 when none."""
    cdef RankMasks m
    cdef u64 x
    rank_masks(S.cnt, &m)
    x = (m.ge3 & ~m.ge4) if trips else m.eq2
    x &= ~unit(S.level_r)
    return x & (~x + 1)


cdef int leaf(Search* S, int w, Plan* out) noexcept nogil:
    """Value of the remaining cards with w wilds to place: kept as level cards, or making the
    lowest trips a bomb (one wild each), or the lowest pair a bomb (two). When out is given,
    the best placement's groups are written."""
    cdef int best, v, choice = 0
    cdef u64 lw = unit(S.level_r) * <u64>w, r1 = 0, r2 = 0
    S.cnt += lw
    best = groups_value(S)
    S.cnt -= lw
    if w >= 1:
        r1 = lowest_exactly(S, True)
        if r1:
            S.cnt += r1
            v = leaf(S, w - 1, NULL)
            S.cnt -= r1
            if v > best:
                best = v
                choice = 1
    if w >= 2:
        r2 = lowest_exactly(S, False)
        if r2:
            S.cnt += 2 * r2
            v = groups_value(S)
            S.cnt -= 2 * r2
            if v > best:
                best = v
                choice = 2
    if out != NULL:
        if choice == 0:
            S.cnt += lw
            eval_groups(S, out)
            S.cnt -= lw
        elif choice == 1:
            S.cnt += r1
            leaf(S, w - 1, out)
            S.cnt -= r1
        else:
            S.cnt += 2 * r2
            eval_groups(S, out)
            S.cnt -= 2 * r2
    return best


cdef inline int seq_slots(int t) noexcept nogil:
    return 5 if t == T_STRAIGHT else (3 if t == T_THREE_PAIR else 2)


cdef inline u64 seq_window(int t, int pos) noexcept nogil:
    """The ranks of a sequence's window (lane units): positions pos .. pos + slots - 1."""
    cdef u64 run = UNITS >> (4 * (N_RANKS - seq_slots(t)))
    if pos == 1:
        return (run >> 4) | unit(ACE_RANK)
    return run << (4 * (pos - 2))


cdef inline int seq_need(const RankMasks* m, int t, u64 w) noexcept nogil:
    """Wilds a sequence on window w needs from these counts, or -1 when it would break a bigger
    group (a straight takes no card of trips or bombs and at most one of a pair: its window is
    mostly cards held singly; a pair run none of trips, a plate none of a bomb)."""
    if t == T_STRAIGHT:
        if (m.ge3 & w) or __builtin_popcountll(m.eq2 & w) > 1:
            return -1
        return 5 - __builtin_popcountll(m.ge1 & w)
    if t == T_THREE_PAIR:
        if m.ge3 & w:
            return -1
        return 6 - __builtin_popcountll(m.ge1 & w) - __builtin_popcountll(m.ge2 & w)
    if m.ge4 & w:
        return -1
    return (6 - __builtin_popcountll(m.ge1 & w) - __builtin_popcountll(m.ge2 & w)
            - __builtin_popcountll(m.ge3 & w))


cdef inline void take_seq(Search* S, const RankMasks* m, int t, u64 w) noexcept nogil:
    """Take a sequence the counts allow (seq_need >= 0) out of them: a straight one card of
    each rank of its window held (pairs at most), a pair run or a plate every card there (the
    window holds no more than it takes)."""
    if t == T_STRAIGHT:
        S.cnt -= m.ge1 & w
    else:
        S.cnt &= ~(w * 15)


cdef void dfs(Search* S, int start, int w) noexcept nogil:
    cdef int ci, t, pos, need, j, v
    cdef u64 win, saved
    cdef RankMasks m
    if S.budget <= 0:
        return
    S.budget -= 1
    v = S.seq_val + leaf(S, w, NULL)
    if v > S.best_val:
        S.best_val = v
        S.best_nseq = S.nseq
        for j in range(S.nseq):
            S.best_t[j] = S.seq_t[j]
            S.best_pos[j] = S.seq_pos[j]
            S.best_win[j] = S.seq_win[j]
    if S.nseq >= MAX_SEQ or start >= S.ncand:
        return
    rank_masks(S.cnt, &m)
    for ci in range(start, S.ncand):
        t = S.cand_t[ci]
        win = S.cand_win[ci]
        need = seq_need(&m, t, win)
        if need < 0 or need > w:
            continue
        pos = S.cand_pos[ci]
        saved = S.cnt
        take_seq(S, &m, t, win)
        S.seq_t[S.nseq] = t
        S.seq_pos[S.nseq] = pos
        S.seq_win[S.nseq] = win
        S.nseq += 1
        S.seq_val += seq_value(t, pos)
        dfs(S, ci, w - need)
        S.nseq -= 1
        S.seq_val -= seq_value(t, pos)
        S.cnt = saved
        if S.budget <= 0:
            return


# Every sequence window (type, lowest position, ranks), in search order: made once.
cdef int n_windows = 0
cdef int window_t[MAX_CAND]
cdef int window_pos[MAX_CAND]
cdef u64 window_ranks[MAX_CAND]


cdef void make_windows() noexcept nogil:
    global n_windows
    cdef int t, pos, last
    n_windows = 0
    for t in range(T_STRAIGHT, T_TWO_TRIPS + 1):     # Straight, ThreePair, TwoTrips
        last = (LAST_STRAIGHT_POS if t == T_STRAIGHT else
                (LAST_THREE_PAIR_POS if t == T_THREE_PAIR else LAST_TWO_TRIPS_POS))
        for pos in range(1, last + 1):
            window_t[n_windows] = t
            window_pos[n_windows] = pos
            window_ranks[n_windows] = seq_window(t, pos)
            n_windows += 1


make_windows()


cdef inline u64 window_counts(u64 m, int n) noexcept nogil:
    """For every natural position p (1..14, in lane p - 1): how many of the n positions
    p .. p + n - 1 hold a rank of m (rank lanes' low bits; the ace at both ends)."""
    cdef u64 e = (m << 4) | ((m >> (4 * ACE_RANK)) & 1)
    cdef u64 c = e
    cdef int j
    for j in range(1, n):
        c += e >> (4 * j)
    return c


cdef inline u64 lanes_nonzero(u64 c) noexcept nogil:
    """The lanes of c (values 0..7) that are not 0."""
    return (c | (c >> 1) | (c >> 2)) & UNITS14


cdef inline void add_windows(Search* S, u64 ok, int first) noexcept nogil:
    """The windows first + p - 1 for the lanes p - 1 of ok, lowest position first."""
    cdef int i
    while ok:
        i = first + (__builtin_ctzll(ok) >> 2)
        S.cand_t[S.ncand] = window_t[i]
        S.cand_pos[S.ncand] = window_pos[i]
        S.cand_win[S.ncand] = window_ranks[i]
        S.ncand += 1
        ok &= ok - 1


cdef void search_init(Search* S, u64 lo, u64 hi, int level) noexcept nogil:
    cdef RankMasks m
    cdef u64 ok, w3
    cdef int w
    S.cnt = rank_lanes(lo, hi, level, &S.wilds)
    S.sb = <int>((hi >> SB_BIT) & 3)
    S.hr = <int>((hi >> HR_BIT) & 3)
    S.level_r = level - 2
    # Candidate windows: every sequence the whole hand could make (checked again on the way),
    # those seq_need allows with the hand's wilds. All windows of a type at once, one lane a
    # position: the cards held there counted in the lane, "need <= wilds" the lane's bit 3
    # after adding what makes the threshold 8 (no lane exceeds 15).
    S.ncand = 0
    w = S.wilds
    rank_masks(S.cnt, &m)
    # Straights: five ranks held (or filled by wilds), no trips or bombs, at most one pair.
    w3 = <u64>(w + 3) * UNITS14
    ok = ((window_counts(m.ge1, 5) + w3) >> 3) & UNITS14
    ok &= ~lanes_nonzero(window_counts(m.ge3, 5))
    ok &= ~(((window_counts(m.eq2, 5) >> 1) | (window_counts(m.eq2, 5) >> 2)) & UNITS14)
    add_windows(S, ok & (UNITS14 >> (4 * (14 - LAST_STRAIGHT_POS))), 0)
    # Pair runs: two cards of three ranks (need = 6 - held), no trips or bombs.
    w3 = <u64>(w + 2) * UNITS14
    ok = ((window_counts(m.ge1, 3) + window_counts(m.ge2, 3) + w3) >> 3) & UNITS14
    ok &= ~lanes_nonzero(window_counts(m.ge3, 3))
    add_windows(S, ok & (UNITS14 >> (4 * (14 - LAST_THREE_PAIR_POS))), LAST_STRAIGHT_POS)
    # Plates: three cards of two ranks (need = 6 - held), no bombs.
    ok = ((window_counts(m.ge1, 2) + window_counts(m.ge2, 2) + window_counts(m.ge3, 2) + w3)
          >> 3) & UNITS14
    ok &= ~lanes_nonzero(window_counts(m.ge4, 2))
    add_windows(S, ok & (UNITS14 >> (4 * (14 - LAST_TWO_TRIPS_POS))),
                LAST_STRAIGHT_POS + LAST_THREE_PAIR_POS)
    S.nseq = 0
    S.seq_val = 0
    S.best_val = -(1 << 30)
    S.best_nseq = 0
    S.budget = PLAN_BUDGET


cdef int run_plan(u64 lo, u64 hi, int level, Plan* out) noexcept nogil:
    cdef Search S
    cdef int j, t, pos, w
    cdef RankMasks m
    search_init(&S, lo, hi, level)
    dfs(&S, 0, S.wilds)
    if out == NULL:
        return S.best_val
    out.n = 0
    out.value = 0
    out.weak = 0
    w = S.wilds
    for j in range(S.best_nseq):
        # The best path again, from the whole hand: the same counts at every step.
        t = S.best_t[j]
        pos = S.best_pos[j]
        rank_masks(S.cnt, &m)
        w -= seq_need(&m, t, S.best_win[j])
        take_seq(&S, &m, t, S.best_win[j])
        add_group(out, t, pos, 5 if t == T_STRAIGHT else 6, seq_value(t, pos), seq_control(t, pos))
    leaf(&S, w, out)
    return out.value


cdef void plan_hand(u64 lo, u64 hi, int level, Plan* out) noexcept nogil:
    run_plan(lo, hi, level, out)


cdef int plan_value(u64 lo, u64 hi, int level) noexcept nogil:
    return run_plan(lo, hi, level, NULL)


# ---------------------------------------------------------------------------------------------
# Playing from the plan

cdef struct View:
    # What the seat to move knows, read once per decision.
    int me
    int partner
    int level
    int counts[4]         # public card counts (UNKNOWN above the disclosure limit, 0 when out)
    Counts unseen         # the cards the seat cannot see (the other hands' union)
    u64 hand_lo
    u64 hand_hi
    const Plan* plan      # the memo's, or own
    Plan own


cdef inline int public_count(const GameState* s, int p) noexcept nogil:
    cdef int c = card_count(s.hand_lo[p], s.hand_hi[p])
    if c <= s.rules.disclosure:
        return c
    return UNKNOWN


cdef void expert_reset(ExpertMemo* memo) noexcept nogil:
    memo.lo = 0
    memo.hi = 0
    memo.level = -1
    memo.plan.n = 0


cdef void read_view(View* v, const GameState* s, ExpertMemo* memo) noexcept nogil:
    cdef int q
    cdef u64 ulo = 0, uhi = 0
    v.me = s.current
    v.partner = (v.me + 2) & 3
    v.level = s.level
    v.hand_lo = s.hand_lo[v.me]
    v.hand_hi = s.hand_hi[v.me] & HI_CARD_MASK
    for q in range(4):
        v.counts[q] = public_count(s, q)
        if q != v.me:
            # Only the union: the deck minus this hand and every card played (public).
            ulo += s.hand_lo[q] & LO_CARD_MASK
            uhi += s.hand_hi[q] & HI_CARD_MASK
    count_cards(&v.unseen, ulo, uhi, s.level)
    if memo == NULL:
        plan_hand(v.hand_lo, v.hand_hi, s.level, &v.own)
        v.plan = &v.own
        return
    if memo.level != s.level or memo.lo != v.hand_lo or memo.hi != v.hand_hi:
        plan_hand(v.hand_lo, v.hand_hi, s.level, &memo.plan)
        memo.lo = v.hand_lo
        memo.hi = v.hand_hi
        memo.level = s.level
    v.plan = &memo.plan


cdef int find_group(const Plan* P, int t, int key, int size) noexcept nogil:
    cdef int i
    for i in range(P.n):
        if P.g[i].type == t and P.g[i].key == key and P.g[i].size == size:
            return i
    return -1


cdef bint beatable(const View* v, int t, int key) noexcept nogil:
    """Could the unseen cards beat a same-rank group of this type and key (bombs aside)?"""
    cdef int r, val, need, have
    cdef const Counts* u = &v.unseen
    if t == T_SINGLE or t == T_PAIR or t == T_TRIPS or t == T_THREE_WITH_TWO:
        need = 1 if t == T_SINGLE else (2 if t == T_PAIR else 3)
        if u.hr >= need and VALUE_HR > key and need <= 2:
            return True
        if u.sb >= need and VALUE_SB > key and need <= 2:
            return True
        for r in range(N_RANKS):
            val = rank_value(r, v.level - 2)
            if val > key:
                have = u.cnt[r] + u.wilds
                if have >= need:
                    return True
        return False
    if is_bomb_type(t):
        return False
    return not seq_control(t, key)


cdef inline int rest_value(const View* v, u64 lo, u64 hi) noexcept nogil:
    """Plan value of the hand after playing (lo, hi)."""
    return plan_value(v.hand_lo - (lo & LO_CARD_MASK), v.hand_hi - (hi & HI_CARD_MASK), v.level)


cdef inline int move_size(u64 lo, u64 hi) noexcept nogil:
    return card_count(lo, hi)


cdef inline int bomb_rank(u64 lo, u64 hi, int level) noexcept nogil:
    cdef int tier, key
    tier_key(lo, hi, level, &tier, &key)
    return tier * 32 + key


cdef int choose_lead(const View* v, const u64* moves, int n, const ExpertKnobs* K) noexcept nogil:
    cdef int i, t, key, size, gi, score, best = -1, best_score = -(1 << 30), nbeat
    cdef int nxt = v.counts[(v.me + 1) & 3], prv = v.counts[(v.me + 3) & 3]
    cdef int pc = v.counts[v.partner]
    cdef bint feed = K.feed_partner and 0 < pc <= 2
    cdef bint running = False
    cdef u64 lo, hi
    cdef const Plan* P = v.plan
    if K.run_out and P.n > 2:
        # At most one group the unseen cards can beat: the others keep the lead (bombs
        # aside), so they go first and the beatable one goes out last.
        nbeat = 0
        for i in range(P.n):
            if not is_bomb_type(P.g[i].type) and beatable(v, P.g[i].type, P.g[i].key):
                nbeat += 1
                if nbeat > 1:
                    break       # most leads: two beatable groups are enough to know
        running = nbeat <= 1
    for i in range(n):
        lo = moves[2 * i]
        hi = moves[2 * i + 1]
        t = move_type(hi)
        if t == T_PASS:
            continue
        key = play_key(lo, hi, v.level)
        size = move_size(lo, hi)
        gi = find_group(P, t, key, size)
        if gi < 0:
            # Outside the plan only a low single or pair to feed a partner about to finish.
            if not (feed and (t == T_SINGLE or (t == T_PAIR and pc == 2))):
                continue
            score = 0
        else:
            # The weakest group first; a little more for more cards (harder to follow).
            score = -4 * P.g[gi].value + K.lead_size * size
            if not P.g[gi].control and not beatable(v, t, key):
                score -= K.unbeaten_keep       # a group nobody can beat wins the lead back: keep it
            if is_bomb_type(t):
                score -= 400
            if P.n == 2 and not beatable(v, t, key):
                score += 300        # keep the lead with the group nobody can beat, then out
            elif running and not is_bomb_type(t) and not beatable(v, t, key):
                score += 300        # the same with more groups: the lead kept to the last one
        if feed and ((pc == 1 and t == T_SINGLE) or (pc == 2 and t == T_PAIR)):
            score = 10000 - 40 * key      # the lowest one, whatever the plan
        # An opponent close to going out: not a play of his card count he could beat.
        if not is_bomb_type(t) and beatable(v, t, key):
            if 0 < nxt <= K.near_out and size == nxt:
                score -= 300 if nxt <= 2 else 80
            if 0 < prv <= K.near_out_other and size == prv:
                score -= 150 if prv <= 2 else 40
            if (0 < nxt <= 2 or 0 < prv <= 2) and t == T_SINGLE:
                score += 6 * key    # then the highest single
        if score > best_score:
            best_score = score
            best = i
    if best < 0:
        best = 0
        best_score = -(1 << 30)
        for i in range(n):
            hi = moves[2 * i + 1]
            if move_type(hi) == T_PASS:
                continue
            score = rest_value(v, moves[2 * i], hi)
            if is_bomb_type(move_type(hi)):
                score -= 100
            if score > best_score:
                best_score = score
                best = i
    return best


cdef int choose_follow(const View* v, const GameState* s, const u64* moves, int n,
                       int pass_i, const ExpertKnobs* K) noexcept nogil:
    """Following an opponent's top play."""
    cdef const Plan* P = v.plan
    cdef int i, t, key, size, gi, val, best = -1, best_val = 1 << 30
    cdef int bomb_i = -1, bomb_best = -(1 << 30), brk = -1, brk_best = -(1 << 30), sc
    cdef int top_t = move_type(s.top_hi)
    cdef int top_count = v.counts[s.top_seat]
    cdef int other_opp = (s.top_seat + 2) & 3
    cdef int oc = v.counts[other_opp]
    cdef int controls = P.n - P.weak, weak
    cdef bint urgent, attack, bombs_ok, triggered = False, best_control = False
    cdef u64 lo, hi
    # Urgent: an opponent about to go out; the top play's player just went out and his
    # partner would take the lead.
    urgent = ((0 < top_count <= K.near_out) or (0 < oc <= K.near_out_other)
              or (top_count == 0 and 0 < oc <= 10)
              or (0 < top_count <= K.bomb_at and not is_bomb_type(top_t)))
    # A bomb trigger: some seat still in holds few cards (a saver's bombs come out).
    for i in range(4):
        if 0 < v.counts[i] <= K.bomb_trigger:
            triggered = True
    # Control groups: the plan's, and any group the unseen cards cannot beat (card tracking).
    controls = 0
    weak = 0
    for i in range(P.n):
        if P.g[i].control or not beatable(v, P.g[i].type, P.g[i].key):
            controls += 1
        else:
            weak += 1
    attack = weak <= controls + K.attack_margin
    bombs_ok = urgent or triggered or K.bomb_free or (attack and K.bomb_on_attack)
    for i in range(n):
        lo = moves[2 * i]
        hi = moves[2 * i + 1]
        t = move_type(hi)
        if t == T_PASS:
            continue
        if is_bomb_type(t):
            bomb_i = i          # there is a bomb (which one: below, when one is spent)
            continue
        key = play_key(lo, hi, v.level)
        size = move_size(lo, hi)
        gi = find_group(P, t, key, size)
        if gi >= 0:
            val = P.g[gi].value
            if val < best_val:
                best_val = val
                best = i
                best_control = P.g[gi].control
    if bomb_i >= 0 and bombs_ok:
        # The bomb whose loss hurts the plan least, the lowest on the ladder among equals.
        for i in range(n):
            lo = moves[2 * i]
            hi = moves[2 * i + 1]
            if is_bomb_type(move_type(hi)):
                sc = 64 * rest_value(v, lo, hi) - bomb_rank(lo, hi, v.level)
                if sc > bomb_best:
                    bomb_best = sc
                    bomb_i = i
    if best >= 0:
        # A plan group that wins: shed it unless it is a control group worth keeping.
        if not best_control or urgent or attack or K.spend_control:
            return best
        if top_t <= T_THREE_WITH_TWO and play_key(s.top_lo, s.top_hi, v.level) >= 13:
            return best     # the opponent spent a high group: take the lead from him
    # Otherwise the play that hurts the plan least (it may break a group), when winning the
    # trick is worth what it costs the plan, or the situation is urgent.
    for i in range(n):
        lo = moves[2 * i]
        hi = moves[2 * i + 1]
        t = move_type(hi)
        if t == T_PASS or is_bomb_type(t):
            continue
        sc = rest_value(v, lo, hi)
        if sc > brk_best:
            brk_best = sc
            brk = i
    if brk >= 0 and (urgent or brk_best >= P.value - K.break_loss):
        return brk
    if bomb_i >= 0 and bombs_ok and (not is_bomb_type(top_t) or urgent or K.bomb_free):
        return bomb_i
    return pass_i if pass_i >= 0 else 0


cdef int choose_over_partner(const View* v, const GameState* s, const u64* moves, int n,
                             int pass_i, const ExpertKnobs* K) noexcept nogil:
    """The partner's play is on top: let it stand, except to shed a low loose group just
    above it while the partner is far from finishing (a style that ignores its partner beats
    it with its cheapest plan group, never a bomb)."""
    cdef const Plan* P = v.plan
    cdef int i, t, key, size, gi, best = -1, best_val = 1 << 30
    cdef int top_key = play_key(s.top_lo, s.top_hi, v.level)
    cdef int pc = v.counts[v.partner]
    cdef u64 lo, hi
    if not K.respect_partner:
        for i in range(n):
            hi = moves[2 * i + 1]
            t = move_type(hi)
            if t == T_PASS or is_bomb_type(t):
                continue
            gi = find_group(P, t, play_key(moves[2 * i], hi, v.level), move_size(moves[2 * i], hi))
            if gi >= 0 and P.g[gi].value < best_val:
                best_val = P.g[gi].value
                best = i
        if best >= 0:
            return best
        return pass_i if pass_i >= 0 else 0
    if pc <= K.shed_over_partner or top_key > 10 or move_type(s.top_hi) > T_TRIPS:
        return pass_i if pass_i >= 0 else 0
    for i in range(n):
        lo = moves[2 * i]
        hi = moves[2 * i + 1]
        t = move_type(hi)
        if t == T_PASS or is_bomb_type(t):
            continue
        key = play_key(lo, hi, v.level)
        size = move_size(lo, hi)
        gi = find_group(P, t, key, size)
        if gi >= 0 and not P.g[gi].control and key <= top_key + 2:
            return i
    return pass_i if pass_i >= 0 else 0


cdef int sf_windows(u64 lo, u64 hi, int level) noexcept nogil:
    """Natural straight-flush windows of a hand (five consecutive natural cards of one suit;
    the plan does not model suits, the exchange uses this to keep them)."""
    cdef int s, r, k, mask, ext, pos, total = 0, wk = wild_kind(level)
    for s in range(4):
        mask = 0
        for r in range(N_RANKS):
            k = s * N_RANKS + r
            if k != wk and kind_count(lo, hi, k) > 0:
                mask |= 1 << r
        ext = (mask << 1) | ((mask >> ACE_RANK) & 1)
        for pos in range(LAST_STRAIGHT_POS):
            if ((ext >> pos) & 31) == 31:
                total += 1
    return total


cdef int choose_exchange(const GameState* s, const u64* moves, int n,
                         const ExpertKnobs* K) noexcept nogil:
    """Tribute and return: the allowed card whose loss costs the plan least, keeping natural
    straight flushes (a return avoids a 5 or a 10, which helps the receiver's straights)."""
    cdef int me = s.current
    cdef int i, k, sc, best = 0, best_sc = -(1 << 30)
    cdef u64 lo, hi
    cdef u64 hlo = s.hand_lo[me], hhi = s.hand_hi[me] & HI_CARD_MASK
    for i in range(n):
        lo = moves[2 * i] & LO_CARD_MASK
        hi = moves[2 * i + 1] & HI_CARD_MASK
        sc = 40 * sf_windows(hlo - lo, hhi - hi, s.level)
        if K.return_plan:
            sc += K.return_plan * plan_value(hlo - lo, hhi - hi, s.level)
        if s.phase == PH_BACK:
            k = 0
            while k < 54 and kind_count(lo, hi, k) == 0:
                k += 1
            if k < 52 and (k % N_RANKS == 3 or k % N_RANKS == 8):
                sc -= K.return_spread
            sc -= single_value(k, s.level)
        if sc > best_sc:
            best_sc = sc
            best = i
    return best


cdef int expert_choose(const GameState* s, const u64* moves, int n, ExpertMemo* memo,
                       const ExpertKnobs* k) noexcept nogil:
    return expert_pick(s, moves, n, memo, k, True)


cdef int expert_rules_choose(const GameState* s, const u64* moves, int n, ExpertMemo* memo,
                             const ExpertKnobs* k) noexcept nogil:
    return expert_pick(s, moves, n, memo, k, False)


cdef inline int expert_pick(const GameState* s, const u64* moves, int n, ExpertMemo* memo,
                            const ExpertKnobs* k, bint endgame) noexcept nogil:
    """expert_choose's body; ``endgame`` False: never the exact end game (a memo then only
    saves the plan: the search's style models, search.pyx, replay many past decisions)."""
    cdef View v
    cdef int i, pass_i = -1
    cdef u64 hand_lo, hand_hi, hi
    if n <= 1:
        return 0
    if s.phase != PH_PLAY:
        return choose_exchange(s, moves, n, k)
    # Going out comes first (even over the partner).
    hand_lo = s.hand_lo[s.current]
    hand_hi = s.hand_hi[s.current] & HI_CARD_MASK
    for i in range(n):
        hi = moves[2 * i + 1]
        if move_type(hi) == T_PASS:
            pass_i = i
        elif moves[2 * i] == hand_lo and (hi & HI_CARD_MASK) == hand_hi:
            return i
    read_view(&v, s, memo)
    if s.top_seat < 0:
        i = choose_lead(&v, moves, n, k)
    elif s.top_seat == v.partner:
        i = choose_over_partner(&v, s, moves, n, pass_i, k)
    else:
        i = choose_follow(&v, s, moves, n, pass_i, k)
    if memo != NULL and endgame:
        return endgame_choose(s, moves, n, i)
    return i


cdef int endgame_choose(const GameState* s, const u64* moves, int n, int rule_i) noexcept nogil:
    """The end game played exactly: when every hand is known from public information (at most
    one other seat holds cards, solve.pxd hands_known) and few cards remain, a move keeping the
    solved value (the rules' move rule_i when it does); rule_i when not, or past the budget."""
    cdef Solver* S
    cdef int q, total = 0, i
    if not hands_known(s):
        return rule_i
    for q in range(4):
        total += card_count(s.hand_lo[q], s.hand_hi[q])
    if total > solve_at:
        return rule_i
    S = thread_solver()
    if S == NULL:
        return rule_i
    # A fresh table: the move depends on the position alone (a thread's earlier solves differ
    # with the thread count).
    solver_clear(S)
    i = solve_pick(S, s, moves, n, rule_i, solve_nodes)
    return i if i >= 0 else rule_i


# ---------------------------------------------------------------------------------------------
# Python access: the plan of a hand (docs, tests)

_TYPE_NAMES = {T_SINGLE: "Single", T_PAIR: "Pair", T_TRIPS: "Trips",
               T_THREE_WITH_TWO: "ThreeWithTwo", T_STRAIGHT: "Straight",
               T_THREE_PAIR: "ThreePair", T_TWO_TRIPS: "TwoTrips", T_BOMB: "Bomb",
               T_STRAIGHT_FLUSH: "StraightFlush"}


def endgame_limits(cards=None, nodes=None):
    """The expert's exact end game: solved when every hand is known and at most ``cards``
    cards remain (0: never), within ``nodes`` positions per decision. Sets the given ones
    (for every expert of the process, from the next decision on: set them before a run, not
    during one) and returns the previous ``(cards, nodes)``.

    >>> old = endgame_limits(cards=0)        # the rules alone
    >>> endgame_limits(*old) == (0, old[1])
    True
    >>> endgame_limits(nodes=0)
    Traceback (most recent call last):
    ...
    ValueError: nodes must be >= 1, got 0
    """
    global solve_at, solve_nodes
    old = (solve_at, solve_nodes)
    if cards is not None:
        cards = _validate.check_count(cards, "cards", 0, 108)
    if nodes is not None:
        nodes = _validate.check_count(nodes, "nodes", 1, 1 << 40)
    if cards is not None:
        solve_at = cards
    if nodes is not None:
        solve_nodes = nodes
    return old


def _hand_words(hand):
    """The words of a hand given as card text or codes (checked: 1..108 cards)."""
    from .cards import parse_cards
    from .moves import cards_to_words
    codes = parse_cards(hand)
    if not codes:
        raise ValueError("hand is empty")
    if len(codes) > 108:
        raise ValueError(f"a hand holds at most 108 cards, got {len(codes)}")
    return cards_to_words(codes)


def plan(hand, level=2):
    """The expert's plan of a hand: a list of groups, each a dict with ``type``, ``key``
    (single-order value 2..17 for same-rank groups: 15 the level rank, 16/17 the jokers; the
    lowest natural position 1..10 for sequences), ``size``, ``value`` and ``control``.

    >>> [(g['type'], g['key']) for g in plan('S2 H2 C5 D5 S5 C5', level=3)]
    [('Bomb', 5), ('Pair', 2)]
    >>> plan('', 2)
    Traceback (most recent call last):
    ...
    ValueError: hand is empty
    """
    from .cards import parse_level
    cdef Plan P
    cdef int lv = parse_level(level)
    lo, hi = _hand_words(hand)
    cdef u64 clo = lo, chi = hi
    with nogil:
        plan_hand(clo, chi, lv, &P)
    return [{"type": _TYPE_NAMES[P.g[i].type], "key": P.g[i].key, "size": P.g[i].size,
             "value": P.g[i].value, "control": bool(P.g[i].control)} for i in range(P.n)]


def hand_value(hand, level=2):
    """The value of the expert's plan of a hand (the sum of its groups' values, computed by the
    search without writing the groups): how the expert compares the hands a move or an
    exchange card would leave it.

    >>> hand_value('S2 H2 C5 D5 S5 C5', level=3) == sum(g['value'] for g in plan('S2 H2 C5 D5 S5 C5', 3))
    True
    >>> hand_value('S3 D4 C6 S7 H2', level=2) > hand_value('S3 D4 C6 S7 HK', level=2)  # wild fills the straight
    True
    """
    from .cards import parse_level
    cdef int lv = parse_level(level), v
    lo, hi = _hand_words(hand)
    cdef u64 clo = lo, chi = hi
    with nogil:
        v = plan_value(clo, chi, lv)
    return v


def choose(game, endgame=True, style="expert"):
    """The expert's move for the seat to move in a ``Game`` (one decision, among the compact
    legal moves), as a seat of the compiled loops plays it; ``endgame=False``: the rules' move
    alone (no exact end game, as the expert plays inside search rollouts); ``style``: one of
    ``STYLE_NAMES`` (the expert's variants, each its own agent).

    >>> from guandan_fast.game import Game
    >>> g = Game(seed=5)
    >>> m = choose(g)
    >>> m in g.legal_moves(compact=True), m == choose(g.clone())
    (True, True)
    """
    from .game import Game
    cdef GameState st
    cdef ExpertMemo memo
    cdef ExpertMemo* mp = &memo if endgame else NULL
    cdef int i, n
    cdef u64[::1] arr
    if not isinstance(game, Game):
        raise TypeError(f"game must be a guandan_fast.Game, not {type(game).__name__}")
    _validate.check_bool(endgame, "endgame")
    cdef const ExpertKnobs* kp = &_knobs[_style_index(style)]
    if game.is_over:
        raise ValueError("the match is over: no decision to make")
    memcpy(&st, game_state_ptr(game), sizeof(GameState))
    arr = game.legal_moves_array(compact=True).reshape(-1).copy()
    n = arr.shape[0] // 2
    expert_reset(&memo)
    with nogil:
        i = expert_choose(&st, &arr[0], n, mp, kp)
    return move_of(arr[2 * i], arr[2 * i + 1])

# The expert agent's C-level interface (implemented in expert.pyx; docs/expert.md).
#
# A rule-based player built on a hand plan (the split of the hand into the fewest, strongest
# plays). nogil, allocation-free and deterministic (no randomness); it reads only what the seat
# to move may know: its own hand, the union of the hands it cannot see (which is the deck minus
# its hand and every public play), card counts as the rules disclose them, the trick, the
# exchange cards and the finishing order.
from libc.stdint cimport int8_t
from guandan_fast.types cimport u64, HAND_SIZE
from guandan_fast.game_core cimport GameState

cdef struct Group:
    int8_t type           # T_* play type
    int8_t key            # play_key convention: 2..17 for same-rank groups, lowest position
                          # 1..10 for sequences
    int8_t size           # cards
    int8_t control        # does it win the lead back (A or higher, top sequences, bombs)?
    int value             # the group's worth in the plan (higher is better)

cdef struct Plan:
    int n                 # groups
    int value             # sum of the groups' values
    int weak              # groups that are not control groups
    Group g[HAND_SIZE + 1]

# The knobs of the expert's play, in one place (docs/expert.md "Knobs and styles"): every
# style of the gauntlet is one row of expert.pyx's table of them (STYLE_NAMES), and the tuning
# script (bench/tune_expert.py) searches over the `expert` row. The plan's group values are
# compiled constants (expert.pyx), the same for every style.
cdef enum:
    N_STYLES = 6          # the expert and its five variants (expert.pyx STYLE_NAMES)

cdef struct ExpertKnobs:
    int near_out          # an opponent on top (or the next seat, on lead) with this many cards
                          # or fewer is close to going out: urgent
    int near_out_other    # the same for the other opponent (the previous seat, on lead)
    int attack_margin     # attack (spend controls and bombs) when weak groups <= controls + this
    int shed_over_partner  # shed a low group over a partner holding more cards than this
    int break_loss        # plan value given up to win a trick from an opponent
    int bomb_at           # an opponent on top with this many cards or fewer: urgent (bomb him)
    int unbeaten_keep     # lead score kept back for a group no unseen cards can beat
    int bomb_trigger      # any seat at this many cards or fewer: bomb what the plan cannot
                          # beat (0: no trigger)
    int bomb_free         # 1: bomb any opponent play the plan cannot beat, from the first trick
    int bomb_on_attack    # 1: an attacking hand bombs; 0: bombs only when urgent or triggered
    int spend_control     # 1: control groups are played like any other group
    int lead_size         # lead score per card of the group (positive: long groups first)
    int feed_partner      # 1: feed a partner holding 1-2 cards the lowest single or pair
    int respect_partner   # 1: let the partner's play stand; 0: beat it like an opponent's
                          # (with a plan group, never a bomb)
    int return_plan       # weight of the plan value in the exchange choice (0: lowest card)
    int return_spread     # returning a 5 or a 10 (straight makers) costs this much
    int run_out           # 1: with at most one group the unseen cards can beat, lead the others
                          # (nobody beats them but a bomb) first, the beatable one last

# The knobs of a style: 0 the expert's own, 1.. the other styles (expert.pyx STYLE_NAMES;
# bots.pxd's AGENT_EXPERT + style is the agent code). Never NULL for 0 <= style < N_STYLES.
cdef ExpertKnobs* style_knobs(int style) noexcept nogil

# The plan of the hand last planned (one per seat, in the seat's Bot): a seat's hand does not
# change between its decisions until it plays, so most decisions reuse it.
cdef struct ExpertMemo:
    u64 lo
    u64 hi
    int level             # -1: empty
    Plan plan

# The best plan of a hand (lo, hi) at `level` (2..14).
cdef void plan_hand(u64 lo, u64 hi, int level, Plan* out) noexcept nogil

# The value of the best plan alone (the same search, no groups written).
cdef int plan_value(u64 lo, u64 hi, int level) noexcept nogil

# Empty a memo (before a match).
cdef void expert_reset(ExpertMemo* memo) noexcept nogil

# The index of the expert's move among the n moves game_legal wrote (compact list) for s.current.
# memo: the seat's memo, or NULL (then the plan is made afresh). With a memo (a seat of a match)
# the end game is played exactly when every hand is known (expert.pyx endgame_choose, through
# the thread's solver); without one (search rollouts and default moves) by the rules alone.
# k: the knobs of the style that plays (style_knobs).
cdef int expert_choose(const GameState* s, const u64* moves, int n, ExpertMemo* memo,
                       const ExpertKnobs* k) noexcept nogil
# The same by the rules alone, whatever the memo (which then only keeps the plan between calls
# on the same hand): the search's models of opponents' styles (search.pyx) replay many past
# decisions of a hand with it.
cdef int expert_rules_choose(const GameState* s, const u64* moves, int n, ExpertMemo* memo,
                             const ExpertKnobs* k) noexcept nogil

# cython: language_level=3
"""The ``Rules`` dataclass (python/guandan_fast/rules.py) converted to the compiled core's
``GameRulesC`` (game_core.pxd), once for every compiled module (rules_core.pxd).

>>> from guandan_fast.rules import Rules
>>> rules_check(Rules(ace_rule='double_only'))
>>> rules_check({'ace_rule': 'double_only'})
Traceback (most recent call last):
...
TypeError: rules must be a guandan_fast.Rules, not dict
"""
from libc.string cimport memset

from guandan_fast.game_core cimport GameRulesC

from .cards import KIND_OF
from .rules import CHOICES, Rules

# A switch's value is read by the core as its index in rules.CHOICES (game_core.pxd GameRulesC).


cdef GameRulesC rules_to_c(object rules) except *:
    """The §12 switches as the compiled game reads them (game_core.pxd GameRulesC)."""
    cdef GameRulesC r
    cdef int i
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a guandan_fast.Rules, not {type(rules).__name__}")
    memset(&r, 0, sizeof(GameRulesC))
    r.gen.sf_as_straight = rules.sf_as_straight
    r.gen.fullhouse_joker_pair = rules.fullhouse_joker_pair
    up = rules.upgrade_steps
    for i in range(3):
        r.up[i] = up[i]
    r.ace_rule = CHOICES["ace_rule"].index(rules.ace_rule)
    r.ace_fail_reset = min(127, rules.ace_fail_reset or 0)
    r.ace_reset_natural_aces = rules.ace_reset_on_natural_aces
    r.tribute_first_fourth = CHOICES["tribute_on_first_fourth"].index(rules.tribute_on_first_fourth)
    r.anti_tribute = rules.anti_tribute
    r.return_rule = CHOICES["return_rule"].index(rules.return_rule)
    r.double_tie = CHOICES["double_tie"].index(rules.double_tie)
    r.disclosure = min(127, rules.disclosure_threshold)
    r.first_leader = -1 if rules.first_leader == "random" else KIND_OF[rules.first_leader]
    return r


def rules_check(rules):
    """Raise if the compiled core cannot play under ``rules`` (TypeError, ValueError)."""
    rules_to_c(rules)

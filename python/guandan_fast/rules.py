"""The rules switches of docs/rules.md §12, validated on construction.

>>> Rules()
Rules()
>>> Rules(ace_rule='double_only', count_disclosure='always')
Rules(ace_rule='double_only', count_disclosure='always')
>>> Rules(upgrade='5-2-1')
Traceback (most recent call last):
...
ValueError: Rules.upgrade must be one of '3-2-1', '4-2-1'; got '5-2-1'
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields

from .cards import KIND_OF

CHOICES: dict[str, tuple] = {
    # 2nd / 3rd / 4th partner place -> levels gained.
    "upgrade": ("3-2-1", "4-2-1"),
    # When a team at its own A wins the match:
    #   partner_2nd_or_3rd (JS2023), double_only (PLAT: only 1st-and-2nd), any_win (casual).
    "ace_rule": ("partner_2nd_or_3rd", "double_only", "any_win"),
    # 4th pays 1st even when partners (default), no tribute, or the 3rd pays instead.
    "tribute_on_first_fourth": ("4th_pays", "none", "3rd_pays"),
    # Which cards a receiver may return.
    "return_rule": ("natural_2_10", "any", "any_but_received"),
    # Double-down with equal tribute cards: clockwise (each payer to his left-hand neighbour
    # prev(p)), or the 1st finisher chooses which card he takes.
    "double_tie": ("clockwise", "winners_choose"),
    # When card counts become public: exact at 10 or fewer, at 7 or fewer, or always.
    "count_disclosure": ("10", "7", "always"),
}


def partner_place(finish_order) -> int:
    """Where the first finisher's partner finished: 1 (2nd), 2 (3rd) or 3 (last, or not
    listed); a double-down may be listed with two seats (game_core.pxd partner_place is the
    compiled twin).

    >>> partner_place([0, 2]), partner_place([1, 0, 3, 2]), partner_place([2, 1, 3])
    (1, 2, 3)
    """
    order = list(finish_order)
    partner = order[0] ^ 2
    return order.index(partner) if partner in order else 3


@dataclass(frozen=True)
class Rules:
    """Every variant switch with its tournament default (JS2023).

    ``ace_fail_reset``: ``None`` (default) or N, the number of failed hands at the team's own A
    after which its level goes back to 2. ``ace_reset_on_natural_aces``: also back to 2 when
    the opponents' first finisher went out on a play of natural aces (a hand at the team's A).
    ``first_leader``: ``'random'`` or a card code whose holder leads the first hand.
    """

    upgrade: str = "3-2-1"
    ace_rule: str = "partner_2nd_or_3rd"
    ace_fail_reset: int | None = None
    ace_reset_on_natural_aces: bool = False
    sf_as_straight: bool = True
    fullhouse_joker_pair: bool = True
    tribute_on_first_fourth: str = "4th_pays"
    anti_tribute: bool = True
    return_rule: str = "natural_2_10"
    double_tie: str = "clockwise"
    count_disclosure: str = "10"
    first_leader: str = "random"

    def __post_init__(self) -> None:
        for name, choices in CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                allowed = ", ".join(repr(c) for c in choices)
                raise ValueError(f"Rules.{name} must be one of {allowed}; got {value!r}")
        for name in ("sf_as_straight", "fullhouse_joker_pair", "anti_tribute",
                     "ace_reset_on_natural_aces"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"Rules.{name} must be True or False; got {getattr(self, name)!r}")
        n = self.ace_fail_reset
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
            raise ValueError(f"Rules.ace_fail_reset must be None or an int >= 1; got {n!r}")
        fl = self.first_leader
        if fl != "random" and (fl not in KIND_OF or fl in ("SB", "HR")):
            raise ValueError(
                f"Rules.first_leader must be 'random' or a suited card code; got {fl!r}")

    @classmethod
    def platform(cls) -> "Rules":
        """The AI-competition platform's rules (docs/server.md, docs/rules.md §14): a team at
        its own A wins the match only 1st-and-2nd, goes back to 2 after 2 failed hands at A,
        and card counts are always public (``publicInfo`` ``rest``). The platform's draw after
        50 resets is not a rules switch: ``guandan-fast serve`` applies it (``--draw-after``).

        >>> Rules.platform()
        Rules(ace_rule='double_only', ace_fail_reset=2, count_disclosure='always')
        """
        return cls(ace_rule="double_only", ace_fail_reset=2, count_disclosure="always")

    @property
    def upgrade_steps(self) -> tuple[int, int, int]:
        """Levels gained when the winner's partner finishes 2nd, 3rd, 4th."""
        return (3, 2, 1) if self.upgrade == "3-2-1" else (4, 2, 1)

    def hand_levels(self, finish_order) -> int:
        """Levels a hand is worth to its winners: ``upgrade_steps`` by the place of the first
        finisher's partner (``partner_place``).

        >>> Rules().hand_levels([1, 0, 3, 2]), Rules(upgrade='4-2-1').hand_levels([0, 2])
        (2, 4)
        """
        return self.upgrade_steps[partner_place(finish_order) - 1]

    @property
    def disclosure_threshold(self) -> int:
        """A count at or below this is public (1000, above any hand size, when all are public)."""
        return {"10": 10, "7": 7, "always": 1000}[self.count_disclosure]

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Rules":
        names = {f.name for f in fields(cls)}
        unknown = set(d) - names
        if unknown:
            raise ValueError(f"unknown rules switch(es): {', '.join(sorted(unknown))}")
        return cls(**d)

    def __repr__(self) -> str:
        changed = [f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                   if getattr(self, f.name) != f.default]
        return f"Rules({', '.join(changed)})"

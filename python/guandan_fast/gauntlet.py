"""The gauntlet: one agent against each of a fixed set of play styles, with the worst case.

An agent that beats one style can lose to another (a search that models every opponent as the
expert is brittle against a bomb saver), so a strength claim is the **worst case** over
opponents of clearly different styles, not a result against one. ``GAUNTLET`` holds them:
``greedy``, ``expert`` and the expert's styles (docs/expert.md "The gauntlet"). ``gauntlet``
plays an agent against every member (but itself) in duplicate, as the tournament plays a pair
(docs/tournament.md), and names the member it does worst against: the lowest hand win rate.

>>> from guandan_fast.gauntlet import gauntlet
>>> res = gauntlet("greedy", deals=4, members=("random", "expert"))
>>> [p.b for p in res.pairs], res.worst.b
(['random', 'expert'], 'expert')
>>> res.worst.hand_win_rate < 0.5
True
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

from .agents import parse_agent
from .rules import Rules

__all__ = ["GAUNTLET", "GauntletResult", "gauntlet"]

#: The members, each a different style (docs/expert.md describes them).
GAUNTLET = ("greedy", "expert", "bomber", "saver", "shedder", "keeper", "solo")


@dataclass
class GauntletResult:
    """An agent's pairs against the gauntlet's members (``result``: the ``TournamentResult``
    of those pairs, each seen from the agent's side) and the worst of them."""

    agent: str
    result: object

    @property
    def pairs(self) -> list:
        return self.result.pairs

    @property
    def worst(self):
        """The pair with the lowest hand win rate (then the lowest lower bound)."""
        return min(self.pairs, key=lambda p: (p.hand_win_rate, p.hand_ci_paired[0]))

    def to_dict(self) -> dict:
        """The tournament's JSON (docs/tournament.md) with a ``gauntlet`` entry: the agent,
        the members and the worst pair."""
        w = self.worst
        out = self.result.to_dict()
        out["gauntlet"] = {"agent": self.agent, "members": [p.b for p in self.pairs],
                           "worst": {k: v for k, v in w.to_dict().items()
                                     if k in ("b", "hand_win_rate", "match_win_rate")}}
        return out

    def to_json(self, path: str | os.PathLike | None = None) -> str:
        """The result as JSON text, also written to ``path`` when given."""
        from .tournament import json_text

        return json_text(self.to_dict(), path)

    def table(self) -> str:
        """One line per member (the agent's hand and match win rates with their paired 95%
        intervals, levels per hand of each side), then the worst case."""
        r = self.result
        lines = [f"gauntlet of {self.agent}: {len(self.pairs)} member(s), {r.deals} deals x 2 "
                 f"seatings each, seed {r.seed}, {r.elapsed:.2f} s"]
        if r.rules != Rules():
            lines.append(f"rules: {r.rules!r}")
        lines.append("")
        w = max(8, max(len(p.b) for p in self.pairs))
        head = (f"{'member':<{w}}  {'hands':>6}  {'hand win % [paired 95%]':<26}"
                f"{'match win % [paired 95%]':<27}levels/hand A / B")
        lines += [head, "-" * len(head)]

        def rate(x, ci):
            return f"{100 * x:5.1f} [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"

        for p in self.pairs:
            lines.append(f"{p.b:<{w}}  {p.hands:>6}  {rate(p.hand_win_rate, p.hand_ci_paired):<26}"
                         f"{rate(p.match_win_rate, p.match_ci_paired):<27}"
                         f"{p.levels_per_hand_a:.2f} / {p.levels_per_hand_b:.2f}")
        x = self.worst
        lines += ["", f"worst case: {x.b}, hand win {rate(x.hand_win_rate, x.hand_ci_paired)} %, "
                      f"match win {rate(x.match_win_rate, x.match_ci_paired)} %"]
        return "\n".join(lines)

    def plot(self, path: str | os.PathLike) -> None:
        """The tournament's plot of these pairs (``TournamentResult.plot``)."""
        self.result.plot(path)


def gauntlet(agent, deals: int, seed: int = 0, rules: Rules = Rules(), workers: int = 1,
             members=GAUNTLET, record: str | os.PathLike | None = None,
             progress: Callable[[int], object] | None = None, **options) -> GauntletResult:
    """Play ``agent`` (any agent spec) against each of ``members`` (default ``GAUNTLET``; a
    member with the agent's own name is left out) over ``deals`` duplicate deals each, with
    the tournament's seeds, workers, records and Ctrl-C (``tournament()``): the same result
    for every ``workers`` count. ``options`` go to ``tournament()`` as they are: with
    ``external={"mybot": "python mybot.py {url}"}`` (and its ``decision_timeout``,
    ``on_fault``, ...) a platform client program runs the gauntlet as ``agent="mybot"``.

    >>> gauntlet("expert", deals=1, members=("expert",))
    Traceback (most recent call last):
    ...
    ValueError: the gauntlet of 'expert' has no member but the agent itself
    """
    from .tournament import tournament

    external = options.get("external") or {}
    if isinstance(agent, str) and agent.strip() in external:
        a = name = agent.strip()          # an external agent: the tournament launches it
    else:
        a = parse_agent(agent)
        name = a.name
    if isinstance(members, str):
        members = [m.strip() for m in members.split(",")]
    others = [m for m in members if parse_agent(m).name != name]
    if not others:
        raise ValueError(f"the gauntlet of {name!r} has no member but the agent itself")
    res = tournament([a, *others], deals=deals, seed=seed, rules=rules, workers=workers,
                     record=record, progress=progress, first_only=True, **options)
    return GauntletResult(agent=name, result=res)

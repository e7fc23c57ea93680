"""Duplicate tournament: every pair of agents plays the same deals from both sides.

``tournament(agents, deals)`` pairs the agents in every combination (round robin). For each
pair ``(A, B)`` and each deal ``d`` it plays two whole matches from the same deal seed
(``simulate``'s match ``d``): A on seats 0 and 2 against B on 1 and 3, then the teams swapped.
Both agents so get the same cards, the luck of the deal cancels out within a deal, and the
deal is the independent unit of the statistics (docs/tournament.md).

>>> from guandan_fast.tournament import tournament
>>> res = tournament(["greedy", "random"], deals=30, seed=1)
>>> p = res.pairs[0]
>>> (p.a, p.b, p.deals, p.matches)
('greedy', 'random', 30, 60)
>>> p.match_win_rate > 0.5 and p.match_ci_paired[0] > 0.5      # greedy is clearly stronger
True
>>> res == tournament(["greedy", "random"], deals=30, seed=1, workers=2)
True

Agents: the built-in bots and the compiled search agents by name (``simulate.AGENTS``; search
agents with their budget, ``pimc:samples=16``: docs/search.md), or a Python callable
``f(observation, legal_moves) -> move`` given as the string ``"module:function"`` (or as the
callable itself). ``observation`` is ``Game.observation(seat)``, ``legal_moves`` the
``Game.legal_moves()`` list; the move returned must be one of them (a ``Move`` or a platform
action). A pair of compiled agents plays in compiled code (threads, no GIL); a pair with a
Python agent is played by a Python loop over the compiled ``Game`` (in a pool of forked
processes when ``workers > 1``).

Reproducibility: deal ``d`` is dealt from ``match_seed(seed, d)``, each seat's bot from its own
stream derived from it; results are gathered in deal order, so they are the same for every
``workers`` count (Python agents must be deterministic themselves for this to hold).
"""

from __future__ import annotations

import importlib
import itertools
import json
import math
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from .rules import Rules
from .validate import check_callable, check_count, check_rules, check_seed

__all__ = ["tournament", "TournamentResult", "PairResult", "wilson_interval",
           "clustered_wilson_interval", "t_quantile", "mean_interval"]

Z95 = 1.959963984540054   # the 0.975 quantile of the standard normal
CHUNK = 4                 # deals per unit of work (both seatings of each)
_COLUMNS = ("winner", "hands", "hand_wins_0", "hand_wins_1", "levels_0", "levels_1")


# -- statistics ------------------------------------------------------------------------------

def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion ``k / n`` (95% by default).

    >>> lo, hi = wilson_interval(0, 10); round(lo, 4), round(hi, 4)
    (0.0, 0.2775)
    >>> wilson_interval(3, 0)
    Traceback (most recent call last):
    ...
    ValueError: wilson_interval: n must be >= 1 and 0 <= k <= n, got k=3, n=0
    """
    if n < 1 or not 0 <= k <= n:
        raise ValueError(f"wilson_interval: n must be >= 1 and 0 <= k <= n, got k={k}, n={n}")
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _t_two_sided_mass(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with integer ``df`` (closed forms, Abramowitz-Stegun 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2 == 1:
        if df == 1:
            return 2 * theta / math.pi
        term, total = 1.0, 1.0
        for j in range(1, (df - 1) // 2):       # terms cos^2j with ratios (2j)/(2j+1)
            term *= c2 * (2 * j) / (2 * j + 1)
            total += term
        return 2 / math.pi * (theta + math.sin(theta) * math.cos(theta) * total)
    term, total = 1.0, 1.0
    for j in range(1, df // 2):                 # terms cos^2j with ratios (2j-1)/(2j)
        term *= c2 * (2 * j - 1) / (2 * j)
        total += term
    return math.sin(theta) * total


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile (``p > 0.5``) of Student's t with ``df`` degrees of freedom.

    Exact (bisection on the closed-form distribution function) up to 1000 degrees of
    freedom, the Cornish-Fisher expansion beyond (error below 1e-9 there).

    >>> round(t_quantile(0.975, 1), 4), round(t_quantile(0.975, 10), 4)
    (12.7062, 2.2281)
    """
    if not 0.5 < p < 1:
        raise ValueError(f"t_quantile: p must be in (0.5, 1), got {p}")
    if isinstance(df, bool) or not isinstance(df, int) or df < 1:
        raise ValueError(f"t_quantile: df must be an int >= 1, got {df!r}")
    from statistics import NormalDist

    z = NormalDist().inv_cdf(p)
    if df > 1000:
        v = float(df)
        return (z + (z ** 3 + z) / (4 * v) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * v ** 2)
                + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * v ** 3)
                + (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z)
                / (92160 * v ** 4))
    target = 2 * p - 1
    lo, hi = 0.0, 1.0
    while _t_two_sided_mass(hi, df) < target:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if _t_two_sided_mass(mid, df) < target:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * hi:
            break
    return (lo + hi) / 2


def mean_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float] | None:
    """Student's t interval for the mean of i.i.d. ``values`` (None with fewer than 2).

    >>> mean_interval([1.0, 2.0, 3.0])                        # 2 +- t(0.975, 2) / sqrt(3)
    (-0.4841377117504977, 4.484137711750497)
    """
    n = len(values)
    if n < 2:
        return None
    m = math.fsum(values) / n
    var = math.fsum((x - m) ** 2 for x in values) / (n - 1)
    half = t_quantile(0.5 + level / 2, n - 1) * math.sqrt(var / n)
    return m - half, m + half


def clustered_wilson_interval(nums: Sequence[float], dens: Sequence[float],
                              z: float = Z95) -> tuple[float, float]:
    """The Wilson interval of the ratio ``sum(nums) / sum(dens)`` of clustered trials
    (cluster ``i``: ``nums[i]`` successes in ``dens[i]`` trials), with the effective sample
    size of the clusters' variance (Kish; Korn and Graubard 1998): ``n_eff = r(1 - r) / v``,
    ``v`` the linearised variance of the ratio over clusters. Falls back to ``n_eff`` = the
    number of clusters when ``v`` is 0 or ``r`` is 0 or 1.

    Four deals won 2-0, 2-0, 0-2, 0-2: r = 0.5, v = 4/3 * 4 / 64, so n_eff = 3 (not 8 matches):

    >>> lo, hi = clustered_wilson_interval([2, 2, 0, 0], [2, 2, 2, 2]); round(lo, 3), round(hi, 3)
    (0.125, 0.875)
    """
    n = len(nums)
    if n < 1 or len(dens) != n or sum(dens) <= 0:
        raise ValueError(f"clustered_wilson_interval: need one or more clusters with trials, "
                         f"got {n} and {len(dens)}")
    total = math.fsum(dens)
    r = math.fsum(nums) / total
    v = (n / (n - 1) * math.fsum((a - r * b) ** 2 for a, b in zip(nums, dens)) / total ** 2
         if n > 1 else 0.0)
    n_eff = r * (1 - r) / v if v > 0 and 0 < r < 1 else float(n)
    z2 = z * z
    centre = (r + z2 / (2 * n_eff)) / (1 + z2 / n_eff)
    half = z * math.sqrt(r * (1 - r) / n_eff + z2 / (4 * n_eff ** 2)) / (1 + z2 / n_eff)
    return max(0.0, centre - half), min(1.0, centre + half)


# -- agents ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Agent:
    name: str
    kind: int | None = None              # compiled agent code (None: a Python callable)
    spec: tuple | None = None            # a search agent's (name, parameters), search.pyx
    func: Callable | None = field(default=None, compare=False)


_SEARCH = ("pimc", "ismcts")      # compiled search agents: NAME[:KEY=VALUE...] (docs/search.md)


def _builtin_codes() -> dict:
    from .simulate_core import AGENT_CODES  # compiled

    return dict(AGENT_CODES)


def _import_target(spec: str) -> Callable:
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise ValueError(f"agent {spec!r}: a Python agent is 'module:function'")
    try:
        obj = importlib.import_module(module)
    except ImportError as exc:
        raise ValueError(f"agent {spec!r}: cannot import module {module!r} ({exc})") from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ValueError(f"agent {spec!r}: module {module!r} has no attribute {attr!r}") \
                from None
    if not callable(obj):
        raise ValueError(f"agent {spec!r}: {attr!r} is not callable "
                         f"(expected f(observation, legal_moves) -> move)")
    return obj


def _resolve(agent, codes: dict) -> _Agent:
    if callable(agent) and not isinstance(agent, str):
        name = f"{getattr(agent, '__module__', '?')}:{getattr(agent, '__qualname__', '?')}"
        return _Agent(name=name, func=agent)
    if not isinstance(agent, str):
        raise TypeError(f"an agent is a name or a callable, not {type(agent).__name__}")
    name = agent.strip()
    base = name.split(":", 1)[0]
    if name in codes and name not in _SEARCH:
        return _Agent(name=name, kind=codes[name])
    if base in _SEARCH and base in codes:
        from .search import parse_agent  # compiled; ValueError names a bad parameter

        base, params = parse_agent(name)
        return _Agent(name=name, kind=codes[base], spec=(base, params))
    if ":" in name:
        return _Agent(name=name, func=_import_target(name))
    raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(codes)}, "
                     f"or a Python callable as 'module:function'")


def _check_agents(agents) -> list[_Agent]:
    if isinstance(agents, str):
        agents = [a for a in agents.split(",")]
    try:
        items = list(agents)
    except TypeError:
        raise TypeError(f"agents must be a list of agents, not {type(agents).__name__}") from None
    if len(items) < 2:
        raise ValueError(f"agents must name at least 2 agents, got {len(items)}")
    codes = _builtin_codes()
    out = [_resolve(a, codes) for a in items]
    names = [a.name for a in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"agents must be distinct; repeated: {', '.join(dup)}")
    return out


# -- playing ---------------------------------------------------------------------------------

def _seating(a: _Agent, b: _Agent, s: int) -> tuple:
    """Agents by seat: seating 0 puts ``a`` on seats 0 and 2, seating 1 on 1 and 3."""
    return (a, b, a, b) if s == 0 else (b, a, b, a)


def _outcome_of(game) -> list[int]:
    """A finished Game's outcome row (the columns of tournament_core.OUTCOME_COLUMNS)."""
    up = game.rules.upgrade_steps
    row = [game.winner, 0, 0, 0, 0, 0]
    for r in game.results:
        order = r["finish_order"]
        team = order[0] & 1
        partner = order[0] ^ 2
        place = order.index(partner) if partner in order else 3
        row[1] += 1
        row[2 + team] += 1
        row[4 + team] += up[place - 1]
    return row


def _play_python(mseed: int, seats: tuple, rules: Rules):
    """One match with at least one Python agent: a Python loop over the compiled Game; the
    built-in bots' moves come from tournament_core.BotSeats (the same as compiled play)."""
    from .game import Game
    from .moves import IllegalMoveError, Move
    from .tournament_core import BotSeats

    game = Game(seed=mseed, rules=rules)
    kinds = [a.kind for a in seats]
    bots = (BotSeats(mseed, kinds, rules, [a.spec for a in seats])
            if any(k is not None for k in kinds) else None)
    while not game.is_over:
        p = game.current_player
        agent = seats[p]
        if agent.kind is not None:
            lo, hi = bots.choose()
            game.play_words(lo, hi)
        else:
            legal = game.legal_moves()
            move = agent.func(game.observation(p), legal)
            if isinstance(move, (list, tuple)) and not isinstance(move, Move):
                try:
                    move = Move.from_platform(move, game.level)
                except (TypeError, ValueError) as exc:
                    raise IllegalMoveError(f"agent {agent.name} returned {move!r}: {exc}") \
                        from None
            if not isinstance(move, Move) or move not in legal:
                raise IllegalMoveError(f"agent {agent.name} returned {move!r}, which is not one "
                                       f"of the {len(legal)} legal moves of seat {p}")
            i = legal.index(move)
            lo, hi = (int(w) for w in legal.array[i])
            game.play_index(i)
        if bots is not None:
            bots.apply(lo, hi)
    return game


def _deal_seed(seed: int, d: int) -> int:
    from .tournament_core import deal_match_seed

    return deal_match_seed(seed, d)


def _job_python(seed: int, pair: tuple, d0: int, d1: int, rules: Rules) -> list:
    rows = []
    for d in range(d0, d1):
        ms = _deal_seed(seed, d)
        for s in (0, 1):
            rows.append(_outcome_of(_play_python(ms, _seating(*pair, s), rules)))
    return rows


def _job_compiled(seed: int, pair: tuple, d0: int, d1: int, rules: Rules) -> list:
    from .tournament_core import play_matches

    seatings = [_seating(*pair, s) for s in (0, 1)]
    return play_matches(seed, [d for d in range(d0, d1) for _ in (0, 1)],
                        [s for _ in range(d0, d1) for s in (0, 1)],
                        [[a.kind for a in seats] for seats in seatings], rules,
                        search=[[a.spec for a in seats] for seats in seatings])


# The process pool's side: forked workers find the pairs here (inherited memory, so any
# callable works, importable or not), set just before the pool starts.
_FORKED: dict = {}


def _worker_init() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the parent handles Ctrl-C and stops us


def _worker_run(j: int):
    pi, d0, d1 = _FORKED["jobs"][j]
    return j, _job_python(_FORKED["seed"], _FORKED["pairs"][pi], d0, d1, _FORKED["rules"])


# -- results ---------------------------------------------------------------------------------

def _r(x, digits=6):
    return None if x is None else round(float(x), digits)


@dataclass
class PairResult:
    """The duplicate comparison of agent ``a`` with agent ``b`` (from ``a``'s side).

    ``match_win_rate``: share of the ``2 * deals`` matches ``a`` won, with the Wilson interval
    treating the matches as independent (``match_ci``) and the duplicate interval
    (``match_ci_paired``: deals as the independent units, ``clustered_wilson_interval``);
    ``hand_win_rate``: share of the hands won, the same two intervals (``hand_ci``,
    ``hand_ci_paired``); ``levels_per_hand_a/b``: levels each side won per hand;
    ``net_levels``: mean over deals of (a's levels - b's levels) per match, with Student's t
    interval over the deals (``net_levels_ci``, None for a single deal).
    """

    a: str
    b: str
    deals: int
    matches: int
    wins_a: int
    hands: int
    hand_wins_a: int
    levels_a: int
    levels_b: int
    match_win_rate: float
    match_ci: tuple
    match_ci_paired: tuple
    hand_win_rate: float
    hand_ci: tuple
    hand_ci_paired: tuple
    levels_per_hand_a: float
    levels_per_hand_b: float
    net_levels: float
    net_levels_ci: tuple | None
    # The outcome rows (tournament_core.OUTCOME_COLUMNS), deal by deal, seating 0 then 1.
    _rows: object = field(default=None, repr=False, compare=False)

    @property
    def verdict(self) -> str:
        """Which agent the paired interval shows stronger (``'='`` when it includes 50%)."""
        ci = self.match_ci_paired
        if ci[0] > 0.5:
            return self.a
        if ci[1] < 0.5:
            return self.b
        return "="

    def to_dict(self) -> dict:
        return {
            "a": self.a, "b": self.b, "deals": self.deals, "matches": self.matches,
            "match_wins": {"a": self.wins_a, "b": self.matches - self.wins_a},
            "match_win_rate": {"value": _r(self.match_win_rate),
                               "ci_wilson": [_r(x) for x in self.match_ci],
                               "ci_paired": [_r(x) for x in self.match_ci_paired]},
            "hands": self.hands,
            "hand_wins": {"a": self.hand_wins_a, "b": self.hands - self.hand_wins_a},
            "hand_win_rate": {"value": _r(self.hand_win_rate),
                              "ci_wilson": [_r(x) for x in self.hand_ci],
                              "ci_paired": [_r(x) for x in self.hand_ci_paired]},
            "levels": {"a": self.levels_a, "b": self.levels_b,
                       "a_per_hand": _r(self.levels_per_hand_a),
                       "b_per_hand": _r(self.levels_per_hand_b),
                       "net_per_match": _r(self.net_levels),
                       "net_per_match_ci": None if self.net_levels_ci is None
                       else [_r(x) for x in self.net_levels_ci]},
            "stronger": None if self.verdict == "=" else self.verdict,
        }


def _pair_result(a: str, b: str, rows) -> PairResult:
    """Statistics of a pair from its outcome rows, an ``(2N, 6)`` int64 array (deal by deal:
    seating 0, where ``a`` is team 0, then seating 1)."""
    import numpy as np

    r0, r1 = rows[0::2], rows[1::2]
    n = len(r0)
    wins_d = (r0[:, 0] == 0).astype(np.int64) + (r1[:, 0] == 1)
    hands_d = r0[:, 1] + r1[:, 1]
    hwins_d = r0[:, 2] + r1[:, 3]
    lev_a_d, lev_b_d = r0[:, 4] + r1[:, 5], r0[:, 5] + r1[:, 4]
    wins, hands, hand_wins = int(wins_d.sum()), int(hands_d.sum()), int(hwins_d.sum())
    lev_a, lev_b = int(lev_a_d.sum()), int(lev_b_d.sum())
    nets = ((lev_a_d - lev_b_d) / 2).tolist()
    return PairResult(
        a=a, b=b, deals=n, matches=2 * n, wins_a=wins, hands=hands, hand_wins_a=hand_wins,
        levels_a=lev_a, levels_b=lev_b, match_win_rate=wins / (2 * n),
        match_ci=wilson_interval(wins, 2 * n),
        match_ci_paired=clustered_wilson_interval(wins_d.tolist(), [2] * n),
        hand_win_rate=hand_wins / hands, hand_ci=wilson_interval(hand_wins, hands),
        hand_ci_paired=clustered_wilson_interval(hwins_d.tolist(), hands_d.tolist()),
        levels_per_hand_a=lev_a / hands, levels_per_hand_b=lev_b / hands,
        net_levels=math.fsum(nets) / n, net_levels_ci=mean_interval(nets), _rows=rows)


@dataclass
class TournamentResult:
    """The outcome of ``tournament()``: one ``PairResult`` per pair, in combination order.

    ``standings``: per agent, matches won and played over all its pairs. Equality (and
    ``to_dict``) ignores ``workers`` and ``elapsed``.
    """

    agents: tuple
    deals: int
    seed: int
    rules: Rules
    pairs: list
    workers: int = field(default=1, compare=False)
    elapsed: float = field(default=0.0, compare=False)

    def pair(self, a: str, b: str) -> PairResult:
        """The result of ``a`` against ``b`` (seen from ``a``'s side, whichever was listed
        first)."""
        import numpy as np

        for p in self.pairs:
            if (p.a, p.b) == (a, b):
                return p
            if (p.a, p.b) == (b, a):
                # b is team 0 in each deal's second match: swap the two rows of every deal.
                rows = p._rows
                return _pair_result(a, b, rows[np.arange(len(rows)) ^ 1])
        raise ValueError(f"no pair {a!r} / {b!r} in this tournament")

    @property
    def standings(self) -> dict:
        out = {name: {"match_wins": 0, "matches": 0} for name in self.agents}
        for p in self.pairs:
            out[p.a]["match_wins"] += p.wins_a
            out[p.b]["match_wins"] += p.matches - p.wins_a
            out[p.a]["matches"] += p.matches
            out[p.b]["matches"] += p.matches
        return out

    def to_dict(self) -> dict:
        return {"format": "guandan-fast-tournament", "version": 1,
                "agents": list(self.agents), "deals": self.deals, "seed": self.seed,
                "rules": self.rules.to_dict(), "confidence": 0.95,
                "pairs": [p.to_dict() for p in self.pairs],
                "standings": self.standings}

    def to_json(self, path: str | os.PathLike | None = None) -> str:
        """The result as JSON text (docs/tournament.md), also written to ``path`` when given."""
        text = json.dumps(self.to_dict(), indent=2) + "\n"
        if path is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        return text

    def table(self) -> str:
        """A readable table of the pairs (rates in %, 95% intervals in brackets)."""
        workers = f"{self.workers} worker" + ("s" if self.workers != 1 else "")
        lines = [f"duplicate tournament: {len(self.agents)} agents, {len(self.pairs)} pair(s), "
                 f"{self.deals} deals x 2 seatings, seed {self.seed}, {workers}, "
                 f"{self.elapsed:.2f} s"]
        if self.rules != Rules():
            lines.append(f"rules: {self.rules!r}")
        lines.append("")
        w = max(8, max(len(a) for a in self.agents))
        head = (f"{'A':<{w}}  {'B':<{w}}  {'A match win % [Wilson] [paired]':<40}"
                f"{'A hand win % [paired]':<24}{'A-B levels/match [paired]':<28}stronger")
        lines.append(head)
        lines.append("-" * len(head))

        def pct(x):
            return f"{100 * x:.1f}"

        def ci(c, f=pct):
            return "[   n/a   ]" if c is None else f"[{f(c[0])}, {f(c[1])}]"

        def num(x):
            return f"{x:+.2f}"

        for p in self.pairs:
            m = f"{pct(p.match_win_rate):>5} {ci(p.match_ci)} {ci(p.match_ci_paired)}"
            h = f"{pct(p.hand_win_rate):>5} {ci(p.hand_ci_paired)}"
            lv = f"{num(p.net_levels):>6} {ci(p.net_levels_ci, num)}"
            lines.append(f"{p.a:<{w}}  {p.b:<{w}}  {m:<40}{h:<24}{lv:<28}{p.verdict}")
        lines.append("")
        lines.append("standings (match wins / matches): " + ", ".join(
            f"{n} {s['match_wins']}/{s['matches']}" for n, s in self.standings.items()))
        return "\n".join(lines)

    def plot(self, path: str | os.PathLike) -> None:
        """Draw the pairs' match and hand win rates with their intervals as an SVG file."""
        from .plot import tournament_svg

        if not str(path).lower().endswith(".svg"):
            raise ValueError(f"plot path must end in .svg (the plot is written as SVG), "
                             f"got {str(path)!r}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(tournament_svg(self))


# -- the run ---------------------------------------------------------------------------------

class _Collector:
    """Job results by index; progress and stop flag (Ctrl-C / failure) under one lock."""

    def __init__(self, jobs: list, progress) -> None:
        self.lock = threading.Lock()
        self.jobs = jobs
        self.next = 0
        self.results: dict = {}
        self.done = 0
        self.progress = progress
        self.stop = False
        self.error: BaseException | None = None

    def take(self, allowed) -> int | None:
        with self.lock:
            while self.next < len(self.jobs) and not self.stop:
                j = self.next
                self.next += 1
                if allowed(j):
                    return j
            return None

    def put(self, j: int, rows: list) -> None:
        with self.lock:
            self.results[j] = rows
            self.done += len(rows)
            if self.progress is not None:
                self.progress(self.done)

    def fail(self, exc: BaseException) -> None:
        with self.lock:
            if self.error is None:
                self.error = exc
            self.stop = True


def tournament(agents, deals: int, seed: int = 0, rules: Rules = Rules(), workers: int = 1,
               record: str | os.PathLike | None = None,
               progress: Callable[[int], object] | None = None,
               cluster: str | None = None, address: str | None = None) -> TournamentResult:
    """Play a duplicate round robin of ``agents`` over ``deals`` deals; see the module doc.

    ``agents``: at least two distinct agents (names, ``"module:function"`` strings or
    callables; or one comma-separated string). ``workers``: threads for the compiled pairs and
    processes for the Python ones. ``record``: a path; every match is also written there as
    JSON Lines game records (``records.py``), pair by pair, deal by deal, seating 0 then 1,
    each header with a ``"tournament"`` entry naming the seats' agents (played in the calling
    thread). ``progress(n)`` is called with the matches done. ``cluster='ray'``: the deals are
    played as Ray tasks on the cluster at ``address``, with the same result (Python agents
    must then be importable or picklable on the workers; not with ``record``;
    docs/distributed.md).

    >>> tournament(["greedy"], deals=5)
    Traceback (most recent call last):
    ...
    ValueError: agents must name at least 2 agents, got 1
    >>> tournament("greedy,smart", deals=5)                       # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown agent 'smart'; known agents: random, random_compact, greedy, ...
    """
    from .simulate import check_cluster

    roster = _check_agents(agents)
    deals = check_count(deals, "deals", 1)
    seed = check_seed(seed)
    check_rules(rules)
    workers = check_count(workers, "workers", 1)
    check_callable(progress, "progress", optional=True)
    check_cluster(cluster, address)
    if cluster is not None and record is not None:
        raise ValueError("record= is not available with cluster='ray' (record on one machine)")
    from .simulate_core import rules_check

    rules_check(rules)

    pairs = list(itertools.combinations(roster, 2))
    jobs = [(pi, d0, min(d0 + CHUNK, deals)) for pi in range(len(pairs))
            for d0 in range(0, deals, CHUNK)]
    col = _Collector(jobs, progress)

    def compiled(j):
        return all(a.kind is not None for a in pairs[jobs[j][0]])

    t0 = time.perf_counter()
    if cluster == "ray":
        from .distributed import tournament_on_ray

        tournament_on_ray(col, pairs, seed, rules, address)
    elif record is not None:
        _run_recorded(col, pairs, seed, rules, record)
    else:
        _run_threads(col, pairs, seed, rules, workers, compiled)
        col.next = 0
        _run_python(col, pairs, seed, rules, workers, lambda j: not compiled(j))
    elapsed = time.perf_counter() - t0

    import numpy as np

    results = []
    for pi, (a, b) in enumerate(pairs):
        rows = np.concatenate([np.asarray(col.results[j], dtype=np.int64).reshape(-1, 6)
                               for j, job in enumerate(jobs) if job[0] == pi])
        results.append(_pair_result(a.name, b.name, rows))
    return TournamentResult(agents=tuple(a.name for a in roster), deals=deals, seed=seed,
                            rules=rules, pairs=results, workers=workers, elapsed=elapsed)


def _run_threads(col, pairs, seed, rules, workers, allowed) -> None:
    from .simulate import run_workers

    def worker() -> None:
        try:
            while True:
                j = col.take(allowed)
                if j is None:
                    return
                pi, d0, d1 = col.jobs[j]
                col.put(j, _job_compiled(seed, pairs[pi], d0, d1, rules))
        except BaseException as exc:  # re-raised in the calling thread
            col.fail(exc)

    # Ctrl-C in the calling thread: the workers stop after their current job.
    run_workers(workers, worker, col.fail, "guandan-tourney")
    if col.error is not None:
        raise col.error


def _run_python(col, pairs, seed, rules, workers, allowed) -> None:
    import multiprocessing

    todo = [j for j in range(len(col.jobs)) if allowed(j)]
    if not todo:
        return
    # Forked workers: no re-import of __main__, agents need not be importable. Forking happens
    # after the compiled phase's threads have been joined.
    if workers == 1 or len(todo) == 1 or "fork" not in multiprocessing.get_all_start_methods():
        for j in todo:
            pi, d0, d1 = col.jobs[j]
            col.put(j, _job_python(seed, pairs[pi], d0, d1, rules))
        return
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    _FORKED.update(jobs=col.jobs, pairs=pairs, seed=seed, rules=rules)
    ex = ProcessPoolExecutor(min(workers, len(todo)), initializer=_worker_init,
                             mp_context=multiprocessing.get_context("fork"))
    try:
        pending = {ex.submit(_worker_run, j) for j in todo}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                j, rows = fut.result()
                col.put(j, rows)
    except BaseException:
        # Ctrl-C or a failed job: drop what is queued and stop the workers now.
        procs = list((getattr(ex, "_processes", None) or {}).values())
        for proc in procs:
            proc.terminate()
        ex.shutdown(wait=False, cancel_futures=True)
        for proc in procs:
            proc.join()
        raise
    finally:
        ex.shutdown(wait=True)
        _FORKED.clear()


def _run_recorded(col, pairs, seed, rules, path) -> None:
    # Matches are played one by one in the calling thread; compiled ones through
    # simulate_core.record_match (the same play as play_matches), replayed into a Game.
    from . import records
    from .game import Game
    from .simulate_core import record_match

    with records.RecordWriter(path, "record") as out:
        for j, (pi, d0, d1) in enumerate(col.jobs):
            pair = pairs[pi]
            rows = []
            for d in range(d0, d1):
                for s in (0, 1):
                    seats = _seating(*pair, s)
                    if all(a.kind is not None for a in seats):
                        ms, actions, _ = record_match(seed, d, tuple(a.kind for a in seats),
                                                      rules, search=[a.spec for a in seats])
                        game = Game(seed=ms, rules=rules)
                        for seat, lo, hi in actions.tolist():
                            game.play_words(lo, hi)
                    else:
                        game = _play_python(_deal_seed(seed, d), seats, rules)
                    out.write(game, [a.name for a in seats],
                              tournament={"seed": seed, "deal": d, "seating": s})
                    rows.append(_outcome_of(game))
            col.put(j, rows)

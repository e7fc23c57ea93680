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

Agents: any agent spec of ``guandan_fast.agents`` (the compiled bots and search agents by
name, ``pimc:samples=16``; a Python agent ``f(observation, legal_moves) -> move`` as
``"module:function"`` or the callable itself; a learned policy as
``"policy:module:function"`` or ``agents.policy_agent(fn)``; a platform client program as
``external={"name": "command {url}"}`` or ``external.external_agent(name, command)``). A pair
of compiled agents plays in compiled code (threads, no GIL); a pair with a Python agent is
played by a Python loop over the compiled ``Game`` (in a pool of forked processes when
``workers > 1``); a pair with an external agent at a server of its own per match, its client
processes launched per match (``external.py``; ``workers`` matches at once).

With three or more agents the result also rates them (``ratings.py``: Bradley–Terry on the
match wins, Elo scale, bootstrap intervals over the deals).

Reproducibility: deal ``d`` is dealt from ``match_seed(seed, d)``, each seat's bot from its own
stream derived from it; results are gathered in deal order, so they are the same for every
``workers`` count (Python agents must be deterministic themselves for this to hold).
"""

from __future__ import annotations

import itertools
import json
import math
import os
import time
from dataclasses import dataclass, field
from typing import Callable

from .agents import parse_agents
from .external import (DEFAULT_DECISION_TIMEOUT, ExternalAgent, MatchOptions, external_agent,
                       play_match)
from .rules import Rules
from .runner import (Ordered, check_cluster, interrupt_held, one_blas_thread, run_processes,
                     run_threads)
from .stats import (Z95, clustered_wilson_interval, mean_interval, t_quantile,  # noqa: F401
                    wilson_interval)
from .validate import (check_bool, check_callable, check_count, check_rules, check_seed,
                       check_threads)

__all__ = ["tournament", "TournamentResult", "PairResult", "wilson_interval",
           "clustered_wilson_interval", "t_quantile", "mean_interval"]

#: Deals per unit of work (a job: both seatings of each deal of one pair).
DEALS_PER_JOB = 4


# -- agents ---------------------------------------------------------------------------------

def _check_agents(agents, external=None) -> tuple:
    """The roster: built-in specs parsed, names of ``external`` (``{name: command}``) and
    ``ExternalAgent`` objects made external agents."""
    if isinstance(agents, str):
        agents = agents.split(",")
    try:
        items = list(agents)
    except TypeError:
        raise TypeError(f"agents must be a list of agents, not {type(agents).__name__}") from None
    if external is None:
        external = {}
    if not isinstance(external, dict):
        raise TypeError(f"external must be a dict {{name: command}}, not "
                        f"{type(external).__name__}")
    made = {name: external_agent(name, command) for name, command in external.items()}
    listed = {x.strip() for x in items if isinstance(x, str)}
    unused = sorted(set(made) - listed)
    if unused:
        raise ValueError(f"external agent {unused[0]!r} is not among the agents "
                         f"(add it to --agents)")
    out = []
    for x in items:
        if isinstance(x, ExternalAgent):
            out.append(x)
        elif isinstance(x, str) and x.strip() in made:
            out.append(made[x.strip()])
        else:
            try:
                out.extend(parse_agents([x], what="agents"))
            except ValueError as exc:
                if not str(exc).startswith("unknown agent"):
                    raise
                raise ValueError(f"{exc}; or an external agent given as external={{name: "
                                 f"command}} (--external NAME=COMMAND)") from None
    out = tuple(out)
    if len(out) < 2:
        raise ValueError(f"agents must name at least 2 agents, got {len(out)}")
    names = [a.name for a in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"agents must be distinct; repeated: {', '.join(dup)}")
    return out


# -- playing ---------------------------------------------------------------------------------

def _seating(a, b, s: int) -> tuple:
    """Agents by seat: seating 0 puts ``a`` on seats 0 and 2, seating 1 on 1 and 3."""
    return (a, b, a, b) if s == 0 else (b, a, b, a)


def _outcome_of(game) -> list[int]:
    """A finished Game's outcome row (the columns of tournament_core.OUTCOME_COLUMNS)."""
    row = [game.winner, 0, 0, 0, 0, 0]
    for r in game.results:
        team = r["finish_order"][0] & 1
        row[1] += 1
        row[2 + team] += 1
        row[4 + team] += game.rules.hand_levels(r["finish_order"])
    return row


def _play_python(mseed: int, seats: tuple, rules: Rules):
    """One match with at least one Python agent: a Python loop over the compiled Game; the
    built-in bots' moves come from tournament_core.BotSeats (the same as compiled play)."""
    from .agents import seat_moves
    from .game import Game

    game = Game(seed=mseed, rules=rules)
    for _ in seat_moves(game, seats, mseed):
        pass
    return game


def _deal_seed(seed: int, d: int) -> int:
    from .simulate_core import match_seed

    return match_seed(seed, d)


def _job_python(seed: int, pair: tuple, d0: int, d1: int, rules: Rules,
                cancel: bytearray | None = None) -> list:
    rows = []
    with one_blas_thread():
        for d in range(d0, d1):
            ms = _deal_seed(seed, d)
            for s in (0, 1):
                if cancel is not None and cancel[0]:     # looked at between matches
                    raise KeyboardInterrupt("stopped")
                rows.append(_outcome_of(_play_python(ms, _seating(*pair, s), rules)))
    return rows


def _job_compiled(seed: int, pair: tuple, d0: int, d1: int, rules: Rules,
                  cancel: bytearray | None = None) -> list:
    from .tournament_core import play_matches

    seatings = [_seating(*pair, s) for s in (0, 1)]
    return play_matches(seed, [d for d in range(d0, d1) for _ in (0, 1)],
                        [s for _ in range(d0, d1) for s in (0, 1)],
                        [[a.code for a in seats] for seats in seatings], rules,
                        search=[[a.search_spec for a in seats] for seats in seatings],
                        cancel=cancel)


class Rows(list):
    """Outcome rows of an external pair's job, with the ``faults`` of its matches (dicts:
    ``a``, ``b``, ``deal``, ``seating``, ``seat``, ``agent``, ``reason``, ``finished_by``,
    ``stderr_tail``)."""

    faults: list

    def __init__(self) -> None:
        super().__init__()
        self.faults = []


def _external_row(out) -> list[int]:
    """The outcome row of an external match (``external.MatchOutcome``): a forfeit is a win of
    the other team, with the hands played until then."""
    row = [0] * 6 if out.game is None else _outcome_of(out.game)
    if out.forfeit is not None:
        row[0] = 1 - out.forfeit % 2
    return row


def _play_external(seed, pair, d, s, rules, options, cancel):
    """One external match: its ``MatchOutcome`` and outcome row."""
    seats = _seating(*pair, s)
    label = f"{pair[0].name}-vs-{pair[1].name}-deal{d}-seating{s}"
    out = play_match(seats, _deal_seed(seed, d), rules, options, cancel, label)
    taken = None if options.takeover is None else str(options.takeover)
    for f in out.faults:
        f.update(a=pair[0].name, b=pair[1].name, deal=d, seating=s,
                 finished_by=taken if out.forfeit is None else None)
    return out, _external_row(out)


def _job_external(seed, pair, d0, d1, rules, cancel, options) -> Rows:
    rows = Rows()
    for d in range(d0, d1):
        for s in (0, 1):
            if cancel is not None and cancel[0]:
                raise KeyboardInterrupt("stopped")
            out, row = _play_external(seed, pair, d, s, rules, options, cancel)
            rows.append(row)
            rows.faults.extend(out.faults)
    return rows


class Jobs:
    """The work of a tournament for the runner: job ``j`` = ``jobs[j]`` = ``(pair index, first
    deal, end deal)``, both seatings of each deal; ``self(j, cancel)`` returns its outcome
    rows (compiled pairs in compiled code, external ones at servers of their own, others by a
    Python loop), or raises KeyboardInterrupt once ``cancel[0]`` is set (compiled: within a
    few moves; external: within a twentieth of a second; Python: before the next match).
    Picklable without external agents (Ray tasks)."""

    def __init__(self, seed, rules, pairs, jobs, options: MatchOptions | None = None) -> None:
        self.seed, self.rules, self.pairs, self.jobs = seed, rules, pairs, jobs
        self.options = options or MatchOptions()

    def compiled(self, j) -> bool:
        return all(a.compiled for a in self.pairs[self.jobs[j][0]])

    def external(self, j) -> bool:
        return any(isinstance(a, ExternalAgent) for a in self.pairs[self.jobs[j][0]])

    def __call__(self, j, cancel=None):
        pi, d0, d1 = self.jobs[j]
        if self.external(j):
            return _job_external(self.seed, self.pairs[pi], d0, d1, self.rules, cancel,
                                 self.options)
        job = _job_compiled if self.compiled(j) else _job_python
        return job(self.seed, self.pairs[pi], d0, d1, self.rules, cancel)


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
        # (no hand at all only when every match was forfeited before it began)
        hand_win_rate=hand_wins / hands if hands else 0.0,
        hand_ci=wilson_interval(hand_wins, hands) if hands else (0.0, 1.0),
        hand_ci_paired=(clustered_wilson_interval(hwins_d.tolist(), hands_d.tolist())
                        if hands else (0.0, 1.0)),
        levels_per_hand_a=lev_a / hands if hands else 0.0,
        levels_per_hand_b=lev_b / hands if hands else 0.0,
        net_levels=math.fsum(nets) / n, net_levels_ci=mean_interval(nets), _rows=rows)


@dataclass
class TournamentResult:
    """The outcome of ``tournament()``: one ``PairResult`` per pair, in combination order.

    ``standings``: per agent, matches won and played over all its pairs. ``faults``: the
    faults of external agents' clients, in the order of the matches (None when no external
    agent played). ``ratings``: Bradley–Terry ratings with intervals (three or more agents).
    Equality (and ``to_dict``) ignores ``workers`` and ``elapsed``.
    """

    agents: tuple
    deals: int
    seed: int
    rules: Rules
    pairs: list
    workers: int = field(default=1, compare=False)
    elapsed: float = field(default=0.0, compare=False)
    faults: list | None = field(default=None, compare=False)

    @property
    def ratings(self):
        """The agents' ``ratings.Ratings`` (None with two agents: one pair says it all).
        Computed once (a bootstrap of a thousand fits)."""
        if len(self.agents) < 3 or not _scipy_found():
            return None
        if getattr(self, "_ratings", None) is None:
            from .ratings import rate

            self._ratings = rate(self.agents, self.pairs, seed=self.seed)
        return self._ratings

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
        out = {"format": "guandan-fast-tournament", "version": 1,
               "agents": list(self.agents), "deals": self.deals, "seed": self.seed,
               "rules": self.rules.to_dict(), "confidence": 0.95,
               "pairs": [p.to_dict() for p in self.pairs],
               "standings": self.standings}
        if self.ratings is not None:
            out["ratings"] = self.ratings.to_dict()
        if self.faults is not None:
            out["faults"] = [dict(f) for f in self.faults]
        return out

    def to_json(self, path: str | os.PathLike | None = None) -> str:
        """The result as JSON text (docs/tournament.md), also written to ``path`` when given."""
        return json_text(self.to_dict(), path)

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
        if self.ratings is not None:
            lines.append("")
            lines.append(self.ratings.table())
        elif len(self.agents) >= 3:
            lines.append("")
            from .extras import install_hint

            lines.append("ratings: the fit needs scipy; " + install_hint("ratings"))
        if self.faults is not None:
            lines.append("")
            lines.extend(_fault_lines(self.faults))
        return "\n".join(lines)

    def plot(self, path: str | os.PathLike) -> None:
        """Draw the pairs' match and hand win rates with their intervals as an SVG file (and
        the ratings, with three or more agents)."""
        from .plot import tournament_svg

        if not str(path).lower().endswith(".svg"):
            raise ValueError(f"plot path must end in .svg (the plot is written as SVG), "
                             f"got {str(path)!r}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(tournament_svg(self))


def json_text(result: dict, path: str | os.PathLike | None = None) -> str:
    """A result's dict as indented JSON text, also written to ``path`` when given (the one
    writer of every tournament-like result's ``to_json``)."""
    text = json.dumps(result, indent=2) + "\n"
    if path is not None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return text


def _scipy_found() -> bool:
    """Whether the ratings' fit can run (scipy is the optional extra ``ratings``)."""
    import importlib.util

    return importlib.util.find_spec("scipy") is not None


#: Faults listed one by one in the table (all of them are in ``to_dict``).
FAULTS_SHOWN = 20


def _fault_lines(faults) -> list[str]:
    """The faults section of the table: counts per agent, then each fault with the client's
    stderr tail."""
    if not faults:
        return ["external clients: no fault"]
    per = {}
    for f in faults:
        per[f["agent"]] = per.get(f["agent"], 0) + 1
    lines = [f"faults: {len(faults)} (" + ", ".join(f"{a} {n}" for a, n in per.items()) + ")"]
    for f in faults[:FAULTS_SHOWN]:
        then = (f"finished by {f['finished_by']}" if f["finished_by"]
                else f"{f['agent']} forfeits the match")
        lines.append(f"  {f['a']} vs {f['b']}, deal {f['deal']} seating {f['seating']}, "
                     f"seat {f['seat']} ({f['agent']}): {f['reason']}; {then}")
        for text in f["stderr_tail"].splitlines():
            lines.append(f"    | {text}")
    if len(faults) > FAULTS_SHOWN:
        lines.append(f"  ... and {len(faults) - FAULTS_SHOWN} more (all in --json)")
    return lines


# -- the run ---------------------------------------------------------------------------------

def tournament(agents, deals: int, seed: int = 0, rules: Rules = Rules(), workers: int = 1,
               record: str | os.PathLike | None = None,
               progress: Callable[[int], object] | None = None,
               cluster: str | None = None, address: str | None = None,
               external: dict | None = None,
               decision_timeout: float = DEFAULT_DECISION_TIMEOUT, on_fault: str = "forfeit",
               keep: str | os.PathLike | None = None,
               external_port: int | None = None,
               first_only: bool = False) -> TournamentResult:
    """Play a duplicate round robin of ``agents`` over ``deals`` deals; see the module doc.

    ``agents``: at least two distinct agents (names, ``"module:function"`` strings or
    callables; or one comma-separated string). ``workers``: threads for the compiled pairs and
    processes for the Python ones. ``record``: a path; every match is also written there as
    JSON Lines game records (``records.py``), pair by pair, deal by deal, seating 0 then 1,
    each header with a ``"tournament"`` entry naming the seats' agents (played in the calling
    thread). ``progress(n)`` is called with the matches done. ``cluster='ray'``: the deals are
    played as Ray tasks on the cluster at ``address``, with the same result (Python agents
    must then be importable or picklable on the workers; not with ``record``;
    docs/distributed.md). ``first_only``: only the pairs of the first agent with each of
    the others (the gauntlet, gauntlet.py) instead of every pair. Ctrl-C stops it: ``KeyboardInterrupt`` with ``.partial``, the
    ``TournamentResult`` of the deals played in both seatings so far (None before the first).

    External agents (docs/tournament.md, "External agents"): ``external`` maps agent names
    of ``agents`` to commands (``"python mybot.py {url}"``); ``decision_timeout``: seconds a
    client may take per decision and to connect; ``on_fault``: ``'forfeit'`` (a faulty
    client's team loses the match) or an agent spec that finishes the match in its seat;
    ``keep``: a folder for each external match's record and its clients' output;
    ``external_port``: serve every external match on this port, one at a time (23456 for
    bots that hard-code the platform's URL; ``{url}`` may then be left out of a command).

    >>> tournament(["greedy"], deals=5)
    Traceback (most recent call last):
    ...
    ValueError: agents must name at least 2 agents, got 1
    >>> tournament("greedy,smart", deals=5)                       # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown agent 'smart'; known agents: random, random_compact, greedy, ...
    """
    roster = _check_agents(agents, external)
    options = _match_options(roster, decision_timeout, on_fault, keep, external_port)
    deals = check_count(deals, "deals", 1)
    seed = check_seed(seed)
    check_rules(rules)
    workers = check_threads(workers, "workers")
    check_callable(progress, "progress", optional=True)
    first_only = check_bool(first_only, "first_only")
    check_cluster(cluster, address)
    if cluster is not None and record is not None:
        raise ValueError("record= is not available with cluster='ray' (record on one machine)")
    has_external = any(isinstance(a, ExternalAgent) for a in roster)
    if cluster is not None and has_external:
        raise ValueError("external agents play on this machine only, not with cluster='ray'")
    from .rules_core import rules_check

    rules_check(rules)

    pairs = ([(roster[0], b) for b in roster[1:]] if first_only
             else list(itertools.combinations(roster, 2)))
    # An external pair's job is one deal (two matches of seconds each: spread over workers).
    jobs = [(pi, d0, min(d0 + step, deals)) for pi, step in
            ((pi, 1 if any(isinstance(a, ExternalAgent) for a in pair) else DEALS_PER_JOB)
             for pi, pair in enumerate(pairs))
            for d0 in range(0, deals, step)]
    work = Jobs(seed, rules, pairs, jobs, options)
    rows_of: dict = {}
    done = [0]

    def merge(j, rows) -> bool:
        rows_of[j] = rows
        return False

    def after(j, rows) -> None:
        done[0] += len(rows)
        if progress is not None:
            progress(done[0])

    order = Ordered(len(jobs), merge, after)
    t0 = time.perf_counter()
    try:
        if cluster == "ray":
            _run_on_ray(order, work, address)
        elif record is not None:
            _run_recorded(order, work, record)
        else:
            # Compiled pairs in threads (no GIL), then the others in forked processes.
            order.set_queue(j for j in range(len(jobs)) if work.compiled(j))
            run_threads(order, workers, work, name="guandan-tourney")
            # External pairs: threads that wait on servers and client processes; one at a
            # time on a fixed port.
            order.set_queue(j for j in range(len(jobs)) if work.external(j))
            run_threads(order, 1 if external_port is not None else workers, work,
                        name="guandan-external")
            order.set_queue(j for j in range(len(jobs))
                            if not work.compiled(j) and not work.external(j))
            run_processes(order, workers, work)
    except KeyboardInterrupt as exc:
        # Ctrl-C: the pairs' whole deals so far ride on the exception as ``partial`` (None
        # before the first one); the record ends on a whole match
        exc.partial = _collect(roster, pairs, jobs, rows_of, seed, rules, workers,
                               time.perf_counter() - t0, partial=True)
        raise
    return _collect(roster, pairs, jobs, rows_of, seed, rules, workers,
                    time.perf_counter() - t0)


def _match_options(roster, decision_timeout, on_fault, keep, port) -> MatchOptions:
    """The external-agent settings, checked (also without external agents: bad input is bad
    input)."""
    from .agents import parse_agent

    t = decision_timeout
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not t > 0 or math.isinf(t):
        raise ValueError(f"decision_timeout must be seconds > 0, got {t!r}")
    if not isinstance(on_fault, str):
        raise TypeError(f"on_fault must be 'forfeit' or an agent name, "
                        f"not {type(on_fault).__name__}")
    takeover = None if on_fault == "forfeit" else parse_agent(on_fault)
    if port is not None:
        port = check_count(port, "external_port", 1, 65535)
    if keep is not None:
        keep = os.fspath(keep)
        if os.path.exists(keep) and not os.path.isdir(keep):
            raise ValueError(f"keep must name a folder, and {keep!r} is a file")
    for a in roster:
        if isinstance(a, ExternalAgent) and port is None and not a.has_url_field:
            raise ValueError(f"external agent {a.name!r}: the command has no {{url}}; put "
                             f"{{url}} where the seat's URL goes, or serve on the platform's "
                             f"port (--external-port 23456) for a bot that hard-codes it")
    return MatchOptions(decision_timeout=float(t), takeover=takeover, port=port, keep=keep)


def _collect(roster, pairs, jobs, rows_of, seed, rules, workers, elapsed,
             partial=False) -> TournamentResult | None:
    """The result from the jobs' outcome rows. ``partial``: only the jobs done (the pairs with
    none left out; ``deals`` is then the most any pair played), None when no deal is whole."""
    import numpy as np

    results = []
    for pi, (a, b) in enumerate(pairs):
        parts = [np.asarray(rows_of[j], dtype=np.int64).reshape(-1, 6)
                 for j, job in enumerate(jobs) if job[0] == pi and j in rows_of]
        if parts and sum(len(p) for p in parts):
            results.append(_pair_result(a.name, b.name, np.concatenate(parts)))
    if partial and not results:
        return None
    deals = max(p.deals for p in results) if partial else jobs[-1][2]
    faults = None
    if any(isinstance(a, ExternalAgent) for a in roster):
        faults = [f for j in sorted(rows_of) for f in getattr(rows_of[j], "faults", ())]
    return TournamentResult(agents=tuple(a.name for a in roster), deals=deals, seed=seed,
                            rules=rules, pairs=results, workers=workers, elapsed=elapsed,
                            faults=faults)


def _run_on_ray(order, work, address) -> None:
    """The jobs as Ray tasks (consecutive jobs grouped, one CPU each); rows kept by job
    index, so the result is the one-machine result."""
    from .distributed import MIN_TASK_JOBS, TASKS_PER_SLOT, connected, run_on_ray, slots

    with connected(address) as ray:
        n = len(work.jobs)
        group = max(MIN_TASK_JOBS, -(-n // (TASKS_PER_SLOT * slots(ray, 1))))
        run_on_ray(ray, order, work, cpus=1, group=group)


def _run_recorded(order, work, path) -> None:
    # Matches are played one by one in the calling thread; compiled ones through
    # simulate_core.record_match (the same play as play_matches), their lines written by the
    # compiled writer and the log replayed into a Game for the outcome.
    from . import records
    from .game import Game
    from .record_lines import hand_lines
    from .simulate_core import record_match

    def names(seats):
        return [a.name for a in seats]

    def about(d, s):
        return {"seed": seed, "deal": d, "seating": s}

    with records.RecordWriter(path, "record") as out:
        seed, rules = work.seed, work.rules
        for j, (pi, d0, d1) in enumerate(work.jobs):
            pair = work.pairs[pi]
            rows = Rows()
            try:
                for d in range(d0, d1):
                    for s in (0, 1):
                        seats = _seating(*pair, s)
                        if all(a.compiled for a in seats):
                            ms, actions, _ = record_match(seed, d, tuple(a.code for a in seats),
                                                          rules,
                                                          search=[a.search_spec for a in seats])
                            game = Game(seed=ms, rules=rules)
                            head = records.header_lines([ms], rules, None, names(seats),
                                                        tournament=about(d, s))[0]
                            data = (head + "\n").encode("utf-8") + hand_lines(game, actions)
                            game.play_log(actions)
                            outcome = _outcome_of(game)
                        elif work.external(j):
                            match, outcome = _play_external(seed, pair, d, s, rules,
                                                            work.options, None)
                            rows.faults.extend(match.faults)
                            # (a match forfeited before it began: the deal, unplayed)
                            game = match.game or Game(seed=_deal_seed(seed, d), rules=rules)
                            data = None
                        else:
                            game = _play_python(_deal_seed(seed, d), seats, rules)
                            data = None
                            outcome = _outcome_of(game)
                        with interrupt_held():     # the record and the totals agree
                            if data is None:
                                out.write(game, names(seats), tournament=about(d, s))
                            else:
                                out.block(data)
                            rows.append(outcome)
            except KeyboardInterrupt:
                # the whole deals of this job count in the partial result (both seatings)
                if len(rows) >= 2:
                    whole = Rows()
                    whole.extend(rows[:len(rows) - len(rows) % 2])
                    whole.faults = [f for f in rows.faults if f["deal"] < d0 + len(whole) // 2]
                    order.put(j, whole)
                raise
            order.put(j, rows)

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
``"policy:module:function"`` or ``agents.policy_agent(fn)``). A pair of compiled agents plays in compiled code (threads, no GIL); a pair with a
Python agent is played by a Python loop over the compiled ``Game`` (in a pool of forked
processes when ``workers > 1``).

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
from .rules import Rules
from .runner import Ordered, check_cluster, interrupt_held, run_processes, run_threads
from .stats import (Z95, clustered_wilson_interval, mean_interval, t_quantile,  # noqa: F401
                    wilson_interval)
from .validate import (check_bool, check_callable, check_count, check_rules, check_seed,
                       check_threads)

__all__ = ["tournament", "TournamentResult", "PairResult", "wilson_interval",
           "clustered_wilson_interval", "t_quantile", "mean_interval"]

#: Deals per unit of work (a job: both seatings of each deal of one pair).
DEALS_PER_JOB = 4


# -- agents ---------------------------------------------------------------------------------

def _check_agents(agents) -> tuple:
    out = parse_agents(agents, what="agents")
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
    from .game import Game
    from .tournament_core import BotSeats

    game = Game(seed=mseed, rules=rules)
    kinds = [a.code for a in seats]
    bots = (BotSeats(mseed, kinds, rules, [a.search_spec for a in seats])
            if any(k is not None for k in kinds) else None)
    while not game.is_over:
        agent = seats[game.current_player]
        if agent.compiled:
            lo, hi = bots.choose()
            game.play_words(lo, hi)
        else:
            legal = game.legal_moves()
            i = legal.index(agent.move(game))    # AgentError names a failing agent
            lo, hi = (int(w) for w in legal.array[i])
            game.play_index(i)
        if bots is not None:
            bots.apply(lo, hi)
    return game


def _deal_seed(seed: int, d: int) -> int:
    from .simulate_core import match_seed

    return match_seed(seed, d)


def _job_python(seed: int, pair: tuple, d0: int, d1: int, rules: Rules,
                cancel: bytearray | None = None) -> list:
    rows = []
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


class Jobs:
    """The work of a tournament for the runner: job ``j`` = ``jobs[j]`` = ``(pair index, first
    deal, end deal)``, both seatings of each deal; ``self(j, cancel)`` returns its outcome
    rows (compiled pairs in compiled code, others by a Python loop), or raises
    KeyboardInterrupt once ``cancel[0]`` is set (compiled: within a few moves; Python: before
    the next match). Picklable (Ray tasks)."""

    def __init__(self, seed, rules, pairs, jobs) -> None:
        self.seed, self.rules, self.pairs, self.jobs = seed, rules, pairs, jobs

    def compiled(self, j) -> bool:
        return all(a.compiled for a in self.pairs[self.jobs[j][0]])

    def __call__(self, j, cancel=None):
        pi, d0, d1 = self.jobs[j]
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

def tournament(agents, deals: int, seed: int = 0, rules: Rules = Rules(), workers: int = 1,
               record: str | os.PathLike | None = None,
               progress: Callable[[int], object] | None = None,
               cluster: str | None = None, address: str | None = None,
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

    >>> tournament(["greedy"], deals=5)
    Traceback (most recent call last):
    ...
    ValueError: agents must name at least 2 agents, got 1
    >>> tournament("greedy,smart", deals=5)                       # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown agent 'smart'; known agents: random, random_compact, greedy, ...
    """
    roster = _check_agents(agents)
    deals = check_count(deals, "deals", 1)
    seed = check_seed(seed)
    check_rules(rules)
    workers = check_threads(workers, "workers")
    check_callable(progress, "progress", optional=True)
    first_only = check_bool(first_only, "first_only")
    check_cluster(cluster, address)
    if cluster is not None and record is not None:
        raise ValueError("record= is not available with cluster='ray' (record on one machine)")
    from .rules_core import rules_check

    rules_check(rules)

    pairs = ([(roster[0], b) for b in roster[1:]] if first_only
             else list(itertools.combinations(roster, 2)))
    jobs = [(pi, d0, min(d0 + DEALS_PER_JOB, deals)) for pi in range(len(pairs))
            for d0 in range(0, deals, DEALS_PER_JOB)]
    work = Jobs(seed, rules, pairs, jobs)
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
            order.set_queue(j for j in range(len(jobs)) if not work.compiled(j))
            run_processes(order, workers, work)
    except KeyboardInterrupt as exc:
        # Ctrl-C: the pairs' whole deals so far ride on the exception as ``partial`` (None
        # before the first one); the record ends on a whole match
        exc.partial = _collect(roster, pairs, jobs, rows_of, seed, rules, workers,
                               time.perf_counter() - t0, partial=True)
        raise
    return _collect(roster, pairs, jobs, rows_of, seed, rules, workers,
                    time.perf_counter() - t0)


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
    return TournamentResult(agents=tuple(a.name for a in roster), deals=deals, seed=seed,
                            rules=rules, pairs=results, workers=workers, elapsed=elapsed)


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
            rows = []
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
                    order.put(j, rows[:len(rows) - len(rows) % 2])
                raise
            order.put(j, rows)

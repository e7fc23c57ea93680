"""High-throughput simulation: whole matches between the built-in bots, in compiled code.

``simulate`` plays matches (or a number of hands) between four agents seated 0..3 (teams
{0, 2} and {1, 3}), entirely without the GIL, split over ``threads`` Python threads, and
returns a ``SimulationResult``.

>>> from guandan_fast.simulate import simulate
>>> res = simulate(matches=20, seed=1)
>>> res.matches, res.team_wins[0] + res.team_wins[1]
(20, 20)
>>> res == simulate(matches=20, seed=1, threads=2)     # independent of the thread count
True
>>> print(res.summary())                                  # doctest: +ELLIPSIS
simulation: 20 matches, ... hands, seed 1, 1 thread, ... s (... hands/s)
...

Agents: any agent spec (``guandan_fast.agents``). The compiled ones (``random``,
``random_compact``, ``greedy``, the expert and its styles, the search agents ``pimc`` and
``ismcts`` with their budget in the name, ``pimc:samples=8:rollouts=1``, docs/search.md) play
in compiled code without the GIL. With an agent that is not compiled (a learned Q-network
``dmc:PATH``, a Python agent ``MODULE:FUNCTION``, a policy ``policy:MODULE:FUNCTION``) every
match is played by a Python loop over the compiled ``Game`` instead (``PythonBlock``), one
decision at a time: the same deals, the same counters, and for the compiled seats the same
moves, but thousands of decisions per second (about 6,000 with a 256x256 ``dmc`` network in
every seat) rather than a million (docs/design.md, "Simulation").

Reproducibility: match ``i`` is dealt from SplitMix64 state ``match_seed(seed, i)`` (the
``i``-th output of SplitMix64 started at ``seed``) and each seat's bot from its own stream
derived from it, so a match's course depends only on ``(seed, i)``; runs are split into fixed
chunks of matches, so the result (elapsed time aside) is the same for every thread count, in
both modes.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from .agents import names as agent_names, parse_agents
from .runner import Ordered, check_cluster, interrupt_held, one_blas_thread, run_threads
from .rules import Rules
from .validate import check_callable, check_count, check_rules, check_seed, check_threads

__all__ = ["simulate", "SimulationResult", "AGENTS", "MatchBlock", "PythonBlock", "Tally",
           "add_counts", "empty_counts", "MATCHES_PER_CHUNK", "SEARCH_MATCHES_PER_CHUNK",
           "PYTHON_MATCHES_PER_CHUNK", "LOOPS"]

#: The agents ``simulate`` plays in compiled code (every compiled kind of ``agents.KINDS``; the
#: search agents take parameters: ``pimc:samples=8``, docs/search.md).
AGENTS = agent_names("compiled")

#: Matches per unit of work of the threads. Fixed (not derived from the thread count) so that
#: the hands mode, which discards whole chunks past its target, gives the same result for
#: every thread count.
MATCHES_PER_CHUNK = 16

#: The same when a search agent plays: its matches take tens of milliseconds each and vary
#: widely, so units of one match keep every thread busy to the end of a run (with 16, a
#: 64-match run is 4 uneven units: 1.84x on 2 threads instead of 1.9x and more).
SEARCH_MATCHES_PER_CHUNK = 1

#: The same for a run with an agent that is not compiled (``PythonBlock``).
PYTHON_MATCHES_PER_CHUNK = 1

#: ``simulate(loop=...)``: None plays the compiled loop when every agent is compiled, else the
#: Python loop; ``'python'`` plays the Python loop anyway (it checks that loop against the
#: compiled one); ``'compiled'`` refuses agents that are not compiled.
LOOPS = (None, "compiled", "python")

_PATTERNS = ("1-2", "1-3", "1-4")

# Move-word fields (types.pxd; codec.layout() gives them): the type code sits at bit 56 of
# ``hi``; the Python loop counts moves as the compiled loop's log_move does.
_TYPE_SHIFT = 56
_T_PASS = 0
_T_BOMBS = (8, 9)              # Bomb (four jokers included), StraightFlush
_T_EXCHANGE = (10, 11)         # tribute, back

@dataclass
class SimulationResult:
    """Counters of a simulation run.

    ``team_wins[t]``: matches won by team ``t`` (seats ``t`` and ``t + 2``); ``agent_wins``:
    matches won by a team in which that agent sits (once per match, even when both partners
    are that agent); ``hand_wins``: hands won (team of the 1st finisher); ``finishes``: hands by
    the place of the winner's partner (``'1-2'``, ``'1-3'``, ``'1-4'``); ``plays``: non-PASS plays
    (tribute and return excluded), ``bombs`` those of the bomb class (bombs, straight flushes,
    four jokers); ``cards``: cards played; ``truncated``: matches cut short in hands mode
    (not counted in ``matches``). Equality ignores ``threads`` and ``elapsed``.
    """

    agents: tuple
    seed: int
    threads: int = field(default=1, compare=False)
    matches: int = 0
    hands: int = 0
    plays: int = 0
    passes: int = 0
    cards: int = 0
    bombs: int = 0
    team_wins: tuple = (0, 0)
    agent_wins: dict = field(default_factory=dict)
    hand_wins: tuple = (0, 0)
    finishes: dict = field(default_factory=dict)
    longest_match: int = 0
    truncated: int = 0
    rules: Rules = field(default_factory=Rules)
    elapsed: float = field(default=0.0, compare=False)

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def matches_per_second(self) -> float:
        return self.matches / self.elapsed if self.elapsed > 0 else 0.0

    def win_rate(self, team: int) -> float:
        """Share of the finished matches won by ``team`` (0 or 1)."""
        if team not in (0, 1):
            raise ValueError(f"team must be 0 or 1, got {team!r}")
        return self.team_wins[team] / self.matches if self.matches else 0.0

    def to_dict(self) -> dict:
        """The result as data (``--json``): every counter, and per team the match and hand
        win rates with their 95% Wilson intervals, as the tournament gives them
        (``ci_wilson``; None without a finished match or hand). Rates rounded to 6 decimals.

        >>> d = simulate(matches=20, seed=1, agents="greedy,random,greedy,random").to_dict()
        >>> d["teams"][0]["agents"], d["teams"][0]["match_wins"] + d["teams"][1]["match_wins"]
        (['greedy', 'greedy'], 20)
        >>> rate = d["teams"][0]["match_win_rate"]
        >>> rate["ci_wilson"][0] <= rate["value"] <= rate["ci_wilson"][1]
        True
        """
        from .tournament import wilson_interval

        def rate(k: int, n: int) -> dict:
            if n == 0:
                return {"value": None, "ci_wilson": None}
            return {"value": round(k / n, 6),
                    "ci_wilson": [round(x, 6) for x in wilson_interval(k, n)]}

        return {
            "format": "guandan-fast-simulation", "version": 1,
            "agents": list(self.agents), "seed": self.seed, "rules": self.rules.to_dict(),
            "threads": self.threads, "elapsed": round(self.elapsed, 6), "confidence": 0.95,
            "matches": self.matches, "hands": self.hands, "truncated": self.truncated,
            "teams": [{"team": t, "seats": [t, t + 2],
                       "agents": [self.agents[t], self.agents[t + 2]],
                       "match_wins": self.team_wins[t],
                       "match_win_rate": rate(self.team_wins[t], self.matches),
                       "hand_wins": self.hand_wins[t],
                       "hand_win_rate": rate(self.hand_wins[t], self.hands)} for t in (0, 1)],
            "agent_wins": dict(self.agent_wins), "finishes": dict(self.finishes),
            "plays": self.plays, "passes": self.passes, "cards": self.cards,
            "bombs": self.bombs, "longest_match": self.longest_match,
        }

    def to_json(self, path=None) -> str:
        """``to_dict`` as JSON text, also written to ``path`` when given."""
        import json

        text = json.dumps(self.to_dict(), indent=2) + "\n"
        if path is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        return text

    def summary(self) -> str:
        """A readable table of the counters."""
        threads = f"{self.threads} thread" + ("s" if self.threads != 1 else "")
        lines = [
            f"simulation: {self.matches} matches, {self.hands} hands, seed {self.seed}, "
            f"{threads}, {self.elapsed:.2f} s ({self.hands_per_second:,.0f} hands/s)",
        ]
        if self.rules != Rules():
            lines.append(f"rules: {self.rules!r}")
        lines.append("")
        pairs = [f"{self.agents[t]} / {self.agents[t + 2]}" for t in (0, 1)]
        # wide enough for long names (a dmc:PATH), so the counts stay in their columns
        w = max(32, 2 + max(map(len, pairs)))
        lines.append(f"{'team':<6}{'seats':<7}{'agents':<{w}}{'match wins':>11}{'rate':>8}"
                     f"{'hand wins':>11}")
        for t in (0, 1):
            rate = f"{100 * self.win_rate(t):.1f}%"
            lines.append(f"{t:<6}{f'{t},{t + 2}':<7}{pairs[t]:<{w}}{self.team_wins[t]:>11}"
                         f"{rate:>8}{self.hand_wins[t]:>11}")
        if len(self.agent_wins) > 1:
            lines.append("")
            lines.append("match wins by agent: " + ", ".join(
                f"{name} {n}" for name, n in sorted(self.agent_wins.items())))
        hands = max(1, self.hands)
        lines.append("")
        lines.append("hand winners' finish: " + ", ".join(
            f"{p} {self.finishes.get(p, 0)} ({100 * self.finishes.get(p, 0) / hands:.1f}%)"
            for p in _PATTERNS))
        lines.append(f"per hand: {self.plays / hands:.1f} plays, {self.passes / hands:.1f} passes, "
                     f"{self.bombs / hands:.2f} bombs, {self.cards / hands:.1f} cards played")
        mean = self.hands / self.matches if self.matches else 0.0
        lines.append(f"hands per match: {mean:.2f} mean, {self.longest_match} longest"
                     + (f"; {self.truncated} match(es) cut short by the hand count"
                        if self.truncated else ""))
        return "\n".join(lines)


def add_counts(total: dict, stats: dict) -> None:
    """Add one run's counters (``run_chunk``'s dict) into ``total``."""
    for key, value in stats.items():
        if isinstance(value, list):
            total[key] = [a + b for a, b in zip(total[key], value)]
        elif key == "longest":
            total[key] = max(total[key], value)
        else:
            total[key] += value


def empty_counts() -> dict:
    """Zero counters, in the form of ``run_chunk``'s dict."""
    return {"matches": 0, "hands": 0, "plays": 0, "passes": 0, "cards": 0, "bombs": 0,
            "team_wins": [0, 0], "hand_wins": [0, 0], "patterns": [0, 0, 0], "longest": 0,
            "truncated": 0, "errors": 0}


def simulate(matches: int | None = None, hands: int | None = None,
             agents: Sequence[str] | str = ("greedy", "random", "greedy", "random"),
             seed: int = 0, rules: Rules = Rules(), threads: int = 1,
             record: str | os.PathLike | None = None,
             progress: Callable[[int], object] | None = None,
             cluster: str | None = None, address: str | None = None,
             task_matches: int | None = None, loop: str | None = None) -> SimulationResult:
    """Play ``matches`` whole matches, or ``hands`` hands, between four agents.

    Give exactly one of ``matches`` and ``hands``. In hands mode, matches 0, 1, 2, ... are
    played in order until ``hands`` hands have been played; the last match is then usually
    cut short (counted in ``truncated``, not in ``matches``). ``agents``: four agent specs by
    seat (or one comma-separated string; ``Agent``s and callables too): compiled ones
    (``AGENTS``) play in compiled code; with any other (``dmc:PATH``, ``MODULE:FUNCTION``,
    ``policy:...``) every match is played by the Python loop (``PythonBlock``: the same
    deals and counters, a decision at a time; ``loop='python'`` forces it for compiled agents
    too, ``loop='compiled'`` refuses the others). ``threads``: Python threads, each
    running its share of the chunks in compiled code without the GIL (the Python loop holds
    the GIL: there they add no speed, and change nothing in the result). ``progress(n)`` is
    called after each chunk with the matches done (hands done in hands mode), one call at a
    time. ``record``: a path (``str``/``os.PathLike``; gzip-compressed when it ends in ``.gz``)
    or a file object (written to, not closed); every match is also written there as JSON Lines
    game records (python/guandan_fast/records.py), in match order; every thread plays and
    writes the lines of its own matches without the GIL (``simulate_core.record_chunk``), so
    a recorded run uses the threads too. A record takes about 5 KB per hand
    (docs/records.md).

    ``cluster='ray'`` runs the work as Ray tasks of ``task_matches`` consecutive matches (each
    task runs ``threads`` threads and asks Ray for as many CPUs) on the cluster at ``address``
    (``None``: ``RAY_ADDRESS`` if set, else a local cluster on loopback started for this call
    and stopped after it; ``'auto'``, ``'HOST:PORT'``, ``'ray://...'``: that cluster; an existing
    ``ray.init`` connection is used as it is). The result, records included, is identical to a
    single-process run; ``progress`` is then called after each finished task
    (docs/distributed.md). Ray runs compiled agents only (ValueError for the others).

    Ctrl-C stops it within a second: ``KeyboardInterrupt`` with ``.partial``, the
    ``SimulationResult`` of the whole matches played so far (the record ends on the last).

    >>> simulate(matches=2, hands=10)
    Traceback (most recent call last):
    ...
    ValueError: give exactly one of matches= and hands=, not both
    >>> simulate(matches=1, agents=('greedy', 'random', 'smart', 'random'))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown agent 'smart'; known agents: random, random_compact, greedy, expert, ...; ...
    """
    from . import simulate_core as core  # compiled
    from .rules_core import rules_check

    if matches is not None and hands is not None:
        raise ValueError("give exactly one of matches= and hands=, not both")
    if matches is None and hands is None:
        raise ValueError("give exactly one of matches= and hands= (e.g. matches=1000)")
    if matches is not None:
        matches = check_count(matches, "matches", 1)
    else:
        hands = check_count(hands, "hands", 1)
    roster = parse_agents(agents, 4, where="all", place="simulate")
    names = tuple(a.name for a in roster)
    if loop not in LOOPS:
        raise ValueError(f"loop must be None, 'compiled' or 'python', got {loop!r}")
    python = loop == "python" or not all(a.compiled for a in roster)
    if python and loop == "compiled":
        bad = next(a.name for a in roster if not a.compiled)
        raise ValueError(f"loop='compiled' plays compiled agents only, not {bad!r}")
    seed = check_seed(seed)
    check_rules(rules)
    threads = check_threads(threads)
    if record is not None:
        from .records import check_output

        check_output(record, "record")
    check_callable(progress, "progress", optional=True)
    check_cluster(cluster, address)
    if python and cluster is not None:
        bad = next((a.name for a in roster if not a.compiled), None)
        raise ValueError(f"cluster='ray' plays compiled agents only, not {bad!r}; run it "
                         f"without Ray (the Python loop of docs/design.md, Simulation)"
                         if bad else "cluster='ray' plays the compiled loop only, not "
                                     "loop='python'")
    if task_matches is not None:
        check_count(task_matches, "task_matches", 1)
        if cluster is None:
            raise ValueError("task_matches= needs cluster='ray'")
    kinds = tuple(a.code for a in roster)
    search = tuple(a.search_spec for a in roster)
    rules_check(rules)

    if python:
        block = PythonBlock(seed, roster, rules, threads, record is not None)
    else:
        block = MatchBlock(seed, kinds, rules, search, threads, record is not None, list(names))
    t0 = time.perf_counter()
    try:
        if python:
            with one_blas_thread():
                total = _run_local(block, matches, hands, record, progress)
        elif cluster == "ray":
            total = _run_on_ray(block, matches, hands, record, progress, address, task_matches)
        else:
            total = _run_local(block, matches, hands, record, progress)
    except KeyboardInterrupt as exc:
        # Ctrl-C: the result so far (whole matches only; the record ends on the last of
        # them) rides on the exception as ``partial``
        if getattr(exc, "totals", None) is not None:
            exc.partial = _result(names, seed, threads, rules, exc.totals,
                                  time.perf_counter() - t0)
        raise
    elapsed = time.perf_counter() - t0
    if total["errors"]:
        raise RuntimeError(f"{total['errors']} match(es) failed inside the compiled engine")
    return _result(names, seed, threads, rules, total, elapsed)


def _result(names, seed, threads, rules, total, elapsed) -> SimulationResult:
    tw = tuple(total["team_wins"])
    agent_wins = {n: sum(tw[t] for t in (0, 1) if n in (names[t], names[t + 2]))
                  for n in dict.fromkeys(names)}
    return SimulationResult(
        agents=names, seed=seed, threads=threads, matches=total["matches"],
        hands=total["hands"], plays=total["plays"], passes=total["passes"],
        cards=total["cards"], bombs=total["bombs"], team_wins=tw, agent_wins=agent_wins,
        hand_wins=tuple(total["hand_wins"]),
        finishes=dict(zip(_PATTERNS, total["patterns"])), longest_match=total["longest"],
        truncated=total["truncated"], rules=rules, elapsed=elapsed)


class MatchBlock:
    """The work of one run: ``block(start, stop, hand_budget=None, cancel=None)`` plays
    matches ``start .. stop-1`` (at most ``hand_budget`` hands in all) and returns
    ``(record or None, counters)``, in ``threads`` threads in chunks of ``per_chunk``
    matches (``MATCHES_PER_CHUNK``, or ``SEARCH_MATCHES_PER_CHUNK`` when a search agent
    plays); with ``record``, each chunk's matches are replayed (checked) into record lines
    on its thread, and ``record`` is their bytes in match order.
    Picklable: the unit of every executor (threads here, Ray tasks).
    Setting ``cancel[0]`` stops it: KeyboardInterrupt."""

    def __init__(self, seed, kinds, rules, search, threads, record, names=None) -> None:
        self.seed, self.kinds, self.rules, self.search = seed, kinds, rules, search
        self.threads, self.record = threads, record
        self.names = names            # the agents by seat, for the records' headers
        self.per_chunk = (MATCHES_PER_CHUNK if all(x is None for x in search or ())
                          else SEARCH_MATCHES_PER_CHUNK)

    def __call__(self, start, stop, hand_budget=None, cancel=None):
        size = self.per_chunk
        if hand_budget is not None or self.threads == 1 and stop - start <= size:
            return self.chunk(start, stop, hand_budget, cancel)
        total = empty_counts()
        parts: list[bytes] = []        # the chunks' records, in match order

        def bounds(i):
            a = start + i * size
            return a, min(a + size, stop)

        def merge(i, result):
            if result[0] is not None:
                parts.append(result[0])
            add_counts(total, result[1])
            return False

        order = Ordered(-(-(stop - start) // size), merge, cancel=cancel)
        run_threads(order, self.threads, lambda i, c: self.chunk(*bounds(i), cancel=c),
                    name="guandan-sim")
        return (b"".join(parts) if self.record else None), total

    def chunk(self, start, stop, hand_budget=None, cancel=None):
        """Matches ``start .. stop-1`` in compiled code in this thread: ``(None, counters)``,
        or with ``record`` ``(record lines, counters)``."""
        if self.record:
            return self.recorded(start, stop, hand_budget, cancel)
        from . import simulate_core as core

        return None, core.run_chunk(start, stop, self.seed, self.kinds, self.rules,
                                    hand_budget=hand_budget, search=self.search, cancel=cancel)

    def recorded(self, start, stop, hand_budget, cancel):
        """Matches played in compiled code with their actions logged, each replayed once
        (every move checked) as its record lines are written, all without the GIL
        (``simulate_core.record_chunk``); the headers are made here."""
        from .records import header_lines
        from . import simulate_core as core

        seeds = [core.match_seed(self.seed, i) for i in range(start, stop)]
        headers = [(h + "\n").encode("utf-8")
                   for h in header_lines(seeds, self.rules, None, self.names)]
        return core.record_chunk(start, stop, self.seed, self.kinds, headers, self.rules,
                                 hand_budget=hand_budget, search=self.search, cancel=cancel)


class PythonBlock:
    """The work of a run with an agent that is not compiled (``dmc:PATH``, ``MODULE:FUNCTION``,
    ``policy:...``), or of ``loop='python'``: ``MatchBlock``'s interface (``chunk``,
    ``per_chunk``, ``threads``, ``record``), each match played by a Python loop over the
    compiled ``Game`` dealt from ``match_seed(seed, i)``, as the tournament plays such a pair;
    the compiled agents' moves come from ``tournament_core.BotSeats``, through the same match
    driver as the compiled loop, so a compiled agent plays here exactly as there (the
    counters are then the compiled run's, tests/test_simulate.py). Units of
    ``PYTHON_MATCHES_PER_CHUNK`` match: a Python agent's match takes a second or more, so
    Ctrl-C keeps every match merged. The loop holds the GIL (numpy's products aside), so more
    threads add no speed (bench/simulate_python.py); they change nothing in the result."""

    def __init__(self, seed, roster, rules, threads, record) -> None:
        self.seed, self.roster, self.rules = seed, tuple(roster), rules
        self.threads, self.record = threads, record
        self.names = [a.name for a in self.roster]
        self.per_chunk = PYTHON_MATCHES_PER_CHUNK

    def chunk(self, start, stop, hand_budget=None, cancel=None):
        """Matches ``start .. stop-1`` in this thread: ``(record lines or None, counters)``,
        stopping after ``hand_budget`` hands in all as ``simulate_core.run_chunk`` does (the
        match then in progress is ``truncated``); ``cancel[0]`` is looked at before every
        move (KeyboardInterrupt)."""
        total = empty_counts()
        parts: list[bytes] = []
        budget = [hand_budget]
        for i in range(start, stop):
            if self.match(i, total, budget, cancel, parts) or budget[0] == 0:
                break
        return (b"".join(parts) if self.record else None), total

    def match(self, i, st, budget, cancel, parts) -> bool:
        """Play match ``i`` into the counters ``st``; True when the hand budget cut it."""
        from .agents import seat_moves
        from .codec import count
        from .game import Game
        from .simulate_core import match_seed

        ms = match_seed(self.seed, i)
        game = Game(seed=ms, rules=self.rules)
        hand, cut = game.hand_number, False
        if cancel is not None and cancel[0]:
            raise KeyboardInterrupt("stopped")
        for lo, hi in seat_moves(game, self.roster, ms):
            if cancel is not None and cancel[0]:       # looked at before every next move
                raise KeyboardInterrupt("stopped")
            t = (hi >> _TYPE_SHIFT) & 15
            if t == _T_PASS:
                st["passes"] += 1
            elif t not in _T_EXCHANGE:
                st["plays"] += 1
                st["cards"] += count(lo, hi)
                if t in _T_BOMBS:
                    st["bombs"] += 1
            if (game.is_over or game.hand_number != hand) and budget[0] is not None:
                hand = game.hand_number
                budget[0] -= 1
                if budget[0] == 0 and not game.is_over:
                    cut = True
                    break
        hands = game.results
        for r in hands:
            order = r["finish_order"]
            partner = order[0] ^ 2
            st["hand_wins"][order[0] & 1] += 1
            st["patterns"][(order.index(partner) + 1 if partner in order else 4) - 2] += 1
        st["hands"] += len(hands)
        st["longest"] = max(st["longest"], len(hands))
        if cut:
            st["truncated"] += 1
        else:
            st["matches"] += 1
            st["team_wins"][game.winner] += 1
        if self.record:
            from .records import game_to_lines

            parts.append("".join(line + "\n" for line in
                                 game_to_lines(game, self.names)).encode("utf-8"))
        return cut


class Tally:
    """The merge side of a run (``runner.Ordered``): counters of the blocks ``0, 1, 2, ...``
    (each ``(record bytes or None, counters)``) summed in block order, their records written
    in that order to ``out`` (a ``records`` writer, or None); in hands mode, the block that
    reaches the target stops the run and is kept in ``last`` as ``(block, hands still to
    play)``."""

    def __init__(self, hands, out=None, progress=None) -> None:
        self.hands, self.out, self.progress = hands, out, progress
        self.total = empty_counts()
        self.last = None
        self.arrived_matches = 0

    def left(self):
        """Hands still to play (None in matches mode)."""
        return None if self.hands is None else self.hands - self.total["hands"]

    def merge(self, k, result) -> bool:
        record, stats = result
        if self.hands is not None and self.total["hands"] + stats["hands"] >= self.hands:
            self.last = (k, self.hands - self.total["hands"])
            return True
        self.add(record, stats)
        return False

    def add(self, record, stats) -> None:
        """A block's result: its record's bytes (or None) and counters."""
        with interrupt_held():        # the record and the totals agree
            add_counts(self.total, stats)
            if self.out is not None and record:
                self.out.block(record)    # whole matches in one write

    def after(self, k, result) -> None:
        """Progress: matches arrived (matches mode) or hands merged (hands mode)."""
        self.arrived_matches += result[1]["matches"]
        if self.progress is not None:
            if self.hands is None:
                self.progress(self.arrived_matches)
            else:
                self.progress(self.hands if self.last is not None
                              else min(self.total["hands"], self.hands))


def _run_local(block, matches, hands, record, progress) -> dict:
    """The run on this machine: blocks of ``block.per_chunk`` matches over the threads (with
    a record, each block's lines are made on its thread as it is played, and written here in
    block order, one write per block: whole matches); in hands mode, until the block that
    reaches the target, which is then replayed with the remaining hand budget: its matches
    are deterministic, so this is exact."""
    from .records import RecordWriter

    out = None if record is None else RecordWriter(record, "record")
    tally = None
    try:
        tally = Tally(hands, out, progress)
        size = block.per_chunk
        order = Ordered(None if matches is None else -(-matches // size),
                        tally.merge, tally.after)

        def bounds(i):
            a = i * size
            return a, a + size if matches is None else min(a + size, matches)

        replay = threading.Lock()        # held by the thread that replays the last block

        def finish(cancel):
            # Hands mode: the block that reached the target, replayed with the hands left, by
            # the first thread out of blocks while the others end theirs (blocks after it
            # are dropped; merging has stopped, so this thread alone adds to the tally).
            if tally.last is not None and replay.acquire(blocking=False):
                k, budget = tally.last
                tally.add(*block.chunk(*bounds(k), hand_budget=budget, cancel=cancel))

        run_threads(order, block.threads, lambda i, c: block.chunk(*bounds(i), cancel=c),
                    name="guandan-sim", finish=finish)
        return tally.total
    except KeyboardInterrupt as exc:
        if tally is not None:   # how far it got: the counters of the units merged so far
            exc.totals = tally.total
        raise
    finally:
        if out is not None:
            out.close()


class _Blocks:
    """Block ``k`` of a Ray run: matches ``k * size ..`` (picklable, sent to the workers)."""

    def __init__(self, block, size, matches) -> None:
        self.block, self.size, self.matches = block, size, matches

    def bounds(self, k):
        a = k * self.size
        return a, a + self.size if self.matches is None else min(a + self.size, self.matches)

    def __call__(self, k, cancel):
        return self.block(*self.bounds(k), cancel=cancel)


def _run_on_ray(block, matches, hands, record, progress, address, task_matches) -> dict:
    """The run as Ray tasks of ``task_matches`` consecutive matches (docs/distributed.md);
    records written in match order by this process; the same result as ``_run_local``."""
    from .distributed import MIN_TASK_MATCHES, TASKS_PER_SLOT, connected, run_on_ray, slots
    from .records import RecordWriter

    out = None
    try:
        with connected(address) as ray:
            n_slots = slots(ray, block.threads)
            if record is not None:  # opened (truncated) only once the run can start
                out = RecordWriter(record, "record")
            if task_matches is None:
                # Hands mode: a match has 4 hands or more (4-2-1 upgrades), so hands // 4 + 1
                # matches always suffice; only the block size depends on this estimate.
                need = matches if matches is not None else hands // 4 + 1
                per = -(-need // (TASKS_PER_SLOT * n_slots))
                task_matches = max(MIN_TASK_MATCHES,
                                   -(-per // MATCHES_PER_CHUNK) * MATCHES_PER_CHUNK)
            blocks = _Blocks(block, task_matches, matches)
            tally = Tally(hands, out, progress)
            order = Ordered(None if matches is None else -(-matches // task_matches),
                            tally.merge, tally.after)
            try:
                run_on_ray(ray, order, blocks, cpus=block.threads,
                           window=TASKS_PER_SLOT * n_slots)
            except KeyboardInterrupt as exc:
                exc.totals = tally.total   # how far it got (as _run_local)
                raise
            if tally.last is not None:
                k, budget = tally.last
                tally.add(*block(*blocks.bounds(k), hand_budget=budget))
            return tally.total
    finally:
        if out is not None:
            out.close()

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

Agents: ``random`` (uniform over the complete legal move list), ``random_compact`` (uniform
over the compact list: one canonical move per (type, key, size)) and ``greedy`` (docs/design.md,
"Bots"); the search agents ``pimc`` and ``ismcts``, with their budget in the name
(``pimc:samples=8:rollouts=1``; docs/search.md).

Reproducibility: match ``i`` is dealt from SplitMix64 state ``match_seed(seed, i)`` (the
``i``-th output of SplitMix64 started at ``seed``) and each seat's bot from its own stream
derived from it, so a match's course depends only on ``(seed, i)``; runs are split into fixed
chunks of matches, so the result (elapsed time aside) is the same for every thread count, in
both modes.
"""

from __future__ import annotations

import operator
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from .rules import Rules

__all__ = ["simulate", "SimulationResult", "AGENTS"]

#: The built-in agents (the search agents take parameters: ``pimc:samples=8``, docs/search.md).
AGENTS = ("random", "random_compact", "greedy", "expert", "pimc", "ismcts")
_SEARCH = ("pimc", "ismcts")

# Matches per unit of work. Fixed (not derived from the thread count) so that the hands mode,
# which discards whole chunks past its target, gives the same result for every thread count.
CHUNK = 16

_PATTERNS = ("1-2", "1-3", "1-4")

#: More threads than this is refused (a typo, not a machine): each is an OS thread.
MAX_THREADS = 1024


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
        lines.append(f"{'team':<6}{'seats':<7}{'agents':<32}{'match wins':>11}{'rate':>8}"
                     f"{'hand wins':>11}")
        for t in (0, 1):
            names = f"{self.agents[t]} / {self.agents[t + 2]}"
            rate = f"{100 * self.win_rate(t):.1f}%"
            lines.append(f"{t:<6}{f'{t},{t + 2}':<7}{names:<32}{self.team_wins[t]:>11}"
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


def _check_count(name: str, value) -> int:
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    value = operator.index(value)   # numpy integers too
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    if value > 1 << 62:
        raise ValueError(f"{name} must be at most 2**62, got {value}")
    return value


def _check_agents(agents) -> tuple[str, ...]:
    if isinstance(agents, str):
        agents = [a.strip() for a in agents.split(",")]
    try:
        names = tuple(agents)
    except TypeError:
        raise TypeError(f"agents must be four agent names, not {type(agents).__name__}") from None
    if len(names) != 4:
        raise ValueError(f"agents must name exactly 4 agents (seats 0..3), got {len(names)}")
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"an agent name is a str, not {type(name).__name__}")
        base = name.split(":", 1)[0]
        if base not in AGENTS or (base != name and base not in _SEARCH):
            raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(AGENTS)}")
        if base in _SEARCH:
            _search_spec(name)   # checks the parameters
    return names


def _search_spec(name: str):
    """``(base, parameters)`` of a search agent's name, or None for a built-in bot."""
    if name.split(":", 1)[0] not in _SEARCH:
        return None
    from .search import parse_agent  # compiled
    return parse_agent(name)


class _Pool:
    """Hands out chunks to worker threads and keeps their results, in chunk order."""

    def __init__(self, n_chunks: int | None, target_hands: int | None, progress,
                 cancel: bytearray | None = None) -> None:
        self.lock = threading.Lock()
        self.n_chunks = n_chunks          # None: unbounded (hands mode)
        self.target = target_hands
        self.progress = progress
        self.next = 0
        self.results: dict[int, dict] = {}
        self.prefix = 0                   # chunks 0..prefix-1 are done
        self.prefix_hands = 0
        self.done_matches = 0
        self.stop = False
        self.error: BaseException | None = None
        # Set to 1 on failure or Ctrl-C (or by the caller's other thread, when it gives the
        # byte): compiled chunks in flight poll it and stop at once.
        self.cancel = bytearray(1) if cancel is None else cancel

    def take(self) -> int | None:
        with self.lock:
            if self.stop or (self.n_chunks is not None and self.next >= self.n_chunks):
                return None
            i = self.next
            self.next += 1
            return i

    def put(self, i: int, stats: dict) -> None:
        with self.lock:
            self.results[i] = stats
            self.done_matches += stats["matches"]
            while self.prefix in self.results:
                self.prefix_hands += self.results[self.prefix]["hands"]
                self.prefix += 1
                if self.target is not None and self.prefix_hands >= self.target:
                    self.stop = True
                    break
            if self.progress is not None:
                # Called under the lock: one call at a time, with non-decreasing counts.
                if self.target is None:
                    self.progress(self.done_matches)
                else:
                    self.progress(min(self.prefix_hands, self.target))

    def fail(self, exc: BaseException) -> None:
        with self.lock:
            if self.error is None:
                self.error = exc
            self.stop = True
            self.cancel[0] = 1


def _add(total: dict, stats: dict) -> None:
    for key, value in stats.items():
        if isinstance(value, list):
            total[key] = [a + b for a, b in zip(total[key], value)]
        elif key == "longest":
            total[key] = max(total[key], value)
        else:
            total[key] += value


def _empty() -> dict:
    return {"matches": 0, "hands": 0, "plays": 0, "passes": 0, "cards": 0, "bombs": 0,
            "team_wins": [0, 0], "hand_wins": [0, 0], "patterns": [0, 0, 0], "longest": 0,
            "truncated": 0, "errors": 0}


def simulate(matches: int | None = None, hands: int | None = None,
             agents: Sequence[str] | str = ("greedy", "random", "greedy", "random"),
             seed: int = 0, rules: Rules = Rules(), threads: int = 1,
             record: str | os.PathLike | None = None,
             progress: Callable[[int], object] | None = None,
             cluster: str | None = None, address: str | None = None,
             task_matches: int | None = None) -> SimulationResult:
    """Play ``matches`` whole matches, or ``hands`` hands, between built-in bots.

    Give exactly one of ``matches`` and ``hands``. In hands mode, matches 0, 1, 2, ... are
    played in order until ``hands`` hands have been played; the last match is then usually
    cut short (counted in ``truncated``, not in ``matches``). ``agents``: four names by seat
    (or one comma-separated string) from ``AGENTS``. ``threads``: Python threads, each
    running its share of the chunks in compiled code without the GIL. ``progress(n)`` is
    called after each chunk with the matches done (hands done in hands mode), one call at a
    time. ``record``: a path (``str``/``os.PathLike``; gzip-compressed when it ends in ``.gz``)
    or a file object (written to, not closed); every match is also written there as JSON Lines
    game records (python/guandan_fast/records.py), in match order — the recording itself runs
    in the calling thread. A record takes about 5 KB per hand (docs/records.md).

    ``cluster='ray'`` runs the work as Ray tasks of ``task_matches`` consecutive matches (each
    task runs ``threads`` threads and asks Ray for as many CPUs) on the cluster at ``address``
    (``None``: ``RAY_ADDRESS`` if set, else a local cluster on loopback started for this call
    and stopped after it; ``'auto'``, ``'HOST:PORT'``, ``'ray://...'``: that cluster; an existing
    ``ray.init`` connection is used as it is). The result, records included, is identical to a
    single-process run; ``progress`` is then called after each finished task
    (docs/distributed.md).

    >>> simulate(matches=2, hands=10)
    Traceback (most recent call last):
    ...
    ValueError: give exactly one of matches= and hands=, not both
    >>> simulate(matches=1, agents=('greedy', 'random', 'smart', 'random'))
    Traceback (most recent call last):
    ...
    ValueError: unknown agent 'smart'; known agents: random, random_compact, greedy, expert, pimc, ismcts
    """
    from . import simulate_core as core  # compiled

    if matches is not None and hands is not None:
        raise ValueError("give exactly one of matches= and hands=, not both")
    if matches is None and hands is None:
        raise ValueError("give exactly one of matches= and hands= (e.g. matches=1000)")
    if matches is not None:
        matches = _check_count("matches", matches)
    else:
        hands = _check_count("hands", hands)
    names = _check_agents(agents)
    if isinstance(seed, bool) or not hasattr(type(seed), "__index__"):
        raise TypeError(f"seed must be an int, not {type(seed).__name__}")
    seed = operator.index(seed)
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a guandan_fast.Rules, not {type(rules).__name__}")
    threads = _check_count("threads", threads)
    if threads > MAX_THREADS:
        raise ValueError(f"threads must be 1..{MAX_THREADS}, got {threads}")
    if record is not None:
        from .records import check_output

        check_output(record, "record")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable, not {type(progress).__name__}")
    check_cluster(cluster, address)
    if task_matches is not None:
        _check_count("task_matches", task_matches)
        if cluster is None:
            raise ValueError("task_matches= needs cluster='ray'")
    kinds = tuple(core.AGENT_CODES[n.split(":", 1)[0]] for n in names)
    search = tuple(_search_spec(n) for n in names)
    core.rules_check(rules)

    t0 = time.perf_counter()
    if cluster == "ray":
        from .distributed import simulate_on_ray

        total = simulate_on_ray(matches, hands, kinds, seed, rules, threads, record, progress,
                                address, task_matches, search)
    elif record is not None:
        total = _run_recorded(core, matches, hands, kinds, seed, rules, record, progress,
                              search)
    else:
        total = _run_chunks(core, matches, hands, kinds, seed, rules, threads, progress,
                            search)
    elapsed = time.perf_counter() - t0
    if total["errors"]:
        raise RuntimeError(f"{total['errors']} match(es) failed inside the compiled engine")

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


def check_cluster(cluster, address) -> None:
    """The ``cluster=``/``address=`` arguments of ``simulate`` and ``tournament``."""
    if cluster not in (None, "ray"):
        raise ValueError(f"cluster must be None or 'ray', got {cluster!r}")
    if address is not None:
        if not isinstance(address, str):
            raise TypeError(f"address must be a str, not {type(address).__name__}")
        if cluster is None:
            raise ValueError("address= needs cluster='ray'")


def run_workers(n: int, worker: Callable[[], None], fail: Callable[[BaseException], None],
                name: str, join_timeout: float | None = None) -> None:
    """Run ``worker`` in ``n`` threads (inline when ``n == 1``) until each returns. On Ctrl-C
    in the calling thread, ``fail(KeyboardInterrupt())`` tells the workers to stop; they are
    joined (at most ``join_timeout`` s each) and the interrupt goes on."""
    if n == 1:
        worker()
        return
    ts = [threading.Thread(target=worker, name=f"{name}-{k}", daemon=True) for k in range(n)]
    for t in ts:
        t.start()
    try:
        for t in ts:
            t.join()
    except BaseException:
        fail(KeyboardInterrupt())
        for t in ts:
            t.join(timeout=join_timeout)
        raise


def _run_chunks(core, matches, hands, kinds, seed, rules, threads, progress, search,
                start=0, cancel=None) -> dict:
    """Matches ``start .. matches-1`` (matches mode) or the first ``hands`` hands (hands mode,
    ``start`` 0), in chunks of ``CHUNK`` spread over ``threads`` threads. Setting
    ``cancel[0]`` (a bytearray) from another thread stops the run: KeyboardInterrupt."""
    n_chunks = None if matches is None else -(-(matches - start) // CHUNK)
    pool = _Pool(n_chunks, hands, progress, cancel)

    def bounds(i: int) -> tuple[int, int]:
        stop = start + (i + 1) * CHUNK
        return start + i * CHUNK, stop if matches is None else min(stop, matches)

    def worker() -> None:
        try:
            while True:
                i = pool.take()
                if i is None:
                    return
                a, b = bounds(i)
                pool.put(i, core.run_chunk(a, b, seed, kinds, rules, search=search,
                                           cancel=pool.cancel))
        except BaseException as exc:  # re-raised in the calling thread
            pool.fail(exc)

    # Ctrl-C: the workers' chunks see pool.cancel and stop within milliseconds; their partial
    # counts are discarded.
    run_workers(threads, worker, pool.fail, "guandan-sim", join_timeout=1.0)
    if pool.error is not None:
        raise pool.error

    total = _empty()
    if hands is None:
        for i in range(n_chunks):
            _add(total, pool.results[i])
        return total
    # Hands mode: whole chunks up to the one that reaches the target, which is replayed
    # with the remaining hand budget (its matches are deterministic, so this is exact).
    done = 0
    for i in range(pool.prefix):
        stats = pool.results[i]
        if done + stats["hands"] >= hands:
            a, b = bounds(i)
            _add(total, core.run_chunk(a, b, seed, kinds, rules, hand_budget=hands - done,
                                       search=search))
            break
        _add(total, stats)
        done += stats["hands"]
    return total


def _record_one(core, seed, i, kinds, rules, left, search) -> tuple[list[str], dict]:
    """Match ``i`` played in compiled code (at most ``left`` hands when not None), then its
    actions replayed into a compiled Game (which checks every move): (record lines, stats)."""
    from . import records
    from .game import Game

    ms, actions, stats = core.record_match(seed, i, kinds, rules, hand_budget=left,
                                           search=search)
    game = Game(seed=ms, rules=rules)
    for seat, lo, hi in actions.tolist():
        if game.current_player != seat:
            raise RuntimeError(f"match {i}: seat {seat} recorded out of turn")
        game.play_words(lo, hi)
    return records.game_to_lines(game), stats


def _record_range(core, start, stop, seed, kinds, rules, hand_budget, search, cancel=None):
    """Matches ``start .. stop-1`` recorded (at most ``hand_budget`` hands in all, like
    ``run_chunk``): (record lines, summed stats). Setting ``cancel[0]`` (a bytearray) from
    another thread stops it after the match being played: KeyboardInterrupt."""
    total = _empty()
    lines: list[str] = []
    left = hand_budget
    for i in range(start, stop):
        if left is not None and left <= 0:
            break
        if cancel is not None and cancel[0]:
            raise KeyboardInterrupt
        match_lines, stats = _record_one(core, seed, i, kinds, rules, left, search)
        lines.extend(match_lines)
        _add(total, stats)
        if left is not None:
            left -= stats["hands"]
    return lines, total


def _run_recorded(core, matches, hands, kinds, seed, rules, path, progress, search) -> dict:
    from .records import _Output

    total = _empty()
    left = hands
    i = 0
    with _Output(path, "record") as out:
        while (matches is not None and i < matches) or (hands is not None and left > 0):
            lines, stats = _record_one(core, seed, i, kinds, rules, left, search)
            for line in lines:
                out.line(line)
            _add(total, stats)
            i += 1
            if left is not None:
                left -= stats["hands"]
            if progress is not None:
                progress(total["matches"] if hands is None else total["hands"])
    return total

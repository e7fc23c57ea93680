"""This engine against another Guandan engine, on the same work: pinned, interleaved, ratios.

Workloads (the same inputs for every engine; ``--level``, default 7):

* ``lead``: the legal moves on lead of ``--hands`` random 27-card hands (seeded deals);
* ``follow``: the legal moves of the same hands following one play of each type
  (Single, Pair, Trips, ThreeWithTwo, Straight, ThreePair, TwoTrips, Bomb);
* ``hand``: one whole hand (the first deal of a match from seed ``i``) played to its end,
  every player taking the first legal move (``--choice first``) or a seeded random one
  (``--choice random``);
* ``env``: a batched environment for learning: ``--tables`` tables stepped ``--steps`` times,
  every seat a learner taking a random legal action, the observation encoded at every
  decision; timed per decision (this engine: ``VecEnv`` with its default encoder). Only
  engines that offer one take part (the reference engine has none).

Each engine is an *adapter* (the ``Engine`` protocol below). Two are built in: ``fast`` (this
package's compiled engine, always the baseline) and ``reference`` (its pure-Python reference
engine, ``guandan_fast.reference``, timed cold: its caches are cleared before each call).
Another engine is measured by pointing the bench at an adapter for it::

    --peer NAME=MODULE:FACTORY          # an importable module (``--path DIR`` adds DIR first)
    --peer NAME=FILE.py:FACTORY         # or a file; FACTORY() returns the adapter
    --peer NAME=cmd:COMMAND ARGS        # or an engine in a process of its own, any language

An adapter is a small class with a ``version`` string and three methods that take platform
card codes (``'H7'``, ``'SB'``; a play as ``(type, rank, cards)``, e.g. ``('Pair', '8',
('S8', 'C8'))``) and return counts, so that the counts can be compared across engines:
``lead_count(cards, level)``, ``follow_count(cards, level, last)`` (PASS included) and
``play_hand(seed, choice)`` (the number of plays and passes of one whole hand), and, for
``env``, optionally ``env_decisions(tables, steps, seed)`` (the decisions made). The adapter
converts the codes to its engine's own notation inside the timed call: a user of that engine
pays for the conversion too. An engine in another process answers the same three questions
as lines on its stdin and stdout (``ProcessEngine`` below gives the protocol;
``--serve fast`` is this engine speaking it, to test a peer's side against).

* **gd_core** (a C++ engine with a Python module): build it, then write an adapter whose
  methods call its hand-from-cards, legal-move and step functions (and its batched loop with
  its encoding, for ``env``), and run e.g. ``--path GD_CORE_BUILD_DIR --peer
  gd_core=gd_core_adapter.py:make``. Its canonical mode (moves deduplicated by rank pattern)
  counts fewer moves than ours: the bench prints both counts.
* **OpenGuanDan** (the Java rules engine of the OpenGuanDan benchmark): a small Java main
  beside its classes that reads the line protocol and answers from its rules engine, run as
  ``--peer openguandan=cmd:java -cp OPENGUANDAN_CLASSES:. GuandanLines``; the JVM starts once,
  before the timings. Each item then carries a pipe round trip (about 0.1 ms here), which is
  small against that engine's own time and negligible for whole hands.

Method: the process (and any engine's own process) is pinned to one CPU (``--cpu``, default
the last one it may use) so that every engine runs on the same core; each engine is sized once (a turn lasts about
``--seconds``); then ``--rounds`` rounds, in each of which every engine runs its turn over the
same inputs, in forward order in even rounds and reverse order in odd ones (so a drift of the
machine's speed hits both alike). The figure per round is the peer's time per item over ours;
the table gives its median and range over rounds, and each engine's median time per item.

The figures quoted in bench/RESULTS.md for gd_core and OpenGuanDan (the batched environment
16-23x gd_core with encoding, whole games 10-11x, about 1,000x OpenGuanDan's Java engine) were
measured by the maintainers on a machine that had those engines; the machine these docs were
written on has neither.

A run is ``--rounds`` rounds of about ``--seconds`` per engine and workload, plus sizing: with
the defaults (5 rounds, 1 s, 4 workloads) it takes about 50 s for two fast engines and about
80 s against the reference (its whole hands are slow). The quick check against the reference
(a few seconds)::

    .venv/bin/python bench/bench_peers.py --peer reference --hands 8 --rounds 3 --seconds 0.2
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import math
import os
import pathlib
import random
import statistics
import sys
import time
from contextlib import contextmanager
from typing import Callable, Protocol, Sequence

WORKLOADS = ("lead", "follow", "hand", "env")
CHOICES = ("first", "random")

#: One play of each type to follow, as (type, rank, cards); their cards need not be dealt.
FOLLOW_PLAYS = (
    ("Single", "9", ("S9",)),
    ("Pair", "8", ("S8", "C8")),
    ("Trips", "6", ("S6", "C6", "D6")),
    ("ThreeWithTwo", "5", ("S5", "C5", "D5", "S3", "C3")),
    ("Straight", "2", ("S2", "C3", "D4", "S5", "C6")),
    ("ThreePair", "3", ("S3", "C3", "S4", "C4", "D5", "S5")),
    ("TwoTrips", "3", ("S3", "C3", "D3", "S4", "C4", "D4")),
    ("Bomb", "9", ("S9", "C9", "D9", "H9")),
)


class Engine(Protocol):
    """What the bench asks of an engine (see the module's docstring)."""

    version: str

    def lead_count(self, cards: Sequence[str], level: int) -> int: ...

    def follow_count(self, cards: Sequence[str], level: int,
                     last: tuple[str, str, Sequence[str]]) -> int: ...

    def play_hand(self, seed: int, choice: str) -> int: ...

    # Optional, for the ``env`` workload: def env_decisions(self, tables, steps, seed) -> int


def _pick(n: int, rng: random.Random | None) -> int:
    return 0 if rng is None else rng.randrange(n)


class FastEngine:
    """This package's compiled engine through its public Python API (the baseline).

    >>> FastEngine().lead_count(("S3", "C3"), 7)
    3
    """

    def __init__(self) -> None:
        import guandan_fast as gf

        self.gf, self.version = gf, f"guandan_fast {gf.__version__}"

    def lead_count(self, cards, level):
        return len(self.gf.Hand(cards).legal_moves(level))

    def follow_count(self, cards, level, last):
        return len(self.gf.Hand(cards).legal_moves(level, last=self.gf.Move(*last)))

    def play_hand(self, seed, choice):
        game = self.gf.Game(seed=seed)
        rng = None if choice == "first" else random.Random(seed)
        steps = 0
        while game.hand_number == 0 and not game.is_over:
            n = len(game.legal_moves_array())
            game.play_index(_pick(n, rng))
            steps += 1
        return steps

    def env_decisions(self, tables, steps, seed):
        import numpy as np

        env = self.gf.VecEnv(tables, seed=seed)        # every seat a learner, default encoder
        batch, rng = env.reset(), np.random.default_rng(seed)
        for _ in range(steps):
            counts = np.diff(batch.cand_offsets)          # a random legal action per table
            pick = (rng.random(len(counts)) * counts).astype(np.int64)
            env.step(batch.cand_ids[batch.cand_offsets[:-1] + pick])
            batch = env.pending()
            env.drain_results()
        return tables * steps


class ReferenceEngine:
    """The pure-Python reference engine, timed cold (its readings cache cleared per call).

    >>> ReferenceEngine().lead_count(("S3", "C3"), 7)
    3
    """

    def __init__(self) -> None:
        import guandan_fast
        from guandan_fast.reference import combos, game, movegen

        self.movegen, self.game, self.Move = movegen, game, guandan_fast.Move
        self._cold = combos.readings.cache_clear
        self.version = f"guandan_fast.reference {guandan_fast.__version__}"

    def lead_count(self, cards, level):
        self._cold()
        return len(self.movegen.legal_moves(cards, level))

    def follow_count(self, cards, level, last):
        self._cold()
        return len(self.movegen.legal_moves(cards, level, last=self.Move(*last)))

    def play_hand(self, seed, choice):
        self._cold()
        game = self.game.Game(seed=seed)
        rng = None if choice == "first" else random.Random(seed)
        steps = 0
        while game.hand_number == 0 and not game.is_over:
            moves = game.legal_moves()
            game.play(moves[_pick(len(moves), rng)])
            steps += 1
        return steps


BUILT_IN: dict[str, Callable[[], Engine]] = {"fast": FastEngine, "reference": ReferenceEngine}


class BadArgument(ValueError):
    """A command-line value the bench cannot use (one line, exit status 2)."""


class ProcessEngine:
    """An engine in another process (any language), asked one line at a time on its stdin;
    it answers each request with one line on its stdout:

    * ``version`` -> any text naming the engine and its version;
    * ``lead LEVEL CARD...`` -> the number of legal moves on lead;
    * ``follow LEVEL TYPE RANK CARD,CARD,... CARD...`` -> the number of legal moves (PASS
      included) following the play ``(TYPE, RANK, cards)``, then the hand's cards;
    * ``hand SEED CHOICE`` -> the number of plays and passes of one whole hand;
    * ``env TABLES STEPS SEED`` -> the decisions of a batched environment's run (an engine
      without one answers ``error: ...``, and sits that workload out).

    The process starts once, before any timing, and is pinned to the bench's CPU with it;
    each item then pays one round trip through two pipes (about 0.1 ms on the 2-vCPU machine
    of bench/RESULTS.md: negligible for whole hands, a floor for single calls; measure it
    with ``--peer pipe=cmd:python bench/bench_peers.py --serve fast``, this engine behind the
    same pipes).
    """

    def __init__(self, name: str, command: Sequence[str]) -> None:
        import subprocess

        try:
            self.proc = subprocess.Popen(list(command), stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True, bufsize=1)
        except OSError as e:
            raise BadArgument(f"--peer {name}: cannot start {command[0]} ({e.strerror})") from None
        self.name, self._env = name, None
        try:
            self.version = self._ask("version")
        except RuntimeError as e:
            self.close()
            raise BadArgument(str(e)) from None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _ask(self, line: str) -> str:
        try:
            self.proc.stdin.write(line + "\n")
            answer = self.proc.stdout.readline()
        except (BrokenPipeError, OSError):
            answer = ""
        if not answer:
            try:
                status = self.proc.wait(timeout=1)
            except Exception:
                status = "still running, its stdout closed"
            raise RuntimeError(f"--peer {self.name}: the engine's process ended "
                               f"(status {status}) at the request {line[:40]!r}")
        return answer.strip()

    def _count(self, line: str) -> int:
        answer = self._ask(line)
        if not answer.isdigit():
            raise RuntimeError(f"--peer {self.name}: {answer[:60]!r} is not a count "
                               f"(request {line[:40]!r})")
        return int(answer)

    def lead_count(self, cards, level):
        return self._count(f"lead {level} {' '.join(cards)}")

    def follow_count(self, cards, level, last):
        kind, rank, played = last
        return self._count(f"follow {level} {kind} {rank} {','.join(played)} {' '.join(cards)}")

    def play_hand(self, seed, choice):
        return self._count(f"hand {seed} {choice}")

    def env_decisions(self, tables, steps, seed):
        return self._count(f"env {tables} {steps} {seed}")

    def offers_env(self) -> bool:
        """Whether the engine answers ``env`` (asked once, with one table and one step)."""
        if self._env is None:
            self._env = self._ask("env 1 1 1").isdigit()
        return self._env

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=5)
            except Exception:
                self.proc.kill()


def serve(engine: Engine, lines, out) -> int:
    """Answer ProcessEngine's requests with ``engine`` (``--serve``): the other end of the
    pipe, to check a peer's protocol against and to measure what the pipes cost.

    >>> import io
    >>> out = io.StringIO()
    >>> serve(FastEngine(), ["lead 7 S3 C3", "follow 7 Single 4 D4 S5 C3", "bad"], out)
    1
    >>> out.getvalue().splitlines()
    ['3', '2', 'error: unknown request bad']
    """
    bad = 0
    for line in lines:
        words = line.split()
        try:
            if words[0] == "version":
                answer = getattr(engine, "version", "?")
            elif words[0] == "lead":
                answer = engine.lead_count(tuple(words[2:]), int(words[1]))
            elif words[0] == "follow":
                last = (words[2], words[3], tuple(words[4].split(",")))
                answer = engine.follow_count(tuple(words[5:]), int(words[1]), last)
            elif words[0] == "hand":
                answer = engine.play_hand(int(words[1]), words[2])
            elif words[0] == "env" and hasattr(engine, "env_decisions"):
                answer = engine.env_decisions(int(words[1]), int(words[2]), int(words[3]))
            else:
                raise ValueError(f"unknown request {line.strip()[:40]}")
        except (ValueError, IndexError) as e:
            answer, bad = f"error: {e}", bad + 1
        print(answer, file=out, flush=True)
    return bad


def load_engine(spec: str, paths: Sequence[str] = ()) -> tuple[str, Engine]:
    """``NAME`` of a built-in engine, ``NAME=MODULE:FACTORY`` or ``NAME=FILE.py:FACTORY``.

    ``NAME=cmd:COMMAND ARGS`` starts an engine in another process (``ProcessEngine``).

    >>> load_engine("reference")[0]
    'reference'
    >>> load_engine("x=no_such_module_here:make")
    Traceback (most recent call last):
    ...
    bench_peers.BadArgument: --peer x: cannot import no_such_module_here (No module named 'no_such_module_here')
    """
    name, eq, target = spec.partition("=")
    if not eq:
        if spec not in BUILT_IN:
            raise BadArgument(f"--peer {spec}: not a built-in engine ({', '.join(BUILT_IN)}); "
                              "give NAME=MODULE:FACTORY, NAME=FILE.py:FACTORY or NAME=cmd:COMMAND")
        return spec, BUILT_IN[spec]()
    if target.startswith("cmd:"):
        import shlex

        command = shlex.split(target[4:])
        if not (name and command):
            raise BadArgument(f"--peer {spec}: expected NAME=cmd:COMMAND [ARGUMENTS]")
        return name, ProcessEngine(name, command)
    where, colon, factory = target.rpartition(":")
    if not (name and colon and where and factory):
        raise BadArgument(f"--peer {spec}: expected NAME=MODULE:FACTORY or NAME=FILE.py:FACTORY")
    for p in paths:
        if p not in sys.path:
            sys.path.insert(0, p)
    try:
        if where.endswith(".py"):
            path = pathlib.Path(where)
            if not path.is_file():
                raise BadArgument(f"--peer {name}: no file {where}")
            module_spec = importlib.util.spec_from_file_location(f"_peer_{name}", path)
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(where)
    except ImportError as e:
        raise BadArgument(f"--peer {name}: cannot import {where} ({e})") from None
    make = getattr(module, factory, None)
    if not callable(make):
        raise BadArgument(f"--peer {name}: {where} has no callable {factory}")
    engine = make()
    missing = [m for m in ("lead_count", "follow_count", "play_hand")
               if not callable(getattr(engine, m, None))]
    if missing:
        raise BadArgument(f"--peer {name}: the adapter lacks {', '.join(missing)}")
    return name, engine


def random_hands(n: int, seed: int = 2024) -> list[tuple[str, ...]]:
    """``n`` 27-card hands of seeded random deals (four hands a deal), the bench's inputs.

    >>> hands = random_hands(5); len(hands), {len(h) for h in hands}
    (5, {27})
    """
    from guandan_fast.cards import FULL_DECK

    rng, out = random.Random(seed), []
    while len(out) < n:
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        out.extend(tuple(deck[27 * p: 27 * p + 27]) for p in range(4))
    return out[:n]


def work_items(workload: str, hands: Sequence[tuple[str, ...]], level: int,
               choice: str, tables: int = 256, steps: int = 200) -> list[Callable[[Engine], int]]:
    """The workload's items, each a call on an engine returning its count."""
    if workload == "env":
        return [lambda e: e.env_decisions(tables, steps, 1)]
    if workload == "lead":
        return [lambda e, h=h: e.lead_count(h, level) for h in hands]
    if workload == "follow":
        return [lambda e, h=h, last=last: e.follow_count(h, level, last)
                for h in hands for last in FOLLOW_PLAYS]
    return [lambda e, s=s: e.play_hand(s, choice) for s in range(len(hands))]


@contextmanager
def pinned(cpu: int | None, pids: Sequence[int] = ()):
    """Run the body with this process and the processes ``pids`` (engines in processes of
    their own) on CPU ``cpu`` only (None: as is); their affinities are restored after."""
    if cpu is None or not hasattr(os, "sched_setaffinity"):
        yield
        return
    before = {pid: os.sched_getaffinity(pid) for pid in (0, *pids)}
    for pid in before:
        os.sched_setaffinity(pid, {cpu})
    try:
        yield
    finally:
        for pid, cpus in before.items():
            try:
                os.sched_setaffinity(pid, cpus)
            except ProcessLookupError:          # an engine's process that has ended
                pass


def run_turn(engine: Engine, items, reps: int) -> tuple[float, list[int]]:
    """Seconds per item of ``reps`` passes over ``items``, and the counts of the last pass."""
    t0 = time.perf_counter()
    for _ in range(reps):
        counts = [item(engine) for item in items]
    return (time.perf_counter() - t0) / (reps * len(items)), counts


def offers(engine: Engine, workload: str) -> bool:
    """Whether ``engine`` takes part in ``workload`` (``env`` is optional).

    >>> offers(FastEngine(), "env"), offers(ReferenceEngine(), "env")
    (True, False)
    """
    if workload != "env":
        return True
    if isinstance(engine, ProcessEngine):
        return engine.offers_env()
    return callable(getattr(engine, "env_decisions", None))


def compare(engines: dict[str, Engine], workloads: Sequence[str], *, hands: int = 20,
            level: int = 7, choice: str = "first", rounds: int = 5, seconds: float = 1.0,
            cpu: int | None = None, tables: int = 256, steps: int = 200,
            progress=None) -> dict:
    """Time every engine on every workload in interleaved rounds; the first engine is the
    baseline. Returns per workload: each engine's seconds per item (per decision for
    ``env``) by round, the turn order of every round, each engine's counts, and per peer the
    median and range over rounds of its time over the baseline's (``ratio``: how many times
    as long the peer takes); engines without a batched environment sit ``env`` out.
    On Ctrl-C, raises ``KeyboardInterrupt`` with ``.partial``: the rounds done so far."""
    inputs = random_hands(hands)
    result = {"level": level, "hands": hands, "choice": choice, "cpu": cpu,
              "tables": tables, "steps": steps,
              "versions": {n: getattr(e, "version", "?") for n, e in engines.items()},
              "workloads": {}}
    names = list(engines)
    try:
        with pinned(cpu, [e.pid for e in engines.values() if isinstance(e, ProcessEngine)]):
            for workload in workloads:
                names = [n for n, e in engines.items() if offers(e, workload)]
                items = work_items(workload, inputs, level, choice, tables, steps)
                entry = {"items": len(items), "reps": {}, "seconds": {n: [] for n in names},
                         "order": [], "counts": {},
                         "left_out": [n for n in engines if n not in names]}
                result["workloads"][workload] = entry
                for n in names:                                   # sizing, and the counts
                    once, counts = run_turn(engines[n], items, 1)
                    entry["counts"][n] = sum(counts)
                    entry["reps"][n] = max(1, math.ceil(seconds / (once * len(items))))
                per = (lambda n: entry["counts"][n]) if workload == "env" else (lambda n: len(items))
                for r in range(rounds):
                    order = names if r % 2 == 0 else names[::-1]
                    entry["order"].append(list(order))
                    for n in order:
                        t = run_turn(engines[n], items, entry["reps"][n])[0] * len(items)
                        entry["seconds"][n].append(t / per(n))
                    if progress:
                        progress(f"{workload}: round {r + 1} of {rounds}")
                _ratios(entry, names)
    except KeyboardInterrupt as e:
        for entry in result["workloads"].values():
            _ratios(entry, list(entry["seconds"]))
        e.partial = result
        raise
    return result


def _ratios(entry: dict, names: list[str]) -> None:
    base = entry["seconds"][names[0]]
    entry["ratio"] = {}
    for n in names[1:]:
        per_round = [p / b for p, b in zip(entry["seconds"][n], base)]
        if per_round:
            entry["ratio"][n] = {"median": statistics.median(per_round),
                                 "min": min(per_round), "max": max(per_round)}


def table(result: dict) -> str:
    """The summary: per workload and engine, time per item, and peer time / baseline time."""
    lines = ["| workload | engine | per item (env: per decision) | rounds "
             "| peer / fast, median [range] | count |",
             "|---|---|---|---|---|---|"]
    for workload, entry in result["workloads"].items():
        for n, secs in entry["seconds"].items():
            if not secs:
                continue
            r = entry.get("ratio", {}).get(n)
            ratio = f"{r['median']:,.1f}x [{r['min']:,.1f}-{r['max']:,.1f}]" if r else "1 (baseline)"
            lines.append(f"| {workload} | {n} | {_time(statistics.median(secs))} | {len(secs)} "
                         f"| {ratio} | {entry['counts'][n]:,} |")
        lines.extend(f"| {workload} | {n} | | | (no batched environment) | |"
                     for n in entry.get("left_out", []))
    return "\n".join(lines)


def _time(s: float) -> str:
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:,.2f} {unit}"
    return f"{s * 1e9:,.0f} ns"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="bench_peers.py", description="This engine against another on the same work: "
        "pinned to one CPU, engines in turns, ratios of time per item.",
        epilog="example: bench/bench_peers.py --peer reference --hands 8 --rounds 3 --seconds 0.2")
    p.add_argument("--peer", action="append", default=[], metavar="SPEC",
                   help="an engine to compare: 'reference', NAME=MODULE:FACTORY, "
                   "NAME=FILE.py:FACTORY or NAME=cmd:COMMAND (repeatable)")
    p.add_argument("--path", action="append", default=[], metavar="DIR",
                   help="a folder to import peer modules from (repeatable)")
    p.add_argument("--serve", choices=sorted(BUILT_IN), metavar="ENGINE",
                   help="instead: answer the line protocol of NAME=cmd:... on stdin/stdout "
                   "with a built-in engine (fast or reference)")
    p.add_argument("--workloads", default=",".join(WORKLOADS),
                   help=f"comma-separated, of {', '.join(WORKLOADS)} (default: all)")
    p.add_argument("--hands", type=int, default=20, help="hands (and seeds) (default: 20)")
    p.add_argument("--tables", type=int, default=256,
                   help="tables of the batched environment, 'env' (default: 256)")
    p.add_argument("--steps", type=int, default=200,
                   help="steps of the batched environment, 'env' (default: 200)")
    p.add_argument("--level", type=int, default=7, help="level rank 2..14 (default: 7)")
    p.add_argument("--choice", choices=CHOICES, default="first",
                   help="the move each player takes in 'hand' (default: first)")
    p.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default: 5)")
    p.add_argument("--seconds", type=float, default=1.0,
                   help="about how long an engine's turn lasts (default: 1.0)")
    p.add_argument("--cpu", type=int, default=None,
                   help="the CPU to pin to (default: the last one this process may use)")
    p.add_argument("--json", metavar="FILE", help="also write the whole result as JSON")
    return p


def check_arguments(args) -> tuple[list[str], int | None]:
    """The workloads and the CPU to pin to, or BadArgument naming the first bad value."""
    if not args.peer:
        raise BadArgument("name an engine to compare with --peer (e.g. --peer reference)")
    workloads = [w for w in args.workloads.split(",") if w]
    bad = [w for w in workloads if w not in WORKLOADS]
    if bad or not workloads:
        raise BadArgument(f"--workloads: unknown {', '.join(bad) or '(none)'}; "
                          f"choose from {', '.join(WORKLOADS)}")
    for name, value, low in (("--hands", args.hands, 1), ("--rounds", args.rounds, 1),
                             ("--level", args.level, 2), ("--tables", args.tables, 1),
                             ("--steps", args.steps, 1)):
        if value < low or (name == "--level" and value > 14):
            raise BadArgument(f"{name}: {value} is out of range")
    if not args.seconds > 0:
        raise BadArgument(f"--seconds: {args.seconds} must be above 0")
    allowed = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    cpu = args.cpu if args.cpu is not None else (allowed[-1] if allowed else None)
    if allowed and cpu not in allowed:
        raise BadArgument(f"--cpu: {cpu} is not one of this process's CPUs {allowed}")
    return workloads, cpu


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.serve:
        serve(BUILT_IN[args.serve](), sys.stdin, sys.stdout)
        return 0
    engines = {"fast": FastEngine()}
    try:
        try:
            workloads, cpu = check_arguments(args)
            for spec in args.peer:
                name, engine = load_engine(spec, args.path)
                engines[name] = engine
        except BadArgument as e:
            print(f"bench_peers.py: {e}", file=sys.stderr)
            return 2
        print(f"engines: {', '.join(f'{n} ({e.version})' for n, e in engines.items())}; "
              f"pinned to CPU {cpu}", file=sys.stderr)
        try:
            result = compare(engines, workloads, hands=args.hands, level=args.level,
                             choice=args.choice, rounds=args.rounds, seconds=args.seconds,
                             cpu=cpu, tables=args.tables, steps=args.steps, progress=lambda line: print(line, file=sys.stderr,
                                                                  flush=True))
        except KeyboardInterrupt as e:
            done = {w: len(next(iter(x["seconds"].values())))
                    for w, x in e.partial["workloads"].items()}
            print(f"interrupted; rounds done per workload: {done}", file=sys.stderr)
            print(table(e.partial))
            return 130
        except RuntimeError as e:            # a peer's process ended or answered nonsense
            print(f"bench_peers.py: {e}", file=sys.stderr)
            return 1
        print(table(result))
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps(result, indent=1))
        return 0
    finally:
        for engine in engines.values():
            if callable(getattr(engine, "close", None)):
                engine.close()


if __name__ == "__main__":
    sys.exit(main())

"""The speed guard: callgrind instruction counts of fixed workloads against a committed baseline.

Wall time on a shared two-core machine varies by tens of percent from run to run; the number of
instructions a deterministic workload executes does not (docs/design.md, "The instruction
guard", gives the measured spread and the trial that shows a slower move generator fails it).
Every workload below is fixed work: fixed seeds, one thread, no time budgets.

    .venv/bin/python bench/instruction_guard.py            # the table; exit status 1 if one grew
    .venv/bin/python bench/instruction_guard.py --update   # rewrite the baseline (say why in the commit)

It takes about a minute (about 25 s of CPU, two callgrind processes side by side).

Each workload runs twice in one process under ``valgrind --tool=callgrind``; the count of the
second run is the figure (the first pays for imports, lazily built tables and caches). The
process calls ``os.getsid`` after each run, and ``--dump-before=getsid`` makes callgrind write
the instructions counted since the previous mark, so one process (and one interpreter
start-up) counts many workloads. The workloads run in two processes side by side, each always
with the same ones in the same order, so what one run leaves behind for the next is the same
every time. ``PYTHONHASHSEED=0`` fixes the order of sets and dicts of strings.

The comparison itself needs no valgrind:

>>> rows, grown = compare({"lead": 1000, "solve": 500}, {"lead": 1250, "solve": 490}, 0.05)
>>> grown
['lead']
>>> print(table(rows))
workload     baseline          now   change
lead            1,000        1,250  +25.00%  FAIL
solve             500          490   -2.00%
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time

SCRIPT = pathlib.Path(__file__).resolve()
BASELINE = SCRIPT.with_name("instruction_baseline.json")

#: Growth over the baseline that fails the guard. Repeated runs on this machine (idle, and
#: beside busy processes) differ by far less (docs/design.md, "The instruction guard"); a
#: move generator doing 20 % more work grows the generation workloads by about that much.
TOLERANCE = 0.03

#: The C library function whose calls mark the end of a run (see the module's docstring);
#: nothing in the workloads or the interpreter calls it otherwise (checked: the number of
#: marks is known).
MARK = "getsid"

# -- the workloads ------------------------------------------------------------------------------
# Each is a function of no arguments that does the same work every time it is called.


def _hands(n: int, seed: int) -> list[list[str]]:
    """n fixed 27-card hands dealt from a shuffled deck."""
    import random

    from guandan_fast.cards import FULL_DECK

    rnd = random.Random(seed)
    deck = list(FULL_DECK)
    out = []
    for _ in range(n):
        rnd.shuffle(deck)
        out.append(deck[:27])
    return out


def lead() -> None:
    """Lead generation: 24 dealt hands at every level, complete and compact."""
    from guandan_fast import Hand
    from guandan_fast.bench_hooks import generate

    for i, cards in enumerate(_hands(24, 1)):
        h = Hand(cards)
        generate(h, 2 + i % 13)
        generate(h, 2 + (i + 5) % 13, compact=True)


def follow() -> None:
    """Follow generation: 24 dealt hands against a last play of each type (and a bomb)."""
    from guandan_fast import Hand, Move
    from guandan_fast.bench_hooks import generate

    lasts = [Move("Single", "8", "S8"), Move("Pair", "8", "S8 D8"), Move("Trips", "6", "S6 H6 C6"),
             Move("ThreeWithTwo", "5", "S5 H5 C5 D9 S9"),
             Move("Straight", "5", "S5 H6 C7 D8 S9"), Move("ThreePair", "4", "S4 H4 S5 H5 S6 H6"),
             Move("TwoTrips", "9", "S9 H9 C9 ST HT CT"), Move("Bomb", "6", "S6 H6 C6 D6")]
    for i, cards in enumerate(_hands(24, 2)):
        h = Hand(cards)
        for last in lasts:
            generate(h, 2 + i % 13, last=last)


def _hand_of(agent: str, seed: int) -> None:
    """One whole simulated hand, all four seats played by ``agent`` (in compiled code)."""
    from guandan_fast import simulate_core
    from guandan_fast.agents import parse_agent

    a = parse_agent(agent)
    simulate_core.run_chunk(0, 1, seed, (a.code,) * 4, hand_budget=1,
                            search=(a.search_spec,) * 4)


def hand_random() -> None:
    """A hand of four ``random`` bots."""
    for seed in range(4):
        _hand_of("random", seed)


def hand_random_compact() -> None:
    """A hand of four ``random_compact`` bots."""
    for seed in range(4):
        _hand_of("random_compact", seed)


def hand_greedy() -> None:
    """A hand of four ``greedy`` bots."""
    for seed in range(4):
        _hand_of("greedy", seed)


def hand_expert() -> None:
    """A hand of four ``expert`` bots."""
    for seed in range(2):
        _hand_of("expert", seed)


# The search agents' every parameter is given, so that new defaults change no workload, and
# ms=0: no time limit (a budget in milliseconds would make the work depend on the clock).
def hand_pimc() -> None:
    """A hand of four ``pimc`` agents with a small fixed budget."""
    _hand_of("pimc:samples=2:rollouts=1:search_at=12:solve_at=10:nodes=20000:rollout=greedy:"
             "margin=0:ms=0", 0)


def hand_ismcts() -> None:
    """A hand of four ``ismcts`` agents with a small fixed budget."""
    _hand_of("ismcts:iterations=40:explore=0.15:search_at=12:solve_at=10:nodes=20000:"
             "rollout=greedy:ms=0", 0)


def _vecenv_steps(encoder: str) -> None:
    from guandan_fast.vecenv import VecEnv

    env = VecEnv(16, seed=1, learners=(0,), opponents="greedy", encoder=encoder,
                 adapt_threads=False)
    b = env.reset()
    for _ in range(12):
        env.step(b.mask.argmax(axis=1))
        b = env.pending()


def vecenv_default() -> None:
    """VecEnv: 16 tables, 12 steps, the default encoder."""
    _vecenv_steps("default")


def vecenv_info() -> None:
    """VecEnv: 16 tables, 12 steps, the ``info`` encoder."""
    _vecenv_steps("info")


def vecenv_danzero() -> None:
    """VecEnv: 16 tables, 12 steps, the ``danzero`` encoder."""
    _vecenv_steps("danzero")


def solve() -> None:
    """The exact end-game solver on two fixed end games."""
    import guandan_fast as gf
    from guandan_fast.solve import random_endgame

    for seed in (1, 2):
        gf.solve(random_endgame(seed=seed, cards=4))


def platform_lists() -> None:
    """Legal moves in the platform's form: lists and their JSON text, lead and follow."""
    from guandan_fast import Hand, Move

    last = Move("Pair", "8", "S8 D8")
    for i, cards in enumerate(_hands(8, 3)):
        h = Hand(cards)
        for ml in (h.legal_moves(2 + i % 13), h.legal_moves(2 + i % 13, last=last)):
            ml.to_platform()
            ml.to_platform_json()


WORKLOADS = {f.__name__: f for f in (
    lead, follow, hand_random, hand_random_compact, hand_greedy, hand_expert, hand_pimc,
    hand_ismcts, vecenv_default, vecenv_info, vecenv_danzero, solve, platform_lists)}

#: The two processes and the order of their workloads: fixed, so that each workload always
#: follows the same ones (and roughly balanced in instructions).
GROUPS = (("lead", "hand_random", "hand_greedy", "hand_pimc", "vecenv_default", "vecenv_danzero",
           "platform_lists"),
          ("follow", "hand_random_compact", "hand_expert", "hand_ismcts", "vecenv_info",
           "solve"))
assert sorted(n for g in GROUPS for n in g) == sorted(WORKLOADS)


def run_child(names: list[str]) -> None:
    """Inside callgrind: each workload twice, a mark after each run."""
    import guandan_fast  # noqa: F401  (start-up, counted before the first mark)

    for name in names:
        WORKLOADS[name]()
        os.getsid(0)
        WORKLOADS[name]()
        os.getsid(0)


# -- counting -----------------------------------------------------------------------------------


class GuardError(Exception):
    """A problem that stops the guard (one line for the user)."""


def valgrind_command() -> str:
    path = shutil.which("valgrind")
    if path is None:
        raise GuardError("valgrind is not installed (sudo apt-get install -y valgrind)")
    return path


def child_env() -> dict:
    """The environment of a counted process, the same in every run: fixed string hashes,
    numpy's BLAS without threads of its own (they would run, and be counted, in whatever
    order they are scheduled), and nothing else from the caller's environment (its size moves
    the interpreter's memory layout, and with it the cost of lookups of objects hashed by
    address)."""
    keep = {k: os.environ[k] for k in ("PATH", "HOME", "SYSTEMROOT") if k in os.environ}
    return dict(keep, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
                MKL_NUM_THREADS="1", LC_ALL="C.UTF-8")


def read_parts(out: pathlib.Path, expected: int) -> list[int]:
    """Instructions of callgrind's dumps ``out.1 .. out.expected`` (the part before each
    mark), in order; GuardError when there are not exactly that many."""
    found = sorted(out.parent.glob(out.name + ".*"), key=lambda p: int(p.suffix[1:]))
    if len(found) != expected:
        raise GuardError(f"callgrind wrote {len(found)} dumps, expected {expected} (did "
                         f"something else call {MARK}()?)")
    counts = []
    for p in found:
        totals = [line for line in p.read_text().splitlines() if line.startswith("totals:")]
        if len(totals) != 1:
            raise GuardError(f"no 'totals:' line in callgrind's {p.name}")
        counts.append(int(totals[0].split()[1]))
    return counts


def start_group(names, workdir: pathlib.Path, index: int) -> tuple[subprocess.Popen, pathlib.Path]:
    out = workdir / f"cg.{index}"
    cmd = [valgrind_command(), "--tool=callgrind", f"--dump-before={MARK}",
           f"--callgrind-out-file={out}", sys.executable, SCRIPT.name, "--child", ",".join(names)]
    # run from bench/, by the script's name: the same command line in every clone
    with open(workdir / f"err.{index}", "w") as err:    # a file: a pipe could fill up
        proc = subprocess.Popen(cmd, env=child_env(), cwd=SCRIPT.parent,
                                stdout=subprocess.DEVNULL, stderr=err)
    return proc, out


def group_counts(names, proc: subprocess.Popen, out: pathlib.Path) -> dict[str, int]:
    """The second run's count of each workload of a finished group."""
    if proc.returncode != 0:
        err = out.with_name("err" + out.suffix).read_text(errors="replace")
        last = [line for line in err.splitlines()
                if line.strip() and not line.startswith("==")][-1:] or ["(no message)"]
        raise GuardError(f"workloads {', '.join(names)} failed under callgrind "
                         f"(exit {proc.returncode}): {last[0]}")
    parts = read_parts(out, 2 * len(names))
    return {name: parts[2 * i + 1] for i, name in enumerate(names)}


def measure(groups=GROUPS, jobs: int = 2, progress=print) -> dict[str, int]:
    """Instructions of one run of each workload of ``groups``, counted by callgrind, ``jobs``
    processes at a time. Ctrl-C stops the processes and raises KeyboardInterrupt with
    ``.counted`` (the workloads counted so far)."""
    counts: dict[str, int] = {}
    pending = list(enumerate(groups))
    running: list = []
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="instruction-guard-") as tmp:
        workdir = pathlib.Path(tmp)
        try:
            while pending or running:
                while pending and len(running) < jobs:
                    i, names = pending.pop(0)
                    running.append((i, names, *start_group(names, workdir, i)))
                time.sleep(0.1)
                for item in [r for r in running if r[2].poll() is not None]:
                    running.remove(item)
                    i, names, proc, out = item
                    counts.update(group_counts(names, proc, out))
                    progress(f"counted {len(counts)} of {sum(map(len, groups))} workloads "
                             f"({time.monotonic() - t0:.0f} s)")
        except BaseException as exc:
            for _, _, proc, _ in running:
                proc.kill()
                proc.wait()
            if isinstance(exc, KeyboardInterrupt):
                exc.counted = dict(counts)
            raise
    return {name: counts[name] for name in WORKLOADS if name in counts}


# -- comparing ----------------------------------------------------------------------------------


def compare(baseline: dict[str, int], now: dict[str, int], tolerance: float):
    """``(rows, grown)``: a row ``(workload, baseline, now, change)`` per workload (None where
    one side lacks it) and the workloads that grew more than ``tolerance`` (a fraction) or
    have no baseline."""
    rows, grown = [], []
    for name in list(baseline) + [n for n in now if n not in baseline]:
        b, n = baseline.get(name), now.get(name)
        change = None if b is None or n is None else n / b - 1
        rows.append((name, b, n, change, change is not None and change > tolerance))
        if n is not None and (b is None or change > tolerance):
            grown.append(name)
    return rows, grown


def table(rows) -> str:
    """The rows of ``compare`` as a text table."""
    def num(v):
        return "-" if v is None else f"{v:,}"
    width = max([len("workload")] + [len(r[0]) for r in rows])
    lines = [f"{'workload':<{width}} {'baseline':>12} {'now':>12}   change"]
    for name, b, n, change, failed in rows:
        ch = "new" if b is None else "not run" if n is None else f"{change:+.2%}"
        lines.append(f"{name:<{width}} {num(b):>12} {num(n):>12} {ch:>8}"
                     + ("  FAIL" if failed or (b is None and n is not None) else ""))
    return "\n".join(lines)


def machine() -> dict:
    """What the counts depend on besides the code: interpreter, numpy, valgrind, compiler."""
    import numpy

    def first_line(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0]
        except (OSError, IndexError):
            return "unknown"
    return {"python": platform.python_version(), "numpy": numpy.__version__,
            "valgrind": first_line(["valgrind", "--version"]),
            "compiler": first_line(["cc", "--version"]), "machine": platform.machine()}


def load_baseline(path: pathlib.Path) -> dict:
    try:
        data = json.loads(path.read_text())
        return {"machine": data["machine"], "instructions": dict(data["instructions"])}
    except FileNotFoundError:
        raise GuardError(f"no baseline at {path}: make one with --update") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise GuardError(f"baseline {path} is not a guard baseline ({exc})") from None


def write_baseline(path: pathlib.Path, counts: dict[str, int]) -> None:
    data = {"about": "callgrind instructions of one run of each workload of "
                     "bench/instruction_guard.py; rewritten by its --update, on purpose, with the "
                     "reason in the commit",
            "machine": machine(),
            "instructions": {name: counts[name] for name in WORKLOADS if name in counts}}
    path.write_text(json.dumps(data, indent=1) + "\n")


# -- command line -------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message):        # one line, exit status 2
        self.exit(2, f"instruction_guard: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="instruction_guard.py",
                description="Count the instructions of fixed workloads under callgrind and "
                            "compare them with the committed baseline; exit status 1 when one "
                            "grew more than the tolerance.",
                epilog="example: python bench/instruction_guard.py --only lead,follow")
    p.add_argument("--update", action="store_true",
                   help="rewrite the baseline with these counts (give the reason in the commit)")
    p.add_argument("--tolerance", type=float, default=TOLERANCE * 100, metavar="PCT",
                   help="allowed growth in percent (default: %(default)g)")
    p.add_argument("--baseline", type=pathlib.Path, default=BASELINE, metavar="PATH",
                   help="baseline file (default: bench/instruction_baseline.json)")
    p.add_argument("--only", metavar="NAMES",
                   help="comma-separated workloads to count (default: all: "
                        + ", ".join(WORKLOADS) + ")")
    p.add_argument("--jobs", type=int, default=2, metavar="N",
                   help="callgrind processes at a time (default: %(default)s)")
    p.add_argument("--child", help=argparse.SUPPRESS)
    return p


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.child is not None:
        run_child(args.child.split(","))
        return 0
    if not 0 <= args.tolerance <= 1000:
        parser.error(f"--tolerance must be a percentage 0..1000, got {args.tolerance:g}")
    if not 1 <= args.jobs <= 64:
        parser.error(f"--jobs must be 1..64, got {args.jobs}")
    groups = GROUPS
    if args.only is not None:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in WORKLOADS]
        if unknown or not names:
            parser.error(f"--only: unknown workload {', '.join(unknown) or '(none given)'}; "
                         f"known: {', '.join(WORKLOADS)}")
        groups = tuple(g for g in (tuple(n for n in grp if n in names) for grp in GROUPS) if g)
    if args.update and args.only is not None:
        parser.error("--update rewrites the whole baseline: leave out --only")
    try:
        baseline = None if args.update else load_baseline(args.baseline)
        counts = measure(groups, args.jobs)
    except GuardError as exc:
        print(f"instruction_guard: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        done = getattr(exc, "counted", {})
        print(f"instruction_guard: interrupted after counting {len(done)} of "
              f"{sum(map(len, groups))} workloads", file=sys.stderr)
        return 130
    if args.update:
        write_baseline(args.baseline, counts)
        print(table(compare(counts, counts, 0)[0]))
        print(f"wrote {args.baseline}: commit it with the reason for the new counts")
        return 0
    base = baseline["instructions"]
    if args.only is not None:
        base = {n: v for n, v in base.items() if n in counts}
    rows, grown = compare(base, counts, args.tolerance / 100)
    print(table(rows))
    here = machine()
    differs = [f"{k} {baseline['machine'].get(k)} -> {v}" for k, v in here.items()
               if baseline["machine"].get(k) != v]
    if differs:
        print("note: the baseline was counted with another toolchain: " + "; ".join(differs))
    if grown:
        print(f"instruction guard FAILED: {', '.join(grown)} grew more than "
              f"{args.tolerance:g}% over {args.baseline.name}", file=sys.stderr)
        return 1
    print(f"instruction guard passed: every workload within {args.tolerance:g}% of "
          f"{args.baseline.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

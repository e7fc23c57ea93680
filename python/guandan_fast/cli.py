"""The ``guandan-fast`` command (also ``python -m guandan_fast``).

Sub-commands: ``simulate`` (the main job), ``moves``, ``perft``, ``replay``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from .rules import Rules


def _rules_from(pairs: list[str]) -> Rules:
    """``--rule key=value`` options -> Rules (ints, true/false and None understood)."""
    kwargs = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"--rule takes key=value, got {pair!r}")
        key, value = pair.split("=", 1)
        low = value.lower()
        if low in ("true", "on", "yes"):
            kwargs[key] = True
        elif low in ("false", "off", "no"):
            kwargs[key] = False
        elif low == "none":
            kwargs[key] = None
        elif value.isdigit() and key == "ace_fail_reset":
            kwargs[key] = int(value)
        else:
            kwargs[key] = value
    return Rules.from_dict(kwargs)


class _Progress:
    """A one-line progress bar on stderr, drawn only when stdout is a terminal."""

    def __init__(self, total: int, label: str, enabled: bool) -> None:
        self.total, self.label, self.enabled = total, label, enabled
        self.t0 = self.drawn = time.perf_counter()

    def __call__(self, done: int) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self.drawn < 0.1 and done < self.total:  # the callback comes every few matches
            return
        self.drawn = now
        width = 30
        frac = min(1.0, done / self.total) if self.total else 1.0
        bar = "#" * int(frac * width) + "-" * (width - int(frac * width))
        elapsed = time.perf_counter() - self.t0
        sys.stderr.write(f"\r{self.label} [{bar}] {done}/{self.total} {elapsed:6.1f}s")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


def _cmd_simulate(args) -> int:
    rules = _rules_from(args.rule)
    agents = tuple(a.strip() for a in (args.agents or _DEFAULT_AGENTS).split(","))
    tty = sys.stdout.isatty() and not args.no_progress
    if args.engine == "reference":
        from .reference.simulate import simulate_reference

        if args.hands is not None or (args.agents and set(agents) != {"random"}):
            raise ValueError("--engine reference plays whole matches of random bots only "
                             "(use --matches; --agents must be random,random,random,random)")
        n = args.matches if args.matches is not None else 1
        bar = _Progress(n, "matches", tty)
        res = simulate_reference(matches=n, seed=args.seed, rules=rules, progress=bar)
        bar.close()
        print(f"engine            reference (pure Python), random bots")
        print(f"matches           {res.matches}")
        print(f"hands             {res.hands}")
        print(f"plays             {res.plays}")
        print(f"mean hands/match  {res.hands / max(1, res.matches):.2f}")
        print(f"wins team 0 / 1   {res.wins[0]} / {res.wins[1]}")
        print(f"elapsed           {res.elapsed:.2f} s ({res.hands_per_second:.1f} hands/s)")
        return 0

    from .simulate import simulate

    if args.matches is None and args.hands is None:
        args.matches = _DEFAULT_MATCHES
    total = args.matches if args.matches is not None else args.hands
    bar = _Progress(total, "matches" if args.matches is not None else "hands", tty)
    res = simulate(matches=args.matches, hands=args.hands, agents=agents, seed=args.seed,
                   rules=rules, threads=args.threads, record=args.record, progress=bar)
    bar.close()
    print(res.summary())
    return 0


def _parse_last(text: str | None, level: int):
    """``--last`` as JSON (``'["Pair","9",["D9","H7"]]'``) or ``"Pair 9 D9 H7"``."""
    from .moves import PASS, Move

    if text is None:
        return None
    text = text.strip()
    if text.startswith("["):
        action = json.loads(text)
    else:
        parts = text.split()
        if not parts:
            raise ValueError("--last is empty")
        if parts[0].upper() == "PASS":
            return PASS
        if len(parts) < 3:
            raise ValueError(f"--last is 'TYPE RANK CARD...', got {text!r}")
        action = [parts[0], parts[1], parts[2:]]
    return Move.from_platform(action, level)


def _cmd_moves(args) -> int:
    from .cards import parse_level
    from .movegen import Hand

    level = parse_level(args.level)
    rules = _rules_from(args.rule)
    hand = Hand(args.hand)
    last = _parse_last(args.last, level)
    moves = hand.legal_moves(level, last, rules=rules, compact=args.compact)
    groups: dict[str, list] = {}
    for m in moves:
        groups.setdefault(m.type, []).append(m)
    mode = "compact" if args.compact else "complete"
    print(f"{len(moves)} legal moves ({mode}) for {len(hand)} cards at level {args.level}"
          + (f", following {last}" if last is not None else ", on lead"))
    for type_name, ms in groups.items():
        print(f"\n{type_name} ({len(ms)})")
        for m in ms if args.all or len(ms) <= args.limit else ms[: args.limit]:
            print(f"  {m.rank:>5}  {' '.join(m.cards)}")
        if not args.all and len(ms) > args.limit:
            print(f"  ... {len(ms) - args.limit} more (--all to list every move)")
    return 0


def _cmd_perft(args) -> int:
    from .perft import perft_report

    rules = _rules_from(args.rule)
    print(perft_report(seed=args.seed, depth=args.depth, rules=rules, per_move=args.per_move,
                       reference=not args.fast_only))
    return 0


def _cmd_replay(args) -> int:
    from .records import render

    print(render(args.file, hand=args.hand))
    return 0


_DEFAULT_AGENTS = "greedy,random,greedy,random"
_DEFAULT_MATCHES = 250_000  # about a minute on a 2-core machine


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="guandan-fast",
                                description="Fast, exact Guandan (掼蛋) rules engine.")
    sub = p.add_subparsers(dest="command", required=True)

    def rule_opt(sp):
        sp.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                        help="a rules switch of docs/rules.md §12, e.g. ace_rule=double_only")

    s = sub.add_parser("simulate", help="play whole matches between built-in bots (main job)")
    s.add_argument("--matches", type=int, help=f"matches to play (default {_DEFAULT_MATCHES})")
    s.add_argument("--hands", type=int, help="hands to play instead of matches")
    s.add_argument("--agents", help=f"default {_DEFAULT_AGENTS}: four agents by seat, comma-separated (random, random_compact, greedy, pimc, ismcts; search budgets as pimc:samples=8, docs/search.md)")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                   help="worker threads (default: one per CPU); results do not depend on it")
    s.add_argument("--record", metavar="FILE", help="write JSON Lines game records")
    s.add_argument("--engine", choices=("fast", "reference"), default="fast")
    s.add_argument("--no-progress", action="store_true")
    rule_opt(s)
    s.set_defaults(func=_cmd_simulate)

    m = sub.add_parser("moves", help="list the legal moves of a hand")
    m.add_argument("hand", help='cards, e.g. "S2 H2 C3 D3 ..."')
    m.add_argument("--level", default="2")
    m.add_argument("--last", help='the play to follow: "Pair 9 D9 H7" or a JSON action')
    m.add_argument("--compact", action="store_true", help="one canonical move per (type, key, size)")
    m.add_argument("--limit", type=int, default=20, help="moves shown per type")
    m.add_argument("--all", action="store_true", help="show every move")
    rule_opt(m)
    m.set_defaults(func=_cmd_moves)

    f = sub.add_parser("perft", help="node counts of the move tree from a fixed deal")
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--depth", type=int, default=2)
    f.add_argument("--per-move", action="store_true", help="break the count down by first move")
    f.add_argument("--fast-only", action="store_true", help="skip the reference engine")
    rule_opt(f)
    f.set_defaults(func=_cmd_perft)

    r = sub.add_parser("replay", help="print a recorded match readably")
    r.add_argument("file")
    r.add_argument("--hand", type=int, help="only this hand (0-based)")
    r.set_defaults(func=_cmd_replay)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, TypeError, OSError) as exc:
        print(f"guandan-fast: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130

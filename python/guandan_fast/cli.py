"""The ``guandan-fast`` command (also ``python -m guandan_fast``).

Sub-commands: ``simulate`` (the main job), ``tournament``, ``serve``, ``connect``, ``moves``, ``perft``, ``replay``.

Bad input (options, cards, record files) ends with one line on stderr naming the problem and
exit status 2, never a traceback; output cut short by a closed pipe (``| head``) ends quietly.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback

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
    """A one-line progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, total: int, label: str, enabled: bool) -> None:
        self.total, self.label, self.enabled = total, label, enabled
        self.t0 = self.drawn = time.perf_counter()
        self.line = False    # a bar is drawn on the current line
        self.done = 0

    def __call__(self, done: int) -> None:
        self.done = done
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self.drawn < 0.1 and done < self.total:  # the callback comes every few matches
            return
        self.drawn = now
        self.line = True
        width = 30
        frac = min(1.0, done / self.total) if self.total else 1.0
        bar = "#" * int(frac * width) + "-" * (width - int(frac * width))
        elapsed = time.perf_counter() - self.t0
        rate = done / elapsed if elapsed > 0 else 0.0
        left = f"{(self.total - done) / rate:6.0f}s left" if rate > 0 else "     ? left"
        sys.stderr.write(f"\r{self.label} [{bar}] {done}/{self.total} {elapsed:6.1f}s "
                         f"{rate:,.1f}/s {left}\x1b[K")
        sys.stderr.flush()

    def close(self) -> None:
        """End the bar's line (once), so that what follows starts on a line of its own."""
        if self.enabled and self.line:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self.line = False


def _show_progress(args) -> bool:
    # The bar goes to stderr, so it is stderr that must be a terminal (stdout may be a pipe).
    return not args.no_progress and sys.stderr.isatty()


#: What a ``dmc`` seat costs in ``simulate`` (docs/design.md "Simulation", bench/RESULTS.md).
_DMC_SPEED = ("about 6,000 decisions/s, all four seats a 256x256 dmc network, 2-vCPU "
              "machine; threads add no speed")

#: Record output (``simulate --record``) above this estimate needs ``--yes``.
RECORD_CONFIRM_BYTES = 200 << 20
#: A record line of a hand takes about 5 KB (4.8-5.4 KB measured with the built-in bots) and a
#: match lasts at least 5 hands (about 5 with greedy bots, 13 with random ones); gzip shrinks
#: records about 13 times (counted as 10).
RECORD_BYTES_PER_HAND = 5_000
RECORD_MIN_HANDS_PER_MATCH = 5
RECORD_GZIP_RATIO = 10


def _size(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000
    return ""  # unreachable


def record_estimate(path: str, matches: int | None, hands: int | None) -> int:
    """A lower estimate of the bytes ``simulate --record path`` writes."""
    n_hands = hands if hands is not None else matches * RECORD_MIN_HANDS_PER_MATCH
    size = n_hands * RECORD_BYTES_PER_HAND
    return size // RECORD_GZIP_RATIO if path.endswith(".gz") else size


def _cmd_simulate(args) -> int:
    rules = _rules_from(args.rule)
    if args.agents is not None and not args.agents.strip():
        raise ValueError("--agents is empty; give four agent names by seat, "
                         "e.g. greedy,random,greedy,random")
    agents = tuple(a.strip() for a in (args.agents if args.agents is not None
                                       else _DEFAULT_AGENTS).split(","))
    tty = _show_progress(args)
    if args.engine == "reference":
        from .reference.simulate import simulate_reference

        if args.record is not None or args.json is not None:
            raise ValueError("--record and --json are not available with --engine reference")
        if args.ray is not None:
            raise ValueError("--ray runs the fast engine only (drop --engine reference)")
        if args.hands is not None or (args.agents and set(agents) != {"random"}):
            raise ValueError("--engine reference plays whole matches of random bots only "
                             "(use --matches; --agents must be random,random,random,random)")
        n = args.matches if args.matches is not None else 1
        bar = _Progress(n, "matches", tty)
        res = simulate_reference(matches=n, seed=args.seed, rules=rules, progress=bar)
        bar.close()
        print("engine            reference (pure Python), random bots")
        print(f"matches           {res.matches}")
        print(f"hands             {res.hands}")
        print(f"plays             {res.plays}")
        print(f"mean hands/match  {res.hands / max(1, res.matches):.2f}")
        print(f"wins team 0 / 1   {res.wins[0]} / {res.wins[1]}")
        print(f"elapsed           {res.elapsed:.2f} s ({res.hands_per_second:.1f} hands/s)")
        return 0

    from .simulate import simulate

    _agents_from_cwd()
    if args.matches is None and args.hands is None:
        args.matches = _DEFAULT_MATCHES
    if args.record is not None:
        estimate = record_estimate(args.record, args.matches, args.hands)
        if estimate > RECORD_CONFIRM_BYTES and not args.yes:
            count = (f"{args.matches} matches" if args.matches is not None
                     else f"{args.hands} hands")
            hint = "" if args.record.endswith(".gz") else ", a FILE ending in .gz (about 10x smaller)"
            raise ValueError(f"--record would write at least {_size(estimate)} for {count}; "
                             f"add --yes to confirm, or use fewer --matches/--hands{hint}")
    total = args.matches if args.matches is not None else args.hands
    bar = _Progress(total, "matches" if args.matches is not None else "hands", tty)
    ray = {} if args.ray is None else dict(cluster="ray", address=args.ray or None,
                                           task_matches=args.task_matches)
    if args.task_matches is not None and args.ray is None:
        raise ValueError("--task-matches needs --ray")
    if args.json:
        from .records import check_output

        check_output(args.json, "--json")     # a missing folder, before the run
    try:
        res = simulate(matches=args.matches, hands=args.hands, agents=agents, seed=args.seed,
                       rules=rules, threads=args.threads, record=args.record, progress=bar,
                       **ray)
    except KeyboardInterrupt as exc:
        bar.close()
        part = getattr(exc, "partial", None)
        if part is None:
            print("interrupted before any match was done", flush=True)
        else:
            print(f"interrupted after {part.matches} of {total if args.matches else '?'} "
                  f"match(es), {part.hands} hand(s)"
                  + (f" (the record {args.record} ends on the last whole match)"
                     if args.record else "") + "; the totals so far:", flush=True)
            print(part.summary(), flush=True)
        return 130
    bar.close()
    print(res.summary())
    if args.json:
        res.to_json(args.json)
    return 0


def _agents_from_cwd() -> None:
    """'module:function' agents are found in the current directory too."""
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())


def _external_from(options: list[str]) -> dict:
    """``--external NAME=COMMAND`` options -> ``{name: command}`` (a name given twice is bad
    input)."""
    from .external import parse_external

    out = {}
    for text in options:
        name, command = parse_external(text)
        if name in out:
            raise ValueError(f"--external names {name!r} twice")
        out[name] = command
    return out


def _cmd_tournament(args) -> int:
    from .tournament import tournament

    _agents_from_cwd()
    rules = _rules_from(args.rule)
    if args.plot and not args.plot.lower().endswith(".svg"):
        raise ValueError(f"--plot must name an .svg file, got {args.plot!r}")
    from .records import check_output

    for option, target in (("--json", args.json), ("--plot", args.plot)):
        if target:
            check_output(target, option)       # a missing folder, before the run
    if (args.agents is None) == (args.gauntlet is None):
        raise ValueError("give --agents (a round robin) or --gauntlet AGENT, one of them")
    external = _external_from(args.external)
    if args.gauntlet is not None:
        from .gauntlet import GAUNTLET, GauntletResult, gauntlet

        if args.ray is not None:
            raise ValueError("--gauntlet plays on this machine (no --ray)")
        n_pairs = sum(m != args.gauntlet.strip() for m in GAUNTLET)
    else:
        agents = [a.strip() for a in args.agents.split(",")]
        n_pairs = len(agents) * (len(agents) - 1) // 2
    tty = sys.stderr.isatty() and not args.no_progress
    bar = _Progress(2 * n_pairs * max(args.deals, 0), "matches", tty)
    try:
        ray = {} if args.ray is None else dict(cluster="ray", address=args.ray or None)
        external_options = dict(external=external, decision_timeout=args.decision_timeout,
                                on_fault=args.on_fault, keep=args.keep,
                                external_port=args.external_port)
        if args.gauntlet is not None:
            res = gauntlet(args.gauntlet, deals=args.deals, seed=args.seed, rules=rules,
                           workers=args.workers, record=args.record, progress=bar,
                           **external_options)
        else:
            res = tournament(agents, deals=args.deals, seed=args.seed, rules=rules,
                             workers=args.workers, record=args.record, progress=bar,
                             **external_options, **ray)
    except KeyboardInterrupt as exc:
        bar.close()
        part = getattr(exc, "partial", None)
        print(f"interrupted after {bar.done} of {bar.total} match(es), "
              f"{time.perf_counter() - bar.t0:.1f} s"
              + (f" (the record {args.record} ends on the last whole match)"
                 if args.record else "")
              + ("; no deal was played in both seatings yet" if part is None
                 else "; the totals so far (deals played in both seatings):"), flush=True)
        if part is not None:
            if args.gauntlet is not None:
                part = GauntletResult(agent=part.agents[0], result=part)
            print(part.table(), flush=True)
        return 130
    finally:
        bar.close()
    print(res.table())
    if args.json:
        res.to_json(args.json)
    if args.plot:
        res.plot(args.plot)
    return 0


def _parse_last(text: str | None, level: int):
    """``--last`` as JSON (``'["Pair","9",["D9","H7"]]'``) or ``"Pair 9 D9 H7"``."""
    from .moves import PASS, Move

    if text is None:
        return None
    text = text.strip()
    if text.startswith("["):
        try:
            action = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"--last is not valid JSON ({exc.msg} at column {exc.colno}); "
                             f"expected e.g. '[\"Pair\", \"9\", [\"D9\", \"H7\"]]'") from None
        except (ValueError, RecursionError):
            raise ValueError("--last is not a platform action [type, rank, cards]") from None
        if (not isinstance(action, list) or len(action) != 3
                or not isinstance(action[0], str)):
            raise ValueError(f"--last must be a JSON action [type, rank, cards], "
                             f"got {text[:80]!r}")
    else:
        parts = text.split()
        if not parts:
            raise ValueError("--last is empty")
        if parts[0].upper() == "PASS":
            return PASS
        from .moves import TYPE_NAMES

        if parts[0] not in TYPE_NAMES:
            raise ValueError(f"--last: unknown move type {parts[0]!r}; expected one of "
                             f"{', '.join(TYPE_NAMES)}")
        if len(parts) < 3:
            raise ValueError(f"--last is 'TYPE RANK CARD...', got {text!r}")
        action = [parts[0], parts[1], parts[2:]]
    try:
        return Move.from_platform(action, level)
    except ValueError as exc:
        raise ValueError(f"--last: {exc}") from None


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
    from . import perft

    rules = _rules_from(args.rule)
    reference = not args.fast_only
    guess = perft.estimate_seconds(args.seed, args.depth, rules, args.per_move, reference)
    if guess >= LONG_RUN_SECONDS:
        where = " (mostly the reference engine; --fast-only skips it)" if reference else ""
        print(f"perft: this will take about {_duration(guess)}{where}; Ctrl-C stops it",
              file=sys.stderr, flush=True)
    bar = _Progress(0, "reference: first moves", _show_progress(args))

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar(done)

    t0 = time.perf_counter()
    try:
        perft.perft_report(seed=args.seed, depth=args.depth, rules=rules, per_move=args.per_move,
                           reference=reference, progress=progress,
                           emit=lambda line: print(line, flush=True))
    except KeyboardInterrupt as exc:
        bar.close()
        part = getattr(exc, "partial", None)
        print(f"perft interrupted after {time.perf_counter() - t0:.1f} s (seed {args.seed}, "
              f"depth {args.depth}): the lines above are complete counts", flush=True)
        if part is not None:
            print(f"reference  {part.leaves:>14,} leaves so far, below {len(part.counts)} of "
                  f"{part.first_moves} first moves", flush=True)
        return 130
    bar.close()
    return 0


#: Runs estimated to take longer than this are announced before they start.
LONG_RUN_SECONDS = 60.0


def _duration(seconds: float) -> str:
    """``about N minutes`` style wording of an estimate.

    >>> _duration(90), _duration(300), _duration(7200)
    ('2 minutes', '5 minutes', '2.0 hours')
    """
    if seconds >= 5400:
        return f"{seconds / 3600:.1f} hours"
    return f"{max(1, round(seconds / 60))} minutes"


def _cmd_replay(args) -> int:
    from .records import render

    # render() checks the whole match before returning, so a bad record prints nothing.
    # People count matches and hands from 1 (the Python API from 0).
    print(render(args.file, hand=None if args.hand is None else args.hand - 1,
                 match=args.match - 1))
    return 0


def port_busy(host: str, port: int) -> str:
    """The one message of every command that listens (serve, play, view) when its port is
    taken.

    >>> port_busy("127.0.0.1", 23456)
    'port 23456 on 127.0.0.1 is already in use (another server is listening there): choose another with --port, or --port 0 for a free one'
    """
    return (f"port {port} on {host} is already in use (another server is listening there): "
            f"choose another with --port, or --port 0 for a free one")


def _listening(host: str, port: int, run):
    """``run()``, with a taken port said in one line (``port_busy``)."""
    import errno

    try:
        return run()
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ValueError(port_busy(host, port)) from None
        raise


def _profile_rules(args) -> Rules:
    """``--rules platform|default`` and then the ``--rule`` switches (serve, play)."""
    base = Rules() if args.rules == "default" else Rules.platform()   # (None: platform)
    if not args.rule:
        return base
    given = _rules_from(args.rule)   # only the switches given override the profile
    keys = {p.split("=", 1)[0] for p in args.rule}
    return Rules.from_dict({**base.to_dict(), **{k: getattr(given, k) for k in keys}})


def _cmd_serve(args) -> int:
    import asyncio
    import gc
    import logging
    import signal

    from .net.server import ServerConfig, serve

    _agents_from_cwd()
    rules = _profile_rules(args)
    bots = {}
    for spec in args.bots:
        seats, sep, agent = spec.partition("=")
        if not sep or not seats or not agent:
            raise ValueError(f"--bots takes SEATS=AGENT (e.g. 1,3=greedy), got {spec!r}")
        for part in seats.split(","):
            if part.strip() not in ("0", "1", "2", "3"):
                raise ValueError(f"--bots: a seat is 0..3, got {part!r} in {spec!r}")
            bots[int(part)] = agent.strip()
    cfg = ServerConfig(host=args.host, port=args.port, games=args.games, tables=args.tables,
                       rules=rules, bots=bots, seed=args.seed, timeout=args.timeout,
                       on_fault=args.on_fault, takeover=args.takeover,
                       draw_after=args.draw_after, handshake_pause=args.handshake_pause,
                       error_messages=args.error_messages, record=args.record,
                       ping_interval=args.ping_interval or None, watch=args.watch)
    running = {}
    if args.watch:   # the spectators' page and the lobby, on the same port
        from .web.play import http_handler, watch_config

        cfg.http = http_handler(lambda: watch_config(cfg),
                                lambda: running["server"].tables_info(), join=False)
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO,
                        format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)

    def ready(server):
        # Everything loaded so far (modules, classes: ~100,000 objects) lives as long as the
        # process: out of the cyclic GC's scans, which otherwise cost the server ~7 % of its
        # instructions (callgrind). Only the CLI does this: the process is the server's own.
        gc.freeze()
        running["server"] = server
        print(f"listening on ws://{cfg.host}:{server.port}/game/{{name}} "
              f"({len(cfg.remote_seats)} client(s) per table, {cfg.games} game(s) each)",
              flush=True)
        if cfg.watch:
            print(f"watch at http://{cfg.host}:{server.port}/ (a table: ?table=K), the tables "
                  f"at http://{cfg.host}:{server.port}/lobby", flush=True)

    async def main():
        task = asyncio.ensure_future(serve(cfg, ready))
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, lambda sig=sig: (running.setdefault("signal", sig),
                                                          task.cancel()))
        try:
            return await task
        except asyncio.CancelledError:
            return None

    def totals(st):
        return (f"{st['tables']} table(s), {st['games']} game(s) finished, "
                f"{st['refused']} refused message(s), {st['faults']} fault(s)")

    stats = _listening(cfg.host, cfg.port, lambda: asyncio.run(main()))
    if stats is None:
        sig = running.get("signal")
        st = running["server"].stats if "server" in running else None
        what = "interrupted (Ctrl-C)" if sig == signal.SIGINT else "stopped by SIGTERM"
        print(f"{what}: " + (totals(st) if st else "before it was listening")
              + "; running tables were cut short, each game's record written whole"
              + (f" to {cfg.record}" if cfg.record else ""), flush=True)
        # Ctrl-C exits as an interrupted command (130); SIGTERM is a service manager's
        # ordinary stop (0)
        return 130 if sig == signal.SIGINT else 0
    print(f"done: {totals(stats)}")
    return 0


def _cmd_connect(args) -> int:
    import logging

    from .net.client import ClientResult, run

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    _agents_from_cwd()
    res = ClientResult()
    try:
        run(args.url, agent=args.agent, seed=args.seed, result=res)
    except KeyboardInterrupt:
        # Ctrl-C: how far it got, and 130 (an interrupted command), as every command
        print(f"interrupted (Ctrl-C): seat {res.seat}: {res.games} game(s) finished, "
              f"{res.hands} hand(s) begun", flush=True)
        return 130
    except (ConnectionError, TimeoutError) as exc:     # the server, not this program
        why = os.strerror(exc.errno) if exc.errno else _one_line(exc)
        print(f"guandan-fast: error: cannot reach {args.url}: {why}", file=sys.stderr)
        return 1
    print(f"seat {res.seat}: {res.games} game(s), {res.hands} hand(s); "
          f"victoryNum {res.victory_num}, draws {res.draws}"
          + (f"; {len(res.problems)} protocol problem(s)" if res.problems else ""))
    return 0 if not res.problems else 1


def _cmd_view(args) -> int:
    from .web.viewer import match_document, serve, viewer_html

    import signal

    doc = match_document(args.file, args.match - 1)   # checked before anything is written
    if args.html:
        with open(args.html, "w", encoding="utf-8") as f:
            f.write(viewer_html(doc))
        print(f"wrote match {args.match} ({len(doc['hands'])} hand(s)) to {args.html}")
        return 0
    sig = _listening("127.0.0.1", args.port,
                     lambda: serve(doc, port=args.port, browser=not args.no_browser))
    # Ctrl-C is an interrupted command (130), as in every command; SIGTERM an ordinary stop
    return 130 if sig == signal.SIGINT else 0


def _add_view(sub, int_at_least) -> None:
    w = sub.add_parser("view", help="replay a recorded match in the browser (docs/web.md)")
    w.add_argument("file", help="a JSON Lines record (simulate, tournament, serve, play); .gz too")
    w.add_argument("--match", type=int_at_least(1), default=1,
                   help="which match of the file (counting from 1, default 1)")
    w.add_argument("--html", metavar="FILE", help="write one self-contained HTML file and exit")
    w.add_argument("--port", type=int_at_least(0), default=0, help="port (default: a free one)")
    w.add_argument("--no-browser", action="store_true", help="only print the URL")
    w.set_defaults(func=_cmd_view)


def _cmd_play(args) -> int:
    import logging
    import signal

    from .cards import level_char
    from .web.play import play_config, recorded_table, resume_game, run

    if args.delay < 0:
        raise ValueError(f"--delay must be seconds >= 0, got {args.delay}")
    _agents_from_cwd()
    seats = _seat_list(args.seat) if args.seat is not None else None
    record, resume, saved, agents = args.record, None, None, args.agents
    if args.resume:
        if args.rules is not None or args.rule:
            raise ValueError("--resume continues the match under its recorded rules; "
                             "--rules and --rule cannot change them")
        resume, offset = resume_game(args.resume)
        # the record's people and agents, unless --seat / --agents say otherwise
        people, recorded = recorded_table(args.resume, offset)
        seats = seats or people or (0,)
        agents = agents or recorded
    seats = seats or (0,)
    rules = None if resume is not None else _profile_rules(args)
    cfg = play_config(seat=seats, agents=agents, rules=rules, seed=args.seed, port=args.port,
                      games=args.games, record=record, resume=resume, host=args.host)
    if record is not None and record.endswith(".gz"):
        raise ValueError("--record: play rewrites the match's record after every hand; "
                         "use a plain .jsonl file")
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(message)s",
                        stream=sys.stderr)
    try:   # from here on a Ctrl-C, however early, puts a resumed record back as it was
        if resume is not None:
            if record is None or os.path.abspath(record) == os.path.abspath(args.resume):
                record = cfg.record = args.resume
                cfg.record_each_hand = True
                with open(record, "r+b") as f:   # the match's record is rewritten from here
                    f.seek(offset)
                    saved = (offset, f.read())
                    f.truncate(offset)
            who = ", ".join(f"seat {s} {'person' if s not in cfg.bots else cfg.bots[s].name}"
                            for s in range(4))
            print(f"resuming: hand {resume.hand_number + 1}, levels "
                  f"{level_char(resume.levels[0])}/{level_char(resume.levels[1])}; {who}",
                  flush=True)
        stats, sig = _listening(cfg.host, cfg.port,
                                lambda: run(cfg, args.delay, browser=not args.no_browser))
    finally:
        if saved is not None and os.path.getsize(record) == saved[0]:
            with open(record, "ab") as f:   # nothing was played: the old record goes back
                f.write(saved[1])
    kept = record is not None and os.path.exists(record) and os.path.getsize(record) > 0
    if sig is not None:
        what = "interrupted (Ctrl-C)" if sig == signal.SIGINT else "stopped by SIGTERM"
        done = f"{stats['games']} match(es) finished" if stats else "before it was listening"
        for t in (stats or {}).get("where", []):
            done += f"; stopped in match {t['game']}" + (f", hand {t['hand']}" if t["hand"] else "")
        print(f"{what}: {done}" + (f"; the match so far is in {record} "
                                   f"(play --resume {record} goes on)" if kept else ""))
        # Ctrl-C exits as an interrupted command (130), as every command; SIGTERM with 0
        return 130 if sig == signal.SIGINT else 0
    print(f"done: {stats['games']} match(es) played" + (f"; recorded in {record}" if record else ""))
    return 0


def _seat_list(text: str) -> tuple:
    """``--seat``: one seat or several, comma-separated ("0", "0,2").

    >>> _seat_list("0,2")
    (0, 2)
    """
    parts = [p.strip() for p in text.split(",")]
    if not parts or any(p not in ("0", "1", "2", "3") for p in parts) or len(set(parts)) != len(parts):
        raise ValueError(f"--seat takes seats 0..3, one or several each once (e.g. 0 or 0,2), "
                         f"got {text!r}")
    if len(parts) > 3:
        raise ValueError("--seat: at most 3 people (one seat at least is an agent's)")
    return tuple(int(p) for p in parts)


def _add_play(sub, int_at_least) -> None:
    from .agents import SPEC_HELP, STRONGEST

    y = sub.add_parser("play", help="play against agents in the browser (docs/web.md)")
    y.add_argument("--seat", help="your seat, 0-3 (default 0); several for friends, e.g. 0,2: "
                                  "a link per seat")
    y.add_argument("--agents",
                   help=f"the other seats' agents in seat order, one for all or one per seat "
                        f"(default {STRONGEST}, the strongest; --resume: the record's); "
                        f"{SPEC_HELP}")
    y.add_argument("--rules", choices=("platform", "default"),
                   help="rules profile (default platform: Rules.platform()); --rule overrides "
                        "a switch")
    y.add_argument("--seed", type=int, help="fixed seed: the same deals every run")
    y.add_argument("--games", type=int_at_least(1), default=1, help="matches to play (default 1)")
    y.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 lets friends on "
                        "other machines join)")
    y.add_argument("--port", type=int_at_least(0), default=0, help="port (default: a free one)")
    y.add_argument("--no-browser", action="store_true", help="only print the URL")
    y.add_argument("--record", metavar="FILE", help="write the match's record after every hand")
    y.add_argument("--delay", type=float, default=0.8,
                   help="seconds the page pauses after each bot move (default 0.8)")
    y.add_argument("--resume", metavar="FILE",
                   help="continue the last (unfinished) match of a record, with its people's "
                        "seats, agents and rules")
    y.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="override one rules switch (docs/rules.md §12)")
    y.set_defaults(func=_cmd_play)


def _cmd_train(args) -> int:
    from .extras import require

    require("torch", "train", "train needs PyTorch")  # the trainer's one heavy dependency
    from .learn.config import TrainConfig
    from .learn.trainer import Trainer

    if args.resume:
        config = TrainConfig.load(args.config) if args.config else None
    else:
        config = TrainConfig.load(args.config) if args.config else TrainConfig.shipped()
    trainer = Trainer(config, args.out, resume=args.resume, progress=lambda line: print(
        line, flush=True))
    total = args.rounds or trainer.config.rounds
    print(f"training in {args.out} on {trainer.device}: {trainer.round} of {total} rounds "
          f"done", flush=True)
    import signal

    stopped_by = []

    def on_term(signum, frame):
        # A job scheduler's stop (SIGTERM) saves as Ctrl-C does.
        stopped_by.append(signum)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    try:
        trainer.run(total)
    except KeyboardInterrupt:
        return 143 if stopped_by else 130
    print(f"done: {trainer.round} rounds, {trainer.frames:,} frames; the agent is "
          f"dmc:{os.path.join(args.out, 'dmc.npz')}")
    return 0


def _add_train(sub, int_at_least) -> None:
    n = sub.add_parser("train", help="train a DMC Q-network by self-play (docs/training.md)")
    n.add_argument("config", nargs="?", help="a JSON file of training settings (default: the "
                                             "shipped agent's, guandan_fast/learn/weights/"
                                             "dmc.json; with --resume: the run's)")
    n.add_argument("--out", default="runs/dmc",
                   help="the run's directory: checkpoint, dmc.npz, log, curve (default runs/dmc)")
    n.add_argument("--resume", action="store_true", help="continue the run saved in --out")
    n.add_argument("--rounds", type=int_at_least(1), help="train to this many rounds in all "
                                                          "(default: the config's)")
    n.set_defaults(func=_cmd_train)


_DEFAULT_AGENTS = "greedy,random,greedy,random"
_DEFAULT_MATCHES = 250_000  # about a minute on a 2-core machine


def _int_at_least(low: int):
    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text[:40]!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}, got {value}")
        return value
    convert.__name__ = f"int >= {low}"
    return convert


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the line breaks of descriptions and examples; adds an option's default to its help
    unless the help states it (or there is none to state: None, False, an empty list)."""

    def _get_help_string(self, action):
        text = action.help or ""
        d = action.default
        if (action.option_strings and "default" not in text and d is not None and d is not False
                and d != [] and d is not argparse.SUPPRESS):
            text += " (default: %(default)s)"
        return text


class _Parser(argparse.ArgumentParser):
    """argparse with its errors on one line (status 2, as argparse does) and the help layout
    of ``_HelpFormatter``."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    from . import __version__
    from .agents import SPEC_HELP, names as agent_names

    p = _Parser(prog="guandan-fast", description="Fast, exact Guandan (掼蛋) rules engine.")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}",
                   help="print the version and exit")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def rule_opt(sp):
        sp.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                        help="a rules switch of docs/rules.md §12, e.g. ace_rule=double_only "
                             "(repeatable)")

    s = sub.add_parser("simulate", help="play whole matches between agents (main job)")
    s.add_argument("--matches", type=_int_at_least(1),
                   help=f"matches to play (default {_DEFAULT_MATCHES})")
    s.add_argument("--hands", type=_int_at_least(1), help="hands to play instead of matches")
    s.add_argument("--agents", help=f"default {_DEFAULT_AGENTS}: four agents by seat, "
                                    f"comma-separated. Compiled ones play in compiled code "
                                    f"({', '.join(agent_names('compiled'))}; search budgets "
                                    f"as pimc:samples=8, docs/search.md); with a trained "
                                    f"Q-network dmc:PATH, a Python agent MODULE:FUNCTION or "
                                    f"policy:MODULE:FUNCTION every match is played by a "
                                    f"Python loop, one decision at a time ({_DMC_SPEED}; "
                                    f"not with --ray)")
    s.add_argument("--seed", type=int, default=0,
                   help="seed of the run (default 0); the same seed gives the same result")
    s.add_argument("--threads", type=_int_at_least(1), default=os.cpu_count() or 1,
                   help="worker threads (default: one per CPU); results do not depend on it")
    s.add_argument("--record", metavar="FILE",
                   help="write JSON Lines game records (about 5 KB per hand; FILE.gz: "
                        "gzip-compressed); large outputs need --yes")
    s.add_argument("--json", metavar="FILE",
                   help="also write the result as JSON (SimulationResult.to_dict: counters, "
                        "win rates with 95%% intervals)")
    s.add_argument("--yes", action="store_true",
                   help=f"confirm a --record estimated above {RECORD_CONFIRM_BYTES >> 20} MB")
    s.add_argument("--engine", choices=("fast", "reference"), default="fast",
                   help="fast (compiled, default) or reference (pure Python, random bots)")
    s.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                   help="run as Ray tasks (--threads each) on the cluster at ADDRESS (auto, "
                        "HOST:PORT, ray://...); without ADDRESS: $RAY_ADDRESS, else a local "
                        "cluster for this run. Same result as one process")
    from .distributed import MIN_TASK_MATCHES, TASKS_PER_SLOT

    s.add_argument("--task-matches", type=_int_at_least(1), metavar="N",
                   help=f"with --ray: matches per Ray task (default: about {TASKS_PER_SLOT} "
                        f"tasks per worker slot, at least {MIN_TASK_MATCHES} matches each)")
    s.add_argument("--no-progress", action="store_true",
                   help="no progress bar (it is drawn only when stderr is a terminal)")
    rule_opt(s)
    s.set_defaults(func=_cmd_simulate)

    t = sub.add_parser("tournament", help="duplicate round robin between agents (docs/tournament.md)")
    t.add_argument("--agents",
                   help=f"two or more agents, comma-separated; {SPEC_HELP}")
    t.add_argument("--gauntlet", metavar="AGENT",
                   help="instead of --agents: AGENT against every gauntlet member but itself "
                        "(greedy, expert and the expert's styles, docs/expert.md), with the "
                        "worst case")
    t.add_argument("--deals", type=int, required=True, help="deals per pair (each played twice)")
    t.add_argument("--seed", type=int, default=0,
                   help="seed of the deals (default 0); the same seed gives the same result")
    t.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   help="threads / processes (default: one per CPU); results do not depend on it")
    t.add_argument("--json", metavar="FILE", help="write the results as JSON")
    t.add_argument("--plot", metavar="FILE.svg", help="draw the win rates and intervals (SVG)")
    t.add_argument("--record", metavar="FILE", help="write JSON Lines game records")
    t.add_argument("--no-progress", action="store_true",
                   help="no progress bar (it is drawn only when stderr is a terminal)")
    t.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                   help="play the deals as Ray tasks on the cluster at ADDRESS (as simulate "
                        "--ray); same result as one machine")
    t.add_argument("--external", action="append", default=[], metavar="NAME=COMMAND",
                   help="agent NAME of --agents is a platform client program: one process of "
                        "COMMAND per seat and match, {url} replaced by the seat's WebSocket "
                        "URL (also in $GUANDAN_FAST_URL); repeatable")
    t.add_argument("--decision-timeout", type=float, default=60.0, metavar="SECONDS",
                   help="seconds an external client may take per decision, and to connect "
                        "(default 60); longer is a fault")
    t.add_argument("--on-fault", default="forfeit", metavar="forfeit|AGENT",
                   help="a faulty external client's team forfeits the match (default), or "
                        "AGENT finishes the match in its seat")
    t.add_argument("--keep", metavar="DIR",
                   help="keep each external match's record and its clients' stdout and "
                        "stderr in DIR")
    t.add_argument("--external-port", type=int, metavar="PORT",
                   help="serve external matches on PORT, one at a time (23456: for bots that "
                        "hard-code the platform's URL; {url} may then be left out)")
    rule_opt(t)
    t.set_defaults(func=_cmd_tournament)

    m = sub.add_parser("moves", help="list the legal moves of a hand")
    m.add_argument("hand", help='cards, e.g. "S2 H2 C3 D3 ..."')
    m.add_argument("--level", default="2", help="the level rank, 2-9, T, J, Q, K, A (default 2)")
    m.add_argument("--last", help='the play to follow: "Pair 9 D9 H7" or a JSON action')
    m.add_argument("--compact", action="store_true", help="one canonical move per (type, key, size)")
    m.add_argument("--limit", type=_int_at_least(0), default=20,
                   help="moves shown per type (default 20)")
    m.add_argument("--all", action="store_true", help="show every move")
    rule_opt(m)
    m.set_defaults(func=_cmd_moves)

    f = sub.add_parser("perft", help="node counts of the move tree from a fixed deal")
    f.add_argument("--seed", type=int, default=0, help="seed of the deal (default 0)")
    f.add_argument("--depth", type=_int_at_least(0), default=2,
                   help="plies to count (default 2)")
    f.add_argument("--per-move", action="store_true", help="break the count down by first move")
    f.add_argument("--fast-only", action="store_true", help="skip the reference engine")
    f.add_argument("--no-progress", action="store_true",
                   help="no progress bar (it is drawn only when stderr is a terminal)")
    rule_opt(f)
    f.set_defaults(func=_cmd_perft)

    r = sub.add_parser("replay", help="check a recorded match and print it readably")
    r.add_argument("file", help="a JSON Lines record (simulate --record, Game.to_record); "
                                "gzip-compressed files are read too")
    r.add_argument("--match", type=_int_at_least(1), default=1,
                   help="which match of the file (counting from 1, default 1)")
    r.add_argument("--hand", type=_int_at_least(1), help="only this hand (counting from 1)")
    r.set_defaults(func=_cmd_replay)

    v = sub.add_parser("serve", help="a competition-platform WebSocket server (docs/server.md)")
    v.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    v.add_argument("--port", type=int, default=23456, help="0 picks a free port")
    v.add_argument("--games", type=int, default=1, help="games (matches) per table")
    v.add_argument("--tables", type=int, default=0, help="stop after N tables (0: serve on)")
    v.add_argument("--rules", choices=("platform", "default"), default="platform",
                   help="rules profile (platform: Rules.platform()); --rule overrides a switch")
    v.add_argument("--bots", action="append", default=[], metavar="SEATS=AGENT",
                   help=f"agents in seats, e.g. 1,2,3=greedy (repeatable); {SPEC_HELP}")
    v.add_argument("--seed", type=int, help="fixed seed: the same deals every run")
    v.add_argument("--record", metavar="FILE", help="append every game's JSONL record")
    v.add_argument("--timeout", type=float, help="seconds per answer (default: wait forever)")
    v.add_argument("--on-fault", choices=("bot", "forfeit"), default="bot",
                   help="on a timeout or disconnect: a bot takes the seat over, or its team forfeits")
    v.add_argument("--takeover", default="greedy",
                   help="the agent that takes a seat over (default greedy; any agent of --bots)")
    v.add_argument("--draw-after", type=int, default=50,
                   help="A resets that make a game a draw (0: never)")
    v.add_argument("--handshake-pause", type=float, default=0.2,
                   help="seconds before the first message to a new connection (ws4py clients)")
    v.add_argument("--ping-interval", type=float, default=20.0,
                   help="seconds between keepalive pings (0: none); never drops a client")
    v.add_argument("--error-messages", action="store_true",
                   help='answer refused messages with {"type": "error"} (breaks platform clients)')
    v.add_argument("--watch", action="store_true",
                   help="spectators: a page at http://HOST:PORT/ (no hand while it is played) "
                        "and the open tables at /lobby")
    v.add_argument("--quiet", action="store_true", help="log warnings only")
    rule_opt(v)
    v.set_defaults(func=_cmd_serve)

    c = sub.add_parser("connect", help="play at a platform server with any agent")
    c.add_argument("url", help="ws://HOST:PORT/game/NAME")
    c.add_argument("--agent", default="greedy",
                   help=f"the agent answering the server (default greedy); {SPEC_HELP}. "
                        f"It decides from what its seat was told (docs/server.md)")
    c.add_argument("--seed", type=int, default=0, help="seed of the agent's own choices (default 0)")
    c.set_defaults(func=_cmd_connect)
    _add_view(sub, _int_at_least)
    _add_play(sub, _int_at_least)
    _add_train(sub, _int_at_least)
    for name, sp in sub.choices.items():
        sp.description, example = _ABOUT[name]
        sp.epilog = f"example:\n  {example}"
    return p


#: Each command's --help: what it does (its description) and one example.
_ABOUT = {
    "simulate": ("Play whole matches between agents and print the counters: match and "
                 "hand wins per team,\nthe places of the winner's partner, plays and bombs per "
                 "hand. The same seed gives the same result\nat any thread count. Compiled "
                 "agents play in compiled code; a learned dmc:PATH (or a Python agent)\nis "
                 "played by a Python loop, one decision at a time, far slower.",
                 "guandan-fast simulate --matches 1000 --agents greedy,random,greedy,random\n"
                 "  guandan-fast simulate --matches 20 --agents dmc:runs/dmc/dmc.npz,greedy,"
                 "dmc:runs/dmc/dmc.npz,greedy"),
    "tournament": ("A duplicate round robin: every pair of agents plays each deal twice, the "
                   "teams swapped; win rates\nwith 95% intervals and the stronger agent of "
                   "each pair (docs/tournament.md).",
                   "guandan-fast tournament --agents greedy,random --deals 200 --json out.json\n"
                   "  guandan-fast tournament --gauntlet expert --deals 300"),
    "moves": ("List the legal moves of a hand at a level, on lead or following a play, grouped "
              "by type.",
              'guandan-fast moves "S9 S9 D9 H7 SB" --level 7 --last "Pair 8 S8 C8"'),
    "perft": ("Count the leaves of the move tree of a fixed deal to a depth with the compiled "
              "engine and the\nreference engine, and say whether they agree (as a chess "
              "engine's perft). Depth 2 takes seconds,\ndepth 3 minutes (the reference is the "
              "slow part; --fast-only skips it).",
              "guandan-fast perft --seed 1 --depth 2 --per-move"),
    "replay": ("Check a recorded match move by move against the rules and print it readably: "
               "every\nhand's deal, exchange, plays and outcome.",
               "guandan-fast replay games.jsonl --match 1 --hand 1"),
    "serve": ("Serve the AI-competition platform's WebSocket protocol: platform bots connect "
              "and play tables of\nfour, seats not taken by --bots (docs/server.md).",
              "guandan-fast serve --bots 1,2,3=greedy --games 10 --record games.jsonl"),
    "view": ("Replay a recorded match in the browser: the table, every hand's deal, exchange "
             "and plays, step by\nstep (a local page; --html writes one self-contained file).",
             "guandan-fast view games.jsonl --match 1"),
    "play": ("Play against agents in the browser: a page per person's seat (one or several, "
             "a link each),\nthe other seats played by agents, spectators and a lobby "
             "(docs/web.md).",
             "guandan-fast play --seat 0,2 --agents expert"),
    "connect": ("Play at a platform server with any agent (one seat; the agent answers every "
                "request from what its seat was told).",
                "guandan-fast connect ws://127.0.0.1:23456/game/client1 --agent expert"),
    "train": ("Train a Q-network by deep Monte-Carlo self-play (the train extra: PyTorch): "
              "rounds of actors on VecEnv,\na learner, duplicate evaluations against built-in "
              "bots, checkpoints; Ctrl-C saves, --resume goes on\nexactly. The agent is "
              "dmc:OUT/dmc.npz (docs/training.md).",
              "guandan-fast train --out runs/dmc --rounds 20"),
}


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 500 else text[:497] + "..."


def _missing(filename) -> str:
    """A FileNotFoundError in words: a missing folder of an output file is named as such."""
    if filename is None:
        return "no such file"
    folder = os.path.dirname(os.fspath(filename))
    if folder and not os.path.isdir(folder):
        return f"no such folder: {folder} (for {filename})"
    return f"no such file: {filename}"


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit status (0, 2 for bad input, 130 on Ctrl-C)."""
    from .agents import AgentError
    from .extras import missing_extra

    args = build_parser().parse_args(argv)
    try:
        code = args.func(args)
        sys.stdout.flush()  # a closed pipe shows up here, inside the handler below
        return code
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly; stdout goes to devnull so the
        # interpreter's final flush does not complain either.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):  # stdout without a descriptor (tests)
            pass
        return 141  # 128 + SIGPIPE, as a process killed by it
    except KeyboardInterrupt:
        return 130
    except ImportError as exc:
        # An optional extra that is not installed: one line saying how to install it.
        line = missing_extra(exc)
        if line is None:
            raise
        print(f"guandan-fast: error: {line}", file=sys.stderr)
        return 2
    except AgentError as exc:
        # Which agent failed at which decision, then the agent's own traceback.
        print(f"guandan-fast: error: {_one_line(exc)}", file=sys.stderr)
        if exc.__cause__ is not None:
            traceback.print_exception(exc.__cause__, file=sys.stderr)
        return 1
    except FileNotFoundError as exc:
        print(f"guandan-fast: error: {_missing(exc.filename)}", file=sys.stderr)
        return 2
    except OSError as exc:
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"guandan-fast: error: {where}{exc.strerror or _one_line(exc)}", file=sys.stderr)
        return 2
    except (ValueError, TypeError, OverflowError, RecursionError, MemoryError) as exc:
        print(f"guandan-fast: error: {_one_line(exc)}", file=sys.stderr)
        return 2

"""Soak and fault test of ``guandan-fast serve``: many tables at once, misbehaving clients.

The server runs as its own process (``guandan-fast serve --tables N --games G --record F``);
this process runs 4 x N platform clients in one asyncio loop. Each answers every ``act`` with
a seeded random index, and with seeded small probabilities misbehaves first: sends garbage
text, malformed JSON or a binary frame (refused; the server waits on), answers twice (the
second one is refused as out of turn, or taken as the answer to its next question), stalls
before answering, or disconnects for good (a bot takes its seat over). Reported:

- act messages answered per second, and the server's own CPU time per act (its user +
  system time while serving, from /proc and ``wait4``, start-up excluded);
- latency: from a client's answer to the next message it receives (p50 / p99 / max);
- the server's resident memory (VmRSS) after warm-up (10 % of the games) and at the end;
- the record: every game the server finished is in it and replays (``Game.from_record``).

It exits 1 when a game is missing from the record or does not replay, when a well-behaved
client did not see its table end, or when the server reported a table error.

    .venv/bin/python bench/bench_soak.py --tables 64 --games 16 --policy most   # 1,024 games
    .venv/bin/python bench/bench_soak.py --tables 4 --games 1         # a quick one (the suite's)

Takes about 5 s for the quick one; the 1,024 games about an hour (the clients are the limit).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from array import array

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a live process (from /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Faults:
    """Per-act probabilities of each misbehaviour (before the valid answer)."""

    def __init__(self, rate: float) -> None:
        self.garbage = self.malformed = self.binary = self.twice = rate
        self.stall = rate / 2
        self.disconnect = rate / 100


async def client(url: str, seed: int, faults: Faults, lat: array, counts: dict,
                 policy: str) -> dict:
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    rng = random.Random(seed)
    seen = {"games": 0, "result": None, "acts": 0, "left": False}
    sent_at = None
    try:
        async with connect(url, ping_interval=None, max_size=None) as ws:
            async for data in ws:
                if sent_at is not None:
                    lat.append(time.perf_counter() - sent_at)
                    sent_at = None
                msg = json.loads(data)
                if msg["type"] != "act":
                    if msg["stage"] == "gameOver":
                        seen["games"] = msg["curTimes"]
                    elif msg["stage"] == "gameResult":
                        seen["result"] = msg
                    continue
                seen["acts"] += 1
                r = rng.random()
                if r < faults.disconnect:
                    counts["disconnect"] += 1
                    seen["left"] = True
                    await ws.close(1000, "soak: leaving")
                    break
                if policy == "most":   # a move with the most cards: shorter games
                    acts = msg["actionList"]
                    i = max(range(len(acts)), key=lambda k: (len(acts[k][2]), rng.random()))
                else:
                    i = rng.randrange(msg["indexRange"] + 1)
                answer = json.dumps({"actIndex": i})
                for name in ("garbage", "malformed", "binary", "twice", "stall"):
                    if rng.random() < getattr(faults, name):
                        counts[name] += 1
                        if name == "garbage":
                            await ws.send("hello, is this the game?")
                        elif name == "malformed":
                            await ws.send('{"actIndex": ')
                        elif name == "binary":
                            await ws.send(b"\x00\x01")
                        elif name == "twice":
                            await ws.send(answer)
                        else:
                            await asyncio.sleep(rng.uniform(0.05, 0.5))
                sent_at = time.perf_counter()
                await ws.send(answer)
    except ConnectionClosed:
        pass
    return seen


async def load(port: int, clients: range, seed: int, faults: Faults, lat: array,
               counts: dict, policy: str) -> list:
    url = f"ws://127.0.0.1:{port}/game/"
    return await asyncio.gather(
        *(client(url + f"c{i}", seed + i, faults, lat, counts, policy) for i in clients),
        return_exceptions=True)


def run_clients(port: int, clients: range, seed: int, rate: float, policy: str) -> tuple:
    """Clients ``clients`` (indices) in one asyncio loop of this process: (what each saw,
    latencies, misbehaviour counts)."""
    lat, counts = array("d"), dict.fromkeys(
        ("garbage", "malformed", "binary", "twice", "stall", "disconnect"), 0)
    seen = asyncio.run(load(port, clients, seed, Faults(rate), lat, counts, policy))
    # exceptions travel between processes as text
    seen = [repr(s) if isinstance(s, BaseException) else s for s in seen]
    return seen, lat, counts


def run_all_clients(port: int, n: int, procs: int, seed: int, rate: float,
                    policy: str) -> tuple:
    """``n`` clients in ``procs`` processes (forked; one: this one), merged."""
    if procs == 1:
        return run_clients(port, range(n), seed, rate, policy)
    from concurrent.futures import ProcessPoolExecutor
    import multiprocessing

    parts = [range(k, n, procs) for k in range(procs)]
    with ProcessPoolExecutor(procs, mp_context=multiprocessing.get_context("fork")) as ex:
        done = list(ex.map(run_clients, [port] * procs, parts, [seed] * procs,
                           [rate] * procs, [policy] * procs))
    seen, lat, counts = [], array("d"), {}
    for s, la, c in done:
        seen += s
        lat.extend(la)
        for k, v in c.items():
            counts[k] = counts.get(k, 0) + v
    return seen, lat, counts


def pct(xs, q: float) -> float:
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def check_record(path: str) -> tuple:
    """(headers, games that replay, finished games whose replay is not over)."""
    from guandan_fast import Game

    headers = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if '"format"' in line:
                headers.append(json.loads(line))
    replayed, unfinished = 0, 0
    for i, h in enumerate(headers):
        g = Game.from_record(path, match=i)
        replayed += 1
        if h["server"]["end"] == "win" and not g.is_over:
            unfinished += 1
    return headers, replayed, unfinished


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=64)
    ap.add_argument("--games", type=int, default=16, help="games per table")
    ap.add_argument("--rules", choices=("platform", "default"), default="default")
    ap.add_argument("--fault-rate", type=float, default=0.002,
                    help="per act, the chance of each misbehaviour (stall: half, leave: 1/100)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--policy", choices=("random", "most"), default="random",
                    help="the clients' answers: a random index, or a move with the most cards "
                         "(games about 3x shorter)")
    ap.add_argument("--client-procs", type=int, default=1,
                    help="processes the clients run in (default 1; the tables' clients mix)")
    ap.add_argument("--minutes", type=float, default=0.0,
                    help="stop the server (Ctrl-C) after this long and report the games "
                         "finished by then (0: play them all)")
    ap.add_argument("--record", help="the record file (default: a temporary file)")
    ap.add_argument("--profile", metavar="FILE", help="run the server under cProfile, stats to FILE")
    ap.add_argument("--server-prefix", default="",
                    help="a command the server runs under, e.g. 'valgrind --tool=callgrind'")
    args = ap.parse_args(argv)
    tmp = None
    if args.record is None:
        tmp = tempfile.TemporaryDirectory()
        args.record = os.path.join(tmp.name, "soak.jsonl")
    games = args.tables * args.games
    # the server's own CPU time per function (cProfile with a CPU clock: wall time would
    # count the time the server waits for the machine's other processes)
    prof = ["-c", "import cProfile, runpy, sys, time; sys.argv[0] = 'guandan_fast'; "
            "p = cProfile.Profile(time.process_time); p.enable()\n"
            "try: runpy.run_module('guandan_fast', run_name='__main__')\n"
            f"except SystemExit: pass\np.disable(); p.dump_stats({args.profile!r})"
            ] if args.profile else ["-m", "guandan_fast"]
    server_log = tempfile.TemporaryFile()
    server = subprocess.Popen(
        [*args.server_prefix.split(), sys.executable, *prof, "serve", "--port", "0", "--quiet",
         "--tables", str(args.tables), "--games", str(args.games), "--rules", args.rules,
         "--seed", str(args.seed), "--handshake-pause", "0.01", "--record", args.record],
        # the server's log goes to a file: a pipe read only at the end would fill up (64 KiB
        # of warnings about the refused messages) and block the server mid-run
        stdout=subprocess.PIPE, stderr=server_log, text=True)
    rss = []            # (seconds, games in the record, MiB)
    stop = threading.Event()

    tty = sys.stderr.isatty()
    shown = [0.0, False]   # when progress was last shown; a \r line is open

    def progress(done: int, el: float, final: bool = False) -> None:
        # games done, rate and time left: redrawn in place on a terminal, else a line a minute
        if not final and el - shown[0] < (1.0 if tty else 60.0):
            return
        shown[0] = el
        rate = done / el if el > 0 else 0.0
        left = f"{(games - done) / rate / 60:.1f} min left" if rate > 0 else "? left"
        text = f"soak: {done}/{games} games, {el / 60:.1f} min, {60 * rate:.2f} games/min, {left}"
        if tty:
            sys.stderr.write(f"\r{text}\x1b[K" + ("\n" if final else ""))
            shown[1] = not final
        else:
            sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def sample():
        t0 = time.perf_counter()
        done, offset = 0, 0
        while not stop.wait(0.5):
            try:   # the games appended since the last look (the record only grows)
                with open(args.record, "rb") as f:
                    f.seek(offset)
                    new = f.read()
                cut = new.rfind(b"\n") + 1
                done += new[:cut].count(b'"format"')
                offset += cut
            except FileNotFoundError:
                pass
            try:
                rss.append((time.perf_counter() - t0, done, rss_mib(server.pid)))
            except (FileNotFoundError, ProcessLookupError):
                break
            progress(done, time.perf_counter() - t0)
        progress(done, time.perf_counter() - t0, final=True)

    try:
        line = server.stdout.readline()
        port = int(line.split(":")[2].split("/")[0])
        cpu0, rss0 = cpu_seconds(server.pid), rss_mib(server.pid)
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        t0 = time.perf_counter()
        limit = None
        if args.minutes > 0:   # the server's own Ctrl-C: running games are recorded as cut
            limit = threading.Timer(60 * args.minutes, server.send_signal, (signal.SIGINT,))
            limit.start()
        seen, lat, counts = run_all_clients(port, 4 * args.tables, args.client_procs,
                                            args.seed, args.fault_rate, args.policy)
        elapsed = time.perf_counter() - t0
        if limit is not None:
            limit.cancel()
        out = server.stdout.read()
        _, status, usage = os.wait4(server.pid, 0)
        server.returncode = os.waitstatus_to_exitcode(status)
        server_log.seek(0)
        err = server_log.read().decode("utf-8", "replace")
        stop.set()
        sampler.join()
    finally:
        if server.returncode is None:
            server.kill()
    cpu = usage.ru_utime + usage.ru_stime - cpu0
    crashed = [s for s in seen if isinstance(s, str)]
    ok = [s for s in seen if not isinstance(s, str)]
    acts = sum(s["acts"] for s in ok)
    m = re.search(r"(\d+) game\(s\)", out)
    server_games = int(m.group(1)) if m else 0
    stopped = server.returncode == 130     # --minutes: the server was stopped by Ctrl-C
    # a client that stayed must see every game end and a result for each (unless stopped)
    incomplete = len(crashed) + (0 if stopped else sum(
        1 for s in ok if not s["left"] and (s["games"] != args.games or s["result"] is None)))
    headers, replayed, unfinished = check_record(args.record)
    ends = {}
    for h in headers:
        ends[h["server"]["end"]] = ends.get(h["server"]["end"], 0) + 1
    finished = len(headers) - ends.get("interrupted", 0)
    if stopped:
        print(f"stopped after {args.minutes} min (--minutes): {finished} of {games} games "
              f"finished, {ends.get('interrupted', 0)} cut short by the stop")
        games = finished
    faults = sum(len(h["server"]["faults"]) for h in headers)
    xs = sorted(lat)
    warm = next((mib for _, done, mib in rss if done >= games // 10), None)
    print(f"{args.tables} tables x {args.games} games ({args.rules} rules), "
          f"{4 * args.tables} clients ({args.policy}) in {args.client_procs} process(es) on 127.0.0.1, fault rate {args.fault_rate}")
    print(f"elapsed {elapsed:.1f} s: {games / elapsed:.2f} games/s, {acts / elapsed:.0f} acts/s "
          f"({acts} act messages)")
    print(f"server CPU {cpu:.1f} s while serving: {1e6 * cpu / max(acts, 1):.0f} us per act "
          f"(start-up {cpu0:.2f} s excluded; whole run user {usage.ru_utime:.1f} s, "
          f"system {usage.ru_stime:.1f} s)")
    print(f"latency answer -> next message: p50 {1e3 * pct(xs, 0.5):.2f} ms, "
          f"p99 {1e3 * pct(xs, 0.99):.2f} ms, max {1e3 * (xs[-1] if xs else 0):.1f} ms "
          f"({len(xs)} samples)")
    print(f"server RSS: {rss0:.1f} MiB listening, "
          f"{'n/a' if warm is None else f'{warm:.1f}'} MiB after warm-up (10 % of the games), "
          f"{rss[-1][2] if rss else float('nan'):.1f} MiB at the end, "
          f"max {max((r[2] for r in rss), default=float('nan')):.1f} MiB")
    print(f"misbehaviour sent: {counts}; server: {out.strip()}")
    print(f"record: {len(headers)} games ({ends}), {replayed} replay, {faults} faults recorded, "
          f"{unfinished} 'win' games that do not replay to the end")
    if crashed:
        print(f"client errors: {crashed[:3]!r}")
    bad = (server.returncode not in (0, 130) or (server.returncode == 130 and not stopped)
           or server_games != games or finished != games
           or unfinished or incomplete or "Traceback" in err)
    if bad:
        print(f"FAILED: server exit {server.returncode}, games {server_games}/{games}, record "
              f"{len(headers)}, incomplete clients {incomplete}\n{err[-2000:]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

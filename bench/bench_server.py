"""Load test of ``guandan-fast serve`` on loopback: many tables of scripted clients at once.

The server runs as its own process (``guandan-fast serve --tables N``); this process runs
4 x N platform clients in one asyncio loop, each answering every ``act`` with a seeded random
index. A game fails when a client does not see it end (``gameOver``), when the final
``gameResult`` does not account for every game, or when the server reports a table error.

    .venv/bin/python bench/bench_server.py --tables 16 --games 1

Takes about a minute with 16 tables of one game (the one client process is the limit), a
few seconds with 4.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import subprocess
import sys
import time


async def client(url: str, seed: int) -> dict:
    from websockets.asyncio.client import connect

    rng = random.Random(seed)
    seen = {"games": 0, "result": None, "acts": 0}
    async with connect(url, ping_interval=None, max_size=None) as ws:
        async for data in ws:
            msg = json.loads(data)
            if msg["type"] == "act":
                seen["acts"] += 1
                await ws.send(json.dumps({"actIndex": rng.randrange(msg["indexRange"] + 1)}))
            elif msg["stage"] == "gameOver":
                seen["games"] = msg["curTimes"]
            elif msg["stage"] == "gameResult":
                seen["result"] = msg
    return seen


async def load(port: int, tables: int, seed: int) -> list:
    url = f"ws://127.0.0.1:{port}/game/"
    return await asyncio.gather(*(client(url + f"c{i}", seed + i) for i in range(4 * tables)),
                                return_exceptions=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=16)
    ap.add_argument("--games", type=int, default=1, help="games per table")
    ap.add_argument("--rules", choices=("platform", "default"), default="platform")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    server = subprocess.Popen(
        [sys.executable, "-m", "guandan_fast", "serve", "--port", "0", "--quiet",
         "--tables", str(args.tables), "--games", str(args.games), "--rules", args.rules,
         "--seed", str(args.seed), "--handshake-pause", "0.2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        port = int(line.split(":")[2].split("/")[0])
        t0 = time.perf_counter()
        seen = asyncio.run(load(port, args.tables, args.seed))
        elapsed = time.perf_counter() - t0
        out, err = server.communicate(timeout=60)
    finally:
        server.kill()
    crashed = [s for s in seen if isinstance(s, BaseException)]
    ok = [s for s in seen if not isinstance(s, BaseException)]
    games = args.tables * args.games
    m = re.search(r"(\d+) game\(s\)", out)
    server_games = int(m.group(1)) if m else 0
    # a client is incomplete when it did not see every game end and a gameResult that
    # accounts for each game (2 winning seats per game, or a draw)
    incomplete = len(crashed) + sum(
        1 for s in ok if s["games"] != args.games or s["result"] is None
        or sum(s["result"]["victoryNum"]) + 2 * s["result"]["draws"][0] != 2 * args.games)
    failed_games = games - server_games
    acts = sum(s["acts"] for s in ok)
    print(f"tables {args.tables} x games {args.games} ({args.rules} rules), "
          f"{4 * args.tables} clients on 127.0.0.1")
    print(f"elapsed {elapsed:.2f} s: {games / elapsed:.2f} games/s, {acts / elapsed:.0f} acts/s "
          f"({acts} act messages answered)")
    print(f"failed games {failed_games}, incomplete clients {incomplete}; server: {out.strip()}")
    if crashed:
        print(f"client errors: {crashed[:3]!r}")
    server_ok = server.returncode == 0 and "0 fault" in out and "0 refused" in out
    return 0 if failed_games == 0 and incomplete == 0 and server_ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""A platform client that misbehaves at its Nth decision (1-based), to test how the
tournament takes faults. Usage: ``faulty_client.py MODE N URL [TAG]``; ``TAG`` is only there
for the tests to find the process in the process table.

Modes: ``crash`` (prints to stderr and exits with status 3), ``hang`` (stops answering and
sleeps), ``garbage`` (answers with text that is not JSON, then goes on sending garbage),
``exit`` (closes the connection cleanly and exits 0), ``child`` (starts a child process that
sleeps, then hangs: the whole process group must be killed), ``noconnect`` (sleeps without
connecting; N is ignored). Until then it plays the first action that is not a pass.
"""

import json
import subprocess
import sys
import time

from websockets.sync.client import connect

PASS = ["PASS", "PASS", "PASS"]


def main(mode: str, n: int, url: str, tag: str) -> None:
    if mode == "noconnect":
        time.sleep(3600)
    with connect(url) as ws:
        decisions = 0
        for text in ws:
            message = json.loads(text)
            if message.get("type") != "act":
                continue
            decisions += 1
            if decisions == n:
                if mode == "crash":
                    print(f"faulty client: crashing at decision {n} as asked", file=sys.stderr,
                          flush=True)
                    sys.exit(3)
                if mode == "hang":
                    time.sleep(3600)
                if mode == "garbage":
                    while True:
                        ws.send("this is not JSON")
                        time.sleep(0.2)
                if mode == "exit":
                    return
                if mode == "child":
                    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)",
                                      tag])
                    time.sleep(3600)
            actions = message["actionList"]
            i = next((k for k, a in enumerate(actions) if a != PASS), 0)
            ws.send(json.dumps({"actIndex": i}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "")

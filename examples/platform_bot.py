"""A platform bot in the shape of the competition platform's example clients: a threaded
WebSocket client that answers every ``act`` message with ``{"actIndex": i}``.

Its rule is deliberately plain: play the first action of ``actionList`` that is not a pass
(the engine lists the lowest plays first), pass only when nothing else is allowed. Replace
``choose`` with your own logic.

Run it against a server (``guandan-fast serve``), or measure it in a tournament, which starts
one process per seat and puts the seat's URL where ``{url}`` stands::

    guandan-fast tournament --agents expert,mybot --deals 20 \\
        --external mybot="python examples/platform_bot.py {url}"

The URL comes from the first argument, else from the environment variable
``GUANDAN_FAST_URL``, else the platform's default. Needs ``websocket-client``.
"""

import json
import os
import sys
import threading

import websocket   # websocket-client: threaded, as the platform's example clients

PASS = ["PASS", "PASS", "PASS"]


def choose(message: dict) -> int:
    """The index in ``actionList`` to answer an ``act`` message with."""
    actions = message["actionList"]
    for i, action in enumerate(actions):
        if action != PASS:
            return i
    return 0


def main() -> None:
    url = (sys.argv[1] if len(sys.argv) > 1
           else os.environ.get("GUANDAN_FAST_URL", "ws://127.0.0.1:23456/game/mybot"))
    done = threading.Event()

    def on_message(ws, text):
        message = json.loads(text)
        if message.get("type") == "act":
            ws.send(json.dumps({"actIndex": choose(message)}))

    def on_close(ws, code, reason):
        done.set()

    app = websocket.WebSocketApp(url, on_message=on_message, on_close=on_close,
                                 on_error=lambda ws, exc: print(f"error: {exc}", file=sys.stderr))
    # The socket is read in a thread of its own, as the platform's clients do.
    reader = threading.Thread(target=app.run_forever, daemon=True)
    reader.start()
    reader.join()


if __name__ == "__main__":
    main()

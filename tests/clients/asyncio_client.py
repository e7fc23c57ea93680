"""A platform client written with asyncio (``websockets``): plays the first action of
``actionList`` that is not a pass. Usage: ``asyncio_client.py URL``."""

import asyncio
import json
import sys

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

PASS = ["PASS", "PASS", "PASS"]


async def main(url: str) -> None:
    async with connect(url, ping_interval=None) as ws:
        try:
            async for text in ws:
                message = json.loads(text)
                if message.get("type") == "act":
                    actions = message["actionList"]
                    i = next((k for k, a in enumerate(actions) if a != PASS), 0)
                    await ws.send(json.dumps({"actIndex": i}))
        except ConnectionClosed:
            pass


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))

"""Headless Chromium for the web tests and the screenshots (docs/web.md): the operating
system's ``chromium`` and ``chromium-driver`` driven by Selenium, nothing downloaded; and a
``play`` server running in a thread."""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
import time

from guandan_fast.net.server import GameServer
from guandan_fast.web.play import http_handler, page_config

INSTALL = "apt-get install -y chromium chromium-driver"


def chrome(width: int = 1280, height: int = 900):
    """A headless Chromium (Selenium), at ``width`` x ``height`` CSS pixels."""
    from selenium import webdriver

    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if binary is None or driver_path is None:
        raise RuntimeError(f"the browser tests need Debian's chromium and its driver: {INSTALL}")
    os.environ.setdefault("SE_OFFLINE", "true")   # Selenium Manager must not download anything
    opts = webdriver.ChromeOptions()
    opts.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-extensions", "--no-first-run", f"--window-size={width},{height}",
                "--force-device-scale-factor=1"):
        opts.add_argument(arg)
    # no speculative connections: an idle preconnected socket would hold the server's
    # shutdown until its handshake timeout
    opts.add_experimental_option("prefs", {"net.network_prediction_options": 2})
    return webdriver.Chrome(options=opts, service=webdriver.ChromeService(executable_path=driver_path))


def emulate_width(driver, width: int | None, height: int = 844) -> None:
    """Lay pages out at ``width`` CSS pixels, as a phone of that width does (a window cannot
    be narrower than about 500 pixels, so the device metrics are emulated, as the browser's
    own phone mode does); None: back to the window's size."""
    if width is None:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    else:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 1,
                                "mobile": True})


class PlayServer:
    """``guandan-fast play``'s server (``cfg`` from ``play_config``) in a thread of its own."""

    def __init__(self, cfg, delay: float = 0.0) -> None:
        self.cfg = cfg
        self.loop = asyncio.new_event_loop()
        self.server = GameServer(cfg)
        cfg.http = http_handler(lambda: page_config(cfg, delay), self.server.tables_info)
        started = threading.Event()

        def run():
            asyncio.set_event_loop(self.loop)
            self.loop.run_until_complete(self.server.start())
            started.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        if not started.wait(10):
            raise RuntimeError("the play server did not start")
        self.url = f"http://127.0.0.1:{self.server.port}/"

    def stop(self) -> None:
        if self.loop.is_closed():
            return
        asyncio.run_coroutine_threadsafe(self.server.stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


def tap(driver, element) -> None:
    """A finger's tap on ``element`` (the browser's touch input, as on a phone), at a point
    of it that shows: 5 pixels inside its left edge (a hand's cards overlap)."""
    r = driver.execute_script("const r = arguments[0].getBoundingClientRect();"
                              "return [r.left, r.top, r.height];", element)
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
    point = {"x": r[0] + 5, "y": r[1] + r[2] / 2}
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point]})
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def wait_for(predicate, timeout: float = 10.0, what: str = "the page"):
    """Poll ``predicate()`` until it returns a true value (returned), or fail naming ``what``."""
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)

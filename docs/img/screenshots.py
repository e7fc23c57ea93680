"""Screenshots of the web pages for docs/web.md and the README, taken with the browser tests'
machinery (tests/browser_helpers.py: the system's headless Chromium through Selenium).

    .venv/bin/python docs/img/screenshots.py

Writes play-laptop.png, play-phone.png (a phone's whole screen, 390x844: the prompt and
the buttons in view), play-summary.png (the end of a hand) and viewer-laptop.png next to this
file.
"""

from __future__ import annotations

import pathlib
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "tests"))

from browser_helpers import PlayServer, chrome, emulate_width, wait_for  # noqa: E402

from guandan_fast import Game, Rules, simulate  # noqa: E402
from guandan_fast.web.play import play_config  # noqa: E402
from guandan_fast.web.viewer import match_document, viewer_html  # noqa: E402


def play_until_asked(driver, server, plays: int) -> None:
    """Open the play page and make ``plays`` moves (each time the lowest play offered, or the
    hint when following), so the table has a trick in the middle."""
    driver.get(server.url)
    for _ in range(plays):
        wait_for(lambda: driver.execute_script("return !!window.gfPage.model.act"), 20)
        driver.execute_script("""
            const act = window.gfPage.model.act;
            const i = act.actionList.findIndex(a => a[0] !== 'PASS');
            window.gfPage.send(JSON.stringify({actIndex: i < 0 ? 0 : i}));
            window.gfPage.model.act = null;""")
    wait_for(lambda: driver.execute_script("return !!window.gfPage.model.act"), 20)
    # select a pair so that the readings show
    driver.execute_script("""
        const act = window.gfPage.model.act;
        const a = act.actionList.find(a => a[0] === 'Pair') || act.actionList.find(a => a[0] !== 'PASS');
        const used = new Set();
        for (const c of a[2]) {
          const b = [...document.querySelectorAll('#gf-seat-bottom button.card')]
            .find(b => b.dataset.code === c && !used.has(b.dataset.index));
          used.add(b.dataset.index); b.click();
        }""")


def play_to_the_summary(driver, server) -> None:
    """Open the play page and answer every question (pass when following, else the first
    play) until the end-of-hand summary shows."""
    driver.get(server.url)
    for _ in range(400):
        if driver.execute_script("return !document.getElementById('gf-summary').hidden"):
            return
        driver.execute_script("""
            const act = window.gfPage.model.act;
            if (act) { window.gfPage.send(JSON.stringify({actIndex: 0})); window.gfPage.model.act = null; }""")
        wait_for(lambda: driver.execute_script(
            "return !!window.gfPage.model.act || !document.getElementById('gf-summary').hidden"), 30)
    raise RuntimeError("the hand did not end")


def main() -> None:
    for name, (w, h) in {"laptop": (1280, 860), "phone": (390, 844)}.items():
        driver = chrome(max(w, 800), h)
        emulate_width(driver, w, h)
        try:
            cfg = play_config(seat=0, agents="greedy", rules=Rules.platform(), seed=11)
            server = PlayServer(cfg)
            try:
                play_until_asked(driver, server, 3)
                driver.save_screenshot(str(HERE / f"play-{name}.png"))
            finally:
                server.stop()
            if name == "laptop":
                server = PlayServer(play_config(seat=0, agents="greedy", rules=Rules.platform(),
                                                seed=11))
                try:
                    play_to_the_summary(driver, server)
                    driver.save_screenshot(str(HERE / "play-summary.png"))
                finally:
                    server.stop()
                with tempfile.TemporaryDirectory() as tmp:
                    rec = pathlib.Path(tmp) / "r.jsonl"
                    simulate(matches=1, agents=("greedy", "random", "greedy", "random"), seed=2,
                             record=str(rec))
                    page = pathlib.Path(tmp) / "m.html"
                    page.write_text(viewer_html(match_document(rec, 0)), encoding="utf-8")
                    driver.get(page.as_uri())
                    driver.execute_script("""
                        const sel = document.getElementById('gf-jump'); sel.value = '1';
                        sel.dispatchEvent(new Event('change'));
                        for (let i = 0; i < 3; i++) document.getElementById('gf-trick-next').click();
                        document.getElementById('gf-next').click();""")
                    driver.save_screenshot(str(HERE / "viewer-laptop.png"))
        finally:
            driver.quit()
    print("wrote", ", ".join(sorted(p.name for p in HERE.glob("*.png"))))


if __name__ == "__main__":
    main()

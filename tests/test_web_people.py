"""People at one table in headless Chromium (tests/browser_helpers.py): two people in two
browsers beside two bots and a spectator, the end-of-hand summary held until continued, seats
named from the viewer's place, the tribute prompt, the phone layout (controls in view, cards
taken by touch), the lobby, and the viewer's seed."""

from __future__ import annotations

import time
import urllib.request

import pytest
from selenium.webdriver.common.by import By

from browser_helpers import PlayServer, chrome, emulate_width, tap, wait_for
from helpers import make_hands
from guandan_fast import Game, Rules, simulate
from guandan_fast.agents import STRONGEST
from guandan_fast.web.play import play_config
from guandan_fast.web.viewer import match_document, viewer_html

pytestmark = pytest.mark.xdist_group("browser-people")   # one worker: one pair of browsers


@pytest.fixture(scope="module")
def browsers():
    first, second = chrome(), chrome()
    yield first, second
    first.quit()
    second.quit()


STATE = """
const m = window.gfPage.model;
const s = document.getElementById('gf-summary');
return {act: m.act && {stage: m.act.stage, actions: m.act.actionList}, asks: m.asks, me: m.me,
        hand: m.hand, summary: s.hidden ? null : s.textContent,
        message: document.getElementById('gf-message').textContent,
        levels: document.getElementById('gf-levels').textContent,
        seatCards: document.querySelectorAll('#gf-table .seat .card').length,
        log: document.getElementById('gf-log').textContent};"""


def state(driver) -> dict:
    return driver.execute_script(STATE)


def answer(driver, st) -> None:
    """Answer the pending question through the page: Pass when following, otherwise the
    cards of the first legal action clicked in the hand and its reading confirmed."""
    actions = st["act"]["actions"]
    if actions[0][0] == "PASS":
        driver.find_element(By.ID, "gf-pass").click()
        return
    shown = driver.execute_script("""
        for (const c of arguments[0]) {
          const b = [...document.querySelectorAll('#gf-seat-bottom button.card')]
            .find(b => b.dataset.code === c && b.getAttribute('aria-pressed') === 'false');
          b.click();
        }
        return [...document.querySelectorAll('#gf-readings button')].map(b => Number(b.dataset.index));
        """, actions[0][2])
    assert 0 in shown, shown
    driver.find_element(By.CSS_SELECTOR, '#gf-readings button[data-index="0"]').click()


def test_two_people_two_bots_and_a_spectator_play_a_hand(browsers):
    """Seats 0 and 2 are people in two browsers, 1 and 3 bots; a spectator watches in a third
    page. Nobody's page shows another seat's cards; the spectator sees no hand while the hand
    is played and every dealt hand after it; the summary stays until each person continues."""
    a, b = browsers
    cfg = play_config(seat=(0, 2), agents="greedy", seed=11, rules=Rules.platform())
    server = PlayServer(cfg, delay=0.0)
    try:
        a.get(server.url + "?seat=0")
        b.get(server.url + "?seat=2")
        watcher = a.current_window_handle
        a.switch_to.new_window("window")
        a.get(server.url + "?watch=1")
        spectator = a.current_window_handle
        a.switch_to.window(watcher)
        people = {0: (a, watcher), 2: (b, b.current_window_handle)}
        spectator_peeks = 0
        deadline = time.monotonic() + 120
        while True:
            assert time.monotonic() < deadline, "the hand did not end"
            done = 0
            for seat, (drv, handle) in people.items():
                drv.switch_to.window(handle)
                st = state(drv)
                if st["summary"]:
                    done += 1
                    continue
                assert st["me"] == seat
                assert st["seatCards"] == len(st["hand"])     # only its own cards face up
                if st["act"]:
                    answer(drv, st)
            if done == 2:
                break
            a.switch_to.window(spectator)
            sp = state(a)
            if not sp["summary"]:
                assert sp["me"] is None and sp["hand"] == [] and sp["seatCards"] == 0, sp
                assert a.find_element(By.ID, "gf-dock").get_attribute("hidden") is not None
                spectator_peeks += 1
            a.switch_to.window(watcher)
        assert spectator_peeks > 3
        # the summary: finish order and the next hand's exchange, seats named by place
        a.switch_to.window(watcher)
        st = state(a)
        assert "hand 1 over" in st["summary"] and "finish:" in st["summary"]
        assert "partner (a person)" in st["summary"] or "partner (a person)" in st["log"]
        assert "right (greedy)" in st["log"] and "left (greedy)" in st["log"]
        assert "last trick:" in st["summary"] and "next: hand 2" in st["summary"]
        b_state = state(b)
        assert "hand 1 over" in b_state["summary"]
        # it stays: the table goes on (bots play, the record grows) but this page waits
        time.sleep(1.5)
        assert state(a)["summary"] and "hand 1" in state(a)["levels"]
        # the spectator saw every hand once the hand was over
        a.switch_to.window(spectator)
        wait_for(lambda: state(a)["summary"], what="the spectator's summary")
        assert len(a.find_elements(By.CSS_SELECTOR, "#gf-summary .deal .card")) == 108
        a.switch_to.window(watcher)
        # a reload on the summary shows it again (the next hand has no play yet)
        a.refresh()
        wait_for(lambda: "hand 1 over" in (state(a)["summary"] or ""), what="the summary again")
        a.find_element(By.ID, "gf-continue").click()
        st = wait_for(lambda: (lambda s: s if not s["summary"] and "hand 2" in s["levels"]
                               else None)(state(a)), what="the next hand after Continue")
        # the spectator's page goes on by itself after the set delay (no one clicks there)
        a.switch_to.window(spectator)
        wait_for(lambda: (lambda s: not s["summary"] and "hand 2" in s["levels"])(state(a)),
                 timeout=15, what="the spectator's page to go on by itself")
        a.switch_to.window(watcher)
        # the lobby lists the table: both people seated, the bots, a watch link
        with urllib.request.urlopen(server.url + "lobby", timeout=10) as r:
            lobby = r.read().decode()
        assert lobby.count("a person") == 2 and lobby.count("greedy (bot)") == 2
        assert "/?watch=1&amp;table=0" in lobby and "take this seat" not in lobby
    finally:
        server.stop()
        a.switch_to.window(spectator)
        a.close()
        a.switch_to.window(watcher)


def person_hand() -> list[list[str]]:
    spec = "S8 C8 H7 DJ HJ DA CA S2 S2 H2 C3 D3 S4 H4 C5 D5 S6 H6 C9 D9 ST HT CQ DQ SK HK CK"
    return make_hands({0: spec}, (1, 2, 3))


def test_wrong_tribute_card_names_the_cards_and_the_receiver(browsers):
    a, _ = browsers
    start = Game.setup(person_hand(), levels=(7, 7), declarer=1, previous_finish=[1, 2, 3, 0],
                       seed=3, rules=Rules.platform())
    server = PlayServer(play_config(seat=0, rules=Rules.platform(), resume=start))
    try:
        a.get(server.url)
        wait_for(lambda: (state(a)["act"] or {}).get("stage") == "tribute", what="the tribute")
        prompt = state(a)["message"]
        assert f"pay a tribute to right ({STRONGEST})" in prompt
        assert "\u2666A" in prompt and "\u2663A" in prompt
        a.execute_script("""[...document.querySelectorAll('#gf-seat-bottom button.card')]
                            .find(b => b.dataset.code === 'SK').click();""")
        msg = state(a)["message"]
        assert msg.startswith("not a legal move: pay a tribute") and f"to right ({STRONGEST})" in msg
        assert "\u2666A or \u2663A" in msg or "\u2663A or \u2666A" in msg
        # the strongest agent is the first hint
        first = a.execute_script("return document.getElementById('gf-hint-agent').options[0].value")
        assert first == STRONGEST
    finally:
        server.stop()


IN_VIEW = """
const out = {};
for (const id of ['gf-message', 'gf-pass', 'gf-hint', 'gf-seat-bottom']) {
  const r = document.getElementById(id).getBoundingClientRect();
  out[id] = r.top >= 0 && r.bottom <= innerHeight && r.height > 0 && r.left >= 0 && r.right <= innerWidth;
}
out.scrollY = scrollY;
out.scroll = document.documentElement.scrollWidth > document.documentElement.clientWidth;
return out;"""


@pytest.mark.parametrize("width,height", [(390, 844), (360, 740)])
def test_phone_keeps_the_prompt_and_controls_in_view_and_takes_cards_by_touch(browsers, width, height):
    a, _ = browsers
    start = Game.setup(person_hand(), levels=(7, 7), declarer=1, previous_finish=None,
                       leader=0, seed=1, rules=Rules.platform())
    server = PlayServer(play_config(seat=0, agents="greedy", rules=Rules.platform(), resume=start))
    emulate_width(a, width, height)
    try:
        a.get(server.url)
        wait_for(lambda: state(a)["act"], what="the lead")
        seen = a.execute_script(IN_VIEW)
        assert seen == {"gf-message": True, "gf-pass": True, "gf-hint": True, "gf-seat-bottom": True, "scrollY": 0,
                        "scroll": False}, seen
        assert state(a)["message"] == "your lead"
        # a tap selects a card, a second tap puts it back
        card = a.find_elements(By.CSS_SELECTOR, "#gf-seat-bottom button.card")[5]
        code = card.get_attribute("data-code")
        tap(a, card)
        wait_for(lambda: a.find_elements(By.CSS_SELECTOR, "#gf-seat-bottom button.card")[5]
                 .get_attribute("aria-pressed") == "true", what="the tapped card selected")
        assert a.find_elements(By.CSS_SELECTOR, "#gf-readings button"), code
        seen = a.execute_script(IN_VIEW)     # the readings are in the dock too
        assert seen["gf-message"] and seen["gf-pass"] and seen["gf-hint"]
        tap(a, a.find_elements(By.CSS_SELECTOR, "#gf-seat-bottom button.card")[5])
        wait_for(lambda: a.find_elements(By.CSS_SELECTOR, "#gf-seat-bottom button.card")[5]
                 .get_attribute("aria-pressed") == "false", what="the tapped card put back")
    finally:
        a.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
        emulate_width(a, None)
        server.stop()


def test_viewer_shows_the_records_seed_exactly_and_counts_from_one(browsers, tmp_path):
    a, _ = browsers
    rec = tmp_path / "r.jsonl"
    seed = 2 ** 63 + 937729          # beyond JavaScript's exact integers
    simulate(matches=1, agents=("greedy", "random", "greedy", "random"), seed=seed, record=str(rec))
    import json
    header = json.loads(rec.read_text().splitlines()[0])
    page = tmp_path / "m.html"
    page.write_text(viewer_html(match_document(rec, 0)), encoding="utf-8")
    a.get(page.as_uri())
    title = a.find_element(By.ID, "gf-title")
    assert title.get_attribute("data-seed") == str(header["seed"])
    assert title.text == f"match 1 of 1 · seed {header['seed']}"
    assert a.find_element(By.ID, "gf-levels").text.startswith("hand 1 · level 2")
    first = a.execute_script("return document.getElementById('gf-jump').options[0].text")
    assert first.startswith("1 (level 2)")

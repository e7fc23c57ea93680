"""The web pages in a real headless Chromium (tests/browser_helpers.py): a hand played by a
person through the play page, a replay stepped to its end against the record, the
self-contained replay file opened from disk offline, refusals shown."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from browser_helpers import PlayServer, chrome, emulate_width, wait_for
from helpers import make_hands
from guandan_fast import Game, Rules, simulate
from guandan_fast.agents import STRONGEST
from guandan_fast.web.play import play_config
from guandan_fast.web.viewer import match_document, viewer_html

COMBO = "S8 C8 H7 DJ HJ"   # at level 7: a full house of 8s and one of jacks


@pytest.fixture(scope="module")
def browser():
    driver = chrome()
    yield driver
    driver.quit()


# -- the replay viewer ------------------------------------------------------------------------

def test_replay_file_offline_stepped_to_the_end(browser, tmp_path):
    rec = tmp_path / "r.jsonl"
    simulate(matches=2, agents=("greedy", "random", "greedy", "random"), seed=5, record=str(rec))
    doc = match_document(rec, 1)
    page = tmp_path / "m.html"
    page.write_text(viewer_html(doc), encoding="utf-8")
    browser.set_network_conditions(offline=True, latency=0, download_throughput=0,
                                   upload_throughput=0)
    try:
        browser.get(page.as_uri())
        assert "match 2 of 2" in browser.find_element(By.ID, "gf-title").text
        # the start: 27 face-up cards per seat, the first hand, nothing played
        assert len(browser.find_elements(By.CSS_SELECTOR, "#gf-table .card")) == 108
        assert browser.execute_script(CLIPPED)["bad"] == []     # every label shows
        # the keyboard steps too
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        last = browser.find_element(By.ID, "gf-last")
        first = doc["hands"][0]["moves"][0]
        assert json.loads(last.get_attribute("data-action")) == first[1]
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
        # every move, clicked through in the page, against the record
        shown = browser.execute_script("""
            const out = [], next = document.getElementById('gf-next'), last = document.getElementById('gf-last');
            while (!next.disabled) {
              next.click();
              if (last.dataset.action) out.push([Number(last.dataset.hand), Number(last.dataset.seat),
                                                 JSON.parse(last.dataset.action),
                                                 document.querySelectorAll('#gf-table .seat .card').length]);
            }
            return out;""")
    finally:
        browser.set_network_conditions(offline=False, latency=0, download_throughput=-1,
                                       upload_throughput=-1)
    want, cards = [], 108
    for h in doc["hands"]:
        cards = 108
        for seat, action, _ in h["moves"]:
            if action[0] not in ("PASS", "tribute", "back"):
                cards -= len(action[2])
            want.append([h["hand"], seat, action, cards])
    assert shown == want
    text = browser.find_element(By.ID, "gf-exchange").text
    assert f"match over: team {doc['winner']} wins" in text
    # by trick: the step lands just before a lead (or at the hand's end)
    browser.find_element(By.ID, "gf-hand-prev").click()
    browser.find_element(By.ID, "gf-trick-next").click()
    step = int(browser.find_element(By.ID, "gf-last").get_attribute("data-step"))
    moves = doc["hands"][-1]["moves"]
    assert step == len(moves) or moves[step][2] is True
    # jump to a hand
    from selenium.webdriver.support.ui import Select
    Select(browser.find_element(By.ID, "gf-jump")).select_by_value("0")
    assert browser.find_element(By.ID, "gf-last").get_attribute("data-hand") == "0"


# -- playing ----------------------------------------------------------------------------------

def person_hand() -> list[list[str]]:
    spec = COMBO + " DA CA S2 S2 H2 C3 D3 S4 H4 C5 D5 S6 H6 C9 D9 ST HT CQ DQ SK HK CK"
    return make_hands({0: spec}, (1, 2, 3))


def card_text(code: str) -> str:
    """A card as the page writes it in words: suit symbol and rank, or the joker's name."""
    if code in ("SB", "HR"):
        return {"SB": "small joker", "HR": "big joker"}[code]
    return {"S": "\u2660", "H": "\u2665", "C": "\u2663", "D": "\u2666"}[code[0]] + (
        "10" if code[1] == "T" else code[1])


def page_state(browser) -> dict:
    return browser.execute_script("""
        const m = window.gfPage.model;
        return {act: m.act && {stage: m.act.stage, actions: m.act.actionList, greater: m.act.greaterPos},
                asks: m.asks,
                results: document.getElementById('gf-results').textContent,
                message: document.getElementById('gf-message').textContent,
                conn: document.getElementById('gf-conn').textContent,
                hand: [...document.querySelectorAll('#gf-seat-bottom button.card')].map(b => b.dataset.code)};""")


def select(browser, cards) -> None:
    """Click the hand's card buttons for ``cards`` (one button per copy; the page redraws
    the hand after each click)."""
    for c in cards:
        for b in browser.find_elements(By.CSS_SELECTOR, "#gf-seat-bottom button.card"):
            if b.get_attribute("data-code") == c and b.get_attribute("aria-pressed") == "false":
                click_card(browser, b)
                break
        else:
            raise AssertionError(f"no unselected button for {c}")


def wait_sent(browser, asks: int) -> None:
    """Until the page's answer to question number ``asks`` is sent (no question pending, or
    the next one already there)."""
    wait_for(lambda: (lambda s: s["act"] is None or s["asks"] > asks)(page_state(browser)),
             what="the answer to be sent")


def click_card(browser, button) -> None:
    """Click a card where it shows: its left edge (the cards of a hand overlap)."""
    from selenium.webdriver.common.action_chains import ActionChains
    ActionChains(browser).move_to_element_with_offset(
        button, -button.size["width"] // 2 + 5, 0).click().perform()


def readings(browser) -> dict:
    return {int(b.get_attribute("data-index")): b.text
            for b in browser.find_elements(By.CSS_SELECTOR, "#gf-readings button")}


def test_a_whole_hand_played_through_the_page(browser, tmp_path):
    """The person pays a tribute, leads the combination with two readings and picks one,
    passes once, and plays the hand out; the record holds exactly those moves."""
    rec = tmp_path / "play.jsonl"
    start = Game.setup(person_hand(), levels=(7, 7), declarer=1, previous_finish=[1, 2, 3, 0],
                       seed=3, rules=Rules.platform())
    cfg = play_config(seat=0, agents="greedy", rules=Rules.platform(), record=str(rec), resume=start)
    server = PlayServer(cfg)
    mine, passed, combo_played = [], False, False
    try:
        browser.get(server.url)
        while True:
            st = wait_for(lambda: (lambda s: s if s["act"] or "hand over" in s["results"] else None)(
                page_state(browser)), what="the person's turn")
            if "hand over" in st["results"]:
                break
            act = st["act"]
            actions = act["actions"]
            if act["stage"] == "tribute":
                assert {a[2][0] for a in actions} == {"DA", "CA"}
                select(browser, ["CA"])
                r = readings(browser)
                assert list(r.values()) == ["Pay \u2663A"]
                choice = next(iter(r))
            elif actions[0][0] == "PASS" and not passed:
                passed = True
                browser.find_element(By.ID, "gf-pass").click()
                mine.append(actions[0])
                wait_sent(browser, st["asks"])
                continue
            elif act["greater"] == -1 and not combo_played and all(c in st["hand"] for c in COMBO.split()):
                combo_played = True
                select(browser, COMBO.split())
                r = readings(browser)
                texts = sorted(t.split(":")[0] for t in r.values())
                assert texts == ["1. Play full house 8", "2. Play full house J"], texts
                choice = next(i for i, t in r.items() if "full house J" in t)
            else:
                # the first play that keeps the combination, else the first play, else PASS
                plays = [i for i, a in enumerate(actions) if a[0] != "PASS"]
                keep = [i for i in plays if not set(actions[i][2]) & set(COMBO.split())]
                if not plays:
                    browser.find_element(By.ID, "gf-pass").click()
                    mine.append(actions[0])
                    wait_sent(browser, st["asks"])
                    continue
                choice = (keep or plays)[0]
                # the rest of the hand in one round trip: the same clicks, dispatched by script
                r = browser.execute_script("""
                    for (const c of arguments[0]) {
                      const b = [...document.querySelectorAll('#gf-seat-bottom button.card')]
                        .find(b => b.dataset.code === c && b.getAttribute('aria-pressed') === 'false');
                      b.click();
                    }
                    return [...document.querySelectorAll('#gf-readings button')].map(b => Number(b.dataset.index));
                    """, actions[choice][2])
                assert choice in r, (choice, r)
            mine.append(actions[choice])
            browser.find_element(By.CSS_SELECTOR, f'#gf-readings button[data-index="{choice}"]').click()
            wait_sent(browser, st["asks"])
        assert combo_played and passed
        assert "hand over" in page_state(browser)["results"]
    finally:
        server.stop()
    lines = rec.read_text().splitlines()
    hand = json.loads(lines[1])
    assert [a for s, a in hand["moves"] if s == 0] == mine
    assert hand["finish_order"] is not None
    assert ["ThreeWithTwo", "J", sorted(COMBO.split())] in [[a[0], a[1], sorted(a[2])] for a in mine]
    assert hand["tribute"] == [[0, 1, "CA"]]


def test_return_reload_taken_seat_refusals_and_disconnection(browser):
    start = Game.setup(person_hand(), levels=(7, 7), declarer=0, previous_finish=[0, 1, 2, 3],
                       seed=4, rules=Rules.platform())
    cfg = play_config(seat=0, agents="greedy", rules=Rules.platform(), resume=start)
    server = PlayServer(cfg)
    try:
        browser.get(server.url)
        st = wait_for(lambda: (lambda s: s if s["act"] else None)(page_state(browser)), what="the return")
        assert st["act"]["stage"] == "back"
        card = st["act"]["actions"][0][2][0]
        # the prompt names to whom (seat 3 paid: on seat 0's left); the allowed cards outlined
        assert st["message"].startswith("return a card to left (greedy): "), st["message"]
        allowed = {a[2][0] for a in st["act"]["actions"]}
        outlined = browser.execute_script("""return [...document.querySelectorAll(
            '#gf-seat-bottom button.card.allowed')].map(b => b.dataset.code)""")
        assert set(outlined) == allowed and len(outlined) == sum(c in allowed for c in st["hand"])
        # a selection that is no legal action cannot be sent: the page says why
        select(browser, ["SK"])
        assert readings(browser) == {}
        assert "not a legal move" in page_state(browser)["message"]
        browser.find_element(By.ID, "gf-clear").click()
        select(browser, [card])
        assert list(readings(browser).values()) == [f"Return {card_text(card)}"]
        browser.find_element(By.CSS_SELECTOR, "#gf-readings button").click()
        st = wait_for(lambda: (lambda s: s if s["act"] and s["act"]["stage"] == "play" else None)(
            page_state(browser)), what="a play decision")
        before = Counter(st["hand"])
        assert card not in before or before[card] < Counter(person_hand()[0])[card]
        # a hint selects the cards of the hinted move
        browser.find_element(By.ID, "gf-hint").click()
        wait_for(lambda: f"hint ({STRONGEST})" in page_state(browser)["message"],
                 what="the hint of the strongest agent, the first offered")
        # a message that is no legal answer is refused, with the server's reason shown
        hinted = page_state(browser)
        browser.execute_script("window.gfPage.send('{\"actIndex\": 99999}')")
        wait_for(lambda: "out of range" in page_state(browser)["message"], what="the refusal")
        # ... and nothing changed: the same question is pending, the same hand shown
        after = page_state(browser)
        assert after["act"] == hinted["act"] and after["asks"] == hinted["asks"]
        assert after["hand"] == hinted["hand"]
        # a reload returns to the same game, same question
        browser.refresh()
        st = wait_for(lambda: (lambda s: s if s["act"] else None)(page_state(browser)), what="the rejoin")
        assert Counter(st["hand"]) == before
        # a second page for the taken seat is told so
        first = browser.current_window_handle
        browser.switch_to.new_window("tab")
        browser.get(server.url)
        wait_for(lambda: "taken" in page_state(browser)["message"], what="the seat-taken notice")
        browser.close()
        browser.switch_to.window(first)
        assert page_state(browser)["act"] is not None
    finally:
        server.stop()
    wait_for(lambda: "disconnected" in page_state(browser)["conn"], what="the disconnection")


def test_keyboard_alone_plays_a_move(browser):
    start = Game.setup(person_hand(), levels=(7, 7), declarer=1, previous_finish=None,
                       leader=0, seed=1, rules=Rules.platform())
    cfg = play_config(seat=0, agents="greedy", rules=Rules.platform(), resume=start)
    server = PlayServer(cfg)
    try:
        browser.get(server.url)
        st = wait_for(lambda: (lambda s: s if s["act"] else None)(page_state(browser)), what="the lead")
        # the cards are labelled for screen readers: names, toggle states, a group
        labels = browser.execute_script("""
            return [...document.querySelectorAll('#gf-seat-bottom button.card')]
              .map(b => [b.getAttribute('aria-label'), b.getAttribute('aria-pressed')]);""")
        assert len(labels) == 27 and all(p == "false" for _, p in labels)
        names = {lab for lab, _ in labels}
        assert {"2 of spades", "10 of hearts", "queen of clubs", "king of hearts"} <= names
        assert browser.find_element(By.ID, "gf-seat-bottom").get_attribute("aria-label") == "your hand"
        # from the top of the page, Tab alone reaches the hand
        body = browser.find_element(By.TAG_NAME, "body")
        body.click()
        for _ in range(10):
            ActionChains(browser).send_keys(Keys.TAB).perform()
            if browser.switch_to.active_element.get_attribute("data-code"):
                break
        first = browser.switch_to.active_element
        assert first.get_attribute("data-index") == "0"
        ActionChains(browser).send_keys(Keys.SPACE).perform()   # select the lowest card (the
        card = browser.switch_to.active_element    # hand is redrawn, the focus stays on the card)
        assert card.get_attribute("aria-pressed") == "true"
        assert card.get_attribute("aria-label") == "2 of spades"
        card.send_keys(Keys.ARROW_RIGHT)
        assert browser.switch_to.active_element.get_attribute("data-index") == "1"
        browser.switch_to.active_element.send_keys(Keys.ENTER)   # one reading: Enter plays it
        wait_sent(browser, st["asks"])
        wait_for(lambda: "you: single 2: \u26602" in browser.find_element(By.ID, "gf-log").text,
                 what="the move in the log")
        # the play in the middle is labelled too
        wait_for(lambda: browser.find_elements(
            By.CSS_SELECTOR, '#gf-center .trick-bottom [aria-label="single 2: 2 of spades"]'),
            what="the labelled trick")
        # P passes (when the turn comes back with a play to beat)
        st = wait_for(lambda: (lambda s: s if s["act"] and s["act"]["actions"][0][0] == "PASS"
                               else None)(page_state(browser)), timeout=20, what="a turn to follow")
        ActionChains(browser).send_keys("p").perform()
        wait_sent(browser, st["asks"])
        wait_for(lambda: "you: PASS" in browser.find_element(By.ID, "gf-log").text,
                 what="the pass in the log")
    finally:
        server.stop()


def test_server_gone_is_shown_and_the_page_rejoins_the_same_game_when_it_is_back(browser, tmp_path):
    """The play server stops (the record kept); the page says "disconnected" and keeps trying;
    `play --resume` of the record on the same port: the page reconnects by itself and shows
    the same match (the same hand of cards, hand number and levels) without a reload."""
    from guandan_fast.web.play import resume_game

    rec = tmp_path / "r.jsonl"
    cfg = play_config(seat=0, agents="greedy", rules=Rules.platform(), seed=21, record=str(rec))
    server = PlayServer(cfg)
    port = server.server.port
    try:
        browser.get(server.url)
        st = wait_for(lambda: (lambda s: s if s["act"] else None)(page_state(browser)),
                      what="the first question")
        before = sorted(st["hand"])
        levels = browser.find_element(By.ID, "gf-levels").text
    finally:
        server.stop()
    wait_for(lambda: "disconnected" in page_state(browser)["conn"], what="the disconnection")
    assert page_state(browser)["act"] is None          # nothing can be sent meanwhile
    assert browser.find_element(By.ID, "gf-pass").get_attribute("disabled")
    game, _ = resume_game(rec)
    again = play_config(seat=0, agents="greedy", rules=Rules.platform(), port=port,
                        record=str(rec), resume=game)
    server = PlayServer(again)
    try:
        st = wait_for(lambda: (lambda s: s if s["act"] and s["conn"].startswith("connected")
                               else None)(page_state(browser)), timeout=15,
                      what="the reconnection")
        assert sorted(st["hand"]) == before
        assert browser.find_element(By.ID, "gf-levels").text == levels
    finally:
        server.stop()


def serve_in_thread(cfg):
    """A `serve` GameServer (``cfg``: a ServerConfig) in a thread of its own; returns
    (server, loop, stop())."""
    import asyncio
    import threading

    from guandan_fast.net.server import GameServer

    loop = asyncio.new_event_loop()
    server = GameServer(cfg)
    started = threading.Event()

    def run():
        asyncio.set_event_loop(loop)
        loop.run_until_complete(server.start())
        started.set()
        loop.run_forever()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert started.wait(10)

    def stop():
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
    return server, loop, stop


def test_page_sits_at_a_serve_table_beside_platform_bots(browser, tmp_path):
    """The page opened from disk with ?server=ws://.../game/NAME sits at a table that
    `serve` hosts, with three platform clients (`connect`'s agent) in the other seats: the
    person plays moves through the page; the table's counts and plays come from the
    protocol's own messages, and the server's record holds the person's moves."""
    import asyncio

    from guandan_fast.net.client import play as platform_client
    from guandan_fast.net.server import ServerConfig
    from guandan_fast.web.pages import page

    rec = tmp_path / "serve.jsonl"
    cfg = ServerConfig(port=0, tables=1, games=1, seed=8, handshake_pause=0.01,
                       error_messages=False, record=str(rec))
    server, loop, stop = serve_in_thread(cfg)
    url = f"ws://127.0.0.1:{server.port}/game/"
    doc = tmp_path / "page.html"
    doc.write_text(page("play", {"seat": 0, "delay": 0, "name": "web"}), encoding="utf-8")
    try:
        browser.get(doc.as_uri() + "?server=" + url + "person")
        wait_for(lambda: "connected" in page_state(browser)["conn"], what="the connection")
        bots = [asyncio.run_coroutine_threadsafe(platform_client(url + f"bot{k}", "greedy", k),
                                                 loop) for k in range(3)]
        sent = []
        for _ in range(3):
            st = wait_for(lambda: (lambda s: s if s["act"] and s["act"]["stage"] == "play"
                                   else None)(page_state(browser)), timeout=30,
                          what="the person's turn")
            plays = [i for i, a in enumerate(st["act"]["actions"]) if a[0] != "PASS"]
            action = st["act"]["actions"][plays[0]]
            select(browser, action[2])
            r = readings(browser)
            assert plays[0] in r, r
            browser.find_element(By.CSS_SELECTOR,
                                 f'#gf-readings button[data-index="{plays[0]}"]').click()
            sent.append(action)
            wait_sent(browser, st["asks"])
        seat = st_seat(browser)
        # the other seats' counts come from publicInfo: 27 minus what each has played
        counts = browser.execute_script("return window.gfPage.model.counts")
        assert counts[seat] is not None and all(0 < c <= 27 for c in counts)
        assert "hint" not in browser.find_element(By.ID, "gf-message").text
        assert browser.find_element(By.ID, "gf-hint").get_attribute("disabled")
    finally:
        stop()
        for b in bots:
            b.cancel()
    # the server's record (written as the table was stopped) holds the person's moves
    moves = json.loads(rec.read_text().splitlines()[1])["moves"]
    mine = [a for s, a in moves if s == seat and a[0] not in ("PASS", "tribute", "back")]
    assert [[a[0], a[1], sorted(a[2])] for a in mine[:3]] == \
        [[a[0], a[1], sorted(a[2])] for a in sent]


def st_seat(browser) -> int:
    return browser.execute_script("return window.gfPage.model.me")


# -- phone width ------------------------------------------------------------------------------

PHONE = 375

CLIPPED = """
// Every card's label (rank or JOKER) inside its card and not covered by the next card of its
// row; every seat heading unclipped; no horizontal scroll.
const bad = [];
for (const c of document.querySelectorAll('.card')) {
  const label = c.querySelector('.rank, .joker');
  const lr = label.getBoundingClientRect(), cr = c.getBoundingClientRect();
  if (lr.left < cr.left - 0.5 || lr.right > cr.right + 0.5 || lr.right > innerWidth)
    bad.push(c.dataset.code + ' outside its card');
  const next = c.nextElementSibling;
  if (next && next.classList.contains('card')) {
    const nr = next.getBoundingClientRect();
    if (Math.abs(nr.top - cr.top) < 1 && nr.left < lr.right - 0.5)
      bad.push(c.dataset.code + ' label covered by ' + next.dataset.code +
               ' (' + (lr.right - nr.left).toFixed(1) + ' px)');
  }
}
for (const h of document.querySelectorAll('h1, h2, .status, button, select'))
  if (h.scrollWidth > h.clientWidth + 1) bad.push('clipped: ' + h.textContent.slice(0, 40));
const doc = document.documentElement;
if (doc.scrollWidth > doc.clientWidth) bad.push('horizontal scroll: ' + doc.scrollWidth + ' > ' + doc.clientWidth);
return {bad, width: doc.clientWidth, cards: document.querySelectorAll('.card').length};
"""


@pytest.fixture
def phone(browser):
    """The browser at a phone's width (375 CSS pixels)."""
    emulate_width(browser, PHONE, 812)
    yield browser
    emulate_width(browser, None)


def test_play_page_at_phone_width_clips_no_card(phone, tmp_path):
    start = Game.setup(person_hand(), levels=(7, 7), declarer=1, previous_finish=None,
                       leader=0, seed=1, rules=Rules.platform())
    server = PlayServer(play_config(seat=0, agents="greedy", rules=Rules.platform(),
                                    resume=start))
    try:
        phone.get(server.url)
        wait_for(lambda: page_state(phone)["act"], what="the lead")
        select(phone, ["ST", "HT"])                   # raised cards, two readings' worth
        seen = phone.execute_script(CLIPPED)
        assert seen["width"] == PHONE and seen["cards"] == 27
        assert seen["bad"] == []
        phone.find_element(By.CSS_SELECTOR, "#gf-readings button").click()
        wait_for(lambda: "you: pair 10" in phone.find_element(By.ID, "gf-log").text,
                 what="the pair in the log")
        wait_for(lambda: phone.find_elements(By.CSS_SELECTOR, "#gf-center .card"),
                 what="the trick")
        seen = phone.execute_script(CLIPPED)
        assert seen["bad"] == []
    finally:
        server.stop()


def test_viewer_at_phone_width_clips_no_card(phone, tmp_path):
    rec = tmp_path / "r.jsonl"
    simulate(matches=1, agents=("greedy", "random", "greedy", "random"), seed=2, record=str(rec))
    page = tmp_path / "m.html"
    page.write_text(viewer_html(match_document(rec, 0)), encoding="utf-8")
    phone.get(page.as_uri())
    seen = phone.execute_script(CLIPPED)
    assert seen["width"] == PHONE and seen["cards"] == 108 and seen["bad"] == []
    for _ in range(5):                                  # a few tricks in: cards in the middle
        phone.find_element(By.ID, "gf-trick-next").click()
    phone.find_element(By.ID, "gf-next").click()
    seen = phone.execute_script(CLIPPED)
    assert seen["bad"] == []

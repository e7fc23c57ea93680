// The play page: a client of the platform protocol (PROTOCOL.md) in the browser. It holds no
// rules: a selection of cards is matched against the server's actionList (same cards = same
// action; several matches are the selection's readings), and what the table shows comes from
// the server's messages (the `state` messages of `guandan-fast play` when present).
"use strict";
(() => {
  const {el, card, cardRow, sortCards, actionName, actionText, cardText, play, positions, PLACES} = GF;
  // ?server=ws://HOST:PORT/game/NAME: sit at another platform server as a plain client (no
  // state messages, no hints, no rejoin there). ?seat=S: a person's link to seat S of a
  // people's table; ?watch=1[&table=K]: a spectator (public messages only).
  const query = new URLSearchParams(location.search);
  const foreign = query.get("server");
  const cfg = Object.assign({}, GF.config, foreign ? {ws: foreign, stateMessages: false, agents: null} : {});
  const watching = !foreign && (query.get("watch") === "1" || !!cfg.watchOnly);   // serve --watch: spectators only
  const wanted = query.get("seat");
  const $ = id => document.getElementById(id);
  const model = {me: watching ? null : (wanted !== null && (cfg.seats || []).includes(Number(wanted)) ? Number(wanted) : (cfg.seat ?? 0)),
                 hand: [], counts: [null, null, null, null], area: [null, null, null, null],
                 levels: null, curRank: "2", handNumber: null, finish: [], current: null, act: null,
                 game: null, games: null, victory: null, over: false, asks: 0, next: null};
  const selected = new Set();   // indices into the sorted hand
  let sortedHand = [];
  let ws = null, queue = [], pumping = false, retry = 0, matchOver = false, refused = null;
  let delay = Number(cfg.delay ?? 800);

  function tabName() {
    let id = sessionStorage.getItem("gf-tab");
    if (!id) { id = Math.random().toString(36).slice(2, 10); sessionStorage.setItem("gf-tab", id); }
    return (cfg.name || "web") + "-" + id;
  }
  function wsUrl() {
    if (cfg.ws) return cfg.ws;
    const base = (location.protocol === "https:" ? "wss://" : "ws://") + location.host;
    if (watching) return base + "/watch/" + tabName() + (query.get("table") ? "?table=" + encodeURIComponent(query.get("table")) : "");
    return base + "/game/" + tabName() + (cfg.seats && model.me !== null ? "?seat=" + model.me : "");
  }
  function log(text) {
    const box = $("gf-log");
    box.prepend(el("p", {text}));
    while (box.childNodes.length > 200) box.lastChild.remove();
  }
  function message(text, kind) {
    const m = $("gf-message");
    m.textContent = text || "";
    m.className = "message" + (kind ? " " + kind : "");
  }
  // A seat as a person says it: where it sits from here (you, partner, left, right; the
  // next to play sits on the right) and who plays it (the agent, or a person).
  function place(s) {
    const me = model.me;
    if (me === null || me === undefined) return `seat ${s}`;
    return s === me ? "you" : ["you", "right", "partner", "left"][(s - me + 4) % 4];
  }
  function who(s) {
    if (!cfg.agents) return "";
    return cfg.agents[s] ? cfg.agents[s] : (s === model.me ? "" : "a person");
  }
  function seatName(s) { const w = who(s); return place(s) + (w ? ` (${w})` : ""); }
  function teamName(t) {
    if (model.me === null) return `team ${t} (seats ${t}, ${t + 2})`;
    return t === model.me % 2 ? "your team" : "the other team";
  }

  // -- the connection ----------------------------------------------------------------------
  function connect() {
    $("gf-conn").textContent = retry ? "disconnected — reconnecting…" : "connecting…";
    ws = new WebSocket(wsUrl());
    ws.onopen = () => { retry = 0; $("gf-conn").textContent = watching ? "watching" : `connected (seat ${model.me})`; };
    ws.onmessage = ev => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { log("unreadable message from the server"); return; }
      queue.push(msg); pump();
    };
    ws.onclose = ev => {
      if (ev.code === 4001 || ev.code === 4002 || ev.code === 1013) {   // refused: seat taken, taken over, server full
        refused = ev.reason || "the server refused this page";
        $("gf-conn").textContent = "not seated";
        message(refused, "error");
        model.act = null; render();
        return;
      }
      if (matchOver) { $("gf-conn").textContent = "the match is over (server closed)"; return; }
      retry++;
      $("gf-conn").textContent = "disconnected — reconnecting…";
      model.act = null; render();
      setTimeout(connect, Math.min(3000, 500 * retry));
    };
  }
  function send(obj) {
    if (!ws || ws.readyState !== WebSocket.OPEN) { message("not connected: wait for the reconnection", "warn"); return false; }
    ws.send(typeof obj === "string" ? obj : JSON.stringify(obj));
    return true;
  }

  // Messages are shown one at a time; a bot's play is followed by the chosen pause.
  async function pump() {
    if (pumping) return;
    pumping = true;
    while (queue.length) {
      const msg = queue.shift();
      const pause = handle(msg);
      render();
      if (pause === "hold") await holdSummary();
      else if (pause && delay > 0 && queue.length) await new Promise(r => setTimeout(r, delay));
    }
    pumping = false;
  }

  // The end of a hand: the summary stays (the next hand's messages wait in the queue) until
  // the person continues; a spectator's page goes on by itself after cfg.summaryDelay.
  let release = null;
  function holdSummary() {
    $("gf-summary").hidden = false;
    $("gf-continue").focus();
    return new Promise(resolve => {
      const timer = watching ? setTimeout(() => release && release(), Number(cfg.summaryDelay ?? 5000)) : null;
      release = () => { clearTimeout(timer); release = null; $("gf-summary").hidden = true; resolve(); };
    });
  }
  function showSummary(s) {
    const me = model.me;
    const lines = [];
    lines.push(el("p", {text: "finish: " + s.order.map((q, i) => `${PLACES[i]} ${seatName(q)}`).join(", ")}));
    const trick = s.lastTrick.map((a, q) => a ? [q, a] : null).filter(x => x);
    if (trick.length) {
      const box = el("div", {class: "last-trick"}, el("p", {text: "last trick:"}));
      for (const [q, a] of trick) box.append(el("div", {class: "who"}, el("span", {text: seatName(q) + ": "}), play(a, s.curRank)));
      lines.push(box);
    }
    for (const t of [0, 1]) {
      const b = s.levelsBefore[t], a = s.levelsAfter[t];
      lines.push(el("p", {text: `${teamName(t)}: level ${b}` + (a !== b ? ` → ${a}` : " (unchanged)")}));
    }
    if (s.restCards.length) lines.push(el("p", {text: "cards left: " + s.restCards.map(([q, c]) => `${seatName(q)} ${c.map(cardText).join(" ")}`).join("; ")}));
    if (s.matchOver) {
      lines.push(el("p", {class: "big", text: `match over: ${teamName(s.winner)} wins`}));
    } else if (s.next) {
      let ex = "no tribute";
      if (s.next.antiTribute.length) ex = `no tribute: ${s.next.antiTribute.map(seatName).join(" and ")} hold${s.next.antiTribute.length > 1 ? "" : "s"} the big jokers (anti-tribute)`;
      else if (s.next.tribute.length) ex = "tribute: " + s.next.tribute.map(([p, r]) => `${seatName(p)} ${p === me ? "pay" : "pays"} ${p === me ? "a tribute to " + seatName(r) : seatName(r)}`).join("; ");
      lines.push(el("p", {text: `next: hand ${s.next.hand} at level ${s.next.level}; ${ex}`}));
    }
    if (s.deal) {   // spectators: every hand, now that it is over
      const hands = el("div", {class: "deal"});
      s.deal.forEach((c, q) => hands.append(el("div", {}, el("p", {text: `${seatName(q)}, dealt:`}), cardRow(sortCards(c, s.curRank), s.curRank, true))));
      lines.push(hands);
    }
    $("gf-summary-title").textContent = `hand ${s.hand} over` + ` — ${teamName(s.order[0] % 2)} wins it`;
    $("gf-summary-body").replaceChildren(...lines);
    model.next = s.next;
    model.area = s.lastTrick;
  }

  function handle(msg) {
    const t = msg.type, stage = msg.stage;
    if (t === "state") { applyState(msg); return false; }
    if (t === "handOver") { showSummary(msg); return "hold"; }
    if (t === "error") { message("refused by the server: " + msg.message, "error"); return false; }
    if (t === "hint") { showHint(msg); return false; }
    if (t === "act") {
      model.act = msg;
      model.asks++;
      model.hand = msg.handCards;
      model.curRank = msg.curRank;
      if (!cfg.stateMessages) {
        model.counts = msg.publicInfo.map(p => p.rest);
        model.area = msg.publicInfo.map(p => p.playArea);
      }
      const team = model.me % 2;
      model.levels = team === 0 ? [msg.selfRank, msg.oppoRank] : [msg.oppoRank, msg.selfRank];
      selected.clear();
      message(stage === "play" ? (msg.greaterPos === -1 ? "your lead" : "your turn: beat it or pass")
              : exchangePrompt(msg), "");
      return false;
    }
    if (t !== "notify") return false;
    if (stage === "beginning") {
      model.me = msg.myPos; model.hand = msg.handCards; model.area = [null, null, null, null];
      model.finish = []; model.act = null;
      log(`new hand: you are seat ${msg.myPos}`);
    } else if (stage === "play") {
      const [seat, a] = [msg.curPos, msg.curAction];
      if (!cfg.stateMessages) {
        model.area[seat] = a;
        if (a[0] !== "PASS" && model.counts[seat] !== null) model.counts[seat] -= a[2].length;
      }
      if (seat === model.me && a[0] !== "PASS") {
        const left = model.hand.slice();
        for (const c of a[2]) left.splice(left.indexOf(c), 1);
        model.hand = left;
      }
      if (seat === model.me) model.act = null;
      log(`${seatName(seat)}: ${actionText(a)}`);
      return seat !== model.me;
    } else if (stage === "tribute" || stage === "back") {
      for (const [a, b, c] of msg.result) log(`${stage === "tribute" ? "tribute" : "return"}: ${seatName(a)} gives ${cardText(c)} to ${seatName(b)}`);
      model.act = null;
      return true;
    } else if (stage === "anti-tribute") {
      log(`anti-tribute: ${msg.antiPos.map(seatName).join(" and ")} hold the big jokers; no tribute`);
    } else if (stage === "episodeOver") {
      const order = msg.order.map((s, i) => `${PLACES[i]} ${seatName(s)}`).join(", ");
      $("gf-results").textContent = `hand over (level ${msg.curRank}): ${order} — ` +
        (model.me === null ? `team ${msg.order[0] % 2} wins the hand` : `your team ${msg.order[0] % 2 === model.me % 2 ? "wins" : "loses"} the hand`);
      log(`hand over: ${order}`);
      model.act = null;
      return true;
    } else if (stage === "gameOver") {
      log(`match ${msg.curTimes} of ${msg.settingTimes} over`);
    } else if (stage === "gameResult") {
      matchOver = true;
      const me = model.me === null ? 0 : model.me;
      const mine = msg.victoryNum[me], theirs = msg.victoryNum[(me + 1) % 4];
      $("gf-results").textContent = `result: ${teamName(me % 2)} won ${mine}, ${teamName(1 - me % 2)} ${theirs}` +
        (msg.draws[0] ? `, ${msg.draws[0]} drawn` : "") + " — start guandan-fast play again for a new match";
    }
    return false;
  }

  // The next hand's state arrives after the `handOver` summary, which holds the queue: the
  // last trick and the finishing order stay in view until the person continues.
  function applyState(s) {
    model.me = s.myPos < 0 ? null : s.myPos; model.game = s.game; model.games = s.games; model.victory = s.victoryNum;
    if (s.handNumber === undefined) return;
    model.handNumber = s.handNumber; model.hand = s.handCards; model.counts = s.counts;
    model.levels = s.levels; model.curRank = s.curRank; model.finish = s.finishOrder;
    model.area = s.playArea; model.current = s.currentPlayer; model.over = s.over;
    model.exchange = {tribute: s.tribute, back: s.back, anti: s.antiTribute};
    if (s.tributePairs && s.tributePairs.length) model.next = Object.assign({}, model.next, {tribute: s.tributePairs});
  }

  // -- choosing a move ------------------------------------------------------------------------
  // What an exchange act asks, in words: the cards the rules allow and to whom (the receiver
  // from the last hand's summary, when the page saw it).
  function exchangePrompt(act) {
    const cards = [...new Set(act.actionList.map(a => a[2][0]))].map(cardText);
    const listed = cards.length <= 6 ? cards.join(" or ") : `one of the ${cards.length} outlined cards`;
    if (act.stage === "tribute") {
      const row = model.next && model.next.tribute.find(([p]) => p === model.me);
      return `pay a tribute${row ? " to " + seatName(row[1]) : ""}: ${listed} (your highest card, not a wild heart) — select it and confirm`;
    }
    const paid = model.exchange && (model.exchange.tribute || []).find(r => r[1] === model.me);
    return `return a card to ${paid ? seatName(paid[0]) : "the seat that paid you"}: ${listed} — select it and confirm`;
  }
  function key(cards) { return cards.slice().sort().join(" "); }
  function readings() {
    if (!model.act || selected.size === 0) return [];
    const k = key([...selected].map(i => sortedHand[i]));
    const out = [];
    model.act.actionList.forEach((a, i) => { if (a[0] !== "PASS" && key(a[2]) === k) out.push(i); });
    return out;
  }
  function choose(i) {
    if (!model.act) return;
    if (send({actIndex: i})) {
      const a = model.act.actionList[i];
      message(`sent: ${actionText(a)}`, "");
      model.act = null; selected.clear(); render();
    }
  }
  function showHint(msg) {
    if (!model.act) return;
    const a = model.act.actionList[msg.actIndex];
    selected.clear();
    if (a[0] !== "PASS") {
      const used = [];
      for (const c of a[2]) {
        const i = sortedHand.findIndex((x, j) => x === c && !used.includes(j));
        if (i >= 0) { used.push(i); selected.add(i); }
      }
    }
    message(`hint (${msg.agent}): ${actionText(a)}`, "");
    render();
  }

  // -- drawing ---------------------------------------------------------------------------------
  function render() {
    const me = model.me, lc = model.curRank || "2";
    const pos = positions(me === null ? 0 : me);
    const act = model.act;
    for (let s = 0; s < 4; s++) {
      const where = pos[s];
      const box = $("gf-seat-" + where);
      const place = model.finish.indexOf(s);
      const count = s === me ? model.hand.length : model.counts[s];
      const head = el("h2", {}, (s === me ? "You" : seatName(s)) + ` · seat ${s}` +
                     (place >= 0 ? ` · ${PLACES[place]}` : ""),
                     el("span", {class: "count", text: ` · ${count === null || count === undefined ? "? (hidden)" : count} cards`}));
      const turn = act ? s === me : model.current === s;
      box.classList.toggle("turn", !!turn);
      if (s === me) {
        sortedHand = sortCards(model.hand, lc);
        const row = el("div", {class: "cards", role: "group", "aria-label": "your cards"});
        sortedHand.forEach((c, i) => {
          const b = card(c, lc, true);
          b.dataset.index = i;
          b.setAttribute("aria-pressed", selected.has(i) ? "true" : "false");
          b.disabled = !act;
          // in the exchange the cards the rules allow are outlined (the list comes from the server)
          if (act && act.stage !== "play" && act.actionList.some(a => a[2][0] === c)) b.classList.add("allowed");
          b.addEventListener("click", () => { if (selected.has(i)) selected.delete(i); else selected.add(i); render(); focusCard(i); });
          b.addEventListener("keydown", e => {
            if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
              e.preventDefault(); focusCard(Math.max(0, Math.min(sortedHand.length - 1, i + (e.key === "ArrowRight" ? 1 : -1))));
            }
          });
          row.append(b);
        });
        box.replaceChildren(head, row);
      } else {
        box.replaceChildren(head, el("div", {class: "back", "aria-hidden": "true",
          text: count === null || count === undefined ? "?" : String(count)}));
      }
      document.querySelector("#gf-center .trick-" + where).replaceChildren(play(model.area[s], lc));
    }
    const lv = model.levels;
    const mine = me === null ? 0 : me % 2;
    $("gf-levels").textContent = (model.handNumber !== null ? `hand ${model.handNumber + 1} · ` : "") + `level ${lc}` +
      (lv ? (me === null ? ` · levels: team 0 ${lv[0]}, team 1 ${lv[1]}` : ` · levels: your team ${lv[mine]}, other team ${lv[1 - mine]}`) : "");
    $("gf-score").textContent = model.game ? `match ${model.game} of ${model.games}` : "";
    $("gf-note").textContent = act ? "your turn" : (model.current !== null && model.current !== undefined ? `${seatName(model.current)} to act` : "");
    // the selection's readings
    const box = $("gf-readings");
    box.replaceChildren();
    const rs = readings();
    if (act && selected.size) {
      if (rs.length === 0) {
        const n = selected.size;
        if (act.stage !== "play") message("not a legal move: " + exchangePrompt(act).replace(" — select it and confirm", ""), "warn");
        else message(`not a legal move: none of your ${act.actionList.length} legal actions is made of exactly these ${n} card${n > 1 ? "s" : ""}` +
                (act.greaterAction ? ` (a play must beat ${actionText(act.greaterAction)}, or pass)` : ""), "warn");
      } else {
        if ($("gf-message").classList.contains("warn")) message(rs.length > 1 ? "these cards can be played several ways: pick one" : "", "");
        rs.forEach((i, n) => {
          const a = act.actionList[i];
          const label = act.stage === "play" ? `Play ${actionName(a)}` : `${act.stage === "tribute" ? "Pay" : "Return"} ${cardText(a[2][0])}`;
          const b = el("button", {type: "button", class: "reading", title: rs.length > 1 ? `reading ${n + 1} (key ${n + 1})` : "Enter",
                                 text: (rs.length > 1 ? `${n + 1}. ` : "") + label + (act.stage === "play" ? ": " + a[2].map(cardText).join(" ") : "")});
          b.dataset.index = i;
          b.addEventListener("click", () => choose(i));
          box.append(b);
        });
      }
    } else if ($("gf-message").classList.contains("warn")) message("", "");
    const canPass = !!(act && act.stage === "play" && act.actionList[0][0] === "PASS");
    $("gf-pass").disabled = !canPass;
    $("gf-hint").disabled = !act || !cfg.stateMessages;
    $("gf-dock").hidden = watching;
    $("gf-clear").disabled = selected.size === 0;
  }
  function focusCard(i) {
    const b = document.querySelector(`#gf-seat-bottom button.card[data-index="${i}"]`);
    if (b) b.focus();
  }

  // -- controls ---------------------------------------------------------------------------------
  $("gf-pass").addEventListener("click", () => { if (model.act && model.act.actionList[0][0] === "PASS") choose(0); });
  $("gf-clear").addEventListener("click", () => { selected.clear(); render(); });
  $("gf-continue").addEventListener("click", () => { if (release) release(); });
  const agentSel = $("gf-hint-agent");
  for (const a of cfg.hintAgents || ["greedy"]) agentSel.append(el("option", {value: a, text: a}));   // the strongest first
  $("gf-hint").addEventListener("click", () => send({hint: agentSel.value}));
  const delaySel = $("gf-delay");
  if (![...delaySel.options].some(o => Number(o.value) === delay)) delaySel.append(el("option", {value: String(delay), text: `${delay / 1000} s`}));
  delaySel.value = String(delay);
  delaySel.addEventListener("change", () => { delay = Number(delaySel.value); });
  document.addEventListener("keydown", e => {
    if (e.target.tagName === "SELECT" || e.ctrlKey || e.metaKey || e.altKey) return;
    if (release) { if (e.key === "Enter" && e.target.id !== "gf-continue") { release(); e.preventDefault(); } return; }
    const rs = readings();
    if (e.key === "p" || e.key === "P") { $("gf-pass").click(); e.preventDefault(); }
    else if (e.key === "h" || e.key === "H") { if (!$("gf-hint").disabled) $("gf-hint").click(); e.preventDefault(); }
    else if (e.key === "Escape") { selected.clear(); render(); }
    else if (e.key === "Enter" && rs.length === 1 && !(e.target.classList && e.target.classList.contains("reading"))) { choose(rs[0]); e.preventDefault(); }
    else if (/^[1-9]$/.test(e.key) && rs.length > 1 && Number(e.key) <= rs.length) { choose(rs[Number(e.key) - 1]); e.preventDefault(); }
  });
  $("gf-seat-bottom").setAttribute("aria-label", "your hand");
  window.gfPage = {send, model};   // for the tests and the curious: the raw connection
  render();
  connect();
})();

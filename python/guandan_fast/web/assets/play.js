// The play page: a client of the platform protocol (PROTOCOL.md) in the browser. It holds no
// rules: a selection of cards is matched against the server's actionList (same cards = same
// action; several matches are the selection's readings), and what the table shows comes from
// the server's messages (the `state` messages of `guandan-fast play` when present).
"use strict";
(() => {
  const {el, card, cardRow, sortCards, actionName, actionText, cardText, play, positions, PLACES} = GF;
  // ?server=ws://HOST:PORT/game/NAME: sit at another platform server as a plain client (no
  // state messages, no hints, no rejoin there)
  const foreign = new URLSearchParams(location.search).get("server");
  const cfg = Object.assign({}, GF.config, foreign ? {ws: foreign, stateMessages: false} : {});
  const $ = id => document.getElementById(id);
  const model = {me: cfg.seat ?? 0, hand: [], counts: [null, null, null, null], area: [null, null, null, null],
                 levels: null, curRank: "2", handNumber: null, finish: [], current: null, act: null,
                 game: null, games: null, victory: null, over: false, asks: 0};
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
    return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/game/" + tabName();
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
  function seatName(s) { return (cfg.players && cfg.players[s]) || `seat ${s}`; }

  // -- the connection ----------------------------------------------------------------------
  function connect() {
    $("gf-conn").textContent = retry ? "disconnected — reconnecting…" : "connecting…";
    ws = new WebSocket(wsUrl());
    ws.onopen = () => { retry = 0; $("gf-conn").textContent = `connected (seat ${model.me})`; };
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
      if (pause && delay > 0 && queue.length) await new Promise(r => setTimeout(r, delay));
    }
    pumping = false;
  }

  function handle(msg) {
    const t = msg.type, stage = msg.stage;
    if (t === "state") { applyState(msg); return false; }
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
              : stage === "tribute" ? "pay a tribute: select the card and confirm"
              : "return a card: select it and confirm", "");
      return false;
    }
    if (t !== "notify") return false;
    if (stage === "beginning") {
      model.me = msg.myPos; model.hand = msg.handCards; model.area = [null, null, null, null];
      model.finish = []; model.act = null;
      log(`new hand: you are seat ${msg.myPos}`);
      newHand = true;
      if (deferred) applyState(deferred);
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
      for (const [a, b, c] of msg.result) log(`${stage === "tribute" ? "tribute" : "return"}: seat ${a} gives ${c} to seat ${b}`);
      model.act = null;
      return true;
    } else if (stage === "anti-tribute") {
      log(`anti-tribute: seat(s) ${msg.antiPos.join(", ")} hold the big jokers; no tribute`);
    } else if (stage === "episodeOver") {
      const order = msg.order.map((s, i) => `${PLACES[i]} ${seatName(s)}`).join(", ");
      const won = msg.order[0] % 2 === model.me % 2;
      $("gf-results").textContent = `hand over (level ${msg.curRank}): ${order} — your team ${won ? "wins" : "loses"} the hand`;
      log(`hand over: ${order}`);
      model.act = null;
      return true;
    } else if (stage === "gameOver") {
      log(`match ${msg.curTimes} of ${msg.settingTimes} over`);
    } else if (stage === "gameResult") {
      matchOver = true;
      const mine = msg.victoryNum[model.me], theirs = msg.victoryNum[(model.me + 1) % 4];
      $("gf-results").textContent = `result: your team won ${mine}, the other team ${theirs}` +
        (msg.draws[0] ? `, ${msg.draws[0]} drawn` : "") + " — start guandan-fast play again for a new match";
    }
    return false;
  }

  // A state of the next hand arrives right after the last play of a hand: it is kept until
  // the next `beginning`, so that the last trick and the finishing order stay in view.
  let newHand = false, deferred = null;
  function applyState(s) {
    model.me = s.myPos; model.game = s.game; model.games = s.games; model.victory = s.victoryNum;
    if (s.handNumber === undefined) return;
    if (model.handNumber !== null && s.handNumber !== model.handNumber && !newHand) { deferred = s; return; }
    newHand = false; deferred = null;
    model.handNumber = s.handNumber; model.hand = s.handCards; model.counts = s.counts;
    model.levels = s.levels; model.curRank = s.curRank; model.finish = s.finishOrder;
    model.area = s.playArea; model.current = s.currentPlayer; model.over = s.over;
    model.exchange = {tribute: s.tribute, back: s.back, anti: s.antiTribute};
  }

  // -- choosing a move ------------------------------------------------------------------------
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
    const pos = positions(me);
    const act = model.act;
    for (let s = 0; s < 4; s++) {
      const where = pos[s];
      const box = $("gf-seat-" + where);
      const place = model.finish.indexOf(s);
      const count = s === me ? model.hand.length : model.counts[s];
      const head = el("h2", {}, (s === me ? "You" : seatName(s)) + ` · seat ${s} (team ${s % 2})` +
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
    $("gf-levels").textContent = (model.handNumber !== null ? `hand ${model.handNumber} · ` : "") + `level ${lc}` +
      (lv ? ` · levels: your team ${lv[me % 2]}, other team ${lv[1 - me % 2]}` : "");
    $("gf-score").textContent = model.game ? `match ${model.game} of ${model.games}` : "";
    $("gf-note").textContent = act ? "your turn" : (model.current !== null && model.current !== undefined ? `${seatName(model.current)} to act` : "");
    // the selection's readings
    const box = $("gf-readings");
    box.replaceChildren();
    const rs = readings();
    if (act && selected.size) {
      if (rs.length === 0) {
        const n = selected.size;
        message(`not a legal move: none of your ${act.actionList.length} legal actions is made of exactly these ${n} card${n > 1 ? "s" : ""}` +
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
    $("gf-clear").disabled = selected.size === 0;
  }
  function focusCard(i) {
    const b = document.querySelector(`#gf-seat-bottom button.card[data-index="${i}"]`);
    if (b) b.focus();
  }

  // -- controls ---------------------------------------------------------------------------------
  $("gf-pass").addEventListener("click", () => { if (model.act && model.act.actionList[0][0] === "PASS") choose(0); });
  $("gf-clear").addEventListener("click", () => { selected.clear(); render(); });
  const agentSel = $("gf-hint-agent");
  for (const a of cfg.hintAgents || ["greedy"]) agentSel.append(el("option", {value: a, text: a}));
  $("gf-hint").addEventListener("click", () => send({hint: agentSel.value}));
  const delaySel = $("gf-delay");
  if (![...delaySel.options].some(o => Number(o.value) === delay)) delaySel.append(el("option", {value: String(delay), text: `${delay / 1000} s`}));
  delaySel.value = String(delay);
  delaySel.addEventListener("change", () => { delay = Number(delaySel.value); });
  document.addEventListener("keydown", e => {
    if (e.target.tagName === "SELECT" || e.ctrlKey || e.metaKey || e.altKey) return;
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

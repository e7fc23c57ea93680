// The replay viewer: steps through config.match (python/guandan_fast/web/viewer.py) by move,
// trick and hand. The state shown after k moves of a hand is rebuilt from the hand's deal: the
// cards of each play leave the player's hand, a tribute or a return moves one card between
// the two seats of its recorded row.
"use strict";
(() => {
  const {el, cardRow, sortCards, actionText, cardText, play, positions, PLACES} = GF;
  const doc = GF.config.match;
  const $ = id => document.getElementById(id);
  let h = 0, k = 0;

  function stateAt(hi, steps) {
    const hand = doc.hands[hi];
    const hands = hand.deal.map(c => c.slice());
    const trick = [null, null, null, null];
    const finished = [];
    let last = null;
    const take = (seat, c) => { const i = hands[seat].indexOf(c); if (i >= 0) hands[seat].splice(i, 1); };
    for (let i = 0; i < steps; i++) {
      const [seat, a, lead] = hand.moves[i];
      last = [seat, a];
      if (a[0] === "tribute") {
        const row = hand.tribute.find(r => r[0] === seat);
        take(seat, a[2][0]); hands[row[1]].push(a[2][0]);
      } else if (a[0] === "back") {
        const row = hand.back.find(r => r[0] === seat);
        take(seat, a[2][0]); hands[row[1]].push(a[2][0]);
      } else {
        if (lead) trick.fill(null);
        trick[seat] = a;
        if (a[0] !== "PASS") for (const c of a[2]) take(seat, c);
        if (hands[seat].length === 0 && !finished.includes(seat)) finished.push(seat);
      }
    }
    return {hands, trick, finished, last};
  }

  function moveNumber(hi, steps) {   // plays and passes only, 1-based, for the status line
    let n = 0;
    for (let i = 0; i < steps; i++) if (!["tribute", "back"].includes(doc.hands[hi].moves[i][1][0])) n++;
    return n;
  }

  function render() {
    const hand = doc.hands[h];
    const lc = hand.levelChar;
    const st = stateAt(h, k);
    const pos = positions(0);
    const done = k === hand.moves.length && hand.finish_order !== null;
    const nextSeat = k < hand.moves.length ? hand.moves[k][0] : null;
    for (let s = 0; s < 4; s++) {
      const where = pos[s];
      const box = $("gf-seat-" + where);
      const place = st.finished.indexOf(s);
      box.replaceChildren(el("h2", {},
        (doc.players[s] ? `${doc.players[s]} · ` : "") + `seat ${s} (team ${s % 2})` + (place >= 0 ? ` · ${PLACES[place]}` : ""),
        el("span", {class: "count", text: ` · ${st.hands[s].length} cards`})),
        cardRow(sortCards(st.hands[s], lc), lc, where === "left" || where === "right"));
      box.classList.toggle("turn", s === nextSeat);
      box.setAttribute("aria-label", `seat ${s}`);
      const t = document.querySelector("#gf-center .trick-" + where);
      t.replaceChildren(play(st.trick[s], lc));
    }
    const lb = hand.levelsBeforeChars;
    // people count from 1 (the record and the Python API from 0); the seed is text (64 bits)
    $("gf-title").textContent = `match ${doc.match + 1}` + (doc.matches ? ` of ${doc.matches}` : "") + ` · seed ${doc.seed}`;
    $("gf-title").dataset.seed = doc.seed;
    let levels = `hand ${hand.hand + 1} · level ${lc}` + (hand.declarer === null ? "" : ` (team ${hand.declarer})`) +
                 ` · levels: team 0 ${lb[0]}, team 1 ${lb[1]}`;
    if (done) levels += ` → team 0 ${hand.levelsAfterChars[0]}, team 1 ${hand.levelsAfterChars[1]}`;
    $("gf-levels").textContent = levels;
    $("gf-step").textContent = `move ${moveNumber(h, k)} of ${moveNumber(h, hand.moves.length)} (step ${k}/${hand.moves.length})`;
    const last = $("gf-last");
    if (st.last) {
      last.textContent = `seat ${st.last[0]}` + (doc.players[st.last[0]] ? ` (${doc.players[st.last[0]]})` : "") +
                         `: ${actionText(st.last[1])}`;
      last.dataset.seat = st.last[0];
      last.dataset.action = JSON.stringify(st.last[1]);
    } else {
      last.textContent = "start of the hand: nothing played yet";
      delete last.dataset.seat; delete last.dataset.action;
    }
    last.dataset.hand = h; last.dataset.step = k;
    const notes = [];
    if (hand.anti_tribute) notes.push("anti-tribute: the payers hold both big jokers");
    for (const [p, r, c] of hand.tribute) notes.push(`tribute: seat ${p} pays ${cardText(c)} to seat ${r}`);
    for (const [r, p, c] of hand.back) notes.push(`return: seat ${r} gives ${cardText(c)} back to seat ${p}`);
    if (done) {
      notes.push("finish: " + hand.finish_order.map((s, i) => `${PLACES[i]} seat ${s}`).join(", "));
      if (h === doc.hands.length - 1) {
        notes.push(doc.over ? `match over: team ${doc.winner} wins` : `match ends here (${doc.end || "unfinished"})`);
      }
    }
    $("gf-exchange").replaceChildren(...notes.map(n => el("p", {text: n})));
    $("gf-note").textContent = done ? "hand over" : (nextSeat === null ? "" : `seat ${nextSeat} to act`);
    $("gf-jump").value = String(h);
    $("gf-prev").disabled = h === 0 && k === 0;
    $("gf-next").disabled = h === doc.hands.length - 1 && k === hand.moves.length;
    $("gf-hand-prev").disabled = h === 0 && k === 0;
    $("gf-hand-next").disabled = h === doc.hands.length - 1;
  }

  function next() {
    if (k < doc.hands[h].moves.length) k++;
    else if (h < doc.hands.length - 1) { h++; k = 0; }
    render();
  }
  function prev() {
    if (k > 0) k--;
    else if (h > 0) { h--; k = doc.hands[h].moves.length; }
    render();
  }
  function isLead(i) { const m = doc.hands[h].moves[i]; return m && m[2]; }
  function trickNext() {   // to the end of the current trick (just before the next lead)
    const n = doc.hands[h].moves.length;
    if (k >= n) return next();
    let i = k + 1;
    while (i < n && !isLead(i)) i++;
    k = i; render();
  }
  function trickPrev() {   // to the end of the previous trick
    if (k === 0) return prev();
    let i = k - 1;
    while (i > 0 && !isLead(i)) i--;
    k = i; render();
  }
  function handNext() { if (h < doc.hands.length - 1) { h++; k = 0; } render(); }
  function handPrev() { if (k > 0) k = 0; else if (h > 0) { h--; k = 0; } render(); }

  const jump = $("gf-jump");
  doc.hands.forEach((hd, i) => jump.append(el("option", {value: String(i), text: `${i + 1} (level ${hd.levelChar})`})));
  jump.addEventListener("change", () => { h = Number(jump.value); k = 0; render(); });
  $("gf-next").addEventListener("click", next);
  $("gf-prev").addEventListener("click", prev);
  $("gf-trick-next").addEventListener("click", trickNext);
  $("gf-trick-prev").addEventListener("click", trickPrev);
  $("gf-hand-next").addEventListener("click", handNext);
  $("gf-hand-prev").addEventListener("click", handPrev);
  document.addEventListener("keydown", e => {
    if (e.target.tagName === "SELECT") return;
    const act = {ArrowRight: next, ArrowLeft: prev, ArrowDown: trickNext, ArrowUp: trickPrev,
                 PageDown: handNext, PageUp: handPrev,
                 Home: () => { k = 0; render(); }, End: () => { k = doc.hands[h].moves.length; render(); }}[e.key];
    if (act) { e.preventDefault(); act(); }
  });
  render();
})();

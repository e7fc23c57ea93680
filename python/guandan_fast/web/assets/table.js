// Shared by the viewer and the play page: cards and seats drawn from data. No rules here: the
// order of the cards, the level cards, the wild cards and the cards' names come from Python
// (config.deck, per level character).
"use strict";
const GF = (() => {
  const config = JSON.parse(document.getElementById("gf-config").textContent);
  const SVGNS = "http://www.w3.org/2000/svg";
  const PLACES = ["1st", "2nd", "3rd", "4th"];
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else if (k === "text") e.textContent = v;
      else if (v !== null && v !== undefined) e.setAttribute(k, v);
    }
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }
  function suit(s, cls) {
    const svg = document.createElementNS(SVGNS, "svg");
    svg.setAttribute("class", cls); svg.setAttribute("viewBox", "0 0 20 20");
    svg.setAttribute("aria-hidden", "true");
    const use = document.createElementNS(SVGNS, "use");
    use.setAttribute("href", "#gf-" + s);
    svg.append(use);
    return svg;
  }
  function deck(levelChar) { return config.deck[levelChar]; }
  function sortCards(cards, levelChar) {
    const order = deck(levelChar).order;
    return cards.slice().sort((a, b) => order.indexOf(a) - order.indexOf(b));
  }
  // One card: a <div role="img"> or, when `button` is true, a toggle <button>.
  function card(code, levelChar, button) {
    const d = deck(levelChar);
    const label = d.labels[code];
    const red = code === "HR" || code[0] === "H" || code[0] === "D";
    const cls = "card" + (red ? " red" : "") + (d.levelCards.includes(code) ? " level" : "") +
                (d.wild.includes(code) ? " wild" : "");
    const e = button ? el("button", {class: cls, type: "button", "aria-pressed": "false", "aria-label": label, title: label})
                     : el("div", {class: cls, role: "img", "aria-label": label, title: label});
    e.dataset.code = code;
    if (code === "SB" || code === "HR") {
      e.append(el("span", {class: "joker", "aria-hidden": "true", text: "JOKER"}), el("span", {class: "blob"}));
    } else {
      e.append(el("span", {class: code[1] === "T" ? "rank ten" : "rank", "aria-hidden": "true", text: code[1] === "T" ? "10" : code[1]}),
               suit(code[0], "pip"), suit(code[0], "big"));
      if (d.wild.includes(code)) e.append(el("span", {class: "star", "aria-hidden": "true", text: "\u2605"}));
    }
    return e;
  }
  function cardRow(cards, levelChar, small) {
    const row = el("div", {class: "cards" + (small ? " small" : "")});
    for (const c of cards) row.append(card(c, levelChar, false));
    return row;
  }
  // Actions in words: the protocol's type and rank codes (PROTOCOL.md) as a player says them,
  // the cards as suit symbols and ranks ("T" is 10; "SB" and "HR" the small and big joker).
  const TYPE_WORDS = {Single: "single", Pair: "pair", Trips: "triple", ThreeWithTwo: "full house",
                      Straight: "straight", ThreePair: "three pairs", TwoTrips: "two triples",
                      Bomb: "bomb", StraightFlush: "straight flush", tribute: "tribute", back: "return"};
  const RANK_WORDS = {T: "10", B: "small joker", R: "big joker", JOKER: "of 4 jokers"};
  const SUIT_SYMBOLS = {S: "\u2660", H: "\u2665", C: "\u2663", D: "\u2666"};
  function cardText(code) {
    if (code === "SB") return "small joker";
    if (code === "HR") return "big joker";
    return SUIT_SYMBOLS[code[0]] + (code[1] === "T" ? "10" : code[1]);
  }
  function actionName(a) {
    if (a[0] === "PASS") return "PASS";
    if (a[0] === "tribute" || a[0] === "back") return TYPE_WORDS[a[0]];
    return (TYPE_WORDS[a[0]] || a[0]) + " " + (RANK_WORDS[a[1]] || a[1]);
  }
  function actionText(a) {
    if (!a) return "";
    if (a[0] === "PASS") return "PASS";
    return actionName(a) + ": " + a[2].map(cardText).join(" ");
  }
  // An action in the middle of the table: its cards, or PASS.
  function play(a, levelChar) {
    if (!a) return el("div");
    if (a[0] === "PASS") return el("div", {class: "pass", text: "PASS"});
    const box = el("div");
    box.append(cardRow(a[2], levelChar, true), el("div", {class: "what", text: actionName(a)}));
    box.setAttribute("aria-label", actionName(a) + ": " + a[2].map(c => deck(levelChar).labels[c]).join("; "));
    return box;
  }
  // Seats around the table as seen from `me`: the next to play sits on the right.
  function positions(me) {
    const pos = {};
    pos[me] = "bottom"; pos[(me + 1) % 4] = "right"; pos[(me + 2) % 4] = "top"; pos[(me + 3) % 4] = "left";
    return pos;
  }
  return {config, el, card, cardRow, sortCards, actionName, actionText, cardText, play, positions, deck, PLACES};
})();

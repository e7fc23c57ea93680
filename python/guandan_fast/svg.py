"""Pictures of cards, hands and table positions as SVG (docs/web.md).

``hand(cards, level)`` draws a hand sorted in the level's order (level cards marked, the wild
heart level card starred); ``table(game, seat=None)`` draws a position: all four hands face up
(``seat=None``) or what one seat sees (its own hand; the others' backs with their counts as
the rules disclose them), each seat's play in the current trick, whose turn it is, the levels,
the hand number, the finishing order and the exchange of the hand. Both return an ``SVG``: a
``str`` that Jupyter displays as the picture (``_repr_svg_``, as python-chess boards do);
``Game`` displays itself through ``table``.

The suit shapes are drawn here once (``suit_symbols``) and reused by the web pages.

>>> from guandan_fast import Game
>>> pic = hand("HR S8 H7 C8 DJ", level=7)
>>> pic.startswith('<svg') and pic.count('class="card') == 5
True
>>> [c for c in sort_for_level("HR S8 H7 C8 DJ", 7)]
['S8', 'C8', 'DJ', 'H7', 'HR']
>>> t = table(Game(seed=1), seat=0)
>>> 'seat 0' in t and t.count('class="card"') == 27
True
"""

from __future__ import annotations

from html import escape
from typing import Iterable

from .cards import SUITS, is_wild, natural_value, parse_cards, single_value

__all__ = ["SVG", "hand", "table", "card", "suit_symbols", "sort_for_level", "card_label",
           "current_trick"]

#: Suit shapes in a 20 x 20 box (spade, heart, club, diamond).
SUIT_PATHS = {
    "S": "M10 1C16 7 20 10 18 13.5C16.5 16 12.8 15.6 11.2 13.4L13 19H7L8.8 13.4C7.2 15.6 3.5 16 "
         "2 13.5C0 10 4 7 10 1Z",
    "H": "M10 18.5C3 12.5 0 9 1.5 5C3 1.2 8.2 1 10 5C11.8 1 17 1.2 18.5 5C20 9 17 12.5 10 18.5Z",
    "C": "M10 1.5A4.3 4.3 0 0 1 13.9 7.9A4.3 4.3 0 1 1 11.3 14.2L13 19H7L8.7 14.2A4.3 4.3 0 1 1 "
         "6.1 7.9A4.3 4.3 0 0 1 10 1.5Z",
    "D": "M10 0.5L17.5 10L10 19.5L2.5 10Z",
}
SUIT_NAMES = {"S": "spades", "H": "hearts", "C": "clubs", "D": "diamonds"}
RANK_NAMES = {"T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
RED, BLACK, LEVEL_FILL, WILD_MARK = "#c8102e", "#1a1a1a", "#fff4c2", "#d98e04"
CARD_W, CARD_H = 44, 62


class SVG(str):
    """An SVG document: a ``str`` that Jupyter and IPython display as the picture."""

    def _repr_svg_(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return str(self)


def suit_symbols() -> str:
    """``<symbol>`` definitions of the four suits (ids ``gf-S``, ``gf-H``, ``gf-C``,
    ``gf-D``), for ``<use href="#gf-S">`` in pictures and web pages."""
    return "".join(f'<symbol id="gf-{s}" viewBox="0 0 20 20"><path d="{SUIT_PATHS[s]}"/></symbol>'
                   for s in SUITS)


def card_label(code: str, level: int | None = None) -> str:
    """The card's name for people (screen readers, tooltips).

    >>> card_label('HT', 10), card_label('SB'), card_label('DA')
    ('10 of hearts, level card, wild', 'small joker', 'ace of diamonds')
    """
    if code == "SB":
        return "small joker"
    if code == "HR":
        return "big joker"
    name = f"{RANK_NAMES.get(code[1], code[1])} of {SUIT_NAMES[code[0]]}"
    if level is not None and natural_value(code) == level:
        name += ", level card, wild" if is_wild(code, level) else ", level card"
    return name


def sort_for_level(cards: str | Iterable[str], level: int) -> tuple[str, ...]:
    """Cards in the order of singles at ``level`` (2..A, the level cards, the small and the
    big joker), suits S H C D within a value."""
    codes = parse_cards(cards)
    return tuple(sorted(codes, key=lambda c: (single_value(c, level),
                                              SUITS.index(c[0]) if c[0] in SUITS else 0)))


def card(code: str, x: float, y: float, level: int | None = None, stacked: bool = False) -> str:
    """One face-up card at ``(x, y)`` as an SVG group (no ``<svg>`` around it). ``stacked``:
    the card is covered but for its top edge (a column of cards), so the small suit sign goes
    beside the rank instead of under it."""
    label = escape(card_label(code, level))
    level_card = level is not None and code not in ("SB", "HR") and natural_value(code) == level
    fill = LEVEL_FILL if level_card else "#ffffff"
    out = [f'<g class="card" transform="translate({x:g},{y:g})"><title>{label}</title>',
           f'<rect width="{CARD_W}" height="{CARD_H}" rx="5" fill="{fill}" stroke="#555"/>']
    if code in ("SB", "HR") and stacked:
        color = RED if code == "HR" else BLACK
        out.append(f'<text x="4" y="12" font-size="10" font-weight="bold" fill="{color}" '
                   f'font-family="sans-serif">JOKER</text>')
        out.append(f'<circle cx="28" cy="38" r="9" fill="{color}"/>')
    elif code in ("SB", "HR"):
        color = RED if code == "HR" else BLACK
        for i, ch in enumerate("JOKER"):
            out.append(f'<text x="7" y="{13 + 10 * i}" font-size="10" font-weight="bold" '
                       f'text-anchor="middle" fill="{color}" font-family="sans-serif">{ch}</text>')
        out.append(f'<circle cx="28" cy="36" r="9" fill="{color}"/>')
    else:
        suit = code[0]
        color = RED if suit in "HD" else BLACK
        rank = "10" if code[1] == "T" else code[1]
        out.append(f'<text x="4" y="{13 if stacked else 16}" font-size="{13 if stacked else 15}" '
                   f'font-weight="bold" fill="{color}" font-family="sans-serif">{rank}</text>')
        if stacked:
            out.append(f'<use href="#gf-{suit}" x="{21 if rank == "10" else 15}" y="3" width="10" '
                       f'height="10" fill="{color}"/>')
        else:
            out.append(f'<use href="#gf-{suit}" x="4" y="19" width="11" height="11" fill="{color}"/>')
        out.append(f'<use href="#gf-{suit}" x="17" y="30" width="22" height="22" fill="{color}"/>')
        if level is not None and is_wild(code, level):
            out.append(f'<text x="37" y="14" font-size="13" text-anchor="middle" '
                       f'fill="{WILD_MARK}" font-family="sans-serif">&#9733;</text>')
    out.append("</g>")
    return "".join(out)


def _back(x: float, y: float, count) -> str:
    text = "?" if count is None else str(count)
    return (f'<g class="back" transform="translate({x:g},{y:g})">'
            f'<rect width="{CARD_W}" height="{CARD_H}" rx="5" fill="#24518f" stroke="#123"/>'
            f'<rect x="4" y="4" width="{CARD_W - 8}" height="{CARD_H - 8}" rx="3" fill="none" '
            f'stroke="#9fb9e0" stroke-dasharray="3 2"/>'
            f'<text x="{CARD_W / 2:g}" y="38" font-size="16" font-weight="bold" fill="#fff" '
            f'text-anchor="middle" font-family="sans-serif">{text}</text></g>')


def _row(cards, x: float, y: float, level, step: float = 22) -> str:
    return "".join(card(c, x + i * step, y, level) for i, c in enumerate(cards))


def _svg(width: int, height: int, body: str, title: str) -> SVG:
    return SVG(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
               f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">'
               f'<title>{escape(title)}</title><defs>{suit_symbols()}</defs>{body}</svg>')


def hand(cards: str | Iterable[str], level: int = 2) -> SVG:
    """A hand, sorted in the order of ``level`` (``cards``: codes as ``parse_cards`` reads)."""
    codes = sort_for_level(cards, level)
    step = 22
    width = 8 + max(0, len(codes) - 1) * step + CARD_W + 8
    return _svg(width, CARD_H + 16, _row(codes, 8, 8, level, step),
                f"hand of {len(codes)} cards at level {level}")


def current_trick(game) -> list:
    """``(seat, Move)`` of every play and pass of the current trick, in order (empty on a
    fresh lead or outside the play phase). The hand is replayed from its record to find
    where the trick began (a lead is a move made with nothing on top)."""
    if game.phase != "play":
        return []
    from .game import Game

    lines = game.to_record()
    start = Game.from_record(lines[:-1]) if len(lines) > 2 else Game.from_record(lines[:1])
    trick: list = []
    for seat, move in game.history[len(start.history):]:
        if start.phase == "play" and start.observation(seat)["top"] is None:
            trick = []
        if move.type not in ("tribute", "back"):
            trick.append((seat, move))
        start.play(move, seat=seat)
    return trick if game.observation(0)["top"] is not None else []


_PLACES = ("1st", "2nd", "3rd", "4th")


def table(game, seat: int | None = None) -> SVG:
    """The position of a compiled ``Game``: all hands face up (``seat=None``, the bottom is
    seat 0) or seat ``seat``'s view (the others' card backs show their counts as the rules
    disclose them, ``?`` when hidden). The bottom seat's right is the next to play."""
    from .cards import level_char
    from .validate import check_seat

    me = 0 if seat is None else check_seat(seat, "seat")
    obs = game.observation(me)
    level = game.level
    W, H = 940, 700
    body = [f'<rect width="{W}" height="{H}" rx="14" fill="#2e6b3f"/>']
    trick = {s: m for s, m in current_trick(game)}
    finish = list(game.finish_order)
    # bottom, right, top, left: me, me+1, me+2, me+3 (play passes to the right)
    spots = {me: "bottom", (me + 1) % 4: "right", (me + 2) % 4: "top", (me + 3) % 4: "left"}
    for s, where in spots.items():
        cards = sort_for_level(game.hand(s), level)
        shown = seat is None or s == me
        count = obs["counts"][s]
        name = f"seat {s} (team {s % 2})"
        if s in finish:
            name += f" — {_PLACES[finish.index(s)]}"
        turn = game.current_player == s
        color = "#ffd54a" if turn else "#ffffff"
        if where in ("bottom", "top"):
            y = H - CARD_H - 14 if where == "bottom" else 76
            label_y = y - 8 if where == "bottom" else 68
            if shown:
                step = 22
                x = (W - (max(0, len(cards) - 1) * step + CARD_W)) / 2
                body.append(_row(cards, x, y, level, step))
            else:
                body.append(_back((W - CARD_W) / 2, y, count))
            body.append(f'<text x="{W / 2:g}" y="{label_y}" fill="{color}" font-size="14" '
                        f'text-anchor="middle" font-family="sans-serif">'
                        f'{"▶ " if turn else ""}{escape(name)}, {len(cards) if shown else count if count is not None else "?"} cards</text>')
        else:
            x = 14 if where == "left" else W - CARD_W - 14
            anchor = "start" if where == "left" else "end"
            tx = 14 if where == "left" else W - 14
            if shown:
                step = 14
                top_y = 178
                for i, c in enumerate(cards):
                    body.append(card(c, x, top_y + i * step, level, stacked=True))
            else:
                body.append(_back(x, (H - CARD_H) / 2, count))
            body.append(f'<text x="{tx}" y="150" fill="{color}" font-size="14" '
                        f'text-anchor="{anchor}" font-family="sans-serif">'
                        f'{"▶ " if turn else ""}{escape(name)}</text>')
            body.append(f'<text x="{tx}" y="166" fill="{color}" font-size="12" '
                        f'text-anchor="{anchor}" font-family="sans-serif">'
                        f'{len(cards) if shown else count if count is not None else "?"} cards</text>')
        # the seat's play in the current trick, towards the middle
        if s in trick:
            m = trick[s]
            cx, cy = {"bottom": (W / 2, H - 190), "top": (W / 2, 170),
                      "left": (260, H / 2 - 30), "right": (W - 260, H / 2 - 30)}[where]
            if m.is_pass:
                body.append(f'<text x="{cx:g}" y="{cy + 35:g}" fill="#fff" font-size="18" '
                            f'text-anchor="middle" font-family="sans-serif">PASS</text>')
            else:
                mc = list(m.cards)
                step = 20
                x0 = cx - (max(0, len(mc) - 1) * step + CARD_W) / 2
                body.append(_row(mc, x0, cy, level, step))
                body.append(f'<text x="{cx:g}" y="{cy + CARD_H + 14:g}" fill="#e8f5e9" '
                            f'font-size="12" text-anchor="middle" font-family="sans-serif">'
                            f'{escape(m.type)} {escape(str(m.rank))}</text>')
    levels = game.levels
    left = [f"hand {game.hand_number} · level {level_char(level)}"
            + ("" if game.declarer is None else f" (declarer team {game.declarer})"),
            f"levels: team 0 {level_char(levels[0])}, team 1 {level_char(levels[1])} · "
            f"phase {game.phase}"]
    right = []
    if obs["anti_tribute"]:
        right.append("anti-tribute (big jokers)")
    ex = [f"tribute {payer}→{'?' if receiver is None else receiver} {c or '?'}"
          for payer, receiver, c in obs["tribute"]]
    ex += [f"return {receiver}→{payer} {c or '?'}" for receiver, payer, c in obs["back"]]
    if ex:
        right.append(", ".join(ex))
    if game.is_over:
        right.append(f"match over: team {game.winner} wins")
    elif finish:
        right.append("finished: " + ", ".join(f"seat {s}" for s in finish))
    body.append('<rect width="940" height="48" rx="14" fill="#244f30"/>')
    for i, line in enumerate(left):
        body.append(f'<text x="14" y="{20 + 18 * i}" fill="#fff" font-size="14" '
                    f'font-family="sans-serif">{escape(line)}</text>')
    for i, line in enumerate(right[-2:]):
        body.append(f'<text x="{W - 14}" y="{20 + 18 * i}" fill="#fff" font-size="14" '
                    f'text-anchor="end" font-family="sans-serif">{escape(line)}</text>')
    title = ("all hands open" if seat is None else f"seat {seat}'s view") + \
        f", hand {game.hand_number}, level {level_char(level)}"
    return _svg(W, H, "".join(body), title)

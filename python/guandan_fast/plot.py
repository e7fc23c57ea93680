"""A small SVG writer for the tournament plot (plain Python, no plotting library).

``tournament_svg(result)`` draws one row per pair ("A vs B") in three panels: A's match win
rate (dot; thin bar: Wilson interval, thick bar: paired interval over deals), A's hand win rate
(the same two intervals) and A's net levels per match (paired interval), each with a dashed line at
even (50% or 0); with three or more agents, a fourth panel below rates them (Bradley–Terry,
Elo points, bootstrap interval: ``ratings.py``).

>>> from guandan_fast.tournament import tournament
>>> svg = tournament_svg(tournament(["greedy", "random"], deals=8))
>>> svg.startswith("<svg") and "greedy vs random" in svg
True
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape

__all__ = ["tournament_svg"]

_ROW = 34          # pixels per pair
_PANEL = 260       # panel width
_GAP = 50
_TOP = 58
_COLOUR = "#1f5fa8"


def _panel(out, x0, title, rows, lo, hi, even, fmt, ticks, top=_TOP):
    """One panel: ``rows`` = (value, thin interval or None, thick interval or None); its
    rows start at ``top``."""
    height = _ROW * len(rows)

    def px(v):
        v = min(max(v, lo), hi)
        return x0 + (v - lo) / (hi - lo) * _PANEL

    out.append(f'<text x="{x0 + _PANEL / 2:.1f}" y="{top - 30}" text-anchor="middle" '
               f'font-weight="bold">{escape(title)}</text>')
    out.append(f'<rect x="{x0}" y="{top - 10}" width="{_PANEL}" height="{height + 10}" '
               f'fill="#f7f7f7" stroke="#999"/>')
    for t in ticks:
        x = px(t)
        out.append(f'<line x1="{x:.1f}" y1="{top + height}" x2="{x:.1f}" '
                   f'y2="{top + height + 5}" stroke="#333"/>')
        out.append(f'<text x="{x:.1f}" y="{top + height + 18}" text-anchor="middle" '
                   f'font-size="11">{escape(fmt(t))}</text>')
    xe = px(even)
    out.append(f'<line x1="{xe:.1f}" y1="{top - 10}" x2="{xe:.1f}" y2="{top + height}" '
               f'stroke="#c33" stroke-dasharray="4,3"/>')
    for i, (value, thin, thick) in enumerate(rows):
        y = top + _ROW * i + _ROW / 2 - 5
        if thin is not None:
            out.append(f'<line x1="{px(thin[0]):.1f}" y1="{y:.1f}" x2="{px(thin[1]):.1f}" '
                       f'y2="{y:.1f}" stroke="{_COLOUR}" stroke-width="1.5"/>')
            for end in thin:
                out.append(f'<line x1="{px(end):.1f}" y1="{y - 5:.1f}" x2="{px(end):.1f}" '
                           f'y2="{y + 5:.1f}" stroke="{_COLOUR}" stroke-width="1.5"/>')
        if thick is not None:
            out.append(f'<line x1="{px(thick[0]):.1f}" y1="{y:.1f}" x2="{px(thick[1]):.1f}" '
                       f'y2="{y:.1f}" stroke="{_COLOUR}" stroke-width="5" '
                       f'stroke-opacity="0.55"/>')
        out.append(f'<circle cx="{px(value):.1f}" cy="{y:.1f}" r="4" fill="#111"/>')
        out.append(f'<text x="{px(value):.1f}" y="{y + 15:.1f}" text-anchor="middle" '
                   f'font-size="10" fill="#444">{escape(fmt(value))}</text>')


def tournament_svg(result) -> str:
    """The plot of a ``TournamentResult`` as SVG text."""
    pairs = result.pairs
    labels = [f"{p.a} vs {p.b}" for p in pairs]
    names = [a + " (lost all)" for a in result.agents] if len(result.agents) >= 3 else []
    left = 30 + 8 * max(len(s) for s in labels + names)
    width = left + 3 * _PANEL + 2 * _GAP + 20
    ratings = result.ratings
    rated_top = _TOP + _ROW * len(pairs) + 60 + 40      # the ratings panel, below
    height = _TOP + _ROW * len(pairs) + 60
    if ratings is not None:
        height = rated_top + _ROW * len(ratings.agents) + 60
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    for i, s in enumerate(labels):
        y = _TOP + _ROW * i + _ROW / 2 - 1
        out.append(f'<text x="{left - 10}" y="{y:.1f}" text-anchor="end">{escape(s)}</text>')

    def pct(v):
        return f"{100 * v:.0f}%" if v in (0, 0.25, 0.5, 0.75, 1) else f"{100 * v:.1f}%"

    ticks = (0, 0.25, 0.5, 0.75, 1)
    _panel(out, left, "A's match win rate", [(p.match_win_rate, p.match_ci, p.match_ci_paired)
                                             for p in pairs], 0, 1, 0.5, pct, ticks)
    _panel(out, left + _PANEL + _GAP, "A's hand win rate",
           [(p.hand_win_rate, p.hand_ci, p.hand_ci_paired) for p in pairs], 0, 1, 0.5, pct, ticks)
    span = max([1.0] + [abs(v) for p in pairs for v in
                        ((p.net_levels,) + tuple(p.net_levels_ci or ()))])
    span = float(math.ceil(1.15 * span))     # room beyond the widest interval
    _panel(out, left + 2 * (_PANEL + _GAP), "A - B levels per match",
           [(p.net_levels, None, p.net_levels_ci) for p in pairs], -span, span, 0.0,
           lambda v: f"{v:+.1f}" if v else "0", (-span, -span / 2, 0.0, span / 2, span))
    if ratings is not None:
        order = ratings.order()
        for i, a in enumerate(order):
            y = rated_top + _ROW * i + _ROW / 2 - 1
            mark = {"lower": " (won all)", "upper": " (lost all)"}.get(ratings.bound[a], "")
            out.append(f'<text x="{left - 10}" y="{y:.1f}" text-anchor="end">'
                       f'{escape(a + mark)}</text>')
        reach = max(abs(v) for a in order for v in (ratings.elo[a],) + ratings.ci[a])
        reach = float(100 * math.ceil(1.1 * reach / 100))
        _panel(out, left, "rating (Elo points, mean 0; bar: 95% bootstrap over deals)",
               [(ratings.elo[a], None, ratings.ci[a]) for a in order], -reach, reach, 0.0,
               lambda v: f"{v:+.0f}" if round(v) else "0", (-reach, -reach / 2, 0.0, reach / 2, reach),
               top=rated_top)
    note = (f"{result.deals} deals x 2 seatings, seed {result.seed}; thin bars: Wilson 95%, "
            f"thick bars: paired 95% over deals (docs/tournament.md)")
    out.append(f'<text x="10" y="{height - 12}" font-size="11" fill="#444">{escape(note)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"

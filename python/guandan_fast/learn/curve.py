"""The training curve as SVG: win rates against each evaluation opponent over frames.

``curve_svg(history)`` takes a run's history (``log.jsonl``'s rows; only the ``eval`` rows
are drawn) and draws per opponent the duplicate match win rate (a solid line, each point with
its 95 % interval as a bar) and the hand win rate (dashed), and a dashed grid line at 50 %.

>>> rows = [{"kind": "eval", "frames": f, "greedy": {"match_win_rate": w, "match_ci": [w - .1, w + .1]}}
...         for f, w in ((0, .1), (1000, .4))]
>>> svg = curve_svg(rows)
>>> svg.startswith("<svg") and "greedy" in svg
True
"""

from __future__ import annotations

from xml.sax.saxutils import escape

__all__ = ["curve_svg"]

_W, _H, _LEFT, _TOP, _BOTTOM = 560, 320, 60, 30, 50
_COLOURS = ("#1f5fa8", "#c0392b", "#27ae60", "#8e44ad")


def curve_svg(history) -> str:
    evals = [h for h in history if h.get("kind") == "eval"]
    opponents = sorted({k for h in evals for k, v in h.items() if isinstance(v, dict)})
    top = max([h["frames"] for h in evals] + [1])
    pw, ph = _W - _LEFT - 45, _H - _TOP - _BOTTOM

    def x(f):
        return _LEFT + f / top * pw

    def y(v):
        return _TOP + (1 - v) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{_H}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect x="{_LEFT}" y="{_TOP}" width="{pw}" height="{ph}" fill="#f7f7f7" '
           f'stroke="#999"/>',
           f'<text x="{_W / 2}" y="18" text-anchor="middle" font-weight="bold">'
           f'duplicate win rate over training frames</text>']
    for v in (0, .25, .5, .75, 1):
        dash = ' stroke-dasharray="4 3"' if v == .5 else ""
        out.append(f'<line x1="{_LEFT}" x2="{_LEFT + pw}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
                   f'stroke="#bbb"{dash}/>')
        out.append(f'<text x="{_LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.0%}</text>')
    for k in range(5):
        f = top * k / 4
        out.append(f'<text x="{x(f):.1f}" y="{_TOP + ph + 16}" text-anchor="middle">'
                   f'{f:,.0f}</text>')
    out.append(f'<text x="{_LEFT + pw / 2}" y="{_H - 12}" text-anchor="middle">frames '
               f'(decisions trained on)</text>')
    for i, opp in enumerate(opponents):
        colour = _COLOURS[i % len(_COLOURS)]
        pts = [(h["frames"], h[opp]) for h in evals if opp in h]
        path = " ".join(f"{x(f):.1f},{y(r['match_win_rate']):.1f}" for f, r in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                   f'stroke-width="2"/>')
        hands = [(f, r["hand_win_rate"]) for f, r in pts if "hand_win_rate" in r]
        if hands:
            path = " ".join(f"{x(f):.1f},{y(v):.1f}" for f, v in hands)
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                       f'stroke-width="1.5" stroke-dasharray="5 3"/>')
        for f, r in pts:
            lo, hi = r["match_ci"]
            out.append(f'<line x1="{x(f):.1f}" x2="{x(f):.1f}" y1="{y(lo):.1f}" '
                       f'y2="{y(hi):.1f}" stroke="{colour}" stroke-opacity="0.5"/>')
            out.append(f'<circle cx="{x(f):.1f}" cy="{y(r["match_win_rate"]):.1f}" r="2.5" '
                       f'fill="{colour}"/>')
        out.append(f'<text x="{_LEFT + 10}" y="{_TOP + 16 + 16 * i}" fill="{colour}">'
                   f'against {escape(opp)}: matches (solid, 95 % bars), hands (dashed)</text>')
    out.append("</svg>")
    return "\n".join(out)

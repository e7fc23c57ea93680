"""The web pages, assembled from the files in ``assets/`` (shipped with the package: no CDN,
no fonts, no build step) into one HTML document with everything inline.

The card facts the pages need (the order of the cards at each level, which cards are level
cards and wild, every card's spoken name) come from ``cards``/``svg`` and are written into the
page as data, so the scripts hold no rules.

>>> doc = page("viewer", {"match": 0})
>>> doc.startswith("<!DOCTYPE html>") and "<script src" not in doc and 'href="http' not in doc
True
>>> deck_info()["7"]["wild"]
['H7']
"""

from __future__ import annotations

import json
from functools import lru_cache
from html import escape
from urllib.parse import quote
from importlib import resources

from ..cards import CARD_CODES, RANKS, is_wild, natural_value
from ..svg import SUIT_PATHS, card_label, sort_for_level, suit_symbols

__all__ = ["asset", "deck_info", "page", "json_for_script", "favicon"]

PAGES = {"viewer": ("viewer.js",), "play": ("play.js",)}
#: Where a page's body takes the table both pages share (``table.html``).
TABLE_MARK = "<!--table.html-->\n"


def asset(name: str) -> str:
    """The text of a shipped asset (``table.css``, ``table.js``, ``viewer.js``, ...)."""
    return resources.files(__package__).joinpath("assets", name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def deck_info() -> dict:
    """Per level character: ``order`` (the 54 codes in the order of singles), ``labels``
    (code -> name), ``levelCards`` and ``wild`` (codes)."""
    out = {}
    for i, ch in enumerate(RANKS):
        level = i + 2
        out[ch] = {
            "order": list(sort_for_level(CARD_CODES, level)),
            "labels": {c: card_label(c, level) for c in CARD_CODES},
            "levelCards": [c for c in CARD_CODES if c not in ("SB", "HR") and natural_value(c) == level],
            "wild": [c for c in CARD_CODES if c not in ("SB", "HR") and is_wild(c, level)],
        }
    return out


def json_for_script(obj) -> str:
    """JSON that can sit inside a ``<script>`` element (no ``</`` or ``<!--``)."""
    return json.dumps(obj, separators=(",", ":")).replace("<", "\\u003c")


def page(kind: str, config: dict, title: str = "guandan-fast") -> str:
    """A whole page (``kind``: ``viewer`` or ``play``) with ``config`` as its data."""
    if kind not in PAGES:
        raise ValueError(f"unknown page {kind!r}")
    scripts = "".join(f"<script>\n{asset(name)}\n</script>" for name in ("table.js",) + PAGES[kind])
    body = asset(f"{kind}.html").replace(TABLE_MARK, asset("table.html"))
    data = dict(config, deck=deck_info())
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{escape(title)}</title>"
            f"<link rel=\"icon\" href=\"data:image/svg+xml,{quote(favicon())}\">"
            f"<style>\n{asset('table.css')}\n</style></head>"
            f"<body>{body}"
            f"<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\">"
            f"<defs>{suit_symbols()}</defs></svg>"
            f"<script type=\"application/json\" id=\"gf-config\">{json_for_script(data)}</script>"
            f"{scripts}</body></html>\n")


def favicon() -> str:
    """The pages' icon: a spade."""
    return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 20">'
            f'<path d="{SUIT_PATHS["S"]}" fill="#1a1a1a"/></svg>')

"""The reference engine: plain Python written straight from docs/rules.md, the oracle the
compiled core is checked against. It never imports the compiled core.

* ``classify(cards, level, rules=Rules())``: every reading of exactly these cards;
* ``beats(move, last, level, rules=Rules())``: docs/rules.md §5;
* ``legal_moves(hand, level, last=None, rules=Rules())``: docs/rules.md §6;
* ``Game``: a whole match (docs/rules.md §7-10), API in docs/design.md.
"""

_EXPORTS = {"classify": "combos", "beats": "combos", "legal_moves": "movegen", "Game": "game"}
__all__ = list(_EXPORTS)


def __getattr__(name):
    # Lazy, so that each part can be imported (and tested) on its own.
    if name in _EXPORTS:
        import importlib

        module = importlib.import_module(f".{_EXPORTS[name]}", __name__)
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

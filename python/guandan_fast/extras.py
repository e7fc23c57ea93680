"""Optional extras: the one place that knows which package each extra brings and how to install
it, so that every command missing one says the same single line (never a traceback).

The engine needs only numpy and websockets (the default install, what ``make run`` installs);
the integrations are extras of ``pyproject.toml``, imported only when used.

>>> EXTRA_OF["pyspiel"], EXTRA_OF["websockets"]
('openspiel', 'net')
>>> print(install_hint("ray"))
the 'ray' extra is not installed: in this checkout run `make test` (or `.venv/bin/pip install -e '.[ray]'`); from PyPI: pip install 'guandan-fast[ray]'
>>> require("json", "net").__name__
'json'
>>> require("no_such_module_here", "ray")
Traceback (most recent call last):
...
guandan_fast.extras.MissingExtra: the 'ray' extra is not installed: in this checkout run `make test` (or `.venv/bin/pip install -e '.[ray]'`); from PyPI: pip install 'guandan-fast[ray]'
"""

from __future__ import annotations

import importlib

__all__ = ["EXTRA_OF", "MissingExtra", "install_hint", "require", "missing_extra"]

#: The top-level module each optional dependency is imported as -> the extra that installs it
#: (``pyproject.toml``'s ``[project.optional-dependencies]``). websockets is a default
#: dependency; its ``net`` extra stays for installs made before it was.
EXTRA_OF = {
    "websockets": "net",
    "gymnasium": "gymnasium",
    "pettingzoo": "pettingzoo",
    "pyspiel": "openspiel",
    "open_spiel": "openspiel",
    "ray": "ray",
    "scipy": "ratings",
    "torch": "train",
    "optuna": "tune",
}


class MissingExtra(ImportError):
    """An optional dependency is not installed; the message is the one line to show."""


def install_hint(extra: str) -> str:
    """The one line naming how to install ``extra`` here (this checkout) and from PyPI."""
    return (f"the {extra!r} extra is not installed: in this checkout run `make test` (or "
            f"`.venv/bin/pip install -e '.[{extra}]'`); from PyPI: pip install "
            f"'guandan-fast[{extra}]'")


def require(module: str, extra: str, why: str = ""):
    """Import ``module`` (dotted names too) or raise ``MissingExtra`` with ``install_hint``;
    ``why`` (e.g. "network play needs websockets >= 13") is put before it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra((f"{why}; " if why else "") + install_hint(extra)) from None


def missing_extra(exc: BaseException) -> str | None:
    """The one line for an ImportError of an extra's module (``MissingExtra`` or a plain
    ``ModuleNotFoundError`` naming one of ``EXTRA_OF``); None for any other error."""
    if isinstance(exc, MissingExtra):
        return str(exc)
    if isinstance(exc, ImportError):
        top = (getattr(exc, "name", None) or "").split(".")[0]
        if top in EXTRA_OF:
            return install_hint(EXTRA_OF[top])
    return None

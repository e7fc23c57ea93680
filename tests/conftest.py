"""Shared fixtures, the ``--long`` option and the markers of the slow groups.

Every rules test runs against each implementation listed here. ``--long`` runs the long
versions of the randomized tests (more cases, more matches) and the tests marked ``long``,
which a default run leaves out (deselected, not skipped). The markers name the slow groups so
that ``-m`` can pick or leave them (``-m "not ray"``): ``reference`` (the pure-Python
reference engine at length: differential and oracle tests), ``ray`` (a local Ray cluster, in
one xdist worker: ``--dist loadgroup``), ``cli`` (commands in a child process), ``long``.
"""

import importlib
import signal

import pytest

import helpers

# The Ctrl-C tests send SIGINT to this process and to the commands it starts. A shell that runs
# the suite in the background (`pytest &`, nohup) leaves SIGINT ignored, which Python then
# keeps (no KeyboardInterrupt) and every child inherits: Ctrl-C is given back its usual effect.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# name -> module providing classify / beats / legal_moves (same signatures and results).
MOVE_ENGINES = ["guandan_fast.reference", "guandan_fast.movegen"]
# name -> module providing a Game class with the API of docs/design.md.
GAME_ENGINES = ["guandan_fast.reference", "guandan_fast.game"]

MARKERS = {
    "reference": "runs the pure-Python reference engine at length (differential, oracle tests)",
    "ray": "starts or uses a local Ray cluster",
    "cli": "runs guandan-fast commands in a child process",
    "long": "runs only with --long (hours in all: the reference engine is the bottleneck)",
}


def pytest_addoption(parser):
    parser.addoption("--long", action="store_true", default=False,
                     help="run the long versions of the randomized tests and the tests "
                          "marked 'long' (hours)")


def pytest_configure(config):
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    # Read by the test modules when they are imported, which happens after this hook.
    helpers.LONG = config.getoption("long")


def pytest_collection_modifyitems(config, items):
    if config.getoption("long"):
        return
    left = [item for item in items if item.get_closest_marker("long")]
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = [item for item in items if not item.get_closest_marker("long")]


@pytest.fixture(params=MOVE_ENGINES)
def engine(request):
    """A move engine: ``engine.classify``, ``engine.beats``, ``engine.legal_moves``."""
    return importlib.import_module(request.param)


@pytest.fixture(params=GAME_ENGINES)
def game_cls(request):
    """A ``Game`` class (reference or compiled)."""
    return importlib.import_module(request.param).Game

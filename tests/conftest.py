"""Shared fixtures, the ``--long`` option and the markers of the slow groups.

Every rules test runs against each implementation listed here. ``--long`` runs the long
versions of the randomized tests (more cases, more matches) and the tests marked ``long``,
which a default run leaves out (deselected, not skipped). The markers name the slow groups so
that ``-m`` can pick or leave them (``-m "not ray"``): ``reference`` (the pure-Python
reference engine at length: differential and oracle tests), ``ray`` (a local Ray cluster, in
one xdist worker: ``--dist loadgroup``), ``cli`` (commands in a child process), ``long``.
"""

import importlib
import pathlib
import signal
import sys

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


# -- the Ray tests' cluster (marker ``ray``, xdist group "ray": one worker runs them all) -------

TESTS = pathlib.Path(__file__).resolve().parent
_RAY_NODE = []      # the node id of the connection ``cluster`` made (the fault hook installed)


@pytest.fixture(scope="session")
def ray_kill_arm(tmp_path_factory):
    """The file that arms the worker-killing fault (ray_helpers.install); shuts down at the end
    the connection the Ray tests keep for the whole session (Ray takes seconds to start)."""
    yield tmp_path_factory.mktemp("ray") / "kill-armed"
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        ray.shutdown()


def _no_cancel(*args, **kwargs):
    # Cancelling a task races with its completion inside Ray (Ray 2.60 aborted the whole test
    # process: "Tried to complete task that was not pending"); runs stop their tasks
    # through their stop flag instead.
    raise AssertionError("ray.cancel called")


@pytest.fixture
def cluster(ray_kill_arm):
    """The local test cluster (2 CPUs, the fault hook in its workers), started once per
    session: xdist runs other modules' tests between the Ray tests, which would tear a module
    fixture down and start Ray again. Started anew only when a test left another connection
    (the reconnect test) or none (the README's example shuts its down). Yields the kill arm."""
    import ray

    if ray.is_initialized() and ray.get_runtime_context().get_node_id() not in _RAY_NODE:
        ray.shutdown()
    if not ray.is_initialized():
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
                 runtime_env={"worker_process_setup_hook": "ray_helpers.install",
                              "env_vars": {"PYTHONPATH": str(TESTS),
                                           "GF_TEST_KILL_ARM": str(ray_kill_arm)}})
        _RAY_NODE[:] = [ray.get_runtime_context().get_node_id()]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ray, "cancel", _no_cancel)
        yield ray_kill_arm


@pytest.fixture
def ray_connection(ray_kill_arm):
    """Any Ray connection, the session's if there is one (for examples that need no fault
    hook: one Ray start less)."""
    import ray

    if not ray.is_initialized():
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield

"""Running numbered units of work, results merged in unit order: the one runner below
``simulate`` and ``tournament``.

A front end describes its run as units ``0 .. n-1`` (or as many as it takes, ``n=None``) and
two functions: ``work(i, cancel)`` computes unit ``i`` (anywhere: a thread, a forked process,
a Ray worker; it polls the bytearray ``cancel`` and stops with KeyboardInterrupt when it is
set), and ``merge(i, result)`` takes the results strictly in unit order (returning True stops
the run: a hand target reached). An ``Ordered`` holds that state; the executors run it:
``run_threads`` (compiled work without the GIL), ``run_processes`` (forked processes, for
Python agents) and ``guandan_fast.distributed.run_on_ray`` (Ray tasks). Whatever the
executor, the order of ``merge`` calls, and so the result, is the same.

Ctrl-C in the calling thread (or a unit that fails) sets ``cancel`` and stops handing out
units; units in flight stop within a second, the executors join them, and the exception goes
on to the caller. ``Ordered.merged`` says how far the run got.

>>> order = Ordered(5, merge=lambda i, r: False)
>>> run_threads(order, 2, lambda i, cancel: i * i)
>>> order.results == {} and order.merged == 5                 # merged, then dropped
True
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Any, Callable

__all__ = ["Ordered", "one_blas_thread", "run_threads", "run_processes", "run_workers",
           "check_cluster", "interrupt_held", "CLUSTERS"]

#: Cluster backends (``cluster=``): None runs on this machine.
CLUSTERS = (None, "ray")


def check_cluster(cluster, address) -> None:
    """The ``cluster=``/``address=`` arguments of ``simulate`` and ``tournament``.

    >>> check_cluster("dask", None)
    Traceback (most recent call last):
    ...
    ValueError: cluster must be None or 'ray', got 'dask'
    """
    if cluster not in CLUSTERS:
        raise ValueError(f"cluster must be None or 'ray', got {cluster!r}")
    if address is not None:
        if not isinstance(address, str):
            raise TypeError(f"address must be a str, not {type(address).__name__}")
        if cluster is None:
            raise ValueError("address= needs cluster='ray'")


class Ordered:
    """Units handed out in order, their results merged in order (one lock for all).

    ``n``: the number of units (None: until ``merge`` returns True). ``merge(i, result)``:
    called for unit 0, 1, 2, ... in turn, as soon as every earlier one is merged; True stops
    the run (later units are not handed out; results already computed for them are dropped).
    ``after(i, result)``: called after every result arrives (progress), under the lock, so one
    call at a time. ``cancel``: the byte units poll (a new one unless the caller gives one).
    ``queue``: which units executors take next, in order (default: all, ascending); a front
    end may run a subset with one executor, then the rest with another.
    """

    def __init__(self, n: int | None, merge: Callable[[int, Any], bool],
                 after: Callable[[int, Any], None] | None = None,
                 cancel: bytearray | None = None) -> None:
        self.lock = threading.Lock()
        self.n = n
        self.merge = merge
        self.after = after
        self.cancel = bytearray(1) if cancel is None else cancel
        self.results: dict[int, Any] = {}    # arrived, not merged yet
        self.merged = 0                       # units 0 .. merged-1 are merged
        self.stopped = False                  # merge asked to stop
        self.error: BaseException | None = None
        self._queue = None if n is None else iter(range(n))
        self._next = 0

    def set_queue(self, units) -> None:
        """Hand out exactly ``units`` (indices, in this order) from now on."""
        with self.lock:
            self._queue = iter(list(units))

    def take(self) -> int | None:
        """The next unit to compute, or None (none left, stopped, or failed)."""
        with self.lock:
            if self.stopped or self.error is not None:
                return None
            if self._queue is None:           # unbounded: 0, 1, 2, ...
                i = self._next
                self._next += 1
                return i
            return next(self._queue, None)

    def put(self, i: int, result) -> None:
        """A unit's result: merged now if every earlier unit is, else kept until then."""
        with self.lock:
            if self.stopped:
                return
            self.results[i] = result
            while self.merged in self.results and not self.stopped:
                k = self.merged
                self.merged += 1
                if self.merge(k, self.results.pop(k)):
                    self.stopped = True
                    self.results.clear()
            if self.after is not None:
                self.after(i, result)

    def fail(self, exc: BaseException) -> None:
        """Stop the run: units in flight see ``cancel``; the first error is kept."""
        with self.lock:
            if self.error is None:
                self.error = exc
            self.cancel[0] = 1

    @property
    def done(self) -> bool:
        return self.stopped or (self.n is not None and self.merged >= self.n)


@contextlib.contextmanager
def interrupt_held():
    """Hold Ctrl-C over steps that must happen together, such as writing a match to the
    record and counting it: a SIGINT that arrives inside is raised when the block ends (by
    the handler that was in place), so the record and the totals agree. Python delivers
    signals to the main thread only, so elsewhere (and where no Python handler is in place)
    this holds nothing.

    >>> steps = []
    >>> try:
    ...     with interrupt_held():
    ...         signal.raise_signal(signal.SIGINT)     # Ctrl-C
    ...         steps.append("written")
    ...         steps.append("counted")
    ... except KeyboardInterrupt:
    ...     steps.append("interrupted")
    >>> steps
    ['written', 'counted', 'interrupted']
    """
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.getsignal(signal.SIGINT)
    if not callable(previous):        # off the main thread, SIG_IGN, SIG_DFL or a C handler
        yield
        return
    held = []
    signal.signal(signal.SIGINT, lambda signum, frame: held.append(frame))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if held:
        previous(signal.SIGINT, held[0])


def run_workers(n: int, worker: Callable[[], None], fail: Callable[[BaseException], None],
                name: str, join_timeout: float | None = None) -> None:
    """Run ``worker`` in ``n`` threads (inline when ``n == 1``) until each returns. On Ctrl-C
    in the calling thread, ``fail(KeyboardInterrupt())`` tells the workers to stop; they are
    joined (at most ``join_timeout`` s each) and the interrupt goes on."""
    if n == 1:
        worker()
        return
    ts = [threading.Thread(target=worker, name=f"{name}-{k}", daemon=True) for k in range(n)]
    for t in ts:
        t.start()
    try:
        for t in ts:
            t.join()
    except BaseException:
        fail(KeyboardInterrupt())
        for t in ts:
            t.join(timeout=join_timeout)
        raise


def run_threads(order: Ordered, threads: int, work: Callable[[int, bytearray], Any],
                name: str = "guandan-run",
                finish: Callable[[bytearray], None] | None = None) -> None:
    """Compute the units of ``order`` in ``threads`` threads (compiled work releases the GIL);
    raises the first error (or the Ctrl-C) once every thread has stopped. ``finish(cancel)``:
    called by each thread that finds no unit left while the run has not failed (the front
    end's closing work, done once by the first caller: it runs while the other threads end
    their last units instead of after them)."""

    def worker() -> None:
        try:
            while True:
                i = order.take()
                if i is None:
                    if finish is not None and order.error is None:
                        finish(order.cancel)
                    return
                order.put(i, work(i, order.cancel))
        except BaseException as exc:  # re-raised in the calling thread
            order.fail(exc)

    # Ctrl-C: the units in flight see order.cancel and stop within milliseconds.
    run_workers(threads, worker, order.fail, name, join_timeout=1.0)
    if order.error is not None:
        raise order.error


# The forked processes' side: the work of the run, set just before the pool starts (inherited
# memory, so any callable works, importable or not).
_FORKED: dict = {}


def _ignore_sigint() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the parent handles Ctrl-C and stops us


def _forked_unit(i: int):
    return i, _FORKED["work"](i, bytearray(1))


def run_processes(order: Ordered, processes: int, work: Callable[[int, bytearray], Any]) -> None:
    """Compute the units of ``order`` in up to ``processes`` forked processes (Python work
    that holds the GIL), or in this thread when one process is asked, only one unit is left,
    or the platform cannot fork. Ctrl-C or a failed unit terminates the processes at once."""
    import multiprocessing

    todo = []
    while (i := order.take()) is not None:
        todo.append(i)
    if not todo:
        return
    if processes == 1 or len(todo) == 1 or "fork" not in multiprocessing.get_all_start_methods():
        for i in todo:
            if order.cancel[0]:
                raise KeyboardInterrupt
            order.put(i, work(i, order.cancel))
        return
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    # Forked after any threads of the run have been joined.
    _FORKED["work"] = work
    ex = ProcessPoolExecutor(min(processes, len(todo)), initializer=_ignore_sigint,
                             mp_context=multiprocessing.get_context("fork"))
    try:
        pending = {ex.submit(_forked_unit, i) for i in todo}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                i, result = fut.result()
                order.put(i, result)
    except BaseException:
        # Ctrl-C or a failed unit: drop what is queued and stop the workers now.
        procs = list((getattr(ex, "_processes", None) or {}).values())
        for proc in procs:
            proc.terminate()
        ex.shutdown(wait=False, cancel_futures=True)
        for proc in procs:
            proc.join()
        raise
    finally:
        ex.shutdown(wait=True)
        _FORKED.clear()


def one_blas_thread():
    """numpy's BLAS on one thread while a Python match loop runs (simulate's, the
    tournament's): a network scores one decision at a time, a few rows, and BLAS's own thread
    pool on such products made a ``dmc`` seat 7.6 times slower on the loaded 2-vCPU machine
    (700 decisions/s against 5,312, bench/simulate_python.py)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")

"""The runner below simulate and tournament (python/guandan_fast/runner.py): units merged in
order whatever the executor and the order they finish in; stop, failure and cancel."""

import threading
import time

import pytest

from guandan_fast.runner import Ordered, check_cluster, run_processes, run_threads


def _slow_first(i, cancel):
    # Unit 0 finishes last: the merge must still see 0, 1, 2, ... in order.
    if i == 0:
        time.sleep(0.05)
    return i * 10


@pytest.mark.parametrize("threads", [1, 3])
def test_results_are_merged_in_unit_order(threads):
    seen = []
    order = Ordered(12, lambda i, r: seen.append((i, r)) and False)
    run_threads(order, threads, _slow_first)
    assert seen == [(i, 10 * i) for i in range(12)]
    assert order.done and order.merged == 12 and order.results == {}


def test_merge_stops_an_unbounded_run():
    total = []

    def merge(i, r):
        total.append(r)
        return sum(total) >= 100          # a target, like simulate's hand count

    order = Ordered(None, merge)
    run_threads(order, 2, lambda i, cancel: 7)
    assert sum(total) == 105 and len(total) == 15 and order.stopped


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_finish_runs_in_each_thread_once_the_units_are_out(threads):
    # simulate's hands mode replays the block that reached its target in the first thread
    # out of blocks, while the others end theirs: finish sees the run stopped, every thread
    # calls it once, each with the run's cancel byte.
    calls = []

    def finish(cancel):
        calls.append((threading.current_thread().name, order.stopped, cancel is order.cancel))

    order = Ordered(None, lambda i, r: i >= 9)
    run_threads(order, threads, lambda i, cancel: i, finish=finish)
    assert order.merged == 10 and len(calls) == threads
    assert len({name for name, _, _ in calls}) == threads
    assert all(stopped and same for _, stopped, same in calls)


def test_finish_is_not_called_after_a_failed_unit():
    calls = []

    def work(i, cancel):
        if i == 0:
            raise ZeroDivisionError("unit 0")
        deadline = time.monotonic() + 5       # the other units end once the run has failed
        while not cancel[0] and time.monotonic() < deadline:
            time.sleep(0.001)
        return i

    order = Ordered(8, lambda i, r: False)
    with pytest.raises(ZeroDivisionError, match="unit 0"):
        run_threads(order, 2, work, finish=calls.append)
    assert calls == [] and order.cancel[0] == 1


def test_a_failing_unit_stops_the_others_and_is_raised():
    started = []

    def work(i, cancel):
        started.append(i)
        if i == 2:
            time.sleep(0.05)               # unit 3 is in flight by then, waiting
            raise ZeroDivisionError("unit 2")
        if i < 2:
            return i
        deadline = time.monotonic() + 5
        while not cancel[0] and time.monotonic() < deadline:
            time.sleep(0.001)
        return i

    order = Ordered(1000, lambda i, r: False)
    t0 = time.monotonic()
    with pytest.raises(ZeroDivisionError, match="unit 2"):
        run_threads(order, 2, work)
    assert time.monotonic() - t0 < 4          # the other thread saw cancel, not its deadline
    assert order.cancel[0] == 1 and len(started) < 10


def test_processes_and_threads_share_one_order():
    """A front end runs some units in threads, the rest in processes: one merged result."""
    seen = []
    order = Ordered(9, lambda i, r: seen.append(r) and False)
    order.set_queue(i for i in range(9) if i % 3)
    run_threads(order, 2, lambda i, c: (i, threading.current_thread().name))
    order.set_queue(range(0, 9, 3))
    run_processes(order, 2, lambda i, c: (i, "process"))
    assert [r[0] for r in seen] == list(range(9))
    assert {r[1] for r in seen if r[0] % 3 == 0} == {"process"}


def test_progress_after_each_result_one_call_at_a_time():
    calls = []
    order = Ordered(20, lambda i, r: False, after=lambda i, r: calls.append(i))
    run_threads(order, 4, lambda i, c: i)
    assert sorted(calls) == list(range(20))


@pytest.mark.parametrize("cluster, address, exc, words", [
    ("dask", None, ValueError, "cluster must be None or 'ray'"),
    (None, "auto", ValueError, "address= needs cluster='ray'"),
    ("ray", 6379, TypeError, "address must be a str"),
])
def test_cluster_arguments(cluster, address, exc, words):
    with pytest.raises(exc, match=words):
        check_cluster(cluster, address)
    check_cluster("ray", "auto")

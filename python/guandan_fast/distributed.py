"""Running the engine on a Ray cluster (the optional ``ray`` extra; docs/distributed.md).

``run_on_ray`` is the Ray executor of the runner (python/guandan_fast/runner.py): the units of
a run (``simulate``'s blocks of consecutive matches, each task running the compiled simulation
with its own threads; ``tournament``'s jobs of deals) are Ray tasks, and their results are
merged in unit order by the front end. A match's course depends only on ``(seed, index)``, so
the merged result is the single-process one whatever the split, the order in which tasks
finish, or how often Ray retried a task whose worker died (a retry replays the same units;
only one attempt's result is ever returned).

Self-play rollouts: ``rollout_actors`` / ``collect``, the workers of ``guandan_fast.rollouts``
(``RolloutWorker``, ``LinearPolicy``, ``hand_returns``, re-exported here) as Ray actors; the
README shows a learner loop over N actors.

Ray is imported only when one of these functions runs: ``import guandan_fast`` never imports it.
"""

from __future__ import annotations

import contextlib
import os

from .rollouts import LinearPolicy, RolloutWorker, hand_returns  # noqa: F401  (re-exported)
from .validate import check_callable, check_count

__all__ = ["connected", "run_on_ray", "slots", "RolloutWorker", "LinearPolicy",
           "hand_returns", "rollout_actors", "collect"]

#: Tries of a task whose worker process died (node lost, OOM-killed, ...), after the first.
MAX_RETRIES = 3
#: Smallest default block: 64 matches is some 20 ms of work per task, well above the ~1-2 ms
#: a task costs Ray (bench/RESULTS.md, "Ray").
MIN_TASK_MATCHES = 64
#: Blocks per worker slot aimed at by the default block size: a slot idles for half a block
#: on average at the end of a run (about 3 % with 16), and a task costs ~1.5 ms CPU.
TASKS_PER_SLOT = 16
#: Tournament jobs (a few deals of one pair each, both seatings) per Ray task, at least.
MIN_TASK_JOBS = 8


def _import_ray():
    from .extras import require

    return require("ray", "ray", "cluster='ray' needs Ray")


@contextlib.contextmanager
def connected(address: str | None = None):
    """A Ray connection for the duration of the block: the existing one if this process has
    called ``ray.init`` (then ``address`` must be None), else ``ray.init(address)``, shut down
    on exit. ``address=None`` and no ``RAY_ADDRESS`` in the environment: a local cluster (head
    node and workers on this machine, no dashboard) for this block only.
    """
    ray = _import_ray()
    if ray.is_initialized():
        if address is not None:
            raise ValueError(f"address={address!r} given, but this process is already connected "
                             "to Ray; leave address=None to use that connection")
        yield ray
        return
    if address is None and not os.environ.get("RAY_ADDRESS"):
        ray.init(address="local", include_dashboard=False, log_to_driver=False)
    else:
        ray.init(address=address, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


#: Name of the connection's ``_Stops`` actor (in the job's own namespace).
STOPS_ACTOR = "guandan-fast-stops"


class _Stops:
    """The runs told to stop, a Ray actor (no CPU, one per connection, made at the first run):
    the driver calls ``stop(run)`` when a run ends early (Ctrl-C, a failed task, the hand
    target reached); the run's tasks still queued or running poll ``stopped(run)`` (``_Watch``)
    and return ``None`` within ``_Watch.POLL`` seconds.

    Why not ``ray.cancel``: cancelling a task races with its completion inside Ray (seen with
    Ray 2.60: the driver aborted with "Tried to complete task that was not pending"), so this
    module never cancels a task; its tasks stop themselves.
    """

    def __init__(self) -> None:
        self._runs: set[str] = set()

    def stop(self, run: str) -> None:
        self._runs.add(run)

    def stopped(self, run: str) -> bool:
        return run in self._runs


class _RunStop:
    """The driver's side of one run: ``run`` (an id for the tasks) and ``set()``."""

    _actors: dict = {}   # (job id, node id) -> the _Stops handle (held: the actor lives)

    def __init__(self, ray) -> None:
        import uuid

        # A job id alone does not name a connection: every new local cluster numbers its
        # jobs from 1 again, so a handle of a shut-down cluster would be reused (its tasks
        # then find no actor and stop). The driver's node id is new with each cluster.
        context = ray.get_runtime_context()
        job = (context.get_job_id(), context.get_node_id())
        if job not in self._actors:
            self._actors.clear()   # handles of an earlier connection are dead
            self._actors[job] = ray.remote(_Stops).options(
                name=STOPS_ACTOR, get_if_exists=True, num_cpus=0).remote()
            # Wait until the actor is up: a task's _Watch that looked it up before then
            # would find no actor, take the driver for gone and stop (seen under load).
            ray.get(self._actors[job].stopped.remote(""))
        self.actor = self._actors[job]
        self.run = uuid.uuid4().hex

    def set(self) -> None:
        self.actor.stop.remote(self.run)


class _Watch:
    """On a worker, for one task of ``run`` (None: never stops): a thread asking the
    connection's ``_Stops`` actor every ``POLL`` seconds, the first time ``POLL`` seconds in
    (a shorter task costs no call). ``cancel`` is the byte the compiled loops poll
    (``run_chunk(cancel=)``); Python loops check ``stopped``."""

    POLL = 0.1

    def __init__(self, ray, run) -> None:
        import threading

        self.cancel = bytearray(1)
        self._done = threading.Event()
        if run is not None:
            threading.Thread(target=self._poll, args=(ray, run), daemon=True,
                             name="guandan-stop-watch").start()

    @property
    def stopped(self) -> bool:
        return bool(self.cancel[0])

    def _poll(self, ray, run) -> None:
        actor = None
        while not self._done.wait(self.POLL):
            try:
                if actor is None:
                    actor = ray.get_actor(STOPS_ACTOR)
                if not ray.get(actor.stopped.remote(run)):
                    continue
            except Exception:  # the actor is gone: so is the driver that made it
                pass
            self.cancel[0] = 1
            return

    def close(self) -> None:
        self._done.set()


def _run_units(work, units, run):
    """Some units of a run, on a Ray worker: ``[work(i, cancel) for i in units]``, or
    ``None`` if ``run`` was stopped before they were done."""
    import ray

    watch = _Watch(ray, run)
    try:
        out = []
        for i in units:
            if watch.stopped:
                return None
            out.append(work(i, watch.cancel))
        return out
    except KeyboardInterrupt:
        if watch.stopped:
            return None
        raise
    finally:
        watch.close()


def slots(ray, cpus: int) -> int:
    """How many tasks of ``cpus`` CPUs the cluster runs at once (ValueError when no node has
    that many CPUs)."""
    node_cpus = max((n.get("Resources", {}).get("CPU", 0.0) for n in ray.nodes()
                     if n.get("Alive")), default=0.0)
    if cpus > node_cpus:
        raise ValueError(f"threads={cpus} per task, but the largest node of the Ray "
                         f"cluster has {node_cpus:g} CPUs")
    return max(1, int(ray.cluster_resources().get("CPU", 1) // cpus))


def run_on_ray(ray, order, work, cpus: int = 1, window: int | None = None,
               group: int = 1) -> None:
    """The Ray executor of ``runner.Ordered``: the units of ``order``, ``group`` per task
    (``cpus`` CPUs each), at most ``window`` units ahead of the last merged one (None: all
    at once); each task computes ``work(i, cancel)`` (``work``: picklable, shipped once) for
    its units and the results go to ``order.put`` as tasks finish (``order`` merges them in
    unit order, so the result is the one-machine result). When ``order`` stops (its merge
    asked to, Ctrl-C, a failed task), the tasks still queued or running stop themselves."""
    task = ray.remote(_run_units).options(num_cpus=cpus, max_retries=MAX_RETRIES,
                                          retry_exceptions=False)
    stopper = _RunStop(ray)
    work_ref = ray.put(work)
    pending: dict = {}      # ObjectRef -> its units
    submitted = 0
    try:
        while True:
            while window is None or submitted - order.merged < window:
                units = []
                while len(units) < group and (i := order.take()) is not None:
                    units.append(i)
                if not units:
                    break
                pending[task.remote(work_ref, units, stopper.run)] = units
                submitted += len(units)
            if not pending:
                break
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                units = pending.pop(ref)
                results = ray.get(ref)
                if results is None:  # only after stopper.set(), which ends this loop first
                    raise RuntimeError(f"units {units} stopped although the run goes on")
                for i, result in zip(units, results):
                    order.put(i, result)
            if order.done:
                break
    except BaseException:
        # Ctrl-C (or a failed task): nothing of this run keeps computing on the cluster.
        stopper.set()
        raise
    if pending:
        stopper.set()  # the units after the stop are not needed


# -- self-play rollouts (the actors; the workers are guandan_fast.rollouts) ----------------------

def rollout_actors(n: int, policy, num_envs: int, seed: int = 0, **env_kwargs) -> list:
    """``n`` Ray actors, each a ``RolloutWorker`` with its own ``VecEnv`` of ``num_envs``
    tables; actor ``k`` is seeded ``simulate_core.match_seed(seed, k)`` and asks Ray for
    ``threads`` CPUs (``env_kwargs``, default 1). Needs a Ray connection (``ray.init``).
    Collect with ``collect(actors, steps)``; update the policy with
    ``actor.set_policy.remote(ref)`` (``ref = ray.put(new_policy)``: shipped once).
    """
    from .simulate_core import match_seed

    ray = _import_ray()
    check_count(n, "n", 1)
    check_callable(policy, "policy")
    if not ray.is_initialized():
        raise RuntimeError("rollout_actors needs a Ray connection: call ray.init() first")
    cls = ray.remote(RolloutWorker).options(num_cpus=env_kwargs.get("threads", 1))
    ref = ray.put(policy)
    return [cls.remote(ref, num_envs, seed=match_seed(seed, k), **env_kwargs) for k in range(n)]


def collect(actors, steps: int) -> list:
    """One ``rollout(steps)`` from every actor, run in parallel: their dicts, actor by actor."""
    ray = _import_ray()
    return ray.get([a.rollout.remote(steps) for a in actors])

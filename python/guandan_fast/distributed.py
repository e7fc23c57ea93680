"""Running the engine on a Ray cluster (the optional ``ray`` extra; docs/distributed.md).

``simulate(..., cluster='ray')`` (``guandan-fast simulate --ray [ADDRESS]``) lands in
``simulate_on_ray`` below: the run's match indices are cut into blocks of consecutive matches,
one Ray task per block, each task running the compiled simulation with its own threads. A
match's course depends only on ``(seed, index)``, and the counters are sums (and one maximum),
so the merged result is the single-process one whatever the split, the order in which tasks
finish, or how often Ray retried a task whose worker died (a retry replays the same block; only
one attempt's result is ever returned).

``tournament(..., cluster='ray')`` lands in ``tournament_on_ray`` the same way (units of deals).

Self-play rollouts: ``RolloutWorker`` (a ``VecEnv`` and a picklable numpy policy, returning
trajectories as numpy arrays), ``rollout_actors`` / ``collect`` (the same as Ray actors),
``LinearPolicy``, ``hand_returns``; the README shows a learner loop over N actors.

Ray is imported only when one of these functions runs: ``import guandan_fast`` never imports it.
"""

from __future__ import annotations

import contextlib
import os

from .validate import check_callable, check_count

__all__ = ["connected", "simulate_on_ray", "tournament_on_ray", "RolloutWorker", "LinearPolicy",
           "hand_returns", "rollout_actors", "collect"]

#: Tries of a task whose worker process died (node lost, OOM-killed, ...), after the first.
MAX_RETRIES = 3
#: Smallest default block: 64 matches is some 20 ms of work per task, well above the ~1-2 ms
#: a task costs Ray (bench/RESULTS.md, "Ray").
MIN_TASK_MATCHES = 64
#: Blocks per worker slot aimed at by the default block size: a slot idles for half a block
#: on average at the end of a run (about 3 % with 16), and a task costs ~1.5 ms CPU.
TASKS_PER_SLOT = 16


def _import_ray():
    try:
        import ray
    except ImportError:  # pragma: no cover - the test command installs every extra
        raise ImportError("cluster='ray' needs Ray: pip install 'guandan-fast[ray]'") from None
    return ray


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

    _actors: dict = {}   # job id -> the _Stops handle (kept: the actor lives while it is held)

    def __init__(self, ray) -> None:
        import uuid

        job = ray.get_runtime_context().get_job_id()
        if job not in self._actors:
            self._actors.clear()   # handles of an earlier connection are dead
            self._actors[job] = ray.remote(_Stops).options(
                name=STOPS_ACTOR, get_if_exists=True, num_cpus=0).remote()
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


def _simulate_task(start, stop, seed, kinds, rules, threads, hand_budget, record, search,
                   run):
    """One block, on a Ray worker: ``(record lines or None, counters)`` of matches
    ``start .. stop-1`` (at most ``hand_budget`` hands when given, like ``run_chunk``), or
    ``None`` if ``run`` was stopped before the block was done."""
    import ray

    from . import simulate_core as core
    from .simulate import _record_range, _run_chunks

    watch = _Watch(ray, run)
    try:
        if record:
            return _record_range(core, start, stop, seed, kinds, rules, hand_budget, search,
                                 cancel=watch.cancel)
        if hand_budget is not None:
            return None, core.run_chunk(start, stop, seed, kinds, rules,
                                        hand_budget=hand_budget, search=search,
                                        cancel=watch.cancel)
        return None, _run_chunks(core, stop, None, kinds, seed, rules, threads, None, search,
                                 start=start, cancel=watch.cancel)
    except KeyboardInterrupt:
        if watch.stopped:
            return None
        raise
    finally:
        watch.close()


def _largest_node_cpus(ray) -> float:
    return max((n.get("Resources", {}).get("CPU", 0.0) for n in ray.nodes() if n.get("Alive")),
               default=0.0)


def simulate_on_ray(matches, hands, kinds, seed, rules, threads, record, progress, address,
                    task_matches, search) -> dict:
    """The counters of ``simulate(...)`` (arguments already checked by it), computed by Ray
    tasks; records (when ``record`` is a path) written in match order by this process."""
    from .simulate import CHUNK, _add, _empty

    out = None
    try:
        with connected(address) as ray:
            node_cpus = _largest_node_cpus(ray)
            if threads > node_cpus:
                raise ValueError(f"threads={threads} per task, but the largest node of the Ray "
                                 f"cluster has {node_cpus:g} CPUs")
            if record is not None:  # opened (truncated) only once the run can start
                from .records import RecordWriter

                out = RecordWriter(record, "record")
            slots = max(1, int(ray.cluster_resources().get("CPU", 1) // threads))
            if task_matches is None:
                # Hands mode: a match has 4 hands or more (4-2-1 upgrades), so hands // 4 + 1
                # matches always suffice; only the block size depends on this estimate.
                need = matches if matches is not None else hands // 4 + 1
                per = -(-need // (TASKS_PER_SLOT * slots))
                task_matches = max(MIN_TASK_MATCHES, -(-per // CHUNK) * CHUNK)
            task = ray.remote(_simulate_task).options(
                num_cpus=threads, max_retries=MAX_RETRIES, retry_exceptions=False)
            args = (seed, kinds, rules, threads)
            stopper = _RunStop(ray)
            return _drive(ray, task, args, search, matches, hands, out, progress,
                          task_matches, TASKS_PER_SLOT * slots, stopper, _add, _empty)
    finally:
        if out is not None:
            out.close()


def _drive(ray, task, args, search, matches, hands, out, progress, size, window, stopper, _add,
           _empty) -> dict:
    """Submit blocks 0, 1, 2, ... (at most ``window`` ahead of the first unmerged one), merge
    their results in block order, and in hands mode stop at the block that reaches the hand
    target and replay it with the remaining budget, as the single-process run does."""
    n_blocks = None if matches is None else -(-matches // size)
    record = out is not None

    def bounds(k: int) -> tuple[int, int]:
        a = k * size
        return a, a + size if matches is None else min(a + size, matches)

    total = _empty()
    pending: dict = {}      # ObjectRef -> block index
    finished: dict = {}     # block index -> (lines, counters), not merged yet
    merged = 0              # blocks 0 .. merged-1 are in total
    done_matches = 0        # matches of all finished blocks (progress)
    last_block = None       # hands mode: (block, hand budget) of the block reaching the target
    submitted = 0
    try:
        while True:
            while (last_block is None and submitted - merged < window
                   and (n_blocks is None or submitted < n_blocks)):
                a, b = bounds(submitted)
                ref = task.remote(a, b, *args, None, record, search, stopper.run)
                pending[ref] = submitted
                submitted += 1
            if not pending:
                break
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                k = pending.pop(ref)
                finished[k] = ray.get(ref)
                if finished[k] is None:  # only after stopper.set(), which ends this loop first
                    raise RuntimeError(f"block {k} stopped although the run goes on")
                done_matches += finished[k][1]["matches"]
            while merged in finished:
                lines, stats = finished.pop(merged)
                if hands is not None and total["hands"] + stats["hands"] >= hands:
                    last_block = (merged, hands - total["hands"])
                    break
                _add(total, stats)
                if out is not None:
                    for line in lines:
                        out.line(line)
                merged += 1
            if last_block is not None:
                stopper.set()  # the blocks after it are not needed
                pending.clear()
                break
            if progress is not None:
                progress(done_matches if hands is None else total["hands"])
        if last_block is not None:
            a, b = bounds(last_block[0])
            lines, stats = ray.get(task.remote(a, b, *args, last_block[1], record, search,
                                               None))
            _add(total, stats)
            if out is not None:
                for line in lines:
                    out.line(line)
            if progress is not None:
                progress(total["hands"])
    except BaseException:
        # Ctrl-C (or a failed task): nothing of this run keeps computing on the cluster.
        stopper.set()
        raise
    return total


#: Tournament jobs (4 deals of one pair each, both seatings) per Ray task, at least.
MIN_TASK_JOBS = 8


def _tournament_task(seed, rules, pairs, jobs, run):
    """Some tournament jobs ``(pair index, first deal, end deal)``, on a Ray worker: their
    outcome rows, job by job; ``None`` if ``run`` was stopped first."""
    import ray

    from .tournament import _job_compiled, _job_python

    watch = _Watch(ray, run)
    try:
        out = []
        for pi, d0, d1 in jobs:
            if watch.stopped:
                return None
            pair = pairs[pi]
            job = _job_compiled if all(a.kind is not None for a in pair) else _job_python
            out.append(job(seed, pair, d0, d1, rules))
        return out
    finally:
        watch.close()


def tournament_on_ray(col, pairs, seed, rules, address) -> None:
    """Play every job of ``tournament()``'s collector ``col`` as Ray tasks (consecutive jobs
    grouped, one CPU each) and hand their rows to ``col.put``; rows are kept by job index, so
    the result is the one-machine result."""
    with connected(address) as ray:
        slots = max(1, int(ray.cluster_resources().get("CPU", 1)))
        n = len(col.jobs)
        size = max(MIN_TASK_JOBS, -(-n // (TASKS_PER_SLOT * slots)))
        task = ray.remote(_tournament_task).options(
            num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=False)
        pairs_ref = ray.put(pairs)   # agents shipped once, not once per task
        stopper = _RunStop(ray)
        pending: dict = {}
        try:
            for k in range(0, n, size):
                js = list(range(k, min(k + size, n)))
                pending[task.remote(seed, rules, pairs_ref, [col.jobs[j] for j in js],
                                    stopper.run)] = js
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    js = pending.pop(ref)
                    for j, rows in zip(js, ray.get(ref)):
                        col.put(j, rows)
        except BaseException:
            stopper.set()  # the tasks still queued or running stop themselves
            raise


# -- self-play rollouts -----------------------------------------------------------------------------

class LinearPolicy:
    """A picklable numpy policy for ``VecEnv`` batches: softmax over the legal actions of
    ``obs @ weights`` (``weights``: ``float32[D, N_ACTIONS]``, ``D`` the encoder's size); with
    ``greedy=True`` the highest legal logit instead of a sample.

    >>> import numpy as np
    >>> pol = LinearPolicy(np.zeros((3, 4), np.float32))
    >>> mask = np.array([[False, True, False, True]])
    >>> int(pol(np.ones((1, 3), np.float32), mask, np.random.default_rng(0))[0]) in (1, 3)
    True
    """

    def __init__(self, weights, greedy: bool = False) -> None:
        import numpy as np

        w = np.asarray(weights, dtype=np.float32)
        if w.ndim != 2:
            raise ValueError(f"weights must be a 2-d array [D, N_ACTIONS], got shape {w.shape}")
        self.weights, self.greedy = w, bool(greedy)

    def __call__(self, obs, mask, rng):
        import numpy as np

        logits = obs @ self.weights
        logits = np.where(mask, logits, -np.inf)
        if not self.greedy:
            # Gumbel-max: argmax(logits + Gumbel noise) is a softmax sample.
            logits = logits + rng.gumbel(size=logits.shape).astype(np.float32)
        return np.argmax(logits, axis=1).astype(np.int32)


class RolloutWorker:
    """A ``VecEnv`` and a policy: ``rollout(steps)`` collects ``steps`` decisions of every
    table as numpy arrays. Used as it is in one process, or as a Ray actor through
    ``rollout_actors``.

    ``policy(obs, mask, rng) -> actions``: a picklable callable (numpy) taking the batch's
    ``obs float32[B, D]`` and ``mask bool[B, N_ACTIONS]`` and this worker's
    ``numpy.random.Generator`` (seeded from ``seed``), returning ``B`` legal action ids.
    ``env_kwargs`` go to ``VecEnv`` (``learners``, ``opponents``, ``encoder``, ``rules``,
    ``threads``); the action mode is ``'abstract'``.

    ``rollout(steps)`` returns a dict of arrays, ``T = steps`` rows per table (table ``b`` is
    column ``b``): ``obs float32[T, B, D]``, ``mask bool[T, B, N_ACTIONS]``,
    ``actions int32[T, B]``, ``seat int8[T, B]`` (the learner who acted), ``phase int8[T, B]``,
    ``rewards float32[T, B, 4]`` (per seat, the rewards of the hands of table ``b`` that ended
    while step ``t`` was applied: the action and the bots' moves up to the next learner
    decision; docs/learning.md's convention), ``hand_over`` and ``match_over bool[T, B]``.
    Rollouts continue where the previous one stopped (hands and matches run across them).
    """

    def __init__(self, policy, num_envs: int, seed: int = 0, **env_kwargs) -> None:
        import numpy as np

        from . import VecEnv

        check_callable(policy, "policy")
        if env_kwargs.get("action_mode", "abstract") != "abstract":
            raise ValueError("RolloutWorker plays the abstract action space: action_mode must "
                             f"be 'abstract', got {env_kwargs['action_mode']!r}")
        self.env = VecEnv(num_envs, seed=seed, **env_kwargs)
        self.policy = policy
        self.rng = np.random.default_rng(seed & 0xFFFFFFFFFFFFFFFF)
        self.batch = self.env.reset()

    def set_policy(self, policy) -> None:
        """Replace the policy (new weights); the environments go on as they are."""
        check_callable(policy, "policy")
        self.policy = policy

    def rollout(self, steps: int) -> dict:
        import numpy as np

        check_count(steps, "steps", 1)
        b = self.batch
        n, d = b.obs.shape
        out = {
            "obs": np.empty((steps, n, d), np.float32),
            "mask": np.empty((steps,) + b.mask.shape, np.bool_),
            "actions": np.empty((steps, n), np.int32),
            "seat": np.empty((steps, n), np.int8),
            "phase": np.empty((steps, n), np.int8),
            "rewards": np.zeros((steps, n, 4), np.float32),
            "hand_over": np.zeros((steps, n), np.bool_),
            "match_over": np.zeros((steps, n), np.bool_),
        }
        for t in range(steps):
            b = self.batch
            # The batch's arrays are views valid until the next step: copied first.
            out["obs"][t] = b.obs
            out["mask"][t] = b.mask
            out["seat"][t] = b.seat
            out["phase"][t] = b.phase
            actions = np.asarray(self.policy(b.obs, b.mask, self.rng))
            if actions.shape != (n,) or actions.dtype.kind not in "iu":
                raise ValueError(f"policy must return {n} integer action ids (shape ({n},)), "
                                 f"got shape {actions.shape} of {actions.dtype}")
            self.env.step(actions)
            out["actions"][t] = actions
            self.batch = self.env.pending()
            res = self.env.drain_results()
            env_id = np.asarray(res["env_id"], dtype=np.intp)
            if env_id.size:
                np.add.at(out["rewards"][t], env_id, res["reward"])
                out["hand_over"][t, env_id] = True
                out["match_over"][t, env_id[np.asarray(res["match_over"], bool)]] = True
        return out


def hand_returns(traj: dict):
    """``float32[T, B]``: for each decision, the reward its seat received at the end of the
    hand it was made in (NaN when that hand had not ended by the rollout's last step): the
    Monte-Carlo return DanZero trains on.

    >>> import numpy as np
    >>> traj = {"seat": np.array([[0], [1], [0]], np.int8),
    ...         "hand_over": np.array([[False], [True], [False]]),
    ...         "rewards": np.array([[[0, 0, 0, 0]], [[2, -2, 2, -2]], [[0, 0, 0, 0]]],
    ...                             np.float32)}
    >>> hand_returns(traj)[:, 0].tolist()
    [2.0, -2.0, nan]
    """
    import numpy as np

    seat, over, rewards = traj["seat"], traj["hand_over"], traj["rewards"]
    steps, n = seat.shape
    out = np.full((steps, n), np.nan, np.float32)
    cur = np.full((n, 4), np.nan, np.float32)
    cols = np.arange(n)
    for t in range(steps - 1, -1, -1):
        cur[over[t]] = rewards[t][over[t]]
        out[t] = cur[cols, seat[t]]
    return out


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

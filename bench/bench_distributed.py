"""Cost of distribution: matches per second in one process vs on a local Ray cluster with the
same CPUs, and Ray's cost per task (figures in bench/RESULTS.md, "Ray").

Run:

    .venv/bin/python -m pytest bench/bench_distributed.py --benchmark-enable --benchmark-only \
        -p no:randomly -s

The cluster (``GF_BENCH_CPUS`` CPUs, default 2, the machine's) is started once, outside the
timings. Runs are measured alternately so that both sides see the same background load, and
medians are quoted. Besides wall time, CPU time is counted: this process plus every process
it started (Ray's GCS server, raylet, workers), from /proc, so the overhead can be read on a
busy machine too. ``GF_BENCH_MATCHES`` (default 10000) and ``GF_BENCH_ROUNDS`` (5) size runs.

Takes a few minutes (the local cluster starts once, in 5-10 s).
"""

import os
import statistics
import time

import pytest
import ray

from guandan_fast.simulate import simulate

CPUS = int(os.environ.get("GF_BENCH_CPUS", "2"))
MATCHES = int(os.environ.get("GF_BENCH_MATCHES", "10000"))
ROUNDS = int(os.environ.get("GF_BENCH_ROUNDS", "5"))
AGENTS = ("greedy", "random", "greedy", "random")
TICK = os.sysconf("SC_CLK_TCK")


def _cpu_seconds() -> float:
    """CPU time of this process and all its living descendants, their reaped children's
    included (utime + stime + cutime + cstime, Linux /proc): a worker that exits between two
    readings moves its time to its parent's cutime instead of losing it."""
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stats[int(name)] = fields
        children.setdefault(int(fields[1]), []).append(int(name))
    total, todo = 0, [os.getpid()]
    while todo:
        pid = todo.pop()
        if pid in stats:
            total += sum(int(x) for x in stats[pid][11:15])
        todo.extend(children.get(pid, ()))
    return total / TICK


@pytest.fixture(scope="module")
def cluster():
    # Idle workers are kept: Ray's raylet does not account for the CPU time of the workers it
    # kills (SIGCHLD ignored), which would vanish from the CPU counts below.
    os.environ["RAY_kill_idle_workers_interval_ms"] = "0"
    t0 = time.perf_counter()
    ray.init(address="local", num_cpus=CPUS, include_dashboard=False, log_to_driver=False)
    print(f"\nRay local cluster start: {time.perf_counter() - t0:.2f} s")
    simulate(matches=64, cluster="ray")  # workers started and the function exported
    c0, t0 = _cpu_seconds(), time.perf_counter()
    time.sleep(5)
    idle = (_cpu_seconds() - c0) / (time.perf_counter() - t0)
    print(f"idle cluster: {idle:.3f} CPU-s per second (Ray's own processes)")
    try:
        yield
    finally:
        ray.shutdown()
        del os.environ["RAY_kill_idle_workers_interval_ms"]


def _measure(n, seed, **kwargs) -> tuple[float, float, float]:
    """(wall s, CPU s of every process, CPU s of this driver process alone)."""
    c0, d0, t0 = _cpu_seconds(), time.process_time(), time.perf_counter()
    res = simulate(matches=n, agents=AGENTS, seed=seed, **kwargs)
    wall, driver = time.perf_counter() - t0, time.process_time() - d0
    cpu = _cpu_seconds() - c0
    assert res.matches == n
    return wall, cpu, driver


def test_one_process_vs_ray(benchmark, cluster):
    """One process with CPUS threads; Ray with 1-thread tasks (CPUS slots, default block
    size); Ray with CPUS-thread tasks (one slot)."""
    runs = {"one process": dict(threads=CPUS),
            "ray, 1-thread tasks": dict(cluster="ray", threads=1),
            f"ray, {CPUS}-thread tasks": dict(cluster="ray", threads=CPUS)}
    walls = {name: [] for name in runs}
    cpus = {name: [] for name in runs}

    def all_three():
        for name, kwargs in runs.items():
            wall, cpu, _ = _measure(MATCHES, 7, **kwargs)
            walls[name].append(wall)
            cpus[name].append(cpu)

    benchmark.pedantic(all_three, rounds=ROUNDS, iterations=1)
    base_wall = statistics.median(walls["one process"])
    base_cpu = statistics.median(cpus["one process"])
    for name in runs:
        wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
        benchmark.extra_info[name] = round(MATCHES / wall)
        print(f"\n{name:>22}: {MATCHES / wall:7,.0f} matches/s ({base_wall / wall:.2f}x), "
              f"{cpu:.2f} CPU-s ({cpu / base_cpu:.3f}x); medians of {ROUNDS}")


def test_cost_per_task(benchmark, cluster):
    """The same 2000 matches as 1000 tasks of 2 and as CPUS tasks: the difference over the
    extra tasks is what one task costs (submission, scheduling, result, driver loop)."""
    n = 2000
    small, large = [], []

    def both():
        for size, out in ((2, small), (n // CPUS, large)):
            out.append(_measure(n, 3, cluster="ray", task_matches=size))

    benchmark.pedantic(both, rounds=ROUNDS, iterations=1)
    extra = n // 2 - CPUS

    def per_task(i):
        diff = statistics.median(r[i] for r in small) - statistics.median(r[i] for r in large)
        return 1000 * diff / extra

    wall, cpu, driver = per_task(0), per_task(1), per_task(2)
    benchmark.extra_info.update(wall_ms_per_task=wall, cpu_ms_per_task=cpu,
                                driver_cpu_ms_per_task=driver)
    print(f"\nper extra task: {wall:.2f} ms wall ({CPUS} slots), {cpu:.2f} ms CPU (all "
          f"processes), {driver:.2f} ms CPU in the driver; medians of {ROUNDS}")


@pytest.mark.parametrize("policy", ["first_legal", "linear"])
def test_rollout_decisions_per_second(benchmark, cluster, policy):
    """Decisions per second collected: one RolloutWorker in this process (64 tables) vs
    CPUS Ray actors of 64 / CPUS tables each, 200 steps per rollout, returned to the learner.
    Run with OPENBLAS_NUM_THREADS=1 (as Ray sets it in its 1-CPU workers): a multi-threaded
    BLAS in this process would make the comparison one of BLAS threading on a loaded machine."""
    import numpy as np

    from guandan_fast.actions import N_ACTIONS
    from guandan_fast.distributed import LinearPolicy, RolloutWorker, collect, rollout_actors
    from guandan_fast.observe import OBS_SIZE

    if policy == "linear":
        pol = LinearPolicy(np.random.default_rng(0).normal(size=(OBS_SIZE, N_ACTIONS))
                           .astype(np.float32) * 0.01)
    else:  # the cheapest policy (the plumbing's cost); a lambda travels by value
        pol = lambda obs, mask, rng: mask.argmax(axis=1).astype(np.int32)  # noqa: E731
    steps, tables = 200, 64
    local = RolloutWorker(pol, tables, seed=1)
    actors = rollout_actors(CPUS, pol, num_envs=tables // CPUS, seed=1)
    collect(actors, 1)  # actors constructed
    one, ray_t = [], []

    def both():
        t0 = time.perf_counter()
        local.rollout(steps)
        one.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        collect(actors, steps)
        ray_t.append(time.perf_counter() - t0)

    benchmark.pedantic(both, rounds=ROUNDS, iterations=1)
    for a in actors:
        ray.kill(a)
    n = steps * tables
    a, b = n / statistics.median(one), n / statistics.median(ray_t)
    benchmark.extra_info.update(one_process=round(a), ray_actors=round(b))
    print(f"\nrollouts, {policy} policy: one process {a:,.0f} decisions/s, {CPUS} actors "
          f"{b:,.0f} decisions/s ({b / a:.2f}x); medians of {ROUNDS}")

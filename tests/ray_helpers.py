"""Worker-side helpers of tests/test_distributed.py (importable on the Ray workers: the test
cluster puts tests/ on their PYTHONPATH).

``install``, run in every Ray worker process of the test cluster (its
``worker_process_setup_hook``), injects a fault: while the file named by ``GF_TEST_KILL_ARM`` exists, the next ``run_chunk`` (simulate) or
``play_matches`` (tournament) call in any worker removes it (an atomic unlink: exactly one caller wins) and kills its own process without any
clean-up, as a crashed or OOM-killed worker would die: mid-task, no result returned.
"""

import os


def install() -> None:
    from guandan_fast import simulate_core, tournament_core

    arm = os.environ["GF_TEST_KILL_ARM"]

    def dying(function):
        def wrapper(*args, **kwargs):
            try:
                os.unlink(arm)
            except FileNotFoundError:
                return function(*args, **kwargs)
            os._exit(1)

        return wrapper

    simulate_core.run_chunk = dying(simulate_core.run_chunk)
    tournament_core.play_matches = dying(tournament_core.play_matches)


def first_legal(observation, legal_moves):
    """A deterministic Python agent for tournaments: the first legal move."""
    return legal_moves[0]

"""Fault injection for tests/test_distributed.py, run in every Ray worker process of the test
cluster (its ``worker_process_setup_hook``).

While the file named by ``GF_TEST_KILL_ARM`` exists, the next ``run_chunk`` call in any worker
removes it (an atomic unlink: exactly one caller wins) and kills its own process without any
clean-up, as a crashed or OOM-killed worker would die: mid-task, no result returned.
"""

import os


def install() -> None:
    from guandan_fast import simulate_core as core

    arm = os.environ["GF_TEST_KILL_ARM"]
    run_chunk = core.run_chunk

    def dying_run_chunk(*args, **kwargs):
        try:
            os.unlink(arm)
        except FileNotFoundError:
            return run_chunk(*args, **kwargs)
        os._exit(1)

    core.run_chunk = dying_run_chunk

"""A second Ray connection in the same process (``ray.shutdown()`` then ``ray.init()``) runs
as the first (with tasks long enough to ask the stop actor): every new local cluster numbers its jobs from 1 again, so nothing of the first
connection (its stop actor) may be taken for the second's.
"""

import pytest
import ray

import guandan_fast as gf

pytestmark = [pytest.mark.ray, pytest.mark.xdist_group("ray")]


def test_a_run_after_reconnecting_equals_one_process():
    if ray.is_initialized():    # the other Ray tests' connection
        ray.shutdown()
    expected = gf.simulate(matches=200, seed=3)
    for _ in range(2):
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            assert gf.simulate(matches=200, seed=3, cluster="ray", task_matches=100) == expected
        finally:
            ray.shutdown()

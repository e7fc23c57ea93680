"""Type stubs of the compiled module src/guandan_fast/vecenv.pyx,
written by hand from its signatures (tests/test_package.py checks that they name every public
name of the module); the module docstrings say what each takes and returns."""

from typing import Any, NamedTuple

from collections import namedtuple as namedtuple
from guandan_fast.moves import IllegalMoveError as IllegalMoveError
from guandan_fast.rules import Rules as Rules

MAX_ENVS: int

class Batch(NamedTuple):
    obs: Any
    mask: Any
    cand_offsets: Any
    cand_ids: Any
    cand_words: Any
    cand_cards: Any
    env_id: Any
    seat: Any
    phase: Any

class VecEnv:
    def __init__(self, num_envs: int, *, seed: int, rules: Rules = ..., threads: int = 1,
                 learners: Any = (0, 1, 2, 3), opponents: str = "greedy",
                 encoder: str | None = "default", action_mode: str = "abstract",
                 adapt_threads: bool = True, auto_pass: bool = False) -> None: ...
    def reset(self) -> Any: ...
    def pending(self) -> Any: ...
    def step(self, actions: Any) -> Any: ...
    def drain_results(self) -> Any: ...
    def match_seed(self, env_id: Any) -> Any: ...
    def fork(self, env_id: Any, n: Any) -> Any: ...
    @property
    def num_envs(self) -> Any: ...
    @property
    def threads(self) -> Any: ...
    @property
    def threads_in_use(self) -> int: ...
    @property
    def obs_size(self) -> Any: ...
    @property
    def _last_region_seconds(self) -> float: ...

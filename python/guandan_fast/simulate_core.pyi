"""Type stubs of the compiled simulation loop (src/guandan_fast/simulate_core.pyx)."""

from typing import Any, Sequence

import numpy as np
import numpy.typing as npt

from .rules import Rules as Rules

AGENT_CODES: dict[str, int]

def match_seed(seed: int, i: int) -> int: ...
def run_chunk(start: int, stop: int, seed: int, kinds: Sequence[int], rules: Rules = ...,
              hand_budget: int | None = None) -> dict[str, Any]: ...
def record_match(seed: int, i: int, kinds: Sequence[int], rules: Rules = ...,
                 hand_budget: int | None = None
                 ) -> tuple[int, npt.NDArray[np.uint64], dict[str, Any]]: ...
def rules_check(rules: Rules) -> None: ...

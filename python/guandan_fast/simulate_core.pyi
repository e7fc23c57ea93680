"""Type stubs of the compiled simulation loop (src/guandan_fast/simulate_core.pyx)."""

from typing import Any, Sequence

import numpy as np
import numpy.typing as npt

from .rules import Rules as Rules

AGENT_CODES: dict[str, int]

def match_seed(seed: int, i: int) -> int: ...
_Search = Sequence[tuple[str, dict[str, Any]] | None] | None

def run_chunk(start: int, stop: int, seed: int, kinds: Sequence[int], rules: Rules = ...,
              hand_budget: int | None = None, search: _Search = None,
              cancel: Any = None) -> dict[str, Any]: ...
def record_match(seed: int, i: int, kinds: Sequence[int], rules: Rules = ...,
                 hand_budget: int | None = None, search: _Search = None
                 ) -> tuple[int, npt.NDArray[np.uint64], dict[str, Any]]: ...
def record_chunk(start: int, stop: int, seed: int, kinds: Sequence[int],
                 headers: Sequence[bytes], rules: Rules = ..., hand_budget: int | None = None,
                 search: _Search = None, cancel: Any = None
                 ) -> tuple[bytes, dict[str, Any]]: ...

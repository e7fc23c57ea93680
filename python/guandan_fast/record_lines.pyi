"""Type stubs of the compiled record line writer (src/guandan_fast/record_lines.pyx)."""

from typing import Any

def hand_lines(game: Any, log: Any) -> bytes: ...

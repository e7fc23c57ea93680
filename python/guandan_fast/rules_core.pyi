"""Type stubs of the Rules conversion for the compiled core (src/guandan_fast/rules_core.pyx)."""

from .cards import KIND_OF as KIND_OF
from .rules import CHOICES as CHOICES, Rules as Rules

def rules_check(rules: Rules) -> None: ...

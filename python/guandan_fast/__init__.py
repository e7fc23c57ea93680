"""guandan-fast: an exact, fast rules engine for Guandan (掼蛋).

>>> import guandan_fast as gf
>>> gf.parse_cards('♥7 S8')
('H7', 'S8')
"""

from .cards import parse_cards, parse_level
from .moves import PASS, IllegalMoveError, Move
from .rules import Rules
from .simulate import SimulationResult, simulate  # the function shadows the submodule's name

__all__ = ["Move", "PASS", "IllegalMoveError", "Rules", "parse_cards", "parse_level",
           "simulate", "SimulationResult"]
__version__ = "0.1.0"

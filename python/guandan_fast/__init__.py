"""guandan-fast: an exact, fast rules engine for Guandan (掼蛋).

>>> import guandan_fast as gf
>>> gf.parse_cards('♥7 S8')
('H7', 'S8')
"""

from .cards import parse_cards, parse_level
from .moves import PASS, IllegalMoveError, Move
from .rules import Rules

__all__ = ["Move", "PASS", "IllegalMoveError", "Rules", "parse_cards", "parse_level"]
__version__ = "0.1.0"

"""guandan-fast: an exact, fast rules engine for Guandan (掼蛋).

The friendly API lives here; the compiled modules behind it are named in docs/design.md
("Pieces"): ``movegen`` (move generation from Python) over ``movegen_core`` (the generator),
``game`` (the ``Game`` class) over ``game_core`` (the state machine), ``bots``,
``simulate_core`` and others; the plain-Python oracle is ``guandan_fast.reference``.

>>> import guandan_fast as gf
>>> gf.parse_cards('♥7 S8')
('H7', 'S8')
>>> sorted(str(m) for m in gf.legal_moves('S8 C8 H7', level=7) if m.type == 'Pair')
['Pair 8 H7 C8', 'Pair 8 H7 S8', 'Pair 8 S8 C8']
"""

from .cards import parse_cards, parse_level
from .game import Game
from .movegen import Hand, MoveList, beats, can_follow, classify, count_moves, legal_moves
from .moves import PASS, IllegalMoveError, Move
from .rules import Rules
from .simulate import SimulationResult, simulate  # the function shadows the submodule's name
from .tournament import TournamentResult, tournament  # likewise
from .solve import Solution, solve  # the exact endgame solver (docs/search.md)
from . import actions, observe  # learning interface (docs/learning.md)
from . import agents  # every agent by name: the table and the spec parser
from .agents import parse_agent
from .vecenv import VecEnv

__all__ = ["Move", "PASS", "IllegalMoveError", "Rules", "parse_cards", "parse_level",
           "Hand", "MoveList", "legal_moves", "count_moves", "can_follow", "classify", "beats", "Game",
           "simulate", "SimulationResult"]
__all__ += ["solve", "Solution"]  # search backend (docs/search.md)
__all__ += ["tournament", "TournamentResult"]  # duplicate tournament (docs/tournament.md)
__all__ += ["VecEnv"]  # learning interface (docs/learning.md)
__all__ += ["parse_agent"]  # agent specs (guandan_fast.agents)
__version__ = "0.1.0"  # the one version number: pyproject.toml reads it from here


def __getattr__(name):
    # ``gf.reference`` without importing the slow oracle at package import time.
    if name == "reference":
        import importlib

        return importlib.import_module(".reference", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

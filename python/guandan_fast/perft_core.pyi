"""Type stubs of the compiled perft and random playouts (src/guandan_fast/perft_core.pyx)."""

from .game import Game
from .moves import Move

def perft_game(game: Game, depth: int, per_move: bool = False,
               compact: bool = False) -> int | dict[Move, int]: ...
def random_playout(game: Game, max_steps: int, seed: int = 0,
                   compact: bool = False) -> tuple[int, int | None]: ...

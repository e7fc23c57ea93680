"""Shared fixtures: every rules test runs against each implementation listed here."""

import importlib

import pytest

# name -> module providing classify / beats / legal_moves (same signatures and results).
MOVE_ENGINES = ["guandan_fast.reference", "guandan_fast.movegen"]
# name -> module providing a Game class with the API of docs/design.md.
GAME_ENGINES = ["guandan_fast.reference", "guandan_fast.game"]


@pytest.fixture(params=MOVE_ENGINES)
def engine(request):
    """A move engine: ``engine.classify``, ``engine.beats``, ``engine.legal_moves``."""
    return importlib.import_module(request.param)


@pytest.fixture(params=GAME_ENGINES)
def game_cls(request):
    """A ``Game`` class (reference or compiled)."""
    return importlib.import_module(request.param).Game

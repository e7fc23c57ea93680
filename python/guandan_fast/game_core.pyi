"""The compiled game state machine (src/guandan_fast/game_core.pyx): a C-level interface
(game_core.pxd) only, no Python names."""

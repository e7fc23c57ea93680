"""The compiled move generator (src/guandan_fast/movegen_core.pyx): a C-level interface
(movegen_core.pxd) only, no Python names."""

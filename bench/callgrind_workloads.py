"""Fixed workloads for callgrind instruction counts (bench/RESULTS.md, "Hardening"):
``python bench/callgrind_workloads.py NAME K`` runs workload NAME K times; the cost of one
repetition is count(K=2) - count(K=1), which cancels start-up and imports."""
import sys
from guandan_fast.game import Game, perft_game, random_playout
from guandan_fast import simulate_core as core, legal_moves, Move
name, k = sys.argv[1], int(sys.argv[2])
for rep in range(k):
    if name == "sim":
        core.run_chunk(0, 50, 0, (0, 0, 0, 0))
    elif name == "simgreedy":
        core.run_chunk(0, 50, 0, (2, 2, 2, 2))
    elif name == "perft":
        perft_game(Game(seed=0), 3)
    elif name == "playout":
        for s in range(50):
            random_playout(Game(seed=s), 10**9, seed=s)
    elif name == "api":
        for s in range(3):
            g = Game(seed=s)
            while not g.is_over:
                ms = g.legal_moves()
                g.play(ms[len(ms) // 2])
    elif name == "free":
        last = Move('Pair', '8', 'S8 D8')
        h = 'S3 C3 D9 H7 S9 C9 H9 SK DK HA SA'
        for i in range(10000):
            legal_moves(h, 7, last=last)

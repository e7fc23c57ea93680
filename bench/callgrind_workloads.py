"""Fixed workloads for callgrind instruction counts (bench/RESULTS.md, "Hardening"):
``python bench/callgrind_workloads.py NAME K`` runs workload NAME K times; the cost of one
repetition is count(K=2) - count(K=1), which cancels start-up and imports."""
import sys
from guandan_fast.game import Game, perft_game, random_playout  # perft_core's, also found here
from guandan_fast import simulate_core as core, legal_moves, Move
name, k = sys.argv[1], int(sys.argv[2])
for rep in range(k):
    if name == "sim":
        core.run_chunk(0, 50, 0, (0, 0, 0, 0))
    elif name == "simgreedy":
        core.run_chunk(0, 50, 0, (2, 2, 2, 2))
    elif name == "simexpert":
        core.run_chunk(0, 50, 0, (5, 5, 5, 5))     # bots.AGENT_CODES['expert']
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
    elif name == "gen":
        # the compiled generator alone: 20 fixed 27-card hands, lead and follow, complete and
        # compact, 20 calls each from C
        import random
        from guandan_fast.cards import FULL_DECK
        try:
            from guandan_fast.bench_hooks import time_generate
        except ImportError:   # before the hooks left Hand (issue 12)
            from guandan_fast import Hand

            def time_generate(cards, *a, **k):
                return Hand(cards).time_generate(*a, **k)
        rnd = random.Random(0)
        d = list(FULL_DECK)
        for _ in range(20):
            rnd.shuffle(d)
            for last in (None, Move('Pair', '8', 'S8 D8'), Move('Straight', '5', 'S5 H6 C7 D8 S9')):
                for compact in (False, True):
                    time_generate(d[:27], 7, last=last, compact=compact, repeat=20)
    elif name == "step":
        # Python stepping: legal_moves_array() + play_index(i), 3 matches
        for s in range(3):
            g = Game(seed=s)
            x = s
            while not g.is_over:
                n = len(g.legal_moves_array())
                x = (x * 1103515245 + 12345) & 0x7FFFFFFF
                g.play_index(x % n)
    elif name == "tourney":
        # the tournament's compiled batch: 20 deals x 2 seatings, greedy against random
        from guandan_fast.tournament_core import play_matches
        play_matches(0, [d for d in range(20) for _ in (0, 1)], [0, 1] * 20,
                     [[2, 0, 2, 0], [0, 2, 0, 2]])
    elif name == "botseats":
        # a Python-driven match's bot seats: 3 greedy matches followed move by move
        from guandan_fast.tournament_core import BotSeats
        for s in range(3):
            ms = core.match_seed(0, s)
            bots = BotSeats(ms, (2, 2, 2, 2))
            while bots.current >= 0:
                bots.apply(*bots.choose())
    elif name == "vecenv":
        # VecEnv stepping: 64 tables, one learner against greedy bots, 40 steps
        import numpy as np
        from guandan_fast.vecenv import VecEnv
        env = VecEnv(64, seed=1, learners=(0,), opponents="greedy", encoder=None)
        b = env.reset()
        for _ in range(40):
            env.step(b.cand_ids[b.cand_offsets[:-1]])
            b = env.pending()


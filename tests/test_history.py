"""The compiled Game's history: a persistent list of steps shared by clones, outside the cyclic
GC and freed by a loop in its __dealloc__ (src/guandan_fast/game.pyx, _Step). Freeing a game
must free exactly the steps nobody else holds."""
import gc
import tracemalloc

from guandan_fast.game import Game


def _play(g, moves, x=1):
    for _ in range(moves):
        if g.is_over:
            return
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        g.play_index(x % g.num_legal())


def test_clones_keep_their_past_when_the_original_is_freed():
    g = Game(seed=3)
    kept = []
    for i in range(40):
        _play(g, 50, x=i + 1)
        kept.append((g.clone(), g.to_record()))
    assert len(g.history) > 0
    del g
    gc.collect()
    for clone, record in kept:
        # the whole past (every hand) is still there and replays to the same state
        assert clone.to_record() == record
        assert Game.from_record(record) == clone


def test_freeing_games_returns_their_memory():
    def batch():
        games = [Game(seed=s) for s in range(10)]
        for i, g in enumerate(games):
            _play(g, 10**6, x=i + 7)         # whole matches: thousands of steps each
        assert all(g.is_over for g in games)
        assert sum(len(g.to_record()) for g in games) > 10 * 3

    batch()                                   # caches (Moves, checks) reach their size
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(3):
            batch()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert after - before < 200_000          # a leaked history would hold megabytes

"""A trivial Python agent for bench/bench_tournament.py: the first legal move."""


def first(observation, legal_moves):
    return legal_moves[0]

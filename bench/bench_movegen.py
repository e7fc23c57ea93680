"""Benchmarks of the compiled move generator against the reference, on the same inputs.

Under pytest-benchmark (each test measures one call; medians are what bench/RESULTS.md quotes)::

    .venv/bin/python -m pytest bench/bench_movegen.py --benchmark-enable --benchmark-only -p no:randomly

As a script, the summary table of bench/RESULTS.md (per-hand medians over the 1,000 seeded
random deals, which pytest-benchmark cannot give per hand)::

    .venv/bin/python bench/bench_movegen.py [--deals 1000] [--ref-deals 100]

Inputs: the three hands w0, w1, w2 (0, 1, 2 wilds) at level 7; 1,000 random 27-card hands
from seeded deals (``random.Random(2024)``, 250 deals, all four seats); one ``last`` of each
type for the follows (on w1, which holds the wild and a little of everything); classify on
readings of 5 and 6 cards. "fast" is the Python API on a reused ``Hand`` (a ``MoveList`` per
call); "compiled" is ``bench_hooks.generate`` (the same compiled call, no MoveList) or
``bench_hooks.time_generate`` (a loop in C, no Python at all).

Takes about 15 s as a script with the defaults, a few minutes under pytest-benchmark.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import pytest

from guandan_fast import Move
from guandan_fast import movegen as fast
from guandan_fast import reference as ref
from guandan_fast.cards import FULL_DECK, parse_cards
from guandan_fast.codec import encode
from guandan_fast.bench_hooks import generate, time_generate
from guandan_fast.moves import cards_to_words
from guandan_fast.reference.combos import readings

# The reference caches readings by canonical cards; every reference round starts with an empty
# cache, so that it is timed as it runs on a new hand.
_cold = readings.cache_clear

LEVEL = 7
HANDS = {
    "w0": "S2 H2 C3 D3 H4 D4 D4 S5 H5 C5 D5 C6 D6 D7 H8 ST DT HJ CJ DJ SQ HQ HK CK CK DK HR",
    "w1": "S2 H2 S3 H3 S4 C4 H5 D5 S6 D6 D6 S7 H7 S8 H8 H8 C8 ST SJ HJ HK HK SA CA DA SB HR",
    "w2": "H2 C2 D2 C3 D3 D4 D4 C5 C5 S6 D6 H7 H7 D7 H8 C9 C9 ST SJ SJ HJ HJ DJ CQ DQ CA DA",
}
FOLLOWS = {
    "Single": Move("Single", "9", "S9"),
    "Pair": Move("Pair", "6", "S6 C6"),
    "Trips": Move("Trips", "5", "S5 C5 D5"),
    "ThreeWithTwo": Move("ThreeWithTwo", "5", "S5 C5 D5 S3 S3"),
    "Straight": Move("Straight", "4", "S4 S5 C6 D7 D8"),
    "ThreePair": Move("ThreePair", "3", "S3 C3 S4 C4 S5 C5"),
    "TwoTrips": Move("TwoTrips", "3", "S3 C3 D3 S4 C4 D4"),
    "Bomb": Move("Bomb", "9", "S9 S9 C9 C9"),
    "StraightFlush": Move("StraightFlush", "3", "D3 D4 D5 D6 D7"),
}
CLASSIFY = ["S8 C8 H7 DJ HJ", "S8 C8 D8 H7 H7", "H9 D2 C3 S4 S5", "S9 H7 SJ SQ SK",
            "S3 S3 C4 H7 D5 D5", "SA CA DA S2 C2 D2", "S6 C6 D6 H6 S6 C6", "SB SB HR HR"]


def random_hands(n: int = 1000, seed: int = 2024) -> list[tuple[str, ...]]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        out.extend(tuple(deck[27 * p: 27 * p + 27]) for p in range(4))
    return out[:n]


RANDOM = random_hands()
RANDOM_HANDS = [fast.Hand(h) for h in RANDOM]


# -- pytest-benchmark -------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(HANDS))
def test_lead_fast(benchmark, name):
    h = fast.Hand(HANDS[name])
    ml = benchmark(h.legal_moves, LEVEL)
    benchmark.extra_info["moves"] = len(ml)


@pytest.mark.parametrize("name", list(HANDS))
def test_lead_compiled(benchmark, name):
    h = fast.Hand(HANDS[name])
    benchmark.extra_info["moves"] = benchmark(h.generate, LEVEL)


@pytest.mark.parametrize("name", list(HANDS))
def test_lead_count(benchmark, name):
    h = fast.Hand(HANDS[name])
    benchmark.extra_info["moves"] = benchmark(h.count_moves, LEVEL)


@pytest.mark.parametrize("name", list(HANDS))
def test_lead_compact_fast(benchmark, name):
    h = fast.Hand(HANDS[name])
    benchmark.extra_info["moves"] = len(benchmark(h.legal_moves, LEVEL, compact=True))


@pytest.mark.parametrize("name", list(HANDS))
def test_lead_compact_compiled(benchmark, name):
    h = fast.Hand(HANDS[name])
    benchmark.extra_info["moves"] = benchmark(h.generate, LEVEL, compact=True)


@pytest.mark.parametrize("name", list(HANDS))
def test_lead_reference(benchmark, name):
    moves = benchmark.pedantic(ref.legal_moves, (HANDS[name], LEVEL), setup=_cold, rounds=3,
                               iterations=1)
    benchmark.extra_info["moves"] = len(moves)


def _all_leads(compact=False):
    n = 0
    for h in RANDOM_HANDS:
        n += len(h.legal_moves(LEVEL, compact=compact))
    return n


def test_lead_random_1000_fast(benchmark):
    """All 1,000 random hands per round (divide by 1,000 for one hand)."""
    benchmark.extra_info["moves"] = benchmark(_all_leads)


def test_lead_random_1000_compact_fast(benchmark):
    benchmark.extra_info["moves"] = benchmark(_all_leads, True)


def test_lead_random_100_reference(benchmark):
    """The first 100 random hands, one round (the reference takes ~50 ms a hand)."""
    def run():
        n = 0
        for h in RANDOM[:100]:
            _cold()
            n += len(ref.legal_moves(h, LEVEL))
        return n
    benchmark.extra_info["moves"] = benchmark.pedantic(run, rounds=1, iterations=1)


@pytest.mark.parametrize("kind", list(FOLLOWS))
def test_follow_fast(benchmark, kind):
    h = fast.Hand(HANDS["w1"])
    benchmark.extra_info["moves"] = len(benchmark(h.legal_moves, LEVEL, FOLLOWS[kind]))


@pytest.mark.parametrize("kind", list(FOLLOWS))
def test_follow_compiled(benchmark, kind):
    h = fast.Hand(HANDS["w1"])
    benchmark.extra_info["moves"] = benchmark(h.generate, LEVEL, FOLLOWS[kind])


@pytest.mark.parametrize("kind", list(FOLLOWS))
def test_follow_reference(benchmark, kind):
    moves = benchmark.pedantic(ref.legal_moves, (HANDS["w1"], LEVEL, FOLLOWS[kind]), setup=_cold,
                               rounds=5, iterations=1)
    benchmark.extra_info["moves"] = len(moves)


def _classify_all(engine):
    return sum(len(engine.classify(c, LEVEL)) for c in CLASSIFY)


def test_classify_fast(benchmark):
    benchmark.extra_info["readings"] = benchmark(_classify_all, fast)


def test_classify_reference(benchmark):
    def run():
        _cold()
        return _classify_all(ref)
    benchmark.extra_info["readings"] = benchmark(run)


# -- summary table (script) -------------------------------------------------------------------

@pytest.mark.parametrize("name", list(HANDS))
def test_parse_text_fast(benchmark, name):
    benchmark(encode, HANDS[name])


@pytest.mark.parametrize("name", list(HANDS))
def test_parse_text_python(benchmark, name):
    benchmark(lambda text: cards_to_words(parse_cards(text)), HANDS[name])


@pytest.mark.parametrize("name", list(HANDS))
def test_lead_from_text_fast(benchmark, name):
    benchmark(fast.legal_moves, HANDS[name], LEVEL)


def _per_call(f, repeat=200, batches=5):
    """Median over batches of the mean time of one call, in ns."""
    out = []
    for _ in range(batches):
        t = time.perf_counter_ns()
        for _ in range(repeat):
            f()
        out.append((time.perf_counter_ns() - t) / repeat)
    return statistics.median(out)


def _median_over_hands(hands, f, repeat):
    return statistics.median(_per_call(lambda: f(h), repeat, 3) for h in hands)


def summary(deals: int, ref_deals: int) -> None:
    hands = RANDOM_HANDS[:deals]
    rows = []

    def row(what, fast_ns, ref_ns=None, note=""):
        ratio = f"{ref_ns / fast_ns:,.0f}×" if ref_ns else ""
        ref_s = f"{ref_ns / 1e3:,.0f} µs" if ref_ns else ""
        rows.append(f"| {what} | {fast_ns / 1e3:,.3f} µs | {ref_s} | {ratio} | {note} |")

    print(f"random hands: {deals} (reference on the first {ref_deals})")
    def ref_cold(*args):
        _cold()
        return ref.legal_moves(*args)

    ref_lead = statistics.median(_per_call(lambda: ref_cold(h.cards, LEVEL), 1, 1)
                                 for h in hands[:ref_deals])
    moves = statistics.median(h.count_moves(LEVEL) for h in hands)
    c_lead = statistics.median(time_generate(h, LEVEL, repeat=50) for h in hands)
    row("lead, complete, compiled loop (time_generate)", c_lead, ref_lead, f"median {moves:.0f} moves")
    row("lead, complete, bench_hooks.generate", _median_over_hands(hands, lambda h: generate(h, LEVEL), 20), ref_lead)
    row("lead, complete, Hand.count_moves", _median_over_hands(hands, lambda h: h.count_moves(LEVEL), 20), ref_lead)
    row("lead, complete, Hand.legal_moves", _median_over_hands(hands, lambda h: h.legal_moves(LEVEL), 20), ref_lead)
    cm = statistics.median(h.count_moves(LEVEL, compact=True) for h in hands)
    row("lead, compact, compiled loop", statistics.median(
        time_generate(h, LEVEL, compact=True, repeat=50) for h in hands), None, f"median {cm:.0f} moves")
    row("lead, compact, Hand.legal_moves", _median_over_hands(
        hands, lambda h: h.legal_moves(LEVEL, compact=True), 20))
    for name, cards in HANDS.items():
        h = fast.Hand(cards)
        r = _per_call(lambda: ref_cold(cards, LEVEL), 1, 3)
        row(f"lead {name}, compiled loop", time_generate(h, LEVEL, repeat=500), r,
            f"{h.count_moves(LEVEL)} moves")
        row(f"lead {name}, Hand.legal_moves", _per_call(lambda: h.legal_moves(LEVEL)), r)
        row(f"lead {name} compact, compiled loop", time_generate(h, LEVEL, compact=True, repeat=500),
            None, f"{h.count_moves(LEVEL, compact=True)} moves")
    h = fast.Hand(HANDS["w1"])
    for kind, last in FOLLOWS.items():
        r = _per_call(lambda: ref_cold(HANDS["w1"], LEVEL, last), 1, 3)
        row(f"follow {kind} (w1), compiled loop", time_generate(h, LEVEL, last, repeat=2000), r,
            f"{h.count_moves(LEVEL, last)} moves")
        row(f"follow {kind} (w1), Hand.legal_moves", _per_call(lambda: h.legal_moves(LEVEL, last), 2000), r)
    # follows over the random hands: one last per type, median over hands and types
    per = [time_generate(h, LEVEL, last, repeat=50) for h in hands[:200] for last in FOLLOWS.values()]
    row("follow, random hands × 9 types, compiled loop", statistics.median(per))
    text = HANDS["w0"]
    row("parse w0 text (hand.encode)", _per_call(lambda: encode(text), 2000),
        _per_call(lambda: cards_to_words(parse_cards(text)), 2000), "vs cards.parse_cards")
    h0 = fast.Hand(text)
    row("lead w0 from text, legal_moves(text)", _per_call(lambda: fast.legal_moves(text, LEVEL)),
        None, f"Hand.legal_moves: {_per_call(lambda: h0.legal_moves(LEVEL)) / 1e3:.3f} µs")
    def ref_classify():
        _cold()
        return _classify_all(ref)
    row(f"classify ×{len(CLASSIFY)}", _per_call(lambda: _classify_all(fast), 500),
        _per_call(ref_classify, 20))
    print("| what | fast | reference | ratio | note |\n|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--ref-deals", type=int, default=100)
    a = ap.parse_args()
    summary(a.deals, a.ref_deals)

"""The long differential run: the compiled generator against the reference on 1,000,000+ cases.

    .venv/bin/python bench/diff_long.py [--cases 1000000] [--follows 400] [--workers 2]

Each hand is a random 27-card hand (every level in turn; 0, 1 and 2 wilds in turn; every other
hand concentrated on 8 ranks so that bombs, full houses and runs abound; the four combinations
of the two move-generation switches in turn). Per hand:

* 1 lead case: the compiled ``legal_moves`` equals the reference ``legal_moves`` (as sets), and
  the compact list equals the "Compact mode" definition (docs/design.md) applied to it;
* ``--follows`` follow cases: a random play to beat, drawn by (type, bomb tier) so that every
  type and rung is followed, each checked to be a reading by the reference; the expected moves
  are the reference's lead list filtered by docs/rules.md §5 through the reference's own ``key`` and
  ``bomb_tier`` (every 50th case also through ``beats_unchecked`` itself, and every 100th
  against the reference's own follow path ``legal_moves(hand, level, last)``);
  every 50th follow case also checks compact mode.

The reference takes ~50 ms for a 27-card lead, so most cases are follows of cached leads.
Exits non-zero on the first mismatch, printing it.

Takes about 10-20 minutes for 10^6 cases on 2 CPUs (``--cases 20000``: about 20 s).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

from guandan_fast import PASS, Move, Rules  # noqa: E402
from guandan_fast import movegen as fast  # noqa: E402
from guandan_fast import reference as ref  # noqa: E402
from guandan_fast.cards import FULL_DECK, RANKS  # noqa: E402
from guandan_fast.reference.combos import beats_unchecked, bomb_tier, key, readings  # noqa: E402

from test_fast_movegen import compact_definition  # noqa: E402

RULES = [Rules(), Rules(sf_as_straight=False), Rules(fullhouse_joker_pair=False),
         Rules(sf_as_straight=False, fullhouse_joker_pair=False)]


def deal(rng, level, wilds, ranks=None):
    w = "H" + RANKS[level - 2]
    pool = [c for c in FULL_DECK if c != w and (ranks is None or c in ("SB", "HR") or c[1] in ranks)]
    rng.shuffle(pool)
    return pool[:27 - wilds] + [w] * wilds


def last_pool(seed):
    """Plays to follow, by (level, rules index) then (type, tier); each a reading (reference)."""
    rng = random.Random(seed)
    raw = {}
    for i in range(60):
        level = 2 + i % 13
        hand = deal(rng, level, i % 3, None if i % 2 else rng.sample(RANKS, 7))
        for m in fast.legal_moves(hand, level):
            raw.setdefault(level, set()).add(m)
    for level in range(2, 15):
        w = "H" + RANKS[level - 2]
        for r in RANKS:
            cards = [s + r for s in "SHCD" for _ in range(2) if s + r != w] + [w, w]
            for n in range(4, len(cards) + 1):
                raw[level].add(Move("Bomb", r, cards[:n]))
        raw[level].add(Move("Bomb", "JOKER", "SB SB HR HR"))
    pool = {}
    for level, moves in raw.items():
        for ri, rules in enumerate(RULES):
            by_class = {}
            for m in moves:
                if m in readings(m.cards, level, rules.sf_as_straight, rules.fullhouse_joker_pair):
                    by_class.setdefault((m.type, bomb_tier(m)), []).append(m)
            pool[(level, ri)] = [sorted(v, key=Move.sort_key) for _, v in sorted(by_class.items())]
    return pool


def words(moves):
    if isinstance(moves, fast.MoveList):
        return {(lo, hi) for lo, hi in moves.array.tolist()}
    return {m.words for m in moves}


def fail(msg, **ctx):
    print("MISMATCH:", msg)
    for k, v in ctx.items():
        print(f"  {k}: {v}")
    sys.stdout.flush()
    raise SystemExit(1)


def worker(args):
    wid, workers, n_hands, follows, seed = args
    rng = random.Random(seed * 1000 + wid)
    pool = last_pool(seed)
    cases = 0
    for i in range(n_hands):
        j = wid + workers * i
        level = 2 + j % 13
        wilds = (j // 13) % 3
        ri = (j // 39) % 4
        rules = RULES[ri]
        hand = deal(rng, level, wilds, None if j % 2 else rng.sample(RANKS, 8))
        h = fast.Hand(hand)
        lead = ref.legal_moves(hand, level, rules=rules)
        got = h.legal_moves(level, rules=rules)
        if words(got) != words(lead) or len(got) != len(lead):
            fail("lead", hand=hand, level=level, rules=rules,
                 extra=words(got) - words(lead), missing=words(lead) - words(got))
        want_c = compact_definition(lead, hand, level)
        if words(h.legal_moves(level, rules=rules, compact=True)) != words(want_c):
            fail("compact lead", hand=hand, level=level, rules=rules)
        cases += 1
        info = [(m, m.words, m.type, bomb_tier(m), key(m, level)) for m in lead]
        classes = pool[(level, ri)]
        for f in range(follows):
            last = rng.choice(rng.choice(classes))
            lt, ltier, lkey = last.type, bomb_tier(last), key(last, level)
            if ltier:
                want = {w for _, w, t, tier, k in info if (tier, k) > (ltier, lkey)}
            else:
                want = {w for _, w, t, tier, k in info if tier or (t == lt and k > lkey)}
            want.add(PASS.words)
            if f % 50 == 0:
                check = {m.words for m in lead if beats_unchecked(m, last, level)} | {PASS.words}
                if check != want:
                    fail("filter vs beats_unchecked", hand=hand, level=level, last=last)
            if f % 100 == 0:
                if words(ref.legal_moves(hand, level, last, rules)) != want:
                    fail("filter vs reference follow", hand=hand, level=level, last=last)
            got = h.legal_moves(level, last, rules)
            if words(got) != want or len(got) != len(want):
                fail("follow", hand=hand, level=level, rules=rules, last=last,
                     extra=words(got) - want, missing=want - words(got))
            if f % 50 == 0:
                want_c = compact_definition([m for m, w, *_ in info if w in want], hand, level)
                want_c.add(PASS)
                if words(h.legal_moves(level, last, rules, compact=True)) != words(want_c):
                    fail("compact follow", hand=hand, level=level, rules=rules, last=last)
            cases += 1
        if wid == 0 and (i + 1) % max(1, n_hands // 20) == 0:
            print(f"  worker 0: {i + 1}/{n_hands} hands, {cases} cases", flush=True)
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=1_000_000)
    ap.add_argument("--follows", type=int, default=400)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    hands = -(-a.cases // (a.follows + 1))
    per = -(-hands // a.workers)
    t = time.time()
    with mp.Pool(a.workers) as p:
        counts = p.map(worker, [(w, a.workers, per, a.follows, a.seed) for w in range(a.workers)])
    total = sum(counts)
    print(f"{total} cases ({per * a.workers} hands: {per * a.workers} leads + compact, "
          f"{total - per * a.workers} follows), 0 mismatches, {time.time() - t:.0f} s")


if __name__ == "__main__":
    main()

"""Pool several duplicate tournaments of one pair (their ``--json`` files) into one result with
the tournament's own paired interval (bench/RESULTS.md, "Search above the expert").

A long pair is run as several tournaments of different seeds, each short enough to finish and
be kept on a shared machine. A run's JSON gives its match wins and its paired interval (the
clustered Wilson interval over deals, guandan_fast.stats); over deals won 2-0, 1-1 and 0-2 the
interval fixes how many deals were split, so the pooled counts — and the pooled interval — are
exact, not approximated.

    python bench/pool_tournaments.py run1.json run2.json ...

Takes a moment (it reads the JSON files; the tournaments are the long part).
"""
import json
import sys

from guandan_fast.stats import clustered_wilson_interval


def deal_counts(pair: dict) -> tuple:
    """(deals A won 0, 1, 2 matches of) of one pair's JSON entry."""
    n, wins = pair["deals"], pair["match_wins"]["a"]
    lo, hi = pair["match_win_rate"]["ci_paired"]
    found = []
    for split in range(wins % 2, min(n, wins) + 1, 2):
        two = (wins - split) // 2
        zero = n - split - two
        if zero < 0:
            continue
        l, h = clustered_wilson_interval([0] * zero + [1] * split + [2] * two, [2] * n)
        if abs(l - lo) < 2e-6 and abs(h - hi) < 2e-6:
            found.append((zero, split, two))
    if len(found) != 1:
        raise ValueError(f"{pair['a']} vs {pair['b']}: the interval fits {len(found)} splits")
    return found[0]


def main(paths) -> None:
    counts, hands, levels, pair_names = [0, 0, 0], [0, 0], [0, 0], None
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        if len(data["pairs"]) != 1:
            raise SystemExit(f"{path}: one pair per file, got {len(data['pairs'])}")
        p = data["pairs"][0]
        if pair_names not in (None, (p["a"], p["b"])):
            raise SystemExit(f"{path}: pair {p['a']} vs {p['b']}, not {pair_names}")
        pair_names = (p["a"], p["b"])
        c = deal_counts(p)
        print(f"{path}: seed {data['seed']}, {p['deals']} deals, A won 0/1/2 matches of "
              f"{c[0]}/{c[1]}/{c[2]}, {100 * p['match_win_rate']['value']:.1f} %")
        counts = [a + b for a, b in zip(counts, c)]
        hands = [hands[0] + p["hand_wins"]["a"], hands[1] + p["hands"]]
        levels = [levels[0] + p["levels"]["a"], levels[1] + p["levels"]["b"]]
    nums = [0] * counts[0] + [1] * counts[1] + [2] * counts[2]
    lo, hi = clustered_wilson_interval(nums, [2] * len(nums))
    print(f"pooled {pair_names[0]} vs {pair_names[1]}: {len(nums)} deals, {sum(nums)}/"
          f"{2 * len(nums)} matches = {100 * sum(nums) / (2 * len(nums)):.1f} % "
          f"[{100 * lo:.1f}, {100 * hi:.1f}] (paired 95 %); hands {100 * hands[0] / hands[1]:.1f} "
          f"% of {hands[1]}; levels per hand {levels[0] / hands[1]:.2f} / {levels[1] / hands[1]:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])

"""Tune the expert's knobs against the gauntlet (docs/expert.md "Tuning against the gauntlet").

The objective of a knob setting is the expert's **worst** hand win rate over the gauntlet's
members other than itself (``guandan_fast.gauntlet.GAUNTLET``), each pair played over the same
``--deals`` duplicate deals of ``--seed`` (common random numbers: every trial meets the same
cards, so differences between trials are the knobs', not the deals'). Optuna's TPE sampler,
seeded, proposes the settings (one trial at a time: the same seed gives the same trials). The
best setting found and the defaults are then measured again on deals of another seed
(``--check-seed``, ``--check-deals``), which the search never saw, and printed side by side:
the before/after table. The knobs and their ranges are ``SPACE``; the knobs themselves live in
one place, ``guandan_fast.expert`` (``knobs``, ``set_knobs``, ``EXPERT_KNOBS``).

    .venv/bin/python bench/tune_expert.py --trials 30 --deals 100 --check-deals 300 --start base

(the run that found the expert's ``TUNED_CHANGES``; it takes about three minutes, 151-194 s
on the shared 2-vCPU machine; without ``--start base`` it starts from, and compares with, the
expert's tuned row).

Needs optuna (the ``tune`` extra; ``make test`` installs it). Progress goes to stderr, one
line per trial; Ctrl-C stops after the trial in play, reports the best so far and exits 130.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from guandan_fast.expert import BASE_KNOBS, EXPERT_KNOBS, knobs, set_knobs
from guandan_fast.gauntlet import GAUNTLET, gauntlet

#: The knobs searched and their ranges (inclusive); the others keep the expert's values.
SPACE = {
    "near_out": (2, 8), "near_out_other": (1, 5), "attack_margin": (-1, 3),
    "break_loss": (0, 30), "bomb_at": (0, 15), "unbeaten_keep": (0, 60),
    "bomb_trigger": (0, 15), "bomb_on_attack": (0, 1), "spend_control": (0, 1),
    "lead_size": (-6, 8), "return_spread": (0, 10),
    "run_out": (0, 1),
}


def worst_case(deals: int, seed: int, members, workers: int = 1) -> tuple[float, dict]:
    """The expert's worst hand win rate over ``members`` with the knobs now set, and each
    member's rate."""
    res = gauntlet("expert", deals=deals, seed=seed, members=members, workers=workers)
    rates = {p.b: p.hand_win_rate for p in res.pairs}
    return min(rates.values()), rates


def tune(trials: int, deals: int, seed: int = 0, members=GAUNTLET, sampler_seed: int = 0,
         workers: int = 1, log=None, start: dict = EXPERT_KNOBS) -> dict:
    """Search ``trials`` settings, ``start`` first; returns ``{"best": knobs, "best_value":
    .., "trials": [..]}`` (the expert's knobs are as before when it returns or raises)."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    members = [m for m in members if m != "expert"]
    study = optuna.create_study(direction="maximize",
                                sampler=optuna.samplers.TPESampler(seed=sampler_seed))
    study.enqueue_trial({k: start[k] for k in SPACE})      # the starting row first
    old = knobs("expert")
    rows = []
    try:
        for i in range(trials):
            trial = study.ask()
            values = {k: trial.suggest_int(k, lo, hi) for k, (lo, hi) in SPACE.items()}
            set_knobs(values)
            value, rates = worst_case(deals, seed, members, workers)
            study.tell(trial, value)
            rows.append({"values": values, "worst": value, "rates": rates})
            if log is not None:
                print(f"trial {i + 1}/{trials}: worst hand win {100 * value:.1f} % "
                      f"(best {100 * study.best_value:.1f} %)", file=log, flush=True)
    except KeyboardInterrupt as exc:
        exc.partial = rows
        raise
    finally:
        set_knobs(old)
    best = max(rows, key=lambda r: r["worst"])
    return {"best": {**old, **best["values"]}, "best_value": best["worst"], "trials": rows}


def before_after(best: dict, deals: int, seed: int, members=GAUNTLET, workers: int = 1,
                 start: dict = EXPERT_KNOBS) -> dict:
    """``start`` and ``best`` measured on the same deals: each member's hand win rate."""
    old = knobs("expert")
    members = [m for m in members if m != "expert"]
    try:
        set_knobs(start)
        _, before = worst_case(deals, seed, members, workers)
        set_knobs(best)
        _, after = worst_case(deals, seed, members, workers)
    finally:
        set_knobs(old)
    return {"before": before, "after": after}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=40, help="settings tried (default 40)")
    ap.add_argument("--deals", type=int, default=100, help="deals per member per trial (default 100)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the tuning deals (default 0)")
    ap.add_argument("--check-deals", type=int, default=300,
                    help="deals per member of the before/after check (default 300)")
    ap.add_argument("--check-seed", type=int, default=1,
                    help="seed of the check's deals, unseen by the search (default 1)")
    ap.add_argument("--members", default=",".join(GAUNTLET),
                    help="gauntlet members, comma-separated (default: the gauntlet)")
    ap.add_argument("--workers", type=int, default=1, help="threads (default 1)")
    ap.add_argument("--start", choices=("expert", "base"), default="expert",
                    help="the row tried first and compared with: the expert's (default) or the "
                         "hand-set base row (how the expert's TUNED_CHANGES were found)")
    ap.add_argument("--json", metavar="FILE", help="write the trials and the table as JSON")
    args = ap.parse_args(argv)
    for name in ("trials", "deals", "check_deals", "workers"):
        if getattr(args, name) < 1:
            print(f"tune_expert: error: --{name.replace('_', '-')} must be >= 1", file=sys.stderr)
            return 2
    members = [m.strip() for m in args.members.split(",") if m.strip()]
    start = BASE_KNOBS if args.start == "base" else EXPERT_KNOBS
    t0 = time.perf_counter()
    try:
        out = tune(args.trials, args.deals, args.seed, members, workers=args.workers,
                   log=sys.stderr, start=start)
    except KeyboardInterrupt as exc:
        rows = getattr(exc, "partial", [])
        print(f"interrupted after {len(rows)} of {args.trials} trial(s)"
              + (f"; best worst case so far {100 * max(r['worst'] for r in rows):.1f} %"
                 if rows else ""), flush=True)
        return 130
    table = before_after(out["best"], args.check_deals, args.check_seed, members, args.workers,
                         start)
    changed = {k: (start[k], v) for k, v in out["best"].items() if start[k] != v}
    print(f"{args.trials} trials x {len(table['before'])} members x {args.deals} deals "
          f"(seed {args.seed}), {time.perf_counter() - t0:.0f} s; best worst case "
          f"{100 * out['best_value']:.1f} %")
    print("knobs changed: " + (", ".join(f"{k} {a} -> {b}" for k, (a, b) in changed.items())
                               or "none"))
    print(f"\ncheck on {args.check_deals} deals of seed {args.check_seed} "
          f"(expert's hand win %):")
    print(f"{'member':<10}{'before':>8}{'after':>8}")
    for m in table["before"]:
        print(f"{m:<10}{100 * table['before'][m]:>8.1f}{100 * table['after'][m]:>8.1f}")
    print(f"{'worst':<10}{100 * min(table['before'].values()):>8.1f}"
          f"{100 * min(table['after'].values()):>8.1f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"args": vars(args), **out, "check": table}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The compiled legal-action listing by kind of decision, for callgrind (bench/RESULTS.md,
movegen4): the play-phase states of two random matches (seeds 0, 1; seeded random legal
actions), those of one kind -- ``lead``, ``follow`` (a follow with a choice) or ``forced`` (a
forced pass) -- each listed REPS times from C (``actions.time_legal_actions``). The cost of one
listing is the difference of two runs divided by (difference of REPS) x states (printed on
stderr)::

    valgrind --tool=callgrind --callgrind-out-file=lead_10.out \\
        .venv/bin/python bench/movegen_decision_kinds.py lead 10          # and 30
    callgrind_annotate --inclusive=yes lead_10.out | grep fill_legal_actions   # both runs
"""
import sys

import numpy as np

import guandan_fast as gf
from guandan_fast.actions import legal_action_mask, time_legal_actions


def states(kind, seeds=(0, 1)):
    rng = np.random.default_rng(5)
    out = []
    for seed in seeds:
        g = gf.Game(seed=seed)
        while not g.is_over:
            legal = np.flatnonzero(legal_action_mask(g))
            if g.phase == "play":
                k = ("forced" if len(legal) == 1 and legal[0] == 0
                     else "follow" if legal[0] == 0 else "lead")
                if k == kind:
                    out.append(g.clone())
            g.play_action(int(legal[int(rng.random() * len(legal))]))
    return out


if __name__ == "__main__":
    kind, reps = sys.argv[1], int(sys.argv[2])
    if kind not in ("lead", "follow", "forced"):
        sys.exit("kind must be lead, follow or forced")
    found = states(kind)
    print(len(found), "states", file=sys.stderr)
    for g in found:
        time_legal_actions(g, reps)

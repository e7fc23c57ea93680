"""Ratings from a duplicate round robin: a Bradley–Terry model fitted to the match wins, on
the Elo scale, with bootstrap intervals over the deals (docs/tournament.md, "Ratings").

Model: agent ``i`` has strength ``θ_i`` and wins a match against ``j`` with probability
``σ(θ_i - θ_j) = 1 / (1 + exp(θ_j - θ_i))``. The fit maximises

    Σ over pairs (i, j) of  (W_ij + c) · log σ(θ_i - θ_j) + (W_ji + c) · log σ(θ_j - θ_i)

where ``W_ij`` counts the matches ``i`` won against ``j`` and ``c = PRIOR_WINS`` (half a
match) is added to each side of each pair, so that an agent that won every match still gets
a finite rating. The strengths are found by ``scipy.optimize.minimize`` (BFGS with the
gradient), shifted to mean 0, and written in Elo points, ``400 / ln 10 · θ``: a difference of
``D`` points means a match win share of ``1 / (1 + 10^(-D/400))`` (200 points: 76 %).

Interval: percentile bootstrap, ``BOOTSTRAP`` replicates. A replicate draws the deals with
replacement — one draw of deal numbers for every pair, since every pair played the same
deals — and refits; each agent's interval is the 2.5th to 97.5th percentile of its rating.
Resampling whole deals keeps the duplicate pairing (the two matches of a deal, and the same
deal in other pairs) that an interval from the likelihood's curvature would treat as
independent matches. The generator is seeded from the tournament's seed: same result, same
ratings.

>>> from guandan_fast.tournament import tournament
>>> res = tournament(["expert", "greedy", "random"], deals=6, seed=1)
>>> r = res.ratings
>>> r.order()[0], r.order()[-1]
('expert', 'random')
>>> abs(sum(r.elo.values())) < 1e-6
True
>>> lo, hi = r.ci["greedy"]; lo <= r.elo["greedy"] <= hi
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Ratings", "rate", "fit", "win_counts", "ELO_PER_UNIT", "PRIOR_WINS", "BOOTSTRAP"]

#: Elo points per unit of Bradley–Terry strength (natural log odds).
ELO_PER_UNIT = 400 / math.log(10)
#: Matches added to each side of each pair (keeps a clean sweep's rating finite).
PRIOR_WINS = 0.5
#: Bootstrap replicates of the interval.
BOOTSTRAP = 1000


@dataclass
class Ratings:
    """Each agent's rating (``elo``, mean 0) and 95 % bootstrap interval (``ci``); ``bound``
    marks an agent that won (``'lower'``) or lost (``'upper'``) every match: its rating then
    rests on the prior and only bounds its strength."""

    agents: tuple
    elo: dict
    ci: dict
    bootstrap: int
    bound: dict       # 'lower' (won every match), 'upper' (lost every one) or None

    def order(self) -> list:
        """The agents, best first."""
        return sorted(self.agents, key=lambda a: -self.elo[a])

    def to_dict(self) -> dict:
        return {"model": "bradley-terry on match wins", "scale": "elo, mean 0",
                "prior_wins": PRIOR_WINS, "interval": "bootstrap over deals, 95%",
                "bootstrap": self.bootstrap,
                "agents": {a: {"elo": round(self.elo[a], 1),
                               "ci": [round(self.ci[a][0], 1), round(self.ci[a][1], 1)],
                               "bound": self.bound[a]}
                           for a in self.order()}}

    def table(self) -> str:
        """The ratings, best first, as text."""
        w = max(8, max(len(a) for a in self.agents))
        lines = [f"ratings (Bradley-Terry on match wins, Elo points, mean 0; 95% bootstrap "
                 f"over deals, {self.bootstrap} replicates):"]
        for rank, a in enumerate(self.order(), 1):
            lo, hi = self.ci[a]
            note = {"lower": "  won every match: a lower bound",
                    "upper": "  lost every match: an upper bound"}.get(self.bound[a], "")
            lines.append(f"  {rank:>2}. {a:<{w}} {self.elo[a]:+7.0f}  [{lo:+.0f}, {hi:+.0f}]"
                         f"{note}")
        return "\n".join(lines)


def win_counts(agents, pairs):
    """Per pair ``(i, j, wins of i per deal, wins of j per deal)`` from ``PairResult``s (their
    outcome rows: deal by deal, seating 0 then 1)."""
    import numpy as np

    index = {a: k for k, a in enumerate(agents)}
    out = []
    for p in pairs:
        rows = p._rows
        w = (rows[0::2, 0] == 0).astype(np.int64) + (rows[1::2, 0] == 1)
        out.append((index[p.a], index[p.b], w, 2 - w))
    return out


def fit(n: int, i, j, wins):
    """Bradley–Terry strengths (mean 0) of ``n`` agents, the fit of the module doc, for one
    or many data sets at once: pair ``k`` is agents ``i[k]`` and ``j[k]``; ``wins[..., k, 0]``
    and ``wins[..., k, 1]`` count the matches each of them won (any leading dimensions: one
    fit per data set). The data sets' likelihoods are independent, so one ``minimize`` of
    their sum fits them all (the bootstrap's thousand replicates in one call).

    >>> s = fit(2, [0], [1], [[30, 10]])
    >>> round(float(s[0] - s[1]), 4) == round(math.log(30.5 / 10.5), 4)
    True
    """
    import numpy as np
    from scipy.optimize import minimize

    i, j = np.asarray(i), np.asarray(j)
    w = np.asarray(wins, dtype=float) + PRIOR_WINS
    lead = w.shape[:-2]
    w = w.reshape(-1, len(i), 2)
    sets = len(w)

    def nll(free):
        # agent 0 at 0 in each set: the model fixes only the gaps
        theta = np.concatenate((np.zeros((sets, 1)), free.reshape(sets, n - 1)), axis=1)
        d = theta[:, i] - theta[:, j]
        # -log σ(d) = log(1 + e^-d), written stably
        value = float(np.sum(w[..., 0] * np.logaddexp(0, -d) + w[..., 1] * np.logaddexp(0, d)))
        p = 0.5 * (1 + np.tanh(d / 2))        # σ(d) without overflow
        g = w[..., 1] * p - w[..., 0] * (1 - p)       # d(nll)/d(d)
        grad = np.zeros((sets, n))
        for k in range(len(i)):
            grad[:, i[k]] += g[:, k]
            grad[:, j[k]] -= g[:, k]
        return value, grad[:, 1:].ravel()

    res = minimize(nll, np.zeros(sets * (n - 1)), jac=True, method="L-BFGS-B",
                   options={"gtol": 1e-10, "ftol": 1e-14, "maxiter": 10000})
    theta = np.concatenate((np.zeros((sets, 1)), res.x.reshape(sets, n - 1)), axis=1)
    theta -= theta.mean(axis=1, keepdims=True)
    return theta.reshape(lead + (n,))


def rate(agents, pairs, seed: int = 0, bootstrap: int = BOOTSTRAP) -> Ratings:
    """The ``Ratings`` of ``agents`` from their ``PairResult``s (every pair of a round robin)."""
    import numpy as np

    agents = tuple(agents)
    n = len(agents)
    counts = win_counts(agents, pairs)
    i = [c[0] for c in counts]
    j = [c[1] for c in counts]
    point = fit(n, i, j, [[int(c[2].sum()), int(c[3].sum())] for c in counts])
    rng = np.random.default_rng([seed & 0xFFFFFFFFFFFFFFFF, 0x5241544E])   # "RATN"
    # One draw of deal numbers per replicate for all pairs with as many deals (every pair
    # of a finished tournament): the same deals everywhere, as in the tournament.
    picks = {m: rng.integers(0, m, (bootstrap, m)) for m in sorted({len(c[2]) for c in counts})}
    wins = np.empty((bootstrap, len(counts), 2))
    for k, (_, _, wi, wj) in enumerate(counts):
        pick = picks[len(wi)]
        wins[:, k, 0] = wi[pick].sum(axis=1)
        wins[:, k, 1] = wj[pick].sum(axis=1)
    draws = fit(n, i, j, wins)
    lo, hi = np.percentile(draws, [2.5, 97.5], axis=0)
    # Replicates of the very data of the point fit (every pair swept one way) refit it only to
    # the optimiser's precision: the interval holds the point all the same.
    lo, hi = np.minimum(lo, point), np.maximum(hi, point)
    won = {a: [0, 0] for a in agents}      # matches won, played
    for (a, b), (_, _, wi, wj) in zip(((p.a, p.b) for p in pairs), counts):
        won[a][0] += int(wi.sum())
        won[b][0] += int(wj.sum())
        won[a][1] += 2 * len(wi)
        won[b][1] += 2 * len(wi)
    bound = {a: None if m == 0 else "lower" if w == m else "upper" if w == 0 else None
             for a, (w, m) in won.items()}
    return Ratings(agents=agents, elo={a: float(point[k]) * ELO_PER_UNIT
                                       for k, a in enumerate(agents)},
                   ci={a: (float(lo[k]) * ELO_PER_UNIT, float(hi[k]) * ELO_PER_UNIT)
                       for k, a in enumerate(agents)}, bootstrap=bootstrap, bound=bound)

"""The statistics of the duplicate tournament (docs/tournament.md): Wilson intervals, plain
and over clustered trials, and Student's t intervals for a mean.

>>> lo, hi = wilson_interval(5, 10); round(lo, 3), round(hi, 3)
(0.237, 0.763)
"""

from __future__ import annotations

import math
from typing import Sequence

__all__ = ["Z95", "wilson_interval", "clustered_wilson_interval", "t_quantile", "mean_interval"]

#: The 0.975 quantile of the standard normal.
Z95 = 1.959963984540054


def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion ``k / n`` (95% by default).

    >>> lo, hi = wilson_interval(0, 10); round(lo, 4), round(hi, 4)
    (0.0, 0.2775)
    >>> wilson_interval(3, 0)
    Traceback (most recent call last):
    ...
    ValueError: wilson_interval: n must be >= 1 and 0 <= k <= n, got k=3, n=0
    """
    if n < 1 or not 0 <= k <= n:
        raise ValueError(f"wilson_interval: n must be >= 1 and 0 <= k <= n, got k={k}, n={n}")
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _t_two_sided_mass(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with integer ``df`` (closed forms, Abramowitz-Stegun 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2 == 1:
        if df == 1:
            return 2 * theta / math.pi
        term, total = 1.0, 1.0
        for j in range(1, (df - 1) // 2):       # terms cos^2j with ratios (2j)/(2j+1)
            term *= c2 * (2 * j) / (2 * j + 1)
            total += term
        return 2 / math.pi * (theta + math.sin(theta) * math.cos(theta) * total)
    term, total = 1.0, 1.0
    for j in range(1, df // 2):                 # terms cos^2j with ratios (2j-1)/(2j)
        term *= c2 * (2 * j - 1) / (2 * j)
        total += term
    return math.sin(theta) * total


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile (``p > 0.5``) of Student's t with ``df`` degrees of freedom.

    Exact (bisection on the closed-form distribution function) up to 1000 degrees of
    freedom, the Cornish-Fisher expansion beyond (error below 1e-9 there).

    >>> round(t_quantile(0.975, 1), 4), round(t_quantile(0.975, 10), 4)
    (12.7062, 2.2281)
    """
    if not 0.5 < p < 1:
        raise ValueError(f"t_quantile: p must be in (0.5, 1), got {p}")
    if isinstance(df, bool) or not isinstance(df, int) or df < 1:
        raise ValueError(f"t_quantile: df must be an int >= 1, got {df!r}")
    from statistics import NormalDist

    z = NormalDist().inv_cdf(p)
    if df > 1000:
        v = float(df)
        return (z + (z ** 3 + z) / (4 * v) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * v ** 2)
                + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * v ** 3)
                + (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z)
                / (92160 * v ** 4))
    target = 2 * p - 1
    lo, hi = 0.0, 1.0
    while _t_two_sided_mass(hi, df) < target:
        lo, hi = hi, 2 * hi
    # Newton's method from the normal quantile (each step evaluates the O(df) distribution
    # function once: ~4 steps where bisection took ~40, 15 ms at df = 899, which a
    # tournament's closing statistics paid on one thread), bisecting the bracket [lo, hi]
    # whenever a step would leave it.
    log_c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    t = min(max(z, lo), hi)
    for _ in range(200):
        g = _t_two_sided_mass(t, df) - target
        if g < 0:
            lo = t
        else:
            hi = t
        density = math.exp(log_c - (df + 1) / 2 * math.log1p(t * t / df))
        new = t - g / (2 * density)
        if not lo < new < hi:
            new = (lo + hi) / 2
        if abs(new - t) <= 1e-13 * new or hi - lo < 1e-12 * hi:
            return new
        t = new
    return t


def mean_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float] | None:
    """Student's t interval for the mean of i.i.d. ``values`` (None with fewer than 2).

    >>> mean_interval([1.0, 2.0, 3.0])           # 2 +- t(0.975, 2) / sqrt(3), t = 4.3027
    (-0.48413771175033116, 4.484137711750331)
    """
    n = len(values)
    if n < 2:
        return None
    m = math.fsum(values) / n
    var = math.fsum((x - m) ** 2 for x in values) / (n - 1)
    half = t_quantile(0.5 + level / 2, n - 1) * math.sqrt(var / n)
    return m - half, m + half


def clustered_wilson_interval(nums: Sequence[float], dens: Sequence[float],
                              z: float = Z95) -> tuple[float, float]:
    """The Wilson interval of the ratio ``sum(nums) / sum(dens)`` of clustered trials
    (cluster ``i``: ``nums[i]`` successes in ``dens[i]`` trials), with the effective sample
    size of the clusters' variance (Kish; Korn and Graubard 1998): ``n_eff = r(1 - r) / v``,
    ``v`` the linearised variance of the ratio over clusters. Falls back to ``n_eff`` = the
    number of clusters when ``v`` is 0 or ``r`` is 0 or 1.

    Four deals won 2-0, 2-0, 0-2, 0-2: r = 0.5, v = 4/3 * 4 / 64, so n_eff = 3 (not 8 matches):

    >>> lo, hi = clustered_wilson_interval([2, 2, 0, 0], [2, 2, 2, 2]); round(lo, 3), round(hi, 3)
    (0.125, 0.875)
    """
    n = len(nums)
    if n < 1 or len(dens) != n or sum(dens) <= 0:
        raise ValueError(f"clustered_wilson_interval: need one or more clusters with trials, "
                         f"got {n} and {len(dens)}")
    total = math.fsum(dens)
    r = math.fsum(nums) / total
    v = (n / (n - 1) * math.fsum((a - r * b) ** 2 for a, b in zip(nums, dens)) / total ** 2
         if n > 1 else 0.0)
    n_eff = r * (1 - r) / v if v > 0 and 0 < r < 1 else float(n)
    z2 = z * z
    centre = (r + z2 / (2 * n_eff)) / (1 + z2 / n_eff)
    half = z * math.sqrt(r * (1 - r) / n_eff + z2 / (4 * n_eff ** 2)) / (1 + z2 / n_eff)
    return max(0.0, centre - half), min(1.0, centre + half)

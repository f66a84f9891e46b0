"""Timing statistics, computed by the parent from the raw per-call times (stdlib only).

The median's confidence interval is distribution-free: for n sorted samples, the interval
[x_(l), x_(u)] covers the true median with probability >= 95% when l and u are chosen from the
Binomial(n, 1/2) distribution (order statistics), so no normality is assumed about kernel times,
which are skewed (clock changes, interference).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    mean: float
    p10: float
    p90: float
    min: float
    max: float
    ci_low: float
    ci_high: float

    @property
    def ci_half_width_rel(self) -> float:
        """Largest distance from the median to an end of its 95% CI, relative to the median."""
        if self.median <= 0:
            return math.inf
        return max(self.median - self.ci_low, self.ci_high - self.median) / self.median


def median_ci_ranks(n: int, confidence: float = 0.95) -> tuple[int, int]:
    """0-based ranks (lo, hi) of the order statistics bounding the median's CI.

    lo is the largest rank with P(B <= lo) <= alpha/2 where B ~ Binomial(n, 1/2); the interval
    [x_(lo), x_(n-1-lo)] then has coverage >= confidence. For tiny n no such rank exists and the
    interval is the full sample range.
    """
    if n <= 0:
        raise ValueError("no samples")
    alpha = 1.0 - confidence
    if n > 2000:
        # Normal approximation, exact enough here and O(1).
        half = 0.5 * 1.959963984540054 * math.sqrt(n)
        lo = max(0, math.floor(n / 2 - half) - 1)
        return lo, n - 1 - lo
    # Walk the Binomial(n, 1/2) pmf upwards in log space: pmf(k+1) = pmf(k) * (n-k)/(k+1).
    log_pmf = -n * math.log(2.0)
    cdf = 0.0
    lo = -1
    for k in range(n // 2 + 1):
        cdf += math.exp(log_pmf)
        if cdf > alpha / 2:
            break
        lo = k
        log_pmf += math.log(n - k) - math.log(k + 1)
    if lo < 0:
        return 0, n - 1
    return lo, n - 1 - lo


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    if not sorted_values:
        raise ValueError("no samples")
    pos = q * (len(sorted_values) - 1)
    low = math.floor(pos)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (pos - low)


def summarize(values: Sequence[float], confidence: float = 0.95) -> Summary:
    if not values:
        raise ValueError("no samples")
    data = sorted(float(v) for v in values)
    n = len(data)
    lo, hi = median_ci_ranks(n, confidence)
    return Summary(
        n=n,
        median=quantile(data, 0.5),
        mean=math.fsum(data) / n,
        p10=quantile(data, 0.1),
        p90=quantile(data, 0.9),
        min=data[0],
        max=data[-1],
        ci_low=data[lo],
        ci_high=data[hi],
    )


def geometric_mean(values: Sequence[float]) -> float:
    """exp(mean(log v)): computed in log space so many small times neither underflow nor lose
    precision in a running product."""
    if not values:
        raise ValueError("no values")
    if any(v <= 0 or not math.isfinite(v) for v in values):
        raise ValueError(f"geometric mean needs positive finite values, got {list(values)}")
    return math.exp(math.fsum(math.log(v) for v in values) / len(values))


def ci_converged(values: Sequence[float], target_rel: float) -> bool:
    """Whether the 95% CI half-width of the median is within target_rel of the median."""
    if len(values) < 5:
        return False
    return summarize(values).ci_half_width_rel <= target_rel

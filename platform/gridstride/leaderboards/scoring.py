"""Score arithmetic shared by the boards and their maintenance (no database access)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any


def geomean(values: Iterable[float | None]) -> float | None:
    """Geometric mean computed in log space; None when any value is missing or not positive."""
    logs = []
    for v in values:
        if v is None or not v > 0:
            return None
        logs.append(math.log(v))
    return math.exp(sum(logs) / len(logs)) if logs else None


# Fewer timed calls than this on any shape and a 95% interval of the median says little (a CPU
# run's n=2 gives +-30 %): such a run has no score interval, so it ties with nobody.
TIE_MIN_SAMPLES = 10


def score_interval(benchmarks: Sequence[dict[str, Any]] | None) -> tuple[float | None, float | None]:
    """The score's interval: geometric means of the shapes' CI bounds (same space as the score);
    none when a shape was timed fewer than TIE_MIN_SAMPLES times."""
    if not benchmarks:
        return None, None
    if any(not isinstance(b.get("n"), int) or b["n"] < TIE_MIN_SAMPLES for b in benchmarks):
        return None, None
    return geomean(b.get("ci_low_us") for b in benchmarks), geomean(b.get("ci_high_us") for b in benchmarks)


def speedup_of(benchmarks: Sequence[dict[str, Any]] | None) -> float | None:
    if not benchmarks:
        return None
    return geomean(b.get("speedup_vs_reference") for b in benchmarks)

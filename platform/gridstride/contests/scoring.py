"""Contest scoring formats, as a registry: a format is one function from a participant's judged
runs to a Score. Adding one is a function decorated with @register and a test of its math.

Scores compare in one direction: more problems solved first, then the lower `value` (a cost:
a runtime, an inverse speedup, a time penalty). `low` and `high` bound the value from the
judge's confidence intervals, by the practice boards' rule (leaderboards.scoring.score_interval:
no interval when a shape was timed fewer than TIE_MIN_SAMPLES times); the board ties two rows
whose bounds overlap, as practice boards do (leaderboards.queries.assign_ranks).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from gridstride.leaderboards.scoring import geomean, score_interval
from gridstride.pages import units

# Verdicts that cost a penalty in the solved-count format: the judge said the code was wrong.
# A compile error or the judge's own failure costs nothing (as in ICPC-style rounds).
PENALIZED = ("wrong_answer", "runtime_error", "time_limit", "memory_limit", "rejected")
PENALTY_MINUTES = 20


@dataclass(frozen=True)
class Run:
    """One judged full submission of a participant, as the formats see it."""

    submission_id: int
    problem_id: int
    created_at: datetime
    # Minutes from the participant's start to this submission (their own window when virtual).
    minutes: float
    verdict: str
    score_us: float | None
    benchmarks: Sequence[dict[str, Any]] = ()

    @property
    def accepted(self) -> bool:
        return self.verdict == "accepted"


@dataclass
class Score:
    solved: int = 0
    value: float | None = None
    low: float | None = None
    high: float | None = None
    text: str = "—"
    # Which submission counts for each problem, and when the last of them was sent.
    best: dict[int, int] = field(default_factory=dict)
    achieved_at: datetime | None = None


@dataclass(frozen=True)
class Format:
    key: str
    label: str
    describe: str
    score: Callable[[Sequence[Run]], Score]


FORMATS: dict[str, Format] = {}
DEFAULT_FORMAT = "geomean_runtime"


def register(key: str, label: str, describe: str) -> Callable[[Callable[[Sequence[Run]], Score]], Callable]:
    def add(fn: Callable[[Sequence[Run]], Score]) -> Callable[[Sequence[Run]], Score]:
        FORMATS[key] = Format(key, label, describe, fn)
        return fn

    return add


def choices() -> list[tuple[str, str]]:
    return [(f.key, f.label) for f in FORMATS.values()]


def get(key: str) -> Format:
    return FORMATS.get(key) or FORMATS[DEFAULT_FORMAT]


def _shape_medians(run: Run) -> list[float | None]:
    """Each benchmark shape's median; the run's score when it has no shapes."""
    return [b.get("median_us") for b in run.benchmarks] if run.benchmarks else [run.score_us]


def _best_by(runs: Sequence[Run], key: Callable[[Run], float | None]) -> dict[int, Run]:
    """Per problem, the accepted run with the lowest key (the earliest of equal ones)."""
    best: dict[int, Run] = {}
    for run in sorted(runs, key=lambda r: (r.created_at, r.submission_id)):
        k = key(run) if run.accepted else None
        if k is None:
            continue
        held = best.get(run.problem_id)
        held_key = key(held) if held else None
        if held_key is None or k < held_key:
            best[run.problem_id] = run
    return best


Shapes = Sequence[dict[str, Any]]


def _geomean_score(
    best: dict[int, Run], values: Callable[[Run], list[float | None]], shapes: Callable[[Run], Shapes]
) -> Score:
    """The geometric mean of `values` over every shape of the counted runs, and its interval by
    the practice boards' rule over the same shapes (`shapes`: CI bounds in the value's units)."""
    score = Score(solved=len(best), best={p: r.submission_id for p, r in best.items()})
    if best:
        score.value = geomean(v for run in best.values() for v in values(run))
        per_run = [shapes(run) for run in best.values()]
        # A counted run without timed shapes leaves the pooled score without an interval.
        if all(per_run):
            score.low, score.high = score_interval([shape for run_shapes in per_run for shape in run_shapes])
        score.achieved_at = max(r.created_at for r in best.values())
    return score


def _run_geomean(run: Run) -> float | None:
    return geomean(_shape_medians(run))


@register(
    "geomean_runtime",
    "Geometric mean of runtime",
    "Problems solved, then the geometric mean of the median time over every benchmark shape of the "
    "solved problems (lower is better); each problem counts its participant's fastest accepted run.",
)
def geomean_runtime(runs: Sequence[Run]) -> Score:
    score = _geomean_score(_best_by(runs, _run_geomean), _shape_medians, lambda run: run.benchmarks)
    score.text = units.duration_us(score.value) if score.value is not None else "—"
    return score


def _inverse_speedups(run: Run) -> list[float | None]:
    """1 / speedup per shape (a cost): median over the reference's median."""
    return [_ratio(b.get("median_us"), ref) for b, ref in _references(run)] or [None]


def _relative_shapes(run: Run) -> list[dict[str, Any]]:
    """The shapes with their CI bounds over the reference's median (the inverse speedup's units)."""
    return [
        {"n": b.get("n"), "ci_low_us": _ratio(b.get("ci_low_us"), ref), "ci_high_us": _ratio(b.get("ci_high_us"), ref)}
        for b, ref in _references(run)
    ]


def _references(run: Run) -> list[tuple[dict[str, Any], float]]:
    """(shape, reference median) for every shape; none when any shape lacks a reference time."""
    refs = [(b, b.get("reference_median_us")) for b in run.benchmarks]
    found = [(b, float(ref)) for b, ref in refs if isinstance(ref, (int, float)) and ref > 0]
    return found if len(found) == len(refs) else []


def _ratio(value: float | None, ref: float) -> float | None:
    return value / ref if value is not None and value > 0 else None


@register(
    "geomean_speedup",
    "Geometric-mean speedup over the reference",
    "Problems solved, then the geometric mean over every benchmark shape of the speedup over the "
    "problem's reference kernel (higher is better).",
)
def geomean_speedup(runs: Sequence[Run]) -> Score:
    best = _best_by(runs, lambda r: geomean(_inverse_speedups(r)))
    score = _geomean_score(best, _inverse_speedups, _relative_shapes)
    if score.value is not None:
        # The cost is 1/speedup; people read the speedup.
        score.text = units.factor(1.0 / score.value)
    elif score.solved:
        score.value = math.inf
        score.text = "no reference time"
    return score


@register(
    "solved_penalty",
    "Solved count with time penalty",
    f"Problems solved, then the penalty: for each solved problem the minutes from the start to its "
    f"first accepted run plus {PENALTY_MINUTES} minutes for each wrong, failed or rejected run before "
    "it (lower is better). For practice rounds: speed of solving, not of the kernel.",
)
def solved_penalty(runs: Sequence[Run]) -> Score:
    first: dict[int, Run] = {}
    failed: dict[int, int] = {}
    for run in sorted(runs, key=lambda r: (r.created_at, r.submission_id)):
        if run.problem_id in first:
            continue
        if run.accepted:
            first[run.problem_id] = run
        elif run.verdict in PENALIZED:
            failed[run.problem_id] = failed.get(run.problem_id, 0) + 1
    penalty = sum(math.floor(r.minutes) + PENALTY_MINUTES * failed.get(p, 0) for p, r in first.items())
    score = Score(solved=len(first), best={p: r.submission_id for p, r in first.items()})
    if first:
        # Exact: equal penalties tie, nothing else does.
        score.value = score.low = score.high = float(penalty)
        score.achieved_at = max(r.created_at for r in first.values())
        score.text = f"{len(first)} solved, {penalty} min"
    return score

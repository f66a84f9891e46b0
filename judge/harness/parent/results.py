"""The report's pieces, computed by the parent from raw observations: a correctness case's
result and message, a benchmark shape's statistics, and the report made safe for JSON."""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict
from typing import Any

from judge import spec as specmod
from judge.harness.common.frames import Times
from judge.harness.common.stats import summarize
from judge.protocol import CaseResult, Mismatch, Report, ShapeTiming


def shape_timing(
    spec: specmod.ProblemSpec,
    name: str,
    sizes: dict[str, int],
    times: Times,
    floor: float,
    baseline: float | None,
) -> ShapeTiming:
    """Statistics of one shape's timed calls, as % of the roofline floor and against the baseline."""
    summary = summarize(times.times_us)
    flops = spec.cost.flops_for(sizes)
    nbytes = spec.cost.bytes_for(sizes)
    return ShapeTiming(
        name=name,
        sizes=sizes,
        n=summary.n,
        median_us=round(summary.median, 4),
        mean_us=round(summary.mean, 4),
        p10_us=round(summary.p10, 4),
        p90_us=round(summary.p90, 4),
        min_us=round(summary.min, 4),
        ci_low_us=round(summary.ci_low, 4),
        ci_high_us=round(summary.ci_high, 4),
        flops=flops,
        bytes=nbytes,
        gbps=round(nbytes / (summary.median * 1e-6) / 1e9, 2),
        tflops=round(flops / (summary.median * 1e-6) / 1e12, 4),
        sol_pct=round(floor / summary.median * 100.0, 2) if floor > 0 else 0.0,
        floor_us=round(floor, 4),
        reference_median_us=round(baseline, 4) if baseline else None,
        speedup_vs_reference=round(baseline / summary.median, 3) if baseline else None,
        launch_cover_us=cover_us(times),
        set_medians_us=set_medians(times),
    )


def cover_us(times: Times) -> float | None:
    return round(times.cover_us, 1) if times.cover_us >= 0 else None


def set_medians(times: Times) -> list[float]:
    by_set: dict[int, list[float]] = {}
    for value, index in zip(times.times_us, times.sets, strict=True):
        by_set.setdefault(index, []).append(value)
    return [round(statistics.median(by_set[k]), 3) for k in sorted(by_set)]


def slow_drains(drains_us: list[float], times_us: list[float], config: Any) -> list[tuple[float, float]]:
    """(drain, call time) of the timed calls whose drain was longer than an idle device's."""
    return [
        (d, t) for d, t in zip(drains_us, times_us, strict=True) if d > max(config.drain_abs_us, config.drain_rel * t)
    ]


def drains_show_hidden_work(slow: int, calls: int, config: Any) -> bool:
    """More slow drains than the host's scheduling noise explains (see JudgeConfig.drain_tolerated_share)."""
    return slow > max(2, config.drain_tolerated_share * calls)


def fmt(x: float) -> str:
    return f"{x:.6g}"


def case_result(
    label: str, sizes: dict[str, int], results: list[tuple[str, Any]], tolerance: Any, returned: bool
) -> CaseResult:
    failed = [(name, c) for name, c in results if not c.passed]
    name, worst = failed[0] if failed else max(results, key=lambda r: r[1].max_abs_err)
    result = CaseResult(
        name=label,
        sizes=sizes,
        passed=not failed,
        output=name,
        max_abs_err=worst.max_abs_err,
        max_rel_err=worst.max_rel_err,
        rel_l2=worst.rel_l2,
        tolerance=asdict(tolerance),
        mismatch_count=worst.mismatch_count,
        mismatches=[Mismatch(**m) for m in worst.mismatches],
        positions=worst.positions,
    )
    if failed:
        parts = []
        for out_name, c in failed:
            if c.unwritten == c.total:
                parts.append(f"{out_name} was not written at all (every element still holds the poison value)")
                continue
            text = f"{out_name}: {c.reason}"
            if c.mismatches:
                m = c.mismatches[0]
                text += f"; first at {m['index']}: expected {fmt(m['expected'])}, got {fmt(m['got'])}"
            if c.unwritten:
                text += f"; {c.unwritten} elements were never written (they still hold the poison value)"
            parts.append(text)
        if returned:
            parts.append("solve() returned a value: results must be written into the output tensors, not returned")
        result.message = "; ".join(parts)
    return result


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def sanitize(report: Report) -> None:
    """Replace NaN/Inf in the report by strings ("nan", "inf", "-inf"): JSON has no such numbers
    and PostgreSQL's jsonb rejects them."""
    for case in report.cases:
        case.max_abs_err = _finite(case.max_abs_err)
        case.max_rel_err = _finite(case.max_rel_err)
        case.rel_l2 = _finite(case.rel_l2)
        for m in case.mismatches:
            m.expected = _finite(m.expected)
            m.got = _finite(m.got)
            m.abs_err = _finite(m.abs_err)
            m.rel_err = _finite(m.rel_err)

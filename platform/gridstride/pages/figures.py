"""A report's figures as text, for the API: the strings the page shows, so the CLI prints them
as they are and never formats a number itself (pages/units.py is the one formatter)."""

from __future__ import annotations

from typing import Any

from gridstride.pages import units
from gridstride.pages.reports import ReportView


def figures(view: ReportView) -> dict[str, Any]:
    """The report's figures as the page shows them, for the API (and so the CLI, which prints
    these strings and formats nothing itself)."""
    return {
        "summary": str(view.message) if view.verdict == "accepted" else "",
        "verdict": view.verdict_text,
        "unranked": view.unranked_reason,
        "cases": f"{view.cases_passed}/{len(view.cases)} cases passed" if view.cases else "",
        "score": units.duration_us(view.score_us) if view.score_us is not None else "",
        "sol": units.percent(view.sol_pct),
        "speedup": units.factor(view.speedup),
        "rank": rank_text(view),
        "shapes": [
            {
                "name": s.name,
                "sizes": s.sizes,
                "median": units.duration_us(s.median_us),
                "ci": units.half_width(s.ci_low_us, s.ci_high_us, s.median_us),
                "n": units.count(s.n),
                "bandwidth": units.bandwidth_gbps(s.gbps),
                "compute": units.tflops_rate(s.tflops),
                "sol": units.percent(s.sol_pct),
                "speedup": units.factor(s.speedup),
                "bound": "memory" if s.memory_bound else "compute",
            }
            for s in view.shapes
        ],
        "failures": [
            {
                "name": c.name,
                "sizes": c.sizes,
                "output": c.output,
                "message": c.message,
                "positions": c.positions,
                "out_of_tolerance": units.plural(c.mismatch_count, "element") if c.mismatch_count else "",
                "max_abs_err": units.error(c.max_abs_err),
                "max_rel_err": units.error(c.max_rel_err),
                "tolerance": c.tolerance,
                "mismatches": [
                    {
                        "index": m["index_text"],
                        "expected": units.scalar(m.get("expected")),
                        "got": units.scalar(m.get("got")),
                        "abs_err": units.error(m.get("abs_err")),
                        "rel_err": units.error(m.get("rel_err")),
                    }
                    for m in c.mismatches
                ],
            }
            for c in view.failures
        ],
        "failures_total": view.failures_total,
    }


def rank_text(view: ReportView) -> str:
    """'rank 3', 'rank 2 (tied)'; nothing for a run that is not on a ranked board."""
    if not view.ranked or not view.rank:
        return ""
    return f"rank {view.rank}" + (" (tied)" if view.rank_tied else "")

"""What the final re-run found, as signals for the organizers' review (docs/contests.md).

A result is final only when nothing here gives a reason: the re-run (fresh seeds, the hidden
shapes) was accepted, its time agrees with the live one within the measurement tolerance, and
its code resembles no other participant's. Signals are evidence for people; the review decides.
"""

from __future__ import annotations

from typing import Any

from gridstride.contests.models import Contest, FinalRun
from gridstride.leaderboards.scoring import geomean
from gridstride.pages import units
from gridstride.submissions.models import Submission

HIDDEN_PREFIX = "hidden-"


def _public_shapes(report: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    shapes = (report or {}).get("benchmarks") or []
    return {
        b["name"]: b for b in shapes if isinstance(b, dict) and not str(b.get("name", "")).startswith(HIDDEN_PREFIX)
    }


def timing_agreement(live: Submission, rerun: Submission, tolerance_pct: float) -> dict[str, Any]:
    """Compare the live and re-run times on the public shapes both judged.

    Each side's interval is the geometric mean of its shapes' CI bounds (the boards' interval);
    the two agree when the intervals, each widened by `tolerance_pct`, overlap. Without CIs (a
    report with no shapes) the scores themselves are compared within the tolerance."""
    slack = tolerance_pct / 100.0
    live_shapes, rerun_shapes = _public_shapes(live.report), _public_shapes(rerun.report)
    common = [name for name in live_shapes if name in rerun_shapes]
    result: dict[str, Any] = {"tolerance_pct": tolerance_pct, "shapes": common}
    if common:
        lv = [live_shapes[n].get("median_us") for n in common]
        rv = [rerun_shapes[n].get("median_us") for n in common]
        live_low = geomean(live_shapes[n].get("ci_low_us") for n in common)
        live_high = geomean(live_shapes[n].get("ci_high_us") for n in common)
        rerun_low = geomean(rerun_shapes[n].get("ci_low_us") for n in common)
        rerun_high = geomean(rerun_shapes[n].get("ci_high_us") for n in common)
        live_us, rerun_us = geomean(lv), geomean(rv)
    else:
        live_us, rerun_us = live.score_us, rerun.score_us
        live_low = live_high = live_us
        rerun_low = rerun_high = rerun_us
    result.update(live_us=live_us, rerun_us=rerun_us)
    if None in (live_low, live_high, rerun_low, rerun_high) or live_us is None or rerun_us is None:
        result["agrees"] = False
        result["why"] = "the live or the re-run report has no time to compare"
        return result
    assert live_low is not None and live_high is not None and rerun_low is not None and rerun_high is not None
    agrees = rerun_low * (1 - slack) <= live_high * (1 + slack) and live_low * (1 - slack) <= rerun_high * (1 + slack)
    result["agrees"] = bool(agrees)
    result["ratio"] = rerun_us / live_us if live_us else None
    if not agrees:
        result["why"] = (
            f"re-run {units.duration_us(rerun_us)} against live {units.duration_us(live_us)} "
            f"({rerun_us / live_us:.2f}x), beyond the confidence intervals and {tolerance_pct:g}% tolerance"
        )
    return result


def judge_signals(final_run: FinalRun, rerun: Submission, contest: Contest) -> dict[str, Any]:
    """Everything the review shows, and the reasons (empty: the result is final)."""
    live = Submission.objects.get(pk=final_run.live_id)
    reasons: list[str] = []
    signals: dict[str, Any] = {
        "verdict": rerun.verdict,
        "message": rerun.message[:2000],
        "live_verdict": live.verdict,
    }
    if rerun.verdict != "accepted":
        label = rerun.get_verdict_display().lower()
        reasons.append(
            f"the re-run was not accepted ({label}: {rerun.message[:300]})"
            if rerun.message
            else f"the re-run was {label}"
        )
    else:
        timing = timing_agreement(live, rerun, contest.rerun_tolerance_pct)
        signals["timing"] = timing
        if not timing["agrees"]:
            reasons.append(f"timing disagreement: {timing.get('why', '')}")
    signals["reasons"] = reasons
    return signals

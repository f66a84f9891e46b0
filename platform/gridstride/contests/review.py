"""What the final re-run found, as signals for the organizers' review (docs/contests.md).

A result is final only when nothing here gives a reason: the re-run (fresh seeds, the hidden
shapes) was accepted, its time agrees with the live one within the measurement tolerance, and
its code resembles no other participant's. Signals are evidence for people; the review decides.
"""

from __future__ import annotations

from typing import Any

from gridstride.contests.models import Contest, FinalRun
from gridstride.leaderboards.scoring import geomean
from gridstride.lib import similarity
from gridstride.lib.variation import is_hidden_name
from gridstride.pages import units
from gridstride.submissions.models import Submission

# Share of the smaller winnowing fingerprint found in the other participant's code at or above which
# the pair goes to review (lib/similarity: renamed variables and reordered functions keep it high).
SIMILAR_AT = 0.8


def _public_shapes(report: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    shapes = (report or {}).get("benchmarks") or []
    return {b["name"]: b for b in shapes if isinstance(b, dict) and not is_hidden_name(b.get("name"))}


def similar_participants(final_run: FinalRun, live: Submission) -> list[dict[str, Any]]:
    """Other participants whose counted code for the same problem resembles this one, starter
    code discounted (everyone begins from it)."""
    others = (
        FinalRun.objects.filter(contest_id=final_run.contest_id, problem_id=final_run.problem_id)
        .exclude(participant_id=final_run.participant_id)
        .values_list("participant__name", "live__source")
    )
    starters = list((live.problem_version.starters or {}).values()) if live.problem_version else []
    seen: dict[str, str] = {}
    for name, source in others:
        seen.setdefault(name, source)  # one per participant (a result per GPU model shares code)
    matches = similarity.closest(live.source, seen.items(), ignore_sources=starters, limit=3)
    return [{"participant": m.label, "score": round(m.score * 100, 1)} for m in matches if m.score >= SIMILAR_AT]


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
    live = Submission.objects.select_related("problem_version").get(pk=final_run.live_id)
    reasons: list[str] = []
    # What the participant reads while the review runs: no judge message (it can name a hidden
    # shape's sizes), no other participant's name.
    told: list[str] = []
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
        told.append(f"the re-run was not accepted ({label})")
    else:
        timing = timing_agreement(live, rerun, contest.rerun_tolerance_pct)
        signals["timing"] = timing
        if not timing["agrees"]:
            reasons.append(f"timing disagreement: {timing.get('why', '')}")
            told.append("the re-run's time does not agree with the live one")
    similar = similar_participants(final_run, live)
    signals["similar"] = similar
    for match in similar:
        reasons.append(f"code {match['score']:g}% similar to {match['participant']}'s on this problem")
    if similar:
        told.append("the code resembles another participant's")
    signals["reasons"] = reasons
    signals["told"] = told
    return signals

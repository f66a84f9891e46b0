"""What reviewers read: one candidate's report, the comparison across candidates, and the summary
the CSV export, the webhook and the API share (one shape, built here)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from gridstride.assessments import actions, integrity
from gridstride.assessments.models import Assessment, Candidate, EventKind, PageEvent, Snapshot
from gridstride.catalog.models import Problem
from gridstride.leaderboards.scoring import speedup_of
from gridstride.submissions.models import Context, Mode, Status, Submission, Verdict

_ROW_FIELDS = (
    "pk", "public_id", "owner_id", "problem_id", "language", "mode", "status", "verdict", "score_us", "sol_pct",
    "created_at", "finished_at", "queue_wait_s", "message",
)  # fmt: skip


def _rows(assessment: Assessment, owner_id: int | None = None) -> list[dict[str, Any]]:
    qs = Submission.objects.filter(context=Context.ASSESSMENT, context_key=assessment.context_key)
    if owner_id is not None:
        qs = qs.filter(owner_id=owner_id)
    return list(qs.order_by("created_at", "pk").values(*_ROW_FIELDS))


def _is_correct(row: dict[str, Any]) -> bool:
    return row["status"] == Status.DONE and row["verdict"] == Verdict.ACCEPTED and row["mode"] == Mode.SUBMIT


def _best(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    correct = [r for r in rows if _is_correct(r) and r["score_us"] is not None]
    if not correct:
        correct = [r for r in rows if _is_correct(r)]
    return (
        min(correct, key=lambda r: (r["score_us"] if r["score_us"] is not None else float("inf"), r["created_at"]))
        if correct
        else None
    )


@dataclass
class ProblemResult:
    problem: Problem
    attempts: int
    best: dict[str, Any] | None
    first_correct_s: float | None
    speedup: float | None = None
    report: dict[str, Any] | None = None  # the best run's full report (hidden shapes included)
    percentile: float | None = None


@dataclass
class Summary:
    candidate: Candidate
    state: str
    deadline: datetime | None
    queue_credit_s: float
    problems: list[ProblemResult] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def solved(self) -> int:
        return sum(1 for p in self.problems if p.best)

    def as_dict(self) -> dict[str, Any]:
        c = self.candidate
        return {
            "candidate": c.pk,
            "username": c.user.get_username(),
            "email": c.user.email,
            "name": c.invitation.name if c.invitation else "",
            "state": self.state,
            "started_at": c.started_at.isoformat() if c.started_at else None,
            "finished_at": c.finished_at.isoformat() if c.finished_at else None,
            "finish_reason": c.finish_reason,
            "extra_time_pct": c.extra_pct,
            "queue_credit_s": round(self.queue_credit_s, 1),
            "solved": self.solved,
            "problems": [
                {
                    "problem": p.problem.slug,
                    "title": p.problem.title,
                    "attempts": p.attempts,
                    "solved": p.best is not None,
                    "best_submission": str(p.best["public_id"]) if p.best else None,
                    "language": p.best["language"] if p.best else None,
                    "score_us": p.best["score_us"] if p.best else None,
                    "sol_pct": p.best["sol_pct"] if p.best else None,
                    "speedup_vs_reference": p.speedup,
                    "time_to_first_correct_s": p.first_correct_s,
                    "percentile": p.percentile,
                }
                for p in self.problems
            ],
        }


def summarize(
    candidate: Candidate,
    problems: list[Problem],
    rows: list[dict[str, Any]],
    now: datetime,
    *,
    with_reports: bool = False,
    reports: dict[int, Any] | None = None,
) -> Summary:
    """One candidate's results from their submission rows. `reports` (pk -> report) are the best
    runs' reports when the caller fetched them for many candidates at once; else one query here."""
    credit = actions.queue_credit(candidate, now, [(r["created_at"], r["queue_wait_s"], r["status"]) for r in rows])
    summary = Summary(
        candidate=candidate,
        state=actions.state_of(candidate, now, credit),
        deadline=actions.deadline_of(candidate, now, credit),
        queue_credit_s=credit.total_seconds(),
        rows=rows,
    )
    for problem in problems:
        mine = [r for r in rows if r["problem_id"] == problem.pk]
        first = next((r for r in mine if _is_correct(r)), None)
        first_s = (
            (first["created_at"] - candidate.started_at).total_seconds() if first and candidate.started_at else None
        )
        summary.problems.append(ProblemResult(problem, len(mine), _best(mine), first_s))
    if reports is None:
        reports = best_reports([summary])
    for result in summary.problems:
        if result.best:
            report = reports.get(result.best["pk"]) or {}
            result.speedup = speedup_of(report.get("benchmarks"))
            if with_reports:
                result.report = report
    return summary


def best_reports(summaries: list[Summary]) -> dict[int, Any]:
    """The reports of every summary's best runs, in one query."""
    ids = [p.best["pk"] for s in summaries for p in s.problems if p.best]
    return dict(Submission.objects.filter(pk__in=ids).values_list("pk", "report")) if ids else {}


def assessment_problems(assessment: Assessment) -> list[Problem]:
    return list(assessment.problems.select_related("current_version").order_by("order", "slug"))


def comparison(assessment: Assessment, now: datetime) -> tuple[list[Problem], list[Summary]]:
    """Every candidate's summary with per-problem percentiles (share of the other candidates beaten)."""
    problems = assessment_problems(assessment)
    candidates = list(assessment.candidates.select_related("user", "invitation", "assessment"))
    rows = _rows(assessment)
    by_owner: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        by_owner.setdefault(r["owner_id"], []).append(r)
    summaries = [summarize(c, problems, by_owner.get(c.user_id, []), now, reports={}) for c in candidates]
    reports = best_reports(summaries)
    for summary in summaries:
        for result in summary.problems:
            if result.best:
                result.speedup = speedup_of((reports.get(result.best["pk"]) or {}).get("benchmarks"))
    n = len(summaries)
    for i, _problem in enumerate(problems):
        scores = [(s.problems[i].best or {}).get("score_us") for s in summaries]
        for s, mine in zip(summaries, scores, strict=True):
            if mine is None or n < 2:
                continue
            beaten = sum(1 for other in scores if other is None or other > mine)
            s.problems[i].percentile = round(100.0 * beaten / (n - 1), 1)
    return problems, summaries


SORTS = ("name", "state", "solved", "credit")


def sort_summaries(problems: list[Problem], summaries: list[Summary], key: str) -> list[Summary]:
    """?sort= of the comparison table: name, state, solved, credit, or <slug> (score, fastest first)."""
    desc = key.startswith("-")
    key = key.lstrip("-")
    slugs = [p.slug for p in problems]
    if key in slugs:
        i = slugs.index(key)
        ordered = sorted(
            summaries, key=lambda s: (s.problems[i].best is None, (s.problems[i].best or {}).get("score_us") or 0.0)
        )
    elif key == "solved":
        ordered = sorted(summaries, key=lambda s: -s.solved)
    elif key == "credit":
        ordered = sorted(summaries, key=lambda s: -s.queue_credit_s)
    elif key == "state":
        ordered = sorted(summaries, key=lambda s: s.state)
    else:
        ordered = sorted(summaries, key=lambda s: s.candidate.user.get_username().lower())
    return list(reversed(ordered)) if desc else ordered


@dataclass
class Playback:
    problem: str
    frames: list[dict[str, Any]]


def playback(candidate: Candidate) -> list[Playback]:
    """Per problem, the snapshots in time order with the diff from the one before (for the slider)."""
    snaps = list(
        Snapshot.objects.filter(candidate=candidate).select_related("problem").order_by("problem__slug", "at", "id")
    )
    out: list[Playback] = []
    for snap in snaps:
        if not out or out[-1].problem != snap.problem.slug:
            out.append(Playback(snap.problem.slug, []))
        frames = out[-1].frames
        previous = frames[-1]["source"] if frames else ""
        diff = "\n".join(
            difflib.unified_diff(previous.splitlines(), snap.source.splitlines(), "before", "after", lineterm="", n=1)
        )
        offset = (snap.at - candidate.started_at).total_seconds() if candidate.started_at else 0.0
        frames.append(
            {"t": round(offset, 1), "kind": snap.kind, "language": snap.language, "source": snap.source, "diff": diff}
        )
    return out


def signals(candidate: Candidate, summary: Summary) -> integrity.Signals:
    assessment = candidate.assessment
    problems = [p.problem for p in summary.problems]
    finals = _final_code(assessment)
    mine = finals.pop(candidate.user_id, {})
    names = dict(assessment.candidates.values_list("user_id", "user__username"))
    others = {names.get(uid, str(uid)): code for uid, code in finals.items()}
    starters = {
        p.slug: list((p.current_version.starters or {}).values()) if p.current_version else [] for p in problems
    }
    references = {p.slug: integrity.project_solutions(p.slug) for p in problems}
    found = integrity.Signals(similar=integrity.similarity_signals(mine, others, starters, references))
    for event in PageEvent.objects.filter(candidate=candidate).select_related("problem"):
        if event.kind == EventKind.PASTE and event.chars >= integrity.LARGE_PASTE_CHARS:
            offset = (event.at - candidate.started_at).total_seconds() if candidate.started_at else 0.0
            found.pastes.append(
                {
                    "t": round(offset, 1),  # seconds since the start, as the API has always carried it
                    "minute": round(offset / 60, 1),
                    "chars": event.chars,
                    "problem": event.problem.slug if event.problem else "",
                }
            )
        elif event.kind == EventKind.AWAY:
            found.away_count += 1
            found.away_seconds += event.seconds
    slugs = {p.pk: p.slug for p in problems}
    for row in summary.rows:
        if row["verdict"] == Verdict.REJECTED:
            found.rules.append(
                {
                    "submission": str(row["public_id"]),
                    "problem": slugs.get(row["problem_id"], ""),
                    "message": row["message"][:300],
                }
            )
    return found


def _final_code(assessment: Assessment) -> dict[int, dict[str, str]]:
    """user id -> problem slug -> the code that stands for them: their best correct submission's,
    else their latest run's or submit's."""
    finals: dict[int, dict[str, str]] = {}
    best: dict[tuple[int, str], float] = {}
    rows = (
        Submission.objects.filter(context=Context.ASSESSMENT, context_key=assessment.context_key)
        .order_by("created_at", "pk")
        .values_list("owner_id", "problem__slug", "source", "status", "verdict", "mode", "score_us")
    )
    for owner_id, slug, source, status, verdict, mode, score in rows:
        correct = status == Status.DONE and verdict == Verdict.ACCEPTED and mode == Mode.SUBMIT
        key = (owner_id, slug)
        if correct:
            score = float("inf") if score is None else score
            if score < best.get(key, float("inf")) or key not in best:
                best[key] = score
                finals.setdefault(owner_id, {})[slug] = source
        elif key not in best:
            finals.setdefault(owner_id, {})[slug] = source
    return finals


# --- the attempts timeline -------------------------------------------------------------------


def timeline_points(summary: Summary) -> list[dict[str, Any]]:
    """Each run and submit: minutes since the start, problem, mode, verdict, % SOL."""
    c = summary.candidate
    slugs = {p.problem.pk: p.problem.slug for p in summary.problems}
    points = []
    for r in summary.rows:
        minutes = (r["created_at"] - c.started_at).total_seconds() / 60 if c.started_at else 0.0
        points.append(
            {
                "minutes": round(minutes, 2),
                "problem": slugs.get(r["problem_id"], ""),
                "mode": r["mode"],
                "verdict": r["verdict"] or r["status"],
                "sol_pct": r["sol_pct"],
                "queue_wait_s": r["queue_wait_s"],
                "public_id": r["public_id"],
            }
        )
    return points


def timeline_svg(summary: Summary, width: int = 640, height: int = 180) -> str:
    """The attempts as an SVG scatter: time on x, % SOL on y (accepted submits), other attempts on
    the bottom line coloured by verdict. Built with format_html: nothing in it is trusted."""
    from django.utils.html import format_html, format_html_join

    points = timeline_points(summary)
    c = summary.candidate
    total = c.assessment.duration_minutes * (1 + c.extra_pct / 100) + summary.queue_credit_s / 60
    span = max([total, *[p["minutes"] for p in points], 1.0])
    left, right, top, bottom = 40, 10, 10, 24
    w, h = width - left - right, height - top - bottom

    def x(minutes: float) -> float:
        return round(left + w * minutes / span, 1)

    def y(pct: float) -> float:
        return round(top + h * (1 - min(max(pct, 0.0), 100.0) / 100), 1)

    dots = format_html_join(
        "",
        '<circle class="tl-dot v-{}" cx="{}" cy="{}" r="{}"><title>{} min · {} {} · {}{}</title></circle>',
        (
            (
                p["verdict"],
                x(p["minutes"]),
                y(p["sol_pct"]) if p["sol_pct"] is not None else y(0),
                5 if p["mode"] == "submit" else 3.5,
                p["minutes"],
                p["problem"],
                p["mode"],
                p["verdict"],
                f" · {p['sol_pct']:.1f}% SOL" if p["sol_pct"] is not None else "",
            )
            for p in points
        ),
    )
    ticks = format_html_join(
        "",
        '<line class="tl-grid" x1="{}" x2="{}" y1="{}" y2="{}"/><text class="tl-label" x="4" y="{}">{}%</text>',
        ((left, left + w, y(v), y(v), y(v) + 4, v) for v in (0, 50, 100)),
    )
    return format_html(
        '<svg class="timeline" viewBox="0 0 {} {}" role="img" aria-label="Attempts over time">{}{}'
        '<text class="tl-label" x="{}" y="{}">0 min</text><text class="tl-label" x="{}" y="{}" text-anchor="end">{} min</text></svg>',
        width,
        height,
        ticks,
        dots,
        left,
        height - 6,
        left + w,
        height - 6,
        round(span),
    )


# --- CSV ---------------------------------------------------------------------------------------


def _cell(value: Any) -> Any:
    """Spreadsheets run a cell starting with = + - @ as a formula: such text gets a leading quote."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return "" if value is None else value


def csv_header(problems: list[Problem]) -> list[str]:
    head = [
        "username",
        "email",
        "name",
        "state",
        "started_at",
        "finished_at",
        "finish_reason",
        "extra_time_pct",
        "queue_credit_s",
        "solved",
    ]
    for p in problems:
        head += [
            f"{p.slug}_score_us",
            f"{p.slug}_sol_pct",
            f"{p.slug}_speedup",
            f"{p.slug}_percentile",
            f"{p.slug}_attempts",
            f"{p.slug}_first_correct_s",
        ]
    return head


def csv_row(summary: Summary) -> list[Any]:
    d = summary.as_dict()
    row = [
        d["username"],
        d["email"],
        d["name"],
        d["state"],
        d["started_at"],
        d["finished_at"],
        d["finish_reason"],
        d["extra_time_pct"],
        d["queue_credit_s"],
        d["solved"],
    ]
    for p in d["problems"]:
        row += [
            p["score_us"],
            p["sol_pct"],
            p["speedup_vs_reference"],
            p["percentile"],
            p["attempts"],
            p["time_to_first_correct_s"],
        ]
    return [_cell(v) for v in row]

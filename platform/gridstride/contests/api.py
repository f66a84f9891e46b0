"""The contests part of the JSON API (django-ninja router mounted at /api/contests): list, the
live board as the token's user may see it (the freeze applies), submitting, final results."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.utils import timezone
from ninja import Router, Schema

from gridstride.api.auth import TokenAuth, optional_user
from gridstride.contests import actions, board
from gridstride.contests.models import Contest, ContestProblem
from gridstride.contests.windows import phase
from gridstride.submissions.views import status_payload

router = Router(tags=["contests"])


class ContestOut(Schema):
    slug: str
    title: str
    starts_at: datetime
    ends_at: datetime
    freeze_at: datetime | None
    phase: str
    gpu_models: list[str]
    scoring: str
    team_size: int
    final_state: str


class StandingOut(Schema):
    rank: int
    tied: bool
    participant: str
    virtual: bool
    solved: int
    score: float | None
    score_low: float | None
    score_high: float | None
    score_text: str
    achieved_at: datetime | None
    problems: dict[str, str]


class BoardOut(Schema):
    contest: str
    gpu_model: str
    phase: str
    frozen: bool
    standings: list[StandingOut]


class ContestSubmitIn(Schema):
    problem: str  # the contest's label ("A") or the problem's slug
    language: str
    source: str
    mode: str = "submit"
    gpu: str = ""


class Error(Schema):
    detail: str


def _contest_out(c: Contest, now: datetime) -> dict[str, Any]:
    return {
        "slug": c.slug,
        "title": c.title,
        "starts_at": c.starts_at,
        "ends_at": c.ends_at,
        "freeze_at": c.freeze_at,
        "phase": str(phase(c, now)),
        "gpu_models": c.gpu_models,
        "scoring": c.scoring,
        "team_size": c.team_size,
        "final_state": c.final_state,
    }


def _standings(contest: Contest, rows: list[board.Standing]) -> list[dict[str, Any]]:
    labels = {pid: label for pid, label, _ in board.problems_of(contest)}
    return [
        {
            "rank": s.rank,
            "tied": s.tied,
            "participant": s.name,
            "virtual": s.is_virtual,
            "solved": s.score.solved,
            "score": s.score.value,
            "score_low": s.score.low,
            "score_high": s.score.high,
            "score_text": s.score.text,
            "achieved_at": s.score.achieved_at,
            "problems": {labels.get(pid, str(pid)): cell for pid, cell in s.cells.items()},
        }
        for s in rows
    ]


@router.get("", response=list[ContestOut], summary="Contests, newest first")
def list_contests(request: HttpRequest) -> list[dict[str, Any]]:
    now = timezone.now()
    return [_contest_out(c, now) for c in Contest.objects.order_by("-starts_at")[:200]]


@router.get("/{slug}/board", response=BoardOut, summary="The live board as you may see it (frozen during the freeze)")
def live_board(request: HttpRequest, slug: str, gpu: str = "") -> dict[str, Any]:
    contest = get_object_or_404(Contest, slug=slug)
    gpu = gpu if gpu in contest.gpu_models else contest.gpu_models[0]
    viewer = optional_user(request)
    view = board.live_board(contest, gpu, viewer, timezone.now())
    return {
        "contest": contest.slug,
        "gpu_model": gpu,
        "phase": str(view.phase),
        "frozen": view.frozen,
        "standings": _standings(contest, view.standings),
    }


@router.get("/{slug}/results", response={200: list[StandingOut], 404: Error}, summary="Final results")
def results(request: HttpRequest, slug: str, gpu: str = "") -> Any:
    contest = get_object_or_404(Contest, slug=slug)
    if not contest.final_state:
        return 404, {"detail": "No results yet: the final re-run starts after the end."}
    gpu = gpu if gpu in contest.gpu_models else contest.gpu_models[0]
    return 200, _standings(contest, board.final_board(contest, gpu))


@router.post(
    "/{slug}/submissions",
    auth=TokenAuth(),
    response={201: dict[str, Any], 400: Error, 404: Error},
    summary="Run or submit in a contest (you must be registered)",
)
def submit(request: HttpRequest, slug: str, payload: ContestSubmitIn) -> Any:
    contest = get_object_or_404(Contest, slug=slug)
    cp = (
        ContestProblem.objects.select_related("problem").filter(contest=contest, label=payload.problem).first()
        or ContestProblem.objects.select_related("problem")
        .filter(contest=contest, problem__slug=payload.problem)
        .first()
    )
    if cp is None:
        return 404, {"detail": f"No problem {payload.problem!r} in this contest."}
    try:
        submission = actions.submit(
            contest,
            request.auth,  # type: ignore[attr-defined]
            problem=cp.problem,
            language=payload.language,
            source=payload.source,
            mode=payload.mode,
            gpu_model=payload.gpu or contest.gpu_models[0],
        )
    except actions.ContestError as exc:
        return 400, {"detail": exc.message}
    return 201, status_payload(submission)

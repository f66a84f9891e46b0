"""The JSON API (django-ninja): problems, submissions and leaderboards. OpenAPI at /api/openapi.json."""

from __future__ import annotations

import logging
import re
import uuid
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from ninja import NinjaAPI, Swagger

from gridstride.api import schemas
from gridstride.api.auth import TokenAuth, optional_user
from gridstride.catalog.actions import give_up_ladder
from gridstride.catalog.ladder_access import ladder_of, opened_by
from gridstride.catalog.ladder_lock import closed_reason
from gridstride.catalog.models import Ladder, Problem
from gridstride.catalog.ordering import in_learning_order
from gridstride.leaderboards import queries as boards
from gridstride.pages import figures, units
from gridstride.pages import ladders as ladder_pages
from gridstride.submissions import actions as pipeline
from gridstride.submissions.models import Status, Submission
from gridstride.submissions.views import report_context, shown_report, status_payload


class SiteSwagger(Swagger):
    """The interactive reference inside the site's header, with a word for readers without JavaScript."""

    template = "api/docs.html"


api = NinjaAPI(
    title="Gridstride API",
    version="1",
    description=(
        "Problems, submissions and leaderboards of Gridstride. Authenticate with "
        "`Authorization: Bearer <token>`; create tokens on your account's Tokens page."
    ),
    urls_namespace="api",
    docs=SiteSwagger(),
)
token_auth = TokenAuth()
api.add_router("/contests", "gridstride.contests.api.router")
api.add_router("/orgs", "gridstride.assessments.api.router")
logger = logging.getLogger(__name__)


@api.exception_handler(Exception)
def internal_error(request: HttpRequest, exc: Exception) -> HttpResponse:
    """Any failure the API did not answer itself: logged with its traceback here, answered as
    one JSON line (never the traceback, whatever DEBUG says: it names host paths)."""
    logger.exception("API request %s %s failed", request.method, request.path)
    return api.create_response(request, {"detail": "The server failed on this request; it was logged."}, status=500)


def _problem_out(p: Problem) -> dict[str, Any]:
    return {
        "slug": p.slug,
        "title": p.title,
        "track": p.track,
        "difficulty": p.difficulty,
        "tags": p.tags,
        "languages": p.languages,
        "url": reverse("catalog:problem_detail", args=[p.slug]),
    }


@api.get("/problems", response=list[schemas.ProblemOut], tags=["problems"], summary="List problems")
def list_problems(request: HttpRequest) -> list[dict[str, Any]]:
    problems = Problem.objects.public().only("slug", "title", "track", "difficulty", "tags", "languages", "order")
    return [_problem_out(p) for p in in_learning_order(problems)]


@api.get(
    "/problems/{slug}",
    response={200: schemas.ProblemDetailOut, 404: schemas.Error},
    tags=["problems"],
    summary="A problem with its statement, interface and starters",
)
def problem_detail(request: HttpRequest, slug: str) -> Any:
    problem = Problem.objects.public().select_related("current_version").filter(slug=slug).first()
    if problem is None:
        return 404, {"detail": f"No problem {slug!r} (`gridstride problems` lists them)."}
    version = problem.current_version
    if version is None:
        return 404, {"detail": "This problem has no version yet."}
    spec = version.spec
    return {
        **_problem_out(problem),
        "statement": version.statement,
        "starters": version.starters,
        "sizes": spec.get("sizes", []),
        "inputs": spec.get("inputs", []),
        "outputs": spec.get("outputs", []),
        "tolerance": spec.get("tolerance", {}),
        "limits": spec.get("limits", {}),
        "benchmarks": [{"name": c["name"], "sizes": c["sizes"]} for c in spec.get("benchmarks", [])],
        "content_hash": version.content_hash,
        "ranking_hash": version.ranking_hash,
    }


def _ladder_problem(slug: str) -> tuple[Problem, Ladder] | None:
    """A public problem with a ladder (a hidden problem's ladder is never served)."""
    problem = Problem.objects.public().select_related("current_version", "ladder").filter(slug=slug).first()
    stored = ladder_of(problem) if problem else None
    return (problem, stored) if problem and stored else None


def _no_ladder(slug: str) -> tuple[int, dict[str, str]]:
    return 404, {"detail": f"No problem {slug!r} with an optimization ladder (`gridstride problems` lists them)."}


@api.get(
    "/problems/{slug}/ladder",
    auth=token_auth,
    response={200: schemas.LadderOut, 403: schemas.Error, 404: schemas.Error},
    tags=["problems"],
    summary="A problem's optimization ladder, once you solved the problem or gave up",
    description="403 until you have an accepted submission on the problem or confirmed giving up "
    "(POST .../ladder/give-up), and while a contest or your assessment uses the problem (the detail "
    "says until when); 404 for a problem without a ladder.",
)
def problem_ladder(request: HttpRequest, slug: str) -> Any:
    found = _ladder_problem(slug)
    if found is None:
        return _no_ladder(slug)
    problem, stored = found
    user = request.auth  # type: ignore[attr-defined]
    closed = closed_reason(problem, user)
    if closed:
        return 403, {"detail": closed}
    opened = opened_by(problem, user)
    if not opened:
        return 403, {
            "detail": f"The ladder of {problem.slug} opens after an accepted submission on it, or after you give up: "
            f'POST /api/problems/{problem.slug}/ladder/give-up with {{"confirm": true}}.'
        }
    return ladder_pages.as_api(ladder_pages.build(problem, stored, user, opened))


@api.post(
    "/problems/{slug}/ladder/give-up",
    auth=token_auth,
    response={200: schemas.LadderOut, 400: schemas.Error, 403: schemas.Error, 404: schemas.Error},
    tags=["problems"],
    summary="Open a problem's ladder before solving it (recorded; needs confirm: true)",
    description="403, with nothing recorded, while a contest or your assessment uses the problem.",
)
def give_up(request: HttpRequest, slug: str, payload: schemas.GiveUpIn) -> Any:
    found = _ladder_problem(slug)
    if found is None:
        return _no_ladder(slug)
    problem, stored = found
    user = request.auth  # type: ignore[attr-defined]
    closed = closed_reason(problem, user)
    if closed:
        return 403, {"detail": closed}
    if not payload.confirm:
        return 400, {"detail": 'Send {"confirm": true} to open the ladder before solving the problem (it is recorded).'}
    give_up_ladder(user, problem)
    opened = opened_by(problem, user) or ""
    return ladder_pages.as_api(ladder_pages.build(problem, stored, user, opened))


@api.post(
    "/submissions",
    auth=token_auth,
    response={201: schemas.StatusOut, 400: schemas.Error, 404: schemas.Error},
    tags=["submissions"],
    summary="Run (correctness cases) or submit (full judging) a solution",
)
def submit(request: HttpRequest, payload: schemas.SubmitIn) -> Any:
    problem = Problem.objects.public().filter(slug=payload.problem).first()
    if problem is None:
        return 404, {"detail": f"No problem {payload.problem!r}."}
    try:
        submission = pipeline.create_submission(
            owner=request.auth,  # type: ignore[attr-defined]
            problem=problem,
            language=payload.language,
            source=payload.source,
            mode=payload.mode,
            gpu_model=payload.gpu or None,
        )
    except pipeline.SubmissionRefused as exc:
        return 400, {"detail": str(exc)}
    return 201, status_payload(submission)


@api.get(
    "/submissions",
    auth=token_auth,
    response=list[schemas.SubmissionListItem],
    tags=["submissions"],
    summary="Your latest submissions",
)
def my_submissions(request: HttpRequest, problem: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
    qs = Submission.objects.filter(owner=request.auth).select_related("problem")  # type: ignore[attr-defined]
    if problem:
        qs = qs.filter(problem__slug=problem)
    rows = qs.only(
        "public_id",
        "language",
        "mode",
        "status",
        "verdict",
        "gpu_model",
        "score_us",
        "sol_pct",
        "created_at",
        "problem__slug",
    ).order_by("-created_at")[: max(1, min(limit, 100))]
    return [
        {
            "id": str(s.public_id),
            "problem": s.problem.slug,
            "language": s.language,
            "mode": s.mode,
            "status": s.status,
            "verdict": s.verdict,
            "gpu_model": s.gpu_model,
            "score_us": s.score_us,
            "sol_pct": s.sol_pct,
            "created_at": s.created_at,
        }
        for s in rows
    ]


@api.get(
    "/submissions/{submission_id}",
    response={200: schemas.SubmissionOut, 404: schemas.Error},
    tags=["submissions"],
    summary="A submission's status, progress and (once judged) its report",
    description="Your own submissions need your token; public ones can be read by anyone.",
)
def submission_detail(request: HttpRequest, submission_id: str) -> Any:
    user = optional_user(request)
    submission, problem = _find_submission(submission_id, user)
    if problem:
        return 404, {"detail": problem}
    assert submission is not None
    context = report_context(submission)
    view = context["view"]
    return {
        **status_payload(submission),
        "figures": figures.figures(view) if view is not None else None,
        "problem": submission.problem.slug,
        "language": submission.language,
        "owner": submission.owner.get_username(),
        "is_public": submission.is_public,
        "created_at": submission.created_at,
        "source": submission.source,
        "report": shown_report(submission) if submission.status == Status.DONE else None,
    }


# A shorter prefix matches too many of a busy user's submissions to be worth the lookup.
MIN_PREFIX = 4
_HEX = re.compile(r"[0-9a-f-]+")


def _hyphenated_prefix(value: str) -> str:
    """A prefix of the hex digits in the UUID's text form (8-4-4-4-12), which the lookup matches."""
    digits = value.replace("-", "")
    groups, start = [], 0
    for width in (8, 4, 4, 4, 12):
        if start >= len(digits):
            break
        groups.append(digits[start : start + width])
        start += width
    return "-".join(groups)


def _find_submission(submission_id: str, user: Any) -> tuple[Submission | None, str]:
    """The submission a full id or a unique prefix of one of the caller's own ids names, or why not."""
    base = Submission.objects.select_related("problem", "problem_version", "owner")
    public_id = _uuid(submission_id)
    if public_id:
        submission = base.filter(public_id=public_id).first()
        if submission is None or not (
            submission.is_public or (user is not None and (user.pk == submission.owner_id or user.is_staff))
        ):
            return None, f"No submission {submission_id}."
        return submission, ""
    prefix = submission_id.lower()
    if not _HEX.fullmatch(prefix) or len(prefix.replace("-", "")) < MIN_PREFIX:
        return None, f"No submission {submission_id!r}: give an id or at least {MIN_PREFIX} of its first characters."
    if user is None:
        return None, "A short id matches your own submissions only: pass a token (`gridstride login`)."
    found = list(base.filter(owner_id=user.pk, public_id__startswith=_hyphenated_prefix(prefix))[:2])
    if not found:
        return None, f"None of your submissions has an id starting with {submission_id}."
    if len(found) > 1:
        return None, f"More than one of your submissions has an id starting with {submission_id}: give more of it."
    return found[0], ""


def _uuid(value: str) -> str | None:
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None


def _entry_out(e: boards.Entry, ranked: bool) -> dict[str, Any]:
    return {
        "rank": e.rank,
        "rank_text": (f"{e.rank}=" if e.tied else str(e.rank)) if ranked else "",
        "score_text": units.duration_us(e.score_us),
        "interval_text": f"{units.duration_us(e.score_low_us)} \u2013 {units.duration_us(e.score_high_us)}"
        if e.score_low_us and e.score_high_us
        else units.DASH,
        "sol_text": units.percent(e.sol_pct),
        "speedup_text": units.factor(e.speedup),
        "tied": e.tied,
        "user": e.username,
        "language": e.language,
        "score_us": e.score_us,
        "score_low_us": e.score_low_us,
        "score_high_us": e.score_high_us,
        "sol_pct": e.sol_pct,
        "speedup": e.speedup,
        "created_at": e.created_at,
        "submission": str(e.public_id) if e.is_public or e.is_viewer else None,
        "is_viewer": e.is_viewer,
    }


@api.get(
    "/leaderboards/{slug}",
    response={200: schemas.BoardOut, 404: schemas.Error},
    tags=["leaderboards"],
    summary="A problem's leaderboard for one GPU and language",
    description="gpu: e.g. h200 (or cpu: unranked practice runs). language: omit for all languages. "
    "window: all, 30d or 7d.",
)
def leaderboard(
    request: HttpRequest,
    slug: str,
    gpu: str | None = None,
    language: str | None = None,
    window: str = "all",
    limit: int = 100,
) -> Any:
    problem = Problem.objects.public().select_related("current_version").filter(slug=slug).first()
    if problem is None:
        return 404, {"detail": f"No problem {slug!r} (`gridstride problems` lists them)."}
    gpu = gpu or settings.JUDGE_DEFAULT_GPU
    if language and language not in problem.languages:
        return 404, {"detail": f"{problem.slug} has no language {language!r}."}
    if window not in boards.WINDOWS:
        window = "all"
    viewer = optional_user(request)
    board = boards.build_board(problem, gpu, language, window, viewer=viewer, limit=max(1, min(limit, 500)))
    viewer_entry = board.viewer_entry or next((e for e in board.entries if e.is_viewer), None)
    return {
        "problem": problem.slug,
        "gpu": gpu,
        "language": language,
        "window": window,
        "ranked": board.ranked,
        "total": board.total,
        "total_text": units.plural(board.total, "entry", "entries"),
        "entries": [_entry_out(e, board.ranked) for e in board.entries],
        "viewer": _entry_out(viewer_entry, board.ranked) if viewer_entry else None,
    }


@api.get("/me", auth=token_auth, response=schemas.MeOut, tags=["account"], summary="The token's user")
def me(request: HttpRequest) -> dict[str, Any]:
    user = request.auth  # type: ignore[attr-defined]
    return {"username": user.get_username(), "email": user.email}

"""Pages and JSON endpoints of submissions: create (Run / Submit), the live page, its status poll."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode
from uuid import UUID

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from gridstride.catalog.models import Problem
from gridstride.leaderboards import queries as boards
from gridstride.leaderboards.scoring import TIE_MIN_SAMPLES
from gridstride.lib.variation import participant_report
from gridstride.pages import reports
from gridstride.submissions import actions as pipeline
from gridstride.submissions import comparison
from gridstride.submissions.models import Context, Language, Mode, Status, Submission, Verdict

# Columns the status poll needs: never the source or the report (they can be large).
_STATUS_FIELDS = (
    "id",
    "public_id",
    "owner_id",
    "is_public",
    "status",
    "verdict",
    "message",
    "progress",
    "ranked",
    "score_us",
    "sol_pct",
    "gpu_model",
    "priority",
    "mode",
    "context",
    "attempt",
    "created_at",
    "queued_at",
    "finished_at",
)


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def can_view(request: HttpRequest, submission: Submission) -> bool:
    """The owner and staff see everything; others only what the owner made public."""
    user = request.user
    if user.is_authenticated and (user.pk == submission.owner_id or user.is_staff):
        return True
    return submission.is_public


def _visible(request: HttpRequest, public_id: UUID, qs: QuerySet[Submission]) -> Submission:
    submission = get_object_or_404(qs, public_id=public_id)
    if not can_view(request, submission):
        # Not 403: whether a private submission exists is itself private.
        raise Http404("No such submission")
    return submission


def elapsed_seconds(submission: Submission) -> float:
    end = submission.finished_at if submission.status == Status.DONE and submission.finished_at else timezone.now()
    return max(0.0, (end - submission.created_at).total_seconds())


def shown_report(submission: Submission) -> dict[str, Any] | None:
    """The report as these pages and the API show it: an assessment's or contest's without its
    hidden shapes (gridstride.lib.variation); their reviewers read the stored one elsewhere."""
    if submission.context == Context.PRACTICE:
        return submission.report
    return participant_report(submission.report, submission.mode)


def shown_progress(submission: Submission) -> dict[str, Any]:
    progress = dict(submission.progress or {})
    if submission.context != Context.PRACTICE:
        progress.pop("detail", None)  # the child writes it: it could name a hidden shape's sizes
    return progress


def status_payload(submission: Submission) -> dict[str, Any]:
    """What the page's poll and the API's status both return."""
    final = submission.status == Status.DONE
    position = pipeline.queue_position(submission) if submission.status == Status.QUEUED else None
    return {
        "id": str(submission.public_id),
        "status": submission.status,
        "final": final,
        "verdict": submission.verdict,
        "verdict_text": reports.VERDICT_TEXT.get(submission.verdict, submission.verdict),
        "stage": reports.stage_text(submission.status, submission.progress, position),
        "progress": shown_progress(submission),
        "queue_position": position,
        "elapsed_s": round(elapsed_seconds(submission), 1),
        "ranked": submission.ranked,
        "score_us": submission.score_us,
        "sol_pct": submission.sol_pct,
        "gpu_model": submission.gpu_model,
        "mode": submission.mode,
        "url": reverse("submissions:detail", args=[submission.public_id]),
        "report_url": reverse("submissions:report", args=[submission.public_id]),
    }


@require_POST
def create(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        if _wants_json(request):
            return JsonResponse({"error": "Log in to run and submit."}, status=401)
        return redirect(f"{reverse('accounts:login')}?next={request.POST.get('next', '/')}")
    problem = get_object_or_404(Problem.objects.public(), slug=request.POST.get("problem", ""))
    mode = request.POST.get("mode", Mode.RUN)
    if mode not in (Mode.RUN, Mode.SUBMIT):
        return _refused(request, problem, "Mode must be run or submit.")
    try:
        submission = pipeline.create_submission(
            owner=request.user,
            problem=problem,
            language=request.POST.get("language", ""),
            source=request.POST.get("source", ""),
            mode=mode,
            gpu_model=request.POST.get("gpu") or None,
        )
    except pipeline.SubmissionRefused as exc:
        return _refused(request, problem, str(exc))
    if _wants_json(request):
        return JsonResponse(status_payload(submission), status=201)
    return redirect("submissions:detail", public_id=submission.public_id)


def _refused(request: HttpRequest, problem: Problem, message: str) -> HttpResponse:
    if _wants_json(request):
        return JsonResponse({"error": message}, status=400)
    messages.error(request, message)
    return redirect("catalog:problem_detail", slug=problem.slug)


@require_GET
def status(request: HttpRequest, public_id: UUID) -> JsonResponse:
    submission = _visible(request, public_id, Submission.objects.only(*_STATUS_FIELDS))
    response = JsonResponse(status_payload(submission))
    response["Cache-Control"] = "no-store"
    return response


def report_context(submission: Submission) -> dict[str, Any]:
    """The result panel's context: the report view, the best known run and the rank it would take."""
    context: dict[str, Any] = {"submission": submission, "view": None}
    report = shown_report(submission)
    if submission.status != Status.DONE or not report:
        return context
    spec = submission.problem_version.spec or {}
    compute_roof = (spec.get("cost") or {}).get("compute_roof", "fp32")
    best = None
    practice = submission.context == Context.PRACTICE
    if report.get("benchmarks") and practice:
        best = boards.best_known(submission.problem, submission.gpu_model)
    view = reports.build(
        report,
        gpu_model=submission.gpu_model,
        compute_roof=compute_roof,
        best_benchmarks=(best or {}).get("report__benchmarks") if best else None,
        is_best=bool(best and best["public_id"] == submission.public_id),
        language=submission.language,
    )
    # Only a ranked run takes a rank: an unranked one (a CPU host's) is listed without rank words.
    if (
        practice
        and submission.ranked
        and submission.verdict == Verdict.ACCEPTED
        and submission.mode == Mode.SUBMIT
        and submission.score_us
    ):
        view.rank, view.rank_tied = boards.rank_of(
            submission.problem, submission.gpu_model, submission.public_id, submission.score_us, submission.owner_id
        )
    if practice:
        view.board_url = reverse("leaderboards:board", args=[submission.problem.slug]) + f"?gpu={submission.gpu_model}"
    context.update({"view": view, "best": best, "tie_min_samples": TIE_MIN_SAMPLES})
    return context


def _full(request: HttpRequest, public_id: UUID) -> Submission:
    return _visible(
        request,
        public_id,
        Submission.objects.select_related("problem", "problem_version", "owner"),
    )


@require_GET
def detail(request: HttpRequest, public_id: UUID) -> HttpResponse:
    submission = _full(request, public_id)
    is_owner = request.user.is_authenticated and request.user.pk == submission.owner_id
    context = report_context(submission)
    context.update(
        {
            "is_owner": is_owner,
            "status": status_payload(submission),
            "source_lines": submission.source.splitlines() or [""],
            "share_url": request.build_absolute_uri(reverse("submissions:detail", args=[submission.public_id])),
        }
    )
    return render(request, "submissions/detail.html", context)


@require_GET
def report(request: HttpRequest, public_id: UUID) -> HttpResponse:
    """The result panel alone (the problem page and the live page swap it in when judging ends)."""
    submission = _full(request, public_id)
    return render(request, "submissions/_report.html", report_context(submission))


@login_required
@require_POST
def visibility(request: HttpRequest, public_id: UUID) -> HttpResponse:
    make_public = request.POST.get("public") == "1"
    # Only the owner's own row matches; a stranger's request changes nothing and gets a 404.
    # Assessment and contest runs are never made public (their organizers decide what is shown).
    changed = Submission.objects.filter(public_id=public_id, owner_id=request.user.pk, context=Context.PRACTICE).update(
        is_public=make_public
    )
    if not changed:
        raise Http404("No such submission")
    return redirect("submissions:detail", public_id=public_id)


@login_required
@require_GET
def mine(request: HttpRequest) -> HttpResponse:
    """Your submissions, newest first, filterable by problem, language and verdict."""
    qs = (
        Submission.objects.filter(owner_id=request.user.pk)
        .select_related("problem")
        .only(
            "public_id",
            "language",
            "mode",
            "status",
            "verdict",
            "score_us",
            "sol_pct",
            "gpu_model",
            "ranked",
            "is_public",
            "created_at",
            "problem__slug",
            "problem__title",
        )
        .order_by("-created_at")
    )
    filters = {
        "problem": request.GET.get("problem", ""),
        "language": request.GET.get("language", ""),
        "verdict": request.GET.get("verdict", ""),
    }
    if filters["problem"]:
        qs = qs.filter(problem__slug=filters["problem"])
    if filters["language"] in Language.values:
        qs = qs.filter(language=filters["language"])
    if filters["verdict"] == "pending":
        qs = qs.exclude(status=Status.DONE)
    elif filters["verdict"] in Verdict.values:
        qs = qs.filter(verdict=filters["verdict"])
    page = Paginator(qs, 50).get_page(request.GET.get("page"))
    tried = (
        Problem.objects.filter(submissions__owner_id=request.user.pk).distinct().order_by("title").only("slug", "title")
    )
    query = urlencode({k: v for k, v in filters.items() if v})
    context = {
        "page": page,
        "filters": filters,
        "query": query,
        "problems": tried,
        "languages": Language.choices,
        "verdicts": [*Verdict.choices, ("pending", "not judged yet")],
    }
    return render(request, "submissions/mine.html", context)


@login_required
@require_GET
def compare(request: HttpRequest) -> HttpResponse:
    """Two of your own submissions side by side: the code's diff and each shape's timing change."""
    ids = [request.GET.get("a", ""), request.GET.get("b", "")]
    found = {
        str(s.public_id): s
        for s in Submission.objects.filter(
            owner_id=request.user.pk, public_id__in=[i for i in ids if _is_uuid(i)]
        ).select_related("problem")
    }
    if len(found) != 2 or any(i not in found for i in ids):
        raise Http404("Pick two of your own submissions to compare")
    return render(request, "submissions/compare.html", comparison.build(found[ids[0]], found[ids[1]]))


def _is_uuid(value: str) -> bool:
    try:
        UUID(value)
    except ValueError:
        return False
    return True

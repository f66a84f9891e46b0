"""Contest pages: list, create, overview and registration, problems (the practice editor), the
live board, the final results with their exports, the organizers' review and the participant's
own results. Permissions come from contests.permissions; every change from contests.actions."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from gridstride.catalog import picker
from gridstride.catalog.models import Problem
from gridstride.catalog.views import LANGUAGE_NAMES, _benchmark_rows, statement_html
from gridstride.contests import actions, board, scoring
from gridstride.contests.forms import ContestEditForm, ContestForm
from gridstride.contests.models import Contest, ContestProblem, Entry, EntryKind, FinalRun, FinalRunState, Member
from gridstride.contests.permissions import is_organizer
from gridstride.contests.windows import Phase, phase
from gridstride.leaderboards.scoring import TIE_MIN_SAMPLES
from gridstride.lib.markdown import render_markdown
from gridstride.pages.hardware import REFERENCE_GPU
from gridstride.submissions import actions as pipeline
from gridstride.submissions.models import Context, Mode, Status, Submission
from gridstride.submissions.views import status_payload


def _contest(slug: str) -> Contest:
    return get_object_or_404(Contest.objects.select_related("created_by"), slug=slug)


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def contest_list(request: HttpRequest) -> HttpResponse:
    now = timezone.now()
    contests = list(Contest.objects.order_by("-starts_at")[:200])
    groups: dict[str, list[Contest]] = {"running": [], "upcoming": [], "past": []}
    for c in contests:
        p = phase(c, now)
        c.phase = p  # type: ignore[attr-defined]
        groups["upcoming" if p == Phase.BEFORE else "past" if p == Phase.ENDED else "running"].append(c)
    return render(request, "contests/list.html", {"groups": groups})


@login_required
def create(request: HttpRequest) -> HttpResponse:
    form = ContestForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            contest = actions.create_contest(
                creator=request.user,
                slug=d["slug"],
                title=d["title"],
                rules=d["rules"],
                starts_at=d["starts_at"],
                ends_at=d["ends_at"],
                freeze_minutes=d["freeze_minutes"],
                problems=list(d["problems"]),
                gpu_models=d["gpu_models"],
                languages=d["languages"],
                registration=d["registration"],
                invite_code=d["invite_code"],
                team_size=d["team_size"],
                hourly_limit=d["hourly_limit"],
                scoring_format=d["scoring"],
                organizers=d["organizers"],
                rerun_tolerance_pct=d["rerun_tolerance_pct"],
            )
        except actions.ContestError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, f"{contest.title} is set up.")
            public = [p.slug for p in d["problems"] if not p.is_hidden]
            if public:
                messages.warning(request, f"Public problems: {', '.join(public)}. {picker.CONTEST_WARNING}")
            return redirect("contests:detail", slug=contest.slug)
    return render(request, "contests/create.html", {"form": form, "formats": list(scoring.FORMATS.values())})


def _my_jobs(participant_id: int) -> list[dict[str, Any]]:
    """The participant's queued and running jobs with their queue positions."""
    subs = (
        Submission.objects.filter(contest_entry__participant_id=participant_id, contest_entry__kind=EntryKind.LIVE)
        .exclude(status=Status.DONE)
        .select_related("problem")
        .order_by("created_at")[:20]
    )
    return [
        {
            "submission": s,
            "position": pipeline.queue_position(s),
            "url": reverse("submissions:detail", args=[s.public_id]),
        }
        for s in subs
    ]


def detail(request: HttpRequest, slug: str) -> HttpResponse:
    contest = _contest(slug)
    now = timezone.now()
    current = phase(contest, now)
    participant = actions.participant_of(contest, request.user)
    organizer = is_organizer(contest, request.user)
    members = []
    if participant is not None:
        members = list(Member.objects.filter(participant=participant).select_related("user").order_by("joined_at"))
    # Problems open to participants from the start, to everyone once the contest is over.
    show_problems = organizer or current == Phase.ENDED or (participant is not None and current != Phase.BEFORE)
    context = {
        "contest": contest,
        "phase": current,
        "rules_html": render_markdown(contest.rules) if contest.rules else "",
        "participant": participant,
        "members": members,
        "is_captain": participant is not None and participant.captain_id == request.user.pk,
        "organizer": organizer,
        "problems": list(contest.contest_problems.select_related("problem")) if show_problems else [],
        "problem_count": contest.contest_problems.count(),
        "jobs": _my_jobs(participant.pk) if participant is not None else [],
        "format": scoring.get(contest.scoring),
        "participant_count": contest.participants.filter(is_virtual=False).count(),
        "review_count": FinalRun.objects.filter(contest=contest, state=FinalRunState.REVIEW).count()
        if organizer
        else 0,
        "window": participant.window(contest) if participant is not None else None,
    }
    return render(request, "contests/detail.html", context)


@login_required
@require_POST
def register(request: HttpRequest, slug: str) -> HttpResponse:
    contest = _contest(slug)
    try:
        if request.POST.get("join_code"):
            team = actions.join_team(contest, request.user, request.POST["join_code"])
            messages.success(request, f"You joined {team.name}.")
        else:
            actions.register(
                contest,
                request.user,
                invite_code=request.POST.get("invite_code", ""),
                team_name=request.POST.get("team_name", ""),
            )
            messages.success(request, "You are registered.")
    except actions.ContestError as exc:
        messages.error(request, exc.message)
    return redirect("contests:detail", slug=slug)


@login_required
@require_POST
def virtual(request: HttpRequest, slug: str) -> HttpResponse:
    contest = _contest(slug)
    try:
        actions.start_virtual(contest, request.user)
        messages.success(request, "Your virtual contest has started: your clock runs from now.")
    except actions.ContestError as exc:
        messages.error(request, exc.message)
    return redirect("contests:detail", slug=slug)


def _contest_problem(contest: Contest, label: str) -> ContestProblem:
    return get_object_or_404(
        ContestProblem.objects.select_related("problem", "problem__current_version"), contest=contest, label=label
    )


def problem(request: HttpRequest, slug: str, label: str) -> HttpResponse:
    contest = _contest(slug)
    now = timezone.now()
    current = phase(contest, now)
    participant = actions.participant_of(contest, request.user)
    organizer = is_organizer(contest, request.user)
    if not (organizer or current == Phase.ENDED or (participant is not None and current != Phase.BEFORE)):
        raise Http404("No such problem")  # its statement is secret until the start
    cp = _contest_problem(contest, label)
    p = cp.problem
    version = p.current_version
    spec = version.spec if version else {}
    starters = version.starters if version else {}
    allowed = contest.languages or p.languages
    languages = [lang for lang in p.languages if lang in starters and lang in allowed] or list(starters)
    in_window = False
    if participant is not None:
        start, end = participant.window(contest)
        in_window = start <= now < end
    recent: list[Submission] = []
    if request.user.is_authenticated:
        recent = list(
            Submission.objects.filter(owner=request.user, problem=p, context_key=contest.slug)
            .exclude(contest_entry__kind=EntryKind.FINAL)
            .only(
                "public_id", "language", "mode", "status", "verdict", "score_us", "sol_pct", "created_at", "gpu_model"
            )
            .order_by("-created_at")[:8]
        )
    submit_url = reverse("contests:submit", args=[contest.slug, cp.label])
    workspace = {
        "slug": p.slug,
        "languages": [{"id": lang, "name": LANGUAGE_NAMES.get(lang, lang)} for lang in languages],
        "starters": starters,
        "submitUrl": submit_url,
        "loginUrl": f"{reverse('accounts:login')}?next={request.path}",
        "authenticated": request.user.is_authenticated,
        "gpus": contest.gpu_models,
    }
    context = {
        "problem": p,
        "version": version,
        "spec": spec,
        "statement": statement_html(version) if version else {},
        "starters": starters,
        "languages": workspace["languages"],
        "gpus": contest.gpu_models,
        "benchmarks": _benchmark_rows(spec),
        "workspace": workspace,
        "recent": recent,
        "tolerance": spec.get("tolerance") or {},
        "reference_gpu": REFERENCE_GPU,
        "compute_roof": (spec.get("cost") or {}).get("compute_roof", "fp32"),
        "contest": contest,
        "contest_label": cp.label,
        "submit_url": submit_url,
        "contest_note": "Practice: this contest has ended; results here do not enter it."
        if current == Phase.ENDED and not in_window
        else "",
    }
    return render(request, "catalog/problem_detail.html", context)


@require_POST
def submit(request: HttpRequest, slug: str, label: str) -> HttpResponse:
    if not request.user.is_authenticated:
        if _wants_json(request):
            return JsonResponse({"error": "Log in to run and submit."}, status=401)
        return redirect(f"{reverse('accounts:login')}?next={request.POST.get('next', '/')}")
    contest = _contest(slug)
    cp = _contest_problem(contest, label)
    mode = request.POST.get("mode", Mode.RUN)
    fields = {
        "language": request.POST.get("language", ""),
        "source": request.POST.get("source", ""),
        "mode": mode,
        "gpu_model": request.POST.get("gpu") or contest.gpu_models[0],
    }
    now = timezone.now()
    participant = actions.participant_of(contest, request.user)
    in_window = participant is not None and participant.window(contest)[0] <= now < participant.window(contest)[1]
    try:
        if phase(contest, now) == Phase.ENDED and not in_window:
            submission = _practice(contest, request.user, cp.problem, **fields)
        else:
            submission = actions.submit(contest, request.user, problem=cp.problem, **fields)
    except (actions.ContestError, pipeline.SubmissionRefused) as exc:
        message = exc.message
        if _wants_json(request):
            return JsonResponse({"error": message}, status=400)
        messages.error(request, message)
        return redirect("contests:problem", slug=slug, label=label)
    if _wants_json(request):
        return JsonResponse(status_payload(submission), status=201)
    return redirect("submissions:detail", public_id=submission.public_id)


def _practice(contest: Contest, user: Any, problem: Problem, **fields: Any) -> Submission:
    """After the end a contest's problems are open for practice: an ordinary submission."""
    if fields["mode"] not in (Mode.RUN, Mode.SUBMIT):
        raise actions.ContestError("Mode must be run or submit.")
    # A hidden problem of a past contest is practised from the contest's own page.
    return pipeline.create_submission(
        owner=user, problem=problem, context=Context.PRACTICE, allow_hidden=True, **fields
    )


def _gpu(request: HttpRequest, contest: Contest) -> str:
    gpu = request.GET.get("gpu", "")
    return gpu if gpu in contest.gpu_models else contest.gpu_models[0]


def live_board(request: HttpRequest, slug: str) -> HttpResponse:
    contest = _contest(slug)
    gpu = _gpu(request, contest)
    view = board.live_board(contest, gpu, request.user, timezone.now())
    participant = actions.participant_of(contest, request.user)
    virtual_rows = None
    if participant is not None and participant.is_virtual:
        virtual_rows = board.virtual_board(contest, gpu, participant)
    context = {
        "contest": contest,
        "view": view,
        "gpu": gpu,
        "format": scoring.get(contest.scoring),
        "organizer": is_organizer(contest, request.user),
        "virtual_rows": virtual_rows,
        # The tie rule in the practice boards' words (templates/leaderboards/_tie_rule.html).
        "any_tied": any(s.tied for s in view.standings),
        "tie_min_samples": TIE_MIN_SAMPLES,
    }
    return render(request, "contests/board.html", context)


def _final_rows(contest: Contest) -> dict[str, list[board.Standing]]:
    return {gpu: board.final_board(contest, gpu) for gpu in contest.gpu_models}


def results(request: HttpRequest, slug: str) -> HttpResponse:
    contest = _contest(slug)
    states = dict.fromkeys(FinalRunState.values, 0)
    for state in FinalRun.objects.filter(contest=contest).values_list("state", flat=True):
        states[state] += 1
    boards = _final_rows(contest) if contest.final_state else {}
    context = {
        "contest": contest,
        "phase": phase(contest, timezone.now()),
        "boards": boards,
        "any_tied": any(s.tied for rows in boards.values() for s in rows),
        "tie_min_samples": TIE_MIN_SAMPLES,
        "problems": board.problems_of(contest),
        "states": states,
        "format": scoring.get(contest.scoring),
        # Live judgings the re-run waits for (it starts once they are recorded).
        "waiting": Entry.objects.filter(contest=contest, kind=EntryKind.LIVE, participant__is_virtual=False)
        .exclude(submission__status=Status.DONE)
        .count()
        if contest.final_state == "running" and not any(states.values())
        else 0,
    }
    return render(request, "contests/results.html", context)


def _export_rows(contest: Contest) -> list[dict[str, Any]]:
    labels = {pid: label for pid, label, _ in board.problems_of(contest)}
    rows = []
    for gpu, standings in _final_rows(contest).items():
        for s in standings:
            rows.append(
                {
                    "gpu_model": gpu,
                    "rank": s.rank,
                    "tied": s.tied,
                    "participant": s.name,
                    "solved": s.score.solved,
                    "score": s.score.value,
                    "score_low": s.score.low,
                    "score_high": s.score.high,
                    "score_text": s.score.text,
                    "achieved_at": s.score.achieved_at.isoformat() if s.score.achieved_at else None,
                    "problems": {labels.get(pid, str(pid)): cell for pid, cell in s.cells.items()},
                }
            )
    return rows


def results_json(request: HttpRequest, slug: str) -> HttpResponse:
    contest = _contest(slug)
    if not contest.final_state:
        raise Http404("No results yet")
    return JsonResponse(
        {
            "contest": contest.slug,
            "title": contest.title,
            "scoring": contest.scoring,
            "final": contest.final_state == "done",
            "results": _export_rows(contest),
        }
    )


def results_csv(request: HttpRequest, slug: str) -> HttpResponse:
    import csv

    contest = _contest(slug)
    if not contest.final_state:
        raise Http404("No results yet")
    labels = [label for _, label, _ in board.problems_of(contest)]
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{contest.slug}-results.csv"'
    writer = csv.writer(response)
    writer.writerow(["gpu_model", "rank", "tied", "participant", "solved", "score", "score_low", "score_high", *labels])
    for r in _export_rows(contest):
        writer.writerow(
            [
                r["gpu_model"],
                r["rank"],
                "yes" if r["tied"] else "",
                _csv_safe(r["participant"]),
                r["solved"],
                r["score"],
                r["score_low"],
                r["score_high"],
                *[r["problems"].get(label, "") for label in labels],
            ]
        )
    return response


def _csv_safe(text: str) -> str:
    """A cell a spreadsheet would run as a formula gets a leading quote."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _organizer_contest(request: HttpRequest, slug: str) -> Contest:
    contest = _contest(slug)
    if not is_organizer(contest, request.user):
        raise Http404("No such page")  # not 403: the review's existence is the organizers' business
    return contest


@login_required
def review(request: HttpRequest, slug: str) -> HttpResponse:
    contest = _organizer_contest(request, slug)
    runs = list(
        FinalRun.objects.filter(contest=contest)
        .select_related("participant", "problem", "live", "rerun", "decided_by")
        .order_by("state", "id")
    )
    pending = [r for r in runs if r.state == FinalRunState.REVIEW]
    decided = [r for r in runs if r.state != FinalRunState.REVIEW]
    return render(request, "contests/review.html", {"contest": contest, "pending": pending, "decided": decided})


@login_required
@require_POST
def decide(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    contest = _organizer_contest(request, slug)
    final_run = get_object_or_404(FinalRun.objects.select_related("contest"), contest=contest, pk=pk)
    try:
        actions.decide_review(
            final_run,
            request.user,
            invalidate=request.POST.get("decision") == "invalidate",
            reason=request.POST.get("reason", ""),
        )
        messages.success(request, f"{final_run.participant.name}: {final_run.get_state_display().lower()}.")
    except actions.ContestError as exc:
        messages.error(request, exc.message)
    return redirect("contests:review", slug=slug)


@login_required
@require_POST
def finalize(request: HttpRequest, slug: str) -> HttpResponse:
    contest = _organizer_contest(request, slug)
    try:
        progress = actions.start_final_run(contest)
        if progress.waiting:
            messages.success(request, f"Final re-run: waiting for {progress.waiting} live judgings to finish first.")
        else:
            messages.success(request, f"Final re-run: {progress.created} sent, {progress.judging} judging.")
    except actions.ContestError as exc:
        messages.error(request, exc.message)
    return redirect("contests:detail", slug=slug)


@login_required
def edit(request: HttpRequest, slug: str) -> HttpResponse:
    contest = _organizer_contest(request, slug)
    initial = {
        "title": contest.title,
        "rules": contest.rules,
        "ends_at": contest.ends_at,
        "freeze_minutes": contest.freeze_minutes,
        "hourly_limit": contest.hourly_limit,
        "rerun_tolerance_pct": contest.rerun_tolerance_pct,
        "organizers": ", ".join(contest.organizers.values_list("username", flat=True)),
    }
    form = ContestEditForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        d = dict(form.cleaned_data)
        organizers = d.pop("organizers")
        try:
            actions.update_contest(contest, request.user, organizers=organizers, **d)
        except actions.ContestError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, "Saved.")
            return redirect("contests:detail", slug=slug)
    public = [cp.problem for cp in contest.contest_problems.select_related("problem") if not cp.problem.is_hidden]
    context = {"contest": contest, "form": form, "public_problems": public, "public_warning": picker.CONTEST_WARNING}
    return render(request, "contests/edit.html", context)


@login_required
def mine(request: HttpRequest, slug: str) -> HttpResponse:
    """The participant's own final results, invalidation reasons included, and their answer."""
    contest = _contest(slug)
    participant = actions.participant_of(contest, request.user)
    if participant is None:
        raise Http404("You did not take part in this contest")
    if request.method == "POST":
        raw = request.POST.get("final_run", "")
        final_run = get_object_or_404(FinalRun, participant=participant, pk=int(raw) if raw.isdigit() else 0)
        try:
            actions.answer_review(final_run, request.user, request.POST.get("answer", ""))
            messages.success(request, "Your answer is with the organizers.")
        except actions.ContestError as exc:
            messages.error(request, exc.message)
        return redirect("contests:mine", slug=slug)
    runs = list(
        FinalRun.objects.filter(participant=participant).select_related("problem", "live", "rerun").order_by("id")
    )
    entries = (
        Entry.objects.filter(participant=participant, kind=EntryKind.LIVE)
        .select_related("submission", "submission__problem")
        .order_by("-submission__created_at")[:100]
    )
    return render(
        request,
        "contests/mine.html",
        {"contest": contest, "participant": participant, "runs": runs, "entries": entries},
    )

"""The candidate's pages: the invitation link, the rules, the timed workspace, finishing.

A candidate reaches only their own seat (gridstride.assessments.access.own_seat): another
candidate's assessment, or another organization's, is a 404. The deadline is the server's:
the countdown on the page only shows it.
"""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from django.contrib.auth import login
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from gridstride.assessments import access, actions, forms
from gridstride.assessments.models import Candidate
from gridstride.catalog.models import Problem
from gridstride.catalog.views import LANGUAGE_NAMES, _benchmark_rows, statement_html
from gridstride.lib import clock, variation, windows
from gridstride.lib.markdown import render_markdown
from gridstride.pages.hardware import REFERENCE_GPU
from gridstride.submissions.models import Submission
from gridstride.submissions.views import status_payload


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def accept(request: HttpRequest, token: str) -> HttpResponse:
    """The invitation link: create an account or continue with the signed-in one, then take the seat."""
    now = clock.now()
    invitation, problem = actions.find_invitation(token, now)
    if invitation is not None and not problem:
        pass
    elif invitation is not None and invitation.used_at and request.user.is_authenticated:
        seat = Candidate.objects.filter(invitation=invitation, user=request.user).first()
        if seat is not None:  # the same person following their link again
            return redirect("assessments:landing", invitation.assessment.public_id)
    if invitation is None or problem:
        return render(request, "assessments/invitation_invalid.html", {"reason": problem}, status=404)
    assessment = invitation.assessment
    form = forms.CandidateSignupForm(request.POST or None)
    error = ""
    if request.method == "POST":
        user = request.user if request.user.is_authenticated else None
        if user is None and form.is_valid():
            try:
                user = actions.create_candidate_account(
                    invitation, form.cleaned_data["username"], form.cleaned_data["password"]
                )
            except actions.AssessmentError as exc:
                error = exc.message
            else:
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        if user is not None and not error:
            try:
                seat = actions.accept(invitation, user, now)
            except actions.AssessmentError as exc:
                error = exc.message
            else:
                return redirect("assessments:landing", seat.assessment.public_id)
    context = {
        "invitation": invitation,
        "assessment": assessment,
        "organization": assessment.organization,
        "form": form,
        "error": error,
        "minutes": int(windows.allowed(assessment.duration, invitation.extra_pct).total_seconds() // 60),
    }
    return render(request, "assessments/invitation.html", context)


def _clock(seat: Candidate) -> dict[str, Any]:
    now = clock.now()
    state = actions.state_of(seat, now)
    if state == "finished" and seat.finished_at is None:
        actions.finish(seat, "time", now)
    deadline = actions.deadline_of(seat, now)
    return {
        "state": state,
        "now": now.isoformat(),
        "deadline": deadline.isoformat() if deadline else None,
        "remaining_s": round(windows.remaining(deadline, now).total_seconds(), 1) if deadline else None,
        "credit_s": round(actions.queue_credit(seat, now).total_seconds(), 1),
    }


def landing(request: HttpRequest, public_id: UUID) -> HttpResponse:
    seat = access.own_seat(request.user, public_id)
    assessment = seat.assessment
    status = _clock(seat)
    context = {
        "seat": seat,
        "assessment": assessment,
        "organization": assessment.organization,
        "problems": list(assessment.problems.order_by("order", "slug")),
        "instructions_html": render_markdown(assessment.instructions) if assessment.instructions else "",
        "clock": status,
        "minutes": int(windows.allowed(assessment.duration, seat.extra_pct).total_seconds() // 60),
        "not_open": assessment.window.not_open_reason(clock.now()) if seat.started_at is None else "",
    }
    return render(request, "assessments/landing.html", context)


def start(request: HttpRequest, public_id: UUID) -> HttpResponse:
    seat = access.own_seat(request.user, public_id)
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    try:
        actions.start(seat, clock.now())
    except actions.AssessmentError as exc:
        from django.contrib import messages

        messages.error(request, exc.message)
        return redirect("assessments:landing", public_id)
    first = seat.assessment.problems.order_by("order", "slug").first()
    return (
        redirect("assessments:workspace", public_id, first.slug)
        if first
        else redirect("assessments:landing", public_id)
    )


def _seat_problem(seat: Candidate, slug: str) -> Problem:
    return get_object_or_404(seat.assessment.problems.select_related("current_version"), slug=slug)


def workspace(request: HttpRequest, public_id: UUID, slug: str) -> HttpResponse:
    seat = access.own_seat(request.user, public_id)
    assessment = seat.assessment
    status = _clock(seat)
    if status["state"] != "running":
        return redirect("assessments:landing", public_id)
    p = _seat_problem(seat, slug)
    version = p.current_version
    spec = version.spec if version else {}
    starters = version.starters if version else {}
    allowed = assessment.languages or p.languages
    languages = [lang for lang in p.languages if lang in starters and lang in allowed] or list(starters)
    submit_url = reverse("assessments:submit", args=[public_id, p.slug])
    workspace_data = {
        "slug": f"{assessment.public_id}:{p.slug}",  # drafts kept apart from practice on the same problem
        "languages": [{"id": lang, "name": LANGUAGE_NAMES.get(lang, lang)} for lang in languages],
        "starters": starters,
        "submitUrl": submit_url,
        "loginUrl": f"{reverse('accounts:login')}?next={request.path}",
        "authenticated": True,
        "gpus": [assessment.gpu_model],
    }
    problems = list(assessment.problems.order_by("order", "slug").only("slug", "title", "order"))
    recent = list(
        Submission.objects.filter(owner_id=seat.user_id, problem=p, context_key=assessment.context_key)
        .only("public_id", "language", "mode", "status", "verdict", "score_us", "sol_pct", "created_at", "gpu_model")
        .order_by("-created_at")[:8]
    )
    context = {
        "problem": p,
        "version": version,
        "spec": spec,
        "statement": statement_html(version) if version else {},
        "starters": starters,
        "languages": workspace_data["languages"],
        "gpus": [assessment.gpu_model],
        "benchmarks": _benchmark_rows(spec),
        "workspace": workspace_data,
        "recent": recent,
        "tolerance": spec.get("tolerance") or {},
        "reference_gpu": REFERENCE_GPU,
        "compute_roof": (spec.get("cost") or {}).get("compute_roof", "fp32"),
        "submit_url": submit_url,
        "assessment": assessment,
        "seat": seat,
        "assessment_problems": problems,
        "hidden_shape_count": len(variation.hidden_shapes(spec, seat.participant_seed, assessment.gpu_model)),
        "assessment_data": {
            "clockUrl": reverse("assessments:clock", args=[public_id]),
            "snapshotUrl": reverse("assessments:snapshot", args=[public_id, p.slug]),
            "eventUrl": reverse("assessments:event", args=[public_id, p.slug]),
            "landingUrl": reverse("assessments:landing", args=[public_id]),
            "clock": status,
        },
    }
    return render(request, "catalog/problem_detail.html", context)


def submit(request: HttpRequest, public_id: UUID, slug: str) -> HttpResponse:
    seat = access.own_seat(request.user, public_id)
    p = _seat_problem(seat, slug)
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    try:
        submission = actions.submit(
            seat,
            p,
            language=request.POST.get("language", ""),
            source=request.POST.get("source", ""),
            mode=request.POST.get("mode", "run"),
            now=clock.now(),
        )
    except actions.AssessmentError as exc:
        if _wants_json(request):
            return JsonResponse({"error": exc.message}, status=400)
        from django.contrib import messages

        messages.error(request, exc.message)
        return redirect("assessments:landing", public_id)
    if _wants_json(request):
        return JsonResponse(status_payload(submission), status=201)
    return redirect("submissions:detail", public_id=submission.public_id)


def _json_body(request: HttpRequest) -> dict[str, Any]:
    try:
        data = json.loads(request.body or b"{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def snapshot(request: HttpRequest, public_id: UUID, slug: str) -> HttpResponse:
    seat = access.own_seat(request.user, public_id)
    p = _seat_problem(seat, slug)
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    data = _json_body(request)
    kept = actions.snapshot(
        seat, p, language=str(data.get("language", ""))[:16], source=str(data.get("source", "")), now=clock.now()
    )
    return JsonResponse({"kept": kept, **_clock(seat)})


def event(request: HttpRequest, public_id: UUID, slug: str) -> HttpResponse:
    seat = access.own_seat(request.user, public_id)
    p = _seat_problem(seat, slug)
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    data = _json_body(request)
    try:
        chars, seconds = int(data.get("chars", 0)), float(data.get("seconds", 0.0))
    except (TypeError, ValueError):
        raise Http404("Bad event") from None
    kept = actions.record_event(
        seat, str(data.get("kind", "")), now=clock.now(), chars=chars, seconds=seconds, problem=p
    )
    return JsonResponse({"kept": kept})


def clock_view(request: HttpRequest, public_id: UUID) -> HttpResponse:
    seat = access.own_seat(request.user, public_id)
    response = JsonResponse(_clock(seat))
    response["Cache-Control"] = "no-store"
    return response


def finish(request: HttpRequest, public_id: UUID) -> HttpResponse:
    seat = access.own_seat(request.user, public_id)
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    if seat.started_at is not None:
        actions.finish(seat, "early", clock.now())
    return redirect("assessments:landing", public_id)

"""The hiring team's pages: organizations, assessments, invitations, reports, comparison, CSV.

Each view first resolves its objects through gridstride.assessments.access (404 for anyone outside
the organization), and only then looks at the method, so an outsider learns nothing either way.
"""

from __future__ import annotations

import csv
from typing import Any
from uuid import UUID

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect, render
from django.urls import reverse

from gridstride.assessments import access, actions, forms, report
from gridstride.assessments.models import Membership, Role
from gridstride.catalog import picker
from gridstride.lib import clock
from gridstride.lib.markdown import render_markdown
from gridstride.pages import reports as report_pages
from gridstride.submissions.models import Context, Submission


def _post_only(request: HttpRequest) -> HttpResponse | None:
    return None if request.method == "POST" else HttpResponseNotAllowed(["POST"])


def _assessment_url(org_slug: str, public_id: Any) -> str:
    return reverse("assessments:assessment", args=[org_slug, public_id])


@login_required
def organizations(request: HttpRequest) -> HttpResponse:
    form = forms.OrganizationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            org = actions.create_organization(request.user, form.cleaned_data["name"], form.cleaned_data["slug"])
        except actions.AssessmentError as exc:
            form.add_error(None, exc.message)
        else:
            return redirect("assessments:org", org.slug)
    mine = (
        Membership.objects.filter(user_id=int(request.user.pk or 0))
        .select_related("organization")
        .order_by("organization__name")
    )
    return render(request, "assessments/organizations.html", {"memberships": mine, "form": form})


def org_home(request: HttpRequest, slug: str) -> HttpResponse:
    member = access.membership(request.user, slug)
    org = member.organization
    assessments = org.assessments.all()
    members = org.memberships.select_related("user").order_by("role", "user__username")
    context = {
        "org": org,
        "member": member,
        "assessments": assessments,
        "members": members,
        "member_form": forms.MemberForm(),
    }
    return render(request, "assessments/org.html", context)


def member_add(request: HttpRequest, slug: str) -> HttpResponse:
    member = access.membership(request.user, slug, owner=True)
    if (refused := _post_only(request)) is not None:
        return refused
    form = forms.MemberForm(request.POST)
    if form.is_valid():
        try:
            actions.add_member(member.organization, form.cleaned_data["who"], form.cleaned_data["role"])
            messages.success(request, f"{form.cleaned_data['who']} is now a {form.cleaned_data['role']}.")
        except actions.AssessmentError as exc:
            messages.error(request, exc.message)
    return redirect("assessments:org", slug)


def _edit(request: HttpRequest, slug: str, public_id: UUID | None) -> HttpResponse:
    member = access.membership(request.user, slug, owner=True)
    org = member.organization
    assessment = access.assessment_of(org, public_id) if public_id else None
    initial = {}
    if assessment is not None:
        initial = {
            k: getattr(assessment, k)
            for k in (
                "title",
                "languages",
                "gpu_model",
                "duration_minutes",
                "opens_at",
                "closes_at",
                "instructions",
                "webhook_url",
            )
        }
        initial["problems"] = list(assessment.problems.all())
    form = forms.AssessmentForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        data = dict(form.cleaned_data)
        problems = list(data.pop("problems"))
        try:
            assessment = actions.save_assessment(org, request.user, data, problems, assessment)
        except actions.AssessmentError as exc:
            form.add_error(None, exc.message)
        else:
            public = [p.slug for p in problems if not p.is_hidden]
            if public:
                messages.warning(request, f"Public problems: {', '.join(public)}. {picker.ASSESSMENT_WARNING}")
            return redirect(_assessment_url(slug, assessment.public_id))
    return render(request, "assessments/assessment_form.html", {"org": org, "form": form, "assessment": assessment})


def assessment_new(request: HttpRequest, slug: str) -> HttpResponse:
    return _edit(request, slug, None)


def assessment_edit(request: HttpRequest, slug: str, public_id: UUID) -> HttpResponse:
    return _edit(request, slug, public_id)


def assessment_detail(request: HttpRequest, slug: str, public_id: UUID) -> HttpResponse:
    member = access.membership(request.user, slug)
    assessment = access.assessment_of(member.organization, public_id)
    now = clock.now()
    problems, summaries = report.comparison(assessment, now)
    summaries = report.sort_summaries(problems, summaries, request.GET.get("sort", "name"))
    invitations = list(assessment.invitations.select_related("candidate"))
    for inv in invitations:
        inv.state_now = inv.state(now)  # type: ignore[attr-defined]
    context = {
        "org": member.organization,
        "member": member,
        "is_owner": member.role == Role.OWNER,
        "assessment": assessment,
        "instructions_html": render_markdown(assessment.instructions) if assessment.instructions else "",
        "problems": problems,
        "summaries": summaries,
        "sort": request.GET.get("sort", "name"),
        "invitations": invitations,
        "invite_form": forms.InviteForm(),
        "deliveries": assessment.deliveries.select_related("candidate__user")[:20],
    }
    return render(request, "assessments/assessment.html", context)


def invite(request: HttpRequest, slug: str, public_id: UUID) -> HttpResponse:
    member = access.membership(request.user, slug, owner=True)
    assessment = access.assessment_of(member.organization, public_id)
    if (refused := _post_only(request)) is not None:
        return refused
    form = forms.InviteForm(request.POST)
    if not form.is_valid():
        messages.error(request, "; ".join(str(e) for errs in form.errors.values() for e in errs))
        return redirect(_assessment_url(slug, public_id))
    try:
        inv = actions.invite(
            assessment,
            form.cleaned_data["email"],
            name=form.cleaned_data["name"],
            extra_pct=form.cleaned_data["extra_pct"],
            base_url=request.build_absolute_uri("/"),
            now=clock.now(),
        )
        messages.success(request, f"Invitation sent to {inv.email}.")
    except actions.AssessmentError as exc:
        messages.error(request, exc.message)
    return redirect(_assessment_url(slug, public_id))


def invitation_action(
    request: HttpRequest, slug: str, public_id: UUID, invitation_id: int, action: str
) -> HttpResponse:
    member = access.membership(request.user, slug, owner=True)
    assessment = access.assessment_of(member.organization, public_id)
    invitation = access.invitation_of(assessment, invitation_id)
    if (refused := _post_only(request)) is not None:
        return refused
    now = clock.now()
    try:
        if action == "resend":
            actions.resend(invitation, base_url=request.build_absolute_uri("/"), now=now)
            messages.success(request, f"A new link went to {invitation.email}; the earlier one no longer works.")
        elif action == "revoke":
            if actions.revoke(invitation, now):
                messages.success(request, f"The invitation of {invitation.email} is withdrawn.")
        elif action == "extra":
            form = forms.ExtraTimeForm(request.POST)
            if not form.is_valid():
                raise actions.AssessmentError("Extra time is a whole percentage.")
            actions.set_extra_time(invitation, form.cleaned_data["extra_pct"])
            messages.success(request, f"{invitation.email}: +{form.cleaned_data['extra_pct']}% time.")
        else:
            raise Http404("No such action")
    except actions.AssessmentError as exc:
        messages.error(request, exc.message)
    return redirect(_assessment_url(slug, public_id))


def candidate_report(request: HttpRequest, slug: str, public_id: UUID, candidate_id: int) -> HttpResponse:
    member = access.membership(request.user, slug)
    assessment = access.assessment_of(member.organization, public_id)
    candidate = access.candidate_of(assessment, candidate_id)
    now = clock.now()
    problems = report.assessment_problems(assessment)
    summary = report.summarize(candidate, problems, report._rows(assessment, candidate.user_id), now, with_reports=True)
    views = []
    for result in summary.problems:
        view = None
        if result.report:
            spec = result.problem.current_version.spec if result.problem.current_version else {}
            view = report_pages.build(
                result.report,
                gpu_model=assessment.gpu_model,
                compute_roof=(spec.get("cost") or {}).get("compute_roof", "fp32"),
                language=result.best["language"] if result.best else "",
            )
        views.append((result, view))
    context = {
        "org": member.organization,
        "assessment": assessment,
        "candidate": candidate,
        "summary": summary,
        "views": views,
        "timeline": report.timeline_points(summary),
        "timeline_svg": report.timeline_svg(summary),
        "playback": [{"problem": p.problem, "frames": p.frames} for p in report.playback(candidate)],
        "signals": report.signals(candidate, summary),
        "is_owner": member.role == Role.OWNER,
    }
    return render(request, "assessments/candidate_report.html", context)


def candidate_extra(request: HttpRequest, slug: str, public_id: UUID, candidate_id: int) -> HttpResponse:
    member = access.membership(request.user, slug, owner=True)
    assessment = access.assessment_of(member.organization, public_id)
    candidate = access.candidate_of(assessment, candidate_id)
    if (refused := _post_only(request)) is not None:
        return refused
    form = forms.ExtraTimeForm(request.POST)
    try:
        if not form.is_valid():
            raise actions.AssessmentError("Extra time is a whole percentage.")
        actions.set_extra_time(candidate, form.cleaned_data["extra_pct"])
        messages.success(request, f"{candidate.user.get_username()}: +{form.cleaned_data['extra_pct']}% time.")
    except actions.AssessmentError as exc:
        messages.error(request, exc.message)
    return redirect("assessments:candidate", slug, public_id, candidate_id)


def submission_source(
    request: HttpRequest, slug: str, public_id: UUID, candidate_id: int, submission_id: UUID
) -> HttpResponse:
    """A candidate's submitted file, for reviewers (text/plain, downloadable)."""
    member = access.membership(request.user, slug)
    assessment = access.assessment_of(member.organization, public_id)
    candidate = access.candidate_of(assessment, candidate_id)
    sub = Submission.objects.filter(
        public_id=submission_id,
        owner_id=candidate.user_id,
        context=Context.ASSESSMENT,
        context_key=assessment.context_key,
    ).first()
    if sub is None:
        raise Http404("No such submission")
    suffix = ".cu" if sub.language == "cuda" else ".py"
    response = HttpResponse(sub.source, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="{candidate.user.get_username()}-{sub.problem_id}-{str(sub.public_id)[:8]}{suffix}"'
    )
    return response


def export_csv(request: HttpRequest, slug: str, public_id: UUID) -> HttpResponse:
    member = access.membership(request.user, slug)
    assessment = access.assessment_of(member.organization, public_id)
    problems, summaries = report.comparison(assessment, clock.now())
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="assessment-{str(assessment.public_id)[:8]}.csv"'
    writer = csv.writer(response)
    writer.writerow(report.csv_header(problems))
    for summary in summaries:
        writer.writerow(report.csv_row(summary))
    return response

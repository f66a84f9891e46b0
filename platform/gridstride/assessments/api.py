"""The assessments part of the JSON API (/api/orgs/...): the same results the reports, the CSV and
the webhook carry, for a member's token. Another organization's anything is a 404."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.http import Http404, HttpRequest
from ninja import Router

from gridstride.api.auth import TokenAuth
from gridstride.api.schemas import Error
from gridstride.assessments import access, report
from gridstride.lib import clock

router = Router(tags=["assessments"], auth=TokenAuth())


def _member(request: HttpRequest, slug: str) -> Any:
    return access.membership(request.auth, slug)  # type: ignore[attr-defined]


def _assessment_out(a: Any) -> dict[str, Any]:
    return {
        "id": str(a.public_id),
        "title": a.title,
        "gpu_model": a.gpu_model,
        "duration_minutes": a.duration_minutes,
        "opens_at": a.opens_at.isoformat() if a.opens_at else None,
        "closes_at": a.closes_at.isoformat() if a.closes_at else None,
        "languages": a.languages,
    }


@router.get(
    "/{slug}/assessments", response={200: list[dict[str, Any]], 404: Error}, summary="The organization's assessments"
)
def list_assessments(request: HttpRequest, slug: str) -> Any:
    try:
        member = _member(request, slug)
    except Http404:
        return 404, {"detail": "No such organization."}
    return [_assessment_out(a) for a in member.organization.assessments.all()]


@router.get(
    "/{slug}/assessments/{assessment_id}",
    response={200: dict[str, Any], 404: Error},
    summary="An assessment with every candidate's results (percentiles across candidates)",
)
def assessment_results(request: HttpRequest, slug: str, assessment_id: UUID) -> Any:
    try:
        member = _member(request, slug)
        assessment = access.assessment_of(member.organization, assessment_id)
    except Http404:
        return 404, {"detail": "No such assessment."}
    problems, summaries = report.comparison(assessment, clock.now())
    return {
        **_assessment_out(assessment),
        "problems": [{"slug": p.slug, "title": p.title, "hidden": p.is_hidden} for p in problems],
        "candidates": [s.as_dict() for s in summaries],
    }


@router.get(
    "/{slug}/assessments/{assessment_id}/candidates/{candidate_id}",
    response={200: dict[str, Any], 404: Error},
    summary="One candidate's results, attempts and integrity signals",
)
def candidate_result(request: HttpRequest, slug: str, assessment_id: UUID, candidate_id: int) -> Any:
    try:
        member = _member(request, slug)
        assessment = access.assessment_of(member.organization, assessment_id)
        candidate = access.candidate_of(assessment, candidate_id)
    except Http404:
        return 404, {"detail": "No such candidate."}
    now = clock.now()
    summary = report.summarize(
        candidate, report.assessment_problems(assessment), report._rows(assessment, candidate.user_id), now
    )
    attempts = [{**p, "public_id": str(p["public_id"])} for p in report.timeline_points(summary)]
    return {**summary.as_dict(), "attempts": attempts, "signals": report.signals(candidate, summary).as_dict()}

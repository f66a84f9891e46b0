"""Who may see what. Every assessments view and API route finds its objects through these
functions, which answer 404 (never 403: what another organization owns is not even confirmed to
exist). tests/web/test_assessment_isolation.py walks the URL conf and fails on a route that lets
an outsider through."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.http import Http404

from gridstride.assessments.models import Assessment, Candidate, Invitation, Membership, Organization, Role


def membership(user: Any, slug: str, *, owner: bool = False) -> Membership:
    """The user's membership of the organization `slug` (an owner's when `owner`), else 404."""
    if not getattr(user, "is_authenticated", False):
        raise Http404("No such organization")
    found = Membership.objects.select_related("organization").filter(organization__slug=slug, user=user).first()
    if found is None or (owner and found.role != Role.OWNER):
        raise Http404("No such organization")
    return found


def assessment_of(org: Organization, public_id: UUID | str) -> Assessment:
    found = Assessment.objects.filter(organization=org, public_id=public_id).first()
    if found is None:
        raise Http404("No such assessment")
    return found


def candidate_of(assessment: Assessment, candidate_id: int) -> Candidate:
    found = (
        Candidate.objects.select_related("user", "invitation", "assessment")
        .filter(assessment=assessment, pk=candidate_id)
        .first()
    )
    if found is None:
        raise Http404("No such candidate")
    return found


def invitation_of(assessment: Assessment, invitation_id: int) -> Invitation:
    found = Invitation.objects.filter(assessment=assessment, pk=invitation_id).first()
    if found is None:
        raise Http404("No such invitation")
    return found


def own_seat(user: Any, public_id: UUID | str) -> Candidate:
    """The signed-in user's own seat in an assessment, else 404 (the candidate's pages)."""
    if not getattr(user, "is_authenticated", False):
        raise Http404("No such assessment")
    found = (
        Candidate.objects.select_related("assessment", "assessment__organization")
        .filter(assessment__public_id=public_id, user=user)
        .first()
    )
    if found is None:
        raise Http404("No such assessment")
    return found

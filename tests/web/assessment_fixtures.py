"""Builders for the assessments tests: an organization with an owner, an assessment, a candidate
who accepted an invitation and started, and judged submissions of theirs."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from gridstride.assessments import actions
from gridstride.assessments.models import Assessment, Candidate, Invitation, Organization
from gridstride.submissions.models import Submission
from site_fixtures import make_user, problems

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
BASE_URL = "http://testserver/"


@dataclass
class World:
    org: Organization
    owner: AbstractBaseUser
    assessment: Assessment
    invitation: Invitation
    candidate: Candidate


def make_org(owner: AbstractBaseUser | None = None, name: str | None = None) -> tuple[Organization, AbstractBaseUser]:
    owner = owner or make_user()
    org = actions.create_organization(owner, name or f"Team {owner.get_username()}")
    return org, owner


def make_assessment(
    org: Organization, owner: AbstractBaseUser, *, slugs: tuple[str, ...] = ("softmax", "vector_add"), **fields: Any
) -> Assessment:
    catalog = problems()
    data = {
        "title": "Kernel engineer, round 1",
        "duration_minutes": 60,
        "gpu_model": "cpu",
        "instructions": "Be **quick**.",
        **fields,
    }
    return actions.save_assessment(org, owner, data, [catalog[s] for s in slugs])


def seat(
    assessment: Assessment, *, email: str | None = None, extra_pct: int = 0, start_at: datetime | None = T0
) -> Candidate:
    user = make_user()
    invitation = actions.invite(
        assessment, email or user.email, extra_pct=extra_pct, base_url=BASE_URL, now=T0 - timedelta(hours=1)
    )
    candidate = actions.accept(invitation, user, T0 - timedelta(minutes=30))
    if start_at is not None:
        candidate = actions.start(candidate, start_at)
    return candidate


def world(**assessment_fields: Any) -> World:
    org, owner = make_org()
    assessment = make_assessment(org, owner, **assessment_fields)
    candidate = seat(assessment)
    assert candidate.invitation is not None
    return World(org, owner, assessment, candidate.invitation, candidate)


def judged(
    candidate: Candidate,
    slug: str,
    *,
    mode: str = "submit",
    verdict: str = "accepted",
    minutes: float = 10,
    score_us: float | None = 100.0,
    source: str = "def solve():\n    pass\n",
    report: dict[str, Any] | None = None,
    queue_wait_s: float | None = 1.0,
) -> Submission:
    """A judged assessment submission made `minutes` after the candidate's start."""
    problem = problems()[slug]
    at = (candidate.started_at or T0) + timedelta(minutes=minutes)
    sub = Submission.objects.create(
        owner_id=candidate.user_id,
        problem=problem,
        problem_version=problem.current_version,
        language="triton",
        source=source,
        mode=mode,
        context="assessment",
        context_key=candidate.assessment.context_key,
        status="done",
        verdict=verdict,
        score_us=score_us if verdict == "accepted" else None,
        sol_pct=50.0 if verdict == "accepted" else None,
        report=report or {"verdict": verdict, "mode": "benchmark", "benchmarks": []},
        queue_wait_s=queue_wait_s,
    )
    Submission.objects.filter(pk=sub.pk).update(created_at=at)
    sub.refresh_from_db()
    return sub

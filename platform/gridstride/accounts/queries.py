"""Reads for profiles: what a user solved, their best results, their recent submissions."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db.models import Count, F, Q, Window
from django.db.models.functions import RowNumber

from gridstride.submissions.models import Context, Mode, Status, Submission, Verdict


def best_results(user: User) -> list[dict[str, Any]]:
    """The user's best accepted full judging per problem x GPU (one query)."""
    rows = (
        Submission.objects.filter(
            owner=user, context=Context.PRACTICE, status=Status.DONE, verdict=Verdict.ACCEPTED, mode=Mode.SUBMIT
        )
        .annotate(
            best_row=Window(
                RowNumber(),
                partition_by=[F("problem_id"), F("gpu_model")],
                order_by=[F("score_us").asc(nulls_last=True), F("created_at").asc()],
            )
        )
        .filter(best_row=1)
        .order_by("problem__track", "problem__order", "problem__slug", "gpu_model")
        .values(
            "public_id",
            "problem__slug",
            "problem__title",
            "gpu_model",
            "language",
            "score_us",
            "sol_pct",
            "ranked",
            "is_public",
            "created_at",
        )
    )
    return [dict(r) for r in rows]


def problem_stats(user: User) -> dict[int, dict[str, int]]:
    """problem id -> {"attempts": n, "solved": n accepted full judgings} (one query)."""
    rows = (
        Submission.objects.filter(owner=user, context=Context.PRACTICE)
        .order_by()
        .values("problem_id")
        .annotate(
            attempts=Count("id"),
            solved=Count("id", filter=Q(verdict=Verdict.ACCEPTED, mode=Mode.SUBMIT)),
        )
    )
    return {r["problem_id"]: {"attempts": r["attempts"], "solved": r["solved"]} for r in rows}


def recent_submissions(user: User, *, public_only: bool, limit: int = 20) -> list[Submission]:
    # A profile shows practice only: what someone did in an assessment belongs to that organization.
    qs = (
        Submission.objects.filter(owner=user, context=Context.PRACTICE)
        .select_related("problem")
        .defer("source", "report", "problem__tags")
    )
    if public_only:
        qs = qs.filter(is_public=True)
    return list(qs.order_by("-created_at")[:limit])

"""Who may see and do what in a contest (one place, so views, the API and actions agree)."""

from __future__ import annotations

from typing import Any

from gridstride.contests.models import Contest


def is_organizer(contest: Contest, user: Any) -> bool:
    """The creator, the named organizers and staff."""
    if user is None or not user.is_authenticated:
        return False
    if user.pk == contest.created_by_id or user.is_staff:
        return True
    cached = getattr(contest, "_organizer_ids", None)
    if cached is None:
        cached = set(contest.organizers.values_list("pk", flat=True))
        contest._organizer_ids = cached  # type: ignore[attr-defined]
    return user.pk in cached

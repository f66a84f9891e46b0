"""Who may see a problem's optimization ladder. Every page, fragment and API route that shows one
asks here first: before the ladder opens, nothing of it (rungs, code, figures, editorial) is sent.

It opens for a user once they have an accepted submission on the problem (any mode: a Run that
passes every case counts), or once they chose to see it anyway (LadderGiveUp, an explicit and
confirmed action). It never opens on a hidden problem (problem.toml `hidden = true`) or on one
whose directory is gone: those are reached only through an assessment or contest, whose pages
never show a ladder.
"""

from __future__ import annotations

from typing import Any

from gridstride.catalog.models import Ladder, LadderGiveUp, Problem
from gridstride.submissions.models import Status, Submission, Verdict

OPENED_BY_ACCEPTED = "accepted"
OPENED_BY_GIVING_UP = "gave_up"


def ladder_of(problem: Problem) -> Ladder | None:
    """The problem's stored ladder (no query when the problem was loaded with select_related("ladder"))."""
    try:
        return problem.ladder
    except Ladder.DoesNotExist:
        return None


def opened_by(problem: Problem, user: Any) -> str | None:
    """Why the ladder is open to this user (OPENED_BY_*), or None while it is closed to them."""
    if problem.is_hidden or not problem.is_active or not user.is_authenticated:
        return None
    solved = Submission.objects.filter(
        owner_id=user.pk, problem=problem, status=Status.DONE, verdict=Verdict.ACCEPTED
    ).exists()
    if solved:
        return OPENED_BY_ACCEPTED
    if LadderGiveUp.objects.filter(user_id=user.pk, problem=problem).exists():
        return OPENED_BY_GIVING_UP
    return None

"""When a public problem's optimization ladder is closed, even to a viewer who had opened it
(docs/ladders.md, "Closed during contests and assessments").

A contest or an assessment may use a public catalog problem. Without this, a participant could give
up on the public problem during the contest (or open it from a second account) and read the expert
code. So:

- while a contest that includes the problem runs (from its start to its end, the freeze included),
  its ladder is closed site-wide, to everyone but that contest's organizers (contests/permissions.py:
  the creator, the named organizers and staff), anonymous visitors included. At the end it opens
  again to whoever had opened it, and may be opened then;
- an assessment's window can last weeks, so an assessment closes nothing site-wide: only the
  candidate whose own seat is live sees it closed, from accepting the invitation (they could read it
  before pressing Start) until their session ends. Teams who want no public exposure use hidden
  problems, which never show a ladder.

Every page, fragment and API route that shows a ladder, and both give-up routes, ask here before
catalog/ladder_access.opened_by; what is closed answers with the same message everywhere.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from django.db.models import Max

from gridstride.assessments.actions import deadline_of
from gridstride.assessments.models import Candidate
from gridstride.catalog.models import Problem
from gridstride.contests.models import Contest
from gridstride.lib import clock, windows

CLOSED_BY_CONTEST = "The optimization ladder is closed while a contest uses this problem, until {until}."
CLOSED_BY_ASSESSMENT = "The optimization ladder is closed while your assessment uses this problem, until {until}."
UNTIL_SESSION_ENDS = "your session ends"


def _utc_minute(when: datetime) -> str:
    """The instant as "YYYY-MM-DD HH:MM UTC", rounded up: the ladder is never open before it."""
    when = when.astimezone(UTC)
    if when.second or when.microsecond:
        when = when.replace(second=0, microsecond=0) + timedelta(minutes=1)
    return f"{when:%Y-%m-%d %H:%M} UTC"


def contest_closes_until(problem: Problem, user: Any, now: datetime) -> datetime | None:
    """The latest end among the running contests that include the problem and that the viewer does
    not organize (None: no such contest). One query; staff organize every contest."""
    authenticated = user is not None and user.is_authenticated
    if authenticated and user.is_staff:
        return None
    running = Contest.objects.filter(contest_problems__problem=problem, starts_at__lte=now, ends_at__gt=now)
    if authenticated:
        running = running.exclude(created_by_id=user.pk).exclude(organizers__id=user.pk)
    until: datetime | None = running.aggregate(until=Max("ends_at"))["until"]
    return until


def assessment_closes(problem: Problem, user: Any, now: datetime) -> tuple[bool, datetime | None]:
    """Whether the viewer holds a live seat in an assessment that includes the problem, and when the
    latest such session ends (None while a seat has not started: its deadline is not known yet).
    A seat is live from accepting the invitation until the session ends; one never started stops
    being live when the assessment's last start has passed."""
    if user is None or not user.is_authenticated:
        return False, None
    seats = Candidate.objects.filter(
        user_id=user.pk, assessment__problems=problem, finished_at__isnull=True
    ).select_related("assessment")
    closed, until, unknown = False, None, False
    for seat in seats:
        if seat.started_at is None:
            last_start = seat.assessment.closes_at
            if last_start is None or windows.is_before(last_start, now):
                closed, unknown = True, True
            continue
        deadline = deadline_of(seat, now)
        if deadline is not None and windows.is_before(deadline, now):
            closed = True
            until = deadline if until is None else max(until, deadline)
    return closed, None if unknown else until


def closed_reason(problem: Problem, user: Any, now: datetime | None = None) -> str | None:
    """Why the problem's ladder is closed to this viewer now, in the words every route answers
    with; None when nothing closes it (whether it is open to them is ladder_access.opened_by's)."""
    if problem.is_hidden:
        return None  # never served at all: its routes are 404s
    now = now or clock.now()
    until = contest_closes_until(problem, user, now)
    if until is not None:
        return CLOSED_BY_CONTEST.format(until=_utc_minute(until))
    closed, session_end = assessment_closes(problem, user, now)
    if closed:
        return CLOSED_BY_ASSESSMENT.format(until=_utc_minute(session_end) if session_end else UNTIL_SESSION_ENDS)
    return None

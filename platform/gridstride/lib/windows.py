"""Time windows of assessments and contests, in one place (docs/assessments.md, "Time").

A window opens and closes (when a participant may start); each participant then has their own
clock: a duration, stretched by their extra time (accommodations, a percentage) and lengthened
by the queue credit (time their jobs waited for a judge beyond a grace). A hard end (a contest's
close) caps the personal deadline when one is given.

Pure functions of the values passed in, `now` included: callers pass `clock.now()` and tests pass
fixed instants, so every deadline edge is tested without sleeping or patching time.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

# A job's wait for a judge up to this long is normal service; beyond it is credited.
QUEUE_GRACE = timedelta(seconds=5)


@dataclass(frozen=True)
class Window:
    opens_at: datetime | None
    closes_at: datetime | None

    def is_open(self, now: datetime) -> bool:
        return (self.opens_at is None or now >= self.opens_at) and (self.closes_at is None or now < self.closes_at)

    def not_open_reason(self, now: datetime) -> str:
        """Why a participant cannot start now ("" when they can)."""
        if self.opens_at is not None and now < self.opens_at:
            return f"This opens at {self.opens_at:%Y-%m-%d %H:%M} UTC."
        if self.closes_at is not None and now >= self.closes_at:
            return f"This closed at {self.closes_at:%Y-%m-%d %H:%M} UTC."
        return ""


def allowed(duration: timedelta, extra_pct: int = 0) -> timedelta:
    """The participant's own duration: the base one plus their extra time (e.g. 25 for +25%)."""
    if extra_pct < 0:
        raise ValueError("extra time cannot be negative")
    return duration + duration * extra_pct / 100


def queue_credit(waits: Iterable[tuple[datetime, datetime | None]], now: datetime) -> timedelta:
    """Sum of each job's wait beyond QUEUE_GRACE. A wait is (queued_at, started_at); a job still
    waiting (started_at None) counts up to `now`, so the clock stands still while it waits."""
    total = timedelta()
    for queued_at, started_at in waits:
        waited = (started_at or now) - queued_at
        if waited > QUEUE_GRACE:
            total += waited - QUEUE_GRACE
    return total


def deadline(
    started_at: datetime,
    duration: timedelta,
    *,
    extra_pct: int = 0,
    credit: timedelta = timedelta(),
    hard_end: datetime | None = None,
) -> datetime:
    """When the participant's time is up."""
    end = started_at + allowed(duration, extra_pct) + credit
    return min(end, hard_end) if hard_end is not None else end


def is_before(deadline_at: datetime, at: datetime) -> bool:
    """Whether something the server received `at` counts: strictly before the deadline (the deadline
    instant itself is already too late)."""
    return at < deadline_at


def remaining(deadline_at: datetime, now: datetime) -> timedelta:
    return max(timedelta(), deadline_at - now)

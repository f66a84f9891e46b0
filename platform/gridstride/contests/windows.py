"""A contest's phases on the clock: before, running, frozen (the last minutes), ended.

Windows are half-open: a submission at exactly the end is refused, one a microsecond before is
taken (and counts even when it is judged after the end).
"""

from __future__ import annotations

import enum
from datetime import datetime

from gridstride.contests.models import Contest


class Phase(enum.StrEnum):
    BEFORE = "before"
    RUNNING = "running"
    FROZEN = "frozen"
    ENDED = "ended"


def phase(contest: Contest, now: datetime) -> Phase:
    if now < contest.starts_at:
        return Phase.BEFORE
    if now >= contest.ends_at:
        return Phase.ENDED
    freeze = contest.freeze_at
    if freeze is not None and now >= freeze:
        return Phase.FROZEN
    return Phase.RUNNING

"""Time windows (gridstride.lib.windows): deadlines with extra time, queue credit and a hard end,
at fixed instants (every function takes `now`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from gridstride.lib.windows import QUEUE_GRACE, Window, allowed, deadline, is_before, queue_credit, remaining

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)


def test_extra_time_stretches_the_duration_by_its_percentage() -> None:
    assert allowed(HOUR, 0) == HOUR
    assert allowed(HOUR, 25) == timedelta(minutes=75)
    assert allowed(HOUR, 50) == timedelta(minutes=90)
    with pytest.raises(ValueError):
        allowed(HOUR, -10)


def test_a_window_is_open_from_its_opening_until_just_before_its_close() -> None:
    w = Window(T0, T0 + HOUR)
    assert not w.is_open(T0 - timedelta(microseconds=1))
    assert w.is_open(T0) and w.is_open(T0 + HOUR - timedelta(microseconds=1))
    assert not w.is_open(T0 + HOUR)
    assert "opens at" in w.not_open_reason(T0 - timedelta(seconds=1))
    assert "closed at" in w.not_open_reason(T0 + HOUR)
    assert w.not_open_reason(T0) == ""


def test_the_deadline_instant_itself_is_too_late() -> None:
    end = deadline(T0, HOUR)
    assert is_before(end, end - timedelta(microseconds=1))
    assert not is_before(end, end)
    assert not is_before(end, end + timedelta(seconds=1))


def test_queue_waits_count_only_beyond_the_grace_and_a_waiting_job_stops_the_clock() -> None:
    waits = [
        (T0, T0 + timedelta(seconds=3)),  # inside the grace: nothing
        (T0, T0 + QUEUE_GRACE + timedelta(seconds=40)),  # 40 s credited
        (T0 + timedelta(minutes=10), None),  # still waiting at now
    ]
    now = T0 + timedelta(minutes=10, seconds=30)
    assert queue_credit(waits, now) == timedelta(seconds=40) + timedelta(seconds=30) - QUEUE_GRACE
    later = now + timedelta(minutes=1)
    assert queue_credit(waits, later) - queue_credit(waits, now) == timedelta(minutes=1)


def test_the_deadline_adds_extra_time_and_credit_and_a_hard_end_caps_it() -> None:
    credit = timedelta(seconds=90)
    end = deadline(T0, HOUR, extra_pct=50, credit=credit)
    assert end == T0 + timedelta(minutes=90, seconds=90)
    assert deadline(T0, HOUR, extra_pct=50, credit=credit, hard_end=T0 + HOUR) == T0 + HOUR
    assert remaining(end, end + HOUR) == timedelta()
    assert remaining(end, T0) == timedelta(minutes=91, seconds=30)

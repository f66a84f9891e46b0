"""The server's deadline, at fixed instants: just before, at and after the end, with extra time and
with queue credit; a submission the server took before the end counts even when judged after."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from assessment_fixtures import T0, make_assessment, make_org, seat
from django.test import Client
from gridstride.assessments import actions, report
from gridstride.lib import clock, windows
from gridstride.submissions.actions import record_report
from gridstride.submissions.models import Submission
from gridstride.submissions.testing import FakeBroker, report_for
from site_fixtures import problems

pytestmark = pytest.mark.django_db
US = timedelta(microseconds=1)
HOUR = timedelta(hours=1)


@pytest.fixture(autouse=True)
def fake_broker(monkeypatch: Any) -> FakeBroker:
    return FakeBroker.install(monkeypatch)


@pytest.fixture
def assessment() -> Any:
    return make_assessment(*make_org())


def send(candidate: Any, at: Any, mode: str = "run") -> Submission:
    """A Run or Submit the server receives at `at` (created_at moved there: the database stamps its own clock)."""
    sub = actions.submit(candidate, problems()["softmax"], language="triton", source="x = 1", mode=mode, now=at)
    Submission.objects.filter(pk=sub.pk).update(created_at=at)
    sub.refresh_from_db()
    return sub


def test_a_run_just_before_the_end_is_taken_and_one_at_or_after_the_end_is_refused(assessment: Any) -> None:
    c = seat(assessment)
    assert actions.deadline_of(c, T0) == T0 + HOUR
    send(c, T0 + HOUR - US)
    with pytest.raises(actions.AssessmentError, match="Time is up"):
        send(c, T0 + HOUR)
    c.refresh_from_db()
    assert c.finished_at == T0 + HOUR and c.finish_reason == "time"
    with pytest.raises(actions.AssessmentError, match="Time is up"):
        send(c, T0 + HOUR + timedelta(minutes=5))


def test_extra_time_moves_the_end_by_its_percentage(assessment: Any) -> None:
    c = seat(assessment, extra_pct=25)
    end = T0 + timedelta(minutes=75)
    assert actions.deadline_of(c, T0) == end
    send(c, end - US)
    with pytest.raises(actions.AssessmentError):
        send(c, end)


def test_extra_time_set_during_the_session_applies_at_once(assessment: Any) -> None:
    c = seat(assessment)
    actions.set_extra_time(c, 50)
    c.refresh_from_db()
    sent = send(c, T0 + timedelta(minutes=89))
    Submission.objects.filter(pk=sent.pk).update(status="done", queue_wait_s=1.0)  # judged at once
    assert actions.state_of(c, T0 + timedelta(minutes=90)) == "finished"


def test_a_long_queue_wait_is_credited_and_a_job_still_waiting_stops_the_clock(assessment: Any) -> None:
    c = seat(assessment)
    waited = send(c, T0 + timedelta(minutes=10))
    Submission.objects.filter(pk=waited.pk).update(queue_wait_s=125.0, status="done")
    credit = timedelta(seconds=125) - windows.QUEUE_GRACE
    assert actions.deadline_of(c, T0 + HOUR) == T0 + HOUR + credit
    send(c, T0 + HOUR + credit - US)  # taken inside the credited time
    with pytest.raises(actions.AssessmentError):
        send(c, T0 + HOUR + credit)
    # A job that is still waiting for a judge: from the grace on, the clock stands still.
    other = seat(assessment)
    send(other, T0 + timedelta(minutes=50))  # never started by a judge here
    for minutes in (70, 100, 300):
        now = T0 + timedelta(minutes=minutes)
        assert actions.state_of(other, now) == "running"
        assert actions.deadline_of(other, now) == now + timedelta(minutes=10) - windows.QUEUE_GRACE


def test_a_submission_taken_before_the_end_counts_when_judged_after_it(assessment: Any) -> None:
    c = seat(assessment)
    sub = send(c, T0 + HOUR - timedelta(seconds=1), mode="submit")
    Submission.objects.filter(pk=sub.pk).update(queue_wait_s=1.0)
    assert actions.finish(c, "time", T0 + HOUR + timedelta(minutes=1))
    assert record_report(report_for(sub, "accepted"))  # judged after the end
    summary = report.summarize(
        c, report.assessment_problems(assessment), report._rows(assessment, c.user_id), T0 + 2 * HOUR
    )
    softmax = next(p for p in summary.problems if p.problem.slug == "softmax")
    assert softmax.best is not None and softmax.best["public_id"] == sub.public_id


def test_the_page_refuses_a_late_submit_with_a_clear_message(assessment: Any, monkeypatch: Any) -> None:
    c = seat(assessment)
    monkeypatch.setattr(clock, "now", lambda: T0 + HOUR)
    client = Client()
    client.force_login(c.user)
    response = client.post(
        f"/a/{assessment.public_id}/p/softmax/submit/",
        {"language": "triton", "source": "x = 1", "mode": "submit"},
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 400
    assert "Time is up" in response.json()["error"]
    assert not Submission.objects.filter(owner=c.user).exists()


def test_a_session_cannot_start_outside_the_window_and_the_sweep_closes_overdue_ones() -> None:
    org, owner = make_org()
    a = make_assessment(org, owner, opens_at=T0, closes_at=T0 + HOUR)
    early = seat(a, start_at=None)
    with pytest.raises(actions.AssessmentError, match="opens at"):
        actions.start(early, T0 - US)
    actions.start(early, T0 + HOUR - US)  # the last moment to start: a full hour follows
    assert actions.deadline_of(early, T0 + HOUR) == T0 + 2 * HOUR - US
    late = seat(a, start_at=None)
    with pytest.raises(actions.AssessmentError, match="closed at"):
        actions.start(late, T0 + HOUR)
    assert actions.close_overdue(T0 + 2 * HOUR) == 1
    early.refresh_from_db()
    assert early.finish_reason == "time" and early.finished_at == T0 + 2 * HOUR - US

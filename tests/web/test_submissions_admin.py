"""The submissions admin: find a submission, read its pipeline events, rejudge a selection."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from gridstride.catalog.actions import sync_problems
from gridstride.submissions import actions
from gridstride.submissions.models import Submission
from gridstride.submissions.testing import FakeBroker, report_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def staff_client(client: Client) -> Client:
    admin = get_user_model().objects.create_superuser("root", "root@example.org", "x")
    client.force_login(admin)
    return client


@pytest.fixture
def judged(monkeypatch: pytest.MonkeyPatch) -> tuple[FakeBroker, Submission]:
    fake = FakeBroker.install(monkeypatch)
    sync_problems()
    owner = get_user_model().objects.create_user("alice")
    s = actions.create_submission(owner=owner, problem="vector_add", language="triton", source="x = 1\n", mode="run")
    actions.record_report(report_for(s, "wrong_answer"))
    return fake, Submission.objects.get(pk=s.pk)


def test_the_admin_lists_submissions_and_shows_their_events(staff_client: Client, judged: Any) -> None:
    _, s = judged
    listing = staff_client.get("/admin/submissions/submission/")
    assert listing.status_code == 200 and str(s.public_id) in listing.content.decode()
    page = staff_client.get(f"/admin/submissions/submission/{s.pk}/change/").content.decode()
    # The event trail: what was queued where, and the one recorded verdict.
    assert "queue judge.cpu, priority 6" in page
    assert page.count("Recorded") == 1


def test_the_admin_rejudges_the_selected_submissions(staff_client: Client, judged: Any) -> None:
    fake, s = judged
    response = staff_client.post(
        "/admin/submissions/submission/",
        {"action": "rejudge_selected", "_selected_action": [s.pk]},
        follow=True,
    )
    assert "1 submissions queued for rejudging." in response.content.decode()
    s.refresh_from_db()
    assert (s.status, s.attempt, s.verdict) == ("queued", 2, "wrong_answer")
    assert fake.sent[-1].task_id == f"{s.public_id}.2"

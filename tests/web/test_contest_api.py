"""The contests API: the board keeps the freeze for tokens as for pages; submitting needs a
registration and the window."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from gridstride.api.actions import issue_token
from gridstride.catalog.models import Problem
from gridstride.contests import actions
from gridstride.submissions.models import Submission
from gridstride.submissions.testing import FakeBroker

from tests.web.contest_fixtures import (  # noqa: F401 (fixtures)
    END,
    SOURCE,
    START,
    Clock,
    clock_fixture,
    fake_broker_fixture,
    gpus_fixture,
    judge,
    make_contest,
    vector_add_fixture,
)
from tests.web.site_fixtures import make_user

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("gpus")]


def bearer(user: Any) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {issue_token(user, 'cli')[1]}"}


def test_the_api_board_is_frozen_for_others_and_submitting_needs_registration(
    clock: Clock, fake_broker: FakeBroker, vector_add: Problem
) -> None:
    contest = make_contest(make_user("org"), [vector_add], freeze_minutes=30)
    alice, bob = make_user("alice"), make_user("bob")
    actions.register(contest, alice)
    c = Client()
    body = {"problem": "A", "language": "pytorch", "source": SOURCE, "mode": "submit", "gpu": "h200"}
    url = f"/api/contests/{contest.slug}/submissions"
    clock.set(START + timedelta(minutes=5))
    r = c.post(url, body, content_type="application/json", **bearer(alice))
    assert r.status_code == 201, r.content
    judge(Submission.objects.get(public_id=r.json()["id"]), median_us=100.0)
    r = c.post(url, body, content_type="application/json", **bearer(bob))
    assert r.status_code == 400 and "Register" in r.json()["detail"]
    clock.set(END - timedelta(minutes=10))
    r = c.post(url, body, content_type="application/json", **bearer(alice))
    judge(Submission.objects.get(public_id=r.json()["id"]), median_us=10.0)
    anonymous = c.get(f"/api/contests/{contest.slug}/board").json()
    assert anonymous["frozen"] is True and anonymous["standings"][0]["score_text"] == "141.4 µs"
    own = c.get(f"/api/contests/{contest.slug}/board", **bearer(alice)).json()
    assert own["frozen"] is True and own["standings"][0]["score_text"] == "14.14 µs"
    assert c.get(f"/api/contests/{contest.slug}/results").status_code == 404
    clock.set(END)
    r = c.post(url, body, content_type="application/json", **bearer(alice))
    assert r.status_code == 400 and "closed at" in r.json()["detail"]
    listed = c.get("/api/contests").json()
    assert [(x["slug"], x["phase"]) for x in listed] == [(contest.slug, "ended")]

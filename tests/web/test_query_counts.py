"""List pages run a fixed number of queries, however many problems, users and submissions exist.

Each page is measured twice, with a little data and with more, and must run exactly the same
queries; the exact counts are asserted too, so an added query is a conscious change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from gridstride.api.actions import issue_token
from site_fixtures import log_in, make_submission, make_user, problems

pytestmark = pytest.mark.django_db


def populate(users: int) -> None:
    ps = problems()
    for i in range(users):
        u = make_user()
        make_submission(u, ps["softmax"], score_scale=0.8 + i * 0.01, is_public=i % 2 == 0)
        make_submission(u, ps["softmax"], language="cuda", score_scale=0.85 + i * 0.01)
        make_submission(u, ps["vector_add"], verdict="wrong_answer", mode="run")
        make_submission(u, ps["softmax"], gpu_model="cpu")


def count(fetch: Callable[[], Any]) -> int:
    with CaptureQueriesContext(connection) as ctx:
        response = fetch()
    assert getattr(response, "status_code", 200) == 200
    return len(ctx.captured_queries)


@pytest.fixture
def viewer(client: Client) -> Client:
    problems()
    me = make_user("viewer")
    make_submission(me, problems()["softmax"], score_scale=1.5)
    log_in(client, "viewer")
    return client


PAGES = {
    # page: exact queries for a logged-in viewer (session + user are 2 of them)
    "/": 5,
    # session, user, problem, recent runs, the viewer's drafts of the problem; its ladder, open to
    # the viewer (an accepted run): whether a running contest or the viewer's assessment closes it
    # (2), whether it is open, its rungs, the viewer's best run (2)
    "/problems/softmax/": 11,
    # session, user, problem, GPU list, top entries, total, the viewer's row, its rank, the row above
    "/leaderboards/softmax/?gpu=h200": 9,
    # (the viewer has no entry on these two: no query for their row)
    "/leaderboards/softmax/?gpu=h200&language=cuda": 7,
    "/leaderboards/softmax/?gpu=cpu": 7,
    # + the problems tried (the problem filter's choices)
    "/submissions/": 5,
    # + the problems per track (solved along the learning path)
    "/users/viewer/": 8,
}


@pytest.mark.parametrize("url", list(PAGES))
def test_list_pages_run_a_fixed_number_of_queries(viewer: Client, url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # A board shorter than the first page needs fewer queries; measure the long case at both sizes.
    monkeypatch.setattr("gridstride.leaderboards.views.PAGE", 3)
    populate(5)
    few = count(lambda: viewer.get(url))
    populate(10)
    many = count(lambda: viewer.get(url))
    assert few == many, f"{url}: {few} queries with little data, {many} with more"
    assert many == PAGES[url], f"{url}: expected {PAGES[url]} queries, ran {many}"


def test_the_status_poll_is_three_queries(viewer: Client) -> None:
    populate(3)
    s = make_submission(
        _user("viewer"), problems()["softmax"], status="testing", progress={"stage": "testing", "done": 1, "total": 5}
    )
    # session, user, the submission's status columns
    with CaptureQueriesContext(connection) as ctx:
        viewer.get(f"/submissions/{s.public_id}/status/")
    assert len(ctx.captured_queries) == 3
    assert "source" not in ctx.captured_queries[-1]["sql"] and "report" not in ctx.captured_queries[-1]["sql"]


def test_api_lists_run_a_fixed_number_of_queries(client: Client) -> None:
    populate(4)
    _, token = issue_token(_user_any(), "cli")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    client.get("/api/me", **auth)  # the token's first use records last_used_at: not a list's cost
    urls = ["/api/problems", "/api/leaderboards/softmax?gpu=h200&limit=2", "/api/submissions"]
    few = [count(lambda u=u: client.get(u, **auth)) for u in urls]
    populate(10)
    many = [count(lambda u=u: client.get(u, **auth)) for u in urls]
    assert few == many


def _user(name: str) -> Any:
    return get_user_model().objects.get(username=name)


def _user_any() -> Any:
    return get_user_model().objects.order_by("pk").first()

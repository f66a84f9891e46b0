"""Drafts kept on the site per user, problem and language (submissions/drafts.py): saved by the
problem page through a small CSRF-protected endpoint, carried back in the page's workspace data."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from gridstride.submissions import drafts
from gridstride.submissions.models import Draft
from site_fixtures import make_user, problems

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = T0


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr("gridstride.lib.clock.now", lambda: c.now)
    return c


def workspace(html: str) -> dict[str, Any]:
    found = re.search(r'<script id="workspace-data" type="application/json">(.*?)</script>', html, re.S)
    assert found
    return json.loads(found.group(1))  # type: ignore[no-any-return]


def signed_in(name: str, *, csrf: bool = False) -> Client:
    problems()
    c = Client(enforce_csrf_checks=csrf)
    c.force_login(make_user(name))
    return c


def save(c: Client, text: str | bytes, slug: str = "softmax", language: str = "triton", **headers: Any) -> Any:
    return c.post(f"/submissions/drafts/{slug}/{language}/", text, content_type="text/plain; charset=utf-8", **headers)


def test_a_saved_draft_comes_back_in_the_problem_page_with_where_to_save_each_language(clock: Clock) -> None:
    c = signed_in("ada")
    r = save(c, "def solve(x):\n    return 'ada'\n")
    assert r.status_code == 200, r.content
    assert r.json() == {"saved": True, "at": T0.isoformat(), "now": T0.isoformat()}
    assert r["Cache-Control"] == "no-store"
    data = workspace(c.get("/problems/softmax/").content.decode())["drafts"]
    assert data["saved"] == {"triton": {"source": "def solve(x):\n    return 'ada'\n", "at": T0.isoformat()}}
    assert data["now"] == T0.isoformat()
    langs = problems()["softmax"].languages
    assert data["urls"] == {lang: f"/submissions/drafts/softmax/{lang}/" for lang in langs}


def test_drafts_are_kept_per_user_problem_and_language(clock: Clock) -> None:
    ada, bob = signed_in("ada"), signed_in("bob")
    assert save(ada, "ada triton").status_code == 200
    assert save(ada, "ada cuda", language="cuda").status_code == 200
    assert save(ada, "ada vector_add", slug="vector_add").status_code == 200
    assert save(bob, "bob triton").status_code == 200
    clock.now = T0 + timedelta(minutes=5)
    assert save(ada, "ada triton, later").status_code == 200
    mine = workspace(ada.get("/problems/softmax/").content.decode())["drafts"]["saved"]
    assert {lang: d["source"] for lang, d in mine.items()} == {"triton": "ada triton, later", "cuda": "ada cuda"}
    assert mine["triton"]["at"] == (T0 + timedelta(minutes=5)).isoformat()
    theirs = workspace(bob.get("/problems/softmax/").content.decode())["drafts"]["saved"]
    assert {lang: d["source"] for lang, d in theirs.items()} == {"triton": "bob triton"}
    assert Draft.objects.count() == 4


def test_saving_the_same_text_again_keeps_its_time(clock: Clock) -> None:
    c = signed_in("ada")
    save(c, "same")
    clock.now = T0 + timedelta(minutes=1)
    assert save(c, "same").json()["at"] == T0.isoformat(), (
        "an unchanged draft must not look newer than an edit elsewhere"
    )


def test_a_visitor_has_no_drafts_on_the_site() -> None:
    problems()
    c = Client()
    assert "drafts" not in workspace(c.get("/problems/softmax/").content.decode())
    r = save(c, "x")
    assert r.status_code == 401 and "Log in" in r.json()["error"]
    assert not Draft.objects.exists()


def test_saves_need_the_csrf_token() -> None:
    c = signed_in("ada", csrf=True)
    assert save(c, "no token").status_code == 403
    page = c.get("/problems/softmax/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token
    assert save(c, "with the token", HTTP_X_CSRFTOKEN=token.group(1)).status_code == 200
    assert Draft.objects.get().source == "with the token"


def test_only_posts_of_text_for_a_public_problems_own_language_are_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    c = signed_in("ada")
    assert c.get("/submissions/drafts/softmax/triton/").status_code == 405
    assert save(c, "x", slug="no_such_problem").status_code == 404
    assert save(c, "x", language="fortran").status_code == 404
    r = c.post("/submissions/drafts/softmax/triton/", {"source": "x"})
    assert r.status_code == 415
    r = c.post("/submissions/drafts/softmax/triton/", json.dumps({"source": "x"}), content_type="application/json")
    assert r.status_code == 415
    # A hidden problem (usable only in assessments and contests) is a 404 like one that does not exist.
    softmax = problems()["softmax"]
    type(softmax).objects.filter(pk=softmax.pk).update(is_hidden=True)
    assert save(c, "x").status_code == 404
    assert not Draft.objects.exists()


def test_the_size_limit_is_the_source_limit() -> None:
    c = signed_in("ada")
    limit = settings.MAX_SOURCE_BYTES
    assert save(c, "x" * limit).status_code == 200
    r = save(c, "y" * (limit + 1))
    assert r.status_code == 413 and "64 KiB" in r.json()["error"]
    assert Draft.objects.get().source == "x" * limit


def test_text_is_made_storable_and_bytes_must_be_utf8() -> None:
    c = signed_in("ada")
    assert save(c, "a\x00b é").status_code == 200
    assert Draft.objects.get().source == "a\u2400b é", "a NUL is stored visibly, as other user text"
    r = save(c, b"\xff\xfe not utf-8")
    assert r.status_code == 400 and "UTF-8" in r.json()["error"]


def test_saves_are_rate_limited_per_user_and_the_limit_lifts_after_the_minute(
    clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(drafts, "SAVES_PER_MINUTE", 3)
    ada, bob = signed_in("ada"), signed_in("bob")
    for i in range(3):
        clock.now = T0 + timedelta(seconds=10 * i)
        assert save(ada, f"v{i}", language=("triton", "cuda", "triton")[i]).status_code == 200
    r = save(ada, "v3")
    assert r.status_code == 429 and r["Retry-After"] == "40"
    assert save(bob, "bob's own minute").status_code == 200
    clock.now = T0 + timedelta(seconds=61)
    assert save(ada, "v4").status_code == 200
    assert Draft.objects.get(owner__username="ada", language="triton").source == "v4"

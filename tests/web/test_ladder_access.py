"""The optimization ladder on the problem page and in the API: nothing of it reaches a browser
or an API client before the user has an accepted submission on the problem or has confirmed
giving up (recorded per user and problem); a hidden problem's ladder is never served."""

from __future__ import annotations

import json
import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from assessment_fixtures import T0, make_assessment, make_org, seat
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client
from gridstride.api.actions import issue_token
from gridstride.catalog.actions import sync_problems
from gridstride.catalog.models import Ladder, LadderGiveUp, Problem
from gridstride.lib import clock
from ladder_fixtures import RUNGS, SECRETS, SLUG, sgemm_shapes, write_ladder
from site_fixtures import make_submission, make_user, report

from judge import ladder as judge_ladder
from judge import spec

pytestmark = pytest.mark.django_db


@pytest.fixture
def root(tmp_path: Path) -> Path:
    problems_root = write_ladder(tmp_path)
    sync_problems(problems_root, problems_root.parent)
    return problems_root


def sgemm() -> Problem:
    return Problem.objects.select_related("current_version").get(slug=SLUG)


def accepted(user: AbstractBaseUser, median_us: float = 500.0, gpu_model: str = "h200") -> Any:
    data = report(problem=SLUG, language="cuda", shapes=sgemm_shapes(median_us))
    return make_submission(user, sgemm(), language="cuda", gpu_model=gpu_model, report_data=data)


def logged_in(user: AbstractBaseUser) -> Client:
    c = Client()
    c.force_login(user)
    return c


def leaked(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


def bearer(user: AbstractBaseUser) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {issue_token(user, 'cli')[1]}"}


# --- hidden until accepted or given up ----------------------------------------------------------


def test_nothing_of_the_ladder_reaches_the_page_fragment_or_api_before_it_opens(root: Path) -> None:
    user = make_user()
    make_submission(user, sgemm(), language="cuda", mode="run", verdict="wrong_answer")
    clients = {"anonymous": Client(), "unsolved": logged_in(user)}
    for who, c in clients.items():
        page = c.get(f"/problems/{SLUG}/")
        assert page.status_code == 200
        html = page.content.decode()
        assert leaked(html) == [], who
        assert 'data-testid="ladder-locked"' in html and 'data-testid="ladder"' not in html
        fragment = c.get(f"/problems/{SLUG}/ladder/")
        assert fragment.status_code == 403 and leaked(fragment.content.decode()) == []
    api = Client().get(f"/api/problems/{SLUG}/ladder", **bearer(user))
    assert api.status_code == 403
    assert "accepted submission" in api.json()["detail"] and leaked(api.content.decode()) == []
    assert Client().get(f"/api/problems/{SLUG}/ladder").status_code == 401
    assert leaked(Client().get(f"/api/problems/{SLUG}").content.decode()) == []


def test_an_accepted_submission_opens_it_on_the_page_in_the_fragment_and_in_the_api(root: Path) -> None:
    user = make_user()
    accepted(user, median_us=500.0)
    c = logged_in(user)
    html = c.get(f"/problems/{SLUG}/").content.decode()
    for secret in SECRETS:
        assert secret in html, secret
    assert 'data-testid="ladder-locked"' not in html
    assert "accepted submission on this problem" in html
    # Code and editorial are escaped or sanitized, never run.
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "onclick" not in html
    # The figures, formatted like every other figure of the site.
    assert "200.0 µs" in html and "2.000 ms" in html
    # Your best (500 µs) among the rungs: in words, in the standings and on the roofline chart.
    assert (
        "faster than 2 rungs of 3: it sits between rung 2, Zeta tiled rung (700.0 µs), "
        "and rung 3, Zeta blocked rung (200.0 µs)"
    ) in html
    assert 'class="rf-point rf-rung"' in html and 'class="rf-point rf-yours"' in html
    assert html.count('class="rf-point rf-rung"') == 9  # three rungs, three shapes each
    fragment = c.get(f"/problems/{SLUG}/ladder/")
    assert fragment.status_code == 200 and all(s in fragment.content.decode() for s in SECRETS)
    data = Client().get(f"/api/problems/{SLUG}/ladder", **bearer(user)).json()
    assert data["opened"] == "accepted"
    assert [r["title"] for r in data["rungs"]] == [t for t, _, _ in RUNGS]
    assert "ZETA_SOURCE_1" in data["rungs"][0]["source"]
    assert data["rungs"][2]["figures"]["score"] == "200.0 µs"
    assert data["yours"]["score"] == "500.0 µs" and data["yours"]["comparable"] is True


def test_a_run_that_passes_its_cases_opens_it_too(root: Path) -> None:
    user = make_user()
    make_submission(user, sgemm(), language="cuda", mode="run", gpu_model="cpu")
    html = logged_in(user).get(f"/problems/{SLUG}/").content.decode()
    assert 'data-testid="ladder"' in html
    assert "once a Submit is accepted, your best appears here" in html


def test_a_best_run_of_other_hardware_is_shown_but_not_drawn_among_the_rungs(root: Path) -> None:
    user = make_user()
    accepted(user, median_us=90_000.0, gpu_model="cpu")
    html = logged_in(user).get(f"/problems/{SLUG}/").content.decode()
    assert "Judged on the CPU host, not on the NVIDIA H200" in html
    assert "rf-point rf-rung" in html and "rf-point rf-yours" not in html


def test_giving_up_needs_the_confirmation_and_opens_it_for_that_user_and_problem_only(root: Path) -> None:
    user, other = make_user(), make_user()
    c = logged_in(user)
    assert c.get(f"/problems/{SLUG}/ladder/give-up/").status_code == 405
    refused = c.post(f"/problems/{SLUG}/ladder/give-up/", follow=True)
    assert not LadderGiveUp.objects.exists()
    assert "Tick the box" in refused.content.decode() and leaked(refused.content.decode()) == []
    response = c.post(f"/problems/{SLUG}/ladder/give-up/", {"confirm": "yes"})
    assert response.status_code == 302 and response["Location"] == f"/problems/{SLUG}/#ladder"
    assert LadderGiveUp.objects.filter(user=user, problem__slug=SLUG).count() == 1
    html = c.get(f"/problems/{SLUG}/").content.decode()
    assert all(s in html for s in SECRETS) and "you chose to see it" in html
    # Not for another user, nor on another problem with a ladder (the real transpose ladder).
    assert leaked(logged_in(other).get(f"/problems/{SLUG}/").content.decode()) == []
    assert logged_in(other).get(f"/problems/{SLUG}/ladder/").status_code == 403
    sync_problems()
    transpose = c.get("/problems/transpose/").content.decode()
    assert 'data-testid="ladder-locked"' in transpose
    for rung in judge_ladder.load_ladder("transpose").rungs:  # type: ignore[union-attr]
        assert rung.title not in transpose and rung.step not in transpose and rung.path not in transpose
    assert c.get("/problems/transpose/ladder/").status_code == 403


def without_ladder(root: Path, slug: str = "vector_add") -> str:
    """A problem of the fixture repository with no ladder (every catalog problem has one)."""
    shutil.copytree(spec.PROBLEMS_DIR / slug, root / slug, ignore=shutil.ignore_patterns("ladder"))
    sync_problems(root, root.parent)
    return slug


def test_giving_up_is_for_logged_in_users_on_problems_with_a_ladder(root: Path) -> None:
    anonymous = Client().post(f"/problems/{SLUG}/ladder/give-up/", {"confirm": "yes"})
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    plain = without_ladder(root)
    c = logged_in(make_user())
    assert c.post(f"/problems/{plain}/ladder/give-up/", {"confirm": "yes"}).status_code == 404
    assert c.get(f"/problems/{plain}/ladder/").status_code == 404
    assert 'id="ladder"' not in c.get(f"/problems/{plain}/").content.decode()


def test_giving_up_through_the_api_needs_confirm_true(root: Path) -> None:
    user = make_user()
    headers = bearer(user)
    c = Client()
    url = f"/api/problems/{SLUG}/ladder/give-up"
    refused = c.post(url, json.dumps({}), content_type="application/json", **headers)
    assert refused.status_code == 400 and "confirm" in refused.json()["detail"]
    assert not LadderGiveUp.objects.exists()
    opened = c.post(url, json.dumps({"confirm": True}), content_type="application/json", **headers)
    assert opened.status_code == 200 and opened.json()["opened"] == "gave_up"
    assert c.get(f"/api/problems/{SLUG}/ladder", **headers).status_code == 200
    assert c.get(f"/api/problems/{SLUG}/ladder", **bearer(make_user())).status_code == 403
    assert c.get(f"/api/problems/{without_ladder(root)}/ladder", **headers).status_code == 404


# --- hidden problems ------------------------------------------------------------------------------


def test_a_hidden_problems_ladder_is_never_served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    problems_root = write_ladder(tmp_path, hidden=True)
    sync_problems(problems_root, problems_root.parent)
    problem = sgemm()
    assert problem.is_hidden and Ladder.objects.filter(problem=problem).exists()
    user = make_user()
    LadderGiveUp.objects.create(user=user, problem=problem)
    make_submission(user, problem, language="cuda", mode="run", gpu_model="cpu")
    c, headers = logged_in(user), bearer(user)
    assert c.get(f"/problems/{SLUG}/").status_code == 404
    assert c.get(f"/problems/{SLUG}/ladder/").status_code == 404
    assert c.post(f"/problems/{SLUG}/ladder/give-up/", {"confirm": "yes"}).status_code == 404
    assert Client().get(f"/api/problems/{SLUG}/ladder", **headers).status_code == 404
    give_up = Client().post(
        f"/api/problems/{SLUG}/ladder/give-up", '{"confirm": true}', content_type="application/json", **headers
    )
    assert give_up.status_code == 404
    # Its assessment workspace (the only place a hidden problem is shown) carries no ladder either.
    monkeypatch.setattr(clock, "now", lambda: T0 + timedelta(minutes=30))
    org, owner = make_org()
    assessment = make_assessment(org, owner, slugs=(SLUG,))
    candidate = seat(assessment, start_at=T0)
    workspace = logged_in(candidate.user).get(f"/a/{assessment.public_id}/p/{SLUG}/")
    assert workspace.status_code == 200
    assert leaked(workspace.content.decode()) == [] and 'id="ladder"' not in workspace.content.decode()

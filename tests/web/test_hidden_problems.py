"""Hidden problems (problem.toml `hidden = true`): synced as hidden, absent from every public list,
404 on every public page and API route, and refused for practice submissions."""

from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any

import contest_fixtures
import pytest
from assessment_fixtures import T0, make_assessment, make_org, seat
from django.test import Client, override_settings
from django.utils import timezone
from gridstride.api.actions import issue_token
from gridstride.assessments import actions as assessment_actions
from gridstride.catalog.actions import sync_problems
from gridstride.catalog.models import Problem
from gridstride.contests import actions as contest_actions
from gridstride.contests.models import ContestProblem
from gridstride.submissions.actions import SubmissionRefused, create_submission
from gridstride.submissions.testing import FakeBroker
from site_fixtures import make_user, problems

from judge import spec

pytestmark = pytest.mark.django_db


def test_sync_stores_the_hidden_flag_of_problem_toml(tmp_path: Path) -> None:
    shutil.copytree(spec.PROBLEMS_DIR / "vector_add", tmp_path / "vector_add")
    toml = tmp_path / "vector_add" / "problem.toml"
    toml.write_text(toml.read_text().replace('slug = "vector_add"', 'slug = "vector_add"\nhidden = true', 1))
    assert spec.load_problem(tmp_path / "vector_add").hidden is True
    sync_problems(tmp_path)
    assert Problem.objects.get(slug="vector_add").is_hidden is True
    sync_problems()
    assert Problem.objects.get(slug="vector_add").is_hidden is False


def test_a_public_case_name_may_not_look_like_a_hidden_shape(tmp_path: Path) -> None:
    shutil.copytree(spec.PROBLEMS_DIR / "vector_add", tmp_path / "vector_add")
    toml = tmp_path / "vector_add" / "problem.toml"
    toml.write_text(toml.read_text().replace('name = "16M"', 'name = "hidden-16M"', 1))
    with pytest.raises(spec.ProblemError, match="kept for hidden shapes"):
        spec.load_problem(tmp_path / "vector_add")


def test_a_bad_hidden_template_is_refused_with_its_line(tmp_path: Path) -> None:
    shutil.copytree(spec.PROBLEMS_DIR / "vector_add", tmp_path / "vector_add")
    toml = tmp_path / "vector_add" / "problem.toml"
    toml.write_text(toml.read_text().replace("n = [20_000_001, 120_000_001, 2]", "n = [121, 21, 2]", 1))
    with pytest.raises(spec.ProblemError, match="lo <= hi"):
        spec.load_problem(tmp_path / "vector_add")


def hide(slug: str) -> Problem:
    problem = problems()[slug]
    Problem.objects.filter(pk=problem.pk).update(is_hidden=True)
    problem.refresh_from_db()
    return problem


def test_a_hidden_problem_is_on_no_public_page_or_api_route() -> None:
    hide("reduction")
    c = Client()
    listing = c.get("/").content.decode()
    assert "/problems/reduction/" not in listing and "/problems/softmax/" in listing
    assert c.get("/problems/reduction/").status_code == 404
    assert c.get("/leaderboards/reduction/").status_code == 404
    assert "/leaderboards/reduction/" not in c.get("/leaderboards/").content.decode()
    assert "reduction" not in [p["slug"] for p in c.get("/api/problems").json()]
    assert c.get("/api/problems/reduction").status_code == 404
    assert c.get("/api/leaderboards/reduction").status_code == 404


def test_practice_on_a_hidden_problem_is_refused_as_if_it_did_not_exist() -> None:
    problem = hide("reduction")
    user = make_user()
    with pytest.raises(SubmissionRefused, match="no problem called"):
        create_submission(owner=user, problem=problem, language="triton", source="x = 1", mode="run")
    c = Client()
    c.force_login(user)
    response = c.post("/submissions/new/", {"problem": "reduction", "language": "triton", "source": "x", "mode": "run"})
    assert response.status_code == 404


# ---------------------------------------------------------------------------------------------
# The catalog's hidden problem (problems/swiglu: hidden = true in its problem.toml).


def test_the_catalogs_hidden_problem_is_synced_hidden_with_its_ladder_and_hidden_shapes() -> None:
    swiglu = problems()["swiglu"]
    assert swiglu.is_hidden and swiglu.current_version is not None
    assert [t["name"] for t in swiglu.current_version.spec["hidden_benchmarks"]] == ["wide", "tall"]
    assert swiglu.ladder.rungs.count() == 4  # stored like any ladder, never served (below)
    assert swiglu not in Problem.objects.public()


def test_the_catalogs_hidden_problem_is_on_no_public_page_listing_or_api_route() -> None:
    problems()
    user = make_user()
    _, token = issue_token(user, "t")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    for c in (Client(), logged_in(user)):
        for url in ("/", "/leaderboards/", "/about/"):
            body = c.get(url).content.decode()
            assert "swiglu" not in body.lower() and "SwiGLU" not in body, url
        for url in ("/problems/swiglu/", "/problems/swiglu/ladder/", "/leaderboards/swiglu/"):
            assert c.get(url).status_code == 404, url
        # As for a problem that does not exist (anonymous: to the login page; signed in: 404).
        give_up = c.post("/problems/swiglu/ladder/give-up/", {"confirm": "yes"}).status_code
        assert give_up == c.post("/problems/no_such_problem/ladder/give-up/", {"confirm": "yes"}).status_code
        assert give_up in (302, 404)
    listing = Client().get("/api/problems", **auth)
    assert listing.status_code == 200 and "swiglu" not in [p["slug"] for p in listing.json()]
    for url in ("/api/problems/swiglu", "/api/problems/swiglu/ladder", "/api/leaderboards/swiglu"):
        assert Client().get(url, **auth).status_code == 404, url
    assert (
        Client().post("/api/problems/swiglu/ladder/give-up", {"confirm": True}, "application/json", **auth).status_code
        == 404
    )
    with pytest.raises(SubmissionRefused, match="no problem called"):
        create_submission(owner=user, problem=problems()["swiglu"], language="triton", source="x = 1", mode="run")


def logged_in(user: object) -> Client:
    c = Client()
    c.force_login(user)  # type: ignore[arg-type]
    return c


def test_the_catalogs_hidden_problem_is_usable_in_an_assessment(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    fake = FakeBroker.install(monkeypatch)
    org, owner = make_org()
    assessment = make_assessment(org, owner, slugs=("swiglu",))
    candidate = seat(assessment, start_at=T0)
    monkeypatch.setattr("gridstride.lib.clock.now", lambda: T0 + timedelta(minutes=1))
    page = logged_in(candidate.user).get(f"/a/{assessment.public_id}/p/swiglu/")
    assert page.status_code == 200 and "SiLU" in page.content.decode(), "the candidate reads the statement"
    with django_capture_on_commit_callbacks(execute=True):
        submission = assessment_actions.submit(
            candidate,
            problems()["swiglu"],
            language="triton",
            source="x = 1",
            mode="submit",
            now=T0 + timedelta(minutes=2),
        )
    assert submission.problem.slug == "swiglu" and submission.context == "assessment"
    [job] = [s.job for s in fake.sent]
    assert job["problem"] == "swiglu" and job["participant_seed"] == candidate.participant_seed
    assert [s["name"] for s in job["hidden_benchmarks"]] == ["hidden-1"], "the CPU template's shape"
    team_page = logged_in(owner).get(f"/orgs/{org.slug}/a/{assessment.public_id}/")
    assert team_page.status_code == 200 and "swiglu" in team_page.content.decode().lower()


def test_the_catalogs_hidden_problem_is_usable_in_a_contest(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    fake = FakeBroker.install(monkeypatch)
    swiglu = problems()["swiglu"]
    now = {"t": contest_fixtures.START - timedelta(days=1)}
    monkeypatch.setattr(timezone, "now", lambda: now["t"])
    with override_settings(JUDGE_GPU_MODELS=["cpu", "h200"], SUBMISSIONS_PER_MINUTE=0):
        contest = contest_fixtures.make_contest(make_user(), [swiglu])
        alice = make_user("alice")
        contest_actions.register(contest, alice)
        now["t"] = contest_fixtures.START + timedelta(minutes=5)
        label = ContestProblem.objects.get(contest=contest).label
        page = logged_in(alice).get(f"/contests/{contest.slug}/problems/{label}/")
        assert page.status_code == 200 and "SiLU" in page.content.decode()
        with django_capture_on_commit_callbacks(execute=True):
            submission = contest_actions.submit(
                contest, alice, problem=swiglu, language="triton", source="x = 1", mode="submit", gpu_model="h200"
            )
    assert submission.problem.slug == "swiglu" and submission.context == "contest"
    [job] = [s.job for s in fake.sent]
    assert job["problem"] == "swiglu" and job["participant_seed"], "judged with the participant's own seed"

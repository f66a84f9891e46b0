"""Hidden problems (problem.toml `hidden = true`): synced as hidden, absent from every public list,
404 on every public page and API route, and refused for practice submissions."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.test import Client
from gridstride.catalog.actions import sync_problems
from gridstride.catalog.models import Problem
from gridstride.submissions.actions import SubmissionRefused, create_submission
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

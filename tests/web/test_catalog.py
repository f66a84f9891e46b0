"""The catalog: sync_problems mirrors problems/ and the pages render every problem."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client
from gridstride.catalog.actions import sync_problems
from gridstride.catalog.models import Problem, ProblemVersion

from judge import spec

pytestmark = pytest.mark.django_db


@pytest.mark.usefixtures("empty_catalog")
def test_sync_creates_every_problem_then_reports_them_unchanged() -> None:
    first = sync_problems()
    specs, errors = spec.load_all()
    assert errors == []
    assert sorted(first.created) == sorted(s.slug for s in specs)
    second = sync_problems()
    assert second.created == [] and second.updated == []
    assert sorted(second.unchanged) == sorted(s.slug for s in specs)
    assert ProblemVersion.objects.count() == len(specs)


@pytest.mark.usefixtures("empty_catalog")
def test_a_broken_problem_is_reported_with_file_and_line_and_the_others_still_load(tmp_path: Path) -> None:
    import shutil

    shutil.copytree(spec.PROBLEMS_DIR / "vector_add", tmp_path / "vector_add")
    broken = tmp_path / "broken_one"
    broken.mkdir()
    (broken / "problem.toml").write_text('schema = 1\nslug = "broken_one"\ntitle = [oops\n')
    report = sync_problems(tmp_path)
    assert report.created == ["vector_add"]
    assert len(report.errors) == 1
    assert "broken_one/problem.toml:3" in report.errors[0]


def test_the_problem_list_groups_by_track_and_links_every_problem(client: Client) -> None:
    call_command("sync_problems")
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    for problem in Problem.objects.public():
        assert f"/problems/{problem.slug}/" in html
    hidden = Problem.objects.filter(is_hidden=True)
    assert hidden.exists(), "the catalog has a hidden problem (swiglu)"
    for problem in hidden:
        assert f"/problems/{problem.slug}/" not in html


def test_every_problem_page_renders_its_statement_interface_and_starters(client: Client) -> None:
    call_command("sync_problems")
    for problem in Problem.objects.public():  # hidden ones: tests/web/test_hidden_problems.py
        response = client.get(f"/problems/{problem.slug}/")
        assert response.status_code == 200, problem.slug
        html = response.content.decode()
        version = problem.current_version
        assert version is not None
        for tensor in version.spec["inputs"] + version.spec["outputs"]:
            assert f"<code>{tensor['name']}</code>" in html
        for language in version.starters:
            assert f"language-{language}" in html


def test_an_unknown_problem_is_a_404(client: Client) -> None:
    assert client.get("/problems/nope/").status_code == 404

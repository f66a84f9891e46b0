"""The problem picker of the contest and assessment forms warns about public problems: their
optimization ladder and editorial can be read on the site (docs/contests.md, docs/assessments.md).
The warning sits next to the picker, shown while a public problem is chosen (rendered so when the
form comes back with one; picker.js follows the ticks), and again after saving."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from assessment_fixtures import make_assessment, make_org
from contest_fixtures import START, Clock, clock_fixture, gpus_fixture, make_contest  # noqa: F401 (fixtures)
from django.test import Client
from django.utils.html import escape
from gridstride.catalog import picker
from site_fixtures import make_user, problems

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("gpus")]

WARNING = re.compile(r'<div class="notice small public-problems"[^>]*data-testid="public-problem-warning"[^>]*>')


def warning_tag(html: str) -> str:
    found = WARNING.search(html)
    assert found, "no public-problem warning beside the picker"
    return found.group(0)


def shown(html: str) -> bool:
    return " hidden" not in warning_tag(html)


def checkbox(html: str, pk: int) -> str:
    found = re.search(rf'<input type="checkbox" name="problems" value="{pk}"[^>]*>', html)
    assert found, pk
    return found.group(0)


def logged_in() -> tuple[Client, object]:
    user = make_user()
    c = Client()
    c.force_login(user)
    return c, user


def contest_data(*slugs: str, **over: str) -> dict[str, object]:
    catalog = problems()
    data: dict[str, object] = {
        "title": "Kernels",
        "slug": "kernels",
        "starts_at": START.strftime("%Y-%m-%dT%H:%M"),
        "ends_at": (START + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M"),
        "freeze_minutes": "0",
        "problems": [str(catalog[s].pk) for s in slugs],
        "gpu_models": ["h200"],
        "registration": "open",
        "team_size": "1",
        "hourly_limit": "0",
        "scoring": "geomean_runtime",
        "rerun_tolerance_pct": "3",
    }
    data.update(over)
    return data


def test_the_contest_picker_marks_public_problems_and_warns_while_one_is_chosen(clock: Clock) -> None:
    catalog = problems()
    c, _ = logged_in()
    html = c.get("/contests/new/").content.decode()
    assert 'data-public="1"' in checkbox(html, catalog["vector_add"].pk)
    assert "data-public" not in checkbox(html, catalog["swiglu"].pk)
    assert "Fused SwiGLU Activation (easy, hidden)" in html
    assert not shown(html) and escape(picker.CONTEST_WARNING) in html and "gridstride/picker.js" in html
    # Back with an error and a public problem ticked: the warning is shown beside the picker.
    again = c.post("/contests/new/", contest_data("vector_add", "swiglu", title="")).content.decode()
    assert shown(again) and "Public problem chosen." in again
    only_hidden = c.post("/contests/new/", contest_data("swiglu", title="")).content.decode()
    assert not shown(only_hidden)
    # Saved with a public problem: the warning follows, naming it.
    created = c.post("/contests/new/", contest_data("vector_add", "swiglu"), follow=True).content.decode()
    assert escape(f"Public problems: vector_add. {picker.CONTEST_WARNING}") in created
    quiet = c.post("/contests/new/", contest_data("swiglu", slug="quiet"), follow=True).content.decode()
    assert "Public problems:" not in quiet


def test_the_contest_edit_page_names_the_public_problems_it_uses(clock: Clock) -> None:
    catalog = problems()
    c, user = logged_in()
    make_contest(user, [catalog["swiglu"], catalog["vector_add"], catalog["softmax"]])
    html = c.get("/contests/spring-kernels/edit/").content.decode()
    assert shown(html) and "Public problems in this contest: vector_add, softmax." in html
    assert escape(picker.CONTEST_WARNING) in html
    make_contest(user, [catalog["swiglu"]], slug="hidden-only")
    assert 'data-testid="public-problem-warning"' not in c.get("/contests/hidden-only/edit/").content.decode()


def test_the_assessment_picker_gives_the_advice_while_a_public_problem_is_chosen() -> None:
    catalog = problems()
    c, owner = logged_in()
    org, _ = make_org(owner)
    url = f"/orgs/{org.slug}/new/"
    html = c.get(url).content.decode()
    assert 'data-public="1"' in checkbox(html, catalog["softmax"].pk)
    assert "data-public" not in checkbox(html, catalog["swiglu"].pk)
    assert not shown(html) and escape(picker.ASSESSMENT_WARNING) in html
    assert "Teams who want no public exposure should use hidden problems." in picker.ASSESSMENT_WARNING
    data = {"title": "", "problems": [str(catalog["softmax"].pk)], "gpu_model": "cpu", "duration_minutes": "60"}
    assert shown(c.post(url, data).content.decode())
    saved = c.post(url, {**data, "title": "Round 1"}, follow=True).content.decode()
    assert escape(f"Public problems: softmax. {picker.ASSESSMENT_WARNING}") in saved
    # Editing one that uses a public problem: shown from the start.
    assessment = make_assessment(org, owner, slugs=("swiglu", "vector_add"))
    edit = c.get(f"/orgs/{org.slug}/a/{assessment.public_id}/edit/").content.decode()
    assert shown(edit)
    hidden_only = make_assessment(org, owner, slugs=("swiglu",))
    assert not shown(c.get(f"/orgs/{org.slug}/a/{hidden_only.public_id}/edit/").content.decode())

"""The reviewer's side: the candidate report (best run with hidden shapes, timeline, playback,
signals), the comparison with percentiles, CSV export, the API, per-candidate seeds and hidden
shapes (never on the candidate's pages), and query counts that do not grow with candidates."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from assessment_fixtures import T0, judged, make_assessment, make_org, seat, world
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from gridstride.api.actions import issue_token
from gridstride.assessments import actions
from gridstride.assessments.models import PageEvent, Snapshot
from gridstride.lib import clock
from gridstride.submissions.testing import FakeBroker
from site_fixtures import problems

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
SOFTMAX_OK = (ROOT / "problems/softmax/solutions/triton_ok.py").read_text()
HIDDEN_REPORT = {
    "verdict": "accepted",
    "mode": "benchmark",
    "benchmarks": [
        {"name": "64x1024", "sizes": {"m": 64, "n": 1024}, "n": 10, "median_us": 50.0, "mean_us": 50.0, "p10_us": 49.0, "p90_us": 51.0,
         "min_us": 48.0, "ci_low_us": 49.5, "ci_high_us": 50.5, "flops": 1e6, "bytes": 5e5, "gbps": 10.0, "tflops": 0.02,
         "sol_pct": 40.0, "floor_us": 20.0, "speedup_vs_reference": 2.0},
        {"name": "hidden-1", "sizes": {"m": 37, "n": 2911}, "n": 10, "median_us": 60.0, "mean_us": 60.0, "p10_us": 59.0, "p90_us": 61.0,
         "min_us": 58.0, "ci_low_us": 59.5, "ci_high_us": 60.5, "flops": 1e6, "bytes": 5e5, "gbps": 8.0, "tflops": 0.01,
         "sol_pct": 30.0, "floor_us": 20.0, "speedup_vs_reference": 1.5},
    ],
    "kernels": [{"name": "softmax_row_kernel", "duration_us": 40.0, "dram_sol_pct": 61.0, "calls": 1}],
}  # fmt: skip


@pytest.fixture(autouse=True)
def frozen(monkeypatch: Any) -> None:
    monkeypatch.setattr(clock, "now", lambda: T0 + timedelta(minutes=30))


def team_client(w: Any) -> Client:
    c = Client()
    c.force_login(w.owner)
    return c


def test_the_report_shows_the_best_run_with_its_hidden_shapes_timeline_playback_and_signals() -> None:
    w = world()
    judged(w.candidate, "softmax", verdict="wrong_answer", minutes=5, mode="run")
    judged(w.candidate, "softmax", minutes=12, score_us=80.0, report=HIDDEN_REPORT, source=SOFTMAX_OK)
    judged(w.candidate, "softmax", minutes=20, score_us=120.0)
    judged(w.candidate, "vector_add", verdict="rejected", minutes=25, mode="submit").__class__.objects.filter(
        verdict="rejected"
    ).update(message="rule broken (hidden-work): on shape 1M ...")
    for minute, code in ((3, "def solve():\n    pass\n"), (8, "def solve(x):\n    return 1\n")):
        Snapshot.objects.create(
            candidate=w.candidate,
            problem=problems()["softmax"],
            language="triton",
            source=code,
            at=T0 + timedelta(minutes=minute),
        )
    PageEvent.objects.create(
        candidate=w.candidate, problem=problems()["softmax"], kind="paste", chars=900, at=T0 + timedelta(minutes=9)
    )
    PageEvent.objects.create(candidate=w.candidate, kind="away", seconds=75.0, at=T0 + timedelta(minutes=11))
    page = team_client(w).get(f"/orgs/{w.org.slug}/a/{w.assessment.public_id}/c/{w.candidate.pk}/").content.decode()
    assert '<td class="num">80.00 µs</td>' in page, "the best score (fastest), not the latest"
    assert "hidden-1" in page and "m=37 n=2,911" in page, "reviewers see the hidden sizes"
    assert "softmax_row_kernel" in page, "profiler digest"
    assert '<td class="num">720.0 s</td>' in page, "time to first correct: 12 minutes after the start"
    assert page.count('class="tl-dot') == 4
    assert 'data-testid="playback"' in page and "return 1" in page
    assert "minute 9: 900 characters" in page and "1 time" in page
    assert "similar to the project" in page and "triton_ok.py" in page
    assert "hidden-work" in page


def test_candidates_get_different_seeds_and_hidden_shapes_and_their_pages_show_neither(
    monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    fake = FakeBroker.install(monkeypatch)
    org, owner = make_org()
    a = make_assessment(org, owner, slugs=("softmax",))
    first, second = seat(a, start_at=T0), seat(a, start_at=T0)
    for c in (first, second):
        with django_capture_on_commit_callbacks(execute=True):
            actions.submit(
                c,
                problems()["softmax"],
                language="triton",
                source="x = 1",
                mode="submit",
                now=T0 + timedelta(minutes=1),
            )
    jobs = [s.job for s in fake.sent]
    assert [j["version"] for j in jobs] == [2, 2] and all(j["participant_seed"] for j in jobs)
    assert jobs[0]["participant_seed"] != jobs[1]["participant_seed"]
    assert jobs[0]["hidden_benchmarks"] != jobs[1]["hidden_benchmarks"] and jobs[0]["hidden_benchmarks"]
    assert all(s.priority == 0 for s in fake.sent)
    c = Client()
    c.force_login(first.user)
    bodies = [
        c.get(f"/a/{a.public_id}/").content.decode(),
        c.get(f"/a/{a.public_id}/p/softmax/").content.decode(),
        c.get(f"/a/{a.public_id}/clock/").content.decode(),
    ]
    # n is drawn from 700-3000 (4 digits: distinctive); m is too small to look for in a page.
    hidden_n = [shape["sizes"]["n"] for shape in jobs[0]["hidden_benchmarks"]]
    for body in bodies:
        assert str(jobs[0]["participant_seed"]) not in body
        for n in hidden_n:
            assert str(n) not in body and f"{n:,}" not in body
    assert "hidden shape" in bodies[1] and "n=16,384" in bodies[1], "the public shapes are on the page"


def test_the_comparison_sorts_and_gives_percentiles_and_the_csv_carries_the_same() -> None:
    w = world(slugs=("softmax",))
    fast, slow, none = w.candidate, seat(w.assessment), seat(w.assessment)
    judged(fast, "softmax", score_us=50.0, minutes=7)
    judged(slow, "softmax", score_us=200.0, minutes=30)
    judged(none, "softmax", verdict="wrong_answer", minutes=3)
    c = team_client(w)
    page = c.get(f"/orgs/{w.org.slug}/a/{w.assessment.public_id}/?sort=softmax").content.decode()
    order = [page.index(u.user.username + "</a>") for u in (fast, slow, none)]
    assert order == sorted(order), "fastest first"
    assert "p100" in page and "p50" in page
    response = c.get(f"/orgs/{w.org.slug}/a/{w.assessment.public_id}/export.csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    by_name = {r["username"]: r for r in rows}
    assert by_name[fast.user.username]["softmax_score_us"] == "50.0"
    assert by_name[fast.user.username]["softmax_percentile"] == "100.0"
    assert by_name[slow.user.username]["softmax_percentile"] == "50.0"
    assert (
        by_name[none.user.username]["softmax_score_us"] == "" and by_name[none.user.username]["softmax_attempts"] == "1"
    )
    assert by_name[fast.user.username]["softmax_first_correct_s"] == "420.0"
    assert set(rows[0]) >= {"email", "state", "extra_time_pct", "queue_credit_s", "solved"}


def test_a_csv_cell_that_a_spreadsheet_would_run_is_quoted() -> None:
    from gridstride.assessments.report import _cell

    assert _cell("=HYPERLINK(1)") == "'=HYPERLINK(1)" and _cell("ada") == "ada" and _cell(None) == ""


def test_the_api_gives_the_organizations_token_the_same_results() -> None:
    w = world(slugs=("softmax",))
    judged(w.candidate, "softmax", score_us=50.0, minutes=7)
    _, token = issue_token(w.owner, "ats")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    listing = Client().get(f"/api/orgs/{w.org.slug}/assessments", **auth).json()
    assert [x["id"] for x in listing] == [str(w.assessment.public_id)]
    results = Client().get(f"/api/orgs/{w.org.slug}/assessments/{w.assessment.public_id}", **auth).json()
    [mine] = results["candidates"]
    assert mine["problems"][0]["score_us"] == 50.0 and mine["solved"] == 1
    one = (
        Client()
        .get(f"/api/orgs/{w.org.slug}/assessments/{w.assessment.public_id}/candidates/{w.candidate.pk}", **auth)
        .json()
    )
    assert len(one["attempts"]) == 1 and "similar" in one["signals"]
    assert "participant_seed" not in repr(one) and str(w.candidate.participant_seed) not in repr(one)


def test_near_copies_between_candidates_are_a_signal_and_independent_code_is_not() -> None:
    w = world(slugs=("softmax",))
    copier, independent = seat(w.assessment), seat(w.assessment)
    judged(w.candidate, "softmax", source=SOFTMAX_OK.replace("row", "r").replace("cols", "offs"))
    judged(copier, "softmax", source=SOFTMAX_OK.replace("mask", "valid") + "\n# mine\n")
    judged(independent, "softmax", source=(ROOT / "reference_kernels/softmax/expert_cuda.cu").read_text())
    c = team_client(w)
    page = c.get(f"/orgs/{w.org.slug}/a/{w.assessment.public_id}/c/{copier.pk}/").content.decode()
    assert f"candidate {w.candidate.user.username}" in page
    assert f"candidate {independent.user.username}" not in page


def test_the_comparison_page_makes_as_many_queries_for_ten_candidates_as_for_two() -> None:
    w = world(slugs=("softmax", "vector_add"))
    judged(w.candidate, "softmax")
    c = team_client(w)
    url = f"/orgs/{w.org.slug}/a/{w.assessment.public_id}/"
    c.get(url)
    with CaptureQueriesContext(connection) as two:
        seat(w.assessment)
        pass
    with CaptureQueriesContext(connection) as few:
        assert c.get(url).status_code == 200
    for _ in range(8):
        judged(seat(w.assessment), "softmax")
    with CaptureQueriesContext(connection) as many:
        assert c.get(url).status_code == 200
    assert len(many) == len(few), [q["sql"][:120] for q in many.captured_queries]
    assert len(few) <= 20
    del two


def test_the_teams_instructions_are_markdown_without_scripts() -> None:
    org, owner = make_org()
    a = make_assessment(org, owner, instructions="Read **this**. <script>alert(1)</script><img src=x onerror=alert(2)>")
    candidate = seat(a, start_at=None)
    c = Client()
    c.force_login(candidate.user)
    page = c.get(f"/a/{a.public_id}/").content.decode()
    assert "<strong>this</strong>" in page
    assert "<script>alert" not in page and "onerror" not in page

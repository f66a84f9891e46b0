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
from contest_fixtures import END, START, Clock, clock_fixture, gpus_fixture, make_contest  # noqa: F401 (fixtures)
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client
from gridstride.api.actions import issue_token
from gridstride.assessments import actions as assessments
from gridstride.catalog.actions import sync_problems
from gridstride.catalog.models import Ladder, LadderGiveUp, Problem
from gridstride.contests import actions as contests
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


# --- closed while a contest or the viewer's assessment uses the problem --------------------------


def contest_closed(until: str = "2026-06-01 15:00") -> str:
    return f"The optimization ladder is closed while a contest uses this problem, until {until} UTC."


CONTEST_CLOSED = contest_closed()  # the fixture contest's end


def closed_everywhere(c: Client, headers: dict[str, str], message: str) -> None:
    """The page, the fragment and the API say why and send nothing of the ladder."""
    html = c.get(f"/problems/{SLUG}/").content.decode()
    assert leaked(html) == [] and 'data-testid="ladder-closed"' in html and message in html
    assert 'data-testid="ladder"' not in html and 'data-testid="give-up"' not in html
    fragment = c.get(f"/problems/{SLUG}/ladder/")
    assert fragment.status_code == 403 and fragment.content.decode() == message
    api = Client().get(f"/api/problems/{SLUG}/ladder", **headers)
    assert api.status_code == 403 and api.json() == {"detail": message}


def give_up_refused(c: Client, headers: dict[str, str], message: str) -> None:
    """Both give-up routes answer with the same message and record nothing."""
    before = LadderGiveUp.objects.count()
    page = c.post(f"/problems/{SLUG}/ladder/give-up/", {"confirm": "yes"}, follow=True)
    assert message in page.content.decode() and leaked(page.content.decode()) == []
    api = Client().post(
        f"/api/problems/{SLUG}/ladder/give-up", '{"confirm": true}', content_type="application/json", **headers
    )
    assert api.status_code == 403 and api.json() == {"detail": message}
    assert LadderGiveUp.objects.count() == before


def is_open(c: Client, headers: dict[str, str]) -> bool:
    html = c.get(f"/problems/{SLUG}/").content.decode()
    fragment = c.get(f"/problems/{SLUG}/ladder/").status_code
    api = Client().get(f"/api/problems/{SLUG}/ladder", **headers).status_code
    assert ('data-testid="ladder"' in html) == (fragment == 200) == (api == 200)
    return fragment == 200


@pytest.mark.usefixtures("gpus")
def test_a_running_contest_closes_the_ladder_site_wide_until_its_end(root: Path, clock: Clock) -> None:
    creator, named, staff = make_user(), make_user(), make_user(is_staff=True)
    contest = make_contest(creator, [sgemm()], freeze_minutes=30, organizers=[named])
    solver, quitter, participant = make_user(), make_user(), make_user()
    accepted(solver)
    LadderGiveUp.objects.create(user=quitter, problem=sgemm())
    contests.register(contest, participant)
    users = {"solver": solver, "quitter": quitter, "participant": participant}
    c = {who: logged_in(u) for who, u in users.items()}
    h = {who: bearer(u) for who, u in users.items()}
    # Before the start: as before (open to those who opened it).
    clock.set(START - timedelta(microseconds=1))
    assert is_open(c["solver"], h["solver"]) and is_open(c["quitter"], h["quitter"])
    assert not is_open(c["participant"], h["participant"])
    # From the start to just before the end, the freeze included: closed to everyone, the solver
    # and whoever gave up included, anonymous visitors too; giving up is refused.
    for at in (START, contest.freeze_at, END - timedelta(microseconds=1)):
        clock.set(at)
        for who in users:
            closed_everywhere(c[who], h[who], CONTEST_CLOSED)
        give_up_refused(c["participant"], h["participant"], CONTEST_CLOSED)
        anonymous = Client().get(f"/problems/{SLUG}/").content.decode()
        assert CONTEST_CLOSED in anonymous and leaked(anonymous) == []
        assert Client().get(f"/problems/{SLUG}/ladder/").status_code == 403
    # Solving it during the contest (any accepted run) does not open it before the end either.
    accepted(participant)
    closed_everywhere(c["participant"], h["participant"], CONTEST_CLOSED)
    # The contest's organizers (its creator, the named ones, staff) are not shut out; their own
    # give-up is taken as usual.
    for organizer in (creator, named, staff):
        oc, oh = logged_in(organizer), bearer(organizer)
        assert not is_open(oc, oh)
        assert 'data-testid="ladder-locked"' in oc.get(f"/problems/{SLUG}/").content.decode()
        assert oc.post(f"/problems/{SLUG}/ladder/give-up/", {"confirm": "yes"}).status_code == 302
        assert is_open(oc, oh)
    # At the end it opens again for those who had opened it, and may be opened then.
    clock.set(END)
    for who in users:
        assert is_open(c[who], h[who]), who
    latecomer = make_user()
    assert logged_in(latecomer).post(f"/problems/{SLUG}/ladder/give-up/", {"confirm": "yes"}).status_code == 302
    assert is_open(logged_in(latecomer), bearer(latecomer))


@pytest.mark.usefixtures("gpus")
def test_only_a_running_contest_that_includes_the_problem_closes_it(root: Path, clock: Clock) -> None:
    user = make_user()
    accepted(user)
    other = without_ladder(root)
    later = make_contest(make_user(), [sgemm()], slug="later", starts_at=END, ends_at=END + timedelta(hours=1))
    make_contest(make_user(), [Problem.objects.get(slug=other)], slug="elsewhere")
    c, h = logged_in(user), bearer(user)
    clock.set(START + timedelta(minutes=5))
    assert is_open(c, h)  # "elsewhere" runs, but on another problem; "later" has not started
    # Two running contests: the latest end is the one given; the organizer of one is still shut
    # out by the other.
    clock.set(END + timedelta(minutes=1))
    make_contest(make_user(), [sgemm()], slug="overlap", starts_at=END, ends_at=END + timedelta(hours=2))
    closed_everywhere(c, h, contest_closed("2026-06-01 17:00"))
    organizer = logged_in(later.created_by)
    assert organizer.get(f"/problems/{SLUG}/ladder/").content.decode() == contest_closed("2026-06-01 17:00")


def test_an_assessment_hides_the_ladder_from_its_candidate_only_during_their_session(root: Path, clock: Clock) -> None:
    org, owner = make_org()
    assessment = make_assessment(org, owner, slugs=(SLUG,), closes_at=T0 + timedelta(days=14))
    clock.set(T0 - timedelta(minutes=20))
    candidate = seat(assessment, start_at=None)  # accepted the invitation, not started yet
    user, other = candidate.user, make_user()
    LadderGiveUp.objects.create(user=user, problem=sgemm())
    accepted(other)
    c, h = logged_in(user), bearer(user)
    waiting = "The optimization ladder is closed while your assessment uses this problem, until your session ends."
    closed_everywhere(c, h, waiting)
    # Started: closed until their deadline (60 minutes), giving up refused alike.
    candidate = assessments.start(candidate, T0)
    clock.set(T0 + timedelta(minutes=30))
    running = "The optimization ladder is closed while your assessment uses this problem, until 2026-12-01 13:00 UTC."
    closed_everywhere(c, h, running)
    give_up_refused(c, h, running)
    # Not site-wide: anyone else (the team's owner included) sees it as usual.
    assert is_open(logged_in(other), bearer(other))
    assert 'data-testid="ladder-locked"' in logged_in(owner).get(f"/problems/{SLUG}/").content.decode()
    # At the deadline the session is over: open again.
    clock.set(T0 + timedelta(minutes=60))
    assert is_open(c, h)


def test_a_finished_or_never_started_seat_no_longer_hides_it(root: Path, clock: Clock) -> None:
    org, owner = make_org()
    assessment = make_assessment(org, owner, slugs=(SLUG,), closes_at=T0 + timedelta(hours=2))
    clock.set(T0 + timedelta(minutes=10))
    done, idle = seat(assessment), seat(assessment, start_at=None)
    for candidate in (done, idle):
        LadderGiveUp.objects.create(user=candidate.user, problem=sgemm())
    assert not is_open(logged_in(done.user), bearer(done.user))
    assessments.finish(done, "early", T0 + timedelta(minutes=10))
    assert is_open(logged_in(done.user), bearer(done.user))
    # A seat never started stays live until the last start, then no longer closes anything.
    clock.set(T0 + timedelta(hours=2) - timedelta(microseconds=1))
    assert not is_open(logged_in(idle.user), bearer(idle.user))
    clock.set(T0 + timedelta(hours=2))
    assert is_open(logged_in(idle.user), bearer(idle.user))

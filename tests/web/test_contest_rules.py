"""Contest rules with the clock frozen: window edges, registration and teams, hourly limits."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from gridstride.catalog.models import Problem
from gridstride.contests import actions
from gridstride.contests.models import Entry, Member
from gridstride.contests.windows import Phase, phase
from gridstride.submissions.models import PRIORITY
from gridstride.submissions.testing import FakeBroker

from tests.web.contest_fixtures import (  # noqa: F401 (fixtures)
    END,
    SOURCE,
    START,
    Clock,
    clock_fixture,
    fake_broker_fixture,
    gpus_fixture,
    make_contest,
    vector_add_fixture,
)
from tests.web.site_fixtures import log_in, make_user

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("gpus")]


def send(contest: Any, user: Any, problem: Problem, mode: str = "submit") -> Any:
    return actions.submit(
        contest, user, problem=problem, language="pytorch", source=SOURCE, mode=mode, gpu_model="h200"
    )


def test_the_window_is_half_open_and_the_freeze_starts_its_minutes_before_the_end(
    clock: Clock, vector_add: Problem
) -> None:
    contest = make_contest(make_user(), [vector_add], freeze_minutes=30)
    assert contest.freeze_at == END - timedelta(minutes=30)
    edges = [
        (START - timedelta(microseconds=1), Phase.BEFORE),
        (START, Phase.RUNNING),
        (END - timedelta(minutes=30, microseconds=1), Phase.RUNNING),
        (END - timedelta(minutes=30), Phase.FROZEN),
        (END - timedelta(microseconds=1), Phase.FROZEN),
        (END, Phase.ENDED),
    ]
    assert [phase(contest, t) for t, _ in edges] == [p for _, p in edges]


def test_a_submission_is_taken_from_the_start_to_just_before_the_end_and_refused_at_the_end(
    clock: Clock, fake_broker: FakeBroker, vector_add: Problem
) -> None:
    contest = make_contest(make_user(), [vector_add])
    alice = make_user()
    actions.register(contest, alice)
    clock.set(START - timedelta(microseconds=1))
    with pytest.raises(actions.ContestError, match="This opens at 2026-06-01 12:00 UTC"):
        send(contest, alice, vector_add)
    clock.set(START)
    first = send(contest, alice, vector_add)
    clock.set(END - timedelta(microseconds=1))
    last = send(contest, alice, vector_add)
    clock.set(END)
    with pytest.raises(
        actions.ContestError, match=r"This closed at 2026-06-01 15:00 UTC\. The problems are open for practice"
    ):
        send(contest, alice, vector_add)
    assert (first.context, first.context_key, first.priority) == ("contest", contest.slug, PRIORITY["contest"])
    assert Entry.objects.filter(contest=contest, kind="live").count() == 2
    assert last.created_at == END - timedelta(microseconds=1)


def test_only_registered_participants_submit_and_only_the_contests_problems_gpus_and_languages(
    clock: Clock, fake_broker: FakeBroker, vector_add: Problem
) -> None:
    softmax = Problem.objects.get(slug="softmax")
    contest = make_contest(make_user(), [vector_add], languages=["triton", "pytorch"])
    alice, bob = make_user(), make_user()
    actions.register(contest, alice)
    clock.set(START + timedelta(minutes=1))
    with pytest.raises(actions.ContestError, match="Register"):
        send(contest, bob, vector_add)
    with pytest.raises(actions.ContestError, match="not a problem of this contest"):
        send(contest, alice, softmax)
    with pytest.raises(actions.ContestError, match="judges on h200"):
        actions.submit(
            contest, alice, problem=vector_add, language="pytorch", source=SOURCE, mode="submit", gpu_model="cpu"
        )
    with pytest.raises(actions.ContestError, match="takes Triton, PyTorch"):
        actions.submit(
            contest, alice, problem=vector_add, language="cuda", source=SOURCE, mode="submit", gpu_model="h200"
        )
    assert fake_broker.sent == []


def test_the_hourly_limit_counts_a_teams_submits_over_a_rolling_hour_and_not_its_runs(
    clock: Clock, fake_broker: FakeBroker, vector_add: Problem
) -> None:
    contest = make_contest(make_user(), [vector_add], hourly_limit=2, team_size=2)
    captain, mate = make_user(), make_user()
    team = actions.register(contest, captain, team_name="warp-drive")
    actions.join_team(contest, mate, team.join_code)
    clock.set(START + timedelta(minutes=10))
    send(contest, captain, vector_add)
    clock.set(START + timedelta(minutes=40))
    send(contest, mate, vector_add)  # the teammate's submit counts for the team
    send(contest, mate, vector_add, mode="run")  # runs are not limited
    with pytest.raises(actions.ContestError, match=r"Your team has sent 2 submits.*next is possible in 30 min"):
        send(contest, captain, vector_add)
    clock.set(START + timedelta(minutes=70))  # exactly an hour after the first: it has left the window
    send(contest, captain, vector_add)
    with pytest.raises(actions.ContestError, match="limit is 2 an hour"):
        send(contest, mate, vector_add)


def test_teams_have_one_captain_a_size_limit_and_each_person_is_in_one_team(clock: Clock, vector_add: Problem) -> None:
    contest = make_contest(make_user(), [vector_add], team_size=2)
    a, b, c = make_user(), make_user(), make_user()
    team = actions.register(contest, a, team_name="tensor-cores")
    assert team.captain == a and team.join_code
    with pytest.raises(actions.ContestError, match="team name"):
        actions.register(contest, b, team_name="x")
    with pytest.raises(actions.ContestError, match="No team"):
        actions.join_team(contest, b, "wrong-code")
    actions.join_team(contest, b, team.join_code)
    with pytest.raises(actions.ContestError, match="full"):
        actions.join_team(contest, c, team.join_code)
    with pytest.raises(actions.ContestError, match="registered for this contest already"):
        actions.register(contest, b, team_name="another-team")
    with pytest.raises(actions.ContestError, match="is taken"):
        actions.register(contest, c, team_name="tensor-cores")
    assert sorted(Member.objects.filter(participant=team).values_list("user__username", flat=True)) == sorted(
        [a.username, b.username]
    )


def test_registration_by_invite_code_refuses_a_wrong_code_and_organizers_cannot_take_part(
    clock: Clock, vector_add: Problem
) -> None:
    creator, helper = make_user(), make_user()
    contest = make_contest(creator, [vector_add], registration="invite", invite_code="gpu-2026!", organizers=[helper])
    alice = make_user()
    with pytest.raises(actions.ContestError, match="invite code"):
        actions.register(contest, alice, invite_code="guess")
    actions.register(contest, alice, invite_code="gpu-2026!")
    for organizer in (creator, helper):
        with pytest.raises(actions.ContestError, match="Organizers"):
            actions.register(contest, organizer, invite_code="gpu-2026!")
    clock.set(END)
    with pytest.raises(actions.ContestError, match="virtual"):
        actions.register(contest, make_user(), invite_code="gpu-2026!")


def test_a_contest_is_refused_with_a_clear_message_when_its_settings_do_not_fit(
    clock: Clock, vector_add: Problem
) -> None:
    creator = make_user()
    cases = [
        ({"ends_at": START}, "end after it starts"),
        ({"gpu_models": ["a100"]}, "Choose GPU models"),
        ({"freeze_minutes": 181}, "freeze must fit"),
        ({"registration": "invite", "invite_code": "abc"}, "at least 6"),
        ({"scoring_format": "fastest-typist"}, "Unknown scoring"),
        ({"slug": "Bad Slug"}, "short name"),
    ]
    for kw, message in cases:
        with pytest.raises(actions.ContestError, match=message):
            make_contest(creator, [vector_add], **kw)
    with pytest.raises(actions.ContestError, match="at least one problem"):
        make_contest(creator, [])


def test_organizers_edit_a_running_contest_within_limits_and_others_cannot(
    clock: Clock, fake_broker: FakeBroker, vector_add: Problem
) -> None:
    from django.test import Client
    from django.urls import reverse

    creator, alice = make_user(), make_user()
    contest = make_contest(creator, [vector_add], freeze_minutes=30)
    actions.register(contest, alice)
    clock.set(START + timedelta(hours=1))
    contest = actions.update_contest(contest, creator, ends_at=END + timedelta(hours=1), hourly_limit=5)
    assert (contest.ends_at, contest.hourly_limit, contest.freeze_at) == (
        END + timedelta(hours=1),
        5,
        END + timedelta(minutes=30),
    )
    with pytest.raises(actions.ContestError, match="cannot change: gpu_models, scoring"):
        actions.update_contest(contest, creator, gpu_models=["cpu"], scoring="solved_penalty")
    with pytest.raises(actions.ContestError, match="in the future"):
        actions.update_contest(contest, creator, ends_at=START + timedelta(minutes=30))
    with pytest.raises(actions.ContestError, match="Only the contest's organizers"):
        actions.update_contest(contest, alice, title="Mine now")
    url = reverse("contests:edit", args=[contest.slug])
    c = Client()
    log_in(c, alice.username)
    assert c.get(url).status_code == 404
    log_in(c, creator.username)
    form = {
        "title": "Spring kernels (extended)",
        "rules": "Be fair.",
        "ends_at": (END + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M"),
        "freeze_minutes": 30,
        "hourly_limit": 5,
        "rerun_tolerance_pct": 3,
        "organizers": alice.username,
    }
    assert "take part in the contest and cannot organize it" in c.post(url, form).content.decode()
    helper = make_user()
    assert c.post(url, {**form, "organizers": helper.username}).status_code == 302
    contest.refresh_from_db()
    assert contest.title == "Spring kernels (extended)" and contest.ends_at == END + timedelta(hours=2)
    assert list(contest.organizers.all()) == [helper]
    clock.set(END + timedelta(hours=2))
    with pytest.raises(actions.ContestError, match="has ended"):
        actions.update_contest(contest, creator, title="Too late")

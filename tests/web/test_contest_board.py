"""The live scoreboard with the clock frozen: what participants, organizers and anonymous visitors
see before, during and after the freeze, and its query count."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from gridstride.catalog.models import Problem
from gridstride.contests import actions
from gridstride.leaderboards.scoring import TIE_MIN_SAMPLES
from gridstride.submissions.testing import FakeBroker

from tests.web.contest_fixtures import (  # noqa: F401 (fixtures)
    END,
    SOURCE,
    START,
    Clock,
    clock_fixture,
    fake_broker_fixture,
    gpus_fixture,
    judge,
    make_contest,
    shapes,
    vector_add_fixture,
)
from tests.web.site_fixtures import log_in, make_user

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("gpus")]


def send(contest: Any, user: Any, problem: Problem, median_us: float) -> Any:
    s = actions.submit(
        contest, user, problem=problem, language="pytorch", source=SOURCE, mode="submit", gpu_model="h200"
    )
    return judge(s, median_us=median_us)


def client_for(user: Any | None) -> Client:
    c = Client()
    if user is not None:
        log_in(c, user.username)
    return c


def board_html(user: Any | None, contest: Any) -> str:
    response = client_for(user).get(reverse("contests:board", args=[contest.slug]))
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def frozen_contest(clock: Clock, fake_broker: FakeBroker, vector_add: Problem) -> dict[str, Any]:
    organizer, alice, bob = make_user("org"), make_user("alice"), make_user("bob")
    contest = make_contest(organizer, [vector_add], freeze_minutes=30)
    actions.register(contest, alice)
    actions.register(contest, bob)
    clock.set(START + timedelta(minutes=10))
    send(contest, alice, vector_add, 100.0)
    clock.set(START + timedelta(minutes=20))
    send(contest, bob, vector_add, 200.0)
    clock.set(END - timedelta(minutes=20))  # frozen
    send(contest, bob, vector_add, 50.0)  # after the freeze: only bob and organizers see it
    clock.set(END - timedelta(minutes=10))
    return {"contest": contest, "organizer": organizer, "alice": alice, "bob": bob}


def rows(html: str) -> list[str]:
    body = html.split('data-testid="contest-board"', 1)[1].split("</table>", 1)[0]
    return [" ".join(r.split()) for r in body.split("<tr")[2:]]


def test_during_the_freeze_anonymous_visitors_and_other_participants_see_the_board_as_at_the_freeze(
    frozen_contest: dict[str, Any],
) -> None:
    contest = frozen_contest["contest"]
    for viewer in (None, frozen_contest["alice"]):
        html = board_html(viewer, contest)
        assert 'data-testid="frozen-notice"' in html
        r = rows(html)
        assert "alice" in r[0] and "141.4 µs" in r[0]  # geomean of 100 and 200 µs
        assert "bob" in r[1] and "282.8 µs" in r[1]
        assert "70.71 µs" not in html  # bob's frozen-period result


def test_during_the_freeze_a_participant_sees_their_own_new_result_marked_as_only_theirs(
    frozen_contest: dict[str, Any],
) -> None:
    html = board_html(frozen_contest["bob"], frozen_contest["contest"])
    assert 'data-testid="frozen-notice"' in html
    r = rows(html)
    assert "bob" in r[0] and "70.71 µs" in r[0] and "others do not see them yet" in r[0] and 'class="mine"' in r[0]
    assert "alice" in r[1] and "141.4 µs" in r[1]


def test_organizers_see_the_live_board_through_the_freeze(frozen_contest: dict[str, Any]) -> None:
    html = board_html(frozen_contest["organizer"], frozen_contest["contest"])
    assert 'data-testid="frozen-notice"' not in html and 'data-testid="organizer-unfrozen"' in html
    r = rows(html)
    assert "bob" in r[0] and "70.71 µs" in r[0] and "others do not see" not in r[0]


def test_the_board_unfreezes_for_everyone_at_the_end(frozen_contest: dict[str, Any], clock: Clock) -> None:
    clock.set(END)
    html = board_html(None, frozen_contest["contest"])
    assert 'data-testid="frozen-notice"' not in html
    r = rows(html)
    assert "bob" in r[0] and "70.71 µs" in r[0]


def test_results_judged_after_the_end_of_submissions_sent_before_it_count(
    clock: Clock, fake_broker: FakeBroker, vector_add: Problem
) -> None:
    contest = make_contest(make_user(), [vector_add])
    alice = make_user("alice")
    actions.register(contest, alice)
    clock.set(END - timedelta(seconds=1))
    s = actions.submit(
        contest, alice, problem=vector_add, language="pytorch", source=SOURCE, mode="submit", gpu_model="h200"
    )
    clock.set(END + timedelta(minutes=5))
    judge(s, median_us=10.0)
    assert "14.14 µs" in rows(board_html(None, contest))[0]


def test_the_board_reads_a_fixed_number_of_queries_whatever_the_number_of_participants(
    clock: Clock, fake_broker: FakeBroker, vector_add: Problem, django_assert_max_num_queries: Any
) -> None:
    contest = make_contest(make_user(), [vector_add])
    clock.set(START + timedelta(minutes=1))
    viewer = None
    for i in range(12):
        user = make_user(f"p{i}")
        actions.register(contest, user)
        send(contest, user, vector_add, 100.0 + i)
        viewer = user
    c = client_for(viewer)
    url = reverse("contests:board", args=[contest.slug])
    with django_assert_max_num_queries(10):
        assert c.get(url).status_code == 200


def test_contest_runs_stay_off_the_practice_leaderboards(
    clock: Clock, fake_broker: FakeBroker, vector_add: Problem
) -> None:
    from gridstride.leaderboards.models import BestRun
    from gridstride.leaderboards.queries import build_board

    contest = make_contest(make_user(), [vector_add], freeze_minutes=60)
    alice = make_user("alice")
    actions.register(contest, alice)
    clock.set(END - timedelta(minutes=30))  # frozen: the practice board must not leak it either
    send(contest, alice, vector_add, 10.0)
    assert not BestRun.objects.filter(problem=vector_add).exists()
    assert build_board(vector_add, "h200").entries == []


def test_a_participant_sees_the_queue_position_of_their_own_waiting_jobs(
    clock: Clock, fake_broker: FakeBroker, vector_add: Problem
) -> None:
    contest = make_contest(make_user(), [vector_add], team_size=2)
    captain, mate, other = make_user("cap"), make_user("mate"), make_user("other")
    team = actions.register(contest, captain, team_name="<script>alert(1)</script>")
    actions.join_team(contest, mate, team.join_code)
    actions.register(contest, other, team_name="others")
    clock.set(START + timedelta(minutes=1))
    for user in (other, other, captain):  # two of another team's jobs queue ahead of ours
        actions.submit(
            contest, user, problem=vector_add, language="pytorch", source=SOURCE, mode="submit", gpu_model="h200"
        )
    html = client_for(mate).get(reverse("contests:detail", args=[contest.slug])).content.decode()
    jobs = html.split('data-testid="my-jobs"')[1].split("</table>")[0]
    assert jobs.count("<tr>") == 2 and '<td class="num">3</td>' in jobs  # header row + our one job, third in line
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert (
        'data-testid="my-jobs"'
        not in client_for(make_user("visitor")).get(reverse("contests:detail", args=[contest.slug])).content.decode()
    )


@pytest.mark.parametrize(("samples", "tied"), [(3, False), (TIE_MIN_SAMPLES, True)])
def test_overlapping_results_tie_only_when_timed_often_enough_and_the_page_says_why(
    clock: Clock, fake_broker: FakeBroker, vector_add: Problem, samples: int, tied: bool
) -> None:
    contest = make_contest(make_user(), [vector_add])
    clock.set(START + timedelta(minutes=1))
    for name, median in (("alice", 100.0), ("bob", 120.0)):  # +-30 %: the intervals overlap by far
        user = make_user(name)
        actions.register(contest, user)
        s = actions.submit(
            contest, user, problem=vector_add, language="pytorch", source=SOURCE, mode="submit", gpu_model="h200"
        )
        judge(s, timings=shapes(median, ci_pct=30.0, samples=samples))
    html = board_html(None, contest)
    alice, bob = rows(html)
    tie = '<span class="tie" title="tied: the confidence intervals overlap">=</span>'
    if tied:
        assert f">1{tie}</td>" in alice and f">1{tie}</td>" in bob
    else:
        assert tie not in alice + bob and '<td class="num">2</td>' in bob
        assert alice.count('<td class="num small muted">\u2014</td>') == 1  # no interval, as on practice boards
    # The rule in the practice boards' words.
    note = html[html.index('data-testid="tie-rule"') :][:600]
    assert "share a rank" in note and f"at least {TIE_MIN_SAMPLES} times" in note and "ties with nobody" in note
    assert ("rows marked" in note) is tied

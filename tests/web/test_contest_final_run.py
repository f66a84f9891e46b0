"""The final re-run, decided from recorded reports: what is final, what goes to review and why,
that it is idempotent, and who sees and decides the review."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from gridstride.catalog.models import Problem
from gridstride.contests import actions
from gridstride.contests.models import FinalRun, Participant
from gridstride.submissions import actions as pipeline
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
    judge,
    make_contest,
    shapes,
    vector_add_fixture,
)
from tests.web.site_fixtures import log_in, make_user

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("gpus")]


def send(contest: Any, user: Any, problem: Problem, median_us: float, source: str = SOURCE) -> Any:
    s = actions.submit(
        contest, user, problem=problem, language="pytorch", source=source, mode="submit", gpu_model="h200"
    )
    return judge(s, median_us=median_us)


def client_for(user: Any | None) -> Client:
    c = Client()
    if user is not None:
        log_in(c, user.username)
    return c


@pytest.fixture
def ended(clock: Clock, fake_broker: FakeBroker, vector_add: Problem) -> dict[str, Any]:
    organizer, alice, bob, carol = make_user("org"), make_user("alice"), make_user("bob"), make_user("carol")
    contest = make_contest(organizer, [vector_add])
    for u in (alice, bob, carol):
        actions.register(contest, u)
    clock.set(START + timedelta(minutes=5))
    send(contest, alice, vector_add, 120.0)
    best_alice = send(contest, alice, vector_add, 100.0)
    best_bob = send(contest, bob, vector_add, 90.0, source=SOURCE + "# bob\n")
    best_carol = send(contest, carol, vector_add, 80.0, source=SOURCE + "# carol\n")
    clock.set(END + timedelta(minutes=1))
    return {
        "contest": contest,
        "organizer": organizer,
        "users": {"alice": alice, "bob": bob, "carol": carol},
        "best": {"alice": best_alice, "bob": best_bob, "carol": best_carol},
        "broker": fake_broker,
    }


def final_run_of(ended: dict[str, Any], name: str) -> FinalRun:
    return FinalRun.objects.select_related("rerun", "contest").get(participant__name=name)


def test_the_final_run_starts_only_after_the_end(clock: Clock, vector_add: Problem) -> None:
    contest = make_contest(make_user(), [vector_add])
    clock.set(END - timedelta(microseconds=1))
    with pytest.raises(actions.ContestError, match="after the contest ends"):
        actions.start_final_run(contest)


def test_each_participants_best_is_rejudged_once_as_a_new_low_priority_submission(ended: dict[str, Any]) -> None:
    contest, broker = ended["contest"], ended["broker"]
    sent_before = len(broker.sent)
    progress = actions.start_final_run(contest)
    assert (progress.created, progress.judging, progress.done) == (3, 3, False)
    for name, best in ended["best"].items():
        fr = final_run_of(ended, name)
        assert fr.live_id == best.pk
        assert fr.rerun.source == best.source and fr.rerun.public_id != best.public_id
        assert (fr.rerun.priority, fr.rerun.mode, fr.rerun.context) == (PRIORITY["rejudge"], "submit", "contest")
    jobs = broker.sent[sent_before:]
    assert [j.priority for j in jobs] == [PRIORITY["rejudge"]] * 3
    # A new public seed: the judge mixes it with its secret into fresh inputs.
    assert len({j.job["seed"] for j in jobs} | {b.public_id.int & 0x7FFFFFFF for b in ended["best"].values()}) == 6
    # Again (the periodic task, an organizer's button): nothing new is sent.
    again = actions.start_final_run(contest)
    assert (again.created, again.judging) == (0, 3)
    assert len(broker.sent) == sent_before + 3
    assert FinalRun.objects.count() == 3


def test_a_rerun_that_passes_and_agrees_is_final_and_one_that_fails_or_disagrees_goes_to_review(
    ended: dict[str, Any],
) -> None:
    contest = ended["contest"]
    actions.start_final_run(contest)
    judge(final_run_of(ended, "alice").rerun, median_us=100.3)  # within the CIs and tolerance
    judge(final_run_of(ended, "bob").rerun, "wrong_answer", message="case hidden-1: 3 of 500000 elements differ")
    judge(final_run_of(ended, "carol").rerun, median_us=80.0 * 1.5)  # live time not reproduced
    alice, bob, carol = (final_run_of(ended, n) for n in ("alice", "bob", "carol"))
    assert alice.state == "final" and alice.signals["reasons"] == [] and alice.signals["timing"]["agrees"]
    assert bob.state == "review"
    assert bob.signals["reasons"] == [
        "the re-run was not accepted (wrong answer: case hidden-1: 3 of 500000 elements differ)"
    ]
    assert bob.signals["told"] == ["the re-run was not accepted (wrong answer)"]  # no hidden sizes for them
    assert carol.state == "review" and carol.signals["timing"]["agrees"] is False
    assert carol.signals["told"] == ["the re-run's time does not agree with the live one"]
    assert carol.signals["reasons"][0].startswith("timing disagreement: re-run 169.7 µs against live 113.1 µs (1.50x)")
    contest.refresh_from_db()
    assert contest.final_state == "done"


def test_the_first_recorded_judgement_decides_and_a_later_rejudge_of_the_rerun_changes_nothing(
    ended: dict[str, Any],
) -> None:
    actions.start_final_run(ended["contest"])
    fr = final_run_of(ended, "alice")
    judge(fr.rerun, median_us=100.0)
    assert final_run_of(ended, "alice").state == "final"
    assert pipeline.rejudge(fr.rerun)
    judge(fr.rerun, "wrong_answer")
    fr = final_run_of(ended, "alice")
    assert fr.state == "final" and fr.signals["verdict"] == "accepted"
    assert not actions.decide_final_run(fr)


def test_a_rerun_judged_while_nobody_listened_is_decided_by_the_next_sweep(ended: dict[str, Any]) -> None:
    actions.start_final_run(ended["contest"])
    fr = final_run_of(ended, "alice")
    from gridstride.submissions.signals import submission_judged

    # The web worker died between recording the report and announcing it: no one heard.
    receivers = submission_judged.receivers
    submission_judged.receivers = []
    try:
        judge(fr.rerun, median_us=100.0)
    finally:
        submission_judged.receivers = receivers
        submission_judged.sender_receivers_cache.clear()
    assert final_run_of(ended, "alice").state == "judging"
    progress = actions.start_final_run(ended["contest"])
    assert final_run_of(ended, "alice").state == "final"
    assert progress.created == 0


@pytest.fixture
def reviewed(ended: dict[str, Any]) -> dict[str, Any]:
    actions.start_final_run(ended["contest"])
    judge(final_run_of(ended, "alice").rerun, median_us=100.0)
    judge(final_run_of(ended, "bob").rerun, "wrong_answer", message="case hidden-1 differs")
    judge(final_run_of(ended, "carol").rerun, median_us=80.0)
    return ended


def test_only_organizers_see_the_review_queue(reviewed: dict[str, Any]) -> None:
    contest = reviewed["contest"]
    url = reverse("contests:review", args=[contest.slug])
    assert client_for(None).get(url).status_code == 302  # to the login page
    for name in ("alice", "bob"):
        assert client_for(reviewed["users"][name]).get(url).status_code == 404
    assert client_for(make_user("stranger")).get(url).status_code == 404
    helper = make_user("helper")
    contest.organizers.add(helper)
    for organizer in (reviewed["organizer"], helper):
        html = client_for(organizer).get(url).content.decode()
        pending = html.split("Under review (1)")[1].split("Decided and final")[0]
        assert 'data-participant="bob"' in pending and "case hidden-1 differs" in pending
    bob_run = final_run_of(reviewed, "bob")
    decide = reverse("contests:decide", args=[contest.slug, bob_run.pk])
    response = client_for(reviewed["users"]["bob"]).post(decide, {"decision": "uphold", "reason": ""})
    assert response.status_code == 404 and final_run_of(reviewed, "bob").state == "review"


def test_an_invalidated_result_keeps_its_evidence_shows_its_reason_and_takes_one_answer(
    reviewed: dict[str, Any],
) -> None:
    contest, organizer, bob = reviewed["contest"], reviewed["organizer"], reviewed["users"]["bob"]
    fr = final_run_of(reviewed, "bob")
    with pytest.raises(actions.ContestError, match="Say why"):
        actions.decide_review(fr, organizer, invalidate=True, reason=" ")
    with pytest.raises(actions.ContestError, match="Only the contest's organizers"):
        actions.decide_review(fr, bob, invalidate=True, reason="mine")
    client_for(organizer).post(
        reverse("contests:decide", args=[contest.slug, fr.pk]),
        {"decision": "invalidate", "reason": "Wrong on the hidden shape: special-cases the public sizes."},
    )
    fr = final_run_of(reviewed, "bob")
    assert fr.state == "invalidated" and fr.decided_by == organizer
    assert fr.signals["verdict"] == "wrong_answer" and fr.live.source and fr.rerun.report  # evidence kept
    mine = reverse("contests:mine", args=[contest.slug])
    page = client_for(bob).get(mine).content.decode()
    assert "special-cases the public sizes" in page and 'name="answer"' in page
    client_for(bob).post(mine, {"final_run": fr.pk, "answer": "It was a typo, not a trick."})
    with pytest.raises(actions.ContestError, match="once"):
        actions.answer_review(fr, bob, "Second thoughts.")
    with pytest.raises(actions.ContestError, match="Only the participant"):
        actions.answer_review(fr, reviewed["users"]["alice"], "Not mine to answer.")
    assert final_run_of(reviewed, "bob").answer == "It was a typo, not a trick."
    assert (
        "It was a typo" in client_for(organizer).get(reverse("contests:review", args=[contest.slug])).content.decode()
    )


def test_the_final_results_list_confirmed_results_only_and_export_as_csv_and_json(reviewed: dict[str, Any]) -> None:
    contest, organizer = reviewed["contest"], reviewed["organizer"]
    actions.decide_review(final_run_of(reviewed, "bob"), organizer, invalidate=True, reason="hidden shape wrong")
    html = client_for(None).get(reverse("contests:results", args=[contest.slug])).content.decode()
    table = html.split('data-testid="final-results"')[1].split("</table>")[0]
    assert table.index("carol") < table.index("alice") and "bob" not in table
    assert "1 invalidated" in html
    data = client_for(None).get(reverse("contests:results_json", args=[contest.slug])).json()
    assert [(r["participant"], r["rank"], r["solved"]) for r in data["results"]] == [("carol", 1, 1), ("alice", 2, 1)]
    assert data["final"] is True
    csv = client_for(None).get(reverse("contests:results_csv", args=[contest.slug])).content.decode().splitlines()
    assert csv[0] == "gpu_model,rank,tied,participant,solved,score,score_low,score_high,A"
    assert csv[1].startswith("h200,1,,carol,1,113.13") and csv[2].startswith("h200,2,,alice,1,141.42")


def test_a_virtual_participant_takes_the_past_contest_in_their_own_window_and_is_placed_among_the_finals(
    reviewed: dict[str, Any], clock: Clock, vector_add: Problem
) -> None:
    contest = reviewed["contest"]
    dave = make_user("dave")
    with pytest.raises(actions.ContestError, match="taken part"):
        actions.start_virtual(contest, reviewed["users"]["alice"])
    clock.advance(days=2)
    participant = actions.start_virtual(contest, dave)
    assert participant.is_virtual and participant.window(contest) == (clock.now, clock.now + contest.duration)
    clock.advance(minutes=30)
    send(contest, dave, vector_add, 95.0)
    html = client_for(dave).get(reverse("contests:board", args=[contest.slug])).content.decode()
    virtual = html.split('data-testid="virtual-board"')[1].split("</table>")[0]
    order = [name for name in ("carol", "dave", "alice") if name in virtual]
    assert order == ["carol", "dave", "alice"] and virtual.index("carol") < virtual.index("dave") < virtual.index(
        "alice"
    )
    assert "virtual" in virtual.split("dave")[1][:80]
    # Never in the official results, and the real participants' board does not list them.
    assert "dave" not in client_for(None).get(reverse("contests:results", args=[contest.slug])).content.decode()
    assert Participant.objects.get(pk=participant.pk).final_runs.count() == 0
    clock.advance(hours=3)
    with pytest.raises(actions.ContestError, match="This closed at"):
        send(contest, dave, vector_add, 90.0)


def test_results_and_review_pages_read_a_fixed_number_of_queries(
    clock: Clock, fake_broker: FakeBroker, vector_add: Problem, django_assert_max_num_queries: Any
) -> None:
    organizer = make_user("org")
    contest = make_contest(organizer, [vector_add])
    clock.set(START + timedelta(minutes=1))
    for i in range(12):
        user = make_user(f"p{i}")
        actions.register(contest, user)
        send(contest, user, vector_add, 100.0 + 10 * i, source=SOURCE + f"# {i}\n")
    clock.set(END)
    actions.start_final_run(contest)
    for i, fr in enumerate(FinalRun.objects.select_related("rerun")):
        judge(fr.rerun, "wrong_answer" if i % 3 == 0 else "accepted", median_us=100.0 + 10 * i)
    org, anonymous = client_for(organizer), client_for(None)
    for client, name in ((anonymous, "results"), (anonymous, "results_csv"), (org, "review")):
        url = reverse(f"contests:{name}", args=[contest.slug])
        with django_assert_max_num_queries(12):
            assert client.get(url).status_code == 200


def test_staff_read_contests_participants_and_final_runs_in_the_admin_without_the_secret_seed(
    reviewed: dict[str, Any],
) -> None:
    staff = make_user("staffer", is_staff=True, is_superuser=True)
    c = client_for(staff)
    for model in ("contest", "participant", "finalrun"):
        assert c.get(f"/admin/contests/{model}/").status_code == 200
    bob = Participant.objects.get(name="bob")
    page = c.get(f"/admin/contests/participant/{bob.pk}/change/").content.decode()
    assert "bob" in page and str(bob.participant_seed) not in page


def test_the_rerun_waits_for_live_judgings_sent_before_the_end_and_then_counts_them(
    clock: Clock, fake_broker: FakeBroker, vector_add: Problem
) -> None:
    contest = make_contest(make_user(), [vector_add])
    alice = make_user("alice")
    actions.register(contest, alice)
    clock.set(START + timedelta(minutes=1))
    send(contest, alice, vector_add, 200.0)
    clock.set(END - timedelta(seconds=1))
    late = actions.submit(
        contest, alice, problem=vector_add, language="pytorch", source=SOURCE, mode="submit", gpu_model="h200"
    )
    clock.set(END + timedelta(seconds=30))
    progress = actions.start_final_run(contest)
    assert (progress.waiting, progress.created, progress.done) == (1, 0, False)
    assert not FinalRun.objects.exists()
    page = client_for(None).get(reverse("contests:results", args=[contest.slug])).content.decode()
    assert "waiting for 1 live judging sent before the end" in page
    judge(late, median_us=50.0)  # the faster one, judged after the end
    progress = actions.start_final_run(contest)
    assert (progress.waiting, progress.created) == (0, 1)
    assert FinalRun.objects.get().live_id == late.pk

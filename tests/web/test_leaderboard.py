"""Leaderboards: each user's best ranked run per problem x GPU x language, ties, the viewer's row."""

from __future__ import annotations

import io
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from gridstride.catalog.models import ProblemVersion
from gridstride.leaderboards.actions import on_judged, rebuild
from gridstride.leaderboards.models import BestRun
from gridstride.leaderboards.queries import Entry, assign_ranks, build_board, geomean, score_interval
from gridstride.submissions import actions
from gridstride.submissions.models import Submission
from site_fixtures import log_in, make_submission, make_user, problems, report

from judge.protocol import Report

pytestmark = pytest.mark.django_db


def names(board) -> list[str]:  # type: ignore[no-untyped-def]
    return [e.username for e in board.entries]


def test_the_board_keeps_each_users_best_run_ordered_by_score() -> None:
    p = problems()["softmax"]
    ada, bob = make_user("ada"), make_user("bob")
    make_submission(ada, p, score_scale=1.0)
    best = make_submission(ada, p, score_scale=0.8)
    make_submission(bob, p, score_scale=0.9)
    board = build_board(p, "h200")
    assert names(board) == ["ada", "bob"]
    assert board.entries[0].public_id == best.public_id
    assert board.total == 2
    assert board.entries[0].rank == 1 and board.entries[1].rank == 2
    assert board.entries[0].sol_pct is not None and board.entries[0].speedup == pytest.approx(1.2)


def test_only_accepted_ranked_full_judgings_of_the_current_ranking_count() -> None:
    p = problems()["softmax"]
    ranked = make_user("ranked")
    make_submission(ranked, p)
    make_submission(make_user("wrong"), p, verdict="wrong_answer")
    make_submission(make_user("runonly"), p, mode="run")
    make_submission(make_user("running"), p, status="benchmarking")
    make_submission(make_user("elsewhere"), p, gpu_model="h100")
    make_submission(make_user("cpu"), p, gpu_model="cpu")
    old = ProblemVersion.objects.create(
        problem=p, content_hash="old", ranking_hash="old-ranking", statement="x", spec={}, starters={}
    )
    make_submission(make_user("oldversion"), p, version=old)
    assert names(build_board(p, "h200")) == ["ranked"]
    assert names(build_board(p, "h100")) == ["elsewhere"]


def test_a_language_board_and_the_all_languages_board() -> None:
    p = problems()["softmax"]
    make_submission(make_user("tri"), p, language="triton", score_scale=0.9)
    make_submission(make_user("cu"), p, language="cuda", score_scale=0.8)
    assert names(build_board(p, "h200", "triton")) == ["tri"]
    assert names(build_board(p, "h200", "cuda")) == ["cu"]
    assert names(build_board(p, "h200")) == ["cu", "tri"]


def test_the_time_window_drops_older_runs() -> None:
    p = problems()["softmax"]
    make_submission(make_user("recent"), p, score_scale=0.9)
    make_submission(make_user("ancient"), p, score_scale=0.5, created_at=timezone.now() - timedelta(days=40))
    assert names(build_board(p, "h200", window="all")) == ["ancient", "recent"]
    assert names(build_board(p, "h200", window="30d")) == ["recent"]


def test_runs_whose_intervals_overlap_share_a_rank_and_are_marked_as_ties() -> None:
    p = problems()["softmax"]
    make_submission(make_user("first"), p, score_scale=0.800, ci_pct=0.5)
    make_submission(make_user("close"), p, score_scale=0.803, ci_pct=0.5)  # inside first's interval
    make_submission(make_user("clear"), p, score_scale=0.900, ci_pct=0.5)
    board = build_board(p, "h200")
    assert [(e.username, e.rank, e.tied) for e in board.entries] == [
        ("first", 1, True),
        ("close", 1, True),
        ("clear", 3, False),
    ]


def test_ties_are_judged_against_the_groups_leader_not_chained() -> None:
    def entry(name: str, low: float, high: float) -> Entry:
        return Entry(0, 0, name, None, False, "triton", (low + high) / 2, None, timezone.now(), low, high)  # type: ignore[arg-type]

    entries = [entry("a", 9.0, 11.0), entry("b", 10.5, 12.5), entry("c", 11.5, 13.5)]
    assign_ranks(entries)
    # b overlaps a; c overlaps b but not a: it starts a new rank.
    assert [(e.rank, e.tied) for e in entries] == [(1, True), (1, True), (3, False)]


def test_the_score_interval_is_the_geometric_mean_of_the_shapes_bounds() -> None:
    low, high = score_interval(
        [{"ci_low_us": 1.0, "ci_high_us": 2.0, "n": 50}, {"ci_low_us": 4.0, "ci_high_us": 8.0, "n": 50}]
    )
    assert low == pytest.approx(2.0) and high == pytest.approx(4.0)
    assert score_interval([]) == (None, None)
    assert geomean([2.0, 8.0]) == pytest.approx(4.0)
    assert geomean([1.0, None]) is None


def test_the_viewer_always_sees_their_own_row_even_far_down(client: Client) -> None:
    p = problems()["softmax"]
    for i in range(5):
        make_submission(make_user(f"fast{i}"), p, score_scale=0.5 + i * 0.05, is_public=True)
    me = make_user("me")
    make_submission(me, p, score_scale=0.95)
    board = build_board(p, "h200", viewer=me, limit=3)
    assert len(board.entries) == 3 and board.total == 6
    assert board.viewer_entry is not None and board.viewer_entry.username == "me"
    assert board.viewer_entry.rank == 6 and board.viewer_rank == 6
    log_in(client, "me")
    html = client.get("/leaderboards/softmax/?gpu=h200").content.decode()
    assert 'data-testid="my-row"' in html and "(you)" in html
    assert "You are ranked <strong>6</strong>" in html


def test_the_board_page_filters_by_gpu_language_and_window(client: Client) -> None:
    p = problems()["softmax"]
    make_submission(make_user("tri"), p, language="triton", is_public=True)
    make_submission(make_user("cu"), p, language="cuda")
    html = client.get("/leaderboards/softmax/?gpu=h200&language=cuda&window=7d").content.decode()
    assert ">cu</a>" in html and ">tri</a>" not in html
    assert '<option value="cuda" selected>' in html and '<option value="7d" selected>' in html
    # Bad parameters fall back instead of failing.
    assert client.get("/leaderboards/softmax/?gpu=h200&language=cobol&window=forever").status_code == 200
    assert client.get("/leaderboards/nope/").status_code == 404


def test_private_runs_on_the_board_do_not_link_to_their_code(client: Client) -> None:
    p = problems()["softmax"]
    shared = make_submission(make_user("sharer"), p, is_public=True, score_scale=0.9)
    private = make_submission(make_user("keeper"), p, score_scale=0.95)
    html = client.get("/leaderboards/softmax/?gpu=h200").content.decode()
    assert f"/submissions/{shared.public_id}/" in html
    assert f"/submissions/{private.public_id}/" not in html


def test_the_cpu_board_lists_unranked_practice_runs_under_a_clear_heading(client: Client) -> None:
    p = problems()["softmax"]
    me = make_user("me")
    make_submission(me, p, gpu_model="cpu", score_scale=500.0)
    log_in(client, "me")
    html = client.get("/leaderboards/softmax/?gpu=cpu").content.decode()
    assert "Unranked practice runs" in html and "never ranked" in html
    assert 'data-testid="my-row"' in html
    # ... and never on a ranked board.
    assert "(you)" not in client.get("/leaderboards/softmax/?gpu=h200").content.decode()


def test_an_empty_board_invites_a_first_submission(client: Client) -> None:
    problems()
    html = client.get("/leaderboards/softmax/?gpu=h200").content.decode()
    assert "No accepted ranked submissions here yet" in html
    assert client.get("/leaderboards/").status_code == 200


def test_a_run_recorded_by_the_pipeline_lands_on_the_board_through_its_signal(
    django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.JUDGE_GPU_MODELS = ["cpu", "h200"]
    monkeypatch.setattr("gridstride.submissions.broker.send_job", lambda job, **kw: None)
    p = problems()["softmax"]
    ada = make_user("ada")
    with django_capture_on_commit_callbacks(execute=True):
        s = actions.create_submission(
            owner=ada, problem=p, language="triton", source="x = 1", mode="submit", gpu_model="h200"
        )
    data = report("accepted", ranked=True)
    data.update(submission_id=str(s.public_id), attempt=s.attempt)
    with django_capture_on_commit_callbacks(execute=True):
        assert actions.record_report(Report.from_dict(data))
    board = build_board(p, "h200")
    assert names(board) == ["ada"] and board.entries[0].public_id == s.public_id
    assert board.entries[0].score_low_us is not None and board.entries[0].speedup == pytest.approx(1.2)


def test_a_rejudge_that_fails_a_run_takes_it_off_the_board() -> None:
    p = problems()["softmax"]
    ada = make_user("ada")
    older = make_submission(ada, p, score_scale=0.9)
    best = make_submission(ada, p, score_scale=0.8)
    assert build_board(p, "h200").entries[0].public_id == best.public_id
    Submission.objects.filter(pk=best.pk).update(verdict="wrong_answer", ranked=False, score_us=None)
    best.refresh_from_db()
    on_judged(best)  # what submission_judged does after the rejudge's report
    assert build_board(p, "h200").entries[0].public_id == older.public_id
    Submission.objects.filter(pk=older.pk).update(verdict="rejected", ranked=False, score_us=None)
    older.refresh_from_db()
    on_judged(older)
    assert build_board(p, "h200").entries == []


def test_rebuild_recomputes_every_board_from_the_submissions() -> None:
    p = problems()["softmax"]
    make_submission(make_user("ada"), p, score_scale=0.8, language="cuda")
    make_submission(make_user("bob"), p, score_scale=0.9)
    make_submission(make_user("cpu"), p, gpu_model="cpu")
    before = sorted(BestRun.objects.values_list("gpu_model", "language", "owner__username", "score_us"))
    BestRun.objects.all().delete()
    assert rebuild() == len(before) == 6  # one per user and board: the run's language and "all"
    assert sorted(BestRun.objects.values_list("gpu_model", "language", "owner__username", "score_us")) == before
    call_command("rebuild_leaderboards", "softmax", stdout=io.StringIO())
    assert BestRun.objects.count() == len(before)


def test_windowed_boards_agree_with_the_all_time_board_when_everything_is_recent() -> None:
    p = problems()["softmax"]
    for i in range(4):
        make_submission(make_user(f"u{i}"), p, score_scale=0.8 + 0.05 * i)
        make_submission(make_user(f"v{i}"), p, score_scale=0.81 + 0.05 * i, language="cuda")
    for language in (None, "cuda", "triton"):
        all_time = build_board(p, "h200", language)
        recent = build_board(p, "h200", language, window="30d")
        assert [(e.username, e.rank, e.tied) for e in all_time.entries] == [
            (e.username, e.rank, e.tied) for e in recent.entries
        ]
        assert all_time.total == recent.total

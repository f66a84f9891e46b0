"""Ranking words that agree with each other: ties only where intervals overlap and both runs were
timed often enough; the tie explained on the page; unranked runs without rank words."""

from __future__ import annotations

import pytest
from django.test import Client
from gridstride.leaderboards.queries import build_board
from gridstride.leaderboards.scoring import TIE_MIN_SAMPLES
from site_fixtures import log_in, make_submission, make_user, problems

pytestmark = pytest.mark.django_db


def test_overlapping_runs_timed_often_enough_tie_and_the_page_says_why(client: Client) -> None:
    p = problems()["softmax"]
    make_submission(make_user("first"), p, score_scale=0.800, ci_pct=0.5, is_public=True)
    close = make_submission(make_user("close"), p, score_scale=0.803, ci_pct=0.5, is_public=True)
    assert [(e.rank, e.tied) for e in build_board(p, "h200").entries] == [(1, True), (1, True)]
    html = client.get("/leaderboards/softmax/?gpu=h200").content.decode()
    note = html[html.index('data-testid="tie-rule"') :][:600]
    assert "share a rank" in note and f"at least {TIE_MIN_SAMPLES} times" in note
    log_in(client, "close")
    report = client.get(f"/submissions/{close.public_id}/report/").content.decode()
    assert "rank 1 (tied)" in report and 'data-testid="tie-note"' in report


def test_runs_timed_too_few_times_never_tie_however_wide_their_intervals() -> None:
    p = problems()["softmax"]
    # A CPU-like run: n=3 and +-30 %, with intervals that overlap by far.
    make_submission(make_user("a"), p, score_scale=1.00, ci_pct=30.0, samples=3)
    make_submission(make_user("b"), p, score_scale=1.40, ci_pct=30.0, samples=3)
    entries = build_board(p, "h200").entries
    assert [(e.username, e.rank, e.tied) for e in entries] == [("a", 1, False), ("b", 2, False)]
    assert entries[0].score_low_us is None


def test_one_run_with_too_few_samples_does_not_tie_with_a_well_timed_one() -> None:
    p = problems()["softmax"]
    make_submission(make_user("well"), p, score_scale=1.00, ci_pct=1.0)
    make_submission(make_user("few"), p, score_scale=1.001, ci_pct=1.0, samples=TIE_MIN_SAMPLES - 1)
    assert [e.tied for e in build_board(p, "h200").entries] == [False, False]


def test_an_unranked_cpu_board_has_no_rank_column_and_no_place_words(client: Client) -> None:
    p = problems()["softmax"]
    me = make_user("me")
    make_submission(make_user("other"), p, gpu_model="cpu", score_scale=400.0)
    mine = make_submission(me, p, gpu_model="cpu", score_scale=500.0)
    log_in(client, "me")
    html = client.get("/leaderboards/softmax/?gpu=cpu").content.decode()
    table = html[html.index('data-testid="leaderboard"') :]
    assert '<th class="num">rank</th>' not in table and "Your place" not in html
    assert "never ranked" in html and "without ranks" in html
    report = client.get(f"/submissions/{mine.public_id}/report/").content.decode()
    assert 'data-testid="rank"' not in report and "among unranked" not in report
    assert "practice runs</a>" in report


@pytest.mark.parametrize(
    ("language", "badge"),
    [("triton", "unranked: CPU interpreter"), ("cuda", "unranked: CPU host"), ("pytorch", "unranked: CPU host")],
)
def test_only_a_triton_cpu_run_is_said_to_run_in_the_interpreter(client: Client, language: str, badge: str) -> None:
    p = problems()["softmax"]
    user = make_user("u")
    s = make_submission(user, p, gpu_model="cpu", language=language)
    log_in(client, "u")
    html = client.get(f"/submissions/{s.public_id}/report/").content.decode()
    assert badge in html
    if language != "triton":
        assert "CPU interpreter" not in html

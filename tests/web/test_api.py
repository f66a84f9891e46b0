"""The JSON API: OpenAPI document, token auth, problems, submit, status/report, leaderboard."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from gridstride.api.actions import issue_token, revoke_token
from gridstride.api.models import Token
from gridstride.submissions.models import Submission
from site_fixtures import make_submission, make_user, problems

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def sent_jobs(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr("gridstride.submissions.broker.send_job", lambda job, **kw: sent.append(job))
    return sent


def bearer(token: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


def submit(client: Client, token: str, **fields: Any) -> Any:
    payload = {"problem": "softmax", "language": "triton", "source": "def solve(x, y, m, n):\n    pass\n", **fields}
    return client.post("/api/submissions", json.dumps(payload), content_type="application/json", **bearer(token))


def test_the_openapi_document_describes_every_endpoint_with_bearer_auth(client: Client) -> None:
    doc = client.get("/api/openapi.json").json()
    assert doc["info"]["title"] == "Gridstride API"
    for path in (
        "/api/problems",
        "/api/problems/{slug}",
        "/api/submissions",
        "/api/submissions/{submission_id}",
        "/api/leaderboards/{slug}",
        "/api/me",
    ):
        assert path in doc["paths"], path
    schemes = doc["components"]["securitySchemes"]
    assert any(s.get("scheme") == "bearer" for s in schemes.values())
    assert "SubmitIn" in doc["components"]["schemas"]
    docs = client.get("/api/docs")
    assert docs.status_code == 200 and b"/static/ninja/swagger-ui" in docs.content  # served locally, no CDN


def test_problems_and_a_problem_with_its_starters_need_no_token(client: Client) -> None:
    problems()
    listing = client.get("/api/problems").json()
    assert {p["slug"] for p in listing} >= {"softmax", "vector_add"}
    detail = client.get("/api/problems/softmax").json()
    assert set(detail["starters"]) == set(detail["languages"])
    assert detail["inputs"][0]["name"] == "x" and detail["sizes"] == ["m", "n"]
    assert detail["benchmarks"] and detail["ranking_hash"]
    assert client.get("/api/problems/nope").status_code == 404


def test_submitting_needs_a_valid_token(client: Client) -> None:
    problems()
    assert submit(client, "gs_not-a-real-token").status_code == 401
    response = client.post("/api/submissions", "{}", content_type="application/json")
    assert response.status_code == 401
    assert not Submission.objects.exists()


def test_a_token_submits_as_its_user_and_the_status_follows(client: Client, sent_jobs: list[Any]) -> None:
    problems()
    user = make_user("ada")
    _, token = issue_token(user, "cli")
    response = submit(client, token, mode="submit", gpu="cpu")
    assert response.status_code == 201, response.content
    body = response.json()
    submission = Submission.objects.get(public_id=body["id"])
    assert submission.owner == user and submission.mode == "submit" and submission.gpu_model == "cpu"
    assert body["stage"].startswith("queued") and body["final"] is False
    status = client.get(f"/api/submissions/{body['id']}", **bearer(token)).json()
    assert status["status"] == "queued" and status["report"] is None and status["owner"] == "ada"
    assert "def solve" in status["source"]


def test_a_refused_submission_is_a_400_with_the_reason(client: Client) -> None:
    problems()
    _, token = issue_token(make_user(), "cli")
    response = submit(client, token, language="fortran")
    assert response.status_code == 400 and "fortran" in response.json()["detail"]
    assert submit(client, token, problem="nope").status_code == 404
    assert submit(client, token, mode="delete").status_code == 422


def test_a_judged_submission_returns_its_report_as_the_judge_sent_it(client: Client) -> None:
    p = problems()["softmax"]
    user = make_user("ada")
    _, token = issue_token(user, "cli")
    s = make_submission(user, p)
    body = client.get(f"/api/submissions/{s.public_id}", **bearer(token)).json()
    assert body["final"] is True and body["verdict"] == "accepted"
    assert body["report"]["benchmarks"][0]["median_us"] == pytest.approx(200.0)
    assert body["score_us"] == pytest.approx(s.score_us)


def test_private_submissions_are_hidden_from_other_tokens_and_anonymous_readers(client: Client) -> None:
    p = problems()["softmax"]
    s = make_submission(make_user("owner"), p)
    _, other = issue_token(make_user("other"), "cli")
    assert client.get(f"/api/submissions/{s.public_id}", **bearer(other)).status_code == 404
    assert client.get(f"/api/submissions/{s.public_id}").status_code == 404
    assert client.get("/api/submissions/not-a-uuid").status_code == 404
    Submission.objects.filter(pk=s.pk).update(is_public=True)
    assert client.get(f"/api/submissions/{s.public_id}").status_code == 200


def test_a_revoked_token_stops_working_at_once(client: Client) -> None:
    problems()
    user = make_user("ada")
    token_row, token = issue_token(user, "cli")
    assert client.get("/api/me", **bearer(token)).json()["username"] == "ada"
    assert revoke_token(user, token_row.pk)
    assert client.get("/api/me", **bearer(token)).status_code == 401
    assert submit(client, token).status_code == 401


def test_only_a_hash_of_the_token_is_stored_and_its_use_is_recorded(client: Client) -> None:
    _, token = issue_token(make_user(), "cli")
    row = Token.objects.get()
    assert token not in (row.key_hash, row.prefix) and row.key_hash != token
    assert token.startswith(row.prefix)
    assert row.last_used_at is None
    client.get("/api/me", **bearer(token))
    row.refresh_from_db()
    assert row.last_used_at is not None


def test_the_leaderboard_endpoint_returns_entries_ties_and_the_viewers_row(client: Client) -> None:
    p = problems()["softmax"]
    me = make_user("me")
    _, token = issue_token(me, "cli")
    make_submission(make_user("fast"), p, score_scale=0.8, is_public=True)
    make_submission(me, p, score_scale=0.9)
    body = client.get("/api/leaderboards/softmax?gpu=h200", **bearer(token)).json()
    assert body["ranked"] is True and body["total"] == 2
    assert [e["user"] for e in body["entries"]] == ["fast", "me"]
    assert body["viewer"]["user"] == "me" and body["viewer"]["rank"] == 2
    assert body["entries"][0]["score_low_us"] < body["entries"][0]["score_us"] < body["entries"][0]["score_high_us"]
    cpu = client.get("/api/leaderboards/softmax?gpu=cpu").json()
    assert cpu["ranked"] is False and cpu["entries"] == []
    assert client.get("/api/leaderboards/softmax?language=cobol").status_code == 404


def test_my_submissions_lists_only_mine(client: Client) -> None:
    p = problems()["softmax"]
    me = make_user("me")
    _, token = issue_token(me, "cli")
    make_submission(me, p)
    make_submission(make_user("them"), p)
    rows = client.get("/api/submissions", **bearer(token)).json()
    assert len(rows) == 1 and rows[0]["problem"] == "softmax"

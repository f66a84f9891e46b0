"""Text PostgreSQL cannot store (NUL, lone surrogates) and bodies that do not decode: refused
with a message where a user sent them, stored visibly replaced where a program or judge wrote
them, never a 500 and never a lost report (docs/security.md, "Text")."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from django.test import Client
from gridstride.api.actions import issue_token
from gridstride.submissions.actions import SubmissionRefused, create_submission, record_report
from gridstride.submissions.models import Submission
from gridstride.submissions.testing import report_for
from site_fixtures import log_in, make_user, problems

from judge.protocol import CaseResult, source_text_fault, storable_text
from tests.adversarial_sources import crafted, mixed

pytestmark = pytest.mark.django_db

SOURCE = "def solve(x, y, m, n):\n    pass\n"


@pytest.fixture(autouse=True)
def sent_jobs(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr("gridstride.submissions.broker.send_job", lambda job, **kw: sent.append(job))
    return sent


def api_post(client: Client, token: str, body: bytes) -> Any:
    return client.post("/api/submissions", body, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")


def token() -> str:
    problems()
    return issue_token(make_user(), "cli")[1]


def test_storable_text_makes_nul_and_surrogates_visible_and_leaves_other_text_alone() -> None:
    assert storable_text("a\x00b") == "a\u2400b"
    assert storable_text("x\ud800y\udcff") == "x\\ud800y\\udcff"
    text = "plain ascii, ünïcödé, emoji \U0001f600, RTL \u202e override"
    assert storable_text(text) is text


def test_a_source_fault_names_what_and_where() -> None:
    assert source_text_fault(SOURCE) is None
    assert source_text_fault("a = 1\nb = '\x00'\n") == (
        "The source contains a NUL character at line 2, column 6; a source file must be plain text."
    )
    fault = source_text_fault("x = '\ud800'")
    assert fault is not None and "lone surrogate \\ud800 (not Unicode text)" in fault and "line 1, column 6" in fault


@pytest.mark.parametrize("bad", ["\x00", "\ud800", "\udfff"])
def test_create_submission_refuses_a_source_that_is_not_text(bad: str) -> None:
    problems()
    with pytest.raises(SubmissionRefused, match="line 2, column 8"):
        create_submission(
            owner=make_user(), problem="softmax", language="triton", source=f"# ok\n# then {bad}\n" + SOURCE, mode="run"
        )
    assert not Submission.objects.exists()


def test_the_api_refuses_a_lone_surrogate_in_its_json_with_a_400() -> None:
    client, t = Client(), token()
    body = b'{"problem": "softmax", "language": "triton", "source": "x = \'\\ud800\'\\n' + SOURCE.encode() + b'"}'
    response = api_post(client, t, body.replace(b"\n", b"\\n"))
    assert response.status_code == 400, response.content
    assert response.json()["detail"] == (
        "The field 'source' contains a lone surrogate \\ud800 (not Unicode text) at line 1, "
        "column 6; fields must be plain text."
    )


def test_the_api_refuses_a_nul_in_the_source_with_a_400_naming_its_line() -> None:
    client, t = Client(), token()
    payload = {"problem": "softmax", "language": "triton", "source": "\n\x00" + SOURCE}
    response = api_post(client, t, json.dumps(payload).encode())
    assert response.status_code == 400
    assert "'source' contains a NUL character at line 2, column 1" in response.json()["detail"]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b'{"problem": "softmax", "language": "triton", "source": "\xff\xfe"}', "not valid UTF-8"),
        (b'{"problem": "softmax", "language": ', "not valid JSON"),
        (b"\x00\x00\x00", "not valid JSON"),
    ],
)
def test_the_api_refuses_a_body_that_does_not_decode_with_a_400(body: bytes, says: str) -> None:
    client, t = Client(), token()
    response = api_post(client, t, body)
    assert response.status_code == 400, response.content
    assert says in response.json()["detail"]


# ids without "gpu": the conftest skips any test whose keywords hold it.
@pytest.mark.parametrize("field", ["problem", "language", "gpu"], ids=["problem", "language", "device"])
def test_the_api_answers_a_nul_in_another_field_without_a_500(field: str) -> None:
    client, t = Client(), token()
    payload = {"problem": "softmax", "language": "triton", "source": SOURCE, field: "soft\x00max"}
    response = api_post(client, t, json.dumps(payload).encode())
    assert response.status_code in (400, 404, 422), response.content
    assert not Submission.objects.exists()


def test_the_submit_form_refuses_a_nul_in_the_source_with_its_message() -> None:
    problems()
    client = Client()
    make_user("ada")
    log_in(client, "ada")
    data = {"problem": "softmax", "language": "triton", "source": "x = 1\x00\n" + SOURCE, "mode": "run"}
    response = client.post("/submissions/new/", data, HTTP_ACCEPT="application/json")
    assert response.status_code == 400
    assert "'source' contains a NUL character at line 1, column 6" in response.json()["error"]
    page = client.post("/submissions/new/", data)
    assert (
        page.status_code == 400 and b"&#x27;source&#x27; contains a NUL character at line 1, column 6" in page.content
    )


@pytest.mark.parametrize("field", ["problem", "language", "gpu", "mode"], ids=["problem", "language", "device", "mode"])
def test_the_submit_form_answers_a_nul_in_another_field_without_a_500(field: str) -> None:
    problems()
    client = Client()
    make_user("ada")
    log_in(client, "ada")
    data = {"problem": "softmax", "language": "triton", "source": SOURCE, "mode": "run", field: "run\x00"}
    response = client.post("/submissions/new/", data, HTTP_ACCEPT="application/json")
    assert response.status_code in (400, 404), response.content
    assert not Submission.objects.exists()


def test_a_report_with_nul_and_surrogates_everywhere_is_recorded_with_them_made_visible() -> None:
    problems()
    s = create_submission(owner=make_user(), problem="softmax", language="triton", source=SOURCE, mode="run")
    case = CaseResult(name="tiny\x00", sizes={"m": 1, "n\x00": 2}, passed=False, output="got \ud800", message="x\x00")
    report = report_for(
        s,
        "runtime_error",
        message="crashed: \x00\udcff",
        stdout="out\x00put",
        stderr="err \ud83d alone",
        compile_log="ptxas \x00",
        cases=[case],
    )
    assert record_report(report)
    s.refresh_from_db()
    assert (s.status, s.verdict) == ("done", "runtime_error")
    assert s.message == "crashed: \u2400\\udcff"
    assert s.report["stdout"] == "out\u2400put" and s.report["stderr"] == "err \\ud83d alone"
    assert s.report["compile_log"] == "ptxas \u2400"
    assert s.report["cases"][0]["name"] == "tiny\u2400" and s.report["cases"][0]["sizes"] == {"m": 1, "n\u2400": 2}
    assert s.report["cases"][0]["output"] == "got \\ud800"
    assert s.events.get(kind="recorded").detail == "runtime_error crashed: \u2400\\udcff"
    # The page renders it.
    client = Client()
    client.force_login(s.owner)
    page = client.get(f"/submissions/{s.public_id}/")
    assert page.status_code == 200 and "crashed: \u2400\\udcff" in page.content.decode()


def test_a_report_for_a_submission_id_that_is_not_a_uuid_is_ignored_not_raised() -> None:
    problems()
    s = create_submission(owner=make_user(), problem="softmax", language="triton", source=SOURCE, mode="run")
    report = report_for(s)
    report.submission_id = "not-a-uuid\x00"
    assert record_report(report) is False


def test_hostile_sources_are_taken_or_refused_by_the_site_within_a_second_each(settings: Any) -> None:
    settings.SUBMISSIONS_PER_MINUTE = 0
    problems()
    owner = make_user()
    sources = {**crafted(), **{f"mix {seed}": mixed(seed) for seed in range(10)}}
    for name, source in sources.items():
        began = time.perf_counter()
        try:
            create_submission(owner=owner, problem="softmax", language="triton", source=source, mode="run")
        except SubmissionRefused as exc:
            assert "line" in exc.message or "KiB" in exc.message, (name, exc.message)
        assert time.perf_counter() - began < 1.0, name

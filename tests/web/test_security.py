"""Security of the browser side: no script through any user- or judge-controlled string, CSRF on
every state change, private code never shown to others, tokens that stop working when revoked."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client
from gridstride.api.actions import issue_token
from gridstride.catalog.models import ProblemVersion
from gridstride.submissions.models import Submission
from site_fixtures import PASSWORD, make_submission, make_user, problems, report

from judge.protocol import CaseResult, Mismatch

pytestmark = pytest.mark.django_db

SCRIPT = "<script>alert('xss')</script>"
IMG = '<img src=x onerror="alert(1)">'
PAYLOAD = f"{SCRIPT}{IMG}</textarea></pre></script><svg onload=alert(2)>"


@pytest.fixture(autouse=True)
def sent_jobs(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    sent: list[Any] = []
    monkeypatch.setattr("gridstride.submissions.broker.send_job", lambda job, **kw: sent.append(job))
    return sent


def assert_inert(html: str) -> None:
    """No markup from the payload survived: only escaped text."""
    assert "<script>alert" not in html
    assert "<img src=x" not in html
    assert "<svg onload" not in html
    assert "javascript:" not in html
    assert not re.search(r"<[^>]+\son(error|load)=", html)


def test_a_statement_cannot_inject_script(client: Client) -> None:
    p = problems()["softmax"]
    version = p.current_version
    assert version is not None
    evil = (
        f'# Title\n\n{SCRIPT}\n\n{IMG}\n\n[click](javascript:alert(3))\n\n<a href="javascript:alert(4)">x</a>\n\n'
        "<iframe src=https://evil.example></iframe>\n\n$x^2$ and `code <b>`\n"
    )
    ProblemVersion.objects.filter(pk=version.pk).update(statement=evil)
    html = client.get("/problems/softmax/").content.decode()
    assert_inert(html)
    assert "<iframe" not in html
    assert "<h1>Title</h1>" in html and "$x^2$" in html
    # The API returns the Markdown source as data, never as HTML.
    assert client.get("/api/problems/softmax").json()["statement"] == evil


def test_starters_cannot_break_out_of_the_editors_json(client: Client) -> None:
    p = problems()["softmax"]
    version = p.current_version
    assert version is not None
    ProblemVersion.objects.filter(pk=version.pk).update(starters={**version.starters, "triton": PAYLOAD})
    html = client.get("/problems/softmax/").content.decode()
    assert_inert(html)
    data = re.search(r'<script id="workspace-data" type="application/json">(.*?)</script>', html, re.S)
    assert data and json.loads(data.group(1))["starters"]["triton"] == PAYLOAD


def test_source_code_is_shown_as_text(client: Client) -> None:
    p = problems()["softmax"]
    owner = make_user("owner")
    s = make_submission(owner, p, source=PAYLOAD, is_public=True)
    for url in (f"/submissions/{s.public_id}/", "/users/owner/"):
        assert_inert(client.get(url).content.decode())
    assert "&lt;script&gt;alert" in client.get(f"/submissions/{s.public_id}/").content.decode()


def test_judge_output_cannot_inject_script(client: Client) -> None:
    p = problems()["softmax"]
    owner = make_user("owner")
    client.login(username="owner", password=PASSWORD)
    case = CaseResult(
        name=PAYLOAD,
        sizes={"m": 1, "n": 1},
        passed=False,
        message=PAYLOAD,
        output=PAYLOAD,
        mismatch_count=1,
        mismatches=[Mismatch(index=[0], expected=1.0, got=PAYLOAD, abs_err=PAYLOAD, rel_err=1.0)],  # type: ignore[arg-type]
    )
    data = report(
        "wrong_answer",
        mode="test",
        shapes=[],
        cases=[case],
        message=PAYLOAD,
        compile_log=f'{PAYLOAD}\n  File "{IMG}.py", line 3, in solve\nkernel.cu(4): {SCRIPT}',
        stdout=PAYLOAD,
        stderr=PAYLOAD,
        system={"gpu_name": PAYLOAD, PAYLOAD: PAYLOAD},
        ceilings={"dram_gbps": 4300.0},
    )
    s = make_submission(owner, p, mode="run", verdict="wrong_answer", report_data=data)
    for url in (f"/submissions/{s.public_id}/", f"/submissions/{s.public_id}/report/"):
        html = client.get(url).content.decode()
        assert_inert(html)
        assert html.count("&lt;script&gt;alert(&#x27;xss&#x27;)&lt;/script&gt;") >= 6
    # The line link is still made, with the escaped text inside it.
    assert 'data-line="4"' in client.get(f"/submissions/{s.public_id}/report/").content.decode()


def test_token_names_are_escaped(client: Client) -> None:
    make_user("ada")
    client.login(username="ada", password=PASSWORD)
    client.post("/accounts/tokens/", {"name": SCRIPT})
    assert_inert(client.get("/accounts/tokens/").content.decode())


@pytest.mark.parametrize(
    ("url", "data"),
    [
        ("/submissions/new/", {"problem": "softmax", "language": "triton", "source": "x = 1", "mode": "run"}),
        ("/accounts/tokens/", {"name": "cli"}),
        ("/accounts/logout/", {}),
        (
            "/accounts/password/change/",
            {"old_password": PASSWORD, "new_password1": "x-y-z-123456", "new_password2": "x-y-z-123456"},
        ),
    ],
)
def test_every_state_change_needs_a_csrf_token(url: str, data: dict[str, str]) -> None:
    problems()
    make_user("ada")
    client = Client(enforce_csrf_checks=True)
    client.login(username="ada", password=PASSWORD)
    assert client.post(url, data).status_code == 403
    assert not Submission.objects.exists()


def test_visibility_and_revocation_need_a_csrf_token() -> None:
    p = problems()["softmax"]
    ada = make_user("ada")
    s = make_submission(ada, p)
    token, _ = issue_token(ada, "cli")
    client = Client(enforce_csrf_checks=True)
    client.login(username="ada", password=PASSWORD)
    assert client.post(f"/submissions/{s.public_id}/visibility/", {"public": "1"}).status_code == 403
    assert client.post(f"/accounts/tokens/{token.pk}/revoke/").status_code == 403
    s.refresh_from_db()
    token.refresh_from_db()
    assert not s.is_public and token.revoked_at is None


def test_signup_and_login_forms_carry_csrf_tokens(client: Client) -> None:
    problems()
    for url in ("/accounts/signup/", "/accounts/login/", "/accounts/password/reset/"):
        assert 'name="csrfmiddlewaretoken"' in client.get(url).content.decode(), url
    make_user("ada")
    client.login(username="ada", password=PASSWORD)
    assert 'name="csrfmiddlewaretoken"' in client.get("/problems/softmax/").content.decode()


def test_the_api_ignores_the_session_cookie_so_it_needs_no_csrf(client: Client) -> None:
    problems()
    make_user("ada")
    client.login(username="ada", password=PASSWORD)
    body = json.dumps({"problem": "softmax", "language": "triton", "source": "x = 1"})
    assert client.post("/api/submissions", body, content_type="application/json").status_code == 401
    assert not Submission.objects.exists()


def test_private_code_is_never_shown_to_anyone_else_anywhere(client: Client) -> None:
    p = problems()["softmax"]
    owner = make_user("owner")
    s = make_submission(owner, p, source="PRIVATE_MARKER = 42\n")
    _, mallory_token = issue_token(make_user("mallory"), "cli")
    client.login(username="mallory", password=PASSWORD)
    pages = [
        f"/submissions/{s.public_id}/",
        f"/submissions/{s.public_id}/status/",
        f"/submissions/{s.public_id}/report/",
    ]
    for url in pages:
        assert client.get(url).status_code == 404, url
    for url in ("/users/owner/", "/leaderboards/softmax/?gpu=h200", "/submissions/"):
        html = client.get(url).content.decode()
        assert "PRIVATE_MARKER" not in html and f"/submissions/{s.public_id}/" not in html, url
    api = client.get(f"/api/submissions/{s.public_id}", HTTP_AUTHORIZATION=f"Bearer {mallory_token}")
    assert api.status_code == 404
    board = client.get("/api/leaderboards/softmax?gpu=h200").json()
    assert board["entries"][0]["submission"] is None


def test_pages_cannot_be_framed(client: Client) -> None:
    problems()
    assert client.get("/problems/softmax/")["X-Frame-Options"] == "DENY"

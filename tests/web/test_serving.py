"""The site as a deployment serves it: its own error pages (never Django's debug page), a favicon,
API docs with a way back and words without JavaScript, and an API 500 without a traceback."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from django.test import Client, override_settings
from gridstride.api.views import api

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@override_settings(DEBUG=False)
def test_a_missing_page_is_the_sites_own_404(client: Client) -> None:
    response = client.get("/no/such/page/")
    html = response.content.decode()
    assert response.status_code == 404
    assert 'data-testid="error-404"' in html and "Page not found" in html
    assert "URLconf" not in html and "Using the URLconf" not in html
    assert 'href="/"' in html or "Problems" in html


@override_settings(DEBUG=False)
def test_a_server_error_is_the_sites_own_500() -> None:
    from django.urls import path
    from gridstride import urls

    def boom(request):  # type: ignore[no-untyped-def]
        raise RuntimeError("secret host path /home/x")

    client = Client(raise_request_exception=False)
    patterns = [*urls.urlpatterns, path("boom/", boom)]
    with override_settings(ROOT_URLCONF=type("U", (), {"urlpatterns": patterns})):
        response = client.get("/boom/")
    html = response.content.decode()
    assert response.status_code == 500 and 'data-testid="error-500"' in html
    assert "secret host path" not in html and "Traceback" not in html


@pytest.mark.parametrize("debug", [False, True])
def test_an_api_failure_is_one_json_line_without_a_traceback(
    client: Client, monkeypatch: pytest.MonkeyPatch, debug: bool
) -> None:
    def fail(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("/srv/gridstride/secret.py line 3")

    monkeypatch.setattr("gridstride.api.views.in_learning_order", fail)
    with override_settings(DEBUG=debug):
        response = Client(raise_request_exception=False).get("/api/problems")
    assert response.status_code == 500
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"detail"} and "secret" not in body["detail"] and "Traceback" not in response.content.decode()


def test_the_favicon_is_served(client: Client) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    content = b"".join(response.streaming_content) if response.streaming else response.content  # type: ignore[attr-defined]
    assert content[:4] == b"\x00\x00\x01\x00"  # an ICO header


def test_the_api_docs_lead_back_to_the_site_and_speak_without_javascript(client: Client) -> None:
    html = client.get("/api/docs").content.decode()
    assert 'class="brand" href="/"' in html and ">Problems</a>" in html
    noscript = re.search(r"<noscript>(.*?)</noscript>", html, re.S)
    assert noscript and "/api/openapi.json" in noscript.group(1)
    assert api.docs.template == "api/docs.html"


def test_gs_start_serves_without_debug_and_start_dev_with_the_autoreloader() -> None:
    script = (ROOT / "gs").read_text()
    start = script[script.index("cmd_start() {") : script.index("cmd_test() {")]
    assert "export DEBUG=0" in start and "gunicorn" in start and "collectstatic" in start
    assert "ensure_secret_key" in start and "--dev) dev=1" in start
    dev_branch = start[start.index("if (( dev )); then\n    echo") :]
    assert "runserver" in dev_branch and "--noreload" not in dev_branch
    assert subprocess.run(["bash", "-n", str(ROOT / "gs")]).returncode == 0

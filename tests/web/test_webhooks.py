"""The finish webhook: HMAC-SHA256 over the exact JSON body, retried when the receiver fails, every
attempt in the delivery log. A real HTTP server on localhost receives it."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest
from assessment_fixtures import T0, judged, world
from gridstride.assessments import actions, webhooks
from gridstride.assessments.models import WebhookDelivery
from gridstride.assessments.tasks import deliver_webhook

pytestmark = pytest.mark.django_db


class Receiver:
    """Answers with the given statuses in turn (the last one from then on) and keeps what it got."""

    def __init__(self, statuses: list[int]) -> None:
        self.statuses = statuses
        self.got: list[tuple[dict[str, str], bytes]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.got.append((dict(self.headers), body))
                status = receiver.statuses[min(len(receiver.got), len(receiver.statuses)) - 1]
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Receiver:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(autouse=True)
def eager(settings: Any, monkeypatch: Any) -> None:
    """The task runs here and now, its retries too (Task.apply retries in place), whatever app
    configuration other tests left behind."""
    settings.ASSESSMENT_WEBHOOK_ALLOW_PRIVATE = True  # the receiver runs on localhost
    monkeypatch.setattr(deliver_webhook, "delay", lambda pk: deliver_webhook.apply(args=[pk]))


def finished_with_webhook(url: str, django_capture_on_commit_callbacks: Any) -> tuple[Any, WebhookDelivery]:
    w = world(slugs=("softmax",), webhook_url=url)
    judged(w.candidate, "softmax", score_us=42.0)
    with django_capture_on_commit_callbacks(execute=True):
        assert actions.finish(w.candidate, "early", T0 + timedelta(minutes=20))
    return w, WebhookDelivery.objects.get(candidate=w.candidate)


def test_the_webhook_is_signed_over_its_exact_body_and_retried_until_it_lands(
    django_capture_on_commit_callbacks: Any,
) -> None:
    with Receiver([500, 503, 200]) as receiver:
        w, delivery = finished_with_webhook(receiver.url, django_capture_on_commit_callbacks)
    delivery.refresh_from_db()
    assert delivery.attempts == 3 and delivery.delivered_at is not None and delivery.status_code == 200
    assert [e["status"] for e in delivery.log] == [500, 503, 200]
    headers, body = receiver.got[-1]
    expected = "sha256=" + hmac.new(w.assessment.webhook_secret.encode(), body, hashlib.sha256).hexdigest()
    assert headers[webhooks.SIGNATURE_HEADER] == expected
    assert hmac.compare_digest(webhooks.sign(w.assessment.webhook_secret, body), expected)
    assert webhooks.sign("another-secret", body) != expected
    data = json.loads(body)
    assert data["event"] == "candidate.finished"
    assert data["result"]["problems"][0]["score_us"] == 42.0 and data["result"]["finish_reason"] == "early"
    assert len({b for _, b in receiver.got}) == 1, "every retry sends the same body"


def test_a_receiver_that_keeps_failing_gets_the_most_attempts_and_the_log_says_why(
    django_capture_on_commit_callbacks: Any,
) -> None:
    with Receiver([500]) as receiver:
        _, delivery = finished_with_webhook(receiver.url, django_capture_on_commit_callbacks)
    delivery.refresh_from_db()
    assert delivery.attempts == webhooks.MAX_ATTEMPTS == len(receiver.got)
    assert delivery.delivered_at is None and delivery.last_error == "HTTP 500"


def test_an_unreachable_receiver_is_logged_not_raised(django_capture_on_commit_callbacks: Any) -> None:
    _, delivery = finished_with_webhook("http://127.0.0.1:9/hook", django_capture_on_commit_callbacks)
    delivery.refresh_from_db()
    assert delivery.attempts == webhooks.MAX_ATTEMPTS and delivery.status_code is None and delivery.last_error
    assert deliver_webhook.apply(args=[delivery.pk]).failed(), "a later manual try fails the same way"


def test_a_webhook_to_a_private_address_is_refused_without_a_request(
    django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.ASSESSMENT_WEBHOOK_ALLOW_PRIVATE = False
    with Receiver([200]) as receiver:
        _, delivery = finished_with_webhook(receiver.url, django_capture_on_commit_callbacks)
    delivery.refresh_from_db()
    assert receiver.got == [] and delivery.delivered_at is None
    assert "private or local address" in delivery.last_error
    assert webhooks.refusal("http://10.0.0.8/x") and webhooks.refusal("file:///etc/passwd")

"""The webhook an applicant-tracking system receives when a candidate finishes (docs/assessments.md).

POST of a JSON body with `X-Gridstride-Signature: sha256=<hex>`, the HMAC-SHA256 of the exact body
bytes under the assessment's webhook secret. A delivery is tried up to MAX_ATTEMPTS times with
growing waits (a Celery task); every attempt is logged on the WebhookDelivery row.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import socket
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F

from gridstride.assessments.models import Candidate, WebhookDelivery
from gridstride.lib import clock

MAX_ATTEMPTS = 5
TIMEOUT_S = 10
SIGNATURE_HEADER = "X-Gridstride-Signature"


def sign(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def payload(candidate: Candidate, now: datetime) -> dict[str, Any]:
    from gridstride.assessments import report

    assessment = candidate.assessment
    summary = report.summarize(
        candidate, report.assessment_problems(assessment), report._rows(assessment, candidate.user_id), now
    )
    return {
        "event": "candidate.finished",
        "assessment": {
            "id": str(assessment.public_id),
            "title": assessment.title,
            "organization": assessment.organization.slug,
        },
        "result": summary.as_dict(),
    }


def queue_delivery(candidate: Candidate) -> WebhookDelivery | None:
    assessment = candidate.assessment
    if not assessment.webhook_url:
        return None
    body = json.dumps(payload(candidate, clock.now()), sort_keys=True)
    delivery = WebhookDelivery.objects.create(
        assessment=assessment, candidate=candidate, url=assessment.webhook_url, body=body
    )
    from gridstride.assessments.tasks import deliver_webhook

    pk = delivery.pk
    transaction.on_commit(lambda: deliver_webhook.delay(pk))
    return delivery


def refusal(url: str) -> str:
    """Why the site will not call `url` ("" when it will): http(s) to public addresses only, unless
    ASSESSMENT_WEBHOOK_ALLOW_PRIVATE. Checked at every attempt (a name may change its address)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "only http and https URLs are called"
    if settings.ASSESSMENT_WEBHOOK_ALLOW_PRIVATE:
        return ""
    try:
        infos = socket.getaddrinfo(
            parts.hostname, parts.port or (443 if parts.scheme == "https" else 80), proto=socket.IPPROTO_TCP
        )
    except OSError:
        return f"cannot resolve {parts.hostname}"
    for info in infos:
        if not ipaddress.ip_address(info[4][0]).is_global:
            return f"{parts.hostname} is a private or local address; webhooks go to public addresses only"
    return ""


def attempt(delivery: WebhookDelivery) -> bool:
    """One POST; True when the receiver answered 2xx. The attempt is logged either way."""
    refused = refusal(delivery.url)
    if refused:
        return _log(delivery, None, refused)
    body = delivery.body.encode()
    request = urllib.request.Request(
        delivery.url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": "Gridstride-Webhook/1",
            SIGNATURE_HEADER: sign(delivery.assessment.webhook_secret, body),
            "X-Gridstride-Delivery": str(delivery.pk),
        },
    )
    status: int | None = None
    error = ""
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        status, error = exc.code, f"HTTP {exc.code}"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        error = str(getattr(exc, "reason", exc))[:300]
    return _log(delivery, status, error)


def _log(delivery: WebhookDelivery, status: int | None, error: str) -> bool:
    ok = status is not None and 200 <= status < 300
    now = clock.now()
    entry = {"at": now.isoformat(), "status": status, "error": error}
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        attempts=F("attempts") + 1,
        status_code=status,
        last_error=error,
        delivered_at=now if ok else None,
        log=[*delivery.log, entry],
    )
    delivery.refresh_from_db()
    return ok

"""The web side's two uses of the broker: publish a judge job, revoke a stale one.

Kept apart from actions.py so tests swap it for a recorder (`gridstride.submissions.testing`)
and so the Celery app is imported only when a message is really sent.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import Celery
from django.conf import settings

log = logging.getLogger(__name__)

JOB_TASK = "judge.run"
# A broker restart takes a few seconds: keep trying that long before the sweeper takes over.
PUBLISH_RETRY_POLICY = {"max_retries": 10, "interval_start": 0.2, "interval_step": 0.5, "interval_max": 2.0}


def celery_app() -> Celery:
    """The site's Celery app (tests that bring their own broker replace this function)."""
    from gridstride.celery import app

    return app


def send_job(job: dict[str, Any], *, queue: str, priority: int, task_id: str) -> None:
    """Publish `judge.run(job)` on `queue`. Raises when the broker cannot be reached."""
    celery_app().send_task(
        JOB_TASK,
        args=[job],
        queue=queue,
        routing_key=queue,
        priority=priority,
        task_id=task_id,
        retry=True,
        retry_policy=PUBLISH_RETRY_POLICY,
    )


def revoke(task_ids: list[str]) -> None:
    """Ask live judges to drop stale messages (best effort; fencing makes it safe to miss).

    Only on Redis: it broadcasts through pub/sub, while the filesystem transport would leave a
    file per dead worker's mailbox behind.
    """
    if not task_ids or not settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
        return
    try:
        celery_app().control.revoke(task_ids)
    except Exception:  # the broker is down: the fence still ignores what these would report
        log.warning("could not revoke %s", task_ids, exc_info=True)

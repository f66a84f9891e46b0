"""Celery tasks of the web side (queue `web`): what judges send back, and the lease sweeper.

Judges send these by name (judge/worker.py never imports this module). All of them are safe to
run twice: the actions they call are fenced by the database.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.db import InterfaceError, OperationalError

from gridstride.submissions import actions
from judge.protocol import PROTOCOL_VERSION, Progress, ProtocolError, Report

log = logging.getLogger(__name__)

# The database briefly unavailable (restart, failover): try again with growing waits, for about
# an hour; past that the lease sweeper re-judges the submission, so a report is never just lost.
DB_RETRY = {
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": 1,
    "retry_backoff_max": 30,
    "retry_jitter": True,
    "max_retries": 120,
}


@shared_task(name="gridstride.record_report", acks_late=True, **DB_RETRY)
def record_report(data: dict[str, Any]) -> bool:
    try:
        report = Report.from_dict(data)
    except (ProtocolError, TypeError) as exc:
        log.error("malformed report ignored (%s): %.300r", exc, data)
        return False
    return actions.record_report(report)


@shared_task(name="gridstride.record_progress", acks_late=True, **{**DB_RETRY, "max_retries": 3})
def record_progress(data: dict[str, Any]) -> bool:
    if data.get("version") != PROTOCOL_VERSION:
        log.error("progress of unknown version ignored: %.300r", data)
        return False
    try:
        progress = Progress(**{k: data[k] for k in Progress.__dataclass_fields__ if k in data})
    except TypeError as exc:
        log.error("malformed progress ignored (%s): %.300r", exc, data)
        return False
    return actions.record_progress(
        progress, run_id=str(data.get("run_id", "")), worker=str(data.get("worker", "")), seq=int(data.get("seq", 0))
    )


@shared_task(name="gridstride.sweep_leases", acks_late=True)
def sweep_leases() -> dict[str, list[str]]:
    result = actions.sweep()
    if result.dispatched or result.requeued or result.gave_up:
        log.warning(
            "sweeper: published %d, re-queued %d, gave up %d",
            len(result.dispatched),
            len(result.requeued),
            len(result.gave_up),
        )
    return {"dispatched": result.dispatched, "requeued": result.requeued, "gave_up": result.gave_up}

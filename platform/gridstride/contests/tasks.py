"""Celery tasks of contests (queue `web`)."""

from __future__ import annotations

from celery import shared_task

from gridstride.contests import actions


@shared_task(name="gridstride.contest_final_runs", acks_late=True)
def contest_final_runs() -> int:
    """Start or resume the final re-run of every ended contest (idempotent; beat runs it)."""
    return actions.due_final_runs()

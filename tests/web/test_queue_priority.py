"""Assessment jobs go ahead of practice on the judge queues, on both brokers: messages published as
the site publishes them (priority 0 assessment, 3 contest, 6 practice, 9 rejudge) come out of the
queue lowest number first, read the way a judge reads them. Real Redis and the real filesystem
transport; no worker process (the order is the broker's)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import pytest
from celery import Celery
from gridstride.submissions.models import PRIORITY
from kombu import Connection, Queue

from judge import worker

ORDER_SENT = ["practice", "rejudge", "assessment", "practice", "contest", "assessment"]


def _settings(broker_url: str, var_dir: Path) -> worker.Settings:
    return worker.Settings(
        broker_url=broker_url,
        var_dir=var_dir,
        visibility_timeout_s=3600,
        time_limit_s=1200,
        soft_time_limit_s=1140,
        heartbeat_s=15,
        max_runs=3,
        harness="",
    )


def _publish_and_drain(web_conf: dict[str, Any], judge_conf: dict[str, Any], queue: str) -> list[str]:
    site = Celery("site-under-test", set_as_current=False)
    site.conf.update(web_conf)
    for i, context in enumerate(ORDER_SENT):
        site.send_task(
            "judge.run",
            args=[{"n": i, "context": context}],
            queue=queue,
            routing_key=queue,
            priority=PRIORITY[context],
            task_id=f"{context}-{i}-{uuid.uuid4()}",
        )
    got = []
    transport = judge_conf.get("broker_transport")
    with Connection(
        judge_conf["broker_url"], transport=transport, transport_options=judge_conf["broker_transport_options"]
    ) as conn:
        q = conn.SimpleQueue(Queue(queue, routing_key=queue))
        try:
            for _ in ORDER_SENT:
                message = q.get(timeout=5)
                got.append(message.headers["id"].split("-")[0])
                message.ack()
        finally:
            q.close()
    return got


def test_the_filesystem_broker_hands_out_assessment_jobs_first(tmp_path: Path) -> None:
    judge_conf = worker.celery_config(_settings("filesystem://", tmp_path))
    web_conf = {**judge_conf, "broker_transport": "gridstride.submissions.transports:FilesystemTransport"}
    got = _publish_and_drain(web_conf, judge_conf, "judge.prio")
    assert got == ["assessment", "assessment", "contest", "practice", "practice", "rejudge"]


def test_redis_hands_out_assessment_jobs_first(tmp_path: Path) -> None:
    url = os.environ.get("CELERY_BROKER_URL", "")
    if not url.startswith("redis://"):
        pytest.skip("needs CELERY_BROKER_URL=redis://... (the web suite's Redis)")
    queue = f"judge.prio-{uuid.uuid4().hex[:8]}"
    judge_conf = worker.celery_config(_settings(url, tmp_path))
    got = _publish_and_drain(judge_conf, judge_conf, queue)
    assert got == ["assessment", "assessment", "contest", "practice", "practice", "rejudge"]


@pytest.mark.django_db(transaction=True)
def test_an_assessment_job_is_sent_at_priority_0_and_its_queue_wait_is_recorded_once(monkeypatch: Any) -> None:
    from datetime import timedelta

    from gridstride.submissions.actions import create_submission, record_progress
    from gridstride.submissions.models import Submission
    from gridstride.submissions.testing import FakeBroker
    from site_fixtures import make_user, problems

    from judge.protocol import Progress

    fake = FakeBroker.install(monkeypatch)
    sub = create_submission(
        owner=make_user(), problem=problems()["softmax"], language="triton", source="x = 1", mode="run",
        context="assessment", context_key="a1",
    )  # fmt: skip
    assert [(s.priority, s.queue) for s in fake.sent] == [(0, "judge.cpu")]
    # It waited 42 s before a judge took it.
    Submission.objects.filter(pk=sub.pk).update(queued_at=sub.queued_at - timedelta(seconds=42))
    progress = Progress(submission_id=str(sub.public_id), attempt=1, stage="compiling")
    assert record_progress(progress, run_id="run-1", worker="w", seq=1)
    sub.refresh_from_db()
    assert sub.queue_wait_s is not None and 42 <= sub.queue_wait_s < 50
    first = sub.queue_wait_s
    # A redelivery (the judge died) does not overwrite the first wait.
    record_progress(progress, run_id="run-2", worker="w", seq=2)
    sub.refresh_from_db()
    assert sub.runs == 2 and sub.queue_wait_s == first

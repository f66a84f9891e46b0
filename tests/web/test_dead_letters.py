"""Malformed messages on either broker are set aside as dead letters and both workers keep serving,
with real processes: the Celery web worker, a judge worker (trivial harness), PostgreSQL, and a
private redis-server or the filesystem broker (docs/pipeline.md, "Dead letters")."""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
import redis as redis_client
from celery import Celery
from django.contrib.auth import get_user_model
from django.db import connection
from gridstride.catalog.actions import sync_problems
from gridstride.submissions import broker
from gridstride.submissions.actions import create_submission, job_for
from gridstride.submissions.models import Submission

from tests.pipeline.procs import RedisServer, Stack, wait_for

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
    pytest.skip("needs PostgreSQL: set DATABASE_URL=postgres://... (as .ci/run does)", allow_module_level=True)
if not shutil.which("redis-server") or not (Path(__file__).parents[2] / ".venv/judge/bin/python").exists():
    pytest.skip("needs redis-server and the judge environment (.venv/judge)", allow_module_level=True)

# Not JSON, not UTF-8, JSON that is not kombu's envelope: each stopped a stock Celery consumer.
RAW = [
    b"not json",
    b"\xff\xfe{",
    b"{}",
    b'{"properties": {}}',
    b"[1, 2]",
    b'{"properties": {"delivery_tag": 1}, "body": 7}',
]
# Celery messages whose judge.run arguments are not a job.
BAD_ARGS: list[list[Any]] = [[{}], ["x"], [], [{"submission_id": "s", "attempt": "1"}], [{"mode": 3}, 1]]


def db_url() -> str:
    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
    return f"postgres://{auth}@{s.get('HOST') or '127.0.0.1'}:{s.get('PORT') or 5432}/{s['NAME']}"


@pytest.fixture
def user() -> Any:
    return get_user_model().objects.create_user("deadletters")


def submit(user: Any) -> Submission:
    return create_submission(
        owner=user, problem="vector_add", language="triton", source="def solve(): pass\n", mode="run"
    )


def done(s: Submission) -> Submission | None:
    s.refresh_from_db()
    return s if s.status == "done" else None


def dead_letters(stack: Stack) -> list[dict[str, Any]]:
    folder = stack.folder / "var" / "dead-letters"
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))] if folder.exists() else []


@pytest.fixture
def redis_stack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: Any) -> Iterator[tuple[Stack, Any]]:
    server = RedisServer(tmp_path / "redis")
    server.start()
    monkeypatch.setenv("CELERY_BROKER_URL", server.url)
    app = Celery("dead-letter-test", broker=server.url)
    app.conf.broker_transport_options = {"visibility_timeout": 90, "priority_steps": [0, 3, 6, 9]}
    monkeypatch.setattr(broker, "celery_app", lambda: app)
    settings.CELERY_BROKER_URL = server.url
    sync_problems()
    stack = Stack(tmp_path / "stack", database_url=db_url(), broker_url=server.url)
    client = redis_client.Redis.from_url(server.url)

    def push(queue: str, raw: bytes) -> None:
        client.lpush(queue, raw)

    yield stack, (app, push)
    stack.stop()
    app.close()
    server.stop()
    print(stack.logs())


@pytest.fixture
def fs_stack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: Any) -> Iterator[tuple[Stack, Any]]:
    sync_problems()
    stack = Stack(tmp_path / "stack", database_url=db_url(), broker_url="filesystem://")
    queue_dir = stack.folder / "var" / "broker" / "queue"
    for sub in ("queue", "processed", "control"):
        (stack.folder / "var" / "broker" / sub).mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("CELERY_BROKER_URL", "filesystem://")
    app = Celery("dead-letter-test", broker="filesystem://")
    app.conf.broker_transport = "gridstride.submissions.transports:FilesystemTransport"
    app.conf.broker_transport_options = {
        "data_folder_in": str(queue_dir),
        "data_folder_out": str(queue_dir),
        "processed_folder": str(stack.folder / "var" / "broker" / "processed"),
        "control_folder": str(stack.folder / "var" / "broker" / "control"),
    }
    monkeypatch.setattr(broker, "celery_app", lambda: app)
    settings.CELERY_BROKER_URL = "filesystem://"

    def push(queue: str, raw: bytes) -> None:
        name = f"0_{uuid.uuid4()}.{queue}.msg"  # "0_": ahead of every real message in the folder
        (queue_dir / f".{name}.part").write_bytes(raw)
        (queue_dir / f".{name}.part").replace(queue_dir / name)

    yield stack, (app, push)
    stack.stop()
    app.close()
    print(stack.logs())


@pytest.mark.parametrize("broker_stack", ["redis_stack", "fs_stack"])
def test_malformed_messages_are_set_aside_and_both_workers_keep_serving(
    broker_stack: str, request: pytest.FixtureRequest, user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    stack, (app, push) = request.getfixturevalue(broker_stack)
    web = stack.start_web()
    judge = stack.start_judge()
    for raw in RAW:
        push("judge.cpu", raw)
        push("web", raw)
    for args in BAD_ARGS:
        app.send_task("judge.run", args=args, queue="judge.cpu")
    # A well-formed job whose source is not text (a forged message: the site refuses such a
    # source) gets a user verdict, not internal_error, and its report is stored.
    with monkeypatch.context() as m:  # only the forged job goes out for this submission
        m.setattr(broker, "send_job", lambda *args, **kwargs: None)
        forged = submit(user)
    job = {**asdict(job_for(forged)), "source": "x = '\ud800'\x00\n"}
    app.send_task("judge.run", args=[job], queue="judge.cpu")
    forged = wait_for("the forged job's report", lambda: done(forged), 60)
    assert forged.verdict == "rejected"
    assert "lone surrogate \\ud800 (not Unicode text) at line 1, column 6" in forged.message
    # Everything was set aside: the raw messages from both queues and the bad judge.run calls.
    expected = 2 * len(RAW) + len(BAD_ARGS)
    letters = wait_for("every dead letter", lambda: (d := dead_letters(stack)) and len(d) >= expected and d, 60)
    assert len(letters) == expected
    reasons = [d["reason"] for d in letters]
    assert sum(r.startswith("not JSON") for r in reasons) == 4
    assert sum(r.startswith("job refused") for r in reasons) == len(BAD_ARGS)
    assert any(d["message"] == "not json" for d in letters)
    assert any("delivery_tag" in d["reason"] for d in letters)
    # Both workers are alive and judge the next submission.
    after = submit(user)
    after = wait_for("the next verdict", lambda: done(after), 60)
    assert after.verdict == "accepted"
    assert web.popen.poll() is None and judge.popen.poll() is None
    assert "Unrecoverable error" not in web.text() + judge.text()

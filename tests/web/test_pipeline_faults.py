"""Faults the pipeline must survive, with real processes: a private redis-server (persistence on),
PostgreSQL, the Celery web worker with beat, and judge workers running the trivial harness.

"Recorded once" is checked on the submission's event trail: exactly one `recorded` event, and
exactly one `submission_judged`-worthy final write, however many times the job ran.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from collections.abc import Iterator
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from celery import Celery
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from gridstride.catalog.actions import sync_problems
from gridstride.submissions import broker
from gridstride.submissions.actions import create_submission
from gridstride.submissions.models import Submission
from gridstride.submissions.monitor import online_judges
from gridstride.submissions.testing import report_for

from tests.pipeline.procs import TRIVIAL, RedisServer, Stack, TcpProxy, wait_for

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

if not (os.environ.get("DATABASE_URL", "").startswith("postgres") and os.environ.get("CELERY_BROKER_URL")):
    pytest.skip(
        "needs PostgreSQL and Redis: set DATABASE_URL=postgres://... and CELERY_BROKER_URL (as .ci/run does)",
        allow_module_level=True,
    )
if not shutil.which("redis-server") or not (Path(__file__).parents[2] / ".venv/judge/bin/python").exists():
    pytest.skip("needs redis-server and the judge environment (.venv/judge)", allow_module_level=True)

RECORD_TIMEOUT = 60


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path / "redis")
    server.start()
    yield server
    server.stop()


def db_url(via_port: int | None = None) -> str:
    """The URL of the test database pytest-django made, optionally through another port."""
    s = connection.settings_dict
    port = via_port or s.get("PORT") or 5432
    auth = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
    return f"postgres://{auth}@{s.get('HOST') or '127.0.0.1'}:{port}/{s['NAME']}"


@pytest.fixture
def client_app(redis: RedisServer, monkeypatch: pytest.MonkeyPatch, settings: Any) -> Iterator[Celery]:
    """This test process publishes to the private Redis, as the site would."""
    # Celery prefers the CELERY_BROKER_URL variable to the URL it is given: point it here too.
    monkeypatch.setenv("CELERY_BROKER_URL", redis.url)
    app = Celery("pipeline-test-client", broker=redis.url)
    app.conf.broker_transport_options = {"visibility_timeout": 90, "priority_steps": [0, 3, 6, 9]}
    app.conf.broker_connection_retry_on_startup = True
    monkeypatch.setattr(broker, "celery_app", lambda: app)
    settings.CELERY_BROKER_URL = redis.url
    settings.JUDGE_LEASE_S = 6
    yield app
    app.close()


@pytest.fixture
def stack(tmp_path: Path, redis: RedisServer, client_app: Celery) -> Iterator[Stack]:
    sync_problems()
    s = Stack(tmp_path / "stack", database_url=db_url(), broker_url=redis.url)
    yield s
    s.stop()
    print(s.logs())  # pytest shows it only when the test failed


@pytest.fixture
def user() -> Any:
    return get_user_model().objects.create_user("faulty")


def submit(user: Any, directive: str = "", mode: str = "run") -> Submission:
    source = f"# trivial: {directive}\ndef solve(): pass\n" if directive else "def solve(): pass\n"
    return create_submission(owner=user, problem="vector_add", language="triton", source=source, mode=mode)


def done(*subs: Submission) -> bool:
    return Submission.objects.filter(pk__in=[s.pk for s in subs], status="done").count() == len(subs)


def recorded_once(s: Submission) -> Submission:
    s.refresh_from_db()
    events = list(s.events.values_list("kind", flat=True))
    assert events.count("recorded") == 1, events
    assert s.status == "done"
    return s


def test_a_judge_process_killed_mid_job_is_judged_again_and_recorded_once(stack: Stack, user: Any) -> None:
    stack.start_web()
    stack.start_judge()
    # The judge advertises what it is; `manage.py judges` lists it.
    judges = online_judges(timeout=3)
    assert [(j["queue"], j["gpu_model"], j["harness"]) for j in judges] == [("judge.cpu", "cpu", TRIVIAL)]
    out = StringIO()
    call_command("judges", stdout=out)
    assert "judge-cpu-0@" in out.getvalue() and "1 judges online." in out.getvalue()
    s = submit(user, "sleep=3")
    key = f"{s.public_id}.1"
    pid = wait_for("the job to start", lambda: stack.running_pids().get(key), 30)
    os.kill(pid, signal.SIGKILL)  # the pool process running the job: Celery re-queues its message
    wait_for("the verdict", lambda: done(s), RECORD_TIMEOUT)
    s = recorded_once(s)
    assert (s.verdict, s.attempt, s.runs) == ("accepted", 1, 2)
    assert stack.runs().count((str(s.public_id), 1)) == 2


def test_a_whole_judge_worker_killed_mid_job_is_requeued_by_its_lease_and_recorded_once(
    stack: Stack, user: Any
) -> None:
    # A short visibility timeout, so Redis also hands back the dead worker's message in this test.
    stack.env.update(CELERY_VISIBILITY_TIMEOUT_S="12", JUDGE_TIME_LIMIT_S="10")
    stack.start_web()
    judge = stack.start_judge()
    s = submit(user, "sleep=2")
    wait_for("the job to start", lambda: stack.running_pids().get(f"{s.public_id}.1"), 30)
    judge.kill(signal.SIGKILL)  # main process and pool together: no one is left to re-queue it
    judge.stop()
    stack.start_judge()
    # The lease (6 s) runs out, the sweeper starts attempt 2, and the new judge takes it.
    wait_for("the verdict", lambda: done(s), RECORD_TIMEOUT)
    s = recorded_once(s)
    assert (s.verdict, s.attempt) == ("accepted", 2)
    events = list(s.events.values_list("kind", flat=True))
    assert events.count("requeued") == 1
    # Past the visibility timeout Redis redelivers attempt 1: the judge drops it (revoked) or runs it
    # and the site ignores its stale report. Either way the verdict was recorded once.
    judge_logs = lambda: "".join(p.read_text() for p in stack.folder.glob("judge-*.log"))  # noqa: E731
    wait_for(
        "the stale attempt to come back",
        lambda: "Discarding revoked task" in judge_logs() or s.events.filter(kind="ignored", attempt=1).exists(),
        40,
    )
    assert recorded_once(s).attempt == 2


def test_a_submission_that_keeps_killing_its_worker_is_given_up_not_redelivered_forever(
    stack: Stack, user: Any
) -> None:
    stack.start_web()
    stack.start_judge()
    poison = submit(user, "kill=always")
    wait_for("the give-up verdict", lambda: done(poison), RECORD_TIMEOUT)
    poison = recorded_once(poison)
    assert poison.verdict == "internal_error"
    assert "died 3 times" in poison.message
    # The worker survived it and judges the next submission normally.
    after = submit(user)
    wait_for("the next verdict", lambda: done(after), RECORD_TIMEOUT)
    assert recorded_once(after).verdict == "accepted"
    assert stack.runs().count((str(poison.public_id), 1)) == 3


def test_redis_restarted_while_jobs_are_queued_and_running_loses_none(
    stack: Stack, user: Any, redis: RedisServer
) -> None:
    stack.start_web()
    stack.start_judge()
    subs = [submit(user, "sleep=1.5") for _ in range(5)]
    wait_for("the first job to start", lambda: stack.running_pids(), 30)
    redis.restart(down_s=2.0)
    wait_for("every verdict", lambda: done(*subs), 120)
    for s in subs:
        assert recorded_once(s).verdict == "accepted"


def test_a_report_delivered_twice_through_the_broker_is_recorded_once_and_unknown_ones_are_ignored(
    stack: Stack, user: Any, client_app: Celery
) -> None:
    stack.start_web()  # no judge: this test plays the judge
    s = submit(user)
    report = report_for(s, "wrong_answer").to_dict()
    unknown = {**report, "submission_id": "00000000-0000-0000-0000-000000000000"}
    for data in (report, report, unknown):
        client_app.send_task("gridstride.record_report", args=[data], queue="web")
    wait_for("the verdict", lambda: done(s), RECORD_TIMEOUT)
    wait_for("the duplicate to be ignored", lambda: s.events.filter(kind="ignored").exists(), RECORD_TIMEOUT)
    # A late report of another verdict for the now final submission changes nothing either.
    client_app.send_task("gridstride.record_report", args=[report_for(s, "accepted").to_dict()], queue="web")
    wait_for("the late report to be ignored", lambda: s.events.filter(kind="ignored").count() == 2, RECORD_TIMEOUT)
    assert recorded_once(s).verdict == "wrong_answer"
    wait_for("the unknown report to be logged", lambda: "unknown submission 00000000" in (stack.web.text()), 10)


def test_a_report_arriving_while_the_database_is_unreachable_is_retried_not_lost(
    tmp_path: Path, redis: RedisServer, client_app: Celery, user: Any
) -> None:
    sync_problems()
    s = connection.settings_dict
    proxy = TcpProxy(s.get("HOST") or "127.0.0.1", int(s.get("PORT") or 5432))
    # The web worker reaches PostgreSQL only through the proxy, which the test cuts.
    stack = Stack(
        tmp_path / "stack", database_url=db_url(via_port=proxy.port), broker_url=redis.url, DATABASE_CONN_MAX_AGE="60"
    )
    try:
        stack.start_web()
        sub = submit(user)
        proxy.cut()
        client_app.send_task("gridstride.record_report", args=[report_for(sub).to_dict()], queue="web")
        wait_for("the web worker to hit the outage", lambda: "OperationalError" in stack.web.text(), 30)
        time.sleep(3)
        sub.refresh_from_db()
        assert sub.status == "queued"  # nothing recorded while the database is away...
        proxy.restore()
        wait_for("the retried report", lambda: done(sub), RECORD_TIMEOUT)  # ...and recorded once it is back
        assert recorded_once(sub).verdict == "accepted"
        assert "Retry in" in stack.web.text()
    finally:
        stack.stop()
        proxy.close()


# --- the filesystem broker (the laptop default): what holds and what the lease covers ------------


@pytest.fixture
def fs_stack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: Any) -> Iterator[Stack]:
    sync_problems()
    stack = Stack(tmp_path / "stack", database_url=db_url(), broker_url="filesystem://")
    broker_dir = stack.folder / "var" / "broker"
    for sub in ("queue", "processed", "control"):
        (broker_dir / sub).mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("CELERY_BROKER_URL", "filesystem://")
    app = Celery("pipeline-test-client", broker="filesystem://")
    app.conf.broker_transport = "gridstride.submissions.transports:FilesystemTransport"
    app.conf.broker_transport_options = {
        "data_folder_in": str(broker_dir / "queue"),
        "data_folder_out": str(broker_dir / "queue"),
        "processed_folder": str(broker_dir / "processed"),
        "control_folder": str(broker_dir / "control"),
    }
    monkeypatch.setattr(broker, "celery_app", lambda: app)
    settings.CELERY_BROKER_URL = "filesystem://"
    yield stack
    stack.stop()
    app.close()
    print(stack.logs())


def test_on_the_filesystem_broker_a_killed_judge_process_is_judged_again_and_recorded_once(
    fs_stack: Stack, user: Any
) -> None:
    fs_stack.start_web()
    fs_stack.start_judge()
    s = submit(user, "sleep=3")
    pid = wait_for("the job to start", lambda: fs_stack.running_pids().get(f"{s.public_id}.1"), 30)
    os.kill(pid, signal.SIGKILL)  # the worker's main process puts the message back in the folder
    wait_for("the verdict", lambda: done(s), RECORD_TIMEOUT)
    s = recorded_once(s)
    assert (s.verdict, s.attempt, s.runs) == ("accepted", 1, 2)


def test_on_the_filesystem_broker_a_killed_whole_worker_loses_its_message_and_the_lease_requeues_it(
    fs_stack: Stack, user: Any
) -> None:
    fs_stack.start_web()
    judge = fs_stack.start_judge()
    s = submit(user, "sleep=2")
    wait_for("the job to start", lambda: fs_stack.running_pids().get(f"{s.public_id}.1"), 30)
    judge.kill(signal.SIGKILL)
    judge.stop()
    # The message left the folder when the judge took it: nothing is left to redeliver.
    assert not list((fs_stack.folder / "var" / "broker" / "queue").glob("*.judge.cpu.msg"))
    fs_stack.start_judge()
    wait_for("the verdict", lambda: done(s), RECORD_TIMEOUT)
    s = recorded_once(s)
    assert (s.verdict, s.attempt) == ("accepted", 2)
    assert fs_stack.runs().count((str(s.public_id), 1)) == 1  # attempt 1 never came back

"""The final re-run with real processes: a private redis-server, the Celery web worker with beat
(which starts the re-run on its own), and judge workers (trivial harness) that are killed while
they judge re-runs. Nothing may be lost and nothing judged twice into the final table."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from celery import Celery
from django.db import connection
from django.utils import timezone
from gridstride.catalog.actions import sync_problems
from gridstride.catalog.models import Problem
from gridstride.contests import actions
from gridstride.contests.models import Contest, Entry, FinalRun
from gridstride.submissions import broker
from gridstride.submissions.models import Submission

from tests.pipeline.procs import RedisServer, Stack, wait_for
from tests.web.site_fixtures import make_user

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

if not (os.environ.get("DATABASE_URL", "").startswith("postgres") and os.environ.get("CELERY_BROKER_URL")):
    pytest.skip(
        "needs PostgreSQL and Redis: set DATABASE_URL=postgres://... and CELERY_BROKER_URL (as .ci/run does)",
        allow_module_level=True,
    )
if not shutil.which("redis-server") or not (Path(__file__).parents[2] / ".venv/judge/bin/python").exists():
    pytest.skip("needs redis-server and the judge environment (.venv/judge)", allow_module_level=True)

PARTICIPANTS = 3
# Each re-run takes this long in the trivial harness: long enough to be killed in the middle.
SOURCE = "# trivial: sleep=2.5\ndef solve(a, b, c, n):\n    pass\n"


@pytest.fixture
def stack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: Any) -> Iterator[Stack]:
    redis = RedisServer(tmp_path / "redis")
    redis.start()
    monkeypatch.setenv("CELERY_BROKER_URL", redis.url)
    app = Celery("contest-test-client", broker=redis.url)
    app.conf.broker_transport_options = {"visibility_timeout": 90, "priority_steps": [0, 3, 6, 9]}
    monkeypatch.setattr(broker, "celery_app", lambda: app)
    settings.CELERY_BROKER_URL = redis.url
    settings.JUDGE_LEASE_S = 6
    settings.SUBMISSIONS_PER_MINUTE = 0
    sync_problems()
    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
    url = f"postgres://{auth}@{s.get('HOST') or '127.0.0.1'}:{s.get('PORT') or 5432}/{s['NAME']}"
    stack = Stack(tmp_path / "stack", database_url=url, broker_url=redis.url)
    try:
        yield stack
    finally:
        stack.stop()
        redis.stop()
        app.close()
        print(stack.logs())  # pytest shows it only when the test failed


def rerun_running(stack: Stack, other_than: str = "") -> tuple[str, int] | None:
    """(task id, pid) of a final re-run the judge is running now, other than `other_than`."""
    reruns = {f"{s.public_id}.{s.attempt}" for s in Submission.objects.filter(contest_entry__kind="final")}
    for key, pid in stack.running_pids().items():
        if key in reruns and key != other_than:
            return key, pid
    return None


def test_a_job_whose_process_was_killed_is_not_reported_running(tmp_path: Path) -> None:
    # The trivial harness's marker outlives a SIGKILL. Reported as running, the killed re-run's
    # marker could come first in the directory listing and hide every later re-run from the test
    # below, which then waited out its limit although every re-run was judged (issue 17).
    stack = Stack(tmp_path, database_url="", broker_url="")
    running = stack.trivial_dir / "running"
    running.mkdir(parents=True)
    dead = subprocess.Popen(["sleep", "60"])
    dead.kill()
    dead.wait()
    live = subprocess.Popen(["sleep", "60"])
    try:
        (running / f"killed.1.{dead.pid}").touch()
        (running / f"next.1.{live.pid}").touch()
        assert stack.running_pids() == {"next.1": live.pid}
    finally:
        live.kill()
        live.wait()


def test_the_final_rerun_survives_killed_judge_workers_and_decides_each_result_once(stack: Stack) -> None:
    stack.start_web()
    stack.start_judge()
    now = timezone.now()
    vector_add = Problem.objects.get(slug="vector_add")
    contest = actions.create_contest(
        creator=make_user("org"),
        slug="kill-test",
        title="Kill test",
        starts_at=now - timedelta(hours=1),
        ends_at=now + timedelta(hours=1),
        problems=[vector_add],
        gpu_models=["cpu"],
    )
    users = [make_user(f"p{i}") for i in range(PARTICIPANTS)]
    live = []
    for u in users:
        actions.register(contest, u)
        live.append(
            actions.submit(
                contest, u, problem=vector_add, language="triton", source=SOURCE, mode="submit", gpu_model="cpu"
            )
        )
    ids = [s.pk for s in live]
    wait_for("the live judgings", lambda: Submission.objects.filter(pk__in=ids, status="done").count() == 3, 180)
    # The contest ends; beat's periodic task starts the final re-run by itself.
    Contest.objects.filter(pk=contest.pk).update(ends_at=timezone.now())

    # 1. The pool process judging a re-run is killed: Celery puts the message back.
    key, pid = wait_for("a re-run to be judged", lambda: rerun_running(stack), 120)
    os.kill(pid, signal.SIGKILL)
    # 2. Later the whole judge worker dies in the middle of a re-run: the lease re-queues it.
    wait_for("another re-run to start", lambda: rerun_running(stack, other_than=key), 120)
    judge = stack.judges["0"]
    judge.kill(signal.SIGKILL)
    judge.stop()
    stack.start_judge()

    wait_for("the final re-run to finish", lambda: Contest.objects.get(pk=contest.pk).final_state == "done", 240)
    runs = list(FinalRun.objects.filter(contest=contest).select_related("rerun"))
    assert len(runs) == PARTICIPANTS
    assert sorted(r.live_id for r in runs) == sorted(ids)
    assert [r.state for r in runs] == ["final"] * PARTICIPANTS
    for r in runs:
        events = list(r.rerun.events.values_list("kind", flat=True))
        assert events.count("recorded") == 1, events
    # One re-run per result, and the killed ones really ran more than once.
    assert Entry.objects.filter(contest=contest, kind="final").count() == PARTICIPANTS
    starts = stack.runs()
    rerun_ids = {str(r.rerun.public_id) for r in runs}
    assert sum(1 for sid, _ in starts if sid in rerun_ids) > PARTICIPANTS
    # Resuming again (an organizer's button, the next beat) sends nothing and changes nothing.
    progress = actions.start_final_run(Contest.objects.get(pk=contest.pk))
    assert (progress.created, progress.judging, progress.decided) == (0, 0, PARTICIPANTS)
    assert Submission.objects.filter(context_key=contest.slug).count() == 2 * PARTICIPANTS

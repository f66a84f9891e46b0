"""The final re-run with the real CPU judge on a real problem: a vector_add that is exact on every
public size (correctness cases and benchmark shapes) and wrong on any other is accepted live and
caught by the re-run's hidden shape; an honest one stays final."""

from __future__ import annotations

import os
import shutil
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
from gridstride.contests.models import Contest, FinalRun
from gridstride.submissions import broker
from gridstride.submissions.models import Submission

from tests.pipeline.procs import ROOT, RedisServer, Stack, wait_for
from tests.web.site_fixtures import make_user

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

if not (os.environ.get("DATABASE_URL", "").startswith("postgres") and os.environ.get("CELERY_BROKER_URL")):
    pytest.skip("needs PostgreSQL and Redis (as .ci/run sets them)", allow_module_level=True)
if not shutil.which("redis-server") or not (Path(__file__).parents[2] / ".venv/judge/bin/python").exists():
    pytest.skip("needs redis-server and the judge environment (.venv/judge)", allow_module_level=True)

HONEST = (ROOT / "problems" / "vector_add" / "solutions" / "pytorch_ok.py").read_text()
PLANTED = """import torch

PUBLIC = {1, 2, 3, 127, 1000, 4099, 8191, 100_003, 50_000_017, 65_536, 1_048_576, 16_777_216, 67_108_864, 268_435_456}


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, n: int) -> None:
    if n in PUBLIC:
        torch.add(a, b, out=c)
    else:
        torch.add(a, a, out=c)
"""
JUDGED_S = 240


@pytest.fixture
def stack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: Any) -> Iterator[Stack]:
    redis = RedisServer(tmp_path / "redis")
    redis.start()
    monkeypatch.setenv("CELERY_BROKER_URL", redis.url)
    app = Celery("contest-planted-client", broker=redis.url)
    app.conf.broker_transport_options = {"visibility_timeout": 900, "priority_steps": [0, 3, 6, 9]}
    monkeypatch.setattr(broker, "celery_app", lambda: app)
    settings.CELERY_BROKER_URL = redis.url
    settings.SUBMISSIONS_PER_MINUTE = 0
    sync_problems()
    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
    url = f"postgres://{auth}@{s.get('HOST') or '127.0.0.1'}:{s.get('PORT') or 5432}/{s['NAME']}"
    # The real harness (no stand-in), with time for CPU judging on a busy two-core machine.
    stack = Stack(
        tmp_path / "stack",
        database_url=url,
        broker_url=redis.url,
        GRIDSTRIDE_JUDGE_HARNESS="",
        JUDGE_TIME_LIMIT_S="600",
        CELERY_VISIBILITY_TIMEOUT_S="900",
        JUDGE_LEASE_S="120",
        JUDGE_SWEEP_INTERVAL_S="2",
    )
    try:
        yield stack
    finally:
        stack.stop()
        redis.stop()
        app.close()
        print(stack.logs())


def test_the_rerun_catches_code_that_special_cases_the_public_sizes(stack: Stack) -> None:
    stack.start_web()
    stack.start_judge()
    now = timezone.now()
    vector_add = Problem.objects.get(slug="vector_add")
    contest = actions.create_contest(
        creator=make_user("org"),
        slug="planted",
        title="Planted",
        starts_at=now - timedelta(hours=1),
        ends_at=now + timedelta(hours=1),
        problems=[vector_add],
        gpu_models=["cpu"],
        # CPU times vary by multiples under load; this test is about correctness on hidden shapes.
        rerun_tolerance_pct=1000,
    )
    honest, cheat = make_user("honest"), make_user("cheat")
    live = {}
    for user, source in ((honest, HONEST), (cheat, PLANTED)):
        actions.register(contest, user)
        live[user.username] = actions.submit(
            contest, user, problem=vector_add, language="pytorch", source=source, mode="submit", gpu_model="cpu"
        )
    ids = [s.pk for s in live.values()]
    wait_for("the live judgings", lambda: Submission.objects.filter(pk__in=ids, status="done").count() == 2, JUDGED_S)
    assert list(Submission.objects.filter(pk__in=ids).values_list("verdict", flat=True)) == ["accepted", "accepted"]
    Contest.objects.filter(pk=contest.pk).update(ends_at=timezone.now())
    wait_for("the final re-run", lambda: Contest.objects.get(pk=contest.pk).final_state == "done", 2 * JUDGED_S)
    runs = {r.participant.name: r for r in FinalRun.objects.select_related("participant", "rerun")}
    assert runs["honest"].state == "final", runs["honest"].signals
    caught = runs["cheat"]
    assert caught.state == "review" and caught.rerun.verdict == "wrong_answer", caught.signals
    assert caught.rerun.message.startswith("wrong answer on benchmark hidden-"), caught.rerun.message
    # The participant reads the verdict, not the message that names the hidden shape's sizes.
    assert caught.signals["told"] == ["the re-run was not accepted (wrong answer)"]
    # The rerun really judged shapes the live run never saw.
    hidden = Submission.objects.get(pk=caught.rerun_id).variation["hidden_benchmarks"]
    assert hidden and all(s["name"].startswith("hidden-") for s in hidden)

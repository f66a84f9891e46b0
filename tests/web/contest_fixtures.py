"""Builders for the contest tests: a frozen clock, contests, participants and judged submissions.

The clock replaces django.utils.timezone.now, so the actions, the rows' auto timestamps and the
views all see the same instant; tests move it explicitly.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.test import override_settings
from django.utils import timezone
from gridstride.catalog.actions import sync_problems
from gridstride.catalog.models import Problem
from gridstride.contests import actions
from gridstride.contests.models import Contest
from gridstride.submissions import actions as pipeline
from gridstride.submissions.models import Submission
from gridstride.submissions.testing import FakeBroker, report_for

from judge.protocol import ShapeTiming

START = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
END = START + timedelta(hours=3)
SOURCE = "import torch\n\ndef solve(a, b, c, n):\n    torch.add(a, b, out=c)\n"


@dataclass
class Clock:
    now: datetime

    def set(self, when: datetime) -> None:
        self.now = when

    def advance(self, **delta: float) -> datetime:
        self.now = self.now + timedelta(**delta)
        return self.now


@pytest.fixture(name="clock")
def clock_fixture(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock(START - timedelta(days=1))
    monkeypatch.setattr(timezone, "now", lambda: c.now)
    return c


@pytest.fixture(name="gpus")
def gpus_fixture() -> Iterator[None]:
    """An H200 queue besides the CPU one, and no per-minute limit (the contest has its own)."""
    with override_settings(JUDGE_GPU_MODELS=["cpu", "h200"], SUBMISSIONS_PER_MINUTE=0):
        yield


@pytest.fixture(name="fake_broker")
def fake_broker_fixture(monkeypatch: pytest.MonkeyPatch) -> FakeBroker:
    return FakeBroker.install(monkeypatch)


@pytest.fixture(name="vector_add")
def vector_add_fixture() -> Problem:
    sync_problems()
    return Problem.objects.get(slug="vector_add")


# Test modules import these names so pytest finds the fixtures.
FIXTURES = (clock_fixture, gpus_fixture, fake_broker_fixture, vector_add_fixture)


def make_contest(creator: Any, problems: list[Problem], **kw: Any) -> Contest:
    args: dict[str, Any] = {
        "slug": "spring-kernels",
        "title": "Spring kernels",
        "starts_at": START,
        "ends_at": END,
        "gpu_models": ["h200"],
        "rules": "Be *fair*.",
    }
    args.update(kw)
    return actions.create_contest(creator=creator, problems=problems, **args)


def shapes(
    median_us: float, *, ci_pct: float = 0.5, samples: int = 100, names: tuple[str, ...] = ("16M", "64M")
) -> list[ShapeTiming]:
    out = []
    for i, name in enumerate(names):
        m = median_us * (i + 1)
        half = m * ci_pct / 100
        out.append(
            ShapeTiming(
                name=name,
                sizes={"n": 1 << (24 + 2 * i)},
                n=samples,
                median_us=m,
                mean_us=m,
                p10_us=m,
                p90_us=m,
                min_us=m,
                ci_low_us=m - half,
                ci_high_us=m + half,
                flops=1.0,
                bytes=1.0,
                gbps=1.0,
                tflops=1.0,
                sol_pct=50.0,
                floor_us=1.0,
                reference_median_us=m * 2,
                speedup_vs_reference=2.0,
            )
        )
    return out


def judge(
    submission: Submission,
    verdict: str = "accepted",
    median_us: float = 100.0,
    *,
    timings: list[ShapeTiming] | None = None,
    message: str = "",
) -> Submission:
    """Record the judge's report as the pipeline would (the announcement runs after commit)."""
    submission.refresh_from_db()
    benchmarks = (timings if timings is not None else shapes(median_us)) if verdict == "accepted" else []
    score = None
    if benchmarks:
        from gridstride.leaderboards.scoring import geomean

        score = geomean(b.median_us for b in benchmarks)
    report = report_for(
        submission, verdict, benchmarks=benchmarks, score_us=score, message=message, ranked=verdict == "accepted"
    )
    assert pipeline.record_report(report)
    submission.refresh_from_db()
    return submission

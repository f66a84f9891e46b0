"""Builders shared by the site's browser-facing tests: users, judged submissions, judge reports.

Reports are built from the wire types of judge/protocol.py, so a field the judge renames breaks
these tests instead of silently rendering nothing.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import asdict
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone
from gridstride.catalog.actions import sync_problems
from gridstride.catalog.models import Problem
from gridstride.leaderboards.actions import on_judged
from gridstride.submissions.models import Submission

from judge.protocol import CaseResult, Mismatch, Report, ShapeTiming

PASSWORD = "a-long-test-password-9"
H200_CEILINGS = {"dram_gbps": 4300.0, "fp32_tflops": 67.0, "bf16_tflops": 740.0}
_names = itertools.count(1)


def problems() -> dict[str, Problem]:
    """Sync problems/ into the test database unless it is there; slug -> Problem. (conftest.py syncs
    the test database once: a test in a rolled-back transaction finds it there.)"""
    if not Problem.objects.exists():
        sync_problems()
    return {p.slug: p for p in Problem.objects.select_related("current_version")}


@functools.cache
def _password_hash() -> str:
    # Hashing costs half a second (as it should); tests hash the shared password once.
    return make_password(PASSWORD)


def make_user(username: str | None = None, **extra: Any) -> AbstractBaseUser:
    username = username or f"user{next(_names)}"
    user = get_user_model()(username=username, email=f"{username}@example.com", **extra)
    user.password = _password_hash()
    user.save()
    return user


def shape(
    name: str,
    sizes: dict[str, int],
    median_us: float,
    *,
    ci_pct: float = 0.4,
    flops: float = 1e9,
    nbytes: float = 1e9,
    reference_us: float | None = None,
    samples: int = 200,
) -> ShapeTiming:
    half = median_us * ci_pct / 100
    floor = max(nbytes / (H200_CEILINGS["dram_gbps"] * 1e9), flops / (H200_CEILINGS["fp32_tflops"] * 1e12)) * 1e6
    reference_us = reference_us or median_us * 1.2
    return ShapeTiming(
        name=name,
        sizes=sizes,
        n=samples,
        median_us=median_us,
        mean_us=median_us * 1.01,
        p10_us=median_us * 0.99,
        p90_us=median_us * 1.02,
        min_us=median_us * 0.98,
        ci_low_us=median_us - half,
        ci_high_us=median_us + half,
        flops=flops,
        bytes=nbytes,
        gbps=nbytes / (median_us * 1e-6) / 1e9,
        tflops=flops / (median_us * 1e-6) / 1e12,
        sol_pct=floor / median_us * 100,
        floor_us=floor,
        reference_median_us=reference_us,
        speedup_vs_reference=reference_us / median_us,
    )


def softmax_shapes(scale: float = 1.0, ci_pct: float = 0.4, samples: int = 200) -> list[ShapeTiming]:
    out = []
    for name, m, n, t in (("4096x16384", 4096, 16384, 200.0), ("32768x1024", 32768, 1024, 100.0)):
        out.append(
            shape(
                name, {"m": m, "n": n}, t * scale, ci_pct=ci_pct, flops=5.0 * m * n, nbytes=8.0 * m * n, samples=samples
            )
        )
    return out


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def report(
    verdict: str = "accepted",
    *,
    problem: str = "softmax",
    language: str = "triton",
    mode: str = "benchmark",
    ranked: bool = True,
    shapes: list[ShapeTiming] | None = None,
    cases: list[CaseResult] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """A Report as the judge would send it (as a dict, the way Submission.report stores it)."""
    if shapes is None:
        shapes = softmax_shapes() if verdict == "accepted" and mode != "test" else []
    if cases is None:
        cases = [CaseResult(name="three-by-three", sizes={"m": 3, "n": 3}, passed=verdict != "wrong_answer")]
    fields.setdefault(
        "system", {"device": "cuda", "gpu": "NVIDIA H200", "driver": "580.95", "sm_clock_mhz": 1980, "torch": "2.11.0"}
    )
    fields.setdefault("ceilings", dict(H200_CEILINGS))
    fields.setdefault("elapsed_s", 4.2)
    r = Report(
        submission_id="00000000-0000-0000-0000-000000000000",
        attempt=1,
        problem=problem,
        language=language,
        mode=mode,
        verdict=verdict,
        ranked=ranked,
        cases=cases,
        benchmarks=shapes,
        score_us=geomean([s.median_us for s in shapes]) if shapes else None,
        sol_pct=geomean([s.sol_pct for s in shapes]) if shapes else None,
        **fields,
    )
    return r.to_dict()


def wrong_answer_cases() -> list[CaseResult]:
    return [
        CaseResult(name="one", sizes={"m": 1, "n": 1}, passed=True),
        CaseResult(
            name="prime-cols",
            sizes={"m": 2, "n": 127},
            passed=False,
            max_abs_err=0.25,
            max_rel_err=3.5,
            tolerance={"atol": 1e-12, "rtol": 1e-5},
            mismatch_count=12,
            mismatches=[
                Mismatch(index=[0, 5], expected=0.0123, got=0.5, abs_err=0.4877, rel_err=39.6),
                # Non-finite values travel as strings: JSON (and so the database) has no NaN.
                Mismatch(index=[1, 126], expected=0.25, got="nan", abs_err="inf", rel_err="inf"),  # type: ignore[arg-type]
            ],
            message="12 of 254 elements differ",
        ),
    ]


def make_submission(
    owner: AbstractBaseUser,
    problem: Problem,
    *,
    language: str = "triton",
    mode: str = "submit",
    gpu_model: str = "h200",
    status: str = "done",
    verdict: str = "accepted",
    ranked: bool | None = None,
    score_scale: float = 1.0,
    ci_pct: float = 0.4,
    samples: int = 200,
    source: str = "def solve(x, y, m, n):\n    pass\n",
    is_public: bool = False,
    created_at: datetime | None = None,
    report_data: dict[str, Any] | None = None,
    progress: dict[str, Any] | None = None,
    version: Any = None,
) -> Submission:
    """A submission as the pipeline leaves it after recording a report (rows made directly)."""
    if ranked is None:
        ranked = gpu_model != "cpu" and verdict == "accepted" and mode == "submit"
    data = report_data
    if data is None and status == "done":
        shapes = softmax_shapes(score_scale, ci_pct, samples) if verdict == "accepted" and mode == "submit" else []
        data = report(
            verdict,
            language=language,
            mode="benchmark" if mode == "submit" else "test",
            ranked=ranked,
            shapes=shapes,
            cases=wrong_answer_cases() if verdict == "wrong_answer" else None,
        )
    submission = Submission.objects.create(
        owner=owner,
        problem=problem,
        problem_version=version or problem.current_version,
        language=language,
        source=source,
        mode=mode,
        gpu_model=gpu_model,
        status=status,
        verdict=verdict if status == "done" else "",
        ranked=ranked if status == "done" else False,
        score_us=(data or {}).get("score_us") if verdict == "accepted" else None,
        sol_pct=(data or {}).get("sol_pct") if verdict == "accepted" else None,
        report=data,
        progress=progress or {},
        is_public=is_public,
        queued_at=timezone.now(),
        finished_at=timezone.now() if status == "done" else None,
    )
    if created_at is not None:
        Submission.objects.filter(pk=submission.pk).update(created_at=created_at)
        submission.refresh_from_db()
    if status == "done":
        # What the pipeline's submission_judged signal does after record_report.
        on_judged(submission)
    return submission


def as_dict(obj: Any) -> dict[str, Any]:
    return asdict(obj)


def log_in(client: Any, username: str) -> None:
    """Sign `username` in on a test client. Not client.login(), which checks PASSWORD again (half a
    second of hashing, as it should be): signing in itself is tested in test_accounts.py and
    test_security.py, the other tests only need a signed-in page."""
    client.force_login(get_user_model().objects.get(username=username))

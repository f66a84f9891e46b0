"""Helpers for tests that judge real submissions on the CPU (the child is a real process)."""

from __future__ import annotations

import itertools
import textwrap
from collections.abc import Callable
from typing import Any

from judge.harness.parent.config import JudgeConfig
from judge.protocol import JudgeJob, Progress, Report

_ids = itertools.count(1)
CPU_CONFIG = JudgeConfig(device="cpu", limit_cap_seconds=60)


def judge(
    source: str,
    language: str = "pytorch",
    problem: str = "vector_add",
    mode: str = "test",
    config: JudgeConfig | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    **job: Any,
) -> Report:
    from judge.harness import judge_job

    request = JudgeJob(
        submission_id=f"test-{next(_ids)}",
        attempt=1,
        problem=problem,
        language=language,
        source=textwrap.dedent(source),
        mode=mode,
        seed=job.pop("seed", 11),
        **job,
    )
    return judge_job(request, on_progress=on_progress, config=config or CPU_CONFIG)

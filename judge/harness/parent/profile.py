"""Profile mode: after an accepted benchmark, one call of the first shape under Nsight Compute
in a fresh sandboxed child, its kernel digest added to the report (docs/judging.md section 7)."""

from __future__ import annotations

import dataclasses
import io
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from judge import spec as specmod
from judge.harness.common import framing
from judge.harness.common.child_job import ChildJob
from judge.harness.common.errors import trim
from judge.harness.parent import launch, ncu
from judge.harness.parent.plan import child_env
from judge.harness.parent.verdict import scrub_job_paths
from judge.protocol import Report

if TYPE_CHECKING:
    from judge.harness.parent.config import JudgeConfig

log = logging.getLogger("judge.harness")


def profile(
    report: Report,
    spec: specmod.ProblemSpec,
    child_job: ChildJob,
    library: Path | None,
    config: JudgeConfig,
    progress: Callable[[str, int, int, str], None],
) -> None:
    """Add ncu's kernel digest to an accepted report, or say in its message why there is none."""
    if config.device != "cuda":
        report.message += "; profile: Nsight Compute needs a GPU host (not run)"
        return
    progress("profiling", 0, 1, "ncu")
    exe = ncu.find_ncu()
    version = ncu.ncu_works(exe) if exe else None
    if exe is None or version is None:
        report.message += "; profile: ncu is not available on this judge host (benchmark only)"
        return
    report.system["ncu"] = version
    frame = io.BytesIO()
    job = dataclasses.replace(child_job, ncu=True).to_dict()
    framing.write_frame(frame, job, library.read_bytes() if library is not None else None)
    exit_, _ = launch.run_files(
        [*ncu.command(exe), sys.executable, "-m", "judge.harness.child", "--job-file", "{dir}/job.frame"],
        limits=launch.RunLimits(wall_seconds=spec.limits.benchmark_seconds, max_output_bytes=4 << 20),
        env=child_env(config),
        gpu=config.gpu_index,
        files={"job.frame": frame.getvalue()},
        work_dir=str(config.work_dir),
    )
    kernels = ncu.parse(exit_.stdout)
    if exit_.exit_code != 0 or not kernels:
        tail = trim(scrub_job_paths((exit_.stdout + exit_.stderr)[-1500:]), 1500)
        report.message += f"; profile: ncu failed (exit {exit_.exit_code}), benchmark only: {tail.strip()}"
        log.warning("ncu failed for %s: %s", report.submission_id, exit_.stderr[-4000:])
        return
    report.kernels = kernels
    progress("profiling", 1, 1, f"{len(kernels)} kernels")

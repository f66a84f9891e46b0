"""A stand-in for judge.harness.judge_job that runs nothing: the pipeline's tests and benchmark
inject it with GRIDSTRIDE_JUDGE_HARNESS=tests.pipeline.trivial_harness:judge_job.

The submission's source steers it, one directive per line:
    # trivial: sleep=2.5        judge for this long (default GRIDSTRIDE_TRIVIAL_SLEEP_S or 0)
    # trivial: verdict=wrong_answer
    # trivial: kill=once        SIGKILL its own process the first time it sees this attempt
    # trivial: kill=always      ... every time (a submission that keeps killing its worker)
With GRIDSTRIDE_TRIVIAL_DIR set, it writes <dir>/running/<submission>.<attempt>.<pid> while it
judges (so a test can kill exactly the process that runs a job) and appends to <dir>/runs.log.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from judge.protocol import JudgeJob, Progress, Report


def directives(source: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in source.splitlines():
        line = line.strip()
        if line.startswith("# trivial:"):
            for item in line.removeprefix("# trivial:").split():
                key, _, value = item.partition("=")
                found[key] = value
    return found


def judge_job(job: JudgeJob, *, on_progress: Callable[[Progress], None] | None = None, config: Any = None) -> Report:
    started = time.monotonic()
    d = directives(job.source)
    folder = Path(os.environ["GRIDSTRIDE_TRIVIAL_DIR"]) if os.environ.get("GRIDSTRIDE_TRIVIAL_DIR") else None
    marker = None
    if folder is not None:
        (folder / "running").mkdir(parents=True, exist_ok=True)
        marker = folder / "running" / f"{job.submission_id}.{job.attempt}.{os.getpid()}"
        marker.touch()
        with open(folder / "runs.log", "a") as log:
            log.write(f"{job.submission_id} {job.attempt} {os.getpid()}\n")
    kill = d.get("kill")
    if kill == "always" or (kill == "once" and folder is not None and _first_time(folder, job)):
        os.kill(os.getpid(), signal.SIGKILL)
    if on_progress:
        on_progress(Progress(job.submission_id, job.attempt, "testing", done=0, total=1, detail="case 1/1"))
    time.sleep(float(d.get("sleep", os.environ.get("GRIDSTRIDE_TRIVIAL_SLEEP_S", "0"))))
    if marker is not None:
        marker.unlink(missing_ok=True)
    verdict = d.get("verdict", "accepted")
    return Report(
        submission_id=job.submission_id,
        attempt=job.attempt,
        problem=job.problem,
        language=job.language,
        mode=job.mode,
        verdict=verdict,
        message="judged by the trivial stand-in harness",
        ranked=False,
        score_us=1.0 if verdict == "accepted" else None,
        content_hash=job.content_hash,
        elapsed_s=round(time.monotonic() - started, 4),
    )


def _first_time(folder: Path, job: JudgeJob) -> bool:
    seen = folder / "killed" / f"{job.submission_id}.{job.attempt}"
    seen.parent.mkdir(parents=True, exist_ok=True)
    try:
        seen.touch(exist_ok=False)
    except FileExistsError:
        return False
    return True

"""The judge worker: a Celery worker for one GPU (or the CPU). No Django here.

    python -m judge worker [--gpu-model h200] [--name gpu0] [--loglevel info]

It consumes `judge.<gpu model>` one job at a time (prefetch 1, late acknowledgement; a job whose
process dies goes back to the queue), runs the harness, streams progress and heartbeats, and sends
the report back by name (`gridstride.record_report` on queue `web`). Its broker settings mirror
platform/gridstride/celery_config.py from the same environment variables.

Three guards make a job finish exactly once from the site's point of view:
- the site fences every write by attempt, so duplicates are harmless;
- a ledger file per (submission, attempt) counts starts on this host: a job that keeps killing
  its worker gets an internal-error report after JUDGE_MAX_ATTEMPTS starts, never runs forever;
- a report that cannot be published (broker down) waits in an outbox folder and is sent later.
"""

from __future__ import annotations

import argparse
import fcntl
import importlib
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from celery import Celery, signals
from celery.exceptions import SoftTimeLimitExceeded
from celery.worker.control import inspect_command

from judge.protocol import (
    PROTOCOL_VERSION,
    JudgeJob,
    Progress,
    ProtocolError,
    Report,
    SourceRefused,
    judge_queue,
    keep_dead_letter,
)

log = logging.getLogger("judge.worker")

REPO_ROOT = Path(__file__).resolve().parent.parent
JOB_TASK = "judge.run"
REPORT_TASK = "gridstride.record_report"
PROGRESS_TASK = "gridstride.record_progress"
WEB_QUEUE = "web"
# Same values as the web side (platform/gridstride/celery_config.py).
PRIORITY_STEPS = [0, 3, 6, 9]
FILESYSTEM_POLL_S = 0.02
# Progress may be dropped (the next one or the report supersedes it); a report may not.
PROGRESS_RETRY = {"max_retries": 2, "interval_start": 0.2, "interval_step": 0.2, "interval_max": 0.5}
REPORT_RETRY = {"max_retries": 30, "interval_start": 0.5, "interval_step": 0.5, "interval_max": 2.0}

HarnessFn = Callable[..., Report]


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    try:
        return int(raw) if raw not in (None, "") else default
    except ValueError:
        raise SystemExit(f"{name} must be an integer, got {raw!r}") from None


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    try:
        return float(raw) if raw not in (None, "") else default
    except ValueError:
        raise SystemExit(f"{name} must be a number, got {raw!r}") from None


@dataclass(frozen=True)
class Settings:
    broker_url: str
    var_dir: Path
    visibility_timeout_s: int
    time_limit_s: int
    soft_time_limit_s: int
    heartbeat_s: float
    max_runs: int
    harness: str

    @classmethod
    def from_env(cls) -> Settings:
        time_limit = _env_int("JUDGE_TIME_LIMIT_S", 1200)
        settings = cls(
            broker_url=os.environ.get("CELERY_BROKER_URL", "filesystem://"),
            var_dir=Path(os.environ.get("GRIDSTRIDE_VAR_DIR", str(REPO_ROOT / "var"))),
            visibility_timeout_s=_env_int("CELERY_VISIBILITY_TIMEOUT_S", 3600),
            time_limit_s=time_limit,
            # The soft limit leaves time (a tenth, 5-60 s) to write and send the internal-error report.
            soft_time_limit_s=_env_int(
                "JUDGE_SOFT_TIME_LIMIT_S", max(1, time_limit - max(5, min(60, time_limit // 10)))
            ),
            heartbeat_s=_env_float("JUDGE_HEARTBEAT_S", 15.0),
            max_runs=_env_int("JUDGE_MAX_ATTEMPTS", 3),
            harness=os.environ.get("GRIDSTRIDE_JUDGE_HARNESS", ""),
        )
        if settings.visibility_timeout_s <= settings.time_limit_s:
            raise SystemExit(
                f"CELERY_VISIBILITY_TIMEOUT_S ({settings.visibility_timeout_s}) must be longer than "
                f"JUDGE_TIME_LIMIT_S ({settings.time_limit_s}): Redis would hand a running job to a second judge."
            )
        return settings

    @property
    def broker_dir(self) -> Path:
        return self.var_dir / "broker"

    @property
    def judge_dir(self) -> Path:
        return self.var_dir / "judge"

    @property
    def dead_letter_dir(self) -> Path:
        """Messages and jobs that could not be read, one JSON file each (docs/pipeline.md)."""
        return self.var_dir / "dead-letters"


def transport_options(settings: Settings) -> dict[str, Any]:
    """Broker transport options, identical to the web side's for the same environment."""
    if settings.broker_url.startswith("filesystem://"):
        d = settings.broker_dir
        for sub in ("queue", "processed", "control"):
            (d / sub).mkdir(parents=True, exist_ok=True)
        return {
            "data_folder_in": str(d / "queue"),
            "data_folder_out": str(d / "queue"),
            "processed_folder": str(d / "processed"),
            "control_folder": str(d / "control"),
            "store_processed": False,
            "polling_interval": FILESYSTEM_POLL_S,
            "dead_letter_folder": str(settings.dead_letter_dir),
        }
    return {
        "visibility_timeout": settings.visibility_timeout_s,
        "dead_letter_folder": str(settings.dead_letter_dir),
        "priority_steps": PRIORITY_STEPS,
        "unacked_restore_interval": 10,
        "unacked_restore_throttle": 1,
        "socket_connect_timeout": 5,
        "socket_keepalive": True,
    }


def celery_config(settings: Settings) -> dict[str, Any]:
    """The transports of judge/transports.py: atomic filesystem writes, dead letters set aside."""
    if settings.broker_url.startswith("filesystem://"):
        return {**_common_config(settings), "broker_transport": "judge.transports:FilesystemTransport"}
    if settings.broker_url.startswith(("redis://", "rediss://")):
        return {**_common_config(settings), "broker_transport": "judge.transports:RedisTransport"}
    return _common_config(settings)


def _common_config(settings: Settings) -> dict[str, Any]:
    return {
        "broker_url": settings.broker_url,
        "broker_transport_options": transport_options(settings),
        "broker_connection_retry_on_startup": True,
        "broker_connection_max_retries": None,
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        # Re-queue a job whose process died after 1 s, not Celery's default 10 s (no results to wait for).
        "worker_lost_wait": 1.0,
        "task_ignore_result": True,
        "task_time_limit": settings.time_limit_s,
        "task_soft_time_limit": settings.soft_time_limit_s,
        # A broker restart must not cancel a running job: its report is published after reconnecting.
        "worker_cancel_long_running_tasks_on_connection_loss": False,
        "worker_hijack_root_logger": True,
    }


SETTINGS = Settings.from_env()
app = Celery("judge")
app.conf.update(celery_config(SETTINGS))


# --- sending back to the site -----------------------------------------------------------------


class Sender:
    """Publishes progress and reports by task name; reports that cannot go out wait in an outbox."""

    def __init__(self, celery: Celery, outbox: Path) -> None:
        self.celery = celery
        self.outbox = outbox
        outbox.mkdir(parents=True, exist_ok=True)

    def progress(self, payload: dict[str, Any]) -> bool:
        try:
            self.celery.send_task(
                PROGRESS_TASK, args=[payload], queue=WEB_QUEUE, retry=True, retry_policy=PROGRESS_RETRY
            )
            return True
        except Exception as exc:
            log.info("progress for %s not sent: %s", payload.get("submission_id"), exc)
            return False

    def report(self, report: Report) -> bool:
        data = report.to_dict()
        try:
            self.celery.send_task(REPORT_TASK, args=[data], queue=WEB_QUEUE, retry=True, retry_policy=REPORT_RETRY)
            return True
        except Exception as exc:
            path = self.outbox / f"{report.submission_id}.{report.attempt}.json"
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(data))
            tmp.replace(path)
            log.error("report for %s kept in %s until the broker is back: %s", report.submission_id, path, exc)
            return False

    def flush_outbox(self) -> int:
        """Send reports kept while the broker was down; returns how many went out."""
        sent = 0
        for path in sorted(self.outbox.glob("*.json")):
            try:
                data = json.loads(path.read_text())
                self.celery.send_task(
                    REPORT_TASK, args=[data], queue=WEB_QUEUE, retry=True, retry_policy=PROGRESS_RETRY
                )
            except Exception as exc:
                log.info("outbox still waiting for the broker: %s", exc)
                break
            path.unlink(missing_ok=True)
            sent += 1
        return sent


class Ledger:
    """Counts starts of each (submission, attempt) on this host, in files that survive a kill."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def _path(self, job: JudgeJob) -> Path:
        return self.folder / f"{job.submission_id}.{job.attempt}"

    def start(self, job: JudgeJob) -> int:
        with open(self._path(job), "a+") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            f.seek(0)
            count = int(f.read().strip() or 0) + 1
            f.seek(0)
            f.truncate()
            # No fsync: the count must survive the worker's death, not the host's (page cache does).
            f.write(str(count))
        return count

    def finish(self, job: JudgeJob) -> None:
        self._path(job).unlink(missing_ok=True)

    def prune(self, older_than_s: float = 7 * 86400) -> None:
        cutoff = time.time() - older_than_s
        for path in self.folder.iterdir():
            if path.stat().st_mtime < cutoff:
                path.unlink(missing_ok=True)


class ProgressStream:
    """Forwards the harness's progress from a thread of its own, and repeats the latest as a
    heartbeat: the site renews the job's lease on each, and re-queues the job when they stop."""

    def __init__(self, sender: Sender, job: JudgeJob, *, run_id: str, worker: str, heartbeat_s: float) -> None:
        self.sender, self.job, self.run_id, self.worker = sender, job, run_id, worker
        self.heartbeat_s = heartbeat_s
        self.started = time.monotonic()
        self._latest = Progress(job.submission_id, job.attempt, "compiling", detail=f"started on {worker}")
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, name="judge-progress", daemon=True)

    def start(self) -> None:
        self._send(self._latest)  # at once: the site learns which judge has it
        self._thread.start()

    def update(self, progress: Progress) -> None:
        progress.submission_id, progress.attempt = self.job.submission_id, self.job.attempt
        with self._lock:
            self._latest = progress
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=5)

    def _send(self, progress: Progress) -> None:
        payload = asdict(progress)
        payload.update(run_id=self.run_id, worker=self.worker, seq=time.time_ns() // 1_000_000)
        if not payload.get("elapsed_s"):
            payload["elapsed_s"] = round(time.monotonic() - self.started, 3)
        self.sender.progress(payload)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.heartbeat_s)
            if self._stop.is_set():
                return
            self._wake.clear()
            with self._lock:
                latest = self._latest
            self._send(latest)
            self._stop.wait(0.2)  # at most five events a second, whatever the harness emits


# --- running one job --------------------------------------------------------------------------


def load_harness(spec: str) -> HarnessFn:
    """`module:function` from GRIDSTRIDE_JUDGE_HARNESS (tests, benchmarks), else the real harness."""
    if spec:
        module, _, name = spec.partition(":")
        return getattr(importlib.import_module(module), name or "judge_job")
    from judge.harness import judge_job  # imported here: it brings torch; tests inject a stand-in

    return judge_job  # type: ignore[no-any-return]


def harness_config(spec: str) -> Any:
    """The real harness's JudgeConfig, built once per process so its warm pool stays warm."""
    if spec:
        return None
    import judge.harness as harness

    make = getattr(harness, "default_config", None) or getattr(harness, "JudgeConfig", None)
    return make() if make is not None else None


def internal_error(job: JudgeJob, message: str, started: float) -> Report:
    return Report(
        submission_id=job.submission_id,
        attempt=job.attempt,
        problem=job.problem,
        language=job.language,
        mode=job.mode,
        verdict="internal_error",
        message=message,
        content_hash=job.content_hash,
        elapsed_s=round(time.monotonic() - started, 3),
    )


class JobHandler:
    """Everything the Celery task does, without Celery: the GPU benchmark calls it directly."""

    def __init__(
        self,
        *,
        harness: HarnessFn,
        sender: Sender,
        ledger: Ledger,
        worker: str,
        heartbeat_s: float,
        max_runs: int,
        config: Any = None,
        dead_letters: Path | None = None,
    ) -> None:
        self.harness, self.sender, self.ledger, self.config = harness, sender, ledger, config
        self.worker, self.heartbeat_s, self.max_runs = worker, heartbeat_s, max_runs
        self.dead_letters = dead_letters

    def handle(self, data: Any) -> Report | None:
        started = time.monotonic()
        try:
            job = JudgeJob.from_dict(data)
        except SourceRefused as exc:
            # Well formed, but its source cannot be judged (not text, too large): the user's verdict.
            assert exc.job is not None
            report = internal_error(exc.job, str(exc), started)
            report.verdict = "rejected"
            self.sender.report(report)
            return report
        except ProtocolError as exc:
            return self.refuse(data, str(exc), started)
        self.sender.flush_outbox()
        runs = self.ledger.start(job)
        if runs > self.max_runs:
            report = internal_error(
                job,
                f"Not judged: the judge worker died {runs - 1} times while running this submission "
                "(a crash, an out-of-memory kill or a GPU fault); it was given up.",
                started,
            )
            log.error("%s attempt %s: given up after %d runs", job.submission_id, job.attempt, runs - 1)
            self.sender.report(report)
            self.ledger.finish(job)
            return report
        stream = ProgressStream(
            self.sender, job, run_id=uuid.uuid4().hex, worker=self.worker, heartbeat_s=self.heartbeat_s
        )
        stream.start()
        try:
            report = self.harness(job, on_progress=stream.update, config=self.config)
        except SoftTimeLimitExceeded:
            report = internal_error(
                job, f"Judging took longer than {SETTINGS.soft_time_limit_s} s and was stopped.", started
            )
        except Exception:
            log.exception("harness failed on %s attempt %s", job.submission_id, job.attempt)
            report = internal_error(
                job, "The judge failed on this submission (details are in the judge's log).", started
            )
        finally:
            stream.stop()
        # The fence is (submission, attempt): never let a harness bug send another's.
        report.submission_id, report.attempt = job.submission_id, job.attempt
        self.sender.report(report)
        self.ledger.finish(job)
        return report

    def refuse(self, data: Any, why: str, started: float) -> Report | None:
        """A job this judge cannot read: kept as a dead letter, and answered (internal_error, the
        judge's side's fault) when it names a submission and attempt the site can fence on."""
        path = keep_dead_letter(self.dead_letters, raw=data, reason=f"job refused: {why}", queue=JOB_TASK)
        log.error("job refused (%s), kept in %s: %.300r", why, path or "(no folder)", data)
        if not (isinstance(data, dict) and isinstance(data.get("submission_id"), str)):
            return None
        attempt = data.get("attempt")
        if not isinstance(attempt, int) or isinstance(attempt, bool):
            return None
        bad = JudgeJob(data["submission_id"], attempt, str(data.get("problem", "")), "", "")
        report = internal_error(
            bad, f"The judge could not read this job ({why}); this is a fault on the judge's side.", started
        )
        report.language, report.mode = str(data.get("language", "")), str(data.get("mode", "test"))
        self.sender.report(report)
        return report


_handler: JobHandler | None = None


def handler() -> JobHandler:
    """This process's handler (a pool process keeps it, and the harness's warm pool with it)."""
    global _handler
    if _handler is None:
        _handler = JobHandler(
            harness=load_harness(SETTINGS.harness),
            sender=Sender(app, SETTINGS.judge_dir / "outbox"),
            ledger=Ledger(SETTINGS.judge_dir / "ledger"),
            worker=os.environ.get("GRIDSTRIDE_WORKER_NAME", socket.gethostname()),
            heartbeat_s=SETTINGS.heartbeat_s,
            max_runs=SETTINGS.max_runs,
            config=harness_config(SETTINGS.harness),
            dead_letters=SETTINGS.dead_letter_dir,
        )
    return _handler


@app.task(name=JOB_TASK, acks_late=True, reject_on_worker_lost=True)
def run_job(*args: Any, **kwargs: Any) -> str | None:
    # Any arguments are taken, so that a message with the wrong ones is set aside here, not
    # failed by Celery with a TypeError and forgotten.
    if len(args) != 1 or kwargs:
        handler().refuse({"args": list(args), "kwargs": kwargs}, "the task takes exactly one job", time.monotonic())
        return None
    report = handler().handle(args[0])
    return report.verdict if report else None


@signals.worker_process_init.connect
def _prewarm(**_: Any) -> None:
    """Build the handler (harness imports, warm pool) before the first job arrives."""
    if os.environ.get("GRIDSTRIDE_JUDGE_PREWARM", "1") == "1":
        try:
            handler()
        except Exception:
            log.exception("could not prepare the harness; the first job will try again")


# --- advertising and starting ----------------------------------------------------------------

HOST_INFO: dict[str, Any] = {}


@inspect_command()
def judge_info(state: Any, **_: Any) -> dict[str, Any]:
    """`celery inspect judge_info`: what this judge is (the site lists judges online with it)."""
    return HOST_INFO


def detect_host() -> dict[str, Any]:
    """judge.host.detect() in a child process: CUDA must not start in a process that forks."""
    code = (
        "import json, dataclasses\n"
        "try:\n    from judge.host import detect\nexcept ImportError:\n    print('{}')\n"
        "else:\n    print(json.dumps(dataclasses.asdict(detect())))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    if out.returncode != 0:
        raise SystemExit(f"judge.host.detect() failed:\n{out.stderr[-2000:]}")
    info = json.loads(out.stdout.strip().splitlines()[-1] or "{}")
    if not info:
        log.warning("judge.host is not available: serving the CPU queue")
        info = {"gpu_model": "cpu", "gpu_name": "", "device": "cpu", "capabilities": []}
    return dict(info)


def worker_argv(queue: str, node: str, loglevel: str, state_db: Path) -> list[str]:
    """One process, one job at a time: a GPU is never shared between two submissions."""
    return [
        "worker",
        "--queues",
        queue,
        "--concurrency",
        "1",
        "--pool",
        "prefork",
        "--hostname",
        node,
        "--loglevel",
        loglevel,
        "--without-gossip",
        "--without-mingle",
        # Revoked (stale) jobs stay revoked across restarts of this worker.
        "--statedb",
        str(state_db),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m judge worker", description="Run a judge worker (one per GPU).")
    parser.add_argument("--gpu-model", default=os.environ.get("GRIDSTRIDE_GPU_MODEL"), help="skip detection")
    parser.add_argument(
        "--name",
        default=os.environ.get("CUDA_VISIBLE_DEVICES") or "0",
        help="distinguishes workers of one host (default: the GPU index from CUDA_VISIBLE_DEVICES)",
    )
    parser.add_argument(
        "--gpus",
        type=int,
        default=int(os.environ.get("GRIDSTRIDE_WORKER_GPUS", "1")),
        help="GPUs this worker holds at once: it serves judge.<model>.x<k> for problems needing k (default 1)",
    )
    parser.add_argument("--loglevel", default=os.environ.get("LOG_LEVEL", "INFO"))
    args = parser.parse_args(argv)

    if not SETTINGS.harness:  # a stand-in harness (tests, benchmarks) runs no submission
        # Fail closed, before taking any job: this host must sandbox submissions as required.
        from judge.harness.parent import launch

        refused = launch.refusal(launch.SandboxSetting.from_env())
        if refused:
            raise SystemExit(f"the judge worker does not start: {refused}")
    info = {"gpu_model": args.gpu_model, "gpu_name": "", "device": "", "capabilities": []}
    if not args.gpu_model:
        info = detect_host()
    try:
        queue = judge_queue(info["gpu_model"], args.gpus)
    except ValueError as exc:
        raise SystemExit(f"the judge worker does not start: {exc}") from exc
    node = f"judge-{info['gpu_model']}-{args.name}@{socket.gethostname()}"
    os.environ.setdefault("GRIDSTRIDE_WORKER_NAME", node)
    HOST_INFO.update(
        info,
        queue=queue,
        gpus=args.gpus,
        node=node,
        harness=SETTINGS.harness or "judge.harness",
        protocol=PROTOCOL_VERSION,
    )
    SETTINGS.judge_dir.mkdir(parents=True, exist_ok=True)
    Ledger(SETTINGS.judge_dir / "ledger").prune()
    if SETTINGS.harness:
        log.warning("judging with the stand-in harness %s: verdicts are not real", SETTINGS.harness)
    app.worker_main(
        worker_argv(queue, node, args.loglevel, SETTINGS.judge_dir / f"state-{info['gpu_model']}-{args.name}")
    )
    return 0


if __name__ == "__main__":  # `python -m judge worker` is the usual way in (judge/cli.py)
    sys.exit(main())

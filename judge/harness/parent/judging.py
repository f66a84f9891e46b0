"""judge_job(): the trusted parent's side of judging one submission (docs/architecture.md,
docs/judging.md).

The parent holds the secret, derives per-case seeds, computes float64 references, starts the
sandboxed child (which alone runs submitted code), and turns the child's raw observations into a
verdict: it compares every output it receives, recomputes input checksums from its own inputs,
computes the timing statistics from raw per-call times, and applies the drain, floor, profiler
and wall-clock rules. Nothing the child says about itself is taken as a verdict.

This module is the orchestration: admission (admission.py), compilation, the child's plan
(plan.py), the conversation with the child (conversation.py, whose handlers apply rules.py and
checking.py), the verdict (verdict.py) and profile mode (profile.py).
"""

from __future__ import annotations

import dataclasses
import logging
import math
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge import spec as specmod
from judge.harness import languages
from judge.harness.common import framing
from judge.harness.common.errors import trim
from judge.harness.common.seeds import participant_public_seed
from judge.harness.parent import launch, references, results, rules
from judge.harness.parent.admission import Refusal, admit
from judge.harness.parent.config import JudgeConfig, default_config
from judge.harness.parent.conversation import Conversation, Finished
from judge.harness.parent.crowded import crowded_out
from judge.harness.parent.plan import STARTUP_SECONDS, ChildPlan, child_argv, child_env, make_plan
from judge.harness.parent.pool_size import SETTLE_SECONDS
from judge.harness.parent.profile import profile
from judge.harness.parent.verdict import OUR_FAULT, empty_report, exit_verdict, scrub_job_paths
from judge.protocol import CaseResult, JudgeJob, Progress, ProtocolError, Report

if TYPE_CHECKING:
    from judge.harness.parent.shared_calls import SharedCalls

log = logging.getLogger("judge.harness")

ProgressFn = Callable[[Progress], None]

__all__ = ["Judging", "judge_job"]


def judge_job(
    job: JudgeJob | dict[str, Any],
    *,
    on_progress: ProgressFn | None = None,
    config: JudgeConfig | None = None,
) -> Report:
    """Judge one submission. Never raises for anything the submission does."""
    began = time.monotonic()
    config = config or default_config()
    if isinstance(job, dict):
        raw: dict[str, Any] = job
        try:
            job = JudgeJob.from_dict(raw)
        except ProtocolError as exc:
            job = JudgeJob(
                submission_id=str(raw.get("submission_id", "")),
                attempt=int(raw.get("attempt", 0) or 0),
                problem=str(raw.get("problem", "")),
                language=str(raw.get("language", "")),
                source=str(raw.get("source", "")),
                mode=str(raw.get("mode", "test")),
            )
            report = empty_report(job)
            report.verdict = "rejected"
            report.message = str(exc)
            return report
    judging = Judging(job, config, on_progress, began)
    try:
        report = judging.run()
    except Exception as exc:
        if type(exc).__name__ == "SoftTimeLimitExceeded":
            raise  # the worker's own time limit: it reports that itself (the child dies in cleanup)
        report = judging.report
        report.ranked = False
        # Read while the child still holds its memory (cleanup below ends it).
        crowded = crowded_out(exc, config.device, judging.gpu_limit_bytes(), config.pool_memory_fraction)
        if crowded:
            report.verdict, report.message = "memory_limit", crowded
        else:
            log.exception("internal error judging submission %s attempt %s", job.submission_id, job.attempt)
            report.verdict = "internal_error"
            report.message = OUR_FAULT
    finally:
        judging.cleanup()
    judging.mark("cleaned up")
    report.elapsed_s = judging.timeline[-1][1]  # the same clock reading, so no step can round past it
    report.system["timeline_s"] = judging.timeline
    results.sanitize(report)
    judging.progress("done", 1, 1, report.verdict)
    return report


class Judging(Conversation):
    def __init__(self, job: JudgeJob, config: JudgeConfig, on_progress: ProgressFn | None, began: float) -> None:
        if job.participant_seed:
            # Every seed below derives from job.seed: mixing the participant's in here varies them all.
            job = dataclasses.replace(job, seed=participant_public_seed(config.secret, job.seed, job.participant_seed))
        self.job = job
        self.config = config
        self.on_progress = on_progress
        self.began = began
        self.report = empty_report(job)
        self.spec: specmod.ProblemSpec | None = None
        self.stage_text = "starting"
        # The Triton kernel the child says it is compiling, and when that frame arrived.
        self.compiling: tuple[str, float] | None = None
        self.child: launch.Child | None = None
        self.pool: Any = None  # the warm pool this job's process came from, if any
        self.held: Any = None  # the warm pool held for this job (sandbox.WarmPool.hold)
        self.profiled = False  # profile mode: ncu's run is over (nothing may start beside it)
        # Where the job's time went: (event, seconds since the job arrived), shown in the report.
        self.timeline: list[tuple[str, float]] = []
        self.clock_samples: list[dict[str, float]] = []
        self.retime = None  # a shape to be timed again (its drains looked like hidden work)
        # Calls on memory the parent owns (CPU hosts): inputs written, outputs read and calls
        # timed by the parent (parent/shared_calls.py).
        self.shared: SharedCalls | None = None
        # decided: the verdict is final. wrong: a correctness case failed (the remaining cases
        # still run so the report lists them all; the first failure keeps the verdict).
        self.decided = False
        self.wrong = False
        self.ready = False

    # -- helpers ------------------------------------------------------------------------------

    def mark(self, event: str) -> None:
        """Note when the parent finished handling `event` (the timeline in the report)."""
        self.timeline.append((event, round(time.monotonic() - self.began, 3)))

    def progress(self, stage: str, done: int = 0, total: int = 0, detail: str = "") -> None:
        if self.on_progress is None:
            return
        try:
            self.on_progress(
                Progress(
                    submission_id=self.job.submission_id,
                    attempt=self.job.attempt,
                    stage=stage,
                    done=done,
                    total=total,
                    detail=detail,
                    elapsed_s=round(time.monotonic() - self.began, 3),
                )
            )
        except Exception:
            log.exception("on_progress failed (ignored)")

    def finish(self, verdict: str, message: str) -> Report:
        if self.wrong and verdict not in ("rejected", "internal_error"):
            self.report.message += f"; afterwards: {message}"
        else:
            self.report.verdict = verdict
            self.report.message = message
        self.decided = True
        self.report.ranked = False
        return self.report

    def hold_pool(self) -> None:
        """Hold the worker's warm pool while this job runs: a child starts only at this job's
        safe points (refill_pool), never on its own beside a step that is timed."""
        if self.config.pool and self.held is None:
            self.held = self.config.pool
            self.held.hold()

    def gpu_limit_bytes(self) -> int | None:
        """The problem's GPU memory allowance, once the problem is known."""
        return self.spec.limits.gpu_memory_mb << 20 if self.spec is not None else None

    def cleanup(self) -> None:
        if self.held is not None:
            self.held.release()
            self.held = None
        if self.child is not None:
            self.child.kill()
            self.child.close_channels()
        if self.shared is not None:
            self.shared.close()

    # -- the run ------------------------------------------------------------------------------

    def run(self) -> Report:
        job, config, report = self.job, self.config, self.report
        self.hold_pool()
        refused = launch.refusal(config.sandbox)
        if refused:
            log.error("not judging %s: %s", job.submission_id, refused)
            return self.finish("internal_error", refused)
        if config.system is None:
            config.system = _static_system(config)
        report.system = dict(config.system)
        admitted = admit(job, config)
        if isinstance(admitted, Refusal):
            if admitted.spec is not None:
                report.content_hash = admitted.spec.content_hash
            report.compile_log = admitted.compile_log or report.compile_log
            return self.finish(admitted.verdict, admitted.message)
        spec = self.spec = admitted
        report.content_hash = spec.content_hash

        report.ceilings = config.get_ceilings()
        self.mark("checked the source; ceilings")
        library: Path | None = None
        language = languages.get(job.language)
        if language.compiled:
            library = self.compile()
            self.mark("compiled")
            if library is None:
                return report
            if config.device == "cpu":
                return self.finish("rejected", language.cpu_refusal_after_compile())

        if job.mode != "test":
            references.time_baselines(spec, config, lambda: self.settle_pool("timing the baselines"))
            self.mark("baselines")
        self.run_child(make_plan(spec, job, config), library)
        if report.verdict == "accepted" and job.mode == "profile":
            self.settle_pool("the profiler's run")
            profile(report, spec, self.plan.job, library, config, self.progress)
            self.profiled = True
            self.refill_pool()
        return report

    def compile(self) -> Path | None:
        from judge.harness.parent import compile as cc

        assert self.spec is not None
        self.progress("compiling", 0, 1, "nvcc")
        if self.config.device == "cpu" and cc.find_nvcc() is None:
            self.finish(
                "rejected", "CUDA C++ needs a GPU host; nvcc is not installed here either, so it was not compiled"
            )
            return None
        outcome = cc.compile_cuda(
            self.job.source,
            arch=cc.gpu_arch(self.config.device),
            cache_dir=self.config.cache_dir,
            seconds=min(self.spec.limits.compile_seconds, self.config.limit_cap_seconds or math.inf),
            env=child_env(self.config),
            work_dir=str(self.config.work_dir),
        )
        self.report.compile_log = outcome.log
        self.report.system["compile"] = {"cached": outcome.cached, "seconds": round(outcome.seconds, 3)}
        if outcome.verdict is not None:
            if outcome.verdict == "internal_error":
                log.error("compile failed on the judge's side: %s %s", outcome.message, outcome.log)
            self.finish(outcome.verdict, outcome.message)
            return None
        return outcome.library

    # -- the child ----------------------------------------------------------------------------

    def run_child(self, plan: ChildPlan, library: Path | None) -> None:
        assert self.spec is not None
        self.plan = plan
        self.cases, self.shapes = plan.cases, plan.shapes
        self.kernels_seen = 0
        self.deadline = time.monotonic() + STARTUP_SECONDS  # the mode's limit starts at "ready"
        self.progress("testing", 0, len(self.cases), "starting")
        self.stage_text = "starting the judge process"
        argv = child_argv()
        readable = self.config.child_readable()  # first: it builds the Triton seed the env names
        memory = self.spec.limits.host_memory_mb << 20
        gpu = self.config.gpu_index if self.config.device == "cuda" else None
        env = child_env(self.config)
        self.pool = self.config.child_pool(argv, env, gpu) if memory == self.config.child_memory_bytes else None
        self.hold_pool()  # the first job makes the pool
        self.child = launch.start_child(
            argv,
            limits=launch.RunLimits(wall_seconds=STARTUP_SECONDS + plan.limit_seconds + 30, memory_bytes=memory),
            env=env,
            gpu=gpu,
            pool=self.pool,
            work_dir=str(self.config.work_dir),
            readable=readable,
        )
        self.mark("child started")
        if self.pool is not None:
            # Whether this job waits for its child's start-up (it does when it comes right
            # behind other jobs and the pool has no warm child left).
            self.report.system["warm_pool"] = {
                "size": self.pool.size,
                "child": "warm" if self.child.was_warm else "starting",
            }
        if self.job.mode == "test":
            self.refill_pool()  # nothing is timed in a test run: the next process can start beside it
        assert self.child.job_out is not None and self.child.results_in is not None
        if plan.job.shared:
            if self.child.regions is None:
                raise RuntimeError("the child has no region socket")
            from judge.harness.parent.shared_calls import SharedCalls

            self.shared = SharedCalls(self, self.child.regions, self.child.accounting_pid, None)
        frames: queue.Queue[tuple[float, dict[str, Any] | None, Any]] = queue.Queue()
        shared = self.shared if self.config.device == "cuda" else None
        reader = threading.Thread(
            target=framing.pump_frames,
            args=(self.child.results_in, frames, plan.max_blob),
            kwargs={"spin": lambda: shared is not None and shared.outstanding is not None},
            daemon=True,
        )
        reader.start()
        if self.shared is not None:
            self.shared.reader_tid = reader.native_id
        self.case_results: list[CaseResult | None] = [None] * len(self.cases)
        self.pending: dict[str, Any] = {}
        self.completed = False
        blob = library.read_bytes() if library is not None else None
        # Written from a thread: a large library fills the pipe until the child reads it.
        writer = threading.Thread(
            target=framing.write_job_quietly, args=(self.child.job_out, plan.job.to_dict(), blob), daemon=True
        )
        writer.start()
        try:
            self.loop(frames)
        except Finished:
            pass
        except BrokenPipeError:
            pass  # the child died before reading its job: the exit status explains
        except framing.ForgedFrame as exc:
            self.finish("rejected", rules.malformed_frame(str(exc)).text)
        if self.decided:
            self.child.kill()
        # A child that ended on its own is waited for (so its exit status is its own); one that
        # lingers after its last frame is killed after a grace period.
        exit_ = self.child.wait(timeout=10)
        self.child.close_channels()
        self.record_output(exit_)
        if not self.decided:
            if self.completed:
                self.conclude()
            else:
                self.explain_exit(exit_)

    def record_output(self, exit_: launch.Exit) -> None:
        self.report.stdout = trim(scrub_job_paths(exit_.stdout), 64 << 10)
        self.report.stderr = trim(scrub_job_paths(exit_.stderr), 64 << 10)
        if self.report.verdict == "internal_error":
            log.error("child stderr for %s:\n%s", self.job.submission_id, exit_.stderr[-8000:])

    def explain_exit(self, exit_: launch.Exit) -> None:
        if not self.ready:
            # Before "ready" only the judge's own code has run.
            log.error(
                "the judge child died before reading its job: exit %s signal %s\n%s",
                exit_.exit_code,
                exit_.signal,
                exit_.stderr[-4000:],
            )
            self.finish("internal_error", OUR_FAULT)
            return
        memory_mb = self.spec.limits.host_memory_mb if self.spec else "?"
        self.finish(*exit_verdict(exit_, self.stage_text, self.plan.limit_seconds, self.job.mode, memory_mb))

    def settle_pool(self, before: str) -> bool:
        """Hold a timed step until no warm-pool child is starting up: a start-up (imports, a
        CUDA context, the warm-up's kernels) competes with timed calls for the CPU, PCIe and the
        GPU. The pool starts one child at a time, so this waits for at most one start-up. The
        wait is the judge's, not the submission's: the child's deadline moves by it. True if it
        waited (the timeline then shows it)."""
        pool = self.config.pool
        if not pool:
            return False
        began = time.monotonic()
        settled = pool.wait_settled(SETTLE_SECONDS)
        waited = time.monotonic() - began
        if settled and waited < 0.001:
            return False
        if self.ready:
            self.deadline += waited
        if not settled:
            log.warning("a warm-pool child still starting after %.0f s; %s goes ahead beside it", waited, before)
        self.mark(f"waited for a warm child's start-up before {before}" + ("" if settled else " (gave up)"))
        return True

    def refill_pool(self) -> None:
        """Start the pool's next process now rather than when this one has exited, so a job
        right behind this one finds it warm (sandbox.WarmPool.refill_soon). In profile mode
        Nsight Compute replays the kernels after the run: a start beside it would skew its digest."""
        if self.job.mode == "profile" and not self.profiled:
            return
        if self.pool is not None:
            self.pool.refill_soon()


def _static_system(config: JudgeConfig) -> dict[str, Any]:
    from judge.harness.parent.sysinfo import static_info

    info = static_info(config.device, config.gpu_index)
    info["sandbox"] = config.sandbox.describe()
    return info

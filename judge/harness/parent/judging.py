"""judge_job(): the trusted parent's side of judging one submission (DESIGN.md section 4).

The parent holds the secret, derives per-case seeds, computes float64 references, starts the
sandboxed child (which alone runs submitted code), and turns the child's raw observations into a
verdict: it compares every output it receives, recomputes input checksums from its own inputs,
computes the timing statistics from raw per-call times, and applies the drain, floor, profiler
and wall-clock rules. Nothing the child says about itself is taken as a verdict.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import io
import logging
import math
import queue
import random
import re
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge import spec as specmod
from judge.harness import source_checks
from judge.harness.child.triton_cache import SEED_ENV
from judge.harness.common import framing
from judge.harness.common.errors import trim
from judge.harness.common.seeds import (
    bench_case_key,
    derive_seed,
    fresh_key_name,
    fresh_seed,
    participant_public_seed,
    test_case_key,
)
from judge.harness.common.stats import geometric_mean, summarize
from judge.harness.parent import launch, nvml, results
from judge.harness.parent.config import JudgeConfig, default_config
from judge.protocol import (
    MAX_SOURCE_BYTES,
    CaseResult,
    JudgeJob,
    KernelDigest,
    Progress,
    ProtocolError,
    Report,
    ShapeTiming,
    source_text_fault,
)

if TYPE_CHECKING:
    from judge.harness.parent.shared_calls import SharedCalls

log = logging.getLogger("judge.harness")

ProgressFn = Callable[[Progress], None]
KERNEL_LANGUAGES = ("triton", "cuda", "cupy")
# rejected: a construct that needs a GPU on a CPU host (docs/judging.md, section 8); the child
# could already end in rejected through a violation frame, so this grants it nothing new.
CHILD_ERROR_VERDICTS = ("compile_error", "runtime_error", "memory_limit", "rejected", "internal_error")
STARTUP_SECONDS = 180.0
CPU_CUDA_MESSAGE = "CUDA C++ needs a GPU host; compiled OK, not run (this host has no GPU)"


class Finished(Exception):
    """The verdict is known; stop the child and report."""


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
            report = _empty_report(job)
            report.verdict = "rejected"
            report.message = str(exc)
            return report
    judging = Judging(job, config, on_progress, began)
    try:
        report = judging.run()
    except Exception as exc:
        if type(exc).__name__ == "SoftTimeLimitExceeded":
            raise  # the worker's own time limit: it reports that itself (the child dies in cleanup)
        log.exception("internal error judging submission %s attempt %s", job.submission_id, job.attempt)
        report = judging.report
        report.verdict = "internal_error"
        report.ranked = False
        report.message = (
            "The judge failed on its side (the details are in the worker log); this is not a verdict on your code."
        )
    finally:
        judging.cleanup()
    judging.mark("cleaned up")
    report.elapsed_s = judging.timeline[-1][1]  # the same clock reading, so no step can round past it
    report.system["timeline_s"] = judging.timeline
    results.sanitize(report)
    judging.progress("done", 1, 1, report.verdict)
    return report


def _empty_report(job: JudgeJob) -> Report:
    return Report(
        submission_id=job.submission_id,
        attempt=job.attempt,
        problem=job.problem,
        language=job.language,
        mode=job.mode,
        verdict="internal_error",
    )


# ---------------------------------------------------------------------------------------------
# Trusted references.

_reference_modules: dict[tuple[str, str], Any] = {}


def reference_module(spec: specmod.ProblemSpec) -> Any:
    key = (spec.slug, spec.content_hash)
    module = _reference_modules.get(key)
    if module is None:
        path = spec.reference_dir / "reference.py"
        loader_spec = importlib.util.spec_from_file_location(f"gridstride_reference_{spec.slug}", path)
        if loader_spec is None or loader_spec.loader is None:
            raise RuntimeError(f"cannot load {path}")
        module = importlib.util.module_from_spec(loader_spec)
        loader_spec.loader.exec_module(module)
        _reference_modules[key] = module
    return module


# Outputs at least this large get their own timeline step when they arrive (the transfer is
# most of a large check: 2.5 s for softmax's 1 GiB on the H200, pipeline_gpu 2026-11-30).
LARGE_OUTPUT_BYTES = 64 << 20


@dataclass
class Expected:
    outputs: dict[str, Any]
    checksums: list[str]


@dataclass
class ShapeState:
    name: str
    sizes: dict[str, int]
    pool_seeds: list[int]
    fresh_key: int = 0  # the sets regenerated between calls take seeds.fresh_seed(fresh_key, i)
    sample_phase: int = 0  # where the pre-timing check samples a large output (tensors.sample_positions)
    pool_size: int = 0
    flush_bytes: int = 0
    timing_started: float | None = None
    times: dict[str, Any] | None = None
    times_received: float | None = None
    kernels: list[list[Any]] = field(default_factory=list)
    checked_final: bool = False
    power_before: Any = None  # nvml.Reading taken as the child is told to go on to the timing
    # A second timing of the shape, asked for when the first one's drains looked like hidden
    # work (docs/judging.md section 4): the slow drains of each attempt, and the input seeds
    # every attempt used (no two calls of the shape, in any attempt, may share inputs).
    drain_counts: list[tuple[int, int]] = field(default_factory=list)  # per attempt: (slow, timed calls)
    retime_pending: bool = False  # asked for, its times not received yet
    seen_seeds: set[int] = field(default_factory=lambda: {0})  # 0: the checked call before the warm-up

    def refuse_unasked_timing(self) -> None:
        """A timing (its start or its times) of a shape already timed, unless the judge asked for it."""
        if self.times is not None and not self.retime_pending:
            raise framing.ForgedFrame(f"a second timing of shape {self.name} that the judge did not ask for")

    def seed(self, index: int) -> int:
        """Input seed number `index`: the pool's first sets, then the fresh ones (child_job.FreshSets)."""
        return self.pool_seeds[index] if index < len(self.pool_seeds) else fresh_seed(self.fresh_key, index)


class Judging:
    def __init__(self, job: JudgeJob, config: JudgeConfig, on_progress: ProgressFn | None, began: float) -> None:
        if job.participant_seed:
            # Every seed below derives from job.seed: mixing the participant's in here varies them all.
            job = dataclasses.replace(job, seed=participant_public_seed(config.secret, job.seed, job.participant_seed))
        self.job = job
        self.config = config
        self.on_progress = on_progress
        self.began = began
        self.report = _empty_report(job)
        self.spec: specmod.ProblemSpec | None = None
        self.stage_text = "starting"
        # The Triton kernel the child says it is compiling, and when that frame arrived.
        self.compiling: tuple[str, float] | None = None
        self.child: launch.Child | None = None
        self.pool: Any = None  # the warm pool this job's process came from, if any
        self.profiled = False  # profile mode: ncu's run is over (nothing may start beside it)
        # Where the job's time went: (event, seconds since the job arrived), shown in the report.
        self.timeline: list[tuple[str, float]] = []
        self.clock_samples: list[dict[str, float]] = []
        self.retime: ShapeState | None = None  # a shape to be timed again (its drains looked like hidden work)
        # Calls on memory the parent owns (CPU hosts): inputs written, outputs read and calls
        # timed by the parent (parent/shared_calls.py).
        self.shared: SharedCalls | None = None
        # decided: the verdict is final. wrong: a correctness case failed (the remaining cases
        # still run so the report lists them all; the first failure keeps the verdict).
        self.decided = False
        self.wrong = False

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

    def cleanup(self) -> None:
        if self.child is not None:
            self.child.kill()
            self.child.close_channels()
        if self.shared is not None:
            self.shared.close()

    # -- the run ------------------------------------------------------------------------------

    def run(self) -> Report:
        job, config, report = self.job, self.config, self.report
        if config.system is None:
            config.system = _static_system(config)
        report.system = dict(config.system)
        if job.mode not in ("test", "benchmark", "profile"):
            return self.finish("rejected", f"unknown mode {job.mode!r}: one of test, benchmark, profile")
        text_fault = source_text_fault(job.source)
        if text_fault:  # a NUL or lone surrogate: the file could not even be written as the user sent it
            return self.finish("rejected", text_fault)
        if len(job.source.encode("utf-8", errors="replace")) > MAX_SOURCE_BYTES:
            return self.finish(
                "rejected",
                f"the source is larger than {MAX_SOURCE_BYTES // 1024} KiB; submissions are limited to that size",
            )
        if job.language not in specmod.LANGUAGES:
            return self.finish("rejected", f"unknown language {job.language!r}: one of {', '.join(specmod.LANGUAGES)}")
        try:
            spec = specmod.load(job.problem)
        except specmod.ProblemError as exc:
            if specmod.SLUG_RE.match(job.problem or "") and (specmod.PROBLEMS_DIR / job.problem).is_dir():
                log.error("problem %s does not load on this worker: %s", job.problem, exc)
                return self.finish("internal_error", f"the problem {job.problem!r} is broken on this judge host")
            return self.finish("rejected", f"unknown problem {job.problem!r}")
        self.spec = spec
        report.content_hash = spec.content_hash
        if job.content_hash and job.content_hash != spec.content_hash:
            return self.finish(
                "internal_error",
                f"problem version mismatch: the site expects {job.content_hash}, this judge has {spec.content_hash} "
                "(the worker needs the same problem files as the site)",
            )
        if any(set(h["sizes"]) != set(spec.sizes) for h in job.hidden_benchmarks):
            return self.finish(
                "internal_error", f"a hidden shape of the job does not give the sizes {list(spec.sizes)}"
            )
        if job.language not in spec.languages:
            return self.finish(
                "rejected", f"{spec.title} does not accept {job.language}; use one of {', '.join(spec.languages)}"
            )
        findings = source_checks.find_forbidden(job.source, job.language, spec.forbidden.get(job.language, ()))
        if findings:
            first = findings[0]
            listed = ", ".join(sorted({f.needle for f in findings}))
            return self.finish(
                "rejected",
                f"forbidden for {job.language} in this problem: {listed} (solution{specmod.SOURCE_SUFFIX[job.language]}:"
                f"{first.line}: {first.text}); write the computation yourself",
            )
        if config.device == "cpu" and job.language == "cupy":
            return self.finish("rejected", "CuPy needs a GPU host; this host has no GPU, so it was not run")
        if job.language == "cuda":
            params = source_checks.cuda_solve_parameters(job.source)
            expected = spec.signature()
            if params is None:
                report.compile_log = 'no extern "C" void solve(...) found in solution.cu'
                return self.finish(
                    "compile_error",
                    f'solution.cu must define extern "C" void solve({", ".join(expected)}) (device pointers, then ints)',
                )
            if len(params) != len(expected):
                return self.finish(
                    "compile_error",
                    f"wrong signature: solve must take {len(expected)} parameters ({', '.join(expected)}): "
                    f"device pointers for the tensors, then int sizes; yours takes {len(params)}",
                )

        report.ceilings = config.get_ceilings()
        self.mark("checked the source; ceilings")
        library: Path | None = None
        if job.language == "cuda":
            library = self.compile()
            self.mark("compiled")
            if library is None:
                return report
            if config.device == "cpu":
                return self.finish("rejected", CPU_CUDA_MESSAGE)

        if job.mode != "test":
            self.time_baselines()
            self.mark("baselines")
        self.run_child(library)
        if report.verdict == "accepted" and job.mode == "profile":
            self.profile(library)
            self.profiled = True
            self.refill_pool()
        return report

    def child_env(self) -> dict[str, str]:
        return child_env(self.config)

    # -- CUDA compilation ---------------------------------------------------------------------

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
            env=self.child_env(),
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

    # -- baselines ----------------------------------------------------------------------------

    def public_benchmark_cases(self) -> tuple[specmod.Case, ...]:
        assert self.spec is not None
        return self.spec.benchmarks if self.config.device == "cuda" else self.spec.cpu_benchmarks

    def benchmark_cases(self) -> tuple[specmod.Case, ...]:
        """The public shapes, then the participant's hidden ones (the site draws them per participant)."""
        hidden = (specmod.Case(name=h["name"], sizes=dict(h["sizes"])) for h in self.job.hidden_benchmarks)
        return self.public_benchmark_cases() + tuple(hidden)

    def time_baselines(self) -> None:
        """Median time of the problem's plain-torch baseline per shape, once per worker."""
        assert self.spec is not None
        module = reference_module(self.spec)
        baseline = getattr(module, "baseline", None)
        if baseline is None:
            return
        # Public shapes only: a hidden shape's name stands for other sizes in the next job.
        for case in self.public_benchmark_cases():
            key = (self.spec.slug, self.spec.ranking_hash, case.name)
            if key in self.config.baseline_cache:
                continue
            try:
                self.config.baseline_cache[key] = _time_baseline(module, baseline, case, self.config)
            except Exception:
                log.exception("timing the baseline of %s/%s failed; speedup left empty", self.spec.slug, case.name)
                self.config.baseline_cache[key] = None

    # -- the child ----------------------------------------------------------------------------

    def child_job(self, library: Path | None) -> dict[str, Any]:
        assert self.spec is not None
        spec, job, config = self.spec, self.job, self.config
        device = config.device
        cases = [c for c in spec.tests if device == "cuda" or not c.gpu_only]
        self.cases = cases
        benches = list(self.benchmark_cases()) if job.mode != "test" else []
        self.shapes = [
            ShapeState(
                name=c.name,
                sizes=dict(c.sizes),
                pool_seeds=[
                    derive_seed(config.secret, job.seed, bench_case_key(c.name), k) for k in range(config.pool_sets)
                ],
                fresh_key=derive_seed(config.secret, job.seed, fresh_key_name(c.name)),
                sample_phase=derive_seed(config.secret, job.seed, f"sample:{c.name}"),
            )
            for c in benches
        ]
        policy = config.timing_policy()
        if benches:
            per_shape = 0.5 * spec.limits.benchmark_seconds / len(benches)
            policy.max_seconds = min(policy.max_seconds, per_shape)
            policy.warmup_seconds = min(policy.warmup_seconds, per_shape)
        tensors = spec.inputs + spec.outputs

        def shapes(sizes: dict[str, int]) -> dict[str, list[int]]:
            return {t.name: list(t.concrete_shape(sizes)) for t in tensors}

        if config.parent_memory if config.parent_memory is not None else device == "cpu":
            return self.shared_child_job(policy, shapes)
        return {
            "language": job.language,
            "device": device,
            "source": job.source if job.language != "cuda" else "",
            "reference_source": (spec.reference_dir / "reference.py").read_text(encoding="utf-8"),
            "shown_as": f"solution{specmod.SOURCE_SUFFIX[job.language]}",
            "signature": spec.signature(),
            "inputs": [{"name": t.name, "dtype": t.dtype} for t in spec.inputs],
            "outputs": [{"name": t.name, "dtype": t.dtype} for t in spec.outputs],
            "sizes": list(spec.sizes),
            "cases": [
                {
                    "name": c.name,
                    "sizes": dict(c.sizes),
                    "seed": derive_seed(config.secret, job.seed, test_case_key(c.name), 0),
                    "shapes": shapes(c.sizes),
                }
                for c in cases
            ],
            "benchmarks": [
                {
                    "name": s.name,
                    "sizes": s.sizes,
                    "pool_seeds": s.pool_seeds,
                    "fresh_key": s.fresh_key,
                    "sample_phase": s.sample_phase,
                    "shapes": shapes(s.sizes),
                }
                for s in self.shapes
            ],
            "policy": policy.as_dict(),
            "order_seed": derive_seed(config.secret, job.seed, "order", 0),
            "pool_memory_fraction": config.pool_memory_fraction,
            "precheck_sample_bytes": config.precheck_sample_bytes,
            "gpu_memory_bytes": spec.limits.gpu_memory_mb << 20,
            "profile_kernels": device == "cuda" and job.language in KERNEL_LANGUAGES,
            # In test mode the profiler looks at the largest case.
            "profile_case": max(range(len(cases)), key=lambda i: _volume(spec, cases[i].sizes)) if cases else 0,
        }

    def shared_child_job(self, policy: Any, shapes: Callable[[dict[str, int]], dict[str, list[int]]]) -> dict[str, Any]:
        """The job of a child that computes on memory the parent owns (CPU hosts): no seed, no
        input generator, no output sampling (the parent writes every input and reads every
        output itself; parent/shared_calls.py)."""
        assert self.spec is not None
        spec, job = self.spec, self.job
        return {
            "memory": "shared",
            "language": job.language,
            "device": self.config.device,
            "source": job.source if job.language != "cuda" else "",
            "shown_as": f"solution{specmod.SOURCE_SUFFIX[job.language]}",
            "signature": spec.signature(),
            "inputs": [{"name": t.name, "dtype": t.dtype} for t in spec.inputs],
            "outputs": [{"name": t.name, "dtype": t.dtype} for t in spec.outputs],
            "sizes": list(spec.sizes),
            "cases": [{"name": c.name, "sizes": dict(c.sizes), "shapes": shapes(c.sizes)} for c in self.cases],
            "benchmarks": [{"name": s.name, "sizes": s.sizes, "shapes": shapes(s.sizes)} for s in self.shapes],
            "policy": policy.as_dict(),
            "pool_sets": self.config.pool_sets,
            "order_seed": derive_seed(self.config.secret, job.seed, "order", 0),
            "pool_memory_fraction": self.config.pool_memory_fraction,
            "gpu_memory_bytes": spec.limits.gpu_memory_mb << 20,
            "profile_kernels": False,
            "profile_case": 0,
        }

    def limit_seconds(self) -> float:
        assert self.spec is not None
        limits = self.spec.limits
        seconds = float(limits.test_seconds if self.job.mode == "test" else limits.benchmark_seconds)
        cap = self.config.limit_cap_seconds
        return min(seconds, cap) if cap else seconds

    def run_child(self, library: Path | None) -> None:
        assert self.spec is not None
        child_job = self.child_job(library)
        self.child_job_data = child_job
        self.kernels_seen = 0
        self.max_blob = max(
            [_outputs_bytes(self.spec, c.sizes) for c in self.cases]
            + [_outputs_bytes(self.spec, s.sizes) for s in self.shapes]
            + [0]
        )
        limit = self.limit_seconds()
        # Until the child says it is ready, the deadline covers only its start-up (a loaded
        # host may need many seconds to import torch); the mode's limit starts at "ready".
        self.deadline = time.monotonic() + STARTUP_SECONDS
        self.progress("testing", 0, len(self.cases), "starting")
        self.stage_text = "starting the judge process"
        argv = child_argv()
        readable = self.config.child_readable()  # first: it builds the Triton seed the env names
        memory = self.spec.limits.host_memory_mb << 20
        gpu = self.config.gpu_index if self.config.device == "cuda" else None
        env = self.child_env()
        self.pool = self.config.child_pool(argv, env, gpu) if memory == self.config.child_memory_bytes else None
        self.child = launch.start_child(
            argv,
            limits=launch.RunLimits(wall_seconds=STARTUP_SECONDS + limit + 30, memory_bytes=memory),
            env=env,
            gpu=gpu,
            pool=self.pool,
            work_dir=str(self.config.work_dir),
            readable=readable,
        )
        self.mark("child started")
        if self.job.mode == "test":
            self.refill_pool()  # nothing is timed in a test run: the next process can start beside it
        assert self.child.job_out is not None and self.child.results_in is not None
        if child_job.get("memory") == "shared":
            if self.child.regions is None:
                raise RuntimeError("the child has no region socket")
            from judge.harness.parent.shared_calls import SharedCalls

            self.shared = SharedCalls(self, self.child.regions, self.child.accounting_pid, None)
        frames: queue.Queue[tuple[float, dict[str, Any] | None, Any]] = queue.Queue()
        reader = threading.Thread(
            target=framing.pump_frames, args=(self.child.results_in, frames, self.max_blob), daemon=True
        )
        reader.start()
        if self.shared is not None:
            self.shared.reader_tid = reader.native_id
        self.case_results: list[CaseResult | None] = [None] * len(self.cases)
        self.pending: dict[str, Any] = {}
        self.completed = False
        self.ready = False
        blob = library.read_bytes() if library is not None else None
        # Written from a thread: a large library fills the pipe until the child reads it.
        writer = threading.Thread(
            target=framing.write_job_quietly, args=(self.child.job_out, child_job, blob), daemon=True
        )
        writer.start()
        try:
            self.loop(frames)
        except Finished:
            pass
        except BrokenPipeError:
            pass  # the child died before reading its job: the exit status explains
        except framing.ForgedFrame as exc:
            self.finish(
                "rejected",
                f"the judge's result channel carried a malformed message ({exc}); submissions must not write to the judge's file descriptors",
            )
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
        where = self.stage_text
        if not getattr(self, "ready", False):
            # Before "ready" only the judge's own code has run.
            log.error(
                "the judge child died before reading its job: exit %s signal %s\n%s",
                exit_.exit_code,
                exit_.signal,
                exit_.stderr[-4000:],
            )
            self.finish(
                "internal_error",
                "The judge failed on its side (the details are in the worker log); this is not a verdict on your code.",
            )
            return
        if exit_.limit_hit == "wall":
            self.finish(
                "time_limit",
                f"time limit: the {self.limit_seconds():g} s limit of {self.job.mode} mode ran out while {where}",
            )
        elif exit_.limit_hit == "cpu":
            self.finish("time_limit", f"time limit: the process used more CPU time than allowed while {where}")
        elif exit_.limit_hit == "processes":
            self.finish("runtime_error", f"the process started too many processes or threads while {where}")
        elif exit_.limit_hit == "output":
            self.finish("runtime_error", f"the process wrote too much output (or too large a file) while {where}")
        elif exit_.limit_hit == "memory":
            self.finish(
                "memory_limit",
                f"memory limit: the process exceeded {self.spec.limits.host_memory_mb if self.spec else '?'} MB while {where}",
            )
        elif exit_.signal is not None:
            import signal as signals

            try:
                name = signals.Signals(exit_.signal).name
            except ValueError:
                name = f"signal {exit_.signal}"
            if exit_.signal == signals.SIGKILL and exit_.limit_hit is None and launch.backend() == "subprocess":
                # Without the sandbox's memory cgroup, an unexplained SIGKILL is the host's OOM killer.
                self.finish("memory_limit", f"the process was killed ({name}) while {where}, most likely for memory")
            else:
                self.finish("runtime_error", f"the process crashed ({name}) while {where}")
        else:
            self.finish(
                "runtime_error", f"the process exited (status {exit_.exit_code}) before finishing, while {where}"
            )

    def compile_deadline(self) -> float:
        """When the kernel the child says it is compiling runs out of compile_seconds (or never)."""
        if self.compiling is None:
            return math.inf
        return self.compiling[1] + min(self.spec.limits.compile_seconds, self.config.limit_cap_seconds or math.inf)  # type: ignore[union-attr]

    def next_frame(
        self, frames: queue.Queue[tuple[float, dict[str, Any] | None, Any]]
    ) -> tuple[float, dict[str, Any], Any]:
        remaining = min(self.deadline, self.compile_deadline()) - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        try:
            arrived, header, blob = frames.get(timeout=remaining)
        except queue.Empty:
            raise TimeoutError from None
        if header is None:
            if isinstance(blob, framing.ChannelClosed):
                raise EOFError
            raise framing.ForgedFrame(str(blob))
        return arrived, header, blob

    def loop(self, frames: queue.Queue[tuple[float, dict[str, Any] | None, Any]]) -> None:
        assert self.child is not None
        while True:
            try:
                arrived, header, blob = self.next_frame(frames)
            except TimeoutError:
                self.child.kill("wall")
                if self.compiling is not None and self.compile_deadline() < self.deadline:
                    seconds = self.compile_deadline() - self.compiling[1]
                    self.finish(
                        "time_limit",
                        f"compile time limit: Triton compiling kernel {self.compiling[0]} took longer than this "
                        f"problem's {seconds:g} s (compile_seconds), while {self.stage_text}; a block size that "
                        "grows with the input (BLOCK = next_power_of_2(n)) is the usual cause",
                    )
                    raise Finished from None
                if not self.ready:
                    self.finish("internal_error", "the judge process did not start in time")
                    raise Finished from None
                self.finish(
                    "time_limit",
                    f"time limit: the {self.limit_seconds():g} s limit of {self.job.mode} mode ran out while {self.stage_text}",
                )
                raise Finished from None
            except EOFError:
                return  # the exit status explains
            kind = header.get("kind")
            if kind not in ("compiling", "compiled"):
                # Any other frame means the child's thread moved on: a compile it started is over,
                # finished or failed (Triton's autotuner drops a config whose compile raised, and no
                # post-compile hook then runs), so it no longer counts against compile_seconds.
                self.compiling = None
            if kind == "warm":
                if self.ready or "child_warmed_up" in self.report.system:
                    raise framing.ForgedFrame("a warm frame after the start")
                self.report.system["child_warmed_up"] = warm_up_seconds(header.get("warmed"))
            elif kind == "ready":
                if self.ready:
                    raise framing.ForgedFrame("a second ready frame")
                self.ready = True
                self.mark("child ready")
                self.deadline = arrived + self.limit_seconds()
                self.stage_text = "loading your code"
            elif kind == "stage":
                self.on_stage(header)
            elif kind == "call" and self.shared is not None:
                self.shared.on_call(header)
            elif kind == "called" and self.shared is not None:
                self.shared.on_called(header, arrived)
            elif kind in ("call", "called") or (self.shared is not None and kind in ("output", "checked")):
                # Where the parent owns the memory, outputs and checksums never come as frames.
                raise framing.ForgedFrame(f"a {kind} frame does not belong to this job's protocol")
            elif kind == "compiling":
                # Named by the child, timed by this clock (judge/harness/child/compile_watch.py).
                self.compiling = (framing.header_text(header, "what")[:300], arrived)
            elif kind == "compiled":
                self.compiling = None
            elif kind == "output":
                self.on_output(header, blob)
            elif kind == "checked":
                self.on_checked(header)
            elif kind == "kernels":
                self.on_kernels(header)
            elif kind == "pool":
                shape = self.shape_of(header)
                shape.pool_size = framing.header_int(header, "size", 1, len(shape.pool_seeds))
                self.mark(f"{shape.name}: input pool made")
                shape.flush_bytes = framing.header_int(header, "flush_bytes", 0, 1 << 40)
            elif kind == "timing_start":
                shape = self.shape_of(header)
                shape.refuse_unasked_timing()
                shape.timing_started = arrived
                self.mark(f"{shape.name}: warmed up")
            elif kind == "times":
                shape = self.shape_of(header)
                shape.refuse_unasked_timing()
                shape.retime_pending = False
                shape.checked_final = False  # this attempt's final output is still to be checked
                shape.times = header
                shape.times_received = arrived
                self.mark(f"{shape.name}: timed")
                self.on_times(shape)
                self.note_power(shape)
                if shape is self.shapes[-1] and self.retime is not shape:
                    # Nothing of this job is timed any more (the last output check and the
                    # profiler's kernel list follow): a job right behind it gains their seconds.
                    self.refill_pool()
            elif kind == "await":
                if self.retime is not None and not self.decided and not self.wrong:
                    self.ask_retime(self.retime)
                else:
                    self.send_go(not self.decided and not self.wrong)
            elif kind == "violation":
                self.finish(
                    "rejected",
                    f"rule broken ({framing.header_text(header, 'rule')}): {framing.header_text(header, 'message')}",
                )
                raise Finished
            elif kind == "error":
                verdict = header.get("verdict")
                if verdict not in CHILD_ERROR_VERDICTS:
                    raise framing.ForgedFrame(f"unknown error verdict {verdict!r}")
                message = trim(framing.header_text(header, "message"))
                if verdict == "internal_error":
                    log.error("the child reported an internal error for %s: %s", self.job.submission_id, message)
                    message = "The judge failed on its side (the details are in the worker log); this is not a verdict on your code."
                self.finish(verdict, message)
                raise Finished
            elif kind == "done":
                self.completed = True
                self.mark("child done")
                self.sample_clocks()
                self.refill_pool()  # the timing is over (if the last shape's times did not already)
                if not self.decided:
                    self.conclude()
                return
            else:
                raise framing.ForgedFrame(f"unknown frame kind {kind!r}")

    def refill_pool(self) -> None:
        """Start the pool's next process now rather than when this one has exited, so a job
        right behind this one finds it warm (sandbox.WarmPool.refill_soon). In profile mode
        Nsight Compute replays the kernels after the run: a start beside it would skew its digest."""
        if self.job.mode == "profile" and not self.profiled:
            return
        if self.pool is not None:
            self.pool.refill_soon()

    def send_go(self, go: bool, retime: bool = False) -> None:
        """Answer the child's await: go on (after a shape's timing, with retime: time it again) or stop."""
        assert self.child is not None and self.child.job_out is not None
        self.free_device_memory()
        with contextlib.suppress(BrokenPipeError, OSError):
            framing.write_frame(self.child.job_out, {"go": go, "retime": True} if retime else {"go": go})
        if not go:
            # A verdict is known (e.g. a wrong answer): no benchmark.
            self.conclude()
            raise Finished

    def ask_retime(self, shape: ShapeState) -> None:
        """Tell the child, waiting after the shape's final check, to time the shape again."""
        self.retime = None
        shape.retime_pending = True
        if self.config.device == "cuda":
            shape.power_before = nvml.read(self.config.gpu_index or 0)
        self.send_go(True, retime=True)

    def free_device_memory(self) -> None:
        if self.config.device == "cuda":
            import torch

            torch.cuda.empty_cache()

    # -- frame handlers -----------------------------------------------------------------------

    def on_stage(self, header: dict[str, Any]) -> None:
        stage = header.get("stage")
        if stage not in ("testing", "benchmarking", "profiling"):
            raise framing.ForgedFrame(f"unknown stage {stage!r}")
        done = framing.header_int(header, "done", 0, 10**6)
        total = framing.header_int(header, "total", 0, 10**6)
        detail = framing.header_text(header, "detail")[:200]
        noun = {"testing": "case", "benchmarking": "shape", "profiling": "kernel list of"}[stage]
        self.stage_text = f"{stage} {noun} {done + 1}/{total} ({detail})"
        self.progress(stage, done, total, detail)

    def on_output(self, header: dict[str, Any], blob: Any) -> None:
        name = framing.header_text(header, "name")
        if blob is None or not any(t.name == name for t in self.spec.outputs):  # type: ignore[union-attr]
            raise framing.ForgedFrame(f"unexpected output frame {name!r}")
        self.pending[name] = blob
        if len(blob) >= LARGE_OUTPUT_BYTES:  # the timeline then splits a large check: transfer, compare
            size = f"{len(blob) >> 20} MiB" if len(blob) >= 1 << 20 else f"{len(blob) >> 10} KiB"
            self.mark(f"output {name} received ({size})")

    def where(self, header: dict[str, Any]) -> tuple[str, int, int]:
        if "case" in header:
            return "case", framing.header_int(header, "case", 0, len(self.cases) - 1), 0
        shape_index = framing.header_int(header, "shape", 0, len(self.shapes) - 1)
        return "shape", shape_index, framing.header_int(header, "set", 0, self.config.pool_sets - 1)

    def shape_of(self, header: dict[str, Any]) -> ShapeState:
        return self.shapes[framing.header_int(header, "shape", 0, len(self.shapes) - 1)]

    def expected_for(self, seed: int, sizes: dict[str, int]) -> Expected:
        assert self.spec is not None
        module = reference_module(self.spec)
        from judge.harness.common.tensors import checksum

        inputs = module.generate_inputs(seed=seed, device=self.config.device, **sizes)
        checksums = [checksum(inputs[t.name]) for t in self.spec.inputs]
        outputs = module.reference(**inputs, **sizes)
        del inputs
        return Expected(outputs=outputs, checksums=checksums)

    def on_checked(self, header: dict[str, Any]) -> None:
        assert self.spec is not None
        from judge.harness.common.tensors import DTYPES, compare_within, from_bytes, nbytes, sample_positions

        spec = self.spec
        kind, index, set_index = self.where(header)
        sample_phase: int | None = None  # the pre-timing check of a shape reads a sample of each output
        if kind == "case":
            case = self.cases[index]
            sizes, label = dict(case.sizes), case.name
            seed = derive_seed(self.config.secret, self.job.seed, test_case_key(case.name), 0)
        else:
            shape = self.shapes[index]
            if set_index >= max(shape.pool_size, 1):
                raise framing.ForgedFrame("checked set outside the pool")
            seed_index = set_index
            if shape.times is not None:
                if set_index != shape.times["sets"][-1]:
                    raise framing.ForgedFrame("the final output is not from the final timed call's set")
                seed_index = shape.times["seeds"][-1]  # the inputs that set held at that call
                if header.get("seed") != seed_index:
                    raise framing.ForgedFrame("the final output is not from the final timed call's inputs")
                shape.checked_final = True
            else:
                sample_phase = shape.sample_phase
            sizes, label = dict(shape.sizes), f"benchmark {shape.name} (input set {set_index})"
            seed = shape.seed(seed_index)
        expected = self.expected_for(seed, sizes)
        reported = header.get("checksums")
        if reported != expected.checksums:
            self.finish(
                "rejected",
                f"rule broken (inputs-modified): the inputs after solve() differ from the inputs the judge generated ({label}); "
                "inputs are read-only",
            )
            raise Finished
        comparisons = []
        sampled = False
        for tensor in spec.outputs:
            shape_ = tensor.concrete_shape(sizes)
            positions = None
            if sample_phase is not None:
                itemsize = DTYPES[tensor.dtype].itemsize
                positions = sample_positions(
                    math.prod(shape_), itemsize, sample_phase, self.config.precheck_sample_bytes
                )
                sampled = sampled or positions is not None
            sent_shape = shape_ if positions is None else (positions.numel(),)
            blob = self.pending.pop(tensor.name, None)
            if blob is None or len(blob) != nbytes(tensor.dtype, sent_shape):
                raise framing.ForgedFrame(f"output {tensor.name} missing or of the wrong size for {label}")
            got = from_bytes(blob, tensor.dtype, sent_shape, self.config.device)
            ref = expected.outputs.get(tensor.name)
            if ref is None or tuple(ref.shape) != shape_:
                raise RuntimeError(f"the reference of {spec.slug} gave no {tensor.name} of shape {shape_}")
            comparisons.append((tensor.name, compare_within(ref, got, spec.tolerance, tensor.dtype, positions)))
            del got
        del expected
        if self.pending:
            raise framing.ForgedFrame(f"unexpected outputs {sorted(self.pending)}")
        if sampled:
            label = f"benchmark {self.shapes[index].name} (input set 0, a sample checked before timing)"
        self.record_check(kind, index, label, sizes, comparisons, bool(header.get("returned")))

    def record_check(
        self, kind: str, index: int, label: str, sizes: dict[str, int], comparisons: list[Any], returned: bool
    ) -> None:
        """The verdict on one checked call's outputs (case `index`, or a call of shape `index`)."""
        assert self.spec is not None
        result = results.case_result(label, sizes, comparisons, self.spec.tolerance, returned)
        if kind == "case":
            self.case_results[index] = result
            self.report.cases = [r for r in self.case_results if r is not None]
            if not result.passed and not self.wrong:
                message = f"wrong answer on case {label!r} ({_sizes_text(sizes)}): {result.message}"
                if self.job.mode != "test":
                    # Submit and profile stop at the first wrong case: its verdict comes at once
                    # (the child is ended), instead of after the other cases compile and run.
                    self.finish("wrong_answer", message)
                    raise Finished
                # Test mode goes on, within its limit, to show the other cases' results too.
                self.wrong = True
                self.report.verdict = "wrong_answer"
                self.report.message = message
        elif not result.passed:
            self.report.cases.append(result)
            self.finish("wrong_answer", f"wrong answer on {label} ({_sizes_text(sizes)}): {result.message}")
            raise Finished
        elif self.shapes[index].times is None and self.config.device == "cuda":
            # Set 0 checked; the child waits for its go: NVML's totals before warm-up and timing.
            self.shapes[index].power_before = nvml.read(self.config.gpu_index or 0)
        self.mark(f"case {label}: checked" if kind == "case" else f"{label}: checked")

    def on_kernels(self, header: dict[str, Any]) -> None:
        if self.shapes:
            label = self.shape_of(header).name
        else:
            framing.header_int(header, "shape", 0, 0)
            label = self.cases[self.child_job_data["profile_case"]].name
        self.kernels_seen += 1
        names = header.get("names")
        if not isinstance(names, list) or not all(
            isinstance(n, list) and len(n) == 2 and isinstance(n[0], str) for n in names
        ):
            raise framing.ForgedFrame("bad kernel list")
        if not self.report.kernels:
            self.report.kernels = [
                KernelDigest(name=n[:500], duration_us=float(t) if isinstance(t, int | float) else None)
                for n, t in sorted(names, key=lambda x: -float(x[1] or 0))
            ]
        if self.job.language not in KERNEL_LANGUAGES:
            return
        library = source_checks.library_kernels([n for n, _ in names])
        if library:
            self.finish(
                "rejected",
                f"rule broken (library-compute): library kernels did the work on {label}: "
                f"{', '.join(n[:120] for n in library[:5])}. In a {self.job.language} submission the computation "
                "must run in your own kernels",
            )
            raise Finished
        if not source_checks.own_kernels([n for n, _ in names]):
            self.finish(
                "rejected",
                f"rule broken (no-kernel): solve() launched no GPU kernel of its own on {label} (only copies or fills); "
                "the computation must run in your own kernels",
            )
            raise Finished

    def on_times(self, shape: ShapeState) -> None:
        times = shape.times or {}
        values = times.get("times_us")
        sets = times.get("sets")
        drains = times.get("drains_us")
        if not (isinstance(values, list) and isinstance(sets, list) and isinstance(drains, list)):
            raise framing.ForgedFrame("bad times frame")
        if not values or len(values) != len(sets) or len(values) != len(drains):
            raise framing.ForgedFrame("times, sets and drains differ in length")
        if not all(isinstance(v, int | float) and math.isfinite(v) and v > 0 for v in values):
            raise framing.ForgedFrame("times must be positive finite numbers")
        if not all(isinstance(s, int) and 0 <= s < max(shape.pool_size, 1) for s in sets):
            raise framing.ForgedFrame("a timed call used a set outside the pool")
        if self.shared is None:  # the child made its own inputs: it says which seeds it used
            seeds, warmup_seeds = times.get("seeds"), times.get("warmup_seeds")
            if not (isinstance(seeds, list) and isinstance(warmup_seeds, list)) or len(seeds) != len(values):
                raise framing.ForgedFrame("bad input seeds in the times frame")
            every = [*warmup_seeds, *seeds]
            if (
                not all(isinstance(s, int) and 0 <= s < 1 << 20 for s in every)
                or len(set(every)) != len(every)
                or shape.seen_seeds.intersection(every)
            ):
                raise framing.ForgedFrame("two calls were given the same inputs")
            shape.seen_seeds.update(every)
        if shape.timing_started is None or shape.times_received is None:
            raise framing.ForgedFrame("times without a timing start")
        span_us = (shape.times_received - shape.timing_started) * 1e6
        total_us = math.fsum(values)
        if total_us > span_us * 1.01 + 200.0:
            self.finish(
                "rejected",
                f"rule broken (timing-consistency): the reported times add up to {total_us:.0f} us but the timing phase of "
                f"shape {shape.name} lasted {span_us:.0f} us on the judge's clock",
            )
            raise Finished
        if self.shared is not None:
            self.shared.check_times(shape)  # the claims against the parent's clock (forged-timing)
        detail = times.get("drain_detail")
        if isinstance(detail, list):  # a measurement run (TimingPolicy.drain_detail)
            self.report.system.setdefault("drain_detail", {}).setdefault(shape.name, []).append(detail)
        # (On a CPU host every drain is 0: the rule never fires there.)
        slow = results.slow_drains(drains, values, self.config)
        shape.drain_counts.append((len(slow), len(values)))
        if results.drains_show_hidden_work(len(slow), len(values), self.config):
            if len(shape.drain_counts) < self.config.timing_attempts:
                self.retime = shape  # asked for at the child's next await, after this attempt's final check
                self.mark(f"{shape.name}: {len(slow)} of {len(values)} drains slow, to be timed again")
                return
            worst_drain, its_time = max(slow)
            counts = " and then ".join(f"{n} of {calls}" for n, calls in shape.drain_counts)
            attempts = f"timed {len(shape.drain_counts)} times, {counts}" if len(shape.drain_counts) > 1 else counts
            self.finish(
                "rejected",
                f"rule broken (hidden-work): on shape {shape.name}, {attempts} timed calls left work "
                f"running after solve() returned (the device took up to {worst_drain:.0f} us to drain after a "
                f"{its_time:.0f} us call). Work must be launched on the default stream and finish within the call",
            )
            raise Finished
        summary = summarize(values)
        floor_us = self.floor_us(shape.sizes)
        if floor_us > 0 and summary.median < self.config.floor_factor * floor_us:
            self.finish(
                "rejected",
                f"rule broken (impossible-time): shape {shape.name} median {summary.median:.2f} us is below "
                f"{self.config.floor_factor:.0%} of the roofline floor {floor_us:.2f} us (the least time the bytes "
                "and FLOPs need on this GPU); results must be computed on every call, not reused",
            )
            raise Finished

    def floor_us(self, sizes: dict[str, int]) -> float:
        assert self.spec is not None
        ceilings = self.report.ceilings
        if self.config.device != "cuda" or not ceilings:
            return 0.0
        cost = self.spec.cost
        memory_s = cost.bytes_for(sizes) / (ceilings["dram_gbps"] * 1e9)
        roof = ceilings["bf16_tflops"] if cost.compute_roof == "bf16_tensor" else ceilings["fp32_tflops"]
        compute_s = cost.flops_for(sizes) / (roof * 1e12)
        return max(memory_s, compute_s) * 1e6

    def note_power(self, shape: ShapeState) -> None:
        """Mean power and time spent power- or heat-capped from before the shape's warm-up to
        its last timed call (judge/harness/parent/nvml.py); read outside the timed calls."""
        if shape.power_before is None:
            return
        after = nvml.read(self.config.gpu_index or 0)
        during = nvml.window(shape.power_before, after) if after else None
        if during:
            self.report.system.setdefault("gpu_during_timing", {})[shape.name] = during

    def sample_clocks(self) -> None:
        """The clocks right after the last shape's timing: once, and never beside timed calls
        (nvidia-smi takes driver locks and a CPU while the child's launches need both)."""
        if self.config.device != "cuda" or not any(s.times for s in self.shapes):
            return
        from judge.harness.parent.sysinfo import clocks

        found = clocks(self.config.gpu_index)
        if found:
            self.clock_samples.append({"shape": "after the last shape", **found})  # type: ignore[dict-item]

    # -- the verdict --------------------------------------------------------------------------

    def conclude(self) -> None:
        """All frames are in: the verdict of a run that ended normally."""
        report = self.report
        if self.decided:
            return
        self.decided = True
        if self.wrong:
            report.ranked = False
            return
        profiled = self.child_job_data["profile_kernels"] and self.cases
        expected_kernel_lists = (len(self.shapes) or 1) if profiled else 0
        if (
            any(r is None for r in self.case_results)
            or any(s.times is None or not s.checked_final for s in self.shapes)
            or self.kernels_seen != expected_kernel_lists
        ):
            # Only a forged "done" (written by the submission to the judge's channel) gets here.
            self.decided = False
            self.finish(
                "rejected",
                "the judge's result channel ended before every case and shape was reported; "
                "submissions must not write to the judge's file descriptors",
            )
            return
        if not self.shapes:
            report.verdict = "accepted"
            report.message = f"all {len(self.cases)} cases passed"
            if self.job.mode != "test" and self.config.device == "cpu":
                report.message += " (this problem has no CPU benchmark shapes)"
            return
        timings = []
        for shape in self.shapes:
            timings.append(self.shape_timing(shape))
        report.benchmarks = timings
        report.score_us = round(geometric_mean([t.median_us for t in timings]), 4)
        sols = [t.sol_pct for t in timings if t.sol_pct > 0]
        report.sol_pct = round(geometric_mean(sols), 2) if len(sols) == len(timings) and sols else None
        report.verdict = "accepted"
        report.ranked = self.config.device == "cuda"
        if self.clock_samples:
            report.system["clocks_after_timing"] = self.clock_samples
            sm = sorted(s["sm_clock_mhz"] for s in self.clock_samples)
            report.system["sm_clock_mhz"] = sm[len(sm) // 2]
            report.system["mem_clock_mhz"] = self.clock_samples[-1].get("mem_clock_mhz")
        report.system["l2_flush_bytes"] = self.shapes[0].flush_bytes
        report.system["l2_flush_kind"] = self.config.timing_policy().flush
        report.system["pool_sets"] = {s.name: s.pool_size for s in self.shapes}
        note = "" if report.ranked else " (CPU host: unranked)"
        report.message = f"all {len(self.cases)} cases passed; score {report.score_us:.3f} us (geometric mean of {len(timings)} shapes){note}"

    def shape_timing(self, shape: ShapeState) -> ShapeTiming:
        assert self.spec is not None and shape.times is not None
        baseline = self.config.baseline_cache.get((self.spec.slug, self.spec.ranking_hash, shape.name))
        timing = results.shape_timing(
            self.spec, shape.name, shape.sizes, shape.times, self.floor_us(shape.sizes), baseline
        )
        timing.timing_attempts = max(1, len(shape.drain_counts))
        timing.slow_drains = [n for n, _ in shape.drain_counts]
        return timing

    # -- profile mode -------------------------------------------------------------------------

    def profile(self, library: Path | None) -> None:
        from judge.harness.parent import ncu

        report = self.report
        if self.config.device != "cuda":
            report.message += "; profile: Nsight Compute needs a GPU host (not run)"
            return
        self.progress("profiling", 0, 1, "ncu")
        exe = ncu.find_ncu()
        version = ncu.ncu_works(exe) if exe else None
        if exe is None or version is None:
            report.message += "; profile: ncu is not available on this judge host (benchmark only)"
            return
        report.system["ncu"] = version
        job = {**self.child_job_data, "ncu": True}
        frame = io.BytesIO()
        framing.write_frame(frame, job, library.read_bytes() if library is not None else None)
        assert self.spec is not None
        exit_, _ = launch.run_files(
            [*ncu.command(exe), sys.executable, "-m", "judge.harness.child", "--job-file", "{dir}/job.frame"],
            limits=launch.RunLimits(wall_seconds=self.spec.limits.benchmark_seconds, max_output_bytes=4 << 20),
            env=self.child_env(),
            gpu=self.config.gpu_index,
            files={"job.frame": frame.getvalue()},
            work_dir=str(self.config.work_dir),
        )
        kernels = ncu.parse(exit_.stdout)
        if exit_.exit_code != 0 or not kernels:
            tail = trim(scrub_job_paths((exit_.stdout + exit_.stderr)[-1500:]), 1500)
            report.message += f"; profile: ncu failed (exit {exit_.exit_code}), benchmark only: {tail.strip()}"
            log.warning("ncu failed for %s: %s", self.job.submission_id, exit_.stderr[-4000:])
            return
        report.kernels = kernels
        self.progress("profiling", 1, 1, f"{len(kernels)} kernels")


# ---------------------------------------------------------------------------------------------
# Helpers.


def child_argv() -> list[str]:
    return [sys.executable, "-m", "judge.harness.child"]


def child_env(config: JudgeConfig) -> dict[str, str]:
    """What the child's environment adds to the sandbox's scrubbed one."""
    env = {"GRIDSTRIDE_DEVICE": config.device, "PYTHONUNBUFFERED": "1", "PYTHONHASHSEED": "0"}
    if config.device == "cuda":
        # One hardware work queue for every stream of the child, read at CUDA's start: a kernel
        # the submission queues on a side stream of any priority then cannot start ahead of the
        # harness's start event, i.e. inside the L2 flush or the launch cover (docs/judging.md).
        env["CUDA_DEVICE_MAX_CONNECTIONS"] = "1"
    if config.device == "cpu":
        env["TRITON_INTERPRET"] = "1"
        # OpenMP workers sleep as soon as a parallel region ends instead of spinning: on a host
        # whose cores are shared, their spinning delays the handshake around every timed call,
        # which the parent's clock would read as time the call did not report.
        env["OMP_WAIT_POLICY"] = "PASSIVE"
        env["CUDA_VISIBLE_DEVICES"] = ""
    if isinstance(config.triton_seed, Path):
        env[SEED_ENV] = str(config.triton_seed)
    return env


_JOB_PATH = re.compile(r"(?:/[\w.+-]+)*/(?:job|proc)-[\w]+/")


def scrub_job_paths(text: str) -> str:
    """Drop the private directories of a job from text shown to the user."""
    return _JOB_PATH.sub("", text)


def _volume(spec: specmod.ProblemSpec, sizes: dict[str, int]) -> int:
    return sum(t.nbytes(sizes) for t in spec.inputs + spec.outputs)


def warm_up_seconds(warmed: Any) -> dict[str, float | None]:
    """The child's own account of its start-up and warm-up steps (seconds by step), bounded:
    the child is trusted until its job arrives, but the frame still passes through checks."""
    if not isinstance(warmed, dict):
        return {}
    return {
        str(name)[:40]: (round(float(seconds), 3) if isinstance(seconds, int | float) else None)
        for name, seconds in list(warmed.items())[:8]
    }


def _outputs_bytes(spec: specmod.ProblemSpec, sizes: dict[str, int]) -> int:
    return max(t.nbytes(sizes) for t in spec.outputs)


def _sizes_text(sizes: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sizes.items())


def _time_baseline(module: Any, baseline: Callable[..., Any], case: specmod.Case, config: JudgeConfig) -> float:
    """Median time of baseline(**inputs, **sizes) on this device, with the submissions' method."""
    from judge.harness.child.timing import L2Flusher, TimingPolicy, time_calls
    from judge.harness.common.stats import summarize as summarize_

    device = config.device
    sets = [
        module.generate_inputs(seed=1000 + k, device=device, **case.sizes) for k in range(4 if device == "cuda" else 2)
    ]
    policy = config.timing_policy()
    quick = TimingPolicy.from_dict({**policy.as_dict(), "max_seconds": min(policy.max_seconds, 5.0)})
    run = time_calls(
        lambda i: baseline(**sets[i], **case.sizes),
        lambda i: None,
        sets=len(sets),
        policy=quick,
        device=device,
        flusher=L2Flusher(device),
        rng=random.Random(0),
    )
    sets.clear()
    if device == "cuda":
        import torch

        torch.cuda.empty_cache()
    return summarize_(run.times_us).median


def _static_system(config: JudgeConfig) -> dict[str, Any]:
    from judge.harness.parent.sysinfo import static_info

    info = static_info(config.device, config.gpu_index)
    info["sandbox"] = launch.backend()
    return info

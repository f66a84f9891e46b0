"""The child's plan: which correctness cases and benchmark shapes it runs, from which seeds,
under which limits and timing policy (docs/judging.md sections 3 and 5).

The plan is built by the trusted parent from the problem, the job and the worker's secret; the
child receives it as its job and the parent keeps the same objects to check what comes back.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge import spec as specmod
from judge.harness import languages
from judge.harness.child.triton_cache import SEED_ENV
from judge.harness.common import frames, framing
from judge.harness.common.child_job import CaseJob, ChildJob, ShapeJob, TensorDecl
from judge.harness.common.seeds import bench_case_key, derive_seed, fresh_key_name, fresh_seed, test_case_key
from judge.protocol import JudgeJob

if TYPE_CHECKING:
    from judge.harness.parent.config import JudgeConfig

# Until the child says it is ready, the deadline covers only its start-up (a loaded host may
# need many seconds to import torch); the mode's limit starts at "ready".
STARTUP_SECONDS = 180.0


@dataclass
class ShapeState:
    """One benchmark shape, as the parent follows it through the child's frames."""

    name: str
    sizes: dict[str, int]
    pool_seeds: list[int]
    fresh_key: int = 0  # the sets regenerated between calls take seeds.fresh_seed(fresh_key, i)
    sample_phase: int = 0  # where the pre-timing check samples a large output (tensors.sample_positions)
    pool_size: int = 0
    flush_bytes: int = 0
    timing_started: float | None = None
    times: frames.Times | None = None
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
    # CPU hosts: the median of what the parent's clock saw beyond the claims, added to the
    # claimed times (parent/clock.py); None where the parent's clock did not bound the shape.
    clock_added_us: float | None = None

    def refuse_unasked_timing(self) -> None:
        """A timing (its start or its times) of a shape already timed, unless the judge asked for it."""
        if self.times is not None and not self.retime_pending:
            raise framing.ForgedFrame(f"a second timing of shape {self.name} that the judge did not ask for")

    def seed(self, index: int) -> int:
        """Input seed number `index`: the pool's first sets, then the fresh ones (child/input_sets.py)."""
        return self.pool_seeds[index] if index < len(self.pool_seeds) else fresh_seed(self.fresh_key, index)


@dataclass
class ChildPlan:
    cases: list[specmod.Case]
    shapes: list[ShapeState]
    job: ChildJob  # what the child is sent
    limit_seconds: float  # the mode's limit, from "ready" on
    max_blob: int  # the largest output frame the parent accepts


def public_benchmark_cases(spec: specmod.ProblemSpec, config: JudgeConfig) -> tuple[specmod.Case, ...]:
    return spec.benchmarks if config.device == "cuda" else spec.cpu_benchmarks


def benchmark_cases(spec: specmod.ProblemSpec, job: JudgeJob, config: JudgeConfig) -> tuple[specmod.Case, ...]:
    """The public shapes, then the participant's hidden ones (the site draws them per participant)."""
    hidden = (specmod.Case(name=h["name"], sizes=dict(h["sizes"])) for h in job.hidden_benchmarks)
    return public_benchmark_cases(spec, config) + tuple(hidden)


def limit_seconds(spec: specmod.ProblemSpec, mode: str, config: JudgeConfig) -> float:
    seconds = float(spec.limits.test_seconds if mode == "test" else spec.limits.benchmark_seconds)
    cap = config.limit_cap_seconds
    return min(seconds, cap) if cap else seconds


def test_seed(config: JudgeConfig, job: JudgeJob, case: specmod.Case) -> int:
    return derive_seed(config.secret, job.seed, test_case_key(case.name), 0)


def make_plan(spec: specmod.ProblemSpec, job: JudgeJob, config: JudgeConfig) -> ChildPlan:
    device = config.device
    cases = [c for c in spec.tests if device == "cuda" or not c.gpu_only]
    benches = list(benchmark_cases(spec, job, config)) if job.mode != "test" else []
    shapes = [
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

    def shapes_of(sizes: dict[str, int]) -> dict[str, list[int]]:
        return {t.name: list(t.concrete_shape(sizes)) for t in tensors}

    max_blob = max(
        [_outputs_bytes(spec, c.sizes) for c in cases] + [_outputs_bytes(spec, s.sizes) for s in shapes] + [0]
    )
    limit = limit_seconds(spec, job.mode, config)
    language = languages.get(job.language)
    shared = config.parent_memory if config.parent_memory is not None else device == "cpu"
    if shared and device == "cuda":  # the judge's fixed launch cover (JudgeConfig.gpu_cover_us)
        policy.cover_min_us = policy.cover_max_us = config.gpu_cover_us
    child_job = ChildJob(
        memory="shared" if shared else "own",
        language=job.language,
        device=device,
        source="" if language.compiled else job.source,
        shown_as=language.shown_as,
        signature=spec.signature(),
        inputs=[TensorDecl(t.name, t.dtype) for t in spec.inputs],
        outputs=[TensorDecl(t.name, t.dtype) for t in spec.outputs],
        sizes=list(spec.sizes),
        cases=[
            CaseJob(c.name, dict(c.sizes), shapes_of(c.sizes), None if shared else test_seed(config, job, c))
            for c in cases
        ],
        benchmarks=[
            ShapeJob(s.name, dict(s.sizes), shapes_of(s.sizes))
            if shared
            else ShapeJob(s.name, dict(s.sizes), shapes_of(s.sizes), s.pool_seeds, s.fresh_key, s.sample_phase)
            for s in shapes
        ],
        policy=policy.as_dict(),
        order_seed=derive_seed(config.secret, job.seed, "order", 0),
        pool_sets=config.pool_sets,
        pool_memory_fraction=config.pool_memory_fraction,
        gpu_memory_bytes=spec.limits.gpu_memory_mb << 20,
    )
    child_job.profile_kernels = device == "cuda" and language.own_kernels
    # In test mode the profiler looks at the largest case.
    child_job.profile_case = max(range(len(cases)), key=lambda i: _volume(spec, cases[i].sizes)) if cases else 0
    if not shared:  # the child makes its own inputs and samples its outputs
        child_job.reference_source = (spec.reference_dir / "reference.py").read_text(encoding="utf-8")
        child_job.precheck_sample_bytes = config.precheck_sample_bytes
    return ChildPlan(cases, shapes, child_job, limit, max_blob)


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


def _volume(spec: specmod.ProblemSpec, sizes: dict[str, int]) -> int:
    return sum(t.nbytes(sizes) for t in spec.inputs + spec.outputs)


def _outputs_bytes(spec: specmod.ProblemSpec, sizes: dict[str, int]) -> int:
    return max(t.nbytes(sizes) for t in spec.outputs)

"""Versioned JSON wire types between the site, the broker and the judge.

Stdlib only (the web side imports it). Every message carries `version`; a reader rejects a
version it does not know instead of guessing. Field names are part of the public report format
(the API returns reports as they are), so add fields, never rename them.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any, TypeVar

PROTOCOL_VERSION = 1

MODES = ("test", "benchmark", "profile")
STAGES = ("queued", "compiling", "testing", "benchmarking", "profiling", "done")
VERDICTS = (
    "accepted",
    "wrong_answer",
    "compile_error",
    "runtime_error",
    "time_limit",
    "memory_limit",
    "rejected",
    "internal_error",
)
MAX_SOURCE_BYTES = 64 * 1024

T = TypeVar("T")


class ProtocolError(ValueError):
    pass


def _build(cls: type[T], data: dict[str, Any]) -> T:
    """Construct a dataclass from a dict, ignoring unknown keys (forward compatible)."""
    known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    return cls(**{k: v for k, v in data.items() if k in known})


@dataclass
class JudgeJob:
    """What the site asks a judge worker to do."""

    submission_id: str
    attempt: int
    problem: str
    language: str
    source: str
    mode: str = "test"
    # Public seed; the worker mixes in a secret the submission never sees.
    seed: int = 0
    # The problem content hash the site expects; a worker with another version refuses.
    content_hash: str = ""
    version: int = PROTOCOL_VERSION

    def validate(self) -> None:
        if self.version != PROTOCOL_VERSION:
            raise ProtocolError(f"unsupported job version {self.version}")
        if self.mode not in MODES:
            raise ProtocolError(f"unknown mode {self.mode!r}")
        if len(self.source.encode()) > MAX_SOURCE_BYTES:
            raise ProtocolError(f"source is larger than {MAX_SOURCE_BYTES} bytes")

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JudgeJob:
        job = _build(cls, data)
        job.validate()
        return job


@dataclass
class Progress:
    """A stage change while a job runs: 'checking case 3/9', 'benchmarking shape 2/3'."""

    submission_id: str
    attempt: int
    stage: str
    done: int = 0
    total: int = 0
    detail: str = ""
    elapsed_s: float = 0.0
    version: int = PROTOCOL_VERSION


@dataclass
class Mismatch:
    index: list[int]
    expected: float
    got: float
    abs_err: float
    rel_err: float


@dataclass
class CaseResult:
    name: str
    sizes: dict[str, int]
    passed: bool
    output: str = ""
    max_abs_err: float = 0.0
    max_rel_err: float = 0.0
    rel_l2: float = 0.0
    tolerance: dict[str, Any] = field(default_factory=dict)
    mismatch_count: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    message: str = ""


@dataclass
class ShapeTiming:
    """Timing statistics of one benchmark shape (times in microseconds)."""

    name: str
    sizes: dict[str, int]
    n: int
    median_us: float
    mean_us: float
    p10_us: float
    p90_us: float
    min_us: float
    ci_low_us: float
    ci_high_us: float
    flops: float
    bytes: float
    gbps: float
    tflops: float
    sol_pct: float
    floor_us: float
    reference_median_us: float | None = None
    speedup_vs_reference: float | None = None
    launch_cover_us: float | None = None  # GPU-side wait before each timed call (docs/judging.md)
    set_medians_us: list[float] | None = None  # the median of each input set's timed calls
    # Timed again when the first timing's drains looked like hidden work (docs/judging.md
    # section 4): how many timings, and the slow drains of each; the statistics are the last's.
    timing_attempts: int = 1
    slow_drains: list[int] | None = None


@dataclass
class KernelDigest:
    """One kernel of a profile-mode run (ncu), or of the profiler's kernel list."""

    name: str
    duration_us: float | None = None
    dram_sol_pct: float | None = None
    compute_sol_pct: float | None = None
    achieved_occupancy_pct: float | None = None
    registers: int | None = None
    shared_bytes: int | None = None
    calls: int = 1


@dataclass
class Report:
    """The judge's final word on one attempt of one submission."""

    submission_id: str
    attempt: int
    problem: str
    language: str
    mode: str
    verdict: str
    message: str = ""
    ranked: bool = False
    cases: list[CaseResult] = field(default_factory=list)
    benchmarks: list[ShapeTiming] = field(default_factory=list)
    # Geometric mean of the shapes' median times (us), computed in log space; lower is better.
    score_us: float | None = None
    # Geometric mean of the shapes' % of speed of light.
    sol_pct: float | None = None
    kernels: list[KernelDigest] = field(default_factory=list)
    compile_log: str = ""
    stdout: str = ""
    stderr: str = ""
    system: dict[str, Any] = field(default_factory=dict)
    ceilings: dict[str, float] = field(default_factory=dict)
    content_hash: str = ""
    elapsed_s: float = 0.0
    version: int = PROTOCOL_VERSION

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Report:
        if data.get("version") != PROTOCOL_VERSION:
            raise ProtocolError(f"unsupported report version {data.get('version')}")
        report = _build(cls, data)
        if report.verdict not in VERDICTS:
            raise ProtocolError(f"unknown verdict {report.verdict!r}")
        report.cases = [_case(c) for c in data.get("cases", [])]
        report.benchmarks = [_build(ShapeTiming, b) for b in data.get("benchmarks", [])]
        report.kernels = [_build(KernelDigest, k) for k in data.get("kernels", [])]
        return report


def _case(data: dict[str, Any]) -> CaseResult:
    case = _build(CaseResult, data)
    case.mismatches = [_build(Mismatch, m) for m in data.get("mismatches", [])]
    return case

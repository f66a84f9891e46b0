"""Versioned JSON wire types between the site, the broker and the judge.

Stdlib only (the web side imports it). Every message carries `version`; a reader rejects a
version it does not know instead of guessing. Field names are part of the public report format
(the API returns reports as they are), so add fields, never rename them.
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from dataclasses import asdict, dataclass, field, fields
from typing import Any, TypeVar

PROTOCOL_VERSION = 1
# A job of version 2 carries a participant's variation (participant_seed, hidden_benchmarks); a
# judge that predates it refuses the job instead of judging it without them.
JOB_VERSION_PARTICIPANT = 2
JOB_VERSIONS = (PROTOCOL_VERSION, JOB_VERSION_PARTICIPANT)
# Hidden shapes are named HIDDEN_PREFIX + k (judge/spec.py keeps public case names apart).
HIDDEN_PREFIX = "hidden-"
MAX_HIDDEN_BENCHMARKS = 8

# Most GPUs one judge worker may hold at once (one host's NVLink domain is 8 on HGX boards).
MAX_WORKER_GPUS = 8


def judge_queue(gpu_model: str, gpus: int = 1) -> str:
    """The queue of judges of one GPU model that hold `gpus` GPUs at once: judge.<model> for one,
    judge.<model>.x<k> for k. The site sends a job there and the worker consumes it, so both
    name queues through this function (docs/pipeline.md, "Hosts with several GPUs")."""
    if not 1 <= gpus <= MAX_WORKER_GPUS:
        raise ValueError(f"a judge worker holds 1 to {MAX_WORKER_GPUS} GPUs, not {gpus}")
    return f"judge.{gpu_model}" if gpus == 1 else f"judge.{gpu_model}.x{gpus}"


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


class SourceRefused(ProtocolError):
    """The job is well formed but its source cannot be judged (too large, not text): the
    submitter's fault, answered with a user-facing verdict, never internal_error."""

    def __init__(self, message: str, job: JudgeJob | None = None) -> None:
        super().__init__(message)
        self.job = job


# --- text that PostgreSQL must store (docs/security.md, "Text") -------------------------------
# PostgreSQL's text and jsonb hold neither NUL nor a lone UTF-16 surrogate (a Python str holds
# both: a program's output, JSON's "\ud800"). Text from programs and judges is made storable in
# one pass, visibly: NUL becomes U+2400 (the symbol for NUL), each surrogate code point the six
# characters of its escape ("\ud800"). Sources are refused instead (source_text_fault): what is
# judged must be the text the user sent.

NUL_SYMBOL = "\u2400"
_SURROGATE = re.compile("[\ud800-\udfff]")


def storable_text(text: str) -> str:
    """`text` with NUL and surrogates replaced visibly; linear in its length."""
    if "\x00" in text:
        text = text.replace("\x00", NUL_SYMBOL)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


def storable(value: Any) -> Any:
    """A JSON-like value (dicts, lists, strings, numbers) with every string storable_text'ed,
    dictionary keys included."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, dict):
        return {storable(k): storable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [storable(v) for v in value]
    return value


def source_text_fault(
    source: str, what: str = "The source", rule: str = "a source file must be plain text"
) -> str | None:
    """Why `source` cannot be a source file (a NUL, a lone surrogate), with where; None if it can.
    `what` names it in the message, `rule` ends it."""
    where = source.find("\x00")
    found = "a NUL character"
    if not source.isascii():
        try:
            source.encode("utf-8")
        except UnicodeEncodeError as exc:
            if where < 0 or exc.start < where:
                where, found = exc.start, f"a lone surrogate \\u{ord(source[exc.start]):04x} (not Unicode text)"
    if where < 0:
        return None
    line = source.count("\n", 0, where) + 1
    column = where - (source.rfind("\n", 0, where) + 1) + 1
    return f"{what} contains {found} at line {line}, column {column}; {rule}."


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
    # An assessment candidate's or contest participant's own secret (version 2). The judge's parent
    # mixes it with its secret into every input seed; it never reaches the child or a page.
    participant_seed: int = 0
    # Shapes judged after the public benchmarks, drawn per participant by the site:
    # [{"name": "hidden-1", "sizes": {"n": 1234567}}, ...] (version 2; docs/assessments.md).
    hidden_benchmarks: list[dict[str, Any]] = field(default_factory=list)
    version: int = PROTOCOL_VERSION

    def validate(self) -> None:
        """ProtocolError for a job that is not well formed; SourceRefused (carrying the job) for
        a well-formed one whose source cannot be judged."""
        for name, kind in _JOB_TYPES.items():
            value = getattr(self, name)
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise ProtocolError(f"the job's {name} is a {type(value).__name__}, not a {kind.__name__}")
        if self.version not in JOB_VERSIONS:
            raise ProtocolError(f"unsupported job version {self.version}")
        if self.version < JOB_VERSION_PARTICIPANT and (self.participant_seed or self.hidden_benchmarks):
            raise ProtocolError(f"participant fields need job version {JOB_VERSION_PARTICIPANT}")
        if not 0 <= self.participant_seed < 1 << 63:
            raise ProtocolError("participant_seed must be an int in [0, 2**63)")
        if len(self.hidden_benchmarks) > MAX_HIDDEN_BENCHMARKS:
            raise ProtocolError(f"hidden_benchmarks must be a list of at most {MAX_HIDDEN_BENCHMARKS} shapes")
        names: set[str] = set()
        for shape in self.hidden_benchmarks:
            label = shape.get("name") if isinstance(shape, dict) else None
            sizes = shape.get("sizes") if isinstance(shape, dict) else None
            if not isinstance(label, str) or not label.startswith(HIDDEN_PREFIX) or label in names:
                raise ProtocolError(f"hidden shape names must be unique and start with {HIDDEN_PREFIX!r}")
            names.add(label)
            if not isinstance(sizes, dict) or not all(
                isinstance(k, str) and type(v) is int and v > 0 for k, v in sizes.items()
            ):
                raise ProtocolError(f"hidden shape {label!r}: sizes must map names to positive ints")
        if self.mode not in MODES:
            raise ProtocolError(f"unknown mode {self.mode!r}")
        fault = source_text_fault(self.source)
        if fault:
            raise SourceRefused(fault, self)
        size = len(self.source.encode())
        if size > MAX_SOURCE_BYTES:
            raise SourceRefused(
                f"The source is {size / 1024:.1f} KiB; the limit is {MAX_SOURCE_BYTES // 1024} KiB.", self
            )

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JudgeJob:
        if not isinstance(data, dict):
            raise ProtocolError(f"the job is a {type(data).__name__}, not an object")
        try:
            job = _build(cls, data)
        except TypeError as exc:  # a required field is missing
            raise ProtocolError(f"the job is incomplete: {exc}") from None
        job.validate()
        return job


_JOB_TYPES: dict[str, type] = {
    "submission_id": str,
    "attempt": int,
    "problem": str,
    "language": str,
    "source": str,
    "mode": str,
    "seed": int,
    "content_hash": str,
    "participant_seed": int,
    "hidden_benchmarks": list,
    "version": int,
}


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
    # Where the wrong elements are: {first, last, count, total[, stride]} as flat indices.
    positions: dict[str, int] | None = None


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
    # CPU hosts: the median time per call the judge's own clock saw beyond the submission's
    # claimed times, added to them (0.0: the claims held; docs/judging.md section 2).
    judge_clock_added_us: float | None = None


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


# --- broker messages that cannot be read (docs/pipeline.md, "Dead letters") ------------------
# A message that is not JSON, or not the envelope kombu builds (a dict with `properties` holding
# a `delivery_tag`, an optional string body), would stop a Celery worker's consumer for good.
# The transports on both sides (platform/gridstride/submissions/transports.py, judge/transports.py)
# move such a message into a dead-letter folder instead and go on; so does the judge for a job
# it cannot read.


def envelope_fault(payload: Any) -> str | None:
    """What is wrong with a decoded broker message's envelope, or None if kombu can take it."""
    if not isinstance(payload, dict):
        return f"the message is a JSON {type(payload).__name__}, not an object"
    properties = payload.get("properties")
    if not isinstance(properties, dict):
        return "the message has no properties object"
    if "delivery_tag" not in properties:
        return "the message's properties have no delivery_tag"
    if not isinstance(properties.get("delivery_info", {}), dict):
        return "the message's delivery_info is not an object"
    if not isinstance(payload.get("body", ""), str):
        return "the message's body is not a string"
    if not isinstance(payload.get("headers", {}), dict):
        return "the message's headers are not an object"
    return None


def undecodable_raw(exc: ValueError) -> str:
    """The text (or bytes) a JSON or UTF-8 decoding error was raised on, as text."""
    raw = getattr(exc, "doc", None)
    if raw is None:
        raw = getattr(exc, "object", None) or b""
    return raw if isinstance(raw, str) else bytes(raw).decode("utf-8", errors="backslashreplace")


def keep_dead_letter(folder: str | os.PathLike[str] | None, *, raw: Any, reason: str, queue: str = "") -> str:
    """Write one dead letter (reason, queue, time, the message as received) as a JSON file of its
    own in `folder`, atomically; returns its path ("" without a folder: then only the log has it)."""
    if not folder:
        return ""
    os.makedirs(folder, exist_ok=True)
    now = time.time()
    name = f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime(now))}-{uuid.uuid4().hex[:12]}.json"
    record = {"received_at": now, "queue": queue, "reason": reason, "message": raw}
    path = os.path.join(folder, name)
    temporary = os.path.join(folder, f".{name}.part")
    with open(temporary, "w", encoding="utf-8") as f:
        json.dump(record, f, default=repr)
    os.replace(temporary, path)
    return path

"""The child's job: what the parent tells the sandboxed child to do, typed (docs/architecture.md).

The parent builds a ChildJob (parent/plan.py) and sends `to_dict()` as the first frame on the
child's fd 3; the child reads it back with `ChildJob.from_dict`, which refuses a job missing a
field or carrying one it does not know (the two sides are one version of the code, so a
mismatch is the judge's own fault, never the submission's). Two memories:

- "shared" (CPU hosts; GPU hosts with GRIDSTRIDE_PARENT_MEMORY=1): the parent owns every input
  and output and writes each call's inputs itself; the job carries sizes and shapes only: no
  seed, no input generator.
- "own" (GPU hosts by default): the child makes its inputs from the seeds and the reference's
  generator the job carries, and sends its outputs.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TensorDecl:
    name: str
    dtype: str


@dataclass(frozen=True)
class CaseJob:
    """A correctness case: its sizes and each tensor's shape (and, in "own" memory, its seed)."""

    name: str
    sizes: dict[str, int]
    shapes: dict[str, list[int]]
    seed: int | None = None


@dataclass(frozen=True)
class ShapeJob:
    """A benchmark shape (in "own" memory, with the seeds of its input pool, the key of its
    fresh inputs and the phase of the sample checked before its timing)."""

    name: str
    sizes: dict[str, int]
    shapes: dict[str, list[int]]
    pool_seeds: list[int] = field(default_factory=list)
    fresh_key: int | None = None
    sample_phase: int | None = None


# Fields only a child that makes its own inputs ("own" memory) is sent.
OWN_MEMORY_FIELDS = ("reference_source", "precheck_sample_bytes")


@dataclass
class ChildJob:
    memory: str  # "shared" | "own"
    language: str
    device: str  # "cpu" | "cuda"
    source: str  # "" for a compiled language: its library comes as the frame's blob
    shown_as: str  # the submission's file name in messages
    signature: list[str]  # solve()'s parameter names: inputs, outputs, sizes
    inputs: list[TensorDecl]
    outputs: list[TensorDecl]
    sizes: list[str]
    cases: list[CaseJob]
    benchmarks: list[ShapeJob]
    policy: dict[str, Any]  # child/timing.py's TimingPolicy
    order_seed: int
    pool_sets: int
    pool_memory_fraction: float
    gpu_memory_bytes: int
    precheck_sample_bytes: int = 0
    profile_kernels: bool = False
    profile_case: int = 0
    reference_source: str = ""  # "own" memory: the problem's reference module (its input generator)
    ncu: bool = False  # one call of the first shape under Nsight Compute (parent/profile.py)
    # Where the child wrote the job's files (child/job.py's materialize); never sent.
    paths: dict[str, str] = field(default_factory=dict)

    @property
    def shared(self) -> bool:
        return self.memory == "shared"

    def to_dict(self) -> dict[str, Any]:
        """The frame's fields. A shared-memory job leaves out every field of "own" memory, so
        that no seed, generator or sampling phase is even named in what the child receives."""
        data = dataclasses.asdict(self)
        del data["paths"]
        if self.shared:
            for name in OWN_MEMORY_FIELDS:
                del data[name]
            for case in data["cases"]:
                del case["seed"]
            for shape in data["benchmarks"]:
                for name in ("pool_seeds", "fresh_key", "sample_phase"):
                    del shape[name]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChildJob:
        """The job from its frame; ValueError when a field is missing or unknown."""
        names = {f.name for f in dataclasses.fields(cls)} - {"paths"}
        unknown, missing = (
            set(data) - names,
            {
                f.name
                for f in dataclasses.fields(cls)
                if f.name in names and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            }
            - set(data),
        )
        if unknown or missing:
            raise ValueError(f"child job: unknown fields {sorted(unknown)}, missing fields {sorted(missing)}")
        fields = dict(data)
        fields["inputs"] = [TensorDecl(**t) for t in data["inputs"]]
        fields["outputs"] = [TensorDecl(**t) for t in data["outputs"]]
        fields["cases"] = [CaseJob(**c) for c in data["cases"]]
        fields["benchmarks"] = [ShapeJob(**s) for s in data["benchmarks"]]
        return cls(**fields)

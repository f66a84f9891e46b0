"""The rules the trusted parent applies, one function per row of docs/judging.md section 6.

Each returns a Rejection (the rule's name and the message the user sees) or None when the rule
holds. The rules the child itself watches (global-state, tensor-identity, aliasing, and
inputs-modified between benchmark calls) arrive as violation frames; see child/runner.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judge import spec as specmod
from judge.harness import languages, source_checks

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class Rejection:
    rule: str
    message: str

    @property
    def text(self) -> str:
        return f"rule broken ({self.rule}): {self.message}"


def forbidden(source: str, language: str, spec: specmod.ProblemSpec) -> str | None:
    """A library call the problem forbids for the language (comments excluded): the message,
    which reads as the rule's row says (the verdict is `rejected`)."""
    findings = source_checks.find_forbidden(source, language, spec.forbidden.get(language, ()))
    if not findings:
        return None
    first = findings[0]
    listed = ", ".join(sorted({f.needle for f in findings}))
    return (
        f"forbidden for {language} in this problem: {listed} ({languages.get(language).shown_as}:"
        f"{first.line}: {first.text}); write the computation yourself"
    )


def inputs_modified(reported: Any, expected: list[str], label: str) -> Rejection | None:
    """The input checksums after the call against those of the inputs the parent generated."""
    if reported == expected:
        return None
    return Rejection(
        "inputs-modified",
        f"the inputs after solve() differ from the inputs the judge generated ({label}); inputs are read-only",
    )


def timing_consistency(shape: str, times_us: Sequence[float], span_us: float) -> Rejection | None:
    """The reported times may not add up to more than the parent's own clock saw pass."""
    total_us = math.fsum(times_us)
    if total_us <= span_us * 1.01 + 200.0:
        return None
    return Rejection(
        "timing-consistency",
        f"the reported times add up to {total_us:.0f} us but the timing phase of "
        f"shape {shape} lasted {span_us:.0f} us on the judge's clock",
    )


def hidden_work(shape: str, drain_counts: list[tuple[int, int]], slow: list[tuple[float, float]]) -> Rejection:
    """Work left running after solve() returned, in every timing of the shape: `slow` holds this
    timing's slow drains as (drain, call) in us. Whether a timing shows hidden work, and whether
    the shape is timed again first, is results.drains_show_hidden_work's and the caller's."""
    worst_drain, its_time = max(slow)
    counts = " and then ".join(f"{n} of {calls}" for n, calls in drain_counts)
    attempts = f"timed {len(drain_counts)} times, {counts}" if len(drain_counts) > 1 else counts
    return Rejection(
        "hidden-work",
        f"on shape {shape}, {attempts} timed calls left work "
        f"running after solve() returned (the device took up to {worst_drain:.0f} us to drain after a "
        f"{its_time:.0f} us call). Work must be launched on the default stream and finish within the call",
    )


def impossible_time(shape: str, median_us: float, floor_us: float, factor: float) -> Rejection | None:
    """A median below `factor` x the roofline floor: faster than the hardware allows."""
    if floor_us <= 0 or median_us >= factor * floor_us:
        return None
    return Rejection(
        "impossible-time",
        f"shape {shape} median {median_us:.2f} us is below "
        f"{factor:.0%} of the roofline floor {floor_us:.2f} us (the least time the bytes "
        "and FLOPs need on this GPU); results must be computed on every call, not reused",
    )


def library_compute(language: str, kernel_names: list[str], label: str) -> Rejection | None:
    """Library kernels (cuBLAS, ATen, CUTLASS, ...) did the work of a kernel-language submission."""
    if not languages.get(language).own_kernels:
        return None
    library = source_checks.library_kernels(kernel_names)
    if not library:
        return None
    return Rejection(
        "library-compute",
        f"library kernels did the work on {label}: "
        f"{', '.join(n[:120] for n in library[:5])}. In a {language} submission the computation "
        "must run in your own kernels",
    )


def no_kernel(language: str, kernel_names: list[str], label: str) -> Rejection | None:
    """A kernel-language submission whose solve() launched no GPU kernel of its own."""
    if not languages.get(language).own_kernels or source_checks.own_kernels(kernel_names):
        return None
    return Rejection(
        "no-kernel",
        f"solve() launched no GPU kernel of its own on {label} (only copies or fills); "
        "the computation must run in your own kernels",
    )


def malformed_frame(problem: str) -> Rejection:
    """The result channel carried something the child's harness does not send."""
    return Rejection(
        "malformed-frame",
        f"the judge's result channel carried a malformed message ({problem}); "
        "submissions must not write to the judge's file descriptors",
    )


def channel_incomplete() -> Rejection:
    """The child said it was done before every case and shape was reported (a forged "done")."""
    return Rejection(
        "malformed-frame",
        "the judge's result channel ended before every case and shape was reported; "
        "submissions must not write to the judge's file descriptors",
    )

"""Verdicts that follow from how the child ended, and the score of an accepted run
(docs/judging.md sections 5 and 6)."""

from __future__ import annotations

import re
import signal as signals
from typing import TYPE_CHECKING

from judge import spec as specmod
from judge.harness.common.stats import geometric_mean
from judge.harness.parent import launch, results
from judge.protocol import JudgeJob, Report, ShapeTiming

if TYPE_CHECKING:
    from judge.harness.parent.config import JudgeConfig
    from judge.harness.parent.plan import ShapeState

OUR_FAULT = "The judge failed on its side (the details are in the worker log); this is not a verdict on your code."
# rejected: a construct that needs a GPU on a CPU host (docs/judging.md, section 8); the child
# could already end in rejected through a violation frame, so this grants it nothing new.
CHILD_ERROR_VERDICTS = ("compile_error", "runtime_error", "memory_limit", "rejected", "internal_error")


def empty_report(job: JudgeJob) -> Report:
    return Report(
        submission_id=job.submission_id,
        attempt=job.attempt,
        problem=job.problem,
        language=job.language,
        mode=job.mode,
        verdict="internal_error",
    )


def exit_verdict(
    exit_: launch.Exit, where: str, limit_seconds: float, mode: str, memory_mb: int | str
) -> tuple[str, str]:
    """The verdict of a child that ended (after "ready") without a verdict frame."""
    if exit_.limit_hit == "wall":
        return "time_limit", f"time limit: the {limit_seconds:g} s limit of {mode} mode ran out while {where}"
    if exit_.limit_hit == "cpu":
        return "time_limit", f"time limit: the process used more CPU time than allowed while {where}"
    if exit_.limit_hit == "processes":
        return "runtime_error", f"the process started too many processes or threads while {where}"
    if exit_.limit_hit == "output":
        return "runtime_error", f"the process wrote too much output (or too large a file) while {where}"
    if exit_.limit_hit == "memory":
        return "memory_limit", f"memory limit: the process exceeded {memory_mb} MB while {where}"
    if exit_.signal is not None:
        try:
            name = signals.Signals(exit_.signal).name
        except ValueError:
            name = f"signal {exit_.signal}"
        if exit_.signal == signals.SIGKILL and exit_.limit_hit is None and launch.backend() == "subprocess":
            # Without the sandbox's memory cgroup, an unexplained SIGKILL is the host's OOM killer.
            return "memory_limit", f"the process was killed ({name}) while {where}, most likely for memory"
        return "runtime_error", f"the process crashed ({name}) while {where}"
    return "runtime_error", f"the process exited (status {exit_.exit_code}) before finishing, while {where}"


def floor_us(spec: specmod.ProblemSpec, sizes: dict[str, int], ceilings: dict[str, float], device: str) -> float:
    """The roofline floor of one shape: the least time its bytes and FLOPs need on this GPU."""
    if device != "cuda" or not ceilings:
        return 0.0
    cost = spec.cost
    memory_s = cost.bytes_for(sizes) / (ceilings["dram_gbps"] * 1e9)
    roof = ceilings[specmod.ROOF_CEILINGS[cost.compute_roof]]
    compute_s = cost.flops_for(sizes) / (roof * 1e12)
    return max(memory_s, compute_s) * 1e6


def shape_timing(spec: specmod.ProblemSpec, shape: ShapeState, report: Report, config: JudgeConfig) -> ShapeTiming:
    assert shape.times is not None
    baseline = config.baseline_cache.get((spec.slug, spec.ranking_hash, shape.name))
    floor = floor_us(spec, shape.sizes, report.ceilings, config.device)
    timing = results.shape_timing(spec, shape.name, shape.sizes, shape.times, floor, baseline)
    timing.timing_attempts = max(1, len(shape.drain_counts))
    timing.slow_drains = [n for n, _ in shape.drain_counts]
    if shape.clock_added_us is not None:
        timing.judge_clock_added_us = round(shape.clock_added_us, 1)
    return timing


def overall_sol_pct(timings: list[ShapeTiming]) -> float | None:
    """The geometric mean of the shapes' % of speed of light, None unless every shape has a
    floor. It is taken from each shape's floor and median, not its rounded sol_pct: a
    latency-bound shape far below 0.005% (a one-row sampling over a large vocabulary) rounds to
    0 there, yet the others still say how close the kernel comes."""
    sols = [t.floor_us / t.median_us * 100.0 for t in timings if t.floor_us > 0 and t.median_us > 0]
    return round(geometric_mean(sols), 2) if sols and len(sols) == len(timings) else None


def score(
    report: Report,
    spec: specmod.ProblemSpec,
    shapes: list[ShapeState],
    cases: int,
    clock_samples: list[dict[str, float]],
    config: JudgeConfig,
) -> None:
    """Accept a run whose every shape was timed and checked: its timings, score and system notes."""
    timings = [shape_timing(spec, shape, report, config) for shape in shapes]
    report.benchmarks = timings
    report.score_us = round(geometric_mean([t.median_us for t in timings]), 4)
    report.sol_pct = overall_sol_pct(timings)
    report.verdict = "accepted"
    report.ranked = config.device == "cuda"
    if clock_samples:
        report.system["clocks_after_timing"] = clock_samples
        sm = sorted(s["sm_clock_mhz"] for s in clock_samples)
        report.system["sm_clock_mhz"] = sm[len(sm) // 2]
        report.system["mem_clock_mhz"] = clock_samples[-1].get("mem_clock_mhz")
    report.system["l2_flush_bytes"] = shapes[0].flush_bytes
    report.system["l2_flush_kind"] = config.timing_policy().flush
    report.system["pool_sets"] = {s.name: s.pool_size for s in shapes}
    note = "" if report.ranked else " (CPU host: unranked)"
    report.message = (
        f"all {cases} cases passed; score {report.score_us:.3f} us (geometric mean of {len(timings)} shapes){note}"
    )


_JOB_PATH = re.compile(r"(?:/[\w.+-]+)*/(?:job|proc)-[\w]+/")


def scrub_job_paths(text: str) -> str:
    """Drop the private directories of a job from text shown to the user."""
    return _JOB_PATH.sub("", text)


def sizes_text(sizes: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sizes.items())

"""The parent's clock on the child's timed calls: the forged-timing rule (docs/judging.md section 6).

The child times each call itself (perf_counter on CPU hosts), because only it can time the call
alone; what it reports is a claim. Around every timed call the parent keeps two figures of its
own, which the child cannot reach:

- span: the parent's monotonic clock from writing the call's "go" to reading its "called";
- cpu: the CPU time the child's main thread used between two of its call requests (one whole
  loop iteration: the handshake and the call), read by the parent from the kernel's accounting
  (/proc/PID/task/PID/schedstat) while the child is blocked waiting for its next "go".

Neither is the call's time: both also hold the handshake (frames, wake-ups). How much is
calibrated before the submission is imported, while the child is still only the judge's code:
the same loop runs a judge-owned call (a spin of known length) whose own figures are true. Then
per shape, with the calibration's medians subtracted:

- wall excess: the lower quartile of span - claim over the timed calls, minus the calibrated
  median; the kernel's run-queue waits of the child's main thread and of the parent's frame
  reader are taken off each span first (a loaded host's scheduler, not the call). A forger that under-reports by a factor f adds (1 - 1/f) of its true time to every
  call's gap; scheduling noise on a busy host adds to some calls only, so the lower quartile
  sees the first and little of the second;
- cpu excess: the median of cpu - claim minus the calibrated median of (iteration cpu - the
  call's own cpu). A call cannot use more of its thread's CPU than its wall time, so an honest
  claim never falls below its CPU time; this bound is tight but sees only work done on the
  main thread (work moved to another thread shows in the span instead).

Either excess beyond its allowance (the largest of an absolute floor, a share of the claimed
median, the calibration's p10-p90 spread and the calibrated handshake itself) is forged-timing:
the claims are contradicted by the judge's own clock. So the most a forger can shave off a call
unseen is about one handshake (its CPU time on CPU hosts).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from judge.harness.common.stats import quantile


@dataclass(frozen=True)
class CallClock:
    """One call as the parent saw it (cpu_us None where the child's CPU time cannot be read)."""

    claim_us: float
    span_us: float
    cpu_us: float | None = None
    call_cpu_us: float | None = None  # calibration only: the judge-owned call's own CPU time
    # Time the child's main thread and the parent's frame reader spent runnable but not running
    # (the kernel's run-queue wait) during the call's iteration: a busy host's scheduler, not
    # the call, and taken off the span.
    wait_us: float = 0.0

    @property
    def wall_gap_us(self) -> float:
        return self.span_us - self.wait_us - self.claim_us


@dataclass(frozen=True)
class Allowance:
    """How far the parent's figures may exceed the claims before the claims count as forged."""

    wall_us: float
    cpu_us: float
    rel: float
    # ... or this many times the calibration's p10-p90 spread: a busy host widens the bound
    # rather than turning its scheduler's delays into a verdict (on the loaded 2-core dev host
    # an honest call's figures drifted by up to 0.6 of the spread between calibration and timing).
    spreads: float = 1.0
    # ... or this many times the calibrated handshake itself: on a loaded host all CPU work,
    # the handshake's too, costs more when its caches are shared with more processes (there an
    # honest call's iteration cost up to 0.75 of a handshake more than in the calibration).
    handshakes: float = 1.0


@dataclass(frozen=True)
class Calibration:
    wall_gap_us: float  # median of span - claim
    wall_p10_us: float
    wall_p90_us: float
    cpu_gap_us: float | None  # median of iteration cpu - the call's own cpu
    cpu_p10_us: float | None
    cpu_p90_us: float | None
    n: int

    def wall_spread_us(self) -> float:
        return self.wall_p90_us - self.wall_p10_us

    def cpu_spread_us(self) -> float:
        return 0.0 if self.cpu_p90_us is None or self.cpu_p10_us is None else self.cpu_p90_us - self.cpu_p10_us

    @classmethod
    def from_calls(cls, calls: Sequence[CallClock]) -> Calibration:
        if not calls:
            raise ValueError("no calibration calls")
        gaps = sorted(c.wall_gap_us for c in calls)
        cpu = sorted(c.cpu_us - c.call_cpu_us for c in calls if c.cpu_us is not None and c.call_cpu_us is not None)
        whole = len(cpu) == len(calls)
        return cls(
            wall_gap_us=statistics.median(gaps),
            wall_p10_us=quantile(gaps, 0.1),
            wall_p90_us=quantile(gaps, 0.9),
            cpu_gap_us=statistics.median(cpu) if whole else None,
            cpu_p10_us=quantile(cpu, 0.1) if whole else None,
            cpu_p90_us=quantile(cpu, 0.9) if whole else None,
            n=len(calls),
        )

    def as_dict(self) -> dict[str, float | int | None]:
        return {
            "wall_gap_us": round(self.wall_gap_us, 1),
            "wall_p10_us": round(self.wall_p10_us, 1),
            "wall_p90_us": round(self.wall_p90_us, 1),
            "cpu_gap_us": None if self.cpu_gap_us is None else round(self.cpu_gap_us, 1),
            "cpu_p10_us": None if self.cpu_p10_us is None else round(self.cpu_p10_us, 1),
            "cpu_p90_us": None if self.cpu_p90_us is None else round(self.cpu_p90_us, 1),
            "n": self.n,
        }


@dataclass
class ClockCheck:
    """One shape's timed calls against the parent's clock."""

    claimed_us: float  # the median the child reported
    span_us: float  # the parent's median span per call
    wall_excess_us: float
    wall_allowed_us: float
    cpu_us: float | None = None  # the median CPU time per iteration
    cpu_excess_us: float | None = None
    cpu_allowed_us: float | None = None
    broken: list[str] = field(default_factory=list)  # "wall" and/or "cpu"

    def as_dict(self) -> dict[str, object]:
        return {k: (round(v, 1) if isinstance(v, float) else v) for k, v in self.__dict__.items()}

    def message(self, shape: str, calibration: Calibration) -> str:
        parts = [
            f"on shape {shape} the submission's process reported a median of {self.claimed_us:.1f} us per call, "
            f"but the judge's own clock saw a median of {self.span_us:.1f} us per call from go to done, of which "
            f"the handshake takes {calibration.wall_gap_us:.1f} us (calibrated before your code was imported)"
        ]
        if "wall" in self.broken:
            parts.append(
                f"even the fastest quarter of the calls took {self.wall_excess_us:.1f} us longer than reported "
                f"(allowed: {self.wall_allowed_us:.1f} us)"
            )
        if "cpu" in self.broken and self.cpu_us is not None and self.cpu_excess_us is not None:
            parts.append(
                f"its main thread used a median of {self.cpu_us:.1f} us of CPU per call, {self.cpu_excess_us:.1f} us "
                f"more than it reported (allowed: {self.cpu_allowed_us:.1f} us)"
            )
        return "; ".join(parts) + ". The times were not measured honestly"


def check_calls(calls: Sequence[CallClock], calibration: Calibration, allowance: Allowance) -> ClockCheck:
    """The parent's figures for one shape's timed calls and which bounds the claims break."""
    if not calls:
        raise ValueError("no timed calls")
    claimed = statistics.median(c.claim_us for c in calls)
    relative = allowance.rel * claimed
    gaps = sorted(c.wall_gap_us for c in calls)
    check = ClockCheck(
        claimed_us=claimed,
        span_us=statistics.median(c.span_us for c in calls),
        wall_excess_us=quantile(gaps, 0.25) - calibration.wall_gap_us,
        wall_allowed_us=max(
            allowance.wall_us,
            relative,
            allowance.spreads * calibration.wall_spread_us(),
            allowance.handshakes * calibration.wall_gap_us,
        ),
    )
    if check.wall_excess_us > check.wall_allowed_us:
        check.broken.append("wall")
    cpu = [c.cpu_us for c in calls if c.cpu_us is not None]
    if calibration.cpu_gap_us is not None and len(cpu) == len(calls):
        check.cpu_us = statistics.median(cpu)
        check.cpu_excess_us = statistics.median(c - m.claim_us for c, m in zip(cpu, calls, strict=True)) - (
            calibration.cpu_gap_us
        )
        check.cpu_allowed_us = max(
            allowance.cpu_us,
            relative,
            allowance.spreads * calibration.cpu_spread_us(),
            allowance.handshakes * calibration.cpu_gap_us,
        )
        if check.cpu_excess_us > check.cpu_allowed_us:
            check.broken.append("cpu")
    return check


def thread_times(pid: int, tid: int | None = None) -> tuple[float, float] | None:
    """(CPU time run, time waited on a run queue) in us of thread `tid` (default: the main
    thread) of process `pid`, from the kernel's schedstat (nanoseconds, world-readable); None
    where it cannot be read."""
    try:
        with open(f"/proc/{pid}/task/{tid or pid}/schedstat", "rb") as fh:
            fields = fh.read().split()
        return int(fields[0]) / 1000.0, int(fields[1]) / 1000.0
    except (OSError, ValueError, IndexError):
        return None

"""The parent's clock on the child's timed calls: the forged-timing rule (docs/judging.md section 6).

The child times each call itself (perf_counter on CPU hosts), because only it can time the call
alone; what it reports is a claim. Timed calls come in batches, one go for several calls back to
back (parent/shared_calls.py, batch_size), so that the handshake is a small part of what the
parent's clock sees. Around every batch the parent keeps two figures of its own, which the
child cannot reach:

- span: the parent's monotonic clock from writing the call's "go" to reading its "called";
- cpu: the CPU time the child's main thread used between two of its call requests (one whole
  loop iteration: the handshake and the call), read by the parent from the kernel's accounting
  (/proc/PID/task/PID/schedstat) while the child is blocked waiting for its next "go".

Neither is the call's time: both also hold the handshake (frames, wake-ups). How much is
calibrated per shape before the submission is imported, while the child is still only the
judge's code: the same loop runs a judge-owned call (it touches the shape's inputs and outputs,
then spins to a known length) on memory the parent stages exactly as for the shape's timed
calls, so the handshake runs in caches as cold as it will in the timing. Then per shape, with
the calibration's medians subtracted:

- wall excess: the lower quartile of span - claim - run-queue wait over the timed batches,
  minus the calibrated median. A forger that under-reports by a factor f adds (1 - 1/f) of its
  true time to every batch's gap; scheduling noise on a busy host adds to some batches only, so
  the lower quartile sees the first and little of the second, and where a loaded host preempts
  the child in every batch (between its calls, where no claim holds the wait) the kernel's
  run-queue accounting, which the child cannot touch, says how long;
- cpu excess: the median of cpu - claim minus the calibrated median of (iteration cpu - the
  call's own cpu). A call cannot use more of its thread's CPU than its wall time, so an honest
  claim never falls below its CPU time; this bound is tight but sees only work done on the
  main thread (work moved to another thread shows in the span instead).

The judge's clock is the authority on the score; the claims only say how a batch's time splits
among its calls:

- every batch counts at least what the judge's clock saw: its span less the calibration's
  lower decile (p10) of the handshake. Where that is more than the batch's claims, the
  difference is added to its calls, each its share. An honest batch loses only when its
  handshake ran slower than the calibration's fastest tenth (a few percent of a batch of
  BATCH_TARGET_US); a forger gains nothing, whatever it claims;
- an excess beyond GROSS times its allowance (the largest of an absolute floor, a share of the
  claimed median and the calibration's p10-p90 spread) and beyond the claimed median itself
  (the judge's clock saw more than twice what was claimed, far outside any noise) is
  forged-timing: rejected, with both figures in the message.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from judge.harness.common.stats import quantile


@dataclass(frozen=True)
class CallClock:
    """One go as the parent saw it: a call, or a batch of timed calls whose claims are summed
    (cpu_us None where the child's CPU time cannot be read)."""

    claim_us: float
    span_us: float
    cpu_us: float | None = None
    call_cpu_us: float | None = None  # calibration only: the judge-owned call's own CPU time
    # Time the child's main thread and the parent's frame reader spent runnable but not running
    # (the kernel's run-queue wait) during the go. Never taken off what the batch counts (the
    # submission's own threads can make its main thread wait); taken off the gap only where the
    # gap decides a forged-timing rejection, so that a host's scheduler, preempting the child
    # between two of its calls where no claim sees it, is not called a forger.
    wait_us: float = 0.0
    calls: int = 1  # timed calls under this go

    @property
    def wall_gap_us(self) -> float:
        return self.span_us - self.claim_us


def per_call(go: CallClock) -> CallClock:
    """A go's figures per timed call. On a GPU each call of a batch carries the judge's own
    flush, launch cover and synchronize, so a batch's gap grows with its calls: the calibration
    and the check compare calls, not batches of different sizes."""
    n = max(go.calls, 1)
    return CallClock(go.claim_us / n, go.span_us / n, None, None, go.wait_us / n, 1)


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


# How far beyond its allowance an excess must go (and beyond the claimed median) to be a
# rejection rather than a correction of the claims: on the loaded 2-core CI host honest calls
# went up to about 1.2 allowances beyond the calibration.
GROSS = 3.0


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
    broken: list[str] = field(default_factory=list)  # "wall" and/or "cpu": beyond the allowance
    forged: bool = False  # some excess is gross: the claims are rejected
    # Per batch, what the judge's clock saw beyond the batch's claims (added to its calls).
    added_us: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {k: (round(v, 1) if isinstance(v, float) else v) for k, v in self.__dict__.items()}

    def message(self, shape: str, calibration: Calibration, batch: int = 1) -> str:
        unit = "per call" if batch == 1 else f"per batch of up to {batch} calls"
        parts = [
            f"on shape {shape} the submission's process reported a median of {self.claimed_us:.1f} us {unit}, "
            f"but the judge's own clock saw a median of {self.span_us:.1f} us {unit} from go to done, of which "
            f"the handshake takes {calibration.wall_gap_us:.1f} us (calibrated before your code was imported)"
        ]
        if "wall" in self.broken:
            parts.append(
                f"even the fastest quarter took {self.wall_excess_us:.1f} us longer than reported "
                f"(allowed: {self.wall_allowed_us:.1f} us)"
            )
        if "cpu" in self.broken and self.cpu_us is not None and self.cpu_excess_us is not None:
            parts.append(
                f"its main thread used a median of {self.cpu_us:.1f} us of CPU {unit}, {self.cpu_excess_us:.1f} us "
                f"more than it reported (allowed: {self.cpu_allowed_us:.1f} us)"
            )
        return "; ".join(parts) + ". The times were not measured honestly"


def check_calls(
    calls: Sequence[CallClock], calibration: Calibration, allowance: Allowance, ranked: bool = False
) -> ClockCheck:
    """The parent's figures for one shape's timed calls and which bounds the claims break.
    Each batch counts at least its span less the calibration's fastest tenth of handshakes; on
    a host whose results are ranked (a GPU's) less its slowest tenth instead, so that handshake jitter
    within the calibration's own p90 never moves an honest score (a forger keeps that spread, the
    calibration's p90 - p10, which docs/judging.md states as the bound)."""
    if not calls:
        raise ValueError("no timed calls")
    claimed = statistics.median(c.claim_us for c in calls)
    relative = allowance.rel * claimed
    unwaited = sorted(c.wall_gap_us - c.wait_us for c in calls)
    check = ClockCheck(
        claimed_us=claimed,
        span_us=statistics.median(c.span_us for c in calls),
        wall_excess_us=quantile(unwaited, 0.25) - calibration.wall_gap_us,
        wall_allowed_us=max(
            allowance.wall_us,
            relative,
            allowance.spreads * calibration.wall_spread_us(),
        ),
    )
    if check.wall_excess_us > check.wall_allowed_us:
        check.broken.append("wall")
        check.forged = check.wall_excess_us > max(GROSS * check.wall_allowed_us, claimed)
    handshake = calibration.wall_p90_us if ranked else calibration.wall_p10_us
    check.added_us = [max(0.0, c.wall_gap_us - handshake) for c in calls]
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
        )
        if check.cpu_excess_us > check.cpu_allowed_us:
            check.broken.append("cpu")
            check.forged = check.forged or check.cpu_excess_us > max(GROSS * check.cpu_allowed_us, claimed)
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

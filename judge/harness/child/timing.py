"""The timed loop: warm-up, then adaptive repetition with CUDA events.

Used by the child for submissions and by the parent for the problem's baseline. Every call:
prepare(set) (poison the outputs) -> L2 flush -> launch cover -> start event -> call(set) -> end
event; then the end event is waited for, the elapsed time read, and a device-wide synchronize is
timed (the drain): an honest call has nothing left on the device, so it returns at once, while
work hidden on another stream is still running. The caller (the parent) decides what a long drain
means; this module only measures.

The launch cover is a GPU-side wait queued before the start event, sized from the host's measured
time to enqueue one call: while the GPU waits, the host launches the call, so the start event
fires when the first kernel is already queued. Without it, the time the host's Python spends
getting to the first launch lands between the events whenever it outlasts the flush; on the
H200 that made the same kernel's median differ by up to 2x between processes (16M vector_add:
53 vs 101 us).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import random
import resource
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import torch

from judge.harness.common.stats import ci_converged


@dataclass
class TimingPolicy:
    warmup_min: int = 3
    warmup_max: int = 50
    warmup_seconds: float = 20.0
    warmup_stable_rel: float = 0.05
    min_reps: int = 20
    max_reps: int = 3000
    max_seconds: float = 10.0
    ci_target_rel: float = 0.005
    check_every: int = 10
    # Each input set gets its own output buffers, so no single buffer's placement in device
    # memory weighs on every timed call (one shared output made a streaming kernel's median
    # bimodal between processes on the H200: 192.7 vs 212.0 us). GRIDSTRIDE_OUTPUTS_PER_SET=0
    # turns it off for comparison runs.
    outputs_per_set: bool = True
    # The launch cover's bounds (see the module docstring); cover_max_us = 0 turns it off.
    cover_min_us: float = 20.0
    cover_max_us: float = 500.0
    flush: str = "read"  # or "write" (see L2Flusher)
    # "sleep": one thread spins (torch.cuda._sleep); "fill": every thread slot of the GPU spins
    # (cover_kernel.py), so a side stream cannot run beside the cover whatever its priority.
    cover_kind: str = "fill"
    # Measurement runs only (GRIDSTRIDE_DRAIN_DETAIL=1, bench/drain_probe.py): per timed call,
    # what the drain's synchronize cost the host thread (see TimedRun.drain_detail).
    drain_detail: bool = False

    @classmethod
    def for_cpu(cls) -> TimingPolicy:
        return cls(
            warmup_min=1,
            warmup_max=3,
            warmup_seconds=5.0,
            min_reps=5,
            max_reps=30,
            max_seconds=3.0,
            ci_target_rel=0.02,
            check_every=5,
        )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TimingPolicy:
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


@dataclass
class TimedRun:
    times_us: list[float] = field(default_factory=list)
    sets: list[int] = field(default_factory=list)
    drains_us: list[float] = field(default_factory=list)
    warmup_us: list[float] = field(default_factory=list)
    stop_reason: str = ""
    cover_us: float = 0.0  # the launch cover used for the timed calls
    enqueue_us: float = 0.0  # median host time to enqueue one call, measured in warm-up
    # With TimingPolicy.drain_detail, per timed call: [drain us, a second synchronize right
    # after it (the device idle) us, involuntary and voluntary context switches of the thread
    # during the drain, the thread's CPU time during the drain us, wall clock (time.time())].
    drain_detail: list[list[float]] = field(default_factory=list)


# Bound at import, before any submission runs: replacing torch.sum or torch.cuda._sleep later
# changes neither the flush nor the cover (and the guard reports the replacement).
_sum = torch.sum
_gpu_sleep = torch.cuda._sleep


class L2Flusher:
    """Reads a buffer of at least twice the device's L2 so no input or output stays cached.

    The buffer is allocated once per process (allocation inside the loop would time the
    allocator). A read, not a write: writing it (zero_) leaves the L2 full of dirty lines that
    the timed kernel then pays to write back, about 5 us per call on the H200 whatever the
    kernel (51.2 vs 46.1 us for a 16M-element add). The sum's 8-byte result goes to a
    preallocated tensor. TimingPolicy.flush = "write" restores the memset for comparison runs.
    """

    def __init__(self, device: str) -> None:
        self.device = device
        self.l2_bytes = 0
        self.buffer: torch.Tensor | None = None
        self.result: torch.Tensor | None = None
        if device == "cuda":
            props = torch.cuda.get_device_properties(torch.cuda.current_device())
            self.l2_bytes = int(getattr(props, "L2_cache_size", 0) or 0)
            if self.l2_bytes <= 0:
                raise RuntimeError("the device reports no L2 cache size; refusing to time without a flush")
            self.buffer = torch.ones(2 * self.l2_bytes // 8, dtype=torch.int64, device="cuda")
            self.result = torch.empty((), dtype=torch.int64, device="cuda")

    @property
    def flush_bytes(self) -> int:
        return 0 if self.buffer is None else self.buffer.numel() * self.buffer.element_size()

    def flush(self, kind: str = "read") -> None:
        if self.buffer is None or self.result is None:
            return
        if kind == "read":
            _sum(self.buffer, dim=0, out=self.result)
        else:
            self.buffer.zero_()


class LaunchCover:
    """A GPU-side wait of a chosen length on the current stream.

    "sleep": torch.cuda._sleep spins one thread for a number of clock cycles (cycles per
    microsecond are measured once here). "fill": cover_kernel.spin on every thread slot of every
    multiprocessor (cover_geometry), each block spinning on the nanosecond timer.
    """

    def __init__(self, kind: str = "fill") -> None:
        if kind not in ("sleep", "fill"):
            raise ValueError(f"unknown launch cover {kind!r}")
        self.kind = kind
        self.cycles_per_us = 0.0
        if kind == "fill":
            from judge.harness.child.cover_kernel import device_cover_geometry, spin

            self.spin = spin
            blocks, self.num_warps = device_cover_geometry()
            self.grid = (blocks,)
            self.wait(10.0)  # compile now, not inside the first timed call
            torch.cuda.synchronize()
            return
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        cycles = 200_000
        rates = []
        for _ in range(3):
            start.record()
            _gpu_sleep(cycles)
            end.record()
            end.synchronize()
            rates.append(cycles / max(start.elapsed_time(end) * 1000.0, 1e-3))
        self.cycles_per_us = sorted(rates)[1]

    def wait(self, microseconds: float) -> None:
        if microseconds <= 0:
            return
        if self.kind == "fill":
            self.spin[self.grid](int(microseconds * 1000.0), num_warps=self.num_warps)
        else:
            _gpu_sleep(int(microseconds * self.cycles_per_us))


class SetOrder:
    """Random order over K input sets: shuffled rounds, never the same set twice in a row."""

    def __init__(self, k: int, rng: random.Random) -> None:
        self.k = k
        self.rng = rng
        self.queue: list[int] = []
        self.last = -1

    def next(self) -> int:
        if self.k == 1:
            return 0
        if not self.queue:
            self.queue = list(range(self.k))
            self.rng.shuffle(self.queue)
            if self.queue[-1] == self.last:
                self.queue[0], self.queue[-1] = self.queue[-1], self.queue[0]
        self.last = self.queue.pop()
        return self.last


def gpu_call_us(
    call: Callable[[], Any],
    flusher: L2Flusher,
    flush: str,
    cover: LaunchCover | None,
    cover_us: float,
    start: torch.cuda.Event,
    end: torch.cuda.Event,
) -> float:
    """One timed GPU call: the L2 flush, the launch cover, CUDA events around the call, the end
    event waited for; its time in us (the caller synchronizes the device, or times that too)."""
    flusher.flush(flush)
    if cover is not None:
        cover.wait(cover_us)
    start.record()
    call()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1000.0


@functools.cache
def launch_cover(kind: str) -> LaunchCover:
    """One per process and kind: calibrated (or compiled) once, not for every shape."""
    return LaunchCover(kind)


def launch_cover_for(enqueue_us: list[float], policy: TimingPolicy) -> tuple[float, float]:
    """(median host enqueue time of the last five warm-up calls, the cover for the timed calls):
    three times that median, since the host's launch path varies from call to call, within the
    policy's bounds; no cover when the policy turns it off or nothing was measured."""
    if policy.cover_max_us <= 0 or not enqueue_us:
        return 0.0, 0.0
    recent = sorted(enqueue_us[-5:])
    median = recent[len(recent) // 2]
    return median, min(max(3.0 * median, policy.cover_min_us), policy.cover_max_us)


def time_calls(
    call: Callable[[int], None],
    prepare: Callable[[int], None],
    *,
    sets: int,
    policy: TimingPolicy,
    device: str,
    flusher: L2Flusher,
    rng: random.Random,
    after: Callable[[int, float], None] | None = None,
    on_timing_start: Callable[[], None] | None = None,
) -> TimedRun:
    """Warm up, then time calls until the median's CI is tight enough or the budget is spent.
    after(set, elapsed us) runs after each call, outside its timed window."""
    order = SetOrder(sets, rng)
    run = TimedRun()
    perf = time.perf_counter_ns
    enqueue_us: list[float] = []  # host time to enqueue each warm-up call (sizes the launch cover)
    warming = True
    if device == "cuda":
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        sync = torch.cuda.synchronize
        detail = policy.drain_detail
        cover = launch_cover(policy.cover_kind) if policy.cover_max_us > 0 else None

        def enqueued(index: int) -> None:  # a warm-up call, its host enqueue time noted
            t_enqueue = perf()
            call(index)
            enqueue_us.append((perf() - t_enqueue) / 1000.0)

        def one(index: int) -> tuple[float, float]:
            prepare(index)
            # a timed call alone between its events; a warm-up call also notes its enqueue time
            timed = functools.partial(enqueued if warming else call, index)
            elapsed_us = gpu_call_us(timed, flusher, policy.flush, cover, run.cover_us, start, end)
            measured = detail and not warming
            if measured:
                usage, cpu = resource.getrusage(resource.RUSAGE_THREAD), time.thread_time_ns()
            t0 = perf()
            sync()
            drain_us = (perf() - t0) / 1000.0
            if measured:
                after_usage, after_cpu = resource.getrusage(resource.RUSAGE_THREAD), time.thread_time_ns()
                t1 = perf()
                sync()
                again_us = (perf() - t1) / 1000.0
                run.drain_detail.append(
                    [
                        round(drain_us, 1),
                        round(again_us, 1),
                        after_usage.ru_nivcsw - usage.ru_nivcsw,
                        after_usage.ru_nvcsw - usage.ru_nvcsw,
                        round((after_cpu - cpu) / 1000.0, 1),
                        round(time.time(), 4),
                    ]
                )
            return elapsed_us, drain_us

    else:

        def one(index: int) -> tuple[float, float]:
            prepare(index)
            t0 = perf()
            call(index)
            return (perf() - t0) / 1000.0, 0.0

    # Warm-up: until two consecutive calls agree within warmup_stable_rel (compilation and
    # autotuning finished), bounded by count and seconds.
    began = time.monotonic()
    previous = None
    while True:
        index = order.next()
        elapsed, _ = one(index)
        if after is not None:
            after(index, elapsed)
        run.warmup_us.append(elapsed)
        count = len(run.warmup_us)
        stable = previous is not None and abs(elapsed - previous) <= policy.warmup_stable_rel * max(previous, 1e-9)
        previous = elapsed
        if count >= policy.warmup_max or time.monotonic() - began > policy.warmup_seconds:
            break
        if count >= policy.warmup_min and stable:
            break

    warming = False
    if device == "cuda":
        run.enqueue_us, run.cover_us = launch_cover_for(enqueue_us, policy)
    if on_timing_start is not None:
        on_timing_start()
    with collector_paused():
        began = time.monotonic()
        while True:
            index = order.next()
            elapsed, drain = one(index)
            if after is not None:
                after(index, elapsed)
            run.times_us.append(elapsed)
            run.drains_us.append(drain)
            run.sets.append(index)
            n = len(run.times_us)
            if n >= policy.max_reps:
                run.stop_reason = "count"
                break
            if time.monotonic() - began > policy.max_seconds:
                run.stop_reason = "seconds"
                break
            if (
                n >= policy.min_reps
                and n % policy.check_every == 0
                and ci_converged(run.times_us, policy.ci_target_rel)
            ):
                run.stop_reason = "ci"
                break
    return run


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off for the timed calls (as timeit does): a collection landing
    between a call's end event and the drain's synchronize reads as work left on the device."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()

"""The child's runs on memory the parent owns (docs/judging.md sections 2 and 5).

Every call, checked or timed, goes: ask the parent for the call's memory (a Call frame), wait
for its "go" (the inputs are written and the outputs poisoned by then), call, then say Called
with the call's own time. The parent reads the outputs and inputs from its
own mapping and keeps its own clock around the call; the child sends no output bytes, no
checksum and no seed (it has none).

Between "go" and "called" of a warm-up or timed call the child does nothing but the call: its
own checks (tensor identity, the guard) come after "called", and the guard only once per
timing. Everything between the two frames is handshake to the parent's clock, and the less
there is, the less noise the clock's bound has to allow (parent/clock.py).

On a GPU a call's claim is the CUDA events' time around it, each call timed as on the older
path (flush, the judge's launch cover of a fixed length, events, a device-wide synchronize):
the parent's clock then spans every kernel the batch queued, on any stream. (Calls queued back
to back with no cover between them measured 6-13% apart between judgings on the H200: when
the host falls behind the GPU, the start event fires before the call's first launch.)

Before the submission is imported, `calibrate` runs the same loop around a judge-owned call of
known length, so the parent learns what the handshake adds to its clock while the child's word
is still the judge's own.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch

from judge.harness.child.shared_inputs import Refused
from judge.harness.child.timing import SetOrder, TimedRun, TimingPolicy, collector_paused, gpu_call_us, launch_cover
from judge.harness.common.frames import Call, Called, Pool, Stage, Times, TimingStart
from judge.harness.common.stats import ci_converged

if TYPE_CHECKING:
    from judge.harness.child.runner import Runner

CALIBRATION_CALLS = 16
CALIBRATION_BATCHES = 5
CALIBRATION_SPIN_US = 200.0
# A timing has at least this many batches before it stops on its count or its interval (two
# before it stops on its seconds): the parent's clock checks each batch and takes a quantile
# over them (parent/clock.py).
MIN_BATCHES = 4

# A call on one input set: (the call, its inputs, its outputs, their identity before any call).
Bound = tuple[Callable[[], Any], list[torch.Tensor], list[torch.Tensor], list[Any]]


class BatchClock:
    """The claims of a go's calls: the host's clock around each call on a CPU. On a GPU, each
    call as on the older path (child/timing.py): the L2 flush, the judge's launch cover of the
    job's fixed length, CUDA events around the call, the end event waited for and the device
    synchronized; the parent's clock then spans the batch."""

    def __init__(self, runner: Runner, policy: TimingPolicy) -> None:
        self.device = runner.device
        self.flusher = runner.flusher
        self.flush_kind = policy.flush
        self.cover_us = policy.cover_max_us if self.device == "cuda" else 0.0
        self.cover = launch_cover(policy.cover_kind) if self.device == "cuda" and self.cover_us > 0 else None
        if self.device == "cuda":
            self.start = torch.cuda.Event(enable_timing=True)
            self.end = torch.cuda.Event(enable_timing=True)

    def run(self, calls: list[Callable[[], Any]]) -> list[float]:
        claims = []
        if self.device != "cuda":
            perf = time.perf_counter_ns
            for call in calls:  # nothing of the harness's between the calls but the clock
                t0 = perf()
                call()
                claims.append((perf() - t0) / 1000.0)
            return claims
        assert self.flusher is not None
        for call in calls:
            claims.append(
                gpu_call_us(call, self.flusher, self.flush_kind, self.cover, self.cover_us, self.start, self.end)
            )
            torch.cuda.synchronize()  # work left on other streams ends inside the batch
        return claims


def time_batches(
    runner: Runner,
    shape: int,
    bind: Callable[[int, str, list[torch.Tensor], list[torch.Tensor]], Bound],
    k: int,
    policy: TimingPolicy,
    rng: random.Random,
    started: Callable[[], None],
    cpu: Callable[[], float | None] = lambda: None,
    min_batches: int = MIN_BATCHES,
    calibration: bool = False,
) -> TimedRun:
    """The timed loop of CPU hosts. Warm-up calls one at a time over k input sets until two
    agree (compilation done), as time_calls does; then timed calls in batches whose size the
    parent decides: a batch's calls run back to back after one go, each timed by this process,
    and the parent bounds the batch with its own clock (parent/clock.py). The calls are shape
    `shape`'s (the judge's own when calibrating); cpu() adds the CPU time the calls used to each
    report."""
    run = TimedRun()
    timer = BatchClock(runner, policy)
    run.cover_us = timer.cover_us
    order = SetOrder(k, rng)
    channel, shared = runner.channel, runner.shared
    assert shared is not None

    def check(bound: Bound) -> None:  # the child's own identity checks; the guard once per timing
        runner.check_after_call(bound[1], bound[2], bound[3], guard=False)

    began, previous = time.monotonic(), None
    while True:
        index = order.next()
        request = Call(shape=shape, set=index, phase="warmup", calibration=calibration)
        bound = bind(index, *shared.acquire(request))
        elapsed = timer.run([bound[0]])[0]
        channel.send(Called(shape=shape, set=index, phase="warmup", us=elapsed, calibration=calibration, cpu_us=cpu()))
        check(bound)
        run.warmup_us.append(elapsed)
        stable = previous is not None and abs(elapsed - previous) <= policy.warmup_stable_rel * max(previous, 1e-9)
        previous = elapsed
        count = len(run.warmup_us)
        if count >= policy.warmup_max or time.monotonic() - began > policy.warmup_seconds:
            break
        if count >= policy.warmup_min and stable:
            break
    started()
    with collector_paused():
        began, batches = time.monotonic(), 0
        while True:
            planned = shared.acquire_batch(Call(shape=shape, phase="timed", batch=True, calibration=calibration))
            sets = [index for index, *_ in planned]
            calls = [bind(*call) for call in planned]
            claims = timer.run([bound[0] for bound in calls])
            channel.send(
                Called(shape=shape, sets=sets, phase="timed", us=claims, calibration=calibration, cpu_us=cpu())
            )
            for bound in calls:
                check(bound)
            run.times_us.extend(claims)
            run.sets.extend(sets)
            run.drains_us.extend([0.0] * len(sets))
            batches += 1
            n = len(run.times_us)
            if batches >= 2 and time.monotonic() - began > policy.max_seconds:
                run.stop_reason = "seconds"
                break
            if batches < min_batches:
                continue
            if n >= policy.max_reps:
                run.stop_reason = "count"
                break
            if n >= policy.min_reps and ci_converged(run.times_us, policy.ci_target_rel):
                run.stop_reason = "ci"
                break
    return run


def calibration_policy(job_policy: TimingPolicy) -> TimingPolicy:
    """The calibration's own counts, with the job's flush and launch cover (on a GPU the
    handshake it measures includes both, as the submission's timed calls do)."""
    return TimingPolicy(
        flush=job_policy.flush,
        cover_kind=job_policy.cover_kind,
        cover_min_us=job_policy.cover_min_us,
        cover_max_us=job_policy.cover_max_us,
        warmup_min=2,
        warmup_max=2,
        warmup_seconds=5.0,
        min_reps=CALIBRATION_CALLS,
        max_reps=CALIBRATION_CALLS,
        max_seconds=10.0,
        ci_target_rel=0.0,  # never stops early on its interval
    )


def calibrate(runner: Runner) -> None:
    """Per benchmark shape, the judge's own call through the timed loop, in batches the parent
    sizes as for the shape's timed calls, on memory it stages as for them: the call reads every
    input, zeroes every output (so the shape's bytes pass through this core's caches as in an
    honest call) and spins to CALIBRATION_SPIN_US; each report carries the CPU time the calls
    used (true here: nothing of the submission is loaded yet). On a GPU the call is device work
    alone (a read of every input, a write of every output) and no CPU time is reported: a GPU
    call's CPU time says nothing of its length."""
    shared = runner.shared
    assert shared is not None
    for j in range(len(runner.job.benchmarks)):
        calibrate_shape(runner, j)
    shared.release_all()


def calibrate_shape(runner: Runner, j: int) -> None:
    held: dict[int, Bound] = {}
    spun_cpu_us = [0.0]  # since the last report

    on_gpu = runner.device == "cuda"

    def read(tensor: torch.Tensor) -> None:
        # torch has no sum of fp8 tensors: their bytes are read instead
        (tensor.view(torch.uint8) if tensor.dtype == torch.float8_e4m3fn else tensor).sum()

    def bind(index: int, key: str, inputs: list[torch.Tensor], outputs: list[torch.Tensor]) -> Bound:
        if index not in held:

            def touch_and_spin() -> None:
                cpu0 = time.thread_time_ns()
                end = time.perf_counter_ns() + int(CALIBRATION_SPIN_US * 1000)
                for tensor in inputs:
                    read(tensor)
                for tensor in outputs:
                    tensor.zero_()
                if on_gpu:  # device work alone: the events time it
                    return
                while time.perf_counter_ns() < end:
                    pass
                spun_cpu_us[0] += (time.thread_time_ns() - cpu0) / 1000.0

            held[index] = (touch_and_spin, inputs, outputs, runner.meta(inputs + outputs))
        return held[index]

    def cpu() -> float | None:
        used, spun_cpu_us[0] = spun_cpu_us[0], 0.0
        return None if on_gpu else used

    policy, rng = calibration_policy(TimingPolicy.from_dict(runner.job.policy)), random.Random(0)
    time_batches(runner, j, bind, 1, policy, rng, lambda: None, cpu, CALIBRATION_BATCHES, calibration=True)


def correctness(runner: Runner) -> None:
    shared = runner.shared
    assert shared is not None
    cases = runner.job.cases
    for i, case in enumerate(cases):
        runner.channel.send(Stage(stage="testing", done=i, total=len(cases), detail=case.name))
        key, inputs, outputs = shared.acquire(Call(case=i))
        call = runner.submission.bind(inputs, outputs, [case.sizes[n] for n in runner.sizes_names])
        returned = runner.call_checked(call, inputs, outputs, f"testing case {case.name!r}")
        runner.channel.send(Called(case=i, returned=returned is not None))
        del inputs, outputs, call
        shared.release(key)


def benchmarks(runner: Runner, fail: Callable[[BaseException, str], None]) -> bool:
    """Every benchmark shape; False when the parent said stop. fail(exc, stage) reports an
    exception of the submission's (then raises)."""
    policy = TimingPolicy.from_dict(runner.job.policy)
    order_rng = random.Random(runner.job.order_seed)
    return all(ShapeRun(runner, j).run(policy, order_rng, fail) for j in range(len(runner.job.benchmarks)))


class ShapeRun:
    """One benchmark shape: the checked call on set 0, then warm-up and timed calls."""

    def __init__(self, runner: Runner, j: int) -> None:
        assert runner.shared is not None
        self.runner = runner
        self.shared = runner.shared
        self.j = j
        self.shape = runner.job.benchmarks[j]
        self.total = len(runner.job.benchmarks)
        self.sizes = [self.shape.sizes[n] for n in runner.sizes_names]
        self.phase = "warmup"
        self.calls: dict[int, Bound] = {}
        self.keys: set[str] = set()

    def stage(self, detail: str) -> None:
        self.runner.channel.send(Stage(stage="benchmarking", done=self.j, total=self.total, detail=detail))

    def run(self, policy: TimingPolicy, order_rng: random.Random, fail: Callable[[BaseException, str], None]) -> bool:
        runner, j, name = self.runner, self.j, self.shape.name
        self.stage(name)
        k = max(1, min(runner.job.pool_sets, 4))
        runner.channel.send(Pool(shape=j, size=k, flush_bytes=0))
        try:
            key, inputs, outputs = self.shared.acquire(Call(shape=j, set=0, phase="check"))
        except Refused:
            return False
        self.keys.add(key)
        call = runner.submission.bind(inputs, outputs, self.sizes)
        returned = runner.call_checked(call, inputs, outputs, f"benchmark shape {name!r}")
        runner.channel.send(Called(shape=j, set=0, phase="check", returned=returned is not None))
        if not runner.channel.wait_go():
            return False
        while True:  # once, or again when the parent asks
            self.phase = "warmup"
            try:
                timed = time_batches(runner, j, self.bind, k, policy, order_rng, self.started)
            except Refused:
                return False
            except BaseException as exc:
                if type(exc).__name__ == "Violation":
                    raise
                fail(exc, f"timing shape {name!r}")
                raise
            runner.check_guard()  # once per timing: outside the calls' handshakes
            runner.channel.send(
                Times(
                    shape=j,
                    times_us=timed.times_us,
                    sets=timed.sets,
                    drains_us=timed.drains_us,
                    warmup_us=timed.warmup_us,
                    stop_reason=timed.stop_reason,
                    cover_us=timed.cover_us,
                )
            )
            answer = runner.channel.wait_answer()
            if not answer.go:
                return False
            if not answer.retime:
                break
        self.calls.clear()
        for used in self.keys:
            self.shared.release(used)
        return True

    def bind(self, index: int, key: str, inputs: list[torch.Tensor], outputs: list[torch.Tensor]) -> Bound:
        """The submission's call on input set `index` (its region stays the same from call to call)."""
        self.keys.add(key)
        if index not in self.calls:
            call = self.runner.submission.bind(inputs, outputs, self.sizes)
            self.calls[index] = (call, inputs, outputs, self.runner.meta(inputs + outputs))
        return self.calls[index]

    def started(self) -> None:
        self.phase = "timed"
        self.stage(f"{self.shape.name}: timing")
        self.runner.channel.send(TimingStart(shape=self.j))

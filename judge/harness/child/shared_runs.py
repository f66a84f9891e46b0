"""The child's runs on memory the parent owns (CPU hosts; docs/judging.md sections 2 and 5).

Every call, checked or timed, goes: ask the parent for the call's memory ({"kind": "call"}),
wait for its "go" (the inputs are written and the outputs poisoned by then), call, then say
{"kind": "called"} with the call's own time. The parent reads the outputs and inputs from its
own mapping and keeps its own clock around the call; the child sends no output bytes, no
checksum and no seed (it has none).

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
from judge.harness.child.timing import L2Flusher, TimingPolicy, time_calls

if TYPE_CHECKING:
    from judge.harness.child.runner import Runner

CALIBRATION_CALLS = 24
CALIBRATION_SPIN_US = 200.0


def calibration_policy() -> TimingPolicy:
    return TimingPolicy(
        warmup_min=3,
        warmup_max=3,
        warmup_seconds=5.0,
        min_reps=CALIBRATION_CALLS,
        max_reps=CALIBRATION_CALLS,
        max_seconds=10.0,
        check_every=CALIBRATION_CALLS + 1,  # never stops early on its interval
    )


def calibrate(runner: Runner) -> None:
    """The judge's own call through the timed loop: a spin of CALIBRATION_SPIN_US on the CPU,
    which also reports the CPU time it used (true here: nothing of the submission is loaded)."""
    shared = runner.shared
    assert shared is not None
    phase = "warmup"
    held: dict[int, tuple[list[torch.Tensor], list[torch.Tensor], list[tuple[Any, ...]]]] = {}
    spun_cpu_us = [0.0]

    def prepare(index: int) -> None:
        _key, inputs, outputs = shared.acquire({"calibration": True, "phase": phase})
        held.setdefault(index, (inputs, outputs, runner.meta(inputs + outputs)))

    def spin(_index: int) -> None:
        cpu0 = time.thread_time_ns()
        end = time.perf_counter_ns() + int(CALIBRATION_SPIN_US * 1000)
        while time.perf_counter_ns() < end:
            pass
        spun_cpu_us[0] = (time.thread_time_ns() - cpu0) / 1000.0

    def after(index: int, elapsed: float) -> None:
        inputs, outputs, before = held[index]
        runner.check_after_call(inputs, outputs, before)  # as after a timed call
        runner.channel.send(
            {"kind": "called", "calibration": True, "phase": phase, "us": elapsed, "cpu_us": spun_cpu_us[0]}
        )

    def started() -> None:
        nonlocal phase
        phase = "timed"

    time_calls(
        spin,
        prepare,
        sets=1,
        policy=calibration_policy(),
        device="cpu",
        flusher=L2Flusher("cpu"),
        rng=random.Random(0),
        after=after,
        on_timing_start=started,
    )
    shared.release_all()


def correctness(runner: Runner) -> None:
    shared = runner.shared
    assert shared is not None
    cases = runner.job["cases"]
    for i, case in enumerate(cases):
        runner.channel.send(
            {"kind": "stage", "stage": "testing", "done": i, "total": len(cases), "detail": case["name"]}
        )
        key, inputs, outputs = shared.acquire({"case": i})
        call = runner.submission.bind(inputs, outputs, [case["sizes"][n] for n in runner.sizes_names])
        returned = runner.call_checked(call, inputs, outputs, f"testing case {case['name']!r}")
        runner.channel.send({"kind": "called", "case": i, "returned": returned is not None})
        del inputs, outputs, call
        shared.release(key)


def benchmarks(runner: Runner, fail: Callable[[BaseException, str], None]) -> bool:
    """Every benchmark shape; False when the parent said stop. fail(exc, stage) reports an
    exception of the submission's (then raises)."""
    policy = TimingPolicy.from_dict(runner.job["policy"])
    order_rng = random.Random(runner.job["order_seed"])
    return all(ShapeRun(runner, j).run(policy, order_rng, fail) for j in range(len(runner.job["benchmarks"])))


class ShapeRun:
    """One benchmark shape: the checked call on set 0, then warm-up and timed calls."""

    def __init__(self, runner: Runner, j: int) -> None:
        assert runner.shared is not None
        self.runner = runner
        self.shared = runner.shared
        self.j = j
        self.shape = runner.job["benchmarks"][j]
        self.total = len(runner.job["benchmarks"])
        self.sizes = [self.shape["sizes"][n] for n in runner.sizes_names]
        self.phase = "warmup"
        self.calls: dict[int, tuple[Callable[[], Any], list[torch.Tensor], list[torch.Tensor], list[Any]]] = {}
        self.keys: set[str] = set()

    def stage(self, detail: str) -> None:
        self.runner.channel.send(
            {"kind": "stage", "stage": "benchmarking", "done": self.j, "total": self.total, "detail": detail}
        )

    def run(self, policy: TimingPolicy, order_rng: random.Random, fail: Callable[[BaseException, str], None]) -> bool:
        runner, j, name = self.runner, self.j, self.shape["name"]
        self.stage(name)
        k = max(1, min(runner.job["pool_sets"], 4))
        runner.channel.send({"kind": "pool", "shape": j, "size": k, "flush_bytes": 0})
        try:
            key, inputs, outputs = self.shared.acquire({"shape": j, "set": 0, "phase": "check"})
        except Refused:
            return False
        self.keys.add(key)
        call = runner.submission.bind(inputs, outputs, self.sizes)
        returned = runner.call_checked(call, inputs, outputs, f"benchmark shape {name!r}")
        runner.channel.send(
            {"kind": "called", "shape": j, "set": 0, "phase": "check", "returned": returned is not None}
        )
        if not runner.channel.wait_go():
            return False
        while True:  # once, or again when the parent asks
            self.phase = "warmup"
            try:
                timed = time_calls(
                    self.call,
                    self.prepare,
                    sets=k,
                    policy=policy,
                    device=runner.device,
                    flusher=L2Flusher("cpu"),
                    rng=order_rng,
                    after=self.after,
                    on_timing_start=self.started,
                )
            except Refused:
                return False
            except BaseException as exc:
                if type(exc).__name__ == "Violation":
                    raise
                fail(exc, f"timing shape {name!r}")
                raise
            runner.channel.send(
                {
                    "kind": "times",
                    "shape": j,
                    "times_us": timed.times_us,
                    "sets": timed.sets,
                    "drains_us": timed.drains_us,
                    "warmup_us": timed.warmup_us,
                    "stop_reason": timed.stop_reason,
                    "cover_us": timed.cover_us,
                }
            )
            answer = runner.channel.wait_answer()
            if not answer.get("go"):
                return False
            if not answer.get("retime"):
                break
        self.calls.clear()
        for used in self.keys:
            self.shared.release(used)
        return True

    def prepare(self, index: int) -> None:
        key, inputs, outputs = self.shared.acquire({"shape": self.j, "set": index, "phase": self.phase})
        self.keys.add(key)
        if index not in self.calls:
            call = self.runner.submission.bind(inputs, outputs, self.sizes)
            self.calls[index] = (call, inputs, outputs, self.runner.meta(inputs + outputs))

    def call(self, index: int) -> None:
        self.calls[index][0]()

    def after(self, index: int, elapsed: float) -> None:
        _call, inputs, outputs, before = self.calls[index]
        self.runner.check_after_call(inputs, outputs, before)
        self.runner.channel.send({"kind": "called", "shape": self.j, "set": index, "phase": self.phase, "us": elapsed})

    def started(self) -> None:
        self.phase = "timed"
        self.stage(f"{self.shape['name']}: timing")
        self.runner.channel.send({"kind": "timing_start", "shape": self.j})

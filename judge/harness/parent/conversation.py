"""The parent's side of the child's results channel: every frame decoded into its type
(common/frames.py), then one handler per frame type, each checking what the frame may say
before anything of it is used.

A frame the child's harness never sends (an unknown kind, a missing, extra or ill-typed field, a
field out of range, a second timing nobody asked for) raises ForgedFrame, which ends the judging
as `rejected` (malformed-frame); a frame that shows a broken rule ends it through rules.py.
"""

from __future__ import annotations

import contextlib
import logging
import math
import queue
import time
from typing import TYPE_CHECKING, Any, assert_never

from judge.harness.common import frames as fr
from judge.harness.common import framing
from judge.harness.common.errors import trim
from judge.harness.common.seeds import derive_seed, test_case_key
from judge.harness.common.stats import summarize
from judge.harness.parent import nvml, results, rules
from judge.harness.parent.checking import compare_outputs
from judge.harness.parent.plan import ShapeState
from judge.harness.parent.references import expected_for
from judge.harness.parent.verdict import CHILD_ERROR_VERDICTS, OUR_FAULT, floor_us, score, sizes_text
from judge.protocol import KernelDigest

if TYPE_CHECKING:
    from judge import spec as specmod
    from judge.harness.parent import launch
    from judge.harness.parent.config import JudgeConfig
    from judge.harness.parent.plan import ChildPlan
    from judge.harness.parent.shared_calls import SharedCalls
    from judge.protocol import CaseResult, JudgeJob, Report

log = logging.getLogger("judge.harness")

Frames = queue.Queue[tuple[float, dict[str, Any] | None, Any]]

# Outputs at least this large get their own timeline step when they arrive (the transfer is
# most of a large check: 2.5 s for softmax's 1 GiB on the H200).
LARGE_OUTPUT_BYTES = 64 << 20


class Finished(Exception):
    """The verdict is known; stop the child and report."""


class Conversation:
    """Frame handlers of judging.Judging, which owns the state declared here."""

    job: JudgeJob
    config: JudgeConfig
    report: Report
    spec: specmod.ProblemSpec | None
    plan: ChildPlan
    cases: list[specmod.Case]
    shapes: list[ShapeState]
    case_results: list[CaseResult | None]
    pending: dict[str, Any]
    child: launch.Child | None
    deadline: float
    stage_text: str
    ready: bool
    completed: bool
    decided: bool
    wrong: bool
    kernels_seen: int
    retime: ShapeState | None
    clock_samples: list[dict[str, float]]
    compiling: tuple[str, float] | None
    shared: SharedCalls | None

    def mark(self, event: str) -> None:
        raise NotImplementedError

    def progress(self, stage: str, done: int = 0, total: int = 0, detail: str = "") -> None:
        raise NotImplementedError

    def finish(self, verdict: str, message: str) -> Report:
        raise NotImplementedError

    def refill_pool(self) -> None:
        raise NotImplementedError

    def settle_pool(self, before: str) -> bool:
        raise NotImplementedError

    def reject(self, rejection: rules.Rejection) -> None:
        self.finish("rejected", rejection.text)
        raise Finished

    # -- the loop -----------------------------------------------------------------------------

    def compile_deadline(self) -> float:
        """When the kernel the child says it is compiling runs out of compile_seconds (or never)."""
        if self.compiling is None:
            return math.inf
        return self.compiling[1] + min(self.spec.limits.compile_seconds, self.config.limit_cap_seconds or math.inf)  # type: ignore[union-attr]

    def next_frame(self, frames: Frames) -> tuple[float, fr.FromChild, Any]:
        """The next frame, decoded: nothing of a frame is looked at before it has its type."""
        remaining = min(self.deadline, self.compile_deadline()) - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        try:
            arrived, header, blob = frames.get(timeout=remaining)
        except queue.Empty:
            raise TimeoutError from None
        if header is None:
            if isinstance(blob, framing.ChannelClosed):
                raise EOFError
            raise framing.ForgedFrame(str(blob))
        return arrived, fr.decode(header), blob

    def loop(self, frames: Frames) -> None:
        assert self.child is not None
        while True:
            try:
                arrived, frame, blob = self.next_frame(frames)
            except TimeoutError:
                self.child.kill("wall")
                if self.compiling is not None and self.compile_deadline() < self.deadline:
                    seconds = self.compile_deadline() - self.compiling[1]
                    self.finish(
                        "time_limit",
                        f"compile time limit: Triton compiling kernel {self.compiling[0]} took longer than this "
                        f"problem's {seconds:g} s (compile_seconds), while {self.stage_text}; a block size that "
                        "grows with the input (BLOCK = next_power_of_2(n)) is the usual cause",
                    )
                    raise Finished from None
                if not self.ready:
                    self.finish("internal_error", "the judge process did not start in time")
                    raise Finished from None
                self.finish(
                    "time_limit",
                    f"time limit: the {self.plan.limit_seconds:g} s limit of {self.job.mode} mode ran out while {self.stage_text}",
                )
                raise Finished from None
            except EOFError:
                return  # the exit status explains
            if not isinstance(frame, fr.Compiling | fr.Compiled):
                # Any other frame means the child's thread moved on: a compile it started is over,
                # finished or failed (Triton's autotuner drops a config whose compile raised, and no
                # post-compile hook then runs), so it no longer counts against compile_seconds.
                self.compiling = None
            if self.handle(arrived, frame, blob):
                return

    def handle(self, arrived: float, frame: fr.FromChild, blob: Any) -> bool:
        """The frame's handler (mypy holds that every type of frame has one); True when the
        conversation is over."""
        match frame:
            case fr.Warm():
                return self.on_warm(arrived, frame)
            case fr.Ready():
                return self.on_ready(arrived, frame)
            case fr.Stage():
                return self.on_stage(arrived, frame)
            case fr.Output():
                return self.on_output(arrived, frame, blob)
            case fr.Checked():
                return self.on_checked(arrived, frame)
            case fr.Kernels():
                return self.on_kernels(arrived, frame)
            case fr.Pool():
                return self.on_pool(arrived, frame)
            case fr.Call():
                return self.on_call(arrived, frame)
            case fr.Called():
                return self.on_called(arrived, frame)
            case fr.TimingStart():
                return self.on_timing_start(arrived, frame)
            case fr.Times():
                return self.on_times(arrived, frame)
            case fr.Await():
                return self.on_await(arrived, frame)
            case fr.Violation():
                return self.on_violation(arrived, frame)
            case fr.Error():
                return self.on_error(arrived, frame)
            case fr.Done():
                return self.on_done(arrived, frame)
            case fr.Compiling():
                return self.on_compiling(arrived, frame)
            case fr.Compiled():
                return self.on_compiled(arrived, frame)
        assert_never(frame)

    # -- handlers: each returns True when the conversation is over ---------------------------

    def on_warm(self, arrived: float, frame: fr.Warm) -> bool:
        if self.ready or "child_warmed_up" in self.report.system:
            raise framing.ForgedFrame("a warm frame after the start")
        self.report.system["child_warmed_up"] = warm_up_seconds(frame.warmed)
        return False

    def on_ready(self, arrived: float, frame: fr.Ready) -> bool:
        if self.ready:
            raise framing.ForgedFrame("a second ready frame")
        self.ready = True
        self.mark("child ready")
        self.deadline = arrived + self.plan.limit_seconds
        # The tests are not timed: the next job's process starts up beside them, and the first
        # timed step waits until it is warm (on_await). Back to back, a job then waits only for
        # what of the start-up (about 8.5 s on the H200) its predecessor's tests did not cover.
        self.refill_pool()
        self.stage_text = "loading your code"
        return False

    def on_stage(self, arrived: float, frame: fr.Stage) -> bool:
        stage = frame.stage
        done = fr.within(frame.done, "done", 0, 10**6)
        total = fr.within(frame.total, "total", 0, 10**6)
        detail = frame.detail[:200]
        noun = {"testing": "case", "benchmarking": "shape", "profiling": "kernel list of"}[stage]
        self.stage_text = f"{stage} {noun} {done + 1}/{total} ({detail})"
        self.progress(stage, done, total, detail)
        return False

    def on_call(self, arrived: float, frame: fr.Call) -> bool:
        self.shared_calls().on_call(frame)
        return False

    def on_called(self, arrived: float, frame: fr.Called) -> bool:
        self.shared_calls().on_called(frame, arrived)
        return False

    def shared_calls(self) -> SharedCalls:
        if self.shared is None:
            raise framing.ForgedFrame("a call frame does not belong to this job's protocol")
        return self.shared

    def not_shared(self, kind: str) -> None:
        if self.shared is not None:
            # Where the parent owns the memory, outputs and checksums never come as frames.
            raise framing.ForgedFrame(f"a {kind} frame does not belong to this job's protocol")

    def on_compiling(self, arrived: float, frame: fr.Compiling) -> bool:
        # Named by the child, timed by this clock (judge/harness/child/compile_watch.py).
        self.compiling = (frame.what[:300], arrived)
        return False

    def on_compiled(self, arrived: float, frame: fr.Compiled) -> bool:
        self.compiling = None
        return False

    def on_output(self, arrived: float, frame: fr.Output, blob: Any) -> bool:
        self.not_shared("output")
        name = frame.name
        if blob is None or not any(t.name == name for t in self.spec.outputs):  # type: ignore[union-attr]
            raise framing.ForgedFrame(f"unexpected output frame {name!r}")
        self.pending[name] = blob
        if len(blob) >= LARGE_OUTPUT_BYTES:  # the timeline then splits a large check: transfer, compare
            size = f"{len(blob) >> 20} MiB" if len(blob) >= 1 << 20 else f"{len(blob) >> 10} KiB"
            self.mark(f"output {name} received ({size})")
        return False

    def on_pool(self, arrived: float, frame: fr.Pool) -> bool:
        shape = self.shape_of(frame.shape)
        shape.pool_size = fr.within(frame.size, "size", 1, len(shape.pool_seeds))
        self.mark(f"{shape.name}: input pool made")
        shape.flush_bytes = fr.within(frame.flush_bytes, "flush_bytes", 0, 1 << 40)
        return False

    def on_timing_start(self, arrived: float, frame: fr.TimingStart) -> bool:
        shape = self.shape_of(frame.shape)
        shape.refuse_unasked_timing()
        shape.timing_started = arrived
        self.mark(f"{shape.name}: warmed up")
        return False

    def on_times(self, arrived: float, frame: fr.Times) -> bool:
        shape = self.shape_of(frame.shape)
        shape.refuse_unasked_timing()
        shape.retime_pending = False
        shape.checked_final = False  # this attempt's final output is still to be checked
        shape.times = frame
        shape.times_received = arrived
        self.mark(f"{shape.name}: timed")
        self.check_times(shape)
        self.note_power(shape)
        if shape is self.shapes[-1] and self.retime is not shape:
            # Nothing of this job is timed any more (the last output check and the profiler's
            # kernel list follow): a job right behind it gains their seconds.
            self.refill_pool()
        return False

    def on_await(self, arrived: float, frame: fr.Await) -> bool:
        going = not self.decided and not self.wrong
        # The go that starts a shape's timing (its pool made and checked, its times not in yet)
        # or a second timing waits until no warm-pool child is starting beside it.
        timed = self.retime or next((s for s in self.shapes if s.pool_size and s.times is None), None)
        waited = going and timed is not None and self.settle_pool(f"timing {timed.name}")
        if waited and timed is not None and timed.power_before is not None and self.retime is None:
            timed.power_before = nvml.read(self.config.gpu_index or 0)  # NVML's window starts now
        if self.retime is not None and going:
            self.ask_retime(self.retime)
        else:
            self.send_go(going)
        return False

    def on_violation(self, arrived: float, frame: fr.Violation) -> bool:
        self.reject(rules.Rejection(frame.rule, frame.message))
        return True

    def on_error(self, arrived: float, frame: fr.Error) -> bool:
        verdict = frame.verdict
        if verdict not in CHILD_ERROR_VERDICTS:
            raise framing.ForgedFrame(f"unknown error verdict {verdict!r}")
        message = trim(frame.message)
        if verdict == "internal_error":
            log.error("the child reported an internal error for %s: %s", self.job.submission_id, message)
            message = OUR_FAULT
        self.finish(verdict, message)
        raise Finished

    def on_done(self, arrived: float, frame: fr.Done) -> bool:
        self.completed = True
        self.mark("child done")
        self.sample_clocks()
        self.refill_pool()  # the timing is over (if the last shape's times did not already)
        if not self.decided:
            self.conclude()
        return True

    # -- answering the child ------------------------------------------------------------------

    def send_go(self, go: bool, retime: bool = False) -> None:
        """Answer the child's await: go on (after a shape's timing, with retime: time it again) or stop."""
        assert self.child is not None and self.child.job_out is not None
        self.free_device_memory()
        with contextlib.suppress(BrokenPipeError, OSError):
            framing.write_frame(self.child.job_out, fr.encode(fr.Go(go=go, retime=retime)))
        if not go:
            # A verdict is known (e.g. a wrong answer): no benchmark.
            self.conclude()
            raise Finished

    def ask_retime(self, shape: ShapeState) -> None:
        """Tell the child, waiting after the shape's final check, to time the shape again."""
        self.retime = None
        shape.retime_pending = True
        if self.config.device == "cuda":
            shape.power_before = nvml.read(self.config.gpu_index or 0)
        self.send_go(True, retime=True)

    def free_device_memory(self) -> None:
        if self.config.device == "cuda":
            import torch

            torch.cuda.empty_cache()

    # -- checks -------------------------------------------------------------------------------

    def where(self, frame: fr.Checked) -> tuple[str, int, int]:
        if frame.case is not None:
            return "case", fr.within(frame.case, "case", 0, len(self.cases) - 1), 0
        shape_index = fr.within(frame.shape, "shape", 0, len(self.shapes) - 1)
        return "shape", shape_index, fr.within(frame.set, "set", 0, self.config.pool_sets - 1)

    def shape_of(self, index: int | None) -> ShapeState:
        return self.shapes[fr.within(index, "shape", 0, len(self.shapes) - 1)]

    def on_checked(self, arrived: float, frame: fr.Checked) -> bool:
        self.not_shared("checked")
        assert self.spec is not None
        spec = self.spec
        kind, index, set_index = self.where(frame)
        sample_phase: int | None = None  # the pre-timing check of a shape reads a sample of each output
        if kind == "case":
            case = self.cases[index]
            sizes, label = dict(case.sizes), case.name
            seed = derive_seed(self.config.secret, self.job.seed, test_case_key(case.name), 0)
        else:
            shape = self.shapes[index]
            if set_index >= max(shape.pool_size, 1):
                raise framing.ForgedFrame("checked set outside the pool")
            seed_index = set_index
            if shape.times is not None:
                if set_index != shape.times.sets[-1]:
                    raise framing.ForgedFrame("the final output is not from the final timed call's set")
                assert shape.times.seeds  # check_times refused a timing without its seeds
                seed_index = shape.times.seeds[-1]  # the inputs that set held at that call
                if frame.seed != seed_index:
                    raise framing.ForgedFrame("the final output is not from the final timed call's inputs")
                shape.checked_final = True
            else:
                sample_phase = shape.sample_phase
            sizes, label = dict(shape.sizes), f"benchmark {shape.name} (input set {set_index})"
            seed = shape.seed(seed_index)
        expected = expected_for(spec, seed, sizes, self.config.device)
        broken = rules.inputs_modified(frame.checksums, expected.checksums, label)
        if broken:
            self.reject(broken)
        comparisons, sampled = compare_outputs(
            spec,
            sizes,
            self.pending,
            expected,
            device=self.config.device,
            label=label,
            sample_phase=sample_phase,
            sample_bytes=self.config.precheck_sample_bytes,
        )
        del expected
        if sampled:
            label = f"benchmark {self.shapes[index].name} (input set 0, a sample checked before timing)"
        self.record_check(kind, index, label, sizes, comparisons, frame.returned)
        return False

    def record_check(
        self,
        kind: str,
        index: int,
        label: str,
        sizes: dict[str, int],
        comparisons: list[Any],
        returned: bool,
        first: bool = True,
    ) -> None:
        """The verdict on one checked call's outputs (case `index`, or a call of shape `index`;
        `first`: the shape's check before its timing, not one of its timed calls)."""
        assert self.spec is not None
        result = results.case_result(label, sizes, comparisons, self.spec.tolerance, returned)
        if kind == "case":
            self.case_results[index] = result
            self.report.cases = [r for r in self.case_results if r is not None]
            if not result.passed and not self.wrong:
                message = f"wrong answer on case {label!r} ({sizes_text(sizes)}): {result.message}"
                if self.job.mode != "test":
                    # Submit and profile stop at the first wrong case: its verdict comes at once
                    # (the child is ended), instead of after the other cases compile and run.
                    self.finish("wrong_answer", message)
                    raise Finished
                # Test mode goes on, within its limit, to show the other cases' results too.
                self.wrong = True
                self.report.verdict = "wrong_answer"
                self.report.message = message
        elif not result.passed:
            self.report.cases.append(result)
            self.finish("wrong_answer", f"wrong answer on {label} ({sizes_text(sizes)}): {result.message}")
            raise Finished
        elif first and self.shapes[index].times is None and self.config.device == "cuda":
            # Set 0 checked; the child waits for its go: NVML's totals before warm-up and timing.
            self.shapes[index].power_before = nvml.read(self.config.gpu_index or 0)
        if first:
            self.mark(f"case {label}: checked" if kind == "case" else f"{label}: checked")

    def on_kernels(self, arrived: float, frame: fr.Kernels) -> bool:
        if self.shapes:
            label = self.shape_of(frame.shape).name
        else:
            fr.within(frame.shape, "shape", 0, 0)
            label = self.cases[self.plan.job.profile_case].name
        self.kernels_seen += 1
        names = frame.names
        if not self.report.kernels:
            self.report.kernels = [
                KernelDigest(name=n[:500], duration_us=t) for n, t in sorted(names, key=lambda x: -x[1])
            ]
        kernel_names = [n for n, _ in names]
        for rule in (rules.library_compute, rules.no_kernel):
            broken = rule(self.job.language, kernel_names, label)
            if broken:
                self.reject(broken)
        return False

    def check_times(self, shape: ShapeState) -> None:
        """The rules on one timing of a shape: a well-formed times frame, fresh inputs for every
        call, the parent's clock, hidden work (maybe timed again), the roofline floor."""
        times = shape.times
        assert times is not None
        values, sets, drains = times.times_us, times.sets, times.drains_us
        if not values or len(values) != len(sets) or len(values) != len(drains):
            raise framing.ForgedFrame("times, sets and drains differ in length")
        if not all(v > 0 for v in values):
            raise framing.ForgedFrame("times must be positive finite numbers")
        if not all(0 <= s < max(shape.pool_size, 1) for s in sets):
            raise framing.ForgedFrame("a timed call used a set outside the pool")
        if self.shared is None:  # the child made its own inputs: it says which seeds it used
            seeds, warmup_seeds = times.seeds, times.warmup_seeds
            if seeds is None or warmup_seeds is None or len(seeds) != len(values):
                raise framing.ForgedFrame("bad input seeds in the times frame")
            every = [*warmup_seeds, *seeds]
            if (
                not all(0 <= s < 1 << 20 for s in every)
                or len(set(every)) != len(every)
                or shape.seen_seeds.intersection(every)
            ):
                raise framing.ForgedFrame("two calls were given the same inputs")
            shape.seen_seeds.update(every)
        if shape.timing_started is None or shape.times_received is None:
            raise framing.ForgedFrame("times without a timing start")
        broken = rules.timing_consistency(shape.name, values, (shape.times_received - shape.timing_started) * 1e6)
        if broken:
            self.reject(broken)
        if self.shared is not None:
            self.shared.check_times(shape)  # the claims against the parent's clock (forged-timing)
        detail = times.drain_detail
        if detail is not None:  # a measurement run (TimingPolicy.drain_detail)
            self.report.system.setdefault("drain_detail", {}).setdefault(shape.name, []).append(detail)
        # (On a CPU host every drain is 0: the rule never fires there.)
        slow = results.slow_drains(drains, values, self.config)
        shape.drain_counts.append((len(slow), len(values)))
        if results.drains_show_hidden_work(len(slow), len(values), self.config):
            if len(shape.drain_counts) < self.config.timing_attempts:
                self.retime = shape  # asked for at the child's next await, after this attempt's final check
                self.mark(f"{shape.name}: {len(slow)} of {len(values)} drains slow, to be timed again")
                return
            self.reject(rules.hidden_work(shape.name, shape.drain_counts, slow))
        assert self.spec is not None
        median = summarize(values).median
        floor = floor_us(self.spec, shape.sizes, self.report.ceilings, self.config.device)
        broken = rules.impossible_time(shape.name, median, floor, self.config.floor_factor)
        if broken:
            self.reject(broken)

    def note_power(self, shape: ShapeState) -> None:
        """Mean power and time spent power- or heat-capped from before the shape's warm-up to
        its last timed call (parent/nvml.py); read outside the timed calls."""
        if shape.power_before is None:
            return
        after = nvml.read(self.config.gpu_index or 0)
        during = nvml.window(shape.power_before, after) if after else None
        if during:
            self.report.system.setdefault("gpu_during_timing", {})[shape.name] = during

    def sample_clocks(self) -> None:
        """The clocks right after the last shape's timing: once, and never beside timed calls
        (nvidia-smi takes driver locks and a CPU while the child's launches need both)."""
        if self.config.device != "cuda" or not any(s.times for s in self.shapes):
            return
        from judge.harness.parent.sysinfo import clocks

        found = clocks(self.config.gpu_index)
        if found:
            self.clock_samples.append({"shape": "after the last shape", **found})  # type: ignore[dict-item]

    # -- the verdict --------------------------------------------------------------------------

    def conclude(self) -> None:
        """All frames are in: the verdict of a run that ended normally."""
        report = self.report
        if self.decided:
            return
        self.decided = True
        if self.wrong:
            report.ranked = False
            return
        profiled = self.plan.job.profile_kernels and self.cases
        expected_kernel_lists = (len(self.shapes) or 1) if profiled else 0
        if (
            any(r is None for r in self.case_results)
            or any(s.times is None or not s.checked_final for s in self.shapes)
            or self.kernels_seen != expected_kernel_lists
        ):
            # Only a forged "done" (written by the submission to the judge's channel) gets here.
            self.decided = False
            self.finish("rejected", rules.channel_incomplete().text)
            return
        if not self.shapes:
            report.verdict = "accepted"
            report.message = f"all {len(self.cases)} cases passed"
            if self.job.mode != "test" and self.config.device == "cpu":
                report.message += " (this problem has no CPU benchmark shapes)"
            return
        assert self.spec is not None
        score(report, self.spec, self.shapes, len(self.cases), self.clock_samples, self.config)


def warm_up_seconds(warmed: dict[str, float | None]) -> dict[str, float | None]:
    """The child's own account of its start-up and warm-up steps (seconds by step), bounded:
    the child is trusted until its job arrives, but the frame still passes through checks."""
    return {
        name[:40]: (round(seconds, 3) if seconds is not None else None) for name, seconds in list(warmed.items())[:8]
    }

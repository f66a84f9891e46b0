"""The parent's half of calls on memory it owns (CPU hosts; docs/judging.md sections 2, 4 and 5).

The child asks for each call's memory ({"kind": "call", ...}) and reports each call done
({"kind": "called", ...}); between the two, everything that decides a verdict happens here:

- on a request, the parent generates the call's inputs from a seed only it knows (a fresh seed
  for every call of a shape, so nothing could have been computed ahead), writes them into the
  call's region, poisons its outputs, notes the child's CPU time so far (the child is blocked
  on its "go" now) and starts its clock as it writes the "go";
- on "called", it stops the clock, compares the inputs in the region with its own copy bit for
  bit, snapshots the outputs from its own mapping and checks them against the float64
  reference: every correctness case, the check before a shape's timing, and every warm-up and
  timed call (outputs still poisoned at that moment mean solve() returned before its work was
  done);
- on a shape's "times", the claimed times must be the per-call claims it already has, and the
  claims are held against its own clock (parent/clock.py: forged-timing).
"""

from __future__ import annotations

import contextlib
import math
import os
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from judge.harness.common import framing
from judge.harness.common.seeds import derive_seed, test_case_key
from judge.harness.common.tensors import INT_POISON, compare_within, is_float
from judge.harness.parent import clock
from judge.harness.parent.memory import ParentMemory, TensorSpec

if TYPE_CHECKING:
    from judge.harness.parent.judging import Judging
    from judge.harness.parent.plan import ShapeState

CALIBRATION_KEY = "calibration"
MIN_CALIBRATION_CALLS = 10


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """The parent's own tensor work between calls on one thread: OpenMP workers of the parent
    that spin after a parallel region take the host's cores from the child right when its call
    starts, which the parent's clock then counts against the call (on the 2-core dev host the
    spans of an honest 1M vector_add grew from ~10 to ~20 ms)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


@dataclass
class Outstanding:
    """The call the child was told to go on and has not reported done yet."""

    what: str  # "calibration" | "case" | "shape"
    index: int
    set_index: int
    phase: str  # "check" | "warmup" | "timed" ("" for cases)
    key: str
    seed: int
    mark: tuple[float, float] | None  # the child's main thread (cpu, run-queue wait) at the request
    started: float = 0.0
    reader_wait: float | None = None  # the parent's frame reader's run-queue wait at the go


@dataclass
class Unfinished:
    """A completed call whose CPU time is known once the child asks for its next call."""

    into: list[clock.CallClock]
    claim_us: float
    span_us: float
    mark: tuple[float, float] | None
    call_cpu_us: float | None
    reader_wait_us: float


class SharedCalls:
    def __init__(
        self, judging: Judging, sock: socket.socket, pid: Callable[[], int | None], reader_tid: int | None
    ) -> None:
        spec = judging.spec
        assert spec is not None
        self.judging = judging
        self.memory = ParentMemory(
            sock,
            [TensorSpec(t.name, t.dtype) for t in spec.inputs],
            [TensorSpec(t.name, t.dtype) for t in spec.outputs],
        )
        self.find_pid = pid
        self.pid: int | None = None  # the child's host pid, found at its first call
        self.reader_tid = reader_tid  # the parent's thread that reads the child's frames
        self.outstanding: Outstanding | None = None
        self.unfinished: Unfinished | None = None
        self.calibration_calls: list[clock.CallClock] = []
        self.calibration: clock.Calibration | None = None
        self.timed: dict[int, list[clock.CallClock]] = {}  # per shape, the current timing's calls
        self.claims: dict[int, list[tuple[int, float]]] = {}  # per shape: (set, claimed us) per timed call
        self.seed_index: dict[int, int] = {}  # per shape: the next input seed number
        self.checked_cases: set[int] = set()
        self.phase_of: dict[int, str] = {}  # per shape: "check" -> "warmup" -> "timed" -> "done"
        self.attempt_began: dict[int, float] = {}  # per shape: when the current timing's warm-up began
        self.expected: dict[str, dict[str, torch.Tensor]] = {}  # region -> the current call's reference

    # -- helpers ------------------------------------------------------------------------------

    def child_now(self) -> tuple[float, float] | None:
        if self.pid is None:
            self.pid = self.find_pid() or 0
        return clock.thread_times(self.pid) if self.pid else None

    def reader_wait_now(self) -> float | None:
        times = clock.thread_times(os.getpid(), self.reader_tid) if self.reader_tid else None
        return times[1] if times else None

    def settle(self) -> None:
        """The previous call's CPU time and run-queue wait: the child's main thread from that
        call's request to now (it is blocked on its next go, or done)."""
        done, self.unfinished = self.unfinished, None
        if done is None:
            return
        now = self.child_now()
        cpu, wait = None, 0.0
        if now is not None and done.mark is not None:
            cpu, wait = now[0] - done.mark[0], now[1] - done.mark[1]
        done.into.append(
            clock.CallClock(done.claim_us, done.span_us, cpu, done.call_cpu_us, wait + done.reader_wait_us)
        )

    def reject(self, verdict: str, message: str) -> None:
        from judge.harness.parent.conversation import Finished

        self.judging.finish(verdict, message)
        raise Finished

    def shape(self, index: int) -> ShapeState:
        return self.judging.shapes[index]

    # -- a call request -----------------------------------------------------------------------

    def on_call(self, header: dict[str, Any]) -> None:
        with one_thread():
            self.start_call(header)

    def start_call(self, header: dict[str, Any]) -> None:
        judging = self.judging
        spec, config = judging.spec, judging.config
        assert spec is not None and judging.child is not None and judging.child.job_out is not None
        if self.outstanding is not None:
            raise framing.ForgedFrame("a call was asked for before the previous one was reported")
        self.settle()
        mark = self.child_now()
        if header.get("calibration") is True:
            if self.checked_cases or self.calibration is not None or not judging.cases:
                raise framing.ForgedFrame("a calibration call after the submission was loaded")
            case = judging.cases[0]
            seed = derive_seed(config.secret, judging.job.seed, "calibration", 0)
            sizes, phase = dict(case.sizes), framing.header_text(header, "phase")
            out = Outstanding("calibration", 0, 0, phase, CALIBRATION_KEY, seed, mark)
            staged = self.memory.regions.get(CALIBRATION_KEY) is not None
        else:
            self.close_calibration()
            staged = False
            if "case" in header:
                index = framing.header_int(header, "case", 0, len(judging.cases) - 1)
                if index in self.checked_cases:
                    raise framing.ForgedFrame(f"case {index} asked for twice")
                case = judging.cases[index]
                sizes = dict(case.sizes)
                seed = derive_seed(config.secret, judging.job.seed, test_case_key(case.name), 0)
                out = Outstanding("case", index, 0, "", f"case:{index}", seed, mark)
            else:
                index = framing.header_int(header, "shape", 0, len(judging.shapes) - 1)
                shape = self.shape(index)
                set_index = framing.header_int(header, "set", 0, max(shape.pool_size, 1) - 1)
                phase = self.next_phase(index, framing.header_text(header, "phase"), set_index)
                n = self.seed_index.get(index, 0)
                self.seed_index[index] = n + 1
                sizes, seed = dict(shape.sizes), shape.seed(n)
                out = Outstanding("shape", index, set_index, phase, f"shape:{index}:{set_index}", seed, mark)
        go: dict[str, Any] = {"go": True, "region": out.key}
        if not staged:
            from judge.harness.parent.references import reference_module

            module = reference_module(spec)
            values = module.generate_inputs(seed=out.seed, device=config.device, **sizes)
            shapes = {t.name: t.concrete_shape(sizes) for t in spec.inputs + spec.outputs}
            go.update(self.memory.stage(out.key, values, shapes))
            if out.what != "calibration":
                # The reference of exactly these inputs, for the check when the call is done.
                self.expected[out.key] = module.reference(**values, **sizes)
            del values
        else:
            self.memory.poison(out.key)
        self.outstanding = out
        out.reader_wait = self.reader_wait_now()
        out.started = time.monotonic()
        framing.write_frame(judging.child.job_out, go)

    def next_phase(self, index: int, asked: str, set_index: int) -> str:
        """A shape's calls come in order: one check on set 0, then warm-up and timed calls (a
        second warm-up and timing only when the judge asked for the shape to be timed again)."""
        now = self.phase_of.get(index)
        shape = self.shape(index)
        if asked == "check":
            ok = now is None and set_index == 0
        elif asked == "warmup":
            ok = now in ("check", "warmup") or (now == "done" and shape.retime_pending)
            if ok and now != "warmup":  # a timing starts
                self.attempt_began[index] = time.monotonic()
                self.timed[index] = []
                self.claims[index] = []
        elif asked == "timed":
            began = self.attempt_began.get(index)
            ok = (
                now in ("warmup", "timed")
                and began is not None
                and shape.timing_started is not None
                and shape.timing_started >= began
            )
        else:
            ok = False
        if not ok:
            raise framing.ForgedFrame(f"a {asked or 'call'} of shape {shape.name} out of order (after {now})")
        self.phase_of[index] = asked
        return asked

    def close_calibration(self) -> None:
        if self.calibration is not None:
            return
        if len(self.calibration_calls) < MIN_CALIBRATION_CALLS:
            raise framing.ForgedFrame("the handshake was not calibrated before the submission was loaded")
        self.calibration = clock.Calibration.from_calls(self.calibration_calls)
        self.judging.report.system.setdefault("parent_clock", {})["calibration"] = self.calibration.as_dict()
        self.memory.release(CALIBRATION_KEY)

    # -- a call reported done -----------------------------------------------------------------

    def on_called(self, header: dict[str, Any], arrived: float) -> None:
        with one_thread():
            self.end_call(header, arrived)

    def end_call(self, header: dict[str, Any], arrived: float) -> None:
        out, self.outstanding = self.outstanding, None
        if out is None:
            raise framing.ForgedFrame("a call reported done that the judge did not start")
        span_us = (arrived - out.started) * 1e6
        reader_wait = self.reader_wait_now()
        reader_us = reader_wait - out.reader_wait if reader_wait is not None and out.reader_wait is not None else 0.0
        if out.what == "calibration":
            if header.get("calibration") is not True:
                raise framing.ForgedFrame("a calibration call reported as something else")
            claim = self.claim(header)
            cpu = header.get("cpu_us")
            call_cpu = float(cpu) if isinstance(cpu, int | float) and math.isfinite(cpu) else None
            if out.phase == "timed":
                self.unfinished = Unfinished(self.calibration_calls, claim, span_us, out.mark, call_cpu, reader_us)
            return
        where = ("case", out.index) if out.what == "case" else ("shape", out.index)
        if header.get(where[0]) != where[1] or (out.what == "shape" and header.get("set") != out.set_index):
            raise framing.ForgedFrame("a call reported done is not the call the judge started")
        self.check_call(out, bool(header.get("returned")))
        if out.what == "case":
            self.checked_cases.add(out.index)
            self.memory.release(out.key)
            return
        if out.phase == "timed":
            claim = self.claim(header)
            self.claims.setdefault(out.index, []).append((out.set_index, claim))
            self.unfinished = Unfinished(
                self.timed.setdefault(out.index, []), claim, span_us, out.mark, None, reader_us
            )
        elif out.phase == "warmup":
            self.claim(header)

    @staticmethod
    def claim(header: dict[str, Any]) -> float:
        value = header.get("us")
        if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value) or value < 0:
            raise framing.ForgedFrame(f"a call's time must be a finite number of us, got {value!r}")
        return float(value)

    def check_call(self, out: Outstanding, returned: bool) -> None:
        """Inputs unchanged and outputs right, read from the parent's own mapping."""
        judging = self.judging
        spec = judging.spec
        assert spec is not None
        if out.what == "case":
            sizes, label = dict(judging.cases[out.index].sizes), judging.cases[out.index].name
        else:
            shape = self.shape(out.index)
            sizes = dict(shape.sizes)
            call = "" if out.phase == "check" else f", {out.phase} call"
            label = f"benchmark {shape.name} (input set {out.set_index}{call})"
        modified = self.memory.modified_inputs(out.key)
        if modified:
            self.reject(
                "rejected",
                f"rule broken (inputs-modified): input {modified[0]} was modified by solve() ({label}); inputs are "
                "read-only (the judge compared them with its own copy after the call)",
            )
        got = self.memory.snapshot(out.key)
        expected = self.expected.pop(out.key)
        if out.phase in ("warmup", "timed"):
            self.refuse_unwritten(got, expected, label)
        comparisons = []
        for tensor in spec.outputs:
            ref = expected.get(tensor.name)
            if ref is None or tuple(ref.shape) != tuple(got[tensor.name].shape):
                raise RuntimeError(f"the reference of {spec.slug} gave no {tensor.name} of the output's shape")
            comparisons.append((tensor.name, compare_within(ref, got[tensor.name], spec.tolerance, tensor.dtype)))
        del expected, got
        judging.record_check(out.what, out.index, label, sizes, comparisons, returned)

    def refuse_unwritten(self, got: dict[str, torch.Tensor], expected: dict[str, torch.Tensor], label: str) -> None:
        """A warm-up or timed call whose outputs still hold the poison when it is reported done:
        solve() returned before its work was done (the rest ran after, outside the time)."""
        spec = self.judging.spec
        assert spec is not None
        for tensor in spec.outputs:
            values = got[tensor.name]
            if is_float(tensor.dtype):
                unwritten = int(torch.isnan(values).sum())
            else:  # the sentinel counts only where the right answer is not the sentinel itself
                poison = INT_POISON[tensor.dtype]
                unwritten = int(((values == poison) & (expected[tensor.name].to(values.device) != poison)).sum())
            if unwritten:
                self.reject(
                    "rejected",
                    f"rule broken (hidden-work): {unwritten} of {values.numel()} elements of {tensor.name} were not "
                    f"written yet when solve() returned ({label}); the judge reads the outputs the moment a call is "
                    "reported done, so the work must be finished by then",
                )

    # -- a shape's times ----------------------------------------------------------------------

    def check_times(self, shape: ShapeState) -> None:
        """The times frame repeats the per-call claims; then the claims against the parent's clock."""
        index = self.judging.shapes.index(shape)
        self.settle()
        times = shape.times or {}
        claims = self.claims.get(index, [])
        if [s for s, _ in claims] != times.get("sets") or [c for _, c in claims] != times.get("times_us"):
            raise framing.ForgedFrame("the times frame differs from the times reported call by call")
        calls = self.timed.get(index, [])
        assert self.calibration is not None
        config = self.judging.config
        allowance = clock.Allowance(
            config.clock_wall_allowance_us, config.clock_cpu_allowance_us, config.clock_allowance_rel
        )
        check = clock.check_calls(calls, self.calibration, allowance)
        self.judging.report.system.setdefault("parent_clock", {})[shape.name] = check.as_dict()
        shape.checked_final = True  # every timed call's output was checked when it was reported done
        self.phase_of[index] = "done"
        if check.broken:
            self.reject("rejected", f"rule broken (forged-timing): {check.message(shape.name, self.calibration)}")

    def close(self) -> None:
        self.memory.close()

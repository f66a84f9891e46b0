"""The parent's half of calls on memory it owns (docs/judging.md sections 2, 4 and 5).

The child asks for each call's memory (a Call frame, common/frames.py) and reports each call
done (Called); between the two, everything that decides a verdict happens here:

- on a request, the parent generates the call's inputs from a seed only it knows (a fresh seed
  for every call of a shape, so nothing could have been computed ahead), writes them into the
  call's region, poisons its outputs, notes the child's CPU time so far (the child is blocked
  on its "go" now) and starts its clock as it writes the "go";
- on a GPU host the memory is the parent's own device allocations (common/device_memory.py),
  and after staging a go's calls the parent flushes the L2 itself: every call of a batch runs
  on its own region, untouched since that flush, so no call finds its inputs in the cache
  whether or not the child flushes;
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
import dataclasses
import math
import os
import socket
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from judge.harness.child.timing import L2Flusher
from judge.harness.common import frames as fr
from judge.harness.common import framing
from judge.harness.common.seeds import derive_seed, test_case_key
from judge.harness.common.tensors import INT_POISON, compare_within, is_float
from judge.harness.parent import clock
from judge.harness.parent.memory import ParentMemory, TensorSpec

if TYPE_CHECKING:
    from judge.harness.parent.judging import Judging
    from judge.harness.parent.plan import ShapeState

CALIBRATION_KEY = "calibration"
MIN_CALIBRATION_CALLS = 2  # gos (batches) per shape: the fewest a calibration out of time sends
# Timed calls come in batches under one go (SharedCalls.batch_size): a batch takes about
# BATCH_TARGET_US by the parent's clock, at most BATCH_MAX calls and BATCH_MAX_BYTES of regions.
BATCH_TARGET_US = 10000.0
BATCH_MAX = 32
BATCH_MAX_BYTES = 256 << 20
# The calibration's batches are smaller: less of the parent's staging between its handshakes,
# so they run a little faster than the timing's, which counts against the submission only.
CALIBRATION_BATCH_MAX = 16
# On a GPU a batch's regions may take this share of the device's free memory (the parent keeps
# about as much again in its copies of the inputs and the float64 references).
GPU_BATCH_MEMORY_FRACTION = 0.1


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


@dataclass(frozen=True)
class Planned:
    """One call of a go: the input set (its region) and the seed of the inputs written there."""

    set_index: int
    key: str
    seed: int


@dataclass
class Outstanding:
    """The calls the child was told to go on and has not reported done yet: one, or on a
    shape's timed calls a batch of them back to back under one go (batch_size)."""

    what: str  # "calibration" | "case" | "shape"
    index: int
    phase: str  # "check" | "warmup" | "timed" ("" for cases)
    calls: list[Planned]
    mark: tuple[float, float] | None  # the child's main thread (cpu, run-queue wait) at the request
    batch: bool = False
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
    calls: int = 1


class SharedCalls:
    def __init__(
        self, judging: Judging, sock: socket.socket, pid: Callable[[], int | None], reader_tid: int | None
    ) -> None:
        spec = judging.spec
        assert spec is not None
        self.judging = judging
        device = judging.config.device
        self.memory = ParentMemory(
            sock,
            [TensorSpec(t.name, t.dtype) for t in spec.inputs],
            [TensorSpec(t.name, t.dtype) for t in spec.outputs],
            device,
        )
        self.flusher = L2Flusher(device) if device == "cuda" else None
        self.batch_max_bytes = BATCH_MAX_BYTES
        if device == "cuda":
            free, _total = torch.cuda.mem_get_info()
            self.batch_max_bytes = max(BATCH_MAX_BYTES, int(free * GPU_BATCH_MEMORY_FRACTION))
        self.profiled: set[tuple[str, int]] = set()
        # On a GPU the parent's clock compares calls, not batches (clock.per_call), and the
        # calibration's batches are as large as the timing's.
        self.per_call = device == "cuda"
        self.find_pid = pid
        self.pid: int | None = None  # the child's host pid, found at its first call
        self.reader_tid = reader_tid  # the parent's thread that reads the child's frames
        self.outstanding: Outstanding | None = None
        self.unfinished: Unfinished | None = None
        # Per benchmark shape: the judge-owned calls made before the submission was loaded, on
        # memory staged exactly as for that shape's timed calls, and what they calibrate.
        self.calibration_calls: dict[int, list[clock.CallClock]] = {}
        self.calibration: dict[int, clock.Calibration] | None = None
        self.calibration_seeds = 0
        self.timed: dict[int, list[clock.CallClock]] = {}  # per shape, the current timing's calls
        self.claims: dict[int, list[tuple[int, float]]] = {}  # per shape: (set, claimed us) per timed call
        self.seed_index: dict[int, int] = {}  # per shape: the next input seed number
        self.checked_cases: set[int] = set()
        self.phase_of: dict[int, str] = {}  # per shape: "check" -> "warmup" -> "timed" -> "done"
        self.attempt_began: dict[int, float] = {}  # per shape: when the current timing's warm-up began
        # Per (shape, calibrating): timed calls of the last go; the current warm-up's spans.
        self.batch_sizes: dict[tuple[int, bool], int] = {}
        self.warmup_spans: dict[tuple[int, bool], list[float]] = {}
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
            clock.CallClock(done.claim_us, done.span_us, cpu, done.call_cpu_us, wait + done.reader_wait_us, done.calls)
        )

    def reject(self, verdict: str, message: str) -> None:
        from judge.harness.parent.conversation import Finished

        self.judging.finish(verdict, message)
        raise Finished

    def shape(self, index: int) -> ShapeState:
        return self.judging.shapes[index]

    # -- a call request -----------------------------------------------------------------------

    def on_call(self, frame: fr.Call) -> None:
        with one_thread():
            self.start_call(frame)

    def start_call(self, frame: fr.Call) -> None:
        judging = self.judging
        spec, config = judging.spec, judging.config
        assert spec is not None and judging.child is not None and judging.child.job_out is not None
        if self.outstanding is not None:
            raise framing.ForgedFrame("a call was asked for before the previous one was reported")
        self.settle()
        out = self.plan_call(frame, self.child_now())
        from judge.harness.parent.references import reference_module

        module = reference_module(spec)
        sizes = dict(judging.cases[out.index].sizes if out.what == "case" else self.shape(out.index).sizes)
        shapes = {t.name: t.concrete_shape(sizes) for t in spec.inputs + spec.outputs}
        staged = []
        for planned in out.calls:
            values = module.generate_inputs(seed=planned.seed, device=config.device, **sizes)
            staged.append(self.memory.stage(planned.key, values, shapes, planned.set_index))
            if out.what != "calibration":  # the reference of exactly these inputs, for the check
                self.expected[planned.key] = module.reference(**values, **sizes)
            del values
        if self.flusher is not None:  # written, then out of the L2, before the child may start
            torch.cuda.synchronize()
            self.flusher.flush()
            torch.cuda.synchronize()
        go = fr.encode(fr.Go(go=True, calls=staged))
        self.outstanding = out
        out.reader_wait = self.reader_wait_now()
        out.started = time.monotonic()
        framing.write_frame(judging.child.job_out, go)

    def plan_call(self, frame: fr.Call, mark: tuple[float, float] | None) -> Outstanding:
        """Which call(s) a request gets: its kind, index and phase checked against the order the
        judge expects, and a fresh seed for each."""
        judging, config = self.judging, self.judging.config
        if frame.calibration:
            if self.checked_cases or self.calibration is not None or not judging.shapes:
                raise framing.ForgedFrame("a calibration call after the submission was loaded")
            index = fr.within(frame.shape, "shape", 0, len(judging.shapes) - 1)
            phase: str = frame.phase
            batch = frame.batch
            if (phase == "timed") != batch or phase not in ("warmup", "timed"):
                raise framing.ForgedFrame("calibration calls out of order")
            calls = []
            for set_index in range(self.batch_size(index, calibrating=True)) if batch else [0]:
                self.calibration_seeds += 1
                seed = derive_seed(config.secret, judging.job.seed, "calibration", self.calibration_seeds)
                calls.append(Planned(set_index, f"{CALIBRATION_KEY}:{index}:{set_index}", seed))
            return Outstanding("calibration", index, phase, calls, mark, batch=batch)
        self.close_calibration()
        if frame.case is not None:
            index = fr.within(frame.case, "case", 0, len(judging.cases) - 1)
            if frame.phase == "profile":
                self.refuse_second_profile("case", index, judging.shapes == [] and index in self.checked_cases)
            elif frame.phase or index in self.checked_cases:
                raise framing.ForgedFrame(f"case {index} asked for twice")
            seed = derive_seed(config.secret, judging.job.seed, test_case_key(judging.cases[index].name), 0)
            key = f"profile:case:{index}" if frame.phase == "profile" else f"case:{index}"
            return Outstanding("case", index, frame.phase, [Planned(0, key, seed)], mark)
        index = fr.within(frame.shape, "shape", 0, len(judging.shapes) - 1)
        shape = self.shape(index)
        batch = frame.batch
        if frame.phase == "profile":  # one untimed call under the profiler, after its timing
            self.refuse_second_profile("shape", index, self.phase_of.get(index) == "done" and not batch)
            n = self.seed_index.get(index, 0)
            self.seed_index[index] = n + 1
            return Outstanding("shape", index, "profile", [Planned(0, f"profile:shape:{index}", shape.seed(n))], mark)
        if batch:
            sets = list(range(self.batch_size(index)))
            shape.pool_size = max(shape.pool_size, len(sets))
        else:
            sets = [fr.within(frame.set, "set", 0, max(shape.pool_size, 1) - 1)]
        phase = self.next_phase(index, frame.phase, sets[0])
        if phase == "check":  # the shapes before this one are done: their memory goes
            for earlier in range(index):
                self.memory.release(f"shape:{earlier}:")
        if (phase == "timed") != batch:
            raise framing.ForgedFrame("timed calls come in batches, other calls one at a time")
        calls = []
        for set_index in sets:
            n = self.seed_index.get(index, 0)
            self.seed_index[index] = n + 1
            calls.append(Planned(set_index, f"shape:{index}:{set_index}", shape.seed(n)))
        return Outstanding("shape", index, phase, calls, mark, batch=batch)

    def refuse_second_profile(self, what: str, index: int, allowed: bool) -> None:
        """The kernel list's call: once per shape once it is timed (in test mode, once on a case
        already checked)."""
        if not allowed or (what, index) in self.profiled:
            raise framing.ForgedFrame(f"a profiled call of {what} {index} out of order")
        self.profiled.add((what, index))

    def batch_size(self, index: int, calibrating: bool = False) -> int:
        """How many timed calls the next go covers on a shape: enough that the batch takes
        BATCH_TARGET_US by the parent's own clock, so that the handshake's noise is a small part
        of what the clock bounds (parent/clock.py); within BATCH_MAX calls and BATCH_MAX_BYTES.
        The first batch is sized from the warm-up calls' spans, each later one from the batch
        before, and a batch is never smaller than the one before it: a submission that is slow
        on purpose to keep its batches small must stay slow, and gains nothing by it. The
        calibration's batches are sized the same way from the judge's own calls."""
        spec = self.judging.spec
        assert spec is not None
        shape = self.shape(index)
        calibration = None if calibrating or self.calibration is None else self.calibration.get(index)
        handshake = calibration.wall_gap_us if calibration is not None else 0.0
        timed = self.calibration_calls.get(index) if calibrating else self.timed.get(index)
        key = (index, calibrating)
        if timed:  # the last batch: its span per call
            last = timed[-1]
            per_call = (last.span_us - handshake) / max(last.calls, 1)
        else:
            spans = self.warmup_spans.get(key) or [BATCH_TARGET_US + handshake]
            per_call = statistics.median(spans) - handshake
        nbytes = sum(t.nbytes(shape.sizes) for t in spec.inputs + spec.outputs)
        wanted = math.ceil(BATCH_TARGET_US / max(per_call, 1.0))
        most = CALIBRATION_BATCH_MAX if calibrating and not self.per_call else BATCH_MAX
        size = max(1, min(wanted, most, self.batch_max_bytes // max(nbytes, 1)))
        size = max(size, self.batch_sizes.get(key, 1))
        self.batch_sizes[key] = size
        return size

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
                self.warmup_spans[(index, False)] = []
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
        judging = self.judging
        if judging.shapes:
            calls = self.calibration_calls
            if any(len(calls.get(i, [])) < MIN_CALIBRATION_CALLS for i in range(len(judging.shapes))):
                raise framing.ForgedFrame("the handshake was not calibrated before the submission was loaded")
        self.calibration = {
            i: clock.Calibration.from_calls([clock.per_call(go) for go in c] if self.per_call else c)
            for i, c in self.calibration_calls.items()
        }
        judging.report.system.setdefault("parent_clock", {})["calibration"] = {
            judging.shapes[i].name: c.as_dict() for i, c in self.calibration.items()
        }
        self.memory.release(CALIBRATION_KEY)

    # -- a call reported done -----------------------------------------------------------------

    def on_called(self, frame: fr.Called, arrived: float) -> None:
        with one_thread():
            self.end_call(frame, arrived)

    def end_call(self, frame: fr.Called, arrived: float) -> None:
        out, self.outstanding = self.outstanding, None
        if out is None:
            raise framing.ForgedFrame("a call reported done that the judge did not start")
        span_us = (arrived - out.started) * 1e6
        reader_wait = self.reader_wait_now()
        reader_us = reader_wait - out.reader_wait if reader_wait is not None and out.reader_wait is not None else 0.0
        if out.what == "calibration":
            if not frame.calibration or frame.shape != out.index:
                raise framing.ForgedFrame("a calibration call reported as something else")
            claims = frame.us if out.batch else [frame.us]
            if not isinstance(claims, list) or len(claims) != len(out.calls):
                raise framing.ForgedFrame("a calibration batch's report must give one time per call")
            claim = math.fsum(self.claim(c) for c in claims)
            call_cpu = frame.cpu_us
            for planned in out.calls:
                self.calibration_work(planned)
            if out.phase == "timed":
                into = self.calibration_calls.setdefault(out.index, [])
                self.unfinished = Unfinished(into, claim, span_us, out.mark, call_cpu, reader_us, len(claims))
            else:
                self.warmup_spans.setdefault((out.index, True), []).append(span_us)
            return
        sets = [c.set_index for c in out.calls]
        reported = frame.sets if out.batch else [frame.set] if out.what == "shape" else [0]
        if (frame.case if out.what == "case" else frame.shape) != out.index or reported != sets:
            raise framing.ForgedFrame("a call reported done is not the call the judge started")
        for planned in out.calls:
            self.check_call(out, planned, frame.returned)
        if out.phase == "profile":
            self.memory.release(out.calls[0].key)
            return
        if out.what == "case":
            self.checked_cases.add(out.index)
            self.memory.release(out.calls[0].key)
            return
        if out.phase == "timed":
            claims = frame.us
            if not isinstance(claims, list) or len(claims) != len(sets):
                raise framing.ForgedFrame("a batch's report must give one time per call")
            times = [self.claim(c) for c in claims]
            self.claims.setdefault(out.index, []).extend(zip(sets, times, strict=True))
            self.unfinished = Unfinished(
                self.timed.setdefault(out.index, []), math.fsum(times), span_us, out.mark, None, reader_us, len(times)
            )
        elif out.phase == "warmup":
            self.claim(frame.us)
            self.warmup_spans.setdefault((out.index, False), []).append(span_us)

    def calibration_work(self, planned: Planned) -> None:
        """The memory work the parent does after a timed call, done after a calibration call too
        (its result unused), so that the handshakes that follow run in caches about as cold as
        in the timing (the reference and the comparison, which add to it, are left out: the
        calibration then errs on the fast side, which only ever counts against a submission)."""
        self.memory.modified_inputs(planned.key)
        self.memory.snapshot(planned.key)

    @staticmethod
    def claim(value: Any) -> float:
        if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value) or value < 0:
            raise framing.ForgedFrame(f"a call's time must be a finite number of us, got {value!r}")
        return float(value)

    def check_call(self, out: Outstanding, planned: Planned, returned: bool) -> None:
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
            label = f"benchmark {shape.name} (input set {planned.set_index}{call})"
        modified = self.memory.modified_inputs(planned.key)
        if modified:
            self.reject(
                "rejected",
                f"rule broken (inputs-modified): input {modified[0]} was modified by solve() ({label}); inputs are "
                "read-only (the judge compared them with its own copy after the call)",
            )
        got = self.memory.snapshot(planned.key)
        expected = self.expected.pop(planned.key)
        if out.phase in ("warmup", "timed"):
            self.refuse_unwritten(got, expected, label)
        comparisons = []
        for tensor in spec.outputs:
            ref = expected.get(tensor.name)
            if ref is None or tuple(ref.shape) != tuple(got[tensor.name].shape):
                raise RuntimeError(f"the reference of {spec.slug} gave no {tensor.name} of the output's shape")
            comparisons.append((tensor.name, compare_within(ref, got[tensor.name], spec.tolerance, tensor.dtype)))
        del expected, got
        judging.record_check(out.what, out.index, label, sizes, comparisons, returned, out.phase in ("", "check"))

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
        times = shape.times
        assert times is not None
        claims = self.claims.get(index, [])
        if [s for s, _ in claims] != times.sets or [c for _, c in claims] != times.times_us:
            raise framing.ForgedFrame("the times frame differs from the times reported call by call")
        calls = self.timed.get(index, [])
        assert self.calibration is not None
        config = self.judging.config
        allowance = clock.Allowance(
            config.clock_wall_allowance_us, config.clock_cpu_allowance_us, config.clock_allowance_rel
        )
        calibration = self.calibration[index]
        if self.per_call:
            check = clock.check_calls([clock.per_call(go) for go in calls], calibration, allowance, ranked=True)
            check.added_us = [extra * go.calls for extra, go in zip(check.added_us, calls, strict=True)]
        else:
            check = clock.check_calls(calls, calibration, allowance)
        self.judging.report.system.setdefault("parent_clock", {})[shape.name] = check.as_dict()
        shape.checked_final = True  # every timed call's output was checked when it was reported done
        self.phase_of[index] = "done"
        if check.forged:
            batch = 1 if self.per_call else self.batch_sizes.get((index, False), 1)
            message = check.message(shape.name, calibration, batch)
            self.reject("rejected", f"rule broken (forged-timing): {message}")
        # Each batch counts at least what the judge's clock saw; its calls share the difference.
        added = [
            extra / batch.calls for batch, extra in zip(calls, check.added_us, strict=True) for _ in range(batch.calls)
        ]
        shape.clock_added_us = statistics.median(added)
        shape.times = dataclasses.replace(times, times_us=[t + a for t, a in zip(times.times_us, added, strict=True)])

    def close(self) -> None:
        self.memory.close()

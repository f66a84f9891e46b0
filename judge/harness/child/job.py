"""The sandboxed side of judging: run one job's submission and report raw observations.

Started as `python -m judge.harness.child` inside the sandbox, possibly ahead of time (a warm
process: torch imported, CUDA initialised, blocked on fd 3 until a job arrives). It reads one job
frame, generates every input itself from the per-case seeds (the same generate_inputs as the
parent: deterministic), calls solve() and sends back what it saw: full outputs, input checksums,
per-call times and drains, profiler kernel names, broken rules. It decides nothing: the parent
compares, computes statistics and gives the verdict. It serves exactly one job, then exits.

Frames to the parent (fd 4), by "kind":
  ready        {}                                       the job was read; the time limit starts
  stage        {stage, done, total, detail}
  output       {case | shape, set, name, blob}          raw bytes of one output tensor
  checked      {case | shape, set, checksums, returned} after the outputs of one call
               (+ seed: the final timed call's input seed number, FreshSets)
  kernels      {shape, names: [[name, duration_us], ...]}
  pool         {shape, size, flush_bytes}
  timing_start {shape}
  times        {shape, times_us, sets, seeds, drains_us, warmup_us, warmup_seeds, stop_reason}
  await        {}                                       blocks until the parent sends {go: bool}
  violation    {rule, message}                          a contract rule was broken (-> rejected)
  error        {verdict, message}                       compile/runtime/memory/internal errors
  done         {}
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import importlib.util
import inspect
import itertools
import json
import os
import random
import socket
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable
from typing import Any, BinaryIO

import torch

from judge.harness.child import shared_runs
from judge.harness.child.guard import Guard
from judge.harness.child.shared_inputs import SharedSets
from judge.harness.child.timing import L2Flusher, TimingPolicy, time_calls
from judge.harness.child.triton_interpreter import needs_gpu_in
from judge.harness.child.warmup import warm_up
from judge.harness.common import framing
from judge.harness.common.errors import exception_text, scrub_paths, syntax_error_message, trim, user_traceback
from judge.harness.common.seeds import fresh_seed
from judge.harness.common.tensors import DTYPES, InputSample, checksum, poison_, sample_positions, to_bytes

MAX_LIBRARY_BYTES = 64 << 20


def strict_numerics() -> None:
    """The judge's numerics: fp32 matmuls in full fp32 (no TF32) and bf16/fp16 GEMMs reduced in
    fp32 (cuBLAS's split-K may otherwise round partial sums to 16 bits, which misses the
    problems' "fp32 accumulate" contract by far more than a summation order). Set before the
    guard's snapshot, so a submission that flips any of them back is rejected."""
    matmul = torch.backends.cuda.matmul
    matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    matmul.allow_bf16_reduced_precision_reduction = False
    matmul.allow_fp16_reduced_precision_reduction = False


class Stop(Exception):
    """Ends the job early after a frame that explains why was sent."""


class Violation(Exception):
    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


class Channel:
    def __init__(self, writer: BinaryIO | None, reader: BinaryIO | None) -> None:
        self.writer = writer
        self.reader = reader

    def send(self, header: dict[str, Any], blob: Any = None) -> None:
        if self.writer is None:
            if header.get("kind") in ("error", "violation"):
                print(json.dumps(header), file=sys.stderr, flush=True)
            return
        framing.write_frame(self.writer, header, blob)

    def wait_go(self) -> bool:
        return bool(self.wait_answer().get("go"))

    def wait_answer(self) -> dict[str, Any]:
        """The parent's answer to an await: {go: bool}, after a shape's timing maybe with
        retime: true (time the shape again). {} when the channel broke."""
        return self.ask({"kind": "await"})

    def ask(self, header: dict[str, Any]) -> dict[str, Any]:
        """Send a frame the parent answers ("await", a call request) and read the answer."""
        self.send(header)
        if self.reader is None:
            return {"go": True}
        try:
            header, _ = framing.read_frame(self.reader, max_blob=0)
        except (framing.ChannelClosed, framing.FrameError):
            return {}
        return header


# ---------------------------------------------------------------------------------------------
# Loading the submission.


def _load_module(path: str, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _signature_text(names: list[str]) -> str:
    return f"solve({', '.join(names)})"


def _check_python_signature(solve: Any, names: list[str], shown_as: str) -> str | None:
    if not callable(solve):
        return f"{shown_as} must define a function {_signature_text(names)}; `solve` is not callable"
    try:
        sig = inspect.signature(solve)
    except (TypeError, ValueError):
        return None  # builtins and C functions: let the call itself complain
    try:
        sig.bind(*names)
    except TypeError:
        return (
            f"wrong signature: solve must take {len(names)} arguments, {_signature_text(names)} "
            f"(inputs, outputs, then sizes); yours is solve{sig}"
        )
    return None


class Submission:
    """A loaded submission, bound per input set to a zero-argument call."""

    def __init__(self, job: dict[str, Any], channel: Channel) -> None:
        self.language = job["language"]
        self.path = job["paths"]["solution"]
        self.shown_as = job["shown_as"]
        self.names = job["signature"]
        self.n_tensors = len(job["inputs"]) + len(job["outputs"])
        self.channel = channel
        self.fn: Any = None
        self.cupy: Any = None

    def load(self) -> None:
        if self.language == "cuda":
            self._load_cuda()
            return
        try:
            module = _load_module(self.path, "solution")
        except SyntaxError as exc:
            self.channel.send(
                {"kind": "error", "verdict": "compile_error", "message": syntax_error_message(exc, self.shown_as)}
            )
            raise Stop from None
        except BaseException as exc:
            self.channel.send(
                {"kind": "error", **classify(exc, self.path, self.shown_as, stage="importing your module")}
            )
            raise Stop from None
        solve = getattr(module, "solve", None)
        if solve is None:
            message = f"{self.shown_as} must define {_signature_text(self.names)}"
            self.channel.send({"kind": "error", "verdict": "runtime_error", "message": message})
            raise Stop
        problem = _check_python_signature(solve, self.names, self.shown_as)
        if problem:
            self.channel.send({"kind": "error", "verdict": "runtime_error", "message": problem})
            raise Stop
        self.fn = solve

    def _load_cuda(self) -> None:
        try:
            lib = ctypes.CDLL(self.path)
            fn = lib.solve
        except (OSError, AttributeError) as exc:
            detail = scrub_paths(str(exc), {self.path: "solution.so"})
            message = f'the compiled library has no usable extern "C" solve(): {detail}'
            self.channel.send({"kind": "error", "verdict": "runtime_error", "message": message})
            raise Stop from None
        fn.argtypes = [ctypes.c_void_p] * self.n_tensors + [ctypes.c_int] * (len(self.names) - self.n_tensors)
        fn.restype = None
        self.fn = fn

    def _to_cupy(self, tensor: torch.Tensor) -> Any:
        cp = self.cupy
        try:
            array = cp.from_dlpack(tensor)
        except (TypeError, ValueError, RuntimeError, BufferError):
            if tensor.dtype != torch.bfloat16:
                raise
            # CuPy has no bfloat16: hand over the raw 16-bit patterns as a uint16 view.
            memory = cp.cuda.UnownedMemory(tensor.data_ptr(), tensor.numel() * 2, tensor)
            array = cp.ndarray(tuple(tensor.shape), dtype=cp.uint16, memptr=cp.cuda.MemoryPointer(memory, 0))
        if int(array.data.ptr) != tensor.data_ptr():
            raise RuntimeError("cupy view does not share the tensor's memory")
        return array

    def bind(self, inputs: list[torch.Tensor], outputs: list[torch.Tensor], sizes: list[int]) -> Callable[[], Any]:
        fn = self.fn
        if self.language == "cuda":
            ptrs = [t.data_ptr() for t in inputs + outputs]
            args: list[Any] = [*ptrs, *sizes]
        elif self.language == "cupy":
            args = [self._to_cupy(t) for t in inputs + outputs] + list(sizes)
        else:
            args = [*inputs, *outputs, *sizes]

        def call() -> Any:
            return fn(*args)

        return call


def gpu_memory_over(used_bytes: int, limit_bytes: int | None, stage: str) -> dict[str, str] | None:
    """The memory_limit error for a call that allocated more GPU memory than the problem allows."""
    if limit_bytes is None or used_bytes <= limit_bytes:
        return None
    return {
        "verdict": "memory_limit",
        "message": f"solve() allocated {used_bytes / 2**20:,.0f} MiB of GPU memory beyond its inputs and outputs "
        f"while {stage}; this problem allows {limit_bytes / 2**20:,.0f} MiB",
    }


def classify(exc: BaseException, path: str, shown_as: str, stage: str) -> dict[str, str]:
    """Map an exception raised by the submission to a verdict and a user-facing message."""
    name = type(exc).__name__
    module = type(exc).__module__ or ""
    needs_gpu = needs_gpu_in(exc)
    if needs_gpu is not None:
        return {"verdict": "rejected", "message": needs_gpu.message()}
    said = exception_text(exc)
    if isinstance(exc, torch.cuda.OutOfMemoryError | MemoryError) or "out of memory" in said.lower():
        return {"verdict": "memory_limit", "message": f"out of memory while {stage}: {trim(said, 2000)}"}
    text = user_traceback(exc, path, shown_as)
    if name == "CompilationError" and module.startswith("triton"):
        return {"verdict": "compile_error", "message": f"Triton could not compile your kernel:\n{text}"}
    return {"verdict": "runtime_error", "message": f"error while {stage}:\n{text}"}


# ---------------------------------------------------------------------------------------------
# The job.


class Runner:
    def __init__(self, job: dict[str, Any], channel: Channel, regions: socket.socket | None = None) -> None:
        self.job = job
        self.channel = channel
        self.device = job["device"]
        self.inputs_spec = job["inputs"]
        self.outputs_spec = job["outputs"]
        self.sizes_names = job["sizes"]
        self.submission = Submission(job, channel)
        # Parent-owned memory (CPU hosts): no seed, no generator here; the parent writes inputs.
        self.shared: SharedSets | None = None
        if job.get("memory") == "shared":
            if regions is None:
                raise RuntimeError("a shared-memory job needs the region socket (fd 5)")
            self.shared = SharedSets(
                channel.ask, regions, [t["name"] for t in job["inputs"]], [t["name"] for t in job["outputs"]]
            )
        else:
            self.generate: Callable[..., dict[str, torch.Tensor]] = _load_module(
                job["paths"]["reference"], "gridstride_reference"
            ).generate_inputs
        self.guard: Guard | None = None
        self.flusher: L2Flusher | None = None

    # -- helpers ------------------------------------------------------------------------------

    def sync(self) -> None:
        if self.device == "cuda":
            torch.cuda.synchronize()

    def make_inputs(self, seed: int, sizes: dict[str, int], shapes: dict[str, list[int]]) -> list[torch.Tensor]:
        made = self.generate(seed=seed, device=self.device, **sizes)
        tensors = []
        for spec in self.inputs_spec:
            t = made[spec["name"]]
            want = tuple(shapes[spec["name"]])
            if tuple(t.shape) != want or t.dtype != DTYPES[spec["dtype"]] or not t.is_contiguous():
                raise RuntimeError(
                    f"generate_inputs gave {spec['name']} {tuple(t.shape)} {t.dtype}, expected {want} {spec['dtype']}"
                )
            tensors.append(t)
        return tensors

    def make_outputs(self, shapes: dict[str, list[int]]) -> list[torch.Tensor]:
        return [
            torch.empty(tuple(shapes[s["name"]]), dtype=DTYPES[s["dtype"]], device=self.device)
            for s in self.outputs_spec
        ]

    def poison(self, outputs: list[torch.Tensor]) -> None:
        for t, spec in zip(outputs, self.outputs_spec, strict=True):
            poison_(t, spec["dtype"])

    @staticmethod
    def meta(tensors: list[torch.Tensor]) -> list[tuple[Any, ...]]:
        return [
            (
                t.data_ptr(),
                tuple(t.shape),
                t.stride(),
                t.dtype,
                t.device,
                t.storage_offset(),
                t.untyped_storage().nbytes(),
            )
            for t in tensors
        ]

    def check_after_call(
        self, inputs: list[torch.Tensor], outputs: list[torch.Tensor], before: list[tuple[Any, ...]]
    ) -> None:
        names = [s["name"] for s in self.inputs_spec] + [s["name"] for s in self.outputs_spec]
        tensors = inputs + outputs
        for name, t, was in zip(names, tensors, before, strict=True):
            now = self.meta([t])[0]
            if now != was:
                raise Violation(
                    "tensor-identity",
                    f"{name} was replaced or reshaped during solve() (data pointer, shape, stride or dtype changed); "
                    "write into the tensors you are given",
                )
            if not t.is_contiguous():
                raise Violation("tensor-identity", f"{name} is no longer contiguous after solve()")
        spans = sorted(
            (t.data_ptr(), t.data_ptr() + t.numel() * t.element_size(), n)
            for n, t in zip(names, tensors, strict=True)
            if t.numel()
        )
        for (_, end_a, name_a), (start_b, _, name_b) in itertools.pairwise(spans):
            if start_b < end_a:
                raise Violation("aliasing", f"{name_a} and {name_b} share memory after solve()")
        if self.guard is not None:
            changes = self.guard.changes()
            if changes:
                raise Violation(
                    "global-state", "the submission changed the judge's global state: " + "; ".join(changes[:5])
                )

    def call_checked(
        self, call: Callable[[], Any], inputs: list[torch.Tensor], outputs: list[torch.Tensor], stage: str
    ) -> Any:
        before = self.meta(inputs + outputs)
        self.poison(outputs)
        self.sync()
        memory_mark = self.gpu_memory_mark()
        try:
            returned = call()
            self.sync()
        except Violation:
            raise
        except BaseException as exc:
            self.channel.send({"kind": "error", **classify(exc, self.submission.path, self.submission.shown_as, stage)})
            raise Stop from None
        gpu_bytes = self.gpu_memory_used(memory_mark)  # before the checks below allocate anything
        self.check_after_call(inputs, outputs, before)
        over = gpu_memory_over(gpu_bytes, self.job.get("gpu_memory_bytes"), stage)
        if over:
            self.channel.send({"kind": "error", **over})
            raise Stop
        return returned

    # GPU memory of a checked call (every correctness case and each benchmark shape's checked
    # call): what PyTorch's allocator peaked at beyond the inputs and outputs, plus what CuPy's
    # pool had to grow by. A CUDA C++ solve() that calls cudaMalloc itself is bounded by the device.

    def cupy_pool(self) -> Any:
        cupy = self.submission.cupy
        return cupy.get_default_memory_pool() if cupy is not None else None

    def gpu_memory_mark(self) -> tuple[int, int]:
        if self.device != "cuda":
            return 0, 0
        torch.cuda.reset_peak_memory_stats()
        pool = self.cupy_pool()
        if pool is not None:
            pool.free_all_blocks()  # so that what it holds after the call is what the call needed
        return torch.cuda.memory_allocated(), pool.total_bytes() if pool is not None else 0

    def gpu_memory_used(self, mark: tuple[int, int]) -> int:
        if self.device != "cuda":
            return 0
        pool = self.cupy_pool()
        cupy_bytes = pool.total_bytes() - mark[1] if pool is not None else 0
        return max(0, torch.cuda.max_memory_allocated() - mark[0]) + max(0, cupy_bytes)

    def send_outputs(self, outputs: list[torch.Tensor], where: dict[str, Any], sample_phase: int | None = None) -> None:
        """Each output's bytes to the parent; with sample_phase, only tensors.sample_positions of
        a large one (the check before a shape's timing)."""
        for t, spec in zip(outputs, self.outputs_spec, strict=True):
            positions = None
            if sample_phase is not None:
                positions = sample_positions(
                    t.numel(), t.element_size(), sample_phase, self.job["precheck_sample_bytes"]
                )
            sent = t if positions is None else t.reshape(-1)[positions.to(t.device)]
            self.channel.send({"kind": "output", **where, "name": spec["name"]}, to_bytes(sent))

    # -- stages -------------------------------------------------------------------------------

    def run(self) -> None:
        language = self.job["language"]
        if self.device == "cpu" and language in ("cuda", "cupy"):
            raise RuntimeError(f"{language} cannot run on a CPU host")
        if language == "triton":
            import triton  # noqa: F401 - imported before the snapshot so its import is not a change

            if self.device == "cpu":
                from judge.harness.child.triton_interpreter import install

                install()  # the interpreter computes as a GPU does (docs/judging.md, section 8)
        if language == "pytorch" and self.device == "cpu":
            from judge.harness.child.triton_interpreter import cpu_torch_cuda

            cpu_torch_cuda()  # torch.cuda.synchronize() is a no-op where nothing runs asynchronously
        if language in ("triton", "pytorch") and importlib.util.find_spec("triton") is not None:
            from judge.harness.child import compile_watch

            compile_watch.install(self.channel.send)  # the parent bounds each kernel's compile
        if language == "cupy":
            import cupy

            self.submission.cupy = cupy
        if self.device == "cuda":
            self.flusher = L2Flusher("cuda")
        strict_numerics()
        self.guard = Guard()
        if self.shared is not None:
            shared_runs.calibrate(self)  # before the submission exists in this process
        self.submission.load()
        changes = self.guard.changes()
        if changes:
            raise Violation("global-state", "importing the submission changed global state: " + "; ".join(changes[:5]))
        self.correctness()
        if self.job["benchmarks"] and not (self.channel.wait_go() and self.benchmarks()):
            return  # the parent said stop (a verdict is known)
        if self.job["profile_kernels"]:
            self.profile_kernels()

    def profile_kernels(self) -> None:
        """One untimed call per shape (or on the largest test case in test mode) under the
        profiler: the kernel names prove whose kernels did the work. Done after all timing, so
        the profiler's own setup never touches a timed call."""
        seen = profiler_sanity()
        if not seen:
            raise RuntimeError("the profiler saw no kernel of a harness fill; CUPTI is not working here")
        targets = self.job["benchmarks"] or [self.job["cases"][self.job["profile_case"]]]
        for j, target in enumerate(targets):
            self.channel.send(
                {"kind": "stage", "stage": "profiling", "done": j, "total": len(targets), "detail": target["name"]}
            )
            seed = target["pool_seeds"][0] if "pool_seeds" in target else target["seed"]
            inputs = self.make_inputs(seed, target["sizes"], target["shapes"])
            outputs = self.make_outputs(target["shapes"])
            call = self.submission.bind(inputs, outputs, [target["sizes"][n] for n in self.sizes_names])
            before = self.meta(inputs + outputs)
            names = self.kernel_list(call, outputs)
            self.check_after_call(inputs, outputs, before)
            self.channel.send({"kind": "kernels", "shape": j, "names": names})
            del inputs, outputs, call

    def correctness(self) -> None:
        if self.shared is not None:
            shared_runs.correctness(self)
            return
        cases = self.job["cases"]
        for i, case in enumerate(cases):
            self.channel.send(
                {"kind": "stage", "stage": "testing", "done": i, "total": len(cases), "detail": case["name"]}
            )
            inputs = self.make_inputs(case["seed"], case["sizes"], case["shapes"])
            outputs = self.make_outputs(case["shapes"])
            sums_before = [checksum(t) for t in inputs]
            call = self.submission.bind(inputs, outputs, [case["sizes"][n] for n in self.sizes_names])
            returned = self.call_checked(call, inputs, outputs, f"testing case {case['name']!r}")
            sums_after = [checksum(t) for t in inputs]
            self.check_inputs_unchanged(sums_before, sums_after)
            self.send_outputs(outputs, {"case": i, "set": 0})
            self.channel.send(
                {"kind": "checked", "case": i, "set": 0, "checksums": sums_after, "returned": returned is not None}
            )
            del inputs, outputs, call

    def check_inputs_unchanged(self, before: list[str], after: list[str]) -> None:
        self.reject_modified_inputs([a != b for a, b in zip(before, after, strict=True)])

    def check_inputs_sampled(self, samples: list[InputSample], inputs: list[torch.Tensor]) -> None:
        changed = [not sample.unchanged(t) for sample, t in zip(samples, inputs, strict=True)]
        self.reject_modified_inputs(changed, " during the benchmark calls")

    def reject_modified_inputs(self, changed: list[bool], when: str = "") -> None:
        for spec, modified in zip(self.inputs_spec, changed, strict=True):
            if modified:
                raise Violation(
                    "inputs-modified", f"input {spec['name']} was modified by solve(){when}; inputs are read-only"
                )

    def pool_size(self, set_bytes: int, wanted: int) -> int:
        if self.device != "cuda":
            return min(wanted, 4)
        free, _total = torch.cuda.mem_get_info()
        budget = self.job["pool_memory_fraction"] * free
        return max(1, min(wanted, int(budget // max(set_bytes, 1))))

    def benchmarks(self) -> bool:
        """Every benchmark shape; False when the parent said stop."""
        if self.shared is not None:
            return shared_runs.benchmarks(self, self.report_failure)
        shapes = self.job["benchmarks"]
        policy = TimingPolicy.from_dict(self.job["policy"])
        order_rng = random.Random(self.job["order_seed"])
        for j, shape in enumerate(shapes):
            sizes = shape["sizes"]
            size_args = [sizes[n] for n in self.sizes_names]
            detail = shape["name"]
            self.channel.send(
                {"kind": "stage", "stage": "benchmarking", "done": j, "total": len(shapes), "detail": detail}
            )

            def tensor_bytes(specs: list[dict[str, Any]], shape: dict[str, Any] = shape) -> int:
                return sum(DTYPES[t["dtype"]].itemsize * _count(shape["shapes"][t["name"]]) for t in specs)

            set_bytes = tensor_bytes(self.inputs_spec)
            if policy.outputs_per_set:
                set_bytes += tensor_bytes(self.outputs_spec)
            k = self.pool_size(set_bytes, len(shape["pool_seeds"]))
            pool = []
            set_outputs: list[list[torch.Tensor]] = []
            for seed in shape["pool_seeds"][:k]:
                pool.append(self.make_inputs(seed, sizes, shape["shapes"]))
                if policy.outputs_per_set or not set_outputs:
                    set_outputs.append(self.make_outputs(shape["shapes"]))
            if not policy.outputs_per_set:
                set_outputs *= k  # one shared output buffer for every set
            sums0 = [checksum(t) for t in pool[0]]
            calls = [
                self.submission.bind(inputs, outs, size_args) for inputs, outs in zip(pool, set_outputs, strict=True)
            ]
            outputs = set_outputs[0]
            flush_bytes = self.flusher.flush_bytes if self.flusher else 0
            self.channel.send({"kind": "pool", "shape": j, "size": k, "flush_bytes": flush_bytes})

            fresh = FreshSets(self, shape, pool)
            # One untimed call on set 0 whose output the parent checks (a sample of a large one:
            # an early wrong answer; the final timed call's output is checked whole).
            fresh.before_call(0)
            returned = self.call_checked(calls[0], pool[0], outputs, f"benchmark shape {detail!r}")
            self.check_inputs_unchanged(sums0, [checksum(t) for t in pool[0]])
            self.send_outputs(outputs, {"shape": j, "set": 0}, sample_phase=shape["sample_phase"])
            self.channel.send(
                {"kind": "checked", "shape": j, "set": 0, "checksums": sums0, "returned": returned is not None}
            )
            if not self.channel.wait_go():
                return False

            guard_before = [self.meta(inputs + outs) for inputs, outs in zip(pool, set_outputs, strict=True)]

            def prepare(
                index: int, set_outputs: list[list[torch.Tensor]] = set_outputs, fresh: FreshSets = fresh
            ) -> None:
                fresh.before_call(index)
                self.poison(set_outputs[index])

            def after(
                index: int,
                _elapsed: float,
                pool: list[list[torch.Tensor]] = pool,
                set_outputs: list[list[torch.Tensor]] = set_outputs,
                before: list[list[tuple[Any, ...]]] = guard_before,
            ) -> None:
                self.check_after_call(pool[index], set_outputs[index], before[index])

            def call(index: int, calls: list[Callable[[], Any]] = calls) -> None:
                calls[index]()

            def started(j: int = j, detail: str = detail, fresh: FreshSets = fresh) -> None:
                fresh.timing_started()
                self.channel.send(
                    {
                        "kind": "stage",
                        "stage": "benchmarking",
                        "done": j,
                        "total": len(shapes),
                        "detail": f"{detail}: timing",
                    }
                )
                self.channel.send({"kind": "timing_start", "shape": j})

            while True:  # once, or again when the parent asks (its drains looked like hidden work)
                fresh.new_attempt()
                try:
                    run = time_calls(
                        call,
                        prepare,
                        sets=k,
                        policy=policy,
                        device=self.device,
                        flusher=self.flusher or L2Flusher("cpu"),
                        rng=order_rng,
                        after=after,
                        on_timing_start=started,
                    )
                except Violation:
                    raise
                except BaseException as exc:
                    self.channel.send(
                        {
                            "kind": "error",
                            **classify(exc, self.submission.path, self.submission.shown_as, f"timing shape {detail!r}"),
                        }
                    )
                    raise Stop from None
                fresh.check_unchanged()
                self.channel.send(
                    {
                        "kind": "times",
                        "seeds": fresh.timed_seeds(),
                        "warmup_seeds": fresh.warmup_seeds(),
                        "shape": j,
                        "times_us": run.times_us,
                        "sets": run.sets,
                        "drains_us": run.drains_us,
                        "warmup_us": run.warmup_us,
                        "stop_reason": run.stop_reason,
                        "cover_us": run.cover_us,
                        **({"drain_detail": run.drain_detail} if policy.drain_detail else {}),
                    }
                )
                # The final set's outputs still hold the last timed call's result: the parent checks it too.
                final = run.sets[-1]
                self.send_outputs(set_outputs[final], {"shape": j, "set": final})
                self.channel.send(
                    {
                        "kind": "checked",
                        "shape": j,
                        "set": final,
                        "seed": fresh.seed_of[final],
                        "checksums": [checksum(t) for t in pool[final]],
                        "returned": False,
                    }
                )
                answer = self.channel.wait_answer()
                if not answer.get("go"):
                    return False
                if not answer.get("retime"):
                    break
            del pool, calls, outputs, set_outputs, fresh
        return True

    def report_failure(self, exc: BaseException, stage: str) -> None:
        """An exception of the submission's: its verdict to the parent, then Stop."""
        self.channel.send({"kind": "error", **classify(exc, self.submission.path, self.submission.shown_as, stage)})
        raise Stop from None

    def kernel_list(self, call: Callable[[], Any], outputs: list[torch.Tensor]) -> list[list[Any]]:
        """The kernels one call launched, from the profiler (CUDA activity only)."""
        from torch.profiler import ProfilerActivity, profile

        self.poison(outputs)
        torch.cuda.synchronize()
        # The profiler's own notice would otherwise show up as the submission's stderr.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*Profiler clears events.*")
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                call()
                torch.cuda.synchronize()
        names: dict[str, float] = {}
        for event in prof.events():
            if str(getattr(event, "device_type", "")).endswith("CUDA") and event.name:
                try:
                    us = float(event.time_range.elapsed_us())
                except (AttributeError, TypeError, ValueError):
                    us = 0.0
                names[event.name] = names.get(event.name, 0.0) + us
        return [[n, t] for n, t in names.items()]


def _count(shape: list[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


class FreshSets:
    """No two calls of a benchmark shape see the same inputs.

    The pool's sets are reused in turn (memory allows a few), so a submission could remember
    each set's result, by address or by a fingerprint of a few sampled values, and replay it
    in microseconds. Instead a set that was used is regenerated in place, from the next seed of
    the shape's fresh sequence (seeds.fresh_seed), right before it is used again: outside the
    timed window, same addresses, new values. The parent checks that no seed came twice and
    recomputes the final call's inputs from its seed.
    """

    def __init__(self, runner: Runner, shape: dict[str, Any], pool: list[list[torch.Tensor]]) -> None:
        self.runner = runner
        self.shape = shape
        self.pool = pool
        self.seed_of = list(range(len(pool)))  # the seed number each set holds now
        self.used = [False] * len(pool)
        self.next_index = len(shape["pool_seeds"])  # fresh seed numbers follow the pool's
        self.seeds: list[int] = []  # per call, warm-up and timed
        self.attempt_from = 1  # this timing's first warm-up call ([0] is the checked call before it)
        self.timed_from = 0
        self.samples: list[list[InputSample]] = [[] for _ in pool]  # each set as handed to solve()
        device = pool[0][0].device if pool and pool[0] else torch.device("cpu")
        self.generator = torch.Generator(device=device)
        self.generator.manual_seed(random.SystemRandom().getrandbits(63))

    def seed(self, index: int) -> int:
        pool_seeds = self.shape["pool_seeds"]
        return pool_seeds[index] if index < len(pool_seeds) else fresh_seed(self.shape["fresh_key"], index)

    def before_call(self, index: int) -> None:
        if self.used[index]:
            # Its previous call is over: solve() must have left the set as it was. Checked here,
            # outside the timed window and before fresh values erase the evidence, on a random
            # sample of each large input (check_unchanged checksums each set's last call whole).
            self.runner.check_inputs_sampled(self.samples[index], self.pool[index])
            made = self.runner.make_inputs(self.seed(self.next_index), self.shape["sizes"], self.shape["shapes"])
            for target, values in zip(self.pool[index], made, strict=True):
                target.copy_(values)
            del made
            self.seed_of[index] = self.next_index
            self.next_index += 1
        self.used[index] = True
        self.samples[index] = [InputSample.take(t, self.generator) for t in self.pool[index]]
        self.seeds.append(self.seed_of[index])

    def new_attempt(self) -> None:
        """A timing (warm-up and timed calls) starts: the first, or the shape timed again."""
        self.attempt_from = max(1, len(self.seeds))

    def timing_started(self) -> None:
        self.timed_from = len(self.seeds)

    def warmup_seeds(self) -> list[int]:
        return self.seeds[self.attempt_from : self.timed_from]

    def timed_seeds(self) -> list[int]:
        return self.seeds[self.timed_from :]

    def check_unchanged(self) -> None:
        """Every set still holds the inputs its seed gives (solve() wrote into none of them)."""
        for index, inputs in enumerate(self.pool):
            expected = self.runner.make_inputs(
                self.seed(self.seed_of[index]), self.shape["sizes"], self.shape["shapes"]
            )
            self.runner.check_inputs_unchanged([checksum(t) for t in expected], [checksum(t) for t in inputs])
            del expected


def profiler_sanity() -> list[str]:
    """Kernel names seen by the profiler for one harness-launched fill (to prove it works)."""
    from torch.profiler import ProfilerActivity, profile

    x = torch.empty(1 << 20, device="cuda")
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        x.fill_(1.0)
        torch.cuda.synchronize()
    return [e.name for e in prof.events() if str(getattr(e, "device_type", "")).endswith("CUDA")]


# ---------------------------------------------------------------------------------------------
# ncu mode: one call on the first benchmark shape between cudaProfilerStart/Stop.


def run_for_ncu(job: dict[str, Any], channel: Channel) -> None:
    runner = Runner(job, channel)
    if job["language"] == "cupy":
        import cupy

        runner.submission.cupy = cupy
    if job["language"] == "triton":
        import triton  # noqa: F401
    runner.flusher = L2Flusher("cuda")
    runner.submission.load()
    shape = job["benchmarks"][0]
    inputs = runner.make_inputs(shape["pool_seeds"][0], shape["sizes"], shape["shapes"])
    outputs = runner.make_outputs(shape["shapes"])
    call = runner.submission.bind(inputs, outputs, [shape["sizes"][n] for n in runner.sizes_names])
    previous = None
    began = time.monotonic()
    for _ in range(20):  # warm-up: compile and autotune outside the profiled range
        runner.poison(outputs)
        t0 = time.perf_counter()
        call()
        torch.cuda.synchronize()
        elapsed = time.perf_counter() - t0
        if (previous is not None and abs(elapsed - previous) < 0.05 * previous) or time.monotonic() - began > 20:
            break
        previous = elapsed
    runner.poison(outputs)
    runner.flusher.flush()
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    call()
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()


# ---------------------------------------------------------------------------------------------


def materialize(job: dict[str, Any], library: bytearray | None) -> None:
    """Write the job's files into a private directory of this process: the submission (Triton
    reads kernel source from a real file; a CUDA library must be a file to dlopen) and the
    reference module that generates the inputs. Nothing here is read from the host."""
    directory = tempfile.mkdtemp(prefix="job-", dir=os.environ.get("TMPDIR") or "/tmp")
    paths = {}
    if job["language"] == "cuda":
        if library is None:
            raise RuntimeError("a CUDA job arrived without its library")
        paths["solution"] = os.path.join(directory, "solution.so")
        with open(paths["solution"], "wb") as fh:
            fh.write(library)
    else:
        paths["solution"] = os.path.join(directory, job["shown_as"])
        with open(paths["solution"], "w", encoding="utf-8") as fh:
            fh.write(job["source"])
    if "reference_source" in job:  # the input generator: only where the child makes its own inputs
        paths["reference"] = os.path.join(directory, "gridstride_reference.py")
        with open(paths["reference"], "w", encoding="utf-8") as fh:
            fh.write(job["reference_source"])
    job["paths"] = paths


def process_age_s() -> float | None:
    """Seconds since this process started (from /proc), or None where that cannot be read."""
    try:
        with open("/proc/self/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime") as fh:
            uptime = float(fh.read().split()[0])
        return round(uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK"), 3)  # field 22: starttime
    except (OSError, ValueError, IndexError):
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m judge.harness.child")
    parser.add_argument("--in-fd", type=int, default=3)
    parser.add_argument("--out-fd", type=int, default=4)
    parser.add_argument("--region-fd", type=int, default=5)
    parser.add_argument("--job-file", help="read the job frame from this file (ncu mode; no channel)")
    args = parser.parse_args(argv)

    device = os.environ.get("GRIDSTRIDE_DEVICE", "cpu")
    if device == "cuda":
        torch.cuda.init()
        torch.empty(1, device="cuda")  # create the context before the job arrives (warm start)
    # Not before ncu: a profiler session of our own would be in its way.
    warmed: dict[str, float | None] = {}
    if not args.job_file:
        warmed["start-up"] = process_age_s()  # python, torch and the CUDA context
        warmed.update(warm_up(device))

    regions: socket.socket | None
    if args.job_file:
        with open(args.job_file, "rb") as fh:
            job, library = framing.read_frame(fh, max_blob=MAX_LIBRARY_BYTES)
        channel = Channel(None, None)
        regions = None  # ncu mode: the child-made inputs of GPU hosts
        # ncu writes its report to stdout; keep the submission's prints off it.
        os.dup2(2, 1)
    else:
        reader = framing.open_reader(args.in_fd)
        writer = framing.open_writer(args.out_fd)
        channel = Channel(writer, reader)
        try:  # the fds of the memory the parent shares (CPU hosts); a launcher of old passes none
            regions = socket.socket(fileno=args.region_fd)
        except OSError:
            regions = None
        # Warm: said before waiting, so the pool can tell a warmed process from one still
        # starting (sandbox.WarmPool.warm_idle) and the report can show what the warm-up took.
        with contextlib.suppress(Exception):
            channel.send({"kind": "warm", "warmed": warmed})
        try:
            job, library = framing.read_frame(reader, max_blob=MAX_LIBRARY_BYTES)
        except (framing.ChannelClosed, framing.FrameError):
            os._exit(2)
    code = 0
    # The time limit starts now: the process start-up (imports, CUDA context) is the judge's.
    with contextlib.suppress(Exception):
        channel.send({"kind": "ready"})
    try:
        materialize(job, library)
        if job.get("ncu"):
            run_for_ncu(job, channel)
        else:
            Runner(job, channel, regions).run()
    except Stop:
        pass
    except Violation as exc:
        channel.send({"kind": "violation", "rule": exc.rule, "message": exc.message})
    except BaseException as exc:
        if isinstance(exc, torch.cuda.OutOfMemoryError):
            channel.send(
                {"kind": "error", "verdict": "memory_limit", "message": f"out of memory: {trim(str(exc), 2000)}"}
            )
        else:
            detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            print(detail, file=sys.stderr, flush=True)
            channel.send({"kind": "error", "verdict": "internal_error", "message": trim(detail, 8000)})
            code = 1
    with contextlib.suppress(Exception):
        channel.send({"kind": "done"})
    sys.stdout.flush()
    sys.stderr.flush()
    # Exit without running the submission's atexit hooks or waiting for its threads.
    os._exit(code)

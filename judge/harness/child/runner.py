"""Runner: one job's correctness cases, benchmark shapes and kernel lists, as raw observations
sent to the parent (docs/judging.md sections 4 and 5). It decides nothing: the parent compares,
computes statistics and gives the verdict."""

from __future__ import annotations

import importlib.util
import itertools
import random
import socket
from collections.abc import Callable
from typing import Any

import torch

from judge.harness import languages
from judge.harness.child import shared_runs
from judge.harness.child.channel import Channel, Stop, Violation
from judge.harness.child.guard import Guard
from judge.harness.child.input_sets import FreshSets
from judge.harness.child.profiling import kernel_list, profiler_sanity
from judge.harness.child.shared_inputs import SharedSets
from judge.harness.child.submission import Submission, classify, load_module
from judge.harness.child.timing import L2Flusher, TimingPolicy, time_calls
from judge.harness.common import frames
from judge.harness.common.child_job import CaseJob, ChildJob, ShapeJob, TensorDecl
from judge.harness.common.tensors import DTYPES, InputSample, checksum, poison_, sample_positions, to_bytes


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


def gpu_memory_over(used_bytes: int, limit_bytes: int | None, stage: str) -> frames.Error | None:
    """The memory_limit error for a call that allocated more GPU memory than the problem allows."""
    if limit_bytes is None or used_bytes <= limit_bytes:
        return None
    return frames.Error(
        verdict="memory_limit",
        message=f"solve() allocated {used_bytes / 2**20:,.0f} MiB of GPU memory beyond its inputs and outputs "
        f"while {stage}; this problem allows {limit_bytes / 2**20:,.0f} MiB",
    )


# How long the child spins for the parent's go before it blocks (GPU hosts): longer than the
# parent's checks of a batch take on the H200's largest shapes.
SPIN_FOR_GO_SECONDS = 2.0


class Runner:
    def __init__(self, job: ChildJob, channel: Channel, regions: socket.socket | None = None) -> None:
        self.job = job
        self.channel = channel
        self.device = job.device
        self.inputs_spec = job.inputs
        self.outputs_spec = job.outputs
        self.sizes_names = job.sizes
        self.submission = Submission(job, channel)
        # Parent-owned memory (CPU hosts; GPU hosts with GRIDSTRIDE_PARENT_MEMORY=1): no seed, no
        # generator here; the parent writes inputs.
        self.shared: SharedSets | None = None
        if job.shared:
            if job.device == "cuda":  # one job per GPU: a core spent spinning costs no one
                channel.spin_seconds = SPIN_FOR_GO_SECONDS
            if regions is None:
                raise RuntimeError("a shared-memory job needs the region socket (fd 5)")
            self.shared = SharedSets(channel.ask, regions, [t.name for t in job.inputs], [t.name for t in job.outputs])
        else:
            self.generate: Callable[..., dict[str, torch.Tensor]] = load_module(
                job.paths["reference"], "gridstride_reference"
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
            t = made[spec.name]
            want = tuple(shapes[spec.name])
            if tuple(t.shape) != want or t.dtype != DTYPES[spec.dtype] or not t.is_contiguous():
                raise RuntimeError(
                    f"generate_inputs gave {spec.name} {tuple(t.shape)} {t.dtype}, expected {want} {spec.dtype}"
                )
            tensors.append(t)
        return tensors

    def make_outputs(self, shapes: dict[str, list[int]]) -> list[torch.Tensor]:
        return [
            torch.empty(tuple(shapes[s.name]), dtype=DTYPES[s.dtype], device=self.device) for s in self.outputs_spec
        ]

    def poison(self, outputs: list[torch.Tensor]) -> None:
        for t, spec in zip(outputs, self.outputs_spec, strict=True):
            poison_(t, spec.dtype)

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
        self,
        inputs: list[torch.Tensor],
        outputs: list[torch.Tensor],
        before: list[tuple[Any, ...]],
        guard: bool = True,
    ) -> None:
        names = [s.name for s in self.inputs_spec] + [s.name for s in self.outputs_spec]
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
        if guard:
            self.check_guard()

    def check_guard(self) -> None:
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
            self.channel.send(classify(exc, self.submission.path, self.submission.shown_as, stage))
            raise Stop from None
        gpu_bytes = self.gpu_memory_used(memory_mark)  # before the checks below allocate anything
        self.check_after_call(inputs, outputs, before)
        over = gpu_memory_over(gpu_bytes, self.job.gpu_memory_bytes, stage)
        if over:
            self.channel.send(over)
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

    def send_outputs(
        self,
        outputs: list[torch.Tensor],
        case: int | None = None,
        shape: int | None = None,
        set_index: int = 0,
        sample_phase: int | None = None,
    ) -> None:
        """Each output's bytes to the parent (of case `case` or input set `set_index` of shape
        `shape`); with sample_phase, only tensors.sample_positions of a large one (the check
        before a shape's timing)."""
        for t, spec in zip(outputs, self.outputs_spec, strict=True):
            positions = None
            if sample_phase is not None:
                positions = sample_positions(t.numel(), t.element_size(), sample_phase, self.job.precheck_sample_bytes)
            sent = t if positions is None else t.reshape(-1)[positions.to(t.device)]
            self.channel.send(frames.Output(name=spec.name, set=set_index, case=case, shape=shape), to_bytes(sent))

    # -- stages -------------------------------------------------------------------------------

    def run(self) -> None:
        language = languages.get(self.job.language)
        if self.device == "cpu" and (language.needs_gpu or language.compiled):
            raise RuntimeError(f"{language.name} cannot run on a CPU host")
        # Imported before the guard's snapshot, so that the submission importing them is no change.
        imported = {name: importlib.import_module(name) for name in language.child_imports}
        if language.triton_interpreter and self.device == "cpu":
            from judge.harness.child.triton_interpreter import install

            install()  # the interpreter computes as a GPU does (docs/judging.md, section 8)
        if language.torch_cuda_on_cpu and self.device == "cpu":
            from judge.harness.child.triton_interpreter import cpu_torch_cuda

            cpu_torch_cuda()  # torch.cuda.synchronize() is a no-op where nothing runs asynchronously
        if language.watches_triton_compiles and importlib.util.find_spec("triton") is not None:
            from judge.harness.child import compile_watch

            compile_watch.install(self.channel.send)  # the parent bounds each kernel's compile
        self.submission.cupy = imported.get("cupy")
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
        if self.job.benchmarks and not (self.channel.wait_go() and self.benchmarks()):
            return  # the parent said stop (a verdict is known)
        if self.job.profile_kernels:
            self.profile_kernels()

    def profile_kernels(self) -> None:
        """One untimed call per shape (or on the largest test case in test mode) under the
        profiler: the kernel names prove whose kernels did the work. Done after all timing, so
        the profiler's own setup never touches a timed call."""
        seen = profiler_sanity()
        if not seen:
            raise RuntimeError("the profiler saw no kernel of a harness fill; CUPTI is not working here")
        targets: list[ShapeJob | CaseJob] = [*self.job.benchmarks] or [self.job.cases[self.job.profile_case]]
        for j, target in enumerate(targets):
            self.channel.send(frames.Stage(stage="profiling", done=j, total=len(targets), detail=target.name))
            staged: tuple[frames.Call, str] | None = None
            if self.shared is not None:  # fresh memory the parent stages, and checks afterwards
                request = (
                    frames.Call(shape=j, set=0, phase="profile")
                    if isinstance(target, ShapeJob)
                    else frames.Call(case=self.job.profile_case, phase="profile")
                )
                key, inputs, outputs = self.shared.acquire(request)
                staged = (request, key)
            else:
                seed = target.pool_seeds[0] if isinstance(target, ShapeJob) else target.seed
                assert seed is not None  # "own" memory: every case carries its seed
                inputs = self.make_inputs(seed, target.sizes, target.shapes)
                outputs = self.make_outputs(target.shapes)
            call = self.submission.bind(inputs, outputs, [target.sizes[n] for n in self.sizes_names])
            before = self.meta(inputs + outputs)
            self.poison(outputs)
            names = kernel_list(call)
            self.check_after_call(inputs, outputs, before)
            if staged is not None and self.shared is not None:
                request, key = staged
                self.channel.send(
                    frames.Called(shape=request.shape, set=request.set, case=request.case, phase="profile")
                )
                self.shared.release(key)
            self.channel.send(frames.Kernels(shape=j, names=names))
            del inputs, outputs, call

    def correctness(self) -> None:
        if self.shared is not None:
            shared_runs.correctness(self)
            return
        cases = self.job.cases
        for i, case in enumerate(cases):
            self.channel.send(frames.Stage(stage="testing", done=i, total=len(cases), detail=case.name))
            assert case.seed is not None  # "own" memory: every case carries its seed
            inputs = self.make_inputs(case.seed, case.sizes, case.shapes)
            outputs = self.make_outputs(case.shapes)
            sums_before = [checksum(t) for t in inputs]
            call = self.submission.bind(inputs, outputs, [case.sizes[n] for n in self.sizes_names])
            returned = self.call_checked(call, inputs, outputs, f"testing case {case.name!r}")
            sums_after = [checksum(t) for t in inputs]
            self.check_inputs_unchanged(sums_before, sums_after)
            self.send_outputs(outputs, case=i)
            self.channel.send(frames.Checked(set=0, checksums=sums_after, returned=returned is not None, case=i))
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
                    "inputs-modified", f"input {spec.name} was modified by solve(){when}; inputs are read-only"
                )

    def pool_size(self, set_bytes: int, wanted: int) -> int:
        if self.device != "cuda":
            return min(wanted, 4)
        free, _total = torch.cuda.mem_get_info()
        budget = self.job.pool_memory_fraction * free
        return max(1, min(wanted, int(budget // max(set_bytes, 1))))

    def benchmarks(self) -> bool:
        """Every benchmark shape; False when the parent said stop."""
        if self.shared is not None:
            return shared_runs.benchmarks(self, self.report_failure)
        shapes = self.job.benchmarks
        policy = TimingPolicy.from_dict(self.job.policy)
        order_rng = random.Random(self.job.order_seed)
        for j, shape in enumerate(shapes):
            sizes = shape.sizes
            size_args = [sizes[n] for n in self.sizes_names]
            detail = shape.name
            self.channel.send(frames.Stage(stage="benchmarking", done=j, total=len(shapes), detail=detail))

            def tensor_bytes(specs: list[TensorDecl], shape: ShapeJob = shape) -> int:
                return sum(DTYPES[t.dtype].itemsize * _count(shape.shapes[t.name]) for t in specs)

            set_bytes = tensor_bytes(self.inputs_spec)
            if policy.outputs_per_set:
                set_bytes += tensor_bytes(self.outputs_spec)
            k = self.pool_size(set_bytes, len(shape.pool_seeds))
            pool = []
            set_outputs: list[list[torch.Tensor]] = []
            for seed in shape.pool_seeds[:k]:
                pool.append(self.make_inputs(seed, sizes, shape.shapes))
                if policy.outputs_per_set or not set_outputs:
                    set_outputs.append(self.make_outputs(shape.shapes))
            if not policy.outputs_per_set:
                set_outputs *= k  # one shared output buffer for every set
            sums0 = [checksum(t) for t in pool[0]]
            calls = [
                self.submission.bind(inputs, outs, size_args) for inputs, outs in zip(pool, set_outputs, strict=True)
            ]
            outputs = set_outputs[0]
            flush_bytes = self.flusher.flush_bytes if self.flusher else 0
            self.channel.send(frames.Pool(shape=j, size=k, flush_bytes=flush_bytes))

            fresh = FreshSets(self, shape, pool)
            # One untimed call on set 0 whose output the parent checks (a sample of a large one:
            # an early wrong answer; the final timed call's output is checked whole).
            fresh.before_call(0)
            returned = self.call_checked(calls[0], pool[0], outputs, f"benchmark shape {detail!r}")
            self.check_inputs_unchanged(sums0, [checksum(t) for t in pool[0]])
            self.send_outputs(outputs, shape=j, sample_phase=shape.sample_phase)
            self.channel.send(frames.Checked(set=0, checksums=sums0, returned=returned is not None, shape=j))
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
                    frames.Stage(stage="benchmarking", done=j, total=len(shapes), detail=f"{detail}: timing")
                )
                self.channel.send(frames.TimingStart(shape=j))

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
                        classify(exc, self.submission.path, self.submission.shown_as, f"timing shape {detail!r}")
                    )
                    raise Stop from None
                fresh.check_unchanged()
                self.channel.send(
                    frames.Times(
                        shape=j,
                        times_us=run.times_us,
                        sets=run.sets,
                        drains_us=run.drains_us,
                        warmup_us=run.warmup_us,
                        stop_reason=run.stop_reason,
                        cover_us=run.cover_us,
                        seeds=fresh.timed_seeds(),
                        warmup_seeds=fresh.warmup_seeds(),
                        drain_detail=run.drain_detail if policy.drain_detail else None,
                    )
                )
                # The final set's outputs still hold the last timed call's result: the parent checks it too.
                final = run.sets[-1]
                self.send_outputs(set_outputs[final], shape=j, set_index=final)
                self.channel.send(
                    frames.Checked(
                        set=final,
                        checksums=[checksum(t) for t in pool[final]],
                        returned=False,
                        shape=j,
                        seed=fresh.seed_of[final],
                    )
                )
                answer = self.channel.wait_answer()
                if not answer.go:
                    return False
                if not answer.retime:
                    break
            del pool, calls, outputs, set_outputs, fresh
        return True

    def report_failure(self, exc: BaseException, stage: str) -> None:
        """An exception of the submission's: its verdict to the parent, then Stop."""
        self.channel.send(classify(exc, self.submission.path, self.submission.shown_as, stage))
        raise Stop from None


def _count(shape: list[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n

"""GPU-only parts of the harness: CUDA events, L2 flush, drain check, roofline floor, profiler
kernel list, CuPy views, CUDA C++ through nvcc + ctypes, ncu, and repeatability."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from judge.harness.parent.config import JudgeConfig
from tests.gpu.gpu_helpers import judge, quick_config

pytestmark = pytest.mark.gpu

TRITON_ADD = """
import triton
import triton.language as tl

@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(c_ptr + offs, tl.load(a_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask), mask=mask)

def solve(a, b, c, n):
    add_kernel[(triton.cdiv(n, 2048),)](a, b, c, n, BLOCK=2048)
"""

CUDA_ADD = """
__global__ void add_kernel(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
extern "C" void solve(const float* a, const float* b, float* c, int n) {
    add_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
"""

CUPY_ADD = """
import cupy as cp

add_kernel = cp.RawKernel(r'''
extern "C" __global__ void add_kernel(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
''', "add_kernel")

def solve(a, b, c, n):
    add_kernel(((n + 255) // 256,), (256,), (a, b, c, cp.int32(n)))
"""


def test_machine_ceilings_are_measured_and_plausible() -> None:
    ceilings = quick_config().get_ceilings()
    assert 1000 < ceilings["dram_gbps"] < 10000
    assert 100 < ceilings["bf16_tflops"] < 3000
    assert 5 < ceilings["fp32_tflops"] < ceilings["bf16_tflops"]
    assert ceilings["bf16_tflops"] < ceilings["fp8_tflops"] < 5000  # Hopper: about twice the bf16 rate


def test_the_l2_flush_buffer_is_at_least_twice_the_devices_l2() -> None:
    import torch

    from judge.harness.child.timing import L2Flusher

    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flusher = L2Flusher("cuda")
    assert l2 > 0 and flusher.flush_bytes >= 2 * l2
    report = judge(TRITON_ADD, "triton")
    assert report.verdict == "accepted", report.message
    assert report.system["l2_flush_bytes"] >= 2 * report.system["l2_bytes"] > 0


def test_an_honest_triton_kernel_is_accepted_with_full_statistics_and_system_info() -> None:
    report = judge(TRITON_ADD, "triton")
    assert report.verdict == "accepted", report.message
    assert report.ranked and report.system["device"] == "cuda" and report.system["gpu"]
    assert report.system.get("driver") and report.system.get("sm_clock_mhz")
    assert set(report.ceilings) == {"dram_gbps", "bf16_tflops", "fp32_tflops", "fp8_tflops"}
    for shape in report.benchmarks:
        assert shape.n >= 10 and shape.ci_low_us <= shape.median_us <= shape.ci_high_us
        assert 30 < shape.sol_pct <= 105, shape  # bandwidth-bound: near the copy ceiling
        assert shape.speedup_vs_reference is not None  # vector_add defines baseline()
    assert any("add_kernel" in k.name for k in report.kernels)
    assert report.sol_pct is not None and report.score_us > 0
    # The warm child paid for Triton's first compile and the profiler's first session itself,
    # starting from the worker's Triton cache of the judge's own kernels.
    assert {"import triton", "triton cache seeded", "triton compile", "profiler"} <= set(
        report.system["child_warmed_up"]
    )
    # NVML's totals around every shape's warm-up and timing: mean power and time spent capped.
    during = report.system["gpu_during_timing"]
    assert set(during) == {shape.name for shape in report.benchmarks}, during
    for window in during.values():
        assert 30 < window["mean_power_w"] < 1500 and 0 <= window["power_capped_pct"] <= 100, window


def test_the_drain_check_rejects_work_hidden_on_a_side_stream() -> None:
    source = """
    import torch
    _side = torch.cuda.Stream()

    def solve(a, b, c, n):
        torch.cuda.synchronize()  # correct on the checked calls...
        with torch.cuda.stream(_side):
            for _ in range(8):  # ...but never joined back to the caller's stream
                torch.add(a, b, out=c)
    """
    report = judge(source, "pytorch")
    assert_side_work_caught_or_timed(report, judge(PYTORCH_ADD, "pytorch"), repeats=8)


def assert_side_work_caught_or_timed(report: Any, honest: Any, repeats: int) -> None:
    """Work left on a side stream must not escape the timing: on the GPU's default path the
    drain check names it after a second timing; on parent-owned memory
    (GRIDSTRIDE_PARENT_MEMORY=1) the parent's clock spans every batch up to the child's
    device-wide synchronize, so the work is inside the measured time or, far outside the
    claims, rejected as forged-timing."""
    if report.verdict == "rejected":
        assert "forged-timing" in report.message or (
            "hidden-work" in report.message and "timed 2 times" in report.message
        ), report.message
        return
    assert report.verdict == "accepted", report.message
    for cheat, fair in zip(report.benchmarks, honest.benchmarks, strict=True):
        assert cheat.median_us >= repeats / 2 * fair.median_us, (cheat, fair)


PYTORCH_ADD = """
import torch

def solve(a, b, c, n):
    torch.add(a, b, out=c)
"""


def test_side_stream_work_cannot_start_before_the_timed_window() -> None:
    # A top-priority side stream doing the real work before the start event, joined back
    # before returning, would time near zero if it could start early. On parent-owned memory
    # the calls of a batch are queued back to back and the parent's clock spans the batch, so
    # the work is timed wherever it runs; on the older path (GRIDSTRIDE_PARENT_MEMORY=0) the
    # launch cover (a GPU-side wait that holds every thread slot, sized from the host's
    # enqueue time, which this solve() inflates) keeps it behind the start event.
    source = """
    import time
    import torch
    _side = torch.cuda.Stream(priority=-100)  # clamped to the highest priority

    def solve(a, b, c, n):
        done = torch.cuda.Event()
        with torch.cuda.stream(_side):
            torch.add(a, b, out=c)
            done.record()
        time.sleep(0.0003)  # a slow host path: the launch cover grows to its 500 us cap
        torch.cuda.current_stream().wait_event(done)
    """
    config = quick_config()
    honest = judge(PYTORCH_ADD, "pytorch", config=config)
    report = judge(source, "pytorch", config=config)
    assert honest.verdict == "accepted", honest.message
    assert report.verdict == "accepted", report.message
    for cheat, fair in zip(report.benchmarks, honest.benchmarks, strict=True):
        if config.parent_memory is not True:
            assert cheat.launch_cover_us and cheat.launch_cover_us >= 400, cheat
        assert cheat.median_us >= 0.95 * fair.median_us, (cheat, fair)


def test_the_drain_check_rejects_a_cuda_kernel_on_a_non_blocking_stream() -> None:
    source = CUDA_ADD.replace(
        "    add_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n);",
        "    static cudaStream_t s = 0;\n    if (!s) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);\n"
        "    for (int r = 0; r < 4; r++) add_kernel<<<(n + 255) / 256, 256, 0, s>>>(a, b, c, n);",
    )
    report = judge(source, "cuda")
    if report.verdict != "wrong_answer":  # a checked call may read c before the side stream wrote it
        assert_side_work_caught_or_timed(report, judge(CUDA_ADD, "cuda"), repeats=4)


def test_the_roofline_floor_rejects_a_cached_replay() -> None:
    source = """
    import torch
    _cache = {}

    def solve(a, b, c, n):
        # Keyed by address: the judge refills a used set in place, so from the second call on
        # this copies a stale result: the parent checks every timed call's output against its
        # own reference of that call's fresh inputs (wrong_answer); on the older path the
        # floor decides (faster than memory allows: 8 bytes per element instead of 12).
        key = (a.data_ptr(), b.data_ptr(), n)
        if key not in _cache:
            _cache[key] = torch.add(a, b)
        c.copy_(_cache[key])
    """
    report = judge(source, "pytorch")
    if quick_config().parent_memory is not True:
        assert report.verdict == "rejected" and "impossible-time" in report.message, report.message
    else:
        assert report.verdict == "wrong_answer" and "input set" in report.message, report.message


def test_a_replay_keyed_by_the_inputs_values_never_hits() -> None:
    # Keyed by values too: with a pool of reused sets this replayed every timed call (and was
    # rejected by the floor); no call sees an earlier call's inputs now, so it always misses,
    # computes, and is timed doing more than the honest add.
    source = """
    import torch
    _cache = {}

    def solve(a, b, c, n):
        key = (a.data_ptr(), b.data_ptr(), n, float(a[0]), float(b[-1]))
        if key not in _cache:
            _cache[key] = torch.add(a, b)
        c.copy_(_cache[key])
    """
    config = quick_config()
    honest = judge(PYTORCH_ADD, "pytorch", config=config)
    report = judge(source, "pytorch", config=config)
    assert honest.verdict == report.verdict == "accepted", (honest.message, report.message)
    assert report.score_us >= honest.score_us, (report.score_us, honest.score_us)


def test_the_profiler_rejects_library_compute_hidden_from_the_source_scan() -> None:
    source = (
        TRITON_ADD
        + """
import torch
_op = getattr(torch, "".join(["ad", "d"]))

def solve(a, b, c, n):
    _op(a, b, out=c)
"""
    )
    report = judge(source, "triton")
    assert report.verdict == "rejected" and "library-compute" in report.message, report.message


def test_the_profiler_also_runs_in_test_mode() -> None:
    source = (
        TRITON_ADD
        + """
import torch
_op = getattr(torch, "".join(["ad", "d"]))

def solve(a, b, c, n):
    _op(a, b, out=c)
"""
    )
    report = judge(source, "triton", mode="test")
    assert report.verdict == "rejected" and "library-compute" in report.message, report.message


def test_computing_on_the_cpu_and_copying_back_launches_no_kernel_of_ones_own() -> None:
    source = (
        TRITON_ADD
        + """

def solve(a, b, c, n):
    c.copy_((a.cpu() + b.cpu()).to(c.device))
"""
    )
    report = judge(source, "triton", mode="test")
    assert report.verdict == "rejected" and "no-kernel" in report.message, report.message


def test_replacing_the_event_timer_on_the_gpu_is_rejected() -> None:
    source = """
    import torch
    _real = torch.cuda.Event.elapsed_time

    def solve(a, b, c, n):
        torch.add(a, b, out=c)
        torch.cuda.Event.elapsed_time = lambda self, end: _real(self, end) / 10
    """
    report = judge(source, "pytorch")
    assert report.verdict == "rejected" and "global-state" in report.message, report.message


def test_the_cupy_path_gets_zero_copy_views_and_is_accepted() -> None:
    report = judge(CUPY_ADD, "cupy")
    assert report.verdict == "accepted", report.message
    assert any("add_kernel" in k.name for k in report.kernels)


def test_cupy_library_compute_is_rejected_by_the_profiler() -> None:
    source = """
    import cupy as cp
    _op = getattr(cp, "".join(["ad", "d"]))

    def solve(a, b, c, n):
        _op(a, b, out=c)
    """
    report = judge(source, "cupy")
    assert report.verdict == "rejected" and "library-compute" in report.message, report.message


def test_the_cuda_path_compiles_once_and_is_accepted() -> None:
    first = judge(CUDA_ADD, "cuda")
    assert first.verdict == "accepted", first.message + first.compile_log
    second = judge(CUDA_ADD, "cuda", mode="test")
    assert second.verdict == "accepted" and second.system["compile"]["cached"] is True
    assert any("add_kernel" in k.name for k in first.kernels)


def test_a_cuda_compile_error_shows_nvccs_message_without_host_paths() -> None:
    report = judge(CUDA_ADD.replace("a[i] + b[i]", "a[i] + nope"), "cuda", mode="test")
    assert report.verdict == "compile_error"
    assert "solution.cu(" in report.compile_log and "nope" in report.compile_log
    assert "/tmp" not in report.compile_log and "/root" not in report.compile_log


def test_an_illegal_memory_access_is_a_runtime_error() -> None:
    source = CUDA_ADD.replace("if (i < n) c[i] = a[i] + b[i];", "c[i * 1024 * 1024] = a[i] + b[i];")
    report = judge(source, "cuda", mode="test")
    assert report.verdict == "runtime_error", report.message


def test_running_out_of_gpu_memory_is_a_memory_limit() -> None:
    source = """
    import torch

    def solve(a, b, c, n):
        hog = torch.empty(1 << 50, dtype=torch.uint8, device="cuda")
    """
    report = judge(source, "pytorch", mode="test")
    assert report.verdict == "memory_limit", report.message


@pytest.mark.parametrize(
    ("language", "allocate"),
    [
        ("pytorch", "torch.empty(45 << 30, dtype=torch.uint8, device=a.device)"),
        ("cupy", "cp.empty(45 << 30, dtype=cp.uint8)"),
    ],
)
def test_gpu_memory_beyond_the_problems_limit_is_a_memory_limit(language: str, allocate: str) -> None:
    """vector_add allows 40 GiB beyond its inputs and outputs; 45 GiB fits on the H200 (so no
    out-of-memory error) but not in the limit."""
    source = f"""
    import cupy as cp
    import torch

    def solve(a, b, c, n):
        hog = {allocate}
        c[:] = a + b
        del hog
    """
    report = judge(source, language, mode="test")
    assert report.verdict == "memory_limit" and "this problem allows 40,960 MiB" in report.message, report.message


def test_gpu_memory_taken_past_the_allocator_is_the_submissions_memory_limit_not_the_judges() -> None:
    """cudaMalloc through ctypes escapes the child's own allocator counts; the parent, left no
    memory for its reference, blames the submission from its own figures (parent/crowded.py)."""
    source = """
    import ctypes

    import torch

    _hog = []

    def solve(a, b, c, n):
        if not _hog:
            cudart = ctypes.CDLL("libcudart.so.13")
            free, total = ctypes.c_size_t(), ctypes.c_size_t()
            cudart.cudaMemGetInfo(ctypes.byref(free), ctypes.byref(total))
            pointer = ctypes.c_void_p()
            cudart.cudaMalloc(ctypes.byref(pointer), ctypes.c_size_t(free.value - (64 << 20)))
            _hog.append(pointer)
        torch.add(a, b, out=c)
    """
    report = judge(source, "pytorch", mode="test")
    assert report.verdict == "memory_limit", report.message


def test_a_kernel_that_never_ends_hits_the_time_limit_and_the_gpu_recovers() -> None:
    source = CUDA_ADD.replace("if (i < n) c[i] = a[i] + b[i];", "while (true) { if (i < 0) break; }")
    config = JudgeConfig(device="cuda", limit_cap_seconds=15)
    try:
        report = judge(source, "cuda", mode="test", config=config)
    finally:
        config.close_pool()  # its refill would otherwise warm up beside the next tests' timing
    assert report.verdict == "time_limit", report.message
    after = judge(TRITON_ADD, "triton", mode="test")
    assert after.verdict == "accepted", after.message


def test_back_to_back_the_next_child_warms_up_beside_the_tests_of_the_one_before() -> None:
    """A pool of one, two benchmark judgings back to back: the second job's child started when the
    first job's child was ready, and the first job's timing waited until it was warm, so the
    second finds it warm (docs/pipeline.md). Before, it started only after the first job's last
    timed shape and the second waited for most of a start-up (median 8.55 s on the H200)."""
    config = dataclasses.replace(quick_config(), warm_pool_max=1)
    config.pool = None  # a pool of its own, not the session's
    try:
        first = judge(TRITON_ADD, "triton", config=config)
        second = judge(TRITON_ADD, "triton", config=config)
    finally:
        config.close_pool()
    assert first.verdict == second.verdict == "accepted", (first.message, second.message)
    t1, t2 = dict(first.system["timeline_s"]), dict(second.system["timeline_s"])
    cold = t1["child ready"] - t1["child started"]
    warm = t2["child ready"] - t2["child started"]
    tests = next(t for event, t in first.system["timeline_s"] if event.endswith("input pool made")) - t1["child ready"]
    settled = [event for event in t1 if event.startswith("waited for a warm child's start-up before timing")]
    print(
        f"refill: first child {cold:.2f} s to ready, its tests {tests:.2f} s, settle waits {settled}; "
        f"second child {warm:.2f} s to ready ({second.system['warm_pool']})"
    )
    assert second.system["warm_pool"]["child"] == "warm", second.system
    assert warm < 1.0, (warm, t2)


def test_profile_mode_adds_an_ncu_digest_or_says_why_not() -> None:
    report = judge(TRITON_ADD, "triton", mode="profile")
    assert report.verdict == "accepted", report.message
    print("profile mode:", report.message, [(k.name, k.duration_us, k.dram_sol_pct) for k in report.kernels])
    digested = any(k.dram_sol_pct is not None for k in report.kernels)
    assert digested or "ncu" in report.message


def test_the_same_submission_is_scored_within_one_percent_twice() -> None:
    """Production timing policy, two separate judgings (two child processes)."""
    from judge.spec import REFERENCE_DIR

    source = (REFERENCE_DIR / "vector_add" / "expert_triton.py").read_text()
    config = JudgeConfig(device="cuda")
    try:
        first = judge(source, "triton", config=config)
        second = judge(source, "triton", config=config)
    finally:
        config.close_pool()
    assert first.verdict == second.verdict == "accepted", (first.message, second.message)
    spread = max(first.score_us, second.score_us) / min(first.score_us, second.score_us) - 1
    print(f"repeatability: {first.score_us:.3f} us vs {second.score_us:.3f} us ({spread:.3%})")
    assert spread < 0.01

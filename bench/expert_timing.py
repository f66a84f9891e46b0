"""Timing for bench/expert_kernels.py: calls timed as the judge times them (an L2 flush and the
launch cover before each, CUDA events around it), and the machine's own ceilings (copy
bandwidth, bf16 matmul rate)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from judge.harness.child.timing import L2Flusher, TimingPolicy, gpu_call_us, launch_cover, launch_cover_for

# ---------------------------------------------------------------------------------------------
# Timing: the judge's own per-call timing (judge/harness/child/timing.py), so that a kernel's
# figure here and in the judge differ only by the statistics, not by the method.

# Untimed calls before the timed ones: the first compiles (Triton) and the host's time to queue
# the others sizes the launch cover.
WARMUP_CALLS = 4


class Timer:
    def __init__(self, reps: int, max_seconds: float, cover: bool = True) -> None:
        self.reps = reps
        self.max_seconds = max_seconds
        # The judge's launch cover's kind and bounds, and its read flush of twice the L2.
        self.policy = TimingPolicy()
        self.flusher = L2Flusher("cuda")
        # Without a cover a call whose host side (Triton's launcher, several launches) takes
        # longer than its kernels is timed at the host's pace: spec_decode_verify's Triton
        # expert read 111 us here against 27 us in the judge.
        self.cover = launch_cover(self.policy.cover_kind) if cover else None

    def median_us(self, fn: Callable[[], Any]) -> tuple[float, int]:
        """Median over reps of fn() alone, each call after the read flush and the launch cover
        (sized, as the judge sizes it, from the host's time to queue the warm-up calls)."""
        enqueue_us = []
        one = 0.0
        for _ in range(WARMUP_CALLS):
            began = time.perf_counter()
            fn()
            enqueue_us.append((time.perf_counter() - began) * 1e6)
            torch.cuda.synchronize()
            one = time.perf_counter() - began
        reps = max(20, min(self.reps, int(self.max_seconds / max(one, 1e-6))))
        cover_us = launch_cover_for(enqueue_us, self.policy)[1] if self.cover else 0.0
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = [
            gpu_call_us(fn, self.flusher, self.policy.flush, self.cover, cover_us, start, end) for _ in range(reps)
        ]
        return statistics.median(times), reps


# ---------------------------------------------------------------------------------------------
# Ceilings.


@dataclass
class Ceilings:
    copy_gbps: float
    matmul_tflops_8192: float
    gpu: str


def _copy_gbps(timer: Timer) -> float:
    n = 1 << 29  # 2 GiB of fp32 each way
    src = torch.empty(n, dtype=torch.float32, device="cuda").uniform_()
    dst = torch.empty_like(src)
    us, _ = timer.median_us(lambda: dst.copy_(src))
    return 2 * n * 4 / (us * 1e-6) / 1e9


def _matmul_tflops(timer: Timer, size: int = 8192) -> float:
    a = torch.randn(size, size, device="cuda").to(torch.bfloat16)
    b = torch.randn(size, size, device="cuda").to(torch.bfloat16)
    us, _ = timer.median_us(lambda: torch.matmul(a, b))
    return 2 * size**3 / (us * 1e-6) / 1e12


def measure_ceilings(timer: Timer) -> Ceilings:
    copy_gbps = _copy_gbps(timer)
    torch.cuda.empty_cache()
    tflops = _matmul_tflops(timer)
    torch.cuda.empty_cache()
    return Ceilings(copy_gbps, tflops, torch.cuda.get_device_name(0))

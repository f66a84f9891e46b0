"""Machine ceilings ("speed of light") measured on this host, in the trusted parent.

On a GPU host:

- dram_gbps: the best of a large device-to-device copy (read + write) and a large read-only
  reduction, so that neither copy-like nor read-heavy kernels can beat the floor honestly.
- bf16_tflops: torch.matmul of random 8192^3 bf16 matrices (random data: zeros run ~15% faster).
- fp32_tflops: the same in fp32 with TF32 off (CUDA cores).
- fp8_tflops: torch._scaled_mm of random 8192^3 e4m3 matrices with per-tensor scales and fast
  accumulation, the fastest fp8 GEMM the library runs (the floor must be a lower bound).
Each is the best rate over several timed repetitions after a warm-up: the floor built on them
must be a true lower bound on time.

On a CPU host (measure_cpu) the same keys hold the CPU's own roofs, so practice runs get a
roofline too: memory bandwidth from a large tensor copy and sum, fp32 and bf16 from torch.matmul
on the CPU, with the threads torch uses here. They draw the chart only; CPU runs are never
ranked and get no % of speed of light (the floor rules apply on GPUs).
"""

from __future__ import annotations

import fcntl
import json
import logging
import threading
import time
from pathlib import Path
from typing import Any

log = logging.getLogger("judge.harness")

MAX_AGE_SECONDS = 3600
CEILING_KEYS = ("dram_gbps", "bf16_tflops", "fp32_tflops", "fp8_tflops")


def _best_ms(fn: Any, reps: int, warmup: int = 3) -> float:
    import torch

    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    best = float("inf")
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    for _ in range(reps):
        start.record()
        fn()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end))
    return best


def measure() -> dict[str, float]:
    import torch

    free, _ = torch.cuda.mem_get_info()
    nbytes = int(min(2 << 30, free // 6))
    nbytes -= nbytes % 4096
    src = torch.empty(nbytes // 4, dtype=torch.float32, device="cuda").uniform_()
    dst = torch.empty_like(src)
    copy_ms = _best_ms(lambda: dst.copy_(src), reps=20)
    read_ms = _best_ms(lambda: src.sum(), reps=20)
    dram = max(2 * nbytes / (copy_ms * 1e-3), nbytes / (read_ms * 1e-3)) / 1e9

    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    bf16_ms = _best_ms(lambda: torch.matmul(a, b), reps=15)
    matmul = torch.backends.cuda.matmul
    saved = (matmul.allow_tf32, torch.get_float32_matmul_precision())
    try:
        matmul.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")
        a = torch.randn(n, n, device="cuda", dtype=torch.float32)
        b = torch.randn(n, n, device="cuda", dtype=torch.float32)
        fp32_ms = _best_ms(lambda: torch.matmul(a, b), reps=5, warmup=2)
    finally:
        matmul.allow_tf32 = saved[0]
        torch.set_float32_matmul_precision(saved[1])
    fp8_ms = _best_ms(_fp8_matmul(n, "cuda"), reps=15)
    torch.cuda.empty_cache()
    flops = 2.0 * n**3
    return {
        "dram_gbps": round(dram, 1),
        "bf16_tflops": round(flops / (bf16_ms * 1e-3) / 1e12, 1),
        "fp32_tflops": round(flops / (fp32_ms * 1e-3) / 1e12, 2),
        "fp8_tflops": round(flops / (fp8_ms * 1e-3) / 1e12, 1),
    }


def _fp8_matmul(n: int, device: str) -> Any:
    """A call of the library's e4m3 GEMM on random n x n operands (b column-major, as it asks)."""
    import torch

    a = torch.randn(n, n, device=device).to(torch.float8_e4m3fn)
    b = torch.randn(n, n, device=device).to(torch.float8_e4m3fn).T
    one = torch.ones((), device=device)
    fast = device == "cuda"  # the CPU build has no fast-accumulation mode to ask for
    return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16, use_fast_accum=fast)


def _best_s(fn: Any, reps: int, warmup: int = 1) -> float:
    for _ in range(warmup):
        fn()
    best = float("inf")
    for _ in range(reps):
        began = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - began)
    return best


# Sized so the whole measurement takes about a second on a 2-core machine: the copy is far larger
# than any cache, the matmuls long enough that call overhead is noise.
CPU_COPY_BYTES = 128 << 20
CPU_MATMUL_N = 768
# The CPU build's e4m3 GEMM is emulated at about the same slow rate at any size, so a small one
# measures that rate in a fraction of the time the bf16 and fp32 size would take.
CPU_FP8_N = 192
_cpu_measured: dict[str, float] | None = None
_cpu_lock = threading.Lock()


def cpu_ceilings() -> dict[str, float]:
    """measure_cpu() once per process: the host does not change under it, and every JudgeConfig
    of the process (one per job in tests) shares the figures."""
    global _cpu_measured
    with _cpu_lock:
        if _cpu_measured is None:
            began = time.monotonic()
            _cpu_measured = measure_cpu()
            log.info("measured CPU ceilings in %.1f s: %s", time.monotonic() - began, _cpu_measured)
        return dict(_cpu_measured)


def measure_cpu() -> dict[str, float]:
    import torch

    src = torch.empty(CPU_COPY_BYTES // 4, dtype=torch.float32).uniform_()
    dst = torch.empty_like(src)
    copy_s = _best_s(lambda: dst.copy_(src), reps=5)
    read_s = _best_s(lambda: src.sum(), reps=5)
    dram = max(2 * CPU_COPY_BYTES / copy_s, CPU_COPY_BYTES / read_s) / 1e9
    n = CPU_MATMUL_N
    flops = 2.0 * n**3
    a, b = torch.randn(n, n), torch.randn(n, n)
    fp32_s = _best_s(lambda: torch.matmul(a, b), reps=3)
    a16, b16 = a.to(torch.bfloat16), b.to(torch.bfloat16)
    bf16_s = _best_s(lambda: torch.matmul(a16, b16), reps=2)
    fp8_s = _best_s(_fp8_matmul(CPU_FP8_N, "cpu"), reps=2)
    return {
        "dram_gbps": round(dram, 2),
        "bf16_tflops": round(flops / bf16_s / 1e12, 5),
        "fp32_tflops": round(flops / fp32_s / 1e12, 5),
        "fp8_tflops": round(2.0 * CPU_FP8_N**3 / fp8_s / 1e12, 5),
    }


def gpu_identity() -> str:
    import torch

    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return f"{props.name}|{getattr(props, 'uuid', '')}"


def measure_or_load(cache: Path | None) -> dict[str, float]:
    """Measure, or reuse `cache` when it is younger than an hour and from the same GPU.

    Processes sharing the cache measure one at a time (a lock file beside it): ceilings measured
    while another process's matmuls share the GPU come out low (fp32 at half its rate on the
    H200, docs/benchmarks.md), and a low ceiling raises every floor built on it until honest
    kernels are rejected as faster than the hardware."""
    identity = gpu_identity()
    if cache is None:
        return _measure_logged()
    cache.parent.mkdir(parents=True, exist_ok=True)
    with cache.with_suffix(".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        cached = _load_fresh(cache, identity)
        if cached is not None:  # measured by the process that held the lock before this one
            return cached
        ceilings = _measure_logged()
        tmp = cache.with_suffix(".tmp")
        tmp.write_text(json.dumps({"gpu": identity, "measured_at": time.time(), "ceilings": ceilings}))
        tmp.replace(cache)
    return ceilings


def _load_fresh(cache: Path, identity: str) -> dict[str, float] | None:
    if not cache.is_file():
        return None
    try:
        data = json.loads(cache.read_text())
        fresh = time.time() - float(data.get("measured_at", 0)) < MAX_AGE_SECONDS
        # a cache written before a ceiling was added lacks its key: measured again
        if data.get("gpu") == identity and fresh and set(CEILING_KEYS) <= set(data["ceilings"]):
            return {k: float(v) for k, v in data["ceilings"].items()}
    except (ValueError, KeyError, TypeError, OSError):
        log.warning("ignoring an unreadable ceilings cache %s", cache)
    return None


def _measure_logged() -> dict[str, float]:
    began = time.monotonic()
    ceilings = measure()
    log.info("measured machine ceilings in %.1f s: %s", time.monotonic() - began, ceilings)
    return ceilings

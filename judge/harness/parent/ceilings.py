"""Machine ceilings ("speed of light") measured on this GPU, in the trusted parent.

- dram_gbps: the best of a large device-to-device copy (read + write) and a large read-only
  reduction, so that neither copy-like nor read-heavy kernels can beat the floor honestly.
- bf16_tflops: torch.matmul of random 8192^3 bf16 matrices (random data: zeros run ~15% faster).
- fp32_tflops: the same in fp32 with TF32 off (CUDA cores).
Each is the best rate over several timed repetitions after a warm-up: the floor built on them
must be a true lower bound on time.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

log = logging.getLogger("judge.harness")

MAX_AGE_SECONDS = 3600


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
    torch.cuda.empty_cache()
    flops = 2.0 * n**3
    return {
        "dram_gbps": round(dram, 1),
        "bf16_tflops": round(flops / (bf16_ms * 1e-3) / 1e12, 1),
        "fp32_tflops": round(flops / (fp32_ms * 1e-3) / 1e12, 2),
    }


def gpu_identity() -> str:
    import torch

    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return f"{props.name}|{getattr(props, 'uuid', '')}"


def measure_or_load(cache: Path | None) -> dict[str, float]:
    """Measure, or reuse `cache` when it is younger than an hour and from the same GPU."""
    identity = gpu_identity()
    if cache is not None and cache.is_file():
        try:
            data = json.loads(cache.read_text())
            if data.get("gpu") == identity and time.time() - float(data.get("measured_at", 0)) < MAX_AGE_SECONDS:
                return {k: float(v) for k, v in data["ceilings"].items()}
        except (ValueError, KeyError, TypeError, OSError):
            log.warning("ignoring an unreadable ceilings cache %s", cache)
    began = time.monotonic()
    ceilings = measure()
    log.info("measured machine ceilings in %.1f s: %s", time.monotonic() - began, ceilings)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(".tmp")
        tmp.write_text(json.dumps({"gpu": identity, "measured_at": time.time(), "ceilings": ceilings}))
        tmp.replace(cache)
    return ceilings

"""The judge's own GPU out-of-memory, blamed where the parent can show whose memory it was.

The child's GPU memory limit (`gpu_memory_mb`) is checked in the child, from its own allocator's
counts; memory taken past that allocator (cudaMalloc through ctypes, a hog that patches the check)
escapes it. Such a hog can leave the parent no memory for the reference or the comparison, and the
parent's out-of-memory error would read as the judge's own failure (internal_error). The figures
here are the parent's own: the device's used memory from the driver minus what the parent's
allocator holds is what the rest (the child, and the warm pool's idle processes) holds. Only when
that is more than the child could hold honestly is the verdict the submission's memory_limit.
"""

from __future__ import annotations

import logging

log = logging.getLogger("judge.harness")

# What the child may hold honestly besides its limit: its input pools (at most
# JudgeConfig.pool_memory_fraction of the GPU) and the CUDA contexts of itself and the warm pool's
# idle processes (about 0.5-1 GiB each on the H200).
CONTEXTS_BYTES = 4 << 30


def is_gpu_out_of_memory(exc: BaseException) -> bool:
    name = type(exc).__name__
    return name == "OutOfMemoryError" or (name in ("AcceleratorError", "RuntimeError") and "out of memory" in str(exc))


def held_by_others(total: int, free: int, parent_reserved: int) -> int:
    """Device memory in use that the parent's allocator does not hold."""
    return max(0, total - free - parent_reserved)


def crowded_out_message(others: int, total: int, limit_bytes: int, pool_fraction: float) -> str | None:
    """The memory_limit message when the rest held more than an honest child can, else None."""
    honest = int(pool_fraction * total) + limit_bytes + CONTEXTS_BYTES
    if others <= honest:
        return None
    return (
        f"out of GPU memory: while the judge checked your results, your program held about "
        f"{others / 2**30:.1f} GiB of the GPU's {total / 2**30:.0f} GiB (its inputs, outputs and the "
        f"{limit_bytes / 2**20:,.0f} MiB this problem allows come to at most {honest / 2**30:.1f} GiB), "
        f"leaving the judge none; memory taken outside the framework's allocator counts too"
    )


def crowded_out(exc: BaseException, device: str, limit_bytes: int | None, pool_fraction: float) -> str | None:
    """For a GPU out-of-memory error raised in the parent: the submission's memory_limit message
    when the parent's own figures show the child held the memory, else None (the judge's fault)."""
    if device != "cuda" or limit_bytes is None or not is_gpu_out_of_memory(exc):
        return None
    try:
        import torch

        from judge.harness.common import device_memory

        # The parent's current device is its GPU (its CUDA_VISIBLE_DEVICES names that one first);
        # the parent holds its allocator's memory and its own regions (parent-owned memory).
        free, total = torch.cuda.mem_get_info()
        others = held_by_others(total, free, torch.cuda.memory_reserved() + device_memory.owned_bytes())
    except Exception:  # the device may be past reading: then it stays the judge's error
        log.exception("reading the GPU's memory after an out-of-memory error failed")
        return None
    message = crowded_out_message(others, total, limit_bytes, pool_fraction)
    log.warning(
        "GPU out of memory in the parent: others hold %.1f GiB of %.1f GiB; %s",
        others / 2**30,
        total / 2**30,
        "the submission's" if message else "the judge's",
    )
    return message

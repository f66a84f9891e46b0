"""How many warm children a judge keeps ready (the warm pool's size).

A child takes seconds to start (python, torch, the CUDA context, the warm-up: about 7.5 s on the
H200), longer than many judgings, so a job arriving right behind another finds a warm child only
if more than one was kept. Each warm child holds memory while it waits, and a running judging may
use up to its problem's limit beside them, so the size is

    min(the configured maximum, what the memory left beside a running judging holds, at least 1)

decided once, when the pool is made (the worker's start, before any job runs). On a GPU host the
memory is the device's free memory (NVML, as nvml.py reads power; torch where NVML is missing);
on a CPU host it is the host's available memory (MemAvailable). The configured maximum is
JudgeConfig.warm_pool_max: GRIDSTRIDE_WARM_POOL_MAX, read by JudgeConfig.from_env().
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger("judge.harness")

GIB = 1 << 30

# The configured maximum unless GRIDSTRIDE_WARM_POOL_MAX says otherwise. Two on a GPU: a job
# right behind another takes the second warm child while the first one's replacement starts.
# One on a CPU host: its children compete with each other for a few cores, and CPU hosts judge
# practice runs only.
DEFAULT_MAX_GPU = 2
DEFAULT_MAX_CPU = 1

# What one idle warm child holds while it waits for its job.
# GPU (device memory): its CUDA context, torch's caching allocator after the warm-up's first
# allocations (2 MiB blocks), the judge's own Triton kernels and the profiler's first session.
# Not measured yet: the figure is a reservation rounded up from a CUDA context's usual size (a
# few hundred MiB per process on recent drivers), to be checked on the H200 (nvidia-smi's
# per-process memory beside an idle warm pool) and lowered if it is far above.
WARM_CHILD_GPU_BYTES = 1 * GIB
# CPU (resident memory): 272 MiB VmRSS for a warm CPU child (torch and Triton imported; 154 MiB
# of it anonymous) plus 20 MiB for its two sandbox launcher processes, measured on the 2-core
# dev host on 2026-12-03 (/proc/PID/status of an idle pool child); rounded up to 512 MiB.
WARM_CHILD_HOST_BYTES = 512 << 20

# Kept free for the judging that runs beside the warm children, besides its own child's share:
# the problem's memory limit (the largest in the catalog, see running_job_bytes) and what the
# parent holds for that judging. On a GPU the parent holds a shape's inputs, the output copied
# back and its float64 reference: about 4 GiB for softmax's largest shape (1 GiB in, 1 GiB out,
# 2 GiB in float64; docs/benchmarks.md, "Where a 1 GiB check goes"). A CPU host judges smaller
# shapes (its own sizes in problem.toml), so the same 4 GiB leaves it room to spare.
PARENT_MARGIN_BYTES = 4 * GIB

# How long a timed step waits for a warm child's start-up before it goes ahead beside it (and the
# worker's log says so): a start-up takes about 7.5 s on the H200 and 1.7 s on the CPU dev host,
# so one still running after a minute is stuck or the host is overloaded.
SETTLE_SECONDS = 60.0


@dataclass(frozen=True)
class PoolSize:
    size: int
    why: str  # one line for the worker's log


def pool_size(
    maximum: int, free_bytes: int | None, per_child: int, reserve_bytes: int, memory: str, source: str = "configured"
) -> PoolSize:
    """The warm pool's size from the figures (pure, so it is tested on made-up ones).

    maximum: the configured maximum (`source` says where it came from); free_bytes: the memory
    free now (None: unknown); per_child: what one idle warm child holds; reserve_bytes: kept free
    for a running judging; memory: the memory's name in the reason ("GPU 0's free memory")."""
    maximum = max(1, maximum)
    cap = f"maximum {maximum} ({source})"
    if free_bytes is None:
        return PoolSize(1, f"1 warm child: {memory} unknown, so the least; {cap}")
    fits = max(0, (free_bytes - reserve_bytes) // per_child)
    size = max(1, min(maximum, fits))
    figures = (
        f"{memory} {free_bytes / GIB:.1f} GiB, {reserve_bytes / GIB:.1f} GiB kept for a running judging, "
        f"{per_child / GIB:.2f} GiB per warm child"
    )
    children = "1 warm child" if size == 1 else f"{size} warm children"
    if fits >= maximum:
        return PoolSize(size, f"{children}: the {cap}; memory holds {fits} ({figures})")
    if fits >= 1:
        return PoolSize(size, f"{children}: what memory holds, below the {cap} ({figures})")
    return PoolSize(1, f"{children}: memory is tight, the least is kept; {cap} ({figures})")


def host_available_bytes() -> int | None:
    """MemAvailable from /proc/meminfo (what can be allocated without swapping), or None."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def gpu_free_bytes(gpu: int) -> int | None:
    """Free device memory of physical GPU `gpu`: NVML, else torch (this process's current device)."""
    from judge.harness.parent import nvml

    free = nvml.free_memory(gpu)
    if free is not None:
        return free
    try:
        import torch

        return int(torch.cuda.mem_get_info()[0])
    except Exception as exc:
        log.info("free GPU memory unknown (%s)", exc)
        return None


def running_job_bytes(device: str) -> int:
    """The most memory one judging's child may use: the largest limit in the problem catalog."""
    from judge import spec as specmod

    specs, _errors = specmod.load_all()
    mb = [s.limits.gpu_memory_mb if device == "cuda" else s.limits.host_memory_mb for s in specs]
    default = specmod.Limits()
    return max(mb or [default.gpu_memory_mb if device == "cuda" else default.host_memory_mb]) << 20


def choose(device: str, gpu: int | None, maximum: int | None, free: Callable[[], int | None] | None = None) -> PoolSize:
    """The pool's size for this host now. maximum None: DEFAULT_MAX_GPU or DEFAULT_MAX_CPU."""
    on_gpu = device == "cuda"
    source = "configured: GRIDSTRIDE_WARM_POOL_MAX"
    if maximum is None:
        maximum = DEFAULT_MAX_GPU if on_gpu else DEFAULT_MAX_CPU
        source = f"the default on a {'GPU' if on_gpu else 'CPU'} host"
    if free is None:
        free = (lambda: gpu_free_bytes(gpu or 0)) if on_gpu else host_available_bytes
    per_child = WARM_CHILD_GPU_BYTES if on_gpu else WARM_CHILD_HOST_BYTES
    # The running judging's child holds its own share besides its problem's limit.
    reserve = running_job_bytes(device) + PARENT_MARGIN_BYTES + per_child
    memory = f"GPU {gpu or 0}'s free memory" if on_gpu else "the host's available memory"
    return pool_size(maximum, free(), per_child, reserve, memory, source)

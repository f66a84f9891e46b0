"""The device-filling launch cover (TimingPolicy.cover_kind = "fill"): every block spins on the
GPU's nanosecond timer for a given time. Launched with as many blocks as fill every thread slot
of every multiprocessor (on Hopper two 1024-thread blocks per SM, 2048 threads), so no kernel of
any stream or priority can start beside it. Triton reads a kernel's source from its file: a
module of its own."""

import triton
import triton.language as tl


@triton.jit
def _globaltimer():
    return tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64, is_pure=False, pack=1)


# One compiled variant whatever the duration (the warm child compiles it ahead of the job).
@triton.jit(do_not_specialize=["duration_ns"])
def spin(duration_ns):
    start = _globaltimer()
    now = start
    while now - start < duration_ns:
        now = _globaltimer()


def cover_geometry(multiprocessors: int, threads_per_multiprocessor: int) -> tuple[int, int]:
    """(blocks, warps per block) that fill every thread slot: the largest power-of-two block of
    at most 1024 threads that divides the per-SM limit (Hopper's 2048: 1024-thread blocks, the
    form measured on the H200; Ada's 1536: 512-thread blocks, three per SM)."""
    block = 1024
    while block > 32 and threads_per_multiprocessor % block:
        block //= 2
    return multiprocessors * (threads_per_multiprocessor // block), block // 32


def device_cover_geometry() -> tuple[int, int]:
    import torch

    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return cover_geometry(props.multi_processor_count, props.max_threads_per_multi_processor)

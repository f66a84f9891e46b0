"""The device-filling launch cover (TimingPolicy.cover_kind = "fill"): every block spins on the
GPU's nanosecond timer for a given time. Launched as two 1024-thread blocks per multiprocessor,
it holds every thread slot of the GPU (2048 per SM on Hopper), so no kernel of any stream or
priority can start beside it. Triton reads a kernel's source from its file: a module of its own."""

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

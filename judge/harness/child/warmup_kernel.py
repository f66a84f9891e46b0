"""The judge's own Triton kernel for a warm child's first compilation (Triton reads a kernel's
source from its file, so it lives in a module of its own)."""

import triton
import triton.language as tl


@triton.jit
def fill(x_ptr, n, value, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, tl.full([BLOCK], value, tl.float32), mask=offsets < n)

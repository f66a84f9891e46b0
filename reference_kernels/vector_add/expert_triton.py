"""Expert Triton solution for vector_add (obeys the submission contract).

The bulk runs without a mask: Triton can then prove every access is 16-byte aligned and
contiguous and emits 128-bit loads and stores. The ragged tail, if any, gets one masked program
in a second launch. Each program moves 4096 elements (16 KiB per operand) with 8 warps, so every
thread keeps four 16-byte loads per operand in flight.
"""

import torch
import triton
import triton.language as tl

BLOCK = 4096


@triton.jit
def _add_full_blocks(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offsets = start + tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offsets, cache_modifier=".cg")
    b = tl.load(b_ptr + offsets, cache_modifier=".cg")
    tl.store(c_ptr + offsets, a + b, cache_modifier=".cs")


@triton.jit
def _add_tail(a_ptr, b_ptr, c_ptr, start, n, BLOCK: tl.constexpr):
    offsets = start + tl.arange(0, BLOCK)
    mask = offsets < n
    a = tl.load(a_ptr + offsets, mask=mask)
    b = tl.load(b_ptr + offsets, mask=mask)
    tl.store(c_ptr + offsets, a + b, mask=mask)


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, n: int) -> None:
    full = n // BLOCK
    if full:
        _add_full_blocks[(full,)](a, b, c, BLOCK=BLOCK, num_warps=8)
    if n % BLOCK:
        _add_tail[(1,)](a, b, c, full * BLOCK, n, BLOCK=BLOCK, num_warps=8)

"""Wrong answer (output partly unwritten): the grid is n // BLOCK, so the last partial block
is never launched and its elements keep the judge's NaN poison (for n < 1024, nothing at all)."""

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(c_ptr + offsets, tl.load(a_ptr + offsets) + tl.load(b_ptr + offsets))


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, n: int) -> None:
    blocks = n // 1024
    if blocks:
        add_kernel[(blocks,)](a, b, c, BLOCK=1024)

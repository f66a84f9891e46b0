"""Wrong answer (output never properly written): blocks atomically add into out[0] but nobody
zeroes it first. The judge poisons out with NaN, so NaN + partials stays NaN."""

import torch
import triton
import triton.language as tl


@triton.jit
def sum_into_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    values = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(values, axis=0))


def solve(x: torch.Tensor, out: torch.Tensor, n: int) -> None:
    sum_into_kernel[(triton.cdiv(n, 4096),)](x, out, n, BLOCK=4096)

"""Accepted: the Triton starter completed as its TODOs say: per-program partial sums, then the
same kernel again over the partials until one value is left."""

import torch
import triton
import triton.language as tl


@triton.jit
def partial_sum_kernel(x_ptr, partial_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.store(partial_ptr + pid, tl.sum(x, axis=0))


def solve(x: torch.Tensor, out: torch.Tensor, n: int) -> None:
    BLOCK = 4096
    programs = triton.cdiv(n, BLOCK)
    partials = torch.empty(programs, dtype=torch.float32, device=x.device)
    partial_sum_kernel[(programs,)](x, partials, n, BLOCK=BLOCK)
    while programs > 1:
        count = programs
        programs = triton.cdiv(count, BLOCK)
        next_partials = torch.empty(programs, dtype=torch.float32, device=x.device)
        partial_sum_kernel[(programs,)](partials, next_partials, count, BLOCK=BLOCK)
        partials = next_partials
    out.copy_(partials)

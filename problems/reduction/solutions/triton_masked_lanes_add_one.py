"""Wrong answer: the masked tail lanes load `other=1.0` instead of 0, so every sum whose
length is not a multiple of the block gets the number of padding lanes added."""

import torch
import triton
import triton.language as tl

BLOCK = 4096


@triton.jit
def block_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    values = tl.load(x_ptr + offsets, mask=offsets < n, other=1.0)
    tl.store(out_ptr + pid, tl.sum(values, axis=0))


def solve(x: torch.Tensor, out: torch.Tensor, n: int) -> None:
    current, count = x, n
    while count > BLOCK:
        programs = triton.cdiv(count, BLOCK)
        partials = torch.empty(programs, dtype=torch.float32, device=x.device)
        block_sum_kernel[(programs,)](current, partials, count, BLOCK=BLOCK)
        current, count = partials, programs
    block_sum_kernel[(1,)](current, out, count, BLOCK=BLOCK)

"""Wrong answer (one precision lower): the per-block partial sums are stored and then added in
fp16, "to halve the traffic of the second pass". fp16 keeps 11 bits of the total (and overflows
past 65504), far outside a 1e-4 relative tolerance."""

import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def fp16_block_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    values = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0).to(tl.float16)
    tl.store(out_ptr + pid, tl.sum(values, axis=0).to(tl.float16))


def solve(x: torch.Tensor, out: torch.Tensor, n: int) -> None:
    current, count = x, n
    while count > 1:
        programs = triton.cdiv(count, BLOCK)
        partials = torch.empty(programs, dtype=torch.float16, device=x.device)
        fp16_block_sum_kernel[(programs,)](current, partials, count, BLOCK=BLOCK)
        current, count = partials, programs
    out.copy_(current.float())

"""Wrong answer (exact when small, approximate when large): for n above 2^20 it sums only the
first sixteenth of the vector and multiplies by 16, reading 16x less memory.

On the small correctness cases the result is exact. On large inputs the estimate misses by
roughly 4 / sqrt(n) times the spread of the values, which the gpu_only cases and the checked
benchmark shapes catch; if an estimate ever lands within tolerance, its time is 16x below the
bandwidth floor and is rejected as impossible.
"""

import torch
import triton
import triton.language as tl

BLOCK = 4096


@triton.jit
def block_sum_kernel(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    values = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.store(out_ptr + pid, tl.sum(values, axis=0) * factor)


def solve(x: torch.Tensor, out: torch.Tensor, n: int) -> None:
    count, factor = n, 1.0
    if n > (1 << 20):
        count, factor = n // 16, 16.0
    current = x
    while count > BLOCK:
        programs = triton.cdiv(count, BLOCK)
        partials = torch.empty(programs, dtype=torch.float32, device=x.device)
        block_sum_kernel[(programs,)](current, partials, count, factor, BLOCK=BLOCK)
        current, count, factor = partials, programs, 1.0
    block_sum_kernel[(1,)](current, out, count, factor, BLOCK=BLOCK)

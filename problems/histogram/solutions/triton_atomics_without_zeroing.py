"""Wrong: atomic adds onto the output as the judge handed it over (poisoned, not zeroed)."""

import torch
import triton
import triton.language as tl


@triton.jit
def count_kernel(data_ptr, counts_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    values = tl.load(data_ptr + offsets, mask=mask, other=0)
    tl.atomic_add(counts_ptr + values, tl.full([BLOCK], 1, tl.int32), mask=mask)


def solve(data: torch.Tensor, counts: torch.Tensor, n: int, num_bins: int) -> None:
    count_kernel[(triton.cdiv(n, 1024),)](data, counts, n, BLOCK=1024)

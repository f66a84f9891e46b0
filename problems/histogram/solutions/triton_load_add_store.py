"""Wrong: counts[v] = counts[v] + 1 as a load and a store, not an atomic. Lanes (and programs)
that hit the same bin read the same old count and write the same new one: increments are lost."""

import torch
import triton
import triton.language as tl


@triton.jit
def zero_kernel(counts_ptr, num_bins, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(counts_ptr + offsets, tl.zeros([BLOCK], dtype=tl.int32), mask=offsets < num_bins)


@triton.jit
def count_kernel(data_ptr, counts_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    values = tl.load(data_ptr + offsets, mask=mask, other=0)
    old = tl.load(counts_ptr + values, mask=mask, other=0)
    tl.store(counts_ptr + values, old + 1, mask=mask)


def solve(data: torch.Tensor, counts: torch.Tensor, n: int, num_bins: int) -> None:
    zero_kernel[(triton.cdiv(num_bins, 1024),)](counts, num_bins, BLOCK=1024)
    count_kernel[(triton.cdiv(n, 1024),)](data, counts, n, BLOCK=1024)

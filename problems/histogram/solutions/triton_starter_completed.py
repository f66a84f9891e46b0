"""Accepted: the Triton starter completed as its TODO says: counts zeroed, then one atomic_add
per value into its bin."""

import torch
import triton
import triton.language as tl


@triton.jit
def histogram_kernel(data_ptr, counts_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    values = tl.load(data_ptr + offsets, mask=mask)
    tl.atomic_add(counts_ptr + values, 1, mask=mask)


def solve(data: torch.Tensor, counts: torch.Tensor, n: int, num_bins: int) -> None:
    BLOCK = 1024
    counts.zero_()
    histogram_kernel[(triton.cdiv(n, BLOCK),)](data, counts, n, BLOCK=BLOCK)

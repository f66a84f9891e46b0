"""Wrong: scans every 1024-element tile on its own and never adds the totals of the tiles before
it. Right for n <= 1024, wrong from the second tile on."""

import torch
import triton
import triton.language as tl


@triton.jit
def scan_tiles(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.cumsum(tl.load(x_ptr + offsets, mask=mask, other=0.0), axis=0), mask=mask)


def solve(x: torch.Tensor, y: torch.Tensor, n: int) -> None:
    scan_tiles[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)

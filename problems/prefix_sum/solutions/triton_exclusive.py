"""Wrong: an exclusive scan (y[i] = x[0] + ... + x[i-1], y[0] = 0), the other convention."""

import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def scan_tiles(x_ptr, y_ptr, totals_ptr, n, BLOCK: tl.constexpr):
    tile = tl.program_id(0)
    offsets = tile * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    values = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    inclusive = tl.cumsum(values, axis=0)
    tl.store(y_ptr + offsets, inclusive - values, mask=mask)
    tl.store(totals_ptr + tile, tl.sum(values, axis=0))


@triton.jit
def add_carries(y_ptr, carries_ptr, n, BLOCK: tl.constexpr):
    tile = tl.program_id(0) + 1
    offsets = tile * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(y_ptr + offsets, mask=mask) + tl.load(carries_ptr + tile - 1), mask=mask)


def inclusive(x: torch.Tensor, y: torch.Tensor, n: int, exclusive: bool) -> None:
    tiles = triton.cdiv(n, BLOCK)
    totals = torch.empty(tiles, dtype=torch.float32, device=x.device)
    scan_tiles[(tiles,)](x, y, totals, n, BLOCK=BLOCK)
    if tiles > 1:
        # The carries are the tiles' totals scanned inclusively (correct), added to exclusive tiles.
        carries = torch.empty_like(totals)
        inclusive(totals, carries, tiles, exclusive=False)
        add_carries[(tiles - 1,)](y, carries, n, BLOCK=BLOCK)


def solve(x: torch.Tensor, y: torch.Tensor, n: int) -> None:
    inclusive(x, y, n, exclusive=True)

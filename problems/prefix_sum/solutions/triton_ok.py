"""Accepted: three phases. Each tile is scanned with tl.cumsum and its total stored; the totals
are scanned by the same function (recursively, one level per factor of 1024); each tile then
adds the inclusive sum of the tiles before it."""

import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def scan_tiles(x_ptr, y_ptr, totals_ptr, n, BLOCK: tl.constexpr):
    tile = tl.program_id(0)
    offsets = tile * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    scanned = tl.cumsum(tl.load(x_ptr + offsets, mask=mask, other=0.0), axis=0)
    tl.store(y_ptr + offsets, scanned, mask=mask)
    tl.store(totals_ptr + tile, tl.sum(tl.where(mask, tl.load(x_ptr + offsets, mask=mask, other=0.0), 0.0), axis=0))


@triton.jit
def add_carries(y_ptr, carries_ptr, n, BLOCK: tl.constexpr):
    tile = tl.program_id(0) + 1  # tile 0 has nothing before it
    offsets = tile * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    carry = tl.load(carries_ptr + tile - 1)
    tl.store(y_ptr + offsets, tl.load(y_ptr + offsets, mask=mask) + carry, mask=mask)


def solve(x: torch.Tensor, y: torch.Tensor, n: int) -> None:
    tiles = triton.cdiv(n, BLOCK)
    totals = torch.empty(tiles, dtype=torch.float32, device=x.device)
    scan_tiles[(tiles,)](x, y, totals, n, BLOCK=BLOCK)
    if tiles > 1:
        carries = torch.empty_like(totals)
        solve(totals, carries, tiles)
        add_carries[(tiles - 1,)](y, carries, n, BLOCK=BLOCK)

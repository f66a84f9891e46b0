"""Wrong: tiles are scanned in fp32, but the tile totals are stored, scanned and added in bf16
(half the memory for the carries, 2^-9 relative error in every tile after the first)."""

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
    tl.store(y_ptr + offsets, tl.cumsum(values, axis=0), mask=mask)
    tl.store(totals_ptr + tile, tl.sum(values, axis=0).to(tl.bfloat16))


@triton.jit
def scan_carries(totals_ptr, carries_ptr, tiles, BLOCK: tl.constexpr):
    running = tl.zeros([1], dtype=tl.bfloat16)
    for start in range(0, tiles, BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        mask = offsets < tiles
        t = tl.load(totals_ptr + offsets, mask=mask, other=0.0)
        scanned = (tl.cumsum(t.to(tl.float32), axis=0) + running.to(tl.float32)).to(tl.bfloat16)
        tl.store(carries_ptr + offsets, scanned, mask=mask)
        running = tl.sum(tl.where(offsets == tl.minimum(start + BLOCK, tiles) - 1, scanned, 0.0), axis=0).to(
            tl.bfloat16
        ) + tl.zeros([1], dtype=tl.bfloat16)


@triton.jit
def add_carries(y_ptr, carries_ptr, n, BLOCK: tl.constexpr):
    tile = tl.program_id(0) + 1
    offsets = tile * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    carry = tl.load(carries_ptr + tile - 1).to(tl.float32)
    tl.store(y_ptr + offsets, tl.load(y_ptr + offsets, mask=mask) + carry, mask=mask)


def solve(x: torch.Tensor, y: torch.Tensor, n: int) -> None:
    tiles = triton.cdiv(n, BLOCK)
    totals = torch.empty(tiles, dtype=torch.bfloat16, device=x.device)
    scan_tiles[(tiles,)](x, y, totals, n, BLOCK=BLOCK)
    if tiles > 1:
        carries = torch.empty_like(totals)
        scan_carries[(1,)](totals, carries, tiles, BLOCK=BLOCK)
        add_carries[(tiles - 1,)](y, carries, n, BLOCK=BLOCK)

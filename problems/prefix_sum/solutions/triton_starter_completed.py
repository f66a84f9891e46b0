"""Accepted: the Triton starter completed as its TODOs say: each tile scanned with tl.cumsum, the
tile totals scanned the same way (recursively), and each tile's carry added by a second kernel."""

import torch
import triton
import triton.language as tl


@triton.jit
def scan_tile_kernel(x_ptr, y_ptr, totals_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    scanned = tl.cumsum(x, axis=0)
    tl.store(y_ptr + offsets, scanned, mask=mask)
    tl.store(totals_ptr + tl.program_id(0), tl.sum(x, axis=0))


@triton.jit
def add_carry_kernel(y_ptr, scanned_totals_ptr, n, BLOCK: tl.constexpr):
    tile = tl.program_id(0)
    offsets = tile * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    if tile > 0:
        carry = tl.load(scanned_totals_ptr + tile - 1)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(y_ptr + offsets, y + carry, mask=mask)


def solve(x: torch.Tensor, y: torch.Tensor, n: int) -> None:
    BLOCK = 1024
    tiles = triton.cdiv(n, BLOCK)
    totals = torch.empty(tiles, dtype=torch.float32, device=x.device)
    scan_tile_kernel[(tiles,)](x, y, totals, n, BLOCK=BLOCK)
    if tiles > 1:
        scanned_totals = torch.empty_like(totals)
        solve(totals, scanned_totals, tiles)
        add_carry_kernel[(tiles,)](y, scanned_totals, n, BLOCK=BLOCK)

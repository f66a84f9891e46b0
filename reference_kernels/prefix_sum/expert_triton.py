"""Expert Triton solution for prefix_sum (obeys the contract).

Reduce, then scan: pass 1 reads x once and stores only each 4096-element tile's total; the
totals (a few thousand) are scanned by one program; pass 3 reads x again, scans each tile with
tl.cumsum and adds its carry. That moves 12 bytes per element (the naive scan-then-add moves
16) and every pass is a streaming one. The single-pass decoupled look-back that reaches 8 bytes
per element is the CUDA expert.
"""

import torch
import triton
import triton.language as tl

TILE = 4096
TOTALS_BLOCK = 4096


@triton.jit
def _tile_totals(x_ptr, totals_ptr, n, TILE: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * TILE + tl.arange(0, TILE)
    tl.store(totals_ptr + tl.program_id(0), tl.sum(tl.load(x_ptr + offsets, mask=offsets < n, other=0.0), axis=0))


@triton.jit
def _exclusive_carries(totals_ptr, carries_ptr, tiles, BLOCK: tl.constexpr):
    # One program: carries[t] = totals[0] + ... + totals[t - 1], BLOCK totals per step.
    running = 0.0
    for start in range(0, tiles, BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        mask = offsets < tiles
        t = tl.load(totals_ptr + offsets, mask=mask, other=0.0)
        inclusive = tl.cumsum(t, axis=0)
        tl.store(carries_ptr + offsets, running + inclusive - t, mask=mask)
        running += tl.sum(t, axis=0)


@triton.jit
def _scan_tiles(x_ptr, y_ptr, carries_ptr, n, TILE: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * TILE + tl.arange(0, TILE)
    mask = offsets < n
    scanned = tl.cumsum(tl.load(x_ptr + offsets, mask=mask, other=0.0), axis=0)
    tl.store(y_ptr + offsets, scanned + tl.load(carries_ptr + tl.program_id(0)), mask=mask)


def solve(x: torch.Tensor, y: torch.Tensor, n: int) -> None:
    tiles = triton.cdiv(n, TILE)
    totals = torch.empty(tiles, dtype=torch.float32, device=x.device)
    carries = torch.empty_like(totals)
    _tile_totals[(tiles,)](x, totals, n, TILE=TILE, num_warps=8)
    _exclusive_carries[(1,)](totals, carries, tiles, BLOCK=TOTALS_BLOCK, num_warps=8)
    _scan_tiles[(tiles,)](x, y, carries, n, TILE=TILE, num_warps=8)

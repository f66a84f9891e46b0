"""Expert Triton solution for layernorm (obeys the contract).

Rows up to 16384 columns are held whole in registers by one program (x read once, y written
once); the warp count grows with the row so each thread keeps about 16 values. The variance is
the centred one (x - mean squared), computed from the values already in registers. Longer rows
take a tiled two-pass path (the second pass reads the row back, mostly from L2).
"""

import torch
import triton
import triton.language as tl

EPS = 1e-5
MAX_ROW_BLOCK = 16384
TILE = 4096


@triton.jit
def _row(x_ptr, w_ptr, b_ptr, y_ptr, n, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=0.0, eviction_policy="evict_first")
    mean = tl.sum(x, axis=0) / n
    centred = tl.where(mask, x - mean, 0.0)
    rstd = tl.rsqrt(tl.sum(centred * centred, axis=0) / n + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * n + cols, centred * rstd * w + b, mask=mask)


@triton.jit
def _tiled(x_ptr, w_ptr, b_ptr, y_ptr, n, eps, TILE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, TILE)
    # Pass 1: per-lane sums shifted by the row's first value (a cheap, stable shift), so the
    # centred variance comes from one read: var = E[(x-s)^2] - (E[x-s])^2 with s close to the mean.
    shift = tl.load(x_ptr + row * n)
    acc = tl.zeros([TILE], dtype=tl.float32)
    acc2 = tl.zeros([TILE], dtype=tl.float32)
    for start in range(0, n, TILE):
        mask = start + cols < n
        d = tl.where(mask, tl.load(x_ptr + row * n + start + cols, mask=mask, other=0.0) - shift, 0.0)
        acc += d
        acc2 += d * d
    mean_d = tl.sum(acc, axis=0) / n
    var = tl.maximum(tl.sum(acc2, axis=0) / n - mean_d * mean_d, 0.0)
    mean = shift + mean_d
    rstd = tl.rsqrt(var + eps)
    for start in range(0, n, TILE):
        mask = start + cols < n
        x = tl.load(x_ptr + row * n + start + cols, mask=mask, other=0.0)
        w = tl.load(w_ptr + start + cols, mask=mask)
        b = tl.load(b_ptr + start + cols, mask=mask)
        tl.store(y_ptr + row * n + start + cols, (x - mean) * rstd * w + b, mask=mask)


def solve(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    if n <= MAX_ROW_BLOCK:
        block = triton.next_power_of_2(n)
        warps = min(max(block // 512, 1), 16)
        _row[(m,)](x, weight, bias, y, n, EPS, BLOCK_N=block, num_warps=warps)
    else:
        _tiled[(m,)](x, weight, bias, y, n, EPS, TILE=TILE, num_warps=16)

"""Accepted: the Triton starter completed as its TODOs say: one tile per row, mean, variance of
the masked x - mean, normalise, scale by weight, add bias."""

import torch
import triton
import triton.language as tl

EPS = 1e-5


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n
    diff = tl.where(mask, x - mean, 0.0)
    var = tl.sum(diff * diff, axis=0) / n
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * n + cols, diff / tl.sqrt(var + eps) * w + b, mask=mask)


def solve(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    # One tile per row: fine up to a few thousand columns; longer rows need a loop over tiles.
    BLOCK_N = triton.next_power_of_2(n)
    layernorm_kernel[(m,)](x, weight, bias, y, n, EPS, BLOCK_N=BLOCK_N)

"""Accepted: the Triton starter completed as its TODOs say: fp32 sum stored into h, rstd from the
mean of its squares, sum * rstd * weight stored into y."""

import torch
import triton
import triton.language as tl

EPS = 1e-6


@triton.jit
def add_rmsnorm_kernel(x_ptr, r_ptr, w_ptr, h_ptr, y_ptr, n, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + row * n + cols, mask=mask, other=0.0).to(tl.float32)
    s = x + r
    tl.store(h_ptr + row * n + cols, s.to(tl.bfloat16), mask=mask)
    rstd = 1.0 / tl.sqrt(tl.sum(s * s, axis=0) / n + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * n + cols, (s * rstd * w).to(tl.bfloat16), mask=mask)


def solve(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, h: torch.Tensor, y: torch.Tensor, m: int, n: int
) -> None:
    # One tile per row: fine up to a few thousand columns; longer rows need a loop over tiles.
    BLOCK_N = triton.next_power_of_2(n)
    add_rmsnorm_kernel[(m,)](x, residual, weight, h, y, n, EPS, BLOCK_N=BLOCK_N)

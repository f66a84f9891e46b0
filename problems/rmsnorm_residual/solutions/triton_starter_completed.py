"""Accepted: the Triton starter completed as its TODOs say: a loop over tiles stores the fp32
sum as h and sums its squares, a second loop recomputes the sum and stores y."""

import torch
import triton
import triton.language as tl

EPS = 1e-6


@triton.jit
def add_rmsnorm_kernel(x_ptr, r_ptr, w_ptr, h_ptr, y_ptr, n, eps, TILE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, TILE)
    squares = tl.zeros([TILE], dtype=tl.float32)
    for start in range(0, n, TILE):
        mask = start + cols < n
        s = tl.load(x_ptr + row * n + start + cols, mask=mask, other=0.0).to(tl.float32)
        s += tl.load(r_ptr + row * n + start + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(h_ptr + row * n + start + cols, s.to(tl.bfloat16), mask=mask)
        squares += s * s
    rstd = 1.0 / tl.sqrt(tl.sum(squares, axis=0) / n + eps)
    for start in range(0, n, TILE):
        mask = start + cols < n
        s = tl.load(x_ptr + row * n + start + cols, mask=mask, other=0.0).to(tl.float32)
        s += tl.load(r_ptr + row * n + start + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + start + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + row * n + start + cols, (s * rstd * w).to(tl.bfloat16), mask=mask)


def solve(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, h: torch.Tensor, y: torch.Tensor, m: int, n: int
) -> None:
    add_rmsnorm_kernel[(m,)](x, residual, weight, h, y, n, EPS, TILE=1024)

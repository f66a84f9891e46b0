"""Wrong: normalises like layer norm, subtracting the row mean and dividing by the standard
deviation. RMSNorm divides the sum itself by its root mean square."""

import torch
import triton
import triton.language as tl

EPS = 1e-6


@triton.jit
def add_rmsnorm_kernel(x_ptr, r_ptr, w_ptr, h_ptr, y_ptr, n, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n
    s = tl.load(x_ptr + row * n + cols, mask=mask, other=0.0).to(tl.float32)
    s += tl.load(r_ptr + row * n + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(h_ptr + row * n + cols, s.to(tl.bfloat16), mask=mask)
    centred = tl.where(mask, s - tl.sum(s, axis=0) / n, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(centred * centred, axis=0) / n + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * n + cols, (centred * rstd * w).to(tl.bfloat16), mask=mask)


def solve(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, h: torch.Tensor, y: torch.Tensor, m: int, n: int
) -> None:
    add_rmsnorm_kernel[(m,)](x, residual, weight, h, y, n, EPS, BLOCK_N=triton.next_power_of_2(n))

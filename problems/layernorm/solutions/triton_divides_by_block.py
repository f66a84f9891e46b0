"""Wrong: masked lanes load 0, but the mean and the variance are divided by the tile width
(BLOCK_N, a power of two) instead of n; the padding lanes also enter the variance as -mean.
Right only when n is a power of two."""

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
    mean = tl.sum(x, axis=0) / BLOCK_N
    diff = x - mean
    var = tl.sum(diff * diff, axis=0) / BLOCK_N
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * n + cols, diff / tl.sqrt(var + eps) * w + b, mask=mask)


def solve(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    layernorm_kernel[(m,)](x, weight, bias, y, n, EPS, BLOCK_N=triton.next_power_of_2(n))

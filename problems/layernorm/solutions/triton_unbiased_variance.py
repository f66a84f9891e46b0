"""Wrong: divides the sum of squared deviations by n - 1 (the sample variance, PyTorch's default
for a variance); layer norm normalises with the biased variance (1/n)."""

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
    var = tl.sum(diff * diff, axis=0) / tl.maximum(n - 1, 1)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * n + cols, diff / tl.sqrt(var + eps) * w + b, mask=mask)


def solve(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    layernorm_kernel[(m,)](x, weight, bias, y, n, EPS, BLOCK_N=triton.next_power_of_2(n))

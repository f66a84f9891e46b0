"""Accepted: the Triton starter completed as its TODOs say: three loops over the row's tiles
(the sum, the masked centred squares, the output)."""

import torch
import triton
import triton.language as tl

EPS = 1e-5


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n, eps, TILE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, TILE)
    total = tl.zeros([TILE], dtype=tl.float32)
    for start in range(0, n, TILE):
        total += tl.load(x_ptr + row * n + start + cols, mask=start + cols < n, other=0.0)
    mean = tl.sum(total, axis=0) / n
    squares = tl.zeros([TILE], dtype=tl.float32)
    for start in range(0, n, TILE):
        mask = start + cols < n
        d = tl.where(mask, tl.load(x_ptr + row * n + start + cols, mask=mask, other=0.0) - mean, 0.0)
        squares += d * d
    var = tl.sum(squares, axis=0) / n
    for start in range(0, n, TILE):
        mask = start + cols < n
        x = tl.load(x_ptr + row * n + start + cols, mask=mask, other=0.0)
        w = tl.load(w_ptr + start + cols, mask=mask, other=0.0)
        b = tl.load(b_ptr + start + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row * n + start + cols, (x - mean) / tl.sqrt(var + eps) * w + b, mask=mask)


def solve(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    layernorm_kernel[(m,)](x, weight, bias, y, n, EPS, TILE=1024)

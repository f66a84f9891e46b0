"""Wrong: each lane accumulates its squares in bf16 (64 lanes, one term per tile). bf16 keeps 8
significant bits: once a lane's sum is a couple of hundred terms large, each new term is below
half an ulp and is rounded away, so long rows come out with too small a mean square."""

import torch
import triton
import triton.language as tl

EPS = 1e-6


@triton.jit
def add_rmsnorm_kernel(x_ptr, r_ptr, w_ptr, h_ptr, y_ptr, n, eps, TILE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, TILE)
    total = tl.zeros([TILE], dtype=tl.bfloat16)
    for start in range(0, n, TILE):
        mask = start + cols < n
        s = tl.load(x_ptr + row * n + start + cols, mask=mask, other=0.0).to(tl.float32)
        s += tl.load(r_ptr + row * n + start + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(h_ptr + row * n + start + cols, s.to(tl.bfloat16), mask=mask)
        total = (total.to(tl.float32) + s * s).to(tl.bfloat16)
    rstd = 1.0 / tl.sqrt(tl.sum(total.to(tl.float32), axis=0) / n + eps)
    for start in range(0, n, TILE):
        mask = start + cols < n
        s = tl.load(x_ptr + row * n + start + cols, mask=mask, other=0.0).to(tl.float32)
        s += tl.load(r_ptr + row * n + start + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + start + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + row * n + start + cols, (s * rstd * w).to(tl.bfloat16), mask=mask)


def solve(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, h: torch.Tensor, y: torch.Tensor, m: int, n: int
) -> None:
    add_rmsnorm_kernel[(m,)](x, residual, weight, h, y, n, EPS, TILE=64)

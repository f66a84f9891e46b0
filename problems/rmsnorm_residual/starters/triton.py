import torch
import triton
import triton.language as tl

EPS = 1e-6


@triton.jit
def add_rmsnorm_kernel(x_ptr, r_ptr, w_ptr, h_ptr, y_ptr, n, eps, TILE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, TILE)
    # TODO: walk the row in tiles (offsets start + cols, masked where >= n, masked lanes 0):
    # a first loop adds x and residual in fp32, stores the sum into h (bf16) and sums its
    # squares; rstd = 1 / sqrt(sum of squares / n + eps); a second loop recomputes the sum and
    # stores sum * rstd * weight into y (bf16)
    pass


def solve(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, h: torch.Tensor, y: torch.Tensor, m: int, n: int
) -> None:
    add_rmsnorm_kernel[(m,)](x, residual, weight, h, y, n, EPS, TILE=1024)

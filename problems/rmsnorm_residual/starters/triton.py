import torch
import triton
import triton.language as tl

EPS = 1e-6


@triton.jit
def add_rmsnorm_kernel(x_ptr, r_ptr, w_ptr, h_ptr, y_ptr, n, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n
    # TODO: load x and residual (masked lanes 0) as fp32, add them, store the sum into h (bf16),
    # compute rstd = 1 / sqrt(mean of the squared sum + eps), store sum * rstd * weight into y
    pass


def solve(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, h: torch.Tensor, y: torch.Tensor, m: int, n: int
) -> None:
    # One tile per row: fine up to a few thousand columns; longer rows need a loop over tiles.
    BLOCK_N = triton.next_power_of_2(n)
    add_rmsnorm_kernel[(m,)](x, residual, weight, h, y, n, EPS, BLOCK_N=BLOCK_N)

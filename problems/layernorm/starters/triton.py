import torch
import triton
import triton.language as tl

EPS = 1e-5


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n
    # TODO: load the row (masked lanes 0), compute its mean, the variance of x - mean (masked),
    # normalise with 1 / sqrt(var + eps), multiply by weight, add bias and store into y
    pass


def solve(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    # One tile per row: fine up to a few thousand columns; longer rows need a loop over tiles.
    BLOCK_N = triton.next_power_of_2(n)
    layernorm_kernel[(m,)](x, weight, bias, y, n, EPS, BLOCK_N=BLOCK_N)

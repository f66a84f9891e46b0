import torch
import triton
import triton.language as tl

EPS = 1e-5


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n, eps, TILE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, TILE)
    # TODO: walk the row in tiles (offsets start + cols, masked where >= n, masked lanes 0):
    # a first loop sums x (the mean), a second sums (x - mean)^2 with the masked lanes set to 0
    # (the variance, divided by n), a third stores (x - mean) / sqrt(var + eps) * weight + bias
    pass


def solve(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    layernorm_kernel[(m,)](x, weight, bias, y, n, EPS, TILE=1024)

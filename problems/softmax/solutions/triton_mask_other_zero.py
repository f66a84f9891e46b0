"""Wrong answer (missing mask value): padding lanes load 0.0 instead of -inf, so each padding
lane adds exp(0 - max) to the denominator whenever n is not a power of two."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_row_kernel(x_ptr, y_ptr, n, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=0.0)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n + cols, e / tl.sum(e, axis=0), mask=mask)


def solve(x: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    softmax_row_kernel[(m,)](x, y, n, BLOCK_N=triton.next_power_of_2(n))

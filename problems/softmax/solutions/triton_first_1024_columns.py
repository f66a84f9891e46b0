"""Wrong answer (output partly unwritten): the kernel was written for rows of at most 1024
columns and never loops; longer rows are normalised over their first 1024 columns and the rest
of y keeps the NaN poison."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_row_kernel(x_ptr, y_ptr, n, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n + cols, e / tl.sum(e, axis=0), mask=mask)


def solve(x: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    softmax_row_kernel[(m,)](x, y, n, BLOCK_N=min(1024, triton.next_power_of_2(n)))

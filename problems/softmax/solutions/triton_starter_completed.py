"""Accepted: the Triton starter completed as its TODO says: one program per row, the whole row
in one block (masked columns -inf), max, exp, sum, divide."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, m, n, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n + cols, e / tl.sum(e, axis=0), mask=mask)


def solve(x: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    BLOCK_N = triton.next_power_of_2(n)  # fine for short rows; long rows need a loop over tiles
    softmax_kernel[(m,)](x, y, m, n, BLOCK_N=BLOCK_N)

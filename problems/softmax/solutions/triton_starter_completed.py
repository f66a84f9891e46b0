"""Accepted: the Triton starter completed as its TODOs say: one program per row, the row walked
in tiles (masked columns -inf) keeping a running maximum and a rescaled running sum, then walked
again to write exp(x - max) / sum."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, m, n, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row.to(tl.int64) * n
    y_row = y_ptr + row.to(tl.int64) * n
    cols = tl.arange(0, BLOCK_N)
    running_max = -float("inf")
    running_sum = 0.0
    for start in range(0, n, BLOCK_N):
        mask = start + cols < n
        x = tl.load(x_row + start + cols, mask=mask, other=-float("inf"))
        new_max = tl.maximum(running_max, tl.max(x, axis=0))
        running_sum = running_sum * tl.exp(running_max - new_max) + tl.sum(tl.exp(x - new_max), axis=0)
        running_max = new_max
    for start in range(0, n, BLOCK_N):
        mask = start + cols < n
        x = tl.load(x_row + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_row + start + cols, tl.exp(x - running_max) / running_sum, mask=mask)


def solve(x: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    # A row up to 4096 wide is one tile; a longer row is walked in tiles of 4096 (one block the
    # width of a 300,000-column row takes ptxas minutes to compile and spills everything).
    BLOCK_N = min(triton.next_power_of_2(n), 4096)
    softmax_kernel[(m,)](x, y, m, n, BLOCK_N=BLOCK_N)

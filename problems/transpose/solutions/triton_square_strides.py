"""Wrong: written and tested on square matrices, it uses n as the row stride of y too (y's rows
are m long). Right exactly when m == n."""

import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, y_ptr, m, n, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = (rows[:, None] < m) & (cols[None, :] < n)
    tile = tl.load(x_ptr + rows[:, None] * n + cols[None, :], mask=mask)
    out = y_ptr + cols[:, None] * n + rows[None, :]
    out_mask = (cols[:, None] < n) & (rows[None, :] < m) & (cols[:, None] * n + rows[None, :] < m * n)
    tl.store(out, tl.trans(tile), mask=out_mask)


def solve(x: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    grid = (triton.cdiv(m, 32), triton.cdiv(n, 32))
    transpose_kernel[grid](x, y, m, n, BLOCK=32)

"""Wrong answer (one precision lower): subtracts the max in fp32 but evaluates and sums the
exponentials in fp16, "because half-precision exp is twice as fast". fp16 keeps 11 bits: errors
around 1e-3, a hundred times the tolerance."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_row_kernel(x_ptr, y_ptr, n, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=-float("inf"))
    shifted = (x - tl.max(x, axis=0)).to(tl.float16)
    e = tl.exp(shifted.to(tl.float32)).to(tl.float16)
    total = tl.sum(e, axis=0).to(tl.float16)
    tl.store(y_ptr + row * n + cols, (e / total).to(tl.float32), mask=mask)


def solve(x: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    softmax_row_kernel[(m,)](x, y, n, BLOCK_N=triton.next_power_of_2(n))

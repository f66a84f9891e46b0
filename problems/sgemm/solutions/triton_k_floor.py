"""Wrong: the k loop runs over whole 32-wide tiles only; the last k % 32 products of every
output are never added (and k < 32 adds nothing)."""

import torch
import triton
import triton.language as tl


@triton.jit
def sgemm_kernel(a_ptr, b_ptr, c_ptr, m, n, k, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    inner = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK, BLOCK], dtype=tl.float32)
    for start in range(0, k - k % BLOCK, BLOCK):
        ks = start + inner
        a = tl.load(a_ptr + rows[:, None] * k + ks[None, :], mask=rows[:, None] < m, other=0.0)
        b = tl.load(b_ptr + ks[:, None] * n + cols[None, :], mask=cols[None, :] < n, other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rows[:, None] * n + cols[None, :], acc, mask=(rows[:, None] < m) & (cols[None, :] < n))


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    sgemm_kernel[(triton.cdiv(m, 32), triton.cdiv(n, 32))](a, b, c, m, n, k, BLOCK=32)

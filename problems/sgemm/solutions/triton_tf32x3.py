"""Rejected: asks tl.dot for split-TensorFloat-32 emulation on tensor cores (three TensorFloat-32 products recover
nearly fp32 accuracy). Tensor cores are not allowed in this problem: forbidden in the source."""

import torch
import triton
import triton.language as tl


@triton.jit
def sgemm_kernel(a_ptr, b_ptr, c_ptr, m, n, k, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    inner = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK, BLOCK], dtype=tl.float32)
    for start in range(0, k, BLOCK):
        ks = start + inner
        a = tl.load(a_ptr + rows[:, None] * k + ks[None, :], mask=(rows[:, None] < m) & (ks[None, :] < k), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * n + cols[None, :], mask=(ks[:, None] < k) & (cols[None, :] < n), other=0.0)
        acc += tl.dot(a, b, input_precision="tf32x3")
    tl.store(c_ptr + rows[:, None] * n + cols[None, :], acc, mask=(rows[:, None] < m) & (cols[None, :] < n))


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    sgemm_kernel[(triton.cdiv(m, 64), triton.cdiv(n, 64))](a, b, c, m, n, k, BLOCK=64)

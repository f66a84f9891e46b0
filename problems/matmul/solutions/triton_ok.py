"""Accepted: straightforward tiled tl.dot with masked edges.

The tiles are widened to fp32 before tl.dot: every bf16 value is exact in tf32, so the tensor
cores still multiply exactly and accumulate in fp32 (at the tf32 rate). It also sidesteps the
CPU interpreter, which cannot multiply bf16 tiles.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, m, n, k, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, k, BLOCK_K):
        a = tl.load(a_ptr + rows[:, None] * k + (k0 + ks)[None, :],
                    mask=(rows[:, None] < m) & ((k0 + ks)[None, :] < k), other=0.0)  # fmt: skip
        b = tl.load(b_ptr + (k0 + ks)[:, None] * n + cols[None, :],
                    mask=((k0 + ks)[:, None] < k) & (cols[None, :] < n), other=0.0)  # fmt: skip
        acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc)
    tl.store(c_ptr + rows[:, None] * n + cols[None, :], acc.to(tl.bfloat16),
             mask=(rows[:, None] < m) & (cols[None, :] < n))  # fmt: skip


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    grid = (triton.cdiv(m, 64), triton.cdiv(n, 64))
    matmul_kernel[grid](a, b, c, m, n, k, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)

"""Wrong answer (output partly unwritten): the grid is m // 64 x n // 64, so edge tiles are never
computed and keep the NaN poison (for matrices under 64 x 64, nothing is written)."""

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
        a = tl.load(a_ptr + rows[:, None] * k + (k0 + ks)[None, :], mask=(k0 + ks)[None, :] < k, other=0.0)
        b = tl.load(b_ptr + (k0 + ks)[:, None] * n + cols[None, :], mask=(k0 + ks)[:, None] < k, other=0.0)
        acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc)
    tl.store(c_ptr + rows[:, None] * n + cols[None, :], acc.to(tl.bfloat16))


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    grid = (m // 64, n // 64)
    if grid[0] and grid[1]:
        matmul_kernel[grid](a, b, c, m, n, k, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)

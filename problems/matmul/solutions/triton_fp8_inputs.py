"""Wrong answer (one precision lower): rounds every tile to fp8 (e4m3) before the product, as an
fp8 GEMM would ("Hopper's fp8 tensor cores are twice as fast"). Three mantissa bits cost several
percent per product, far outside the tolerance. (The rounded values go through a bf16 tl.dot,
which sees exactly what an fp8 tl.dot would, so the verdict does not depend on whether this
Triton build supports fp8 operands in this layout.)"""

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
        a8 = a.to(tl.float32).to(tl.float8e4nv).to(tl.float32).to(tl.bfloat16)
        b8 = b.to(tl.float32).to(tl.float8e4nv).to(tl.float32).to(tl.bfloat16)
        acc = tl.dot(a8, b8, acc)
    tl.store(c_ptr + rows[:, None] * n + cols[None, :], acc.to(tl.bfloat16),
             mask=(rows[:, None] < m) & (cols[None, :] < n))  # fmt: skip


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    grid = (triton.cdiv(m, 128), triton.cdiv(n, 128))
    matmul_kernel[grid](a, b, c, m, n, k, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8)

"""Ladder rung 1: unfused, as a framework runs a Linear layer and then its activation. A tiled
tl.dot kernel writes z = a @ b in fp32 to a scratch matrix; a second, elementwise kernel reads it
back, adds the bias, applies the erf GELU and stores bf16. Correct; z makes a round trip
through memory (4 bytes written and read per output) and there are two launches."""

import torch
import triton
import triton.language as tl


@triton.jit
def gemm_kernel(a_ptr, b_ptr, z_ptr, m, n, k, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, k, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * k + ks[None, :], mask=(rows[:, None] < m) & (ks[None, :] < k), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * n + cols[None, :], mask=(ks[:, None] < k) & (cols[None, :] < n), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(z_ptr + rows[:, None] * n + cols[None, :], acc, mask=(rows[:, None] < m) & (cols[None, :] < n))


@triton.jit
def bias_gelu_kernel(z_ptr, bias_ptr, c_ptr, total, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < total
    z = tl.load(z_ptr + offsets, mask=mask, other=0.0)
    z += tl.load(bias_ptr + offsets % n, mask=mask, other=0.0).to(tl.float32)
    tl.store(c_ptr + offsets, (0.5 * z * (1.0 + tl.erf(z * 0.7071067811865476))).to(tl.bfloat16), mask=mask)


def solve(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    z = torch.empty(m, n, device=a.device, dtype=torch.float32)
    grid = (triton.cdiv(m, 128), triton.cdiv(n, 128))
    gemm_kernel[grid](a, b, z, m, n, k, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64)
    bias_gelu_kernel[(triton.cdiv(m * n, 4096),)](z, bias, c, m * n, n, BLOCK=4096)

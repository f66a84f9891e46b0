"""Wrong answer: GELU replaced by its sigmoid approximation z * sigmoid(1.702 z) ("quick GELU",
cheaper than erf). It is off by up to 0.02 near z = +-2.5, where the erf form's outputs are small:
far outside a bf16 output's tolerance there."""

import torch
import triton
import triton.language as tl


@triton.jit
def linear_gelu_kernel(
    a_ptr, b_ptr, bias_ptr, c_ptr, m, n, k, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, k, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * k + ks[None, :], mask=(rows[:, None] < m) & (ks[None, :] < k), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * n + cols[None, :], mask=(ks[:, None] < k) & (cols[None, :] < n), other=0.0)
        acc = tl.dot(a, b, acc)
    bias = tl.load(bias_ptr + cols, mask=cols < n, other=0.0).to(tl.float32)
    z = acc + bias[None, :]
    out = z * tl.sigmoid(1.702 * z)  # the "quick GELU" approximation
    tl.store(
        c_ptr + rows[:, None] * n + cols[None, :], out.to(tl.bfloat16), mask=(rows[:, None] < m) & (cols[None, :] < n)
    )


def solve(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    BLOCK_M, BLOCK_N, BLOCK_K = 128, 128, 64
    grid = (triton.cdiv(m, BLOCK_M), triton.cdiv(n, BLOCK_N))
    linear_gelu_kernel[grid](a, b, bias, c, m, n, k, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)

"""Wrong answer: the activation applied before the bias, GELU(a @ b) + bias. A linear layer adds
its bias first; GELU is not linear, so the order matters everywhere the bias is not 0."""

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
    out = 0.5 * acc * (1.0 + tl.erf(acc * 0.7071067811865476)) + bias[None, :]
    tl.store(
        c_ptr + rows[:, None] * n + cols[None, :], out.to(tl.bfloat16), mask=(rows[:, None] < m) & (cols[None, :] < n)
    )


def solve(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    BLOCK_M, BLOCK_N, BLOCK_K = 128, 128, 64
    grid = (triton.cdiv(m, BLOCK_M), triton.cdiv(n, BLOCK_N))
    linear_gelu_kernel[grid](a, b, bias, c, m, n, k, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)

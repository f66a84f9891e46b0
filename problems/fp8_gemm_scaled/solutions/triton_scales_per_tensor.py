"""Wrong answer: one scale pair for the whole product (a_scale[0] * b_scale[0]), as for per-tensor
fp8 scaling, where the inputs carry one scale per row of a and one per row of b."""

import torch
import triton
import triton.language as tl


@triton.jit
def fp8_gemm_kernel(
    a_ptr, b_ptr, sa_ptr, sb_ptr, c_ptr, m, n, k,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    features = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, k, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a_tile = tl.load(
            a_ptr + rows[:, None] * k + ks[None, :], mask=(rows[:, None] < m) & (ks[None, :] < k), other=0.0
        )
        b_tile = tl.load(
            b_ptr + features[:, None] * k + ks[None, :], mask=(features[:, None] < n) & (ks[None, :] < k), other=0.0
        )
        acc = tl.dot(a_tile, tl.trans(b_tile), acc)
    acc = acc * (tl.load(sa_ptr) * tl.load(sb_ptr))  # per-tensor scales
    tl.store(
        c_ptr + rows[:, None] * n + features[None, :],
        acc.to(tl.bfloat16),
        mask=(rows[:, None] < m) & (features[None, :] < n),
    )


def solve(
    a: torch.Tensor, b: torch.Tensor, a_scale: torch.Tensor, b_scale: torch.Tensor, c: torch.Tensor,
    m: int, n: int, k: int,
) -> None:  # fmt: skip
    BLOCK_M = min(64, max(16, triton.next_power_of_2(m)))  # tl.dot needs at least 16 rows
    BLOCK_N, BLOCK_K = 64, 64
    grid = (triton.cdiv(m, BLOCK_M), triton.cdiv(n, BLOCK_N))
    fp8_gemm_kernel[grid](a, b, a_scale, b_scale, c, m, n, k, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)

"""Accepted: the Triton starter completed as its TODOs say, nothing more.

One program per 16-64 tokens x 64 output features; k in steps of 64, the e4m3 tiles straight into
tl.dot (exact products, fp32 accumulator); the row and column scales applied once at the end.
"""

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
        # max_num_imprecise_acc=32: on sm_90 Triton's fp8 tl.dot otherwise keeps the tensor cores'
        # narrow accumulator over the whole k loop (fast accumulation, wrong beyond tolerance on
        # long k); 32 adds each MMA's 32-deep sum into the fp32 accumulator.
        acc = tl.dot(a_tile, tl.trans(b_tile), acc, max_num_imprecise_acc=32)
    sa = tl.load(sa_ptr + rows, mask=rows < m, other=0.0)
    sb = tl.load(sb_ptr + features, mask=features < n, other=0.0)
    acc = acc * sa[:, None] * sb[None, :]
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

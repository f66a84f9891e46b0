"""Accepted: the Triton starter completed as its TODOs say, nothing more.

One program per 64 output features; the tokens (padded to 16 rows for tl.dot) form one tile; k is
walked in steps of 64 with bf16 tiles straight into tl.dot (fp32 accumulator), stored as bf16.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def decode_gemm_kernel(
    a_ptr, w_ptr, c_ptr, m, n, k, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr
):
    pid = tl.program_id(0)
    tokens = tl.arange(0, BLOCK_M)
    features = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, k, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a_tile = tl.load(
            a_ptr + tokens[:, None] * k + ks[None, :], mask=(tokens[:, None] < m) & (ks[None, :] < k), other=0.0
        )
        w_tile = tl.load(
            w_ptr + features[:, None] * k + ks[None, :], mask=(features[:, None] < n) & (ks[None, :] < k), other=0.0
        )
        acc = tl.dot(a_tile, tl.trans(w_tile), acc)
    tl.store(
        c_ptr + tokens[:, None] * n + features[None, :],
        acc.to(tl.bfloat16),
        mask=(tokens[:, None] < m) & (features[None, :] < n),
    )


def solve(a: torch.Tensor, w: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    BLOCK_M = max(16, triton.next_power_of_2(m))  # tl.dot needs at least 16 rows
    BLOCK_N, BLOCK_K = 64, 64
    grid = (triton.cdiv(n, BLOCK_N),)
    decode_gemm_kernel[grid](a, w, c, m, n, k, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)

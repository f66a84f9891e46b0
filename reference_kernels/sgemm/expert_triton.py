"""Expert Triton solution for sgemm (obeys the contract): fp32 FMAs, no tensor cores.

128 x 128 output tiles, k in steps of 16, tl.dot with input_precision="ieee" (Triton lowers it
to FMA instructions with register blocking), three pipeline stages, and grouped tile order so
that consecutive programs share rows of a and columns of b in L2.
"""

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M = 128, 128, 16, 8


@triton.jit
def _sgemm(
    a_ptr,
    b_ptr,
    c_ptr,
    m,
    n,
    k,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(m, BLOCK_M)
    tiles_n = tl.cdiv(n, BLOCK_N)
    group = pid // (GROUP_M * tiles_n)
    first_m = group * GROUP_M
    size_m = min(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % (GROUP_M * tiles_n)) % size_m
    pid_n = (pid % (GROUP_M * tiles_n)) // size_m
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    inner = tl.arange(0, BLOCK_K)
    a_rows = a_ptr + rows[:, None].to(tl.int64) * k
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, k, BLOCK_K):
        ks = start + inner
        a = tl.load(a_rows + ks[None, :], mask=(rows[:, None] < m) & (ks[None, :] < k), other=0.0)
        b = tl.load(
            b_ptr + ks[:, None].to(tl.int64) * n + cols[None, :],
            mask=(ks[:, None] < k) & (cols[None, :] < n),
            other=0.0,
        )
        acc += tl.dot(a, b, input_precision="ieee")
    out = c_ptr + rows[:, None].to(tl.int64) * n + cols[None, :]
    tl.store(out, acc, mask=(rows[:, None] < m) & (cols[None, :] < n))


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    grid = (triton.cdiv(m, BLOCK_M) * triton.cdiv(n, BLOCK_N),)
    _sgemm[grid](
        a, b, c, m, n, k, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M, num_warps=8, num_stages=3
    )

"""Accepted: per group, the integer weights (q - zero, exact in bf16) through tl.dot and the
group's fp32 sum times its scale, added in fp32 (the scale costs one multiply per output and
group, not one per weight); the words loaded once each and unpacked by a broadcast shift."""

import torch
import triton
import triton.language as tl

GROUP = 128


@triton.jit
def w4a16_kernel(
    a_ptr, qw_ptr, s_ptr, z_ptr, c_ptr, m, n, k,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP: tl.constexpr,
):  # fmt: skip
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    features = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    row_ok = rows < m
    feature_ok = features < n
    groups = k // GROUP
    words_per_row = k // 8
    word_cols = tl.arange(0, GROUP // 8)
    shifts = 4 * tl.arange(0, 8)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for g in range(0, groups):
        ks = g * GROUP + tl.arange(0, GROUP)
        a_tile = tl.load(a_ptr + rows[:, None] * k + ks[None, :], mask=row_ok[:, None], other=0.0)
        words = tl.load(
            qw_ptr + features[:, None] * words_per_row + g * (GROUP // 8) + word_cols[None, :],
            mask=feature_ok[:, None],
            other=0,
        )
        # [BLOCK_N, 16, 8] -> [BLOCK_N, 128]: value i of word w is k index 8 w + i
        q = tl.reshape((words[:, :, None] >> shifts[None, None, :]) & 0xF, (BLOCK_N, GROUP))
        zero = tl.load(z_ptr + features * groups + g, mask=feature_ok, other=0).to(tl.int32)
        scale = tl.load(s_ptr + features * groups + g, mask=feature_ok, other=0.0).to(tl.float32)
        w_int = (q - zero[:, None]).to(tl.bfloat16)  # integers in [-15, 15]: exact
        part = tl.dot(a_tile, tl.trans(w_int))
        acc += part * scale[None, :]
    tl.store(
        c_ptr + rows[:, None] * n + features[None, :], acc.to(tl.bfloat16), mask=row_ok[:, None] & feature_ok[None, :]
    )


def solve(
    a: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, zeros: torch.Tensor, c: torch.Tensor,
    m: int, n: int, k: int,
) -> None:  # fmt: skip
    block_m = min(64, max(16, triton.next_power_of_2(m)))
    block_n = 64
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    w4a16_kernel[grid](a, qweight, scales, zeros, c, m, n, k, BLOCK_M=block_m, BLOCK_N=block_n, GROUP=GROUP)

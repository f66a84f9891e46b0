"""Wrong: an off-by-one in the map from tiles to experts. Expert e's tiles are those from the end
of expert e - 1's to before the end of its own, so the tile's expert is the number of experts
whose tiles end at or before it (<=); this counts those ending strictly before it (<). The first
tile of every expert after the first is then given to the expert before it, whose rows it lies
past: its stores are masked off and those rows are never written."""

import torch
import triton
import triton.language as tl


@triton.jit
def grouped_gemm_kernel(
    a_ptr, w_ptr, offsets_ptr, c_ptr, experts, n, k,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_E: tl.constexpr,
):  # fmt: skip
    tile = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    e_idx = tl.arange(0, BLOCK_E)
    starts = tl.load(offsets_ptr + e_idx, mask=e_idx < experts, other=0)
    ends = tl.load(offsets_ptr + e_idx + 1, mask=e_idx < experts, other=0)
    tiles = (ends - starts + BLOCK_M - 1) // BLOCK_M
    tiles_end = tl.cumsum(tiles, axis=0)  # tiles of experts 0..e
    expert = tl.sum((tiles_end < tile).to(tl.int32), axis=0)
    if expert < experts:
        first_tile = tl.sum(tl.where(e_idx == expert, tiles_end - tiles, 0), axis=0)
        start = tl.sum(tl.where(e_idx == expert, starts, 0), axis=0)
        end = tl.sum(tl.where(e_idx == expert, ends, 0), axis=0)
        rows = start + (tile - first_tile) * BLOCK_M + tl.arange(0, BLOCK_M)
        ks = tl.arange(0, BLOCK_K)
        w_expert = w_ptr + expert.to(tl.int64) * n * k
        acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for k0 in range(0, k, BLOCK_K):
            kk = k0 + ks
            a = tl.load(
                a_ptr + rows[:, None].to(tl.int64) * k + kk[None, :],
                mask=(rows[:, None] < end) & (kk[None, :] < k),
                other=0.0,
            )
            w = tl.load(
                w_expert + cols[None, :].to(tl.int64) * k + kk[:, None],
                mask=(cols[None, :] < n) & (kk[:, None] < k),
                other=0.0,
            )
            acc += tl.dot(a, w)
        out = c_ptr + rows[:, None].to(tl.int64) * n + cols[None, :]
        tl.store(out, acc.to(tl.bfloat16), mask=(rows[:, None] < end) & (cols[None, :] < n))


def solve(a, w, expert_offsets, c, tokens, experts, active_experts, n, k):  # fmt: skip
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
    max_tiles = triton.cdiv(tokens, BLOCK_M) + active_experts  # each expert adds at most one partial tile
    grid = (max_tiles, triton.cdiv(n, BLOCK_N))
    grouped_gemm_kernel[grid](
        a, w, expert_offsets, c, experts, n, k,
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, BLOCK_E=triton.next_power_of_2(experts),
    )  # fmt: skip
